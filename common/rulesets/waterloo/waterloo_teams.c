/*
 * waterloo_teams.c - team play: commanders, their seats, who commands a
 * unit, who is awaited, and the end of a phase (waterloo_teams.h).
 */
#include "waterloo_teams.h"

#include <stdio.h>
#include <string.h>

#include "waterloo_combat.h"

int wl_team_size(const struct wl_game *g)
{
    return g->opt.commanders > 1 ? g->opt.commanders : 1;
}

int wl_team_hq(const struct wl_game *g, int side, int k)
{
    int n = wl_team_size(g);
    if (n < 2 || side < 0 || side >= WL_NSIDES || k < 0 || k >= n)
        return -1;
    return g->sc->commanders[n - 2][side][k];
}

const char *wl_team_seat(const struct wl_game *g, int side, int k, char *buf)
{
    int hq = wl_team_hq(g, side, k);
    if (hq < 0) {
        snprintf(buf, WL_SEAT_MAX, "%s", wl_side_name(side));
        return buf;
    }
    char slug[WL_SLUG_MAX];
    wl_scenario_slug(g->sc->units[hq].name, slug, sizeof slug);
    snprintf(buf, WL_SEAT_MAX, "%.6s:%s", wl_side_name(side), slug);
    return buf;
}

int wl_team_parse_seat(const struct wl_game *g, const char *seat, int *side, int *k)
{
    char buf[WL_SEAT_MAX];
    for (int s = 0; seat && s < WL_NSIDES; s++)
        for (int j = 0; j < wl_team_size(g); j++)
            if (strcmp(seat, wl_team_seat(g, s, j, buf)) == 0) {
                *side = s;
                *k = j;
                return 0;
            }
    return -1;
}

int wl_team_side_of_seat(const char *seat)
{
    for (int side = 0; seat && side < WL_NSIDES; side++) {
        size_t n = strlen(wl_side_name(side));
        if (strncmp(seat, wl_side_name(side), n) == 0 && (seat[n] == '\0' || seat[n] == ':'))
            return side;
    }
    return -1;
}

int wl_team_commander(const struct wl_game *g, int i)
{
    int n = wl_team_size(g);
    if (n < 2)
        return 0;
    int k = wl_scenario_commander(g->sc, n, i);
    return g->cmdr_out[g->sc->units[i].side][k] ? 0 : k;
}

int wl_team_owner(const struct wl_game *g, const int16_t *u, int n)
{
    int owner = -1;
    for (int j = 0; j < n; j++) {
        int k = wl_team_commander(g, u[j]);
        /* A subordinate who has ended the phase leaves his units to the
         * commander-in-chief for the rest of it (TP7). */
        if (g->cmdr_done[g->sc->units[u[j]].side][k])
            k = 0;
        if (owner >= 0 && k != owner)
            return 0;
        owner = k;
    }
    return owner < 0 ? 0 : owner;
}

/* The mover's combat units on the board in an enemy combat unit's zone:
 * those a declaration must name (waterloo_combat.h, rule 5). */
static int in_contact(const struct wl_game *g, int16_t *out)
{
    int n = 0, mover = g->await_side;
    for (int i = 0; i < g->sc->nunits; i++) {
        if (g->sc->units[i].side != mover || g->sc->units[i].type == WL_HQ ||
            g->units[i].where != WL_ON_BOARD)
            continue;
        for (int j = 0; j < g->sc->nunits; j++)
            if (g->sc->units[j].side != mover && g->sc->units[j].type != WL_HQ &&
                g->units[j].where == WL_ON_BOARD &&
                wl_grid_distance(g->units[i].at, g->units[j].at) == 1) {
                out[n++] = (int16_t)i;
                break;
            }
    }
    return n;
}

/* Rules 2's combat phase: has the commander-in-chief a battle of his own
 * to resolve, or a unit of his (his own, or a subordinate's who has ended
 * the phase) that owes a battle? A battle of units of several commanders
 * is his too. */
