/*
 * campaign_ruleset.c - the campaign ruleset's glue: a struct wr_campaign
 * behind the generic interface of ruleset.h (wr_ruleset_campaign).
 */
#include "campaign_internal.h"

#include <jansson.h>
#include <stdlib.h>

static const char *const all_seats[] = { "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8",
                                         "referee", NULL };
static const char *const option_names[] = { "players", "alliances", "referee", "max_turns",
                                            "max_rounds", NULL };

static const char *const *cr_game_seats(void *game)
{
    return ((struct wr_campaign *)game)->seats;
}

static void *cr_create(const json_t *scenario, const json_t *options, const char *game_id,
                       const uint8_t seed[32], struct wr_refusal *why)
{
    if (scenario == NULL) {
        wr_campaign_refuse(why, WR_CR_BAD_SCENARIO, "a campaign needs a scenario: its map");
        return NULL;
    }
    struct wr_campaign_map *m = malloc(sizeof *m);
    if (m == NULL) {
        wr_campaign_refuse(why, WR_CR_BAD_SCENARIO, "out of memory");
        return NULL;
    }
    struct wr_campaign *c = NULL;
    if (wr_campaign_map_load(m, scenario, why) == 0)
        c = wr_campaign_new(m, options, game_id, seed, why);
    free(m);
    return c;
}

static void cr_destroy(void *game)
{
    wr_campaign_free(game);
}

static int cr_apply(void *game, const char *seat, const json_t *cmd, json_t **events,
                               struct wr_refusal *why)
{
    return wr_campaign_apply(game, seat, cmd, events, why);
}

static json_t *cr_project(void *game, const char *seat)
{
    return wr_campaign_project(game, seat);
}

static json_t *cr_project_events(void *game, const char *seat, const json_t *events)
{
    return wr_campaign_project_events(game, seat, events);
}

static const char *cr_awaited(void *game)
{
    return wr_campaign_awaited(game);
}

static int cr_awaiting(void *game, struct wr_decision *out, int max)
{
    struct cp_waiting w;
    cp_waiting(game, &w);
    int n = 0;
    for (; n < w.n && n < max; n++)
        out[n] = (struct wr_decision){ w.seat[n], w.what[n] };
    return n;
}

static const char *cr_result(void *game)
{
    const struct wr_campaign *c = game;
    return c->winner[0] ? c->winner : NULL;
}

const struct wr_ruleset wr_ruleset_campaign = {
    .name = "campaign",
    .seats = all_seats,
    .hidden_info = 1,
    .game_seats = cr_game_seats,
    .options = option_names,
    .create = cr_create,
    .destroy = cr_destroy,
    .apply = cr_apply,
    .project = cr_project,
    .project_events = cr_project_events,
    .awaited = cr_awaited,
    .awaiting = cr_awaiting,
    .result = cr_result,
};
