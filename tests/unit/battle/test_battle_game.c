/*
 * test_battle_game.c - the battle ruleset (common/rulesets/battle/
 * battle_game.h, docs/rulesets/battle.md) through the ruleset interface:
 * one table of steps per game, each a command from a seat with the reason
 * it must get ("ok" or a refusal's wire code), and what a view must then
 * see (a part of its projection, a path it must not see, or the outcome
 * of the step's events). The dice come from the host (no seed), from the
 * step table's own list of faces, so each test's outcome follows from
 * faces the table states.
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

#include "battle_game.h"
#include "ruleset.h"

/* The host's dice: face k of the list, 0 past its end. */
struct faces {
    const int *face;
    int n;
};

static int host_roll(void *ctx, uint32_t k)
{
    const struct faces *f = ctx;
    return k < (uint32_t)f->n ? f->face[k] : 0;
}

/* One step: seat sends cmd and gets code; then, when look is set, view
 * (NULL: spectators) sees at least look in its projection (objects
 * compared member by member, a non-empty array element by element from
 * the first, anything else exactly); absent names a
 * dotted path view must not see; event names an event type the step
 * made, whose member "outcome" or "result" is want_event (when set);
 * awaits names a decision awaited (or, after '!', not awaited) then. */
struct step {
    const char *seat, *cmd, *code;
    const char *view, *look, *absent;
    const char *event, *want_event;
    const char *awaits;     /* "seat:decision" awaited after the step; "!...": not */
};

static int contains(const json_t *want, const json_t *got)
{
    if (json_is_array(want) && json_array_size(want) > 0) {
        size_t i;
        json_t *v;
        json_array_foreach((json_t *)want, i, v)
            if (!contains(v, json_array_get(got, i)))
                return 0;
        return json_is_array(got);
    }
    if (!json_is_object(want))
        return json_equal(want, got);
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)want, key, v)
        if (!contains(v, json_object_get(got, key)))
            return 0;
    return 1;
}

static json_t *at_path(json_t *j, const char *path)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    char *save = NULL;
    for (char *t = strtok_r(buf, ".", &save); t && j; t = strtok_r(NULL, ".", &save))
        j = json_is_array(j) ? json_array_get(j, (size_t)atoi(t)) : json_object_get(j, t);
    return j;
}

static struct wr_game *new_game(const char *options, struct faces *dice, struct wr_host *host)
{
    const struct wr_ruleset *rs = wr_ruleset_find("battle");
    assert_non_null(rs);
    *host = (struct wr_host){ host_roll, NULL, dice };
    json_t *o = json_loads(options, 0, NULL);
    assert_non_null(o);
    struct wr_refusal why = { 0, NULL, "" };
    struct wr_game *g = rs->create(NULL, o, "battle-test", NULL, host, &why);
    json_decref(o);
    if (g == NULL)
        fail_msg("create refused: %s", why.message);
    return g;
}

static char *dump_views(const struct wr_game *g)
{
    static const char *const views[] = { "p1", "p2", "referee", NULL };
    size_t len = 0;
    char *all = NULL;
    for (int v = 0; v < 4; v++) {
        json_t *p = g->rs->project(g, views[v]);
        char *s = json_dumps(p, JSON_SORT_KEYS | JSON_COMPACT);
        all = realloc(all, len + strlen(s) + 2);
        len += (size_t)sprintf(all + len, "%s\n", s);
        free(s);
        json_decref(p);
    }
    return all;
}

/* Play steps on g; every accepted command goes to history ([seat, cmd]). */
static void play(struct wr_game *g, const struct step *steps, size_t n, json_t *history)
{
    for (size_t i = 0; i < n; i++) {
        const struct step *s = &steps[i];
        json_error_t err;
        json_t *cmd = json_loads(s->cmd, 0, &err), *ev = NULL;
        if (cmd == NULL)
            fail_msg("step %zu: bad JSON: %s", i + 1, err.text);
        struct wr_refusal why = { 0, NULL, "" };
        int r = wr_game_apply(g, s->seat, cmd, &ev, &why);
        const char *code = r == 0 ? "ok" : why.code;
        if (strcmp(code, s->code) != 0)
            fail_msg("step %zu (%s %s): got %s (%s), want %s", i + 1, s->seat, s->cmd, code,
                     why.message, s->code);
        if (r != 0)
            assert_true(why.message[0] != '\0');
        else
            json_array_append_new(history, json_pack("[s, O]", s->seat, cmd));
        if (s->look || s->absent) {
            json_t *p = g->rs->project(g, s->view);
            if (s->look) {
                json_t *want = json_loads(s->look, 0, &err);
                assert_non_null(want);
                if (!contains(want, p)) {
                    char *t = json_dumps(p, JSON_SORT_KEYS);
                    fail_msg("step %zu: %s does not see %s in\n%s", i + 1,
                             s->view ? s->view : "spectators", s->look, t);
                }
                json_decref(want);
            }
            if (s->absent && at_path(p, s->absent) != NULL)
                fail_msg("step %zu: %s sees %s", i + 1, s->view ? s->view : "spectators",
                         s->absent);
            json_decref(p);
        }
        if (s->event) {
            /* The events as view sees them. */
            json_t *pe = g->rs->project_events(g, s->view, ev);
            json_t *e, *found = NULL;
            size_t k;
            json_array_foreach(pe, k, e)
                if (strcmp(json_string_value(json_object_get(e, "type")), s->event) == 0)
                    found = e;
            if (found == NULL)
                fail_msg("step %zu: no event %s", i + 1, s->event);
            if (s->want_event) {
                json_t *o = json_object_get(found, "outcome");
                const char *got = json_string_value(o ? o : json_object_get(found, "result"));
                if (got == NULL || strcmp(got, s->want_event) != 0)
                    fail_msg("step %zu: event %s gives %s, want %s", i + 1, s->event,
                             got ? got : "(none)", s->want_event);
            }
            json_decref(pe);
        }
        if (s->awaits) {
            bool want = s->awaits[0] != '!';
            const char *a = s->awaits + !want;
            struct wr_decision d[WR_DECISIONS_MAX];
            int nd = g->rs->awaiting(g, d, WR_DECISIONS_MAX);
            bool found = false;
            for (int k = 0; k < nd; k++) {
                char one[64];
                snprintf(one, sizeof one, "%s:%s", d[k].seat, d[k].what);
                found |= strcmp(one, a) == 0;
            }
            if (found != want)
                fail_msg("step %zu: %s is%s awaited", i + 1, a, found ? "" : " not");
        }
        json_decref(ev);
        json_decref(cmd);
    }
}

#define P1_PART1 "{\"type\":\"roster\",\"units\":[{\"name\":\"Spears\",\"kind\":\"infantry\"," \
                 "\"models\":20,\"files\":5,\"ranks\":4,\"points\":300}]}"
#define P1_PART2 "{\"type\":\"roster\",\"last\":true,\"units\":[{\"name\":\"Horse\"," \
                 "\"kind\":\"cavalry\",\"models\":10,\"move\":8,\"general\":true,\"points\":400}]}"
#define P2_ROSTER "{\"type\":\"roster\",\"last\":true,\"units\":[{\"name\":\"Archers\"," \
                  "\"kind\":\"infantry\",\"models\":10},{\"name\":\"Slingers\"," \
                  "\"kind\":\"skirmishers\",\"models\":5}]}"

/* The dice of the first game: the roll-off (p1 5, p2 2), Spears' panic
 * test (6, 6), its rally (1, 2), the Horse's panic test (6, 5). */
/* A game with options, its dice given by faces, played through a whole
 * table of steps (each step asserts itself), then destroyed. */
static void play_table(const char *options, const int *faces, int nfaces,
                       const struct step *steps, size_t n)
{
    struct faces dice = { faces, nfaces };
    struct wr_host host;
    struct wr_game *g = new_game(options, &dice, &host);
    json_t *history = json_array();
    play(g, steps, n, history);
    json_decref(history);
    g->rs->destroy(g);
}

static const int faces1[] = { 5, 2, 6, 6, 1, 2, 6, 5 };

