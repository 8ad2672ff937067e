/*
 * test_render.c - the board pictures (common/rulesets/waterloo/waterloo_draw.h) on the small test
 * scenario: the SVG is well formed enough, names every town, draws one
 * counter per unit on the board where the geometry of the board reference
 * puts it, and labels the edges; the text picture puts row labels and unit
 * markers in the columns its layout promises; --no-color output has no ESC;
 * the text fitted to a terminal's room (wl_draw_text_fit) never exceeds it,
 * starts with the numbers, totals a stack, keeps a town's colour under a
 * stack, marks the other side's last move and pans within the board;
 * the SVG of the 1815 scenario's set-up is docs/waterloo-1815-start.svg,
 * byte for byte.
 *
 * Expected positions are computed here from the formula of
 * docs/waterloo-board.md section 1 (x = 2c + r - 51, measured
 * from the east edge), not with the renderer's own helpers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "waterloo_draw.h"
#include "waterloo_scenario.h"

#ifndef WARROOM_SCENARIO_DIR
#error "WARROOM_SCENARIO_DIR must be defined by the build"
#endif

struct fixture {
    struct wl_scenario sc;
    struct wl_draw_view view;
    struct wr_strbuf out;
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    struct wr_refusal why;
    if (f == NULL ||
        wl_scenario_load_file(&f->sc, WARROOM_SCENARIO_DIR "/test/small.json", &why) != 0) {
        fprintf(stderr, "small.json: %s\n", f ? why.message : "out of memory");
        free(f);
        return -1;
    }
    /* Rules 1 keeps every counter of the scenario on the picture (Reille's
     * HQ too): these rows are about drawing, not about which units play. */
    struct wl_options all = { .rules = 1, .commanders = 1, .undo = 1 };
    wl_draw_view_setup(&f->view, &f->sc, &all);
    wr_strbuf_init(&f->out);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    wr_strbuf_release(&f->out);
    free(f);
    return 0;
}

/* Row number of a row name: "A" 1 .. "Z" 26, "AA" 27 .. "WW" 49. */
static int row_of(const char *name)
{
    if (name[1] == name[0])
        return 26 + (name[0] - 'A' + 1);
    return name[0] - 'A' + 1;
}

/* Screen centre of square (row, c), from the reference's formula. */
static void expect_centre(int row, int c, double *sx, double *sy)
{
    int x = 2 * c + row - 51;
    *sx = WL_SVG_ORIGIN_X + (66 - x) * WL_SVG_HALF_W;
    *sy = WL_SVG_ORIGIN_Y + row * WL_SVG_ROW_H;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0, len = strlen(needle);
    for (const char *p = strstr(hay, needle); p; p = strstr(p + len, needle))
        n++;
    return n;
}

static void xml_escape(const char *s, char *out, size_t n)
{
    size_t j = 0;
    for (; *s && j + 7 < n; s++) {
        const char *rep = *s == '&' ? "&amp;" : *s == '<' ? "&lt;" : *s == '>' ? "&gt;"
                        : *s == '"' ? "&quot;" : *s == '\'' ? "&apos;" : NULL;
        if (rep) {
            strcpy(out + j, rep);
            j += strlen(rep);
        } else {
            out[j++] = *s;
        }
    }
    out[j] = '\0';
}

static void render_svg(struct fixture *f, const struct wl_draw_view *v)
{
    wr_strbuf_release(&f->out);
    assert_int_equal(wl_draw_svg(&f->out, &f->sc, v), 0);
    assert_non_null(f->out.s);
    assert_int_equal(f->out.failed, 0);
}

static void test_svg_well_formed(void **state)
{
    struct fixture *f = *state;
    render_svg(f, NULL);
    const char *s = f->out.s;
    assert_true(strncmp(s, "<svg", 4) == 0);
    assert_true(f->out.len > 7 && strcmp(s + f->out.len - 7, "</svg>\n") == 0);
    assert_int_equal(count(s, "<svg"), 1);
    assert_int_equal(count(s, "</svg>"), 1);
    size_t open = count(s, "<g ") + count(s, "<g>");
    size_t close = count(s, "</g>");
    if (open != close)
        fail_msg("%zu <g> opened, %zu closed", open, close);
    assert_int_equal(count(s, "<text"), count(s, "</text>"));
    /* no raw special characters from names: every '&' starts an entity */
    for (const char *p = strchr(s, '&'); p; p = strchr(p + 1, '&'))
        if (strncmp(p, "&amp;", 5) && strncmp(p, "&lt;", 4) && strncmp(p, "&gt;", 4) &&
            strncmp(p, "&quot;", 6) && strncmp(p, "&apos;", 6))
            fail_msg("unescaped '&' at offset %td", p - s);
}

