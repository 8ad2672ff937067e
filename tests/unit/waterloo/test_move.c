/*
 * test_move.c - movement (waterloo_move.h) against the rulebook: "How to Move
 * Units", "More Than One Unit per Square", "Attacking" (zones of control),
 * "Special Terrain Movement", "Order of Appearance", the road-woods page
 * and the worked examples. Table-driven: each fixture is a small map with a
 * few units, each row one path and the reason expected, numbered so that a
 * failure names its row. The last tests check that wl_move_reach and
 * wl_move_check agree, against a brute-force search over paths.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "waterloo_move.h"
#include "wl_testdata.h"

/* --- building fixtures ---------------------------------------------------- */

/* Parse "Q-20 Q-21 OFF" into squares; returns the count. */
static int squares(const char *text, wl_sq *out, int max)
{
    int n = 0;
    const char *p = text;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        const char *e = p;
        while (*e && *e != ' ')
            e++;
        if (n >= max)
            fail_msg("test data: more than %d squares in '%s'", max, text);
        if (e - p == 3 && strncmp(p, "OFF", 3) == 0) {
            out[n++] = WL_PATH_OFF;
        } else {
            wl_sq s;
            if (wl_grid_parse(p, (size_t)(e - p), &s) != 0)
                fail_msg("test data: bad square in '%s'", text);
            out[n++] = s;
        }
        p = e;
    }
    return n;
}

static void road(struct wl_map *m, const char *name, enum wl_road_kind kind, const char *path)
{
    wl_sq s[64];
    struct wr_refusal why;
    int n = squares(path, s, 64);
    if (wl_map_add_road(m, name, kind, s, n, &why) < 0)
        fail_msg("test data: road %s: %s", name, why.message);
}

/* A straight road of n squares from `from` in direction d. */
static void road_line(struct wl_map *m, const char *name, enum wl_road_kind kind,
                      const char *from, int d, int n)
{
    wl_sq s[64];
    struct wr_refusal why;
    s[0] = wlt_sq(from);
    for (int i = 1; i < n; i++)
        s[i] = wl_grid_neighbour(s[i - 1], d);
    if (wl_map_add_road(m, name, kind, s, n, &why) < 0)
        fail_msg("test data: road %s: %s", name, why.message);
}

static void river_line(struct wl_map *m, const char *name, const char *from, int d, int n)
{
    wl_sq s[64];
    struct wr_refusal why;
    s[0] = wlt_sq(from);
    for (int i = 1; i < n; i++)
        s[i] = wl_grid_neighbour(s[i - 1], d);
    if (wl_map_add_river(m, name, s, n, &why) < 0)
        fail_msg("test data: river %s: %s", name, why.message);
}

static void woods(struct wl_map *m, const char *list)
{
    wl_sq s[64];
    int n = squares(list, s, 64);
    for (int i = 0; i < n; i++)
        m->cell[s[i]].woods = 1;
}

struct uspec {
    const char *name;
    int side;
    int type;
    int combat;
    int move;
    const char *at;     /* NULL: pending (or set later by the test) */
    int arrive;
    int entry;
};

#define F WL_FRENCH
#define A WL_ALLIED
#define INF WL_INFANTRY
#define CAV WL_CAVALRY
#define HQ WL_HQ

struct fx {
    struct wl_scenario *sc;
    struct wl_game *g;
};

static struct fx fx_make(void (*terrain)(struct wl_map *), const struct uspec *u, int n,
                         int turn)
{
    struct fx f;
    f.sc = calloc(1, sizeof *f.sc);
    f.g = calloc(1, sizeof *f.g);
    assert_non_null(f.sc);
    assert_non_null(f.g);
    snprintf(f.sc->name, sizeof f.sc->name, "test");
    wl_map_init(&f.sc->map);
    terrain(&f.sc->map);
    wl_map_finish(&f.sc->map);
    for (int i = 0; i < n; i++) {
        struct wl_unit_def *d = &f.sc->units[i];
        snprintf(d->id, sizeof d->id, "%s", u[i].name);
        snprintf(d->name, sizeof d->name, "%s", u[i].name);
        snprintf(d->size, sizeof d->size, "XX");
        d->side = (uint8_t)u[i].side;
        d->nation = u[i].side == F ? WL_NATION_FRENCH : WL_NATION_ANGLO_ALLIED;
        d->type = (uint8_t)u[i].type;
        d->combat = (uint8_t)u[i].combat;
        d->move = (uint8_t)u[i].move;
        d->setup = u[i].at ? wlt_sq(u[i].at) : WL_SQ_NONE;
        d->arrive_turn = (int8_t)u[i].arrive;
        d->entry = (int8_t)(u[i].at ? -1 : u[i].entry);
    }
    f.sc->nunits = n;
    f.sc->nturns = 10;
    f.sc->start_turn = turn;
    f.sc->start_phase = WL_PH_FRENCH_MOVE;
    wl_game_init(f.g, f.sc, "test", NULL);
    /* Pending units without an arrival are simply off the board. */
    for (int i = 0; i < n; i++)
        if (!u[i].at && u[i].arrive == 0)
            f.g->units[i].where = WL_ELIMINATED;
    return f;
}

static void fx_free(struct fx *f)
{
    free(f->g);
    free(f->sc);
}

static int unit(const struct fx *f, const char *name)
{
    for (int i = 0; i < f->sc->nunits; i++)
        if (strcmp(f->sc->units[i].name, name) == 0)
            return i;
    fail_msg("test data: no unit %s", name);
    return -1;
}

/* Parse "Foot,Horse" into unit indices. */
static int unit_list(const struct fx *f, const char *text, int *out)
{
    char buf[256];
    int n = 0;
    snprintf(buf, sizeof buf, "%s", text);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
        out[n++] = unit(f, t);
    return n;
}

static void place(struct fx *f, const char *name, const char *at)
{
    int u = unit(f, name);
    if (at) {
        f->g->units[u].where = WL_ON_BOARD;
        f->g->units[u].at = wlt_sq(at);
    } else {
        f->g->units[u].where = WL_ELIMINATED;
        f->g->units[u].at = WL_SQ_NONE;
    }
}

/* --- rows ---------------------------------------------------------------- */

struct row {
    int row;
    const char *what;
    int phase;              /* WL_PH_FRENCH_MOVE or WL_PH_ALLIED_MOVE */
    const char *units;      /* "Name" or "Name,Name" (a stack) */
    const char *path;
    enum wl_reason want;
    const char *says;       /* NULL, or text the refusal must contain */
};

#define FM WL_PH_FRENCH_MOVE
#define AM WL_PH_ALLIED_MOVE
#define OK WL_R_OK

static void run_rows(struct fx *f, const struct row *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int us[16];
        wl_sq path[WL_PATH_MAX + 4];
        int nu = unit_list(f, t[i].units, us);
        int np = squares(t[i].path, path, WL_PATH_MAX + 4);
        struct wr_refusal why;
        memset(&why, 0, sizeof why);
        f->g->phase = t[i].phase;
        enum wl_reason r = wl_move_check(f->g, us, nu, path, np, &why);
        if (r != t[i].want)
            fail_msg("row %d (%s): %s along '%s' gave %s (%s), want %s", t[i].row, t[i].what,
                     t[i].units, t[i].path, wl_reason_code(r), why.message,
                     wl_reason_code(t[i].want));
        if (r != OK && why.reason != (int)r)
            fail_msg("row %d: refusal filled with %s, returned %s", t[i].row,
                     wl_reason_code(why.reason), wl_reason_code(r));
        if (t[i].says && strstr(why.message, t[i].says) == NULL)
            fail_msg("row %d: message '%s' does not say '%s'", t[i].row, why.message,
                     t[i].says);
    }
}

/* --- roads ---------------------------------------------------------------- */

/* Two primary roads crossing at Q-33 (the Chaussee along row Q, the Namur
 * road along diagonal 33), a secondary lane along row V, and a primary road
 * with a bend (F-45 F-46 E-46: F-45 and E-46 touch, but not along it). */
static void terrain_roads(struct wl_map *m)
{
    road_line(m, "Chaussee", WL_ROAD_PRIMARY, "Q-20", WL_W, 26);
    road_line(m, "Namur road", WL_ROAD_PRIMARY, "H-33", WL_SW, 19);
    road_line(m, "Lane", WL_ROAD_SECONDARY, "V-20", WL_W, 26);
    road(m, "Bend", WL_ROAD_PRIMARY, "F-44 F-45 F-46 E-46 D-46 C-46");
}

