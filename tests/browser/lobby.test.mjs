// lobby.test.mjs - the web client in a real browser (ctest browser_lobby).
//
// Starts a real warroomd on 127.0.0.1 with ephemeral ports (the websocket
// and the web port, both read from what it prints), creates a tictactoe
// game with the `warroom` CLI and fills its second seat by invite, then
// drives Debian's chromium (headless, a fresh profile) through
// playwright-core: the lobby lists the game with its two seats claimed;
// "watch" opens its page, which shows its version; a mark played by the
// terminal client appears on the page (the version and the event log
// change), and the lobby then counts it as watching, with the mark's
// time as the last move. Every wait is for a DOM state (no sleeping); the whole test is
// bounded. A missing chromium or playwright-core fails it.
//
//   node lobby.test.mjs BUILD_DIR
import assert from 'node:assert/strict';
import { startServer, cli, launch, watchedPage, tempDir, bound, failed, tidy } from './support.mjs';

const build = process.argv[2];
assert.ok(build, 'usage: node lobby.test.mjs BUILD_DIR');
const dir = tempDir();
const deadline = bound('browser_lobby', 50000);
// The terminal client with its own configuration (its seats' tokens).
const play = (who, port, ...args) => cli(build, dir, who, port, ...args);

let server, browser;
try {
  server = await startServer(build, dir);
  const created = JSON.parse(play('x', server.ws, 'new', '--ruleset', 'tictactoe').trim().split('\n')[0]);
  const game = created.game;
  assert.match(game, /^g-/);
  play('o', server.ws, 'claim', created.invites.o);

  // A fresh profile (--user-data-dir) in the test's own directory.
  browser = await launch(dir);
  const problems = [];
  const page = await watchedPage(browser, problems);

  // The lobby lists the game, both seats claimed.
  await page.goto(`http://127.0.0.1:${server.web}/`);
  const row = page.locator(`#games tr[data-game="${game}"]`);
  await row.waitFor({ timeout: 15000 });
  assert.equal(await row.locator('td.ruleset').textContent(), 'tictactoe');
  assert.equal(await row.locator('td.status').textContent(), 'running');
  assert.deepEqual(await row.locator('td.seats span').allTextContents(), ['x: claimed', 'o: claimed']);
  assert.equal(await row.locator('td.awaiting').textContent(), 'x');

  // "watch" opens the game's page, which shows its version.
  await row.locator('a.watch').click();
  await page.waitForURL(`**/game/${game}`);
  await page.waitForFunction(() => document.getElementById('version').textContent !== '');
  const before = Number(await page.locator('#version').textContent());
  assert.equal(await page.locator('#ruleset').textContent(), 'tictactoe');
  assert.match(await page.locator('#awaiting').textContent(), /^x /);
  const logged = await page.locator('#events li').count();

  // A mark played by the terminal client appears: the version, whose turn,
  // the event log and the state change.
  play('x', server.ws, 'do', game, 'mark 4');
  await page.waitForFunction((v) => Number(document.getElementById('version').textContent) > v, before,
    { timeout: 10000 });
  assert.equal(Number(await page.locator('#version').textContent()), before + 1);
  assert.match(await page.locator('#awaiting').textContent(), /^o /);
  assert.ok(await page.locator('#events li').count() > logged, 'the event log grew');
  const state = JSON.parse(await page.locator('#state').textContent());
  assert.equal(state.board[4], 'x', `the page's state has the mark: ${JSON.stringify(state.board)}`);
  // The lobby (a second tab, the game page still open) counts the page as
  // watching and shows the mark's time.
  const lobby = await browser.newPage();
  await lobby.goto(`http://127.0.0.1:${server.web}/`);
  const again = lobby.locator(`#games tr[data-game="${game}"]`);
  await again.waitFor({ timeout: 15000 });
  assert.equal(await again.locator('td.watching').textContent(), '1');
  assert.notEqual(await again.locator('td.moved').textContent(), '', 'a last move time');
  assert.equal(await again.locator('td.awaiting').textContent(), 'o');
  assert.deepEqual(problems, [], 'no console errors (a CSP refusal would be one)');
  console.log(`browser_lobby: ok (game ${game}, version ${before} -> ${before + 1})`);
} catch (e) {
  failed('browser_lobby', e);
} finally {
  await tidy(dir, deadline, server, browser);
}
