/*
 * waterloo_command.h - Waterloo commands and events as plain structs, and their
 * JSON form (waterloo_codec.c is the only module of the turn machine that touches
 * json_t; waterloo_turn.c works on these structs).
 *
 * Commands (JSON objects with a "type"):
 *   place          {unit, at}                       set-up
 *   end_setup      {}
 *   move           {unit | units, path: [squares]}  path ends with "off" to leave the board
 *   end_phase      {}                               end of a movement phase; under
 *                                                   rules 2 also of a combat phase
 *   declare        {battles: [{attackers: [ids], defenders: [ids]}]}
 *                                                   rules 1: every battle of the phase;
 *                                                   rules 2: one battle or more, [] is
 *                                                   end_phase (waterloo_combat.h)
 *   resolve        {battle: index}
 *   retreat        {unit, path: [sq, sq]}           chosen by the winner
 *   exchange_losses{units: [ids]}                   chosen by the larger side
 *   advance        {unit, to}  /  no_advance {}
 *   defect         {units: [ids]}                   P-A-A removal for French exits
 *   undo           {}                               takes back the sender's last move of
 *                                                   this movement phase (struct wl_undo)
 */
#ifndef WL_COMMAND_H
#define WL_COMMAND_H

#include "waterloo_game.h"
#include "waterloo_move.h"

struct json_t;

enum wl_cmd_type {
    WL_CMD_PLACE,
    WL_CMD_END_SETUP,
    WL_CMD_MOVE,
    WL_CMD_END_PHASE,
    WL_CMD_DECLARE,
    WL_CMD_RESOLVE,
    WL_CMD_RETREAT,
    WL_CMD_EXCHANGE_LOSSES,
    WL_CMD_ADVANCE,
    WL_CMD_NO_ADVANCE,
    WL_CMD_DEFECT,
    WL_CMD_UNDO,
    WL_NCMDS
};

struct wl_cmd_battle {
    int16_t attackers[WL_MAX_IN_BATTLE];
    int nattackers;
    int16_t defenders[WL_MAX_IN_BATTLE];
    int ndefenders;
};

struct wl_cmd {
    int type;                           /* enum wl_cmd_type */
    int16_t units[WL_MAX_UNITS];        /* unit / units */
    int nunits;
    wl_sq path[WL_PATH_MAX];            /* move, retreat (WL_PATH_OFF for "off") */
    int npath;
    wl_sq to;                           /* place.at, advance.to */
    int battle;                         /* resolve */
    struct wl_cmd_battle battles[WL_MAX_BATTLES];
    int nbattles;
};

enum wl_event_type {
    WL_EV_PLACED,       /* unit, to */
    WL_EV_MOVED,        /* units, from, path */
    WL_EV_ENTERED,      /* unit arrived from entry (from = entry square) */
    WL_EV_EXITED,       /* unit left the board (French exit) */
    WL_EV_PHASE,        /* phase, turn */
    WL_EV_DECLARED,     /* battle index, attack, defence, column */
    WL_EV_ROLL,         /* battle, k, face */
    WL_EV_RESULT,       /* battle, result */
    WL_EV_ELIMINATED,   /* unit, from */
    WL_EV_RETREATED,    /* unit, from, path */
    WL_EV_ADVANCED,     /* unit, from, to */
    WL_EV_DEFECTED,     /* unit */
    WL_EV_DEFECTION_DUE,/* amount */
    WL_EV_GAME_OVER,    /* side (winner), text */
    WL_EV_COMMANDER_OUT,/* side, amount (the commander out; his units pass to the
                         * commander-in-chief) */
    WL_EV_UNDONE,       /* units, from (where the move had taken them: a square, or
                         * none when they had left the board), to (back where they
                         * were: a square, or none when they go back off the board
                         * to arrive) */
    WL_EV_RESTORED      /* unit, to: a unit the move taken back had eliminated is
                         * back on its square (its commander, out, is back in) */
};

