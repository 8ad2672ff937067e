// compare.js - the figures of `scripts/dev.sh bench --peers`, side by side.
//
//   node compare.js run K WARROOM.json COLYSEUS.json   one run: a table, then one JSON line
//   node compare.js summary RUNS.jsonl                 every run's JSON line: ranges, medians
//
// WARROOM.json is warroom-load's output, COLYSEUS.json driver.js's (the same
// key names for the shared figures). Ratios are warroomd's figure divided by
// Colyseus's: moves/s above 1 and CPU per move and p99 below 1 favour
// warroomd.
"use strict";

const fs = require("fs");

// One server's figures from its tool's JSON object.
function figures(j) {
    return {
        moves_per_second: j.commands_per_second,
        cpu_ms_per_move: j.server.cpu_ms_per_command,
        // The server's CPU per move split into user space and the kernel
        // (system time: the sends and receives on loopback TCP, whose
        // receiving side runs in the sender's system call, the store's
        // writes, the polls), which both servers pay for the same traffic.
        cpu_user_ms_per_move: j.server.cpu_user_ms_per_command,
        cpu_system_ms_per_move: j.server.cpu_user_ms_per_command >= 0 && j.server.cpu_ms_per_command >= 0
            ? Math.round(1e3 * (j.server.cpu_ms_per_command - j.server.cpu_user_ms_per_command)) / 1e3 : null,
        p50_ms: j.latency_ms.p50,
        p99_ms: j.latency_ms.p99,
        server_cpu_percent: j.server.cpu_percent,
        tool_cpu_percent: j.load_tool.cpu_percent,
        // The load tool's CPU per move: Node's client costs far more than
        // warroom-load, and on two cores what it takes the server lacks.
        tool_cpu_ms_per_move: j.commands > 0 ? Math.round(1e6 * j.load_tool.cpu_seconds / j.commands) / 1e3 : null,
        server_rss_peak_kb: j.server.rss_peak_kb,
        // What the loads differ in: warroomd's replaces each finished game
        // by a new one (create, claim, joins, leaves), Colyseus's resets the
        // room with one message.
        requests_per_move: j.commands_per_second > 0
            ? Math.round(100 * j.messages_out_per_second / j.commands_per_second) / 100 : null,
        moves: j.commands,
        games_completed: j.games_completed,
        errors: j.errors.total,
        loadavg_before: j.machine.loadavg_before,
        loadavg_after: j.machine.loadavg_after,
    };
}

// The three ratios issue 19 asks for, warroomd / Colyseus.
const RATIOS = [
    ["moves_per_second", "moves_per_second"],
    ["cpu_per_move", "cpu_ms_per_move"],
    ["p99", "p99_ms"],
];

function ratio(a, b) {
    return b > 0 && a >= 0 ? Math.round((a / b) * 1000) / 1000 : null;
}

// Rows of the table: label, key, digits.
const ROWS = [
    ["moves/s", "moves_per_second", 0],
    ["server CPU ms/move", "cpu_ms_per_move", 3],
    ["  of it user space", "cpu_user_ms_per_move", 3],
    ["  of it system (kernel)", "cpu_system_ms_per_move", 3],
    ["p50 ms (last spectator)", "p50_ms", 1],
    ["p99 ms (last spectator)", "p99_ms", 1],
    ["server CPU %", "server_cpu_percent", 0],
    ["load tool CPU %", "tool_cpu_percent", 0],
    ["load tool CPU ms/move", "tool_cpu_ms_per_move", 3],
    ["requests sent per move", "requests_per_move", 2],
    ["server peak RSS MB", "server_rss_peak_kb", 1, 1 / 1024],
    ["errors", "errors", 0],
];

function fmt(v, digits, scale) {
    return v === null || v === undefined ? "-" : (v * (scale || 1)).toFixed(digits);
}

function table(rec) {
    const ratioOf = { moves_per_second: "moves_per_second", cpu_ms_per_move: "cpu_per_move", p99_ms: "p99" };
    const lines = [`  ${"".padEnd(26)}${"warroomd".padStart(12)}${"colyseus".padStart(12)}${"ratio w/c".padStart(12)}`];
    for (const [label, key, digits, scale] of ROWS) {
        const r = ratioOf[key] ? fmt(rec.ratios[ratioOf[key]], 2) : "";
        lines.push(`  ${label.padEnd(26)}${fmt(rec.warroomd[key], digits, scale).padStart(12)}` +
                   `${fmt(rec.colyseus[key], digits, scale).padStart(12)}${r.padStart(12)}`);
    }
    return lines.join("\n");
}

