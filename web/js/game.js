// game.js - a game watched as a spectator: joins, keeps its copy of the
// state by applying the server's patches (RFC 6902), asks for a sync when
// a patch does not start at its version or does not apply, and shows the
// ruleset, whose turn, the version, the event log and the state as JSON
// (a later part draws the boards).
import { Conn, setStatus } from './net.js';
import { applyPatch } from './patch.js';

const game = decodeURIComponent(location.pathname.split('/')[2] || '');
let version = -1;
let state = null;
let syncing = false;

function $(id) { return document.getElementById(id); }

function eventText(e) {
  if (e && typeof e === 'object' && typeof e.type === 'string') {
    const { type, ...rest } = e;
    return Object.keys(rest).length ? `${type} ${JSON.stringify(rest)}` : type;
  }
  return JSON.stringify(e);
}

function logEvents(by, from, events) {
  const ol = $('events');
  for (const e of events || []) {
    const li = document.createElement('li');
    li.textContent = `v${from}${by ? ` ${by}` : ''}: ${eventText(e)}`;
    ol.append(li);
  }
  ol.scrollTop = ol.scrollHeight;
}

function show() {
  const server = (state && state.server) || {};
  $('game-status').textContent = server.status ?? '';
  const awaiting = server.awaiting || {};
  const seats = Object.keys(awaiting);
  $('awaiting').textContent = seats.length ? seats.map((s) => `${s} (${awaiting[s]})`).join(', ')
    : server.status === 'finished' ? `over: ${JSON.stringify(server.result)}` : 'nobody';
  $('version').textContent = String(version);
  $('state').textContent = JSON.stringify(state, null, 2);
}

function onState(m) {
  state = m.state;
  version = m.version;
  $('ruleset').textContent = m.ruleset;
  if (m.events) logEvents(null, m.version, m.events);
  show();
}

async function sync(conn) {
  if (syncing) return;
  syncing = true;
  try {
    await conn.request({ type: 'sync', game, since: version }, 'synced', (m) => onPush(conn, m));
  } catch (e) {
    setStatus(`sync failed: ${e.message}`, true);
  } finally {
    syncing = false;
  }
}

function onPush(conn, m) {
  if (m.game !== game) return;
  if (m.type === 'state') { onState(m); return; }
  if (m.type !== 'patch') return;
  if (m.from !== version) { sync(conn); return; }
  try {
    state = applyPatch(state, m.ops);
  } catch (e) {
    setStatus(`patch did not apply (${e.message}): syncing`, true);
    sync(conn);
    return;
  }
  version = m.to;
  logEvents(m.by, m.from, m.events);
  show();
}

async function main() {
  $('game').textContent = game;
  document.title = `Warroom: ${game}`;
  let conn;
  conn = new Conn((m) => onPush(conn, m), () => setStatus('disconnected: reload the page', true));
  try {
    await conn.open();
    const st = await conn.request({ type: 'join', game, spectate: true }, 'state');
    onState(st);
    setStatus('watching');
  } catch (e) {
    setStatus(e.message, true);
  }
}

main();
