/*
 * campaign_autoplay.c - a random but legal campaign player (the ruleset's
 * autoplay, ruleset.h): for the conformance suite, test_campaign_rules'
 * whole campaigns, benchmarks and the load tool.
 *
 * It answers what cp_waiting() says the seat is awaited for, and picks
 * towns with the rules' own checks (wr_campaign_check_draft, _attack,
 * _counter), so it stays legal when those rules change. It proposes; the
 * referee is still wr_campaign_apply().
 *
 * Tactics: about a third go through a commitment. The salt of a
 * commitment is one of AUTOPLAY_SALTS known strings, so the call that must
 * reveal it finds the choice and salt again by trying them all against the
 * commitment (no memory between calls: the game is all it reads). A
 * commitment it cannot open (made by someone else) is replaced by one of
 * its own, which the rules allow until the choice is in (C9).
 */
#include "campaign_internal.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "prng.h"

#define AUTOPLAY_SALTS 32

static void autoplay_salt(int j, char salt[16])
{
    snprintf(salt, 16, "ap%d", j);
}

/* What seat is awaited for now, or NULL. */
static const char *awaited_for(const struct wr_campaign *c, const char *seat)
{
    struct cp_waiting w;
    cp_waiting(c, &w);
    for (int i = 0; seat && i < w.n; i++)
        if (strcmp(w.seat[i], seat) == 0)
            return w.what[i];
    return NULL;
}

/* A town the rule of `what` allows player, chosen by rng; -1 when none. */
static int pick_town(const struct wr_campaign *c, const char *what, int player,
                     struct wr_prng *rng)
{
    int legal[WR_CAMPAIGN_TOWNS_MAX], n = 0;
    for (int t = 0; t < c->map.ntowns; t++) {
        enum wr_campaign_reason r;
        if (strcmp(what, "choose_town") == 0)
            r = wr_campaign_check_draft(c, player, t, NULL);
        else if (strcmp(what, "attack") == 0)
            r = wr_campaign_check_attack(c, player, t, NULL);
        else
            r = wr_campaign_check_counter(c, c->at.attacker, c->at.target, t, NULL);
        if (r == WR_CR_OK)
            legal[n++] = t;
    }
    return n > 0 ? legal[wr_prng_below(rng, n)] : -1;
}

/* A tactic other than side's last choice (the re-choice rule), by rng. */
static int pick_tactic(const struct wr_campaign *c, int side, struct wr_prng *rng)
{
    int last = c->at.nrounds > 0 ? c->at.rounds[c->at.nrounds - 1].side[side].choice : -1;
    int t = wr_prng_below(rng, last >= 0 ? WR_CT_COUNT - 1 : WR_CT_COUNT);
    return last >= 0 && t >= last ? t + 1 : t;
}

static json_t *tactic_command(const struct wr_campaign *c, int side, struct wr_prng *rng)
{
    const struct wr_campaign_side_tactic *st = &c->at.tactic[side];
    char salt[16], h[65];
    if (st->committed) {
        /* Open our own commitment: every choice with every known salt. */
        for (int t = 0; t < WR_CT_COUNT; t++)
            for (int j = 0; j < AUTOPLAY_SALTS; j++) {
                autoplay_salt(j, salt);
                if (wr_campaign_commitment(cp_tactic_names[t], salt, h) == 0 &&
                    strcmp(h, st->commitment) == 0)
                    return json_pack("{s:s, s:s, s:s}", "type", "tactic", "choice",
                                     cp_tactic_names[t], "salt", salt);
            }
    }
    int t = pick_tactic(c, side, rng);
    if (st->committed || wr_prng_below(rng, 3) == 0) {
        autoplay_salt(wr_prng_below(rng, AUTOPLAY_SALTS), salt);
        if (wr_campaign_commitment(cp_tactic_names[t], salt, h) != 0)
            return NULL;
        return json_pack("{s:s, s:s}", "type", "commit", "commitment", h);
    }
    /* The unsealed form: the server seals it. Half of them with a salt. */
    if (wr_prng_below(rng, 2) == 0)
        return json_pack("{s:s, s:s}", "type", "tactic", "choice", cp_tactic_names[t]);
    snprintf(salt, sizeof salt, "s%d", wr_prng_below(rng, 1000000));
    return json_pack("{s:s, s:s, s:s}", "type", "tactic", "choice", cp_tactic_names[t], "salt",
                     salt);
}

/* Victory points: mostly the other side's report when there is one, now
 * and then a disagreement (a dispute, settled or reported again). */
static json_t *report_command(const struct wr_campaign *c, const char *type, int side,
                              struct wr_prng *rng)
{
    int a = 500 + wr_prng_below(rng, 7) * 150, d = 500 + wr_prng_below(rng, 7) * 150;
    if (side >= 0 && c->at.reported[1 - side] && wr_prng_below(rng, 4) != 0) {
        a = c->at.report[1 - side][0];
        d = c->at.report[1 - side][1];
    }
    return json_pack("{s:s, s:i, s:i}", "type", type, "attacker", a, "defender", d);
}

json_t *wr_campaign_autoplay(const struct wr_campaign *c, const char *seat, struct wr_prng *rng)
{
    static const char *const notes[] = { "behind the hill", "in the woods by the ford",
                                         "the farm on the left flank" };
    const char *what = awaited_for(c, seat);
    if (what == NULL)
        return NULL;
    int p = wr_campaign_player(c, seat), side = cp_side_of(c, seat);
    if (strcmp(what, "start") == 0)
        return json_pack("{s:s}", "type", "start");
    if (strcmp(what, "choose_town") == 0 || strcmp(what, "attack") == 0 ||
        strcmp(what, "counter") == 0) {
        int t = pick_town(c, what, p, rng);
        if (t < 0)
            return NULL;        /* the rules await a choice they allow none of: a bug */
        return json_pack("{s:s, s:s}", "type", what, what[0] == 'a' ? "target" : "town",
                         c->map.towns[t].name);
    }
    if (strcmp(what, "choose_strategy") == 0)
        return json_pack("{s:s, s:s}", "type", "choose_strategy", "strategy",
                         wr_campaign_strategy_name(
                             (enum wr_campaign_strategy)(WR_CS_FLANK_MARCH + wr_prng_below(rng, 5))));
    if (strcmp(what, "tactic") == 0 && side >= 0)
        return tactic_command(c, side, rng);
    if (strcmp(what, "seal_ambush") == 0)
        return json_pack("{s:s, s:s}", "type", "seal_ambush", "note",
                         notes[wr_prng_below(rng, 3)]);
    if (strcmp(what, "report") == 0 || strcmp(what, "settle") == 0)
        return report_command(c, what, side, rng);
    return NULL;
}
