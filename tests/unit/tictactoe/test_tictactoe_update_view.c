/*
 * test_tictactoe_update_view.c - tictactoe's update_view (ruleset.h,
 * version 6): the view a host holds, brought up to date in place after
 * each mark, with the patch that does it, must be what projecting and
 * diffing gave. Tictactoe is the load benchmarks' game, so warroomd
 * publishes its marks this way (no projection, no diff).
 *
 * Random games by autoplay (a fixed seed), through the generic interface
 * as a host does, the view carrying a member of the host's own ("server")
 * that the ruleset must leave alone. After every accepted mark:
 *   a) the view updated in place is json_equal() to a fresh project();
 *   b) the patch applied (wr_jsonpatch_apply) to the view as it was gives
 *      the same;
 *   c) the patch is wr_jsonpatch_diff() of the old and fresh views, the
 *      same operations in the same order.
 * Between marks a refused command is sent now and then (it changes
 * nothing), and one game in three is saved and restored halfway (the
 * restored game answers for the view kept). Views of the wrong shape get
 * NULL and are left unchanged.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdlib.h>

#include "jsonpatch.h"
#include "prng.h"
#include "ruleset.h"

#define GAMES 3000

static const struct wr_ruleset *ttt(void)
{
    const struct wr_ruleset *rs = wr_ruleset_find("tictactoe");
    assert_non_null(rs);
    assert_true(rs->version >= 6);
    assert_non_null(rs->update_view);
    return rs;
}

static struct wr_game *create(const struct wr_ruleset *rs)
{
    static const uint8_t seed[32];
    struct wr_refusal why = { 0, NULL, "" };
    struct wr_game *g = rs->create(NULL, NULL, "update-view-test", seed, NULL, &why);
    if (g == NULL)
        fail_msg("create: %s", why.message);
    return g;
}

/* The view projected afresh, with the host's own member. */
static json_t *fresh(const struct wr_game *g)
{
    json_t *st = g->rs->project(g, NULL);
    assert_non_null(st);
    assert_int_equal(json_object_set_new(st, "server", json_pack("{s:s}", "status", "host's")),
                     0);
    return st;
}

static void check_update(const struct wr_game *g, json_t *view, int game, int mark)
{
    json_t *was = json_deep_copy(view), *now = fresh(g);
    json_t *ops = wr_game_update_view(g, NULL, view);
    if (ops == NULL)
        fail_msg("game %d, mark %d: update_view failed", game, mark);
    if (!json_equal(view, now)) {
        char *a = json_dumps(view, JSON_SORT_KEYS), *b = json_dumps(now, JSON_SORT_KEYS);
        fail_msg("game %d, mark %d: updated view differs from the projection\n"
                 "updated: %s\nfresh:   %s", game, mark, a, b);
    }
    json_t *patched = NULL;
    char err[256] = "";
    if (wr_jsonpatch_apply(was, ops, &patched, err, sizeof err) != 0)
        fail_msg("game %d, mark %d: the patch does not apply: %s", game, mark, err);
    if (!json_equal(patched, now))
        fail_msg("game %d, mark %d: the patch applied differs from the projection", game, mark);
    json_t *diff = wr_jsonpatch_diff(was, now);
    assert_non_null(diff);
    if (!json_equal(diff, ops)) {
        char *a = json_dumps(ops, 0), *b = json_dumps(diff, 0);
        fail_msg("game %d, mark %d: the patch is not the diff's\npatch: %s\ndiff:  %s", game,
                 mark, a, b);
    }
    /* nothing of the patch is shared with the view (null is jansson's
     * one immutable value) */
    for (size_t i = 0; i < json_array_size(ops); i++) {
        json_t *op = json_array_get(ops, i), *value = json_object_get(op, "value");
        const char *path = json_string_value(json_object_get(op, "path"));
        assert_non_null(path);
        if (!json_is_null(value))
            assert_ptr_not_equal(value, json_object_get(view, path + 1));
    }
    json_decref(diff);
    json_decref(patched);
    json_decref(ops);
    json_decref(now);
    json_decref(was);
}

