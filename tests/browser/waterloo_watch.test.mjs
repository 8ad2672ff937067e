// waterloo_watch.test.mjs - a spectator's page follows a Waterloo game
// played by two terminal clients (ctest browser_waterloo_watch).
//
// A real warroomd (ephemeral ports); two `warroom` clients, each with its
// own configuration, create and claim a waterloo-1815 game and play it:
// both set-ups ended, then moves of whole stacks and of single units by
// both sides, each chosen by a bounded search the client's own check
// answers (a move the rules refuse is refused on the client's side and
// nothing is sent), at least 8 accepted commands in all. A spectator page,
// 400 px wide, is open the whole time. After each accepted command the
// test reads the server's state with the client (`warroom --json status`),
// waits until the page shows that version and has drawn it, and checks
// through the DOM that every unit the state has on the board is drawn
// inside the hex of its square (the unit's centre in the fill of the
// square's shape naming that square: data-word, present.h) exactly once,
// that no other unit is drawn, and that the command's events are in the
// log in words. Also: nothing in web/ names a ruleset, the page is a
// spectator's (no seat, its title not marked), it fits 400 px without
// scrolling sideways, the hover line names the unit under the pointer, a
// stack's mark lists exactly the units of its square, and nothing was
// refused by the CSP or failed.
//
//   node waterloo_watch.test.mjs BUILD_DIR
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir, startServer, cliRun, launch, watchedPage, bound, failed, tidy } from './support.mjs';
import { parseSquare, neighbours, drawnUnits, compareBoard } from './waterloo_support.mjs';

const build = process.argv[2];
assert.ok(build, 'usage: node waterloo_watch.test.mjs BUILD_DIR');

