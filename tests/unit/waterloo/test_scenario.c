/*
 * test_scenario.c - the scenario loader (waterloo_scenario.c) against
 * docs/scenario-format.md: the test scenarios load with the expected
 * contents; every scenario file under scenarios/ loads; and a numbered table
 * of broken scenarios, each a small edit of one valid scenario, must fail
 * with the message the table gives. The scenario texts are written with
 * single quotes for legibility and turned into JSON before loading.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "waterloo_scenario.h"
#include "wl_testdata.h"

#ifndef WARROOM_SCENARIO_DIR
#error "WARROOM_SCENARIO_DIR must name the scenarios/ directory"
#endif

#define CRT_ROWS_TEXT                                                                    \
    "['AE','AE','AE','AE','AB2','AB2','DE','DE','DE','DE','DE'],"                        \
    "['AE','AE','AE','AE','AB2','DB2','DB2','DE','DE','DE','DE'],"                       \
    "['AE','AE','AE','AB2','AB2','AB2','DB2','DB2','DE','DE','DE'],"                     \
    "['AE','AE','AE','AB2','AB2','DB2','AB2','DB2','DB2','DE','DE'],"                    \
    "['AE','AE','AB2','AB2','AE','AE','EX','EX','EX','DB2','DE'],"                       \
    "['AE','AB2','AB2','AE','AE','EX','EX','EX','DB2','EX','DE']"

/* A valid scenario; the table below breaks it one small edit at a time. */
static const char valid[] =
    "{'warroom':'scenario','version':1,'name':'T','ruleset':'waterloo',"
    "'map':{'woods':['B-40..B-42'],"
    "'slopes':[{'at':'J-40','high':['NE','NW']}],"
    "'rivers':[{'name':'Senne','squares':['D-55','C-55']},"
    "{'name':'Lasne','squares':['H-34','L-34']}],"
    "'roads':[{'name':'Brussels','kind':'primary',"
    "'path':['E-43','D-43','C-43','B-44','A-45','0-46']},"
    "{'name':'Hal','kind':'secondary','path':['C-57..C-47','D-46','E-45','E-44','E-43']}],"
    "'towns':[{'name':'Waterloo','at':'E-43'},{'name':'Hal town','at':'C-56'}],"
    "'entries':[{'name':'Brussels','at':'0-46'},{'name':'Hal','at':'C-57'}],"
    "'exits':['A-39..A-45'],'not_river':['A-56'],'not_woods':['E-44']},"
    "'crt':{'reconstruction':true,"
    "'columns':['1-6','1-5','1-4','1-3','1-2','1-1','2-1','3-1','4-1','5-1','6-1'],"
    "'rows':[" CRT_ROWS_TEXT "]},"
    "'time_record':{'days':['1815-06-18'],'times':['07:00','09:00','11:00']},"
    "'setup_zones':{'french':['K-37..K-43'],'allied':['E-40..E-46','F-39..F-45']},"
    "'units':["
    "{'id':'fr-nap','name':'Napoleon','side':'french','nation':'french','type':'hq',"
    "'size':'XXXX','combat':0,'move':6,'at':'K-38'},"
    "{'id':'fr-foy','name':'Foy','side':'french','nation':'french','type':'infantry',"
    "'size':'XX','combat':5,'move':4,'at':'K-40'},"
    "{'id':'fr-jerome','name':'Jerome','side':'french','nation':'french',"
    "'type':'infantry','combat':6,'move':4,'at':'K-41'},"
    "{'id':'aa-well','name':'Wellington','side':'allied','nation':'anglo-allied',"
    "'type':'hq','combat':0,'move':6,'at':'F-42'},"
    "{'id':'aa-picton','name':'Picton','side':'allied','nation':'anglo-allied',"
    "'type':'infantry','combat':6,'move':4,'at':'E-42'},"
    "{'id':'aa-wissel','name':'Wissel','side':'allied','nation':'anglo-allied',"
    "'type':'infantry','combat':2,'move':4,'arrive':{'turn':2,'entry':'Hal'}},"
    "{'id':'pr-ziethen','name':'Ziethen','side':'allied','nation':'prussian',"
    "'type':'infantry','combat':6,'move':4,'at':'F-40'}],"
    "'start':{'turn':1,'phase':'setup_french'}}";

/* text with every ' turned into " (malloc'd). */
static char *quotes(const char *text)
{
    char *s = strdup(text);
    assert_non_null(s);
    for (char *p = s; *p; p++)
        if (*p == '\'')
            *p = '"';
    return s;
}

/* Parse single-quoted scenario text; fails the test on bad JSON. */
static json_t *parse_text(const char *text, int row)
{
    char *s = quotes(text);
    json_error_t e;
    json_t *j = json_loads(s, JSON_REJECT_DUPLICATES, &e);
    if (j == NULL)
        fail_msg("row %d: test JSON does not parse: %s (line %d col %d)", row, e.text, e.line,
                 e.column);
    free(s);
    return j;
}

static struct wl_scenario *new_scenario(void)
{
    struct wl_scenario *sc = malloc(sizeof *sc);
    assert_non_null(sc);
    return sc;
}

/* Load json with resolve; expect success (want == NULL) or a failure whose
 * message contains want. */
static void expect_load(int row, const json_t *json, wl_scenario_resolver resolve, void *ctx,
                        const char *want)
{
    struct wl_scenario *sc = new_scenario();
    struct wr_refusal why = { WL_R_OK, "ok", "" };
    int rc = wl_scenario_load(sc, json, resolve, ctx, &why);
    free(sc);
    if (want == NULL) {
        if (rc != 0)
            fail_msg("row %d: want success, got: %s", row, why.message);
        return;
    }
    if (rc != -1)
        fail_msg("row %d: loaded, want an error containing \"%s\"", row, want);
    if (why.reason != WL_R_BAD_SCENARIO)
        fail_msg("row %d: reason %s, want bad_scenario", row, wl_reason_code(why.reason));
    if (strstr(why.message, want) == NULL)
        fail_msg("row %d: error \"%s\"\n      does not contain \"%s\"", row, why.message, want);
    /* Every message can be sent in a JSON string (valid UTF-8). */
    json_t *s = json_string(why.message);
    if (s == NULL)
        fail_msg("row %d: error \"%s\" is not valid UTF-8", row, why.message);
    json_decref(s);
}

/* ------------------------------------------------------------------------
 * The test scenarios
 */

static struct wl_scenario *load_path(const char *rel)
{
    char path[1024];
    struct wr_refusal why = { WL_R_OK, "ok", "" };
    struct wl_scenario *sc = new_scenario();
    snprintf(path, sizeof path, "%s/%s", WARROOM_SCENARIO_DIR, rel);
    if (wl_scenario_load_file(sc, path, &why) != 0)
        fail_msg("%s: %s", path, why.message);
    return sc;
}

/* The road id through the hexside between a and b, checked from both sides. */
static int road_between(const struct wl_map *m, const char *a, const char *b)
{
    int d = wl_grid_dir_to(wlt_sq(a), wlt_sq(b));
    if (d < 0)
        fail_msg("test data: %s and %s are not adjacent", a, b);
    int here = m->cell[wlt_sq(a)].road[d], there = m->cell[wlt_sq(b)].road[wl_dir_opposite(d)];
    if (here != there)
        fail_msg("road between %s and %s is %d one way and %d the other", a, b, here, there);
    return here;
}