static const struct uspec roads_units[] = {
    { "Road4", F, INF, 4, 4, "U-25", 0, -1 },   /* 4 squares south of the Chaussee */
    { "Road2", F, INF, 4, 4, "S-25", 0, -1 },   /* 2 squares south of it */
    { "Road8", F, INF, 4, 4, "Q-20", 0, -1 },   /* on it */
    { "Lane4", F, INF, 4, 4, "V-22", 0, -1 },   /* on the secondary lane */
    { "Cross", F, INF, 4, 4, "Q-31", 0, -1 },   /* two squares before the crossing */
    { "Resume", F, INF, 4, 4, "Q-22", 0, -1 },
    { "Greedy", F, INF, 4, 4, "Q-35", 0, -1 },
    { "Bend", F, INF, 4, 1, "G-45", 0, -1 },    /* movement factor 1 */
    { "Corner", F, INF, 4, 4, "P-32", 0, -1 },  /* one step from both roads, by the crossing */
    { "Horse", F, CAV, 3, 6, "X-40", 0, -1 },
    { "Foot", F, INF, 4, 4, "X-40", 0, -1 },
    { "Sentinel", F, INF, 4, 4, "X-43", 0, -1 },
    { "Blocker", A, INF, 5, 4, "AA-40", 0, -1 },
};

static void test_roads(void **state)
{
    static const struct row t[] = {
        /* "a Unit which has a movement factor of four squares reaches a road
         * square on its fourth move. It could then move up to four more
         * squares along the road immediately in that same turn." */
        { 1, "road reached on the 4th move, 4 more along it", FM, "Road4",
          "T-25 S-25 R-25 Q-25 Q-26 Q-27 Q-28 Q-29", OK, NULL },
        { 2, "... but not 5 more", FM, "Road4",
          "T-25 S-25 R-25 Q-25 Q-26 Q-27 Q-28 Q-29 Q-30", WL_R_TOO_FAR, NULL },
        /* "Or suppose the same Unit had reached the road in two squares, then
         * this Unit could move along the road up to four squares and then
         * move off two more squares." */
        { 3, "road in 2, 4 along, 2 off", FM, "Road2",
          "R-25 Q-25 Q-26 Q-27 Q-28 Q-29 P-29 O-29", OK, NULL },
        { 4, "road in 2, 4 along, 3 off", FM, "Road2",
          "R-25 Q-25 Q-26 Q-27 Q-28 Q-29 P-29 O-29 N-29", WL_R_TOO_FAR, NULL },
        { 5, "road in 2, 5 along, 2 off", FM, "Road2",
          "R-25 Q-25 Q-26 Q-27 Q-28 Q-29 Q-30 P-30 O-30", WL_R_TOO_FAR, NULL },
        { 6, "bonus first, then the movement factor, all on the road", FM, "Road8",
          "Q-21 Q-22 Q-23 Q-24 Q-25 Q-26 Q-27 Q-28", OK, NULL },
        { 7, "9 squares on the road", FM, "Road8",
          "Q-21 Q-22 Q-23 Q-24 Q-25 Q-26 Q-27 Q-28 Q-29", WL_R_TOO_FAR,
          "movement factor of 4" },
        /* d. "There is no movement bonus on secondary roads." */
        { 8, "secondary road: movement factor only", FM, "Lane4", "V-23 V-24 V-25 V-26", OK,
          NULL },
        { 9, "secondary road: no bonus", FM, "Lane4", "V-23 V-24 V-25 V-26 V-27",
          WL_R_TOO_FAR, NULL },
        /* "A Unit is not allowed to apply the bonus movement to more than one
         * road per turn." 2 on the Chaussee + 2 on the Namur road + 4 off:
         * the bonus covers only the 2 squares of one road. */
        { 10, "bonus on one road, the other paid normally", FM, "Cross",
          "Q-32 Q-33 P-33 O-33 O-34 O-35", OK, NULL },
        { 11, "bonus would be needed on two roads", FM, "Cross",
          "Q-32 Q-33 P-33 O-33 O-34 O-35 O-36 O-37", WL_R_TOO_FAR, NULL },
        { 12, "2 normal on one road, then 2 normal + 4 bonus on the other", FM, "Cross",
          "Q-32 Q-33 P-33 O-33 N-33 M-33 L-33 K-33", OK, NULL },
        { 13, "... one more", FM, "Cross", "Q-32 Q-33 P-33 O-33 N-33 M-33 L-33 K-33 J-33",
          WL_R_TOO_FAR, NULL },
        /* b. "A unit cannot leave a road after taking part of its movement
         * bonus and then return to the road for the remainder." */
        { 14, "bonus 2, leave, return, 1 more paid normally", FM, "Resume",
          "Q-23 Q-24 P-24 P-25 Q-25 Q-26", OK, NULL },
        { 15, "bonus 2, leave, return: the rest of the bonus is gone", FM, "Resume",
          "Q-23 Q-24 P-24 P-25 Q-25 Q-26 Q-27", WL_R_TOO_FAR, NULL },
        /* Paying the first road step with the bonus would forfeit it (b): the
         * path needs that step paid normally and the bonus on the next road. */
        { 16, "normal on one road, bonus 4 on the next (greedy is wrong)", FM, "Greedy",
          "Q-34 P-34 P-33 O-33 N-33 M-33 L-33 L-34", OK, NULL },
        { 17, "... one more", FM, "Greedy", "Q-34 P-34 P-33 O-33 N-33 M-33 L-33 L-34 L-35",
          WL_R_TOO_FAR, NULL },
        /* c. "The road bonus applies only when a unit enters the road hex
         * through a hexside which is intersected by the road." */
        { 18, "along the bend: bonus", FM, "Bend", "F-45 F-46 E-46 D-46 C-46", OK, NULL },
        { 19, "cutting the bend: no bonus", FM, "Bend", "F-45 E-46", WL_R_TOO_FAR, NULL },
        { 20, "onto the road off it costs a normal point", FM, "Bend", "F-45 F-46 E-46 D-46",
          OK, NULL },
        /* At the crossing Q-33 a unit may hold the bonus of either road,
         * depending on which road it came along. */
        { 21, "to the crossing along the Namur road, on along it", FM, "Corner",
          "P-33 Q-33 R-33 S-33 T-33 U-33 V-33 W-33", OK, NULL },
        { 22, "along the Chaussee paid normally, bonus on the Namur road", FM, "Corner",
          "Q-32 Q-33 R-33 S-33 T-33 U-33 V-33 W-33", OK, NULL },
        { 23, "to the crossing along the Chaussee, on along it", FM, "Corner",
          "Q-32 Q-33 Q-34 Q-35 Q-36 Q-37 Q-38 Q-39", OK, NULL },
        /* More Than One Unit per Square */
        { 24, "stack moves at its slowest", FM, "Horse,Foot", "X-41 X-42 X-43 X-44", OK,
          NULL },
        { 25, "stack: 5 squares for a 4-6 stack", FM, "Horse,Foot", "X-41 X-42 X-43 X-44 X-45",
          WL_R_TOO_FAR, NULL },
        { 26, "cavalry alone: 6 through a friendly unit", FM, "Horse",
          "X-41 X-42 X-43 X-44 X-45 X-46", OK, NULL },
        { 27, "cavalry: 7", FM, "Horse", "X-39 X-38 X-37 X-36 X-35 X-34 X-33", WL_R_TOO_FAR,
          NULL },
        { 28, "off the playable board", FM, "Horse", "X-41 X-42 X-43 X-44 X-45 X-46 X-47",
          WL_R_NOT_PLAYABLE, NULL },
        { 29, "not adjacent", FM, "Foot", "X-42", WL_R_NOT_ADJACENT, NULL },
        { 30, "gap in the middle", FM, "Foot", "X-41 X-43", WL_R_NOT_ADJACENT, NULL },
        /* A path that repeats the start square is told so, not "X-40 does
         * not touch X-40". */
        { 41, "the path starts with the unit's own square", FM, "Foot", "X-40 X-41",
          WL_R_NOT_ADJACENT, "where it already stands" },
        { 31, "enemy square", FM, "Foot", "Y-40 Z-40 AA-40", WL_R_ENEMY_SQUARE, "Blocker" },
        { 32, "into the enemy's zone, stop there", FM, "Foot", "Y-39 Z-39 AA-39", OK, NULL },
        { 33, "the other side's unit", FM, "Blocker", "Z-40", WL_R_NOT_YOUR_UNIT, NULL },
        { 34, "empty path", FM, "Foot", "", WL_R_BAD_COMMAND, NULL },
        { 35, "leaving the board is only the last step", FM, "Foot", "OFF X-41",
          WL_R_BAD_COMMAND, NULL },
        { 36, "stack on two squares", FM, "Foot,Sentinel", "X-41", WL_R_BAD_COMMAND, NULL },
        { 37, "the same unit twice", FM, "Foot,Foot", "X-41", WL_R_BAD_COMMAND, NULL },
        { 38, "back to the start square", FM, "Foot", "X-41 X-40", OK, NULL },
    };
    (void)state;
    struct fx f = fx_make(terrain_roads, roads_units,
                          (int)(sizeof roads_units / sizeof roads_units[0]), 1);
    run_rows(&f, t, sizeof t / sizeof t[0]);
    fx_free(&f);
}

