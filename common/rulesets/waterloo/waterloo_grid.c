/*
 * waterloo_grid.c - square names and hex geometry of the Waterloo board.
 *
 * Every fact here comes from section 1 of docs/waterloo-board.md,
 * which was checked against every coordinate sequence of the rulebook.
 */
#include "waterloo_grid.h"

#include <stdio.h>
#include <string.h>

static const int dir_dr[WL_NDIR] = { -1, 0, 1, 1, 0, -1 };
static const int dir_dc[WL_NDIR] = { 0, -1, -1, 0, 1, 1 };
static const char *const dir_names[WL_NDIR] = { "NE", "E", "SE", "SW", "W", "NW" };

int wl_grid_in_frame(int row, int col)
{
    return row >= 0 && row < WL_ROWS && col >= 1 && col < WL_COLS;
}

static int sq_valid(wl_sq s)
{
    return s >= 0 && s < WL_NSQ && wl_sq_col(s) >= 1;
}

int wl_grid_x(wl_sq s)
{
    return 2 * wl_sq_col(s) + wl_sq_row(s) - 51;
}

int wl_grid_playable(wl_sq s)
{
    if (!sq_valid(s) || wl_sq_row(s) < 1)
        return 0;
    int x = wl_grid_x(s);
    return x >= 1 && x <= 65;
}

int wl_grid_partial(wl_sq s)
{
    if (!sq_valid(s))
        return 0;
    int r = wl_sq_row(s), c = wl_sq_col(s);
    if (r == 0) {
        /* Row 0 touches A-c (its SW neighbour) and A-(c-1) (its SE one). */
        return wl_grid_playable(wl_sq_make(1, c)) ||
               (c > 1 && wl_grid_playable(wl_sq_make(1, c - 1)));
    }
    int x = wl_grid_x(s);
    return (r % 2 == 1) && (x == 0 || x == 66);
}

int wl_grid_on_board(wl_sq s)
{
    return wl_grid_playable(s) || wl_grid_partial(s);
}

wl_sq wl_grid_neighbour(wl_sq s, int d)
{
    if (!sq_valid(s) || d < 0 || d >= WL_NDIR)
        return WL_SQ_NONE;
    int r = wl_sq_row(s) + dir_dr[d], c = wl_sq_col(s) + dir_dc[d];
    if (!wl_grid_in_frame(r, c))
        return WL_SQ_NONE;
    return wl_sq_make(r, c);
}

int wl_grid_dir_to(wl_sq a, wl_sq b)
{
    if (!sq_valid(a) || !sq_valid(b))
        return -1;
    int dr = wl_sq_row(b) - wl_sq_row(a), dc = wl_sq_col(b) - wl_sq_col(a);
    for (int d = 0; d < WL_NDIR; d++)
        if (dir_dr[d] == dr && dir_dc[d] == dc)
            return d;
    return -1;
}

static int iabs(int v) { return v < 0 ? -v : v; }

int wl_grid_distance(wl_sq a, wl_sq b)
{
    int dr = wl_sq_row(b) - wl_sq_row(a), dc = wl_sq_col(b) - wl_sq_col(a);
    int m = iabs(dr);
    if (iabs(dc) > m)
        m = iabs(dc);
    if (iabs(dr + dc) > m)
        m = iabs(dr + dc);
    return m;
}

static int upper(int ch) { return (ch >= 'a' && ch <= 'z') ? ch - 'a' + 'A' : ch; }

int wl_grid_parse(const char *text, size_t len, wl_sq *out)
{
    if (text == NULL)
        return -1;
    if (len == (size_t)-1)
        len = strlen(text);
    size_t i = 0;
    int row;

    /* 1) The row: "0", one letter, or a doubled letter (AA..WW). */
    if (len > 0 && text[0] == '0') {
        row = 0;
        i = 1;
    } else {
        if (len == 0 || upper(text[0]) < 'A' || upper(text[0]) > 'Z')
            return -1;
        int l = upper(text[0]);
        i = 1;
        if (i < len && upper(text[i]) == l) {
            i++;
            row = 26 + (l - 'A' + 1);
        } else {
            row = l - 'A' + 1;
        }
    }
    /* 2) The dash. */
    if (i >= len || text[i] != '-')
        return -1;
    i++;
    /* 3) The diagonal number, 1..57, no leading zero, at most two digits. */
    if (i >= len || text[i] < '1' || text[i] > '9')
        return -1;
    int col = 0, digits = 0;
    for (; i < len && text[i] >= '0' && text[i] <= '9'; i++) {
        if (++digits > 2)
            return -1;
        col = col * 10 + (text[i] - '0');
    }
    if (i != len || !wl_grid_in_frame(row, col))
        return -1;
    *out = wl_sq_make(row, col);
    return 0;
}

char *wl_grid_name(wl_sq s, char *buf)
{
    if (!sq_valid(s)) {
        strcpy(buf, "?");
        return buf;
    }
    int r = wl_sq_row(s), c = wl_sq_col(s);
    if (r == 0)
        snprintf(buf, WL_SQ_NAME_MAX, "0-%d", c);
    else if (r <= 26)
        snprintf(buf, WL_SQ_NAME_MAX, "%c-%d", 'A' + r - 1, c);
    else
        snprintf(buf, WL_SQ_NAME_MAX, "%c%c-%d", 'A' + r - 27, 'A' + r - 27, c);
    return buf;
}

const char *wl_dir_name(int d)
{
    return (d >= 0 && d < WL_NDIR) ? dir_names[d] : "?";
}
