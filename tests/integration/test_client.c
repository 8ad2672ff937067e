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
    /* One seat per game in a config: claiming the other one as well keeps
     * the first token (and says what to do with the second). */
    json_t *c = run_json(&x, 0, "new", "--ruleset", "tictactoe", NULL);
    const char *both = str(c, "game");
    EXPECT(&x, 1, "already holds the x seat", "claim",
           str(json_object_get(c, "invites"), "o"));
    EXPECT(&x, 0, "your decision", "status", both);
    json_decref(c);
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

/* --- interactive mode, in tmux ---------------------------------------------------------------- */

struct tmux {
    char sock[300];
};

/* Run `tmux -S sock -f /dev/null args...`; its exit code, stdout in *out
 * (may be NULL; caller frees). */
static int tmux(struct tmux *t, char **out, ...)
{
    const char *argv[32];
    int n = 0;
    argv[n++] = "tmux";
    argv[n++] = "-S";
    argv[n++] = t->sock;
    argv[n++] = "-f";
    argv[n++] = "/dev/null";
    va_list ap;
    va_start(ap, out);
    for (const char *a = va_arg(ap, const char *); a && n < 31; a = va_arg(ap, const char *))
        argv[n++] = a;
    va_end(ap);
    argv[n] = NULL;
    /* tmux is not the program under test: never under the client's wrapper. */
    char *saved = getenv("WT_CLIENT_WRAPPER") ? strdup(getenv("WT_CLIENT_WRAPPER")) : NULL;
    unsetenv("WT_CLIENT_WRAPPER");
    char *o = NULL;
    int rc = wt_run(argv, NULL, 10000, &o, NULL);
    if (saved) {
        setenv("WT_CLIENT_WRAPPER", saved, 1);
        free(saved);
    }
    if (out)
        *out = o;
    else
        free(o);
    return rc;
}

/* Poll the pane's screen until every text of the NULL-terminated list shows
 * or timeout_ms passes; returns the last screen (caller frees) or fails. */
static char *screen_shows(struct tmux *t, const char *pane, int timeout_ms, ...)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    long deadline = ts.tv_sec * 1000L + ts.tv_nsec / 1000000L + timeout_ms;
    for (;;) {
        char *screen = NULL;
        tmux(t, &screen, "capture-pane", "-p", "-t", pane, NULL);
        int all = screen != NULL;
        va_list ap;
        va_start(ap, timeout_ms);
        const char *missing = NULL;
        for (const char *want = va_arg(ap, const char *); want && all;
             want = va_arg(ap, const char *))
            if (!strstr(screen, want)) {
                all = 0;
                missing = want;
            }
        va_end(ap);
        if (all)
            return screen;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        if (ts.tv_sec * 1000L + ts.tv_nsec / 1000000L >= deadline) {
            fprintf(stderr, "--- pane %s ---\n%s--- end of pane %s ---\n", pane,
                    screen ? screen : "(none)\n", pane);
            fail_msg("pane %s: \"%s\" did not show within %d ms (the screen is above)", pane,
                     missing ? missing : "?", timeout_ms);
        }
        free(screen);
        poll(NULL, 0, 50);      /* the next look at the screen: a bounded poll, not a wait */
    }
}

/* Start `warroom --server URL play|watch GAME` as p in a new 160x50 tmux
 * session named pane; "EXIT=<code>" is printed when it ends. */
static void tmux_start(struct tmux *t, struct player *p, const char *pane, const char *mode,
                       const char *game)
{
    char cmd[2048];
    const char *w = getenv("WT_CLIENT_WRAPPER");
    snprintf(cmd, sizeof cmd,
             "env HOME=%s XDG_CONFIG_HOME=%s/.config XDG_CACHE_HOME=%s/.cache TERM=screen "
             "%s %s --server %s %s %s; echo EXIT=$?",
             p->home, p->home, p->home, w ? w : "", WARROOM_CLIENT_PATH, p->url, mode, game);
    assert_int_equal(tmux(t, NULL, "new-session", "-d", "-x", "160", "-y", "50", "-s", pane,
                          cmd, NULL), 0);
    tmux(t, NULL, "set-option", "-t", pane, "remain-on-exit", "on", NULL);
}