static int count_cells(const struct wl_map *m, size_t offset)
{
    int n = 0;
    for (int s = 0; s < WL_NSQ; s++)
        n += ((const uint8_t *)&m->cell[s])[offset] != 0;
    return n;
}

static void check_roads(const struct wl_map *m)
{
    static const char *const primary[] = { "K-38", "J-39", "I-40", "H-40", "G-41", "F-42",
                                           "E-43", "D-43", "C-43", "B-44", "A-45", "0-46" };
    static const char *const hal[] = { "C-57", "C-56", "C-55", "C-54", "C-53", "C-52",
                                       "C-51", "C-50", "C-49", "C-48", "C-47", "D-46",
                                       "E-45", "E-44", "E-43" };
    assert_int_equal(m->nroads, 3);
    assert_string_equal(m->roads[1].name, "Charleroi-Brussels");
    assert_int_equal(m->roads[1].kind, WL_ROAD_PRIMARY);
    assert_string_equal(m->roads[2].name, "Hal-Waterloo");
    assert_int_equal(m->roads[2].kind, WL_ROAD_SECONDARY);
    for (size_t i = 0; i + 1 < sizeof primary / sizeof primary[0]; i++)
        if (road_between(m, primary[i], primary[i + 1]) != 1)
            fail_msg("no primary road %s-%s", primary[i], primary[i + 1]);
    for (size_t i = 0; i + 1 < sizeof hal / sizeof hal[0]; i++)
        if (road_between(m, hal[i], hal[i + 1]) != 2)
            fail_msg("no secondary road %s-%s (the range C-57..C-47 in a path)", hal[i],
                     hal[i + 1]);
    assert_int_equal(wl_map_road_kind(m, wlt_sq("E-43"), WL_NE), WL_ROAD_PRIMARY);
    assert_int_equal(wl_map_road_kind(m, wlt_sq("E-43"), WL_W), WL_ROAD_SECONDARY);
    assert_int_equal(road_between(m, "I-40", "I-41"), 3);
    /* No road where none was drawn. */
    assert_int_equal(road_between(m, "E-43", "E-42"), 0);
    assert_int_equal(road_between(m, "C-47", "C-46"), 0);
    assert_false(wl_map_has_road(m, wlt_sq("X-27")));
}

static void test_small(void **state)
{
    (void)state;
    struct wl_scenario *sc = load_path("test/small.json");
    const struct wl_map *m = &sc->map;
    char a[WL_SQ_NAME_MAX];

    assert_string_equal(sc->name, "Test: Mont-St-Jean, small");
    check_roads(m);

    /* River, bridge (derived where the Hal road crosses the Senne). */
    assert_int_equal(m->nrivers, 1);
    assert_string_equal(m->rivers[1], "Senne");
    assert_true(wl_map_is_river(m, wlt_sq("C-55")));
    assert_true(wl_map_is_river(m, wlt_sq("G-54")));
    assert_false(wl_map_is_river(m, wlt_sq("C-56")));
    assert_int_equal(m->cell[wlt_sq("C-55")].bridge, 1);
    assert_int_equal(m->cell[wlt_sq("D-55")].bridge, 0);
    assert_int_equal(count_cells(m, offsetof(struct wl_cell, bridge)), 1);
    assert_int_equal(count_cells(m, offsetof(struct wl_cell, river)), 5);

    /* Woods from ranges: B-40..B-42, C-38..C-41, D-39..D-41. */
    assert_int_equal(count_cells(m, offsetof(struct wl_cell, woods)), 10);
    assert_int_equal(m->cell[wlt_sq("C-38")].woods, 1);
    assert_int_equal(m->cell[wlt_sq("B-42")].woods, 1);
    assert_int_equal(m->cell[wlt_sq("B-39")].woods, 0);

    /* Slopes and derived hill tops: J-40 and J-41 face NE and NW. */
    assert_int_equal(m->cell[wlt_sq("J-40")].slope_high, (1 << WL_NE) | (1 << WL_NW));
    assert_int_equal(count_cells(m, offsetof(struct wl_cell, slope_high)), 2);
    static const char *const tops[] = { "I-40", "I-41", "I-42" };
    for (int i = 0; i < 3; i++)
        if (!m->cell[wlt_sq(tops[i])].hilltop)
            fail_msg("%s is not a hill top", tops[i]);
    assert_int_equal(count_cells(m, offsetof(struct wl_cell, hilltop)), 3);
    assert_int_equal(m->cell[wlt_sq("J-40")].hilltop, 0);

    /* Towns, entries (clockwise: Brussels north, Hal west), exits. */
    assert_int_equal(m->ntowns, 3);
    assert_int_equal(wl_map_find_town(m, "Waterloo"), 0);
    assert_int_equal(m->towns[0].at, wlt_sq("E-43"));
    assert_int_equal(m->cell[wlt_sq("I-40")].town, 1);
    assert_int_equal(m->cell[wlt_sq("J-42")].town, 2);
    assert_int_equal(m->nentries, 2);
    assert_string_equal(m->entries[0].name, "Brussels");
    assert_int_equal(m->entries[0].at, wlt_sq("0-46"));
    assert_int_equal(m->entries[1].at, wlt_sq("C-57"));
    assert_int_equal(m->cell[wlt_sq("C-57")].entry, 1);
    assert_int_equal(m->cell[wlt_sq("0-46")].entry, 0);
    assert_int_equal(count_cells(m, offsetof(struct wl_cell, exit)), 7);
    for (int c = 39; c <= 45; c++)
        if (!m->cell[wl_sq_make(1, c)].exit)
            fail_msg("%s is not an exit", wl_grid_name(wl_sq_make(1, c), a));

    /* CRT: the reconstruction, with the rulebook's constraints. */
    static const char *const crt[WL_CRT_ROWS][WL_CRT_COLS] = {
        { "AE", "AE", "AE", "AE", "AB2", "AB2", "DE", "DE", "DE", "DE", "DE" },
        { "AE", "AE", "AE", "AE", "AB2", "DB2", "DB2", "DE", "DE", "DE", "DE" },
        { "AE", "AE", "AE", "AB2", "AB2", "AB2", "DB2", "DB2", "DE", "DE", "DE" },
        { "AE", "AE", "AE", "AB2", "AB2", "DB2", "AB2", "DB2", "DB2", "DE", "DE" },
        { "AE", "AE", "AB2", "AB2", "AE", "AE", "EX", "EX", "EX", "DB2", "DE" },
        { "AE", "AB2", "AB2", "AE", "AE", "EX", "EX", "EX", "DB2", "EX", "DE" },
    };
    assert_int_equal(sc->crt_reconstructed, 1);
    for (int r = 0; r < WL_CRT_ROWS; r++)
        for (int c = 0; c < WL_CRT_COLS; c++)
            if (strcmp(wl_result_code(sc->crt[r][c]), crt[r][c]) != 0)
                fail_msg("crt die %d column %s: %s, want %s", r + 1, wl_crt_label(c),
                         wl_result_code(sc->crt[r][c]), crt[r][c]);
    assert_int_equal(sc->crt[0][wl_crt_column("2-1")], WL_DE);
    int ex31 = 0, ex41 = 0;
    for (int r = 0; r < WL_CRT_ROWS; r++) {
        ex31 += sc->crt[r][wl_crt_column("3-1")] == WL_EX;
        ex41 += sc->crt[r][wl_crt_column("4-1")] == WL_EX;
    }
    assert_int_equal(ex31, 2);
    assert_int_equal(ex41, 1);

    /* Time record: compact form, expanded day-major. */
    assert_int_equal(sc->nturns, 6);
    assert_string_equal(sc->turns[0].date, "1815-06-18");
    assert_string_equal(sc->turns[0].time, "07:00");
    assert_string_equal(sc->turns[5].time, "17:00");

    /* Zones. */
    assert_int_equal(sc->zone[WL_FRENCH][wlt_sq("K-40")], 1);
    assert_int_equal(sc->zone[WL_FRENCH][wlt_sq("L-43")], 1);
    assert_int_equal(sc->zone[WL_FRENCH][wlt_sq("L-44")], 0);
    assert_int_equal(sc->zone[WL_FRENCH][wlt_sq("H-40")], 0);
    assert_int_equal(sc->zone[WL_ALLIED][wlt_sq("H-40")], 1);

    /* Units. */
    assert_int_equal(sc->nunits, 14);
    int i = wl_scenario_find_unit(sc, "fr-jerome");
    assert_int_equal(i, 2);
    assert_string_equal(sc->units[i].name, "Jerome");
    assert_string_equal(sc->units[i].size, "XX");
    assert_int_equal(sc->units[i].side, WL_FRENCH);
    assert_int_equal(sc->units[i].nation, WL_NATION_FRENCH);
    assert_int_equal(sc->units[i].type, WL_INFANTRY);
    assert_int_equal(sc->units[i].combat, 6);
    assert_int_equal(sc->units[i].move, 4);
    assert_int_equal(sc->units[i].setup, wlt_sq("K-40"));
    assert_int_equal(sc->units[i].arrive_turn, 0);
    assert_int_equal(sc->units[i].entry, -1);
    i = wl_scenario_find_unit(sc, "fr-reille");
    assert_int_equal(sc->units[i].type, WL_HQ);
    assert_int_equal(sc->units[i].team_hq, 1);
    assert_int_equal(sc->units[wl_scenario_find_unit(sc, "fr-napoleon")].team_hq, 0);
    i = wl_scenario_find_unit(sc, "aa-ross");
    assert_int_equal(sc->units[i].type, WL_HORSE_ARTILLERY);
    assert_int_equal(sc->units[i].nation, WL_NATION_ANGLO_ALLIED);
    i = wl_scenario_find_unit(sc, "aa-wissel");
    assert_int_equal(sc->units[i].side, WL_ALLIED);
    assert_int_equal(sc->units[i].setup, WL_SQ_NONE);
    assert_int_equal(sc->units[i].arrive_turn, 2);
    assert_int_equal(sc->units[i].entry, 1);
    i = wl_scenario_find_unit(sc, "pr-15");
    assert_int_equal(sc->units[i].nation, WL_NATION_PRUSSIAN);
    assert_int_equal(sc->units[i].arrive_turn, 4);
    assert_int_equal(sc->units[i].entry, 0);
    assert_int_equal(wl_scenario_find_unit(sc, "fr-nobody"), -1);

    assert_int_equal(sc->start_turn, 1);
    assert_int_equal(sc->start_phase, WL_PH_SETUP_FRENCH);
    free(sc);
}

