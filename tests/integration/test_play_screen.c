#define _GNU_SOURCE
/*
 * test_play_screen.c - `warroom play` in a terminal (tmux) of 80x24, 132x50
 * and 200x60 against the real warroomd on 127.0.0.1 (port 0), real 1815
 * games with both seats claimed, each player its own `warroom` process and
 * HOME (tests/support/player.h):
 *   - after the first redraw, and after a patch (the other seat moving with
 *     a one-shot `warroom do`): the screen's first line is the board's
 *     diagonal numbers (nothing scrolled off), the rows of the awaited
 *     side's units are on the board, no line is wider than the terminal;
 *     after the patch, the moved unit's new square is on the board, marked
 *     '+' as the other side's last move (no longer after the player's own
 *     next order);
 *   - at allied turn 1, the decision panel says "Reinforcements due" with an
 *     example order; the order read from the screen (or from `status`, the
 *     whole panel, when the panel is cut) and typed as shown is accepted,
 *     and the reinforcement stands on the board;
 *   - Shift+Down and Shift+Right scroll the board (its first row or its
 *     numbers change); Ctrl-C on an empty line asks "leave? (y/n)", n keeps
 *     playing, quit leaves;
 *   - in games of the small scenario played until the dice give them, a
 *     retreat panel naming the losing unit and its open squares, and an
 *     exchange panel naming the units that may pay and the factors owed,
 *     as the state says.
 *
 * Every wait polls the screen until the text shows or a deadline passes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <jansson.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "player.h"
#include "proc.h"

#ifndef WARROOM_SCENARIO_DIR
#error "WARROOM_SCENARIO_DIR must be defined by the build"
#endif

#define T WT_CLIENT_MS

/* A new game of scenario (NULL: the default, 1815) by fr, the allied seat
 * claimed by al; its id into game. */
static void new_game(struct player *fr, struct player *al, const char *scenario, char *game,
                     size_t n)
{
    json_t *c = scenario ? run_json(fr, 0, "new", "--ruleset", "waterloo", "--scenario",
                                    scenario, NULL)
                         : run_json(fr, 0, "new", NULL);
    assert_string_equal(str(c, "type"), "created");
    assert_string_equal(str(c, "seat"), "french");
    snprintf(game, n, "%s", str(c, "game"));
    json_t *cl = run_json(al, 0, "claim", str(json_object_get(c, "invites"), "allied"), NULL);
    assert_string_equal(str(cl, "seat"), "allied");
    json_decref(cl);
    json_decref(c);
}

/* The game's state as p sees it (a new reference). */
static json_t *state_of(struct player *p, const char *game)
{
    json_t *s = run_json(p, 0, "status", game, NULL);
    json_t *st = json_incref(json_object_get(s, "state"));
    json_decref(s);
    assert_non_null(st);
    return st;
}

/* --- reading the screen ------------------------------------------------------------- */

/* Line k of screen (0-based) into line; 0, or -1 when it has fewer lines. */
static int screen_line(const char *screen, int k, char *line, size_t n)
{
    const char *s = screen;
    for (; k > 0 && s; k--) {
        s = strchr(s, '\n');
        s = s ? s + 1 : NULL;
    }
    if (s == NULL || *s == '\0')
        return -1;
    size_t len = strcspn(s, "\n");
    snprintf(line, n, "%.*s", (int)len, s);
    return 0;
}

/* A line of the board's diagonal numbers: blanks and numbers, two at least. */
static int is_number_line(const char *line)
{
    int numbers = 0;
    for (const char *c = line; *c; c++) {
        if (!isdigit((unsigned char)*c) && *c != ' ')
            return 0;
        numbers += isdigit((unsigned char)*c) && (c == line || c[-1] == ' ');
    }
    return numbers >= 2;
}

/* A line of the board's map: a row name (one or two capitals, or "0")
 * and a blank first. */
