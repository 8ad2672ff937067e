/*
 * server.h - the warroomd process: configuration, metrics and the
 * top-level object that the modules share (net, conn, protocol, games,
 * store, notify).
 */
#ifndef WRD_SERVER_H
#define WRD_SERVER_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "datadir.h"
#include "conn.h"
#include "iprange.h"

/* Most entries of --trusted-proxy. */
#define WRD_MAX_TRUSTED_PROXIES 16

struct lws_context;
struct wrd_store;
struct wrd_games;
struct wrd_notifier;
struct wrd_mailer;
struct wrd_net;
struct wrd_conn;
struct wrd_addrs;
struct wrd_web;
struct wrd_catalog;

struct wrd_config {
    char host[64];              /* --listen host part */
    int port;                   /* --listen port part; 0 picks a free port */
    char web_host[64];          /* --web-listen host part ("" : the --listen host) */
    int web_port;               /* --web-listen port; 0 picks a free port; -1: the
                                 * --listen port plus one (0 when that is 0);
                                 * -2: no web port (--web-listen none) */
    int web_named;              /* --web-listen or --web given: failing to serve
                                 * the web client stops the server (else a warning) */
    const char *web_dir;        /* --web directory of the web client's files; by
                                 * default the first of web_dirs that exists */
    struct wr_datadirs web_dirs; /* where the default is looked for (datadir.h) */
    const char *db;             /* --db path of the SQLite store */
    int db_check;               /* --db-check: WRD_STORE_CHECK_* flags of open (0: none) */
    int db_cache_mib;           /* --db-cache: the SQLite store's page cache for writes */
    int verify;                 /* --verify: check every stored game, then exit */
    int cluster;                /* --cluster: one of several servers on one store */
    int test_note_delay_ms;     /* WARROOM_TEST_NOTE_DELAY_MS (tests only; 0 off) */
    int64_t game_idle_ms;       /* --game-idle: a running game idle this long with nobody
                                 * joined leaves memory; 0: never */
    const char *scenarios;      /* --scenarios directory; by default the first of
                                 * scenario_dirs that exists (into it) */
    struct wr_datadirs scenario_dirs; /* where the default is looked for (datadir.h) */
    const char *notify_cmd;     /* --notify-cmd program, or NULL */
    int webhook_max_pending;    /* --webhook-max-pending */
    int webhook_max_per_owner;  /* --webhook-max-per-owner */
    const char *webhook_allow;  /* --webhook-allow list, or NULL */
    int max_connections;        /* --max-connections */
    int max_per_address;        /* --max-per-address */
    int max_handshakes;         /* --max-handshakes: connections not yet websockets */
    int max_handshakes_per_address; /* --max-handshakes-per-address */
    /* --trusted-proxy: the reverse proxies whose X-Forwarded-For names the
     * client a connection is counted at (net.c) */
    struct wrd_iprange trusted_proxy[WRD_MAX_TRUSTED_PROXIES];
    int ntrusted_proxies;
    int handshake_timeout;      /* --handshake-timeout seconds from accept */
    size_t max_message;         /* --max-message bytes per inbound message */
    int max_queue;              /* --max-queue messages per connection */
    int rate;                   /* --rate commands per second per connection */
    int idle_timeout;           /* --idle-timeout seconds */
    int max_games;              /* --max-games: open or running (finished games don't count) */
    int address_rate;           /* --address-rate: request cost units per second per address */
    int max_open_per_address;   /* --max-open-per-address: games with a free seat */
    int max_games_per_address;  /* --max-games-per-address: open or running games */
    int max_views_per_address;  /* --max-views-per-address: ask's views held (ask.h) */
    size_t max_queue_bytes;     /* --max-queue-bytes: bytes queued per connection */
    size_t max_address_bytes;   /* --max-address-bytes: bytes queued per address */
    int send_buffer;            /* --send-buffer bytes (SO_SNDBUF); 0: the kernel's choice */
    int log_level;              /* --log-level */
    const char *tls_cert;       /* --tls-cert PEM file, or NULL: plain ws:// and http:// */
    const char *tls_key;        /* --tls-key PEM file (set exactly when tls_cert is) */
    const char *smtp;           /* --smtp URL, or NULL: no mail (play by email off) */
    const char *smtp_credentials;   /* --smtp-credentials file, or NULL */
    const char *mail_from;      /* --mail-from address (set whenever smtp is) */
    const char *mail_reply;     /* --mail-reply address, or NULL: replies are not read */
    const char *mail_url;       /* --mail-url, or NULL: mails carry no link */
    int mail_retry_ms;          /* --mail-retry-ms; 0: the mailer's default */
    int max_mails_per_address;  /* --max-mails-per-address: confirmation mails an hour */
    int mail_digest_hour;       /* --mail-digest-hour: the digest's hour, UTC */
    int mail_digest_ms;         /* --mail-digest-ms: its period (tests); 0: a day, at the hour */
};

