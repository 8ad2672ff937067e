#define _GNU_SOURCE
/*
 * test_finished_games.c - finished games leave memory and come back on
 * demand, against the real warroomd:
 *
 *  1. a game played to the end, once its players and spectator have left,
 *     is no longer held (GET /healthz's "games" counts what is in memory),
 *     and is still there for whoever asks: a join reads it back finished
 *     with its last state, an export gives its whole record, the lobby
 *     lists it (from the store) with its result, and its id finds it;
 *  2. requests on one connection are answered in order while a game is
 *     read back (a join then a sync sent together);
 *  3. memory: after 20,000 finished tictactoe games, with every client
 *     gone, the server's resident memory is within 20% of what it was
 *     empty (docs/reliability.md gives the figure);
 *  4. a running game idle for --game-idle with nobody joined leaves memory
 *     too (shelved): the lobby still lists it, from the store, with the
 *     seat it awaits; a seat's token joins it (read back at its version)
 *     and plays on; a restart does not load it, and it is read back again
 *     when asked for;
 *  5. a shelved game with a deadline is read back before it is due: its
 *     seat forfeits on time with nobody connected;
 *  6. warroomd --verify passes the store, and refuses it once a snapshot
 *     no longer matches its game's replay (exit 1) or a row its checksum
 *     (exit 4).
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

#include "proc.h"
#include "wsclient.h"

/* The store's checksum function, to change a row as a bug would (with a
 * checksum that matches), for --verify to find; or, when the tests run on
 * PostgreSQL (pgdb.h), libpq. */
#include "store_sqlite.c"
#include <libpq-fe.h>
#include "pgdb.h"

#ifndef WARROOM_SCENARIO_DIR
#error "WARROOM_SCENARIO_DIR must be defined by the build"
#endif

#define T 10000

/* One address plays every game here: its budgets are lifted. */
static const char *const args[] = {
    "--scenarios", WARROOM_SCENARIO_DIR, "--rate", "1000000", "--address-rate", "100000000",
    "--max-open-per-address", "100000000", "--max-games-per-address", "100000000", NULL
};

