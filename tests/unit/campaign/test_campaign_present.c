/*
 * test_campaign_present.c - the campaign's presentation
 * (common/rulesets/campaign/campaign_present.c, campaign_draw.c), driven
 * only through struct wr_present (common/core/present.h) as a client
 * drives it: games made by wr_ruleset_campaign itself, each seat's view fed
 * the seat's projection with a "server" section as server/games.c adds it.
 *
 * Checked: every order line gives its exact command, what a line leaves
 * out is filled from the state, bad lines are refused with the synopsis;
 * precheck() agrees with apply() (same reason code, same sentence) on
 * accepted and refused commands in every phase, the two branches of the
 * defender's counter (C4) included; describe() names the awaited seat and
 * its decision; completion; the text map fits its room and has no ESC
 * without colour; the SVG is well formed; every event has its line.
 *
 * Rows are numbered so a failure names its row.
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
#include "present.h"
#include "strbuf.h"

#ifndef WARROOM_SCENARIO_DIR
#error "WARROOM_SCENARIO_DIR must name scenarios/"
#endif

static const uint8_t SEED[32] = { 3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3,
                                  2, 3, 8, 4, 6, 2, 6, 4, 3, 3, 8, 3, 2, 7, 9, 5 };

#define SEATS_MAX 10

/* A game and a view per seat, plus a spectator's (the last). */
struct h {
    const struct wr_ruleset *rs;
    const struct wr_present *pr;
    json_t *scenario;
    struct wr_game *g;
    const char *seat[SEATS_MAX];
    struct wr_view *view[SEATS_MAX + 1];
    int nseats;
};

/* The server section server/games.c adds to every state. */
static json_t *server_section(const struct h *h)
{
    struct wr_decision d[SEATS_MAX];
    int n = h->rs->awaiting(h->g, d, SEATS_MAX);
    const char *res = h->rs->result(h->g);
    json_t *aw = json_object();
    for (int i = 0; i < n; i++)
        json_object_set_new(aw, d[i].seat, json_string(d[i].what));
    return json_pack("{s:s, s:o, s:n, s:o, s:{}}", "status", res ? "finished" : "running",
                     "result", res ? json_string(res) : json_null(), "forfeit", "awaiting", aw,
                     "deadlines");
}

static void refresh(struct h *h)
{
    json_t *section = server_section(h);
    for (int v = 0; v <= h->nseats; v++) {
        json_t *st = h->rs->project(h->g, v < h->nseats ? h->seat[v] : NULL);
        json_object_set(st, "server", section);
        struct wr_refusal why;
        if (h->pr->update(h->view[v], st, &why) != 0)
            fail_msg("update refused the ruleset's own state: %s", why.message);
        json_decref(st);
    }
    json_decref(section);
}

static void open_game(struct h *h, const char *options)
{
    memset(h, 0, sizeof *h);
    h->rs = &wr_ruleset_campaign;
    h->pr = h->rs->present;
    assert_ptr_equal(h->pr, &wr_present_campaign);
    json_error_t err;
    h->scenario = json_load_file(WARROOM_SCENARIO_DIR "/campaign/ancient-world.json", 0, &err);
    assert_non_null(h->scenario);
    json_t *o = options ? ct_jq(options) : NULL;
    struct wr_refusal why;
    h->g = h->rs->create(h->scenario, o, "g-present", SEED, NULL, &why);
    if (h->g == NULL)
        fail_msg("create: %s", why.message);
    const char *const *seats = h->rs->seats(h->g);
    for (h->nseats = 0; seats[h->nseats]; h->nseats++)
        h->seat[h->nseats] = seats[h->nseats];
    for (int v = 0; v <= h->nseats; v++) {
        h->view[v] = h->pr->open(h->rs, h->scenario, o, v < h->nseats ? h->seat[v] : NULL, NULL,
                                 &why);
        if (h->view[v] == NULL)
            fail_msg("open: %s", why.message);
        assert_int_equal(h->view[v]->has_state, 0);
    }
    json_decref(o);
    refresh(h);
}

static void close_game(struct h *h)
{
    for (int v = 0; v <= h->nseats; v++)
        h->pr->close(h->view[v]);
    h->rs->destroy(h->g);
    json_decref(h->scenario);
}

static struct wr_view *view_of(struct h *h, const char *seat)
{
    for (int v = 0; v < h->nseats; v++)
        if (strcmp(h->seat[v], seat) == 0)
            return h->view[v];
    return h->view[h->nseats];
}

static struct wr_campaign *camp(struct h *h)
{
    return (struct wr_campaign *)h->g;
}

/* Owners by player: p1 holds the towns of the first list, p3 those of the
 * second (may be NULL), p2 every other; then p1 attacks in turn 1. */
