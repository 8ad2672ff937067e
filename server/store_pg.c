/*
 * store_pg.c - the PostgreSQL store (libpq): `--db postgres://...`.
 *
 * The same concepts as store_sqlite.c: tables games, seats, commands,
 * snapshots and meta, at schema version 6 (meta.schema_version). The schema
 * is made or migrated on open by the steps of `migrations` below, in one
 * transaction per step; a later version is one more entry. Columns have
 * their proper types and constraints (NOT NULL, CHECKs on statuses, names
 * and ranges, primary keys, foreign keys of seats, commands and snapshots
 * to games) and there is an index for every query this file makes.
 *
 * Checks. Every row read is checked here too (columns, ranges, a game's
 * commands 1, 2, 3, ... without gap, its seats, its version against its
 * commands), so damage is WRD_STORE_DAMAGED naming the table and the row,
 * as with SQLite. SQLite's per-row checksums (rowsum) are not kept here:
 * PostgreSQL's clusters made with `initdb --data-checksums` checksum every
 * page, and its constraints hold the rows' shapes; a page that fails its
 * checksum is an error of class XX, which this file reports as damage.
 *
 * Writes. put_* append to a batch kept in memory (strings copied); commit()
 * sends the whole batch as ONE transaction in ONE round trip with libpq's
 * pipeline mode: BEGIN, each prepared statement, COMMIT, then a sync, and
 * only then reads the results. Any failure rolls the transaction back and
 * drops the batch (-1 with err). The updates that must change exactly one
 * row (put_status, update_seat) fail inside the transaction when they do
 * not (warroom_one() raises), so COMMIT is never reached with such a batch.
 * synchronous_commit keeps PostgreSQL's default (on): COMMIT returns once
 * the WAL is flushed. The server does not wait for that on its loop: seal()
 * moves the open batch aside (a pointer swap) and commit_sealed() sends it
 * from the server's committer thread while the loop fills the next batch;
 * the writing session is then that thread's, and own() (a lock taken on
 * the same session, at once) waits for it under wmutex. commit() is the
 * same on the calling thread (start-up, a stop).
 *
 * Ownership. open() takes pg_try_advisory_lock(WRD_PG_LOCK_KEY) on the
 * writing session: while another session holds it, open() fails with
 * WRD_STORE_LOCKED. The lock is the session's, so a process that dies (even
 * by SIGKILL) frees it when PostgreSQL sees its connection close.
 *
 * Several servers (WRD_STORE_SHARED, warroomd --cluster: store.h's cluster
 * ops). open() takes the same key with pg_try_advisory_lock_shared instead,
 * so any number of shared servers run together, and an exclusive one is
 * refused while any of them runs and the reverse (WRD_STORE_LOCKED); the
 * servers of a cluster migrate the schema one at a time, under a blocking
 * lock of its own. Under the same lock, before it migrates anything, a
 * shared open refuses to join servers whose notes have another form
 * (pg_locks shows a shared lock (WRD_PG_FORM_CLASS, form) of another form:
 * WRD_STORE_LOCKED), then takes that lock with its own form (WRD_NOTE_FORM)
 * for its session. A game's lock, key the FNV-1a of "warroom-game:ID", is
 * a session lock of the writing session, so the session's end, the
 * process's death included, frees every game it held. own() takes it with
 * pg_try_advisory_lock between batches (the batch waits in memory for
 * commit()); own_new() and disown() are ops of the batch (S_OWN_NEW,
 * S_DISOWN) that commit_ops sends first in its transaction: a session
 * lock taken or let go inside a transaction is the session's, whatever
 * the transaction does next, and it holds before the COMMIT that sends
 * the batch's notes. PostgreSQL's session locks stack, so the store keeps
 * the set of games it holds (`held`, from the put on: a new game is held
 * from own_new, a game let go is not from disown): own() of one of them
 * makes no round trip, and a game is unlocked exactly once (an own()
 * between a disown and its commit stacks a second lock, which the unlock
 * leaves held). close() lets every lock go
 * before it hangs up (pg_advisory_unlock_all), so another server can own
 * the games at once. put_note is one more statement of the batch, SELECT
 * pg_notify(channel, payload), on the channels warroom_game,
 * warroom_forward and warroom_reply (`note_channels`): PostgreSQL sends the
 * notes of a transaction at its COMMIT, in order, and none when it rolls
 * back; but a note that one batch holds twice (same channel, same payload)
 * arrives once, at its first place. A third session, the listening one,
 * made by open(), LISTENs on every channel and is then non-blocking:
 * note_fd is its socket, drain_notes reads what has come (PQconsumeInput)
 * and passes each note, never waiting. read_tail is read_game's walk from a version: the
 * game's row and seats, then its commands after that version, the last of
 * them at the row's version.
 *
 * Reads (load, read_game, read_tail, list_finished, latest_snapshot,
 * select_ids) go through a second connection, serialised by a recursive
 * mutex (a loader's callback may call latest_snapshot); the outermost call
 * runs in one REPEATABLE READ READ ONLY transaction, so a game is read as
 * of one commit.
 * Values come as text (the seed as hex). A read session PostgreSQL dropped
 * is opened again by the next read; the writing session never is (its lock
 * may be another process's by then): a failed commit stops the server.
 *
 * A password in the location is never logged nor put in an error message:
 * messages name the store by its location with the password replaced.
 */
#include "store.h"
#include "store_open.h"

#include <libpq-fe.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCHEMA_VERSION 6
#define SEATS_MAX 64                /* per game, as store_sqlite.c */

/* An advisory lock's key: the 64-bit FNV-1a of prefix followed by name. */
static int64_t fnv_key(const char *prefix, const char *name)
{
    uint64_t h = 1469598103934665603u;
    for (const char *t[] = { prefix, name }, **q = t; q < t + 2; q++)
        for (const char *p = *q; *p; p++)
            h = (h ^ (unsigned char)*p) * 1099511628211u;
    return (int64_t)h;
}

/* The store's lock: "warroom", fixed for every warroomd. A game's: "warroom-game:ID". */
static int64_t lock_key(void)
{
    return fnv_key("warroom", "");
}

static int64_t game_key(const char *id)
{
    return fnv_key("warroom-game:", id);
}

/* The channels of notes (store.h, WRD_NOTE_*) by number: put_note's names, drain_notes's
 * numbers. */
static const char *const note_channels[] = {
    [WRD_NOTE_GAME] = "warroom_game",
    [WRD_NOTE_FORWARD] = "warroom_forward",
    [WRD_NOTE_REPLY] = "warroom_reply",
};
#define NCHANNELS ((int)(sizeof note_channels / sizeof note_channels[0]))

/* --- the schema and its migrations ------------------------------------------------------ */

static const char schema_6[] =
    "CREATE TABLE meta ("
    "  id integer PRIMARY KEY CHECK (id = 1),"
    "  schema_version integer NOT NULL CHECK (schema_version >= 1),"
    "  opens bigint NOT NULL DEFAULT 0 CHECK (opens >= 0));"
    "INSERT INTO meta (id, schema_version) VALUES (1, 6);"
    "CREATE TABLE games ("
    "  id text PRIMARY KEY CHECK (octet_length(id) BETWEEN 1 AND 23),"
    "  ruleset text NOT NULL CHECK (octet_length(ruleset) BETWEEN 1 AND 23),"
    "  scenario_name text NOT NULL,"
    "  scenario text NOT NULL CHECK (scenario <> ''),"
    "  options text NOT NULL CHECK (options <> ''),"
    "  seed bytea NOT NULL CHECK (length(seed) = 32),"
    "  created_at bigint NOT NULL CHECK (created_at >= 0),"
    "  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'running', 'finished')),"
    "  result text NULL,"
    "  deadline_at bigint NOT NULL DEFAULT 0 CHECK (deadline_at >= 0),"
    "  listed boolean NOT NULL,"
    "  version bigint NOT NULL DEFAULT 0 CHECK (version >= 0),"
    "  parent text NULL CHECK (octet_length(parent) BETWEEN 1 AND 23),"
    "  link_key text NULL CHECK (parent IS NOT NULL OR link_key IS NULL),"
    "  awaiting text NULL,"
    "  moved_at bigint NOT NULL DEFAULT 0 CHECK (moved_at >= 0),"
    "  wake_at bigint NOT NULL DEFAULT 0 CHECK (wake_at >= 0));"
    "CREATE TABLE seats ("
    "  game text NOT NULL REFERENCES games (id),"
    "  seat text NOT NULL CHECK (octet_length(seat) BETWEEN 1 AND 23),"
    "  n bigint GENERATED ALWAYS AS IDENTITY,"
    "  token_hash text NULL CHECK (token_hash ~ '^[0-9a-f]{64}$'),"
    "  invite_hash text NULL CHECK (invite_hash ~ '^[0-9a-f]{64}$'),"
    "  webhook text NULL,"
    "  mail text NULL,"
    "  PRIMARY KEY (game, seat));"
    "CREATE TABLE commands ("
    "  game text NOT NULL REFERENCES games (id),"
    "  version bigint NOT NULL CHECK (version >= 1),"
    "  seat text NOT NULL CHECK (octet_length(seat) BETWEEN 1 AND 23),"
    "  client_seq bigint NOT NULL CHECK (client_seq >= 0),"
    "  cmd text NOT NULL CHECK (cmd <> ''),"
    "  events text NOT NULL CHECK (events <> ''),"
    "  at bigint NOT NULL CHECK (at >= 0),"
    "  PRIMARY KEY (game, version));"
    "CREATE TABLE snapshots ("
    "  game text NOT NULL REFERENCES games (id),"
    "  version bigint NOT NULL CHECK (version >= 1),"
    "  state text NOT NULL CHECK (state <> ''),"
    "  \"full\" text NULL,"
    "  PRIMARY KEY (game, version));"
    /* load() and select_ids(): oldest first, by status and deadline */
    "CREATE INDEX games_created ON games (created_at, id);"
    "CREATE INDEX games_due ON games (status, wake_at);"
    /* list_finished(): a status's listed games, newest first, any ruleset or one */
    "CREATE INDEX games_listed ON games (status, listed, created_at, id);"
    "CREATE INDEX games_listed_ruleset ON games (status, listed, ruleset, created_at, id);"
    /* load()'s links */
    "CREATE INDEX games_links ON games (created_at, id) WHERE parent IS NOT NULL;"
    /* select_ids(WRD_IDS_MAIL) */
    "CREATE INDEX seats_mail ON seats (game) WHERE mail IS NOT NULL;"
    /* tail_only: the latest snapshot that has a full state */
    "CREATE INDEX snapshots_full ON snapshots (game, version) WHERE \"full\" IS NOT NULL;"
    /* An update that must change one row raises otherwise, inside the batch. */
    "CREATE FUNCTION warroom_one(n bigint, what text) RETURNS void LANGUAGE plpgsql AS $$"
    " BEGIN IF n <> 1 THEN RAISE EXCEPTION 'warroom: % changed % rows, not 1', what, n"
    " USING ERRCODE = 'P0002'; END IF; END $$;";

