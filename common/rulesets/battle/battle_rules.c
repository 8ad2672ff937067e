/*
 * battle_rules.c - the battle referee's rules core (battle_rules.h). Each
 * function quotes the seed sentence it implements; docs/rules-notes.md
 * ("Battle referee") gives the readings B1-B20.
 */
#include "battle_rules.h"

#include <stddef.h>

static const struct wr_reason_info rows[] = {
    WR_REASON_ROWS(WB_REASON_MAP)
};

const struct wr_reason_table wb_reasons = { rows, WB_R_COUNT };

const char *wb_reason_code(enum wb_reason r)
{
    return wr_reason_code_in(&wb_reasons, r);
}

const char *wb_reason_text(enum wb_reason r)
{
    return wr_reason_text_in(&wb_reasons, r);
}

static struct wb_verdict verdict(bool yes, enum wb_reason why)
{
    struct wb_verdict v = { yes, why, 0 };
    return v;
}

struct wb_options wb_options_default(void)
{
    struct wb_options o = { true, true };
    return o;
}

/* B1. "Counter charge is a new charge reaction that may only be taken by
 * cavalry units that are charged to their front by enemy cavalry. ...
 * Cavalry with a move of less than 6" may not counter charge. ... it does
 * not count as charging for the purposes of deciding who strikes first.
 * Also note that cavalry may not counter charge infantry."
 *   1) the unit is cavalry  2) charged to its front  3) not by infantry
 *   4) by cavalry  5) its move is 6" or more. */
struct wb_verdict wb_counter_charge(const struct wb_unit *u, bool *weapons_charging,
                                    bool *strikes_first_as_charger)
{
    const struct wb_charge *c = &u->facts.charge;
    struct wb_verdict v;
    if (u->kind != WB_CAVALRY)                                  /* 1) */
        v = verdict(false, WB_R_CC_NOT_CAVALRY);
    else if (!c->charged || !c->to_front)                       /* 2) */
        v = verdict(false, WB_R_CC_NOT_FRONT);
    else if (c->kind == WB_INFANTRY)                            /* 3) */
        v = verdict(false, WB_R_CC_VS_INFANTRY);
    else if (c->kind != WB_CAVALRY)                             /* 4) */
        v = verdict(false, WB_R_CC_NOT_VS_CAVALRY);
    else if (u->move < 6)                                       /* 5) */
        v = verdict(false, WB_R_CC_TOO_SLOW);
    else
        v = verdict(true, WB_R_COUNTER_CHARGE);
    if (weapons_charging != NULL)
        *weapons_charging = v.yes;
    if (strikes_first_as_charger != NULL)
        *strikes_first_as_charger = false;
    return v;
}

static bool clear(enum wb_terrain t)
{
    return t == WB_CLEAR || t == WB_HILL || t == WB_FORD;
}

/* B2. "Units may only count their rank bonus in close combat if both they
 * and their opponent are in clear, open terrain, and neither is behind an
 * obstacle. For the purposes of this rule, hills and fords count as clear
 * terrain".
 * B7. "units that adopt a formation that has more ranks than files is
 * treated as a march column. As march columns don't get a rank bonus"
 * (game option deep_is_column).
 * B3. "Formed units do not lose their rank bonus if a unit of five or more
 * models that is in skirmish formation charges them. This applies to
 * cavalry in skirmish formation, but not to chariots."
 * B8. "Note that a reformed unit still loses its rank bonus for the
 * duration of the combat if an enemy unit of five or more models charged
 * it." (only a charge that would cancel it: B3 first, B20)
 *   1) terrain of both  2) march column  3) a flank or rear charge by five
 *   or more models: skirmishers other than chariots keep it, else lost,
 *   reformed or not. */
