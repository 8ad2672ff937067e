/*
 * campaign_game.c - one campaign's life: the phase machine that applies a
 * command (the table of campaign.h, as data), the invariants checked after
 * every command, and the options and the creation of the state.
 *
 * Everything a seat may not see is filtered in campaign_project.c and only
 * there: the server diffs each seat's projection (hidden_info = 1), so a
 * tactic, a salt, a commitment or an ambush note can reach another seat or
 * a spectator only through wr_campaign_project() or
 * wr_campaign_project_events().
 */
#include "campaign_internal.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dice.h"

/* The phase machine of campaign.h, as data: which command each phase takes. */
static const struct transition {
    enum wr_campaign_phase phase;
    enum wr_campaign_cmd_type cmd;
    cp_handler *run;
} transitions[] = {
    { WR_CP_START, WR_CC_START, cp_do_start },
    { WR_CP_DRAFT, WR_CC_CHOOSE_TOWN, cp_do_choose_town },
    { WR_CP_ATTACK, WR_CC_ATTACK, cp_do_attack },
    { WR_CP_COUNTER, WR_CC_COUNTER, cp_do_counter },
    { WR_CP_STRATEGY, WR_CC_CHOOSE_STRATEGY, cp_do_choose_strategy },
    { WR_CP_STRATEGY, WR_CC_SEAL_AMBUSH, cp_do_seal_ambush },
    { WR_CP_TACTICS, WR_CC_SEAL_AMBUSH, cp_do_seal_ambush },
    { WR_CP_TACTICS, WR_CC_COMMIT, cp_do_commit },
    { WR_CP_TACTICS, WR_CC_TACTIC, cp_do_tactic },
    { WR_CP_BATTLE, WR_CC_SEAL_AMBUSH, cp_do_seal_ambush },
    { WR_CP_BATTLE, WR_CC_REVEAL_AMBUSH, cp_do_reveal_ambush },
    { WR_CP_BATTLE, WR_CC_REPORT, cp_do_report },
    { WR_CP_BATTLE, WR_CC_SETTLE, cp_do_settle },
};

enum wr_campaign_reason wr_campaign_apply(struct wr_campaign *c, const char *seat, const json_t *cmd,
                                 json_t **events, struct wr_refusal *why)
{
    struct wr_campaign_cmd k;
    *events = NULL;
    /* 1) the game runs, 2) the command is well formed, 3) this phase takes
     *    it; then the handler checks the seat and the rules. */
    if (c->phase == WR_CP_OVER)
        return wr_campaign_refuse(why, WR_CR_GAME_OVER, "the campaign is over");
    enum wr_campaign_reason r = wr_campaign_parse_command(cmd, &k, why);
    if (r != WR_CR_OK)
        return r;
    const struct transition *tr = NULL;
    for (size_t i = 0; i < sizeof transitions / sizeof transitions[0] && !tr; i++)
        if (transitions[i].phase == c->phase && transitions[i].cmd == k.type)
            tr = &transitions[i];
    if (tr == NULL)
        return wr_campaign_refuse(why, WR_CR_WRONG_PHASE, "%s is not taken in the %s phase",
                         cp_command_name(k.type), cp_phase_names[c->phase]);
    if (wr_campaign_player(c, seat) < 0 && !cp_is_referee(c, seat))
        return wr_campaign_refuse(why, WR_CR_NOT_YOUR_TURN, "'%.16s' is not a seat of this campaign",
                         seat ? seat : "(none)");
    json_t *ev = json_array();
    if (ev == NULL)
        return wr_campaign_refuse(why, WR_CR_NO_MEMORY, "out of memory");
    /* Without a seed the host gives the dice (a record replayed), and may
     * have no face for a roll: the command is then refused and the game
     * left as it was (ruleset.h), so it is kept until the command is in. */
    struct wr_campaign *before = NULL;
    if (!c->has_seed) {
        before = malloc(sizeof *before);
        if (before == NULL) {
            json_decref(ev);
            return wr_campaign_refuse(why, WR_CR_NO_MEMORY, "out of memory");
        }
        memcpy(before, c, sizeof *before);
    }
    r = tr->run(c, seat, &k, ev, why);
    if (r == WR_CR_OK && c->roll_missing) {
        uint32_t missing = c->missing_k;
        memcpy(c, before, sizeof *c);
        r = wr_campaign_refuse(why, WR_CR_BAD_COMMAND, "roll %lu has no face: the game has no "
                               "seed and the host gave none", (unsigned long)missing);
    }
    free(before);
    if (r != WR_CR_OK) {
        json_decref(ev);
        return r;
    }
    *events = ev;
    return WR_CR_OK;
}

/* --- invariants ------------------------------------------------------------------------ */

