/*
 * test_store_sqlite.c - server/store_sqlite.c through its table of
 * functions: what is written is read back exactly; load() passes the games
 * that are not finished and read_game() any one; a second thread reads
 * while the first writes and commits (never a batch still open, never a
 * gap); list_finished() pages 2,500 finished games, each once, newest
 * first, with its listed and ruleset filters; a version-2 database written
 * here through SQLite's API is migrated and keeps working; one process per
 * database; and a numbered table of damage done through SQLite's API, each
 * row refused with the message that names it.
 *
 * store_sqlite.c is compiled into this file (#include), so the damage rows
 * can also forge a consistent checksum with the store's own function and
 * prove that the column and version checks stand on their own.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "store_sqlite.c"

#include <dirent.h>
#include <time.h>

/* --- fixtures ------------------------------------------------------------------------ */

static char dir[256];

static void make_dir(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/warroom-store-XXXXXX", tmp ? tmp : "/tmp");
    assert_non_null(mkdtemp(dir));
}

static void remove_dir(void)
{
    DIR *d = opendir(dir);
    if (d != NULL) {
        struct dirent *e;
        char path[600];
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

static int setup(void **state)
{
    (void)state;
    make_dir();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    remove_dir();
    return 0;
}

static void path_of(char *out, size_t len, const char *name)
{
    snprintf(out, len, "%s/%s", dir, name);
}

static const struct wrd_store_ops *ops = &wrd_store_sqlite_ops;

/* TEMP: the calls of store.h v5, on v6 (the lead's main replaces this file). */
static int put_status5(struct wrd_store *st, const char *game, const char *status,
                       const char *result, int64_t deadline_ms, int64_t version)
{
    struct wrd_status_row r = { game, status, result, deadline_ms, version, NULL, 0 };
    return ops->put_status(st, &r);
}

static int put_snapshot3(struct wrd_store *st, const char *game, int64_t version,
                         const char *state_json)
{
    return ops->put_snapshot(st, game, version, state_json, NULL);
}

static struct wrd_store *open_ok(const char *path)
{
    struct wrd_store *st = NULL;
    char err[512];
    int rc = ops->open(&st, path, 0, err, sizeof err);
    if (rc != 0)
        fail_msg("open %s: %d %s", path, rc, err);
    return st;
}

static void commit_ok(struct wrd_store *st)
{
    char err[512];
    if (ops->commit(st, err, sizeof err) != 0)
        fail_msg("commit: %s", err);
}

static const uint8_t seed[32] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                  17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
                                  32 };
#define TOKEN_X "1111111111111111111111111111111111111111111111111111111111111111"
#define TOKEN_O "2222222222222222222222222222222222222222222222222222222222222222"
#define INVITE_O "3333333333333333333333333333333333333333333333333333333333333333"

/* A tictactoe-like game: seats x (taken) and o (invited), at created_ms. */
static void put_game(struct wrd_store *st, const char *id, const char *ruleset,
                     int64_t created_ms, int listed)
{
    struct wrd_game_row g = { id, ruleset, "", "null", "{\"spectators\":true}", seed,
                              created_ms, listed, NULL, NULL };
    assert_int_equal(ops->put_game(st, &g), 0);
    struct wrd_seat_row x = { id, "x", TOKEN_X, NULL, NULL, NULL };
    struct wrd_seat_row o = { id, "o", NULL, INVITE_O, NULL, NULL };
    assert_int_equal(ops->put_seat(st, &x), 0);
    assert_int_equal(ops->put_seat(st, &o), 0);
}

static void put_command(struct wrd_store *st, const char *game, int64_t version,
                        const char *seat)
{
    char cmd[64];
    snprintf(cmd, sizeof cmd, "{\"type\":\"mark\",\"cell\":%lld}", (long long)(version % 9));
    struct wrd_command_row c = { game, version, seat, version, cmd, "[]", 5000 + version };
    assert_int_equal(ops->put_command(st, &c), 0);
}

/* A loader that writes what it is passed as lines, to compare whole. */
struct seen {
    char text[1 << 16];
    size_t len;
    int games, seats, commands;
    int64_t last_version;
    int gaps;
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
    say(s, "game %s %s %s [%s] %s %02x%02x created=%lld listed=%d %s %s deadline=%lld\n", g->id,
        g->ruleset, g->scenario_json, g->scenario_name, g->options_json, g->seed[0],
        g->seed[31], (long long)g->created_ms, g->listed, status, result ? result : "-",
        (long long)deadline_ms);
    if (g->parent)
        say(s, "parent of %s: %s key %s\n", g->id, g->parent, g->link_key ? g->link_key : "-");
    s->games++;
    s->last_version = 0;
    return 0;
}

static int seen_seat(void *ctx, const struct wrd_seat_row *r)
{
    struct seen *s = ctx;
    say(s, "seat %s %s %.4s %.4s %s%s%s\n", r->game, r->seat, r->token_hash ? r->token_hash : "-",
        r->invite_hash ? r->invite_hash : "-", r->webhook ? r->webhook : "-",
        r->mail ? " mail " : "", r->mail ? r->mail : "");
    s->seats++;
    return 0;
}

static int seen_command(void *ctx, const struct wrd_command_row *c)
{
    struct seen *s = ctx;
    say(s, "command %s %lld %s %lld %s %s %lld\n", c->game, (long long)c->version, c->seat,
        (long long)c->client_seq, c->cmd_json, c->events_json, (long long)c->at_ms);
    if (c->version != s->last_version + 1)
        s->gaps++;
    s->last_version = c->version;
    s->commands++;
    return 0;
}

static int seen_link(void *ctx, const char *child, const char *parent, const char *key,
                     const char *ruleset, const char *status, const char *result)
{
    say(ctx, "link %s -> %s %s %s %s %s\n", child, parent, key ? key : "-", ruleset, status,
        result ? result : "-");
    return 0;
}

static struct wrd_store_loader loader_of(struct seen *s, int finished_too)
{
    memset(s, 0, sizeof *s);
    return (struct wrd_store_loader){ .ctx = s, .game = seen_game, .seat = seen_seat,
                                      .command = seen_command, .finished_too = finished_too,
                                      .link = seen_link };
}

static void expect_text(const struct seen *s, const char *want)
{
    if (strcmp(s->text, want) != 0)
        fail_msg("passed:\n%s\nwant:\n%s", s->text, want);
}

/* --- what is written is read back ------------------------------------------------------- */

static void test_write_and_read_back(void **state)
{
    (void)state;
    char path[300], err[512];
    path_of(path, sizeof path, "a.db");
    struct wrd_store *st = open_ok(path);
    assert_int_equal(ops->schema_version(st), 5);
    put_game(st, "g-a", "tictactoe", 1000, 1);
    assert_int_equal(put_status5(st, "g-a", "open", NULL, 0, 0), 0);
    assert_int_equal(ops->pending(st), 1);
    commit_ok(st);
    assert_int_equal(ops->pending(st), 0);

    struct seen s;
    struct wrd_store_loader l = loader_of(&s, 0);
    /* 1) a game as created */
    assert_int_equal(ops->read_game(st, "g-a", &l, err, sizeof err), 0);
    expect_text(&s, "game g-a tictactoe null [] {\"spectators\":true} 0120 created=1000 "
                    "listed=1 open - deadline=0\n"
                    "seat g-a x 1111 - -\n"
                    "seat g-a o - 3333 -\n");
    /* 2) no such game */
    l = loader_of(&s, 0);
    assert_int_equal(ops->read_game(st, "g-none", &l, err, sizeof err), 1);
    assert_int_equal(s.games, 0);

    /* 3) claimed, played, snapshotted, finished */
    struct wrd_seat_row o = { "g-a", "o", TOKEN_O, NULL, "http://127.0.0.1:9/hook",
                              "{\"state\":\"pending\"}" };
    assert_int_equal(ops->update_seat(st, &o), 0);
    assert_int_equal(put_status5(st, "g-a", "running", NULL, 86400000, 0), 0);
    put_command(st, "g-a", 1, "x");
    put_command(st, "g-a", 2, "o");
    commit_ok(st);
    int64_t v = 0;
    char *snap = NULL;
    assert_int_equal(ops->latest_snapshot(st, "g-a", &v, &snap, err, sizeof err), 0);
    assert_int_equal(put_snapshot3(st, "g-a", 2, "{\"board\":\"x.o\"}"), 0);
    put_command(st, "g-a", 3, "x");
    assert_int_equal(put_snapshot3(st, "g-a", 3, "{\"board\":\"x.ox\"}"), 0);
    assert_int_equal(put_status5(st, "g-a", "finished", "x", 0, 3), 0);
    put_game(st, "g-b", "waterloo", 2000, 0);
    assert_int_equal(put_status5(st, "g-b", "open", NULL, 0, 0), 0);
    commit_ok(st);
    assert_int_equal(ops->latest_snapshot(st, "g-a", &v, &snap, err, sizeof err), 1);
    assert_int_equal(v, 3);
    assert_string_equal(snap, "{\"board\":\"x.ox\"}");
    free(snap);
    l = loader_of(&s, 0);
    assert_int_equal(ops->read_game(st, "g-a", &l, err, sizeof err), 0);
    expect_text(&s, "game g-a tictactoe null [] {\"spectators\":true} 0120 created=1000 "
                    "listed=1 finished x deadline=0\n"
                    "seat g-a x 1111 - -\n"
                    "seat g-a o 2222 - http://127.0.0.1:9/hook mail {\"state\":\"pending\"}\n"
                    "command g-a 1 x 1 {\"type\":\"mark\",\"cell\":1} [] 5001\n"
                    "command g-a 2 o 2 {\"type\":\"mark\",\"cell\":2} [] 5002\n"
                    "command g-a 3 x 3 {\"type\":\"mark\",\"cell\":3} [] 5003\n");
    /* 4) load: the finished game is checked, not passed */
    l = loader_of(&s, 0);
    assert_int_equal(ops->load(st, &l, err, sizeof err), 0);
    assert_int_equal(s.games, 1);
    assert_non_null(strstr(s.text, "game g-b waterloo"));
    assert_null(strstr(s.text, "g-a"));
    /* 5) ... unless the loader keeps finished games, oldest first */
    l = loader_of(&s, 1);
    assert_int_equal(ops->load(st, &l, err, sizeof err), 0);
    assert_int_equal(s.games, 2);
    assert_true(strstr(s.text, "game g-a") < strstr(s.text, "game g-b"));
    assert_int_equal(s.commands, 3);
    ops->close(st);

    /* 6) and all of it again after a reopen */
    st = open_ok(path);
    l = loader_of(&s, 1);
    assert_int_equal(ops->load(st, &l, err, sizeof err), 0);
    assert_int_equal(s.games, 2);
    assert_int_equal(s.seats, 4);
    assert_int_equal(s.commands, 3);
    ops->close(st);
}

/* A failed batch is rolled back whole, the counts with it. */
static void test_failed_commit_rolls_back(void **state)
{
    (void)state;
    char path[300], err[512];
    path_of(path, sizeof path, "b.db");
    struct wrd_store *st = open_ok(path);
    put_game(st, "g-c", "tictactoe", 1000, 1);
    put_command(st, "g-c", 1, "x");
    commit_ok(st);
    /* 1) the same version twice: the batch fails */
    put_command(st, "g-c", 2, "o");
    struct wrd_command_row again = { "g-c", 2, "o", 9, "{}", "[]", 1 };
    assert_int_equal(ops->put_command(st, &again), -1);
    assert_int_not_equal(ops->commit(st, err, sizeof err), 0);
    /* 2) an update of a row that does not exist fails too */
    struct wrd_seat_row ghost = { "g-c", "z", NULL, NULL, NULL, NULL };
    assert_int_equal(ops->update_seat(st, &ghost), -1);
    assert_int_not_equal(ops->commit(st, err, sizeof err), 0);
    assert_non_null(strstr(err, "changed 0 rows"));
    assert_int_equal(put_status5(st, "g-none", "open", NULL, 0, 0), -1);
    assert_int_not_equal(ops->commit(st, err, sizeof err), 0);
    /* 3) the next batch is whole, and the store checks after a reopen */
    put_command(st, "g-c", 2, "o");
    commit_ok(st);
    ops->close(st);
    st = open_ok(path);
    struct seen s;
    struct wrd_store_loader l = loader_of(&s, 1);
    assert_int_equal(ops->load(st, &l, err, sizeof err), 0);
    assert_int_equal(s.commands, 2);
    assert_int_equal(s.gaps, 0);
    ops->close(st);
}

/* --- one process per database ----------------------------------------------------------- */

static void test_one_store_per_database(void **state)
{
    (void)state;
    char path[300], link_path[300], err[512];
    path_of(path, sizeof path, "c.db");
    path_of(link_path, sizeof link_path, "c-link.db");
    struct wrd_store *st = open_ok(path), *second = NULL;
    /* 1) by its name */
    assert_int_equal(ops->open(&second, path, 0, err, sizeof err), WRD_STORE_LOCKED);
    assert_non_null(strstr(err, "in use by another process"));
    /* 2) by a symbolic link to it */
    assert_int_equal(symlink(path, link_path), 0);
    assert_int_equal(ops->open(&second, link_path, 0, err, sizeof err), WRD_STORE_LOCKED);
    /* 3) the first one is not disturbed */
    put_game(st, "g-d", "tictactoe", 1, 1);
    commit_ok(st);
    ops->close(st);
    /* 4) free once closed */
    st = open_ok(link_path);
    ops->close(st);
}

/* --- reads from another thread ----------------------------------------------------------- */

struct race {
    struct wrd_store *st;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int asked, answered, stop;
    int64_t commands;           /* seen by the last asked read */
    int reads, errors, went_back, gaps;
    char err[512];
};

static int count_row(void *ctx, const struct wrd_finished_row *row)
{
    (void)row;
    (*(int *)ctx)++;
    return 0;
}

static void *reader(void *arg)
{
    struct race *r = arg;
    int64_t last = 0;
    int last_listed = 0;
    pthread_mutex_lock(&r->mu);
    while (!r->stop) {
        int ask = r->asked > r->answered;
        pthread_mutex_unlock(&r->mu);
        struct seen s;
        struct wrd_store_loader l = loader_of(&s, 0);
        char err[512];
        int rc = r->st->ops->read_game(r->st, "g-r", &l, err, sizeof err);
        int listed = 0;
        struct wrd_finished_query q = { NULL, 0, 1000, NULL, NULL };
        int n = rc == 0 ? r->st->ops->list_finished(r->st, &q, count_row, &listed, err,
                                                    sizeof err) : -1;
        pthread_mutex_lock(&r->mu);
        r->reads++;
        if (rc != 0 || n < 0) {
            r->errors++;
            snprintf(r->err, sizeof r->err, "%d/%d %.400s", rc, n, err);
        } else {
            if (s.gaps)
                r->gaps++;
            if (s.commands < last || listed < last_listed)
                r->went_back++;
            last = s.commands;
            last_listed = listed;
        }
        if (ask) {
            r->commands = rc == 0 ? s.commands : -1;
            r->answered = r->asked;
            pthread_cond_broadcast(&r->cv);
        }
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

/* Ask the reader for a read that starts now; the commands it saw. */
static int64_t ask(struct race *r)
{
    pthread_mutex_lock(&r->mu);
    int want = ++r->asked;
    while (r->answered < want)
        pthread_cond_wait(&r->cv, &r->mu);
    int64_t n = r->commands;
    pthread_mutex_unlock(&r->mu);
    return n;
}

static void test_reads_while_writing(void **state)
{
    (void)state;
    char path[300];
    path_of(path, sizeof path, "d.db");
    struct race r = { .st = open_ok(path) };
    pthread_mutex_init(&r.mu, NULL);
    pthread_cond_init(&r.cv, NULL);
    put_game(r.st, "g-r", "tictactoe", 1, 1);
    commit_ok(r.st);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, reader, &r), 0);
    /* 1) in step: a read never sees the open batch, and sees each commit */
    for (int64_t v = 1; v <= 100; v++) {
        put_command(r.st, "g-r", v, v % 2 ? "x" : "o");
        if (ask(&r) != v - 1)
            fail_msg("version %lld: a read saw %lld commands with the batch open", (long long)v,
                     (long long)r.commands);
        commit_ok(r.st);
        if (ask(&r) != v)
            fail_msg("version %lld: a read after the commit saw %lld commands", (long long)v,
                     (long long)r.commands);
    }
    /* 2) free-running: 400 more commits, a finished game every 10 */
    for (int64_t v = 101; v <= 500; v++) {
        put_command(r.st, "g-r", v, v % 2 ? "x" : "o");
        if (v % 10 == 0) {
            char id[32];
            snprintf(id, sizeof id, "g-f%lld", (long long)v);
            put_game(r.st, id, "tictactoe", v, 1);
            assert_int_equal(put_status5(r.st, id, "finished", "draw", 0, 0), 0);
        }
        commit_ok(r.st);
    }
    assert_int_equal(ask(&r), 500);
    pthread_mutex_lock(&r.mu);
    r.stop = 1;
    pthread_mutex_unlock(&r.mu);
    pthread_join(t, NULL);
    if (r.errors)
        fail_msg("%d reads failed: %s", r.errors, r.err);
    assert_int_equal(r.gaps, 0);
    assert_int_equal(r.went_back, 0);
    assert_true(r.reads >= 202);
    /* 3) the snapshot read from another connection sees the last commit */
    char err[512], *snap = NULL;
    int64_t v = 0;
    assert_int_equal(put_snapshot3(r.st, "g-r", 500, "{\"v\":500}"), 0);
    commit_ok(r.st);
    assert_int_equal(ops->latest_snapshot(r.st, "g-r", &v, &snap, err, sizeof err), 1);
    assert_int_equal(v, 500);
    free(snap);
    ops->close(r.st);
    pthread_cond_destroy(&r.cv);
    pthread_mutex_destroy(&r.mu);
}

/* --- listing finished games ------------------------------------------------------------- */

#define NLISTED 2500

struct page {
    char ids[NLISTED + 10][32];
    int64_t created[NLISTED + 10];
    int n;
    int bad_rows;
    int stop_after;
};

static int page_row(void *ctx, const struct wrd_finished_row *r)
{
    struct page *p = ctx;
    if (p->n < NLISTED + 10) {
        snprintf(p->ids[p->n], sizeof p->ids[0], "%s", r->id);
        p->created[p->n] = r->created_ms;
        p->n++;
    }
    if (strcmp(r->status, "finished") != 0 || r->result == NULL || strcmp(r->result, "x") != 0 ||
        r->version != 1 || strcmp(r->scenario_name, "") != 0 || r->nseats != 2 ||
        strcmp(r->seats[0].name, "x") != 0 || !r->seats[0].taken ||
        strcmp(r->seats[1].name, "o") != 0 || r->seats[1].taken)
        p->bad_rows++;
    return p->stop_after && p->n >= p->stop_after;
}

static const char *const rulesets[3] = { "tictactoe", "waterloo", "campaign" };

struct want {
    char id[32];
    int64_t created;
    int ruleset;
};

static int newest_first(const void *a, const void *b)
{
    const struct want *x = a, *y = b;
    if (x->created != y->created)
        return x->created > y->created ? -1 : 1;
    return -strcmp(x->id, y->id);
}

/* Page through with limit, following the cursor; everything into p. */
static void page_all(struct wrd_store *st, const char *ruleset, int limit, struct page *p)
{
    char err[512];
    memset(p, 0, sizeof *p);
    for (int pages = 0;; pages++) {
        assert_true(pages <= NLISTED);
        struct wrd_finished_query q = { p->n ? p->ids[p->n - 1] : NULL,
                                        p->n ? p->created[p->n - 1] : 0, limit, ruleset, NULL };
        char cursor[32];
        if (q.before_id) {
            snprintf(cursor, sizeof cursor, "%s", q.before_id);
            q.before_id = cursor;
        }
        int before = p->n;
        int n = ops->list_finished(st, &q, page_row, p, err, sizeof err);
        if (n < 0)
            fail_msg("list_finished: %d %s", n, err);
        assert_int_equal(n, p->n - before);
        if (n < limit)
            return;
    }
}

static void test_list_finished_pages(void **state)
{
    (void)state;
    char path[300], err[512];
    path_of(path, sizeof path, "e.db");
    struct wrd_store *st = open_ok(path);
    static struct want want[NLISTED];
    int nwant = 0;
    /* 2,500 listed finished games, three per created_ms (ties broken by id,
     * ids in another order than creation), three rulesets; among them 300
     * finished games that are not listed and 200 listed ones still running. */
    for (int i = 0; i < NLISTED + 500; i++) {
        char id[32];
        snprintf(id, sizeof id, "g-%04x", (unsigned)(i * 7919 % 10007));
        int64_t created = 10000 + i / 3;
        int kind = i < NLISTED ? 0 : i < NLISTED + 300 ? 1 : 2;
        put_game(st, id, rulesets[i % 3], created, kind != 1);
        put_command(st, id, 1, "x");
        assert_int_equal(put_status5(st, id, kind == 2 ? "running" : "finished",
                                         kind == 2 ? NULL : "x", 0, 1), 0);
        if (kind == 0) {
            snprintf(want[nwant].id, sizeof want[0].id, "%s", id);
            want[nwant].created = created;
            want[nwant++].ruleset = i % 3;
        }
    }
    commit_ok(st);
    qsort(want, (size_t)nwant, sizeof want[0], newest_first);

    static struct page p;
    /* 1) every listed finished game once, newest first, in pages of 97 */
    page_all(st, NULL, 97, &p);
    assert_int_equal(p.n, NLISTED);
    assert_int_equal(p.bad_rows, 0);
    for (int i = 0; i < NLISTED; i++)
        if (strcmp(p.ids[i], want[i].id) != 0 || p.created[i] != want[i].created)
            fail_msg("row %d: %s at %lld, want %s at %lld", i, p.ids[i], (long long)p.created[i],
                     want[i].id, (long long)want[i].created);
    /* 2) one ruleset, in pages of 50 */
    page_all(st, "waterloo", 50, &p);
    int k = 0;
    for (int i = 0; i < NLISTED; i++) {
        if (want[i].ruleset != 1)
            continue;
        if (k >= p.n || strcmp(p.ids[k], want[i].id) != 0)
            fail_msg("waterloo row %d: %s, want %s", k, k < p.n ? p.ids[k] : "(none)", want[i].id);
        k++;
    }
    assert_int_equal(p.n, k);
    /* 3) a ruleset without games, a cursor past the oldest */
    page_all(st, "chess", 10, &p);
    assert_int_equal(p.n, 0);
    struct wrd_finished_query old = { "g-0000", 0, 10, NULL, NULL };
    memset(&p, 0, sizeof p);
    assert_int_equal(ops->list_finished(st, &old, page_row, &p, err, sizeof err), 0);
    /* 4) the callback stops the listing */
    memset(&p, 0, sizeof p);
    p.stop_after = 5;
    struct wrd_finished_query first = { NULL, 0, 100, NULL, NULL };
    assert_int_equal(ops->list_finished(st, &first, page_row, &p, err, sizeof err), 5);
    /* 5) limits */
    first.limit = 0;
    assert_int_equal(ops->list_finished(st, &first, page_row, &p, err, sizeof err),
                     WRD_STORE_ERROR);
    first.limit = 1001;
    assert_int_equal(ops->list_finished(st, &first, page_row, &p, err, sizeof err),
                     WRD_STORE_ERROR);
    /* 6) the whole store checks, 3,000 games */
    struct seen s;
    struct wrd_store_loader l = loader_of(&s, 0);
    assert_int_equal(ops->load(st, &l, err, sizeof err), 0);
    assert_int_equal(s.games, 200);
    ops->close(st);
}

/* --- a version-2 store, written here through SQLite's API --------------------------------- */

static const char v2_schema[] =
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
    "  state TEXT NOT NULL, PRIMARY KEY (game, version)) WITHOUT ROWID;"
    "PRAGMA user_version = 2;";

static const char v2_rows[] =
    "INSERT INTO games VALUES ('g-old1', 'tictactoe', '', 'null', '{\"spectators\":false}',"
    "  zeroblob(32), 100, 'finished', 'x', 0);"
    "INSERT INTO games VALUES ('g-old2', 'waterloo', 'test/small', '{\"name\":\"small\"}',"
    "  '{\"spectators\":false,\"open_seats\":true}', zeroblob(32), 200, 'running', NULL, 5000);"
    "INSERT INTO games VALUES ('g-old3', 'tictactoe', '', 'null', '{}', zeroblob(32), 300,"
    "  'open', NULL, 0);"
    "INSERT INTO games VALUES ('g-old4', 'tictactoe', '', 'null', '{\"deadline_seconds\":60}',"
    "  zeroblob(32), 400, 'finished', 'forfeit', 0);"
    "INSERT INTO seats VALUES ('g-old1', 'x', '" TOKEN_X "', NULL, NULL);"
    "INSERT INTO seats VALUES ('g-old1', 'o', '" TOKEN_O "', NULL, 'http://127.0.0.1:1/');"
    "INSERT INTO seats VALUES ('g-old2', 'french', '" TOKEN_X "', NULL, NULL);"
    "INSERT INTO seats VALUES ('g-old2', 'allied', '" TOKEN_O "', NULL, NULL);"
    "INSERT INTO seats VALUES ('g-old3', 'x', '" TOKEN_X "', NULL, NULL);"
    "INSERT INTO seats VALUES ('g-old3', 'o', NULL, '" INVITE_O "', NULL);"
    "INSERT INTO seats VALUES ('g-old4', 'x', '" TOKEN_X "', NULL, NULL);"
    "INSERT INTO seats VALUES ('g-old4', 'o', '" TOKEN_O "', NULL, NULL);"
    "INSERT INTO commands VALUES ('g-old1', 1, 'x', 1, '{\"cell\":4}', '[]', 101);"
    "INSERT INTO commands VALUES ('g-old1', 2, 'o', 1, '{\"cell\":0}', '[]', 102);"
    "INSERT INTO commands VALUES ('g-old1', 3, 'x', 2, '{\"cell\":8}', '[]', 103);"
    "INSERT INTO commands VALUES ('g-old2', 1, 'french', 0, '{\"type\":\"end\"}', '[]', 201);"
    "INSERT INTO commands VALUES ('g-old2', 2, 'allied', 0, '{\"type\":\"end\"}', '[]', 202);"
    "INSERT INTO commands VALUES ('g-old4', 1, 'x', 1, '{\"cell\":4}', '[]', 401);"
    "INSERT INTO snapshots VALUES ('g-old1', 3, '{\"board\":\"o...x...x\"}');";

static void raw_exec(sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%s: %s", sql, msg ? msg : "?");
}

/* A raw connection, with the store's checksum function to forge rows. */
static sqlite3 *raw_open(const char *path)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                                     NULL), SQLITE_OK);
    assert_int_equal(sqlite3_create_function(db, "warroom_rowsum", -1, SQLITE_UTF8, NULL,
                                             sql_rowsum, NULL, NULL), SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    return db;
}

