/*
 * waterloo_game.h - the state of one Waterloo game and the turn machine.
 *
 * A game is a value: the scenario (borrowed, read-only, shared by games),
 * the position of every unit, the turn and phase, the battles of the
 * current combat phase, what is awaited of which seat, and the dice. It
 * changes only through wr_game_apply(), which validates a command against
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
 *   defection      defect               -> allied_move
 *   allied_move    end_phase            -> allied_combat
 *   allied_combat  all battles done     -> french_move of the next turn, or
 *                                          over after the last turn
 *   any            victory condition    -> over
 */
#ifndef WR_GAME_H
#define WR_GAME_H

#include <stdint.h>

#include "reason.h"
#include "waterloo_scenario.h"

#define WR_MAX_BATTLES 64
#define WR_MAX_IN_BATTLE 32
#define WR_GAME_ID_MAX 64

enum wr_where { WR_ON_BOARD, WR_PENDING, WR_ELIMINATED, WR_EXITED };

struct wr_unit {
    wr_sq at;                   /* square when on board, else WR_SQ_NONE */
    uint8_t where;              /* enum wr_where */
    uint8_t moved;              /* moved in the current movement phase */
    int8_t battle;              /* battle index in the current combat phase, or -1 */
    uint8_t must_retreat;       /* lost a Back-2 and awaits its retreat */
    uint8_t advanced;           /* advanced after combat this phase */
};

enum wr_battle_state {
    WR_B_DECLARED,              /* waiting to be resolved */
    WR_B_RETREATS,              /* losers' retreats being chosen by the winner */
    WR_B_EXCHANGE,              /* the larger side chooses its exchange losses */
    WR_B_ADVANCE,               /* the attacker may advance */
    WR_B_DONE
};

struct wr_battle {
    int16_t attackers[WR_MAX_IN_BATTLE];
    int nattackers;
    int16_t defenders[WR_MAX_IN_BATTLE];
    int ndefenders;
    int attack, defence;        /* totals, defence after terrain doubling */
    int column;                 /* CRT column, or -1 for automatic A-Elim */
    int die;                    /* 0 until rolled */
    int result;                 /* enum wr_result, valid once rolled */
    int state;                  /* enum wr_battle_state */
    wr_sq vacated[WR_MAX_IN_BATTLE];    /* squares defenders left (advance) */
    int nvacated;
};

/* What the game waits for, and from whom. */
enum wr_await {
    WR_AW_NONE,                 /* game over */
    WR_AW_SETUP,                /* place / end_setup */
    WR_AW_MOVE,                 /* move / end_phase */
    WR_AW_DECLARE,              /* declare (battles) */
    WR_AW_RESOLVE,              /* resolve the next battle */
    WR_AW_RETREAT,              /* retreat for a losing unit, chosen by the winner */
    WR_AW_EXCHANGE,             /* exchange_losses */
    WR_AW_ADVANCE,              /* advance / no_advance */
    WR_AW_DEFECTION             /* defect */
};

struct wr_game {
    const struct wr_scenario *sc;       /* borrowed; must outlive the game */
    char id[WR_GAME_ID_MAX];
    uint8_t seed[32];
    int has_seed;
    uint32_t rolls;                     /* k of the next die roll */
    /* Where dice come from: the seed (when roll_source is NULL) or, to
     * replay the record of a running game whose seed is still secret, the
     * recorded faces. Returns 1..6, or 0 when it has no face for k. */
    int (*roll_source)(void *ctx, uint32_t k);
    void *roll_ctx;

    struct wr_unit units[WR_MAX_UNITS];
    int turn;                           /* 1-based */
    int phase;                          /* enum wr_phase */
    int declared;                       /* battles declared this combat phase */
    struct wr_battle battles[WR_MAX_BATTLES];
    int nbattles;
    int current;                        /* battle being worked on, or -1 */

    int await_side;                     /* side awaited, -1 when over */
    int await_what;                     /* enum wr_await */

    int exited_factors;                 /* French combat factors off the board this turn */
    int defection_owed;                 /* P-A-A factors still to remove */
    int winner;                         /* -1 none yet, else enum wr_side */
    char win_reason[96];
};

/* Which side is on which square, and stacked factors: derived from units,
 * rebuilt on demand (wr_game_occupancy). */
struct wr_occupancy {
    int8_t side[WR_NSQ];                /* -1 empty, else enum wr_side */
    uint8_t factors[WR_NSQ];            /* stacked combat factors */
    uint8_t count[WR_NSQ];              /* units on the square */
};

/* Start a game of sc at its start point (default: French set-up, turn 1),
 * with the scenario's set-up positions. seed may be NULL (no dice audit:
 * rolls must then be supplied by wr_game_set_next_roll, for replays of a
 * running game). */
void wr_game_init(struct wr_game *g, const struct wr_scenario *sc, const char *game_id,
                  const uint8_t seed[32]);

void wr_game_occupancy(const struct wr_game *g, struct wr_occupancy *occ);

/* Zone of control: is square s controlled by a combat unit of side
 * `enemy` on the board (HQ units have none)? */
int wr_game_in_zoc(const struct wr_game *g, const struct wr_occupancy *occ, wr_sq s,
                   int enemy);

/* Stable side of a seat name ("french"/"allied"), or -1. */
int wr_side_from_name(const char *name);

/* Check the invariants (stacking, one place per unit, awaited seat
 * consistent with phase and battles). Returns 0, or -1 with why filled. */
int wr_game_check(const struct wr_game *g, struct wr_refusal *why);

#endif
