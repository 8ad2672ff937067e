/*
 * waterloo_draw_text.c - the board, or a window of it, as terminal text
 * (waterloo_draw.h): one 4-character cell per square, ANSI 256 colours
 * when asked for, and a key; or the largest window around a square that
 * fits a terminal's room (wl_draw_text_fit), the key after the map and cut
 * to what is left.
 *
 * Nothing here does I/O: everything is appended to a wr_strbuf.
 */
#include "waterloo_draw_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char nation_letter(int nation)
{
    switch (nation) {
    case WL_NATION_FRENCH: return 'F';
    case WL_NATION_PRUSSIAN: return 'P';
    default: return 'A';
    }
}

/* ANSI 256-colour codes. */
enum {
    BG_CLEAR = 230, BG_WOODS = 114, BG_SLOPE = 180, BG_HILL = 223, BG_PARTIAL = 250,
    FG_DIM = 243, FG_RIVER = 21, FG_ROAD1 = 94, FG_ROAD2 = 124, FG_TOWN = 16, FG_ENTRY = 90,
    FG_EXIT = 19, BG_TOWN = 217,
    FG_FR = 19, FG_PR = 16, FG_AA = 160,
    BG_MARK = 226, BG_LAST = 213,
};

void wl_draw_window_all(struct wl_draw_window *w)
{
    w->row_min = 0;
    w->row_max = 49;
    w->x_min = 0;
    w->x_max = WL_DRAW_XMAX;
}

int wl_draw_window_around(struct wl_draw_window *w, wl_sq centre, int radius)
{
    if (radius < 0 || centre == WL_SQ_NONE || !wl_grid_on_board(centre))
        return -1;
    int r = wl_sq_row(centre), x = wl_grid_x(centre);
    w->row_min = r - radius < 0 ? 0 : r - radius;
    w->row_max = r + radius > 49 ? 49 : r + radius;
    w->x_min = x - 2 * radius < 0 ? 0 : x - 2 * radius;
    w->x_max = x + 2 * radius > WL_DRAW_XMAX ? WL_DRAW_XMAX : x + 2 * radius;
    return 0;
}

int wl_draw_window_width(const struct wl_draw_window *w)
{
    return WL_TEXT_LABEL_W + 2 * (w->x_max - w->x_min) + WL_TEXT_CELL_W + 3;
}

/* One cell: background, three characters with their foreground. */
struct cell {
    int bg;                     /* 0: none */
    char ch[4];                 /* three characters and NUL */
    int fg;
    int bold;
    int underline;              /* a river under a stack */
};

static void cell_of(const struct wl_scenario *sc, const struct wl_draw_stacks *st, wl_sq s,
                    struct cell *out)
{
    const struct wl_map *m = &sc->map;
    const struct wl_cell *c = &m->cell[s];
    char t = ' ';
    out->bg = BG_CLEAR;
    out->fg = FG_DIM;
    out->bold = 0;
    out->underline = 0;
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
        out->bg = BG_TOWN;
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
        /* the square's background stays: the terrain or town under the stack */
        out->fg = u->nation == WL_NATION_FRENCH ? FG_FR
                : u->nation == WL_NATION_PRUSSIAN ? FG_PR : FG_AA;
        out->bold = 1;
        out->underline = c->river;
    }
}

static void sgr_u(struct wr_strbuf *b, int color, int bg, int fg, int bold, int underline)
{
    if (!color)
        return;
    wr_strbuf_puts(b, "\x1b[0");
    if (bold)
        wr_strbuf_puts(b, ";1");
    if (underline)
        wr_strbuf_puts(b, ";4");
    if (bg)
        wr_strbuf_printf(b, ";48;5;%d", bg);
    if (fg)
        wr_strbuf_printf(b, ";38;5;%d", fg);
    wr_strbuf_puts(b, "m");
}

static void sgr(struct wr_strbuf *b, int color, int bg, int fg, int bold)
{
    sgr_u(b, color, bg, fg, bold, 0);
}

static void reset(struct wr_strbuf *b, int color)
{
    if (color)
        wr_strbuf_puts(b, "\x1b[0m");
}

/* The diagonal numbers of the squares of edge row r in the window (and of
 * row A when r is the partial row 0, which lacks diagonal 25), each written
 * where its diagonal's square one row further out (r + dr) would be. */
