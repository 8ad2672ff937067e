/*
 * present.h - what a client shows of a game and reads from its player: the
 * presentation half of a ruleset (ruleset.h's `present`), version 3.
 *
 * A client holds a view of each game it follows: made by open() from the
 * game's scenario and options, fed every state the server sends (the
 * projection for the view's seat, with the server's "server" section), and
 * asked to describe it, draw it, turn a player's short order into a
 * command, and check that command with the same rules the server referees
 * with. The server's verdict stays final: a check here only spares a round
 * trip and explains a refusal before anything is sent.
 *
 * Contract (as in ruleset.h): pure functions, no I/O, no globals; JSON in
 * is borrowed, JSON out is a new reference; text is appended to a
 * wr_strbuf (strbuf.h), valid UTF-8, lines ending in "\n"; the view owns
 * what it keeps (it copies the scenario, options and state it needs), and
 * the host passed to open() must outlive the view. A view is used by one
 * thread at a time.
 */
#ifndef WR_PRESENT_H
#define WR_PRESENT_H

#include "reason.h"
#include "ruleset.h"
#include "strbuf.h"

struct json_t;
struct wr_present;

/* Version 2 added wr_draw_opts's pan_cols and pan_rows and draw_report. A
 * host reads draw_report only from a presentation of version 2 or more.
 * Version 3 added wr_order's preview and the attributes draw_svg's
 * document carries for a host (below, at draw_svg). */
#define WR_PRESENT_VERSION 3

/* One order a player can type: a command for the server, or a query the
 * view answers itself (where can this unit go, what are the odds). */
struct wr_order {
    const char *name;           /* its first word: "move" */
    const char *synopsis;       /* "move U[,U...] SQ..." */
    const char *help;           /* what it does and the rule it follows, one or two sentences */
    const char *example;        /* a line order() accepts: "move 1-f-inf J-40 J-41" */
    int query;                  /* 1: answered by the view, nothing is sent */
    /* Since version 3: the name of a query taking the same words that a
     * host shows before it sends this order (Waterloo: attack -> odds), or
     * NULL. */
    const char *preview;
};

/* The start of every view: a ruleset's own view struct has a struct
 * wr_view as its first member, and open() fills it. */
struct wr_view {
    const struct wr_present *pr;
    const struct wr_ruleset *rs;
    char seat[64];              /* the view's seat; "" for a spectator */
    int has_state;              /* update() has taken a state */
};

/* The room a text picture may take, and how. */
struct wr_draw_opts {
    int cols, rows;             /* characters and lines available; 0: no limit */
    int color;                  /* ANSI colours; 0: no ESC byte at all */
    /* Since version 2: the player's scrolling, in the picture's own steps
     * (for a map: columns and rows of squares) from where the view would
     * centre it; positive moves the window right and down. The picture
     * stops at its edges, and its coordinates stay on screen. */
    int pan_cols, pan_rows;
};

/* What order() made of a line. */
enum wr_order_kind {
    WR_ORDER_ERROR = -1,        /* why says what is wrong (bad_command and the synopsis) */
    WR_ORDER_COMMAND = 0,       /* *cmd holds the command to send */
    WR_ORDER_ANSWER = 1,        /* a query, answered in out (the view may mark the picture) */
};

struct wr_present {
    int version;                /* WR_PRESENT_VERSION */
    /* Every order, terminated by a NULL name, in the order help lists them. */
    const struct wr_order *orders;

    /* A view of a game for seat (NULL or "": a spectator) from its scenario
     * (may be NULL when the ruleset needs none) and options (may be NULL).
     * Returns the view, or NULL with why (bad_scenario, no_memory). */
    struct wr_view *(*open)(const struct wr_ruleset *rs, const struct json_t *scenario,
                            const struct json_t *options, const char *seat,
                            const struct wr_host *host, struct wr_refusal *why);
    void (*close)(struct wr_view *v);

    /* Take the state the server sent. 0, or -1 with why when it does not
     * fit the scenario (the view keeps the state it had). */
    int (*update)(struct wr_view *v, const struct json_t *state, struct wr_refusal *why);

    /* The decision panel. Where the game stands, in one line ("Turn 3,
     * 1815-06-16 11:00, french_move: awaiting french (move)"), then, when the
     * view's seat is awaited, its decision: what exactly the rules require
     * of it now (the units, factors owed, squares or towns allowed) and the
     * orders that make it, each with an example that the rules accept as
     * typed; then, for every seat, a few lines of record the ruleset keeps
     * (for a map game: the turn and turns left, what is still to arrive,
     * each side's losses). Before any state: one line saying so. */
    void (*describe)(const struct wr_view *v, struct wr_strbuf *out);

    /* One line (no "\n") for an event of a patch, as the view's seat sees it. */
    void (*event)(const struct wr_view *v, const struct json_t *event, struct wr_strbuf *out);

