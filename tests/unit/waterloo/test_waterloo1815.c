/*
 * test_waterloo1815.c - the 1815 scenario against the rulebook and the board
 * reference: the counter mix, every fixed square, roads and rivers
 * continuous, the set-up legal, arrivals on partial edge squares, the time
 * record; then random legal games played to the end with the invariants
 * checked after every command.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "waterloo_autoplay.h"
#include "waterloo_command.h"
#include "wl_testdata.h"

#ifndef WARROOM_SCENARIO_DIR
#error "WARROOM_SCENARIO_DIR must be defined by the build"
#endif

static struct wl_scenario *sc;

static int load(void **state)
{
    struct wr_refusal why;
    (void)state;
    sc = calloc(1, sizeof *sc);
    if (wl_scenario_load_file(sc, WARROOM_SCENARIO_DIR "/waterloo-1815/scenario.json", &why)) {
        fprintf(stderr, "cannot load the 1815 scenario: %s\n", why.message);
        return -1;
    }
    return 0;
}

static int unload(void **state)
{
    (void)state;
    free(sc);
    return 0;
}

static int roads_of_kind(wl_sq s, int kind)
{
    int n = 0;
    for (int d = 0; d < WL_NDIR; d++)
        n += sc->map.cell[s].road[d] && wl_map_road_kind(&sc->map, s, d) == kind;
    return n;
}

static int has_road(wl_sq s)
{
    return wl_map_has_road(&sc->map, s);
}

/* Reference section 6: the counter mix. */
static void test_counter_mix(void **state)
{
    static const int want_types[2][5] = { { 20, 14, 6, 10, 13 }, { 32, 22, 14, 10, 14 } };
    static const int want_units[2] = { 63, 92 }, want_factors[2] = { 193, 237 };
    int types[2][5] = { { 0 } }, units[2] = { 0 }, factors[2] = { 0 }, two_player_hq = 0;
    (void)state;
    for (int i = 0; i < sc->nunits; i++) {
        const struct wl_unit_def *d = &sc->units[i];
        types[d->side][d->type]++;
        units[d->side]++;
        factors[d->side] += d->combat;
        if (d->type == WL_HQ && !d->team_hq)
            two_player_hq++;
        if (d->type == WL_INFANTRY || d->type == WL_ARTILLERY)
            assert_int_equal(d->move, 4);
        if (d->type == WL_CAVALRY || d->type == WL_HORSE_ARTILLERY)
            assert_int_equal(d->move, 6);
    }
    for (int s = 0; s < 2; s++) {
        assert_int_equal(units[s], want_units[s]);
        assert_int_equal(factors[s], want_factors[s]);
        for (int t = 0; t < 5; t++)
            if (types[s][t] != want_types[s][t])
                fail_msg("%s %s: %d units, want %d", wl_side_name(s), wl_utype_name(t),
                         types[s][t], want_types[s][t]);
    }
    /* Napoleon, Wellington and Blucher for two players. */
    assert_int_equal(two_player_hq, 3);
    int jerome = -1, wissel = -1;
    for (int i = 0; i < sc->nunits; i++) {
        if (strcmp(sc->units[i].name, "Jerome") == 0)
            jerome = i;
        if (strcmp(sc->units[i].name, "Wissel") == 0)
            wissel = i;
    }
    assert_true(jerome >= 0 && wissel >= 0);
    assert_int_equal(sc->units[jerome].combat, 6);
    assert_int_equal(sc->units[jerome].move, 4);
    assert_int_equal(sc->units[jerome].type, WL_INFANTRY);
    assert_int_equal(sc->units[wissel].combat, 2);
    assert_int_equal(sc->units[wissel].move, 4);
    assert_int_equal(sc->units[wissel].arrive_turn, 2);     /* 09:00 16 June */
}

/* Step tests for flood(): may the walk go from s through hexside d to n? */
static int on_river(wl_sq s, int d, wl_sq n, int id)
{
    (void)s;
    (void)d;
    return sc->map.cell[n].river == id;
}

static int along_road(wl_sq s, int d, wl_sq n, int id)
{
    (void)n;
    return sc->map.cell[s].road[d] == id;
}

static int any_road(wl_sq s, int d, wl_sq n, int id)
{
    (void)n;
    (void)id;
    return sc->map.cell[s].road[d] != 0;
}

/* Squares reached from first, stepping where step() allows; seen (WL_NSQ
 * bytes, zeroed by the caller) marks them. */
