/*
 * test_codec.c - a game rebuilt from its state (wl_game_init_from_state):
 *   - round trip: for every state that random legal games reach on the
 *     small scenario and on the 1815 one, state -> game -> state gives the
 *     same JSON (without the seed, less the dice commitment);
 *   - same verdicts: the rebuilt game refuses or accepts commands exactly as
 *     the original does, with the same reason code (this is what lets the
 *     client check an order before sending it);
 *   - bad states are refused with a sentence naming the field (numbered rows).
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
#include "waterloo_command.h"
#include "waterloo_game.h"
#include "jsonpatch.h"
#include "waterloo_scenario.h"

#ifndef WARROOM_SCENARIO_DIR
#error "WARROOM_SCENARIO_DIR must be defined by the build"
#endif

struct fixture {
    struct wl_scenario sc;
    struct wl_game g, back, a, b;   /* original, rebuilt, scratch copies */
    struct wl_reach reach;
    struct wl_cmd cmd;
    struct wl_events ev;
};

static struct fixture *fixture_new(const char *file)
{
    struct fixture *f = calloc(1, sizeof *f);
    struct wr_refusal why;
    assert_non_null(f);
    if (wl_scenario_load_file(&f->sc, file, &why) != 0)
        fail_msg("%s: %s", file, why.message);
    return f;
}

/* The rebuilt game cannot roll (its seed is secret): any face will do to
 * judge a resolve order, as the client does. */
static int any_face(void *ctx, uint32_t k)
{
    (void)ctx;
    (void)k;
    return 3;
}

static void drop_commitment(json_t *state)
{
    json_object_del(json_object_get(state, "dice"), "commitment");
}

/* state -> game -> state; fails naming the seed and command number. */
static void round_trip(struct fixture *f, const char *what, int seed, int n)
{
    struct wr_refusal why;
    json_t *st = wl_game_state_json(&f->g);
    if (wl_game_init_from_state(&f->back, &f->sc, st, f->g.id, &why) != 0)
        fail_msg("%s seed %d command %d: the state does not load: %s", what, seed, n,
                 why.message);
    json_t *again = wl_game_state_json(&f->back);
    if (f->g.phase != WL_PH_OVER)
        drop_commitment(st);        /* the seed, and so the commitment, is secret */
    if (!json_equal(st, again)) {
        json_t *diff = wr_jsonpatch_diff(st, again);
        char *d = json_dumps(diff, JSON_COMPACT);
        fail_msg("%s seed %d command %d: the round trip differs: %s", what, seed, n, d);
    }
    json_decref(st);
    json_decref(again);
}

/* Apply cmd from side to copies of the original and of the rebuilt game;
 * the reason codes must agree. Advances are skipped: the state does not say
 * which squares the defenders vacated (documented in waterloo_command.h). */
static void same_verdict(struct fixture *f, int side, const struct wl_cmd *cmd, const char *what,
                         int seed, int n)
{
    struct wr_refusal wa, wb;
    if (cmd->type == WL_CMD_ADVANCE)
        return;
    f->a = f->g;
    f->b = f->back;
    f->b.roll_source = any_face;
    f->ev.n = 0;
    enum wl_reason ra = wl_game_apply(&f->a, side, cmd, &f->ev, &wa);
    f->ev.n = 0;
    enum wl_reason rb = wl_game_apply(&f->b, side, cmd, &f->ev, &wb);
    if (ra != rb) {
        json_t *j = wl_cmd_json(&f->g, cmd);
        char *t = json_dumps(j, JSON_COMPACT);
        fail_msg("%s seed %d command %d: %s from %s: original says %s (%s), rebuilt says %s "
                 "(%s)", what, seed, n, t, wl_side_name(side), wl_reason_code(ra), wa.message,
                 wl_reason_code(rb), wb.message);
    }
}

/* A random move of a random unit of side: a walk of 1..4 steps through
 * neighbours, so most are refused, for all sorts of reasons. */
static void random_move(const struct fixture *f, struct wr_prng *rng, int side,
                        struct wl_cmd *c)
{
    memset(c, 0, sizeof *c);
    c->type = WL_CMD_MOVE;
    c->to = WL_SQ_NONE;
    int u;
    do {
        u = wr_prng_below(rng, f->sc.nunits);
    } while (f->sc.units[u].side != side && wr_prng_below(rng, 4) != 0);
    c->units[0] = (int16_t)u;
    c->nunits = 1;
    wl_sq at = f->g.units[u].at;
    if (at == WL_SQ_NONE)
        at = wl_sq_make(1 + wr_prng_below(rng, 48), 1 + wr_prng_below(rng, 56));
    int steps = 1 + wr_prng_below(rng, 4);
    for (int i = 0; i < steps; i++) {
        wl_sq next = wl_grid_neighbour(at, wr_prng_below(rng, WL_NDIR));
        if (next == WL_SQ_NONE || !wl_grid_on_board(next))
            break;
        c->path[c->npath++] = at = next;
    }
    if (c->npath == 0)
        c->path[c->npath++] = f->g.units[u].at == WL_SQ_NONE ? at : f->g.units[u].at;
}

