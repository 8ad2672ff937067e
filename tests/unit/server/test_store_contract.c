/*
 * test_store_contract.c - the store interface (server/store.h) as a
 * contract, run against every backend in one binary: SQLite in a file of a
 * temporary directory, PostgreSQL in a fresh database of the test cluster
 * (tests/support/pgdb.h: WT_STORE_URL or WT_STORE_URL_FILE; without either
 * the PostgreSQL half fails, it is never skipped).
 *
 * Each case, on each backend: what is written is read back exactly
 * (read_game with every snapshot, and tail_only from the latest full
 * snapshot); load() at a start passes the open games and the running ones
 * due, and with finished_too every game, then the links; list_finished()
 * pages finished games and running ones with the cursor and the ruleset
 * filter; select_ids() of both kinds; latest_snapshot(); a failing commit
 * loses its whole batch and the store goes on; reads from a second thread
 * while this one writes see whole commits only; a second open of one store
 * is WRD_STORE_LOCKED; and (PostgreSQL) a read-only database is
 * WRD_STORE_READONLY, a gap in a game's commands WRD_STORE_DAMAGED, and a
 * dropped read session is opened again.
 *
 * Several servers (WRD_STORE_SHARED, store.h's cluster ops): on SQLite the
 * flag gives no cluster ops and the store stays locked whole; on PostgreSQL
 * shared opens exclude an exclusive one both ways, a game is owned by one
 * store at a time (own, disown, a closed session frees it, a failed batch
 * does not), a new game's lock is taken by the commit that stores it
 * (own_new: refused, that commit fails) and a game let go is free once
 * its batch commits (disown: before its notes, despite a failed write),
 * notes reach every listening store in order at a commit and
 * never from a batch that failed, and read_tail passes a game's row, its
 * seats and the commands after a version.
 *
 *   test_store_contract [sqlite|postgresql]     one backend (default: both)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "pgdb.h"
#include "store.h"
#include "store_open.h"

/* --- backends and fixtures ---------------------------------------------------------- */

struct backend {
    const char *name;
    int pg;
};

static const struct backend sqlite_backend = { "sqlite", 0 };
static const struct backend pg_backend = { "postgresql", 1 };

struct fix {
    const struct backend *b;
    char dir[256];              /* SQLite: the temporary directory */
    char location[400];
    struct wrd_store *st;
};

/* A fresh store, opened with flags (0: setup, WRD_STORE_SHARED: setup_shared). */
static int setup_flags(void **state, int flags)
{
    struct fix *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->b = *state;
    if (f->b->pg) {
        const char *base = wt_pg_base();
        if (base == NULL || *base == '\0')
            fail_msg("no PostgreSQL cluster: set WT_STORE_URL or WT_STORE_URL_FILE "
                     "(ctest's pg_cluster_start fixture does)");
        assert_int_equal(wt_pg_create(base, f->location, sizeof f->location), 0);
    } else {
        const char *tmp = getenv("TMPDIR");
        snprintf(f->dir, sizeof f->dir, "%s/warroom-contract-XXXXXX", tmp ? tmp : "/tmp");
        assert_non_null(mkdtemp(f->dir));
        snprintf(f->location, sizeof f->location, "%s/store.db", f->dir);
    }
    char err[512] = "";
    int rc = wrd_store_open(&f->st, f->location, flags, err, sizeof err);
    if (rc != 0)
        fail_msg("open %s: %d %s", f->b->name, rc, err);
    assert_string_equal(f->st->ops->name, f->b->name);
    *state = f;
    return 0;
}

static int setup(void **state)
{
    return setup_flags(state, 0);
}

static int setup_shared(void **state)
{
    return setup_flags(state, WRD_STORE_SHARED);
}

static int teardown(void **state)
{
    struct fix *f = *state;
    if (f->st)
        f->st->ops->close(f->st);
    if (f->b->pg) {
        wt_pg_drop(f->location);
    } else {
        DIR *d = opendir(f->dir);
        struct dirent *e;
        char path[600];
        while (d && (e = readdir(d)) != NULL)
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
                snprintf(path, sizeof path, "%s/%s", f->dir, e->d_name);
                unlink(path);
            }
        if (d)
            closedir(d);
        rmdir(f->dir);
    }
    free(f);
    return 0;
}

/* --- writing ------------------------------------------------------------------------ */

#define TOKEN "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"

static void commit(struct wrd_store *st)
{
    char err[512] = "";
    if (st->ops->commit(st, err, sizeof err) != 0)
        fail_msg("commit: %s", err);
    assert_int_equal(st->ops->pending(st), 0);
}

/* A game with seats p1 (taken) and p2 (a mail registration when mail). */
static void put_game(struct wrd_store *st, const char *id, const char *ruleset,
                     int64_t created, int listed, const char *parent, int mail)
{
    uint8_t seed[32];
    for (int i = 0; i < 32; i++)
        seed[i] = (uint8_t)(i * 7 + created);
    struct wrd_game_row g = { id, ruleset, "small", "{\"s\":1}", "{\"o\":2}", seed, created,
                              listed, parent, parent ? "k1" : NULL };
    assert_int_equal(st->ops->put_game(st, &g), 0);
    struct wrd_seat_row p1 = { id, "p1", TOKEN, NULL, NULL, NULL };
    struct wrd_seat_row p2 = { id, "p2", NULL, TOKEN, "http://127.0.0.1:9/h",
                               mail ? "{\"to\":\"a@b.c\"}" : NULL };
    assert_int_equal(st->ops->put_seat(st, &p1), 0);
    assert_int_equal(st->ops->put_seat(st, &p2), 0);
    assert_int_equal(st->ops->pending(st), 1);
}

static void put_status(struct wrd_store *st, const char *id, const char *status,
                       const char *result, int64_t deadline, int64_t version,
                       const char *awaiting, int64_t moved)
{
    /* a running game is due at its deadline (games.c also counts reminders) */
    struct wrd_status_row r = { id, status, result, deadline, version, awaiting, moved,
                                strcmp(status, "running") == 0 ? deadline : 0 };
    assert_int_equal(st->ops->put_status(st, &r), 0);
}

static void put_command(struct wrd_store *st, const char *id, int64_t v)
{
    char cmd[64], ev[64];
    snprintf(cmd, sizeof cmd, "{\"c\":%lld}", (long long)v);
    snprintf(ev, sizeof ev, "[{\"e\":%lld}]", (long long)v);
    struct wrd_command_row c = { id, v, v % 2 ? "p1" : "p2", v * 10, cmd, ev, 1000 + v };
    assert_int_equal(st->ops->put_command(st, &c), 0);
}

/* --- what a loader sees ---------------------------------------------------------------- */

struct seen {
    char text[16384];
    size_t len;
    int games;
};

