/*
 * conn.c - the client's websocket: libwebsockets on a foreign libuv loop
 * (conn.h). The lws pitfalls this file works around are in
 * docs/stack-notes.md: <uv.h> before <libwebsockets.h>, one
 * lws_write() per WRITEABLE, no shared client buffers (masking is done in
 * place), CLIENT_CONNECTION_ERROR not followed by CLIENT_CLOSED, close
 * frames dropped when a callback returns -1 on libuv (so the frame is
 * written by hand), and the two-step context destroy.
 */
#include <uv.h>                 /* before libwebsockets.h (stack-notes 16) */
#include <libwebsockets.h>

#include "conn.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "warroom_version.h"

#define MAX_INBOUND ((size_t)64 << 20)
#define RETRY_FIRST_MS 250
#define RETRY_MAX_MS 8000
#define CLOSE_GRACE_MS 1000

struct req {
    struct req *next;
    json_t *msg;                /* owned, carries "id" */
    int64_t id;
    int is_command, is_join;
    int64_t seq;                /* commands */
    char game[64];              /* commands and joins */
    uint64_t deadline;          /* uv_now() ms, 0: none */
    int sent;
    wrc_answer_cb cb;           /* NULL: no answer wanted */
    void *ctx;
};

struct wrc_conn {
    uv_loop_t *loop;
    struct lws_context *ctx;
    struct lws *wsi;            /* the websocket while it is up */
    struct wrc_url url;
    char host_header[300];
    const struct wrc_conn_handler *h;
    void *hctx;
    int reconnect;
    int connecting;             /* a connection attempt is under way */
    int hello_pending;          /* the websocket is up, hello not yet written */
    int ready;                  /* welcome received on this socket */
    int ever_ready;
    int dead;                   /* closed for good (no reconnection) */
    int closing;                /* wrc_conn_close() was called */
    int destroyed;              /* the context's first destroy is done */
    int close_frame_asked;      /* closing: the close frame was asked for */
    int attempts;               /* failed attempts since the last welcome */
    uv_timer_t retry_timer, deadline_timer, close_timer;
    struct req *reqs;
    int64_t next_id;
    char *in;
    size_t in_len, in_cap;
    char close_reason[160];     /* what the server said when it closed */
};

/* --- requests -------------------------------------------------------------------- */

static void req_free(struct req *r)
{
    json_decref(r->msg);
    free(r);
}

static void unlink_req(struct wrc_conn *c, struct req *r)
{
    for (struct req **p = &c->reqs; *p; p = &(*p)->next)
        if (*p == r) {
            *p = r->next;
            r->next = NULL;
            return;
        }
}

static void on_deadline(uv_timer_t *t);

static void rearm_deadline(struct wrc_conn *c)
{
    if (c->closing)
        return;
    uint64_t first = 0;
    for (struct req *r = c->reqs; r; r = r->next)
        if (r->deadline && (first == 0 || r->deadline < first))
            first = r->deadline;
    if (first == 0) {
        uv_timer_stop(&c->deadline_timer);
        return;
    }
    uint64_t now = uv_now(c->loop);
    uv_timer_start(&c->deadline_timer, on_deadline, first > now ? first - now : 0, 0);
}

static void on_deadline(uv_timer_t *t)
{
    struct wrc_conn *c = t->data;
    uint64_t now = uv_now(c->loop);
    for (;;) {
        struct req *due = NULL;
        for (struct req *r = c->reqs; r && !due; r = r->next)
            if (r->deadline && r->deadline <= now)
                due = r;
        if (due == NULL)
            break;
        unlink_req(c, due);
        if (due->cb)
            due->cb(due->ctx, NULL, WRC_CONN_ETIMEOUT);
        req_free(due);
    }
    rearm_deadline(c);
}

/* Fail (closed for good) or drop (closing) every request. */
static void end_requests(struct wrc_conn *c, int call)
{
    while (c->reqs) {
        struct req *r = c->reqs;
        c->reqs = r->next;
        if (call && r->cb)
            r->cb(r->ctx, NULL, WRC_CONN_ECLOSED);
        req_free(r);
    }
}

static void kick(struct wrc_conn *c)
{
    if (c->wsi && (c->hello_pending || c->ready || c->closing))
        lws_callback_on_writable(c->wsi);
}

