/*
 * waterloo_move.c - movement (see waterloo_move.h). One step function, step(), decides
 * whether a unit in a given search state may take one step to a neighbour
 * square (or off the board), and gives the new state or the reason it may
 * not. wl_move_check() walks a submitted path through it; wl_move_reach()
 * runs a breadth-first search over the same states. A road step may be paid
 * with a normal point or with a road-bonus point, so both keep every state
 * that no other state at the same square dominates (spending the bonus
 * greedily is wrong: rule b of the road rules forbids resuming it).
 *
 * Per call, the squares are summarised once in small arrays (enemy units,
 * enemy zones, zones of the units the mover started next to, friendly
 * factors), so a step is a handful of array reads.
 */
#include "waterloo_move.h"

#include <stdio.h>
#include <string.h>

/* What a square holds, for the side moving (struct mv.sq). */
enum {
    SQ_ENEMY = 1,   /* an enemy unit stands on it */
    SQ_ZOC = 2,     /* in the zone of an enemy combat unit */
    SQ_ZSTART = 4,  /* in the zone of an enemy unit whose zone the mover started in */
};

/* The part of a search state that the path decides (struct lab.flags). */
enum {
    F_FIRST = 1,        /* on the start square, no step taken yet */
    F_ENTRY = 2,        /* on the partial entry square (reinforcement) */
    F_PEND = 4,         /* entered a river square off the road: next step only along it */
    F_STOP_WOODS = 8,   /* entered woods off the road: must stop */
    F_STOP_ZOC = 16,    /* entered an enemy zone: must stop */
    F_DEAD = 32,        /* dominated by another state on the square (search only) */
};
#define F_RESTRICT (F_PEND | F_STOP_WOODS | F_STOP_ZOC)
#define F_STOP (F_STOP_WOODS | F_STOP_ZOC)

/* Road-bonus status (struct lab.road): unused, in use on road id 1..64, done. */
#define ROAD_UNUSED 0
#define ROAD_DONE 255
#define BONUS_MAX 4

#define D_OFF WL_NDIR   /* the "direction" of leaving the board */

/* The search calls step() and search_add() a few thousand times per reach;
 * inlined they cost about a third less (GCC does not inline them itself). */
#define HOT inline __attribute__((always_inline))
enum { PAY_NORMAL, PAY_BONUS };

/* States of the search pool. MF 6 + 4 needs a few hundred; a unit of
 * movement 20 on a board of roads (paths of up to WL_PATH_MAX squares)
 * about 1,800 (test_fast_unit). */
#define POOL_MAX 8192
#define SET_MAX 32      /* states kept per step of one given path */

/* A search state: where the units are and what they have used. */
struct lab {
    wl_sq at;           /* square, or WL_PATH_OFF */
    int16_t parent;     /* pool index of the previous state, -1 at the start */
    int16_t next;       /* next state on the same square (pool list) */
    uint8_t used;       /* normal movement points used */
    uint8_t bonus;      /* primary-road bonus points used (BONUS_MAX once done) */
    uint8_t road;       /* ROAD_UNUSED, the road id of the bonus, or ROAD_DONE */
    uint8_t flags;      /* F_* */
    uint8_t len;        /* path elements so far */
};

/* Everything a step needs, built once per call. */
struct mv {
    const struct wl_game *g;
    const struct wl_map *m;
    const int *units;
    int nunits;
    int side;           /* side moving */
    int mf;             /* movement factor of the slowest unit */
    int factors;        /* combat factors of the units moving */
    int pending;        /* 1: reinforcements entering at entry */
    int entry;          /* entry index used, or -1 */
    wl_sq start;        /* start square, or the entry square */
    int may_exit;       /* French: may leave the board from exit squares */
    uint8_t sq[WL_NSQ];     /* SQ_* */
    uint8_t fac[WL_NSQ];    /* combat factors of friendly units not moving */
};

/* wl_grid_neighbour() and wl_grid_playable() without calls or divisions:
 * the search makes thousands of them. A neighbour is s + dir_delta[d]; the
 * frame has a column 0 that is never playable, so a step off the east or
 * west edge lands on a square that is not playable, never on a wrong one. */
static const int dir_delta[WL_NDIR] = {
    -WL_COLS, -1, WL_COLS - 1, WL_COLS, 1, -WL_COLS + 1,  /* NE E SE SW W NW */
};

