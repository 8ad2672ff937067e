/*
 * test_campaign_rules.c - the campaign ruleset (common/rulesets/campaign/)
 * against the rules before "Counter charge" in
 * the campaign and battle rules (docs/sources.md) and docs/rules-notes.md
 * ("Campaign"): the map loader and its errors, the 25 cells of the tactics
 * table played out, the six strategy results, the draft, attack and
 * counter rules, the re-choice and round-limit rules, commitments, sealed
 * choices and ambush notes hidden from every other seat and spectators,
 * reports and disputes, the ends of a campaign, and whole random campaigns
 * checked against the invariants after every command.
 *
 * Rows are numbered so a failure names its row. Maps and commands are
 * written with single quotes and turned into JSON before use. Dice come
 * from the game's seed; where a test needs given faces it moves the game's
 * roll counter to a k whose faces are the ones wanted (found by search).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "campaign.h"
#include "campaign_testdata.h"
#include "dice.h"
#include "prng.h"

#if !defined(WARROOM_SCENARIO_DIR) || !defined(WARROOM_GOLDEN_DIR)
#error "WARROOM_SCENARIO_DIR and WARROOM_GOLDEN_DIR must name scenarios/ and tests/golden/"
#endif

static const uint8_t SEED[32] = { 7, 1, 8, 1, 5, 0, 6, 1, 8, 9, 9, 9, 1, 2, 3, 4,
                                  5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 };

/* A - B - C - D */
#define LINE4 "{'warroom':'scenario','version':1,'ruleset':'campaign','name':'Line',"   \
              "'towns':[{'name':'A','adjacent':['B']},{'name':'B','adjacent':['A','C']}," \
              "{'name':'C','adjacent':['B','D']},{'name':'D','adjacent':['C']}]}"

/* --- helpers ---------------------------------------------------------------- */

static struct wr_campaign *make(const char *map_text, const char *opts_text)
{
    struct wr_campaign_map map;
    struct wr_refusal why = { WR_CR_OK, "ok", "" };
    json_t *m = ct_jq(map_text);
    if (wr_campaign_map_load(&map, m, &why) != 0)
        fail_msg("test map: %s", why.message);
    json_decref(m);
    json_t *o = opts_text ? ct_jq(opts_text) : NULL;
    struct wr_campaign *c = wr_campaign_new(&map, o, "g-test", SEED, NULL, &why);
    json_decref(o);
    if (c == NULL)
        fail_msg("test options %s: %s", opts_text, why.message);
    return c;
}

static void invariants(const struct wr_campaign *c)
{
    struct wr_refusal why;
    if (wr_campaign_check(c, &why) != 0)
        fail_msg("%s", why.message);
}

/* Owners by town, in map order: '1'..'8' or '.' for free. */
static void own(struct wr_campaign *c, const char *owners)
{
    assert_int_equal((int)strlen(owners), c->map.ntowns);
    for (int t = 0; t < c->map.ntowns; t++)
        c->owner[t] = owners[t] == '.' ? -1 : owners[t] - '1';
}

/* Put c in the draft with player `active` to choose. */
static void to_draft(struct wr_campaign *c, int active)
{
    int owned = 0;
    for (int t = 0; t < c->map.ntowns; t++)
        owned += c->owner[t] >= 0;
    c->phase = WR_CP_DRAFT;
    c->active = active;
    c->first = ((active - owned) % c->nplayers + c->nplayers) % c->nplayers;
    invariants(c);
}

/* Put c in campaign turn 1 with player `active` to attack. */
static void to_attack(struct wr_campaign *c, int active)
{
    c->phase = WR_CP_ATTACK;
    c->first = 0;
    c->active = active;
    c->turn = 1;
    memset(&c->at, 0, sizeof c->at);
    invariants(c);
}

/* Apply text from seat: the reason; events kept in *events when asked. */
static enum wr_campaign_reason send(struct wr_campaign *c, const char *seat, const char *text,
                           json_t **events, struct wr_refusal *why)
{
    json_t *cmd = ct_jq(text), *ev = NULL;
    enum wr_campaign_reason r = wr_campaign_apply(c, seat, cmd, &ev, why);
    json_decref(cmd);
    if (r == WR_CR_OK) {
        assert_non_null(ev);
        invariants(c);
    } else {
        assert_null(ev);
    }
    if (events)
        *events = ev;
    else
        json_decref(ev);
    return r;
}

static json_t *ok_ev(struct wr_campaign *c, const char *seat, const char *text, int row)
{
    struct wr_refusal why = { WR_CR_OK, "ok", "" };
    json_t *ev = NULL;
    enum wr_campaign_reason r = send(c, seat, text, &ev, &why);
    if (r != WR_CR_OK)
        fail_msg("row %d: %s from %s refused: %s (%s)", row, text, seat, wr_campaign_reason_code(r),
                 why.message);
    return ev;
}

static void ok(struct wr_campaign *c, const char *seat, const char *text, int row)
{
    json_decref(ok_ev(c, seat, text, row));
}

static void refused(struct wr_campaign *c, const char *seat, const char *text,
                    enum wr_campaign_reason want, int row)
{
    struct wr_refusal why = { WR_CR_OK, "ok", "" };
    json_t *before = wr_campaign_project(c, "p1");
    enum wr_campaign_reason r = send(c, seat, text, NULL, &why);
    if (r != want)
        fail_msg("row %d: %s from %s gave %s (%s), want %s", row, text, seat,
                 wr_campaign_reason_code(r), why.message, wr_campaign_reason_code(want));
    /* A refusal leaves the game as it was. */
    json_t *after = wr_campaign_project(c, "p1");
    if (!json_equal(before, after))
        fail_msg("row %d: the refused %s changed the game", row, text);
    json_decref(before);
    json_decref(after);
}

/* The first event of type in ev (borrowed), or NULL. */
static json_t *find_event(const json_t *ev, const char *type, int nth)
{
    size_t i;
    json_t *e;
    json_array_foreach(ev, i, e) {
        const char *t = json_string_value(json_object_get(e, "type"));
        if (t && strcmp(t, type) == 0 && nth-- == 0)
            return e;
    }
    return NULL;
}

static int count_events(const json_t *ev, const char *type, const char *key, const char *val)
{
    int n = 0;
    size_t i;
    json_t *e;
    json_array_foreach(ev, i, e) {
        const char *t = json_string_value(json_object_get(e, "type"));
        const char *v = key ? json_string_value(json_object_get(e, key)) : NULL;
        if (t && strcmp(t, type) == 0 && (key == NULL || (v && strcmp(v, val) == 0)))
            n++;
    }
    return n;
}

static const char *str(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* A k from which the faces give: side `winner` (0 attacker, 1 defender,
 * -1 a tie) more sixes from na and nd dice, then `face` on the strategy
 * table (when there is a winner). */
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
        if (w != winner)
            continue;
        if (w < 0 || wr_dice_roll(c->seed, c->game_id, k + (uint32_t)(na + nd)) == face)
            return k;
    }
    fail_msg("no k gives these faces");
    return 0;
}

/* Choose strategies for any Brilliant Generalship pending (scouts). */
static void settle_strategies(struct wr_campaign *c)
{
    while (c->phase == WR_CP_STRATEGY)
        ok(c, wr_game_awaited(&c->base), "{'type':'choose_strategy','strategy':'scouts'}", 0);
}

/* LINE4, p1 holds A B, p2 C D: p1 attacks C, p2 puts B at stake. With
 * tie_dice, the strategy contest is a tie (no strategy is rolled). */
static struct wr_campaign *line_battle(const char *opts, int tie_dice)
{
    struct wr_campaign *c = make(LINE4, opts);
    own(c, "1122");
    to_attack(c, 0);
    ok(c, "p1", "{'type':'attack','target':'C'}", 0);
    if (tie_dice)
        c->rolls = find_k(c, 2, 2, -1, 0);
    ok(c, "p2", "{'type':'counter','town':'B'}", 0);
    settle_strategies(c);
    assert_int_equal(c->phase, WR_CP_TACTICS);
    return c;
}

static void tactic(struct wr_campaign *c, const char *seat, const char *choice, int row)
{
    char text[128];
    snprintf(text, sizeof text, "{'type':'tactic','choice':'%s'}", choice);
    ok(c, seat, text, row);
}

/* --- the map loader ---------------------------------------------------------- */

