/*
 * test_battle_rules.c - the battle referee's rules core
 * (common/rulesets/battle/battle_rules.h) against the rules from "Counter
 * charge" to the end of the campaign and battle rules (docs/sources.md)
 * and docs/rules-notes.md ("Battle referee", B1-B20).
 *
 * One table per rule; rows are numbered across the file, and each carries
 * the seed's sentence it checks, printed with the row's number on failure.
 * Every row asserts a verdict and its reason (and, where the rule has
 * them, the clauses or the counts), so a rule that changes fails a row.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <string.h>

#include "battle_rules.h"

static int failures;

/* Report a failed row with its number and quote; the test fails at the
 * end of its table so every failing row is named. */
static void expect_row(bool ok, int no, const char *quote, const char *what, long got, long want)
{
    if (ok)
        return;
    print_error("row %d (\"%s\"): %s is %ld, expected %ld\n", no, quote, what, got, want);
    failures++;
}

#define EXPECT(no, quote, what, got, want) \
    expect_row((long)(got) == (long)(want), no, quote, what, (long)(got), (long)(want))

static void end_table(void)
{
    int n = failures;
    failures = 0;
    if (n > 0)
        fail_msg("%d row check(s) failed", n);
}

/* A formed infantry unit of 20 (5 x 4) in clear terrain, nothing stated. */
static struct wb_unit base_unit(enum wb_kind kind)
{
    struct wb_unit u;
    memset(&u, 0, sizeof u);
    strcpy(u.name, "Unit");
    u.kind = kind;
    u.models = 20;
    u.wounds = 1;
    u.move = kind == WB_CAVALRY ? 8 : 4;
    u.files = 5;
    u.ranks = 4;
    u.skirmish = kind == WB_SKIRMISHERS;
    u.facts.terrain = WB_CLEAR;
    u.facts.enemy_terrain = WB_CLEAR;
    return u;
}

/* An army of the given unit and one more unit of 20, start counted. */
static void base_army(struct wb_army *a, const struct wb_unit *u)
{
    memset(a, 0, sizeof *a);
    a->units[0] = *u;
    a->units[1] = base_unit(WB_INFANTRY);
    a->count = 2;
    a->start_models = wb_army_start_count(a);
}

/* --- B1 counter charge ---------------------------------------------------- */

#define Q_CC1 "may only be taken by cavalry units that are charged to their front by enemy cavalry"
#define Q_CC2 "Cavalry with a move of less than 6\" may not counter charge"
#define Q_CC3 "cavalry may not counter charge infantry"
#define Q_CC4 "it does not count as charging for the purposes of deciding who strikes first"

static const struct cc_row {
    int no;
    const char *quote;
    enum wb_kind kind;
    int move;
    bool charged, to_front;
    enum wb_kind charger;
    bool yes;
    enum wb_reason why;
} cc_rows[] = {
    { 1, Q_CC1, WB_CAVALRY, 8, true, true, WB_CAVALRY, true, WB_R_COUNTER_CHARGE },
    { 2, Q_CC1, WB_INFANTRY, 8, true, true, WB_CAVALRY, false, WB_R_CC_NOT_CAVALRY },
    { 3, Q_CC1, WB_CHARIOT, 8, true, true, WB_CAVALRY, false, WB_R_CC_NOT_CAVALRY },
    { 4, Q_CC1, WB_CAVALRY, 8, true, false, WB_CAVALRY, false, WB_R_CC_NOT_FRONT },
    { 5, Q_CC1, WB_CAVALRY, 8, false, true, WB_CAVALRY, false, WB_R_CC_NOT_FRONT },
    { 6, Q_CC1, WB_CAVALRY, 8, true, true, WB_CHARIOT, false, WB_R_CC_NOT_VS_CAVALRY },
    { 7, Q_CC1, WB_CAVALRY, 8, true, true, WB_ELEPHANT, false, WB_R_CC_NOT_VS_CAVALRY },
    { 8, Q_CC2, WB_CAVALRY, 6, true, true, WB_CAVALRY, true, WB_R_COUNTER_CHARGE },
    { 9, Q_CC2, WB_CAVALRY, 5, true, true, WB_CAVALRY, false, WB_R_CC_TOO_SLOW },
    { 10, Q_CC3, WB_CAVALRY, 8, true, true, WB_INFANTRY, false, WB_R_CC_VS_INFANTRY },
};

static void test_counter_charge(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cc_rows / sizeof cc_rows[0]; i++) {
        const struct cc_row *r = &cc_rows[i];
        struct wb_unit u = base_unit(r->kind);
        u.move = r->move;
        u.facts.charge = (struct wb_charge){ r->charged, r->to_front, r->charger, 10, false };
        bool weapons = !r->yes, first = true;
        struct wb_verdict v = wb_counter_charge(&u, &weapons, &first);
        EXPECT(r->no, r->quote, "allowed", v.yes, r->yes);
        EXPECT(r->no, r->quote, "reason", v.why, r->why);
        EXPECT(r->no, Q_CC4, "counts as charging for its weapons", weapons, r->yes);
        EXPECT(r->no, Q_CC4, "counts as charging for who strikes first", first, false);
    }
    end_table();
}

