#!/bin/sh
# Install what Warroom needs from Debian 12 packages.
#
# One script for the README commands, for .ci/run and for docker/Dockerfile, so
# the three can never drift apart. It is idempotent: when every package of the
# profile is already installed it does nothing and needs no root.
#
#   scripts/deps.sh [build|test|peers|runtime]    (default: build)
#
# "build" is everything needed to compile, fuzz and benchmark (the docker
# build stage); "test" is "build" plus the browser tests' Node.js, Debian's
# chromium, the npm driver of tests/browser and the Colyseus packages of
# tests/peers/colyseus (so it needs the source tree); "peers" is "build" plus
# Node.js and those Colyseus packages (scripts/dev.sh bench --peers);
# "runtime" is what the warroomd/warroom binaries need to run (the docker
# run stage).
set -eu

profile=${1:-build}

runtime_pkgs="libuv1 libwebsockets17 libwebsockets-evlib-uv libjansson4 \
libsqlite3-0 libpq5 libssl3 zlib1g libedit2 libcurl4 ca-certificates curl"

build_pkgs="build-essential cmake ninja-build pkg-config clang \
libclang-rt-14-dev llvm python3 tmux \
libuv1-dev libwebsockets-dev libwebsockets-evlib-uv libjansson-dev \
libsqlite3-dev libpq-dev libssl-dev zlib1g-dev libcmocka-dev libedit-dev sqlite3 \
libcurl4-openssl-dev"

# postgresql: the throw-away cluster of the PostgreSQL tests
# (tests/support/pg_cluster.sh; Debian 12's postgresql-15). haproxy and
# python3-yaml: tests/build/check_compose.sh (haproxy -c on
# docker/haproxy.cfg, docker/compose.yaml read with PyYAML).
test_pkgs="$build_pkgs nodejs chromium python3-aiosmtpd postgresql haproxy python3-yaml"
# npm: Debian's package only where no npm is on the PATH (a Node.js from
# elsewhere brings its own, which Debian's would conflict with).
peers_pkgs="$build_pkgs nodejs"
command -v npm >/dev/null 2>&1 || test_pkgs="$test_pkgs npm" peers_pkgs="$peers_pkgs npm"

case "$profile" in
    build) pkgs=$build_pkgs ;;
    test) pkgs=$test_pkgs ;;
    peers) pkgs=$peers_pkgs ;;
    runtime) pkgs=$runtime_pkgs ;;
    *) echo "usage: $0 [build|test|peers|runtime]" >&2; exit 2 ;;
esac

missing=""
for p in $pkgs; do
    st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    case "$st" in
        *" installed") ;;
        *) missing="$missing $p" ;;
    esac
done

# The browser tests' driver (tests/browser/package.json: playwright-core,
# pinned in its package-lock.json; it drives Debian's chromium, it downloads
# no browser).
browser_npm() {
    [ "$profile" = test ] || return 0
    dir=$(cd "$(dirname "$0")/.." && pwd)/tests/browser
    [ -d "$dir/node_modules/playwright-core" ] && return 0
    echo "deps.sh: npm ci in $dir" >&2
    (cd "$dir" && npm ci --no-audit --no-fund)
}

# The Colyseus 0.16 server and client of tests/peers/colyseus (pinned in its
# package-lock.json), for bench --peers and the peers_colyseus_smoke test;
# again after the lock file changes. No install scripts: the one package
# that has one (msgpackr-extract) only checks for its prebuilt binary, which
# comes as an ordinary npm package, and msgpackr works without it.
peers_npm() {
    [ "$profile" = test ] || [ "$profile" = peers ] || return 0
    dir=$(cd "$(dirname "$0")/.." && pwd)/tests/peers/colyseus
    [ "$dir/node_modules/.package-lock.json" -nt "$dir/package-lock.json" ] && return 0
    echo "deps.sh: npm ci in $dir" >&2
    (cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund)
}

if [ -z "$missing" ]; then
    browser_npm
    peers_npm
    exit 0
fi

echo "deps.sh: installing:$missing" >&2
if [ "$(id -u)" -eq 0 ]; then
    sudo=""
elif command -v sudo >/dev/null 2>&1; then
    sudo="sudo"
else
    echo "deps.sh: missing packages and not root (no sudo): $missing" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing
browser_npm
peers_npm
