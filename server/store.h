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
 * thread only; a backend with seal() and commit_sealed() commits a sealed
 * batch on a worker thread while the loop fills the next one.
 *
 * Reads go through a second connection of their own: `load` at start-up
 * (loop thread, before the loop runs), and `read_game`, `list_finished`,
 * `select_ids` and `latest_snapshot` from libuv worker threads (uv_queue_work) while the
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

/* Flags of open(). Without either, open() reads nothing in proportion to
 * the store's size, so a start takes the same time whatever it holds. */
#define WRD_STORE_CHECK_QUICK 1     /* the engine's quick check of every page (SQLite
                                     * quick_check; PostgreSQL: none) */
#define WRD_STORE_CHECK_FULL 2      /* its full check (SQLite integrity_check) */
#define WRD_STORE_SHARED 4          /* several servers share the store (warroomd
                                     * --cluster): no lock of the whole store (a
                                     * shared one instead, so a server without the
                                     * flag is refused while any with it runs, and
                                     * the reverse); each game is owned by one
                                     * process at a time (own()) and notes go
                                     * between the processes. Only backends whose
                                     * cluster ops are set accept it. */

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

/* A game's row as of a version: written with every change of the game. */
struct wrd_status_row {
    const char *game;
    const char *status;             /* "open", "running" or "finished" */
    const char *result;             /* or NULL */
    int64_t deadline_ms;            /* the earliest deadline running, 0 none */
    int64_t version;
    const char *awaiting;           /* the seat the game awaits first (its ruleset's
                                     * order), or NULL: for a lobby of games not held */
    int64_t moved_ms;               /* the last command's time, 0 none */
    int64_t wake_ms;                /* when the game next needs its server with no command
                                     * (a deadline's reminder or expiry), 0 never: a game
                                     * out of memory is read back before then. 1: always
                                     * (a game kept in memory while it runs: load() passes
                                     * it, select_ids WRD_IDS_DUE does not) */
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
 * each of its seats, then snapshot() for its snapshots in version order
 * (when snapshot is not NULL), then command() for each of its commands in
 * version order; return non-zero to stop (the store function then fails
 * with WRD_STORE_ERROR). They run on the thread that called the store, and
 * may call latest_snapshot() but no other read function of the store. */
struct wrd_store_loader {
    void *ctx;
    int (*game)(void *ctx, const struct wrd_game_row *g, const char *status, const char *result,
                int64_t deadline_ms);
    int (*seat)(void *ctx, const struct wrd_seat_row *s);
    int (*command)(void *ctx, const struct wrd_command_row *c);
    /* load() only. 0: every open game, and every running game due at or
     * before due_before_ms (its status row's 0 < wake_ms <= due_before_ms),
     * reading only their rows: a start. 1: every game,
     * after checking every row of every table (warroomd --verify). */
    int finished_too;
    int64_t due_before_ms;
    /* May be NULL. A snapshot: its version, its public state (put_snapshot's
     * state_json) and its full state (full_json, or NULL when it has none). */
    int (*snapshot)(void *ctx, const char *game, int64_t version, const char *state_json,
                    const char *full_json);
    /* 1: of each game, only the latest snapshot that has a full state is
     * passed to snapshot(), and only the commands after it to command()
     * (every command when it has none): a game restored from its snapshot.
     * 0: every snapshot and every command. */
    int tail_only;
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
    const char *awaiting;           /* the status row's (wrd_status_row), or NULL */
    int64_t moved_ms;               /* the status row's, 0 none */
};

/* Which games list_finished() passes: listed ones of the status, newest
 * first (created_ms, then id, descending), strictly before the cursor. */
struct wrd_finished_query {
    const char *before_id;          /* NULL: from the newest; else with before_created_ms */
    int64_t before_created_ms;
    int limit;                      /* at most this many (1..1000) */
    const char *ruleset;            /* NULL: any */
    const char *status;             /* NULL or "finished": finished games; "running":
                                     * running games (rows' result NULL) */
};

/* Which games select_ids() passes. */
enum {
    WRD_IDS_DUE = 1,                /* running, 1 < wake_ms <= before_ms */
    WRD_IDS_MAIL = 2,               /* running, with a seat whose mail is not NULL */
};

struct wrd_ids_query {
    int kind;                       /* WRD_IDS_* */
    int64_t before_ms;              /* WRD_IDS_DUE */
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
    /* A game's row, stored open, with no result, deadline, version,
     * awaited seat, move or wake: what a put_status of those would write
     * (games.c writes none for a game that starts that way). */
    int (*put_game)(struct wrd_store *st, const struct wrd_game_row *g);
    /* A seat row, inserted once when its game is created... */
    int (*put_seat)(struct wrd_store *st, const struct wrd_seat_row *s);
    /* ...and changed later (a claim, a webhook). */
    int (*update_seat)(struct wrd_store *st, const struct wrd_seat_row *s);
    int (*put_command)(struct wrd_store *st, const struct wrd_command_row *c);
    /* The game's status, result, deadline and summary as of its version. */
    int (*put_status)(struct wrd_store *st, const struct wrd_status_row *s);
    /* A snapshot at a version, one per (game, version): the public state
     * (checked on restore and by --verify) and the full state the server
     * restores the game from (full_json, NULL when none: the game is then
     * replayed from its first command). full_json holds every secret of the
     * game: never listed or exported. */
    int (*put_snapshot)(struct wrd_store *st, const char *game, int64_t version,
                        const char *state_json, const char *full_json);