/* --- B2-B4, B7, B8 rank bonus ------------------------------------------- */

#define Q_RT "both they and their opponent are in clear, open terrain, and neither is behind an obstacle"
#define Q_RH "hills and fords count as clear terrain"
#define Q_RS "Formed units do not lose their rank bonus if a unit of five or more models that is in skirmish formation charges them"
#define Q_RC "This applies to cavalry in skirmish formation, but not to chariots."
#define Q_RD "units that adopt a formation that has more ranks than files is treated as a march column"
#define Q_RR "a reformed unit still loses its rank bonus for the duration of the combat if an enemy unit of five or more models charged it"

static const struct rank_row {
    int no;
    const char *quote;
    enum wb_terrain own, enemy;
    int files, ranks;
    bool deep_option;
    bool charged, to_front;
    enum wb_kind charger;
    int charger_models;
    bool charger_skirmish;
    bool reformed;
    bool yes;
    enum wb_reason why;
} rank_rows[] = {
    { 11, Q_RT, WB_CLEAR, WB_CLEAR, 5, 4, true, false, true, WB_INFANTRY, 0, false, false, true, WB_R_RANK_KEPT },
    { 12, Q_RT, WB_DIFFICULT, WB_CLEAR, 5, 4, true, false, true, WB_INFANTRY, 0, false, false, false, WB_R_RANK_TERRAIN },
    { 13, Q_RT, WB_CLEAR, WB_DIFFICULT, 5, 4, true, false, true, WB_INFANTRY, 0, false, false, false, WB_R_RANK_TERRAIN },
    { 14, Q_RT, WB_OBSTACLE, WB_CLEAR, 5, 4, true, false, true, WB_INFANTRY, 0, false, false, false, WB_R_RANK_TERRAIN },
    { 15, Q_RT, WB_CLEAR, WB_OBSTACLE, 5, 4, true, false, true, WB_INFANTRY, 0, false, false, false, WB_R_RANK_TERRAIN },
    { 16, Q_RH, WB_HILL, WB_CLEAR, 5, 4, true, false, true, WB_INFANTRY, 0, false, false, true, WB_R_RANK_KEPT },
    { 17, Q_RH, WB_CLEAR, WB_FORD, 5, 4, true, false, true, WB_INFANTRY, 0, false, false, true, WB_R_RANK_KEPT },
    { 18, Q_RD, WB_CLEAR, WB_CLEAR, 4, 5, true, false, true, WB_INFANTRY, 0, false, false, false, WB_R_RANK_MARCH_COLUMN },
    { 19, Q_RD, WB_CLEAR, WB_CLEAR, 4, 5, false, false, true, WB_INFANTRY, 0, false, false, true, WB_R_RANK_KEPT },
    { 20, Q_RD, WB_CLEAR, WB_CLEAR, 4, 4, true, false, true, WB_INFANTRY, 0, false, false, true, WB_R_RANK_KEPT },
    { 21, Q_RS, WB_CLEAR, WB_CLEAR, 5, 4, true, true, false, WB_SKIRMISHERS, 5, true, false, true, WB_R_RANK_SKIRMISH_CHARGE },
    { 22, Q_RC, WB_CLEAR, WB_CLEAR, 5, 4, true, true, false, WB_CAVALRY, 6, true, false, true, WB_R_RANK_SKIRMISH_CHARGE },
    { 23, Q_RC, WB_CLEAR, WB_CLEAR, 5, 4, true, true, false, WB_CHARIOT, 5, true, false, false, WB_R_RANK_CHARGED },
    { 24, Q_RS, WB_CLEAR, WB_CLEAR, 5, 4, true, true, false, WB_INFANTRY, 5, false, false, false, WB_R_RANK_CHARGED },
    { 25, Q_RS, WB_CLEAR, WB_CLEAR, 5, 4, true, true, false, WB_INFANTRY, 4, false, false, true, WB_R_RANK_KEPT },
    { 26, Q_RR, WB_CLEAR, WB_CLEAR, 5, 4, true, true, false, WB_INFANTRY, 5, false, true, false, WB_R_RANK_REFORMED_CHARGED },
    { 27, Q_RR, WB_CLEAR, WB_CLEAR, 5, 4, true, true, false, WB_SKIRMISHERS, 5, true, true, true, WB_R_RANK_SKIRMISH_CHARGE },
    { 28, Q_RR, WB_CLEAR, WB_CLEAR, 5, 4, true, true, false, WB_INFANTRY, 4, false, true, true, WB_R_RANK_KEPT },
};