/* Each step takes a store from version `from` to version `to`. */
static const struct migration {
    int from, to;
    const char *sql;
} migrations[] = {
    { 0, 6, schema_6 },
};

/* --- statements ------------------------------------------------------------------------ */

enum {
    S_PUT_GAME, S_PUT_SEAT, S_UPDATE_SEAT, S_PUT_COMMAND, S_PUT_STATUS, S_PUT_SNAPSHOT,
    S_NOTE, S_OWN_NEW, S_DISOWN, S_NSTMTS
};

/* The locks of a batch (own_new, disown) go first in its transaction, right
 * after BEGIN and in the order they were put: a new game's lock before the
 * game's rows, and an unlock whatever a later write of the batch does. */
static int is_lock_op(int stmt)
{
    return stmt == S_OWN_NEW || stmt == S_DISOWN;
}

static const struct stmt {
    const char *name, *sql;
    int nparams;
} wstmts[S_NSTMTS] = {
    [S_PUT_GAME] = { "put_game",
                     "INSERT INTO games (id, ruleset, scenario_name, scenario, options, seed,"
                     " created_at, listed, parent, link_key)"
                     " VALUES ($1, $2, $3, $4, $5, decode($6, 'hex'), $7, $8, $9, $10)", 10 },
    [S_PUT_SEAT] = { "put_seat",
                     "INSERT INTO seats (game, seat, token_hash, invite_hash, webhook, mail)"
                     " VALUES ($1, $2, $3, $4, $5, $6)", 6 },
    [S_UPDATE_SEAT] = { "update_seat",
                        "WITH u AS (UPDATE seats SET token_hash = $3, invite_hash = $4,"
                        " webhook = $5, mail = $6 WHERE game = $1 AND seat = $2 RETURNING 1)"
                        " SELECT warroom_one((SELECT count(*) FROM u),"
                        " 'the seat ' || $2 || ' of game ' || $1)", 6 },
    [S_PUT_COMMAND] = { "put_command",
                        "INSERT INTO commands (game, version, seat, client_seq, cmd, events, at)"
                        " VALUES ($1, $2, $3, $4, $5, $6, $7)", 7 },
    [S_PUT_STATUS] = { "put_status",
                       "WITH u AS (UPDATE games SET status = $2, result = $3, deadline_at = $4,"
                       " version = $5, awaiting = $6, moved_at = $7, wake_at = $8 WHERE id = $1"
                       " RETURNING 1)"
                       " SELECT warroom_one((SELECT count(*) FROM u), 'the status of game ' || $1)",
                       8 },
    [S_PUT_SNAPSHOT] = { "put_snapshot",
                         "INSERT INTO snapshots (game, version, state, \"full\")"
                         " VALUES ($1, $2, $3, $4)", 4 },
    /* sent by PostgreSQL when the transaction commits, never when it rolls back */
    [S_NOTE] = { "note", "SELECT pg_notify($1, $2)", 2 },
    /* A session lock, taken inside the transaction but the session's (it
     * stays after COMMIT, and after a ROLLBACK too). Refused (false: only
     * another process holding the same key) it raises through warroom_one,
     * so the batch never commits; commit_ops names the collision. */
    [S_OWN_NEW] = { "own_new",
                    "SELECT warroom_one(pg_try_advisory_lock($1::bigint)::int,"
                    " 'the lock of new game ' || $2)", 2 },
    /* Session locks are not transactional: the unlock holds at once, before
     * the batch's COMMIT sends its notes (a game's "ID VERSION -"). */
    [S_DISOWN] = { "disown", "SELECT pg_advisory_unlock($1::bigint)", 1 },
};

#define GAMES_COLS "id, ruleset, scenario_name, scenario, options, encode(seed, 'hex'),"   \
                   " created_at, status, result, deadline_at, listed, version, parent,"   \
                   " link_key, awaiting, moved_at, wake_at"
enum { G_ID, G_RULESET, G_SCEN_NAME, G_SCENARIO, G_OPTIONS, G_SEED, G_CREATED, G_STATUS,
       G_RESULT, G_DEADLINE, G_LISTED, G_VERSION, G_PARENT, G_KEY, G_AWAITING, G_MOVED,
       G_WAKE, G_NCOLS };
#define SEATS_COLS "game, seat, token_hash, invite_hash, webhook, mail"
#define COMMANDS_COLS "game, version, seat, client_seq, cmd, events, at"
enum { C_GAME, C_VERSION, C_SEAT, C_SEQ, C_CMD, C_EVENTS, C_AT, C_NCOLS };
#define SNAPSHOTS_COLS "game, version, state, \"full\""

enum {
    R_GAME, R_SEATS, R_COMMANDS, R_COMMANDS_AFTER, R_SNAPSHOTS, R_FULL_SNAPSHOT, R_LATEST,
    R_START_IDS, R_ALL_IDS, R_LINKS, R_LIST, R_LIST_AFTER, R_LIST_RULESET,
    R_LIST_RULESET_AFTER, R_DUE_IDS, R_MAIL_IDS, R_NSTMTS
};

/* A listing: the games of a page and their seats, one row per seat (a game
 * without a seat has one row of NULLs: damage), newest first. */
#define LIST_OF(where)                                                                      \
    "SELECT " GAMES_COLS ", s.seat, s.token_hash IS NOT NULL FROM (SELECT * FROM games"    \
    " WHERE status = $2 AND listed" where " ORDER BY created_at DESC, id DESC LIMIT $1) g"  \
    " LEFT JOIN seats s ON s.game = g.id ORDER BY g.created_at DESC, g.id DESC, s.n"

static const struct stmt rstmts[R_NSTMTS] = {
    [R_GAME] = { "r_game", "SELECT " GAMES_COLS " FROM games WHERE id = $1", 1 },
    [R_SEATS] = { "r_seats", "SELECT " SEATS_COLS " FROM seats WHERE game = $1 ORDER BY n", 1 },
    [R_COMMANDS] = { "r_commands",
                     "SELECT " COMMANDS_COLS " FROM commands WHERE game = $1 ORDER BY version",
                     1 },
    [R_COMMANDS_AFTER] = { "r_commands_after",
                           "SELECT " COMMANDS_COLS " FROM commands WHERE game = $1"
                           " AND version > $2 ORDER BY version", 2 },
    [R_SNAPSHOTS] = { "r_snapshots",
                      "SELECT " SNAPSHOTS_COLS " FROM snapshots WHERE game = $1 ORDER BY version",
                      1 },
    [R_FULL_SNAPSHOT] = { "r_full_snapshot",
                          "SELECT " SNAPSHOTS_COLS " FROM snapshots WHERE game = $1"
                          " AND \"full\" IS NOT NULL ORDER BY version DESC LIMIT 1", 1 },
    [R_LATEST] = { "r_latest",
                   "SELECT game, version, state FROM snapshots WHERE game = $1"
                   " ORDER BY version DESC LIMIT 1", 1 },
    [R_START_IDS] = { "r_start_ids",
                      "SELECT id FROM games WHERE status = 'open' OR (status = 'running'"
                      " AND wake_at > 0 AND wake_at <= $1) ORDER BY created_at, id", 1 },
    [R_ALL_IDS] = { "r_all_ids", "SELECT id FROM games ORDER BY created_at, id", 0 },
    [R_LINKS] = { "r_links",
                  "SELECT id, parent, link_key, ruleset, status, result FROM games"
                  " WHERE parent IS NOT NULL ORDER BY created_at, id", 0 },
    [R_LIST] = { "r_list", LIST_OF(""), 2 },
    [R_LIST_AFTER] = { "r_list_after", LIST_OF(" AND (created_at, id) < ($3, $4)"), 4 },
    [R_LIST_RULESET] = { "r_list_ruleset", LIST_OF(" AND ruleset = $3"), 3 },
    [R_LIST_RULESET_AFTER] = { "r_list_ruleset_after",
                               LIST_OF(" AND ruleset = $3 AND (created_at, id) < ($4, $5)"), 5 },
    [R_DUE_IDS] = { "r_due_ids",
                    "SELECT id FROM games WHERE status = 'running' AND wake_at > 1"
                    " AND wake_at <= $1 ORDER BY created_at, id", 1 },
    [R_MAIL_IDS] = { "r_mail_ids",
                     "SELECT id FROM games g WHERE status = 'running' AND EXISTS (SELECT 1"
                     " FROM seats s WHERE s.game = g.id AND s.mail IS NOT NULL)"
                     " ORDER BY created_at, id", 0 },
};

/* --- the store ------------------------------------------------------------------------- */

#define OP_PARAMS 10

