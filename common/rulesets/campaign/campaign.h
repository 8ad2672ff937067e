/*
 * campaign.h - the map campaign of Warhammer Ancient Battles (the rules
 * before "Counter charge" in the campaign and battle rules (docs/sources.md))
 * as a ruleset: 2 to 8 players draft the towns of a map, then take turns
 * arranging battles against their neighbours. Before each battle both sides
 * roll for strategies and choose tactics in secret; the tabletop battle is
 * fought off-line and both players report its victory points.
 *
 * docs/rules-notes.md ("Campaign") says how every unclear sentence of the
 * rules is read; the numbered readings (C1, C2, ...) are cited below.
 *
 * Seats: "p1".."pN" (N from the option "players", 2..8) and, with the
 * option "referee": true, "referee". Options (all optional; the server
 * passes them in the create message's "options"):
 *   players     2..8, default 2
 *   alliances   [["p1","p3"], ...]: allies never attack each other, pool
 *               their strategy dice and win together
 *   referee     true adds the seat "referee" (settles disputed results,
 *               may reveal an ambush note)
 *   max_turns   1..10000 campaign turns, then the most towns wins (C6);
 *               absent: until one player or alliance holds every town
 *   max_rounds  1..20 tactics rounds without battle before the attack is
 *               called off (house rule C10), default 5
 *
 * Commands ({"type": ..., ...}; unknown keys are refused):
 *   start                                   p1: the server rolls for the first choice
 *   choose_town     town                    draft
 *   attack          target                  the active player
 *   counter         town                    the defender
 *   choose_strategy strategy                after Brilliant Generalship
 *   commit          commitment              optional: SHA-256(choice + salt), 64 lowercase hex
 *   tactic          choice [, salt]         march | counter_march | attack | defend | regroup
 *   seal_ambush     note                    the Hidden Ambush Force's position (sealed)
 *   reveal_ambush   [seat]                  the ambusher, or the referee (naming the seat)
 *   report          attacker, defender      victory points of the tabletop battle
 *   settle          attacker, defender      the referee, on a disputed report
 *
 * The phase machine (phase, command, next phase, handler; the table is in
 * campaign_game.c, the handlers in campaign_draft.c, campaign_attack.c and
 * campaign_battle.c):
 *
 *   START     start            DRAFT                          cp_do_start
 *   DRAFT     choose_town      DRAFT, or ATTACK when all      cp_do_choose_town
 *                              towns are taken (or OVER)
 *   ATTACK    attack           COUNTER                        cp_do_attack
 *   COUNTER   counter          STRATEGY on a Brilliant        cp_do_counter
 *                              Generalship, else TACTICS
 *   STRATEGY  choose_strategy  STRATEGY while one is left,    cp_do_choose_strategy
 *                              else TACTICS
 *   STRATEGY, TACTICS, BATTLE
 *             seal_ambush      (same)                         cp_do_seal_ambush
 *   TACTICS   commit           TACTICS                        cp_do_commit
 *   TACTICS   tactic           TACTICS (one side in, or no    cp_do_tactic
 *                              battle), STRATEGY (a reinforce
 *                              rolled 6), BATTLE, or ATTACK/
 *                              OVER (round limit)
 *   BATTLE    reveal_ambush    BATTLE                         cp_do_reveal_ambush
 *   BATTLE    report           BATTLE (one report in, or a    cp_do_report
 *                              dispute), ATTACK or OVER
 *   BATTLE    settle           ATTACK or OVER                 cp_do_settle
 *
 * A player with no town to attack is passed over automatically (event
 * "passed"); an attack ends in ATTACK for the next player, or OVER.
 */
#ifndef WR_CAMPAIGN_H
#define WR_CAMPAIGN_H

#include <stdint.h>

#include "campaign_map.h"
#include "campaign_reason.h"
#include "ruleset.h"

struct json_t;

/* Every name of the campaign says so: wr_campaign_* and WR_CAMPAIGN_* for
 * types, functions and limits; enum values WR_C<letter>_ (CP phase, CC
 * command, CT tactic, CS strategy, CK tactics result, CA actor). */

#define WR_CAMPAIGN_PLAYERS_MIN 2
#define WR_CAMPAIGN_PLAYERS_MAX 8
#define WR_CAMPAIGN_ROUNDS_MAX 20       /* largest max_rounds */
#define WR_CAMPAIGN_ROUNDS_DEFAULT 5
#define WR_CAMPAIGN_TURNS_MAX 10000     /* largest max_turns */
#define WR_CAMPAIGN_STRATEGIES_MAX 48   /* strategy results of one attack */
#define WR_CAMPAIGN_SALT_MAX 256        /* bytes of a salt */
#define WR_CAMPAIGN_NOTE_MAX 1000       /* bytes of an ambush note */
#define WR_CAMPAIGN_VP_MAX 1000000      /* reported victory points */
#define WR_CAMPAIGN_MARGIN 250          /* winning margin that takes both towns */
#define WR_CAMPAIGN_POINTS 1000         /* base points of a battle */
#define WR_CAMPAIGN_HISTORY 64          /* attacks kept in the state */

