// driver.js - the load of warroom-load (tests/load/warroom_load.c), played
// against the Colyseus tictactoe of server.js with Colyseus's own client
// (colyseus.js), for `scripts/dev.sh bench --peers`.
//
//   node driver.js [--start SERVER.JS | --server ws://127.0.0.1:PORT/ --server-pid PID]
//                  [--games N] [--spectators S] [--seconds T] [--seed N]
//
// The load is warroom-load's tictactoe, as fast as acknowledged:
// - N games at once, each with two player connections and S spectator
//   connections, each connection its own colyseus.js client. Set-up (create,
//   join, first state on every connection) ends before anything is measured.
// - Closed loop: the seat to move sends its mark (a random empty cell) as soon
//   as its connection holds the state with the previous move; one move of a
//   game is in flight at a time, as in warroom-load, where the seat to move
//   goes on seeing the other's patch.
// - Latency: from sending a mark to the patch holding it reaching the LAST of
//   the game's spectators; p50/p99 over the moves sent in the window.
// - A move counts ("commands") when its mover's connection has the state with
//   it, between the window's start and end (warroom-load counts the ack).
// - A finished game, once both seats and every spectator hold its last move,
//   is replaced: warroom-load creates, claims and joins a new game; here the
//   room is reused (seat 0 sends "again", the server resets the board) and
//   the next game starts once every connection holds the empty board.
// - Server CPU per command: utime + stime of the server process
//   (/proc/PID/stat) over the window, divided by commands, and its utime
//   alone (the rest is the kernel's, mostly loopback TCP); peak RSS VmHWM.
// - The driver's own CPU over the window (process.cpuUsage), as warroom-load
//   reports its own: Node's client is heavier than the C tool, and a driver at
//   100% of a core limits the server it drives.
// It prints one JSON object with warroom-load's key names for the shared
// figures, and exits 1 when anything went wrong (errors, a spectator that
// missed a move, a game whose views differ, a server that did not stop).
"use strict";

const { spawn } = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");
const { Client } = require("colyseus.js");

const SETUP_AT_ONCE = 64;       // games being set up at once (joins in flight)

// --- options ---------------------------------------------------------------------

const opt = { start: null, server: null, serverPid: 0, games: 100, spectators: 3, seconds: 10,
              seed: 0, patchRate: 5 };

function usage(out) {
    out.write(
        "usage: node driver.js (--start SERVER.JS | --server ws://127.0.0.1:PORT/ --server-pid PID)\n" +
        "                      [--games N] [--spectators S] [--seconds T] [--seed N] [--patch-rate MS]\n" +
        "\n" +
        "warroom-load's tictactoe load against the Colyseus server of server.js.\n" +
        "Prints one JSON object; exits 1 when anything went wrong.\n" +
        "\n" +
        "  --start PATH      start this server.js (node, 127.0.0.1:0), stop it at the end\n" +
        "  --server URL      attach to a running one (127.0.0.0/8 only)\n" +
        "  --server-pid PID  its process id, for the CPU and memory figures\n" +
        "  --games N         concurrent games (default 100)\n" +
        "  --spectators S    spectator connections per game (default 3)\n" +
        "  --seconds T       play for T seconds after set-up (default 10)\n" +
        "  --seed N          random seed (default: from the clock)\n" +
        "  --patch-rate MS   a started server's patchRate (default 5)\n");
}

