/*
 * waterloo_combat.c - battles: the odds column, terrain on defence, checking a
 * declaration, classifying retreats and checking advances (see waterloo_combat.h).
 *
 * Pure functions of the game state: nothing here rolls a die or changes a
 * game. The rule texts quoted in the comments are those of the rulebook
 * (the Waterloo rulebook, docs/sources.md); where it is ambiguous the reading
 * chosen is written down in docs/rules-notes.md.
 */
#include "waterloo_combat.h"

#include <string.h>

#include "waterloo_move.h"               /* WL_PATH_OFF: a step off the board */

/* CRT columns (waterloo_scenario.h): 0 = "1-6" .. 5 = "1-1", 6 = "2-1" .. 10 = "6-1". */
enum { COL_1_6 = 0, COL_1_1 = 5, COL_2_1 = 6, COL_6_1 = WL_CRT_COLS - 1 };

/* The neighbour offsets of waterloo_grid.h (E (r, c-1), W (r, c+1), NE (r-1, c),
 * NW (r-1, c+1), SE (r+1, c-1), SW (r+1, c)), indexed by enum wl_dir. They
 * are needed here for steps off the board, whose target may lie outside the
 * frame where wl_grid_neighbour() has no square to return. */
static const int dir_dr[WL_NDIR] = { -1, 0, 1, 1, 0, -1 };
static const int dir_dc[WL_NDIR] = { 0, -1, -1, 0, 1, 1 };

/* --- small helpers -------------------------------------------------------- */

static int valid_unit(const struct wl_game *g, int u)
{
    return u >= 0 && u < g->sc->nunits;
}

static int on_board(const struct wl_game *g, int u)
{
    return g->units[u].where == WL_ON_BOARD && g->units[u].at != WL_SQ_NONE;
}

static int is_hq(const struct wl_game *g, int u)
{
    return g->sc->units[u].type == WL_HQ;
}

static const char *unit_name(const struct wl_game *g, int u)
{
    return g->sc->units[u].name;
}

/* A combat unit (not HQ) of side `side` on the board next to u, or -1. */
static int adjacent_combat_unit(const struct wl_game *g, int u, int side)
{
    wl_sq at = g->units[u].at;
    for (int i = 0; i < g->sc->nunits; i++) {
        if (g->sc->units[i].side != side || is_hq(g, i) || !on_board(g, i))
            continue;
        if (wl_grid_distance(at, g->units[i].at) == 1)
            return i;
    }
    return -1;
}

/* --- odds ----------------------------------------------------------------- */

int wl_combat_column(int attack, int defence)
{
    if (defence <= 0)
        return COL_6_1;                 /* only HQ units defend */
    if (attack <= 0)
        return -1;
    if (attack >= defence) {
        /* floor(attack / defence), in the defender's favour; better than 6-1 is 6-1 */
        int r = attack / defence;
        if (r < 2)
            return COL_1_1;
        if (r > 6)
            r = 6;
        return COL_2_1 + (r - 2);
    }
    /* 1-k with k = ceil(defence / attack), in the defender's favour */
    int k = (defence + attack - 1) / attack;
    if (k > 6)
        return -1;                      /* worse than 1-6: automatic A-Elim */
    return COL_1_6 + (6 - k);
}

/* Rules (the defence table of the rulebook, rows a..f and footnotes):
 *   1) HQ units defend with 0
 *   2) f) a defender on a hill top attacked only from slope squares whose
 *      high side faces it doubles; a river through those slope squares adds
 *      nothing (footnote *): never more than doubled
 *   3) b) a defender not on a river square attacked only from river squares
 *      doubles; this covers footnote ** (attackers on hill tops that a
 *      river runs through)
 *   4) a), c), d), e): otherwise the printed factor */
int wl_combat_defence_factor(const struct wl_game *g, int def, const int16_t *att, int natt)
{
    const struct wl_map *m = &g->sc->map;

    if (!valid_unit(g, def))
        return 0;
    int basic = g->sc->units[def].combat;
    /* 1) */
    if (is_hq(g, def))
        return 0;
    if (!on_board(g, def))
        return basic;
    wl_sq ds = g->units[def].at;
    int n = 0, from_river = 0, uphill = 0;
    for (int i = 0; i < natt; i++) {
        int a = att[i];
        if (!valid_unit(g, a) || !on_board(g, a))
            continue;
        wl_sq as = g->units[a].at;
        int d = wl_grid_dir_to(as, ds);
        n++;
        if (m->cell[as].river != 0)
            from_river++;
        if (d >= 0 && (m->cell[as].slope_high & (1u << d)))
            uphill++;
    }
    if (n == 0)
        return basic;
    /* 2) */
    if (m->cell[ds].hilltop && uphill == n)
        return 2 * basic;
    /* 3) */
    if (m->cell[ds].river == 0 && from_river == n)
        return 2 * basic;
    /* 4) */
    return basic;
}

