// game.js - the game page, /game/GAME: joins the game as the seat this
// browser holds (seat.js: the token the invite page or the create form
// stored) or else as a spectator, keeps its copy of the state by applying
// the server's patches (RFC 6902), asks for a sync when a patch does not
// start at its version or does not apply, joins again and syncs after a
// reconnection (net.js), and wires the parts: the facts (ruleset, seat,
// whose turn, version), the event log (log.js), the board and the order
// line (board.js, play.js), redrawn after every change, the dice panel
// (verify.js: the seed's commitment, the rolls verified), and for a seat
// (not a spectator) the Mail panel (mail.js: its turns sent by mail).
import { Conn, setStatus } from './net.js';
import { applyPatch } from './patch.js';
import { joinHeld } from './seat.js';
import { Board } from './board.js';
import { EventLog } from './log.js';
import { Play } from './play.js';
import { mountVerify } from './verify.js';
import { mountMail } from './mail.js';

const game = decodeURIComponent(location.pathname.split('/')[2] || '');
let version = -1;
let state = null;
let syncing = false;
let mySeat = null;
let play = null;
let log = null;
let verify = null;

function $(id) { return document.getElementById(id); }

function show() {
  const server = (state && state.server) || {};
  $('game-status').textContent = server.status ?? '';
  const awaiting = server.awaiting || {};
  const seats = Object.keys(awaiting);
  $('awaiting').textContent = seats.length ? seats.map((s) => `${s} (${awaiting[s]})`).join(', ')
    : server.status === 'finished' ? `over: ${JSON.stringify(server.result)}` : 'nobody';
  $('version').textContent = String(version);
  $('state').textContent = JSON.stringify(state, null, 2);
  const mine = mySeat !== null && Object.prototype.hasOwnProperty.call(awaiting, mySeat);
  document.body.classList.toggle('awaited', mine);
  $('wr-awaited').hidden = !mine;
  document.title = `${mine ? '(your move) ' : ''}Warroom: ${game}`;
  if (play) play.refresh();
  verify.update(state);
}

function onState(m) {
  state = m.state;
  version = m.version;
  $('ruleset').textContent = m.ruleset;
  if (m.events && log) log.add(m.version, null, m.events);
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
  // Already held (after a sync that answered from a newer version than a
  // server of a cluster had sent us: docs/protocol.md, *sync*).
  if (m.to <= version) return;
  if (m.from !== version) { sync(conn); return; }
  try {
    state = applyPatch(state, m.ops);
  } catch (e) {
    setStatus(`patch did not apply (${e.message}): syncing`, true);
    sync(conn);
    return;
  }
  version = m.to;
  if (log) log.add(m.from, m.by, m.events);
  show();
}

async function main() {
  $('game').textContent = game;
  document.title = `Warroom: ${game}`;
  let conn;
  verify = mountVerify($('verify'), game, () => conn);
  // After a reconnection (net.js): join again, then sync from our version.
  const resume = async () => {
    const { st, seat, note } = await joinHeld(conn, game);
    mySeat = seat;
    if (state === null) onState(st);
    else await sync(conn);
    setStatus(`${seat ? `playing as ${seat}` : 'watching'}${note}`, !!note);
  };
  conn = new Conn((m) => onPush(conn, m), () => setStatus('disconnected: reload the page', true),
    { reconnect: resume });
  const board = new Board($('wr-board'), $('wr-hover'), {
    word: (el) => play && play.word(el),
    stack: (el, units) => play && play.stack(el, units),
  });
  $('wr-zoom-in').addEventListener('click', () => board.zoom(1.25));
  $('wr-zoom-out').addEventListener('click', () => board.zoom(1 / 1.25));
  $('wr-fit').addEventListener('click', () => board.fit());
  $('wr-stack-close').addEventListener('click', () => { $('wr-stack').hidden = true; });
  // Escape clears the line anywhere; Enter sends it from the board too
  // (a click on the board leaves the focus there).
  document.addEventListener('keydown', (e) => {
    if (!play) return;
    if (e.key === 'Escape') { e.preventDefault(); play.escape(); }
    else if (e.key === 'Enter' && e.target === $('wr-board')) { e.preventDefault(); play.send(); }
  });
  try {
    await conn.open();
    const { st, seat, note } = await joinHeld(conn, game);
    mySeat = seat;
    $('wr-seat').textContent = seat ? `you hold the ${seat} seat` : 'watching';
    $('wr-seat').dataset.seat = seat || '';
    document.body.classList.toggle('watching', !seat);
    if (seat) mountMail($('wr-mail'), conn, game, seat);
    play = new Play(conn, game, seat, board, {
      describe: $('wr-describe'), orders: $('wr-orders'), line: $('wr-line'),
      send: $('wr-send'), clear: $('wr-clear'), preview: $('wr-preview'),
      answer: $('wr-answer'), result: $('wr-result'), stack: $('wr-stack'),
    });
    log = new EventLog($('events'), (events) => play.ask('events', { events }).then((a) => a.lines));
    onState(st);
    setStatus(`${seat ? `playing as ${seat}` : 'watching'}${note}`, !!note);
    await play.loadOrders();
  } catch (e) {
    setStatus(e.message, true);
  }
}

main();
