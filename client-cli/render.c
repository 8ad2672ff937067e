/*
 * render.c - the board as SVG and as terminal text (render.h).
 *
 * Both pictures are built from the same reading of the map: terrain per
 * square, roads as links across hexsides, rivers as links between
 * neighbouring squares of one river (a spanning tree of each river, so a
 * river drawn through a clump of squares stays one line). In the SVG a
 * linked square draws one piece from the middle of one linked hexside to
 * the middle of another, bent through the centre (a quadratic curve), so
 * pieces of neighbouring squares meet on their common hexside with the same
 * direction and a road or river reads as one smooth line. A road or river
 * that ends on the board edge is carried on to the edge.
 *
 * Nothing here does I/O: everything is appended to a wr_strbuf.
 */
#include "render.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NXMAX 66                /* x of the west edge */

/* --- geometry ------------------------------------------------------------- */

static const int dir_dr[WL_NDIR] = { -1, 0, 1, 1, 0, -1 };
static const int dir_dc[WL_NDIR] = { 0, -1, -1, 0, 1, 1 };

static int x_rc(int r, int c) { return 2 * c + r - 51; }

static void centre_rc(int r, int c, double *x, double *y)
{
    *x = WR_SVG_ORIGIN_X + (NXMAX - x_rc(r, c)) * WR_SVG_HALF_W;
    *y = WR_SVG_ORIGIN_Y + r * WR_SVG_ROW_H;
}

void wr_render_svg_centre(wl_sq s, double *x, double *y)
{
    centre_rc(wl_sq_row(s), wl_sq_col(s), x, y);
}

/* Corner k of the hex around (cx, cy): 0 top, then clockwise. Hexside d
 * (enum wl_dir) runs from corner d to corner d + 1. */
static void corner(double cx, double cy, int k, double *x, double *y)
{
    static const double fx[6] = { 0, 1, 1, 0, -1, -1 };
    static const double fy[6] = { -1, -0.5, 0.5, 1, 0.5, -0.5 };
    *x = cx + fx[k % 6] * WR_SVG_HALF_W;
    *y = cy + fy[k % 6] * WR_SVG_HEX_R;
}

/* Middle of hexside d of square s (half way to the neighbour's centre),
 * or, with f = 1, the neighbour's centre itself (in or out of the frame). */
static void towards(wl_sq s, int d, double f, double *x, double *y)
{
    int r = wl_sq_row(s), c = wl_sq_col(s);
    double ax, ay, bx, by;
    centre_rc(r, c, &ax, &ay);
    centre_rc(r + dir_dr[d], c + dir_dc[d], &bx, &by);
    *x = ax + (bx - ax) * f * 0.5;
    *y = ay + (by - ay) * f * 0.5;
}

#define BOARD_LEFT WR_SVG_ORIGIN_X
#define BOARD_RIGHT (WR_SVG_ORIGIN_X + NXMAX * WR_SVG_HALF_W)
#define BOARD_TOP WR_SVG_ORIGIN_Y
#define BOARD_BOTTOM (WR_SVG_ORIGIN_Y + 49 * WR_SVG_ROW_H + WR_SVG_HEX_R / 2)

/* --- links: roads and rivers ---------------------------------------------- */

/* Which hexsides of each square a line of one class crosses. Road classes
 * are the road kinds; river links are one class. out[s] has bit d set when
 * the line runs from s through hexside d; ext[s] has bit d set when it is
 * carried on from s through hexside d to the board edge. */
struct links {
    uint8_t road[3][WL_NSQ];    /* [kind] */
    uint8_t river[WL_NSQ];
    uint8_t join[WL_NSQ];       /* a tributary's end to the river it meets */
    uint8_t pin_road[WL_NSQ];   /* squares a road passes exactly through */
    uint8_t pin_river[WL_NSQ];  /* squares a river passes exactly through */
    uint8_t seen[WL_NSQ];       /* scratch for river_links */
    wl_sq queue[WL_NSQ];
};

static int popcount6(unsigned m)
{
    int n = 0;
    for (int d = 0; d < WL_NDIR; d++)
        n += (m >> d) & 1;
    return n;
}

static int first_dir(unsigned m)
{
    for (int d = 0; d < WL_NDIR; d++)
        if (m & (1u << d))
            return d;
    return -1;
}

/* Spanning tree of each river (breadth first from an end square, the one
 * with the fewest river neighbours), so a river crossing a clump of three
 * mutually adjacent squares is still drawn as one line. */
static void river_links(const struct wl_map *m, struct links *L)
{
    uint8_t *seen = L->seen;
    wl_sq *queue = L->queue;
    memset(L->seen, 0, sizeof L->seen);
    for (;;) {
        /* an unvisited river square with the fewest same-river neighbours */
        wl_sq start = WL_SQ_NONE;
        int best = 7;
        for (wl_sq s = 0; s < WL_NSQ; s++) {
            int id = m->cell[s].river;
            if (!id || seen[s] || !wl_grid_on_board(s))
                continue;
            int n = 0;
            for (int d = 0; d < WL_NDIR; d++) {
                wl_sq t = wl_grid_neighbour(s, d);
                if (t != WL_SQ_NONE && wl_grid_on_board(t) && m->cell[t].river == id)
                    n++;
            }
            if (n < best) {
                best = n;
                start = s;
            }
        }
        if (start == WL_SQ_NONE)
            break;
        int head = 0, tail = 0;
        queue[tail++] = start;
        seen[start] = 1;
        while (head < tail) {
            wl_sq s = queue[head++];
            for (int d = 0; d < WL_NDIR; d++) {
                wl_sq t = wl_grid_neighbour(s, d);
                if (t == WL_SQ_NONE || !wl_grid_on_board(t) || seen[t] ||
                    m->cell[t].river != m->cell[s].river)
                    continue;
                seen[t] = 1;
                queue[tail++] = t;
                L->river[s] |= (uint8_t)(1u << d);
                L->river[t] |= (uint8_t)(1u << wl_dir_opposite(d));
            }
        }
    }
    /* A river that ends beside another river flows into it. */
    for (wl_sq s = 0; s < WL_NSQ; s++) {
        int id = m->cell[s].river;
        if (!id || !wl_grid_on_board(s) || popcount6(L->river[s]) > 1)
            continue;
        for (int d = 0; d < WL_NDIR; d++) {
            wl_sq t = wl_grid_neighbour(s, d);
            if (t != WL_SQ_NONE && wl_grid_on_board(t) && m->cell[t].river &&
                m->cell[t].river != id) {
                L->join[s] |= (uint8_t)(1u << d);
                break;
            }
        }
    }
}

