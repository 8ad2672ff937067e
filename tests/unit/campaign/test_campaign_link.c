/*
 * test_campaign_link.c - the campaign's battles as linked games
 * (common/rulesets/campaign/campaign_link.c, ruleset.h version 4), against
 * readings C15-C17 of docs/rules-notes.md: when a battle game may be made
 * and by whom, its key, seats and options (the campaign's keys over the
 * creator's, the ambush sides), and what the battle's events become in the
 * campaign: ambush_due -> reveal_ambush, victory_points_agreed -> both
 * reports and the 250-point rule (C11), nothing for another attack's key.
 *
 * Rows are numbered so a failure names its row. The campaign is played
 * through wr_campaign_apply(); where a test needs given dice it moves the
 * game's roll counter to a k whose faces are the ones wanted.
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

#include "campaign.h"
#include "campaign_testdata.h"
#include "dice.h"

static const uint8_t SEED[32] = { 7, 1, 8, 1, 5, 0, 6, 1, 8, 9, 9, 9, 1, 2, 3, 4,
                                  5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 };

static struct wr_campaign *make(const char *opts_text)
{
    struct wr_campaign_map map;
    struct wr_refusal why = { WR_CR_OK, "ok", "" };
    json_t *m = ct_jq(CT_GRID6);
    if (wr_campaign_map_load(&map, m, &why) != 0)
        fail_msg("test map: %s", why.message);
    json_decref(m);
    json_t *o = ct_jq(opts_text);
    struct wr_campaign *c = wr_campaign_new(&map, o, "g-link", SEED, NULL, &why);
    json_decref(o);
    if (c == NULL)
        fail_msg("test options %s: %s", opts_text, why.message);
    return c;
}

static json_t *apply_ok(struct wr_campaign *c, const char *seat, const json_t *cmd, int row)
{
    struct wr_refusal why = { WR_CR_OK, "ok", "" };
    json_t *ev = NULL;
    enum wr_campaign_reason r = wr_campaign_apply(c, seat, cmd, &ev, &why);
    if (r != WR_CR_OK) {
        char *t = json_dumps(cmd, JSON_COMPACT);
        fail_msg("row %d: %s from %s refused: %s", row, t, seat, why.message);
    }
    struct wr_refusal broken;
    if (wr_campaign_check(c, &broken) != 0)
        fail_msg("row %d: %s", row, broken.message);
    return ev;
}

static void ok(struct wr_campaign *c, const char *seat, const char *text, int row)
{
    json_t *cmd = ct_jq(text);
    json_decref(apply_ok(c, seat, cmd, row));
    json_decref(cmd);
}

/* The first roll k from c->rolls at which na attacker and nd defender dice
 * give the winner side more sixes and its strategy roll is face. */
static uint32_t find_k(const struct wr_campaign *c, int na, int nd, int winner, int face)
{
    for (uint32_t k = c->rolls; k < c->rolls + 500000; k++) {
        int sa = 0, sd = 0;
        for (int i = 0; i < na + nd; i++) {
            int f = wr_dice_roll(c->seed, c->game_id, k + (uint32_t)i);
            if (i < na)
                sa += f == 6;
            else
                sd += f == 6;
        }
        int w = sa > sd ? 0 : sd > sa ? 1 : -1;
        if (w == winner && wr_dice_roll(c->seed, c->game_id, k + (uint32_t)(na + nd)) == face)
            return k;
    }
    fail_msg("no k gives these faces");
    return 0;
}

/* p1 A E, p2 B C, p3 D F. p1 attacks B, p2 puts A at stake, p1 wins the
 * strategy dice and rolls a 2 (a Hidden Ambush Force); the note is sealed
 * when seal; both choose attack: an open battle. */
static struct wr_campaign *arranged(const char *opts, int seal)
{
    struct wr_campaign *c = make(opts);
    const char *owners = "122313";
    for (int t = 0; t < c->map.ntowns; t++)
        c->owner[t] = owners[t] - '1';
    c->phase = WR_CP_ATTACK;
    c->first = 0;
    c->active = 0;
    c->turn = 1;
    memset(&c->at, 0, sizeof c->at);
    ok(c, "p1", "{'type':'attack','target':'B'}", 0);
    c->rolls = find_k(c, 2, 2, 0, 2);
    ok(c, "p2", "{'type':'counter','town':'A'}", 0);
    assert_int_equal(c->at.note[0].needed, 1);
    if (seal)
        ok(c, "p1", "{'type':'seal_ambush','note':'Cavalry in the wood north of E'}", 0);
    ok(c, "p1", "{'type':'tactic','choice':'attack'}", 0);
    assert_int_equal(c->phase, WR_CP_TACTICS);
    ok(c, "p2", "{'type':'tactic','choice':'attack'}", 0);
    assert_int_equal(c->phase, WR_CP_BATTLE);
    return c;
}

