/*
 * store_sqlite.c - the embedded SQLite store.
 *
 * The database runs in WAL mode with synchronous=FULL, so a committed
 * transaction survives a process crash and an OS crash. Writes of one loop
 * iteration share one transaction (BEGIN on the first write, COMMIT in
 * commit()), so the loop pays one fsync per iteration, not one per move.
 * Prepared statements are kept for the life of the store. The schema is
 * created or migrated on open; user_version records its version.
 */
#include "store.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCHEMA_VERSION 2

enum {
    S_BEGIN, S_COMMIT, S_ROLLBACK, S_PUT_GAME, S_PUT_SEAT, S_PUT_COMMAND, S_PUT_STATUS,
    S_PUT_SNAPSHOT, S_NSTMTS
};

static const char *const stmt_sql[S_NSTMTS] = {
    [S_BEGIN] = "BEGIN",
    [S_COMMIT] = "COMMIT",
    [S_ROLLBACK] = "ROLLBACK",
    [S_PUT_GAME] = "INSERT INTO games (id, ruleset, scenario_name, scenario, options, seed,"
                   " created_at, status, result, deadline_at)"
                   " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'open', NULL, 0)",
    [S_PUT_SEAT] = "INSERT INTO seats (game, seat, token_hash, invite_hash, webhook)"
                   " VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (game, seat) DO UPDATE SET"
                   " token_hash = excluded.token_hash, invite_hash = excluded.invite_hash,"
                   " webhook = excluded.webhook",
    [S_PUT_COMMAND] = "INSERT INTO commands (game, version, seat, client_seq, cmd, events, at)"
                      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    [S_PUT_STATUS] = "UPDATE games SET status = ?2, result = ?3, deadline_at = ?4 WHERE id = ?1",
    [S_PUT_SNAPSHOT] = "INSERT OR REPLACE INTO snapshots (game, version, state)"
                       " VALUES (?1, ?2, ?3)",
};

struct sqlite_store {
    struct wrd_store base;   /* must be first */
    sqlite3 *db;
    sqlite3_stmt *stmt[S_NSTMTS];
    int in_batch;
    int failed;              /* a write of the open batch failed */
    char fail_msg[256];
};

static const char schema_v2[] =
    "CREATE TABLE games ("
    "  id TEXT PRIMARY KEY, ruleset TEXT NOT NULL, scenario_name TEXT NOT NULL,"
    "  scenario TEXT NOT NULL, options TEXT NOT NULL, seed BLOB NOT NULL,"
    "  created_at INTEGER NOT NULL, status TEXT NOT NULL, result TEXT,"
    "  deadline_at INTEGER NOT NULL);"
    "CREATE TABLE seats ("
    "  game TEXT NOT NULL REFERENCES games(id), seat TEXT NOT NULL,"
    "  token_hash TEXT, invite_hash TEXT, webhook TEXT,"
    "  PRIMARY KEY (game, seat));"
    "CREATE TABLE commands ("
    "  game TEXT NOT NULL REFERENCES games(id), version INTEGER NOT NULL,"
    "  seat TEXT NOT NULL, client_seq INTEGER NOT NULL, cmd TEXT NOT NULL,"
    "  events TEXT NOT NULL, at INTEGER NOT NULL,"
    "  PRIMARY KEY (game, version)) WITHOUT ROWID;"
    "CREATE TABLE snapshots ("
    "  game TEXT NOT NULL REFERENCES games(id), version INTEGER NOT NULL,"
    "  state TEXT NOT NULL, PRIMARY KEY (game, version)) WITHOUT ROWID;";

static int exec(sqlite3 *db, const char *sql, char *err, size_t errlen)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        snprintf(err, errlen, "%s", msg ? msg : sqlite3_errmsg(db));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

static int user_version(sqlite3 *db)
{
    sqlite3_stmt *st;
    int v = -1;
    if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
        return -1;
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return v;
}

static void finalize_all(struct sqlite_store *s)
{
    for (int i = 0; i < S_NSTMTS; i++) {
        sqlite3_finalize(s->stmt[i]);
        s->stmt[i] = NULL;
    }
}

