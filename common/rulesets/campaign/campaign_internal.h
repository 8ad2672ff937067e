/*
 * campaign_internal.h - what the files of common/rulesets/campaign/ share
 * and nobody else sees: the tables, the helpers on seats and towns, the
 * order of play, the handlers of the phase machine and who is awaited.
 * Included only by the campaign's own .c files; the public interface is
 * campaign.h (wr_campaign_*), and these names take cp_.
 *
 * The files, each using only those above it (campaign_map.c aside):
 *   campaign_tables.c    the tactics table, wire names, the commitment
 *   campaign_codec.c     a command read from JSON by its shape
 *   campaign_state.c     seats and players, allies, towns, the sides of the attack
 *   campaign_project.c   who is awaited, the state and events per seat
 *   campaign_turn.c      dice as events, whose attack is next, the end
 *   campaign_draft.c     start, choose_town
 *   campaign_attack.c    attack, counter, choose_strategy
 *   campaign_battle.c    commit, tactic, seal_ambush, reveal_ambush, report, settle
 *   campaign_link.c      the battle as a linked game (the ruleset's child hooks)
 *   campaign_game.c      the phase machine (apply), invariants, options and creation
 *   campaign_save.c      a campaign saved whole and restored
 *   campaign_autoplay.c  a random legal player (wr_campaign_autoplay)
 *   campaign_draw.c      the map as terminal text and as SVG, from a projected state
 *   campaign_present.c   wr_present_campaign: orders, descriptions, pre-checks
 *   campaign_ruleset.c   wr_ruleset_campaign
 */
#ifndef CP_INTERNAL_H
#define CP_INTERNAL_H

#include <jansson.h>
#include <stdint.h>

#include "campaign.h"

/* --- tables (campaign_tables.c, campaign_codec.c) ------------------------------ */

extern const char *const cp_tactic_names[WR_CT_COUNT];
extern const char *const cp_strategy_names[];   /* by enum wr_campaign_strategy */
extern const char *const cp_kind_names[];       /* by enum wr_campaign_tactics_kind */
extern const char *const cp_phase_names[];      /* by enum wr_campaign_phase */
/* [blue's (the attacker's) choice][red's (the defender's) choice] */
extern const struct wr_campaign_tactics_cell cp_tactics_table[WR_CT_COUNT][WR_CT_COUNT];

/* The wire name of a command type ("choose_town"; campaign_codec.c). */
const char *cp_command_name(enum wr_campaign_cmd_type type);

/* --- seats, allies, towns, sides (campaign_state.c) ------------------------------- */

/* Is seat the referee of this campaign? */
int cp_is_referee(const struct wr_campaign *c, const char *seat);
/* The seat name of player p ("p1" for 0), NULL out of range. */
const char *cp_pname(int p);
/* Are players a and b in one group (allies, or the same player)? */
int cp_allies(const struct wr_campaign *c, int a, int b);
/* The towns player holds, as a mask. */
uint64_t cp_towns_of(const struct wr_campaign *c, int player);
/* Towns adjacent to any town of mask. */
uint64_t cp_neighbours(const struct wr_campaign *c, uint64_t mask);
/* The town called name, or -1 with why filled. */
int cp_town_or_refuse(const struct wr_campaign *c, const char *name, struct wr_refusal *why);
/* The side (0 attacker, 1 defender) of seat in the attack, or -1. */
int cp_side_of(const struct wr_campaign *c, const char *seat);
/* The player of side in the attack. */
int cp_side_player(const struct wr_campaign *c, int side);
/* Has side (-1: either) a Brilliant Generalship awaiting its choice? */
int cp_strategy_pending(const struct wr_campaign *c, int side);

/* --- who acts, what is shown (campaign_project.c) --------------------------------- */

/* The seats awaited now and what each must send, in the ruleset's order. */
struct cp_waiting {
    int n;
    const char *seat[WR_CAMPAIGN_PLAYERS_MAX + 1];
    const char *what[WR_CAMPAIGN_PLAYERS_MAX + 1];
};

