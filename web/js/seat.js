// seat.js - a seat this browser holds, kept in localStorage per game
// (never in a URL): "warroom.token.GAME" holds {"seat","token","seq"}. The
// invite page stores it when it claims, the lobby's create form when it
// creates; the game page joins with it (joinHeld) and keeps there the last
// command number it sent, so a reload never sends a seq the server has
// already answered (docs/protocol.md, command: a seq already answered gets
// its first answer again).

const key = (game) => `warroom.token.${game}`;

// The seat held in game, {seat, token, seq}, or null.
export function loadSeat(game) {
  try {
    const s = JSON.parse(localStorage.getItem(key(game)) || 'null');
    if (s && typeof s.seat === 'string' && typeof s.token === 'string') {
      return { seat: s.seat, token: s.token, seq: Number.isSafeInteger(s.seq) ? s.seq : 0 };
    }
  } catch { /* a damaged entry is no seat */ }
  return null;
}

export function storeSeat(game, seat, token) {
  localStorage.setItem(key(game), JSON.stringify({ seat, token, seq: 0 }));
}

export function forgetSeat(game) {
  localStorage.removeItem(key(game));
}

// The next command number for the seat held in game: one more than the
// last one sent from this browser, stored before it is used.
export function nextSeq(game) {
  const s = loadSeat(game);
  if (!s) throw new Error('no seat held in this game');
  s.seq += 1;
  localStorage.setItem(key(game), JSON.stringify(s));
  return s.seq;
}

// Join game on conn as the seat held here, or watch: resolves with
// {st: the `state` answer, seat: the seat or null, note: "" or why the seat
// kept here was refused (the page then watches, and says so)}.
export async function joinHeld(conn, game) {
  const held = loadSeat(game);
  if (held) {
    try {
      const st = await conn.request({ type: 'join', game, token: held.token }, 'state');
      return { st, seat: st.seat || held.seat, note: '' };
    } catch (e) {
      if (e.code !== 'bad_token') throw e;
      const st = await conn.request({ type: 'join', game, spectate: true }, 'state');
      return { st, seat: null, note: ` (the seat kept here was refused: ${e.message})` };
    }
  }
  const st = await conn.request({ type: 'join', game, spectate: true }, 'state');
  return { st, seat: null, note: '' };
}
