/*
 * waterloo_autoplay.h - a random but legal Waterloo player, for tests (random games
 * checked against the invariants), benchmarks and the load tool.
 *
 * It proposes the next command for the awaited seat; it never decides
 * anything for the referee, so every proposal still goes through
 * wl_game_apply like any player's command. The random generator is a
 * value held by the caller (prng.h; no global state).
 */
#ifndef WL_AUTOPLAY_H
#define WL_AUTOPLAY_H

#include "waterloo_command.h"
#include "prng.h"

/* Fill cmd with a legal command for the awaited seat of g. Returns 0, or
 * -1 when the game is over. `reach` is scratch space (large; caller-owned). */
int wl_autoplay_next(const struct wl_game *g, struct wr_prng *rng, struct wl_reach *reach,
                     struct wl_cmd *cmd);

/* The same for commander k of the awaited side (waterloo_teams.h), who
 * must be awaited: he moves only his own units and resolves only his own
 * battles. wl_autoplay_next() is commander 0's. */
int wl_autoplay_next_by(const struct wl_game *g, int k, struct wr_prng *rng,
                        struct wl_reach *reach, struct wl_cmd *cmd);

/* A command as JSON (new reference), in the form wl_cmd_parse reads. */
struct json_t *wl_cmd_json(const struct wl_game *g, const struct wl_cmd *cmd);

#endif