function parseOptions(argv) {
    const numeric = { "--games": ["games", 0, 100000], "--spectators": ["spectators", 1, 100],
                      "--seconds": ["seconds", 0.1, 86400], "--seed": ["seed", 1, 1e15],
                      "--server-pid": ["serverPid", 1, 1 << 30], "--patch-rate": ["patchRate", 1, 1000] };
    for (let i = 2; i < argv.length; i++) {
        const a = argv[i];
        if (a === "-h" || a === "--help") {
            usage(process.stdout);
            process.exit(0);
        }
        if (i + 1 >= argv.length)
            return `${a} needs a value`;
        const v = argv[++i];
        if (a === "--start") {
            opt.start = path.resolve(v);
        } else if (a === "--server") {
            if (!/^ws:\/\/127\.\d+\.\d+\.\d+:\d+\/?$/.test(v))
                return "--server must be ws://127.x.y.z:PORT/ (loopback only)";
            opt.server = v.replace(/\/$/, "");
        } else if (numeric[a]) {
            const [key, lo, hi] = numeric[a], n = Number(v);
            if (!Number.isFinite(n) || n < lo || n > hi)
                return `${a} must be a number from ${lo} to ${hi}`;
            opt[key] = key === "seconds" ? n : Math.floor(n);
        } else {
            return `unknown option ${a}`;
        }
    }
    if (!opt.start === !opt.server)
        return "give --start or --server";
    return null;
}

// --- figures -------------------------------------------------------------------------

let rngState = 0n;
function rngSeed(seed) {
    rngState = BigInt(seed) | 1n;
}
function rngBelow(n) {                  // xorshift64*
    let x = rngState;
    x ^= x >> 12n; x ^= (x << 25n) & 0xffffffffffffffffn; x ^= x >> 27n;
    rngState = x;
    return Number(((x * 2685821657736338717n) & 0xffffffffffffffffn) >> 32n) % n;
}

function nowS() {
    return Number(process.hrtime.bigint()) / 1e9;
}

function round3(x) {
    return Math.round(x * 1000) / 1000;
}

// warroom-load's percentile: the ceil(p*n)-th smallest sample.
function pct(sorted, p) {
    if (sorted.length === 0)
        return 0;
    let i = Math.ceil(p * sorted.length);
    if (i > 0)
        i--;
    return sorted[Math.min(i, sorted.length - 1)];
}

function latJson(samples) {
    const s = Float64Array.from(samples).sort();
    return { n: s.length, p50: round3(pct(s, 0.5)), p90: round3(pct(s, 0.9)),
             p99: round3(pct(s, 0.99)), max: round3(s.length ? s[s.length - 1] : 0) };
}

// { user: utime, all: utime + stime } of pid in seconds; -1 each when unknown.
function procCpu(pid) {
    try {
        const text = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
        const f = text.slice(text.lastIndexOf(")") + 2).split(" ");
        return { user: Number(f[11]) / clockTicks, all: (Number(f[11]) + Number(f[12])) / clockTicks };
    } catch (e) {
        return { user: -1, all: -1 };
    }
}

// A "VmXXX:" figure of /proc/PID/status in kB; -1 when unknown.
function procStatusKb(pid, key) {
    try {
        const line = fs.readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith(key));
        return line ? parseInt(line.slice(key.length), 10) : -1;
    } catch (e) {
        return -1;
    }
}

function selfCpu() {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
}

function loadavg() {
    try {
        return fs.readFileSync("/proc/loadavg", "utf8").trim();
    } catch (e) {
        return "";
    }
}

// USER_HZ: 100 on every Linux this runs on; getconf says for sure.
let clockTicks = 100;
try {
    clockTicks = Number(require("child_process").execFileSync("getconf", ["CLK_TCK"]).toString()) || 100;
} catch (e) { /* keep 100 */ }

const st = { lat: [], ackLat: [], acks: 0, acksInWindow: 0, sent: 0, messagesOut: 0, gamesCompleted: 0,
             gamesCreated: 0, messagesIn: 0, errors: 0, byCode: {}, closed: 0, unexpected: 0,
             specSeen: 0, specSkipped: 0, boardsDiffer: 0 };

let complaints = 0;
function complain(msg) {
    if (complaints++ < 20)
        process.stderr.write(`colyseus-driver: ${msg}\n`);
}

function countError(code) {
    st.errors++;
    st.byCode[code] = (st.byCode[code] || 0) + 1;
}

// --- the server ------------------------------------------------------------------------

const srv = { child: null, pid: 0, url: null, exited: null, exitStatus: null };