struct wb_verdict wb_rank_bonus(const struct wb_unit *u, const struct wb_options *o)
{
    const struct wb_charge *c = &u->facts.charge;
    if (!clear(u->facts.terrain) || !clear(u->facts.enemy_terrain))     /* 1) */
        return verdict(false, WB_R_RANK_TERRAIN);
    if (o->deep_is_column && u->ranks > u->files)                        /* 2) */
        return verdict(false, WB_R_RANK_MARCH_COLUMN);
    if (c->charged && !c->to_front && c->models >= 5) {                  /* 3) */
        if (c->skirmish && c->kind != WB_CHARIOT)
            return verdict(true, WB_R_RANK_SKIRMISH_CHARGE);
        return verdict(false, (u->status & WB_ST_REFORMED) ? WB_R_RANK_REFORMED_CHARGED
                                                            : WB_R_RANK_CHARGED);
    }
    return verdict(true, WB_R_RANK_KEPT);
}

/* B5. "Troops that are in skirmish formation can be used to screen
 * friendly units that are within 2" of the skirmishers. ... counts as being
 * in soft cover if it is shot at by a unit that draws a line of sight
 * through the skirmish screen."
 *   1) the screen is in skirmish formation  2) the screened unit has a
 *   model within 2"  3) the line of sight passes through the screen. */
struct wb_verdict wb_screen_cover(const struct wb_unit *screen, const struct wb_unit *screened,
                                  bool los_through_screen)
{
    if (!screen->skirmish)                              /* 1) */
        return verdict(false, WB_R_SCREEN_NOT_SKIRMISH);
    if (!screened->facts.near_screen)                   /* 2) */
        return verdict(false, WB_R_SCREEN_TOO_FAR);
    if (!los_through_screen)                            /* 3) */
        return verdict(false, WB_R_SCREEN_NO_LOS);
    return verdict(true, WB_R_SCREEN_COVER);
}

/* B5. "If a unit being screened declares a charge, then the skirmish
 * screen may flee out of the way. The screening unit makes its move in the
 * Declare Charges segment ... They are therefore allowed to attempt to
 * rally in the ensuing Rally Fleeing Troops segment"
 *   1) a screen  2) screening that unit  3) which declares a charge. */
struct wb_verdict wb_screen_flee(const struct wb_unit *screen, const struct wb_unit *screened,
                                 bool screened_declares_charge)
{
    if (!screen->skirmish)                              /* 1) */
        return verdict(false, WB_R_SCREEN_NOT_SKIRMISH);
    if (!screened->facts.near_screen)                   /* 2) */
        return verdict(false, WB_R_SCREEN_TOO_FAR);
    if (!screened_declares_charge)                      /* 3) */
        return verdict(false, WB_R_SCREEN_NO_CHARGE);
    return verdict(true, WB_R_SCREEN_FLEE);
}

/* B8. "A unit that is fighting to the flank or rear may reform at the end
 * of the combat phase, as long as it does not break, and is not engaged on
 * another facing."
 *   1) end of the combat phase  2) fighting to flank or rear  3) did not
 *   break  4) not engaged on another facing. */
struct wb_verdict wb_reform(const struct wb_unit *u, bool end_of_combat_phase, bool broke)
{
    if (!end_of_combat_phase)                           /* 1) */
        return verdict(false, WB_R_REFORM_NOT_END);
    if (!u->facts.fighting_flank_rear)                  /* 2) */
        return verdict(false, WB_R_REFORM_NOT_FLANK);
    if (broke)                                          /* 3) */
        return verdict(false, WB_R_REFORM_BROKEN);
    if (u->facts.engaged_other_facing)                  /* 4) */
        return verdict(false, WB_R_REFORM_OTHER_FACING);
    return verdict(true, WB_R_REFORM);
}

/* B15. "Models with more than one wound, chariots or elephants and their
 * crew, and characters riding horses or other mounts all count as a single
 * model for this purpose. Models that are fleeing are counted as being
 * 'alive' until they have left the table." */
int wb_army_start_count(const struct wb_army *a)
{
    int n = 0;
    for (int i = 0; i < a->count; i++)
        n += a->units[i].models;
    return n;
}