static void build_links(const struct wl_map *m, struct links *L)
{
    memset(L, 0, sizeof *L);
    for (wl_sq s = 0; s < WL_NSQ; s++) {
        if (!wl_grid_on_board(s))
            continue;
        for (int d = 0; d < WL_NDIR; d++) {
            int k = wl_map_road_kind(m, s, d);
            if (k > 0 && k < 3)
                L->road[k][s] |= (uint8_t)(1u << d);
        }
    }
    river_links(m, L);
    for (wl_sq s = 0; s < WL_NSQ; s++) {
        const struct wl_cell *c = &m->cell[s];
        int fixed = c->town >= 0 || c->bridge;
        L->pin_road[s] = (uint8_t)(fixed || (L->road[1][s] && L->road[2][s]));
        L->pin_river[s] = (uint8_t)(L->pin_river[s] || fixed);
        if (L->join[s]) {
            wl_sq t = wl_grid_neighbour(s, first_dir(L->join[s]));
            L->pin_river[t] = 1;
        }
    }
}

/* Where a line that ends on s (one link, through hexside d) goes on to the
 * edge: the opposite hexside, when the square beyond it is not playable.
 * Returns the direction, or -1. */
static int edge_extension(wl_sq s, unsigned mask)
{
    if (popcount6(mask) != 1)
        return -1;
    int e = wl_dir_opposite(first_dir(mask));
    wl_sq t = wl_grid_neighbour(s, e);
    if (wl_grid_playable(s) && t != WL_SQ_NONE && wl_grid_playable(t))
        return -1;
    return e;
}

/* Path data for one class of line. The links are walked into chains of
 * square centres between squares where the line branches or ends; each
 * chain is smoothed once (every inner point moves to a quarter of each
 * neighbour and half itself, which straightens the zigzag of a line running
 * north-south across the rows) and drawn as quadratic curves through the
 * midpoints, so it bends without corners. Pinned squares (towns, bridges,
 * junctions with other lines) are not moved by the smoothing, so a line
 * keeps close to a town's dot and passes through it when it runs straight.
 * A chain ending on the board edge is carried on to the edge; a chain
 * ending at join[s] runs on into the other river. */
struct chain {
    double x[WL_NSQ + 4], y[WL_NSQ + 4];
    double sx[WL_NSQ + 4], sy[WL_NSQ + 4];      /* smoothed */
    uint8_t fixed[WL_NSQ + 4];
    int n;
};

static void chain_add(struct chain *ch, double x, double y, int fixed)
{
    if (ch->n >= WL_NSQ + 4)
        return;
    ch->x[ch->n] = x;
    ch->y[ch->n] = y;
    ch->fixed[ch->n] = (uint8_t)fixed;
    ch->n++;
}

static void chain_draw(struct wr_strbuf *b, struct chain *ch)
{
    int n = ch->n;
    if (n < 2)
        return;
    double *sx = ch->sx, *sy = ch->sy;
    for (int i = 0; i < n; i++) {
        sx[i] = ch->x[i];
        sy[i] = ch->y[i];
        if (i > 0 && i < n - 1 && !ch->fixed[i]) {
            sx[i] = (ch->x[i - 1] + 2 * ch->x[i] + ch->x[i + 1]) / 4;
            sy[i] = (ch->y[i - 1] + 2 * ch->y[i] + ch->y[i + 1]) / 4;
        }
    }
    wr_strbuf_printf(b, "M%.1f %.1f", sx[0], sy[0]);
    if (n == 2) {
        wr_strbuf_printf(b, "L%.1f %.1f", sx[1], sy[1]);
        return;
    }
    wr_strbuf_printf(b, "L%.1f %.1f", (sx[0] + sx[1]) / 2, (sy[0] + sy[1]) / 2);
    for (int i = 1; i < n - 1; i++)
        wr_strbuf_printf(b, "Q%.1f %.1f %.1f %.1f", sx[i], sy[i], (sx[i] + sx[i + 1]) / 2,
                         (sy[i] + sy[i + 1]) / 2);
    wr_strbuf_printf(b, "L%.1f %.1f", sx[n - 1], sy[n - 1]);
}

/* The end of a chain at square s: carried on to the edge, or into the
 * river it joins (the point is appended). */
static void chain_end(struct chain *ch, wl_sq s, const uint8_t *mask, const uint8_t *join)
{
    double x, y;
    if (join && join[s]) {
        towards(s, first_dir(join[s]), 2, &x, &y);
        chain_add(ch, x, y, 1);
        return;
    }
    int e = edge_extension(s, mask[s]);
    if (e >= 0) {
        towards(s, e, 2, &x, &y);
        chain_add(ch, x, y, 1);
    }
}

/* Walk from s through hexside d until the line branches, ends or comes
 * back to s; used[] marks the hexsides walked. */
