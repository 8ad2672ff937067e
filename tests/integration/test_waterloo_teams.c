#define _GNU_SOURCE
/*
 * test_waterloo_teams.c - Waterloo with two commanders a side over the wire
 * (docs/rules-notes.md, "Team play"): a real warroomd on 127.0.0.1, the
 * commanders Napoleon, Wellington and Blucher each a `warroom` terminal
 * client with its own HOME, Ney a protocol client of his own (wsclient.h),
 * and a spectator watching every patch:
 *   - orders for another commander's unit are refused with not_your_command,
 *     by the client's own check and, sent unchecked, by the server;
 *   - the French movement phase ends only when both its commanders have
 *     ended it, and a commander who ended it is not awaited any more;
 *   - Napoleon's cavalry rides onto Blucher's HQ (an HQ never delays the
 *     enemy: it is eliminated), Blucher is out (his seat's orders refused
 *     with commander_out, never awaited) and his Prussians pass to
 *     Wellington, who moves one;
 *   - the spectator sees who did what: each patch names the seat whose
 *     command it was, and the events say which HQ fell and who is out;
 *   - the lobby lists the four commanders' seats, and the exported record
 *     names the rules version and the commanders and replays.
 *
 * The scenario is waterloo-1815 itself (its map, order of battle, command
 * structure and set-up) with two changes the test writes into the server's
 * scenario directory: play starts with the French movement of turn 1, and
 * Blucher's HQ stands at II-13, next to Vandamme's III Corps at JJ-13 (the
 * Prussian zone takes in that square), so that one move reaches it.
 *
 * Every wait has a deadline: a client command has WT_CLIENT_MS, a protocol
 * message T ms.
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
#include <sys/stat.h>

#include "player.h"
#include "wsclient.h"

#define T WT_CLIENT_MS

static const char *const scenario_name = "waterloo-1815-contact";

/* waterloo-1815 with play starting at the French movement of turn 1 and
 * Blucher's HQ at II-13, written as dir/waterloo-1815-contact.json. */
static void write_scenario(const char *dir)
{
    json_error_t jerr;
    json_t *sc = json_load_file(WARROOM_SCENARIO_DIR "/waterloo-1815/scenario.json", 0, &jerr);
    if (sc == NULL)
        fail_msg("waterloo-1815: %s", jerr.text);
    json_object_set_new(sc, "name", json_string("Waterloo 1815, Blucher's HQ in reach (test)"));
    json_object_set_new(sc, "start", json_pack("{s:i, s:s}", "turn", 1, "phase", "french_move"));
    size_t i;
    json_t *u;
    int found = 0;
    json_array_foreach(json_object_get(sc, "units"), i, u) {
        if (strcmp(json_string_value(json_object_get(u, "id")), "pr-hq-blucher") == 0) {
            json_object_set_new(u, "at", json_string("II-13"));
            found = 1;
        }
    }
    assert_true(found);
    json_t *zone = json_object_get(json_object_get(sc, "setup_zones"), "prussian");
    assert_true(json_is_array(zone));
    json_array_append_new(zone, json_string("II-13"));
    char path[512];
    snprintf(path, sizeof path, "%s/%s.json", dir, scenario_name);
    assert_int_equal(json_dump_file(sc, path, JSON_INDENT(1)), 0);
    json_decref(sc);
}

/* The server with that scenario directory; f->root holds it and the homes. */
static void start(struct wt_fixture *f, char *scen, size_t len)
{
    memset(f, 0, sizeof *f);
    const char *tmp = getenv("TMPDIR");
    snprintf(f->root, sizeof f->root, "%s/warroom-teams-XXXXXX", tmp ? tmp : "/tmp");
    assert_non_null(mkdtemp(f->root));
    snprintf(scen, len, "%s/scenarios", f->root);
    assert_int_equal(mkdir(scen, 0700), 0);
    write_scenario(scen);
    const char *const args[] = { "--scenarios", scen, NULL };
    assert_true(wt_server_start(&f->s, args) >= 0);
    snprintf(f->url, sizeof f->url, "ws://127.0.0.1:%d/", f->s.port);
}