static void number_line(struct wr_strbuf *b, const struct wl_draw_window *w, int r, int dr)
{
    char line[512];
    int width = WL_TEXT_LABEL_W + 2 * (w->x_max - w->x_min) + 2 * WL_TEXT_CELL_W;
    if (width > (int)sizeof line - 1)
        width = (int)sizeof line - 1;
    memset(line, ' ', (size_t)width);
    int used = 0;
    for (int c = 1; c <= 57; c++) {
        int found = 0;
        for (int rr = r; rr == r || (r == 0 && dr < 0 && rr == 1); rr++) {
            int x = wl_draw_x_rc(rr, c);
            if (x >= w->x_min && x <= w->x_max && rr <= w->row_max &&
                wl_grid_on_board(wl_sq_make(rr, c)))
                found = 1;
        }
        if (!found)
            continue;
        int pos = WL_TEXT_LABEL_W + 2 * (w->x_max - wl_draw_x_rc(r + dr, c)) + 1;
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

/* The map of window win: the diagonal numbers, one line per row, the
 * diagonal numbers again. */
static void draw_map(struct wr_strbuf *out, const struct wl_scenario *sc,
                     const struct wl_draw_view *v, const struct wl_draw_stacks *st,
                     const struct wl_draw_window *win, int color)
{
    int top = win->row_min, bottom = win->row_max;
    number_line(out, win, top, -1);
    for (int r = top; r <= bottom; r++) {
        char name[4];
        wl_draw_row_name(r, name);
        wr_strbuf_printf(out, "%-*s", WL_TEXT_LABEL_W, name);
        int col = WL_TEXT_LABEL_W;      /* visible characters written */
        /* squares of this row from west (large x) to east */
        for (int x = win->x_max; x >= win->x_min; x--) {
            if (((x + r) & 1) == 0)     /* x = 2c + r - 51: x and r differ in parity */
                continue;
            int c2 = x - r + 51;        /* = 2c */
            int c = c2 / 2;
            if (c < 1 || c > 57)
                continue;
            wl_sq s = wl_sq_make(r, c);
            int start = WL_TEXT_LABEL_W + 2 * (win->x_max - x);
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
            } else if (v->last_move[s]) {
                sgr(out, color, BG_LAST, FG_TOWN, 1);
                wr_strbuf_puts(out, "+");
            } else {
                sgr(out, color, ce.bg, 0, 0);
                wr_strbuf_puts(out, " ");
            }
            sgr_u(out, color, ce.bg, ce.fg, ce.bold, ce.underline);
            wr_strbuf_puts(out, ce.ch);
            reset(out, color);
            col += 4;
        }
        int end = WL_TEXT_LABEL_W + 2 * (win->x_max - win->x_min) + WL_TEXT_CELL_W;
        while (col < end) {
            wr_strbuf_puts(out, " ");
            col++;
        }
        wr_strbuf_printf(out, " %s\n", name);
    }
    number_line(out, win, bottom, +1);
}

/* One stack of the list of units: its square, marker and units. */
static void stack_line(struct wr_strbuf *out, const struct wl_scenario *sc,
                       const struct wl_draw_view *v, const struct wl_draw_stacks *st, wl_sq s)
{
    struct cell ce;
    char sqname[WL_SQ_NAME_MAX];
    cell_of(sc, st, s, &ce);
    wr_strbuf_printf(out, "  %-6s %-4s", wl_grid_name(s, sqname), ce.ch);
    const char *sep = "";
    for (int i = st->first[s]; i >= 0; i = st->next[i]) {
        const struct wl_unit_def *u = &sc->units[i];
        if (u->type == WL_HQ)
            wr_strbuf_printf(out, "%s%s HQ", sep, u->name);
        else
            wr_strbuf_printf(out, "%s%s %d-%d %s", sep, u->name, u->combat, u->move,
                             wl_draw_type_words(u->type));
        if (v->show_ids)
            wr_strbuf_printf(out, " (%s)", u->id);
        if (v->mine[i])
            wr_strbuf_puts(out, " [yours]");
        sep = ", ";
    }
    wr_strbuf_puts(out, "\n");
}

/* The marks' lines of the key: what '*' and '+' mean, when some square has them. */
static void key_marks(struct wr_strbuf *out, const struct wl_draw_view *v)
{
    for (int s = 0; s < WL_NSQ; s++)
        if (v->highlight[s]) {
            wr_strbuf_puts(out, "     * marked square\n");
            break;
        }
    for (int s = 0; s < WL_NSQ; s++)
        if (v->last_move[s]) {
            wr_strbuf_puts(out, "     + the other side's last move (where it stood, where it "
                                "stands)\n");
            break;
        }
}

/* The markers and colours of the key: its first line (the stacks), or
 * the others. */
static void key_legend(struct wr_strbuf *out, int color, int first)
{
    if (first) {
        wr_strbuf_puts(out, "key: F/P/A French/Prussian/Anglo-Allied stack and its combat "
                            "factors (FHQ: HQ alone)\n");
        return;
    }
    wr_strbuf_puts(out, "     w woods  ^ slope  n hill top  : partial square  ~ river  "
                        "= primary road  - secondary road\n"
                        "     ~=~ ~-~ bridge  x French exit  >E< entry  Abc town (below)\n");
    if (color)
        wr_strbuf_puts(out, "     under a stack, its square's colour: green woods, tan slope, "
                            "cream hill top, pink town, grey partial; underlined: a river\n");
}

/* The towns and entries inside the window, wrapped at about wrap columns. */
static void key_places(struct wr_strbuf *out, const struct wl_map *m,
                       const struct wl_draw_window *win, int wrap)
{
    size_t line_start = out->len;
    int any = 0, group = -1;
    for (int i = 0; i < m->ntowns + m->nentries; i++) {
        int g = i < m->ntowns ? 0 : 1;
        const struct wl_place *pl = g == 0 ? &m->towns[i] : &m->entries[i - m->ntowns];
        wl_sq s = pl->at;
        int r = wl_sq_row(s), x = wl_grid_x(s);
        if (r < win->row_min || r > win->row_max || x < win->x_min || x > win->x_max)
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
        if (out->len - line_start + strlen(sqname) + strlen(pl->name) + 2 > (size_t)wrap) {
            wr_strbuf_puts(out, "\n   ");
            line_start = out->len - 3;
        }
        wr_strbuf_printf(out, " %s %s", sqname, pl->name);
    }
    if (any)
        wr_strbuf_puts(out, "\n");
}

/* The stacks inside the window, unit by unit: in row order, or each
 * distance from near in turn when near is a square. */
static void key_units(struct wr_strbuf *out, const struct wl_scenario *sc,
                      const struct wl_draw_view *v, const struct wl_draw_stacks *st,
                      const struct wl_draw_window *win, wl_sq near)
{
    int first = 1;
    int dmax = near == WL_SQ_NONE ? 0 : 2 * WL_ROWS + WL_COLS;
    for (int d = 0; d <= dmax; d++) {
        int more = 0;
        for (int r = win->row_min; r <= win->row_max; r++) {
            for (int x = win->x_max; x >= win->x_min; x--) {
                int c2 = x - r + 51;
                if ((c2 & 1) || c2 / 2 < 1 || c2 / 2 > 57)
                    continue;
                wl_sq s = wl_sq_make(r, c2 / 2);
                if (!st->count[s])
                    continue;
                if (near != WL_SQ_NONE) {
                    int ds = wl_grid_distance(near, s);
                    more |= ds > d;
                    if (ds != d)
                        continue;
                }
                if (first)
                    wr_strbuf_puts(out, "units:\n");
                first = 0;
                stack_line(out, sc, v, st, s);
            }
        }
        if (!more)
            break;
    }
}

/* The key of window win, after its caption: the markers, the marks, the
 * towns and entries and, when units is set, its stacks unit by unit. */
static void draw_key(struct wr_strbuf *out, const struct wl_scenario *sc,
                     const struct wl_draw_view *v, const struct wl_draw_stacks *st,
                     const struct wl_draw_window *win, int color, int units)
{
    if (v->caption[0])
        wr_strbuf_printf(out, "%s: %s\n", sc->name, v->caption);
    key_legend(out, color, 1);
    key_legend(out, color, 0);
    key_marks(out, v);
    key_places(out, &sc->map, win, 100);
    if (units)
        key_units(out, sc, v, st, win, WL_SQ_NONE);
}

/* The key of a fitted picture, what a player needs most first: the
 * caption, what a stack shows, the marks, the stacks nearest to near,
 * then the other markers and the towns (wrapped at wrap columns). */
static void draw_key_fit(struct wr_strbuf *out, const struct wl_scenario *sc,
                         const struct wl_draw_view *v, const struct wl_draw_stacks *st,
                         const struct wl_draw_window *win, int color, int wrap, wl_sq near)
{
    if (v->caption[0])
        wr_strbuf_printf(out, "%s: %s\n", sc->name, v->caption);
    key_legend(out, color, 1);
    key_marks(out, v);
    key_units(out, sc, v, st, win, near);
    key_legend(out, color, 0);
    key_places(out, &sc->map, win, wrap);
}

int wl_draw_text(struct wr_strbuf *out, const struct wl_scenario *sc,
                 const struct wl_draw_view *v, const struct wl_draw_window *win, int color)
{
    struct wl_draw_window all;
    int whole = win == NULL;
    if (whole) {
        wl_draw_window_all(&all);
        win = &all;
    }
    struct wl_draw_stacks *st = malloc(sizeof *st);
    if (st == NULL) {
        out->failed = 1;
        return -1;
    }
    wl_draw_stacks_build(sc, v, st);
    draw_map(out, sc, v, st, win, color);
    wr_strbuf_puts(out, "\n");
    draw_key(out, sc, v, st, win, color, !whole);
    free(st);
    return out->failed ? -1 : 0;
}

/* --- fitting a terminal ----------------------------------------------------------- */

/* Each line of text (escapes allowed) into lines, ending in "\n": cut at
 * cols characters when wrap is 0, else wrapped at blanks with its
 * continuations indented (text without escapes). cols 0: as they are.
 * Returns how many lines. */
static int fit_lines(const char *text, size_t len, int cols, int wrap, struct wr_strbuf *lines)
{
    static const char indent[] = "     ";
    int ind = cols > 20 ? (int)sizeof indent - 1 : 0;
    int count = 0;
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
        const char *s = text + i;
        i += n + 1;
        size_t fit = cols > 0 ? wr_text_cut(s, n, cols) : n;
        int esc = memchr(s, '\x1b', n) != NULL;
        if (fit == n || !wrap) {
            wr_strbuf_add(lines, s, fit);
            wr_strbuf_puts(lines, fit < n && esc ? "\x1b[0m\n" : "\n");
            count++;
            continue;
        }
        for (size_t k = 0, first = 1; k < n; first = 0) {
            int room = cols - (first ? 0 : ind);
            size_t end = k + wr_text_cut(s + k, n - k, room > 1 ? room : 1);
            size_t brk = end, next = end;
            if (end < n) {
                while (brk > k && s[brk] != ' ')
                    brk--;
                if (brk > k)
                    next = brk;
                else
                    brk = end;          /* one word wider than the room: cut it */
            }
            if (!first)
                wr_strbuf_add(lines, indent, (size_t)ind);
            wr_strbuf_add(lines, s + k, brk - k);
            wr_strbuf_puts(lines, "\n");
            count++;
            k = next;
            while (k < n && s[k] == ' ')
                k++;
        }
    }
    return count;
}

