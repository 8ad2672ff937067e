/*
 * store_sqlite.c - the embedded SQLite store.
 *
 * The database runs in WAL mode with synchronous=FULL, so a committed
 * transaction survives a process crash and an OS crash. Writes of one loop
 * iteration share one transaction (BEGIN on the first write, COMMIT in
 * commit()), so the loop pays one fsync per iteration, not one per move.
 * Prepared statements are kept for the life of the store. The schema is
 * created or migrated on open; user_version records its version (6).
 *
 * Whole or refused. SQLite's own checks (quick_check, or integrity_check)
 * see a malformed b-tree, not a changed byte inside a row nor rows lost
 * from a well-formed tree. So every row carries `rowsum`, a 64-bit checksum
 * of all its other columns computed here (and, for the migration and the
 * status update that keeps a game's large columns, by the same C code
 * registered as the SQL function warroom_rowsum()); and the one row of
 * `meta` holds the row count of each table, the checksum of the schema and
 * its own checksum, updated with one UPDATE per commit. At open: the lock,
 * a write that proves the file can be written (and quick_check or
 * integrity_check when asked); at a start, the rows of the games it loads
 * (open games, running ones with a deadline due) and, when asked
 * (finished_too: warroomd --verify), every row of every table read and
 * checked (columns, checksum, versions 1, 2, 3, ... per game, every row
 * reachable by its key, every index holding exactly its table's rows), the
 * counts compared with `meta`. So a start reads nothing in proportion to
 * the games the store holds. Each game read on demand is checked whole
 * before anything of it is passed on. Writes that
 * change a row check its old checksum first, so a damaged row is never
 * covered by a fresh checksum.
 *
 * One server per database: an exclusive flock() on a descriptor of the
 * database file of its own, held until the store is closed (after SQLite's
 * connections, since closing any descriptor of a file drops the process's
 * fcntl locks on it, which SQLite uses).
 *
 * Reads (load, read_game, list_finished, latest_snapshot) go through a
 * second connection, opened read-only: WAL lets it read the last commit
 * while the loop's connection writes. A recursive mutex serialises its
 * users (worker threads, or a loader's callback reading again); the
 * outermost read opens and ends the read transaction, so one call sees one
 * commit throughout.
 */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE             /* flock() */
#endif
#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

/* The page caches. The writing connection's holds the leaves the batch
 * writes to: the commands table is keyed by (game, version), so the games
 * being played write all over it, and a leaf that is not in the cache is
 * read again before it is written. Its size is the server's (--db-cache,
 * set_cache below; 1 MiB until then): it fills to its bound as the store
 * grows, and that bound is part of the server's fixed memory. The reader
 * reads a game back once: a small cache. */
#define WRITER_CACHE_KIB "1024"
#define READER_CACHE_KIB "256"
/* Pages of WAL before a checkpoint copies them into the database (SQLite's
 * default is 1,000): a batch of a thousand games writes hundreds of distinct
 * pages, so at 1,000 nearly every commit was followed by a checkpoint that
 * read and wrote each of them once more. At 8,192 (32 MiB of WAL at most) a
 * page written by many commits is copied once. */
#define WAL_CHECKPOINT_PAGES "8192"
#define SCHEMA_VERSION 6
#define APPLICATION_ID 0x57524f4d   /* "WROM" */
#define SEATS_MAX 64                /* per game, far above any ruleset's */

const char *wrd_store_strerror(int rc)
{
    switch (rc) {
    case 0:
        return "ok";
#define WRD_STORE_TEXT(name, value, text) \
    case value:                           \
        return text;
        WRD_STORE_ERRNO_MAP(WRD_STORE_TEXT)
#undef WRD_STORE_TEXT
    }
    return "unknown store error";
}

/* --- the row checksum --------------------------------------------------------------- */

/* Each step is a bijection of the running value for a fixed input word and
 * of the input word for a fixed running value, so a row that differs in
 * exactly one word always gets another checksum; other differences collide
 * with probability about 2^-64. Values are typed and sized, so "ab","c"
 * and "a","bc" differ, and NULL differs from "". */
enum { T_META = 1, T_GAMES, T_SEATS, T_COMMANDS, T_SNAPSHOTS, T_INDEX = 16 };
enum { V_NULL = 1, V_INT, V_TEXT, V_BLOB };

struct rowsum {
    uint64_t h;
};

static uint64_t mix(uint64_t h, uint64_t w)
{
    h ^= w;
    h *= 0x9e3779b97f4a7c15u;
    return h ^ (h >> 29);
}

static void rs_init(struct rowsum *r, int table)
{
    r->h = mix(0x5741525230303033u, (uint64_t)table);
}

static void rs_null(struct rowsum *r)
{
    r->h = mix(r->h, (uint64_t)V_NULL << 56);
}

static void rs_int(struct rowsum *r, int64_t v)
{
    r->h = mix(r->h, (uint64_t)V_INT << 56);
    r->h = mix(r->h, (uint64_t)v);
}

static void rs_bytes(struct rowsum *r, int tag, const void *p, size_t n)
{
    const unsigned char *b = p;
    r->h = mix(r->h, (uint64_t)tag << 56 | (uint64_t)n);
    for (; n >= 8; b += 8, n -= 8) {
        uint64_t w = 0;
        for (int i = 7; i >= 0; i--)
            w = w << 8 | b[i];
        r->h = mix(r->h, w);
    }
    if (n > 0) {
        uint64_t w = 0;
        for (size_t i = n; i-- > 0;)
            w = w << 8 | b[i];
        r->h = mix(r->h, w);
    }
}

static void rs_text(struct rowsum *r, const char *s)
{
    if (s == NULL)
        rs_null(r);
    else
        rs_bytes(r, V_TEXT, s, strlen(s));
}

static int64_t rs_final(const struct rowsum *r)
{
    uint64_t h = r->h;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdu;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53u;
    h ^= h >> 33;
    int64_t v;
    memcpy(&v, &h, sizeof v);
    return v;
}

/* A value as SQLite holds it; -1 for a type no column of ours has (REAL). */
static int rs_value(struct rowsum *r, sqlite3_value *v)
{
    switch (sqlite3_value_type(v)) {
    case SQLITE_NULL:
        rs_null(r);
        return 0;
    case SQLITE_INTEGER:
        rs_int(r, sqlite3_value_int64(v));
        return 0;
    case SQLITE_TEXT: {
        const unsigned char *t = sqlite3_value_text(v);
        rs_bytes(r, V_TEXT, t, (size_t)sqlite3_value_bytes(v));
        return 0;
    }
    case SQLITE_BLOB:
        rs_bytes(r, V_BLOB, sqlite3_value_blob(v), (size_t)sqlite3_value_bytes(v));
        return 0;
    }
    return -1;
}

/* warroom_rowsum(table, column, ...): the checksum of a row, for SQL. */
static void sql_rowsum(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
    struct rowsum r;
    if (argc < 1 || sqlite3_value_type(argv[0]) != SQLITE_INTEGER) {
        sqlite3_result_error(cx, "warroom_rowsum: the first argument is the table number", -1);
        return;
    }
    rs_init(&r, sqlite3_value_int(argv[0]));
    for (int i = 1; i < argc; i++)
        if (rs_value(&r, argv[i]) < 0) {
            sqlite3_result_error(cx, "warroom_rowsum: a REAL value", -1);
            return;
        }
    sqlite3_result_int64(cx, rs_final(&r));
}

/* --- tables and the checks of their columns ------------------------------------------ */

enum kind {
    K_NAME,         /* non-empty text, at most WRD_STORE_NAME_MAX bytes */
    K_TEXT,         /* text, may be empty */
    K_JSON,         /* non-empty text */
    K_TEXT_NULL,    /* text or NULL */
    K_NAME_NULL,    /* a K_NAME or NULL */
    K_HASH_NULL,    /* 64 lowercase hex digits, or NULL */
    K_SEED,         /* a 32-byte blob */
    K_COUNT,        /* integer >= 0 (times, counts, client seqs, versions of a game row) */
    K_VERSION,      /* integer >= 1 */
    K_STATUS,       /* open, running or finished */
    K_FLAG,         /* 0 or 1 */
    K_ONE,          /* the integer 1 (meta's id) */
    K_INT,          /* any integer */
};

struct column {
    const char *name;
    enum kind kind;
};

struct table {
    const char *name;
    int tag;
    int nkey;                       /* leading columns naming a row in messages */
    const struct column *cols;      /* every column but rowsum, in table order */
    int ncols;
};

static const struct column games_cols[] = {
    { "id", K_NAME }, { "ruleset", K_NAME }, { "scenario_name", K_TEXT },
    { "scenario", K_JSON }, { "options", K_JSON }, { "seed", K_SEED },
    { "created_at", K_COUNT }, { "status", K_STATUS }, { "result", K_TEXT_NULL },
    { "deadline_at", K_COUNT }, { "listed", K_FLAG }, { "version", K_COUNT },
    { "parent", K_NAME_NULL }, { "link_key", K_TEXT_NULL }, { "awaiting", K_NAME_NULL },
    { "moved_at", K_COUNT }, { "wake_at", K_COUNT },
};
static const struct column seats_cols[] = {
    { "game", K_NAME }, { "seat", K_NAME }, { "token_hash", K_HASH_NULL },
    { "invite_hash", K_HASH_NULL }, { "webhook", K_TEXT_NULL }, { "mail", K_TEXT_NULL },
};
static const struct column commands_cols[] = {
    { "game", K_NAME }, { "version", K_VERSION }, { "seat", K_NAME },
    { "client_seq", K_COUNT }, { "cmd", K_JSON }, { "events", K_JSON }, { "at", K_COUNT },
};
static const struct column snapshots_cols[] = {
    { "game", K_NAME }, { "version", K_VERSION }, { "state", K_JSON }, { "full", K_TEXT_NULL },
};
static const struct column meta_cols[] = {
    { "id", K_ONE }, { "games", K_COUNT }, { "seats", K_COUNT }, { "commands", K_COUNT },
    { "snapshots", K_COUNT }, { "opens", K_COUNT }, { "schema_sum", K_INT },
};

#define NCOLS(a) ((int)(sizeof a / sizeof a[0]))
static const struct table t_games = { "games", T_GAMES, 1, games_cols, NCOLS(games_cols) };
static const struct table t_seats = { "seats", T_SEATS, 2, seats_cols, NCOLS(seats_cols) };
static const struct table t_commands = { "commands", T_COMMANDS, 2, commands_cols,
                                         NCOLS(commands_cols) };
static const struct table t_snapshots = { "snapshots", T_SNAPSHOTS, 2, snapshots_cols,
                                          NCOLS(snapshots_cols) };
static const struct table t_meta = { "meta", T_META, 1, meta_cols, NCOLS(meta_cols) };

/* The columns of each table in order, rowsum last: what every row read selects. */
#define GAMES_COLS "id, ruleset, scenario_name, scenario, options, seed, created_at, status," \
                   " result, deadline_at, listed, version, parent, link_key, awaiting," \
                   " moved_at, wake_at, rowsum"
#define SEATS_COLS "game, seat, token_hash, invite_hash, webhook, mail, rowsum"
#define COMMANDS_COLS "game, version, seat, client_seq, cmd, events, at, rowsum"
#define SNAPSHOTS_COLS "game, version, state, full, rowsum"
#define META_COLS "id, games, seats, commands, snapshots, opens, schema_sum, rowsum"

enum { G_ID, G_RULESET, G_SCEN_NAME, G_SCENARIO, G_OPTIONS, G_SEED, G_CREATED, G_STATUS,
       G_RESULT, G_DEADLINE, G_LISTED, G_VERSION, G_PARENT, G_KEY, G_AWAITING, G_MOVED,
       G_WAKE };
enum { SN_GAME, SN_VERSION, SN_STATE, SN_FULL };
enum { C_GAME, C_VERSION, C_SEAT, C_SEQ, C_CMD, C_EVENTS, C_AT };
enum { M_ID, M_GAMES, M_SEATS, M_COMMANDS, M_SNAPSHOTS, M_OPENS, M_SCHEMA };