/* Unit state the movement rules own: moved, eliminated, exited, unknown. */
static void test_unit_checks(void **state)
{
    (void)state;
    struct fx f = fx_make(terrain_roads, roads_units,
                          (int)(sizeof roads_units / sizeof roads_units[0]), 1);
    wl_sq p[1] = { wlt_sq("X-41") };
    int u = unit(&f, "Foot");
    struct wr_refusal why;

    assert_int_equal(wl_move_check(f.g, &u, 1, p, 1, &why), OK);
    f.g->units[u].moved = 1;
    assert_int_equal(wl_move_check(f.g, &u, 1, p, 1, &why), WL_R_ALREADY_MOVED);
    f.g->units[u].moved = 0;
    f.g->units[u].where = WL_ELIMINATED;
    assert_int_equal(wl_move_check(f.g, &u, 1, p, 1, &why), WL_R_UNIT_NOT_ON_BOARD);
    f.g->units[u].where = WL_EXITED;
    assert_int_equal(wl_move_check(f.g, &u, 1, p, 1, &why), WL_R_UNIT_NOT_ON_BOARD);
    f.g->units[u].where = WL_ON_BOARD;
    int bad = f.sc->nunits, neg = -1;
    assert_int_equal(wl_move_check(f.g, &bad, 1, p, 1, &why), WL_R_UNKNOWN_UNIT);
    assert_int_equal(wl_move_check(f.g, &neg, 1, p, 1, &why), WL_R_UNKNOWN_UNIT);
    assert_int_equal(wl_move_check(f.g, &u, 0, p, 1, &why), WL_R_BAD_COMMAND);
    f.g->phase = WL_PH_FRENCH_COMBAT;
    assert_int_equal(wl_move_check(f.g, &u, 1, p, 1, &why), WL_R_WRONG_PHASE);
    f.g->phase = WL_PH_FRENCH_MOVE;
    /* A path longer than WL_PATH_MAX is refused before any square is read. */
    wl_sq longp[WL_PATH_MAX + 1];
    for (int i = 0; i < WL_PATH_MAX + 1; i++)
        longp[i] = wlt_sq("X-41");
    assert_int_equal(wl_move_check(f.g, &u, 1, longp, WL_PATH_MAX + 1, &why),
                     WL_R_BAD_COMMAND);
    /* Things that are not squares. */
    wl_sq junk[3] = { WL_SQ_NONE, (wl_sq)WL_NSQ, wl_sq_make(24, 0) };
    for (int i = 0; i < 3; i++)
        if (wl_move_check(f.g, &u, 1, &junk[i], 1, &why) != WL_R_BAD_SQUARE)
            fail_msg("junk square %d: %s", i, why.message);
    /* A NULL refusal is allowed. */
    assert_int_equal(wl_move_check(f.g, &u, 1, p, 1, NULL), OK);
    wl_sq far[1] = { wlt_sq("X-42") };
    assert_int_equal(wl_move_check(f.g, &u, 1, far, 1, NULL), WL_R_NOT_ADJACENT);
    fx_free(&f);
}

/* --- rivers --------------------------------------------------------------- */

/* The Dyle along diagonal 30 (J-30 .. DD-30); the Thyle along row T from
 * T-31 westward, joining it; a primary road over the Dyle at N-30 (a
 * bridge), a secondary one at W-30; woods on the Dyle square Y-30. */
static void terrain_rivers(struct wl_map *m)
{
    river_line(m, "Dyle", "J-30", WL_SW, 21);
    river_line(m, "Thyle", "T-31", WL_W, 10);
    road_line(m, "Bridge road", WL_ROAD_PRIMARY, "N-25", WL_W, 11);
    road_line(m, "Track", WL_ROAD_SECONDARY, "W-25", WL_W, 11);
    woods(m, "Y-30");
}

static const struct uspec rivers_units[] = {
    { "Cross", F, INF, 4, 4, "Q-28", 0, -1 },
    { "Bank", F, INF, 4, 4, "R-30", 0, -1 },    /* starts on the Dyle */
    { "Fork", F, INF, 4, 4, "T-30", 0, -1 },    /* on the Dyle, next to the Thyle */
    { "Swim", F, INF, 4, 4, "U-28", 0, -1 },
    { "Roadie", F, INF, 4, 4, "N-27", 0, -1 },  /* on the bridge road */
    { "Sider", F, INF, 4, 4, "O-29", 0, -1 },   /* beside the bridge, off the road */
    { "Lane", F, INF, 4, 4, "W-27", 0, -1 },
    { "Wade", F, INF, 4, 4, "AA-29", 0, -1 },
};

static void test_rivers(void **state)
{
    static const struct row t[] = {
        /* a. "All units must stop when they land on river squares unless they
         * intend to move up or downstream along the river without crossing." */
        { 1, "onto the river and stop", FM, "Cross", "Q-29 Q-30", OK, NULL },
        { 2, "across the river in one move", FM, "Cross", "Q-29 Q-30 Q-31", WL_R_RIVER_STOP,
          "Dyle" },
        { 3, "onto the river, then along it", FM, "Cross", "Q-29 Q-30 P-30 O-30", OK, NULL },
        { 4, "along it, then off it", FM, "Cross", "Q-29 Q-30 P-30 P-31", WL_R_RIVER_STOP,
          NULL },
        { 5, "along it, then back to the bank it came from", FM, "Cross", "Q-29 Q-30 P-30 P-29",
          WL_R_RIVER_STOP, NULL },
        /* "If they intend to cross they must stop and may move off the river
         * square on their next turn." */
        { 6, "starting on the river: off it freely", FM, "Bank", "R-31 R-32 R-33 R-34", OK,
          NULL },
        { 7, "starting on the river: off the other bank freely", FM, "Bank",
          "R-29 R-28 R-27 R-26", OK, NULL },
        { 8, "starting on the river: along it", FM, "Bank", "S-30 T-30 U-30", OK, NULL },
        { 9, "starting on the river: along it, then off", FM, "Bank", "S-30 S-31",
          WL_R_RIVER_STOP, NULL },
        /* b. "Units that land on a river square of a different river
         * immediately after leaving one must stop again ... unless intending
         * to only move up or downstream on the new river." */
        { 10, "from the Dyle onto the Thyle and along it", FM, "Fork", "T-31 T-32 T-33", OK,
          NULL },
        { 11, "from the Dyle onto the Thyle and off it", FM, "Fork", "T-31 S-31",
          WL_R_RIVER_STOP, "Thyle" },
        { 12, "landed on the Dyle off the road, then onto the Thyle", FM, "Swim",
          "U-29 U-30 T-31", WL_R_RIVER_STOP, NULL },
        /* c. "There is no movement delay when crossing rivers on primary and
         * secondary roads." */
        { 13, "over the bridge by the primary road", FM, "Roadie", "N-28 N-29 N-30 N-31", OK,
          NULL },
        { 14, "over the bridge, with the road bonus", FM, "Roadie",
          "N-28 N-29 N-30 N-31 N-32 N-33", OK, NULL },
        { 15, "onto the bridge square off the road, then on", FM, "Sider", "N-30 N-31",
          WL_R_RIVER_STOP, NULL },
        { 16, "onto the bridge square off the road, stop", FM, "Sider", "N-30", OK, NULL },
        { 17, "by road onto the bridge, then along the river", FM, "Roadie",
          "N-28 N-29 N-30 M-30", OK, NULL },
        { 18, "by road onto the bridge, along the river, off it", FM, "Roadie",
          "N-28 N-29 N-30 M-30 M-31", WL_R_RIVER_STOP, NULL },
        { 19, "over the river by a secondary road", FM, "Lane", "W-28 W-29 W-30 W-31", OK,
          NULL },
        /* a. "Units must still stop on wooded squares, even if the forest is
         * on the opposite bank"; Woods e. "Movement in woods along rivers is
         * at the rate of 1 square per turn." */
        { 20, "along the river into woods", FM, "Wade", "AA-30 Z-30 Y-30", OK, NULL },
        { 21, "along the river through woods", FM, "Wade", "AA-30 Z-30 Y-30 X-30",
          WL_R_WOODS_STOP, NULL },
    };
    (void)state;
    struct fx f = fx_make(terrain_rivers, rivers_units,
                          (int)(sizeof rivers_units / sizeof rivers_units[0]), 1);
    run_rows(&f, t, sizeof t / sizeof t[0]);
    fx_free(&f);
}

/* --- woods ----------------------------------------------------------------- */

/* A block of woods K-30..K-33, L-30..L-33; a secondary road along row P
 * through the road-woods squares P-30, P-31, P-32, with woods (no road) on
 * O-31 and Q-30 beside it. */
static void terrain_woods(struct wl_map *m)
{
    woods(m, "K-30 K-31 K-32 K-33 L-30 L-31 L-32 L-33");
    road_line(m, "Forest road", WL_ROAD_SECONDARY, "P-25", WL_W, 16);
    woods(m, "P-30 P-31 P-32 O-31 Q-30");
}

static const struct uspec woods_units[] = {
    { "Walker", F, INF, 4, 4, "M-32", 0, -1 },
    { "Forester", F, INF, 4, 4, "L-33", 0, -1 },  /* starts in the woods */
    { "Rider", F, INF, 4, 4, "P-28", 0, -1 },     /* on the forest road */
    { "Leaf", F, INF, 4, 4, "Q-31", 0, -1 },      /* beside road-woods P-31, off the road */
    { "Twig", F, INF, 4, 4, "P-33", 0, -1 },      /* on the road, west of the woods */
    { "Camp", F, INF, 4, 4, "P-31", 0, -1 },      /* starts on road-woods P-31 */
};

