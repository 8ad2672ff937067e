/*
 * conn.c - connections and their outbound queues (see conn.h).
 */
#include <uv.h>
#include <libwebsockets.h>

#include "conn.h"
#include "errors.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "dlist.h"
#include "jsonout.h"
#include "log.h"
#include "reason.h"
#include "server.h"

struct wrd_msg *wrd_msg_new(const char *text, size_t len)
{
    struct wrd_msg *m = malloc(sizeof *m + LWS_PRE + len);
    if (m == NULL)
        return NULL;
    m->refs = 1;
    m->game = NULL;
    m->len = len;
    m->payload = m->data + LWS_PRE;
    memcpy(m->payload, text, len);
    return m;
}

struct wrd_msg *wrd_msg_json(const json_t *json)
{
    char stack[4096];
    struct wrd_buf b;
    wrd_buf_init(&b, stack, sizeof stack);
    struct wrd_msg *m = wrd_buf_json(&b, json) == 0 ? wrd_msg_new(b.s, b.len) : NULL;
    wrd_buf_release(&b);
    return m;
}

void wrd_msg_ref(struct wrd_msg *m)
{
    m->refs++;
}

void wrd_msg_unref(struct wrd_msg *m)
{
    if (m != NULL && --m->refs == 0)
        free(m);
}

void wrd_conn_set_hooks(struct wrd_server *srv, const struct wrd_conn_hooks *h)
{
    if (h->dispatch)
        srv->conn_hooks.dispatch = h->dispatch;
    if (h->member_left)
        srv->conn_hooks.member_left = h->member_left;
    if (h->state_msg)
        srv->conn_hooks.state_msg = h->state_msg;
}

#define QUEUE_START 8

static void on_turn_wake(struct wrd_addr_turn *t);

struct wrd_conn *wrd_conn_new(struct wrd_server *srv, struct lws *wsi, const char *peer)
{
    struct wrd_conn *c = calloc(1, sizeof *c);
    if (c == NULL)
        return NULL;
    snprintf(c->addr, sizeof c->addr, "%s", peer ? peer : "");
    c->from = wrd_addr_get(srv, c->addr);
    if (c->from == NULL) {
        free(c);
        return NULL;
    }
    /* The ring starts small and grows to --max-queue on demand: most
     * connections never hold more than a few messages, and 10,000 idle
     * ones would otherwise hold 40 MB of empty rings. */
    c->qcap = srv->cfg.max_queue < QUEUE_START ? srv->cfg.max_queue : QUEUE_START;
    c->q = calloc((size_t)c->qcap, sizeof *c->q);
    if (c->q == NULL) {
        wrd_addr_put(srv, c->from);
        free(c);
        return NULL;
    }
    c->srv = srv;
    c->wsi = wsi;
    c->refs = 1;
    c->turn.wake = on_turn_wake;
    c->tokens = 2.0 * srv->cfg.rate;            /* burst: two seconds' worth */
    c->refill_ms = uv_now(&srv->loop);
    WRD_DLIST_APPEND(srv->conns, srv->conns_last, c, prev, next);
    return c;
}

void wrd_conn_ref(struct wrd_conn *c)
{
    c->refs++;
}

/* Append an entry to the ring (room checked by the caller), counting
 * its bytes against the connection's and its address's bounds. */
static void push(struct wrd_conn *c, struct wrd_qent e)
{
    c->q[(c->qhead + c->qlen++) % c->qcap] = e;
    c->qbytes += e.bytes;
    c->from->queued += e.bytes;
}

/* Release an entry that left the ring. */
static void release(struct wrd_conn *c, struct wrd_qent *e)
{
    c->qbytes -= e->bytes;
    c->from->queued -= e->bytes;
    wrd_msg_unref(e->msg);
    if (e->stream)
        e->stream->free(e->stream);
    e->msg = NULL;
    e->stream = NULL;
}

/* The head entry was written: take it off the ring. */
static void pop(struct wrd_conn *c)
{
    release(c, &c->q[c->qhead]);
    c->qhead = (c->qhead + 1) % c->qcap;
    c->qlen--;
}

static void drop_queue(struct wrd_conn *c)
{
    while (c->qlen > 0)
        pop(c);
    c->qhead = 0;
}