static int cic_owes(const struct wl_game *g)
{
    int side = g->await_side;
    for (int i = 0; i < g->nbattles; i++)
        if (g->battles[i].state != WL_B_DONE &&
            wl_team_owner(g, g->battles[i].attackers, g->battles[i].nattackers) == 0)
            return 1;
    for (int i = 0; i < g->sc->nunits; i++) {
        int16_t u = (int16_t)i;
        if (g->sc->units[i].side == side && wl_combat_owes(g, i) && wl_team_owner(g, &u, 1) == 0)
            return 1;
    }
    return 0;
}

int wl_team_awaited(const struct wl_game *g, uint8_t *mine)
{
    int side = g->await_side, n = wl_team_size(g), count = 0;
    memset(mine, 0, WL_MAX_COMMANDERS);
    if (side < 0 || g->await_what == WL_AW_NONE)
        return 0;
    const struct wl_battle *b = g->current >= 0 ? &g->battles[g->current] : NULL;
    int mover = wl_phase_mover(g->phase);
    switch (g->await_what) {
    case WL_AW_SETUP:
    case WL_AW_MOVE:
        for (int k = 0; k < n; k++)
            mine[k] = !g->cmdr_out[side][k] && !g->cmdr_done[side][k];
        break;
    case WL_AW_COMBAT: {
        /* Rules 2's combat phase (TP5, TP7): each subordinate until he
         * ends it for himself; the commander-in-chief while a battle is his
         * to declare or resolve, and to end the phase once every
         * subordinate has. */
        int subs_left = 0;
        for (int k = 1; k < n; k++) {
            mine[k] = !g->cmdr_out[side][k] && !g->cmdr_done[side][k];
            subs_left += mine[k];
        }
        mine[0] = subs_left == 0 || cic_owes(g);
        break;
    }
    case WL_AW_DECLARE: {
        int16_t units[WL_MAX_UNITS];
        mine[wl_team_owner(g, units, in_contact(g, units))] = 1;
        break;
    }
    case WL_AW_RESOLVE:
        for (int i = 0; i < g->nbattles; i++)
            if (g->battles[i].state == WL_B_DECLARED)
                mine[wl_team_owner(g, g->battles[i].attackers, g->battles[i].nattackers)] = 1;
        break;
    case WL_AW_RETREAT:
    case WL_AW_EXCHANGE:
    case WL_AW_ADVANCE:
        /* The units of the battle on the awaited side: the winner's, who
         * choose the losers' retreats; the larger side's, who choose their
         * exchange losses; the attackers', who may advance. */
        if (b == NULL)
            return 0;
        if (side == mover)
            mine[wl_team_owner(g, b->attackers, b->nattackers)] = 1;
        else
            mine[wl_team_owner(g, b->defenders, b->ndefenders)] = 1;
        break;
    default:
        /* WL_AW_DEFECTION: the army's loss, chosen among every unit of
         * the side: the commander-in-chief's. */
        mine[0] = 1;
        break;
    }
    for (int k = 0; k < n; k++)
        count += mine[k] != 0;
    return count;
}

int wl_team_end_phase(struct wl_game *g, int side, int k)
{
    if (wl_team_size(g) < 2 || k == 0)
        return 1;
    g->cmdr_done[side][k] = 1;
    for (int j = 0; j < wl_team_size(g); j++)
        if (!g->cmdr_out[side][j] && !g->cmdr_done[side][j])
            return 0;
    return 1;
}

int wl_team_unit_lost(struct wl_game *g, int i)
{
    int side = g->sc->units[i].side;
    for (int k = 1; k < wl_team_size(g); k++)
        if (wl_team_hq(g, side, k) == i && !g->cmdr_out[side][k]) {
            g->cmdr_out[side][k] = 1;
            return k;
        }
    return 0;
}
