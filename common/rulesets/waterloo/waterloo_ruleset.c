/*
 * waterloo_ruleset.c - the Waterloo ruleset's glue: a wl_game with its own
 * copy of the scenario behind the generic interface of ruleset.h.
 */
#include "ruleset.h"

#include <jansson.h>
#include <stdlib.h>

#include "waterloo_command.h"
#include "waterloo_game.h"

struct waterloo {
    struct wl_scenario sc;
    struct wl_game g;
};

static const char *const waterloo_seats[] = { "french", "allied", NULL };

static void *waterloo_create(const json_t *scenario, const json_t *options,
                             const char *game_id, const uint8_t seed[32],
                             struct wr_refusal *why)
{
    (void)options;
    if (scenario == NULL) {
        wl_refuse(why, WL_R_BAD_COMMAND, "waterloo needs a scenario");
        return NULL;
    }
    struct waterloo *w = calloc(1, sizeof *w);
    if (w == NULL) {
        wl_refuse(why, WL_R_BAD_COMMAND, "out of memory");
        return NULL;
    }
    if (wl_scenario_load(&w->sc, scenario, NULL, NULL, why) != 0) {
        free(w);
        return NULL;
    }
    wl_game_init(&w->g, &w->sc, game_id, seed);
    return w;
}

static void waterloo_destroy(void *game)
{
    free(game);
}

static int waterloo_apply(void *game, const char *seat, const json_t *cmd,
                                     json_t **events, struct wr_refusal *why)
{
    struct waterloo *w = game;
    int side = seat ? wl_side_from_name(seat) : -1;
    *events = NULL;
    if (side < 0)
        return wl_refuse(why, WL_R_NOT_YOUR_TURN, "only the french and allied seats act");
    return wl_game_apply_json(&w->g, side, cmd, events, why);
}

/* Waterloo hides nothing from either side or from spectators: the seed
 * stays out of the state until the game ends. */
static json_t *waterloo_project(void *game, const char *seat)
{
    (void)seat;
    return wl_game_state_json(&((struct waterloo *)game)->g);
}

/* Every seat sees every event: the events themselves, not a copy (a deep
 * copy of each command's events, twice per command, was 5% of warroomd's
 * instructions under load). */
static json_t *waterloo_project_events(void *game, const char *seat, const json_t *events)
{
    (void)game;
    (void)seat;
    return json_incref((json_t *)events);
}

static const char *waterloo_awaited(void *game)
{
    const struct wl_game *g = &((struct waterloo *)game)->g;
    return g->await_side < 0 ? NULL : wl_side_name(g->await_side);
}

static int waterloo_awaiting(void *game, struct wr_decision *out, int max)
{
    const struct wl_game *g = &((struct waterloo *)game)->g;
    if (g->await_side < 0 || max < 1)
        return 0;
    out[0] = (struct wr_decision){ wl_side_name(g->await_side), wl_await_name(g->await_what) };
    return 1;
}

static const char *waterloo_result(void *game)
{
    const struct wl_game *g = &((struct waterloo *)game)->g;
    return g->winner < 0 ? NULL : wl_side_name(g->winner);
}

const struct wr_ruleset wr_ruleset_waterloo = {
    .name = "waterloo",
    .seats = waterloo_seats,
    .create = waterloo_create,
    .destroy = waterloo_destroy,
    .apply = waterloo_apply,
    .project = waterloo_project,
    .project_events = waterloo_project_events,
    .awaited = waterloo_awaited,
    .awaiting = waterloo_awaiting,
    .result = waterloo_result,
};
