/*
 * waterloo_game.c - the game value: start position, occupancy, zones of control and
 * the invariant check. The turn machine and commands are in waterloo_turn.c.
 */
#include "waterloo_game.h"

#include <stdio.h>
#include <string.h>

#include "waterloo_combat.h"          /* wl_combat_one_at_a_time */

struct wl_options wl_options_default(void)
{
    return (struct wl_options){ .rules = WL_RULES, .commanders = 1, .undo = 1 };
}

int wl_options_check(const struct wl_options *opt, const struct wl_scenario *sc,
                     struct wr_refusal *why)
{
    if (opt->rules < 1 || opt->rules > WL_RULES) {
        wl_refuse(why, WL_R_BAD_OPTIONS, "rules: %d is not a rules version of waterloo (1..%d)",
                  opt->rules, WL_RULES);
        return -1;
    }
    if (opt->commanders < 1 || opt->commanders > sc->most_commanders) {
        wl_refuse(why, WL_R_BAD_OPTIONS, "commanders: %d; scenario '%s' has 1 to %d commanders "
                  "a side", opt->commanders, sc->name, sc->most_commanders);
        return -1;
    }
    if (opt->commanders > 1 && opt->rules < 2) {
        wl_refuse(why, WL_R_BAD_OPTIONS, "commanders: team play is new in rules 2; a game "
                  "under rules %d has one commander a side", opt->rules);
        return -1;
    }
    return 0;
}

void wl_game_init(struct wl_game *g, const struct wl_scenario *sc, const char *game_id,
                  const uint8_t seed[32])
{
    wl_game_init_with(g, sc, game_id, seed, NULL);
}

void wl_game_init_with(struct wl_game *g, const struct wl_scenario *sc, const char *game_id,
                       const uint8_t seed[32], const struct wl_options *opt)
{
    memset(g, 0, sizeof *g);
    g->sc = sc;
    g->opt = opt ? *opt : wl_options_default();
    snprintf(g->id, sizeof g->id, "%s", game_id ? game_id : "");
    if (seed != NULL) {
        memcpy(g->seed, seed, 32);
        g->has_seed = 1;
    }
    for (int i = 0; i < sc->nunits; i++) {
        const struct wl_unit_def *d = &sc->units[i];
        struct wl_unit *u = &g->units[i];
        u->battle = -1;
        if (!wl_unit_plays(&g->opt, sc, i)) {
            u->at = WL_SQ_NONE;
            u->where = WL_NOT_IN_GAME;
        } else if (d->setup != WL_SQ_NONE) {
            u->at = d->setup;
            u->where = WL_ON_BOARD;
        } else {
            u->at = WL_SQ_NONE;
            u->where = WL_PENDING;
        }
    }
    g->turn = sc->start_turn > 0 ? sc->start_turn : 1;
    g->phase = sc->start_phase;
    g->current = -1;
    g->winner = -1;
    g->undo.known = 1;
    switch (g->phase) {
    case WL_PH_SETUP_FRENCH:
        g->await_side = WL_FRENCH;
        g->await_what = WL_AW_SETUP;
        break;
    case WL_PH_SETUP_ALLIED:
        g->await_side = WL_ALLIED;
        g->await_what = WL_AW_SETUP;
        break;
    case WL_PH_ALLIED_MOVE:
        g->await_side = WL_ALLIED;
        g->await_what = WL_AW_MOVE;
        break;
    default:
        g->phase = WL_PH_FRENCH_MOVE;
        g->await_side = WL_FRENCH;
        g->await_what = WL_AW_MOVE;
        break;
    }
}

void wl_game_occupancy(const struct wl_game *g, struct wl_occupancy *occ)
{
    memset(occ->side, -1, sizeof occ->side);
    memset(occ->factors, 0, sizeof occ->factors);
    memset(occ->count, 0, sizeof occ->count);
    for (int i = 0; i < g->sc->nunits; i++) {
        const struct wl_unit *u = &g->units[i];
        if (u->where != WL_ON_BOARD)
            continue;
        occ->side[u->at] = (int8_t)g->sc->units[i].side;
        occ->factors[u->at] = (uint8_t)(occ->factors[u->at] + g->sc->units[i].combat);
        occ->count[u->at]++;
    }
}

int wl_game_in_zoc(const struct wl_game *g, const struct wl_occupancy *occ, wl_sq s, int enemy)
{
    for (int d = 0; d < WL_NDIR; d++) {
        wl_sq n = wl_grid_neighbour(s, d);
        if (n == WL_SQ_NONE || occ->side[n] != enemy)
            continue;
        /* A square of enemy HQ units alone exerts no zone. */
        for (int i = 0; i < g->sc->nunits; i++)
            if (g->units[i].where == WL_ON_BOARD && g->units[i].at == n &&
                g->sc->units[i].type != WL_HQ)
                return 1;
    }
    return 0;
}

int wl_unit_in_game(const struct wl_game *g, int i)
{
    return g->units[i].where != WL_NOT_IN_GAME;
}