static void test_map_errors(void **state)
{
    (void)state;
    static const struct {
        int row;
        const char *text;
        const char *want;       /* the message, exactly */
    } t[] = {
        { 1, "{'warroom':'scenario','version':1,'ruleset':'campaign','name':'M','towns':["
             "{'name':'A','adjacent':['B']},{'name':'B','adjacent':['A','C']},"
             "{'name':'C','adjacent':['B']}]}",
          "towns: 3 towns, a campaign map has 4 to 64" },
        { 3, "{'warroom':'scenario','version':1,'ruleset':'campaign','name':'M','towns':["
             "{'name':'A','adjacent':['B']},{'name':'B','adjacent':['A','Z']},"
             "{'name':'C','adjacent':['D']},{'name':'D','adjacent':['C']}]}",
          "towns[1] (B): adjacent town 'Z' is not on the map" },
        { 4, "{'warroom':'scenario','version':1,'ruleset':'campaign','name':'M','towns':["
             "{'name':'A','adjacent':['A','B']},{'name':'B','adjacent':['A','C']},"
             "{'name':'C','adjacent':['B','D']},{'name':'D','adjacent':['C']}]}",
          "towns[0] (A): a town is not adjacent to itself" },
        { 5, "{'warroom':'scenario','version':1,'ruleset':'campaign','name':'M','towns':["
             "{'name':'A','adjacent':['B','C']},{'name':'B','adjacent':['A','C']},"
             "{'name':'C','adjacent':['B','D']},{'name':'D','adjacent':['C']}]}",
          "towns[0] (A): lists 'C', but towns[2] (C) does not list 'A'" },
        { 6, "{'warroom':'scenario','version':1,'ruleset':'campaign','name':'M','towns':["
             "{'name':'A','adjacent':['B']},{'name':'B','adjacent':['A','C']},"
             "{'name':'B','adjacent':['B','D']},{'name':'D','adjacent':['C']}]}",
          "towns[2] (B): the name is also towns[1]'s" },
        { 7, "{'warroom':'scenario','version':1,'ruleset':'campaign','name':'M','towns':["
             "{'name':'A','adjacent':['B']},{'name':'B','adjacent':['A']},"
             "{'name':'C','adjacent':['D']},{'name':'D','adjacent':['C']}]}",
          "towns: the map is not connected: towns[2] (C) cannot be reached from towns[0] (A)" },
        { 8, "{'warroom':'scenario','version':1,'ruleset':'campaign','name':'M','towns':["
             "{'name':'A','adjacent':['B','B']},{'name':'B','adjacent':['A','C']},"
             "{'name':'C','adjacent':['B','D']},{'name':'D','adjacent':['C']}]}",
          "towns[0] (A): 'B' is listed twice" },
        { 9, "{'warroom':'scenario','version':1,'ruleset':'waterloo','name':'M','towns':[]}",
          "scenario: ruleset 'waterloo' is not campaign" },
        { 10, "{'warroom':'scenario','version':1,'ruleset':'campaign','name':'M','townz':[]}",
          "scenario: unknown key 'townz'" },
        { 11, "{'warroom':'scenario','version':1,'ruleset':'campaign','name':'M','towns':["
              "{'name':'A','adj':['B']},{'name':'B','adjacent':['A','C']},"
              "{'name':'C','adjacent':['B','D']},{'name':'D','adjacent':['C']}]}",
          "towns[0] (A): unknown key 'adj'" },
        { 12, "{'warroom':'scenario','version':1,'ruleset':'campaign','name':'M','towns':["
              "{'name':'A','x':3,'adjacent':['B']},{'name':'B','adjacent':['A','C']},"
              "{'name':'C','adjacent':['B','D']},{'name':'D','adjacent':['C']}]}",
          "towns[0] (A): give both x and y, or neither" },
        { 13, "{'warroom':'scenario','version':1,'ruleset':'campaign','name':'M','towns':["
              "{'name':'A','x':'3','y':1,'adjacent':['B']},{'name':'B','adjacent':['A','C']},"
              "{'name':'C','adjacent':['B','D']},{'name':'D','adjacent':['C']}]}",
          "towns[0] (A): x must be a number" },
        { 14, "{'warroom':'scenario','version':1,'ruleset':'campaign','name':'M','towns':["
              "{'name':'A','adjacent':[1]},{'name':'B','adjacent':['A','C']},"
              "{'name':'C','adjacent':['B','D']},{'name':'D','adjacent':['C']}]}",
          "towns[0] (A): adjacent[0] must be a town name" },
        { 15, "{'warroom':'scenario','version':1,'ruleset':'campaign','name':'M','towns':["
              "{'name':'A'},{'name':'B','adjacent':['A','C']},"
              "{'name':'C','adjacent':['B','D']},{'name':'D','adjacent':['C']}]}",
          "towns[0] (A): missing key 'adjacent'" },
        { 16, "{'warroom':'scenario','version':1,'ruleset':'campaign','name':'M','towns':["
              "{'name':'','adjacent':[]},{'name':'B','adjacent':['A','C']},"
              "{'name':'C','adjacent':['B','D']},{'name':'D','adjacent':['C']}]}",
          "towns[0]: name is empty" },
        { 17, "{'warroom':'scenario','version':2,'ruleset':'campaign','name':'M','towns':[]}",
          "scenario: version must be 1" },
        { 18, "{'warroom':'scenario','version':1,'ruleset':'campaign','name':'M','towns':["
              "{'name':'A23456789012345678901234567890123456789012345678','adjacent':[]},"
              "{'name':'B','adjacent':[]},{'name':'C','adjacent':[]},{'name':'D','adjacent':[]}]}",
          "towns[0]: name 'A234567890123456789012345678901234567890...' is longer than 47 bytes" },
        { 19, "{'warroom':'scenario','version':1,'ruleset':'campaign','name':'M','towns':["
              "{'name':'A','x':1e7,'y':0,'adjacent':['B']},{'name':'B','adjacent':['A','C']},"
              "{'name':'C','adjacent':['B','D']},{'name':'D','adjacent':['C']}]}",
          "towns[0] (A): x must be between -1000000 and 1000000" },
        { 20, "[]", "scenario: the file must hold a JSON object" },
        { 21, "{'warroom':'scenario','version':1,'ruleset':'campaign','name':'M','towns':{}}",
          "scenario: towns must be a list" },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        struct wr_campaign_map m;
        struct wr_refusal why = { WR_CR_OK, "ok", "" };
        json_t *j = ct_jq(t[i].text);
        if (wr_campaign_map_load(&m, j, &why) == 0)
            fail_msg("row %d: the map loaded", t[i].row);
        if (why.reason != WR_CR_BAD_SCENARIO || strcmp(why.message, t[i].want) != 0)
            fail_msg("row %d: '%s', want '%s'", t[i].row, why.message, t[i].want);
        json_decref(j);
    }
    /* Row 2: 65 towns, one too many (a ring, so only the count is wrong). */
    json_t *j = json_pack("{s:s, s:i, s:s, s:s, s:[]}", "warroom", "scenario", "version", 1,
                          "ruleset", "campaign", "name", "Ring", "towns");
    json_t *towns = json_object_get(j, "towns");
    for (int i = 0; i < 65; i++) {
        char a[16], b[16], n[16];
        snprintf(n, sizeof n, "T%d", i);
        snprintf(a, sizeof a, "T%d", (i + 1) % 65);
        snprintf(b, sizeof b, "T%d", (i + 64) % 65);
        json_array_append_new(towns, json_pack("{s:s, s:[s, s]}", "name", n, "adjacent", a, b));
    }
    struct wr_campaign_map m;
    struct wr_refusal why = { WR_CR_OK, "ok", "" };
    assert_int_equal(wr_campaign_map_load(&m, j, &why), -1);
    assert_string_equal(why.message, "towns: 65 towns, a campaign map has 4 to 64");
    /* ... and 64 of them load. */
    json_array_remove(towns, 64);
    json_object_set_new(json_array_get(towns, 63), "adjacent", json_pack("[s, s]", "T0", "T62"));
    json_object_set_new(json_array_get(towns, 0), "adjacent", json_pack("[s, s]", "T1", "T63"));
    if (wr_campaign_map_load(&m, j, &why) != 0)
        fail_msg("64 towns: %s", why.message);
    assert_int_equal(m.ntowns, 64);
    assert_true(wr_campaign_map_adjacent(&m, 63, 0));
    json_decref(j);
}

/* Every campaign map under scenarios/ loads; the shipped ones as described. */
static void load_maps(const char *dir, int *n)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    if (d == NULL)
        fail_msg("cannot open %s", dir);
    while ((e = readdir(d)) != NULL) {
        char path[2048];
        struct stat st;
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            load_maps(path, n);
            continue;
        }
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        json_t *j = json_load_file(path, 0, NULL);
        const char *rs = json_string_value(json_object_get(j, "ruleset"));
        int is_map = rs && strcmp(rs, "campaign") == 0;
        json_decref(j);
        if (!is_map)
            continue;
        struct wr_campaign_map m;
        struct wr_refusal why = { WR_CR_OK, "ok", "" };
        if (wr_campaign_map_load_file(&m, path, &why) != 0)
            fail_msg("%s: %s", path, why.message);
        for (int t = 0; t < m.ntowns; t++)
            if (!m.towns[t].has_xy)
                fail_msg("%s: %s has no position", path, m.towns[t].name);
        (*n)++;
    }
    closedir(d);
}

static void test_shipped_maps(void **state)
{
    (void)state;
    int n = 0;
    load_maps(WARROOM_SCENARIO_DIR, &n);
    assert_true(n >= 2);
    struct wr_campaign_map m;
    struct wr_refusal why = { WR_CR_OK, "ok", "" };
    assert_int_equal(wr_campaign_map_load_file(
                         &m, WARROOM_SCENARIO_DIR "/campaign/low-countries-1815.json", &why), 0);
    assert_int_equal(m.ntowns, 40);
    /* Along the Charleroi-Brussels road: ... La Haye Sainte, Mont-St-Jean, Waterloo. */
    int w = wr_campaign_map_find(&m, "Waterloo"), msj = wr_campaign_map_find(&m, "Mont-St-Jean"),
        lhs = wr_campaign_map_find(&m, "La Haye Sainte");
    int qb = wr_campaign_map_find(&m, "Quatre Bras");
    assert_true(w >= 0 && msj >= 0 && lhs >= 0 && qb >= 0);
    assert_true(wr_campaign_map_adjacent(&m, w, msj));
    assert_true(wr_campaign_map_adjacent(&m, msj, lhs));
    assert_false(wr_campaign_map_adjacent(&m, w, lhs));     /* Mont-St-Jean lies between */
    assert_true(wr_campaign_map_adjacent(&m, qb, wr_campaign_map_find(&m, "Nivelles")));
    assert_int_equal(wr_campaign_map_find(&m, "Limal"), -1);    /* no road reaches it */
    assert_int_equal(wr_campaign_map_load_file(
                         &m, WARROOM_SCENARIO_DIR "/campaign/ancient-world.json", &why), 0);
    assert_true(m.ntowns >= 20 && m.ntowns <= 30);
    assert_true(wr_campaign_map_adjacent(&m, wr_campaign_map_find(&m, "Brundisium"),
                                         wr_campaign_map_find(&m, "Dyrrachium")));
}

/* --- options and seats ------------------------------------------------------------ */