/* One write of the batch: a statement and its parameters (copies; NULL is SQL NULL). */
struct op {
    int stmt;
    char *p[OP_PARAMS];
};

/* A game this process owns (own()): its id ("" for a free slot) and its key. */
struct held {
    char id[WRD_STORE_NAME_MAX + 1];
    int64_t key;
};

struct pg_store {
    struct wrd_store base;
    PGconn *wr;                 /* the loop thread's session: writes, the locks */
    PGconn *rd;                 /* reads, under mutex */
    PGconn *ln;                 /* SHARED: the listening session (non-blocking), or NULL */
    /* SHARED: the games owned, open addressing by key, under hmutex: the
     * loop thread puts (own_new, disown) and owns; the committer forgets a
     * new game whose lock its commit could not take. */
    struct held *held;
    size_t nheld, capheld;      /* capheld: 0 or a power of two, at most half full */
    pthread_mutex_t hmutex;
    pthread_mutex_t mutex;      /* recursive */
    int depth;                  /* nesting of reads on rd */
    int schema;
    char name[256];             /* the location without its password, for messages */
    struct op *ops;             /* the open batch */
    size_t nops, capops;
    int failed;                 /* a put could not be kept: commit fails */
    /* The sealed batch (seal): committed by commit_sealed on a worker
     * thread while the loop thread fills the open one. */
    struct op *sealed;
    size_t nsealed, capsealed;
    int sealed_failed;
    pthread_mutex_t wmutex;     /* the writing session: a commit, or a lock taken or let go */
};

/* What a failed result means for the caller, by its SQLSTATE. */
static int classify(const PGresult *r)
{
    const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    if (state == NULL)
        return WRD_STORE_ERROR;
    if (strcmp(state, "25006") == 0 || strcmp(state, "42501") == 0)
        return WRD_STORE_READONLY;      /* read_only_sql_transaction, insufficient_privilege */
    if (strncmp(state, "XX", 2) == 0)
        return WRD_STORE_DAMAGED;       /* data_corrupted, index_corrupted, internal */
    return WRD_STORE_ERROR;
}

/* libpq's message on one line, without its trailing newline. */
static void one_line(char *err, size_t errlen, const char *what, const char *msg)
{
    snprintf(err, errlen, "%s: %s", what, msg && *msg ? msg : "no message");
    for (char *p = err; *p; p++)
        if (*p == '\n')
            *p = p[1] ? ' ' : '\0';
}

/* Run one command (no parameters); 0 or a WRD_STORE_* code with err. */
static int exec(PGconn *c, const char *sql, const char *what, char *err, size_t errlen)
{
    PGresult *r = PQexec(c, sql);
    ExecStatusType s = PQresultStatus(r);
    int rc = 0;
    if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK) {
        one_line(err, errlen, what, PQerrorMessage(c));
        rc = classify(r);
    }
    PQclear(r);
    return rc;
}

static PGconn *connect_to(const char *location, const char *name, char *err, size_t errlen)
{
    const char *const keys[] = { "dbname", "application_name", "connect_timeout", NULL };
    const char *const values[] = { location, "warroomd", "10", NULL };
    PGconn *c = PQconnectdbParams(keys, values, 1);
    if (c == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (PQstatus(c) != CONNECTION_OK) {
        char what[300];
        snprintf(what, sizeof what, "cannot connect to %s", name);
        one_line(err, errlen, what, PQerrorMessage(c));
        PQfinish(c);
        return NULL;
    }
    return c;
}

static int prepare(PGconn *c, const struct stmt *t, int n, char *err, size_t errlen)
{
    for (int i = 0; i < n; i++) {
        PGresult *r = PQprepare(c, t[i].name, t[i].sql, t[i].nparams, NULL);
        int ok = PQresultStatus(r) == PGRES_COMMAND_OK;
        int rc = ok ? 0 : classify(r);
        PQclear(r);
        if (!ok) {
            char what[64];
            snprintf(what, sizeof what, "preparing %s", t[i].name);
            one_line(err, errlen, what, PQerrorMessage(c));
            return rc;
        }
    }
    return 0;
}

/* One integer from a one-row query. */
static int query_int(PGconn *c, const char *sql, int64_t *out, char *err, size_t errlen)
{
    PGresult *r = PQexec(c, sql);
    int rc = 0;
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        one_line(err, errlen, sql, PQerrorMessage(c));
        rc = classify(r);
    } else if (PQntuples(r) != 1 || PQgetisnull(r, 0, 0)) {
        snprintf(err, errlen, "%s: no value", sql);
        rc = WRD_STORE_DAMAGED;
    } else {
        *out = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
    }
    PQclear(r);
    return rc;
}

/* An advisory lock function (pg_try_advisory_lock and its kin: fn) on key,
 * on c's session: 1 true (taken, or let go), 0 false, or a WRD_STORE_* code
 * with err. One round trip. */
static int lock_call(PGconn *c, const char *fn, int64_t key, char *err, size_t errlen)
{
    char sql[96];
    int64_t got = 0;
    snprintf(sql, sizeof sql, "SELECT %s(%lld)::int", fn, (long long)key);
    int rc = query_int(c, sql, &got, err, errlen);
    return rc < 0 ? rc : got == 1;
}

/* SHARED, under the migration lock (so no other process of the cluster
 * is between this check and its own lock), before any migration: refuse to join processes whose
 * notes have another form (store.h, WRD_NOTE_FORM), then hold the shared
 * lock (WRD_PG_FORM_CLASS, WRD_NOTE_FORM) that tells later ones this
 * process's form, until the session ends. 0, WRD_STORE_LOCKED with err
 * naming both forms, or another WRD_STORE_* code. Two round trips. */
static int join_form(struct pg_store *s, char *err, size_t errlen)
{
    char sql[320];
    int64_t other = 0;
    snprintf(sql, sizeof sql, "SELECT coalesce(min(objid::bigint), -1) FROM pg_catalog.pg_locks"
             " WHERE locktype = 'advisory' AND granted AND objsubid = 2 AND classid = %d"
             " AND objid <> %d AND database = (SELECT oid FROM pg_catalog.pg_database"
             " WHERE datname = current_database())", WRD_PG_FORM_CLASS, WRD_NOTE_FORM);
    int rc = query_int(s->wr, sql, &other, err, errlen);
    if (rc < 0)
        return rc;
    if (other >= 0) {
        snprintf(err, errlen, "%s: the processes of this cluster write notes of form %lld and "
                 "this build writes form %d: every process of a cluster must be one build "
                 "(stop them all, then start this one)", s->name, (long long)other,
                 WRD_NOTE_FORM);
        return WRD_STORE_LOCKED;
    }
    snprintf(sql, sizeof sql, "SELECT pg_advisory_lock_shared(%d, %d)", WRD_PG_FORM_CLASS,
             WRD_NOTE_FORM);
    return exec(s->wr, sql, "holding the form of notes", err, errlen);
}

/* The schema: made, migrated, or this version's. Under the lock. */
static int migrate(struct pg_store *s, char *err, size_t errlen)
{
    int64_t has_meta, has_games, v = 0;
    int rc;
    if ((rc = query_int(s->wr, "SELECT count(*) FROM pg_catalog.pg_tables WHERE tablename ="
                        " 'meta' AND schemaname = current_schema()", &has_meta, err,
                        errlen)) < 0 ||
        (rc = query_int(s->wr, "SELECT count(*) FROM pg_catalog.pg_tables WHERE tablename ="
                        " 'games' AND schemaname = current_schema()", &has_games, err,
                        errlen)) < 0)
        return rc;
    if (has_meta && (rc = query_int(s->wr, "SELECT schema_version FROM meta WHERE id = 1", &v,
                                    err, errlen)) < 0)
        return rc;
    if (!has_meta && has_games) {
        snprintf(err, errlen, "%s holds tables but no schema version", s->name);
        return WRD_STORE_DAMAGED;
    }
    for (size_t i = 0; i < sizeof migrations / sizeof migrations[0]; i++) {
        const struct migration *m = &migrations[i];
        if (m->from != v)
            continue;
        char step[64];
        snprintf(step, sizeof step, "migrating from version %d to %d", m->from, m->to);
        if ((rc = exec(s->wr, "BEGIN", step, err, errlen)) < 0)
            return rc;
        char set[80];
        snprintf(set, sizeof set, "UPDATE meta SET schema_version = %d", m->to);
        if ((rc = exec(s->wr, m->sql, step, err, errlen)) < 0 ||
            (rc = exec(s->wr, set, step, err, errlen)) < 0 ||
            (rc = exec(s->wr, "COMMIT", step, err, errlen)) < 0) {
            char ignored[64];
            exec(s->wr, "ROLLBACK", "rollback", ignored, sizeof ignored);
            return rc;
        }
        v = m->to;
    }
    if (v != SCHEMA_VERSION) {
        snprintf(err, errlen, "%s has schema version %lld; this warroomd knows %d", s->name,
                 (long long)v, SCHEMA_VERSION);
        return WRD_STORE_ERROR;
    }
    s->schema = (int)v;
    return 0;
}

static void ops_free(struct op *ops, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < OP_PARAMS; j++)
            free(ops[i].p[j]);
}

static void batch_free(struct pg_store *s)
{
    ops_free(s->ops, s->nops);
    s->nops = 0;
    s->failed = 0;
}

static void store_free(struct pg_store *s)
{
    batch_free(s);
    free(s->ops);
    ops_free(s->sealed, s->nsealed);
    free(s->sealed);
    free(s->held);
    if (s->ln)
        PQfinish(s->ln);
    if (s->rd)
        PQfinish(s->rd);
    if (s->wr)
        PQfinish(s->wr);     /* the session ends: its advisory locks go with it */
    pthread_mutex_destroy(&s->mutex);
    pthread_mutex_destroy(&s->wmutex);
    pthread_mutex_destroy(&s->hmutex);
    free(s);
}