static void test_rank_bonus(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof rank_rows / sizeof rank_rows[0]; i++) {
        const struct rank_row *r = &rank_rows[i];
        struct wb_unit u = base_unit(WB_INFANTRY);
        struct wb_options o = wb_options_default();
        o.deep_is_column = r->deep_option;
        u.facts.terrain = r->own;
        u.facts.enemy_terrain = r->enemy;
        u.files = r->files;
        u.ranks = r->ranks;
        u.facts.charge = (struct wb_charge){ r->charged, r->to_front, r->charger,
                                             r->charger_models, r->charger_skirmish };
        if (r->reformed)
            u.status |= WB_ST_REFORMED;
        struct wb_verdict v = wb_rank_bonus(&u, &o);
        EXPECT(r->no, r->quote, "rank bonus kept", v.yes, r->yes);
        EXPECT(r->no, r->quote, "reason", v.why, r->why);
    }
    end_table();
}

/* --- B5 skirmish screens --------------------------------------------------- */

#define Q_S1 "Troops that are in skirmish formation can be used to screen friendly units that are within 2\" of the skirmishers"
#define Q_S2 "counts as being in soft cover if it is shot at by a unit that draws a line of sight through the skirmish screen"
#define Q_S3 "If a unit being screened declares a charge, then the skirmish screen may flee out of the way"

static const struct screen_row {
    int no;
    const char *quote;
    bool flee;                  /* wb_screen_flee, else wb_screen_cover */
    bool screen_skirmish, near, los_or_charge;
    bool yes;
    enum wb_reason why;
} screen_rows[] = {
    { 29, Q_S2, false, true, true, true, true, WB_R_SCREEN_COVER },
    { 30, Q_S1, false, false, true, true, false, WB_R_SCREEN_NOT_SKIRMISH },
    { 31, Q_S1, false, true, false, true, false, WB_R_SCREEN_TOO_FAR },
    { 32, Q_S2, false, true, true, false, false, WB_R_SCREEN_NO_LOS },
    { 33, Q_S3, true, true, true, true, true, WB_R_SCREEN_FLEE },
    { 34, Q_S3, true, true, true, false, false, WB_R_SCREEN_NO_CHARGE },
    { 35, Q_S1, true, false, true, true, false, WB_R_SCREEN_NOT_SKIRMISH },
    { 36, Q_S1, true, true, false, true, false, WB_R_SCREEN_TOO_FAR },
};

static void test_screens(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof screen_rows / sizeof screen_rows[0]; i++) {
        const struct screen_row *r = &screen_rows[i];
        struct wb_unit screen = base_unit(r->screen_skirmish ? WB_SKIRMISHERS : WB_INFANTRY);
        struct wb_unit screened = base_unit(WB_INFANTRY);
        screened.facts.near_screen = r->near;
        struct wb_verdict v = r->flee ? wb_screen_flee(&screen, &screened, r->los_or_charge)
                                      : wb_screen_cover(&screen, &screened, r->los_or_charge);
        EXPECT(r->no, r->quote, "verdict", v.yes, r->yes);
        EXPECT(r->no, r->quote, "reason", v.why, r->why);
    }
    end_table();
}

/* --- B8 reforming ------------------------------------------------------------ */

#define Q_F1 "A unit that is fighting to the flank or rear may reform at the end of the combat phase, as long as it does not break, and is not engaged on another facing."

static const struct reform_row {
    int no;
    bool end, flank, broke, other;
    bool yes;
    enum wb_reason why;
} reform_rows[] = {
    { 37, true, true, false, false, true, WB_R_REFORM },
    { 38, false, true, false, false, false, WB_R_REFORM_NOT_END },
    { 39, true, false, false, false, false, WB_R_REFORM_NOT_FLANK },
    { 40, true, true, true, false, false, WB_R_REFORM_BROKEN },
    { 41, true, true, false, true, false, WB_R_REFORM_OTHER_FACING },
};

static void test_reform(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof reform_rows / sizeof reform_rows[0]; i++) {
        const struct reform_row *r = &reform_rows[i];
        struct wb_unit u = base_unit(WB_INFANTRY);
        u.facts.fighting_flank_rear = r->flank;
        u.facts.engaged_other_facing = r->other;
        struct wb_verdict v = wb_reform(&u, r->end, r->broke);
        EXPECT(r->no, Q_F1, "may reform", v.yes, r->yes);
        EXPECT(r->no, Q_F1, "reason", v.why, r->why);
    }
    end_table();
}

/* --- B9 falling back in good order: the four differences ----------------- */

static const struct retreat_row {
    int no;
    const char *quote;
    size_t field;               /* offsetof a bool of struct wb_retreat */
    bool flee, fall_back;
} retreat_rows[] = {
    { 42, "1. Units falling back in good order don't cause friends within 12\" to take a Panic test.",
      offsetof(struct wb_retreat, panics_friends), true, false },
    { 43, "2. Units falling back in good order rally automatically at the end of the move",
      offsetof(struct wb_retreat, rallies_at_end), false, true },
    { 44, "2. ... and may immediately reform.", offsetof(struct wb_retreat, may_reform), false, true },
    { 45, "3. ... if caught they're not wiped out", offsetof(struct wb_retreat, wiped_if_caught), true, false },
    { 46, "3. ... instead the pursuing units count as having charged in the next combat phase.",
      offsetof(struct wb_retreat, pursuer_charged), false, true },
    { 47, "4. Units that fell back in good order are not allowed to declare a charge in their next turn.",
      offsetof(struct wb_retreat, may_charge_next_turn), true, false },
};

