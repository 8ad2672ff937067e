/*
 * campaign_project.c - what each seat sees: who is awaited and for what,
 * the state as a seat (or a spectator) may see it, and the events with
 * their sealed parts left out for everyone but their owner.
 *
 * Everything a seat may not see is filtered here and only here: the server
 * diffs each seat's projection (hidden_info = 1), so a tactic, a salt, a
 * commitment or an ambush note can reach another seat or a spectator only
 * through wr_campaign_project() or wr_campaign_project_events().
 */
#include "campaign_internal.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "dice.h"

/* --- who acts --------------------------------------------------------------------- */

static void wait_for(struct cp_waiting *w, const char *seat, const char *what)
{
    if (w->n < WR_CAMPAIGN_PLAYERS_MAX + 1) {
        w->seat[w->n] = seat;
        w->what[w->n++] = what;
    }
}

void cp_waiting(const struct wr_campaign *c, struct cp_waiting *w)
{
    memset(w, 0, sizeof *w);
    switch (c->phase) {
    case WR_CP_START: wait_for(w, cp_pname(0), "start"); break;
    case WR_CP_DRAFT: wait_for(w, cp_pname(c->active), "choose_town"); break;
    case WR_CP_ATTACK: wait_for(w, cp_pname(c->active), "attack"); break;
    case WR_CP_COUNTER: wait_for(w, cp_pname(c->at.defender), "counter"); break;
    case WR_CP_STRATEGY:
        for (int s = 0; s < 2; s++)
            if (cp_strategy_pending(c, s))
                wait_for(w, cp_pname(cp_side_player(c, s)), "choose_strategy");
        break;
    case WR_CP_TACTICS:
        for (int s = 0; s < 2; s++)
            if (!c->at.tactic[s].chosen)
                wait_for(w, cp_pname(cp_side_player(c, s)), "tactic");
        break;
    case WR_CP_BATTLE: {
        int notes = 0;
        for (int s = 0; s < 2; s++)
            if (c->at.note[s].needed && !c->at.note[s].sealed) {
                wait_for(w, cp_pname(cp_side_player(c, s)), "seal_ambush");
                notes = 1;
            }
        if (notes)
            break;
        if (c->at.disputed && c->has_referee)
            wait_for(w, "referee", "settle");
        for (int s = 0; s < 2; s++)
            if (c->at.disputed || !c->at.reported[s])
                wait_for(w, cp_pname(cp_side_player(c, s)), "report");
        break;
    }
    case WR_CP_OVER: break;
    }
}

/* The first seat awaited, or NULL. */
static const char *first_awaited(const struct wr_campaign *c)
{
    struct cp_waiting w;
    cp_waiting(c, &w);
    return w.n ? w.seat[0] : NULL;
}

enum wr_campaign_reason cp_not_yours(const struct wr_campaign *c, struct wr_refusal *why,
                            const char *what)
{
    const char *aw = first_awaited(c);
    return wr_campaign_refuse(why, WR_CR_NOT_YOUR_TURN, "%s is for %s", what, aw ? aw : "nobody");
}

/* --- projection ---------------------------------------------------------------------- */

json_t *cp_side_tactic_json(const struct wr_campaign_side_tactic *t)
{
    json_t *o = json_pack("{s:s}", "choice", cp_tactic_names[t->choice]);
    if (t->has_salt)
        json_object_set_new(o, "salt", json_string(t->salt));
    if (t->committed)
        json_object_set_new(o, "commitment", json_string(t->commitment));
    return o;
}

