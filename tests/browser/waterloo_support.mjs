// waterloo_support.mjs - what is about Waterloo's board, for the browser
// tests that look at it (waterloo_watch.test.mjs, waterloo_play.test.mjs,
// screenshots.test.mjs): the Waterloo grid (docs/waterloo-board.md: rows
// A..WW and 0, diagonals) and the board's geometry read from the page's
// DOM, compared with a state. The server, the CLI and the browser are
// support.mjs's.

// --- the Waterloo grid (docs/waterloo-board.md) ------------------------------

// Row index of a square's row name: "0" is 0, A..Z 1..26, AA..WW 27..49.
function rowIndex(name) {
  if (name === '0') return 0;
  if (name.length === 1) return name.charCodeAt(0) - 64;
  return name.charCodeAt(0) - 64 + 26;
}

function rowName(r) {
  if (r === 0) return '0';
  if (r <= 26) return String.fromCharCode(64 + r);
  const c = String.fromCharCode(64 + r - 26);
  return c + c;
}

export function parseSquare(sq) {
  const m = /^(0|[A-Z]{1,2})-(\d+)$/.exec(sq);
  return m ? { r: rowIndex(m[1]), c: Number(m[2]) } : null;
}

export function squareName(r, c) { return `${rowName(r)}-${c}`; }

// The six squares next to sq (some may be off the board: the rules say).
export function neighbours(sq) {
  const p = parseSquare(sq);
  if (!p) return [];
  const d = [[0, -1], [0, 1], [-1, 0], [-1, 1], [1, -1], [1, 0]];
  return d.map(([dr, dc]) => [p.r + dr, p.c + dc])
    .filter(([r, c]) => r >= 1 && r <= 49 && c >= 1 && c <= 57)
    .map(([r, c]) => squareName(r, c));
}

export function distance(a, b) {
  const p = parseSquare(a), q = parseSquare(b);
  const dr = q.r - p.r, dc = q.c - p.c;
  return Math.max(Math.abs(dr), Math.abs(dc), Math.abs(dr + dc));
}

// --- the board as the page draws it -------------------------------------------

// In the page: each drawn unit (an element naming a word that is a group,
// present.h) and the square (a shape naming a word) whose fill holds its
// centre, in the SVG's own geometry; and the squares holding a `reach`
// mark. Read-only: it sends nothing.
export function drawnUnits(page) {
  return page.evaluate(() => {
    const svg = document.querySelector('#wr-board svg');
    if (!svg) return null;
    const named = [...svg.querySelectorAll('[data-word]')];
    const shapes = named.filter((e) => typeof e.isPointInFill === 'function' && !e.closest('g[data-word]'));
    const boxes = shapes.map((s) => ({ s, b: s.getBBox(), inv: s.getScreenCTM().inverse() }));
    const at = (screenPt) => {
      const hits = [];
      for (const { s, b, inv } of boxes) {
        const p = screenPt.matrixTransform(inv);
        if (p.x < b.x || p.x > b.x + b.width || p.y < b.y || p.y > b.y + b.height) continue;
        if (s.isPointInFill(p)) hits.push(s.getAttribute('data-word'));
      }
      return hits;
    };
    const units = named.filter((e) => e.localName === 'g' && e.classList.contains('unit'));
    const out = units.map((u) => {
      const b = u.getBBox();
      const pt = new DOMPoint(b.x + b.width / 2, b.y + b.height / 2).matrixTransform(u.getScreenCTM());
      return { word: u.getAttribute('data-word'), squares: at(pt) };
    });
    const reach = [...svg.querySelectorAll('.reach')].map((m) => {
      const b = m.getBBox();
      return at(new DOMPoint(b.x + b.width / 2, b.y + b.height / 2).matrixTransform(m.getScreenCTM()));
    }).flat();
    return { units: out, reach, version: document.getElementById('wr-board').dataset.version };
  });
}

// Every unit the state has on the board is drawn on its square, once, and
// no other unit is drawn. Returns a list of what differs (empty: none).
export function compareBoard(state, drawn) {
  const wrong = [];
  const onBoard = Object.entries(state.units).filter(([, u]) => parseSquare(u.at));
  const byWord = new Map();
  for (const d of drawn.units) {
    if (byWord.has(d.word)) wrong.push(`${d.word} drawn twice`);
    byWord.set(d.word, d);
  }
  for (const [id, u] of onBoard) {
    const d = byWord.get(id);
    if (!d) wrong.push(`${id} on ${u.at} is not drawn`);
    else if (d.squares.length !== 1 || d.squares[0] !== u.at) wrong.push(`${id} is on ${u.at} but drawn on ${d.squares.join('+') || 'no square'}`);
  }
  const ids = new Set(onBoard.map(([id]) => id));
  for (const d of drawn.units) if (!ids.has(d.word)) wrong.push(`${d.word} is drawn on ${d.squares.join('+')} but the state has it ${state.units[d.word] ? state.units[d.word].at : 'nowhere'}`);
  if (onBoard.length === 0) wrong.push('the state has no unit on the board');
  return wrong;
}