static void test_override(void **state)
{
    (void)state;
    struct wl_scenario *base = load_path("test/small.json");
    struct wl_scenario *sc = load_path("test/override.json");

    assert_string_equal(sc->name, "Test: Mont-St-Jean, afternoon");
    /* Keys not given come from the base. */
    assert_memory_equal(&sc->map, &base->map, sizeof sc->map);
    assert_memory_equal(sc->crt, base->crt, sizeof sc->crt);
    assert_memory_equal(sc->zone, base->zone, sizeof sc->zone);
    assert_int_equal(sc->nturns, 6);

    /* units: remove fr-pire, patch fr-foy and aa-wissel, add pr-ryssel. */
    assert_int_equal(sc->nunits, base->nunits);
    assert_int_equal(wl_scenario_find_unit(sc, "fr-pire"), -1);
    int i = wl_scenario_find_unit(sc, "fr-foy");
    assert_string_equal(sc->units[i].name, "Foy");
    assert_int_equal(sc->units[i].combat, 4);
    assert_int_equal(sc->units[i].move, 4);
    assert_int_equal(sc->units[i].setup, wlt_sq("K-41"));
    i = wl_scenario_find_unit(sc, "aa-wissel");
    assert_int_equal(sc->units[i].setup, wlt_sq("G-39"));
    assert_int_equal(sc->units[i].arrive_turn, 0);
    assert_int_equal(sc->units[i].entry, -1);
    i = wl_scenario_find_unit(sc, "pr-ryssel");
    assert_int_equal(i, sc->nunits - 1);
    assert_int_equal(sc->units[i].arrive_turn, 5);
    assert_int_equal(sc->units[i].entry, 0);
    /* Unpatched units are as in the base, in the same order. */
    assert_int_equal(wl_scenario_find_unit(sc, "fr-napoleon"), 0);
    i = wl_scenario_find_unit(sc, "pr-15");
    assert_memory_equal(&sc->units[i], &base->units[wl_scenario_find_unit(base, "pr-15")],
                        sizeof sc->units[i]);

    assert_int_equal(sc->start_turn, 3);
    assert_int_equal(sc->start_phase, WL_PH_FRENCH_MOVE);
    free(base);
    free(sc);
}

/* Freeciv's rulesets_not_broken: every scenario file under scenarios/
 * loads. Files whose "warroom" is not "scenario" are not scenarios; campaign
 * maps ("ruleset": "campaign") have their own loader and test
 * (test_campaign). */
static int load_tree(const char *dir, int *n)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[2048];
    if (d == NULL)
        fail_msg("cannot open %s", dir);
    while ((e = readdir(d)) != NULL) {
        struct stat st;
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            load_tree(path, n);
            continue;
        }
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        json_t *j = json_load_file(path, 0, NULL);
        json_t *w = json_object_get(j, "warroom");
        const char *rs = json_string_value(json_object_get(j, "ruleset"));
        int is_scenario = json_is_string(w) && strcmp(json_string_value(w), "scenario") == 0 &&
                          !(rs && strcmp(rs, "campaign") == 0);
        json_decref(j);
        if (!is_scenario)
            continue;
        struct wl_scenario *sc = new_scenario();
        struct wr_refusal why = { WL_R_OK, "ok", "" };
        if (wl_scenario_load_file(sc, path, &why) != 0)
            fail_msg("%s: %s", path, why.message);
        free(sc);
        (*n)++;
    }
    closedir(d);
    return 0;
}

static void test_every_scenario_file(void **state)
{
    (void)state;
    int n = 0;
    load_tree(WARROOM_SCENARIO_DIR, &n);
    assert_true(n >= 2);
}

/* ------------------------------------------------------------------------
 * Broken scenarios: one row per validation rule
 */

struct edit_row {
    int row;
    const char *old1, *new1;    /* replace the one occurrence of old1 by new1 */
    const char *old2, *new2;    /* and optionally a second edit */
    const char *want;           /* substring of the error; NULL: must load */
};

