#define _GNU_SOURCE
/*
 * test_client.c - the terminal client `warroom` against the real warroomd on
 * 127.0.0.1 (port 0), each player a separate `warroom` process with its own
 * HOME (so its own config file and scenario cache):
 *   - a tictactoe game played to the end with one-shot commands: new, claim,
 *     do (accepted, refused out of turn, refused on a taken cell, refused
 *     once over; each accepted one followed by what the game now waits
 *     for), status (ending in a newline), games, export, --json answers
 *     without tokens;
 *   - new with --option (a campaign of three players; a value or a name
 *     the server refuses), and help new listing every registered ruleset;
 *   - the config file: created 0600, refused when others may read it;
 *   - orders refused locally, before anything is sent, with the same reason
 *     code and sentence the server gives for them (the server's rejection
 *     counter shows nothing was sent); a Waterloo game played with JSON
 *     commands whatever its presentation;
 *   - `wait` returning when the other seat moves, at once when it is already
 *     your decision, with 1 when the game is over, and across a server
 *     restart, saying "reconnected, resynced from version N";
 *   - interactive mode in a terminal (tmux): the board drawn, a refusal
 *     sentence shown, tab completion, a move accepted and redrawn, the
 *     other seat's move arriving as a patch, help from the orders table;
 *   - interactive mode with the server down: an order typed then is refused
 *     ("not connected: nothing sent") and never sent after the reconnection
 *     (the game's version, seen by the other seat, does not move; the next
 *     order is the first applied); an order in flight when the server dies
 *     is named, sent again after the reconnection and applied once.
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
#include "player.h"
#include "proc.h"
#include "ruleset.h"

#ifndef WARROOM_SCENARIO_DIR
#error "WARROOM_SCENARIO_DIR must be defined by the build"
#endif
#ifndef WARROOM_CLIENT_PATH
#error "WARROOM_CLIENT_PATH must be defined by the build"
#endif

#define T WT_CLIENT_MS

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
    struct wt_fixture *f = *state;
    struct player x, o;
    char game[64], path[400];
    player_init(&x, f, "x");
    player_init(&o, f, "o");
    start_game(&x, &o, "tictactoe", NULL, "o", game, sizeof game);

    /* The config holds the token, privately. */
    struct stat st;
    snprintf(path, sizeof path, "%s/.config/warroom/config.json", x.h.dir);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    json_t *cfg = json_load_file(path, 0, NULL);
    const char *token = str(json_object_get(json_object_get(cfg, "games"), game), "token");
    assert_non_null(token);
    assert_int_equal(strlen(token), 64);
    json_decref(cfg);

    /* x: 4, 0, 8 takes the diagonal; o: 1, 2. */
    EXPECT(&x, 0, "accepted: game", "do", game, "mark 4");
    /* After each decision sent: what the game now waits for. */
    struct result r = run(&x, "do", game, "help", NULL);
    if (r.rc != 0 || !strstr(r.out, "mark N\n") || !strstr(r.out, "e.g. mark 4"))
        fail_msg("do help: exit %d\n%s%s", r.rc, r.out, r.err);
    result_free(&r);
    /* help ORDER: that order alone; an order the game lacks is a usage error */
    r = run(&x, "do", game, "help mark", NULL);
    if (r.rc != 0 || strncmp(r.out, "mark N\n", 7) != 0 || strstr(r.out, "JSON object"))
        fail_msg("do help mark: exit %d\n%s%s", r.rc, r.out, r.err);
    result_free(&r);
    EXPECT(&x, 2, "no order 'dance'; the orders: mark", "do", game, "help dance");
    EXPECT(&x, 1, "not_your_turn", "do", game, "mark 0");          /* out of turn */
    EXPECT(&o, 1, "enemy_square", "do", game, "mark", "4");         /* taken */
    r = run(&o, "do", game, "mark", "1", NULL);
    if (r.rc != 0 || !strstr(r.out, "  o marked cell 1\nnow: move 2: awaiting x (mark)\n"))
        fail_msg("do mark 1: exit %d, want the event then what the game waits for\n%s%s",
                 r.rc, r.out, r.err);
    result_free(&r);
    EXPECT(&x, 0, "x marked cell 0", "do", game, "{\"type\":\"mark\",\"cell\":0}");
    EXPECT(&o, 1, "bad_square", "do", game, "mark 9");              /* the rules say */
    EXPECT(&o, 2, "'mark' is not an order: mark N", "do", game, "mark");  /* no cell */
    EXPECT(&o, 0, "version 4", "do", game, "mark 2");
    EXPECT(&x, 0, "your decision", "status", game);
    /* status: where the game stands, the grid, and a newline at the end. */
    r = run(&x, "status", game, NULL);
    if (r.rc != 0 || !strstr(r.out, "move 4: awaiting x (mark)  <- your decision\n") ||
        !strstr(r.out, "    x | o | o \n") || r.out[0] == '\0' ||
        r.out[strlen(r.out) - 1] != '\n')
        fail_msg("status: exit %d\n[%s]%s", r.rc, r.out, r.err);
    result_free(&r);
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
    r = run(&x, "export", game, NULL);
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
    struct wt_fixture *f = *state;
    struct player x, o;
    char game[64], path[400];
    player_init(&x, f, "x");
    player_init(&o, f, "o");
    start_game(&x, &o, "tictactoe", NULL, "o", game, sizeof game);
    snprintf(path, sizeof path, "%s/.config/warroom/config.json", x.h.dir);
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
    EXPECT(&x, 2, "'dance' is not an order", "do", game, "dance");
}

