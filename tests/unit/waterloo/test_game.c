/*
 * test_game.c - the turn machine on the small test scenario: set-up,
 * phases, refusals that change nothing, battles with forced dice
 * (exchange, retreat, HQ), defection, victory, and random legal games with
 * the invariants checked after every command.
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

#include "waterloo_autoplay.h"
#include "waterloo_combat.h"
#include "waterloo_command.h"
#include "waterloo_game.h"
#include "jsonpatch.h"
#include "waterloo_scenario.h"
#include "wl_testdata.h"

#ifndef WARROOM_SCENARIO_DIR
#error "WARROOM_SCENARIO_DIR must be defined by the build"
#endif

struct fixture {
    struct wl_scenario sc;
    struct wl_game g;
    struct wlt_dice dice;   /* forced dice, consumed in order */
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    struct wr_refusal why;
    if (f == NULL ||
        wl_scenario_load_file(&f->sc, WARROOM_SCENARIO_DIR "/test/small.json", &why) != 0) {
        fprintf(stderr, "cannot load small.json: %s\n", f ? why.message : "oom");
        free(f);
        return -1;
    }
    static const uint8_t seed[32] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
    wl_game_init(&f->g, &f->sc, "test-game", seed);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    free(*state);
    return 0;
}

/* Apply a command given as JSON text; returns the reason. On refusal the
 * state must be exactly what it was. */
static enum wl_reason run(struct fixture *f, int side, const char *text, struct wr_refusal *why)
{
    json_error_t jerr;
    json_t *cmd = json_loads(text, 0, &jerr);
    if (cmd == NULL)
        fail_msg("test data: bad JSON %s: %s", text, jerr.text);
    json_t *before = wl_game_state_json(&f->g);
    char *b = json_dumps(before, JSON_SORT_KEYS);
    json_t *events = NULL;
    enum wl_reason r = wl_game_apply_json(&f->g, side, cmd, &events, why);
    json_t *after = wl_game_state_json(&f->g);
    char *a = json_dumps(after, JSON_SORT_KEYS);
    if (r != WL_R_OK && strcmp(a, b) != 0)
        fail_msg("refused command %s changed the state", text);
    struct wr_refusal inv;
    if (wl_game_check(&f->g, &inv) != 0)
        fail_msg("after %s: invariant broken: %s", text, inv.message);
    free(a);
    free(b);
    json_decref(before);
    json_decref(after);
    json_decref(events);
    json_decref(cmd);
    return r;
}

static void expect(struct fixture *f, int row, int side, const char *text, enum wl_reason want)
{
    struct wr_refusal why = { WL_R_OK, "ok", "" };
    enum wl_reason r = run(f, side, text, &why);
    if (r != want)
        fail_msg("row %d: %s gave %s (%s), want %s", row, text, wl_reason_code(r), why.message,
                 wl_reason_code(want));
}

/* Take every unit off the board but the named ones: a clean field. */
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

/* The combat phase of side on the position as it stands, entered as the
 * turn machine enters it: side's movement phase, then end_phase (rules 2
 * marks the engaged units there). */
static void combat_phase(struct fixture *f, int side)
{
    f->g.phase = side == WL_FRENCH ? WL_PH_FRENCH_MOVE : WL_PH_ALLIED_MOVE;
    f->g.await_side = side;
    f->g.await_what = WL_AW_MOVE;
    f->g.roll_source = wlt_dice_roll;
    f->g.roll_ctx = &f->dice;
    expect(f, 0, side, "{\"type\":\"end_phase\"}", WL_R_OK);
    assert_int_equal(f->g.phase, side == WL_FRENCH ? WL_PH_FRENCH_COMBAT : WL_PH_ALLIED_COMBAT);
}

/* Start f's game again under rules version `rules` (the fixture's seed). */
static void use_rules(struct fixture *f, int rules)
{
    static const uint8_t seed[32] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
    struct wl_options opt = wl_options_default();
    opt.rules = rules;
    wl_game_init_with(&f->g, &f->sc, "test-game", seed, &opt);
}

static void test_setup_and_phases(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(f->g.phase, WL_PH_SETUP_FRENCH);
    expect(f, 1, WL_FRENCH, "{\"type\":\"place\",\"unit\":\"fr-jerome\",\"at\":\"L-42\"}",
           WL_R_OK);
    expect(f, 2, WL_FRENCH, "{\"type\":\"place\",\"unit\":\"fr-jerome\",\"at\":\"N-42\"}",
           WL_R_OUTSIDE_SETUP_ZONE);
    expect(f, 3, WL_FRENCH, "{\"type\":\"place\",\"unit\":\"aa-picton\",\"at\":\"L-42\"}",
           WL_R_NOT_YOUR_UNIT);
    expect(f, 4, WL_ALLIED, "{\"type\":\"end_setup\"}", WL_R_NOT_YOUR_TURN);
    expect(f, 5, WL_FRENCH, "{\"type\":\"end_phase\"}", WL_R_WRONG_PHASE);
    expect(f, 6, WL_FRENCH, "{\"type\":\"place\",\"unit\":\"fr-nobody\",\"at\":\"L-42\"}",
           WL_R_UNKNOWN_UNIT);
    expect(f, 7, WL_FRENCH, "{\"type\":\"place\",\"unit\":\"fr-jerome\",\"at\":\"ZZ-99\"}",
           WL_R_BAD_SQUARE);
    expect(f, 8, WL_FRENCH, "{\"type\":\"place\",\"unit\":\"fr-jerome\",\"at\":\"L-42\","
                            "\"extra\":1}", WL_R_BAD_COMMAND);
    expect(f, 9, WL_FRENCH, "{\"type\":\"fly\"}", WL_R_BAD_COMMAND);
    expect(f, 10, WL_FRENCH, "[1,2]", WL_R_BAD_COMMAND);
    /* Stacking at set-up: Foy 5 + Jerome 6 + Pire 4 = 15 fits, +3 does not. */
    expect(f, 11, WL_FRENCH, "{\"type\":\"place\",\"unit\":\"fr-foy\",\"at\":\"L-42\"}", WL_R_OK);
    expect(f, 12, WL_FRENCH, "{\"type\":\"place\",\"unit\":\"fr-pire\",\"at\":\"L-42\"}", WL_R_OK);
    expect(f, 13, WL_FRENCH, "{\"type\":\"place\",\"unit\":\"fr-guard-ha\",\"at\":\"L-42\"}",
           WL_R_STACKING);
    expect(f, 14, WL_FRENCH, "{\"type\":\"end_setup\"}", WL_R_OK);
    assert_int_equal(f->g.phase, WL_PH_SETUP_ALLIED);
    assert_int_equal(f->g.await_side, WL_ALLIED);
    expect(f, 15, WL_ALLIED, "{\"type\":\"end_setup\"}", WL_R_OK);
    assert_int_equal(f->g.phase, WL_PH_FRENCH_MOVE);
    assert_int_equal(f->g.turn, 1);
}

