/*
 * wl_testdata.h - the names in the Waterloo unit tests' tables: a square
 * ("J-40"), a unit id ("fr-jerome"). A name that is not the game's fails
 * the test at once ("test data: ..."): a typo in a table never passes for
 * a rule's answer. Linked into every test of tests/unit/waterloo/.
 */
#ifndef WL_TESTDATA_H
#define WL_TESTDATA_H

#include "waterloo_grid.h"
#include "waterloo_scenario.h"

/* The square called name; also "off" (WL_PATH_OFF, the off-board start of
 * an entry path) and "none" (WL_SQ_NONE). */
wl_sq wlt_sq(const char *name);

/* The index in sc of the unit with that id; "#N" is index N itself. */
int wlt_unit(const struct wl_scenario *sc, const char *id);

#endif
