/*
 * campaign_draw.c - a campaign's map drawn from a projected state: as
 * terminal text (one line per town with its owner and neighbours, or a
 * grid of towns when the lines would not fit) and as SVG (towns at their
 * "x", "y", a road for each adjacency, each town filled with its owner's
 * colour). The state is what the server sends a seat; the map is the
 * scenario's. Pure: the caller's strbuf receives everything.
 */
#include "campaign_internal.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "present.h"
#include "strbuf.h"

#define SVG_W 1000.0            /* width of the picture, at least */
#define SVG_W_MAX 2400.0        /* ... and at most, however crowded the map */
#define SVG_MIN_GAP 40.0        /* distance wanted between the centres of two towns */
#define SVG_MARGIN 70.0
#define SVG_TOP 60.0            /* room for the title and the legend */

/* Each player's colour: SVG fill and ANSI foreground, p1..p8. */
static const struct {
    const char *fill;
    const char *ansi;
} colours[WR_CAMPAIGN_PLAYERS_MAX] = {
    { "#1f77b4", "34" }, { "#d62728", "31" }, { "#2ca02c", "32" }, { "#ff7f0e", "33" },
    { "#9467bd", "35" }, { "#8c564b", "36" }, { "#e377c2", "95" }, { "#17becf", "96" },
};

int cp_state_owner(const json_t *st, const struct wr_campaign_map *m, int t)
{
    const char *o = st ? json_string_value(json_object_get(json_object_get(st, "towns"),
                                                           m->towns[t].name))
                       : NULL;
    if (o == NULL || o[0] != 'p' || o[1] < '1' || o[1] > '8' || o[2] != '\0')
        return -1;
    return o[1] - '1';
}

/* The town of st's attack called key ("target", "counter"), or -1. */
static int attack_town(const json_t *st, const struct wr_campaign_map *m, const char *key)
{
    const char *name = json_string_value(json_object_get(json_object_get(st, "attack"), key));
    return name ? wr_campaign_map_find(m, name) : -1;
}

/* --- text -------------------------------------------------------------------------- */

/* One line of text being written within a width: what does not fit is cut
 * at a character, never inside a UTF-8 sequence. */
struct line {
    struct wr_strbuf *out;
    int cols;                   /* 0: no limit */
    int used;                   /* characters shown */
    int cut;
    int color;
};

static void ln_put(struct line *l, const char *s, const char *ansi)
{
    if (l->cut)
        return;
    if (l->color && ansi)
        wr_strbuf_printf(l->out, "\x1b[%sm", ansi);
    for (const char *p = s; *p; ) {
        size_t n = 1;
        while ((p[n] & 0xc0) == 0x80)
            n++;
        if (l->cols > 0 && l->used >= l->cols) {
            l->cut = 1;
            break;
        }
        wr_strbuf_add(l->out, p, n);
        l->used++;
        p += n;
    }
    if (l->color && ansi)
        wr_strbuf_puts(l->out, "\x1b[0m");
}

