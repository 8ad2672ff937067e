/*
 * waterloo_draw.h - pictures of a Waterloo board: the whole board as SVG, or
 * the board or a window of it as terminal text (with or without ANSI
 * colours). The presentation (waterloo_present.h) draws with these; the
 * code is in waterloo_draw.c (views), waterloo_draw_svg.c and
 * waterloo_draw_lines.c (the SVG) and waterloo_draw_text.c (the text).
 *
 * The drawing functions are pure: they read a scenario and a "view" (where
 * each unit stands) and append to a wr_strbuf; they open no files and print
 * nothing. The caller does the I/O.
 *
 * Geometry (docs/waterloo-board.md section 1): pointy-top hexes;
 * row r (0 = the partial row north of A, 1 = A .. 49 = WW) runs east-west;
 * x = 2c + r - 51 is the horizontal position in half-hex widths from the
 * EAST edge, so west is larger x. Both pictures put north up and west left:
 *
 *   SVG:  the centre of square (r, c) is at
 *           sx = WL_SVG_ORIGIN_X + (66 - x) * WL_SVG_HALF_W
 *           sy = WL_SVG_ORIGIN_Y + r * WL_SVG_ROW_H
 *         The board is the rectangle from the centres of the x = 66 squares
 *         (west edge) to those of the x = 0 squares (east edge), and from the
 *         centre line of row 0 to half a hex side below the centres of WW:
 *         partial squares show as cut hexes. Every counter is a group
 *           <g class="unit" id="u-<unit id>" transform="translate(X Y)"
 *              data-word="<unit id>" ...>
 *         centred on (X, Y): the k-th unit (0-based, in drawing order: the
 *         weakest first and the strongest last, on top; scenario order
 *         among equals) of a stack of n on a square is drawn at
 *           X = sx + (k - (n-1)/2) * WL_SVG_STACK_STEP
 *           Y = sy - (k - (n-1)/2) * WL_SVG_STACK_STEP
 *         so a lone unit sits on the centre of its square. What a host may
 *         rely on (present.h, draw_svg) follows the transform: data-word,
 *         then in a view's picture data-select and data-act; each square's
 *         hex carries data-word="<square>", and the squares reach marked a
 *         hex of class "reach" (in <g id="reach">).
 *
 *   Text: one cell of 4 characters per square; each half-hex width is 2
 *         characters, so a row is indented 2 characters against its
 *         neighbours (the hex stagger). In a window with columns
 *         x_min..x_max, the cell of square x starts at character
 *           WL_TEXT_LABEL_W + 2 * (x_max - x)
 *         of its line (counting visible characters, not ANSI escapes); its
 *         first character is blank ('*' on a highlighted square, '+' on a
 *         square of the other side's last move) and its marker is in
 *         characters 1..3.
 *         Each board row is one line, with the row name left and right; the
 *         diagonal numbers are written above the top row and below the
 *         bottom row, each where the square of that diagonal would be one
 *         row further out (the diagonal continued off the window).
 */
#ifndef WL_DRAW_H
#define WL_DRAW_H

#include "waterloo_game.h"
#include "waterloo_reason.h"
#include "waterloo_scenario.h"
#include "strbuf.h"

struct json_t;

/* SVG geometry, in SVG user units (pixels). */
#define WL_SVG_HEX_R 20.0                       /* hex circumradius */
#define WL_SVG_HALF_W 17.320508075688775        /* half a hex width: R * sqrt(3) / 2 */
#define WL_SVG_ROW_H 30.0                       /* row spacing: 1.5 R */
#define WL_SVG_ORIGIN_X 150.0                   /* sx of x = 66 (the west edge) */
#define WL_SVG_ORIGIN_Y 110.0                   /* sy of row 0 (the north edge) */
#define WL_SVG_STACK_STEP 3.0                   /* offset between stacked counters */
#define WL_SVG_COUNTER 22.0                     /* side of a counter */

