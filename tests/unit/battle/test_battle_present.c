/*
 * test_battle_present.c - the battle's presentation (common/rulesets/
 * battle/battle_present.c, battle_present_draw.c) through present.h: every
 * order of its table and the command it makes (one row each), bad orders
 * and the help line they get, unit names with spaces and did-you-mean,
 * the roster draft, describe() in each phase, the roster view's statuses,
 * why lines and break points within 80 columns, the last tests, and the
 * battle sheet. The states are a real game's (the ruleset itself plays
 * the commands, with dice from the table's list of faces).
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
#include "battle_present.h"
#include "present.h"
#include "ruleset.h"

/* --- a game to look at --------------------------------------------------------------------- */

/* The host's dice: 4, 3, then every face of the list in turn. */
static const int faces[] = { 4, 3, 6, 6, 2, 1, 5, 5, 5, 6, 6, 6 };

static int host_roll(void *ctx, uint32_t k)
{
    (void)ctx;
    return faces[k % (sizeof faces / sizeof faces[0])];
}

static const struct wr_host host = { host_roll, NULL, NULL };

struct fix {
    struct wr_game *g;
    json_t *steps;              /* {"seat","cmd","events"} of every command accepted */
};

static const struct wr_ruleset *rs(void)
{
    const struct wr_ruleset *r = wr_ruleset_find("battle");
    assert_non_null(r);
    assert_ptr_equal(r->present, &wr_present_battle);
    return r;
}

static void new_game(struct fix *f, const char *options)
{
    json_t *o = json_loads(options, 0, NULL);
    assert_non_null(o);
    struct wr_refusal why = { 0, NULL, "" };
    f->g = rs()->create(NULL, o, "present-test", NULL, &host, &why);
    json_decref(o);
    if (f->g == NULL)
        fail_msg("create refused: %s", why.message);
    f->steps = json_array();
}

static void send(struct fix *f, const char *seat, json_t *cmd)
{
    json_t *ev = NULL;
    struct wr_refusal why = { 0, NULL, "" };
    if (wr_game_apply(f->g, seat, cmd, &ev, &why) != 0) {
        char *s = json_dumps(cmd, JSON_COMPACT);
        fail_msg("%s %s refused: %s", seat, s, why.message);
    }
    json_array_append_new(f->steps, json_pack("{s:s, s:O, s:o}", "seat", seat, "cmd", cmd,
                                               "events", ev));
}

static void sendj(struct fix *f, const char *seat, const char *cmd)
{
    json_t *c = json_loads(cmd, 0, NULL);
    assert_non_null(c);
    send(f, seat, c);
    json_decref(c);
}

static void free_fix(struct fix *f)
{
    rs()->destroy(f->g);
    json_decref(f->steps);
}

static struct wr_view *view_of(const struct fix *f, const char *seat)
{
    struct wr_refusal why = { 0, NULL, "" };
    struct wr_view *v = rs()->present->open(rs(), NULL, NULL, seat, &host, &why);
    assert_non_null(v);
    if (f) {
        json_t *st = rs()->project(f->g, seat);
        assert_int_equal(rs()->present->update(v, st, &why), 0);
        json_decref(st);
    }
    return v;
}

static const char *const roster1 =
    "{\"type\":\"roster\",\"last\":true,\"units\":["
    "{\"name\":\"Spears\",\"kind\":\"infantry\",\"models\":20,\"files\":5,\"ranks\":4,"
    "\"points\":300},"
    "{\"name\":\"Light Horse\",\"kind\":\"cavalry\",\"models\":8,\"move\":8,\"general\":true,"
    "\"points\":250}]}";
static const char *const roster2 =
    "{\"type\":\"roster\",\"last\":true,\"units\":["
    "{\"name\":\"Slingers\",\"kind\":\"skirmishers\",\"models\":10,\"points\":100},"
    "{\"name\":\"Hoplites\",\"kind\":\"infantry\",\"models\":24,\"files\":6,\"ranks\":4,"
    "\"points\":400}]}";

/* A game in play: both rosters in, started (p1 first: 4 against 3). */
static void game_in_play(struct fix *f, const char *options)
{
    new_game(f, options);
    sendj(f, "p1", roster1);
    sendj(f, "p2", roster2);
    sendj(f, "p1", "{\"type\":\"start\"}");
}

static char *text_of(struct wr_view *v, void (*fn)(const struct wr_view *, struct wr_strbuf *))
{
    struct wr_strbuf out;
    wr_strbuf_init(&out);
    fn(v, &out);
    assert_false(out.failed);
    return out.s ? out.s : strdup("");
}

static void assert_has(const char *text, const char *want)
{
    if (strstr(text, want) == NULL) {
        fprintf(stderr, "%s\n", text);
        fail_msg("wanted '%s' in the text above", want);
    }
}

/* Characters of each line (UTF-8 characters, ESC never appears) at most cols. */
static void assert_fits(const char *text, int cols)
{
    int n = 0;
    for (const char *s = text; *s; s++) {
        assert_int_not_equal(*s, '\x1b');
        if (*s == '\n') {
            n = 0;
            continue;
        }
        if (((unsigned char)*s & 0xc0) != 0x80 && ++n > cols)
            fail_msg("a line longer than %d columns in:\n%s", cols, text);
    }
}

