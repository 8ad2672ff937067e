/*
 * test_teams.c - team play (docs/rules-notes.md, "Team play"): the seats
 * per option, the commander of every unit, orders refused for another
 * commander's units, the end of a phase per commander, a subordinate's
 * HQ eliminated, the commander-in-chief's HQ eliminated, the decisions
 * given to a named commander, a state round trip, a game of one
 * commander a side unchanged, and random team games with the invariants
 * checked after every command.
 *
 * The rulebook sentence every row reads: "When more than 2 play,
 * additional HQ Units may be used as subordinate commanders' HQ Units.
 * Elimination of a subordinate commander's HQ Unit means he is out of the
 * game. Units under his command, however, remain in play."
 * (the Waterloo rulebook, under the HQ units).
 *
 * scenarios/test/teams.json: Napoleon (commander-in-chief; II Corps
 * artillery, the Guard horse artillery) and Reille (II Corps: Jerome, Foy,
 * Pire) for the French; Wellington (Picton, Ross and the units of no
 * formation) and Orange (I Corps: Cooke, Uxbridge) for the allies.
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
#include "prng.h"
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

#define SEATS_1815 WARROOM_SCENARIO_DIR "/waterloo-1815/scenario.json"

struct fixture {
    struct wl_scenario sc;
    struct wl_game g;
    struct wlt_dice dice;   /* forced dice, consumed in order */
    json_t *last_events;    /* the events of the last accepted command */
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    struct wr_refusal why;
    if (f == NULL ||
        wl_scenario_load_file(&f->sc, WARROOM_SCENARIO_DIR "/test/teams.json", &why) != 0) {
        fprintf(stderr, "cannot load teams.json: %s\n", f ? why.message : "oom");
        free(f);
        return -1;
    }
    static const uint8_t seed[32] = { 7, 1, 8, 1, 5 };
    struct wl_options opt = wl_options_default();
    opt.commanders = 2;
    wl_game_init_with(&f->g, &f->sc, "test-teams", seed, &opt);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    json_decref(f->last_events);
    free(f);
    return 0;
}

/* The seat of unit id's commander now. */
static const char *commander_of(const struct fixture *f, const char *id, char *buf)
{
    int i = wlt_unit(&f->sc, id);
    return wl_team_seat(&f->g, f->sc.units[i].side, wl_team_commander(&f->g, i), buf);
}

/* Apply a command (JSON text) from seat; a refused command must leave the
 * state exactly as it was, and the invariants hold either way. */
static enum wl_reason run(struct fixture *f, const char *seat, const char *text,
                          struct wr_refusal *why)
{
    int side, k;
    if (wl_team_parse_seat(&f->g, seat, &side, &k) != 0)
        fail_msg("test data: %s is not a seat of the game", seat);
    json_error_t jerr;
    json_t *cmd = json_loads(text, 0, &jerr);
    if (cmd == NULL)
        fail_msg("test data: bad JSON %s: %s", text, jerr.text);
    json_t *before = wl_game_state_json(&f->g);
    char *b = json_dumps(before, JSON_SORT_KEYS);
    json_t *events = NULL;
    enum wl_reason r = wl_game_apply_json_by(&f->g, side, k, cmd, &events, why);
    json_t *after = wl_game_state_json(&f->g);
    char *a = json_dumps(after, JSON_SORT_KEYS);
    if (r != WL_R_OK && strcmp(a, b) != 0)
        fail_msg("refused command %s from %s changed the state", text, seat);
    struct wr_refusal inv;
    if (wl_game_check(&f->g, &inv) != 0)
        fail_msg("after %s: invariant broken: %s", text, inv.message);
    if (r == WL_R_OK) {
        json_decref(f->last_events);
        f->last_events = events;
    }
    free(a);
    free(b);
    json_decref(before);
    json_decref(after);
    json_decref(cmd);
    return r;
}

/* One row: seat sends text, and the rules answer want. */
struct row {
    int n;
    const char *seat;
    const char *cmd;
    enum wl_reason want;
};

static void rows(struct fixture *f, const struct row *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct wr_refusal why = { WL_R_OK, "ok", "" };
        enum wl_reason r = run(f, t[i].seat, t[i].cmd, &why);
        if (r != t[i].want)
            fail_msg("row %d: %s from %s gave %s (%s), want %s", t[i].n, t[i].cmd, t[i].seat,
                     wl_reason_code(r), why.message, wl_reason_code(t[i].want));
    }
}

/* The seats awaited now, space-separated, into buf. */
static const char *awaited(const struct fixture *f, char *buf, size_t size)
{
    uint8_t mine[WL_MAX_COMMANDERS];
    char seat[WL_SEAT_MAX];
    size_t at = 0;
    buf[0] = '\0';
    wl_team_awaited(&f->g, mine);
    for (int k = 0; k < wl_team_size(&f->g); k++)
        if (mine[k])
            at += (size_t)snprintf(buf + at, size - at, "%s%s", at ? " " : "",
                                   wl_team_seat(&f->g, f->g.await_side, k, seat));
    return buf;
}

#define assert_awaited(f, want) do { \
        char aw_[256]; \
        assert_string_equal(awaited(f, aw_, sizeof aw_), want); \
    } while (0)

/* Take every unit off the board but the named ones: a clean field. */
static void only(struct fixture *f, const char *const *ids, const char *const *at)
{
    for (int i = 0; i < f->sc.nunits; i++) {
        f->g.units[i].where = WL_ELIMINATED;
        f->g.units[i].at = WL_SQ_NONE;
    }
    for (int k = 0; ids[k]; k++) {
        int i = wlt_unit(&f->sc, ids[k]);
        f->g.units[i].where = WL_ON_BOARD;
        f->g.units[i].at = wlt_sq(at[k]);
    }
}

