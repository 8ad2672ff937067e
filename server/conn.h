/*
 * conn.h - one websocket connection: its outbound queue of shared messages,
 * the games it has joined, its command rate budget.
 *
 * A broadcast is serialised once and the same refcounted buffer is queued
 * to every recipient (lws does not modify a server's payload). After each
 * commit one write per connection carries every committed message queued
 * for it, made straight from the flush (wrd_conn_write_ready), or from the
 * WRITEABLE callback when the kernel's buffer was full. The queue grows on
 * demand and is bounded by --max-queue.
 *
 * When the queue is full, what can be replaced is dropped: the messages
 * that only carry a game's state forward (patches and states, tagged with
 * their game). Each game that lost one is marked stale, its later patches
 * are not queued, and once the queue has drained the connection is sent a
 * full `state` of it instead, built then (so it is current). Direct answers
 * (acks, errors, `created` and `claimed` with their tokens) are never
 * dropped: a connection whose queue is full of those asks without reading,
 * and is closed with 1008. Either way a reader can never make the server
 * hold unbounded memory.
 */
#ifndef WRD_CONN_H
#define WRD_CONN_H

#include <stddef.h>
#include <stdint.h>

#include "addr.h"
#include "errors.h"

struct lws;
struct wrd_addr;
struct wrd_server;
struct wrd_game;
struct json_t;

/* A message ready to send: payload after the lws headroom. Refcounted. */
struct wrd_msg {
    int refs;
    const struct wrd_game *game;    /* set on patches and states: droppable, a
                                       fresh state of this game replaces them */
    size_t len;
    unsigned char *payload;     /* points into data, after the headroom */
    unsigned char data[];
};

/* A new message holding text[0..len) with one reference. */
struct wrd_msg *wrd_msg_new(const char *text, size_t len);
/* json serialised compactly; json is borrowed. */
struct wrd_msg *wrd_msg_json(const struct json_t *json);
void wrd_msg_ref(struct wrd_msg *m);
void wrd_msg_unref(struct wrd_msg *m);

struct wrd_buf;

/*
 * A message too large to hold whole (an export's record), written piece by
 * piece as the connection can take it: each piece is a fragment of one
 * websocket text message, produced only when the previous one has been
 * written, so a reader that does not read makes the server hold one piece,
 * not the message. The queue owns a stream from wrd_conn_stream() on and
 * calls free() once it is written or dropped.
 */
struct wrd_stream {
    /* Append the next piece of the message's text to b: about `want`
     * bytes (more when one unit of it is longer; less at the end). Returns
     * 1 when that was the last piece, 0 when more follows, -1 on failure
     * (the connection is then closed). */
    int (*next)(struct wrd_stream *s, struct wrd_buf *b, size_t want);
    void (*free)(struct wrd_stream *s);
};

/* A queued message (or stream) and the commit it waits for: it may be
 * written once the server has made `after` commits (see wrd_conn_send). */
struct wrd_qent {
    struct wrd_msg *msg;        /* a whole message, or NULL */
    struct wrd_stream *stream;  /* or a message written piece by piece */
    uint64_t after;
    size_t bytes;               /* what it counts against the byte bounds */
    int begun;                  /* a stream's first piece has been written */
};

struct wrd_ask;

struct wrd_member {
    struct wrd_game *game;
    int seat;                   /* seat index, or -1 for a spectator */
    int stale;                  /* lost a patch: owed a full state, its patches not queued */
    struct wrd_ask *ask;        /* the connection's view of the game (ask.h), made by its
                                   first ask; freed by the games' member_left hook */
};

#define WRD_CONN_IN_START 1024
#define WRD_CONN_IN_KEEP 4096