void wl_combat_odds(const struct wl_game *g, struct wl_battle *b)
{
    int na = b->nattackers, nd = b->ndefenders;
    if (na < 0)
        na = 0;
    if (na > WL_MAX_IN_BATTLE)
        na = WL_MAX_IN_BATTLE;
    if (nd < 0)
        nd = 0;
    if (nd > WL_MAX_IN_BATTLE)
        nd = WL_MAX_IN_BATTLE;

    int attack = 0, defence = 0;
    for (int i = 0; i < na; i++)
        if (valid_unit(g, b->attackers[i]))
            attack += g->sc->units[b->attackers[i]].combat;
    for (int i = 0; i < nd; i++)
        defence += wl_combat_defence_factor(g, b->defenders[i], b->attackers, na);
    b->attack = attack;
    b->defence = defence;
    b->column = wl_combat_column(attack, defence);
}

/* --- declaration ---------------------------------------------------------- */

/* Rule 1 for one unit of a battle: it exists, belongs to the right side,
 * is on the board, and (attackers) is not an HQ unit. */
static enum wl_reason check_member(const struct wl_game *g, int u, int attacking, int mover,
                                   int battle, struct wr_refusal *why)
{
    if (!valid_unit(g, u))
        return wl_refuse(why, WL_R_UNKNOWN_UNIT, "battle %d: there is no unit number %d",
                         battle + 1, u);
    int side = g->sc->units[u].side;
    if (attacking && side != mover)
        return wl_refuse(why, WL_R_NOT_YOUR_UNIT,
                         "battle %d: %s belongs to the other side and cannot attack",
                         battle + 1, unit_name(g, u));
    if (!attacking && side == mover)
        return wl_refuse(why, WL_R_NOT_YOUR_UNIT,
                         "battle %d: %s is your own unit and cannot be attacked", battle + 1,
                         unit_name(g, u));
    if (!on_board(g, u))
        return wl_refuse(why, WL_R_UNIT_NOT_ON_BOARD, "battle %d: %s is not on the board",
                         battle + 1, unit_name(g, u));
    if (attacking && is_hq(g, u))
        return wl_refuse(why, WL_R_HQ_CANNOT_ATTACK,
                         "battle %d: %s is an HQ unit; HQ units are not allowed to attack",
                         battle + 1, unit_name(g, u));
    return WL_R_OK;
}

/* The side that attacks in g's combat phase, or -1 (refused as wrong_phase)
 * outside one. */
static int combat_mover(const struct wl_game *g, struct wr_refusal *why)
{
    if (g->phase == WL_PH_FRENCH_COMBAT)
        return WL_FRENCH;
    if (g->phase == WL_PH_ALLIED_COMBAT)
        return WL_ALLIED;
    wl_refuse(why, WL_R_WRONG_PHASE, "battles are declared in a combat phase, not in %s",
              wl_phase_name(g->phase));
    return -1;
}

/* Rules 1) to 4) of a declaration of nb battles, shared by both rules
 * versions. fought[u] is, on entry, the battle u fought earlier in the
 * phase or -1 (rules 1: all -1); on return the battle of this declaration
 * (0..nb-1) for the units it names. The battles of this declaration are
 * numbered from 1 in the sentences, those fought earlier from 0, as the
 * state numbers them. */