static void walk(struct wr_strbuf *b, struct chain *ch, wl_sq s, int d, const uint8_t *mask,
                 const uint8_t *pin, const uint8_t *join, uint8_t *used)
{
    double x, y;
    ch->n = 0;
    if (popcount6(mask[s]) == 1)
        chain_end(ch, s, mask, join);   /* the outer end first */
    wr_render_svg_centre(s, &x, &y);
    chain_add(ch, x, y, 1);
    wl_sq cur = s, end = WL_SQ_NONE;
    for (;;) {
        used[cur] |= (uint8_t)(1u << d);
        wl_sq nxt = wl_grid_neighbour(cur, d);
        if (nxt == WL_SQ_NONE)
            break;
        used[nxt] |= (uint8_t)(1u << wl_dir_opposite(d));
        wr_render_svg_centre(nxt, &x, &y);
        int deg = popcount6(mask[nxt]);
        chain_add(ch, x, y, nxt == s || deg != 2 || pin[nxt]);
        end = nxt;
        if (nxt == s || deg != 2)
            break;
        int nd = first_dir(mask[nxt] & ~(1u << wl_dir_opposite(d)));
        if (nd < 0 || (used[nxt] & (1u << nd)))
            break;
        cur = nxt;
        d = nd;
    }
    if (end != WL_SQ_NONE && end != s && popcount6(mask[end]) == 1)
        chain_end(ch, end, mask, join);
    chain_draw(b, ch);
}

static void line_chains(struct wr_strbuf *b, const uint8_t *mask, const uint8_t *pin,
                        const uint8_t *join)
{
    struct chain *ch = malloc(sizeof *ch);
    uint8_t *used = calloc(WL_NSQ, 1);
    if (ch == NULL || used == NULL) {
        free(ch);
        free(used);
        b->failed = 1;
        return;
    }
    /* chains from every end or branch, then the closed loops left */
    for (int pass = 0; pass < 2; pass++) {
        for (wl_sq s = 0; s < WL_NSQ; s++) {
            int deg = popcount6(mask[s]);
            if (!deg || (pass == 0 && deg == 2))
                continue;
            for (int d = 0; d < WL_NDIR; d++)
                if ((mask[s] & (1u << d)) && !(used[s] & (1u << d)))
                    walk(b, ch, s, d, mask, pin, join, used);
        }
    }
    /* A river of one square, or a lone square joining another river. */
    for (wl_sq s = 0; join && s < WL_NSQ; s++) {
        if (mask[s] || !join[s])
            continue;
        double x, y;
        ch->n = 0;
        wr_render_svg_centre(s, &x, &y);
        chain_add(ch, x, y, 1);
        chain_end(ch, s, mask, join);
        chain_draw(b, ch);
    }
    free(ch);
    free(used);
}

/* --- units ----------------------------------------------------------------- */

/* Units on each square, in scenario order: stack[s] starts a list through
 * next[] (-1 ends it). */
struct stacks {
    int16_t first[WL_NSQ];
    int16_t next[WL_MAX_UNITS];
    uint8_t count[WL_NSQ];
    uint8_t factors[WL_NSQ];
};

static void build_stacks(const struct wl_scenario *sc, const struct wr_render_view *v,
                         struct stacks *st)
{
    int16_t last[WL_NSQ];
    for (int s = 0; s < WL_NSQ; s++) {
        st->first[s] = -1;
        last[s] = -1;
        st->count[s] = 0;
        st->factors[s] = 0;
    }
    for (int i = 0; i < sc->nunits; i++) {
        st->next[i] = -1;
        wl_sq s = v->at[i];
        if (s == WL_SQ_NONE || s < 0 || s >= WL_NSQ)
            continue;
        if (last[s] < 0)
            st->first[s] = (int16_t)i;
        else
            st->next[last[s]] = (int16_t)i;
        last[s] = (int16_t)i;
        st->count[s]++;
        unsigned f = st->factors[s] + sc->units[i].combat;
        st->factors[s] = (uint8_t)(f > 255 ? 255 : f);
    }
}

/* "horse artillery" for people, where wl_utype_name says "horse_artillery". */
static const char *type_words(int type)
{
    return type == WL_HORSE_ARTILLERY ? "horse artillery" : wl_utype_name(type);
}

static char nation_letter(int nation)
{
    switch (nation) {
    case WL_NATION_FRENCH: return 'F';
    case WL_NATION_PRUSSIAN: return 'P';
    default: return 'A';
    }
}

/* --- views ------------------------------------------------------------------ */

static void caption_for_turn(const struct wl_scenario *sc, int turn, char *out, size_t n,
                             const char *what)
{
    if (turn >= 1 && turn <= sc->nturns)
        snprintf(out, n, "%s: turn %d, %s %s", what, turn, sc->turns[turn - 1].date,
                 sc->turns[turn - 1].time);
    else
        snprintf(out, n, "%s", what);
}

void wr_render_view_setup(struct wr_render_view *v, const struct wl_scenario *sc)
{
    memset(v, 0, sizeof *v);
    for (int i = 0; i < WL_MAX_UNITS; i++)
        v->at[i] = WL_SQ_NONE;
    for (int i = 0; i < sc->nunits; i++) {
        v->at[i] = sc->units[i].setup;
        if (v->at[i] == WL_SQ_NONE)
            v->pending++;
    }
    caption_for_turn(sc, sc->start_turn > 0 ? sc->start_turn : 1, v->caption,
                     sizeof v->caption, "Set-up");
}