/* --- orders -------------------------------------------------------------------------------- */

/* A line, the seat typing it, and the command it must make (compact JSON). */
struct order_row {
    const char *seat, *line, *want;
};

/* With no state: names pass as typed ("_" for a space). */
static const struct order_row order_rows[] = {
    { "p1", "start", "{\"type\":\"start\"}" },
    { "p1", "fact Spears secure_flanks yes",
      "{\"type\":\"fact\",\"unit\":\"Spears\",\"fact\":\"secure_flanks\",\"value\":true}" },
    { "p1", "fact Spears rear_support no",
      "{\"type\":\"fact\",\"unit\":\"Spears\",\"fact\":\"rear_support\",\"value\":false}" },
    { "p1", "fact Spears terrain hill",
      "{\"type\":\"fact\",\"unit\":\"Spears\",\"fact\":\"terrain\",\"value\":\"hill\"}" },
    { "p1", "fact \"Light Horse\" enemy_terrain obstacle",
      "{\"type\":\"fact\",\"unit\":\"Light Horse\",\"fact\":\"enemy_terrain\",\"value\":\"obstacle\"}" },
    { "p1", "fact Light_Horse isolated true",
      "{\"type\":\"fact\",\"unit\":\"Light Horse\",\"fact\":\"isolated\",\"value\":true}" },
    { "p2", "dispute Spears secure_flanks",
      "{\"type\":\"dispute\",\"unit\":\"Spears\",\"fact\":\"secure_flanks\"}" },
    { "p2", "dispute Cavalry charge", "{\"type\":\"dispute\",\"unit\":\"Cavalry\",\"fact\":\"charge\"}" },
    { "p2", "dispute Cavalry counter_charge",
      "{\"type\":\"dispute\",\"unit\":\"Cavalry\",\"fact\":\"counter_charge\"}" },
    { "p1", "dispute general_killed p2",
      "{\"type\":\"dispute\",\"side\":\"p2\",\"fact\":\"general_killed\"}" },
    { "referee", "settle yes", "{\"type\":\"settle\",\"stands\":true}" },
    { "referee", "settle no", "{\"type\":\"settle\",\"stands\":false}" },
    { "p2", "cas Spears 3", "{\"type\":\"casualties\",\"unit\":\"Spears\",\"wounds\":3}" },
    { "p2", "casualties Spears 1", "{\"type\":\"casualties\",\"unit\":\"Spears\",\"wounds\":1}" },
    { "p1", "test Spears panic 7",
      "{\"type\":\"test\",\"unit\":\"Spears\",\"test\":\"panic\",\"target\":7}" },
    { "p1", "test Spears ld 18", "{\"type\":\"test\",\"unit\":\"Spears\",\"test\":\"ld\",\"target\":18}" },
    { "p1", "test Spears rally 1",
      "{\"type\":\"test\",\"unit\":\"Spears\",\"test\":\"rally\",\"target\":1}" },
    { "p1", "end", "{\"type\":\"end_phase\"}" },
    { "p1", "endturn", "{\"type\":\"end_turn\"}" },
    { "p1", "offer draw", "{\"type\":\"offer_end\",\"result\":\"draw\"}" },
    { "p1", "offer p2", "{\"type\":\"offer_end\",\"result\":\"p2\"}" },
    { "p2", "accept", "{\"type\":\"accept_end\"}" },
    { "p1", "charge Cavalry Spears flank",
      "{\"type\":\"charge\",\"unit\":\"Cavalry\",\"target\":\"Spears\",\"facing\":\"flank\"}" },
    { "p1", "charge \"Light Horse\" \"Old Guard\" front",
      "{\"type\":\"charge\",\"unit\":\"Light Horse\",\"target\":\"Old Guard\",\"facing\":\"front\"}" },
    { "p2", "cc Cavalry", "{\"type\":\"counter_charge\",\"unit\":\"Cavalry\"}" },
    { "p2", "flee Slingers Spears",
      "{\"type\":\"screen_flees\",\"screen\":\"Slingers\",\"unit\":\"Spears\"}" },
    { "p1", "cover Slingers Spears yes",
      "{\"type\":\"cover\",\"screen\":\"Slingers\",\"unit\":\"Spears\",\"los\":true}" },
    { "p1", "cover Slingers Spears no",
      "{\"type\":\"cover\",\"screen\":\"Slingers\",\"unit\":\"Spears\",\"los\":false}" },
    { "p1", "broke Spears", "{\"type\":\"broke\",\"unit\":\"Spears\"}" },
    { "p1", "reform Spears", "{\"type\":\"reform\",\"unit\":\"Spears\"}" },
    { "p1", "general_killed p2", "{\"type\":\"general_killed\",\"side\":\"p2\"}" },
    { "p2", "general_killed", "{\"type\":\"general_killed\",\"side\":\"p2\"}" },
    { "p1", "elephant Spears beat",
      "{\"type\":\"elephant\",\"unit\":\"Spears\",\"event\":\"beat\"}" },
    { "p1", "elephant Spears survived",
      "{\"type\":\"elephant\",\"unit\":\"Spears\",\"event\":\"survived\"}" },
    { "p1", "left Spears", "{\"type\":\"left_table\",\"unit\":\"Spears\"}" },
    { "p1", "vp 1300 1000", "{\"type\":\"victory_points\",\"p1\":1300,\"p2\":1000}" },
    { "p1", "vp 0 1000000", "{\"type\":\"victory_points\",\"p1\":0,\"p2\":1000000}" },
    { "referee", "settle_points 1300 1000",
      "{\"type\":\"settle_points\",\"p1\":1300,\"p2\":1000}" },
};