static enum wl_reason check_battles(const struct wl_game *g, const struct wl_battle *b, int nb,
                                    int mover, int *fought, struct wr_refusal *why)
{
    char a[WL_SQ_NAME_MAX], d[WL_SQ_NAME_MAX];
    enum wl_reason r;

    if (nb < 0 || nb > WL_MAX_BATTLES || (nb > 0 && b == NULL))
        return wl_refuse(why, WL_R_BAD_COMMAND, "a declaration holds 0 to %d battles, not %d",
                         WL_MAX_BATTLES, nb);
    for (int i = 0; i < nb; i++)
        if (b[i].nattackers < 0 || b[i].nattackers > WL_MAX_IN_BATTLE ||
            b[i].ndefenders < 0 || b[i].ndefenders > WL_MAX_IN_BATTLE)
            return wl_refuse(why, WL_R_BAD_COMMAND,
                             "battle %d: at most %d attackers and %d defenders", i + 1,
                             WL_MAX_IN_BATTLE, WL_MAX_IN_BATTLE);

    /* 1) */
    for (int i = 0; i < nb; i++) {
        for (int j = 0; j < b[i].nattackers; j++)
            if ((r = check_member(g, b[i].attackers[j], 1, mover, i, why)) != WL_R_OK)
                return r;
        for (int j = 0; j < b[i].ndefenders; j++)
            if ((r = check_member(g, b[i].defenders[j], 0, mover, i, why)) != WL_R_OK)
                return r;
    }
    /* 2) */
    for (int i = 0; i < nb; i++) {
        if (b[i].nattackers == 0)
            return wl_refuse(why, WL_R_EMPTY_BATTLE, "battle %d has no attackers", i + 1);
        if (b[i].ndefenders == 0)
            return wl_refuse(why, WL_R_EMPTY_BATTLE, "battle %d has no defenders", i + 1);
    }
    /* 3) */
    for (int i = 0; i < nb; i++)
        for (int j = 0; j < b[i].nattackers; j++)
            for (int k = 0; k < b[i].ndefenders; k++) {
                int at = b[i].attackers[j], df = b[i].defenders[k];
                if (wl_grid_distance(g->units[at].at, g->units[df].at) != 1)
                    return wl_refuse(why, WL_R_NOT_IN_ZONE,
                                     "battle %d: %s on %s is not in the zone of %s on %s",
                                     i + 1, unit_name(g, at), wl_grid_name(g->units[at].at, a),
                                     unit_name(g, df), wl_grid_name(g->units[df].at, d));
            }
    /* 4) */
    int earlier[WL_MAX_UNITS];
    memcpy(earlier, fought, sizeof(int) * (size_t)g->sc->nunits);
    for (int i = 0; i < nb; i++) {
        for (int side = 0; side < 2; side++) {
            const int16_t *list = side == 0 ? b[i].attackers : b[i].defenders;
            int n = side == 0 ? b[i].nattackers : b[i].ndefenders;
            for (int j = 0; j < n; j++) {
                int u = list[j];
                if (earlier[u] >= 0)
                    return wl_refuse(why, WL_R_ONE_BATTLE,
                                     "%s already fought in battle %d of this phase; no unit "
                                     "may fight more than one battle per turn",
                                     unit_name(g, u), earlier[u]);
                if (fought[u] == i)
                    return wl_refuse(why, WL_R_ONE_BATTLE, "%s is named twice in battle %d",
                                     unit_name(g, u), i + 1);
                if (fought[u] >= 0)
                    return wl_refuse(why, WL_R_ONE_BATTLE,
                                     "%s is in battles %d and %d; no unit may fight more "
                                     "than one battle per turn",
                                     unit_name(g, u), fought[u] + 1, i + 1);
                fought[u] = i;
            }
        }
    }
    return WL_R_OK;
}

/* Rules (waterloo_combat.h; "How to Have Combat", "Attacking", "Multiple Unit Battles"):
 *   1) attackers are the mover's combat units on the board (HQ cannot
 *      attack), defenders are enemy units on the board
 *   2) every battle has attackers and defenders
 *   3) every attacker is adjacent to (in the zone of) every defender of its
 *      battle
 *   4) no unit in more than one battle
 *   5) every mover's combat unit in an enemy zone attacks
 *   6) every enemy combat unit with a mover's combat unit in its zone is
 *      attacked
 * Stacks may be split across battles and soak-offs are allowed: nothing
 * here looks at the odds. Enemy HQ units may be attacked (they have no
 * zone, so they need not be). 1) to 4) are check_battles(). */