static void test_woods(void **state)
{
    static const struct row t[] = {
        /* a. "All Units must stop when they land on Woods squares." */
        { 1, "into the woods, stop", FM, "Walker", "L-32", OK, NULL },
        { 2, "into the woods and on", FM, "Walker", "L-32 K-32", WL_R_WOODS_STOP, "L-32" },
        /* b. "All Units move through the woods at the rate of one square per turn." */
        { 3, "from woods one square into woods", FM, "Forester", "K-33", OK, NULL },
        { 4, "from woods two squares into woods", FM, "Forester", "K-33 J-33",
          WL_R_WOODS_STOP, NULL },
        { 5, "inside the woods, two squares", FM, "Forester", "L-32 L-31", WL_R_WOODS_STOP,
          NULL },
        /* c. "All Units may leave the woods at their normal movement rate." */
        { 6, "leave the woods at the normal rate", FM, "Forester", "L-34 L-35 L-36 L-37", OK,
          NULL },
        { 7, "... and no more", FM, "Forester", "L-34 L-35 L-36 L-37 L-38", WL_R_TOO_FAR,
          NULL },
        /* d. "There is no movement delay when traveling through woods on
         * primary and secondary roads." */
        { 8, "along the road through three woods squares", FM, "Rider", "P-29 P-30 P-31 P-32",
          OK, NULL },
        /* Road-woods 1: "Units traveling on roads cannot leave road-woods
         * hexes except via the hexside intersected by the road." Example: "Move
         * to hex C is ok; all others not allowed." (C = P-32) */
        { 9, "by road into P-31, on along the road (hex C)", FM, "Rider", "P-29 P-30 P-31 P-32",
          OK, NULL },
        { 10, "by road into P-31, off NE into woods", FM, "Rider", "P-29 P-30 P-31 O-31",
          WL_R_ROAD_WOODS_EXIT, NULL },
        { 11, "by road into P-31, off SE into woods", FM, "Rider", "P-29 P-30 P-31 Q-30",
          WL_R_ROAD_WOODS_EXIT, NULL },
        { 12, "by road into P-31, off SW into the clear", FM, "Rider", "P-29 P-30 P-31 Q-31",
          WL_R_ROAD_WOODS_EXIT, NULL },
        { 13, "by road into P-31, off NW into the clear", FM, "Rider", "P-29 P-30 P-31 O-32",
          WL_R_ROAD_WOODS_EXIT, "P-31" },
        { 14, "by road into P-31, back along the road", FM, "Rider", "P-29 P-30 P-31 P-30",
          OK, NULL },
        /* Road-woods 3: "Units entering road-woods hexes must stop unless entry
         * is made via the hexside that the road intersects." Example: "No unit
         * may move to Y and continue moving unless they enter from hex C." */
        { 15, "into Y off the road, and on", FM, "Leaf", "P-31 P-32", WL_R_WOODS_STOP, NULL },
        { 16, "into Y off the road, stop", FM, "Leaf", "P-31", OK, NULL },
        { 17, "into Y from C by road, and on", FM, "Twig", "P-32 P-31 P-30 P-29", OK, NULL },
        /* Road-woods 2: "Units beginning a turn on a road-woods hex may move
         * off into adjacent non-road-woods hexes at the rate of one hex per
         * turn if they do so before moving along the road that turn." */
        { 18, "from road-woods off the road into the clear, and on", FM, "Camp",
          "Q-31 R-31 S-31", OK, NULL },
        { 19, "from road-woods off the road into woods", FM, "Camp", "O-31", OK, NULL },
        { 20, "from road-woods into woods and on", FM, "Camp", "O-31 N-31", WL_R_WOODS_STOP,
          NULL },
        { 21, "along the road first, then off it from road-woods", FM, "Camp", "P-32 Q-32",
          WL_R_ROAD_WOODS_EXIT, NULL },
        { 22, "along the road out of the woods, then off it", FM, "Camp", "P-32 P-33 Q-33", OK,
          NULL },
        { 23, "along the road and back, then off it", FM, "Camp", "P-30 P-31 Q-31",
          WL_R_ROAD_WOODS_EXIT, NULL },
    };
    (void)state;
    struct fx f = fx_make(terrain_woods, woods_units,
                          (int)(sizeof woods_units / sizeof woods_units[0]), 1);
    run_rows(&f, t, sizeof t / sizeof t[0]);
    fx_free(&f);
}

/* --- zones of control ------------------------------------------------------- */

static void terrain_open(struct wl_map *m)
{
    (void)m;
}

static const struct uspec zoc_units[] = {
    /* French */
    { "Jerome", F, INF, 6, 4, "Y-27", 0, -1 },    /* zone X-27 X-28 Y-26 Y-28 Z-26 Z-27 */
    { "Soult", F, HQ, 0, 6, "Y-27", 0, -1 },      /* an HQ with Jerome: Jerome's square */
    { "Bachelu", F, INF, 5, 4, "W-30", 0, -1 },   /* zone V-30 V-31 W-29 W-31 X-29 X-30 */
    { "Napoleon", F, HQ, 0, 6, "P-30", 0, -1 },   /* HQ: no zone */
    { "Vandamme", F, INF, 6, 4, "R-39", 0, -1 },
    { "Gerard", F, INF, 6, 4, "R-41", 0, -1 },
    { "Milhaud", F, CAV, 4, 6, "L-40", 0, -1 },   /* Blue-E and F of the soak-off */
    { "Kellermann", F, CAV, 4, 6, "L-40", 0, -1 },
    { "Subervie", F, CAV, 3, 6, "K-38", 0, -1 },
    { "Domon", F, CAV, 3, 6, "I-42", 0, -1 },
    /* Allied */
    { "Pirch I", A, INF, 6, 4, "X-28", 0, -1 },   /* starts in Jerome's zone */
    { "Zieten", A, INF, 6, 4, "V-27", 0, -1 },
    { "Roder", A, CAV, 4, 6, "V-27", 0, -1 },
    { "Thielemann", A, INF, 6, 4, "R-40", 0, -1 },/* Red-B of the soak-off, surrounded */
    { "Borcke", A, INF, 4, 4, "S-40", 0, -1 },    /* Red-C,D square */
    { "Ryssel", A, INF, 3, 4, "K-40", 0, -1 },    /* Red-D of the second soak-off */
    { "Bulow", A, INF, 6, 4, "N-30", 0, -1 },
    { "Muffling", A, HQ, 0, 6, "O-29", 0, -1 },
};