static void random_games(const char *file, const char *what, int seeds, int max_commands)
{
    struct fixture *f = fixture_new(file);
    for (int seed = 1; seed <= seeds; seed++) {
        uint8_t s32[32] = { (uint8_t)seed, 7 };
        wl_game_init(&f->g, &f->sc, "codec-test", s32);
        struct wr_prng rng, probe;
        wr_prng_seed(&rng, (uint64_t)seed * 31);
        wr_prng_seed(&probe, (uint64_t)seed * 977);
        int n = 0;
        round_trip(f, what, seed, n);
        while (f->g.phase != WL_PH_OVER && n < max_commands) {
            assert_int_equal(wl_autoplay_next(&f->g, &rng, &f->reach, &f->cmd), 0);
            int side = f->g.await_side;
            /* the proposal from its seat and from the other one */
            same_verdict(f, side, &f->cmd, what, seed, n);
            same_verdict(f, 1 - side, &f->cmd, what, seed, n);
            /* and a few wild moves */
            struct wl_cmd wild;
            for (int k = 0; k < 4; k++) {
                random_move(f, &probe, side, &wild);
                same_verdict(f, side, &wild, what, seed, n);
            }
            struct wr_refusal why;
            f->ev.n = 0;
            if (wl_game_apply(&f->g, side, &f->cmd, &f->ev, &why) != WL_R_OK)
                fail_msg("%s seed %d: the random player was refused: %s", what, seed,
                         why.message);
            n++;
            round_trip(f, what, seed, n);
        }
    }
    free(f);
}

static void test_round_trip_small(void **state)
{
    (void)state;
    random_games(WARROOM_SCENARIO_DIR "/test/small.json", "small", 12, 100000);
}

static void test_round_trip_1815(void **state)
{
    (void)state;
    random_games(WARROOM_SCENARIO_DIR "/waterloo-1815/scenario.json", "1815", 2, 600);
}

/* Bad states: each row changes one field of a valid state (a JSON Patch)
 * and names a fragment of the sentence expected. */