static int is_row_line(const char *line)
{
    size_t n = strspn(line, "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
    if (line[0] == '0')
        n = 1;
    return n >= 1 && n <= 2 && line[n] == ' ' && line[n + 1] == ' ';
}

/* The board's line of row (its name first, then blanks), or NULL. */
static const char *row_line(const char *screen, const char *row, char *line, size_t n)
{
    for (int k = 0; screen_line(screen, k, line, n) == 0; k++) {
        size_t rl = strlen(row);
        if (strncmp(line, row, rl) == 0 && line[rl] == ' ' && line[rl + 1] == ' ')
            return line;
    }
    return NULL;
}

/* An Anglo-Allied stack's marker in line: "AHQ" or 'A' and its factors. */
static int allied_stack_in(const char *line)
{
    for (const char *c = strchr(line, 'A'); c; c = strchr(c + 1, 'A'))
        if (strncmp(c, "AHQ", 3) == 0 || isdigit((unsigned char)c[1]))
            return 1;
    return 0;
}

/* The row name of a square ("J-40" -> "J"). */
static void row_of(const char *square, char *row, size_t n)
{
    snprintf(row, n, "%.*s", (int)strcspn(square, "-"), square);
}

/* The screen fits: the first line is the board's numbers, no line wider
 * than cols - 1 (lines the terminal wrapped come back whole), and the row
 * of at least one unit of seat's side on the board is on it. */
static void expect_fitting_board(const char *screen, int cols, const json_t *st,
                                 const char *side_prefix, const char *what)
{
    char line[1024];
    if (screen_line(screen, 0, line, sizeof line) != 0 || !is_number_line(line))
        fail_msg("%s (%d columns): the first line is not the board's numbers: '%s'\n%s", what,
                 cols, line, screen);
    for (int k = 0; screen_line(screen, k, line, sizeof line) == 0; k++)
        if ((int)strlen(line) > cols - 1)
            fail_msg("%s: line %d has %zu characters (the terminal has %d):\n%s", what, k + 1,
                     strlen(line), cols, screen);
    const char *id;
    json_t *u;
    int seen = 0, units = 0;
    json_object_foreach(json_object_get(st, "units"), id, u) {
        const char *at = str(u, "at");
        if (strncmp(id, side_prefix, strlen(side_prefix)) != 0 || at == NULL ||
            !isupper((unsigned char)at[0]))
            continue;
        units++;
        char row[8];
        row_of(at, row, sizeof row);
        seen += row_line(screen, row, line, sizeof line) != NULL;
    }
    if (units == 0 || seen == 0)
        fail_msg("%s: none of the rows of the %s units (%d on the board) is on screen:\n%s",
                 what, side_prefix, units, screen);
}

/* The text of the first `e.g. "..."` after marker in screen, its lines
 * joined (the panel wraps at blanks: a line break and its indent were one
 * blank). NULL when the screen lacks it; caller frees. */
static char *example_after(const char *screen, const char *marker)
{
    const char *m = strstr(screen, marker);
    const char *e = m ? strstr(m, "e.g. \"") : NULL;
    if (e == NULL)
        return NULL;
    e += strlen("e.g. \"");
    const char *end = strchr(e, '"');
    if (end == NULL)
        return NULL;
    char *out = malloc((size_t)(end - e) + 1);
    size_t n = 0;
    for (const char *c = e; c < end; c++) {
        if (*c == '\n') {
            while (c + 1 < end && c[1] == ' ')
                c++;
            out[n++] = ' ';
        } else {
            out[n++] = *c;
        }
    }
    out[n] = '\0';
    return out;
}

/* Poll the pane until its line k differs from before and the redraw is
 * whole (deadline T): the changed line is one of the board's (numbers for
 * line 0, a row for the others) and the prompt, drawn last, is on screen.
 * A look in the middle of a redraw (the numbers drawn, the rows not yet)
 * is not an answer. */
static char *line_changes(struct tmux *t, const char *pane, int k, const char *before,
                          const char *prompt)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    long deadline = ts.tv_sec * 1000L + ts.tv_nsec / 1000000L + T;
    for (;;) {
        char *screen = screen_now(t, pane);
        char line[1024];
        if (screen_line(screen, k, line, sizeof line) == 0 && strcmp(line, before) != 0 &&
            (k == 0 ? is_number_line(line) : is_row_line(line)) && strstr(screen, prompt))
            return screen;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        if (ts.tv_sec * 1000L + ts.tv_nsec / 1000000L >= deadline)
            fail_msg("pane %s: line %d stayed '%s':\n%s", pane, k + 1, before, screen);
        free(screen);
        poll(NULL, 0, 50);      /* the next look at the screen: a bounded poll */
    }
}

/* Poll the pane until text is gone from it (deadline T). */
static char *screen_lacks(struct tmux *t, const char *pane, const char *text)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    long deadline = ts.tv_sec * 1000L + ts.tv_nsec / 1000000L + T;
    for (;;) {
        char *screen = screen_now(t, pane);
        if (!strstr(screen, text))
            return screen;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        if (ts.tv_sec * 1000L + ts.tv_nsec / 1000000L >= deadline)
            fail_msg("pane %s: \"%s\" stayed:\n%s", pane, text, screen);
        free(screen);
        poll(NULL, 0, 50);      /* the next look at the screen: a bounded poll */
    }
}