static void position(struct h *h, const char *const *p1, const char *const *p3)
{
    struct wr_campaign *c = camp(h);
    for (int t = 0; t < c->map.ntowns; t++)
        c->owner[t] = 1;
    for (int i = 0; p1[i]; i++)
        c->owner[wr_campaign_map_find(&c->map, p1[i])] = 0;
    for (int i = 0; p3 && p3[i]; i++)
        c->owner[wr_campaign_map_find(&c->map, p3[i])] = 2;
    c->phase = WR_CP_ATTACK;
    c->first = c->active = 0;
    c->turn = 1;
    memset(&c->at, 0, sizeof c->at);
    struct wr_refusal why;
    if (wr_campaign_check(c, &why) != 0)
        fail_msg("test position: %s", why.message);
    refresh(h);
}

/* The command of a line typed in seat's view (a new reference). */
static json_t *order_of(struct h *h, const char *seat, const char *line, int row)
{
    json_t *cmd = NULL;
    struct wr_strbuf out;
    struct wr_refusal why = { 0, "ok", "" };
    wr_strbuf_init(&out);
    enum wr_order_kind k = h->pr->order(view_of(h, seat), line, &cmd, &out, &why);
    wr_strbuf_release(&out);
    if (k != WR_ORDER_COMMAND || cmd == NULL)
        fail_msg("row %d: '%s' gave no command: %s", row, line, why.message);
    return cmd;
}

/* precheck() and apply() must agree on cmd (a line, or JSON when it starts
 * with '{') from seat: the same verdict, code and sentence; want is the
 * code expected ("ok" for accepted). An accepted command is applied. */
static void agree(struct h *h, const char *seat, const char *text, const char *want, int row)
{
    json_t *cmd = text[0] == '{' ? ct_jq(text) : order_of(h, seat, text, row);
    struct wr_refusal pre = { 0, "ok", "" }, srv = { 0, "ok", "" };
    int verdict = h->pr->precheck(view_of(h, seat), cmd, &pre);
    json_t *ev = NULL;
    int r = h->rs->apply(h->g, seat, cmd, &ev, &srv);
    const char *got = r == 0 ? "ok" : srv.code;
    if (strcmp(got, want) != 0)
        fail_msg("row %d: %s from %s: the server says %s (%s), want %s", row, text, seat, got,
                 srv.message, want);
    if (r == 0 && verdict != 1)
        fail_msg("row %d: %s from %s: accepted, but precheck says %d (%s: %s)", row, text, seat,
                 verdict, pre.code, pre.message);
    if (r != 0 && (verdict != -1 || strcmp(pre.code, srv.code) != 0 ||
                   strcmp(pre.message, srv.message) != 0))
        fail_msg("row %d: %s from %s: the server refuses %s '%s', precheck says %d %s '%s'", row,
                 text, seat, srv.code, srv.message, verdict, pre.code, pre.message);
    json_decref(ev);
    json_decref(cmd);
    if (r == 0)
        refresh(h);
}

static char *text_of(struct h *h, const char *seat,
                     void (*fn)(const struct wr_view *, struct wr_strbuf *))
{
    struct wr_strbuf out;
    wr_strbuf_init(&out);
    fn(view_of(h, seat), &out);
    char *s = strdup(out.s ? out.s : "");
    wr_strbuf_release(&out);
    return s;
}

static char *describe(struct h *h, const char *seat)
{
    return text_of(h, seat, h->pr->describe);
}

static void contains(const char *text, const char *want, int row)
{
    if (strstr(text, want) == NULL)
        fail_msg("row %d: '%s' not in:\n%s", row, want, text);
}

static void lacks(const char *text, const char *bad, int row)
{
    if (strstr(text, bad) != NULL)
        fail_msg("row %d: '%s' should not be in:\n%s", row, bad, text);
}

/* The draft played to its end with the first town each chooser may take. */
static void play_draft(struct h *h)
{
    struct wr_campaign *c = camp(h);
    for (int row = 1000; c->phase == WR_CP_DRAFT; row++) {
        const char *seat = wr_game_awaited(h->g);
        int p = wr_campaign_player(c, seat), t = 0;
        while (wr_campaign_check_draft(c, p, t, NULL) != WR_CR_OK)
            t++;
        char line[96];
        snprintf(line, sizeof line, "choose %s", c->map.towns[t].name);
        agree(h, seat, line, "ok", row);
    }
}

/* Past the strategy phase: each Brilliant Generalship takes scouts. */
static void past_strategy(struct h *h)
{
    for (int row = 2000; camp(h)->phase == WR_CP_STRATEGY; row++)
        agree(h, wr_game_awaited(h->g), "strategy scouts", "ok", row);
}

