/*
 * waterloo_present.h - what a client shows of a Waterloo game and reads
 * from its player: the ruleset's presentation (core/present.h), which
 * wr_ruleset_waterloo's `present` points to.
 *
 * A view holds the game's scenario (loaded by open(), a "base" resolved
 * through the host), the last state the server sent and the game rebuilt
 * from it with the rules library (wl_game_init_from_state), so that it
 * describes the decision awaited (the units that must attack, the factors
 * owed, ...), checks an order with the same code the server referees with,
 * answers the queries `reach` (where a unit can go; the squares are marked
 * on the next text picture), `odds` (the combat odds of an attack), `view`
 * and `clear` (what the text picture is centred on, and its marks), and
 * draws the board (waterloo_draw.h) as terminal text or SVG.
 *
 * Lifetimes, beyond present.h's: a view owns the scenario it loaded and
 * copies of the options and of the last state; it uses the host only
 * during open() (to find a base scenario). The squares a reach query
 * marks and the centre `view` chose belong to the view, not to the game:
 * the marks go with the next state, the centre stays until `view` alone.
 * A seat that is neither "french" nor "allied" watches, as a spectator.
 *
 * Short orders (the orders table lists them with a synopsis and an
 * example; the command types' own names are accepted as well):
 *   place UNIT SQUARE              {"type":"place","unit":U,"at":SQ}
 *   endsetup                       {"type":"end_setup"}
 *   move UNIT[,UNIT...] SQUARE...  {"type":"move","unit":U,"path":[SQ...]}
 *                                  ("units" for several; the last square
 *                                  may be "off")
 *   end                            {"type":"end_phase"}, or end_setup while
 *                                  the set-up is awaited
 *   attack A... vs D... [; A... vs D...]
 *   declare A[,A...]:D[,D...] ...  {"type":"declare","battles":[{"attackers":
 *                                  [A...],"defenders":[D...]},...]}
 *   resolve [N]                    {"type":"resolve","battle":N}; without N
 *                                  the first battle still declared
 *   retreat UNIT SQUARE SQUARE     {"type":"retreat","unit":U,"path":[SQ,SQ]}
 *   exchange UNIT...               {"type":"exchange_losses","units":[U...]}
 *   advance UNIT SQUARE            {"type":"advance","unit":U,"to":SQ}
 *   noadvance                      {"type":"no_advance"}
 *   defect UNIT...                 {"type":"defect","units":[U...]}
 * Squares are written in capitals ("j-40" becomes "J-40"); unit ids are
 * kept as typed: whether an order is legal is for the rules to say
 * (precheck()), an order only gives the command its shape.
 */
#ifndef WL_PRESENT_H
#define WL_PRESENT_H

#include "present.h"

extern const struct wr_present wr_present_waterloo;

#endif