static void test_interactive_in_a_terminal(void **state)
{
    struct fixture *f = *state;
    struct tmux t;
    snprintf(t.sock, sizeof t.sock, "%s/tmux.sock", f->root);
    char *version = NULL;
    if (tmux(&t, &version, "-V", NULL) != 0) {
        free(version);
        fail_msg("tmux is needed for this test (scripts/deps.sh installs it)");
    }
    free(version);
    struct player fr, al;
    char game[64], *screen;
    player_init(&fr, f, "french");
    player_init(&al, f, "allied");
    start_game(&fr, &al, "waterloo", "test/small", "allied", game, sizeof game);
    EXPECT(&fr, 0, "accepted", "do", game, "endsetup");
    EXPECT(&al, 0, "accepted", "do", game, "endsetup");

    /* The French player at the keyboard: the board around the action. */
    tmux_start(&t, &fr, "fr", "play", game);
    screen = screen_shows(&t, "fr", T, "Test: Mont-St-Jean, small: Turn 1", "Mon", "K-40   F11",
                          "Jerome 6-4 infantry (fr-jerome), Foy 5-4 infantry (fr-foy)",
                          "french_move: awaiting french (move)  <- your decision", "french>",
                          NULL);
    free(screen);
    /* Tab completes the command, then the unit id. */
    tmux(&t, NULL, "send-keys", "-t", "fr", "mo", "Tab", NULL);
    free(screen_shows(&t, "fr", T, "french> move", NULL));
    tmux(&t, NULL, "send-keys", "-t", "fr", "fr-je", "Tab", NULL);
    free(screen_shows(&t, "fr", T, "french> move fr-jerome", NULL));
    /* Jerome may not go on past Picton's zone: refused here, nothing sent. */
    long before = rejections(f);
    tmux(&t, NULL, "send-keys", "-t", "fr", "J-40 I-40 I-39", "Enter", NULL);
    free(screen_shows(&t, "fr", T, "> move fr-jerome J-40 I-40 I-39",
                      "refused (checked here, not sent): zoc_stop: Jerome must stop on "
                      "entering the zone of Picton at I-40", NULL));
    assert_int_equal(rejections(f), before);
    /* Where Foy can go: marked on the board. */
    tmux(&t, NULL, "send-keys", "-t", "fr", "reach fr-foy", "Enter", NULL);
    free(screen_shows(&t, "fr", T, "fr-foy can reach", "* marked square", "*Bra*", NULL));
    /* A legal move: accepted, and the board redrawn with Jerome on I-40. */
    tmux(&t, NULL, "send-keys", "-t", "fr", "move fr-jerome J-40 I-40", "Enter", NULL);
    free(screen_shows(&t, "fr", T, "accepted: the game is at version 3",
                      "* fr-jerome moved from K-40: J-40 > I-40", "I-40   F6  Jerome",
                      "K-40   F5  Foy", NULL));

    /* The allied player watches the French move arrive as a patch. */
    tmux_start(&t, &al, "al", "play", game);
    free(screen_shows(&t, "al", T, "I-40   F6  Jerome", "allied>", NULL));
    tmux(&t, NULL, "send-keys", "-t", "al", "move aa-picton H-39", "Enter", NULL);
    free(screen_shows(&t, "al", T, "refused (checked here, not sent): not_your_turn: the "
                      "french player is awaited (move)", NULL));
    EXPECT(&fr, 0, "accepted", "do", game, "move fr-foy J-41 I-41");
    free(screen_shows(&t, "al", T, "* fr-foy moved from K-40: J-41 > I-41", "I-41   F5  Foy",
                      NULL));
    free(screen_shows(&t, "fr", T, "* fr-foy moved from K-40: J-41 > I-41", NULL));

    /* The server restarts: both reconnect and say so. */
    char listen[64];
    int status = wt_server_stop(&f->s, SIGTERM, 10000);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    free(screen_shows(&t, "al", T, "reconnecting...", NULL));
    snprintf(listen, sizeof listen, "127.0.0.1:%d", f->s.port);
    const char *again[] = { "--scenarios", WARROOM_SCENARIO_DIR, "--listen", listen, NULL };
    assert_int_equal(wt_server_restart(&f->s, again), 0);
    free(screen_shows(&t, "al", T, "reconnected, resynced from version 4", NULL));
    free(screen_shows(&t, "fr", T, "reconnected, resynced from version 4", NULL));
    EXPECT(&fr, 0, "accepted", "do", game, "end");
    free(screen_shows(&t, "al", T, "* turn 1: french_combat",
                      "french_combat: awaiting french (declare)", NULL));

    /* quit and Ctrl-D leave cleanly, the terminal given back. */
    tmux(&t, NULL, "send-keys", "-t", "fr", "quit", "Enter", NULL);
    free(screen_shows(&t, "fr", T, "EXIT=0", NULL));
    tmux(&t, NULL, "send-keys", "-t", "al", "C-d", NULL);
    free(screen_shows(&t, "al", T, "EXIT=0", NULL));
    tmux(&t, NULL, "kill-server", NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tictactoe_oneshot),
        cmocka_unit_test(test_config_must_be_private),
        cmocka_unit_test(test_waterloo_refused_locally_like_the_server),
        cmocka_unit_test(test_wait_returns_when_the_other_seat_moves),
        cmocka_unit_test(test_wait_survives_a_server_restart),
        cmocka_unit_test(test_interactive_in_a_terminal),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