static json_t *child(struct wr_campaign *c, const char *seat, const char *ruleset,
                     const char *opts, struct wr_refusal *why)
{
    json_t *o = opts ? ct_jq(opts) : NULL;
    *why = (struct wr_refusal){ WR_CR_OK, "ok", "" };
    json_t *r = wr_ruleset_campaign.child(&c->base, seat, ruleset, o, why);
    json_decref(o);
    return r;
}

static void child_refused(struct wr_campaign *c, const char *seat, const char *ruleset,
                          enum wr_campaign_reason want, int row)
{
    struct wr_refusal why;
    json_t *before = wr_campaign_project(c, NULL);
    json_t *r = child(c, seat, ruleset, NULL, &why);
    if (r != NULL)
        fail_msg("row %d: a child for %s of %s was not refused", row, seat, ruleset);
    if ((enum wr_campaign_reason)why.reason != want)
        fail_msg("row %d: refused with %s (%s), want %s", row, why.code, why.message,
                 wr_campaign_reason_code(want));
    assert_true(why.message[0] != '\0');
    json_t *after = wr_campaign_project(c, NULL);
    assert_true(json_equal(before, after));         /* the hook only reads */
    json_decref(before);
    json_decref(after);
}

static void same_json(const json_t *got, const char *want_text, int row)
{
    json_t *want = ct_jq(want_text);
    if (!json_equal(got, want)) {
        char *g = json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS);
        char *w = json_dumps(want, JSON_COMPACT | JSON_SORT_KEYS);
        fail_msg("row %d:\n got %s\nwant %s", row, g, w);
    }
    json_decref(want);
}

static json_t *events_of(struct wr_campaign *c, const char *key, const char *events_text)
{
    json_t *ev = ct_jq(events_text);
    json_t *r = wr_ruleset_campaign.child_events(&c->base, key, ev);
    json_decref(ev);
    assert_non_null(r);
    assert_true(json_is_array(r));
    return r;
}

/* Apply each {seat, command} of cmds to c; the events of all, in order. */
static json_t *apply_all(struct wr_campaign *c, const json_t *cmds, int row)
{
    json_t *all = json_array();
    size_t i;
    json_t *x;
    json_array_foreach(cmds, i, x) {
        json_t *ev = apply_ok(c, json_string_value(json_object_get(x, "seat")),
                              json_object_get(x, "command"), row);
        json_array_extend(all, ev);
        json_decref(ev);
    }
    return all;
}

static const json_t *event_of(const json_t *events, const char *type)
{
    size_t i;
    json_t *e;
    json_array_foreach(events, i, e)
        if (strcmp(json_string_value(json_object_get(e, "type")), type) == 0)
            return e;
    return NULL;
}

/* C15: who may make the battle's game, when, of which ruleset. */
static void test_child_refusals(void **state)
{
    (void)state;
    struct wr_campaign *c = make("{'players':3,'referee':true}");
    /* 1) no attack at all: the draft has not even started */
    child_refused(c, "p1", "battle", WR_CR_NO_BATTLE, 1);
    wr_campaign_free(c);

    c = arranged("{'players':3,'referee':true}", 1);
    /* 2) another ruleset */
    child_refused(c, "p1", "waterloo", WR_CR_BATTLE_RULESET, 2);
    child_refused(c, "p1", "campaign", WR_CR_BATTLE_RULESET, 3);
    /* 3) the bystander p3 */
    child_refused(c, "p3", "battle", WR_CR_NOT_IN_BATTLE, 4);
    /* 4) once the battle is reported the attack is over: nothing to play */
    ok(c, "p1", "{'type':'report','attacker':1000,'defender':1000}", 5);
    ok(c, "p2", "{'type':'report','attacker':1000,'defender':1000}", 5);
    assert_int_not_equal(c->phase, WR_CP_BATTLE);
    child_refused(c, "p1", "battle", WR_CR_NO_BATTLE, 6);
    wr_campaign_free(c);
}