function startServer() {
    return new Promise((resolve, reject) => {
        const child = spawn(process.execPath, [opt.start, "--listen", "127.0.0.1:0",
                                               "--patch-rate", String(opt.patchRate)],
                            { stdio: ["pipe", "pipe", "inherit"] });
        srv.child = child;
        srv.pid = child.pid;
        srv.exited = new Promise((res) => child.on("exit", (code, signal) => {
            srv.exitStatus = code !== null ? code : 128 + (os.constants.signals[signal] || 0);
            res();
        }));
        let out = "";
        const timer = setTimeout(() => reject(new Error("the server did not print its address in 60 s")), 60000);
        child.stdout.on("data", (d) => {
            out += d;
            const m = /colyseus listening on (ws:\/\/127\.0\.0\.1:\d+)\//.exec(out);
            if (m && !srv.url) {
                srv.url = m[1];
                clearTimeout(timer);
                process.stderr.write(`colyseus-driver: server pid ${srv.pid} on ${srv.url}/\n`);
                resolve();
            }
        });
        child.on("exit", () => {
            clearTimeout(timer);
            if (!srv.url)
                reject(new Error(`the server exited before listening (status ${srv.exitStatus})`));
        });
    });
}

// SIGTERM, then wait up to 30 s (SIGKILL after); its exit status or -1.
async function stopServer() {
    if (!srv.child)
        return 0;
    if (srv.exitStatus === null)
        srv.child.kill("SIGTERM");
    const late = setTimeout(() => srv.child.kill("SIGKILL"), 30000);
    await srv.exited;
    clearTimeout(late);
    return srv.exitStatus;
}

// --- games and connections ------------------------------------------------------------------

const P_SETUP = 0, P_PLAYING = 1, P_RESETTING = 2, P_DONE = 3;
const run = { started: false, stopping: false, t0: 0, t1: 0 };

// One game slot: its room, two seat connections and S spectators. round is the
// game of the room being played; moves the marks of it the driver knows of
// (the highest any of its connections holds).
function newSlot(idx) {
    return { idx, phase: P_SETUP, seats: [null, null], specs: [], roomId: null, round: 0,
             moves: 0, pend: null, lat: new Map(), ready: 0 };
}

// A connection: its room and what its state holds.
function newConn(slot, role) {
    return { slot, role, room: null, round: -1, moves: 0, has: false, specMoves: 0 };
}

function allConns(slot) {
    return [slot.seats[0], slot.seats[1], ...slot.specs];
}

function onState(c, state) {
    const s = c.slot, now = nowS();
    st.messagesIn += run.started && !run.stopping ? 1 : 0;
    const round = state.round, moves = state.moves;
    if (!c.has) {
        c.has = true;
        s.ready++;
    }
    if (c.role === "spec") {
        // Every move, once each, in order: a patch that jumps over one
        // means the spectator never held that board.
        if (round !== c.round) {
            // A new game of the room: its board starts empty (the driver
            // resets only once every connection held the last one's end).
            st.specSkipped += moves;
            c.specMoves = moves;
        } else if (moves > c.specMoves) {
            st.specSkipped += moves - c.specMoves - 1;
            st.specSeen += moves - c.specMoves;
            for (let m = c.specMoves + 1; m <= moves; m++)
                spectatorSaw(s, round, m, now);
            c.specMoves = moves;
        }
    }
    c.round = round;
    c.moves = moves;
    if (round === s.round && moves > s.moves)
        s.moves = moves;
    const p = s.pend;
    if (p && c.role === p.seat && round === p.round && moves >= p.move) {
        // The mover holds its own move: warroom-load's ack.
        st.acks++;
        if (run.started && !run.stopping)
            st.acksInWindow++;
        st.ackLat.push((now - p.t) * 1e3);
        s.pend = null;
    }
    step(s);
}

function spectatorSaw(s, round, m, now) {
    const key = round * 16 + m, l = s.lat.get(key);
    if (!l)
        return;
    if (++l.seen === opt.spectators) {
        st.lat.push((now - l.t) * 1e3);
        s.lat.delete(key);
    }
}