int wl_unit_plays(const struct wl_options *opt, const struct wl_scenario *sc, int i)
{
    const struct wl_unit_def *d = &sc->units[i];
    int n = opt->commanders;
    if (d->type != WL_HQ || opt->rules < 2 || !d->team_hq)
        return 1;
    /* A team game: the HQs of its commanders too (TP3). */
    for (int k = 0; n > 1 && n <= sc->most_commanders && k < n; k++)
        if (sc->commanders[n - 2][d->side][k] == i)
            return 1;
    return 0;
}

int wl_phase_mover(int phase)
{
    switch (phase) {
    case WL_PH_SETUP_FRENCH:
    case WL_PH_FRENCH_MOVE:
    case WL_PH_FRENCH_COMBAT:
        return WL_FRENCH;
    case WL_PH_OVER:
        return -1;
    default:
        return WL_ALLIED;
    }
}

int wl_combat_one_at_a_time(const struct wl_game *g)
{
    return g->opt.rules >= 2;
}

int wl_hq_blocks(const struct wl_game *g, int combat)
{
    return g->opt.rules < 2 || !combat;
}

int wl_game_enemy_holds(const struct wl_game *g, const struct wl_occupancy *occ, wl_sq s,
                        int side, int combat)
{
    if (occ->side[s] < 0 || occ->side[s] == side)
        return 0;
    /* Combat units have 1..15 factors (the loader), so factors > 0 means one stands there. */
    return occ->factors[s] > 0 || wl_hq_blocks(g, combat);
}

int wl_setup_zone_ok(const struct wl_game *g, int i, wl_sq s)
{
    const struct wl_unit_def *d = &g->sc->units[i];
    if (g->opt.rules >= 2)
        return g->sc->nation_zone[d->nation][s];
    return g->sc->zone[d->side][s];
}

int wl_side_from_name(const char *name)
{
    if (strcmp(name, "french") == 0)
        return WL_FRENCH;
    if (strcmp(name, "allied") == 0)
        return WL_ALLIED;
    return -1;
}

