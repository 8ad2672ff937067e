#!/bin/sh
# A throw-away PostgreSQL cluster for the tests, on loopback.
#
#   tests/support/pg_cluster.sh start DIR [URIFILE]   make and start a cluster in DIR
#                                                      (which must not exist); print its
#                                                      base URI (and write it to URIFILE)
#   tests/support/pg_cluster.sh stop DIR              stop it and remove DIR
#
# The cluster: initdb --data-checksums, trust authentication on 127.0.0.1
# only (no other host line, no password), listen_addresses=127.0.0.1 on a
# free port, its unix socket inside DIR, fsync=on. PostgreSQL refuses to run
# as root: run as root (as CI does), the cluster belongs to the system user
# warroom-test (made with useradd --system when missing); otherwise to the
# user running this. The base URI is postgres://USER@127.0.0.1:PORT (add
# /DBNAME for a database; "postgres" always exists).
set -eu

bindir=${PG_BINDIR:-}
if [ -z "$bindir" ]; then
    for d in /usr/lib/postgresql/*/bin; do
        [ -x "$d/initdb" ] && bindir=$d
    done
fi
if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
    echo "pg_cluster.sh: no PostgreSQL server (initdb) found: install Debian's postgresql" \
         "(scripts/deps.sh test)" >&2
    exit 1
fi

usage() {
    echo "usage: $0 start DIR [URIFILE] | stop DIR" >&2
    exit 2
}

[ $# -ge 2 ] || usage
cmd=$1
dir=$2

# as_owner CMD...: run a command as the cluster's owner.
if [ "$(id -u)" -eq 0 ]; then
    owner=warroom-test
    as_owner() {
        setpriv --reuid="$owner" --regid="$owner" --clear-groups -- "$@"
    }
else
    owner=$(id -un)
    as_owner() {
        "$@"
    }
fi

case "$cmd" in
start)
    uri_file=${3:-}
    if [ -e "$dir" ]; then
        echo "pg_cluster.sh: $dir exists; stop the cluster there first" >&2
        exit 1
    fi
    if [ "$(id -u)" -eq 0 ] && ! id "$owner" >/dev/null 2>&1; then
        useradd --system --no-create-home --shell /usr/sbin/nologin "$owner"
    fi
    mkdir -p "$dir"
    [ "$(id -u)" -eq 0 ] && chown "$owner:$owner" "$dir"
    as_owner "$bindir/initdb" --pgdata="$dir/data" --data-checksums --auth=reject \
        --username="$owner" --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 || {
        cat "$dir/initdb.log" >&2
        exit 1
    }
    # Trust on loopback TCP only: every other connection is refused.
    printf 'host all all 127.0.0.1/32 trust\n' >"$dir/data/pg_hba.conf"
    tries=0
    while :; do
        tries=$((tries + 1))
        port=$(python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()')
        if as_owner "$bindir/pg_ctl" --pgdata="$dir/data" --log="$dir/server.log" \
            --options="-c listen_addresses=127.0.0.1 -c port=$port -c fsync=on \
-c unix_socket_directories=$dir -c max_connections=200" \
            --wait --timeout=60 start >/dev/null 2>&1; then
            break
        fi
        if [ "$tries" -ge 5 ]; then
            echo "pg_cluster.sh: the server did not start (5 ports tried):" >&2
            tail -n 20 "$dir/server.log" >&2
            exit 1
        fi
    done
    # Ready when it answers on its TCP port: a poll with a deadline of 30 s.
    deadline=$(($(date +%s) + 30))
    until "$bindir/pg_isready" --host=127.0.0.1 --port="$port" --timeout=2 >/dev/null 2>&1; do
        if [ "$(date +%s)" -ge "$deadline" ]; then
            echo "pg_cluster.sh: the server on port $port is not ready after 30 s" >&2
            exit 1
        fi
        sleep 0.1
    done
    uri="postgres://$owner@127.0.0.1:$port"
    [ -n "$uri_file" ] && printf '%s\n' "$uri" >"$uri_file"
    printf '%s\n' "$uri"
    ;;
stop)
    if [ -f "$dir/data/postmaster.pid" ]; then
        # a cluster left by a killed run may have no server any more
        as_owner "$bindir/pg_ctl" --pgdata="$dir/data" --mode=fast --wait stop >/dev/null || true
    fi
    rm -rf "$dir"
    ;;
*)
    usage
    ;;
esac
