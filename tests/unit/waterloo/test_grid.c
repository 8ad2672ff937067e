/*
 * test_grid.c - the board grid against section 1 of the board reference.
 * Table-driven: each row is numbered so a failure names it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "waterloo_grid.h"
#include "wl_testdata.h"

static void test_parse_and_name(void **state)
{
    static const struct { int row; const char *text; int ok; const char *canon; int r, c; } t[] = {
        { 1, "X-27", 1, "X-27", 24, 27 },
        { 2, "AA-25", 1, "AA-25", 27, 25 },
        { 3, "WW-57", 1, "WW-57", 49, 57 },
        { 4, "A-1", 1, "A-1", 1, 1 },
        { 5, "0-46", 1, "0-46", 0, 46 },
        { 6, "e-43", 1, "E-43", 5, 43 },
        { 7, "jj-13", 1, "JJ-13", 36, 13 },
        { 8, "XX-1", 0, NULL, 0, 0 },        /* row 50 does not exist */
        { 9, "A-58", 0, NULL, 0, 0 },
        { 10, "A-0", 0, NULL, 0, 0 },
        { 11, "A-07", 0, NULL, 0, 0 },
        { 12, "AB-3", 0, NULL, 0, 0 },
        { 13, "A27", 0, NULL, 0, 0 },
        { 14, "", 0, NULL, 0, 0 },
        { 15, "-", 0, NULL, 0, 0 },
        { 16, "A-", 0, NULL, 0, 0 },
        { 17, "A-123", 0, NULL, 0, 0 },
        { 18, "A-5x", 0, NULL, 0, 0 },
        { 19, "AAA-5", 0, NULL, 0, 0 },
        { 20, "1-5", 0, NULL, 0, 0 },
        { 21, "00-5", 0, NULL, 0, 0 },
    };
    (void)state;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        wl_sq s = WL_SQ_NONE;
        int rc = wl_grid_parse(t[i].text, (size_t)-1, &s);
        if ((rc == 0) != t[i].ok)
            fail_msg("row %d: parse('%s') returned %d", t[i].row, t[i].text, rc);
        if (!t[i].ok)
            continue;
        char buf[WL_SQ_NAME_MAX];
        if (strcmp(wl_grid_name(s, buf), t[i].canon) != 0 || wl_sq_row(s) != t[i].r ||
            wl_sq_col(s) != t[i].c)
            fail_msg("row %d: '%s' -> %s (%d,%d)", t[i].row, t[i].text, buf, wl_sq_row(s),
                     wl_sq_col(s));
    }
    /* A length-bounded parse must not read past len. */
    wl_sq s;
    assert_int_equal(wl_grid_parse("X-27junk", 4, &s), 0);
    assert_int_equal(s, wlt_sq("X-27"));
    assert_int_equal(wl_grid_parse(NULL, 3, &s), -1);
}

static void test_round_trip_every_square(void **state)
{
    (void)state;
    int n = 0;
    for (int r = 0; r < WL_ROWS; r++)
        for (int c = 1; c < WL_COLS; c++) {
            char buf[WL_SQ_NAME_MAX];
            wl_sq s = wl_sq_make(r, c), back;
            assert_int_equal(wl_grid_parse(wl_grid_name(s, buf), (size_t)-1, &back), 0);
            assert_int_equal(back, s);
            n++;
        }
    assert_int_equal(n, 50 * 57);
}

static void test_neighbours(void **state)
{
    static const struct { int row; const char *from; int dir; const char *to; } t[] = {
        { 1, "X-27", WL_E, "X-26" },
        { 2, "X-27", WL_W, "X-28" },
        { 3, "X-27", WL_NE, "W-27" },
        { 4, "X-27", WL_NW, "W-28" },
        { 5, "X-27", WL_SE, "Y-26" },
        { 6, "X-27", WL_SW, "Y-27" },
        { 7, "A-45", WL_NW, "0-46" },       /* Brussels entry touches A-45 */
        { 8, "A-46", WL_NE, "0-46" },       /* ... and A-46 */
        { 9, "TT-15", WL_NE, "SS-15" },
        { 10, "RR-15", WL_E, "RR-14" },
    };
    (void)state;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        wl_sq a = wlt_sq(t[i].from), b = wlt_sq(t[i].to);
        if (wl_grid_neighbour(a, t[i].dir) != b)
            fail_msg("row %d: %s %s is not %s", t[i].row, wl_dir_name(t[i].dir), t[i].from,
                     t[i].to);
        if (wl_grid_dir_to(a, b) != t[i].dir || wl_grid_dir_to(b, a) != wl_dir_opposite(t[i].dir))
            fail_msg("row %d: dir_to disagrees", t[i].row);
        if (wl_grid_distance(a, b) != 1)
            fail_msg("row %d: neighbours not at distance 1", t[i].row);
    }
    assert_int_equal(wl_grid_neighbour(wlt_sq("A-5"), WL_NE), wlt_sq("0-5"));
    assert_int_equal(wl_grid_neighbour(wlt_sq("0-5"), WL_NE), WL_SQ_NONE);
    assert_int_equal(wl_grid_neighbour(wlt_sq("WW-3"), WL_SW), WL_SQ_NONE);
    assert_int_equal(wl_grid_neighbour(wlt_sq("A-57"), WL_W), WL_SQ_NONE);
    assert_int_equal(wl_grid_neighbour(WL_SQ_NONE, WL_E), WL_SQ_NONE);
    assert_int_equal(wl_grid_neighbour(wlt_sq("A-5"), 6), WL_SQ_NONE);
    assert_int_equal(wl_grid_dir_to(wlt_sq("A-5"), wlt_sq("A-7")), -1);
}