enum wr_campaign_phase {
    WR_CP_START,
    WR_CP_DRAFT,
    WR_CP_ATTACK,
    WR_CP_COUNTER,
    WR_CP_STRATEGY,
    WR_CP_TACTICS,
    WR_CP_BATTLE,
    WR_CP_OVER,
};

/* The tactics, in the order of the rulebook's table. */
enum wr_campaign_tactic { WR_CT_MARCH, WR_CT_COUNTER_MARCH, WR_CT_ATTACK, WR_CT_DEFEND,
                          WR_CT_REGROUP, WR_CT_COUNT };

/* The strategy table, by the roll (1..6). */
enum wr_campaign_strategy {
    WR_CS_NONE,
    WR_CS_FLANK_MARCH,          /* 1 */
    WR_CS_HIDDEN_AMBUSH,        /* 2 */
    WR_CS_SCOUTS,               /* 3 */
    WR_CS_RAPID_DEPLOYMENT,     /* 4 */
    WR_CS_GOOD_PLANNING,        /* 5 */
    WR_CS_BRILLIANT_GENERALSHIP, /* 6: choose one of 1..5 */
};

/* Results of the tactics table. */
enum wr_campaign_tactics_kind {
    WR_CK_NO_BATTLE,
    WR_CK_REINFORCE,            /* no battle; the actor (or both) reinforces */
    WR_CK_OPEN,
    WR_CK_MEETING,
    WR_CK_SKIRMISH,
    WR_CK_AMBUSH,               /* actor ambushes the other */
    WR_CK_SURPRISE,             /* actor surprises the other */
    WR_CK_BREAK_THROUGH,        /* actor attempts to break through the other */
    WR_CK_ATTACKS_DEFENCES,     /* actor attacks the other's defences (24" of walls) */
    WR_CK_FLANK_MARCH,          /* actor turns the other's flank */
    WR_CK_LAST_STAND,           /* actor makes a last stand */
};

/* Who a result is about: blue is the attacker, red the defender (C7). */
enum wr_campaign_actor { WR_CA_NONE = -1, WR_CA_BLUE = 0, WR_CA_RED = 1, WR_CA_BOTH = 2 };

struct wr_campaign_tactics_cell {
    enum wr_campaign_tactics_kind kind;
    enum wr_campaign_actor actor;
    const char *why;            /* the table's first sentence ("Red anticipates blue's route.") */
};

/* The cell of the tactics table for blue's (the attacker's) and red's (the
 * defender's) choices; both valid tactics. Borrowed, static. */
const struct wr_campaign_tactics_cell *wr_campaign_tactics(enum wr_campaign_tactic blue,
                                                          enum wr_campaign_tactic red);

/* The strategy of a strategy-table roll 1..6 (WR_CS_NONE otherwise). */
enum wr_campaign_strategy wr_campaign_strategy_of_roll(int face);

/* Wire names: "march", "counter_march", ...; "flank_march", ...; "open",
 * "break_through", ... NULL out of range. The parsers return -1 for an
 * unknown name. */
const char *wr_campaign_tactic_name(enum wr_campaign_tactic t);
int wr_campaign_tactic_parse(const char *name);
const char *wr_campaign_strategy_name(enum wr_campaign_strategy s);
int wr_campaign_strategy_parse(const char *name);
const char *wr_campaign_kind_name(enum wr_campaign_tactics_kind k);

/* The commitment of a tactic: lowercase hex SHA-256 of the bytes of choice
 * followed by the bytes of salt ("march" + "x7" hashes "marchx7"), with a
 * NUL: hex[65]. Returns 0, or -1 when libcrypto fails. */
int wr_campaign_commitment(const char *choice, const char *salt, char hex[65]);

/* --- commands ------------------------------------------------------------- */

enum wr_campaign_cmd_type {
    WR_CC_START,
    WR_CC_CHOOSE_TOWN,
    WR_CC_ATTACK,
    WR_CC_COUNTER,
    WR_CC_CHOOSE_STRATEGY,
    WR_CC_COMMIT,
    WR_CC_TACTIC,
    WR_CC_SEAL_AMBUSH,
    WR_CC_REVEAL_AMBUSH,
    WR_CC_REPORT,
    WR_CC_SETTLE,
    WR_CC_COUNT
};

