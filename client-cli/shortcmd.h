/*
 * shortcmd.h - rules commands as people type them, turned into the JSON the
 * server reads. Used by `warroom do` and by the interactive prompt.
 *
 *   move U[,U...] SQ...         {"type":"move","unit":U,"path":[SQ...]}
 *                               (several units: "units"; the last square may
 *                               be "off" to leave the board)
 *   end | end_phase             {"type":"end_phase"}
 *   endsetup | end_setup        {"type":"end_setup"}
 *   place U SQ                  {"type":"place","unit":U,"at":SQ}
 *   declare A[,A]:D[,D] ...     {"type":"declare","battles":[{"attackers":[A..],
 *                                 "defenders":[D..]},...]}; no pairs: no battle
 *   attack A... vs D... [; A... vs D...]
 *                               the same declaration, written out
 *   resolve [N]                 {"type":"resolve","battle":N} (without N the
 *                               caller picks the next battle)
 *   retreat U SQ SQ             {"type":"retreat","unit":U,"path":[SQ,SQ]}
 *   advance U SQ                {"type":"advance","unit":U,"to":SQ}
 *   noadvance | no_advance      {"type":"no_advance"}
 *   exchange U...               {"type":"exchange_losses","units":[U...]}
 *   defect U...                 {"type":"defect","units":[U...]}
 *   mark N                      {"type":"mark","cell":N}  (tictactoe)
 *   {...}                       the JSON object itself
 *
 * Squares are written in capitals ("j-40" becomes "J-40"); unit ids are kept
 * as typed. Whether the command is legal is for the rules to say: this only
 * gives it its shape.
 */
#ifndef WRC_SHORTCMD_H
#define WRC_SHORTCMD_H

#include <stddef.h>

struct json_t;

/* The command for text (new reference; caller json_decref()s), or NULL
 * with a sentence in err (errlen bytes) naming what is wrong. */
struct json_t *wrc_shortcmd_parse(const char *text, char *err, size_t errlen);

/* The command words above, NULL-terminated (for completion and help). */
extern const char *const wrc_shortcmd_words[];

#endif