static const char *str(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* Games held in memory, from GET /healthz. */
static long games_held(int port)
{
    int status = 0;
    char body[512];
    if (wt_http_get(port, "/healthz", &status, body, sizeof body) != 0 || status != 200)
        fail_msg("/healthz failed (status %d)", status);
    json_t *j = json_loads(body, 0, NULL);
    long n = j ? (long)json_integer_value(json_object_get(j, "games")) : -1;
    json_decref(j);
    return n;
}

/* Stop s with SIGTERM (waiting up to ms), remove its directory: it must
 * have exited 0, a clean shutdown. */
static void stop_cleanly(struct wt_server *s, int ms)
{
    int status = wt_server_stop(s, SIGTERM, ms);
    wt_server_cleanup(s);
    assert_true(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* A server started with extra, and two clients on it, x and o. */
static void start_with_pair(struct wt_server *s, const char *const *extra, struct wt_client *x,
                            struct wt_client *o)
{
    assert_int_equal(wt_server_start(s, extra), 0);
    assert_int_equal(wt_open(x, "x", s->port), 0);
    assert_int_equal(wt_open(o, "o", s->port), 0);
}

static long rss_kb(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    char *text = wt_read_file(path, NULL);
    char *p = text ? strstr(text, "VmRSS:") : NULL;
    long kb = p ? strtol(p + 6, NULL, 10) : -1;
    free(text);
    return kb;
}

/* x wins on the top row: x 0, o 3, x 1, o 4, x 2. */
static const int win[5] = { 0, 3, 1, 4, 2 };

/* n games created by a (x) and claimed by b (o), pipelined; ids into ids. */
static void new_games(struct wt_client *a, struct wt_client *b, int n, char (*ids)[32])
{
    for (int i = 0; i < n; i++)
        wt_send(a, "{s:s, s:s, s:s}", "type", "create", "ruleset", "tictactoe", "seat", "x");
    for (int i = 0; i < n; i++) {
        json_t *c = wt_expect(a, "created", T);
        if (c == NULL)
            fail_msg("game %d not created", i);
        snprintf(ids[i], 32, "%s", str(c, "game"));
        wt_send(b, "{s:s, s:s}", "type", "claim", "invite",
                json_string_value(json_object_get(json_object_get(c, "invites"), "o")));
        json_decref(c);
    }
    for (int i = 0; i < n; i++) {
        json_t *c = wt_expect(b, "claimed", T);
        if (c == NULL)
            fail_msg("game %d not claimed", i);
        json_decref(c);
    }
}

/* Read and drop whatever has come (patches nobody looks at here). */
static void discard(struct wt_client *c)
{
    wt_drain(c, 0);
    for (int i = 0; i < c->nbacklog; i++)
        json_decref(c->backlog[i]);
    c->nbacklog = 0;
}

/* Every game of ids[0..n) played to x's win, a move of all of them at a time. */
static void play_out(struct wt_client *a, struct wt_client *b, int n, char (*ids)[32])
{
    for (int m = 0; m < 5; m++) {
        struct wt_client *p = m % 2 ? b : a;
        for (int i = 0; i < n; i++)
            wt_send(p, "{s:s, s:s, s:i, s:{s:s, s:i}}", "type", "command", "game", ids[i],
                    "seq", m / 2 + 1, "cmd", "type", "mark", "cell", win[m]);
        for (int i = 0; i < n; i++) {
            json_t *ack = wt_expect(p, "ack", T);
            if (ack == NULL)
                fail_msg("move %d of game %d not acknowledged", m, i);
            json_decref(ack);
        }
        /* the patches of all those moves: not needed here */
        discard(a);
        discard(b);
    }
}

static void test_leave_and_come_back(void **state)
{
    (void)state;
    struct wt_server s;
    assert_int_equal(wt_server_start(&s, args), 0);
    struct wt_client a, b, c;
    assert_int_equal(wt_open(&a, "x", s.port), 0);
    assert_int_equal(wt_open(&b, "o", s.port), 0);
    assert_int_equal(wt_open(&c, "spectator", s.port), 0);
    char ids[1][32];
    new_games(&a, &b, 1, ids);
    wt_send(&c, "{s:s, s:s, s:b}", "type", "join", "game", ids[0], "spectate", 1);
    json_decref(wt_expect(&c, "state", T));
    play_out(&a, &b, 1, ids);
    assert_int_equal(wt_wait_version(&c, 5, T), 0);
    json_t *end = json_deep_copy(c.state);
    const char *end_status = str(json_object_get(end, "server"), "status");
    if (end_status == NULL || strcmp(end_status, "finished") != 0)
        fail_msg("the last patch does not say the game is finished");
    assert_int_equal(games_held(s.port), 1);
    /* Everyone leaves: the game leaves memory (by the time `left` comes,
     * the loop iteration that let it go is over). */
    struct wt_client *all[3] = { &a, &b, &c };
    for (int i = 0; i < 3; i++) {
        wt_send(all[i], "{s:s, s:s}", "type", "leave", "game", ids[0]);
        json_decref(wt_expect(all[i], "left", T));
    }
    assert_int_equal(games_held(s.port), 0);
    /* ...and comes back for whoever asks: a join... */
    wt_send(&c, "{s:s, s:s, s:b, s:s}", "type", "join", "game", ids[0], "spectate", 1, "id", "j");
    json_t *st = wt_expect(&c, "state", T);
    assert_non_null(st);
    assert_string_equal(str(st, "status"), "finished");
    assert_int_equal(json_integer_value(json_object_get(st, "version")), 5);
    if (!json_equal(json_object_get(st, "state"), end)) {
        char *x = json_dumps(json_object_get(st, "state"), JSON_COMPACT | JSON_SORT_KEYS);
        char *y = json_dumps(end, JSON_COMPACT | JSON_SORT_KEYS);
        fail_msg("read back: %s\nat the end: %s", x, y);
    }
    json_decref(st);
    assert_int_equal(games_held(s.port), 1);
    /* an export of the whole record (and the seed: the game is over) */
    wt_send(&a, "{s:s, s:s}", "type", "export", "game", ids[0]);
    json_t *rec = wt_expect(&a, "record", T);
    assert_non_null(rec);
    const char *text = str(rec, "record");
    int lines = 0;
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 6);                 /* the header and five commands */
    assert_non_null(strstr(text, "\"seed\""));
    json_decref(rec);
    /* the lobby lists it with its result, read from the store once it
     * has left memory again */
    wt_send(&c, "{s:s, s:s}", "type", "leave", "game", ids[0]);
    json_decref(wt_expect(&c, "left", T));
    assert_int_equal(games_held(s.port), 0);
    wt_send(&a, "{s:s, s:{s:s}}", "type", "list", "filter", "status", "finished");
    json_t *g = wt_expect(&a, "games", T);
    assert_non_null(g);
    json_t *e = json_array_get(json_object_get(g, "games"), 0);
    assert_non_null(e);
    assert_string_equal(str(e, "game"), ids[0]);
    assert_string_equal(str(e, "result"), "x");
    assert_int_equal(json_integer_value(json_object_get(e, "version")), 5);
    json_decref(g);
    /* and by its id (read back for that) */
    wt_send(&a, "{s:s, s:{s:[s]}}", "type", "list", "filter", "games", ids[0]);
    g = wt_expect(&a, "games", T);
    assert_non_null(g);
    assert_int_equal(json_array_size(json_object_get(g, "games")), 1);
    json_decref(g);
    json_decref(end);
    wt_close(&a);
    wt_close(&b);
    wt_close(&c);
    stop_cleanly(&s, 10000);
}

/* A join of a game read back, and a sync sent right behind it on the same
 * connection: the sync is answered after the join's state, as sent. */
static void test_in_order_while_read_back(void **state)
{
    (void)state;
    struct wt_server s;
    struct wt_client a, b;
    start_with_pair(&s, args, &a, &b);
    char ids[1][32];
    new_games(&a, &b, 1, ids);
    play_out(&a, &b, 1, ids);
    wt_close(&a);
    wt_close(&b);
    struct wt_client c;
    assert_int_equal(wt_open(&c, "late", s.port), 0);
    assert_int_equal(games_held(s.port), 0);
    char text[256];
    snprintf(text, sizeof text, "{\"type\":\"join\",\"game\":\"%s\",\"spectate\":true,\"id\":1}",
             ids[0]);
    assert_int_equal(wt_ws_send_text(c.fd, text, strlen(text)), 0);
    snprintf(text, sizeof text, "{\"type\":\"sync\",\"game\":\"%s\",\"since\":5,\"id\":2}",
             ids[0]);
    assert_int_equal(wt_ws_send_text(c.fd, text, strlen(text)), 0);
    json_t *m1 = wt_next(&c, T), *m2 = wt_next(&c, T);
    assert_non_null(m1);
    assert_non_null(m2);
    if (strcmp(str(m1, "type"), "state") != 0 || json_integer_value(json_object_get(m1, "id")) != 1 ||
        strcmp(str(m2, "type"), "synced") != 0 || json_integer_value(json_object_get(m2, "id")) != 2)
        fail_msg("answers out of order: %s (id %lld), then %s (id %lld)", str(m1, "type"),
                 (long long)json_integer_value(json_object_get(m1, "id")), str(m2, "type"),
                 (long long)json_integer_value(json_object_get(m2, "id")));
    json_decref(m1);
    json_decref(m2);
    wt_close(&c);
    stop_cleanly(&s, 10000);
}

#define GAMES 20000
#define BATCH 250

/* One batch of BATCH games, played to the end on fresh connections. */
static void batch(int port)
{
    static char ids[BATCH][32];
    struct wt_client a, b;
    assert_int_equal(wt_open(&a, "x", port), 0);
    assert_int_equal(wt_open(&b, "o", port), 0);
    new_games(&a, &b, BATCH, ids);
    play_out(&a, &b, BATCH, ids);
    wt_close(&a);
    wt_close(&b);
}

/* 20,000 finished games later, with every client gone, the server holds
 * about what it held empty. "Empty" is a server holding no game after it
 * has served one batch: a server just started has not yet paged in the
 * code its first games run, nor grown its allocator's pools to what one
 * batch in play needs (about 4.6 MB more, measured: the figure is in
 * docs/reliability.md); what must not grow is what finished games leave. */
static void test_memory_after_20000_games(void **state)
{
    (void)state;
    /* The store's page cache fills to its bound (--db-cache, 8 MiB by
     * default) as the store grows, whatever the games left: held at its
     * least here, so that what is measured is what the games leave. */
    static const char *const mem_args[] = {
        "--scenarios", WARROOM_SCENARIO_DIR, "--rate", "1000000", "--address-rate", "100000000",
        "--max-open-per-address", "100000000", "--max-games-per-address", "100000000",
        "--db-cache", "1", NULL
    };
    struct wt_server s;
    assert_int_equal(wt_server_start(&s, mem_args), 0);
    long cold = rss_kb(s.pid);
    batch(s.port);
    assert_int_equal(games_held(s.port), 0);
    long empty = rss_kb(s.pid);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int done = 0; done < GAMES; done += BATCH) {
        /* fresh connections for each batch, as real clients come and go */
        batch(s.port);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    /* The last closes are seen by the server once a request after them
     * is answered: ask, then measure. */
    long held = games_held(s.port);
    long after = rss_kb(s.pid);
    print_message("%d finished games in %.1f s: server RSS %ld kB just started, %ld kB "
                  "empty after the first %d games, %ld kB after %d more (%+.1f%%), %ld games "
                  "held\n", GAMES,
                  (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
                  cold, empty, BATCH, after, GAMES, 100.0 * (double)(after - empty) / (double)empty,
                  held);
    assert_int_equal(held, 0);
    if (wt_server_instrumented())
        print_message("the server is instrumented (a wrapper or sanitizers): its memory is "
                      "the instrument's as much as its own, no figure is asserted\n");
    else if (after > empty * 12 / 10)
        fail_msg("after %d finished games the server holds %ld kB, empty it held %ld kB",
                 GAMES, after, empty);
    stop_cleanly(&s, 30000);
}

/* --- running games out of memory when idle -------------------------------------------- */

static const char *const idle_args[] = {
    "--scenarios", WARROOM_SCENARIO_DIR, "--game-idle-ms", "300", NULL
};

/* A number from GET /metrics ("name value" on a line of its own). */
static long long metric(int port, const char *name)
{
    int status = 0;
    static char body[1 << 16];
    if (wt_http_get(port, "/metrics", &status, body, sizeof body) != 0 || status != 200)
        fail_msg("/metrics failed (status %d)", status);
    char key[96];
    snprintf(key, sizeof key, "\n%s ", name);
    const char *p = strstr(body, key);
    if (p == NULL)
        fail_msg("/metrics has no %s", name);
    return strtoll(p + strlen(key), NULL, 10);
}

/* Wait (a bounded poll of /metrics) until metric name reaches at least
 * want; fails after 10 s. */
static void await_metric(int port, const char *name, long long want)
{
    for (int i = 0; i < 500; i++) {
        if (metric(port, name) >= want)
            return;
        poll(NULL, 0, 20);      /* the next look at the counter: a bounded poll */
    }
    fail_msg("%s stayed below %lld", name, want);
}

struct seat_of {
    char game[32], token_x[80], token_o[80];
};

/* A tictactoe game of a (x) and b (o), with options (JSON text or NULL). */
static void new_game(struct wt_client *a, struct wt_client *b, const char *options,
                     struct seat_of *g)
{
    json_t *opts = options ? json_loads(options, 0, NULL) : json_object();
    wt_send(a, "{s:s, s:s, s:s, s:o}", "type", "create", "ruleset", "tictactoe", "seat", "x",
            "options", opts);
    json_t *c = wt_expect(a, "created", T);
    assert_non_null(c);
    snprintf(g->game, sizeof g->game, "%s", str(c, "game"));
    snprintf(g->token_x, sizeof g->token_x, "%s", str(c, "token"));
    wt_send(b, "{s:s, s:s}", "type", "claim", "invite",
            json_string_value(json_object_get(json_object_get(c, "invites"), "o")));
    json_decref(c);
    c = wt_expect(b, "claimed", T);
    assert_non_null(c);
    snprintf(g->token_o, sizeof g->token_o, "%s", str(c, "token"));
    json_decref(c);
}

/* c leaves game; what it was sent of it is dropped. */
static void leave(struct wt_client *c, const char *game)
{
    wt_send(c, "{s:s, s:s}", "type", "leave", "game", game);
    json_decref(wt_expect(c, "left", T));
    discard(c);
}

/* The lobby's entry of game among the running games, or NULL. */
static json_t *running_entry(struct wt_client *c, const char *game)
{
    wt_send(c, "{s:s, s:{s:s}}", "type", "list", "filter", "status", "running");
    json_t *l = wt_expect(c, "games", T);
    assert_non_null(l);
    size_t i;
    json_t *e, *found = NULL;
    json_array_foreach(json_object_get(l, "games"), i, e)
        if (strcmp(str(e, "game"), game) == 0)
            found = json_incref(e);
    json_decref(l);
    return found;
}

static void mark(struct wt_client *c, const char *game, int seq, int cell, long long version)
{
    wt_send(c, "{s:s, s:s, s:i, s:{s:s, s:i}}", "type", "command", "game", game, "seq", seq,
            "cmd", "type", "mark", "cell", cell);
    json_t *ack = wt_expect(c, "ack", T);
    if (ack == NULL)
        fail_msg("the move to %d was not acknowledged", cell);
    assert_int_equal(json_integer_value(json_object_get(ack, "version")), version);
    json_decref(ack);
}

static void test_idle_running_game_shelved(void **state)
{
    (void)state;
    struct wt_server s;
    struct wt_client a, b;
    start_with_pair(&s, idle_args, &a, &b);
    struct seat_of g;
    new_game(&a, &b, NULL, &g);
    mark(&a, g.game, 1, 0, 1);
    /* 1) both seats leave: the game, idle, leaves memory */
    leave(&a, g.game);
    leave(&b, g.game);
    await_metric(s.port, "warroom_games_shelved_total", 1);
    assert_int_equal(games_held(s.port), 0);
    /* 2) the lobby lists it from the store, awaiting o, at version 1 */
    json_t *e = running_entry(&a, g.game);
    if (e == NULL)
        fail_msg("the lobby does not list the shelved game %s", g.game);
    assert_string_equal(str(e, "awaiting"), "o");
    assert_int_equal(json_integer_value(json_object_get(e, "version")), 1);
    assert_true(json_is_integer(json_object_get(e, "last_move_ms")));
    json_decref(e);
    /* 3) o's token joins it, read back at version 1, and o plays on */
    long long reads = metric(s.port, "warroom_games_read_total");
    wt_send(&b, "{s:s, s:s, s:s}", "type", "join", "game", g.game, "token", g.token_o);
    json_t *st = wt_expect(&b, "state", T);
    assert_non_null(st);
    if (json_integer_value(json_object_get(st, "version")) != 1) {
        char *t = json_dumps(st, JSON_COMPACT);
        fail_msg("read back: %s", t);
    }
    json_decref(st);
    assert_int_equal(metric(s.port, "warroom_games_read_total"), reads + 1);
    mark(&b, g.game, 1, 3, 2);
    leave(&b, g.game);
    await_metric(s.port, "warroom_games_shelved_total", 2);
    /* 4) a restart loads none of it; the lobby still lists it; x plays on */
    assert_int_equal(wt_server_stop(&s, SIGTERM, 30000), 0);
    assert_int_equal(wt_server_restart(&s, idle_args), 0);
    assert_int_equal(games_held(s.port), 0);
    wt_close(&a);
    wt_close(&b);
    assert_int_equal(wt_open(&a, "x", s.port), 0);
    e = running_entry(&a, g.game);
    if (e == NULL)
        fail_msg("after the restart, the lobby does not list %s", g.game);
    assert_string_equal(str(e, "awaiting"), "x");
    assert_int_equal(json_integer_value(json_object_get(e, "version")), 2);
    json_decref(e);
    wt_send(&a, "{s:s, s:s, s:s}", "type", "join", "game", g.game, "token", g.token_x);
    json_decref(wt_expect(&a, "state", T));
    assert_int_equal(games_held(s.port), 1);
    mark(&a, g.game, 2, 1, 3);
    wt_close(&a);
    stop_cleanly(&s, 30000);
}

static void test_shelved_game_forfeits_on_time(void **state)
{
    (void)state;
    struct wt_server s;
    struct wt_client a, b;
    start_with_pair(&s, idle_args, &a, &b);
    struct seat_of g;
    /* x has 3 s to move: reminded at 2.4 s, forfeits at 3 s */
    new_game(&a, &b, "{\"deadline_seconds\":3}", &g);
    leave(&a, g.game);
    leave(&b, g.game);
    await_metric(s.port, "warroom_games_shelved_total", 1);
    /* read back before it is due, without anyone asking */
    await_metric(s.port, "warroom_games_read_total", 1);
    /* it ends on time: then finished, it leaves memory again */
    struct wt_client c;
    assert_int_equal(wt_open(&c, "c", s.port), 0);
    json_t *e = NULL;
    for (int i = 0; i < 500; i++) {
        wt_send(&c, "{s:s, s:{s:[s]}}", "type", "list", "filter", "games", g.game);
        json_t *l = wt_expect(&c, "games", T);
        assert_non_null(l);
        e = json_incref(json_array_get(json_object_get(l, "games"), 0));
        json_decref(l);
        if (e && strcmp(str(e, "status"), "finished") == 0)
            break;
        json_decref(e);
        e = NULL;
        poll(NULL, 0, 20);      /* the next look at the lobby: a bounded poll */
    }
    if (e == NULL)
        fail_msg("the shelved game %s did not end on time", g.game);
    assert_string_equal(str(e, "result"), "forfeit");
    json_decref(e);
    wt_close(&a);
    wt_close(&b);
    wt_close(&c);
    stop_cleanly(&s, 30000);
}

/* warroomd --verify on db: its exit status; its stdout into out. */
static int verify(const char *db, char *out, size_t outlen)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s --verify --db '%s' --scenarios '%s' --log-level warn 2>&1",
             WARROOMD_BIN, db, WARROOM_SCENARIO_DIR);
    FILE *f = popen(cmd, "r");
    assert_non_null(f);
    size_t n = fread(out, 1, outlen - 1, f);
    out[n] = '\0';
    int st = pclose(f);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Run sql on the store db of a stopped server: SQLite (with the store's
 * checksum function) or PostgreSQL; it must change one row. */
static void store_exec(const char *db, const char *sql)
{
    if (wt_pg_base() != NULL) {
        PGconn *c = PQconnectdb(db);
        if (PQstatus(c) != CONNECTION_OK)
            fail_msg("%s: %s", db, PQerrorMessage(c));
        PGresult *r = PQexec(c, sql);
        if (PQresultStatus(r) != PGRES_COMMAND_OK || strcmp(PQcmdTuples(r), "1") != 0)
            fail_msg("%s: %s (%s rows)", sql, PQresultErrorMessage(r), PQcmdTuples(r));
        PQclear(r);
        PQfinish(c);
        return;
    }
    sqlite3 *d;
    assert_int_equal(sqlite3_open(db, &d), SQLITE_OK);
    assert_int_equal(sqlite3_create_function(d, "warroom_rowsum", -1, SQLITE_UTF8, NULL,
                                             sql_rowsum, NULL, NULL), SQLITE_OK);
    if (sqlite3_exec(d, sql, NULL, NULL, NULL) != SQLITE_OK || sqlite3_changes(d) != 1)
        fail_msg("%s: %s", sql, sqlite3_errmsg(d));
    sqlite3_close(d);
}

static void test_verify(void **state)
{
    (void)state;
    struct wt_server s;
    struct wt_client a, b;
    start_with_pair(&s, args, &a, &b);
    char ids[3][32];
    new_games(&a, &b, 3, ids);
    play_out(&a, &b, 3, ids);
    wt_close(&a);
    wt_close(&b);
    assert_int_equal(wt_server_stop(&s, SIGTERM, 30000), 0);
    char out[2048];
    /* 1) the store as the server left it */
    int rc = verify(s.db, out, sizeof out);
    if (rc != 0 || strstr(out, "3 games, 15 commands replayed") == NULL)
        fail_msg("--verify: exit %d: %s", rc, out);
    /* 2) a snapshot that no longer matches its replay (on SQLite, its
     *    checksum right) */
    char sql[512];
    int pg = wt_pg_base() != NULL;
    snprintf(sql, sizeof sql, pg ? "UPDATE snapshots SET state = '{\"board\":\"xxx\"}' WHERE"
                                   " game = '%s'"
                                 : "UPDATE snapshots SET state = '{\"board\":\"xxx\"}', rowsum ="
                                   " warroom_rowsum(5, game, version, '{\"board\":\"xxx\"}',"
                                   " full) WHERE game = '%s'", ids[1]);
    store_exec(s.db, sql);
    rc = verify(s.db, out, sizeof out);
    if (rc != 1 || strstr(out, "replay differs from the snapshot") == NULL ||
        strstr(out, ids[1]) == NULL)
        fail_msg("--verify of a changed snapshot: exit %d: %s", rc, out);
    /* 3) damage: on SQLite a row whose checksum does not match; on
     *    PostgreSQL (whose pages carry checksums) a command gone */
    snprintf(sql, sizeof sql, pg ? "DELETE FROM commands WHERE game = '%s' AND version = 2"
                                 : "UPDATE commands SET at = at + 1 WHERE game = '%s' AND"
                                   " version = 2", ids[2]);
    store_exec(s.db, sql);
    rc = verify(s.db, out, sizeof out);
    if (rc != 4 || strstr(out, pg ? "command 2" : "checksum") == NULL)
        fail_msg("--verify of a damaged store: exit %d: %s", rc, out);
    wt_server_cleanup(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_leave_and_come_back),
        cmocka_unit_test(test_in_order_while_read_back),
        cmocka_unit_test(test_memory_after_20000_games),
        cmocka_unit_test(test_idle_running_game_shelved),
        cmocka_unit_test(test_shelved_game_forfeits_on_time),
        cmocka_unit_test(test_verify),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