/* C15, C16: the key, the seats, the options over the creator's. */
static void test_child_options(void **state)
{
    (void)state;
    struct wr_campaign *c = arranged("{'players':3,'referee':true}", 1);
    struct wr_refusal why;
    /* 7) the attacker, with options of its own: the campaign's keys win,
     *    the others are kept */
    json_t *r = child(c, "p1", "battle", "{'points':5,'referee':false,'p1_elephants':'know',"
                                         "'spectators':true}", &why);
    if (r == NULL)
        fail_msg("row 7: %s", why.message);
    same_json(r, "{'key':'attack-1',"
                 " 'options':{'points':1000,'referee':true,'p1_elephants':'know',"
                 "  'spectators':true,'ambush':['p1'],"
                 "  'campaign':{'game_text':'Open battle','target':'B','attacker':'p1',"
                 "   'defender':'p2','strategies':[{'seat':'p1','strategy':'hidden_ambush'}],"
                 "   'attack':1}},"
                 " 'seats':{'p1':'p1','p2':'p2','referee':'referee'}}", 7);
    json_decref(r);
    /* 8) the defender and the referee get the same answer without options */
    for (int i = 0; i < 2; i++) {
        r = child(c, i ? "referee" : "p2", "battle", NULL, &why);
        if (r == NULL)
            fail_msg("row 8: %s", why.message);
        json_t *o = json_object_get(r, "options");
        assert_string_equal(json_string_value(json_object_get(r, "key")), "attack-1");
        assert_int_equal(json_integer_value(json_object_get(o, "points")), 1000);
        assert_false(json_object_get(o, "p1_elephants") != NULL);
        json_decref(r);
    }
    wr_campaign_free(c);

    /* 9) no referee: no referee seat, referee false even when asked; a note
     *    not yet sealed gives no ambush side (C16) */
    c = arranged("{'players':3}", 0);
    r = child(c, "p2", "battle", "{'referee':true}", &why);
    if (r == NULL)
        fail_msg("row 9: %s", why.message);
    same_json(json_object_get(r, "seats"), "{'p1':'p1','p2':'p2'}", 9);
    assert_true(json_is_false(json_object_get(json_object_get(r, "options"), "referee")));
    same_json(json_object_get(json_object_get(r, "options"), "ambush"), "[]", 9);
    json_decref(r);
    /* 10) the referee seat does not exist here */
    child_refused(c, "referee", "battle", WR_CR_NOT_IN_BATTLE, 10);
    wr_campaign_free(c);
}

/* C16: ambush_due -> reveal_ambush from the ambusher, once. */
static void test_child_events_ambush(void **state)
{
    (void)state;
    struct wr_campaign *c = arranged("{'players':3,'referee':true}", 1);
    /* 11) p2 has no note; a battle event of no meaning; another key */
    json_t *r = events_of(c, "attack-1", "[{'type':'ambush_due','side':'p2'},"
                                          "{'type':'fact','side':'p1','unit':'Spears',"
                                          "'fact':'terrain','value':'hill'}]");
    same_json(r, "[]", 11);
    json_decref(r);
    r = events_of(c, "attack-7", "[{'type':'ambush_due','side':'p1'}]");
    same_json(r, "[]", 12);
    json_decref(r);
    /* 13) p1's: the campaign reveals the note, from p1's seat */
    r = events_of(c, "attack-1", "[{'type':'ambush_due','side':'p1'}]");
    same_json(r, "[{'seat':'p1','command':{'type':'reveal_ambush'}}]", 13);
    json_t *ev = apply_all(c, r, 13);
    const json_t *shown = event_of(ev, "ambush_revealed");
    assert_non_null(shown);
    assert_string_equal(json_string_value(json_object_get(shown, "note")),
                        "Cavalry in the wood north of E");
    assert_int_equal(c->at.note[0].revealed, 1);
    json_decref(ev);
    json_decref(r);
    /* 14) shown once: the same event again asks for nothing */
    r = events_of(c, "attack-1", "[{'type':'ambush_due','side':'p1'}]");
    same_json(r, "[]", 14);
    json_decref(r);
    wr_campaign_free(c);
}

/* C17 with C11: the agreed points become both reports; 250 or more takes
 * the town, less changes nothing. */
