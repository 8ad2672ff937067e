/*
 * ruleset.h - a ruleset is a value: one table of functions through which
 * the server hosts any game (Waterloo, the test game tictactoe, the map
 * campaign). The server never asks which ruleset it holds.
 *
 * All JSON passed in is borrowed; all JSON returned is a new reference the
 * caller releases with json_decref().
 */
#ifndef WR_RULESET_H
#define WR_RULESET_H

#include <stdint.h>

#include "reason.h"

struct json_t;

/* One awaited decision: the seat and what it must send (a short word,
 * such as "mark", "move" or "tactic"). */
struct wr_decision {
    const char *seat;
    const char *what;
};

/* Most seats any ruleset awaits at once (a campaign: 8 players and a referee). */
#define WR_DECISIONS_MAX 16

struct wr_ruleset {
    const char *name;
    /* Seat names, NULL-terminated ("french", "allied"). */
    const char *const *seats;
    /* 1 when seats may see different states (sealed choices, hidden
     * units): the server then projects and diffs per seat; 0 when every
     * seat and spectator sees the same state, which is projected once. */
    int hidden_info;

    /* Seats of one game, NULL-terminated, when they depend on the game
     * (a campaign for 2 to 8 players); NULL here means `seats` above. */
    const char *const *(*game_seats)(void *game);

    /* Names of the game options the ruleset reads (NULL-terminated), which
     * the server accepts in a create message next to its own; NULL: none.
     * create() checks their values and refuses bad ones (WR_R_BAD_OPTIONS). */
    const char *const *options;

    /* A new game from a scenario (JSON object; may be NULL for rulesets
     * without scenarios) and options. Returns NULL with why filled. */
    void *(*create)(const struct json_t *scenario, const struct json_t *options,
                    const char *game_id, const uint8_t seed[32], struct wr_refusal *why);
    void (*destroy)(void *game);

    /* Validate a command from seat and apply it. On success *events is the
     * list of events (unprojected; pass it through project_events). On
     * refusal the game is unchanged and *events is NULL. */
    int (*apply)(void *game, const char *seat, const struct json_t *cmd,
                            struct json_t **events, struct wr_refusal *why);

    /* The state as seat may see it; seat NULL is the public view
     * (spectators). Everything sent out passes through these two.
     * project_events may return a new reference to events itself when
     * the seat may see them all: callers only read what they get. */
    struct json_t *(*project)(void *game, const char *seat);
    struct json_t *(*project_events)(void *game, const char *seat, const struct json_t *events);

    /* The seat whose decision is awaited, or NULL when the game is over;
     * when several are awaited at once, the first of awaiting(). */
    const char *(*awaited)(void *game);
    /* Every seat whose decision is awaited now, and what each must send,
     * in the ruleset's order: fills out[0..max) and returns how many (0
     * when the game is over or waits for nobody). The strings are owned
     * by the ruleset and stay valid until the game's next apply() or its
     * destroy(). Several seats are awaited at once when they decide
     * simultaneously (the campaign's sealed tactics). */
    int (*awaiting)(void *game, struct wr_decision *out, int max);
    /* NULL while running; the winning seat, or "draw", when over. */
    const char *(*result)(void *game);
};

extern const struct wr_ruleset wr_ruleset_waterloo;
extern const struct wr_ruleset wr_ruleset_tictactoe;
extern const struct wr_ruleset wr_ruleset_campaign;

/* The ruleset called name, or NULL. */
const struct wr_ruleset *wr_ruleset_find(const char *name);

/* Is seat one of the ruleset's seats? */
int wr_ruleset_has_seat(const struct wr_ruleset *rs, const char *seat);

#endif