static char *replace_once(const char *text, const char *old, const char *new, int row)
{
    const char *at = strstr(text, old);
    if (at == NULL)
        fail_msg("row %d: test data: \"%s\" is not in the valid scenario", row, old);
    if (strstr(at + 1, old) != NULL)
        fail_msg("row %d: test data: \"%s\" occurs more than once", row, old);
    size_t n = strlen(text) - strlen(old) + strlen(new) + 1;
    char *out = malloc(n);
    assert_non_null(out);
    snprintf(out, n, "%.*s%s%s", (int)(at - text), text, new, at + strlen(old));
    return out;
}

static void test_broken(void **state)
{
    static const struct edit_row t[] = {
        /* shape and header */
        { 1, "'ruleset':'waterloo'", "'ruleset':'waterloo','descripton':'x'", NULL, NULL,
          "scenario: unknown key 'descripton'" },
        { 2, "'version':1", "'version':2", NULL, NULL, "version 2 is not supported" },
        { 3, "'warroom':'scenario'", "'warroom':'game'", NULL, NULL, "not a scenario file" },
        { 4, "'ruleset':'waterloo'", "'ruleset':'chess'", NULL, NULL,
          "scenario: ruleset 'chess' is not waterloo" },
        { 5, "'name':'T'", "'name':7", NULL, NULL, "scenario: name must be a string" },
        { 6, "'name':'T'", "'name':''", NULL, NULL, "scenario: name is empty" },
        { 7, "'name':'T'",
          "'name':'A name much longer than forty-seven characters, surely'", NULL, NULL,
          "is longer than 47 characters" },
        { 8, "'version':1", "'version':1,'description':['x']", NULL, NULL,
          "description must be a string" },
        { 9, "'version':1", "'version':1,'base':'small'", NULL, NULL,
          "base 'small': no way to find base scenarios here" },
        { 10, "'crt':{", "'krt':{}, 'crt':{", NULL, NULL, "unknown key 'krt'" },
        /* map */
        { 11, "'woods':", "'wood':", NULL, NULL, "map: unknown key 'wood'" },
        { 12, "'C-43','B-44'", "'C-43','B-46'", NULL, NULL,
          "roads[0] (Brussels): C-43 and B-46 are not adjacent" },
        { 13, "'path':['E-43','D-43','C-43','B-44','A-45','0-46']", "'path':['E-43']", NULL,
          NULL, "roads[0] (Brussels): a road needs at least two squares" },
        { 14, "'kind':'primary'", "'kind':'main'", NULL, NULL,
          "roads[0] (Brussels): kind 'main' is not primary or secondary" },
        { 15, "'kind':'primary'", "'kind':'primary','width':2", NULL, NULL,
          "roads[0] (Brussels): unknown key 'width'" },
        { 16, "'C-57..C-47'", "'C-57..C-4'", NULL, NULL,
          "roads[1] (Hal): 'C-57..C-4' includes C-23, which is not on the board" },
        { 17, "'squares':['H-34','L-34']", "'squares':['H-34','D-55']", NULL, NULL,
          "rivers[1] (Lasne): D-55 is already on rivers[0] (Senne)" },
        { 18, "'squares':['H-34','L-34']", "'squares':[]", NULL, NULL,
          "rivers[1] (Lasne): no squares" },
        { 19, "'B-40..B-42'", "'B-40..C-42'", NULL, NULL,
          "woods[0]: 'B-40..C-42': a range stays on one row" },
        { 20, "'B-40..B-42'", "'B-40..'", NULL, NULL,
          "woods[0]: 'B-40..' is not a range of squares" },
        { 21, "'B-40..B-42'", "'B-4O'", NULL, NULL, "woods[0]: unknown square 'B-4O'" },
        { 22, "'B-40..B-42'", "'B-20'", NULL, NULL, "woods[0]: 'B-20' is not on the board" },
        { 23, "'B-40..B-42'", "40", NULL, NULL, "woods[0]: a square must be a string" },
        { 24, "'high':['NE','NW']", "'high':['N']", NULL, NULL,
          "slopes[0] (J-40): high[0] is not a direction (NE, E, SE, SW, W, NW)" },
        { 25, "'high':['NE','NW']", "'high':[]", NULL, NULL,
          "slopes[0] (J-40): high names no direction" },
        { 26, "'slopes':[", "'slopes':[{'at':'J-40','high':['E']},", NULL, NULL,
          "slopes[1] (J-40): J-40 is already a slope (slopes[0])" },
        { 27, "'at':'C-56'", "'at':'B-20'", NULL, NULL,
          "towns[1] (Hal town): at 'B-20' is not on the board" },
        { 28, "'at':'C-56'", "'at':'E-43'", NULL, NULL,
          "towns[1] (Hal town): E-43 already holds towns[0] (Waterloo)" },
        { 29, "'name':'Hal town'", "'name':'Waterloo'", NULL, NULL,
          "towns[1] (Waterloo): towns[0] has the same name" },
        { 30, "'at':'C-57'", "'at':'C-56'", NULL, NULL,
          "entries[1] (Hal): C-56 is not a partial edge square" },
        { 31, "'at':'C-57'", "'at':'E-56'", NULL, NULL,
          "entries[1] (Hal): no road runs into E-56" },
        { 32, "'at':'C-57'", "'at':'0-46'", NULL, NULL,
          "entries[1] (Hal): 0-46 is already entries[0] (Brussels)" },
        { 33, "'roads':[", "'roads':[{'name':'Nivelles','kind':'secondary','path':['U-48','U-47']},",
          "{'name':'Hal','at':'C-57'}", "{'name':'Hal','at':'C-57'},{'name':'Braine','at':'U-48'}",
          "entries[2] (Braine): not clockwise after entries[1] (Hal)" },
        { 34, "'roads':[", "'roads':[{'name':'Nivelles','kind':'secondary','path':['U-48','U-47']},",
          "{'name':'Hal','at':'C-57'}", "{'name':'Braine','at':'U-48'},{'name':'Hal','at':'C-57'}",
          NULL },
        { 35, "'exits':['A-39..A-45']", "'exits':['A-20..A-45']", NULL, NULL,
          "exits[0]: 'A-20..A-45' includes A-20, which is not a playable square" },
        { 36, "'exits':['A-39..A-45']", "'exits':['0-46']", NULL, NULL,
          "exits[0]: '0-46' is not a playable square" },
        { 37, "'not_river':['A-56']", "'not_river':['A-56','C-55']", NULL, NULL,
          "not_river[1]: C-55 is on rivers[0] (Senne)" },
        { 38, "'not_woods':['E-44']", "'not_woods':['A-40..B-41']", NULL, NULL,
          "a range stays on one row" },
        { 39, "'not_woods':['E-44']", "'not_woods':['B-38..B-41']", NULL, NULL,
          "not_woods[0]: B-40 is a woods square" },
        { 40, "'map':{", "'map':[{", "'not_woods':['E-44']},", "'not_woods':['E-44']}],",
          "map must be an object" },
        /* crt */
        { 41, "['AE','AE','AE','AB2','AB2','DB2','AB2',", "['AE','AE','AB2','AB2','DB2','AB2',",
          NULL, NULL, "crt.rows[3]: 10 entries, want 11" },
        { 42, "'rows':[", "'rows':[['AE','AE','AE','AE','AE','AE','AE','AE','AE','AE','AE'],",
          NULL, NULL, "crt.rows: 7 rows, want 6" },
        { 43, "'DB2','EX','DE'", "'DB2','XX','DE'", NULL, NULL,
          "crt.rows[5][9]: not a result (AE, DE, AB2, DB2, EX)" },
        { 44, "'1-3','1-2'", "'1-2','1-3'", NULL, NULL, "crt.columns[3]: '1-2', want '1-3'" },
        { 45, "'5-1','6-1'", "'5-1'", NULL, NULL,
          "crt.columns: 10 labels, want the 11 from 1-6 to 6-1" },
        { 46, "'reconstruction':true", "'reconstruction':'yes'", NULL, NULL,
          "crt: reconstruction must be true or false" },
        { 47, "'reconstruction':true,", "", NULL, NULL, "crt: missing key 'reconstruction'" },
        /* time record */
        { 48, "'times':['07:00','09:00','11:00']", "'times':[]", NULL, NULL,
          "time_record: 0 turns" },
        { 49, "'times':['07:00','09:00','11:00']", "'times':['07:00','11:00','09:00']", NULL,
          NULL, "time_record: turn 3 (1815-06-18 09:00) is not after turn 2" },
        { 50, "'09:00'", "'25:00'", NULL, NULL,
          "time_record.times[1]: '25:00' is not a time (want HH:MM)" },
        { 51, "'days':['1815-06-18']", "'days':['18 June']", NULL, NULL,
          "time_record.days[0]: '18 June' is not a date (want YYYY-MM-DD)" },
        { 52, "'time_record':{'days':['1815-06-18'],'times':['07:00','09:00','11:00']}",
          "'time_record':[{'date':'1815-06-18','time':'07:00'},{'date':'1815-06-18','hour':'09:00'}]",
          NULL, NULL, "time_record[1]: unknown key 'hour'" },
        { 53, "'time_record':{'days':['1815-06-18'],'times':['07:00','09:00','11:00']}",
          "'time_record':[{'date':'1815-06-18','time':'07:00'},{'date':'1815-06-18','time':'09:00'},{'date':'1815-06-18','time':'11:00'}]",
          NULL, NULL, NULL },
        { 54, "'time_record':{'days':['1815-06-18'],'times':['07:00','09:00','11:00']}",
          "'time_record':'30 turns'", NULL, NULL, "time_record must be a list" },
        /* set-up zones */
        { 55, "'french':['K-37..K-43']", "'french':['K-1..K-43']", NULL, NULL,
          "setup_zones.french[0]: 'K-1..K-43' includes K-1, which is not a playable square" },
        { 56, "'french':['K-37..K-43']", "'french':['K-37..K-43'],'belgian':[]", NULL, NULL,
          "setup_zones: unknown key 'belgian'" },
        { 57, "'setup_zones':{'french':['K-37..K-43'],'allied':['E-40..E-46','F-39..F-45']},",
          "", NULL, NULL, NULL },
        /* units */
        { 58, "'at':'K-41'", "'at':'ZZ-3'", NULL, NULL,
          "units[2] (fr-jerome): unknown square 'ZZ-3'" },
        { 59, "'at':'F-40'", "'at':'U-48'", NULL, NULL,
          "units[6] (pr-ziethen): at 'U-48' is not a playable square" },
        { 60, "'combat':5,'move':4,'at':'K-40'", "'combat':12,'move':4,'at':'K-41'", NULL, NULL,
          "set-up: 18 combat factors on K-41 (over the 15 limit)" },
        { 61, "'allied':['E-40..E-46'", "'allied':['K-40','E-40..E-46'", "'at':'E-42'",
          "'at':'K-40'", "set-up: K-40 holds both french and allied units" },
        { 62, "'id':'fr-jerome'", "'id':'fr-foy'", NULL, NULL, "units[2]: duplicate id 'fr-foy'" },
        { 63, "'entry':'Hal'", "'entry':'Mons'", NULL, NULL,
          "units[5] (aa-wissel): arrive.entry 'Mons' is not an entry" },
        { 64, "'turn':2,'entry'", "'turn':4,'entry'", NULL, NULL,
          "units[5] (aa-wissel): arrive.turn 4 is after the last turn of the time record (3)" },
        { 65, "'turn':2,'entry'", "'turn':0,'entry'", NULL, NULL,
          "units[5] (aa-wissel): arrive: turn 0 is out of range" },
        { 66, "'entry':'Hal'}", "'entry':'Hal','when':1}", NULL, NULL,
          "units[5] (aa-wissel): arrive: unknown key 'when'" },
        { 67, "'at':'E-42'", "'at':'H-42'", NULL, NULL,
          "units[4] (aa-picton): H-42 is outside the allied set-up zone" },
        { 68, "'size':'XX'", "'sise':'XX'", NULL, NULL, "units[1] (fr-foy): unknown key 'sise'" },
        { 69, "'move':6,'at':'K-38'", "'move':'6','at':'K-38'", NULL, NULL,
          "units[0] (fr-nap): move must be a whole number" },
        { 70, "'move':6,'at':'K-38'", "'move':6.0,'at':'K-38'", NULL, NULL,
          "units[0] (fr-nap): move must be a whole number" },
        { 71, "'combat':6,'move':4,'at':'K-41'", "'combat':-1,'move':4,'at':'K-41'", NULL, NULL,
          "units[2] (fr-jerome): combat -1 is out of range 0..15" },
        { 72, "'combat':6,'move':4,'at':'K-41'", "'combat':99999999999,'move':4,'at':'K-41'",
          NULL, NULL, "units[2] (fr-jerome): combat 99999999999 is out of range 0..15" },
        { 73, "'combat':6,'move':4,'at':'K-41'", "'combat':6,'move':0,'at':'K-41'", NULL, NULL,
          "units[2] (fr-jerome): move 0 is out of range 1..12" },
        { 74, "'combat':6,'move':4,'at':'K-41'", "'combat':6,'move':13,'at':'K-41'", NULL, NULL,
          "units[2] (fr-jerome): move 13 is out of range 1..12" },
        { 75, "'size':'XXXX','combat':0", "'size':'XXXX','combat':2", NULL, NULL,
          "units[0] (fr-nap): HQ units have no combat factor (combat must be 0)" },
        { 76, "'combat':6,'move':4,'at':'K-41'", "'combat':0,'move':4,'at':'K-41'", NULL, NULL,
          "units[2] (fr-jerome): combat 0 is only for HQ units" },
        { 77, "'nation':'prussian'", "'nation':'french'", NULL, NULL,
          "units[6] (pr-ziethen): a french unit is not on the allied side" },
        { 78, "'nation':'prussian'", "'nation':'russian'", NULL, NULL,
          "units[6] (pr-ziethen): nation 'russian' is not" },
        { 79, "'type':'infantry','combat':6,'move':4,'at':'K-41'",
          "'type':'dragoons','combat':6,'move':4,'at':'K-41'", NULL, NULL,
          "units[2] (fr-jerome): type 'dragoons' is not infantry" },
        { 80, "'side':'allied','nation':'prussian'", "'side':'neutral','nation':'prussian'", NULL,
          NULL, "units[6] (pr-ziethen): side 'neutral' is not french or allied" },
        { 81, "'arrive':{'turn':2", "'at':'E-41','arrive':{'turn':2", NULL, NULL,
          "units[5] (aa-wissel): give either at (set up) or arrive (reinforcement)" },
        { 82, "'combat':6,'move':4,'at':'K-41'", "'combat':6,'move':4", NULL, NULL,
          "units[2] (fr-jerome): give either at" },
        { 83, "'at':'K-41'", "'arrive':{'turn':2,'entry':'Hal'}", NULL, NULL,
          "units[2] (fr-jerome): only allied units arrive" },
        { 84, "'size':'XX'", "'size':'XX','team_hq':true", NULL, NULL,
          "units[1] (fr-foy): team_hq is only for HQ units" },
        { 85, "'size':'XXXX'", "'size':'XXXX','team_hq':1", NULL, NULL,
          "units[0] (fr-nap): team_hq must be true or false" },
        { 86, "'id':'fr-nap'", "'id':'fr nap'", NULL, NULL, "units[0]: id 'fr nap' is not" },
        { 87, "'id':'fr-nap'", "'id':'fr-a-very-long-unit-identifier'", NULL, NULL,
          "is not 1 to 23 letters" },
        { 88, "'id':'fr-nap',", "", NULL, NULL, "units[0]: missing key 'id'" },
        { 89, "'name':'Foy',", "", NULL, NULL, "units[1] (fr-foy): missing key 'name'" },
        { 90, "'size':'XX'", "'size':'XXXXXXXX'", NULL, NULL,
          "units[1] (fr-foy): size 'XXXXXXXX...' is longer than 7 characters" },
        { 91, "'units':[", "'units':[7,", NULL, NULL, "units[0]: must be an object" },
        { 92, "'units':[", "'units':{'set':[", "'at':'F-40'}],", "'at':'F-40'}]},",
          "units: only a scenario with a base may patch units" },
        { 93, "'units':[", "'units':[[", "'at':'F-40'}],", "'at':'F-40'}]],",
          "units[0]: must be an object" },
        /* start */
        { 94, "'phase':'setup_french'", "'phase':'french_combat'", NULL, NULL,
          "start: phase 'french_combat' is not setup_french" },
        { 95, "'turn':1,'phase'", "'turn':4,'phase'", NULL, NULL,
          "start: turn 4 is out of range 1..3" },
        { 96, "'turn':1,'phase':'setup_french'", "'turn':2,'phase':'setup_allied'", NULL, NULL,
          "start: setup_allied is before turn 1, not turn 2" },
        { 97, "'turn':1,'phase':'setup_french'", "'turn':3,'phase':'allied_move'", NULL, NULL,
          NULL },
        { 98, "'start':{'turn':1,'phase':'setup_french'}", "'start':[1]", NULL, NULL,
          "start must be an object" },
        { 99, "'turn':1,'phase'", "'turn':1,'day':1,'phase'", NULL, NULL,
          "start: unknown key 'day'" },
        /* a quoted key cut to 40 bytes in the middle of a 2-byte character */
        { 100, "'ruleset':'waterloo'",
          "'ruleset':'waterloo','x\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"
          "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9':1",
          NULL, NULL, "scenario: unknown key 'x" },
        /* a zone per allied nation: "Prussian units may start the game on row EE or north
         * of EE, and ON or east of Y-26, Z-25, AA-25, BB-24, CC-24, DD-23, and EE-23"
         * (docs/scenario-format.md, setup_zones) */
        { 101, "'allied':['E-40..E-46','F-39..F-45']",
          "'prussian':['F-39..F-41'],'anglo-allied':['E-40..E-46','F-42']", NULL, NULL, NULL },
        { 102, "'allied':['E-40..E-46','F-39..F-45']",
          "'prussian':['E-40..E-46'],'anglo-allied':['E-40..E-46','F-39..F-45']", NULL, NULL,
          "units[6] (pr-ziethen): F-40 is outside the prussian set-up zone" },
        { 103, "'allied':['E-40..E-46','F-39..F-45']",
          "'prussian':['F-39..F-45'],'anglo-allied':['E-40..E-41','F-42']", NULL, NULL,
          "units[4] (aa-picton): E-42 is outside the anglo-allied set-up zone" },
        { 104, "'allied':['E-40..E-46','F-39..F-45']",
          "'allied':['E-40..E-46','F-39..F-45'],'prussian':['F-39']", NULL, NULL,
          "setup_zones: give allied, or prussian and anglo-allied, not both" },
        { 105, "'allied':['E-40..E-46','F-39..F-45']", "'prussian':['F-39..F-45']", NULL,
          NULL, "setup_zones: give both prussian and anglo-allied, or neither" },
        { 106, "'allied':['E-40..E-46','F-39..F-45']",
          "'prussian':['F-39..F-45'],'anglo-allied':['E-40..E-46','ZZ-99']", NULL, NULL,
          "setup_zones.anglo-allied[1]" },
    };
    (void)state;

    json_t *ok = parse_text(valid, 0);
    expect_load(0, ok, NULL, NULL, NULL);
    json_decref(ok);

    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        char *a = replace_once(valid, t[i].old1, t[i].new1, t[i].row);
        if (t[i].old2 != NULL) {
            char *b = replace_once(a, t[i].old2, t[i].new2, t[i].row);
            free(a);
            a = b;
        }
        json_t *j = parse_text(a, t[i].row);
        free(a);
        expect_load(t[i].row, j, NULL, NULL, t[i].want);
        json_decref(j);
    }
}