int wr_render_view_from_state(struct wr_render_view *v, const struct wl_scenario *sc,
                              const json_t *state, struct wr_refusal *why)
{
    memset(v, 0, sizeof *v);
    for (int i = 0; i < WL_MAX_UNITS; i++)
        v->at[i] = WL_SQ_NONE;
    if (!json_is_object(state)) {
        wl_refuse(why, WL_R_BAD_COMMAND, "the state is not a JSON object");
        return -1;
    }
    json_t *units = json_object_get(state, "units");
    if (!json_is_object(units)) {
        wl_refuse(why, WL_R_BAD_COMMAND, "the state has no \"units\" object");
        return -1;
    }
    const char *id;
    json_t *u;
    json_object_foreach(units, id, u) {
        int i = wl_scenario_find_unit(sc, id);
        if (i < 0) {
            wl_refuse(why, WL_R_UNKNOWN_UNIT, "the state names unit '%.40s', which scenario "
                      "'%.47s' does not have", id, sc->name);
            return -1;
        }
        const char *at = json_string_value(json_object_get(u, "at"));
        if (at == NULL) {
            wl_refuse(why, WL_R_BAD_COMMAND, "units.%.40s: \"at\" is not a string", id);
            return -1;
        }
        if (strcmp(at, "pending") == 0) {
            v->pending++;
        } else if (strcmp(at, "eliminated") == 0) {
            v->eliminated++;
        } else if (strcmp(at, "exited") == 0) {
            v->exited++;
        } else {
            wl_sq s;
            if (wl_grid_parse(at, (size_t)-1, &s) != 0 || !wl_grid_on_board(s)) {
                wl_refuse(why, WL_R_BAD_SQUARE, "units.%.40s: '%.20s' is not a square of "
                          "the board", id, at);
                return -1;
            }
            v->at[i] = s;
        }
    }
    json_int_t turn = json_integer_value(json_object_get(state, "turn"));
    const char *date = json_string_value(json_object_get(state, "date"));
    const char *time = json_string_value(json_object_get(state, "time"));
    const char *phase = json_string_value(json_object_get(state, "phase"));
    const char *winner = json_string_value(json_object_get(state, "winner"));
    int n = snprintf(v->caption, sizeof v->caption, "Turn %d, %.10s %.5s, %.20s", (int)turn,
                     date ? date : "?", time ? time : "?", phase ? phase : "?");
    if (winner && n > 0 && (size_t)n < sizeof v->caption)
        snprintf(v->caption + n, sizeof v->caption - (size_t)n, ", won by %.20s", winner);
    return 0;
}

/* --- SVG -------------------------------------------------------------------- */

#define SVG_LEGEND_X (BOARD_RIGHT + 150.0)
#define SVG_WIDTH (SVG_LEGEND_X + 250.0)
#define SVG_HEIGHT (BOARD_BOTTOM + 50.0)

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
                     cy - WR_SVG_HEX_R * scale);
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
                    double y)
{
    char sqname[WL_SQ_NAME_MAX];
    wr_strbuf_puts(b, "<g class=\"unit\" id=\"u-");
    wr_strbuf_xml(b, u->id);
    wr_strbuf_printf(b, "\" transform=\"translate(%.2f %.2f)\"><title>", x, y);
    wr_strbuf_xml(b, u->name);
    if (u->type == WL_HQ)
        wr_strbuf_printf(b, " (HQ, move %d) %s", u->move, wl_grid_name(at, sqname));
    else
        wr_strbuf_printf(b, " (%s %d-%d) %s", type_words(u->type), u->combat, u->move,
                         wl_grid_name(at, sqname));
    double h = WR_SVG_COUNTER / 2;
    wr_strbuf_printf(b, "</title><rect class=\"cb %s\" x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" "
                        "height=\"%.0f\" rx=\"1.5\"/>",
                     nation_class(u->nation), -h, -h, WR_SVG_COUNTER, WR_SVG_COUNTER);
    counter_symbol(b, u->type);
    if (u->type == WL_HQ)
        wr_strbuf_puts(b, "<text class=\"ct\" y=\"8.5\">HQ</text>");
    else
        wr_strbuf_printf(b, "<text class=\"ct\" y=\"8.5\">%d-%d</text>", u->combat, u->move);
    wr_strbuf_puts(b, "</g>\n");
}

static void svg_units(struct wr_strbuf *b, const struct wl_scenario *sc,
                      const struct stacks *st)
{
    wr_strbuf_puts(b, "<g id=\"units\">\n");
    for (wl_sq s = 0; s < WL_NSQ; s++) {
        int n = st->count[s];
        if (n == 0)
            continue;
        double cx, cy;
        wr_render_svg_centre(s, &cx, &cy);
        int k = 0;
        for (int i = st->first[s]; i >= 0; i = st->next[i], k++) {
            double o = (k - (n - 1) / 2.0) * WR_SVG_STACK_STEP;
            counter(b, &sc->units[i], s, cx + o, cy - o);
        }
    }
    wr_strbuf_puts(b, "</g>\n");
}