void cp_waiting(const struct wr_campaign *c, struct cp_waiting *w);
/* Refuse a command from a seat that is not awaited for it. */
enum wr_campaign_reason cp_not_yours(const struct wr_campaign *c, struct wr_refusal *why,
                            const char *what);
/* A revealed tactic as JSON, a new reference. */
json_t *cp_side_tactic_json(const struct wr_campaign_side_tactic *t);
/* The outcome of a tactics cell as fields of o. */
void cp_outcome_json(const struct wr_campaign *c, json_t *o,
                     const struct wr_campaign_tactics_cell *cell);

/* --- the order of play (campaign_turn.c) ------------------------------------------ */

/* Append event e to the list ev (steals e). */
void cp_event(json_t *ev, json_t *e);
/* Roll the game's next die for player (-1: the game), as an event; the face. */
int cp_roll(struct wr_campaign *c, json_t *ev, int player, const char *purpose);
/* One player or alliance holds every town: it wins (returns 1). */
int cp_check_conquest(struct wr_campaign *c, json_t *ev);
/* The turn passes on from the active player, round the table (C4, C5). */
void cp_pass_turn(struct wr_campaign *c, json_t *ev);
/* The draft is over: the first campaign turn starts. */
void cp_start_campaign(struct wr_campaign *c, json_t *ev);

/* --- the handlers of the phase machine (campaign_game.c's table) ------------------ */

/* One command of its phase: checks the seat and the rules, then applies
 * it and appends its events to ev; on a refusal nothing has changed. */
typedef enum wr_campaign_reason cp_handler(struct wr_campaign *c, const char *seat,
                                  const struct wr_campaign_cmd *k, json_t *ev,
                                  struct wr_refusal *why);

cp_handler cp_do_start, cp_do_choose_town;                        /* campaign_draft.c */
cp_handler cp_do_attack, cp_do_counter, cp_do_choose_strategy;    /* campaign_attack.c */
cp_handler cp_do_commit, cp_do_tactic, cp_do_seal_ambush,         /* campaign_battle.c */
    cp_do_reveal_ambush, cp_do_report, cp_do_settle;

/* A strategy-table roll for side; reinforcement: a free roll (campaign_attack.c;
 * the tactics of campaign_battle.c roll it too). */
void cp_add_strategy(struct wr_campaign *c, json_t *ev, int side, int reinforcement);

/* --- the battle as a linked game (campaign_link.c) -------------------------------- */

/* The ruleset's child and child_events (ruleset.h, version 4). */
json_t *cp_child(const struct wr_game *parent, const char *seat, const char *ruleset,
                 const json_t *options, struct wr_refusal *why);
json_t *cp_child_events(const struct wr_game *parent, const char *key, const json_t *events);

/* --- saved games (campaign_save.c) ------------------------------------------------- */

/* The ruleset's save (a new reference), and its restore: saved (borrowed)
 * read over c, a campaign just made by create() with the same scenario,
 * options, id, seed and host. Returns c, or frees it and returns NULL with
 * why (bad_command naming the bad value, or no_memory). */
json_t *cp_save(const struct wr_campaign *c);
struct wr_campaign *cp_restore(const json_t *saved, struct wr_campaign *c,
                               struct wr_refusal *why);

/* --- the presentation (campaign_draw.c, used by campaign_present.c) --------------- */

struct wr_strbuf;
struct wr_draw_opts;

/* The player index (0..7) owning town t in the projected state st
 * (borrowed; NULL: no state), or -1 for a free town. */
int cp_state_owner(const json_t *st, const struct wr_campaign_map *m, int t);
/* The map m with the owners, the attack and the key of st (NULL: the bare
 * map) as terminal text fitting o, or as one SVG document. 0, or -1 when
 * memory ran out. */
int cp_draw_text(const struct wr_campaign_map *m, const json_t *st, const struct wr_draw_opts *o,
                 struct wr_strbuf *out);
int cp_draw_svg(const struct wr_campaign_map *m, const json_t *st, struct wr_strbuf *out);

#endif