int wrc_conn_request(struct wrc_conn *c, json_t *msg, int timeout_ms, wrc_answer_cb cb,
                     void *ctx)
{
    if (c->dead || c->closing || msg == NULL) {
        json_decref(msg);
        return -1;
    }
    struct req *r = calloc(1, sizeof *r);
    if (r == NULL) {
        json_decref(msg);
        return -1;
    }
    r->msg = msg;
    r->id = ++c->next_id;
    json_object_set_new(msg, "id", json_integer(r->id));
    const char *type = json_string_value(json_object_get(msg, "type"));
    const char *game = json_string_value(json_object_get(msg, "game"));
    r->is_command = type && strcmp(type, "command") == 0;
    r->is_join = type && strcmp(type, "join") == 0;
    r->seq = json_integer_value(json_object_get(msg, "seq"));
    snprintf(r->game, sizeof r->game, "%s", game ? game : "");
    r->deadline = timeout_ms > 0 ? uv_now(c->loop) + (uint64_t)timeout_ms : 0;
    r->cb = cb;
    r->ctx = ctx;
    struct req **p = &c->reqs;
    while (*p)
        p = &(*p)->next;
    *p = r;
    rearm_deadline(c);
    kick(c);
    return 0;
}

int wrc_conn_ready(const struct wrc_conn *c)
{
    return c->ready && c->wsi != NULL;
}

/* Is msg the answer to r? */
static int answers(const struct req *r, const json_t *msg)
{
    const json_t *id = json_object_get(msg, "id");
    if (json_is_integer(id))
        return json_integer_value(id) == r->id;
    const char *type = json_string_value(json_object_get(msg, "type"));
    const char *game = json_string_value(json_object_get(msg, "game"));
    if (type == NULL || game == NULL || strcmp(game, r->game) != 0)
        return 0;
    if (r->is_command && (strcmp(type, "ack") == 0 || strcmp(type, "error") == 0))
        return json_integer_value(json_object_get(msg, "seq")) == r->seq;
    return r->is_join && strcmp(type, "state") == 0;
}

/* --- the socket ---------------------------------------------------------------- */

static void start_connect(struct wrc_conn *c);

static void on_retry(uv_timer_t *t)
{
    start_connect(t->data);
}

static void on_close_timer(uv_timer_t *t);

/* The socket is gone (or never came up). */
static void lost(struct wrc_conn *c, const char *why)
{
    c->wsi = NULL;
    c->connecting = 0;
    c->hello_pending = 0;
    c->ready = 0;
    c->in_len = 0;
    if (c->closing) {
        if (!c->destroyed)
            uv_timer_start(&c->close_timer, on_close_timer, 0, 0);
        return;
    }
    if (c->dead)
        return;
    /* Kept requests go out again after the next welcome; messages that
     * want no answer belong to the old socket (the caller joins and syncs
     * afresh on reconnection). */
    for (struct req **p = &c->reqs; *p;) {
        struct req *r = *p;
        if (r->cb == NULL) {
            *p = r->next;
            req_free(r);
            continue;
        }
        r->sent = 0;
        p = &r->next;
    }
    char text[1600];
    snprintf(text, sizeof text, "%s%s%s", why, c->close_reason[0] ? ": " : "",
             c->close_reason);
    c->close_reason[0] = '\0';
    if (c->reconnect) {
        unsigned delay = RETRY_FIRST_MS << (c->attempts < 6 ? c->attempts : 6);
        if (delay > RETRY_MAX_MS)
            delay = RETRY_MAX_MS;
        c->attempts++;
        uv_timer_start(&c->retry_timer, on_retry, delay, 0);
        if (c->h->on_lost)
            c->h->on_lost(c->hctx, text, 1);
        return;
    }
    c->dead = 1;
    end_requests(c, 1);
    if (c->h->on_lost)
        c->h->on_lost(c->hctx, text, 0);
}

static void start_connect(struct wrc_conn *c)
{
    if (c->closing || c->dead || c->connecting || c->wsi)
        return;
    struct lws_client_connect_info ci;
    memset(&ci, 0, sizeof ci);
    ci.context = c->ctx;
    ci.address = c->url.host;
    ci.port = c->url.port;
    ci.path = c->url.path;
    ci.host = c->host_header;
    ci.origin = c->host_header;
    ci.protocol = "warroom.v1";
    ci.local_protocol_name = "warroom.v1";
    ci.ietf_version_or_minus_one = -1;
    c->connecting = 1;
    if (lws_client_connect_via_info(&ci) == NULL && c->connecting)
        lost(c, "cannot connect");
}

void wrc_conn_start(struct wrc_conn *c)
{
    start_connect(c);
}

/* The welcome: the requests made in on_open go first, then the kept ones. */
static void welcomed(struct wrc_conn *c)
{
    int reconnected = c->ever_ready;
    c->ready = 1;
    c->ever_ready = 1;
    c->attempts = 0;
    struct req *kept = c->reqs;
    c->reqs = NULL;
    if (c->h->on_open)
        c->h->on_open(c->hctx, reconnected);
    struct req **p = &c->reqs;
    while (*p)
        p = &(*p)->next;
    *p = kept;
    rearm_deadline(c);
    kick(c);
}