static void svg_board(struct wr_strbuf *b, const struct wl_scenario *sc, const struct links *L)
{
    const struct wl_map *m = &sc->map;
    wr_strbuf_printf(b, "<defs><clipPath id=\"board\"><rect x=\"%.1f\" y=\"%.1f\" "
                        "width=\"%.1f\" height=\"%.1f\"/></clipPath></defs>\n",
                     BOARD_LEFT, BOARD_TOP, BOARD_RIGHT - BOARD_LEFT, BOARD_BOTTOM - BOARD_TOP);
    wr_strbuf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                        "fill=\"#e2e2de\"/>\n",
                     BOARD_LEFT, BOARD_TOP, BOARD_RIGHT - BOARD_LEFT, BOARD_BOTTOM - BOARD_TOP);
    wr_strbuf_puts(b, "<g clip-path=\"url(#board)\">\n<g id=\"terrain\">\n");
    for (wl_sq s = 0; s < WL_NSQ; s++) {
        if (!wl_grid_on_board(s))
            continue;
        double cx, cy;
        wr_render_svg_centre(s, &cx, &cy);
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
        wr_render_svg_centre(s, &cx, &cy);
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

    /* Rivers, then roads over them. */
    wr_strbuf_puts(b, "<path id=\"rivers\" class=\"rv\" d=\"");
    line_chains(b, L->river, L->pin_river, L->join);
    wr_strbuf_puts(b, "\"/>\n<path id=\"roads-secondary\" class=\"r1\" d=\"");
    line_chains(b, L->road[WL_ROAD_SECONDARY], L->pin_road, NULL);
    wr_strbuf_puts(b, "\"/>\n");
    struct wr_strbuf prim;
    wr_strbuf_init(&prim);
    line_chains(&prim, L->road[WL_ROAD_PRIMARY], L->pin_road, NULL);
    wr_strbuf_printf(b, "<path id=\"roads-primary\" class=\"r2a\" d=\"%s\"/>\n"
                        "<path class=\"r2b\" d=\"%s\"/>\n",
                     prim.s ? prim.s : "", prim.s ? prim.s : "");
    if (prim.failed)
        b->failed = 1;
    wr_strbuf_release(&prim);

    /* Bridges: a pair of parapets along the road, across the river. */
    wr_strbuf_puts(b, "<path id=\"bridges\" class=\"br\" d=\"");
    for (wl_sq s = 0; s < WL_NSQ; s++) {
        if (!m->cell[s].bridge || !wl_grid_on_board(s))
            continue;
        unsigned rm = L->road[1][s] | L->road[2][s];
        int d = first_dir(rm);
        if (d < 0)
            continue;
        double cx, cy, tx, ty;
        wr_render_svg_centre(s, &cx, &cy);
        towards(s, d, 1, &tx, &ty);
        double ux = (tx - cx) / WR_SVG_HALF_W, uy = (ty - cy) / WR_SVG_HALF_W;
        /* two parapets beside the road, their ends splayed outwards: )( */
        double px = -uy, py = ux, a = 7.5, w = 5.5, f = 3;
        for (int side = -1; side <= 1; side += 2) {
            double ox = cx + px * w * side, oy = cy + py * w * side;
            double fx = px * f * side, fy = py * f * side;
            wr_strbuf_printf(b, "M%.1f %.1fl%.1f %.1fl%.1f %.1fl%.1f %.1f",
                             ox - ux * (a + f) + fx, oy - uy * (a + f) + fy,
                             ux * f - fx, uy * f - fy, ux * 2 * a, uy * 2 * a,
                             ux * f + fx, uy * f + fy);
        }
    }
    wr_strbuf_puts(b, "\"/>\n");

    /* French exit squares. */
    wr_strbuf_puts(b, "<g id=\"exits\">\n");
    for (wl_sq s = 0; s < WL_NSQ; s++) {
        if (!m->cell[s].exit)
            continue;
        double cx, cy;
        wr_render_svg_centre(s, &cx, &cy);
        hex_polygon(b, cx, cy, "ex");
        wr_strbuf_printf(b, "<path fill=\"#1f4fa8\" d=\"M%.1f %.1fl5 7h-10z\"/>\n", cx,
                         cy - WR_SVG_HEX_R + 4);
    }
    wr_strbuf_puts(b, "</g>\n");

    /* Town dots. */
    wr_strbuf_puts(b, "<g id=\"towns\">\n");
    for (int i = 0; i < m->ntowns; i++) {
        double cx, cy;
        wr_render_svg_centre(m->towns[i].at, &cx, &cy);
        wr_strbuf_printf(b, "<circle class=\"tn\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\"/>\n", cx, cy);
    }
    wr_strbuf_puts(b, "</g>\n");

    /* Entry markers: an arrow into the board on the partial square. */
    wr_strbuf_puts(b, "<g id=\"entry-marks\">\n");
    for (int i = 0; i < m->nentries; i++) {
        wl_sq s = m->entries[i].at;
        double cx, cy;
        wr_render_svg_centre(s, &cx, &cy);
        int x = wl_grid_x(s);
        if (wl_sq_row(s) == 0)          /* north edge: arrow pointing south */
            wr_strbuf_printf(b, "<path class=\"em\" d=\"M%.1f %.1fl-7 -9h14z\"/>\n", cx,
                             cy + 10);
        else if (x >= NXMAX)            /* west edge: pointing east */
            wr_strbuf_printf(b, "<path class=\"em\" d=\"M%.1f %.1fl-9 -7v14z\"/>\n", cx + 10,
                             cy);
        else                            /* east edge: pointing west */
            wr_strbuf_printf(b, "<path class=\"em\" d=\"M%.1f %.1fl9 -7v14z\"/>\n", cx - 10,
                             cy);
    }
    wr_strbuf_puts(b, "</g>\n</g>\n");
    wr_strbuf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                        "fill=\"none\" stroke=\"#333\" stroke-width=\"1.5\"/>\n",
                     BOARD_LEFT, BOARD_TOP, BOARD_RIGHT - BOARD_LEFT, BOARD_BOTTOM - BOARD_TOP);
}

static void row_name(int r, char *out)
{
    if (r == 0)
        strcpy(out, "0");
    else if (r <= 26)
        snprintf(out, 3, "%c", 'A' + r - 1);
    else
        snprintf(out, 3, "%c%c", 'A' + r - 27, 'A' + r - 27);
}

/* Row names on the east and west edges, diagonal numbers on the north and
 * south edges (each placed on its diagonal, continued off the board). */