static int flood(wl_sq first, int (*step)(wl_sq, int, wl_sq, int), int id, uint8_t *seen)
{
    wl_sq queue[WL_NSQ];
    int head = 0, tail = 0;
    queue[tail++] = first;
    seen[first] = 1;
    while (head < tail) {
        wl_sq s = queue[head++];
        for (int d = 0; d < WL_NDIR; d++) {
            wl_sq n = wl_grid_neighbour(s, d);
            if (n != WL_SQ_NONE && !seen[n] && step(s, d, n, id)) {
                seen[n] = 1;
                queue[tail++] = n;
            }
        }
    }
    return tail;
}

/* Reference section 2: fixed squares from the rules. */
static void test_fixed_squares(void **state)
{
    static const struct { int row; const char *town, *at; } towns[] = {
        { 1, "Waterloo", "E-43" }, { 2, "Nivelles", "V-38" }, { 3, "Quatre Bras", "X-27" },
        { 4, "Fleurus", "JJ-13" },
    };
    (void)state;
    for (size_t i = 0; i < sizeof towns / sizeof towns[0]; i++) {
        int t = wl_map_find_town(&sc->map, towns[i].town);
        if (t < 0 || sc->map.towns[t].at != wlt_sq(towns[i].at))
            fail_msg("row %d: %s is not at %s", towns[i].row, towns[i].town, towns[i].at);
    }
    /* The Charleroi-Fleurus road: one connected road net, on to JJ-13. */
    static const char *const road[] = { "TT-15", "SS-15", "RR-15", "RR-14", "QQ-15", "PP-15",
                                        "OO-16", "PP-14", "PP-13", "JJ-13" };
    enum { N = sizeof road / sizeof road[0] };
    for (int i = 0; i < N; i++)
        if (!has_road(wlt_sq(road[i])))
            fail_msg("%s has no road", road[i]);
    /* Follow road hexsides from TT-15 up to 40 squares. */
    uint8_t net[WL_NSQ] = { 0 };
    flood(wlt_sq("TT-15"), any_road, 0, net);
    for (int i = 0; i < N; i++)
        if (!net[wlt_sq(road[i])])
            fail_msg("%s is not on the road net from Charleroi", road[i]);
    /* Primary roads run into LL-21, TT-16 and UU-15; Nivelles, Gosselies and
     * Charleroi are on primary roads; Genappe and Marchienne are not. */
    static const char *const primary[] = { "LL-21", "TT-16", "UU-15", "V-38", "TT-15" };
    for (size_t i = 0; i < 5; i++)
        if (roads_of_kind(wlt_sq(primary[i]), WL_ROAD_PRIMARY) == 0)
            fail_msg("%s is not on a primary road", primary[i]);
    static const char *const not_primary[] = { "Genappe", "Marchienne-au-Pont" };
    for (size_t i = 0; i < 2; i++) {
        int t = wl_map_find_town(&sc->map, not_primary[i]);
        assert_true(t >= 0);
        if (roads_of_kind(sc->map.towns[t].at, WL_ROAD_PRIMARY) != 0)
            fail_msg("%s is on a primary road", not_primary[i]);
    }
    /* Bridges: river squares a road passes through. */
    static const char *const bridges[] = { "UU-9", "UU-15", "UU-19", "D-27", "C-27" };
    for (size_t i = 0; i < 5; i++) {
        wl_sq s = wlt_sq(bridges[i]);
        if (!sc->map.cell[s].river || !has_road(s) || !sc->map.cell[s].bridge)
            fail_msg("%s is not a bridge", bridges[i]);
    }
    static const char *const not_river[] = { "Y-13", "Y-14", "Y-16", "Y-17", "X-19", "N-21",
                                             "A-32", "S-25", "S-38", "V-38", "A-56" };
    for (size_t i = 0; i < sizeof not_river / sizeof not_river[0]; i++)
        if (sc->map.cell[wlt_sq(not_river[i])].river)
            fail_msg("%s must not be a river square", not_river[i]);
    static const char *const not_woods[] = { "T-20", "I-23", "B-37", "B-39", "E-44" };
    for (size_t i = 0; i < 5; i++)
        if (sc->map.cell[wlt_sq(not_woods[i])].woods)
            fail_msg("%s must not be woods", not_woods[i]);
    /* Entries and the French exit. */
    static const struct { const char *name, *at; } entries[] = {
        { "Braine-le-Comte", "U-48" }, { "Hal", "C-57" }, { "Brussels", "0-46" },
    };
    for (size_t i = 0; i < 3; i++) {
        int e = wl_map_find_entry(&sc->map, entries[i].name);
        if (e < 0 || sc->map.entries[e].at != wlt_sq(entries[i].at))
            fail_msg("entry %s is not at %s", entries[i].name, entries[i].at);
    }
    for (int c = 1; c < WL_COLS; c++) {
        wl_sq s = wl_sq_make(1, c);
        assert_int_equal(sc->map.cell[s].exit != 0, c >= 39 && c <= 45);
    }
    /* The two roads leaving northward at. */
    assert_true(sc->map.cell[wlt_sq("A-45")].road[WL_NW] != 0);    /* into 0-46 */
    assert_true(sc->map.cell[wlt_sq("A-39")].road[WL_NE] != 0 ||
                sc->map.cell[wlt_sq("A-39")].road[WL_NW] != 0);
}