static void say(struct seen *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(struct seen *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(s->text + s->len, sizeof s->text - s->len, fmt, ap);
    va_end(ap);
    if (n > 0 && s->len + (size_t)n < sizeof s->text)
        s->len += (size_t)n;
}

static int seen_game(void *ctx, const struct wrd_game_row *g, const char *status,
                     const char *result, int64_t deadline_ms)
{
    struct seen *s = ctx;
    int seed_ok = 1;
    for (int i = 0; i < 32; i++)
        seed_ok &= g->seed[i] == (uint8_t)(i * 7 + g->created_ms);
    say(s, "game %s %s [%s] %s %s seed=%s created=%lld listed=%d %s %s deadline=%lld", g->id,
        g->ruleset, g->scenario_name, g->scenario_json, g->options_json,
        seed_ok ? "ok" : "WRONG", (long long)g->created_ms, g->listed, status,
        result ? result : "-", (long long)deadline_ms);
    if (g->parent)
        say(s, " parent=%s key=%s", g->parent, g->link_key ? g->link_key : "-");
    say(s, "\n");
    s->games++;
    return 0;
}

static int seen_seat(void *ctx, const struct wrd_seat_row *r)
{
    say(ctx, "seat %s %s %.6s %.6s %s %s\n", r->game, r->seat,
        r->token_hash ? r->token_hash : "-", r->invite_hash ? r->invite_hash : "-",
        r->webhook ? r->webhook : "-", r->mail ? r->mail : "-");
    return 0;
}

static int seen_command(void *ctx, const struct wrd_command_row *c)
{
    say(ctx, "command %s %lld %s %lld %s %s %lld\n", c->game, (long long)c->version, c->seat,
        (long long)c->client_seq, c->cmd_json, c->events_json, (long long)c->at_ms);
    return 0;
}

static int seen_snapshot(void *ctx, const char *game, int64_t version, const char *state,
                         const char *full)
{
    say(ctx, "snapshot %s %lld %s %s\n", game, (long long)version, state, full ? full : "-");
    return 0;
}

static int seen_link(void *ctx, const char *child, const char *parent, const char *key,
                     const char *ruleset, const char *status, const char *result)
{
    say(ctx, "link %s -> %s %s %s %s %s\n", child, parent, key ? key : "-", ruleset, status,
        result ? result : "-");
    return 0;
}

static struct wrd_store_loader loader(struct seen *s)
{
    memset(s, 0, sizeof *s);
    return (struct wrd_store_loader){ .ctx = s, .game = seen_game, .seat = seen_seat,
                                      .command = seen_command, .snapshot = seen_snapshot };
}

static void expect_text(const struct seen *s, const char *want)
{
    if (strcmp(s->text, want) != 0)
        fail_msg("passed:\n%s\nwant:\n%s", s->text, want);
}

static void read_game(struct wrd_store *st, const char *id, const struct wrd_store_loader *l,
                      int want)
{
    char err[512] = "";
    int rc = st->ops->read_game(st, id, l, err, sizeof err);
    if (rc != want)
        fail_msg("read_game %s: %d, want %d (%s)", id, rc, want, err);
}

/* --- the cases ------------------------------------------------------------------------- */

#define SEATS_OF(id)                                                                       \
    "seat " id " p1 001122 - - -\n"                                                        \
    "seat " id " p2 - 001122 http://127.0.0.1:9/h -\n"

/* Written, committed, read back exactly: every snapshot, or from the
 * latest full one (tail_only), or every command when none is full. */
static void t_read_game(void **state)
{
    struct fix *f = *state;
    struct wrd_store *st = f->st;
    assert_int_equal(st->ops->schema_version(st), 6);
    assert_int_equal(st->ops->pending(st), 0);
    put_game(st, "g-a", "tictactoe", 5, 1, NULL, 0);
    put_status(st, "g-a", "running", NULL, 0, 0, "p1", 0);
    commit(st);
    for (int v = 1; v <= 5; v++)
        put_command(st, "g-a", v);
    assert_int_equal(st->ops->put_snapshot(st, "g-a", 2, "{\"v\":2}", NULL), 0);
    assert_int_equal(st->ops->put_snapshot(st, "g-a", 3, "{\"v\":3}", "{\"full\":3}"), 0);
    assert_int_equal(st->ops->put_snapshot(st, "g-a", 4, "{\"v\":4}", NULL), 0);
    put_status(st, "g-a", "running", NULL, 777, 5, "p2", 1005);
    /* g-b: snapshots without a full state */
    put_game(st, "g-b", "battle", 6, 0, NULL, 0);
    put_command(st, "g-b", 1);
    put_command(st, "g-b", 2);
    assert_int_equal(st->ops->put_snapshot(st, "g-b", 1, "{\"b\":1}", NULL), 0);
    put_status(st, "g-b", "finished", "p1", 0, 2, NULL, 1002);
    commit(st);

    struct seen s;
    struct wrd_store_loader l = loader(&s);
    read_game(st, "g-a", &l, 0);
    expect_text(&s, "game g-a tictactoe [small] {\"s\":1} {\"o\":2} seed=ok created=5 listed=1 "
                    "running - deadline=777\n" SEATS_OF("g-a")
                    "snapshot g-a 2 {\"v\":2} -\n"
                    "snapshot g-a 3 {\"v\":3} {\"full\":3}\n"
                    "snapshot g-a 4 {\"v\":4} -\n"
                    "command g-a 1 p1 10 {\"c\":1} [{\"e\":1}] 1001\n"
                    "command g-a 2 p2 20 {\"c\":2} [{\"e\":2}] 1002\n"
                    "command g-a 3 p1 30 {\"c\":3} [{\"e\":3}] 1003\n"
                    "command g-a 4 p2 40 {\"c\":4} [{\"e\":4}] 1004\n"
                    "command g-a 5 p1 50 {\"c\":5} [{\"e\":5}] 1005\n");
    l = loader(&s);
    l.tail_only = 1;
    read_game(st, "g-a", &l, 0);
    expect_text(&s, "game g-a tictactoe [small] {\"s\":1} {\"o\":2} seed=ok created=5 listed=1 "
                    "running - deadline=777\n" SEATS_OF("g-a")
                    "snapshot g-a 3 {\"v\":3} {\"full\":3}\n"
                    "command g-a 4 p2 40 {\"c\":4} [{\"e\":4}] 1004\n"
                    "command g-a 5 p1 50 {\"c\":5} [{\"e\":5}] 1005\n");
    l = loader(&s);
    l.tail_only = 1;
    read_game(st, "g-b", &l, 0);
    expect_text(&s, "game g-b battle [small] {\"s\":1} {\"o\":2} seed=ok created=6 listed=0 "
                    "finished p1 deadline=0\n" SEATS_OF("g-b")
                    "command g-b 1 p1 10 {\"c\":1} [{\"e\":1}] 1001\n"
                    "command g-b 2 p2 20 {\"c\":2} [{\"e\":2}] 1002\n");
    l = loader(&s);
    read_game(st, "g-none", &l, 1);
    assert_int_equal(s.games, 0);

    /* latest_snapshot: the newest, full or not; 0 without one */
    int64_t v = 0;
    char *json = NULL, err[512] = "";
    assert_int_equal(st->ops->latest_snapshot(st, "g-a", &v, &json, err, sizeof err), 1);
    assert_int_equal(v, 4);
    assert_string_equal(json, "{\"v\":4}");
    free(json);
    put_game(st, "g-c", "battle", 7, 1, NULL, 0);
    commit(st);
    assert_int_equal(st->ops->latest_snapshot(st, "g-c", &v, &json, err, sizeof err), 0);
    /* a game put and never given a status is open, with no result and no
     * deadline (store.h, put_game: games.c writes no status for a new game
     * that is so) */
    l = loader(&s);
    read_game(st, "g-c", &l, 0);
    expect_text(&s, "game g-c battle [small] {\"s\":1} {\"o\":2} seed=ok created=7 listed=1 "
                    "open - deadline=0\n" SEATS_OF("g-c"));
}

/* set_cache: SQLite's sizes the writer's page cache (what it changes is
 * memory, measured by test_memory_after_20000_games); PostgreSQL has none
 * in this process. Sized at its least, at a size below it and large, the
 * store writes and reads as before. */
static void t_set_cache(void **state)
{
    struct fix *f = *state;
    struct wrd_store *st = f->st;
    if (!f->b->pg)
        assert_non_null(st->ops->set_cache);
    else
        assert_null(st->ops->set_cache);
    if (st->ops->set_cache == NULL)
        return;
    static const int64_t sizes[] = { 1, 256 * 1024, (int64_t)64 << 20 };
    char err[256] = "";
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        char id[16];
        snprintf(id, sizeof id, "g-c%zu", i);
        assert_int_equal(st->ops->set_cache(st, sizes[i], err, sizeof err), 0);
        put_game(st, id, "tictactoe", 5, 1, NULL, 0);
        put_command(st, id, 1);
        commit(st);
        struct seen s;
        struct wrd_store_loader l = loader(&s);
        read_game(st, id, &l, 0);
        assert_int_equal(s.games, 1);
        char line[32];
        snprintf(line, sizeof line, "command %s 1 p1", id);
        assert_non_null(strstr(s.text, line));
    }
}