static void svg_coordinates(struct wr_strbuf *b)
{
    wr_strbuf_puts(b, "<g id=\"coordinates\">\n");
    for (int r = 0; r <= 49; r++) {
        char name[4];
        row_name(r, name);
        double y = WR_SVG_ORIGIN_Y + r * WR_SVG_ROW_H + 4;
        wr_strbuf_printf(b, "<text class=\"co\" x=\"%.1f\" y=\"%.1f\">%s</text>"
                            "<text class=\"co\" x=\"%.1f\" y=\"%.1f\">%s</text>\n",
                         BOARD_LEFT - 14, y, name, BOARD_RIGHT + 14, y, name);
    }
    /* North: every diagonal with a square in row A; south: in row WW. */
    for (int c = 1; c <= 57; c++) {
        const double dy_n = -16, dy_s = WR_SVG_HEX_R / 2 + 18;
        if (wl_grid_on_board(wl_sq_make(1, c))) {
            double rr = dy_n / WR_SVG_ROW_H;    /* rows, from row 0 */
            double x = WR_SVG_ORIGIN_X + (NXMAX - (2 * c + rr - 51)) * WR_SVG_HALF_W;
            wr_strbuf_printf(b, "<text class=\"co\" x=\"%.1f\" y=\"%.1f\">%d</text>\n", x,
                             WR_SVG_ORIGIN_Y + dy_n + 4, c);
        }
        if (wl_grid_on_board(wl_sq_make(49, c))) {
            double rr = 49 + dy_s / WR_SVG_ROW_H;
            double x = WR_SVG_ORIGIN_X + (NXMAX - (2 * c + rr - 51)) * WR_SVG_HALF_W;
            wr_strbuf_printf(b, "<text class=\"co\" x=\"%.1f\" y=\"%.1f\">%d</text>\n", x,
                             WR_SVG_ORIGIN_Y + 49 * WR_SVG_ROW_H + dy_s + 4, c);
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

static void svg_labels(struct wr_strbuf *b, const struct wl_map *m, const struct stacks *st)
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
        double cx, cy, h = WR_SVG_COUNTER / 2 + (st->count[s] - 1) / 2.0 * WR_SVG_STACK_STEP;
        wr_render_svg_centre(s, &cx, &cy);
        ob[nob++] = (struct box){ cx - h, cy - h, cx + h, cy + h };
    }
    for (int i = 0; i < m->ntowns; i++) {
        double cx, cy;
        wr_render_svg_centre(m->towns[i].at, &cx, &cy);
        ob[nob++] = (struct box){ cx - 4, cy - 4, cx + 4, cy + 4 };
    }
    const struct box board = { BOARD_LEFT + 2, BOARD_TOP + 2, BOARD_RIGHT - 2,
                               BOARD_BOTTOM - 2 };
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
        wr_render_svg_centre(m->towns[i].at, &cx, &cy);
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
        wr_render_svg_centre(s, &cx, &cy);
        int x = wl_grid_x(s);
        char sqname[WL_SQ_NAME_MAX];
        wl_grid_name(s, sqname);
        if (wl_sq_row(s) == 0) {
            wr_strbuf_printf(b, "<text class=\"en\" text-anchor=\"middle\" x=\"%.1f\" "
                                "y=\"%.1f\">", cx, WR_SVG_ORIGIN_Y - 36);
            wr_strbuf_xml(b, m->entries[i].name);
            wr_strbuf_printf(b, " (%s)</text>\n", sqname);
            continue;
        }
        /* east or west edge: the name, and the square under it */
        double tx = x >= NXMAX ? BOARD_LEFT - 30 : BOARD_RIGHT + 30;
        const char *anchor = x >= NXMAX ? "end" : "start";
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
                           const struct wr_render_view *v, double x, double y)
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
                             y - WR_SVG_HEX_R * 0.55, x + 12 + WR_SVG_HALF_W * 0.55,
                             y - WR_SVG_HEX_R * 0.275);
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
                     x + 12, y - WR_SVG_HEX_R * 0.75 + 3, x + 36, y + 4);
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
                       const struct wr_render_view *v)
{
    struct wr_strbuf items;
    wr_strbuf_init(&items);
    double x = SVG_LEGEND_X, y = WR_SVG_ORIGIN_Y;
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

int wr_render_svg(struct wr_strbuf *out, const struct wl_scenario *sc,
                  const struct wr_render_view *v)
{
    struct wr_render_view *setup = NULL;
    struct links *L = malloc(sizeof *L);
    struct stacks *st = malloc(sizeof *st);
    if (v == NULL) {
        setup = malloc(sizeof *setup);
        if (setup)
            wr_render_view_setup(setup, sc);
        v = setup;
    }
    if (L == NULL || st == NULL || v == NULL) {
        free(L);
        free(st);
        free(setup);
        out->failed = 1;
        return -1;
    }
    build_links(&sc->map, L);
    build_stacks(sc, v, st);

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
                          "fill=\"#222\">", BOARD_LEFT);
    wr_strbuf_xml(out, sc->name);
    wr_strbuf_printf(out, "</text>\n<text x=\"%.1f\" y=\"50\" font-size=\"13\" fill=\"#444\">",
                     BOARD_LEFT);
    wr_strbuf_xml(out, v->caption);
    wr_strbuf_puts(out, "</text>\n");
    svg_board(out, sc, L);
    svg_coordinates(out);
    svg_units(out, sc, st);
    svg_labels(out, &sc->map, st);
    svg_legend(out, sc, v);
    wr_strbuf_puts(out, "</svg>\n");
    free(L);
    free(st);
    free(setup);
    return out->failed ? -1 : 0;
}

/* --- text ---------------------------------------------------------------------- */

/* ANSI 256-colour codes. */
enum {
    BG_CLEAR = 230, BG_WOODS = 114, BG_SLOPE = 180, BG_HILL = 223, BG_PARTIAL = 250,
    FG_DIM = 243, FG_RIVER = 21, FG_ROAD1 = 94, FG_ROAD2 = 124, FG_TOWN = 16, FG_ENTRY = 90,
    FG_EXIT = 19,
    BG_FR = 26, BG_PR = 28, BG_AA = 160, FG_UNIT = 231,
    BG_MARK = 226,
};

void wr_render_window_all(struct wr_text_window *w)
{
    w->row_min = 0;
    w->row_max = 49;
    w->x_min = 0;
    w->x_max = NXMAX;
}

int wr_render_window_around(struct wr_text_window *w, wl_sq centre, int radius)
{
    if (radius < 0 || centre == WL_SQ_NONE || !wl_grid_on_board(centre))
        return -1;
    int r = wl_sq_row(centre), x = wl_grid_x(centre);
    w->row_min = r - radius < 0 ? 0 : r - radius;
    w->row_max = r + radius > 49 ? 49 : r + radius;
    w->x_min = x - 2 * radius < 0 ? 0 : x - 2 * radius;
    w->x_max = x + 2 * radius > NXMAX ? NXMAX : x + 2 * radius;
    return 0;
}