static void test_child_events_points(void **state)
{
    (void)state;
    static const struct {
        int row, p1, p2;
        int towns_change;
        const char *b_owner, *a_owner;      /* after the battle */
    } rows[] = {
        { 15, 1400, 1100, 1, "p1", "p1" },  /* the attacker by 300: takes the target B */
        { 16, 1100, 1000, 0, "p2", "p1" },  /* by 100: nothing changes */
        { 17, 900, 1150, 1, "p2", "p2" },   /* the defender by 250: takes A at stake */
        { 18, 1000, 1000, 0, "p2", "p1" },  /* a draw */
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct wr_campaign *c = arranged("{'players':3,'referee':true}", 1);
        char text[160];
        snprintf(text, sizeof text, "[{'type':'victory_points_agreed','p1':%d,'p2':%d}]",
                 rows[i].p1, rows[i].p2);
        json_t *r = events_of(c, "attack-1", text);
        snprintf(text, sizeof text, "[{'seat':'p1','command':{'type':'report','attacker':%d,"
                 "'defender':%d}},{'seat':'p2','command':{'type':'report','attacker':%d,"
                 "'defender':%d}}]", rows[i].p1, rows[i].p2, rows[i].p1, rows[i].p2);
        same_json(r, text, rows[i].row);
        json_t *ev = apply_all(c, r, rows[i].row);
        const json_t *res = event_of(ev, "battle_result");
        if (res == NULL)
            fail_msg("row %d: no battle_result", rows[i].row);
        assert_int_equal(json_integer_value(json_object_get(res, "attacker")), rows[i].p1);
        assert_int_equal(json_integer_value(json_object_get(res, "defender")), rows[i].p2);
        assert_int_equal(json_is_true(json_object_get(res, "towns_change")),
                         rows[i].towns_change);
        json_t *st = wr_campaign_project(c, NULL);
        json_t *towns = json_object_get(st, "towns");
        assert_string_equal(json_string_value(json_object_get(towns, "B")), rows[i].b_owner);
        assert_string_equal(json_string_value(json_object_get(towns, "A")), rows[i].a_owner);
        json_decref(st);
        json_decref(ev);
        json_decref(r);
        /* the attack is over: the same events now mean nothing */
        r = events_of(c, "attack-1", "[{'type':'victory_points_agreed','p1':1,'p2':2}]");
        same_json(r, "[]", rows[i].row);
        json_decref(r);
        wr_campaign_free(c);
    }
}

/* 19) a Hidden Ambush Force never written down: the reports the battle
 *     sends are refused by the campaign (C12's ambush_note_missing), which
 *     the host reports; the campaign is unchanged. */
static void test_child_events_note_missing(void **state)
{
    (void)state;
    struct wr_campaign *c = arranged("{'players':3,'referee':true}", 0);
    json_t *r = events_of(c, "attack-1", "[{'type':'victory_points_agreed','p1':1500,'p2':900}]");
    assert_int_equal((int)json_array_size(r), 2);
    struct wr_refusal why = { WR_CR_OK, "ok", "" };
    json_t *ev = NULL;
    json_t *x = json_array_get(r, 0);
    enum wr_campaign_reason got = wr_campaign_apply(
        c, json_string_value(json_object_get(x, "seat")), json_object_get(x, "command"), &ev, &why);
    assert_int_equal(got, WR_CR_AMBUSH_NOTE_MISSING);
    assert_int_equal(c->phase, WR_CP_BATTLE);
    json_decref(r);
    wr_campaign_free(c);
}

/* Rulesets without children leave both hooks NULL. */
static void test_other_rulesets(void **state)
{
    (void)state;
    for (int i = 0; wr_ruleset_at(i); i++) {
        const struct wr_ruleset *rs = wr_ruleset_at(i);
        assert_int_equal(rs->version, WR_RULESET_VERSION);
        assert_true((rs->child == NULL) == (rs->child_events == NULL));
        if (strcmp(rs->name, "campaign") != 0)
            assert_null(rs->child);
    }
    assert_non_null(wr_ruleset_campaign.child);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_child_refusals),
        cmocka_unit_test(test_child_options),
        cmocka_unit_test(test_child_events_ambush),
        cmocka_unit_test(test_child_events_points),
        cmocka_unit_test(test_child_events_note_missing),
        cmocka_unit_test(test_other_rulesets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