struct wl_event {
    int type;
    int unit;
    int16_t units[WL_MAX_IN_BATTLE];
    int nunits;
    wl_sq from, to;
    wl_sq path[WL_PATH_MAX];
    int npath;
    int battle;
    int phase, turn;
    uint32_t k;
    int face, result, column, attack, defence, amount, side;
};

#define WL_MAX_EVENTS 512

struct wl_events {
    struct wl_event ev[WL_MAX_EVENTS];
    int n;
};

/* A game's options object (create()'s or a view's; borrowed, may be NULL:
 * the defaults) as a struct wl_options for scenario sc: 0, or -1 with why
 * (bad_options) naming the option at fault. */
int wl_options_read(const struct json_t *options, const struct wl_scenario *sc,
                    struct wl_options *opt, struct wr_refusal *why);

/* Parse a command (JSON borrowed) against the game's scenario (unit ids,
 * squares). Shape errors give bad_command / unknown_unit / bad_square with
 * a sentence naming the field. */
enum wl_reason wl_cmd_parse(const struct wl_game *g, const struct json_t *json,
                            struct wl_cmd *cmd, struct wr_refusal *why);

/* Validate and apply a command from side (enum wl_side). On success
 * returns WL_R_OK and appends to ev (ev->n is not reset); on refusal the
 * game is unchanged. */
enum wl_reason wl_game_apply(struct wl_game *g, int side, const struct wl_cmd *cmd,
                             struct wl_events *ev, struct wr_refusal *why);

/* The same from commander k of side (waterloo_teams.h; 0 = the
 * commander-in-chief, the only one in a game of one commander a side, so
 * wl_game_apply() is wl_game_apply_by(..., 0, ...)). In a team game the
 * command is first checked against the authority table (waterloo_turn.c):
 * not_your_command, commander_out. */
enum wl_reason wl_game_apply_by(struct wl_game *g, int side, int k, const struct wl_cmd *cmd,
                                struct wl_events *ev, struct wr_refusal *why);

/* May commander k of side take back a move now (the undo command)? The
 * checks of the undo command, in order:
 *   1) the game allows it (option undo; undo_off);
 *   2) a movement phase of side is awaited and k has not ended it
 *      (nothing_to_undo);
 *   3) the side's last move of this phase was k's (nothing_to_undo); in a
 *      game made from a state (struct wl_undo, known = 0), one of k's
 *      units has moved this phase.
 * Returns WL_R_OK or the reason with why (may be NULL) filled. Pure: the
 * presentation asks it before offering "undo". */
enum wl_reason wl_undo_check(const struct wl_game *g, int side, int k, struct wr_refusal *why);

/* Parse then apply, with events as a JSON array (new reference in *events
 * on success, NULL on refusal). */
enum wl_reason wl_game_apply_json(struct wl_game *g, int side, const struct json_t *cmd,
                                  struct json_t **events, struct wr_refusal *why);
enum wl_reason wl_game_apply_json_by(struct wl_game *g, int side, int k,
                                     const struct json_t *cmd, struct json_t **events,
                                     struct wr_refusal *why);

/* The state as JSON (new reference): units keyed by id with "at", turn,
 * date, time, phase, awaiting {seat, what}, battles, winner, dice, and
 * "undo": false in a game that allows no undo (nothing when it does). It
 * does not hold the moves an undo would take back (struct wl_undo). */
struct json_t *wl_game_state_json(const struct wl_game *g);

/* What a state shows of a game's units and commanders, kept to tell what
 * a command changed (wl_game_state_update): a copy of the units and of
 * cmdr_out, nothing borrowed. The caller's memory (4 KB). */
struct wl_shown {
    struct wl_unit units[WL_MAX_UNITS];
    uint8_t cmdr_out[WL_NSIDES][WL_MAX_COMMANDERS];
};

/* Fill s from g as it stands now (the units of its scenario). */
void wl_shown_take(const struct wl_game *g, struct wl_shown *s);

