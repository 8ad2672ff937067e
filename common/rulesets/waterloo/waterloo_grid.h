/*
 * waterloo_grid.h - the Waterloo board grid: squares, names, neighbours, distance.
 *
 * Rows are lettered A..Z, AA..WW (1..49) from the north edge; row 0 is the
 * partial row above A (named "0-46" etc. so it cannot be confused with row A).
 * Numbers 1..57 label diagonals running SSW to NNE, growing westward. The
 * geometry is the verified one of docs/waterloo-board.md:
 *
 *   E (r, c-1)   W (r, c+1)   NE (r-1, c)   NW (r-1, c+1)
 *   SE (r+1, c-1)   SW (r+1, c)
 *
 * A square is a small integer (wl_sq); WL_SQ_NONE means "no square".
 * Pure functions; no state.
 */
#ifndef WL_GRID_H
#define WL_GRID_H

#include <stddef.h>
#include <stdint.h>

#define WL_ROWS 50          /* 0 (partial row) .. 49 (WW) */
#define WL_COLS 58          /* 0 unused, 1 .. 57 */
#define WL_NSQ (WL_ROWS * WL_COLS)
#define WL_SQ_NONE ((wl_sq)-1)
#define WL_SQ_NAME_MAX 8    /* "WW-57" plus NUL fits; room to spare */

typedef int16_t wl_sq;

/* Hexside directions, clockwise from north-east. Opposite of d is (d+3)%6. */
enum wl_dir { WL_NE, WL_E, WL_SE, WL_SW, WL_W, WL_NW, WL_NDIR };

static inline wl_sq wl_sq_make(int row, int col) { return (wl_sq)(row * WL_COLS + col); }
static inline int wl_sq_row(wl_sq s) { return s / WL_COLS; }
static inline int wl_sq_col(wl_sq s) { return s % WL_COLS; }
static inline int wl_dir_opposite(int d) { return (d + 3) % WL_NDIR; }

/* True when (row, col) names a square inside the 0..49 x 1..57 frame. */
int wl_grid_in_frame(int row, int col);

/* Horizontal position in half-hex widths from the east edge: 2c + r - 51. */
int wl_grid_x(wl_sq s);

/* A square shows all six hexsides on the board: rows A..WW with 1 <= x <= 65. */
int wl_grid_playable(wl_sq s);

/* A partial edge square: odd rows at x = 0 or 66, and row-0 squares that
 * touch a playable square of row A. Partial squares are never playable. */
int wl_grid_partial(wl_sq s);

/* Playable or partial: the square exists on the board. */
int wl_grid_on_board(wl_sq s);

/* Neighbour of s in direction d, or WL_SQ_NONE when outside the frame.
 * The result may be a partial square; check wl_grid_playable(). */
wl_sq wl_grid_neighbour(wl_sq s, int d);

/* Direction from a to its neighbour b, or -1 when they are not adjacent. */
int wl_grid_dir_to(wl_sq a, wl_sq b);

/* Distance in squares: max(|dr|, |dc|, |dr + dc|). */
int wl_grid_distance(wl_sq a, wl_sq b);

/* Parse "X-27", "aa-25" or "0-46". Returns 0 and sets *out, or -1 when the
 * text is not a square name inside the frame (it need not be on the board).
 * len may be (size_t)-1 for a NUL-terminated string. */
int wl_grid_parse(const char *text, size_t len, wl_sq *out);

/* Write the name of s into buf (at least WL_SQ_NAME_MAX bytes); returns buf.
 * An out-of-frame square is written as "?". */
char *wl_grid_name(wl_sq s, char *buf);

/* Name of a direction ("NE", "E", ...). */
const char *wl_dir_name(int d);

#endif