static const struct step game1[] = {
    /* 1-9: sealed rosters */
    { "referee", P1_PART1, "not_your_turn", 0, 0, 0, 0, 0, 0 },
    { "p1", "{\"type\":\"roster\",\"units\":[]}", "bad_roster", 0, 0, 0, 0, 0, 0 },
    { "p1", "{\"type\":\"start\"}", "wrong_phase", 0, 0, 0, 0, 0, 0 },
    { "p1", P1_PART1, "ok", "p2", "{\"sides\":{\"p1\":{\"in\":false}}}", "sides.p1.units",
      0, 0, 0 },
    { "p1", "{\"type\":\"roster\",\"units\":[{\"name\":\"Spears\",\"kind\":\"infantry\","
            "\"models\":5}]}", "duplicate_unit", "p1", "{\"sides\":{\"p1\":{\"in\":false}}}",
      0, 0, 0, 0 },
    { "p1", "{\"type\":\"roster\",\"units\":[{\"name\":\"Elephants\",\"kind\":\"elephant\","
            "\"models\":2,\"points\":800}]}", "over_points", 0, 0, 0, 0, 0, 0 },
    { "p1", P1_PART2, "ok", NULL, "{\"sides\":{\"p1\":{\"in\":true}},\"phase\":\"roster\"}",
      "sides.p1.units", 0, 0, 0 },
    { "p1", P2_ROSTER, "roster_in", 0, 0, 0, 0, 0, 0 },
    { "p2", P2_ROSTER, "ok", "p2", "{\"phase\":\"start\",\"sides\":{\"p1\":{\"break_point\":"
      "\"30 of 30 models, breaks at 7\"},\"p2\":{\"break_point\":\"15 of 15 models, breaks at "
      "3\"}}}", 0, 0, 0, 0 },
    /* 10: the roll-off, 5 against 2 */
    { "p1", "{\"type\":\"start\"}", "ok", NULL, "{\"phase\":\"play\",\"player\":\"p1\","
      "\"segment\":\"declare_charges\",\"turn\":1}", 0, "started", 0, 0 },
    /* 11-17: facts, statuses and their reasons */
    { "p2", "{\"type\":\"fact\",\"unit\":\"Spears\",\"fact\":\"isolated\",\"value\":true}",
      "not_your_unit", 0, 0, 0, 0, 0, 0 },
    { "p1", "{\"type\":\"fact\",\"unit\":\"Spears\",\"fact\":\"bravery\",\"value\":true}",
      "unknown_fact", 0, 0, 0, 0, 0, 0 },
    { "p1", "{\"type\":\"fact\",\"unit\":\"Spears\",\"fact\":\"terrain\",\"value\":\"sea\"}",
      "bad_value", 0, 0, 0, 0, 0, 0 },
    { "p1", "{\"type\":\"fact\",\"unit\":\"Ghosts\",\"fact\":\"isolated\",\"value\":true}",
      "unknown_unit", 0, 0, 0, 0, 0, 0 },
    { "p2", "{\"type\":\"casualties\",\"unit\":\"Spears\",\"wounds\":2}", "ok", NULL,
      "{\"sides\":{\"p1\":{\"models_left\":28,\"units\":[{\"name\":\"Spears\",\"status\":[],"
      "\"why\":{\"confident\":\"not_confident\"}}]}}}", 0, 0, 0, 0 },
    { "p1", "{\"type\":\"fact\",\"unit\":\"Spears\",\"fact\":\"secure_flanks\",\"value\":true}",
      "ok", 0, 0, 0, 0, 0, 0 },
    { "p1", "{\"type\":\"fact\",\"unit\":\"Spears\",\"fact\":\"rear_support\",\"value\":true}",
      "ok", "p2", "{\"sides\":{\"p1\":{\"units\":[{\"status\":[\"confident\"],\"why\":"
      "{\"confident\":\"confident_b\"}}]}}}", 0, 0, 0, 0 },
    /* 18-25: a dispute the referee settles; an offer meanwhile */
    { "p1", "{\"type\":\"dispute\",\"unit\":\"Spears\",\"fact\":\"rear_support\"}", "own_fact",
      0, 0, 0, 0, 0, 0 },
    { "p2", "{\"type\":\"dispute\",\"unit\":\"Spears\",\"fact\":\"isolated\"}", "not_stated",
      0, 0, 0, 0, 0, 0 },
    { "p2", "{\"type\":\"dispute\",\"unit\":\"Spears\",\"fact\":\"rear_support\"}", "ok", NULL,
      "{\"dispute\":{\"unit\":\"Spears\",\"fact\":\"rear_support\"}}", 0, 0, 0, 0 },
    { "p1", "{\"type\":\"end_phase\"}", "dispute_pending", 0, 0, 0, 0, 0, 0 },
    { "p1", "{\"type\":\"settle\",\"stands\":true}", "not_your_turn", 0, 0, 0, 0, 0, 0 },
    { "p2", "{\"type\":\"offer_end\",\"result\":\"p1\"}", "ok", NULL,
      "{\"offer\":{\"side\":\"p2\",\"result\":\"p1\"},\"dispute\":{\"unit\":\"Spears\"}}", 0,
      0, 0, 0 },
    { "referee", "{\"type\":\"settle\",\"stands\":false}", "ok", "p1",
      "{\"dispute\":null,\"sides\":{\"p1\":{\"units\":[{\"status\":[],\"facts\":"
      "{\"rear_support\":false}}]}}}", 0, 0, 0, 0 },
    { "referee", "{\"type\":\"settle\",\"stands\":false}", "no_dispute", 0, 0, 0, 0, 0, 0 },
    /* 26-32: tests rolled by the host and their outcomes */
    { "p1", "{\"type\":\"test\",\"unit\":\"Spears\",\"test\":\"panic\",\"target\":0}",
      "bad_target", 0, 0, 0, 0, 0, 0 },
    { "p1", "{\"type\":\"test\",\"unit\":\"Spears\",\"test\":\"rally\",\"target\":7}",
      "not_fleeing", 0, 0, 0, 0, 0, 0 },
    { "p1", "{\"type\":\"test\",\"unit\":\"Spears\",\"test\":\"panic\",\"target\":7}", "ok",
      NULL, "{\"sides\":{\"p1\":{\"units\":[{\"status\":[\"fleeing\"],\"why\":{\"retreat\":"
      "\"flees\"}}]}}}", 0, "test", "flees", 0 },
    { "p1", "{\"type\":\"test\",\"unit\":\"Spears\",\"test\":\"ld\",\"target\":7}", "fleeing",
      0, 0, 0, 0, 0, 0 },
    { "p1", "{\"type\":\"test\",\"unit\":\"Spears\",\"test\":\"rally\",\"target\":7}", "ok",
      NULL, "{\"sides\":{\"p1\":{\"units\":[{\"status\":[]}]}}}", "sides.p1.units.0.why.retreat",
      "test", "ld_passed", 0 },
    { "p1", "{\"type\":\"test\",\"unit\":\"Horse\",\"test\":\"panic\",\"target\":8}", "ok",
      "p2", 0, 0, "test", "fall_back", 0 },
    { "p2", "{\"type\":\"end_phase\"}", "not_active", 0, 0, 0, 0, 0, 0 },
    /* 33-41: the break point at the end of a player turn; the victory points */
    { "p1", "{\"type\":\"end_phase\"}", "ok", NULL, "{\"segment\":\"rally\"}", 0, 0, 0, 0 },
    { "p1", "{\"type\":\"end_turn\"}", "ok", NULL, "{\"player\":\"p2\",\"turn\":2,\"segment\":"
      "\"declare_charges\"}", 0, "turn", 0, 0 },
    { "p1", "{\"type\":\"casualties\",\"unit\":\"Archers\",\"wounds\":11}",
      "too_many_casualties", 0, 0, 0, 0, 0, 0 },
    { "p1", "{\"type\":\"casualties\",\"unit\":\"Archers\",\"wounds\":10}", "ok", NULL,
      "{\"sides\":{\"p2\":{\"break_point\":\"5 of 15 models, breaks at 3\"}}}", 0, 0, 0, 0 },
    { "p1", "{\"type\":\"casualties\",\"unit\":\"Slingers\",\"wounds\":2}", "ok", NULL,
      "{\"phase\":\"play\",\"winner\":null}", 0, 0, 0, 0 },
    { "p2", "{\"type\":\"end_turn\"}", "ok", NULL, "{\"phase\":\"victory\",\"winner\":null,"
      "\"decided\":\"p1\"}", 0, "battle_over", "p1", 0 },
    { "p2", "{\"type\":\"end_turn\"}", "wrong_phase", 0, 0, 0, 0, 0, 0 },
    { "p1", "{\"type\":\"victory_points\",\"p1\":1200,\"p2\":300}", "ok", 0, 0, 0, 0, 0, 0 },
    { "p2", "{\"type\":\"victory_points\",\"p1\":1200,\"p2\":300}", "ok", NULL,
      "{\"phase\":\"over\",\"winner\":\"p1\"}", 0, "victory_points_agreed", 0, 0 },
    { "p2", "{\"type\":\"end_turn\"}", "game_over", 0, 0, 0, 0, 0, 0 },
};

