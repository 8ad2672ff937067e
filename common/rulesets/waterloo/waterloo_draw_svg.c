/*
 * waterloo_draw_svg.c - the whole board as one SVG document (waterloo_draw.h):
 * terrain, slopes, roads and rivers (waterloo_draw_lines.c), bridges,
 * exits, towns, entries, the coordinates on the edges and each square's
 * id inside it, a counter per unit (a stack with its strongest counter on
 * top and its total factors), the last move, a legend, and beside them the
 * combat results table, the arrivals still to come by turn and the
 * eliminated pile of each side.
 *
 * Nothing here does I/O: everything is appended to a wr_strbuf.
 */
#include "waterloo_draw_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Corner k of the hex around (cx, cy): 0 top, then clockwise. Hexside d
 * (enum wl_dir) runs from corner d to corner d + 1. */
static void corner(double cx, double cy, int k, double *x, double *y)
{
    static const double fx[6] = { 0, 1, 1, 0, -1, -1 };
    static const double fy[6] = { -1, -0.5, 0.5, 1, 0.5, -0.5 };
    *x = cx + fx[k % 6] * WL_SVG_HALF_W;
    *y = cy + fy[k % 6] * WL_SVG_HEX_R;
}

/* --- SVG -------------------------------------------------------------------- */

#define SVG_LEGEND_X (WL_DRAW_BOARD_RIGHT + 150.0)
#define SVG_PANEL_X (SVG_LEGEND_X + 250.0)      /* the CRT, arrivals and eliminated */
#define SVG_PANEL_W 330.0
#define SVG_WIDTH (SVG_PANEL_X + SVG_PANEL_W + 20.0)
#define SVG_HEIGHT (WL_DRAW_BOARD_BOTTOM + 50.0)        /* at least: the panel may need more */
#define SVG_MINI 0.75                           /* scale of the counters beside the board */
#define SVG_MINI_STEP 19.0                      /* their spacing in a row */

static const char svg_style[] =
    "<style>\n"
    "text{font-family:'DejaVu Sans',Verdana,Arial,sans-serif}\n"
    ".h{stroke:#8d8a78;stroke-width:.6}\n"
    ".cl{fill:#f4efd8}.wd{fill:#8dbf6a}.sl{fill:#c9a477}.ht{fill:#ecdcae}"
    ".pt{fill:#cfcfcc}\n"
    ".hs{stroke:#5a3618;stroke-width:3.2;stroke-linecap:round;fill:none}\n"
    ".rv{stroke:#2f74d0;stroke-width:3.6;fill:none;stroke-linecap:round;"
    "stroke-linejoin:round}\n"
    ".r2a{stroke:#5e1f0f;stroke-width:6;fill:none;stroke-linecap:round;"
    "stroke-linejoin:round}\n"
    ".r2b{stroke:#f6e3c2;stroke-width:2.2;fill:none;stroke-linecap:round;"
    "stroke-linejoin:round}\n"
    ".r1{stroke:#6e3517;stroke-width:2.2;fill:none;stroke-dasharray:5.2 3.46}\n"
    ".br{fill:none;stroke:#111;stroke-width:1.6}\n"
    ".ex{fill:none;stroke:#1f4fa8;stroke-width:2.4;stroke-dasharray:4 2}\n"
    ".tn{fill:#222;stroke:#fff;stroke-width:1}\n"
    ".tl{font-size:9.5px;font-weight:bold;fill:#1a1a1a;stroke:#fff;stroke-width:2.6px;"
    "paint-order:stroke;stroke-linejoin:round}\n"
    ".co{font-size:11px;font-weight:bold;fill:#333;text-anchor:middle}\n"
    ".en{font-size:11px;font-style:italic;font-weight:bold;fill:#6a1b9a}\n"
    ".em{fill:#6a1b9a}\n"
    ".fr{fill:#2a5db0}.pr{fill:#2e7d32}.aa{fill:#c62828}\n"
    ".cb{stroke:#111;stroke-width:.7}\n"
    ".cs{stroke:#fff;stroke-width:1;fill:none}\n"
    ".ct{font-size:8px;font-weight:bold;fill:#fff;text-anchor:middle}\n"
    ".lg{font-size:11px;fill:#222}\n"
    ".lh{font-size:13px;font-weight:bold;fill:#222}\n"
    ".sq{font-size:5px;fill:#8f8a72;text-anchor:middle}\n"
    ".sf{fill:#fff;stroke:#111;stroke-width:.8}\n"
    ".sn{font-size:7.5px;font-weight:bold;fill:#111;text-anchor:middle}\n"
    ".lm{stroke:#e65100;stroke-width:2.6;fill:none;stroke-dasharray:6 3;"
    "stroke-linecap:round}\n"
    ".lmr{fill:none;stroke:#e65100;stroke-width:2.4}\n"
    ".lmf{fill:none;stroke:#e65100;stroke-width:1.4;stroke-dasharray:3 2}\n"
    ".reach{fill:#ffd400;fill-opacity:.45;stroke:#7a5c00;stroke-width:1.6}\n"
    ".ph{font-size:13px;font-weight:bold;fill:#222}\n"
    ".pt2{font-size:10.5px;fill:#333}\n"
    ".ps{font-size:10px;font-style:italic;fill:#555}\n"
    ".crh{font-size:9px;font-weight:bold;fill:#222;text-anchor:middle}\n"
    ".crc{font-size:8.5px;fill:#111;text-anchor:middle}\n"
    ".ra{fill:#f3c5c0}.rd{fill:#c8dcf0}.rx{fill:#e4e4e0}\n"
    "</style>\n";

static void hex_path(struct wr_strbuf *b, double cx, double cy, double scale, const char *cls)
{
    wr_strbuf_printf(b, "<path class=\"h %s\" d=\"M%.1f %.1f", cls, cx,
                     cy - WL_SVG_HEX_R * scale);
    for (int k = 1; k < 6; k++) {
        double x, y;
        corner(0, 0, k, &x, &y);
        wr_strbuf_printf(b, "L%.1f %.1f", cx + x * scale, cy + y * scale);
    }
    wr_strbuf_puts(b, "Z\"/>\n");
}

static void hex_polygon(struct wr_strbuf *b, double cx, double cy, const char *cls)
{
    hex_path(b, cx, cy, 1.0, cls);
}