/* A command as parsed: which fields are set depends on the type. Strings
 * are borrowed from the JSON command and valid while it lives. */
struct wr_campaign_cmd {
    enum wr_campaign_cmd_type type;
    const char *town;           /* choose_town, attack (target), counter */
    int strategy;               /* choose_strategy: enum wr_campaign_strategy 1..5 */
    const char *commitment;     /* commit: 64 lowercase hex digits */
    int tactic;                 /* tactic: enum wr_campaign_tactic */
    const char *salt;           /* tactic: NULL when absent */
    const char *note;           /* seal_ambush */
    const char *seat;           /* reveal_ambush: NULL when absent */
    int vp[2];                  /* report, settle: attacker's and defender's points */
};

/* Parse cmd (borrowed) by its shape alone: the type, the keys it must and
 * may have, their types and lengths. Returns WR_CR_OK with out filled, or
 * WR_CR_BAD_COMMAND (or WR_CR_UNKNOWN_TOWN never: names are checked against
 * the map by the rules) with why filled. */
enum wr_campaign_reason wr_campaign_parse_command(const struct json_t *cmd, struct wr_campaign_cmd *out,
                                         struct wr_refusal *why);

/* --- the game ---------------------------------------------------------------- */

struct wr_campaign_strategy_won {
    int side;                   /* 0 attacker, 1 defender */
    int roll;                   /* the strategy-table roll, 1..6 */
    int strategy;               /* enum wr_campaign_strategy: the table's, or the one chosen
                                 * after a 6 */
    int pending;                /* 1: a 6 whose strategy is not chosen yet */
    int reinforcement;          /* 1: a free roll from a reinforce result, 0: the dice contest */
};

struct wr_campaign_side_tactic {
    int committed;
    char commitment[65];
    int chosen;                 /* the choice is in */
    int choice;                 /* enum wr_campaign_tactic */
    int has_salt;
    char salt[WR_CAMPAIGN_SALT_MAX + 1];
};

struct wr_campaign_round {
    struct wr_campaign_side_tactic side[2];     /* as revealed */
    int result;                 /* index of the tactics cell: blue * 5 + red */
};

struct wr_campaign_note {
    int needed;                 /* the side won a Hidden Ambush Force */
    int sealed;
    int revealed;
    char text[WR_CAMPAIGN_NOTE_MAX + 1];
};

/* The attack being fought (phases COUNTER..BATTLE). */
struct wr_campaign_attack {
    int attacker, defender;     /* player indices */
    int target;                 /* the defender's town under attack */
    int counter;                /* the attacker's town the defender puts at stake; -1 before */
    int ndice[2];               /* strategy dice per side */
    uint8_t faces[2][WR_CAMPAIGN_TOWNS_MAX];
    int sixes[2];
    int contest_winner;         /* side that rolled on the strategy table, -1 none */
    struct wr_campaign_strategy_won strategies[WR_CAMPAIGN_STRATEGIES_MAX];
    int nstrategies;
    struct wr_campaign_side_tactic tactic[2];   /* this round's, sealed until both are in */
    struct wr_campaign_round rounds[WR_CAMPAIGN_ROUNDS_MAX + 1];
    int nrounds;                /* revealed rounds, the battle's included */
    int battle;                 /* 1 once the tactics gave a battle */
    int battle_cell;            /* its cell index */
    int reported[2];            /* side has reported */
    int report[2][2];           /* report[side] = {attacker's vp, defender's vp} */
    int disputed;
    struct wr_campaign_note note[2];
};

/* One finished attack, as the state's history shows it. */
struct wr_campaign_past {
    int turn;
    int attacker, defender, target, counter;
    int battle;                 /* 1 fought, 0 called off or no battle */
    int kind;                   /* enum wr_campaign_tactics_kind of the battle */
    int actor;                  /* its actor, as a side (WR_CA_*) */
    int vp[2];
    int winner;                 /* side that took both towns, -1 none */
    int settled;                /* the referee settled it */
    int rounds;
};

