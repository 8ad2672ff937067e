/*
 * test_undo.c - taking back a move (the undo command, option undo;
 * docs/rules-notes.md, "Taking back a move") on the small test scenario and
 * its teams variant: the position and the movement restored exactly, the
 * units a move eliminated back, an entered reinforcement back off the
 * board, an exit taken off the count; refused after a roll, after the phase,
 * from the other side, with the option off, with nothing to take back, and
 * in a team game for another commander's move; a record with undos replays
 * to the same state; the presentation offers undo only when it is allowed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "present.h"
#include "record.h"
#include "ruleset.h"
#include "strbuf.h"
#include "waterloo_command.h"
#include "waterloo_game.h"
#include "waterloo_scenario.h"
#include "waterloo_teams.h"
#include "wl_testdata.h"

#ifndef WARROOM_SCENARIO_DIR
#error "WARROOM_SCENARIO_DIR must be defined by the build"
#endif

#define UNDO "{\"type\":\"undo\"}"

struct fixture {
    struct wl_scenario sc;
    struct wl_game g;
    struct wlt_dice dice;   /* forced dice, consumed in order */
    json_t *events;         /* the events of the last accepted command */
};

/* A game of file (under rules 2) with opt's commanders and undo. */
static struct fixture *fixture_new(const char *file, int commanders, int undo)
{
    struct fixture *f = calloc(1, sizeof *f);
    struct wr_refusal why;
    if (f == NULL || wl_scenario_load_file(&f->sc, file, &why) != 0)
        fail_msg("cannot load %s: %s", file, f ? why.message : "oom");
    struct wl_options opt = wl_options_default();
    opt.commanders = commanders;
    opt.undo = undo;
    wl_game_init_with(&f->g, &f->sc, "test-undo", NULL, &opt);
    f->g.roll_source = wlt_dice_roll;
    f->g.roll_ctx = &f->dice;
    return f;
}

static int setup_small(void **state)
{
    *state = fixture_new(WARROOM_SCENARIO_DIR "/test/small.json", 1, 1);
    return 0;
}

static int setup_teams(void **state)
{
    *state = fixture_new(WARROOM_SCENARIO_DIR "/test/teams.json", 2, 1);
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    json_decref(f->events);
    free(f);
    return 0;
}

