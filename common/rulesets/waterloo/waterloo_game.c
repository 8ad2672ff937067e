/*
 * waterloo_game.c - the game value: start position, occupancy, zones of control and
 * the invariant check. The turn machine and commands are in waterloo_turn.c.
 */
#include "waterloo_game.h"

#include <stdio.h>
#include <string.h>

void wr_game_init(struct wr_game *g, const struct wr_scenario *sc, const char *game_id,
                  const uint8_t seed[32])
{
    memset(g, 0, sizeof *g);
    g->sc = sc;
    snprintf(g->id, sizeof g->id, "%s", game_id ? game_id : "");
    if (seed != NULL) {
        memcpy(g->seed, seed, 32);
        g->has_seed = 1;
    }
    for (int i = 0; i < sc->nunits; i++) {
        const struct wr_unit_def *d = &sc->units[i];
        struct wr_unit *u = &g->units[i];
        u->battle = -1;
        if (d->setup != WR_SQ_NONE) {
            u->at = d->setup;
            u->where = WR_ON_BOARD;
        } else {
            u->at = WR_SQ_NONE;
            u->where = WR_PENDING;
        }
    }
    g->turn = sc->start_turn > 0 ? sc->start_turn : 1;
    g->phase = sc->start_phase;
    g->current = -1;
    g->winner = -1;
    switch (g->phase) {
    case WR_PH_SETUP_FRENCH:
        g->await_side = WR_FRENCH;
        g->await_what = WR_AW_SETUP;
        break;
    case WR_PH_SETUP_ALLIED:
        g->await_side = WR_ALLIED;
        g->await_what = WR_AW_SETUP;
        break;
    case WR_PH_ALLIED_MOVE:
        g->await_side = WR_ALLIED;
        g->await_what = WR_AW_MOVE;
        break;
    default:
        g->phase = WR_PH_FRENCH_MOVE;
        g->await_side = WR_FRENCH;
        g->await_what = WR_AW_MOVE;
        break;
    }
}

void wr_game_occupancy(const struct wr_game *g, struct wr_occupancy *occ)
{
    memset(occ->side, -1, sizeof occ->side);
    memset(occ->factors, 0, sizeof occ->factors);
    memset(occ->count, 0, sizeof occ->count);
    for (int i = 0; i < g->sc->nunits; i++) {
        const struct wr_unit *u = &g->units[i];
        if (u->where != WR_ON_BOARD)
            continue;
        occ->side[u->at] = (int8_t)g->sc->units[i].side;
        occ->factors[u->at] = (uint8_t)(occ->factors[u->at] + g->sc->units[i].combat);
        occ->count[u->at]++;
    }
}

int wr_game_in_zoc(const struct wr_game *g, const struct wr_occupancy *occ, wr_sq s, int enemy)
{
    for (int d = 0; d < WR_NDIR; d++) {
        wr_sq n = wr_grid_neighbour(s, d);
        if (n == WR_SQ_NONE || occ->side[n] != enemy)
            continue;
        /* A square of enemy HQ units alone exerts no zone. */
        for (int i = 0; i < g->sc->nunits; i++)
            if (g->units[i].where == WR_ON_BOARD && g->units[i].at == n &&
                g->sc->units[i].type != WR_HQ)
                return 1;
    }
    return 0;
}

int wr_side_from_name(const char *name)
{
    if (strcmp(name, "french") == 0)
        return WR_FRENCH;
    if (strcmp(name, "allied") == 0)
        return WR_ALLIED;
    return -1;
}