/* A start passes the open games and the running ones due; finished_too
 * every game; then the links, oldest first. */
static void t_load(void **state)
{
    struct fix *f = *state;
    struct wrd_store *st = f->st;
    put_game(st, "g-open", "battle", 10, 1, NULL, 0);
    put_game(st, "g-due", "battle", 11, 1, NULL, 0);
    put_status(st, "g-due", "running", NULL, 2000, 0, "p1", 0);
    put_game(st, "g-late", "battle", 12, 1, NULL, 0);
    put_status(st, "g-late", "running", NULL, 2001, 0, "p1", 0);
    put_game(st, "g-idle", "battle", 13, 1, NULL, 0);
    put_status(st, "g-idle", "running", NULL, 0, 0, "p1", 0);
    put_game(st, "g-fin", "battle", 14, 1, NULL, 0);
    put_command(st, "g-fin", 1);
    put_status(st, "g-fin", "finished", "p1", 1500, 1, NULL, 1001);
    put_game(st, "g-kid", "battle", 15, 1, "g-fin", 0);
    put_status(st, "g-kid", "finished", "draw", 0, 0, NULL, 0);
    commit(st);

    struct seen s;
    struct wrd_store_loader l = loader(&s);
    l.link = seen_link;
    l.due_before_ms = 2000;
    char err[512] = "";
    int rc = st->ops->load(st, &l, err, sizeof err);
    if (rc != 0)
        fail_msg("load: %d %s", rc, err);
    expect_text(&s, "game g-open battle [small] {\"s\":1} {\"o\":2} seed=ok created=10 listed=1 "
                    "open - deadline=0\n" SEATS_OF("g-open")
                    "game g-due battle [small] {\"s\":1} {\"o\":2} seed=ok created=11 listed=1 "
                    "running - deadline=2000\n" SEATS_OF("g-due")
                    "link g-kid -> g-fin k1 battle finished draw\n");

    l = loader(&s);
    l.link = seen_link;
    l.finished_too = 1;
    if ((rc = st->ops->load(st, &l, err, sizeof err)) != 0)
        fail_msg("load: %d %s", rc, err);
    assert_int_equal(s.games, 6);
    const char *order[] = { "game g-open ", "game g-due ", "game g-late ", "game g-idle ",
                            "game g-fin ", "game g-kid ", "link g-kid" };
    const char *at = s.text;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        const char *p = strstr(at, order[i]);
        if (p == NULL)
            fail_msg("load(finished_too) did not pass %s in order:\n%s", order[i], s.text);
        at = p;
    }
    assert_non_null(strstr(s.text, "game g-kid battle [small] {\"s\":1} {\"o\":2} seed=ok "
                                   "created=15 listed=1 finished draw deadline=0 parent=g-fin "
                                   "key=k1\n"));
    assert_non_null(strstr(s.text, "command g-fin 1 p1 10"));
}

struct listed {
    char id[64][24];
    int64_t created[64];
    int n, taken, seats;
    char awaiting[64][24];
    int64_t moved[64];
    int stop_at;                    /* stop after this many rows (0: never) */
};

static int list_row(void *ctx, const struct wrd_finished_row *r)
{
    struct listed *p = ctx;
    if (p->n == 64)
        return 1;
    snprintf(p->id[p->n], sizeof p->id[0], "%s", r->id);
    snprintf(p->awaiting[p->n], sizeof p->awaiting[0], "%s", r->awaiting ? r->awaiting : "-");
    p->created[p->n] = r->created_ms;
    p->moved[p->n] = r->moved_ms;
    for (int i = 0; i < r->nseats; i++)
        p->taken += r->seats[i].taken;
    p->seats += r->nseats;
    p->n++;
    return p->stop_at && p->n >= p->stop_at;
}

/* Every listed game of a status, paged by `limit` with the cursor: the ids
 * newest first into all (each once). */
static int page_all(struct wrd_store *st, const char *status, const char *ruleset, int limit,
                    char all[][24], int max)
{
    int n = 0;
    struct wrd_finished_query q = { NULL, 0, limit, ruleset, status };
    for (;;) {
        struct listed p = { .n = 0 };
        char err[512] = "";
        int rc = st->ops->list_finished(st, &q, list_row, &p, err, sizeof err);
        if (rc < 0)
            fail_msg("list_finished: %d %s", rc, err);
        assert_int_equal(rc, p.n);
        assert_true(p.n <= limit);
        assert_int_equal(p.seats, 2 * p.n);
        assert_int_equal(p.taken, p.n);         /* p1 of each */
        for (int i = 0; i < p.n && n < max; i++)
            snprintf(all[n++], 24, "%s", p.id[i]);
        if (p.n < limit)
            return n;
        q.before_id = all[n - 1];
        q.before_created_ms = p.created[p.n - 1];
    }
}

static void t_list(void **state)
{
    struct fix *f = *state;
    struct wrd_store *st = f->st;
    char id[24];
    /* 25 finished listed games (created 100..124, tictactoe and battle in
     * turn), 2 unlisted, 3 running listed, 1 open */
    for (int i = 0; i < 25; i++) {
        snprintf(id, sizeof id, "f-%02d", i);
        put_game(st, id, i % 2 ? "battle" : "tictactoe", 100 + i / 2 * 2, 1, NULL, 0);
        put_command(st, id, 1);
        put_status(st, id, "finished", "p1", 0, 1, NULL, 1001);
    }
    for (int i = 0; i < 2; i++) {
        snprintf(id, sizeof id, "u-%02d", i);
        put_game(st, id, "battle", 200 + i, 0, NULL, 0);
        put_status(st, id, "finished", "p2", 0, 0, NULL, 0);
    }
    for (int i = 0; i < 3; i++) {
        snprintf(id, sizeof id, "r-%02d", i);
        put_game(st, id, "battle", 300 + i, 1, NULL, 0);
        put_status(st, id, "running", NULL, 0, 0, i % 2 ? "p2" : "p1", 5000 + i);
    }
    put_game(st, "o-00", "battle", 400, 1, NULL, 0);
    commit(st);

    char all[64][24];
    /* finished, pages of 10 (created_ms ties broken by id, descending) */
    int n = page_all(st, NULL, NULL, 10, all, 64);
    assert_int_equal(n, 25);
    for (int i = 0; i < 25; i++) {
        /* newest first: created 124 (f-24), then 122 (f-23, f-22), ... */
        int want = 24 - i;
        snprintf(id, sizeof id, "f-%02d", want);
        assert_string_equal(all[i], id);
    }
    assert_int_equal(page_all(st, "finished", NULL, 7, all, 64), 25);
    /* one ruleset: the 12 odd ones are battle */
    n = page_all(st, NULL, "battle", 5, all, 64);
    assert_int_equal(n, 12);
    for (int i = 0; i < n; i++)
        assert_int_equal((all[i][3] - '0') % 2, 1);
    /* running games: newest first, their status rows' summary */
    struct listed p = { .n = 0 };
    struct wrd_finished_query q = { NULL, 0, 10, NULL, "running" };
    char err[512] = "";
    assert_int_equal(st->ops->list_finished(st, &q, list_row, &p, err, sizeof err), 3);
    assert_string_equal(p.id[0], "r-02");
    assert_string_equal(p.id[2], "r-00");
    assert_string_equal(p.awaiting[0], "p1");
    assert_string_equal(p.awaiting[1], "p2");
    assert_int_equal(p.moved[0], 5002);
    /* a callback that stops early */
    struct listed stop = { .stop_at = 2 };
    q.status = NULL;
    assert_int_equal(st->ops->list_finished(st, &q, list_row, &stop, err, sizeof err), 2);
    /* a limit out of range */
    q.limit = 0;
    assert_true(st->ops->list_finished(st, &q, list_row, &stop, err, sizeof err) < 0);
}