void wrd_conn_unref(struct wrd_conn *c)
{
    if (--c->refs > 0)
        return;
    drop_queue(c);
    wrd_addr_leave(c->from, &c->turn);
    wrd_addr_put(c->srv, c->from);
    free(c->q);
    free(c->members);
    free(c->in);
    free(c);
}

static void free_handle(uv_handle_t *h)
{
    free(h);
}

void wrd_conn_closed(struct wrd_conn *c)
{
    if (c->prev != NULL || c->srv->conns == c) /* on the list, once */
        WRD_DLIST_REMOVE(c->srv->conns, c->srv->conns_last, c, prev, next);
    while (c->nmembers > 0)
        c->srv->conn_hooks.member_left(c->srv, c, c->members[c->nmembers - 1].game);
    drop_queue(c);
    wrd_addr_leave(c->from, &c->turn); /* its held message is not waited for */
    if (c->resume) {
        uv_close((uv_handle_t *)c->resume, free_handle);
        c->resume = NULL;
    }
    c->wsi = NULL;
    wrd_conn_unref(c);
}

/* The commits a message queued now must wait for (see conn.h). */
static uint64_t commit_needed(const struct wrd_conn *c)
{
    return c->srv->delivering ? c->srv->commits : c->srv->commits + 1 + c->srv->committing;
}

/* Room for one more entry: the ring doubles up to --max-queue. 0, or -1
 * when it holds --max-queue messages (or cannot grow). */
static int queue_room(struct wrd_conn *c)
{
    if (c->qlen < c->qcap)
        return 0;
    int max = c->srv->cfg.max_queue;
    if (c->qcap >= max)
        return -1;
    int cap = 2 * c->qcap < max ? 2 * c->qcap : max;
    struct wrd_qent *q = malloc(sizeof *q * (size_t)cap);
    if (q == NULL)
        return -1;
    for (int i = 0; i < c->qlen; i++)
        q[i] = c->q[(c->qhead + i) % c->qcap];
    free(c->q);
    c->q = q;
    c->qhead = 0;
    c->qcap = cap;
    return 0;
}

/* The queue is full: drop the patches and states in it (keeping the order
 * of the rest) and mark their games stale. Returns how many were dropped. */
static int drop_replaceable(struct wrd_conn *c)
{
    int kept = 0, n = c->qlen;
    for (int i = 0; i < n; i++) {
        /* kept <= i: writing never overtakes reading in the ring */
        struct wrd_qent e = c->q[(c->qhead + i) % c->qcap];
        if (e.msg && e.msg->game) {
            struct wrd_member *mb = wrd_conn_member(c, e.msg->game);
            if (mb)
                mb->stale = 1;
            release(c, &e);
        } else {
            c->q[(c->qhead + kept++) % c->qcap] = e;
        }
    }
    c->qlen = kept;
    c->stale = 1;
    return n - kept;
}

/*
 * The write path. A connection with something queued is put on the
 * server's ready list, and the flush, once its commit is durable and its
 * deliveries are queued, writes each one straight away
 * (wrd_conn_write_ready): one send() per connection per commit, and no
 * POLLOUT, whose every raise and drop costs libuv 1.44 an EPOLL_CTL_DEL
 * and an EPOLL_CTL_ADD. POLLOUT (lws_callback_on_writable, the WRITEABLE
 * callback) is asked for only when the kernel did not take a whole write
 * (lws keeps the rest and finishes it first), when more than one write's
 * worth is queued, and for the close frame.
 */
static void want_write(struct wrd_conn *c)
{
    struct wrd_server *srv = c->srv;
    if (c->ready || c->wsi == NULL)
        return;
    if (srv->nready == srv->capready) {
        int cap = srv->capready ? 2 * srv->capready : 64;
        struct wrd_conn **r = realloc(srv->ready, sizeof *r * (size_t)cap);
        if (r == NULL) {
            lws_callback_on_writable(c->wsi);     /* the slow way still works */
            return;
        }
        srv->ready = r;
        srv->capready = cap;
    }
    c->ready = 1;
    wrd_conn_ref(c);
    srv->ready[srv->nready++] = c;
}

