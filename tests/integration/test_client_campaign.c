#define _GNU_SOURCE
/*
 * test_client_campaign.c - the map campaign (docs/rulesets/campaign.md)
 * through the terminal client `warroom` against the real warroomd, with the
 * campaign's short orders only (its "Orders" section), never raw JSON:
 *   - three players and a referee, each its own `warroom` with its own HOME,
 *     play a campaign to its end with one-shot commands: what the server
 *     section's `awaiting` says is awaited (`warroom --json status`) is
 *     answered by that seat with `warroom do GAME 'ORDER'`; towns are tried
 *     until the client's own check of the rules lets one through; one tactic
 *     is sealed (`commit T SALT`, then `tactic T SALT`); the two sides of a
 *     battle disagree once so that the referee settles it. The game ends, each
 *     accepted order says what the game now waits for, and the exported
 *     record replays with its dice verified;
 *   - `warroom play` in a 160x50 tmux pane: the map with its towns and their
 *     owners, the decision awaited with the towns allowed, one short order
 *     typed, accepted and the map redrawn.
 *
 * Every wait has a deadline: a client command has WT_CLIENT_MS, the tmux
 * screen is polled until the text shows.
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

#define T WT_CLIENT_MS

/* The seats of the game: three players and the referee. */
enum { P1, P2, P3, REFEREE, NSEATS };
static const char *const seat_names[NSEATS] = { "p1", "p2", "p3", "referee" };

struct campaign {
    struct player who[NSEATS];
    char game[64];
    int accepted;               /* orders accepted */
    int settled;                /* settle orders accepted */
    int sealed;                 /* tactics sent after a commit */
    int disputed;               /* reports made to disagree */
};

static int seat_index(const char *seat)
{
    for (int i = 0; i < NSEATS; i++)
        if (strcmp(seat_names[i], seat) == 0)
            return i;
    fail_msg("unknown seat '%s'", seat ? seat : "(null)");
    return -1;
}

/* A campaign of three players with a referee on The Ancient World, every
 * other seat claimed by its own player. */
static void new_campaign(struct wt_fixture *f, struct campaign *c, const char *max_turns)
{
    char opt[64];
    memset(c, 0, sizeof *c);
    for (int i = 0; i < NSEATS; i++)
        player_init(&c->who[i], f, seat_names[i]);
    snprintf(opt, sizeof opt, "max_turns=%s", max_turns);
    json_t *cr = run_json(&c->who[P1], 0, "new", "--ruleset", "campaign", "--scenario",
                          "campaign/ancient-world", "--option", "players=3", "--option",
                          "referee=true", "--option", opt, NULL);
    assert_string_equal(str(cr, "type"), "created");
    assert_string_equal(str(cr, "seat"), "p1");
    snprintf(c->game, sizeof c->game, "%s", str(cr, "game"));
    for (int i = P2; i < NSEATS; i++) {
        const char *invite = str(json_object_get(cr, "invites"), seat_names[i]);
        assert_non_null(invite);
        json_t *cl = run_json(&c->who[i], 0, "claim", invite, NULL);
        assert_string_equal(str(cl, "seat"), seat_names[i]);
        json_decref(cl);
    }
    json_decref(cr);
}

/* The game's state message as the referee's client has it (new reference). */
static json_t *status_of(struct campaign *c)
{
    json_t *s = run_json(&c->who[REFEREE], 0, "status", c->game, NULL);
    assert_string_equal(str(s, "type"), "state");
    return s;
}

/* Seat i sends order: 0 accepted (and the answer says what the game now
 * waits for), 1 refused by the client's own check (nothing sent); anything
 * else fails. */
static int order(struct campaign *c, int i, const char *text)
{
    struct result r = run(&c->who[i], "do", c->game, text, NULL);
    int rc = r.rc;
    if (rc == 0) {
        if (!strstr(r.out, "accepted: game ") || !strstr(r.out, "\nnow: "))
            fail_msg("%s: do '%s' was accepted without saying what the game now waits for:\n%s",
                     seat_names[i], text, r.out);
        c->accepted++;
    } else if (rc != 1 || (!strstr(r.out, "refused (checked here, not sent): ") &&
                             !strstr(r.err, "refused (checked here, not sent): "))) {
        fail_msg("%s: do '%s': exit %d\nstdout: %s\nstderr: %s", seat_names[i], text, rc, r.out,
                 r.err);
    }
    result_free(&r);
    return rc;
}

/* Seat i sends `verb TOWN` for the first town of the map (owned by owner,
 * or free when owner is NULL, or any other's when other is set) that the
 * client lets through. */