enum wl_reason wl_combat_check_declaration(const struct wl_game *g, const struct wl_battle *b,
                                           int nb, struct wr_refusal *why)
{
    const struct wl_scenario *sc = g->sc;
    char a[WL_SQ_NAME_MAX];
    enum wl_reason r;

    int mover = combat_mover(g, why);
    if (mover < 0)
        return WL_R_WRONG_PHASE;
    /* 1) to 4) */
    int battle_of[WL_MAX_UNITS];
    for (int u = 0; u < sc->nunits; u++)
        battle_of[u] = -1;
    if ((r = check_battles(g, b, nb, mover, battle_of, why)) != WL_R_OK)
        return r;
    /* 5) */
    for (int u = 0; u < sc->nunits; u++) {
        if (sc->units[u].side != mover || is_hq(g, u) || !on_board(g, u) || battle_of[u] >= 0)
            continue;
        int e = adjacent_combat_unit(g, u, 1 - mover);
        if (e >= 0)
            return wl_refuse(why, WL_R_MUST_ATTACK, "%s on %s is in the zone of %s and must attack",
                             unit_name(g, u), wl_grid_name(g->units[u].at, a), unit_name(g, e));
    }
    /* 6) */
    for (int u = 0; u < sc->nunits; u++) {
        if (sc->units[u].side == mover || is_hq(g, u) || !on_board(g, u) || battle_of[u] >= 0)
            continue;
        int e = adjacent_combat_unit(g, u, mover);
        if (e >= 0)
            return wl_refuse(why, WL_R_MUST_BE_ATTACKED,
                             "%s on %s has %s in its zone and must be attacked", unit_name(g, u),
                             wl_grid_name(g->units[u].at, a), unit_name(g, e));
    }
    return WL_R_OK;
}

/* --- battles one at a time (rules 2) ------------------------------------------ */

int wl_combat_engaged(const struct wl_game *g, int u)
{
    if (!valid_unit(g, u) || is_hq(g, u) || !on_board(g, u))
        return 0;
    return adjacent_combat_unit(g, u, 1 - g->sc->units[u].side) >= 0;
}

int wl_combat_owes(const struct wl_game *g, int u)
{
    return valid_unit(g, u) && g->units[u].engaged && g->units[u].battle < 0 && on_board(g, u);
}

/* An engaged enemy of u next to it that has not fought (fought[e] < 0),
 * or -1. Units that have not fought have not moved since the phase began,
 * so this is the contact of the phase's start, less the units used. */
static int open_partner(const struct wl_game *g, int u, const int *fought)
{
    int side = g->sc->units[u].side;
    for (int e = 0; e < g->sc->nunits; e++)
        if (g->sc->units[e].side != side && g->units[e].engaged && fought[e] < 0 &&
            on_board(g, e) && wl_grid_distance(g->units[e].at, g->units[u].at) == 1)
            return e;
    return -1;
}

/* Rules (waterloo_combat.h, wl_combat_check_battles):
 *   0) a combat phase, and room for the battles
 *   1) to 4) check_battles(), battles fought earlier in the phase counted
 *   5) no engaged unit that still owes a battle is left without an engaged
 *      enemy next to it that still owes one: a star of the remaining
 *      contact is then always a legal battle (docs/rules-notes.md, D3) */
enum wl_reason wl_combat_check_battles(const struct wl_game *g, const struct wl_battle *b,
                                       int nb, struct wr_refusal *why)
{
    const struct wl_scenario *sc = g->sc;
    char a[WL_SQ_NAME_MAX];
    enum wl_reason r;

    /* 0) */
    int mover = combat_mover(g, why);
    if (mover < 0)
        return WL_R_WRONG_PHASE;
    if (nb > WL_MAX_BATTLES - g->nbattles)
        return wl_refuse(why, WL_R_BAD_COMMAND,
                         "a combat phase holds at most %d battles; %d are declared already",
                         WL_MAX_BATTLES, g->nbattles);
    /* 1) to 4) */
    int fought[WL_MAX_UNITS];
    for (int u = 0; u < sc->nunits; u++)
        fought[u] = g->units[u].battle;
    if ((r = check_battles(g, b, nb, mover, fought, why)) != WL_R_OK)
        return r;
    /* 5) */
    for (int u = 0; u < sc->nunits; u++) {
        if (!g->units[u].engaged || fought[u] >= 0 || !on_board(g, u) ||
            open_partner(g, u, fought) >= 0)
            continue;
        if (sc->units[u].side == mover)
            return wl_refuse(why, WL_R_STRANDED,
                             "%s on %s must attack, and after these battles no enemy unit next "
                             "to it would be left to attack: put it in one of them",
                             unit_name(g, u), wl_grid_name(g->units[u].at, a));
        return wl_refuse(why, WL_R_STRANDED,
                         "%s on %s must be attacked, and after these battles no unit of yours "
                         "next to it would be left to attack it: attack it in one of them",
                         unit_name(g, u), wl_grid_name(g->units[u].at, a));
    }
    return WL_R_OK;
}