static void test_zones(void **state)
{
    static const struct row t[] = {
        /* "An attacking Unit must STOP as soon as it enters the first enemy
         * controlled square." */
        { 1, "into the zone, stop", AM, "Zieten", "W-27 X-27", OK, NULL },
        { 2, "into the zone and on", AM, "Zieten", "W-27 X-27 X-26", WL_R_ZOC_STOP, "Jerome" },
        /* "CORRECT: Blue must circle the zone of control to reach Square (B).
         * INCORRECT: Blue is not allowed to short-cut its approach to Square
         * (B) by passing thru Square (A)." (A = X-27, B = Y-26) */
        { 3, "circle the zone to reach B", AM, "Zieten", "W-27 X-26 Y-26", OK, NULL },
        { 4, "short-cut through A to B", AM, "Zieten", "W-27 X-27 Y-26", WL_R_ZOC_STOP, NULL },
        /* "Notice that BLUE-A circled the RED controlled square (Z) to gain a
         * better attack position." */
        { 5, "circle to the far side", AM, "Roder", "W-27 X-26 Y-25 Z-25 Z-26", OK, NULL },
        { 6, "through the zone to the far side", AM, "Roder", "W-27 X-27 Y-26 Z-26",
          WL_R_ZOC_STOP, NULL },
        { 7, "a friendly unit in the zone does not cancel it", AM, "Zieten",
          "W-27 W-28 X-28", OK, NULL },
        { 8, "... the mover still stops there", AM, "Zieten", "W-27 W-28 X-28 W-29",
          WL_R_ZOC_STOP, NULL },
        /* "A Unit beginning its turn while in an enemy Unit's zone of control
         * is not allowed to move to another square in the same Unit's zone--
         * it must either attack from the square it is on or withdraw from the
         * zone altogether." */
        { 9, "to another square of the same unit's zone", AM, "Pirch I", "X-27",
          WL_R_ZOC_SAME_UNIT, "Jerome" },
        { 10, "to another square of it, the other way", AM, "Pirch I", "Y-28",
          WL_R_ZOC_SAME_UNIT, NULL },
        { 11, "withdraw from the zone", AM, "Pirch I", "W-28", OK, NULL },
        { 12, "withdraw and move on", AM, "Pirch I", "W-28 V-28 V-27 W-27", OK, NULL },
        /* "An attacking Unit is not allowed to withdraw from an enemy Unit's
         * zone of control and then re-enter that Unit's zone in the same turn." */
        { 13, "withdraw and re-enter", AM, "Pirch I", "W-28 X-27", WL_R_ZOC_REENTER,
          "Pirch I left the zone of Jerome this turn and may not re-enter it at X-27" },
        { 14, "withdraw and come back to the start square", AM, "Pirch I", "W-28 X-28",
          WL_R_ZOC_REENTER, NULL },
        /* "Attacking units may not move from the zone of control of one enemy
         * unit into the zone of control of another enemy unit without first
         * moving into an uncontrolled hex." */
        { 15, "from one unit's zone straight into another's", AM, "Pirch I", "X-29",
          WL_R_ZOC_TO_ZOC, "Bachelu" },
        { 16, "... the other square of it", AM, "Pirch I", "W-29", WL_R_ZOC_TO_ZOC, NULL },
        { 17, "through an uncontrolled square into another's zone", AM, "Pirch I",
          "W-28 W-29", OK, NULL },
        { 18, "into the enemy's square", AM, "Pirch I", "Y-27", WL_R_ENEMY_SQUARE, NULL },
        /* Soaking off, first example: "Red-B is not allowed to withdraw
         * because Blue controls the X squares plus the Red-C, D square." */
        { 19, "surrounded: X square NE", AM, "Thielemann", "Q-40", WL_R_ZOC_SAME_UNIT, NULL },
        { 20, "surrounded: X square NW", AM, "Thielemann", "Q-41", WL_R_ZOC_SAME_UNIT, NULL },
        { 21, "surrounded: X square SE", AM, "Thielemann", "S-39", WL_R_ZOC_SAME_UNIT, NULL },
        { 22, "surrounded: the Red-C,D square", AM, "Thielemann", "S-40", WL_R_ZOC_SAME_UNIT,
          NULL },
        { 23, "surrounded: Blue's square", AM, "Thielemann", "R-39", WL_R_ENEMY_SQUARE, NULL },
        /* "Red-C, D is allowed to withdraw although it has the option to
         * attack Blue-F." */
        { 24, "Red-C,D withdraws", AM, "Borcke", "T-40 U-40", OK, NULL },
        { 25, "Red-C,D may not slide along Blue's zone", AM, "Borcke", "S-41",
          WL_R_ZOC_SAME_UNIT, "Gerard" },
        /* Second example: "If it decides to withdraw, it may do so only
         * through square X. ... it is not allowed to move to square Y since Y
         * is also a Blue-E, F controlled square." (X = J-40, Y = K-41) */
        { 26, "withdraw through X", AM, "Ryssel", "J-40", OK, NULL },
        { 27, "withdraw through X and on", AM, "Ryssel", "J-40 I-40", OK, NULL },
        { 28, "move to Y", AM, "Ryssel", "K-41", WL_R_ZOC_SAME_UNIT, "Milhaud" },
        { 29, "move to the other square of Blue-E,F's zone", AM, "Ryssel", "L-39",
          WL_R_ZOC_SAME_UNIT, NULL },
        { 30, "move into a third unit's zone", AM, "Ryssel", "K-39", WL_R_ZOC_TO_ZOC, NULL },
        { 31, "move into a fourth unit's zone", AM, "Ryssel", "J-41", WL_R_ZOC_TO_ZOC, NULL },
        { 32, "through X into the fourth unit's zone", AM, "Ryssel", "J-40 J-41", OK, NULL },
        /* HQs "have no bearing on the play of the game as they have no zone of
         * control and cannot be used to delay the enemy." (rules 2,
         * docs/rules-notes.md H2: a combat unit enters the square of enemy HQ
         * units alone, which are eliminated; waterloo_turn.c, test_game) */
        { 33, "past an enemy HQ without stopping", AM, "Bulow", "O-30 O-31 O-32 O-33", OK,
          NULL },
        { 34, "onto the enemy HQ's square", AM, "Bulow", "O-30 P-30", OK, NULL },
        { 35, "through the enemy HQ's square and on", AM, "Bulow", "O-30 P-30 Q-30 R-30", OK,
          NULL },
        /* ... but an HQ, which may not attack, does not enter it */
        { 36, "an HQ onto the enemy HQ's square", AM, "Muffling", "P-29 P-30",
          WL_R_ENEMY_SQUARE, "Napoleon" },
        /* an HQ stacked with an enemy combat unit changes nothing: the square is Jerome's */
        { 40, "onto Jerome and Soult's square", AM, "Pirch I", "Y-27", WL_R_ENEMY_SQUARE,
          "held by" },
    };
    /* Rules 1 (the rules as first published by Warroom) held an HQ's square
     * like any enemy square. */
    static const struct row rules1[] = {
        { 37, "rules 1: past an enemy HQ without stopping", AM, "Bulow",
          "O-30 O-31 O-32 O-33", OK, NULL },
        { 38, "rules 1: onto the enemy HQ's square", AM, "Bulow", "O-30 P-30",
          WL_R_ENEMY_SQUARE, "Napoleon" },
        { 39, "rules 1: through the enemy HQ's square", AM, "Bulow", "O-30 P-30 Q-30",
          WL_R_ENEMY_SQUARE, "Napoleon" },
    };
    (void)state;
    struct fx f = fx_make(terrain_open, zoc_units,
                          (int)(sizeof zoc_units / sizeof zoc_units[0]), 2);
    run_rows(&f, t, sizeof t / sizeof t[0]);
    f.g->opt.rules = 1;                 /* the fixture has no team HQ: nothing else differs */
    run_rows(&f, rules1, sizeof rules1 / sizeof rules1[0]);
    f.g->opt.rules = WL_RULES;

    /* The surrounded unit cannot move at all; the second one only via X. */
    struct wl_reach *r = malloc(sizeof *r);
    assert_non_null(r);
    int u = unit(&f, "Thielemann");
    f.g->phase = AM;
    assert_int_equal(wl_move_reach(f.g, &u, 1, r, NULL), OK);
    assert_int_equal(r->n, 0);
    u = unit(&f, "Ryssel");
    assert_int_equal(wl_move_reach(f.g, &u, 1, r, NULL), OK);
    assert_true(r->n > 5);
    for (int i = 0; i < r->n; i++)
        if (r->path[i][0] != wlt_sq("J-40"))
            fail_msg("Ryssel reaches %d by a path not through X", r->end[i]);
    free(r);
    fx_free(&f);
}

/* --- stacking and leaving the board ------------------------------------------ */

/* The Brussels road (primary) runs off the board at A-45 into 0-46; the
 * north edge squares A-39..A-45 are the French exit. */
static void terrain_north(struct wl_map *m)
{
    road(m, "Brussels road", WL_ROAD_PRIMARY,
         "0-46 A-45 B-45 C-44 D-44 E-43 F-43 G-42 H-42 I-41");
    for (int c = 39; c <= 45; c++)
        m->cell[wl_sq_make(1, c)].exit = 1;
}

static const struct uspec edge_units[] = {
    { "Vivian", A, CAV, 3, 6, "A-39", 0, -1 },     /* zone A-38 A-40 B-38 B-39 */
    { "Reille", F, INF, 4, 4, "A-36", 0, -1 },
    { "Lobau", F, INF, 4, 4, "A-41", 0, -1 },
    { "Pajol", F, CAV, 4, 6, "A-40", 0, -1 },      /* starts in Vivian's zone */
    { "Drouot", F, INF, 4, 4, "C-41", 0, -1 },
    { "Near", F, INF, 4, 4, "D-43", 0, -1 },
    { "Walk4", F, INF, 4, 4, "E-42", 0, -1 },
    { "Guyot", F, CAV, 4, 1, "F-42", 0, -1 },      /* movement factor 1 */
    { "Friant", F, INF, 6, 4, "S-35", 0, -1 },
    { "Morand", F, INF, 4, 4, "S-35", 0, -1 },
    { "Duhesme", F, INF, 6, 4, "S-38", 0, -1 },
    { "Chastel", F, CAV, 5, 4, "S-38", 0, -1 },
};