static void test_svg_towns_and_entries(void **state)
{
    struct fixture *f = *state;
    render_svg(f, NULL);
    for (int i = 0; i < f->sc.map.ntowns; i++) {
        char esc[256], want[300];
        xml_escape(f->sc.map.towns[i].name, esc, sizeof esc);
        snprintf(want, sizeof want, ">%s</text>", esc);
        if (!strstr(f->out.s, want))
            fail_msg("row %d: town '%s' is not named in the SVG", i + 1,
                     f->sc.map.towns[i].name);
    }
    for (int i = 0; i < f->sc.map.nentries; i++)
        if (!strstr(f->out.s, f->sc.map.entries[i].name))
            fail_msg("row %d: entry '%s' is not named", i + 1, f->sc.map.entries[i].name);
    assert_non_null(strstr(f->out.s, "<title>Test: Mont-St-Jean, small</title>"));
}

/* The translate() of unit id's counter; fails when there is none. */
static void counter_at(const char *svg, const char *id, double *x, double *y)
{
    char want[64];
    snprintf(want, sizeof want, "id=\"u-%s\" transform=\"translate(", id);
    const char *p = strstr(svg, want);
    if (p == NULL)
        fail_msg("no counter for %s", id);
    if (sscanf(p + strlen(want), "%lf %lf", x, y) != 2)
        fail_msg("counter for %s: unreadable translate()", id);
}

static void test_svg_counters(void **state)
{
    struct fixture *f = *state;
    /* No view: the start of a two-player game of the newest rules, so
     * without Reille's HQ, a team HQ ("In a 2-player game use only the HQ
     * Units labeled Wellington, Napoleon and Blucher."; rules-notes H1). */
    render_svg(f, NULL);
    struct wl_options def = wl_options_default();
    int onboard = 0;
    for (int i = 0; i < f->sc.nunits; i++)
        onboard += f->sc.units[i].setup != WL_SQ_NONE && wl_unit_plays(&def, &f->sc, i);
    assert_int_equal(onboard, 11);
    assert_int_equal(count(f->out.s, "<g class=\"unit\""), (size_t)onboard);
    assert_null(strstr(f->out.s, "id=\"u-fr-reille\""));
    /* arrivals are not on the board */
    assert_null(strstr(f->out.s, "id=\"u-aa-wissel\""));
    assert_null(strstr(f->out.s, "id=\"u-pr-15\""));

    /* k-th of n on a square in drawing order (the weakest first, the
     * strongest last, on top): offset (k - (n-1)/2) * step right and up */
    static const struct { int row; const char *id; const char *rowname; int c; int k, n; } t[] = {
        { 1, "aa-picton", "H", 40, 0, 1 },
        { 2, "fr-napoleon", "L", 38, 0, 1 },
        { 3, "fr-jerome", "K", 40, 1, 2 },      /* Jerome (6) and Foy (5) share K-40: */
        { 4, "fr-foy", "K", 40, 0, 2 },         /* Jerome on top, though listed first */
        { 5, "aa-wellington", "F", 42, 0, 1 },
        { 6, "fr-guard-ha", "L", 41, 0, 1 },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        double ex, ey, x, y;
        expect_centre(row_of(t[i].rowname), t[i].c, &ex, &ey);
        double o = (t[i].k - (t[i].n - 1) / 2.0) * WL_SVG_STACK_STEP;
        ex += o;
        ey -= o;
        counter_at(f->out.s, t[i].id, &x, &y);
        if (x < ex - 0.01 || x > ex + 0.01 || y < ey - 0.01 || y > ey + 0.01)
            fail_msg("row %d: %s at (%.2f, %.2f), expected (%.2f, %.2f)", t[i].row, t[i].id,
                     x, y, ex, ey);
    }
    /* west is left, north is up */
    double wx, wy, ex2, ey2;
    counter_at(f->out.s, "aa-wellington", &wx, &wy);      /* F-42 */
    counter_at(f->out.s, "fr-napoleon", &ex2, &ey2);      /* L-38: south and east */
    assert_true(ex2 > wx);
    assert_true(ey2 > wy);
    /* the counter's face: combat-movement and HQ */
    assert_non_null(strstr(f->out.s, ">6-4</text>"));
    assert_non_null(strstr(f->out.s, ">HQ</text>"));
}

