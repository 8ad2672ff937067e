/*
 * waterloo_ruleset.c - the Waterloo ruleset's glue: a wl_game with its own
 * copy of the scenario behind the generic interface of ruleset.h.
 */
#include "ruleset.h"

#include <jansson.h>
#include <stdlib.h>

#include "waterloo_autoplay.h"
#include "waterloo_command.h"
#include "waterloo_present.h"
#include "waterloo_game.h"
#include "waterloo_teams.h"

#define WL_MAX_SEATS (WL_NSIDES * WL_MAX_COMMANDERS)

struct waterloo {
    struct wr_game base;
    const struct wr_host *host;
    struct wl_scenario sc;
    struct wl_game g;
    /* The game's seats (waterloo_teams.h's order), NULL-terminated,
     * pointing into names; fixed at create. */
    const char *seats[WL_MAX_SEATS + 1];
    char names[WL_MAX_SEATS][WL_SEAT_MAX];
    /* The units as they stood before the last apply() (since create or
     * restore: as they stand): what every view a host holds shows, by
     * update_view's contract (ruleset.h), so comparing them with the game
     * tells update_view which units a command changed. Taken before every
     * apply, a refused one too (it changes nothing, so the copy is still
     * what the views show). Comparing a few bytes a unit after the fact
     * cannot miss a change the way marking units dirty at each of the
     * rules' many writes could. */
    struct wl_shown before;
};

static const char *const waterloo_seats[] = { "french", "allied", NULL };

static const struct wr_option waterloo_options[] = {
    { "rules", "the rules version, 1..2 (docs/rules-notes.md, \"Rules versions\"); "
               "new games are played under the newest" },
    { "commanders", "commanders a side, 1..the scenario's most (waterloo-1815: 3), rules 2; "
                    "1: the seats french and allied; more: a seat per commander, "
                    "french:napoleon, french:ney, ... (docs/rules-notes.md, \"Team play\")" },
    { "undo", "true or false (default true): a player may take back his last move in his "
              "movement phase (the undo order); tournament games set false" },
    { NULL, NULL }
};

extern const struct wr_ruleset wr_ruleset_waterloo;

/* The host's scenarios, for a scenario built on a "base". */
static json_t *waterloo_base(const char *name, void *ctx)
{
    const struct wr_host *host = ctx;
    return host->scenario(host->ctx, name);
}

static struct wr_game *waterloo_create(const json_t *scenario, const json_t *options,
                                       const char *game_id, const uint8_t *seed,
                                       const struct wr_host *host, struct wr_refusal *why)
{
    if (scenario == NULL) {
        wl_refuse(why, WL_R_BAD_SCENARIO, "waterloo needs a scenario");
        return NULL;
    }
    struct waterloo *w = calloc(1, sizeof *w);
    if (w == NULL) {
        wl_refuse(why, WL_R_NO_MEMORY, "out of memory");
        return NULL;
    }
    w->base.rs = &wr_ruleset_waterloo;
    w->host = host;
    int has_resolver = host && host->scenario;
    if (wl_scenario_load(&w->sc, scenario, has_resolver ? waterloo_base : NULL,
                         has_resolver ? (void *)host : NULL, why) != 0) {
        free(w);
        return NULL;
    }
    struct wl_options opt;
    if (wl_options_read(options, &w->sc, &opt, why) != 0) {
        free(w);
        return NULL;
    }
    wl_game_init_with(&w->g, &w->sc, game_id, seed, &opt);
    int n = 0;
    for (int side = 0; side < WL_NSIDES; side++)
        for (int k = 0; k < wl_team_size(&w->g); k++) {
            wl_team_seat(&w->g, side, k, w->names[n]);
            w->seats[n] = w->names[n];
            n++;
        }
    w->seats[n] = NULL;
    if (seed == NULL && host && host->roll) {
        w->g.roll_source = host->roll;
        w->g.roll_ctx = host->ctx;
    }
    wl_shown_take(&w->g, &w->before);
    return &w->base;
}

static void waterloo_destroy(struct wr_game *game)
{
    free(game);
}

static const char *const *waterloo_game_seats(const struct wr_game *game)
{
    return ((const struct waterloo *)game)->seats;
}

static int waterloo_apply(struct wr_game *game, const char *seat, const json_t *cmd,
                          json_t **events, struct wr_refusal *why)
{
    struct waterloo *w = (struct waterloo *)game;
    int side, k;
    *events = NULL;
    wl_shown_take(&w->g, &w->before);
    if (wl_team_parse_seat(&w->g, seat, &side, &k) != 0)
        return wl_refuse(why, WL_R_NOT_YOUR_TURN, "only the seats %s%s%s act", w->seats[0],
                         w->seats[2] ? ", ... " : " and ", w->seats[2] ? "(the commanders)"
                                                                        : w->seats[1]);
    return wl_game_apply_json_by(&w->g, side, k, cmd, events, why);
}

