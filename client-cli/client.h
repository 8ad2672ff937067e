/*
 * client.h - one session with warroomd, shared by the one-shot commands and
 * the interactive mode: the libuv loop, the connection (conn.h), the config
 * (config.h), the games followed (track.h) and a view of each (view.h:
 * its ruleset's presentation, present.h).
 *
 * Which server: --server, else the server recorded with the game in the
 * config, else $WARROOM_SERVER, else the config's "server", else
 * ws://127.0.0.1:8080/.
 *
 * Two ways to use it:
 *   - blocking (one-shot commands, from the top level only): wrc_client_call
 *     sends a message and runs the loop until its answer arrives;
 *     wrc_client_wait runs the loop until a condition holds. Never call
 *     them from inside a loop callback.
 *   - event-driven (interactive mode): wrc_client_send with a callback, and
 *     the on_change / on_note hooks, with uv_run() run by the caller.
 *
 * On reconnection (when enabled) every followed game is joined again and
 * synced from the version held, and the note "reconnected, resynced from
 * version N" is given.
 *
 * Online: the connection is up and, after a reconnection, every followed
 * game has had its sync answered (the state held is the server's again).
 * Only then does interactive mode send an order: one typed while offline is
 * refused, never queued (play.c). The on_link hook says when that changes:
 * up 0 once per outage (after the "reconnecting..." note), up 1 once the
 * resync is done. Requests already sent when the connection dropped are
 * kept by the connection and sent again after the resync's (conn.h: a
 * command keeps its seq, which the server never applies twice).
 */
#ifndef WRC_CLIENT_H
#define WRC_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "config.h"
#include "conn.h"
#include "track.h"
#include "url.h"
#include "view.h"

#define WRC_TIMEOUT_MS 30000    /* time allowed for any one answer */

/* Exit codes of the one-shot commands. */
enum { WRC_EXIT_OK = 0, WRC_EXIT_REFUSED = 1, WRC_EXIT_USAGE = 2, WRC_EXIT_CONN = 3 };

/* Options every command takes (main.c, then the command's own). */
struct wrc_opts {
    const char *server;         /* --server, or NULL */
    int json;                   /* --json */
};

struct wrc_client {
    uv_loop_t loop;
    int loop_ready;
    struct wrc_config cfg;
    struct wrc_url url;
    struct wrc_conn *conn;
    struct wrc_tracker tr;
    /* A view per followed game, opened by wrc_client_view() and fed every
     * state the tracker holds (on_message); the host its views borrow
     * (scenarios looked up by name, as scenarios.h says). */
    struct wrc_view views[WRC_TRACK_MAX_GAMES];
    int nviews;
    struct wr_host host;
    int dead;                   /* the connection is gone for good */
    int outage;                 /* the connection dropped and is being tried again */
    int resyncing;              /* syncs of a reconnection not yet answered */
    char dead_why[400];
    /* hooks (may be NULL); ctx is the caller's */
    void (*on_change)(void *ctx, struct wrc_game *g, int what);  /* enum wrc_track_result */
    void (*on_note)(void *ctx, const char *text);
    void (*on_link)(void *ctx, int up);         /* see "Online" above */
    void *ctx;
};

/* Load the config and pick the server (for game, which may be NULL).
 * Returns 0, or an exit code (usage: a bad URL; refused: the config) with
 * the reason printed on stderr. Connects nothing yet. */
int wrc_client_init(struct wrc_client *cl, const struct wrc_opts *o, const char *game);

/* Start the loop and the connection (reconnect: keep trying when it drops).
 * Returns 0 or WRC_EXIT_CONN (printed). */
int wrc_client_connect(struct wrc_client *cl, int reconnect);

/* Send msg (stolen) with an answer callback (may be NULL). 0 or -1 (gone). */
int wrc_client_send(struct wrc_client *cl, struct json_t *msg, wrc_answer_cb cb, void *ctx);

/* 1 when online (see above): an order sent now goes out at once, judged
 * by the server against the state this client holds; else 0. */
int wrc_client_online(const struct wrc_client *cl);

/* Blocking: send msg (stolen) and return its answer (new reference), or
 * NULL with *err WRC_CONN_ETIMEOUT / WRC_CONN_ECLOSED. */
struct json_t *wrc_client_call(struct wrc_client *cl, struct json_t *msg, int timeout_ms, int *err);

/* Blocking: run the loop until done(arg) returns non-zero (0), timeout_ms
 * passes (-1; 0 means no limit) or the connection is gone for good (-2). */
int wrc_client_wait(struct wrc_client *cl, int (*done)(void *arg), void *arg, int timeout_ms);

/* Blocking: join game with the seat token the config holds for it (or as a
 * spectator when it holds none, or when spectate is set) and wait for its
 * state. A linked game the config holds no seat of, whose parent it holds a
 * seat of, is joined again with the parent seat's token (a child's seats are
 * held with its parent's tokens), and the seat that opens is kept in the
 * config. Returns the game, or NULL with the reason printed and *rc set. */
struct wrc_game *wrc_client_join(struct wrc_client *cl, const char *game, int spectate,
                                 int *rc);

/* Blocking: the view of game g, joined already: the first time, asks the
 * server for the game's setup (kept in memory for the session), opens the
 * ruleset's view for g's seat and feeds it g's state; later, the view held
 * (fed by every state and patch since). NULL with the reason printed (the
 * server's refusal, a ruleset this client does not know, a scenario the
 * view refuses). Valid until wrc_client_release(). */
struct wrc_view *wrc_client_view(struct wrc_client *cl, struct wrc_game *g);

/* The room a picture has on standard output: the terminal's columns and
 * lines (80 by 24 when it is not a terminal), and whether to use colours
 * (a terminal, and NO_COLOR not set). */
void wrc_terminal(int *cols, int *rows, int *color);

/* Print a failed call's reason (timeout or connection) and return
 * WRC_EXIT_CONN. */
int wrc_client_conn_error(struct wrc_client *cl, const char *what, int err);

/* Close the connection, run the loop out, free everything. */
void wrc_client_release(struct wrc_client *cl);

#endif
