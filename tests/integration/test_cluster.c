#define _GNU_SOURCE
/*
 * test_cluster.c - several warroomd on one PostgreSQL store (--cluster):
 * commands forwarded to the process that owns their game, spectators on
 * every process kept in step, a killed owner's game taken over, and the
 * refusals (--cluster on SQLite; a lone server beside a cluster); and the
 * PostgreSQL store's commit off the loop thread, and a game's lock never
 * on it (a game created, or read from the store, while a commit waits).
 *
 * PostgreSQL only: it needs WT_STORE_URL or WT_STORE_URL_FILE (pgdb.h) and
 * fails without them. The servers of one test share the database of the
 * first one started (wt_server_start makes one per server; the others'
 * are given the first's with a later --db).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "pgdb.h"
#include "proc.h"
#include "wsclient.h"

#ifndef WARROOMD_BIN
#error "WARROOMD_BIN must be defined by the build"
#endif

#define T 10000
#define NPROC 3

static const char *str(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* The sweep's period, for every server a test starts: --game-idle-ms,
 * whose half it is (NULL: the default, a minute). */
static const char *idle_ms;

/* n servers with --cluster on one database. */
static void start_cluster(struct wt_server *s, int n)
{
    const char *base = wt_pg_base();
    if (base == NULL || base[0] == '\0')
        fail_msg("test_cluster runs on PostgreSQL: set WT_STORE_URL or WT_STORE_URL_FILE");
    const char *const first[] = { "--cluster", "--log-level", "info", "--game-idle-ms",
                                  idle_ms ? idle_ms : "600000", NULL };
    assert_int_equal(wt_server_start(&s[0], first), 0);
    for (int i = 1; i < n; i++) {
        const char *const more[] = { "--cluster", "--log-level", "info", "--db", s[0].db,
                                     "--game-idle-ms", idle_ms ? idle_ms : "600000", NULL };
        assert_int_equal(wt_server_start(&s[i], more), 0);
    }
}

static void restart(struct wt_server *s, const struct wt_server *first)
{
    const char *const more[] = { "--cluster", "--log-level", "info", "--db", first->db, NULL };
    assert_int_equal(wt_server_restart(s, more), 0);
}

/* Stop every live server cleanly (SIGTERM, exit 0), then clean up (the
 * first last: its database is everyone's). */
static void stop_cluster(struct wt_server *s, int n)
{
    for (int i = n - 1; i >= 0; i--) {
        if (s[i].pid > 0) {
            int status = wt_server_stop(&s[i], SIGTERM, 30000);
            if (!(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0))
                fail_msg("server %d did not stop cleanly (status %d)", i, status);
        }
    }
    for (int i = n - 1; i >= 0; i--)
        wt_server_cleanup(&s[i]);
}

struct game {
    char id[32], token_x[80], token_o[80];
};

/* x creates a tictactoe game on cx (its process owns it), o claims its
 * seat there; both leave so that the seats can join anywhere. A deadline
 * of deadline_s seconds a move when not 0. */
static void new_game(struct wt_client *cx, struct wt_client *co, struct game *g, int deadline_s)
{
    json_t *options = json_pack("{s:b}", "spectators", 1);
    if (deadline_s)
        json_object_set_new(options, "deadline_seconds", json_integer(deadline_s));
    wt_send(cx, "{s:s, s:s, s:s, s:o}", "type", "create", "ruleset", "tictactoe", "seat", "x",
            "options", options);
    json_t *c = wt_expect(cx, "created", T);
    assert_non_null(c);
    snprintf(g->id, sizeof g->id, "%s", str(c, "game"));
    snprintf(g->token_x, sizeof g->token_x, "%s", str(c, "token"));
    wt_send(co, "{s:s, s:s}", "type", "claim", "invite",
            str(json_object_get(c, "invites"), "o"));
    json_decref(c);
    c = wt_expect(co, "claimed", T);
    assert_non_null(c);
    snprintf(g->token_o, sizeof g->token_o, "%s", str(c, "token"));
    json_decref(c);
}