static int collect_id(void *ctx, const char *id)
{
    struct seen *s = ctx;
    say(s, "%s ", id);
    return 0;
}

static void t_select_ids(void **state)
{
    struct fix *f = *state;
    struct wrd_store *st = f->st;
    put_game(st, "d-late", "battle", 3, 1, NULL, 0);
    put_status(st, "d-late", "running", NULL, 5000, 0, "p1", 0);
    put_game(st, "d-1", "battle", 1, 1, NULL, 1);
    put_status(st, "d-1", "running", NULL, 1000, 0, "p1", 0);
    put_game(st, "d-2", "battle", 2, 1, NULL, 0);
    put_status(st, "d-2", "running", NULL, 4000, 0, "p1", 0);
    put_game(st, "d-none", "battle", 4, 1, NULL, 1);
    put_status(st, "d-none", "running", NULL, 0, 0, "p1", 0);
    put_game(st, "d-fin", "battle", 5, 1, NULL, 1);
    put_status(st, "d-fin", "finished", "p1", 900, 0, NULL, 0);
    put_game(st, "d-open", "battle", 6, 1, NULL, 1);
    commit(st);
    struct seen s;
    memset(&s, 0, sizeof s);
    char err[512] = "";
    struct wrd_ids_query due = { WRD_IDS_DUE, 4000 };
    assert_int_equal(st->ops->select_ids(st, &due, collect_id, &s, err, sizeof err), 2);
    assert_string_equal(s.text, "d-1 d-2 ");
    memset(&s, 0, sizeof s);
    struct wrd_ids_query mail = { WRD_IDS_MAIL, 0 };
    assert_int_equal(st->ops->select_ids(st, &mail, collect_id, &s, err, sizeof err), 2);
    assert_string_equal(s.text, "d-1 d-none ");
    /* a seat's mail registration changed later counts too */
    struct wrd_seat_row p2 = { "d-2", "p2", NULL, TOKEN, NULL, "{\"to\":\"x@y.z\"}" };
    assert_int_equal(st->ops->update_seat(st, &p2), 0);
    commit(st);
    memset(&s, 0, sizeof s);
    assert_int_equal(st->ops->select_ids(st, &mail, collect_id, &s, err, sizeof err), 3);
    assert_string_equal(s.text, "d-1 d-2 d-none ");
}

/* A commit that fails loses its whole batch; the store goes on. */
static void t_lost_batch(void **state)
{
    struct fix *f = *state;
    struct wrd_store *st = f->st;
    put_game(st, "g-l", "battle", 1, 1, NULL, 0);
    put_command(st, "g-l", 1);
    put_status(st, "g-l", "running", NULL, 0, 1, "p2", 1001);
    commit(st);
    /* a command at an existing version, between two good writes */
    put_command(st, "g-l", 2);
    put_game(st, "g-x", "battle", 2, 1, NULL, 0);
    struct wrd_command_row again = { "g-l", 1, "p1", 0, "{\"c\":9}", "[]", 9 };
    /* refused at the put (SQLite) or at the commit (PostgreSQL): the commit fails */
    (void)st->ops->put_command(st, &again);
    char err[512] = "";
    assert_int_equal(st->ops->commit(st, err, sizeof err), -1);
    assert_true(err[0] != '\0');
    assert_int_equal(st->ops->pending(st), 0);
    struct seen s;
    struct wrd_store_loader l = loader(&s);
    read_game(st, "g-x", &l, 1);
    l = loader(&s);
    read_game(st, "g-l", &l, 0);
    assert_null(strstr(s.text, "command g-l 2"));
    assert_non_null(strstr(s.text, "command g-l 1 p1 10"));
    /* a status row of no game: refused at the put or at the commit */
    struct wrd_status_row none = { "g-none", "running", NULL, 0, 0, NULL, 0, 0 };
    put_command(st, "g-l", 2);
    (void)st->ops->put_status(st, &none);
    assert_int_equal(st->ops->commit(st, err, sizeof err), -1);
    l = loader(&s);
    read_game(st, "g-l", &l, 0);
    assert_null(strstr(s.text, "command g-l 2"));
    /* and the next batch commits */
    put_command(st, "g-l", 2);
    put_status(st, "g-l", "running", NULL, 0, 2, "p1", 1002);
    commit(st);
    l = loader(&s);
    read_game(st, "g-l", &l, 0);
    assert_non_null(strstr(s.text, "command g-l 2 p2 20"));
}

/* --- reads on a second thread while this one writes ------------------------------------ */

#define THREAD_VERSIONS 150

struct reader {
    struct wrd_store *st;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stop, reads;            /* under mu */
    int last, bad;
    char why[512];
    int64_t n, row_version;
};

static int r_game(void *ctx, const struct wrd_game_row *g, const char *status,
                  const char *result, int64_t deadline_ms)
{
    struct reader *r = ctx;
    r->n = 0;
    r->row_version = deadline_ms;       /* written equal to the version: see t_threads */
    return 0;
}

static int r_seat(void *ctx, const struct wrd_seat_row *s)
{
    return 0;
}

static int r_command(void *ctx, const struct wrd_command_row *c)
{
    struct reader *r = ctx;
    if (c->version != ++r->n && !r->bad) {
        r->bad = 1;
        snprintf(r->why, sizeof r->why, "command %lld after %lld", (long long)c->version,
                 (long long)(r->n - 1));
    }
    return 0;
}

static void *read_loop(void *arg)
{
    struct reader *r = arg;
    struct wrd_store_loader l = { .ctx = r, .game = r_game, .seat = r_seat,
                                  .command = r_command };
    for (;;) {
        pthread_mutex_lock(&r->mu);
        int stop = r->stop;
        pthread_mutex_unlock(&r->mu);
        if (stop || r->bad)
            break;
        char err[512] = "";
        int rc = r->st->ops->read_game(r->st, "g-t", &l, err, sizeof err);
        if (rc != 0) {
            r->bad = 1;
            snprintf(r->why, sizeof r->why, "read_game: %d %.400s", rc, err);
        } else if (r->n != r->row_version || r->n < r->last) {
            /* a whole commit: as many commands as its row's version, never fewer */
            r->bad = 1;
            snprintf(r->why, sizeof r->why, "read %lld commands, the row says %lld, last %d",
                     (long long)r->n, (long long)r->row_version, r->last);
        }
        r->last = (int)r->n;
        pthread_mutex_lock(&r->mu);
        r->reads++;
        pthread_cond_signal(&r->cv);
        pthread_mutex_unlock(&r->mu);
    }
    pthread_mutex_lock(&r->mu);
    r->stop = 1;
    pthread_cond_signal(&r->cv);
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

/* Wait until the reader has done `reads` reads (or stopped). */
static int wait_reads(struct reader *r, int reads)
{
    pthread_mutex_lock(&r->mu);
    while (r->reads < reads && !r->stop)
        pthread_cond_wait(&r->cv, &r->mu);
    int n = r->reads;
    pthread_mutex_unlock(&r->mu);
    return n;
}

static void t_threads(void **state)
{
    struct fix *f = *state;
    struct wrd_store *st = f->st;
    put_game(st, "g-t", "battle", 1, 1, NULL, 0);
    put_status(st, "g-t", "running", NULL, 0, 0, "p1", 0);
    commit(st);
    struct reader r = { .st = st };
    pthread_mutex_init(&r.mu, NULL);
    pthread_cond_init(&r.cv, NULL);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, read_loop, &r), 0);
    wait_reads(&r, 1);
    for (int v = 1; v <= THREAD_VERSIONS; v++) {
        put_command(st, "g-t", v);
        /* the deadline carries the version, so a read can compare both */
        put_status(st, "g-t", "running", NULL, v, v, "p1", 1000 + v);
        /* a batch left open a while: no read may see it */
        if (v % 10 == 0)
            wait_reads(&r, wait_reads(&r, 0) + 1);
        commit(st);
    }
    /* two more reads after the last commit: the second sees all of it */
    int n = wait_reads(&r, 0);
    wait_reads(&r, n + 2);
    pthread_mutex_lock(&r.mu);
    r.stop = 1;
    pthread_mutex_unlock(&r.mu);
    pthread_join(t, NULL);
    if (r.bad)
        fail_msg("the reader saw: %s", r.why);
    assert_true(r.reads >= n + 2);
    assert_int_equal(r.last, THREAD_VERSIONS);
    pthread_cond_destroy(&r.cv);
    pthread_mutex_destroy(&r.mu);
}