/* Playable: rows A..WW with 1 <= x = 2c + r - 51 <= 65 (waterloo_grid.h). */
#define PL(r, c) ((c) >= 1 && (r) >= 1 && 2 * (c) + (r) - 51 >= 1 && 2 * (c) + (r) - 51 <= 65)
#define PL10(r, c) PL(r, c), PL(r, c + 1), PL(r, c + 2), PL(r, c + 3), PL(r, c + 4), \
    PL(r, c + 5), PL(r, c + 6), PL(r, c + 7), PL(r, c + 8), PL(r, c + 9)
#define PLROW(r) PL10(r, 0), PL10(r, 10), PL10(r, 20), PL10(r, 30), PL10(r, 40), \
    PL(r, 50), PL(r, 51), PL(r, 52), PL(r, 53), PL(r, 54), PL(r, 55), PL(r, 56), PL(r, 57)
#define PLROW10(r) PLROW(r), PLROW(r + 1), PLROW(r + 2), PLROW(r + 3), PLROW(r + 4), \
    PLROW(r + 5), PLROW(r + 6), PLROW(r + 7), PLROW(r + 8), PLROW(r + 9)
_Static_assert(WL_ROWS == 50 && WL_COLS == 58, "the playable table assumes a 50 x 58 frame");
static const uint8_t playable_sq[WL_NSQ] = {
    PLROW10(0), PLROW10(10), PLROW10(20), PLROW10(30), PLROW10(40),
};
#undef PL
#undef PL10
#undef PLROW
#undef PLROW10

/* Neighbour of s in direction d: a square of the frame, or WL_SQ_NONE.
 * (Column 0 results are possible: never playable.) */
static inline wl_sq nb(wl_sq s, int d)
{
    int n = s + dir_delta[d];
    return (n >= 0 && n < WL_NSQ) ? (wl_sq)n : WL_SQ_NONE;
}

static inline int playable(wl_sq s)
{
    return s >= 0 && s < WL_NSQ && playable_sq[s];
}

/* Do playable squares a and b touch? (A wrapped offset would name a
 * column-0 square, which is not playable, so the offsets are exact.) */
static inline int touch(wl_sq a, wl_sq b)
{
    int k = b - a;
    return k == dir_delta[0] || k == dir_delta[1] || k == dir_delta[2] || k == dir_delta[3] ||
           k == dir_delta[4] || k == dir_delta[5];
}

static inline int any_road(const struct wl_cell *cell)
{
    return (cell->road[0] | cell->road[1] | cell->road[2] | cell->road[3] | cell->road[4] |
            cell->road[5]) != 0;
}

/* A road-woods square: woods with a road through it. */
static inline int road_woods(const struct wl_cell *cell)
{
    return cell->woods && any_road(cell);
}

/* The road that leaves the board from s (a road hexside towards a square
 * that is not playable), or 0: leaving the board from s along it crosses a
 * road hexside. */
static int exit_road(const struct wl_map *m, wl_sq s)
{
    for (int d = 0; d < WL_NDIR; d++) {
        int r = m->cell[s].road[d];
        if (r != 0 && !playable(nb(s, d)))
            return r;
    }
    return 0;
}

/*
 * One step of the units from state *from to square `to`, in direction d
 * from from->at (d < 0: not adjacent; d == D_OFF: leave the board, `to` is
 * WL_PATH_OFF), paid with a normal point or a bonus point (pay). Returns
 * WL_R_OK and the new state in *out, or the reason the step is refused.
 * Rules, in the order of waterloo_move.h:
 *   1) `to` is a square, touches from->at and is playable (so a step from
 *      the partial entry square goes onto the board, never along the edge)
 *   2) no square the enemy holds (wl_game_enemy_holds: under rules 2 a
 *      square of enemy HQ units alone is open to combat units)
 *   3) movement: a normal point while fewer than the movement factor are
 *      used; a bonus point only across a primary-road hexside, on the one
 *      road of the bonus, fewer than 4 used, never from the entry square
 *      (its first square is a basic point) nor off the board. A step that is
 *      not along the road of a bonus in use ends that bonus (rule b). At
 *      most WL_PATH_MAX path elements.
 *   4) a unit that entered a river square off the road steps only to a
 *      square of the same river
 *   5) a unit that entered woods off the road has stopped
 *   6) from a road-woods square only through a road hexside, except the
 *      first step of a unit that started there
 *   7) a unit that entered an enemy zone has stopped; from a zone square
 *      (the start) not into another zone square (zoc_same_unit when the same
 *      enemy unit controls it); never into the zone of a unit whose zone the
 *      unit started in (zoc_reenter)
 *   8) stacking concerns the final square only: see end_ok()
 *   9) off the board only French units, only from exit squares
 * The new state stops (woods, zone) or is bound to a river as the square
 * entered and the hexside crossed say.
 */
