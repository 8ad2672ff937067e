/*
 * battle_save.c - a battle saved whole and restored (ruleset.h, version 5):
 * every field of struct bg_game that a command can change, by the field
 * tables of fields.h, each with its range. What create() makes from the
 * options (the id, the seed, the referee, the points, the rules options,
 * the campaign's JSON, the seats) is not saved: restore() makes the game
 * with the same options first and reads the saved fields over it, then
 * runs bg_check() and refuses a game that fails it.
 *
 * Saved: {"format": 1, "game": {...}} with the fields of bg_fields below.
 */
#include "battle_game.h"

#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fields.h"

#define BG_SAVE_FORMAT 1
#define BG_TURN_MAX 1000000         /* player turns: far more than a battle takes */
#define BG_STMT_KINDS 8             /* rows of battle_game.c's statement table */

_Static_assert(sizeof(enum wb_kind) == sizeof(int), "enums are read as ints");

static const struct wr_field charge_fields[] = {
    WR_FIELD_BOOL(struct wb_charge, charged),
    WR_FIELD_BOOL(struct wb_charge, to_front),
    WR_FIELD(struct wb_charge, kind, WR_F_INT, WB_INFANTRY, WB_SKIRMISHERS),
    WR_FIELD(struct wb_charge, models, WR_F_INT, 0, BG_MODELS_MAX),
    WR_FIELD_BOOL(struct wb_charge, skirmish),
    WR_FIELD_END
};

static const struct wr_field facts_fields[] = {
    WR_FIELD_SUB(struct wb_facts, charge, charge_fields),
    WR_FIELD(struct wb_facts, terrain, WR_F_INT, WB_CLEAR, WB_OBSTACLE),
    WR_FIELD(struct wb_facts, enemy_terrain, WR_F_INT, WB_CLEAR, WB_OBSTACLE),
    WR_FIELD_BOOL(struct wb_facts, secure_flanks),
    WR_FIELD_BOOL(struct wb_facts, rear_support),
    WR_FIELD_BOOL(struct wb_facts, near_screen),
    WR_FIELD_BOOL(struct wb_facts, isolated),
    WR_FIELD_BOOL(struct wb_facts, flank_threat),
    WR_FIELD_BOOL(struct wb_facts, flank_threat_skirmish),
    WR_FIELD_BOOL(struct wb_facts, near_elephant),
    WR_FIELD_BOOL(struct wb_facts, near_enemy_elephant),
    WR_FIELD_BOOL(struct wb_facts, won_round),
    WR_FIELD_BOOL(struct wb_facts, fighting_elephants),
    WR_FIELD_BOOL(struct wb_facts, fighting_flank_rear),
    WR_FIELD_BOOL(struct wb_facts, engaged_other_facing),
    WR_FIELD_END
};

/* The ranges of a roster's unit are those bg_apply's roster takes. */
static const struct wr_field unit_fields[] = {
    WR_FIELD_STR(struct wb_unit, name),
    WR_FIELD(struct wb_unit, kind, WR_F_INT, WB_INFANTRY, WB_SKIRMISHERS),
    WR_FIELD(struct wb_unit, models, WR_F_INT, 1, BG_MODELS_MAX),
    WR_FIELD(struct wb_unit, wounds, WR_F_INT, 1, BG_WOUNDS_MAX),
    WR_FIELD(struct wb_unit, wounds_lost, WR_F_INT, 0, BG_MODELS_MAX * BG_WOUNDS_MAX),
    WR_FIELD(struct wb_unit, crew, WR_F_INT, 0, BG_CREW_MAX),
    WR_FIELD(struct wb_unit, move, WR_F_INT, 0, 24),
    WR_FIELD(struct wb_unit, files, WR_F_INT, 1, BG_MODELS_MAX),
    WR_FIELD(struct wb_unit, ranks, WR_F_INT, 1, BG_MODELS_MAX),
    WR_FIELD_BOOL(struct wb_unit, skirmish),
    WR_FIELD_BOOL(struct wb_unit, general),
    WR_FIELD_BOOL(struct wb_unit, mounted),
    WR_FIELD_BOOL(struct wb_unit, thrusting_spears),
    WR_FIELD(struct wb_unit, status, WR_F_UINT, 0, 0xff),
    WR_FIELD_SUB(struct wb_unit, facts, facts_fields),
    WR_FIELD_END
};