/* Text layout. */
#define WL_TEXT_LABEL_W 4                       /* "WW  " before the first cell */
#define WL_TEXT_CELL_W 4

/* What the picture shows of a game: where each unit stands and a caption.
 * A value (no pointers); about 6 KB, so callers usually allocate it. */
struct wl_draw_view {
    wl_sq at[WL_MAX_UNITS];     /* square of unit i on the board, or WL_SQ_NONE */
    int pending;                /* units not yet arrived */
    int eliminated;
    int exited;
    char caption[160];          /* "Turn 3, 1815-06-16 11:00, french_move" */
    uint8_t highlight[WL_NSQ];  /* squares to mark (where a unit may go: reach): '*' in
                                 * the text, a hex of class "reach" in the SVG */
    int show_ids;               /* text only: give each unit's id in the list of units */
    uint8_t mine[WL_MAX_UNITS]; /* units of the viewer's command (team play): the text's
                                 * list says "yours", the SVG rings the counter */
    /* What the SVG shows beside and over the board (the arrivals track, the
     * eliminated pile, the last move). */
    int turn;                   /* the state's turn; the set-up's start turn */
    uint8_t off[WL_MAX_UNITS];  /* enum wl_draw_off: why unit i is not on the board */
    wl_sq from[WL_MAX_UNITS];   /* where unit i stood before the last move the picture
                                 * marks (an entry square for an arrival), or WL_SQ_NONE:
                                 * not marked */
    /* What the SVG says to a host (present.h, draw_svg): with select set,
     * each unit carries data-select="reach U" and the root data-clear=
     * "clear"; act[i] (enum wl_draw_act) the order unit i's clicks start,
     * data-act="move U" and so on, none when 0. A report sets neither. */
    int select;
    uint8_t act[WL_MAX_UNITS];
    uint8_t last_move[WL_NSQ];  /* text only: the squares of the marked move, where
                                 * its units stood and stand (wl_draw_mark_moves() sets
                                 * them from from and at), marked '+' */
};

/* The order a unit's clicks start in a view's SVG (struct wl_draw_view's
 * act): its name is wl_draw_act_name(). */
enum wl_draw_act {
    WL_DRAW_ACT_NONE = 0,
    WL_DRAW_ACT_MOVE,
    WL_DRAW_ACT_ATTACK,
    WL_DRAW_ACT_RETREAT,
    WL_DRAW_ACT_EXCHANGE,
    WL_DRAW_ACT_ADVANCE,
    WL_DRAW_ACT_PLACE,
};

/* "move", "attack", ... for act (static storage); NULL for none. */
const char *wl_draw_act_name(int act);

/* Set v->last_move from v->from and v->at: the square each marked unit
 * stood on and the one it stands on. */
void wl_draw_mark_moves(struct wl_draw_view *v);

/* "horse artillery" for people, where wl_utype_name says "horse_artillery"
 * (static storage). */
const char *wl_draw_type_words(int type);

/* Why a unit of a view is off the board (struct wl_draw_view's off). */
enum wl_draw_off {
    WL_DRAW_ON = 0,             /* on the board, or not in this game */
    WL_DRAW_PENDING,            /* still to arrive */
    WL_DRAW_ELIMINATED,
    WL_DRAW_EXITED,
};

/* The scenario's start for a game of opt (NULL: the newest rules, one
 * commander a side): its set-up units at their set-up squares, its
 * arrivals pending, units not in such a game left out, nothing
 * highlighted. */
void wl_draw_view_setup(struct wl_draw_view *v, const struct wl_scenario *sc,
                        const struct wl_options *opt);

/* Units placed as a state says (the JSON of wl_game_state_json, borrowed):
 * "units" maps unit ids to {"at": square | "pending" | "eliminated" |
 * "exited"}. Units the state leaves out are not drawn. No move is marked
 * (from[] is all WL_SQ_NONE): the caller that knows one marks it. Returns 0, or -1
 * with why (may be NULL) naming the problem: not an object, a unit the
 * scenario does not have, a square that is not on the board. */