static void test_stacking_and_exit(void **state)
{
    static const struct row t[] = {
        /* "Both players are allowed to combine Units of any kind in a stack
         * totaling no more than 15 basic combat factors." */
        { 1, "6 onto 10", FM, "Duhesme", "S-37 S-36 S-35", WL_R_STACKING, "16" },
        { 2, "5 onto 10", FM, "Chastel", "S-37 S-36 S-35", OK, NULL },
        /* "Units may pass through squares containing other friendly Units,
         * even if stacked, with no movement penalty." */
        { 3, "6 through 10", FM, "Duhesme", "S-37 S-36 S-35 S-34", OK, NULL },
        { 4, "11 onto 10", FM, "Duhesme,Chastel", "S-37 S-36 S-35", WL_R_STACKING, NULL },
        { 5, "a stack of 10 moves together", FM, "Friant,Morand", "S-36", OK, NULL },
        { 6, "10 onto 11", FM, "Friant,Morand", "S-36 S-37 S-38", WL_R_STACKING, NULL },
        { 7, "back to the start square", FM, "Duhesme", "S-37 S-38", OK, NULL },
        /* French exit: "only through the board edge squares between the two
         * roads, inclusive, due north from Mont St. Jean" (A-39..A-45). */
        { 8, "off from A-41", FM, "Lobau", "OFF", OK, NULL },
        { 9, "off from A-36", FM, "Reille", "OFF", WL_R_EXIT_NOT_ALLOWED, "A-36" },
        { 10, "to A-42, off", FM, "Drouot", "B-41 A-42 OFF", OK, NULL },
        { 11, "into a zone at A-40, then off", FM, "Drouot", "B-41 B-40 A-40 OFF",
          WL_R_ZOC_STOP, NULL },
        { 12, "starting in a zone: off the board is a withdrawal", FM, "Pajol", "OFF", OK,
          NULL },
        { 13, "4 squares and off", FM, "Near", "C-43 B-43 A-43 OFF", OK, NULL },
        { 14, "leaving the board costs a movement point", FM, "Walk4", "D-42 C-42 B-42 A-42 OFF",
          WL_R_TOO_FAR, NULL },
        { 15, "... without it", FM, "Walk4", "D-42 C-42 B-42 A-42", OK, NULL },
        { 16, "road bonus to the edge", FM, "Guyot", "E-43 D-44 C-44 B-45 A-45", OK, NULL },
        { 17, "the road bonus does not pay for leaving", FM, "Guyot",
          "E-43 D-44 C-44 B-45 A-45 OFF", WL_R_TOO_FAR, NULL },
        { 18, "not through the Brussels entry square", FM, "Guyot", "E-43 D-44 C-44 B-45 A-45 0-46",
          WL_R_NOT_PLAYABLE, NULL },
        { 19, "an allied unit may not leave", AM, "Vivian", "OFF", WL_R_EXIT_NOT_ALLOWED,
          "French" },
    };
    (void)state;
    struct fx f = fx_make(terrain_north, edge_units,
                          (int)(sizeof edge_units / sizeof edge_units[0]), 1);
    run_rows(&f, t, sizeof t / sizeof t[0]);
    fx_free(&f);
}

/* --- reinforcements ----------------------------------------------------------- */

/* Entries clockwise: Brussels 0-46 (primary road), Braine-le-Comte U-48 and
 * Hal C-57 (secondary roads). */
static void terrain_entries(struct wl_map *m)
{
    struct wr_refusal why;
    terrain_north(m);
    road(m, "Braine road", WL_ROAD_SECONDARY, "U-48 U-47 U-46 U-45 U-44 U-43");
    road(m, "Hal road", WL_ROAD_SECONDARY, "C-57 C-56 C-55 C-54 C-53");
    if (wl_map_add_entry(m, "Brussels", wlt_sq("0-46"), &why) != 0 ||
        wl_map_add_entry(m, "Braine-le-Comte", wlt_sq("U-48"), &why) != 1 ||
        wl_map_add_entry(m, "Hal", wlt_sq("C-57"), &why) != 2)
        fail_msg("test data: entries");
}

static const struct uspec entry_units[] = {
    { "Subervie", F, CAV, 3, 6, "C-46", 0, -1 },  /* zone B-46 B-47 C-45 C-47 D-45 D-46 */
    { "Pire", F, CAV, 4, 6, NULL, 0, -1 },        /* placed by test_entry_for */
    { "Jacquinot", F, CAV, 4, 6, NULL, 0, -1 },
    { "Milhaud", F, CAV, 4, 6, NULL, 0, -1 },
    { "Napoleon", F, HQ, 0, 6, NULL, 0, -1 },
    { "Soult", F, HQ, 0, 6, NULL, 0, -1 },
    { "Picton", A, INF, 6, 4, NULL, 3, 0 },
    { "Kempt", A, INF, 4, 4, NULL, 2, 0 },
    { "Clinton", A, INF, 6, 4, NULL, 5, 0 },
    { "Wissel", A, INF, 2, 4, NULL, 2, 1 },
    { "Colville", A, INF, 4, 4, NULL, 1, 2 },
    { "Cooke", A, INF, 4, 4, "N-40", 0, -1 },
};

static void test_reinforcements(void **state)
{
    static const struct row t[] = {
        /* "All incoming units start moving from the edge of the board
         * counting the first playable hex as the first basic movement factor
         * used." */
        { 1, "enter at Brussels, 4 squares", AM, "Picton", "0-46 A-45 B-45 C-44 D-44", OK,
          NULL },
        { 2, "enter, 1 basic + 3 basic + 4 bonus along the road", AM, "Picton",
          "0-46 A-45 B-45 C-44 D-44 E-43 F-43 G-42 H-42", OK, NULL },
        { 3, "... 9 squares", AM, "Picton", "0-46 A-45 B-45 C-44 D-44 E-43 F-43 G-42 H-42 I-41",
          WL_R_TOO_FAR, NULL },
        { 4, "enter, 3 bonus along the road, 3 off it", AM, "Picton",
          "0-46 A-45 B-45 C-44 D-44 D-43 D-42 D-41", OK, NULL },
        { 5, "the first square is basic: 3 bonus, 4 off is too far", AM, "Picton",
          "0-46 A-45 B-45 C-44 D-44 D-43 D-42 D-41 D-40", WL_R_TOO_FAR, NULL },
        { 6, "the path must begin on the entry", AM, "Picton", "A-45 B-45", WL_R_BAD_ENTRY,
          "0-46" },
        { 7, "not another unit's entry", AM, "Picton", "U-48 U-47", WL_R_BAD_ENTRY, NULL },
        /* "Note that none of these starting squares are playable." */
        { 8, "staying on the entry square", AM, "Picton", "0-46", WL_R_NOT_PLAYABLE, NULL },
        /* "Movement between two unplayable hexes is not allowed." */
        { 9, "along the edge between unplayable squares", AM, "Picton", "0-46 0-45",
          WL_R_NOT_PLAYABLE, NULL },
        { 10, "entering into an enemy zone: stop", AM, "Picton", "0-46 A-46 B-46", OK, NULL },
        { 11, "... and on", AM, "Picton", "0-46 A-46 B-46 B-47", WL_R_ZOC_STOP, NULL },
        { 12, "off the road: 4 squares", AM, "Picton", "0-46 A-46 A-47 A-48 A-49", OK, NULL },
        { 13, "off the road: 5 squares", AM, "Picton", "0-46 A-46 A-47 A-48 A-49 A-50",
          WL_R_TOO_FAR, NULL },
        { 14, "not due yet", AM, "Clinton", "0-46 A-45", WL_R_NOT_ARRIVED, "turn 5" },
        /* "If the P-A-A forgets to bring in Units when scheduled they may be
         * brought on at any time later in the game." */
        { 15, "due last turn, brought in now", AM, "Wissel", "U-48 U-47 U-46", OK, NULL },
        /* "brings out his units scheduled to arrive in that turn in one pile" */
        { 16, "two arrivals enter as a stack", AM, "Kempt,Picton", "0-46 A-45 B-45", OK, NULL },
        { 17, "arrivals of two entries are not a stack", AM, "Picton,Wissel", "0-46 A-45",
          WL_R_BAD_COMMAND, NULL },
        { 18, "an arrival and a unit on the board", AM, "Picton,Cooke", "0-46 A-45",
          WL_R_BAD_COMMAND, NULL },
        { 19, "not in the French move", FM, "Picton", "0-46 A-45", WL_R_NOT_YOUR_UNIT, NULL },
        { 20, "enter at Hal", AM, "Colville", "C-57 B-57", OK, NULL },
        { 21, "enter at Hal, south-east", AM, "Colville", "C-57 D-56", OK, NULL },
    };
    (void)state;
    struct fx f = fx_make(terrain_entries, entry_units,
                          (int)(sizeof entry_units / sizeof entry_units[0]), 3);
    run_rows(&f, t, sizeof t / sizeof t[0]);
    fx_free(&f);
}

/* "Incoming Units may not be placed on board directly into enemy zones of
 * control. If enemy zones prevent the P-A-A player from bringing in any or
 * all scheduled Units, such Units may be brought in on the next unblocked
 * primary or secondary road looking clockwise around the board." */
