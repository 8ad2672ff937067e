// game.js - a game, joined with the seat token this browser holds for it
// (net.js) or as a spectator: keeps its copy of the state by applying the
// server's patches (RFC 6902), asks for a sync when a patch does not start
// at its version or does not apply, joins again and syncs after a
// reconnection, and shows the ruleset, whose turn, the version, the event
// log, the dice panel (verify.js) and the state as JSON (a later part
// draws the boards).
import { Conn, setStatus, join } from './net.js';
import { applyPatch } from './patch.js';
import { mountVerify } from './verify.js';

const game = decodeURIComponent(location.pathname.split('/')[2] || '');
let version = -1;
let state = null;
let syncing = false;
let verify = null;

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
  verify.update(state);
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
  verify = mountVerify($('verify'), game, () => conn);
  // After a reconnection (net.js): join again, then sync from our version.
  const resume = async () => {
    const st = await join(conn, game);
    if (state === null) onState(st);
    else await sync(conn);
    setStatus(st.seat ? `playing as ${st.seat}` : 'watching');
  };
  conn = new Conn((m) => onPush(conn, m), () => setStatus('disconnected: reload the page', true),
    { reconnect: resume });
  try {
    await conn.open();
    const st = await join(conn, game);
    onState(st);
    setStatus(st.seat ? `playing as ${st.seat}` : 'watching');
  } catch (e) {
    setStatus(e.message, true);
  }
}

main();