static int sqlite_open(struct wrd_store **out, const char *location, char *err, size_t errlen)
{
    struct sqlite_store *s = calloc(1, sizeof *s);
    if (s == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    s->base.ops = &wrd_store_sqlite_ops;
    if (sqlite3_open_v2(location, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                        NULL) != SQLITE_OK) {
        snprintf(err, errlen, "cannot open %s: %s", location,
                 s->db ? sqlite3_errmsg(s->db) : "out of memory");
        goto fail;
    }
    sqlite3_busy_timeout(s->db, 0);
    if (exec(s->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
                    "PRAGMA foreign_keys=ON;", err, errlen) < 0)
        goto fail;
    int v = user_version(s->db);
    if (v < 0 || v > SCHEMA_VERSION || v == 1) {
        snprintf(err, errlen, "%s has schema version %d; this warroomd knows %d", location, v,
                 SCHEMA_VERSION);
        goto fail;
    }
    if (v == 0) {
        if (exec(s->db, "BEGIN", err, errlen) < 0 || exec(s->db, schema_v2, err, errlen) < 0 ||
            exec(s->db, "PRAGMA user_version=2; COMMIT", err, errlen) < 0)
            goto fail;
    }
    for (int i = 0; i < S_NSTMTS; i++)
        if (sqlite3_prepare_v3(s->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &s->stmt[i],
                               NULL) != SQLITE_OK) {
            snprintf(err, errlen, "prepare: %s", sqlite3_errmsg(s->db));
            goto fail;
        }
    *out = &s->base;
    return 0;
fail:
    finalize_all(s);
    sqlite3_close(s->db);
    free(s);
    return -1;
}

static int run(struct sqlite_store *s, int which)
{
    sqlite3_stmt *st = s->stmt[which];
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE) {
        if (!s->failed)
            snprintf(s->fail_msg, sizeof s->fail_msg, "%s", sqlite3_errmsg(s->db));
        s->failed = 1;
        return -1;
    }
    return 0;
}

/* Open the batch on the first write of an iteration. */
static int begin(struct sqlite_store *s)
{
    if (s->in_batch)
        return s->failed ? -1 : 0;
    s->in_batch = 1;
    s->failed = 0;
    return run(s, S_BEGIN);
}

static void bind_text(sqlite3_stmt *st, int i, const char *v)
{
    if (v)
        sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, i);
}

static int sqlite_put_game(struct wrd_store *st, const struct wrd_game_row *g)
{
    struct sqlite_store *s = (struct sqlite_store *)st;
    if (begin(s) < 0)
        return -1;
    sqlite3_stmt *q = s->stmt[S_PUT_GAME];
    bind_text(q, 1, g->id);
    bind_text(q, 2, g->ruleset);
    bind_text(q, 3, g->scenario_name);
    bind_text(q, 4, g->scenario_json);
    bind_text(q, 5, g->options_json);
    sqlite3_bind_blob(q, 6, g->seed, 32, SQLITE_STATIC);
    sqlite3_bind_int64(q, 7, g->created_ms);
    return run(s, S_PUT_GAME);
}

static int sqlite_put_seat(struct wrd_store *st, const struct wrd_seat_row *r)
{
    struct sqlite_store *s = (struct sqlite_store *)st;
    if (begin(s) < 0)
        return -1;
    sqlite3_stmt *q = s->stmt[S_PUT_SEAT];
    bind_text(q, 1, r->game);
    bind_text(q, 2, r->seat);
    bind_text(q, 3, r->token_hash);
    bind_text(q, 4, r->invite_hash);
    bind_text(q, 5, r->webhook);
    return run(s, S_PUT_SEAT);
}

static int sqlite_put_command(struct wrd_store *st, const struct wrd_command_row *c)
{
    struct sqlite_store *s = (struct sqlite_store *)st;
    if (begin(s) < 0)
        return -1;
    sqlite3_stmt *q = s->stmt[S_PUT_COMMAND];
    bind_text(q, 1, c->game);
    sqlite3_bind_int64(q, 2, c->version);
    bind_text(q, 3, c->seat);
    sqlite3_bind_int64(q, 4, c->client_seq);
    bind_text(q, 5, c->cmd_json);
    bind_text(q, 6, c->events_json);
    sqlite3_bind_int64(q, 7, c->at_ms);
    return run(s, S_PUT_COMMAND);
}

static int sqlite_put_status(struct wrd_store *st, const char *game, const char *status,
                             const char *result, int64_t deadline_ms)
{
    struct sqlite_store *s = (struct sqlite_store *)st;
    if (begin(s) < 0)
        return -1;
    sqlite3_stmt *q = s->stmt[S_PUT_STATUS];
    bind_text(q, 1, game);
    bind_text(q, 2, status);
    bind_text(q, 3, result);
    sqlite3_bind_int64(q, 4, deadline_ms);
    return run(s, S_PUT_STATUS);
}

static int sqlite_put_snapshot(struct wrd_store *st, const char *game, int64_t version,
                               const char *state_json)
{
    struct sqlite_store *s = (struct sqlite_store *)st;
    if (begin(s) < 0)
        return -1;
    sqlite3_stmt *q = s->stmt[S_PUT_SNAPSHOT];
    bind_text(q, 1, game);
    sqlite3_bind_int64(q, 2, version);
    bind_text(q, 3, state_json);
    return run(s, S_PUT_SNAPSHOT);
}

static int sqlite_pending(struct wrd_store *st)
{
    return ((struct sqlite_store *)st)->in_batch;
}

static int sqlite_commit(struct wrd_store *st, char *err, size_t errlen)
{
    struct sqlite_store *s = (struct sqlite_store *)st;
    if (!s->in_batch)
        return 0;
    s->in_batch = 0;
    if (s->failed) {
        snprintf(err, errlen, "%s", s->fail_msg);
        run(s, S_ROLLBACK);
        s->failed = 0;
        return -1;
    }
    if (run(s, S_COMMIT) < 0) {
        snprintf(err, errlen, "commit: %.200s", s->fail_msg);
        run(s, S_ROLLBACK);
        s->failed = 0;
        return -1;
    }
    return 0;
}