static void test_options(void **state)
{
    (void)state;
    static const struct {
        int row;
        const char *opts;
        const char *want;       /* NULL: accepted */
    } t[] = {
        { 1, "{'players':1}", "players is a whole number from 2 to 8" },
        { 2, "{'players':9}", "players is a whole number from 2 to 8" },
        { 3, "{'players':'3'}", "players is a whole number from 2 to 8" },
        { 4, "{'referee':1}", "referee is true or false" },
        { 5, "{'max_turns':0}", "max_turns is a whole number from 1 to 10000" },
        { 6, "{'max_rounds':21}", "max_rounds is a whole number from 1 to 20" },
        { 7, "{'players':3,'alliances':[['p1']]}", "an alliance is a list of at least two seats" },
        { 8, "{'players':3,'alliances':[['p1','p9']]}",
          "alliances: 'p9' is not a player of this game" },
        { 9, "{'players':3,'alliances':[['p1','p2'],['p2','p3']]}",
          "alliances: p2 is in more than one alliance (or twice in one)" },
        { 10, "{'players':2,'alliances':[['p1','p2']]}",
          "alliances: every player in one alliance leaves nobody to fight" },
        { 11, "{'players':5}", "the map has 4 towns, too few for 5 players" },
        { 12, "[]", "options must be an object" },
        { 13, "{'players':4,'alliances':[['p1','p3'],['p2','p4']],'referee':true,"
              "'max_turns':3,'max_rounds':1}", NULL },
        { 14, "{}", NULL },
        { 15, "{'players':3,'alliances':['p1']}", "an alliance is a list of at least two seats" },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        struct wr_campaign_map map;
        struct wr_refusal why = { WR_CR_OK, "ok", "" };
        json_t *m = ct_jq(LINE4), *o = ct_jq(t[i].opts);
        assert_int_equal(wr_campaign_map_load(&map, m, &why), 0);
        struct wr_campaign *c = wr_campaign_new(&map, o, "g-test", SEED, NULL, &why);
        if (t[i].want == NULL && c == NULL)
            fail_msg("row %d: refused: %s", t[i].row, why.message);
        if (t[i].want && (c != NULL || why.reason != WR_CR_BAD_OPTIONS ||
                          strcmp(why.message, t[i].want) != 0))
            fail_msg("row %d: %s, want '%s'", t[i].row, c ? "accepted" : why.message, t[i].want);
        wr_campaign_free(c);
        json_decref(m);
        json_decref(o);
    }
    /* Seats: p1..pN, then the referee. */
    struct wr_campaign *c = make(LINE4, "{'players':3,'referee':true}");
    const char *const *seats = wr_ruleset_campaign.seats(&c->base);
    assert_string_equal(seats[0], "p1");
    assert_string_equal(seats[2], "p3");
    assert_string_equal(seats[3], "referee");
    assert_null(seats[4]);
    wr_campaign_free(c);
    c = make(LINE4, NULL);
    seats = wr_ruleset_campaign.seats(&c->base);
    assert_string_equal(seats[1], "p2");
    assert_null(seats[2]);
    assert_int_equal(c->max_rounds, 5);
    assert_int_equal(c->max_turns, 0);
    wr_campaign_free(c);
    /* Through the ruleset: no scenario, a broken one. */
    struct wr_refusal why;
    assert_null(wr_ruleset_campaign.create(NULL, NULL, "g", SEED, NULL, &why));
    assert_int_equal(why.reason, WR_CR_BAD_SCENARIO);
    json_t *bad = ct_jq("{'warroom':'scenario','version':1,'ruleset':'campaign','name':'M'}");
    assert_null(wr_ruleset_campaign.create(bad, NULL, "g", SEED, NULL, &why));
    assert_string_equal(why.message, "scenario: missing key 'towns'");
    json_decref(bad);
    assert_true(wr_ruleset_campaign.hidden_info);
    assert_ptr_equal(wr_ruleset_find("campaign"), &wr_ruleset_campaign);
}

static void test_command_shapes(void **state)
{
    (void)state;
    static const struct {
        int row;
        const char *cmd;
        enum wr_campaign_reason want;
    } t[] = {
        { 1, "{'type':'start'}", WR_CR_OK },
        { 2, "{'type':'start','x':1}", WR_CR_BAD_COMMAND },
        { 3, "{'type':'dance'}", WR_CR_BAD_COMMAND },
        { 4, "{'town':'A'}", WR_CR_BAD_COMMAND },
        { 5, "{'type':'choose_town'}", WR_CR_BAD_COMMAND },
        { 6, "{'type':'choose_town','town':7}", WR_CR_BAD_COMMAND },
        { 7, "{'type':'tactic','choice':'charge'}", WR_CR_BAD_COMMAND },
        { 8, "{'type':'tactic','choice':'march','salt':''}", WR_CR_OK },
        { 9, "{'type':'commit','commitment':"
             "'0B2068D67A950D7CD497F54CE5068CC3D9E4229190ADD5A553A0E6492A6B103E'}",
          WR_CR_BAD_COMMAND },
        { 10, "{'type':'commit','commitment':"
              "'0b2068d67a950d7cd497f54ce5068cc3d9e4229190add5a553a0e6492a6b103'}",
          WR_CR_BAD_COMMAND },
        { 11, "{'type':'commit','commitment':"
              "'0b2068d67a950d7cd497f54ce5068cc3d9e4229190add5a553a0e6492a6b103e'}",
          WR_CR_OK },
        { 12, "{'type':'report','attacker':-1,'defender':0}", WR_CR_BAD_COMMAND },
        { 13, "{'type':'report','attacker':1000001,'defender':0}", WR_CR_BAD_COMMAND },
        { 14, "{'type':'report','attacker':1500}", WR_CR_BAD_COMMAND },
        { 15, "{'type':'settle','attacker':1500,'defender':900}", WR_CR_OK },
        { 16, "{'type':'choose_strategy','strategy':'brilliant_generalship'}", WR_CR_BAD_COMMAND },
        { 17, "{'type':'choose_strategy','strategy':'hidden_ambush'}", WR_CR_OK },
        { 18, "{'type':'seal_ambush','note':''}", WR_CR_BAD_COMMAND },
        { 19, "{'type':'reveal_ambush'}", WR_CR_OK },
        { 20, "{'type':'reveal_ambush','seat':'p1'}", WR_CR_OK },
        { 21, "[]", WR_CR_BAD_COMMAND },
        { 22, "{'type':'attack','town':'A'}", WR_CR_BAD_COMMAND },
        { 23, "{'type':'report','attacker':1.5,'defender':0}", WR_CR_BAD_COMMAND },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        struct wr_campaign_cmd k;
        struct wr_refusal why = { WR_CR_OK, "ok", "" };
        json_t *j = ct_jq(t[i].cmd);
        enum wr_campaign_reason r = wr_campaign_parse_command(j, &k, &why);
        if (r != t[i].want)
            fail_msg("row %d: %s gave %s (%s)", t[i].row, t[i].cmd, wr_campaign_reason_code(r),
                     why.message);
        json_decref(j);
    }
}

/* --- the tactics table ------------------------------------------------------------- */

static const struct {
    int row;
    enum wr_campaign_tactic blue, red;   /* attacker, defender */
    enum wr_campaign_tactics_kind kind;
    enum wr_campaign_actor actor;
} cells[25] = {
    { 1, WR_CT_MARCH, WR_CT_MARCH, WR_CK_MEETING, WR_CA_BOTH },
    { 2, WR_CT_MARCH, WR_CT_COUNTER_MARCH, WR_CK_AMBUSH, WR_CA_RED },
    { 3, WR_CT_MARCH, WR_CT_ATTACK, WR_CK_SURPRISE, WR_CA_RED },
    { 4, WR_CT_MARCH, WR_CT_DEFEND, WR_CK_NO_BATTLE, WR_CA_NONE },
    { 5, WR_CT_MARCH, WR_CT_REGROUP, WR_CK_BREAK_THROUGH, WR_CA_RED },
    { 6, WR_CT_COUNTER_MARCH, WR_CT_MARCH, WR_CK_AMBUSH, WR_CA_BLUE },
    { 7, WR_CT_COUNTER_MARCH, WR_CT_COUNTER_MARCH, WR_CK_NO_BATTLE, WR_CA_NONE },
    { 8, WR_CT_COUNTER_MARCH, WR_CT_ATTACK, WR_CK_NO_BATTLE, WR_CA_NONE },
    { 9, WR_CT_COUNTER_MARCH, WR_CT_DEFEND, WR_CK_FLANK_MARCH, WR_CA_BLUE },
    { 10, WR_CT_COUNTER_MARCH, WR_CT_REGROUP, WR_CK_REINFORCE, WR_CA_RED },
    { 11, WR_CT_ATTACK, WR_CT_MARCH, WR_CK_SURPRISE, WR_CA_BLUE },
    { 12, WR_CT_ATTACK, WR_CT_COUNTER_MARCH, WR_CK_NO_BATTLE, WR_CA_NONE },
    { 13, WR_CT_ATTACK, WR_CT_ATTACK, WR_CK_OPEN, WR_CA_BOTH },
    { 14, WR_CT_ATTACK, WR_CT_DEFEND, WR_CK_ATTACKS_DEFENCES, WR_CA_BLUE },
    { 15, WR_CT_ATTACK, WR_CT_REGROUP, WR_CK_LAST_STAND, WR_CA_RED },
    { 16, WR_CT_DEFEND, WR_CT_MARCH, WR_CK_NO_BATTLE, WR_CA_NONE },
    { 17, WR_CT_DEFEND, WR_CT_COUNTER_MARCH, WR_CK_FLANK_MARCH, WR_CA_RED },
    { 18, WR_CT_DEFEND, WR_CT_ATTACK, WR_CK_ATTACKS_DEFENCES, WR_CA_RED },
    { 19, WR_CT_DEFEND, WR_CT_DEFEND, WR_CK_SKIRMISH, WR_CA_BOTH },
    { 20, WR_CT_DEFEND, WR_CT_REGROUP, WR_CK_REINFORCE, WR_CA_RED },
    { 21, WR_CT_REGROUP, WR_CT_MARCH, WR_CK_BREAK_THROUGH, WR_CA_BLUE },
    { 22, WR_CT_REGROUP, WR_CT_COUNTER_MARCH, WR_CK_REINFORCE, WR_CA_BLUE },
    { 23, WR_CT_REGROUP, WR_CT_ATTACK, WR_CK_LAST_STAND, WR_CA_BLUE },
    { 24, WR_CT_REGROUP, WR_CT_DEFEND, WR_CK_REINFORCE, WR_CA_BLUE },
    { 25, WR_CT_REGROUP, WR_CT_REGROUP, WR_CK_REINFORCE, WR_CA_BOTH },
};

/* The table as data, and its mirror symmetry: swapping the two choices
 * swaps blue and red in the result (a check on the transcription). */
static void test_tactics_table(void **state)
{
    (void)state;
    for (int i = 0; i < 25; i++) {
        const struct wr_campaign_tactics_cell *cell =
            wr_campaign_tactics(cells[i].blue, cells[i].red);
        assert_non_null(cell);
        if (cell->kind != cells[i].kind || cell->actor != cells[i].actor)
            fail_msg("row %d: %s by %d, want %s by %d", cells[i].row,
                     wr_campaign_kind_name(cell->kind), cell->actor,
                     wr_campaign_kind_name(cells[i].kind), cells[i].actor);
        const struct wr_campaign_tactics_cell *mirror =
            wr_campaign_tactics(cells[i].red, cells[i].blue);
        int flipped = cell->actor == WR_CA_BLUE ? WR_CA_RED : cell->actor == WR_CA_RED ? WR_CA_BLUE
                                                                                    : cell->actor;
        if (mirror->kind != cell->kind || (int)mirror->actor != flipped)
            fail_msg("row %d: the mirror cell differs", cells[i].row);
    }
    assert_null(wr_campaign_tactics(WR_CT_COUNT, WR_CT_MARCH));
}

/* Each of the 25 cells played: both choose, the result is shown, and the
 * game goes on as it says (battle, choose again, reinforcement rolls). */
