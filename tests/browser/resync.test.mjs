// resync.test.mjs - the game page comes back by itself (ctest browser_resync).
//
// 1. A page watches a tictactoe game (one mark played). The server is
//    stopped (SIGTERM to its own pid): the page says it is reconnecting
//    (the status line, <body data-connection="reconnecting">). The server
//    is started again on the same ports and database, and the CLI plays a
//    mark. The page reconnects by itself (data-reconnects 1), joins again
//    and syncs: it shows the server's version, the new mark in its event
//    log, and the same state as a page freshly opened on the game.
// 2. A second page's websocket passes through page.routeWebSocket, which
//    swallows one `patch` frame: the next patch does not start at the
//    page's version, the page sends `sync` from its version (seen in the
//    route), and ends with the server's version, the swallowed mark's
//    event in its log, and the fresh page's state.
//
//   node resync.test.mjs BUILD_DIR
import assert from 'node:assert/strict';
import { startServer, stopServer, cli, launch, watchedPage, tempDir, bound, failed, tidy } from './support.mjs';

const build = process.argv[2];
assert.ok(build, 'usage: node resync.test.mjs BUILD_DIR');
const dir = tempDir();
const deadline = bound('browser_resync', 100000);

let server;
let browser;
try {
  server = await startServer(build, dir);
  const ports = { ws: server.ws, web: server.web };
  const play = (who, ...args) => cli(build, dir, who, ports.ws, ...args);
  const t = JSON.parse(play('x', 'new', '--ruleset', 'tictactoe').trim().split('\n')[0]);
  const game = t.game;
  play('o', 'claim', t.invites.o);
  play('x', 'do', game, 'mark 0');
  const url = `http://127.0.0.1:${ports.web}/game/${game}`;

  browser = await launch(dir);
  const problems = [];
  const page = await watchedPage(browser, problems);
  await page.goto(url);
  await page.waitForFunction(() => document.getElementById('version').textContent === '1');
  assert.equal(await page.locator('body').getAttribute('data-connection'), 'online');
  const versionIs = (p, v) => p.waitForFunction((w) => document.getElementById('version').textContent === String(w), v,
    { timeout: 30000 });
  // The page's state and a fresh page's (the state the server has now).
  const fresh = async () => {
    const f = await browser.newPage();
    await f.goto(url);
    await f.waitForFunction(() => document.getElementById('version').textContent !== '');
    const s = { version: await f.locator('#version').textContent(), state: JSON.parse(await f.locator('#state').textContent()) };
    await f.close();
    return s;
  };

  // 1) The server stops: the page says so, and reconnects by itself to
  // the server started again; a mark played meanwhile is shown.
  assert.equal(await stopServer(server), 0, 'warroomd exits 0 on SIGTERM');
  server = null;
  await page.waitForFunction(() => document.body.dataset.connection === 'reconnecting');
  assert.match(await page.locator('#status').textContent(), /connection lost: reconnecting/);
  server = await startServer(build, dir, ports);
  play('o', 'do', game, 'mark 4');
  await page.waitForFunction(() => document.body.dataset.reconnects === '1', null, { timeout: 30000 });
  await versionIs(page, 2);
  await page.waitForFunction(() => document.getElementById('status').textContent === 'watching');
  const log = await page.locator('#events li').allTextContents();
  assert.ok(log.some((l) => /^v1 o: /.test(l) && /\b4\b/.test(l)), `the mark played while away is in the log: ${log}`);
  let now = await fresh();
  assert.equal(now.version, '2');
  assert.deepEqual(JSON.parse(await page.locator('#state').textContent()), now.state, 'the page has the server\'s state');

  // 2) A swallowed patch is repaired by sync.
  const routed = await watchedPage(browser, problems);
  let drop = false;
  let dropped = 0;
  let onDrop;
  const droppedOne = new Promise((resolve) => { onDrop = resolve; });
  const syncs = [];
  await routed.routeWebSocket(/.*/, (ws) => {
    const srv = ws.connectToServer();
    ws.onMessage((m) => {
      const msg = JSON.parse(m);
      if (msg.type === 'sync') syncs.push(msg);
      srv.send(m);
    });
    srv.onMessage((m) => {
      if (drop && JSON.parse(m).type === 'patch') { drop = false; dropped++; onDrop(); return; }
      ws.send(m);
    });
  });
  await routed.goto(url);
  await versionIs(routed, 2);
  drop = true;
  play('x', 'do', game, 'mark 1');            // version 3: its patch is swallowed
  await droppedOne;
  assert.equal(dropped, 1, 'the route swallowed the patch of version 3');
  assert.equal(await routed.locator('#version').textContent(), '2', 'the page missed it');
  play('o', 'do', game, 'mark 5');            // version 4: a patch from 3, not 2
  await versionIs(routed, 4);
  assert.deepEqual(syncs.map((m) => [m.game, m.since]), [[game, 2]], 'one sync, from the page\'s version');
  const rlog = await routed.locator('#events li').allTextContents();
  assert.ok(rlog.some((l) => /^v2 x: /.test(l) && /\b1\b/.test(l)), `the swallowed mark came with the sync: ${rlog}`);
  now = await fresh();
  assert.equal(now.version, '4');
  assert.deepEqual(JSON.parse(await routed.locator('#state').textContent()), now.state);
  await versionIs(page, 4);
  assert.deepEqual(JSON.parse(await page.locator('#state').textContent()), now.state);

  assert.deepEqual(problems.filter((p) => !/ERR_CONNECTION_REFUSED|WebSocket connection/.test(p)), [],
    'no console errors but the refused connections while the server was down');
  console.log(`browser_resync: ok (game ${game}: reconnected, version 4, one patch repaired by sync)`);
} catch (e) {
  failed('browser_resync', e);
} finally {
  await tidy(dir, deadline, server, browser);
}