static bool field(const struct wb_retreat *r, size_t off)
{
    bool b;
    memcpy(&b, (const char *)r + off, sizeof b);
    return b;
}

static void test_fall_back_differences(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof retreat_rows / sizeof retreat_rows[0]; i++) {
        const struct retreat_row *r = &retreat_rows[i];
        EXPECT(r->no, r->quote, "fleeing", field(wb_retreat_rules(false), r->field), r->flee);
        EXPECT(r->no, r->quote, "falling back", field(wb_retreat_rules(true), r->field), r->fall_back);
    }
    /* Row 48: difference 4 as the unit's permission. */
    struct wb_unit u = base_unit(WB_INFANTRY);
    const char *q = "not allowed to declare a charge in their next turn";
    EXPECT(48, q, "may charge", wb_may_declare_charge(&u).yes, true);
    u.status |= WB_ST_FELL_BACK;
    struct wb_verdict v = wb_may_declare_charge(&u);
    EXPECT(48, q, "may charge after falling back", v.yes, false);
    EXPECT(48, q, "reason", v.why, WB_R_FELL_BACK_NO_CHARGE);
    end_table();
}

/* --- B10 confident ------------------------------------------------------------ */

#define Q_CA "a) They are at full strength and no unit in the army has been broken in close combat other than skirmishers."
#define Q_CB "b) They have secure flanks and rear support"
#define Q_CC "c) The army general is with the unit."
#define Q_CD "d) They won a round of combat this player turn."
#define Q_CS "Units in skirmish formation can never be confident."

static const struct conf_row {
    int no;
    const char *quote;
    bool skirmish;
    int wounds_lost;
    bool formed_broken, flanks, rear, general, won;
    bool yes;
    enum wb_reason why;
    unsigned clauses;
} conf_rows[] = {
    { 49, Q_CA, false, 0, false, false, false, false, false, true, WB_R_CONFIDENT_A, WB_CONF_A },
    { 50, Q_CA, false, 1, false, false, false, false, false, false, WB_R_NOT_CONFIDENT, 0 },
    { 51, Q_CA, false, 0, true, false, false, false, false, false, WB_R_NOT_CONFIDENT, 0 },
    { 52, Q_CB, false, 1, false, true, true, false, false, true, WB_R_CONFIDENT_B, WB_CONF_B },
    { 53, Q_CB, false, 1, false, true, false, false, false, false, WB_R_NOT_CONFIDENT, 0 },
    { 54, Q_CB, false, 1, false, false, true, false, false, false, WB_R_NOT_CONFIDENT, 0 },
    { 55, Q_CC, false, 1, false, false, false, true, false, true, WB_R_CONFIDENT_C, WB_CONF_C },
    { 56, Q_CD, false, 1, false, false, false, false, true, true, WB_R_CONFIDENT_D, WB_CONF_D },
    { 57, Q_CA, false, 0, false, true, true, true, true, true, WB_R_CONFIDENT_A,
      WB_CONF_A | WB_CONF_B | WB_CONF_C | WB_CONF_D },
    { 58, Q_CS, true, 0, false, true, true, true, true, false, WB_R_SKIRMISH_NEVER_CONFIDENT, 0 },
};

static void test_confident(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof conf_rows / sizeof conf_rows[0]; i++) {
        const struct conf_row *r = &conf_rows[i];
        struct wb_unit u = base_unit(r->skirmish ? WB_SKIRMISHERS : WB_INFANTRY);
        u.wounds_lost = r->wounds_lost;
        u.facts.secure_flanks = r->flanks;
        u.facts.rear_support = r->rear;
        u.general = r->general;
        u.facts.won_round = r->won;
        struct wb_army a;
        base_army(&a, &u);
        a.formed_unit_broken = r->formed_broken;
        struct wb_verdict v = wb_confident(&a, &a.units[0]);
        EXPECT(r->no, r->quote, "confident", v.yes, r->yes);
        EXPECT(r->no, r->quote, "reason", v.why, r->why);
        EXPECT(r->no, r->quote, "clauses", v.clauses, r->clauses);
    }
    end_table();
}

/* --- B11 edgy ---------------------------------------------------------------- */

#define Q_EA "a) The unit has suffered 50% or more casualties."
#define Q_EB "b) The unit is more than 12\" from any other friendly units"
#define Q_EC "c) The army general has been killed (this doesn't apply until the turn after he has been killed)."
#define Q_ED "d) There is an enemy unit (other than skirmishers) in a position from which it could declare a flank or rear charge"
#define Q_EE "e) The army has lost 50% or more of its starting number of models"

