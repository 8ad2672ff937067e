/*
 * waterloo_suggest.h - "did you mean": the unit ids and square names
 * nearest a mistyped one, in the refusals that name what is not there
 * (unknown_unit, bad_square). Pure and deterministic, so the server's
 * sentence and a client's check of the same command are the same.
 *
 * Nearness is the edit distance (a letter added, dropped, changed, or two
 * neighbours swapped count one each; case ignored), at most 1 for a
 * square and for a unit id of 4 characters or fewer, 2 for a longer id;
 * only the nearest are named, at most WL_SUGGEST_MAX: for units those of
 * the side preferred first, then in the scenario's order; squares in the
 * board's order.
 */
#ifndef WL_SUGGEST_H
#define WL_SUGGEST_H

#include "waterloo_reason.h"
#include "waterloo_scenario.h"

#define WL_SUGGEST_MAX 3

/* Refuse id (borrowed) as unknown_unit: "no unit fr-jerom: did you mean
 * fr-jerome?", or "no unit fr-zz in this scenario" when none is near;
 * side is the side whose units come first (-1: none). Returns
 * WL_R_UNKNOWN_UNIT. */
enum wl_reason wl_refuse_unknown_unit(struct wr_refusal *why, const struct wl_scenario *sc,
                                      int side, const char *id);

/* Refuse text (borrowed) as bad_square: "'J-4O' is not a square of the
 * board: did you mean J-40?" (the squares on the board). Returns
 * WL_R_BAD_SQUARE. */
enum wl_reason wl_refuse_bad_square(struct wr_refusal *why, const char *text);

/* The edit distance of a and b as above (exposed for tests); a and b are
 * at most 63 characters (longer ones are compared by their first 63). */
int wl_suggest_distance(const char *a, const char *b);

#endif
