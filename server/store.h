/*
 * store.h - where games are kept: the store interface.
 *
 * The server talks to its store only through this table of functions, so a
 * second backend can be added without touching game or network code. The
 * default backend is SQLite (store_sqlite.c): WAL, synchronous=FULL.
 *
 * Writes are grouped: every write of one loop iteration goes into one open
 * batch, and commit() makes the whole batch durable at once, before any
 * answer that depends on it leaves the server. Writes happen on the loop
 * thread only.
 *
 * Reads go through a second connection of their own: `load` at start-up
 * (loop thread, before the loop runs), and `read_game`, `list_finished` and
 * `latest_snapshot` from libuv worker threads (uv_queue_work) while the
 * loop thread writes and commits; the store serialises them with a mutex,
 * so they must never be called on the loop thread once it runs. A read
 * sees the store as of its last commit, never a batch still open.
 *
 * Every row read is checked: its columns (types, ranges, non-empty names)
 * and its checksum; a game's commands must run 1, 2, 3, ... with no gap.
 * A failed check is WRD_STORE_DAMAGED with a message naming the table and
 * the row; nothing of a damaged game reaches a loader or a row callback.
 *
 * All strings passed in are borrowed (copied by the store as needed); all
 * strings passed to callbacks are borrowed for the duration of the call.
 */
#ifndef WRD_STORE_H
#define WRD_STORE_H

#include <stddef.h>
#include <stdint.h>

struct wrd_store;

/* Return codes of the store's functions: 0 is success, these are failures. */
#define WRD_STORE_ERRNO_MAP(X)                                                   \
    X(ERROR, -1, "the store failed")                                            \
    X(DAMAGED, -2, "the store is damaged")                                      \
    X(READONLY, -3, "the store cannot be written")                              \
    X(LOCKED, -4, "another process holds the store")

enum {
#define WRD_STORE_ENUM(name, value, text) WRD_STORE_##name = value,
    WRD_STORE_ERRNO_MAP(WRD_STORE_ENUM)
#undef WRD_STORE_ENUM
};

/* The sentence of a return code (static text). */
const char *wrd_store_strerror(int rc);

/* Longest id or seat name the store accepts (games.c keeps them in 24 bytes). */
#define WRD_STORE_NAME_MAX 23

/* Flags of open(). */
#define WRD_STORE_CHECK_FULL 1      /* PRAGMA integrity_check instead of quick_check */

struct wrd_game_row {
    const char *id;
    const char *ruleset;
    const char *scenario_name;      /* may be "" */
    const char *scenario_json;      /* the whole scenario, so restarts never depend on files */
    const char *options_json;
    const uint8_t *seed;            /* 32 bytes */
    int64_t created_ms;
    int listed;                     /* 1: listed once finished (spectators allowed or seats
                                     * open), 0: not */
    /* Linked games: the parent game of a child and the key its ruleset
     * gave it (ruleset.h, child), both NULL for a game without a parent.
     * Set when the game is stored, never changed. */
    const char *parent;
    const char *link_key;
};

struct wrd_seat_row {
    const char *game;
    const char *seat;
    const char *token_hash;         /* hex SHA-256, or NULL while unclaimed */
    const char *invite_hash;        /* hex SHA-256 of the invite, or NULL once used */
    const char *webhook;            /* or NULL */
    const char *mail;               /* the seat's mail registration (games.c, "Play by
                                     * email"): compact JSON text, or NULL. A secret of
                                     * the seat, like its webhook: never listed or
                                     * exported */
};

struct wrd_command_row {
    const char *game;
    int64_t version;                /* the version this command produced */
    const char *seat;
    int64_t client_seq;             /* 0 when none */
    const char *cmd_json;
    const char *events_json;
    int64_t at_ms;
};

/* Callbacks receiving games: for each game, game() once, then seat() for
 * each of its seats, then command() for each of its commands in version
 * order; return non-zero to stop (the store function then fails with
 * WRD_STORE_ERROR). They run on the thread that called the store, and may
 * call latest_snapshot() but no other read function of the store. */
struct wrd_store_loader {
    void *ctx;
    int (*game)(void *ctx, const struct wrd_game_row *g, const char *status, const char *result,
                int64_t deadline_ms);
    int (*seat)(void *ctx, const struct wrd_seat_row *s);
    int (*command)(void *ctx, const struct wrd_command_row *c);
    /* load() only: 1 also passes finished games (for a caller that keeps
     * them in memory), 0 passes only the others. */
    int finished_too;
    /* load() only, may be NULL: once every game has been passed, each
     * linked game, finished or not, oldest first: its id, its parent's,
     * its key (may be NULL), its ruleset, status and result (may be
     * NULL). Return non-zero to stop (load then fails). */
    int (*link)(void *ctx, const char *child, const char *parent, const char *key,
                const char *ruleset, const char *status, const char *result);
};