// What the slot does next: start playing, move, or replace a finished game.
function step(s) {
    if (s.phase === P_SETUP) {
        if (s.ready === 2 + opt.spectators && s.roomId)
            s.phase = P_PLAYING;
        else
            return;
    }
    const conns = allConns(s);
    if (s.phase === P_RESETTING) {
        if (!conns.every((c) => c.round === s.round))
            return;
        s.phase = P_PLAYING;
    }
    if (s.phase !== P_PLAYING)
        return;
    const view = s.seats[0].room.state;
    const over = s.seats[0].round === s.round && view.winner !== -1;
    if (over || (s.seats[1].round === s.round && s.seats[1].room.state.winner !== -1)) {
        // Finished: once the last move is everywhere (warroom-load's
        // maybe_finish), the room's next game.
        if (s.pend || !conns.every((c) => c.round === s.round && c.moves === s.moves))
            return;
        compareBoards(s);
        if (run.stopping) {
            s.phase = P_DONE;
            return;
        }
        if (run.started)
            st.gamesCompleted++;
        s.round++;
        s.moves = 0;
        s.lat.clear();
        s.phase = P_RESETTING;
        st.messagesOut += run.started && !run.stopping ? 1 : 0;
        s.seats[0].room.send("again");
        return;
    }
    if (!run.started || run.stopping || s.pend)
        return;
    const seat = s.moves % 2, c = s.seats[seat];
    if (c.round !== s.round || c.moves !== s.moves)
        return;
    const cells = c.room.state.cells, empty = [];
    for (let i = 0; i < 9; i++)
        if (cells[i] === 0)
            empty.push(i);
    if (empty.length === 0)
        return;
    const cell = empty[rngBelow(empty.length)], now = nowS();
    // Only sent inside the window, so every answer is sampled, also one
    // that arrives while draining (as warroom-load does).
    s.pend = { seat: seat === 0 ? "seat0" : "seat1", round: s.round, move: s.moves + 1, t: now };
    s.lat.set(s.round * 16 + s.moves + 1, { t: now, seen: 0 });
    c.room.send("mark", { cell });
    st.sent++;
    st.messagesOut++;
}

// Every connection of a finished game holds the same board.
function compareBoards(s) {
    const want = Array.from(s.seats[0].room.state.cells).join("");
    for (const c of allConns(s))
        if (Array.from(c.room.state.cells).join("") !== want) {
            st.boardsDiffer++;
            complain(`room ${s.roomId}: a ${c.role} holds ${Array.from(c.room.state.cells).join("")}, seat 0 ${want}`);
        }
}

function attach(c, room) {
    c.room = room;
    room.onStateChange((state) => onState(c, state));
    room.onMessage("error", (m) => {
        st.messagesIn += run.started && !run.stopping ? 1 : 0;
        countError(m && m.code ? String(m.code) : "error");
        complain(`error ${m && m.code} to ${c.role} of room ${c.slot.roomId}`);
        if (c.slot.pend && c.slot.pend.seat === c.role)
            c.slot.pend = null;
    });
    room.onMessage("*", (type) => {
        st.unexpected++;
        complain(`unexpected message ${type}`);
    });
    room.onError((code, message) => {
        countError(`room_error_${code}`);
        complain(`room error ${code} (${message}) to ${c.role} of room ${c.slot.roomId}`);
    });
    room.onLeave((code) => {
        if (closing)
            return;
        st.closed++;
        countError("connection_closed");
        complain(`a connection closed (code ${code}) for ${c.role} of room ${c.slot.roomId}`);
    });
}

let closing = false;

async function setupSlot(client, s) {
    s.seats[0] = newConn(s, "seat0");
    s.seats[1] = newConn(s, "seat1");
    for (let i = 0; i < opt.spectators; i++)
        s.specs.push(newConn(s, "spec"));
    const first = await client.create("tictactoe");
    s.roomId = first.roomId;
    st.gamesCreated++;
    attach(s.seats[0], first);
    const rest = [client.joinById(s.roomId, {}).then((r) => attach(s.seats[1], r))];
    for (const c of s.specs)
        rest.push(client.joinById(s.roomId, { spectate: true }).then((r) => attach(c, r)));
    await Promise.all(rest);
    step(s);
}

