/*
 * waterloo_draw_internal.h - what the files of the board pictures share
 * (waterloo_draw.c, waterloo_draw_lines.c, waterloo_draw_svg.c,
 * waterloo_draw_text.c) and nothing else includes: the board's geometry in
 * SVG units, the units stacked on each square, the names of rows and unit
 * types, and the roads and rivers of the SVG.
 */
#ifndef WL_DRAW_INTERNAL_H
#define WL_DRAW_INTERNAL_H

#include "waterloo_draw.h"

#define WL_DRAW_XMAX 66         /* x of the west edge */

/* x = 2c + r - 51, for any row and diagonal (in the frame or not). */
static inline int wl_draw_x_rc(int r, int c)
{
    return 2 * c + r - 51;
}

/* SVG centre of (r, c), in the frame or not. */
void wl_draw_centre_rc(int r, int c, double *x, double *y);

#define WL_DRAW_BOARD_LEFT WL_SVG_ORIGIN_X
#define WL_DRAW_BOARD_RIGHT (WL_SVG_ORIGIN_X + WL_DRAW_XMAX * WL_SVG_HALF_W)
#define WL_DRAW_BOARD_TOP WL_SVG_ORIGIN_Y
#define WL_DRAW_BOARD_BOTTOM (WL_SVG_ORIGIN_Y + 49 * WL_SVG_ROW_H + WL_SVG_HEX_R / 2)

/* Units on each square, in scenario order: first[s] starts a list through
 * next[] (-1 ends it). A value; about 8 KB. */
struct wl_draw_stacks {
    int16_t first[WL_NSQ];
    int16_t next[WL_MAX_UNITS];
    uint8_t count[WL_NSQ];
    uint8_t factors[WL_NSQ];    /* combat factors stacked, at most 255 */
};

void wl_draw_stacks_build(const struct wl_scenario *sc, const struct wl_draw_view *v,
                          struct wl_draw_stacks *st);

/* The board's label of row r ("0", "A" .. "Z", "AA" .. "WW") into out (4 bytes). */
void wl_draw_row_name(int r, char *out);

/* The rivers, the roads over them and the bridges over both, as three SVG
 * paths and a group (waterloo_draw_lines.c). Sets b->failed when memory
 * runs out. */
void wl_draw_svg_lines(struct wr_strbuf *b, const struct wl_map *m);

#endif
