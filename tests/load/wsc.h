/*
 * wsc.h - non-blocking websocket client connections for the load tool.
 *
 * One epoll set drives every connection from one thread. Each connection is
 * a raw TCP socket speaking RFC 6455 as a client: frames it sends are
 * masked (a fresh key per frame), frames from the server must not be;
 * fragmented messages are joined, pings answered with pongs, a close frame
 * answered and reported. Outgoing frames are appended to a per-connection
 * buffer and written when wl_net_flush() runs (once per loop turn), so the
 * messages of one turn to one socket leave in one write().
 *
 * The tool is a load generator sharing the machine with the server: the
 * read path copies nothing for a whole frame already in the shared read
 * buffer, and connections hold no buffer while they have nothing pending.
 */
#ifndef WL_WSC_H
#define WL_WSC_H

#include <stddef.h>
#include <stdint.h>

struct wl_conn;

struct wl_net_cbs {
    /* The handshake completed. */
    void (*on_open)(struct wl_conn *c);
    /* One whole text or binary message (data is valid during the call). */
    void (*on_message)(struct wl_conn *c, const char *data, size_t len);
    /* The connection is gone (code: the close code received, or 0 when the
     * socket failed or ended without one; why: a short reason). The
     * connection is freed after this returns. */
    void (*on_close)(struct wl_conn *c, int code, const char *why);
};

struct wl_net_stats {
    uint64_t frames_in, frames_out, bytes_in, bytes_out, pings, protocol_errors;
};

struct wl_net;

/* A new epoll set; NULL on failure. */
struct wl_net *wl_net_new(const struct wl_net_cbs *cbs);
/* Close every connection (without callbacks) and free the set. */
void wl_net_free(struct wl_net *n);
const struct wl_net_stats *wl_net_stats(const struct wl_net *n);

/* Start a connection from src (IPv4, host order; 0 = any) to 127.x dst:port
 * (host order). user is the caller's pointer. NULL when the socket cannot
 * be created (errno set). The handshake proceeds in wl_net_poll(). */
struct wl_conn *wl_conn_open(struct wl_net *n, uint32_t src, uint32_t dst, int port,
                             void *user);
void *wl_conn_user(const struct wl_conn *c);
void wl_conn_set_user(struct wl_conn *c, void *user);
int wl_conn_is_open(const struct wl_conn *c);

/* Queue one text message (copied, masked). 0, or -1 when not open. */
int wl_conn_send(struct wl_conn *c, const char *text, size_t len);
/* Drop the connection at once (no close handshake, no callback); frees it. */
void wl_conn_abort(struct wl_conn *c);

/* Wait up to timeout_ms for events and handle them (callbacks run here),
 * then flush what the callbacks queued. Returns the number of events, or -1
 * on an epoll error other than EINTR. */
int wl_net_poll(struct wl_net *n, int timeout_ms);
/* Write what is queued on every connection (wl_net_poll does it too). */
void wl_net_flush(struct wl_net *n);

#endif