static void test_game_with_referee(void **state)
{
    (void)state;
    struct faces dice = { faces1, (int)(sizeof faces1 / sizeof faces1[0]) };
    struct wr_host host;
    struct wr_game *g = new_game("{\"referee\":true}", &dice, &host);
    json_t *history = json_array();
    play(g, game1, sizeof game1 / sizeof game1[0], history);
    assert_string_equal(g->rs->result(g), "p1");
    struct wr_decision d[4];
    assert_int_equal(g->rs->awaiting(g, d, 4), 0);

    /* The roster event: the units for their side, not for the other. */
    json_t *ev = json_loads("[{\"type\":\"roster\",\"side\":\"p1\",\"units\":[1]}]", 0, NULL);
    json_t *mine = g->rs->project_events(g, "p1", ev), *theirs = g->rs->project_events(g, "p2", ev);
    assert_non_null(json_object_get(json_array_get(mine, 0), "units"));
    assert_null(json_object_get(json_array_get(theirs, 0), "units"));
    json_decref(mine), json_decref(theirs), json_decref(ev);

    /* Replay: the same commands and dice give every view byte for byte. */
    struct wr_host host2;
    struct wr_game *g2 = new_game("{\"referee\":true}", &dice, &host2);
    size_t i;
    json_t *step;
    json_array_foreach(history, i, step) {
        struct wr_refusal why;
        json_t *e = NULL;
        assert_int_equal(wr_game_apply(g2, json_string_value(json_array_get(step, 0)),
                                       json_array_get(step, 1), &e, &why), 0);
        json_decref(e);
    }
    char *a = dump_views(g), *b = dump_views(g2);
    assert_string_equal(a, b);
    free(a), free(b);
    g->rs->destroy(g2);
    g->rs->destroy(g);
    json_decref(history);
}

/* The second game: no referee. The roll-off ties (3, 3), then p2 wins it
 * (1, 4); a dispute is settled by a D6 (2: the fact does not stand); a
 * test without a die left is refused. */
static const int faces2[] = { 3, 3, 1, 4, 2 };

static const struct step game2[] = {
    { "referee", "{\"type\":\"settle\",\"stands\":true}", "not_your_turn", 0, 0, 0, 0, 0, 0 },
    { "p1", P1_PART2, "ok", 0, 0, 0, 0, 0, 0 },
    { "p2", P2_ROSTER, "ok", 0, 0, 0, 0, 0, 0 },
    { "p1", "{\"type\":\"start\"}", "ok", "p1", "{\"player\":\"p2\",\"dice\":"
      "{\"rolls\":4}}", 0, 0, 0, 0 },
    { "p2", "{\"type\":\"fact\",\"unit\":\"Archers\",\"fact\":\"won_round\",\"value\":true}",
      "ok", "p1", "{\"sides\":{\"p2\":{\"units\":[{\"status\":[\"confident\"]}]}}}", 0, 0, 0, 0 },
    { "p1", "{\"type\":\"dispute\",\"unit\":\"Archers\",\"fact\":\"won_round\"}", "ok", "p1",
      "{\"dispute\":null,\"dice\":{\"rolls\":5},\"sides\":{\"p2\":{\"units\":[{\"facts\":"
      "{\"won_round\":"
      "false}}]}}}", 0, "settled", 0, 0 },
    { "p2", "{\"type\":\"test\",\"unit\":\"Archers\",\"test\":\"ld\",\"target\":7}",
      "bad_command", 0, 0, 0, 0, 0, 0 },
    { "p2", "{\"type\":\"accept_end\"}", "no_offer", 0, 0, 0, 0, 0, 0 },
    { "p2", "{\"type\":\"offer_end\",\"result\":\"draw\"}", "ok", NULL,
      "{\"offer\":{\"side\":\"p2\",\"result\":\"draw\"}}", 0, 0, 0, 0 },
    { "p2", "{\"type\":\"accept_end\"}", "own_offer", 0, 0, 0, 0, 0, 0 },
    { "p1", "{\"type\":\"accept_end\"}", "ok", NULL, "{\"phase\":\"victory\",\"winner\":null,"
      "\"decided\":\"draw\"}", 0, "battle_over", "draw", 0 },
    { "p1", "{\"type\":\"victory_points\",\"p1\":700,\"p2\":650}", "ok", 0, 0, 0, 0, 0, 0 },
    { "p2", "{\"type\":\"victory_points\",\"p1\":700,\"p2\":650}", "ok", NULL,
      "{\"phase\":\"over\",\"winner\":\"draw\"}", 0, "victory_points_agreed", 0, 0 },
};

static void test_game_without_referee(void **state)
{
    (void)state;
    struct faces dice = { faces2, (int)(sizeof faces2 / sizeof faces2[0]) };
    struct wr_host host;
    struct wr_game *g = new_game("{\"points\":700}", &dice, &host);
    const char *const *seats = g->rs->seats(g);
    assert_string_equal(seats[0], "p1");
    assert_string_equal(seats[1], "p2");
    assert_null(seats[2]);
    json_t *history = json_array();
    play(g, game2, sizeof game2 / sizeof game2[0], history);
    assert_string_equal(g->rs->result(g), "draw");
    json_decref(history);
    g->rs->destroy(g);
}

/* The third game: the combat commands (B26-B39), with a referee. p1 has
 * never met elephants, p2 has previously fought them. The dice: the
 * roll-off (p1 5, p2 2), the Screen's rally (1, 2), the Knights' panic
 * test (6, 6). */
static const int faces3[] = { 5, 2, 1, 2, 6, 6 };

#define Q "\""
#define CHARGE(u, t, f) "{\"type\":\"charge\",\"unit\":\"" u "\",\"target\":\"" t \
                        "\",\"facing\":\"" f "\"}"
#define ONE(type, u) "{\"type\":\"" type "\",\"unit\":\"" u "\"}"
#define SCREEN(s, u) "{\"type\":\"screen_flees\",\"screen\":\"" s "\",\"unit\":\"" u "\"}"
#define COVER(s, u, los) "{\"type\":\"cover\",\"screen\":\"" s "\",\"unit\":\"" u \
                         "\",\"los\":" los "}"
#define FACT(u, f, v) "{\"type\":\"fact\",\"unit\":\"" u "\",\"fact\":\"" f "\",\"value\":" v "}"
#define DISPUTE(u, f) "{\"type\":\"dispute\",\"unit\":\"" u "\",\"fact\":\"" f "\"}"
#define ELEPHANT(u, e) "{\"type\":\"elephant\",\"unit\":\"" u "\",\"event\":\"" e "\"}"
#define GENERAL(s) "{\"type\":\"general_killed\",\"side\":\"" s "\"}"
#define SETTLE(b) "{\"type\":\"settle\",\"stands\":" b "}"
#define END_PHASE "{\"type\":\"end_phase\"}"
/* p2's units, in roster order, as a look: {} for each unit before. */
#define P2U(n, unit) "{\"sides\":{\"p2\":{\"units\":[" n unit "]}}}"
#define P1U(n, unit) "{\"sides\":{\"p1\":{\"units\":[" n unit "]}}}"
#define SKIP1 "{},"
#define SKIP2 "{},{},"
#define SKIP3 "{},{},{},"

#define P1_ARMY "{\"type\":\"roster\",\"last\":true,\"units\":[" \
    "{\"name\":\"Knights\",\"kind\":\"cavalry\",\"models\":10,\"move\":8,\"general\":true}," \
    "{\"name\":\"Spears\",\"kind\":\"infantry\",\"models\":20,\"files\":5,\"ranks\":4}," \
    "{\"name\":\"Screen\",\"kind\":\"skirmishers\",\"models\":6}," \
    "{\"name\":\"Chariots\",\"kind\":\"chariot\",\"models\":5,\"skirmish\":true}," \
    "{\"name\":\"Riders\",\"kind\":\"cavalry\",\"models\":6,\"skirmish\":true}," \
    "{\"name\":\"Militia\",\"kind\":\"infantry\",\"models\":10,\"files\":5,\"ranks\":2}," \
    "{\"name\":\"Scouts\",\"kind\":\"cavalry\",\"models\":5,\"move\":8}]}"
#define P2_ARMY "{\"type\":\"roster\",\"last\":true,\"units\":[" \
    "{\"name\":\"Lancers\",\"kind\":\"cavalry\",\"models\":10,\"move\":8,\"general\":true}," \
    "{\"name\":\"Hoplites\",\"kind\":\"infantry\",\"models\":20,\"files\":5,\"ranks\":4}," \
    "{\"name\":\"Guards\",\"kind\":\"infantry\",\"models\":10,\"files\":5,\"ranks\":2}," \
    "{\"name\":\"Archers\",\"kind\":\"infantry\",\"models\":10,\"files\":5,\"ranks\":2}," \
    "{\"name\":\"Ponies\",\"kind\":\"cavalry\",\"models\":4,\"move\":5}," \
    "{\"name\":\"Javelins\",\"kind\":\"skirmishers\",\"models\":8}]}"

