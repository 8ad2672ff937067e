/*
 * waterloo_game.h - the state of one Waterloo game and the turn machine.
 *
 * A game is a value: the scenario (borrowed, read-only, shared by games),
 * the position of every unit, the turn and phase, the battles of the
 * current combat phase, what is awaited of which seat, and the dice. It
 * changes only through wl_game_apply(), which validates a command against
 * the rules and either refuses it with a reason or applies it and appends
 * events. Deterministic: the same scenario, seed and commands give the
 * same states, byte for byte.
 *
 * Turn machine (phase, event -> next phase):
 *   setup_french   end_setup            -> setup_allied
 *   setup_allied   end_setup            -> french_move
 *   french_move    end_phase            -> french_combat
 *   french_combat  all battles done     -> defection (if French units left
 *                                          the board this turn) or allied_move
 *                  (rules 2: end_phase, or nothing left to declare and
 *                  every battle done)
 *   defection      defect               -> allied_move
 *   allied_move    end_phase            -> allied_combat
 *   allied_combat  all battles done     -> french_move of the next turn, or
 *                                          over after the last turn
 *   any            victory condition    -> over
 */
#ifndef WL_GAME_H
#define WL_GAME_H

#include <stdint.h>

#include "waterloo_reason.h"
#include "waterloo_scenario.h"

#define WL_MAX_BATTLES 64
#define WL_MAX_IN_BATTLE 32
#define WL_GAME_ID_MAX 64

/* Rules versions (ruleset.h, "rules"; docs/rules-notes.md, "Rules versions"):
 *   1  the rules as first published by Warroom (records made before rules
 *      versions existed name none and are judged by these)
 *   2  the 2-player HQ set, HQs that never delay the enemy, the Prussian
 *      set-up line, battles declared and resolved one at a time */
#define WL_RULES 2

/* How a game is played: the options of create() (waterloo_ruleset.c). */
struct wl_options {
    int rules;                  /* 1..WL_RULES */
    int commanders;             /* commanders a side; 1 = the 2-player game */
    int undo;                   /* 1: a move may be taken back in its movement phase
                                 * (the undo command); 0 in tournament games. A game
                                 * whose options name none: 1 */
};

/* WL_NOT_IN_GAME: a counter the game's options leave out (rules 2 with one
 * commander a side: the scenario's team HQs). Set once by
 * wl_game_init_with() and never changed; such a unit is in no list, count,
 * state or picture (wl_unit_in_game). */
enum wl_where { WL_ON_BOARD, WL_PENDING, WL_ELIMINATED, WL_EXITED, WL_NOT_IN_GAME };

struct wl_unit {
    wl_sq at;                   /* square when on board, else WL_SQ_NONE */
    uint8_t where;              /* enum wl_where */
    uint8_t moved;              /* moved in the current movement phase */
    int8_t battle;              /* battle index in the current combat phase, or -1 */
    uint8_t must_retreat;       /* lost a Back-2 and awaits its retreat */
    uint8_t advanced;           /* advanced after combat this phase */
    uint8_t engaged;            /* rules 2, combat phase: a combat unit next to an enemy
                                 * combat unit when the phase began; it owes a battle
                                 * until battle >= 0 (waterloo_combat.h) */
    /* Undo (struct wl_undo): in a movement phase, the move of the phase
     * (1-based) that moved this unit or eliminated it on the way (an HQ a
     * rules-2 move ran over), 0 for none; and where it was before that
     * move: its square (WL_SQ_NONE off the board) and enum wl_where. */
    uint16_t undo_move;
    wl_sq undo_at;
    uint8_t undo_where;
};

/* The moves of the current movement phase that the undo command may take
 * back, last first (docs/rules-notes.md, "Taking back a move"): move n
 * (1..nmoves) was made by commander cmdr[n - 1] of the moving side; the
 * units it moved or eliminated carry n in undo_move. Emptied whenever a
 * phase begins: a movement phase rolls no die, so "no die rolled since"
 * is "the same movement phase". A game made from a state
 * (wl_game_init_from_state) does not know them (known = 0): the state
 * carries only which units moved, so such a game can judge whether an
 * undo is refused but cannot take a move back. */
