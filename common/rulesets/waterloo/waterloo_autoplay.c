/*
 * waterloo_autoplay.c - a random legal Waterloo player (see waterloo_autoplay.h).
 *
 * Movement leans toward the enemy so that random games fight; the combat
 * declaration is built as a spanning star forest of the contact graph
 * (every attacker adjacent to every defender of its battle), which always
 * exists when every unit in contact has a neighbour on the other side.
 * Under rules 2 (battles one at a time) the star forest covers the engaged
 * units that still owe a battle; the player declares one of its stars,
 * several or all, resolves battles in a random order between declarations
 * and ends the phase when nothing is owed: any part of a star forest leaves
 * the rest covered, so it never strands a unit (wl_combat_check_battles).
 */
#include "waterloo_autoplay.h"

#include <jansson.h>
#include <string.h>

#include "waterloo_combat.h"
#include "waterloo_teams.h"

static int mover_side(const struct wl_game *g)
{
    return g->await_side;
}

static int adjacent(const struct wl_game *g, int a, int b)
{
    return g->units[a].where == WL_ON_BOARD && g->units[b].where == WL_ON_BOARD &&
           wl_grid_distance(g->units[a].at, g->units[b].at) == 1;
}

/* Distance from s to the nearest unit of side `side` on the board. */
static int nearest(const struct wl_game *g, wl_sq s, int side)
{
    int best = 1000;
    for (int i = 0; i < g->sc->nunits; i++)
        if (g->units[i].where == WL_ON_BOARD && g->sc->units[i].side == side) {
            int d = wl_grid_distance(s, g->units[i].at);
            if (d < best)
                best = d;
        }
    return best;
}

static int propose_move(const struct wl_game *g, int commander, struct wr_prng *rng,
                        struct wl_reach *reach, struct wl_cmd *c)
{
    int side = mover_side(g);
    int n = g->sc->nunits;
    int start = wr_prng_below(rng, n);
    for (int k = 0; k < n; k++) {
        int i = (start + k) % n;
        const struct wl_unit *u = &g->units[i];
        const struct wl_unit_def *d = &g->sc->units[i];
        if (d->side != side || u->moved || wl_team_commander(g, i) != commander)
            continue;
        if (u->where != WL_ON_BOARD &&
            !(u->where == WL_PENDING && d->arrive_turn <= g->turn && g->phase == WL_PH_ALLIED_MOVE))
            continue;
        /* Leave about one unit in five where it stands. */
        if (wr_prng_below(rng, 5) == 0)
            continue;
        int one = i;
        if (wl_move_reach(g, &one, 1, reach, NULL) != WL_R_OK || reach->n == 0)
            continue;
        int pick = wr_prng_below(rng, reach->n);
        if (wr_prng_below(rng, 2) == 0) {
            /* Toward the enemy: the reachable square nearest to it. */
            int best = 1 << 20;
            for (int r = 0; r < reach->n; r++) {
                int dist = reach->end[r] == WL_PATH_OFF ? 0 : nearest(g, reach->end[r], 1 - side);
                if (dist < best) {
                    best = dist;
                    pick = r;
                }
            }
        }
        c->type = WL_CMD_MOVE;
        c->units[0] = (int16_t)i;
        c->nunits = 1;
        c->npath = reach->path_len[pick];
        memcpy(c->path, reach->path[pick], sizeof(wl_sq) * (size_t)c->npath);
        return 0;
    }
    c->type = WL_CMD_END_PHASE;
    return 0;
}

