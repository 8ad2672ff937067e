// support.mjs - what the browser tests share: a real warroomd on 127.0.0.1
// (ephemeral ports read from what it prints, or given ports for a
// restart), the `warroom` CLI with a configuration of its own per player,
// a chromium context with a fresh profile, and a page whose console
// errors are collected. Nothing here sleeps: every wait is for an event.
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

// Start warroomd with its database in dir; ports 0 pick free ones. Resolves
// with {proc, ws, web} once both addresses are printed.
export function startServer(build, dir, ports = { ws: 0, web: 0 }) {
  const p = spawn(join(build, 'server/warroomd'),
    ['--listen', `127.0.0.1:${ports.ws}`, '--web-listen', `127.0.0.1:${ports.web}`, '--db', join(dir, 'db')],
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
// its exit; resolves with the exit code.
export function stopServer(server) {
  return new Promise((resolve) => {
    server.proc.removeAllListeners('exit');
    if (server.proc.exitCode !== null) { resolve(server.proc.exitCode); return; }
    server.proc.on('exit', (code) => resolve(code));
    server.proc.kill('SIGTERM');
  });
}

// The terminal client as player `who` (its own configuration: its seats'
// tokens), with --json; returns stdout.
export function cli(build, dir, who, port, ...args) {
  return execFileSync(join(build, 'client-cli/warroom'),
    ['--server', `ws://127.0.0.1:${port}/`, '--json', ...args],
    { env: { ...process.env, XDG_CONFIG_HOME: join(dir, who) }, encoding: 'utf8', timeout: 15000 });
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

// A chromium context with a fresh profile in dir/name.
export function launch(dir, name = 'profile') {
  return chromium.launchPersistentContext(join(dir, name), {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

// A new page of context whose console errors, failed responses and page
// errors go to problems.
export async function watchedPage(context, problems) {
  const page = await context.newPage();
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`); });
  page.on('pageerror', (e) => problems.push(e.message));
  return page;
}

// Bound a whole test: after ms it fails.
export function bound(name, ms) {
  return setTimeout(() => { console.error(`${name}: timed out`); process.exit(1); }, ms);
}