    /* Is a batch open? */
    int (*pending)(struct wrd_store *st);
    /* Make the open batch durable. -1 with err on failure (the batch is lost). */
    int (*commit)(struct wrd_store *st, char *err, size_t errlen);
    /* Both NULL, or both set: a commit off the loop thread. seal(), loop
     * thread: the open batch becomes the sealed one, and the next put
     * opens a new batch; 0, or -1 when the last sealed batch has not been
     * committed yet (nothing changes). commit_sealed(), one thread at a
     * time (the server's committer), while the loop thread goes on putting
     * into the open batch: make the sealed batch durable, as commit() does
     * (-1 with err: it is lost); own() waits for it. Without
     * them the loop thread commits (commit()). */
    int (*seal)(struct wrd_store *st);
    int (*commit_sealed)(struct wrd_store *st, char *err, size_t errlen);

    /* Loop thread, at start-up before the loop runs. Pass to l the games
     * l->finished_too names (see there), oldest first, each row checked
     * (columns, checksum, versions in order); with finished_too, every row
     * of every table is checked first (columns, checksums, versions, the
     * row counts recorded with each commit). Then, when l->link is set,
     * the links. 0, or WRD_STORE_DAMAGED (with finished_too: nothing was
     * passed to l) or WRD_STORE_ERROR. */
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
    /* Worker thread. The ids of the games q names, oldest first (created_ms,
     * then id), each passed to id_cb (non-zero stops early). The number
     * passed, or WRD_STORE_DAMAGED / WRD_STORE_ERROR. */
    int (*select_ids)(struct wrd_store *st, const struct wrd_ids_query *q,
                      int (*id_cb)(void *ctx, const char *id), void *ctx, char *err,
                      size_t errlen);
    /* May be NULL: the backend keeps no page cache in this process
     * (PostgreSQL's is the database server's). Loop thread, after open()
     * and before any other call: the most the cache of the connection
     * that writes may hold, in bytes (at least 256 KiB). It fills to that
     * bound as the store grows, and stays. 0, or WRD_STORE_ERROR with err. */
    int (*set_cache)(struct wrd_store *st, int64_t bytes, char *err, size_t errlen);
};

/* The channels of notes (put_note). Every process of a cluster listens on
 * all of them, itself included. */
enum {
    WRD_NOTE_GAME = 1,          /* a game changed: "ID VERSION", or "ID VERSION -" when
                                 * its owner let it go (disown) */
    WRD_NOTE_FORWARD = 2,       /* a message for a game's owner: "ID JSON", or
                                 * "HASH JSON" for a claim by an invite, HASH the
                                 * invite's (64 hex digits: read only where the
                                 * invite is held) */
    WRD_NOTE_REPLY = 3,         /* the owner's answer to a forward: "NODE JSON",
                                 * NODE the forward's sender */
};

/* The form of the notes above: raised with every change of a channel's
 * payload. The processes of a cluster must all write the same form: a
 * shared open() refuses to join processes of another (WRD_STORE_LOCKED,
 * its err naming both forms). Form 1 had no addressee on forwards and
 * replies; form 2 addressed a claim by an invite "*". Builds older than
 * the check (form 1, and the first of form 2) hold no lock it can see. */
#define WRD_NOTE_FORM 3

/* Longest payload of a note, in bytes (PostgreSQL's NOTIFY takes < 8000). */
#define WRD_NOTE_MAX 7900

/*
 * Several servers on one store: the cluster ops. A backend sets all of
 * them or none (SQLite: none); they are used only when the store was
 * opened with WRD_STORE_SHARED.
 */
struct wrd_store_cluster_ops {
    /* Worker thread (uv_queue_work, as read_game; or start-up), any time
     * (a batch may be open: this lock is outside every batch, it does not
     * depend on one committing): for a game read from the store or taken
     * over. Take the game for this process: 1 taken (or already held by
     * this process, own_new's included: no round trip), 0 another process
     * holds it, < 0 the store failed. Held until disown(), or until this
     * process's session with the store ends: its death frees every game it
     * held. One round trip on the writing session, so it waits for a
     * commit under way (commit_sealed): never on the loop thread once it
     * runs. Safe beside the loop thread's own_new and disown. */
    int (*own)(struct wrd_store *st, const char *game);
    /* Batched write, loop thread: a game created here (put it before the
     * game's put_game) is this process's from now: own() of it answers 1
     * with no round trip, and the commit of the open batch takes its lock
     * before any write of that batch, so the lock is held before anything
     * of the game is stored (nobody else can know the game earlier) and
     * stays held after that commit, the session's as own()'s is. A lock
     * refused (another process holds the same key: only a collision of
     * keys) fails that commit, -1 with an err naming the game, nothing of
     * the batch stored. 0, or < 0 (a bad id; out of memory: the commit
     * fails). Never a round trip. */
    int (*own_new)(struct wrd_store *st, const char *game);
    /* Batched write, loop thread: let the game go, once no write of it is
     * left in the open batch (its last change sealed or committed: the
     * unlock comes before the batch's writes). From now own() takes
     * the lock again (a round trip); the commit of the open batch lets it
     * go first thing in its transaction, before its writes (so even when
     * one of them fails) and before its notes are sent at COMMIT (so a
     * note "ID VERSION -" of the batch is never seen before the lock is
     * free). 0 (a game not held: nothing to do), or < 0 (out of memory:
     * the commit fails). Never a round trip. */
    int (*disown)(struct wrd_store *st, const char *game);
    /* Batched write, loop thread: a note on channel (WRD_NOTE_*) with its
     * payload (copied; at most WRD_NOTE_MAX bytes, else < 0), sent to
     * every listening process when the batch commits, never when it does
     * not. Notes of one batch arrive in the order they were put. */
    int (*put_note)(struct wrd_store *st, int channel, const char *payload);
    /* Loop thread. The descriptor that becomes readable when notes arrive
     * (a session of its own, listening on every channel since open()), or
     * -1. Valid until close(). */
    int (*note_fd)(struct wrd_store *st);
    /* Loop thread, when note_fd is readable (or any time: it never waits).
     * Each note that arrived, in order, passed to cb (channel, payload:
     * borrowed for the call). The number passed, or < 0 when the listening
     * session is lost (notes may have been missed: the caller stops). */
    int (*drain_notes)(struct wrd_store *st,
                       void (*cb)(void *ctx, int channel, const char *payload), void *ctx);
    /* Worker thread, like read_game. A game as of now from after a version:
     * game() with its row and status, seat() for every seat, then
     * command() for each command whose version > after (none when it has
     * no later one). 0, 1 no such game, WRD_STORE_DAMAGED (nothing passed)
     * or WRD_STORE_ERROR. The loader's snapshot, link, finished_too and
     * tail_only are not used. */
    int (*read_tail)(struct wrd_store *st, const char *game, int64_t after,
                     const struct wrd_store_loader *l, char *err, size_t errlen);
};

struct wrd_store {
    const struct wrd_store_ops *ops;
    /* NULL unless the backend supports a cluster and was opened with
     * WRD_STORE_SHARED (set by open()). */
    const struct wrd_store_cluster_ops *cluster;
};

extern const struct wrd_store_ops wrd_store_sqlite_ops;

#endif
