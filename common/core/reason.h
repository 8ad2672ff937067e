/*
 * reason.h - why a command was refused: one table of stable reason codes.
 *
 * A rule check returns a reason, not a bool. The code (e.g. "zoc_reenter")
 * is stable and goes on the wire; the sentence is written for a person and
 * names the rule and the units involved (struct wr_refusal).
 */
#ifndef WR_REASON_H
#define WR_REASON_H

#include <stdarg.h>

#define WR_REASON_MAP(X)                                                              \
    X(OK, "ok", "accepted")                                                           \
    /* command shape and turn order */                                                \
    X(BAD_COMMAND, "bad_command", "the command is not understood")                    \
    X(BAD_SCENARIO, "bad_scenario", "the scenario is not valid")                      \
    X(NOT_YOUR_TURN, "not_your_turn", "another seat is awaited")                      \
    X(WRONG_PHASE, "wrong_phase", "that command is not allowed in this phase")        \
    X(GAME_OVER, "game_over", "the game is over")                                     \
    X(UNKNOWN_UNIT, "unknown_unit", "no such unit")                                   \
    X(NOT_YOUR_UNIT, "not_your_unit", "that unit belongs to the other side")          \
    X(UNIT_NOT_ON_BOARD, "unit_not_on_board", "that unit is not on the board")        \
    X(BAD_SQUARE, "bad_square", "not a square of the board")                          \
    /* set-up */                                                                      \
    X(OUTSIDE_SETUP_ZONE, "outside_setup_zone", "outside the side's set-up zone")     \
    /* movement */                                                                    \
    X(ALREADY_MOVED, "already_moved", "the unit has already moved this phase")        \
    X(NOT_ADJACENT, "not_adjacent", "each square of a path must touch the previous")  \
    X(NOT_PLAYABLE, "not_playable", "only squares showing all six sides are playable")\
    X(ENEMY_SQUARE, "enemy_square", "a unit may not enter a square held by the enemy")\
    X(TOO_FAR, "too_far", "the path is longer than the unit's movement allows")       \
    X(ZOC_STOP, "zoc_stop", "a unit must stop on entering an enemy zone of control")  \
    X(ZOC_TO_ZOC, "zoc_to_zoc", "a unit may not move from one enemy zone to another") \
    X(ZOC_REENTER, "zoc_reenter", "a unit may not re-enter a zone it left this turn") \
    X(ZOC_SAME_UNIT, "zoc_same_unit",                                                 \
      "a unit starting in an enemy zone may not move to another square of it")        \
    X(RIVER_STOP, "river_stop", "a unit must stop on entering a river square")        \
    X(WOODS_STOP, "woods_stop", "a unit must stop on entering a woods square")        \
    X(ROAD_WOODS_EXIT, "road_woods_exit",                                             \
      "a unit travelling by road leaves a road-woods square only along the road")     \
    X(STACKING, "stacking", "more than 15 combat factors would end on one square")    \
    X(EXIT_NOT_ALLOWED, "exit_not_allowed",                                           \
      "French units leave the board only through A-39 to A-45")                       \
    X(NOT_ARRIVED, "not_arrived", "the unit is not due to arrive yet")                \
    X(ENTRY_BLOCKED, "entry_blocked", "that entry is blocked by an enemy zone")       \
    X(BAD_ENTRY, "bad_entry", "a reinforcement enters from its entry square")         \
    /* combat */                                                                      \
    X(MUST_ATTACK, "must_attack", "every unit in an enemy zone must attack")          \
    X(MUST_BE_ATTACKED, "must_be_attacked",                                           \
      "every enemy unit with an attacker in its zone must be attacked")               \
    X(NOT_IN_ZONE, "not_in_zone", "an attacker must be in the zone of every defender")\
    X(ONE_BATTLE, "one_battle", "no unit may fight more than one battle per turn")    \
    X(HQ_CANNOT_ATTACK, "hq_cannot_attack", "HQ units are not allowed to attack")     \
    X(EMPTY_BATTLE, "empty_battle", "a battle needs attackers and defenders")         \
    X(NO_SUCH_BATTLE, "no_such_battle", "there is no such battle")                    \
    X(BATTLE_DONE, "battle_done", "that battle is already resolved")                  \
    X(BAD_RETREAT, "bad_retreat", "a retreat is two squares, square by square")       \
    X(RETREAT_AVOIDABLE, "retreat_avoidable",                                         \
      "the winner may not force a loser into a blocked square while an open route exists") \
    X(NOT_LOSING, "not_losing", "that unit has no retreat or loss to take")           \
    X(EXCHANGE_SHORT, "exchange_short",                                               \
      "the units chosen do not reach the printed total the exchange demands")         \
    X(DEFECTION_SHORT, "defection_short",                                             \
      "the units chosen do not reach twice the factors of the French units that left")\
    X(NO_ADVANCE, "no_advance", "that unit may not advance after this battle")        \
    /* game options (any ruleset) */                                                  \
    X(BAD_OPTIONS, "bad_options", "the game's options are not valid")                 \
    /* the map campaign */                                                            \
    X(UNKNOWN_TOWN, "unknown_town", "there is no town of that name on the map")       \
    X(TOWN_TAKEN, "town_taken", "that town has already been chosen")                  \
    X(DRAFT_NOT_ADJACENT, "draft_not_adjacent",                                       \
      "a free town adjacent to one of yours must be chosen while there is one")       \
    X(NOT_ENEMY_TOWN, "not_enemy_town",                                               \
      "the target must be a town of a player who is not your ally")                   \
    X(TARGET_NOT_ADJACENT, "target_not_adjacent",                                     \
      "the target must be adjacent to one of your towns")                             \
    X(NOT_ATTACKERS_TOWN, "not_attackers_town", "the town must be one of the attacker's") \
    X(COUNTER_NOT_ADJACENT, "counter_not_adjacent",                                   \
      "the attacker's town must be adjacent to the target while one is")              \
    X(ALREADY_CHOSEN, "already_chosen", "this side's choice is already in")           \
    X(SAME_TACTIC, "same_tactic",                                                     \
      "after no battle each side must choose a tactic other than its last")           \
    X(COMMITMENT_MISMATCH, "commitment_mismatch",                                     \
      "the choice and salt do not hash to the commitment")                            \
    X(NO_AMBUSH, "no_ambush", "that side has no hidden ambush force to write or reveal") \
    X(AMBUSH_SEALED, "ambush_sealed", "the ambush note is already written")           \
    X(AMBUSH_NOTE_MISSING, "ambush_note_missing",                                     \
      "the hidden ambush force must be written down before the battle is reported")   \
    X(NOT_DISPUTED, "not_disputed", "the reports agree: there is nothing to settle")

enum wr_reason {
#define WR_REASON_ENUM(id, code, text) WR_R_##id,
    WR_REASON_MAP(WR_REASON_ENUM)
#undef WR_REASON_ENUM
    WR_R_COUNT
};

#define WR_REFUSAL_MSG_MAX 256

/* A refusal: the stable code and a sentence for a person. */
struct wr_refusal {
    enum wr_reason reason;
    char message[WR_REFUSAL_MSG_MAX];
};

/* Stable wire code of a reason ("zoc_reenter"); "unknown" out of range. */
const char *wr_reason_code(enum wr_reason r);

/* The generic sentence of a reason (used when nothing more specific is said). */
const char *wr_reason_text(enum wr_reason r);

/* Fill why (may be NULL) with r and a printf-style sentence; returns r.
 * The sentence is always valid UTF-8 (it goes into JSON): quoted input cut
 * inside a character is repaired, invalid bytes become '?'. */
enum wr_reason wr_refuse(struct wr_refusal *why, enum wr_reason r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The same with a va_list. */
enum wr_reason wr_vrefuse(struct wr_refusal *why, enum wr_reason r, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/* Make text valid UTF-8 in place (for a message edited after wr_refuse). */
void wr_utf8_clean(char *text);

#endif
