/*
 * waterloo_combat.h - battles: odds, terrain on defence, checking a declaration,
 * retreats, exchanges and advances. Pure functions of the game state;
 * only waterloo_turn.c rolls the die and changes the state.
 */
#ifndef WL_COMBAT_H
#define WL_COMBAT_H

#include "waterloo_game.h"

/* CRT column for attack against defence, rounded in the defender's favour:
 * 0 (1-6) .. 10 (6-1); -1 when worse than 1-6 (automatic A-Elim); better
 * than 6-1 counts as 6-1. defence 0 (only HQ units) gives 10. */
int wl_combat_column(int attack, int defence);

/* The defence factor of unit def against the attackers att[]: its printed
 * factor, doubled or not by the defence table and its two footnotes:
 *   a) attackers on non-river squares: basic
 *   b) defender not on a river square, every attacker on a river square: doubles
 *   c) river and non-river attackers mixed: basic
 *   d) defender on a river square attacked from river squares: basic
 *   e) defender on a hill top attacked from hill tops: basic (doubles when
 *      a river runs through the attacker's hill top: footnote **)
 *   f) defender on a hill top attacked only from slope squares whose high
 *      side faces it: doubles (no further increase for a river: footnote *)
 * HQ units defend with 0. */
int wl_combat_defence_factor(const struct wl_game *g, int def, const int16_t *att, int natt);

/* Fill b->attack, b->defence and b->column from its units. */
void wl_combat_odds(const struct wl_game *g, struct wl_battle *b);

/* Check a whole declaration by the side in its combat phase:
 *   1) attackers are the mover's combat units on the board (HQ cannot attack),
 *      defenders are enemy units on the board
 *   2) every battle has attackers and defenders
 *   3) every attacker is adjacent to (in the zone of) every defender of its battle
 *   4) no unit in more than one battle
 *   5) every mover's combat unit in an enemy zone attacks
 *   6) every enemy combat unit with a mover's combat unit in its zone is attacked
 * Stacks may be split across battles; soak-offs are allowed. */
enum wl_reason wl_combat_check_declaration(const struct wl_game *g, const struct wl_battle *b,
                                           int nb, struct wr_refusal *why);

/* Is u a combat unit on the board next to an enemy combat unit (in its
 * zone)? Marked at the start of a combat phase as units[u].engaged. */
int wl_combat_engaged(const struct wl_game *g, int u);

/* Does engaged unit u still owe a battle (on the board, in none yet)? */
int wl_combat_owes(const struct wl_game *g, int u);

/* Rules 2: check a declaration of nb more battles in the combat phase:
 *   1) to 3) of wl_combat_check_declaration()
 *   4) no unit in more than one battle, counting the battles declared
 *      earlier in the phase
 *   5) no stranding: after it, every engaged unit that still owes a battle
 *      has an engaged enemy unit next to it that still owes one too (so the
 *      rest of the obligations can always be met: docs/rules-notes.md)
 * nb = 0 is accepted (the turn machine reads it as end_phase). */
enum wl_reason wl_combat_check_battles(const struct wl_game *g, const struct wl_battle *b,
                                       int nb, struct wr_refusal *why);

/* Rules 2, end of the combat phase: every engaged unit has fought (must_attack
 * for the mover's, must_be_attacked for the enemy's, naming the unit).
 * Returns WL_R_OK or the refusal. */
enum wl_reason wl_combat_check_obligations(const struct wl_game *g, struct wr_refusal *why);

/* Rules 2: can the mover still declare a battle: one of its combat units
 * that has not fought next to an enemy unit (HQ units too) that has not? */
int wl_combat_can_declare(const struct wl_game *g);

enum wl_retreat_outcome {
    WL_RET_SAFE,            /* ends on the board, unhurt */
    WL_RET_EXIT,            /* French unit leaves by the road at A-39/A-45 (defections) */
    WL_RET_ELIMINATED       /* into a zone, off the board, onto/across a river,
                             * into a first woods square off the road, over-stacked */
};

/* Classify a two-square retreat path for losing unit u (path[1] may be
 * WL_PATH_OFF). Returns WL_R_OK with *outcome set, or a refusal when the
 * path is not a retreat at all (not two adjacent steps, through an enemy
 * square, not ending two squares away). */
enum wl_reason wl_combat_retreat_outcome(const struct wl_game *g, int u, const wl_sq *path,
                                         int n, int *outcome, struct wr_refusal *why);

/* Count the retreat paths of u that are not eliminating (SAFE or EXIT); the
 * first up to max are stored in paths (2 squares each). */
int wl_combat_open_retreats(const struct wl_game *g, int u, wl_sq (*paths)[2], int max);

/* May unit u (an attacker of b that survived) advance onto square to, one
 * of the squares b's defenders vacated? Attackers from a river square may
 * take any vacated square they attacked; attackers from a slope square may
 * take a vacated hill-top square (the defeated unit was on top of the hill).
 * Zones of control do not matter; stacking does. */
enum wl_reason wl_combat_check_advance(const struct wl_game *g, const struct wl_battle *b,
                                       int u, wl_sq to, struct wr_refusal *why);

#endif