static void test_tactics_cells_played(void **state)
{
    (void)state;
    for (int i = 0; i < 25; i++) {
        int row = cells[i].row;
        struct wr_campaign *c = line_battle(NULL, 1);
        uint32_t rolls = c->rolls;
        char text[128];
        tactic(c, "p1", wr_campaign_tactic_name(cells[i].blue), row);
        assert_int_equal(c->phase, WR_CP_TACTICS);      /* one side in: nothing shown */
        snprintf(text, sizeof text, "{'type':'tactic','choice':'%s'}",
                 wr_campaign_tactic_name(cells[i].red));
        json_t *ev = ok_ev(c, "p2", text, row);
        json_t *t = find_event(ev, "tactics", 0);
        if (t == NULL)
            fail_msg("row %d: no tactics event", row);
        const char *by = str(t, "by");
        const char *want_by = cells[i].actor == WR_CA_BLUE ? "p1"
                            : cells[i].actor == WR_CA_RED ? "p2" : NULL;
        if (strcmp(str(t, "result"), wr_campaign_kind_name(cells[i].kind)) != 0)
            fail_msg("row %d: result %s", row, str(t, "result"));
        if (cells[i].kind != WR_CK_REINFORCE &&
            ((by == NULL) != (want_by == NULL) || (by && strcmp(by, want_by) != 0)))
            fail_msg("row %d: by %s, want %s", row, by ? by : "nobody",
                     want_by ? want_by : "nobody");
        assert_string_equal(str(json_object_get(t, "attacker"), "choice"),
                            wr_campaign_tactic_name(cells[i].blue));
        assert_string_equal(str(json_object_get(t, "defender"), "choice"),
                            wr_campaign_tactic_name(cells[i].red));
        int battle = cells[i].kind != WR_CK_NO_BATTLE && cells[i].kind != WR_CK_REINFORCE;
        if (battle) {
            if (c->phase != WR_CP_BATTLE)
                fail_msg("row %d: phase %d, want the battle", row, c->phase);
            json_t *st = wr_campaign_project(c, NULL);
            json_t *b = json_object_get(json_object_get(st, "attack"), "battle");
            assert_string_equal(str(b, "result"), wr_campaign_kind_name(cells[i].kind));
            assert_int_equal(json_integer_value(json_object_get(b, "points")), 1000);
            if (cells[i].kind == WR_CK_ATTACKS_DEFENCES) {
                assert_int_equal(json_integer_value(json_object_get(b, "walls_inches")), 24);
                assert_string_equal(str(b, "walls_for"), want_by[1] == '1' ? "p2" : "p1");
            }
            assert_non_null(find_event(ev, "battle", 0));
            json_decref(st);
            assert_int_equal(c->rolls, rolls);
        } else {
            if (c->phase != WR_CP_TACTICS && c->phase != WR_CP_STRATEGY)
                fail_msg("row %d: phase %d, want tactics again", row, c->phase);
            assert_int_equal(c->at.nrounds, 1);
            int p1 = count_events(ev, "strategy", "seat", "p1"),
                p2 = count_events(ev, "strategy", "seat", "p2");
            int want1 = cells[i].kind == WR_CK_REINFORCE &&
                        (cells[i].actor == WR_CA_BLUE || cells[i].actor == WR_CA_BOTH);
            int want2 = cells[i].kind == WR_CK_REINFORCE &&
                        (cells[i].actor == WR_CA_RED || cells[i].actor == WR_CA_BOTH);
            if (p1 != want1 || p2 != want2)
                fail_msg("row %d: free strategy rolls p1 %d p2 %d, want %d %d", row, p1, p2,
                         want1, want2);
            assert_int_equal(c->rolls, rolls + (uint32_t)(want1 + want2));
            assert_int_equal(count_events(ev, "roll", "for", "reinforcement"), want1 + want2);
        }
        json_decref(ev);
        wr_campaign_free(c);
    }
}

/* --- strategies --------------------------------------------------------------------- */

static void test_strategy_results(void **state)
{
    (void)state;
    static const struct {
        int row;
        int face;
        const char *strategy;
        int phase;              /* after the counter */
        int note;               /* a Hidden Ambush Force to write down */
    } t[] = {
        { 1, 1, "flank_march", WR_CP_TACTICS, 0 },
        { 2, 2, "hidden_ambush", WR_CP_TACTICS, 1 },
        { 3, 3, "scouts", WR_CP_TACTICS, 0 },
        { 4, 4, "rapid_deployment", WR_CP_TACTICS, 0 },
        { 5, 5, "good_planning", WR_CP_TACTICS, 0 },
        { 6, 6, "brilliant_generalship", WR_CP_STRATEGY, 0 },
    };
    for (int i = 0; i < 6; i++) {
        for (int winner = 0; winner < 2; winner++) {
            struct wr_campaign *c = make(LINE4, NULL);
            own(c, "1122");
            to_attack(c, 0);
            ok(c, "p1", "{'type':'attack','target':'C'}", t[i].row);
            /* Towns next to C or B: A, B (p1), C, D (p2): two dice each. */
            uint32_t k = find_k(c, 2, 2, winner, t[i].face);
            c->rolls = k;
            json_t *ev = ok_ev(c, "p2", "{'type':'counter','town':'B'}", t[i].row);
            const char *ws = winner ? "p2" : "p1";
            assert_int_equal(c->at.ndice[0], 2);
            assert_int_equal(c->at.ndice[1], 2);
            assert_int_equal(count_events(ev, "roll", "for", "strategy_dice"), 4);
            json_t *sd = find_event(ev, "strategy_dice", 0);
            assert_string_equal(str(sd, "winner"), ws);
            json_t *s = find_event(ev, "strategy", 0);
            if (s == NULL || strcmp(str(s, "strategy"), t[i].strategy) != 0 ||
                strcmp(str(s, "seat"), ws) != 0 ||
                json_integer_value(json_object_get(s, "roll")) != t[i].face)
                fail_msg("row %d/%d: strategy %s", t[i].row, winner,
                         s ? str(s, "strategy") : "none");
            if ((int)c->phase != t[i].phase)
                fail_msg("row %d: phase %d", t[i].row, c->phase);
            assert_int_equal(c->at.note[winner].needed, t[i].note);
            assert_int_equal(c->at.note[1 - winner].needed, 0);
            assert_int_equal(c->rolls, k + 5);
            json_decref(ev);
            if (t[i].face == 6) {
                /* Brilliant Generalship: the winner, only, chooses. */
                assert_string_equal(wr_game_awaited(&c->base), ws);
                refused(c, winner ? "p1" : "p2", "{'type':'choose_strategy','strategy':'scouts'}",
                        WR_CR_NOT_YOUR_TURN, t[i].row);
                refused(c, ws, "{'type':'tactic','choice':'march'}", WR_CR_WRONG_PHASE, t[i].row);
                ok(c, ws, "{'type':'choose_strategy','strategy':'hidden_ambush'}", t[i].row);
                assert_int_equal(c->phase, WR_CP_TACTICS);
                assert_int_equal(c->at.note[winner].needed, 1);
                json_t *st = wr_campaign_project(c, NULL);
                json_t *s0 = json_array_get(json_object_get(json_object_get(st, "attack"),
                                                            "strategies"), 0);
                assert_string_equal(str(s0, "strategy"), "hidden_ambush");
                assert_true(json_is_true(json_object_get(s0, "brilliant_generalship")));
                json_decref(st);
            }
            wr_campaign_free(c);
        }
    }
    /* A tie in sixes: nobody rolls on the strategy table. */
    struct wr_campaign *c = make(LINE4, NULL);
    own(c, "1122");
    to_attack(c, 0);
    ok(c, "p1", "{'type':'attack','target':'C'}", 7);
    c->rolls = find_k(c, 2, 2, -1, 0);
    json_t *ev = ok_ev(c, "p2", "{'type':'counter','town':'B'}", 7);
    assert_true(json_is_null(json_object_get(find_event(ev, "strategy_dice", 0), "winner")));
    assert_null(find_event(ev, "strategy", 0));
    assert_int_equal(c->at.nstrategies, 0);
    assert_int_equal(c->phase, WR_CP_TACTICS);
    json_decref(ev);
    wr_campaign_free(c);
}

/* The dice: one per town a side or its allies hold next to either
 * disputed town; a third party's towns give nobody dice. */
static void test_strategy_dice_counts(void **state)
{
    (void)state;
    static const struct {
        int row;
        const char *opts, *owners, *target, *counter;
        int na, nd;
    } t[] = {
        /* p1 A E, p2 B C F, p3 D. Attack F from E; E at stake: next to F or E
         * are B C D E F. */
        { 1, "{'players':3}", "122312", "F", "E", 1, 3 },
        { 2, "{'players':3,'alliances':[['p1','p3']]}", "122312", "F", "E", 2, 3 },
        { 3, "{'players':3,'alliances':[['p2','p3']]}", "122312", "F", "E", 1, 4 },
        /* p1 A B D E, p2 C F: attack C from B, B at stake: A B C E F next. */
        { 4, "{}", "112112", "C", "B", 3, 2 },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        struct wr_campaign *c = make(CT_GRID6, t[i].opts);
        own(c, t[i].owners);
        to_attack(c, 0);
        char text[96];
        snprintf(text, sizeof text, "{'type':'attack','target':'%s'}", t[i].target);
        ok(c, "p1", text, t[i].row);
        snprintf(text, sizeof text, "{'type':'counter','town':'%s'}", t[i].counter);
        json_t *ev = ok_ev(c, wr_game_awaited(&c->base), text, t[i].row);
        if (c->at.ndice[0] != t[i].na || c->at.ndice[1] != t[i].nd)
            fail_msg("row %d: dice %d and %d, want %d and %d", t[i].row, c->at.ndice[0],
                     c->at.ndice[1], t[i].na, t[i].nd);
        assert_int_equal(count_events(ev, "roll", "for", "strategy_dice"), t[i].na + t[i].nd);
        json_decref(ev);
        wr_campaign_free(c);
    }
}

/* --- draft, attack, counter -------------------------------------------------------- */

static void test_draft_rule(void **state)
{
    (void)state;
    static const struct {
        int row;
        const char *owners;     /* A..F before the choice */
        const char *seat, *town;
        enum wr_campaign_reason want;
    } t[] = {
        { 1, "......", "p1", "C", WR_CR_OK },                   /* the first choice: anywhere */
        { 2, "1...2.", "p1", "C", WR_CR_DRAFT_NOT_ADJACENT },   /* B and D are free and next to A */
        { 3, "1...2.", "p1", "B", WR_CR_OK },
        { 4, "1...2.", "p1", "D", WR_CR_OK },
        { 5, "12.2..", "p1", "F", WR_CR_OK },                   /* nothing next to A is free */
        { 6, "12.2..", "p1", "B", WR_CR_TOWN_TAKEN },
        { 7, "1...2.", "p1", "Z", WR_CR_UNKNOWN_TOWN },
        { 8, "1...2.", "p2", "B", WR_CR_NOT_YOUR_TURN },
        { 9, "12.2..", "p1", "A", WR_CR_TOWN_TAKEN },            /* one's own town */
        { 10, "1.2.2.", "p1", "D", WR_CR_OK },                  /* next to A: B and D */
        { 11, "1.2.2.", "p1", "F", WR_CR_DRAFT_NOT_ADJACENT },  /* F is next to C and E only */
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        struct wr_campaign *c = make(CT_GRID6, NULL);
        own(c, t[i].owners);
        to_draft(c, 0);
        char text[96];
        snprintf(text, sizeof text, "{'type':'choose_town','town':'%s'}", t[i].town);
        if (t[i].want == WR_CR_OK) {
            ok(c, t[i].seat, text, t[i].row);
            assert_int_equal(c->owner[wr_campaign_map_find(&c->map, t[i].town)], 0);
            assert_int_equal(c->active, 1);     /* then the next player */
        } else {
            refused(c, t[i].seat, text, t[i].want, t[i].row);
        }
        wr_campaign_free(c);
    }
}

