/*
 * wl_testdata.h - the names in the Waterloo unit tests' tables: a square
 * ("J-40"), a unit id ("fr-jerome"). A name that is not the game's fails
 * the test at once ("test data: ..."): a typo in a table never passes for
 * a rule's answer. Linked into every test of tests/unit/waterloo/.
 */
#ifndef WL_TESTDATA_H
#define WL_TESTDATA_H

#include <stdint.h>

#include "waterloo_grid.h"
#include "waterloo_scenario.h"

/* The square called name; also "off" (WL_PATH_OFF, the off-board start of
 * an entry path) and "none" (WL_SQ_NONE). */
wl_sq wlt_sq(const char *name);

/* The index in sc of the unit with that id; "#N" is index N itself. */
int wlt_unit(const struct wl_scenario *sc, const char *id);

/* Dice a test forces: the game's roll_source is wlt_dice_roll with
 * roll_ctx the struct; each roll takes the next face of faces[0..n), and
 * 0 (no die: the rules refuse the command) once they are used up. */
#define WLT_DICE_MAX 64
struct wlt_dice {
    int faces[WLT_DICE_MAX];
    int n, used;
};
int wlt_dice_roll(void *ctx, uint32_t k);

#endif