static void combat_phase(struct fixture *f, int side)
{
    f->g.phase = side == WL_FRENCH ? WL_PH_FRENCH_COMBAT : WL_PH_ALLIED_COMBAT;
    f->g.await_side = side;
    f->g.await_what = WL_AW_DECLARE;
    f->g.roll_source = wlt_dice_roll;
    f->g.roll_ctx = &f->dice;
}

/* Both set-ups ended by the commanders-in-chief: French movement, turn 1. */
static void to_movement(struct fixture *f)
{
    static const struct row t[] = {
        { 0, "french:napoleon", "{\"type\":\"end_setup\"}", WL_R_OK },
        { 0, "allied:wellington", "{\"type\":\"end_setup\"}", WL_R_OK },
    };
    rows(f, t, 2);
    assert_int_equal(f->g.phase, WL_PH_FRENCH_MOVE);
}

/* The events of the last accepted command of the given type, or NULL. */
static const json_t *event_of(const struct fixture *f, const char *type)
{
    size_t i;
    json_t *e;
    json_array_foreach(f->last_events, i, e)
        if (strcmp(json_string_value(json_object_get(e, "type")), type) == 0)
            return e;
    return NULL;
}

/* --- seats and commanders from the options --------------------------------------- */

static json_t *load_json(const char *path)
{
    json_error_t jerr;
    json_t *j = json_load_file(path, 0, &jerr);
    if (j == NULL)
        fail_msg("cannot read %s: %s", path, jerr.text);
    return j;
}

/* Rows 1-8: the seats of a 1815 game per option "commanders"; a game
 * under rules 1, or with more commanders than the scenario lists, is
 * refused (bad_options). */
static void test_seats(void **state)
{
    (void)state;
    static const struct {
        int n;
        const char *options;
        const char *seats;      /* NULL: refused with bad_options */
    } t[] = {
        { 1, "{}", "french allied" },
        { 2, "{\"commanders\":1}", "french allied" },
        { 3, "{\"commanders\":2}", "french:napoleon french:ney allied:wellington allied:blucher" },
        { 4, "{\"commanders\":3}", "french:napoleon french:ney french:grouchy allied:wellington "
                                   "allied:blucher allied:prince_of_orange" },
        { 5, "{\"commanders\":4}", NULL },
        { 6, "{\"commanders\":0}", NULL },
        { 7, "{\"commanders\":\"2\"}", NULL },
        { 8, "{\"commanders\":2,\"rules\":1}", NULL },
    };
    const struct wr_ruleset *rs = wr_ruleset_find("waterloo");
    assert_non_null(rs);
    assert_non_null(wr_ruleset_option(rs, "commanders"));
    json_t *sc = load_json(SEATS_1815);
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        json_t *opt = json_loads(t[i].options, 0, NULL);
        struct wr_refusal why = { 0, "", "" };
        struct wr_game *g = rs->create(sc, opt, "seats", NULL, NULL, &why);
        if (t[i].seats == NULL) {
            if (g != NULL)
                fail_msg("row %d: %s made a game", t[i].n, t[i].options);
            assert_string_equal(why.code, "bad_options");
        } else {
            if (g == NULL)
                fail_msg("row %d: %s refused: %s", t[i].n, t[i].options, why.message);
            char got[512] = "";
            size_t at = 0;
            for (const char *const *s = rs->seats(g); *s; s++)
                at += (size_t)snprintf(got + at, sizeof got - at, "%s%s", at ? " " : "", *s);
            if (strcmp(got, t[i].seats) != 0)
                fail_msg("row %d: seats '%s', want '%s'", t[i].n, got, t[i].seats);
            rs->destroy(g);
        }
        json_decref(opt);
    }
    json_decref(sc);
}

/* Rows 11-27: who commands which unit in the 1815 order of battle
 * (docs/waterloo-1815.md, "Command structure"). */
static void test_order_of_battle(void **state)
{
    (void)state;
    static const struct {
        int n, commanders;
        const char *unit, *seat;
    } t[] = {
        { 11, 2, "fr-i-quiot", "french:ney" },          /* I Corps, the left wing */
        { 12, 2, "fr-ii-jerome", "french:ney" },        /* II Corps */
        { 13, 2, "fr-c3-lheritier", "french:ney" },     /* III Cavalry Corps */
        { 14, 2, "fr-g-lefebvre", "french:ney" },       /* the Guard light cavalry */
        { 15, 2, "fr-hq-ney", "french:ney" },
        { 16, 2, "fr-iii-lefol", "french:napoleon" },   /* the right wing without Grouchy */
        { 17, 2, "fr-g-friant", "french:napoleon" },
        { 18, 2, "fr-c4-wathier", "french:napoleon" },
        { 19, 3, "fr-iii-lefol", "french:grouchy" },
        { 20, 3, "fr-c2-strolz", "french:grouchy" },
        { 21, 3, "fr-vi-simmer", "french:napoleon" },
        { 22, 2, "pr-i-1", "allied:blucher" },
        { 23, 2, "pr-iv-15", "allied:blucher" },
        { 24, 2, "aa-cooke", "allied:wellington" },
        { 25, 3, "aa-cooke", "allied:prince_of_orange" },
        { 26, 3, "aa-bylandt", "allied:prince_of_orange" },   /* 2nd Netherlands Division */
        { 27, 3, "aa-picton", "allied:wellington" },          /* the Reserve */
    };
    struct wl_scenario *sc = malloc(sizeof *sc);
    struct wl_game *g = malloc(sizeof *g);
    struct wr_refusal why;
    assert_non_null(sc);
    assert_non_null(g);
    if (wl_scenario_load_file(sc, SEATS_1815, &why) != 0)
        fail_msg("%s", why.message);
    assert_int_equal(sc->most_commanders, 3);
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        struct wl_options opt = wl_options_default();
        opt.commanders = t[i].commanders;
        assert_int_equal(wl_options_check(&opt, sc, &why), 0);
        wl_game_init_with(g, sc, "oob", NULL, &opt);
        int u = wl_scenario_find_unit(sc, t[i].unit);
        assert_true(u >= 0);
        char seat[WL_SEAT_MAX];
        wl_team_seat(g, sc->units[u].side, wl_team_commander(g, u), seat);
        if (strcmp(seat, t[i].seat) != 0)
            fail_msg("row %d: %s is commanded by %s, want %s", t[i].n, t[i].unit, seat,
                     t[i].seat);
    }
    free(g);
    free(sc);
}