/* The coordinates group: text labels with their positions. */
static int find_label(const char *svg, const char *label, int nth, double *x, double *y)
{
    const char *g = strstr(svg, "<g id=\"coordinates\">");
    if (g == NULL)
        return -1;
    const char *end = strstr(g, "</g>");
    char tail[16];
    snprintf(tail, sizeof tail, ">%s</text>", label);
    int seen = 0;
    for (const char *p = strstr(g, tail); p && p < end; p = strstr(p + 1, tail)) {
        const char *t = p;
        while (t > g && strncmp(t, "<text", 5) != 0)
            t--;
        if (seen++ != nth)
            continue;
        if (sscanf(t, "<text class=\"co\" x=\"%lf\" y=\"%lf\"", x, y) != 2)
            return -1;
        return 0;
    }
    return -1;
}

static void test_svg_edge_labels(void **state)
{
    struct fixture *f = *state;
    render_svg(f, NULL);
    const double left = WL_SVG_ORIGIN_X, right = WL_SVG_ORIGIN_X + 66 * WL_SVG_HALF_W;
    const double top = WL_SVG_ORIGIN_Y, bottom = WL_SVG_ORIGIN_Y + 49 * WL_SVG_ROW_H;
    static const struct { int row; const char *label; int rownum; } rows[] = {
        { 1, "A", 1 }, { 2, "WW", 49 }, { 3, "X", 24 }, { 4, "AA", 27 },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        double x0, y0, x1, y1;
        if (find_label(f->out.s, rows[i].label, 0, &x0, &y0) != 0 ||
            find_label(f->out.s, rows[i].label, 1, &x1, &y1) != 0)
            fail_msg("row %d: row label %s is not on both edges", rows[i].row, rows[i].label);
        double ry = WL_SVG_ORIGIN_Y + rows[i].rownum * WL_SVG_ROW_H;
        if (!(x0 < left && x1 > right) || y0 < ry - 8 || y0 > ry + 8 || y1 != y0)
            fail_msg("row %d: labels of %s at (%.1f,%.1f) (%.1f,%.1f)", rows[i].row,
                     rows[i].label, x0, y0, x1, y1);
    }
    /* diagonal numbers: 57 (north-west) on the north edge, 1 (south-east
     * corner) on the south edge, 30 on both */
    double x, y;
    assert_int_equal(find_label(f->out.s, "57", 0, &x, &y), 0);
    assert_true(y < top && x < (left + right) / 2);
    assert_int_equal(find_label(f->out.s, "1", 0, &x, &y), 0);
    assert_true(y > bottom && x > (left + right) / 2);
    assert_int_equal(find_label(f->out.s, "30", 0, &x, &y), 0);
    assert_true(y < top);
    assert_int_equal(find_label(f->out.s, "30", 1, &x, &y), 0);
    assert_true(y > bottom);
    /* every number 1..57 is written on the north or south edge */
    for (int c = 1; c <= 57; c++) {
        char num[4];
        snprintf(num, sizeof num, "%d", c);
        if (find_label(f->out.s, num, 0, &x, &y) != 0)
            fail_msg("row %d: diagonal %d is not labelled", c, c);
    }
}