static const char *text(sqlite3_stmt *q, int i)
{
    return (const char *)sqlite3_column_text(q, i);
}

/* Text that can go into a log line as it is. */
static int printable(const unsigned char *t, int n)
{
    for (int i = 0; i < n; i++)
        if (t[i] < 0x20 || t[i] > 0x7e || t[i] == '"' || t[i] == '\\')
            return 0;
    return 1;
}

/* How a message names a row: its key columns when they can be printed. */
static void row_name(sqlite3_stmt *q, int col0, const struct table *t, char *out, size_t len)
{
    size_t at = 0;
    out[0] = '\0';
    for (int i = 0; i < t->nkey && at < len; i++) {
        int c = col0 + i;
        const char *sep = i ? ", " : "";
        if (sqlite3_column_type(q, c) == SQLITE_INTEGER)
            at += (size_t)snprintf(out + at, len - at, "%s%s %lld", sep, t->cols[i].name,
                                   (long long)sqlite3_column_int64(q, c));
        else if (sqlite3_column_type(q, c) == SQLITE_TEXT && sqlite3_column_bytes(q, c) <= 64 &&
                 printable(sqlite3_column_text(q, c), sqlite3_column_bytes(q, c)))
            at += (size_t)snprintf(out + at, len - at, "%s%s %s", sep, t->cols[i].name,
                                   text(q, c));
        else
            at += (size_t)snprintf(out + at, len - at, "%s%s unreadable", sep, t->cols[i].name);
    }
}

static int is_hex64(const unsigned char *t, int n)
{
    if (n != 64)
        return 0;
    for (int i = 0; i < n; i++)
        if (!((t[i] >= '0' && t[i] <= '9') || (t[i] >= 'a' && t[i] <= 'f')))
            return 0;
    return 1;
}

/* What is wrong with a column of kind k, or NULL. */
static const char *bad_column(sqlite3_stmt *q, int c, enum kind k)
{
    int type = sqlite3_column_type(q, c);
    if (type == SQLITE_NULL)
        return k == K_TEXT_NULL || k == K_HASH_NULL || k == K_NAME_NULL ? NULL : "NULL";
    switch (k) {
    case K_NAME:
    case K_TEXT:
    case K_JSON:
    case K_TEXT_NULL:
    case K_NAME_NULL:
    case K_HASH_NULL:
    case K_STATUS: {
        if (type != SQLITE_TEXT)
            return "not text";
        const unsigned char *t = sqlite3_column_text(q, c);
        int n = sqlite3_column_bytes(q, c);
        if (t == NULL)
            return "unreadable (out of memory?)";
        if ((int)strlen((const char *)t) != n)
            return "text holding a NUL byte";
        if ((k == K_NAME || k == K_NAME_NULL || k == K_JSON) && n == 0)
            return "empty";
        if ((k == K_NAME || k == K_NAME_NULL) && n > WRD_STORE_NAME_MAX)
            return "too long";
        if (k == K_HASH_NULL && !is_hex64(t, n))
            return "not 64 hex digits";
        if (k == K_STATUS && strcmp((const char *)t, "open") != 0 &&
            strcmp((const char *)t, "running") != 0 && strcmp((const char *)t, "finished") != 0)
            return "not open, running or finished";
        return NULL;
    }
    case K_SEED:
        if (type != SQLITE_BLOB)
            return "not a blob";
        return sqlite3_column_bytes(q, c) == 32 ? NULL : "not 32 bytes";
    case K_COUNT:
    case K_VERSION:
    case K_FLAG:
    case K_ONE:
    case K_INT: {
        if (type != SQLITE_INTEGER)
            return "not an integer";
        int64_t v = sqlite3_column_int64(q, c);
        if (k == K_COUNT && v < 0)
            return "negative";
        if (k == K_VERSION && v < 1)
            return "below 1";
        if (k == K_FLAG && v != 0 && v != 1)
            return "neither 0 nor 1";
        if (k == K_ONE && v != 1)
            return "not 1";
        return NULL;
    }
    }
    return "of an unknown kind";
}

/* Check the row of table t at columns col0.. of q (rowsum right after the
 * table's columns): each column, then the checksum. */
static int check_row(sqlite3_stmt *q, int col0, const struct table *t, char *err, size_t errlen)
{
    struct rowsum r;
    char name[200];
    rs_init(&r, t->tag);
    for (int i = 0; i < t->ncols; i++) {
        const char *why = bad_column(q, col0 + i, t->cols[i].kind);
        if (why) {
            row_name(q, col0, t, name, sizeof name);
            snprintf(err, errlen, "table %s, row (%s): column %s is %s", t->name, name,
                     t->cols[i].name, why);
            return WRD_STORE_DAMAGED;
        }
        rs_value(&r, sqlite3_column_value(q, col0 + i));
    }
    int sc = col0 + t->ncols;
    if (sqlite3_column_type(q, sc) != SQLITE_INTEGER ||
        sqlite3_column_int64(q, sc) != rs_final(&r)) {
        row_name(q, col0, t, name, sizeof name);
        snprintf(err, errlen, "table %s, row (%s): the checksum does not match the row", t->name,
                 name);
        return WRD_STORE_DAMAGED;
    }
    return 0;
}

/* --- statements and errors ------------------------------------------------------------- */

/* What an SQLite failure means for the caller. */
static int classify(int rc)
{
    switch (rc & 0xff) {
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
    case SQLITE_FORMAT:
        return WRD_STORE_DAMAGED;
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_AUTH:
        return WRD_STORE_READONLY;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return WRD_STORE_LOCKED;
    }
    return WRD_STORE_ERROR;
}

static int fail_sql(sqlite3 *db, int rc, const char *what, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: %s", what, sqlite3_errmsg(db));
    return classify(rc);
}

/* Step a statement expected to give rows: 1 a row, 0 done, < 0 an error. */
static int step_row(sqlite3 *db, sqlite3_stmt *q, const char *what, char *err, size_t errlen)
{
    int rc = sqlite3_step(q);
    if (rc == SQLITE_ROW)
        return 1;
    if (rc == SQLITE_DONE)
        return 0;
    return fail_sql(db, rc, what, err, errlen);
}

static int exec(sqlite3 *db, const char *sql, char *err, size_t errlen)
{
    char *msg = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK) {
        snprintf(err, errlen, "%s", msg ? msg : sqlite3_errmsg(db));
        sqlite3_free(msg);
        return classify(rc);
    }
    return 0;
}

/* One integer from a one-row query. */
static int query_int(sqlite3 *db, const char *sql, int64_t *out, char *err, size_t errlen)
{
    sqlite3_stmt *q;
    int rc = sqlite3_prepare_v2(db, sql, -1, &q, NULL);
    if (rc != SQLITE_OK)
        return fail_sql(db, rc, sql, err, errlen);
    rc = step_row(db, q, sql, err, errlen);
    if (rc == 1) {
        *out = sqlite3_column_int64(q, 0);
        rc = 0;
    } else if (rc == 0) {
        snprintf(err, errlen, "%s: no row", sql);
        rc = WRD_STORE_ERROR;
    }
    sqlite3_finalize(q);
    return rc;
}

/* --- the store's objects --------------------------------------------------------------- */

enum {
    S_BEGIN, S_COMMIT, S_ROLLBACK, S_PUT_GAME, S_PUT_SEAT, S_UPDATE_SEAT, S_PUT_COMMAND,
    S_PUT_STATUS, S_PUT_SNAPSHOT, S_PUT_META, S_NSTMTS
};

static const char *const stmt_sql[S_NSTMTS] = {
    [S_BEGIN] = "BEGIN",
    [S_COMMIT] = "COMMIT",
    [S_ROLLBACK] = "ROLLBACK",
    [S_PUT_GAME] = "INSERT INTO games (" GAMES_COLS ")"
                   " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'open', NULL, 0, ?8, 0, ?10, ?11, NULL,"
                   " 0, 0, ?9)",
    [S_PUT_SEAT] = "INSERT INTO seats (" SEATS_COLS ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    /* Only a row whose checksum still matches is changed. */
    [S_UPDATE_SEAT] = "UPDATE seats SET token_hash = ?3, invite_hash = ?4, webhook = ?5,"
                      " mail = ?6, rowsum = ?7 WHERE game = ?1 AND seat = ?2 AND rowsum ="
                      " warroom_rowsum(3, game, seat, token_hash, invite_hash, webhook, mail)",
    [S_PUT_COMMAND] = "INSERT INTO commands (" COMMANDS_COLS ")"
                      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    /* The game's other columns (the scenario among them) are not passed
     * in: the new checksum is computed in SQL from them, by the same C. */
    [S_PUT_STATUS] = "UPDATE games SET status = ?2, result = ?3, deadline_at = ?4, version = ?5,"
                     " awaiting = ?6, moved_at = ?7, wake_at = ?8,"
                     " rowsum = warroom_rowsum(2, id, ruleset, scenario_name, scenario, options,"
                     " seed, created_at, ?2, ?3, ?4, listed, ?5, parent, link_key, ?6, ?7, ?8)"
                     " WHERE id = ?1 AND rowsum = warroom_rowsum(2, id, ruleset, scenario_name,"
                     " scenario, options, seed, created_at, status, result, deadline_at, listed,"
                     " version, parent, link_key, awaiting, moved_at, wake_at)",
    [S_PUT_SNAPSHOT] = "INSERT INTO snapshots (" SNAPSHOTS_COLS ") VALUES (?1, ?2, ?3, ?4, ?5)",
    /* Only over the row this process last wrote. */
    [S_PUT_META] = "UPDATE meta SET games = ?1, seats = ?2, commands = ?3, snapshots = ?4,"
                   " rowsum = ?5 WHERE id = 1 AND games = ?6 AND seats = ?7 AND commands = ?8"
                   " AND snapshots = ?9 AND rowsum = ?10",
};

enum {
    R_BEGIN, R_COMMIT, R_GAME, R_SEATS, R_COMMANDS, R_COMMANDS_AFTER, R_SNAPSHOT, R_SNAPSHOTS,
    R_FULL_SNAPSHOT, R_LIST, R_LIST_AFTER, R_LIST_RULESET, R_LIST_RULESET_AFTER, R_RUN,
    R_RUN_AFTER, R_RUN_RULESET, R_RUN_RULESET_AFTER, R_START_IDS, R_ALL_IDS, R_DUE_IDS,
    R_MAIL_IDS, R_LINKS, R_NSTMTS
};

/* The lobby's listings: the four of finished games, then the four of
 * running ones (the same order: R_RUN - R_LIST apart). */
#define LISTED "SELECT " GAMES_COLS " FROM games WHERE status = 'finished' AND listed = 1"
#define RUNNING "SELECT " GAMES_COLS " FROM games WHERE status = 'running' AND listed = 1"
#define NEWEST " ORDER BY created_at DESC, id DESC LIMIT ?1"