int wr_game_check(const struct wr_game *g, struct wr_refusal *why)
{
    const struct wr_scenario *sc = g->sc;
    struct wr_occupancy occ;
    char a[WR_SQ_NAME_MAX];

    /* 1) Every unit is in exactly one place, and on a playable square when on board. */
    for (int i = 0; i < sc->nunits; i++) {
        const struct wr_unit *u = &g->units[i];
        if (u->where > WR_EXITED)
            return wr_refuse(why, WR_R_BAD_COMMAND, "%s has no valid place", sc->units[i].id),
                   -1;
        if ((u->where == WR_ON_BOARD) != (u->at != WR_SQ_NONE))
            return wr_refuse(why, WR_R_BAD_COMMAND, "%s: place and square disagree",
                             sc->units[i].id), -1;
        if (u->where == WR_ON_BOARD && !wr_grid_playable(u->at))
            return wr_refuse(why, WR_R_NOT_PLAYABLE, "%s is on %s, not playable",
                             sc->units[i].id, wr_grid_name(u->at, a)), -1;
    }
    /* 2) No square holds both sides; the stacking limit holds outside the
     *    middle of a move (it is checked where a move or retreat ends). */
    wr_game_occupancy(g, &occ);
    for (int i = 0; i < sc->nunits; i++) {
        const struct wr_unit *u = &g->units[i];
        if (u->where != WR_ON_BOARD)
            continue;
        if (occ.side[u->at] != sc->units[i].side)
            return wr_refuse(why, WR_R_ENEMY_SQUARE, "both sides on %s",
                             wr_grid_name(u->at, a)), -1;
        if (occ.factors[u->at] > WR_STACK_LIMIT)
            return wr_refuse(why, WR_R_STACKING, "%d factors on %s", occ.factors[u->at],
                             wr_grid_name(u->at, a)), -1;
    }
    /* 3) The awaited seat fits the phase. */
    if (g->phase == WR_PH_OVER) {
        if (g->await_what != WR_AW_NONE || g->winner < 0)
            return wr_refuse(why, WR_R_GAME_OVER, "game over but a seat is awaited"), -1;
        return 0;
    }
    static const int side_of_phase[WR_NPHASES] = {
        [WR_PH_SETUP_FRENCH] = WR_FRENCH, [WR_PH_SETUP_ALLIED] = WR_ALLIED,
        [WR_PH_FRENCH_MOVE] = WR_FRENCH, [WR_PH_FRENCH_COMBAT] = WR_FRENCH,
        [WR_PH_DEFECTION] = WR_ALLIED, [WR_PH_ALLIED_MOVE] = WR_ALLIED,
        [WR_PH_ALLIED_COMBAT] = WR_ALLIED,
    };
    int mover = side_of_phase[g->phase];
    int ok;
    switch (g->await_what) {
    case WR_AW_SETUP:
        ok = (g->phase == WR_PH_SETUP_FRENCH || g->phase == WR_PH_SETUP_ALLIED) &&
             g->await_side == mover;
        break;
    case WR_AW_MOVE:
        ok = (g->phase == WR_PH_FRENCH_MOVE || g->phase == WR_PH_ALLIED_MOVE) &&
             g->await_side == mover;
        break;
    case WR_AW_DECLARE:
    case WR_AW_RESOLVE:
        ok = (g->phase == WR_PH_FRENCH_COMBAT || g->phase == WR_PH_ALLIED_COMBAT) &&
             g->await_side == mover;
        break;
    case WR_AW_RETREAT:
    case WR_AW_EXCHANGE:
    case WR_AW_ADVANCE:
        ok = (g->phase == WR_PH_FRENCH_COMBAT || g->phase == WR_PH_ALLIED_COMBAT) &&
             g->current >= 0 && g->current < g->nbattles;
        break;
    case WR_AW_DEFECTION:
        ok = g->phase == WR_PH_DEFECTION && g->await_side == WR_ALLIED &&
             g->defection_owed > 0;
        break;
    default:
        ok = 0;
    }
    if (!ok)
        return wr_refuse(why, WR_R_WRONG_PHASE, "awaiting %d of side %d in phase %s",
                         g->await_what, g->await_side, wr_phase_name(g->phase)), -1;
    return 0;
}
