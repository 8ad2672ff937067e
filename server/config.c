/*
 * config.c - warroomd options: defaults, then environment, then flags.
 */
#include "server.h"
#include "log.h"
#include "mail.h"
#include "notify.h"
#include "store.h"
#include "warroom_version.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Where the default --scenarios was looked for, as one line. */
static void default_places(const struct wrd_config *cfg, char *buf, size_t len)
{
    const char *dirs[WR_DATADIR_MAX];
    for (int i = 0; i < cfg->scenario_dirs.n; i++)
        dirs[i] = cfg->scenario_dirs.dir[i];
    wr_datadir_join(dirs, cfg->scenario_dirs.n, buf, len);
}

static void usage(FILE *out, const struct wrd_config *cfg)
{
    char places[4 * WR_DATADIR_LEN];
    default_places(cfg, places, sizeof places);
    fprintf(out,
        "usage: warroomd [options]\n"
        "\n"
        "The Warroom game server: holds every game, referees every command with the\n"
        "shared rules library, persists it, and sends state diffs over websockets.\n"
        "\n"
        "options (each also read from the environment variable shown):\n"
        "  -l, --listen HOST:PORT     address to listen on (WARROOM_LISTEN)\n"
        "                             default 127.0.0.1:8080; port 0 picks a free port\n"
        "      --web-listen HOST:PORT the web client's port (WARROOM_WEB_LISTEN); default\n"
        "                             the --listen host and port + 1 (8081), a free port\n"
        "                             when --listen's is 0; 'none': no web port\n"
        "      --web DIR              the web client's files (WARROOM_WEB); default the\n"
        "                             source tree's web/ or <prefix>/share/warroom/web\n"
        "  -d, --db PATH|URI          the store (WARROOM_DB): an SQLite database file,\n"
        "                             default warroom.db, or a PostgreSQL database\n"
        "                             postgres://USER@HOST:PORT/DBNAME; one server per\n"
        "                             database (it is locked while in use), unless\n"
        "                             --cluster\n"
        "      --cluster              one of several servers on one PostgreSQL store\n"
        "                             (WARROOM_CLUSTER=1): each game is owned by one of\n"
        "                             them at a time, any of them serves any game, and\n"
        "                             the games of one that dies are taken over\n"
        "      --db-check none|quick|full  SQLite's check of every page of the database\n"
        "                             at start (WARROOM_DB_CHECK): none (default: a start\n"
        "                             reads only the games it loads, whatever the store\n"
        "                             holds), quick_check, or the slower integrity_check\n"
        "      --db-cache MIB         the SQLite store's page cache for writing, in MiB\n"
        "                             (WARROOM_DB_CACHE), default 8: the pages the games\n"
        "                             being played write to, read again when they are\n"
        "                             not in it; it fills to this bound as the store\n"
        "                             grows (PostgreSQL: its server's own settings)\n"
        "      --verify               check the whole store and exit: integrity_check,\n"
        "                             every row against its checksum and the counts, and\n"
        "                             every game replayed against each of its snapshots;\n"
        "                             exit 0 when all is well, 4 when damaged, 1 when a\n"
        "                             game does not replay\n"
        "      --game-idle SECS       a running game with nobody joined leaves memory\n"
        "                             after SECS without a command (WARROOM_GAME_IDLE),\n"
        "                             default 600; it is read back from the store when\n"
        "                             asked for or due; 0: running games stay in memory\n"
        "      --game-idle-ms MS      the same in milliseconds (for tests)\n"
        "  -s, --scenarios DIR        scenario directory (WARROOM_SCENARIOS), default\n"
        "                             %s (the first that exists of: %s)\n"
        "      --notify-cmd PROGRAM   run PROGRAM with WARROOM_EVENT, WARROOM_GAME,\n"
        "                             WARROOM_SEAT, ... when a seat that is not connected\n"
        "                             is awaited (WARROOM_NOTIFY_CMD)\n"
        "      --webhook-allow HOST[,HOST...]\n"
        "                             let webhooks reach these hosts although they are\n"
        "                             loopback, private, link-local, ... addresses,\n"
        "                             refused otherwise (WARROOM_WEBHOOK_ALLOW): host\n"
        "                             names, IP addresses or CIDR ranges, e.g.\n"
        "                             127.0.0.1,hooks.lan,10.1.0.0/16\n"
        "      --webhook-max-pending N\n"
        "                             webhook notifications pending at once, in flight\n"
        "                             or waiting to retry (WARROOM_WEBHOOK_MAX_PENDING),\n"
        "                             default 1000; when all are taken, a new one takes\n"
        "                             the place of one of the owner holding the most\n"
        "                             (see --webhook-max-per-owner), or is dropped\n"
        "      --webhook-max-per-owner N\n"
        "                             webhook notifications pending at once for the\n"
        "                             seats whose webhooks one client address set\n"
        "                             (WARROOM_WEBHOOK_MAX_PER_OWNER), default 20; a\n"
        "                             seat has at most one, the newest\n"
        "      --max-connections N    most open connections (WARROOM_MAX_CONNECTIONS),\n"
        "                             default 10000\n"
        "      --max-per-address N    most connections from one address\n"
        "                             (WARROOM_MAX_PER_ADDRESS), default 256\n"
        "      --max-handshakes N     most connections not yet websockets (HTTP ones\n"
        "                             included) (WARROOM_MAX_HANDSHAKES), default 1024;\n"
        "                             more are closed as they are accepted\n"
        "      --max-handshakes-per-address N\n"
        "                             the same, from one address\n"
        "                             (WARROOM_MAX_HANDSHAKES_PER_ADDRESS), default 32\n"
        "      --trusted-proxy LIST   reverse proxies (at most 16 addresses or ranges,\n"
        "                             comma-separated: 10.0.0.5,172.16.0.0/12) whose\n"
        "                             connections are counted at the client the proxy\n"
        "                             names last in X-Forwarded-For, for every\n"
        "                             per-address limit but the handshakes'\n"
        "                             (WARROOM_TRUSTED_PROXY); default none: the\n"
        "                             header is ignored\n"
        "      --handshake-timeout SECS\n"
        "                             a connection not a websocket this long after its\n"
        "                             accept is closed, whatever it is doing\n"
        "                             (WARROOM_HANDSHAKE_TIMEOUT), default 5\n"
        "      --max-message BYTES    largest inbound message (WARROOM_MAX_MESSAGE),\n"
        "                             default 65536; larger ones close with code 1009\n"
        "      --max-queue N          messages queued per connection before its patches\n"
        "                             give way to full states (WARROOM_MAX_QUEUE), default\n"
        "                             256\n"
        "      --rate N               commands and creates per second per connection\n"
        "                             (WARROOM_RATE), default 200, bursts of twice that\n"
        "      --idle-timeout SECS    close connections silent that long, pings\n"
        "                             unanswered (WARROOM_IDLE_TIMEOUT), default 120\n"
        "      --max-games N          most games open or running (WARROOM_MAX_GAMES),\n"
        "                             default 100000; an 1815 game holds about 220 kB of\n"
        "                             memory while it runs (finished games leave memory)\n"
        "      --address-rate N       request cost units per second one client address may\n"
        "                             spend, whatever its connections (WARROOM_ADDRESS_RATE),\n"
        "                             default 1000, bursts of a quarter of that (at least\n"
        "                             100; docs/protocol.md, Limits, lists each request's cost)\n"
        "      --max-open-per-address N  games with a seat still free that one address\n"
        "                             may have created (WARROOM_MAX_OPEN_PER_ADDRESS),\n"
        "                             default 20\n"
        "      --max-games-per-address N  games open or running that one address may have\n"
        "                             created (WARROOM_MAX_GAMES_PER_ADDRESS), default 500\n"
        "      --max-views-per-address N  views of games that one address's connections may\n"
        "                             hold for ask (a Waterloo view: about half a megabyte)\n"
        "                             (WARROOM_MAX_VIEWS_PER_ADDRESS), default 32\n"
        "      --max-queue-bytes BYTES  bytes queued to one connection, answers included,\n"
        "                             before its patches give way to full states and then\n"
        "                             it is closed (WARROOM_MAX_QUEUE_BYTES), default 1048576\n"
        "      --max-address-bytes BYTES  the same, summed over one address's connections\n"
        "                             (WARROOM_MAX_ADDRESS_BYTES), default 16777216\n"
        "      --send-buffer BYTES    kernel send buffer of each websocket connection\n"
        "                             (WARROOM_SEND_BUFFER); default 0, the kernel's own\n"
        "                             (up to 4 MB each): a smaller one bounds what slow\n"
        "                             readers hold\n"
        "      --log-level LEVEL      debug, info, warn or error (WARROOM_LOG_LEVEL),\n"
        "                             default info\n"
        "      --tls-cert FILE        serve wss:// and https:// only, with this PEM\n"
        "                             certificate (chain) (WARROOM_TLS_CERT); needs --tls-key\n"
        "      --tls-key FILE         the certificate's PEM private key (WARROOM_TLS_KEY)\n"
        "      --smtp URL             send mail (play by email) through this SMTP server,\n"
        "                             smtp://HOST:PORT (STARTTLS when offered) or\n"
        "                             smtps://HOST:PORT (WARROOM_SMTP); off unless given.\n"
        "                             Its user and password: WARROOM_SMTP_USER and\n"
        "                             WARROOM_SMTP_PASSWORD, or --smtp-credentials\n"
        "      --smtp-credentials FILE  a file whose first line is USER:PASSWORD\n"
        "                             (WARROOM_SMTP_CREDENTIALS)\n"
        "      --mail-from ADDR       the sender of every mail (WARROOM_MAIL_FROM); needed\n"
        "                             with --smtp\n"
        "      --mail-reply ADDR      where replies go (WARROOM_MAIL_REPLY): each mail's\n"
        "                             Reply-To is LOCAL+TAG@DOMAIN, and `warroom mail-in`\n"
        "                             fed what arrives there plays the orders in it;\n"
        "                             without it replies are not read\n"
        "      --mail-url URL         the web page's address, for the link in each mail\n"
        "                             (WARROOM_MAIL_URL), e.g. http://games.example.org:8081/\n"
        "      --max-mails-per-address N  confirmation mails (each to an address a player\n"
        "                             registers) that one client address may ask for in\n"
        "                             an hour (WARROOM_MAX_MAILS_PER_ADDRESS), default 10\n"
        "      --mail-digest-hour H   the hour (UTC, 0-23) of the daily digest\n"
        "                             (WARROOM_MAIL_DIGEST_HOUR), default 7: players who\n"
        "                             chose it get one mail a day per game awaiting them\n"
        "      --mail-digest-ms MS    a digest every MS instead, the first MS from the\n"
        "                             start (for tests)\n"
        "      --mail-retry-ms MS     the first retry of a mail that failed, doubling each\n"
        "                             time, 5 retries (default 30000)\n"
        "  -h, --help                 print this help and exit\n"
        "  -V, --version              print the version and exit\n"
        "\n"
        "exit status: 0 stopped cleanly; 1 could not start (listen, restore, ...);\n"
        "2 bad usage; 3 a commit failed (nothing of it was acknowledged); 4 the\n"
        "database is damaged (refused, not repaired: restore it from a copy); 5 the\n"
        "database cannot be written by this process; 6 another process (warroomd)\n"
        "holds the database.\n", wr_datadir_first(&cfg->scenario_dirs), places);
}