static const struct edgy_row {
    int no;
    const char *quote;
    int wounds_lost;            /* of the unit (20 models of 1 wound) */
    bool isolated;
    int killed_turn, turn;
    bool threat, threat_skirmish;
    int other_lost;             /* models lost by the army's other unit of 20 */
    bool yes;
    enum wb_reason why;
    unsigned clauses;
} edgy_rows[] = {
    { 59, Q_EA, 10, false, 0, 3, false, false, 0, true, WB_R_EDGY_A, WB_EDGY_A },
    { 60, Q_EA, 9, false, 0, 3, false, false, 0, false, WB_R_NOT_EDGY, 0 },
    { 61, Q_EB, 0, true, 0, 3, false, false, 0, true, WB_R_EDGY_B, WB_EDGY_B },
    { 62, Q_EC, 0, false, 2, 3, false, false, 0, true, WB_R_EDGY_C, WB_EDGY_C },
    { 63, Q_EC, 0, false, 3, 3, false, false, 0, false, WB_R_NOT_EDGY, 0 },
    { 64, Q_ED, 0, false, 0, 3, true, false, 0, true, WB_R_EDGY_D, WB_EDGY_D },
    { 65, Q_ED, 0, false, 0, 3, true, true, 0, false, WB_R_NOT_EDGY, 0 },
    /* e): 40 at the start; the other unit loses 19 and this one 1: 20 left */
    { 66, Q_EE, 1, false, 0, 3, false, false, 19, true, WB_R_EDGY_E, WB_EDGY_E },
    { 67, Q_EE, 0, false, 0, 3, false, false, 19, false, WB_R_NOT_EDGY, 0 },
    { 68, Q_EA, 10, true, 1, 3, true, false, 10, true, WB_R_EDGY_A,
      WB_EDGY_A | WB_EDGY_B | WB_EDGY_C | WB_EDGY_D | WB_EDGY_E },
};

static void test_edgy(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof edgy_rows / sizeof edgy_rows[0]; i++) {
        const struct edgy_row *r = &edgy_rows[i];
        struct wb_unit u = base_unit(WB_INFANTRY);
        u.wounds_lost = r->wounds_lost;
        u.facts.isolated = r->isolated;
        u.facts.flank_threat = r->threat;
        u.facts.flank_threat_skirmish = r->threat_skirmish;
        struct wb_army a;
        base_army(&a, &u);
        a.units[1].wounds_lost = r->other_lost;
        a.general_killed_turn = r->killed_turn;
        struct wb_verdict v = wb_edgy(&a, &a.units[0], r->turn);
        EXPECT(r->no, r->quote, "edgy", v.yes, r->yes);
        EXPECT(r->no, r->quote, "reason", v.why, r->why);
        EXPECT(r->no, r->quote, "clauses", v.clauses, r->clauses);
    }
    end_table();
}

/* --- B10-B12, B16 confident and edgy together; panic -------------------- */

#define Q_BOTH "It is possible for a unit to be both confident and edgy at the same time, in which case both sets of special rules will apply!"
#define Q_FAIL "A confident unit will fall back in good order as described in AoA if it fails a panic test."
#define Q_3D6 "An edgy unit takes all Ld tests on 3D6 instead of 2D6."

static const struct both_row {
    int no;
    const char *quote;
    bool general, isolated, failed, vs_elephants;
    bool confident, edgy;
    int dice;
    bool falls_back;
    enum wb_reason panic;
} both_rows[] = {
    { 69, Q_BOTH, true, true, true, false, true, true, 3, true, WB_R_FALL_BACK },
    { 70, Q_FAIL, true, false, true, false, true, false, 2, true, WB_R_FALL_BACK },
    { 71, Q_FAIL, false, true, true, false, false, true, 3, false, WB_R_FLEES },
    { 72, Q_FAIL, true, false, false, false, true, false, 2, false, WB_R_PANIC_PASSED },
    { 73, "Units may not fall back in good order when fighting against elephants.",
      true, false, true, true, true, false, 2, false, WB_R_FALL_BACK_ELEPHANTS },
};

static void test_confident_and_edgy(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof both_rows / sizeof both_rows[0]; i++) {
        const struct both_row *r = &both_rows[i];
        struct wb_unit u = base_unit(WB_INFANTRY);
        u.wounds_lost = 1;              /* not full strength: a) out */
        u.general = r->general;
        u.facts.isolated = r->isolated;
        u.facts.fighting_elephants = r->vs_elephants;
        struct wb_army a;
        base_army(&a, &u);
        a.familiarity = WB_NEVER_MET;
        const struct wb_unit *p = &a.units[0];
        bool edgy = wb_edgy(&a, p, 1).yes;
        EXPECT(r->no, r->quote, "confident", wb_confident(&a, p).yes, r->confident);
        EXPECT(r->no, r->quote, "edgy", edgy, r->edgy);
        int faces[3] = { 1, 1, 1 };
        EXPECT(r->no, Q_3D6, "dice accepted", wb_ld_test(faces, r->dice, edgy, 12).yes, true);
        struct wb_verdict v = wb_panic_result(&a, p, r->failed);
        EXPECT(r->no, r->quote, "falls back", v.yes, r->falls_back);
        EXPECT(r->no, r->quote, "panic result", v.why, r->panic);
    }
    end_table();
}