/* One cell: background, three characters with their foreground. */
struct cell {
    int bg;                     /* 0: none */
    char ch[4];                 /* three characters and NUL */
    int fg;
    int bold;
};

static void cell_of(const struct wl_scenario *sc, const struct stacks *st, wl_sq s,
                    struct cell *out)
{
    const struct wl_map *m = &sc->map;
    const struct wl_cell *c = &m->cell[s];
    char t = ' ';
    out->bg = BG_CLEAR;
    out->fg = FG_DIM;
    out->bold = 0;
    if (wl_grid_partial(s)) {
        t = ':';
        out->bg = BG_PARTIAL;
    } else if (c->woods) {
        t = 'w';
        out->bg = BG_WOODS;
    } else if (c->slope_high) {
        t = '^';
        out->bg = BG_SLOPE;
    } else if (c->hilltop) {
        t = 'n';
        out->bg = BG_HILL;
    }
    int road = 0;
    for (int d = 0; d < WL_NDIR; d++) {
        int k = wl_map_road_kind(m, s, d);
        if (k > road)
            road = k;
    }
    char f = t == ' ' ? '.' : t;
    if (c->river && road) {
        f = road == WL_ROAD_PRIMARY ? '=' : '-';
        if (t == ' ')
            t = '~';
        out->fg = FG_RIVER;
        out->bold = 1;
    } else if (c->river) {
        f = '~';
        if (t == ' ')
            t = '~';
        out->fg = FG_RIVER;
        out->bold = 1;
    } else if (road) {
        f = road == WL_ROAD_PRIMARY ? '=' : '-';
        if (t == ' ')
            t = f;
        out->fg = road == WL_ROAD_PRIMARY ? FG_ROAD2 : FG_ROAD1;
        out->bold = road == WL_ROAD_PRIMARY;
    } else if (c->exit) {
        f = 'x';
        out->fg = FG_EXIT;
        out->bold = 1;
    }
    out->ch[0] = t;
    out->ch[1] = f;
    out->ch[2] = t;
    out->ch[3] = '\0';
    if (c->entry >= 0) {
        memcpy(out->ch, ">E<", 4);
        out->fg = FG_ENTRY;
        out->bold = 1;
    }
    if (c->town >= 0) {
        /* the first three letters of the name */
        const char *name = m->towns[c->town].name;
        int j = 0;
        for (const char *p = name; *p && j < 3; p++)
            if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z'))
                out->ch[j++] = *p;
        while (j < 3)
            out->ch[j++] = ' ';
        out->fg = FG_TOWN;
        out->bold = 1;
    }
    if (st->count[s]) {
        const struct wl_unit_def *u = &sc->units[st->first[s]];
        char txt[8];
        if (st->factors[s])
            snprintf(txt, sizeof txt, "%c%-2u", nation_letter(u->nation),
                     (unsigned)(st->factors[s] > 99 ? 99 : st->factors[s]));
        else
            snprintf(txt, sizeof txt, "%cHQ", nation_letter(u->nation));
        memcpy(out->ch, txt, 3);
        out->ch[3] = '\0';
        out->bg = u->nation == WL_NATION_FRENCH ? BG_FR
                : u->nation == WL_NATION_PRUSSIAN ? BG_PR : BG_AA;
        out->fg = FG_UNIT;
        out->bold = 1;
    }
}

static void sgr(struct wr_strbuf *b, int color, int bg, int fg, int bold)
{
    if (!color)
        return;
    wr_strbuf_puts(b, "\x1b[0");
    if (bold)
        wr_strbuf_puts(b, ";1");
    if (bg)
        wr_strbuf_printf(b, ";48;5;%d", bg);
    if (fg)
        wr_strbuf_printf(b, ";38;5;%d", fg);
    wr_strbuf_puts(b, "m");
}

static void reset(struct wr_strbuf *b, int color)
{
    if (color)
        wr_strbuf_puts(b, "\x1b[0m");
}

/* The diagonal numbers of the squares of edge row r in the window (and of
 * row A when r is the partial row 0, which lacks diagonal 25), each written
 * where its diagonal's square one row further out (r + dr) would be. */
static void number_line(struct wr_strbuf *b, const struct wr_text_window *w, int r, int dr)
{
    char line[512];
    int width = WR_TEXT_LABEL_W + 2 * (w->x_max - w->x_min) + 2 * WR_TEXT_CELL_W;
    if (width > (int)sizeof line - 1)
        width = (int)sizeof line - 1;
    memset(line, ' ', (size_t)width);
    int used = 0;
    for (int c = 1; c <= 57; c++) {
        int found = 0;
        for (int rr = r; rr == r || (r == 0 && dr < 0 && rr == 1); rr++) {
            int x = x_rc(rr, c);
            if (x >= w->x_min && x <= w->x_max && rr <= w->row_max &&
                wl_grid_on_board(wl_sq_make(rr, c)))
                found = 1;
        }
        if (!found)
            continue;
        int pos = WR_TEXT_LABEL_W + 2 * (w->x_max - x_rc(r + dr, c)) + 1;
        char num[4];
        snprintf(num, sizeof num, "%2d", c);
        if (pos >= 0 && pos + 2 <= width) {
            memcpy(line + pos, num, 2);
            if (pos + 2 > used)
                used = pos + 2;
        }
    }
    line[used] = '\0';
    wr_strbuf_puts(b, line);
    wr_strbuf_puts(b, "\n");
}