static const char *col(sqlite3_stmt *q, int i)
{
    return (const char *)sqlite3_column_text(q, i);
}

static int sqlite_load(struct wrd_store *st, const struct wrd_store_loader *l, char *err,
                       size_t errlen)
{
    struct sqlite_store *s = (struct sqlite_store *)st;
    sqlite3_stmt *q = NULL;
    int rc = -1;

    if (sqlite3_prepare_v2(s->db, "SELECT id, ruleset, scenario_name, scenario, options, seed,"
                           " created_at, status, result, deadline_at FROM games"
                           " ORDER BY created_at, id", -1, &q, NULL) != SQLITE_OK)
        goto out;
    while (sqlite3_step(q) == SQLITE_ROW) {
        if (sqlite3_column_bytes(q, 5) != 32) {
            snprintf(err, errlen, "game %s: the seed is not 32 bytes", col(q, 0));
            goto out_done;
        }
        struct wrd_game_row g = { col(q, 0), col(q, 1), col(q, 2), col(q, 3), col(q, 4),
                                  sqlite3_column_blob(q, 5), sqlite3_column_int64(q, 6) };
        if (l->game(l->ctx, &g, col(q, 7), col(q, 8), sqlite3_column_int64(q, 9)) != 0) {
            snprintf(err, errlen, "game %s could not be restored", g.id);
            goto out_done;
        }
    }
    sqlite3_finalize(q);
    if (sqlite3_prepare_v2(s->db, "SELECT game, seat, token_hash, invite_hash, webhook FROM seats",
                           -1, &q, NULL) != SQLITE_OK)
        goto out;
    while (sqlite3_step(q) == SQLITE_ROW) {
        struct wrd_seat_row r = { col(q, 0), col(q, 1), col(q, 2), col(q, 3), col(q, 4) };
        if (l->seat(l->ctx, &r) != 0) {
            snprintf(err, errlen, "seat %s of game %s could not be restored", r.seat, r.game);
            goto out_done;
        }
    }
    sqlite3_finalize(q);
    if (sqlite3_prepare_v2(s->db, "SELECT game, version, seat, client_seq, cmd, events, at"
                           " FROM commands ORDER BY game, version", -1, &q, NULL) != SQLITE_OK)
        goto out;
    while (sqlite3_step(q) == SQLITE_ROW) {
        struct wrd_command_row c = { col(q, 0), sqlite3_column_int64(q, 1), col(q, 2),
                                     sqlite3_column_int64(q, 3), col(q, 4), col(q, 5),
                                     sqlite3_column_int64(q, 6) };
        if (l->command(l->ctx, &c) != 0) {
            snprintf(err, errlen, "game %s: command %lld could not be replayed", c.game,
                     (long long)c.version);
            goto out_done;
        }
    }
    rc = 0;
    goto out_done;
out:
    snprintf(err, errlen, "%s", sqlite3_errmsg(s->db));
out_done:
    sqlite3_finalize(q);
    return rc;
}

static int sqlite_latest_snapshot(struct wrd_store *st, const char *game, int64_t *version,
                                  char **state_json)
{
    struct sqlite_store *s = (struct sqlite_store *)st;
    sqlite3_stmt *q;
    int found = 0;
    if (sqlite3_prepare_v2(s->db, "SELECT version, state FROM snapshots WHERE game = ?1"
                           " ORDER BY version DESC LIMIT 1", -1, &q, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_text(q, 1, game, -1, SQLITE_STATIC);
    if (sqlite3_step(q) == SQLITE_ROW) {
        *version = sqlite3_column_int64(q, 0);
        const char *t = col(q, 1);
        *state_json = t ? strdup(t) : NULL;
        found = *state_json != NULL;
    }
    sqlite3_finalize(q);
    return found;
}

static void sqlite_close(struct wrd_store *st)
{
    struct sqlite_store *s = (struct sqlite_store *)st;
    char err[256];
    if (s == NULL)
        return;
    sqlite_commit(st, err, sizeof err);
    finalize_all(s);
    sqlite3_close(s->db);
    free(s);
}

static int sqlite_schema_version(struct wrd_store *st)
{
    return user_version(((struct sqlite_store *)st)->db);
}

const struct wrd_store_ops wrd_store_sqlite_ops = {
    .name = "sqlite",
    .open = sqlite_open,
    .close = sqlite_close,
    .schema_version = sqlite_schema_version,
    .put_game = sqlite_put_game,
    .put_seat = sqlite_put_seat,
    .put_command = sqlite_put_command,
    .put_status = sqlite_put_status,
    .put_snapshot = sqlite_put_snapshot,
    .pending = sqlite_pending,
    .commit = sqlite_commit,
    .load = sqlite_load,
    .latest_snapshot = sqlite_latest_snapshot,
};