static void propose_declaration(const struct wl_game *g, struct wr_prng *rng, struct wl_cmd *c)
{
    int side = mover_side(g), n = g->sc->nunits;
    int battle_of[WL_MAX_UNITS];
    int att[WL_MAX_UNITS], natt = 0, def[WL_MAX_UNITS], ndef = 0;

    for (int i = 0; i < n; i++) {
        battle_of[i] = -1;
        if (g->units[i].where != WL_ON_BOARD || g->sc->units[i].type == WL_HQ)
            continue;
        int contact = 0;
        for (int j = 0; j < n && !contact; j++)
            contact = g->sc->units[j].side != g->sc->units[i].side &&
                      g->sc->units[j].type != WL_HQ && adjacent(g, i, j);
        if (!contact)
            continue;
        if (g->sc->units[i].side == side)
            att[natt++] = i;
        else
            def[ndef++] = i;
    }
    /* Shuffle the defenders so random games vary their battles. */
    for (int k = ndef - 1; k > 0; k--) {
        int j = wr_prng_below(rng, k + 1), t = def[k];
        def[k] = def[j];
        def[j] = t;
    }
    c->type = WL_CMD_DECLARE;
    c->nbattles = 0;
    /* 1) Stars around defenders with their free adjacent attackers. */
    for (int k = 0; k < ndef; k++) {
        int d = def[k];
        struct wl_cmd_battle *b = &c->battles[c->nbattles];
        b->nattackers = 0;
        for (int a = 0; a < natt; a++)
            if (battle_of[att[a]] < 0 && adjacent(g, att[a], d) &&
                b->nattackers < WL_MAX_IN_BATTLE)
                b->attackers[b->nattackers++] = (int16_t)att[a];
        if (b->nattackers == 0)
            continue;
        b->defenders[0] = (int16_t)d;
        b->ndefenders = 1;
        for (int a = 0; a < b->nattackers; a++)
            battle_of[b->attackers[a]] = c->nbattles;
        battle_of[d] = c->nbattles++;
    }
    /* 2) Attackers left over join the one-defender battle of a neighbour. */
    for (int a = 0; a < natt; a++) {
        if (battle_of[att[a]] >= 0)
            continue;
        for (int k = 0; k < ndef; k++) {
            int bi = battle_of[def[k]];
            if (bi >= 0 && adjacent(g, att[a], def[k]) && c->battles[bi].ndefenders == 1 &&
                c->battles[bi].nattackers < WL_MAX_IN_BATTLE) {
                struct wl_cmd_battle *b = &c->battles[bi];
                b->attackers[b->nattackers++] = (int16_t)att[a];
                battle_of[att[a]] = bi;
                break;
            }
        }
    }
    /* 3) Defenders left over: join a one-attacker battle of a neighbour, or
     *    take that neighbour out of its bigger battle into a new one. */
    for (int k = 0; k < ndef; k++) {
        int d = def[k];
        if (battle_of[d] >= 0)
            continue;
        for (int a = 0; a < natt; a++) {
            int bi = battle_of[att[a]];
            if (bi < 0 || !adjacent(g, att[a], d))
                continue;
            struct wl_cmd_battle *b = &c->battles[bi];
            if (b->nattackers == 1 && b->ndefenders < WL_MAX_IN_BATTLE) {
                b->defenders[b->ndefenders++] = (int16_t)d;
                battle_of[d] = bi;
            } else if (b->nattackers > 1 && c->nbattles < WL_MAX_BATTLES) {
                for (int x = 0; x < b->nattackers; x++)
                    if (b->attackers[x] == att[a]) {
                        b->attackers[x] = b->attackers[--b->nattackers];
                        break;
                    }
                struct wl_cmd_battle *nb = &c->battles[c->nbattles];
                nb->attackers[0] = (int16_t)att[a];
                nb->nattackers = 1;
                nb->defenders[0] = (int16_t)d;
                nb->ndefenders = 1;
                battle_of[att[a]] = battle_of[d] = c->nbattles++;
            } else {
                continue;
            }
            break;
        }
    }
}

/* Rules 2: a star forest covering the engaged units that still owe a
 * battle, each star a legal battle (its centre touches every leaf), built
 * as an edge cover: each uncovered unit joins a neighbour's star, or takes
 * a leaf out of a bigger star into a new one, or turns a one-leaf star
 * around its leaf. Returns the number of battles in c->battles. */
struct star {
    int centre;
    int16_t leaves[WL_MAX_IN_BATTLE];
    int nleaves;
};