/* Too slow to read even its own answers: close with 1008. */
static void close_slow(struct wrd_conn *c)
{
    wrd_warn("slow reader: closed", "addr=%s queued=%d bytes=%zu address_bytes=%zu", c->addr,
             c->qlen, c->qbytes, c->from->queued);
    c->closing = 1;
    drop_queue(c);
    lws_close_reason(c->wsi, LWS_CLOSE_STATUS_POLICY_VIOLATION,
                     (unsigned char *)"too slow to read", 16);
    lws_set_timeout(c->wsi, PENDING_TIMEOUT_CLOSE_SEND, LWS_TO_KILL_ASYNC);
}

void wrd_conn_close_after(struct wrd_conn *c, int code, const char *reason)
{
    if (c->goodbye)
        return;
    c->goodbye = code;
    c->goodbye_reason = reason;
    if (c->wsi)
        lws_callback_on_writable(c->wsi);
}

int wrd_conn_closing_code(const struct wrd_conn *c, int *code, const char **reason)
{
    if (c->qlen > 0 || (!c->goodbye && !c->srv->stopping))
        return 0;
    *code = c->goodbye ? c->goodbye : 1001;
    *reason = c->goodbye ? c->goodbye_reason : "shutdown";
    return 1;
}

/* Would `bytes` more break a byte bound? The first entry of an empty
 * queue always fits (a bound smaller than one message would make it
 * unsendable). */
static int over_bytes(const struct wrd_conn *c, size_t bytes)
{
    return c->qlen > 0 && (c->qbytes + bytes > c->srv->cfg.max_queue_bytes ||
                           c->from->queued + bytes > c->srv->cfg.max_address_bytes);
}

/* Make room for an entry of `bytes`: when the ring is full or a byte bound
 * would break, drop what a full state can replace. 0 when it fits now, 1
 * when it does not and the entry is replaceable (its game is marked
 * stale: dropped too), -1 when the connection was closed for it. */
static int make_room(struct wrd_conn *c, size_t bytes, struct wrd_member *mb)
{
    if (queue_room(c) == 0 && !over_bytes(c, bytes))
        return 0;
    /* Too slow to read: forget what a full state can replace. */
    int dropped = drop_replaceable(c);
    wrd_warn("slow reader: queue dropped", "addr=%s dropped=%d kept=%d", c->addr, dropped,
             c->qlen);
    want_write(c);
    if (mb) {
        mb->stale = 1;
        return 1;
    }
    if (queue_room(c) < 0 || over_bytes(c, bytes)) {
        close_slow(c);
        return -1;
    }
    return 0;
}

void wrd_conn_send(struct wrd_conn *c, struct wrd_msg *m)
{
    if (c->wsi == NULL || m == NULL || c->closing || c->goodbye)
        return;
    struct wrd_member *mb = m->game ? wrd_conn_member(c, m->game) : NULL;
    if (mb && mb->stale)
        return;                 /* a full state of this game is owed instead */
    if (make_room(c, m->len, mb) != 0)
        return;
    wrd_msg_ref(m);
    push(c, (struct wrd_qent){ .msg = m, .after = commit_needed(c), .bytes = m->len });
    want_write(c);
}

/* Bytes of one piece of a stream (also what a queued stream counts). */
#define STREAM_PIECE 49152

void wrd_conn_stream(struct wrd_conn *c, struct wrd_stream *st, size_t bytes)
{
    /* It counts what it will hold at most: one piece, or all of a short one. */
    size_t hold = bytes < STREAM_PIECE ? bytes : STREAM_PIECE;
    if (c->wsi == NULL || c->closing || c->goodbye || make_room(c, hold, NULL) != 0) {
        st->free(st);
        return;
    }
    push(c, (struct wrd_qent){ .stream = st, .after = commit_needed(c), .bytes = hold });
    want_write(c);
}

/* The queue has drained: queue a current state of each stale game (as many
 * as fit; the rest wait for the next time it drains). Built now, a state
 * may show commands not yet committed: like any message queued outside the
 * flush, it waits for the next commit. */
