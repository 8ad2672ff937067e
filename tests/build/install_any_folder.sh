#!/bin/sh
# The programs work from any folder, installed or from the build tree
# (platform/datadir.h): `cmake --install` into a temporary prefix, then,
# from a folder outside the source and build trees with no
# WARROOM_SCENARIOS,
#   - the installed and the build tree's `warroom render` draw waterloo-1815
#     (the same SVG);
#   - the installed warroomd's default --scenarios is its prefix's share
#     folder, the build tree's the source scenarios/; the installed one,
#     started on port 0, creates a waterloo-1815 game for `warroom new`,
#     whose board `warroom status` shows;
#   - the install moved to another prefix still renders, and both programs
#     name the new prefix's folder.
#   install_any_folder.sh BUILD_DIR SOURCE_DIR WARROOM WARROOMD
# (WARROOM and WARROOMD: the build tree's executables.)
set -eu
build=$(cd "$1" && pwd -P)
src=$(cd "$2" && pwd -P)
bwarroom=$3
bwarroomd=$4

tmp=$(mktemp -d)
tmp=$(cd "$tmp" && pwd -P)
pid=
cleanup() {
    if [ -n "$pid" ]; then
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

case "$tmp/" in "$src"/*|"$build"/*) fail "temporary folder $tmp is inside the source or build tree" ;; esac
unset WARROOM_SCENARIOS WARROOM_SERVER WARROOM_LISTEN WARROOM_DB
export XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"

prefix="$tmp/prefix"
cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" ||
    { cat "$tmp/install.log" >&2; fail "cmake --install"; }
[ -x "$prefix/bin/warroom" ] || fail "no $prefix/bin/warroom"
[ -x "$prefix/bin/warroomd" ] || fail "no $prefix/bin/warroomd"
[ -f "$prefix/share/warroom/scenarios/waterloo-1815/scenario.json" ] ||
    fail "no waterloo-1815 under $prefix/share/warroom/scenarios"

mkdir "$tmp/elsewhere"
cd "$tmp/elsewhere"
[ ! -e scenarios ] || fail "a scenarios/ in $PWD"

# An SVG: its first tag <svg ...>, its last </svg>.
is_svg() {
    [ -s "$1" ] || fail "$1 missing or empty"
    head -c 5 "$1" | grep -q '^<svg ' || fail "$1 does not start with <svg"
    tail -c 8 "$1" | grep -q '</svg>' || fail "$1 does not end with </svg>"
}

# 1. render, installed and from the build tree.
"$prefix/bin/warroom" render --scenario waterloo-1815 --svg installed.svg ||
    fail "installed warroom render (exit $?)"
is_svg installed.svg
"$bwarroom" render --scenario waterloo-1815 --svg built.svg ||
    fail "build tree's warroom render (exit $?)"
is_svg built.svg
cmp -s installed.svg built.svg || fail "installed and build tree draw waterloo-1815 differently"
echo "ok: render from $PWD, installed and from the build tree"

# A missing scenario names every folder searched.
if "$prefix/bin/warroom" render --scenario no-such-scenario >/dev/null 2>err.txt; then
    fail "installed render of no-such-scenario succeeded"
fi
grep -qF "in ./scenarios, $prefix/share/warroom/scenarios or " err.txt ||
    fail "error does not name ./scenarios, then $prefix/share/warroom/scenarios: $(cat err.txt)"
if "$bwarroom" render --scenario no-such-scenario >/dev/null 2>err.txt; then
    fail "build tree's render of no-such-scenario succeeded"
fi
grep -qF "in ./scenarios or $src/scenarios" err.txt ||
    fail "error does not name ./scenarios and $src/scenarios: $(cat err.txt)"
echo "ok: a missing scenario names the folders searched"

# 2. warroomd's default --scenarios.
"$prefix/bin/warroomd" --help >help.txt
grep -A1 -- '--scenarios DIR' help.txt | grep -qF "$prefix/share/warroom/scenarios (the first" ||
    fail "installed warroomd --help does not default to $prefix/share/warroom/scenarios"
"$bwarroomd" --help >help.txt
grep -A1 -- '--scenarios DIR' help.txt | grep -qF "$src/scenarios (the first" ||
    fail "build tree's warroomd --help does not default to $src/scenarios"

# start_server WARROOMD DB: start it here on a free port (pid, port set) and
# wait for its "listening" line (read from a FIFO: no sleeping); its log
# goes to log.txt. stop_server: SIGTERM, and a clean exit required.
start_server() {
    rm -f out.fifo
    mkfifo out.fifo
    "$1" --listen 127.0.0.1:0 --web-listen 127.0.0.1:0 --db "$2" >out.fifo 2>log.txt &
    pid=$!
    exec 3<out.fifo
    IFS= read -r line <&3 || fail "$1 did not start: $(cat log.txt)"
    port=$(echo "$line" | sed -n 's|^warroomd listening on ws://127\.0\.0\.1:\([0-9][0-9]*\)/$|\1|p')
    [ -n "$port" ] || fail "unexpected first line from $1: $line"
    IFS= read -r line <&3 || fail "$1 printed no web line: $(cat log.txt)"
    webport=$(echo "$line" | sed -n 's|^warroomd web client on http://127\.0\.0\.1:\([0-9][0-9]*\)/$|\1|p')
    [ -n "$webport" ] || fail "unexpected second line from $1: $line"
}
stop_server() {
    kill "$pid"
    wait "$pid" || fail "warroomd exited with $? on SIGTERM"
    pid=
    exec 3<&-
}

# The installed server, started here on a free port, serves waterloo-1815.
start_server "$prefix/bin/warroomd" "$tmp/elsewhere/w.db"
grep -qF "scenarios=$prefix/share/warroom/scenarios " log.txt ||
    fail "warroomd's log does not name $prefix/share/warroom/scenarios: $(cat log.txt)"
WARROOM_SERVER="ws://127.0.0.1:$port/" "$prefix/bin/warroom" new --ruleset waterloo \
    --scenario waterloo-1815 >new.txt 2>&1 || fail "warroom new: $(cat new.txt)"
grep -q "^created game g-[0-9a-f]* (waterloo, scenario waterloo-1815)" new.txt ||
    fail "warroom new: $(cat new.txt)"
# And the game's view (what play and watch draw) from here: its board.
game=$(sed -n 's/^created game \(g-[0-9a-f]*\) .*/\1/p' new.txt)
WARROOM_SERVER="ws://127.0.0.1:$port/" "$prefix/bin/warroom" status "$game" >status.txt 2>&1 ||
    fail "warroom status $game: $(cat status.txt)"
grep -q "^game $game (waterloo, scenario waterloo-1815)" status.txt ||
    fail "warroom status: $(cat status.txt)"
grep -q "^Turn 1, 1815-06-16 07:00" status.txt || fail "warroom status: $(cat status.txt)"
# And its web client, from the prefix's share folder: the lobby page as in the source.
curl -fsS -o index.html "http://127.0.0.1:$webport/" || fail "GET / on the installed web port"
cmp -s index.html "$src/web/index.html" || fail "the installed web port's / is not web/index.html"
grep -qF "dir=$prefix/share/warroom/web " log.txt ||
    fail "warroomd's log does not name $prefix/share/warroom/web: $(cat log.txt)"
stop_server
echo "ok: installed warroomd run from $PWD serves waterloo-1815 and its web client, warroom new and status use it"

# 3. The install moved to another prefix.
moved="$tmp/moved"
mv "$prefix" "$moved"
rm -f installed.svg
"$moved/bin/warroom" render --scenario waterloo-1815 --svg installed.svg ||
    fail "moved warroom render (exit $?)"
is_svg installed.svg
cmp -s installed.svg built.svg || fail "the moved install draws waterloo-1815 differently"
if "$moved/bin/warroom" render --scenario no-such-scenario >/dev/null 2>err.txt; then
    fail "moved render of no-such-scenario succeeded"
fi
grep -qF "in ./scenarios, $moved/share/warroom/scenarios or " err.txt ||
    fail "error does not name $moved/share/warroom/scenarios first: $(cat err.txt)"
"$moved/bin/warroomd" --help >help.txt
grep -A1 -- '--scenarios DIR' help.txt | grep -qF "$moved/share/warroom/scenarios (the first" ||
    fail "moved warroomd --help does not default to $moved/share/warroom/scenarios"
echo "ok: the install moved to $moved still finds its scenarios"

# Without its scenarios, the moved server still starts, and its log names
# every folder it looked in.
mv "$moved/share/warroom/scenarios" "$tmp/aside"
start_server "$moved/bin/warroomd" "$tmp/elsewhere/w2.db"
stop_server
mv "$tmp/aside" "$moved/share/warroom/scenarios"
grep "no scenario directory" log.txt | grep -qF "searched=\"$moved/share/warroom/scenarios or " ||
    fail "warroomd does not warn naming $moved/share/warroom/scenarios: $(cat log.txt)"
echo "ok: a server without scenarios says where it looked"
