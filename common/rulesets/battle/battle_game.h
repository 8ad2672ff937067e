/*
 * battle_game.h - the battle referee as a game (the ruleset `battle`,
 * docs/rulesets/battle.md): two sides, "p1" and "p2", enter their rosters
 * sealed, then state facts about their units, dispute each other's facts,
 * report casualties and ask for Ld tests the server rolls, turn by turn,
 * until an army reaches its break point (B14) or the sides agree to end;
 * then both report the victory points (B40-B42).
 * The rules themselves are battle_rules.h; this file holds the state and
 * the commands around them. The combat commands (charge, counter_charge,
 * screen_flees, cover, broke, reform, general_killed, elephant,
 * left_table; readings B26-B39) are statements the other side may dispute
 * like facts.
 *
 * A struct bg_game is a value of fixed size (no pointers but the host's,
 * borrowed; see ruleset.h): apply() works on a copy and keeps it only when
 * the command is accepted, so a refusal leaves the game unchanged.
 */
#ifndef BG_BATTLE_GAME_H
#define BG_BATTLE_GAME_H

#include <stdbool.h>
#include <stdint.h>

#include "battle_rules.h"
#include "ruleset.h"

struct json_t;

#define BG_POINTS_DEFAULT 1000
#define BG_POINTS_MAX 100000
#define BG_MODELS_MAX 1000          /* models of one unit */
#define BG_WOUNDS_MAX 10            /* wounds per model */
#define BG_CREW_MAX 20              /* crew per chariot or elephant */
#define BG_TARGET_MAX 18            /* an Ld target number: 3D6 at most */
#define BG_VP_MAX 1000000           /* victory points of one side (B40) */
#define BG_CAMPAIGN_MAX 4096        /* the option campaign, as compact JSON (B43) */

/* The game's own reasons, after those of the rules core (battle_rules.h):
 * X(id, wire code, sentence). */
#define BG_REASON_MAP(X) \
    X(ROSTER_IN, "roster_in", "your roster is already in") \
    X(BAD_ROSTER, "bad_roster", "a roster is 1 to 32 units, each with a name, a kind and its models") \
    X(DUPLICATE_UNIT, "duplicate_unit", "two units of a roster have the same name") \
    X(OVER_POINTS, "over_points", "the roster costs more points than the battle allows") \
    X(UNKNOWN_UNIT, "unknown_unit", "no unit of that name is on the table") \
    X(NOT_YOUR_UNIT, "not_your_unit", "a side states facts and asks for tests about its own units only") \
    X(UNKNOWN_FACT, "unknown_fact", "that is not a fact the referee knows") \
    X(BAD_VALUE, "bad_value", "that value does not fit the fact") \
    X(NOT_STATED, "not_stated", "that fact was never stated, or was already disputed") \
    X(OWN_FACT, "own_fact", "a side may not dispute its own facts") \
    X(DISPUTE_PENDING, "dispute_pending", "a disputed fact awaits the referee's settlement") \
    X(NO_DISPUTE, "no_dispute", "there is no dispute to settle") \
    X(TOO_MANY_CASUALTIES, "too_many_casualties", "the unit does not have that many wounds left") \
    X(UNIT_GONE, "unit_gone", "the unit has no models left on the table") \
    X(BAD_TARGET, "bad_target", "a target number is 1 to 18") \
    X(NOT_FLEEING, "not_fleeing", "only a fleeing unit tests to rally") \
    X(FLEEING, "fleeing", "a fleeing unit may only test to rally") \
    X(NOT_ACTIVE, "not_active", "only the side whose player turn it is ends a phase or the turn") \
    X(NO_OFFER, "no_offer", "the other side has not offered to end the battle") \
    X(OWN_OFFER, "own_offer", "a side may not accept its own offer") \
    X(BAD_VP, "bad_vp", "victory points are whole numbers 0 to 1,000,000 for p1 and p2") \
    X(NOT_DISPUTED, "not_disputed", "the victory point reports are not both in and different") \
    X(WRONG_SEGMENT, "wrong_segment", "that is not done in this segment of the player turn") \
    X(NOT_CHARGING_SIDE, "not_charging_side", "only the side whose player turn it is declares charges") \
    X(OWN_TARGET, "own_target", "a unit charges a unit of the enemy army") \
    X(BAD_FACING, "bad_facing", "a charge is to the front, the flank or the rear") \
    X(NOT_FRIENDS, "not_friends", "a skirmish screen screens units of its own army") \
    X(ALREADY_STATED, "already_stated", "that was already stated for this unit") \
    X(GENERAL_DEAD, "general_dead", "that army's general is already dead") \
    X(NOT_FLED, "not_fled", "only a fleeing unit leaves the table")

enum bg_reason {
    BG_R_FIRST_ = WB_R_COUNT - 1,
#define BG_REASON_OWN(id, code, text) BG_R_##id,
    BG_REASON_MAP(BG_REASON_OWN)
#undef BG_REASON_OWN
    BG_R_COUNT
};

/* The whole table: core, rules core, game. */
extern const struct wr_reason_table bg_reasons;

/* The battle's words on the wire, NULL-terminated, static storage, shared
 * by the game and its presentation: unit kinds, terrains (the values of
 * the first BG_TERRAIN_FACTS facts), the facts a side states (the others
 * true or false), the statements a dispute may also name (B35), tests,
 * charge facings. */
#define BG_TERRAIN_FACTS 2
extern const char *const bg_kind_names[];
extern const char *const bg_terrain_names[];
extern const char *const bg_fact_names[];
extern const char *const bg_statement_names[];
extern const char *const bg_test_names[];
extern const char *const bg_facing_names[];