static HOT enum wl_reason step(const struct mv *c, const struct lab *from, wl_sq to, int d,
                               int pay, struct lab *out)
{
    const struct wl_map *m = c->m;
    const struct wl_cell *fc = &m->cell[from->at];
    int off = d == D_OFF;
    int rid;

    /* 1) */
    if (off) {
        rid = exit_road(m, from->at);
    } else {
        if (to < 0 || to >= WL_NSQ)
            return WL_R_BAD_SQUARE;
        if (d < 0)
            return to % WL_COLS == 0 ? WL_R_BAD_SQUARE : WL_R_NOT_ADJACENT;
        if (!playable_sq[to])
            return WL_R_NOT_PLAYABLE;
        rid = fc->road[d];
    }
    /* 2) */
    if (!off && (c->sq[to] & SQ_ENEMY))
        return WL_R_ENEMY_SQUARE;
    /* 3) */
    *out = *from;
    if (from->len >= WL_PATH_MAX)
        return WL_R_TOO_FAR;
    out->len++;
    if (pay == PAY_NORMAL) {
        if (from->used >= c->mf)
            return WL_R_TOO_FAR;
        out->used++;
        if (from->road != ROAD_UNUSED && from->road != ROAD_DONE && from->road != rid) {
            out->road = ROAD_DONE;
            out->bonus = BONUS_MAX;
        }
    } else {
        if (off || (from->flags & F_ENTRY) || rid == 0 ||
            m->roads[rid].kind != WL_ROAD_PRIMARY || from->bonus >= BONUS_MAX ||
            (from->road != ROAD_UNUSED && from->road != rid))
            return WL_R_TOO_FAR;
        out->bonus++;
        out->road = out->bonus >= BONUS_MAX ? ROAD_DONE : (uint8_t)rid;
    }
    /* 4) */
    if ((from->flags & F_PEND) && (off || m->cell[to].river != fc->river))
        return WL_R_RIVER_STOP;
    /* 5) */
    if (from->flags & F_STOP_WOODS)
        return WL_R_WOODS_STOP;
    /* 6) */
    if (rid == 0 && !(from->flags & F_FIRST) && road_woods(fc))
        return WL_R_ROAD_WOODS_EXIT;
    /* 7) */
    if (from->flags & F_STOP_ZOC)
        return WL_R_ZOC_STOP;
    if (!off && (c->sq[to] & SQ_ZOC)) {
        if (c->sq[from->at] & SQ_ZOC)
            return (c->sq[to] & SQ_ZSTART) ? WL_R_ZOC_SAME_UNIT : WL_R_ZOC_TO_ZOC;
        if (c->sq[to] & SQ_ZSTART)
            return WL_R_ZOC_REENTER;
    }
    /* 9) */
    if (off && !(c->may_exit && fc->exit))
        return WL_R_EXIT_NOT_ALLOWED;

    out->flags = 0;
    if (off) {
        out->at = WL_PATH_OFF;
        return WL_R_OK;
    }
    out->at = to;
    if (rid == 0) {
        if (m->cell[to].woods)
            out->flags |= F_STOP_WOODS;
        if (m->cell[to].river)
            out->flags |= F_PEND;
    }
    if (c->sq[to] & SQ_ZOC)
        out->flags |= F_STOP_ZOC;
    return WL_R_OK;
}

/* 8) The units may end on s: at most WL_STACK_LIMIT combat factors there. */
static int end_ok(const struct mv *c, wl_sq s)
{
    return s == WL_PATH_OFF || c->fac[s] + c->factors <= WL_STACK_LIMIT;
}

/* Bonus points x may still spend: on its road when in use, on any primary
 * road when unused. */
static inline int bonus_left(const struct lab *x)
{
    return x->road == ROAD_DONE ? 0 : BONUS_MAX - x->bonus;
}

/* Can a do everything b can (same square)? Its restrictions are a subset of
 * b's, it has at least b's normal points left, and its spare normal points
 * plus the bonus it can spend wherever b can spend bonus cover b's bonus:
 * then a pays each step of any continuation of b, a bonus step with its own
 * bonus where it may and with a spare normal point where not. (So a state
 * that spent its bonus early dominates one that saved it for the same road,
 * which keeps the number of states per road square small.) */