static int owed_star_forest(const struct wl_game *g, struct wr_prng *rng, struct wl_cmd *c)
{
    static const int none = -1;
    int n = g->sc->nunits, mover = wl_phase_mover(g->phase);
    int order[WL_MAX_UNITS], norder = 0, star_of[WL_MAX_UNITS];
    struct star stars[WL_MAX_BATTLES];
    int nstars = 0;

    for (int i = 0; i < n; i++) {
        star_of[i] = none;
        if (wl_combat_owes(g, i))
            order[norder++] = i;
    }
    for (int k = norder - 1; k > 0; k--) {
        int j = wr_prng_below(rng, k + 1), t = order[k];
        order[k] = order[j];
        order[j] = t;
    }
    for (int k = 0; k < norder; k++) {
        int v = order[k];
        if (star_of[v] != none)
            continue;
        int nb[WL_MAX_UNITS], nn = 0, free_nb = -1;
        for (int w = 0; w < n; w++)
            if (g->sc->units[w].side != g->sc->units[v].side && wl_combat_owes(g, w) &&
                adjacent(g, v, w)) {
                nb[nn++] = w;
                if (star_of[w] == none && free_nb < 0)
                    free_nb = w;
            }
        if (nn == 0)
            continue;               /* stranded: the rules refuse what made it */
        int w = free_nb >= 0 ? free_nb : nb[wr_prng_below(rng, nn)];
        if (star_of[w] == none || (stars[star_of[w]].centre != w &&
                                   stars[star_of[w]].nleaves > 1)) {
            /* A new star {v, w}, w taken out of its star if it was a leaf. */
            if (nstars == WL_MAX_BATTLES)
                break;
            if (star_of[w] != none) {
                struct star *s = &stars[star_of[w]];
                for (int x = 0; x < s->nleaves; x++)
                    if (s->leaves[x] == w) {
                        s->leaves[x] = s->leaves[--s->nleaves];
                        break;
                    }
            }
            stars[nstars].centre = w;
            stars[nstars].leaves[0] = (int16_t)v;
            stars[nstars].nleaves = 1;
            star_of[v] = star_of[w] = nstars++;
        } else {
            struct star *s = &stars[star_of[w]];
            if (s->centre != w) {
                /* A one-leaf star turned around its leaf w. */
                s->leaves[0] = (int16_t)s->centre;
                s->centre = w;
            }
            if (s->nleaves == WL_MAX_IN_BATTLE)
                continue;
            s->leaves[s->nleaves++] = (int16_t)v;
            star_of[v] = star_of[w];
        }
    }
    c->nbattles = 0;
    for (int k = 0; k < nstars; k++) {
        struct star *s = &stars[k];
        struct wl_cmd_battle *b = &c->battles[c->nbattles++];
        int16_t centre = (int16_t)s->centre;
        int attacking_centre = g->sc->units[s->centre].side == mover;
        b->nattackers = attacking_centre ? 1 : s->nleaves;
        b->ndefenders = attacking_centre ? s->nleaves : 1;
        memcpy(attacking_centre ? b->attackers : b->defenders, &centre, sizeof centre);
        memcpy(attacking_centre ? b->defenders : b->attackers, s->leaves,
               sizeof(int16_t) * (size_t)s->nleaves);
    }
    return c->nbattles;
}

/* Rules 2, combat: declare part of the owed star forest (one star, several
 * or all of them), or resolve a declared battle, or attack an enemy HQ
 * that nobody owes a battle to, or end the phase once nothing is owed. */