static const char *const read_sql[R_NSTMTS] = {
    [R_BEGIN] = "BEGIN",
    [R_COMMIT] = "COMMIT",
    [R_GAME] = "SELECT " GAMES_COLS " FROM games WHERE id = ?1",
    [R_SEATS] = "SELECT " SEATS_COLS " FROM seats WHERE game = ?1 ORDER BY rowid",
    [R_COMMANDS] = "SELECT " COMMANDS_COLS " FROM commands WHERE game = ?1 ORDER BY version",
    [R_COMMANDS_AFTER] = "SELECT " COMMANDS_COLS " FROM commands WHERE game = ?1"
                         " AND version > ?2 ORDER BY version",
    [R_SNAPSHOT] = "SELECT " SNAPSHOTS_COLS " FROM snapshots WHERE game = ?1"
                   " ORDER BY version DESC LIMIT 1",
    [R_SNAPSHOTS] = "SELECT " SNAPSHOTS_COLS " FROM snapshots WHERE game = ?1 ORDER BY version",
    [R_FULL_SNAPSHOT] = "SELECT " SNAPSHOTS_COLS " FROM snapshots WHERE game = ?1"
                        " AND full IS NOT NULL ORDER BY version DESC LIMIT 1",
    [R_LIST] = LISTED NEWEST,
    [R_LIST_AFTER] = LISTED " AND (created_at, id) < (?2, ?3)" NEWEST,
    [R_LIST_RULESET] = LISTED " AND ruleset = ?4" NEWEST,
    [R_LIST_RULESET_AFTER] = LISTED " AND ruleset = ?4 AND (created_at, id) < (?2, ?3)" NEWEST,
    [R_RUN] = RUNNING NEWEST,
    [R_RUN_AFTER] = RUNNING " AND (created_at, id) < (?2, ?3)" NEWEST,
    [R_RUN_RULESET] = RUNNING " AND ruleset = ?4" NEWEST,
    [R_RUN_RULESET_AFTER] = RUNNING " AND ruleset = ?4 AND (created_at, id) < (?2, ?3)" NEWEST,
    /* A start: open games, and running ones whose deadline comes before ?1;
     * each half read through its own partial index. */
    [R_START_IDS] = ("SELECT id, created_at FROM games WHERE status = 'open'"
                     " UNION ALL SELECT id, created_at FROM games WHERE status = 'running'"
                     " AND wake_at > 0 AND wake_at <= ?1 ORDER BY 2, 1"),
    [R_ALL_IDS] = "SELECT id FROM games ORDER BY created_at, id",
    [R_DUE_IDS] = ("SELECT id FROM games WHERE status = 'running' AND wake_at > 1"
                   " AND wake_at <= ?1 ORDER BY created_at, id"),
    [R_MAIL_IDS] = ("SELECT id FROM games WHERE status = 'running' AND EXISTS (SELECT 1 FROM"
                    " seats WHERE seats.game = games.id AND seats.mail IS NOT NULL)"
                    " ORDER BY created_at, id"),
    [R_LINKS] = ("SELECT id, parent, link_key, ruleset, status, result FROM games"
                 " WHERE parent IS NOT NULL ORDER BY created_at, id"),
};

struct counts {
    int64_t games, seats, commands, snapshots;
};

/* The read connection and what serialises its users. */
struct reader {
    sqlite3 *db;                /* the read-only connection (the write one for :memory:) */
    sqlite3_stmt *stmt[R_NSTMTS];
    pthread_mutex_t mutex;      /* recursive */
    int depth;                  /* nested read calls; the outermost one owns the transaction */
};

struct sqlite_store {
    struct wrd_store base;      /* must be first */
    sqlite3 *db;                /* the write connection, loop thread only */
    sqlite3_stmt *stmt[S_NSTMTS];
    int lock_fd;                /* flock()ed for the store's life, or -1 (:memory:) */
    int in_batch;
    int failed;                 /* a write of the open batch failed */
    char fail_msg[256];
    struct counts committed;    /* as meta holds them */
    struct counts batch;        /* with the open batch */
    int64_t opens, schema_sum, meta_sum;
    struct reader rd;
};

static void finalize_all(struct sqlite_store *s)
{
    for (int i = 0; i < S_NSTMTS; i++) {
        sqlite3_finalize(s->stmt[i]);
        s->stmt[i] = NULL;
    }
    for (int i = 0; i < R_NSTMTS; i++) {
        sqlite3_finalize(s->rd.stmt[i]);
        s->rd.stmt[i] = NULL;
    }
}

static int64_t meta_rowsum(const struct counts *c, int64_t opens, int64_t schema_sum)
{
    struct rowsum r;
    rs_init(&r, T_META);
    rs_int(&r, 1);
    rs_int(&r, c->games);
    rs_int(&r, c->seats);
    rs_int(&r, c->commands);
    rs_int(&r, c->snapshots);
    rs_int(&r, opens);
    rs_int(&r, schema_sum);
    return rs_final(&r);
}

/* The checksum of the schema: every table and index, as SQLite keeps it
 * (but the statistics tables an ANALYZE may add: they change no row). */
static int schema_rowsum(sqlite3 *db, int64_t *out, char *err, size_t errlen)
{
    static const char sql[] = "SELECT type, name, tbl_name, sql FROM sqlite_schema"
                              " WHERE name NOT LIKE 'sqlite\\_stat%' ESCAPE '\\' ORDER BY name";
    sqlite3_stmt *q;
    int rc = sqlite3_prepare_v2(db, sql, -1, &q, NULL);
    if (rc != SQLITE_OK)
        return fail_sql(db, rc, "reading the schema", err, errlen);
    struct rowsum r;
    rs_init(&r, T_META);
    while ((rc = step_row(db, q, "reading the schema", err, errlen)) == 1)
        for (int i = 0; i < 4; i++)
            rs_value(&r, sqlite3_column_value(q, i));
    sqlite3_finalize(q);
    *out = rs_final(&r);
    return rc;
}

/* --- open: lock, check, migrate, prove writable ----------------------------------------- */

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

/* Version 3 is version 2 and this: a new store is created by both steps, so
 * it has exactly the schema of a migrated one. `listed` follows the game's
 * options as games.c reads them (spectators unless false, open_seats when
 * true); `version` is the last command's. The listing's indexes hold only
 * finished listed games: a game's row enters them once, when it finishes,
 * so creating, claiming and playing write no index page for them. */
static const char migrate_v3[] =
    "ALTER TABLE games ADD COLUMN listed INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE games ADD COLUMN version INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE games ADD COLUMN rowsum INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE seats ADD COLUMN rowsum INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE commands ADD COLUMN rowsum INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE snapshots ADD COLUMN rowsum INTEGER NOT NULL DEFAULT 0;"
    "CREATE TABLE meta ("
    "  id INTEGER PRIMARY KEY, games INTEGER NOT NULL, seats INTEGER NOT NULL,"
    "  commands INTEGER NOT NULL, snapshots INTEGER NOT NULL, opens INTEGER NOT NULL,"
    "  schema_sum INTEGER NOT NULL, rowsum INTEGER NOT NULL);"
    "CREATE INDEX games_finished ON games (created_at, id)"
    "  WHERE status = 'finished' AND listed = 1;"
    "CREATE INDEX games_finished_ruleset ON games (ruleset, created_at, id)"
    "  WHERE status = 'finished' AND listed = 1;"
    "UPDATE games SET"
    "  listed = (json_extract(options, '$.spectators') IS NOT 0"
    "            OR json_extract(options, '$.open_seats') IS 1),"
    "  version = coalesce((SELECT max(c.version) FROM commands c WHERE c.game = games.id), 0);"
    "UPDATE games SET rowsum = warroom_rowsum(2, id, ruleset, scenario_name, scenario, options,"
    "  seed, created_at, status, result, deadline_at, listed, version);"
    "UPDATE seats SET rowsum = warroom_rowsum(3, game, seat, token_hash, invite_hash, webhook);"
    "UPDATE commands SET rowsum = warroom_rowsum(4, game, version, seat, client_seq, cmd, events,"
    "  at);"
    "UPDATE snapshots SET rowsum = warroom_rowsum(5, game, version, state);"
    "PRAGMA application_id = 1465012045;";    /* APPLICATION_ID */

_Static_assert(APPLICATION_ID == 1465012045, "migrate_v3 writes APPLICATION_ID");

/* Version 4 is version 3 and this: linked games (docs/architecture.md,
 * "Linked games"). A child game names its parent game and the key the
 * parent's ruleset gave it; other games hold NULL in both. Each checksum
 * is computed again over the two new columns. */
static const char migrate_v4[] =
    "ALTER TABLE games ADD COLUMN parent TEXT;"
    "ALTER TABLE games ADD COLUMN link_key TEXT;"
    "UPDATE games SET rowsum = warroom_rowsum(2, id, ruleset, scenario_name, scenario, options,"
    "  seed, created_at, status, result, deadline_at, listed, version, parent, link_key);";

/* Version 5 is version 4 and this: a seat's mail registration (games.c,
 * "Play by email"), a JSON object or NULL. Each seat's checksum is
 * computed again over the new column. */
static const char migrate_v5[] =
    "ALTER TABLE seats ADD COLUMN mail TEXT;"
    "UPDATE seats SET rowsum = warroom_rowsum(3, game, seat, token_hash, invite_hash, webhook,"
    "  mail);";

/* Version 6 is version 5 and this: what a lobby shows of a running game
 * that is not in memory (the seat it awaits, its last move's time), the
 * full state a snapshot may carry (the game restored from it rather than
 * replayed from its first command), when a running game is next due
 * (wake_at), and the partial indexes a start and the deadline sweep read
 * instead of the whole table. Checksums are computed again over the new
 * columns. */
static const char migrate_v6[] =
    "ALTER TABLE games ADD COLUMN awaiting TEXT;"
    "ALTER TABLE games ADD COLUMN moved_at INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE games ADD COLUMN wake_at INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE snapshots ADD COLUMN full TEXT;"
    "CREATE INDEX games_running ON games (created_at, id)"
    "  WHERE status = 'running' AND listed = 1;"
    "CREATE INDEX games_running_ruleset ON games (ruleset, created_at, id)"
    "  WHERE status = 'running' AND listed = 1;"
    "CREATE INDEX games_open ON games (created_at, id) WHERE status = 'open';"
    "CREATE INDEX games_due ON games (wake_at) WHERE status = 'running' AND wake_at > 0;"
    "CREATE INDEX games_linked ON games (created_at, id) WHERE parent IS NOT NULL;"
    /* the running games a start must load (until their rows are written
     * again): a deadline's, and the linked ones (always held) */
    "UPDATE games SET wake_at = 1 WHERE status = 'running' AND (deadline_at > 0"
    "  OR parent IS NOT NULL OR id IN (SELECT parent FROM games WHERE parent IS NOT NULL));"
    "UPDATE games SET rowsum = warroom_rowsum(2, id, ruleset, scenario_name, scenario, options,"
    "  seed, created_at, status, result, deadline_at, listed, version, parent, link_key,"
    "  awaiting, moved_at, wake_at);"
    "UPDATE snapshots SET rowsum = warroom_rowsum(5, game, version, state, full);";

/* Within the migration's transaction: meta's one row. */
static int create_meta(sqlite3 *db, char *err, size_t errlen)
{
    struct counts c;
    int64_t schema;
    int rc;
    if ((rc = query_int(db, "SELECT count(*) FROM games", &c.games, err, errlen)) < 0 ||
        (rc = query_int(db, "SELECT count(*) FROM seats", &c.seats, err, errlen)) < 0 ||
        (rc = query_int(db, "SELECT count(*) FROM commands", &c.commands, err, errlen)) < 0 ||
        (rc = query_int(db, "SELECT count(*) FROM snapshots", &c.snapshots, err, errlen)) < 0 ||
        (rc = schema_rowsum(db, &schema, err, errlen)) < 0)
        return rc;
    char sql[512];
    snprintf(sql, sizeof sql, "INSERT INTO meta (" META_COLS ") VALUES (1, %lld, %lld, %lld,"
             " %lld, 0, %lld, %lld)", (long long)c.games, (long long)c.seats,
             (long long)c.commands, (long long)c.snapshots, (long long)schema,
             (long long)meta_rowsum(&c, 0, schema));
    return exec(db, sql, err, errlen);
}

/* Within the migration's transaction, from version 3: meta's row holds
 * the checksum of the new schema (its counts and opens are unchanged). */
static int remeta(sqlite3 *db, char *err, size_t errlen)
{
    struct counts c;
    int64_t opens, schema;
    int rc;
    if ((rc = query_int(db, "SELECT games FROM meta", &c.games, err, errlen)) < 0 ||
        (rc = query_int(db, "SELECT seats FROM meta", &c.seats, err, errlen)) < 0 ||
        (rc = query_int(db, "SELECT commands FROM meta", &c.commands, err, errlen)) < 0 ||
        (rc = query_int(db, "SELECT snapshots FROM meta", &c.snapshots, err, errlen)) < 0 ||
        (rc = query_int(db, "SELECT opens FROM meta", &opens, err, errlen)) < 0 ||
        (rc = schema_rowsum(db, &schema, err, errlen)) < 0)
        return rc;
    char sql[256];
    snprintf(sql, sizeof sql, "UPDATE meta SET schema_sum = %lld, rowsum = %lld WHERE id = 1",
             (long long)schema, (long long)meta_rowsum(&c, opens, schema));
    return exec(db, sql, err, errlen);
}