/* A square's hex, named for a host by its square (data-word, present.h). */
static void hex_square(struct wr_strbuf *b, wl_sq s, double cx, double cy, const char *cls)
{
    char name[WL_SQ_NAME_MAX];
    wr_strbuf_printf(b, "<path class=\"h %s\" data-word=\"%s\" d=\"M%.1f %.1f", cls,
                     wl_grid_name(s, name), cx, cy - WL_SVG_HEX_R);
    for (int k = 1; k < 6; k++) {
        double x, y;
        corner(0, 0, k, &x, &y);
        wr_strbuf_printf(b, "L%.1f %.1f", cx + x, cy + y);
    }
    wr_strbuf_puts(b, "Z\"/>\n");
}

static const char *terrain_class(const struct wl_map *m, wl_sq s)
{
    const struct wl_cell *c = &m->cell[s];
    if (wl_grid_partial(s))
        return "pt";
    if (c->woods)
        return "wd";
    if (c->slope_high)
        return "sl";
    if (c->hilltop)
        return "ht";
    return "cl";
}

/* The counter's type symbol, centred at (0, -4) in counter coordinates. */
static void counter_symbol(struct wr_strbuf *b, int type)
{
    if (type == WL_HQ) {
        /* a flag on a staff */
        wr_strbuf_puts(b, "<path class=\"cs\" d=\"M-4 -1V-9\"/>"
                          "<path fill=\"#fff\" d=\"M-4 -9H5L3 -6.5L5 -4H-4Z\"/>");
        return;
    }
    wr_strbuf_puts(b, "<rect class=\"cs\" x=\"-7\" y=\"-8.5\" width=\"14\" height=\"8\"/>");
    switch (type) {
    case WL_INFANTRY:
        wr_strbuf_puts(b, "<path class=\"cs\" d=\"M-7 -8.5L7 -0.5M-7 -0.5L7 -8.5\"/>");
        break;
    case WL_CAVALRY:
        wr_strbuf_puts(b, "<path class=\"cs\" d=\"M-7 -0.5L7 -8.5\"/>");
        break;
    case WL_ARTILLERY:
        wr_strbuf_puts(b, "<circle fill=\"#fff\" cx=\"0\" cy=\"-4.5\" r=\"2\"/>");
        break;
    default: /* horse artillery: cavalry slash and gun dot */
        wr_strbuf_puts(b, "<path class=\"cs\" d=\"M-7 -0.5L7 -8.5\"/>"
                          "<circle fill=\"#fff\" cx=\"0\" cy=\"-4.5\" r=\"2\"/>");
        break;
    }
}

static const char *nation_class(int nation)
{
    switch (nation) {
    case WL_NATION_FRENCH: return "fr";
    case WL_NATION_PRUSSIAN: return "pr";
    default: return "aa";
    }
}

/* A unit's name and factors for its <title>: "Jerome (infantry 6-4)". */
static void counter_title(struct wr_strbuf *b, const struct wl_unit_def *u)
{
    wr_strbuf_xml(b, u->name);
    if (u->type == WL_HQ)
        wr_strbuf_printf(b, " (HQ, move %d)", u->move);
    else
        wr_strbuf_printf(b, " (%s %d-%d)", wl_draw_type_words(u->type), u->combat, u->move);
}

/* The counter itself, centred on (0, 0): its colour, symbol and factors. */
static void counter_face(struct wr_strbuf *b, const struct wl_unit_def *u)
{
    double h = WL_SVG_COUNTER / 2;
    wr_strbuf_printf(b, "<rect class=\"cb %s\" x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" "
                        "height=\"%.0f\" rx=\"1.5\"/>",
                     nation_class(u->nation), -h, -h, WL_SVG_COUNTER, WL_SVG_COUNTER);
    counter_symbol(b, u->type);
    if (u->type == WL_HQ)
        wr_strbuf_puts(b, "<text class=\"ct\" y=\"8.5\">HQ</text>");
    else
        wr_strbuf_printf(b, "<text class=\"ct\" y=\"8.5\">%d-%d</text>", u->combat, u->move);
}

/* A small counter off the board (arrivals, eliminated), in a group of
 * class cls centred on (x, y). */
static void mini_counter(struct wr_strbuf *b, const struct wl_unit_def *u, double x, double y,
                         const char *cls)
{
    wr_strbuf_printf(b, "<g class=\"%s\" transform=\"translate(%.1f %.1f) scale(%.2f)\">"
                        "<title>", cls, x, y, SVG_MINI);
    counter_title(b, u);
    wr_strbuf_puts(b, "</title>");
    counter_face(b, u);
    wr_strbuf_puts(b, "</g>\n");
}

/* A unit's counter: its words for a host (present.h, draw_svg): the unit
 * id it is named by, and in a view's picture the query its selection asks
 * and the order its clicks start (act, enum wl_draw_act). */
static void counter(struct wr_strbuf *b, const struct wl_unit_def *u, wl_sq at, double x,
                    double y, int mine, int select, int act)
{
    char sqname[WL_SQ_NAME_MAX];
    wr_strbuf_puts(b, "<g class=\"unit\" id=\"u-");
    wr_strbuf_xml(b, u->id);
    wr_strbuf_printf(b, "\" transform=\"translate(%.2f %.2f)\" data-word=\"", x, y);
    wr_strbuf_xml(b, u->id);
    if (select) {
        wr_strbuf_puts(b, "\" data-select=\"reach ");
        wr_strbuf_xml(b, u->id);
    }
    if (wl_draw_act_name(act)) {
        wr_strbuf_printf(b, "\" data-act=\"%s ", wl_draw_act_name(act));
        wr_strbuf_xml(b, u->id);
    }
    wr_strbuf_puts(b, "\"><title>");
    counter_title(b, u);
    wr_strbuf_printf(b, " %s</title>", wl_grid_name(at, sqname));
    counter_face(b, u);
    double h = WL_SVG_COUNTER / 2;
    if (mine)
        wr_strbuf_printf(b, "<rect class=\"mine\" x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" "
                            "height=\"%.0f\" rx=\"2\" fill=\"none\" stroke=\"#ffd400\" "
                            "stroke-width=\"2\"/>", -h - 1, -h - 1, WL_SVG_COUNTER + 2,
                         WL_SVG_COUNTER + 2);
    wr_strbuf_puts(b, "</g>\n");
}

/* The units of the stack on s, in drawing order: the weakest first, the
 * strongest last (on top), scenario order among equals. Returns n. */
static int stack_order(const struct wl_scenario *sc, const struct wl_draw_stacks *st, wl_sq s,
                       int16_t *order)
{
    int n = 0;
    for (int i = st->first[s]; i >= 0; i = st->next[i]) {
        int k = n++;
        while (k > 0 && sc->units[order[k - 1]].combat > sc->units[i].combat) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = (int16_t)i;
    }
    return n;
}

/* Each stack's counters, then, on a stack of two or more with factors,
 * a disc with its total at the top right of its top counter. */
