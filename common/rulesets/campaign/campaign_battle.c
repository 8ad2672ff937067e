/*
 * campaign_battle.c - the tactics rounds and the battle: commitments and
 * sealed tactics, the tactics table's result, the Hidden Ambush Force's
 * note, the reports of victory points, the referee's settlement, and the
 * end of the attack.
 */
#include "campaign_internal.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

static int is_battle(enum wr_campaign_tactics_kind k)
{
    return k != WR_CK_NO_BATTLE && k != WR_CK_REINFORCE;
}

enum wr_campaign_reason cp_do_commit(struct wr_campaign *c, const char *seat,
                            const struct wr_campaign_cmd *k, json_t *ev,
                            struct wr_refusal *why)
{
    int side = cp_side_of(c, seat);
    /* 1) a side of the battle, 2) whose choice is not in yet. A commitment
     *    may be replaced until the choice is in (C9). */
    if (side < 0)
        return cp_not_yours(c, why, "a tactic");
    if (c->at.tactic[side].chosen)
        return wr_campaign_refuse(why, WR_CR_ALREADY_CHOSEN, "your tactic for round %d is already in",
                         c->at.nrounds + 1);
    struct wr_campaign_side_tactic *st = &c->at.tactic[side];
    st->committed = 1;
    memcpy(st->commitment, k->commitment, 65);
    cp_event(ev, json_pack("{s:s, s:s, s:i, s:s}", "type", "tactic_committed", "seat", seat,
                           "round", c->at.nrounds + 1, "commitment", k->commitment));
    return WR_CR_OK;
}

/* Record of an attack that ends; the sealed notes of the attack are shown
 * to everyone then (C12). */
static void end_attack(struct wr_campaign *c, json_t *ev, int winner_side, const int vp[2],
                       int settled)
{
    for (int side = 0; side < 2; side++) {
        struct wr_campaign_note *n = &c->at.note[side];
        if (n->sealed && !n->revealed) {
            n->revealed = 1;
            cp_event(ev, json_pack("{s:s, s:s, s:s, s:b}", "type", "ambush_revealed", "seat",
                                   cp_pname(cp_side_player(c, side)), "note", n->text,
                                   "after_battle", 1));
        }
    }
    struct wr_campaign_past *h = &c->history[c->nhistory % WR_CAMPAIGN_HISTORY];
    memset(h, 0, sizeof *h);
    h->turn = c->turn;
    h->attacker = c->at.attacker;
    h->defender = c->at.defender;
    h->target = c->at.target;
    h->counter = c->at.counter;
    h->battle = c->at.battle;
    if (c->at.battle) {
        const struct wr_campaign_tactics_cell *cell =
            &cp_tactics_table[c->at.battle_cell / WR_CT_COUNT][c->at.battle_cell % WR_CT_COUNT];
        h->kind = cell->kind;
        h->actor = cell->actor;
        h->vp[0] = vp[0];
        h->vp[1] = vp[1];
    }
    h->winner = winner_side;
    h->settled = settled;
    h->rounds = c->at.nrounds;
    c->nhistory++;
    if (!cp_check_conquest(c, ev))
        cp_pass_turn(c, ev);
}

static void resolve_round(struct wr_campaign *c, json_t *ev)
{
    struct wr_campaign_round *r = &c->at.rounds[c->at.nrounds++];
    r->side[0] = c->at.tactic[0];
    r->side[1] = c->at.tactic[1];
    r->result = r->side[0].choice * WR_CT_COUNT + r->side[1].choice;
    const struct wr_campaign_tactics_cell *cell =
        &cp_tactics_table[r->side[0].choice][r->side[1].choice];
    memset(c->at.tactic, 0, sizeof c->at.tactic);
    /* Both choices are in: now, and only now, they are shown. */
    json_t *e = json_pack("{s:s, s:i, s:o, s:o}", "type", "tactics", "round", c->at.nrounds,
                          "attacker", cp_side_tactic_json(&r->side[0]), "defender",
                          cp_side_tactic_json(&r->side[1]));
    cp_outcome_json(c, e, cell);
    cp_event(ev, e);
    if (is_battle(cell->kind)) {
        c->at.battle = 1;
        c->at.battle_cell = r->result;
        c->phase = WR_CP_BATTLE;
        json_t *b = json_pack("{s:s, s:i}", "type", "battle", "points", WR_CAMPAIGN_POINTS);
        cp_outcome_json(c, b, cell);
        cp_event(ev, b);
        return;
    }
    /* No battle: choose again, unless the round limit (C10) is reached. */
    if (c->at.nrounds >= c->max_rounds) {
        cp_event(ev, json_pack("{s:s, s:i}", "type", "attack_called_off", "rounds", c->at.nrounds));
        int vp[2] = { 0, 0 };
        end_attack(c, ev, -1, vp, 0);
        return;
    }
    if (cell->kind == WR_CK_REINFORCE) {
        /* "If you regroup successfully, you get another draft of
         * reinforcements allowing you a free roll on the strategy table." */
        if (cell->actor == WR_CA_BLUE || cell->actor == WR_CA_BOTH)
            cp_add_strategy(c, ev, 0, 1);
        if (cell->actor == WR_CA_RED || cell->actor == WR_CA_BOTH)
            cp_add_strategy(c, ev, 1, 1);
    }
    c->phase = cp_strategy_pending(c, -1) ? WR_CP_STRATEGY : WR_CP_TACTICS;
}

