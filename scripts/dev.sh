#!/bin/sh
# The two commands a newcomer needs, and what CI runs.
#
#   scripts/dev.sh serve [warroomd options]   install, build, start the server
#   scripts/dev.sh test                       install, build, run every test: the
#                                             normal build, ASan+UBSan, the fuzz smoke
#   scripts/dev.sh test --normal|--sanitize|--fuzz   one of those configurations
#   scripts/dev.sh build [--sanitize|--fuzz|--release] [cmake args]
#   scripts/dev.sh bench                      build Release, run the benchmarks
#   scripts/dev.sh bench --peers [--games N] [--spectators S] [--seconds T] [--runs K]
#                                             warroomd and Colyseus 0.16 under the same
#                                             tictactoe load, back to back, K runs
#   scripts/dev.sh fuzz [SECONDS] [TARGET...] run fuzz targets longer (default 300 s
#                                             each, every target, two at a time)
#
# Build trees: build/ (debug-ish RelWithDebInfo), build-asan/ (ASan+UBSan),
# build-fuzz/ (clang + libFuzzer), build-release/ (benchmarks).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

jobs=$(nproc 2>/dev/null || echo 2)

configure_and_build() {
    dir=$1; shift
    "$top/scripts/deps.sh" "${deps_profile:-build}"
    cmake -S "$top" -B "$top/$dir" -G Ninja "$@" >/dev/null
    cmake --build "$top/$dir" -j "$jobs"
}

kind_args() {
    case "${1:-}" in
        --sanitize) echo "build-asan -DCMAKE_BUILD_TYPE=Debug -DWARROOM_SANITIZE=ON" ;;
        --fuzz) echo "build-fuzz -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=clang -DWARROOM_FUZZ=ON" ;;
        --release) echo "build-release -DCMAKE_BUILD_TYPE=Release" ;;
        "") echo "build -DCMAKE_BUILD_TYPE=RelWithDebInfo" ;;
        *) echo "dev.sh: unknown build kind '$1'" >&2; exit 2 ;;
    esac
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
    build)
        # Extra arguments after the kind go to cmake (e.g. -DCMAKE_INSTALL_PREFIX=...).
        kind=${1:-}
        [ $# -gt 0 ] && shift
        # shellcheck disable=SC2046
        configure_and_build $(kind_args "$kind") "$@"
        ;;
    test)
        if [ $# -eq 0 ]; then
            # Everything, as CI runs it: the release build first (the
            # Docker image's and the benchmarks' -O3, whose warnings are
            # errors too and differ from -O2's), then each configuration's
            # tests in turn.
            echo "== scripts/dev.sh build --release"
            "$0" build --release
            for kind in --normal --sanitize --fuzz; do
                echo "== scripts/dev.sh test $kind"
                "$0" test "$kind"
            done
            exit 0
        fi
        [ "$1" = "--normal" ] && set -- ""
        set -- $(kind_args "${1:-}")
        dir=$1
        deps_profile=test configure_and_build "$@"
        cd "$top/$dir"
        ctest --output-on-failure -j "$jobs" --timeout 300
        ;;
    serve)
        configure_and_build $(kind_args "")
        listen=${WARROOM_LISTEN:-127.0.0.1:8080}
        db=${WARROOM_DB:-$top/warroom.db}
        # The scenarios of the source tree (test/small included), unless told otherwise.
        scenarios=${WARROOM_SCENARIOS:-$top/scenarios}
        # The web client: the --listen port plus one unless told.
        web=${WARROOM_WEB_LISTEN:-${listen%:*}:$((${listen##*:} + 1))}
        echo "warroomd: starting on ws://$listen/ with the SQLite store $db"
        echo "  open:      http://$web/  in a browser (the lobby; the web client)"
        echo "  check it:  curl http://$listen/healthz"
        echo "  connect:   a websocket client to ws://$listen/ sending {\"type\":\"hello\",\"protocol\":1}"
        echo "  client:    build/client-cli/warroom --help  (README: Playing a game)"
        echo "  stop it:   Ctrl-C"
        exec "$top/build/server/warroomd" --listen "$listen" --web-listen "$web" --db "$db" \
            --scenarios "$scenarios" "$@"
        ;;
    bench)
        if [ "${1:-}" = "--peers" ]; then
            shift
            # Node.js and tests/peers/colyseus's pinned npm packages too.
            deps_profile=peers configure_and_build $(kind_args --release)
            exec "$top/tests/peers/bench_peers.sh" "$top/build-release" "$@"
        fi
        configure_and_build $(kind_args --release)
        cmake --build "$top/build-release" --target bench
        ;;
    fuzz)
        # Longer runs than CI's: new inputs are kept in build-fuzz/tests/fuzz/found/,
        # crashes and leaks in build-fuzz/tests/fuzz/artifacts/, one log per
        # target beside them; the summary line gives executions and findings.
        secs=${1:-300}
        [ $# -gt 0 ] && shift
        configure_and_build $(kind_args --fuzz)
        fz="$top/build-fuzz/tests/fuzz"
        targets=${*:-$(cd "$top/tests/fuzz/corpus" && ls)}
        mkdir -p "$fz/artifacts"
        run_one() {
            mkdir -p "$fz/found/$1"
            rc=0
            "$fz/$1" -max_total_time="$secs" -timeout=10 -print_final_stats=1 \
                -artifact_prefix="$fz/artifacts/$1-" "$fz/found/$1" \
                "$top/tests/fuzz/corpus/$1" >"$fz/$1.log" 2>&1 || rc=$?
            runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$fz/$1.log")
            echo "$1: exit $rc, ${runs:-?} executions, log $fz/$1.log"
        }
        set -- $targets
        while [ $# -gt 0 ]; do
            run_one "$1" &
            first=$!
            if [ $# -gt 1 ]; then run_one "$2"; shift; fi
            wait "$first"
            shift
        done
        ls "$fz/artifacts" | sed 's/^/finding: /'
        ;;
    *)
        sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
        exit 2
        ;;
esac
