/*
 * battle_rules.h - the battle referee's rules core: the tabletop rules of
 * the campaign and battle rulebook from "Counter charge" to the end
 * (docs/rules-notes.md, "Battle referee", readings B1-B20), applied to the
 * facts the players state.
 *
 * The base Warhammer Ancient Battles rules are not here: what they decide
 * (a unit's models and wounds, a test's target number, who won a round of
 * combat, whether a unit broke) is an input. Positions on a tabletop are
 * not computable, so distances and facings are facts the players state
 * (struct wb_facts). Every check returns a verdict with a reason from the
 * table below; its comment quotes the sentence of the seed it implements.
 *
 * Pure C11: no I/O, no globals, no allocation. Every struct is a value of
 * fixed size owned by the caller; no function keeps a pointer it is given
 * past its return.
 */
#ifndef WB_BATTLE_RULES_H
#define WB_BATTLE_RULES_H

#include <stdbool.h>

#include "reason.h"

#define WB_NAME_MAX 32          /* a unit's name, with its NUL */
#define WB_UNITS_MAX 32         /* units in one army */
#define WB_DICE_MAX 3           /* dice of one Ld test (3D6 when edgy) */

/* X(id, wire code, sentence): why the referee allows, refuses or decides. */
#define WB_REASON_MAP(X) \
    X(COUNTER_CHARGE, "counter_charge", \
      "the cavalry may counter charge: it counts as charging for its weapons, not for who strikes first") \
    X(CC_NOT_CAVALRY, "cc_not_cavalry", "only cavalry units may counter charge") \
    X(CC_NOT_FRONT, "cc_not_front", "only a unit charged to its front may counter charge") \
    X(CC_VS_INFANTRY, "cc_vs_infantry", "cavalry may not counter charge infantry") \
    X(CC_NOT_VS_CAVALRY, "cc_not_vs_cavalry", "only a charge by enemy cavalry may be counter charged") \
    X(CC_TOO_SLOW, "cc_too_slow", "cavalry with a move of less than 6\" may not counter charge") \
    X(RANK_KEPT, "rank_kept", "the unit keeps its rank bonus") \
    X(RANK_TERRAIN, "rank_terrain", \
      "rank bonus needs both sides in clear, open terrain and neither behind an obstacle") \
    X(RANK_MARCH_COLUMN, "rank_march_column", \
      "more ranks than files: a march column, which gets no rank bonus (game option)") \
    X(RANK_SKIRMISH_CHARGE, "rank_skirmish_charge", \
      "a charge by skirmishers (not chariots) does not cancel the rank bonus") \
    X(RANK_CHARGED, "rank_charged", "charged to flank or rear by five or more models: rank bonus lost") \
    X(RANK_REFORMED_CHARGED, "rank_reformed_charged", \
      "a reformed unit still loses its rank bonus if five or more models charged it") \
    X(SCREEN_COVER, "screen_cover", "screened by skirmishers: soft cover against this shot") \
    X(SCREEN_NOT_SKIRMISH, "screen_not_skirmish", "only a unit in skirmish formation screens") \
    X(SCREEN_TOO_FAR, "screen_too_far", "a screened unit needs a model within 2\" of the screen") \
    X(SCREEN_NO_LOS, "screen_no_los", "the line of sight does not pass through the screen") \
    X(SCREEN_FLEE, "screen_flee", \
      "the screen may flee in the Declare Charges segment and rally in Rally Fleeing Troops") \
    X(SCREEN_NO_CHARGE, "screen_no_charge", "the screen flees only when a unit it screens declares a charge") \
    X(REFORM, "reform", "the unit may reform to face the unit engaging it, centres in contact") \
    X(REFORM_NOT_FLANK, "reform_not_flank", "only a unit fighting to the flank or rear reforms") \
    X(REFORM_BROKEN, "reform_broken", "a unit that breaks may not reform") \
    X(REFORM_OTHER_FACING, "reform_other_facing", "a unit engaged on another facing may not reform") \
    X(REFORM_NOT_END, "reform_not_end", "reforming takes place at the end of the combat phase") \
    X(CONFIDENT_A, "confident_a", "confident: full strength and no unit but skirmishers broken in combat") \
    X(CONFIDENT_B, "confident_b", "confident: secure flanks and rear support") \
    X(CONFIDENT_C, "confident_c", "confident: the army general is with the unit") \
    X(CONFIDENT_D, "confident_d", "confident: won a round of combat this player turn") \
    X(NOT_CONFIDENT, "not_confident", "none of the circumstances of a confident unit applies") \
    X(SKIRMISH_NEVER_CONFIDENT, "skirmish_never_confident", "units in skirmish formation can never be confident") \
    X(EDGY_A, "edgy_a", "edgy: the unit has suffered 50% or more casualties") \
    X(EDGY_B, "edgy_b", "edgy: more than 12\" from any other friendly unit not fleeing") \
    X(EDGY_C, "edgy_c", "edgy: the army general was killed before this turn") \
    X(EDGY_D, "edgy_d", "edgy: an enemy unit other than skirmishers could charge its flank or rear") \
    X(EDGY_E, "edgy_e", "edgy: the army has lost 50% or more of its starting models") \
    X(EDGY_ELEPHANT, "edgy_elephant", "edgy: within 12\" of an elephant the army is not used to") \
    X(NOT_EDGY, "not_edgy", "none of the circumstances of an edgy unit applies") \
    X(FALL_BACK, "fall_back", "a confident unit that fails a panic test falls back in good order") \
    X(FLEES, "flees", "a unit that is not confident flees when it fails a panic test") \
    X(PANIC_PASSED, "panic_passed", "the panic test was passed: nothing happens") \
    X(FALL_BACK_ELEPHANTS, "fall_back_elephants", \
      "units of this army may not fall back in good order when fighting against elephants") \
    X(MAY_CHARGE, "may_charge", "the unit may declare a charge") \
    X(FELL_BACK_NO_CHARGE, "fell_back_no_charge", \
      "a unit that fell back in good order may not declare a charge in its next turn") \
    X(ELEPHANT_UPGRADE, "elephant_upgrade", "the army's familiarity with elephants improves") \
    X(ELEPHANT_NO_UPGRADE, "elephant_no_upgrade", "this does not change the army's familiarity with elephants") \
    X(DIAGONAL, "diagonal", "models whose corners touch diagonally fight (game option)") \
    X(NO_DIAGONAL, "no_diagonal", "models fight only edge to edge (the diagonal option is off)") \
    X(ARMY_BROKEN, "army_broken", "the army has a quarter or less of its starting models left alive") \
    X(ARMY_STANDS, "army_stands", "the army has more than a quarter of its starting models alive") \
    X(NOT_END_OF_TURN, "not_end_of_turn", "the break point is checked at the end of a player's turn") \
    X(LD_PASSED, "ld_passed", "the Ld test is passed") \
    X(LD_FAILED, "ld_failed", "the Ld test is failed") \
    X(LD_DICE_COUNT, "ld_dice_count", "an Ld test is 2D6, or 3D6 for an edgy unit") \
    X(LD_BAD_FACE, "ld_bad_face", "a die shows 1 to 6")

