/*
 * ruleset.c - what every host does with a ruleset's game, written once.
 * The table of rulesets is registry.c's.
 */
#include "ruleset.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int wr_ruleset_has_seat(const struct wr_ruleset *rs, const char *seat)
{
    for (int i = 0; seat && rs->default_seats[i]; i++)
        if (strcmp(rs->default_seats[i], seat) == 0)
            return 1;
    return 0;
}

const struct wr_option *wr_ruleset_option(const struct wr_ruleset *rs, const char *name)
{
    for (const struct wr_option *o = rs->options; name && o && o->name; o++)
        if (strcmp(o->name, name) == 0)
            return o;
    return NULL;
}

json_t *wr_game_options(const struct wr_ruleset *rs, const json_t *options, int fresh)
{
    json_t *o = json_is_object(options) ? json_deep_copy(options) : json_object();
    if (o == NULL || rs->rules <= 1 || json_object_get(o, "rules") != NULL)
        return o;
    if (json_object_set_new(o, "rules", json_integer(fresh ? rs->rules : 1)) != 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

int wr_game_apply(struct wr_game *g, const char *seat, const struct json_t *cmd,
                  struct json_t **events, struct wr_refusal *why)
{
    int r = g->rs->apply(g, seat, cmd, events, why);
#ifndef NDEBUG
    struct wr_refusal broken;
    if (r == 0 && g->rs->check(g, &broken) != 0) {
        /* A ruleset bug: the command was accepted into a state its own
         * invariants reject. Stop here, where the command is known. */
        fprintf(stderr, "%s: invariant broken after a command of %s: %s\n", g->rs->name,
                seat ? seat : "(none)", broken.message);
        abort();
    }
#endif
    return r;
}

int wr_game_nseats(const struct wr_game *g)
{
    const char *const *s = g->rs->seats(g);
    int n = 0;
    while (s[n])
        n++;
    return n;
}

int wr_game_seat_index(const struct wr_game *g, const char *seat)
{
    const char *const *s = g->rs->seats(g);
    for (int i = 0; seat && s[i]; i++)
        if (strcmp(s[i], seat) == 0)
            return i;
    return -1;
}

const char *wr_game_awaited(const struct wr_game *g)
{
    struct wr_decision d;
    return g->rs->awaiting(g, &d, 1) > 0 ? d.seat : NULL;
}

json_t *wr_game_update_view(const struct wr_game *g, const char *seat, json_t *view)
{
    return g->rs->version >= 6 && g->rs->update_view != NULL
               ? g->rs->update_view(g, seat, view) : NULL;
}

int wr_ruleset_can_save(const struct wr_ruleset *rs)
{
    return rs != NULL && rs->version >= 5 && rs->save != NULL && rs->restore != NULL;
}

json_t *wr_game_save(const struct wr_game *g)
{
    return wr_ruleset_can_save(g->rs) ? g->rs->save(g) : NULL;
}

struct wr_game *wr_game_restore(const struct wr_ruleset *rs, const json_t *saved,
                                const json_t *scenario, const json_t *options,
                                const char *game_id, const uint8_t *seed,
                                const struct wr_host *host, struct wr_refusal *why)
{
    if (!wr_ruleset_can_save(rs)) {
        wr_refuse(why, WR_R_BAD_COMMAND, "ruleset %s cannot restore a saved game",
                  rs ? rs->name : "(none)");
        return NULL;
    }
    return rs->restore(saved, scenario, options, game_id, seed, host, why);
}
