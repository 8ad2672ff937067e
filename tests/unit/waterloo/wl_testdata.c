/*
 * wl_testdata.c - the names in the Waterloo unit tests' tables (wl_testdata.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "wl_testdata.h"

#include <stdlib.h>
#include <string.h>

#include "waterloo_move.h"

wl_sq wlt_sq(const char *name)
{
    wl_sq s = WL_SQ_NONE;
    if (strcmp(name, "off") == 0)
        return WL_PATH_OFF;
    if (strcmp(name, "none") == 0)
        return WL_SQ_NONE;
    if (wl_grid_parse(name, (size_t)-1, &s) != 0)
        fail_msg("test data: '%s' is not a square", name);
    return s;
}

int wlt_unit(const struct wl_scenario *sc, const char *id)
{
    if (id[0] == '#')
        return atoi(id + 1);
    int u = wl_scenario_find_unit(sc, id);
    if (u < 0)
        fail_msg("test data: no unit '%s'", id);
    return u;
}

int wlt_dice_roll(void *ctx, uint32_t k)
{
    struct wlt_dice *d = ctx;
    (void)k;
    return d->used < d->n && d->used < WLT_DICE_MAX ? d->faces[d->used++] : 0;
}
