/*
 * waterloo_grid.h - the Waterloo board grid: squares, names, neighbours, distance.
 *
 * Rows are lettered A..Z, AA..WW (1..49) from the north edge; row 0 is the
 * partial row above A (named "0-46" etc. so it cannot be confused with row A).
 * Numbers 1..57 label diagonals running SSW to NNE, growing westward. The
 * geometry is the verified one of shared/reference/waterloo-board.md:
 *
 *   E (r, c-1)   W (r, c+1)   NE (r-1, c)   NW (r-1, c+1)
 *   SE (r+1, c-1)   SW (r+1, c)
 *
 * A square is a small integer (wr_sq); WR_SQ_NONE means "no square".
 * Pure functions; no state.
 */
#ifndef WR_GRID_H
#define WR_GRID_H

#include <stddef.h>
#include <stdint.h>

#define WR_ROWS 50          /* 0 (partial row) .. 49 (WW) */
#define WR_COLS 58          /* 0 unused, 1 .. 57 */
#define WR_NSQ (WR_ROWS * WR_COLS)
#define WR_SQ_NONE ((wr_sq)-1)
#define WR_SQ_NAME_MAX 8    /* "WW-57" plus NUL fits; room to spare */

typedef int16_t wr_sq;

/* Hexside directions, clockwise from north-east. Opposite of d is (d+3)%6. */
enum wr_dir { WR_NE, WR_E, WR_SE, WR_SW, WR_W, WR_NW, WR_NDIR };

static inline wr_sq wr_sq_make(int row, int col) { return (wr_sq)(row * WR_COLS + col); }
static inline int wr_sq_row(wr_sq s) { return s / WR_COLS; }
static inline int wr_sq_col(wr_sq s) { return s % WR_COLS; }
static inline int wr_dir_opposite(int d) { return (d + 3) % WR_NDIR; }

/* True when (row, col) names a square inside the 0..49 x 1..57 frame. */
int wr_grid_in_frame(int row, int col);

/* Horizontal position in half-hex widths from the east edge: 2c + r - 51. */
int wr_grid_x(wr_sq s);

/* A square shows all six hexsides on the board: rows A..WW with 1 <= x <= 65. */
int wr_grid_playable(wr_sq s);

/* A partial edge square: odd rows at x = 0 or 66, and row-0 squares that
 * touch a playable square of row A. Partial squares are never playable. */
int wr_grid_partial(wr_sq s);

/* Playable or partial: the square exists on the board. */
int wr_grid_on_board(wr_sq s);

/* Neighbour of s in direction d, or WR_SQ_NONE when outside the frame.
 * The result may be a partial square; check wr_grid_playable(). */
wr_sq wr_grid_neighbour(wr_sq s, int d);

/* Direction from a to its neighbour b, or -1 when they are not adjacent. */
int wr_grid_dir_to(wr_sq a, wr_sq b);

/* Distance in squares: max(|dr|, |dc|, |dr + dc|). */
int wr_grid_distance(wr_sq a, wr_sq b);

/* Parse "X-27", "aa-25" or "0-46". Returns 0 and sets *out, or -1 when the
 * text is not a square name inside the frame (it need not be on the board).
 * len may be (size_t)-1 for a NUL-terminated string. */
int wr_grid_parse(const char *text, size_t len, wr_sq *out);

/* Write the name of s into buf (at least WR_SQ_NAME_MAX bytes); returns buf.
 * An out-of-frame square is written as "?". */
char *wr_grid_name(wr_sq s, char *buf);

/* Name of a direction ("NE", "E", ...). */
const char *wr_dir_name(int d);

#endif