static inline int dominates(const struct lab *a, const struct lab *b)
{
    if ((a->flags & F_RESTRICT) & ~(b->flags & F_RESTRICT))
        return 0;
    if ((b->flags & F_FIRST) && !(a->flags & F_FIRST))
        return 0;
    if (a->used > b->used || a->len > b->len)
        return 0;
    int need = bonus_left(b);
    if (need == 0)
        return 1;
    int cover = 0;
    if (a->road == ROAD_UNUSED || (a->road == b->road && b->road != ROAD_UNUSED))
        cover = bonus_left(a);
    return cover + (b->used - a->used) >= need;
}

/* --- explaining a refusal (slow path: only when a sentence is wanted) --- */

static void stack_name(const struct mv *c, char *buf, size_t size)
{
    const struct wl_scenario *sc = c->g->sc;
    const char *first = sc->units[c->units[0]].name;
    if (c->nunits == 1)
        snprintf(buf, size, "%s", first);
    else if (c->nunits == 2)
        snprintf(buf, size, "%s and %s", first, sc->units[c->units[1]].name);
    else
        snprintf(buf, size, "%s and %d others", first, c->nunits - 1);
}

static const char *unit_name(const struct mv *c, int u)
{
    return u >= 0 ? c->g->sc->units[u].name : "?";
}

/* An enemy unit on s (any), or -1. */
static int enemy_on(const struct mv *c, wl_sq s)
{
    for (int i = 0; i < c->g->sc->nunits; i++)
        if (c->g->units[i].where == WL_ON_BOARD && c->g->units[i].at == s &&
            c->g->sc->units[i].side != c->side)
            return i;
    return -1;
}

/* An enemy combat unit whose zone holds s (and, with started, whose zone
 * the units started in), or -1. */
static int controller(const struct mv *c, wl_sq s, int started)
{
    for (int i = 0; i < c->g->sc->nunits; i++) {
        const struct wl_unit *u = &c->g->units[i];
        const struct wl_unit_def *def = &c->g->sc->units[i];
        if (u->where != WL_ON_BOARD || def->side == c->side || def->type == WL_HQ ||
            wl_grid_distance(u->at, s) != 1)
            continue;
        if (started && (c->pending || wl_grid_distance(u->at, c->start) != 1))
            continue;
        return i;
    }
    return -1;
}

/* Fill why with the sentence for reason r of the step from *from to `to`. */
static enum wl_reason explain(const struct mv *c, enum wl_reason r, const struct lab *from,
                              wl_sq to, struct wr_refusal *why)
{
    char who[WR_REFUSAL_MSG_MAX / 2], a[WL_SQ_NAME_MAX], b[16];
    const struct wl_map *m = c->m;

    if (why == NULL)
        return r;
    stack_name(c, who, sizeof who);
    wl_grid_name(from->at, a);
    if (to == WL_PATH_OFF)
        snprintf(b, sizeof b, "off the board");
    else
        wl_grid_name(to, b);
    switch (r) {
    case WL_R_BAD_SQUARE:
        return wl_refuse(why, r, "%s: the path names something that is not a square", who);
    case WL_R_NOT_ADJACENT:
        if (to == from->at)
            return wl_refuse(why, r, "%s: the path names %s, where it already stands; a path "
                             "lists only the squares entered, so leave %s out", who, b, b);
        return wl_refuse(why, r, "%s: %s does not touch %s", who, b, a);
    case WL_R_NOT_PLAYABLE:
        return wl_refuse(why, r, "%s may not enter %s: only squares showing all six sides are "
                         "playable", who, b);
    case WL_R_ENEMY_SQUARE:
        return wl_refuse(why, r, "%s may not enter %s: it is held by %s", who, b,
                         unit_name(c, enemy_on(c, to)));
    case WL_R_TOO_FAR:
        return wl_refuse(why, r, "%s cannot go on from %s to %s: its movement factor of %d is "
                         "spent and no primary-road bonus is left for that step", who, a, b,
                         c->mf);
    case WL_R_RIVER_STOP:
        return wl_refuse(why, r, "%s must stop on %s: it entered the %s there off the road, "
                         "and %s is not along that river", who, a,
                         m->rivers[m->cell[from->at].river], b);
    case WL_R_WOODS_STOP:
        return wl_refuse(why, r, "%s must stop on entering the woods at %s off the road", who,
                         a);
    case WL_R_ROAD_WOODS_EXIT:
        return wl_refuse(why, r, "%s travelled by road into the woods at %s and may leave it "
                         "only along the road, not to %s", who, a, b);
    case WL_R_ZOC_STOP:
        return wl_refuse(why, r, "%s must stop on entering the zone of %s at %s", who,
                         unit_name(c, controller(c, from->at, 0)), a);
    case WL_R_ZOC_TO_ZOC:
        return wl_refuse(why, r, "%s may not move from the zone of %s at %s straight into the "
                         "zone of %s at %s", who, unit_name(c, controller(c, from->at, 0)), a,
                         unit_name(c, controller(c, to, 0)), b);
    case WL_R_ZOC_SAME_UNIT:
        return wl_refuse(why, r, "%s began its turn in the zone of %s and may not move to %s, "
                         "another square of that zone", who,
                         unit_name(c, controller(c, to, 1)), b);
    case WL_R_ZOC_REENTER:
        return wl_refuse(why, r, "%s left the zone of %s this turn and may not re-enter it at "
                         "%s", who, unit_name(c, controller(c, to, 1)), b);
    case WL_R_EXIT_NOT_ALLOWED:
        if (!c->may_exit)
            return wl_refuse(why, r, "%s may not leave the board: only French units leave it",
                             who);
        return wl_refuse(why, r, "%s may leave the board only from A-39 to A-45, not from %s",
                         who, a);
    default:
        return wl_refuse(why, r, "%s: %s", who, wl_reason_text(r));
    }
}