static const struct wrd_store_cluster_ops pg_cluster_ops;

/* Flags: no check of pages at open (see the top); WRD_STORE_SHARED: see "Several servers". */
static int pg_open(struct wrd_store **out, const char *location, int flags, char *err,
                   size_t errlen)
{
    int shared = (flags & WRD_STORE_SHARED) != 0;
    struct pg_store *s = calloc(1, sizeof *s);
    if (s == NULL) {
        snprintf(err, errlen, "out of memory");
        return WRD_STORE_ERROR;
    }
    s->base.ops = &wrd_store_pg_ops;
    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&s->mutex, &ma);
    pthread_mutex_init(&s->wmutex, NULL);
    pthread_mutex_init(&s->hmutex, NULL);
    pthread_mutexattr_destroy(&ma);
    wrd_store_redact(location, s->name, sizeof s->name);
    int rc = WRD_STORE_ERROR;
    /* 1) the writing session and its lock: one server per database, or
     * (SHARED) the servers of a cluster, all sharing it */
    if ((s->wr = connect_to(location, s->name, err, errlen)) == NULL)
        goto fail;
    if ((rc = lock_call(s->wr, shared ? "pg_try_advisory_lock_shared" : "pg_try_advisory_lock",
                        lock_key(), err, errlen)) < 0)
        goto fail;
    if (rc == 0) {
        snprintf(err, errlen, "%s: another process holds the store (its advisory lock%s)",
                 s->name, shared ? ": a server not in a cluster" : "");
        rc = WRD_STORE_LOCKED;
        goto fail;
    }
    /* 2) the schema (SHARED: one server of the cluster at a time, under a
     * lock of its own that waits, and only once the form of its notes is
     * the cluster's), then a write that proves the store can be written */
    int64_t migrating = fnv_key("warroom-migrate", "");
    char wait[80];
    snprintf(wait, sizeof wait, "SELECT pg_advisory_lock(%lld)", (long long)migrating);
    if ((shared && (rc = exec(s->wr, wait, "waiting to migrate", err, errlen)) < 0) ||
        (shared && (rc = join_form(s, err, errlen)) < 0) ||
        (rc = migrate(s, err, errlen)) < 0 ||
        (shared && (rc = lock_call(s->wr, "pg_advisory_unlock", migrating, err, errlen)) < 0) ||
        (rc = exec(s->wr, "UPDATE meta SET opens = opens + 1 WHERE id = 1",
                   "writing to the store", err, errlen)) < 0 ||
        (rc = prepare(s->wr, wstmts, S_NSTMTS, err, errlen)) < 0)
        goto fail;
    /* 3) the read session */
    rc = WRD_STORE_ERROR;
    if ((s->rd = connect_to(location, s->name, err, errlen)) == NULL ||
        (rc = prepare(s->rd, rstmts, R_NSTMTS, err, errlen)) < 0)
        goto fail;
    /* 4) SHARED: the listening session, on every channel, then non-blocking */
    if (shared) {
        char listen[128];
        size_t at = 0;
        for (int i = 1; i < NCHANNELS; i++)
            at += (size_t)snprintf(listen + at, sizeof listen - at, "LISTEN %s;",
                                   note_channels[i]);
        rc = WRD_STORE_ERROR;
        if ((s->ln = connect_to(location, s->name, err, errlen)) == NULL ||
            (rc = exec(s->ln, listen, "listening for notes", err, errlen)) < 0)
            goto fail;
        if (PQsetnonblocking(s->ln, 1) != 0) {
            one_line(err, errlen, "listening for notes", PQerrorMessage(s->ln));
            rc = WRD_STORE_ERROR;
            goto fail;
        }
        s->base.cluster = &pg_cluster_ops;
    }
    *out = &s->base;
    return 0;
fail:
    store_free(s);
    *out = NULL;
    return rc;
}

/* --- writes: the batch ----------------------------------------------------------------- */

/* Append a write: n parameters, copied (NULL stays NULL). */
static int add(struct pg_store *s, int stmt, int n, const char *const *p)
{
    if (s->nops == s->capops) {
        size_t cap = s->capops ? 2 * s->capops : 64;
        struct op *o = realloc(s->ops, cap * sizeof *o);
        if (o == NULL) {
            s->failed = 1;
            return -1;
        }
        s->ops = o;
        s->capops = cap;
    }
    struct op *o = &s->ops[s->nops++];
    memset(o, 0, sizeof *o);
    o->stmt = stmt;
    for (int i = 0; i < n; i++)
        if (p[i] && (o->p[i] = strdup(p[i])) == NULL) {
            s->failed = 1;
            return -1;
        }
    return 0;
}

#define I64(buf, v) (snprintf(buf, sizeof buf, "%lld", (long long)(v)), buf)

static int pg_put_game(struct wrd_store *st, const struct wrd_game_row *g)
{
    char seed[65], created[24];
    for (int i = 0; i < 32; i++)
        snprintf(seed + 2 * i, 3, "%02x", g->seed[i]);
    const char *p[] = { g->id, g->ruleset, g->scenario_name, g->scenario_json, g->options_json,
                        seed, I64(created, g->created_ms), g->listed ? "true" : "false",
                        g->parent, g->parent ? g->link_key : NULL };
    return add((struct pg_store *)st, S_PUT_GAME, 10, p);
}

static int pg_put_seat(struct wrd_store *st, const struct wrd_seat_row *r)
{
    const char *p[] = { r->game, r->seat, r->token_hash, r->invite_hash, r->webhook, r->mail };
    return add((struct pg_store *)st, S_PUT_SEAT, 6, p);
}

static int pg_update_seat(struct wrd_store *st, const struct wrd_seat_row *r)
{
    const char *p[] = { r->game, r->seat, r->token_hash, r->invite_hash, r->webhook, r->mail };
    return add((struct pg_store *)st, S_UPDATE_SEAT, 6, p);
}

static int pg_put_command(struct wrd_store *st, const struct wrd_command_row *c)
{
    char v[24], seq[24], at[24];
    const char *p[] = { c->game, I64(v, c->version), c->seat, I64(seq, c->client_seq),
                        c->cmd_json, c->events_json, I64(at, c->at_ms) };
    return add((struct pg_store *)st, S_PUT_COMMAND, 7, p);
}

static int pg_put_status(struct wrd_store *st, const struct wrd_status_row *r)
{
    char dl[24], v[24], moved[24], wake[24];
    const char *p[] = { r->game, r->status, r->result, I64(dl, r->deadline_ms),
                        I64(v, r->version), r->awaiting, I64(moved, r->moved_ms),
                        I64(wake, r->wake_ms) };
    return add((struct pg_store *)st, S_PUT_STATUS, 8, p);
}

static int pg_put_snapshot(struct wrd_store *st, const char *game, int64_t version,
                           const char *state_json, const char *full_json)
{
    char v[24];
    const char *p[] = { game, I64(v, version), state_json, full_json };
    return add((struct pg_store *)st, S_PUT_SNAPSHOT, 4, p);
}

static int pg_pending(struct wrd_store *st)
{
    struct pg_store *s = (struct pg_store *)st;
    return s->nops > 0 || s->failed;
}

/* Read one query's results up to its NULL: its status, or -1 when the
 * connection has nothing more to give. *cmd gets PQcmdTuples. */
static int one_result(PGconn *c, char *msg, size_t msglen, char *cmd, size_t cmdlen)
{
    PGresult *r = PQgetResult(c);
    if (r == NULL)
        return -1;
    int t = (int)PQresultStatus(r);
    snprintf(msg, msglen, "%s", PQresultErrorMessage(r));
    snprintf(cmd, cmdlen, "%s", PQcmdTuples(r));
    PQclear(r);
    if (t != PGRES_PIPELINE_SYNC)
        PQclear(PQgetResult(c));        /* the NULL that ends each query's results */
    return t;
}

/* After a failed batch: out of pipeline mode, and no transaction left open. */
static void recover(struct pg_store *s, size_t pending)
{
    PGconn *c = s->wr;
    char msg[8], cmd[8];
    if (PQpipelineStatus(c) != PQ_PIPELINE_OFF) {
        /* what is still to come, up to the sync (sent again: harmless) */
        PQpipelineSync(c);
        for (size_t i = 0; i < pending + 4; i++) {
            int t = one_result(c, msg, sizeof msg, cmd, sizeof cmd);
            if (t == PGRES_PIPELINE_SYNC && PQexitPipelineMode(c) == 1)
                break;
            if (t < 0 && PQstatus(c) == CONNECTION_BAD)
                break;
        }
        PQexitPipelineMode(c);
    }
    if (PQtransactionStatus(c) == PQTRANS_INTRANS || PQtransactionStatus(c) == PQTRANS_INERROR)
        PQclear(PQexec(c, "ROLLBACK"));
}

/* The batch's ops in the order they are sent: the locks first (is_lock_op),
 * then the rest, each group in the order it was put. */
struct send_order {
    const struct op *ops;
    size_t nops, i;
    int pass;                   /* 0: the locks, 1: the rest, 2: done */
};

/* The next op to send or to read the result of, or NULL after the last. */
static const struct op *next_op(struct send_order *o)
{
    while (o->pass < 2) {
        while (o->i < o->nops) {
            const struct op *op = &o->ops[o->i++];
            if (is_lock_op(op->stmt) == (o->pass == 0))
                return op;
        }
        o->pass++;
        o->i = 0;
    }
    return NULL;
}

static void held_forget(struct pg_store *s, const char *id);

/* After a failed batch, its locks that did not run (the first `ran` of
 * them did): a new game's is not held (forgotten); an unlock is made now,
 * outside the transaction, so the game goes as disown() promised. */