static void ln_printf(struct line *l, const char *ansi, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void ln_printf(struct line *l, const char *ansi, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    ln_put(l, buf, ansi);
}

static struct line ln_start(struct wr_strbuf *out, const struct wr_draw_opts *o)
{
    struct line l = { out, o->cols, 0, 0, o->color };
    return l;
}

static void ln_end(struct line *l)
{
    wr_strbuf_puts(l->out, "\n");
}

/* The ANSI colour of owner o (-1: none). */
static const char *owner_ansi(int o)
{
    return o >= 0 ? colours[o].ansi : NULL;
}

/* "T" for the target of the attack, "S" for the town at stake, " " else. */
static const char *mark(int t, int target, int counter)
{
    return t == target ? "T" : t == counter ? "S" : " ";
}

int cp_draw_text(const struct wr_campaign_map *m, const json_t *st, const struct wr_draw_opts *o,
                 struct wr_strbuf *out)
{
    int target = attack_town(st, m, "target"), counter = attack_town(st, m, "counter");
    int nplayers = st ? (int)json_array_size(json_object_get(st, "players")) : 0;
    nplayers = nplayers > WR_CAMPAIGN_PLAYERS_MAX ? WR_CAMPAIGN_PLAYERS_MAX : nplayers;
    int held[WR_CAMPAIGN_PLAYERS_MAX] = { 0 }, nfree = 0, width = 4;
    for (int t = 0; t < m->ntowns; t++) {
        int ow = cp_state_owner(st, m, t);
        if (ow >= 0)
            held[ow]++;
        else
            nfree++;
        int len = (int)strlen(m->towns[t].name);
        width = len > width ? len : width;
    }
    /* The title and the key: two lines. */
    struct line l = ln_start(out, o);
    ln_printf(&l, NULL, "%s: %d towns", m->name, m->ntowns);
    ln_end(&l);
    l = ln_start(out, o);
    ln_put(&l, "key:", NULL);
    for (int p = 0; p < nplayers; p++)
        ln_printf(&l, colours[p].ansi, " p%d %d", p + 1, held[p]);
    ln_printf(&l, NULL, " - free %d", nfree);
    if (target >= 0)
        ln_put(&l, counter >= 0 ? "; T target, S at stake" : "; T target", NULL);
    ln_end(&l);
    int rows = o->rows > 0 ? o->rows - 2 : 0;       /* lines left for the towns */
    if (o->rows > 0 && rows < 1)
        return out->failed ? -1 : 0;
    if (rows == 0 || m->ntowns <= rows) {
        /* One town a line: mark, name, owner, neighbours. */
        for (int t = 0; t < m->ntowns; t++) {
            int ow = cp_state_owner(st, m, t);
            l = ln_start(out, o);
            ln_printf(&l, NULL, "%s %-*s ", mark(t, target, counter), width, m->towns[t].name);
            ln_printf(&l, owner_ansi(ow), "%-2s", ow >= 0 ? cp_pname(ow) : "-");
            ln_put(&l, " :", NULL);
            for (int u = 0, n = 0; u < m->ntowns; u++)
                if (wr_campaign_map_adjacent(m, t, u)) {
                    ln_put(&l, n++ ? ", " : " ", NULL);
                    ln_put(&l, m->towns[u].name, owner_ansi(cp_state_owner(st, m, u)));
                }
            ln_end(&l);
        }
        return out->failed ? -1 : 0;
    }
    /* A grid: as many "mark name owner" cells a line as the width allows
     * (each is width + 5 characters, 3 between two), the last line saying
     * how many towns did not fit. */
    int cell = width + 8, per = o->cols > 0 ? (o->cols + 3) / cell : 4;
    per = per < 1 ? 1 : per;
    int lines = (m->ntowns + per - 1) / per, shown = m->ntowns;
    if (lines > rows) {
        lines = rows;
        shown = (rows - 1) * per;
    }
    for (int i = 0; i < lines; i++) {
        l = ln_start(out, o);
        if (i * per >= shown) {
            ln_printf(&l, NULL, "... %d more towns", m->ntowns - shown);
            ln_end(&l);
            break;
        }
        for (int t = i * per; t < (i + 1) * per && t < shown; t++) {
            int ow = cp_state_owner(st, m, t);
            ln_printf(&l, NULL, "%s%s %-*s ", t > i * per ? "   " : "", mark(t, target, counter),
                      width, m->towns[t].name);
            ln_printf(&l, owner_ansi(ow), "%-2s", ow >= 0 ? cp_pname(ow) : "-");
        }
        ln_end(&l);
    }
    return out->failed ? -1 : 0;
}

/* --- SVG --------------------------------------------------------------------------- */

static double dmin(double a, double b) { return a < b ? a : b; }
static double dmax(double a, double b) { return a > b ? a : b; }

/* Drawing positions: the map's x, y scaled into the picture (y grows
 * downward); towns without a position are lined up below the map. */
static void layout(const struct wr_campaign_map *m, double *px, double *py, double *width,
                   double *height)
{
    double x0 = 1e300, x1 = -1e300, y0 = 1e300, y1 = -1e300;
    int placed = 0;
    for (int t = 0; t < m->ntowns; t++)
        if (m->towns[t].has_xy) {
            placed++;
            x0 = dmin(x0, m->towns[t].x);
            x1 = dmax(x1, m->towns[t].x);
            y0 = dmin(y0, m->towns[t].y);
            y1 = dmax(y1, m->towns[t].y);
        }
    /* Fit the larger side into the picture, or more when two towns would
     * come closer than SVG_MIN_GAP (a crowded map gets a bigger picture). */
    double span = placed ? dmax(x1 - x0, y1 - y0) : 0, closest = 1e300;
    for (int t = 0; t < m->ntowns; t++)
        for (int u = t + 1; u < m->ntowns; u++)
            if (m->towns[t].has_xy && m->towns[u].has_xy) {
                double dx = m->towns[t].x - m->towns[u].x, dy = m->towns[t].y - m->towns[u].y;
                double d2 = dx * dx + dy * dy;
                closest = d2 > 0 ? dmin(closest, d2) : closest;
            }
    double scale = span > 0 ? (SVG_W - 2 * SVG_MARGIN) / span : 1;
    while (closest < 1e300 && closest * scale * scale < SVG_MIN_GAP * SVG_MIN_GAP &&
           span * scale < SVG_W_MAX - 2 * SVG_MARGIN)
        scale *= 1.05;
    double w = placed ? dmax((x1 - x0) * scale, SVG_W - 2 * SVG_MARGIN) : SVG_W - 2 * SVG_MARGIN;
    double h = placed ? (y1 - y0) * scale : 0;
    double row = SVG_TOP + SVG_MARGIN + h + (placed ? SVG_MARGIN : 0);
    int loose = 0;
    for (int t = 0; t < m->ntowns; t++) {
        if (m->towns[t].has_xy) {
            px[t] = SVG_MARGIN + (m->towns[t].x - x0) * scale;
            py[t] = SVG_TOP + SVG_MARGIN + (m->towns[t].y - y0) * scale;
        } else {
            px[t] = SVG_MARGIN + (loose % 6) * (w / 5);
            py[t] = row + (loose / 6) * 50.0;
            loose++;
        }
    }
    *height = (loose ? row + ((loose - 1) / 6) * 50.0 : SVG_TOP + SVG_MARGIN + h) + SVG_MARGIN;
    *width = w + 2 * SVG_MARGIN + 80;      /* room for the names of the easternmost towns */
}

int cp_draw_svg(const struct wr_campaign_map *m, const json_t *st, struct wr_strbuf *b)
{
    double px[WR_CAMPAIGN_TOWNS_MAX], py[WR_CAMPAIGN_TOWNS_MAX], w, h;
    int target = attack_town(st, m, "target"), counter = attack_town(st, m, "counter");
    layout(m, px, py, &w, &h);
    wr_strbuf_printf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                        "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n",
                     w, h, w, h);
    wr_strbuf_puts(b, "<style>.road{stroke:#888;stroke-width:2}.town{stroke:#222;stroke-width:1.5}"
                      ".name{font-size:11px;fill:#111}.legend{font-size:14px}"
                      ".stake{fill:none;stroke:#000;stroke-width:2;stroke-dasharray:4 3}</style>\n");
    wr_strbuf_printf(b, "<rect width=\"%.0f\" height=\"%.0f\" fill=\"#f7f3e8\"/>\n", w, h);
    wr_strbuf_puts(b, "<text x=\"20\" y=\"30\" font-size=\"20\">");
    wr_strbuf_xml(b, m->name);
    wr_strbuf_puts(b, "</text>\n");
    /* The legend: each player's colour and towns held. */
    int held[WR_CAMPAIGN_PLAYERS_MAX] = { 0 }, nfree = 0;
    for (int t = 0; t < m->ntowns; t++) {
        int o = cp_state_owner(st, m, t);
        if (o >= 0)
            held[o]++;
        else
            nfree++;
    }
    int nplayers = st ? (int)json_array_size(json_object_get(st, "players")) : 0;
    double lx = 20;
    for (int p = 0; p < nplayers && p < WR_CAMPAIGN_PLAYERS_MAX; p++, lx += 110)
        wr_strbuf_printf(b, "<circle cx=\"%.0f\" cy=\"50\" r=\"7\" fill=\"%s\" class=\"town\"/>"
                            "<text class=\"legend\" x=\"%.0f\" y=\"55\">p%d: %d</text>\n",
                         lx + 7, colours[p].fill, lx + 20, p + 1, held[p]);
    wr_strbuf_printf(b, "<circle cx=\"%.0f\" cy=\"50\" r=\"7\" fill=\"#fff\" class=\"town\"/>"
                        "<text class=\"legend\" x=\"%.0f\" y=\"55\">free: %d</text>\n",
                     lx + 7, lx + 20, nfree);
    /* Adjacency, each pair once. */
    wr_strbuf_puts(b, "<g class=\"roads\">\n");
    for (int t = 0; t < m->ntowns; t++)
        for (int u = t + 1; u < m->ntowns; u++)
            if (wr_campaign_map_adjacent(m, t, u))
                wr_strbuf_printf(b, "<line class=\"road\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                                    "y2=\"%.1f\"/>\n", px[t], py[t], px[u], py[u]);
    wr_strbuf_puts(b, "</g>\n<g class=\"towns\">\n");
    for (int t = 0; t < m->ntowns; t++) {
        int o = cp_state_owner(st, m, t);
        /* named as the orders take it (present.h: data-word) */
        wr_strbuf_printf(b, "<g class=\"town-%s\" data-word=\"", o >= 0 ? "owned" : "free");
        wr_strbuf_xml(b, m->towns[t].name);
        wr_strbuf_printf(b, "\"><circle class=\"town\" cx=\"%.1f\" cy=\"%.1f\" r=\"9\" "
                            "fill=\"%s\"><title>", px[t], py[t],
                         o >= 0 ? colours[o].fill : "#ffffff");
        wr_strbuf_xml(b, m->towns[t].name);
        if (o >= 0)
            wr_strbuf_printf(b, ": p%d", o + 1);
        if (t == target || t == counter)
            wr_strbuf_puts(b, t == target ? " (the target)" : " (at stake)");
        /* The name goes to the right of the town, or above it when another
         * town sits there. */
        int crowded = 0;
        for (int u = 0; u < m->ntowns && !crowded; u++)
            crowded = u != t && py[u] - py[t] < 14 && py[t] - py[u] < 14 && px[u] > px[t] &&
                      px[u] - px[t] < 110;
        wr_strbuf_puts(b, "</title></circle>");
        if (t == target || t == counter)
            wr_strbuf_printf(b, "<circle class=\"stake\" cx=\"%.1f\" cy=\"%.1f\" r=\"14\"/>", px[t],
                             py[t]);
        if (crowded)
            wr_strbuf_printf(b, "<text class=\"name\" text-anchor=\"middle\" x=\"%.1f\" "
                                "y=\"%.1f\">", px[t], py[t] - 13);
        else
            wr_strbuf_printf(b, "<text class=\"name\" x=\"%.1f\" y=\"%.1f\">", px[t] + 12,
                             py[t] + 4);
        wr_strbuf_xml(b, m->towns[t].name);
        wr_strbuf_puts(b, "</text></g>\n");
    }
    wr_strbuf_puts(b, "</g>\n</svg>\n");
    return b->failed ? -1 : 0;
}
