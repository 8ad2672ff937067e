# server.sh - sourced by the benchmark scripts of tests/bench: one warroomd of
# the build under test on 127.0.0.1:0, with the load tool's limits lifted.
# The script sourcing it sets $warroomd, $top and $tmp (a directory of its
# own) and stops the server by its pid ($pid) in its cleanup.

# start_server DB [ARGS...]: warroomd on 127.0.0.1:0, $pid and $port set, the
# milliseconds from exec to its listening line in $start_ms.
start_server() {
    store=$1; shift
    rm -f "$tmp/out"
    mkfifo "$tmp/out"
    t0=$(date +%s%N)
    "$warroomd" --listen 127.0.0.1:0 --web-listen none --db "$store" --log-level warn \
        --scenarios "$top/scenarios" --max-connections 20000 --max-per-address 20000 \
        --max-handshakes-per-address 1024 --rate 100000 --address-rate 100000000 \
        --max-open-per-address 100000000 --max-games-per-address 100000000 \
        "$@" >"$tmp/out" 2>>"$tmp/server.log" &
    pid=$!
    exec 3<"$tmp/out"
    read -r line <&3
    t1=$(date +%s%N)
    start_ms=$(( (t1 - t0) / 1000000 ))
    port=$(echo "$line" | sed -n 's|.*://127.0.0.1:\([0-9]*\)/.*|\1|p')
    [ -n "$port" ] || { echo "$0: the server did not start: $line" >&2; exit 1; }
}

stop_server() {
    exec 3<&-
    kill -TERM "$pid"
    wait "$pid" || true
    pid=
}