static char *raw_text(sqlite3 *db, const char *sql)
{
    static char out[1024];
    size_t at = 0;
    sqlite3_stmt *q;
    out[0] = '\0';
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &q, NULL), SQLITE_OK);
    while (sqlite3_step(q) == SQLITE_ROW && at < sizeof out) {
        for (int i = 0; i < sqlite3_column_count(q); i++)
            at += (size_t)snprintf(out + at, sizeof out - at, "%s%s", i ? "|" : "",
                                   sqlite3_column_text(q, i) ? (const char *)sqlite3_column_text(q, i)
                                                             : "NULL");
        if (at < sizeof out)
            at += (size_t)snprintf(out + at, sizeof out - at, "\n");
    }
    sqlite3_finalize(q);
    return out;
}

static void test_migrate_from_v2(void **state)
{
    (void)state;
    char path[300], err[512];
    path_of(path, sizeof path, "v2.db");
    sqlite3 *db = raw_open(path);
    raw_exec(db, "PRAGMA journal_mode=WAL");
    raw_exec(db, v2_schema);
    raw_exec(db, v2_rows);
    sqlite3_close(db);

    struct wrd_store *st = open_ok(path);
    /* 1) version 4, every row kept */
    assert_int_equal(ops->schema_version(st), 5);
    struct seen s;
    struct wrd_store_loader l = loader_of(&s, 1);
    assert_int_equal(ops->load(st, &l, err, sizeof err), 0);
    expect_text(&s,
        "game g-old1 tictactoe null [] {\"spectators\":false} 0000 created=100 listed=0 "
        "finished x deadline=0\n"
        "seat g-old1 x 1111 - -\n"
        "seat g-old1 o 2222 - http://127.0.0.1:1/\n"
        "command g-old1 1 x 1 {\"cell\":4} [] 101\n"
        "command g-old1 2 o 1 {\"cell\":0} [] 102\n"
        "command g-old1 3 x 2 {\"cell\":8} [] 103\n"
        "game g-old2 waterloo {\"name\":\"small\"} [test/small] "
        "{\"spectators\":false,\"open_seats\":true} 0000 created=200 listed=1 running - "
        "deadline=5000\n"
        "seat g-old2 french 1111 - -\n"
        "seat g-old2 allied 2222 - -\n"
        "command g-old2 1 french 0 {\"type\":\"end\"} [] 201\n"
        "command g-old2 2 allied 0 {\"type\":\"end\"} [] 202\n"
        "game g-old3 tictactoe null [] {} 0000 created=300 listed=1 open - deadline=0\n"
        "seat g-old3 x 1111 - -\n"
        "seat g-old3 o - 3333 -\n"
        "game g-old4 tictactoe null [] {\"deadline_seconds\":60} 0000 created=400 listed=1 "
        "finished forfeit deadline=0\n"
        "seat g-old4 x 1111 - -\n"
        "seat g-old4 o 2222 - -\n"
        "command g-old4 1 x 1 {\"cell\":4} [] 401\n");
    /* 2) the finished ones: listed as their options say, with their final version */
    struct page p;
    memset(&p, 0, sizeof p);
    struct wrd_finished_query q = { NULL, 0, 10, NULL, NULL };
    assert_int_equal(ops->list_finished(st, &q, page_row, &p, err, sizeof err), 1);
    assert_string_equal(p.ids[0], "g-old4");
    char *snap = NULL;
    int64_t v = 0;
    assert_int_equal(ops->latest_snapshot(st, "g-old1", &v, &snap, err, sizeof err), 1);
    assert_int_equal(v, 3);
    assert_string_equal(snap, "{\"board\":\"o...x...x\"}");
    free(snap);
    /* 3) the store goes on */
    struct wrd_command_row c = { "g-old2", 3, "french", 1, "{\"type\":\"end\"}", "[]", 203 };
    assert_int_equal(ops->put_command(st, &c), 0);
    assert_int_equal(put_status5(st, "g-old2", "finished", "french", 0, 3), 0);
    struct wrd_seat_row o = { "g-old3", "o", TOKEN_O, NULL, NULL, NULL };
    assert_int_equal(ops->update_seat(st, &o), 0);
    commit_ok(st);
    ops->close(st);
    db = raw_open(path);
    assert_string_equal(raw_text(db, "SELECT id, listed, version FROM games ORDER BY id"),
                        "g-old1|0|3\ng-old2|1|3\ng-old3|1|0\ng-old4|1|1\n");
    assert_string_equal(raw_text(db, "SELECT games, seats, commands, snapshots, opens FROM meta"),
                        "4|8|7|1|1\n");
    sqlite3_close(db);
    st = open_ok(path);
    l = loader_of(&s, 0);
    assert_int_equal(ops->load(st, &l, err, sizeof err), 0);
    assert_int_equal(s.games, 1);   /* g-old3; g-old2 has finished */
    ops->close(st);
}