/* Rules ("All units which move into an enemy zone of control must attack
 * some enemy unit and all defending units in an enemy zone of control must
 * be attacked by at least one enemy unit"), judged on the units engaged
 * when the phase began:
 *   1) every engaged unit of the mover has fought
 *   2) every engaged enemy unit has fought */
enum wl_reason wl_combat_check_obligations(const struct wl_game *g, struct wr_refusal *why)
{
    const struct wl_scenario *sc = g->sc;
    char a[WL_SQ_NAME_MAX];
    int mover = combat_mover(g, why);
    if (mover < 0)
        return WL_R_WRONG_PHASE;
    for (int pass = 0; pass < 2; pass++)
        for (int u = 0; u < sc->nunits; u++) {
            if ((sc->units[u].side == mover) != (pass == 0) || !wl_combat_owes(g, u))
                continue;
            int e = adjacent_combat_unit(g, u, 1 - sc->units[u].side);
            /* 1) */
            if (pass == 0)
                return wl_refuse(why, WL_R_MUST_ATTACK,
                                 "%s on %s is in the zone of %s and must attack before the "
                                 "combat phase ends",
                                 unit_name(g, u), wl_grid_name(g->units[u].at, a),
                                 e >= 0 ? unit_name(g, e) : "the enemy");
            /* 2) */
            return wl_refuse(why, WL_R_MUST_BE_ATTACKED,
                             "%s on %s has %s in its zone and must be attacked before the "
                             "combat phase ends",
                             unit_name(g, u), wl_grid_name(g->units[u].at, a),
                             e >= 0 ? unit_name(g, e) : "a unit of yours");
        }
    return WL_R_OK;
}

int wl_combat_can_declare(const struct wl_game *g)
{
    int mover = wl_phase_mover(g->phase);
    if (g->phase != WL_PH_FRENCH_COMBAT && g->phase != WL_PH_ALLIED_COMBAT)
        return 0;
    for (int u = 0; u < g->sc->nunits; u++) {
        if (g->sc->units[u].side != mover || is_hq(g, u) || !on_board(g, u) ||
            g->units[u].battle >= 0)
            continue;
        for (int e = 0; e < g->sc->nunits; e++)
            if (g->sc->units[e].side != mover && on_board(g, e) && g->units[e].battle < 0 &&
                wl_grid_distance(g->units[e].at, g->units[u].at) == 1)
                return 1;
    }
    return 0;
}

/* --- retreats ------------------------------------------------------------- */

/* One step of a retreat. */
struct step {
    wl_sq to;                   /* the square entered, or WL_SQ_NONE when off the board */
    int dir;                    /* hexside crossed, from the previous square */
    int off;                    /* the step leaves the playable board */
    int exit;                   /* ... by the road of a French exit square */
};

static int iabs(int v) { return v < 0 ? -v : v; }

/* Distance from square s to the (possibly out-of-frame) neighbour of
 * square from in direction d. */
static int distance_to_step(wl_sq s, wl_sq from, int d)
{
    int dr = wl_sq_row(from) + dir_dr[d] - wl_sq_row(s);
    int dc = wl_sq_col(from) + dir_dc[d] - wl_sq_col(s);
    int m = iabs(dr);
    if (iabs(dc) > m)
        m = iabs(dc);
    if (iabs(dr + dc) > m)
        m = iabs(dr + dc);
    return m;
}

/* Does hexside d of square from lead off the playable board? */
static int off_board_side(wl_sq from, int d)
{
    wl_sq n = wl_grid_neighbour(from, d);
    return n == WL_SQ_NONE || !wl_grid_playable(n);
}

/* The rulebook's EXCEPTION: a French unit leaving an exit square (A-39 ..
 * A-45) through the hexside its road crosses. */