static void join(struct wt_client *c, const char *game, const char *token)
{
    if (token)
        wt_send(c, "{s:s, s:s, s:s}", "type", "join", "game", game, "token", token);
    else
        wt_send(c, "{s:s, s:s, s:b}", "type", "join", "game", game, "spectate", 1);
    json_t *st = wt_expect(c, "state", T);
    if (st == NULL) {
        json_t *e = wt_expect(c, "error", 0);
        char *t = e ? json_dumps(e, JSON_COMPACT) : NULL;
        fail_msg("%s could not join %s: %s", c->name, game, t ? t : "no answer");
    }
    json_decref(st);
}

/* c marks cell with seq; the ack must come, at version. */
static void mark(struct wt_client *c, const char *game, int seq, int cell, long long version)
{
    wt_send(c, "{s:s, s:s, s:i, s:{s:s, s:i}}", "type", "command", "game", game, "seq", seq,
            "cmd", "type", "mark", "cell", cell);
    json_t *ack = wt_expect(c, "ack", T);
    if (ack == NULL)
        fail_msg("%s: the move to %d (seq %d) was not acknowledged", c->name, cell, seq);
    assert_int_equal(json_integer_value(json_object_get(ack, "version")), version);
    json_decref(ack);
}

/* The public state's text as a fresh spectator of port sees it. */
static char *fresh_view(int port, const char *game)
{
    struct wt_client v;
    assert_int_equal(wt_open(&v, "fresh", port), 0);
    join(&v, game, NULL);
    char *t = json_dumps(v.state, JSON_COMPACT | JSON_SORT_KEYS);
    wt_close(&v);
    return t;
}

static void same_state(struct wt_client *c, int port, const char *game)
{
    char *mine = json_dumps(c->state, JSON_COMPACT | JSON_SORT_KEYS);
    char *fresh = fresh_view(port, game);
    if (strcmp(mine, fresh) != 0)
        fail_msg("%s's state differs from a fresh spectator's on port %d:\n%s\n%s", c->name,
                 port, mine, fresh);
    free(mine);
    free(fresh);
}

/* --- refusals ------------------------------------------------------------------------ */

/* warroomd with args (NULL-terminated, after argv[0]); its exit status,
 * its stderr into err. */
