/*
 * campaign_attack.c - an attack until the tactics: the target, the
 * defender's counter town, the strategy dice and the strategies won (a
 * Brilliant Generalship waits for its choice).
 */
#include "campaign_internal.h"

#include <jansson.h>
#include <string.h>

enum wr_campaign_reason wr_campaign_check_attack(const struct wr_campaign *c, int player, int target,
                                        struct wr_refusal *why)
{
    int o = c->owner[target];
    /* 1) another player's town */
    if (o < 0 || o == player)
        return wr_campaign_refuse(why, WR_CR_NOT_ENEMY_TOWN, "%s is %s", c->map.towns[target].name,
                         o < 0 ? "nobody's" : "your own");
    /* 2) not an ally's */
    if (cp_allies(c, o, player))
        return wr_campaign_refuse(why, WR_CR_NOT_ENEMY_TOWN, "%s belongs to your ally %s",
                         c->map.towns[target].name, cp_pname(o));
    /* 3) "Choose one of your neighbour's towns as the target" (C4): the
     *    owner is a neighbour, holding a town next to one of the attacker's;
     *    the target itself may be any of its towns. */
    if (!(cp_neighbours(c, cp_towns_of(c, player)) & cp_towns_of(c, o)))
        return wr_campaign_refuse(why, WR_CR_NOT_NEIGHBOUR, "%s belongs to %s, who holds no town "
                         "adjacent to any town of yours", c->map.towns[target].name, cp_pname(o));
    return WR_CR_OK;
}

enum wr_campaign_reason wr_campaign_check_counter(const struct wr_campaign *c, int attacker, int target,
                                         int town, struct wr_refusal *why)
{
    /* 1) one of the attacker's towns */
    if (c->owner[town] != attacker)
        return wr_campaign_refuse(why, WR_CR_NOT_ATTACKERS_TOWN, "%s is not a town of %s",
                         c->map.towns[town].name, cp_pname(attacker));
    /* 2) "one of your towns adjacent to the town you are attacking (or
     *    anywhere else if none are adjacent)" */
    uint64_t near = c->map.towns[target].adj & cp_towns_of(c, attacker);
    if (near && !(near >> town & 1u))
        return wr_campaign_refuse(why, WR_CR_COUNTER_NOT_ADJACENT, "%s is not adjacent to %s, and %s "
                         "has towns that are", c->map.towns[town].name,
                         c->map.towns[target].name, cp_pname(attacker));
    return WR_CR_OK;
}

enum wr_campaign_reason cp_do_attack(struct wr_campaign *c, const char *seat,
                            const struct wr_campaign_cmd *k, json_t *ev,
                            struct wr_refusal *why)
{
    int p = wr_campaign_player(c, seat);
    /* 1) the attacker's turn, 2) a town of the map, 3) the attack rules */
    if (p != c->active)
        return cp_not_yours(c, why, "this attack");
    int t = cp_town_or_refuse(c, k->town, why);
    if (t < 0)
        return WR_CR_UNKNOWN_TOWN;
    enum wr_campaign_reason r = wr_campaign_check_attack(c, p, t, why);
    if (r != WR_CR_OK)
        return r;
    memset(&c->at, 0, sizeof c->at);
    c->at.attacker = p;
    c->at.defender = c->owner[t];
    c->at.target = t;
    c->at.counter = -1;
    c->at.contest_winner = -1;
    c->phase = WR_CP_COUNTER;
    cp_event(ev, json_pack("{s:s, s:s, s:s, s:s}", "type", "attack", "seat", seat, "defender",
                           cp_pname(c->at.defender), "target", c->map.towns[t].name));
    return WR_CR_OK;
}

/* A strategy-table roll for side: listed, a 6 waits for a choice, a
 * Hidden Ambush Force needs its note. */
void cp_add_strategy(struct wr_campaign *c, json_t *ev, int side, int reinforcement)
{
    int face = cp_roll(c, ev, cp_side_player(c, side),
                       reinforcement ? "reinforcement" : "strategy");
    if (c->at.nstrategies >= WR_CAMPAIGN_STRATEGIES_MAX)
        return;         /* cannot happen: at most 1 + 2 per round are rolled */
    struct wr_campaign_strategy_won *s = &c->at.strategies[c->at.nstrategies++];
    s->side = side;
    s->roll = face;
    s->strategy = wr_campaign_strategy_of_roll(face);
    s->pending = s->strategy == WR_CS_BRILLIANT_GENERALSHIP;
    s->reinforcement = reinforcement;
    if (s->strategy == WR_CS_HIDDEN_AMBUSH)
        c->at.note[side].needed = 1;
    cp_event(ev, json_pack("{s:s, s:s, s:i, s:s, s:s}", "type", "strategy", "seat",
                           cp_pname(cp_side_player(c, side)), "roll", face, "strategy",
                           cp_strategy_names[s->strategy], "from",
                           reinforcement ? "reinforcement" : "dice"));
}