static const struct step game3[] = {
    /* 1-3: rosters, p1 takes the first turn */
    { "p1", P1_ARMY, "ok", 0, 0, 0, 0, 0, 0 },
    { "p2", P2_ARMY, "ok", 0, 0, 0, 0, 0, 0 },
    { "p1", "{\"type\":\"start\"}", "ok", NULL, "{\"player\":\"p1\",\"turn\":1}", 0, 0, 0,
      "!p2:counter_charge" },
    /* 4-15: charge and counter charge, accepted and refused (B26, B29) */
    { "p2", ONE("counter_charge", "Lancers"), "cc_not_front", 0, 0, 0, 0, 0, 0 },
    { "p2", CHARGE("Hoplites", "Spears", "front"), "not_charging_side", 0, 0, 0, 0, 0, 0 },
    { "p1", CHARGE("Ghosts", "Lancers", "front"), "unknown_unit", 0, 0, 0, 0, 0, 0 },
    { "p1", CHARGE("Hoplites", "Spears", "front"), "not_your_unit", 0, 0, 0, 0, 0, 0 },
    { "p1", CHARGE("Knights", "Screen", "front"), "own_target", 0, 0, 0, 0, 0, 0 },
    { "p1", CHARGE("Knights", "Lancers", "side"), "bad_facing", 0, 0, 0, 0, 0, 0 },
    { "p1", "{\"type\":\"charge\",\"unit\":\"Knights\",\"target\":\"Lancers\",\"facing\":"
            "\"front\",\"speed\":9}", "bad_command", 0, 0, 0, 0, 0, 0 },
    { "p1", CHARGE("Knights", "Lancers", "front"), "ok", "p2",
      P2U("", "{\"charge\":{\"by\":\"Knights\",\"facing\":\"front\",\"kind\":\"cavalry\","
              "\"models\":10,\"skirmish\":false,\"turn\":1}}"), 0, "charge", 0,
      "p2:counter_charge" },
    { "p1", CHARGE("Knights", "Archers", "flank"), "already_stated", 0, 0, 0, 0, 0, 0 },
    { "p2", ONE("counter_charge", "Lancers"), "ok", NULL,
      P2U("", "{\"charge\":{\"counter_charged\":true},\"disputable\":\"counter_charge\"}"), 0,
      "counter_charge", 0, "!p2:counter_charge" },
    { "p2", ONE("counter_charge", "Lancers"), "already_stated", 0, 0, 0, 0, 0, 0 },
    { "p1", ONE("counter_charge", "Lancers"), "not_your_unit", 0, 0, 0, 0, 0, 0 },
    /* 16-24: a disputed charge undone, a disputed counter charge standing (B35) */
    { "p1", DISPUTE("Knights", "charge"), "own_fact", 0, 0, 0, 0, 0, 0 },
    { "p2", DISPUTE("Spears", "reform"), "not_stated", 0, 0, 0, 0, 0, 0 },
    { "p2", DISPUTE("Knights", "charge"), "ok", NULL,
      "{\"dispute\":{\"side\":\"p1\",\"unit\":\"Knights\",\"fact\":\"charge\"}}", 0, 0, 0,
      "referee:settle" },
    { "p1", CHARGE("Spears", "Hoplites", "flank"), "dispute_pending", 0, 0, 0, 0, 0, 0 },
    { "referee", SETTLE("false"), "ok", NULL,
      "{\"dispute\":null,\"sides\":{\"p1\":{\"units\":[{\"charging\":null}]},"
      "\"p2\":{\"units\":[{\"charge\":null}]}}}", 0, "settled", 0, "!p2:counter_charge" },
    { "p1", CHARGE("Knights", "Lancers", "front"), "ok", NULL,
      P1U("", "{\"charging\":\"Lancers\"}"), 0, 0, 0, 0 },
    { "p2", ONE("counter_charge", "Lancers"), "ok", 0, 0, 0, 0, 0, 0 },
    { "p1", DISPUTE("Lancers", "counter_charge"), "ok", 0, 0, 0, 0, 0, 0 },
    { "referee", SETTLE("true"), "ok", NULL,
      P2U("", "{\"charge\":{\"counter_charged\":true},\"disputable\":null}"), 0, 0, 0, 0 },
    /* 25-39: the rank bonus against flank and rear charges (B2-B4, B8, B27),
     * the skirmish screen fleeing (B30), the counter charge's reasons */
    { "p1", FACT("Spears", "near_screen", "true"), "ok", 0, 0, 0, 0, 0, 0 },
    { "p1", CHARGE("Spears", "Hoplites", "flank"), "ok", "p2",
      P2U(SKIP1, "{\"name\":\"Hoplites\",\"status\":[\"confident\",\"rank_bonus_lost\"],"
                 "\"why\":{\"rank\":\"rank_charged\"}}"), 0, "charge", 0, 0 },
    { "p2", ONE("counter_charge", "Hoplites"), "cc_not_cavalry", 0, 0, 0, 0, 0, 0 },
    { "p2", SCREEN("Screen", "Spears"), "not_your_unit", 0, 0, 0, 0, 0, 0 },
    { "p1", SCREEN("Screen", "Hoplites"), "not_friends", 0, 0, 0, 0, 0, 0 },
    { "p1", SCREEN("Knights", "Spears"), "screen_not_skirmish", 0, 0, 0, 0, 0, 0 },
    { "p1", SCREEN("Screen", "Militia"), "screen_too_far", 0, 0, 0, 0, 0, 0 },
    { "p1", FACT("Militia", "near_screen", "true"), "ok", 0, 0, 0, 0, 0, 0 },
    { "p1", SCREEN("Screen", "Militia"), "screen_no_charge", 0, 0, 0, 0, 0, 0 },
    { "p1", SCREEN("Screen", "Spears"), "ok", "p2",
      P1U(SKIP2, "{\"name\":\"Screen\",\"status\":[\"fleeing\"],\"why\":{\"retreat\":"
                 "\"screen_flee\"}}"), 0, "screen_flees", 0, 0 },
    { "p1", SCREEN("Screen", "Spears"), "fleeing", 0, 0, 0, 0, 0, 0 },
    { "p1", CHARGE("Militia", "Ponies", "front"), "ok", 0, 0, 0, 0, 0, "!p2:counter_charge" },
    { "p2", ONE("counter_charge", "Ponies"), "cc_vs_infantry", 0, 0, 0, 0, 0, 0 },
    { "p1", CHARGE("Riders", "Archers", "flank"), "ok", "p2",
      P2U(SKIP3, "{\"name\":\"Archers\",\"status\":[\"confident\"],\"why\":{\"rank\":"
                 "\"rank_skirmish_charge\"}}"), 0, 0, 0, 0 },
    { "p1", CHARGE("Chariots", "Guards", "rear"), "ok", "p2",
      P2U(SKIP2, "{\"name\":\"Guards\",\"status\":[\"confident\",\"rank_bonus_lost\"],"
                 "\"why\":{\"rank\":\"rank_charged\"}}"), 0, 0, 0, 0 },
    /* 40-58: segments; the screen rallies; soft cover (B37) */
    { "p1", COVER("Screen", "Spears", "true"), "wrong_segment", 0, 0, 0, 0, 0, 0 },
    { "p1", ONE("broke", "Hoplites"), "wrong_segment", 0, 0, 0, 0, 0, 0 },
    { "p1", END_PHASE, "ok", NULL, "{\"segment\":\"rally\"}", 0, 0, 0, 0 },
    { "p2", ONE("counter_charge", "Lancers"), "wrong_segment", 0, 0, 0, 0, 0, 0 },
    { "p1", CHARGE("Spears", "Hoplites", "flank"), "wrong_segment", 0, 0, 0, 0, 0, 0 },
    { "p1", SCREEN("Screen", "Spears"), "wrong_segment", 0, 0, 0, 0, 0, 0 },
    { "p1", "{\"type\":\"test\",\"unit\":\"Screen\",\"test\":\"rally\",\"target\":7}", "ok",
      NULL, P1U(SKIP2, "{\"name\":\"Screen\",\"status\":[]}"), 0, "test", "ld_passed", 0 },
    { "p1", END_PHASE, "ok", 0, 0, 0, 0, 0, 0 },
    { "p1", END_PHASE, "ok", NULL, "{\"segment\":\"shooting\"}", 0, 0, 0, 0 },
    { "p2", COVER("Javelins", "Hoplites", "true"), "ok", 0, 0, 0, "cover", "screen_too_far", 0 },
    { "p2", FACT("Hoplites", "near_screen", "true"), "ok", 0, 0, 0, 0, 0, 0 },
    { "p2", COVER("Javelins", "Hoplites", "true"), "ok", 0, 0, 0, "cover", "screen_cover", 0 },
    { "p1", COVER("Javelins", "Hoplites", "false"), "ok", 0, 0, 0, "cover", "screen_no_los", 0 },
    { "p1", COVER("Knights", "Spears", "true"), "ok", 0, 0, 0, "cover", "screen_not_skirmish",
      0 },
    { "p1", COVER("Screen", "Hoplites", "true"), "not_friends", 0, 0, 0, 0, 0, 0 },
    { "p1", ONE("cover", "Spears"), "bad_command", 0, 0, 0, 0, 0, 0 },
    { "p2", COVER("Javelins", "Ghosts", "true"), "unknown_unit", 0, 0, 0, 0, 0, 0 },
    { "p2", ONE("reform", "Guards"), "reform_not_end", 0, 0, 0, 0, 0, 0 },
    { "p2", ELEPHANT("Archers", "survived"), "wrong_segment", 0, 0, 0, 0, 0, 0 },
    /* 59: the Knights fail a panic test, confident: they fall back */
    { "p1", "{\"type\":\"test\",\"unit\":\"Knights\",\"test\":\"panic\",\"target\":7}", "ok",
      0, 0, 0, "test", "fall_back", 0 },
    /* 60-63: a formed unit breaks: it flees, its army loses confident a);
     * skirmishers breaking do not take it (B31) */
    { "p1", END_PHASE, "ok", NULL, "{\"segment\":\"combat\"}", 0, 0, 0, 0 },
    { "p1", ONE("broke", "Hoplites"), "ok", NULL,
      "{\"sides\":{\"p2\":{\"formed_unit_broken\":true,\"units\":[{},{\"broke\":true,"
      "\"why\":{\"retreat\":\"flees\"}},{},{\"name\":\"Archers\",\"status\":[],\"why\":"
      "{\"confident\":\"not_confident\"}}]}}}", 0, "broke", 0, 0 },
    { "p1", ONE("broke", "Hoplites"), "fleeing", 0, 0, 0, 0, 0, 0 },
    { "p2", ONE("broke", "Screen"), "ok", NULL,
      "{\"sides\":{\"p1\":{\"formed_unit_broken\":false,\"units\":[{},{\"name\":\"Spears\","
      "\"status\":[\"confident\"],\"why\":{\"confident\":\"confident_a\"}}]}}}", 0, 0, 0, 0 },
    /* 64-73: reforming (B8, B32): refused by each clause, then a reformed
     * unit charged in the rear by five skirmishing chariots still has no
     * rank bonus */
    { "p2", FACT("Hoplites", "fighting_flank_rear", "true"), "ok", 0, 0, 0, 0, 0, 0 },
    { "p2", ONE("reform", "Hoplites"), "reform_broken", 0, 0, 0, 0, 0, 0 },
    { "p2", ONE("reform", "Archers"), "reform_not_flank", 0, 0, 0, 0, 0, 0 },
    { "p2", FACT("Archers", "fighting_flank_rear", "true"), "ok", 0, 0, 0, 0, 0, 0 },
    { "p2", FACT("Archers", "engaged_other_facing", "true"), "ok", 0, 0, 0, 0, 0, 0 },
    { "p2", ONE("reform", "Archers"), "reform_other_facing", 0, 0, 0, 0, 0, 0 },
    { "p2", FACT("Guards", "fighting_flank_rear", "true"), "ok", 0, 0, 0, 0, 0, 0 },
    { "p1", ONE("reform", "Guards"), "not_your_unit", 0, 0, 0, 0, 0, 0 },
    { "p2", ONE("reform", "Guards"), "ok", "p1",
      P2U(SKIP2, "{\"name\":\"Guards\",\"status\":[\"reformed\",\"rank_bonus_lost\"],"
                 "\"why\":{\"rank\":\"rank_reformed_charged\"}}"), 0, "reform", 0, 0 },
    { "p2", ONE("reform", "Guards"), "already_stated", 0, 0, 0, 0, 0, 0 },
    /* 74-79: elephants (B13, B34): the familiarity improves once */
    { "p2", ELEPHANT("Archers", "trample"), "bad_command", 0, 0, 0, 0, 0, 0 },
    { "p2", ELEPHANT("Archers", "survived"), "ok", NULL,
      "{\"sides\":{\"p2\":{\"elephants\":\"previously_fought\",\"elephants_upgraded\":true}}}",
      0, "familiarity", 0, 0 },
    { "p2", ELEPHANT("Guards", "beat"), "elephant_no_upgrade", 0, 0, 0, 0, 0, 0 },
    { "p1", ELEPHANT("Spears", "survived"), "elephant_no_upgrade", 0, 0, 0, 0, 0, 0 },
    { "p1", ELEPHANT("Spears", "beat"), "ok", NULL,
      "{\"sides\":{\"p1\":{\"elephants_upgraded\":true}}}", 0, 0, 0, 0 },
    { "p1", ELEPHANT("Archers", "survived"), "not_your_unit", 0, 0, 0, 0, 0, 0 },
    /* 80-82: the general dies (B33): no longer with his unit; edgy c) waits */
    { "p2", GENERAL("p3"), "bad_command", 0, 0, 0, 0, 0, 0 },
    { "p2", GENERAL("p1"), "ok", NULL,
      "{\"sides\":{\"p1\":{\"general_killed\":1,\"units\":[{\"general\":false,\"why\":"
      "{\"edgy\":\"not_edgy\"}}]}}}", 0, "general_killed", 0, 0 },
    { "p1", GENERAL("p1"), "general_dead", 0, 0, 0, 0, 0, 0 },
    /* 83-91: a fleeing unit leaves the table (B36); disputes of a side's
     * statement and of the other's */
    { "p1", ONE("left_table", "Archers"), "not_fled", 0, 0, 0, 0, 0, 0 },
    { "p1", ONE("left_table", "Hoplites"), "ok", NULL,
      "{\"sides\":{\"p2\":{\"break_point\":\"42 of 62 models, breaks at 15\"}}}", 0,
      "left_table", 0, 0 },
    { "p1", ONE("left_table", "Hoplites"), "unit_gone", 0, 0, 0, 0, 0, 0 },
    { "p2", DISPUTE("Hoplites", "left_table"), "ok", 0, 0, 0, 0, 0, 0 },
    { "referee", SETTLE("false"), "ok", NULL,
      "{\"sides\":{\"p2\":{\"break_point\":\"62 of 62 models, breaks at 15\"}}}", 0, 0, 0, 0 },
    { "p1", ONE("left_table", "Hoplites"), "ok", NULL,
      "{\"sides\":{\"p2\":{\"models_left\":42}}}", 0, 0, 0, 0 },
    { "p1", DISPUTE("Knights", "general_killed"), "bad_command", 0, 0, 0, 0, 0, 0 },
    { "p1", "{\"type\":\"dispute\",\"side\":\"p1\",\"fact\":\"general_killed\"}", "ok", NULL,
      "{\"dispute\":{\"side\":\"p1\",\"unit\":null,\"fact\":\"general_killed\"}}", 0, 0, 0,
      0 },
    { "referee", SETTLE("true"), "ok", NULL, "{\"sides\":{\"p1\":{\"general_killed\":1}}}", 0,
      0, 0, 0 },
    /* 92-93: the end of the turn (B28, B35, B38): the Knights fell back and
     * their charge on the Lancers is over; edgy c) applies; the Guards'
     * combat goes on, reformed without their rank bonus; statements close */
    { "p1", END_PHASE, "ok", NULL,
      "{\"turn\":2,\"player\":\"p2\",\"sides\":{\"p1\":{\"units\":[{\"status\":[\"confident\","
      "\"edgy\",\"fell_back\"],\"why\":{\"edgy\":\"edgy_c\"}}]},\"p2\":{\"units\":["
      "{\"charge\":null},{\"charge\":null},{\"charge\":{\"by\":\"Chariots\",\"facing\":"
      "\"rear\"},\"status\":[\"reformed\",\"rank_bonus_lost\"]}]}}}", 0, "turn", 0, 0 },
    { "p1", DISPUTE("Guards", "reform"), "not_stated", 0, 0, 0, 0, 0, 0 },
    /* 94-99: p2's turn: the Riders break */
    { "p2", END_PHASE, "ok", 0, 0, 0, 0, 0, 0 },
    { "p2", END_PHASE, "ok", 0, 0, 0, 0, 0, 0 },
    { "p2", END_PHASE, "ok", 0, 0, 0, 0, 0, 0 },
    { "p2", END_PHASE, "ok", NULL, "{\"segment\":\"combat\"}", 0, 0, 0, 0 },
    { "p2", ONE("broke", "Riders"), "ok", 0, 0, 0, 0, 0, 0 },
    { "p2", "{\"type\":\"end_turn\"}", "ok", NULL,
      "{\"turn\":3,\"player\":\"p1\",\"sides\":{\"p2\":{\"units\":[{},{},{},"
      "{\"charge\":null}]}}}", 0, 0, 0, 0 },
    /* 100-110: turn 3: fell back, fleeing, gone; counter charges too slow
     * and against chariots; a front charge does not replace a rear one */
    { "p1", CHARGE("Knights", "Lancers", "front"), "fell_back_no_charge", 0, 0, 0, 0, 0, 0 },
    { "p1", CHARGE("Riders", "Lancers", "front"), "fleeing", 0, 0, 0, 0, 0, 0 },
    { "p1", CHARGE("Scouts", "Hoplites", "front"), "unit_gone", 0, 0, 0, 0, 0, 0 },
    { "p1", CHARGE("Scouts", "Ponies", "front"), "ok", 0, 0, 0, 0, 0, "!p2:counter_charge" },
    { "p2", ONE("counter_charge", "Ponies"), "cc_too_slow", 0, 0, 0, 0, 0, 0 },
    { "p1", CHARGE("Chariots", "Lancers", "front"), "ok", 0, 0, 0, 0, 0, 0 },
    { "p2", ONE("counter_charge", "Lancers"), "cc_not_vs_cavalry", 0, 0, 0, 0, 0, 0 },
    { "p2", ONE("counter_charge", "Hoplites"), "unit_gone", 0, 0, 0, 0, 0, 0 },
    { "p1", CHARGE("Militia", "Guards", "front"), "ok", NULL,
      P2U(SKIP2, "{\"charge\":{\"by\":\"Chariots\",\"facing\":\"rear\",\"turn\":1},\"why\":"
                 "{\"rank\":\"rank_reformed_charged\"}}"), 0, 0, 0, 0 },
    { "p1", END_PHASE, "ok", 0, 0, 0, 0, 0, 0 },
    { "p1", END_PHASE, "ok", 0, 0, 0, 0, 0, 0 },
    /* 111-115: the chariots break: the Guards' combat is over, their
     * reformed status and the charge go at the end of the turn */
    { "p1", END_PHASE, "ok", 0, 0, 0, 0, 0, 0 },
    { "p1", END_PHASE, "ok", NULL, "{\"segment\":\"combat\"}", 0, 0, 0, 0 },
    { "p2", ONE("broke", "Chariots"), "ok", 0, 0, 0, 0, 0, 0 },
    { "p1", ONE("broke", "Hoplites"), "unit_gone", 0, 0, 0, 0, 0, 0 },
    { "p1", "{\"type\":\"end_turn\"}", "ok", NULL,
      P2U(SKIP2, "{\"name\":\"Guards\",\"charge\":null,\"status\":[],\"why\":{\"rank\":"
                 "\"rank_kept\"}}"), 0, 0, 0, 0 },
};