/* Where a game is. */
enum bg_phase { BG_ROSTER, BG_START, BG_PLAY, BG_VICTORY, BG_OVER };

/* The segments of a player turn, as far as the seed names them (B21). */
enum bg_segment { BG_SEG_CHARGES, BG_SEG_RALLY, BG_SEG_COMPULSORY, BG_SEG_SHOOTING,
                  BG_SEG_COMBAT, BG_SEG_COUNT };

/* The facts a side may state (struct wb_facts), by index: the bool facts
 * and the two terrains. */
#define BG_FACTS_MAX 16

/* A combat statement (charge, broke, ...: battle_game.c's statement table)
 * open to the other side's dispute until the end of the player turn (B35):
 * what it changed, so that a settlement saying it does not stand undoes it. */
struct bg_stmt {
    bool open;                      /* may still be disputed */
    int kind;                       /* its row in battle_game.c's statement table */
    int by;                         /* the side that stated it */
    unsigned status;                /* the unit's statuses before */
    enum wb_reason why_retreat;     /* its retreat reason before */
    int broke_turn;                 /* its broke_turn before */
    int target;                     /* charge: the target's index in the other army */
    unsigned generals;              /* general_killed: the units he was with, as bits */
    struct wb_charge charge;        /* charge: the target's charge before ... */
    int charged_by, facing, charge_turn;    /* ... who, to which facing, when */
    bool counter_charged;           /* ... and whether it had counter charged */
};

/* What the game keeps beside a rules-core unit. */
struct bg_unit_x {
    int points;
    int value[BG_FACTS_MAX];        /* the stated value of each fact (0: unstated) */
    int prev[BG_FACTS_MAX];         /* its value before the last statement */
    unsigned stated;                /* facts stated and not disputed, as bits */
    enum wb_reason why_conf, why_edgy, why_rank, why_retreat;  /* WB_R_OK: none */
    /* The charge on it (its facts.charge while facts.charge.charged): the
     * charger's index in the other army, the facing (0 front, 1 flank,
     * 2 rear), the player turn it was declared (B26-B28). */
    int charged_by, facing, charge_turn;
    bool counter_charged;           /* it counter charged that charge (B29) */
    int declared_turn, declared_target;     /* its own charge: turn, target index */
    int broke_turn;                 /* the turn it broke in close combat, 0: never (B31) */
    struct bg_stmt stmt;            /* its last combat statement (B35) */
};

struct bg_side {
    struct wb_army army;
    struct bg_unit_x x[WB_UNITS_MAX];
    bool in;                        /* its roster is in */
    struct bg_stmt general;         /* general_killed, open to dispute (B35) */
};

struct bg_game {
    struct wr_game base;            /* first: the ruleset interface's game */
    const struct wr_host *host;     /* borrowed */
    char id[64];
    uint8_t seed[32];
    bool has_seed;
    bool referee;
    int points;
    struct wb_options opts;
    enum bg_phase phase;
    int turn;                       /* player turns, from 1 */
    int active;                     /* 0: p1, 1: p2 */
    enum bg_segment segment;
    uint32_t rolls;                 /* dice rolled so far: the next roll's k */
    struct bg_side side[2];
    struct {
        bool on;
        int side, unit, fact;       /* whose unit, which, which fact */
    } dispute;
    int offer;                      /* -1: none; else the side offering */
    int offer_result;               /* 0: p1 wins, 1: p2, 2: a draw */
    char winner[8];                 /* "" running, "p1", "p2" or "draw" */
    /* The end (B40-B42): the result the table decided (break point or
     * agreement; "" while the battle goes on), each side's last victory
     * point report, and the points agreed or settled (once over). */
    char decided[8];
    struct bg_vp {
        bool in;
        int p1, p2;
    } vp_report[2];
    bool vp_agreed;
    int vp[2];
    /* The campaign's options (B43, B44): the option campaign as compact
     * JSON ("" without one), and each side's Hidden Ambush Force. */
    char campaign[BG_CAMPAIGN_MAX + 1];
    enum bg_ambush { BG_AMBUSH_NONE, BG_AMBUSH_WAITING, BG_AMBUSH_DUE } ambush[2];
    const char *seats[4];           /* static strings */
};

/* The ruleset (battle_ruleset.c). */
extern const struct wr_ruleset wr_ruleset_battle;

/* The ruleset's functions (battle_game.c). */
struct bg_game *bg_new(const struct json_t *options, const char *game_id, const uint8_t *seed,
                       const struct wr_host *host, struct wr_refusal *why);
int bg_apply(struct bg_game *g, const char *seat, const struct json_t *cmd,
             struct json_t **events, struct wr_refusal *why);
struct json_t *bg_project(const struct bg_game *g, const char *seat);
struct json_t *bg_project_events(const struct bg_game *g, const char *seat,
                                 const struct json_t *events);
int bg_awaiting(const struct bg_game *g, struct wr_decision *out, int max);
int bg_check(const struct bg_game *g, struct wr_refusal *why);
struct json_t *bg_autoplay(const struct bg_game *g, const char *seat, struct wr_prng *rng);

/* A battle saved whole and restored (battle_save.c; ruleset.h, version 5):
 * save returns a new reference; restore makes the game create() would of
 * options, game_id, seed and host (borrowed, as for bg_new), reads saved
 * (borrowed) over it and returns it, or NULL with why (bad_command naming
 * the bad value, or no_memory). */
struct json_t *bg_save(const struct bg_game *g);
struct bg_game *bg_restore(const struct json_t *saved, const struct json_t *options,
                           const char *game_id, const uint8_t *seed,
                           const struct wr_host *host, struct wr_refusal *why);

#endif