static void check_order(struct wr_view *v, const struct order_row *r)
{
    json_t *cmd = NULL, *want = json_loads(r->want, 0, NULL);
    struct wr_strbuf out;
    struct wr_refusal why = { 0, NULL, "" };
    wr_strbuf_init(&out);
    assert_non_null(want);
    enum wr_order_kind k = rs()->present->order(v, r->line, &cmd, &out, &why);
    if (k != WR_ORDER_COMMAND)
        fail_msg("'%s': not a command (%s)", r->line, why.message);
    if (!json_equal(cmd, want)) {
        char *got = json_dumps(cmd, JSON_COMPACT);
        fail_msg("'%s': got %s, want %s", r->line, got, r->want);
    }
    json_decref(cmd);
    json_decref(want);
    wr_strbuf_release(&out);
}

static void test_orders(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof order_rows / sizeof order_rows[0]; i++) {
        struct wr_view *v = view_of(NULL, order_rows[i].seat);
        check_order(v, &order_rows[i]);
        rs()->present->close(v);
    }
}

/* Every row of the orders table: its example is an order the view takes,
 * and its help and synopsis are there. */
static void test_orders_table_examples(void **state)
{
    (void)state;
    int n = 0;
    for (const struct wr_order *o = rs()->present->orders; o->name; o++, n++) {
        struct wr_view *v = view_of(NULL, "p1");
        json_t *cmd = NULL;
        struct wr_strbuf out;
        struct wr_refusal why = { 0, NULL, "" };
        wr_strbuf_init(&out);
        assert_non_null(o->help);
        assert_int_equal(strncmp(o->synopsis, o->name, strlen(o->name)), 0);
        enum wr_order_kind k = rs()->present->order(v, o->example, &cmd, &out, &why);
        if (k != (o->query ? WR_ORDER_ANSWER : WR_ORDER_COMMAND) &&
            !(strcmp(o->name, "roster") == 0 && k == WR_ORDER_ERROR))
            fail_msg("the example '%s' gives %d (%s)", o->example, k, why.message);
        json_decref(cmd);
        wr_strbuf_release(&out);
        rs()->present->close(v);
    }
    assert_int_equal(n, 23);
}

/* Lines that make no command: the code, and words of the message (the
 * order's synopsis when the order is known). */
struct bad_row {
    const char *line, *code, *words;
};

static const struct bad_row bad_rows[] = {
    { "", "bad_command", "an empty line" },
    { "frobnicate", "bad_command", "not an order of the battle" },
    { "chrage Cavalry Spears flank", "bad_command", "did you mean charge?" },
    { "fact Spears", "bad_command", "usage: fact UNIT FACT VALUE" },
    { "dispute general_killed p3", "bad_command", "name the army whose general's death is disputed" },
    { "fact Spears secure_flnks yes", "unknown_fact", "did you mean secure_flanks?" },
    { "fact Spears flank yes", "unknown_fact", "not a fact the referee knows" },
    { "fact Spears secure_flanks maybe", "bad_value", "secure_flanks is yes or no" },
    { "fact Spears terrain swamp", "bad_value", "clear, hill, ford, difficult or obstacle" },
    { "dispute Spears", "bad_command", "usage: dispute UNIT FACT" },
    { "settle perhaps", "bad_command", "usage: settle yes|no" },
    { "cas Spears", "bad_command", "usage: cas UNIT WOUNDS" },
    { "cas Spears 0", "bad_command", "the wounds lost, 1 or more" },
    { "test Spears panic", "bad_command", "usage: test UNIT ld|panic|rally TARGET" },
    { "test Spears panic 19", "bad_target", "a target number is 1 to 18" },
    { "test Spears run 7", "bad_command", "ld, panic or rally" },
    { "end now", "bad_command", "usage: end" },
    { "charge Cavalry Spears sideways", "bad_command", "front, flank or rear" },
    { "charge Cavalry", "bad_command", "name the unit charged" },
    { "cover Slingers Spears", "bad_command", "usage: cover SCREEN UNIT yes|no" },
    { "general_killed p3", "bad_command", "usage: general_killed p1|p2" },
    { "elephant Spears won", "bad_command", "beat or survived" },
    { "offer win", "bad_command", "usage: offer p1|p2|draw" },
    { "vp 1300", "bad_command", "usage: vp P1 P2" },
    { "vp 1300 1000001", "bad_command", "0 to 1000000" },
    { "settle_points x 1", "bad_command", "usage: settle_points P1 P2" },
    { "fact \"Light Horse secure_flanks yes", "bad_command", "a quote not closed" },
    { "roster done", "bad_roster", "draft is empty" },
    { "roster send", "bad_command", "usage: roster done|list|clear" },
    { "unit Spears 20", "bad_command", "give its kind" },
    { "unit Spears infantry", "bad_command", "give its models" },
    { "unit Spears infantry 20 files=0", "bad_command", "'files=0' is not one of" },
    { "unit Spears infantry 20 pikes", "bad_command", "'pikes' is not one of" },
    { "unit Chariots chariot 2 crew=21", "bad_command", "'crew=21' is not one of" },
};