/* A whole draft by commands: the roll for the first choice, turns going
 * round, the campaign starting when the last town is taken. */
static void test_draft_played(void **state)
{
    (void)state;
    struct wr_campaign *c = make(CT_GRID6, "{'players':3}");
    assert_string_equal(wr_game_awaited(&c->base), "p1");
    refused(c, "p2", "{'type':'start'}", WR_CR_NOT_YOUR_TURN, 1);
    refused(c, "p1", "{'type':'choose_town','town':'A'}", WR_CR_WRONG_PHASE, 2);
    json_t *ev = ok_ev(c, "p1", "{'type':'start'}", 3);
    /* One die each (ties roll again): the highest chooses first. */
    int n = (int)json_array_size(ev) - 1;
    assert_true(n >= 3);
    assert_int_equal(count_events(ev, "roll", "for", "first_choice"), n);
    for (int i = n - 3; i < n; i++) {
        json_t *r = json_array_get(ev, (size_t)i);
        assert_int_equal(json_integer_value(json_object_get(r, "k")), i);
    }
    json_t *fc = find_event(ev, "first_choice", 0);
    assert_non_null(fc);
    int first = wr_campaign_player(c, str(fc, "seat"));
    assert_int_equal(c->first, first);
    assert_int_equal(c->phase, WR_CP_DRAFT);
    json_decref(ev);
    /* Choose in turn, always the first legal town in map order. */
    for (int pick = 0; pick < 6; pick++) {
        int p = c->active;
        assert_int_equal(p, (first + pick) % 3);
        int town = -1;
        for (int t = 0; t < 6 && town < 0; t++)
            if (wr_campaign_check_draft(c, p, t, NULL) == WR_CR_OK)
                town = t;
        char text[96];
        snprintf(text, sizeof text, "{'type':'choose_town','town':'%s'}", c->map.towns[town].name);
        ok(c, wr_game_awaited(&c->base), text, 10 + pick);
    }
    assert_int_equal(c->phase, WR_CP_ATTACK);
    assert_int_equal(c->turn, 1);
    for (int t = 0; t < 6; t++)
        assert_true(c->owner[t] >= 0);
    wr_campaign_free(c);
}

static void test_attack_and_counter_rules(void **state)
{
    (void)state;
    /* p1 A E, p2 B C, p3 D, p2 F; p1 and p3 allied. */
    static const struct {
        int row;
        const char *target;
        enum wr_campaign_reason want;
    } t[] = {
        { 1, "B", WR_CR_OK },
        { 2, "D", WR_CR_NOT_ENEMY_TOWN },        /* the ally's */
        { 3, "E", WR_CR_NOT_ENEMY_TOWN },        /* one's own */
        { 4, "C", WR_CR_OK },                    /* not adjacent, but p2's: a neighbour (C4) */
        { 5, "F", WR_CR_OK },
        { 6, "Q", WR_CR_UNKNOWN_TOWN },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        struct wr_campaign *c = make(CT_GRID6, "{'players':3,'alliances':[['p1','p3']]}");
        own(c, "122312");
        to_attack(c, 0);
        char text[96];
        snprintf(text, sizeof text, "{'type':'attack','target':'%s'}", t[i].target);
        refused(c, "p2", text, WR_CR_NOT_YOUR_TURN, t[i].row);
        if (t[i].want == WR_CR_OK)
            ok(c, "p1", text, t[i].row);
        else
            refused(c, "p1", text, t[i].want, t[i].row);
        wr_campaign_free(c);
    }
    /* The counter: p1 attacks B, which A and E (p1's) touch. */
    static const struct {
        int row;
        const char *seat, *town;
        enum wr_campaign_reason want;
    } u[] = {
        { 11, "p1", "A", WR_CR_NOT_YOUR_TURN },
        { 12, "p2", "D", WR_CR_NOT_ATTACKERS_TOWN },
        { 13, "p2", "C", WR_CR_NOT_ATTACKERS_TOWN },
        { 14, "p2", "A", WR_CR_OK },
        { 15, "p2", "E", WR_CR_OK },
        { 16, "p3", "A", WR_CR_NOT_YOUR_TURN },
    };
    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++) {
        struct wr_campaign *c = make(CT_GRID6, "{'players':3,'alliances':[['p1','p3']]}");
        own(c, "122312");
        to_attack(c, 0);
        ok(c, "p1", "{'type':'attack','target':'B'}", u[i].row);
        char text[96];
        snprintf(text, sizeof text, "{'type':'counter','town':'%s'}", u[i].town);
        if (u[i].want == WR_CR_OK)
            ok(c, u[i].seat, text, u[i].row);
        else
            refused(c, u[i].seat, text, u[i].want, u[i].row);
        wr_campaign_free(c);
    }
    /* C4: the target may be any town of a neighbour, and only of a
     * neighbour. The line A - B - C - D: p1 A, p2 B C, p3 D. */
    static const struct {
        int row;
        const char *target;
        enum wr_campaign_reason want;
    } v[] = {
        { 21, "B", WR_CR_OK },
        { 22, "C", WR_CR_OK },                  /* p2's, two towns away from A */
        { 23, "D", WR_CR_NOT_NEIGHBOUR },       /* p3 holds no town next to A */
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        struct wr_campaign *c = make(LINE4, "{'players':3}");
        own(c, "1223");
        to_attack(c, 0);
        char text[96];
        snprintf(text, sizeof text, "{'type':'attack','target':'%s'}", v[i].target);
        if (v[i].want == WR_CR_OK)
            ok(c, "p1", text, v[i].row);
        else
            refused(c, "p1", text, v[i].want, v[i].row);
        wr_campaign_free(c);
    }
    /* The defender's counter, played, in both branches of "one of your
     * towns adjacent to the town you are attacking (or anywhere else if
     * none are adjacent)". The grid: p1 A B, p2 C D E F. C touches B; F
     * touches no town of p1's, so any of p1's towns may be put at stake. */
    static const struct {
        int row;
        const char *target, *town;
        enum wr_campaign_reason want;
    } w[] = {
        { 31, "C", "A", WR_CR_COUNTER_NOT_ADJACENT },
        { 32, "C", "B", WR_CR_OK },
        { 33, "F", "A", WR_CR_OK },             /* "anywhere else" */
        { 34, "F", "B", WR_CR_OK },
        { 35, "F", "E", WR_CR_NOT_ATTACKERS_TOWN },
    };
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) {
        struct wr_campaign *c = make(CT_GRID6, NULL);
        own(c, "112222");
        to_attack(c, 0);
        char text[96];
        snprintf(text, sizeof text, "{'type':'attack','target':'%s'}", w[i].target);
        ok(c, "p1", text, w[i].row);
        snprintf(text, sizeof text, "{'type':'counter','town':'%s'}", w[i].town);
        if (w[i].want == WR_CR_OK)
            ok(c, "p2", text, w[i].row);
        else
            refused(c, "p2", text, w[i].want, w[i].row);
        wr_campaign_free(c);
    }
}

/* --- tactics: re-choice, round limit, commitments ------------------------------------ */

static void test_no_battle_rechoice(void **state)
{
    (void)state;
    struct wr_campaign *c = line_battle(NULL, 1);
    tactic(c, "p1", "march", 1);
    tactic(c, "p2", "defend", 2);          /* Red's position is too strong. No battle. */
    assert_int_equal(c->phase, WR_CP_TACTICS);
    assert_int_equal(c->at.nrounds, 1);
    refused(c, "p1", "{'type':'tactic','choice':'march'}", WR_CR_SAME_TACTIC, 3);
    refused(c, "p2", "{'type':'tactic','choice':'defend'}", WR_CR_SAME_TACTIC, 4);
    /* A commitment cannot hide a repeat: the reveal is refused, and a new
     * commitment may replace the one that cannot be kept. */
    char h[65], text[256];
    assert_int_equal(wr_campaign_commitment("march", "salt-1", h), 0);
    snprintf(text, sizeof text, "{'type':'commit','commitment':'%s'}", h);
    ok(c, "p1", text, 5);
    refused(c, "p1", "{'type':'tactic','choice':'march','salt':'salt-1'}", WR_CR_SAME_TACTIC, 6);
    assert_int_equal(wr_campaign_commitment("attack", "salt-2", h), 0);
    snprintf(text, sizeof text, "{'type':'commit','commitment':'%s'}", h);
    ok(c, "p1", text, 7);
    ok(c, "p1", "{'type':'tactic','choice':'attack','salt':'salt-2'}", 8);
    tactic(c, "p2", "march", 9);           /* Blue surprises red */
    assert_int_equal(c->phase, WR_CP_BATTLE);
    assert_int_equal(c->at.nrounds, 2);
    json_t *st = wr_campaign_project(c, "p2");
    json_t *b = json_object_get(json_object_get(st, "attack"), "battle");
    assert_string_equal(str(b, "result"), "surprise");
    assert_string_equal(str(b, "by"), "p1");
    assert_string_equal(str(b, "text"), "p1 surprises p2");
    json_decref(st);
    wr_campaign_free(c);
}