int wb_unit_alive(const struct wb_unit *u)
{
    if (u->status & WB_ST_OFF_TABLE)
        return 0;
    int w = u->wounds > 0 ? u->wounds : 1;
    int left = u->models * w - u->wounds_lost;
    if (left <= 0)
        return 0;
    return (left + w - 1) / w;          /* a wounded model is still one model */
}

int wb_army_alive(const struct wb_army *a)
{
    int n = 0;
    for (int i = 0; i < a->count; i++)
        n += wb_unit_alive(&a->units[i]);
    return n;
}

/* B10. "Units are confident if any of the following circumstances apply:
 * a) They are at full strength and no unit in the army has been broken in
 * close combat other than skirmishers. OR b) They have secure flanks and
 * rear support ... OR c) The army general is with the unit. OR d) They won
 * a round of combat this player turn. IMPORTANT: Units in skirmish
 * formation can never be confident."
 *   0) skirmish formation: never  a) b) c) d) as quoted; the reason is the
 *   first clause that applies, clauses holds them all. */
struct wb_verdict wb_confident(const struct wb_army *a, const struct wb_unit *u)
{
    if (u->skirmish)                                                    /* 0) */
        return verdict(false, WB_R_SKIRMISH_NEVER_CONFIDENT);
    unsigned c = 0;
    if (u->wounds_lost == 0 && !(u->status & WB_ST_OFF_TABLE) && !a->formed_unit_broken)
        c |= WB_CONF_A;                                                 /* a) */
    if (u->facts.secure_flanks && u->facts.rear_support)
        c |= WB_CONF_B;                                                 /* b) */
    if (u->general)
        c |= WB_CONF_C;                                                 /* c) */
    if (u->facts.won_round)
        c |= WB_CONF_D;                                                 /* d) */
    static const enum wb_reason first[4] = { WB_R_CONFIDENT_A, WB_R_CONFIDENT_B,
                                             WB_R_CONFIDENT_C, WB_R_CONFIDENT_D };
    struct wb_verdict v = verdict(false, WB_R_NOT_CONFIDENT);
    for (int i = 0; i < 4; i++)
        if (c & (1u << i)) {
            v = verdict(true, first[i]);
            break;
        }
    v.clauses = c;
    return v;
}

/* The elephant effects table (B12, B13): [familiarity][upgraded], for foot
 * units (infantry and all but cavalry) and cavalry. */
struct el_row {
    bool foot_edgy, cav_edgy;
    bool cav_hold, cav_any, cav_fear;
    bool foot_fall_back, cav_fall_back;
};

static const struct el_row el_table[4][2] = {
    /* Never met 'em: "units are edgy if within 12" ... Units may not fall
     * back in good order when fighting against elephants." Beaten one:
     * "cavalry suffer fear of elephants. They may still not charge them, but
     * if charged may choose to 'hold'". */
    [WB_NEVER_MET] = {
        { true, true, false, false, false, false, false },
        { true, true, true, false, true, false, false },
    },
    /* Previously fought: "Cavalry may choose to hold when charged by
     * elephants. ... Units are edgy within 12" of elephants and may not fall
     * back in good order". Survived a round: "cavalry fear elephants and
     * infantry units may fall back in good order". */
    [WB_PREVIOUSLY_FOUGHT] = {
        { true, true, true, false, false, false, false },
        { true, true, true, false, true, true, false },
    },
    /* Know: "Cavalry may choose to hold against elephant charges, and
     * infantry units may fall back in good order. Units are edgy within 12"
     * of elephants." Survived a round: "infantry are no longer edgy". */
    [WB_KNOW] = {
        { true, true, true, false, false, true, false },
        { false, true, true, false, false, true, false },
    },
    /* Expert: "Cavalry may choose any charge reaction against enemy
     * elephants and infantry are NOT edgy (cavalry are edgy within 12")." */
    [WB_EXPERT] = {
        { false, true, true, true, false, true, false },
        { false, true, true, true, false, true, false },
    },
};

