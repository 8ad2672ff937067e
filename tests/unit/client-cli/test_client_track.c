/*
 * test_client_track.c - how the client follows a game (client-cli/track.c):
 * a script of server messages, each row saying what the tracker must make
 * of it (the result, the version held afterwards, the sync asked for) and,
 * at the end, the state it holds. Numbered rows; a failure names its row.
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

#include "track.h"

static void test_script(void **state)
{
    (void)state;
    static const struct {
        const char *msg;
        int result;             /* enum wrc_track_result */
        long long version;      /* held afterwards */
        long long since;        /* WRC_TRACK_GAP: the sync asked for */
    } rows[] = {
        /* 1: a patch before any state: nothing to apply it to */
        { "{\"type\":\"patch\",\"game\":\"g-1\",\"from\":0,\"to\":1,\"ops\":[]}",
          WRC_TRACK_NONE, -1, 0 },
        /* 2: the join's state */
        { "{\"type\":\"state\",\"game\":\"g-1\",\"version\":3,\"seat\":\"x\",\"ruleset\":"
          "\"tictactoe\",\"status\":\"running\",\"state\":{\"board\":\"x.o.x....\","
          "\"turn\":\"o\",\"moves\":3}}", WRC_TRACK_STATE, 3, 0 },
        /* 3: the next patch applies, with its events */
        { "{\"type\":\"patch\",\"game\":\"g-1\",\"from\":3,\"to\":4,\"ops\":[{\"op\":\"replace\","
          "\"path\":\"/board\",\"value\":\"xoo.x....\"},{\"op\":\"replace\",\"path\":\"/turn\","
          "\"value\":\"x\"},{\"op\":\"replace\",\"path\":\"/moves\",\"value\":4}],\"events\":"
          "[{\"type\":\"marked\",\"seat\":\"o\",\"cell\":1}]}", WRC_TRACK_PATCH, 4, 0 },
        /* 4: a patch seen already (a sync overlapping): ignored */
        { "{\"type\":\"patch\",\"game\":\"g-1\",\"from\":3,\"to\":4,\"ops\":[]}",
          WRC_TRACK_NONE, 4, 0 },
        /* 5: a patch from further on: something was missed, sync from 4 */
        { "{\"type\":\"patch\",\"game\":\"g-1\",\"from\":5,\"to\":6,\"ops\":[]}",
          WRC_TRACK_GAP, 4, 4 },
        /* 6: the same gap again: the sync is already asked for */
        { "{\"type\":\"patch\",\"game\":\"g-1\",\"from\":6,\"to\":7,\"ops\":[]}",
          WRC_TRACK_NONE, 4, 0 },
        /* 7: the sync's patches arrive, in order */
        { "{\"type\":\"patch\",\"game\":\"g-1\",\"from\":4,\"to\":5,\"ops\":[{\"op\":\"replace\","
          "\"path\":\"/moves\",\"value\":5}]}", WRC_TRACK_PATCH, 5, 0 },
        /* 8: a patch that does not fit the state held: a whole state (since -1) */
        { "{\"type\":\"patch\",\"game\":\"g-1\",\"from\":5,\"to\":6,\"ops\":[{\"op\":\"remove\","
          "\"path\":\"/nothing\"}]}", WRC_TRACK_GAP, 5, -1 },
        /* 9: which comes */
        { "{\"type\":\"state\",\"game\":\"g-1\",\"version\":6,\"seat\":\"x\",\"ruleset\":"
          "\"tictactoe\",\"status\":\"running\",\"state\":{\"board\":\"xoo.x...x\","
          "\"turn\":null,\"winner\":\"x\",\"moves\":6}}", WRC_TRACK_STATE, 6, 0 },
        /* 10: another game's patch: not ours */
        { "{\"type\":\"patch\",\"game\":\"g-2\",\"from\":0,\"to\":1,\"ops\":[]}",
          WRC_TRACK_NONE, 6, 0 },
        /* 11: not about a game at all */
        { "{\"type\":\"welcome\",\"protocol\":1}", WRC_TRACK_NONE, 6, 0 },
    };
    struct wrc_tracker t;
    wrc_track_init(&t);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        json_t *m = json_loads(rows[i].msg, JSON_REJECT_DUPLICATES, NULL);
        if (m == NULL)
            fail_msg("row %zu: test data is not JSON", i + 1);
        struct wrc_game *g = NULL;
        int64_t since = 0;
        int r = wrc_track_message(&t, m, &g, &since);
        struct wrc_game *g1 = wrc_track_get(&t, "g-1", 0);
        long long v = g1 ? g1->version : -1;
        if (r != rows[i].result || v != rows[i].version ||
            (r == WRC_TRACK_GAP && since != rows[i].since))
            fail_msg("row %zu: result %d version %lld since %lld; want %d, %lld, %lld", i + 1,
                     r, v, (long long)since, rows[i].result, rows[i].version, rows[i].since);
        json_decref(m);
    }
    struct wrc_game *g = wrc_track_get(&t, "g-1", 0);
    assert_non_null(g);
    assert_string_equal(g->seat, "x");
    assert_string_equal(g->ruleset, "tictactoe");
    assert_string_equal(json_string_value(json_object_get(g->state, "winner")), "x");
    /* the log holds the event of row 3 */
    assert_int_equal(json_array_size(g->log), 1);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(g->log, 0), "version")),
                     4);
    assert_null(wrc_track_get(&t, "g-2", 0));
    wrc_track_release(&t);
}

/* After a reconnection: the rejoin's state is skipped, the sync's patches
 * bring the game forward with their events; a state after that applies. */
static void test_rejoin(void **state)
{
    (void)state;
    struct wrc_tracker t;
    wrc_track_init(&t);
    struct wrc_game *g;
    int64_t since;
    json_t *st = json_loads("{\"type\":\"state\",\"game\":\"g-1\",\"version\":2,\"seat\":null,"
                            "\"ruleset\":\"tictactoe\",\"status\":\"running\",\"state\":"
                            "{\"moves\":2}}", 0, NULL);
    assert_int_equal(wrc_track_message(&t, st, &g, &since), WRC_TRACK_STATE);
    assert_string_equal(g->seat, "");           /* a spectator */
    g->rejoin = 1;
    json_t *later = json_loads("{\"type\":\"state\",\"game\":\"g-1\",\"version\":3,\"seat\":null,"
                               "\"ruleset\":\"tictactoe\",\"status\":\"running\",\"state\":"
                               "{\"moves\":3}}", 0, NULL);
    assert_int_equal(wrc_track_message(&t, later, &g, &since), WRC_TRACK_REJOINED);
    assert_int_equal(g->version, 2);
    json_t *p = json_loads("{\"type\":\"patch\",\"game\":\"g-1\",\"from\":2,\"to\":3,\"ops\":"
                           "[{\"op\":\"replace\",\"path\":\"/moves\",\"value\":3}],\"events\":"
                           "[{\"type\":\"marked\"}]}", 0, NULL);
    assert_int_equal(wrc_track_message(&t, p, &g, &since), WRC_TRACK_PATCH);
    assert_int_equal(g->version, 3);
    assert_int_equal(json_array_size(g->log), 1);
    assert_int_equal(wrc_track_message(&t, later, &g, &since), WRC_TRACK_STATE);
    json_decref(st);
    json_decref(later);
    json_decref(p);
    wrc_track_release(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_script),
        cmocka_unit_test(test_rejoin),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
