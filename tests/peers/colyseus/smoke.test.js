// smoke.test.js - ctest peers_colyseus_smoke: the Colyseus side of
// `scripts/dev.sh bench --peers` still runs and still says what the
// comparison reads, so the comparison cannot rot unnoticed.
//
//   node smoke.test.js
//
// Runs driver.js against a server.js it starts (5 games x 1 spectator x 2 s,
// loopback, an ephemeral port) and requires: exit status 0, moves made,
// no errors, every spectator holding every move (none skipped, none behind,
// the same board as the seats at every game's end), a latency for the moves,
// the server stopped cleanly, and every key compare.js reads.
"use strict";

const assert = require("assert");
const { spawnSync } = require("child_process");
const path = require("path");
const { REQUIRED } = require("../compare.js");

const here = __dirname;
const r = spawnSync(process.execPath, [path.join(here, "driver.js"), "--start", path.join(here, "server.js"),
                                       "--games", "5", "--spectators", "1", "--seconds", "2"],
                    { encoding: "utf8", timeout: 60000 });
process.stderr.write(r.stderr || "");
assert.strictEqual(r.error, undefined, `driver.js did not run: ${r.error}`);
assert.strictEqual(r.status, 0, `driver.js exited ${r.status}; stdout: ${r.stdout}`);
const j = JSON.parse(r.stdout.trim().split("\n").pop());

for (const key of REQUIRED) {
    const v = key.split(".").reduce((o, k) => (o === undefined || o === null ? undefined : o[k]), j);
    assert.ok(v !== undefined && v !== null, `the driver's JSON has no ${key}`);
}
assert.ok(j.commands > 0 && j.commands_per_second > 0, `no moves: ${j.commands}`);
assert.strictEqual(j.errors.total, 0, `errors: ${JSON.stringify(j.errors)}`);
assert.ok(j.games_completed > 0, "no game finished (the room's reuse is untested)");
const sc = j.spectators_check;
assert.ok(sc.moves_expected > 0, "no move to check");
assert.strictEqual(sc.moves_seen, sc.moves_expected, `spectators saw ${sc.moves_seen} of ${sc.moves_expected} moves`);
assert.strictEqual(sc.skipped, 0, `spectators skipped ${sc.skipped} moves`);
assert.strictEqual(sc.behind_at_end, 0, `${sc.behind_at_end} spectators behind at the end`);
assert.strictEqual(sc.boards_differ, 0, `${sc.boards_differ} boards differ`);
assert.ok(j.latency_ms.n > 0 && j.latency_ms.p99 > 0, `no latency: ${JSON.stringify(j.latency_ms)}`);
assert.ok(j.server.cpu_ms_per_command > 0, `no server CPU figure: ${j.server.cpu_ms_per_command}`);
assert.ok(j.server.cpu_user_ms_per_command >= 0 && j.server.cpu_user_ms_per_command <= j.server.cpu_ms_per_command,
          `no server user CPU figure, or more than the whole: ${j.server.cpu_user_ms_per_command}`);
assert.strictEqual(j.server.exit_status, 0, `the server exited ${j.server.exit_status}`);
assert.throws(() => process.kill(j.server.pid, 0), "the server is still running");
console.log(`peers_colyseus_smoke: ${j.commands} moves, ${j.games_completed} games, ` +
            `p99 ${j.latency_ms.p99} ms, ${j.server.cpu_ms_per_command} ms server CPU a move: ok`);
