/*
 * test_update_view.c - Waterloo's update_view (ruleset.h, version 6): a
 * host's view brought up to date in place after each command, with the
 * patch that does it, must be what projecting and diffing gave.
 *
 * Each row plays a game of the 1815 scenario by autoplay, through the
 * generic interface as a host does, holding a view for every seat and one
 * for spectators, each with a member of the host's own ("server") that the
 * ruleset must leave alone. After every accepted command, for every view:
 *   a) the view updated in place is json_equal() to a fresh project();
 *   b) the returned patch applied (wr_jsonpatch_apply) to the view as it
 *      was gives the same;
 *   c) the patch is wr_jsonpatch_diff() of the old and fresh views, the
 *      same operations in the same order (what a client was sent before).
 * Between commands a row may send a command the rules refuse (it changes
 * nothing, and must not upset the next update), and may save and restore
 * the game halfway (the restored game answers for the views the host
 * holds). A game that ends starts again with the next seed until the row
 * has played its commands. The last test hands update_view a view of the
 * wrong shape: NULL, the view unchanged.
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

#include "jsonpatch.h"
#include "prng.h"
#include "ruleset.h"

#ifndef WARROOM_SCENARIO_DIR
#error "WARROOM_SCENARIO_DIR must name scenarios/"
#endif

/* One row: the game's options (JSON text), the autoplay seed, how many
 * accepted commands to play, every how many commands a refused one is
 * sent (0: none), and whether the game is saved and restored halfway. */
static const struct row {
    const char *options;
    uint64_t seed;
    int commands;
    int refuse_every;
    int restore;
} rows[] = {
    /* 0 */ { "{}", 1, 1500, 0, 0 },
    /* 1 */ { "{}", 2, 1500, 7, 1 },
    /* 2 */ { "{\"rules\": 1}", 3, 1500, 11, 0 },
    /* 3 */ { "{\"commanders\": 3}", 4, 1200, 5, 1 },
    /* 4 */ { "{\"undo\": false}", 5, 800, 0, 1 },
};

static json_t *scenario(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/waterloo-1815/scenario.json", WARROOM_SCENARIO_DIR);
    json_error_t err;
    json_t *j = json_load_file(path, 0, &err);
    if (j == NULL)
        fail_msg("%s: %s", path, err.text);
    return j;
}

/* The views a host holds: one per seat, then the spectators' (seat NULL). */
struct host {
    const struct wr_ruleset *rs;
    struct wr_game *g;
    int nviews;
    const char *seat[17];
    json_t *view[17];
};

static const char *view_seat(const struct host *h, int v)
{
    return v < h->nviews - 1 ? h->seat[v] : NULL;
}

/* View v projected afresh, with the host's own member. */
static json_t *fresh(const struct host *h, int v)
{
    json_t *st = h->rs->project(h->g, view_seat(h, v));
    assert_non_null(st);
    assert_int_equal(json_object_set_new(st, "server", json_pack("{s:s}", "status", "host's")),
                     0);
    return st;
}

/* The game's seats (its own strings: taken again whenever the game is
 * replaced) and the number of views. */
static void seats_take(struct host *h)
{
    const char *const *seats = h->rs->seats(h->g);
    h->nviews = 0;
    while (seats[h->nviews] != NULL) {
        assert_true(h->nviews < 16);
        h->seat[h->nviews] = seats[h->nviews];
        h->nviews++;
    }
    h->nviews++;    /* the spectators' */
}

static void views_project(struct host *h)
{
    seats_take(h);
    for (int v = 0; v < h->nviews; v++) {
        json_decref(h->view[v]);
        h->view[v] = fresh(h, v);
    }
}

/* Checks a), b) and c) of the file's comment for every view, after the
 * n-th command of row r. */
static void views_update(struct host *h, size_t r, int n)
{
    for (int v = 0; v < h->nviews; v++) {
        json_t *was = json_deep_copy(h->view[v]);
        json_t *now = fresh(h, v);
        json_t *ops = wr_game_update_view(h->g, view_seat(h, v), h->view[v]);
        if (ops == NULL)
            fail_msg("row %zu, command %d, view %d: update_view failed", r, n, v);
        if (!json_equal(h->view[v], now)) {
            char *a = json_dumps(h->view[v], JSON_SORT_KEYS), *b = json_dumps(now, JSON_SORT_KEYS);
            fail_msg("row %zu, command %d, view %d: updated view differs from the projection\n"
                     "updated: %s\nfresh:   %s", r, n, v, a, b);
        }
        json_t *patched = NULL;
        char err[256] = "";
        if (wr_jsonpatch_apply(was, ops, &patched, err, sizeof err) != 0)
            fail_msg("row %zu, command %d, view %d: the patch does not apply: %s", r, n, v, err);
        if (!json_equal(patched, now))
            fail_msg("row %zu, command %d, view %d: the patch applied differs from the "
                     "projection", r, n, v);
        json_t *diff = wr_jsonpatch_diff(was, now);
        assert_non_null(diff);
        if (!json_equal(diff, ops)) {
            char *a = json_dumps(ops, 0), *b = json_dumps(diff, 0);
            fail_msg("row %zu, command %d, view %d: the patch is not the diff's\n"
                     "patch: %s\ndiff:  %s", r, n, v, a, b);
        }
        json_decref(diff);
        json_decref(patched);
        json_decref(ops);
        json_decref(now);
        json_decref(was);
    }
}