/* ------------------------------------------------------------------------
 * Capacities: a count over a limit is an error, never an overflow
 */

static json_t *valid_json(void)
{
    return parse_text(valid, 0);
}

static json_t *unit_copy(const json_t *units, size_t from, const char *id)
{
    json_t *u = json_deep_copy(json_array_get(units, from));
    json_object_set_new(u, "id", json_string(id));
    return u;
}

static void test_capacities(void **state)
{
    (void)state;
    char id[32];

    /* 1) 256 units load; 257 do not. The extra ones arrive (no stacking). */
    json_t *j = valid_json();
    json_t *units = json_object_get(j, "units");
    for (int i = (int)json_array_size(units); i < WL_MAX_UNITS; i++) {
        snprintf(id, sizeof id, "aa-%d", i);
        json_array_append_new(units, unit_copy(units, 5, id));
    }
    expect_load(1, j, NULL, NULL, NULL);
    json_array_append_new(units, unit_copy(units, 5, "aa-one-too-many"));
    expect_load(1, j, NULL, NULL, "units: 257 units, at most 256");
    json_decref(j);

    /* 2) 64 roads load; 65 do not. */
    j = valid_json();
    json_t *map = json_object_get(j, "map");
    json_t *roads = json_object_get(map, "roads");
    for (int i = (int)json_array_size(roads); i < WL_MAX_ROADS; i++) {
        char a[WL_SQ_NAME_MAX], b[WL_SQ_NAME_MAX];
        wl_grid_name(wl_sq_make(20 + i % 20, 20 + i / 20), a);
        wl_grid_name(wl_sq_make(20 + i % 20, 21 + i / 20), b);
        json_array_append_new(roads, json_pack("{s:s, s:s, s:[s,s]}", "name", "lane", "kind",
                                               "secondary", "path", a, b));
    }
    expect_load(2, j, NULL, NULL, NULL);
    json_array_append(roads, json_array_get(roads, 2));
    expect_load(2, j, NULL, NULL, "roads: 65 roads, at most 64");
    json_decref(j);

    /* 3) 96 towns load; 97 do not. */
    j = valid_json();
    json_t *towns = json_object_get(json_object_get(j, "map"), "towns");
    for (int i = (int)json_array_size(towns); i < WL_MAX_TOWNS; i++) {
        char a[WL_SQ_NAME_MAX], name[32];
        wl_grid_name(wl_sq_make(20 + i % 20, 20 + i / 20), a);
        snprintf(name, sizeof name, "town %d", i);
        json_array_append_new(towns, json_pack("{s:s, s:s}", "name", name, "at", a));
    }
    expect_load(3, j, NULL, NULL, NULL);
    json_array_append_new(towns, json_pack("{s:s, s:s}", "name", "one more", "at", "X-27"));
    expect_load(3, j, NULL, NULL, "towns: 97 towns, at most 96");
    json_decref(j);

    /* 4) 17 rivers, 17 entries. */
    j = valid_json();
    json_t *rivers = json_object_get(json_object_get(j, "map"), "rivers");
    for (int i = (int)json_array_size(rivers); i <= WL_MAX_RIVERS; i++)
        json_array_append_new(rivers, json_pack("{s:s, s:[]}", "name", "brook", "squares"));
    expect_load(4, j, NULL, NULL, "rivers: 17 rivers, at most 16");
    json_decref(j);
    j = valid_json();
    json_t *entries = json_object_get(json_object_get(j, "map"), "entries");
    for (int i = (int)json_array_size(entries); i <= WL_MAX_ENTRIES; i++)
        json_array_append(entries, json_array_get(entries, 0));
    expect_load(4, j, NULL, NULL, "entries: 17 entries, at most 16");
    json_decref(j);

    /* 5) 64 turns load; 65 do not, in either form. */
    j = valid_json();
    json_t *list = json_array();
    for (int i = 0; i < WL_MAX_TURNS; i++) {
        char date[16], time[8];
        snprintf(date, sizeof date, "1815-06-%02d", 1 + i / 6);
        snprintf(time, sizeof time, "%02d:00", 7 + 2 * (i % 6));
        json_array_append_new(list, json_pack("{s:s, s:s}", "date", date, "time", time));
    }
    json_object_set_new(j, "time_record", list);
    expect_load(5, j, NULL, NULL, NULL);
    json_array_append_new(list, json_pack("{s:s, s:s}", "date", "1815-07-01", "time", "07:00"));
    expect_load(5, j, NULL, NULL, "time_record: 65 turns, at most 64");
    json_t *days = json_array();
    for (int i = 0; i < 22; i++) {
        char date[16];
        snprintf(date, sizeof date, "1815-06-%02d", 1 + i);
        json_array_append_new(days, json_string(date));
    }
    json_object_set_new(j, "time_record",
                        json_pack("{s:o, s:[s,s,s]}", "days", days, "times", "07:00", "09:00",
                                  "11:00"));
    expect_load(5, j, NULL, NULL, "time_record: 22 days x 3 times = 66 turns, at most 64");
    json_decref(j);

    /* 6) Wrong JSON types for whole sections. */
    static const struct { const char *key; const char *want; } types[] = {
        { "map", "map must be an object" },
        { "crt", "crt must be an object" },
        { "units", "units must be a list" },
        { "time_record", "time_record must be a list" },
        { "setup_zones", "setup_zones must be an object" },
        { "start", "start must be an object" },
        { "name", "scenario: name must be a string" },
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        j = valid_json();
        json_object_set_new(j, types[i].key, json_integer(7));
        expect_load(6, j, NULL, NULL, types[i].want);
        json_decref(j);
    }

    /* 7) Not an object; no JSON. */
    j = json_array();
    expect_load(7, j, NULL, NULL, "a scenario must be a JSON object");
    json_decref(j);
    expect_load(7, NULL, NULL, NULL, "no scenario JSON");
}