static void test_entry_for(void **state)
{
    static const struct row blocked[] = {
        { 1, "own entry blocked", AM, "Wissel", "U-48 T-48", WL_R_ENTRY_BLOCKED, "C-57" },
        { 2, "next clockwise instead", AM, "Wissel", "C-57 C-56 C-55", OK, NULL },
        { 3, "and the zone reaches onto the board", AM, "Wissel", "C-57 C-56", OK, NULL },
    };
    static const struct row all_blocked[] = {
        { 4, "every entry blocked", AM, "Picton", "0-46 A-45", WL_R_ENTRY_BLOCKED, NULL },
        { 5, "every entry blocked (Hal)", AM, "Colville", "C-57 C-56", WL_R_ENTRY_BLOCKED,
          NULL },
    };
    (void)state;
    struct fx f = fx_make(terrain_entries, entry_units,
                          (int)(sizeof entry_units / sizeof entry_units[0]), 3);
    int picton = unit(&f, "Picton"), wissel = unit(&f, "Wissel");
    int colville = unit(&f, "Colville");
    f.g->phase = AM;
    assert_int_equal(wl_move_entry_for(f.g, picton), 0);
    assert_int_equal(wl_move_entry_for(f.g, wissel), 1);
    assert_int_equal(wl_move_entry_for(f.g, colville), 2);
    assert_int_equal(wl_move_entry_for(f.g, unit(&f, "Cooke")), -1);   /* on the board */
    assert_int_equal(wl_move_entry_for(f.g, -1), -1);
    assert_int_equal(wl_move_entry_for(f.g, f.sc->nunits), -1);

    /* Pire next to U-48 blocks Braine-le-Comte: Wissel goes to Hal. */
    place(&f, "Pire", "U-47");
    assert_int_equal(wl_move_entry_for(f.g, wissel), 2);
    assert_int_equal(wl_move_entry_for(f.g, picton), 0);
    run_rows(&f, blocked, sizeof blocked / sizeof blocked[0]);

    /* Jacquinot next to C-57 blocks Hal too: both go round to Brussels. */
    place(&f, "Jacquinot", "B-57");
    assert_int_equal(wl_move_entry_for(f.g, wissel), 0);
    assert_int_equal(wl_move_entry_for(f.g, colville), 0);

    /* An HQ next to 0-46 blocks nothing ... */
    place(&f, "Napoleon", "A-46");
    assert_int_equal(wl_move_entry_for(f.g, picton), 0);
    /* ... a combat unit does: every entry is blocked. */
    place(&f, "Napoleon", NULL);
    place(&f, "Milhaud", "A-45");
    assert_int_equal(wl_move_entry_for(f.g, picton), -1);
    assert_int_equal(wl_move_entry_for(f.g, wissel), -1);
    run_rows(&f, all_blocked, sizeof all_blocked / sizeof all_blocked[0]);
    struct wl_reach *r = malloc(sizeof *r);
    assert_non_null(r);
    assert_int_equal(wl_move_reach(f.g, &picton, 1, r, NULL), WL_R_ENTRY_BLOCKED);
    assert_int_equal(r->n, 0);

    /* Hal free again: Picton, whose own entry is blocked, goes round the
     * board past blocked Braine to Hal. */
    place(&f, "Jacquinot", NULL);
    assert_int_equal(wl_move_entry_for(f.g, picton), 2);
    free(r);
    fx_free(&f);
}

/* The example: two French HQs on, the two squares a
 * Brussels reinforcement can step onto. HQs "have no bearing on the play of
 * the game as they have no zone of control and cannot be used to delay the
 * enemy" (docs/rules-notes.md H2): under rules 2 the reinforcement enters
 * (eliminating the HQ it steps on: test_game); under rules 1 it could not
 * enter at all. */
static void test_entry_past_hqs(void **state)
{
    static const struct row rules2[] = {
        { 1, "enter onto Napoleon's square", AM, "Picton", "0-46 A-45 B-45 C-44", OK, NULL },
        { 2, "enter onto Soult's square and stop there", AM, "Picton", "0-46 A-46", OK, NULL },
        { 3, "an arriving stack too", AM, "Kempt,Picton", "0-46 A-45", OK, NULL },
    };
    static const struct row rules1[] = {
        { 4, "rules 1: Napoleon's square is held", AM, "Picton", "0-46 A-45",
          WL_R_ENEMY_SQUARE, "Napoleon" },
        { 5, "rules 1: Soult's square is held", AM, "Picton", "0-46 A-46", WL_R_ENEMY_SQUARE,
          "Soult" },
    };
    (void)state;
    struct fx f = fx_make(terrain_entries, entry_units,
                          (int)(sizeof entry_units / sizeof entry_units[0]), 3);
    int picton = unit(&f, "Picton");
    place(&f, "Subervie", NULL);        /* no zone near the entry: only the HQs */
    place(&f, "Napoleon", "A-45");
    place(&f, "Soult", "A-46");
    f.g->phase = AM;
    assert_int_equal(wl_move_entry_for(f.g, picton), 0);
    run_rows(&f, rules2, sizeof rules2 / sizeof rules2[0]);
    struct wl_reach *r = malloc(sizeof *r);
    assert_non_null(r);
    assert_int_equal(wl_move_reach(f.g, &picton, 1, r, NULL), OK);
    assert_true(r->n > 10);
    f.g->opt.rules = 1;
    run_rows(&f, rules1, sizeof rules1 / sizeof rules1[0]);
    assert_int_equal(wl_move_reach(f.g, &picton, 1, r, NULL), OK);
    assert_int_equal(r->n, 0);
    free(r);
    fx_free(&f);
}

/* --- reach and check agree ------------------------------------------------------ */

struct brute {
    const struct wl_game *g;
    const int *units;
    int nunits;
    int maxlen;
    int may_exit;
    uint8_t seen[WL_NSQ];
    int off;
    long checks;
};

/* Depth-first over every path up to maxlen; a prefix refused by a step
 * rule is refused for every extension (the check stops at its first bad
 * step), so only stacking refusals are extended. */
static void brute_dfs(struct brute *b, wl_sq *path, int n, int pending)
{
    if (n > 0 && !(pending && n == 1)) {
        enum wl_reason r = wl_move_check(b->g, b->units, b->nunits, path, n, NULL);
        b->checks++;
        if (r == OK)
            b->seen[path[n - 1]] = 1;
        else if (r != WL_R_STACKING)
            return;
    }
    if (b->may_exit && n > 0 && n < WL_PATH_MAX) {
        path[n] = WL_PATH_OFF;
        if (wl_move_check(b->g, b->units, b->nunits, path, n + 1, NULL) == OK)
            b->off = 1;
    }
    if (n >= b->maxlen)
        return;
    wl_sq last = n > 0 ? path[n - 1] : b->g->units[b->units[0]].at;
    for (int d = 0; d < WL_NDIR; d++) {
        wl_sq s = wl_grid_neighbour(last, d);
        if (s == WL_SQ_NONE || !wl_grid_playable(s))
            continue;
        path[n] = s;
        brute_dfs(b, path, n + 1, pending);
    }
}

static void agree(struct fx *f, int phase, const char *names)
{
    int us[16];
    int nu = unit_list(f, names, us);
    struct wl_reach *r = malloc(sizeof *r);
    struct brute *b = calloc(1, sizeof *b);
    struct wr_refusal why;
    assert_non_null(r);
    assert_non_null(b);
    f->g->phase = phase;
    if (wl_move_reach(f->g, us, nu, r, &why) != OK)
        fail_msg("%s: reach refused: %s", names, why.message);

    /* Every square reached has a path the referee accepts, ending there. */
    uint8_t reached[WL_NSQ];
    int reached_off = 0;
    memset(reached, 0, sizeof reached);
    for (int i = 0; i < r->n; i++) {
        int len = r->path_len[i];
        if (len < 1 || len > WL_PATH_MAX || r->path[i][len - 1] != r->end[i])
            fail_msg("%s: reach entry %d has a bad path", names, i);
        enum wl_reason rc = wl_move_check(f->g, us, nu, r->path[i], len, &why);
        if (rc != OK)
            fail_msg("%s: reach path %d refused: %s", names, i, why.message);
        if (r->end[i] == WL_PATH_OFF) {
            assert_false(reached_off);
            reached_off = 1;
        } else {
            assert_false(reached[r->end[i]]);
            reached[r->end[i]] = 1;
        }
    }

    /* And no other square can be reached by any path. */
    const struct wl_unit *u0 = &f->g->units[us[0]];
    int pending = u0->where == WL_PENDING;
    int mf = 255;
    for (int k = 0; k < nu; k++)
        if (f->sc->units[us[k]].move < mf)
            mf = f->sc->units[us[k]].move;
    b->g = f->g;
    b->units = us;
    b->nunits = nu;
    b->maxlen = mf + 4 + pending;
    b->may_exit = f->sc->units[us[0]].side == WL_FRENCH;
    wl_sq path[WL_PATH_MAX + 1];
    wl_sq start;
    if (pending) {
        int e = wl_move_entry_for(f->g, us[0]);
        assert_true(e >= 0);
        path[0] = f->sc->map.entries[e].at;
        start = WL_SQ_NONE;
        brute_dfs(b, path, 1, 1);
    } else {
        start = u0->at;
        brute_dfs(b, path, 0, 0);
    }
    for (int s = 0; s < WL_NSQ; s++) {
        if (s == start)
            continue;
        if (b->seen[s] != reached[s]) {
            char a[WL_SQ_NAME_MAX];
            fail_msg("%s: %s is %s by brute force but %s by reach", names,
                     wl_grid_name((wl_sq)s, a), b->seen[s] ? "reached" : "not reached",
                     reached[s] ? "reached" : "not reached");
        }
    }
    if (getenv("MOVE_TEST_VERBOSE"))
        fprintf(stderr, "%s: %d squares, %ld checks\n", names, r->n, b->checks);
    if (b->off != reached_off)
        fail_msg("%s: leaving the board: brute force %d, reach %d", names, b->off,
                 reached_off);
    free(b);
    free(r);
}