/* --- damage done through SQLite's API --------------------------------------------------- */

/* A store with a finished game (g-a: 3 commands, a snapshot), a running one
 * (g-b: 2 commands) and an open one (g-c), closed cleanly. */
static void make_base(const char *path)
{
    struct wrd_store *st = open_ok(path);
    put_game(st, "g-a", "tictactoe", 100, 1);
    put_game(st, "g-b", "tictactoe", 200, 1);
    put_game(st, "g-c", "tictactoe", 300, 1);
    for (int v = 1; v <= 3; v++)
        put_command(st, "g-a", v, v % 2 ? "x" : "o");
    assert_int_equal(put_snapshot3(st, "g-a", 3, "{\"board\":\"x\"}"), 0);
    assert_int_equal(put_status5(st, "g-a", "finished", "x", 0, 3), 0);
    for (int v = 1; v <= 2; v++)
        put_command(st, "g-b", v, v % 2 ? "x" : "o");
    assert_int_equal(put_status5(st, "g-b", "running", NULL, 0, 2), 0);
    commit_ok(st);
    ops->close(st);
}

static void copy_file(const char *from, const char *to)
{
    size_t n;
    FILE *f = fopen(from, "rb");
    assert_non_null(f);
    static char buf[1 << 20];
    n = fread(buf, 1, sizeof buf, f);
    assert_true(n > 0 && n < sizeof buf);
    fclose(f);
    f = fopen(to, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, n, f), n);
    fclose(f);
}