/* Bring state, a wl_game_state_json of g as it stood when before was
 * taken (members of state that wl_game_state_json never writes are left
 * alone), up to date with g, in place: the members other than "units" are
 * built afresh and put in where they changed; of the units, those whose
 * fields differ from before (all, in a team game, when a commander went
 * out since). Returns a new reference to the patch that does it, the same
 * as wr_jsonpatch_diff() of the old and new states (jsonpatch.h); NULL
 * when memory runs out or state has no "units" object, state then
 * unchanged. Both g and before are borrowed; the values put in state are
 * new and its own. ruleset.h's update_view for Waterloo. */
struct json_t *wl_game_state_update(const struct wl_game *g, const struct wl_shown *before,
                                    struct json_t *state);

/* Fill g from a state of wl_game_state_json (borrowed) for scenario sc
 * (borrowed; must outlive g): units (at, moved, battle, retreat, engaged), turn,
 * phase, awaiting (with the defection factors), battles (units, odds,
 * column, state, die, result), current battle, exited factors, winner and
 * result, and the dice (rolls; the seed once revealed, with game_id, which
 * may be NULL, as the game id of its rolls). What the state does not carry
 * is left at its start value: the squares the defenders of a battle vacated
 * and the units that advanced (so an advance cannot be judged on such a
 * game), and the seed while it is secret (such a game cannot roll; a
 * caller that only checks orders may supply roll_source). The state must
 * name sc, know every unit of it and no other, and give a game that passes
 * wl_game_check(). Returns 0, or -1 with why (may be NULL) naming the
 * field at fault; g is then unusable.
 * The moves of the phase are not in a state: such a game judges an undo
 * (wl_undo_check) but refuses to apply one (bad_command).
 * Round trip: wl_game_state_json(g) equals state, except that without the
 * seed the dice commitment is missing. */
int wl_game_init_from_state(struct wl_game *g, const struct wl_scenario *sc,
                            const struct json_t *state, const char *game_id,
                            struct wr_refusal *why);

/* A whole game saved (ruleset.h, version 5; new reference):
 *   {"format": 1, "state": wl_game_state_json(g), "more": {...}}
 * where "more" holds what a state does not: "declared" (battles declared
 * this combat phase), "undo" {"known", "moves": [commander of move 1, ...]},
 * "units" {id: {"advanced", "undo": [move, square or null, where]}} for
 * the units with any, "vacated" [[squares] per battle]. It does not hold
 * the seed: a restore is given it. */
struct json_t *wl_game_save_json(const struct wl_game *g);

/* Fill g (a game made by wl_game_init_with for the same scenario, options,
 * id and seed: it keeps those and its roll source) from saved, a JSON of
 * wl_game_save_json (borrowed): the state by wl_game_init_from_state,
 * which must name g's options, then "more", each value checked (squares on
 * the board, moves and commanders in range), then wl_game_check(). Returns
 * 0, or -1 with why (bad_command) naming what is wrong; g is then
 * unusable. */
int wl_game_restore_json(struct wl_game *g, const struct json_t *saved, struct wr_refusal *why);

/* One event as JSON (new reference). */
struct json_t *wl_event_json(const struct wl_game *g, const struct wl_event *e);

/* Name of the awaited thing ("move", "retreat", ...) and of a command type. */
const char *wl_await_name(int what);
const char *wl_cmd_name(int type);
/* The same in a player's words (waterloo_tables.c), for refusals: a
 * command as an act ("ending the phase"), a decision as what the awaited
 * side is to do ("declare their battles", after "the game waits for the
 * French to"), a side as "the French" / "the Allies". Static strings. */
const char *wl_cmd_words(int type);
const char *wl_await_words(int what);
const char *wl_side_words(int side);
/* The other way (waterloo_tables.c): the command type / awaited decision
 * called name, or -1 (name may be NULL). */
int wl_cmd_type(const char *name);
int wl_await_from_name(const char *name);

#endif