/* The whole time record with nobody moving: the P-A-A wins on time. */
static void test_time_limit(void **state)
{
    struct fixture *f = *state;
    expect(f, 1, WL_FRENCH, "{\"type\":\"end_setup\"}", WL_R_OK);
    expect(f, 2, WL_ALLIED, "{\"type\":\"end_setup\"}", WL_R_OK);
    /* Pull the armies apart so no combat is forced. */
    static const char *const ids[] = { "fr-jerome", "aa-picton", NULL };
    static const char *const at[] = { "P-40", "E-42" };
    only(f, ids, at);
    for (int t = 1; t <= f->sc.nturns; t++) {
        assert_int_equal(f->g.turn, t);
        json_t *s = wl_game_state_json(&f->g);
        assert_string_equal(json_string_value(json_object_get(s, "time")), f->sc.turns[t - 1].time);
        json_decref(s);
        expect(f, 10 + t, WL_FRENCH, "{\"type\":\"end_phase\"}", WL_R_OK);
        assert_int_equal(f->g.phase, WL_PH_ALLIED_MOVE);
        expect(f, 20 + t, WL_ALLIED, "{\"type\":\"end_phase\"}", WL_R_OK);
    }
    assert_int_equal(f->g.phase, WL_PH_OVER);
    assert_int_equal(f->g.winner, WL_ALLIED);
    expect(f, 99, WL_FRENCH, "{\"type\":\"end_phase\"}", WL_R_GAME_OVER);
}

/* Exchange at 1-1: equal printed totals, both sides lose everything. */
static void test_exchange_equal(void **state)
{
    struct fixture *f = *state;
    static const char *const ids[] = { "fr-jerome", "aa-picton", "aa-cooke", NULL };
    static const char *const at[] = { "N-42", "M-42", "E-42" };
    only(f, ids, at);
    combat_phase(f, WL_FRENCH);
    f->dice.faces[f->dice.n++] = 6;  /* 1-1, die 6: EX */
    expect(f, 1, WL_FRENCH, "{\"type\":\"declare\",\"battles\":[]}", WL_R_MUST_ATTACK);
    expect(f, 2, WL_FRENCH, "{\"type\":\"declare\",\"battles\":[{\"attackers\":[\"fr-jerome\"],"
                            "\"defenders\":[\"aa-picton\"]}]}", WL_R_OK);
    expect(f, 3, WL_FRENCH, "{\"type\":\"resolve\",\"battle\":1}", WL_R_NO_SUCH_BATTLE);
    expect(f, 4, WL_FRENCH, "{\"type\":\"resolve\",\"battle\":0}", WL_R_OK);
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "fr-jerome")].where, WL_ELIMINATED);
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "aa-picton")].where, WL_ELIMINATED);
    /* No French combat unit is left: the P-A-A wins (clause b). */
    assert_int_equal(f->g.winner, WL_ALLIED);
}

/* Exchange at 11-6 (1-1): Picton (6) is lost; the French lose at least 6
 * printed factors, of their own choosing. */
static void test_exchange_choice(void **state)
{
    struct fixture *f = *state;
    static const char *const ids[] = { "fr-jerome", "fr-foy", "aa-picton", "aa-cooke", NULL };
    static const char *const at[] = { "N-42", "N-43", "M-43", "E-42" };
    only(f, ids, at);
    combat_phase(f, WL_FRENCH);
    f->dice.faces[f->dice.n++] = 6;
    expect(f, 1, WL_FRENCH, "{\"type\":\"declare\",\"battles\":[{\"attackers\":[\"fr-jerome\","
                            "\"fr-foy\"],\"defenders\":[\"aa-picton\"]}]}", WL_R_OK);
    assert_int_equal(f->g.battles[0].attack, 11);
    assert_int_equal(f->g.battles[0].defence, 6);
    expect(f, 2, WL_FRENCH, "{\"type\":\"resolve\",\"battle\":0}", WL_R_OK);
    assert_int_equal(f->g.await_what, WL_AW_EXCHANGE);
    assert_int_equal(f->g.await_side, WL_FRENCH);
    expect(f, 3, WL_FRENCH, "{\"type\":\"exchange_losses\",\"units\":[\"fr-foy\"]}",
           WL_R_EXCHANGE_SHORT);
    expect(f, 4, WL_FRENCH, "{\"type\":\"exchange_losses\",\"units\":[\"aa-cooke\"]}",
           WL_R_NOT_LOSING);
    expect(f, 5, WL_FRENCH, "{\"type\":\"exchange_losses\",\"units\":[\"fr-jerome\"]}", WL_R_OK);
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "fr-foy")].where, WL_ON_BOARD);
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "fr-jerome")].where, WL_ELIMINATED);
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "aa-picton")].where, WL_ELIMINATED);
    /* The battle is over; the turn goes on to the P-A-A. */
    assert_int_equal(f->g.phase, WL_PH_ALLIED_MOVE);
}

/* D-Back-2 chosen by the winner; a deadly route is refused while an open
 * one exists; Jerome's zone makes M-41/M-43 deadly. */