/* B12, B13. "Expert units are also immune to these effects when caused by
 * friendly elephants." Elephants themselves are not made edgy by
 * elephants (B12 reading). Cavalry's charges and reactions against
 * elephants beyond the table are the base rules'. */
struct wb_elephant_effects wb_elephant_effects(enum wb_familiarity f, bool upgraded,
                                               enum wb_kind k, bool only_friendly)
{
    const struct el_row *r = &el_table[f][upgraded ? 1 : 0];
    bool cav = k == WB_CAVALRY;
    struct wb_elephant_effects e = {
        .edgy_near = cav ? r->cav_edgy : r->foot_edgy,
        .cavalry_hold = r->cav_hold,
        .cavalry_any_reaction = r->cav_any,
        .cavalry_fear = r->cav_fear,
        .may_fall_back = cav ? r->cav_fall_back : r->foot_fall_back,
    };
    if (k == WB_ELEPHANT || (f == WB_EXPERT && only_friendly))
        e.edgy_near = false;
    return e;
}

/* B13. "As soon as a unit in the army has beaten an elephant in combat"
 * (never met) / "has survived a round of combat with an elephant (i.e. is
 * still unbroken at the end)" (previously fought, know). Beating an
 * elephant is also surviving the round (B13 reading). Experts have no
 * upgrade. */
struct wb_verdict wb_elephant_event(struct wb_army *a, bool beat)
{
    bool up;
    switch (a->familiarity) {
    case WB_NEVER_MET: up = beat; break;
    case WB_PREVIOUSLY_FOUGHT:
    case WB_KNOW: up = true; break;
    default: up = false; break;
    }
    if (!up || a->elephant_upgraded)
        return verdict(false, WB_R_ELEPHANT_NO_UPGRADE);
    a->elephant_upgraded = true;
    return verdict(true, WB_R_ELEPHANT_UPGRADE);
}

/* B11. "a) The unit has suffered 50% or more casualties. OR b) The unit is
 * more than 12" from any other friendly units (friendly units that are
 * fleeing don't count!). OR c) The army general has been killed (this
 * doesn't apply until the turn after he has been killed). OR d) There is an
 * enemy unit (other than skirmishers) in a position from which it could
 * declare a flank or rear charge on the unit. OR e) The army has lost 50%
 * or more of its starting number of models" (B17: e) counted as the break
 * point counts, B15), and B12's "units are edgy if within 12"". */
struct wb_verdict wb_edgy(const struct wb_army *a, const struct wb_unit *u, int turn)
{
    unsigned c = 0;
    if (2 * (u->models - wb_unit_alive(u)) >= u->models && u->models > 0)
        c |= WB_EDGY_A;                                                 /* a) */
    if (u->facts.isolated)
        c |= WB_EDGY_B;                                                 /* b) */
    if (a->general_killed_turn > 0 && turn > a->general_killed_turn)
        c |= WB_EDGY_C;                                                 /* c) */
    if (u->facts.flank_threat && !u->facts.flank_threat_skirmish)
        c |= WB_EDGY_D;                                                 /* d) */
    if (a->start_models > 0 && 2 * wb_army_alive(a) <= a->start_models)
        c |= WB_EDGY_E;                                                 /* e) */
    if (u->facts.near_elephant
        && wb_elephant_effects(a->familiarity, a->elephant_upgraded, u->kind,
                               !u->facts.near_enemy_elephant).edgy_near)
        c |= WB_EDGY_EL;
    static const enum wb_reason first[6] = { WB_R_EDGY_A, WB_R_EDGY_B, WB_R_EDGY_C,
                                             WB_R_EDGY_D, WB_R_EDGY_E, WB_R_EDGY_ELEPHANT };
    struct wb_verdict v = verdict(false, WB_R_NOT_EDGY);
    for (int i = 0; i < 6; i++)
        if (c & (1u << i)) {
            v = verdict(true, first[i]);
            break;
        }
    v.clauses = c;
    return v;
}