struct wr_campaign {
    struct wr_game base;        /* first: the ruleset interface's game */
    struct wr_campaign_map map;
    char game_id[64];
    uint8_t seed[32];
    int has_seed;               /* 0: rolls come from roll_source (a replay) */
    int (*roll_source)(void *ctx, uint32_t k);
    void *roll_ctx;
    int roll_missing;           /* a roll of this command had no face from the host */
    uint32_t missing_k;         /* the first such roll */
    uint32_t rolls;             /* k of the next roll */
    int nplayers;
    int has_referee;
    const char *seats[WR_CAMPAIGN_PLAYERS_MAX + 2];     /* static names, NULL-terminated */
    int group[WR_CAMPAIGN_PLAYERS_MAX];  /* allies share a group: its lowest player index */
    int max_turns;              /* 0: no limit */
    int max_rounds;
    enum wr_campaign_phase phase;
    int first;                  /* first chooser of the draft; -1 before the roll */
    int active;                 /* the chooser (draft) or the attacker */
    int turn;                   /* campaign turn, from 1 once the draft is over */
    int owner[WR_CAMPAIGN_TOWNS_MAX];   /* player index, -1 free */
    struct wr_campaign_attack at;
    struct wr_campaign_past history[WR_CAMPAIGN_HISTORY];
    int nhistory;               /* attacks so far; the last WR_CAMPAIGN_HISTORY are kept */
    char winner[WR_CAMPAIGN_PLAYERS_MAX * 4];   /* "" running; "p2", "p1+p3", "draw" */
    const char *end;            /* "conquest" or "turns" when over */
};

/* A new campaign on map (copied) with options (borrowed JSON object or
 * NULL), the game's id (at most 63 bytes) and its dice: the seed, or when
 * seed is NULL the host's roll source (host may be NULL: no rolls, each is
 * then taken as a 1 and a replay's check of the rolls fails). Returns NULL
 * with why filled (WR_CR_BAD_OPTIONS). Caller frees with wr_campaign_free(). */
struct wr_campaign *wr_campaign_new(const struct wr_campaign_map *map,
                                    const struct json_t *options, const char *game_id,
                                    const uint8_t *seed, const struct wr_host *host,
                                    struct wr_refusal *why);
void wr_campaign_free(struct wr_campaign *c);

/* Validate cmd from seat and apply it (the ruleset's apply). */
enum wr_campaign_reason wr_campaign_apply(struct wr_campaign *c, const char *seat,
                                 const struct json_t *cmd, struct json_t **events,
                                 struct wr_refusal *why);

/* The state for seat (NULL: spectators) and the events for seat: new
 * references. Sealed tactics, commitments, salts and ambush notes are
 * left out for everyone but their owner until they are revealed. */
struct json_t *wr_campaign_project(const struct wr_campaign *c, const char *seat);
struct json_t *wr_campaign_project_events(const struct wr_campaign *c, const char *seat,
                                          const struct json_t *events);


/* Player index of seat ("p1" -> 0), -1 for the referee or an unknown seat. */
int wr_campaign_player(const struct wr_campaign *c, const char *seat);

/* --- the rules, one check each (the client pre-checks with them) ---------------- */

/* May player choose town in the draft?  1) it is free, 2) when a free town
 * is adjacent to one of player's towns, town is one of those. */
enum wr_campaign_reason wr_campaign_check_draft(const struct wr_campaign *c, int player, int town,
                                       struct wr_refusal *why);

/* May player attack target?  1) target belongs to another player, 2) not
 * an ally, 3) its owner is a neighbour: holds a town adjacent to one of
 * player's towns (the target itself need not be adjacent, C4). */
enum wr_campaign_reason wr_campaign_check_attack(const struct wr_campaign *c, int player, int target,
                                        struct wr_refusal *why);

/* May the defender put the attacker's town at stake against target?
 * 1) it is the attacker's, 2) when an attacker's town is adjacent to
 * target, it is one of those. */
enum wr_campaign_reason wr_campaign_check_counter(const struct wr_campaign *c, int attacker, int target,
                                         int town, struct wr_refusal *why);

/* Can player attack anyone: has it a neighbour (an enemy holding a town
 * adjacent to one of its towns)? */
int wr_campaign_can_attack(const struct wr_campaign *c, int player);

/* A random legal command for seat, chosen with rng (the ruleset's
 * autoplay; campaign_autoplay.c): a new reference, or NULL when seat is not
 * awaited or the game is over. */
struct json_t *wr_campaign_autoplay(const struct wr_campaign *c, const char *seat,
                                    struct wr_prng *rng);

/* The invariants of a campaign (owners, phase and attack consistent).
 * Returns 0, or -1 with why saying what is broken. Tests and debug builds
 * call it after every command. */
int wr_campaign_check(const struct wr_campaign *c, struct wr_refusal *why);

extern const struct wr_ruleset wr_ruleset_campaign;

/* Its presentation (present.h; campaign_present.c): the short orders of
 * docs/rulesets/campaign.md ("Orders"), the text and SVG map. */
extern const struct wr_present wr_present_campaign;

#endif
