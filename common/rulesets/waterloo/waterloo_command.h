/*
 * waterloo_command.h - Waterloo commands and events as plain structs, and their
 * JSON form (waterloo_codec.c is the only module of the turn machine that touches
 * json_t; waterloo_turn.c works on these structs).
 *
 * Commands (JSON objects with a "type"):
 *   place          {unit, at}                       set-up
 *   end_setup      {}
 *   move           {unit | units, path: [squares]}  path ends with "off" to leave the board
 *   end_phase      {}                               end of a movement phase
 *   declare        {battles: [{attackers: [ids], defenders: [ids]}]}
 *   resolve        {battle: index}
 *   retreat        {unit, path: [sq, sq]}           chosen by the winner
 *   exchange_losses{units: [ids]}                   chosen by the larger side
 *   advance        {unit, to}  /  no_advance {}
 *   defect         {units: [ids]}                   P-A-A removal for French exits
 */
#ifndef WR_COMMAND_H
#define WR_COMMAND_H

#include "waterloo_game.h"
#include "waterloo_move.h"

struct json_t;

enum wr_cmd_type {
    WR_CMD_PLACE,
    WR_CMD_END_SETUP,
    WR_CMD_MOVE,
    WR_CMD_END_PHASE,
    WR_CMD_DECLARE,
    WR_CMD_RESOLVE,
    WR_CMD_RETREAT,
    WR_CMD_EXCHANGE_LOSSES,
    WR_CMD_ADVANCE,
    WR_CMD_NO_ADVANCE,
    WR_CMD_DEFECT,
    WR_NCMDS
};

struct wr_cmd_battle {
    int16_t attackers[WR_MAX_IN_BATTLE];
    int nattackers;
    int16_t defenders[WR_MAX_IN_BATTLE];
    int ndefenders;
};

struct wr_cmd {
    int type;                           /* enum wr_cmd_type */
    int16_t units[WR_MAX_UNITS];        /* unit / units */
    int nunits;
    wr_sq path[WR_PATH_MAX];            /* move, retreat (WR_PATH_OFF for "off") */
    int npath;
    wr_sq to;                           /* place.at, advance.to */
    int battle;                         /* resolve */
    struct wr_cmd_battle battles[WR_MAX_BATTLES];
    int nbattles;
};

enum wr_event_type {
    WR_EV_PLACED,       /* unit, to */
    WR_EV_MOVED,        /* units, from, path */
    WR_EV_ENTERED,      /* unit arrived from entry (from = entry square) */
    WR_EV_EXITED,       /* unit left the board (French exit) */
    WR_EV_PHASE,        /* phase, turn */
    WR_EV_DECLARED,     /* battle index, attack, defence, column */
    WR_EV_ROLL,         /* battle, k, face */
    WR_EV_RESULT,       /* battle, result */
    WR_EV_ELIMINATED,   /* unit, from */
    WR_EV_RETREATED,    /* unit, from, path */
    WR_EV_ADVANCED,     /* unit, from, to */
    WR_EV_DEFECTED,     /* unit */
    WR_EV_DEFECTION_DUE,/* amount */
    WR_EV_GAME_OVER     /* side (winner), text */
};

struct wr_event {
    int type;
    int unit;
    int16_t units[WR_MAX_IN_BATTLE];
    int nunits;
    wr_sq from, to;
    wr_sq path[WR_PATH_MAX];
    int npath;
    int battle;
    int phase, turn;
    uint32_t k;
    int face, result, column, attack, defence, amount, side;
};

#define WR_MAX_EVENTS 512

struct wr_events {
    struct wr_event ev[WR_MAX_EVENTS];
    int n;
};

/* Parse a command (JSON borrowed) against the game's scenario (unit ids,
 * squares). Shape errors give bad_command / unknown_unit / bad_square with
 * a sentence naming the field. */
enum wr_reason wr_cmd_parse(const struct wr_game *g, const struct json_t *json,
                            struct wr_cmd *cmd, struct wr_refusal *why);

/* Validate and apply a command from side (enum wr_side). On success
 * returns WR_R_OK and appends to ev (ev->n is not reset); on refusal the
 * game is unchanged. */
enum wr_reason wr_game_apply(struct wr_game *g, int side, const struct wr_cmd *cmd,
                             struct wr_events *ev, struct wr_refusal *why);

/* Parse then apply, with events as a JSON array (new reference in *events
 * on success, NULL on refusal). */
enum wr_reason wr_game_apply_json(struct wr_game *g, int side, const struct json_t *cmd,
                                  struct json_t **events, struct wr_refusal *why);

/* The state as JSON (new reference): units keyed by id with "at", turn,
 * date, time, phase, awaiting {seat, what}, battles, winner, dice. */
struct json_t *wr_game_state_json(const struct wr_game *g);

/* Fill g from a state of wr_game_state_json (borrowed) for scenario sc
 * (borrowed; must outlive g): units (at, moved, battle, retreat), turn,
 * phase, awaiting (with the defection factors), battles (units, odds,
 * column, state, die, result), current battle, exited factors, winner and
 * result, and the dice (rolls; the seed once revealed, with game_id, which
 * may be NULL, as the game id of its rolls). What the state does not carry
 * is left at its start value: the squares the defenders of a battle vacated
 * and the units that advanced (so an advance cannot be judged on such a
 * game), and the seed while it is secret (such a game cannot roll; a
 * caller that only checks orders may supply roll_source). The state must
 * name sc, know every unit of it and no other, and give a game that passes
 * wr_game_check(). Returns 0, or -1 with why (may be NULL) naming the
 * field at fault; g is then unusable.
 * Round trip: wr_game_state_json(g) equals state, except that without the
 * seed the dice commitment is missing. */
int wr_game_init_from_state(struct wr_game *g, const struct wr_scenario *sc,
                            const struct json_t *state, const char *game_id,
                            struct wr_refusal *why);

/* One event as JSON (new reference). */
struct json_t *wr_event_json(const struct wr_game *g, const struct wr_event *e);

/* Name of the awaited thing ("move", "retreat", ...) and of a command type. */
const char *wr_await_name(int what);
const char *wr_cmd_name(int type);

#endif