    /* A line the player typed. An order for the server gives
     * WR_ORDER_COMMAND and *cmd, with what the line leaves out filled from
     * the state (the next battle, this player's town); a query gives
     * WR_ORDER_ANSWER and its answer in out; anything else WR_ORDER_ERROR
     * and why. A line that is a JSON object is the host's business: it
     * never reaches order(). */
    enum wr_order_kind (*order)(struct wr_view *v, const char *line, struct json_t **cmd,
                                struct wr_strbuf *out, struct wr_refusal *why);

    /* Check cmd as the view's seat would send it now, with the rules the
     * server uses (dice replaced by a fixed face: a check never depends on
     * a roll). 1: the rules accept it; 0: it cannot be judged here (hidden
     * information, no state yet); -1: refused, why filled exactly as the
     * server would fill it. */
    int (*precheck)(struct wr_view *v, const struct json_t *cmd, struct wr_refusal *why);

    /* Candidates for the word being typed (word, possibly "") after the
     * words before it (words[0] is the order's name; nwords >= 1), each
     * passed to add(). The host completes the first word itself from the
     * orders table. */
    void (*complete)(const struct wr_view *v, const char *const *words, int nwords,
                     const char *word, void (*add)(void *ctx, const char *cand), void *ctx);

    /* The game as terminal text fitting o (its key included), or as one
     * SVG document. 0, or -1 when memory ran out.
     *
     * Since version 3 the SVG tells a host (a web page, a GUI) what its
     * elements are, with attributes any host may rely on:
     *  - data-word="W" on every element the player can name in an order,
     *    W exactly as order() accepts it (a square, a unit, a town, a cell);
     *  - data-select="LINE" on such an element: the query a host asks when
     *    the player selects it (Waterloo: "reach U");
     *  - data-act="LINE": the start of the order the element's clicks then
     *    complete, present only when the view's seat can act on it now
     *    (Waterloo: "place U" in the set-up, "move U" in movement,
     *    "attack U" while battles are declared, "retreat U", "exchange U",
     *    "advance U" when those are awaited);
     *  - data-clear="LINE" on the root <svg>: the query that removes the
     *    marks a query made (Waterloo: "clear");
     *  - class "reach" on the mark of each square a query marked. */
    int (*draw_text)(const struct wr_view *v, const struct wr_draw_opts *o,
                     struct wr_strbuf *out);
    int (*draw_svg)(const struct wr_view *v, struct wr_strbuf *out);

    /* Since version 2 (may be NULL: the ruleset has no report). A whole
     * game as one self-contained document a club can post (HTML with
     * inline SVG): the view's state, which update() was given last, is the
     * end of the game; steps (borrowed) is the array of its commands in
     * order, each {"seat":SEAT,"cmd":{...},"events":[...]} as the server
     * applied it. 0, or -1 when memory ran out or steps is not such an
     * array. */
    int (*draw_report)(const struct wr_view *v, const struct json_t *steps,
                       struct wr_strbuf *out);
};

/* The plain presentation (present.c): the state as indented JSON, events
 * as JSON, commands typed as JSON only, nothing checked locally. A ruleset
 * may start with it; the host needs nothing more to play its games. */
extern const struct wr_present wr_present_plain;

/* --- helpers (present.c) --------------------------------------------------- */

/* Fill the base of a view: pr and rs from rs, seat (NULL: ""). */
void wr_view_init(struct wr_view *v, const struct wr_ruleset *rs, const char *seat);

/* The order of pr called name, or NULL. */
const struct wr_order *wr_present_order(const struct wr_present *pr, const char *name);

/* The "server" section of a state: is seat awaited, and what must it send
 * (NULL: not awaited)? */
const char *wr_state_awaits(const struct json_t *state, const char *seat);

/* One line for the server section of state: "awaiting p2 (tactic), p3
 * (tactic)", "over: p1 won", "over: draw", "open: waiting for seats"; a
 * seat with a deadline running shows its time left as the server counted
 * it when it sent the state ("awaiting french (move; time left 23h 59m)":
 * a view has no clock), a forfeit its reason ("over: french forfeited
 * (french: no decision (move) in 86400 s (deadline ...))"). */
void wr_state_waiting_line(const struct json_t *state, struct wr_strbuf *out);

/* Reading a projected state in a presentation: the string at key of object
 * o (borrowed, valid while o is), or NULL when o has none there;
 * wr_state_text() the same for text shown, "?" when missing; the integer at
 * key, 0 when missing. o may be NULL. */
const char *wr_state_str(const struct json_t *o, const char *key);
const char *wr_state_text(const struct json_t *o, const char *key);
long long wr_state_int(const struct json_t *o, const char *key);

#endif