static void test_defender_retreat(void **state)
{
    struct fixture *f = *state;
    static const char *const ids[] = { "fr-jerome", "aa-picton", "aa-cooke", NULL };
    static const char *const at[] = { "N-42", "M-42", "E-42" };
    only(f, ids, at);
    combat_phase(f, WL_FRENCH);
    f->dice.faces[f->dice.n++] = 2;  /* 1-1, die 2: DB2 */
    expect(f, 1, WL_FRENCH, "{\"type\":\"declare\",\"battles\":[{\"attackers\":[\"fr-jerome\"],"
                            "\"defenders\":[\"aa-picton\"]}]}", WL_R_OK);
    expect(f, 2, WL_FRENCH, "{\"type\":\"resolve\",\"battle\":0}", WL_R_OK);
    assert_int_equal(f->g.await_what, WL_AW_RETREAT);
    assert_int_equal(f->g.await_side, WL_FRENCH);     /* the winner chooses */
    expect(f, 3, WL_ALLIED, "{\"type\":\"retreat\",\"unit\":\"aa-picton\",\"path\":[\"L-42\","
                            "\"K-42\"]}", WL_R_NOT_YOUR_TURN);
    expect(f, 4, WL_FRENCH, "{\"type\":\"retreat\",\"unit\":\"aa-picton\",\"path\":[\"M-43\","
                            "\"L-44\"]}", WL_R_RETREAT_AVOIDABLE);
    expect(f, 5, WL_FRENCH, "{\"type\":\"retreat\",\"unit\":\"aa-picton\",\"path\":[\"L-42\"]}",
           WL_R_BAD_RETREAT);
    expect(f, 6, WL_FRENCH, "{\"type\":\"retreat\",\"unit\":\"aa-picton\",\"path\":[\"L-42\","
                            "\"K-42\"]}", WL_R_OK);
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "aa-picton")].at, wlt_sq("K-42"));
    /* Plain attackers do not advance: the battle and the phase are over. */
    assert_int_equal(f->g.phase, WL_PH_ALLIED_MOVE);
}

/* "HQ Units are automatically eliminated when attacked": no die is rolled. */
static void test_hq_attacked(void **state)
{
    struct fixture *f = *state;
    static const char *const ids[] = { "fr-jerome", "aa-wellington", "aa-cooke", NULL };
    static const char *const at[] = { "N-42", "M-42", "E-42" };
    only(f, ids, at);
    combat_phase(f, WL_FRENCH);
    uint32_t rolls = f->g.rolls;
    expect(f, 1, WL_FRENCH, "{\"type\":\"declare\",\"battles\":[{\"attackers\":[\"aa-wellington\"],"
                            "\"defenders\":[\"fr-jerome\"]}]}", WL_R_NOT_YOUR_UNIT);
    expect(f, 2, WL_FRENCH, "{\"type\":\"declare\",\"battles\":[{\"attackers\":[\"fr-jerome\"],"
                            "\"defenders\":[\"aa-wellington\"]}]}", WL_R_OK);
    expect(f, 3, WL_FRENCH, "{\"type\":\"resolve\",\"battle\":0}", WL_R_OK);
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "aa-wellington")].where, WL_ELIMINATED);
    assert_int_equal(f->g.rolls, rolls);
    assert_int_equal(f->dice.used, 0);
}

/* --- HQs in the way (rules 2) ----------------------------------------------- */

/* HQs "have no bearing on the play of the game as they have no zone of control and cannot
 * be used to delay the enemy" (rulebook; docs/rules-notes.md H2). Under rules 2 a combat
 * unit that moves, enters, retreats or advances onto a square of enemy HQ units alone
 * eliminates them (an "eliminated" event each); under rules 1 the square was held. */

/* Start the fixture's game again under rules version `rules`. */
static void rules_version(struct fixture *f, int rules)
{
    struct wl_options opt = { .rules = rules, .commanders = 1, .undo = 1 };
    wl_game_init_with(&f->g, &f->sc, "test-game", NULL, &opt);
}

static void move_phase(struct fixture *f, int side, int turn)
{
    f->g.turn = turn;
    f->g.phase = side == WL_FRENCH ? WL_PH_FRENCH_MOVE : WL_PH_ALLIED_MOVE;
    f->g.await_side = side;
    f->g.await_what = WL_AW_MOVE;
}

/* Apply text, which must be accepted; 1 when its events eliminate unit id. */
static int eliminates(struct fixture *f, int row, int side, const char *text, const char *id)
{
    json_t *cmd = json_loads(text, 0, NULL), *events = NULL;
    struct wr_refusal why = { WL_R_OK, "ok", "" };
    if (cmd == NULL)
        fail_msg("test data: bad JSON %s", text);
    enum wl_reason r = wl_game_apply_json(&f->g, side, cmd, &events, &why);
    if (r != WL_R_OK)
        fail_msg("row %d: %s refused: %s", row, text, why.message);
    struct wr_refusal inv;
    if (wl_game_check(&f->g, &inv) != 0)
        fail_msg("row %d: after %s: invariant broken: %s", row, text, inv.message);
    int found = 0;
    size_t i;
    json_t *e;
    json_array_foreach(events, i, e) {
        const char *type = json_string_value(json_object_get(e, "type"));
        const char *unit = json_string_value(json_object_get(e, "unit"));
        if (type && unit && strcmp(type, "eliminated") == 0 && strcmp(unit, id) == 0)
            found = 1;
    }
    json_decref(events);
    json_decref(cmd);
    return found;
}