/* A protocol client's next message of type; fails after T ms. */
static json_t *expect(struct wt_client *c, const char *type)
{
    json_t *m = wt_expect(c, type, T);
    if (m == NULL)
        fail_msg("%s: no '%s' within %d ms", c->name, type, T);
    return m;
}

/* Ney (a protocol client) sends cmd (stolen) with seq; the answer. */
static json_t *ney_sends(struct wt_client *ney, const char *game, int seq, json_t *cmd)
{
    assert_int_equal(wt_send(ney, "{s:s, s:s, s:i, s:o}", "type", "command", "game", game, "seq",
                             seq, "cmd", cmd),
                     0);
    for (;;) {
        json_t *m = wt_next(ney, T);
        if (m == NULL)
            fail_msg("ney: no answer to command %d within %d ms", seq, T);
        const char *t = str(m, "type");
        if ((strcmp(t, "ack") == 0 || strcmp(t, "error") == 0) &&
            json_integer_value(json_object_get(m, "seq")) == seq)
            return m;
        json_decref(m);         /* patches: ney's own view, not looked at here */
    }
}

/* The spectator's next patch: made by seat `by`; its events (new reference). */
static json_t *spectator_sees(struct wt_client *spec, const char *by)
{
    json_t *p = expect(spec, "patch");
    if (strcmp(str(p, "by"), by) != 0)
        fail_msg("the spectator's patch is by '%s', want '%s'", str(p, "by"), by);
    json_t *ev = json_incref(json_object_get(p, "events"));
    json_decref(p);
    return ev;
}

/* The first event of type in evs, or NULL. */
static const json_t *event_of(const json_t *evs, const char *type)
{
    size_t i;
    const json_t *e;
    json_array_foreach(evs, i, e)
        if (strcmp(str(e, "type"), type) == 0)
            return e;
    return NULL;
}

/* The seats the game awaits, as the spectator's state has them, "a,b". */
static void awaited(struct wt_client *spec, char *buf, size_t len)
{
    const char *seat;
    json_t *what;
    buf[0] = '\0';
    json_object_foreach(json_object_get(json_object_get(spec->state, "server"), "awaiting"),
                        seat, what) {
        size_t n = strlen(buf);
        snprintf(buf + n, len - n, "%s%s", n ? "," : "", seat);
    }
}

#define EXPECT_AWAITED(spec, want)                                                        \
    do {                                                                                  \
        char got_[256];                                                                   \
        awaited((spec), got_, sizeof got_);                                               \
        if (strcmp(got_, (want)) != 0)                                                    \
            fail_msg("awaited: '%s', want '%s'", got_, (want));                            \
    } while (0)

static const char *phase_of(struct wt_client *spec)
{
    return str(spec->state, "phase");
}