static void propose_combat(const struct wl_game *g, int me, struct wr_prng *rng,
                           struct wl_cmd *c)
{
    /* In a team game each commander commits and resolves only the battles
     * that are his (wl_team_owner: a battle of several commanders' units
     * is the commander-in-chief's). Any part of the star forest leaves the
     * rest covered. */
    int open[WL_MAX_BATTLES], nopen = 0;
    for (int i = 0; i < g->nbattles; i++)
        if (g->battles[i].state == WL_B_DECLARED &&
            wl_team_owner(g, g->battles[i].attackers, g->battles[i].nattackers) == me)
            open[nopen++] = i;
    int nstars = 0;
    for (int k = 0, all = owed_star_forest(g, rng, c); k < all; k++)
        if (wl_team_owner(g, c->battles[k].attackers, c->battles[k].nattackers) == me)
            c->battles[nstars++] = c->battles[k];
    c->nbattles = nstars;
    if (nopen > 0 && (nstars == 0 || wr_prng_below(rng, 2) == 0)) {
        c->type = WL_CMD_RESOLVE;
        c->nbattles = 0;
        c->battle = open[wr_prng_below(rng, nopen)];
        return;
    }
    c->type = WL_CMD_DECLARE;
    if (nstars > 0) {
        int how = wr_prng_below(rng, 3);
        if (how == 0)
            return;                             /* all at once */
        if (how == 1) {                         /* one */
            c->battles[0] = c->battles[wr_prng_below(rng, nstars)];
            c->nbattles = 1;
            return;
        }
        int kept = 0;                           /* each with one chance in two, at least one */
        for (int k = 0; k < nstars; k++)
            if (wr_prng_below(rng, 2) == 0 || (k == nstars - 1 && kept == 0))
                c->battles[kept++] = c->battles[k];
        c->nbattles = kept;
        return;
    }
    /* Nothing owed (nothing of me's, in a team game): now and then one of
     * the mover's units that neither fought nor owes a battle attacks an
     * enemy HQ next to it; else the phase ends. */
    c->nbattles = 0;
    int mover = wl_phase_mover(g->phase);
    if (wr_prng_below(rng, 2) == 0)
        for (int a = 0; a < g->sc->nunits; a++) {
            if (g->sc->units[a].side != mover || g->sc->units[a].type == WL_HQ ||
                g->units[a].where != WL_ON_BOARD || g->units[a].battle >= 0 ||
                wl_combat_owes(g, a) ||
                wl_team_owner(g, (const int16_t[]){ (int16_t)a }, 1) != me)
                continue;
            for (int h = 0; h < g->sc->nunits; h++)
                if (g->sc->units[h].side != mover && g->sc->units[h].type == WL_HQ &&
                    g->units[h].battle < 0 && adjacent(g, a, h)) {
                    c->battles[0].attackers[0] = (int16_t)a;
                    c->battles[0].nattackers = 1;
                    c->battles[0].defenders[0] = (int16_t)h;
                    c->battles[0].ndefenders = 1;
                    c->nbattles = 1;
                    return;
                }
        }
    c->type = WL_CMD_END_PHASE;
}

/* Units of `list` still on the board, chosen until their printed factors
 * reach need. */
static void choose_losses(const struct wl_game *g, const int16_t *list, int n, int need,
                          struct wl_cmd *c)
{
    int sum = 0;
    c->nunits = 0;
    for (int k = 0; k < n && sum < need; k++)
        if (g->units[list[k]].where == WL_ON_BOARD) {
            c->units[c->nunits++] = list[k];
            sum += g->sc->units[list[k]].combat;
        }
}

int wl_autoplay_next(const struct wl_game *g, struct wr_prng *rng, struct wl_reach *reach,
                     struct wl_cmd *c)
{
    return wl_autoplay_next_by(g, 0, rng, reach, c);
}

int wl_autoplay_next_by(const struct wl_game *g, int me, struct wr_prng *rng,
                        struct wl_reach *reach, struct wl_cmd *c)
{
    memset(c, 0, offsetof(struct wl_cmd, battles));
    c->nbattles = 0;
    c->to = WL_SQ_NONE;
    c->battle = -1;
    switch (g->await_what) {
    case WL_AW_SETUP:
        c->type = WL_CMD_END_SETUP;
        return 0;
    case WL_AW_MOVE:
        return propose_move(g, me, rng, reach, c);
    case WL_AW_DECLARE:
        propose_declaration(g, rng, c);
        return 0;
    case WL_AW_RESOLVE:
        c->type = WL_CMD_RESOLVE;
        for (int i = 0; i < g->nbattles; i++)
            if (g->battles[i].state == WL_B_DECLARED &&
                wl_team_owner(g, g->battles[i].attackers, g->battles[i].nattackers) == me) {
                c->battle = i;
                break;
            }
        return 0;
    case WL_AW_RETREAT:
        for (int i = 0; i < g->sc->nunits; i++)
            if (g->units[i].must_retreat) {
                wl_sq paths[64][2];
                int open = wl_combat_open_retreats(g, i, paths, 64);
                if (open > 64)
                    open = 64;
                int p = open > 0 ? wr_prng_below(rng, open) : 0;
                c->type = WL_CMD_RETREAT;
                c->units[0] = (int16_t)i;
                c->nunits = 1;
                c->path[0] = paths[p][0];
                c->path[1] = paths[p][1];
                c->npath = 2;
                return 0;
            }
        return -1;
    case WL_AW_EXCHANGE: {
        const struct wl_battle *b = &g->battles[g->current];
        int attacker_side = g->phase == WL_PH_FRENCH_COMBAT ? WL_FRENCH : WL_ALLIED;
        int mine_att = g->await_side == attacker_side;
        const int16_t *theirs = mine_att ? b->defenders : b->attackers;
        int ntheirs = mine_att ? b->ndefenders : b->nattackers, need = 0;
        for (int k = 0; k < ntheirs; k++)
            need += g->sc->units[theirs[k]].combat;
        c->type = WL_CMD_EXCHANGE_LOSSES;
        choose_losses(g, mine_att ? b->attackers : b->defenders,
                      mine_att ? b->nattackers : b->ndefenders, need, c);
        return 0;
    }
    case WL_AW_ADVANCE: {
        const struct wl_battle *b = &g->battles[g->current];
        if (wr_prng_below(rng, 3) > 0)
            for (int k = 0; k < b->nattackers; k++)
                for (int v = 0; v < b->nvacated; v++)
                    if (!g->units[b->attackers[k]].advanced &&
                        wl_combat_check_advance(g, b, b->attackers[k], b->vacated[v], NULL) ==
                            WL_R_OK) {
                        c->type = WL_CMD_ADVANCE;
                        c->units[0] = b->attackers[k];
                        c->nunits = 1;
                        c->to = b->vacated[v];
                        return 0;
                    }
        c->type = WL_CMD_NO_ADVANCE;
        return 0;
    }
    case WL_AW_COMBAT:
        propose_combat(g, me, rng, c);
        return 0;
    case WL_AW_DEFECTION: {
        int sum = 0;
        c->type = WL_CMD_DEFECT;
        c->nunits = 0;
        /* Those still to arrive first, then from the board. */
        for (int pass = 0; pass < 2 && sum < g->defection_owed; pass++)
            for (int i = 0; i < g->sc->nunits && sum < g->defection_owed; i++) {
                const struct wl_unit *u = &g->units[i];
                if (g->sc->units[i].side != WL_ALLIED || g->sc->units[i].type == WL_HQ ||
                    u->where != (pass == 0 ? WL_PENDING : WL_ON_BOARD))
                    continue;
                c->units[c->nunits++] = (int16_t)i;
                sum += g->sc->units[i].combat;
            }
        return 0;
    }
    default:
        return -1;
    }
}