static int exit_side(const struct wl_game *g, int u, wl_sq from, int d)
{
    const struct wl_cell *c = &g->sc->map.cell[from];
    return g->sc->units[u].side == WL_FRENCH && c->exit && c->road[d] != 0;
}

/* Resolve one step from `from` to `given` (a square, or WL_PATH_OFF: off the
 * board by whichever hexside fits, the exit road first). The last step must
 * end two squares from start. Returns 0, or -1 when it is not a step. */
static int resolve_step(const struct wl_game *g, int u, wl_sq start, wl_sq from, wl_sq given,
                        int last, struct step *st)
{
    st->to = WL_SQ_NONE;
    st->dir = -1;
    st->off = 0;
    st->exit = 0;
    if (given == WL_PATH_OFF) {
        for (int d = 0; d < WL_NDIR; d++) {
            if (!off_board_side(from, d) || (last && distance_to_step(start, from, d) != 2))
                continue;
            int ex = exit_side(g, u, from, d);
            if (st->dir < 0 || (ex && !st->exit)) {
                st->dir = d;
                st->exit = ex;
            }
        }
        st->off = 1;
        return st->dir >= 0 ? 0 : -1;
    }
    int d = wl_grid_dir_to(from, given);
    if (d < 0)
        return -1;
    if (last && distance_to_step(start, from, d) != 2)
        return -1;
    st->dir = d;
    if (!wl_grid_playable(given)) {
        st->off = 1;                    /* a partial square: off the board */
        st->exit = exit_side(g, u, from, d);
        return 0;
    }
    st->to = given;
    return 0;
}

/* Rules (Combat Results Explanation, BACK 2, a..f and the EXCEPTION):
 *   1) u is a unit on the board
 *   2) a retreat is two steps, each to a square touching the previous one
 *      or off the board (WL_PATH_OFF, or a partial square; after leaving
 *      the board only WL_PATH_OFF follows), never into a square held by
 *      the enemy (wl_game_enemy_holds: under rules 2 not a square of enemy
 *      HQ units alone, which the unit enters, eliminating them), and it
 *      ends two squares from the start
 *   3) a) a square entered in an enemy zone of control eliminates
 *   4) b) a step off the board eliminates, except the EXCEPTION (8)
 *   5) c), d) a river square entered eliminates, unless the unit started
 *      on a square of that same river ("any direction" from a river
 *      square; another river still eliminates)
 *   6) f) a woods first square eliminates unless it has a road, the step
 *      into it crosses the road's hexside and the second step follows the
 *      road too
 *   7) e) friendly squares are passed freely, but more than 15 combat
 *      factors on the final square eliminate the unit
 *   8) EXCEPTION: a French unit stepping off the board from A-39..A-45
 *      through the hexside its road crosses exits (defections); otherwise
 *      the outcome is safe
 * wl_combat_retreat_outcome() and wl_combat_open_retreats() share it with
 * the occupancy built once. */
static enum wl_reason classify_retreat(const struct wl_game *g, const struct wl_occupancy *occ,
                                       int u, const wl_sq *path, int n, int *outcome,
                                       struct wr_refusal *why)
{
    const struct wl_map *m = &g->sc->map;
    char a[WL_SQ_NAME_MAX], b[WL_SQ_NAME_MAX];
    struct step st[2];

    /* 1) */
    if (!valid_unit(g, u))
        return wl_refuse(why, WL_R_UNKNOWN_UNIT, "there is no unit number %d", u);
    if (!on_board(g, u))
        return wl_refuse(why, WL_R_UNIT_NOT_ON_BOARD, "%s is not on the board", unit_name(g, u));
    wl_sq start = g->units[u].at;
    int side = g->sc->units[u].side, enemy = 1 - side;

