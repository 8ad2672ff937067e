/*
 * store.h - where games are kept: the store interface.
 *
 * The server talks to its store only through this table of functions, so a
 * second backend can be added without touching game or network code. The
 * default backend is SQLite (store_sqlite.c): WAL, synchronous=FULL.
 *
 * Writes are grouped: every write of one loop iteration goes into one open
 * batch, and commit() makes the whole batch durable at once, before any
 * answer that depends on it leaves the server. Reads happen only at start-up.
 * All strings passed in are borrowed (copied by the store as needed).
 */
#ifndef WRD_STORE_H
#define WRD_STORE_H

#include <stddef.h>
#include <stdint.h>

struct wrd_store;

struct wrd_game_row {
    const char *id;
    const char *ruleset;
    const char *scenario_name;      /* may be "" */
    const char *scenario_json;      /* the whole scenario, so restarts never depend on files */
    const char *options_json;
    const uint8_t *seed;            /* 32 bytes */
    int64_t created_ms;
};

struct wrd_seat_row {
    const char *game;
    const char *seat;
    const char *token_hash;         /* hex SHA-256, or NULL while unclaimed */
    const char *invite_hash;        /* hex SHA-256 of the invite, or NULL once used */
    const char *webhook;            /* or NULL */
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

/* Callbacks for loading everything at start-up; return non-zero to stop. */
struct wrd_store_loader {
    void *ctx;
    int (*game)(void *ctx, const struct wrd_game_row *g, const char *status, const char *result,
                int64_t deadline_ms);
    int (*seat)(void *ctx, const struct wrd_seat_row *s);
    int (*command)(void *ctx, const struct wrd_command_row *c);
};

struct wrd_store_ops {
    const char *name;
    /* Open or create the store at location; on error fill err and return -1. */
    int (*open)(struct wrd_store **out, const char *location, char *err, size_t errlen);
    /* Commit what is pending, then close; the store pointer is freed. */
    void (*close)(struct wrd_store *st);
    /* Schema version of the open store. */
    int (*schema_version)(struct wrd_store *st);

    /* Batched writes (each opens the batch when none is open). */
    int (*put_game)(struct wrd_store *st, const struct wrd_game_row *g);
    int (*put_seat)(struct wrd_store *st, const struct wrd_seat_row *s);
    int (*put_command)(struct wrd_store *st, const struct wrd_command_row *c);
    int (*put_status)(struct wrd_store *st, const char *game, const char *status,
                      const char *result, int64_t deadline_ms);
    /* A snapshot of the public state at a version (checked on restore). */
    int (*put_snapshot)(struct wrd_store *st, const char *game, int64_t version,
                        const char *state_json);

    /* Is a batch open? */
    int (*pending)(struct wrd_store *st);
    /* Make the open batch durable. -1 with err on failure (the batch is lost). */
    int (*commit)(struct wrd_store *st, char *err, size_t errlen);

    /* Read every game, its seats and its commands in version order. */
    int (*load)(struct wrd_store *st, const struct wrd_store_loader *l, char *err, size_t errlen);
    /* The latest snapshot of a game: version and state (malloc'd, caller frees), or 0
     * when there is none. */
    int (*latest_snapshot)(struct wrd_store *st, const char *game, int64_t *version,
                           char **state_json);
};

struct wrd_store {
    const struct wrd_store_ops *ops;
};

extern const struct wrd_store_ops wrd_store_sqlite_ops;

#endif