/* One seat in a listing. */
struct wrd_seat_summary {
    const char *name;
    int taken;                      /* 1 when a player holds it */
};

/* One finished game in a listing. */
struct wrd_finished_row {
    const char *id;
    const char *ruleset;
    const char *scenario_name;      /* may be "" */
    const char *status;             /* "finished" */
    const char *result;             /* the ruleset's result, "forfeit", or NULL */
    int64_t version;                /* the final version */
    int64_t created_ms;
    const char *options_json;       /* the game's options, as created */
    const struct wrd_seat_summary *seats;
    int nseats;
};

/* Which finished games list_finished() passes: listed ones, newest first
 * (created_ms, then id, descending), strictly before the cursor. */
struct wrd_finished_query {
    const char *before_id;          /* NULL: from the newest; else with before_created_ms */
    int64_t before_created_ms;
    int limit;                      /* at most this many (1..1000) */
    const char *ruleset;            /* NULL: any */
};

struct wrd_store_ops {
    const char *name;
    /* Loop thread, at start-up. Open or create the store at location, lock
     * it for this process's life, check it (quick_check, or integrity_check
     * with WRD_STORE_CHECK_FULL), migrate an older schema, and prove it can
     * be written. On failure fill err and return WRD_STORE_LOCKED (another
     * process holds it), WRD_STORE_READONLY, WRD_STORE_DAMAGED or
     * WRD_STORE_ERROR. */
    int (*open)(struct wrd_store **out, const char *location, int flags, char *err,
                size_t errlen);
    /* Loop thread, after every read has returned: commit what is pending,
     * close, release the lock; the store pointer is freed. */
    void (*close)(struct wrd_store *st);
    /* Schema version of the open store. */
    int (*schema_version)(struct wrd_store *st);

    /* Batched writes, loop thread (each opens the batch when none is open). */
    int (*put_game)(struct wrd_store *st, const struct wrd_game_row *g);
    /* A seat row, inserted once when its game is created... */
    int (*put_seat)(struct wrd_store *st, const struct wrd_seat_row *s);
    /* ...and changed later (a claim, a webhook). */
    int (*update_seat)(struct wrd_store *st, const struct wrd_seat_row *s);
    int (*put_command)(struct wrd_store *st, const struct wrd_command_row *c);
    /* The game's status, result and deadline as of its version. */
    int (*put_status)(struct wrd_store *st, const char *game, const char *status,
                      const char *result, int64_t deadline_ms, int64_t version);
    /* A snapshot of the public state at a version (checked on restore); one
     * per (game, version). */
    int (*put_snapshot)(struct wrd_store *st, const char *game, int64_t version,
                        const char *state_json);

    /* Is a batch open? */
    int (*pending)(struct wrd_store *st);
    /* Make the open batch durable. -1 with err on failure (the batch is lost). */
    int (*commit)(struct wrd_store *st, char *err, size_t errlen);

    /* Loop thread, at start-up before the loop runs. Check every row of
     * every table (columns, checksums, versions, the row counts recorded
     * with each commit), then pass to l every game whose status is not
     * finished (all of them with l->finished_too), oldest first. 0, or
     * WRD_STORE_DAMAGED (nothing was passed to l) or WRD_STORE_ERROR. */
    int (*load)(struct wrd_store *st, const struct wrd_store_loader *l, char *err,
                size_t errlen);
    /* Worker thread (or start-up). One game, whatever its status, with the
     * same checks: 0 passed to l, 1 no such game, WRD_STORE_DAMAGED
     * (nothing passed to l) or WRD_STORE_ERROR (l may have seen part of the
     * game: discard it). */
    int (*read_game)(struct wrd_store *st, const char *id, const struct wrd_store_loader *l,
                     char *err, size_t errlen);
    /* Worker thread. The finished games of q, each passed to row_cb (return
     * non-zero to stop early; it may call read_game() and latest_snapshot(),
     * not list_finished()). The number of rows passed, or
     * WRD_STORE_DAMAGED / WRD_STORE_ERROR (some rows may have been passed). */
    int (*list_finished)(struct wrd_store *st, const struct wrd_finished_query *q,
                         int (*row_cb)(void *ctx, const struct wrd_finished_row *r), void *ctx,
                         char *err, size_t errlen);
    /* Worker thread (or start-up). The latest snapshot of a game: 1 with its
     * version and state (malloc'd, caller frees), 0 when there is none,
     * WRD_STORE_DAMAGED / WRD_STORE_ERROR. */
    int (*latest_snapshot)(struct wrd_store *st, const char *game, int64_t *version,
                           char **state_json, char *err, size_t errlen);
};

struct wrd_store {
    const struct wrd_store_ops *ops;
};

extern const struct wrd_store_ops wrd_store_sqlite_ops;

#endif