static void locks_not_run(struct pg_store *s, const struct op *ops, size_t nops, size_t ran)
{
    size_t k = 0;
    for (size_t i = 0; i < nops; i++) {
        if (!is_lock_op(ops[i].stmt) || k++ < ran)
            continue;
        if (ops[i].stmt == S_OWN_NEW) {
            held_forget(s, ops[i].p[1]);
        } else {
            /* when even this fails the session is lost, and its locks with it */
            char err[256];
            (void)lock_call(s->wr, "pg_advisory_unlock", strtoll(ops[i].p[0], NULL, 10), err,
                            sizeof err);
        }
    }
}

/* Send the batch ops[0..nops) as one transaction, in one round trip, and
 * read its results: 0, or -1 with err (rolled back; its locks as
 * locks_not_run leaves them). The caller holds wmutex and frees the ops. */
static int commit_ops(struct pg_store *s, const struct op *ops, size_t nops, char *err,
                      size_t errlen)
{
    PGconn *c = s->wr;
    int rc = -1;
    size_t nq = nops + 2, got = 0, locks_ran = 0;
    struct send_order order = { ops, nops, 0, 0 };
    const struct op *o;
    /* 1) everything out: BEGIN, the locks, the writes, COMMIT, a sync */
    if (PQenterPipelineMode(c) == 0 ||
        PQsendQueryParams(c, "BEGIN", 0, NULL, NULL, NULL, NULL, 0) == 0) {
        one_line(err, errlen, "commit", PQerrorMessage(c));
        goto out;
    }
    while ((o = next_op(&order)) != NULL) {
        if (PQsendQueryPrepared(c, wstmts[o->stmt].name, wstmts[o->stmt].nparams,
                                (const char *const *)o->p, NULL, NULL, 0) == 0) {
            one_line(err, errlen, "commit", PQerrorMessage(c));
            goto out;
        }
    }
    if (PQsendQueryParams(c, "COMMIT", 0, NULL, NULL, NULL, NULL, 0) == 0 ||
        PQpipelineSync(c) == 0) {
        one_line(err, errlen, "commit", PQerrorMessage(c));
        goto out;
    }
    /* 2) the results, in the same order: BEGIN, each op, COMMIT; the first
     * failure is the one reported (those after it are "aborted") */
    int bad = 0;
    char msg[300], cmd[24];
    order = (struct send_order){ ops, nops, 0, 0 };
    for (; got < nq; got++) {
        int t = one_result(c, msg, sizeof msg, cmd, sizeof cmd);
        if (t < 0) {
            if (!bad)
                one_line(err, errlen, "commit", PQerrorMessage(c));
            goto out;
        }
        o = got > 0 && got < nq - 1 ? next_op(&order) : NULL;
        const char *what = got == 0 ? "BEGIN" : o == NULL ? "COMMIT" : wstmts[o->stmt].name;
        int ok = t == PGRES_COMMAND_OK || t == PGRES_TUPLES_OK;
        if (!bad && !ok) {
            char w[64];
            snprintf(w, sizeof w, "commit: %s", what);
            if (o && o->stmt == S_OWN_NEW && strstr(msg, "changed 0 rows"))
                snprintf(err, errlen, "commit: the lock of new game %s is held by another "
                         "process (its key collides): nothing of the batch is stored", o->p[1]);
            else
                one_line(err, errlen, w, msg);
            bad = 1;
        } else if (!bad && o && t == PGRES_COMMAND_OK && strcmp(cmd, "1") != 0) {
            snprintf(err, errlen, "commit: %s wrote %s rows, not 1", what, cmd);
            bad = 1;
        }
        if (!bad && o && is_lock_op(o->stmt))
            locks_ran++;
    }
    if (one_result(c, msg, sizeof msg, cmd, sizeof cmd) != PGRES_PIPELINE_SYNC) {
        if (!bad)
            one_line(err, errlen, "commit: no sync", PQerrorMessage(c));
        goto out;
    }
    got++;
    if (PQexitPipelineMode(c) != 1) {
        if (!bad)
            one_line(err, errlen, "commit: leaving pipeline mode", PQerrorMessage(c));
        goto out;
    }
    if (!bad && PQtransactionStatus(c) == PQTRANS_IDLE)
        rc = 0;
    else if (!bad)
        snprintf(err, errlen, "commit: the transaction did not end");
out:
    if (rc != 0) {
        recover(s, nq + 1 > got ? nq + 1 - got : 0);
        locks_not_run(s, ops, nops, locks_ran);
    }
    return rc;
}

static int pg_commit(struct wrd_store *st, char *err, size_t errlen)
{
    struct pg_store *s = (struct pg_store *)st;
    if (!pg_pending(st))
        return 0;
    int rc = -1;
    if (s->failed) {
        snprintf(err, errlen, "a write of the batch could not be kept (out of memory)");
    } else {
        pthread_mutex_lock(&s->wmutex);
        rc = commit_ops(s, s->ops, s->nops, err, errlen);
        pthread_mutex_unlock(&s->wmutex);
    }
    batch_free(s);
    return rc;
}

/* The open batch becomes the sealed one (its arrays swapped with the
 * sealed one's, emptied by the last commit_sealed): the loop thread goes on
 * putting into a new open batch while a worker commits it. */
static int pg_seal(struct wrd_store *st)
{
    struct pg_store *s = (struct pg_store *)st;
    if (s->nsealed > 0 || s->sealed_failed)
        return -1;
    struct op *o = s->sealed;
    size_t cap = s->capsealed;
    s->sealed = s->ops;
    s->capsealed = s->capops;
    s->nsealed = s->nops;
    s->sealed_failed = s->failed;
    s->ops = o;
    s->capops = cap;
    s->nops = 0;
    s->failed = 0;
    return 0;
}

static int pg_commit_sealed(struct wrd_store *st, char *err, size_t errlen)
{
    struct pg_store *s = (struct pg_store *)st;
    int rc = -1;
    if (s->sealed_failed) {
        snprintf(err, errlen, "a write of the batch could not be kept (out of memory)");
    } else {
        pthread_mutex_lock(&s->wmutex);
        rc = s->nsealed ? commit_ops(s, s->sealed, s->nsealed, err, errlen) : 0;
        pthread_mutex_unlock(&s->wmutex);
    }
    ops_free(s->sealed, s->nsealed);
    s->nsealed = 0;
    s->sealed_failed = 0;
    return rc;
}

/* --- reads ----------------------------------------------------------------------------- */

/* Enter a read: the mutex, and the read transaction for the outermost call. */
static int read_enter(struct pg_store *s, char *err, size_t errlen)
{
    pthread_mutex_lock(&s->mutex);
    if (s->depth++ > 0)
        return 0;
    /* A read session that PostgreSQL dropped (a restart of the server, an
     * administrator): a new one, with its statements. The writing session
     * is never replaced: its lock may have gone to another process. */
    if (PQstatus(s->rd) == CONNECTION_BAD) {
        PQreset(s->rd);
        int rc = PQstatus(s->rd) == CONNECTION_OK ? prepare(s->rd, rstmts, R_NSTMTS, err, errlen)
                                                  : WRD_STORE_ERROR;
        if (rc < 0) {
            if (PQstatus(s->rd) != CONNECTION_OK)
                one_line(err, errlen, "reconnecting for reads", PQerrorMessage(s->rd));
            s->depth--;
            pthread_mutex_unlock(&s->mutex);
            return rc;
        }
    }
    int rc = exec(s->rd, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", "begin a read", err,
                  errlen);
    if (rc < 0) {
        s->depth--;
        pthread_mutex_unlock(&s->mutex);
    }
    return rc;
}

static void read_leave(struct pg_store *s)
{
    if (--s->depth == 0) {
        char ignored[64];
        exec(s->rd, "COMMIT", "end a read", ignored, sizeof ignored);
    }
    pthread_mutex_unlock(&s->mutex);
}

/* Run a prepared read: its rows, or NULL with err. */
static PGresult *rq(struct pg_store *s, int which, int n, const char *const *p, int *rc,
                    char *err, size_t errlen)
{
    PGresult *r = PQexecPrepared(s->rd, rstmts[which].name, n, p, NULL, NULL, 0);
    if (PQresultStatus(r) == PGRES_TUPLES_OK)
        return r;
    char what[64];
    snprintf(what, sizeof what, "reading (%s)", rstmts[which].name);
    one_line(err, errlen, what, PQerrorMessage(s->rd));
    *rc = classify(r);
    PQclear(r);
    return NULL;
}

/* Kinds of columns, checked on every row read (as store_sqlite.c's). */
enum kind { K_NAME, K_TEXT, K_JSON, K_TEXT_NULL, K_NAME_NULL, K_HASH_NULL, K_SEED, K_COUNT,
            K_VERSION, K_STATUS, K_FLAG };

static const char *val(const PGresult *r, int row, int col)
{
    return PQgetisnull(r, row, col) ? NULL : PQgetvalue(r, row, col);
}

static int64_t num(const PGresult *r, int row, int col)
{
    const char *v = val(r, row, col);
    return v ? strtoll(v, NULL, 10) : 0;
}

static int is_hex(const char *t, size_t n)
{
    if (strlen(t) != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((t[i] >= '0' && t[i] <= '9') || (t[i] >= 'a' && t[i] <= 'f')))
            return 0;
    return 1;
}