static void send_owed_states(struct wrd_conn *c)
{
    c->stale = 0;
    for (int i = 0; i < c->nmembers; i++) {
        struct wrd_member *mb = &c->members[i];
        if (!mb->stale)
            continue;
        if (queue_room(c) < 0) {
            c->stale = 1;
            return;
        }
        struct wrd_msg *s = c->srv->conn_hooks.state_msg(c->srv, c, mb);
        if (s == NULL || over_bytes(c, s->len)) {
            wrd_msg_unref(s);
            c->stale = 1;
            return;
        }
        mb->stale = 0;
        push(c, (struct wrd_qent){ .msg = s, .after = commit_needed(c), .bytes = s->len });
    }
}

void wrd_conn_send_json(struct wrd_conn *c, json_t *json)
{
    struct wrd_msg *m = wrd_msg_json(json);
    json_decref(json);
    wrd_conn_send(c, m);
    wrd_msg_unref(m);
}

static const char *const error_codes[] = {
#define WRD_ERROR_CODE(name, code, text) code,
    WRD_ERROR_MAP(WRD_ERROR_CODE)
#undef WRD_ERROR_CODE
};
static const char *const error_texts[] = {
#define WRD_ERROR_TEXT(name, code, text) text,
    WRD_ERROR_MAP(WRD_ERROR_TEXT)
#undef WRD_ERROR_TEXT
};

const char *wrd_error_code(enum wrd_error e)
{
    return (unsigned)e < WRD_E_COUNT ? error_codes[e] : "internal";
}

const char *wrd_error_text(enum wrd_error e)
{
    return (unsigned)e < WRD_E_COUNT ? error_texts[e] : "the server failed";
}

struct wrd_msg *wrd_refusal_msg(const char *code, const char *message, const char *game,
                                const json_t *seq, const json_t *id)
{
    /* Every refusal gets an answer: the sentence (which may quote what a
     * client sent, cut anywhere) and the game id are made valid UTF-8
     * first, so the JSON can always be built. */
    char text[WR_REFUSAL_MSG_MAX], gid[64];
    snprintf(text, sizeof text, "%s", message ? message : "");
    wr_utf8_clean(text);
    json_t *e = json_pack("{s:s, s:s, s:s}", "type", "error", "code", code, "message", text);
    if (e == NULL)
    {
        static const char fallback[] = "{\"type\":\"error\",\"code\":\"internal\","
                                       "\"message\":\"the answer could not be written\"}";
        return wrd_msg_new(fallback, sizeof fallback - 1);
    }
    if (game) {
        snprintf(gid, sizeof gid, "%s", game);
        wr_utf8_clean(gid);
        json_object_set_new(e, "game", json_string(gid));
    }
    if (seq)
        json_object_set(e, "seq", (json_t *)seq);
    if (id)
        json_object_set(e, "id", (json_t *)id);
    struct wrd_msg *m = wrd_msg_json(e);
    json_decref(e);
    return m;
}

struct wrd_msg *wrd_error_msg(enum wrd_error e, const char *message, const char *game,
                              const json_t *seq, const json_t *id)
{
    return wrd_refusal_msg(wrd_error_code(e), message ? message : wrd_error_text(e), game, seq,
                           id);
}

void wrd_conn_refusal(struct wrd_conn *c, const char *code, const char *message,
                      const char *game, const json_t *seq, const json_t *id)
{
    struct wrd_msg *m = wrd_refusal_msg(code, message, game, seq, id);
    c->srv->metrics.rejections++;
    wrd_conn_send(c, m);
    wrd_msg_unref(m);
}

void wrd_conn_error(struct wrd_conn *c, enum wrd_error e, const char *message,
                    const char *game, const json_t *seq, const json_t *id)
{
    wrd_conn_refusal(c, wrd_error_code(e), message ? message : wrd_error_text(e), game, seq, id);
}

void wrd_conn_close_all(struct wrd_server *srv)
{
    for (struct wrd_conn *c = srv->conns; c; c = c->next)
        if (c->wsi)
            lws_callback_on_writable(c->wsi);
}

/* Bytes of frames one coalesced write may carry (also the protocol's
 * tx_packet_size in net.c, so lws hands them to one send()). */
#define BATCH_BYTES 65536

/* The websocket header of an unmasked server frame of len bytes: a whole
 * text message (opcode 1, FIN), or one fragment of a longer one. */
