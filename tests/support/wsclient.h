/*
 * wsclient.h - a protocol v1 test client over the raw websocket of proc.h:
 * send messages, wait for a message of a given type (keeping the others in
 * order), and track each game's state by applying every patch to it, so a
 * test can compare what every client sees.
 */
#ifndef WT_WSCLIENT_H
#define WT_WSCLIENT_H

#include <jansson.h>

#define WT_BACKLOG 256

struct wt_client {
    int fd;
    const char *name;           /* for failure messages */
    json_t *backlog[WT_BACKLOG];
    int nbacklog;
    /* the tracked game (one per client in these tests) */
    char game[32];
    json_t *state;              /* the last state, patched forward */
    long long version;
    int patches;                /* patches applied */
    int bad_patches;            /* patches that did not fit or failed */
    /* Called with every text frame as received, before anything else reads
     * it (set after wt_open; NULL: none). Lets a test scan everything a
     * client was sent, not just the messages it asks for. */
    void (*on_text)(struct wt_client *c, const char *text, size_t len);
    void *on_text_ctx;
};

/* Connect to 127.0.0.1:port and say hello; 0 on a welcome. */
int wt_open(struct wt_client *c, const char *name, int port);
/* Same, from the local address src (see wt_ws_connect_from). */
int wt_open_from(struct wt_client *c, const char *name, int port, const char *src);
/* Same, with more header lines in the upgrade request (src may be NULL;
 * see wt_ws_connect_headers). */
int wt_open_headers(struct wt_client *c, const char *name, int port, const char *src,
                    const char *headers);
void wt_close(struct wt_client *c);

/* Send a message built with json_pack(fmt, ...). */
int wt_send(struct wt_client *c, const char *fmt, ...);
/* Send raw text. */
int wt_send_text(struct wt_client *c, const char *text);

/* The next message of type (from the backlog or the socket) within
 * timeout_ms; NULL on time-out. Messages of other types stay in the
 * backlog. `state` and `patch` messages update the tracked state as they
 * are read. Caller decrefs. */
json_t *wt_expect(struct wt_client *c, const char *type, int timeout_ms);

/* The next message, whatever its type (the backlog's oldest first), within
 * timeout_ms; NULL on time-out. Caller decrefs. */
json_t *wt_next(struct wt_client *c, int timeout_ms);

/* Read everything that arrives within timeout_ms (tracking states). */
void wt_drain(struct wt_client *c, int timeout_ms);

/* Wait until the tracked version reaches v; 0 when it did. */
int wt_wait_version(struct wt_client *c, long long v, int timeout_ms);

/* The close code if the next frame is a close frame, else -1. */
int wt_expect_close(struct wt_client *c, int timeout_ms);

#endif