static void svg_units(struct wr_strbuf *b, const struct wl_scenario *sc,
                      const struct wl_draw_stacks *st, const struct wl_draw_view *v)
{
    int16_t order[WL_MAX_UNITS];
    wr_strbuf_puts(b, "<g id=\"units\">\n");
    for (wl_sq s = 0; s < WL_NSQ; s++) {
        if (st->count[s] == 0)
            continue;
        double cx, cy;
        wl_draw_svg_centre(s, &cx, &cy);
        int n = stack_order(sc, st, s, order);
        for (int k = 0; k < n; k++) {
            double o = (k - (n - 1) / 2.0) * WL_SVG_STACK_STEP;
            counter(b, &sc->units[order[k]], s, cx + o, cy - o, v->mine[order[k]], v->select,
                    v->act[order[k]]);
        }
        if (n < 2 || st->factors[s] == 0)
            continue;
        char sqname[WL_SQ_NAME_MAX];
        double o = (n - 1) / 2.0 * WL_SVG_STACK_STEP, h = WL_SVG_COUNTER / 2;
        wr_strbuf_printf(b, "<g class=\"stack\" id=\"st-%s\"><title>%d units, %d combat "
                            "factors</title><circle class=\"sf\" cx=\"%.1f\" cy=\"%.1f\" "
                            "r=\"6.5\"/><text class=\"sn\" x=\"%.1f\" y=\"%.1f\">%d</text>"
                            "</g>\n",
                         wl_grid_name(s, sqname), n, st->factors[s], cx + o + h, cy - o - h,
                         cx + o + h, cy - o - h + 2.7, st->factors[s]);
    }
    wr_strbuf_puts(b, "</g>\n");
}

/* The last move the view marks: for each unit with a from square, a
 * dashed outline on where it came from, an arrow to where it stands and
 * an outline on that square (each pair of squares once). */
static void svg_last_move(struct wr_strbuf *b, const struct wl_scenario *sc,
                          const struct wl_draw_view *v)
{
    wr_strbuf_puts(b, "<g id=\"last-move\">\n");
    for (int i = 0; i < sc->nunits; i++) {
        wl_sq from = v->from[i], to = v->at[i];
        if (from == WL_SQ_NONE || to == WL_SQ_NONE || from == to)
            continue;
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = v->from[j] == from && v->at[j] == to;
        if (seen)
            continue;
        double x0, y0, x1, y1;
        wl_draw_svg_centre(from, &x0, &y0);
        wl_draw_svg_centre(to, &x1, &y1);
        char a[WL_SQ_NAME_MAX], z[WL_SQ_NAME_MAX];
        wr_strbuf_printf(b, "<g class=\"move\"><title>last move: %s to %s</title>",
                         wl_grid_name(from, a), wl_grid_name(to, z));
        hex_path(b, x0, y0, 0.9, "lmf");
        hex_path(b, x1, y1, 0.95, "lmr");
        wr_strbuf_printf(b, "<path class=\"lm\" marker-end=\"url(#lm-head)\" "
                            "d=\"M%.1f %.1fL%.1f %.1f\"/></g>\n", x0, y0, x1, y1);
    }
    wr_strbuf_puts(b, "</g>\n");
}

/* The squares a reach query marked (v->highlight): a hex of class
 * "reach" on each, over the board and under the counters. */
static void svg_reach(struct wr_strbuf *b, const struct wl_draw_view *v)
{
    wr_strbuf_puts(b, "<g id=\"reach\">\n");
    for (wl_sq s = 0; s < WL_NSQ; s++) {
        if (!v->highlight[s] || !wl_grid_on_board(s))
            continue;
        double cx, cy;
        wl_draw_svg_centre(s, &cx, &cy);
        hex_path(b, cx, cy, 0.85, "reach");
    }
    wr_strbuf_puts(b, "</g>\n");
}