static void test_hq_in_the_way_move(void **state)
{
    struct fixture *f = *state;
    static const char *const ids[] = { "fr-jerome", "fr-napoleon", "aa-picton", NULL };
    static const char *const at[] = { "P-40", "G-42", "H-42" };
    const char *through = "{\"type\":\"move\",\"unit\":\"aa-picton\",\"path\":[\"G-42\","
                          "\"F-42\",\"E-42\"]}";
    /* rules 2: Picton moves through Napoleon's square; Napoleon is eliminated */
    only(f, ids, at);
    move_phase(f, WL_ALLIED, 1);
    assert_true(eliminates(f, 1, WL_ALLIED, through, "fr-napoleon"));
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "fr-napoleon")].where, WL_ELIMINATED);
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "aa-picton")].at, wlt_sq("E-42"));
    /* rules 2: and ends its move on it */
    rules_version(f, 2);
    only(f, ids, at);
    move_phase(f, WL_ALLIED, 1);
    assert_true(eliminates(f, 2, WL_ALLIED, "{\"type\":\"move\",\"unit\":\"aa-picton\","
                           "\"path\":[\"G-42\"]}", "fr-napoleon"));
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "aa-picton")].at, wlt_sq("G-42"));
    /* rules 1: the square is held */
    rules_version(f, 1);
    only(f, ids, at);
    move_phase(f, WL_ALLIED, 1);
    expect(f, 3, WL_ALLIED, through, WL_R_ENEMY_SQUARE);
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "fr-napoleon")].where, WL_ON_BOARD);
}

/* The example: French HQs on and a Brussels reinforcement. */
static void test_hq_in_the_way_entry(void **state)
{
    struct fixture *f = *state;
    /* rules 1: Napoleon on A-45 and Reille on A-46 keep pr-15 off the board */
    rules_version(f, 1);
    static const char *const ids1[] = { "fr-jerome", "fr-napoleon", "fr-reille", "aa-cooke",
                                        NULL };
    static const char *const at1[] = { "P-40", "A-45", "A-46", "H-40" };
    only(f, ids1, at1);
    f->g.units[wlt_unit(&f->sc, "pr-15")].where = WL_PENDING;
    move_phase(f, WL_ALLIED, 4);
    expect(f, 1, WL_ALLIED, "{\"type\":\"move\",\"unit\":\"pr-15\",\"path\":[\"0-46\","
                            "\"A-45\"]}", WL_R_ENEMY_SQUARE);
    expect(f, 2, WL_ALLIED, "{\"type\":\"move\",\"unit\":\"pr-15\",\"path\":[\"0-46\","
                            "\"A-46\"]}", WL_R_ENEMY_SQUARE);
    /* rules 2 (Reille is no counter of a 2-player game): pr-15 enters over Napoleon */
    rules_version(f, 2);
    assert_false(wl_unit_in_game(&f->g, wlt_unit(&f->sc, "fr-reille")));
    static const char *const ids2[] = { "fr-jerome", "fr-napoleon", "aa-cooke", NULL };
    static const char *const at2[] = { "P-40", "A-45", "H-40" };
    only(f, ids2, at2);
    f->g.units[wlt_unit(&f->sc, "pr-15")].where = WL_PENDING;
    move_phase(f, WL_ALLIED, 4);
    assert_true(eliminates(f, 3, WL_ALLIED, "{\"type\":\"move\",\"unit\":\"pr-15\",\"path\":"
                           "[\"0-46\",\"A-45\",\"B-44\"]}", "fr-napoleon"));
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "pr-15")].at, wlt_sq("B-44"));
}

/* Picton's only routes out (as in "How to Have Combat") cross Napoleon's square M-43. */
static void test_hq_in_the_way_retreat(void **state)
{
    struct fixture *f = *state;
    static const char *const ids[] = { "fr-jerome", "fr-foy", "fr-pire", "fr-napoleon",
                                       "aa-picton", "aa-cooke", NULL };
    static const char *const at[] = { "M-41", "L-42", "N-41", "M-43", "M-42", "E-42" };
    const char *declare = "{\"type\":\"declare\",\"battles\":[{\"attackers\":[\"fr-jerome\","
                          "\"fr-foy\",\"fr-pire\"],\"defenders\":[\"aa-picton\"]}]}";
    /* rules 2: the winner retreats Picton across Napoleon, who is eliminated */
    only(f, ids, at);
    combat_phase(f, WL_FRENCH);
    f->dice.faces[f->dice.n++] = 2;  /* 15-6, 2-1, die 2: DB2 */
    expect(f, 1, WL_FRENCH, declare, WL_R_OK);
    expect(f, 2, WL_FRENCH, "{\"type\":\"resolve\",\"battle\":0}", WL_R_OK);
    assert_int_equal(f->g.await_what, WL_AW_RETREAT);
    assert_int_equal(wl_combat_open_retreats(&f->g, wlt_unit(&f->sc, "aa-picton"), NULL, 0), 3);
    assert_true(eliminates(f, 3, WL_FRENCH, "{\"type\":\"retreat\",\"unit\":\"aa-picton\","
                           "\"path\":[\"M-43\",\"M-44\"]}", "fr-napoleon"));
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "aa-picton")].at, wlt_sq("M-44"));
    /* rules 1: no open route; Picton is eliminated, Napoleon stays */
    rules_version(f, 1);
    only(f, ids, at);
    combat_phase(f, WL_FRENCH);
    f->dice.faces[f->dice.n++] = 2;
    expect(f, 4, WL_FRENCH, declare, WL_R_OK);
    expect(f, 5, WL_FRENCH, "{\"type\":\"resolve\",\"battle\":0}", WL_R_OK);
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "aa-picton")].where, WL_ELIMINATED);
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "fr-napoleon")].where, WL_ON_BOARD);
}

/* Jerome attacks from the slope J-40 onto the hill top I-40, where Ross stands with
 * Wellington (not attacked: an HQ need not be). Ross retreats; Wellington, alone on the
 * vacated square, no longer holds it. */
