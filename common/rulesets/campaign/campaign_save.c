/*
 * campaign_save.c - a campaign saved whole and restored (ruleset.h,
 * version 5): every field of struct wr_campaign that a command can change,
 * sealed tactics, salts and ambush notes included, by the field tables of
 * fields.h, each with its range. What create() makes of the scenario and
 * the options (the map, the players, the alliances, the referee, the
 * limits, the seats, the seed) is not saved: restore() makes the campaign
 * from them first, reads the saved fields over it, then runs
 * wr_campaign_check() and refuses a campaign that fails it.
 *
 * Saved: {"format": 1, "game": {...}, "end": null, "conquest" or "turns"}.
 */
#include "campaign_internal.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fields.h"

#define CP_SAVE_FORMAT 1
#define CP_COUNT_MAX 1000000000     /* turns, attacks: a bound no campaign reaches */
#define CP_PLAYER(T, m) WR_FIELD(T, m, WR_F_INT, -1, WR_CAMPAIGN_PLAYERS_MAX - 1)
#define CP_TOWN(T, m) WR_FIELD(T, m, WR_F_INT, -1, WR_CAMPAIGN_TOWNS_MAX - 1)

_Static_assert(sizeof(enum wr_campaign_phase) == sizeof(int), "enums are read as ints");

static const struct wr_field tactic_fields[] = {
    WR_FIELD_BOOL(struct wr_campaign_side_tactic, committed),
    WR_FIELD_STR(struct wr_campaign_side_tactic, commitment),
    WR_FIELD_BOOL(struct wr_campaign_side_tactic, chosen),
    WR_FIELD(struct wr_campaign_side_tactic, choice, WR_F_INT, 0, WR_CT_COUNT - 1),
    WR_FIELD_BOOL(struct wr_campaign_side_tactic, has_salt),
    WR_FIELD_STR(struct wr_campaign_side_tactic, salt),
    WR_FIELD_END
};

static const struct wr_field strategy_fields[] = {
    WR_FIELD(struct wr_campaign_strategy_won, side, WR_F_INT, 0, 1),
    WR_FIELD(struct wr_campaign_strategy_won, roll, WR_F_INT, 1, 6),
    WR_FIELD(struct wr_campaign_strategy_won, strategy, WR_F_INT, WR_CS_NONE,
             WR_CS_BRILLIANT_GENERALSHIP),
    WR_FIELD_BOOL(struct wr_campaign_strategy_won, pending),
    WR_FIELD_BOOL(struct wr_campaign_strategy_won, reinforcement),
    WR_FIELD_END
};

static const struct wr_field round_fields[] = {
    WR_FIELD_SUBS(struct wr_campaign_round, side, struct wr_campaign_side_tactic, NULL,
                  tactic_fields),
    WR_FIELD(struct wr_campaign_round, result, WR_F_INT, 0, WR_CT_COUNT * WR_CT_COUNT - 1),
    WR_FIELD_END
};

static const struct wr_field note_fields[] = {
    WR_FIELD_BOOL(struct wr_campaign_note, needed),
    WR_FIELD_BOOL(struct wr_campaign_note, sealed),
    WR_FIELD_BOOL(struct wr_campaign_note, revealed),
    WR_FIELD_STR(struct wr_campaign_note, text),
    WR_FIELD_END
};

