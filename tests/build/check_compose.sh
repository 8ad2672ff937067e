#!/bin/sh
# docker/compose.yaml and docker/haproxy.cfg, checked without docker
# (docs/operations.md, "Several servers on one PostgreSQL"):
#   - tests/build/check_compose.py DOCKER_DIR passes on docker/: three
#     warroomd with --cluster on the postgres service's database, a server
#     line with `check` per replica in each haproxy backend, ...;
#   - `haproxy -c -f docker/haproxy.cfg` accepts the configuration (the
#     replicas' names need not resolve: init-addr ... none). haproxy must be
#     installed (scripts/deps.sh test): a missing haproxy fails the test;
#   - each of a few broken copies of docker/ fails one of the two checks,
#     so that neither can pass whatever it is given.
#   check_compose.sh SOURCE_DIR
set -eu
src=$(cd "$1" && pwd -P)
here=$(cd "$(dirname "$0")" && pwd -P)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

command -v haproxy >/dev/null 2>&1 ||
    fail "haproxy is not installed (scripts/deps.sh test installs Debian's haproxy)"
python3 -c 'import yaml' 2>/dev/null ||
    fail "python3's yaml module is missing (scripts/deps.sh test installs python3-yaml)"

# check DIR: both checks on DIR; 0 when both pass. Their output goes to
# $tmp/out.
check() {
    python3 "$here/check_compose.py" "$1" >"$tmp/out" 2>&1 || return 1
    haproxy -c -f "$1/haproxy.cfg" >>"$tmp/out" 2>&1 || return 1
}

check "$src/docker" || { cat "$tmp/out" >&2; fail "docker/ does not pass"; }
cat "$tmp/out"
echo "ok: docker/compose.yaml and docker/haproxy.cfg pass"

# mutant NAME FILE SED: a copy of docker/ with SED applied to FILE must
# fail (and SED must have changed FILE).
mutant() {
    rm -rf "$tmp/d"
    cp -R "$src/docker" "$tmp/d"
    sed "$3" "$src/docker/$2" >"$tmp/d/$2"
    ! cmp -s "$src/docker/$2" "$tmp/d/$2" || fail "mutant '$1': '$3' changed nothing in $2"
    if check "$tmp/d"; then
        cat "$tmp/out" >&2
        fail "mutant '$1' passes"
    fi
    echo "ok: mutant '$1' fails: $(grep -m1 -E 'ALERT|check_compose: [^/]' "$tmp/out" || head -1 "$tmp/out")"
}
mutant "no --cluster" compose.yaml 's/command: \["--cluster"\]/command: []/'
mutant "a replica fewer" compose.yaml '/^  warroomd3:$/,/^    <<: \*warroomd$/d'
mutant "store on another host" compose.yaml 's|@postgres:5432/|@db:5432/|'
mutant "another database" compose.yaml 's|:5432/warroom$|:5432/games|'
mutant "postgres not awaited" compose.yaml 's/condition: service_healthy/condition: service_started/'
mutant "a server line fewer" haproxy.cfg '/server warroomd3 warroomd3:8080 check/d'
mutant "a server unchecked" haproxy.cfg 's/server warroomd2 warroomd2:8081 check/server warroomd2 warroomd2:8081/'
mutant "no timeout tunnel" haproxy.cfg '/timeout tunnel/d'
mutant "haproxy refuses it" haproxy.cfg 's/balance source/balance fewest/'
mutant "no X-Forwarded-For" haproxy.cfg '/option forwardfor/d'
mutant "another proxy trusted" compose.yaml 's/WARROOM_TRUSTED_PROXY: 172.30.80.10/WARROOM_TRUSTED_PROXY: 172.30.80.11/'
echo "ok: every mutant fails"