/* The outcome of a cell between attacker and defender, as JSON fields. */
void cp_outcome_json(const struct wr_campaign *c, json_t *o,
                     const struct wr_campaign_tactics_cell *cell)
{
    const char *blue = cp_pname(c->at.attacker), *red = cp_pname(c->at.defender);
    const char *by = cell->actor == WR_CA_BLUE ? blue : cell->actor == WR_CA_RED ? red : NULL;
    const char *other = cell->actor == WR_CA_BLUE ? red : cell->actor == WR_CA_RED ? blue : NULL;
    char text[160] = "";
    switch (cell->kind) {
    case WR_CK_NO_BATTLE: snprintf(text, sizeof text, "No battle"); break;
    case WR_CK_REINFORCE:
        if (by)
            snprintf(text, sizeof text, "%s reinforces", by);
        else
            snprintf(text, sizeof text, "Both reinforce");
        break;
    case WR_CK_OPEN: snprintf(text, sizeof text, "Open battle"); break;
    case WR_CK_MEETING: snprintf(text, sizeof text, "Meeting battle"); break;
    case WR_CK_SKIRMISH: snprintf(text, sizeof text, "Skirmish battle"); break;
    case WR_CK_AMBUSH: snprintf(text, sizeof text, "%s ambushes %s", by, other); break;
    case WR_CK_SURPRISE: snprintf(text, sizeof text, "%s surprises %s", by, other); break;
    case WR_CK_BREAK_THROUGH:
        snprintf(text, sizeof text, "%s attempts to break through %s", by, other);
        break;
    case WR_CK_ATTACKS_DEFENCES:
        snprintf(text, sizeof text, "%s attacks %s's defences", by, other);
        break;
    case WR_CK_FLANK_MARCH: snprintf(text, sizeof text, "%s turns %s's flank", by, other); break;
    case WR_CK_LAST_STAND: snprintf(text, sizeof text, "%s makes a last stand", by); break;
    }
    json_object_set_new(o, "result", json_string(cp_kind_names[cell->kind]));
    if (cell->kind == WR_CK_REINFORCE) {
        json_t *r = json_array();
        if (cell->actor == WR_CA_BLUE || cell->actor == WR_CA_BOTH)
            json_array_append_new(r, json_string(blue));
        if (cell->actor == WR_CA_RED || cell->actor == WR_CA_BOTH)
            json_array_append_new(r, json_string(red));
        json_object_set_new(o, "reinforces", r);
    } else if (by) {
        json_object_set_new(o, "by", json_string(by));
        json_object_set_new(o, "against", json_string(other));
    }
    if (cell->kind == WR_CK_ATTACKS_DEFENCES) {
        json_object_set_new(o, "walls_inches", json_integer(24));
        json_object_set_new(o, "walls_for", json_string(other));
    }
    json_object_set_new(o, "why", json_string(cell->why));
    json_object_set_new(o, "text", json_string(text));
}

static int count_bits(uint64_t m)
{
    int n = 0;
    for (; m; m &= m - 1)
        n++;
    return n;
}

static json_t *seat_or_null(int p)
{
    return p >= 0 ? json_string(cp_pname(p)) : json_null();
}

static json_t *strategies_json(const struct wr_campaign *c)
{
    json_t *a = json_array();
    for (int i = 0; i < c->at.nstrategies; i++) {
        const struct wr_campaign_strategy_won *s = &c->at.strategies[i];
        json_t *o = json_pack("{s:s, s:i, s:s, s:s}", "seat", cp_pname(cp_side_player(c, s->side)),
                              "roll", s->roll, "strategy", cp_strategy_names[s->strategy], "from",
                              s->reinforcement ? "reinforcement" : "dice");
        if (s->roll == 6)
            json_object_set_new(o, "brilliant_generalship", json_true());
        if (s->pending)
            json_object_set_new(o, "pending", json_true());
        json_array_append_new(a, o);
    }
    return a;
}

/* The sealed tactic of side as viewer sees it: its owner sees everything
 * it sent; anyone else only whether it is in. */
static json_t *sealed_tactic_json(const struct wr_campaign *c, int side, int viewer_side)
{
    const struct wr_campaign_side_tactic *t = &c->at.tactic[side];
    json_t *o = json_pack("{s:b}", "submitted", t->chosen || t->committed);
    if (side != viewer_side)
        return o;
    if (t->committed)
        json_object_set_new(o, "commitment", json_string(t->commitment));
    if (t->chosen) {
        json_object_set_new(o, "choice", json_string(cp_tactic_names[t->choice]));
        if (t->has_salt)
            json_object_set_new(o, "salt", json_string(t->salt));
    }
    return o;
}

