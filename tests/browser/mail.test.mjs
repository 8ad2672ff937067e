// mail.test.mjs - a seat's turns by mail, asked for in the page (ctest
// browser_mail; issue 17: "a seat may register an address ... and the web
// page").
//
// Starts the real SMTP sink (tests/support/smtp_sink.py: Debian's aiosmtpd
// on a loopback port it prints, each message a file MAILDIR/new/NNNNNN.eml)
// and a warroomd sending through it (--smtp, --mail-from, --mail-reply).
// 1. The lobby's create form with "Mail for your turns" creates a tictactoe
//    game: the confirmation mail comes to that address (its envelope
//    recipient and To), from --mail-from, with `Code: XXXXXXXX` in its
//    quoted-printable body. The game page's Mail panel says pending and
//    asks for the code; a spectator's page has no panel.
// 2. A wrong code is refused in the server's words (bad_code) and the panel
//    stays pending; the mailed code makes it say confirmed (mails go to the
//    address you gave), the server then mails "your address is confirmed"
//    to that address, and the address is nowhere in the page (its text, its
//    fields, its storage). Reloaded, the page still says confirmed.
// 3. A bad address shows the server's bad_address sentence (the one a
//    `notify` of the same address on a connection of the test's own gets)
//    and changes nothing: the panel says confirmed, and so does the server
//    (a `notify` that sets no address answers the seat's state).
// 4. "Stop mails" makes it say none (the server agrees); another address
//    then gets its own confirmation, the third mail of the test: the bad
//    address and the removal sent none.
// 5. A server without --smtp: the create form's address and the panel's
//    are refused with "this server sends no mail" (mail_off).
//
//   node mail.test.mjs BUILD_DIR
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, watch } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, stopServer, launch, watchedPage, tempDir, bound, failed, tidy } from './support.mjs';

const build = process.argv[2];
assert.ok(build, 'usage: node mail.test.mjs BUILD_DIR');
const dir = tempDir();
const deadline = bound('browser_mail', 120000);
const SINK = join(dirname(fileURLToPath(import.meta.url)), '..', 'support', 'smtp_sink.py');
const maildir = join(dir, 'maildir');
const FROM = 'warroom@test.example';
const MINE = 'x-player@test.example';
const OTHER = 'x-second@test.example';
const BAD = 'not-an-address';

// The sink, started on a port it picks: {proc, port} once it printed it.
function startSink() {
  const p = spawn('/usr/bin/python3', [SINK, maildir], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    p.on('exit', (code) => reject(new Error(`smtp_sink.py exited (${code}) before it listened`)));
    p.stdout.on('data', (d) => {
      out += d;
      const m = /^(\d+)\n/.exec(out);
      if (m) {
        p.removeAllListeners('exit');
        resolve({ proc: p, port: Number(m[1]) });
      }
    });
  });
}

// Stop the sink this test started: SIGTERM to its pid, its exit awaited.
function stopSink(sink) {
  return new Promise((resolve) => {
    if (!sink || sink.proc.exitCode !== null) { resolve(); return; }
    sink.proc.on('exit', () => resolve());
    sink.proc.kill('SIGTERM');
  });
}

// The messages the sink has kept, in the order it accepted them.
function mails() {
  try {
    return readdirSync(join(maildir, 'new')).filter((f) => f.endsWith('.eml')).sort();
  } catch {
    return [];
  }
}

// Wait until the sink has kept n messages (a change to its new/ folder, or
// a look every 100 ms, until ms): resolves with the nth, parsed.
function waitMail(n, ms = 20000) {
  return new Promise((resolve, reject) => {
    let watcher = null;
    let timer = null;
    const end = setTimeout(() => finish(new Error(`mail ${n} did not come within ${ms} ms (${mails().length} kept)`)), ms);
    function finish(err) {
      clearTimeout(end);
      clearInterval(timer);
      if (watcher) watcher.close();
      if (err) reject(err);
      else resolve(parseMail(readFileSync(join(maildir, 'new', mails()[n - 1]), 'latin1')));
    }
    const look = () => { if (mails().length >= n) finish(null); };
    watcher = watch(join(maildir, 'new'), look);
    timer = setInterval(look, 100);
    look();
  });
}

