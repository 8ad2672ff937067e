/*
 * waterloo_draw_text.c - the board, or a window of it, as terminal text
 * (waterloo_draw.h): one 4-character cell per square, ANSI 256 colours
 * when asked for, and a key.
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
    FG_EXIT = 19,
    BG_FR = 26, BG_PR = 28, BG_AA = 160, FG_UNIT = 231,
    BG_MARK = 226,
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

int wl_draw_text(struct wr_strbuf *out, const struct wl_scenario *sc,
                 const struct wl_draw_view *v, const struct wl_draw_window *win, int color)
{
    struct wl_draw_window all;
    if (win == NULL) {
        wl_draw_window_all(&all);
        win = &all;
    }
    struct wl_draw_stacks *st = malloc(sizeof *st);
    if (st == NULL) {
        out->failed = 1;
        return -1;
    }
    wl_draw_stacks_build(sc, v, st);
    const struct wl_map *m = &sc->map;
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
            } else {
                sgr(out, color, ce.bg, 0, 0);
                wr_strbuf_puts(out, " ");
            }
            sgr(out, color, ce.bg, ce.fg, ce.bold);
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
                                         u->move, wl_draw_type_words(u->type));
                    if (v->show_ids)
                        wr_strbuf_printf(out, " (%s)", u->id);
                    if (v->mine[i])
                        wr_strbuf_puts(out, " [yours]");
                    sep = ", ";
                }
                wr_strbuf_puts(out, "\n");
            }
        }
    }
    free(st);
    return out->failed ? -1 : 0;
}