/* One process (one open) per store. */
static void t_locked(void **state)
{
    struct fix *f = *state;
    struct wrd_store *second = NULL;
    char err[512] = "";
    assert_int_equal(wrd_store_open(&second, f->location, 0, err, sizeof err),
                     WRD_STORE_LOCKED);
    assert_null(second);
    assert_true(err[0] != '\0');
    put_game(f->st, "g-k", "battle", 1, 1, NULL, 0);
    f->st->ops->close(f->st);
    f->st = NULL;
    /* closed: the next open has it, with what was pending committed */
    assert_int_equal(wrd_store_open(&f->st, f->location, 0, err, sizeof err), 0);
    struct seen s;
    struct wrd_store_loader l = loader(&s);
    read_game(f->st, "g-k", &l, 0);
}

/* PostgreSQL: a database that cannot be written (a standby, or
 * default_transaction_read_only) is WRD_STORE_READONLY at open. */
static void t_readonly_pg(void **state)
{
    struct fix *f = *state;
    f->st->ops->close(f->st);
    f->st = NULL;
    const char *name = strrchr(f->location, '/') + 1;
    char sql[160], base[400];
    snprintf(base, sizeof base, "%.*s/postgres", (int)(name - 1 - f->location), f->location);
    snprintf(sql, sizeof sql, "ALTER DATABASE %s SET default_transaction_read_only = on", name);
    PGconn *c = PQconnectdb(base);
    assert_int_equal(PQstatus(c), CONNECTION_OK);
    PGresult *r = PQexec(c, sql);
    assert_int_equal(PQresultStatus(r), PGRES_COMMAND_OK);
    PQclear(r);
    PQfinish(c);
    char err[512] = "";
    assert_int_equal(wrd_store_open(&f->st, f->location, 0, err, sizeof err),
                     WRD_STORE_READONLY);
    assert_null(f->st);
    assert_non_null(strstr(err, "read-only"));
}

/* PostgreSQL: sql run behind the store's back, in a session of its own on
 * the store's database; its result, of status want (the caller clears it). */
static PGresult *behind(const char *location, const char *sql, ExecStatusType want)
{
    PGconn *c = PQconnectdb(location);
    assert_int_equal(PQstatus(c), CONNECTION_OK);
    PGresult *r = PQexec(c, sql);
    if (PQresultStatus(r) != want)
        fail_msg("%s: %s", sql, PQerrorMessage(c));
    PQfinish(c);
    return r;
}

/* PostgreSQL: a gap in a game's commands, made behind the store's back, is
 * WRD_STORE_DAMAGED naming the table, and nothing of the game is passed. */
static void t_damaged_pg(void **state)
{
    struct fix *f = *state;
    struct wrd_store *st = f->st;
    put_game(st, "g-d", "battle", 1, 1, NULL, 0);
    for (int v = 1; v <= 3; v++)
        put_command(st, "g-d", v);
    put_status(st, "g-d", "running", NULL, 0, 3, "p1", 1003);
    commit(st);
    PGresult *r = behind(f->location, "DELETE FROM commands WHERE game = 'g-d' AND version = 2",
                         PGRES_COMMAND_OK);
    assert_string_equal(PQcmdTuples(r), "1");
    PQclear(r);
    struct seen s;
    struct wrd_store_loader l = loader(&s);
    char err[512] = "";
    assert_int_equal(st->ops->read_game(st, "g-d", &l, err, sizeof err), WRD_STORE_DAMAGED);
    assert_int_equal(s.games, 0);
    assert_non_null(strstr(err, "table commands: game g-d has no command 2"));
    l = loader(&s);
    l.finished_too = 1;
    assert_int_equal(st->ops->load(st, &l, err, sizeof err), WRD_STORE_DAMAGED);
    assert_int_equal(s.games, 0);
}

/* PostgreSQL: a read session dropped by the server is opened again by the
 * next read; the writing session (the one holding the lock) goes on. */
