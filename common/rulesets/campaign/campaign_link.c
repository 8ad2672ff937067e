/*
 * campaign_link.c - the campaign's battles played as linked games (ruleset.h,
 * version 4): the battle a campaign arranges becomes a game of the ruleset
 * "battle" (child), and what that game reports comes back as the
 * campaign's own commands (child_events). Readings C15-C17 of
 * docs/rules-notes.md.
 *
 * Both hooks only read the campaign: what they return is applied, if at
 * all, by the host through apply(), so the campaign's record holds every
 * change as an ordinary command.
 */
#include "campaign_internal.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

/* The ruleset a campaign's battle is played as. */
#define CP_BATTLE_RULESET "battle"

/* The key of the attack now being fought: "attack-N", N as the state's
 * history numbers attacks (from 1). */
static void attack_key(const struct wr_campaign *c, char *out, size_t n)
{
    snprintf(out, n, "attack-%d", c->nhistory + 1);
}

/* The battle's side ("p1" attacker, "p2" defender: contract of the battle's
 * option campaign) of a campaign side 0 or 1. */
static const char *const battle_side[2] = { "p1", "p2" };

/* The description of the arranged battle the battle game shows (its option
 * campaign): a new reference. */
static json_t *battle_description(const struct wr_campaign *c)
{
    const struct wr_campaign_tactics_cell *cell =
        &cp_tactics_table[c->at.battle_cell / WR_CT_COUNT][c->at.battle_cell % WR_CT_COUNT];
    json_t *outcome = json_object();
    cp_outcome_json(c, outcome, cell);
    json_t *strategies = json_array();
    for (int i = 0; i < c->at.nstrategies; i++) {
        const struct wr_campaign_strategy_won *s = &c->at.strategies[i];
        if (s->pending)
            continue;
        json_array_append_new(strategies,
                              json_pack("{s:s, s:s}", "seat",
                                        cp_pname(cp_side_player(c, s->side)), "strategy",
                                        cp_strategy_names[s->strategy]));
    }
    json_t *d = json_pack("{s:O, s:s, s:s, s:s, s:o, s:i}", "game_text",
                          json_object_get(outcome, "text"), "target",
                          c->map.towns[c->at.target].name, "attacker",
                          cp_pname(c->at.attacker), "defender", cp_pname(c->at.defender),
                          "strategies", strategies, "attack", c->nhistory + 1);
    json_decref(outcome);
    return d;
}

/*
 * May seat play the arranged battle as a game of ruleset, and how (C15)?
 *  1) the ruleset is "battle",
 *  2) a battle is arranged and not yet reported (phase battle),
 *  3) seat is a side of it or the referee.
 * The options are the creator's with the campaign's own over them: points,
 * referee, campaign (the battle's description) and ambush (the sides with
 * a sealed Hidden Ambush Force note now, C16).
 */
json_t *cp_child(const struct wr_game *parent, const char *seat, const char *ruleset,
                        const json_t *options, struct wr_refusal *why)
{
    const struct wr_campaign *c = (const struct wr_campaign *)parent;
    /* 1) */
    if (ruleset == NULL || strcmp(ruleset, CP_BATTLE_RULESET) != 0) {
        wr_campaign_refuse(why, WR_CR_BATTLE_RULESET, "a campaign's battle is played as a game "
                           "of the ruleset battle, not %.32s", ruleset ? ruleset : "(none)");
        return NULL;
    }
    /* 2) */
    if (c->phase != WR_CP_BATTLE) {
        wr_campaign_refuse(why, WR_CR_NO_BATTLE, "no battle is arranged now (phase %s): its "
                           "game is made once the tactics give one", cp_phase_names[c->phase]);
        return NULL;
    }
    /* 3) */
    if (cp_side_of(c, seat) < 0 && !cp_is_referee(c, seat)) {
        wr_campaign_refuse(why, WR_CR_NOT_IN_BATTLE, "only %s, %s%s play this battle",
                           cp_pname(c->at.attacker), cp_pname(c->at.defender),
                           c->has_referee ? " and the referee" : "");
        return NULL;
    }
    json_t *opts = json_is_object(options) ? json_deep_copy(options) : json_object();
    json_t *ambush = json_array();
    for (int side = 0; side < 2; side++)
        if (c->at.note[side].sealed)
            json_array_append_new(ambush, json_string(battle_side[side]));
    json_object_set_new(opts, "points", json_integer(WR_CAMPAIGN_POINTS));
    json_object_set_new(opts, "referee", json_boolean(c->has_referee));
    json_object_set_new(opts, "campaign", battle_description(c));
    json_object_set_new(opts, "ambush", ambush);
    json_t *seats = json_pack("{s:s, s:s}", battle_side[0], cp_pname(c->at.attacker),
                              battle_side[1], cp_pname(c->at.defender));
    if (c->has_referee)
        json_object_set_new(seats, "referee", json_string("referee"));
    char key[32];
    attack_key(c, key, sizeof key);
    return json_pack("{s:s, s:o, s:o}", "key", key, "options", opts, "seats", seats);
}

/* One command for the host to apply to the campaign, appended to out. */
static void command_for(json_t *out, const char *seat, json_t *cmd)
{
    json_array_append_new(out, json_pack("{s:s, s:o}", "seat", seat, "command", cmd));
}

/*
 * What the battle's events of the attack keyed key mean for the campaign:
 *  - ambush_due {side}: the ambusher shows its note now (C16), when the
 *    note is sealed and not yet shown;
 *  - victory_points_agreed {p1, p2}: both sides report those points (C17),
 *    the attacker's report first.
 * Events of a battle that is not the attack now being fought (an attack
 * already ended, a key the campaign never gave) mean nothing.
 */
json_t *cp_child_events(const struct wr_game *parent, const char *key,
                               const json_t *events)
{
    const struct wr_campaign *c = (const struct wr_campaign *)parent;
    json_t *out = json_array();
    char now[32];
    attack_key(c, now, sizeof now);
    if (c->phase != WR_CP_BATTLE || key == NULL || strcmp(key, now) != 0)
        return out;
    size_t i;
    json_t *e;
    json_array_foreach(events, i, e) {
        const char *type = json_string_value(json_object_get(e, "type"));
        if (type == NULL)
            continue;
        if (strcmp(type, "ambush_due") == 0) {
            const char *s = json_string_value(json_object_get(e, "side"));
            int side = s && strcmp(s, battle_side[0]) == 0 ? 0
                     : s && strcmp(s, battle_side[1]) == 0 ? 1 : -1;
            if (side < 0 || !c->at.note[side].sealed || c->at.note[side].revealed)
                continue;
            command_for(out, cp_pname(cp_side_player(c, side)),
                        json_pack("{s:s}", "type", "reveal_ambush"));
        } else if (strcmp(type, "victory_points_agreed") == 0) {
            json_t *a = json_object_get(e, battle_side[0]), *d = json_object_get(e, battle_side[1]);
            if (!json_is_integer(a) || !json_is_integer(d))
                continue;
            for (int side = 0; side < 2; side++)
                command_for(out, cp_pname(cp_side_player(c, side)),
                            json_pack("{s:s, s:I, s:I}", "type", "report", "attacker",
                                      json_integer_value(a), "defender", json_integer_value(d)));
        }
    }
    return out;
}