enum wb_reason {
#define WB_REASON_CORE(id, code, text) WB_R_##id = WR_R_##id,
    WR_CORE_REASONS(WB_REASON_CORE)
#undef WB_REASON_CORE
#define WB_REASON_OWN(id, code, text) WB_R_##id,
    WB_REASON_MAP(WB_REASON_OWN)
#undef WB_REASON_OWN
    WB_R_COUNT
};

extern const struct wr_reason_table wb_reasons;
const char *wb_reason_code(enum wb_reason r);
const char *wb_reason_text(enum wb_reason r);

/* A verdict: yes or no, why, and (confident/edgy) the clauses that apply. */
struct wb_verdict {
    bool yes;
    enum wb_reason why;
    unsigned clauses;           /* WB_CONF_* or WB_EDGY_* bits */
};

enum wb_kind { WB_INFANTRY, WB_CAVALRY, WB_CHARIOT, WB_ELEPHANT, WB_CHARACTER, WB_SKIRMISHERS };

/* Where a unit stands for the rank bonus; hills and fords count as clear. */
enum wb_terrain { WB_CLEAR, WB_HILL, WB_FORD, WB_DIFFICULT, WB_OBSTACLE };

/* Elephant familiarity, the ladder of the seed, an input per army (B12). */
enum wb_familiarity { WB_NEVER_MET, WB_PREVIOUSLY_FOUGHT, WB_KNOW, WB_EXPERT };

