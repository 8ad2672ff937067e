// screenshots.test.mjs - the pictures of the web client in docs/screenshots/
// are of the page as it is now (ctest browser_screenshots_current).
//
// A real warroomd and the `warroom` terminal client make a lobby with a few
// games (a Waterloo 1815 game played by both seats into its third turn
// without a battle, chosen by a fixed search so every run plays the same
// moves; a tictactoe game with a free seat; a finished one) and Debian's
// chromium shows the lobby and the 1815 game page. For each page the test
// writes what the picture shows as text (docs/screenshots/NAME.txt: the
// page's visible text, and a SHA-256 of its whole DOM with the style sheet
// and the board's SVG), with what varies from run to run replaced (game
// ids, the dice commitment, invite codes, clock times). The text must equal
// the committed one: a change to the pages, their style or a drawing fails
// here until the pictures are made again, by
//
//   WARROOM_UPDATE_SCREENSHOTS=1 node tests/browser/screenshots.test.mjs BUILD_DIR
//
// which writes docs/screenshots/NAME.png and NAME.txt (look at the PNGs
// before committing them).
import { readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { tempDir, startServer, cliRun, launch, watchedPage, bound, tidy } from './support.mjs';
import { neighbours, parseSquare } from './waterloo_support.mjs';

const build = process.argv[2];
assert.ok(build, 'usage: node screenshots.test.mjs BUILD_DIR');
const top = join(dirname(fileURLToPath(import.meta.url)), '../..');
const out = join(top, 'docs/screenshots');
const update = process.env.WARROOM_UPDATE_SCREENSHOTS === '1';
const dir = tempDir();
const deadline = bound('browser_screenshots_current', 280000);

// What varies between runs, replaced by a name for it.
function normalize(text) {
  return text
    .replace(/\bg-[0-9a-f]{12}\b/g, 'g-GAME')
    .replace(/\b[0-9a-f]{64}\b/g, 'SHA256')
    .replace(/\b[0-9a-f]{32}\b/g, 'CODE')
    .replace(/\d{1,2}\/\d{1,2}\/\d{4},? ?/g, 'DATE ')
    .replace(/\b\d{1,2}:\d{2}:\d{2}( ?[AP]M)?/g, 'TIME')
    .replace(/[ \t]+\n/g, '\n');
}

// The page's visible text and a digest of all that draws it.
async function snapshot(page) {
  const { text, dom, css } = await page.evaluate(() => {
    const sheets = [...document.styleSheets, ...document.adoptedStyleSheets].map((s) => {
      try { return [...s.cssRules].map((r) => r.cssText).join('\n'); } catch { return ''; }
    });
    // the visible text without the board's own (its square ids): the
    // board is in the digest
    const svgs = [...document.querySelectorAll('svg')];
    for (const s of svgs) s.style.display = 'none';
    const text = document.body.innerText;
    for (const s of svgs) s.style.display = '';
    return { text, dom: document.documentElement.outerHTML, css: sheets.join('\n') };
  });
  const digest = createHash('sha256').update(normalize(dom)).update('\0').update(css).digest('hex');
  return `page digest ${digest}\n\n${normalize(text).trim()}\n`;
}

async function picture(page, name) {
  const text = await snapshot(page);
  const txt = join(out, `${name}.txt`);
  if (update) {
    await page.screenshot({ path: join(out, `${name}.png`), fullPage: false });
    writeFileSync(txt, text);
    console.log(`wrote docs/screenshots/${name}.png and ${name}.txt`);
    return;
  }
  let kept = '';
  try { kept = readFileSync(txt, 'utf8'); } catch { /* missing: differs */ }
  assert.equal(text, kept, `docs/screenshots/${name}: the page differs from its picture; make them again ` +
    '(WARROOM_UPDATE_SCREENSHOTS=1 node tests/browser/screenshots.test.mjs BUILD_DIR) and look at them');
}

let server, browser;
try {
  server = await startServer(build, dir);
  const run = (who, ...args) => cliRun(build, dir, who, server.ws, ...args);
  const json = (r) => JSON.parse(r.out.trim().split('\n')[0]);

  // A finished tictactoe game, then one with a free seat.
  const t1 = json(run('x', '--json', 'new', '--ruleset', 'tictactoe'));
  assert.equal(run('o', '--json', 'claim', t1.invites.o).code, 0);
  for (const [who, cell] of [['x', 0], ['o', 3], ['x', 1], ['o', 4], ['x', 2]]) {
    const r = run(who, '--json', 'do', t1.game, `mark ${cell}`);
    assert.equal(r.code, 0, `tictactoe mark ${cell}: ${r.out}${r.err}`);
  }
  json(run('x', '--json', 'new', '--ruleset', 'tictactoe'));

  // Waterloo 1815 to the start of turn 3: each side moves up to six units a
  // turn, the first legal step of each (units and squares in sorted order),
  // then ends its movement; no battle.
  const wl = json(run('fr', '--json', 'new', '--ruleset', 'waterloo', '--scenario', 'waterloo-1815'));
  assert.equal(run('al', '--json', 'claim', wl.invites.allied).code, 0);
  const side = { french: 'fr', allied: 'al' };
  const status = () => json(run('fr', '--json', 'status', wl.game));
  let commands = 0;
  for (let step = 0; step < 200; step++) {
    const st = status();
    const [seat, what] = Object.entries(st.state.server.awaiting || {})[0] || [];
    assert.ok(seat, `1815: nobody awaited at version ${st.version}`);
    if (st.state.turn >= 3) break;
    if (what === 'setup') {
      assert.equal(run(side[seat], '--json', 'do', wl.game, 'endsetup').code, 0);
      continue;
    }
    assert.equal(what, 'move', `1815: ${seat} awaited for ${what}, not a move`);
    let moved = 0;
    const ids = Object.keys(st.state.units).sort();
    for (const id of ids) {
      const u = st.state.units[id];
      if (moved >= 6) break;
      if (id.startsWith('fr-') !== (seat === 'french')) continue;
      if (!parseSquare(u.at) || u.moved) continue;
      for (const to of neighbours(u.at).sort()) {
        if (run(side[seat], '--json', 'do', wl.game, `move ${id} ${to}`).code === 0) {
          moved++;
          commands++;
          break;
        }
      }
    }
    assert.equal(run(side[seat], '--json', 'do', wl.game, 'end').code, 0, `1815: ${seat} ends its move`);
  }
  const mid = status();
  assert.equal(mid.state.turn, 3, '1815 reached turn 3');
  assert.ok(commands >= 12, `1815: ${commands} moves played`);

  browser = await launch(dir, { viewport: { width: 1400, height: 1000 } });
  const problems = [];
  const game = await watchedPage(browser, problems);
  await game.goto(`http://127.0.0.1:${server.web}/game/${wl.game}`);
  await game.waitForFunction((v) => document.getElementById('wr-board').dataset.version === String(v),
    mid.version, { timeout: 30000 });
  await game.waitForFunction(() => document.querySelectorAll('#events li').length === 0 ||
    document.querySelectorAll('#events li:not([data-worded])').length === 0, null, { timeout: 10000 });

  const lobby = await watchedPage(browser, problems);
  await lobby.goto(`http://127.0.0.1:${server.web}/`);
  // the three games listed, the 1815 one watched by the page above
  await lobby.waitForFunction((id) => {
    const rows = document.querySelectorAll('#games tbody tr');
    const watched = document.querySelector(`#games tbody tr[data-game="${id}"] .watching`);
    return rows.length === 3 && watched && watched.textContent === '1';
  }, wl.game, { timeout: 60000 }).catch(async (e) => {
    const rows = await lobby.locator('#games tbody tr').allTextContents();
    throw new Error(`the lobby did not list the three games, the 1815 one watched once: ${e.message}; ` +
      `status "${await lobby.locator('#status').textContent()}", rows ${JSON.stringify(rows)}`);
  });

  await picture(lobby, 'lobby');
  await picture(game, 'game-1815');
  assert.deepEqual(problems, [], 'no console error, failed request or page error');
  console.log(update ? 'browser_screenshots_current: pictures written' : 'browser_screenshots_current: ok');
} finally {
  await tidy(dir, deadline, server, browser);
}