static void test_combat_commands(void **state)
{
    (void)state;
    struct faces dice = { faces3, (int)(sizeof faces3 / sizeof faces3[0]) };
    struct wr_host host;
    struct wr_game *g = new_game("{\"referee\":true,\"p2_elephants\":\"previously_fought\"}",
                                 &dice, &host);
    json_t *history = json_array();
    play(g, game3, sizeof game3 / sizeof game3[0], history);
    struct wr_refusal why = { 0, NULL, "" };
    /* The Hoplites left the table at step 88 with wounds left: no casualty
     * reaches them any more (B36). */
    json_t *cas = json_loads("{\"type\":\"casualties\",\"unit\":\"Hoplites\",\"wounds\":1}", 0,
                             NULL), *ev = NULL;
    assert_int_not_equal(g->rs->apply(g, "p1", cas, &ev, &why), 0);
    assert_string_equal(why.code, "unit_gone");
    assert_null(ev);
    json_decref(cas);
    if (g->rs->check && g->rs->check(g, &why) != 0)
        fail_msg("check: %s", why.message);
    json_decref(history);
    g->rs->destroy(g);
}

/* Without a referee a disputed charge is settled by a D6 (B22, B35): on
 * 3 it does not stand and the target's charge is gone (steps 1-6). Then
 * a reformed unit is charged (steps 7-15). */
