#define _GNU_SOURCE
/*
 * test_toy_client.c - the terminal client built with the toy's registry
 * (warroom_toy: client-cli/main.c and warroom_client_core, nothing else)
 * against warroomd_toy on 127.0.0.1 (port 0), each player a separate
 * process with its own HOME (tests/support/player.h, built for these two): `new` with no --ruleset makes a race (the
 * registry's first ruleset is the default), the other seat is claimed with
 * its invite, the race is played to its end with one-shot `do GAME '<JSON>'`
 * (the toy's presentation is the plain one: commands are JSON), `status`
 * shows the result, and `replay` of the `export` verifies every die against
 * the seed. Nothing in client-cli/ knows the toy.
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

#include "player.h"

#define MAX_MOVES 100   /* rolls of at least 1 reach the default target 21 well before */

static void expect_rc(struct player *p, const struct result *r, int rc, const char *what)
{
    if (r->rc != rc)
        fail_msg("%s %s: exit %d (want %d)\nstdout: %s\nstderr: %s", p->name, what, r->rc, rc,
                 r->out, r->err);
}

static int count_of(const char *s, const char *needle)
{
    int n = 0;
    for (const char *c = strstr(s, needle); c; c = strstr(c + 1, needle))
        n++;
    return n;
}

static void test_race_with_the_client(void **state)
{
    struct wt_fixture *f = *state;
    struct player red, blue;
    player_init(&red, f, "red");
    player_init(&blue, f, "blue");

    /* new, no --ruleset: the toy, red seat for its creator. */
    struct result r = run(&red, "--json", "new", NULL);
    expect_rc(&red, &r, 0, "new");
    json_t *c = json_loads(r.out, JSON_DISABLE_EOF_CHECK, NULL);
    assert_non_null(c);
    assert_string_equal(str(c, "type"), "created");
    assert_string_equal(str(c, "seat"), "red");
    char game[64], invite[128];
    snprintf(game, sizeof game, "%s", str(c, "game"));
    assert_non_null(str(json_object_get(c, "invites"), "blue"));
    snprintf(invite, sizeof invite, "%s", str(json_object_get(c, "invites"), "blue"));
    json_decref(c);
    result_free(&r);

    r = run(&blue, "claim", invite, NULL);
    expect_rc(&blue, &r, 0, "claim");
    assert_non_null(strstr(r.out, "blue seat"));
    assert_non_null(strstr(r.out, "(toy)"));
    result_free(&r);

    /* Out of turn: refused with the toy's reason. */
    r = run(&blue, "do", game, "{\"type\":\"roll\"}", NULL);
    expect_rc(&blue, &r, 1, "do out of turn");
    assert_non_null(strstr(r.out, "not_your_turn"));
    result_free(&r);

    /* Both roll until one reaches the target; every roll is counted from
     * the events the client prints. */
    struct player *runner[2] = { &red, &blue };
    int moves = 0, rolls = 0;
    const char *winner = NULL;
    while (winner == NULL) {
        assert_true(moves < MAX_MOVES);
        struct player *p = runner[moves % 2];
        r = run(p, "do", game, "{\"type\":\"roll\"}", NULL);
        expect_rc(p, &r, 0, "do roll");
        char want[128];
        snprintf(want, sizeof want, "accepted: game %s is at version %d\n", game, moves + 1);
        if (!strstr(r.out, want))
            fail_msg("%s do roll: want \"%s\"\n%s", p->name, want, r.out);
        assert_int_equal(count_of(r.out, "\"type\":\"roll\""), 1);
        snprintf(want, sizeof want, "\"k\":%d,\"seat\":\"%s\"", rolls, p->name);
        if (!strstr(r.out, want))
            fail_msg("%s do roll: want roll k %d\n%s", p->name, rolls, r.out);
        rolls++;
        if (strstr(r.out, "\"type\":\"game_over\"")) {
            winner = p->name;
            snprintf(want, sizeof want, "\"winner\":\"%s\"", winner);
            assert_non_null(strstr(r.out, want));
        } else {
            snprintf(want, sizeof want, "now: awaiting %s (move)\n", runner[(moves + 1) % 2]->name);
            if (!strstr(r.out, want))
                fail_msg("%s do roll: want \"%s\"\n%s", p->name, want, r.out);
        }
        result_free(&r);
        moves++;
    }

    /* Over: the next mover is refused; status shows the result. */
    r = run(runner[moves % 2], "do", game, "{\"type\":\"step\",\"n\":1}", NULL);
    expect_rc(runner[moves % 2], &r, 1, "do after the end");
    assert_non_null(strstr(r.out, "game_over"));
    result_free(&r);
    for (int i = 0; i < 2; i++) {
        char want[128];
        r = run(runner[i], "status", game, NULL);
        expect_rc(runner[i], &r, 0, "status");
        snprintf(want, sizeof want, "game %s (toy), version %d, finished; you hold the %s seat\n",
                 game, moves, runner[i]->name);
        if (!strstr(r.out, want))
            fail_msg("status: want \"%s\"\n%s", want, r.out);
        snprintf(want, sizeof want, "over: %s won\n", winner);
        if (!strstr(r.out, want))
            fail_msg("status: want \"%s\"\n%s", want, r.out);
        result_free(&r);
    }

    /* export: the header with the seed, one line per command. */
    r = run(&blue, "export", game, NULL);
    expect_rc(&blue, &r, 0, "export");
    assert_int_equal(count_of(r.out, "\n"), moves + 1);
    assert_non_null(strstr(r.out, "\"game-record\""));
    assert_non_null(strstr(r.out, "\"seed\":\""));
    assert_int_equal(count_of(r.out, "\"rolls\":[["), rolls);
    char path[400];
    snprintf(path, sizeof path, "%s/record.ndjson", f->root);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    assert_int_equal(fputs(r.out, fp) >= 0, 1);
    assert_int_equal(fclose(fp), 0);
    result_free(&r);

    /* replay: offline, every die derived again from the seed. */
    r = run(&red, "replay", path, NULL);
    expect_rc(&red, &r, 0, "replay");
    char want[160];
    snprintf(want, sizeof want, "record checked: %d commands, %d dice verified, result %s\n",
             moves, rolls, winner);
    if (strcmp(r.out, want) != 0)
        fail_msg("replay: want \"%s\", got \"%s\"%s", want, r.out, r.err);
    result_free(&r);

    /* A record with one die changed is refused by the same replay. */
    fp = fopen(path, "r+");
    assert_non_null(fp);
    char *rec = NULL;
    size_t cap = 0;
    ssize_t len = getdelim(&rec, &cap, '\0', fp);
    assert_true(len > 0);
    char *face = strstr(rec, "\"rolls\":[[0,");
    assert_non_null(face);
    face += strlen("\"rolls\":[[0,");
    *face = *face == '6' ? '1' : (char)(*face + 1);
    rewind(fp);
    assert_int_equal(fwrite(rec, 1, (size_t)len, fp), (size_t)len);
    assert_int_equal(fclose(fp), 0);
    free(rec);
    r = run(&red, "replay", path, NULL);
    expect_rc(&red, &r, 1, "replay of a changed die");
    assert_null(strstr(r.out, "record checked"));
    result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_race_with_the_client),
    };
    return cmocka_run_group_tests(tests, wt_fixture_setup, wt_fixture_teardown);
}