/* Meta's row after table t lost (or gained) rows, with a matching checksum. */
#define META(col, delta)                                                                      \
    "UPDATE meta SET " col " = " col " + (" delta "), rowsum = warroom_rowsum(1, id, games"  \
    " + ('" col "' = 'games') * (" delta "), seats + ('" col "' = 'seats') * (" delta "),"    \
    " commands + ('" col "' = 'commands') * (" delta "), snapshots + ('" col "' ="            \
    " 'snapshots') * (" delta "), opens, schema_sum);"
#define GAME_SUM(status, version)                                                            \
    "warroom_rowsum(2, id, ruleset, scenario_name, scenario, options, seed, created_at, "     \
    status ", result, deadline_at, listed, " version ", parent, link_key)"

static const struct damage_row {
    int row;
    const char *sql;
    int rc;                 /* what open() or else load() returns (0: not damage) */
    const char *message;    /* in its error */
} damage_rows[] = {
    { 1, "UPDATE commands SET cmd = '{\"type\":\"mark\",\"cell\":8}' WHERE game = 'g-a'"
         " AND version = 2", WRD_STORE_DAMAGED,
      "table commands, row (game g-a, version 2): the checksum does not match the row" },
    { 2, "UPDATE commands SET at = 1.5 WHERE game = 'g-a' AND version = 1", WRD_STORE_DAMAGED,
      "table commands, row (game g-a, version 1): column at is not an integer" },
    { 3, "UPDATE commands SET version = 'two', rowsum = warroom_rowsum(4, game, 'two', seat,"
         " client_seq, cmd, events, at) WHERE game = 'g-b' AND version = 2", WRD_STORE_DAMAGED,
      "column version is not an integer" },
    { 4, "UPDATE commands SET version = 7, rowsum = warroom_rowsum(4, game, 7, seat, client_seq,"
         " cmd, events, at) WHERE game = 'g-a' AND version = 3", WRD_STORE_DAMAGED,
      "table commands: game g-a has command 7 after 2" },
    { 5, "DELETE FROM commands WHERE game = 'g-b' AND version = 2;" META("commands", "-1"),
      WRD_STORE_DAMAGED, "game g-b has 1 commands; its row says it reached version 2" },
    { 6, "DELETE FROM snapshots", WRD_STORE_DAMAGED,
      "table snapshots holds 0 rows; 1 were committed" },
    { 7, "UPDATE games SET status = 'paused', rowsum = " GAME_SUM("'paused'", "version")
         " WHERE id = 'g-c'", WRD_STORE_DAMAGED,
      "table games, row (id g-c): column status is not open, running or finished" },
    { 8, "UPDATE games SET seed = x'00', rowsum = warroom_rowsum(2, id, ruleset, scenario_name,"
         " scenario, options, x'00', created_at, status, result, deadline_at, listed, version)"
         " WHERE id = 'g-b'", WRD_STORE_DAMAGED, "column seed is not 32 bytes" },
    { 9, "UPDATE seats SET token_hash = 'zz', rowsum = warroom_rowsum(3, game, seat, 'zz',"
         " invite_hash, webhook, mail) WHERE game = 'g-c' AND seat = 'x'", WRD_STORE_DAMAGED,
      "table seats, row (game g-c, seat x): column token_hash is not 64 hex digits" },
    { 10, "DELETE FROM seats WHERE game = 'g-c';" META("seats", "-2"), WRD_STORE_DAMAGED,
      "table seats: game g-c has no seat" },
    { 11, "INSERT INTO seats (game, seat, rowsum) VALUES ('g-zz', 'x', warroom_rowsum(3,"
          " 'g-zz', 'x', NULL, NULL, NULL, NULL));" META("seats", "1"), WRD_STORE_DAMAGED,
      "a seat of game g-zz, which has no row" },
    { 12, "INSERT INTO snapshots VALUES ('g-b', 9, '{}', warroom_rowsum(5, 'g-b', 9, '{}'));"
          META("snapshots", "1"), WRD_STORE_DAMAGED,
      "game g-b has a snapshot at version 9 and 2 commands" },
    { 13, "DELETE FROM meta", WRD_STORE_DAMAGED, "table meta holds no rows, not 1" },
    { 14, "UPDATE meta SET games = games + 1", WRD_STORE_DAMAGED,
      "table meta, row (id 1): the checksum does not match the row" },
    { 15, "CREATE INDEX extra ON commands (seat)", WRD_STORE_DAMAGED,
      "the schema (sqlite_schema) is not the one this store was created with" },
    { 16, "UPDATE commands SET cmd = CAST(x'7b0041' AS TEXT), rowsum = warroom_rowsum(4, game,"
          " version, seat, client_seq, CAST(x'7b0041' AS TEXT), events, at)"
          " WHERE game = 'g-a' AND version = 1", WRD_STORE_DAMAGED,
      "column cmd is text holding a NUL byte" },
    { 17, "UPDATE seats SET seat = 'a-seat-name-longer-than-23', rowsum = warroom_rowsum(3,"
          " game, 'a-seat-name-longer-than-23', token_hash, invite_hash, webhook, mail)"
          " WHERE game = 'g-b' AND seat = 'o'", WRD_STORE_DAMAGED, "column seat is too long" },
    { 18, "PRAGMA user_version = 9", WRD_STORE_ERROR, "has schema version 9" },
    { 19, "PRAGMA application_id = 7", WRD_STORE_DAMAGED,
      "the application id in the header is 7" },
    { 20, "UPDATE games SET id = 'g-q', rowsum = warroom_rowsum(2, 'g-q', ruleset,"
          " scenario_name, scenario, options, seed, created_at, status, result, deadline_at,"
          " listed, version, parent, link_key) WHERE id = 'g-a'", WRD_STORE_DAMAGED,
      "a seat of game g-a, which has no row" },
    { 21, "UPDATE games SET version = 5, rowsum = " GAME_SUM("status", "5") " WHERE id = 'g-b'",
      WRD_STORE_DAMAGED, "game g-b has 2 commands; its row says it reached version 5" },
    { 22, "UPDATE seats SET seat = '', rowsum = warroom_rowsum(3, game, '', token_hash,"
          " invite_hash, webhook, mail) WHERE game = 'g-b' AND seat = 'o'", WRD_STORE_DAMAGED,
      "column seat is empty" },
    { 23, "UPDATE games SET listed = 2, rowsum = warroom_rowsum(2, id, ruleset, scenario_name,"
          " scenario, options, seed, created_at, status, result, deadline_at, 2, version)"
          " WHERE id = 'g-c'", WRD_STORE_DAMAGED, "column listed is neither 0 nor 1" },
    { 24, "INSERT INTO meta SELECT 2, games, seats, commands, snapshots, opens, schema_sum,"
          " rowsum FROM meta", WRD_STORE_DAMAGED, "table meta holds several rows, not 1" },
    { 25, "ANALYZE", 0, "" },                       /* statistics are not damage */
    { 26, "DELETE FROM commands WHERE game = 'g-a' AND version = 1;" META("commands", "-1"),
      WRD_STORE_DAMAGED, "table commands: game g-a has command 2 after 0" },
};