static void test_hq_in_the_way_advance(void **state)
{
    struct fixture *f = *state;
    static const char *const ids[] = { "fr-jerome", "aa-ross", "aa-wellington", "aa-cooke",
                                       NULL };
    static const char *const at[] = { "J-40", "I-40", "I-40", "E-42" };
    const char *declare = "{\"type\":\"declare\",\"battles\":[{\"attackers\":[\"fr-jerome\"],"
                          "\"defenders\":[\"aa-ross\"]}]}";
    const char *retreat = "{\"type\":\"retreat\",\"unit\":\"aa-ross\",\"path\":[\"H-40\","
                          "\"G-40\"]}";
    for (int rules = 2; rules >= 1; rules--) {
        rules_version(f, rules);
        only(f, ids, at);
        combat_phase(f, WL_FRENCH);
        f->dice.n = f->dice.used = 0;
        f->dice.faces[f->dice.n++] = 3;  /* 6-2 (Ross doubled on the hill top), 3-1, die 3: DB2 */
        expect(f, 10 * rules + 1, WL_FRENCH, declare, WL_R_OK);
        expect(f, 10 * rules + 2, WL_FRENCH, "{\"type\":\"resolve\",\"battle\":0}", WL_R_OK);
        expect(f, 10 * rules + 3, WL_FRENCH, retreat, WL_R_OK);
        if (rules == 1) {
            /* rules 1: Wellington holds I-40; there is no advance to offer */
            assert_int_not_equal(f->g.await_what, WL_AW_ADVANCE);
            assert_int_equal(f->g.units[wlt_unit(&f->sc, "aa-wellington")].at, wlt_sq("I-40"));
            continue;
        }
        assert_int_equal(f->g.await_what, WL_AW_ADVANCE);
        assert_true(eliminates(f, 24, WL_FRENCH, "{\"type\":\"advance\",\"unit\":\"fr-jerome\","
                               "\"to\":\"I-40\"}", "aa-wellington"));
        assert_int_equal(f->g.units[wlt_unit(&f->sc, "fr-jerome")].at, wlt_sq("I-40"));
    }
}

/* Defection: French units of 6 factors leave; the P-A-A must remove at
 * least 12. The rulebook example (15 factors force 30) is row 4: with 25
 * P-A-A factors left in the whole game, everything defects. */
static void test_defection(void **state)
{
    struct fixture *f = *state;
    static const char *const ids[] = { "fr-jerome", "fr-foy", "fr-pire", "aa-picton",
                                       "aa-cooke", "aa-uxbridge", "aa-ross", NULL };
    static const char *const at[] = { "A-40", "A-41", "A-42", "E-40", "E-41", "E-42", "E-43" };
    only(f, ids, at);
    f->g.units[wlt_unit(&f->sc, "aa-wissel")].where = WL_PENDING;
    f->g.units[wlt_unit(&f->sc, "pr-15")].where = WL_PENDING;
    f->g.phase = WL_PH_FRENCH_MOVE;
    f->g.await_side = WL_FRENCH;
    f->g.await_what = WL_AW_MOVE;
    expect(f, 1, WL_FRENCH, "{\"type\":\"move\",\"unit\":\"fr-jerome\",\"path\":[\"off\"]}",
           WL_R_OK);
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "fr-jerome")].where, WL_EXITED);
    expect(f, 2, WL_FRENCH, "{\"type\":\"end_phase\"}", WL_R_OK);
    /* No contact: combat passes; the P-A-A owes 12. */
    assert_int_equal(f->g.phase, WL_PH_DEFECTION);
    assert_int_equal(f->g.defection_owed, 12);
    expect(f, 3, WL_ALLIED, "{\"type\":\"defect\",\"units\":[\"aa-uxbridge\",\"aa-ross\","
                            "\"aa-wissel\"]}", WL_R_DEFECTION_SHORT);
    expect(f, 4, WL_ALLIED, "{\"type\":\"defect\",\"units\":[\"aa-picton\",\"pr-15\"]}", WL_R_OK);
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "pr-15")].where, WL_ELIMINATED);
    assert_int_equal(f->g.phase, WL_PH_ALLIED_MOVE);
}

static void test_defection_example(void **state)
{
    struct fixture *f = *state;
    /* Jerome 6 + Foy 5 + Pire 4 = 15 factors leave: 30 must defect, more
     * than the P-A-A has (6+6+4+1 on the board, 2+6 to come: 25). */
    static const char *const ids[] = { "fr-jerome", "fr-foy", "fr-pire", "fr-ii-art",
                                       "aa-picton", "aa-cooke", "aa-uxbridge", "aa-ross", NULL };
    static const char *const at[] = { "A-40", "A-41", "A-42", "P-40", "E-40", "E-41", "E-42",
                                      "E-43" };
    only(f, ids, at);
    f->g.units[wlt_unit(&f->sc, "aa-wissel")].where = WL_PENDING;
    f->g.units[wlt_unit(&f->sc, "pr-15")].where = WL_PENDING;
    f->g.phase = WL_PH_FRENCH_MOVE;
    f->g.await_side = WL_FRENCH;
    f->g.await_what = WL_AW_MOVE;
    expect(f, 1, WL_FRENCH, "{\"type\":\"move\",\"unit\":\"fr-jerome\",\"path\":[\"off\"]}", WL_R_OK);
    expect(f, 2, WL_FRENCH, "{\"type\":\"move\",\"unit\":\"fr-foy\",\"path\":[\"off\"]}", WL_R_OK);
    expect(f, 3, WL_FRENCH, "{\"type\":\"move\",\"unit\":\"fr-pire\",\"path\":[\"off\"]}", WL_R_OK);
    assert_int_equal(f->g.exited_factors, 15);
    expect(f, 4, WL_FRENCH, "{\"type\":\"end_phase\"}", WL_R_OK);
    assert_int_equal(f->g.phase, WL_PH_OVER);
    assert_int_equal(f->g.winner, WL_FRENCH);
}

/* Advance after combat: an attacker on a river square that defeats its
 * enemy may take the vacated square (rulebook "Movement After Combat"). */