/* HOST:PORT into host (64 bytes) and *port; opt names the option in
 * messages. The one parser of --listen and --web-listen. */
static int parse_hostport(const char *opt, const char *v, char *host, int *portp)
{
    const char *colon = strrchr(v, ':');
    if (colon == NULL || colon == v || (size_t)(colon - v) >= 64) {
        fprintf(stderr, "warroomd: %s wants HOST:PORT, got '%s'\n", opt, v);
        return -1;
    }
    char *end;
    errno = 0;
    long port = strtol(colon + 1, &end, 10);
    if (errno || *end || end == colon + 1 || port < 0 || port > 65535) {
        fprintf(stderr, "warroomd: bad port in %s '%s'\n", opt, v);
        return -1;
    }
    /* "[::1]:8080": the brackets are URL syntax, not part of the address. */
    const char *h = v;
    size_t hl = (size_t)(colon - v);
    if (hl >= 2 && h[0] == '[' && h[hl - 1] == ']') {
        h++;
        hl -= 2;
    }
    memcpy(host, h, hl);
    host[hl] = '\0';
    *portp = (int)port;
    return 0;
}

static int parse_listen(struct wrd_config *cfg, const char *v)
{
    return parse_hostport("--listen", v, cfg->host, &cfg->port);
}

static int parse_web_listen(struct wrd_config *cfg, const char *v)
{
    if (strcmp(v, "none") == 0) {
        cfg->web_port = -2;
        return 0;
    }
    return parse_hostport("--web-listen", v, cfg->web_host, &cfg->web_port);
}

