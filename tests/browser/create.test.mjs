// create.test.mjs - the lobby's create form (ctest browser_create).
//
// 1. The form lists every ruleset the server holds, each with its options
//    and help texts, compared with what `warroom help new` prints from the
//    same registry (not with the server's answer the form is made from),
//    and the server's own options (spectators, open_seats,
//    deadline_seconds); each scenario the form offers is one the server
//    creates a game of.
// 2. Creating a tictactoe game from the form: the creator's token is kept
//    in the browser's storage for that game, one invite link per other
//    seat is shown (a full URL of /invite/CODE, with a copy button), and
//    "Open the game" opens its page, which joins as the creator's seat.
// 3. A second browser context (another profile) opens the invite link and
//    claims the seat; its game page joins as that seat; both pages show
//    the game running with x awaited, and hold the same state; the lobby
//    (`list`, through the CLI) shows both seats taken.
//
//   node create.test.mjs BUILD_DIR
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { startServer, cli, launch, watchedPage, tempDir, bound, failed, tidy } from './support.mjs';

const build = process.argv[2];
assert.ok(build, 'usage: node create.test.mjs BUILD_DIR');
const dir = tempDir();
const deadline = bound('browser_create', 100000);

// The rulesets and their options as `warroom help new` lists them.
function registry() {
  const text = execFileSync(join(build, 'client-cli/warroom'), ['help', 'new'], { encoding: 'utf8' });
  const out = new Map();
  let cur = null;
  for (const line of text.split('\n')) {
    const r = /^ {2}([a-z0-9_-]+): (.*)$/.exec(line);
    const o = /^ {6}--option ([a-z0-9_]+)=VALUE: (.*)$/.exec(line);
    if (r) { cur = { summary: r[2], options: new Map() }; out.set(r[1], cur); } else if (o && cur) cur.options.set(o[1], o[2]);
  }
  return out;
}

let server;
let creator;
let claimer;
try {
  server = await startServer(build, dir);
  const rs = registry();
  assert.ok(rs.size >= 4, `warroom help new lists the rulesets (${[...rs.keys()]})`);
  creator = await launch(dir, { name: 'creator' });
  claimer = await launch(dir, { name: 'claimer' });
  const problems = [];
  const lobby = await watchedPage(creator, problems);
  await lobby.goto(`http://127.0.0.1:${server.web}/`);
  await lobby.locator('#create-ruleset option').first().waitFor({ state: 'attached' });

  // 1) every ruleset, with its options and their help; the server's options.
  const names = await lobby.locator('#create-ruleset option').evaluateAll((os) => os.map((o) => o.value));
  assert.deepEqual(names, [...rs.keys()], 'the form lists the registry\'s rulesets in its order');
  for (const [name, r] of rs) {
    await lobby.locator('#create-ruleset').selectOption(name);
    assert.equal(await lobby.locator('#create-summary').textContent(), r.summary);
    const opts = await lobby.locator('#create-options label').evaluateAll((ls) => ls.map((l) => [l.dataset.option, l.querySelector('small').textContent]));
    assert.deepEqual(opts, [...r.options], `${name}'s options and help`);
    // Each scenario offered is created by the server (a game with every
    // seat but the creator's open: made, then left open).
    const scen = await lobby.locator('#create-scenario option').evaluateAll((os) => os.map((o) => o.value).filter((v) => v));
    for (const s of scen) {
      const made = JSON.parse(cli(build, dir, 'probe', server.ws, 'new', '--ruleset', name, '--scenario', s).trim().split('\n')[0]);
      assert.equal(made.type, 'created', `${name} ${s}`);
    }
    if (name === 'waterloo' || name === 'campaign') assert.ok(scen.length > 0, `${name} has scenarios on this server`);
  }
  const server_opts = await lobby.locator('#create-server-options input').evaluateAll((is) => is.map((i) => [i.dataset.option, i.type]));
  assert.deepEqual(server_opts, [['spectators', 'checkbox'], ['open_seats', 'checkbox'], ['deadline_seconds', 'number']]);

  // 2) create a tictactoe game from the form.
  await lobby.locator('#create-ruleset').selectOption('tictactoe');
  assert.equal(await lobby.locator('#create-seat').inputValue(), 'x');
  await lobby.locator('#create-submit').click();
  await lobby.waitForFunction(() => document.getElementById('created').dataset.game);
  const game = await lobby.locator('#created').getAttribute('data-game');
  assert.match(game, /^g-/);
  const stored = JSON.parse(await lobby.evaluate((g) => localStorage.getItem(`warroom.token.${g}`), game));
  assert.equal(stored.seat, 'x');
  assert.match(stored.token, /^[0-9a-f]{64}$/);
  const invites = lobby.locator('#invites li');
  assert.equal(await invites.count(), 1);
  assert.equal(await invites.first().getAttribute('data-seat'), 'o');
  const invite = await invites.first().locator('a.invite').getAttribute('href');
  assert.match(invite, new RegExp(`^http://127\\.0\\.0\\.1:${server.web}/invite/[0-9a-f]{32}$`));
  assert.equal(await invites.first().locator('a.invite').textContent(), invite, 'the full URL is shown');
  assert.equal(await invites.first().locator('button.copy').count(), 1);
  await lobby.locator('#open-game').click();
  await lobby.waitForURL(`**/game/${game}`);
  await lobby.waitForFunction(() => document.getElementById('status').textContent === 'playing as x');
  assert.equal(await lobby.locator('#game-status').textContent(), 'open');

  // 3) the second context claims the seat from the link.
  const other = await watchedPage(claimer, problems);
  await other.goto(invite);          // the invite page claims, then opens the game by itself
  await other.waitForURL(`**/game/${game}`);
  await other.waitForFunction(() => document.getElementById('status').textContent === 'playing as o');
  for (const p of [lobby, other]) {
    await p.waitForFunction(() => document.getElementById('game-status').textContent === 'running');
    assert.match(await p.locator('#awaiting').textContent(), /^x \(mark\)/);
  }
  assert.deepEqual(JSON.parse(await lobby.locator('#state').textContent()),
    JSON.parse(await other.locator('#state').textContent()), 'both pages hold the same state');
  // The lobby lists it running, both seats claimed.
  const list = JSON.parse(cli(build, dir, 'probe', server.ws, 'games', '--all').trim().split('\n')[0]);
  const row = (list.games || []).find((g) => g.game === game);
  assert.ok(row, `the lobby lists ${game}`);
  assert.deepEqual(row.seats, { x: 'taken', o: 'taken' });
  assert.equal(row.status, 'running');

  assert.deepEqual(problems, [], 'no console errors (a CSP refusal would be one)');
  console.log(`browser_create: ok (${rs.size} rulesets; game ${game} created from the form and claimed by invite)`);
} catch (e) {
  failed('browser_create', e);
} finally {
  await tidy(dir, deadline, server, creator, claimer);
}