static void test_advance_from_river(void **state)
{
    struct fixture *f = *state;
    static const char *const ids[] = { "fr-jerome", "aa-ross", "aa-cooke", NULL };
    static const char *const at[] = { "E-55", "E-54", "N-42" };
    only(f, ids, at);
    combat_phase(f, WL_FRENCH);
    f->dice.faces[f->dice.n++] = 1;  /* 6 against 1 doubled (river attack) = 6-2, 3-1: die 1 DE */
    expect(f, 1, WL_FRENCH, "{\"type\":\"declare\",\"battles\":[{\"attackers\":[\"fr-jerome\"],"
                            "\"defenders\":[\"aa-ross\"]}]}", WL_R_OK);
    assert_int_equal(f->g.battles[0].defence, 2);
    expect(f, 2, WL_FRENCH, "{\"type\":\"resolve\",\"battle\":0}", WL_R_OK);
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "aa-ross")].where, WL_ELIMINATED);
    assert_int_equal(f->g.await_what, WL_AW_ADVANCE);
    expect(f, 3, WL_FRENCH, "{\"type\":\"advance\",\"unit\":\"fr-jerome\",\"to\":\"D-54\"}",
           WL_R_NO_ADVANCE);
    expect(f, 4, WL_FRENCH, "{\"type\":\"advance\",\"unit\":\"fr-jerome\",\"to\":\"E-54\"}",
           WL_R_OK);
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "fr-jerome")].at, wlt_sq("E-54"));
    assert_int_equal(f->g.phase, WL_PH_ALLIED_MOVE);
}

/* Clause c: no P-A-A unit on the board, every entrance blocked by French
 * zones, and the French cannot exit enough to win by defection. */
static void test_clause_c(void **state)
{
    struct fixture *f = *state;
    static const char *const ids[] = { "fr-guard-ha", "fr-ii-art", NULL };
    static const char *const at[] = { "A-45", "C-56" };
    only(f, ids, at);
    f->g.units[wlt_unit(&f->sc, "aa-wissel")].where = WL_PENDING;
    f->g.units[wlt_unit(&f->sc, "pr-15")].where = WL_PENDING;
    /* 2 x (3 + 4) = 14 < 2 + 15 still to come. */
    f->sc.units[wlt_unit(&f->sc, "pr-15")].combat = 15;
    f->g.phase = WL_PH_FRENCH_MOVE;
    f->g.await_side = WL_FRENCH;
    f->g.await_what = WL_AW_MOVE;
    expect(f, 1, WL_FRENCH, "{\"type\":\"end_phase\"}", WL_R_OK);
    assert_int_equal(f->g.phase, WL_PH_OVER);
    assert_int_equal(f->g.winner, WL_ALLIED);
    assert_non_null(strstr(f->g.win_reason, "clause c"));
}

/* Clause c does not apply while one entrance is open. */
static void test_clause_c_open_entry(void **state)
{
    struct fixture *f = *state;
    static const char *const ids[] = { "fr-guard-ha", "fr-ii-art", NULL };
    static const char *const at[] = { "A-45", "P-40" };
    only(f, ids, at);
    f->g.units[wlt_unit(&f->sc, "aa-wissel")].where = WL_PENDING;
    f->g.units[wlt_unit(&f->sc, "pr-15")].where = WL_PENDING;
    f->sc.units[wlt_unit(&f->sc, "pr-15")].combat = 15;
    f->g.phase = WL_PH_FRENCH_MOVE;
    f->g.await_side = WL_FRENCH;
    f->g.await_what = WL_AW_MOVE;
    expect(f, 1, WL_FRENCH, "{\"type\":\"end_phase\"}", WL_R_OK);
    assert_int_equal(f->g.phase, WL_PH_ALLIED_MOVE);
    assert_int_equal(f->g.winner, -1);
}

/* --- battles one at a time (rules 2; docs/rules-notes.md D1-D4) ------------------------- */

/* expect(), and the refusal's sentence holds part. */
static void expect_msg(struct fixture *f, int row, int side, const char *text,
                       enum wl_reason want, const char *part)
{
    struct wr_refusal why = { WL_R_OK, "ok", "" };
    enum wl_reason r = run(f, side, text, &why);
    if (r != want || strstr(why.message, part) == NULL)
        fail_msg("row %d: %s gave %s (%s), want %s with '%s'", row, text, wl_reason_code(r),
                 why.message, wl_reason_code(want), part);
}

#define BATTLE(att, def) "{\"attackers\":[" att "],\"defenders\":[" def "]}"
#define DECLARE1(att, def) "{\"type\":\"declare\",\"battles\":[" BATTLE(att, def) "]}"

/* Jerome (N-42) touches Picton (M-42) and Cooke (M-43); Foy (N-43) touches
 * Cooke only. Pire and Uxbridge stand far off, so neither side is wiped out. */
static const char *const two_fronts_ids[] = { "fr-jerome", "fr-foy", "fr-pire", "aa-picton",
                                              "aa-cooke", "aa-uxbridge", NULL };
static const char *const two_fronts_at[] = { "N-42", "N-43", "P-40", "M-42", "M-43", "E-42" };

/* "The attacker resolves all combat one battle at a time after moving all
 * the Units he chooses to move in his turn." / "The attacker has the choice
 * of resolving each battle in any order he chooses." Rules 2: a battle is
 * declared, resolved, and the next one's attackers chosen after its result. */