/* Every road is continuous through its hexsides, every river a connected
 * chain of river squares, every bridge a road square. */
static void test_roads_and_rivers(void **state)
{
    (void)state;
    for (int r = 1; r <= sc->map.nrivers; r++) {
        wl_sq first = WL_SQ_NONE;
        int count = 0;
        for (int s = 0; s < WL_NSQ; s++)
            if (sc->map.cell[s].river == r) {
                count++;
                if (first == WL_SQ_NONE)
                    first = (wl_sq)s;
            }
        assert_true(count >= 5);
        uint8_t seen[WL_NSQ] = { 0 };
        int reached = flood(first, on_river, r, seen);
        if (reached != count)
            fail_msg("the %s is broken: %d of its %d squares connected", sc->map.rivers[r],
                     reached, count);
    }
    /* Each road id: its squares connected through its own hexsides, and
     * every hexside recorded on both sides. */
    for (int id = 1; id <= sc->map.nroads; id++) {
        wl_sq first = WL_SQ_NONE;
        int count = 0;
        for (int s = 0; s < WL_NSQ; s++)
            for (int d = 0; d < WL_NDIR; d++)
                if (sc->map.cell[s].road[d] == id) {
                    wl_sq n = wl_grid_neighbour((wl_sq)s, d);
                    assert_true(n != WL_SQ_NONE);
                    assert_int_equal(sc->map.cell[n].road[wl_dir_opposite(d)], id);
                    if (first == WL_SQ_NONE)
                        first = (wl_sq)s;
                    count++;
                    break;
                }
        if (first == WL_SQ_NONE)
            continue;       /* fully overlaid by a primary road */
        uint8_t seen[WL_NSQ] = { 0 };
        int reached = flood(first, along_road, id, seen);
        if (reached != count)
            fail_msg("road %s is broken: %d of %d squares connected", sc->map.roads[id].name,
                     reached, count);
    }
}

/* The set-up is legal, arrivals come from partial edge squares, and the
 * time record is the campaign's 30 turns. */
static void test_setup_arrivals_time(void **state)
{
    struct wl_game *g = malloc(sizeof *g);
    struct wr_refusal why;
    (void)state;
    wl_game_init(g, sc, "setup", NULL);
    if (wl_game_check(g, &why) != 0)
        fail_msg("set-up: %s", why.message);
    struct wl_occupancy occ;
    wl_game_occupancy(g, &occ);
    for (int i = 0; i < sc->nunits; i++) {
        const struct wl_unit_def *d = &sc->units[i];
        if (d->setup != WL_SQ_NONE) {
            char a[WL_SQ_NAME_MAX];
            if (!sc->zone[d->side][d->setup])
                fail_msg("%s sets up outside its zone at %s", d->name, wl_grid_name(d->setup, a));
            if (d->type != WL_HQ && wl_game_in_zoc(g, &occ, d->setup, 1 - d->side))
                fail_msg("%s sets up in an enemy zone at %s", d->name, wl_grid_name(d->setup, a));
            /* Prussians: row EE or north, on or east of the Y-26..EE-23 line. */
            if (d->nation == WL_NATION_PRUSSIAN) {
                int r = wl_sq_row(d->setup), c = wl_sq_col(d->setup);
                assert_true(r >= 1 && r <= 31);
                /* Y-26, Z-25, AA-25, ... EE-23 southward; due north of Y-26
                 * the same zigzag: X-27, W-27, V-28, ... */
                int limit = r >= 25 ? 26 - (r - 24) / 2 : 26 + (25 - r + 1) / 2;
                if (c > limit)
                    fail_msg("Prussian %s at %s is west of the line", d->name,
                             wl_grid_name(d->setup, a));
            }
        } else {
            assert_true(d->arrive_turn >= 1 && d->arrive_turn <= sc->nturns);
            assert_true(d->entry >= 0 && d->entry < sc->map.nentries);
            assert_true(wl_grid_partial(sc->map.entries[d->entry].at));
            assert_true(has_road(sc->map.entries[d->entry].at));
        }
    }
    /* The rest of the Hanoverian Reserve Corps arrives at 07:00 18 June. */
    static const char *const hanoverians[] = { "aa-hq-decken", "aa-bennigsen", "aa-beaulieu", "aa-bodecken" };
    for (size_t k = 0; k < sizeof hanoverians / sizeof hanoverians[0]; k++) {
        int i = wl_scenario_find_unit(sc, hanoverians[k]);
        if (i < 0 || sc->units[i].arrive_turn != 13)
            fail_msg("%s does not arrive at 07:00 18 June", hanoverians[k]);
    }
    assert_int_equal(sc->nturns, 30);
    static const char *const times[] = { "07:00", "09:00", "11:00", "13:00", "15:00", "17:00" };
    for (int t = 0; t < 30; t++) {
        char date[11];
        snprintf(date, sizeof date, "1815-06-%d", 16 + t / 6);
        assert_string_equal(sc->turns[t].date, date);
        assert_string_equal(sc->turns[t].time, times[t % 6]);
    }
    assert_int_equal(sc->crt_reconstructed, 1);
    free(g);
}