static void test_view_from_state(void **state)
{
    struct fixture *f = *state;
    struct wl_draw_view v;
    struct wr_refusal why;
    json_t *st = json_pack("{s:s, s:i, s:s, s:s, s:s, s:{s:{s:s}, s:{s:s}, s:{s:s}}}",
                           "scenario", "Test: Mont-St-Jean, small", "turn", 3, "date",
                           "1815-06-18", "time", "11:00", "phase", "french_move", "units",
                           "fr-jerome", "at", "J-40", "fr-foy", "at", "K-40", "aa-picton", "at",
                           "eliminated");
    assert_non_null(st);
    assert_int_equal(wl_draw_view_from_state(&v, &f->sc, st, &why), 0);
    assert_int_equal(v.eliminated, 1);
    assert_non_null(strstr(v.caption, "Turn 3"));
    render_svg(f, &v);
    assert_int_equal(count(f->out.s, "<g class=\"unit\""), 2);
    double x, y, ex, ey;
    counter_at(f->out.s, "fr-jerome", &x, &y);
    expect_centre(10, 40, &ex, &ey);                     /* J-40 */
    assert_true(x > ex - 0.01 && x < ex + 0.01 && y > ey - 0.01 && y < ey + 0.01);
    counter_at(f->out.s, "fr-foy", &x, &y);              /* alone on K-40 now */
    expect_centre(11, 40, &ex, &ey);
    assert_true(x > ex - 0.01 && x < ex + 0.01 && y > ey - 0.01 && y < ey + 0.01);
    assert_null(strstr(f->out.s, "u-aa-picton"));
    json_decref(st);

    static const struct { int row; const char *json; const char *msg; } bad[] = {
        { 1, "[]", "not a JSON object" },
        { 2, "{}", "no \"units\"" },
        { 3, "{\"units\":{\"fr-nobody\":{\"at\":\"K-40\"}}}", "fr-nobody" },
        { 4, "{\"units\":{\"fr-foy\":{\"at\":\"ZZ-40\"}}}", "ZZ-40" },
        { 5, "{\"units\":{\"fr-foy\":{\"at\":\"A-1\"}}}", "not a square of the board" },
        { 6, "{\"units\":{\"fr-foy\":{}}}", "\"at\"" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *j = json_loads(bad[i].json, 0, NULL);
        assert_non_null(j);
        why.message[0] = '\0';
        if (wl_draw_view_from_state(&v, &f->sc, j, &why) == 0)
            fail_msg("row %d: %s accepted", bad[i].row, bad[i].json);
        if (!strstr(why.message, bad[i].msg))
            fail_msg("row %d: message '%s' lacks '%s'", bad[i].row, why.message, bad[i].msg);
        json_decref(j);
    }
}

/* Line of the text picture that starts with the row name (and a blank). */
static const char *text_line(const char *text, const char *row, char *buf, size_t n)
{
    size_t len = strlen(row);
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t l = nl ? (size_t)(nl - p) : strlen(p);
        if (l > len && strncmp(p, row, len) == 0 && p[len] == ' ') {
            snprintf(buf, n, "%.*s", (int)l, p);
            return buf;
        }
        if (!nl)
            break;
        p = nl + 1;
    }
    return NULL;
}