/* Statuses (struct wb_unit.status). */
enum {
    WB_ST_CONFIDENT = 1u << 0,
    WB_ST_EDGY = 1u << 1,
    WB_ST_FLEEING = 1u << 2,
    WB_ST_FALLING_BACK = 1u << 3,   /* falling back in good order */
    WB_ST_FELL_BACK = 1u << 4,      /* fell back last turn: no charge this turn */
    WB_ST_REFORMED = 1u << 5,
    WB_ST_RANK_LOST = 1u << 6,      /* rank bonus lost for this combat */
    WB_ST_OFF_TABLE = 1u << 7,      /* fled off the table: no longer alive */
};

/* Confident clauses a-d and edgy clauses a-e (+ elephants), as bits. */
enum { WB_CONF_A = 1u, WB_CONF_B = 2u, WB_CONF_C = 4u, WB_CONF_D = 8u };
enum {
    WB_EDGY_A = 1u, WB_EDGY_B = 2u, WB_EDGY_C = 4u, WB_EDGY_D = 8u, WB_EDGY_E = 16u,
    WB_EDGY_EL = 32u
};

/* A charge as the charged unit's players state it. */
struct wb_charge {
    bool charged;               /* this combat the unit was charged */
    bool to_front;              /* to its front (else flank or rear) */
    enum wb_kind kind;          /* the charger's kind */
    int models;                 /* the charger's models */
    bool skirmish;              /* the charger is in skirmish formation */
};

/* The facts the players state about a unit; the other side may dispute
 * them (a later part settles disputes). */
struct wb_facts {
    struct wb_charge charge;        /* charged, by whom */
    enum wb_terrain terrain;        /* where the unit stands */
    enum wb_terrain enemy_terrain;  /* where the enemy it fights stands */
    bool secure_flanks;
    bool rear_support;
    bool near_screen;               /* a model within 2" of a friendly skirmish screen */
    bool isolated;                  /* more than 12" from any friendly unit not fleeing */
    bool flank_threat;              /* an enemy could declare a flank or rear charge on it */
    bool flank_threat_skirmish;     /* ... and every such enemy is skirmishers */
    bool near_elephant;             /* within 12" (or charge range) of an elephant */
    bool near_enemy_elephant;       /* ... at least one of which is the enemy's */
    bool won_round;                 /* won a round of combat this player turn */
    bool fighting_elephants;        /* is fighting against elephants */
    bool fighting_flank_rear;       /* is fighting to its flank or rear */
    bool engaged_other_facing;      /* is engaged on another facing too */
};

/* A unit. models counts what the break point counts (B15): a chariot or an
 * elephant with its crew is one model, a mounted character is one model;
 * crew and mounted are kept for the roster only. */
struct wb_unit {
    char name[WB_NAME_MAX];
    enum wb_kind kind;
    int models;                 /* models at the start */
    int wounds;                 /* wounds per model, >= 1 */
    int wounds_lost;            /* wounds lost so far (base rules decide) */
    int crew;                   /* crew per chariot or elephant */
    int move;                   /* inches */
    int files, ranks;           /* formation */
    bool skirmish;              /* skirmish formation (else formed) */
    bool general;               /* the army general is with the unit */
    bool mounted;               /* a character riding a horse or other mount */
    bool thrusting_spears;
    unsigned status;            /* WB_ST_* */
    struct wb_facts facts;
};

/* An army: its units, its familiarity with elephants, and what the
 * break point and clauses confident a) and edgy c)/e) need. */
struct wb_army {
    struct wb_unit units[WB_UNITS_MAX];
    int count;                          /* units in use */
    enum wb_familiarity familiarity;    /* the input of B12 */
    bool elephant_upgraded;             /* the in-battle upgrade of its level happened */
    int start_models;                   /* wb_army_models() at deployment */
    bool formed_unit_broken;            /* a unit other than skirmishers broke in close combat */
    int general_killed_turn;            /* player turn the general died, 0: alive */
};

/* The game options the seed leaves to the players (B6, B7). */
struct wb_options {
    bool diagonal;              /* models fight if diagonal corners touch (recommended) */
    bool deep_is_column;        /* more ranks than files is a march column */
};

/* The defaults: both options on, as the seed recommends and suggests. */
struct wb_options wb_options_default(void);