static int broken(struct wr_refusal *why, const char *what)
{
    wr_campaign_refuse(why, WR_CR_BAD_COMMAND, "campaign invariant: %s", what);
    return -1;
}

int wr_campaign_check(const struct wr_campaign *c, struct wr_refusal *why)
{
    int n = c->nplayers, owned = 0;
    if (n < WR_CAMPAIGN_PLAYERS_MIN || n > WR_CAMPAIGN_PLAYERS_MAX)
        return broken(why, "2 to 8 players");
    if ((int)c->phase < WR_CP_START || c->phase > WR_CP_OVER)
        return broken(why, "a known phase");
    for (int p = 0; p < n; p++)
        if (c->group[p] < 0 || c->group[p] > p || c->group[c->group[p]] != c->group[p])
            return broken(why, "a group is named by its lowest player");
    for (int t = 0; t < c->map.ntowns; t++) {
        if (c->owner[t] < -1 || c->owner[t] >= n)
            return broken(why, "owners are players or nobody");
        owned += c->owner[t] >= 0;
    }
    if (c->phase == WR_CP_START && (owned || c->first >= 0))
        return broken(why, "nothing chosen before the start");
    if (c->phase == WR_CP_DRAFT && (owned == c->map.ntowns || c->first < 0 || c->active < 0 ||
                                    c->active >= n || c->active != (c->first + owned) % n))
        return broken(why, "the draft goes round from the first chooser");
    if (c->phase >= WR_CP_ATTACK && c->phase <= WR_CP_BATTLE) {
        if (owned != c->map.ntowns)
            return broken(why, "every town is held after the draft");
        if (c->turn < 1 || (c->max_turns && c->turn > c->max_turns))
            return broken(why, "the turn is within the limit");
        if (c->active < 0 || c->active >= n || cp_towns_of(c, c->active) == 0)
            return broken(why, "the active player holds a town");
    }
    if (c->phase == WR_CP_ATTACK && !wr_campaign_can_attack(c, c->active))
        return broken(why, "the attacker has a town to attack");
    if (c->phase >= WR_CP_COUNTER && c->phase <= WR_CP_BATTLE) {
        const struct wr_campaign_attack *a = &c->at;
        if (a->attacker != c->active || a->defender < 0 || a->defender >= n ||
            cp_allies(c, a->attacker, a->defender))
            return broken(why, "the active player attacks an enemy");
        if (a->target < 0 || a->target >= c->map.ntowns ||
            (!a->battle && c->owner[a->target] != a->defender))
            return broken(why, "the target is the defender's");
        if ((c->phase == WR_CP_COUNTER) != (a->counter < 0))
            return broken(why, "the counter town is chosen after the counter phase");
        if (a->counter >= 0 && c->owner[a->counter] != a->attacker)
            return broken(why, "the counter town is the attacker's");
        if ((c->phase == WR_CP_STRATEGY) != cp_strategy_pending(c, -1))
            return broken(why, "the strategy phase is while a choice is pending");
        if ((c->phase == WR_CP_BATTLE) != a->battle)
            return broken(why, "the battle phase is after a battle result");
        if (a->nrounds > c->max_rounds + 1 || (!a->battle && a->nrounds >= c->max_rounds))
            return broken(why, "the rounds stay within the limit");
        if (c->phase == WR_CP_TACTICS && a->tactic[0].chosen && a->tactic[1].chosen)
            return broken(why, "both tactics in means the round is resolved");
        for (int i = 0; i < a->nrounds; i++)
            if (i > 0 && (a->rounds[i].side[0].choice == a->rounds[i - 1].side[0].choice ||
                          a->rounds[i].side[1].choice == a->rounds[i - 1].side[1].choice))
                return broken(why, "no side repeats its last tactic");
    }
    if (c->phase == WR_CP_OVER && (c->winner[0] == '\0' || c->end == NULL))
        return broken(why, "a finished campaign has a result");
    if (c->phase != WR_CP_OVER && c->winner[0])
        return broken(why, "no result while running");
    return 0;
}

/* --- creation ------------------------------------------------------------------------ */