/* Rows 131-140: the HQs in the game (TP3, wl_unit_plays): "In a 2-player game use only
 * the HQ Units labeled Wellington, Napoleon and Blucher." / "When more
 * than 2 play, additional HQ Units may be used as subordinate commanders'
 * HQ Units." */
static void test_hqs_in_game(void **state)
{
    (void)state;
    static const struct {
        int n, rules, commanders;
        const char *unit;
        int in;
    } t[] = {
        { 131, 2, 2, "fr-hq-napoleon", 1 },
        { 132, 2, 2, "fr-hq-ney", 1 },
        { 133, 2, 2, "fr-hq-grouchy", 0 },
        { 134, 2, 2, "fr-hq-soult", 0 },
        { 135, 2, 2, "pr-hq-blucher", 1 },
        { 136, 2, 3, "fr-hq-grouchy", 1 },
        { 137, 2, 3, "aa-hq-orange", 1 },
        { 138, 2, 1, "fr-hq-ney", 0 },
        { 139, 1, 1, "fr-hq-ney", 1 },          /* rules 1: every HQ, as before */
        { 140, 2, 2, "fr-i-quiot", 1 },         /* combat units always */
    };
    struct wl_scenario *sc = malloc(sizeof *sc);
    struct wr_refusal why;
    assert_non_null(sc);
    if (wl_scenario_load_file(sc, SEATS_1815, &why) != 0)
        fail_msg("%s", why.message);
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        struct wl_options opt = { t[i].rules, t[i].commanders, 1 };
        assert_int_equal(wl_options_check(&opt, sc, &why), 0);
        int u = wl_scenario_find_unit(sc, t[i].unit);
        assert_true(u >= 0);
        if (wl_unit_plays(&opt, sc, u) != t[i].in)
            fail_msg("row %d: %s in the game: %d, want %d", t[i].n, t[i].unit,
                     wl_unit_plays(&opt, sc, u), t[i].in);
    }
    free(sc);
}

/* --- orders: "only the commander of a unit may move it ... place it" ------------ */

static void test_orders(void **state)
{
    struct fixture *f = *state;
    static const struct row setup_rows[] = {
        { 31, "french:reille", "{\"type\":\"place\",\"unit\":\"fr-ii-art\",\"at\":\"L-42\"}",
          WL_R_NOT_YOUR_COMMAND },
        { 32, "french:napoleon", "{\"type\":\"place\",\"unit\":\"fr-jerome\",\"at\":\"L-42\"}",
          WL_R_NOT_YOUR_COMMAND },
        { 33, "french:reille", "{\"type\":\"place\",\"unit\":\"fr-jerome\",\"at\":\"L-42\"}",
          WL_R_OK },
        { 34, "allied:orange", "{\"type\":\"end_setup\"}", WL_R_NOT_YOUR_TURN },
        { 35, "french:reille", "{\"type\":\"end_setup\"}", WL_R_OK },
    };
    rows(f, setup_rows, sizeof setup_rows / sizeof setup_rows[0]);
    /* Reille has ended his set-up; Napoleon has not: the phase goes on. */
    assert_int_equal(f->g.phase, WL_PH_SETUP_FRENCH);
    assert_awaited(f, "french:napoleon");
    static const struct row more[] = {
        { 36, "french:reille", "{\"type\":\"place\",\"unit\":\"fr-foy\",\"at\":\"L-43\"}",
          WL_R_NOT_YOUR_TURN },
        { 37, "french:napoleon", "{\"type\":\"place\",\"unit\":\"fr-ii-art\",\"at\":\"L-43\"}",
          WL_R_OK },
        { 38, "french:napoleon", "{\"type\":\"end_setup\"}", WL_R_OK },
        { 39, "allied:orange", "{\"type\":\"place\",\"unit\":\"aa-picton\",\"at\":\"H-42\"}",
          WL_R_NOT_YOUR_COMMAND },
        { 40, "allied:wellington", "{\"type\":\"place\",\"unit\":\"aa-cooke\",\"at\":\"H-42\"}",
          WL_R_NOT_YOUR_COMMAND },
        { 41, "allied:wellington", "{\"type\":\"end_setup\"}", WL_R_OK },
        /* French movement: Foy is Reille's, the artillery Napoleon's. */
        { 42, "french:napoleon", "{\"type\":\"move\",\"unit\":\"fr-foy\",\"path\":[\"L-40\"]}",
          WL_R_NOT_YOUR_COMMAND },
        { 43, "french:napoleon", "{\"type\":\"move\",\"units\":[\"fr-ii-art\",\"fr-foy\"],"
                                 "\"path\":[\"M-43\"]}", WL_R_NOT_YOUR_COMMAND },
        { 44, "french:reille", "{\"type\":\"move\",\"unit\":\"fr-foy\",\"path\":[\"L-40\"]}",
          WL_R_OK },
        { 45, "french:reille", "{\"type\":\"move\",\"unit\":\"fr-ii-art\",\"path\":[\"M-43\"]}",
          WL_R_NOT_YOUR_COMMAND },
    };
    rows(f, more, sizeof more / sizeof more[0]);
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "fr-foy")].at, wlt_sq("L-40"));
}