static void test_two_commanders_a_side(void **state)
{
    (void)state;
    struct wt_fixture f;
    char scen[300];
    start(&f, scen, sizeof scen);
    struct player napoleon, wellington, blucher;
    player_init(&napoleon, &f, "napoleon");
    player_init(&wellington, &f, "wellington");
    player_init(&blucher, &f, "blucher");

    /* 1) Napoleon creates a game of two commanders a side: four seats, an
     *    invite for each of the other three. */
    json_t *cr = run_json(&napoleon, 0, "new", "--ruleset", "waterloo", "--scenario",
                          scenario_name, "--option", "commanders=2", NULL);
    assert_string_equal(str(cr, "seat"), "french:napoleon");
    char game[64];
    snprintf(game, sizeof game, "%s", str(cr, "game"));
    json_t *inv = json_object_get(cr, "invites");
    assert_int_equal(json_object_size(inv), 3);
    json_t *cl = run_json(&wellington, 0, "claim", str(inv, "allied:wellington"), NULL);
    assert_string_equal(str(cl, "seat"), "allied:wellington");
    json_decref(cl);
    cl = run_json(&blucher, 0, "claim", str(inv, "allied:blucher"), NULL);
    assert_string_equal(str(cl, "seat"), "allied:blucher");
    json_decref(cl);
    struct wt_client ney, spec;
    assert_int_equal(wt_open(&ney, "ney", f.s.port), 0);
    assert_int_equal(wt_send(&ney, "{s:s, s:s}", "type", "claim", "invite",
                             str(inv, "french:ney")),
                     0);
    json_t *m = expect(&ney, "claimed");
    assert_string_equal(str(m, "seat"), "french:ney");
    json_decref(m);
    json_decref(cr);
    assert_int_equal(wt_open(&spec, "spectator", f.s.port), 0);
    assert_int_equal(wt_send(&spec, "{s:s, s:s, s:b}", "type", "join", "game", game, "spectate",
                             1),
                     0);
    m = expect(&spec, "state");
    assert_true(json_is_null(json_object_get(m, "seat")));
    assert_string_equal(str(m, "status"), "running");
    json_decref(m);
    assert_string_equal(phase_of(&spec), "french_move");
    EXPECT_AWAITED(&spec, "french:napoleon,french:ney");

    /* 2) The lobby lists the four commanders' seats, all taken. */
    assert_int_equal(wt_send(&spec, "{s:s}", "type", "list"), 0);
    m = expect(&spec, "games");
    size_t gi;
    json_t *row;
    int listed = 0;
    json_array_foreach(json_object_get(m, "games"), gi, row) {
        if (strcmp(str(row, "game"), game) != 0)
            continue;
        json_t *seats = json_object_get(row, "seats");
        assert_int_equal(json_object_size(seats), 4);
        assert_string_equal(str(seats, "french:ney"), "taken");
        assert_string_equal(str(seats, "allied:blucher"), "taken");
        listed = 1;
    }
    assert_true(listed);
    json_decref(m);

    /* 3) Orders for another commander's unit: Pire's cavalry is Ney's (II
     *    Corps, the left wing), Domon's Napoleon's (III Corps, the right
     *    wing, his with two commanders a side). */
    EXPECT(&napoleon, 1, "refused (checked here, not sent): not_your_command", "do", game,
           "move fr-ii-pire KK-21");
    EXPECT(&napoleon, 1, "refused by the server: not_your_command", "do", "--no-check", game,
           "{\"type\":\"move\",\"unit\":\"fr-ii-pire\",\"path\":[\"KK-21\"]}");
    m = ney_sends(&ney, game, 1, json_pack("{s:s, s:s, s:[s]}", "type", "move", "unit",
                                           "fr-iii-domon", "path", "II-13"));
    assert_string_equal(str(m, "type"), "error");
    assert_string_equal(str(m, "code"), "not_your_command");
    json_decref(m);

    /* 4) Ney moves his own unit; the spectator sees that Ney did it. */
    m = ney_sends(&ney, game, 2, json_pack("{s:s, s:s, s:[s]}", "type", "move", "unit",
                                           "fr-ii-pire", "path", "KK-21"));
    assert_string_equal(str(m, "type"), "ack");
    json_decref(m);
    json_t *evs = spectator_sees(&spec, "french:ney");
    const json_t *moved = event_of(evs, "moved");
    assert_non_null(moved);
    assert_string_equal(json_string_value(json_array_get(json_object_get(moved, "units"), 0)),
                        "fr-ii-pire");
    json_decref(evs);

    /* 5) Ney ends the phase: it goes on until Napoleon ends it too, and
     *    Ney, who has ended it, is no longer awaited and may not move. */
    m = ney_sends(&ney, game, 3, json_pack("{s:s}", "type", "end_phase"));
    assert_string_equal(str(m, "type"), "ack");
    json_decref(m);
    evs = spectator_sees(&spec, "french:ney");
    json_decref(evs);
    assert_string_equal(phase_of(&spec), "french_move");
    EXPECT_AWAITED(&spec, "french:napoleon");
    m = ney_sends(&ney, game, 4, json_pack("{s:s, s:s, s:[s]}", "type", "move", "unit",
                                           "fr-ii-bachelu", "path", "KK-21"));
    assert_string_equal(str(m, "type"), "error");
    json_decref(m);

    /* 6) Napoleon's cavalry rides onto Blucher's HQ: it is eliminated,
     *    Blucher is out and his units pass to Wellington. */
    EXPECT(&napoleon, 0, "accepted: game", "do", game, "move fr-iii-domon II-13");
    evs = spectator_sees(&spec, "french:napoleon");
    const json_t *gone = event_of(evs, "eliminated");
    const json_t *out = event_of(evs, "commander_out");
    assert_non_null(gone);
    assert_string_equal(str(gone, "unit"), "pr-hq-blucher");
    assert_non_null(out);
    assert_string_equal(str(out, "seat"), "allied:blucher");
    assert_string_equal(str(out, "to"), "allied:wellington");
    assert_true(json_array_size(json_object_get(out, "units")) > 10);
    json_decref(evs);
    json_t *treskow = json_object_get(json_object_get(spec.state, "units"), "pr-i-treskow");
    assert_string_equal(str(treskow, "commander"), "allied:wellington");

    /* 7) Napoleon ends the French movement: both French commanders have
     *    ended it, and nothing is in contact, so play goes to the allies,
     *    of whom only Wellington is awaited. */
    EXPECT(&napoleon, 0, "accepted: game", "do", game, "end");
    evs = spectator_sees(&spec, "french:napoleon");
    json_decref(evs);
    assert_string_equal(phase_of(&spec), "allied_move");
    EXPECT_AWAITED(&spec, "allied:wellington");

    /* 8) Blucher is out: his orders are refused whatever they are. */
    EXPECT(&blucher, 1, "refused by the server: commander_out", "do", "--no-check", game,
           "{\"type\":\"end_phase\"}");

    /* 9) Wellington commands Blucher's Prussians now. */
    EXPECT(&wellington, 0, "accepted: game", "do", game, "move pr-i-treskow DD-12");
    evs = spectator_sees(&spec, "allied:wellington");
    assert_non_null(event_of(evs, "moved"));
    json_decref(evs);
    EXPECT(&wellington, 0, "accepted: game", "do", game, "end");
    evs = spectator_sees(&spec, "allied:wellington");
    json_decref(evs);
    assert_string_equal(phase_of(&spec), "french_move");
    assert_int_equal(json_integer_value(json_object_get(spec.state, "turn")), 2);
    EXPECT_AWAITED(&spec, "french:napoleon,french:ney");

    /* 10) The record names the rules version and the commanders, and
     *     replays with every command accepted. */
    struct result r = run(&wellington, "export", game, NULL);
    assert_int_equal(r.rc, 0);
    json_t *head = json_loadb(r.out, strcspn(r.out, "\n"), 0, NULL);
    assert_non_null(head);
    json_t *opts = json_object_get(head, "options");
    assert_int_equal(json_integer_value(json_object_get(opts, "rules")), 2);
    assert_int_equal(json_integer_value(json_object_get(opts, "commanders")), 2);
    json_decref(head);
    char path[400];
    snprintf(path, sizeof path, "%s/teams.ndjson", f.root);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(r.out, fp);
    fclose(fp);
    result_free(&r);
    EXPECT(&wellington, 0, "record checked: ", "replay", path);

    wt_close(&ney);
    wt_close(&spec);
    wt_fixture_stop(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_commanders_a_side),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