/* --- Waterloo: local refusals with the server's reason codes ------------------------------ */

/* The server's count of refused messages (GET /metrics). */
static long rejections(struct wt_fixture *f)
{
    char body[16384];
    int status;
    assert_int_equal(wt_http_get(f->s.port, "/metrics", &status, body, sizeof body), 0);
    const char *p = strstr(body, "\nwarroom_rejections_total ");
    assert_non_null(p);
    return strtol(p + strlen("\nwarroom_rejections_total "), NULL, 10);
}

static void test_refused_locally_like_the_server(void **state)
{
    struct wt_fixture *f = *state;
    struct player x, o;
    char game[64];
    player_init(&x, f, "x");
    player_init(&o, f, "o");
    start_game(&x, &o, "tictactoe", NULL, "o", game, sizeof game);
    EXPECT(&x, 0, "accepted", "do", game, "mark 4");
    /* Each row: an order the rules refuse, who gives it, and the code. */
    static const struct {
        int o_plays;
        const char *order, *code;
    } rows[] = {
        /* 1 */ { 0, "mark 0", "not_your_turn" },
        /* 2 */ { 1, "mark 4", "enemy_square" },
        /* 3 */ { 1, "mark 9", "bad_square" },
        /* 4 */ { 1, "{\"type\":\"mark\",\"cell\":4,\"note\":1}", "bad_command" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct player *p = rows[i].o_plays ? &o : &x;
        long before = rejections(f);
        json_t *local = run_json(p, 1, "do", game, rows[i].order, NULL);
        if (strcmp(str(local, "code"), rows[i].code) != 0 ||
            strcmp(str(local, "checked"), "local") != 0)
            fail_msg("row %zu (%s): local %s/%s, want %s", i + 1, rows[i].order,
                     str(local, "code"), str(local, "checked"), rows[i].code);
        /* Nothing reached the server. */
        assert_int_equal(rejections(f), before);
        json_t *server = run_json(p, 1, "do", "--no-check", game, rows[i].order, NULL);
        if (strcmp(str(server, "code"), rows[i].code) != 0 || json_object_get(server, "checked"))
            fail_msg("row %zu (%s): the server says %s, want %s", i + 1, rows[i].order,
                     str(server, "code"), rows[i].code);
        /* The same sentence, too: it is the same library. */
        assert_string_equal(str(local, "message"), str(server, "message"));
        assert_int_equal(rejections(f), before + 1);
        json_decref(local);
        json_decref(server);
    }
    /* Said in words, without --json. */
    EXPECT(&o, 1, "refused (checked here, not sent): enemy_square: cell 4 is taken", "do", game,
           "mark 4");
    EXPECT(&o, 0, "o marked cell 0", "do", game, "mark 0");
}

/* A Waterloo game: commands as JSON objects are sent as typed, and what the
 * game waits for is said after each. */
static void test_waterloo_in_json(void **state)
{
    struct wt_fixture *f = *state;
    struct player fr, al;
    char game[64];
    player_init(&fr, f, "french");
    player_init(&al, f, "allied");
    start_game(&fr, &al, "waterloo", "test/small", "allied", game, sizeof game);
    EXPECT(&fr, 0, "awaiting allied", "do", game, "{\"type\":\"end_setup\"}");
    EXPECT(&al, 0, "awaiting french (move)", "do", game, "{\"type\":\"end_setup\"}");
    EXPECT(&al, 0, "awaiting french (move)", "status", game);
    /* Waterloo's view checks an order with the server's rules: the same
     * code either way. */
    EXPECT(&fr, 1, "refused (checked here, not sent): wrong_phase", "do", game,
           "{\"type\":\"end_setup\"}");
    EXPECT(&fr, 1, "refused by the server: wrong_phase", "do", "--no-check", game,
           "{\"type\":\"end_setup\"}");
    /* and it reads Waterloo's short orders */
    EXPECT(&fr, 1, "refused (checked here, not sent): wrong_phase", "do", game, "end_setup");
}

/* --- new: options and the rulesets ------------------------------------------------- */

static void test_new_options(void **state)
{
    struct wt_fixture *f = *state;
    struct player a;
    player_init(&a, f, "a");
    /* players=3: three seats, the creator's and two invites. */
    json_t *c = run_json(&a, 0, "new", "--ruleset", "campaign", "--option", "players=3", NULL);
    assert_string_equal(str(c, "type"), "created");
    assert_string_equal(str(c, "seat"), "p1");
    json_t *inv = json_object_get(c, "invites");
    assert_int_equal(json_object_size(inv), 2);
    assert_non_null(json_object_get(inv, "p2"));
    assert_non_null(json_object_get(inv, "p3"));
    json_decref(c);
    /* VALUE as JSON: a list and a boolean; the referee is a fourth seat. */
    c = run_json(&a, 0, "new", "--ruleset", "campaign", "--option", "players=3", "--option",
                 "alliances=[[\"p1\",\"p2\"]]", "--option", "referee=true", NULL);
    assert_int_equal(json_object_size(json_object_get(c, "invites")), 3);
    assert_non_null(json_object_get(json_object_get(c, "invites"), "referee"));
    json_decref(c);
    /* A value the ruleset refuses, a name nobody knows: the server's words. */
    EXPECT(&a, 1, "the server refused: bad_options: ", "new", "--ruleset", "campaign",
           "--option", "players=99");
    EXPECT(&a, 1, "the server refused: bad_options: ", "new", "--ruleset", "tictactoe",
           "--option", "colour=red");
    EXPECT(&a, 2, "--option wants KEY=VALUE", "new", "--option", "players");
    /* help new: every registered ruleset, its summary and options. */
    struct result r = run(&a, "help", "new", NULL);
    assert_int_equal(r.rc, 0);
    for (int i = 0; wr_ruleset_at(i); i++) {
        const struct wr_ruleset *rs = wr_ruleset_at(i);
        char line[300];
        snprintf(line, sizeof line, "  %s: %s\n", rs->name, rs->summary);
        if (!strstr(r.out, line))
            fail_msg("help new does not list %s:\n%s", rs->name, r.out);
        for (const struct wr_option *op = rs->options; op && op->name; op++) {
            snprintf(line, sizeof line, "--option %s=VALUE: %s\n", op->name, op->help);
            if (!strstr(r.out, line))
                fail_msg("help new does not list %s's option %s:\n%s", rs->name, op->name,
                         r.out);
        }
    }
    result_free(&r);
    EXPECT(&a, 0, "rulesets (--ruleset; the first is the default)", "new", "--help");
}

/* --- wait ---------------------------------------------------------------------------------- */

static void test_wait_returns_when_the_other_seat_moves(void **state)
{
    struct wt_fixture *f = *state;
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
    assert_int_equal(wt_proc_start(&w, argv, o.h.env), 0);
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
    struct wt_fixture f;
    memset(&f, 0, sizeof f);
    assert_int_equal(wt_fixture_start(&f), 0);
    struct player x, o;
    char game[64], listen[64];
    player_init(&x, &f, "x");
    player_init(&o, &f, "o");
    start_game(&x, &o, "tictactoe", NULL, "o", game, sizeof game);
    EXPECT(&x, 0, "accepted", "do", game, "mark 4");
    const char *argv[] = { WARROOM_CLIENT_PATH, "--server", f.url, "wait", game, NULL };
    struct wt_proc w;
    assert_int_equal(wt_proc_start(&w, argv, x.h.env), 0);
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
    wt_fixture_stop(&f);
}

/* The server back on its port and store (the client reconnects to its URL). */
static void restart_on_the_same_port(struct wt_fixture *f)
{
    char listen[64];
    snprintf(listen, sizeof listen, "127.0.0.1:%d", f->s.port);
    const char *again[] = { "--scenarios", WARROOM_SCENARIO_DIR, "--listen", listen, NULL };
    assert_int_equal(wt_server_restart(&f->s, again), 0);
}

/* --- interactive mode, in tmux ---------------------------------------------------------------- */

static void test_interactive_in_a_terminal(void **state)
{
    struct wt_fixture *f = *state;
    struct tmux t;
    tmux_init(&t, f);
    struct player x, o;
    char game[64], *screen;
    player_init(&x, f, "x");
    player_init(&o, f, "o");
    start_game(&x, &o, "tictactoe", NULL, "o", game, sizeof game);

    /* The x player at the keyboard: the grid, whose decision, the prompt. */
    tmux_start(&t, &x, "x", "play", game);
    screen = screen_shows(&t, "x", T, "    0 | 1 | 2", "   ---+---+---",
                          "move 0: awaiting x (mark)  <- your decision",
                          "Your decision: mark a free cell", "x>", NULL);
    free(screen);
    /* Tab completes the order, then the cell. */
    tmux(&t, NULL, "send-keys", "-t", "x", "ma", "Tab", NULL);
    free(screen_shows(&t, "x", T, "x> mark", NULL));
    tmux(&t, NULL, "send-keys", "-t", "x", "4", "Tab", "Enter", NULL);
    /* Accepted, and the grid redrawn with x on 4. */
    free(screen_shows(&t, "x", T, "accepted: the game is at version 1; now: move 1: awaiting o "
                      "(mark)", "* x marked cell 4", "    3 | x | 5", NULL));
    /* Out of turn: refused here, nothing sent. */
    long before = rejections(f);
    tmux(&t, NULL, "send-keys", "-t", "x", "mark 0", "Enter", NULL);
    free(screen_shows(&t, "x", T, "> mark 0",
                      "refused (checked here, not sent): not_your_turn: it is o's turn", NULL));
    assert_int_equal(rejections(f), before);
    /* help: the orders table. */
    tmux(&t, NULL, "send-keys", "-t", "x", "help", "Enter", NULL);
    free(screen_shows(&t, "x", T, "e.g. mark 4", "tools:  status | log [N] | help | quit",
                      NULL));

    /* The o player: x's move is there; a taken cell is refused here. */
    tmux_start(&t, &o, "o", "play", game);
    free(screen_shows(&t, "o", T, "    3 | x | 5", "o>", NULL));
    tmux(&t, NULL, "send-keys", "-t", "o", "mark 4", "Enter", NULL);
    free(screen_shows(&t, "o", T, "refused (checked here, not sent): enemy_square: cell 4 is "
                      "taken", NULL));
    assert_int_equal(rejections(f), before);
    /* o's move arrives at x as a patch. */
    EXPECT(&o, 0, "accepted", "do", game, "mark 0");
    free(screen_shows(&t, "x", T, "* o marked cell 0", "    o | 1 | 2", NULL));
    free(screen_shows(&t, "o", T, "* o marked cell 0", NULL));

    /* The server restarts: both reconnect and say so. */
    int status = wt_server_stop(&f->s, SIGTERM, 10000);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    free(screen_shows(&t, "o", T, "reconnecting...", NULL));
    restart_on_the_same_port(f);
    free(screen_shows(&t, "o", T, "reconnected, resynced from version 2", NULL));
    free(screen_shows(&t, "x", T, "reconnected, resynced from version 2", NULL));
    EXPECT(&x, 0, "accepted", "do", game, "mark 8");
    free(screen_shows(&t, "o", T, "* x marked cell 8", "move 3: awaiting o (mark)  <- your "
                      "decision", NULL));

    /* quit and Ctrl-D leave cleanly, the terminal given back. */
    tmux(&t, NULL, "send-keys", "-t", "x", "quit", "Enter", NULL);
    free(screen_shows(&t, "x", T, "EXIT=0", NULL));
    tmux(&t, NULL, "send-keys", "-t", "o", "C-d", NULL);
    free(screen_shows(&t, "o", T, "EXIT=0", NULL));
    tmux(&t, NULL, "kill-server", NULL);
}

/* --- interactive mode and the connection ----------------------------------------------- */

/* The game's version and board as the other seat sees them (a one-shot
 * `status`, its own connection). */
static void expect_game(struct player *p, const char *game, long version, const char *board)
{
    json_t *s = run_json(p, 0, "status", game, NULL);
    assert_string_equal(str(s, "type"), "state");
    assert_int_equal(json_integer_value(json_object_get(s, "version")), version);
    assert_string_equal(str(json_object_get(s, "state"), "board"), board);
    json_decref(s);
}

/* Its own server and a tictactoe game: x in `warroom play` in a tmux pane,
 * awaited for his first mark; o a one-shot player. */
static void x_plays_tictactoe(struct wt_fixture *f, struct tmux *t, struct player *x,
                              struct player *o, char *game, size_t len)
{
    memset(f, 0, sizeof *f);
    assert_int_equal(wt_fixture_start(f), 0);
    tmux_init(t, f);
    player_init(x, f, "x");
    player_init(o, f, "o");
    start_game(x, o, "tictactoe", NULL, "o", game, len);
    tmux_start(t, x, "x", "play", game);
    free(screen_shows(t, "x", T, "Your decision: mark a free cell", "x>", NULL));
}

static void test_orders_typed_offline_are_refused(void **state)
{
    (void)state;
    struct wt_fixture f;
    struct tmux t;
    struct player x, o;
    char game[64];
    x_plays_tictactoe(&f, &t, &x, &o, game, sizeof game);

    /* The server goes away (SIGTERM, its own pid); the client says so. */
    int status = wt_server_stop(&f.s, SIGTERM, 10000);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    free(screen_shows(&t, "x", T, "reconnecting...", NULL));
    /* An order now: refused at once, not kept. A question is still answered. */
    tmux(&t, NULL, "send-keys", "-t", "x", "mark 4", "Enter", NULL);
    free(screen_shows(&t, "x", T, "> mark 4", "not connected: nothing sent (reconnecting...",
                      NULL));
    tmux(&t, NULL, "send-keys", "-t", "x", "help", "Enter", NULL);
    free(screen_shows(&t, "x", T, "tools:  status | log [N] | help | quit", NULL));

    /* Back on the same port: the client resyncs, and nothing was sent. */
    restart_on_the_same_port(&f);
    free(screen_shows(&t, "x", T, "reconnected, resynced from version 0",
                      "online again: orders typed now are sent", NULL));
    expect_game(&o, game, 0, ".........");
    /* The next order is the first the server sees: were "mark 4" queued on
     * this connection, it would have gone first (and this one be refused
     * out of turn). */
    tmux(&t, NULL, "send-keys", "-t", "x", "mark 0", "Enter", NULL);
    free(screen_shows(&t, "x", T, "accepted: the game is at version 1", "* x marked cell 0",
                      NULL));
    expect_game(&o, game, 1, "x........");

    tmux(&t, NULL, "send-keys", "-t", "x", "quit", "Enter", NULL);
    free(screen_shows(&t, "x", T, "EXIT=0", NULL));
    tmux(&t, NULL, "kill-server", NULL);
    wt_fixture_stop(&f);
}

static void test_order_in_flight_when_the_server_dies(void **state)
{
    (void)state;
    struct wt_fixture f;
    struct tmux t;
    struct player x, o;
    char game[64];
    x_plays_tictactoe(&f, &t, &x, &o, game, sizeof game);

    /* The server frozen (its own pid): the order goes to the socket (or
     * waits to) and no answer comes; then the server dies unanswering. */
    assert_int_equal(kill(f.s.pid, SIGSTOP), 0);
    tmux(&t, NULL, "send-keys", "-t", "x", "mark 4", "Enter", NULL);
    free(screen_shows(&t, "x", T, "> mark 4", NULL));
    int status = wt_server_stop(&f.s, SIGKILL, 10000);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    free(screen_shows(&t, "x", T, "connection lost while \"mark 4\" was unanswered: it may or "
                      "may not have been applied;", "it is sent again once online, numbered 1",
                      "reconnecting...", NULL));
    /* Back: the order is sent once more with its number, applied once,
     * and its answer says which order it was. */
    restart_on_the_same_port(&f);
    free(screen_shows(&t, "x", T, "reconnected, resynced from version 0",
                      "\"mark 4\" (in flight when the connection dropped):",
                      "accepted: the game is at version 1", "* x marked cell 4", NULL));
    expect_game(&o, game, 1, "....x....");

    tmux(&t, NULL, "send-keys", "-t", "x", "quit", "Enter", NULL);
    free(screen_shows(&t, "x", T, "EXIT=0", NULL));
    tmux(&t, NULL, "kill-server", NULL);
    wt_fixture_stop(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tictactoe_oneshot),
        cmocka_unit_test(test_config_must_be_private),
        cmocka_unit_test(test_refused_locally_like_the_server),
        cmocka_unit_test(test_waterloo_in_json),
        cmocka_unit_test(test_new_options),
        cmocka_unit_test(test_wait_returns_when_the_other_seat_moves),
        cmocka_unit_test(test_wait_survives_a_server_restart),
        cmocka_unit_test(test_interactive_in_a_terminal),
        cmocka_unit_test(test_orders_typed_offline_are_refused),
        cmocka_unit_test(test_order_in_flight_when_the_server_dies),
    };
    return cmocka_run_group_tests(tests, wt_fixture_setup, wt_fixture_teardown);
}