    /* 2) */
    if (path == NULL || n != 2)
        return wl_refuse(why, WL_R_BAD_RETREAT, "a retreat of %s is two squares, not %d",
                         unit_name(g, u), path == NULL ? 0 : n);
    wl_sq from = start;
    for (int i = 0; i < 2; i++) {
        if (i == 1 && st[0].off) {
            if (path[1] != WL_PATH_OFF)
                return wl_refuse(why, WL_R_BAD_RETREAT,
                                 "%s has left the board; its retreat cannot go on to %s",
                                 unit_name(g, u), wl_grid_name(path[1], a));
            st[1] = st[0];
            break;
        }
        if (resolve_step(g, u, start, from, path[i], i == 1, &st[i]) != 0) {
            if (path[i] == WL_PATH_OFF)
                return wl_refuse(why, WL_R_BAD_RETREAT,
                                 "%s cannot step off the board from %s%s", unit_name(g, u),
                                 wl_grid_name(from, a),
                                 i == 1 ? " two squares from where it started" : "");
            if (wl_grid_dir_to(from, path[i]) < 0)
                return wl_refuse(why, WL_R_BAD_RETREAT, "%s does not touch %s",
                                 wl_grid_name(path[i], a), wl_grid_name(from, b));
            return wl_refuse(why, WL_R_BAD_RETREAT,
                             "a retreat of %s from %s must end two squares away, not on %s",
                             unit_name(g, u), wl_grid_name(start, a), wl_grid_name(path[i], b));
        }
        if (st[i].to != WL_SQ_NONE &&
            wl_game_enemy_holds(g, occ, st[i].to, side, g->sc->units[u].combat > 0))
            return wl_refuse(why, WL_R_BAD_RETREAT, "%s may not retreat into %s, held by the enemy",
                             unit_name(g, u), wl_grid_name(st[i].to, a));
        if (st[i].to != WL_SQ_NONE)
            from = st[i].to;
    }

    int elim = 0;
    /* 3) */
    for (int i = 0; i < 2 && !elim; i++)
        if (st[i].to != WL_SQ_NONE && wl_game_in_zoc(g, occ, st[i].to, enemy))
            elim = 1;
    /* 4) */
    for (int i = 0; i < 2 && !elim; i++)
        if (st[i].off && !st[i].exit)
            elim = 1;
    /* 5) */
    int home_river = m->cell[start].river;
    for (int i = 0; i < 2 && !elim; i++) {
        int river = st[i].to != WL_SQ_NONE ? m->cell[st[i].to].river : 0;
        if (river != 0 && river != home_river)
            elim = 1;
    }
    /* 6) */
    if (!elim && st[0].to != WL_SQ_NONE && m->cell[st[0].to].woods) {
        const struct wl_cell *w = &m->cell[st[0].to];
        int road_in = m->cell[start].road[st[0].dir] != 0;
        int road_on = st[1].dir >= 0 && w->road[st[1].dir] != 0;
        if (!wl_map_has_road(m, st[0].to) || !road_in || !road_on)
            elim = 1;
    }
    /* 7) */
    if (!elim && st[1].to != WL_SQ_NONE &&
        occ->factors[st[1].to] + g->sc->units[u].combat > WL_STACK_LIMIT)
        elim = 1;
    /* 8) */
    if (elim)
        *outcome = WL_RET_ELIMINATED;
    else if (st[0].exit || st[1].exit)
        *outcome = WL_RET_EXIT;
    else
        *outcome = WL_RET_SAFE;
    return WL_R_OK;
}

/* The rules are those of classify_retreat(), above. */
enum wl_reason wl_combat_retreat_outcome(const struct wl_game *g, int u, const wl_sq *path,
                                         int n, int *outcome, struct wr_refusal *why)
{
    struct wl_occupancy occ;
    int dummy;
    wl_game_occupancy(g, &occ);
    return classify_retreat(g, &occ, u, path, n, outcome ? outcome : &dummy, why);
}

int wl_combat_open_retreats(const struct wl_game *g, int u, wl_sq (*paths)[2], int max)
{
    struct wl_occupancy occ;
    int count = 0;

    if (!valid_unit(g, u) || !on_board(g, u))
        return 0;
    wl_game_occupancy(g, &occ);
    wl_sq start = g->units[u].at;

    /* Candidates: off the board at once, then every first square with
     * every second square, or off the board from the first square. */
    wl_sq cand[1 + WL_NDIR * (WL_NDIR + 1)][2];
    int nc = 0;
    cand[nc][0] = WL_PATH_OFF;
    cand[nc++][1] = WL_PATH_OFF;
    for (int d1 = 0; d1 < WL_NDIR; d1++) {
        wl_sq s1 = wl_grid_neighbour(start, d1);
        if (s1 == WL_SQ_NONE || !wl_grid_playable(s1))
            continue;
        cand[nc][0] = s1;
        cand[nc++][1] = WL_PATH_OFF;
        for (int d2 = 0; d2 < WL_NDIR; d2++) {
            wl_sq s2 = wl_grid_neighbour(s1, d2);
            if (s2 == WL_SQ_NONE || !wl_grid_playable(s2))
                continue;
            cand[nc][0] = s1;
            cand[nc++][1] = s2;
        }
    }
    for (int i = 0; i < nc; i++) {
        int out;
        if (classify_retreat(g, &occ, u, cand[i], 2, &out, NULL) != WL_R_OK ||
            out == WL_RET_ELIMINATED)
            continue;
        if (paths != NULL && count < max) {
            paths[count][0] = cand[i][0];
            paths[count][1] = cand[i][1];
        }
        count++;
    }
    return count;
}

