/*
 * games.h - the games a server holds: seats and their secret tokens,
 * invites, spectators, versions and patches, the command path from a
 * client's message to a durable, acknowledged, broadcast change, and the
 * restore of every game from the store at start-up.
 *
 * No game rule lives here: a game is a ruleset value (common/core/ruleset.h)
 * driven through its table of functions.
 */
#ifndef WRD_GAMES_H
#define WRD_GAMES_H

#include <stddef.h>

struct json_t;
struct wrd_server;
struct wrd_conn;
struct wrd_game;
struct wrd_member;
struct wrd_msg;

int wrd_games_new(struct wrd_server *srv);
/* Free every game (after the loop has ended). */
void wrd_games_free(struct wrd_server *srv);
/* Close the uv handles games hold (deadline timers), for shutdown. */
void wrd_games_close_handles(struct wrd_server *srv);

/* Load the games a start needs from the store (open games, running ones
 * due soon; the others are read back when asked for) and replay their
 * commands: 0, or < 0 with err (the store's code of store.h when the store
 * failed, e.g. WRD_STORE_DAMAGED; -1 when a game does not replay). */
int wrd_games_restore(struct wrd_server *srv, char *err, size_t errlen);

/* Message handlers; msg (borrowed) has been checked by protocol.c for its
 * fields and their types. */
void wrd_games_create(struct wrd_server *srv, struct wrd_conn *c, const struct json_t *msg);
void wrd_games_claim(struct wrd_server *srv, struct wrd_conn *c, const struct json_t *msg);
void wrd_games_join(struct wrd_server *srv, struct wrd_conn *c, const struct json_t *msg);
void wrd_games_command(struct wrd_server *srv, struct wrd_conn *c, const struct json_t *msg);
void wrd_games_sync(struct wrd_server *srv, struct wrd_conn *c, const struct json_t *msg);
void wrd_games_list_msg(struct wrd_server *srv, struct wrd_conn *c, const struct json_t *msg);
void wrd_games_leave(struct wrd_server *srv, struct wrd_conn *c, const struct json_t *msg);
void wrd_games_export(struct wrd_server *srv, struct wrd_conn *c, const struct json_t *msg);
/* setup: the game's ruleset, scenario and options, for a member. */
void wrd_games_setup(struct wrd_server *srv, struct wrd_conn *c, const struct json_t *msg);
/* ask: the connection's own view of a game it joined answers (ask.h). */
void wrd_games_ask(struct wrd_server *srv, struct wrd_conn *c, const struct json_t *msg);
void wrd_games_notify(struct wrd_server *srv, struct wrd_conn *c, const struct json_t *msg);
/* mail_in: the orders of a reply by mail, matched to its seat by the tag in
 * one of its addresses (pbem.h), applied as that seat's commands. */
void wrd_games_mail_in(struct wrd_server *srv, struct wrd_conn *c, const struct json_t *msg);

/* At a clean stop: each running game's status row written again, so what
 * the lobby shows of the games a restart leaves in the store (the seat
 * awaited, the last move) is current; the flush commits it. A command
 * writes it only when the status or a deadline changes (the row holds the
 * scenario: rewriting it each move would cost its size). */
void wrd_games_keep_summaries(struct wrd_server *srv);

/* The sweep's timer: running games idle for --game-idle leave memory, and
 * those due soon (a deadline's reminder or expiry) are read back in time.
 * Closed by wrd_games_close_handles. */
void wrd_games_start_sweep(struct wrd_server *srv);

/* --cluster, once the start's games are loaded: this process joins the
 * others on the store (store.h, the cluster ops; cluster.c): it owns the
 * games no other process holds, follows the others, forwards commands and
 * takes games over. 0, or -1 with err. Its handles are closed by
 * wrd_games_close_handles. */
int wrd_games_start_cluster(struct wrd_server *srv, char *err, size_t errlen);
/* One note of another process (or this one's own), as the listener passes
 * it: channel WRD_NOTE_* and its payload (borrowed), whatever they hold
 * (a malformed note is logged and dropped). Without --cluster: nothing. */
void wrd_games_note(struct wrd_server *srv, int channel, const char *payload);
/* This process's name among the others of its cluster (16 hex digits), ""
 * without --cluster. */
const char *wrd_games_node(struct wrd_server *srv);

/* warroomd --verify: every game of the store (its every row checked by the
 * store first) replayed through the rules and compared with each of its
 * snapshots. 0 with a summary in err, or < 0 with what failed. */
int wrd_games_verify(struct wrd_server *srv, char *err, size_t errlen);

/* With mail on: the daily digest's timer (each seat on the digest that a
 * game awaits gets one mail a day, at --mail-digest-hour UTC). Closed by
 * wrd_games_close_handles. */
void wrd_games_start_digest(struct wrd_server *srv);

/* A connection is leaving game g (closed or `leave`). */
void wrd_games_member_left(struct wrd_server *srv, struct wrd_conn *c, struct wrd_game *g);

/* The full `state` message of c's membership m (new reference), or NULL;
 * c's later patches of that game start after the state's version. */
struct wrd_msg *wrd_games_state_msg(struct wrd_server *srv, struct wrd_conn *c,
                                    const struct wrd_member *m);

/* Once per loop iteration: commit the store batch, then deliver what
 * waited for it (patches, acks, notifications). A failed commit stops the
 * server: nothing acknowledged may ever be lost. */
void wrd_games_flush(struct wrd_server *srv);
/* Is a batch being committed off the loop thread (a store with seal())?
 * Its end delivers what waited for it and flushes again; a stop waits for
 * it. */
int wrd_games_committing(struct wrd_server *srv);
/* --cluster: how many reads of games' later rows (and tries of their
 * locks) are under way on the workers; each ends in the loop, which may
 * start another. */
int wrd_games_reading(struct wrd_server *srv);

/* Games held in memory. */
int wrd_games_count(struct wrd_server *srv);

/* What /metrics shows of the games' comings and goings. */
struct wrd_games_stats {
    int held;                   /* games in memory (wrd_games_count) */
    int running;                /* of those, running */
    unsigned long long reads;   /* games read back from the store since the start */
    unsigned long long shelved; /* running games that left memory idle since the start */
    int cluster;                /* --cluster: the five below are set */
    int owned;                  /* games held and owned by this process */
    unsigned long long forwarded;   /* commands sent to another process since the start */
    unsigned long long takeovers;   /* games taken from a process that died or let go */
    unsigned long long notes;       /* forwards and replies come from the cluster */
    unsigned long long notes_parsed; /* of those, addressed to this process (read) */
};
void wrd_games_stats(struct wrd_server *srv, struct wrd_games_stats *out);
/* The answer to a list request {filter, limit, cursor} (borrowed; `list`,
 * and GET /games with the same fields from its query string):
 * {"games":[...],"cursor":...} (new reference), or NULL with *why saying
 * what is wrong with the request. */
struct json_t *wrd_games_list(struct wrd_server *srv, const struct json_t *request,
                              const char **why);
/* The same for a caller that can wait (GET /games): reply(srv, ctx, answer,
 * why) gets the answer (borrowed for the call), or NULL with why; now
 * (returns 0) or, when finished games must be read from the store, later
 * from the loop (returns 1). */
int wrd_games_list_async(struct wrd_server *srv, const struct json_t *request,
                         void (*reply)(struct wrd_server *srv, void *ctx, struct json_t *answer,
                                       const char *why),
                         void *ctx);

#endif
