/*
 * waterloo_teams.h - team play: more than one commander a side
 * (docs/rules-notes.md, "Team play", TP1-TP10).
 *
 * With the option commanders = n > 1 (rules 2 and later), each side has n
 * commanders, the HQs the scenario lists for n (struct wl_scenario's
 * commanders); commander 0 is the side's commander-in-chief. Each is a
 * seat, "<side>:<slug of his HQ's name>" ("french:ney"), in the order: the
 * French commander-in-chief, the French subordinates, the allied
 * commander-in-chief, the allied subordinates. With n = 1 the seats are
 * "french" and "allied" and nothing here changes a verdict.
 *
 * A unit is commanded by the commander the order of battle gives it
 * (wl_scenario_commander), or by his side's commander-in-chief once that
 * commander is out: a subordinate whose HQ is eliminated is out of the
 * game (event commander_out); the commander-in-chief is never out.
 *
 * Who may send what (the authority table is in waterloo_turn.c):
 *  - orders: place and move only the commander's own units;
 *  - declare: a declaration whose attackers are all one commander's is
 *    his; one naming the units of several commanders is the
 *    commander-in-chief's; resolve: the commander of the battle's
 *    attackers (several: the commander-in-chief);
 *  - decisions the rules give "the player" (wl_team_decider): the
 *    winner's retreat choice, the exchange losses, the advance, the
 *    defection removals, by the commander of the units concerned, the
 *    commander-in-chief when they are several commanders' (defections:
 *    always him);
 *  - end_setup / end_phase: each commander ends the phase for himself,
 *    the commander-in-chief for all (wl_team_end_phase).
 * Pure functions of the game; no state beyond struct wl_game.
 */
#ifndef WL_TEAMS_H
#define WL_TEAMS_H

#include "waterloo_game.h"

#define WL_SEAT_MAX 48          /* "allied:" and a WL_SLUG_MAX seat word */

/* Commanders a side in g (1 in the 2-player game). */
int wl_team_size(const struct wl_game *g);

/* The seat of commander k of side ("french" / "allied" when there is one
 * a side), written into buf (WL_SEAT_MAX bytes); returns buf. */
const char *wl_team_seat(const struct wl_game *g, int side, int k, char *buf);

/* The side and commander of a seat name: 0, or -1 when it is not a seat
 * of g. */
int wl_team_parse_seat(const struct wl_game *g, const char *seat, int *side, int *k);

/* The side a seat name is on, "french" or "french:<commander>" (the
 * commander not checked), or -1: for a view before it has a game. */
int wl_team_side_of_seat(const char *seat);

/* The HQ unit of commander k of side, or -1 (one commander a side: -1). */
int wl_team_hq(const struct wl_game *g, int side, int k);

/* The commander of unit i now: the order of battle's, or the
 * commander-in-chief (0) when that one is out. */
int wl_team_commander(const struct wl_game *g, int i);

/* The one commander of units u[0..n) (each unit's wl_team_commander), or
 * 0, the commander-in-chief, when they are several commanders' or none. */
int wl_team_owner(const struct wl_game *g, const int16_t *u, int n);

/* The commanders of g->await_side who may act on what g awaits: sets
 * mine[k] (WL_MAX_COMMANDERS entries) and returns how many. Set-up and
 * movement: every commander not out who has not ended the phase; combat
 * and defection: the decider (see above). 0 when the game is over. */
int wl_team_awaited(const struct wl_game *g, uint8_t *mine);

/* Commander k of side ends the current set-up or movement phase: returns
 * 1 when the phase is over for the side (k is the commander-in-chief, or
 * every commander not out has ended it), else 0 (k's end is recorded).
 * The one place any end_setup / end_phase goes through. */
int wl_team_end_phase(struct wl_game *g, int side, int k);

/* Unit i has just left the game (eliminated, defected): when it is the HQ
 * of a subordinate commander still in, he is out from now on and his
 * index (> 0) is returned, for the caller's commander_out event; else 0.
 * The commander-in-chief is never out: he commands on without his HQ. */
int wl_team_unit_lost(struct wl_game *g, int i);

#endif