/* "A side's phase ends when each of its commanders has ended it (the
 * commander-in-chief may end it for all)" (issue 13; docs/rules-notes.md
 * TP7). */
static void test_phase_end(void **state)
{
    struct fixture *f = *state;
    to_movement(f);
    assert_awaited(f, "french:napoleon french:reille");
    static const struct row t1[] = {
        { 51, "french:reille", "{\"type\":\"end_phase\"}", WL_R_OK },
        { 52, "french:reille", "{\"type\":\"end_phase\"}", WL_R_NOT_YOUR_TURN },
        { 53, "french:reille", "{\"type\":\"move\",\"unit\":\"fr-foy\",\"path\":[\"L-40\"]}",
          WL_R_NOT_YOUR_TURN },
    };
    rows(f, t1, sizeof t1 / sizeof t1[0]);
    assert_int_equal(f->g.phase, WL_PH_FRENCH_MOVE);
    assert_awaited(f, "french:napoleon");
    json_t *s = wl_game_state_json(&f->g);
    assert_true(json_is_true(json_object_get(json_array_get(json_object_get(
        json_object_get(s, "commanders"), "french"), 1), "ended")));
    json_decref(s);
    static const struct row t2[] = {
        { 54, "french:napoleon", "{\"type\":\"end_phase\"}", WL_R_OK },
    };
    rows(f, t2, 1);
    /* No contact: the French combat passes; allied movement, both awaited. */
    assert_int_equal(f->g.phase, WL_PH_ALLIED_MOVE);
    assert_awaited(f, "allied:wellington allied:orange");
    /* The commander-in-chief first: the phase ends for Orange too. */
    static const struct row t3[] = {
        { 55, "allied:wellington", "{\"type\":\"end_phase\"}", WL_R_OK },
    };
    rows(f, t3, 1);
    assert_int_equal(f->g.phase, WL_PH_FRENCH_MOVE);
    assert_int_equal(f->g.turn, 2);
    assert_awaited(f, "french:napoleon french:reille");
}

/* --- "Elimination of a subordinate commander's HQ Unit means he is out" ------------ */

static void test_subordinate_out(void **state)
{
    struct fixture *f = *state;
    char seat[WL_SEAT_MAX];
    to_movement(f);
    static const char *const ids[] = { "fr-napoleon", "fr-reille", "fr-jerome", "fr-ii-art",
                                       "aa-picton", "aa-wellington", "aa-orange", "aa-cooke",
                                       NULL };
    static const char *const at[] = { "L-38", "N-42", "K-37", "L-37",
                                      "M-42", "E-42", "G-43", "E-44" };
    only(f, ids, at);
    combat_phase(f, WL_ALLIED);
    /* Picton (Wellington's) attacks Reille's HQ, alone on N-42. */
    assert_awaited(f, "allied:wellington");
    static const struct row t[] = {
        { 61, "allied:orange", "{\"type\":\"declare\",\"battles\":[{\"attackers\":"
                               "[\"aa-picton\"],\"defenders\":[\"fr-reille\"]}]}",
          WL_R_NOT_YOUR_COMMAND },
        { 62, "allied:wellington", "{\"type\":\"declare\",\"battles\":[{\"attackers\":"
                                   "[\"aa-picton\"],\"defenders\":[\"fr-reille\"]}]}", WL_R_OK },
        { 63, "allied:orange", "{\"type\":\"resolve\",\"battle\":0}", WL_R_NOT_YOUR_COMMAND },
        { 64, "allied:wellington", "{\"type\":\"resolve\",\"battle\":0}", WL_R_OK },
    };
    rows(f, t, sizeof t / sizeof t[0]);
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "fr-reille")].where, WL_ELIMINATED);
    const json_t *e = event_of(f, "commander_out");
    assert_non_null(e);
    assert_string_equal(json_string_value(json_object_get(e, "seat")), "french:reille");
    assert_string_equal(json_string_value(json_object_get(e, "to")), "french:napoleon");
    /* His units still in play pass: Jerome; Foy and Pire were taken off. */
    const json_t *passed = json_object_get(e, "units");
    assert_int_equal(json_array_size(passed), 1);
    assert_string_equal(json_string_value(json_array_get(passed, 0)), "fr-jerome");
    /* "Units under his command, however, remain in play": Napoleon's now. */
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "fr-jerome")].where, WL_ON_BOARD);
    assert_string_equal(commander_of(f, "fr-jerome", seat), "french:napoleon");
    json_t *s = wl_game_state_json(&f->g);
    assert_string_equal(json_string_value(json_object_get(json_object_get(json_object_get(
                            s, "units"), "fr-jerome"), "commander")), "french:napoleon");
    assert_true(json_is_true(json_object_get(json_array_get(json_object_get(
        json_object_get(s, "commanders"), "french"), 1), "out")));
    json_decref(s);
    /* Picton, on neither a river nor a slope, does not advance: the turn
     * ends, and the French move. */
    assert_int_equal(f->g.phase, WL_PH_FRENCH_MOVE);
    static const struct row t2[] = {
        { 66, "french:reille", "{\"type\":\"end_phase\"}", WL_R_COMMANDER_OUT },
        { 67, "french:reille", "{\"type\":\"move\",\"unit\":\"fr-jerome\",\"path\":[\"K-38\"]}",
          WL_R_COMMANDER_OUT },
        { 68, "french:napoleon", "{\"type\":\"move\",\"unit\":\"fr-jerome\",\"path\":[\"K-38\"]}",
          WL_R_OK },
    };
    rows(f, t2, sizeof t2 / sizeof t2[0]);
    assert_int_equal(f->g.phase, WL_PH_FRENCH_MOVE);
    /* Only Napoleon is awaited now; his end ends the phase. */
    assert_awaited(f, "french:napoleon");

    /* The state round-trips, who is out included. */
    s = wl_game_state_json(&f->g);
    struct wl_game *back = malloc(sizeof *back);
    struct wr_refusal why;
    assert_non_null(back);
    if (wl_game_init_from_state(back, &f->sc, s, "test-teams", &why) != 0)
        fail_msg("round trip: %s", why.message);
    assert_int_equal(back->opt.commanders, 2);
    assert_int_equal(back->cmdr_out[WL_FRENCH][1], 1);
    json_t *again = wl_game_state_json(back);
    json_object_del(s, "dice");
    json_object_del(again, "dice");
    assert_true(json_equal(s, again));
    /* A state whose units name another commander is refused. */
    json_object_set_new(json_object_get(json_object_get(s, "units"), "fr-jerome"), "commander",
                        json_string("french:reille"));
    assert_int_equal(wl_game_init_from_state(back, &f->sc, s, "test-teams", &why), -1);
    json_decref(again);
    json_decref(s);
    free(back);
}