static void test_round_limit(void **state)
{
    (void)state;
    /* Rows: max_rounds option, rounds played without battle. */
    static const struct {
        int row;
        const char *opts;
        int rounds;
    } t[] = {
        { 1, NULL, 5 },
        { 2, "{'max_rounds':2}", 2 },
        { 3, "{'max_rounds':1}", 1 },
    };
    static const char *const blue[] = { "march", "attack" };
    static const char *const red[] = { "defend", "counter_march" };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        struct wr_campaign *c = line_battle(t[i].opts, 1);
        for (int r = 0; r < t[i].rounds; r++) {
            assert_int_equal(c->phase, WR_CP_TACTICS);
            tactic(c, "p1", blue[r % 2], t[i].row);
            char text[96];
            snprintf(text, sizeof text, "{'type':'tactic','choice':'%s'}", red[r % 2]);
            json_t *ev = ok_ev(c, "p2", text, t[i].row);
            int last = r == t[i].rounds - 1;
            if ((find_event(ev, "attack_called_off", 0) != NULL) != last)
                fail_msg("row %d: round %d %s", t[i].row, r + 1, last ? "did not end the attack"
                                                                     : "ended the attack");
            json_decref(ev);
        }
        /* Called off: no town changes, the turn passes to p2. */
        assert_int_equal(c->phase, WR_CP_ATTACK);
        assert_int_equal(c->active, 1);
        assert_int_equal(c->owner[1], 0);
        assert_int_equal(c->owner[2], 1);
        json_t *st = wr_campaign_project(c, NULL);
        json_t *h = json_array_get(json_object_get(st, "history"), 0);
        assert_true(json_is_null(json_object_get(h, "battle")));
        assert_int_equal(json_integer_value(json_object_get(h, "rounds")), t[i].rounds);
        assert_true(json_is_null(json_object_get(st, "attack")));
        json_decref(st);
        wr_campaign_free(c);
    }
}

static void test_commitments(void **state)
{
    (void)state;
    char h[65], text[256];
    /* The hash is SHA-256 of the choice followed by the salt (vectors from
     * Python's hashlib). */
    assert_int_equal(wr_campaign_commitment("march", "x7", h), 0);
    assert_string_equal(h, "0b2068d67a950d7cd497f54ce5068cc3d9e4229190add5a553a0e6492a6b103e");
    assert_int_equal(wr_campaign_commitment("counter_march", "pepper", h), 0);
    assert_string_equal(h, "a6c16c546cddac9e6f2fafff2519f740a30459d2f1803fdbc6e5f9890e9e8742");

    /* Row 1: a wrong salt is refused; row 2: no salt is refused; row 3:
     * the right salt is taken; row 4: a commitment after the choice is
     * refused. */
    struct wr_campaign *c = line_battle(NULL, 1);
    snprintf(text, sizeof text, "{'type':'commit','commitment':'%s'}", h);
    ok(c, "p1", text, 0);
    refused(c, "p1", "{'type':'tactic','choice':'counter_march','salt':'salt'}",
            WR_CR_COMMITMENT_MISMATCH, 1);
    refused(c, "p1", "{'type':'tactic','choice':'counter_march'}", WR_CR_COMMITMENT_MISMATCH, 2);
    refused(c, "p1", "{'type':'tactic','choice':'march','salt':'pepper'}",
            WR_CR_COMMITMENT_MISMATCH, 2);
    assert_int_equal(c->phase, WR_CP_TACTICS);
    ok(c, "p1", "{'type':'tactic','choice':'counter_march','salt':'pepper'}", 3);
    refused(c, "p1", text, WR_CR_ALREADY_CHOSEN, 4);
    refused(c, "p1", "{'type':'tactic','choice':'attack'}", WR_CR_ALREADY_CHOSEN, 4);
    /* Row 5: the other side reveals without any commitment, with or
     * without a salt. */
    json_t *ev = ok_ev(c, "p2", "{'type':'tactic','choice':'march'}", 5);
    json_t *t = find_event(ev, "tactics", 0);
    assert_non_null(t);
    assert_string_equal(str(json_object_get(t, "attacker"), "commitment"), h);
    assert_string_equal(str(json_object_get(t, "attacker"), "salt"), "pepper");
    assert_null(json_object_get(json_object_get(t, "defender"), "commitment"));
    assert_string_equal(str(t, "result"), "ambush");       /* Blue ambushes red */
    assert_string_equal(str(t, "by"), "p1");
    json_decref(ev);
    wr_campaign_free(c);

    c = line_battle(NULL, 1);
    ok(c, "p2", "{'type':'tactic','choice':'defend','salt':'any salt, no commitment'}", 6);
    /* Row 7: only the sides of the battle choose. */
    refused(c, "p3", "{'type':'tactic','choice':'defend'}", WR_CR_NOT_YOUR_TURN, 7);
    wr_campaign_free(c);
}

/* --- what each seat sees ------------------------------------------------------------ */

static char *dump(const json_t *j)
{
    return json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
}

/* Neither the state for seat nor the events of the last command for seat
 * hold any of secrets. */
static void hidden_from(struct wr_campaign *c, const char *seat, const json_t *events,
                        const char *const *secrets, int row)
{
    json_t *st = wr_campaign_project(c, seat), *ev = wr_campaign_project_events(c, seat, events);
    char *a = dump(st), *b = dump(ev);
    for (int i = 0; secrets[i]; i++)
        if (strstr(a, secrets[i]) || strstr(b, secrets[i]))
            fail_msg("row %d: %s sees '%s':\n%s\n%s", row, seat ? seat : "a spectator",
                     secrets[i], a, b);
    free(a);
    free(b);
    json_decref(st);
    json_decref(ev);
}

static void seen_by(struct wr_campaign *c, const char *seat, const json_t *events,
                    const char *secret, int row)
{
    json_t *st = wr_campaign_project(c, seat), *ev = wr_campaign_project_events(c, seat, events);
    char *a = dump(st), *b = dump(ev);
    if (!strstr(a, secret) || (events && !strstr(b, secret)))
        fail_msg("row %d: %s does not see '%s'", row, seat ? seat : "a spectator", secret);
    free(a);
    free(b);
    json_decref(st);
    json_decref(ev);
}

static void test_sealed_projection(void **state)
{
    (void)state;
    /* p1 A E, p2 B C, p3 D F (a bystander), and a referee. p1 attacks B;
     * p1 wins the strategy dice and rolls a 2: a Hidden Ambush Force. */
    struct wr_campaign *c = make(CT_GRID6, "{'players':3,'referee':true}");
    own(c, "122313");
    to_attack(c, 0);
    ok(c, "p1", "{'type':'attack','target':'B'}", 1);
    c->rolls = find_k(c, 2, 2, 0, 2);
    ok(c, "p2", "{'type':'counter','town':'A'}", 2);
    assert_int_equal(c->at.note[0].needed, 1);
    const char *const others[] = { "p2", "p3", "referee", NULL };

    /* The commitment is p1's alone. */
    const char *salt = "Zq9-secret-salt-77";
    char h[65], text[256];
    assert_int_equal(wr_campaign_commitment("attack", salt, h), 0);
    snprintf(text, sizeof text, "{'type':'commit','commitment':'%s'}", h);
    json_t *ev = ok_ev(c, "p1", text, 3);
    const char *const s1[] = { h, salt, NULL };
    for (int i = 0; i < 4; i++)
        hidden_from(c, i < 3 ? others[i] : NULL, ev, s1, 3);
    seen_by(c, "p1", ev, h, 3);
    json_decref(ev);

    /* p1's choice with its salt: still p1's alone; the others see that it
     * is in, nothing more. */
    snprintf(text, sizeof text, "{'type':'tactic','choice':'attack','salt':'%s'}", salt);
    ev = ok_ev(c, "p1", text, 4);
    const char *const s2[] = { h, salt, "\"choice\"", NULL };
    for (int i = 0; i < 4; i++)
        hidden_from(c, i < 3 ? others[i] : NULL, ev, s2, 4);
    seen_by(c, "p1", ev, salt, 4);
    json_t *st = wr_campaign_project(c, NULL);
    json_t *want = json_pack("{s:b}", "submitted", 1);
    assert_true(json_equal(json_object_get(json_object_get(json_object_get(st, "attack"),
                                                           "tactics"), "p1"), want));
    json_decref(want);
    json_decref(st);
    json_decref(ev);

    /* The ambush note: p1's alone. */
    const char *note = "Light cavalry behind the wood north-east of E, hidden-7731";
    snprintf(text, sizeof text, "{'type':'seal_ambush','note':'%s'}", note);
    ev = ok_ev(c, "p1", text, 5);
    const char *const s3[] = { note, "hidden-7731", NULL };
    for (int i = 0; i < 4; i++)
        hidden_from(c, i < 3 ? others[i] : NULL, ev, s3, 5);
    seen_by(c, "p1", ev, note, 5);
    json_decref(ev);

    /* p2's choice, plain: now both are in and everyone sees both. */
    ev = ok_ev(c, "p2", "{'type':'tactic','choice':'attack'}", 6);
    assert_int_equal(c->phase, WR_CP_BATTLE);           /* open battle */
    for (int i = 0; i < 4; i++) {
        seen_by(c, i < 3 ? others[i] : NULL, ev, salt, 6);
        seen_by(c, i < 3 ? others[i] : NULL, ev, h, 6);
    }
    json_decref(ev);
    for (int i = 0; i < 4; i++)
        hidden_from(c, i < 3 ? others[i] : NULL, NULL, s3, 7);   /* the note stays sealed */

    /* Only the ambusher or the referee shows the note. */
    refused(c, "p2", "{'type':'reveal_ambush','seat':'p1'}", WR_CR_NOT_YOUR_TURN, 8);
    refused(c, "p2", "{'type':'reveal_ambush'}", WR_CR_NO_AMBUSH, 8);
    refused(c, "p3", "{'type':'reveal_ambush','seat':'p1'}", WR_CR_NOT_YOUR_TURN, 8);
    refused(c, "referee", "{'type':'reveal_ambush','seat':'p3'}", WR_CR_BAD_COMMAND, 8);
    ev = ok_ev(c, "referee", "{'type':'reveal_ambush'}", 9);
    for (int i = 0; i < 4; i++)
        seen_by(c, i < 3 ? others[i] : NULL, ev, note, 9);
    json_decref(ev);
    refused(c, "p1", "{'type':'reveal_ambush'}", WR_CR_NO_AMBUSH, 10);  /* already shown */
    wr_campaign_free(c);

    /* The ambusher may show it too; spectators never see a sealed note
     * before that. */
    c = make(CT_GRID6, "{'players':3,'referee':true}");
    own(c, "122313");
    to_attack(c, 0);
    ok(c, "p1", "{'type':'attack','target':'B'}", 11);
    c->rolls = find_k(c, 2, 2, 0, 2);
    ok(c, "p2", "{'type':'counter','town':'A'}", 11);
    tactic(c, "p1", "attack", 11);
    tactic(c, "p2", "attack", 11);
    /* Reports wait for the note. */
    refused(c, "p2", "{'type':'report','attacker':900,'defender':1200}", WR_CR_AMBUSH_NOTE_MISSING,
            12);
    snprintf(text, sizeof text, "{'type':'seal_ambush','note':'%s'}", note);
    ok(c, "p1", text, 13);
    refused(c, "p1", text, WR_CR_AMBUSH_SEALED, 13);
    refused(c, "p2", "{'type':'seal_ambush','note':'mine'}", WR_CR_NO_AMBUSH, 13);
    hidden_from(c, NULL, NULL, s3, 14);
    ok(c, "p1", "{'type':'reveal_ambush'}", 15);
    seen_by(c, NULL, NULL, note, 15);
    wr_campaign_free(c);
}

