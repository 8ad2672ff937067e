/*
 * campaign_state.c - questions about one campaign's state that every phase
 * asks: the seats and their players, allies, the towns a player holds and
 * their neighbours, a town by its name, the two sides of the attack under
 * way, and the strategies still to be chosen.
 */
#include "campaign_internal.h"

#include <string.h>

static const char *const seat_names[WR_CAMPAIGN_PLAYERS_MAX] = { "p1", "p2", "p3", "p4",
                                                                 "p5", "p6", "p7", "p8" };

int wr_campaign_player(const struct wr_campaign *c, const char *seat)
{
    for (int i = 0; seat && i < c->nplayers; i++)
        if (strcmp(seat_names[i], seat) == 0)
            return i;
    return -1;
}

int cp_is_referee(const struct wr_campaign *c, const char *seat)
{
    return c->has_referee && seat && strcmp(seat, "referee") == 0;
}

const char *cp_pname(int p)
{
    return p >= 0 && p < WR_CAMPAIGN_PLAYERS_MAX ? seat_names[p] : NULL;
}

int cp_allies(const struct wr_campaign *c, int a, int b)
{
    return c->group[a] == c->group[b];
}

uint64_t cp_towns_of(const struct wr_campaign *c, int player)
{
    uint64_t m = 0;
    for (int t = 0; t < c->map.ntowns; t++)
        if (c->owner[t] == player)
            m |= (uint64_t)1 << t;
    return m;
}

/* Towns adjacent to any town of mask. */
uint64_t cp_neighbours(const struct wr_campaign *c, uint64_t mask)
{
    uint64_t n = 0;
    for (int t = 0; t < c->map.ntowns; t++)
        if (mask >> t & 1u)
            n |= c->map.towns[t].adj;
    return n;
}

/* The side (0 attacker, 1 defender) of seat in the attack, or -1. */
int cp_side_of(const struct wr_campaign *c, const char *seat)
{
    if (c->phase < WR_CP_COUNTER || c->phase > WR_CP_BATTLE)
        return -1;
    int p = wr_campaign_player(c, seat);
    if (p < 0)
        return -1;
    if (p == c->at.attacker)
        return 0;
    if (p == c->at.defender)
        return 1;
    return -1;
}

int cp_side_player(const struct wr_campaign *c, int side)
{
    return side == 0 ? c->at.attacker : c->at.defender;
}

int cp_town_or_refuse(const struct wr_campaign *c, const char *name, struct wr_refusal *why)
{
    int t = wr_campaign_map_find(&c->map, name);
    if (t < 0)
        wr_campaign_refuse(why, WR_CR_UNKNOWN_TOWN, "there is no town '%.60s' on %s", name, c->map.name);
    return t;
}

int cp_strategy_pending(const struct wr_campaign *c, int side)
{
    for (int i = 0; i < c->at.nstrategies; i++)
        if (c->at.strategies[i].pending && (side < 0 || c->at.strategies[i].side == side))
            return 1;
    return 0;
}