// A kept message: its headers (unfolded, names in lower case) and its
// text decoded from quoted-printable (soft breaks joined, =XX read).
function parseMail(raw) {
  const split = raw.indexOf('\r\n\r\n') >= 0 ? raw.indexOf('\r\n\r\n') : raw.indexOf('\n\n');
  const head = raw.slice(0, split).replace(/\r?\n[ \t]+/g, ' ');
  const headers = {};
  for (const line of head.split(/\r?\n/)) {
    const c = line.indexOf(':');
    if (c > 0) headers[line.slice(0, c).toLowerCase()] = line.slice(c + 1).trim();
  }
  const text = Buffer.from(raw.slice(split).replace(/=\r?\n/g, '')
    .replace(/=([0-9A-Fa-f]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16))), 'latin1').toString('utf8');
  return { headers, text };
}

// One message on a websocket of the test's own (from the page, whose CSP
// allows the server's websocket), joined as the seat with token: resolves
// with the server's answer (an error answer included).
function probe(page, ws, game, token, msg) {
  return page.evaluate(async ({ ws, game, token, msg }) => {
    const sock = new WebSocket(`ws://127.0.0.1:${ws}/`);
    const answers = new Map();
    const waiters = new Map();
    sock.addEventListener('message', (e) => {
      const m = JSON.parse(e.data);
      if (m.id === undefined) return;
      if (waiters.has(m.id)) waiters.get(m.id)(m);
      else answers.set(m.id, m);
    });
    await new Promise((resolve, reject) => {
      sock.addEventListener('open', resolve, { once: true });
      sock.addEventListener('error', () => reject(new Error('probe: no connection')), { once: true });
    });
    const ask = (m, id) => new Promise((resolve) => {
      waiters.set(id, resolve);
      sock.send(JSON.stringify({ ...m, id }));
    });
    await ask({ type: 'hello', protocol: 1, client: 'browser_mail probe' }, 1);
    const st = await ask({ type: 'join', game, token }, 2);
    if (st.type !== 'state') throw new Error(`probe: join answered ${JSON.stringify(st)}`);
    const a = await ask({ ...msg, game }, 3);
    sock.close();
    return a;
  }, { ws, game, token, msg });
}

// The panel's state, once it says want (data-state).
async function panelSays(page, want) {
  await page.waitForFunction((w) => document.getElementById('wr-mail').dataset.state === w, want, { timeout: 15000 });
  return page.locator('#wr-mail-state').textContent();
}

// The panel's result line once the server answered its n-th message since
// the page was loaded (data-n).
async function panelResult(page, n) {
  await page.waitForFunction((k) => document.getElementById('wr-mail-result').dataset.n === String(k), n,
    { timeout: 15000 });
  return page.locator('#wr-mail-result');
}

