/*
 * test_ruleset_save.c - saved games refused when damaged (ruleset.h,
 * version 5): a game of each ruleset is played a while by autoplay, saved,
 * one value of the save altered (a wrong format, a unit on no square of the
 * board, a negative roll index, a count out of range, ...), and restore must
 * return NULL with bad_command and a message naming what is wrong. Row 0 of
 * each ruleset restores the save unaltered, so a refusal is the alteration's.
 * The conformance suite (tests/conformance/) checks that what restore takes
 * answers as the saved game does; this file checks what it refuses.
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

#include "prng.h"
#include "ruleset.h"

#ifndef WARROOM_SCENARIO_DIR
#error "WARROOM_SCENARIO_DIR must name scenarios/"
#endif

/* One alteration: in a game of ruleset (on scenario, a file of scenarios/,
 * or none) after `plays` autoplay commands, the value at path ("a/b/0/c";
 * "*" is an object's first key, in sorted order) set to the JSON text
 * value, or taken out when value is NULL; want: a part of the message
 * (NULL: restore must take it). */
static const struct row {
    const char *ruleset, *scenario;
    int plays;
    const char *path, *value, *want;
} rows[] = {
    /* 0 */ { "tictactoe", NULL, 3, NULL, NULL, NULL },
    /* 1 */ { "tictactoe", NULL, 3, "format", "2", "format" },
    /* 2 */ { "tictactoe", NULL, 3, "board", "\"x..o....z\"", "board" },
    /* 3 */ { "tictactoe", NULL, 3, "board", "\"xxx......\"", "o after" },
    /* 4 */ { "tictactoe", NULL, 3, "board", "\"xxxooo...\"", "cannot be reached" },
    /* 5 */ { "tictactoe", NULL, 3, "board", NULL, "format" },
    /* 6 */ { "waterloo", "waterloo-1815/scenario.json", 120, NULL, NULL, NULL },
    /* 7 */ { "waterloo", "waterloo-1815/scenario.json", 120, "format", "0", "format" },
    /* 8 */ { "waterloo", "waterloo-1815/scenario.json", 120, "state/units/fr-hq-napoleon/at",
              "\"B-0\"", "not a square of the board" },
    /* 9 */ { "waterloo", "waterloo-1815/scenario.json", 120, "state/units/fr-hq-napoleon/at",
              "\"ZZ-99\"", "not a square of the board" },
    /* 10 */ { "waterloo", "waterloo-1815/scenario.json", 120, "state/dice/rolls", "-1",
               "dice" },
    /* 11 */ { "waterloo", "waterloo-1815/scenario.json", 120, "more/undo/moves", "[0, 7]",
               "commander" },
    /* 12 */ { "waterloo", "waterloo-1815/scenario.json", 120, "more/units",
               "{\"zz-nobody\": {\"advanced\": true}}", "not a unit of the game" },
    /* 13 */ { "waterloo", "waterloo-1815/scenario.json", 120, "more/declared", "2",
               "declared" },
    /* 14 */ { "waterloo", "waterloo-1815/scenario.json", 120, "state/undo", "false",
               "options" },
    /* 15 */ { "waterloo", "waterloo-1815/scenario.json", 120, "more", NULL, "format" },
    /* 16 */ { "battle", NULL, 60, NULL, NULL, NULL },
    /* 17 */ { "battle", NULL, 60, "format", "2", "format" },
    /* 18 */ { "battle", NULL, 60, "game/rolls", "-1", "rolls" },
    /* 19 */ { "battle", NULL, 60, "game/side/0/army/count", "33", "count" },
    /* 20 */ { "battle", NULL, 60, "game/side/1/army/units/0/wounds", "0", "wounds" },
    /* 21 */ { "battle", NULL, 60, "game/winner", "\"p3\"", "winner" },
    /* 22 */ { "battle", NULL, 60, "game/side/0/army/units/0/wounds_lost", "10000",
               "invariant" },
    /* 23 */ { "battle", NULL, 60, "game/side/0/army/units/0/name", NULL, "name" },
    /* 24 */ { "campaign", "campaign/ancient-world.json", 80, NULL, NULL, NULL },
    /* 25 */ { "campaign", "campaign/ancient-world.json", 80, "format", "\"1\"", "format" },
    /* 26 */ { "campaign", "campaign/ancient-world.json", 80, "game/rolls", "-1", "rolls" },
    /* 27 */ { "campaign", "campaign/ancient-world.json", 80, "game/owner/0", "8", "owner" },
    /* 28 */ { "campaign", "campaign/ancient-world.json", 80, "end", "\"bored\"", "end" },
    /* 29 */ { "campaign", "campaign/ancient-world.json", 80, "game/at/faces/0", "7",
               "faces" },
    /* 30 */ { "campaign", "campaign/ancient-world.json", 80, "game/phase", "7", "invariant" },
    /* 31 */ { "campaign", "campaign/ancient-world.json", 80, "game/at/extra", "1", "at" },
};

static json_t *load_scenario(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", WARROOM_SCENARIO_DIR, name);
    json_error_t err;
    json_t *j = json_load_file(path, 0, &err);
    if (j == NULL)
        fail_msg("%s: %s", path, err.text);
    return j;
}