static int parse_long(const char *name, const char *v, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || *end || end == v || n < lo || n > hi) {
        fprintf(stderr, "warroomd: %s wants a number from %ld to %ld, got '%s'\n",
                name, lo, hi, v);
        return -1;
    }
    *out = n;
    return 0;
}

enum { OPT_MAX_CONN = 256, OPT_MAX_MSG, OPT_LOG_LEVEL, OPT_NOTIFY, OPT_PER_ADDR, OPT_QUEUE,
       OPT_RATE, OPT_IDLE, OPT_GAMES, OPT_TLS_CERT, OPT_TLS_KEY, OPT_SNDBUF, OPT_ADDR_RATE,
       OPT_OPEN_PER_ADDR, OPT_GAMES_PER_ADDR, OPT_VIEWS_PER_ADDR, OPT_QUEUE_BYTES, OPT_ADDR_BYTES, OPT_HOOK_PENDING,
       OPT_HOOK_ALLOW, OPT_HOOK_PER_OWNER, OPT_DB_CHECK,
       OPT_HANDSHAKES, OPT_HANDSHAKES_PER_ADDR, OPT_HANDSHAKE_TIMEOUT, OPT_WEB_LISTEN, OPT_WEB_DIR,
       OPT_SMTP, OPT_MAIL_FROM, OPT_MAIL_REPLY, OPT_MAIL_URL, OPT_SMTP_CREDENTIALS,
       OPT_MAIL_RETRY_MS, OPT_MAILS_PER_ADDR, OPT_DIGEST_HOUR, OPT_DIGEST_MS,
       OPT_VERIFY, OPT_GAME_IDLE, OPT_GAME_IDLE_MS, OPT_CLUSTER, OPT_TRUSTED_PROXY,
       OPT_TEST_NOTE_DELAY, OPT_DB_CACHE };

