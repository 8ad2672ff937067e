// verify.test.mjs - the dice verified in the page (ctest browser_verify).
//
// A real warroomd, two `warroom` CLI players, Debian's chromium:
// 1. a tictactoe game played to its end while the page watches: the page
//    shows no commitment (the ruleset rolls no dice), and "Verify dice"
//    says "all 0 rolls verified", 0 being the rolls the test counts in the
//    record it exports itself;
// 2. a battle game (the referee ruleset: rosters, the start roll, three
//    Ld tests of 2D6) played to its end while the page watches: the page
//    showed the seed's commitment from the start, "Verify dice" says "all
//    N rolls verified" with N the test's own count (N > 0), and the seed
//    of the record hashes to the commitment the page showed (checked here
//    with node's crypto); the download link is a blob: URL holding the
//    record exactly;
// 3. the file input: the record itself passes; the record with one roll's
//    face changed fails, naming its line, the roll, the face recorded and
//    the face the seed gives (computed here with node's crypto, as
//    docs/dice.md says); the record with another seed fails on the
//    commitment;
// 4. a page whose websocket passes through page.routeWebSocket, which
//    changes one face of the `record` message in flight: the failure is
//    shown.
//
//   node verify.test.mjs BUILD_DIR
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { startServer, cli, launch, watchedPage, tempDir, bound, failed, tidy } from './support.mjs';

const build = process.argv[2];
assert.ok(build, 'usage: node verify.test.mjs BUILD_DIR');
const dir = tempDir();
const deadline = bound('browser_verify', 100000);

// docs/dice.md, independently of the page's code.
function face(seedHex, game, k) {
  for (let j = 0; ; j++) {
    const h = createHmac('sha256', Buffer.from(seedHex, 'hex')).update(j ? `${game}/${k}/${j}` : `${game}/${k}`).digest();
    for (const b of h) if (b < 252) return 1 + (b % 6);
  }
}

// Each line of the record with its rolls: [{n (line number), rolls}].
function rollLines(record) {
  const out = [];
  record.split('\n').forEach((l, i) => {
    if (i > 0 && l.trim() !== '') {
      const o = JSON.parse(l);
      if (o.rolls) out.push({ n: i + 1, rolls: o.rolls });
    }
  });
  return out;
}