static size_t frame_header(unsigned char *h, size_t len, int opcode, int fin)
{
    h[0] = (unsigned char)((fin ? 0x80 : 0) | opcode);
    if (len < 126) {
        h[1] = (unsigned char)len;
        return 2;
    }
    if (len < 65536) {
        h[1] = 126;
        h[2] = (unsigned char)(len >> 8);
        h[3] = (unsigned char)len;
        return 4;
    }
    h[1] = 127;
    for (int i = 0; i < 8; i++)
        h[2 + i] = (unsigned char)((uint64_t)len >> (56 - 8 * i));
    return 10;
}

/* Write the next piece of the stream at the head of the queue, as one
 * frame: the first a text frame, the rest continuations, the last with
 * FIN. The stream leaves the queue with its last piece. */
static int write_stream_piece(struct wrd_conn *c)
{
    struct wrd_qent *e = &c->q[c->qhead];
    /* Room for lws's headroom and the longest frame header before the
     * piece, which is written after it. */
    enum { HEAD = LWS_PRE + 10 };
    char stack[HEAD + STREAM_PIECE + 4096];
    struct wrd_buf b;
    wrd_buf_init(&b, stack, sizeof stack);
    b.len = HEAD;                               /* the header goes in there */
    int last = e->stream->next(e->stream, &b, STREAM_PIECE);
    if (last < 0 || b.failed) {
        wrd_buf_release(&b);
        return -1;
    }
    size_t len = b.len - HEAD;
    unsigned char h[10];
    size_t hl = frame_header(h, len, e->begun ? 0 : 1, last);
    unsigned char *start = (unsigned char *)b.s + HEAD - hl;
    memcpy(start, h, hl);
    int w = lws_write(c->wsi, start, hl + len, LWS_WRITE_HTTP);
    wrd_buf_release(&b);
    if (w < (int)(hl + len))
        return -1;
    c->srv->metrics.bytes_out += len;
    e->begun = 1;
    if (last)
        pop(c);
    return 0;
}

/*
 * One write, but not one message: every committed message queued (up to
 * BATCH_BYTES) goes out in one lws_write(), each in its own complete text
 * frame, so a player's patch and ack, or a joiner's state and answer,
 * leave in one send(); a stream goes one piece per write. LWS_WRITE_HTTP
 * makes lws 4.1 send the bytes as they are (no framing of its own). A
 * partial send is kept in lws's own buffer and finished (under POLLOUT)
 * before anything else of ours is written: nothing is written while
 * lws_partial_buffered(), so frames never interleave (lws's own control
 * frames, pings and pongs, may come between the fragments of a stream, as
 * RFC 6455 allows). Returns -1 when the connection must close.
 */
static int write_once(struct wrd_conn *c, uint64_t *writes)
{
    if (c->qlen == 0 && c->stale)
        send_owed_states(c);
    if (c->qlen == 0)
        return 0;
    size_t total = 0;
    int n = 0;
    while (n < c->qlen) {
        const struct wrd_qent *e = &c->q[(c->qhead + n) % c->qcap];
        if (e->after > c->srv->commits || (e->stream && n > 0))
            break;          /* not committed yet, or a stream: it goes alone */
        if (e->stream) {
            (*writes)++;
            return write_stream_piece(c);
        }
        size_t add = e->msg->len + (e->msg->len < 126 ? 2 : e->msg->len < 65536 ? 4 : 10);
        if (n > 0 && total + add > BATCH_BYTES)
            break;          /* the write is full */
        total += add;
        n++;
    }
    if (n == 0)
        return 0;           /* what is queued waits for the next commit */
    (*writes)++;
    if (n == 1) {
        /* One message (or one too large to share a write): lws frames it. */
        struct wrd_msg *m = c->q[c->qhead].msg;
        int w = lws_write(c->wsi, m->payload, m->len, LWS_WRITE_TEXT);
        if (w < (int)m->len)
            return -1;
        c->srv->metrics.bytes_out += m->len;
        pop(c);
        return 0;
    }
    struct wrd_server *srv = c->srv;
    if (srv->batch == NULL && (srv->batch = malloc(LWS_PRE + BATCH_BYTES)) == NULL)
        return -1;
    unsigned char *p = srv->batch + LWS_PRE;
    for (int i = 0; i < n; i++) {
        struct wrd_msg *x = c->q[c->qhead].msg;
        p += frame_header(p, x->len, 1, 1);
        memcpy(p, x->payload, x->len);
        p += x->len;
        srv->metrics.bytes_out += x->len;
        pop(c);
    }
    int w = lws_write(c->wsi, srv->batch + LWS_PRE, total, LWS_WRITE_HTTP);
    return w < (int)total ? -1 : 0;
}

