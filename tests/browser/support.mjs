// support.mjs - what every browser test shares: a real warroomd on
// 127.0.0.1 (ephemeral ports read from what it prints, or given ports for a
// restart), the `warroom` CLI with a configuration of its own per player,
// a chromium context with a fresh profile (and a viewport where a test
// needs one), a page whose console errors, failed responses and page errors
// are collected, and a bound on a whole test. What is about Waterloo's
// board is in waterloo_support.mjs. Nothing here sleeps: every wait is for
// an event.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

export const CHROMIUM = process.env.WARROOM_CHROMIUM || '/usr/bin/chromium';

export function tempDir() {
  return mkdtempSync(join(tmpdir(), 'warroom-browser-'));
}

export function removeDir(dir) {
  rmSync(dir, { recursive: true, force: true });
}

// Start warroomd with its database in dir; ports 0 pick free ones; extra:
// more options for it (a mail test's --smtp ...). Resolves with {proc, ws,
// web} once both addresses are printed.
export function startServer(build, dir, ports = { ws: 0, web: 0 }, extra = []) {
  const p = spawn(join(build, 'server/warroomd'),
    ['--listen', `127.0.0.1:${ports.ws}`, '--web-listen', `127.0.0.1:${ports.web}`, '--db', join(dir, 'db'),
      ...extra],
    { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    p.on('exit', (code) => reject(new Error(`warroomd exited (${code})`)));
    p.stdout.on('data', (d) => {
      out += d;
      const ws = /listening on ws:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
      const web = /web client on http:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
      if (ws && web) resolve({ proc: p, ws: Number(ws[1]), web: Number(web[1]) });
    });
  });
}

// Stop a server this test started (SIGTERM to its own pid) and wait for
// its exit; resolves with the exit code (null when there is no server: a
// test that failed before starting it calls this from its finally).
export function stopServer(server) {
  return new Promise((resolve) => {
    if (!server) { resolve(null); return; }
    server.proc.removeAllListeners('exit');
    if (server.proc.exitCode !== null) { resolve(server.proc.exitCode); return; }
    server.proc.on('exit', (code) => resolve(code));
    server.proc.kill('SIGTERM');
  });
}

// The terminal client as player `who` (its own configuration in
// dir/who: its seats' tokens) against the server on port, with args as
// given: { code, out, err } whatever its exit status. The one place that
// runs the CLI; a CLI that does not exit (timed out) throws.
export function cliRun(build, dir, who, port, ...args) {
  try {
    const out = execFileSync(join(build, 'client-cli/warroom'),
      ['--server', `ws://127.0.0.1:${port}/`, ...args],
      { env: { ...process.env, XDG_CONFIG_HOME: join(dir, who) }, encoding: 'utf8', timeout: 15000,
        stdio: ['ignore', 'pipe', 'pipe'] });
    return { code: 0, out, err: '' };
  } catch (e) {
    if (typeof e.status !== 'number') throw e;
    return { code: e.status, out: e.stdout || '', err: e.stderr || '' };
  }
}

// cliRun with --json that must exit 0 (it throws otherwise, with what the
// CLI said); returns its stdout.
export function cli(build, dir, who, port, ...args) {
  const r = cliRun(build, dir, who, port, '--json', ...args);
  if (r.code !== 0) throw new Error(`warroom ${args.join(' ')} (as ${who}) exited ${r.code}: ${r.out}${r.err}`);
  return r.out;
}

// The seat token the CLI of `who` keeps for game.
export function cliToken(dir, who, game) {
  const cfg = JSON.parse(readFileSync(join(dir, who, 'warroom', 'config.json'), 'utf8'));
  const find = (o) => {
    if (!o || typeof o !== 'object') return null;
    if (o[game] && typeof o[game].token === 'string') return o[game];
    for (const v of Object.values(o)) { const r = find(v); if (r) return r; }
    return null;
  };
  return find(cfg);
}

// A chromium context with a fresh profile (--user-data-dir) in dir/name,
// its pages of the given viewport (playwright's default when none). The
// caller closes it.
export function launch(dir, { name = 'profile', viewport } = {}) {
  return chromium.launchPersistentContext(join(dir, name), {
    executablePath: CHROMIUM,
    headless: true,
    ...(viewport ? { viewport } : {}),
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

// A new page of context whose console errors, failed responses and page
// errors go to problems.
export async function watchedPage(context, problems) {
  const page = await context.newPage();
  watchProblems(page, problems);
  return page;
}

// Every console error, failed response and page error of page, from now
// on, in problems.
export function watchProblems(page, problems) {
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`); });
  page.on('pageerror', (e) => problems.push(e.message));
}

// Bound a whole test: after ms it fails (prints `name: timed out`, exits
// 1). Returns the timer, for clearTimeout once the test is done.
export function bound(name, ms) {
  return setTimeout(() => { console.error(`${name}: timed out`); process.exit(1); }, ms);
}

// A test's catch: e reported under the test's name, the exit status 1.
export function failed(name, e) {
  console.error(`${name}: FAILED:`, e);
  process.exitCode = 1;
}

// A test's finally: the browser contexts it opened closed (those not
// opened yet are null), its server stopped, its bound cleared, its
// directory removed.
export async function tidy(dir, deadline, server, ...contexts) {
  for (const c of contexts) if (c) await c.close();
  await stopServer(server);
  clearTimeout(deadline);
  removeDir(dir);
}