struct wrd_conn {
    struct wrd_conn *prev, *next;   /* the server's open connections */
    struct lws *wsi;            /* NULL once closed */
    struct wrd_server *srv;
    int refs;                   /* the wsi's reference plus pending acks */
    int hello;                  /* hello received */
    char addr[64];              /* peer address */
    struct wrd_addr *from;      /* its per-address record (addr.h) */
    size_t qbytes;              /* bytes of the messages queued */
    /* outbound ring */
    struct wrd_qent *q;
    int qhead, qlen, qcap;
    int stale;                  /* some membership is owed a full state */
    int ready;                  /* on srv->ready: written at the next flush's end */
    int closing;                /* closed for not reading (1008): nothing more is queued */
    int goodbye;                /* close code to send once the queue has drained, or 0 */
    const char *goodbye_reason; /* its reason (static storage) */
    /* joined games */
    struct wrd_member *members;
    int nmembers, capmembers;
    /* command budget (token bucket) */
    double tokens;
    uint64_t refill_ms;
    /* inbound message being assembled (WRD_CONN_IN_START bytes at first,
     * back to that once a message over WRD_CONN_IN_KEEP is dispatched) */
    char *in;
    size_t in_len, in_cap;
    /* A complete message held back (in `in`) while its address's budget
     * refills or a request before it waits for a game read back from the
     * store; the socket is not read while anything waits. */
    int held;
    struct wrd_addr_turn turn;  /* the held message's place in its address's queue and
                                   its cost, set by the dispatcher when it asks to wait
                                   for the budget (so the message is not parsed again on
                                   every try); cost 0: none */
    int waits;                  /* requests waiting for games read back */
    int stops;                  /* reasons not to read the socket now */
    struct uv_timer_s *resume;  /* dispatches the held message again */
};

/* A connection from peer (the address lws gives; its record in addr.c is
 * held until the connection is freed). */
/*
 * What a connection calls back into, set once before the first connection
 * (so that conn.c, below the protocol and the games, includes neither):
 * the protocol's dispatcher (protocol.c), and the games' side of a member
 * leaving and of the full state owed to a member (games.c).
 */
struct wrd_conn_hooks {
    /* Handle the complete message text[0..len): 0, or the ms to wait before
     * offering it again (see wrd_protocol_dispatch). */
    int (*dispatch)(struct wrd_server *srv, struct wrd_conn *c, const char *text, size_t len);
    /* c leaves game g (it closed, or asked). */
    void (*member_left)(struct wrd_server *srv, struct wrd_conn *c, struct wrd_game *g);
    /* The full state owed to membership m (new reference), or NULL. */
    struct wrd_msg *(*state_msg)(struct wrd_server *srv, struct wrd_conn *c,
                                 const struct wrd_member *m);
};

/* Set the hooks' fields that are not NULL in h (copied). */
void wrd_conn_set_hooks(struct wrd_server *srv, const struct wrd_conn_hooks *h);

struct wrd_conn *wrd_conn_new(struct wrd_server *srv, struct lws *wsi, const char *peer);
void wrd_conn_ref(struct wrd_conn *c);
/* Drop a reference; frees the connection with the last one. */
void wrd_conn_unref(struct wrd_conn *c);
/* The socket closed: leave every game, drop the queue, drop the wsi's ref. */
void wrd_conn_closed(struct wrd_conn *c);

/* Queue m (takes a new reference). Ignored once the socket is closed, and
 * for a patch or state (m->game set) of a game owed a full state.
 *
 * Nothing queued is written before the store has committed everything the
 * message may reflect: a message queued while the loop handles input (a
 * joiner's state, a sync's patches, which may show commands applied in
 * this iteration and not yet committed) waits for the next commit; one
 * queued by the flush after its commit (acks, broadcasts) may go at once.
 * The flush counts commits in srv->commits and marks its delivery phase in
 * srv->delivering. While a batch commits off the loop (srv->committing),
 * what input queues waits for the commit after it: the batch it may
 * reflect is the open one. */
void wrd_conn_send(struct wrd_conn *c, struct wrd_msg *m);
/* Queue a stream of about `bytes` bytes in all (the queue takes it over;
 * see struct wrd_stream). It is an answer: never dropped for a slow
 * reader, who is closed instead. */