/* What a unit that flees or falls back in good order does (B9). */
struct wb_retreat {
    bool panics_friends;        /* friends within 12" take a Panic test */
    bool rallies_at_end;        /* rallies automatically at the end of the move */
    bool may_reform;            /* may reform at once */
    bool wiped_if_caught;       /* wiped out if caught by pursuers */
    bool pursuer_charged;       /* pursuers that catch it count as charging next combat */
    bool may_charge_next_turn;  /* may declare a charge in its next turn */
};

/* What elephants mean for a unit of an army (B12, B13). */
struct wb_elephant_effects {
    bool edgy_near;             /* edgy within 12" of an elephant */
    bool cavalry_hold;          /* cavalry may hold when charged by elephants */
    bool cavalry_any_reaction;  /* cavalry may choose any charge reaction */
    bool cavalry_fear;          /* cavalry fear (rather than terror of) elephants */
    bool may_fall_back;         /* may fall back in good order against elephants */
};

/* --- the rules ------------------------------------------------------------ */

/* Counter charge (B1). weapons_charging and strikes_first_as_charger are
 * set on a yes: the unit counts as charging for its weapons only. */
struct wb_verdict wb_counter_charge(const struct wb_unit *u, bool *weapons_charging,
                                    bool *strikes_first_as_charger);

/* Rank bonus kept or lost (B2-B4, B7, B8). */
struct wb_verdict wb_rank_bonus(const struct wb_unit *u, const struct wb_options *o);

/* Skirmish screen: soft cover for a shot at screened whose line of sight
 * passes through screen (B5). */
struct wb_verdict wb_screen_cover(const struct wb_unit *screen, const struct wb_unit *screened,
                                  bool los_through_screen);

/* Skirmish screen: may it flee out of the way when screened declares a
 * charge (B5)? On a yes it flees in Declare Charges and may rally. */
struct wb_verdict wb_screen_flee(const struct wb_unit *screen, const struct wb_unit *screened,
                                 bool screened_declares_charge);

/* Reforming in combat at the end of the combat phase (B8). */
struct wb_verdict wb_reform(const struct wb_unit *u, bool end_of_combat_phase, bool broke);

/* The number of starting models for the break point (B15): the models of
 * every unit, each counted once whatever its wounds, crew or mount. */
int wb_army_start_count(const struct wb_army *a);

/* The models alive now by the same count (B15): a model with wounds left
 * is alive; a fleeing unit is alive until it leaves the table. */
int wb_unit_alive(const struct wb_unit *u);
int wb_army_alive(const struct wb_army *a);

/* Confident (B10) and edgy (B11) for unit u of army a at player turn
 * `turn` (turns count from 1). */
struct wb_verdict wb_confident(const struct wb_army *a, const struct wb_unit *u);
struct wb_verdict wb_edgy(const struct wb_army *a, const struct wb_unit *u, int turn);

/* The result of a panic test for u (B9, B10, B12): panic passed, falls
 * back in good order, or flees. */
struct wb_verdict wb_panic_result(const struct wb_army *a, const struct wb_unit *u,
                                  bool failed);

/* What fleeing (fall_back false) or falling back in good order entails
 * (B9); static storage. */
const struct wb_retreat *wb_retreat_rules(bool fall_back);

/* May u declare a charge this turn (B9, difference 4)? */
struct wb_verdict wb_may_declare_charge(const struct wb_unit *u);

/* What elephants mean for a unit of kind k in an army of familiarity f,
 * upgraded or not, near friendly elephants only or not (B12, B13). */
struct wb_elephant_effects wb_elephant_effects(enum wb_familiarity f, bool upgraded,
                                               enum wb_kind k, bool only_friendly);

/* An army's unit beat an elephant in combat (beat) or survived a round of
 * combat with one unbroken (beat false): does the army's level upgrade
 * (B13)? Sets a->elephant_upgraded on a yes. */
struct wb_verdict wb_elephant_event(struct wb_army *a, bool beat);

/* May models fight diagonally (B6)? */
struct wb_verdict wb_diagonal(const struct wb_options *o);

/* Is army a broken (B14)? Checked only at the end of a player's turn. */
struct wb_verdict wb_army_broken(const struct wb_army *a, bool end_of_player_turn);

/* An Ld test (B16) from the faces the caller rolled: n must be 3 for an
 * edgy unit and 2 otherwise; passed when the total is at most target. */
struct wb_verdict wb_ld_test(const int *faces, int n, bool edgy, int target);

#endif