static void t_reconnect_pg(void **state)
{
    struct fix *f = *state;
    struct wrd_store *st = f->st;
    put_game(st, "g-r", "battle", 1, 1, NULL, 0);
    commit(st);
    struct seen s;
    struct wrd_store_loader l = loader(&s);
    read_game(st, "g-r", &l, 0);
    PGresult *r = behind(f->location, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                         " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                         " AND pid NOT IN (SELECT pid FROM pg_locks WHERE locktype ="
                         " 'advisory')", PGRES_TUPLES_OK);
    assert_int_equal(PQntuples(r), 1);
    PQclear(r);
    /* the first read may find the session gone; the next one reads again */
    char err[512] = "";
    l = loader(&s);
    if (st->ops->read_game(st, "g-r", &l, err, sizeof err) != 0) {
        l = loader(&s);
        read_game(st, "g-r", &l, 0);
    }
    assert_int_equal(s.games, 1);
    put_command(st, "g-r", 1);
    commit(st);
}

/* --- several servers (WRD_STORE_SHARED) ------------------------------------------------ */

/* SQLite has no cluster ops: the flag gives none, and the store is still
 * locked whole (a second open of any kind is refused). */
static void t_shared_sqlite(void **state)
{
    struct fix *f = *state;
    f->st->ops->close(f->st);
    f->st = NULL;
    char err[512] = "";
    assert_int_equal(wrd_store_open(&f->st, f->location, WRD_STORE_SHARED, err, sizeof err), 0);
    assert_null(f->st->cluster);
    struct wrd_store *second = NULL;
    assert_int_equal(wrd_store_open(&second, f->location, WRD_STORE_SHARED, err, sizeof err),
                     WRD_STORE_LOCKED);
    assert_null(second);
}

static struct wrd_store *open_shared(const char *location)
{
    struct wrd_store *st = NULL;
    char err[512] = "";
    int rc = wrd_store_open(&st, location, WRD_STORE_SHARED, err, sizeof err);
    if (rc != 0)
        fail_msg("open shared: %d %s", rc, err);
    assert_non_null(st->cluster);
    return st;
}

/* A shared open is refused while an exclusive store is open, and the
 * reverse; shared opens go together. */
static void t_shared_lock_pg(void **state)
{
    struct fix *f = *state;
    assert_null(f->st->cluster);            /* opened without the flag */
    struct wrd_store *a = NULL, *b = NULL, *c = NULL;
    char err[512] = "";
    assert_int_equal(wrd_store_open(&a, f->location, WRD_STORE_SHARED, err, sizeof err),
                     WRD_STORE_LOCKED);
    assert_null(a);
    assert_true(err[0] != '\0');
    f->st->ops->close(f->st);
    f->st = NULL;
    a = open_shared(f->location);
    b = open_shared(f->location);
    err[0] = '\0';
    assert_int_equal(wrd_store_open(&c, f->location, 0, err, sizeof err), WRD_STORE_LOCKED);
    assert_null(c);
    assert_true(err[0] != '\0');
    a->ops->close(a);
    assert_int_equal(wrd_store_open(&c, f->location, 0, err, sizeof err), WRD_STORE_LOCKED);
    b->ops->close(b);
    /* the last shared one gone: an exclusive open has the store */
    assert_int_equal(wrd_store_open(&f->st, f->location, 0, err, sizeof err), 0);
}

/* PostgreSQL: a session of its own on the store's database holding the
 * form lock of a process of the cluster whose notes have the given form
 * (store_open.h, WRD_PG_FORM_CLASS); PQfinish() lets it go. */
static PGconn *hold_form(const char *location, int form)
{
    PGconn *c = PQconnectdb(location);
    assert_int_equal(PQstatus(c), CONNECTION_OK);
    char sql[96];
    snprintf(sql, sizeof sql, "SELECT pg_advisory_lock_shared(%d, %d)", WRD_PG_FORM_CLASS, form);
    PGresult *r = PQexec(c, sql);
    if (PQresultStatus(r) != PGRES_TUPLES_OK)
        fail_msg("%s: %s", sql, PQerrorMessage(c));
    PQclear(r);
    return c;
}

/* The sessions on the store's database holding this build's form lock
 * (pg_locks shows every database's: other tests' run beside this one). */
static int form_holders(const char *location)
{
    char sql[300];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND "
             "granted AND objsubid = 2 AND classid = %d AND objid = %d AND database = (SELECT "
             "oid FROM pg_database WHERE datname = current_database())", WRD_PG_FORM_CLASS,
             WRD_NOTE_FORM);
    PGresult *r = behind(location, sql, PGRES_TUPLES_OK);
    int n = atoi(PQgetvalue(r, 0, 0));
    PQclear(r);
    return n;
}

/* A shared open holds its notes' form, and is refused while a process
 * whose notes have another form holds the store: the error names both
 * forms, and the refused open has migrated nothing. A process of the same
 * form is no obstacle, and once the other form's process is gone the open
 * succeeds. */
static void t_note_form_pg(void **state)
{
    struct fix *f = *state;
    f->st->ops->close(f->st);
    f->st = NULL;
    struct wrd_store *a = open_shared(f->location);
    assert_int_equal(form_holders(f->location), 1);
    a->ops->close(a);
    assert_int_equal(form_holders(f->location), 0);

    /* an empty database: a refused open makes no schema in it */
    PQclear(behind(f->location, "DROP SCHEMA public CASCADE; CREATE SCHEMA public",
                   PGRES_COMMAND_OK));
    PGconn *same = hold_form(f->location, WRD_NOTE_FORM);
    PGconn *other = hold_form(f->location, WRD_NOTE_FORM + 1);
    char err[512] = "", want[64];
    assert_int_equal(wrd_store_open(&a, f->location, WRD_STORE_SHARED, err, sizeof err),
                     WRD_STORE_LOCKED);
    assert_null(a);
    PGresult *r = behind(f->location, "SELECT count(*) FROM pg_tables WHERE schemaname = "
                         "'public'", PGRES_TUPLES_OK);
    assert_string_equal(PQgetvalue(r, 0, 0), "0");
    PQclear(r);
    snprintf(want, sizeof want, "notes of form %d and this build writes form %d",
             WRD_NOTE_FORM + 1, WRD_NOTE_FORM);
    if (strstr(err, want) == NULL)
        fail_msg("err \"%s\" lacks \"%s\"", err, want);
    PQfinish(other);
    a = open_shared(f->location);
    assert_int_equal(form_holders(f->location), 2);    /* it and the same form's */
    PQfinish(same);
    a->ops->close(a);
}

/* A game is one store's at a time: held again without a second lock, let
 * go once, freed when its holder's session ends, and outside every batch. */
static void t_own_pg(void **state)
{
    struct fix *f = *state;
    struct wrd_store *a = f->st, *b = open_shared(f->location);
    const struct wrd_store_cluster_ops *ca = a->cluster, *cb = b->cluster;
    assert_int_equal(ca->own(a, "g1"), 1);
    assert_int_equal(cb->own(b, "g1"), 0);
    assert_int_equal(ca->own(a, "g1"), 1);
    assert_int_equal(cb->own(b, "g2"), 1);
    assert_int_equal(ca->own(a, "g2"), 0);
    /* disown is a batched write: the lock goes at the commit, once (two
     * own() of a held game took one lock) */
    assert_int_equal(ca->disown(a, "g1"), 0);
    assert_int_equal(a->ops->pending(a), 1);
    assert_int_equal(cb->own(b, "g1"), 0);
    commit(a);
    assert_int_equal(cb->own(b, "g1"), 1);
    assert_int_equal(ca->own(a, "g1"), 0);
    assert_int_equal(ca->disown(a, "g1"), 0);          /* not held: nothing to do */
    assert_int_equal(a->ops->pending(a), 0);
    assert_int_equal(cb->own(b, "g1"), 1);
    /* B closed: every game it held is free */
    b->ops->close(b);
    assert_int_equal(ca->own(a, "g1"), 1);
    assert_int_equal(ca->own(a, "g2"), 1);
    assert_int_equal(ca->disown(a, "g1"), 0);
    assert_int_equal(ca->disown(a, "g2"), 0);
    commit(a);
    /* B's session ended by the server (its process's death): the same;
     * pg_terminate_backend waits (at most 10 s) until that session is gone */
    b = open_shared(f->location);
    cb = b->cluster;
    assert_int_equal(cb->own(b, "g1"), 1);
    assert_int_equal(ca->own(a, "g1"), 0);
    PGresult *r = behind(f->location, "SELECT pg_terminate_backend(pid, 10000)::int FROM"
                         " pg_locks WHERE locktype = 'advisory' AND mode = 'ExclusiveLock'"
                         " AND database = (SELECT oid FROM pg_database WHERE datname ="
                         " current_database())", PGRES_TUPLES_OK);
    assert_int_equal(PQntuples(r), 1);              /* B's writing session, holding g1 */
    assert_string_equal(PQgetvalue(r, 0, 0), "1");
    PQclear(r);
    assert_int_equal(ca->own(a, "g1"), 1);
    assert_true(cb->own(b, "g2") < 0);              /* B's store knows its session is gone */
    b->ops->close(b);
    /* taken while a batch is open, kept when that batch fails to commit */
    b = open_shared(f->location);
    cb = b->cluster;
    put_game(a, "g3", "battle", 1, 1, NULL, 0);
    struct wrd_status_row none = { "g-none", "running", NULL, 0, 0, NULL, 0, 0 };
    (void)a->ops->put_status(a, &none);
    assert_int_equal(ca->own(a, "g3"), 1);
    assert_int_equal(a->ops->pending(a), 1);
    char err[512] = "";
    assert_int_equal(a->ops->commit(a, err, sizeof err), -1);
    assert_int_equal(cb->own(b, "g3"), 0);
    /* many games: the set of held ones grows and lets each go exactly once */
    char id[24];
    for (int i = 0; i < 200; i++) {
        snprintf(id, sizeof id, "m-%d", i);
        assert_int_equal(ca->own(a, id), 1);
    }
    for (int i = 0; i < 200; i += 2) {
        snprintf(id, sizeof id, "m-%d", i);
        assert_int_equal(ca->disown(a, id), 0);
    }
    commit(a);
    for (int i = 0; i < 200; i++) {
        snprintf(id, sizeof id, "m-%d", i);
        assert_int_equal(ca->own(a, id), 1);             /* held, or taken again */
        assert_int_equal(cb->own(b, id), 0);
    }
    assert_true(ca->own(a, "") < 0);
    assert_true(ca->own(a, "an-id-longer-than-23-bytes") < 0);
    b->ops->close(b);
}