static void test_random_games(void **state)
{
    (void)state;
    const struct wr_ruleset *rs = ttt();
    struct wr_prng rng;
    wr_prng_seed(&rng, 19);
    int marks = 0, refused = 0, restored = 0, results[3] = { 0 };
    for (int game = 0; game < GAMES; game++) {
        struct wr_game *g = create(rs);
        json_t *view = fresh(g);
        for (int mark = 1; wr_game_awaited(g) != NULL; mark++) {
            const char *seat = wr_game_awaited(g);
            if (wr_prng_below(&rng, 3) == 0) {
                /* the other seat's mark: refused, nothing changes */
                const char *other = seat[0] == 'x' ? "o" : "x";
                json_t *cmd = json_pack("{s:s, s:i}", "type", "mark", "cell", 0), *ev = NULL;
                struct wr_refusal why = { 0, NULL, "" };
                assert_int_not_equal(rs->apply(g, other, cmd, &ev, &why), 0);
                assert_null(ev);
                json_decref(cmd);
                refused++;
            }
            json_t *cmd = rs->autoplay(g, seat, &rng), *ev = NULL;
            assert_non_null(cmd);
            struct wr_refusal why = { 0, NULL, "" };
            if (wr_game_apply(g, seat, cmd, &ev, &why) != 0)
                fail_msg("game %d, mark %d: autoplay's mark refused: %s", game, mark,
                         why.message);
            json_decref(cmd);
            json_decref(ev);
            check_update(g, view, game, mark);
            marks++;
            if (game % 3 == 0 && mark == 4 && wr_game_awaited(g) != NULL) {
                json_t *saved = wr_game_save(g);
                assert_non_null(saved);
                struct wr_game *back = wr_game_restore(rs, saved, NULL, NULL,
                                                       "update-view-test", NULL, NULL, &why);
                if (back == NULL)
                    fail_msg("game %d: restore: %s", game, why.message);
                json_decref(saved);
                rs->destroy(g);
                g = back;
                restored++;
            }
        }
        const char *r = rs->result(g);
        assert_non_null(r);
        results[r[0] == 'x' ? 0 : r[0] == 'o' ? 1 : 2]++;
        /* a finished game: nothing changes, the patch is empty */
        json_t *ops = wr_game_update_view(g, NULL, view);
        assert_non_null(ops);
        assert_int_equal(json_array_size(ops), 0);
        json_decref(ops);
        json_decref(view);
        rs->destroy(g);
    }
    print_message("%d games (x %d, o %d, draws %d), %d marks, %d refused, %d restored\n", GAMES,
                  results[0], results[1], results[2], marks, refused, restored);
    /* the games reached every outcome */
    assert_true(results[0] > 0 && results[1] > 0 && results[2] > 0);
}

/* Views update_view cannot bring up to date: NULL, the view unchanged. */
static void test_wrong_shape(void **state)
{
    (void)state;
    const struct wr_ruleset *rs = ttt();
    static const char *const bad[] = {
        "[]",
        "{}",
        "{\"board\":\".........\",\"turn\":\"x\",\"winner\":null}",
        "{\"board\":\".........\",\"turn\":\"x\",\"winner\":null,\"moves\":\"0\"}",
        "{\"board\":9,\"turn\":\"x\",\"winner\":null,\"moves\":0}",
        "{\"board\":\".........\",\"turn\":[],\"winner\":null,\"moves\":0}",
        "{\"board\":\".........\",\"turn\":\"x\",\"moves\":0}",
    };
    struct wr_game *g = create(rs);
    json_t *cmd = json_pack("{s:s, s:i}", "type", "mark", "cell", 4), *ev = NULL;
    struct wr_refusal why = { 0, NULL, "" };
    assert_int_equal(wr_game_apply(g, "x", cmd, &ev, &why), 0);
    json_decref(cmd);
    json_decref(ev);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *view = json_loads(bad[i], 0, NULL), *copy;
        assert_non_null(view);
        copy = json_deep_copy(view);
        if (wr_game_update_view(g, NULL, view) != NULL)
            fail_msg("view %s: a patch from a view of the wrong shape", bad[i]);
        assert_true(json_equal(view, copy));
        json_decref(copy);
        json_decref(view);
    }
    rs->destroy(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_games),
        cmocka_unit_test(test_wrong_shape),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
