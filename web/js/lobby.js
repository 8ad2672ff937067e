// lobby.js - the lobby: every game `list` shows (open, running, finished),
// refreshed by `list` every few seconds (the server has no lobby
// subscription); "watch" opens /game/GAME. Above it, the form that
// creates a game (create.js). The connection comes back by itself when it
// is lost (net.js), and the list is asked again then.
import { Conn, setStatus } from './net.js';
import { mountCreate } from './create.js';

const REFRESH_MS = 3000;

function cell(tr, text, cls) {
  const td = document.createElement('td');
  if (text instanceof Node) td.append(text);
  else td.textContent = text ?? '';
  if (cls) td.className = cls;
  tr.append(td);
  return td;
}

function row(g) {
  const tr = document.createElement('tr');
  tr.dataset.game = g.game;
  cell(tr, g.game, 'id');
  cell(tr, g.status + (g.result ? ` (${typeof g.result === 'string' ? g.result : JSON.stringify(g.result)})` : ''), 'status');
  cell(tr, g.ruleset, 'ruleset');
  cell(tr, g.scenario ?? '', 'scenario');
  const seats = cell(tr, '', 'seats');
  for (const [seat, how] of Object.entries(g.seats || {})) {
    const s = document.createElement('span');
    s.className = `seat ${how}`;
    s.dataset.seat = seat;
    s.textContent = `${seat}: ${how === 'free' ? 'free' : 'claimed'}`;
    seats.append(s);
  }
  cell(tr, g.awaiting ?? '', 'awaiting');
  cell(tr, String(g.version), 'version');
  cell(tr, g.last_move_ms ? new Date(g.last_move_ms).toLocaleString() : '', 'moved');
  cell(tr, g.spectators ? String(g.watching ?? 0) : 'not allowed', 'watching');
  const a = document.createElement('a');
  a.href = `/game/${encodeURIComponent(g.game)}`;
  a.className = 'watch';
  a.textContent = 'watch';
  cell(tr, a);
  return tr;
}

async function refresh(conn) {
  const games = [];
  let cursor = null;
  do {
    const msg = { type: 'list', limit: 200 };
    if (cursor) msg.cursor = cursor;
    const ans = await conn.request(msg, 'games');
    games.push(...ans.games);
    cursor = ans.cursor;
  } while (cursor && games.length < 1000);
  const body = document.querySelector('#games tbody');
  body.replaceChildren(...games.map(row));
  setStatus(`${games.length} game${games.length === 1 ? '' : 's'} · updated ${new Date().toLocaleTimeString()}`);
  document.body.dataset.refreshed = String(Number(document.body.dataset.refreshed || 0) + 1);
}

async function main() {
  let timer = null;
  const conn = new Conn(null, () => {
    clearInterval(timer);
    setStatus('disconnected: reload the page', true);
  }, { reconnect: () => refresh(conn) });
  try {
    await conn.open();
    mountCreate(document.getElementById('create'), conn)
      .catch((e) => { document.getElementById('create').textContent = `no form: ${e.message}`; });
    await refresh(conn);
    timer = setInterval(() => {
      if (conn.online) refresh(conn).catch((e) => setStatus(e.message, true));
    }, REFRESH_MS);
  } catch (e) {
    setStatus(e.message, true);
  }
}

main();