static char *state_text(const struct wl_game *g)
{
    json_t *st = wl_game_state_json(g);
    char *s = json_dumps(st, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(st);
    return s;
}

/* Apply text from commander k of side: its reason. A refused command
 * leaves the state exactly as it was; the invariants hold either way; an
 * accepted one's events are kept in f->events. */
static enum wl_reason run_by(struct fixture *f, int side, int k, const char *text,
                             struct wr_refusal *why)
{
    json_t *cmd = json_loads(text, 0, NULL), *events = NULL;
    if (cmd == NULL)
        fail_msg("test data: bad JSON %s", text);
    char *before = state_text(&f->g);
    enum wl_reason r = wl_game_apply_json_by(&f->g, side, k, cmd, &events, why);
    char *after = state_text(&f->g);
    if (r != WL_R_OK && strcmp(before, after) != 0)
        fail_msg("refused command %s changed the state", text);
    struct wr_refusal inv;
    if (wl_game_check(&f->g, &inv) != 0)
        fail_msg("after %s: invariant broken: %s", text, inv.message);
    if (r == WL_R_OK) {
        json_decref(f->events);
        f->events = events;
    }
    free(before);
    free(after);
    json_decref(cmd);
    return r;
}

static void expect_by(struct fixture *f, int row, int side, int k, const char *text,
                      enum wl_reason want)
{
    struct wr_refusal why = { WL_R_OK, "ok", "" };
    enum wl_reason r = run_by(f, side, k, text, &why);
    if (r != want)
        fail_msg("row %d: %s gave %s (%s), want %s", row, text, wl_reason_code(r), why.message,
                 wl_reason_code(want));
}

static void expect(struct fixture *f, int row, int side, const char *text, enum wl_reason want)
{
    expect_by(f, row, side, 0, text, want);
}

/* Take every unit off the board but the named ones. */
static void only(struct fixture *f, const char *const *ids, const char *const *at)
{
    for (int i = 0; i < f->sc.nunits; i++) {
        if (!wl_unit_in_game(&f->g, i))
            continue;
        f->g.units[i].where = WL_ELIMINATED;
        f->g.units[i].at = WL_SQ_NONE;
    }
    for (int k = 0; ids[k]; k++) {
        int i = wlt_unit(&f->sc, ids[k]);
        f->g.units[i].where = WL_ON_BOARD;
        f->g.units[i].at = wlt_sq(at[k]);
    }
}

static void move_phase(struct fixture *f, int side, int turn)
{
    f->g.turn = turn;
    f->g.phase = side == WL_FRENCH ? WL_PH_FRENCH_MOVE : WL_PH_ALLIED_MOVE;
    f->g.await_side = side;
    f->g.await_what = WL_AW_MOVE;
}

/* Does the last accepted command's event list hold an event of type about
 * unit id (NULL: any unit)? */
static int has_event(const struct fixture *f, const char *type, const char *id)
{
    size_t i;
    json_t *e;
    json_array_foreach(f->events, i, e) {
        const char *t = json_string_value(json_object_get(e, "type"));
        const char *u = json_string_value(json_object_get(e, "unit"));
        if (t && strcmp(t, type) == 0 && (id == NULL || (u && strcmp(u, id) == 0)))
            return 1;
    }
    return 0;
}

static void assert_state(const struct fixture *f, int row, const char *want)
{
    char *now = state_text(&f->g);
    if (strcmp(now, want) != 0)
        fail_msg("row %d: the state is not the one before the move taken back:\n%s\n%s", row,
                 now, want);
    free(now);
}

/* --- the move taken back ----------------------------------------------------- */

/* Picton moves through Napoleon's square (rules 2 eliminates the HQ) to
 * E-42; the undo puts both back, unmoved, and Picton may move again. */
static void test_undo_restores_move_and_hq(void **state)
{
    struct fixture *f = *state;
    static const char *const ids[] = { "fr-jerome", "fr-napoleon", "aa-picton", "aa-cooke",
                                       NULL };
    static const char *const at[] = { "P-40", "G-42", "H-42", "H-40" };
    only(f, ids, at);
    move_phase(f, WL_ALLIED, 1);
    char *start = state_text(&f->g);
    /* 1) the move eliminates Napoleon */
    expect(f, 1, WL_ALLIED, "{\"type\":\"move\",\"unit\":\"aa-picton\",\"path\":[\"G-42\","
                            "\"F-42\",\"E-42\"]}", WL_R_OK);
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "fr-napoleon")].where, WL_ELIMINATED);
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "aa-picton")].at, wlt_sq("E-42"));
    assert_true(f->g.units[wlt_unit(&f->sc, "aa-picton")].moved);
    /* 2) undo: the state of before the move, with its events */
    expect(f, 2, WL_ALLIED, UNDO, WL_R_OK);
    assert_state(f, 2, start);
    assert_true(has_event(f, "undone", "aa-picton"));
    assert_true(has_event(f, "restored", "fr-napoleon"));
    json_t *e = json_array_get(f->events, 0);
    assert_string_equal(json_string_value(json_object_get(e, "from")), "E-42");
    assert_string_equal(json_string_value(json_object_get(e, "to")), "H-42");
    /* 3) nothing left to take back; Picton moves again */
    expect(f, 3, WL_ALLIED, UNDO, WL_R_NOTHING_TO_UNDO);
    expect(f, 4, WL_ALLIED, "{\"type\":\"move\",\"unit\":\"aa-picton\",\"path\":[\"G-42\"]}",
           WL_R_OK);
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "fr-napoleon")].where, WL_ELIMINATED);
    free(start);
}

