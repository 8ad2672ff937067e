#!/bin/sh
# bench_syscalls.sh - the system calls warroomd makes per acknowledged
# command (docs/reliability.md, "The write path"): strace -c attached to a
# server of this build while warroom-load plays it; prints one JSON line.
#
#   tests/bench/bench_syscalls.sh BUILD_DIR [warroom-load options]
#       (default: --games 100 --spectators 3 --seconds 5)
#
# strace slows the server many times over: the counts per command are the
# figure here, never its speed. Each send() is also told apart by the type
# of the first message it carries: those that carry a command's ack or
# patch ("per move"), and the rest (a new game's create, claim and joins,
# the leaves of a finished one, hellos: "set-up"). The server and strace are started here and
# stopped by their pid; everything lives in a temporary directory.
set -eu

build=$(cd "${1:?build dir}" && pwd)
shift
[ $# -gt 0 ] || set -- --games 100 --spectators 3 --seconds 5
top=$(cd "$(dirname "$0")/../.." && pwd)
warroomd=$build/server/warroomd
load=$build/tests/load/warroom-load
tmp=$(mktemp -d /tmp/warroom-bench-syscalls-XXXXXX)
pid=
spid=
cleanup() {
    [ -n "$spid" ] && kill -INT "$spid" 2>/dev/null && wait "$spid" 2>/dev/null
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

. "$top/tests/bench/server.sh"
start_server "$tmp/db"

# Attached to every thread of the server (-f): every call traced (the sends
# sorted below) and the counts summed at the end (-C).
strace -f -C -s 40 -e trace=all -o "$tmp/trace" -p "$pid" 2>"$tmp/strace.log" &
spid=$!
# strace says it has attached before it counts anything.
i=0
until grep -q "attached" "$tmp/strace.log" 2>/dev/null; do
    i=$((i + 1))
    [ $i -lt 500 ] || { echo "bench_syscalls: strace did not attach" >&2; exit 1; }
    sleep 0.01
done

"$load" --server "ws://127.0.0.1:$port/" --server-pid "$pid" "$@" >"$tmp/load.json"
kill -INT "$spid"
wait "$spid" || true
spid=

python3 - "$tmp/load.json" "$tmp/trace" "$*" <<'EOF'
import json, re, sys
load = json.load(open(sys.argv[1]))
calls = {}
sends = {}
first = re.compile(r'(?:sendto|send)\(\d+, ".*?\{\\"type\\":\\"(\w+)')
for line in open(sys.argv[2]):
    m = first.search(line)
    if m:
        sends[m.group(1)] = sends.get(m.group(1), 0) + 1
        continue
    f = line.split()
    # the summary (-C): "% time seconds usecs/call calls [errors] syscall"
    if len(f) >= 5 and f[0][0].isdigit() and "." in f[0] and f[-1] != "total":
        calls[f[-1]] = int(f[3])
n = load["commands"]
if n == 0:
    sys.exit("bench_syscalls: no command was acknowledged")
per = {k: round(v / n, 2) for k, v in sorted(calls.items(), key=lambda kv: -kv[1])}
move = sum(v for k, v in sends.items() if k in ("ack", "patch"))
print(json.dumps({"bench": "syscalls", "load": sys.argv[3], "commands": n,
                  "games_created": load["games_created"], "connections": load["connections"],
                  "per_command": per,
                  "sends_per_move": round(move / n, 2),
                  "sends_set_up_per_command": round((sum(sends.values()) - move) / n, 2),
                  "sends_by_first_message": sends,
                  "errors": load["errors"]["total"]}))
EOF