static void test_battles_one_at_a_time(void **state)
{
    struct fixture *f = *state;
    only(f, two_fronts_ids, two_fronts_at);
    combat_phase(f, WL_FRENCH);
    assert_int_equal(f->g.await_what, WL_AW_COMBAT);
    /* Marked when the phase began: the four units in contact, not the others. */
    assert_true(f->g.units[wlt_unit(&f->sc, "fr-jerome")].engaged);
    assert_true(f->g.units[wlt_unit(&f->sc, "aa-cooke")].engaged);
    assert_false(f->g.units[wlt_unit(&f->sc, "fr-pire")].engaged);
    assert_false(f->g.units[wlt_unit(&f->sc, "aa-uxbridge")].engaged);
    f->dice.faces[f->dice.n++] = 5;  /* battle 0, Foy 5 against Cooke 6 = 1-2, die 5: AE */
    f->dice.faces[f->dice.n++] = 2;  /* battle 1, Jerome 6 against Picton 6 = 1-1, die 2: DB2 */
    /* "All units which move into an enemy zone of control must attack ...": by the end
     * of the phase, so end_phase, and declare with no battle, are refused now. */
    expect_msg(f, 1, WL_FRENCH, "{\"type\":\"end_phase\"}", WL_R_MUST_ATTACK, "must attack");
    expect(f, 2, WL_FRENCH, "{\"type\":\"declare\",\"battles\":[]}", WL_R_MUST_ATTACK);
    /* Jerome against Cooke would leave Foy and Picton nobody to fight. */
    expect_msg(f, 3, WL_FRENCH, DECLARE1("\"fr-jerome\"", "\"aa-cooke\""), WL_R_STRANDED,
               "no enemy unit next to it would be left");
    /* One battle: Foy against Cooke. */
    expect(f, 4, WL_FRENCH, DECLARE1("\"fr-foy\"", "\"aa-cooke\""), WL_R_OK);
    assert_int_equal(f->g.nbattles, 1);
    assert_int_equal(f->g.await_what, WL_AW_COMBAT);
    expect_msg(f, 5, WL_FRENCH, "{\"type\":\"end_phase\"}", WL_R_BATTLE_OPEN, "battle 0");
    expect(f, 6, WL_FRENCH, "{\"type\":\"resolve\",\"battle\":0}", WL_R_OK);
    assert_int_equal(f->g.battles[0].result, WL_AE);
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "fr-foy")].where, WL_ELIMINATED);
    assert_int_equal(f->g.phase, WL_PH_FRENCH_COMBAT);
    assert_int_equal(f->g.await_what, WL_AW_COMBAT);
    /* The result known: Jerome, next to both defenders, still owes his battle. */
    expect_msg(f, 7, WL_FRENCH, "{\"type\":\"end_phase\"}", WL_R_MUST_ATTACK, "Jerome");
    /* "No Unit may fight or be forced to fight more than one battle per turn": Cooke
     * fought in battle 0. */
    expect_msg(f, 8, WL_FRENCH, DECLARE1("\"fr-jerome\"", "\"aa-cooke\""), WL_R_ONE_BATTLE,
               "battle 0");
    expect(f, 9, WL_FRENCH, DECLARE1("\"fr-jerome\"", "\"aa-picton\",\"aa-cooke\""),
           WL_R_ONE_BATTLE);
    expect(f, 10, WL_FRENCH, DECLARE1("\"fr-jerome\"", "\"aa-picton\""), WL_R_OK);
    assert_int_equal(f->g.nbattles, 2);
    assert_int_equal(f->g.battles[1].attackers[0], wlt_unit(&f->sc, "fr-jerome"));
    expect(f, 11, WL_FRENCH, "{\"type\":\"resolve\",\"battle\":1}", WL_R_OK);
    assert_int_equal(f->g.await_what, WL_AW_RETREAT);
    expect(f, 12, WL_FRENCH, "{\"type\":\"retreat\",\"unit\":\"aa-picton\",\"path\":[\"L-42\","
                             "\"K-42\"]}", WL_R_OK);
    /* Nothing more can be declared and every battle is done: the phase ends by itself. */
    assert_int_equal(f->g.phase, WL_PH_ALLIED_MOVE);
    assert_false(f->g.units[wlt_unit(&f->sc, "fr-jerome")].engaged);
}

/* The same position declared whole, as rules 1 had it: still valid under rules 2 (several
 * battles at once), resolved in the order the attacker chooses ("in any order he
 * chooses"), and the phase ends by itself after the last one. */
static void test_up_front_declaration(void **state)
{
    struct fixture *f = *state;
    only(f, two_fronts_ids, two_fronts_at);
    combat_phase(f, WL_FRENCH);
    f->dice.faces[f->dice.n++] = 5;  /* battle 1 first: 1-1, die 5: AE */
    f->dice.faces[f->dice.n++] = 5;  /* battle 0: 1-2, die 5: AE */
    expect(f, 1, WL_FRENCH, "{\"type\":\"declare\",\"battles\":[" BATTLE("\"fr-foy\"",
                            "\"aa-cooke\"") "," BATTLE("\"fr-jerome\"", "\"aa-picton\"") "]}",
           WL_R_OK);
    expect(f, 2, WL_FRENCH, "{\"type\":\"resolve\",\"battle\":1}", WL_R_OK);
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "fr-jerome")].where, WL_ELIMINATED);
    assert_int_equal(f->g.await_what, WL_AW_COMBAT);
    expect(f, 3, WL_FRENCH, "{\"type\":\"resolve\",\"battle\":0}", WL_R_OK);
    assert_int_equal(f->g.phase, WL_PH_ALLIED_MOVE);
}

/* Rules 1 keeps the whole declaration: an incomplete one is refused, and "declare"
 * is what the phase awaits. */
static void test_rules1_whole_declaration(void **state)
{
    struct fixture *f = *state;
    use_rules(f, 1);
    only(f, two_fronts_ids, two_fronts_at);
    combat_phase(f, WL_FRENCH);
    assert_int_equal(f->g.await_what, WL_AW_DECLARE);
    assert_false(f->g.units[wlt_unit(&f->sc, "fr-jerome")].engaged);
    expect_msg(f, 1, WL_FRENCH, DECLARE1("\"fr-foy\"", "\"aa-cooke\""), WL_R_MUST_ATTACK,
               "must attack");
    expect(f, 2, WL_FRENCH, "{\"type\":\"end_phase\"}", WL_R_WRONG_PHASE);
    expect(f, 3, WL_FRENCH, "{\"type\":\"declare\",\"battles\":[" BATTLE("\"fr-foy\"",
                            "\"aa-cooke\"") "," BATTLE("\"fr-jerome\"", "\"aa-picton\"") "]}",
           WL_R_OK);
    assert_int_equal(f->g.await_what, WL_AW_RESOLVE);
}

/* Rules 2: "declare" with no battle is end_phase; with only an enemy HQ next to a unit
 * of the mover nothing is owed ("HQ Units ... have no zone of control"), the phase
 * waits for a declaration or end_phase, and the state says who is engaged. */