static void test_damage_refused(void **state)
{
    (void)state;
    char base[300], path[300], err[512];
    path_of(base, sizeof base, "base.db");
    make_base(base);
    for (size_t i = 0; i < sizeof damage_rows / sizeof damage_rows[0]; i++) {
        const struct damage_row *d = &damage_rows[i];
        snprintf(path, sizeof path, "%s/damage-%d.db", dir, d->row);
        copy_file(base, path);
        sqlite3 *db = raw_open(path);
        raw_exec(db, d->sql);
        sqlite3_close(db);
        struct wrd_store *st = NULL;
        struct seen s;
        struct wrd_store_loader l = loader_of(&s, 1);
        err[0] = '\0';
        int rc = ops->open(&st, path, 0, err, sizeof err);
        if (rc == 0) {
            rc = ops->load(st, &l, err, sizeof err);
            ops->close(st);
        }
        if (rc != d->rc || (rc != 0 && strstr(err, d->message) == NULL))
            fail_msg("row %d: %d \"%s\", want %d \"%s\"", d->row, rc, err, d->rc, d->message);
        if (rc == WRD_STORE_DAMAGED && s.games != 0)
            fail_msg("row %d: the loader was passed %d games of a damaged store", d->row,
                     s.games);
    }
}

/* --- linked games (schema version 4) ------------------------------------------------------ */