/* --- an 1815 game at one size ------------------------------------------------------------ */

static void game_at(struct wt_fixture *f, int cols, int rows)
{
    struct tmux t;
    struct player fr, al;
    char game[64], pane[16], what[64], line[1024];
    tmux_init(&t, f);
    player_init(&fr, f, "french");
    player_init(&al, f, "allied");
    new_game(&fr, &al, NULL, game, sizeof game);
    EXPECT(&fr, 0, "awaiting allied (setup)", "do", game, "endsetup");
    EXPECT(&al, 0, "awaiting french (move)", "do", game, "endsetup");
    snprintf(pane, sizeof pane, "al%d", cols);

    /* The allied player at the keyboard while the French move. */
    tmux_start_size(&t, &al, pane, "play", game, cols, rows);
    char *screen = screen_shows(&t, pane, T, "awaiting french (move)", "allied>", NULL);
    json_t *st = state_of(&al, game);
    snprintf(what, sizeof what, "%dx%d, the first redraw", cols, rows);
    expect_fitting_board(screen, cols, st, "fr-", what);
    json_decref(st);
    free(screen);

    /* The French move as their panel shows (one-shot): a patch. */
    struct result r = run(&fr, "status", game, NULL);
    char *move = example_after(r.out, "Orders:");
    if (r.rc != 0 || move == NULL || strncmp(move, "move ", 5) != 0)
        fail_msg("the French panel gives no move: %s", r.out);
    result_free(&r);
    EXPECT(&fr, 0, "accepted", "do", game, move);
    const char *to = strrchr(move, ' ') + 1;      /* the path's last square */
    char row[8];
    row_of(to, row, sizeof row);
    screen = screen_shows(&t, pane, T, " moved from ", NULL);
    st = state_of(&al, game);
    snprintf(what, sizeof what, "%dx%d, after a patch", cols, rows);
    expect_fitting_board(screen, cols, st, "fr-", what);
    json_decref(st);
    if (!row_line(screen, row, line, sizeof line) || !strstr(line, "+F"))
        fail_msg("%s: the moved unit's row %s (of %s) is not on screen, marked '+':\n%s", what,
                 row, to, screen);
    free(screen);
    free(move);

    /* Allied turn 1: the reinforcements, their order as shown, typed. */
    EXPECT(&fr, 0, "awaiting allied (move)", "do", game, "end");
    screen = screen_shows(&t, pane, T, "Reinforcements due", NULL);
    char *order = example_after(screen, "Reinforcements due");
    if (order == NULL) {
        /* the panel is cut: status shows it whole */
        free(screen);
        tmux(&t, NULL, "send-keys", "-t", pane, "status", "Enter", NULL);
        screen = screen_shows(&t, pane, T, "-- lines ", "Reinforcements due", NULL);
        order = example_after(screen, "Reinforcements due");
        tmux(&t, NULL, "send-keys", "-t", pane, "Enter", NULL);    /* back to the board */
    }
    if (order == NULL)
        fail_msg("%dx%d: no example order after \"Reinforcements due\":\n%s", cols, rows,
                 screen);
    free(screen);
    tmux(&t, NULL, "send-keys", "-t", pane, "-l", order, NULL);
    tmux(&t, NULL, "send-keys", "-t", pane, "Enter", NULL);
    screen = screen_shows(&t, pane, T, "accepted: the game is at version", NULL);
    const char *unit_end = strchr(order + 5, ' ');
    char unit[64];
    snprintf(unit, sizeof unit, "%.*s", (int)(unit_end - (order + 5)), order + 5);
    st = state_of(&al, game);
    const char *at = str(json_object_get(json_object_get(st, "units"), unit), "at");
    if (at == NULL || !isupper((unsigned char)at[0]))
        fail_msg("%s is not on the board after '%s'", unit, order);
    row_of(at, row, sizeof row);
    free(screen);
    screen = screen_shows(&t, pane, T, "allied>", NULL);
    if (!row_line(screen, row, line, sizeof line) || !allied_stack_in(line))
        fail_msg("%dx%d: %s's row %s (of %s) is not on the board with an allied stack:\n%s",
                 cols, rows, unit, row, at, screen);
    snprintf(what, sizeof what, "%dx%d, after the reinforcement", cols, rows);
    expect_fitting_board(screen, cols, st, "aa-", what);
    /* the player's own order: the French move is no longer marked */
    for (int k = 1; screen_line(screen, k, line, sizeof line) == 0; k++)
        if (is_row_line(line) && strchr(line, '+'))
            fail_msg("%s: a square still marked '+' on row line %d: '%s'\n%s", what, k + 1,
                     line, screen);
    json_decref(st);
    free(order);

    /* Shift+Down: another first row; Shift+Right: other numbers (unless
     * the whole width of the board is on screen already). */
    char first[1024];
    assert_int_equal(screen_line(screen, 1, first, sizeof first), 0);
    free(screen);
    tmux(&t, NULL, "send-keys", "-t", pane, "S-Down", NULL);
    screen = line_changes(&t, pane, 1, first, "allied>");
    expect_fitting_board(screen, cols, st = state_of(&al, game), "aa-", "after Shift+Down");
    json_decref(st);
    if (cols < 200) {
        assert_int_equal(screen_line(screen, 0, first, sizeof first), 0);
        free(screen);
        tmux(&t, NULL, "send-keys", "-t", pane, "S-Right", NULL);
        screen = line_changes(&t, pane, 0, first, "allied>");
        assert_int_equal(screen_line(screen, 0, line, sizeof line), 0);
        assert_true(is_number_line(line));
    }
    free(screen);

    /* Ctrl-C: a line typed goes; on an empty line, a question; n stays. */
    tmux(&t, NULL, "send-keys", "-t", pane, "-l", "move nothing", NULL);
    free(screen_shows(&t, pane, T, "allied> move nothing", NULL));
    tmux(&t, NULL, "send-keys", "-t", pane, "C-c", NULL);
    free(screen_lacks(&t, pane, "move nothing"));
    screen = screen_shows(&t, pane, T, "allied>", NULL);
    assert_null(strstr(screen, "leave? (y/n)"));        /* a line typed: no question */
    free(screen);
    tmux(&t, NULL, "send-keys", "-t", pane, "C-c", NULL);
    free(screen_shows(&t, pane, T, "leave? (y/n)", NULL));
    tmux(&t, NULL, "send-keys", "-t", pane, "n", NULL);
    screen = screen_shows(&t, pane, T, "still playing", "allied>", NULL);
    assert_null(strstr(screen, "EXIT="));
    free(screen);
    tmux(&t, NULL, "send-keys", "-t", pane, "quit", "Enter", NULL);
    free(screen_shows(&t, pane, T, "EXIT=0", NULL));
    tmux(&t, NULL, "kill-server", NULL);
}