/* The value at path in j and its parent, to set or take out. */
static void alter(json_t *j, const char *path, const char *value)
{
    char buf[256], *save = NULL;
    snprintf(buf, sizeof buf, "%s", path);
    json_t *at = j;
    char *seg = strtok_r(buf, "/", &save), *next;
    for (; (next = strtok_r(NULL, "/", &save)) != NULL; seg = next) {
        if (json_is_array(at)) {
            at = json_array_get(at, (size_t)atoi(seg));
        } else if (strcmp(seg, "*") == 0) {
            void *it = json_object_iter(at);
            at = it ? json_object_iter_value(it) : NULL;
        } else {
            at = json_object_get(at, seg);
        }
        if (at == NULL)
            fail_msg("no %s in the save", path);
    }
    json_t *v = value ? json_loads(value, JSON_DECODE_ANY, NULL) : NULL;
    if (value && v == NULL)
        fail_msg("bad JSON in a row: %s", value);
    if (json_is_array(at)) {
        size_t i = (size_t)atoi(seg);
        assert_true(i < json_array_size(at));
        if (v)
            assert_int_equal(json_array_set_new(at, i, v), 0);
        else
            assert_int_equal(json_array_remove(at, i), 0);
    } else if (v) {
        assert_int_equal(json_object_set_new(at, seg, v), 0);
    } else {
        assert_int_equal(json_object_del(at, seg), 0);
    }
}

static void test_refusals(void **state)
{
    (void)state;
    uint8_t seed[32];
    for (int k = 0; k < 32; k++)
        seed[k] = (uint8_t)(k * 11 + 5);
    for (size_t n = 0; n < sizeof rows / sizeof rows[0]; n++) {
        const struct row *r = &rows[n];
        const struct wr_ruleset *rs = wr_ruleset_find(r->ruleset);
        assert_non_null(rs);
        assert_true(wr_ruleset_can_save(rs));
        json_t *scenario = r->scenario ? load_scenario(r->scenario) : NULL;
        json_t *opts = wr_game_options(rs, NULL, 1);
        struct wr_refusal why = { 0, NULL, "" };
        struct wr_game *g = rs->create(scenario, opts, "save-test", seed, NULL, &why);
        if (g == NULL)
            fail_msg("row %zu: create: %s", n, why.message);
        struct wr_prng rng;
        wr_prng_seed(&rng, 77 + n);
        for (int c = 0; c < r->plays; c++) {
            const char *seat = wr_game_awaited(g);
            if (seat == NULL)
                break;
            json_t *cmd = rs->autoplay(g, seat, &rng), *ev = NULL;
            assert_non_null(cmd);
            assert_int_equal(rs->apply(g, seat, cmd, &ev, &why), 0);
            json_decref(cmd);
            json_decref(ev);
        }
        json_t *saved = wr_game_save(g);
        assert_non_null(saved);
        if (r->path)
            alter(saved, r->path, r->value);
        why = (struct wr_refusal){ 0, NULL, "" };
        struct wr_game *h = wr_game_restore(rs, saved, scenario, opts, "save-test", seed, NULL,
                                            &why);
        if (r->want == NULL) {
            if (h == NULL)
                fail_msg("row %zu: the save unaltered is refused: %s", n, why.message);
            rs->destroy(h);
        } else {
            if (h != NULL)
                fail_msg("row %zu: restore took %s = %s", n, r->path, r->value ? r->value
                                                                              : "(removed)");
            if (why.code == NULL || strcmp(why.code, "bad_command") != 0)
                fail_msg("row %zu: refused with %s, not bad_command", n,
                         why.code ? why.code : "(none)");
            if (strstr(why.message, r->want) == NULL)
                fail_msg("row %zu: the refusal '%s' does not say '%s'", n, why.message,
                         r->want);
        }
        json_decref(saved);
        json_decref(opts);
        json_decref(scenario);
        rs->destroy(g);
    }
}

/* Not a saved game at all: NULL, a string, an array, an empty object; and
 * a ruleset that cannot save (wr_game_restore's own refusal). */
static void test_not_a_save(void **state)
{
    (void)state;
    static const char *const junk[] = { "null", "\"{\\\"format\\\":\"", "[1, 2]", "{}",
                                        "{\"format\": 1}" };
    const struct wr_ruleset *rs;
    for (int i = 0; (rs = wr_ruleset_at(i)) != NULL; i++) {
        json_t *scenario = NULL;
        if (rs->needs_scenario)
            scenario = load_scenario(strcmp(rs->name, "waterloo") == 0
                                         ? "waterloo-1815/scenario.json"
                                         : "campaign/ancient-world.json");
        for (size_t k = 0; k < sizeof junk / sizeof junk[0]; k++) {
            json_t *j = json_loads(junk[k], JSON_DECODE_ANY, NULL);
            struct wr_refusal why = { 0, NULL, "" };
            struct wr_game *g = wr_game_restore(rs, j, scenario, NULL, "x", NULL, NULL, &why);
            if (g != NULL)
                fail_msg("%s took %s as a saved game", rs->name, junk[k]);
            assert_string_equal(why.code, "bad_command");
            assert_true(why.message[0] != '\0');
            json_decref(j);
        }
        json_decref(scenario);
    }
    static const struct wr_ruleset old = { .version = 4, .name = "old" };
    struct wr_refusal why = { 0, NULL, "" };
    assert_false(wr_ruleset_can_save(&old));
    assert_null(wr_game_restore(&old, NULL, NULL, NULL, "x", NULL, NULL, &why));
    assert_string_equal(why.code, "bad_command");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_not_a_save),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
