/*
 * waterloo_present_internal.h - what the files of Waterloo's presentation
 * share (waterloo_present.c: the view, its state, checks, completion and
 * pictures; waterloo_present_order.c: short orders and queries;
 * waterloo_present_describe.c: where the game stands and the decision
 * awaited) and nothing else includes.
 */
#ifndef WL_PRESENT_INTERNAL_H
#define WL_PRESENT_INTERNAL_H

#include <jansson.h>

#include "waterloo_command.h"
#include "waterloo_present.h"

/* A view of one game (present.h's struct wr_view first). It owns every
 * pointer it holds; the scenario outlives the games that borrow it (g and
 * scratch), and all of them live until close(). */
struct wl_view {
    struct wr_view base;
    struct wl_scenario *sc;     /* loaded by open() */
    json_t *options;            /* a copy of open()'s options, or NULL (Waterloo reads none) */
    json_t *state;              /* a copy of the last state update() took; NULL before */
    struct wl_game *g;          /* that state as a game of sc; NULL before any state */
    struct wl_game *scratch;    /* where update() builds the next g and precheck() judges */
    int side;                   /* the view's seat as a side (enum wl_side), or -1 */
    int commander;              /* its commander in a team game (waterloo_teams.h), from
                                 * the last state; 0 otherwise, -1 for a seat that is
                                 * not one of the game's */
    /* The text picture's own state, changed by the queries and update(). */
    uint8_t marked[WL_NSQ];     /* squares a reach query marked, until the next state */
    int nmarked;
    wl_sq reach_from;           /* the square of the units reached (WL_SQ_NONE: arriving) */
    wl_sq centre;               /* `view SQ`: the picture's centre; WL_SQ_NONE: the action */
    int radius;                 /* `view SQ R`: squares around it; -1: as the room allows */
    wl_sq action;               /* where the last state moved or removed a unit, or none */
    /* What a state leaves out of an advance (which squares the defeated
     * defenders vacated, which attackers advanced already), kept from the
     * states seen: the squares of each battle's attackers then defenders
     * while it was declared, for the battles of one combat phase. */
    int seen_turn, seen_phase;
    uint8_t seen[WL_MAX_BATTLES];
    wl_sq seen_sq[WL_MAX_BATTLES][2 * WL_MAX_IN_BATTLE];
    /* The last move the pictures mark: where each unit stood before it
     * (its entry square for an arrival), WL_SQ_NONE for a unit not marked
     * (waterloo_present.c's note_last_move says which moves). */
    wl_sq moved_from[WL_MAX_UNITS];
};

/* Put back into work (a copy of v->g) what the state leaves out of the
 * advance awaited: the squares the battle's defenders vacated, and which
 * attackers advanced (no longer where they attacked from). 1 when v saw
 * the battle declared and work is complete, else 0 (work unchanged). */
int wl_present_fill_advance(const struct wl_view *v, struct wl_game *work);

/* order() (waterloo_present_order.c). */
enum wr_order_kind wl_present_order(struct wr_view *v, const char *line, json_t **cmd,
                                    struct wr_strbuf *out, struct wr_refusal *why);

/* The command of a line that is an order for the server (not a query),
 * with what it leaves out filled from v's state: 0 and *cmd (a new
 * reference), or -1 with why (bad_command and the order's synopsis). */
int wl_present_command(const struct wl_view *v, const char *line, json_t **cmd,
                       struct wr_refusal *why);

/* Judge cmd from v's seat on work, a copy of v->g the caller provides (it
 * is overwritten): 1 the rules accept it, 0 it cannot be judged here (no
 * state, a spectator, an advance after a battle v did not see declared:
 * the state does not say which squares were vacated), -1 refused with why
 * filled as the server fills it. */
int wl_present_judge(const struct wl_view *v, struct wl_game *work, const json_t *cmd,
                     struct wr_refusal *why);

/* complete() (waterloo_present_order.c). */
void wl_present_complete(const struct wr_view *v, const char *const *words, int nwords,
                         const char *word, void (*add)(void *ctx, const char *cand), void *ctx);

/* (waterloo_present.c) Is unit u one v's seat orders: of its side and, in a team game, under
 * its command (waterloo_teams.h)? v has a state. */
int wl_present_yours(const struct wl_view *v, int u);

/* describe() (waterloo_present_describe.c). */
void wl_present_describe(const struct wr_view *v, struct wr_strbuf *out);

/* draw_report() (waterloo_report.c). */
int wl_present_draw_report(const struct wr_view *v, const json_t *steps, struct wr_strbuf *out);

/* The orders table (waterloo_present_order.c), NULL-terminated. */
extern const struct wr_order wl_present_orders[];

#endif