/* The set-up lines (docs/rules-notes.md Z1, Z2). Each row places one unit on one square of
 * a fresh game under the rules version it names. */
static void test_setup_lines(void **state)
{
    static const struct {
        int row;
        int rules;
        const char *unit;
        const char *at;
        enum wl_reason want;
    } t[] = {
        /* "Prussian units may start the game on row EE or north of EE, and ON or east of
         * Y-26, Z-25, AA-25, BB-24, CC-24, DD-23, and EE-23" */
        { 1, 2, "pr-i-1", "V-38", WL_R_OUTSIDE_SETUP_ZONE },       /* Nivelles */
        { 2, 2, "pr-i-1", "CC-25", WL_R_OUTSIDE_SETUP_ZONE },      /* Frasnes */
        { 3, 2, "pr-i-1", "X-27", WL_R_OUTSIDE_SETUP_ZONE },       /* Quatre Bras */
        { 4, 2, "pr-i-1", "Y-27", WL_R_OUTSIDE_SETUP_ZONE },       /* just west of Y-26 */
        { 5, 2, "pr-i-1", "FF-20", WL_R_OUTSIDE_SETUP_ZONE },      /* south of row EE */
        { 6, 2, "pr-i-1", "Y-26", WL_R_OK },                       /* on the line */
        { 7, 2, "pr-i-1", "CC-24", WL_R_OK },
        { 8, 2, "pr-i-1", "EE-23", WL_R_OK },
        { 9, 2, "pr-i-1", "DD-20", WL_R_OK },                      /* east of it */
        { 10, 2, "pr-i-1", "D-30", WL_R_OK },                      /* due north of it */
        /* the Anglo-Allied zone (a reconstruction: docs/waterloo-1815.md) */
        { 11, 2, "aa-saxe-weimar", "V-38", WL_R_OK },
        { 12, 2, "aa-saxe-weimar", "CC-25", WL_R_OK },
        { 13, 2, "aa-saxe-weimar", "DD-20", WL_R_OUTSIDE_SETUP_ZONE },
        /* rules 1: one allied zone, the union of the two */
        { 14, 1, "pr-i-1", "V-38", WL_R_OK },
        { 15, 1, "pr-i-1", "CC-25", WL_R_OK },
        { 16, 1, "aa-saxe-weimar", "DD-20", WL_R_OK },
        /* "To be specific the road between Charleroi and Fleurus is defined as consisting of
         * the following hexes: TT-15, SS-15, RR-15, RR-14, QQ-15, PP-15, OO-16, PP-14, PP-13,
         * and the road to and including JJ-13." */
        { 17, 2, "fr-i-quiot", "PP-13", WL_R_OK },
        { 18, 2, "fr-i-quiot", "OO-13", WL_R_OK },
        { 19, 2, "fr-i-quiot", "OO-16", WL_R_OK },
        { 20, 2, "fr-i-quiot", "RR-19", WL_R_OK },          /* a default position (Jumet) */
        { 21, 2, "fr-i-quiot", "WW-2", WL_R_OUTSIDE_SETUP_ZONE },
        { 22, 2, "fr-i-quiot", "SS-20", WL_R_OUTSIDE_SETUP_ZONE },
        { 23, 2, "fr-i-quiot", "NN-18", WL_R_OUTSIDE_SETUP_ZONE },  /* the road to Gosselies */
        { 24, 2, "fr-i-quiot", "II-13", WL_R_OUTSIDE_SETUP_ZONE },  /* beyond JJ-13 */
        { 25, 1, "fr-i-quiot", "WW-2", WL_R_OUTSIDE_SETUP_ZONE },   /* the scenario's area */
    };
    struct wl_game *g = malloc(sizeof *g);
    assert_non_null(g);
    (void)state;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        struct wl_options opt = { .rules = t[i].rules, .commanders = 1, .undo = 1 };
        struct wr_refusal why = { WL_R_OK, "ok", "" };
        char text[128];
        json_t *events = NULL;
        wl_game_init_with(g, sc, "setup", NULL, &opt);
        int side = sc->units[wl_scenario_find_unit(sc, t[i].unit)].side;
        if (side == WL_ALLIED) {
            json_t *end = json_pack("{s:s}", "type", "end_setup");
            assert_int_equal(wl_game_apply_json(g, WL_FRENCH, end, &events, &why), WL_R_OK);
            json_decref(end);
            json_decref(events);
            events = NULL;
        }
        snprintf(text, sizeof text, "{\"type\":\"place\",\"unit\":\"%s\",\"at\":\"%s\"}",
                 t[i].unit, t[i].at);
        json_t *cmd = json_loads(text, 0, NULL);
        assert_non_null(cmd);
        enum wl_reason r = wl_game_apply_json(g, side, cmd, &events, &why);
        if (r != t[i].want)
            fail_msg("row %d (rules %d): %s on %s gave %s (%s), want %s", t[i].row, t[i].rules,
                     t[i].unit, t[i].at, wl_reason_code(r), why.message,
                     wl_reason_code(t[i].want));
        if (r == WL_R_OUTSIDE_SETUP_ZONE && t[i].unit[0] == 'p' && t[i].rules == 2 &&
            strstr(why.message, "prussian set-up zone") == NULL)
            fail_msg("row %d: '%s' does not name the prussian set-up zone", t[i].row,
                     why.message);
        json_decref(cmd);
        json_decref(events);
    }
    free(g);
}

