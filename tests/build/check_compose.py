#!/usr/bin/env python3
"""What docker/compose.yaml and docker/haproxy.cfg promise, checked without docker.

    check_compose.py DOCKER_DIR

- compose.yaml (read with PyYAML, anchors and merge keys resolved) has a
  postgres service built from postgres.Dockerfile, with a pg_isready
  healthcheck and no published port;
- exactly three warroomd services (built from docker/Dockerfile), each
  started with --cluster (in its command, or WARROOM_CLUSTER=1), on a
  postgres:// store whose host is that postgres service and whose user and
  database are the ones postgres-entrypoint.sh creates, each waiting for the
  postgres service to be healthy;
- a haproxy service built from haproxy.Dockerfile publishing 127.0.0.1:8080;
- haproxy.cfg has `timeout tunnel`, a frontend bound to :8080, and in each
  backend exactly one `server` line per replica (by its service name), each
  with `check`, and an HTTP health check (`option httpchk`).
Prints each failure and exits 1 if there is any; exits 0 otherwise.
"""
import re
import shlex
import sys
import urllib.parse

import yaml

problems = []


def fail(msg):
    problems.append(msg)


def dockerfile(svc):
    b = svc.get("build")
    if isinstance(b, dict):
        return b.get("dockerfile", "Dockerfile")
    return None


def env_of(svc):
    e = svc.get("environment") or {}
    if isinstance(e, list):
        e = dict(x.split("=", 1) if "=" in x else (x, "") for x in e)
    return {k: str(v) for k, v in e.items()}


def command_of(svc):
    c = svc.get("command") or []
    return shlex.split(c) if isinstance(c, str) else [str(x) for x in c]