static int bad_option(struct wr_refusal *why, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Fill why with a bad_options refusal; returns -1. */
static int bad_option(struct wr_refusal *why, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    wr_campaign_vrefuse(why, WR_CR_BAD_OPTIONS, fmt, ap);
    va_end(ap);
    return -1;
}

/* Read the options into c (players, referee, limits, alliances). */
static int read_options(struct wr_campaign *c, const json_t *o, struct wr_refusal *why)
{
    c->nplayers = 2;
    c->max_rounds = WR_CAMPAIGN_ROUNDS_DEFAULT;
    if (o != NULL && !json_is_object(o))
        return bad_option(why, "options must be an object");
    json_t *v;
    if ((v = json_object_get(o, "players")) != NULL) {
        if (!json_is_integer(v) || json_integer_value(v) < WR_CAMPAIGN_PLAYERS_MIN ||
            json_integer_value(v) > WR_CAMPAIGN_PLAYERS_MAX)
            return bad_option(why, "players is a whole number from 2 to 8");
        c->nplayers = (int)json_integer_value(v);
    }
    if ((v = json_object_get(o, "referee")) != NULL) {
        if (!json_is_boolean(v))
            return bad_option(why, "referee is true or false");
        c->has_referee = json_is_true(v);
    }
    if ((v = json_object_get(o, "max_turns")) != NULL) {
        if (!json_is_integer(v) || json_integer_value(v) < 1 ||
            json_integer_value(v) > WR_CAMPAIGN_TURNS_MAX)
            return bad_option(why, "max_turns is a whole number from 1 to 10000");
        c->max_turns = (int)json_integer_value(v);
    }
    if ((v = json_object_get(o, "max_rounds")) != NULL) {
        if (!json_is_integer(v) || json_integer_value(v) < 1 ||
            json_integer_value(v) > WR_CAMPAIGN_ROUNDS_MAX)
            return bad_option(why, "max_rounds is a whole number from 1 to 20");
        c->max_rounds = (int)json_integer_value(v);
    }
    for (int p = 0; p < c->nplayers; p++)
        c->group[p] = p;
    if ((v = json_object_get(o, "alliances")) != NULL) {
        int in[WR_CAMPAIGN_PLAYERS_MAX] = { 0 };
        size_t i, k;
        json_t *al, *s;
        if (!json_is_array(v))
            return bad_option(why, "alliances is a list of lists of seats, "
                              "like [[\"p1\",\"p3\"]]");
        json_array_foreach(v, i, al) {
            if (!json_is_array(al) || json_array_size(al) < 2)
                return bad_option(why, "an alliance is a list of at least two seats");
            int g = WR_CAMPAIGN_PLAYERS_MAX;
            json_array_foreach(al, k, s) {
                int p = wr_campaign_player(c, json_string_value(s));
                if (p < 0)
                    return bad_option(why, "alliances: '%.16s' is not a player of this game",
                                      json_is_string(s) ? json_string_value(s) : "?");
                if (in[p])
                    return bad_option(why, "alliances: %s is in more than one alliance "
                                      "(or twice in one)", cp_pname(p));
                in[p] = 1;
                g = p < g ? p : g;
            }
            json_array_foreach(al, k, s)
                c->group[wr_campaign_player(c, json_string_value(s))] = g;
        }
        int groups = 0;
        for (int p = 0; p < c->nplayers; p++)
            groups += c->group[p] == p;
        if (groups < 2)
            return bad_option(why, "alliances: every player in one alliance leaves "
                              "nobody to fight");
    }
    if (c->map.ntowns < c->nplayers)
        return bad_option(why, "the map has %d towns, too few for %d players", c->map.ntowns,
                          c->nplayers);
    return 0;
}

struct wr_campaign *wr_campaign_new(const struct wr_campaign_map *map, const json_t *options,
                                    const char *game_id, const uint8_t *seed,
                                    const struct wr_host *host, struct wr_refusal *why)
{
    static const uint8_t zero[32];
    if (game_id == NULL || strlen(game_id) > WR_DICE_ID_MAX ||
        wr_dice_roll(seed ? seed : zero, game_id, 0) < 1) {
        wr_campaign_refuse(why, WR_CR_BAD_OPTIONS, "the game id must be 1 to 63 bytes");
        return NULL;
    }
    struct wr_campaign *c = calloc(1, sizeof *c);
    if (c == NULL) {
        wr_campaign_refuse(why, WR_CR_NO_MEMORY, "out of memory");
        return NULL;
    }
    c->map = *map;
    snprintf(c->game_id, sizeof c->game_id, "%s", game_id);
    c->base.rs = &wr_ruleset_campaign;
    if (seed) {
        memcpy(c->seed, seed, sizeof c->seed);
        c->has_seed = 1;
    } else if (host && host->roll) {
        c->roll_source = host->roll;
        c->roll_ctx = host->ctx;
    }
    if (read_options(c, options, why) != 0) {
        free(c);
        return NULL;
    }
    int s = 0;
    for (; s < c->nplayers; s++)
        c->seats[s] = cp_pname(s);
    if (c->has_referee)
        c->seats[s++] = "referee";
    c->seats[s] = NULL;
    for (int t = 0; t < WR_CAMPAIGN_TOWNS_MAX; t++)
        c->owner[t] = -1;
    c->first = c->active = -1;
    c->phase = WR_CP_START;
    return c;
}

void wr_campaign_free(struct wr_campaign *c)
{
    free(c);
}