/* --- orders ---------------------------------------------------------------------- */

static void test_orders(void **state)
{
    (void)state;
    struct h h;
    open_game(&h, "{'players':2,'referee':true}");
    static const char *const p1[] = { "Gades", "Saguntum", NULL };
    position(&h, p1, NULL);
    static const struct {
        int row;
        const char *line, *want;
    } t[] = {
        { 1, "start", "{'type':'start'}" },
        { 2, "choose Roma", "{'type':'choose_town','town':'Roma'}" },
        { 3, "choose carthago nova", "{'type':'choose_town','town':'Carthago Nova'}" },
        { 4, "choose Carthago_Nova", "{'type':'choose_town','town':'Carthago Nova'}" },
        { 5, "choose 'Leptis Magna'", "{'type':'choose_town','town':'Leptis Magna'}" },
        { 6, "choose Carthago", "{'type':'choose_town','town':'Carthago'}" },
        { 7, "attack  Sparta  ", "{'type':'attack','target':'Sparta'}" },
        { 8, "counter Gades", "{'type':'counter','town':'Gades'}" },
        { 9, "strategy scouts", "{'type':'choose_strategy','strategy':'scouts'}" },
        { 10, "strategy Rapid-Deployment",
          "{'type':'choose_strategy','strategy':'rapid_deployment'}" },
        /* sha256("attackx7"), by sha256sum */
        { 11, "commit attack x7", "{'type':'commit','commitment':"
          "'85202b972188a8f3ff66949516b5573261f3b07fb4f10f605caa8ca4f1b2c357'}" },
        { 12, "tactic counter-march", "{'type':'tactic','choice':'counter_march'}" },
        { 13, "tactic defend s4lt", "{'type':'tactic','choice':'defend','salt':'s4lt'}" },
        { 14, "ambush behind  the wood", "{'type':'seal_ambush','note':'behind  the wood'}" },
        { 15, "reveal", "{'type':'reveal_ambush'}" },
        { 16, "reveal p2", "{'type':'reveal_ambush','seat':'p2'}" },
        { 17, "report 1450 1100", "{'type':'report','attacker':1450,'defender':1100}" },
        { 18, "settle 0 1000000", "{'type':'settle','attacker':0,'defender':1000000}" },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        json_t *got = order_of(&h, "p1", t[i].line, t[i].row), *want = ct_jq(t[i].want);
        if (!json_equal(got, want)) {
            char *s = json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS);
            fail_msg("row %d: '%s' gave %s", t[i].row, t[i].line, s);
        }
        json_decref(got);
        json_decref(want);
    }
    /* Every example of the orders table is a line order() takes. */
    for (const struct wr_order *o = h.pr->orders; o->name; o++) {
        json_decref(order_of(&h, "p1", o->example, 20));
        assert_ptr_equal(wr_present_order(h.pr, o->name), o);
        assert_non_null(strstr(o->synopsis, o->name));
        assert_true(strlen(o->help) > 20);
    }
    /* Bad lines: bad_command, and the order's synopsis. */
    static const struct {
        int row;
        const char *line, *synopsis;
    } b[] = {
        { 31, "", "start, choose, attack" },
        { 32, "fly Roma", "start, choose, attack" },
        { 33, "choose Atlantis", "usage: choose TOWN" },
        { 34, "start now", "usage: start" },
        { 35, "strategy brilliant_generalship", "usage: strategy NAME" },
        { 36, "strategy", "usage: strategy NAME" },
        { 37, "tactic", "usage: tactic TACTIC [SALT]" },
        { 38, "tactic charge", "usage: tactic TACTIC [SALT]" },
        { 39, "tactic march a b", "usage: tactic TACTIC [SALT]" },
        { 40, "commit attack", "usage: commit TACTIC SALT" },
        { 41, "ambush", "usage: ambush NOTE" },
        { 42, "reveal p1 p2", "usage: reveal [SEAT]" },
        { 43, "report 10", "usage: report A D" },
        { 44, "report -1 5", "usage: report A D" },
        { 45, "report 1 2 3", "usage: report A D" },
        { 46, "settle a b", "usage: settle A D" },
        { 47, "settle 1000001 0", "usage: settle A D" },
        { 48, "attack", "usage: attack TOWN" },      /* p1 has several targets */
    };
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++) {
        json_t *cmd = NULL;
        struct wr_strbuf out;
        struct wr_refusal why = { 0, "ok", "" };
        wr_strbuf_init(&out);
        enum wr_order_kind k = h.pr->order(view_of(&h, "p1"), b[i].line, &cmd, &out, &why);
        wr_strbuf_release(&out);
        if (k != WR_ORDER_ERROR || cmd != NULL)
            fail_msg("row %d: '%s' was taken", b[i].row, b[i].line);
        assert_string_equal(why.code, "bad_command");
        contains(why.message, b[i].synopsis, b[i].row);
    }
    /* What a line leaves out comes from the state: the attack's name lists
     * the targets; the defender's only town allowed fills "counter". */
    json_t *cmd = NULL;
    struct wr_strbuf out;
    struct wr_refusal why;
    wr_strbuf_init(&out);
    assert_int_equal(h.pr->order(view_of(&h, "p1"), "attack", &cmd, &out, &why), WR_ORDER_ERROR);
    contains(why.message, "Tarraco", 49);
    agree(&h, "p1", "attack Tarraco", "ok", 50);
    json_t *got = order_of(&h, "p2", "counter", 51),
           *want = ct_jq("{'type':'counter','town':'Saguntum'}");
    assert_true(json_equal(got, want));
    json_decref(got);
    json_decref(want);
    wr_strbuf_release(&out);
    close_game(&h);
}

