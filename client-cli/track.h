/*
 * track.h - the games a client follows: for each, the last state the
 * server sent, brought forward by every patch, its version, and a log of
 * recent events.
 *
 * A `state` message replaces the state. A `patch` applies when its "from"
 * is the version held (parsed with duplicate keys refused, applied with
 * wr_jsonpatch_apply); an older patch is ignored; a newer one means messages
 * were missed: the caller is told to send `sync` from the version held (once
 * per gap). A patch that does not apply asks for a full state (sync from -1,
 * which the server answers with the state).
 *
 * After a reconnection the caller joins again, which makes the server send
 * a full state, and syncs from the version held: a game marked `rejoin`
 * ignores that one state, so the missed commands arrive as patches, with
 * their events.
 */
#ifndef WRC_TRACK_H
#define WRC_TRACK_H

#include <stdint.h>

struct json_t;

#define WRC_TRACK_MAX_GAMES 16
#define WRC_TRACK_LOG 200       /* events kept per game */

struct wrc_game {
    char id[64];
    char seat[32];              /* the seat this client holds, "" for a spectator */
    char ruleset[32];
    char status[16];            /* open, running, finished (as of the last state) */
    char forfeit[32];           /* the seat that forfeited on time, or "" */
    int64_t version;            /* -1 until the first state */
    struct json_t *state;       /* the ruleset's state; owned */
    int rejoin;                 /* ignore the next state (see above) */
    int64_t rejoin_from;        /* the version held when the rejoin began */
    int64_t sync_from;          /* the since of an outstanding sync, or -2 */
    struct json_t *log;         /* [{"version": v, "by": seat, "event": {...}}], oldest
                                 * first ("by": the seat whose command it was); owned */
};

struct wrc_tracker {
    struct wrc_game *games[WRC_TRACK_MAX_GAMES];
    int n;
};

/* What a message did. */
enum wrc_track_result {
    WRC_TRACK_NONE,             /* nothing for the tracker */
    WRC_TRACK_STATE,            /* a full state replaced the game's state */
    WRC_TRACK_PATCH,            /* a patch moved the game forward */
    WRC_TRACK_GAP,              /* send {"type":"sync","game":id,"since":*since} */
    WRC_TRACK_REJOINED          /* the state of a rejoin, ignored (see above) */
};

void wrc_track_init(struct wrc_tracker *t);
void wrc_track_release(struct wrc_tracker *t);

/* The game id (borrowed from t), created when create is set and there is
 * room; NULL otherwise. */
struct wrc_game *wrc_track_get(struct wrc_tracker *t, const char *id, int create);

/* Feed a server message (borrowed). *game is the game concerned (or NULL),
 * *since the version to sync from when the result is WRC_TRACK_GAP. */
enum wrc_track_result wrc_track_message(struct wrc_tracker *t, const struct json_t *msg,
                                        struct wrc_game **game, int64_t *since);

#endif
