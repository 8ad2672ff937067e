// invite.js - /invite/CODE: the code is read from the path, then taken out
// of the address bar (history.replaceState) so it is never kept, and the
// seat claimed. The seat's token is kept in this browser's storage for
// that game only (never in a URL); the page then goes to the game.
import { Conn, setStatus, storeSeat } from './net.js';

async function main() {
  const code = location.pathname.split('/')[2] || '';
  history.replaceState(null, '', '/invite/');
  const conn = new Conn(null, null);
  try {
    await conn.open();
    const c = await conn.request({ type: 'claim', invite: code }, 'claimed');
    storeSeat(c.game, c.seat, c.token);
    setStatus(`seat ${c.seat} of ${c.game} claimed`);
    const a = document.createElement('a');
    a.href = `/game/${encodeURIComponent(c.game)}`;
    a.textContent = 'open the game';
    document.getElementById('result').append(a);
  } catch (e) {
    setStatus(`claim refused: ${e.message}`, true);
  }
}

main();