static const struct wr_field attack_fields[] = {
    CP_PLAYER(struct wr_campaign_attack, attacker),
    CP_PLAYER(struct wr_campaign_attack, defender),
    CP_TOWN(struct wr_campaign_attack, target),
    CP_TOWN(struct wr_campaign_attack, counter),
    WR_FIELD_ARRAY(struct wr_campaign_attack, ndice, int, WR_F_INT, NULL, 0,
                   WR_CAMPAIGN_TOWNS_MAX),
    WR_FIELD_ARRAY(struct wr_campaign_attack, faces, uint8_t, WR_F_UINT, NULL, 0, 6),
    WR_FIELD_ARRAY(struct wr_campaign_attack, sixes, int, WR_F_INT, NULL, 0,
                   WR_CAMPAIGN_TOWNS_MAX),
    WR_FIELD(struct wr_campaign_attack, contest_winner, WR_F_INT, -1, 1),
    WR_FIELD(struct wr_campaign_attack, nstrategies, WR_F_INT, 0, WR_CAMPAIGN_STRATEGIES_MAX),
    WR_FIELD_SUBS(struct wr_campaign_attack, strategies, struct wr_campaign_strategy_won,
                  "nstrategies", strategy_fields),
    WR_FIELD_SUBS(struct wr_campaign_attack, tactic, struct wr_campaign_side_tactic, NULL,
                  tactic_fields),
    WR_FIELD(struct wr_campaign_attack, nrounds, WR_F_INT, 0, WR_CAMPAIGN_ROUNDS_MAX + 1),
    WR_FIELD_SUBS(struct wr_campaign_attack, rounds, struct wr_campaign_round, "nrounds",
                  round_fields),
    WR_FIELD_BOOL(struct wr_campaign_attack, battle),
    WR_FIELD(struct wr_campaign_attack, battle_cell, WR_F_INT, 0,
             WR_CT_COUNT * WR_CT_COUNT - 1),
    WR_FIELD_ARRAY(struct wr_campaign_attack, reported, int, WR_F_BOOL, NULL, 0, 1),
    WR_FIELD_ARRAY(struct wr_campaign_attack, report, int, WR_F_INT, NULL, 0,
                   WR_CAMPAIGN_VP_MAX),
    WR_FIELD_BOOL(struct wr_campaign_attack, disputed),
    WR_FIELD_SUBS(struct wr_campaign_attack, note, struct wr_campaign_note, NULL, note_fields),
    WR_FIELD_END
};

static const struct wr_field past_fields[] = {
    WR_FIELD(struct wr_campaign_past, turn, WR_F_INT, 0, CP_COUNT_MAX),
    CP_PLAYER(struct wr_campaign_past, attacker),
    CP_PLAYER(struct wr_campaign_past, defender),
    CP_TOWN(struct wr_campaign_past, target),
    CP_TOWN(struct wr_campaign_past, counter),
    WR_FIELD_BOOL(struct wr_campaign_past, battle),
    WR_FIELD(struct wr_campaign_past, kind, WR_F_INT, WR_CK_NO_BATTLE, WR_CK_LAST_STAND),
    WR_FIELD(struct wr_campaign_past, actor, WR_F_INT, WR_CA_NONE, WR_CA_BOTH),
    WR_FIELD_ARRAY(struct wr_campaign_past, vp, int, WR_F_INT, NULL, 0, WR_CAMPAIGN_VP_MAX),
    WR_FIELD(struct wr_campaign_past, winner, WR_F_INT, -1, 1),
    WR_FIELD_BOOL(struct wr_campaign_past, settled),
    WR_FIELD(struct wr_campaign_past, rounds, WR_F_INT, 0, WR_CAMPAIGN_ROUNDS_MAX + 1),
    WR_FIELD_END
};

/* history is a ring of the last WR_CAMPAIGN_HISTORY attacks: nhistory says
 * how many of its slots are in use (all of them past that many). */
static const struct wr_field campaign_fields[] = {
    WR_FIELD(struct wr_campaign, rolls, WR_F_UINT, 0, INT32_MAX),
    WR_FIELD(struct wr_campaign, phase, WR_F_INT, WR_CP_START, WR_CP_OVER),
    CP_PLAYER(struct wr_campaign, first),
    CP_PLAYER(struct wr_campaign, active),
    WR_FIELD(struct wr_campaign, turn, WR_F_INT, 0, CP_COUNT_MAX),
    WR_FIELD_ARRAY(struct wr_campaign, owner, int, WR_F_INT, NULL, -1,
                   WR_CAMPAIGN_PLAYERS_MAX - 1),
    WR_FIELD_SUB(struct wr_campaign, at, attack_fields),
    WR_FIELD(struct wr_campaign, nhistory, WR_F_INT, 0, CP_COUNT_MAX),
    WR_FIELD_SUBS(struct wr_campaign, history, struct wr_campaign_past, "nhistory",
                  past_fields),
    WR_FIELD_STR(struct wr_campaign, winner),
    WR_FIELD_END
};

/* The ends a campaign has (campaign_turn.c): static strings. */
static const char *const cp_ends[] = { "conquest", "turns", NULL };