void wrd_conn_stream(struct wrd_conn *c, struct wrd_stream *s, size_t bytes);
/* Queue json (steals the reference). */
void wrd_conn_send_json(struct wrd_conn *c, struct json_t *json);
/* An error message (new reference): code, a sentence (made valid UTF-8
 * here, so any text can be passed), and game, seq and id echoed when not
 * NULL (borrowed). Never NULL but when memory runs out. wrd_error_msg()
 * takes one of the server's own errors (errors.h; message NULL: its
 * sentence), wrd_refusal_msg() a code from elsewhere (a ruleset's, the
 * notifier's). */
struct wrd_msg *wrd_error_msg(enum wrd_error e, const char *message, const char *game,
                              const struct json_t *seq, const struct json_t *id);
struct wrd_msg *wrd_refusal_msg(const char *code, const char *message, const char *game,
                                const struct json_t *seq, const struct json_t *id);
/* Send an error answer of either kind; seq/id (borrowed, may be NULL) are
 * echoed. */
void wrd_conn_error(struct wrd_conn *c, enum wrd_error e, const char *message,
                    const char *game, const struct json_t *seq, const struct json_t *id);
void wrd_conn_refusal(struct wrd_conn *c, const char *code, const char *message,
                      const char *game, const struct json_t *seq, const struct json_t *id);

/* Close c with code and reason (static storage, at most 120 bytes) once
 * everything queued so far has been written; nothing queued after this
 * call is sent. */
void wrd_conn_close_after(struct wrd_conn *c, int code, const char *reason);

/* The close frame a drained connection must now send (a goodbye asked
 * for, or the server stopping: 1001): fills *code and *reason and
 * returns 1, or returns 0 while there is still something to write. */
int wrd_conn_closing_code(const struct wrd_conn *c, int *code, const char **reason);

/* Shutdown: every open connection drains its queue, then closes with
 * 1001 going away (see net.c's WRITEABLE callback). */
void wrd_conn_close_all(struct wrd_server *srv);

/* Write what is queued and committed, in one write; called from the
 * WRITEABLE callback (-1: close the connection). */
int wrd_conn_write_next(struct wrd_conn *c);
/* The flush's end, once its commit is durable and its deliveries are
 * queued: write every connection on the ready list straight away (see
 * conn.c's write path). */
void wrd_conn_write_ready(struct wrd_server *srv);
/* Shutdown: drop the ready list and its references. */
void wrd_conn_ready_free(struct wrd_server *srv);

/* A complete message is in c->in (net.c): hand it to the protocol now, or
 * hold it (and stop reading) until its address's budget allows it and no
 * request before it still waits. */
void wrd_conn_received(struct wrd_conn *c);

/* A request of c waits for something read off the loop (games.c): c reads
 * no further message until every wait has ended, so its requests are
 * answered in order. */
void wrd_conn_wait_begin(struct wrd_conn *c);
void wrd_conn_wait_end(struct wrd_conn *c);

/* Tell lws that every connection the server has stopped reading is alive
 * (net.c calls it every third of --idle-timeout). Its pongs go unread
 * until it is read again, and lws would otherwise hang up, after
 * --idle-timeout, a client that is only waiting its turn; a dead one is
 * found when it is read again, at its turn or the store's answer, both of
 * which come. */
void wrd_conn_vouch_stopped(struct wrd_server *srv);

/* Take one command from the rate budget; 0 when the budget is empty. */
int wrd_conn_take_token(struct wrd_conn *c);

/* Membership of game, or NULL. */
struct wrd_member *wrd_conn_member(struct wrd_conn *c, const struct wrd_game *g);
/* Add or update a membership; returns it (NULL when out of memory). */
struct wrd_member *wrd_conn_join(struct wrd_conn *c, struct wrd_game *g, int seat);
void wrd_conn_leave(struct wrd_conn *c, const struct wrd_game *g);

#endif
