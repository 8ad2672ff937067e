/*
 * test_toy_server.c - the toy ruleset (toy.c) played over the wire on
 * warroomd_toy, a warroomd built from server/'s own sources with a
 * registry holding the toy alone: two players and a spectator play a race
 * to its end, with an option, dice, a refusal from the toy's own reason
 * table and one out of turn, and every client ends with the state a fresh
 * join gives. Nothing in server/ knows the toy: this is what a ruleset
 * gets from being in a registry.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "proc.h"
#include "wsclient.h"

#define T 5000          /* ms to wait for any one answer */
#define TARGET 12       /* the race's "target" option */

static int setup(void **state)
{
    return wt_group_start(state, NULL);
}

static const char *str(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

static void expect_error(struct wt_client *c, const char *code)
{
    json_t *e = wt_expect(c, "error", T);
    if (e == NULL)
        fail_msg("%s: no error %s", c->name, code);
    if (strcmp(str(e, "code"), code) != 0)
        fail_msg("%s: error %s (%s), want %s", c->name, str(e, "code"), str(e, "message"), code);
    json_decref(e);
}

static void same_state(struct wt_client *x, struct wt_client *y)
{
    if (!json_equal(x->state, y->state) || x->version != y->version) {
        char *a = json_dumps(x->state, JSON_COMPACT), *b = json_dumps(y->state, JSON_COMPACT);
        fail_msg("%s v%lld %s != %s v%lld %s", x->name, x->version, a, y->name, y->version, b);
    }
}

/* This server holds the toy and nothing else. */
static void test_only_the_toy(void **state)
{
    struct wt_server *s = *state;
    struct wt_client a;
    assert_int_equal(wt_open(&a, "alice", s->port), 0);
    wt_send(&a, "{s:s, s:s, s:s}", "type", "create", "ruleset", "tictactoe", "seat", "x");
    expect_error(&a, "no_such_ruleset");
    /* The toy's option is checked by the toy. */
    wt_send(&a, "{s:s, s:s, s:s, s:{s:i}}", "type", "create", "ruleset", "toy", "seat", "red",
            "options", "target", 1000);
    expect_error(&a, "bad_options");
    wt_close(&a);
}

static void test_race_to_the_end(void **state)
{
    struct wt_server *s = *state;
    struct wt_client red, blue, watch;
    assert_int_equal(wt_open(&red, "alice", s->port), 0);
    assert_int_equal(wt_open(&blue, "bob", s->port), 0);
    assert_int_equal(wt_open(&watch, "carol", s->port), 0);

    wt_send(&red, "{s:s, s:s, s:s, s:{s:i}}", "type", "create", "ruleset", "toy", "seat", "red",
            "options", "target", TARGET);
    json_t *created = wt_expect(&red, "created", T);
    assert_non_null(created);
    char game[32];
    snprintf(game, sizeof game, "%s", str(created, "game"));
    const char *invite = str(json_object_get(created, "invites"), "blue");
    assert_non_null(invite);
    wt_send(&blue, "{s:s, s:s}", "type", "claim", "invite", invite);
    json_t *claimed = wt_expect(&blue, "claimed", T);
    assert_non_null(claimed);
    assert_string_equal(str(claimed, "seat"), "blue");
    json_decref(claimed);
    json_decref(created);
    wt_send(&watch, "{s:s, s:s, s:b}", "type", "join", "game", game, "spectate", 1);
    json_t *st = wt_expect(&watch, "state", T);
    assert_non_null(st);
    assert_true(json_is_null(json_object_get(st, "seat")));
    json_decref(st);
    assert_int_equal(wt_wait_version(&red, 0, T), 0);
    assert_int_equal(json_integer_value(json_object_get(watch.state, "target")), TARGET);

    /* Blue out of turn; red with a step the toy refuses (its own code). */
    wt_send(&blue, "{s:s, s:s, s:i, s:{s:s, s:i}}", "type", "command", "game", game, "seq", 1,
            "cmd", "type", "step", "n", 1);
    expect_error(&blue, "not_your_turn");
    wt_send(&red, "{s:s, s:s, s:i, s:{s:s, s:i}}", "type", "command", "game", game, "seq", 1,
            "cmd", "type", "step", "n", 3);
    expect_error(&red, "bad_step");

    /* Then the race: each runner rolls, then steps 2, and so on. The
     * totals are summed here from the acknowledged events. */
    struct wt_client *runner[2] = { &red, &blue };
    int seq[2] = { 1, 1 }, total[2] = { 0, 0 }, rolls = 0, moves = 0;
    long long version = 0;
    const char *winner = NULL;
    while (winner == NULL) {
        assert_true(moves < 4 * TARGET);
        int me = moves % 2, roll = (moves / 2) % 2 == 0;
        struct wt_client *c = runner[me];
        seq[me]++;
        if (roll)
            wt_send(c, "{s:s, s:s, s:i, s:{s:s}}", "type", "command", "game", game, "seq",
                    seq[me], "cmd", "type", "roll");
        else
            wt_send(c, "{s:s, s:s, s:i, s:{s:s, s:i}}", "type", "command", "game", game, "seq",
                    seq[me], "cmd", "type", "step", "n", 2);
        json_t *ack = wt_expect(c, "ack", T);
        if (ack == NULL)
            fail_msg("%s: no ack for move %d", c->name, moves);
        assert_int_equal(json_integer_value(json_object_get(ack, "seq")), seq[me]);
        version = json_integer_value(json_object_get(ack, "version"));
        size_t i;
        json_t *e;
        json_array_foreach(json_object_get(ack, "events"), i, e) {
            const char *type = str(e, "type");
            if (strcmp(type, "roll") == 0) {
                json_int_t face = json_integer_value(json_object_get(e, "face"));
                assert_true(face >= 1 && face <= 6);
                assert_int_equal(json_integer_value(json_object_get(e, "k")), rolls);
                rolls++;
            } else if (strcmp(type, "rolled") == 0 || strcmp(type, "stepped") == 0) {
                total[me] += (int)json_integer_value(json_object_get(e, "by"));
                assert_int_equal(json_integer_value(json_object_get(e, "total")), total[me]);
            } else if (strcmp(type, "game_over") == 0) {
                winner = me == 0 ? "red" : "blue";
                assert_string_equal(str(e, "winner"), winner);
            }
        }
        json_decref(ack);
        moves++;
    }
    assert_true(rolls > 0);
    assert_true(total[moves % 2 == 1 ? 0 : 1] >= TARGET);

    /* Every client saw it all as patches and holds the same final state. */
    for (int i = 0; i < 3; i++) {
        struct wt_client *c = i == 0 ? &red : i == 1 ? &blue : &watch;
        assert_int_equal(wt_wait_version(c, version, T), 0);
        assert_int_equal(c->bad_patches, 0);
        assert_true(c->patches >= moves);
    }
    same_state(&red, &blue);
    same_state(&red, &watch);
    json_t *server = json_object_get(watch.state, "server");
    assert_string_equal(str(server, "status"), "finished");
    assert_string_equal(str(server, "result"), winner);
    assert_string_equal(str(watch.state, "winner"), winner);
    json_t *totals = json_object_get(watch.state, "totals");
    assert_int_equal(json_integer_value(json_object_get(totals, "red")), total[0]);
    assert_int_equal(json_integer_value(json_object_get(totals, "blue")), total[1]);
    assert_int_equal(json_integer_value(json_object_get(watch.state, "rolls")), rolls);

    /* A fresh spectator gets what the patches built. */
    struct wt_client late;
    assert_int_equal(wt_open(&late, "dave", s->port), 0);
    wt_send(&late, "{s:s, s:s, s:b}", "type", "join", "game", game, "spectate", 1);
    st = wt_expect(&late, "state", T);
    assert_non_null(st);
    assert_string_equal(str(st, "status"), "finished");
    json_decref(st);
    same_state(&watch, &late);

    /* Over: no more moves. */
    struct wt_client *next = runner[moves % 2];
    wt_send(next, "{s:s, s:s, s:i, s:{s:s}}", "type", "command", "game", game, "seq", 100,
            "cmd", "type", "roll");
    expect_error(next, "game_over");
    wt_close(&late);
    wt_close(&watch);
    wt_close(&blue);
    wt_close(&red);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_only_the_toy),
        cmocka_unit_test(test_race_to_the_end),
    };
    return cmocka_run_group_tests(tests, setup, wt_group_stop);
}