static void test_text_window(void **state)
{
    struct fixture *f = *state;
    struct wl_draw_window w;
    wl_sq centre;
    assert_int_equal(wl_grid_parse("I-40", (size_t)-1, &centre), 0);
    assert_int_equal(wl_draw_window_around(&w, centre, 3), 0);
    /* I-40: row 9, x = 80 + 9 - 51 = 38 */
    assert_int_equal(w.row_min, 6);
    assert_int_equal(w.row_max, 12);
    assert_int_equal(w.x_min, 32);
    assert_int_equal(w.x_max, 44);
    wr_strbuf_release(&f->out);
    assert_int_equal(wl_draw_text(&f->out, &f->sc, &f->view, &w, 0), 0);
    const char *t = f->out.s;
    assert_null(strchr(t, '\x1b'));

    /* every row of the window is labelled on both sides */
    static const char *const rows[] = { "F", "G", "H", "I", "J", "K", "L" };
    char line[512];
    for (size_t i = 0; i < 7; i++) {
        if (!text_line(t, rows[i], line, sizeof line))
            fail_msg("row %zu: no line for row %s", i + 1, rows[i]);
        size_t l = strlen(line), rl = strlen(rows[i]);
        if (l < rl + 1 || strcmp(line + l - rl, rows[i]) != 0 || line[l - rl - 1] != ' ')
            fail_msg("row %zu: line of %s does not end with its label: '%s'", i + 1, rows[i],
                     line);
    }
    assert_null(text_line(t, "E", line, sizeof line));
    assert_null(text_line(t, "M", line, sizeof line));

    /* unit markers at column WL_TEXT_LABEL_W + 2 * (x_max - x) + 1 */
    static const struct { int row; const char *rowname; int c; const char *marker; } u[] = {
        { 1, "H", 40, "A6" },           /* Picton */
        { 2, "H", 41, "A6" },           /* Cooke */
        { 3, "K", 40, "F11" },          /* Jerome 6 + Foy 5 */
        { 4, "K", 41, "F4" },           /* Pire */
        { 5, "F", 42, "AHQ" },          /* Wellington alone */
        { 6, "L", 38, "FHQ" },          /* Napoleon alone */
        { 7, "G", 41, "A4" },           /* Uxbridge */
    };
    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++) {
        int r = row_of(u[i].rowname);
        int x = 2 * u[i].c + r - 51;
        size_t col = WL_TEXT_LABEL_W + 2 * (size_t)(w.x_max - x) + 1;
        if (!text_line(t, u[i].rowname, line, sizeof line))
            fail_msg("row %d: no line %s", u[i].row, u[i].rowname);
        if (strlen(line) < col + strlen(u[i].marker) ||
            strncmp(line + col, u[i].marker, strlen(u[i].marker)) != 0)
            fail_msg("row %d: '%s' not at column %zu of '%s'", u[i].row, u[i].marker, col,
                     line);
    }
    /* the diagonal numbers above the top row (F, x 33..43 -> c 39..44) */
    const char *first_nl = strchr(t, '\n');
    assert_non_null(first_nl);
    char top[256];
    snprintf(top, sizeof top, "%.*s", (int)(first_nl - t), t);
    assert_non_null(strstr(top, "44"));
    assert_non_null(strstr(top, "39"));
    assert_null(strstr(top, "45"));
    assert_null(strstr(top, "38"));
    assert_non_null(strstr(t, "Mont-St-Jean"));
    assert_non_null(strstr(t, "Jerome 6-4 infantry"));

    /* colour: the same picture with ANSI escapes */
    wr_strbuf_release(&f->out);
    assert_int_equal(wl_draw_text(&f->out, &f->sc, &f->view, &w, 1), 0);
    assert_non_null(strchr(f->out.s, '\x1b'));
    assert_non_null(strstr(f->out.s, "F11"));
}

static void test_text_whole_board(void **state)
{
    struct fixture *f = *state;
    wr_strbuf_release(&f->out);
    assert_int_equal(wl_draw_text(&f->out, &f->sc, &f->view, NULL, 0), 0);
    const char *t = f->out.s;
    assert_null(strchr(t, '\x1b'));
    char line[512];
    assert_non_null(text_line(t, "0", line, sizeof line));
    assert_non_null(text_line(t, "A", line, sizeof line));
    assert_non_null(text_line(t, "WW", line, sizeof line));
    /* Hal, the partial entry square C-57 (x = 66), is the first cell of row C */
    assert_non_null(text_line(t, "C", line, sizeof line));
    assert_int_equal(strncmp(line + WL_TEXT_LABEL_W + 1, ">E<", 3), 0);
    /* the bottom number line ends with diagonal 1 (WW-1 is the south-east corner) */
    const char *p = strstr(t, "\n\n");
    assert_non_null(p);
    const char *q = p;
    while (q > t && q[-1] != '\n')
        q--;
    char last[512];
    snprintf(last, sizeof last, "%.*s", (int)(p - q), q);
    size_t l = strlen(last);
    assert_true(l >= 2 && strcmp(last + l - 2, " 1") == 0);
    assert_non_null(strstr(last, "34"));
}

/* Characters a terminal shows of line s[0..n): escapes take none. */
static int visible(const char *s, size_t n)
{
    int w = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\x1b') {
            while (i < n && s[i] != 'm')
                i++;
            continue;
        }
        w += ((unsigned char)s[i] & 0xC0) != 0x80;
    }
    return w;
}

