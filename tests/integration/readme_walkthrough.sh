#!/bin/bash
# The README's examples, run as written: every command block of the
# sections "Playing a game" (with "Waterloo in teams"), "Correspondence
# play", "Looking at the board" and "Watching a game", against a real
# warroomd started here on a free port.
#
#   readme_walkthrough.sh README WARROOM WARROOMD
#
# Each section runs in a bash of its own, as a reader would in a terminal,
# from a folder standing for the source directory (its tests/ and
# scenarios/ are the source's): its
# build/client-cli/warroom (the path the README's alias names) runs WARROOM
# and notes what `new` and `claim` printed. A reader types their own game id
# and invite where the README shows an example one; so does that wrapper:
# an argument that is the README's example game id (g- and 12 hex digits)
# or `GAME` becomes the id of the game created last, and an example invite
# (32 hex digits) the last invite printed. The README's server,
# ws://127.0.0.1:8080/, is the one started here (WARROOM_SERVER too, as
# command 1 of the README would have it), $HOME a fresh folder.
#
# Blocks:
#   ```sh            run, line by line in the section's shell (set -e: a
#                    command that fails fails the test);
#   ```  with lines  "SEAT> ORDER   comment": each ORDER typed at the
#                    prompt of `warroom play` for SEAT (the config of the
#                    player who took that seat); a line whose comment says
#                    "refused" must be refused, any other must be accepted,
#                    or answered when the order is a question (`help` says
#                    "answered here");
#   ```  starting    "created game": the output of the last `new`, line for
#                    line (ids, invite, server and $HOME put in);
#   ```  starting    "> ORDER": each further line of the block must be a
#                    line of what ORDER printed when it was typed above;
#   other ``` blocks are pictures of a screen whose dice differ from game
#   to game: named as not run.
set -euo pipefail
readme=$1
warroom=$2
warroomd=$3

tmp=$(mktemp -d)
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

unset XDG_CONFIG_HOME WARROOM_SERVER WARROOM_SCENARIOS WARROOM_LISTEN WARROOM_DB
export HOME="$tmp/home"
mkdir -p "$HOME" "$tmp/src/build/client-cli" "$tmp/state" "$tmp/blocks"
src=$(cd "$(dirname "$readme")" && pwd -P)
ln -s "$src/tests" "$tmp/src/tests"
ln -s "$src/scenarios" "$tmp/src/scenarios"

# --- the server ---------------------------------------------------------------------------------
mkfifo "$tmp/out.fifo"
"$warroomd" --listen 127.0.0.1:0 --db "$tmp/w.db" >"$tmp/out.fifo" 2>"$tmp/server.log" &
pid=$!
exec 3<"$tmp/out.fifo"
IFS= read -r line <&3 || fail "warroomd did not start: $(cat "$tmp/server.log")"
url=$(echo "$line" | sed -n 's|^warroomd listening on \(ws://127\.0\.0\.1:[0-9][0-9]*/\)$|\1|p')
[ -n "$url" ] || fail "unexpected first line from warroomd: $line"
export WARROOM_SERVER="$url"