static void test_bad_orders(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_rows / sizeof bad_rows[0]; i++) {
        struct wr_view *v = view_of(NULL, "p1");
        json_t *cmd = NULL;
        struct wr_strbuf out;
        struct wr_refusal why = { 0, NULL, "" };
        wr_strbuf_init(&out);
        enum wr_order_kind k = rs()->present->order(v, bad_rows[i].line, &cmd, &out, &why);
        if (k != WR_ORDER_ERROR || cmd != NULL)
            fail_msg("'%s' was taken", bad_rows[i].line);
        if (strcmp(why.code, bad_rows[i].code) != 0 || !strstr(why.message, bad_rows[i].words))
            fail_msg("'%s': got %s (%s), want %s (%s)", bad_rows[i].line, why.code, why.message,
                     bad_rows[i].code, bad_rows[i].words);
        wr_strbuf_release(&out);
        rs()->present->close(v);
    }
}

/* With a state: names as the roster has them, with spaces typed as they
 * are or quoted, case aside; a mistyped one gets the nearest names. */
static void test_names_from_state(void **state)
{
    (void)state;
    struct fix f;
    game_in_play(&f, "{}");
    struct wr_view *v = view_of(&f, "p1");
    static const struct order_row rows[] = {
        { "p1", "cas light horse 2",
          "{\"type\":\"casualties\",\"unit\":\"Light Horse\",\"wounds\":2}" },
        { "p1", "charge Light Horse hoplites flank",
          "{\"type\":\"charge\",\"unit\":\"Light Horse\",\"target\":\"Hoplites\",\"facing\":\"flank\"}" },
        { "p1", "fact \"light horse\" won_round yes",
          "{\"type\":\"fact\",\"unit\":\"Light Horse\",\"fact\":\"won_round\",\"value\":true}" },
        { "p1", "fact spears secure yes",
          "{\"type\":\"fact\",\"unit\":\"Spears\",\"fact\":\"secure_flanks\",\"value\":true}" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        check_order(v, &rows[i]);
    json_t *cmd = NULL;
    struct wr_strbuf out;
    struct wr_refusal why = { 0, NULL, "" };
    wr_strbuf_init(&out);
    assert_int_equal(rs()->present->order(v, "cas Hoplits 2", &cmd, &out, &why), WR_ORDER_ERROR);
    assert_string_equal(why.code, "unknown_unit");
    assert_has(why.message, "did you mean \"Hoplites\"?");
    assert_int_equal(rs()->present->order(v, "cas Zulus 2", &cmd, &out, &why), WR_ORDER_ERROR);
    assert_string_equal(why.code, "unknown_unit");
    assert_has(why.message, "no unit called 'Zulus' is on the table");
    assert_null(cmd);
    wr_strbuf_release(&out);
    /* The commands made are the ones the server takes. */
    static const char *const lines[] = { "fact spears secure_flanks yes",
                                         "fact Spears rear_support yes", "cas Hoplites 4",
                                         "test Light Horse ld 8" };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        wr_strbuf_init(&out);
        assert_int_equal(rs()->present->order(v, lines[i], &cmd, &out, &why), WR_ORDER_COMMAND);
        send(&f, "p1", cmd);
        json_decref(cmd);
        wr_strbuf_release(&out);
    }
    rs()->present->close(v);
    free_fix(&f);
}

/* `unit` lines fill the draft (nothing sent); `roster done` sends it all,
 * last, and the server takes it; the draft is dropped once the roster is in. */
static void test_roster_draft(void **state)
{
    (void)state;
    struct fix f;
    new_game(&f, "{}");
    struct wr_view *v = view_of(&f, "p1");
    json_t *cmd = NULL;
    struct wr_strbuf out;
    struct wr_refusal why = { 0, NULL, "" };
    wr_strbuf_init(&out);
    assert_int_equal(rs()->present->order(v, "unit Spears infantry 20 files=5 ranks=4 points=300",
                                          &cmd, &out, &why), WR_ORDER_ANSWER);
    assert_null(cmd);
    assert_int_equal(rs()->present->order(v, "unit Light Horse cavalry 8 move=8 general points=250 spears",
                                          &cmd, &out, &why), WR_ORDER_ANSWER);
    assert_has(out.s, "Added Light Horse (cavalry, 8 models)");
    assert_has(out.s, "2 units");
    assert_has(out.s, "550 points");
    assert_int_equal(rs()->present->order(v, "unit Chariots chariot 2 crew=2 mounted",
                                          &cmd, &out, &why), WR_ORDER_ANSWER);
    assert_int_equal(rs()->present->order(v, "roster clear", &cmd, &out, &why), WR_ORDER_ANSWER);
    assert_int_equal(rs()->present->order(v, "unit Spears infantry 20 files=5 ranks=4 points=300",
                                          &cmd, &out, &why), WR_ORDER_ANSWER);
    assert_int_equal(rs()->present->order(v, "unit Light Horse cavalry 8 move=8 general points=250 spears",
                                          &cmd, &out, &why), WR_ORDER_ANSWER);
    assert_int_equal(rs()->present->order(v, "unit spears skirmishers 5", &cmd, &out, &why),
                     WR_ORDER_ERROR);
    assert_string_equal(why.code, "duplicate_unit");
    char *d = text_of(v, rs()->present->describe);
    assert_has(d, "(your draft: 2 units)");
    assert_has(d, "roster          e.g. roster done");
    free(d);
    assert_int_equal(rs()->present->order(v, "roster done", &cmd, &out, &why), WR_ORDER_COMMAND);
    json_t *want = json_loads(
        "{\"type\":\"roster\",\"last\":true,\"units\":["
        "{\"name\":\"Spears\",\"kind\":\"infantry\",\"models\":20,\"files\":5,\"ranks\":4,"
        "\"points\":300},{\"name\":\"Light Horse\",\"kind\":\"cavalry\",\"models\":8,"
        "\"move\":8,\"general\":true,\"points\":250,\"thrusting_spears\":true}]}", 0, NULL);
    assert_true(json_equal(cmd, want));
    json_decref(want);
    send(&f, "p1", cmd);
    json_decref(cmd);
    json_t *st = rs()->project(f.g, "p1");
    assert_int_equal(rs()->present->update(v, st, &why), 0);
    json_decref(st);
    wr_strbuf_release(&out);
    wr_strbuf_init(&out);
    assert_int_equal(rs()->present->order(v, "roster list", &cmd, &out, &why), WR_ORDER_ANSWER);
    assert_has(out.s, "0 units");
    wr_strbuf_release(&out);
    rs()->present->close(v);
    free_fix(&f);
}

/* --- describe ------------------------------------------------------------------------------ */

static void test_describe_phases(void **state)
{
    (void)state;
    struct fix f;
    new_game(&f, "{\"referee\":true,\"points\":1500}");
    struct wr_view *v = view_of(NULL, "p1");
    char *d = text_of(v, rs()->present->describe);
    assert_has(d, "No state yet");
    free(d);
    rs()->present->close(v);

    v = view_of(&f, "p1");
    d = text_of(v, rs()->present->describe);
    assert_has(d, "Battle of 1500 points, rosters: the sides write them");
    assert_has(d, "You (p1) may now:\n  unit            e.g. unit Spears infantry 20");
    assert_has(d, "p2: roster being written, sealed");
    free(d);
    rs()->present->close(v);

    sendj(&f, "p1", roster1);
    v = view_of(&f, "p2");
    d = text_of(v, rs()->present->describe);
    assert_has(d, "p1: roster in, sealed");
    rs()->present->close(v);
    free(d);
    v = view_of(&f, "p1");
    d = text_of(v, rs()->present->describe);
    assert_has(d, "wait: your roster is in, sealed until both are");
    assert_has(d, "p1: 28 of 28 models, breaks at 7");
    free(d);
    rs()->present->close(v);

    sendj(&f, "p2", roster2);
    v = view_of(&f, "p2");
    d = text_of(v, rs()->present->describe);
    assert_has(d, "rosters in: the roll-off for the first player turn is due");
    assert_has(d, "  start           e.g. start");
    free(d);
    rs()->present->close(v);

    sendj(&f, "p1", "{\"type\":\"start\"}");
    v = view_of(&f, "p1");
    d = text_of(v, rs()->present->describe);
    assert_has(d, "turn 1: p1's player turn, segment declare_charges");
    assert_has(d, "it is your player turn, segment declare_charges:");
    assert_has(d, "charge          e.g. charge Spears Slingers front");
    assert_has(d, "end             e.g. end");
    assert_has(d, "p2: 34 of 34 models, breaks at 8");
    free(d);
    rs()->present->close(v);
    v = view_of(&f, "p2");
    d = text_of(v, rs()->present->describe);
    assert_has(d, "it is p1's player turn (declare_charges); at any time:");
    assert_has(d, "cc              e.g. cc Slingers");
    assert_has(d, "cas             e.g. cas Spears 3");
    free(d);
    rs()->present->close(v);

    /* a dispute: who settles it */
    sendj(&f, "p1", "{\"type\":\"fact\",\"unit\":\"Spears\",\"fact\":\"secure_flanks\",\"value\":true}");
    sendj(&f, "p2", "{\"type\":\"dispute\",\"unit\":\"Spears\",\"fact\":\"secure_flanks\"}");
    v = view_of(&f, "referee");
    d = text_of(v, rs()->present->describe);
    assert_has(d, "Disputed: p2 disputes Spears's secure_flanks (p1's unit); the referee "
                  "settles it");
    assert_has(d, "settle          e.g. settle yes");
    free(d);
    rs()->present->close(v);
    v = view_of(&f, "p1");
    d = text_of(v, rs()->present->describe);
    assert_has(d, "wait for the referee's settlement");
    free(d);
    rs()->present->close(v);
    sendj(&f, "referee", "{\"type\":\"settle\",\"stands\":true}");

    /* the end: an agreed draw */
    sendj(&f, "p2", "{\"type\":\"offer_end\",\"result\":\"draw\"}");
    v = view_of(&f, "p1");
    d = text_of(v, rs()->present->describe);
    assert_has(d, "Offer: p2 offers to end the battle, result draw (accept)");
    assert_has(d, "accept          e.g. accept");
    free(d);
    rs()->present->close(v);
    sendj(&f, "p1", "{\"type\":\"accept_end\"}");
    v = view_of(&f, "p1");
    d = text_of(v, rs()->present->describe);
    /* the battle ended in a draw: the victory points are due (B42) */
    assert_has(d, "ended (draw): victory points are due");
    assert_has(d, "vp              e.g. vp 1300 1000");
    free(d);
    rs()->present->close(v);
    sendj(&f, "p1", "{\"type\":\"victory_points\",\"p1\":700,\"p2\":650}");
    sendj(&f, "p2", "{\"type\":\"victory_points\",\"p1\":700,\"p2\":650}");
    v = view_of(&f, "p1");
    d = text_of(v, rs()->present->describe);
    assert_has(d, "over after turn 1: a draw");
    assert_has(d, "nothing: the battle is over");
    free(d);
    rs()->present->close(v);
    free_fix(&f);
}

/* The victory phase, described from a state of that phase. */
static void test_describe_victory(void **state)
{
    (void)state;
    json_t *st = json_loads(
        "{\"phase\":\"victory\",\"points\":1000,\"referee\":false,\"turn\":4,\"decided\":\"p1\","
        "\"sides\":{\"p1\":{\"in\":true,\"break_point\":\"20 of 28 models, breaks at 7\"},"
        "\"p2\":{\"in\":true,\"break_point\":\"8 of 34 models, breaks at 8\"}},"
        "\"victory_points\":null,\"vp_reports\":{\"p1\":{\"p1\":1300,\"p2\":1000},\"p2\":null}}",
        0, NULL);
    struct wr_view *v = view_of(NULL, "p2");
    struct wr_refusal why = { 0, NULL, "" };
    assert_int_equal(rs()->present->update(v, st, &why), 0);
    char *d = text_of(v, rs()->present->describe);
    assert_has(d, "ended (p1): victory points are due");
    assert_has(d, "vp              e.g. vp 1300 1000");
    assert_has(d, "Victory points: p1 reports p1 1300, p2 1000; p2 not yet;");
    assert_has(d, "p2: 8 of 34 models, breaks at 8");
    free(d);
    /* and what is not a battle state is refused, the state kept */
    json_t *bad = json_loads("{\"phase\":\"move\"}", 0, NULL);
    assert_int_equal(rs()->present->update(v, bad, &why), -1);
    assert_string_equal(why.code, "bad_scenario");
    d = text_of(v, rs()->present->describe);
    assert_has(d, "victory points are due");
    free(d);
    json_decref(bad);
    json_decref(st);
    rs()->present->close(v);
}

/* --- the roster view ----------------------------------------------------------------------- */

static char *draw(struct wr_view *v, int cols)
{
    struct wr_draw_opts o = { cols, 0, 0, 0, 0 };
    struct wr_strbuf out;
    wr_strbuf_init(&out);
    assert_int_equal(rs()->present->draw_text(v, &o, &out), 0);
    return out.s;
}

static void test_roster_view(void **state)
{
    (void)state;
    struct fix f;
    new_game(&f, "{}");
    sendj(&f, "p1", roster1);
    struct wr_view *v = view_of(&f, "p2");
    char *t = draw(v, 80);
    assert_has(t, "p1: roster sealed (in)");
    assert_has(t, "p2: roster not in yet");
    free(t);
    rs()->present->close(v);

    sendj(&f, "p2", roster2);
    sendj(&f, "p1", "{\"type\":\"start\"}");
    sendj(&f, "p1", "{\"type\":\"fact\",\"unit\":\"Spears\",\"fact\":\"secure_flanks\",\"value\":true}");
    sendj(&f, "p1", "{\"type\":\"fact\",\"unit\":\"Spears\",\"fact\":\"rear_support\",\"value\":true}");
    sendj(&f, "p1", "{\"type\":\"fact\",\"unit\":\"Spears\",\"fact\":\"terrain\",\"value\":\"difficult\"}");
    sendj(&f, "p1", "{\"type\":\"casualties\",\"unit\":\"Hoplites\",\"wounds\":13}");
    sendj(&f, "p2", "{\"type\":\"casualties\",\"unit\":\"Spears\",\"wounds\":2}");
    v = view_of(&f, NULL);
    t = draw(v, 80);
    assert_has(t, "p1: 26 of 28 models, breaks at 7; elephants: never_met");
    assert_has(t, "p2: 21 of 34 models, breaks at 8");
    assert_has(t, "  Spears             infantry      18/20   5x4      confident, rank bonus lost\n");
    assert_has(t, "    confident: secure flanks and rear support\n");
    assert_has(t, "    edgy: none of the circumstances of an edgy unit applies\n");
    assert_has(t, "    rank: rank bonus needs both sides in clear, open terrain and neither");
    assert_has(t, "\n      an obstacle\n");
    assert_has(t, "facts: terrain difficult*");
    assert_has(t, "secure_flanks*");
    assert_has(t, "  Hoplites           infantry      11/24   6x4      edgy\n");
    assert_has(t, "    edgy: the unit has suffered 50% or more casualties\n");
    assert_has(t, "  Light Horse        cavalry        8/8    1x1      [general] confident\n");
    assert_has(t, "    confident: full strength and no unit but skirmishers broken in");
    assert_has(t, "  Slingers           skirmishers   10/10   skirmish steady\n");
    assert_has(t, "    confident: units in skirmish formation can never be confident");
    assert_fits(t, 80);
    free(t);
    t = draw(v, 40);
    assert_fits(t, 40);
    assert_has(t, "p2: 21 of 34 models, breaks at 8;");
    free(t);
    t = draw(v, 0);
    assert_fits(t, 80);
    free(t);

    /* the last tests: seen through event(), each once, shown with faces */
    size_t before = json_array_size(f.steps);
    sendj(&f, "p1", "{\"type\":\"test\",\"unit\":\"Spears\",\"test\":\"panic\",\"target\":7}");
    json_t *ev = json_object_get(json_array_get(f.steps, before), "events");
    for (int twice = 0; twice < 2; twice++) {
        size_t i;
        json_t *e;
        json_array_foreach(ev, i, e) {
            struct wr_strbuf line;
            wr_strbuf_init(&line);
            rs()->present->event(v, e, &line);
            assert_non_null(line.s);
            assert_null(strchr(line.s, '\n'));
            wr_strbuf_release(&line);
        }
    }
    t = draw(v, 80);
    assert_has(t, "Last tests:\n  Spears panic, target 7: 6+6 failed: a confident unit that "
                  "fails a panic test\n    falls back in good order\n");
    assert_null(strstr(strstr(t, "Last tests:\n  Spears panic") + 20, "Spears panic"));  /* once */
    assert_fits(t, 80);
    free(t);
    struct wr_strbuf svg;
    wr_strbuf_init(&svg);
    assert_int_equal(rs()->present->draw_svg(v, &svg), 0);
    assert_int_equal(strncmp(svg.s, "<svg ", 5), 0);
    assert_has(svg.s, "Spears");
    /* each unit of a roster shown is a group named as the orders take it
     * (present.h: data-word), its lines inside, no mark of the text left */
    assert_has(svg.s, "<g class=\"unit\" data-word=\"Spears\">\n<text ");
    for (size_t i = 0; i < svg.len; i++)
        assert_true(svg.s[i] != '\001' && svg.s[i] != '\002');
    wr_strbuf_release(&svg);
    rs()->present->close(v);
    free_fix(&f);
}

static void test_event_lines(void **state)
{
    (void)state;
    static const struct { const char *event, *line; } rows[] = {
        { "{\"type\":\"test\",\"unit\":\"Spears\",\"test\":\"panic\",\"target\":7,"
          "\"faces\":[6,5],\"passed\":false,\"outcome\":\"flees\"}",
          "Spears panic test, target 7: 6+5, failed: a unit that is not confident flees when "
          "it fails a panic test" },
        { "{\"type\":\"battle_over\",\"result\":\"p2\",\"why\":\"army_broken\"}",
          "The battle is over: p2 wins (the army has a quarter or less of its starting models "
          "left alive)" },
        { "{\"type\":\"casualties\",\"unit\":\"Spears\",\"wounds\":3,\"models_left\":17}",
          "Spears loses 3 wounds: 17 models left" },
        { "{\"type\":\"roll\",\"k\":4,\"face\":5,\"for\":\"dispute\"}", "Die k=4 for dispute: 5" },
        { "{\"type\":\"victory_points_agreed\",\"p1\":1300,\"p2\":1000}",
          "Victory points agreed: p1 1300, p2 1000" },
        { "{\"type\":\"familiarity\",\"side\":\"p1\",\"unit\":\"Spears\",\"event\":"
          "\"survived\",\"elephants\":\"never_met\",\"upgraded\":true}",
          "Spears survived an elephant: p1's familiarity with elephants (never_met) is upgraded" },
        { "{\"type\":\"charge\",\"side\":\"p2\",\"unit\":\"Lancers\",\"target\":\"Spears\","
          "\"facing\":\"flank\",\"models\":10,\"kept\":false,\"rank\":\"rank_charged\"}",
          "Lancers charges Spears in the flank (10 models): charged to flank or rear by five or "
          "more models: rank bonus lost" },
        { "{\"type\":\"broke\",\"side\":\"p1\",\"unit\":\"Spears\",\"confident_a_lost\":true}",
          "Spears broke in close combat and flees; p1's units are no longer confident by a)" },
        { "{\"type\":\"counter_charge\",\"side\":\"p1\",\"unit\":\"Lancers\",\"charger\":"
          "\"Cataphracts\",\"why\":\"x\",\"thrusting_spears\":true}",
          "Lancers counter charges Cataphracts: it counts as charging for its weapons (+1S: "
          "thrusting spears), not for who strikes first" },
        { "{\"type\":\"vp_disputed\",\"referee\":\"referee\"}",
          "The victory point reports differ: report again, or the referee settles them" },
        { "{\"type\":\"a_later_event\",\"side\":\"p1\"}",
          "{\"side\":\"p1\",\"type\":\"a_later_event\"}" },
    };
    struct wr_view *v = view_of(NULL, "p1");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        json_t *e = json_loads(rows[i].event, 0, NULL);
        struct wr_strbuf out;
        wr_strbuf_init(&out);
        rs()->present->event(v, e, &out);
        assert_string_equal(out.s, rows[i].line);
        wr_strbuf_release(&out);
        json_decref(e);
    }
    rs()->present->close(v);
}