static int apply(struct wrd_config *cfg, int opt, const char *v)
{
    long n;
    switch (opt) {
    case 'l':
        return parse_listen(cfg, v);
    case OPT_WEB_LISTEN:
        cfg->web_named = 1;
        return parse_web_listen(cfg, v);
    case OPT_WEB_DIR:
        if (*v == '\0') {
            fprintf(stderr, "warroomd: --web wants a directory\n");
            return -1;
        }
        cfg->web_dir = v;
        cfg->web_named = 1;
        return 0;
    case 'd':
        if (*v == '\0') {
            fprintf(stderr, "warroomd: --db wants a path or a postgres:// URI\n");
            return -1;
        }
        cfg->db = v;
        return 0;
    case OPT_DB_CHECK:
        if (strcmp(v, "none") == 0)
            cfg->db_check = 0;
        else if (strcmp(v, "quick") == 0)
            cfg->db_check = WRD_STORE_CHECK_QUICK;
        else if (strcmp(v, "full") == 0)
            cfg->db_check = WRD_STORE_CHECK_FULL;
        else {
            fprintf(stderr, "warroomd: --db-check wants none, quick or full, got '%s'\n", v);
            return -1;
        }
        return 0;
    case OPT_DB_CACHE:
        if (parse_long("--db-cache", v, 1, 65536, &n) < 0)
            return -1;
        cfg->db_cache_mib = (int)n;
        return 0;
    case OPT_VERIFY:
        cfg->verify = 1;
        return 0;
    case OPT_CLUSTER:
        /* a flag; from the environment, any value but "0" sets it */
        cfg->cluster = v == NULL || strcmp(v, "0") != 0;
        return 0;
    case OPT_GAME_IDLE:
        if (parse_long("--game-idle", v, 0, 365L * 86400, &n) < 0)
            return -1;
        cfg->game_idle_ms = (int64_t)n * 1000;
        return 0;
    case OPT_GAME_IDLE_MS:
        if (parse_long("--game-idle-ms", v, 0, 365L * 86400 * 1000, &n) < 0)
            return -1;
        cfg->game_idle_ms = n;
        return 0;
    case OPT_MAX_CONN:
        if (parse_long("--max-connections", v, 1, 1000000, &n) < 0)
            return -1;
        cfg->max_connections = (int)n;
        return 0;
    case OPT_MAX_MSG:
        if (parse_long("--max-message", v, 256, 16L << 20, &n) < 0)
            return -1;
        cfg->max_message = (size_t)n;
        return 0;
    case 's':
        if (*v == '\0') {
            fprintf(stderr, "warroomd: --scenarios wants a directory\n");
            return -1;
        }
        cfg->scenarios = v;
        return 0;
    case OPT_NOTIFY:
        cfg->notify_cmd = *v ? v : NULL;
        return 0;
    case OPT_SMTP: {
        const char *why = NULL;
        if (wrd_mail_check_url(v, &why) != 0) {
            fprintf(stderr, "warroomd: --smtp '%s': %s\n", v, why);
            return -1;
        }
        cfg->smtp = v;
        return 0;
    }
    case OPT_MAIL_FROM:
    case OPT_MAIL_REPLY: {
        const char *why = NULL;
        const char *name = opt == OPT_MAIL_FROM ? "--mail-from" : "--mail-reply";
        if (wrd_mail_check_address(v, &why) != 0) {
            fprintf(stderr, "warroomd: %s '%s': %s\n", name, v, why);
            return -1;
        }
        /* the reply address gets "+TAG" in its local part: room for it */
        if (opt == OPT_MAIL_REPLY && strchr(v, '@') - v > 64 - 50) {
            fprintf(stderr, "warroomd: --mail-reply '%s': its local part is too long to "
                    "carry a reply tag (at most 14 characters before the '@')\n", v);
            return -1;
        }
        *(opt == OPT_MAIL_FROM ? &cfg->mail_from : &cfg->mail_reply) = v;
        return 0;
    }
    case OPT_MAIL_URL:
        if (strncmp(v, "http://", 7) != 0 && strncmp(v, "https://", 8) != 0) {
            fprintf(stderr, "warroomd: --mail-url wants an http:// or https:// URL, got "
                    "'%s'\n", v);
            return -1;
        }
        cfg->mail_url = v;
        return 0;
    case OPT_SMTP_CREDENTIALS:
        cfg->smtp_credentials = v;
        return 0;
    case OPT_DIGEST_HOUR:
        if (parse_long("--mail-digest-hour", v, 0, 23, &n) < 0)
            return -1;
        cfg->mail_digest_hour = (int)n;
        return 0;
    case OPT_DIGEST_MS:
        if (parse_long("--mail-digest-ms", v, 10, 86400000, &n) < 0)
            return -1;
        cfg->mail_digest_ms = (int)n;
        return 0;
    case OPT_MAILS_PER_ADDR:
        if (parse_long("--max-mails-per-address", v, 1, 1000000, &n) < 0)
            return -1;
        cfg->max_mails_per_address = (int)n;
        return 0;
    case OPT_MAIL_RETRY_MS:
        if (parse_long("--mail-retry-ms", v, 10, 3600000, &n) < 0)
            return -1;
        cfg->mail_retry_ms = (int)n;
        return 0;
    case OPT_TEST_NOTE_DELAY:
        if (parse_long("WARROOM_TEST_NOTE_DELAY_MS", v, 0, 10000, &n) < 0)
            return -1;
        cfg->test_note_delay_ms = (int)n;
        return 0;
    case OPT_TRUSTED_PROXY: {
        const char *why = NULL;
        int count = wrd_iprange_list(v, cfg->trusted_proxy, WRD_MAX_TRUSTED_PROXIES, &why);
        if (count < 0) {
            fprintf(stderr, "warroomd: --trusted-proxy '%s': %s\n", v, why);
            return -1;
        }
        cfg->ntrusted_proxies = count;
        return 0;
    }
    case OPT_HOOK_ALLOW: {
        const char *why = NULL;
        if (wrd_notify_allow_check(v, &why) < 0) {
            fprintf(stderr, "warroomd: --webhook-allow '%s': %s\n", v, why);
            return -1;
        }
        cfg->webhook_allow = *v ? v : NULL;
        return 0;
    }
    case OPT_HOOK_PENDING:
        if (parse_long("--webhook-max-pending", v, 1, 1000000, &n) < 0)
            return -1;
        cfg->webhook_max_pending = (int)n;
        return 0;
    case OPT_HOOK_PER_OWNER:
        if (parse_long("--webhook-max-per-owner", v, 1, 1000000, &n) < 0)
            return -1;
        cfg->webhook_max_per_owner = (int)n;
        return 0;
    case OPT_PER_ADDR:
        if (parse_long("--max-per-address", v, 1, 1000000, &n) < 0)
            return -1;
        cfg->max_per_address = (int)n;
        return 0;
    case OPT_HANDSHAKES:
        if (parse_long("--max-handshakes", v, 1, 1000000, &n) < 0)
            return -1;
        cfg->max_handshakes = (int)n;
        return 0;
    case OPT_HANDSHAKES_PER_ADDR:
        if (parse_long("--max-handshakes-per-address", v, 1, 1000000, &n) < 0)
            return -1;
        cfg->max_handshakes_per_address = (int)n;
        return 0;
    case OPT_HANDSHAKE_TIMEOUT:
        if (parse_long("--handshake-timeout", v, 1, 300, &n) < 0)
            return -1;
        cfg->handshake_timeout = (int)n;
        return 0;
    case OPT_QUEUE:
        if (parse_long("--max-queue", v, 4, 1000000, &n) < 0)
            return -1;
        cfg->max_queue = (int)n;
        return 0;
    case OPT_RATE:
        if (parse_long("--rate", v, 1, 1000000, &n) < 0)
            return -1;
        cfg->rate = (int)n;
        return 0;
    case OPT_IDLE:
        if (parse_long("--idle-timeout", v, 2, 86400, &n) < 0)
            return -1;
        cfg->idle_timeout = (int)n;
        return 0;
    case OPT_GAMES:
        if (parse_long("--max-games", v, 1, 100000000, &n) < 0)
            return -1;
        cfg->max_games = (int)n;
        return 0;
    case OPT_ADDR_RATE:
        if (parse_long("--address-rate", v, 10, 100000000, &n) < 0)
            return -1;
        cfg->address_rate = (int)n;
        return 0;
    case OPT_OPEN_PER_ADDR:
        if (parse_long("--max-open-per-address", v, 1, 100000000, &n) < 0)
            return -1;
        cfg->max_open_per_address = (int)n;
        return 0;
    case OPT_GAMES_PER_ADDR:
        if (parse_long("--max-games-per-address", v, 1, 100000000, &n) < 0)
            return -1;
        cfg->max_games_per_address = (int)n;
        return 0;
    case OPT_VIEWS_PER_ADDR:
        if (parse_long("--max-views-per-address", v, 1, 1000000, &n) < 0)
            return -1;
        cfg->max_views_per_address = (int)n;
        return 0;
    case OPT_QUEUE_BYTES:
        if (parse_long("--max-queue-bytes", v, 65536, 1L << 30, &n) < 0)
            return -1;
        cfg->max_queue_bytes = (size_t)n;
        return 0;
    case OPT_ADDR_BYTES:
        if (parse_long("--max-address-bytes", v, 65536, 1L << 34, &n) < 0)
            return -1;
        cfg->max_address_bytes = (size_t)n;
        return 0;
    case OPT_SNDBUF:
        if (parse_long("--send-buffer", v, 0, 64L << 20, &n) < 0)
            return -1;
        if (n != 0 && n < 4096) {
            fprintf(stderr, "warroomd: --send-buffer wants 0 or at least 4096 bytes\n");
            return -1;
        }
        cfg->send_buffer = (int)n;
        return 0;
    case OPT_TLS_CERT:
    case OPT_TLS_KEY:
        if (*v == '\0') {
            fprintf(stderr, "warroomd: %s wants a file\n",
                    opt == OPT_TLS_CERT ? "--tls-cert" : "--tls-key");
            return -1;
        }
        *(opt == OPT_TLS_CERT ? &cfg->tls_cert : &cfg->tls_key) = v;
        return 0;
    case OPT_LOG_LEVEL:
        if ((cfg->log_level = wrd_log_parse_level(v)) < 0) {
            fprintf(stderr, "warroomd: --log-level wants debug, info, warn or error\n");
            return -1;
        }
        return 0;
    }
    return -1;
}

