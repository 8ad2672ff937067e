/*
 * ask.h - the client message `ask` (docs/protocol.md): a connection asks
 * its own view of a game what the terminal client asks of its view (the
 * picture, the decision panel, the orders, a typed order checked, events
 * in words, completion), so that a web page uses the same rules library
 * as the server without a rule written twice.
 *
 * The view is the ruleset's presentation (common/core/present.h) opened
 * for the connection's seat ("" for a spectator) and fed exactly the
 * projection the connection is sent (with its server section): it sees
 * nothing sealed that the connection may not see. Nothing here names a
 * ruleset: everything goes through rs->present.
 */
#ifndef WRD_ASK_H
#define WRD_ASK_H

#include <stdint.h>

struct json_t;
struct wr_ruleset;
struct wrd_server;
struct wrd_conn;

/* One connection's view of one game: made by the first ask, owned by the
 * connection's membership of the game (conn.h's struct wrd_member) and
 * freed with wrd_ask_free() when the connection leaves the game or
 * closes. Keeps the last SVG it drew, by the state it drew. */
struct wrd_ask;

/* What an ask needs of its game (games.c fills it; every pointer borrowed
 * for the call). shown changes whenever the state the connection is sent
 * changes (a command, the game starting, a forfeit), even without a new
 * version. */
struct wrd_ask_game {
    const char *id;
    const struct wr_ruleset *rs;
    const char *scenario_text;  /* the scenario as stored (JSON text), or NULL */
    const struct json_t *options;   /* the game's options, or NULL */
    const char *seat;           /* the connection's seat; "" for a spectator */
    int64_t version;
    uint64_t shown;
    const struct json_t *state; /* the connection's projection, server section included */
};

/* Answer msg (an `ask` whose fields protocol.c checked for their types)
 * from *slot, the connection's view of game (opened into *slot when NULL):
 * an `answer`, or an `error` echoing game and id. Charges the connection's
 * command budget (conn.h) and its address the answer's size (addr.h). */
void wrd_ask_answer(struct wrd_server *srv, struct wrd_conn *c, struct wrd_ask **slot,
                    const struct wrd_ask_game *game, const struct json_t *msg);

/* Close a view (NULL: nothing). */
void wrd_ask_free(struct wrd_ask *a);

/* Limits of an ask (docs/protocol.md, "ask"). */
#define WRD_ASK_LINE_MAX 1024   /* bytes of an order's line, or of a word */
#define WRD_ASK_EVENTS_MAX 256  /* events in one ask */
#define WRD_ASK_WORDS_MAX 64    /* words before the one completed */
/* Views one connection holds at once (a Waterloo view with its SVG is
 * about half a megabyte): the first ask of another game closes one of the
 * others, which its next ask opens again. */
#define WRD_ASK_VIEWS_MAX 4

#endif