static void test_distance(void **state)
{
    static const struct { int row; const char *a, *b; int d; } t[] = {
        { 1, "X-27", "X-27", 0 },
        { 2, "PP-13", "JJ-13", 6 },         /* straight NE line */
        { 3, "Y-26", "EE-23", 6 },          /* due-south zigzag, 6 steps */
        { 4, "A-1", "WW-1", 48 },
        { 5, "A-57", "A-1", 56 },
        { 6, "X-27", "V-38", 11 },
        { 7, "E-43", "A-45", 4 },
    };
    (void)state;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        int d = wl_grid_distance(wlt_sq(t[i].a), wlt_sq(t[i].b));
        if (d != t[i].d || wl_grid_distance(wlt_sq(t[i].b), wlt_sq(t[i].a)) != t[i].d)
            fail_msg("row %d: distance %s..%s = %d, want %d", t[i].row, t[i].a, t[i].b, d,
                     t[i].d);
    }
}

/* Reference section 1: "Checks that must pass in tests". */
static void test_reference_lines(void **state)
{
    static const char *const road[] = { "TT-15", "SS-15", "RR-15", "RR-14", "QQ-15",
                                        "PP-15", "OO-16", "PP-14", "PP-13" };
    enum { N = sizeof road / sizeof road[0] };
    int reached[N] = { 1 }, grew = 1;
    (void)state;
    while (grew) {
        grew = 0;
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                if (reached[i] && !reached[j] && wl_grid_distance(wlt_sq(road[i]), wlt_sq(road[j])) == 1)
                    reached[j] = grew = 1;
    }
    for (int i = 0; i < N; i++)
        if (!reached[i])
            fail_msg("%s is not connected to the Charleroi-Fleurus road net", road[i]);

    /* PP-13 to JJ-13 is a straight NE line. */
    wl_sq s = wlt_sq("PP-13");
    for (int i = 0; i < 6; i++)
        s = wl_grid_neighbour(s, WL_NE);
    assert_int_equal(s, wlt_sq("JJ-13"));

    /* The Prussian set-up line alternates SE/SW: due south. */
    static const char *const line[] = { "Y-26", "Z-25", "AA-25", "BB-24", "CC-24", "DD-23",
                                        "EE-23" };
    for (int i = 0; i + 1 < 7; i++)
        assert_int_equal(wl_grid_dir_to(wlt_sq(line[i]), wlt_sq(line[i + 1])), i % 2 ? WL_SW : WL_SE);
}

static void test_board_extent(void **state)
{
    (void)state;
    static const struct { int row; const char *s; int playable, partial; } u[] = {
        { 1, "U-48", 0, 1 }, { 2, "C-57", 0, 1 }, { 3, "0-46", 0, 1 }, { 4, "A-45", 1, 0 },
        { 5, "A-39", 1, 0 }, { 6, "E-43", 1, 0 }, { 7, "X-27", 1, 0 }, { 8, "JJ-13", 1, 0 },
        { 9, "A-25", 0, 1 }, { 10, "B-25", 1, 0 }, { 11, "B-24", 0, 0 }, { 12, "V-48", 0, 0 },
        { 13, "T-48", 1, 0 }, { 14, "0-20", 0, 0 }, { 15, "WW-1", 0, 1 }, { 16, "WW-2", 1, 0 },
        { 17, "0-57", 0, 1 }, { 18, "0-26", 0, 1 }, { 19, "0-25", 0, 0 },
    };
    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++) {
        wl_sq s = wlt_sq(u[i].s);
        if (wl_grid_playable(s) != u[i].playable || wl_grid_partial(s) != u[i].partial)
            fail_msg("row %d: %s playable=%d partial=%d", u[i].row, u[i].s,
                     wl_grid_playable(s), wl_grid_partial(s));
    }
    /* Every row A..WW has exactly 33 or 32 playable squares (x = 1..65). */
    for (int r = 1; r < WL_ROWS; r++) {
        int n = 0, p = 0;
        for (int c = 1; c < WL_COLS; c++) {
            n += wl_grid_playable(wl_sq_make(r, c));
            p += wl_grid_partial(wl_sq_make(r, c));
        }
        if (n != (r % 2 ? 32 : 33))
            fail_msg("row %d has %d playable squares", r, n);
        if (p > 2)
            fail_msg("row %d has %d partial squares", r, p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_and_name),
        cmocka_unit_test(test_round_trip_every_square),
        cmocka_unit_test(test_neighbours),
        cmocka_unit_test(test_distance),
        cmocka_unit_test(test_reference_lines),
        cmocka_unit_test(test_board_extent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