/* --- precheck against apply ---------------------------------------------------------- */

static void test_precheck_start_and_draft(void **state)
{
    (void)state;
    struct h h;
    open_game(&h, "{'players':2}");
    /* No judgement for a spectator. */
    json_t *cmd = ct_jq("{'type':'start'}");
    struct wr_refusal why;
    assert_int_equal(h.pr->precheck(h.view[h.nseats], cmd, &why), 0);
    json_decref(cmd);
    agree(&h, "p2", "start", "not_your_turn", 1);
    agree(&h, "p1", "{'type':'choose_town','town':'Roma'}", "wrong_phase", 2);
    agree(&h, "p1", "{'type':'start','x':1}", "bad_command", 3);
    agree(&h, "p1", "start", "ok", 4);
    const char *chooser = wr_game_awaited(h.g), *other = strcmp(chooser, "p1") ? "p1" : "p2";
    agree(&h, other, "choose Roma", "not_your_turn", 5);
    agree(&h, chooser, "{'type':'choose_town','town':'Atlantis'}", "unknown_town", 6);
    agree(&h, chooser, "choose Roma", "ok", 7);
    agree(&h, other, "choose Roma", "town_taken", 8);
    agree(&h, other, "choose Sparta", "ok", 9);
    agree(&h, chooser, "choose Sparta", "town_taken", 10);
    agree(&h, chooser, "choose Byzantium", "draft_not_adjacent", 11);
    agree(&h, chooser, "choose Capua", "ok", 12);
    play_draft(&h);
    assert_int_equal(camp(&h)->phase, WR_CP_ATTACK);
    close_game(&h);
}

static void test_precheck_attack_and_counter(void **state)
{
    (void)state;
    static const char *const spain[] = { "Gades", "Saguntum", NULL };
    static const char *const greece[] = { "Sparta", "Athenae", NULL };
    struct h h;
    /* C4: any town of a neighbour, only of a neighbour; not an ally's. */
    open_game(&h, "{'players':3}");
    position(&h, spain, greece);
    agree(&h, "p2", "attack Roma", "not_your_turn", 1);
    agree(&h, "p1", "attack Sparta", "not_neighbour", 2);
    agree(&h, "p1", "attack Gades", "not_enemy_town", 3);
    agree(&h, "p1", "{'type':'counter','town':'Gades'}", "wrong_phase", 4);
    agree(&h, "p1", "attack Byzantium", "ok", 5);      /* p2's, far from Spain */
    close_game(&h);
    open_game(&h, "{'players':3,'alliances':[['p1','p3']]}");
    position(&h, spain, greece);
    agree(&h, "p1", "attack Sparta", "not_enemy_town", 6);
    close_game(&h);
    /* The counter when the attacker has a town next to the target. */
    open_game(&h, "{'players':2}");
    position(&h, spain, NULL);
    agree(&h, "p1", "attack Tarraco", "ok", 11);
    agree(&h, "p1", "counter Saguntum", "not_your_turn", 12);
    agree(&h, "p2", "counter Roma", "not_attackers_town", 13);
    agree(&h, "p2", "counter Gades", "counter_not_adjacent", 14);
    agree(&h, "p2", "counter Saguntum", "ok", 15);
    close_game(&h);
    /* ... and when it has none: "anywhere else" (C4). */
    for (int i = 0; i < 2; i++) {
        open_game(&h, "{'players':2}");
        position(&h, spain, NULL);
        agree(&h, "p1", "attack Sparta", "ok", 21);
        agree(&h, "p2", "counter Tarraco", "not_attackers_town", 22);
        agree(&h, "p2", i ? "counter Gades" : "counter Saguntum", "ok", 23 + i);
        close_game(&h);
    }
}