static int run_warroomd(const char *const *args, char *err, size_t cap)
{
    int pipefd[2];
    assert_int_equal(pipe(pipefd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        const char *argv[32] = { WARROOMD_BIN };
        int n = 1;
        while (args[n - 1] && n < 31) {
            argv[n] = args[n - 1];
            n++;
        }
        argv[n] = NULL;
        dup2(pipefd[1], 2);
        close(pipefd[0]);
        execv(WARROOMD_BIN, (char *const *)argv);
        _exit(127);
    }
    wt_track_child(pid, 1, SIGKILL);
    close(pipefd[1]);
    size_t len = 0;
    ssize_t r;
    struct pollfd p = { pipefd[0], POLLIN, 0 };
    while (len + 1 < cap && poll(&p, 1, T) == 1 && (r = read(pipefd[0], err + len,
                                                             cap - 1 - len)) > 0)
        len += (size_t)r;
    err[len] = '\0';
    close(pipefd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    wt_track_child(pid, 0, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* --cluster wants a store several servers share: SQLite is refused at
 * start (exit 2, saying so), and a lone server is refused on a database a
 * cluster uses (exit 6, locked), while a second cluster member is not. */
static void test_refusals(void **state)
{
    (void)state;
    char err[2048];
    char dir[] = "/tmp/wt-cluster-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char db[300];
    snprintf(db, sizeof db, "%s/x.db", dir);
    const char *const sqlite[] = { "--cluster", "--db", db, "--listen", "127.0.0.1:0", NULL };
    assert_int_equal(run_warroomd(sqlite, err, sizeof err), 2);
    assert_non_null(strstr(err, "--cluster needs"));
    unlink(db);
    rmdir(dir);

    struct wt_server s[1];
    start_cluster(s, 1);
    const char *const lone[] = { "--db", s[0].db, "--listen", "127.0.0.1:0", NULL };
    assert_int_equal(run_warroomd(lone, err, sizeof err), 6);
    stop_cluster(s, 1);
}

/* --- play across processes ----------------------------------------------------------- */

/* A game created on process 0 (its owner) is played by x on 0 and o on 1
 * (every o command forwarded), watched from 1 and 2; the spectators see
 * each version and end as a fresh spectator of the owner sees the game.
 * Then its owner is SIGKILLed: x moves to process 2 and re-sends its last
 * command with its seq (answered again, not applied twice); x's next
 * command is answered (the game taken over by 1 or 2), the spectators
 * follow, and x wins. */
static void test_forward_and_takeover(void **state)
{
    (void)state;
    struct wt_server s[NPROC];
    start_cluster(s, NPROC);
    struct wt_client x, o, o1, w1, w2;
    assert_int_equal(wt_open(&x, "x@0", s[0].port), 0);
    assert_int_equal(wt_open(&o, "o@0", s[0].port), 0);
    struct game g;
    new_game(&x, &o, &g, 0);
    wt_close(&o);
    assert_int_equal(wt_metric(s[0].port, "warroom_games_owned"), 1);
    assert_int_equal(wt_open(&o1, "o@1", s[1].port), 0);
    join(&o1, g.id, g.token_o);
    assert_int_equal(wt_open(&w1, "spectator@1", s[1].port), 0);
    join(&w1, g.id, NULL);
    assert_int_equal(wt_open(&w2, "spectator@2", s[2].port), 0);
    join(&w2, g.id, NULL);
    assert_int_equal(wt_metric(s[1].port, "warroom_games_owned"), 0);

    /* x 0, o 3, x 1, o 4: o's commands go through process 1 to process 0 */
    mark(&x, g.id, 1, 0, 1);
    mark(&o1, g.id, 1, 3, 2);
    mark(&x, g.id, 2, 1, 3);
    mark(&o1, g.id, 2, 4, 4);
    assert_true(wt_metric(s[1].port, "warroom_cluster_forwards_total") >= 2);
    for (struct wt_client *w = &w1; w; w = w == &w1 ? &w2 : NULL) {
        if (wt_wait_version(w, 4, T) != 0)
            fail_msg("%s stayed at version %lld", w->name, w->version);
        assert_int_equal(w->bad_patches, 0);
        same_state(w, s[0].port, g.id);
    }
    /* Every process gets the two forwards and the two replies (process 2
     * before the note of version 4, sent in the transaction of the second
     * reply); each reads only those addressed to it: the owner the
     * forwards, process 1 the replies, and process 2 (a copy, which sent
     * nothing) none of them. */
    assert_true(wt_metric(s[2].port, "warroom_cluster_notes_total") >= 4);
    assert_int_equal(wt_metric(s[2].port, "warroom_cluster_notes_read_total"), 0);
    assert_true(wt_metric(s[0].port, "warroom_cluster_notes_read_total") >= 2);
    assert_true(wt_metric(s[1].port, "warroom_cluster_notes_read_total") >= 2);
    /* a refused command of o's is refused by the owner, answered on 1 */
    wt_send(&o1, "{s:s, s:s, s:i, s:{s:s, s:i}}", "type", "command", "game", g.id, "seq", 3,
            "cmd", "type", "mark", "cell", 0);
    json_t *e = wt_expect(&o1, "error", T);
    assert_non_null(e);
    json_decref(e);

    /* the owner dies */
    assert_int_equal(wt_server_stop(&s[0], SIGKILL, T) >= 0, 1);
    s[0].pid = 0;
    wt_close(&x);
    /* x goes to process 2 and re-sends its seq 2 (acked at version 3):
     * answered again, nothing applied */
    struct wt_client x2;
    assert_int_equal(wt_open(&x2, "x@2", s[2].port), 0);
    join(&x2, g.id, g.token_x);
    assert_int_equal(x2.version, 4);
    mark(&x2, g.id, 2, 1, 3);
    /* x moves: the game is taken over by 1 or 2; then o, then x wins */
    mark(&x2, g.id, 3, 8, 5);
    assert_int_equal(wt_metric(s[1].port, "warroom_cluster_takeovers_total") +
                         wt_metric(s[2].port, "warroom_cluster_takeovers_total"), 1);
    mark(&o1, g.id, 4, 6, 6);
    mark(&x2, g.id, 4, 2, 7);
    for (struct wt_client *w = &w1; w; w = w == &w1 ? &w2 : NULL) {
        if (wt_wait_version(w, 7, T) != 0)
            fail_msg("%s stayed at version %lld after the takeover", w->name, w->version);
        assert_int_equal(w->bad_patches, 0);
        same_state(w, s[1].port, g.id);
        same_state(w, s[2].port, g.id);
    }
    /* the killed process comes back: it holds nothing, and serves the game */
    restart(&s[0], &s[0]);
    char *back = fresh_view(s[0].port, g.id);
    char *now = json_dumps(w1.state, JSON_COMPACT | JSON_SORT_KEYS);
    assert_string_equal(back, now);
    free(back);
    free(now);
    wt_close(&x2);
    wt_close(&o1);
    wt_close(&w1);
    wt_close(&w2);
    stop_cluster(s, NPROC);
}

/* A copy behind what its client saw: a client that moved from another
 * process (here: watched the owner's commit elsewhere) asks a copy whose
 * notes are late (WARROOM_TEST_NOTE_DELAY_MS) to sync from a version the
 * copy has not heard of. The copy reads the store first: it answers with
 * the patch and `synced` at that version, never with an older state. */
static void test_sync_on_a_late_copy(void **state)
{
    (void)state;
    struct wt_server s[2];
    setenv("WARROOM_TEST_NOTE_DELAY_MS", "1500", 1);
    start_cluster(s, 2);
    unsetenv("WARROOM_TEST_NOTE_DELAY_MS");
    struct wt_client x, o, w;
    assert_int_equal(wt_open(&x, "x@0", s[0].port), 0);
    assert_int_equal(wt_open(&o, "o@0", s[0].port), 0);
    struct game g;
    new_game(&x, &o, &g, 0);
    assert_int_equal(wt_open(&w, "spectator@1", s[1].port), 0);
    join(&w, g.id, NULL);
    assert_int_equal(w.version, 0);
    mark(&x, g.id, 1, 4, 1);
    /* the owner has committed version 1; the copy's note comes 1.5 s late */
    wt_send(&w, "{s:s, s:s, s:i, s:s}", "type", "sync", "game", g.id, "since", 1, "id", "s1");
    json_t *a = NULL;
    while ((a = wt_next(&w, T)) != NULL && str(a, "id") == NULL)
        json_decref(a);
    if (a == NULL)
        fail_msg("the sync was not answered");
    long long v = json_integer_value(json_object_get(a, "version"));
    if (strcmp(str(a, "type"), "synced") != 0 || v != 1)
        fail_msg("a sync from version 1 was answered with a %s at version %lld", str(a, "type"),
                 v);
    json_decref(a);
    /* the copy's patch to version 1 follows (it was not owed to the sync) */
    if (wt_wait_version(&w, 1, T) != 0)
        fail_msg("the spectator stayed at version %lld", w.version);
    assert_int_equal(w.bad_patches, 0);
    same_state(&w, s[0].port, g.id);
    wt_close(&x);
    wt_close(&o);
    wt_close(&w);
    stop_cluster(s, 2);
}

/* The next answer (ack or error) c is sent, skipping the rest; its type
 * is expected, with seq and (for an ack) version. */
static void next_answer(struct wt_client *c, const char *type, int seq, long long version)
{
    json_t *a;
    while ((a = wt_next(c, T)) != NULL && strcmp(str(a, "type"), "ack") != 0 &&
           strcmp(str(a, "type"), "error") != 0)
        json_decref(a);
    if (a == NULL)
        fail_msg("%s: no answer to seq %d", c->name, seq);
    char *t = json_dumps(a, JSON_COMPACT);
    if (strcmp(str(a, "type"), type) != 0 || json_integer_value(json_object_get(a, "seq")) != seq ||
        (version >= 0 && json_integer_value(json_object_get(a, "version")) != version))
        fail_msg("%s: wanted the %s of seq %d (version %lld), had %s", c->name, type, seq,
                 version, t);
    free(t);
    json_decref(a);
}

/* /metrics answers (-1: no answer within 5 s, a failure) until name is want. */
static void metric_reaches(int port, const char *name, long long want)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long long v;
    do {
        v = wt_metric(port, name);
        if (v < 0)
            fail_msg("the server did not answer /metrics");
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while (v != want && (t.tv_sec - t0.tv_sec) * 1000 < T);
    assert_int_equal(v, want);
}

/* Several forwards of one game in flight at once, from two seats on a
 * process that does not own it, whose notes come late (so the answers
 * wait for the copy): x sends seq 1 (accepted) and seq 2 (refused: o's
 * turn) back to back, then o its seq 1. Each answer goes to its own
 * client, x's in the order x sent them, at the version its command made;
 * the copy's spectator ends as the owner's. */
static void test_forwards_in_flight(void **state)
{
    (void)state;
    struct wt_server s[2];
    setenv("WARROOM_TEST_NOTE_DELAY_MS", "600", 1);
    start_cluster(s, 2);
    unsetenv("WARROOM_TEST_NOTE_DELAY_MS");
    struct wt_client x, o, x1, o1, w;
    assert_int_equal(wt_open(&x, "x@0", s[0].port), 0);
    assert_int_equal(wt_open(&o, "o@0", s[0].port), 0);
    struct game g;
    new_game(&x, &o, &g, 0);
    wt_close(&x);
    wt_close(&o);
    assert_int_equal(wt_open(&x1, "x@1", s[1].port), 0);
    join(&x1, g.id, g.token_x);
    assert_int_equal(wt_open(&o1, "o@1", s[1].port), 0);
    join(&o1, g.id, g.token_o);
    assert_int_equal(wt_open(&w, "spectator@1", s[1].port), 0);
    join(&w, g.id, NULL);
    long long before = wt_metric(s[1].port, "warroom_cluster_forwards_total");
    wt_send(&x1, "{s:s, s:s, s:i, s:{s:s, s:i}}", "type", "command", "game", g.id, "seq", 1,
            "cmd", "type", "mark", "cell", 0);
    wt_send(&x1, "{s:s, s:s, s:i, s:{s:s, s:i}}", "type", "command", "game", g.id, "seq", 2,
            "cmd", "type", "mark", "cell", 1);
    /* x's two are on their way to the owner, unanswered (well within the
     * notes' delay), before o's is sent */
    metric_reaches(s[1].port, "warroom_cluster_forwards_total", before + 2);
    wt_send(&o1, "{s:s, s:s, s:i, s:{s:s, s:i}}", "type", "command", "game", g.id, "seq", 1,
            "cmd", "type", "mark", "cell", 4);
    next_answer(&x1, "ack", 1, 1);
    next_answer(&x1, "error", 2, -1);
    next_answer(&o1, "ack", 1, 2);
    assert_true(wt_metric(s[1].port, "warroom_cluster_forwards_total") - before >= 3);
    if (wt_wait_version(&w, 2, T) != 0)
        fail_msg("the spectator stayed at version %lld", w.version);
    assert_int_equal(w.bad_patches, 0);
    same_state(&w, s[0].port, g.id);
    /* the game plays on from there through the copy */
    mark(&x1, g.id, 3, 8, 3);
    wt_close(&x1);
    wt_close(&o1);
    wt_close(&w);
    stop_cluster(s, 2);
}

/* A claim works on any process: by game and seat on a process holding a
 * copy of the game (passed to its owner, which starts the game: the copy's
 * spectators see it start), and by invite on a process that has never seen
 * the game (sent to every process, addressed by the invite's hash: only the
 * owner reads it, and answers). The claimers then
 * play from where they claimed. A webhook is the owner's to set: asked of
 * another process, it is refused with owned_elsewhere. */
static void test_claim_anywhere(void **state)
{
    (void)state;
    struct wt_server s[NPROC];
    start_cluster(s, NPROC);
    struct wt_client a, w, b, c;
    assert_int_equal(wt_open(&a, "a@0", s[0].port), 0);
    assert_int_equal(wt_open(&w, "spectator@1", s[1].port), 0);
    assert_int_equal(wt_open(&b, "b@1", s[1].port), 0);
    assert_int_equal(wt_open(&c, "c@2", s[2].port), 0);
    /* 1) open seats, claimed by game and seat on process 1 */
    wt_send(&a, "{s:s, s:s, s:s, s:{s:b, s:b}}", "type", "create", "ruleset", "tictactoe",
            "seat", "x", "options", "spectators", 1, "open_seats", 1);
    json_t *cr = wt_expect(&a, "created", T);
    assert_non_null(cr);
    char open_id[32];
    snprintf(open_id, sizeof open_id, "%s", str(cr, "game"));
    json_decref(cr);
    join(&w, open_id, NULL);
    wt_send(&b, "{s:s, s:s, s:s}", "type", "claim", "game", open_id, "seat", "o");
    json_t *cl = wt_expect(&b, "claimed", T);
    if (cl == NULL)
        fail_msg("a claim on a process that does not own the game was not answered");
    assert_string_equal(str(cl, "seat"), "o");
    json_decref(cl);
    json_t *st = wt_expect(&w, "state", T);        /* the start, on process 1 */
    assert_non_null(st);
    while (st && strcmp(str(st, "status"), "running") != 0) {
        json_decref(st);
        st = wt_expect(&w, "state", T);
    }
    if (st == NULL)
        fail_msg("the spectator on process 1 did not see the game start");
    json_decref(st);
    mark(&a, open_id, 1, 4, 1);
    mark(&b, open_id, 1, 0, 2);
    if (wt_wait_version(&w, 2, T) != 0)
        fail_msg("the spectator stayed at version %lld", w.version);
    same_state(&w, s[0].port, open_id);
    /* 2) an invite claimed on process 2, which holds no copy of the game:
     * its forward, addressed by the invite's hash, is read by the owner
     * only, not by process 1 */
    long long read1 = wt_metric(s[1].port, "warroom_cluster_notes_read_total");
    long long read0 = wt_metric(s[0].port, "warroom_cluster_notes_read_total");
    assert_true(read1 >= 0 && read0 >= 0);
    wt_send(&a, "{s:s, s:s, s:s}", "type", "create", "ruleset", "tictactoe", "seat", "x");
    cr = wt_expect(&a, "created", T);
    assert_non_null(cr);
    char inv_id[32];
    snprintf(inv_id, sizeof inv_id, "%s", str(cr, "game"));
    wt_send(&c, "{s:s, s:s}", "type", "claim", "invite",
            str(json_object_get(cr, "invites"), "o"));
    json_decref(cr);
    cl = wt_expect(&c, "claimed", T);
    if (cl == NULL)
        fail_msg("an invite claimed on another process was not answered");
    assert_string_equal(str(cl, "game"), inv_id);
    json_decref(cl);
    st = wt_expect(&c, "state", T);
    assert_non_null(st);
    json_decref(st);
    mark(&a, inv_id, 2, 0, 1);
    mark(&c, inv_id, 1, 4, 2);
    assert_true(wt_metric(s[0].port, "warroom_cluster_notes_read_total") > read0);
    assert_int_equal(wt_metric(s[1].port, "warroom_cluster_notes_read_total"), read1);
    /* 3) a webhook asked of a process that does not own the game */
    wt_send(&c, "{s:s, s:s, s:s}", "type", "notify", "game", inv_id, "webhook",
            "http://example.com/hook");
    json_t *e = wt_expect(&c, "error", T);
    assert_non_null(e);
    assert_string_equal(str(e, "code"), "owned_elsewhere");
    json_decref(e);
    wt_close(&a);
    wt_close(&w);
    wt_close(&b);
    wt_close(&c);
    stop_cluster(s, NPROC);
}

/* A game whose owner died with nobody commanding it: its deadline still
 * runs out. The copy on process 1 (a spectator's) finds the game due at
 * its sweep, takes it over, and the seat to move forfeits on time; the
 * spectator sees the end. */
static void test_deadline_taken_over(void **state)
{
    (void)state;
    struct wt_server s[2];
    idle_ms = "400";            /* a sweep every 200 ms */
    start_cluster(s, 2);
    idle_ms = NULL;
    struct wt_client x, o, w;
    struct game g;
    assert_int_equal(wt_open(&x, "x@0", s[0].port), 0);
    assert_int_equal(wt_open(&o, "o@0", s[0].port), 0);
    /* x has 5 s; its owner must die before they run out, or the game ends
     * there and nothing is taken over */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    new_game(&x, &o, &g, 5);
    assert_int_equal(wt_open(&w, "spectator@1", s[1].port), 0);
    join(&w, g.id, NULL);
    assert_int_equal(wt_server_stop(&s[0], SIGKILL, T) >= 0, 1);
    s[0].pid = 0;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    long took_ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
    if (took_ms >= 4500)
        fail_msg("the owner died %ld ms after the game began, too close to x's 5 s: "
                 "the game may have ended there (a machine this slow cannot run this test)",
                 took_ms);
    wt_close(&x);
    wt_close(&o);
    /* x's 5 s run out with its owner gone: the end comes as a state */
    json_t *st = NULL;
    for (int i = 0; i < 10; i++) {
        st = wt_expect(&w, "state", T);
        if (st == NULL || strcmp(str(st, "status"), "finished") == 0)
            break;
        json_decref(st);
        st = NULL;
    }
    if (st == NULL)
        fail_msg("the game of a dead owner did not end on time on process 1");
    json_decref(st);
    assert_int_equal(wt_metric(s[1].port, "warroom_cluster_takeovers_total"), 1);
    wt_close(&w);
    stop_cluster(s, 2);
}

/* --- the commit off the loop ------------------------------------------------------- */

/* A session of the test on the database uri holding table in mode (an open
 * transaction): the server's commits that write it wait until COMMIT. */
static PGconn *hold_table(const char *uri, const char *table, const char *mode)
{
    PGconn *db = PQconnectdb(uri);
    assert_int_equal(PQstatus(db), CONNECTION_OK);
    PQclear(PQexec(db, "BEGIN"));
    char sql[128];
    snprintf(sql, sizeof sql, "LOCK TABLE %s IN %s MODE", table, mode);
    PGresult *r = PQexec(db, sql);
    assert_int_equal(PQresultStatus(r), PGRES_COMMAND_OK);
    PQclear(r);
    return db;
}

/* While PostgreSQL cannot finish a commit (the commands table locked by
 * another session), the server's loop goes on (it answers /metrics), and
 * the command waiting for the commit is not acknowledged; once the lock
 * goes, the ack comes, and the command is in the store. */
static void test_commit_off_loop(void **state)
{
    (void)state;
    struct wt_server s[1];
    start_cluster(s, 1);
    struct wt_client x, o;
    assert_int_equal(wt_open(&x, "x", s[0].port), 0);
    assert_int_equal(wt_open(&o, "o", s[0].port), 0);
    struct game g;
    new_game(&x, &o, &g, 0);
    join(&o, g.id, g.token_o);
    mark(&x, g.id, 1, 0, 1);
    PGconn *db = hold_table(s[0].db, "commands", "ACCESS EXCLUSIVE");
    wt_send(&o, "{s:s, s:s, s:i, s:{s:s, s:i}}", "type", "command", "game", g.id, "seq", 1,
            "cmd", "type", "mark", "cell", 4);
    /* the loop answers meanwhile: /metrics (which waits for no commit)
     * says a commit is under way */
    long long held = wt_metric(s[0].port, "warroom_games");
    if (held != 1)
        fail_msg("the server did not answer /metrics while a commit waited (%lld)", held);
    /* ...and the command is not acknowledged before its commit */
    json_t *early = wt_expect(&o, "ack", 300);
    if (early != NULL)
        fail_msg("a command was acknowledged before its commit");
    PQclear(PQexec(db, "COMMIT"));
    json_t *ack = wt_expect(&o, "ack", T);
    if (ack == NULL)
        fail_msg("the command was not acknowledged once its commit could finish");
    assert_int_equal(json_integer_value(json_object_get(ack, "version")), 2);
    json_decref(ack);
    PGresult *r = PQexec(db, "SELECT count(*) FROM commands");
    assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
    assert_string_equal(PQgetvalue(r, 0, 0), "2");
    PQclear(r);
    PQfinish(db);
    wt_close(&x);
    wt_close(&o);
    stop_cluster(s, 1);
}

/* Until the server's commit waits for the games table (a session holding a
 * lock on it): each look at pg_locks is an answer, within T ms in all. */
static void wait_commit_blocked(PGconn *db)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        PGresult *r = PQexec(db, "SELECT count(*) FROM pg_locks WHERE NOT granted AND"
                                 " relation = 'games'::regclass");
        assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
        int waiting = strcmp(PQgetvalue(r, 0, 0), "0") != 0;
        PQclear(r);
        if (waiting)
            return;
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((t.tv_sec - t0.tv_sec) * 1000 > T)
            fail_msg("the server's commit did not come to wait for the games table");
    }
}

/* Games created while a commit waits (a session of the test holds the
 * games table): the loop still answers, since a new game's lock goes with
 * the batch that stores it (no round trip on the loop, which would wait
 * for the commit under way); once the commit can finish, both games are
 * created, owned here, and their locks are the server's session's. */
static void test_create_off_loop(void **state)
{
    (void)state;
    struct wt_server s[1];
    start_cluster(s, 1);
    struct wt_client a, b;
    assert_int_equal(wt_open(&a, "a", s[0].port), 0);
    assert_int_equal(wt_open(&b, "b", s[0].port), 0);
    PGconn *db = hold_table(s[0].db, "games", "ACCESS EXCLUSIVE");
    /* a's game: its commit waits for the table */
    wt_send(&a, "{s:s, s:s, s:s}", "type", "create", "ruleset", "tictactoe", "seat", "x");
    wait_commit_blocked(db);
    /* b's game while that commit waits; /metrics must answer until the
     * server holds both */
    wt_send(&b, "{s:s, s:s, s:s}", "type", "create", "ruleset", "tictactoe", "seat", "x");
    metric_reaches(s[0].port, "warroom_games", 2);
    /* nothing is acknowledged before its commit */
    json_t *early = wt_expect(&b, "created", 300);
    if (early != NULL)
        fail_msg("a game was acknowledged before its commit");
    PQclear(PQexec(db, "COMMIT"));
    json_t *ca = wt_expect(&a, "created", T), *cb = wt_expect(&b, "created", T);
    if (ca == NULL || cb == NULL)
        fail_msg("the games were not created once their commit could finish");
    json_decref(ca);
    json_decref(cb);
    assert_int_equal(wt_metric(s[0].port, "warroom_games_owned"), 2);
    PGresult *r = PQexec(db, "SELECT count(*) FROM games");
    assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
    assert_string_equal(PQgetvalue(r, 0, 0), "2");
    PQclear(r);
    /* each game's lock, held by the server's session after its commit */
    r = PQexec(db, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND mode ="
                   " 'ExclusiveLock' AND granted AND database = (SELECT oid FROM pg_database"
                   " WHERE datname = current_database())");
    assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
    assert_string_equal(PQgetvalue(r, 0, 0), "2");
    PQclear(r);
    PQfinish(db);
    wt_close(&a);
    wt_close(&b);
    stop_cluster(s, 1);
}

/* A game read from the store while a commit waits (a session holds the
 * games table against writes, not reads): its lock is tried on a worker
 * thread, so the loop still answers; once the commit can finish, the game
 * is owned here. */
static void test_adopt_off_loop(void **state)
{
    (void)state;
    struct wt_server s[2];
    start_cluster(s, 2);
    struct wt_client x, o, a, b;
    assert_int_equal(wt_open(&x, "x", s[0].port), 0);
    assert_int_equal(wt_open(&o, "o", s[0].port), 0);
    struct game g;
    new_game(&x, &o, &g, 0);
    wt_close(&x);
    wt_close(&o);
    /* its owner stops: the game is free, in the store only */
    int status = wt_server_stop(&s[0], SIGTERM, 30000);
    assert_true(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    s[0].pid = 0;
    assert_int_equal(wt_open(&a, "a", s[1].port), 0);
    assert_int_equal(wt_open(&b, "b", s[1].port), 0);
    PGconn *db = hold_table(s[0].db, "games", "EXCLUSIVE");     /* the cluster's database */
    assert_int_equal(wt_metric(s[1].port, "warroom_games"), 0);
    wt_send(&a, "{s:s, s:s, s:s}", "type", "create", "ruleset", "tictactoe", "seat", "x");
    wait_commit_blocked(db);
    /* b's join reads the game from the store (reads pass the lock) */
    wt_send(&b, "{s:s, s:s, s:s}", "type", "join", "game", g.id, "token", g.token_x);
    metric_reaches(s[1].port, "warroom_games", 2);
    PQclear(PQexec(db, "COMMIT"));
    json_t *c = wt_expect(&a, "created", T);
    if (c == NULL)
        fail_msg("the game was not created once its commit could finish");
    json_decref(c);
    json_t *st = wt_expect(&b, "state", T);
    if (st == NULL)
        fail_msg("b did not join the game read from the store");
    json_decref(st);
    metric_reaches(s[1].port, "warroom_games_owned", 2);
    PQfinish(db);
    wt_close(&a);
    wt_close(&b);
    stop_cluster(s, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_forward_and_takeover),
        cmocka_unit_test(test_sync_on_a_late_copy),
        cmocka_unit_test(test_forwards_in_flight),
        cmocka_unit_test(test_claim_anywhere),
        cmocka_unit_test(test_deadline_taken_over),
        cmocka_unit_test(test_commit_off_loop),
        cmocka_unit_test(test_create_off_loop),
        cmocka_unit_test(test_adopt_off_loop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
