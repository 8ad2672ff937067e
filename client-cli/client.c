/*
 * client.c - a session with warroomd (client.h).
 */
#include "client.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "scenarios.h"

static void note(struct wrc_client *cl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(struct wrc_client *cl, const char *fmt, ...)
{
    char text[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (cl->on_note)
        cl->on_note(cl->ctx, text);
    else
        fprintf(stderr, "warroom: %s\n", text);
}

/* The views' host: a scenario's "base" by name, as scenarios.h finds it. */
static json_t *host_scenario(void *ctx, const char *name)
{
    (void)ctx;
    return wrc_scenario_resolve(name, NULL);
}

static struct wrc_view *view_of(struct wrc_client *cl, const char *game)
{
    for (int i = 0; i < cl->nviews; i++)
        if (strcmp(cl->views[i].game, game) == 0)
            return &cl->views[i];
    return NULL;
}

int wrc_client_init(struct wrc_client *cl, const struct wrc_opts *o, const char *game)
{
    char err[1400];
    memset(cl, 0, sizeof *cl);
    wrc_track_init(&cl->tr);
    cl->host = (struct wr_host){ NULL, host_scenario, NULL };
    if (wrc_config_open(&cl->cfg, err, sizeof err) != 0) {
        fprintf(stderr, "warroom: %s\n", err);
        return WRC_EXIT_REFUSED;
    }
    const char *url = o->server;
    const json_t *entry = game ? wrc_config_game(&cl->cfg, game) : NULL;
    if (url == NULL)
        url = json_string_value(json_object_get(entry, "server"));
    if (url == NULL && getenv("WARROOM_SERVER") && getenv("WARROOM_SERVER")[0])
        url = getenv("WARROOM_SERVER");
    if (url == NULL)
        url = wrc_config_server(&cl->cfg);
    if (url == NULL)
        url = WRC_DEFAULT_SERVER;
    if (wrc_url_parse(url, &cl->url, err, sizeof err) != 0) {
        fprintf(stderr, "warroom: %s\n", err);
        return WRC_EXIT_USAGE;
    }
    return 0;
}

/* --- connection events ------------------------------------------------------------ */

/* The join message for game: with the config's token, or as a spectator. */
static json_t *join_msg(struct wrc_client *cl, const char *game, int spectate)
{
    const char *token = json_string_value(json_object_get(wrc_config_game(&cl->cfg, game),
                                                          "token"));
    if (token && !spectate)
        return json_pack("{s:s, s:s, s:s}", "type", "join", "game", game, "token", token);
    return json_pack("{s:s, s:s, s:b}", "type", "join", "game", game, "spectate", 1);
}

/* The answer to a reconnection's sync (synced, or a whole state): when the
 * last one is in, the client is online again. A sync sent before another
 * drop and answered after the next welcome is answered after that
 * welcome's own (the server answers in order), hence the floor at 0. */
static void on_resynced(void *ctx, const json_t *answer, int err)
{
    struct wrc_client *cl = ctx;
    (void)answer;
    if (err == WRC_CONN_ECLOSED || cl->resyncing == 0)
        return;
    if (--cl->resyncing == 0 && !cl->outage && cl->on_link)
        cl->on_link(cl->ctx, 1);
}

static void on_open(void *ctx, int reconnected)
{
    struct wrc_client *cl = ctx;
    cl->outage = 0;
    cl->resyncing = 0;
    if (!reconnected)
        return;
    for (int i = 0; i < cl->tr.n; i++) {
        struct wrc_game *g = cl->tr.games[i];
        if (g->state == NULL)
            continue;
        /* Join again (the server forgot us), then sync from what we hold:
         * the state the join brings is skipped, the missed commands come
         * as patches with their events. */
        g->rejoin = 1;
        g->rejoin_from = g->version;
        g->sync_from = g->version;
        wrc_conn_request(cl->conn, join_msg(cl, g->id, g->seat[0] == '\0'), 0, NULL, NULL);
        if (wrc_conn_request(cl->conn, json_pack("{s:s, s:s, s:I}", "type", "sync", "game",
                                                 g->id, "since", (json_int_t)g->version),
                             WRC_TIMEOUT_MS, on_resynced, cl) == 0)
            cl->resyncing++;
    }
    if (cl->resyncing == 0 && cl->on_link)
        cl->on_link(cl->ctx, 1);
}

static void on_message(void *ctx, const json_t *msg)
{
    struct wrc_client *cl = ctx;
    struct wrc_game *g;
    int64_t since = 0;
    enum wrc_track_result r = wrc_track_message(&cl->tr, msg, &g, &since);
    switch (r) {
    case WRC_TRACK_GAP:
        wrc_conn_request(cl->conn, json_pack("{s:s, s:s, s:I}", "type", "sync", "game", g->id,
                                             "since", (json_int_t)since), 0, NULL, NULL);
        break;
    case WRC_TRACK_REJOINED:
        note(cl, "reconnected, resynced from version %lld (the server is at version %lld)",
             (long long)g->rejoin_from,
             (long long)json_integer_value(json_object_get(msg, "version")));
        break;
    case WRC_TRACK_STATE:
    case WRC_TRACK_PATCH: {
        /* The view follows the game: every state, every patched state. */
        struct wrc_view *w = view_of(cl, g->id);
        struct wr_refusal why;
        if (w && wrc_view_feed(w, g->state, g->version, &why) != 0)
            note(cl, "game %s: version %lld does not fit its view: %s", g->id,
                 (long long)g->version, why.message);
        break;
    }
    default:
        break;
    }
    if (r != WRC_TRACK_NONE && r != WRC_TRACK_GAP && cl->on_change)
        cl->on_change(cl->ctx, g, r);
}

static void on_lost(void *ctx, const char *why, int will_retry)
{
    struct wrc_client *cl = ctx;
    if (will_retry) {
        int first = !cl->outage;
        cl->outage = 1;
        if (first) {                /* once per outage, not once per attempt */
            note(cl, "%s; reconnecting...", why);
            if (cl->on_link)
                cl->on_link(cl->ctx, 0);
        }
        return;
    }
    cl->dead = 1;
    snprintf(cl->dead_why, sizeof cl->dead_why, "%s", why);
    if (cl->on_link)
        cl->on_link(cl->ctx, 0);
}

static const struct wrc_conn_handler handler = { on_open, on_message, on_lost };

int wrc_client_connect(struct wrc_client *cl, int reconnect)
{
    char err[400];
    if (uv_loop_init(&cl->loop) != 0) {
        fprintf(stderr, "warroom: cannot start the event loop\n");
        return WRC_EXIT_CONN;
    }
    cl->loop_ready = 1;
    cl->conn = wrc_conn_new(&cl->loop, &cl->url, reconnect, &handler, cl, err, sizeof err);
    if (cl->conn == NULL) {
        fprintf(stderr, "warroom: %s\n", err);
        return WRC_EXIT_CONN;
    }
    wrc_conn_start(cl->conn);
    return 0;
}

int wrc_client_online(const struct wrc_client *cl)
{
    return cl->conn && !cl->dead && !cl->outage && cl->resyncing == 0 &&
           wrc_conn_ready(cl->conn);
}

int wrc_client_send(struct wrc_client *cl, json_t *msg, wrc_answer_cb cb, void *ctx)
{
    if (cl->conn == NULL || cl->dead) {
        json_decref(msg);
        return -1;
    }
    return wrc_conn_request(cl->conn, msg, cb ? WRC_TIMEOUT_MS : 0, cb, ctx);
}

/* --- blocking use -------------------------------------------------------------------- */

struct call {
    int done;
    int err;
    json_t *answer;
};

static void call_done(void *ctx, const json_t *answer, int err)
{
    struct call *c = ctx;
    c->done = 1;
    c->err = err;
    c->answer = answer ? json_incref((json_t *)answer) : NULL;
}

json_t *wrc_client_call(struct wrc_client *cl, json_t *msg, int timeout_ms, int *err)
{
    struct call c = { 0, 0, NULL };
    if (cl->conn == NULL || cl->dead ||
        wrc_conn_request(cl->conn, msg, timeout_ms, call_done, &c) != 0) {
        *err = WRC_CONN_ECLOSED;
        return NULL;
    }
    while (!c.done)
        if (uv_run(&cl->loop, UV_RUN_ONCE) == 0 && !c.done) {
            c.err = WRC_CONN_ECLOSED;       /* nothing left to run */
            break;
        }
    *err = c.err;
    return c.answer;
}

static void on_wait_timeout(uv_timer_t *t)
{
    *(int *)t->data = 1;
}

static void free_timer(uv_handle_t *h)
{
    free(h);
}

int wrc_client_wait(struct wrc_client *cl, int (*done)(void *arg), void *arg, int timeout_ms)
{
    int expired = 0, rc = 0;
    uv_timer_t *t = NULL;
    if (timeout_ms > 0 && (t = malloc(sizeof *t)) != NULL) {
        uv_timer_init(&cl->loop, t);
        t->data = &expired;
        uv_timer_start(t, on_wait_timeout, (uint64_t)timeout_ms, 0);
    }
    for (;;) {
        if (done(arg))
            break;
        if (expired) {
            rc = -1;
            break;
        }
        if (cl->dead) {
            rc = -2;
            break;
        }
        if (uv_run(&cl->loop, UV_RUN_ONCE) == 0 && !done(arg)) {
            rc = -2;
            break;
        }
    }
    if (t) {
        uv_timer_stop(t);
        uv_close((uv_handle_t *)t, free_timer);
    }
    return rc;
}

int wrc_client_conn_error(struct wrc_client *cl, const char *what, int err)
{
    if (err == WRC_CONN_ETIMEOUT)
        fprintf(stderr, "warroom: %s: no answer from %s within %d s\n", what, cl->url.text,
                WRC_TIMEOUT_MS / 1000);
    else
        fprintf(stderr, "warroom: %s: %s\n", what,
                cl->dead_why[0] ? cl->dead_why : "the connection closed");
    return WRC_EXIT_CONN;
}

/* A linked game (docs/protocol.md, create) the config has no seat of,
 * joined as a spectator with answer (its state message, borrowed): its
 * seats are held with the tokens of its parent's seats. When the config
 * holds a seat of the parent, join again with that token; a seat it opens
 * is kept in the config (with the parent's token), so later commands play
 * it. g, or the game as the seat joined it. */
static struct wrc_game *join_linked(struct wrc_client *cl, const char *game, const json_t *answer,
                                    struct wrc_game *g)
{
    const json_t *up = json_object_get(json_object_get(json_object_get(answer, "state"),
                                                       "server"), "parent");
    const char *parent = json_string_value(json_object_get(up, "game"));
    const char *token = parent ? json_string_value(json_object_get(
                                     wrc_config_game(&cl->cfg, parent), "token")) : NULL;
    const char *ruleset = json_string_value(json_object_get(answer, "ruleset"));
    if (token == NULL || ruleset == NULL || wrc_config_game(&cl->cfg, game) != NULL)
        return g;
    int err;
    json_t *a = wrc_client_call(cl, json_pack("{s:s, s:s, s:s}", "type", "join", "game", game,
                                              "token", token), WRC_TIMEOUT_MS, &err);
    const char *type = a ? json_string_value(json_object_get(a, "type")) : NULL;
    if (type && strcmp(type, "state") == 0 && json_is_string(json_object_get(a, "seat"))) {
        json_t *fields = json_pack("{s:s, s:O, s:s, s:s, s:i, s:O}", "server", cl->url.text,
                                   "seat", json_object_get(a, "seat"), "token", token,
                                   "ruleset", ruleset, "seq", 0, "parent", up);
        char errs[400];
        if (fields == NULL || wrc_config_set_game(&cl->cfg, game, fields, errs,
                                                  sizeof errs) != 0)
            fprintf(stderr, "warroom: game %s: the seat is not kept: %s\n", game,
                    fields ? errs : "out of memory");
        json_decref(fields);
        g = wrc_track_get(&cl->tr, game, 0);
    }
    json_decref(a);
    return g;
}

struct wrc_game *wrc_client_join(struct wrc_client *cl, const char *game, int spectate,
                                 int *rc)
{
    int err;
    json_t *a = wrc_client_call(cl, join_msg(cl, game, spectate), WRC_TIMEOUT_MS, &err);
    if (a == NULL) {
        *rc = wrc_client_conn_error(cl, "join", err);
        return NULL;
    }
    const char *type = json_string_value(json_object_get(a, "type"));
    struct wrc_game *g = NULL;
    if (type && strcmp(type, "state") == 0) {
        g = wrc_track_get(&cl->tr, game, 0);
        if (!spectate && !json_is_string(json_object_get(a, "seat")))
            g = join_linked(cl, game, a, g);
    } else {
        fprintf(stderr, "warroom: cannot join game %s: %s: %s\n", game,
                json_string_value(json_object_get(a, "code")),
                json_string_value(json_object_get(a, "message")));
        *rc = WRC_EXIT_REFUSED;
    }
    json_decref(a);
    if (g == NULL && *rc == 0)
        *rc = WRC_EXIT_REFUSED;
    return g;
}

struct wrc_view *wrc_client_view(struct wrc_client *cl, struct wrc_game *g)
{
    struct wrc_view *w = view_of(cl, g->id);
    if (w)
        return w;
    if (cl->nviews == WRC_TRACK_MAX_GAMES) {
        fprintf(stderr, "warroom: following too many games at once (%d)\n", cl->nviews);
        return NULL;
    }
    int err;
    json_t *a = wrc_client_call(cl, json_pack("{s:s, s:s}", "type", "setup", "game", g->id),
                                WRC_TIMEOUT_MS, &err);
    if (a == NULL) {
        wrc_client_conn_error(cl, "setup", err);
        return NULL;
    }
    const char *type = json_string_value(json_object_get(a, "type"));
    if (type == NULL || strcmp(type, "setup") != 0) {
        fprintf(stderr, "warroom: cannot get the setup of game %s: %s: %s\n", g->id,
                json_string_value(json_object_get(a, "code")),
                json_string_value(json_object_get(a, "message")));
        json_decref(a);
        return NULL;
    }
    w = &cl->views[cl->nviews];
    struct wr_refusal why;
    if (wrc_view_open(w, g->id, a, g->seat, &cl->host, &why) != 0) {
        fprintf(stderr, "warroom: cannot show game %s: %s\n", g->id, why.message);
        json_decref(a);
        return NULL;
    }
    json_decref(a);
    cl->nviews++;
    if (wrc_view_feed(w, g->state, g->version, &why) != 0)
        fprintf(stderr, "warroom: game %s: its state does not fit its view: %s\n", g->id,
                why.message);
    return w;
}

void wrc_terminal(int *cols, int *rows, int *color)
{
    struct winsize ws;
    int tty = isatty(STDOUT_FILENO);
    *cols = 80;
    *rows = 24;
    if (tty && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0) {
        *cols = ws.ws_col;
        *rows = ws.ws_row;
    }
    *color = tty && getenv("NO_COLOR") == NULL;
}

static void close_any(uv_handle_t *h, void *arg)
{
    (void)arg;
    if (!uv_is_closing(h))
        uv_close(h, NULL);
}

void wrc_client_release(struct wrc_client *cl)
{
    if (cl->conn) {
        wrc_conn_close(cl->conn);
        uv_run(&cl->loop, UV_RUN_DEFAULT);
        wrc_conn_free(cl->conn);
        cl->conn = NULL;
    }
    if (cl->loop_ready) {
        if (uv_loop_close(&cl->loop) != 0) {
            /* Handles left by a caller: close them and run them out. */
            uv_walk(&cl->loop, close_any, NULL);
            uv_run(&cl->loop, UV_RUN_DEFAULT);
            uv_loop_close(&cl->loop);
        }
        cl->loop_ready = 0;
    }
    for (int i = 0; i < cl->nviews; i++)
        wrc_view_close(&cl->views[i]);
    cl->nviews = 0;
    wrc_track_release(&cl->tr);
    wrc_config_release(&cl->cfg);
}