/* --- commands as JSON ------------------------------------------------------ */

static json_t *sq_json(wl_sq s)
{
    char buf[WL_SQ_NAME_MAX];
    return s == WL_PATH_OFF ? json_string("off") : json_string(wl_grid_name(s, buf));
}

static json_t *ids_json(const struct wl_game *g, const int16_t *u, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_string(g->sc->units[u[i]].id));
    return a;
}

json_t *wl_cmd_json(const struct wl_game *g, const struct wl_cmd *c)
{
    json_t *o = json_object();
    json_object_set_new(o, "type", json_string(wl_cmd_name(c->type)));
    switch (c->type) {
    case WL_CMD_PLACE:
        json_object_set_new(o, "unit", json_string(g->sc->units[c->units[0]].id));
        json_object_set_new(o, "at", sq_json(c->to));
        break;
    case WL_CMD_MOVE:
    case WL_CMD_RETREAT: {
        if (c->nunits == 1)
            json_object_set_new(o, "unit", json_string(g->sc->units[c->units[0]].id));
        else
            json_object_set_new(o, "units", ids_json(g, c->units, c->nunits));
        json_t *p = json_array();
        for (int i = 0; i < c->npath; i++)
            json_array_append_new(p, sq_json(c->path[i]));
        json_object_set_new(o, "path", p);
        break;
    }
    case WL_CMD_ADVANCE:
        json_object_set_new(o, "unit", json_string(g->sc->units[c->units[0]].id));
        json_object_set_new(o, "to", sq_json(c->to));
        break;
    case WL_CMD_RESOLVE:
        json_object_set_new(o, "battle", json_integer(c->battle));
        break;
    case WL_CMD_EXCHANGE_LOSSES:
    case WL_CMD_DEFECT:
        json_object_set_new(o, "units", ids_json(g, c->units, c->nunits));
        break;
    case WL_CMD_DECLARE: {
        json_t *bs = json_array();
        for (int i = 0; i < c->nbattles; i++)
            json_array_append_new(bs, json_pack("{s:o, s:o}", "attackers",
                                                ids_json(g, c->battles[i].attackers,
                                                         c->battles[i].nattackers),
                                                "defenders",
                                                ids_json(g, c->battles[i].defenders,
                                                         c->battles[i].ndefenders)));
        json_object_set_new(o, "battles", bs);
        break;
    }
    default:
        break;
    }
    return o;
}