/* Moves are taken back last first, each to the position before it. */
static void test_undo_last_first(void **state)
{
    struct fixture *f = *state;
    static const char *const ids[] = { "fr-jerome", "aa-picton", "aa-cooke", NULL };
    static const char *const at[] = { "P-40", "H-42", "H-40" };
    only(f, ids, at);
    move_phase(f, WL_ALLIED, 1);
    char *s0 = state_text(&f->g);
    expect(f, 1, WL_ALLIED, "{\"type\":\"move\",\"unit\":\"aa-picton\",\"path\":[\"G-42\"]}",
           WL_R_OK);
    char *s1 = state_text(&f->g);
    expect(f, 2, WL_ALLIED, "{\"type\":\"move\",\"unit\":\"aa-cooke\",\"path\":[\"G-40\"]}",
           WL_R_OK);
    expect(f, 3, WL_ALLIED, UNDO, WL_R_OK);
    assert_state(f, 3, s1);
    assert_true(has_event(f, "undone", "aa-cooke"));
    assert_false(has_event(f, "undone", "aa-picton"));
    expect(f, 4, WL_ALLIED, UNDO, WL_R_OK);
    assert_state(f, 4, s0);
    expect(f, 5, WL_ALLIED, UNDO, WL_R_NOTHING_TO_UNDO);
    free(s0);
    free(s1);
}

/* A reinforcement that entered over an HQ (rules 2) goes back off the
 * board, due to arrive, and the HQ comes back. */
static void test_undo_entry(void **state)
{
    struct fixture *f = *state;
    static const char *const ids[] = { "fr-jerome", "fr-napoleon", "aa-cooke", NULL };
    static const char *const at[] = { "P-40", "A-45", "H-40" };
    only(f, ids, at);
    f->g.units[wlt_unit(&f->sc, "pr-15")].where = WL_PENDING;
    move_phase(f, WL_ALLIED, 4);
    char *start = state_text(&f->g);
    expect(f, 1, WL_ALLIED, "{\"type\":\"move\",\"unit\":\"pr-15\",\"path\":[\"0-46\",\"A-45\","
                            "\"B-44\"]}", WL_R_OK);
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "pr-15")].where, WL_ON_BOARD);
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "fr-napoleon")].where, WL_ELIMINATED);
    expect(f, 2, WL_ALLIED, UNDO, WL_R_OK);
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "pr-15")].where, WL_PENDING);
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "pr-15")].at, WL_SQ_NONE);
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "fr-napoleon")].at, wlt_sq("A-45"));
    assert_true(json_is_null(json_object_get(json_array_get(f->events, 0), "to")));
    assert_state(f, 2, start);
    /* it may enter again */
    expect(f, 3, WL_ALLIED, "{\"type\":\"move\",\"unit\":\"pr-15\",\"path\":[\"0-46\",\"A-45\"]}",
           WL_R_OK);
    free(start);
}

/* A French exit taken back: the unit is on the board again and its
 * factors are off the count of those that left (no defection falls due). */
static void test_undo_exit(void **state)
{
    struct fixture *f = *state;
    static const char *const ids[] = { "fr-jerome", "fr-foy", "aa-cooke", NULL };
    static const char *const at[] = { "A-44", "P-40", "H-40" };
    only(f, ids, at);
    move_phase(f, WL_FRENCH, 1);
    char *start = state_text(&f->g);
    expect(f, 1, WL_FRENCH, "{\"type\":\"move\",\"unit\":\"fr-jerome\",\"path\":[\"off\"]}",
           WL_R_OK);
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "fr-jerome")].where, WL_EXITED);
    assert_int_equal(f->g.exited_factors, 6);
    expect(f, 2, WL_FRENCH, UNDO, WL_R_OK);
    assert_int_equal(f->g.exited_factors, 0);
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "fr-jerome")].at, wlt_sq("A-44"));
    assert_true(json_is_null(json_object_get(json_array_get(f->events, 0), "from")));
    assert_state(f, 2, start);
    /* the phase ends with nobody gone: the allied move, no defection */
    expect(f, 3, WL_FRENCH, "{\"type\":\"end_phase\"}", WL_R_OK);
    assert_int_equal(f->g.phase, WL_PH_ALLIED_MOVE);
    free(start);
}

/* --- refusals -------------------------------------------------------------------- */