static const struct { const char *env; int opt; } env_map[] = {
    { "WARROOM_LISTEN", 'l' },
    { "WARROOM_DB", 'd' },
    { "WARROOM_DB_CHECK", OPT_DB_CHECK },
    { "WARROOM_DB_CACHE", OPT_DB_CACHE },
    { "WARROOM_MAX_CONNECTIONS", OPT_MAX_CONN },
    { "WARROOM_MAX_MESSAGE", OPT_MAX_MSG },
    { "WARROOM_LOG_LEVEL", OPT_LOG_LEVEL },
    { "WARROOM_SCENARIOS", 's' },
    { "WARROOM_NOTIFY_CMD", OPT_NOTIFY },
    { "WARROOM_WEBHOOK_MAX_PENDING", OPT_HOOK_PENDING },
    { "WARROOM_WEBHOOK_ALLOW", OPT_HOOK_ALLOW },
    { "WARROOM_WEBHOOK_MAX_PER_OWNER", OPT_HOOK_PER_OWNER },
    { "WARROOM_MAX_PER_ADDRESS", OPT_PER_ADDR },
    { "WARROOM_MAX_HANDSHAKES", OPT_HANDSHAKES },
    { "WARROOM_MAX_HANDSHAKES_PER_ADDRESS", OPT_HANDSHAKES_PER_ADDR },
    { "WARROOM_TRUSTED_PROXY", OPT_TRUSTED_PROXY },
    /* for the tests only, no option: --cluster reads the store's notes
     * this many ms late (games.c), as on a loaded machine */
    { "WARROOM_TEST_NOTE_DELAY_MS", OPT_TEST_NOTE_DELAY },
    { "WARROOM_HANDSHAKE_TIMEOUT", OPT_HANDSHAKE_TIMEOUT },
    { "WARROOM_MAX_QUEUE", OPT_QUEUE },
    { "WARROOM_RATE", OPT_RATE },
    { "WARROOM_IDLE_TIMEOUT", OPT_IDLE },
    { "WARROOM_MAX_GAMES", OPT_GAMES },
    { "WARROOM_SEND_BUFFER", OPT_SNDBUF },
    { "WARROOM_ADDRESS_RATE", OPT_ADDR_RATE },
    { "WARROOM_MAX_OPEN_PER_ADDRESS", OPT_OPEN_PER_ADDR },
    { "WARROOM_MAX_GAMES_PER_ADDRESS", OPT_GAMES_PER_ADDR },
    { "WARROOM_MAX_VIEWS_PER_ADDRESS", OPT_VIEWS_PER_ADDR },
    { "WARROOM_MAX_QUEUE_BYTES", OPT_QUEUE_BYTES },
    { "WARROOM_MAX_ADDRESS_BYTES", OPT_ADDR_BYTES },
    { "WARROOM_TLS_CERT", OPT_TLS_CERT },
    { "WARROOM_WEB_LISTEN", OPT_WEB_LISTEN },
    { "WARROOM_WEB", OPT_WEB_DIR },
    { "WARROOM_TLS_KEY", OPT_TLS_KEY },
    { "WARROOM_SMTP", OPT_SMTP },
    { "WARROOM_MAIL_FROM", OPT_MAIL_FROM },
    { "WARROOM_MAIL_REPLY", OPT_MAIL_REPLY },
    { "WARROOM_MAIL_URL", OPT_MAIL_URL },
    { "WARROOM_SMTP_CREDENTIALS", OPT_SMTP_CREDENTIALS },
    { "WARROOM_MAX_MAILS_PER_ADDRESS", OPT_MAILS_PER_ADDR },
    { "WARROOM_MAIL_DIGEST_HOUR", OPT_DIGEST_HOUR },
    { "WARROOM_GAME_IDLE", OPT_GAME_IDLE },
    { "WARROOM_CLUSTER", OPT_CLUSTER },
};