/* Store commit latency buckets, in seconds (Prometheus histogram). */
#define WRD_HIST_BUCKETS 12

struct wrd_metrics {
    uint64_t commands;          /* accepted commands */
    uint64_t rejections;        /* refused messages and commands */
    uint64_t bytes_in, bytes_out;
    /* websocket writes made straight from the flush, and from WRITEABLE
     * callbacks (each of those raised and dropped POLLOUT) */
    uint64_t writes_direct, writes_writeable;
    uint64_t commits;
    double commit_seconds_sum;
    uint64_t commit_buckets[WRD_HIST_BUCKETS];
};

struct wrd_server {
    struct wrd_config cfg;
    uv_loop_t loop;
    uv_signal_t sigint, sigterm;
    uv_prepare_t flush;         /* commits the store batch once per loop iteration */
    struct lws_context *ctx;
    struct wrd_store *store;
    struct wrd_games *games;
    struct wrd_notifier *notifier;
    struct wrd_mailer *mailer;  /* NULL: no --smtp */
    struct wrd_net *net;        /* net.c's own state */
    struct wrd_conn *conns;     /* open websocket connections (conn.c), */
    struct wrd_conn *conns_last; /* oldest first (dlist.h) */
    struct wrd_addrs *addrs;    /* per-address budgets (addr.c) */
    struct wrd_conn_hooks conn_hooks;   /* conn.c's calls up (conn.h) */
    unsigned char *batch;       /* conn.c: the frames of one coalesced write */
    /* conn.c: the connections with something queued to write at the next
     * flush's end (wrd_conn_write_ready), each holding a reference */
    struct wrd_conn **ready;
    int nready, capready;
    uint64_t commits;           /* flushes done: each committed the batch (if any) */
    int delivering;             /* in a flush, after its commit (conn.c's barrier) */
    int committing;             /* a batch is being committed off the loop: what is
                                   queued now waits for the commit after it */
    uv_timer_t grace;           /* shutdown: waits for connections to drain */
    uint64_t grace_started, grace_after;
    int port;                   /* the port actually bound */
    int web_port;               /* the web port actually bound, or -1 */
    struct wrd_web *web;        /* web.c's table of files (web.h), or NULL */
    struct wrd_catalog *catalog; /* the `rulesets` answer (catalog.h), or NULL */
    int connections;            /* open websocket connections */
    int stopping;
    struct wrd_metrics metrics;
};

/* Fill cfg with defaults, then the WARROOM_* environment, then argv.
 * Returns 0 to run, 1 when --help/--version was served, -1 on a bad option
 * (already reported on stderr). */
int wrd_config_parse(struct wrd_config *cfg, int argc, char **argv);
/* Warn (in the log) when cfg's scenario directory is missing, naming every
 * place it was looked for. */
void wrd_config_check_scenarios(const struct wrd_config *cfg);

/* Start the listener on the server's loop; prints the address on stdout. */
int wrd_net_start(struct wrd_server *srv);

/* First half of shutdown, from inside the loop: close every connection. */
void wrd_net_stop(struct wrd_server *srv);

/* Second half, after uv_run() returned: frees the lws context. */
void wrd_net_release(struct wrd_server *srv);

/* Milliseconds since the epoch (wall clock, for records and deadlines). */
int64_t wrd_now_ms(void);

#endif