static void test_reach_agrees(void **state)
{
    (void)state;
    struct fx f = fx_make(terrain_roads, roads_units,
                          (int)(sizeof roads_units / sizeof roads_units[0]), 1);
    agree(&f, FM, "Road2");
    agree(&f, FM, "Cross");
    agree(&f, FM, "Greedy");
    agree(&f, FM, "Resume");
    agree(&f, FM, "Bend");
    agree(&f, FM, "Corner");
    agree(&f, FM, "Horse,Foot");
    agree(&f, FM, "Foot");
    agree(&f, AM, "Blocker");
    fx_free(&f);

    f = fx_make(terrain_rivers, rivers_units,
                (int)(sizeof rivers_units / sizeof rivers_units[0]), 1);
    agree(&f, FM, "Cross");
    agree(&f, FM, "Bank");
    agree(&f, FM, "Fork");
    agree(&f, FM, "Roadie");
    agree(&f, FM, "Sider");
    agree(&f, FM, "Wade");
    fx_free(&f);

    f = fx_make(terrain_woods, woods_units, (int)(sizeof woods_units / sizeof woods_units[0]),
                1);
    agree(&f, FM, "Forester");
    agree(&f, FM, "Rider");
    agree(&f, FM, "Camp");
    agree(&f, FM, "Leaf");
    fx_free(&f);

    f = fx_make(terrain_open, zoc_units, (int)(sizeof zoc_units / sizeof zoc_units[0]), 2);
    agree(&f, AM, "Pirch I");
    agree(&f, AM, "Zieten");
    agree(&f, AM, "Ryssel");
    agree(&f, AM, "Thielemann");
    agree(&f, AM, "Borcke");
    agree(&f, AM, "Bulow");
    agree(&f, FM, "Jerome");
    fx_free(&f);

    f = fx_make(terrain_north, edge_units, (int)(sizeof edge_units / sizeof edge_units[0]), 1);
    agree(&f, FM, "Drouot");
    agree(&f, FM, "Pajol");
    agree(&f, FM, "Guyot");
    agree(&f, FM, "Duhesme");
    agree(&f, FM, "Friant,Morand");
    agree(&f, AM, "Vivian");
    fx_free(&f);

    f = fx_make(terrain_entries, entry_units,
                (int)(sizeof entry_units / sizeof entry_units[0]), 3);
    agree(&f, AM, "Picton");
    agree(&f, AM, "Kempt,Picton");
    agree(&f, AM, "Colville");
    place(&f, "Pire", "U-47");
    agree(&f, AM, "Wissel");
    fx_free(&f);
}

/* Reach refuses what check refuses about the units themselves. */
static void test_reach_refusals(void **state)
{
    (void)state;
    struct fx f = fx_make(terrain_entries, entry_units,
                          (int)(sizeof entry_units / sizeof entry_units[0]), 3);
    struct wl_reach *r = malloc(sizeof *r);
    struct wr_refusal why;
    assert_non_null(r);
    int clinton = unit(&f, "Clinton"), cooke = unit(&f, "Cooke");
    f.g->phase = AM;
    assert_int_equal(wl_move_reach(f.g, &clinton, 1, r, &why), WL_R_NOT_ARRIVED);
    assert_int_equal(why.reason, WL_R_NOT_ARRIVED);
    f.g->phase = FM;
    assert_int_equal(wl_move_reach(f.g, &cooke, 1, r, &why), WL_R_NOT_YOUR_UNIT);
    f.g->phase = AM;
    f.g->units[cooke].moved = 1;
    assert_int_equal(wl_move_reach(f.g, &cooke, 1, r, &why), WL_R_ALREADY_MOVED);
    f.g->units[cooke].moved = 0;
    assert_int_equal(wl_move_reach(f.g, &cooke, 1, r, &why), OK);
    /* Cooke (movement 4) in the open: every square within 4. */
    int n4 = 0;
    for (int s = 0; s < WL_NSQ; s++)
        if (wl_grid_playable((wl_sq)s) && s != wlt_sq("N-40") &&
            wl_grid_distance((wl_sq)s, wlt_sq("N-40")) <= 4)
            n4++;
    assert_int_equal(r->n, n4);
    assert_int_equal(n4, 60);
    free(r);
    fx_free(&f);
}

/* A fast unit with the road bonus on a board full of roads: the search
 * stays within its pool and agrees with the check (the longest paths). */
static void terrain_grid_roads(struct wl_map *m)
{
    road_line(m, "R1", WL_ROAD_PRIMARY, "T-20", WL_W, 20);
    road_line(m, "R2", WL_ROAD_PRIMARY, "J-30", WL_SW, 20);
    road_line(m, "R3", WL_ROAD_PRIMARY, "P-22", WL_W, 20);
    road_line(m, "R4", WL_ROAD_SECONDARY, "M-26", WL_SW, 20);
    river_line(m, "River", "R-20", WL_W, 20);
    woods(m, "U-28 U-29 V-28 S-33 S-34");
}

static void test_fast_unit(void **state)
{
    static const struct uspec u[] = {
        { "Comet", F, CAV, 4, 4, "T-30", 0, -1 },
        { "Foe", A, INF, 4, 4, "X-33", 0, -1 },
    };
    (void)state;
    struct fx f = fx_make(terrain_grid_roads, u, 2, 1);
    agree(&f, FM, "Comet");
    /* A scenario with a very fast unit: the search must still work. */
    f.sc->units[0].move = 20;
    struct wl_reach *r = malloc(sizeof *r);
    assert_non_null(r);
    int c = 0;
    f.g->phase = FM;
    assert_int_equal(wl_move_reach(f.g, &c, 1, r, NULL), OK);
    assert_true(r->n > 500);
    for (int i = 0; i < r->n; i++)
        assert_int_equal(wl_move_check(f.g, &c, 1, r->path[i], r->path_len[i], NULL), OK);
    free(r);
    fx_free(&f);
}

/* At the board's edges, reach in the open is exactly the playable squares
 * within the movement factor (plain breadth-first search over waterloo_grid.c's
 * neighbours): the search's own neighbour and playable tables agree with
 * waterloo_grid.c along every edge and corner. */
static void test_board_edges(void **state)
{
    static const struct uspec u[] = {
        { "NE", F, CAV, 1, 10, "A-26", 0, -1 },   /* north-east corner */
        { "NW", F, CAV, 1, 10, "A-57", 0, -1 },   /* north-west corner */
        { "SE", F, CAV, 1, 10, "WW-2", 0, -1 },   /* south-east corner */
        { "SW", F, CAV, 1, 10, "WW-33", 0, -1 },  /* south-west corner */
        { "W", F, CAV, 1, 10, "T-48", 0, -1 },    /* west edge, next to a partial square */
        { "E", F, CAV, 1, 10, "Y-14", 0, -1 },    /* east edge */
        { "N", F, CAV, 1, 10, "A-40", 0, -1 },    /* north edge, exit square */
    };
    (void)state;
    struct fx f = fx_make(terrain_open, u, (int)(sizeof u / sizeof u[0]), 1);
    struct wl_reach *r = malloc(sizeof *r);
    assert_non_null(r);
    f.g->phase = FM;
    for (int i = 0; i < f.sc->nunits; i++) {
        static int depth[WL_NSQ];
        wl_sq queue[WL_NSQ];
        int head = 0, tail = 0, want = 0;
        for (int k = 0; k < WL_NSQ; k++)
            depth[k] = -1;
        wl_sq start = f.g->units[i].at;
        depth[start] = 0;
        queue[tail++] = start;
        while (head < tail) {
            wl_sq s = queue[head++];
            if (depth[s] == 10)
                continue;
            for (int d = 0; d < WL_NDIR; d++) {
                wl_sq n = wl_grid_neighbour(s, d);
                if (n != WL_SQ_NONE && wl_grid_playable(n) && depth[n] < 0) {
                    depth[n] = depth[s] + 1;
                    queue[tail++] = n;
                    want++;
                }
            }
        }
        assert_int_equal(wl_move_reach(f.g, &i, 1, r, NULL), OK);
        int off = 0;
        for (int k = 0; k < r->n; k++) {
            if (r->end[k] == WL_PATH_OFF) {
                off = 1;
                continue;
            }
            if (depth[r->end[k]] < 1)
                fail_msg("%s reaches square %d, outside the board or too far", u[i].name,
                         r->end[k]);
        }
        if (r->n - off != want)
            fail_msg("%s reaches %d squares, want %d", u[i].name, r->n - off, want);
        /* Only the units that can reach A-39..A-45 may leave (none is marked
         * here: the open map has no exit squares). */
        assert_int_equal(off, 0);
    }
    free(r);
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roads),
        cmocka_unit_test(test_unit_checks),
        cmocka_unit_test(test_rivers),
        cmocka_unit_test(test_woods),
        cmocka_unit_test(test_zones),
        cmocka_unit_test(test_stacking_and_exit),
        cmocka_unit_test(test_reinforcements),
        cmocka_unit_test(test_entry_for),
        cmocka_unit_test(test_entry_past_hqs),
        cmocka_unit_test(test_reach_agrees),
        cmocka_unit_test(test_reach_refusals),
        cmocka_unit_test(test_fast_unit),
        cmocka_unit_test(test_board_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