let server;
let browser;
try {
  server = await startServer(build, dir);
  const play = (who, ...args) => cli(build, dir, who, server.ws, ...args);
  const exportRecord = (who, game) => JSON.parse(play(who, 'export', game).trim()).record;
  browser = await launch(dir);
  const problems = [];
  const page = await watchedPage(browser, problems);
  const gameUrl = (g) => `http://127.0.0.1:${server.web}/game/${g}`;
  const verifyClick = async (p) => {
    await p.waitForFunction(() => !document.getElementById('verify-dice').disabled, null, { timeout: 15000 });
    await p.locator('#verify-dice').click();
    await p.waitForFunction(() => document.getElementById('verify-result').dataset.ok !== undefined, null,
      { timeout: 15000 });
    return { ok: await p.locator('#verify-result').getAttribute('data-ok'), text: await p.locator('#verify-result').textContent() };
  };

  // 1) tictactoe: no dice, no commitment; all 0 rolls verified.
  const t = JSON.parse(play('x', 'new', '--ruleset', 'tictactoe').trim().split('\n')[0]);
  play('o', 'claim', t.invites.o);
  await page.goto(gameUrl(t.game));
  await page.waitForFunction(() => document.getElementById('version').textContent !== '');
  assert.match(await page.locator('#commitment').textContent(), /no dice commitment/);
  assert.equal(await page.locator('#verify-dice').isDisabled(), true, 'nothing to verify while it runs');
  for (const [who, cell] of [['x', 0], ['o', 3], ['x', 1], ['o', 4], ['x', 2]]) play(who, 'do', t.game, `mark ${cell}`);
  const tv = await verifyClick(page);
  const tRolls = rollLines(exportRecord('x', t.game)).reduce((s, l) => s + l.rolls.length, 0);
  assert.equal(tv.ok, 'true', tv.text);
  assert.match(tv.text, new RegExp(`^all ${tRolls} rolls verified`), tv.text);

  // 2) a battle with rolls: the commitment from the start, all N verified.
  const b = JSON.parse(play('p1', 'new', '--ruleset', 'battle').trim().split('\n')[0]);
  play('p2', 'claim', b.invites.p2);
  await page.goto(gameUrl(b.game));
  await page.waitForFunction(() => document.getElementById('commitment').dataset.commitment);
  const shown = await page.locator('#commitment').getAttribute('data-commitment');
  assert.match(shown, /^[0-9a-f]{64}$/);
  const cmds = [
    ['p1', { type: 'roster', last: true, units: [{ name: 'Cavalry', kind: 'cavalry', models: 10 }] }],
    ['p2', { type: 'roster', last: true, units: [{ name: 'Warband', kind: 'infantry', models: 30 }] }],
    ['p1', { type: 'start' }],
    ['p1', { type: 'test', unit: 'Cavalry', test: 'ld', target: 7 }],
    ['p1', { type: 'test', unit: 'Cavalry', test: 'ld', target: 8 }],
    ['p2', { type: 'test', unit: 'Warband', test: 'ld', target: 6 }],
    ['p1', { type: 'offer_end', result: 'draw' }],
    ['p2', { type: 'accept_end' }],
    ['p1', { type: 'victory_points', p1: 10, p2: 10 }],
    ['p2', { type: 'victory_points', p1: 10, p2: 10 }],
  ];
  for (const [who, cmd] of cmds) play(who, 'do', b.game, JSON.stringify(cmd));
  const bv = await verifyClick(page);
  const record = exportRecord('p1', b.game);
  const lines = rollLines(record);
  const n = lines.reduce((s, l) => s + l.rolls.length, 0);
  assert.ok(n >= 8, `the battle rolled (${n} rolls)`);
  assert.equal(bv.ok, 'true', bv.text);
  assert.match(bv.text, new RegExp(`^all ${n} rolls verified; the seed matches the commitment ${shown}`), bv.text);
  const head = JSON.parse(record.split('\n')[0]);
  assert.equal(createHash('sha256').update(Buffer.from(head.seed, 'hex')).digest('hex'), shown,
    'the page showed the commitment of the seed revealed at the end');
  const href = await page.locator('#record-download').getAttribute('href');
  assert.match(href, /^blob:/);
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#record-download').click()]);
  assert.equal(download.suggestedFilename(), `${b.game}.ndjson`);
  assert.equal(readFileSync(await download.path(), 'utf8'), record, 'the download is the record');

  // 3) the file input: the record passes; a changed face names its line;
  // another seed fails on the commitment.
  const check = async (text) => {
    await page.evaluate(() => { delete document.getElementById('verify-result').dataset.ok; });
    await page.locator('#verify-file').setInputFiles({ name: 'game.ndjson', mimeType: 'application/x-ndjson', buffer: Buffer.from(text) });
    await page.waitForFunction(() => document.getElementById('verify-result').dataset.ok !== undefined);
    return { ok: await page.locator('#verify-result').getAttribute('data-ok'), text: await page.locator('#verify-result').textContent() };
  };
  const same = await check(record);
  assert.equal(same.ok, 'true', same.text);
  assert.match(same.text, new RegExp(`^all ${n} rolls verified`));
  const target = lines[lines.length - 1];                 // the last line with rolls
  const [k, f] = target.rolls[0];
  assert.equal(f, face(head.seed, b.game, k), 'the recorded face is the seed\'s');
  const bad = f === 6 ? 1 : f + 1;
  const rows = record.split('\n');
  const o = JSON.parse(rows[target.n - 1]);
  o.rolls[0][1] = bad;
  rows[target.n - 1] = JSON.stringify(o);
  const a = await check(rows.join('\n'));
  assert.equal(a.ok, 'false');
  assert.equal(a.text, `line ${target.n}: roll ${k} was recorded as ${bad}, the seed gives ${f}`);
  const other = { ...head, seed: createHash('sha256').update('another seed').digest('hex') };
  const bs = await check([JSON.stringify(other), ...record.split('\n').slice(1)].join('\n'));
  assert.equal(bs.ok, 'false');
  assert.match(bs.text, new RegExp(`^the seed does not match the commitment: its SHA-256 is [0-9a-f]{64}, the game showed ${shown}$`), bs.text);

  // 4) the record altered in flight (page.routeWebSocket): shown as failed.
  const routed = await watchedPage(browser, problems);
  let altered = 0;
  await routed.routeWebSocket(/.*/, (ws) => {
    const srv = ws.connectToServer();
    ws.onMessage((m) => srv.send(m));
    srv.onMessage((m) => {
      const msg = JSON.parse(m);
      if (msg.type === 'record') {
        const rs = msg.record.split('\n');
        const ro = JSON.parse(rs[target.n - 1]);
        ro.rolls[0][1] = bad;
        rs[target.n - 1] = JSON.stringify(ro);
        msg.record = rs.join('\n');
        altered++;
        ws.send(JSON.stringify(msg));
      } else ws.send(m);
    });
  });
  await routed.goto(gameUrl(b.game));
  const rv = await verifyClick(routed);
  assert.equal(altered, 1, 'the record passed through the route');
  assert.equal(rv.ok, 'false');
  assert.equal(rv.text, `line ${target.n}: roll ${k} was recorded as ${bad}, the seed gives ${f}`);

  assert.deepEqual(problems, [], 'no console errors (a CSP refusal would be one)');
  console.log(`browser_verify: ok (tictactoe ${t.game}: ${tRolls} rolls; battle ${b.game}: ${n} rolls)`);
} catch (e) {
  failed('browser_verify', e);
} finally {
  await tidy(dir, deadline, server, browser);
}