static const int faces4[] = { 6, 1, 3 };

static const struct step game4[] = {
    { "p1", P1_ARMY, "ok", 0, 0, 0, 0, 0, 0 },
    { "p2", P2_ARMY, "ok", 0, 0, 0, 0, 0, 0 },
    { "p1", "{\"type\":\"start\"}", "ok", 0, 0, 0, 0, 0, 0 },
    { "p1", CHARGE("Spears", "Hoplites", "rear"), "ok", NULL,
      P2U(SKIP1, "{\"why\":{\"rank\":\"rank_charged\"}}"), 0, 0, 0, 0 },
    { "p2", DISPUTE("Spears", "charge"), "ok", NULL,
      "{\"dispute\":null,\"sides\":{\"p2\":{\"units\":[{},{\"charge\":null,\"why\":{\"rank\":"
      "\"rank_kept\"}}]}}}", 0, "settled", 0, 0 },
    { "p2", DISPUTE("Spears", "charge"), "not_stated", 0, 0, 0, 0, 0, 0 },
    /* 7-15: a unit reformed first, charged in the flank by five or more
     * models later in the same combat, loses its rank bonus (B8, B32) */
    { "p1", END_PHASE, "ok", 0, 0, 0, 0, 0, 0 },
    { "p1", END_PHASE, "ok", 0, 0, 0, 0, 0, 0 },
    { "p1", END_PHASE, "ok", 0, 0, 0, 0, 0, 0 },
    { "p1", END_PHASE, "ok", NULL, "{\"segment\":\"combat\"}", 0, 0, 0, 0 },
    { "p2", FACT("Guards", "fighting_flank_rear", "true"), "ok", 0, 0, 0, 0, 0, 0 },
    { "p2", ONE("reform", "Guards"), "ok", NULL,
      P2U(SKIP2, "{\"status\":[\"confident\",\"reformed\"],\"why\":{\"rank\":"
                 "\"rank_kept\"}}"), 0, 0, 0, 0 },
    { "p1", "{\"type\":\"end_turn\"}", "ok", 0, 0, 0, 0, 0, 0 },
    { "p2", "{\"type\":\"end_turn\"}", "ok", NULL,
      P2U(SKIP2, "{\"status\":[\"confident\",\"reformed\"]}"), 0, 0, 0, 0 },
    { "p1", CHARGE("Knights", "Guards", "flank"), "ok", NULL,
      P2U(SKIP2, "{\"status\":[\"confident\",\"reformed\",\"rank_bonus_lost\"],"
                 "\"why\":{\"rank\":\"rank_reformed_charged\"}}"), 0, 0, 0, 0 },
};

static void test_combat_dispute_dice(void **state)
{
    (void)state;
    play_table("{}", faces4, (int)(sizeof faces4 / sizeof faces4[0]), game4,
               sizeof game4 / sizeof game4[0]);
}

/* Options: each refused with bad_options and a sentence. */
static void test_options(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "{\"points\":0}", "{\"points\":\"many\"}", "{\"referee\":1}", "{\"diagonal\":\"yes\"}",
        "{\"p1_elephants\":\"friends\"}", "[]",
    };
    const struct wr_ruleset *rs = wr_ruleset_find("battle");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *o = json_loads(bad[i], JSON_DECODE_ANY, NULL);
        struct wr_refusal why = { 0, NULL, "" };
        struct wr_game *g = rs->create(NULL, o, "t", NULL, NULL, &why);
        if (g != NULL)
            fail_msg("options %s accepted", bad[i]);
        assert_string_equal(why.code, "bad_options");
        assert_true(why.message[0] != '\0');
        json_decref(o);
    }
    json_t *o = json_loads("{\"diagonal\":false,\"deep_is_column\":false,\"points\":2000,"
                           "\"p2_elephants\":\"expert\"}", 0, NULL);
    struct wr_refusal why;
    struct wr_game *g = rs->create(NULL, o, "t", NULL, NULL, &why);
    assert_non_null(g);
    json_t *p = rs->project(g, NULL), *want = json_loads(
        "{\"points\":2000,\"options\":{\"diagonal\":false,\"deep_is_column\":false},"
        "\"sides\":{\"p2\":{\"elephants\":\"expert\"},\"p1\":{\"elephants\":\"never_met\"}}}",
        0, NULL);
    assert_true(contains(want, p));
    json_decref(p), json_decref(want), json_decref(o);
    rs->destroy(g);
}


/* --- the end, the victory points, the campaign's options (B40-B44) -------- */

/* Replay history on a new game with the same options and dice: every view
 * byte for byte as g's. */
static void replay_equal(const struct wr_game *g, const char *options, struct faces *dice,
                         const json_t *history)
{
    struct wr_host host;
    struct wr_game *g2 = new_game(options, dice, &host);
    size_t i;
    json_t *step;
    json_array_foreach((json_t *)history, i, step) {
        struct wr_refusal why;
        json_t *e = NULL;
        assert_int_equal(wr_game_apply(g2, json_string_value(json_array_get(step, 0)),
                                       json_array_get(step, 1), &e, &why), 0);
        json_decref(e);
    }
    char *a = dump_views(g), *b = dump_views(g2);
    assert_string_equal(a, b);
    free(a), free(b);
    g2->rs->destroy(g2);
}

/* The awaited decisions as "seat:what seat:what". */
static void assert_awaiting(const struct wr_game *g, const char *want)
{
    struct wr_decision d[WR_DECISIONS_MAX];
    int n = g->rs->awaiting(g, d, WR_DECISIONS_MAX);
    char got[256] = "";
    size_t len = 0;
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(got + len, sizeof got - len, "%s%s:%s", i ? " " : "",
                                d[i].seat, d[i].what);
    assert_string_equal(got, want);
}

