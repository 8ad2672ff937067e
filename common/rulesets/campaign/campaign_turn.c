/*
 * campaign_turn.c - the order of play: the game's dice as events, whose
 * attack comes next round the table (a player with nobody to attack
 * passes), and the end of the campaign by conquest or by the agreed number
 * of turns.
 */
#include "campaign_internal.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "dice.h"

/* A neighbour is an enemy holding a town next to one of player's (C4); one
 * exists exactly when an enemy town is adjacent to one of player's towns. */
int wr_campaign_can_attack(const struct wr_campaign *c, int player)
{
    uint64_t near = cp_neighbours(c, cp_towns_of(c, player));
    for (int t = 0; t < c->map.ntowns; t++)
        if ((near >> t & 1u) && c->owner[t] >= 0 && !cp_allies(c, c->owner[t], player))
            return 1;
    return 0;
}

/* --- dice and events --------------------------------------------------------------- */

void cp_event(json_t *ev, json_t *e)
{
    json_array_append_new(ev, e);
}

/* Roll the game's next die for player (-1: the game), as an event. */
int cp_roll(struct wr_campaign *c, json_t *ev, int player, const char *purpose)
{
    uint32_t k = c->rolls++;
    int f = c->has_seed ? wr_dice_roll(c->seed, c->game_id, k)
          : c->roll_source ? c->roll_source(c->roll_ctx, k) : 0;
    if (f < 1 || f > 6)
        f = 1;  /* no roll from the host (the seed's cannot fail: the id was
                 * checked at creation); a replay then finds the face wrong */
    json_t *e = json_pack("{s:s, s:I, s:i, s:s}", "type", "roll", "k", (json_int_t)k, "face", f,
                          "for", purpose);
    if (player >= 0)
        json_object_set_new(e, "seat", json_string(cp_pname(player)));
    cp_event(ev, e);
    return f;
}

/* "p1", or "p1+p3" for an alliance: the players of group g, in seat order. */
static void group_name(const struct wr_campaign *c, int g, char *out, size_t n)
{
    size_t at = 0;
    out[0] = '\0';
    for (int p = 0; p < c->nplayers; p++)
        if (c->group[p] == g && at < n)
            at += (size_t)snprintf(out + at, n - at, "%s%s", at ? "+" : "", cp_pname(p));
}

static void game_over(struct wr_campaign *c, json_t *ev, const char *end)
{
    c->phase = WR_CP_OVER;
    c->end = end;
    cp_event(ev, json_pack("{s:s, s:s, s:s}", "type", "game_over", "winner", c->winner, "end",
                           end));
}

/* One player or alliance holds every town: it wins. */
int cp_check_conquest(struct wr_campaign *c, json_t *ev)
{
    int g = c->owner[0] >= 0 ? c->group[c->owner[0]] : -1;
    for (int t = 0; t < c->map.ntowns; t++)
        if (c->owner[t] < 0 || c->group[c->owner[t]] != g)
            return 0;
    group_name(c, g, c->winner, sizeof c->winner);
    game_over(c, ev, "conquest");
    return 1;
}

/* The agreed number of turns is played: the most towns wins (C6). */
static void end_by_turns(struct wr_campaign *c, json_t *ev)
{
    int held[WR_CAMPAIGN_PLAYERS_MAX] = { 0 }, best = -1, best_n = -1, tie = 0;
    for (int t = 0; t < c->map.ntowns; t++)
        if (c->owner[t] >= 0)
            held[c->group[c->owner[t]]]++;
    for (int g = 0; g < c->nplayers; g++) {
        if (c->group[g] != g)
            continue;
        if (held[g] > best_n) {
            best = g;
            best_n = held[g];
            tie = 0;
        } else if (held[g] == best_n) {
            tie = 1;
        }
    }
    if (tie)
        snprintf(c->winner, sizeof c->winner, "draw");
    else
        group_name(c, best, c->winner, sizeof c->winner);
    game_over(c, ev, "turns");
}

/* Give player p the attack if p holds a town and has someone to attack;
 * a player with towns and nobody to attack passes (C4). */
static int try_give(struct wr_campaign *c, json_t *ev, int p)
{
    if (cp_towns_of(c, p) == 0)
        return 0;       /* out of the campaign */
    if (!wr_campaign_can_attack(c, p)) {
        cp_event(ev, json_pack("{s:s, s:s, s:s}", "type", "passed", "seat", cp_pname(p), "why",
                               "no enemy town is adjacent to any of this player's towns"));
        return 0;
    }
    c->active = p;
    c->phase = WR_CP_ATTACK;
    memset(&c->at, 0, sizeof c->at);
    return 1;
}

/* The turn passes on from the active player, round the table; a new
 * campaign turn starts with the first chooser of the draft (C5). */
void cp_pass_turn(struct wr_campaign *c, json_t *ev)
{
    int p = c->active;
    for (int step = 0; step < 2 * WR_CAMPAIGN_PLAYERS_MAX + 2; step++) {
        p = (p + 1) % c->nplayers;
        if (p == c->first) {
            if (c->max_turns && c->turn >= c->max_turns) {
                end_by_turns(c, ev);
                return;
            }
            c->turn++;
            cp_event(ev, json_pack("{s:s, s:i}", "type", "turn", "turn", c->turn));
        }
        if (try_give(c, ev, p))
            return;
    }
    /* Unreachable: on a connected map two sides holding towns always have
     * a town to attack. Should it happen, the campaign ends as if on time. */
    end_by_turns(c, ev);
}

void cp_start_campaign(struct wr_campaign *c, json_t *ev)
{
    c->turn = 1;
    cp_event(ev, json_pack("{s:s, s:i}", "type", "turn", "turn", 1));
    if (!try_give(c, ev, c->first)) {
        c->active = c->first;
        cp_pass_turn(c, ev);
    }
}