/* --- battle results ------------------------------------------------------------------- */

static struct wr_campaign *line_fought(const char *opts)
{
    struct wr_campaign *c = line_battle(opts, 1);
    tactic(c, "p1", "attack", 0);
    tactic(c, "p2", "attack", 0);           /* open battle */
    assert_int_equal(c->phase, WR_CP_BATTLE);
    return c;
}

static void test_reports(void **state)
{
    (void)state;
    /* LINE4: p1 A B attacks C (p2 C D), B at stake. */
    static const struct {
        int row;
        int a, d;               /* agreed victory points */
        const char *owners;     /* after */
    } t[] = {
        { 1, 1500, 1000, "1112" },      /* the attacker by 500: takes C */
        { 2, 1250, 1000, "1112" },      /* by exactly 250 */
        { 3, 1249, 1000, "1122" },      /* by 249: no town changes */
        { 4, 1000, 1000, "1122" },      /* a draw */
        { 5, 700, 1000, "1222" },       /* the defender by 300: takes B */
        { 6, 0, 249, "1122" },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        struct wr_campaign *c = line_fought(NULL);
        char text[128];
        snprintf(text, sizeof text, "{'type':'report','attacker':%d,'defender':%d}", t[i].a,
                 t[i].d);
        ok(c, "p1", text, t[i].row);
        assert_int_equal(c->phase, WR_CP_BATTLE);
        json_t *st = wr_campaign_project(c, NULL);
        assert_string_equal(str(json_object_get(st, "awaiting"), "seat"), "p2");
        json_decref(st);
        json_t *ev = ok_ev(c, "p2", text, t[i].row);
        char owners[5];
        for (int k = 0; k < 4; k++)
            owners[k] = (char)('1' + c->owner[k]);
        owners[4] = '\0';
        if (strcmp(owners, t[i].owners) != 0)
            fail_msg("row %d: owners %s, want %s", t[i].row, owners, t[i].owners);
        json_t *r = find_event(ev, "battle_result", 0);
        assert_non_null(r);
        assert_int_equal(json_is_true(json_object_get(r, "towns_change")),
                         strcmp(t[i].owners, "1122") != 0);
        assert_int_equal(c->nhistory, 1);
        json_decref(ev);
        wr_campaign_free(c);
    }
}

static void test_disputes(void **state)
{
    (void)state;
    /* Row 1: with a referee, a disagreement waits for the referee. */
    struct wr_campaign *c = line_fought("{'referee':true}");
    refused(c, "referee", "{'type':'settle','attacker':1,'defender':2}", WR_CR_NOT_DISPUTED, 1);
    ok(c, "p1", "{'type':'report','attacker':1500,'defender':1000}", 1);
    json_t *ev = ok_ev(c, "p2", "{'type':'report','attacker':1000,'defender':1500}", 1);
    assert_non_null(find_event(ev, "disputed", 0));
    json_decref(ev);
    assert_true(c->at.disputed);
    assert_string_equal(wr_game_awaited(&c->base), "referee");
    refused(c, "p1", "{'type':'settle','attacker':1500,'defender':1000}", WR_CR_NOT_YOUR_TURN, 2);
    ev = ok_ev(c, "referee", "{'type':'settle','attacker':1500,'defender':1000}", 3);
    assert_true(json_is_true(json_object_get(find_event(ev, "battle_result", 0), "settled")));
    json_decref(ev);
    assert_int_equal(c->owner[2], 0);           /* C to p1 */
    json_t *st = wr_campaign_project(c, NULL);
    json_t *h = json_array_get(json_object_get(st, "history"), 0);
    assert_true(json_is_true(json_object_get(h, "settled")));
    assert_string_equal(str(h, "towns_to"), "p1");
    json_decref(st);
    wr_campaign_free(c);

    /* Row 4: without a referee, the players report again until they agree. */
    c = line_fought(NULL);
    ok(c, "p1", "{'type':'report','attacker':1500,'defender':1000}", 4);
    ok(c, "p2", "{'type':'report','attacker':1400,'defender':1000}", 4);
    assert_true(c->at.disputed);
    refused(c, "p1", "{'type':'settle','attacker':1500,'defender':1000}", WR_CR_NOT_YOUR_TURN, 5);
    ok(c, "p1", "{'type':'report','attacker':1400,'defender':1000}", 6);
    assert_int_equal(c->phase, WR_CP_ATTACK);
    assert_int_equal(c->owner[2], 0);
    wr_campaign_free(c);
}

/* --- the end of a campaign ---------------------------------------------------------- */

static void test_conquest(void **state)
{
    (void)state;
    /* p2 holds only D: losing it by 250 or more ends the campaign. */
    struct wr_campaign *c = make(LINE4, NULL);
    own(c, "1112");
    to_attack(c, 0);
    ok(c, "p1", "{'type':'attack','target':'D'}", 1);
    c->rolls = find_k(c, 2, 1, -1, 0);     /* B C against D: a tie */
    ok(c, "p2", "{'type':'counter','town':'C'}", 1);
    tactic(c, "p1", "defend", 1);
    tactic(c, "p2", "defend", 1);          /* skirmish */
    ok(c, "p1", "{'type':'report','attacker':1300,'defender':600}", 1);
    json_t *ev = ok_ev(c, "p2", "{'type':'report','attacker':1300,'defender':600}", 1);
    assert_non_null(find_event(ev, "eliminated", 0));
    json_t *go = find_event(ev, "game_over", 0);
    assert_string_equal(str(go, "winner"), "p1");
    assert_string_equal(str(go, "end"), "conquest");
    json_decref(ev);
    assert_int_equal(c->phase, WR_CP_OVER);
    assert_null(wr_game_awaited(&c->base));
    assert_string_equal(wr_ruleset_campaign.result(&c->base), "p1");
    refused(c, "p1", "{'type':'attack','target':'A'}", WR_CR_GAME_OVER, 2);
    /* The seed is shown once the campaign is over. */
    json_t *st = wr_campaign_project(c, NULL);
    assert_int_equal(strlen(str(json_object_get(st, "dice"), "seed")), 64);
    json_decref(st);
    wr_campaign_free(c);

    /* An alliance wins together. */
    c = make(LINE4, "{'players':3,'alliances':[['p1','p3']]}");
    own(c, "3112");
    to_attack(c, 1);
    c->first = 1;
    ok(c, "p2", "{'type':'attack','target':'C'}", 3);
    c->rolls = find_k(c, 1, 2, -1, 0);     /* D against B C: a tie */
    refused(c, "p3", "{'type':'counter','town':'D'}", WR_CR_NOT_YOUR_TURN, 3);  /* an ally */
    ok(c, "p1", "{'type':'counter','town':'D'}", 3);
    tactic(c, "p2", "attack", 3);
    tactic(c, "p1", "attack", 3);
    ok(c, "p2", "{'type':'report','attacker':100,'defender':2000}", 3);
    ok(c, "p1", "{'type':'report','attacker':100,'defender':2000}", 3);
    assert_int_equal(c->phase, WR_CP_OVER);
    assert_string_equal(wr_ruleset_campaign.result(&c->base), "p1+p3");
    wr_campaign_free(c);
}

static void test_turn_limit_and_passing(void **state)
{
    (void)state;
    /* max_turns 1: p1 and p2 attack once each, then the most towns wins. */
    static const struct {
        int row;
        int second_margin;      /* p2's win in the second attack */
        const char *winner;
    } t[] = {
        { 1, 300, "p2" },       /* p2 takes B: 3 towns to 1 */
        { 2, 100, "draw" },     /* nothing changes: 2 to 2 */
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        struct wr_campaign *c = make(LINE4, "{'max_turns':1}");
        own(c, "1122");
        to_attack(c, 0);
        ok(c, "p1", "{'type':'attack','target':'C'}", t[i].row);
        c->rolls = find_k(c, 2, 2, -1, 0);
        ok(c, "p2", "{'type':'counter','town':'B'}", t[i].row);
        tactic(c, "p1", "attack", t[i].row);
        tactic(c, "p2", "attack", t[i].row);
        ok(c, "p1", "{'type':'report','attacker':1000,'defender':1000}", t[i].row);
        ok(c, "p2", "{'type':'report','attacker':1000,'defender':1000}", t[i].row);
        assert_int_equal(c->phase, WR_CP_ATTACK);
        assert_int_equal(c->active, 1);
        assert_int_equal(c->turn, 1);
        ok(c, "p2", "{'type':'attack','target':'B'}", t[i].row);
        c->rolls = find_k(c, 2, 2, -1, 0);
        ok(c, "p1", "{'type':'counter','town':'C'}", t[i].row);
        tactic(c, "p2", "attack", t[i].row);
        tactic(c, "p1", "attack", t[i].row);
        char text[128];
        snprintf(text, sizeof text, "{'type':'report','attacker':%d,'defender':1000}",
                 1000 + t[i].second_margin);
        ok(c, "p2", text, t[i].row);
        json_t *ev = ok_ev(c, "p1", text, t[i].row);
        json_t *go = find_event(ev, "game_over", 0);
        if (go == NULL || strcmp(str(go, "winner"), t[i].winner) != 0 ||
            strcmp(str(go, "end"), "turns") != 0)
            fail_msg("row %d: %s", t[i].row, go ? str(go, "winner") : "not over");
        json_decref(ev);
        wr_campaign_free(c);
    }

    /* A player with nobody to attack passes: p3 holds A, next only to its
     * ally p1's B. */
    struct wr_campaign *c = make(LINE4, "{'players':3,'alliances':[['p1','p3']]}");
    own(c, "3122");
    to_attack(c, 1);        /* p2's attack in turn 1 (p1 first) */
    ok(c, "p2", "{'type':'attack','target':'B'}", 3);
    c->rolls = find_k(c, 2, 2, -1, 0);
    ok(c, "p1", "{'type':'counter','town':'C'}", 3);
    tactic(c, "p2", "march", 3);
    tactic(c, "p1", "march", 3);           /* meeting battle */
    ok(c, "p2", "{'type':'report','attacker':1000,'defender':1100}", 3);
    json_t *ev = ok_ev(c, "p1", "{'type':'report','attacker':1000,'defender':1100}", 3);
    assert_int_equal(count_events(ev, "passed", "seat", "p3"), 1);
    json_t *turn = find_event(ev, "turn", 0);
    assert_int_equal(json_integer_value(json_object_get(turn, "turn")), 2);
    json_decref(ev);
    assert_int_equal(c->active, 0);
    assert_int_equal(c->turn, 2);
    wr_campaign_free(c);
}

