#define _GNU_SOURCE
/*
 * test_client.c - the terminal client `warroom` against the real warroomd on
 * 127.0.0.1 (port 0), each player a separate `warroom` process with its own
 * HOME (so its own config file and scenario cache):
 *   - a tictactoe game played to the end with one-shot commands: new, claim,
 *     do (accepted, refused out of turn, refused on a taken cell, refused
 *     once over), status, games, export, --json answers without tokens;
 *   - the config file: created 0600, refused when others may read it;
 *   - Waterloo moves refused locally, before anything is sent, with the same
 *     reason code the server gives for them (the server's rejection counter
 *     shows nothing was sent);
 *   - `wait` returning when the other seat moves, at once when it is already
 *     your decision, with 1 when the game is over, and across a server
 *     restart, saying "reconnected, resynced from version N";
 *   - interactive mode in a terminal (tmux): the board drawn, a refusal
 *     sentence shown, tab completion, a move accepted and redrawn, the
 *     other seat's move arriving as a patch.
 *
 * Every wait has a deadline: output is read until the expected text appears
 * (or the process exits), the tmux screen is polled until the text shows.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <ftw.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "proc.h"

#ifndef WARROOM_SCENARIO_DIR
#error "WARROOM_SCENARIO_DIR must be defined by the build"
#endif
#ifndef WARROOM_CLIENT_PATH
#error "WARROOM_CLIENT_PATH must be defined by the build"
#endif

#define T 20000     /* ms allowed for one client command (valgrind is slow) */

static const char *const server_args[] = { "--scenarios", WARROOM_SCENARIO_DIR, NULL };

struct fixture {
    struct wt_server s;
    char root[256];             /* players' homes live here */
    char url[64];
};