/* Nothing moved yet; the other side; after the phase and a roll. */
static void test_undo_refused(void **state)
{
    struct fixture *f = *state;
    static const char *const ids[] = { "fr-jerome", "fr-foy", "aa-cooke", "aa-ross", NULL };
    static const char *const at[] = { "K-40", "P-40", "H-40", "C-52" };
    only(f, ids, at);
    /* Ross stands next to Foy: a battle owed from the start of the combat phase */
    f->g.units[wlt_unit(&f->sc, "aa-ross")].at = wl_grid_neighbour(wlt_sq("P-40"), WL_E);
    move_phase(f, WL_FRENCH, 1);
    /* 1) nothing moved in this phase */
    expect(f, 1, WL_FRENCH, UNDO, WL_R_NOTHING_TO_UNDO);
    /* 2) Jerome marches next to Cooke; the allied player may not take it back */
    char mv[160], a[WL_SQ_NAME_MAX];
    int placed = 0;
    /* a path of one square from wherever Jerome can reach next to Cooke:
     * put him one square from a square touching Cooke and walk him in */
    for (int d = 0; d < WL_NDIR && !placed; d++) {
        wl_sq t = wl_grid_neighbour(wlt_sq("H-40"), d);
        if (t == WL_SQ_NONE || !wl_grid_playable(t))
            continue;
        for (int e = 0; e < WL_NDIR && !placed; e++) {
            wl_sq from = wl_grid_neighbour(t, e);
            if (from == WL_SQ_NONE || !wl_grid_playable(from) || from == wlt_sq("H-40"))
                continue;
            int touches = 0;
            for (int x = 0; x < WL_NDIR; x++)
                touches |= wl_grid_neighbour(from, x) == wlt_sq("H-40");
            if (touches)
                continue;
            f->g.units[wlt_unit(&f->sc, "fr-jerome")].at = from;
            snprintf(mv, sizeof mv, "{\"type\":\"move\",\"unit\":\"fr-jerome\",\"path\":[\"%s\"]}",
                     wl_grid_name(t, a));
            struct wr_refusal why;
            placed = run_by(f, WL_FRENCH, 0, mv, &why) == WL_R_OK;
        }
    }
    assert_true(placed);
    expect(f, 2, WL_ALLIED, UNDO, WL_R_NOT_YOUR_TURN);
    /* 3) the phase ends: Jerome must fight; no undo in the combat phase */
    expect(f, 3, WL_FRENCH, "{\"type\":\"end_phase\"}", WL_R_OK);
    assert_int_equal(f->g.phase, WL_PH_FRENCH_COMBAT);
    expect(f, 4, WL_FRENCH, UNDO, WL_R_NOTHING_TO_UNDO);
    /* 4) a die rolled: still none */
    expect(f, 5, WL_FRENCH, "{\"type\":\"declare\",\"battles\":[{\"attackers\":[\"fr-jerome\"],"
                            "\"defenders\":[\"aa-cooke\"]}]}", WL_R_OK);
    f->dice.faces[0] = 6;
    f->dice.n = 1;
    uint32_t rolls = f->g.rolls;
    expect(f, 6, WL_FRENCH, "{\"type\":\"resolve\",\"battle\":0}", WL_R_OK);
    assert_int_equal(f->g.rolls, rolls + 1);
    /* Foy still owes his battle: the French combat phase goes on */
    assert_int_equal(f->g.phase, WL_PH_FRENCH_COMBAT);
    assert_int_equal(f->g.await_side, WL_FRENCH);
    expect(f, 7, WL_FRENCH, UNDO, WL_R_NOTHING_TO_UNDO);
}

/* A tournament game: the option is off, the state says so, and nothing is
 * kept to take back. */
static void test_undo_off(void **state)
{
    struct fixture *f = *state;
    f->g.opt.undo = 0;
    static const char *const ids[] = { "fr-jerome", "aa-picton", "aa-cooke", NULL };
    static const char *const at[] = { "P-40", "H-42", "H-40" };
    only(f, ids, at);
    move_phase(f, WL_ALLIED, 1);
    expect(f, 1, WL_ALLIED, UNDO, WL_R_UNDO_OFF);
    expect(f, 2, WL_ALLIED, "{\"type\":\"move\",\"unit\":\"aa-picton\",\"path\":[\"G-42\"]}",
           WL_R_OK);
    assert_int_equal(f->g.undo.nmoves, 0);
    expect(f, 3, WL_ALLIED, UNDO, WL_R_UNDO_OFF);
    json_t *st = wl_game_state_json(&f->g);
    assert_true(json_is_false(json_object_get(st, "undo")));
    /* a state names undo only when it is off: a game made from it knows */
    struct wl_game *g2 = malloc(sizeof *g2);
    struct wr_refusal why;
    assert_int_equal(wl_game_init_from_state(g2, &f->sc, st, NULL, &why), 0);
    assert_int_equal(g2->opt.undo, 0);
    assert_int_equal(wl_undo_check(g2, WL_ALLIED, 0, NULL), WL_R_UNDO_OFF);
    json_decref(st);
    f->g.opt.undo = 1;
    st = wl_game_state_json(&f->g);
    assert_null(json_object_get(st, "undo"));
    json_decref(st);
    free(g2);
}

