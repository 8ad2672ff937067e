/*
 * waterloo_draw_svg.c - the whole board as one SVG document (waterloo_draw.h):
 * terrain, slopes, roads and rivers (waterloo_draw_lines.c), bridges,
 * exits, towns, entries, the coordinates on the edges, a counter per unit
 * and a legend.
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
#define SVG_WIDTH (SVG_LEGEND_X + 250.0)
#define SVG_HEIGHT (WL_DRAW_BOARD_BOTTOM + 50.0)

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

static void counter(struct wr_strbuf *b, const struct wl_unit_def *u, wl_sq at, double x,
                    double y, int mine)
{
    char sqname[WL_SQ_NAME_MAX];
    wr_strbuf_puts(b, "<g class=\"unit\" id=\"u-");
    wr_strbuf_xml(b, u->id);
    wr_strbuf_printf(b, "\" transform=\"translate(%.2f %.2f)\"><title>", x, y);
    wr_strbuf_xml(b, u->name);
    if (u->type == WL_HQ)
        wr_strbuf_printf(b, " (HQ, move %d) %s", u->move, wl_grid_name(at, sqname));
    else
        wr_strbuf_printf(b, " (%s %d-%d) %s", wl_draw_type_words(u->type), u->combat, u->move,
                         wl_grid_name(at, sqname));
    double h = WL_SVG_COUNTER / 2;
    wr_strbuf_printf(b, "</title><rect class=\"cb %s\" x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" "
                        "height=\"%.0f\" rx=\"1.5\"/>",
                     nation_class(u->nation), -h, -h, WL_SVG_COUNTER, WL_SVG_COUNTER);
    counter_symbol(b, u->type);
    if (u->type == WL_HQ)
        wr_strbuf_puts(b, "<text class=\"ct\" y=\"8.5\">HQ</text>");
    else
        wr_strbuf_printf(b, "<text class=\"ct\" y=\"8.5\">%d-%d</text>", u->combat, u->move);
    if (mine)
        wr_strbuf_printf(b, "<rect class=\"mine\" x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" "
                            "height=\"%.0f\" rx=\"2\" fill=\"none\" stroke=\"#ffd400\" "
                            "stroke-width=\"2\"/>", -h - 1, -h - 1, WL_SVG_COUNTER + 2,
                         WL_SVG_COUNTER + 2);
    wr_strbuf_puts(b, "</g>\n");
}

static void svg_units(struct wr_strbuf *b, const struct wl_scenario *sc,
                      const struct wl_draw_stacks *st, const struct wl_draw_view *v)
{
    wr_strbuf_puts(b, "<g id=\"units\">\n");
    for (wl_sq s = 0; s < WL_NSQ; s++) {
        int n = st->count[s];
        if (n == 0)
            continue;
        double cx, cy;
        wl_draw_svg_centre(s, &cx, &cy);
        int k = 0;
        for (int i = st->first[s]; i >= 0; i = st->next[i], k++) {
            double o = (k - (n - 1) / 2.0) * WL_SVG_STACK_STEP;
            counter(b, &sc->units[i], s, cx + o, cy - o, v != NULL && v->mine[i]);
        }
    }
    wr_strbuf_puts(b, "</g>\n");
}

static void svg_board(struct wr_strbuf *b, const struct wl_scenario *sc)
{
    const struct wl_map *m = &sc->map;
    wr_strbuf_printf(b, "<defs><clipPath id=\"board\"><rect x=\"%.1f\" y=\"%.1f\" "
                        "width=\"%.1f\" height=\"%.1f\"/></clipPath></defs>\n",
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
        hex_polygon(b, cx, cy, terrain_class(m, s));
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
    wr_strbuf_printf(b, "<text class=\"lg\" x=\"%.1f\" y=\"%.1f\">Stacks are drawn "
                        "offset.</text>\n", x, y);
    y += 26;
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

    wr_strbuf_printf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
                          "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n",
                     SVG_WIDTH, SVG_HEIGHT, SVG_WIDTH, SVG_HEIGHT);
    wr_strbuf_puts(out, "<title>");
    wr_strbuf_xml(out, sc->name);
    wr_strbuf_puts(out, "</title>\n");
    wr_strbuf_puts(out, svg_style);
    wr_strbuf_printf(out, "<rect width=\"%.0f\" height=\"%.0f\" fill=\"#fff\"/>\n", SVG_WIDTH,
                     SVG_HEIGHT);
    wr_strbuf_printf(out, "<text x=\"%.1f\" y=\"30\" font-size=\"22\" font-weight=\"bold\" "
                          "fill=\"#222\">", WL_DRAW_BOARD_LEFT);
    wr_strbuf_xml(out, sc->name);
    wr_strbuf_printf(out, "</text>\n<text x=\"%.1f\" y=\"50\" font-size=\"13\" fill=\"#444\">",
                     WL_DRAW_BOARD_LEFT);
    wr_strbuf_xml(out, v->caption);
    wr_strbuf_puts(out, "</text>\n");
    svg_board(out, sc);
    svg_coordinates(out);
    svg_units(out, sc, st, v);
    svg_labels(out, &sc->map, st);
    svg_legend(out, sc, v);
    wr_strbuf_puts(out, "</svg>\n");
    free(st);
    free(setup);
    return out->failed ? -1 : 0;
}