/* Create (from 0) or migrate (from 2, 3, 4 or 5) to version 6, in one transaction. */
static int migrate(sqlite3 *db, int from, char *err, size_t errlen)
{
    int rc;
    if ((rc = exec(db, "BEGIN IMMEDIATE", err, errlen)) < 0)
        return rc;
    if ((from == 0 && (rc = exec(db, schema_v2, err, errlen)) < 0) ||
        (from < 3 && (rc = exec(db, migrate_v3, err, errlen)) < 0) ||
        (from < 4 && (rc = exec(db, migrate_v4, err, errlen)) < 0) ||
        (from < 5 && (rc = exec(db, migrate_v5, err, errlen)) < 0) ||
        (rc = exec(db, migrate_v6, err, errlen)) < 0 ||
        (rc = from < 3 ? create_meta(db, err, errlen) : remeta(db, err, errlen)) < 0 ||
        (rc = exec(db, "PRAGMA user_version = 6", err, errlen)) < 0) {
        char ignored[64];
        exec(db, "ROLLBACK", ignored, sizeof ignored);
        return rc;
    }
    return exec(db, "COMMIT", err, errlen);
}

/* PRAGMA quick_check or integrity_check: "ok", or up to three of its findings. */
static int sqlite_check(sqlite3 *db, int full, char *err, size_t errlen)
{
    const char *name = full ? "integrity_check" : "quick_check";
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA %s(3)", name);
    sqlite3_stmt *q;
    int rc = sqlite3_prepare_v2(db, sql, -1, &q, NULL);
    if (rc != SQLITE_OK)
        return fail_sql(db, rc, name, err, errlen);
    char found[400] = "";
    size_t at = 0;
    int bad = 0;
    while ((rc = step_row(db, q, name, err, errlen)) == 1) {
        const char *t = text(q, 0);
        if (t && strcmp(t, "ok") == 0 && !bad)
            continue;
        if (at < sizeof found)
            at += (size_t)snprintf(found + at, sizeof found - at, "%s%s", bad ? "; " : "",
                                   t ? t : "(no text)");
        bad++;
    }
    sqlite3_finalize(q);
    if (rc < 0)
        return rc;
    if (bad) {
        for (char *p = found; *p; p++)
            if (*p == '\n' || *p == '"')
                *p = ' ';
        snprintf(err, errlen, "%s: %s", name, found);
        return WRD_STORE_DAMAGED;
    }
    return 0;
}

struct meta_row {
    struct counts c;
    int64_t opens, schema_sum, rowsum;
};

/* Meta's one row, checked. */
static int read_meta(sqlite3 *db, struct meta_row *m, char *err, size_t errlen)
{
    sqlite3_stmt *q;
    int rc = sqlite3_prepare_v2(db, "SELECT " META_COLS " FROM meta", -1, &q, NULL);
    if (rc != SQLITE_OK)
        return fail_sql(db, rc, "reading meta", err, errlen);
    int rows = 0;
    while ((rc = step_row(db, q, "reading meta", err, errlen)) == 1) {
        if (++rows > 1)
            break;
        if ((rc = check_row(q, 0, &t_meta, err, errlen)) < 0)
            break;
        m->c = (struct counts){ sqlite3_column_int64(q, M_GAMES), sqlite3_column_int64(q, M_SEATS),
                                sqlite3_column_int64(q, M_COMMANDS),
                                sqlite3_column_int64(q, M_SNAPSHOTS) };
        m->opens = sqlite3_column_int64(q, M_OPENS);
        m->schema_sum = sqlite3_column_int64(q, M_SCHEMA);
        m->rowsum = sqlite3_column_int64(q, t_meta.ncols);
    }
    sqlite3_finalize(q);
    if (rc < 0)
        return rc;
    if (rows != 1) {
        snprintf(err, errlen, "table meta holds %s rows, not 1", rows ? "several" : "no");
        return WRD_STORE_DAMAGED;
    }
    return 0;
}

/* The write a store must take at open: one more open counted in meta. */
static int prove_writable(struct sqlite_store *s, char *err, size_t errlen)
{
    int rc;
    if ((rc = exec(s->db, "BEGIN IMMEDIATE", err, errlen)) < 0)
        return rc;
    struct meta_row m;
    if ((rc = read_meta(s->db, &m, err, errlen)) == 0) {
        s->committed = s->batch = m.c;
        s->opens = m.opens;
        s->schema_sum = m.schema_sum;
        s->meta_sum = m.rowsum;
        int64_t sum = meta_rowsum(&s->committed, s->opens + 1, s->schema_sum);
        char sql[256];
        snprintf(sql, sizeof sql, "UPDATE meta SET opens = %lld, rowsum = %lld WHERE id = 1"
                 " AND rowsum = %lld", (long long)(s->opens + 1), (long long)sum,
                 (long long)s->meta_sum);
        if ((rc = exec(s->db, sql, err, errlen)) == 0 && sqlite3_changes(s->db) != 1) {
            snprintf(err, errlen, "table meta changed under this process");
            rc = WRD_STORE_ERROR;
        }
        if (rc == 0 && (rc = exec(s->db, "COMMIT", err, errlen)) == 0) {
            s->opens++;
            s->meta_sum = sum;
            return 0;
        }
    }
    char ignored[64];
    exec(s->db, "ROLLBACK", ignored, sizeof ignored);
    return rc;
}

/* The lock: a descriptor of the database file itself, flock()ed. The file is
 * created when missing, so two servers starting at once meet on it. */