def main(top):
    with open(f"{top}/compose.yaml") as f:
        compose = yaml.safe_load(f)
    services = compose.get("services") or {}

    # The database the entrypoint creates, and its owner role.
    with open(f"{top}/postgres-entrypoint.sh") as f:
        entry = f.read()
    m_role = re.search(r"CREATE ROLE (\w+) LOGIN", entry)
    m_db = re.search(r"CREATE DATABASE (\w+) OWNER (\w+)", entry)
    if not m_role or not m_db:
        fail("postgres-entrypoint.sh creates no login role or no database")
        role, db = None, None
    else:
        role, db = m_role.group(1), m_db.group(1)
        if m_db.group(2) != role:
            fail(f"database {db} is owned by {m_db.group(2)}, not by the role {role}")
    if "--data-checksums" not in entry:
        fail("postgres-entrypoint.sh runs initdb without --data-checksums")

    pg = [n for n, s in services.items() if dockerfile(s) == "postgres.Dockerfile"]
    if len(pg) != 1:
        fail(f"want one service built from postgres.Dockerfile, found {pg}")
        pg_name = None
    else:
        pg_name = pg[0]
        s = services[pg_name]
        if s.get("ports"):
            fail(f"{pg_name} publishes {s['ports']}: PostgreSQL is for the compose network only")
        test = (s.get("healthcheck") or {}).get("test") or []
        test = " ".join(test) if isinstance(test, list) else str(test)
        if "pg_isready" not in test:
            fail(f"{pg_name}'s healthcheck does not run pg_isready: {test!r}")

    replicas = sorted(n for n, s in services.items() if dockerfile(s) == "docker/Dockerfile")
    if len(replicas) != 3:
        fail(f"want three warroomd services (built from docker/Dockerfile), found {replicas}")
    for n in replicas:
        s = services[n]
        env = env_of(s)
        cmd = command_of(s)
        if "--cluster" not in cmd and env.get("WARROOM_CLUSTER") != "1":
            fail(f"{n} is started without --cluster (command {cmd}, no WARROOM_CLUSTER=1)")
        uri = None
        for i, a in enumerate(cmd):
            if a in ("--db", "-d") and i + 1 < len(cmd):
                uri = cmd[i + 1]
            elif a.startswith("--db="):
                uri = a[5:]
        uri = uri or env.get("WARROOM_DB")
        u = urllib.parse.urlparse(uri or "")
        if u.scheme not in ("postgres", "postgresql"):
            fail(f"{n}'s store is not a postgres:// URI: {uri!r}")
            continue
        if u.hostname != pg_name:
            fail(f"{n}'s store is on host {u.hostname!r}, not the service {pg_name!r}")
        if (u.port or 5432) != 5432:
            fail(f"{n}'s store is on port {u.port}, PostgreSQL's is 5432")
        if u.username != role:
            fail(f"{n} connects as {u.username!r}, the entrypoint's role is {role!r}")
        if u.path.lstrip("/") != db:
            fail(f"{n}'s database is {u.path.lstrip('/')!r}, the entrypoint's is {db!r}")
        dep = s.get("depends_on") or {}
        cond = dep.get(pg_name, {}).get("condition") if isinstance(dep, dict) else None
        if cond != "service_healthy":
            fail(f"{n} does not wait for {pg_name} to be healthy (depends_on: {dep})")

    hp = [n for n, s in services.items() if dockerfile(s) == "haproxy.Dockerfile"]
    if len(hp) != 1:
        fail(f"want one service built from haproxy.Dockerfile, found {hp}")
    elif "127.0.0.1:8080:8080" not in [str(p) for p in services[hp[0]].get("ports") or []]:
        fail(f"{hp[0]} does not publish 127.0.0.1:8080:8080")
    if len(hp) == 1:
        # The replicas count each client at the address haproxy names in
        # X-Forwarded-For only when they trust haproxy's (fixed) address.
        nets = services[hp[0]].get("networks") or {}
        hp_addr = (nets.get("default") or {}).get("ipv4_address") if isinstance(nets, dict) else None
        if not hp_addr:
            fail(f"{hp[0]} has no fixed ipv4_address on the default network")
        for n in replicas:
            trusted = env_of(services[n]).get("WARROOM_TRUSTED_PROXY", "")
            if hp_addr not in [t.strip() for t in trusted.split(",")]:
                fail(f"{n} trusts {trusted!r} as its proxy, haproxy is at {hp_addr!r}")

    # haproxy.cfg: sections and their lines, comments dropped.
    sections = []
    with open(f"{top}/haproxy.cfg") as f:
        for line in f:
            line = line.split("#", 1)[0].rstrip()
            if not line.strip():
                continue
            if not line[0].isspace():
                sections.append((line.split(), []))
            elif sections:
                sections[-1][1].append(line.split())
    if not any(w[:2] == ["option", "forwardfor"] for _, body in sections for w in body):
        fail("haproxy.cfg has no `option forwardfor` (the replicas would count every client "
             "at haproxy's address)")
    if not any(w[:2] == ["timeout", "tunnel"] for _, body in sections for w in body):
        fail("haproxy.cfg has no `timeout tunnel` (websockets would get `timeout client`)")
    fronts = [body for head, body in sections if head[0] == "frontend"]
    if not any(w[0] == "bind" and w[1].endswith(":8080") for body in fronts for w in body):
        fail("no haproxy frontend binds :8080")
    backends = [(head[1], body) for head, body in sections if head[0] == "backend"]
    if not backends:
        fail("haproxy.cfg has no backend")
    for name, body in backends:
        hosts = []
        for w in body:
            if w[0] != "server":
                continue
            host = w[2].rsplit(":", 1)[0]
            hosts.append(host)
            if "check" not in w[3:]:
                fail(f"backend {name}: server {w[1]} ({w[2]}) is not health-checked")
        if sorted(hosts) != replicas:
            fail(f"backend {name} addresses {sorted(hosts)}, the replicas are {replicas}")
        if ["option", "httpchk"] not in [w[:2] for w in body]:
            fail(f"backend {name} has no HTTP health check (option httpchk)")

    for p in problems:
        print(f"check_compose: {p}")
    if not problems:
        print(f"check_compose: {top}: three warroomd ({', '.join(replicas)}) with --cluster "
              f"on {pg_name}'s database {db}, haproxy checks each")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
