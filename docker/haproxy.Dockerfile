# haproxy for docker/compose.yaml: Debian 12's haproxy package (2.6) on the
# same Debian base as docker/Dockerfile's run stage, with docker/haproxy.cfg.
# Build from this folder:
#   docker build -f docker/haproxy.Dockerfile -t warroom-haproxy docker

FROM debian:bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends haproxy \
 && rm -rf /var/lib/apt/lists/*
COPY haproxy.cfg /etc/haproxy/haproxy.cfg
# A configuration haproxy refuses fails the build, not the start.
RUN haproxy -c -q -f /etc/haproxy/haproxy.cfg
# The package's own user; the ports (8080, 8081) need no privilege.
USER haproxy
EXPOSE 8080 8081
# -W: master-worker (a SIGUSR2 to the master reloads the configuration
# without closing connections); -db: in the foreground, for docker.
# SIGTERM (docker's stop) stops at once: the websockets are closed and
# their clients reconnect when haproxy is back.
CMD ["haproxy", "-W", "-db", "-f", "/etc/haproxy/haproxy.cfg"]
