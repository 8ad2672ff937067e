#!/bin/sh
# bench_store.sh - what a store full of games costs a server: its memory and
# its start (docs/reliability.md, "Memory and starts"). Driven by warroom-load
# against warroomd of one build; prints one JSON line per figure.
#
#   tests/bench/bench_store.sh BUILD_DIR memory [IDLE_GAMES] [PLAYED]
#       a server with --game-idle 2 fills with IDLE_GAMES (default 10000)
#       Waterloo 1815 games, each created, claimed and played a few moves by
#       warroom-load runs of 100 games that then leave; once they have left
#       memory, PLAYED (default 100) games are played for 20 s. The same
#       100-game run on a server with an empty store is the reference.
#   tests/bench/bench_store.sh BUILD_DIR start [FINISHED] [RUNNING]
#       a store of FINISHED (default 100000) finished tictactoe games and
#       RUNNING (default 1000) running ones, made by warroom-load; then
#       warroomd is started on it five times and timed to its listening line,
#       and on a store of the RUNNING games alone for comparison.
#
# Everything lives in a temporary directory, removed at the end; the servers
# it starts are stopped by their pid.
set -eu

build=$(cd "${1:?build dir}" && pwd)
what=${2:?memory or start}
shift 2
top=$(cd "$(dirname "$0")/../.." && pwd)
warroomd=$build/server/warroomd
load=$build/tests/load/warroom-load
tmp=$(mktemp -d /tmp/warroom-bench-store-XXXXXX)
pid=
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# start_server, stop_server
. "$top/tests/bench/server.sh"

metric() {
    curl -s "http://127.0.0.1:$port/metrics" | sed -n "s/^$1 //p"
}

rss_kb() {
    sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$pid/status"
}

# load ARGS...: one warroom-load run against the running server
load_run() {
    "$load" --server "ws://127.0.0.1:$port/" --server-pid "$pid" "$@"
}

case "$what" in
memory)
    idle=${1:-10000}
    played=${2:-100}
    # the reference: an empty store, the played games alone
    start_server "$tmp/empty.db" --game-idle 2
    empty_kb=$(rss_kb)
    ref=$(load_run --ruleset waterloo --games "$played" --spectators 0 --seconds 20)
    ref_kb=$(echo "$ref" | sed -n 's/.*"rss_kb":\([0-9]*\).*/\1/p')
    stop_server
    # the store: idle games made 100 at a time, each left after a few moves
    start_server "$tmp/idle.db" --game-idle 2
    made=0
    t0=$(date +%s)
    while [ "$made" -lt "$idle" ]; do
        load_run --ruleset waterloo --games 100 --spectators 0 --moves 300 >/dev/null
        made=$((made + 100))
    done
    fill_s=$(( $(date +%s) - t0 ))
    # until they have all left memory (a bounded wait)
    for i in $(seq 1 300); do
        [ "$(metric warroom_games_running)" = 0 ] && break
        sleep 0.2
    done
    shelved=$(metric warroom_games_shelved_total)
    idle_kb=$(rss_kb)
    run=$(load_run --ruleset waterloo --games "$played" --spectators 0 --seconds 20)
    run_kb=$(echo "$run" | sed -n 's/.*"rss_kb":\([0-9]*\).*/\1/p')
    stop_server
    ratio=$(awk -v a="$run_kb" -v b="$ref_kb" 'BEGIN { printf "%.3f", a / b }')
    echo "{\"bench\":\"store_memory\",\"idle_games\":$idle,\"played_games\":$played,\"fill_seconds\":$fill_s,\"shelved\":$shelved,\"rss_kb\":{\"empty_server\":$empty_kb,\"empty_store_playing\":$ref_kb,\"idle_store_before_play\":$idle_kb,\"idle_store_playing\":$run_kb},\"ratio_to_reference\":$ratio,\"reference_run\":$ref,\"idle_store_run\":$run}"
    ;;
start)
    finished=${1:-100000}
    running=${2:-1000}
    # RUNNING games in play, left after about one move each (the small
    # store), or after about FINISHED games have been played to their end
    # on as many boards (a tictactoe game takes 5 to 9 moves: 8 a game)
    for db in small big; do
        start_server "$tmp/$db.db"
        moves=$running
        [ "$db" = big ] && moves=$((finished * 8))
        load_run --games "$running" --spectators 0 --moves "$moves" >/dev/null
        stop_server
    done
    for db in small big; do
        times=""
        for i in 1 2 3 4 5; do
            start_server "$tmp/$db.db"
            held=$(metric warroom_games)
            stop_server
            times="$times${times:+,}$start_ms"
        done
        games=$("$warroomd" --verify --db "$tmp/$db.db" --log-level error |
                sed -n 's/.*verified: \([0-9]*\) games.*/\1/p')
        bytes=$(stat -c %s "$tmp/$db.db")
        echo "{\"bench\":\"store_start\",\"store\":\"$db\",\"games_stored\":$games,\"store_bytes\":$bytes,\"games_held_after_start\":$held,\"start_ms\":[$times]}"
    done
    ;;
*)
    sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