int wrd_config_parse(struct wrd_config *cfg, int argc, char **argv)
{
    static const struct option longopts[] = {
        { "listen", required_argument, NULL, 'l' },
        { "web-listen", required_argument, NULL, OPT_WEB_LISTEN },
        { "web", required_argument, NULL, OPT_WEB_DIR },
        { "db", required_argument, NULL, 'd' },
        { "db-check", required_argument, NULL, OPT_DB_CHECK },
        { "max-connections", required_argument, NULL, OPT_MAX_CONN },
        { "max-message", required_argument, NULL, OPT_MAX_MSG },
        { "log-level", required_argument, NULL, OPT_LOG_LEVEL },
        { "scenarios", required_argument, NULL, 's' },
        { "notify-cmd", required_argument, NULL, OPT_NOTIFY },
        { "webhook-max-pending", required_argument, NULL, OPT_HOOK_PENDING },
        { "webhook-allow", required_argument, NULL, OPT_HOOK_ALLOW },
        { "webhook-max-per-owner", required_argument, NULL, OPT_HOOK_PER_OWNER },
        { "max-per-address", required_argument, NULL, OPT_PER_ADDR },
        { "max-handshakes", required_argument, NULL, OPT_HANDSHAKES },
        { "max-handshakes-per-address", required_argument, NULL, OPT_HANDSHAKES_PER_ADDR },
        { "trusted-proxy", required_argument, NULL, OPT_TRUSTED_PROXY },
        { "handshake-timeout", required_argument, NULL, OPT_HANDSHAKE_TIMEOUT },
        { "max-queue", required_argument, NULL, OPT_QUEUE },
        { "rate", required_argument, NULL, OPT_RATE },
        { "idle-timeout", required_argument, NULL, OPT_IDLE },
        { "max-games", required_argument, NULL, OPT_GAMES },
        { "send-buffer", required_argument, NULL, OPT_SNDBUF },
        { "address-rate", required_argument, NULL, OPT_ADDR_RATE },
        { "max-open-per-address", required_argument, NULL, OPT_OPEN_PER_ADDR },
        { "max-games-per-address", required_argument, NULL, OPT_GAMES_PER_ADDR },
        { "max-views-per-address", required_argument, NULL, OPT_VIEWS_PER_ADDR },
        { "max-queue-bytes", required_argument, NULL, OPT_QUEUE_BYTES },
        { "max-address-bytes", required_argument, NULL, OPT_ADDR_BYTES },
        { "tls-cert", required_argument, NULL, OPT_TLS_CERT },
        { "tls-key", required_argument, NULL, OPT_TLS_KEY },
        { "smtp", required_argument, NULL, OPT_SMTP },
        { "mail-from", required_argument, NULL, OPT_MAIL_FROM },
        { "mail-reply", required_argument, NULL, OPT_MAIL_REPLY },
        { "mail-url", required_argument, NULL, OPT_MAIL_URL },
        { "smtp-credentials", required_argument, NULL, OPT_SMTP_CREDENTIALS },
        { "mail-retry-ms", required_argument, NULL, OPT_MAIL_RETRY_MS },
        { "max-mails-per-address", required_argument, NULL, OPT_MAILS_PER_ADDR },
        { "mail-digest-hour", required_argument, NULL, OPT_DIGEST_HOUR },
        { "mail-digest-ms", required_argument, NULL, OPT_DIGEST_MS },
        { "db-cache", required_argument, NULL, OPT_DB_CACHE },
        { "verify", no_argument, NULL, OPT_VERIFY },
        { "cluster", no_argument, NULL, OPT_CLUSTER },
        { "game-idle", required_argument, NULL, OPT_GAME_IDLE },
        { "game-idle-ms", required_argument, NULL, OPT_GAME_IDLE_MS },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 },
    };

    memset(cfg, 0, sizeof *cfg);
    strcpy(cfg->host, "127.0.0.1");
    cfg->port = 8080;
    cfg->web_port = -1;
    wr_datadir_web(&cfg->web_dirs);
    cfg->web_dir = wr_datadir_first(&cfg->web_dirs);
    cfg->db = "warroom.db";
    cfg->max_connections = 10000;
    cfg->max_message = 65536;
    wr_datadir_scenarios(&cfg->scenario_dirs);
    cfg->scenarios = wr_datadir_first(&cfg->scenario_dirs);
    cfg->max_per_address = 256;
    cfg->webhook_max_pending = WRD_NOTIFY_DEFAULT_MAX_PENDING;
    cfg->webhook_max_per_owner = WRD_NOTIFY_DEFAULT_MAX_PER_OWNER;
    cfg->max_handshakes = 1024;
    cfg->max_handshakes_per_address = 32;
    cfg->handshake_timeout = 5;
    cfg->max_queue = 256;
    cfg->rate = 200;
    cfg->idle_timeout = 120;
    cfg->max_games = 100000;
    cfg->game_idle_ms = 600000;
    /* At 1,000 games x 3 spectators a cache of 1 MiB read 3.6 pages back
     * per command, 8 MiB 0.2, for 7 MB more (docs/reliability.md) */
    cfg->db_cache_mib = 8;
    cfg->address_rate = 1000;
    cfg->max_open_per_address = 20;
    cfg->max_games_per_address = 500;
    cfg->max_views_per_address = 32;
    cfg->max_mails_per_address = 10;
    cfg->mail_digest_hour = 7;
    cfg->max_queue_bytes = 1 << 20;
    cfg->max_address_bytes = 16 << 20;
    cfg->log_level = WRD_LOG_INFO;

    for (size_t i = 0; i < sizeof env_map / sizeof env_map[0]; i++) {
        const char *v = getenv(env_map[i].env);
        if (v != NULL && *v != '\0' && apply(cfg, env_map[i].opt, v) < 0) {
            fprintf(stderr, "warroomd: (from %s)\n", env_map[i].env);
            return -1;
        }
    }

    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "l:d:s:hV", longopts, NULL)) != -1) {
        switch (opt) {
        case 'h':
            usage(stdout, cfg);
            return 1;
        case 'V':
            printf("warroomd %s (protocol %d)\n", WARROOM_VERSION, WARROOM_PROTOCOL_VERSION);
            return 1;
        case '?':
            usage(stderr, cfg);
            return -1;
        default:
            if (apply(cfg, opt, optarg) < 0)
                return -1;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "warroomd: unexpected argument '%s' (see --help)\n", argv[optind]);
        return -1;
    }
    if (cfg->web_host[0] == '\0')
        strcpy(cfg->web_host, cfg->host);
    if (cfg->web_port == -1)
        cfg->web_port = cfg->port == 0 || cfg->port == 65535 ? 0 : cfg->port + 1;
    if (cfg->smtp && cfg->mail_from == NULL) {
        fprintf(stderr, "warroomd: --smtp needs --mail-from (the sender of every mail)\n");
        return -1;
    }
    if (cfg->smtp == NULL && (cfg->mail_from || cfg->mail_reply)) {
        fprintf(stderr, "warroomd: --mail-from and --mail-reply need --smtp\n");
        return -1;
    }
    if ((cfg->tls_cert == NULL) != (cfg->tls_key == NULL)) {
        fprintf(stderr, "warroomd: --tls-cert and --tls-key go together\n");
        return -1;
    }
    return 0;
}

void wrd_config_check_scenarios(const struct wrd_config *cfg)
{
    struct stat st;
    if (stat(cfg->scenarios, &st) == 0 && S_ISDIR(st.st_mode))
        return;
    char places[4 * WR_DATADIR_LEN];
    if (cfg->scenarios == wr_datadir_first(&cfg->scenario_dirs))
        default_places(cfg, places, sizeof places);
    else
        wr_datadir_join(&cfg->scenarios, 1, places, sizeof places);
    wrd_warn("no scenario directory", "searched=\"%s\" effect=\"games that need a scenario "
             "are refused; set --scenarios\"", places);
}