struct wl_undo {
    int known;
    int nmoves;
    uint8_t cmdr[WL_MAX_UNITS];
};

enum wl_battle_state {
    WL_B_DECLARED,              /* waiting to be resolved */
    WL_B_RETREATS,              /* losers' retreats being chosen by the winner */
    WL_B_EXCHANGE,              /* the larger side chooses its exchange losses */
    WL_B_ADVANCE,               /* the attacker may advance */
    WL_B_DONE
};

struct wl_battle {
    int16_t attackers[WL_MAX_IN_BATTLE];
    int nattackers;
    int16_t defenders[WL_MAX_IN_BATTLE];
    int ndefenders;
    int attack, defence;        /* totals, defence after terrain doubling */
    int column;                 /* CRT column, or -1 for automatic A-Elim */
    int die;                    /* 0 until rolled */
    int result;                 /* enum wl_result, valid once rolled */
    int state;                  /* enum wl_battle_state */
    wl_sq vacated[WL_MAX_IN_BATTLE];    /* squares defenders left (advance) */
    int nvacated;
};

/* What the game waits for, and from whom. */
enum wl_await {
    WL_AW_NONE,                 /* game over */
    WL_AW_SETUP,                /* place / end_setup */
    WL_AW_MOVE,                 /* move / end_phase */
    WL_AW_DECLARE,              /* declare (battles) */
    WL_AW_RESOLVE,              /* resolve the next battle */
    WL_AW_RETREAT,              /* retreat for a losing unit, chosen by the winner */
    WL_AW_EXCHANGE,             /* exchange_losses */
    WL_AW_ADVANCE,              /* advance / no_advance */
    WL_AW_DEFECTION,            /* defect */
    WL_AW_COMBAT                /* rules 2: declare, resolve or end_phase */
};

struct wl_game {
    const struct wl_scenario *sc;       /* borrowed; must outlive the game */
    struct wl_options opt;              /* rules version and options, fixed at init */
    char id[WL_GAME_ID_MAX];
    uint8_t seed[32];
    int has_seed;
    uint32_t rolls;                     /* k of the next die roll */
    /* Where dice come from: the seed (when roll_source is NULL) or, to
     * replay the record of a running game whose seed is still secret, the
     * recorded faces. Returns 1..6, or 0 when it has no face for k. */
    int (*roll_source)(void *ctx, uint32_t k);
    void *roll_ctx;

    struct wl_unit units[WL_MAX_UNITS];
    int turn;                           /* 1-based */
    int phase;                          /* enum wl_phase */
    int declared;                       /* battles declared this combat phase */
    struct wl_battle battles[WL_MAX_BATTLES];
    int nbattles;
    int current;                        /* battle being worked on, or -1 */

    int await_side;                     /* side awaited, -1 when over */
    int await_what;                     /* enum wl_await */

    /* Team play (waterloo_teams.h), all zero in a game of one commander a
     * side: the commanders out of the game (their HQ eliminated), and
     * those who have ended the current set-up or movement phase. */
    uint8_t cmdr_out[WL_NSIDES][WL_MAX_COMMANDERS];
    uint8_t cmdr_done[WL_NSIDES][WL_MAX_COMMANDERS];

    struct wl_undo undo;                /* the moves of this movement phase */

    int exited_factors;                 /* French combat factors off the board this turn */
    int defection_owed;                 /* P-A-A factors still to remove */
    int winner;                         /* -1 none yet, else enum wl_side */
    char win_reason[96];
};

/* Which side is on which square, and stacked factors: derived from units,
 * rebuilt on demand (wl_game_occupancy). */
struct wl_occupancy {
    int8_t side[WL_NSQ];                /* -1 empty, else enum wl_side */
    uint8_t factors[WL_NSQ];            /* stacked combat factors */
    uint8_t count[WL_NSQ];              /* units on the square */
};

/* Start a game of sc at its start point (default: French set-up, turn 1),
 * with the scenario's set-up positions, under the newest rules. seed may be
 * NULL (no dice audit: rolls must then come from roll_source, for replays
 * of a running game). */