enum wr_campaign_reason cp_do_tactic(struct wr_campaign *c, const char *seat,
                            const struct wr_campaign_cmd *k, json_t *ev,
                            struct wr_refusal *why)
{
    int side = cp_side_of(c, seat);
    /* 1) a side of the battle, 2) whose choice is not in, 3) not its last
     *    choice after no battle, 4) matching its commitment, if it made one */
    if (side < 0)
        return cp_not_yours(c, why, "a tactic");
    struct wr_campaign_side_tactic *st = &c->at.tactic[side];
    if (st->chosen)
        return wr_campaign_refuse(why, WR_CR_ALREADY_CHOSEN, "your tactic for round %d is already in",
                         c->at.nrounds + 1);
    if (c->at.nrounds > 0 && c->at.rounds[c->at.nrounds - 1].side[side].choice == k->tactic)
        return wr_campaign_refuse(why, WR_CR_SAME_TACTIC, "you chose %s in round %d: after no battle "
                         "each side chooses differently from its last choice",
                         cp_tactic_names[k->tactic], c->at.nrounds);
    if (st->committed) {
        char h[65];
        if (k->salt == NULL)
            return wr_campaign_refuse(why, WR_CR_COMMITMENT_MISMATCH, "you committed to a hash: send "
                             "the choice with its salt");
        if (wr_campaign_commitment(cp_tactic_names[k->tactic], k->salt, h) != 0 ||
            strcmp(h, st->commitment) != 0)
            return wr_campaign_refuse(why, WR_CR_COMMITMENT_MISMATCH, "SHA-256 of \"%s\" and the salt is "
                             "%.12s..., not the commitment %.12s...", cp_tactic_names[k->tactic], h,
                             st->commitment);
    }
    st->chosen = 1;
    st->choice = k->tactic;
    st->has_salt = k->salt != NULL;
    snprintf(st->salt, sizeof st->salt, "%s", k->salt ? k->salt : "");
    json_t *e = json_pack("{s:s, s:s, s:i, s:s}", "type", "tactic_chosen", "seat", seat, "round",
                          c->at.nrounds + 1, "choice", cp_tactic_names[k->tactic]);
    if (k->salt)
        json_object_set_new(e, "salt", json_string(k->salt));
    cp_event(ev, e);
    if (c->at.tactic[1 - side].chosen)
        resolve_round(c, ev);
    return WR_CR_OK;
}

enum wr_campaign_reason cp_do_seal_ambush(struct wr_campaign *c, const char *seat,
                                 const struct wr_campaign_cmd *k, json_t *ev,
                                 struct wr_refusal *why)
{
    int side = cp_side_of(c, seat);
    /* 1) a side with a Hidden Ambush Force, 2) its note not yet written */
    if (side < 0 || !c->at.note[side].needed)
        return wr_campaign_refuse(why, WR_CR_NO_AMBUSH, "you have no hidden ambush force in this battle");
    struct wr_campaign_note *n = &c->at.note[side];
    if (n->sealed)
        return wr_campaign_refuse(why, WR_CR_AMBUSH_SEALED, "your ambush note is already written");
    n->sealed = 1;
    snprintf(n->text, sizeof n->text, "%s", k->note);
    cp_event(ev, json_pack("{s:s, s:s, s:s}", "type", "ambush_sealed", "seat", seat, "note",
                           k->note));
    return WR_CR_OK;
}

enum wr_campaign_reason cp_do_reveal_ambush(struct wr_campaign *c, const char *seat,
                                   const struct wr_campaign_cmd *k, json_t *ev,
                                   struct wr_refusal *why)
{
    int own = cp_side_of(c, seat), side = -1;
    /* 1) the ambusher (its own note) or the referee (any note), 2) a note
     *    written and not yet shown */
    if (k->seat) {
        int p = wr_campaign_player(c, k->seat);
        side = p < 0 ? -1 : p == c->at.attacker ? 0 : p == c->at.defender ? 1 : -1;
        if (side < 0)
            return wr_campaign_refuse(why, WR_CR_BAD_COMMAND, "%.16s is not a side of this battle",
                             k->seat);
        if (own != side && !cp_is_referee(c, seat))
            return wr_campaign_refuse(why, WR_CR_NOT_YOUR_TURN, "only the ambusher or the referee shows "
                             "an ambush note");
    } else if (own >= 0) {
        side = own;
    } else if (cp_is_referee(c, seat)) {
        for (int s = 0; s < 2; s++)
            if (c->at.note[s].sealed && !c->at.note[s].revealed)
                side = side < 0 ? s : 2;
        if (side == 2)
            return wr_campaign_refuse(why, WR_CR_BAD_COMMAND, "both sides have a sealed note: name the "
                             "\"seat\"");
        if (side < 0)
            return wr_campaign_refuse(why, WR_CR_NO_AMBUSH, "there is no sealed ambush note");
    } else {
        return wr_campaign_refuse(why, WR_CR_NOT_YOUR_TURN, "only the ambusher or the referee shows an "
                         "ambush note");
    }
    struct wr_campaign_note *n = &c->at.note[side];
    if (!n->sealed || n->revealed)
        return wr_campaign_refuse(why, WR_CR_NO_AMBUSH, "%s has no sealed ambush note to show",
                         cp_pname(cp_side_player(c, side)));
    n->revealed = 1;
    cp_event(ev, json_pack("{s:s, s:s, s:s, s:s}", "type", "ambush_revealed", "seat",
                           cp_pname(cp_side_player(c, side)), "note", n->text, "by", seat));
    return WR_CR_OK;
}