/* --- setting up a move --- */

static int side_moving(int phase)
{
    if (phase == WL_PH_FRENCH_MOVE)
        return WL_FRENCH;
    if (phase == WL_PH_ALLIED_MOVE)
        return WL_ALLIED;
    return -1;
}

/* Is the partial entry square s in the zone of a combat unit of `enemy`? */
static int entry_blocked(const struct wl_game *g, wl_sq s, int enemy)
{
    for (int i = 0; i < g->sc->nunits; i++)
        if (g->units[i].where == WL_ON_BOARD && g->sc->units[i].side == enemy &&
            g->sc->units[i].type != WL_HQ && wl_grid_distance(g->units[i].at, s) == 1)
            return 1;
    return 0;
}

int wl_move_entry_for(const struct wl_game *g, int unit)
{
    const struct wl_map *m = &g->sc->map;
    if (unit < 0 || unit >= g->sc->nunits || g->units[unit].where != WL_PENDING)
        return -1;
    const struct wl_unit_def *def = &g->sc->units[unit];
    if (def->entry < 0 || def->entry >= m->nentries)
        return -1;
    int enemy = def->side == WL_FRENCH ? WL_ALLIED : WL_FRENCH;
    for (int k = 0; k < m->nentries; k++) {
        int e = (def->entry + k) % m->nentries;
        if (!entry_blocked(g, m->entries[e].at, enemy))
            return e;
    }
    return -1;
}

/*
 * Check the units and fill c. Rules:
 *   1) one to WL_MAX_UNITS known units, none twice
 *   2) a movement phase; every unit of the side moving
 *   3) none has moved this phase
 *   4) each on the board, or pending and due (arrival turn reached)
 *   5) one stack: all on one square, or all pending with the same entry,
 *      which is not blocked
 * Then the squares are summarised: enemy units, enemy zones, the zones of
 * the enemy units next to the start, factors of friendly units staying.
 */
static enum wl_reason setup(struct mv *c, const struct wl_game *g, const int *units, int nunits,
                            struct wr_refusal *why)
{
    const struct wl_scenario *sc = g->sc;
    uint8_t mover[WL_MAX_UNITS];