void wl_game_init(struct wl_game *g, const struct wl_scenario *sc, const char *game_id,
                  const uint8_t seed[32]);

/* The same under the rules version and options of opt (borrowed for the
 * call; NULL: wl_options_default()). opt must be valid (wl_options_check):
 * commanders > 1 needs rules 2 and a scenario with that many
 * (waterloo_teams.h). */
void wl_game_init_with(struct wl_game *g, const struct wl_scenario *sc, const char *game_id,
                       const uint8_t seed[32], const struct wl_options *opt);

/* The defaults: the newest rules, one commander a side. */
struct wl_options wl_options_default(void);
/* 0 when opt can make a game of sc, else -1 with why (bad_options) naming
 * the option at fault. */
int wl_options_check(const struct wl_options *opt, const struct wl_scenario *sc,
                     struct wr_refusal *why);

void wl_game_occupancy(const struct wl_game *g, struct wl_occupancy *occ);

/* Zone of control: is square s controlled by a combat unit of side
 * `enemy` on the board (HQ units have none)? */
int wl_game_in_zoc(const struct wl_game *g, const struct wl_occupancy *occ, wl_sq s,
                   int enemy);

/* Stable side of a seat name ("french"/"allied"), or -1. */
int wl_side_from_name(const char *name);
/* The side that moves and attacks in phase (WL_FRENCH or WL_ALLIED; -1
 * once the game is over). */
int wl_phase_mover(int phase);

/* Is unit i part of this game (not WL_NOT_IN_GAME)? */
int wl_unit_in_game(const struct wl_game *g, int i);

/* Does the scenario's unit i take part in a game played with opt? Combat
 * units always; every HQ under rules 1. Rules 2 (docs/rules-notes.md H1):
 * "In a 2-player game use only the HQ Units labeled Wellington, Napoleon
 * and Blucher", so the team HQs (wl_unit_def.team_hq) do not, except, in a
 * team game, the HQs of its commanders (TP3). */
int wl_unit_plays(const struct wl_options *opt, const struct wl_scenario *sc, int i);

/* Battles one at a time (rules 2; docs/rules-notes.md, "Declarations"). The
 * one place the rules version decides how a combat phase is declared:
 * 0 (rules 1): every battle in one declaration checked whole by
 * wl_combat_check_declaration(), the phase ends when the last is done;
 * 1 (rules 2): declarations of one or more battles at any time no battle
 * is half-resolved, checked by wl_combat_check_battles(), the obligations
 * (rules 5 and 6 of waterloo_combat.h) judged at end_phase by wl_combat_check_obligations()
 * on the units marked engaged when the phase began. */
int wl_combat_one_at_a_time(const struct wl_game *g);

/* Rules 2 (docs/rules-notes.md H2): HQs "cannot be used to delay the
 * enemy". Does a square held by enemy HQ units alone stop a unit that
 * moves, enters, retreats or advances into it? combat: the unit (or the
 * stack moving together) has combat factors. Under rules 1 it always does;
 * under rules 2 only a unit without combat factors (an HQ: HQ units may not
 * attack, and two sides never share a square); a combat unit enters and
 * the HQ units there are eliminated. */
int wl_hq_blocks(const struct wl_game *g, int combat);

/* Is square s closed to a unit of `side` (combat: as for wl_hq_blocks)
 * because the enemy holds it? A square holding an enemy combat unit always
 * is; a square of enemy HQ units alone is when wl_hq_blocks(). */
int wl_game_enemy_holds(const struct wl_game *g, const struct wl_occupancy *occ, wl_sq s,
                        int side, int combat);

/* May unit i be placed on playable square s at set-up? Rules 2
 * (docs/rules-notes.md Z1): only inside its nation's zone ("Prussian units
 * may start the game on row EE or north of EE, and ON or east of Y-26,
 * ..."); rules 1: anywhere in its side's zone. */
int wl_setup_zone_ok(const struct wl_game *g, int i, wl_sq s);

/* Check the invariants (stacking, one place per unit, awaited seat
 * consistent with phase and battles). Returns 0, or -1 with why filled. */
int wl_game_check(const struct wl_game *g, struct wr_refusal *why);

#endif