static void test_bad_states(void **state)
{
    (void)state;
    static const struct {
        const char *patch;
        const char *says;
    } rows[] = {
        /* 1 */ { "[{\"op\":\"replace\",\"path\":\"/scenario\",\"value\":\"other\"}]",
                  "scenario 'other'" },
        /* 2 */ { "[{\"op\":\"replace\",\"path\":\"/ruleset\",\"value\":\"tictactoe\"}]",
                  "ruleset 'tictactoe'" },
        /* 3 */ { "[{\"op\":\"replace\",\"path\":\"/turn\",\"value\":0}]", "turn" },
        /* 4 */ { "[{\"op\":\"replace\",\"path\":\"/phase\",\"value\":\"lunch\"}]",
                  "phase 'lunch'" },
        /* 5 */ { "[{\"op\":\"replace\",\"path\":\"/awaiting/what\",\"value\":\"nap\"}]",
                  "awaiting" },
        /* 6 */ { "[{\"op\":\"remove\",\"path\":\"/units/fr-jerome\"}]", "every unit" },
        /* 7 */ { "[{\"op\":\"replace\",\"path\":\"/units/fr-jerome/at\",\"value\":\"ZZ-99\"}]",
                  "'ZZ-99' is not a square" },
        /* 8 */ { "[{\"op\":\"add\",\"path\":\"/units/fr-jerome/colour\",\"value\":1}]",
                  "unexpected field" },
        /* 9 */ { "[{\"op\":\"add\",\"path\":\"/units/fr-jerome/battle\",\"value\":3}]",
                  "its battle does not exist" },
        /* 10 */ { "[{\"op\":\"replace\",\"path\":\"/dice/rolls\",\"value\":-1}]", "dice" },
        /* 11 */ { "[{\"op\":\"add\",\"path\":\"/dice/seed\",\"value\":\"00\"}]",
                   "64 hex digits" },
        /* 12 */ { "[{\"op\":\"replace\",\"path\":\"/winner\",\"value\":7}]", "winner" },
        /* 13 */ { "[{\"op\":\"add\",\"path\":\"/battles/0\",\"value\":{\"attackers\":"
                   "[\"fr-jerome\"],\"defenders\":[\"aa-picton\"],\"odds\":\"6 to 6\","
                   "\"column\":\"1-1\",\"state\":\"declared\"}}]", "odds '6 to 6'" },
        /* 14 */ { "[{\"op\":\"add\",\"path\":\"/battles/0\",\"value\":{\"attackers\":"
                   "[\"nobody\"],\"defenders\":[],\"odds\":\"6-6\",\"column\":\"1-1\","
                   "\"state\":\"declared\"}}]", "'nobody', not a unit" },
        /* 15: two sides on one square breaks the invariants */
        { "[{\"op\":\"replace\",\"path\":\"/units/aa-picton/at\",\"value\":\"K-40\"}]",
          "both sides on K-40" },
        /* 16: the awaited seat does not fit the phase */
        { "[{\"op\":\"replace\",\"path\":\"/awaiting/seat\",\"value\":\"allied\"}]",
          "awaiting" },
        /* 17: "In a 2-player game use only the HQ Units labeled Wellington, Napoleon and
         * Blucher." (rulebook): under rules 2 a team HQ is no unit of the state */
        { "[{\"op\":\"add\",\"path\":\"/units/fr-reille\",\"value\":{\"at\":\"K-42\"}}]",
          "'fr-reille' is not in a game of rules 2" },
        /* 18: ... while under rules 1 (every HQ in play) it must be there */
        { "[{\"op\":\"replace\",\"path\":\"/rules\",\"value\":1}]",
          "unit 'fr-reille' is missing" },
    };
    struct fixture *f = fixture_new(WARROOM_SCENARIO_DIR "/test/small.json");
    wl_game_init(&f->g, &f->sc, "bad", NULL);
    json_t *good = wl_game_state_json(&f->g);
    struct wr_refusal why;
    assert_int_equal(wl_game_init_from_state(&f->back, &f->sc, good, NULL, &why), 0);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        json_t *patch = json_loads(rows[i].patch, 0, NULL), *bad = NULL;
        if (patch == NULL || wr_jsonpatch_apply(good, patch, &bad, NULL, 0) != 0)
            fail_msg("row %zu: test data: the patch does not apply", i + 1);
        memset(&why, 0, sizeof why);
        if (wl_game_init_from_state(&f->back, &f->sc, bad, NULL, &why) == 0)
            fail_msg("row %zu: the bad state loaded", i + 1);
        if (strstr(why.message, rows[i].says) == NULL)
            fail_msg("row %zu: said \"%s\", want \"%s\"", i + 1, why.message, rows[i].says);
        json_decref(patch);
        json_decref(bad);
    }
    /* Not an object at all. */
    json_t *num = json_integer(3);
    assert_int_equal(wl_game_init_from_state(&f->back, &f->sc, num, NULL, &why), -1);
    json_decref(num);
    json_decref(good);
    free(f);
}

/* A finished game carries its seed: the rebuilt game has it, and the
 * round trip is exact, commitment included. */
static void test_seed_revealed(void **state)
{
    (void)state;
    struct fixture *f = fixture_new(WARROOM_SCENARIO_DIR "/test/small.json");
    uint8_t s32[32] = { 42 };
    wl_game_init(&f->g, &f->sc, "seeded", s32);
    struct wr_prng rng;
    wr_prng_seed(&rng, 5);
    while (f->g.phase != WL_PH_OVER) {
        assert_int_equal(wl_autoplay_next(&f->g, &rng, &f->reach, &f->cmd), 0);
        f->ev.n = 0;
        assert_int_equal(wl_game_apply(&f->g, f->g.await_side, &f->cmd, &f->ev, NULL), WL_R_OK);
    }
    json_t *st = wl_game_state_json(&f->g);
    struct wr_refusal why;
    assert_int_equal(wl_game_init_from_state(&f->back, &f->sc, st, "seeded", &why), 0);
    assert_int_equal(f->back.has_seed, 1);
    assert_memory_equal(f->back.seed, s32, 32);
    json_t *again = wl_game_state_json(&f->back);
    assert_true(json_equal(st, again));
    /* A seed that is not the committed one is refused. */
    json_object_set_new(json_object_get(st, "dice"), "seed",
                        json_string("0000000000000000000000000000000000000000000000000000000000000000"));
    assert_int_equal(wl_game_init_from_state(&f->back, &f->sc, st, "seeded", &why), -1);
    assert_non_null(strstr(why.message, "does not match"));
    json_decref(st);
    json_decref(again);
    free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_small),
        cmocka_unit_test(test_round_trip_1815),
        cmocka_unit_test(test_bad_states),
        cmocka_unit_test(test_seed_revealed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
