/*
 * waterloo_autoplay.h - a random but legal Waterloo player, for tests (random games
 * checked against the invariants), benchmarks and the load tool.
 *
 * It proposes the next command for the awaited seat; it never decides
 * anything for the referee, so every proposal still goes through
 * wr_game_apply like any player's command. The random generator is a
 * value held by the caller (prng.h; no global state).
 */
#ifndef WR_AUTOPLAY_H
#define WR_AUTOPLAY_H

#include "waterloo_command.h"
#include "prng.h"

/* Fill cmd with a legal command for the awaited seat of g. Returns 0, or
 * -1 when the game is over. `reach` is scratch space (large; caller-owned). */
int wr_autoplay_next(const struct wr_game *g, struct wr_prng *rng, struct wr_reach *reach,
                     struct wr_cmd *cmd);

/* A command as JSON (new reference), in the form wr_cmd_parse reads. */
struct json_t *wr_cmd_json(const struct wr_game *g, const struct wr_cmd *cmd);

#endif