static void add_cand(void *ctx, const char *cand)
{
    struct wr_strbuf *b = ctx;
    wr_strbuf_printf(b, "%s ", cand);
}

static void test_complete(void **state)
{
    (void)state;
    struct fix f;
    game_in_play(&f, "{}");
    struct wr_view *v = view_of(&f, "p1");
    static const struct { const char *words[3]; int n; const char *word, *want; } rows[] = {
        { { "cas" }, 1, "L", "Light_Horse " },
        { { "charge" }, 1, "", "Spears Light_Horse " },
        { { "charge", "Spears" }, 2, "", "Slingers Hoplites " },
        { { "charge", "Spears", "Hoplites" }, 3, "f", "front flank " },
        { { "fact", "Spears" }, 2, "secure", "secure_flanks " },
        { { "fact", "Spears", "terrain" }, 3, "", "clear hill ford difficult obstacle " },
        { { "test", "Spears" }, 2, "", "ld panic rally " },
        { { "unit", "Bows" }, 2, "sk", "skirmishers " },
        { { "offer" }, 1, "", "p1 p2 draw " },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct wr_strbuf out;
        wr_strbuf_init(&out);
        rs()->present->complete(v, rows[i].words, rows[i].n, rows[i].word, add_cand, &out);
        assert_string_equal(out.s ? out.s : "", rows[i].want);
        wr_strbuf_release(&out);
    }
    rs()->present->close(v);
    free_fix(&f);
}