/* What drain_notes passes, one line per note; count in games. */
static void note_seen(void *ctx, int channel, const char *payload)
{
    struct seen *s = ctx;
    say(s, "%d %s\n", channel, payload);
    s->games++;
}

static int64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Drain st's notes into s until it has seen `want`, waiting on note_fd at
 * most 10 s in all. */
static void wait_notes(struct wrd_store *st, struct seen *s, int want)
{
    int64_t until = now_ms() + 10000;
    for (;;) {
        int rc = st->cluster->drain_notes(st, note_seen, s);
        if (rc < 0)
            fail_msg("drain_notes: %d", rc);
        if (s->games >= want)
            return;
        struct pollfd p = { st->cluster->note_fd(st), POLLIN, 0 };
        assert_true(p.fd >= 0);
        int64_t left = until - now_ms();
        if (left <= 0 || poll(&p, 1, (int)left) == 0)
            fail_msg("%d notes of %d within 10 s:\n%s", s->games, want, s->text);
    }
}

/* Notes reach every listening store (the one that put them too), in order,
 * at the commit; a batch that fails sends none; a payload too long is
 * refused; a lost listening session is < 0. */
static void t_notes_pg(void **state)
{
    struct fix *f = *state;
    struct wrd_store *a = f->st, *b = open_shared(f->location);
    const struct wrd_store_cluster_ops *ca = a->cluster;
    struct seen sa, sb;
    memset(&sa, 0, sizeof sa);
    memset(&sb, 0, sizeof sb);
    assert_int_equal(ca->put_note(a, WRD_NOTE_GAME, "g1 1"), 0);
    assert_int_equal(ca->put_note(a, WRD_NOTE_REPLY, "{\"id\":7,\"ok\":true}"), 0);
    assert_int_equal(a->ops->pending(a), 1);
    /* nothing before the commit */
    assert_int_equal(b->cluster->drain_notes(b, note_seen, &sb), 0);
    commit(a);
    const char *want = "1 g1 1\n3 {\"id\":7,\"ok\":true}\n";
    wait_notes(a, &sa, 2);
    wait_notes(b, &sb, 2);
    expect_text(&sa, want);
    expect_text(&sb, want);

    /* a batch that fails: its note never arrives, the next batch's alone */
    put_game(a, "g-n", "battle", 1, 1, NULL, 0);
    commit(a);
    assert_int_equal(ca->put_note(a, WRD_NOTE_GAME, "g-n 1"), 0);
    struct wrd_status_row none = { "g-none", "running", NULL, 0, 0, NULL, 0, 0 };
    (void)a->ops->put_status(a, &none);
    char err[512] = "";
    assert_int_equal(a->ops->commit(a, err, sizeof err), -1);
    assert_int_equal(ca->put_note(a, WRD_NOTE_FORWARD, "{\"after\":1}"), 0);
    commit(a);
    memset(&sb, 0, sizeof sb);
    wait_notes(b, &sb, 1);
    assert_int_equal(b->cluster->drain_notes(b, note_seen, &sb), 0);
    expect_text(&sb, "2 {\"after\":1}\n");

    /* the longest payload arrives whole; one byte more, or a channel that
     * is not one, is refused and adds nothing */
    static char big[WRD_NOTE_MAX + 2];
    memset(big, 'x', WRD_NOTE_MAX + 1);
    assert_true(ca->put_note(a, WRD_NOTE_FORWARD, big) < 0);
    assert_true(ca->put_note(a, 0, "x") < 0);
    assert_true(ca->put_note(a, WRD_NOTE_REPLY + 1, "x") < 0);
    assert_int_equal(a->ops->pending(a), 0);
    big[WRD_NOTE_MAX] = '\0';
    assert_int_equal(ca->put_note(a, WRD_NOTE_FORWARD, big), 0);
    commit(a);
    memset(&sb, 0, sizeof sb);
    wait_notes(b, &sb, 1);
    assert_int_equal(sb.len, 2 + WRD_NOTE_MAX + 1);
    assert_int_equal(strspn(sb.text + 2, "x"), WRD_NOTE_MAX);

    /* the listening sessions ended by the server: drain_notes says so */
    PGresult *r = behind(f->location, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                         " WHERE datname = current_database() AND query LIKE 'LISTEN%'",
                         PGRES_TUPLES_OK);
    assert_int_equal(PQntuples(r), 2);
    PQclear(r);
    int64_t until = now_ms() + 10000;
    int rc;
    while ((rc = b->cluster->drain_notes(b, note_seen, &sb)) >= 0) {
        struct pollfd p = { b->cluster->note_fd(b), POLLIN, 0 };
        int64_t left = until - now_ms();
        if (left <= 0 || poll(&p, 1, (int)left) == 0)
            fail_msg("drain_notes did not see its session end within 10 s");
    }
    assert_true(rc < 0);
    b->ops->close(b);
}

static void read_tail(struct wrd_store *st, const char *id, int64_t after,
                      const struct wrd_store_loader *l, int want)
{
    char err[512] = "";
    int rc = st->cluster->read_tail(st, id, after, l, err, sizeof err);
    if (rc != want)
        fail_msg("read_tail %s %lld: %d, want %d (%s)", id, (long long)after, rc, want, err);
}

/* The locks of a batch: a new game's (own_new) is taken by the commit that
 * stores it, before its writes, and stays the session's; one refused (the
 * key held by another store) fails that commit, nothing of it stored. A
 * game let go (disown) is free once its batch commits, even when a write
 * of that batch fails, and before the batch's notes arrive. */
static void t_own_new_pg(void **state)
{
    struct fix *f = *state;
    struct wrd_store *a = f->st, *b = open_shared(f->location);
    const struct wrd_store_cluster_ops *ca = a->cluster, *cb = b->cluster;
    char err[512] = "";
    struct seen s;
    struct wrd_store_loader l;
    /* 1) held here at once, locked only by the commit */
    assert_int_equal(ca->own_new(a, "n1"), 0);
    put_game(a, "n1", "battle", 1, 1, NULL, 0);
    assert_int_equal(ca->own(a, "n1"), 1);
    assert_int_equal(cb->own(b, "n2"), 1);
    commit(a);
    assert_int_equal(cb->own(b, "n1"), 0);
    l = loader(&s);
    read_game(a, "n1", &l, 0);
    /* 2) refused: another store holds the key; the commit fails, nothing
     * of the batch is stored, and the game is not held here */
    assert_int_equal(ca->own_new(a, "n2"), 0);
    put_game(a, "n2", "battle", 1, 1, NULL, 0);
    assert_int_equal(a->ops->commit(a, err, sizeof err), -1);
    if (strstr(err, "lock of new game n2 is held by another process") == NULL)
        fail_msg("the error does not name the refused lock: %s", err);
    l = loader(&s);
    read_game(a, "n2", &l, 1);
    assert_int_equal(ca->own(a, "n2"), 0);
    /* 3) taken by a batch that fails after it: kept (the session's) */
    assert_int_equal(ca->own_new(a, "n3"), 0);
    struct wrd_status_row none = { "g-none", "running", NULL, 0, 0, NULL, 0, 0 };
    (void)a->ops->put_status(a, &none);
    assert_int_equal(a->ops->commit(a, err, sizeof err), -1);
    assert_int_equal(cb->own(b, "n3"), 0);
    assert_int_equal(ca->own(a, "n3"), 1);
    /* 4) let go in a batch whose write fails: free all the same */
    assert_int_equal(ca->disown(a, "n3"), 0);
    (void)a->ops->put_status(a, &none);
    assert_int_equal(a->ops->commit(a, err, sizeof err), -1);
    assert_int_equal(cb->own(b, "n3"), 1);
    /* 5) let go with its note: free by the time the note arrives */
    assert_int_equal(ca->disown(a, "n1"), 0);
    assert_int_equal(ca->put_note(a, WRD_NOTE_GAME, "n1 0 -"), 0);
    commit(a);
    memset(&s, 0, sizeof s);
    wait_notes(b, &s, 1);
    expect_text(&s, "1 n1 0 -\n");
    assert_int_equal(cb->own(b, "n1"), 1);
    /* 6) a bad id is refused and adds nothing */
    assert_true(ca->own_new(a, "") < 0);
    assert_true(ca->own_new(a, "an-id-longer-than-23-bytes") < 0);
    assert_int_equal(a->ops->pending(a), 0);
    b->ops->close(b);
}

