/*
 * campaign_reason.h - why the map campaign refuses a command: its reason
 * table (core/reason.h explains the scheme).
 */
#ifndef WR_CAMPAIGN_REASON_H
#define WR_CAMPAIGN_REASON_H

#include "reason.h"

#define WR_CAMPAIGN_REASON_MAP(X) \
    X(UNKNOWN_TOWN, "unknown_town", "there is no town of that name on the map") \
    X(TOWN_TAKEN, "town_taken", "that town has already been chosen") \
    X(DRAFT_NOT_ADJACENT, "draft_not_adjacent", \
      "a free town adjacent to one of yours must be chosen while there is one") \
    X(NOT_ENEMY_TOWN, "not_enemy_town", \
      "the target must be a town of a player who is not your ally") \
    X(TARGET_NOT_ADJACENT, "target_not_adjacent", \
      "the target must be adjacent to one of your towns (unused since C4: see not_neighbour)") \
    X(NOT_ATTACKERS_TOWN, "not_attackers_town", "the town must be one of the attacker's") \
    X(COUNTER_NOT_ADJACENT, "counter_not_adjacent", \
      "the attacker's town must be adjacent to the target while one is") \
    X(ALREADY_CHOSEN, "already_chosen", "this side's choice is already in") \
    X(SAME_TACTIC, "same_tactic", \
      "after no battle each side must choose a tactic other than its last") \
    X(COMMITMENT_MISMATCH, "commitment_mismatch", \
      "the choice and salt do not hash to the commitment") \
    X(NO_AMBUSH, "no_ambush", "that side has no hidden ambush force to write or reveal") \
    X(AMBUSH_SEALED, "ambush_sealed", "the ambush note is already written") \
    X(AMBUSH_NOTE_MISSING, "ambush_note_missing", \
      "the hidden ambush force must be written down before the battle is reported") \
    X(NOT_DISPUTED, "not_disputed", "the reports agree: there is nothing to settle") \
    X(NOT_NEIGHBOUR, "not_neighbour", \
      "the target must be a town of a neighbour: a player holding a town next to one of yours") \
    X(NO_BATTLE, "no_battle", "no battle is arranged now: the tactics have not given one") \
    X(BATTLE_RULESET, "battle_ruleset", "a campaign's battle is played as a game of the ruleset battle") \
    X(NOT_IN_BATTLE, "not_in_battle", "only the two sides of the battle and the referee play it")

enum wr_campaign_reason {
#define WR_CAMPAIGN_REASON_CORE(id, code, text) WR_CR_##id = WR_R_##id,
    WR_CORE_REASONS(WR_CAMPAIGN_REASON_CORE)
#undef WR_CAMPAIGN_REASON_CORE
#define WR_CAMPAIGN_REASON_OWN(id, code, text) WR_CR_##id,
    WR_CAMPAIGN_REASON_MAP(WR_CAMPAIGN_REASON_OWN)
#undef WR_CAMPAIGN_REASON_OWN
    WR_CR_COUNT
};

extern const struct wr_reason_table wr_campaign_reasons;

/* Refuse with a campaign reason (core/reason.h's formatter); returns r. */
enum wr_campaign_reason wr_campaign_refuse(struct wr_refusal *why, enum wr_campaign_reason r,
                                           const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
enum wr_campaign_reason wr_campaign_vrefuse(struct wr_refusal *why, enum wr_campaign_reason r,
                                            const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
const char *wr_campaign_reason_code(enum wr_campaign_reason r);

#endif