/* What is wrong with a value of kind k, or NULL. */
static const char *bad_value(const char *t, enum kind k)
{
    if (t == NULL)
        return k == K_TEXT_NULL || k == K_HASH_NULL || k == K_NAME_NULL ? NULL : "NULL";
    size_t n = strlen(t);
    switch (k) {
    case K_NAME:
    case K_NAME_NULL:
        return n == 0 ? "empty" : n > WRD_STORE_NAME_MAX ? "too long" : NULL;
    case K_JSON:
        return n == 0 ? "empty" : NULL;
    case K_TEXT:
    case K_TEXT_NULL:
        return NULL;
    case K_HASH_NULL:
        return is_hex(t, 64) ? NULL : "not 64 hex digits";
    case K_SEED:
        return is_hex(t, 64) ? NULL : "not 32 bytes";
    case K_STATUS:
        return strcmp(t, "open") == 0 || strcmp(t, "running") == 0 ||
                       strcmp(t, "finished") == 0
                   ? NULL
                   : "not open, running or finished";
    case K_FLAG:
        return strcmp(t, "t") == 0 || strcmp(t, "f") == 0 ? NULL : "neither true nor false";
    case K_COUNT:
    case K_VERSION: {
        char *end;
        long long v = strtoll(t, &end, 10);
        if (n == 0 || *end != '\0')
            return "not an integer";
        if (k == K_COUNT && v < 0)
            return "negative";
        if (k == K_VERSION && v < 1)
            return "below 1";
        return NULL;
    }
    }
    return "of an unknown kind";
}

struct column {
    const char *name;
    enum kind kind;
};

struct table {
    const char *name;
    int nkey;                       /* leading columns naming a row in messages */
    const struct column *cols;
    int ncols;
};