static const struct wr_field army_fields[] = {
    WR_FIELD(struct wb_army, count, WR_F_INT, 0, WB_UNITS_MAX),
    WR_FIELD_SUBS(struct wb_army, units, struct wb_unit, "count", unit_fields),
    WR_FIELD(struct wb_army, familiarity, WR_F_INT, WB_NEVER_MET, WB_EXPERT),
    WR_FIELD_BOOL(struct wb_army, elephant_upgraded),
    WR_FIELD(struct wb_army, start_models, WR_F_INT, 0, WB_UNITS_MAX * BG_MODELS_MAX),
    WR_FIELD_BOOL(struct wb_army, formed_unit_broken),
    WR_FIELD(struct wb_army, general_killed_turn, WR_F_INT, 0, BG_TURN_MAX),
    WR_FIELD_END
};

static const struct wr_field stmt_fields[] = {
    WR_FIELD_BOOL(struct bg_stmt, open),
    WR_FIELD(struct bg_stmt, kind, WR_F_INT, 0, BG_STMT_KINDS - 1),
    WR_FIELD(struct bg_stmt, by, WR_F_INT, 0, 1),
    WR_FIELD(struct bg_stmt, status, WR_F_UINT, 0, 0xff),
    WR_FIELD(struct bg_stmt, why_retreat, WR_F_INT, 0, BG_R_COUNT - 1),
    WR_FIELD(struct bg_stmt, broke_turn, WR_F_INT, 0, BG_TURN_MAX),
    WR_FIELD(struct bg_stmt, target, WR_F_INT, -1, WB_UNITS_MAX - 1),
    WR_FIELD(struct bg_stmt, generals, WR_F_UINT, 0, UINT_MAX),
    WR_FIELD_SUB(struct bg_stmt, charge, charge_fields),
    WR_FIELD(struct bg_stmt, charged_by, WR_F_INT, -1, WB_UNITS_MAX - 1),
    WR_FIELD(struct bg_stmt, facing, WR_F_INT, -1, 2),
    WR_FIELD(struct bg_stmt, charge_turn, WR_F_INT, 0, BG_TURN_MAX),
    WR_FIELD_BOOL(struct bg_stmt, counter_charged),
    WR_FIELD_END
};

static const struct wr_field unit_x_fields[] = {
    WR_FIELD(struct bg_unit_x, points, WR_F_INT, 0, BG_POINTS_MAX),
    WR_FIELD_ARRAY(struct bg_unit_x, value, int, WR_F_INT, NULL, 0, WB_OBSTACLE),
    WR_FIELD_ARRAY(struct bg_unit_x, prev, int, WR_F_INT, NULL, 0, WB_OBSTACLE),
    WR_FIELD(struct bg_unit_x, stated, WR_F_UINT, 0, (1u << BG_FACTS_MAX) - 1),
    WR_FIELD(struct bg_unit_x, why_conf, WR_F_INT, 0, BG_R_COUNT - 1),
    WR_FIELD(struct bg_unit_x, why_edgy, WR_F_INT, 0, BG_R_COUNT - 1),
    WR_FIELD(struct bg_unit_x, why_rank, WR_F_INT, 0, BG_R_COUNT - 1),
    WR_FIELD(struct bg_unit_x, why_retreat, WR_F_INT, 0, BG_R_COUNT - 1),
    WR_FIELD(struct bg_unit_x, charged_by, WR_F_INT, -1, WB_UNITS_MAX - 1),
    WR_FIELD(struct bg_unit_x, facing, WR_F_INT, -1, 2),
    WR_FIELD(struct bg_unit_x, charge_turn, WR_F_INT, 0, BG_TURN_MAX),
    WR_FIELD_BOOL(struct bg_unit_x, counter_charged),
    WR_FIELD(struct bg_unit_x, declared_turn, WR_F_INT, 0, BG_TURN_MAX),
    WR_FIELD(struct bg_unit_x, declared_target, WR_F_INT, -1, WB_UNITS_MAX - 1),
    WR_FIELD(struct bg_unit_x, broke_turn, WR_F_INT, 0, BG_TURN_MAX),
    WR_FIELD_SUB(struct bg_unit_x, stmt, stmt_fields),
    WR_FIELD_END
};

static const struct wr_field side_fields[] = {
    WR_FIELD_SUB(struct bg_side, army, army_fields),
    WR_FIELD_SUBS(struct bg_side, x, struct bg_unit_x, "army.count", unit_x_fields),
    WR_FIELD_BOOL(struct bg_side, in),
    WR_FIELD_SUB(struct bg_side, general, stmt_fields),
    WR_FIELD_END
};

