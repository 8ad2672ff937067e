/*
 * store_sqlite.c - the embedded SQLite store.
 *
 * The database runs in WAL mode with synchronous=FULL, so a committed
 * transaction survives a process crash and an OS crash. The schema is
 * created or migrated on open; user_version records its version.
 */
#include "store.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

#define SCHEMA_VERSION 1

struct sqlite_store {
    struct wrd_store base;   /* must be first */
    sqlite3 *db;
};

static const char schema_v1[] =
    "CREATE TABLE IF NOT EXISTS games ("
    "  id TEXT PRIMARY KEY, ruleset TEXT NOT NULL, scenario TEXT NOT NULL,"
    "  options TEXT NOT NULL, seed BLOB NOT NULL, version INTEGER NOT NULL,"
    "  status TEXT NOT NULL, created_at INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS seats ("
    "  game TEXT NOT NULL REFERENCES games(id), seat TEXT NOT NULL,"
    "  token_hash TEXT, invite_hash TEXT, webhook TEXT,"
    "  PRIMARY KEY (game, seat));"
    "CREATE TABLE IF NOT EXISTS commands ("
    "  game TEXT NOT NULL REFERENCES games(id), version INTEGER NOT NULL,"
    "  seat TEXT NOT NULL, client_seq INTEGER, cmd TEXT NOT NULL,"
    "  events TEXT NOT NULL, rolls TEXT, at INTEGER NOT NULL,"
    "  PRIMARY KEY (game, version));"
    "CREATE TABLE IF NOT EXISTS snapshots ("
    "  game TEXT NOT NULL REFERENCES games(id), version INTEGER NOT NULL,"
    "  state TEXT NOT NULL, PRIMARY KEY (game, version));";

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
    if (v < 0 || v > SCHEMA_VERSION) {
        snprintf(err, errlen, "%s has schema version %d; this warroomd knows up to %d",
                 location, v, SCHEMA_VERSION);
        goto fail;
    }
    if (v < 1) {
        if (exec(s->db, "BEGIN", err, errlen) < 0 ||
            exec(s->db, schema_v1, err, errlen) < 0 ||
            exec(s->db, "PRAGMA user_version=1; COMMIT", err, errlen) < 0)
            goto fail;
    }
    *out = &s->base;
    return 0;
fail:
    sqlite3_close(s->db);
    free(s);
    return -1;
}

static void sqlite_close(struct wrd_store *st)
{
    struct sqlite_store *s = (struct sqlite_store *)st;
    if (s == NULL)
        return;
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
};