    c->g = g;
    c->m = &sc->map;
    c->units = units;
    c->nunits = nunits;
    /* 1) */
    if (units == NULL || nunits < 1 || nunits > WL_MAX_UNITS)
        return wl_refuse(why, WL_R_BAD_COMMAND, "a move names one to %d units", WL_MAX_UNITS);
    memset(mover, 0, sizeof mover);
    for (int k = 0; k < nunits; k++) {
        if (units[k] < 0 || units[k] >= sc->nunits)
            return wl_refuse(why, WL_R_UNKNOWN_UNIT, "no unit number %d", units[k]);
        if (mover[units[k]])
            return wl_refuse(why, WL_R_BAD_COMMAND, "%s is named twice in one move",
                             sc->units[units[k]].name);
        mover[units[k]] = 1;
    }
    /* 2) */
    c->side = side_moving(g->phase);
    if (c->side < 0)
        return wl_refuse(why, WL_R_WRONG_PHASE, "units move only in a movement phase, not in %s",
                         wl_phase_name(g->phase));
    c->mf = 255;
    c->factors = 0;
    for (int k = 0; k < nunits; k++) {
        const struct wl_unit_def *def = &sc->units[units[k]];
        const struct wl_unit *u = &g->units[units[k]];
        if (def->side != c->side)
            return wl_refuse(why, WL_R_NOT_YOUR_UNIT, "%s belongs to the %s side, and the %s "
                             "side is moving", def->name, wl_side_name(def->side),
                             wl_side_name(c->side));
        /* 3) */
        if (u->moved)
            return wl_refuse(why, WL_R_ALREADY_MOVED, "%s has already moved this phase",
                             def->name);
        /* 4) */
        if (u->where == WL_PENDING) {
            if (def->arrive_turn <= 0)
                return wl_refuse(why, WL_R_UNIT_NOT_ON_BOARD, "%s is not on the board and has "
                                 "no arrival turn", def->name);
            if (def->arrive_turn > g->turn)
                return wl_refuse(why, WL_R_NOT_ARRIVED, "%s arrives on turn %d, not before "
                                 "(this is turn %d)", def->name, def->arrive_turn, g->turn);
            if (def->entry < 0 || def->entry >= c->m->nentries)
                return wl_refuse(why, WL_R_BAD_ENTRY, "%s has no entry square", def->name);
        } else if (u->where != WL_ON_BOARD || !playable(u->at)) {
            return wl_refuse(why, WL_R_UNIT_NOT_ON_BOARD, "%s is not on the board (%s)",
                             def->name, u->where == WL_ELIMINATED ? "eliminated"
                             : u->where == WL_EXITED ? "it left the board" : "no square");
        }
        if (def->move < c->mf)
            c->mf = def->move;
        c->factors += def->combat;
    }
    /* 5) */
    const struct wl_unit *u0 = &g->units[units[0]];
    c->pending = u0->where == WL_PENDING;
    c->entry = c->pending ? wl_move_entry_for(g, units[0]) : -1;
    for (int k = 1; k < nunits; k++) {
        const struct wl_unit *u = &g->units[units[k]];
        int same = c->pending ? (u->where == WL_PENDING &&
                                 wl_move_entry_for(g, units[k]) == c->entry)
                              : (u->where == WL_ON_BOARD && u->at == u0->at);
        if (!same)
            return wl_refuse(why, WL_R_BAD_COMMAND, "%s and %s are not in one stack: units "
                             "moved together start together", sc->units[units[0]].name,
                             sc->units[units[k]].name);
    }
    if (c->pending) {
        if (c->entry < 0)
            return wl_refuse(why, WL_R_ENTRY_BLOCKED, "%s cannot enter: every entry is in an "
                             "enemy zone of control", sc->units[units[0]].name);
        c->start = c->m->entries[c->entry].at;
    } else {
        c->start = u0->at;
    }
    c->may_exit = c->side == WL_FRENCH;

    memset(c->sq, 0, sizeof c->sq);
    memset(c->fac, 0, sizeof c->fac);
    for (int i = 0; i < sc->nunits; i++) {
        const struct wl_unit *u = &g->units[i];
        const struct wl_unit_def *def = &sc->units[i];
        if (u->where != WL_ON_BOARD || u->at < 0 || u->at >= WL_NSQ)
            continue;
        if (def->side == c->side) {
            if (!mover[i])
                c->fac[u->at] = (uint8_t)(c->fac[u->at] + def->combat);
            continue;
        }
        /* Rules 2 (docs/rules-notes.md H2): HQ units alone do not hold their
         * square against combat units; entering it eliminates them
         * (waterloo_turn.c). A combat unit with them marks it itself. */
        if (def->type == WL_HQ && !wl_hq_blocks(g, c->factors > 0))
            continue;
        c->sq[u->at] |= SQ_ENEMY;
        if (def->type == WL_HQ)
            continue;
        uint8_t mark = SQ_ZOC;
        if (!c->pending && touch(u->at, c->start))
            mark |= SQ_ZSTART;
        for (int d = 0; d < WL_NDIR; d++) {
            wl_sq n = nb(u->at, d);
            if (n != WL_SQ_NONE)
                c->sq[n] |= mark;
        }
    }
    return WL_R_OK;
}

/* The state the units start in. */
static void root(const struct mv *c, struct lab *l)
{
    memset(l, 0, sizeof *l);
    l->at = c->start;
    l->parent = -1;
    l->next = -1;
    l->road = ROAD_UNUSED;
    l->flags = c->pending ? F_ENTRY : F_FIRST;
    l->len = c->pending ? 1 : 0;
}