static void test_precheck_tactics_and_battle(void **state)
{
    (void)state;
    static const char *const spain[] = { "Gades", "Saguntum", NULL };
    struct h h;
    open_game(&h, "{'players':2,'referee':true}");
    position(&h, spain, NULL);
    agree(&h, "p1", "attack Tarraco", "ok", 1);
    agree(&h, "p2", "counter Saguntum", "ok", 2);
    past_strategy(&h);
    assert_int_equal(camp(&h)->phase, WR_CP_TACTICS);
    agree(&h, "referee", "tactic march", "not_your_turn", 3);
    agree(&h, "p1", "tactic march", "ok", 4);
    agree(&h, "p1", "tactic defend", "already_chosen", 5);
    agree(&h, "p1", "commit defend x", "already_chosen", 6);
    agree(&h, "p2", "tactic defend", "ok", 7);          /* red's position: no battle */
    past_strategy(&h);
    assert_int_equal(camp(&h)->phase, WR_CP_TACTICS);
    agree(&h, "p1", "tactic march", "same_tactic", 8);
    agree(&h, "p1", "commit attack x7", "ok", 9);
    /* p1 committed only: still awaited, so the referee is told "for p1". */
    agree(&h, "referee", "tactic attack", "not_your_turn", 10);
    agree(&h, "p1", "tactic attack", "commitment_mismatch", 11);
    agree(&h, "p1", "tactic attack x8", "commitment_mismatch", 12);
    agree(&h, "p1", "tactic march x7", "same_tactic", 13);
    agree(&h, "p1", "tactic attack x7", "ok", 14);
    agree(&h, "p2", "tactic defend", "same_tactic", 15);
    agree(&h, "p2", "tactic attack", "ok", 16);         /* open battle */
    assert_int_equal(camp(&h)->phase, WR_CP_BATTLE);
    struct wr_decision aw[SEATS_MAX];
    for (int row = 17; h.rs->awaiting(h.g, aw, SEATS_MAX) > 0 &&
                       strcmp(aw[0].what, "seal_ambush") == 0; row++) {
        agree(&h, "p1", "report 1 1", "ambush_note_missing", row);
        agree(&h, aw[0].seat, "ambush by the river", "ok", row);
    }
    agree(&h, "referee", "settle 1 1", "not_disputed", 20);
    agree(&h, "referee", "report 1 1", "not_your_turn", 21);
    agree(&h, "p1", "reveal p1", "no_ambush", 22);
    agree(&h, "p1", "report 1500 1000", "ok", 23);
    agree(&h, "p2", "report 1000 1500", "ok", 24);       /* disputed */
    agree(&h, "p1", "settle 1500 1000", "not_your_turn", 25);
    char *d = describe(&h, "referee");
    contains(d, "awaiting", 26);
    contains(d, "Your decision: settle", 26);
    contains(d, "p1 reported 1500 - 1000", 26);
    contains(d, "example: settle 1500 1000", 26);
    free(d);
    agree(&h, "referee", "settle 1500 1000", "ok", 27);
    assert_int_equal(camp(&h)->phase == WR_CP_ATTACK || camp(&h)->phase == WR_CP_OVER, 1);
    close_game(&h);
}

/* --- describe ------------------------------------------------------------------------ */