/* --- whole campaigns ---------------------------------------------------------------- */

/* Play a campaign to its end with the ruleset's random player
 * (wr_campaign_autoplay), an awaited seat picked at random each time;
 * returns the final public state (new reference) and checks that every
 * command it proposes is accepted and that the rolls are numbered 0, 1,
 * 2, ... across the whole game. */
static json_t *play(const char *map_path, const char *opts, unsigned seed, int *commands,
                    int *commits)
{
    struct wr_campaign_map map;
    struct wr_refusal why = { WR_CR_OK, "ok", "" };
    if (wr_campaign_map_load_file(&map, map_path, &why) != 0)
        fail_msg("%s: %s", map_path, why.message);
    json_t *o = opts ? ct_jq(opts) : NULL;
    uint8_t s[32] = { 0 };
    s[0] = (uint8_t)seed;
    s[1] = (uint8_t)(seed >> 8);
    struct wr_campaign *c = wr_campaign_new(&map, o, "g-bot", s, NULL, &why);
    json_decref(o);
    assert_non_null(c);
    struct wr_prng rnd;
    wr_prng_seed(&rnd, seed * 7919u + 1);
    int64_t next_k = 0;
    for (*commands = 0; c->phase != WR_CP_OVER; (*commands)++) {
        if (*commands > 100000)
            fail_msg("seed %u: the campaign did not end", seed);
        json_t *st = wr_campaign_project(c, NULL);
        json_t *aw = json_object_get(st, "awaiting");
        json_t *seats = json_object_get(aw, "seats");
        assert_true(json_object_size(seats) > 0);
        /* Any of the seats that may act: pick one. */
        size_t pick = (size_t)wr_prng_below(&rnd, (int)json_object_size(seats)), i = 0;
        const char *seat = NULL, *what = NULL, *key;
        json_t *v;
        json_object_foreach(seats, key, v) {
            if (i++ == pick) {
                seat = key;
                what = json_string_value(v);
            }
        }
        json_t *cmd = wr_campaign_autoplay(c, seat, &rnd), *ev = NULL;
        if (cmd == NULL)
            fail_msg("seed %u: no command for %s, awaited for %s", seed, seat, what);
        enum wr_campaign_reason r = wr_campaign_apply(c, seat, cmd, &ev, &why);
        if (r != WR_CR_OK) {
            char *text = json_dumps(cmd, JSON_COMPACT);
            fail_msg("seed %u: %s from %s refused: %s", seed, text, seat, why.message);
        }
        invariants(c);
        size_t k;
        json_t *e;
        json_array_foreach(ev, k, e) {
            if (strcmp(str(e, "type"), "tactic_committed") == 0)
                (*commits)++;
            if (strcmp(str(e, "type"), "roll") != 0)
                continue;
            json_int_t kk = json_integer_value(json_object_get(e, "k"));
            if (kk != next_k)
                fail_msg("seed %u: roll k %lld, want %lld", seed, (long long)kk, (long long)next_k);
            assert_int_equal(json_integer_value(json_object_get(e, "face")),
                             wr_dice_roll(c->seed, c->game_id, (uint32_t)kk));
            next_k++;
        }
        json_decref(cmd);
        json_decref(ev);
        json_decref(st);
    }
    assert_int_equal(next_k, c->rolls);
    json_t *final = wr_campaign_project(c, NULL);
    wr_campaign_free(c);
    return final;
}

static void test_whole_campaigns(void **state)
{
    (void)state;
    static const struct {
        int row;
        const char *map;
        const char *opts;
    } t[] = {
        { 1, "ancient-world", "{'players':3,'max_turns':2}" },
        { 2, "ancient-world",
          "{'players':4,'alliances':[['p1','p3']],'referee':true,'max_turns':3}" },
        { 3, "low-countries-1815", "{'players':2,'max_turns':2,'max_rounds':2}" },
        { 4, "low-countries-1815", "{'players':8,'referee':true,'max_turns':1}" },
        { 5, "ancient-world", "{'players':2}" },       /* to the conquest */
    };
    int commits = 0;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/campaign/%s.json", WARROOM_SCENARIO_DIR, t[i].map);
        for (unsigned seed = 1; seed <= 6; seed++) {
            int n1, n2;
            json_t *a = play(path, t[i].opts, seed, &n1, &commits);
            json_t *b = play(path, t[i].opts, seed, &n2, &commits);
            /* The same seed and the same choices: the same campaign. */
            if (!json_equal(a, b) || n1 != n2)
                fail_msg("row %d seed %u: replay differs", t[i].row, seed);
            assert_string_equal(str(a, "phase"), "over");
            assert_non_null(str(a, "winner"));
            if (t[i].row == 5)
                assert_string_equal(str(a, "end"), "conquest");
            json_decref(a);
            json_decref(b);
        }
    }
    /* The random player sends commitments too, and opens them again. */
    assert_true(commits > 0);
}

/* Golden: a fixed seed and fixed commands give the same state, byte for
 * byte, as tests/golden/campaign-ancient-counter.state.json (which the
 * warroom campaign-map tests read). The commands: p1 starts, every pick of
 * the draft is the first legal town in map order, the first attack the
 * first legal target. */
/* A host's dice: the faces of rolls 0..n-1, none after. */
struct host_faces {
    const int *face;
    uint32_t n;
};

static int host_face(void *ctx, uint32_t k)
{
    const struct host_faces *h = ctx;
    return k < h->n ? h->face[k] : 0;
}

/* Without a seed the dice are the host's (a record replayed): a roll the
 * host has no face for refuses the command that needed it, whole, and the
 * game stays as it was (ruleset.h, struct wr_host). */
static void test_dice_from_the_host(void **state)
{
    (void)state;
    struct wr_campaign_map map;
    struct wr_refusal why = { WR_CR_OK, "ok", "" };
    json_t *m = ct_jq(LINE4);
    assert_int_equal(wr_campaign_map_load(&map, m, &why), 0);
    json_decref(m);
    static const int faces[] = { 5, 2 };
    struct host_faces none = { faces, 0 }, two = { faces, 2 };
    struct wr_host h_none = { host_face, NULL, &none }, h_two = { host_face, NULL, &two };
    /* No face at all: start (who chooses first is rolled) is refused. */
    struct wr_campaign *c = wr_campaign_new(&map, NULL, "g-host", NULL, &h_none, &why);
    assert_non_null(c);
    refused(c, "p1", "{'type':'start'}", WR_CR_BAD_COMMAND, 1);
    assert_int_equal(c->phase, WR_CP_START);
    assert_int_equal(c->rolls, 0);
    struct wr_refusal w2 = { WR_CR_OK, "ok", "" };
    json_t *cmd = ct_jq("{'type':'start'}"), *ev = NULL;
    assert_int_equal(wr_campaign_apply(c, "p1", cmd, &ev, &w2), WR_CR_BAD_COMMAND);
    assert_string_equal(w2.code, "bad_command");
    assert_non_null(strstr(w2.message, "roll 0 has no face"));
    assert_null(ev);
    wr_campaign_free(c);
    /* With the host's faces: accepted, and the events carry them. */
    c = wr_campaign_new(&map, NULL, "g-host", NULL, &h_two, &why);
    assert_non_null(c);
    assert_int_equal(wr_campaign_apply(c, "p1", cmd, &ev, &w2), WR_CR_OK);
    size_t i;
    json_t *e;
    int seen = 0;
    json_array_foreach(ev, i, e)
        if (strcmp(str(e, "type"), "roll") == 0)
            assert_int_equal(json_integer_value(json_object_get(e, "face")), faces[seen++]);
    assert_true(seen >= 1);
    json_decref(ev);
    json_decref(cmd);
    wr_campaign_free(c);
}

static void test_golden_state(void **state)
{
    (void)state;
    struct wr_campaign_map m;
    struct wr_refusal why = { WR_CR_OK, "ok", "" };
    assert_int_equal(wr_campaign_map_load_file(
                         &m, WARROOM_SCENARIO_DIR "/campaign/ancient-world.json", &why), 0);
    json_t *o = ct_jq("{'players':3,'alliances':[['p1','p3']],'max_turns':4}");
    static const uint8_t seed[32] = { 42 };
    struct wr_campaign *c = wr_campaign_new(&m, o, "g-example", seed, NULL, &why);
    json_decref(o);
    assert_non_null(c);
    ok(c, "p1", "{'type':'start'}", 1);
    while (c->phase == WR_CP_DRAFT || c->phase == WR_CP_ATTACK) {
        int attack = c->phase == WR_CP_ATTACK, t = 0;
        while ((attack ? wr_campaign_check_attack(c, c->active, t, NULL)
                       : wr_campaign_check_draft(c, c->active, t, NULL)) != WR_CR_OK)
            t++;
        char text[128];
        snprintf(text, sizeof text, attack ? "{'type':'attack','target':'%s'}"
                                           : "{'type':'choose_town','town':'%s'}",
                 m.towns[t].name);
        ok(c, wr_game_awaited(&c->base), text, 2);
    }
    assert_int_equal(c->phase, WR_CP_COUNTER);
    json_t *got = wr_campaign_project(c, NULL);
    json_error_t err;
    json_t *want = json_load_file(WARROOM_GOLDEN_DIR "/campaign-ancient-counter.state.json",
                                  JSON_REJECT_DUPLICATES, &err);
    if (want == NULL)
        fail_msg("golden state: %s", err.text);
    char *a = json_dumps(got, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    char *b = json_dumps(want, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    if (strcmp(a, b) != 0)
        fail_msg("the state differs from the golden one:\n%s", a);
    free(a);
    free(b);
    json_decref(got);
    json_decref(want);
    wr_campaign_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_map_errors),
        cmocka_unit_test(test_shipped_maps),
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_command_shapes),
        cmocka_unit_test(test_tactics_table),
        cmocka_unit_test(test_tactics_cells_played),
        cmocka_unit_test(test_strategy_results),
        cmocka_unit_test(test_strategy_dice_counts),
        cmocka_unit_test(test_draft_rule),
        cmocka_unit_test(test_draft_played),
        cmocka_unit_test(test_attack_and_counter_rules),
        cmocka_unit_test(test_no_battle_rechoice),
        cmocka_unit_test(test_round_limit),
        cmocka_unit_test(test_commitments),
        cmocka_unit_test(test_sealed_projection),
        cmocka_unit_test(test_reports),
        cmocka_unit_test(test_disputes),
        cmocka_unit_test(test_conquest),
        cmocka_unit_test(test_turn_limit_and_passing),
        cmocka_unit_test(test_whole_campaigns),
        cmocka_unit_test(test_dice_from_the_host),
        cmocka_unit_test(test_golden_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