static int take_lock(struct sqlite_store *s, const char *location, char *err, size_t errlen)
{
    s->lock_fd = open(location, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (s->lock_fd < 0 && errno == ENOENT)
        s->lock_fd = open(location, O_RDWR | O_CREAT | O_CLOEXEC | O_NOCTTY, 0644);
    if (s->lock_fd < 0) {
        int e = errno;
        snprintf(err, errlen, "cannot open %s: %s", location, strerror(e));
        return e == EACCES || e == EPERM || e == EROFS ? WRD_STORE_READONLY : WRD_STORE_ERROR;
    }
    if (flock(s->lock_fd, LOCK_EX | LOCK_NB) < 0) {
        int e = errno;
        if (e == EWOULDBLOCK) {
            snprintf(err, errlen, "%s is in use by another process (another warroomd?): one "
                     "server per database", location);
            return WRD_STORE_LOCKED;
        }
        snprintf(err, errlen, "cannot lock %s: %s", location, strerror(e));
        return WRD_STORE_ERROR;
    }
    return 0;
}

static int in_memory(const char *location)
{
    return location[0] == '\0' || strcmp(location, ":memory:") == 0;
}

static void store_free(struct sqlite_store *s)
{
    finalize_all(s);
    if (s->rd.db && s->rd.db != s->db)
        sqlite3_close(s->rd.db);
    sqlite3_close(s->db);
    if (s->lock_fd >= 0)
        close(s->lock_fd);
    pthread_mutex_destroy(&s->rd.mutex);
    free(s);
}

static int sqlite_open(struct wrd_store **out, const char *location, int flags, char *err,
                       size_t errlen)
{
    struct sqlite_store *s = calloc(1, sizeof *s);
    if (s == NULL) {
        snprintf(err, errlen, "out of memory");
        return WRD_STORE_ERROR;
    }
    s->base.ops = &wrd_store_sqlite_ops;
    s->lock_fd = -1;
    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&s->rd.mutex, &ma);
    pthread_mutexattr_destroy(&ma);
    int memory = in_memory(location), rc;
    if (strncmp(location, "file:", 5) == 0) {
        /* This SQLite reads such names as URIs: the lock would not be on
         * the file SQLite opens. */
        snprintf(err, errlen, "%s: a URI is not a path (write ./%s for a file so named)",
                 location, location);
        rc = WRD_STORE_ERROR;
        goto fail;
    }

    /* 1) one server per database */
    if (!memory && (rc = take_lock(s, location, err, errlen)) < 0)
        goto fail;
    rc = sqlite3_open_v2(location, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (rc != SQLITE_OK) {
        snprintf(err, errlen, "cannot open %s: %s", location,
                 s->db ? sqlite3_errmsg(s->db) : "out of memory");
        rc = classify(rc);
        goto fail;
    }
    sqlite3_extended_result_codes(s->db, 1);
    sqlite3_busy_timeout(s->db, 0);
    if (sqlite3_create_function(s->db, "warroom_rowsum", -1,
                                SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY, NULL,
                                sql_rowsum, NULL, NULL) != SQLITE_OK) {
        rc = fail_sql(s->db, SQLITE_ERROR, "registering warroom_rowsum", err, errlen);
        goto fail;
    }
    /* 2) a file this process may not write is refused now, not at the
     * first create */
    if (sqlite3_db_readonly(s->db, "main") != 0) {
        snprintf(err, errlen, "%s is read-only for this process", location);
        rc = WRD_STORE_READONLY;
        goto fail;
    }
    sqlite3_stmt *q;
    rc = sqlite3_prepare_v2(s->db, "PRAGMA journal_mode=WAL", -1, &q, NULL);
    if (rc != SQLITE_OK) {
        rc = fail_sql(s->db, rc, "journal_mode", err, errlen);
        goto fail;
    }
    rc = step_row(s->db, q, "journal_mode=WAL", err, errlen);
    if (rc == 1) {
        const char *mode = text(q, 0);
        if (mode == NULL || strcmp(mode, memory ? "memory" : "wal") != 0) {
            snprintf(err, errlen, "%s stays in journal mode %s, not WAL (is its directory "
                     "writable?)", location, mode ? mode : "(none)");
            rc = WRD_STORE_READONLY;
        } else {
            rc = 0;
        }
    } else if (rc == 0) {
        snprintf(err, errlen, "journal_mode=WAL gave no answer");
        rc = WRD_STORE_ERROR;
    }
    sqlite3_finalize(q);
    if (rc < 0)
        goto fail;
    if ((rc = exec(s->db, "PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;"
                          "PRAGMA cache_size=-" WRITER_CACHE_KIB ";"
                          "PRAGMA wal_autocheckpoint=" WAL_CHECKPOINT_PAGES ";", err, errlen)) < 0)
        goto fail;
    /* 3) SQLite's own check, when asked, before anything is written: it
     * reads every page, so a start that wants to take the same time
     * whatever the store holds does not ask (warroomd --verify does) */
    if ((flags & (WRD_STORE_CHECK_QUICK | WRD_STORE_CHECK_FULL)) &&
        (rc = sqlite_check(s->db, flags & WRD_STORE_CHECK_FULL, err, errlen)) < 0)
        goto fail;
    /* 4) the schema: new, migrated, or this version's */
    int64_t v, ntables, appid;
    if ((rc = query_int(s->db, "PRAGMA user_version", &v, err, errlen)) < 0 ||
        (rc = query_int(s->db, "SELECT count(*) FROM sqlite_schema", &ntables, err, errlen)) < 0 ||
        (rc = query_int(s->db, "PRAGMA application_id", &appid, err, errlen)) < 0)
        goto fail;
    if (v == 0 && ntables != 0) {
        snprintf(err, errlen, "%s holds tables but no schema version", location);
        rc = WRD_STORE_DAMAGED;
        goto fail;
    }
    if (v != 0 && (v < 2 || v > SCHEMA_VERSION)) {
        snprintf(err, errlen, "%s has schema version %lld; this warroomd knows 2 to %d",
                 location, (long long)v, SCHEMA_VERSION);
        rc = WRD_STORE_ERROR;
        goto fail;
    }
    if (v == SCHEMA_VERSION && appid != APPLICATION_ID) {
        snprintf(err, errlen, "%s: the application id in the header is %lld, not warroomd's",
                 location, (long long)appid);
        rc = WRD_STORE_DAMAGED;
        goto fail;
    }
    if (v != SCHEMA_VERSION && (rc = migrate(s->db, (int)v, err, errlen)) < 0)
        goto fail;
    /* 5) it can be written: a write transaction at open, not at the first create */
    if ((rc = prove_writable(s, err, errlen)) < 0)
        goto fail;
    /* 6) the read connection */
    if (memory) {
        s->rd.db = s->db;
    } else {
        rc = sqlite3_open_v2(location, &s->rd.db, SQLITE_OPEN_READONLY, NULL);
        if (rc != SQLITE_OK) {
            snprintf(err, errlen, "cannot open %s for reading: %s", location,
                     s->rd.db ? sqlite3_errmsg(s->rd.db) : "out of memory");
            rc = classify(rc);
            goto fail;
        }
        sqlite3_extended_result_codes(s->rd.db, 1);
        sqlite3_busy_timeout(s->rd.db, 5000);   /* worker threads may wait */
        if ((rc = exec(s->rd.db, "PRAGMA cache_size=-" READER_CACHE_KIB, err, errlen)) < 0)
            goto fail;
    }
    for (int i = 0; i < S_NSTMTS; i++)
        if ((rc = sqlite3_prepare_v3(s->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
                                     &s->stmt[i], NULL)) != SQLITE_OK) {
            rc = fail_sql(s->db, rc, "prepare", err, errlen);
            goto fail;
        }
    for (int i = 0; i < R_NSTMTS; i++)
        if ((rc = sqlite3_prepare_v3(s->rd.db, read_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
                                     &s->rd.stmt[i], NULL)) != SQLITE_OK) {
            rc = fail_sql(s->rd.db, rc, "prepare", err, errlen);
            goto fail;
        }
    *out = &s->base;
    return 0;
fail:
    store_free(s);
    return rc;
}

/* --- writes ---------------------------------------------------------------------------- */

static void run_failed(struct sqlite_store *s, const char *msg)
{
    if (!s->failed)
        snprintf(s->fail_msg, sizeof s->fail_msg, "%s", msg);
    s->failed = 1;
}

/* Run a write statement; changes: the rows it must change, or -1 for any. */
static int run(struct sqlite_store *s, int which, int changes)
{
    sqlite3_stmt *st = s->stmt[which];
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE) {
        run_failed(s, sqlite3_errmsg(s->db));
        return -1;
    }
    if (changes >= 0 && sqlite3_changes(s->db) != changes) {
        char m[128];
        snprintf(m, sizeof m, "%.40s... changed %d rows, not %d (a damaged or missing row)",
                 stmt_sql[which], sqlite3_changes(s->db), changes);
        run_failed(s, m);
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
    s->batch = s->committed;
    return run(s, S_BEGIN, -1);
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
    struct rowsum r;
    rs_init(&r, T_GAMES);
    rs_text(&r, g->id);
    rs_text(&r, g->ruleset);
    rs_text(&r, g->scenario_name);
    rs_text(&r, g->scenario_json);
    rs_text(&r, g->options_json);
    rs_bytes(&r, V_BLOB, g->seed, 32);
    rs_int(&r, g->created_ms);
    rs_text(&r, "open");
    rs_null(&r);
    rs_int(&r, 0);
    rs_int(&r, g->listed != 0);
    rs_int(&r, 0);
    rs_text(&r, g->parent);
    rs_text(&r, g->parent ? g->link_key : NULL);
    rs_null(&r);                    /* awaiting */
    rs_int(&r, 0);                  /* moved_at */
    rs_int(&r, 0);                  /* wake_at */
    sqlite3_stmt *q = s->stmt[S_PUT_GAME];
    bind_text(q, 1, g->id);
    bind_text(q, 2, g->ruleset);
    bind_text(q, 3, g->scenario_name);
    bind_text(q, 4, g->scenario_json);
    bind_text(q, 5, g->options_json);
    sqlite3_bind_blob(q, 6, g->seed, 32, SQLITE_STATIC);
    sqlite3_bind_int64(q, 7, g->created_ms);
    sqlite3_bind_int(q, 8, g->listed != 0);
    sqlite3_bind_int64(q, 9, rs_final(&r));
    bind_text(q, 10, g->parent);
    bind_text(q, 11, g->parent ? g->link_key : NULL);
    if (run(s, S_PUT_GAME, 1) < 0)
        return -1;
    s->batch.games++;
    return 0;
}

static int64_t seat_rowsum(const struct wrd_seat_row *r)
{
    struct rowsum h;
    rs_init(&h, T_SEATS);
    rs_text(&h, r->game);
    rs_text(&h, r->seat);
    rs_text(&h, r->token_hash);
    rs_text(&h, r->invite_hash);
    rs_text(&h, r->webhook);
    rs_text(&h, r->mail);
    return rs_final(&h);
}

static void bind_seat(sqlite3_stmt *q, const struct wrd_seat_row *r)
{
    bind_text(q, 1, r->game);
    bind_text(q, 2, r->seat);
    bind_text(q, 3, r->token_hash);
    bind_text(q, 4, r->invite_hash);
    bind_text(q, 5, r->webhook);
    bind_text(q, 6, r->mail);
    sqlite3_bind_int64(q, 7, seat_rowsum(r));
}

static int sqlite_put_seat(struct wrd_store *st, const struct wrd_seat_row *r)
{
    struct sqlite_store *s = (struct sqlite_store *)st;
    if (begin(s) < 0)
        return -1;
    bind_seat(s->stmt[S_PUT_SEAT], r);
    if (run(s, S_PUT_SEAT, 1) < 0)
        return -1;
    s->batch.seats++;
    return 0;
}

static int sqlite_update_seat(struct wrd_store *st, const struct wrd_seat_row *r)
{
    struct sqlite_store *s = (struct sqlite_store *)st;
    if (begin(s) < 0)
        return -1;
    bind_seat(s->stmt[S_UPDATE_SEAT], r);
    return run(s, S_UPDATE_SEAT, 1);
}

static int sqlite_put_command(struct wrd_store *st, const struct wrd_command_row *c)
{
    struct sqlite_store *s = (struct sqlite_store *)st;
    if (begin(s) < 0)
        return -1;
    struct rowsum r;
    rs_init(&r, T_COMMANDS);
    rs_text(&r, c->game);
    rs_int(&r, c->version);
    rs_text(&r, c->seat);
    rs_int(&r, c->client_seq);
    rs_text(&r, c->cmd_json);
    rs_text(&r, c->events_json);
    rs_int(&r, c->at_ms);
    sqlite3_stmt *q = s->stmt[S_PUT_COMMAND];
    bind_text(q, 1, c->game);
    sqlite3_bind_int64(q, 2, c->version);
    bind_text(q, 3, c->seat);
    sqlite3_bind_int64(q, 4, c->client_seq);
    bind_text(q, 5, c->cmd_json);
    bind_text(q, 6, c->events_json);
    sqlite3_bind_int64(q, 7, c->at_ms);
    sqlite3_bind_int64(q, 8, rs_final(&r));
    if (run(s, S_PUT_COMMAND, 1) < 0)
        return -1;
    s->batch.commands++;
    return 0;
}

static int sqlite_put_status(struct wrd_store *st, const struct wrd_status_row *r)
{
    struct sqlite_store *s = (struct sqlite_store *)st;
    if (begin(s) < 0)
        return -1;
    sqlite3_stmt *q = s->stmt[S_PUT_STATUS];
    bind_text(q, 1, r->game);
    bind_text(q, 2, r->status);
    bind_text(q, 3, r->result);
    sqlite3_bind_int64(q, 4, r->deadline_ms);
    sqlite3_bind_int64(q, 5, r->version);
    bind_text(q, 6, r->awaiting);
    sqlite3_bind_int64(q, 7, r->moved_ms);
    sqlite3_bind_int64(q, 8, r->wake_ms);
    return run(s, S_PUT_STATUS, 1);
}

static int sqlite_put_snapshot(struct wrd_store *st, const char *game, int64_t version,
                               const char *state_json, const char *full_json)
{
    struct sqlite_store *s = (struct sqlite_store *)st;
    if (begin(s) < 0)
        return -1;
    struct rowsum r;
    rs_init(&r, T_SNAPSHOTS);
    rs_text(&r, game);
    rs_int(&r, version);
    rs_text(&r, state_json);
    rs_text(&r, full_json);
    sqlite3_stmt *q = s->stmt[S_PUT_SNAPSHOT];
    bind_text(q, 1, game);
    sqlite3_bind_int64(q, 2, version);
    bind_text(q, 3, state_json);
    bind_text(q, 4, full_json);
    sqlite3_bind_int64(q, 5, rs_final(&r));
    if (run(s, S_PUT_SNAPSHOT, 1) < 0)
        return -1;
    s->batch.snapshots++;
    return 0;
}

static int sqlite_pending(struct wrd_store *st)
{
    return ((struct sqlite_store *)st)->in_batch;
}

/* The batch's new row counts into meta: one UPDATE per commit, none when
 * the batch only changed rows. */
static int put_meta(struct sqlite_store *s, int64_t *sum)
{
    const struct counts *n = &s->batch, *o = &s->committed;
    *sum = s->meta_sum;
    if (memcmp(n, o, sizeof *n) == 0)
        return 0;
    *sum = meta_rowsum(n, s->opens, s->schema_sum);
    sqlite3_stmt *q = s->stmt[S_PUT_META];
    sqlite3_bind_int64(q, 1, n->games);
    sqlite3_bind_int64(q, 2, n->seats);
    sqlite3_bind_int64(q, 3, n->commands);
    sqlite3_bind_int64(q, 4, n->snapshots);
    sqlite3_bind_int64(q, 5, *sum);
    sqlite3_bind_int64(q, 6, o->games);
    sqlite3_bind_int64(q, 7, o->seats);
    sqlite3_bind_int64(q, 8, o->commands);
    sqlite3_bind_int64(q, 9, o->snapshots);
    sqlite3_bind_int64(q, 10, s->meta_sum);
    return run(s, S_PUT_META, 1);
}

static int sqlite_commit(struct wrd_store *st, char *err, size_t errlen)
{
    struct sqlite_store *s = (struct sqlite_store *)st;
    if (!s->in_batch)
        return 0;
    s->in_batch = 0;
    int64_t sum;
    if (!s->failed)
        put_meta(s, &sum);
    if (s->failed) {
        snprintf(err, errlen, "%s", s->fail_msg);
        run(s, S_ROLLBACK, -1);
        s->failed = 0;
        s->batch = s->committed;
        return -1;
    }
    if (run(s, S_COMMIT, -1) < 0) {
        snprintf(err, errlen, "commit: %.200s", s->fail_msg);
        run(s, S_ROLLBACK, -1);
        s->failed = 0;
        s->batch = s->committed;
        return -1;
    }
    s->committed = s->batch;
    s->meta_sum = sum;
    return 0;
}

/* --- reads ----------------------------------------------------------------------------- */

/* Enter a read: the mutex, and the read transaction for the outermost call. */
static int read_enter(struct sqlite_store *s, char *err, size_t errlen)
{
    struct reader *rd = &s->rd;
    pthread_mutex_lock(&rd->mutex);
    if (rd->depth++ > 0 || rd->db == s->db)
        return 0;
    sqlite3_stmt *q = rd->stmt[R_BEGIN];
    int rc = sqlite3_step(q);
    sqlite3_reset(q);
    if (rc != SQLITE_DONE) {
        rc = fail_sql(rd->db, rc, "begin a read", err, errlen);
        rd->depth--;
        pthread_mutex_unlock(&rd->mutex);
        return rc;
    }
    return 0;
}

static void read_leave(struct sqlite_store *s)
{
    struct reader *rd = &s->rd;
    if (--rd->depth == 0 && rd->db != s->db) {
        /* A read transaction left open would pin this connection to an old
         * commit (and the WAL behind it): every statement is reset first. */
        for (int i = 0; i < R_NSTMTS; i++)
            sqlite3_reset(rd->stmt[i]);
        sqlite3_step(rd->stmt[R_COMMIT]);
        sqlite3_reset(rd->stmt[R_COMMIT]);
    }
    pthread_mutex_unlock(&rd->mutex);
}

/* Statements of the read connection are borrowed for one use: reset after. */
static sqlite3_stmt *borrow(struct sqlite_store *s, int which, const char *id)
{
    sqlite3_stmt *q = s->rd.stmt[which];
    sqlite3_reset(q);
    sqlite3_clear_bindings(q);
    if (id)
        sqlite3_bind_text(q, 1, id, -1, SQLITE_STATIC);
    return q;
}

static void game_row_of(sqlite3_stmt *q, struct wrd_game_row *g)
{
    *g = (struct wrd_game_row){ text(q, G_ID), text(q, G_RULESET), text(q, G_SCEN_NAME),
                                text(q, G_SCENARIO), text(q, G_OPTIONS),
                                sqlite3_column_blob(q, G_SEED),
                                sqlite3_column_int64(q, G_CREATED),
                                (int)sqlite3_column_int64(q, G_LISTED), text(q, G_PARENT),
                                text(q, G_KEY) };
}

static int same_text(sqlite3_stmt *q, int c, const char *want)
{
    const char *t = text(q, c);
    return t && strcmp(t, want) == 0;
}

/* A game's snapshots, checked, passed to l->snapshot: every one, or with
 * tail_only only the latest with a full state, whose version goes to
 * *from (else 0): the commands after it are the ones to pass. */
static int walk_snapshots(struct sqlite_store *s, const char *id, int tail_only,
                          const struct wrd_store_loader *l, int64_t *from, char *err,
                          size_t errlen)
{
    sqlite3_stmt *q = borrow(s, tail_only ? R_FULL_SNAPSHOT : R_SNAPSHOTS, id);
    int64_t last = 0;
    int rc;
    *from = 0;
    while ((rc = step_row(s->rd.db, q, "reading snapshots", err, errlen)) == 1) {
        if ((rc = check_row(q, 0, &t_snapshots, err, errlen)) < 0)
            break;
        int64_t v = sqlite3_column_int64(q, SN_VERSION);
        if (!same_text(q, SN_GAME, id) || v <= last) {
            snprintf(err, errlen, "table snapshots: the snapshots of game %s are not its own "
                     "or out of order", id);
            rc = WRD_STORE_DAMAGED;
            break;
        }
        last = v;
        if (tail_only)
            *from = v;
        if (l && l->snapshot &&
            l->snapshot(l->ctx, id, v, text(q, SN_STATE), text(q, SN_FULL)) != 0) {
            snprintf(err, errlen, "game %s: its snapshot at %lld could not be restored", id,
                     (long long)v);
            rc = WRD_STORE_ERROR;
            break;
        }
    }
    sqlite3_reset(q);
    return rc;
}

/* One game, its seats, its snapshots and its commands (with tail_only,
 * from its latest full snapshot on), checked; passed to l when not NULL.
 * 1 when there is no such game. */
static int walk_game(struct sqlite_store *s, const char *id, int tail_only,
                     const struct wrd_store_loader *l, char *err, size_t errlen)
{
    sqlite3 *db = s->rd.db;
    sqlite3_stmt *g = borrow(s, R_GAME, id), *q = NULL;
    int rc = step_row(db, g, "reading a game", err, errlen);
    if (rc <= 0) {
        sqlite3_reset(g);
        return rc == 0 ? 1 : rc;
    }
    if ((rc = check_row(g, 0, &t_games, err, errlen)) < 0)
        goto out;
    if (!same_text(g, G_ID, id)) {
        snprintf(err, errlen, "table games: looking up game %.40s finds another row", id);
        rc = WRD_STORE_DAMAGED;
        goto out;
    }
    int64_t version = sqlite3_column_int64(g, G_VERSION);
    int finished = same_text(g, G_STATUS, "finished");
    if (l) {
        struct wrd_game_row row;
        game_row_of(g, &row);
        if (l->game(l->ctx, &row, text(g, G_STATUS), text(g, G_RESULT),
                    sqlite3_column_int64(g, G_DEADLINE)) != 0) {
            snprintf(err, errlen, "game %s could not be restored", id);
            rc = WRD_STORE_ERROR;
            goto out;
        }
    }
    q = borrow(s, R_SEATS, id);
    int nseats = 0;
    while ((rc = step_row(db, q, "reading seats", err, errlen)) == 1) {
        if ((rc = check_row(q, 0, &t_seats, err, errlen)) < 0)
            goto out;
        if (!same_text(q, 0, id) || ++nseats > SEATS_MAX) {
            snprintf(err, errlen, "table seats: the seats of game %s are not its own", id);
            rc = WRD_STORE_DAMAGED;
            goto out;
        }
        struct wrd_seat_row r = { text(q, 0), text(q, 1), text(q, 2), text(q, 3), text(q, 4),
                                  text(q, 5) };
        if (l && l->seat(l->ctx, &r) != 0) {
            snprintf(err, errlen, "seat %s of game %s could not be restored", r.seat, id);
            rc = WRD_STORE_ERROR;
            goto out;
        }
    }
    if (rc < 0)
        goto out;
    if (nseats == 0) {
        snprintf(err, errlen, "table seats: game %s has no seat", id);
        rc = WRD_STORE_DAMAGED;
        goto out;
    }
    sqlite3_reset(q);
    q = NULL;
    int64_t n = 0;
    if ((rc = walk_snapshots(s, id, tail_only, l, &n, err, errlen)) < 0)
        goto out;
    if (n > version) {
        snprintf(err, errlen, "table snapshots: game %s has a snapshot at version %lld; its row "
                 "says version %lld", id, (long long)n, (long long)version);
        rc = WRD_STORE_DAMAGED;
        goto out;
    }
    q = borrow(s, n ? R_COMMANDS_AFTER : R_COMMANDS, id);
    if (n)
        sqlite3_bind_int64(q, 2, n);
    while ((rc = step_row(db, q, "reading commands", err, errlen)) == 1) {
        if ((rc = check_row(q, 0, &t_commands, err, errlen)) < 0)
            goto out;
        if (!same_text(q, C_GAME, id) || sqlite3_column_int64(q, C_VERSION) != n + 1) {
            snprintf(err, errlen, "table commands: game %s has no command %lld", id,
                     (long long)(n + 1));
            rc = WRD_STORE_DAMAGED;
            goto out;
        }
        n++;
        struct wrd_command_row c = { text(q, C_GAME), sqlite3_column_int64(q, C_VERSION),
                                     text(q, C_SEAT), sqlite3_column_int64(q, C_SEQ),
                                     text(q, C_CMD), text(q, C_EVENTS),
                                     sqlite3_column_int64(q, C_AT) };
        if (l && l->command(l->ctx, &c) != 0) {
            snprintf(err, errlen, "game %s: command %lld could not be replayed", id,
                     (long long)c.version);
            rc = WRD_STORE_ERROR;
            goto out;
        }
    }
    if (rc < 0)
        goto out;
    if (n < version || (finished && n != version)) {
        snprintf(err, errlen, "table commands: game %s has %lld commands; its row says %s "
                 "version %lld", id, (long long)n, finished ? "it finished at" : "it reached",
                 (long long)version);
        rc = WRD_STORE_DAMAGED;
        goto out;
    }
    rc = 0;
out:
    sqlite3_reset(g);
    if (q)
        sqlite3_reset(q);
    return rc;
}

static int sqlite_read_game(struct wrd_store *st, const char *id,
                            const struct wrd_store_loader *l, char *err, size_t errlen)
{
    struct sqlite_store *s = (struct sqlite_store *)st;
    if (id == NULL || *id == '\0')
        return 1;
    int rc = read_enter(s, err, errlen);
    if (rc < 0)
        return rc;
    /* Checked whole before anything reaches the loader. */
    rc = walk_game(s, id, l->tail_only, NULL, err, errlen);
    if (rc == 0)
        rc = walk_game(s, id, l->tail_only, l, err, errlen);
    read_leave(s);
    return rc;
}

static int sqlite_latest_snapshot(struct wrd_store *st, const char *game, int64_t *version,
                                  char **state_json, char *err, size_t errlen)
{
    struct sqlite_store *s = (struct sqlite_store *)st;
    int rc = read_enter(s, err, errlen);
    if (rc < 0)
        return rc;
    sqlite3_stmt *q = borrow(s, R_SNAPSHOT, game);
    rc = step_row(s->rd.db, q, "reading a snapshot", err, errlen);
    if (rc == 1 && (rc = check_row(q, 0, &t_snapshots, err, errlen)) == 0) {
        if (!same_text(q, 0, game)) {
            snprintf(err, errlen, "table snapshots: looking up game %.40s finds another row",
                     game);
            rc = WRD_STORE_DAMAGED;
        } else if ((*state_json = strdup(text(q, 2))) == NULL) {
            snprintf(err, errlen, "out of memory");
            rc = WRD_STORE_ERROR;
        } else {
            *version = sqlite3_column_int64(q, 1);
            rc = 1;
        }
    }
    sqlite3_reset(q);
    read_leave(s);
    return rc;
}

static int sqlite_list_finished(struct wrd_store *st, const struct wrd_finished_query *fq,
                                int (*row_cb)(void *ctx, const struct wrd_finished_row *r),
                                void *ctx, char *err, size_t errlen)
{
    struct sqlite_store *s = (struct sqlite_store *)st;
    if (fq->limit < 1 || fq->limit > 1000) {
        snprintf(err, errlen, "limit %d is not from 1 to 1000", fq->limit);
        return WRD_STORE_ERROR;
    }
    int rc = read_enter(s, err, errlen);
    if (rc < 0)
        return rc;
    int running = fq->status && strcmp(fq->status, "running") == 0;
    if (fq->status && !running && strcmp(fq->status, "finished") != 0) {
        read_leave(s);
        snprintf(err, errlen, "a listing is of finished or running games, not %.20s", fq->status);
        return WRD_STORE_ERROR;
    }
    const char *status = running ? "running" : "finished";
    int which = fq->ruleset ? (fq->before_id ? R_LIST_RULESET_AFTER : R_LIST_RULESET)
                            : (fq->before_id ? R_LIST_AFTER : R_LIST);
    if (running)
        which += R_RUN - R_LIST;
    sqlite3_stmt *g = borrow(s, which, NULL), *q = s->rd.stmt[R_SEATS];
    sqlite3_bind_int(g, 1, fq->limit);
    if (fq->before_id) {
        sqlite3_bind_int64(g, 2, fq->before_created_ms);
        sqlite3_bind_text(g, 3, fq->before_id, -1, SQLITE_STATIC);
    }
    if (fq->ruleset)
        sqlite3_bind_text(g, 4, fq->ruleset, -1, SQLITE_STATIC);
    int passed = 0;
    while ((rc = step_row(s->rd.db, g, "listing games", err, errlen)) == 1) {
        if ((rc = check_row(g, 0, &t_games, err, errlen)) < 0)
            break;
        const char *id = text(g, G_ID);
        if (!same_text(g, G_STATUS, status) || sqlite3_column_int64(g, G_LISTED) != 1) {
            snprintf(err, errlen, "index games_%s lists game %s, which is not a listed %s game",
                     status, id, status);
            rc = WRD_STORE_DAMAGED;
            break;
        }
        struct wrd_seat_summary seats[SEATS_MAX];
        char names[SEATS_MAX][WRD_STORE_NAME_MAX + 1];
        int nseats = 0;
        q = borrow(s, R_SEATS, id);
        while ((rc = step_row(s->rd.db, q, "listing seats", err, errlen)) == 1) {
            if ((rc = check_row(q, 0, &t_seats, err, errlen)) < 0)
                break;
            if (!same_text(q, 0, id) || nseats == SEATS_MAX) {
                snprintf(err, errlen, "table seats: the seats of game %s are not its own", id);
                rc = WRD_STORE_DAMAGED;
                break;
            }
            snprintf(names[nseats], sizeof names[0], "%s", text(q, 1));
            seats[nseats] = (struct wrd_seat_summary){ names[nseats],
                                                       sqlite3_column_type(q, 2) != SQLITE_NULL };
            nseats++;
        }
        sqlite3_reset(q);
        if (rc < 0)
            break;
        if (nseats == 0) {
            snprintf(err, errlen, "table seats: game %s has no seat", id);
            rc = WRD_STORE_DAMAGED;
            break;
        }
        struct wrd_finished_row row = { id, text(g, G_RULESET), text(g, G_SCEN_NAME),
                                        text(g, G_STATUS), text(g, G_RESULT),
                                        sqlite3_column_int64(g, G_VERSION),
                                        sqlite3_column_int64(g, G_CREATED), text(g, G_OPTIONS),
                                        seats, nseats, text(g, G_AWAITING),
                                        sqlite3_column_int64(g, G_MOVED) };
        passed++;
        if (row_cb(ctx, &row) != 0) {
            rc = 0;
            break;
        }
    }
    sqlite3_reset(g);
    read_leave(s);
    return rc < 0 ? rc : passed;
}

/* --- the check of the whole store -------------------------------------------------------- */

/* What the check keeps of each game: found by id in an open-addressing table. */
struct gent {
    char id[WRD_STORE_NAME_MAX + 1];    /* "" for a free slot */
    int64_t rowid, version, ncommands, nsnapshots;
    int nseats, finished;
    char parent[WRD_STORE_NAME_MAX + 1];    /* "" when it has none */
};

struct gtab {
    struct gent *e;
    size_t cap, n;
};

static size_t gt_hash(const char *id)
{
    uint64_t h = 1469598103934665603u;
    for (; *id; id++)
        h = (h ^ (unsigned char)*id) * 1099511628211u;
    return (size_t)h;
}

static struct gent *gt_find(const struct gtab *t, const char *id)
{
    if (id == NULL)
        return NULL;
    for (size_t i = gt_hash(id) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
        if (t->e[i].id[0] == '\0')
            return NULL;
        if (strcmp(t->e[i].id, id) == 0)
            return &t->e[i];
    }
}

/* A new entry for id (checked: a K_NAME), or NULL when out of memory. */
static struct gent *gt_add(struct gtab *t, const char *id)
{
    if (2 * (t->n + 1) > t->cap) {
        struct gtab bigger = { calloc(t->cap * 2, sizeof *t->e), t->cap * 2, 0 };
        if (bigger.e == NULL)
            return NULL;
        for (size_t i = 0; i < t->cap; i++)
            if (t->e[i].id[0]) {
                size_t j = gt_hash(t->e[i].id) & (bigger.cap - 1);
                while (bigger.e[j].id[0])
                    j = (j + 1) & (bigger.cap - 1);
                bigger.e[j] = t->e[i];
                bigger.n++;
            }
        free(t->e);
        *t = bigger;
    }
    size_t i = gt_hash(id) & (t->cap - 1);
    while (t->e[i].id[0])
        i = (i + 1) & (t->cap - 1);
    snprintf(t->e[i].id, sizeof t->e[i].id, "%s", id);
    t->n++;
    return &t->e[i];
}

/* Secondary indexes and the columns they hold (rowid last): their entries
 * must be exactly their table's rows (those the index's WHERE admits).
 * scan_cols are the same columns in a table scan (the table's columns,
 * rowsum, then rowid). A partial index is read through its WHERE, which
 * SQLite checks on the table's row: an entry it should not hold is found
 * by the listing, which checks each row it lists. */
#define GAMES_ROWID 18
#define SEATS_ROWID 7
#define FINISHED_LISTED " WHERE status = 'finished' AND listed = 1"
#define RUNNING_LISTED " WHERE status = 'running' AND listed = 1"
#define OPEN " WHERE status = 'open'"
#define DUE " WHERE status = 'running' AND wake_at > 0"
#define LINKED " WHERE parent IS NOT NULL"

struct index_check {
    const char *table, *index, *cols, *where;
    int ncols;
    int scan_cols[6];
    /* Does a row of the table scan belong in it (a partial index's WHERE,
     * in C)? NULL: every row. */
    int (*admits)(sqlite3_stmt *q);
};

static int admits_finished_listed(sqlite3_stmt *q)
{
    return same_text(q, G_STATUS, "finished") && sqlite3_column_int64(q, G_LISTED) == 1;
}

static int admits_running_listed(sqlite3_stmt *q)
{
    return same_text(q, G_STATUS, "running") && sqlite3_column_int64(q, G_LISTED) == 1;
}

static int admits_open(sqlite3_stmt *q)
{
    return same_text(q, G_STATUS, "open");
}

static int admits_due(sqlite3_stmt *q)
{
    return same_text(q, G_STATUS, "running") && sqlite3_column_int64(q, G_WAKE) > 0;
}

static int admits_linked(sqlite3_stmt *q)
{
    return sqlite3_column_type(q, G_PARENT) != SQLITE_NULL;
}

static const struct index_check index_checks[] = {
    { "games", "sqlite_autoindex_games_1", "id, rowid", "", 2, { G_ID, GAMES_ROWID }, NULL },
    { "games", "games_finished", "created_at, id, rowid", FINISHED_LISTED, 3,
      { G_CREATED, G_ID, GAMES_ROWID }, admits_finished_listed },
    { "games", "games_finished_ruleset", "ruleset, created_at, id, rowid", FINISHED_LISTED, 4,
      { G_RULESET, G_CREATED, G_ID, GAMES_ROWID }, admits_finished_listed },
    { "games", "games_running", "created_at, id, rowid", RUNNING_LISTED, 3,
      { G_CREATED, G_ID, GAMES_ROWID }, admits_running_listed },
    { "games", "games_running_ruleset", "ruleset, created_at, id, rowid", RUNNING_LISTED, 4,
      { G_RULESET, G_CREATED, G_ID, GAMES_ROWID }, admits_running_listed },
    { "games", "games_open", "created_at, id, rowid", OPEN, 3,
      { G_CREATED, G_ID, GAMES_ROWID }, admits_open },
    { "games", "games_due", "wake_at, rowid", DUE, 2, { G_WAKE, GAMES_ROWID },
      admits_due },
    { "games", "games_linked", "created_at, id, rowid", LINKED, 3,
      { G_CREATED, G_ID, GAMES_ROWID }, admits_linked },
    { "seats", "sqlite_autoindex_seats_1", "game, seat, rowid", "", 3, { 0, 1, SEATS_ROWID },
      NULL },
};
#define NINDEX ((int)(sizeof index_checks / sizeof index_checks[0]))

/* Commands and snapshots come in key order, (game, version) ascending. */
struct ordered {
    char game[WRD_STORE_NAME_MAX + 1];
    int64_t version;
    struct gent *e;
};

struct check {
    sqlite3 *db;
    struct gtab games;
    struct counts seen;
    int64_t index_rows[NINDEX];
    uint64_t index_sum[NINDEX];
    struct ordered commands, snapshots;
    char *err;
    size_t errlen;
};

/* An index entry's checksum, from columns cols[] of q. */
static uint64_t index_entry(sqlite3_stmt *q, int idx, const int *cols)
{
    struct rowsum r;
    rs_init(&r, T_INDEX + idx);
    for (int i = 0; i < index_checks[idx].ncols; i++)
        rs_value(&r, sqlite3_column_value(q, cols ? cols[i] : i));
    int64_t v = rs_final(&r);
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

/* A table row seen: what each index of that table must hold for it. */
static void index_add(struct check *c, sqlite3_stmt *q, const char *table)
{
    for (int i = 0; i < NINDEX; i++)
        if (strcmp(index_checks[i].table, table) == 0 &&
            (index_checks[i].admits == NULL || index_checks[i].admits(q))) {
            c->index_rows[i]++;
            c->index_sum[i] += index_entry(q, i, index_checks[i].scan_cols);
        }
}

/* Scan one table, its columns first in each row, calling each() on every
 * checked row. */
static int scan(struct check *c, const char *sql, const struct table *t,
                int (*each)(struct check *c, sqlite3_stmt *q))
{
    sqlite3_stmt *q;
    int rc = sqlite3_prepare_v2(c->db, sql, -1, &q, NULL);
    if (rc != SQLITE_OK)
        return fail_sql(c->db, rc, t->name, c->err, c->errlen);
    char what[64];
    snprintf(what, sizeof what, "reading table %s", t->name);
    while ((rc = step_row(c->db, q, what, c->err, c->errlen)) == 1)
        if ((rc = check_row(q, 0, t, c->err, c->errlen)) < 0 || (rc = each(c, q)) < 0)
            break;
    sqlite3_finalize(q);
    return rc;
}

static int each_game(struct check *c, sqlite3_stmt *q)
{
    const char *id = text(q, G_ID);
    if (gt_find(&c->games, id)) {
        snprintf(c->err, c->errlen, "table games: two rows for game %s", id);
        return WRD_STORE_DAMAGED;
    }
    struct gent *e = gt_add(&c->games, id);
    if (e == NULL) {
        snprintf(c->err, c->errlen, "out of memory");
        return WRD_STORE_ERROR;
    }
    e->rowid = sqlite3_column_int64(q, GAMES_ROWID);
    e->version = sqlite3_column_int64(q, G_VERSION);
    e->finished = same_text(q, G_STATUS, "finished");
    snprintf(e->parent, sizeof e->parent, "%s", text(q, G_PARENT) ? text(q, G_PARENT) : "");
    index_add(c, q, "games");
    c->seen.games++;
    return 0;
}

static int each_seat(struct check *c, sqlite3_stmt *q)
{
    struct gent *e = gt_find(&c->games, text(q, 0));
    if (e == NULL) {
        snprintf(c->err, c->errlen, "table seats: a seat of game %s, which has no row",
                 text(q, 0));
        return WRD_STORE_DAMAGED;
    }
    if (++e->nseats > SEATS_MAX) {
        snprintf(c->err, c->errlen, "table seats: game %s has more than %d seats", e->id,
                 SEATS_MAX);
        return WRD_STORE_DAMAGED;
    }
    index_add(c, q, "seats");
    c->seen.seats++;
    return 0;
}

static int next_in_order(struct check *c, sqlite3_stmt *q, const char *table, struct ordered *o)
{
    const char *game = text(q, 0);
    int64_t v = sqlite3_column_int64(q, 1);
    int cmp = strcmp(game, o->game);
    if (cmp < 0 || (cmp == 0 && v <= o->version)) {
        snprintf(c->err, c->errlen, "table %s: rows out of key order at game %s, version %lld",
                 table, game, (long long)v);
        return WRD_STORE_DAMAGED;
    }
    if (cmp != 0) {
        snprintf(o->game, sizeof o->game, "%s", game);
        if ((o->e = gt_find(&c->games, game)) == NULL) {
            snprintf(c->err, c->errlen, "table %s: rows of game %s, which has no row", table,
                     game);
            return WRD_STORE_DAMAGED;
        }
    }
    o->version = v;
    return 0;
}

static int each_command(struct check *c, sqlite3_stmt *q)
{
    int rc = next_in_order(c, q, "commands", &c->commands);
    if (rc < 0)
        return rc;
    struct gent *e = c->commands.e;
    if (c->commands.version != e->ncommands + 1) {
        snprintf(c->err, c->errlen, "table commands: game %s has command %lld after %lld",
                 e->id, (long long)c->commands.version, (long long)e->ncommands);
        return WRD_STORE_DAMAGED;
    }
    e->ncommands++;
    c->seen.commands++;
    return 0;
}

static int each_snapshot(struct check *c, sqlite3_stmt *q)
{
    int rc = next_in_order(c, q, "snapshots", &c->snapshots);
    if (rc < 0)
        return rc;
    struct gent *e = c->snapshots.e;
    if (c->snapshots.version > e->ncommands) {
        snprintf(c->err, c->errlen, "table snapshots: game %s has a snapshot at version %lld "
                 "and %lld commands", e->id, (long long)c->snapshots.version,
                 (long long)e->ncommands);
        return WRD_STORE_DAMAGED;
    }
    e->nsnapshots++;
    c->seen.snapshots++;
    return 0;
}

/* Each game's rows found again by key, as reads will find them: a damaged
 * index or interior page that misroutes a search shows here. */
static int check_reachable(struct check *c)
{
    static const char *const sql[4] = {
        "SELECT rowid FROM games WHERE id = ?1",
        "SELECT count(*) FROM seats WHERE game = ?1",
        "SELECT count(*) FROM commands WHERE game = ?1",
        "SELECT count(*) FROM snapshots WHERE game = ?1",
    };
    static const char *const table[4] = { "games", "seats", "commands", "snapshots" };
    sqlite3_stmt *q[4] = { NULL };
    int rc = 0;
    for (int i = 0; i < 4 && rc == 0; i++)
        if ((rc = sqlite3_prepare_v2(c->db, sql[i], -1, &q[i], NULL)) != SQLITE_OK)
            rc = fail_sql(c->db, rc, sql[i], c->err, c->errlen);
    for (size_t k = 0; k < c->games.cap && rc == 0; k++) {
        const struct gent *e = &c->games.e[k];
        if (e->id[0] == '\0')
            continue;
        if (e->nseats == 0) {
            snprintf(c->err, c->errlen, "table seats: game %s has no seat", e->id);
            rc = WRD_STORE_DAMAGED;
            break;
        }
        if (e->parent[0] && (strcmp(e->parent, e->id) == 0 || !gt_find(&c->games, e->parent))) {
            snprintf(c->err, c->errlen, "table games: game %s names the parent %s, which is "
                     "not another stored game", e->id, e->parent);
            rc = WRD_STORE_DAMAGED;
            break;
        }
        if (e->ncommands < e->version || (e->finished && e->ncommands != e->version)) {
            snprintf(c->err, c->errlen, "table commands: game %s has %lld commands; its row "
                     "says %s version %lld", e->id, (long long)e->ncommands,
                     e->finished ? "it finished at" : "it reached", (long long)e->version);
            rc = WRD_STORE_DAMAGED;
            break;
        }
        const int64_t want[4] = { e->rowid, e->nseats, e->ncommands, e->nsnapshots };
        for (int i = 0; i < 4 && rc == 0; i++) {
            sqlite3_bind_text(q[i], 1, e->id, -1, SQLITE_STATIC);
            rc = step_row(c->db, q[i], table[i], c->err, c->errlen);
            if (rc == 1 && sqlite3_column_int64(q[i], 0) == want[i]) {
                rc = 0;
            } else if (rc >= 0) {
                snprintf(c->err, c->errlen, "table %s: the rows of game %s found by key are "
                         "not those found by a scan", table[i], e->id);
                rc = WRD_STORE_DAMAGED;
            }
            sqlite3_reset(q[i]);
        }
    }
    for (int i = 0; i < 4; i++)
        sqlite3_finalize(q[i]);
    return rc;
}

static int check_indexes(struct check *c)
{
    int rc = 0;
    for (int i = 0; i < NINDEX && rc == 0; i++) {
        const struct index_check *x = &index_checks[i];
        char sql[256];
        snprintf(sql, sizeof sql, "SELECT %s FROM %s INDEXED BY %s%s", x->cols, x->table,
                 x->index, x->where);
        sqlite3_stmt *q;
        if ((rc = sqlite3_prepare_v2(c->db, sql, -1, &q, NULL)) != SQLITE_OK)
            return fail_sql(c->db, rc, x->index, c->err, c->errlen);
        int64_t rows = 0;
        uint64_t sum = 0;
        while ((rc = step_row(c->db, q, x->index, c->err, c->errlen)) == 1) {
            rows++;
            sum += index_entry(q, i, NULL);
        }
        sqlite3_finalize(q);
        if (rc == 0 && (rows != c->index_rows[i] || sum != c->index_sum[i])) {
            snprintf(c->err, c->errlen, "index %s: %lld entries that are not its table's %lld "
                     "rows", x->index, (long long)rows, (long long)c->index_rows[i]);
            rc = WRD_STORE_DAMAGED;
        }
    }
    return rc;
}

static int check_all(struct sqlite_store *s, char *err, size_t errlen)
{
    struct check c = { .db = s->rd.db, .err = err, .errlen = errlen };
    struct meta_row m;
    int64_t schema;
    int rc;
    if ((rc = read_meta(c.db, &m, err, errlen)) < 0 ||
        (rc = schema_rowsum(c.db, &schema, err, errlen)) < 0)
        return rc;
    if (schema != m.schema_sum) {
        snprintf(err, errlen, "the schema (sqlite_schema) is not the one this store was "
                 "created with");
        return WRD_STORE_DAMAGED;
    }
    c.games.cap = 64;
    while (c.games.cap < 2 * (size_t)m.c.games + 2 && c.games.cap < ((size_t)1 << 26))
        c.games.cap *= 2;
    if ((c.games.e = calloc(c.games.cap, sizeof *c.games.e)) == NULL) {
        snprintf(err, errlen, "out of memory");
        return WRD_STORE_ERROR;
    }
    if ((rc = scan(&c, "SELECT " GAMES_COLS ", rowid FROM games NOT INDEXED", &t_games,
                   each_game)) == 0 &&
        (rc = scan(&c, "SELECT " SEATS_COLS ", rowid FROM seats NOT INDEXED", &t_seats,
                   each_seat)) == 0 &&
        (rc = scan(&c, "SELECT " COMMANDS_COLS " FROM commands", &t_commands,
                   each_command)) == 0 &&
        (rc = scan(&c, "SELECT " SNAPSHOTS_COLS " FROM snapshots", &t_snapshots,
                   each_snapshot)) == 0 &&
        (rc = check_reachable(&c)) == 0)
        rc = check_indexes(&c);
    free(c.games.e);
    if (rc < 0)
        return rc;
    static const char *const names[4] = { "games", "seats", "commands", "snapshots" };
    const int64_t seen[4] = { c.seen.games, c.seen.seats, c.seen.commands, c.seen.snapshots };
    const int64_t kept[4] = { m.c.games, m.c.seats, m.c.commands,
                              m.c.snapshots };
    for (int i = 0; i < 4; i++)
        if (seen[i] != kept[i]) {
            snprintf(err, errlen, "table %s holds %lld rows; %lld were committed", names[i],
                     (long long)seen[i], (long long)kept[i]);
            return WRD_STORE_DAMAGED;
        }
    return 0;
}

static int sqlite_load(struct wrd_store *st, const struct wrd_store_loader *l, char *err,
                       size_t errlen)
{
    struct sqlite_store *s = (struct sqlite_store *)st;
    int rc = read_enter(s, err, errlen);
    if (rc < 0)
        return rc;
    if (!l->finished_too || (rc = check_all(s, err, errlen)) == 0) {
        sqlite3_stmt *ids = borrow(s, l->finished_too ? R_ALL_IDS : R_START_IDS, NULL);
        if (!l->finished_too)
            sqlite3_bind_int64(ids, 1, l->due_before_ms);
        while ((rc = step_row(s->rd.db, ids, "listing games", err, errlen)) == 1) {
            const char *id = text(ids, 0);
            if (id == NULL) {
                snprintf(err, errlen, "table games: a game without an id");
                rc = WRD_STORE_DAMAGED;
                break;
            }
            /* Without the whole check first, each game is checked whole
             * before the loader sees it. */
            if ((!l->finished_too && (rc = walk_game(s, id, l->tail_only, NULL, err,
                                                     errlen)) != 0) ||
                (rc = walk_game(s, id, l->tail_only, l, err, errlen)) != 0) {
                if (rc == 1) {
                    snprintf(err, errlen, "table games: game %s is listed but not found", id);
                    rc = WRD_STORE_DAMAGED;
                }
                break;
            }
        }
        sqlite3_reset(ids);
    }
    if (rc == 0 && l->link) {
        /* Every link, the finished games' too: their rows were checked. */
        sqlite3_stmt *q = borrow(s, R_LINKS, NULL);
        while ((rc = step_row(s->rd.db, q, "listing links", err, errlen)) == 1)
            if (l->link(l->ctx, text(q, 0), text(q, 1), text(q, 2), text(q, 3), text(q, 4),
                        text(q, 5)) != 0) {
                snprintf(err, errlen, "a link was refused by the loader");
                rc = WRD_STORE_ERROR;
                break;
            }
        sqlite3_reset(q);
    }
    read_leave(s);
    return rc;
}

static int sqlite_select_ids(struct wrd_store *st, const struct wrd_ids_query *iq,
                             int (*id_cb)(void *ctx, const char *id), void *ctx, char *err,
                             size_t errlen)
{
    struct sqlite_store *s = (struct sqlite_store *)st;
    if (iq->kind != WRD_IDS_DUE && iq->kind != WRD_IDS_MAIL) {
        snprintf(err, errlen, "no selection of games numbered %d", iq->kind);
        return WRD_STORE_ERROR;
    }
    int rc = read_enter(s, err, errlen);
    if (rc < 0)
        return rc;
    sqlite3_stmt *q = borrow(s, iq->kind == WRD_IDS_DUE ? R_DUE_IDS : R_MAIL_IDS, NULL);
    if (iq->kind == WRD_IDS_DUE)
        sqlite3_bind_int64(q, 1, iq->before_ms);
    int passed = 0;
    while ((rc = step_row(s->rd.db, q, "selecting games", err, errlen)) == 1) {
        const char *id = text(q, 0);
        if (id == NULL || *id == '\0' || strlen(id) > WRD_STORE_NAME_MAX) {
            snprintf(err, errlen, "table games: a game without a readable id");
            rc = WRD_STORE_DAMAGED;
            break;
        }
        passed++;
        if (id_cb(ctx, id) != 0) {
            rc = 0;
            break;
        }
    }
    sqlite3_reset(q);
    read_leave(s);
    return rc < 0 ? rc : passed;
}

static void sqlite_close(struct wrd_store *st)
{
    struct sqlite_store *s = (struct sqlite_store *)st;
    char err[256];
    if (s == NULL)
        return;
    sqlite_commit(st, err, sizeof err);
    store_free(s);
}

static int sqlite_schema_version(struct wrd_store *st)
{
    char err[128];
    int64_t v;
    if (query_int(((struct sqlite_store *)st)->db, "PRAGMA user_version", &v, err,
                  sizeof err) < 0)
        return -1;
    return (int)v;
}

static int sqlite_set_cache(struct wrd_store *st, int64_t bytes, char *err, size_t errlen)
{
    struct sqlite_store *s = (struct sqlite_store *)st;
    char sql[64];
    if (bytes < 256 * 1024)
        bytes = 256 * 1024;
    /* (a negative cache_size is in KiB) */
    snprintf(sql, sizeof sql, "PRAGMA cache_size=-%lld", (long long)(bytes / 1024));
    return exec(s->db, sql, err, errlen);
}

const struct wrd_store_ops wrd_store_sqlite_ops = {
    .name = "sqlite",
    .open = sqlite_open,
    .close = sqlite_close,
    .schema_version = sqlite_schema_version,
    .put_game = sqlite_put_game,
    .put_seat = sqlite_put_seat,
    .update_seat = sqlite_update_seat,
    .put_command = sqlite_put_command,
    .put_status = sqlite_put_status,
    .put_snapshot = sqlite_put_snapshot,
    .pending = sqlite_pending,
    .commit = sqlite_commit,
    .load = sqlite_load,
    .read_game = sqlite_read_game,
    .list_finished = sqlite_list_finished,
    .latest_snapshot = sqlite_latest_snapshot,
    .select_ids = sqlite_select_ids,
    .set_cache = sqlite_set_cache,
};