#define VP(p1, p2) "{\"type\":\"victory_points\",\"p1\":" #p1 ",\"p2\":" #p2 "}"
#define SETTLE_VP(p1, p2) "{\"type\":\"settle_points\",\"p1\":" #p1 ",\"p2\":" #p2 "}"
#define END_TURN "{\"type\":\"end_turn\"}"

/* No referee; p2 holds an ambush; p1 wins the roll-off (5, 2) and p2's
 * army breaks in p2's first turn. */
static const int faces_end1[] = { 5, 2 };
#define END1_OPTIONS "{\"ambush\":[\"p2\"],\"campaign\":{\"game_text\":\"Open battle\"," \
                     "\"target\":\"Gades\",\"attacker\":\"p2\",\"defender\":\"p1\"," \
                     "\"strategies\":[{\"seat\":\"p2\",\"strategy\":\"hidden_ambush\"}]," \
                     "\"attack\":3}}"

static const struct step end1_to_victory[] = {
    { "p1", P1_PART2, "ok", NULL, "{\"ambush\":{\"p2\":\"waiting\"},\"vp_reports\":"
      "{\"p1\":null,\"p2\":null},\"victory_points\":null,\"decided\":null}", "ambush.p1", 0, 0, 0 },
    { "p2", P2_ROSTER, "ok", 0, 0, 0, 0, 0, 0 },
    { "p1", VP(1, 2), "wrong_phase", 0, 0, 0, 0, 0, 0 },
    /* 4: p1's first turn: p2's ambush still waits */
    { "p1", "{\"type\":\"start\"}", "ok", NULL, "{\"player\":\"p1\",\"turn\":1,\"ambush\":"
      "{\"p2\":\"waiting\"}}", 0, "started", 0, 0 },
    /* 5: p2's first turn: due */
    { "p1", END_TURN, "ok", "p1", "{\"player\":\"p2\",\"turn\":2,\"ambush\":{\"p2\":\"due\"}}",
      0, "ambush_due", 0, 0 },
    { "p1", "{\"type\":\"casualties\",\"unit\":\"Archers\",\"wounds\":10}", "ok", 0, 0, 0, 0,
      0, 0 },
    { "p1", "{\"type\":\"casualties\",\"unit\":\"Slingers\",\"wounds\":2}", "ok", 0, 0, 0, 0,
      0, 0 },
    { "p1", VP(1, 2), "wrong_phase", 0, 0, 0, 0, 0, 0 },
    /* 9: the break point: the victory phase, p1 the winner decided */
    { "p2", END_TURN, "ok", NULL, "{\"phase\":\"victory\",\"decided\":\"p1\",\"winner\":null,"
      "\"victory_points\":null,\"ambush\":{\"p2\":\"due\"}}", 0, "battle_over", "p1", 0 },
};

/* The victory points without a referee: refusals, unequal reports, a
 * report again that agrees. */
static const struct step end1_points[] = {
    { "p1", "{\"type\":\"victory_points\",\"p1\":-1,\"p2\":0}", "bad_vp", 0, 0, 0, 0, 0, 0 },
    { "p1", "{\"type\":\"victory_points\",\"p1\":1000001,\"p2\":0}", "bad_vp", 0, 0, 0, 0, 0, 0 },
    { "p1", "{\"type\":\"victory_points\",\"p1\":\"10\",\"p2\":0}", "bad_vp", 0, 0, 0, 0, 0, 0 },
    { "p1", "{\"type\":\"victory_points\",\"p1\":10}", "bad_vp", 0, 0, 0, 0, 0, 0 },
    { "p1", "{\"type\":\"victory_points\",\"p1\":10,\"p2\":0,\"p3\":0}", "bad_command", 0, 0,
      0, 0, 0, 0 },
    { "referee", VP(10, 0), "not_your_turn", 0, 0, 0, 0, 0, 0 },
    { "p2", END_TURN, "wrong_phase", 0, 0, 0, 0, 0, 0 },
    /* 8: p1 reports */
    { "p1", VP(1500, 0), "ok", "p2", "{\"phase\":\"victory\",\"vp_reports\":{\"p1\":"
      "{\"p1\":1500,\"p2\":0},\"p2\":null}}", 0, "victory_points", 0, 0 },
    /* 9: p2 reports other points: disputed, nothing agreed */
    { "p2", VP(1000000, 200), "ok", NULL, "{\"phase\":\"victory\",\"winner\":null,"
      "\"victory_points\":null,\"vp_reports\":{\"p1\":{\"p1\":1500,\"p2\":0},\"p2\":"
      "{\"p1\":1000000,\"p2\":200}}}", 0, "vp_disputed", 0, 0 },
    { "p2", SETTLE_VP(1500, 0), "not_your_turn", 0, 0, 0, 0, 0, 0 },
    /* 11: p2 reports again, agreeing: over, the winner decided at the break */
    { "p2", VP(1500, 0), "ok", NULL, "{\"phase\":\"over\",\"winner\":\"p1\",\"victory_points\":"
      "{\"p1\":1500,\"p2\":0}}", 0, "victory_points_agreed", 0, 0 },
    { "p1", VP(1500, 0), "game_over", 0, 0, 0, 0, 0, 0 },
};

static void test_end_without_referee(void **state)
{
    (void)state;
    struct faces dice = { faces_end1, (int)(sizeof faces_end1 / sizeof faces_end1[0]) };
    struct wr_host host;
    struct wr_game *g = new_game(END1_OPTIONS, &dice, &host);
    json_t *history = json_array();
    play(g, end1_to_victory, sizeof end1_to_victory / sizeof end1_to_victory[0], history);
    assert_null(g->rs->result(g));
    assert_awaiting(g, "p1:victory_points p2:victory_points");
    play(g, end1_points, 8, history);
    assert_awaiting(g, "p2:victory_points");
    play(g, end1_points + 8, 1, history);
    assert_null(g->rs->result(g));
    assert_awaiting(g, "p1:victory_points p2:victory_points");
    play(g, end1_points + 9, sizeof end1_points / sizeof end1_points[0] - 9, history);
    assert_string_equal(g->rs->result(g), "p1");
    assert_awaiting(g, "");
    replay_equal(g, END1_OPTIONS, &dice, history);
    json_decref(history);
    g->rs->destroy(g);
}

/* A referee; both sides hold an ambush; p2 wins the roll-off (1, 4); the
 * sides agree that p2 won, then report different points. */
static const int faces_end2[] = { 1, 4 };
#define END2_OPTIONS "{\"referee\":true,\"ambush\":[\"p2\",\"p1\"]}"

static const struct step end2[] = {
    { "p1", P1_PART2, "ok", 0, 0, 0, 0, 0, 0 },
    { "p2", P2_ROSTER, "ok", 0, 0, 0, 0, 0, 0 },
    /* 3: p2's first turn: p2's ambush due, p1's waits */
    { "p1", "{\"type\":\"start\"}", "ok", NULL, "{\"player\":\"p2\",\"ambush\":{\"p1\":"
      "\"waiting\",\"p2\":\"due\"}}", 0, "ambush_due", 0, 0 },
    /* 4: p1's first turn */
    { "p2", END_TURN, "ok", NULL, "{\"player\":\"p1\",\"turn\":2,\"ambush\":{\"p1\":\"due\","
      "\"p2\":\"due\"}}", 0, "ambush_due", 0, 0 },
    { "referee", SETTLE_VP(1, 1), "wrong_phase", 0, 0, 0, 0, 0, 0 },
    { "p1", "{\"type\":\"offer_end\",\"result\":\"p2\"}", "ok", 0, 0, 0, 0, 0, 0 },
    /* 7: an agreed end: the victory phase */
    { "p2", "{\"type\":\"accept_end\"}", "ok", NULL, "{\"phase\":\"victory\",\"decided\":"
      "\"p2\",\"winner\":null}", 0, "battle_over", "p2", 0 },
    { "referee", VP(900, 1400), "not_your_turn", 0, 0, 0, 0, 0, 0 },
    { "referee", SETTLE_VP(900, 1400), "not_disputed", 0, 0, 0, 0, 0, 0 },
    { "p1", VP(900, 1400), "ok", 0, 0, 0, 0, 0, 0 },
    { "referee", SETTLE_VP(900, 1400), "not_disputed", 0, 0, 0, 0, 0, 0 },
    /* 12: unequal reports: the referee settles */
    { "p2", VP(800, 1400), "ok", "referee", "{\"phase\":\"victory\",\"vp_reports\":{\"p1\":"
      "{\"p1\":900},\"p2\":{\"p1\":800}}}", 0, "vp_disputed", 0, 0 },
    { "p1", SETTLE_VP(850, 1400), "not_your_turn", 0, 0, 0, 0, 0, 0 },
    { "referee", SETTLE_VP(850, 1000001), "bad_vp", 0, 0, 0, 0, 0, 0 },
    { "referee", SETTLE_VP(850, 1400), "ok", "p1", "{\"phase\":\"over\",\"winner\":\"p2\","
      "\"victory_points\":{\"p1\":850,\"p2\":1400},\"vp_reports\":{\"p1\":{\"p1\":900},\"p2\":"
      "{\"p1\":800}}}", 0, "victory_points_agreed", 0, 0 },
    { "referee", SETTLE_VP(850, 1400), "game_over", 0, 0, 0, 0, 0, 0 },
};