static void dispatch(struct wrc_conn *c, const char *text, size_t len)
{
    json_t *msg = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
    if (!json_is_object(msg)) {
        json_decref(msg);
        return;         /* not protocol v1: nothing to answer, nothing to track */
    }
    const char *type = json_string_value(json_object_get(msg, "type"));
    if (!c->ready) {
        if (type && strcmp(type, "welcome") == 0) {
            welcomed(c);
        } else if (type && strcmp(type, "error") == 0) {
            /* The server speaks no protocol we know: trying again won't help. */
            snprintf(c->close_reason, sizeof c->close_reason, "%s",
                     json_string_value(json_object_get(msg, "message")) ?
                     json_string_value(json_object_get(msg, "message")) : "refused");
            c->reconnect = 0;
        }
        json_decref(msg);
        return;
    }
    if (c->h->on_message)
        c->h->on_message(c->hctx, msg);
    /* Answer every request msg answers (callbacks may change the list). */
    for (;;) {
        struct req *hit = NULL;
        for (struct req *r = c->reqs; r && !hit; r = r->next)
            if (r->sent && r->cb && answers(r, msg))
                hit = r;
        if (hit == NULL)
            break;
        unlink_req(c, hit);
        hit->cb(hit->ctx, msg, 0);
        req_free(hit);
    }
    rearm_deadline(c);
    json_decref(msg);
}

static int on_receive(struct lws *wsi, struct wrc_conn *c, const void *data, size_t len)
{
    size_t want = c->in_len + len;
    if (want > MAX_INBOUND)
        return -1;
    if (want > c->in_cap) {
        size_t cap = c->in_cap ? c->in_cap : 4096;
        while (cap < want)
            cap *= 2;
        char *n = realloc(c->in, cap);
        if (n == NULL)
            return -1;
        c->in = n;
        c->in_cap = cap;
    }
    memcpy(c->in + c->in_len, data, len);
    c->in_len += len;
    if (lws_is_final_fragment(wsi) && lws_remaining_packet_payload(wsi) == 0) {
        size_t n = c->in_len;
        c->in_len = 0;
        dispatch(c, c->in, n);
    }
    return 0;
}

/* One message per WRITEABLE: the hello, or the next request. */
static int on_writeable(struct lws *wsi, struct wrc_conn *c)
{
    if (c->closing) {
        /* A close frame written by hand: on libuv, lws drops the one
         * lws_close_reason() asks for when the callback returns -1. 4 is
         * lws 4.1's internal LWS_WRITE_CLOSE. The payload is masked in
         * place: this buffer is ours alone. */
        unsigned char frame[LWS_PRE + 8];
        frame[LWS_PRE] = 1000 >> 8;
        frame[LWS_PRE + 1] = 1000 & 0xff;
        memcpy(frame + LWS_PRE + 2, "bye", 3);
        lws_write(wsi, frame + LWS_PRE, 5, (enum lws_write_protocol)4);
        return -1;
    }
    char *text = NULL;
    struct req *r = NULL;
    if (c->hello_pending) {
        json_t *hello = json_pack("{s:s, s:i, s:s}", "type", "hello", "protocol",
                                  WARROOM_PROTOCOL_VERSION, "client",
                                  "warroom/" WARROOM_VERSION);
        text = json_dumps(hello, JSON_COMPACT);
        json_decref(hello);
        c->hello_pending = 0;
    } else if (c->ready) {
        for (r = c->reqs; r && r->sent; r = r->next)
            ;
        if (r == NULL)
            return 0;
        text = json_dumps(r->msg, JSON_COMPACT);
    } else {
        return 0;
    }
    if (text == NULL)
        return -1;
    size_t len = strlen(text);
    unsigned char *buf = malloc(LWS_PRE + len);
    if (buf == NULL) {
        free(text);
        return -1;
    }
    memcpy(buf + LWS_PRE, text, len);
    free(text);
    int n = lws_write(wsi, buf + LWS_PRE, len, LWS_WRITE_TEXT);
    free(buf);
    if (n < (int)len)
        return -1;
    if (r) {
        r->sent = 1;
        if (r->cb == NULL) {
            unlink_req(c, r);
            req_free(r);
        }
    }
    for (r = c->reqs; r; r = r->next)
        if (!r->sent) {
            lws_callback_on_writable(wsi);
            break;
        }
    return 0;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    struct lws_context *lc = lws_get_context(wsi);
    struct wrc_conn *c = lc ? lws_context_user(lc) : NULL;
    char why[1200];

    switch (reason) {
    case LWS_CALLBACK_CLIENT_ESTABLISHED:
        if (c == NULL)
            return -1;
        c->wsi = wsi;
        c->connecting = 0;
        c->hello_pending = 1;
        lws_callback_on_writable(wsi);
        break;
    case LWS_CALLBACK_CLIENT_RECEIVE:
        if (c == NULL || c->wsi != wsi)
            return -1;
        return on_receive(wsi, c, in, len);
    case LWS_CALLBACK_CLIENT_WRITEABLE:
        if (c == NULL || c->wsi != wsi)
            return -1;
        return on_writeable(wsi, c);
    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
        if (c && len >= 2) {
            const unsigned char *p = in;
            snprintf(c->close_reason, sizeof c->close_reason, "the server closed with %d%s%.*s",
                     (p[0] << 8) | p[1], len > 2 ? " " : "", (int)(len > 2 ? len - 2 : 0),
                     (const char *)p + 2);
        }
        break;
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
        /* Not followed by CLIENT_CLOSED (stack-notes 15). */
        if (c) {
            snprintf(why, sizeof why, "cannot connect to %s (%s)", c->url.text,
                     in ? (const char *)in : "no reason given");
            lost(c, why);
        }
        break;
    case LWS_CALLBACK_CLIENT_CLOSED:
        if (c && c->wsi == wsi) {
            snprintf(why, sizeof why, "the connection to %s closed", c->url.text);
            lost(c, why);
        }
        break;
    default:
        break;
    }
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}