/* Add l to the set s[0..*n-1] unless a state there dominates it; drop the
 * states it dominates. */
static void set_add(struct lab *s, int *n, const struct lab *l)
{
    for (int i = 0; i < *n; i++)
        if (dominates(&s[i], l))
            return;
    int k = 0;
    for (int i = 0; i < *n; i++)
        if (!dominates(l, &s[i]))
            s[k++] = s[i];
    if (k < SET_MAX)
        s[k++] = *l;
    *n = k;
}

enum wl_reason wl_move_check(const struct wl_game *g, const int *units, int nunits,
                             const wl_sq *path, int n, struct wr_refusal *why)
{
    struct mv c;
    struct lab cur[SET_MAX], nxt[SET_MAX];
    int ncur = 1, nnxt;
    char a[WL_SQ_NAME_MAX], b[WL_SQ_NAME_MAX];
    enum wl_reason r = setup(&c, g, units, nunits, why);

    if (r != WL_R_OK)
        return r;
    if (path == NULL || n < 1 || n > WL_PATH_MAX)
        return wl_refuse(why, WL_R_BAD_COMMAND, "a path lists 1 to %d squares", WL_PATH_MAX);
    root(&c, &cur[0]);
    int i = 0;
    if (c.pending) {
        /* A reinforcement's path begins on the entry it must use. */
        int own = g->sc->units[units[0]].entry;
        if (path[0] != c.start) {
            if (path[0] == c.m->entries[own].at)
                return wl_refuse(why, WL_R_ENTRY_BLOCKED, "%s's entry %s is in an enemy zone "
                                 "of control: it enters at %s (%s), the next clockwise",
                                 g->sc->units[units[0]].name, wl_grid_name(path[0], a),
                                 wl_grid_name(c.start, b), c.m->entries[c.entry].name);
            return wl_refuse(why, WL_R_BAD_ENTRY, "%s enters at %s (%s), its path must begin "
                             "there", g->sc->units[units[0]].name, wl_grid_name(c.start, a),
                             c.m->entries[c.entry].name);
        }
        i = 1;
    }
    for (; i < n; i++) {
        wl_sq to = path[i];
        wl_sq at = cur[0].at;
        int d;
        if (to == WL_PATH_OFF) {
            if (i != n - 1)
                return wl_refuse(why, WL_R_BAD_COMMAND, "leaving the board must end the path");
            d = D_OFF;
        } else {
            d = wl_grid_dir_to(at, to);
        }
        enum wl_reason worst = WL_R_TOO_FAR;
        const struct lab *failed = &cur[0];
        nnxt = 0;
        for (int k = 0; k < ncur; k++) {
            for (int pay = PAY_NORMAL; pay <= PAY_BONUS; pay++) {
                struct lab l;
                r = step(&c, &cur[k], to, d, pay, &l);
                if (r == WL_R_OK)
                    set_add(nxt, &nnxt, &l);
                else if (r != WL_R_TOO_FAR && worst == WL_R_TOO_FAR) {
                    worst = r;
                    failed = &cur[k];
                }
            }
        }
        if (nnxt == 0)
            return explain(&c, worst, failed, to, why);
        memcpy(cur, nxt, (size_t)nnxt * sizeof cur[0]);
        ncur = nnxt;
    }
    /* 8) */
    wl_sq end = cur[0].at;
    if (end != WL_PATH_OFF && !playable(end))
        return wl_refuse(why, WL_R_NOT_PLAYABLE, "%s must move onto the board from %s",
                         g->sc->units[units[0]].name, wl_grid_name(end, a));
    if (!end_ok(&c, end)) {
        char who[WR_REFUSAL_MSG_MAX / 2];
        stack_name(&c, who, sizeof who);
        return wl_refuse(why, WL_R_STACKING, "%s would make %d combat factors on %s, more than "
                         "%d", who, c.fac[end] + c.factors, wl_grid_name(end, a),
                         WL_STACK_LIMIT);
    }
    return WL_R_OK;
}

/* The search: a pool of states in breadth-first order (every step costs
 * one point, so the pool is its own queue), listed per square. */
struct search {
    int n;
    int16_t head[WL_NSQ];
    struct lab pool[POOL_MAX];
};

/* Record a path to the state at pool index li (to end, which may be
 * WL_PATH_OFF after it) as reach entry out->n. */