static void svg_board(struct wr_strbuf *b, const struct wl_scenario *sc)
{
    const struct wl_map *m = &sc->map;
    wr_strbuf_printf(b, "<defs><clipPath id=\"board\"><rect x=\"%.1f\" y=\"%.1f\" "
                        "width=\"%.1f\" height=\"%.1f\"/></clipPath>"
                        /* the head drawn back from the line's end (a counter's
                         * half and more, in units of the stroke's width) */
                        "<marker id=\"lm-head\" viewBox=\"0 0 10 10\" refX=\"22\" refY=\"5\" "
                        "markerWidth=\"4\" markerHeight=\"4\" orient=\"auto\">"
                        "<path d=\"M0 0L10 5L0 10Z\" fill=\"#e65100\"/></marker></defs>\n",
                     WL_DRAW_BOARD_LEFT, WL_DRAW_BOARD_TOP, WL_DRAW_BOARD_RIGHT - WL_DRAW_BOARD_LEFT, WL_DRAW_BOARD_BOTTOM - WL_DRAW_BOARD_TOP);
    wr_strbuf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                        "fill=\"#e2e2de\"/>\n",
                     WL_DRAW_BOARD_LEFT, WL_DRAW_BOARD_TOP, WL_DRAW_BOARD_RIGHT - WL_DRAW_BOARD_LEFT, WL_DRAW_BOARD_BOTTOM - WL_DRAW_BOARD_TOP);
    wr_strbuf_puts(b, "<g clip-path=\"url(#board)\">\n<g id=\"terrain\">\n");
    for (wl_sq s = 0; s < WL_NSQ; s++) {
        if (!wl_grid_on_board(s))
            continue;
        double cx, cy;
        wl_draw_svg_centre(s, &cx, &cy);
        hex_square(b, s, cx, cy, terrain_class(m, s));
    }
    wr_strbuf_puts(b, "</g>\n");

    /* The high hexsides of slopes. */
    wr_strbuf_puts(b, "<path class=\"hs\" d=\"");
    for (wl_sq s = 0; s < WL_NSQ; s++) {
        unsigned hi = m->cell[s].slope_high;
        if (!hi || !wl_grid_on_board(s))
            continue;
        double cx, cy, x0, y0, x1, y1;
        wl_draw_svg_centre(s, &cx, &cy);
        for (int d = 0; d < WL_NDIR; d++) {
            if (!(hi & (1u << d)))
                continue;
            corner(cx, cy, d, &x0, &y0);
            corner(cx, cy, d + 1, &x1, &y1);
            /* a little inside the hex, so both sides of a ridge show */
            x0 += (cx - x0) * 0.08;
            y0 += (cy - y0) * 0.08;
            x1 += (cx - x1) * 0.08;
            y1 += (cy - y1) * 0.08;
            wr_strbuf_printf(b, "M%.1f %.1fL%.1f %.1f", x0, y0, x1, y1);
        }
    }
    wr_strbuf_puts(b, "\"/>\n");

    wl_draw_svg_lines(b, m);

    /* French exit squares. */
    wr_strbuf_puts(b, "<g id=\"exits\">\n");
    for (wl_sq s = 0; s < WL_NSQ; s++) {
        if (!m->cell[s].exit)
            continue;
        double cx, cy;
        wl_draw_svg_centre(s, &cx, &cy);
        hex_polygon(b, cx, cy, "ex");
        wr_strbuf_printf(b, "<path fill=\"#1f4fa8\" d=\"M%.1f %.1fl5 7h-10z\"/>\n", cx,
                         cy - WL_SVG_HEX_R + 4);
    }
    wr_strbuf_puts(b, "</g>\n");

    /* Town dots. */
    wr_strbuf_puts(b, "<g id=\"towns\">\n");
    for (int i = 0; i < m->ntowns; i++) {
        double cx, cy;
        wl_draw_svg_centre(m->towns[i].at, &cx, &cy);
        wr_strbuf_printf(b, "<circle class=\"tn\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\"/>\n", cx, cy);
    }
    wr_strbuf_puts(b, "</g>\n");

    /* Entry markers: an arrow into the board on the partial square. */
    wr_strbuf_puts(b, "<g id=\"entry-marks\">\n");
    for (int i = 0; i < m->nentries; i++) {
        wl_sq s = m->entries[i].at;
        double cx, cy;
        wl_draw_svg_centre(s, &cx, &cy);
        int x = wl_grid_x(s);
        if (wl_sq_row(s) == 0)          /* north edge: arrow pointing south */
            wr_strbuf_printf(b, "<path class=\"em\" d=\"M%.1f %.1fl-7 -9h14z\"/>\n", cx,
                             cy + 10);
        else if (x >= WL_DRAW_XMAX)            /* west edge: pointing east */
            wr_strbuf_printf(b, "<path class=\"em\" d=\"M%.1f %.1fl-9 -7v14z\"/>\n", cx + 10,
                             cy);
        else                            /* east edge: pointing west */
            wr_strbuf_printf(b, "<path class=\"em\" d=\"M%.1f %.1fl9 -7v14z\"/>\n", cx - 10,
                             cy);
    }
    wr_strbuf_puts(b, "</g>\n");

    /* Each square's id, small and light, low in its hex (under a counter's
     * foot, above the hex's lower corner). */
    wr_strbuf_puts(b, "<g id=\"square-ids\">\n");
    for (wl_sq s = 0; s < WL_NSQ; s++) {
        if (!wl_grid_on_board(s))
            continue;
        double cx, cy;
        char name[WL_SQ_NAME_MAX];
        wl_draw_svg_centre(s, &cx, &cy);
        wr_strbuf_printf(b, "<text class=\"sq\" x=\"%.1f\" y=\"%.1f\">%s</text>\n", cx,
                         cy + 16.2, wl_grid_name(s, name));
    }
    wr_strbuf_puts(b, "</g>\n</g>\n");
    wr_strbuf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                        "fill=\"none\" stroke=\"#333\" stroke-width=\"1.5\"/>\n",
                     WL_DRAW_BOARD_LEFT, WL_DRAW_BOARD_TOP, WL_DRAW_BOARD_RIGHT - WL_DRAW_BOARD_LEFT, WL_DRAW_BOARD_BOTTOM - WL_DRAW_BOARD_TOP);
}

/* Row names on the east and west edges, diagonal numbers on the north and
 * south edges (each placed on its diagonal, continued off the board). */
static void svg_coordinates(struct wr_strbuf *b)
{
    wr_strbuf_puts(b, "<g id=\"coordinates\">\n");
    for (int r = 0; r <= 49; r++) {
        char name[4];
        wl_draw_row_name(r, name);
        double y = WL_SVG_ORIGIN_Y + r * WL_SVG_ROW_H + 4;
        wr_strbuf_printf(b, "<text class=\"co\" x=\"%.1f\" y=\"%.1f\">%s</text>"
                            "<text class=\"co\" x=\"%.1f\" y=\"%.1f\">%s</text>\n",
                         WL_DRAW_BOARD_LEFT - 14, y, name, WL_DRAW_BOARD_RIGHT + 14, y, name);
    }
    /* North: every diagonal with a square in row A; south: in row WW. */
    for (int c = 1; c <= 57; c++) {
        const double dy_n = -16, dy_s = WL_SVG_HEX_R / 2 + 18;
        if (wl_grid_on_board(wl_sq_make(1, c))) {
            double rr = dy_n / WL_SVG_ROW_H;    /* rows, from row 0 */
            double x = WL_SVG_ORIGIN_X + (WL_DRAW_XMAX - (2 * c + rr - 51)) * WL_SVG_HALF_W;
            wr_strbuf_printf(b, "<text class=\"co\" x=\"%.1f\" y=\"%.1f\">%d</text>\n", x,
                             WL_SVG_ORIGIN_Y + dy_n + 4, c);
        }
        if (wl_grid_on_board(wl_sq_make(49, c))) {
            double rr = 49 + dy_s / WL_SVG_ROW_H;
            double x = WL_SVG_ORIGIN_X + (WL_DRAW_XMAX - (2 * c + rr - 51)) * WL_SVG_HALF_W;
            wr_strbuf_printf(b, "<text class=\"co\" x=\"%.1f\" y=\"%.1f\">%d</text>\n", x,
                             WL_SVG_ORIGIN_Y + 49 * WL_SVG_ROW_H + dy_s + 4, c);
        }
    }
    wr_strbuf_puts(b, "</g>\n");
}

/* Town names are placed one by one where they cover the least: beside the
 * dot in one of a few positions, avoiding counters, dots, names already
 * placed and the board's edge. Sizes are estimates (no font metrics). */
struct box {
    double x0, y0, x1, y1;
};

#define NAME_FONT 9.5
#define NAME_CHAR_W 6.0         /* average advance of the bold name font */

static double overlap(const struct box *a, const struct box *b)
{
    double w = (a->x1 < b->x1 ? a->x1 : b->x1) - (a->x0 > b->x0 ? a->x0 : b->x0);
    double h = (a->y1 < b->y1 ? a->y1 : b->y1) - (a->y0 > b->y0 ? a->y0 : b->y0);
    return w > 0 && h > 0 ? w * h : 0;
}