/* --- advance after combat ------------------------------------------------- */

/* Rules (Movement After Combat):
 *   1) u is an attacker of b, still on the board (a survivor of an
 *      exchange may advance)
 *   2) to is a square b's defenders vacated, next to u, not held by the
 *      enemy (under rules 2 enemy HQ units alone there do not hold it: they
 *      are eliminated when u advances)
 *   3) u attacked from a river square (any vacated square), or from a
 *      slope square and to is a hill top; zones of control do not matter
 *   4) at most 15 combat factors end on to (attackers may advance onto it
 *      one after another) */
enum wl_reason wl_combat_check_advance(const struct wl_game *g, const struct wl_battle *b,
                                       int u, wl_sq to, struct wr_refusal *why)
{
    const struct wl_map *m = &g->sc->map;
    char a[WL_SQ_NAME_MAX], t[WL_SQ_NAME_MAX];

    /* 1) */
    if (!valid_unit(g, u))
        return wl_refuse(why, WL_R_UNKNOWN_UNIT, "there is no unit number %d", u);
    int attacker = 0;
    for (int i = 0; i < b->nattackers && i < WL_MAX_IN_BATTLE; i++)
        if (b->attackers[i] == u)
            attacker = 1;
    if (!attacker)
        return wl_refuse(why, WL_R_NO_ADVANCE, "%s did not attack in this battle", unit_name(g, u));
    if (!on_board(g, u))
        return wl_refuse(why, WL_R_UNIT_NOT_ON_BOARD, "%s is not on the board", unit_name(g, u));
    wl_sq at = g->units[u].at;

    /* 2) */
    int vacated = 0;
    for (int i = 0; i < b->nvacated && i < WL_MAX_IN_BATTLE; i++)
        if (b->vacated[i] == to)
            vacated = 1;
    if (!vacated || !wl_grid_playable(to))
        return wl_refuse(why, WL_R_NO_ADVANCE,
                         "%s may advance only onto a square the defeated units vacated, not %s",
                         unit_name(g, u), wl_grid_name(to, t));
    if (wl_grid_distance(at, to) != 1)
        return wl_refuse(why, WL_R_NO_ADVANCE, "%s on %s does not touch %s", unit_name(g, u),
                         wl_grid_name(at, a), wl_grid_name(to, t));
    struct wl_occupancy occ;
    wl_game_occupancy(g, &occ);
    if (wl_game_enemy_holds(g, &occ, to, g->sc->units[u].side, g->sc->units[u].combat > 0))
        return wl_refuse(why, WL_R_ENEMY_SQUARE, "%s is held by the enemy", wl_grid_name(to, t));

    /* 3) */
    int from_river = m->cell[at].river != 0;
    int slope_to_hill = m->cell[at].slope_high != 0 && m->cell[to].hilltop;
    if (!from_river && !slope_to_hill) {
        if (m->cell[at].slope_high != 0)
            return wl_refuse(why, WL_R_NO_ADVANCE,
                             "%s attacked from the slope %s; it may advance only onto a "
                             "vacated hill top, and %s is not one",
                             unit_name(g, u), wl_grid_name(at, a), wl_grid_name(to, t));
        return wl_refuse(why, WL_R_NO_ADVANCE,
                         "%s attacked from %s, neither a river nor a slope square, and may "
                         "not advance",
                         unit_name(g, u), wl_grid_name(at, a));
    }

    /* 4) */
    int total = occ.factors[to] + g->sc->units[u].combat;
    if (total > WL_STACK_LIMIT)
        return wl_refuse(why, WL_R_STACKING, "%s on %s would make %d combat factors there",
                         unit_name(g, u), wl_grid_name(to, t), total);
    return WL_R_OK;
}