// Every slot set up, SETUP_AT_ONCE at a time.
async function setupAll(client, slots) {
    let next = 0;
    async function worker() {
        while (next < slots.length) {
            const s = slots[next++];
            await setupSlot(client, s);
        }
    }
    const workers = [];
    for (let i = 0; i < Math.min(SETUP_AT_ONCE, slots.length); i++)
        workers.push(worker());
    await Promise.all(workers);
}

function sleep(ms) {
    return new Promise((r) => setTimeout(r, ms));
}

async function until(pred, seconds) {
    const deadline = nowS() + seconds;
    while (!pred() && nowS() < deadline)
        await sleep(5);
    return pred();
}

// --- the run ----------------------------------------------------------------------------------

async function main() {
    const err = parseOptions(process.argv);
    if (err) {
        process.stderr.write(`colyseus-driver: ${err}\n`);
        usage(process.stderr);
        process.exit(2);
    }
    if (!opt.seed)
        opt.seed = (Date.now() ^ (process.pid << 16)) % 1000000000;
    rngSeed(opt.seed);
    const loadBefore = loadavg();
    if (opt.start) {
        await startServer();
    } else {
        srv.url = opt.server;
        srv.pid = opt.serverPid;
    }
    const pid = srv.pid;
    const rssBefore = procStatusKb(pid, "VmRSS:");
    const client = new Client(srv.url);
    const slots = [];
    for (let i = 0; i < opt.games; i++)
        slots.push(newSlot(i));
    let failed = false;

    // 1) Set-up: every game created, every connection joined with a state.
    const setupStart = nowS();
    const setupDeadline = 60 + opt.games * (2 + opt.spectators) / 200;
    try {
        await Promise.race([setupAll(client, slots),
                            sleep(setupDeadline * 1000).then(() => { throw new Error("timed out"); })]);
        if (!(await until(() => slots.every((s) => s.phase === P_PLAYING), 30)))
            throw new Error("not every connection got its first state");
        if (st.errors)
            throw new Error(`${st.errors} errors`);
    } catch (e) {
        complain(`set-up did not finish: ${e.message}; ${slots.filter((s) => s.phase === P_PLAYING).length} of ${opt.games} games ready`);
        failed = true;
    }
    const setupS = nowS() - setupStart;
    const rssSetup = procStatusKb(pid, "VmRSS:");

    // 2) Play.
    let cpu0 = { user: -1, all: -1 }, cpu1 = { user: -1, all: -1 }, self0 = 0, self1 = 0, rss = -1, hwm = -1;
    if (!failed) {
        run.started = true;
        run.t0 = nowS();
        cpu0 = procCpu(pid);
        self0 = selfCpu();
        for (const s of slots)
            step(s);
        await sleep(opt.seconds * 1000);
        run.t1 = nowS();
        run.stopping = true;
        cpu1 = procCpu(pid);
        self1 = selfCpu();
        rss = procStatusKb(pid, "VmRSS:");
        hwm = procStatusKb(pid, "VmHWM:");

        // 3) Drain: every move sent is held by its mover and by every spectator.
        const settled = () => slots.every((s) => !s.pend && s.phase !== P_RESETTING &&
                                                 s.specs.every((c) => c.round === s.round && c.moves === s.moves));
        if (!(await until(settled, 15)))
            complain("some moves did not reach every connection in 15 s");
    }
    let unresolved = 0, specBehind = 0;
    for (const s of slots) {
        if (s.pend)
            unresolved++;
        for (const c of s.specs)
            if (c.round !== s.round || c.moves !== s.moves)
                specBehind++;
    }
    const loadAfter = loadavg();

    // 4) Stop: leave every room, stop the server we started.
    closing = true;
    for (const s of slots)
        for (const c of allConns(s))
            if (c && c.room)
                c.room.connection.close();
    const exitStatus = await stopServer();
    if (opt.start && exitStatus !== 0) {
        complain(`the server did not stop cleanly (status ${exitStatus})`);
        failed = true;
    }

    // 5) The report, shaped like warroom-load's.
    const secs = run.t1 - run.t0;
    const cpu = cpu0.all >= 0 && cpu1.all >= 0 ? cpu1.all - cpu0.all : -1;
    const cpuUser = cpu0.user >= 0 && cpu1.user >= 0 ? cpu1.user - cpu0.user : -1;
    const self = self1 - self0;
    const expected = st.acks * opt.spectators;
    const total = st.errors + st.unexpected + unresolved + specBehind + st.specSkipped + st.boardsDiffer +
                  (st.specSeen !== expected ? 1 : 0);
    const conns = opt.games * (2 + opt.spectators);
    const versions = {};
    for (const p of ["@colyseus/core", "@colyseus/schema", "@colyseus/ws-transport", "colyseus.js"])
        versions[p] = JSON.parse(fs.readFileSync(path.join(__dirname, "node_modules", p, "package.json"))).version;
    const out = {
        tool: "colyseus-driver", ruleset: "tictactoe", games: opt.games, spectators: opt.spectators,
        idle: 0, rate_per_game: 0, connections: conns, seconds: round3(secs),
        commands: st.acksInWindow,
        commands_per_second: round3(secs > 0 ? st.acksInWindow / secs : 0),
        games_completed: st.gamesCompleted, games_created: st.gamesCreated,
        messages_in_per_second: round3(secs > 0 ? st.messagesIn / secs : 0),
        // every message sent in the window: marks, and one "again" per game
        messages_out_per_second: round3(secs > 0 ? st.messagesOut / secs : 0),
        latency_ms: latJson(st.lat),
        latency_is: "send to the patch at the last spectator",
        ack_latency_ms: latJson(st.ackLat),
        ack_is: "send to the patch at the mover's own connection",
        server: {
            pid, cpu_seconds: round3(cpu), cpu_percent: round3(secs > 0 && cpu >= 0 ? 100 * cpu / secs : -1),
            cpu_ms_per_command: st.acksInWindow > 0 && cpu >= 0 ? Math.round(1e6 * cpu / st.acksInWindow) / 1e3 : -1,
            cpu_user_ms_per_command: st.acksInWindow > 0 && cpuUser >= 0
                ? Math.round(1e6 * cpuUser / st.acksInWindow) / 1e3 : -1,
            rss_before_kb: rssBefore, rss_setup_kb: rssSetup, rss_kb: rss, rss_peak_kb: hwm,
            exit_status: opt.start ? exitStatus : null,
            stores_moves: false, patch_rate_ms: opt.patchRate, versions,
            node: process.version,
        },
        load_tool: {
            cpu_seconds: round3(self), cpu_percent: round3(secs > 0 ? 100 * self / secs : 0),
            setup_seconds: round3(setupS), rss_peak_kb: procStatusKb(process.pid, "VmHWM:"),
        },
        spectators_check: { moves_seen: st.specSeen, moves_expected: expected, skipped: st.specSkipped,
                            behind_at_end: specBehind, boards_differ: st.boardsDiffer },
        errors: { total, by_code: st.byCode, connections_closed: st.closed, unexpected_answers: st.unexpected,
                  unresolved },
        machine: { cpus: os.cpus().length, loadavg_before: loadBefore, loadavg_after: loadAfter },
        command_line: process.argv.slice(1).join(" "),
        seed: opt.seed,
    };
    process.stdout.write(JSON.stringify(out) + "\n");
    return failed || total > 0 ? 1 : 0;
}

main().then((code) => process.exit(code), async (e) => {
    complain(`failed: ${e && e.stack ? e.stack : e}`);
    if (srv.child && srv.exitStatus === null)
        srv.child.kill("SIGKILL");
    process.exit(1);
});