int wl_game_check(const struct wl_game *g, struct wr_refusal *why)
{
    const struct wl_scenario *sc = g->sc;
    struct wl_occupancy occ;
    char a[WL_SQ_NAME_MAX];

    /* 1) Every unit is in exactly one place, and on a playable square when on board. */
    for (int i = 0; i < sc->nunits; i++) {
        const struct wl_unit *u = &g->units[i];
        if (u->where > WL_NOT_IN_GAME)
            return wl_refuse(why, WL_R_BAD_COMMAND, "%s has no valid place", sc->units[i].id),
                   -1;
        if ((u->where == WL_NOT_IN_GAME) != !wl_unit_plays(&g->opt, sc, i))
            return wl_refuse(why, WL_R_BAD_COMMAND, "%s %s", sc->units[i].id,
                             u->where == WL_NOT_IN_GAME ? "is left out, yet plays in this game"
                                                        : "has a place, yet is not in this game"),
                   -1;
        if ((u->where == WL_ON_BOARD) != (u->at != WL_SQ_NONE))
            return wl_refuse(why, WL_R_BAD_COMMAND, "%s: place and square disagree",
                             sc->units[i].id), -1;
        if (u->engaged && (!wl_combat_one_at_a_time(g) || sc->units[i].type == WL_HQ ||
                           (g->phase != WL_PH_FRENCH_COMBAT && g->phase != WL_PH_ALLIED_COMBAT)))
            return wl_refuse(why, WL_R_BAD_COMMAND,
                             "%s is engaged outside a combat phase of rules 2, or is an HQ",
                             sc->units[i].id), -1;
        if (u->where == WL_ON_BOARD && !wl_grid_playable(u->at))
            return wl_refuse(why, WL_R_NOT_PLAYABLE, "%s is on %s, not playable",
                             sc->units[i].id, wl_grid_name(u->at, a)), -1;
    }
    /* 2) No square holds both sides; the stacking limit holds outside the
     *    middle of a move (it is checked where a move or retreat ends). */
    wl_game_occupancy(g, &occ);
    for (int i = 0; i < sc->nunits; i++) {
        const struct wl_unit *u = &g->units[i];
        if (u->where != WL_ON_BOARD)
            continue;
        if (occ.side[u->at] != sc->units[i].side)
            return wl_refuse(why, WL_R_ENEMY_SQUARE, "both sides on %s",
                             wl_grid_name(u->at, a)), -1;
        if (occ.factors[u->at] > WL_STACK_LIMIT)
            return wl_refuse(why, WL_R_STACKING, "%d factors on %s", occ.factors[u->at],
                             wl_grid_name(u->at, a)), -1;
    }
    /* 2b) Team play (waterloo_teams.h): no flags beyond the game's
     *     commanders; the commander-in-chief is never out and never ends a
     *     phase for himself alone; a commander out has lost his HQ; ends are
     *     recorded only while a set-up or movement phase is awaited. */
    int n = g->opt.commanders > 1 ? g->opt.commanders : 1;
    for (int side = 0; side < WL_NSIDES; side++)
        for (int k = 0; k < WL_MAX_COMMANDERS; k++) {
            int hq = n > 1 && k < n ? sc->commanders[n - 2][side][k] : -1;
            if ((g->cmdr_out[side][k] || g->cmdr_done[side][k]) && (k == 0 || k >= n))
                return wl_refuse(why, WL_R_WRONG_PHASE, "%s commander %d: out or ended, "
                                 "but not a subordinate of the game", wl_side_name(side), k), -1;
            if (g->cmdr_out[side][k] && g->units[hq].where == WL_ON_BOARD)
                return wl_refuse(why, WL_R_WRONG_PHASE, "%s commander %d is out but his HQ %s "
                                 "is on the board", wl_side_name(side), k, sc->units[hq].id), -1;
            /* Ended: in a phase of his side's, never the defection. */
            if (g->cmdr_done[side][k] &&
                (wl_phase_mover(g->phase) != side || g->phase == WL_PH_DEFECTION))
                return wl_refuse(why, WL_R_WRONG_PHASE, "%s commander %d has ended a phase "
                                 "that is not awaited", wl_side_name(side), k), -1;
        }
    /* 2c) Undo (struct wl_undo): moves to take back only in a movement
     *     phase of a game that allows it, each of a commander of the side,
     *     each unit marked by one of them, the mover's units marked having
     *     moved. */
    int moving = g->phase == WL_PH_FRENCH_MOVE || g->phase == WL_PH_ALLIED_MOVE;
    if (g->undo.nmoves < 0 || g->undo.nmoves > WL_MAX_UNITS ||
        (g->undo.nmoves > 0 && (!moving || !g->opt.undo || !g->undo.known)))
        return wl_refuse(why, WL_R_WRONG_PHASE, "%d moves to take back outside a movement "
                         "phase that allows it", g->undo.nmoves), -1;
    for (int m = 0; m < g->undo.nmoves; m++)
        if (g->undo.cmdr[m] >= n)
            return wl_refuse(why, WL_R_WRONG_PHASE, "move %d to take back is by commander %d "
                             "of %d", m + 1, g->undo.cmdr[m], n), -1;
    for (int i = 0; i < sc->nunits; i++) {
        const struct wl_unit *u = &g->units[i];
        if (u->undo_move > g->undo.nmoves ||
            (u->undo_move > 0 && sc->units[i].side == wl_phase_mover(g->phase) && !u->moved))
            return wl_refuse(why, WL_R_WRONG_PHASE, "%s: marked by move %d of %d to take "
                             "back", sc->units[i].id, u->undo_move, g->undo.nmoves), -1;
    }
    /* 3) The awaited seat fits the phase. */
    if (g->phase == WL_PH_OVER) {
        if (g->await_what != WL_AW_NONE || g->winner < 0)
            return wl_refuse(why, WL_R_GAME_OVER, "game over but a seat is awaited"), -1;
        return 0;
    }
    static const int side_of_phase[WL_NPHASES] = {
        [WL_PH_SETUP_FRENCH] = WL_FRENCH, [WL_PH_SETUP_ALLIED] = WL_ALLIED,
        [WL_PH_FRENCH_MOVE] = WL_FRENCH, [WL_PH_FRENCH_COMBAT] = WL_FRENCH,
        [WL_PH_DEFECTION] = WL_ALLIED, [WL_PH_ALLIED_MOVE] = WL_ALLIED,
        [WL_PH_ALLIED_COMBAT] = WL_ALLIED,
    };
    int mover = side_of_phase[g->phase];
    int ok;
    switch (g->await_what) {
    case WL_AW_SETUP:
        ok = (g->phase == WL_PH_SETUP_FRENCH || g->phase == WL_PH_SETUP_ALLIED) &&
             g->await_side == mover;
        break;
    case WL_AW_MOVE:
        ok = (g->phase == WL_PH_FRENCH_MOVE || g->phase == WL_PH_ALLIED_MOVE) &&
             g->await_side == mover;
        break;
    case WL_AW_DECLARE:
    case WL_AW_RESOLVE:
        ok = (g->phase == WL_PH_FRENCH_COMBAT || g->phase == WL_PH_ALLIED_COMBAT) &&
             g->await_side == mover;
        break;
    case WL_AW_COMBAT:
        ok = (g->phase == WL_PH_FRENCH_COMBAT || g->phase == WL_PH_ALLIED_COMBAT) &&
             g->await_side == mover && wl_combat_one_at_a_time(g);
        break;
    case WL_AW_RETREAT:
    case WL_AW_EXCHANGE:
    case WL_AW_ADVANCE:
        ok = (g->phase == WL_PH_FRENCH_COMBAT || g->phase == WL_PH_ALLIED_COMBAT) &&
             g->current >= 0 && g->current < g->nbattles;
        break;
    case WL_AW_DEFECTION:
        ok = g->phase == WL_PH_DEFECTION && g->await_side == WL_ALLIED &&
             g->defection_owed > 0;
        break;
    default:
        ok = 0;
    }
    if (!ok)
        return wl_refuse(why, WL_R_WRONG_PHASE, "awaiting %d of side %d in phase %s",
                         g->await_what, g->await_side, wl_phase_name(g->phase)), -1;
    return 0;
}