static const struct lws_protocols protocols[] = {
    { "warroom.v1", callback, 0, 4096, 0, NULL, 0 },
    { NULL, NULL, 0, 0, 0, NULL, 0 }
};

/* --- life cycle ------------------------------------------------------------------- */

struct wrc_conn *wrc_conn_new(uv_loop_t *loop, const struct wrc_url *url, int reconnect,
                              const struct wrc_conn_handler *h, void *ctx, char *err,
                              size_t errlen)
{
    struct wrc_conn *c = calloc(1, sizeof *c);
    if (c == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    c->loop = loop;
    c->url = *url;
    c->h = h;
    c->hctx = ctx;
    c->reconnect = reconnect;
    if (strchr(url->host, ':'))
        snprintf(c->host_header, sizeof c->host_header, "[%s]:%d", url->host, url->port);
    else
        snprintf(c->host_header, sizeof c->host_header, "%s:%d", url->host, url->port);

    lws_set_log_level(getenv("WARROOM_LWS_DEBUG") ? (LLL_ERR | LLL_WARN | LLL_NOTICE) : 0,
                      NULL);
    struct lws_context_creation_info info;
    void *foreign_loops[1] = { loop };
    memset(&info, 0, sizeof info);
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.protocols = protocols;
    info.options = LWS_SERVER_OPTION_LIBUV;
    info.foreign_loops = foreign_loops;
    info.pcontext = &c->ctx;
    info.user = c;
    info.fd_limit_per_thread = 16;      /* one socket, and lws's own */
    c->ctx = lws_create_context(&info);
    if (c->ctx == NULL) {
        snprintf(err, errlen, "libwebsockets could not start (is the libwebsockets-evlib-uv "
                 "package installed?)");
        free(c);
        return NULL;
    }
    uv_timer_init(loop, &c->retry_timer);
    uv_timer_init(loop, &c->deadline_timer);
    uv_timer_init(loop, &c->close_timer);
    c->retry_timer.data = c->deadline_timer.data = c->close_timer.data = c;
    return c;
}

/* The socket is closed (or given up on): destroy the context (first
 * call) and close our timers; uv_run() then returns by itself. */
static void on_close_timer(uv_timer_t *t)
{
    struct wrc_conn *c = t->data;
    if (c->destroyed)
        return;
    if (c->wsi && !c->close_frame_asked) {
        c->close_frame_asked = 1;
        lws_callback_on_writable(c->wsi);       /* writes the close frame */
        uv_timer_start(&c->close_timer, on_close_timer, CLOSE_GRACE_MS, 0);
        return;
    }
    c->destroyed = 1;
    if (c->ctx)
        lws_context_destroy(c->ctx);
    uv_close((uv_handle_t *)&c->retry_timer, NULL);
    uv_close((uv_handle_t *)&c->deadline_timer, NULL);
    uv_close((uv_handle_t *)&c->close_timer, NULL);
}

void wrc_conn_close(struct wrc_conn *c)
{
    if (c->closing)
        return;
    c->closing = 1;
    end_requests(c, 0);
    uv_timer_stop(&c->retry_timer);
    uv_timer_stop(&c->deadline_timer);
    uv_timer_start(&c->close_timer, on_close_timer, 0, 0);
}

void wrc_conn_free(struct wrc_conn *c)
{
    if (c == NULL)
        return;
    if (c->ctx)
        lws_context_destroy(c->ctx);        /* second call: frees it */
    c->ctx = NULL;
    end_requests(c, 0);
    free(c->in);
    free(c);
}