/* B9, B10, B18. "A confident unit will fall back in good order as described in
 * AoA if it fails a panic test." B12: "Units may not fall back in good
 * order when fighting against elephants" (per familiarity).
 *   1) passed: nothing  2) not confident: flees  3) fighting elephants and
 *   the army may not fall back against them: flees  4) falls back. */
struct wb_verdict wb_panic_result(const struct wb_army *a, const struct wb_unit *u,
                                  bool failed)
{
    if (!failed)                                                        /* 1) */
        return verdict(false, WB_R_PANIC_PASSED);
    if (!wb_confident(a, u).yes)                                        /* 2) */
        return verdict(false, WB_R_FLEES);
    if (u->facts.fighting_elephants
        && !wb_elephant_effects(a->familiarity, a->elephant_upgraded, u->kind, false)
                .may_fall_back)                                         /* 3) */
        return verdict(false, WB_R_FALL_BACK_ELEPHANTS);
    return verdict(true, WB_R_FALL_BACK);                               /* 4) */
}

/* B9. "The fall back move is made in the same way as when a unit flees,
 * with the following exceptions: 1. ... don't cause friends within 12" to
 * take a Panic test. 2. ... rally automatically at the end of the move and
 * may immediately reform. 3. ... may be pursued, but if caught they're not
 * wiped out, instead the pursuing units count as having charged in the
 * next combat phase. 4. ... are not allowed to declare a charge in their
 * next turn." Fleeing's row holds only what the four differences name. */
static const struct wb_retreat retreats[2] = {
    /* flees */        { true, false, false, true, false, true },
    /* falls back */   { false, true, true, false, true, false },
};

const struct wb_retreat *wb_retreat_rules(bool fall_back)
{
    return &retreats[fall_back ? 1 : 0];
}

/* B9, difference 4. "Units that fell back in good order are not allowed to
 * declare a charge in their next turn." */
struct wb_verdict wb_may_declare_charge(const struct wb_unit *u)
{
    if (u->status & WB_ST_FELL_BACK)
        return verdict(false, WB_R_FELL_BACK_NO_CHARGE);
    return verdict(true, WB_R_MAY_CHARGE);
}

/* B6. "I'd recommend players allow models to fight diagonally" (game
 * option diagonal, on by default). */
struct wb_verdict wb_diagonal(const struct wb_options *o)
{
    return o->diagonal ? verdict(true, WB_R_DIAGONAL) : verdict(false, WB_R_NO_DIAGONAL);
}

/* B14. "An army is broken when it has a quarter or less of its starting
 * number of models left alive at the end of any player's turn." */
struct wb_verdict wb_army_broken(const struct wb_army *a, bool end_of_player_turn)
{
    if (!end_of_player_turn)
        return verdict(false, WB_R_NOT_END_OF_TURN);
    if (4 * wb_army_alive(a) <= a->start_models)
        return verdict(true, WB_R_ARMY_BROKEN);
    return verdict(false, WB_R_ARMY_STANDS);
}

/* B16. "An edgy unit takes all Ld tests on 3D6 instead of 2D6." The
 * target is the base rules' (given by the player).
 *   1) two dice, three when edgy  2) faces 1-6  3) total <= target. */
struct wb_verdict wb_ld_test(const int *faces, int n, bool edgy, int target)
{
    if (n != (edgy ? 3 : 2))                                            /* 1) */
        return verdict(false, WB_R_LD_DICE_COUNT);
    int sum = 0;
    for (int i = 0; i < n; i++) {
        if (faces[i] < 1 || faces[i] > 6)                               /* 2) */
            return verdict(false, WB_R_LD_BAD_FACE);
        sum += faces[i];
    }
    return sum <= target ? verdict(true, WB_R_LD_PASSED)                /* 3) */
                         : verdict(false, WB_R_LD_FAILED);
}
