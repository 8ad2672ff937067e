/*
 * local.h - what the client works out itself for a Waterloo game, with the
 * same rules library the server referees with: the scenario, a wl_game
 * rebuilt from the state the server sent (wl_game_init_from_state), and on
 * it the check of an order before it is sent (the same reason code the
 * server would give), the squares a unit can reach, the odds of a battle,
 * and the picture of the board around the action.
 *
 * The server's verdict stays final: a local check only spares a round trip
 * and explains a refusal before anything is sent. An advance is not checked
 * locally (the state does not say which squares the defenders vacated).
 */
#ifndef WRC_LOCAL_H
#define WRC_LOCAL_H

#include <stdint.h>

#include "waterloo_move.h"
#include "waterloo_reason.h"
#include "render.h"
#include "strbuf.h"

struct json_t;
struct wrc_game;

struct wrc_local {
    struct wl_scenario *sc;     /* owned; NULL until a scenario is loaded */
    struct wl_game *g;          /* owned; the game at version `version` */
    int64_t version;            /* -1: not rebuilt yet */
    char game[64];              /* the game g was rebuilt for */
};

void wrc_local_init(struct wrc_local *l);
void wrc_local_release(struct wrc_local *l);

/* Load the scenario from its JSON (borrowed; a "base" is looked up by name
 * like `warroom render` does). 0, or -1 with a sentence in err. */
int wrc_local_load_scenario(struct wrc_local *l, const struct json_t *scenario, char *err,
                            size_t errlen);

/* Rebuild the game from game's state if its version moved. 0, or -1 with
 * why (the state does not fit the scenario). */
int wrc_local_sync(struct wrc_local *l, const struct wrc_game *game, struct wr_refusal *why);

/* Check cmd (borrowed) as game->seat would send it now. Returns WL_R_OK
 * when the rules accept it, or when it cannot be judged here (*checked is
 * then 0: an advance, or a seat that is not a side); else the reason, with
 * why filled exactly as the server would. */
enum wl_reason wrc_local_check(struct wrc_local *l, const struct wrc_game *game,
                               const struct json_t *cmd, int *checked,
                               struct wr_refusal *why);

/* Where units (ids separated by commas) can move now: marks the squares in
 * highlight (WL_NSQ bytes, caller's; cleared first) and lists them in out.
 * 0, or -1 with why (unknown unit, not on the board, ...). *from is the
 * units' square (WL_SQ_NONE for reinforcements). */
int wrc_local_reach(struct wrc_local *l, const char *units, uint8_t *highlight, wl_sq *from,
                    struct wr_strbuf *out, struct wr_refusal *why);

/* The odds of attackers against defenders (ids separated by commas or
 * spaces), with the terrain doubling of each defender and the CRT column's
 * results by die face, into out. 0, or -1 with why. */
int wrc_local_odds(struct wrc_local *l, const char *attackers, const char *defenders,
                   struct wr_strbuf *out, struct wr_refusal *why);

/* The square the action is at: where the last event of the game's log
 * happened, else the middle of the awaited side's units. */
wl_sq wrc_local_focus(const struct wrc_local *l, const struct wrc_game *game);

/* The board around centre (radius squares) as text, with highlight (may be
 * NULL) and ANSI colours when color is set. 0, or -1 (out of memory). */
int wrc_local_board(const struct wrc_local *l, const struct wrc_game *game, wl_sq centre,
                    int radius, const uint8_t *highlight, int color, struct wr_strbuf *out);

/* Unit ids of the scenario, NULL after the last (for completion). */
const char *wrc_local_unit_id(const struct wrc_local *l, int i);

#endif