/* The rulebook is silent on the commander-in-chief's HQ: he stays in and
 * commands on without it (docs/rules-notes.md TP9). */
static void test_cic_hq_eliminated(void **state)
{
    struct fixture *f = *state;
    char seat[WL_SEAT_MAX];
    to_movement(f);
    static const char *const ids[] = { "fr-napoleon", "fr-reille", "fr-jerome", "fr-ii-art",
                                       "aa-picton", "aa-wellington", "aa-orange", "aa-cooke",
                                       NULL };
    static const char *const at[] = { "N-42", "L-38", "K-37", "L-37",
                                      "M-42", "E-42", "G-43", "E-44" };
    only(f, ids, at);
    combat_phase(f, WL_ALLIED);
    static const struct row t[] = {
        { 71, "allied:wellington", "{\"type\":\"declare\",\"battles\":[{\"attackers\":"
                                   "[\"aa-picton\"],\"defenders\":[\"fr-napoleon\"]}]}", WL_R_OK },
        { 72, "allied:wellington", "{\"type\":\"resolve\",\"battle\":0}", WL_R_OK },
    };
    rows(f, t, sizeof t / sizeof t[0]);
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "fr-napoleon")].where, WL_ELIMINATED);
    assert_null(event_of(f, "commander_out"));
    assert_int_equal(f->g.cmdr_out[WL_FRENCH][0], 0);
    assert_string_equal(commander_of(f, "fr-ii-art", seat), "french:napoleon");
    assert_string_equal(commander_of(f, "fr-jerome", seat), "french:reille");
    static const struct row t2[] = {
        { 74, "french:napoleon", "{\"type\":\"move\",\"unit\":\"fr-ii-art\",\"path\":[\"L-36\"]}",
          WL_R_OK },
        { 75, "french:napoleon", "{\"type\":\"end_phase\"}", WL_R_OK },
    };
    rows(f, t2, sizeof t2 / sizeof t2[0]);
    assert_int_equal(f->g.phase, WL_PH_ALLIED_MOVE);
}

/* --- decisions the rules give "the player" of a side ------------------------------ */

/* D-Back-2: "the winner" chooses the losers' retreats: the commander of
 * the winning units (TP6). */
static void test_retreat_by_winner(void **state)
{
    struct fixture *f = *state;
    to_movement(f);
    static const char *const ids[] = { "fr-napoleon", "fr-reille", "fr-jerome", "aa-picton",
                                       "aa-wellington", NULL };
    static const char *const at[] = { "L-38", "L-37", "N-42", "M-42", "E-42" };
    only(f, ids, at);
    combat_phase(f, WL_FRENCH);
    f->dice.faces[f->dice.n++] = 2;  /* 1-1, die 2: DB2 */
    static const struct row t[] = {
        { 81, "french:napoleon", "{\"type\":\"declare\",\"battles\":[{\"attackers\":"
                                 "[\"fr-jerome\"],\"defenders\":[\"aa-picton\"]}]}",
          WL_R_NOT_YOUR_COMMAND },
        { 82, "french:reille", "{\"type\":\"declare\",\"battles\":[{\"attackers\":"
                               "[\"fr-jerome\"],\"defenders\":[\"aa-picton\"]}]}", WL_R_OK },
        { 83, "french:napoleon", "{\"type\":\"resolve\",\"battle\":0}", WL_R_NOT_YOUR_COMMAND },
        { 84, "french:reille", "{\"type\":\"resolve\",\"battle\":0}", WL_R_OK },
        { 85, "french:napoleon", "{\"type\":\"retreat\",\"unit\":\"aa-picton\",\"path\":"
                                 "[\"L-42\",\"K-42\"]}", WL_R_NOT_YOUR_COMMAND },
        { 86, "allied:wellington", "{\"type\":\"retreat\",\"unit\":\"aa-picton\",\"path\":"
                                   "[\"L-42\",\"K-42\"]}", WL_R_NOT_YOUR_TURN },
        { 87, "french:reille", "{\"type\":\"retreat\",\"unit\":\"aa-picton\",\"path\":"
                               "[\"L-42\",\"K-42\"]}", WL_R_OK },
    };
    rows(f, t, sizeof t / sizeof t[0]);
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "aa-picton")].at, wlt_sq("K-42"));
}

/* A-Back-2: the defender won; the commander of the defending units
 * chooses the attackers' retreats. */
