/*
 * waterloo_reason.h - why Waterloo refuses a command: its reason table
 * (core/reason.h explains the scheme). The wire codes are those the
 * protocol has always sent.
 */
#ifndef WL_REASON_H
#define WL_REASON_H

#include "reason.h"

#define WL_REASON_MAP(X) \
    X(UNKNOWN_UNIT, "unknown_unit", "no such unit") \
    X(NOT_YOUR_UNIT, "not_your_unit", "that unit belongs to the other side") \
    X(UNIT_NOT_ON_BOARD, "unit_not_on_board", "that unit is not on the board") \
    X(BAD_SQUARE, "bad_square", "not a square of the board") \
    X(OUTSIDE_SETUP_ZONE, "outside_setup_zone", "outside the side's set-up zone") \
    X(ALREADY_MOVED, "already_moved", "the unit has already moved this phase") \
    X(NOT_ADJACENT, "not_adjacent", "each square of a path must touch the previous") \
    X(NOT_PLAYABLE, "not_playable", "only squares showing all six sides are playable") \
    X(ENEMY_SQUARE, "enemy_square", "a unit may not enter a square held by the enemy") \
    X(TOO_FAR, "too_far", "the path is longer than the unit's movement allows") \
    X(ZOC_STOP, "zoc_stop", "a unit must stop on entering an enemy zone of control") \
    X(ZOC_TO_ZOC, "zoc_to_zoc", "a unit may not move from one enemy zone to another") \
    X(ZOC_REENTER, "zoc_reenter", "a unit may not re-enter a zone it left this turn") \
    X(ZOC_SAME_UNIT, "zoc_same_unit", \
      "a unit starting in an enemy zone may not move to another square of it") \
    X(RIVER_STOP, "river_stop", "a unit must stop on entering a river square") \
    X(WOODS_STOP, "woods_stop", "a unit must stop on entering a woods square") \
    X(ROAD_WOODS_EXIT, "road_woods_exit", \
      "a unit travelling by road leaves a road-woods square only along the road") \
    X(STACKING, "stacking", "more than 15 combat factors would end on one square") \
    X(EXIT_NOT_ALLOWED, "exit_not_allowed", \
      "French units leave the board only through A-39 to A-45") \
    X(NOT_ARRIVED, "not_arrived", "the unit is not due to arrive yet") \
    X(ENTRY_BLOCKED, "entry_blocked", "that entry is blocked by an enemy zone") \
    X(BAD_ENTRY, "bad_entry", "a reinforcement enters from its entry square") \
    X(MUST_ATTACK, "must_attack", "every unit in an enemy zone must attack") \
    X(MUST_BE_ATTACKED, "must_be_attacked", \
      "every enemy unit with an attacker in its zone must be attacked") \
    X(NOT_IN_ZONE, "not_in_zone", "an attacker must be in the zone of every defender") \
    X(ONE_BATTLE, "one_battle", "no unit may fight more than one battle per turn") \
    X(HQ_CANNOT_ATTACK, "hq_cannot_attack", "HQ units are not allowed to attack") \
    X(EMPTY_BATTLE, "empty_battle", "a battle needs attackers and defenders") \
    X(NO_SUCH_BATTLE, "no_such_battle", "there is no such battle") \
    X(BATTLE_DONE, "battle_done", "that battle is already resolved") \
    X(BAD_RETREAT, "bad_retreat", "a retreat is two squares, square by square") \
    X(RETREAT_AVOIDABLE, "retreat_avoidable", \
      "the winner may not force a loser into a blocked square while an open route exists") \
    X(NOT_LOSING, "not_losing", "that unit has no retreat or loss to take") \
    X(EXCHANGE_SHORT, "exchange_short", \
      "the units chosen do not reach the printed total the exchange demands") \
    X(DEFECTION_SHORT, "defection_short", \
      "the units chosen do not reach twice the factors of the French units that left") \
    X(NO_ADVANCE, "no_advance", "that unit may not advance after this battle") \
    X(STRANDED, "stranded", \
      "the battles would leave a unit that must fight with no enemy it can still fight") \
    X(BATTLE_OPEN, "battle_open", "a declared battle is not resolved yet") \
    X(NOT_YOUR_COMMAND, "not_your_command", "that unit is under another commander's command") \
    X(COMMANDER_OUT, "commander_out", \
      "that commander's HQ was eliminated: he is out of the game") \
    X(NOTHING_TO_UNDO, "nothing_to_undo", \
      "there is no move of yours to take back in this movement phase") \
    X(UNDO_OFF, "undo_off", "moves cannot be taken back in this game")

enum wl_reason {
#define WL_REASON_CORE(id, code, text) WL_R_##id = WR_R_##id,
    WR_CORE_REASONS(WL_REASON_CORE)
#undef WL_REASON_CORE
#define WL_REASON_OWN(id, code, text) WL_R_##id,
    WL_REASON_MAP(WL_REASON_OWN)
#undef WL_REASON_OWN
    WL_R_COUNT
};

extern const struct wr_reason_table wl_reasons;

/* Refuse with a Waterloo reason (core/reason.h's formatter); returns r. */
enum wl_reason wl_refuse(struct wr_refusal *why, enum wl_reason r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
enum wl_reason wl_vrefuse(struct wr_refusal *why, enum wl_reason r, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
const char *wl_reason_code(enum wl_reason r);
const char *wl_reason_text(enum wl_reason r);

#endif