static void test_80x24(void **state)
{
    game_at(*state, 80, 24);
}

static void test_132x50(void **state)
{
    game_at(*state, 132, 50);
}

static void test_200x60(void **state)
{
    game_at(*state, 200, 60);
}

/* --- retreat and exchange panels ------------------------------------------------------------- */

/* Routes known to be open in the small scenario's first battle
 * (tests/integration/test_server_games.c plays a position like it). */
static const struct {
    const char *unit, *first, *second;
} routes[] = {
    { "fr-jerome", "J-40", "K-40" }, { "aa-cooke", "G-42", "F-42" },
};

/* The printed combat factors of unit in the small scenario. */
static int factors_of(const char *unit)
{
    json_t *sc = json_load_file(WARROOM_SCENARIO_DIR "/test/small.json", 0, NULL);
    assert_non_null(sc);
    size_t i;
    json_t *u;
    int f = -1;
    json_array_foreach(json_object_get(sc, "units"), i, u)
        if (strcmp(str(u, "id"), unit) == 0)
            f = (int)json_integer_value(json_object_get(u, "combat"));
    json_decref(sc);
    assert_true(f >= 0);
    return f;
}

/* The player of seat ("french" or "allied") in play in pane: its panel
 * must name what the state allows. Returns 1 when the state awaited a
 * retreat, 2 an exchange (after checking the panel), 0 otherwise. */