# --- the wrapper the README's alias finds -----------------------------------------------------------
cat >"$tmp/src/build/client-cli/warroom" <<EOF
#!/bin/bash
# build/client-cli/warroom of the walk-through (readme_walkthrough.sh).
state="$tmp/state"
args=()
for a in "\$@"; do
    if [[ \$a =~ ^g-[0-9a-f]{12}\$ || \$a == GAME ]]; then
        a=\$(cat "\$state/game")
    elif [[ \$a =~ ^[0-9a-f]{32}\$ ]]; then
        a=\$(cat "\$state/invite")
    elif [[ \$a == ws://127.0.0.1:8080/ ]]; then
        a="$url"
    fi
    args+=("\$a")
done
"$warroom" "\${args[@]}" >"\$state/out" 2>&1 && rc=0 || rc=\$?
cat "\$state/out"
# What new and claim said: the game, its first invite, who holds which seat.
id=\$(sed -n 's/^created game \(g-[0-9a-f]*\) .*/\1/p' "\$state/out")
if [ -n "\$id" ]; then
    echo "\$id" >"\$state/game"
    cp "\$state/out" "\$state/new.out"
    sed -n 's/^  [a-z:_]*: \([0-9a-f]\{32\}\)\$/\1/p' "\$state/out" | head -n 1 >"\$state/invite"
fi
sed -n 's/^you hold the \([a-z:_]*\) seat.*its token is kept in \(.*\)\/warroom\/config.json).*/\1 \2/p' \
    "\$state/out" | while read -r seat dir; do echo "\$dir" >"\$state/seat.\$seat"; done
exit \$rc
EOF
chmod +x "$tmp/src/build/client-cli/warroom"

# --- the blocks of a section --------------------------------------------------------------------
# section TITLE: the README from "## TITLE" to the next "## " heading, cut into
# $tmp/blocks/NN.sh and NN.txt; prints the block files in order.
section() {
    rm -f "$tmp/blocks/"*
    awk -v title="## $1" -v dir="$tmp/blocks" '
        $0 == title { on = 1; next }
        on && /^## / { on = 0 }
        !on { next }
        inblock && /^```$/ { inblock = 0; close(f); next }
        inblock { print > f; next }
        /^```/ { n++; f = sprintf("%s/%02d.%s", dir, n, $0 == "```sh" ? "sh" : "txt"); inblock = 1;
                 printf "" > f }
    ' "$readme"
    ls "$tmp/blocks/" | sed "s|^|$tmp/blocks/|"
}

# The functions the section's shell runs for blocks that are not shell.
cat >"$tmp/prelude.sh" <<EOF
shopt -s expand_aliases
state="$tmp/state"
fail() { echo "FAIL: \$*" >&2; exit 1; }
questions() {
    "$warroom" do "\$(cat "\$state/game")" help |
        sed -n 's/^\([a-z_]*\)\( .*\)\{0,1\}  (answered here, nothing is sent)\$/\1/p'
}
# play_line SEAT ORDER: ORDER at SEAT's prompt of warroom play; its output
# in \$state/typed.out.
play_line() {
    local seat=\$1 order=\$2
    [ -f "\$state/seat.\$seat" ] || fail "no player holds the \$seat seat"
    printf '%s\nquit\n' "\$order" |
        XDG_CONFIG_HOME=\$(cat "\$state/seat.\$seat") "$warroom" play "\$(cat "\$state/game")" \
        >"\$state/typed.out" 2>&1 || fail "\$seat> \$order: warroom play exited \$?"
}
# typed SEAT ORDER COMMENT: ORDER at SEAT's prompt, refused or not as COMMENT says.
typed() {
    local seat=\$1 order=\$2 comment=\$3
    play_line "\$seat" "\$order"
    cp "\$state/typed.out" "\$state/typed.\$(echo "\$order" | md5sum | cut -c1-16)"
    sed -n '/^> /,\$p' "\$state/typed.out"
    if [[ \$comment == *refused* ]]; then
        grep -q '^refused' "\$state/typed.out" || fail "\$seat> \$order: not refused"
    elif grep -q '^refused\|not sent' "\$state/typed.out"; then
        fail "\$seat> \$order: \$(grep '^refused\|not sent' "\$state/typed.out")"
    elif questions | grep -qx "\${order%% *}"; then
        :
    else
        grep -q '^accepted: ' "\$state/typed.out" || fail "\$seat> \$order: not accepted"
    fi
    echo "ok: \$seat> \$order"
}
# same_lines FILE: the lines of the last new, with this run's values.
new_output_is() {
    local id=\$(cat "\$state/game") inv=\$(cat "\$state/invite") n=0
    while IFS= read -r want; do
        n=\$((n + 1))
        want=\$(echo "\$want" | sed -e "s/g-[0-9a-f]\{12\}/\$id/g" -e "s/[0-9a-f]\{32\}/\$inv/g" \
            -e "s|ws://127.0.0.1:8080/|$url|g" -e "s|/home/you|\$HOME|g")
        got=\$(sed -n "\${n}p" "\$state/new.out")
        [ "\$got" = "\$want" ] || fail "new, line \$n: got '\$got', the README shows '\$want'"
    done
    echo "ok: new printed what the README shows (\$n lines)"
}
# typed_showed ORDER: the lines that follow in the block are lines of what
# ORDER printed when it was typed.
typed_showed() {
    local order=\$1 f="\$state/typed.\$(echo "\$1" | md5sum | cut -c1-16)"
    [ -f "\$f" ] || fail "'\$order' was never typed before"
    while IFS= read -r want; do
        grep -qxF -- "\$want" "\$f" || fail "'\$order' did not print '\$want': \$(cat "\$f")"
    done
    echo "ok: '\$order' printed what the README shows"
}
EOF

# run TITLE: the section's blocks in one bash, from the source-directory stand-in.
run() {
    local script="$tmp/section.sh" nsh=0 ntyped=0
    cp "$tmp/prelude.sh" "$script"
    # A section after the first starts "with the alias of Playing a game".
    [ "$1" = "Playing a game" ] || grep -m1 '^alias warroom=' "$readme" >>"$script"
    for b in $(section "$1"); do
        case "$b" in
        *.sh)
            nsh=$((nsh + 1))
            echo "echo '--- block ${b##*/}'" >>"$script"
            cat "$b" >>"$script"
            ;;
        *.txt)
            first=$(head -n 1 "$b")
            if grep -q '^[a-z:_]*> ' "$b" && ! grep -qv '^[a-z:_]*> ' "$b"; then
                while IFS= read -r l; do
                    seat=${l%%> *}
                    rest=${l#*> }
                    order=$(echo "$rest" | sed 's/   *[^ ].*$//; s/ *$//')
                    comment=$(echo "$rest" | sed -n 's/^.*[^ ]   *\([^ ].*\)$/\1/p')
                    printf 'typed %q %q %q\n' "$seat" "$order" "$comment" >>"$script"
                    ntyped=$((ntyped + 1))
                done <"$b"
            elif [[ $first == "created game "* ]]; then
                printf 'new_output_is <<'\''END_OF_BLOCK'\''\n%s\nEND_OF_BLOCK\n' "$(cat "$b")" >>"$script"
            elif [[ $first == "> "* ]]; then
                printf 'typed_showed %q <<'\''END_OF_BLOCK'\''\n%s\nEND_OF_BLOCK\n' "${first#> }" \
                    "$(tail -n +2 "$b")" >>"$script"
            else
                echo "echo 'not run: ${b##*/}, a picture of a screen (\"$first\")'" >>"$script"
            fi
            ;;
        esac
    done
    [ "$nsh" -gt 0 ] || fail "no command block in section '$1' of $readme"
    echo "=== $1: $nsh command blocks, $ntyped typed lines"
    (cd "$tmp/src" && bash -e "$script" </dev/null) >"$tmp/section.log" 2>&1 ||
        { cat "$tmp/section.log"; fail "section '$1' (above)"; }
    cat "$tmp/section.log"
}

run "Playing a game"
# The teams game was created last; the small game's typed lines were played.
run "Correspondence play"
grep -q '^accepted: game g-[0-9a-f]* is at version 4' "$tmp/section.log" ||
    fail "the French end of the correspondence game was not accepted"
grep -q '^your move in ' "$tmp/section.log" || fail "wait did not return for the Allies"
[ -s "$tmp/src/game.ndjson" ] || fail "export wrote no game.ndjson"
run "Looking at the board"
head -c 5 "$tmp/src/board.svg" | grep -q '^<svg ' || fail "render --svg wrote no SVG"
grep -q '</html>' "$tmp/src/report.html" || fail "render --report wrote no HTML page"
run "Watching a game"
grep -q '^watching game g-[0-9a-f]* on ' "$tmp/section.log" || fail "watch did not watch"
echo "ok: the README's examples ran as written"
