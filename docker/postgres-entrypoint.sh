#!/bin/sh
# The postgres service's start (docker/postgres.Dockerfile): on the first
# start, with an empty $PGDATA, make the cluster and the warroom role and
# database; then run PostgreSQL in the foreground, listening on every
# address of the container (the compose network: docker/compose.yaml
# publishes no port of this service).
#
# Environment: PGDATA (the image sets it), WARROOM_PG_PASSWORD (the warroom
# role's password, read on the first start only).
set -eu

if [ ! -s "$PGDATA/PG_VERSION" ]; then
    : "${WARROOM_PG_PASSWORD:?the warroom role needs a password: set WARROOM_PG_PASSWORD}"
    # --data-checksums: PostgreSQL checks every page it reads (what the
    # SQLite store's per-row checksums do; docs/operations.md, PostgreSQL).
    # Local (socket) connections: the postgres user only, by its Unix user;
    # over TCP: passwords (scram-sha-256).
    initdb -D "$PGDATA" --data-checksums --encoding=UTF8 --locale=C.UTF-8 \
        --username=postgres --auth-local=peer --auth-host=scram-sha-256
    # The warroom role, from any address of the networks this container is
    # on (samenet: the compose network), to its own database only.
    echo "host warroom warroom samenet scram-sha-256" >>"$PGDATA/pg_hba.conf"
    # The role and database, made with a server listening on its socket only.
    pg_ctl -D "$PGDATA" -w -o "-c listen_addresses=''" start
    psql -v ON_ERROR_STOP=1 -U postgres -d postgres -v pw="$WARROOM_PG_PASSWORD" <<'SQL'
CREATE ROLE warroom LOGIN PASSWORD :'pw';
CREATE DATABASE warroom OWNER warroom;
SQL
    pg_ctl -D "$PGDATA" -w -m fast stop
fi

exec postgres -D "$PGDATA" -c listen_addresses='*'