/* ------------------------------------------------------------------------
 * Bases and unit patches, through an in-memory resolver
 */

struct library {
    const char *name[4];
    const char *text[4];
    int calls;
};

static json_t *resolve_library(const char *name, void *ctx)
{
    struct library *lib = ctx;
    lib->calls++;
    for (int i = 0; i < 4 && lib->name[i]; i++)
        if (strcmp(lib->name[i], name) == 0)
            return parse_text(lib->text[i], 0);
    return NULL;
}

#define OVER(rest) "{'warroom':'scenario','version':1,'base':'valid'," rest "}"

static void test_bases(void **state)
{
    static const struct { int row; const char *text; const char *want; } t[] = {
        { 1, OVER("'name':'V'"), NULL },
        { 2, OVER("'units':{'remove':['fr-x']}"), "units.remove[0]: no unit 'fr-x' in the base" },
        { 3, OVER("'units':{'set':[{'id':'fr-foy','combat':4}],'remove':['fr-foy']}"),
          "units.set[0] (fr-foy): the unit is also in remove" },
        { 4, OVER("'units':{'add':[]}"), "units: unknown key 'add' (want replace, or set and remove)" },
        { 5, OVER("'units':{'replace':[],'set':[]}"), "units: replace cannot go with set or remove" },
        { 6, OVER("'units':{}"), "units: a patch needs replace, set or remove" },
        { 7, OVER("'units':{'set':[{'id':'fr-new','name':'New'}]}"),
          "units[7] (fr-new): missing key 'side'" },
        { 8, OVER("'units':{'set':[{'id':'fr-foy','combt':4}]}"),
          "units[1] (fr-foy): unknown key 'combt'" },
        { 9, OVER("'units':{'set':[{'name':'x'}]}"), "units.set[0]: missing id" },
        { 10, OVER("'units':{'set':[{'id':'fr-foy'},{'id':'fr-foy'}]}"),
          "units.set[1] (fr-foy): the id is set twice" },
        { 11, "{'warroom':'scenario','version':1,'base':'nowhere'}", "base 'nowhere': not found" },
        { 12, "{'warroom':'scenario','version':1,'base':'loop-a'}",
          "more than 8 levels of base scenarios" },
        { 13, "{'warroom':'scenario','version':1,'base':'broken'}",
          "base 'broken': scenario: missing key 'map'" },
        { 14, "{'warroom':'scenario','version':1,'base':'/etc/passwd'}",
          "scenario: base must name a scenario" },
        { 15, "{'warroom':'scenario','version':1,'base':'../../x/./y'}",
          "scenario: base must name a scenario" },
        { 16, OVER("'start':null"), NULL },
        { 17, OVER("'crt':null"), "scenario: missing key 'crt'" },
        { 18, OVER("'units':{'replace':7}"), "units.replace must be a list of units" },
        { 19, "{'base':'valid','name':'V'}", "not a scenario file" },
        { 20, OVER("'units':{'set':[{'id':'aa-picton','at':'F-44'},{'id':'aa-well','at':null}]}"),
          "units[3] (aa-well): give either at" },
        { 21, OVER("'units':{'remove':['fr-foy','fr-foy']}"),
          "units.remove[1]: no unit 'fr-foy' in the base" },
        { 22, OVER("'zzz':1"), "scenario: unknown key 'zzz'" },
    };
    struct library lib = {
        { "valid", "loop-a", "loop-b", "broken" },
        { valid, "{'warroom':'scenario','version':1,'base':'loop-b'}",
          "{'warroom':'scenario','version':1,'base':'loop-a'}",
          "{'warroom':'scenario','version':1,'name':'B','ruleset':'waterloo'}" },
        0,
    };
    (void)state;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        json_t *j = parse_text(t[i].text, t[i].row);
        expect_load(t[i].row, j, resolve_library, &lib, t[i].want);
        json_decref(j);
    }

    /* The contents of a patched scenario. */
    json_t *j = parse_text(
        OVER("'name':'Patched','units':{'set':[{'id':'aa-picton','arrive':{'turn':3,'entry':"
             "'Brussels'}},{'id':'fr-foy','size':null,'combat':3},{'id':'aa-x','name':'X',"
             "'side':'allied','nation':'anglo-allied','type':'cavalry','combat':4,'move':6,"
             "'at':'F-43'}],'remove':['fr-jerome']},'start':{'turn':2,'phase':'allied_move'}"),
        100);
    struct wl_scenario *sc = new_scenario();
    struct wr_refusal why = { WL_R_OK, "ok", "" };
    if (wl_scenario_load(sc, j, resolve_library, &lib, &why) != 0)
        fail_msg("patched: %s", why.message);
    assert_string_equal(sc->name, "Patched");
    assert_int_equal(sc->nunits, 7);
    assert_int_equal(wl_scenario_find_unit(sc, "fr-jerome"), -1);
    int i = wl_scenario_find_unit(sc, "aa-picton");
    assert_int_equal(sc->units[i].setup, WL_SQ_NONE);
    assert_int_equal(sc->units[i].arrive_turn, 3);
    assert_int_equal(sc->units[i].entry, 0);
    i = wl_scenario_find_unit(sc, "fr-foy");
    assert_int_equal(i, 1);
    assert_int_equal(sc->units[i].combat, 3);
    assert_string_equal(sc->units[i].size, "");
    assert_int_equal(wl_scenario_find_unit(sc, "aa-x"), 6);
    assert_int_equal(sc->start_turn, 2);
    assert_int_equal(sc->start_phase, WL_PH_ALLIED_MOVE);
    json_decref(j);

    /* replace: the whole list. */
    j = parse_text(OVER("'units':{'replace':[{'id':'fr-a','name':'A','side':'french',"
                        "'nation':'french','type':'cavalry','combat':1,'move':6,'at':'K-39'}]}"),
                   101);
    if (wl_scenario_load(sc, j, resolve_library, &lib, &why) != 0)
        fail_msg("replace: %s", why.message);
    assert_int_equal(sc->nunits, 1);
    assert_string_equal(sc->units[0].id, "fr-a");
    json_decref(j);

    /* The caller's JSON is not modified. */
    j = parse_text(OVER("'units':{'set':[{'id':'fr-foy','combat':4}]}"), 102);
    char *before = json_dumps(j, JSON_SORT_KEYS);
    assert_int_equal(wl_scenario_load(sc, j, resolve_library, &lib, &why), 0);
    char *after = json_dumps(j, JSON_SORT_KEYS);
    assert_string_equal(before, after);
    assert_int_equal(j->refcount, 1);
    free(before);
    free(after);
    json_decref(j);
    free(sc);
}

