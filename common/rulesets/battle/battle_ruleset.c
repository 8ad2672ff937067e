/*
 * battle_ruleset.c - the battle referee's glue: a struct bg_game behind the
 * interface of ruleset.h (wr_ruleset_battle). The presentation is
 * wr_present_battle (battle_present.h).
 */
#include "battle_game.h"

#include <jansson.h>
#include <stdlib.h>

#include "battle_present.h"

static const char *const battle_seats[] = { "p1", "p2", "referee", NULL };

static const struct wr_option battle_options[] = {
    { "points", "the battle's points: 1..100000 (default 1000); a roster may cost no more" },
    { "referee", "true: a referee seat settles disputed facts (else a D6 does)" },
    { "diagonal", "true or false: models whose corners touch diagonally fight (default true)" },
    { "deep_is_column", "true or false: more ranks than files is a march column, with no "
                        "rank bonus (default true)" },
    { "p1_elephants", "p1's familiarity with elephants: never_met, previously_fought, know "
                      "or expert (default never_met)" },
    { "p2_elephants", "p2's familiarity with elephants, as p1_elephants" },
    { "campaign", "an object of at most 4096 bytes as compact JSON: the campaign's arranged "
                  "battle, shown under the state's campaign as given" },
    { "ambush", "an array of sides (\"p1\", \"p2\") holding a Hidden Ambush Force, due at "
                "the start of the side's first player turn" },
    { NULL, NULL },
};

static const struct bg_game *cast(const struct wr_game *g)
{
    return (const struct bg_game *)g;
}

static struct wr_game *battle_create(const json_t *scenario, const json_t *options,
                                     const char *game_id, const uint8_t *seed,
                                     const struct wr_host *host, struct wr_refusal *why)
{
    (void)scenario;     /* the table is the players': no scenario */
    struct bg_game *g = bg_new(options, game_id, seed, host, why);
    if (g == NULL)
        return NULL;
    g->base.rs = &wr_ruleset_battle;
    return &g->base;
}

static void battle_destroy(struct wr_game *g)
{
    free(g);
}

static const char *const *battle_game_seats(const struct wr_game *g)
{
    return cast(g)->seats;
}

static int battle_apply(struct wr_game *g, const char *seat, const json_t *cmd,
                        json_t **events, struct wr_refusal *why)
{
    return bg_apply((struct bg_game *)g, seat, cmd, events, why);
}

static json_t *battle_project(const struct wr_game *g, const char *seat)
{
    return bg_project(cast(g), seat);
}

static json_t *battle_project_events(const struct wr_game *g, const char *seat,
                                     const json_t *events)
{
    return bg_project_events(cast(g), seat, events);
}

static int battle_awaiting(const struct wr_game *g, struct wr_decision *out, int max)
{
    return bg_awaiting(cast(g), out, max);
}

static const char *battle_result(const struct wr_game *g)
{
    return cast(g)->winner[0] ? cast(g)->winner : NULL;
}

static int battle_check(const struct wr_game *g, struct wr_refusal *why)
{
    return bg_check(cast(g), why);
}

static json_t *battle_autoplay(const struct wr_game *g, const char *seat, struct wr_prng *rng)
{
    return bg_autoplay(cast(g), seat, rng);
}

static json_t *battle_save(const struct wr_game *g)
{
    return bg_save(cast(g));
}

static struct wr_game *battle_restore(const json_t *saved, const json_t *scenario,
                                      const json_t *options, const char *game_id,
                                      const uint8_t *seed, const struct wr_host *host,
                                      struct wr_refusal *why)
{
    (void)scenario;     /* as create(): no scenario */
    struct bg_game *g = bg_restore(saved, options, game_id, seed, host, why);
    return g ? &g->base : NULL;
}

const struct wr_ruleset wr_ruleset_battle = {
    .version = WR_RULESET_VERSION,
    .name = "battle",
    .summary = "the battle referee: a tabletop battle's facts, tests and break points "
               "refereed by the campaign and battle rules",
    .default_seats = battle_seats,
    .hidden_info = 1,
    .options = battle_options,
    .default_scenario = NULL,
    .needs_scenario = 0,
    .reasons = &bg_reasons,
    .create = battle_create,
    .destroy = battle_destroy,
    .seats = battle_game_seats,
    .apply = battle_apply,
    .project = battle_project,
    .project_events = battle_project_events,
    .awaiting = battle_awaiting,
    .result = battle_result,
    .check = battle_check,
    .autoplay = battle_autoplay,
    .present = &wr_present_battle,
    .save = battle_save,
    .restore = battle_restore,
};