/* The first n lines of text into out. */
static void first_lines(const struct wr_strbuf *text, int n, struct wr_strbuf *out)
{
    size_t end = 0;
    for (int k = 0; k < n && end < text->len; k++) {
        const char *nl = memchr(text->s + end, '\n', text->len - end);
        end = nl ? (size_t)(nl - text->s) + 1 : text->len;
    }
    wr_strbuf_add(out, text->s ? text->s : "", end);
}

/* lo..hi, or lo when hi < lo. */
static long clamp(long v, long lo, long hi)
{
    return v > hi ? (hi > lo ? hi : lo) : v < lo ? lo : v;
}

/* The window of nrows rows and span half-hex widths around f's centre
 * (stopped at the board's edges), then moved by f's pan from there (and
 * stopped again): each step of a pan moves what the player sees. */
static void fit_window(const struct wl_draw_fit *f, int nrows, int span,
                       struct wl_draw_window *w)
{
    int rc = 25, xc = WL_DRAW_XMAX / 2;
    if (f->centre != WL_SQ_NONE && wl_grid_on_board(f->centre)) {
        rc = wl_sq_row(f->centre);
        xc = wl_grid_x(f->centre);
    }
    long top = clamp((long)rc - (nrows - 1) / 2, 0, 50 - nrows);
    top = clamp(top + f->pan_rows, 0, 50 - nrows);
    w->row_min = (int)top;
    w->row_max = (int)top + nrows - 1;
    /* east is smaller x: a pan east moves the window's x down */
    long xmax = clamp((long)xc + span / 2, span, WL_DRAW_XMAX);
    xmax = clamp(xmax - 2L * f->pan_cols, span, WL_DRAW_XMAX);
    w->x_max = (int)xmax;
    w->x_min = (int)xmax - span;
}