static void put_linked(struct wrd_store *st, const char *id, int64_t created_ms,
                       const char *parent, const char *key, const char *status)
{
    struct wrd_game_row g = { id, "battle", "", "null", "{}", seed, created_ms, 1, parent, key };
    assert_int_equal(ops->put_game(st, &g), 0);
    struct wrd_seat_row x = { id, "p1", TOKEN_X, NULL, NULL, NULL };
    assert_int_equal(ops->put_seat(st, &x), 0);
    assert_int_equal(put_status5(st, id, status, strcmp(status, "finished") == 0 ? "p1"
                                                                                   : NULL, 0, 0), 0);
}

static void test_links(void **state)
{
    (void)state;
    char path[300], err[512];
    path_of(path, sizeof path, "links.db");
    struct wrd_store *st = open_ok(path);
    put_game(st, "g-p", "campaign", 1000, 1);
    assert_int_equal(put_status5(st, "g-p", "running", NULL, 0, 0), 0);
    put_linked(st, "g-c", 2000, "g-p", "attack-1", "finished");
    put_linked(st, "g-o", 3000, "g-p", "attack-2", "running");
    commit_ok(st);
    ops->close(st);

    /* 1) each child names its parent and key, and every link is passed,
     *    the finished child's too, after the games */
    st = open_ok(path);
    struct seen s;
    struct wrd_store_loader l = loader_of(&s, 0);
    assert_int_equal(ops->load(st, &l, err, sizeof err), 0);
    expect_text(&s,
        "game g-p campaign null [] {\"spectators\":true} 0120 created=1000 listed=1 running - "
        "deadline=0\n"
        "seat g-p x 1111 - -\n"
        "seat g-p o - 3333 -\n"
        "game g-o battle null [] {} 0120 created=3000 listed=1 running - deadline=0\n"
        "parent of g-o: g-p key attack-2\n"
        "seat g-o p1 1111 - -\n"
        "link g-c -> g-p attack-1 battle finished p1\n"
        "link g-o -> g-p attack-2 battle running -\n");
    /* 2) the link survives a status update (its checksum covers it) */
    assert_int_equal(put_status5(st, "g-o", "finished", "p1", 0, 0), 0);
    commit_ok(st);
    ops->close(st);
    st = open_ok(path);
    l = loader_of(&s, 1);
    assert_int_equal(ops->load(st, &l, err, sizeof err), 0);
    assert_non_null(strstr(s.text, "link g-o -> g-p attack-2 battle finished p1\n"));
    ops->close(st);

    /* 3) a version-4 store (the same without seats' mail column) is
     *    migrated: its rows kept, the seats' checksums computed again */
    sqlite3 *db = raw_open(path);
    raw_exec(db, "ALTER TABLE seats DROP COLUMN mail; PRAGMA user_version = 4;");
    sqlite3_close(db);
    st = open_ok(path);
    assert_int_equal(ops->schema_version(st), 5);
    l = loader_of(&s, 1);
    assert_int_equal(ops->load(st, &l, err, sizeof err), 0);
    assert_int_equal(s.games, 3);
    assert_non_null(strstr(s.text, "link g-o -> g-p attack-2 battle finished p1\n"));
    ops->close(st);

    /* 4) a version-3 store (the same without the three columns) is migrated:
     *    its rows kept, its checksums and schema sum computed again */
    db = raw_open(path);
    raw_exec(db, "ALTER TABLE games DROP COLUMN link_key; ALTER TABLE games DROP COLUMN parent;"
                 "ALTER TABLE seats DROP COLUMN mail; PRAGMA user_version = 3;");
    sqlite3_close(db);
    st = open_ok(path);
    assert_int_equal(ops->schema_version(st), 5);
    l = loader_of(&s, 1);
    assert_int_equal(ops->load(st, &l, err, sizeof err), 0);
    assert_int_equal(s.games, 3);
    assert_null(strstr(s.text, "link "));
    assert_null(strstr(s.text, "parent of"));
    put_linked(st, "g-n", 4000, "g-p", "attack-3", "running");
    commit_ok(st);
    ops->close(st);
    st = open_ok(path);
    l = loader_of(&s, 1);
    assert_int_equal(ops->load(st, &l, err, sizeof err), 0);
    assert_non_null(strstr(s.text, "link g-n -> g-p attack-3 battle running -\n"));
    ops->close(st);

    /* 5) a child whose parent is not stored: damaged, nothing passed */
    path_of(path, sizeof path, "orphan.db");
    st = open_ok(path);
    put_linked(st, "g-orphan", 5000, "g-gone", "attack-1", "running");
    commit_ok(st);
    ops->close(st);
    st = open_ok(path);
    l = loader_of(&s, 1);
    int rc = ops->load(st, &l, err, sizeof err);
    ops->close(st);
    assert_int_equal(rc, WRD_STORE_DAMAGED);
    if (strstr(err, "game g-orphan names the parent g-gone") == NULL)
        fail_msg("%s", err);
    assert_int_equal(s.games, 0);
}