/* A game's row, its seats (a claimed one's token_hash), then its commands
 * after a version; no snapshot; the same checks as read_game. */
static void t_read_tail_pg(void **state)
{
    struct fix *f = *state;
    struct wrd_store *st = f->st;
    put_game(st, "g-t", "battle", 5, 1, NULL, 0);
    for (int v = 1; v <= 3; v++)
        put_command(st, "g-t", v);
    assert_int_equal(st->ops->put_snapshot(st, "g-t", 2, "{\"v\":2}", "{\"full\":2}"), 0);
    put_status(st, "g-t", "running", NULL, 900, 3, "p2", 1003);
    commit(st);
#define TAIL_GAME                                                                           \
    "game g-t battle [small] {\"s\":1} {\"o\":2} seed=ok created=5 listed=1 running - "     \
    "deadline=900\n" SEATS_OF("g-t")
#define TAIL_COMMAND(v, seat)                                                               \
    "command g-t " #v " " seat " " #v "0 {\"c\":" #v "} [{\"e\":" #v "}] 100" #v "\n"
    struct seen s;
    struct wrd_store_loader l = loader(&s);
    read_tail(st, "g-t", 0, &l, 0);
    expect_text(&s, TAIL_GAME TAIL_COMMAND(1, "p1") TAIL_COMMAND(2, "p2") TAIL_COMMAND(3, "p1"));
    l = loader(&s);
    read_tail(st, "g-t", 2, &l, 0);
    expect_text(&s, TAIL_GAME TAIL_COMMAND(3, "p1"));
    l = loader(&s);
    read_tail(st, "g-t", 3, &l, 0);
    expect_text(&s, TAIL_GAME);
    l = loader(&s);
    read_tail(st, "g-none", 0, &l, 1);
    assert_int_equal(s.games, 0);
    assert_int_equal(s.len, 0);
    /* a row whose version is past its commands, then a gap: damage, nothing passed */
    put_status(st, "g-t", "running", NULL, 900, 4, "p2", 1003);
    commit(st);
    char err[512] = "";
    l = loader(&s);
    assert_int_equal(st->cluster->read_tail(st, "g-t", 3, &l, err, sizeof err),
                     WRD_STORE_DAMAGED);
    assert_int_equal(s.len, 0);
    put_command(st, "g-t", 4);
    commit(st);
    PGresult *r = behind(f->location, "DELETE FROM commands WHERE game = 'g-t' AND version = 3",
                         PGRES_COMMAND_OK);
    assert_string_equal(PQcmdTuples(r), "1");
    PQclear(r);
    l = loader(&s);
    assert_int_equal(st->cluster->read_tail(st, "g-t", 1, &l, err, sizeof err),
                     WRD_STORE_DAMAGED);
    assert_non_null(strstr(err, "table commands: game g-t has no command 3"));
    assert_int_equal(s.len, 0);
    l = loader(&s);
    read_tail(st, "g-t", 3, &l, 0);
    expect_text(&s, TAIL_GAME TAIL_COMMAND(4, "p2"));
}

/* --- main ---------------------------------------------------------------------------- */

#define CASES(b)                                                                            \
    cmocka_unit_test_prestate_setup_teardown(t_read_game, setup, teardown, (void *)&b),    \
        cmocka_unit_test_prestate_setup_teardown(t_load, setup, teardown, (void *)&b),     \
        cmocka_unit_test_prestate_setup_teardown(t_list, setup, teardown, (void *)&b),     \
        cmocka_unit_test_prestate_setup_teardown(t_select_ids, setup, teardown,            \
                                                 (void *)&b),                              \
        cmocka_unit_test_prestate_setup_teardown(t_lost_batch, setup, teardown,            \
                                                 (void *)&b),                              \
        cmocka_unit_test_prestate_setup_teardown(t_threads, setup, teardown, (void *)&b),  \
        cmocka_unit_test_prestate_setup_teardown(t_locked, setup, teardown, (void *)&b),   \
        cmocka_unit_test_prestate_setup_teardown(t_set_cache, setup, teardown, (void *)&b)

int main(int argc, char **argv)
{
    const struct CMUnitTest sqlite_cases[] = {
        CASES(sqlite_backend),
        cmocka_unit_test_prestate_setup_teardown(t_shared_sqlite, setup, teardown,
                                                 (void *)&sqlite_backend),
    };
    const struct CMUnitTest pg_cases[] = {
        CASES(pg_backend),
        cmocka_unit_test_prestate_setup_teardown(t_readonly_pg, setup, teardown,
                                                 (void *)&pg_backend),
        cmocka_unit_test_prestate_setup_teardown(t_damaged_pg, setup, teardown,
                                                 (void *)&pg_backend),
        cmocka_unit_test_prestate_setup_teardown(t_reconnect_pg, setup, teardown,
                                                 (void *)&pg_backend),
        cmocka_unit_test_prestate_setup_teardown(t_shared_lock_pg, setup, teardown,
                                                 (void *)&pg_backend),
        cmocka_unit_test_prestate_setup_teardown(t_note_form_pg, setup, teardown,
                                                 (void *)&pg_backend),
        cmocka_unit_test_prestate_setup_teardown(t_own_pg, setup_shared, teardown,
                                                 (void *)&pg_backend),
        cmocka_unit_test_prestate_setup_teardown(t_own_new_pg, setup_shared, teardown,
                                                 (void *)&pg_backend),
        cmocka_unit_test_prestate_setup_teardown(t_notes_pg, setup_shared, teardown,
                                                 (void *)&pg_backend),
        cmocka_unit_test_prestate_setup_teardown(t_read_tail_pg, setup_shared, teardown,
                                                 (void *)&pg_backend),
    };
    const char *only = argc > 1 ? argv[1] : NULL;
    if (only && strcmp(only, "sqlite") != 0 && strcmp(only, "postgresql") != 0) {
        fprintf(stderr, "usage: %s [sqlite|postgresql]\n", argv[0]);
        return 2;
    }
    int failed = 0;
    if (only == NULL || strcmp(only, "sqlite") == 0)
        failed += cmocka_run_group_tests_name("sqlite", sqlite_cases, NULL, NULL);
    if (only == NULL || strcmp(only, "postgresql") == 0)
        failed += cmocka_run_group_tests_name("postgresql", pg_cases, NULL, NULL);
    return failed ? 1 : 0;
}