static int utf8_chars(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

static void svg_labels(struct wr_strbuf *b, const struct wl_map *m,
                       const struct wl_draw_stacks *st)
{
    int cap = WL_NSQ + 2 * WL_MAX_TOWNS, nob = 0;
    struct box *ob = malloc((size_t)cap * sizeof *ob);
    if (ob == NULL) {
        b->failed = 1;
        return;
    }
    for (wl_sq s = 0; s < WL_NSQ; s++) {
        if (!st->count[s])
            continue;
        double cx, cy, h = WL_SVG_COUNTER / 2 + (st->count[s] - 1) / 2.0 * WL_SVG_STACK_STEP;
        wl_draw_svg_centre(s, &cx, &cy);
        ob[nob++] = (struct box){ cx - h, cy - h, cx + h, cy + h };
    }
    for (int i = 0; i < m->ntowns; i++) {
        double cx, cy;
        wl_draw_svg_centre(m->towns[i].at, &cx, &cy);
        ob[nob++] = (struct box){ cx - 4, cy - 4, cx + 4, cy + 4 };
    }
    const struct box board = { WL_DRAW_BOARD_LEFT + 2, WL_DRAW_BOARD_TOP + 2, WL_DRAW_BOARD_RIGHT - 2,
                               WL_DRAW_BOARD_BOTTOM - 2 };
    /* candidate positions: baseline offset from the centre and anchor
     * (-1: the name starts there, 0: centred, 1: it ends there) */
    static const struct { double dx, dy; int anchor; } pos[] = {
        { 0, -12.5, 0 }, { 0, 21, 0 }, { 7, 3.5, -1 }, { -7, 3.5, 1 }, { 14, 3.5, -1 },
        { -14, 3.5, 1 }, { 6, -12.5, -1 }, { -6, -12.5, 1 }, { 6, 21, -1 }, { -6, 21, 1 },
        { 0, -22, 0 }, { 0, 31, 0 },
    };
    static const char *const anchors[] = { "start", "middle", "end" };   /* anchor + 1 */
    wr_strbuf_puts(b, "<g id=\"town-names\">\n");
    for (int i = 0; i < m->ntowns; i++) {
        double cx, cy;
        wl_draw_svg_centre(m->towns[i].at, &cx, &cy);
        double w = utf8_chars(m->towns[i].name) * NAME_CHAR_W;
        double best = -1;
        struct box pick = { 0, 0, 0, 0 };
        size_t bestk = 0;
        for (size_t k = 0; k < sizeof pos / sizeof pos[0]; k++) {
            double bx = cx + pos[k].dx, by = cy + pos[k].dy;
            double x0 = pos[k].anchor < 0 ? bx : pos[k].anchor > 0 ? bx - w : bx - w / 2;
            struct box t = { x0 - 1, by - NAME_FONT * 0.78, x0 + w + 1, by + NAME_FONT * 0.25 };
            double cost = 0;
            for (int j = 0; j < nob; j++)
                cost += overlap(&t, &ob[j]);
            double inside = overlap(&t, &board);
            cost += ((t.x1 - t.x0) * (t.y1 - t.y0) - inside) * 4;  /* off the board */
            cost += k * 0.5;    /* prefer the earlier positions a little */
            if (best < 0 || cost < best) {
                best = cost;
                pick = t;
                bestk = k;
            }
        }
        if (nob < cap)
            ob[nob++] = pick;
        wr_strbuf_printf(b, "<text class=\"tl\" text-anchor=\"%s\" x=\"%.1f\" y=\"%.1f\">",
                         anchors[pos[bestk].anchor + 1], cx + pos[bestk].dx,
                         cy + pos[bestk].dy);
        wr_strbuf_xml(b, m->towns[i].name);
        wr_strbuf_puts(b, "</text>\n");
    }
    free(ob);
    wr_strbuf_puts(b, "</g>\n<g id=\"entries\">\n");
    for (int i = 0; i < m->nentries; i++) {
        wl_sq s = m->entries[i].at;
        double cx, cy;
        wl_draw_svg_centre(s, &cx, &cy);
        int x = wl_grid_x(s);
        char sqname[WL_SQ_NAME_MAX];
        wl_grid_name(s, sqname);
        if (wl_sq_row(s) == 0) {
            wr_strbuf_printf(b, "<text class=\"en\" text-anchor=\"middle\" x=\"%.1f\" "
                                "y=\"%.1f\">", cx, WL_SVG_ORIGIN_Y - 36);
            wr_strbuf_xml(b, m->entries[i].name);
            wr_strbuf_printf(b, " (%s)</text>\n", sqname);
            continue;
        }
        /* east or west edge: the name, and the square under it */
        double tx = x >= WL_DRAW_XMAX ? WL_DRAW_BOARD_LEFT - 30 : WL_DRAW_BOARD_RIGHT + 30;
        const char *anchor = x >= WL_DRAW_XMAX ? "end" : "start";
        wr_strbuf_printf(b, "<text class=\"en\" text-anchor=\"%s\" x=\"%.1f\" y=\"%.1f\">",
                         anchor, tx, cy - 2);
        wr_strbuf_xml(b, m->entries[i].name);
        wr_strbuf_printf(b, "</text><text class=\"en\" text-anchor=\"%s\" x=\"%.1f\" "
                            "y=\"%.1f\">(%s)</text>\n", anchor, tx, cy + 10, sqname);
    }
    wr_strbuf_puts(b, "</g>\n");
}

/* The legend's contents, from (x, y) down; returns the y below them. */
static double legend_items(struct wr_strbuf *b, const struct wl_scenario *sc,
                           const struct wl_draw_view *v, double x, double y)
{
    wr_strbuf_printf(b, "<text class=\"lh\" x=\"%.1f\" y=\"%.1f\">Terrain</text>\n", x,
                     y + 10);
    static const struct { const char *cls, *text; } sw[] = {
        { "cl", "clear" }, { "wd", "woods" }, { "sl", "slope (thick side: high)" },
        { "ht", "hill top" }, { "pt", "partial edge square" },
    };
    y += 30;
    for (size_t i = 0; i < sizeof sw / sizeof sw[0]; i++, y += 26) {
        hex_path(b, x + 12, y, 0.55, sw[i].cls);
        if (strcmp(sw[i].cls, "sl") == 0)
            wr_strbuf_printf(b, "<path class=\"hs\" d=\"M%.1f %.1fL%.1f %.1f\"/>\n", x + 12,
                             y - WL_SVG_HEX_R * 0.55, x + 12 + WL_SVG_HALF_W * 0.55,
                             y - WL_SVG_HEX_R * 0.275);
        wr_strbuf_printf(b, "<text class=\"lg\" x=\"%.1f\" y=\"%.1f\">%s</text>\n", x + 36,
                         y + 4, sw[i].text);
    }
    static const struct { const char *cls, *text; } ln[] = {
        { "rv", "river" }, { "r2a", "primary road" }, { "r1", "secondary road" },
    };
    y += 4;
    for (size_t i = 0; i < sizeof ln / sizeof ln[0]; i++, y += 22) {
        wr_strbuf_printf(b, "<path class=\"%s\" d=\"M%.1f %.1fh30\"/>\n", ln[i].cls, x - 2, y);
        if (strcmp(ln[i].cls, "r2a") == 0)
            wr_strbuf_printf(b, "<path class=\"r2b\" d=\"M%.1f %.1fh30\"/>\n", x - 2, y);
        wr_strbuf_printf(b, "<text class=\"lg\" x=\"%.1f\" y=\"%.1f\">%s</text>\n", x + 36,
                         y + 4, ln[i].text);
    }
    wr_strbuf_printf(b, "<path class=\"rv\" d=\"M%.1f %.1fv22\"/><path class=\"r2a\" "
                        "d=\"M%.1f %.1fh30\"/><path class=\"r2b\" d=\"M%.1f %.1fh30\"/>"
                        "<path class=\"br\" d=\"M%.1f %.1fh20M%.1f %.1fh20\"/>\n",
                     x + 13, y - 11, x - 2, y, x - 2, y, x + 3, y - 5.5, x + 3, y + 5.5);
    wr_strbuf_printf(b, "<text class=\"lg\" x=\"%.1f\" y=\"%.1f\">bridge</text>\n", x + 36,
                     y + 4);
    y += 26;
    wr_strbuf_printf(b, "<circle class=\"tn\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\"/>"
                        "<text class=\"lg\" x=\"%.1f\" y=\"%.1f\">town</text>\n",
                     x + 12, y, x + 36, y + 4);
    y += 24;
    wr_strbuf_printf(b, "<path class=\"em\" d=\"M%.1f %.1fl-9 -7v14z\"/>"
                        "<text class=\"lg\" x=\"%.1f\" y=\"%.1f\">entry for reinforcements</text>\n",
                     x + 17, y, x + 36, y + 4);
    y += 28;
    hex_path(b, x + 12, y, 0.75, "cl");
    hex_path(b, x + 12, y, 0.75, "ex");
    wr_strbuf_printf(b, "<path fill=\"#1f4fa8\" d=\"M%.1f %.1fl4 5.5h-8z\"/>"
                        "<text class=\"lg\" x=\"%.1f\" y=\"%.1f\">French exit square</text>\n",
                     x + 12, y - WL_SVG_HEX_R * 0.75 + 3, x + 36, y + 4);
    y += 26;
    wr_strbuf_printf(b, "<text class=\"lg\" x=\"%.1f\" y=\"%.1f\">Squares: row letter (A..WW, "
                        "edges</text>\n<text class=\"lg\" x=\"%.1f\" y=\"%.1f\">left and right) "
                        "- diagonal number</text>\n<text class=\"lg\" x=\"%.1f\" y=\"%.1f\">"
                        "(1..57, top and bottom): X-27.</text>\n",
                     x, y, x, y + 15, x, y + 30);
    y += 60;
    wr_strbuf_printf(b, "<text class=\"lh\" x=\"%.1f\" y=\"%.1f\">Units</text>\n", x, y);
    y += 26;
    static const struct { int nation; const char *text; } na[] = {
        { WL_NATION_FRENCH, "French" }, { WL_NATION_PRUSSIAN, "Prussian" },
        { WL_NATION_ANGLO_ALLIED, "Anglo-Allied" },
    };
    for (size_t i = 0; i < 3; i++, y += 28) {
        wr_strbuf_printf(b, "<rect class=\"cb %s\" x=\"%.1f\" y=\"%.1f\" width=\"22\" "
                            "height=\"22\" rx=\"1.5\"/><text class=\"lg\" x=\"%.1f\" "
                            "y=\"%.1f\">%s</text>\n",
                         nation_class(na[i].nation), x + 1, y - 11, x + 36, y + 4, na[i].text);
    }
    static const struct { int type; const char *text; } ty[] = {
        { WL_INFANTRY, "infantry" }, { WL_CAVALRY, "cavalry" }, { WL_ARTILLERY, "artillery" },
        { WL_HORSE_ARTILLERY, "horse artillery" }, { WL_HQ, "headquarters (HQ)" },
    };
    for (size_t i = 0; i < sizeof ty / sizeof ty[0]; i++, y += 28) {
        struct wl_unit_def u;
        memset(&u, 0, sizeof u);
        snprintf(u.id, sizeof u.id, "legend-%d", ty[i].type);
        snprintf(u.name, sizeof u.name, "%s", ty[i].text);
        u.type = (uint8_t)ty[i].type;
        u.nation = WL_NATION_FRENCH;
        u.combat = ty[i].type == WL_HQ ? 0 : 6;
        u.move = ty[i].type == WL_CAVALRY || ty[i].type == WL_HORSE_ARTILLERY ? 6 : 4;
        /* not a "unit" group: the legend's samples are not on the board */
        wr_strbuf_printf(b, "<g transform=\"translate(%.1f %.1f)\"><rect class=\"cb fr\" "
                            "x=\"-11\" y=\"-11\" width=\"22\" height=\"22\" rx=\"1.5\"/>",
                         x + 12, y);
        counter_symbol(b, u.type);
        if (u.type == WL_HQ)
            wr_strbuf_puts(b, "<text class=\"ct\" y=\"8.5\">HQ</text>");
        else
            wr_strbuf_printf(b, "<text class=\"ct\" y=\"8.5\">%d-%d</text>", u.combat, u.move);
        wr_strbuf_printf(b, "</g><text class=\"lg\" x=\"%.1f\" y=\"%.1f\">", x + 36, y + 4);
        wr_strbuf_xml(b, u.name);
        wr_strbuf_puts(b, "</text>\n");
    }
    wr_strbuf_printf(b, "<text class=\"lg\" x=\"%.1f\" y=\"%.1f\">6-4: combat factor - "
                        "movement factor</text>\n", x, y);
    y += 18;
    wr_strbuf_printf(b, "<circle class=\"sf\" cx=\"%.1f\" cy=\"%.1f\" r=\"6.5\"/>"
                        "<text class=\"sn\" x=\"%.1f\" y=\"%.1f\">11</text>"
                        "<text class=\"lg\" x=\"%.1f\" y=\"%.1f\">a stack's combat factors"
                        "</text>\n<text class=\"lg\" x=\"%.1f\" y=\"%.1f\">(its strongest "
                        "counter on top)</text>\n",
                     x + 12, y, x + 12, y + 2.7, x + 36, y + 4, x + 36, y + 18);
    y += 34;
    wr_strbuf_printf(b, "<path class=\"lm\" marker-end=\"url(#lm-head)\" "
                        "d=\"M%.1f %.1fh26\"/><text class=\"lg\" x=\"%.1f\" y=\"%.1f\">"
                        "the last move</text>\n", x - 2, y, x + 36, y + 4);
    y += 22;
    hex_path(b, x + 12, y, 0.75, "cl");
    wr_strbuf_printf(b, "<text class=\"sq\" x=\"%.1f\" y=\"%.1f\" "
                        "style=\"font-size:6px\">G-41</text><text class=\"lg\" x=\"%.1f\" "
                        "y=\"%.1f\">a square's id, low in it</text>\n",
                     x + 12, y + 11, x + 36, y + 4);
    y += 30;
    int onboard = 0;
    for (int i = 0; i < sc->nunits; i++)
        onboard += v->at[i] != WL_SQ_NONE;
    wr_strbuf_printf(b, "<text class=\"lg\" x=\"%.1f\" y=\"%.1f\">On the board: %d "
                        "units</text>\n", x, y, onboard);
    y += 18;
    wr_strbuf_printf(b, "<text class=\"lg\" x=\"%.1f\" y=\"%.1f\">Still to arrive: %d</text>\n",
                     x, y, v->pending);
    y += 18;
    if (v->eliminated || v->exited) {
        wr_strbuf_printf(b, "<text class=\"lg\" x=\"%.1f\" y=\"%.1f\">Eliminated: %d, "
                            "exited: %d</text>\n", x, y, v->eliminated, v->exited);
        y += 18;
    }
    return y;
}

static void svg_legend(struct wr_strbuf *b, const struct wl_scenario *sc,
                       const struct wl_draw_view *v)
{
    struct wr_strbuf items;
    wr_strbuf_init(&items);
    double x = SVG_LEGEND_X, y = WL_SVG_ORIGIN_Y;
    double bottom = legend_items(&items, sc, v, x, y);
    wr_strbuf_printf(b, "<g id=\"legend\">\n<rect x=\"%.1f\" y=\"%.1f\" width=\"230\" "
                        "height=\"%.1f\" fill=\"#fafaf7\" stroke=\"#999\"/>\n",
                     x - 10, y - 10, bottom - y + 6);
    if (items.failed)
        b->failed = 1;
    else if (items.s)
        wr_strbuf_add(b, items.s, items.len);
    wr_strbuf_release(&items);
    wr_strbuf_puts(b, "</g>\n");
}

/* --- beside the board: the CRT, the arrivals, the eliminated ---------------- */

/* The result's cell colour: bad for the attacker, for the defender, both. */
static const char *result_class(int r)
{
    switch (r) {
    case WL_AE: case WL_AB2: return "ra";
    case WL_DE: case WL_DB2: return "rd";
    default: return "rx";
    }
}

/* The combat results table as the scenario gives it, from (x, y) down;
 * returns the y below it. */
static double panel_crt(struct wr_strbuf *b, const struct wl_scenario *sc, double x, double y)
{
    const double cw = 27, ch = 15, dw = 22;
    wr_strbuf_printf(b, "<g id=\"crt\">\n<text class=\"ph\" x=\"%.1f\" y=\"%.1f\">"
                        "Combat results%s</text>\n", x, y + 10,
                     sc->crt_reconstructed ? " (reconstructed)" : "");
    y += 20;
    wr_strbuf_printf(b, "<text class=\"crh\" x=\"%.1f\" y=\"%.1f\">die</text>\n",
                     x + dw / 2, y + 10);
    for (int c = 0; c < WL_CRT_COLS; c++)
        wr_strbuf_printf(b, "<text class=\"crh\" x=\"%.1f\" y=\"%.1f\">%s</text>\n",
                         x + dw + c * cw + cw / 2, y + 10, wl_crt_label(c));
    y += ch;
    for (int r = 0; r < WL_CRT_ROWS; r++, y += ch) {
        wr_strbuf_printf(b, "<text class=\"crh\" x=\"%.1f\" y=\"%.1f\">%d</text>\n",
                         x + dw / 2, y + 10.5, r + 1);
        for (int c = 0; c < WL_CRT_COLS; c++) {
            int res = sc->crt[r][c];
            wr_strbuf_printf(b, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                                "height=\"%.1f\" stroke=\"#fff\"/><text class=\"crc\" "
                                "x=\"%.1f\" y=\"%.1f\">%s</text>\n",
                             result_class(res), x + dw + c * cw, y, cw, ch,
                             x + dw + c * cw + cw / 2, y + 10.5, wl_result_code(res));
        }
    }
    y += 6;
    wr_strbuf_printf(b, "<text class=\"ps\" x=\"%.1f\" y=\"%.1f\">odds attacker-defender; "
                        "A attacker, D defender,</text>\n<text class=\"ps\" x=\"%.1f\" "
                        "y=\"%.1f\">E eliminated, B2 back 2 squares, EX exchange</text>\n"
                        "</g>\n", x, y + 8, x, y + 21);
    return y + 34;
}

/* Units in rows of small counters from (x, y) on, at most per_row a row;
 * returns the y below them. */
static double mini_rows(struct wr_strbuf *b, const struct wl_scenario *sc, const int16_t *list,
                        int n, double x, double y, const char *cls)
{
    const int per_row = (int)((SVG_PANEL_W - 12) / SVG_MINI_STEP);
    for (int k = 0; k < n; k++)
        mini_counter(b, &sc->units[list[k]], x + 9 + (k % per_row) * SVG_MINI_STEP,
                     y + 9 + (k / per_row) * SVG_MINI_STEP, cls);
    return y + ((n + per_row - 1) / per_row) * SVG_MINI_STEP + 2;
}

/* The units still to arrive, by turn and entry, the turn's date beside it
 * ("due" when its turn has come and the unit is still off the board). */
static double panel_arrivals(struct wr_strbuf *b, const struct wl_scenario *sc,
                             const struct wl_draw_view *v, double x, double y)
{
    int16_t list[WL_MAX_UNITS];
    wr_strbuf_printf(b, "<g id=\"arrivals\">\n<text class=\"ph\" x=\"%.1f\" y=\"%.1f\">"
                        "Still to arrive</text>\n", x, y + 10);
    y += 18;
    int any = 0;
    for (int t = 1; t <= WL_MAX_TURNS; t++) {
        for (int e = -1; e < sc->map.nentries; e++) {
            int n = 0;
            for (int i = 0; i < sc->nunits; i++)
                if (v->off[i] == WL_DRAW_PENDING && sc->units[i].arrive_turn == t &&
                    sc->units[i].entry == e)
                    list[n++] = (int16_t)i;
            if (n == 0)
                continue;
            any = 1;
            char sqname[WL_SQ_NAME_MAX];
            wr_strbuf_printf(b, "<g class=\"arrival\" data-turn=\"%d\"><text class=\"pt2\" "
                                "x=\"%.1f\" y=\"%.1f\"><tspan font-weight=\"bold\">Turn %d"
                                "</tspan>", t, x, y + 10, t);
            if (t <= sc->nturns)
                wr_strbuf_printf(b, ", %s %s", sc->turns[t - 1].date, sc->turns[t - 1].time);
            if (t <= v->turn)
                wr_strbuf_puts(b, " (due)");
            if (e >= 0) {
                wr_strbuf_puts(b, ": ");
                wr_strbuf_xml(b, sc->map.entries[e].name);
                wr_strbuf_printf(b, " (%s)", wl_grid_name(sc->map.entries[e].at, sqname));
            }
            wr_strbuf_puts(b, "</text>\n");
            y = mini_rows(b, sc, list, n, x, y + 14, "arrive");
            wr_strbuf_puts(b, "</g>\n");
            y += 4;
        }
    }
    if (!any) {
        wr_strbuf_printf(b, "<text class=\"ps\" x=\"%.1f\" y=\"%.1f\">nobody: every "
                            "reinforcement has come</text>\n", x, y + 10);
        y += 16;
    }
    wr_strbuf_puts(b, "</g>\n");
    return y + 10;
}

/* The units eliminated (and those that left the board), by side, with
 * their counts and combat factors. */
static double panel_gone(struct wr_strbuf *b, const struct wl_scenario *sc,
                         const struct wl_draw_view *v, double x, double y)
{
    static const struct { int off; const char *title, *id; } piles[] = {
        { WL_DRAW_ELIMINATED, "Eliminated", "eliminated" },
        { WL_DRAW_EXITED, "Exited off the board", "exited" },
    };
    int16_t list[WL_MAX_UNITS];
    for (size_t p = 0; p < sizeof piles / sizeof piles[0]; p++) {
        int total = 0;
        for (int i = 0; i < sc->nunits; i++)
            total += v->off[i] == piles[p].off;
        if (total == 0 && piles[p].off == WL_DRAW_EXITED)
            continue;                   /* nobody has left: no heading */
        wr_strbuf_printf(b, "<g id=\"%s\">\n<text class=\"ph\" x=\"%.1f\" y=\"%.1f\">%s"
                            "</text>\n", piles[p].id, x, y + 10, piles[p].title);
        y += 18;
        for (int side = 0; side < WL_NSIDES; side++) {
            int n = 0, factors = 0;
            for (int i = 0; i < sc->nunits; i++)
                if (v->off[i] == piles[p].off && sc->units[i].side == side) {
                    list[n++] = (int16_t)i;
                    factors += sc->units[i].combat;
                }
            wr_strbuf_printf(b, "<text class=\"pt2\" data-side=\"%s\" data-factors=\"%d\" "
                                "x=\"%.1f\" y=\"%.1f\"><tspan font-weight=\"bold\">%s"
                                "</tspan>: %d unit%s, %d factor%s</text>\n",
                             wl_side_name(side), factors, x, y + 10,
                             side == WL_FRENCH ? "French" : "Allied", n, n == 1 ? "" : "s",
                             factors, factors == 1 ? "" : "s");
            y = mini_rows(b, sc, list, n, x, y + 14, piles[p].id);
            y += 4;
        }
        wr_strbuf_puts(b, "</g>\n");
        y += 8;
    }
    return y;
}

/* The panel beside the legend; returns the y below it. */
static double svg_panel(struct wr_strbuf *b, const struct wl_scenario *sc,
                        const struct wl_draw_view *v)
{
    double x = SVG_PANEL_X, y = WL_SVG_ORIGIN_Y;
    y = panel_crt(b, sc, x, y);
    y = panel_arrivals(b, sc, v, x, y);
    return panel_gone(b, sc, v, x, y);
}

int wl_draw_svg(struct wr_strbuf *out, const struct wl_scenario *sc,
                const struct wl_draw_view *v)
{
    struct wl_draw_view *setup = NULL;
    struct wl_draw_stacks *st = malloc(sizeof *st);
    if (v == NULL) {
        setup = malloc(sizeof *setup);
        if (setup)
            wl_draw_view_setup(setup, sc, NULL);
        v = setup;
    }
    if (st == NULL || v == NULL) {
        free(st);
        free(setup);
        out->failed = 1;
        return -1;
    }
    wl_draw_stacks_build(sc, v, st);
    struct wr_strbuf panel;
    wr_strbuf_init(&panel);
    double height = svg_panel(&panel, sc, v) + 20;
    if (height < SVG_HEIGHT)
        height = SVG_HEIGHT;

    wr_strbuf_printf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
                          "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\"%s>\n",
                     SVG_WIDTH, height, SVG_WIDTH, height,
                     v->select ? " data-clear=\"clear\"" : "");
    wr_strbuf_puts(out, "<title>");
    wr_strbuf_xml(out, sc->name);
    wr_strbuf_puts(out, "</title>\n");
    wr_strbuf_puts(out, svg_style);
    wr_strbuf_printf(out, "<rect width=\"%.0f\" height=\"%.0f\" fill=\"#fff\"/>\n", SVG_WIDTH,
                     height);
    wr_strbuf_printf(out, "<text x=\"%.1f\" y=\"30\" font-size=\"22\" font-weight=\"bold\" "
                          "fill=\"#222\">", WL_DRAW_BOARD_LEFT);
    wr_strbuf_xml(out, sc->name);
    wr_strbuf_printf(out, "</text>\n<text x=\"%.1f\" y=\"50\" font-size=\"13\" fill=\"#444\">",
                     WL_DRAW_BOARD_LEFT);
    wr_strbuf_xml(out, v->caption);
    wr_strbuf_puts(out, "</text>\n");
    svg_board(out, sc);
    svg_coordinates(out);
    svg_last_move(out, sc, v);
    svg_reach(out, v);
    svg_units(out, sc, st, v);
    svg_labels(out, &sc->map, st);
    svg_legend(out, sc, v);
    if (panel.failed)
        out->failed = 1;
    else if (panel.s)
        wr_strbuf_add(out, panel.s, panel.len);
    wr_strbuf_release(&panel);
    wr_strbuf_puts(out, "</svg>\n");
    free(st);
    free(setup);
    return out->failed ? -1 : 0;
}