int wl_draw_view_from_state(struct wl_draw_view *v, const struct wl_scenario *sc,
                            const struct json_t *state, struct wr_refusal *why);

/* Centre of square s in the SVG (any s in the frame). */
void wl_draw_svg_centre(wl_sq s, double *x, double *y);

/* The whole board as one SVG document (starts with "<svg", ends with
 * "</svg>\n"). v may be NULL for the set-up. Returns 0, or -1 when memory
 * ran out (out->failed). */
int wl_draw_svg(struct wr_strbuf *out, const struct wl_scenario *sc,
                const struct wl_draw_view *v);

/* A rectangle of the board for the text picture: rows row_min..row_max and
 * squares whose centre x lies in x_min..x_max (all inclusive). */
struct wl_draw_window {
    int row_min, row_max;
    int x_min, x_max;
};

/* The whole board: rows 0..49, x 0..66. */
void wl_draw_window_all(struct wl_draw_window *w);

/* radius squares around centre in every direction (rows centre-radius ..
 * centre+radius, x within 2 * radius), cut to the board. Returns 0, or -1
 * when centre is not on the board or radius is negative. */
int wl_draw_window_around(struct wl_draw_window *w, wl_sq centre, int radius);

/* The window w (NULL: the whole board) as text lines ending in "\n", with
 * ANSI colours when color is non-zero, and a key below: the caption, the
 * meaning of the markers, the towns and entries inside the window and,
 * when a window is given (w not NULL), the units of every stack in it. A unit
 * stack shows as the nation letter of its first unit (F French, P
 * Prussian, A Anglo-Allied) and its combat factors ("F11"), or "FHQ" for
 * HQs alone; with colour, a stack's text is drawn on its square's own
 * background (terrain or town, a river underlined), in its nation's
 * colour. A square of last_move has '+' in its cell's first character
 * ('*' of a highlight wins). Without colour the output has no ESC byte (the map cells are
 * ASCII; names are copied from the scenario as they are).
 * Returns 0, or -1 when memory ran out. */
int wl_draw_text(struct wr_strbuf *out, const struct wl_scenario *sc,
                 const struct wl_draw_view *v, const struct wl_draw_window *w, int color);

/* The room a text picture must fit, and what it centres on. */
struct wl_draw_fit {
    int cols, rows;             /* characters and lines; 0: no limit */
    int color;                  /* ANSI colours; 0: no ESC byte at all */
    wl_sq centre;               /* the square the window is centred on; WL_SQ_NONE: the
                                 * middle of the board */
    int radius;                 /* at most this many squares around centre; -1: as the
                                 * room allows */
    int pan_cols, pan_rows;     /* the window moved this many squares east and south of
                                 * centre, stopping at the board's edges */
};

/* The text picture within f's room: never more than f->rows lines nor
 * f->cols characters a line (escapes take no room). First the map, as
 * large a window as fits (its diagonal numbers above and below, its row
 * names on both sides), then, as long as lines are left: the caption, the
 * key's line for stacks, the marks' meaning, the window's stacks unit by unit (the nearest to the
 * centre first), the key's markers and the towns and entries in the
 * window; what does not fit is cut and the last line says so (the
 * client's `board` shows it all). From 24 rows on, the map leaves the key
 * up to a quarter of them. Key lines are wrapped with a hanging indent,
 * map lines cut. Returns 0, or -1 when memory ran out. */
int wl_draw_text_fit(struct wr_strbuf *out, const struct wl_scenario *sc,
                     const struct wl_draw_view *v, const struct wl_draw_fit *f);

/* The most characters a line of window w's board takes (row names on both
 * sides and diagonal numbers included): no line wl_draw_text() writes
 * above its key is wider. */
int wl_draw_window_width(const struct wl_draw_window *w);

#endif