/* --- B12, B13 elephants ------------------------------------------------------ */

#define Q_NM "units are edgy if within 12\" (or charge range if this is further) of an elephant (friend or foe). Units may not fall back in good order when fighting against elephants."
#define Q_NMU "From this point on, cavalry suffer fear of elephants. They may still not charge them, but if charged may choose to 'hold'"
#define Q_PF "Cavalry may choose to hold when charged by elephants. ... Units are edgy within 12\" of elephants and may not fall back in good order"
#define Q_PFU "From then on cavalry fear elephants and infantry units may fall back in good order when fighting against elephants."
#define Q_KN "Cavalry may choose to hold against elephant charges, and infantry units may fall back in good order. Units are edgy within 12\" of elephants."
#define Q_KNU "As soon as a unit in the army has survived a round of combat with elephants, infantry are no longer edgy."
#define Q_EX "Cavalry may choose any charge reaction against enemy elephants and infantry are NOT edgy (cavalry are edgy within 12\")."
#define Q_EXF "Expert units are also immune to these effects when caused by friendly elephants."

static const struct el_row_t {
    int no;
    const char *quote;
    enum wb_familiarity f;
    bool upgraded;
    enum wb_kind kind;
    bool only_friendly;
    struct wb_elephant_effects e; /* edgy, hold, any, fear, fall back */
} el_rows[] = {
    { 74, Q_NM, WB_NEVER_MET, false, WB_INFANTRY, false, { true, false, false, false, false } },
    { 75, Q_NM, WB_NEVER_MET, false, WB_CAVALRY, true, { true, false, false, false, false } },
    { 76, Q_NMU, WB_NEVER_MET, true, WB_CAVALRY, false, { true, true, false, true, false } },
    { 77, Q_PF, WB_PREVIOUSLY_FOUGHT, false, WB_INFANTRY, false, { true, true, false, false, false } },
    { 78, Q_PFU, WB_PREVIOUSLY_FOUGHT, true, WB_INFANTRY, false, { true, true, false, true, true } },
    { 79, Q_PFU, WB_PREVIOUSLY_FOUGHT, true, WB_CAVALRY, false, { true, true, false, true, false } },
    { 80, Q_KN, WB_KNOW, false, WB_INFANTRY, false, { true, true, false, false, true } },
    { 81, Q_KNU, WB_KNOW, true, WB_INFANTRY, false, { false, true, false, false, true } },
    { 82, Q_KNU, WB_KNOW, true, WB_CAVALRY, false, { true, true, false, false, false } },
    { 83, Q_EX, WB_EXPERT, false, WB_INFANTRY, false, { false, true, true, false, true } },
    { 84, Q_EX, WB_EXPERT, false, WB_CAVALRY, false, { true, true, true, false, false } },
    { 85, Q_EXF, WB_EXPERT, false, WB_CAVALRY, true, { false, true, true, false, false } },
    /* B12 reading: elephants are not made edgy by elephants */
    { 114, Q_NM, WB_NEVER_MET, false, WB_ELEPHANT, false, { false, false, false, false, false } },
};

static void test_elephant_effects(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof el_rows / sizeof el_rows[0]; i++) {
        const struct el_row_t *r = &el_rows[i];
        struct wb_elephant_effects e = wb_elephant_effects(r->f, r->upgraded, r->kind, r->only_friendly);
        EXPECT(r->no, r->quote, "edgy near elephants", e.edgy_near, r->e.edgy_near);
        EXPECT(r->no, r->quote, "cavalry may hold", e.cavalry_hold, r->e.cavalry_hold);
        EXPECT(r->no, r->quote, "cavalry any reaction", e.cavalry_any_reaction, r->e.cavalry_any_reaction);
        EXPECT(r->no, r->quote, "cavalry fear", e.cavalry_fear, r->e.cavalry_fear);
        EXPECT(r->no, r->quote, "may fall back", e.may_fall_back, r->e.may_fall_back);
        /* The same through wb_edgy for a unit within 12". */
        struct wb_unit u = base_unit(r->kind);
        u.facts.near_elephant = true;
        u.facts.near_enemy_elephant = !r->only_friendly;
        struct wb_army a;
        base_army(&a, &u);
        a.familiarity = r->f;
        a.elephant_upgraded = r->upgraded;
        struct wb_verdict v = wb_edgy(&a, &a.units[0], 1);
        EXPECT(r->no, r->quote, "edgy (wb_edgy)", v.yes, r->e.edgy_near);
        EXPECT(r->no, r->quote, "edgy clauses", v.clauses, r->e.edgy_near ? WB_EDGY_EL : 0u);
    }
    end_table();
}