static void test_describe(void **state)
{
    (void)state;
    struct h h;
    open_game(&h, "{'players':2,'referee':true}");
    char *d = describe(&h, "p1");
    contains(d, "start: awaiting p1 (start)", 1);
    contains(d, "Your decision: start", 1);
    contains(d, "example: start", 1);
    free(d);
    d = describe(&h, "p2");
    contains(d, "awaiting p1 (start)", 2);
    lacks(d, "Your decision", 2);
    free(d);
    agree(&h, "p1", "start", "ok", 3);
    const char *chooser = wr_game_awaited(h.g);
    d = describe(&h, chooser);
    contains(d, "draft: awaiting", 4);
    contains(d, "Your decision: take a free town", 4);
    contains(d, "allowed (26): Gades, Carthago Nova,", 4);
    contains(d, "example: choose Gades", 4);
    free(d);
    /* The counter: exactly the towns the rules allow, in both branches. */
    static const char *const spain[] = { "Gades", "Saguntum", NULL };
    position(&h, spain, NULL);
    d = describe(&h, "p1");
    contains(d, "Turn 1, attack: awaiting p1 (attack)", 5);
    contains(d, "Your decision: attack a town of a neighbour (C4)", 5);
    contains(d, "allowed (24): Carthago Nova, Tarraco, Narbo", 5);
    free(d);
    agree(&h, "p1", "attack Sparta", "ok", 6);
    d = describe(&h, "p2");
    contains(d, "(p1 attacks p2's Sparta): awaiting p2 (counter)", 7);
    contains(d, "any, none is adjacent to the target", 7);
    contains(d, "allowed (2): Gades, Saguntum\n", 7);
    free(d);
    d = describe(&h, "referee");
    lacks(d, "Your decision", 8);
    free(d);
    position(&h, spain, NULL);
    agree(&h, "p1", "attack Tarraco", "ok", 9);
    d = describe(&h, "p2");
    contains(d, "one adjacent to the target", 10);
    contains(d, "allowed (1): Saguntum\n", 10);
    contains(d, "example: counter Saguntum", 10);
    free(d);
    agree(&h, "p2", "counter Saguntum", "ok", 11);
    past_strategy(&h);
    agree(&h, "p1", "tactic march", "ok", 12);
    d = describe(&h, "p2");
    contains(d, "awaiting p2 (tactic)", 13);
    contains(d, "Your decision: your tactic for round 1 against p1", 13);
    contains(d, "allowed: march, counter_march, attack, defend, regroup", 13);
    free(d);
    agree(&h, "p2", "tactic defend", "ok", 14);
    past_strategy(&h);
    d = describe(&h, "p1");
    contains(d, "allowed: counter_march, attack, defend, regroup (not march", 15);
    free(d);
    /* Before any state. */
    struct wr_refusal why;
    struct wr_view *v = h.pr->open(h.rs, h.scenario, NULL, "p1", NULL, &why);
    assert_non_null(v);
    struct wr_strbuf out;
    wr_strbuf_init(&out);
    h.pr->describe(v, &out);
    contains(out.s, "No state yet", 16);
    json_t *cmd = ct_jq("{'type':'start'}");
    assert_int_equal(h.pr->precheck(v, cmd, &why), 0);
    json_decref(cmd);
    wr_strbuf_release(&out);
    /* A state of another map does not fit. */
    json_t *st =
        ct_jq("{'ruleset':'campaign','map':'Atlantis','phase':'start','players':['p1','p2'],"
              "'towns':{}}");
    assert_int_equal(h.pr->update(v, st, &why), -1);
    contains(why.message, "Atlantis", 17);
    assert_int_equal(v->has_state, 0);
    json_decref(st);
    h.pr->close(v);
    close_game(&h);
}

/* --- completion ------------------------------------------------------------------------ */

struct cands {
    char s[64][64];
    int n;
};

static void add_cand(void *ctx, const char *cand)
{
    struct cands *c = ctx;
    assert_true(c->n < 64);
    snprintf(c->s[c->n++], sizeof c->s[0], "%s", cand);
}

static char *complete(struct h *h, const char *seat, const char *const *words, int nwords,
                      const char *word)
{
    struct cands c = { .n = 0 };
    h->pr->complete(view_of(h, seat), words, nwords, word, add_cand, &c);
    static char joined[2048];
    joined[0] = '\0';
    for (int i = 0; i < c.n; i++)
        snprintf(joined + strlen(joined), sizeof joined - strlen(joined), "%s%s", i ? "|" : "",
                 c.s[i]);
    return joined;
}

static void test_complete(void **state)
{
    (void)state;
    static const char *const spain[] = { "Gades", "Saguntum", NULL };
    struct h h;
    open_game(&h, "{'players':2}");
    const char *choose[] = { "choose" }, *attack[] = { "attack" }, *counter[] = { "counter" };
    const char *cn[] = { "choose", "Carthago" }, *tactic[] = { "tactic" };
    const char *strategy[] = { "strategy" }, *report[] = { "report" };
    assert_string_equal(complete(&h, "p1", choose, 1, "Car"), "Carthago_Nova|Carthago|Caralis");
    assert_string_equal(complete(&h, "p1", choose, 1, "hippo_r"), "Hippo_Regius");
    assert_string_equal(complete(&h, "p1", cn, 2, ""), "Nova");
    assert_string_equal(complete(&h, "p1", tactic, 1, "") ,
                        "march|counter_march|attack|defend|regroup");
    assert_string_equal(complete(&h, "p1", strategy, 1, "s"), "scouts");
    assert_string_equal(complete(&h, "p1", report, 1, ""), "");
    position(&h, spain, NULL);
    /* The attacker is offered the targets the rules allow, the others all. */
    assert_string_equal(complete(&h, "p1", attack, 1, "Sa"), "");
    assert_string_equal(complete(&h, "p1", attack, 1, "Sp"), "Sparta");
    assert_string_equal(complete(&h, "p2", attack, 1, "Sa"), "Saguntum");
    agree(&h, "p1", "attack Tarraco", "ok", 1);
    assert_string_equal(complete(&h, "p2", counter, 1, ""), "Saguntum");
    agree(&h, "p2", "counter Saguntum", "ok", 2);
    past_strategy(&h);
    agree(&h, "p1", "tactic march", "ok", 3);
    agree(&h, "p2", "tactic defend", "ok", 4);
    past_strategy(&h);
    assert_string_equal(complete(&h, "p1", tactic, 1, ""), "counter_march|attack|defend|regroup");
    assert_string_equal(complete(&h, "p2", tactic, 1, ""), "march|counter_march|attack|regroup");
    close_game(&h);
}