/* The option as create() reads it. */
static void test_undo_option(void **state)
{
    struct fixture *f = *state;
    static const struct {
        int row;
        const char *options;
        int ok, undo;
    } t[] = {
        { 1, "{}", 1, 1 },
        { 2, "{\"undo\":true}", 1, 1 },
        { 3, "{\"undo\":false}", 1, 0 },
        { 4, "{\"undo\":0}", 0, 0 },
        { 5, "{\"undo\":\"no\"}", 0, 0 },
        { 6, "{\"rules\":1}", 1, 1 },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        json_t *o = json_loads(t[i].options, 0, NULL);
        struct wl_options opt;
        struct wr_refusal why;
        int rc = wl_options_read(o, &f->sc, &opt, &why);
        json_decref(o);
        if ((rc == 0) != t[i].ok || (rc == 0 && opt.undo != t[i].undo))
            fail_msg("row %d: %s read as rc %d undo %d", t[i].row, t[i].options, rc, opt.undo);
        if (rc != 0)
            assert_string_equal(why.code, "bad_options");
    }
    assert_non_null(wr_ruleset_option(wr_ruleset_find("waterloo"), "undo"));
}

/* A game made from a state does not know where the units came from: it
 * judges an undo (allowed when one of the seat's units moved) but does not
 * make one. */
static void test_undo_from_state(void **state)
{
    struct fixture *f = *state;
    static const char *const ids[] = { "fr-jerome", "aa-picton", "aa-cooke", NULL };
    static const char *const at[] = { "P-40", "H-42", "H-40" };
    only(f, ids, at);
    move_phase(f, WL_ALLIED, 1);
    struct wl_game *g2 = malloc(sizeof *g2);
    struct wr_refusal why;
    json_t *st = wl_game_state_json(&f->g);
    assert_int_equal(wl_game_init_from_state(g2, &f->sc, st, NULL, &why), 0);
    json_decref(st);
    assert_int_equal(wl_undo_check(g2, WL_ALLIED, 0, NULL), WL_R_NOTHING_TO_UNDO);
    expect(f, 1, WL_ALLIED, "{\"type\":\"move\",\"unit\":\"aa-picton\",\"path\":[\"G-42\"]}",
           WL_R_OK);
    st = wl_game_state_json(&f->g);
    assert_int_equal(wl_game_init_from_state(g2, &f->sc, st, NULL, &why), 0);
    json_decref(st);
    assert_int_equal(wl_undo_check(g2, WL_ALLIED, 0, NULL), WL_R_OK);
    assert_int_equal(wl_undo_check(g2, WL_FRENCH, 0, NULL), WL_R_NOTHING_TO_UNDO);
    json_t *cmd = json_loads(UNDO, 0, NULL), *events = NULL;
    assert_int_equal(wl_game_apply_json(g2, WL_ALLIED, cmd, &events, &why), WL_R_BAD_COMMAND);
    assert_null(events);
    json_decref(cmd);
    free(g2);
}

/* --- team play: only his own move ---------------------------------------------------- */