json_t *cp_save(const struct wr_campaign *c)
{
    return json_pack("{s:i, s:o, s:s?}", "format", CP_SAVE_FORMAT, "game",
                     wr_fields_save(c, campaign_fields), "end", c->end);
}

/* Is every byte of s[0..n) a lowercase hex digit? */
static int lower_hex(const char *s, size_t n)
{
    return strlen(s) == n && strspn(s, "0123456789abcdef") == n;
}

/* What the tables cannot say: an end is one of cp_ends, towns past the
 * map's are as create() made them (made), a commitment is 64 hex digits or none, a winner is
 * seats of the campaign or "draw". */
static int cp_saved_ok(const struct wr_campaign *c, const struct wr_campaign *made,
                       const json_t *end, char *msg, size_t n)
{
    const char *e = json_string_value(end);
    if (!json_is_null(end) && (e == NULL || (strcmp(e, cp_ends[0]) != 0 &&
                                             strcmp(e, cp_ends[1]) != 0)))
        return snprintf(msg, n, "end: null, conquest or turns"), -1;
    for (int t = c->map.ntowns; t < WR_CAMPAIGN_TOWNS_MAX; t++)
        if (c->owner[t] != made->owner[t])
            return snprintf(msg, n, "game.owner[%d]: a town the map does not have", t), -1;
    for (int s = 0; s < 2; s++)
        if (c->at.tactic[s].committed && !lower_hex(c->at.tactic[s].commitment, 64))
            return snprintf(msg, n, "game.at.tactic[%d].commitment: 64 hex digits", s), -1;
    if (c->winner[0] && strcmp(c->winner, "draw") != 0) {
        char buf[sizeof c->winner], *save = NULL;
        snprintf(buf, sizeof buf, "%s", c->winner);
        for (char *p = strtok_r(buf, "+", &save); p; p = strtok_r(NULL, "+", &save))
            if (wr_campaign_player(c, p) < 0)
                return snprintf(msg, n, "game.winner: '%.32s' is not a player", p), -1;
    }
    return 0;
}

struct wr_campaign *cp_restore(const json_t *saved, struct wr_campaign *c,
                               struct wr_refusal *why)
{
    /* 1) format 1: exactly format, game and end */
    const json_t *f = json_object_get(saved, "format"), *end = json_object_get(saved, "end");
    if (!json_is_object(saved) || json_object_size(saved) != 3 || !json_is_integer(f) ||
        json_integer_value(f) != CP_SAVE_FORMAT || end == NULL) {
        wr_campaign_refuse(why, WR_CR_BAD_COMMAND, "a saved campaign is {format: %d, game, end}",
                           CP_SAVE_FORMAT);
        wr_campaign_free(c);
        return NULL;
    }
    /* 2) every saved field read over the new campaign c, in range, into a
     *    copy; 3) what the tables cannot say; 4) wr_campaign_check() */
    struct wr_campaign *s = malloc(sizeof *s);
    char msg[200];
    struct wr_refusal inner;
    if (s == NULL) {
        wr_campaign_refuse(why, WR_CR_NO_MEMORY, "out of memory");
        wr_campaign_free(c);
        return NULL;
    }
    memcpy(s, c, sizeof *s);
    if (wr_fields_load(s, campaign_fields, json_object_get(saved, "game"), msg, sizeof msg) != 0)
        wr_campaign_refuse(why, WR_CR_BAD_COMMAND, "game.%s", msg);
    else if (cp_saved_ok(s, c, end, msg, sizeof msg) != 0)
        wr_campaign_refuse(why, WR_CR_BAD_COMMAND, "%s", msg);
    else {
        s->end = json_is_null(end) ? NULL
               : strcmp(json_string_value(end), cp_ends[0]) == 0 ? cp_ends[0] : cp_ends[1];
        if (wr_campaign_check(s, &inner) != 0) {
            wr_campaign_refuse(why, WR_CR_BAD_COMMAND, "the saved campaign breaks an "
                               "invariant: %s", inner.message);
        } else {
            memcpy(c, s, sizeof *c);
            free(s);
            return c;
        }
    }
    free(s);
    wr_campaign_free(c);
    return NULL;
}