enum wr_campaign_reason cp_do_counter(struct wr_campaign *c, const char *seat,
                             const struct wr_campaign_cmd *k, json_t *ev,
                             struct wr_refusal *why)
{
    /* 1) the defender's choice, 2) a town of the map, 3) the counter rules */
    if (wr_campaign_player(c, seat) != c->at.defender)
        return cp_not_yours(c, why, "the choice of the attacker's town");
    int t = cp_town_or_refuse(c, k->town, why);
    if (t < 0)
        return WR_CR_UNKNOWN_TOWN;
    enum wr_campaign_reason r = wr_campaign_check_counter(c, c->at.attacker, c->at.target, t, why);
    if (r != WR_CR_OK)
        return r;
    c->at.counter = t;
    cp_event(ev, json_pack("{s:s, s:s, s:s}", "type", "counter", "seat", seat, "town",
                           c->map.towns[t].name));
    /* Strategy: one die per town a side or its allies hold adjacent to
     * either disputed town (C3); more sixes rolls on the strategy table. */
    uint64_t zone = c->map.towns[c->at.target].adj | c->map.towns[t].adj;
    for (int i = 0; i < c->map.ntowns; i++) {
        if (!(zone >> i & 1u) || c->owner[i] < 0)
            continue;
        for (int side = 0; side < 2; side++)
            if (cp_allies(c, c->owner[i], cp_side_player(c, side)))
                c->at.ndice[side]++;
    }
    json_t *dice = json_object(), *sixes = json_object();
    for (int side = 0; side < 2; side++) {
        json_t *faces = json_array();
        for (int d = 0; d < c->at.ndice[side]; d++) {
            int f = cp_roll(c, ev, cp_side_player(c, side), "strategy_dice");
            c->at.faces[side][d] = (uint8_t)f;
            c->at.sixes[side] += f == 6;
            json_array_append_new(faces, json_integer(f));
        }
        json_object_set_new(dice, cp_pname(cp_side_player(c, side)), faces);
        json_object_set_new(sixes, cp_pname(cp_side_player(c, side)),
                            json_integer(c->at.sixes[side]));
    }
    c->at.contest_winner = c->at.sixes[0] > c->at.sixes[1] ? 0
                         : c->at.sixes[1] > c->at.sixes[0] ? 1 : -1;
    json_t *e = json_pack("{s:s, s:o, s:o}", "type", "strategy_dice", "dice", dice, "sixes",
                          sixes);
    json_object_set_new(e, "winner",
                        c->at.contest_winner >= 0
                            ? json_string(cp_pname(cp_side_player(c, c->at.contest_winner)))
                            : json_null());
    cp_event(ev, e);
    if (c->at.contest_winner >= 0)
        cp_add_strategy(c, ev, c->at.contest_winner, 0);
    c->phase = cp_strategy_pending(c, -1) ? WR_CP_STRATEGY : WR_CP_TACTICS;
    return WR_CR_OK;
}

enum wr_campaign_reason cp_do_choose_strategy(struct wr_campaign *c, const char *seat,
                                     const struct wr_campaign_cmd *k, json_t *ev,
                                     struct wr_refusal *why)
{
    int side = cp_side_of(c, seat);
    /* 1) a side with a Brilliant Generalship to use */
    if (side < 0 || !cp_strategy_pending(c, side))
        return cp_not_yours(c, why, "choosing a strategy");
    for (int i = 0; i < c->at.nstrategies; i++) {
        struct wr_campaign_strategy_won *s = &c->at.strategies[i];
        if (s->pending && s->side == side) {
            s->pending = 0;
            s->strategy = k->strategy;
            if (k->strategy == WR_CS_HIDDEN_AMBUSH)
                c->at.note[side].needed = 1;
            break;
        }
    }
    cp_event(ev, json_pack("{s:s, s:s, s:s}", "type", "strategy_chosen", "seat", seat, "strategy",
                           cp_strategy_names[k->strategy]));
    if (!cp_strategy_pending(c, -1))
        c->phase = WR_CP_TACTICS;
    return WR_CR_OK;
}