static json_t *attack_json(const struct wr_campaign *c, int viewer_side)
{
    const struct wr_campaign_attack *a = &c->at;
    const char *pa = cp_pname(a->attacker), *pd = cp_pname(a->defender);
    json_t *o = json_pack("{s:s, s:s, s:s}", "attacker", pa, "defender", pd, "target",
                          c->map.towns[a->target].name);
    json_object_set_new(o, "counter", a->counter >= 0 ? json_string(c->map.towns[a->counter].name)
                                                      : json_null());
    if (a->counter >= 0) {
        json_t *dice = json_object(), *sixes = json_object();
        for (int s = 0; s < 2; s++) {
            json_t *f = json_array();
            for (int d = 0; d < a->ndice[s]; d++)
                json_array_append_new(f, json_integer(a->faces[s][d]));
            json_object_set_new(dice, s ? pd : pa, f);
            json_object_set_new(sixes, s ? pd : pa, json_integer(a->sixes[s]));
        }
        json_object_set_new(o, "dice", dice);
        json_object_set_new(o, "sixes", sixes);
        json_object_set_new(o, "contest_winner", a->contest_winner >= 0
                                                     ? json_string(a->contest_winner ? pd : pa)
                                                     : json_null());
    }
    json_object_set_new(o, "strategies", strategies_json(c));
    json_object_set_new(o, "round", json_integer(a->nrounds + (a->battle ? 0 : 1)));
    json_t *rounds = json_array();
    for (int i = 0; i < a->nrounds; i++) {
        const struct wr_campaign_round *r = &a->rounds[i];
        json_t *ro = json_pack("{s:i, s:o, s:o}", "round", i + 1, "attacker",
                               cp_side_tactic_json(&r->side[0]), "defender",
                               cp_side_tactic_json(&r->side[1]));
        cp_outcome_json(c, ro, &cp_tactics_table[r->result / WR_CT_COUNT][r->result % WR_CT_COUNT]);
        json_array_append_new(rounds, ro);
    }
    json_object_set_new(o, "rounds", rounds);
    json_t *tactics = json_object();
    json_object_set_new(tactics, pa, sealed_tactic_json(c, 0, viewer_side));
    json_object_set_new(tactics, pd, sealed_tactic_json(c, 1, viewer_side));
    json_object_set_new(o, "tactics", tactics);
    if (a->battle) {
        json_t *b = json_pack("{s:i}", "points", WR_CAMPAIGN_POINTS);
        cp_outcome_json(c, b, &cp_tactics_table[a->battle_cell / WR_CT_COUNT]
                                           [a->battle_cell % WR_CT_COUNT]);
        json_object_set_new(o, "battle", b);
    } else {
        json_object_set_new(o, "battle", json_null());
    }
    json_t *amb = json_object();
    for (int s = 0; s < 2; s++) {
        const struct wr_campaign_note *n = &a->note[s];
        if (!n->needed)
            continue;
        json_t *no = json_pack("{s:b, s:b}", "sealed", n->sealed, "revealed", n->revealed);
        if (n->sealed && (n->revealed || s == viewer_side))
            json_object_set_new(no, "note", json_string(n->text));
        json_object_set_new(amb, s ? pd : pa, no);
    }
    json_object_set_new(o, "ambush", amb);
    json_t *reports = json_object();
    for (int s = 0; s < 2; s++)
        json_object_set_new(reports, s ? pd : pa,
                            a->reported[s] ? json_pack("{s:i, s:i}", "attacker", a->report[s][0],
                                                       "defender", a->report[s][1])
                                           : json_null());
    json_object_set_new(o, "reports", reports);
    json_object_set_new(o, "disputed", json_boolean(a->disputed));
    return o;
}

static json_t *history_json(const struct wr_campaign *c)
{
    json_t *a = json_array();
    int from = c->nhistory > WR_CAMPAIGN_HISTORY ? c->nhistory - WR_CAMPAIGN_HISTORY : 0;
    for (int i = from; i < c->nhistory; i++) {
        const struct wr_campaign_past *h = &c->history[i % WR_CAMPAIGN_HISTORY];
        json_t *o = json_pack("{s:i, s:i, s:s, s:s, s:s, s:s, s:i}", "attack", i + 1, "turn",
                              h->turn, "attacker", cp_pname(h->attacker), "defender",
                              cp_pname(h->defender), "target", c->map.towns[h->target].name,
                              "counter", c->map.towns[h->counter].name, "rounds", h->rounds);
        if (h->battle) {
            const char *by = h->actor == WR_CA_BLUE ? cp_pname(h->attacker)
                           : h->actor == WR_CA_RED ? cp_pname(h->defender) : NULL;
            json_object_set_new(o, "battle", json_string(cp_kind_names[h->kind]));
            json_object_set_new(o, "by", by ? json_string(by) : json_null());
            json_object_set_new(o, "vp", json_pack("{s:i, s:i}", "attacker", h->vp[0],
                                                   "defender", h->vp[1]));
            json_object_set_new(o, "settled", json_boolean(h->settled));
        } else {
            json_object_set_new(o, "battle", json_null());
        }
        json_object_set_new(o, "towns_to", h->winner >= 0
                                               ? json_string(cp_pname(h->winner ? h->defender
                                                                             : h->attacker))
                                               : json_null());
        json_array_append_new(a, o);
    }
    return a;
}

