/*
 * server.h - the warroomd process: configuration and the top-level object.
 */
#ifndef WRD_SERVER_H
#define WRD_SERVER_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

struct lws_context;
struct wrd_store;

struct wrd_config {
    char host[64];              /* --listen host part */
    int port;                   /* --listen port part; 0 picks a free port */
    const char *db;             /* --db path of the SQLite store */
    int max_connections;        /* --max-connections */
    size_t max_message;         /* --max-message bytes per inbound message */
    int log_level;              /* --log-level */
};

struct wrd_server {
    struct wrd_config cfg;
    uv_loop_t loop;
    uv_signal_t sigint, sigterm;
    struct lws_context *ctx;
    struct wrd_store *store;
    int port;                   /* the port actually bound */
    int connections;            /* open websocket connections */
    int stopping;
    uint64_t started_ms;
};

/* Fill cfg with defaults, then the WARROOM_* environment, then argv.
 * Returns 0 to run, 1 when --help/--version was served, -1 on a bad option
 * (already reported on stderr). */
int wrd_config_parse(struct wrd_config *cfg, int argc, char **argv);

/* Start the listener on the server's loop; prints the address on stdout. */
int wrd_net_start(struct wrd_server *srv);

/* First half of shutdown, from inside the loop: close every connection. */
void wrd_net_stop(struct wrd_server *srv);

/* Second half, after uv_run() returned: frees the lws context. */
void wrd_net_release(struct wrd_server *srv);

#endif