/* Line k (0-based) of text into buf, escapes removed; NULL past the end. */
static const char *plain_line(const char *text, int k, char *buf, size_t n)
{
    const char *p = text;
    for (; k > 0 && p; k--) {
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    if (p == NULL || *p == '\0')
        return NULL;
    size_t j = 0;
    for (; *p && *p != '\n' && j + 1 < n; p++) {
        if (*p == '\x1b') {
            while (*p && *p != 'm')
                p++;
            if (!*p)
                break;
            continue;
        }
        buf[j++] = *p;
    }
    buf[j] = '\0';
    return buf;
}

static int number_line(const char *line)
{
    int n = 0;
    for (const char *c = line; *c; c++) {
        if (*c != ' ' && (*c < '0' || *c > '9'))
            return 0;
        n += *c != ' ' && (c == line || c[-1] == ' ');
    }
    return n >= 2;
}

static void fit(struct fixture *f, const char *centre, int cols, int rows, int color,
                int pan_cols, int pan_rows)
{
    struct wl_draw_fit o = { .cols = cols, .rows = rows, .color = color, .radius = -1,
                             .pan_cols = pan_cols, .pan_rows = pan_rows };
    o.centre = WL_SQ_NONE;
    if (centre)
        assert_int_equal(wl_grid_parse(centre, (size_t)-1, &o.centre), 0);
    wr_strbuf_release(&f->out);
    assert_int_equal(wl_draw_text_fit(&f->out, &f->sc, &f->view, &o), 0);
    assert_non_null(f->out.s);
}

/* wl_draw_text_fit: never more lines or wider lines than the room, the
 * numbers first, the centre's row on the map, the key cut with a line
 * saying so; stacks total their factors, show the terrain under them,
 * the other side's last move is marked; the pan moves and stops. */
static void test_text_fit(void **state)
{
    struct fixture *f = *state;
    static const struct { int row, cols, rows; } room[] = {
        { 1, 80, 24 }, { 2, 131, 36 }, { 3, 199, 40 }, { 4, 40, 10 }, { 5, 79, 12 },
        { 6, 12, 4 }, { 7, 200, 0 },
    };
    char line[1024];
    for (size_t i = 0; i < sizeof room / sizeof room[0]; i++)
        for (int color = 0; color < 2; color++) {
            fit(f, "I-40", room[i].cols, room[i].rows, color, 0, 0);
            const char *t = f->out.s;
            int lines = 0;
            for (const char *p = t; *p;) {
                const char *nl = strchr(p, '\n');
                assert_non_null(nl);            /* every line ends */
                if (visible(p, (size_t)(nl - p)) > room[i].cols)
                    fail_msg("row %d: a line wider than %d: '%.*s'", room[i].row,
                             room[i].cols, (int)(nl - p), p);
                lines++;
                p = nl + 1;
            }
            if (room[i].rows && lines > room[i].rows)
                fail_msg("row %d: %d lines in %d", room[i].row, lines, room[i].rows);
            if ((strchr(t, '\x1b') != NULL) != color)
                fail_msg("row %d: color %d, ESC %s", room[i].row, color, color ? "missing" : "");
            if (room[i].rows >= 10 &&
                (!plain_line(t, 0, line, sizeof line) || !number_line(line)))
                fail_msg("row %d: the first line is not the numbers: '%s'", room[i].row, line);
            if (room[i].rows >= 10 && !text_line(t, "I", line, sizeof line))
                fail_msg("row %d: the centre's row I is not on the map:\n%s", room[i].row, t);
        }
    /* 8: a room too small for the key: the map, then a line saying what is cut */
    fit(f, "I-40", 80, 16, 0, 0, 0);
    assert_non_null(strstr(f->out.s, "cut (play: board)\n"));
    assert_null(strstr(f->out.s, "towns:"));
    /* 9: room enough: the stacks nearest the centre listed, the key, the towns */
    fit(f, "I-40", 120, 0, 0, 0, 0);
    assert_non_null(strstr(f->out.s, "units:\n"));
    assert_non_null(strstr(f->out.s, "key: F/P/A"));
    assert_non_null(strstr(f->out.s, "towns:"));
    assert_null(strstr(f->out.s, "cut (play: board)"));

    /* 10: a stack of three totals its factors: Jerome 6 + Foy 5 + Pire 4 */
    struct wl_draw_view saved = f->view;
    wl_sq k40, e43, k41;
    assert_int_equal(wl_grid_parse("K-40", (size_t)-1, &k40), 0);
    assert_int_equal(wl_grid_parse("E-43", (size_t)-1, &e43), 0);
    assert_int_equal(wl_grid_parse("K-41", (size_t)-1, &k41), 0);
    f->view.at[wl_scenario_find_unit(&f->sc, "fr-pire")] = k40;
    fit(f, "I-40", 120, 40, 0, 0, 0);
    assert_non_null(text_line(f->out.s, "K", line, sizeof line));
    if (!strstr(line, "F15"))
        fail_msg("row 10: no F15 on row K: '%s'", line);
    /* 11: the other side's last move marked '+' in the cell's first character */
    f->view.last_move[k41] = 1;
    fit(f, "I-40", 120, 40, 0, 0, 0);
    assert_non_null(strstr(f->out.s, "+ the other side's last move"));
    assert_non_null(text_line(f->out.s, "K", line, sizeof line));
    if (!strstr(line, "+.") && !strstr(line, "+ ") && !strstr(line, "+w") &&
        !strstr(line, "+-") && !strstr(line, "+="))
        fail_msg("row 11: K-41 is not marked: '%s'", line);
    /* 12: colour: a stack on a town keeps the town's background (217), in
     * its nation's colour */
    f->view = saved;
    f->view.at[wl_scenario_find_unit(&f->sc, "fr-pire")] = e43;
    fit(f, "E-43", 120, 0, 1, 0, 0);
    if (!strstr(f->out.s, "48;5;217;38;5;19mF4"))
        fail_msg("row 12: Pire on Waterloo is not drawn on the town's colour:\n%s", f->out.s);
    assert_non_null(strstr(f->out.s, "under a stack, its square's colour"));
    f->view = saved;

    /* 13: the pan moves the window by rows and columns from the centre */
    fit(f, "I-40", 80, 24, 0, 0, 0);
    char top0[64], top1[64], num0[256], num1[256];
    assert_non_null(plain_line(f->out.s, 1, top0, sizeof top0));
    assert_non_null(plain_line(f->out.s, 0, num0, sizeof num0));
    fit(f, "I-40", 80, 24, 0, 0, 3);
    assert_non_null(plain_line(f->out.s, 1, top1, sizeof top1));
    assert_int_equal(row_of(strtok(top1, " ")), row_of(strtok(top0, " ")) + 3);
    fit(f, "I-40", 80, 24, 0, 2, 0);
    assert_non_null(plain_line(f->out.s, 0, num1, sizeof num1));
    assert_string_not_equal(num0, num1);
    /* 14: and stops at the board's edges: the last row is WW, the west edge x 66 */
    fit(f, "I-40", 80, 24, 0, -1000, 1000);
    assert_non_null(text_line(f->out.s, "WW", line, sizeof line));
    assert_null(text_line(f->out.s, "A", line, sizeof line));
    char west[256];
    fit(f, "I-40", 80, 24, 0, -1000, 0);
    assert_non_null(plain_line(f->out.s, 0, west, sizeof west));
    fit(f, "I-40", 80, 24, 0, -999, 0);
    assert_non_null(plain_line(f->out.s, 0, num1, sizeof num1));
    assert_string_equal(west, num1);            /* one step further west: the same */
}

static void test_window_errors(void **state)
{
    (void)state;
    struct wl_draw_window w;
    wl_sq s;
    assert_int_equal(wl_grid_parse("A-1", (size_t)-1, &s), 0);
    assert_int_equal(wl_draw_window_around(&w, s, 3), -1);   /* off the board */
    assert_int_equal(wl_draw_window_around(&w, WL_SQ_NONE, 3), -1);
    assert_int_equal(wl_grid_parse("WW-1", (size_t)-1, &s), 0);
    assert_int_equal(wl_draw_window_around(&w, s, -1), -1);
    assert_int_equal(wl_draw_window_around(&w, s, 5), 0);     /* cut to the board */
    assert_int_equal(w.row_max, 49);
    assert_int_equal(w.x_min, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_svg_well_formed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_svg_towns_and_entries, setup, teardown),
        cmocka_unit_test_setup_teardown(test_svg_counters, setup, teardown),
        cmocka_unit_test_setup_teardown(test_svg_edge_labels, setup, teardown),
        cmocka_unit_test_setup_teardown(test_view_from_state, setup, teardown),
        cmocka_unit_test_setup_teardown(test_text_window, setup, teardown),
        cmocka_unit_test_setup_teardown(test_text_whole_board, setup, teardown),
        cmocka_unit_test_setup_teardown(test_text_fit, setup, teardown),
        cmocka_unit_test(test_window_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
