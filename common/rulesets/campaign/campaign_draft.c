/*
 * campaign_draft.c - the start and the draft: who chooses first, and the
 * towns chosen in turn until every town is held.
 */
#include "campaign_internal.h"

#include <jansson.h>

enum wr_campaign_reason wr_campaign_check_draft(const struct wr_campaign *c, int player, int town,
                                       struct wr_refusal *why)
{
    /* 1) the town is free */
    if (c->owner[town] >= 0)
        return wr_campaign_refuse(why, WR_CR_TOWN_TAKEN, "%s has already been chosen by %s",
                         c->map.towns[town].name, cp_pname(c->owner[town]));
    /* 2) "If possible, towns selected should be adjacent to one of your
     *    previous selections" (C2) */
    uint64_t free_near = cp_neighbours(c, cp_towns_of(c, player));
    for (int t = 0; t < c->map.ntowns; t++)
        if (c->owner[t] >= 0)
            free_near &= ~((uint64_t)1 << t);
    if (free_near && !(free_near >> town & 1u)) {
        int example = 0;
        while (!(free_near >> example & 1u))
            example++;
        return wr_campaign_refuse(why, WR_CR_DRAFT_NOT_ADJACENT, "%s is not adjacent to a town of yours, "
                         "and %s (for one) is free and adjacent", c->map.towns[town].name,
                         c->map.towns[example].name);
    }
    return WR_CR_OK;
}

/* start: the first choice goes to the highest of one die per player;
 * the tied roll again (C1). */
enum wr_campaign_reason cp_do_start(struct wr_campaign *c, const char *seat,
                           const struct wr_campaign_cmd *k, json_t *ev,
                           struct wr_refusal *why)
{
    (void)k;
    /* 1) p1 starts the game */
    if (wr_campaign_player(c, seat) != 0)
        return cp_not_yours(c, why, "starting the draft");
    int in[WR_CAMPAIGN_PLAYERS_MAX], n = c->nplayers;
    for (int p = 0; p < n; p++)
        in[p] = 1;
    for (int round = 0;; round++) {
        int face[WR_CAMPAIGN_PLAYERS_MAX] = { 0 }, best = 0, nbest = 0;
        for (int p = 0; p < n; p++)
            if (in[p]) {
                face[p] = cp_roll(c, ev, p, "first_choice");
                best = face[p] > best ? face[p] : best;
            }
        for (int p = 0; p < n; p++) {
            in[p] = in[p] && face[p] == best;
            nbest += in[p];
        }
        if (nbest == 1 || round == 99)      /* 100 ties in a row: the first of them */
            break;
    }
    int first = 0;
    while (!in[first])
        first++;
    c->first = c->active = first;
    c->phase = WR_CP_DRAFT;
    cp_event(ev, json_pack("{s:s, s:s}", "type", "first_choice", "seat", cp_pname(first)));
    return WR_CR_OK;
}

enum wr_campaign_reason cp_do_choose_town(struct wr_campaign *c, const char *seat,
                                 const struct wr_campaign_cmd *k, json_t *ev,
                                 struct wr_refusal *why)
{
    int p = wr_campaign_player(c, seat);
    /* 1) the chooser's turn, 2) a town of the map, 3) the draft rules */
    if (p != c->active)
        return cp_not_yours(c, why, "this choice");
    int t = cp_town_or_refuse(c, k->town, why);
    if (t < 0)
        return WR_CR_UNKNOWN_TOWN;
    enum wr_campaign_reason r = wr_campaign_check_draft(c, p, t, why);
    if (r != WR_CR_OK)
        return r;
    c->owner[t] = p;
    cp_event(ev, json_pack("{s:s, s:s, s:s}", "type", "town_chosen", "seat", seat, "town",
                           c->map.towns[t].name));
    for (int i = 0; i < c->map.ntowns; i++)
        if (c->owner[i] < 0) {
            c->active = (p + 1) % c->nplayers;
            return WR_CR_OK;
        }
    cp_event(ev, json_pack("{s:s}", "type", "draft_over"));
    if (!cp_check_conquest(c, ev))
        cp_start_campaign(c, ev);
    return WR_CR_OK;
}