/* SQLite's own check at open: quick_check, or integrity_check on demand. */
static void test_sqlite_check_at_open(void **state)
{
    (void)state;
    char base[300], path[300], err[512];
    path_of(base, sizeof base, "g.db");
    make_base(base);
    /* 1) a good store passes both */
    struct wrd_store *st = NULL;
    assert_int_equal(ops->open(&st, base, WRD_STORE_CHECK_FULL, err, sizeof err), 0);
    ops->close(st);
    /* 2) a b-tree page with an invalid type: refused by each, named */
    sqlite3 *db = raw_open(base);
    int64_t root = atoll(raw_text(db, "SELECT rootpage FROM sqlite_schema WHERE name = 'seats'"));
    int64_t page = atoll(raw_text(db, "PRAGMA page_size"));
    sqlite3_close(db);
    assert_true(root > 1 && page >= 512);
    path_of(path, sizeof path, "g-damaged.db");
    copy_file(base, path);
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, (long)((root - 1) * page), SEEK_SET), 0);
    assert_int_equal(fputc(0x07, f), 0x07);
    fclose(f);
    static const struct { int row, flags; const char *prefix; } checks[] = {
        { 3, WRD_STORE_CHECK_QUICK, "quick_check: " },
        { 4, WRD_STORE_CHECK_FULL, "integrity_check: " },
    };
    for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++) {
        int rc = ops->open(&st, path, checks[i].flags, err, sizeof err);
        if (rc != WRD_STORE_DAMAGED || strncmp(err, checks[i].prefix, strlen(checks[i].prefix)))
            fail_msg("row %d: %d \"%s\", want %d \"%s...\"", checks[i].row, rc, err,
                     WRD_STORE_DAMAGED, checks[i].prefix);
    }
}