/* --- drawing ---------------------------------------------------------------------------- */

static int utf8_chars(const char *s, size_t n)
{
    int k = 0;
    for (size_t i = 0; i < n; i++)
        k += (s[i] & 0xc0) != 0x80;
    return k;
}

static void check_text(struct h *h, const char *seat, int cols, int rows, int color, int row)
{
    struct wr_draw_opts o = { .cols = cols, .rows = rows, .color = color };
    struct wr_strbuf out;
    wr_strbuf_init(&out);
    assert_int_equal(h->pr->draw_text(view_of(h, seat), &o, &out), 0);
    assert_non_null(out.s);
    if (!color && memchr(out.s, 0x1b, out.len))
        fail_msg("row %d: ESC without colour", row);
    if (color && !memchr(out.s, 0x1b, out.len))
        fail_msg("row %d: no colour", row);
    int lines = 0;
    for (const char *l = out.s; *l; lines++) {
        const char *e = strchr(l, '\n');
        assert_non_null(e);
        if (!color && cols && utf8_chars(l, (size_t)(e - l)) > cols)
            fail_msg("row %d: line wider than %d: %.*s", row, cols, (int)(e - l), l);
        l = e + 1;
    }
    if (rows && lines > rows)
        fail_msg("row %d: %d lines, room for %d", row, lines, rows);
    if (cols == 0 && rows == 0) {
        contains(out.s, "The Ancient World: 26 towns", row);
        contains(out.s, "Carthago Nova", row);
    }
    wr_strbuf_release(&out);
}

/* A small XML check: every tag closed in order, text without '<'. */
static void well_formed(const char *s, int row)
{
    char stack[64][32];
    int depth = 0, roots = 0;
    while ((s = strchr(s, '<')) != NULL) {
        const char *e = strchr(s, '>');
        assert_non_null(e);
        if (s[1] == '/') {
            if (depth == 0 || strncmp(s + 2, stack[depth - 1], strlen(stack[depth - 1])) != 0)
                fail_msg("row %d: </%.20s> closes <%s>", row, s + 2, depth ? stack[depth - 1] : "");
            depth--;
        } else if (e[-1] != '/') {
            size_t n = strcspn(s + 1, " >");
            assert_true(depth < 64 && n < 32);
            roots += depth == 0;
            memcpy(stack[depth], s + 1, n);
            stack[depth++][n] = '\0';
        }
        s = e + 1;
    }
    if (depth != 0 || roots != 1)
        fail_msg("row %d: %d tags left open, %d roots", row, depth, roots);
}

