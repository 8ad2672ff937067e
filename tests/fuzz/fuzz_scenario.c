/*
 * fuzz_scenario.c - libFuzzer target for the scenario loader: any bytes are
 * parsed as JSON and, when they parse, loaded as a scenario (no resolver,
 * so a "base" is an error). Loading either fails with a message or yields a
 * scenario whose contents respect the documented bounds; anything else
 * aborts.
 */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "waterloo_scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The bounds a loaded scenario promises to rule code. */
static void check(const struct wl_scenario *sc)
{
    const struct wl_map *m = &sc->map;
    if (sc->nunits < 0 || sc->nunits > WL_MAX_UNITS || sc->nturns < 1 ||
        sc->nturns > WL_MAX_TURNS || m->nroads > WL_MAX_ROADS || m->nrivers > WL_MAX_RIVERS ||
        m->ntowns > WL_MAX_TOWNS || m->nentries > WL_MAX_ENTRIES)
        abort();
    if (sc->start_turn < 1 || sc->start_turn > sc->nturns || sc->start_phase < 0 ||
        sc->start_phase >= WL_NPHASES || memchr(sc->name, '\0', sizeof sc->name) == NULL)
        abort();
    for (int r = 0; r < WL_CRT_ROWS; r++)
        for (int c = 0; c < WL_CRT_COLS; c++)
            if (sc->crt[r][c] > WL_EX)
                abort();
    for (int i = 0; i < sc->nunits; i++) {
        const struct wl_unit_def *d = &sc->units[i];
        if (d->combat > WL_STACK_LIMIT || d->move < 1 || d->move > 12 ||
            (d->type == WL_HQ) != (d->combat == 0) || d->side >= WL_NSIDES)
            abort();
        if (d->setup != WL_SQ_NONE) {
            if (!wl_grid_playable(d->setup) || !sc->zone[d->side][d->setup] ||
                d->nation >= WL_NNATIONS || !sc->nation_zone[d->nation][d->setup] ||
                d->arrive_turn != 0 || d->entry != -1)
                abort();
        } else if (d->arrive_turn < 1 || d->arrive_turn > sc->nturns || d->entry < 0 ||
                   d->entry >= m->nentries || d->side != WL_ALLIED) {
            abort();
        }
        if (wl_scenario_find_unit(sc, d->id) != i)
            abort();
    }
    /* The side's zone holds its nations' zones (docs/scenario-format.md). */
    for (int s = 0; s < WL_NSQ; s++)
        if (sc->nation_zone[WL_NATION_FRENCH][s] != sc->zone[WL_FRENCH][s] ||
            (sc->nation_zone[WL_NATION_PRUSSIAN][s] && !sc->zone[WL_ALLIED][s]) ||
            (sc->nation_zone[WL_NATION_ANGLO_ALLIED][s] && !sc->zone[WL_ALLIED][s]))
            abort();
    for (int s = 0; s < WL_NSQ; s++) {
        const struct wl_cell *c = &m->cell[s];
        if (c->river > m->nrivers || c->town >= m->ntowns || c->entry >= m->nentries)
            abort();
        for (int d = 0; d < WL_NDIR; d++) {
            if (c->road[d] > m->nroads)
                abort();
            /* A road leaves through a hexside and enters the neighbour
             * through the opposite one. */
            if (c->road[d]) {
                wl_sq n = wl_grid_neighbour((wl_sq)s, d);
                if (n == WL_SQ_NONE || m->cell[n].road[wl_dir_opposite(d)] != c->road[d])
                    abort();
            }
        }
    }
    for (int e = 0; e < m->nentries; e++)
        if (!wl_grid_partial(m->entries[e].at))
            abort();
    /* The order of battle: trees (a parent listed earlier, of the same
     * side), HQs of the side, units in formations of their side; each
     * commander of team play commands his own HQ. */
    if (sc->nformations < 0 || sc->nformations > WL_MAX_FORMATIONS ||
        sc->most_commanders < 1 || sc->most_commanders > WL_MAX_COMMANDERS)
        abort();
    for (int f = 0; f < sc->nformations; f++) {
        const struct wl_formation *fm = &sc->formations[f];
        if (fm->side >= WL_NSIDES || fm->parent >= f || fm->parent < -1 ||
            (fm->parent >= 0 && sc->formations[fm->parent].side != fm->side) ||
            fm->hq < -1 || fm->hq >= sc->nunits ||
            (fm->hq >= 0 && (sc->units[fm->hq].type != WL_HQ ||
                             sc->units[fm->hq].side != fm->side)))
            abort();
    }
    for (int i = 0; i < sc->nunits; i++) {
        int f = sc->units[i].formation;
        if (f < -1 || f >= sc->nformations ||
            (f >= 0 && sc->formations[f].side != sc->units[i].side))
            abort();
    }
    for (int n = 2; n <= sc->most_commanders; n++)
        for (int side = 0; side < WL_NSIDES; side++)
            for (int k = 0; k < n; k++) {
                int hq = sc->commanders[n - 2][side][k];
                if (hq < 0 || hq >= sc->nunits || sc->units[hq].type != WL_HQ ||
                    sc->units[hq].side != side || wl_scenario_commander(sc, n, hq) != k)
                    abort();
            }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_error_t err;
    json_t *json = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &err);
    if (json == NULL)
        return 0;
    struct wl_scenario *sc = malloc(sizeof *sc);
    struct wr_refusal why;
    if (sc == NULL)
        abort();
    memset(&why, 0, sizeof why);
    if (wl_scenario_load(sc, json, NULL, NULL, &why) == 0)
        check(sc);
    else if (why.reason != WL_R_BAD_SCENARIO || why.message[0] == '\0' ||
             memchr(why.message, '\0', sizeof why.message) == NULL)
        abort();
    else {
        /* The message must fit in a JSON string: valid UTF-8. */
        json_t *s = json_string(why.message);
        if (s == NULL)
            abort();
        json_decref(s);
    }
    free(sc);
    json_decref(json);
    return 0;
}