json_t *wr_campaign_project(const struct wr_campaign *c, const char *seat)
{
    int viewer_side = cp_side_of(c, seat);
    json_t *players = json_array(), *alliances = json_array(), *towns = json_object(),
           *held = json_object();
    for (int p = 0; p < c->nplayers; p++) {
        json_array_append_new(players, json_string(cp_pname(p)));
        json_object_set_new(held, cp_pname(p), json_integer(count_bits(cp_towns_of(c, p))));
        if (c->group[p] != p)
            continue;
        json_t *al = json_array();
        for (int q = p; q < c->nplayers; q++)
            if (c->group[q] == p)
                json_array_append_new(al, json_string(cp_pname(q)));
        if (json_array_size(al) > 1)
            json_array_append_new(alliances, al);
        else
            json_decref(al);
    }
    for (int t = 0; t < c->map.ntowns; t++)
        json_object_set_new(towns, c->map.towns[t].name, seat_or_null(c->owner[t]));
    json_t *dice = json_object();
    if (c->has_seed) {
        char commitment[65];
        wr_dice_commitment(c->seed, commitment);
        json_object_set_new(dice, "commitment", json_string(commitment));
    }
    json_object_set_new(dice, "rolls", json_integer((json_int_t)c->rolls));
    if (c->has_seed && c->phase == WR_CP_OVER) {
        char hex[65];
        wr_dice_seed_hex(c->seed, hex);
        json_object_set_new(dice, "seed", json_string(hex));
    }
    json_t *o = json_pack("{s:s, s:s, s:o, s:o, s:i, s:o, s:s, s:i, s:o, s:o}", "ruleset",
                          "campaign", "map", c->map.name, "players", players, "alliances",
                          alliances, "max_rounds", c->max_rounds, "dice", dice, "phase",
                          cp_phase_names[c->phase], "turn", c->turn, "towns", towns, "held", held);
    json_object_set_new(o, "referee", c->has_referee ? json_string("referee") : json_null());
    json_object_set_new(o, "max_turns", c->max_turns ? json_integer(c->max_turns) : json_null());
    json_object_set_new(o, "first", seat_or_null(c->first));
    json_object_set_new(o, "active", c->phase >= WR_CP_DRAFT && c->phase <= WR_CP_BATTLE
                                         ? seat_or_null(c->active) : json_null());
    json_object_set_new(o, "attack", c->phase >= WR_CP_COUNTER && c->phase <= WR_CP_BATTLE
                                         ? attack_json(c, viewer_side) : json_null());
    json_object_set_new(o, "history", history_json(c));
    struct cp_waiting w;
    cp_waiting(c, &w);
    if (w.n) {
        json_t *seats = json_object();
        for (int i = 0; i < w.n; i++)
            json_object_set_new(seats, w.seat[i], json_string(w.what[i]));
        json_object_set_new(o, "awaiting", json_pack("{s:s, s:s, s:o}", "seat", w.seat[0],
                                                     "what", w.what[0], "seats", seats));
    } else {
        json_object_set_new(o, "awaiting", json_null());
    }
    json_object_set_new(o, "winner", c->winner[0] ? json_string(c->winner) : json_null());
    json_object_set_new(o, "end", c->end ? json_string(c->end) : json_null());
    return o;
}

/* Events that carry a sealed thing, and the keys only their seat may see. */
static int sealed_event(const char *type)
{
    return type && (strcmp(type, "tactic_committed") == 0 || strcmp(type, "tactic_chosen") == 0 ||
                    strcmp(type, "ambush_sealed") == 0);
}

json_t *wr_campaign_project_events(const struct wr_campaign *c, const char *seat,
                                   const json_t *events)
{
    static const char *const secret_keys[] = { "choice", "salt", "commitment", "note" };
    (void)c;
    json_t *out = json_array();
    size_t i;
    json_t *e;
    json_array_foreach(events, i, e) {
        json_t *copy = json_deep_copy(e);
        const char *owner = json_string_value(json_object_get(e, "seat"));
        if (sealed_event(json_string_value(json_object_get(e, "type"))) &&
            (seat == NULL || owner == NULL || strcmp(seat, owner) != 0))
            for (size_t k = 0; k < sizeof secret_keys / sizeof secret_keys[0]; k++)
                json_object_del(copy, secret_keys[k]);
        json_array_append_new(out, copy);
    }
    return out;
}