static void test_retreat_by_defender(void **state)
{
    struct fixture *f = *state;
    to_movement(f);
    static const char *const ids[] = { "fr-napoleon", "fr-reille", "fr-jerome", "aa-picton",
                                       "aa-wellington", NULL };
    static const char *const at[] = { "L-38", "L-37", "N-42", "M-42", "E-42" };
    only(f, ids, at);
    combat_phase(f, WL_ALLIED);
    f->dice.faces[f->dice.n++] = 1;  /* 1-1, die 1: AB2 */
    static const struct row t[] = {
        { 91, "allied:wellington", "{\"type\":\"declare\",\"battles\":[{\"attackers\":"
                                   "[\"aa-picton\"],\"defenders\":[\"fr-jerome\"]}]}", WL_R_OK },
        { 92, "allied:wellington", "{\"type\":\"resolve\",\"battle\":0}", WL_R_OK },
        { 93, "french:napoleon", "{\"type\":\"retreat\",\"unit\":\"aa-picton\",\"path\":"
                                 "[\"L-42\",\"K-42\"]}", WL_R_NOT_YOUR_COMMAND },
        { 94, "french:reille", "{\"type\":\"retreat\",\"unit\":\"aa-picton\",\"path\":"
                               "[\"L-42\",\"K-42\"]}", WL_R_OK },
    };
    rows(f, t, sizeof t / sizeof t[0]);
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "aa-picton")].at, wlt_sq("K-42"));
}

/* A battle of two commanders' units: declared, resolved and its exchange
 * losses chosen by the commander-in-chief (TP6). */
static void test_joint_battle_exchange(void **state)
{
    struct fixture *f = *state;
    to_movement(f);
    static const char *const ids[] = { "fr-napoleon", "fr-reille", "fr-jerome", "fr-ii-art",
                                       "aa-picton", "aa-wellington", NULL };
    static const char *const at[] = { "L-38", "L-37", "N-42", "N-43", "M-43", "E-42" };
    only(f, ids, at);
    combat_phase(f, WL_FRENCH);
    f->dice.faces[f->dice.n++] = 6;  /* 10-6 is 1-1, die 6: EX */
    static const char *const declare =
        "{\"type\":\"declare\",\"battles\":[{\"attackers\":[\"fr-jerome\",\"fr-ii-art\"],"
        "\"defenders\":[\"aa-picton\"]}]}";
    static const struct row t[] = {
        { 101, "french:reille", declare, WL_R_NOT_YOUR_COMMAND },
        { 102, "french:napoleon", declare, WL_R_OK },
        { 103, "french:reille", "{\"type\":\"resolve\",\"battle\":0}", WL_R_NOT_YOUR_COMMAND },
        { 104, "french:napoleon", "{\"type\":\"resolve\",\"battle\":0}", WL_R_OK },
    };
    rows(f, t, sizeof t / sizeof t[0]);
    assert_int_equal(f->g.await_what, WL_AW_EXCHANGE);
    assert_awaited(f, "french:napoleon");
    static const struct row t2[] = {
        { 105, "french:reille", "{\"type\":\"exchange_losses\",\"units\":[\"fr-jerome\"]}",
          WL_R_NOT_YOUR_COMMAND },
        { 106, "french:napoleon", "{\"type\":\"exchange_losses\",\"units\":[\"fr-jerome\"]}",
          WL_R_OK },
    };
    rows(f, t2, sizeof t2 / sizeof t2[0]);
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "fr-jerome")].where, WL_ELIMINATED);
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "aa-picton")].where, WL_ELIMINATED);
}

/* Rows 151-158: a rules 2 combat phase in a team game (TP5, TP7; D1-D4).
 * Jerome (Reille's) and the II Corps artillery (Napoleon's) are both next
 * to Picton, whose only neighbours they are: either alone against him would
 * strand the other, so it is a battle for the commander-in-chief. Reille
 * ends the phase for himself and leaves Jerome to Napoleon, who commits
 * both; the phase cannot end before that battle is fought. */
static void test_team_combat(void **state)
{
    struct fixture *f = *state;
    to_movement(f);
    static const char *const ids[] = { "fr-napoleon", "fr-reille", "fr-jerome", "fr-ii-art",
                                       "aa-picton", "aa-wellington", NULL };
    static const char *const at[] = { "L-38", "L-37", "N-42", "N-43", "M-43", "E-42" };
    only(f, ids, at);
    static const char *const alone =
        "{\"type\":\"declare\",\"battles\":[{\"attackers\":[\"fr-jerome\"],"
        "\"defenders\":[\"aa-picton\"]}]}";
    static const char *const joint =
        "{\"type\":\"declare\",\"battles\":[{\"attackers\":[\"fr-jerome\",\"fr-ii-art\"],"
        "\"defenders\":[\"aa-picton\"]}]}";
    static const char *const end = "{\"type\":\"end_phase\"}";
    static const struct row t1[] = {
        { 151, "french:reille", end, WL_R_OK },         /* his movement */
        { 151, "french:napoleon", end, WL_R_OK },       /* the side's: to combat */
    };
    rows(f, t1, sizeof t1 / sizeof t1[0]);
    assert_int_equal(f->g.phase, WL_PH_FRENCH_COMBAT);
    assert_int_equal(f->g.await_what, WL_AW_COMBAT);
    assert_awaited(f, "french:napoleon french:reille");                     /* 152 */
    static const struct row t2[] = {
        { 153, "french:reille", alone, WL_R_STRANDED },
        { 154, "french:napoleon", end, WL_R_MUST_ATTACK },
        { 155, "french:reille", end, WL_R_OK },
        { 156, "french:reille", alone, WL_R_NOT_YOUR_TURN },
    };
    rows(f, t2, sizeof t2 / sizeof t2[0]);
    assert_awaited(f, "french:napoleon");
    static const struct row t3[] = {
        { 157, "french:napoleon", joint, WL_R_OK },
        { 158, "french:napoleon", end, WL_R_BATTLE_OPEN },
    };
    rows(f, t3, sizeof t3 / sizeof t3[0]);
    assert_int_equal(f->g.phase, WL_PH_FRENCH_COMBAT);
}