/* Reads and writes of an open store check the rows they touch. */
static void test_reads_and_writes_check_rows(void **state)
{
    (void)state;
    char path[300], err[512];
    path_of(path, sizeof path, "f.db");
    make_base(path);
    struct wrd_store *st = open_ok(path);
    sqlite3 *db = raw_open(path);
    raw_exec(db, "UPDATE commands SET events = '[1]' WHERE game = 'g-a' AND version = 3;"
                 "UPDATE snapshots SET state = '{}';"
                 "UPDATE seats SET webhook = 'http://x/' WHERE game = 'g-c' AND seat = 'o';"
                 "UPDATE games SET deadline_at = 7 WHERE id = 'g-b'");
    /* 1) read_game: damaged, nothing passed */
    struct seen s;
    struct wrd_store_loader l = loader_of(&s, 0);
    assert_int_equal(ops->read_game(st, "g-a", &l, err, sizeof err), WRD_STORE_DAMAGED);
    assert_non_null(strstr(err, "row (game g-a, version 3): the checksum"));
    assert_int_equal(s.games + s.seats + s.commands, 0);
    /* 2) the listing and the snapshot */
    struct page p;
    memset(&p, 0, sizeof p);
    struct wrd_finished_query q = { NULL, 0, 10, NULL, NULL };
    assert_int_equal(ops->list_finished(st, &q, page_row, &p, err, sizeof err), 1);
    raw_exec(db, "UPDATE games SET result = 'o' WHERE id = 'g-a'");
    assert_int_equal(ops->list_finished(st, &q, page_row, &p, err, sizeof err),
                     WRD_STORE_DAMAGED);
    assert_non_null(strstr(err, "table games, row (id g-a): the checksum"));
    char *snap = NULL;
    int64_t v;
    assert_int_equal(ops->latest_snapshot(st, "g-a", &v, &snap, err, sizeof err),
                     WRD_STORE_DAMAGED);
    assert_null(snap);
    /* 3) an update never covers damage with a fresh checksum */
    struct wrd_seat_row o = { "g-c", "o", TOKEN_O, NULL, NULL, NULL };
    assert_int_equal(ops->update_seat(st, &o), -1);
    assert_int_not_equal(ops->commit(st, err, sizeof err), 0);
    assert_int_equal(put_status5(st, "g-b", "finished", "x", 0, 2), -1);
    assert_int_not_equal(ops->commit(st, err, sizeof err), 0);
    /* 4) g-b's other rows are still good: read_game says which row is not */
    l = loader_of(&s, 0);
    assert_int_equal(ops->read_game(st, "g-b", &l, err, sizeof err), WRD_STORE_DAMAGED);
    assert_non_null(strstr(err, "table games, row (id g-b)"));
    sqlite3_close(db);
    ops->close(st);
    /* 5) and the whole store is refused at the next start */
    st = open_ok(path);
    l = loader_of(&s, 1);
    assert_int_equal(ops->load(st, &l, err, sizeof err), WRD_STORE_DAMAGED);
    assert_int_equal(s.games, 0);
    ops->close(st);
}

#define RS_KNOWN 0x45e2e2aa1da6b122

/* The checksum tells apart what it must (one changed word always). */
static void test_rowsum(void **state)
{
    (void)state;
    static const struct {
        int row;
        const char *a, *b;
    } pairs[] = {
        { 1, "ab", "ac" }, { 2, "", "\x01" }, { 3, "abcdefgh", "abcdefgi" },
        { 4, "abcdefghi", "abcdefghj" }, { 5, "x", "x " },
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        struct rowsum x, y;
        rs_init(&x, T_GAMES);
        rs_init(&y, T_GAMES);
        rs_text(&x, pairs[i].a);
        rs_text(&y, pairs[i].b);
        if (rs_final(&x) == rs_final(&y))
            fail_msg("row %d: \"%s\" and \"%s\" share a checksum", pairs[i].row, pairs[i].a,
                     pairs[i].b);
    }
    /* 6) NULL, "" and 0; 7) "ab","c" and "a","bc"; 8) the table */
    struct rowsum n, e, z;
    rs_init(&n, T_SEATS);
    rs_init(&e, T_SEATS);
    rs_init(&z, T_SEATS);
    rs_null(&n);
    rs_text(&e, "");
    rs_int(&z, 0);
    assert_true(rs_final(&n) != rs_final(&e) && rs_final(&e) != rs_final(&z) &&
                rs_final(&n) != rs_final(&z));
    struct rowsum p, q;
    rs_init(&p, T_SEATS);
    rs_init(&q, T_SEATS);
    rs_text(&p, "ab");
    rs_text(&p, "c");
    rs_text(&q, "a");
    rs_text(&q, "bc");
    assert_true(rs_final(&p) != rs_final(&q));
    rs_init(&p, T_SEATS);
    rs_init(&q, T_COMMANDS);
    assert_true(rs_final(&p) != rs_final(&q));
    /* 9) a fixed value: the checksums of stored rows must not change from one
     * build to the next (this one was computed when the function was written) */
    rs_init(&p, T_COMMANDS);
    rs_text(&p, "g-a");
    rs_int(&p, 1);
    assert_int_equal(rs_final(&p), RS_KNOWN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rowsum),
        cmocka_unit_test_setup_teardown(test_write_and_read_back, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failed_commit_rolls_back, setup, teardown),
        cmocka_unit_test_setup_teardown(test_one_store_per_database, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reads_while_writing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_list_finished_pages, setup, teardown),
        cmocka_unit_test_setup_teardown(test_migrate_from_v2, setup, teardown),
        cmocka_unit_test_setup_teardown(test_damage_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_links, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reads_and_writes_check_rows, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sqlite_check_at_open, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