/* Apply the agreed (or settled) victory points (C11). */
static void finish_battle(struct wr_campaign *c, json_t *ev, const int vp[2], int settled)
{
    int margin = vp[0] > vp[1] ? vp[0] - vp[1] : vp[1] - vp[0];
    int winner = vp[0] > vp[1] ? 0 : vp[1] > vp[0] ? 1 : -1;
    int takes = winner >= 0 && margin >= WR_CAMPAIGN_MARGIN;
    json_t *e = json_pack("{s:s, s:i, s:i, s:i, s:b, s:b}", "type", "battle_result", "attacker",
                          vp[0], "defender", vp[1], "margin", margin, "towns_change", takes,
                          "settled", settled);
    json_object_set_new(e, "winner", winner >= 0 ? json_string(cp_pname(cp_side_player(c, winner)))
                                                 : json_null());
    cp_event(ev, e);
    if (takes) {
        int w = cp_side_player(c, winner), l = cp_side_player(c, 1 - winner);
        int town = winner == 0 ? c->at.target : c->at.counter;
        c->owner[town] = w;
        cp_event(ev, json_pack("{s:s, s:s, s:s, s:s}", "type", "town_taken", "seat", cp_pname(w),
                               "town", c->map.towns[town].name, "from", cp_pname(l)));
        if (cp_towns_of(c, l) == 0)
            cp_event(ev, json_pack("{s:s, s:s}", "type", "eliminated", "seat", cp_pname(l)));
    }
    end_attack(c, ev, takes ? winner : -1, vp, settled);
}

enum wr_campaign_reason cp_do_report(struct wr_campaign *c, const char *seat,
                            const struct wr_campaign_cmd *k, json_t *ev,
                            struct wr_refusal *why)
{
    int side = cp_side_of(c, seat);
    /* 1) a side of the battle, 2) every hidden ambush force written down.
     *    A side may report again until the reports agree (C11). */
    if (side < 0)
        return cp_not_yours(c, why, "reporting this battle");
    for (int s = 0; s < 2; s++)
        if (c->at.note[s].needed && !c->at.note[s].sealed)
            return wr_campaign_refuse(why, WR_CR_AMBUSH_NOTE_MISSING, "%s has not written down the "
                             "hidden ambush force yet", cp_pname(cp_side_player(c, s)));
    c->at.reported[side] = 1;
    c->at.report[side][0] = k->vp[0];
    c->at.report[side][1] = k->vp[1];
    cp_event(ev, json_pack("{s:s, s:s, s:i, s:i}", "type", "report", "seat", seat, "attacker",
                           k->vp[0], "defender", k->vp[1]));
    if (!c->at.reported[0] || !c->at.reported[1])
        return WR_CR_OK;
    if (c->at.report[0][0] == c->at.report[1][0] && c->at.report[0][1] == c->at.report[1][1]) {
        c->at.disputed = 0;
        finish_battle(c, ev, c->at.report[0], 0);
        return WR_CR_OK;
    }
    c->at.disputed = 1;
    cp_event(ev, json_pack("{s:s, s:s?}", "type", "disputed", "referee",
                           c->has_referee ? "referee" : NULL));
    return WR_CR_OK;
}

enum wr_campaign_reason cp_do_settle(struct wr_campaign *c, const char *seat,
                            const struct wr_campaign_cmd *k, json_t *ev,
                            struct wr_refusal *why)
{
    /* 1) the referee, 2) on a disputed result */
    if (!cp_is_referee(c, seat))
        return wr_campaign_refuse(why, WR_CR_NOT_YOUR_TURN, "only the referee settles a dispute");
    if (!c->at.disputed)
        return wr_campaign_refuse(why, WR_CR_NOT_DISPUTED, "the reports do not disagree");
    cp_event(ev, json_pack("{s:s, s:s, s:i, s:i}", "type", "settled", "seat", seat, "attacker",
                           k->vp[0], "defender", k->vp[1]));
    c->at.disputed = 0;
    finish_battle(c, ev, k->vp, 1);
    return WR_CR_OK;
}