static void test_undo_team(void **state)
{
    struct fixture *f = *state;
    /* Reille's Foy and Napoleon's artillery; Orange's HQ on the road (rules 2) */
    static const char *const ids[] = { "fr-foy", "fr-ii-art", "fr-napoleon", "fr-reille",
                                       "aa-wellington", "aa-orange", "aa-cooke", NULL };
    static const char *const at[] = { "K-40", "L-40", "L-38", "K-42", "E-46", "G-42", "D-40" };
    only(f, ids, at);
    move_phase(f, WL_FRENCH, 1);
    int side, reille, napoleon;
    assert_int_equal(wl_team_parse_seat(&f->g, "french:reille", &side, &reille), 0);
    assert_int_equal(wl_team_parse_seat(&f->g, "french:napoleon", &side, &napoleon), 0);
    char *s0 = state_text(&f->g);
    /* 1) Reille's Foy moves; Napoleon moves his artillery */
    expect_by(f, 1, WL_FRENCH, reille, "{\"type\":\"move\",\"unit\":\"fr-foy\",\"path\":"
                                       "[\"J-40\"]}", WL_R_OK);
    char *s1 = state_text(&f->g);
    expect_by(f, 2, WL_FRENCH, napoleon, "{\"type\":\"move\",\"unit\":\"fr-ii-art\",\"path\":"
                                         "[\"K-41\"]}", WL_R_OK);
    /* 2) the last move is Napoleon's: Reille may not take it back, nor his own
     *    under it */
    struct wr_refusal why;
    assert_int_equal(run_by(f, WL_FRENCH, reille, UNDO, &why), WL_R_NOTHING_TO_UNDO);
    assert_non_null(strstr(why.message, "french:napoleon"));
    /* 3) Napoleon takes his back, then Reille his */
    expect_by(f, 3, WL_FRENCH, napoleon, UNDO, WL_R_OK);
    assert_state(f, 3, s1);
    expect_by(f, 4, WL_FRENCH, napoleon, UNDO, WL_R_NOTHING_TO_UNDO);
    expect_by(f, 5, WL_FRENCH, reille, UNDO, WL_R_OK);
    assert_state(f, 5, s0);
    /* 4) a commander who ended his phase keeps his moves */
    expect_by(f, 6, WL_FRENCH, reille, "{\"type\":\"move\",\"unit\":\"fr-foy\",\"path\":"
                                       "[\"J-40\"]}", WL_R_OK);
    expect_by(f, 7, WL_FRENCH, reille, "{\"type\":\"end_phase\"}", WL_R_OK);
    expect_by(f, 8, WL_FRENCH, reille, UNDO, WL_R_NOTHING_TO_UNDO);
    free(s0);
    free(s1);
}

/* An allied move that runs over Reille's HQ puts him out; taken back, he
 * is in again and commands his units. */
static void test_undo_team_commander_back(void **state)
{
    struct fixture *f = *state;
    static const char *const ids[] = { "fr-foy", "fr-napoleon", "fr-reille", "aa-picton",
                                       "aa-wellington", "aa-orange", NULL };
    static const char *const at[] = { "P-40", "P-38", "G-42", "H-42", "E-46", "D-40" };
    only(f, ids, at);
    move_phase(f, WL_ALLIED, 1);
    char *start = state_text(&f->g);
    expect(f, 1, WL_ALLIED, "{\"type\":\"move\",\"unit\":\"aa-picton\",\"path\":[\"G-42\","
                            "\"F-42\"]}", WL_R_OK);
    assert_true(has_event(f, "commander_out", NULL));
    int side, reille;
    assert_int_equal(wl_team_parse_seat(&f->g, "french:reille", &side, &reille), 0);
    assert_true(f->g.cmdr_out[WL_FRENCH][reille]);
    assert_int_equal(wl_team_commander(&f->g, wlt_unit(&f->sc, "fr-foy")), 0);
    expect(f, 2, WL_ALLIED, UNDO, WL_R_OK);
    assert_false(f->g.cmdr_out[WL_FRENCH][reille]);
    assert_int_equal(wl_team_commander(&f->g, wlt_unit(&f->sc, "fr-foy")), reille);
    assert_true(has_event(f, "restored", "fr-reille"));
    assert_state(f, 2, start);
    free(start);
}

/* --- a record with undos replays to the same state ----------------------------------- */

struct recorder {
    struct wr_strbuf text;
};

static json_t *small_scenario(void)
{
    json_t *sc = json_load_file(WARROOM_SCENARIO_DIR "/test/small.json", 0, NULL);
    if (sc == NULL)
        fail_msg("cannot read small.json");
    return sc;
}