#define Q_UB "As soon as a unit in the army has beaten an elephant in combat, the elephants disturb the army less."
#define Q_US "As soon as a unit in the army has survived a round of combat with an elephant (i.e. is still unbroken at the end)"

static const struct up_row {
    int no;
    const char *quote;
    enum wb_familiarity f;
    bool already, beat;
    bool yes;
} up_rows[] = {
    { 86, Q_UB, WB_NEVER_MET, false, true, true },
    { 87, Q_UB, WB_NEVER_MET, false, false, false },
    { 88, Q_US, WB_PREVIOUSLY_FOUGHT, false, false, true },
    { 89, Q_US, WB_PREVIOUSLY_FOUGHT, false, true, true },
    { 90, Q_KNU, WB_KNOW, false, false, true },
    { 91, Q_EX, WB_EXPERT, false, true, false },
    { 92, Q_US, WB_KNOW, true, false, false },
};

static void test_elephant_upgrades(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof up_rows / sizeof up_rows[0]; i++) {
        const struct up_row *r = &up_rows[i];
        struct wb_army a;
        memset(&a, 0, sizeof a);
        a.familiarity = r->f;
        a.elephant_upgraded = r->already;
        struct wb_verdict v = wb_elephant_event(&a, r->beat);
        EXPECT(r->no, r->quote, "upgrade", v.yes, r->yes);
        EXPECT(r->no, r->quote, "reason", v.why, r->yes ? WB_R_ELEPHANT_UPGRADE : WB_R_ELEPHANT_NO_UPGRADE);
        EXPECT(r->no, r->quote, "army upgraded", a.elephant_upgraded, r->yes || r->already);
    }
    end_table();
}

/* --- B6 diagonal fighting ------------------------------------------------------ */

static void test_diagonal(void **state)
{
    (void)state;
    const char *q = "I'd recommend players allow models to fight diagonally";
    struct wb_options o = wb_options_default();
    struct wb_verdict v = wb_diagonal(&o);
    EXPECT(93, q, "default allows", v.yes, true);
    EXPECT(93, q, "reason", v.why, WB_R_DIAGONAL);
    o.diagonal = false;
    v = wb_diagonal(&o);
    EXPECT(94, q, "option off", v.yes, false);
    EXPECT(94, q, "reason", v.why, WB_R_NO_DIAGONAL);
    EXPECT(95, Q_RD, "march column by default", wb_options_default().deep_is_column, true);
    end_table();
}

/* --- B14, B15 the army break point ----------------------------------------------- */

#define Q_B1 "An army is broken when it has a quarter or less of its starting number of models left alive at the end of any player's turn."
#define Q_B2 "Models with more than one wound"
#define Q_B3 "chariots or elephants and their crew"
#define Q_B4 "characters riding horses or other mounts all count as a single model for this purpose"
#define Q_B5 "Models that are fleeing are counted as being 'alive' until they have left the table."

struct bu {
    enum wb_kind kind;
    int models, wounds, lost, crew;
    bool mounted;
    unsigned status;
};

static const struct break_row {
    int no;
    const char *quote;
    struct bu units[3];
    bool end_of_turn;
    int start, alive;
    bool yes;
    enum wb_reason why;
} break_rows[] = {
    /* 20 + 20: breaks at 10 */
    { 96, Q_B1, { { WB_INFANTRY, 20, 1, 20, 0, false, 0 }, { WB_INFANTRY, 20, 1, 10, 0, false, 0 } },
      true, 40, 10, true, WB_R_ARMY_BROKEN },
    { 97, Q_B1, { { WB_INFANTRY, 20, 1, 20, 0, false, 0 }, { WB_INFANTRY, 20, 1, 9, 0, false, 0 } },
      true, 40, 11, false, WB_R_ARMY_STANDS },
    { 98, Q_B1, { { WB_INFANTRY, 20, 1, 20, 0, false, 0 }, { WB_INFANTRY, 20, 1, 10, 0, false, 0 } },
      false, 40, 10, false, WB_R_NOT_END_OF_TURN },
    /* 4 models of 3 wounds count 4; 7 wounds lost leave 2 models (one wounded) */
    { 99, Q_B2, { { WB_CAVALRY, 4, 3, 7, 0, false, 0 } }, true, 4, 2, false, WB_R_ARMY_STANDS },
    { 100, Q_B2, { { WB_CAVALRY, 4, 3, 9, 0, false, 0 } }, true, 4, 1, true, WB_R_ARMY_BROKEN },
    /* 4 chariots with 2 crew each: 4 models */
    { 101, Q_B3, { { WB_CHARIOT, 4, 1, 2, 2, false, 0 } }, true, 4, 2, false, WB_R_ARMY_STANDS },
    { 102, Q_B3, { { WB_ELEPHANT, 4, 1, 3, 3, false, 0 } }, true, 4, 1, true, WB_R_ARMY_BROKEN },
    /* a mounted character is one model: 1 + 3 = 4 at the start */
    { 103, Q_B4, { { WB_CHARACTER, 1, 1, 0, 0, true, 0 }, { WB_INFANTRY, 3, 1, 3, 0, false, 0 } },
      true, 4, 1, true, WB_R_ARMY_BROKEN },
    /* fleeing on the table: alive; off the table: not */
    { 104, Q_B5, { { WB_INFANTRY, 10, 1, 0, 0, false, WB_ST_FLEEING }, { WB_INFANTRY, 10, 1, 10, 0, false, 0 } },
      true, 20, 10, false, WB_R_ARMY_STANDS },
    { 105, Q_B5, { { WB_INFANTRY, 10, 1, 0, 0, false, WB_ST_FLEEING | WB_ST_OFF_TABLE },
                   { WB_INFANTRY, 10, 1, 5, 0, false, 0 } },
      true, 20, 5, true, WB_R_ARMY_BROKEN },
};