/* Defection removals are the army's loss, chosen among every unit of the
 * side: the commander-in-chief's (TP6). */
static void test_defection_by_cic(void **state)
{
    struct fixture *f = *state;
    to_movement(f);
    f->g.phase = WL_PH_DEFECTION;
    f->g.await_side = WL_ALLIED;
    f->g.await_what = WL_AW_DEFECTION;
    f->g.defection_owed = 2;
    assert_awaited(f, "allied:wellington");
    static const struct row t[] = {
        { 111, "allied:orange", "{\"type\":\"defect\",\"units\":[\"aa-cooke\"]}",
          WL_R_NOT_YOUR_COMMAND },
        { 112, "allied:wellington", "{\"type\":\"defect\",\"units\":[\"aa-cooke\"]}", WL_R_OK },
    };
    rows(f, t, sizeof t / sizeof t[0]);
    assert_int_equal(f->g.units[wlt_unit(&f->sc, "aa-cooke")].where, WL_ELIMINATED);
    assert_int_equal(f->g.phase, WL_PH_ALLIED_MOVE);
}

/* --- one commander a side: nothing changes ------------------------------------------ */

static void test_one_commander_unchanged(void **state)
{
    struct fixture *f = *state;
    static const uint8_t seed[32] = { 7, 1, 8, 1, 5 };
    wl_game_init(&f->g, &f->sc, "test-teams", seed);
    assert_int_equal(wl_team_size(&f->g), 1);
    json_t *s = wl_game_state_json(&f->g);
    assert_null(json_object_get(s, "commanders"));
    assert_null(json_object_get(json_object_get(json_object_get(s, "units"), "fr-jerome"),
                                "commander"));
    assert_null(json_object_get(json_object_get(s, "awaiting"), "commanders"));
    json_decref(s);
    /* One seat a side commands every unit of it. */
    static const struct row t[] = {
        { 121, "french", "{\"type\":\"place\",\"unit\":\"fr-ii-art\",\"at\":\"L-42\"}", WL_R_OK },
        { 122, "french", "{\"type\":\"place\",\"unit\":\"fr-jerome\",\"at\":\"L-43\"}", WL_R_OK },
        { 123, "french", "{\"type\":\"end_setup\"}", WL_R_OK },
    };
    rows(f, t, sizeof t / sizeof t[0]);
    assert_int_equal(f->g.phase, WL_PH_SETUP_ALLIED);
}

/* --- what a commander's client shows ------------------------------------------------ */