/* Apply cmd from seat on g and append its record line to out. */
static void record_line(struct wr_game *g, const char *seat, const char *text,
                        struct wr_strbuf *out)
{
    json_t *cmd = json_loads(text, 0, NULL), *events = NULL;
    struct wr_refusal why;
    if (cmd == NULL)
        fail_msg("test data: bad JSON %s", text);
    if (wr_game_apply(g, seat, cmd, &events, &why) != 0)
        fail_msg("%s from %s refused: %s", text, seat, why.message);
    json_t *line = json_pack("{s:s, s:O}", "seat", seat, "cmd", cmd);
    json_t *rolls = json_array();
    size_t i;
    json_t *e;
    json_array_foreach(events, i, e)
        if (strcmp(json_string_value(json_object_get(e, "type")), "roll") == 0)
            json_array_append_new(rolls, json_pack("[O, O]", json_object_get(e, "k"),
                                                   json_object_get(e, "face")));
    if (json_array_size(rolls) > 0)
        json_object_set(line, "rolls", rolls);
    json_decref(rolls);
    char *s = json_dumps(line, JSON_COMPACT);
    wr_strbuf_printf(out, "%s\n", s);
    free(s);
    json_decref(line);
    json_decref(events);
    json_decref(cmd);
}

static void test_undo_record_replay(void **state)
{
    (void)state;
    const struct wr_ruleset *rs = wr_ruleset_find("waterloo");
    json_t *sc = small_scenario();
    json_t *options = json_pack("{s:i}", "rules", 2);
    static const uint8_t seed[32] = { 9, 8, 7 };
    struct wr_refusal why;
    struct wr_game *g = rs->create(sc, options, "undo-record", seed, NULL, &why);
    assert_non_null(g);
    struct wr_strbuf rec;
    wr_strbuf_init(&rec);
    char *header = wr_record_header("undo-record", "waterloo", NULL, sc, options, seed);
    wr_strbuf_printf(&rec, "%s\n", header);
    free(header);
    static const struct {
        const char *seat, *cmd;
    } lines[] = {
        { "french", "{\"type\":\"end_setup\"}" },
        { "allied", "{\"type\":\"end_setup\"}" },
        { "french", "{\"type\":\"move\",\"unit\":\"fr-pire\",\"path\":[\"J-41\"]}" },
        { "french", UNDO },
        { "french",
          "{\"type\":\"move\",\"units\":[\"fr-jerome\",\"fr-foy\"],\"path\":[\"J-40\"]}" },
        { "french", "{\"type\":\"move\",\"unit\":\"fr-pire\",\"path\":[\"J-42\"]}" },
        { "french", UNDO },
        { "french", "{\"type\":\"end_phase\"}" },
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        record_line(g, lines[i].seat, lines[i].cmd, &rec);
    json_t *live = rs->project(g, NULL);
    /* the record says so, and replays to the same public state */
    assert_non_null(strstr(rec.s, "\"undo\""));
    struct wr_record_opts o = { .find = wr_ruleset_find };
    struct wr_record_result res;
    int rc = wr_record_replay(rec.s, rec.len, &o, &res, &why);
    if (rc != 0)
        fail_msg("replay: %s", why.message);
    assert_int_equal(res.accepted, (int)(sizeof lines / sizeof lines[0]));
    json_t *replayed = res.rs->project(res.game, NULL);
    char *a = json_dumps(live, JSON_COMPACT | JSON_SORT_KEYS);
    char *b = json_dumps(replayed, JSON_COMPACT | JSON_SORT_KEYS);
    assert_string_equal(a, b);
    free(a);
    free(b);
    json_decref(replayed);
    json_decref(live);
    wr_record_result_release(&res);
    rs->destroy(g);
    wr_strbuf_release(&rec);
    json_decref(options);
    json_decref(sc);
}

/* --- the presentation: offered only when allowed -------------------------------------- */

static void test_undo_present(void **state)
{
    (void)state;
    const struct wr_ruleset *rs = wr_ruleset_find("waterloo");
    const struct wr_present *pr = rs->present;
    json_t *sc = small_scenario();
    static const uint8_t seed[32] = { 4, 4 };
    struct wr_refusal why;
    struct wr_game *g = rs->create(sc, NULL, "undo-present", seed, NULL, &why);
    struct wr_view *v = pr->open(rs, sc, NULL, "french", NULL, &why);
    assert_non_null(g);
    assert_non_null(v);
    static const struct {
        int row;
        const char *cmd;        /* applied by french first, NULL: none */
        int offered;            /* describe names undo */
        int precheck;           /* precheck of undo: 1 / 0 / -1 */
        const char *code;       /* the refusal's code when -1 */
    } t[] = {
        { 1, "{\"type\":\"end_setup\"}", 0, -1, "nothing_to_undo" },
        { 2, NULL, 0, -1, "nothing_to_undo" },
        { 3, "{\"type\":\"move\",\"unit\":\"fr-pire\",\"path\":[\"J-41\"]}", 1, 0, NULL },
        { 4, UNDO, 0, -1, "nothing_to_undo" },
    };
    int allied_setup = 0;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        if (t[i].cmd) {
            json_t *cmd = json_loads(t[i].cmd, 0, NULL), *events = NULL;
            if (wr_game_apply(g, "french", cmd, &events, &why) != 0)
                fail_msg("row %d: %s refused: %s", t[i].row, t[i].cmd, why.message);
            json_decref(events);
            json_decref(cmd);
        }
        if (!allied_setup && t[i].row == 1) {
            json_t *cmd = json_loads("{\"type\":\"end_setup\"}", 0, NULL), *events = NULL;
            assert_int_equal(wr_game_apply(g, "allied", cmd, &events, &why), 0);
            json_decref(events);
            json_decref(cmd);
            allied_setup = 1;
        }
        json_t *st = rs->project(g, "french");
        json_object_set_new(st, "server", json_pack("{s:s, s:{s:s}}", "status", "running",
                                                    "awaiting", "french", "move"));
        if (pr->update(v, st, &why) != 0)
            fail_msg("row %d: update: %s", t[i].row, why.message);
        json_decref(st);
        struct wr_strbuf out;
        wr_strbuf_init(&out);
        pr->describe(v, &out);
        int offered = strstr(out.s, "undo takes back your last move") != NULL;
        if (offered != t[i].offered)
            fail_msg("row %d: describe %s undo:\n%s", t[i].row, offered ? "offers" : "lacks",
                     out.s);
        wr_strbuf_release(&out);
        json_t *cmd = NULL;
        wr_strbuf_init(&out);
        assert_int_equal(pr->order(v, "undo", &cmd, &out, &why), WR_ORDER_COMMAND);
        assert_string_equal(json_string_value(json_object_get(cmd, "type")), "undo");
        int pc = pr->precheck(v, cmd, &why);
        if (pc != t[i].precheck || (pc < 0 && strcmp(why.code, t[i].code) != 0))
            fail_msg("row %d: precheck %d (%s)", t[i].row, pc, pc < 0 ? why.code : "");
        json_decref(cmd);
        wr_strbuf_release(&out);
    }
    /* the events of an undo read as game words */
    json_t *e = json_pack("{s:s, s:[s], s:s, s:s}", "type", "undone", "units", "fr-pire",
                          "from", "J-41", "to", "K-41");
    struct wr_strbuf out;
    wr_strbuf_init(&out);
    pr->event(v, e, &out);
    assert_string_equal(out.s, "move taken back: fr-pire back on K-41");
    json_decref(e);
    wr_strbuf_release(&out);
    pr->close(v);
    rs->destroy(g);
    json_decref(sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_undo_restores_move_and_hq, setup_small, teardown),
        cmocka_unit_test_setup_teardown(test_undo_last_first, setup_small, teardown),
        cmocka_unit_test_setup_teardown(test_undo_entry, setup_small, teardown),
        cmocka_unit_test_setup_teardown(test_undo_exit, setup_small, teardown),
        cmocka_unit_test_setup_teardown(test_undo_refused, setup_small, teardown),
        cmocka_unit_test_setup_teardown(test_undo_off, setup_small, teardown),
        cmocka_unit_test_setup_teardown(test_undo_option, setup_small, teardown),
        cmocka_unit_test_setup_teardown(test_undo_from_state, setup_small, teardown),
        cmocka_unit_test_setup_teardown(test_undo_team, setup_teams, teardown),
        cmocka_unit_test_setup_teardown(test_undo_team_commander_back, setup_teams, teardown),
        cmocka_unit_test(test_undo_record_replay),
        cmocka_unit_test(test_undo_present),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