/* After a write: what brings the rest out. From a WRITEABLE callback,
 * messages that wait for a commit wait on the ready list: the flush after
 * that commit writes them, and it comes before the loop next waits (the
 * flush is a uv_prepare). From the flush itself (direct) no flush comes
 * before the loop waits, so what still waits (a full state owed to a slow
 * reader, built just now) asks for POLLOUT, which wakes the loop. More
 * than one write's worth of committed messages, lws's unfinished send,
 * and the close frame owed once drained need POLLOUT too. */
static void after_write(struct wrd_conn *c, int direct)
{
    if (lws_partial_buffered(c->wsi))
        return;             /* lws asked for POLLOUT itself */
    if (c->qlen > 0 && !direct && c->q[c->qhead].after > c->srv->commits)
        want_write(c);
    else if (c->qlen > 0 || c->stale || c->goodbye || c->srv->stopping)
        lws_callback_on_writable(c->wsi);
}

int wrd_conn_write_next(struct wrd_conn *c)
{
    if (c->wsi == NULL || c->closing)
        return 0;
    if (write_once(c, &c->srv->metrics.writes_writeable) < 0)
        return -1;
    after_write(c, 0);
    return 0;
}

void wrd_conn_write_ready(struct wrd_server *srv)
{
    /* Connections put back on the list while this runs (what waits for a
     * later commit) go at the next flush's end: swap the list out first. */
    struct wrd_conn **list = srv->ready;
    int n = srv->nready, cap = srv->capready;
    srv->ready = NULL;
    srv->nready = srv->capready = 0;
    for (int i = 0; i < n; i++) {
        struct wrd_conn *c = list[i];
        c->ready = 0;
        /* Not while lws finishes an earlier send: its WRITEABLE callback
         * comes once that is done, and writes the rest. */
        if (c->wsi != NULL && !c->closing && !lws_partial_buffered(c->wsi)) {
            if (write_once(c, &srv->metrics.writes_direct) < 0) {
                /* Outside a callback nothing can return -1 to lws: the
                 * socket is dropped the way a slow reader's is. */
                c->closing = 1;
                drop_queue(c);
                lws_set_timeout(c->wsi, PENDING_TIMEOUT_CLOSE_SEND, LWS_TO_KILL_ASYNC);
            } else {
                after_write(c, 1);
            }
        }
        wrd_conn_unref(c);
    }
    if (srv->ready == NULL) {
        srv->ready = list;      /* keep the larger array */
        srv->capready = cap;
    } else {
        free(list);
    }
}

void wrd_conn_ready_free(struct wrd_server *srv)
{
    for (int i = 0; i < srv->nready; i++) {
        srv->ready[i]->ready = 0;
        wrd_conn_unref(srv->ready[i]);
    }
    free(srv->ready);
    srv->ready = NULL;
    srv->nready = srv->capready = 0;
}

/* --- inbound flow ----------------------------------------------------------------- */



/* While the server reads nothing from c (a held message, a request
 * waiting for the store), lws cannot see c's pongs either, so the proof
 * that c is alive is the server's to give: at the stop, and every
 * wrd_conn_vouch_stopped() after it. */
static void stop_reading(struct wrd_conn *c)
{
    if (c->stops++ == 0 && c->wsi) {
        lws_rx_flow_control(c->wsi, 0);
        lws_validity_confirmed(c->wsi);
    }
}

void wrd_conn_vouch_stopped(struct wrd_server *srv)
{
    for (struct wrd_conn *c = srv->conns; c != NULL; c = c->next)
        if (c->stops > 0 && c->wsi != NULL)
            lws_validity_confirmed(c->wsi);
}