let server, plain, sink, browser, watcher;
try {
  mkdirSync(maildir);
  sink = await startSink();
  server = await startServer(build, dir, { ws: 0, web: 0 },
    ['--smtp', `smtp://127.0.0.1:${sink.port}`, '--mail-from', FROM, '--mail-reply', 'play@test.example']);
  browser = await launch(dir, { name: 'player' });
  watcher = await launch(dir, { name: 'watcher' });
  const problems = [];
  const page = await watchedPage(browser, problems);

  // 1) created from the form with an address: the confirmation mail.
  await page.goto(`http://127.0.0.1:${server.web}/`);
  await page.locator('#create-ruleset option').first().waitFor({ state: 'attached' });
  await page.locator('#create-ruleset').selectOption('tictactoe');
  await page.getByLabel('Mail for your turns').fill(MINE);
  await page.locator('#create-submit').click();
  await page.waitForFunction(() => document.getElementById('created').dataset.game
    || document.getElementById('created').classList.contains('error'));
  assert.equal(await page.locator('#created').getAttribute('class'), null, await page.locator('#created').textContent());
  const game = await page.locator('#created').getAttribute('data-game');
  assert.match(game, /^g-[0-9a-f]{12}$/);
  assert.equal(await page.locator('#created-mail').count(), 1, 'the create form says a code was mailed');
  const token = JSON.parse(await page.evaluate((g) => localStorage.getItem(`warroom.token.${g}`), game)).token;

  const first = await waitMail(1);
  assert.equal(first.headers['x-sink-rcpt-to'], MINE, 'the envelope goes to the address typed in the form');
  assert.match(first.headers.to, new RegExp(MINE.replace(/\./g, '\\.')));
  assert.match(first.headers.from, new RegExp(FROM.replace(/\./g, '\\.')));
  assert.match(first.headers.subject, new RegExp(`^Warroom ${game}: .*confirm your address`));
  const code = /^Code: ([0-9A-Za-z]{8})\s*$/m.exec(first.text);
  assert.ok(code, `the confirmation mail gives its code:\n${first.text}`);

  await page.locator('#open-game').click();
  await page.waitForURL(`**/game/${game}`);
  await page.waitForFunction(() => document.getElementById('status').textContent === 'playing as x');
  assert.match(await panelSays(page, 'pending'), /^Mail: pending: /);
  assert.ok(await page.locator('#wr-mail').isVisible(), 'a seat\'s page has the Mail panel');
  assert.ok(await page.getByText('A code was sent to you; type it here').isVisible());
  assert.ok(await page.getByRole('button', { name: 'Stop mails' }).isVisible());

  // A spectator's page has none.
  const watching = await watchedPage(watcher, problems);
  await watching.goto(`http://127.0.0.1:${server.web}/game/${game}`);
  await watching.waitForFunction(() => document.getElementById('status').textContent === 'watching');
  assert.equal(await watching.locator('#wr-mail').isHidden(), true, 'a spectator has no Mail panel');
  assert.equal(await watching.locator('#wr-mail-send').count(), 0);

  // 2) a wrong code, then the mailed one.
  const wrong = (code[1][0].toUpperCase() === 'X' ? 'Y' : 'X') + code[1].slice(1);
  await page.getByLabel('Code').fill(wrong);
  await page.getByRole('button', { name: 'Confirm' }).click();
  let result = await panelResult(page, 1);
  assert.equal(await result.getAttribute('data-code'), 'bad_code');
  assert.match(await result.textContent(), /^refused: .+ \(bad_code\)$/);
  assert.equal(await result.evaluate((e) => e.classList.contains('error')), true);
  assert.match(await panelSays(page, 'pending'), /pending/, 'a wrong code changes nothing');

  await page.getByLabel('Code').fill(code[1]);
  await page.getByRole('button', { name: 'Confirm' }).click();
  assert.equal(await panelSays(page, 'confirmed'), 'Mail: confirmed: mails go to the address you gave');
  assert.equal(await page.locator('#wr-mail-code-form').isHidden(), true, 'no code is asked once confirmed');
  const second = await waitMail(2);
  assert.equal(second.headers['x-sink-rcpt-to'], MINE);
  assert.match(second.headers.subject, new RegExp(`^Warroom ${game}: .*your address is confirmed`));
  const seen = await page.evaluate(() => [document.body.innerText, document.documentElement.outerHTML,
    ...[...document.querySelectorAll('input')].map((i) => i.value),
    ...Object.keys(localStorage).map((k) => localStorage.getItem(k))].join('\n'));
  assert.ok(!seen.includes(MINE), 'the address is nowhere in the page once the server has it');
  await page.reload();
  await page.waitForFunction(() => document.getElementById('status').textContent === 'playing as x');
  await panelSays(page, 'confirmed');

  // 3) a bad address: the server's sentence, nothing changed.
  await page.getByLabel('Your address').fill(BAD);
  await page.getByRole('button', { name: 'Send my turns by mail' }).click();
  result = await panelResult(page, 1);     // the first answer since the reload
  const told = await probe(page, server.ws, game, token, { type: 'notify', mail: BAD });
  assert.equal(told.type, 'error');
  assert.equal(told.code, 'bad_address');
  assert.ok(told.message, 'the server says why');
  assert.equal(await result.textContent(), `refused: ${told.message} (bad_address)`);
  assert.equal(await result.getAttribute('data-code'), 'bad_address');
  assert.equal(await page.locator('#wr-mail').getAttribute('data-state'), 'confirmed', 'the panel still says confirmed');
  let state = await probe(page, server.ws, game, token, { type: 'notify', webhook: null });
  assert.equal(state.type, 'ok');
  assert.equal(state.mail, 'confirmed', 'the server still has the confirmed address');

  // 4) Stop mails; another address; only its confirmation was mailed.
  await page.getByRole('button', { name: 'Stop mails' }).click();
  assert.match(await panelSays(page, 'none'), /^Mail: none: /);
  assert.equal(await page.getByRole('button', { name: 'Stop mails' }).isHidden(), true);
  state = await probe(page, server.ws, game, token, { type: 'notify', webhook: null });
  assert.equal(state.mail, 'none', 'the server has no address for the seat');

  await page.getByLabel('Your address').fill(OTHER);
  await page.getByRole('button', { name: 'Send my turns by mail' }).click();
  await panelSays(page, 'pending');
  assert.equal(await page.getByLabel('Your address').inputValue(), '', 'the field is emptied once the server has it');
  const third = await waitMail(3);
  assert.equal(third.headers['x-sink-rcpt-to'], OTHER, 'the third mail is the new address\'s confirmation');
  assert.match(third.headers.subject, /confirm your address/);
  assert.deepEqual(mails(), ['000001.eml', '000002.eml', '000003.eml'],
    'the bad address and the removal mailed nothing');

  // 5) a server that sends no mail.
  mkdirSync(join(dir, 'plain'));
  plain = await startServer(build, join(dir, 'plain'));
  await page.goto(`http://127.0.0.1:${plain.web}/`);
  await page.locator('#create-ruleset option').first().waitFor({ state: 'attached' });
  await page.locator('#create-ruleset').selectOption('tictactoe');
  await page.getByLabel('Mail for your turns').fill(MINE);
  await page.locator('#create-submit').click();
  await page.waitForFunction(() => document.getElementById('created').classList.contains('error'));
  assert.equal(await page.locator('#created').textContent(), 'refused: this server sends no mail (mail_off)');
  await page.getByLabel('Mail for your turns').fill('');
  await page.locator('#create-submit').click();
  await page.waitForFunction(() => document.getElementById('created').dataset.game);
  const quiet = await page.locator('#created').getAttribute('data-game');
  await page.locator('#open-game').click();
  await page.waitForURL(`**/game/${quiet}`);
  assert.match(await panelSays(page, 'unknown'), /^Mail: not known/, 'nothing was heard of this seat\'s mail');
  await page.getByLabel('Your address').fill(MINE);
  await page.getByRole('button', { name: 'Send my turns by mail' }).click();
  result = await panelResult(page, 1);
  assert.equal(await result.textContent(), 'refused: this server sends no mail (mail_off)');
  assert.equal(await page.locator('#wr-mail').getAttribute('data-state'), 'unknown');
  assert.equal(mails().length, 3, 'no other mail was sent');

  assert.deepEqual(problems, [], 'no console errors (a CSP refusal would be one)');
  console.log(`browser_mail: ok (game ${game}: confirmed by the mailed code, a bad address refused, stopped, 3 mails; `
    + 'mail_off in words on a server without --smtp)');
} catch (e) {
  failed('browser_mail', e);
} finally {
  await stopSink(sink);
  await stopServer(plain);
  await tidy(dir, deadline, server, browser, watcher);
}