static void test_nothing_owed(void **state)
{
    struct fixture *f = *state;
    static const char *const ids[] = { "fr-jerome", "aa-wellington", "aa-cooke", NULL };
    static const char *const at[] = { "N-42", "M-42", "E-42" };
    only(f, ids, at);
    combat_phase(f, WL_FRENCH);
    assert_int_equal(f->g.await_what, WL_AW_COMBAT);
    assert_false(f->g.units[wlt_unit(&f->sc, "fr-jerome")].engaged);
    json_t *s = wl_game_state_json(&f->g);
    assert_string_equal(json_string_value(json_object_get(json_object_get(s, "awaiting"),
                                                          "what")), "combat");
    json_decref(s);
    expect(f, 1, WL_FRENCH, "{\"type\":\"declare\",\"battles\":[]}", WL_R_OK);
    assert_int_equal(f->g.phase, WL_PH_ALLIED_MOVE);
}

/* The state carries "engaged" and loads back to the same state. */
static void test_engaged_round_trip(void **state)
{
    struct fixture *f = *state;
    only(f, two_fronts_ids, two_fronts_at);
    combat_phase(f, WL_FRENCH);
    expect(f, 1, WL_FRENCH, DECLARE1("\"fr-foy\"", "\"aa-cooke\""), WL_R_OK);
    json_t *s = wl_game_state_json(&f->g);
    json_t *units = json_object_get(s, "units");
    assert_true(json_is_true(json_object_get(json_object_get(units, "fr-jerome"), "engaged")));
    assert_null(json_object_get(json_object_get(units, "fr-pire"), "engaged"));
    struct wl_game *back = malloc(sizeof *back);
    struct wr_refusal why;
    assert_non_null(back);
    if (wl_game_init_from_state(back, &f->sc, s, "test-game", &why) != 0)
        fail_msg("the state does not load: %s", why.message);
    json_t *again = wl_game_state_json(back);
    json_object_del(s, "dice");
    json_object_del(again, "dice");
    assert_true(json_equal(s, again));
    assert_true(back->units[wlt_unit(&f->sc, "aa-picton")].engaged);
    json_decref(again);
    json_decref(s);
    free(back);
}

/* Random legal games: every proposal of the random player is accepted,
 * the invariants hold after every command, and every game ends. */
static void test_random_games(void **state)
{
    struct fixture *f = *state;
    struct wl_reach *reach = malloc(sizeof *reach);
    struct wl_cmd *cmd = malloc(sizeof *cmd);
    struct wl_events *ev = malloc(sizeof *ev);
    int wins[2] = { 0, 0 }, later_declarations[2] = { 0, 0 };
    /* Seeds 1-40 under the newest rules (battles one at a time), 41-80 under rules 1. */
    for (int seed = 1; seed <= 80; seed++) {
        uint8_t s32[32] = { (uint8_t)seed };
        struct wl_options opt = wl_options_default();
        opt.rules = seed <= 40 ? WL_RULES : 1;
        wl_game_init_with(&f->g, &f->sc, "random", s32, &opt);
        struct wr_prng rng;
        wr_prng_seed(&rng, (uint64_t)seed);
        int n = 0;
        while (f->g.phase != WL_PH_OVER) {
            if (++n > 5000)
                fail_msg("seed %d: the game did not end in 5000 commands", seed);
            assert_int_equal(wl_autoplay_next(&f->g, &rng, reach, cmd), 0);
            struct wr_refusal why;
            ev->n = 0;
            json_t *before = wl_game_state_json(&f->g);
            /* A declaration after a battle of the same phase: the rules 2 flow. */
            if (cmd->type == WL_CMD_DECLARE && cmd->nbattles > 0 && f->g.nbattles > 0)
                later_declarations[opt.rules == 1]++;
            enum wl_reason r = wl_game_apply(&f->g, f->g.await_side, cmd, ev, &why);
            if (r != WL_R_OK) {
                json_t *j = wl_cmd_json(&f->g, cmd);
                char *t = json_dumps(j, 0);
                fail_msg("seed %d command %d %s refused: %s %s", seed, n, t, wl_reason_code(r),
                         why.message);
            }
            if (wl_game_check(&f->g, &why) != 0)
                fail_msg("seed %d command %d: %s", seed, n, why.message);
            /* The server's patches: diff(before, after) applied to before
             * must give after, for every command of every game. */
            json_t *after = wl_game_state_json(&f->g), *patched = NULL;
            json_t *ops = wr_jsonpatch_diff(before, after);
            char err[256];
            if (ops == NULL || wr_jsonpatch_apply(before, ops, &patched, err, sizeof err) != 0 ||
                !json_equal(patched, after))
                fail_msg("seed %d command %d: the patch does not rebuild the state", seed, n);
            json_decref(before);
            json_decref(after);
            json_decref(patched);
            json_decref(ops);
        }
        assert_true(f->g.winner == WL_FRENCH || f->g.winner == WL_ALLIED);
        wins[f->g.winner]++;
    }
    assert_int_equal(wins[0] + wins[1], 80);
    assert_true(later_declarations[0] > 0);        /* rules 2 declares battle by battle */
    assert_int_equal(later_declarations[1], 0);     /* rules 1 never does */
    free(reach);
    free(cmd);
    free(ev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_setup_and_phases, setup, teardown),
        cmocka_unit_test_setup_teardown(test_time_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_exchange_equal, setup, teardown),
        cmocka_unit_test_setup_teardown(test_exchange_choice, setup, teardown),
        cmocka_unit_test_setup_teardown(test_defender_retreat, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hq_attacked, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hq_in_the_way_move, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hq_in_the_way_entry, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hq_in_the_way_retreat, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hq_in_the_way_advance, setup, teardown),
        cmocka_unit_test_setup_teardown(test_defection, setup, teardown),
        cmocka_unit_test_setup_teardown(test_defection_example, setup, teardown),
        cmocka_unit_test_setup_teardown(test_advance_from_river, setup, teardown),
        cmocka_unit_test_setup_teardown(test_clause_c, setup, teardown),
        cmocka_unit_test_setup_teardown(test_clause_c_open_entry, setup, teardown),
        cmocka_unit_test_setup_teardown(test_battles_one_at_a_time, setup, teardown),
        cmocka_unit_test_setup_teardown(test_up_front_declaration, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rules1_whole_declaration, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nothing_owed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_engaged_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_random_games, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