static void emit(const struct mv *c, const struct search *s, int li, wl_sq end,
                 struct wl_reach *out)
{
    int k = out->n++;
    int len = s->pool[li].len + (end == WL_PATH_OFF);
    out->end[k] = end;
    out->path_len[k] = (uint8_t)len;
    int p = len;
    if (end == WL_PATH_OFF)
        out->path[k][--p] = WL_PATH_OFF;
    /* The root is on the path only when it is the entry square. */
    for (int j = li; j >= 0 && p > 0; j = s->pool[j].parent)
        out->path[k][--p] = s->pool[j].at;
    (void)c;
}

/* Add state l, reached from pool state parent, to the search unless a
 * state on its square dominates it. Returns 0, or -1 when the pool is full. */
static HOT int search_add(const struct mv *c, struct search *s, const struct lab *l, int parent,
                          struct wl_reach *out)
{
    int h = s->head[l->at];
    if (h >= 0 && (l->flags & F_STOP))
        return 0;       /* a stopped state only makes an end, and there is one */
    for (int j = h; j >= 0; j = s->pool[j].next)
        if (!(s->pool[j].flags & F_DEAD) && dominates(&s->pool[j], l))
            return 0;
    if (s->n >= POOL_MAX)
        return -1;
    for (int j = h; j >= 0; j = s->pool[j].next)
        if (!(s->pool[j].flags & F_DEAD) && dominates(l, &s->pool[j]))
            s->pool[j].flags |= F_DEAD;
    int li = s->n++;
    s->pool[li] = *l;
    s->pool[li].parent = (int16_t)parent;
    s->pool[li].next = (int16_t)h;
    s->head[l->at] = (int16_t)li;
    if (h < 0 && l->at != c->start && end_ok(c, l->at))
        emit(c, s, li, l->at, out);
    return 0;
}

/* Does a state on square `to` dominate every state a step from cur could
 * make there? A step never lowers the points used nor raises the bonus
 * left, and lengthens the path by one, so a state without restrictions that
 * has used no more than cur and covers cur's bonus does (see dominates()).
 * Saves the step on most moves back towards squares already searched. */
static inline int covered(const struct search *s, wl_sq to, const struct lab *cur)
{
    for (int j = s->head[to]; j >= 0; j = s->pool[j].next) {
        const struct lab *l = &s->pool[j];
        if ((l->flags & (F_RESTRICT | F_DEAD)) || l->used > cur->used || l->len > cur->len + 1)
            continue;
        int cover = l->road == ROAD_UNUSED ? bonus_left(l) : 0;
        if (cover + (cur->used - l->used) >= bonus_left(cur))
            return 1;
    }
    return 0;
}

enum wl_reason wl_move_reach(const struct wl_game *g, const int *units, int nunits,
                             struct wl_reach *out, struct wr_refusal *why)
{
    struct mv c;
    struct search s;
    int off_done = 0;
    enum wl_reason r;

    out->n = 0;
    r = setup(&c, g, units, nunits, why);
    if (r != WL_R_OK)
        return r;
    memset(s.head, -1, sizeof s.head);
    s.n = 1;
    root(&c, &s.pool[0]);
    s.head[c.start] = 0;

    const struct wl_map *m = c.m;
    for (int q = 0; q < s.n; q++) {
        const struct lab cur = s.pool[q];
        if (cur.flags & (F_DEAD | F_STOP))
            continue;
        const struct wl_cell *cell = &m->cell[cur.at];
        for (int d = 0; d < WL_NDIR; d++) {
            wl_sq to = nb(cur.at, d);
            struct lab l;
            if (!playable(to) || covered(&s, to, &cur))
                continue;
            if (step(&c, &cur, to, d, PAY_NORMAL, &l) == WL_R_OK &&
                search_add(&c, &s, &l, q, out) < 0)
                goto full;
            int rid = cell->road[d];
            if (rid != 0 && m->roads[rid].kind == WL_ROAD_PRIMARY &&
                step(&c, &cur, to, d, PAY_BONUS, &l) == WL_R_OK &&
                search_add(&c, &s, &l, q, out) < 0)
                goto full;
        }
        if (c.may_exit && cell->exit && !off_done) {
            struct lab l;
            if (step(&c, &cur, WL_PATH_OFF, D_OFF, PAY_NORMAL, &l) == WL_R_OK) {
                emit(&c, &s, q, WL_PATH_OFF, out);
                off_done = 1;
            }
        }
    }
    return WL_R_OK;
full:
    out->n = 0;
    return wl_refuse(why, WL_R_BAD_COMMAND, "movement of %s too large to search",
                     g->sc->units[units[0]].name);
}