int wl_draw_text_fit(struct wr_strbuf *out, const struct wl_scenario *sc,
                     const struct wl_draw_view *v, const struct wl_draw_fit *f)
{
    int cols = f->cols > 0 ? f->cols : 0, rows = f->rows > 0 ? f->rows : 0;
    /* the map's most: its rows, and the half-hex widths its lines allow */
    int span = WL_DRAW_XMAX;
    if (cols > 0) {
        int s = (cols - (WL_TEXT_LABEL_W + WL_TEXT_CELL_W + 3)) / 2;
        span = s < 0 ? 0 : s < span ? s : span;
    }
    int nrows = 50;
    if (rows > 0 && rows - 3 < nrows)
        nrows = rows - 3 > 1 ? rows - 3 : 1;    /* its two number lines and one of key */
    if (f->radius >= 0) {
        if (2 * f->radius + 1 < nrows)
            nrows = 2 * f->radius + 1;
        if (4 * f->radius < span)
            span = 4 * f->radius;
    }
    struct wl_draw_stacks *st = malloc(sizeof *st);
    if (st == NULL) {
        out->failed = 1;
        return -1;
    }
    wl_draw_stacks_build(sc, v, st);
    struct wr_strbuf key, lines;
    wr_strbuf_init(&key);
    wr_strbuf_init(&lines);
    struct wl_draw_window w;
    int nkey = 0;
    /* The map first; from 24 rows on, it leaves the key up to a quarter
     * of them. */
    int least = rows >= 24 ? rows - 2 - rows / 4 : nrows;
    if (least > nrows)
        least = nrows;
    for (;;) {
        fit_window(f, nrows, span, &w);
        wr_strbuf_release(&key);
        wr_strbuf_release(&lines);
        draw_key_fit(&key, sc, v, st, &w, f->color, cols > 0 && cols < 100 ? cols : 100,
                     f->centre);
        nkey = fit_lines(key.s ? key.s : "", key.len, cols, 1, &lines);
        if (rows <= 0 || nrows + 2 + nkey <= rows || nrows <= least)
            break;
        nrows = rows - 2 - nkey > least ? rows - 2 - nkey : least;
    }
    struct wr_strbuf map;
    wr_strbuf_init(&map);
    draw_map(&map, sc, v, st, &w, f->color);
    struct wr_strbuf pic;
    wr_strbuf_init(&pic);
    int nmap = fit_lines(map.s ? map.s : "", map.len, cols, 0, &pic);
    int room = rows > 0 ? rows - nmap : nkey + 1;
    if (nkey + 1 <= room) {
        wr_strbuf_puts(&pic, "\n");
        wr_strbuf_add(&pic, lines.s ? lines.s : "", lines.len);
    } else if (nkey <= room) {
        wr_strbuf_add(&pic, lines.s ? lines.s : "", lines.len);
    } else if (room >= 1) {
        first_lines(&lines, room - 1, &pic);
        static const char more[] = "  ... the rest of the key and lists cut (play: board)\n";
        fit_lines(more, sizeof more - 1, cols, 0, &pic);
    }
    if (rows > 0)
        first_lines(&pic, rows, out);       /* a room too small for the map itself */
    else
        wr_strbuf_add(out, pic.s ? pic.s : "", pic.len);
    if (map.failed || pic.failed || key.failed || lines.failed)
        out->failed = 1;
    wr_strbuf_release(&map);
    wr_strbuf_release(&pic);
    wr_strbuf_release(&key);
    wr_strbuf_release(&lines);
    free(st);
    return out->failed ? -1 : 0;
}