/* Count the occurrences of needle in hay. */
static int count_of(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* Rows 141-148: a view for french:ney of a 1815 game with 2 commanders a
 * side: the awaited commanders, "your units", his counters ringed in the
 * SVG and marked "[yours]" in the text, an example order for his own
 * units, and a precheck refusing an order for Napoleon's unit as the server would (not_your_command). */
static void test_present_yours(void **state)
{
    (void)state;
    const struct wr_ruleset *rs = wr_ruleset_find("waterloo");
    json_t *sc = load_json(SEATS_1815), *opt = json_pack("{s:i}", "commanders", 2);
    struct wr_refusal why;
    struct wr_game *g = rs->create(sc, opt, "present", NULL, NULL, &why);
    assert_non_null(g);
    json_t *st = rs->project(g, "french:ney");
    struct wr_view *v = rs->present->open(rs, sc, opt, "french:ney", NULL, &why);
    assert_non_null(v);
    assert_int_equal(rs->present->update(v, st, &why), 0);
    struct wr_strbuf out;
    wr_strbuf_init(&out);
    rs->present->describe(v, &out);
    if (strstr(out.s, "awaiting french:napoleon, french:ney (setup)") == NULL)  /* 141 */
        fail_msg("row 141: describe says: %s", out.s);
    /* d'Erlon's HQ is not a commander's: not in the game (TP3). */
    if (strstr(out.s, "Your units (french:ney): fr-hq-ney, fr-i-quiot") == NULL ||
        strstr(out.s, "fr-hq-derlon") != NULL ||
        strstr(out.s, "fr-iii-lefol") != NULL)                                   /* 142 */
        fail_msg("row 142: describe says: %s", out.s);
    if (strstr(out.s, "Your decision (setup)") == NULL)                          /* 143 */
        fail_msg("row 143: french:ney is awaited; describe says: %s", out.s);
    if (strstr(out.s, "e.g. \"place fr-hq-ney ") == NULL)                        /* 148 */
        fail_msg("row 148: the example is not an order for Ney's units: %s", out.s);
    /* Ney's units on the board: every unit of the left wing sets up. */
    int ney = 0;
    json_t *units = json_object_get(st, "units");
    const char *id;
    json_t *u;
    json_object_foreach(units, id, u)
        ney += strcmp(json_string_value(json_object_get(u, "commander")), "french:ney") == 0;
    assert_true(ney > 10);
    wr_strbuf_release(&out);
    wr_strbuf_init(&out);
    assert_int_equal(rs->present->draw_svg(v, &out), 0);
    if (count_of(out.s, "class=\"mine\"") != ney)                                /* 144 */
        fail_msg("row 144: %d counters ringed, Ney has %d", count_of(out.s, "class=\"mine\""),
                 ney);
    json_t *cmd = NULL;
    wr_strbuf_release(&out);
    wr_strbuf_init(&out);
    assert_int_equal(rs->present->order(v, "view LL-21 1", &cmd, &out, &why), WR_ORDER_ANSWER);
    wr_strbuf_release(&out);
    wr_strbuf_init(&out);
    struct wr_draw_opts o = { .cols = 0 };
    assert_int_equal(rs->present->draw_text(v, &o, &out), 0);
    if (strstr(out.s, "Ney HQ (fr-hq-ney) [yours]") == NULL)                     /* 145 */
        fail_msg("row 145: the text picture says: %s", out.s);
    json_t *mine = json_loads("{\"type\":\"place\",\"unit\":\"fr-i-quiot\",\"at\":\"RR-19\"}",
                              0, NULL);
    json_t *theirs = json_loads("{\"type\":\"place\",\"unit\":\"fr-iii-lefol\","
                                "\"at\":\"JJ-13\"}", 0, NULL);
    if (rs->present->precheck(v, mine, &why) != 1)                                 /* 146 */
        fail_msg("row 146: %s: %s", why.code, why.message);
    assert_int_equal(rs->present->precheck(v, theirs, &why), -1);                 /* 147 */
    assert_string_equal(why.code, "not_your_command");
    json_decref(mine);
    json_decref(theirs);
    wr_strbuf_release(&out);
    rs->present->close(v);
    json_decref(st);
    rs->destroy(g);
    json_decref(opt);
    json_decref(sc);
}

/* --- random team games ------------------------------------------------------------- */

/* Random 1815 games with 2 and 3 commanders a side through the ruleset
 * interface: every proposal of the random player for an awaited seat is
 * accepted, the invariants hold after every command, a seat not awaited
 * gets no proposal, and the state round-trips. */
static void test_random_team_games(void **state)
{
    (void)state;
    const struct wr_ruleset *rs = wr_ruleset_find("waterloo");
    json_t *sc = load_json(SEATS_1815);
    for (int n = 2; n <= 3; n++)
        for (uint64_t seed = 1; seed <= 2; seed++) {
            json_t *opt = json_pack("{s:i}", "commanders", n);
            struct wr_refusal why;
            uint8_t dice[32] = { (uint8_t)seed, (uint8_t)n };
            struct wr_game *g = rs->create(sc, opt, "random-teams", dice, NULL, &why);
            if (g == NULL)
                fail_msg("commanders %d: %s", n, why.message);
            assert_int_equal(wr_game_nseats(g), 2 * n);
            struct wr_prng rng;
            wr_prng_seed(&rng, seed * 31 + (uint64_t)n);
            int commands = 0, outs = 0;
            while (rs->result(g) == NULL && commands < 4000) {
                struct wr_decision d[WR_DECISIONS_MAX];
                int k = rs->awaiting(g, d, WR_DECISIONS_MAX);
                assert_true(k >= 1 && k <= n);
                const char *seat = d[wr_prng_below(&rng, k)].seat;
                /* A seat of the other side is never offered a command. */
                for (const char *const *s = rs->seats(g); *s; s++) {
                    int awaited = 0;
                    for (int j = 0; j < k; j++)
                        awaited |= strcmp(d[j].seat, *s) == 0;
                    if (!awaited) {
                        json_t *none = rs->autoplay(g, *s, &rng);
                        if (none != NULL)
                            fail_msg("%s is not awaited but got a command", *s);
                    }
                }
                json_t *cmd = rs->autoplay(g, seat, &rng), *ev = NULL;
                if (cmd == NULL)
                    fail_msg("no command for awaited %s", seat);
                if (rs->apply(g, seat, cmd, &ev, &why) != 0) {
                    char *text = json_dumps(cmd, 0);
                    fail_msg("commanders %d: %s's %s refused: %s %s", n, seat, text, why.code,
                             why.message);
                }
                size_t i;
                json_t *e;
                json_array_foreach(ev, i, e)
                    outs += strcmp(json_string_value(json_object_get(e, "type")),
                                   "commander_out") == 0;
                if (rs->check(g, &why) != 0)
                    fail_msg("invariant: %s", why.message);
                json_decref(cmd);
                json_decref(ev);
                commands++;
            }
            /* The state of the game's end (or of its 4000th command)
             * round-trips through wl_game_init_from_state. */
            json_t *s = rs->project(g, NULL);
            struct wl_scenario *wsc = malloc(sizeof *wsc);
            struct wl_game *back = malloc(sizeof *back);
            assert_non_null(wsc);
            assert_non_null(back);
            assert_int_equal(wl_scenario_load(wsc, sc, NULL, NULL, &why), 0);
            if (wl_game_init_from_state(back, wsc, s, "random-teams", &why) != 0)
                fail_msg("round trip: %s", why.message);
            json_t *again = wl_game_state_json(back);
            json_object_del(s, "dice");
            json_object_del(again, "dice");
            assert_true(json_equal(s, again));
            print_message("commanders %d, seed %d: %d commands, %d commanders out, %s\n", n,
                          (int)seed, commands, outs, rs->result(g) ? rs->result(g) : "running");
            json_decref(again);
            json_decref(s);
            free(back);
            free(wsc);
            rs->destroy(g);
            json_decref(opt);
        }
    json_decref(sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seats),
        cmocka_unit_test(test_order_of_battle),
        cmocka_unit_test(test_hqs_in_game),
        cmocka_unit_test_setup_teardown(test_orders, setup, teardown),
        cmocka_unit_test_setup_teardown(test_phase_end, setup, teardown),
        cmocka_unit_test_setup_teardown(test_subordinate_out, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cic_hq_eliminated, setup, teardown),
        cmocka_unit_test_setup_teardown(test_retreat_by_winner, setup, teardown),
        cmocka_unit_test_setup_teardown(test_retreat_by_defender, setup, teardown),
        cmocka_unit_test_setup_teardown(test_joint_battle_exchange, setup, teardown),
        cmocka_unit_test_setup_teardown(test_team_combat, setup, teardown),
        cmocka_unit_test_setup_teardown(test_defection_by_cic, setup, teardown),
        cmocka_unit_test_setup_teardown(test_one_commander_unchanged, setup, teardown),
        cmocka_unit_test(test_present_yours),
        cmocka_unit_test(test_random_team_games),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