static struct wr_game *create(const struct host *h, const json_t *sc, const json_t *opts,
                              const uint8_t *seed)
{
    struct wr_refusal why = { 0, NULL, "" };
    struct wr_game *g = h->rs->create(sc, opts, "update-view-test", seed, NULL, &why);
    if (g == NULL)
        fail_msg("create: %s", why.message);
    return g;
}

/* A command the rules refuse from the seat awaited now: the autoplayer's
 * command from a seat not awaited, or, when every seat is awaited, an
 * order of no known type. */
static void refused(struct host *h, size_t r, int n, struct wr_prng *rng)
{
    const char *awaited = wr_game_awaited(h->g);
    json_t *cmd = h->rs->autoplay(h->g, awaited, rng), *ev = NULL;
    assert_non_null(cmd);
    const char *other = NULL;
    for (int v = 0; v < h->nviews - 1 && other == NULL; v++) {
        json_t *theirs = h->rs->autoplay(h->g, h->seat[v], rng);
        if (theirs == NULL)
            other = h->seat[v];
        json_decref(theirs);
    }
    if (other == NULL) {
        json_decref(cmd);
        cmd = json_pack("{s:s}", "type", "no_such_order");
        other = awaited;
    }
    struct wr_refusal why = { 0, NULL, "" };
    if (h->rs->apply(h->g, other, cmd, &ev, &why) == 0)
        fail_msg("row %zu, command %d: a command from %s was accepted", r, n, other);
    assert_null(ev);
    json_decref(cmd);
}

static void test_rows(void **state)
{
    (void)state;
    json_t *sc = scenario();
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        const struct row *row = &rows[r];
        struct host h = { .rs = wr_ruleset_find("waterloo") };
        assert_non_null(h.rs);
        assert_true(h.rs->version >= 6);
        assert_non_null(h.rs->update_view);
        json_t *given = json_loads(row->options, 0, NULL);
        assert_non_null(given);
        json_t *opts = wr_game_options(h.rs, given, 1);
        json_decref(given);
        uint8_t seed[32];
        for (int k = 0; k < 32; k++)
            seed[k] = (uint8_t)(k * 7 + row->seed);
        h.g = create(&h, sc, opts, seed);
        views_project(&h);
        struct wr_prng rng;
        wr_prng_seed(&rng, row->seed);
        int games = 1;
        for (int n = 1; n <= row->commands; n++) {
            const char *seat = wr_game_awaited(h.g);
            if (seat == NULL) {
                /* Over: the next game, the views projected from scratch
                 * as a host does for a new game. */
                h.rs->destroy(h.g);
                seed[0]++;
                h.g = create(&h, sc, opts, seed);
                views_project(&h);
                games++;
                seat = wr_game_awaited(h.g);
            }
            if (row->refuse_every && n % row->refuse_every == 0)
                refused(&h, r, n, &rng);
            json_t *cmd = h.rs->autoplay(h.g, seat, &rng), *ev = NULL;
            assert_non_null(cmd);
            struct wr_refusal why = { 0, NULL, "" };
            if (wr_game_apply(h.g, seat, cmd, &ev, &why) != 0)
                fail_msg("row %zu, command %d: autoplay's command refused: %s", r, n,
                         why.message);
            json_decref(cmd);
            json_decref(ev);
            views_update(&h, r, n);
            if (row->restore && n == row->commands / 2) {
                json_t *saved = wr_game_save(h.g);
                assert_non_null(saved);
                struct wr_game *back = wr_game_restore(h.rs, saved, sc, opts,
                                                       "update-view-test", seed, NULL, &why);
                if (back == NULL)
                    fail_msg("row %zu: restore: %s", r, why.message);
                json_decref(saved);
                h.rs->destroy(h.g);
                h.g = back;
                seats_take(&h);     /* the same seats, the views kept */
            }
        }
        print_message("row %zu: %d commands, %d game(s), %d views\n", r, row->commands, games,
                      h.nviews);
        for (int v = 0; v < h.nviews; v++)
            json_decref(h.view[v]);
        h.rs->destroy(h.g);
        json_decref(opts);
    }
    json_decref(sc);
}

/* A view without "units" is not a Waterloo state: NULL, nothing touched. */
static void test_wrong_shape(void **state)
{
    (void)state;
    json_t *sc = scenario();
    const struct wr_ruleset *rs = wr_ruleset_find("waterloo");
    json_t *opts = wr_game_options(rs, NULL, 1);
    struct wr_refusal why = { 0, NULL, "" };
    uint8_t seed[32] = { 1 };
    struct wr_game *g = rs->create(sc, opts, "update-view-test", seed, NULL, &why);
    assert_non_null(g);
    json_t *view = rs->project(g, NULL);
    json_object_del(view, "units");
    json_object_set_new(view, "turn", json_integer(99));
    json_t *copy = json_deep_copy(view);
    assert_null(rs->update_view(g, NULL, view));
    assert_true(json_equal(view, copy));
    json_decref(copy);
    json_decref(view);
    rs->destroy(g);
    json_decref(opts);
    json_decref(sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows),
        cmocka_unit_test(test_wrong_shape),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