/* --- the battle sheet ---------------------------------------------------------------------- */

static void test_report(void **state)
{
    (void)state;
    struct fix f;
    game_in_play(&f, "{}");
    sendj(&f, "p1", "{\"type\":\"fact\",\"unit\":\"Spears\",\"fact\":\"secure_flanks\",\"value\":true}");
    sendj(&f, "p2", "{\"type\":\"dispute\",\"unit\":\"Spears\",\"fact\":\"secure_flanks\"}");
    sendj(&f, "p1", "{\"type\":\"test\",\"unit\":\"Spears\",\"test\":\"ld\",\"target\":7}");
    sendj(&f, "p1", "{\"type\":\"casualties\",\"unit\":\"Hoplites\",\"wounds\":20}");
    sendj(&f, "p1", "{\"type\":\"casualties\",\"unit\":\"Slingers\",\"wounds\":8}");
    sendj(&f, "p1", "{\"type\":\"end_turn\"}");
    struct wr_view *v = view_of(&f, NULL);
    struct wr_strbuf out;
    wr_strbuf_init(&out);
    assert_int_equal(rs()->present->draw_report(v, f.steps, &out), 0);
    const char *h = out.s;
    if (getenv("BATTLE_SHEET_OUT")) {
        FILE *fh = fopen(getenv("BATTLE_SHEET_OUT"), "w");
        fputs(h, fh);
        fclose(fh);
    }
    assert_int_equal(strncmp(h, "<!DOCTYPE html>", 15), 0);
    assert_null(strstr(h, "<script"));
    assert_null(strstr(h, "http"));     /* nothing outside the page */
    assert_has(h, "<style>");
    assert_has(h, "@media print");
    assert_has(h, "<p class=\"result\">The battle is over: p1 wins (the army has a quarter or "
                  "less of its starting models left alive)</p>");
    assert_has(h, "<td>Hoplites</td><td>infantry</td><td class=\"n\">24</td><td class=\"n\">4"
                  "</td><td class=\"n lost\">20</td>");
    assert_has(h, "<td>k0 (p1): 4, k1 (p2): 3</td><td>roll-off</td>");
    assert_has(h, "<td>k3: 6, k4: 2 = 8</td><td>ld</td>");
    assert_has(h, "<td>ld</td><td class=\"n\">7</td><td class=\"fail\">failed: the Ld test is "
                  "failed");
    assert_has(h, "<td>p2</td><td>Spears</td><td>secure_flanks</td><td>dice</td><td>stands</td>");
    assert_has(h, "<h3>Turn 1: p1</h3>");
    assert_has(h, "<li><span class=\"seat\">p2</span> p2&apos;s roster is in (2 units); Both "
                  "rosters are in: they are revealed</li>");
    assert_has(h, "<h3>p2: 6 of 34 models, breaks at 8</h3>");
    assert_has(h, "Victory points</h2>\n<p>Not reported in this record.");
    assert_has(h, "</html>\n");
    wr_strbuf_release(&out);
    json_t *bad = json_loads("[1]", 0, NULL);
    wr_strbuf_init(&out);
    assert_int_equal(rs()->present->draw_report(v, bad, &out), -1);
    wr_strbuf_release(&out);
    json_decref(bad);
    rs()->present->close(v);
    free_fix(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_orders),
        cmocka_unit_test(test_orders_table_examples),
        cmocka_unit_test(test_bad_orders),
        cmocka_unit_test(test_names_from_state),
        cmocka_unit_test(test_roster_draft),
        cmocka_unit_test(test_describe_phases),
        cmocka_unit_test(test_describe_victory),
        cmocka_unit_test(test_roster_view),
        cmocka_unit_test(test_event_lines),
        cmocka_unit_test(test_complete),
        cmocka_unit_test(test_report),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
