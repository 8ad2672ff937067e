/*
 * rules.h - what the client knows of each ruleset's state, as one table
 * (a ruleset is a value): whose decision it is, who won, one line saying
 * where the game stands, a sentence per event, a picture when the ruleset
 * needs no scenario, and the defaults a short command leaves to the state.
 *
 * Every function reads the state JSON the server sends (borrowed) and
 * writes into a wr_strbuf; none of them does I/O.
 */
#ifndef WRC_RULES_H
#define WRC_RULES_H

#include "strbuf.h"

struct json_t;

struct wrc_rules {
    const char *name;
    /* The seat whose decision is awaited, or NULL when the game is over. */
    const char *(*awaited)(const struct json_t *state);
    /* NULL while running; the winning seat or "draw" once over. */
    const char *(*winner)(const struct json_t *state);
    /* "Turn 3, 1815-06-18 09:00, french_move: awaiting french (move)". */
    void (*describe)(const struct json_t *state, struct wr_strbuf *out);
    /* One line for an event of a patch. */
    void (*event)(const struct json_t *event, struct wr_strbuf *out);
    /* A picture of the board when it needs no scenario (NULL otherwise). */
    void (*picture)(const struct json_t *state, int color, struct wr_strbuf *out);
    /* Fill what a short command leaves to the state (cmd is changed in
     * place): "end" during set-up means end_setup; "resolve" without a
     * number takes the first battle not yet fought. */
    void (*complete)(const struct json_t *state, struct json_t *cmd);
};

/* describe(), with " <- your decision" at the end of its first line when
 * seat (may be NULL or "") is the awaited one. */
void wrc_rules_summary(const struct wrc_rules *r, const struct json_t *state, const char *seat,
                       struct wr_strbuf *out);

/* The rules called name, or NULL. */
const struct wrc_rules *wrc_rules_find(const char *name);

#endif