/* "In a 2-player game use only the HQ Units labeled Wellington, Napoleon and Blucher."
 * (rulebook; docs/rules-notes.md H1). Under rules 2 with one commander a side the other
 * 24 HQs are not in the game: not in the state, never on the board, never arriving;
 * under rules 1 all 27 are. */
static void test_two_player_hqs(void **state)
{
    struct wl_game *g = malloc(sizeof *g), *back = malloc(sizeof *back);
    struct wr_refusal why;
    (void)state;
    assert_non_null(g);
    assert_non_null(back);
    for (int rules = 1; rules <= 2; rules++) {
        struct wl_options opt = { .rules = rules, .commanders = 1, .undo = 1 };
        wl_game_init_with(g, sc, "hqs", NULL, &opt);
        int hqs = 0, in_game = 0;
        json_t *st = wl_game_state_json(g);
        json_t *units = json_object_get(st, "units");
        for (int i = 0; i < sc->nunits; i++) {
            const struct wl_unit_def *d = &sc->units[i];
            int in = wl_unit_in_game(g, i);
            in_game += in;
            hqs += in && d->type == WL_HQ;
            if ((json_object_get(units, d->id) != NULL) != in)
                fail_msg("rules %d: %s is %sin the state", rules, d->id, in ? "not " : "");
            if (in && d->type == WL_HQ && rules == 2 &&
                strcmp(d->name, "Napoleon") != 0 && strcmp(d->name, "Wellington") != 0 &&
                strcmp(d->name, "Blucher") != 0)
                fail_msg("rules 2: %s is in a 2-player game", d->name);
        }
        assert_int_equal(hqs, rules == 2 ? 3 : 27);
        assert_int_equal(in_game, rules == 2 ? sc->nunits - 24 : sc->nunits);
        assert_int_equal((int)json_object_size(units), in_game);
        /* the state loads back (and, under 2, a team HQ added to it does not) */
        if (wl_game_init_from_state(back, sc, st, "hqs", &why) != 0)
            fail_msg("rules %d: the state does not load: %s", rules, why.message);
        if (rules == 2) {
            json_object_set_new(units, "fr-hq-soult", json_pack("{s:s}", "at", "TT-15"));
            assert_int_equal(wl_game_init_from_state(back, sc, st, "hqs", &why), -1);
        }
        json_decref(st);
        /* Muffling, due at Brussels on turn 1, arrives only under rules 1 */
        g->phase = WL_PH_ALLIED_MOVE;
        g->await_side = WL_ALLIED;
        g->await_what = WL_AW_MOVE;
        struct wl_cmd *c = calloc(1, sizeof *c);
        assert_non_null(c);
        c->type = WL_CMD_MOVE;
        c->units[0] = (int16_t)wl_scenario_find_unit(sc, "pr-hq-muffling");
        c->nunits = 1;
        c->path[0] = sc->map.entries[sc->units[c->units[0]].entry].at;
        c->path[1] = wlt_sq("A-45");
        c->npath = 2;
        struct wl_events *ev = calloc(1, sizeof *ev);
        assert_non_null(ev);
        enum wl_reason r = wl_game_apply(g, WL_ALLIED, c, ev, &why);
        assert_int_equal(r, rules == 2 ? WL_R_UNIT_NOT_ON_BOARD : WL_R_OK);
        free(ev);
        free(c);
    }
    free(back);
    free(g);
}

