/*
 * campaign_ruleset.c - the campaign ruleset's glue: a struct wr_campaign
 * behind the interface of ruleset.h (wr_ruleset_campaign).
 */
#include "campaign_internal.h"

#include <jansson.h>
#include <stdlib.h>

#include "present.h"

/* Every seat a campaign can have; a game's own are c->seats. */
static const char *const campaign_seats[] = { "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8",
                                              "referee", NULL };

static const struct wr_option campaign_options[] = {
    { "players", "how many players: 2..8 (default 2)" },
    { "alliances", "lists of players who win together, e.g. [[\"p1\",\"p2\"]]" },
    { "referee", "true: a referee seat settles disputed battle reports" },
    { "max_turns", "the campaign ends after this many turns: 1..10000 (default none)" },
    { "max_rounds", "rounds a battle may last before the attacker withdraws: 1..20" },
    { NULL, NULL },
};

static const struct wr_campaign *cast(const struct wr_game *g)
{
    return (const struct wr_campaign *)g;
}

static struct wr_game *campaign_create(const json_t *scenario, const json_t *options,
                                       const char *game_id, const uint8_t *seed,
                                       const struct wr_host *host, struct wr_refusal *why)
{
    if (scenario == NULL) {
        wr_campaign_refuse(why, WR_CR_BAD_SCENARIO, "a campaign needs a scenario: its map");
        return NULL;
    }
    struct wr_campaign_map *m = malloc(sizeof *m);
    if (m == NULL) {
        wr_campaign_refuse(why, WR_CR_NO_MEMORY, "out of memory");
        return NULL;
    }
    struct wr_campaign *c = NULL;
    if (wr_campaign_map_load(m, scenario, why) == 0)
        c = wr_campaign_new(m, options, game_id, seed, host, why);
    free(m);
    return c ? &c->base : NULL;
}

static void campaign_destroy(struct wr_game *g)
{
    wr_campaign_free((struct wr_campaign *)g);
}

static const char *const *campaign_game_seats(const struct wr_game *g)
{
    return cast(g)->seats;
}

static int campaign_apply(struct wr_game *g, const char *seat, const json_t *cmd,
                          json_t **events, struct wr_refusal *why)
{
    return (int)wr_campaign_apply((struct wr_campaign *)g, seat, cmd, events, why);
}

static json_t *campaign_project(const struct wr_game *g, const char *seat)
{
    return wr_campaign_project(cast(g), seat);
}

static json_t *campaign_project_events(const struct wr_game *g, const char *seat,
                                       const json_t *events)
{
    return wr_campaign_project_events(cast(g), seat, events);
}

static int campaign_awaiting(const struct wr_game *g, struct wr_decision *out, int max)
{
    struct cp_waiting w;
    cp_waiting(cast(g), &w);
    int n = 0;
    for (; n < w.n && n < max; n++)
        out[n] = (struct wr_decision){ w.seat[n], w.what[n] };
    return n;
}

static const char *campaign_result(const struct wr_game *g)
{
    const struct wr_campaign *c = cast(g);
    return c->winner[0] ? c->winner : NULL;
}

static int campaign_check(const struct wr_game *g, struct wr_refusal *why)
{
    return wr_campaign_check(cast(g), why);
}

static json_t *campaign_autoplay(const struct wr_game *g, const char *seat, struct wr_prng *rng)
{
    return wr_campaign_autoplay(cast(g), seat, rng);
}

static json_t *campaign_save(const struct wr_game *g)
{
    return cp_save(cast(g));
}

/* The campaign create() makes, then the saved fields over it (cp_restore). */
static struct wr_game *campaign_restore(const json_t *saved, const json_t *scenario,
                                        const json_t *options, const char *game_id,
                                        const uint8_t *seed, const struct wr_host *host,
                                        struct wr_refusal *why)
{
    struct wr_game *g = campaign_create(scenario, options, game_id, seed, host, why);
    if (g == NULL)
        return NULL;
    struct wr_campaign *c = cp_restore(saved, (struct wr_campaign *)g, why);
    return c ? &c->base : NULL;
}

const struct wr_ruleset wr_ruleset_campaign = {
    .version = WR_RULESET_VERSION,
    .name = "campaign",
    .summary = "the map campaign of the second rulebook: 2 to 8 players take towns, "
               "battles fought on the table",
    .default_seats = campaign_seats,
    .hidden_info = 1,
    .options = campaign_options,
    .default_scenario = "campaign/ancient-world",
    .needs_scenario = 1,
    .reasons = &wr_campaign_reasons,
    .create = campaign_create,
    .destroy = campaign_destroy,
    .seats = campaign_game_seats,
    .apply = campaign_apply,
    .project = campaign_project,
    .project_events = campaign_project_events,
    .awaiting = campaign_awaiting,
    .result = campaign_result,
    .check = campaign_check,
    .autoplay = campaign_autoplay,
    .present = &wr_present_campaign,
    .child = cp_child,
    .child_events = cp_child_events,
    .save = campaign_save,
    .restore = campaign_restore,
};
