/*
 * waterloo_draw_lines.c - the roads and rivers of the SVG board
 * (waterloo_draw_internal.h's wl_draw_svg_lines).
 *
 * Roads are links across hexsides; rivers are links between neighbouring
 * squares of one river (a spanning tree of each river, so a river drawn
 * through a clump of squares stays one line). In the SVG a linked square
 * draws one piece from the middle of one linked hexside to the middle of
 * another, bent through the centre (a quadratic curve), so pieces of
 * neighbouring squares meet on their common hexside with the same
 * direction and a road or river reads as one smooth line. A road or river
 * that ends on the board edge is carried on to the edge.
 */
#include "waterloo_draw_internal.h"

#include <stdlib.h>
#include <string.h>

/* Neighbour offsets by direction (enum wl_dir), as waterloo_grid.h gives them. */
static const int dir_dr[WL_NDIR] = { -1, 0, 1, 1, 0, -1 };
static const int dir_dc[WL_NDIR] = { 0, -1, -1, 0, 1, 1 };

/* Middle of hexside d of square s (half way to the neighbour's centre),
 * or, with f = 1, the neighbour's centre itself (in or out of the frame). */
static void towards(wl_sq s, int d, double f, double *x, double *y)
{
    int r = wl_sq_row(s), c = wl_sq_col(s);
    double ax, ay, bx, by;
    wl_draw_centre_rc(r, c, &ax, &ay);
    wl_draw_centre_rc(r + dir_dr[d], c + dir_dc[d], &bx, &by);
    *x = ax + (bx - ax) * f * 0.5;
    *y = ay + (by - ay) * f * 0.5;
}

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
    wl_draw_svg_centre(s, &x, &y);
    chain_add(ch, x, y, 1);
    wl_sq cur = s, end = WL_SQ_NONE;
    for (;;) {
        used[cur] |= (uint8_t)(1u << d);
        wl_sq nxt = wl_grid_neighbour(cur, d);
        if (nxt == WL_SQ_NONE)
            break;
        used[nxt] |= (uint8_t)(1u << wl_dir_opposite(d));
        wl_draw_svg_centre(nxt, &x, &y);
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
        wl_draw_svg_centre(s, &x, &y);
        chain_add(ch, x, y, 1);
        chain_end(ch, s, mask, join);
        chain_draw(b, ch);
    }
    free(ch);
    free(used);
}

void wl_draw_svg_lines(struct wr_strbuf *b, const struct wl_map *m)
{
    struct links *L = malloc(sizeof *L);
    if (L == NULL) {
        b->failed = 1;
        return;
    }
    build_links(m, L);
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
        wl_draw_svg_centre(s, &cx, &cy);
        towards(s, d, 1, &tx, &ty);
        double ux = (tx - cx) / WL_SVG_HALF_W, uy = (ty - cy) / WL_SVG_HALF_W;
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
    free(L);
}