static void order_town(struct campaign *c, int i, const json_t *state, const char *verb,
                       const char *owner, int others)
{
    const char *town;
    json_t *by;
    char line[160];
    json_object_foreach(json_object_get(state, "towns"), town, by) {
        const char *o = json_string_value(by);
        int fits = others ? o && strcmp(o, seat_names[i]) != 0
                          : owner ? o && strcmp(o, owner) == 0 : o == NULL;
        if (!fits)
            continue;
        snprintf(line, sizeof line, "%s %s", verb, town);
        if (order(c, i, line) == 0)
            return;
    }
    fail_msg("%s: no town accepted for '%s'", seat_names[i], verb);
}

static const char *const tactics[] = { "attack", "defend", "march", "counter-march", "regroup" };
static const char *const strategies[] = { "good_planning", "scouts", "rapid_deployment",
                                          "flank_march", "hidden_ambush" };

/* Seat i answers `what`, the server section's word for its decision. */
static void decide(struct campaign *c, int i, const char *what, const json_t *state)
{
    const json_t *a = json_object_get(state, "attack");
    const char *attacker = str(a, "attacker");
    char line[160];
    if (strcmp(what, "start") == 0) {
        assert_int_equal(order(c, i, "start"), 0);
    } else if (strcmp(what, "choose_town") == 0) {
        order_town(c, i, state, "choose", NULL, 0);
    } else if (strcmp(what, "attack") == 0) {
        order_town(c, i, state, "attack", NULL, 1);
    } else if (strcmp(what, "counter") == 0) {
        order_town(c, i, state, "counter", attacker, 0);
    } else if (strcmp(what, "choose_strategy") == 0) {
        for (size_t k = 0; k < sizeof strategies / sizeof *strategies; k++) {
            snprintf(line, sizeof line, "strategy %s", strategies[k]);
            if (order(c, i, line) == 0)
                return;
        }
        fail_msg("%s: no strategy accepted", seat_names[i]);
    } else if (strcmp(what, "tactic") == 0) {
        /* The first round of an attack allows every tactic (C8): seal it. */
        if (c->sealed == 0 && json_integer_value(json_object_get(a, "round")) == 1) {
            assert_int_equal(order(c, i, "commit attack pepper-7"), 0);
            assert_int_equal(order(c, i, "tactic attack pepper-7"), 0);
            c->sealed++;
            return;
        }
        for (size_t k = 0; k < sizeof tactics / sizeof *tactics; k++) {
            snprintf(line, sizeof line, "tactic %s", tactics[k]);
            if (order(c, i, line) == 0)
                return;
        }
        fail_msg("%s: no tactic accepted", seat_names[i]);
    } else if (strcmp(what, "seal_ambush") == 0) {
        assert_int_equal(order(c, i, "ambush behind the olive grove"), 0);
    } else if (strcmp(what, "report") == 0) {
        /* The attacker wins by 300 (a town changes hands); once, the
         * defender claims the reverse. */
        int defender_disagrees = attacker && strcmp(attacker, seat_names[i]) != 0 &&
                                 c->disputed == 0;
        assert_int_equal(order(c, i, defender_disagrees ? "report 1000 1300" : "report 1300 1000"),
                         0);
        c->disputed += defender_disagrees;
    } else if (strcmp(what, "settle") == 0) {
        assert_int_equal(i, REFEREE);
        assert_int_equal(order(c, i, "settle 1300 1000"), 0);
        c->settled++;
    } else {
        fail_msg("%s awaited for '%s', which this test does not know", seat_names[i], what);
    }
}

static void test_campaign_to_the_end_with_short_orders(void **state)
{
    struct wt_fixture *f = *state;
    struct campaign c;
    new_campaign(f, &c, "2");
    json_t *s = NULL;
    int steps;
    for (steps = 0; steps < 1000; steps++) {
        s = status_of(&c);
        const json_t *st = json_object_get(s, "state");
        if (strcmp(str(s, "status"), "finished") == 0)
            break;
        assert_string_equal(str(s, "status"), "running");
        const json_t *awaiting = json_object_get(json_object_get(st, "server"), "awaiting");
        if (json_object_size(awaiting) == 0)
            fail_msg("a running game awaits nobody:\n%s", json_dumps(st, 0));
        /* The referee first when it is awaited: a dispute is its to settle. */
        const char *seat = json_object_get(awaiting, "referee") ? "referee" : NULL;
        const char *what = seat ? str(awaiting, seat) : NULL;
        if (seat == NULL) {
            json_t *w;
            json_object_foreach((json_t *)awaiting, seat, w) {
                what = json_string_value(w);
                break;
            }
        }
        decide(&c, seat_index(seat), what, st);
        json_decref(s);
        s = NULL;
    }
    if (s == NULL)
        fail_msg("the campaign did not end in %d decisions", steps);

    /* Over, with a result, every kind of order given. */
    const json_t *st = json_object_get(s, "state");
    assert_string_equal(str(json_object_get(st, "server"), "status"), "finished");
    assert_non_null(str(json_object_get(st, "server"), "result"));
    assert_non_null(str(st, "winner"));
    assert_string_equal(str(st, "phase"), "over");
    assert_true(c.settled >= 1);
    assert_true(c.sealed >= 1);
    assert_true(c.disputed >= 1);
    print_message("campaign over after %d orders (%s by %s)\n", c.accepted, str(st, "winner"),
                  str(st, "end"));
    json_decref(s);
    /* Nobody may give an order any more. */
    EXPECT(&c.who[P1], 1, "game_over", "do", c.game, "start");

    /* The record: exported, then replayed with its dice checked. */
    char path[400];
    snprintf(path, sizeof path, "%s/campaign-%s.record", f->root, c.game);
    struct result r = run(&c.who[P2], "export", c.game, NULL);
    assert_int_equal(r.rc, 0);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    assert_int_equal(fputs(r.out, fp) >= 0, 1);
    assert_int_equal(fclose(fp), 0);
    result_free(&r);
    r = run(&c.who[P3], "replay", path, NULL);
    if (r.rc != 0 || !strstr(r.out, "record checked: ") || !strstr(r.out, " dice verified"))
        fail_msg("replay: exit %d\nstdout: %s\nstderr: %s", r.rc, r.out, r.err);
    result_free(&r);
}