// Nothing in web/ names a ruleset (docs/architecture.md, Web): every game
// is shown through its presentation's answers. The names are the
// registry's list; the page's files are read from the source tree.
const top = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const rulesets = readFileSync(join(top, 'common/rulesets/rulesets.list'), 'utf8')
  .split('\n').map((l) => l.replace(/#.*/, '').trim()).filter(Boolean);
assert.ok(rulesets.includes('waterloo'), 'the registry lists waterloo');
for (const f of readdirSync(join(top, 'web'), { recursive: true })) {
  if (!/\.(js|html|css)$/.test(f)) continue;
  const text = readFileSync(join(top, 'web', f), 'utf8');
  for (const r of rulesets) assert.ok(!new RegExp(`\\b${r}\\b`, 'i').test(text), `web/${f} names the ruleset ${r}`);
}

const dir = tempDir();
const deadline = bound('browser_waterloo_watch', 170000);

let server, browser;
const side = { french: 'fr', allied: 'al' };
const own = { french: (id) => id.startsWith('fr-'), allied: (id) => !id.startsWith('fr-') };

try {
  server = await startServer(build, dir);
  const run = (who, ...args) => cliRun(build, dir, who, server.ws, ...args);
  const created = JSON.parse(run('fr', '--json', 'new', '--ruleset', 'waterloo', '--scenario', 'waterloo-1815').out.trim().split('\n')[0]);
  const game = created.game;
  assert.match(game, /^g-/);
  assert.equal(run('al', '--json', 'claim', created.invites.allied).code, 0, 'the allied seat claimed');
  const status = () => {
    const r = run('fr', '--json', 'status', game);
    assert.equal(r.code, 0, `status: ${r.out}${r.err}`);
    return JSON.parse(r.out.trim().split('\n')[0]);
  };

  browser = await launch(dir, { viewport: { width: 400, height: 900 } });
  const problems = [];
  const page = await watchedPage(browser, problems);
  await page.goto(`http://127.0.0.1:${server.web}/game/${game}`);

  // The page shows version v and has drawn it; then its board is checked
  // against the server's state of that version.
  async function checkVersion(why) {
    const st = status();
    const v = st.version;
    await page.waitForFunction((want) => document.getElementById('version').textContent === String(want) &&
      document.getElementById('wr-board').dataset.version === String(want), v, { timeout: 20000 });
    const drawn = await drawnUnits(page);
    assert.ok(drawn, 'the board is drawn');
    assert.equal(drawn.version, String(v));
    const wrong = compareBoard(st.state, drawn);
    assert.deepEqual(wrong, [], `${why}: the board at version ${v} differs from the server's state`);
    return st;
  }

  let st = await checkVersion('the game as it starts');
  assert.equal(await page.locator('#wr-seat').textContent(), 'watching');
  assert.equal(await page.title(), `Warroom: ${game}`, 'a spectator\'s title is not marked');
  assert.equal(await page.locator('#ruleset').textContent(), 'waterloo');
  assert.match(await page.locator('#commitment code').textContent(), /^[0-9a-f]{64}$/, 'the dice commitment is shown');
  assert.equal(await page.locator('#commitment code').textContent(), st.state.dice.commitment);
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 400, `the page fits 400 px (it is ${width} px wide)`);

  let accepted = 0, stackMoves = 0;
  const by = { french: 0, allied: 0 };

  // One accepted command: the client's output is the server's ack.
  async function accept(seat, line) {
    const r = run(side[seat], '--json', 'do', game, line);
    if (r.code !== 0) return false;
    const ack = JSON.parse(r.out.trim().split('\n').pop());
    assert.equal(ack.type, 'ack', `${line}: ${r.out}`);
    accepted++;
    by[seat]++;
    const after = await checkVersion(`after "${line}"`);
    assert.equal(after.version, ack.version);
    // Its events are in the log, in the presentation's words.
    if (ack.events.length) {
      await page.waitForFunction((from) => document.querySelectorAll(`#events li[data-version="${from}"][data-worded]`).length > 0,
        ack.version - 1, { timeout: 10000 });
    }
    st = after;
    return true;
  }

  // Move a stack (all of seat's unmoved units on a square of at least
  // `size`) or a single unit one square, the first the rules accept.
  async function moveSome(seat, size) {
    const squares = new Map();
    for (const [id, u] of Object.entries(st.state.units)) {
      if (!own[seat](id) || !parseSquare(u.at) || u.moved) continue;
      if (!squares.has(u.at)) squares.set(u.at, []);
      squares.get(u.at).push(id);
    }
    let tries = 0;
    for (const [sq, ids] of squares) {
      if (size > 1 ? ids.length < size : ids.length !== 1) continue;
      for (const to of neighbours(sq)) {
        if (++tries > 60) return false;
        if (await accept(seat, `move ${ids.join(',')} ${to}`)) return true;
      }
    }
    return false;
  }

  assert.ok(await accept('french', 'endsetup'), 'the French set-up ends');
  assert.ok(await accept('allied', 'endsetup'), 'the allied set-up ends');
  assert.equal(st.state.server.awaiting.french, 'move');
  assert.ok(await moveSome('french', 3), 'a French stack of three or more moves'); stackMoves++;
  assert.ok(await moveSome('french', 2), 'another French stack moves'); stackMoves++;
  assert.ok(await moveSome('french', 1), 'a single French unit moves');
  assert.ok(await accept('french', 'end'), 'the French movement ends');
  for (let i = 0; i < 4 && st.state.server.awaiting.allied !== 'move'; i++) {
    assert.ok(await accept('french', 'end'), 'the French phase ends');
  }
  assert.equal(st.state.server.awaiting.allied, 'move', 'the allied movement');
  assert.ok(await moveSome('allied', 2), 'an allied stack moves'); stackMoves++;
  assert.ok(await moveSome('allied', 1), 'a single allied unit moves');
  assert.ok(await accept('allied', 'end'), 'the allied movement ends');
  assert.ok(accepted >= 8 && by.french >= 3 && by.allied >= 3 && stackMoves >= 3,
    `${accepted} commands accepted (french ${by.french}, allied ${by.allied}), ${stackMoves} stack moves`);

  // The hover line names the unit under the pointer (zoomed in with the
  // keys: a unit seen whole on the board, on top where it is).
  await page.locator('#wr-board').focus();
  for (let i = 0; i < 3; i++) await page.keyboard.press('+');
  assert.ok(Number(await page.locator('#wr-board').getAttribute('data-zoom')) > 1.9, 'the + key zooms in');
  const target = await page.evaluate(() => {
    const board = document.getElementById('wr-board').getBoundingClientRect();
    for (const u of document.querySelectorAll('#wr-board g.unit[data-word]')) {
      const r = u.getBoundingClientRect();
      const x = r.left + r.width / 2, y = r.top + r.height / 2;
      if (r.left < board.left || r.right > board.right || r.top < board.top || r.bottom > board.bottom) continue;
      const top = document.elementFromPoint(x, y);
      if (top && top.closest('g.unit') === u) return { x, y, word: u.getAttribute('data-word') };
    }
    return null;
  });
  assert.ok(target, 'a unit is seen whole on the zoomed board');
  await page.mouse.move(target.x, target.y);
  await page.waitForFunction((w) => document.getElementById('wr-hover').textContent.includes(w), target.word, { timeout: 5000 });
  await page.keyboard.press('0');
  assert.equal(await page.locator('#wr-board').getAttribute('data-zoom'), '1.000', '0 shows the board whole');

  // A stack's mark lists the units of its square, as the state has them.
  const counts = {};
  for (const u of Object.values(st.state.units)) if (parseSquare(u.at)) counts[u.at] = (counts[u.at] || 0) + 1;
  assert.ok(Object.values(counts).some((n) => n >= 2), 'a square holds a stack');
  const mark = page.locator('#wr-board .stack').first();
  await mark.click({ force: true });
  await page.locator('#wr-stack:not([hidden]) li').first().waitFor({ timeout: 5000 });
  const listed = await page.locator('#wr-stack li button').evaluateAll((bs) => bs.map((b) => b.dataset.word));
  const square = st.state.units[listed[0]].at;
  const there = Object.entries(st.state.units).filter(([, u]) => u.at === square).map(([id]) => id);
  assert.deepEqual([...listed].sort(), [...there].sort(), `the stack on ${square} lists its units`);

  assert.deepEqual(problems, [], 'no console errors (a CSP refusal would be one), no failed request');
  console.log(`browser_waterloo_watch: ok (game ${game}, ${accepted} commands, ${stackMoves} stack moves, version ${st.version})`);
} catch (e) {
  failed('browser_waterloo_watch', e);
} finally {
  await tidy(dir, deadline, server, browser);
}