/* ------------------------------------------------------------------------
 * Files
 */

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    char *s = quotes(text);
    fputs(s, f);
    free(s);
    fclose(f);
}

static void expect_file(int row, const char *dir, const char *name, const char *want)
{
    char path[1024];
    struct wr_refusal why = { WL_R_OK, "ok", "" };
    struct wl_scenario *sc = new_scenario();
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int rc = wl_scenario_load_file(sc, path, &why);
    free(sc);
    if (want == NULL && rc != 0)
        fail_msg("row %d: %s: %s", row, name, why.message);
    if (want != NULL && (rc == 0 || strstr(why.message, want) == NULL))
        fail_msg("row %d: %s: rc %d \"%s\", want \"%s\"", row, name, rc, why.message, want);
}

static void test_files(void **state)
{
    (void)state;
    char dir[256], sub[300], path[600];
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/warroom-scenario-XXXXXX", tmp ? tmp : "/tmp");
    assert_non_null(mkdtemp(dir));
    snprintf(sub, sizeof sub, "%s/sub", dir);
    assert_int_equal(mkdir(sub, 0700), 0);

    /* top.json -> sub/mid.json -> sub/low.json (found next to mid, not top). */
    write_file(dir, "top.json", "{'warroom':'scenario','version':1,'base':'sub/mid','name':'Top'}");
    write_file(sub, "mid.json", "{'warroom':'scenario','version':1,'base':'low','name':'Mid'}");
    write_file(sub, "low.json", valid);
    expect_file(1, dir, "top.json", NULL);
    /* <base>/scenario.json. */
    write_file(sub, "scenario.json", valid);
    write_file(dir, "dirbase.json", "{'warroom':'scenario','version':1,'base':'sub'}");
    expect_file(2, dir, "dirbase.json", NULL);
    /* ".." goes up from the file's own directory. */
    write_file(sub, "up.json", "{'warroom':'scenario','version':1,'base':'../sub/low'}");
    expect_file(3, sub, "up.json", NULL);

    expect_file(4, dir, "missing.json", "missing.json: No such file or directory");
    write_file(dir, "nobase.json", "{'warroom':'scenario','version':1,'base':'gone'}");
    expect_file(5, dir, "nobase.json", "base 'gone': neither gone.json nor gone/scenario.json");
    write_file(dir, "syntax.json", "{'warroom':'scenario',\n'version':1,,}");
    expect_file(6, dir, "syntax.json", "syntax.json:2:");
    write_file(dir, "dup.json", "{'warroom':'scenario','warroom':'scenario'}");
    expect_file(7, dir, "dup.json", "duplicate object key");
    write_file(dir, "badbase.json", "{'warroom':'scenario','version':1,'base':'syntax'}");
    expect_file(8, dir, "badbase.json", "base 'syntax': ");
    expect_file(8, dir, "badbase.json", "syntax.json:2:");
    write_file(dir, "invalid.json", "{'warroom':'scenario','version':1,'base':'sub/mid','start':7}");
    expect_file(9, dir, "invalid.json", "start must be an object");
    expect_file(10, dir, "sub", "read error");

    /* 11) Larger than 8 MiB: refused before parsing. */
    snprintf(path, sizeof path, "%s/big.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    char *spaces = malloc(65536);
    assert_non_null(spaces);
    memset(spaces, ' ', 65536);
    for (int i = 0; i < 128; i++)
        fwrite(spaces, 1, 65536, f);
    free(spaces);
    fputs("{}", f);
    fclose(f);
    expect_file(11, dir, "big.json", "larger than 8 MiB");

    static const char *const names[] = { "top.json", "dirbase.json", "syntax.json", "dup.json",
                                         "badbase.json", "invalid.json", "nobase.json",
                                         "big.json", "sub/mid.json", "sub/low.json",
                                         "sub/scenario.json", "sub/up.json" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(sub);
    assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small),
        cmocka_unit_test(test_override),
        cmocka_unit_test(test_every_scenario_file),
        cmocka_unit_test(test_broken),
        cmocka_unit_test(test_capacities),
        cmocka_unit_test(test_bases),
        cmocka_unit_test(test_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
