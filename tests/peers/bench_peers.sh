#!/bin/sh
# warroomd and a Colyseus 0.16 server under the same tictactoe load, back to
# back, K times: `scripts/dev.sh bench --peers` (which builds build-release and
# installs tests/peers/colyseus's pinned npm packages first).
#
#   tests/peers/bench_peers.sh BUILD_DIR [--games N] [--spectators S] [--seconds T] [--runs K]
#
# Each run: warroom-load --start BUILD_DIR/server/warroomd, then
# tests/peers/colyseus/driver.js --start server.js, same games, spectators and
# seconds; each tool starts its own server on 127.0.0.1:0 and stops it. Prints
# per run a table and one JSON line (also appended to BUILD_DIR/bench-peers.jsonl),
# then a summary over the runs (and its JSON line). The tools' stderr is kept
# in a temporary directory, named when a run fails. Exits 1 when any run
# failed (a tool's errors, a server that did not stop cleanly).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: bench_peers.sh BUILD_DIR [--games N] [--spectators S] [--seconds T] [--runs K]}
shift
games=1000 spectators=3 seconds=10 runs=3
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || { echo "bench_peers.sh: $1 needs a value" >&2; exit 2; }
    case "$2" in
        ''|*[!0-9.]*) echo "bench_peers.sh: $1 takes a number, not '$2'" >&2; exit 2 ;;
    esac
    case "$1" in
        --games) games=$2 ;;
        --spectators) spectators=$2 ;;
        --seconds) seconds=$2 ;;
        --runs) runs=$2 ;;
        *) echo "bench_peers.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift 2
done

load="$build/tests/load/warroom-load"
warroomd="$build/server/warroomd"
driver="$here/colyseus/driver.js"
for f in "$load" "$warroomd"; do
    [ -x "$f" ] || { echo "bench_peers.sh: $f is not built" >&2; exit 2; }
done
[ -d "$here/colyseus/node_modules/@colyseus/core" ] || {
    echo "bench_peers.sh: run npm ci in $here/colyseus first" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-peers-XXXXXX")
jsonl="$build/bench-peers.jsonl"
tool_pid=""

# The tool running now, and the server it started (its pid is on the tool's
# first stderr line): both ours, both stopped by pid if we are interrupted.
stop_running() {
    [ -n "$tool_pid" ] || return 0
    server_pid=$(sed -n 's/.*warroomd 0: pid \([0-9]*\) .*/\1/p; s/.*server pid \([0-9]*\) .*/\1/p' \
        "$tmp/tool.err" 2>/dev/null | head -n 1)
    kill "$tool_pid" 2>/dev/null || true
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
    wait "$tool_pid" 2>/dev/null || true
    tool_pid=""
}
failed=0
on_exit() {
    stop_running
    if [ "$failed" -eq 0 ]; then rm -rf "$tmp"; else echo "bench_peers.sh: logs kept in $tmp" >&2; fi
}
trap on_exit EXIT
trap 'failed=1; exit 130' INT TERM

# run_tool NAME OUT COMMAND...: the tool in the background (so a trap can stop
# it), its JSON on OUT, its stderr in $tmp/NAME.err; 1 when it failed.
run_tool() {
    name=$1 out=$2
    shift 2
    : >"$tmp/tool.err"
    "$@" >"$out" 2>"$tmp/tool.err" &
    tool_pid=$!
    rc=0
    wait "$tool_pid" || rc=$?
    tool_pid=""
    cp "$tmp/tool.err" "$tmp/$name.err"
    if [ "$rc" -ne 0 ] || ! grep -q '^{' "$out"; then
        echo "bench_peers.sh: $name failed (exit $rc); its stderr:" >&2
        tail -n 20 "$tmp/$name.err" >&2
        return 1
    fi
}

: >"$tmp/runs.jsonl"
k=1
while [ "$k" -le "$runs" ]; do
    ok=1
    run_tool "warroomd-$k" "$tmp/w$k.json" "$load" --start "$warroomd" --games "$games" \
        --spectators "$spectators" --seconds "$seconds" || ok=0
    run_tool "colyseus-$k" "$tmp/c$k.json" node "$driver" --start "$here/colyseus/server.js" \
        --games "$games" --spectators "$spectators" --seconds "$seconds" || ok=0
    if [ "$ok" -eq 1 ]; then
        node "$here/compare.js" run "$k" "$tmp/w$k.json" "$tmp/c$k.json" | tee "$tmp/run$k.txt"
        grep '^{' "$tmp/run$k.txt" >>"$tmp/runs.jsonl"
    else
        failed=1
        echo "run $k: failed (above); not counted"
    fi
    k=$((k + 1))
done
node "$here/compare.js" summary "$tmp/runs.jsonl" | tee "$tmp/summary.txt"
cat "$tmp/runs.jsonl" "$tmp/summary.txt" | grep '^{' >>"$jsonl"
echo "(JSON lines appended to $jsonl)"
[ "$failed" -eq 0 ]