/* Waterloo hides nothing from either side or from spectators: the seed
 * stays out of the state until the game ends. */
static json_t *waterloo_project(const struct wr_game *game, const char *seat)
{
    (void)seat;
    return wl_game_state_json(&((const struct waterloo *)game)->g);
}

/* Only the units that changed since before are projected again, with
 * the few members besides them (wl_game_state_update). */
static json_t *waterloo_update_view(const struct wr_game *game, const char *seat, json_t *view)
{
    const struct waterloo *w = (const struct waterloo *)game;
    (void)seat;
    return wl_game_state_update(&w->g, &w->before, view);
}

/* Every seat sees every event: the events themselves, not a copy (a deep
 * copy of each command's events, twice per command, was 5% of warroomd's
 * instructions under load). */
static json_t *waterloo_project_events(const struct wr_game *game, const char *seat,
                                       const json_t *events)
{
    (void)game;
    (void)seat;
    return json_incref((json_t *)events);
}

static int waterloo_awaiting(const struct wr_game *game, struct wr_decision *out, int max)
{
    const struct waterloo *w = (const struct waterloo *)game;
    const struct wl_game *g = &w->g;
    uint8_t mine[WL_MAX_COMMANDERS];
    int n = 0;
    if (g->await_side < 0 || max < 1)
        return 0;
    wl_team_awaited(g, mine);
    for (int k = 0; k < wl_team_size(g) && n < max; k++)
        if (mine[k])
            out[n++] = (struct wr_decision){ w->seats[g->await_side * wl_team_size(g) + k],
                                             wl_await_name(g->await_what) };
    return n;
}

static const char *waterloo_result(const struct wr_game *game)
{
    const struct wl_game *g = &((const struct waterloo *)game)->g;
    return g->winner < 0 ? NULL : wl_side_name(g->winner);
}

static int waterloo_check(const struct wr_game *game, struct wr_refusal *why)
{
    return wl_game_check(&((const struct waterloo *)game)->g, why) == 0 ? 0 : -1;
}

/* The random player of waterloo_autoplay.h for seat, when seat is the one
 * awaited. Its scratch (a struct wl_reach, a path to every square, and a
 * command) is allocated for this call only: the game object stays as
 * small as its state, and nothing is shared between calls. */
static json_t *waterloo_autoplay(const struct wr_game *game, const char *seat,
                                 struct wr_prng *rng)
{
    const struct wl_game *g = &((const struct waterloo *)game)->g;
    uint8_t mine[WL_MAX_COMMANDERS];
    int side, k;
    if (g->await_side < 0 || wl_team_parse_seat(g, seat, &side, &k) != 0 ||
        side != g->await_side || (wl_team_awaited(g, mine), !mine[k]))
        return NULL;
    struct wl_reach *reach = malloc(sizeof *reach);
    struct wl_cmd *cmd = malloc(sizeof *cmd);
    json_t *j = NULL;
    if (reach && cmd && wl_autoplay_next_by(g, k, rng, reach, cmd) == 0)
        j = wl_cmd_json(g, cmd);
    free(reach);
    free(cmd);
    return j;
}

static json_t *waterloo_save(const struct wr_game *game)
{
    return wl_game_save_json(&((const struct waterloo *)game)->g);
}

/* The game as create() makes it, then its state from saved
 * (wl_game_restore_json: every value checked, then wl_game_check). */
static struct wr_game *waterloo_restore(const json_t *saved, const json_t *scenario,
                                        const json_t *options, const char *game_id,
                                        const uint8_t *seed, const struct wr_host *host,
                                        struct wr_refusal *why)
{
    struct wr_game *game = waterloo_create(scenario, options, game_id, seed, host, why);
    if (game == NULL)
        return NULL;
    struct waterloo *w = (struct waterloo *)game;
    if (wl_game_restore_json(&w->g, saved, why) != 0) {
        free(game);
        return NULL;
    }
    wl_shown_take(&w->g, &w->before);
    return game;
}

const struct wr_ruleset wr_ruleset_waterloo = {
    .version = WR_RULESET_VERSION,
    .name = "waterloo",
    .summary = "Waterloo (Avalon Hill, 1962): the French against the Anglo-Allied and "
               "Prussian armies, June 1815",
    .default_seats = waterloo_seats,
    .default_scenario = "waterloo-1815",
    .needs_scenario = 1,
    .options = waterloo_options,
    .reasons = &wl_reasons,
    .create = waterloo_create,
    .destroy = waterloo_destroy,
    .seats = waterloo_game_seats,
    .apply = waterloo_apply,
    .project = waterloo_project,
    .project_events = waterloo_project_events,
    .awaiting = waterloo_awaiting,
    .result = waterloo_result,
    .check = waterloo_check,
    .autoplay = waterloo_autoplay,
    .present = &wr_present_waterloo,
    .rules = WL_RULES,
    .save = waterloo_save,
    .restore = waterloo_restore,
    .update_view = waterloo_update_view,
};