static void test_draw(void **state)
{
    (void)state;
    static const char *const spain[] = { "Gades", "Saguntum", NULL };
    struct h h;
    open_game(&h, "{'players':2}");
    check_text(&h, "p1", 0, 0, 0, 1);
    position(&h, spain, NULL);
    agree(&h, "p1", "attack Tarraco", "ok", 2);
    static const struct { int cols, rows, color; } t[] = {
        { 0, 0, 0 }, { 80, 24, 0 }, { 40, 0, 0 }, { 120, 10, 0 }, { 20, 5, 0 }, { 80, 24, 1 },
        { 1, 3, 0 }, { 80, 2, 0 },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        check_text(&h, "p2", t[i].cols, t[i].rows, t[i].color, 10 + (int)i);
    struct wr_draw_opts o = { .cols = 0 };
    struct wr_strbuf out;
    wr_strbuf_init(&out);
    assert_int_equal(h.pr->draw_text(view_of(&h, "p2"), &o, &out), 0);
    contains(out.s, "T Tarraco", 20);
    contains(out.s, "T target", 20);
    wr_strbuf_release(&out);
    wr_strbuf_init(&out);
    assert_int_equal(h.pr->draw_svg(view_of(&h, "p2"), &out), 0);
    assert_int_equal(strncmp(out.s, "<svg ", 5), 0);
    well_formed(out.s, 21);
    contains(out.s, "Carthago Nova", 21);
    contains(out.s, "Tarraco: p2 (the target)", 21);
    contains(out.s, "p1: 2</text>", 21);
    int circles = 0;
    for (const char *s = out.s; (s = strstr(s, "<circle class=\"town\"")) != NULL; s++)
        circles++;
    assert_int_equal(circles, 26);
    /* every town named as the orders take it (present.h: data-word) */
    int words = 0;
    for (const char *s = out.s; (s = strstr(s, " data-word=\"")) != NULL; s++)
        words++;
    assert_int_equal(words, 26);
    contains(out.s, "data-word=\"Carthago Nova\"", 22);
    contains(out.s, "data-word=\"Tarraco\"", 22);
    wr_strbuf_release(&out);
    close_game(&h);
}

/* --- events ------------------------------------------------------------------------------ */

static void test_events(void **state)
{
    (void)state;
    static const char *const spain[] = { "Gades", "Saguntum", NULL };
    struct h h;
    open_game(&h, "{'players':2,'referee':true}");
    position(&h, spain, NULL);
    static const struct {
        const char *seat, *cmd;
    } play[] = {
        { "p1", "{'type':'attack','target':'Tarraco'}" },
        { "p2", "{'type':'counter','town':'Saguntum'}" },
        { "p1", "{'type':'commit','commitment':"
                "'85202b972188a8f3ff66949516b5573261f3b07fb4f10f605caa8ca4f1b2c357'}" },
        { "p1", "{'type':'tactic','choice':'attack','salt':'x7'}" },
        { "p2", "{'type':'tactic','choice':'attack'}" },
        { "p1", "{'type':'report','attacker':1600,'defender':1000}" },
        { "p2", "{'type':'report','attacker':1600,'defender':1000}" },
    };
    int seen = 0;
    for (size_t i = 0; i < sizeof play / sizeof play[0]; i++) {
        past_strategy(&h);
        struct wr_decision d[SEATS_MAX];
        int n = h.rs->awaiting(h.g, d, SEATS_MAX);
        for (int k = 0; k < n; k++)
            if (strcmp(d[k].what, "seal_ambush") == 0)
                agree(&h, d[k].seat, "ambush on the hill", "ok", 30);
        json_t *cmd = ct_jq(play[i].cmd), *ev = NULL;
        struct wr_refusal why;
        if (h.rs->apply(h.g, play[i].seat, cmd, &ev, &why) != 0)
            fail_msg("row %zu: %s", i, why.message);
        json_decref(cmd);
        refresh(&h);
        for (int v = 0; v <= h.nseats; v++) {
            json_t *pe = h.rs->project_events(h.g, v < h.nseats ? h.seat[v] : NULL, ev);
            size_t j;
            json_t *e;
            json_array_foreach(pe, j, e) {
                struct wr_strbuf out;
                wr_strbuf_init(&out);
                h.pr->event(h.view[v], e, &out);
                assert_non_null(out.s);
                if (strchr(out.s, '\n') || strstr(out.s, "(an event") || strchr(out.s, '?'))
                    fail_msg("event %s: '%s'", json_string_value(json_object_get(e, "type")),
                             out.s);
                /* The sealed choice shows only to its owner. */
                const char *owner = json_string_value(json_object_get(e, "seat"));
                if (strcmp(json_string_value(json_object_get(e, "type")), "tactic_chosen") == 0 &&
                    (v == h.nseats || strcmp(owner, h.seat[v]) != 0))
                    lacks(out.s, ": ", 31);
                seen++;
                wr_strbuf_release(&out);
            }
            json_decref(pe);
        }
        json_decref(ev);
    }
    assert_true(seen > 20);
    json_t *e = ct_jq("{'type':'town_taken','seat':'p1','town':'Tarraco','from':'p2'}");
    struct wr_strbuf out;
    wr_strbuf_init(&out);
    h.pr->event(h.view[0], e, &out);
    assert_string_equal(out.s, "p1 takes Tarraco from p2");
    json_decref(e);
    wr_strbuf_release(&out);
    e = ct_jq("{'type':'meteor'}");
    wr_strbuf_init(&out);
    h.pr->event(h.view[0], e, &out);
    contains(out.s, "meteor", 32);
    json_decref(e);
    wr_strbuf_release(&out);
    close_game(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_orders),
        cmocka_unit_test(test_precheck_start_and_draft),
        cmocka_unit_test(test_precheck_attack_and_counter),
        cmocka_unit_test(test_precheck_tactics_and_battle),
        cmocka_unit_test(test_describe),
        cmocka_unit_test(test_complete),
        cmocka_unit_test(test_draw),
        cmocka_unit_test(test_events),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