static int check_panel(struct wt_fixture *f, struct tmux *t, struct player *p, const char *game,
                       int want)
{
    json_t *st = state_of(p, game);
    json_t *aw = json_object_get(st, "awaiting");
    const char *what = str(aw, "what");
    int kind = what && strcmp(what, "retreat") == 0 ? 1
             : what && strcmp(what, "exchange_losses") == 0 ? 2 : 0;
    if (kind == 0 || !(want & kind)) {
        json_decref(st);
        return 0;
    }
    (void)f;
    tmux_start_size(t, p, "panel", "play", game, 132, 50);
    char *screen = screen_shows(t, "panel", T, "Your decision", NULL);
    /* the whole panel, for a check that does not depend on the room */
    tmux(t, NULL, "send-keys", "-t", "panel", "status", "Enter", NULL);
    free(screen);
    screen = screen_shows(t, "panel", T, "> status", NULL);
    if (kind == 1) {
        const char *id;
        json_t *u;
        json_object_foreach(json_object_get(st, "units"), id, u) {
            if (!json_is_true(json_object_get(u, "retreat")))
                continue;
            if (!strstr(screen, id))
                fail_msg("the retreat panel does not name %s:\n%s", id, screen);
            for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
                char route[32];
                snprintf(route, sizeof route, "%s %s", routes[i].first, routes[i].second);
                if (strcmp(routes[i].unit, id) == 0 && !strstr(screen, route))
                    fail_msg("the retreat panel does not offer %s's open route %s:\n%s", id,
                             route, screen);
            }
        }
    } else {
        json_t *b = json_array_get(json_object_get(st, "battles"),
                                   (size_t)json_integer_value(json_object_get(st,
                                                                              "current_battle")));
        const char *seat = str(aw, "seat");
        const char *mine_prefix = strcmp(seat, "french") == 0 ? "fr-" : "aa-";
        int owed = 0, named = 0;
        const char *sides[] = { "attackers", "defenders" };
        for (int s = 0; s < 2; s++) {
            size_t i;
            json_t *u;
            json_array_foreach(json_object_get(b, sides[s]), i, u) {
                const char *id = json_string_value(u);
                if (strncmp(id, mine_prefix, 3) != 0) {
                    owed += factors_of(id);
                    continue;
                }
                const char *at = str(json_object_get(json_object_get(st, "units"), id), "at");
                if (at && isupper((unsigned char)at[0])) {
                    if (!strstr(screen, id))
                        fail_msg("the exchange panel does not name %s:\n%s", id, screen);
                    named++;
                }
            }
        }
        char num[32];
        snprintf(num, sizeof num, " %d ", owed);
        if (named == 0 || !strstr(screen, num))
            fail_msg("the exchange panel does not say %d factors are owed:\n%s", owed, screen);
    }
    free(screen);
    tmux(t, NULL, "send-keys", "-t", "panel", "quit", "Enter", NULL);
    free(screen_shows(t, "panel", T, "EXIT=0", NULL));
    tmux(t, NULL, "kill-session", "-t", "panel", NULL);
    json_decref(st);
    return kind;
}

/* Fresh games of the small scenario: Jerome and Pire attack Cooke at 1-1
 * (die 1-4: a retreat, 6: an exchange where the French choose whom to
 * lose: 10 factors owe 6, and Pire's 4 alone would not do), Foy attacks
 * Picton; battle 0 is resolved, until a retreat and an exchange have both
 * been awaited (40 games at most: an exchange misses them all 1 time in
 * 1500). */
static void test_retreat_and_exchange_panels(void **state)
{
    struct wt_fixture *f = *state;
    struct tmux t;
    tmux_init(&t, f);
    int seen = 0;
    for (int n = 0; n < 40 && seen != 3; n++) {
        struct player fr, al;
        char game[64], name[16];
        snprintf(name, sizeof name, "fr%d", n);
        player_init(&fr, f, name);
        snprintf(name, sizeof name, "al%d", n);
        player_init(&al, f, name);
        new_game(&fr, &al, "test/small", game, sizeof game);
        EXPECT(&fr, 0, "accepted", "do", game, "endsetup");
        EXPECT(&al, 0, "accepted", "do", game, "endsetup");
        EXPECT(&fr, 0, "accepted", "do", game, "move fr-jerome J-40 I-40");
        EXPECT(&fr, 0, "accepted", "do", game, "move fr-foy J-40 J-39 I-39");
        EXPECT(&fr, 0, "accepted", "do", game, "move fr-pire J-41 I-41");
        EXPECT(&fr, 0, "accepted", "do", game, "end");
        EXPECT(&fr, 0, "accepted", "do", game, "attack fr-jerome,fr-pire vs aa-cooke; fr-foy "
                                                 "vs aa-picton");
        EXPECT(&fr, 0, "accepted", "do", game, "resolve");
        json_t *st = state_of(&fr, game);
        const char *seat = str(json_object_get(st, "awaiting"), "seat");
        struct player *awaited = seat && strcmp(seat, "allied") == 0 ? &al : &fr;
        json_decref(st);
        seen |= check_panel(f, &t, awaited, game, 3 & ~seen);
    }
    tmux(&t, NULL, "kill-server", NULL);
    if (seen != 3)
        fail_msg("in 40 games, %s never awaited", seen & 1 ? "an exchange" : "a retreat");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_80x24),
        cmocka_unit_test(test_132x50),
        cmocka_unit_test(test_200x60),
        cmocka_unit_test(test_retreat_and_exchange_panels),
    };
    return cmocka_run_group_tests(tests, wt_fixture_setup, wt_fixture_teardown);
}