static const struct wr_field vp_fields[] = {
    WR_FIELD_BOOL(struct bg_vp, in),
    WR_FIELD(struct bg_vp, p1, WR_F_INT, 0, BG_VP_MAX),
    WR_FIELD(struct bg_vp, p2, WR_F_INT, 0, BG_VP_MAX),
    WR_FIELD_END
};

static const struct wr_field bg_fields[] = {
    WR_FIELD(struct bg_game, phase, WR_F_INT, BG_ROSTER, BG_OVER),
    WR_FIELD(struct bg_game, turn, WR_F_INT, 0, BG_TURN_MAX),
    WR_FIELD(struct bg_game, active, WR_F_INT, 0, 1),
    WR_FIELD(struct bg_game, segment, WR_F_INT, 0, BG_SEG_COUNT - 1),
    WR_FIELD(struct bg_game, rolls, WR_F_UINT, 0, INT32_MAX),
    WR_FIELD_SUBS(struct bg_game, side, struct bg_side, NULL, side_fields),
    WR_FIELD_BOOL(struct bg_game, dispute.on),
    WR_FIELD(struct bg_game, dispute.side, WR_F_INT, 0, 1),
    WR_FIELD(struct bg_game, dispute.unit, WR_F_INT, -1, WB_UNITS_MAX - 1),
    WR_FIELD(struct bg_game, dispute.fact, WR_F_INT, 0, BG_FACTS_MAX + BG_STMT_KINDS),
    WR_FIELD(struct bg_game, offer, WR_F_INT, -1, 1),
    WR_FIELD(struct bg_game, offer_result, WR_F_INT, 0, 2),
    WR_FIELD_STR(struct bg_game, winner),
    WR_FIELD_STR(struct bg_game, decided),
    WR_FIELD_SUBS(struct bg_game, vp_report, struct bg_vp, NULL, vp_fields),
    WR_FIELD_BOOL(struct bg_game, vp_agreed),
    WR_FIELD_ARRAY(struct bg_game, vp, int, WR_F_INT, NULL, 0, BG_VP_MAX),
    WR_FIELD_ARRAY(struct bg_game, ambush, enum bg_ambush, WR_F_INT, NULL, BG_AMBUSH_NONE,
                   BG_AMBUSH_DUE),
    WR_FIELD_END
};

json_t *bg_save(const struct bg_game *g)
{
    return json_pack("{s:i, s:o}", "format", BG_SAVE_FORMAT, "game", wr_fields_save(g, bg_fields));
}

/* Is s a result a battle can have: "" (none yet), p1, p2 or draw? */
static int is_result(const char *s)
{
    return s[0] == '\0' || strcmp(s, "p1") == 0 || strcmp(s, "p2") == 0 ||
           strcmp(s, "draw") == 0;
}

struct bg_game *bg_restore(const json_t *saved, const json_t *options, const char *game_id,
                           const uint8_t *seed, const struct wr_host *host,
                           struct wr_refusal *why)
{
    /* 1) format 1: exactly format and game */
    const json_t *f = json_object_get(saved, "format");
    if (!json_is_object(saved) || json_object_size(saved) != 2 || !json_is_integer(f) ||
        json_integer_value(f) != BG_SAVE_FORMAT) {
        wr_refuse(why, WR_R_BAD_COMMAND, "a saved battle is {format: %d, game}",
                     BG_SAVE_FORMAT);
        return NULL;
    }
    /* 2) the game create() makes of the options, 3) every saved field read
     *    over it in range, 4) results that are results, 5) bg_check() */
    struct bg_game *g = bg_new(options, game_id, seed, host, why);
    if (g == NULL)
        return NULL;
    g->base.rs = &wr_ruleset_battle;
    struct bg_game *s = malloc(sizeof *s);
    char msg[200];
    struct wr_refusal inner;
    if (s == NULL) {
        free(g);
        wr_refuse(why, WR_R_NO_MEMORY, "out of memory");
        return NULL;
    }
    memcpy(s, g, sizeof *s);
    if (wr_fields_load(s, bg_fields, json_object_get(saved, "game"), msg, sizeof msg) != 0)
        wr_refuse(why, WR_R_BAD_COMMAND, "game.%s", msg);
    else if (!is_result(s->winner) || !is_result(s->decided))
        wr_refuse(why, WR_R_BAD_COMMAND, "game: winner and decided are \"\", "
                     "p1, p2 or draw");
    else if (bg_check(s, &inner) != 0)
        wr_refuse(why, WR_R_BAD_COMMAND, "the saved battle breaks an "
                     "invariant: %s", inner.message);
    else {
        memcpy(g, s, sizeof *g);
        free(s);
        return g;
    }
    free(s);
    free(g);
    return NULL;
}