function run(k, wFile, cFile) {
    const w = figures(JSON.parse(fs.readFileSync(wFile, "utf8")));
    const cj = JSON.parse(fs.readFileSync(cFile, "utf8"));
    const c = figures(cj);
    const ratios = {};
    for (const [name, key] of RATIOS)
        ratios[name] = ratio(w[key], c[key]);
    const rec = { bench: "peers", run: Number(k), games: cj.games, spectators: cj.spectators,
                  seconds: cj.seconds, warroomd: w, colyseus: c, ratios,
                  colyseus_versions: cj.server.versions, patch_rate_ms: cj.server.patch_rate_ms };
    console.log(`run ${k}: ${cj.games} games x ${cj.spectators} spectators, ${opt_seconds(cj)} s each; ` +
                `load average before warroomd ${w.loadavg_before.split(" ").slice(0, 3).join(" ")}, ` +
                `before colyseus ${c.loadavg_before.split(" ").slice(0, 3).join(" ")}`);
    console.log(table(rec));
    console.log(JSON.stringify(rec));
}

function opt_seconds(j) {
    const m = / --seconds (\S+)/.exec(j.command_line);
    return m ? m[1] : String(j.seconds);
}

function spread(values) {
    const v = values.filter((x) => x !== null && x !== undefined).sort((a, b) => a - b);
    if (v.length === 0)
        return null;
    const mid = v.length >> 1;
    const median = v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
    return { min: v[0], median: Math.round(median * 1000) / 1000, max: v[v.length - 1] };
}

function summary(file) {
    const recs = fs.readFileSync(file, "utf8").split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
    if (recs.length === 0) {
        console.log("no runs");
        return 1;
    }
    const out = { bench: "peers-summary", runs: recs.length, games: recs[0].games,
                  spectators: recs[0].spectators, warroomd: {}, colyseus: {}, ratios: {} };
    for (const [, key] of ROWS) {
        out.warroomd[key] = spread(recs.map((r) => r.warroomd[key]));
        out.colyseus[key] = spread(recs.map((r) => r.colyseus[key]));
    }
    for (const [name] of RATIOS)
        out.ratios[name] = spread(recs.map((r) => r.ratios[name]));
    const loads = recs.map((r) => r.warroomd.loadavg_before.split(" ")[0]).concat(
        recs.map((r) => r.colyseus.loadavg_before.split(" ")[0]));
    console.log(`summary of ${recs.length} runs (${out.games} games x ${out.spectators} spectators): ` +
                `min / median / max; 1-minute load averages before the runs: ${loads.join(", ")}`);
    const s = (x, d, scale) => x ? `${fmt(x.min, d, scale)} / ${fmt(x.median, d, scale)} / ${fmt(x.max, d, scale)}` : "-";
    console.log(`  ${"".padEnd(26)}${"warroomd".padStart(26)}${"colyseus".padStart(26)}`);
    for (const [label, key, digits, scale] of ROWS)
        console.log(`  ${label.padEnd(26)}${s(out.warroomd[key], digits, scale).padStart(26)}` +
                    `${s(out.colyseus[key], digits, scale).padStart(26)}`);
    for (const [name] of RATIOS)
        console.log(`  ratio ${name.padEnd(20)}${s(out.ratios[name], 3).padStart(26)}`);
    console.log(JSON.stringify(out));
    return 0;
}

// What figures() reads, for the peers_colyseus_smoke test: a key that a
// tool stops printing fails that test rather than this comparison.
const REQUIRED = ["commands_per_second", "commands", "games", "spectators", "seconds", "games_completed",
                  "command_line", "latency_ms.p50", "latency_ms.p99", "server.cpu_ms_per_command",
                  "server.cpu_user_ms_per_command",
                  "server.cpu_percent", "server.rss_peak_kb", "load_tool.cpu_percent", "errors.total",
                  "load_tool.cpu_seconds", "machine.loadavg_before", "machine.loadavg_after",
                  "messages_out_per_second"];

module.exports = { figures, REQUIRED };

if (require.main === module) {
    const [cmd, ...args] = process.argv.slice(2);
    if (cmd === "run" && args.length === 3) {
        run(...args);
    } else if (cmd === "summary" && args.length === 1) {
        process.exitCode = summary(args[0]);
    } else {
        console.error("usage: node compare.js run K WARROOM.json COLYSEUS.json | summary RUNS.jsonl");
        process.exitCode = 2;
    }
}