/* --- play, in tmux ---------------------------------------------------------------------- */

/* Whether screen draws town with owner (a seat, or "-" while free) after
 * it on the same line: the map's "NAME   OWNER" columns. */
static int map_shows(const char *screen, const char *town, const char *owner)
{
    size_t n = strlen(town), on = strlen(owner);
    for (const char *p = strstr(screen, town); p; p = strstr(p + 1, town)) {
        const char *q = p + n;
        if (*q != ' ')
            continue;
        while (*q == ' ')
            q++;
        if (strncmp(q, owner, on) == 0 && (q[on] == ' ' || q[on] == '\n' || q[on] == '\0'))
            return 1;
    }
    return 0;
}

static void test_campaign_in_play(void **state)
{
    struct wt_fixture *f = *state;
    struct tmux t;
    tmux_init(&t, f);
    struct campaign c;
    new_campaign(f, &c, "1");
    assert_int_equal(order(&c, P1, "start"), 0);
    json_t *s = status_of(&c);
    const json_t *st = json_object_get(s, "state");
    assert_string_equal(str(st, "phase"), "draft");
    char chooser[16];
    assert_non_null(str(st, "active"));
    snprintf(chooser, sizeof chooser, "%s", str(st, "active"));
    int i = seat_index(chooser);

    /* The chooser at the keyboard: the map, every town free, the towns it
     * may take, the prompt. */
    tmux_start(&t, &c.who[i], "camp", "play", c.game);
    char *screen = screen_shows(&t, "camp", T, "The Ancient World: ", "Your decision: take a "
                                "free town", "allowed (", "example: choose ", NULL);
    const char *town;
    json_t *by;
    json_object_foreach(json_object_get((json_t *)st, "towns"), town, by)
        if (!map_shows(screen, town, "-"))
            fail_msg("the map does not show %s free:\n%s", town, screen);
    /* The example's town is one allowed. */
    char pick[80], line[120];
    const char *ex = strstr(screen, "example: choose ") + strlen("example: choose ");
    size_t n = strcspn(ex, "\n");
    while (n > 0 && ex[n - 1] == ' ')
        n--;
    assert_true(n > 0 && n < sizeof pick);
    memcpy(pick, ex, n);
    pick[n] = '\0';
    assert_non_null(json_object_get(json_object_get(st, "towns"), pick));
    free(screen);
    json_decref(s);

    /* One short order typed: accepted, what the game now waits for, the
     * town drawn as the chooser's. */
    snprintf(line, sizeof line, "choose %s", pick);
    tmux(&t, NULL, "send-keys", "-t", "camp", "-l", line, NULL);
    tmux(&t, NULL, "send-keys", "-t", "camp", "Enter", NULL);
    screen = screen_shows(&t, "camp", T, "accepted: ", "now: ", NULL);
    free(screen);
    screen = screen_shows(&t, "camp", T, "accepted: ", NULL);
    if (!map_shows(screen, pick, chooser))
        fail_msg("the map does not show %s as %s's:\n%s", pick, chooser, screen);
    free(screen);
    s = status_of(&c);
    assert_string_equal(str(json_object_get(json_object_get(s, "state"), "towns"), pick),
                        chooser);
    json_decref(s);

    tmux(&t, NULL, "send-keys", "-t", "camp", "quit", "Enter", NULL);
    free(screen_shows(&t, "camp", T, "EXIT=0", NULL));
    tmux(&t, NULL, "kill-server", NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_campaign_to_the_end_with_short_orders),
        cmocka_unit_test(test_campaign_in_play),
    };
    return cmocka_run_group_tests(tests, wt_fixture_setup, wt_fixture_teardown);
}
