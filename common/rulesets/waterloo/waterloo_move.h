/*
 * waterloo_move.h - movement: where a unit may go this phase, and whether a path
 * it was given is legal. One step function serves both, so the squares
 * shown to a player and the paths the referee accepts can never disagree.
 *
 * A path lists the squares entered, in order (not the start square). The
 * last element may be WL_PATH_OFF: the unit leaves the board (French units,
 * only from the exit squares A-39..A-45, at the cost of one movement point).
 * A reinforcement (unit WL_PENDING, due this turn or earlier) starts on the
 * partial entry square: its path begins with that entry square (its own
 * entry, or when that is blocked by an enemy zone the next unblocked entry
 * clockwise), which costs nothing; the first playable square costs one.
 *
 * Rules implemented (numbered as checked in the step function):
 *   1) each square touches the previous one and is playable (entries aside)
 *   2) no enemy-held square; friendly units are passed through freely.
 *      Under rules 2 a square of enemy HQ units alone is not held against
 *      a stack with combat factors (wl_hq_blocks): it may pass or end
 *      there, and the HQ units are eliminated (waterloo_turn.c)
 *   3) movement factor, plus 4 squares of primary-road bonus: only through
 *      road hexsides, on one road per turn, never resumed after leaving the
 *      road once part of it is used, usable at any point of the move; no
 *      bonus on secondary roads
 *   4) rivers: stop on entering a river square unless moving along the same
 *      river; a different river stops again; no stop when entered through a
 *      road hexside (a bridge)
 *   5) woods: stop on entering (unless through a road hexside); one square
 *      per turn inside; leave at the normal rate; woods along rivers too
 *   6) road-woods: a unit travelling by road leaves a road-woods square only
 *      through a road hexside; a unit starting on one may step off through a
 *      non-road hexside only before moving along the road
 *   7) zones of control (all six neighbours of every enemy combat unit; HQ
 *      units have none): stop on entering; no zone-to-zone step; no
 *      re-entering the zone of a unit whose zone the path has left; a unit
 *      starting in a unit's zone may not move to another square of it
 *   8) stacking: at most 15 combat factors on the final square
 *   9) French exit only from A-39..A-45 (map cells marked exit)
 */
#ifndef WL_MOVE_H
#define WL_MOVE_H

#include "waterloo_game.h"

#define WL_PATH_MAX 24
#define WL_PATH_OFF ((wl_sq)-2)

/* Squares a unit (or a stack moving together) can end on, each with one
 * legal path. Caller-owned; fill with wl_move_reach(). */
struct wl_reach {
    int n;                              /* reachable end squares */
    wl_sq end[WL_NSQ];                  /* the squares (WL_PATH_OFF: may leave) */
    uint8_t path_len[WL_NSQ];
    wl_sq path[WL_NSQ][WL_PATH_MAX];    /* a legal path to end[i] */
};

/* Check moving units[0..nunits-1] (one stack, moved together: all on the
 * same square, the slowest sets the pace) along path[0..n-1] in the current
 * phase. Does not check the phase or whose turn it is (waterloo_turn.c does); does
 * check ownership by the side to move, "already moved", arrival turn. */
enum wl_reason wl_move_check(const struct wl_game *g, const int *units, int nunits,
                             const wl_sq *path, int n, struct wr_refusal *why);

/* Every square the units can legally end on (the start square excluded). */
enum wl_reason wl_move_reach(const struct wl_game *g, const int *units, int nunits,
                             struct wl_reach *out, struct wr_refusal *why);

/* For a reinforcement: the entry it must use now (its own, or the next
 * unblocked clockwise), or -1 when every entry is blocked. */
int wl_move_entry_for(const struct wl_game *g, int unit);

#endif
