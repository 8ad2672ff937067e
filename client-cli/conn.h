/*
 * conn.h - the client's one websocket to warroomd: libwebsockets on the
 * caller's libuv loop, protocol v1's hello/welcome, requests matched to their
 * answers, an outbound queue, time-outs and reconnection.
 *
 * Requests. Every message is sent as a request; the connection gives it an
 * "id" and keeps it until it is answered, times out or (for messages that
 * expect no answer) is written. An answer is the first server message that
 *   - echoes the request's "id", or
 *   - for a command: an `ack` or `error` with the command's "seq" and "game"
 *     (the server answers commands by seq), or
 *   - for a join: a `state` of the game joined (the server sends the state
 *     as the answer, without the id).
 * Every server message is first given to the handler's on_message (so game
 * state is current when an answer's callback runs), then matched.
 *
 * Messages go out one per WRITEABLE callback (lws allows one write there),
 * in order, each in its own buffer with LWS_PRE bytes of headroom: a client
 * masks its payload in place, so buffers are never shared. Nothing but the
 * hello is written before the welcome arrives.
 *
 * Reconnection (when enabled). When the connection drops, requests not yet
 * answered are kept; the connection is tried again after 0.25 s, then
 * doubling to at most 8 s. After the new welcome, on_open(reconnected = 1)
 * runs first (the caller joins its games again and syncs); the messages it
 * sends go out before the kept requests, which are then sent again (a
 * re-sent command carries its old seq, which the server never applies
 * twice). Without reconnection, a drop fails every open request with
 * WRC_CONN_ECLOSED and on_lost(will_retry = 0) is called.
 *
 * Shutdown: wrc_conn_close() (from anywhere, even a callback) closes the
 * socket with a close frame and starts the context's asynchronous destroy;
 * the caller then lets uv_run() return by itself and calls wrc_conn_free()
 * (the second lws_context_destroy, which frees it; see stack-notes 1).
 */
#ifndef WRC_CONN_H
#define WRC_CONN_H

#include <stdint.h>

#include "url.h"

struct json_t;
struct uv_loop_s;

/* Errors given to answer callbacks. */
#define WRC_CONN_ETIMEOUT (-1)      /* no answer in time */
#define WRC_CONN_ECLOSED (-2)       /* the connection is gone for good */

struct wrc_conn;

struct wrc_conn_handler {
    /* The welcome arrived (reconnected: not the first one). */
    void (*on_open)(void *ctx, int reconnected);
    /* Every server message (borrowed for the call). */
    void (*on_message)(void *ctx, const struct json_t *msg);
    /* The connection dropped: why, and whether it will be tried again. */
    void (*on_lost)(void *ctx, const char *why, int will_retry);
};

/* Called once per request: answer (borrowed for the call) and err 0, or
 * answer NULL and err WRC_CONN_ETIMEOUT / WRC_CONN_ECLOSED. */
typedef void (*wrc_answer_cb)(void *ctx, const struct json_t *answer, int err);

/* A new connection to url on loop (borrowed; outlives the connection). h
 * and ctx are the caller's. Nothing happens until wrc_conn_start(). NULL
 * when libwebsockets cannot make its context (message in err). */
struct wrc_conn *wrc_conn_new(struct uv_loop_s *loop, const struct wrc_url *url, int reconnect,
                              const struct wrc_conn_handler *h, void *ctx, char *err,
                              size_t errlen);

/* Start connecting (the hello is sent once the websocket is up). */
void wrc_conn_start(struct wrc_conn *c);

/* Send msg (steals the reference). cb may be NULL (no answer wanted: the
 * request ends once written). timeout_ms 0: no time-out. Returns 0, or -1
 * when the connection is closed for good (msg is released; cb not called). */
int wrc_conn_request(struct wrc_conn *c, struct json_t *msg, int timeout_ms, wrc_answer_cb cb,
                     void *ctx);

/* 1 once the welcome has arrived and the socket is up, else 0. */
int wrc_conn_ready(const struct wrc_conn *c);

/* Close (see above). Open requests are dropped without callbacks. */
void wrc_conn_close(struct wrc_conn *c);

/* Free c after uv_run() returned following wrc_conn_close(). */
void wrc_conn_free(struct wrc_conn *c);

#endif