/* Random legal games to the end: every phase, combats, retreats and
 * reinforcements happen, the invariants hold after every command. */
static void test_random_games(void **state)
{
    struct wl_game *g = malloc(sizeof *g);
    struct wl_reach *reach = malloc(sizeof *reach);
    struct wl_cmd *cmd = malloc(sizeof *cmd);
    struct wl_events *ev = malloc(sizeof *ev);
    int seen_phase[WL_NPHASES] = { 0 }, seen_event[16] = { 0 }, seen_cmd[WL_NCMDS] = { 0 };
    (void)state;
    for (int seed = 1; seed <= 6; seed++) {
        uint8_t s32[32] = { (uint8_t)seed, 0x18, 0x15 };
        wl_game_init(g, sc, "random-1815", s32);
        struct wr_prng rng;
        wr_prng_seed(&rng, (uint64_t)seed * 7919);
        int n = 0;
        while (g->phase != WL_PH_OVER) {
            if (++n > 20000)
                fail_msg("seed %d: no end after 20000 commands", seed);
            seen_phase[g->phase]++;
            assert_int_equal(wl_autoplay_next(g, &rng, reach, cmd), 0);
            struct wr_refusal why;
            ev->n = 0;
            enum wl_reason r = wl_game_apply(g, g->await_side, cmd, ev, &why);
            if (r != WL_R_OK)
                fail_msg("seed %d command %d (%s) refused: %s", seed, n, wl_cmd_name(cmd->type),
                         why.message);
            seen_cmd[cmd->type]++;
            for (int e = 0; e < ev->n; e++)
                seen_event[ev->ev[e].type]++;
            if (wl_game_check(g, &why) != 0)
                fail_msg("seed %d command %d: %s", seed, n, why.message);
        }
        assert_true(g->winner == WL_FRENCH || g->winner == WL_ALLIED);
    }
    for (int p = WL_PH_SETUP_FRENCH; p <= WL_PH_ALLIED_COMBAT; p++)
        if (p != WL_PH_DEFECTION && seen_phase[p] == 0)
            fail_msg("no random game reached phase %s", wl_phase_name(p));
    assert_true(seen_event[WL_EV_ENTERED] > 0);       /* reinforcements */
    assert_true(seen_event[WL_EV_ROLL] > 0);          /* combats */
    assert_true(seen_event[WL_EV_RETREATED] > 0);     /* retreats */
    assert_true(seen_event[WL_EV_ELIMINATED] > 0);
    assert_true(seen_cmd[WL_CMD_DECLARE] > 0 && seen_cmd[WL_CMD_RESOLVE] > 0);
    free(ev);
    free(cmd);
    free(reach);
    free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counter_mix),
        cmocka_unit_test(test_fixed_squares),
        cmocka_unit_test(test_roads_and_rivers),
        cmocka_unit_test(test_setup_arrivals_time),
        cmocka_unit_test(test_two_player_hqs),
        cmocka_unit_test(test_setup_lines),
        cmocka_unit_test(test_random_games),
    };
    return cmocka_run_group_tests(tests, load, unload);
}