int wr_render_text(struct wr_strbuf *out, const struct wl_scenario *sc,
                   const struct wr_render_view *v, const struct wr_text_window *win, int color)
{
    struct wr_text_window all;
    if (win == NULL) {
        wr_render_window_all(&all);
        win = &all;
    }
    struct stacks *st = malloc(sizeof *st);
    if (st == NULL) {
        out->failed = 1;
        return -1;
    }
    build_stacks(sc, v, st);
    const struct wl_map *m = &sc->map;
    int top = win->row_min, bottom = win->row_max;

    number_line(out, win, top, -1);
    for (int r = top; r <= bottom; r++) {
        char name[4];
        row_name(r, name);
        wr_strbuf_printf(out, "%-*s", WR_TEXT_LABEL_W, name);
        int col = WR_TEXT_LABEL_W;      /* visible characters written */
        /* squares of this row from west (large x) to east */
        for (int x = win->x_max; x >= win->x_min; x--) {
            if (((x + r) & 1) == 0)     /* x = 2c + r - 51: x and r differ in parity */
                continue;
            int c2 = x - r + 51;        /* = 2c */
            int c = c2 / 2;
            if (c < 1 || c > 57)
                continue;
            wl_sq s = wl_sq_make(r, c);
            int start = WR_TEXT_LABEL_W + 2 * (win->x_max - x);
            while (col < start) {
                wr_strbuf_puts(out, " ");
                col++;
            }
            if (!wl_grid_on_board(s)) {
                wr_strbuf_puts(out, "    ");
                col += 4;
                continue;
            }
            struct cell ce;
            cell_of(sc, st, s, &ce);
            if (v->highlight[s]) {
                /* A marked square: '*' in the cell's first character, on a
                 * bright background unless a counter fills the cell. */
                if (!st->count[s])
                    ce.bg = BG_MARK;
                sgr(out, color, BG_MARK, FG_TOWN, 1);
                wr_strbuf_puts(out, "*");
            } else {
                sgr(out, color, ce.bg, 0, 0);
                wr_strbuf_puts(out, " ");
            }
            sgr(out, color, ce.bg, ce.fg, ce.bold);
            wr_strbuf_puts(out, ce.ch);
            reset(out, color);
            col += 4;
        }
        int end = WR_TEXT_LABEL_W + 2 * (win->x_max - win->x_min) + WR_TEXT_CELL_W;
        while (col < end) {
            wr_strbuf_puts(out, " ");
            col++;
        }
        wr_strbuf_printf(out, " %s\n", name);
    }
    number_line(out, win, bottom, +1);

    /* The key. */
    wr_strbuf_puts(out, "\n");
    if (v->caption[0])
        wr_strbuf_printf(out, "%s: %s\n", sc->name, v->caption);
    wr_strbuf_puts(out, "key: F/P/A French/Prussian/Anglo-Allied stack and its combat factors "
                        "(FHQ: HQ alone)\n"
                        "     w woods  ^ slope  n hill top  : partial square  ~ river  "
                        "= primary road  - secondary road\n"
                        "     ~=~ ~-~ bridge  x French exit  >E< entry  Abc town (below)\n");
    for (int s = 0; s < WL_NSQ; s++)
        if (v->highlight[s]) {
            wr_strbuf_puts(out, "     * marked square\n");
            break;
        }
    /* towns and entries inside the window, wrapped at about 100 columns */
    size_t line_start = out->len;
    int any = 0, group = -1;
    for (int i = 0; i < m->ntowns + m->nentries; i++) {
        int g = i < m->ntowns ? 0 : 1;
        const struct wl_place *pl = g == 0 ? &m->towns[i] : &m->entries[i - m->ntowns];
        wl_sq s = pl->at;
        int r = wl_sq_row(s), x = wl_grid_x(s);
        if (r < top || r > bottom || x < win->x_min || x > win->x_max)
            continue;
        if (g != group) {
            if (any)
                wr_strbuf_puts(out, "\n");
            line_start = out->len;
            wr_strbuf_puts(out, g == 0 ? "towns:" : "entries:");
            any = 1;
            group = g;
        } else {
            wr_strbuf_puts(out, ",");
        }
        char sqname[WL_SQ_NAME_MAX];
        wl_grid_name(s, sqname);
        if (out->len - line_start + strlen(sqname) + strlen(pl->name) + 2 > 100) {
            wr_strbuf_puts(out, "\n   ");
            line_start = out->len - 3;
        }
        wr_strbuf_printf(out, " %s %s", sqname, pl->name);
    }
    if (any)
        wr_strbuf_puts(out, "\n");
    if (win != &all) {
        /* The stacks inside a window, unit by unit. */
        any = 0;
        for (int r = top; r <= bottom; r++) {
            for (int x = win->x_max; x >= win->x_min; x--) {
                int c2 = x - r + 51;
                if ((c2 & 1) || c2 / 2 < 1 || c2 / 2 > 57)
                    continue;
                wl_sq s = wl_sq_make(r, c2 / 2);
                if (!st->count[s])
                    continue;
                struct cell ce;
                char sqname[WL_SQ_NAME_MAX];
                cell_of(sc, st, s, &ce);
                wr_strbuf_printf(out, "%s  %-6s %-4s", any ? "" : "units:\n",
                                 wl_grid_name(s, sqname), ce.ch);
                any = 1;
                const char *sep = "";
                for (int i = st->first[s]; i >= 0; i = st->next[i]) {
                    const struct wl_unit_def *u = &sc->units[i];
                    if (u->type == WL_HQ)
                        wr_strbuf_printf(out, "%s%s HQ", sep, u->name);
                    else
                        wr_strbuf_printf(out, "%s%s %d-%d %s", sep, u->name, u->combat,
                                         u->move, type_words(u->type));
                    if (v->show_ids)
                        wr_strbuf_printf(out, " (%s)", u->id);
                    sep = ", ";
                }
                wr_strbuf_puts(out, "\n");
            }
        }
    }
    free(st);
    return out->failed ? -1 : 0;
}
