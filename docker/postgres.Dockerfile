# PostgreSQL for docker/compose.yaml: Debian 12's postgresql package (15) on
# the same Debian base as docker/Dockerfile's run stage, so that no image but
# that base comes from a registry. Build from this folder:
#   docker build -f docker/postgres.Dockerfile -t warroom-postgres docker
# The cluster is not made here but on the first start, in the volume
# mounted at /var/lib/postgresql/data (docker/postgres-entrypoint.sh).

FROM debian:bookworm-slim
# The package's post-install would make and start a cluster "15/main" of its
# own; it is dropped: the one used is in the volume. The socket folder is
# made here, as the package's tmpfiles.d entry would at boot.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql \
 && rm -rf /var/lib/apt/lists/* \
 && (pg_dropcluster --stop 15 main 2>/dev/null || true) \
 && install -d -o postgres -g postgres -m 2775 /var/run/postgresql \
 && install -d -o postgres -g postgres -m 0700 /var/lib/postgresql/data
# initdb, postgres and pg_isready (the compose healthcheck) by name.
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data
COPY postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint.sh
USER postgres
VOLUME ["/var/lib/postgresql/data"]
EXPOSE 5432
# Fast shutdown (see stop_signal in docker/compose.yaml).
STOPSIGNAL SIGINT
ENTRYPOINT ["/bin/sh", "/usr/local/bin/postgres-entrypoint.sh"]