static void test_end_with_referee(void **state)
{
    (void)state;
    struct faces dice = { faces_end2, (int)(sizeof faces_end2 / sizeof faces_end2[0]) };
    struct wr_host host;
    struct wr_game *g = new_game(END2_OPTIONS, &dice, &host);
    json_t *history = json_array();
    play(g, end2, 10, history);
    assert_awaiting(g, "p2:victory_points");
    play(g, end2 + 10, 2, history);
    assert_awaiting(g, "p1:victory_points p2:victory_points referee:settle_points");
    assert_null(g->rs->result(g));
    play(g, end2 + 12, sizeof end2 / sizeof end2[0] - 12, history);
    assert_string_equal(g->rs->result(g), "p2");
    replay_equal(g, END2_OPTIONS, &dice, history);
    json_decref(history);
    g->rs->destroy(g);
}

/* p1 holds the ambush and takes the first turn (5, 2): due at the start. */
static const struct step end3[] = {
    { "p1", P1_PART2, "ok", 0, 0, 0, 0, 0, 0 },
    { "p2", P2_ROSTER, "ok", 0, 0, 0, 0, 0, 0 },
    { "p2", "{\"type\":\"start\"}", "ok", "p2", "{\"player\":\"p1\",\"turn\":1,\"ambush\":"
      "{\"p1\":\"due\"}}", "ambush.p2", "ambush_due", 0, 0 },
    { "p1", END_TURN, "ok", NULL, "{\"player\":\"p2\",\"ambush\":{\"p1\":\"due\"}}",
      "ambush.p2", 0, 0, 0 },
};

static void test_ambush_first_player(void **state)
{
    (void)state;
    play_table("{\"ambush\":[\"p1\"]}", faces_end1,
               (int)(sizeof faces_end1 / sizeof faces_end1[0]), end3, sizeof end3 / sizeof end3[0]);
}

/* A roster's crew, mount and thrusting spears (B1, B15): kept and shown,
 * never counted as models; bad values refused with bad_roster. */
static void test_roster_equipment(void **state)
{
    (void)state;
    static const struct { const char *unit, *code; } rows[] = {
        { "{\"name\":\"X\",\"kind\":\"chariot\",\"models\":1,\"crew\":21}", "bad_roster" },
        { "{\"name\":\"X\",\"kind\":\"chariot\",\"models\":1,\"crew\":-1}", "bad_roster" },
        { "{\"name\":\"X\",\"kind\":\"character\",\"models\":1,\"mounted\":1}", "bad_roster" },
        { "{\"name\":\"X\",\"kind\":\"infantry\",\"models\":1,\"thrusting_spears\":\"yes\"}",
          "bad_roster" },
        { "{\"name\":\"Chariots\",\"kind\":\"chariot\",\"models\":3,\"crew\":2}", "ok" },
        { "{\"name\":\"Hero\",\"kind\":\"character\",\"models\":1,\"mounted\":true}", "ok" },
        { "{\"name\":\"Lancers\",\"kind\":\"cavalry\",\"models\":8,"
          "\"thrusting_spears\":true}", "ok" },
    };
    const struct wr_ruleset *rs = wr_ruleset_find("battle");
    struct wr_refusal why = { 0, NULL, "" };
    struct wr_game *g = rs->create(NULL, NULL, "t", NULL, NULL, &why);
    assert_non_null(g);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char text[512];
        snprintf(text, sizeof text, "{\"type\":\"roster\",\"units\":[%s],\"last\":%s}",
                 rows[i].unit, i + 1 == sizeof rows / sizeof rows[0] ? "true" : "false");
        json_t *cmd = json_loads(text, 0, NULL), *ev = NULL;
        assert_non_null(cmd);
        memset(&why, 0, sizeof why);
        int rc = rs->apply(g, "p1", cmd, &ev, &why);
        if (strcmp(rows[i].code, "ok") == 0) {
            if (rc != 0)
                fail_msg("row %zu refused: %s", i + 1, why.message);
        } else {
            assert_int_not_equal(rc, 0);
            assert_string_equal(why.code, rows[i].code);
        }
        json_decref(ev);
        json_decref(cmd);
    }
    json_t *p = rs->project(g, "p1");
    json_t *units = json_object_get(json_object_get(json_object_get(p, "sides"), "p1"), "units");
    assert_int_equal(json_array_size(units), 3);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(units, 0), "crew")), 2);
    assert_true(json_is_true(json_object_get(json_array_get(units, 1), "mounted")));
    assert_true(json_is_true(json_object_get(json_array_get(units, 2), "thrusting_spears")));
    assert_true(json_is_false(json_object_get(json_array_get(units, 0), "thrusting_spears")));
    /* 3 chariots with crews, a mounted hero, 8 lancers: 12 models (B15) */
    assert_int_equal(json_integer_value(json_object_get(json_object_get(json_object_get(p,
                     "sides"), "p1"), "start_models")), 12);
    json_decref(p);
    rs->destroy(g);
}

/* The options campaign and ambush: accepted, shown as given to every
 * view; refused with bad_options and a sentence. */
static void test_campaign_options(void **state)
{
    (void)state;
    const struct wr_ruleset *rs = wr_ruleset_find("battle");
    /* A campaign of exactly 4096 bytes as compact JSON, and one of 4097. */
    char fit[4200], over[4200];
    int pad = 4096 - (int)strlen("{\"game_text\":\"\"}");
    snprintf(fit, sizeof fit, "{\"campaign\":{\"game_text\":\"%0*d\"}}", pad, 0);
    snprintf(over, sizeof over, "{\"campaign\":{\"game_text\":\"%0*d\"}}", pad + 1, 0);
    static const char *const bad[] = {
        "{\"campaign\":[]}", "{\"campaign\":\"Open battle\"}", "{\"campaign\":null}",
        "{\"ambush\":\"p1\"}", "{\"ambush\":[\"p3\"]}", "{\"ambush\":[1]}",
        "{\"ambush\":[\"p1\",\"p1\"]}", "{\"ambush\":[\"referee\"]}", NULL,
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *text = bad[i] ? bad[i] : over;
        json_t *o = json_loads(text, 0, NULL);
        assert_non_null(o);
        struct wr_refusal why = { 0, NULL, "" };
        struct wr_game *g = rs->create(NULL, o, "t", NULL, NULL, &why);
        if (g != NULL)
            fail_msg("options %.80s accepted", text);
        assert_string_equal(why.code, "bad_options");
        assert_true(why.message[0] != '\0');
        json_decref(o);
    }
    static const char *const good[] = {
        END1_OPTIONS, "{\"ambush\":[]}", "{\"campaign\":{}}", "{\"campaign\":{\"b\":1,"
        "\"a\":[1.5,null,{\"x\":\"\\u00e9\"}]},\"ambush\":[\"p2\",\"p1\"]}", NULL,
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        const char *text = good[i] ? good[i] : fit;
        json_t *o = json_loads(text, 0, NULL);
        assert_non_null(o);
        struct wr_refusal why = { 0, NULL, "" };
        struct wr_game *g = rs->create(NULL, o, "t", NULL, NULL, &why);
        if (g == NULL)
            fail_msg("options %.80s refused: %s", text, why.message);
        json_t *given = json_object_get(o, "campaign");
        char *want = given ? json_dumps(given, JSON_COMPACT) : NULL;
        static const char *const views[] = { "p1", "p2", NULL };
        for (int v = 0; v < 3; v++) {
            json_t *p = rs->project(g, views[v]);
            json_t *c = json_object_get(p, "campaign");
            if (given == NULL) {
                assert_true(json_is_null(c));
            } else {
                /* As given: equal, and the same text, its keys in their order. */
                char *got = json_dumps(c, JSON_COMPACT);
                assert_true(json_equal(given, c));
                assert_string_equal(got, want);
                free(got);
            }
            assert_int_equal(json_object_size(json_object_get(p, "ambush")),
                             json_array_size(json_object_get(o, "ambush")));
            json_decref(p);
        }
        free(want);
        json_decref(o);
        rs->destroy(g);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_game_with_referee),
        cmocka_unit_test(test_game_without_referee),
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_end_without_referee),
        cmocka_unit_test(test_end_with_referee),
        cmocka_unit_test(test_ambush_first_player),
        cmocka_unit_test(test_campaign_options),
        cmocka_unit_test(test_roster_equipment),
        cmocka_unit_test(test_combat_commands),
        cmocka_unit_test(test_combat_dispute_dice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