static void test_break_point(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof break_rows / sizeof break_rows[0]; i++) {
        const struct break_row *r = &break_rows[i];
        struct wb_army a;
        memset(&a, 0, sizeof a);
        for (int k = 0; k < 3 && r->units[k].models > 0; k++) {
            const struct bu *b = &r->units[k];
            struct wb_unit *u = &a.units[a.count++];
            *u = base_unit(b->kind);
            u->models = b->models;
            u->wounds = b->wounds;
            u->crew = b->crew;
            u->mounted = b->mounted;
        }
        a.start_models = wb_army_start_count(&a);
        EXPECT(r->no, r->quote, "starting models", a.start_models, r->start);
        for (int k = 0; k < a.count; k++) {
            a.units[k].wounds_lost = r->units[k].lost;
            a.units[k].status = r->units[k].status;
        }
        EXPECT(r->no, r->quote, "models alive", wb_army_alive(&a), r->alive);
        struct wb_verdict v = wb_army_broken(&a, r->end_of_turn);
        EXPECT(r->no, r->quote, "broken", v.yes, r->yes);
        EXPECT(r->no, r->quote, "reason", v.why, r->why);
    }
    end_table();
}

/* --- B16 Ld tests -------------------------------------------------------------- */

static const struct ld_row {
    int no;
    int faces[3];
    int n;
    bool edgy;
    int target;
    bool yes;
    enum wb_reason why;
} ld_rows[] = {
    { 106, { 3, 4, 0 }, 2, false, 7, true, WB_R_LD_PASSED },
    { 107, { 4, 4, 0 }, 2, false, 7, false, WB_R_LD_FAILED },
    { 108, { 2, 2, 3 }, 3, true, 7, true, WB_R_LD_PASSED },
    { 109, { 2, 3, 3 }, 3, true, 7, false, WB_R_LD_FAILED },
    { 110, { 3, 4, 0 }, 2, true, 7, false, WB_R_LD_DICE_COUNT },
    { 111, { 1, 1, 1 }, 3, false, 7, false, WB_R_LD_DICE_COUNT },
    { 112, { 0, 4, 0 }, 2, false, 7, false, WB_R_LD_BAD_FACE },
    { 113, { 7, 1, 0 }, 2, false, 9, false, WB_R_LD_BAD_FACE },
};

static void test_ld(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof ld_rows / sizeof ld_rows[0]; i++) {
        const struct ld_row *r = &ld_rows[i];
        struct wb_verdict v = wb_ld_test(r->faces, r->n, r->edgy, r->target);
        EXPECT(r->no, Q_3D6, "passed", v.yes, r->yes);
        EXPECT(r->no, Q_3D6, "reason", v.why, r->why);
    }
    end_table();
}

/* Every reason has a code and a sentence, and the codes are distinct. */
static void test_reason_table(void **state)
{
    (void)state;
    for (int r = 0; r < WB_R_COUNT; r++) {
        assert_non_null(wb_reason_code((enum wb_reason)r));
        assert_true(strlen(wb_reason_text((enum wb_reason)r)) > 0);
        for (int s = 0; s < r; s++)
            assert_string_not_equal(wb_reason_code((enum wb_reason)r), wb_reason_code((enum wb_reason)s));
    }
    assert_string_equal(wb_reason_code(WB_R_OK), "ok");
    assert_string_equal(wb_reason_code(WB_R_CC_TOO_SLOW), "cc_too_slow");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counter_charge),
        cmocka_unit_test(test_rank_bonus),
        cmocka_unit_test(test_screens),
        cmocka_unit_test(test_reform),
        cmocka_unit_test(test_fall_back_differences),
        cmocka_unit_test(test_confident),
        cmocka_unit_test(test_edgy),
        cmocka_unit_test(test_confident_and_edgy),
        cmocka_unit_test(test_elephant_effects),
        cmocka_unit_test(test_elephant_upgrades),
        cmocka_unit_test(test_diagonal),
        cmocka_unit_test(test_break_point),
        cmocka_unit_test(test_ld),
        cmocka_unit_test(test_reason_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