static void resume_reading(struct wrd_conn *c)
{
    if (--c->stops == 0 && c->wsi)
        lws_rx_flow_control(c->wsi, 1);
}

static void hold(struct wrd_conn *c)
{
    if (!c->held) {
        c->held = 1;
        stop_reading(c);
    }
}

static void on_resume(uv_timer_t *t)
{
    struct wrd_conn *c = t->data;
    if (c->wsi != NULL && c->held)
        wrd_conn_received(c);
}

/* A request ahead of c's held message in its address's queue went away:
 * c tries again when its shorter wait is over (addr.h, wake). c's turn is
 * queued only while its message is held with the resume timer set
 * (wrd_conn_received), and leaves the queue before c is marked closed. */
static void on_turn_wake(struct wrd_addr_turn *t)
{
    struct wrd_conn *c = WRD_CONTAINER_OF(t, struct wrd_conn, turn);
    uv_timer_start(c->resume, on_resume, (uint64_t)wrd_addr_turn_wait_ms(c->srv, c->from, t), 0);
}

void wrd_conn_received(struct wrd_conn *c)
{
    if (c->waits > 0) {
        hold(c);                /* a request before it is not answered yet */
        return;
    }
    int wait = c->srv->conn_hooks.dispatch(c->srv, c, c->in, c->in_len);
    if (wait > 0) {
        if (c->resume == NULL) {
            c->resume = malloc(sizeof *c->resume);
            if (c->resume == NULL) {
                c->in_len = 0;  /* no memory to wait with: dropped */
                wrd_addr_leave(c->from, &c->turn);
                return;
            }
            uv_timer_init(&c->srv->loop, c->resume);
            c->resume->data = c;
        }
        hold(c);
        uv_timer_start(c->resume, on_resume, (uint64_t)wait, 0);
        return;
    }
    c->in_len = 0;
    if (c->in_cap > WRD_CONN_IN_KEEP) {
        /* A large message is rare: its buffer does not stay with the
         * connection for its life. */
        char *n = realloc(c->in, WRD_CONN_IN_START);
        if (n != NULL) {
            c->in = n;
            c->in_cap = WRD_CONN_IN_START;
        }
    }
    if (c->held) {
        c->held = 0;
        resume_reading(c);
    }
}

void wrd_conn_wait_begin(struct wrd_conn *c)
{
    c->waits++;
    stop_reading(c);
}

void wrd_conn_wait_end(struct wrd_conn *c)
{
    c->waits--;
    resume_reading(c);
    if (c->waits == 0 && c->held && c->wsi)
        wrd_conn_received(c);
}

int wrd_conn_take_token(struct wrd_conn *c)
{
    uint64_t now = uv_now(&c->srv->loop);
    double burst = 2.0 * c->srv->cfg.rate;
    c->tokens += (double)(now - c->refill_ms) * c->srv->cfg.rate / 1000.0;
    if (c->tokens > burst)
        c->tokens = burst;
    c->refill_ms = now;
    if (c->tokens < 1.0)
        return 0;
    c->tokens -= 1.0;
    return 1;
}

struct wrd_member *wrd_conn_member(struct wrd_conn *c, const struct wrd_game *g)
{
    for (int i = 0; i < c->nmembers; i++)
        if (c->members[i].game == g)
            return &c->members[i];
    return NULL;
}

struct wrd_member *wrd_conn_join(struct wrd_conn *c, struct wrd_game *g, int seat)
{
    struct wrd_member *m = wrd_conn_member(c, g);
    if (m == NULL) {
        if (c->nmembers == c->capmembers) {
            int cap = c->capmembers ? 2 * c->capmembers : 4;
            struct wrd_member *nm = realloc(c->members, sizeof *nm * (size_t)cap);
            if (nm == NULL)
                return NULL;
            c->members = nm;
            c->capmembers = cap;
        }
        m = &c->members[c->nmembers++];
        m->game = g;
        m->stale = 0;
        m->ask = NULL;
    }
    m->seat = seat;
    return m;
}

void wrd_conn_leave(struct wrd_conn *c, const struct wrd_game *g)
{
    for (int i = 0; i < c->nmembers; i++)
        if (c->members[i].game == g) {
            c->members[i] = c->members[--c->nmembers];
            return;
        }
}