static const struct column games_cols[] = {
    { "id", K_NAME }, { "ruleset", K_NAME }, { "scenario_name", K_TEXT },
    { "scenario", K_JSON }, { "options", K_JSON }, { "seed", K_SEED },
    { "created_at", K_COUNT }, { "status", K_STATUS }, { "result", K_TEXT_NULL },
    { "deadline_at", K_COUNT }, { "listed", K_FLAG }, { "version", K_COUNT },
    { "parent", K_NAME_NULL }, { "link_key", K_TEXT_NULL }, { "awaiting", K_TEXT_NULL },
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

#define NCOLS(a) ((int)(sizeof a / sizeof a[0]))
static const struct table t_games = { "games", 1, games_cols, NCOLS(games_cols) };
static const struct table t_seats = { "seats", 2, seats_cols, NCOLS(seats_cols) };
static const struct table t_commands = { "commands", 2, commands_cols, NCOLS(commands_cols) };
static const struct table t_snapshots = { "snapshots", 2, snapshots_cols,
                                          NCOLS(snapshots_cols) };

/* Check row `row` of r against t (its columns from col 0). */
static int check_row(const PGresult *r, int row, const struct table *t, char *err,
                     size_t errlen)
{
    if (PQnfields(r) < t->ncols) {
        snprintf(err, errlen, "table %s: %d columns, not %d", t->name, PQnfields(r), t->ncols);
        return WRD_STORE_DAMAGED;
    }
    for (int i = 0; i < t->ncols; i++) {
        const char *why = bad_value(val(r, row, i), t->cols[i].kind);
        if (why) {
            char name[160] = "";
            size_t at = 0;
            for (int k = 0; k < t->nkey && at < sizeof name; k++) {
                const char *v = val(r, row, k);
                at += (size_t)snprintf(name + at, sizeof name - at, "%s%s %.40s", k ? ", " : "",
                                       t->cols[k].name, v ? v : "NULL");
            }
            snprintf(err, errlen, "table %s, row (%s): column %s is %s", t->name, name,
                     t->cols[i].name, why);
            return WRD_STORE_DAMAGED;
        }
    }
    return 0;
}

static int check_rows(const PGresult *r, const struct table *t, const char *game, char *err,
                      size_t errlen)
{
    for (int i = 0; i < PQntuples(r); i++) {
        int rc = check_row(r, i, t, err, errlen);
        if (rc < 0)
            return rc;
        if (game && strcmp(val(r, i, 0), game) != 0) {
            snprintf(err, errlen, "table %s: the rows of game %s are not its own", t->name,
                     game);
            return WRD_STORE_DAMAGED;
        }
    }
    return 0;
}

static int unhex(char c)
{
    return c <= '9' ? c - '0' : c - 'a' + 10;
}

/* A checked games row (from GAMES_COLS) as the loader's struct; seed is its 32 bytes. */
static void game_row_of(const PGresult *r, int row, uint8_t seed[32], struct wrd_game_row *g)
{
    const char *hex = val(r, row, G_SEED);
    for (int i = 0; i < 32; i++)
        seed[i] = (uint8_t)(unhex(hex[2 * i]) << 4 | unhex(hex[2 * i + 1]));
    *g = (struct wrd_game_row){ val(r, row, G_ID), val(r, row, G_RULESET),
                                val(r, row, G_SCEN_NAME), val(r, row, G_SCENARIO),
                                val(r, row, G_OPTIONS), seed, num(r, row, G_CREATED),
                                strcmp(val(r, row, G_LISTED), "t") == 0,
                                val(r, row, G_PARENT), val(r, row, G_KEY) };
}

/* One game, read and checked, then passed to l (when not NULL): whole
 * (after < 0: its snapshots, and its commands from the first, or from its
 * latest full snapshot with l->tail_only), or its tail (after >= 0: no
 * snapshot, the commands after that version, the last of them at the row's
 * version). 1 when there is no such game. */
static int walk_game(struct pg_store *s, const char *id, const struct wrd_store_loader *l,
                     int64_t after, char *err, size_t errlen)
{
    PGresult *g = NULL, *seats = NULL, *snaps = NULL, *cmds = NULL;
    int rc = WRD_STORE_ERROR;
    const char *p[2] = { id, NULL };
    if ((g = rq(s, R_GAME, 1, p, &rc, err, errlen)) == NULL)
        goto out;
    if (PQntuples(g) == 0) {
        rc = 1;
        goto out;
    }
    if ((rc = check_rows(g, &t_games, id, err, errlen)) < 0)
        goto out;
    int64_t version = num(g, 0, G_VERSION), base = 0;
    int finished = strcmp(val(g, 0, G_STATUS), "finished") == 0;
    int tail = after < 0 && l && l->tail_only;
    if ((seats = rq(s, R_SEATS, 1, p, &rc, err, errlen)) == NULL ||
        (after < 0 &&
         (snaps = rq(s, tail ? R_FULL_SNAPSHOT : R_SNAPSHOTS, 1, p, &rc, err, errlen)) == NULL))
        goto out;
    if ((rc = check_rows(seats, &t_seats, id, err, errlen)) < 0 ||
        (rc = check_rows(snaps, &t_snapshots, id, err, errlen)) < 0)
        goto out;
    if (PQntuples(seats) == 0 || PQntuples(seats) > SEATS_MAX) {
        snprintf(err, errlen, "table seats: game %s has %d seats", id, PQntuples(seats));
        rc = WRD_STORE_DAMAGED;
        goto out;
    }
    for (int i = 0; i < PQntuples(snaps); i++)
        if (num(snaps, i, 1) > version || (i > 0 && num(snaps, i, 1) <= num(snaps, i - 1, 1))) {
            snprintf(err, errlen, "table snapshots, row (game %s, version %lld): past the "
                     "game's version %lld or out of order", id, (long long)num(snaps, i, 1),
                     (long long)version);
            rc = WRD_STORE_DAMAGED;
            goto out;
        }
    char from[24];
    if (after >= 0)
        base = after;
    else if (tail && PQntuples(snaps) == 1)
        base = num(snaps, 0, 1);
    p[1] = I64(from, base);
    if ((cmds = rq(s, base ? R_COMMANDS_AFTER : R_COMMANDS, base ? 2 : 1, p, &rc, err,
                   errlen)) == NULL)
        goto out;
    if ((rc = check_rows(cmds, &t_commands, id, err, errlen)) < 0)
        goto out;
    int64_t n = base;
    for (int i = 0; i < PQntuples(cmds); i++)
        if (num(cmds, i, C_VERSION) != ++n) {
            snprintf(err, errlen, "table commands: game %s has no command %lld", id,
                     (long long)n);
            rc = WRD_STORE_DAMAGED;
            goto out;
        }
    /* the commands reach the row's version, exactly when it finished (a
     * running game's row is written when its status or deadline changes,
     * not with every command: its version may be behind) */
    int exact = finished;
    if (n < version || (exact && n != version)) {
        snprintf(err, errlen, "table commands: game %s has %lld commands; its row says %s "
                 "version %lld", id, (long long)n, finished ? "it finished at" : "it reached",
                 (long long)version);
        rc = WRD_STORE_DAMAGED;
        goto out;
    }
    rc = 0;
    if (l == NULL)
        goto out;
    /* Checked whole: now to the loader. */
    uint8_t seed[32];
    struct wrd_game_row row;
    game_row_of(g, 0, seed, &row);
    if (l->game(l->ctx, &row, val(g, 0, G_STATUS), val(g, 0, G_RESULT),
                num(g, 0, G_DEADLINE)) != 0) {
        snprintf(err, errlen, "game %s could not be restored", id);
        rc = WRD_STORE_ERROR;
        goto out;
    }
    for (int i = 0; i < PQntuples(seats); i++) {
        struct wrd_seat_row r = { val(seats, i, 0), val(seats, i, 1), val(seats, i, 2),
                                  val(seats, i, 3), val(seats, i, 4), val(seats, i, 5) };
        if (l->seat(l->ctx, &r) != 0) {
            snprintf(err, errlen, "seat %s of game %s could not be restored", r.seat, id);
            rc = WRD_STORE_ERROR;
            goto out;
        }
    }
    for (int i = 0; l->snapshot && i < PQntuples(snaps); i++)
        if (l->snapshot(l->ctx, id, num(snaps, i, 1), val(snaps, i, 2), val(snaps, i, 3)) != 0) {
            snprintf(err, errlen, "game %s: snapshot %lld could not be restored", id,
                     (long long)num(snaps, i, 1));
            rc = WRD_STORE_ERROR;
            goto out;
        }
    for (int i = 0; i < PQntuples(cmds); i++) {
        struct wrd_command_row c = { val(cmds, i, C_GAME), num(cmds, i, C_VERSION),
                                     val(cmds, i, C_SEAT), num(cmds, i, C_SEQ),
                                     val(cmds, i, C_CMD), val(cmds, i, C_EVENTS),
                                     num(cmds, i, C_AT) };
        if (l->command(l->ctx, &c) != 0) {
            snprintf(err, errlen, "game %s: command %lld could not be replayed", id,
                     (long long)c.version);
            rc = WRD_STORE_ERROR;
            goto out;
        }
    }
out:
    PQclear(g);
    PQclear(seats);
    PQclear(snaps);
    PQclear(cmds);
    return rc;
}

/* read_game (after < 0) and read_tail: one game in a read of its own. */
static int read_one(struct wrd_store *st, const char *id, int64_t after,
                    const struct wrd_store_loader *l, char *err, size_t errlen)
{
    struct pg_store *s = (struct pg_store *)st;
    if (id == NULL || *id == '\0')
        return 1;
    int rc = read_enter(s, err, errlen);
    if (rc < 0)
        return rc;
    rc = walk_game(s, id, l, after, err, errlen);
    read_leave(s);
    return rc;
}

static int pg_read_game(struct wrd_store *st, const char *id, const struct wrd_store_loader *l,
                        char *err, size_t errlen)
{
    return read_one(st, id, -1, l, err, errlen);
}

/* Each id of r (column 0) to walk_game with l. */
static int walk_ids(struct pg_store *s, const PGresult *ids, const struct wrd_store_loader *l,
                    char *err, size_t errlen)
{
    for (int i = 0; i < PQntuples(ids); i++) {
        const char *id = val(ids, i, 0);
        int rc = walk_game(s, id, l, -1, err, errlen);
        if (rc == 1) {
            snprintf(err, errlen, "table games: game %s is listed but not found", id);
            rc = WRD_STORE_DAMAGED;
        }
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* With finished_too: every row of every table, before anything is passed.
 * Each game whole (walk_game), then the counts: no row of seats, commands
 * or snapshots outside the games walked. */
static int check_all(struct pg_store *s, const PGresult *ids, char *err, size_t errlen)
{
    int rc = walk_ids(s, ids, NULL, err, errlen);
    if (rc != 0)
        return rc;
    static const char *const orphans[] = {
        "SELECT count(*) FROM seats s WHERE NOT EXISTS (SELECT 1 FROM games g"
        " WHERE g.id = s.game)",
        "SELECT count(*) FROM commands c WHERE NOT EXISTS (SELECT 1 FROM games g"
        " WHERE g.id = c.game)",
        "SELECT count(*) FROM snapshots n WHERE NOT EXISTS (SELECT 1 FROM games g"
        " WHERE g.id = n.game)",
        "SELECT count(*) FROM games WHERE parent IS NOT NULL AND parent NOT IN"
        " (SELECT id FROM games)",
    };
    for (size_t i = 0; i < sizeof orphans / sizeof orphans[0]; i++) {
        int64_t n;
        if ((rc = query_int(s->rd, orphans[i], &n, err, errlen)) < 0)
            return rc;
        if (n != 0) {
            snprintf(err, errlen, "%lld rows belong to no game: %s", (long long)n,
                     orphans[i]);
            return WRD_STORE_DAMAGED;
        }
    }
    return 0;
}

static int pg_load(struct wrd_store *st, const struct wrd_store_loader *l, char *err,
                   size_t errlen)
{
    struct pg_store *s = (struct pg_store *)st;
    int rc = read_enter(s, err, errlen);
    if (rc < 0)
        return rc;
    char due[24];
    const char *p[] = { I64(due, l->due_before_ms) };
    PGresult *ids = l->finished_too ? rq(s, R_ALL_IDS, 0, NULL, &rc, err, errlen)
                                    : rq(s, R_START_IDS, 1, p, &rc, err, errlen);
    if (ids) {
        if (l->finished_too)
            rc = check_all(s, ids, err, errlen);
        else
            rc = 0;
        if (rc == 0)
            rc = walk_ids(s, ids, l, err, errlen);
        PQclear(ids);
    }
    if (rc == 0 && l->link) {
        PGresult *q = rq(s, R_LINKS, 0, NULL, &rc, err, errlen);
        for (int i = 0; q && i < PQntuples(q); i++)
            if (l->link(l->ctx, val(q, i, 0), val(q, i, 1), val(q, i, 2), val(q, i, 3),
                        val(q, i, 4), val(q, i, 5)) != 0) {
                snprintf(err, errlen, "a link was refused by the loader");
                rc = WRD_STORE_ERROR;
                break;
            }
        PQclear(q);
    }
    read_leave(s);
    return rc;
}

static int pg_latest_snapshot(struct wrd_store *st, const char *game, int64_t *version,
                              char **state_json, char *err, size_t errlen)
{
    struct pg_store *s = (struct pg_store *)st;
    int rc = read_enter(s, err, errlen);
    if (rc < 0)
        return rc;
    const char *p[] = { game };
    PGresult *q = rq(s, R_LATEST, 1, p, &rc, err, errlen);
    if (q && PQntuples(q) == 0) {
        rc = 0;
    } else if (q && (rc = check_row(q, 0, &(struct table){ "snapshots", 2, snapshots_cols, 3 },
                                    err, errlen)) == 0) {
        if (strcmp(val(q, 0, 0), game) != 0) {
            snprintf(err, errlen, "table snapshots: looking up game %.40s finds another row",
                     game);
            rc = WRD_STORE_DAMAGED;
        } else if ((*state_json = strdup(val(q, 0, 2))) == NULL) {
            snprintf(err, errlen, "out of memory");
            rc = WRD_STORE_ERROR;
        } else {
            *version = num(q, 0, 1);
            rc = 1;
        }
    }
    PQclear(q);
    read_leave(s);
    return rc;
}

static int pg_list_finished(struct wrd_store *st, const struct wrd_finished_query *fq,
                            int (*row_cb)(void *ctx, const struct wrd_finished_row *r),
                            void *ctx, char *err, size_t errlen)
{
    struct pg_store *s = (struct pg_store *)st;
    if (fq->limit < 1 || fq->limit > 1000) {
        snprintf(err, errlen, "limit %d is not from 1 to 1000", fq->limit);
        return WRD_STORE_ERROR;
    }
    const char *status = fq->status ? fq->status : "finished";
    if (strcmp(status, "finished") != 0 && strcmp(status, "running") != 0) {
        snprintf(err, errlen, "a listing of %.20s games: only finished or running", status);
        return WRD_STORE_ERROR;
    }
    int rc = read_enter(s, err, errlen);
    if (rc < 0)
        return rc;
    int which = fq->ruleset ? (fq->before_id ? R_LIST_RULESET_AFTER : R_LIST_RULESET)
                            : (fq->before_id ? R_LIST_AFTER : R_LIST);
    char limit[24], before[24];
    /* $1 limit, $2 status, then the ruleset when there is one, then the cursor */
    const char *p[5] = { I64(limit, fq->limit), status };
    int np = 2;
    if (fq->ruleset)
        p[np++] = fq->ruleset;
    if (fq->before_id) {
        p[np++] = I64(before, fq->before_created_ms);
        p[np++] = fq->before_id;
    }
    PGresult *q = rq(s, which, np, p, &rc, err, errlen);
    int passed = 0, n = q ? PQntuples(q) : 0;
    for (int i = 0; q && i < n;) {
        /* one game: its rows (one per seat) */
        int first = i;
        const char *id = val(q, i, G_ID);
        if ((rc = check_row(q, i, &t_games, err, errlen)) < 0)
            break;
        if (strcmp(val(q, i, G_STATUS), status) != 0 || strcmp(val(q, i, G_LISTED), "t") != 0) {
            snprintf(err, errlen, "index games_listed lists game %s, which is not a listed "
                     "%s game", id, status);
            rc = WRD_STORE_DAMAGED;
            break;
        }
        struct wrd_seat_summary seats[SEATS_MAX];
        int nseats = 0;
        for (; i < n && strcmp(val(q, i, G_ID), id) == 0; i++) {
            const char *seat = val(q, i, G_NCOLS);
            if (seat == NULL || nseats == SEATS_MAX) {
                snprintf(err, errlen, "table seats: game %s has %s seats", id,
                         seat ? "too many" : "no");
                rc = WRD_STORE_DAMAGED;
                break;
            }
            seats[nseats++] = (struct wrd_seat_summary){ seat,
                                                         strcmp(val(q, i, G_NCOLS + 1), "t") == 0 };
        }
        if (rc < 0)
            break;
        struct wrd_finished_row row = { id, val(q, first, G_RULESET), val(q, first, G_SCEN_NAME),
                                        val(q, first, G_STATUS), val(q, first, G_RESULT),
                                        num(q, first, G_VERSION), num(q, first, G_CREATED),
                                        val(q, first, G_OPTIONS), seats, nseats,
                                        val(q, first, G_AWAITING), num(q, first, G_MOVED) };
        passed++;
        if (row_cb(ctx, &row) != 0)
            break;
    }
    PQclear(q);
    read_leave(s);
    return rc < 0 ? rc : passed;
}

static int pg_select_ids(struct wrd_store *st, const struct wrd_ids_query *iq,
                         int (*id_cb)(void *ctx, const char *id), void *ctx, char *err,
                         size_t errlen)
{
    struct pg_store *s = (struct pg_store *)st;
    if (iq->kind != WRD_IDS_DUE && iq->kind != WRD_IDS_MAIL) {
        snprintf(err, errlen, "select_ids: no kind %d", iq->kind);
        return WRD_STORE_ERROR;
    }
    int rc = read_enter(s, err, errlen);
    if (rc < 0)
        return rc;
    char before[24];
    const char *p[] = { I64(before, iq->before_ms) };
    PGresult *q = iq->kind == WRD_IDS_DUE ? rq(s, R_DUE_IDS, 1, p, &rc, err, errlen)
                                          : rq(s, R_MAIL_IDS, 0, NULL, &rc, err, errlen);
    int passed = 0;
    for (int i = 0; q && i < PQntuples(q); i++) {
        const char *why = bad_value(val(q, i, 0), K_NAME);
        if (why) {
            snprintf(err, errlen, "table games: an id is %s", why);
            rc = WRD_STORE_DAMAGED;
            break;
        }
        passed++;
        if (id_cb(ctx, val(q, i, 0)) != 0)
            break;
    }
    PQclear(q);
    read_leave(s);
    return rc < 0 ? rc : passed;
}

/* --- several servers: the cluster ops ---------------------------------------------------- */

/* The slot of game id (key k) in s->held, or of the free slot it would take. */
static size_t held_slot(const struct pg_store *s, const char *id, int64_t k)
{
    size_t mask = s->capheld - 1, i = (size_t)k & mask;
    while (s->held[i].id[0] != '\0' && strcmp(s->held[i].id, id) != 0)
        i = (i + 1) & mask;
    return i;
}

static int held_has(const struct pg_store *s, const char *id, int64_t k)
{
    return s->capheld > 0 && s->held[held_slot(s, id, k)].id[0] != '\0';
}

/* Room for one more game (the table kept at most half full): 0, or -1 out of memory. */
static int held_reserve(struct pg_store *s)
{
    if (2 * (s->nheld + 1) <= s->capheld)
        return 0;
    size_t cap = s->capheld ? 2 * s->capheld : 64;
    struct held *old = s->held, *h = calloc(cap, sizeof *h);
    if (h == NULL)
        return -1;
    size_t oldcap = s->capheld;
    s->held = h;
    s->capheld = cap;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].id[0] != '\0')
            h[held_slot(s, old[i].id, old[i].key)] = old[i];
    free(old);
    return 0;
}

/* Forget the game in slot i, moving back the ones after it that probed past it. */
static void held_remove(struct pg_store *s, size_t i)
{
    size_t mask = s->capheld - 1;
    s->held[i].id[0] = '\0';
    s->nheld--;
    for (size_t j = (i + 1) & mask; s->held[j].id[0] != '\0'; j = (j + 1) & mask) {
        size_t home = (size_t)s->held[j].key & mask;
        /* j's entry may move to i when its home is not in (i, j] (cyclically) */
        if (((j - home) & mask) >= ((j - i) & mask)) {
            s->held[i] = s->held[j];
            s->held[j].id[0] = '\0';
            i = j;
        }
    }
}

/* Remember game (key k) as held; room was reserved (held_reserve). */
static void held_add(struct pg_store *s, const char *game, int64_t k)
{
    pthread_mutex_lock(&s->hmutex);
    struct held *h = &s->held[held_slot(s, game, k)];
    if (h->id[0] == '\0') {
        snprintf(h->id, sizeof h->id, "%s", game);
        h->key = k;
        s->nheld++;
    }
    pthread_mutex_unlock(&s->hmutex);
}

/* Forget game (no longer held, or never: a lock its commit could not take). */
static void held_forget(struct pg_store *s, const char *id)
{
    int64_t k = game_key(id);
    pthread_mutex_lock(&s->hmutex);
    if (held_has(s, id, k))
        held_remove(s, held_slot(s, id, k));
    pthread_mutex_unlock(&s->hmutex);
}

static int id_ok(const char *id)
{
    return id && *id && strlen(id) <= WRD_STORE_NAME_MAX;
}

/* Is game (key k) held by this session? 1 yes; 0 no, and there is room
 * to hold it (reserved: a lock taken is never forgotten); -1 no room. */
static int held_or_room(struct pg_store *s, const char *game, int64_t k)
{
    pthread_mutex_lock(&s->hmutex);
    int rc = held_has(s, game, k) ? 1 : held_reserve(s) == 0 ? 0 : -1;
    pthread_mutex_unlock(&s->hmutex);
    return rc;
}

/* Outside every batch: the writing session is idle between commits (the
 * batch is in memory until commit() sends it), so the lock is the
 * session's, not a transaction's. */
static int pg_own(struct wrd_store *st, const char *game)
{
    struct pg_store *s = (struct pg_store *)st;
    if (!id_ok(game))
        return WRD_STORE_ERROR;
    int64_t k = game_key(game);
    int held = held_or_room(s, game, k);
    if (held != 0)              /* session locks stack: never twice */
        return held > 0 ? 1 : WRD_STORE_ERROR;
    char err[256];
    pthread_mutex_lock(&s->wmutex);        /* waits for a commit under way */
    int rc = lock_call(s->wr, "pg_try_advisory_lock", k, err, sizeof err);
    pthread_mutex_unlock(&s->wmutex);
    if (rc == 1)
        held_add(s, game, k);
    return rc;
}

/* A batched lock (S_OWN_NEW): held from now for own() and disown(), taken
 * by the commit (commit_ops: before the batch's writes). */
static int pg_own_new(struct wrd_store *st, const char *game)
{
    struct pg_store *s = (struct pg_store *)st;
    if (!id_ok(game))
        return WRD_STORE_ERROR;
    int64_t k = game_key(game);
    int held = held_or_room(s, game, k);
    if (held != 0)              /* session locks stack: never twice */
        return held > 0 ? 0 : WRD_STORE_ERROR;
    char key[24];
    const char *p[] = { I64(key, k), game };
    if (add(s, S_OWN_NEW, 2, p) != 0)
        return WRD_STORE_ERROR;
    held_add(s, game, k);
    return 0;
}

/* A batched unlock (S_DISOWN): forgotten from now (an own() meanwhile
 * takes the lock again, stacked, so the unlock leaves it held once). */
static int pg_disown(struct wrd_store *st, const char *game)
{
    struct pg_store *s = (struct pg_store *)st;
    if (!id_ok(game))
        return WRD_STORE_ERROR;
    int64_t k = game_key(game);
    pthread_mutex_lock(&s->hmutex);
    int held = held_has(s, game, k);
    pthread_mutex_unlock(&s->hmutex);
    if (!held)
        return 0;
    char key[24];
    const char *p[] = { I64(key, k) };
    if (add(s, S_DISOWN, 1, p) != 0)
        return WRD_STORE_ERROR;
    held_forget(s, game);
    return 0;
}

static int pg_put_note(struct wrd_store *st, int channel, const char *payload)
{
    if (channel < 1 || channel >= NCHANNELS || payload == NULL ||
        strlen(payload) > WRD_NOTE_MAX)
        return WRD_STORE_ERROR;
    const char *p[] = { note_channels[channel], payload };
    return add((struct pg_store *)st, S_NOTE, 2, p);
}

static int pg_note_fd(struct wrd_store *st)
{
    struct pg_store *s = (struct pg_store *)st;
    return s->ln ? PQsocket(s->ln) : -1;
}

static int pg_drain_notes(struct wrd_store *st,
                          void (*cb)(void *ctx, int channel, const char *payload), void *ctx)
{
    struct pg_store *s = (struct pg_store *)st;
    if (s->ln == NULL || PQconsumeInput(s->ln) == 0 || PQstatus(s->ln) != CONNECTION_OK)
        return -1;              /* the session is lost: notes may have been missed */
    int n = 0;
    PGnotify *m;
    while ((m = PQnotifies(s->ln)) != NULL) {
        for (int ch = 1; ch < NCHANNELS; ch++)
            if (strcmp(m->relname, note_channels[ch]) == 0) {
                cb(ctx, ch, m->extra);
                n++;
                break;
            }
        PQfreemem(m);
    }
    return n;
}

static int pg_read_tail(struct wrd_store *st, const char *game, int64_t after,
                        const struct wrd_store_loader *l, char *err, size_t errlen)
{
    if (after < 0) {
        snprintf(err, errlen, "read_tail: after version %lld", (long long)after);
        return WRD_STORE_ERROR;
    }
    return read_one(st, game, after, l, err, errlen);
}

static const struct wrd_store_cluster_ops pg_cluster_ops = {
    .own = pg_own,
    .own_new = pg_own_new,
    .disown = pg_disown,
    .put_note = pg_put_note,
    .note_fd = pg_note_fd,
    .drain_notes = pg_drain_notes,
    .read_tail = pg_read_tail,
};

static void pg_close(struct wrd_store *st)
{
    struct pg_store *s = (struct pg_store *)st;
    if (s == NULL)
        return;
    char err[256];
    pg_commit(st, err, sizeof err);
    /* The store's lock (and, SHARED, the games') let go now, not when the
     * server process behind the session has exited after PQfinish(): a
     * process that opens the store the moment this one closed it (a
     * restart; another server of the cluster) must find it free.
     * test_store_contract_pg's t_locked failed under ASan when the
     * backend had not yet exited. */
    if (PQstatus(s->wr) == CONNECTION_OK)
        exec(s->wr, "SELECT pg_advisory_unlock_all()", "letting go", err, sizeof err);
    store_free(s);
}

static int pg_schema_version(struct wrd_store *st)
{
    return ((struct pg_store *)st)->schema;
}

const struct wrd_store_ops wrd_store_pg_ops = {
    .name = "postgresql",
    .open = pg_open,
    .close = pg_close,
    .schema_version = pg_schema_version,
    .put_game = pg_put_game,
    .put_seat = pg_put_seat,
    .update_seat = pg_update_seat,
    .put_command = pg_put_command,
    .put_status = pg_put_status,
    .put_snapshot = pg_put_snapshot,
    .pending = pg_pending,
    .commit = pg_commit,
    .seal = pg_seal,
    .commit_sealed = pg_commit_sealed,
    .load = pg_load,
    .read_game = pg_read_game,
    .list_finished = pg_list_finished,
    .latest_snapshot = pg_latest_snapshot,
    .select_ids = pg_select_ids,
};