static int setup(void **state)
{
    static struct fixture f;
    const char *tmp = getenv("TMPDIR");
    snprintf(f.root, sizeof f.root, "%s/warroom-client-XXXXXX", tmp ? tmp : "/tmp");
    if (mkdtemp(f.root) == NULL || wt_server_start(&f.s, server_args) < 0)
        return -1;
    snprintf(f.url, sizeof f.url, "ws://127.0.0.1:%d/", f.s.port);
    *state = &f;
    return 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    int status = wt_server_stop(&f->s, SIGTERM, 10000);
    wt_server_cleanup(&f->s);
    nftw(f->root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    return (status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0) ? 0 : -1;
}

/* --- players --------------------------------------------------------------------- */

struct player {
    const char *name;
    char home[320];
    char e_home[340], e_config[360], e_cache[360];
    const char *env[6];
    const char *url;
};

static void player_init(struct player *p, struct fixture *f, const char *name)
{
    static int n;
    memset(p, 0, sizeof *p);
    p->name = name;
    p->url = f->url;
    snprintf(p->home, sizeof p->home, "%s/%s-%d", f->root, name, ++n);
    assert_int_equal(mkdir(p->home, 0700), 0);
    snprintf(p->e_home, sizeof p->e_home, "HOME=%s", p->home);
    snprintf(p->e_config, sizeof p->e_config, "XDG_CONFIG_HOME=%s/.config", p->home);
    snprintf(p->e_cache, sizeof p->e_cache, "XDG_CACHE_HOME=%s/.cache", p->home);
    p->env[0] = p->e_home;
    p->env[1] = p->e_config;
    p->env[2] = p->e_cache;
    p->env[3] = "NO_COLOR=1";
    p->env[4] = NULL;
}

/* argv for `warroom --server URL args...` (NULL-terminated list). */
static void argv_of(struct player *p, const char **argv, va_list ap)
{
    int n = 0;
    argv[n++] = WARROOM_CLIENT_PATH;
    argv[n++] = "--server";
    argv[n++] = p->url;
    for (const char *a = va_arg(ap, const char *); a && n < 30; a = va_arg(ap, const char *))
        argv[n++] = a;
    argv[n] = NULL;
}

/* Run warroom as player p: its exit code and output (free with
 * result_free()). */
struct result {
    int rc;
    char *out, *err;
};

static struct result run(struct player *p, ...)
{
    const char *argv[32];
    va_list ap;
    va_start(ap, p);
    argv_of(p, argv, ap);
    va_end(ap);
    struct result r = { 0, NULL, NULL };
    r.rc = wt_run(argv, p->env, T, &r.out, &r.err);
    if (r.out == NULL)
        r.out = strdup("");
    if (r.err == NULL)
        r.err = strdup("");
    return r;
}

static void result_free(struct result *r)
{
    free(r->out);
    free(r->err);
}

/* Run and expect exit code rc and text in stdout or stderr. */
#define EXPECT(p, rc_, text, ...)                                                           \
    do {                                                                                  \
        struct result r_ = run((p), __VA_ARGS__, NULL);                                   \
        if (r_.rc != (rc_) || (!strstr(r_.out, text) && !strstr(r_.err, text)))           \
            fail_msg("%s: exit %d (want %d), want \"%s\"\nstdout: %s\nstderr: %s",         \
                     (p)->name, r_.rc, (rc_), text, r_.out, r_.err);                      \
        result_free(&r_);                                                                 \
    } while (0)

/* Run with --json; the first line of stdout as JSON (new reference). */
static json_t *run_json(struct player *p, int want_rc, ...)
{
    const char *argv[32];
    va_list ap;
    va_start(ap, want_rc);
    int n = 0;
    argv[n++] = WARROOM_CLIENT_PATH;
    argv[n++] = "--server";
    argv[n++] = p->url;
    argv[n++] = "--json";
    for (const char *a = va_arg(ap, const char *); a && n < 30; a = va_arg(ap, const char *))
        argv[n++] = a;
    argv[n] = NULL;
    va_end(ap);
    char *out = NULL, *err = NULL;
    int rc = wt_run(argv, p->env, T, &out, &err);
    json_t *j = out ? json_loads(out, JSON_DISABLE_EOF_CHECK, NULL) : NULL;
    if (rc != want_rc || j == NULL)
        fail_msg("%s %s: exit %d (want %d)\nstdout: %s\nstderr: %s", p->name, argv[4], rc,
                 want_rc, out ? out : "", err ? err : "");
    free(out);
    free(err);
    return j;
}

static const char *str(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* A new game by a, its other seat claimed by b; game id into game. */
static void start_game(struct player *a, struct player *b, const char *ruleset,
                       const char *scenario, const char *other_seat, char *game, size_t n)
{
    json_t *c = scenario ? run_json(a, 0, "new", "--ruleset", ruleset, "--scenario", scenario,
                                    NULL)
                         : run_json(a, 0, "new", "--ruleset", ruleset, NULL);
    assert_string_equal(str(c, "type"), "created");
    assert_null(json_object_get(c, "token"));           /* tokens stay in the config */
    snprintf(game, n, "%s", str(c, "game"));
    const char *invite = str(json_object_get(c, "invites"), other_seat);
    assert_non_null(invite);
    json_t *cl = run_json(b, 0, "claim", invite, NULL);
    assert_string_equal(str(cl, "type"), "claimed");
    assert_string_equal(str(cl, "seat"), other_seat);
    assert_null(json_object_get(cl, "token"));
    json_decref(cl);
    json_decref(c);
}

/* --- tictactoe, one-shot ------------------------------------------------------------- */

static void test_tictactoe_oneshot(void **state)
{
    struct fixture *f = *state;
    struct player x, o;
    char game[64], path[400];
    player_init(&x, f, "x");
    player_init(&o, f, "o");
    start_game(&x, &o, "tictactoe", NULL, "o", game, sizeof game);

    /* The config holds the token, privately. */
    struct stat st;
    snprintf(path, sizeof path, "%s/.config/warroom/config.json", x.home);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    json_t *cfg = json_load_file(path, 0, NULL);
    const char *token = str(json_object_get(json_object_get(cfg, "games"), game), "token");
    assert_non_null(token);
    assert_int_equal(strlen(token), 64);
    json_decref(cfg);

    /* x: 4, 0, 8 takes the diagonal; o: 1, 2. */
    EXPECT(&x, 0, "accepted: game", "do", game, "mark 4");
    EXPECT(&x, 1, "not_your_turn", "do", game, "mark 0");          /* out of turn */
    EXPECT(&o, 1, "enemy_square", "do", game, "mark", "4");         /* taken */
    EXPECT(&o, 0, "o marked cell 1", "do", game, "mark", "1");
    EXPECT(&x, 0, "x marked cell 0", "do", game, "{\"type\":\"mark\",\"cell\":0}");
    EXPECT(&o, 1, "bad_square", "do", game, "mark 9");              /* the rules say */
    EXPECT(&o, 2, "usage", "do", game, "mark");                     /* no cell: usage */
    EXPECT(&o, 0, "version 4", "do", game, "mark 2");
    EXPECT(&x, 0, "your decision", "status", game);
    json_t *ack = run_json(&x, 0, "do", game, "mark 8", NULL);
    assert_string_equal(str(ack, "type"), "ack");
    assert_int_equal(json_integer_value(json_object_get(ack, "version")), 5);
    json_decref(ack);

    /* Over: both see it, nobody may move. */
    json_t *s = run_json(&o, 0, "status", game, NULL);
    assert_string_equal(str(s, "type"), "state");
    assert_string_equal(str(s, "seat"), "o");
    assert_string_equal(str(json_object_get(s, "state"), "winner"), "x");
    assert_string_equal(str(json_object_get(s, "state"), "board"), "xoo.x...x");
    json_decref(s);
    EXPECT(&o, 1, "game_over", "do", game, "mark 3");
    EXPECT(&o, 1, "is over", "wait", game);
    json_t *e = run_json(&o, 1, "do", game, "mark 3", NULL);
    assert_string_equal(str(e, "type"), "error");
    assert_string_equal(str(e, "code"), "game_over");
    json_decref(e);

    /* The record: a header and five commands. */
    struct result r = run(&x, "export", game, NULL);
    assert_int_equal(r.rc, 0);
    int lines = 0;
    for (char *c = r.out; *c; c++)
        lines += *c == '\n';
    assert_int_equal(lines, 6);
    assert_non_null(strstr(r.out, "\"game-record\""));
    assert_non_null(strstr(r.out, "{\"seat\":\"x\",\"cmd\":{\"type\":\"mark\",\"cell\":8}}"));
    result_free(&r);

    /* games: mine, with my seat. */
    json_t *gs = run_json(&o, 0, "games", NULL);
    json_t *mine = json_array_get(json_object_get(gs, "games"), 0);
    assert_int_equal(json_array_size(json_object_get(gs, "games")), 1);
    assert_string_equal(str(mine, "game"), game);
    assert_string_equal(str(mine, "my_seat"), "o");
    assert_string_equal(str(mine, "status"), "finished");
    json_decref(gs);
    EXPECT(&o, 0, "finished", "games");
}

/* The config file holds tokens: group- or world-readable, it is refused. */
static void test_config_must_be_private(void **state)
{
    struct fixture *f = *state;
    struct player x, o;
    char game[64], path[400];
    player_init(&x, f, "x");
    player_init(&o, f, "o");
    start_game(&x, &o, "tictactoe", NULL, "o", game, sizeof game);
    snprintf(path, sizeof path, "%s/.config/warroom/config.json", x.home);
    assert_int_equal(chmod(path, 0644), 0);
    EXPECT(&x, 1, "chmod 600", "status", game);
    EXPECT(&x, 1, "group or others may read", "do", game, "mark 4");
    assert_int_equal(chmod(path, 0600), 0);
    EXPECT(&x, 0, "accepted", "do", game, "mark 4");
    /* Bad usage and a server that is not there. */
    EXPECT(&x, 2, "not a ws:// URL", "--server", "http://x", "games");
    struct player nowhere = x;
    nowhere.url = "ws://127.0.0.1:1/";
    EXPECT(&nowhere, 3, "cannot connect", "games");
    EXPECT(&x, 2, "unknown command 'dance'", "do", game, "dance");
}

/* --- Waterloo: local refusals with the server's reason codes ------------------------------ */

/* The server's count of refused messages (GET /metrics). */
static long rejections(struct fixture *f)
{
    char body[16384];
    int status;
    assert_int_equal(wt_http_get(f->s.port, "/metrics", &status, body, sizeof body), 0);
    const char *p = strstr(body, "\nwarroom_rejections_total ");
    assert_non_null(p);
    return strtol(p + strlen("\nwarroom_rejections_total "), NULL, 10);
}

static void test_waterloo_refused_locally_like_the_server(void **state)
{
    struct fixture *f = *state;
    struct player fr, al;
    char game[64];
    player_init(&fr, f, "french");
    player_init(&al, f, "allied");
    start_game(&fr, &al, "waterloo", "test/small", "allied", game, sizeof game);
    EXPECT(&fr, 0, "setup_allied", "do", game, "end");         /* "end" in set-up: end_setup */
    EXPECT(&al, 0, "french_move", "do", game, "endsetup");
    /* Each row: a move the rules refuse, and the reason code. */
    static const struct {
        const char *move, *code;
    } rows[] = {
        /* 1 */ { "move fr-jerome J-40 I-40 I-39", "zoc_stop" },
        /* 2 */ { "move fr-jerome I-40", "not_adjacent" },
        /* 3 */ { "move aa-picton H-39", "not_your_unit" },
        /* 4 */ { "move fr-jerome K-39 K-38 K-37 K-36 K-35 K-34", "too_far" },
        /* 5 */ { "move fr-nobody K-39", "unknown_unit" },
        /* 6 */ { "resolve 0", "wrong_phase" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        long before = rejections(f);
        json_t *local = run_json(&fr, 1, "do", game, rows[i].move, NULL);
        if (strcmp(str(local, "code"), rows[i].code) != 0 ||
            strcmp(str(local, "checked"), "local") != 0)
            fail_msg("row %zu (%s): local %s/%s, want %s", i + 1, rows[i].move,
                     str(local, "code"), str(local, "checked"), rows[i].code);
        /* Nothing reached the server. */
        assert_int_equal(rejections(f), before);
        json_t *server = run_json(&fr, 1, "do", "--no-check", game, rows[i].move, NULL);
        if (strcmp(str(server, "code"), rows[i].code) != 0 || json_object_get(server, "checked"))
            fail_msg("row %zu (%s): the server says %s, want %s", i + 1, rows[i].move,
                     str(server, "code"), rows[i].code);
        /* The same sentence, too: it is the same library. */
        assert_string_equal(str(local, "message"), str(server, "message"));
        assert_int_equal(rejections(f), before + 1);
        json_decref(local);
        json_decref(server);
    }
    /* Said in words, without --json. */
    EXPECT(&fr, 1, "refused (checked here, not sent): zoc_stop: Jerome must stop", "do", game,
           "move fr-jerome J-40 I-40 I-39");
    EXPECT(&fr, 0, "fr-jerome moved from K-40: J-40 > I-40", "do", game,
           "move fr-jerome J-40 I-40");
    /* The allied seat may not move now: the local check says so too. */
    EXPECT(&al, 1, "not_your_turn", "do", game, "move aa-picton H-39");
    EXPECT(&al, 0, "awaiting french (move)", "status", game);
}

/* --- wait ---------------------------------------------------------------------------------- */

static void test_wait_returns_when_the_other_seat_moves(void **state)
{
    struct fixture *f = *state;
    struct player x, o;
    char game[64];
    player_init(&x, f, "x");
    player_init(&o, f, "o");
    start_game(&x, &o, "tictactoe", NULL, "o", game, sizeof game);
    /* x is awaited: x's wait returns at once. */
    EXPECT(&x, 0, "your decision in game", "wait", game);
    /* o waits; it has joined once it says so, and it keeps waiting. */
    const char *argv[] = { WARROOM_CLIENT_PATH, "--server", f->url, "wait", game, NULL };
    struct wt_proc w;
    assert_int_equal(wt_proc_start(&w, argv, o.env), 0);
    if (wt_proc_expect(&w, "waiting for x", T) != 0)
        fail_msg("wait did not start waiting: %s %s", w.out, w.err);
    assert_true(wt_proc_running(&w));
    EXPECT(&x, 0, "accepted", "do", game, "mark 4");
    int rc = wt_proc_finish(&w, T);
    if (rc != 0 || !strstr(w.out, "your decision in game"))
        fail_msg("wait: exit %d\nstdout: %s\nstderr: %s", rc, w.out, w.err);
    assert_non_null(strstr(w.out, "version 1"));
    wt_proc_release(&w);
}

static void test_wait_survives_a_server_restart(void **state)
{
    (void)state;
    struct fixture f;
    memset(&f, 0, sizeof f);
    snprintf(f.root, sizeof f.root, "%s/warroom-client-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    assert_non_null(mkdtemp(f.root));
    assert_int_equal(wt_server_start(&f.s, server_args), 0);
    snprintf(f.url, sizeof f.url, "ws://127.0.0.1:%d/", f.s.port);
    struct player x, o;
    char game[64], listen[64];
    player_init(&x, &f, "x");
    player_init(&o, &f, "o");
    start_game(&x, &o, "tictactoe", NULL, "o", game, sizeof game);
    EXPECT(&x, 0, "accepted", "do", game, "mark 4");
    const char *argv[] = { WARROOM_CLIENT_PATH, "--server", f.url, "wait", game, NULL };
    struct wt_proc w;
    assert_int_equal(wt_proc_start(&w, argv, x.env), 0);
    if (wt_proc_expect(&w, "waiting for o", T) != 0)
        fail_msg("wait did not start waiting: %s %s", w.out, w.err);
    /* The server goes away (1001) and comes back on the same port. */
    int status = wt_server_stop(&f.s, SIGTERM, 10000);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (wt_proc_expect(&w, "reconnecting", T) != 0)
        fail_msg("wait did not notice: %s %s", w.out, w.err);
    snprintf(listen, sizeof listen, "127.0.0.1:%d", f.s.port);
    const char *again[] = { "--scenarios", WARROOM_SCENARIO_DIR, "--listen", listen, NULL };
    assert_int_equal(wt_server_restart(&f.s, again), 0);
    if (wt_proc_expect(&w, "reconnected, resynced from version 1", T) != 0)
        fail_msg("wait did not reconnect: %s %s", w.out, w.err);
    assert_true(wt_proc_running(&w));
    EXPECT(&o, 0, "accepted", "do", game, "mark 0");
    int rc = wt_proc_finish(&w, T);
    if (rc != 0 || !strstr(w.out, "your decision in game") || !strstr(w.out, "version 2"))
        fail_msg("wait: exit %d\nstdout: %s\nstderr: %s", rc, w.out, w.err);
    wt_proc_release(&w);
    status = wt_server_stop(&f.s, SIGTERM, 10000);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    wt_server_cleanup(&f.s);
    nftw(f.root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tictactoe_oneshot),
        cmocka_unit_test(test_config_must_be_private),
        cmocka_unit_test(test_waterloo_refused_locally_like_the_server),
        cmocka_unit_test(test_wait_returns_when_the_other_seat_moves),
        cmocka_unit_test(test_wait_survives_a_server_restart),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
