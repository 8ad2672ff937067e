/*
 * battle_game.c - the battle referee's game (battle_game.h): options,
 * commands, statuses from the rules core's verdicts, the state as JSON,
 * the invariants and the random player.
 */
#include "battle_game.h"

#include <jansson.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dice.h"
#include "prng.h"

#define BG_ALL_REASONS(X) WB_REASON_MAP(X) BG_REASON_MAP(X)
static const struct wr_reason_info bg_reason_rows[] = { WR_REASON_ROWS(BG_ALL_REASONS) };
const struct wr_reason_table bg_reasons = { bg_reason_rows, BG_R_COUNT };

static int refuse(struct wr_refusal *why, int r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int refuse(struct wr_refusal *why, int r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    wr_vrefuse_in(why, &bg_reasons, r, fmt, ap);
    va_end(ap);
    return r;
}

static const char *const side_name[2] = { "p1", "p2" };

/* --- names ----------------------------------------------------------------- */

const char *const bg_kind_names[] = { "infantry", "cavalry", "chariot", "elephant",
                                     "character", "skirmishers", NULL };
const char *const bg_fact_names[] = {
    "terrain", "enemy_terrain", "secure_flanks", "rear_support", "near_screen", "isolated",
    "flank_threat", "flank_threat_skirmish", "near_elephant", "near_enemy_elephant",
    "won_round", "fighting_elephants", "fighting_flank_rear", "engaged_other_facing", NULL
};
const char *const bg_test_names[] = { "ld", "panic", "rally", NULL };
const char *const bg_facing_names[] = { "front", "flank", "rear", NULL };
static const char *const fam_names[] = { "never_met", "previously_fought", "know", "expert",
                                         NULL };
const char *const bg_terrain_names[] = { "clear", "hill", "ford", "difficult", "obstacle",
                                        NULL };
static const char *const segment_names[] = { "declare_charges", "rally", "compulsory_move",
                                             "shooting", "combat", NULL };
static const char *const phase_names[] = { "roster", "start", "play", "victory", "over" };

static int name_index(const char *const *names, const char *s)
{
    for (int i = 0; s && names[i]; i++)
        if (strcmp(names[i], s) == 0)
            return i;
    return -1;
}

/* The facts a side may state (bg_fact_names, battle_game.h, in the same
 * order; the first BG_TERRAIN_FACTS are terrains, the others true or
 * false): where each goes in struct wb_facts. */
static const struct bg_fact {
    size_t off;
} facts[] = {
    { offsetof(struct wb_facts, terrain) },
    { offsetof(struct wb_facts, enemy_terrain) },
    { offsetof(struct wb_facts, secure_flanks) },
    { offsetof(struct wb_facts, rear_support) },
    { offsetof(struct wb_facts, near_screen) },
    { offsetof(struct wb_facts, isolated) },
    { offsetof(struct wb_facts, flank_threat) },
    { offsetof(struct wb_facts, flank_threat_skirmish) },
    { offsetof(struct wb_facts, near_elephant) },
    { offsetof(struct wb_facts, near_enemy_elephant) },
    { offsetof(struct wb_facts, won_round) },
    { offsetof(struct wb_facts, fighting_elephants) },
    { offsetof(struct wb_facts, fighting_flank_rear) },
    { offsetof(struct wb_facts, engaged_other_facing) },
};
#define NFACTS ((int)(sizeof facts / sizeof facts[0]))
_Static_assert(sizeof bg_fact_names / sizeof bg_fact_names[0] == NFACTS + 1, "bg_fact_names");
_Static_assert(sizeof facts / sizeof facts[0] <= BG_FACTS_MAX, "BG_FACTS_MAX");

static int fact_index(const char *s)
{
    for (int i = 0; s && i < NFACTS; i++)
        if (strcmp(bg_fact_names[i], s) == 0)
            return i;
    return -1;
}

/* The combat statements (B26-B37): the command type, which is also the
 * "fact" a dispute names (B35); a dispute of one holds NFACTS + its row. */
enum { SK_CHARGE, SK_COUNTER, SK_SCREEN, SK_BROKE, SK_REFORM, SK_ELEPHANT, SK_LEFT,
       SK_GENERAL, SK_COUNT };
const char *const bg_statement_names[] = { "charge", "counter_charge", "screen_flees", "broke",
                                          "reform", "elephant", "left_table", "general_killed",
                                          NULL };

/* What a dispute is about: the unit (NULL: a side's general) and the fact
 * or statement. */
static const char *dispute_unit(const struct bg_game *g)
{
    return g->dispute.unit >= 0 ? g->side[g->dispute.side].army.units[g->dispute.unit].name
                                : NULL;
}

static const char *dispute_fact(const struct bg_game *g)
{
    return g->dispute.fact < NFACTS ? bg_fact_names[g->dispute.fact]
                                    : bg_statement_names[g->dispute.fact - NFACTS];
}

/* The unit's struct wb_facts from its stated values. */
static void facts_fill(struct wb_unit *u, const struct bg_unit_x *x)
{
    for (int i = 0; i < NFACTS; i++) {
        char *p = (char *)&u->facts + facts[i].off;
        if (i < BG_TERRAIN_FACTS) {
            enum wb_terrain t = (enum wb_terrain)x->value[i];
            memcpy(p, &t, sizeof t);
        } else {
            bool b = x->value[i] != 0;
            memcpy(p, &b, sizeof b);
        }
    }
}

/* --- statuses from the verdicts ---------------------------------------------- */

/* The bits the verdicts decide, for check(). */
#define BG_ST_JUDGED (WB_ST_CONFIDENT | WB_ST_EDGY | WB_ST_RANK_LOST)

static void judge_unit(struct bg_game *g, int s, int i)
{
    struct wb_army *a = &g->side[s].army;
    struct wb_unit *u = &a->units[i];
    struct bg_unit_x *x = &g->side[s].x[i];
    facts_fill(u, x);
    struct wb_verdict c = wb_confident(a, u), e = wb_edgy(a, u, g->turn > 0 ? g->turn : 1);
    struct wb_verdict r = wb_rank_bonus(u, &g->opts);
    u->status &= ~(unsigned)BG_ST_JUDGED;
    u->status |= (c.yes ? WB_ST_CONFIDENT : 0u) | (e.yes ? WB_ST_EDGY : 0u) |
                 (r.yes ? 0u : WB_ST_RANK_LOST);
    x->why_conf = c.why;
    x->why_edgy = e.why;
    x->why_rank = r.why;
}

static void judge_all(struct bg_game *g)
{
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < g->side[s].army.count; i++)
            judge_unit(g, s, i);
}

/* --- create -------------------------------------------------------------------- */

static int opt_bool(const json_t *opts, const char *name, bool def, bool *out,
                    struct wr_refusal *why)
{
    json_t *v = json_object_get(opts, name);
    if (v == NULL) {
        *out = def;
        return 0;
    }
    if (!json_is_boolean(v))
        return refuse(why, WB_R_BAD_OPTIONS, "the option %s is true or false", name);
    *out = json_is_true(v);
    return 0;
}

static int opt_fam(const json_t *opts, const char *name, enum wb_familiarity *out,
                   struct wr_refusal *why)
{
    json_t *v = json_object_get(opts, name);
    *out = WB_NEVER_MET;
    if (v == NULL)
        return 0;
    int f = name_index(fam_names, json_string_value(v));
    if (f < 0)
        return refuse(why, WB_R_BAD_OPTIONS,
                      "the option %s is never_met, previously_fought, know or expert", name);
    *out = (enum wb_familiarity)f;
    return 0;
}

/* The option campaign (B43): an object of at most BG_CAMPAIGN_MAX bytes as
 * compact JSON, kept as that text and shown as given. */
static int opt_campaign(const json_t *opts, struct bg_game *g, struct wr_refusal *why)
{
    json_t *v = json_object_get(opts, "campaign");
    if (v == NULL)
        return 0;
    if (!json_is_object(v))
        return refuse(why, WB_R_BAD_OPTIONS, "the option campaign is an object");
    char *text = json_dumps(v, JSON_COMPACT);
    if (text == NULL)
        return refuse(why, WB_R_NO_MEMORY, "out of memory");
    size_t n = strlen(text);
    /* Read back here, so the state can always show it (a nesting deeper
     * than the JSON reader takes is refused now, not at the first view). */
    json_t *back = n <= BG_CAMPAIGN_MAX ? json_loads(text, 0, NULL) : NULL;
    if (back != NULL)
        memcpy(g->campaign, text, n + 1);
    json_decref(back);
    free(text);
    if (n > BG_CAMPAIGN_MAX)
        return refuse(why, WB_R_BAD_OPTIONS, "the option campaign is at most %d bytes as "
                      "compact JSON, not %zu", BG_CAMPAIGN_MAX, n);
    if (back == NULL)
        return refuse(why, WB_R_BAD_OPTIONS, "the option campaign is nested too deeply");
    return 0;
}

/* The option ambush (B44): the sides holding a Hidden Ambush Force. */
static int side_of(const char *seat);
static int opt_ambush(const json_t *opts, struct bg_game *g, struct wr_refusal *why)
{
    json_t *v = json_object_get(opts, "ambush"), *e;
    size_t i;
    if (v == NULL)
        return 0;
    if (!json_is_array(v))
        return refuse(why, WB_R_BAD_OPTIONS, "the option ambush is an array of sides: "
                      "\"p1\", \"p2\"");
    json_array_foreach(v, i, e) {
        int s = side_of(json_string_value(e));
        if (s < 0)
            return refuse(why, WB_R_BAD_OPTIONS, "the option ambush names sides, p1 or p2 "
                          "(element %zu is not one)", i + 1);
        if (g->ambush[s] != BG_AMBUSH_NONE)
            return refuse(why, WB_R_BAD_OPTIONS, "the option ambush names %s twice",
                          side_name[s]);
        g->ambush[s] = BG_AMBUSH_WAITING;
    }
    return 0;
}

struct bg_game *bg_new(const json_t *options, const char *game_id, const uint8_t *seed,
                       const struct wr_host *host, struct wr_refusal *why)
{
    if (options != NULL && !json_is_object(options)) {
        refuse(why, WB_R_BAD_OPTIONS, "options must be an object");
        return NULL;
    }
    struct bg_game *g = calloc(1, sizeof *g);
    if (g == NULL) {
        refuse(why, WB_R_NO_MEMORY, "out of memory");
        return NULL;
    }
    g->host = host;
    snprintf(g->id, sizeof g->id, "%s", game_id ? game_id : "");
    if (seed) {
        memcpy(g->seed, seed, sizeof g->seed);
        g->has_seed = true;
    }
    g->points = BG_POINTS_DEFAULT;
    g->offer = -1;
    json_t *pts = json_object_get(options, "points");
    struct wb_options def = wb_options_default();
    if (pts != NULL && (!json_is_integer(pts) || json_integer_value(pts) < 1 ||
                        json_integer_value(pts) > BG_POINTS_MAX)) {
        refuse(why, WB_R_BAD_OPTIONS, "the option points is 1..%d", BG_POINTS_MAX);
    } else if (pts != NULL) {
        g->points = (int)json_integer_value(pts);
    }
    if ((pts == NULL || g->points == json_integer_value(pts)) &&
        opt_bool(options, "referee", false, &g->referee, why) == 0 &&
        opt_bool(options, "diagonal", def.diagonal, &g->opts.diagonal, why) == 0 &&
        opt_bool(options, "deep_is_column", def.deep_is_column, &g->opts.deep_is_column, why) ==
            0 &&
        opt_fam(options, "p1_elephants", &g->side[0].army.familiarity, why) == 0 &&
        opt_fam(options, "p2_elephants", &g->side[1].army.familiarity, why) == 0 &&
        opt_campaign(options, g, why) == 0 && opt_ambush(options, g, why) == 0) {
        g->seats[0] = "p1";
        g->seats[1] = "p2";
        g->seats[2] = g->referee ? "referee" : NULL;
        g->seats[3] = NULL;
        return g;
    }
    free(g);
    return NULL;
}

/* --- dice ------------------------------------------------------------------------ */

/* Roll the game's next die: its face, or 0 when there is none. */
static int roll(struct bg_game *g, json_t *ev, const char *for_what)
{
    uint32_t k = g->rolls;
    int face = g->has_seed ? wr_dice_roll(g->seed, g->id, k)
             : g->host && g->host->roll ? g->host->roll(g->host->ctx, k) : 0;
    if (face < 1 || face > 6)
        return 0;
    g->rolls++;
    json_array_append_new(ev, json_pack("{s:s, s:I, s:i, s:s}", "type", "roll", "k",
                                        (json_int_t)k, "face", face, "for", for_what));
    return face;
}

/* --- commands -------------------------------------------------------------------- */

static int side_of(const char *seat)
{
    return name_index((const char *const[]){ "p1", "p2", NULL }, seat);
}

/* Refuse keys of cmd other than those of allowed (NULL-terminated). */
static int only_keys(const json_t *cmd, const char *const *allowed, struct wr_refusal *why)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)cmd, key, v)
        if (name_index(allowed, key) < 0)
            return refuse(why, WB_R_BAD_COMMAND, "a %s command has no '%.40s'",
                          json_string_value(json_object_get(cmd, "type")), key);
    return 0;
}

/* The unit named in cmd's member key (find_unit: "unit"), anywhere on the
 * table: its side and index, and 0; or -1, both -1 and why filled. */
static int find_named(const struct bg_game *g, const json_t *cmd, const char *key, int *s,
                      int *i, struct wr_refusal *why)
{
    *s = *i = -1;
    const char *name = json_string_value(json_object_get(cmd, key));
    if (name == NULL) {
        refuse(why, WB_R_BAD_COMMAND, "name the unit: \"%s\": its name", key);
        return -1;
    }
    for (int k = 0; k < 2; k++)
        for (int n = 0; n < g->side[k].army.count; n++)
            if (strcmp(g->side[k].army.units[n].name, name) == 0) {
                *s = k;
                *i = n;
                return 0;
            }
    refuse(why, BG_R_UNKNOWN_UNIT, "no unit called '%.40s' is on the table", name);
    return -1;
}

static int find_unit(const struct bg_game *g, const json_t *cmd, int *s, int *i,
                     struct wr_refusal *why)
{
    return find_named(g, cmd, "unit", s, i, why);
}

static int parse_unit(const json_t *j, struct wb_unit *u, int *points, struct wr_refusal *why)
{
    static const char *const keys[] = { "name", "kind", "models", "wounds", "move", "files",
                                        "ranks", "skirmish", "general", "points", "crew",
                                        "mounted", "thrusting_spears", NULL };
    if (!json_is_object(j) || only_keys(j, keys, why) != 0)
        return refuse(why, BG_R_BAD_ROSTER, "each unit is an object: name, kind, models, "
                      "and wounds, move, files, ranks, skirmish, general, points, crew, "
                      "mounted, thrusting_spears");
    const char *name = json_string_value(json_object_get(j, "name"));
    int kind = name_index(bg_kind_names, json_string_value(json_object_get(j, "kind")));
    json_t *m = json_object_get(j, "models");
    if (name == NULL || name[0] == '\0' || strlen(name) >= WB_NAME_MAX || kind < 0 ||
        !json_is_integer(m) || json_integer_value(m) < 1 ||
        json_integer_value(m) > BG_MODELS_MAX)
        return refuse(why, BG_R_BAD_ROSTER, "a unit needs a name of 1 to %d bytes, a kind "
                      "(infantry, cavalry, chariot, elephant, character, skirmishers) and "
                      "1 to %d models", WB_NAME_MAX - 1, BG_MODELS_MAX);
    memset(u, 0, sizeof *u);
    memcpy(u->name, name, strlen(name) + 1);
    u->kind = (enum wb_kind)kind;
    u->models = (int)json_integer_value(m);
    static const struct { const char *key; int def, max; size_t off; } ints[] = {
        { "wounds", 1, BG_WOUNDS_MAX, offsetof(struct wb_unit, wounds) },
        { "move", 4, 24, offsetof(struct wb_unit, move) },
        { "files", 1, BG_MODELS_MAX, offsetof(struct wb_unit, files) },
        { "ranks", 1, BG_MODELS_MAX, offsetof(struct wb_unit, ranks) },
    };
    for (size_t k = 0; k < sizeof ints / sizeof ints[0]; k++) {
        json_t *v = json_object_get(j, ints[k].key);
        int val = ints[k].def;
        if (v != NULL) {
            if (!json_is_integer(v) || json_integer_value(v) < 1 ||
                json_integer_value(v) > ints[k].max)
                return refuse(why, BG_R_BAD_ROSTER, "a unit's %s is 1..%d", ints[k].key,
                              ints[k].max);
            val = (int)json_integer_value(v);
        }
        memcpy((char *)u + ints[k].off, &val, sizeof val);
    }
    json_t *sk = json_object_get(j, "skirmish"), *gen = json_object_get(j, "general");
    json_t *pt = json_object_get(j, "points"), *crew = json_object_get(j, "crew");
    json_t *mnt = json_object_get(j, "mounted"), *sp = json_object_get(j, "thrusting_spears");
    if ((sk && !json_is_boolean(sk)) || (gen && !json_is_boolean(gen)) ||
        (mnt && !json_is_boolean(mnt)) || (sp && !json_is_boolean(sp)) ||
        (pt && (!json_is_integer(pt) || json_integer_value(pt) < 0 ||
                json_integer_value(pt) > BG_POINTS_MAX)) ||
        (crew && (!json_is_integer(crew) || json_integer_value(crew) < 0 ||
                  json_integer_value(crew) > BG_CREW_MAX)))
        return refuse(why, BG_R_BAD_ROSTER, "skirmish, general, mounted and thrusting_spears "
                      "are true or false, points 0..%d, crew 0..%d", BG_POINTS_MAX,
                      BG_CREW_MAX);
    u->skirmish = json_is_true(sk) || u->kind == WB_SKIRMISHERS;
    u->general = json_is_true(gen);
    /* For the roster and the weapons only: a chariot or an elephant with
     * its crew, and a mounted character, count as one model (B15). */
    u->crew = crew ? (int)json_integer_value(crew) : 0;
    u->mounted = json_is_true(mnt);
    u->thrusting_spears = json_is_true(sp);
    *points = pt ? (int)json_integer_value(pt) : 0;
    return 0;
}

static json_t *unit_json(const struct bg_game *g, int s, int i);

/* A roster comes in one or more parts, each sealed from everyone but its
 * side; "last": true closes it. */
static int do_roster(struct bg_game *g, int s, const json_t *cmd, json_t *ev,
                     struct wr_refusal *why)
{
    static const char *const keys[] = { "type", "units", "last", NULL };
    if (only_keys(cmd, keys, why) != 0)
        return why->reason;
    if (g->side[s].in)
        return refuse(why, BG_R_ROSTER_IN, "%s's roster is already in", side_name[s]);
    struct bg_side *sd = &g->side[s];
    json_t *units = json_object_get(cmd, "units"), *last = json_object_get(cmd, "last");
    size_t n = json_array_size(units), have = (size_t)sd->army.count;
    if (!json_is_array(units) || n < 1 || have + n > WB_UNITS_MAX)
        return refuse(why, BG_R_BAD_ROSTER, "a roster is 1 to %d units in all; %s has %d",
                      WB_UNITS_MAX, side_name[s], sd->army.count);
    if (last != NULL && !json_is_boolean(last))
        return refuse(why, WB_R_BAD_COMMAND, "\"last\" is true or false");
    int total = 0;
    for (size_t k = 0; k < have; k++)
        total += sd->x[k].points;
    for (size_t k = have; k < have + n; k++) {
        if (parse_unit(json_array_get(units, k - have), &sd->army.units[k], &sd->x[k].points,
                       why))
            return why->reason;
        total += sd->x[k].points;
        for (size_t j = 0; j < k; j++)
            if (strcmp(sd->army.units[j].name, sd->army.units[k].name) == 0)
                return refuse(why, BG_R_DUPLICATE_UNIT, "two units are called '%s'",
                              sd->army.units[k].name);
        /* Names are unique across the table: commands name units alone. */
        for (int j = 0; j < g->side[!s].army.count; j++)
            if (strcmp(g->side[!s].army.units[j].name, sd->army.units[k].name) == 0)
                return refuse(why, BG_R_DUPLICATE_UNIT, "the other army has a unit called '%s'",
                              sd->army.units[k].name);
    }
    if (total > g->points)
        return refuse(why, BG_R_OVER_POINTS, "the roster costs %d points; the battle is of %d",
                      total, g->points);
    sd->army.count = (int)(have + n);
    json_t *list = json_array();
    for (int k = (int)have; k < sd->army.count; k++)
        json_array_append_new(list, unit_json(g, s, k));
    json_array_append_new(ev, json_pack("{s:s, s:s, s:o, s:b}", "type", "roster", "side",
                                        side_name[s], "units", list, "last", json_is_true(last)));
    if (!json_is_true(last))
        return 0;
    sd->army.start_models = wb_army_start_count(&sd->army);
    sd->in = true;
    if (g->side[0].in && g->side[1].in) {
        g->phase = BG_START;
        json_array_append_new(ev, json_pack("{s:s}", "type", "rosters_revealed"));
    }
    return 0;
}

/* The start of a player turn: a side's Hidden Ambush Force is due at the
 * start of its first (B44). */
static void turn_begins(struct bg_game *g, json_t *ev)
{
    if (g->ambush[g->active] != BG_AMBUSH_WAITING)
        return;
    g->ambush[g->active] = BG_AMBUSH_DUE;
    json_array_append_new(ev, json_pack("{s:s, s:s}", "type", "ambush_due", "side",
                                        side_name[g->active]));
}

/* The battle ends on the table (B25, B42): the result is decided, the
 * sides report the victory points before the game is over. */
static void battle_ends(struct bg_game *g, const char *result, const char *why, json_t *ev)
{
    snprintf(g->decided, sizeof g->decided, "%s", result);
    g->phase = BG_VICTORY;
    g->dispute.on = false;
    json_array_append_new(ev, json_pack("{s:s, s:s, s:s}", "type", "battle_over", "result",
                                        g->decided, "why", why));
}

static int do_start(struct bg_game *g, int s, const json_t *cmd, json_t *ev,
                    struct wr_refusal *why)
{
    static const char *const keys[] = { "type", NULL };
    if (only_keys(cmd, keys, why) != 0)
        return why->reason;
    (void)s;
    /* The roll-off for the first turn (B21): a D6 each, again on a tie;
     * after five ties p1 goes first. */
    int first = 0;
    for (int t = 0; t < 5; t++) {
        int a = roll(g, ev, "p1"), b = a ? roll(g, ev, "p2") : 0;
        if (a == 0 || b == 0)
            return refuse(why, WB_R_BAD_COMMAND, "the host has no die for the roll-off");
        if (a != b) {
            first = a > b ? 0 : 1;
            break;
        }
    }
    g->phase = BG_PLAY;
    g->turn = 1;
    g->active = first;
    g->segment = BG_SEG_CHARGES;
    judge_all(g);
    json_array_append_new(ev, json_pack("{s:s, s:s, s:i}", "type", "started", "first",
                                        side_name[first], "turn", 1));
    turn_begins(g, ev);
    return 0;
}

static int do_fact(struct bg_game *g, int s, const json_t *cmd, json_t *ev,
                   struct wr_refusal *why)
{
    static const char *const keys[] = { "type", "unit", "fact", "value", NULL };
    int us, ui;
    if (only_keys(cmd, keys, why) != 0 || find_unit(g, cmd, &us, &ui, why) != 0)
        return why->reason;
    if (us != s)
        return refuse(why, BG_R_NOT_YOUR_UNIT, "%s is %s's unit: its side states its facts",
                      g->side[us].army.units[ui].name, side_name[us]);
    int f = fact_index(json_string_value(json_object_get(cmd, "fact")));
    if (f < 0)
        return refuse(why, BG_R_UNKNOWN_FACT, "a fact is one of terrain, enemy_terrain, "
                      "secure_flanks, rear_support, isolated, flank_threat, won_round, ...");
    json_t *v = json_object_get(cmd, "value");
    int val;
    if (f < BG_TERRAIN_FACTS) {
        val = name_index(bg_terrain_names, json_string_value(v));
        if (val < 0)
            return refuse(why, BG_R_BAD_VALUE, "%s is clear, hill, ford, difficult or obstacle",
                          bg_fact_names[f]);
    } else {
        if (!json_is_boolean(v))
            return refuse(why, BG_R_BAD_VALUE, "%s is true or false", bg_fact_names[f]);
        val = json_is_true(v);
    }
    struct bg_unit_x *x = &g->side[s].x[ui];
    x->prev[f] = x->value[f];
    x->value[f] = val;
    x->stated |= 1u << f;
    judge_unit(g, s, ui);
    json_array_append_new(ev, json_pack("{s:s, s:s, s:s, s:s, s:O}", "type", "fact", "side",
                                        side_name[s], "unit", g->side[s].army.units[ui].name,
                                        "fact", bg_fact_names[f], "value", v));
    return 0;
}

static json_t *settled_event(const struct bg_game *g, bool stands, const char *by)
{
    return json_pack("{s:s, s:s, s:s?, s:s, s:s, s:b, s:s}", "type", "settled", "side",
                     side_name[g->dispute.side], "unit", dispute_unit(g), "fact",
                     dispute_fact(g), "by", by, "stands", stands, "why",
                     stands ? "the stated fact stands" : "the fact is as it was before");
}

static void stmt_undo(struct bg_game *g);

static void settle(struct bg_game *g, bool stands)
{
    if (g->dispute.fact >= NFACTS) {
        if (!stands)
            stmt_undo(g);
        g->dispute.on = false;
        return;
    }
    struct bg_unit_x *x = &g->side[g->dispute.side].x[g->dispute.unit];
    if (!stands)
        x->value[g->dispute.fact] = x->prev[g->dispute.fact];
    g->dispute.on = false;
    judge_unit(g, g->dispute.side, g->dispute.unit);
}

static int stmt_index(const char *s);
static int dispute_stmt(struct bg_game *g, int s, const json_t *cmd, json_t *ev,
                        struct wr_refusal *why);

static int do_dispute(struct bg_game *g, int s, const json_t *cmd, json_t *ev,
                      struct wr_refusal *why)
{
    static const char *const keys[] = { "type", "unit", "fact", NULL };
    int us, ui;
    if (stmt_index(json_string_value(json_object_get(cmd, "fact"))) >= 0)
        return dispute_stmt(g, s, cmd, ev, why);        /* a combat statement (B35) */
    if (only_keys(cmd, keys, why) != 0 || find_unit(g, cmd, &us, &ui, why) != 0)
        return why->reason;
    if (us == s)
        return refuse(why, BG_R_OWN_FACT, "%s is your own unit", g->side[us].army.units[ui].name);
    const char *fname = json_string_value(json_object_get(cmd, "fact"));
    int f = fact_index(fname);
    if (f < 0)
        return refuse(why, BG_R_UNKNOWN_FACT, "no fact called '%.40s'", fname ? fname : "");
    struct bg_unit_x *x = &g->side[us].x[ui];
    if (!(x->stated >> f & 1u))
        return refuse(why, BG_R_NOT_STATED, "%s's %s was not stated since it was last settled",
                      g->side[us].army.units[ui].name, bg_fact_names[f]);
    x->stated &= ~(1u << f);
    g->dispute.on = true;
    g->dispute.side = us;
    g->dispute.unit = ui;
    g->dispute.fact = f;
    json_array_append_new(ev, json_pack("{s:s, s:s, s:s, s:s}", "type", "dispute", "side",
                                        side_name[s], "unit", g->side[us].army.units[ui].name,
                                        "fact", bg_fact_names[f]));
    if (g->referee)
        return 0;
    /* No referee: a D6, the stated fact stands on a 4 or more (B22). */
    int face = roll(g, ev, "dispute");
    if (face == 0)
        return refuse(why, WB_R_BAD_COMMAND, "the host has no die for the dispute");
    json_array_append_new(ev, settled_event(g, face >= 4, "dice"));
    settle(g, face >= 4);
    return 0;
}

static int do_settle(struct bg_game *g, int s, const json_t *cmd, json_t *ev,
                     struct wr_refusal *why)
{
    static const char *const keys[] = { "type", "stands", NULL };
    (void)s;
    json_t *st = json_object_get(cmd, "stands");
    if (only_keys(cmd, keys, why) != 0)
        return why->reason;
    if (!json_is_boolean(st))
        return refuse(why, WB_R_BAD_COMMAND, "settle with \"stands\": true or false");
    if (!g->dispute.on)
        return refuse(why, BG_R_NO_DISPUTE, "no fact is disputed");
    json_array_append_new(ev, settled_event(g, json_is_true(st), "referee"));
    settle(g, json_is_true(st));
    return 0;
}

static int do_casualties(struct bg_game *g, int s, const json_t *cmd, json_t *ev,
                         struct wr_refusal *why)
{
    static const char *const keys[] = { "type", "unit", "wounds", NULL };
    int us, ui;
    (void)s;
    if (only_keys(cmd, keys, why) != 0 || find_unit(g, cmd, &us, &ui, why) != 0)
        return why->reason;
    json_t *w = json_object_get(cmd, "wounds");
    struct wb_unit *u = &g->side[us].army.units[ui];
    int left = u->models * u->wounds - u->wounds_lost;
    if (!json_is_integer(w) || json_integer_value(w) < 1)
        return refuse(why, WB_R_BAD_COMMAND, "report \"wounds\": 1 or more");
    if (left == 0)
        return refuse(why, BG_R_UNIT_GONE, "%s has no models left", u->name);
    if (u->status & WB_ST_OFF_TABLE)    /* B36: gone from the table, nothing hits it */
        return refuse(why, BG_R_UNIT_GONE, "%s has left the table", u->name);
    if (json_integer_value(w) > left)
        return refuse(why, BG_R_TOO_MANY_CASUALTIES, "%s has %d wounds left, not %d", u->name,
                      left, (int)json_integer_value(w));
    u->wounds_lost += (int)json_integer_value(w);
    judge_all(g);   /* edgy e) counts the whole army */
    json_array_append_new(ev, json_pack("{s:s, s:s, s:i, s:i}", "type", "casualties", "unit",
                                        u->name, "wounds", (int)json_integer_value(w),
                                        "models_left", wb_unit_alive(u)));
    return 0;
}

static int do_test(struct bg_game *g, int s, const json_t *cmd, json_t *ev,
                   struct wr_refusal *why)
{
    static const char *const keys[] = { "type", "unit", "test", "target", NULL };
    int us, ui;
    if (only_keys(cmd, keys, why) != 0 || find_unit(g, cmd, &us, &ui, why) != 0)
        return why->reason;
    struct wb_unit *u = &g->side[us].army.units[ui];
    if (us != s)
        return refuse(why, BG_R_NOT_YOUR_UNIT, "%s is %s's unit: its side asks for its tests",
                      u->name, side_name[us]);
    int t = name_index(bg_test_names, json_string_value(json_object_get(cmd, "test")));
    json_t *tg = json_object_get(cmd, "target");
    if (t < 0 || !json_is_integer(tg))
        return refuse(why, WB_R_BAD_COMMAND, "a test is ld, panic or rally, with a \"target\"");
    if (json_integer_value(tg) < 1 || json_integer_value(tg) > BG_TARGET_MAX)
        return refuse(why, BG_R_BAD_TARGET, "a target number is 1 to %d, not %lld",
                      BG_TARGET_MAX, (long long)json_integer_value(tg));
    if (wb_unit_alive(u) == 0)
        return refuse(why, BG_R_UNIT_GONE, "%s has no models left", u->name);
    bool fleeing = (u->status & WB_ST_FLEEING) != 0;
    if (t == 2 && !fleeing)
        return refuse(why, BG_R_NOT_FLEEING, "%s is not fleeing", u->name);
    if (t != 2 && fleeing)
        return refuse(why, BG_R_FLEEING, "%s is fleeing: it may only test to rally", u->name);
    bool edgy = (u->status & WB_ST_EDGY) != 0;
    int n = edgy ? 3 : 2, faces[WB_DICE_MAX];
    json_t *fj = json_array();
    for (int k = 0; k < n; k++) {
        faces[k] = roll(g, ev, u->name);
        if (faces[k] == 0) {
            json_decref(fj);
            return refuse(why, WB_R_BAD_COMMAND, "the host has no die for the test");
        }
        json_array_append_new(fj, json_integer(faces[k]));
    }
    struct wb_verdict v = wb_ld_test(faces, n, edgy, (int)json_integer_value(tg));
    enum wb_reason outcome = v.why;
    struct bg_unit_x *x = &g->side[s].x[ui];
    if (t == 1) {
        struct wb_verdict p = wb_panic_result(&g->side[s].army, u, !v.yes);
        outcome = p.why;
        if (p.why == WB_R_FALL_BACK)
            u->status |= WB_ST_FALLING_BACK;
        else if (p.why == WB_R_FLEES || p.why == WB_R_FALL_BACK_ELEPHANTS)
            u->status = (u->status & ~(unsigned)WB_ST_FALLING_BACK) | WB_ST_FLEEING;
        if (p.why != WB_R_PANIC_PASSED)
            x->why_retreat = p.why;
    } else if (t == 2 && v.yes) {
        u->status &= ~(unsigned)WB_ST_FLEEING;
        x->why_retreat = WB_R_OK;
    }
    json_array_append_new(ev, json_pack("{s:s, s:s, s:s, s:i, s:o, s:b, s:s, s:s}", "type",
                                        "test", "unit", u->name, "test", bg_test_names[t], "target",
                                        (int)json_integer_value(tg), "faces", fj, "passed",
                                        v.yes, "outcome", wb_reason_code(outcome), "why",
                                        wb_reason_text(outcome)));
    return 0;
}

static void combat_turn_over(struct bg_game *g);

/* The end of a player turn: the break point of both armies (B14), then
 * the other side's turn. */
static void end_turn(struct bg_game *g, json_t *ev)
{
    /* A unit that fell back in good order rallied at the end of its move
     * and may not charge in its owner's next turn (B9). */
    struct wb_army *own = &g->side[g->active].army;
    for (int i = 0; i < own->count; i++) {
        unsigned *st = &own->units[i].status;
        *st &= ~(unsigned)WB_ST_FELL_BACK;
        if (*st & WB_ST_FALLING_BACK)
            *st = (*st & ~(unsigned)WB_ST_FALLING_BACK) | WB_ST_FELL_BACK;
    }
    bool broken[2];
    for (int s = 0; s < 2; s++)
        broken[s] = wb_army_broken(&g->side[s].army, true).yes;
    json_array_append_new(ev, json_pack("{s:s, s:s, s:i}", "type", "turn_ended", "side",
                                         side_name[g->active], "turn", g->turn));
    if (broken[0] || broken[1]) {
        battle_ends(g, broken[0] && broken[1] ? "draw" : broken[0] ? "p2" : "p1",
                    wb_reason_text(WB_R_ARMY_BROKEN), ev);
        return;
    }
    g->turn++;
    g->active = !g->active;
    g->segment = BG_SEG_CHARGES;
    judge_all(g);
    json_array_append_new(ev, json_pack("{s:s, s:s, s:i, s:s}", "type", "turn", "side",
                                        side_name[g->active], "turn", g->turn, "segment",
                                        segment_names[g->segment]));
    turn_begins(g, ev);
}

static int do_end(struct bg_game *g, int s, const json_t *cmd, json_t *ev,
                  struct wr_refusal *why)
{
    static const char *const keys[] = { "type", NULL };
    if (only_keys(cmd, keys, why) != 0)
        return why->reason;
    if (s != g->active)
        return refuse(why, BG_R_NOT_ACTIVE, "it is %s's player turn", side_name[g->active]);
    bool whole = strcmp(json_string_value(json_object_get(cmd, "type")), "end_turn") == 0;
    if (!whole && g->segment + 1 < BG_SEG_COUNT) {
        g->segment++;
        json_array_append_new(ev, json_pack("{s:s, s:s}", "type", "segment", "segment",
                                            segment_names[g->segment]));
        return 0;
    }
    combat_turn_over(g);
    end_turn(g, ev);
    return 0;
}

static int do_offer(struct bg_game *g, int s, const json_t *cmd, json_t *ev,
                    struct wr_refusal *why)
{
    static const char *const keys[] = { "type", "result", NULL };
    static const char *const results[] = { "p1", "p2", "draw", NULL };
    if (only_keys(cmd, keys, why) != 0)
        return why->reason;
    int r = name_index(results, json_string_value(json_object_get(cmd, "result")));
    if (r < 0)
        return refuse(why, WB_R_BAD_COMMAND, "offer a \"result\": p1, p2 or draw");
    g->offer = s;
    g->offer_result = r;
    json_array_append_new(ev, json_pack("{s:s, s:s, s:s}", "type", "offer", "side",
                                        side_name[s], "result", results[r]));
    return 0;
}

static int do_accept(struct bg_game *g, int s, const json_t *cmd, json_t *ev,
                     struct wr_refusal *why)
{
    static const char *const keys[] = { "type", NULL };
    static const char *const results[] = { "p1", "p2", "draw" };
    if (only_keys(cmd, keys, why) != 0)
        return why->reason;
    if (g->offer < 0)
        return refuse(why, BG_R_NO_OFFER, "no side has offered to end the battle");
    if (g->offer == s)
        return refuse(why, BG_R_OWN_OFFER, "the offer is yours: the other side accepts it");
    battle_ends(g, results[g->offer_result], "the sides agreed to end the battle", ev);
    return 0;
}

/* --- the victory points (B40-B42) ------------------------------------------ */

/* The points of cmd ("p1", "p2") into vp. */
static int parse_points(const json_t *cmd, int vp[2], struct wr_refusal *why)
{
    static const char *const keys[] = { "type", "p1", "p2", NULL };
    if (only_keys(cmd, keys, why) != 0)
        return why->reason;
    for (int s = 0; s < 2; s++) {
        json_t *v = json_object_get(cmd, side_name[s]);
        if (!json_is_integer(v) || json_integer_value(v) < 0 ||
            json_integer_value(v) > BG_VP_MAX)
            return refuse(why, BG_R_BAD_VP, "\"%s\": %s's victory points, a whole number "
                          "0..%d", side_name[s], side_name[s], BG_VP_MAX);
        vp[s] = (int)json_integer_value(v);
    }
    return 0;
}

/* The points are agreed (or settled): the game is over with the result
 * the table decided (B42). */
static void points_agreed(struct bg_game *g, const int vp[2], json_t *ev)
{
    g->vp_agreed = true;
    g->vp[0] = vp[0];
    g->vp[1] = vp[1];
    g->phase = BG_OVER;
    memcpy(g->winner, g->decided, sizeof g->winner);
    json_array_append_new(ev, json_pack("{s:s, s:i, s:i}", "type", "victory_points_agreed",
                                        "p1", vp[0], "p2", vp[1]));
}

static bool reports_differ(const struct bg_game *g)
{
    const struct bg_vp *a = &g->vp_report[0], *b = &g->vp_report[1];
    return a->in && b->in && (a->p1 != b->p1 || a->p2 != b->p2);
}

/* A side's report; it replaces the side's last one (B41). */
static int do_victory_points(struct bg_game *g, int s, const json_t *cmd, json_t *ev,
                             struct wr_refusal *why)
{
    int vp[2];
    if (parse_points(cmd, vp, why) != 0)
        return why->reason;
    g->vp_report[s] = (struct bg_vp){ true, vp[0], vp[1] };
    json_array_append_new(ev, json_pack("{s:s, s:s, s:i, s:i}", "type", "victory_points",
                                        "side", side_name[s], "p1", vp[0], "p2", vp[1]));
    if (!g->vp_report[!s].in)
        return 0;
    if (!reports_differ(g)) {
        points_agreed(g, vp, ev);
        return 0;
    }
    json_array_append_new(ev, json_pack("{s:s, s:s?}", "type", "vp_disputed", "referee",
                                        g->referee ? "referee" : NULL));
    return 0;
}

/* The referee's settlement of reports that differ (B41). */
static int do_settle_points(struct bg_game *g, int s, const json_t *cmd, json_t *ev,
                            struct wr_refusal *why)
{
    int vp[2];
    (void)s;
    if (parse_points(cmd, vp, why) != 0)
        return why->reason;
    if (!reports_differ(g))
        return refuse(why, BG_R_NOT_DISPUTED, g->vp_report[0].in && g->vp_report[1].in
                      ? "the reports agree" : "both sides report before the referee settles");
    json_array_append_new(ev, json_pack("{s:s, s:i, s:i}", "type", "vp_settled", "p1", vp[0],
                                        "p2", vp[1]));
    points_agreed(g, vp, ev);
    return 0;
}

/* --- combat commands ------------------------------------------------------------ */


/* Out of its combat: fleeing, falling back, off the table or no models. */
static bool out_of_combat(const struct wb_unit *u)
{
    return (u->status & (WB_ST_FLEEING | WB_ST_FALLING_BACK | WB_ST_OFF_TABLE)) ||
           wb_unit_alive(u) == 0;
}

/* Confident a) counts a unit other than skirmishers broken in close combat
 * (B31): the army's flag is the broke statements that stand. */
static void formed_broken(struct wb_army *a, const struct bg_unit_x *x)
{
    a->formed_unit_broken = false;
    for (int i = 0; i < a->count; i++)
        a->formed_unit_broken |= x[i].broke_turn > 0 && !a->units[i].skirmish;
}

/* Open u's statement record (B35): what kind changes, as it was before. */
static void stmt_open(struct bg_game *g, int us, int ui, int kind, int by)
{
    const struct wb_unit *u = &g->side[us].army.units[ui];
    struct bg_unit_x *x = &g->side[us].x[ui];
    struct bg_stmt *st = &x->stmt;
    memset(st, 0, sizeof *st);
    st->open = true;
    st->kind = kind;
    st->by = by;
    st->status = u->status;
    st->why_retreat = x->why_retreat;
    st->broke_turn = x->broke_turn;
}

static json_t *unit_event(const char *type, const struct bg_game *g, int us, int ui)
{
    return json_pack("{s:s, s:s, s:s}", "type", type, "side", side_name[us], "unit",
                     g->side[us].army.units[ui].name);
}

/* The common checks of a unit named by key: found, (own side when own),
 * in segment seg (-1: any), with models on the table. */
static int unit_checks(const struct bg_game *g, int s, const json_t *cmd, const char *key,
                       bool own, int seg, int *us, int *ui, struct wr_refusal *why)
{
    if (find_named(g, cmd, key, us, ui, why) != 0)
        return why->reason;
    const struct wb_unit *u = &g->side[*us].army.units[*ui];
    if (own && *us != s)
        return refuse(why, BG_R_NOT_YOUR_UNIT, "%s is %s's unit: its side states that",
                      u->name, side_name[*us]);
    if (seg >= 0 && g->segment != (enum bg_segment)seg)
        return refuse(why, BG_R_WRONG_SEGMENT, "%s is stated in %s, not in %s",
                      json_string_value(json_object_get(cmd, "type")), segment_names[seg],
                      segment_names[g->segment]);
    if (wb_unit_alive(u) == 0)
        return refuse(why, BG_R_UNIT_GONE, "%s has no models left on the table", u->name);
    return 0;
}

/* B26-B28. "charge": U of the side whose player turn it is declares a
 * charge on T in declare_charges: 1) keys 2) U, own, segment, on the table
 * 3) that side's player turn 4) not fleeing 5) wb_may_declare_charge 6) one
 * charge a turn 7) T an enemy on the table 8) the facing. T's charge facts
 * take the charger's kind, models left and formation; a charge to the flank
 * or rear is kept over a later one to the front (B27). */
static int do_charge(struct bg_game *g, int s, const json_t *cmd, json_t *ev,
                     struct wr_refusal *why)
{
    static const char *const keys[] = { "type", "unit", "target", "facing", NULL };
    int us, ui, ts, ti;
    if (only_keys(cmd, keys, why) != 0 ||                                       /* 1) */
        unit_checks(g, s, cmd, "unit", true, BG_SEG_CHARGES, &us, &ui, why) != 0)  /* 2) */
        return why->reason;
    struct wb_unit *u = &g->side[us].army.units[ui];
    struct bg_unit_x *ux = &g->side[us].x[ui];
    if (s != g->active)                                                         /* 3) */
        return refuse(why, BG_R_NOT_CHARGING_SIDE, "it is %s's player turn",
                      side_name[g->active]);
    if (u->status & WB_ST_FLEEING)                                              /* 4) */
        return refuse(why, BG_R_FLEEING, "%s is fleeing: it may not declare a charge", u->name);
    struct wb_verdict v = wb_may_declare_charge(u);                             /* 5) */
    if (!v.yes)
        return refuse(why, (int)v.why, "%s: %s", u->name, wb_reason_text(v.why));
    if (ux->declared_turn == g->turn)                                           /* 6) */
        return refuse(why, BG_R_ALREADY_STATED, "%s already declared a charge this turn",
                      u->name);
    if (find_named(g, cmd, "target", &ts, &ti, why) != 0)                       /* 7) */
        return why->reason;
    struct wb_unit *t = &g->side[ts].army.units[ti];
    struct bg_unit_x *tx = &g->side[ts].x[ti];
    if (ts == us)
        return refuse(why, BG_R_OWN_TARGET, "%s and %s are of the same army", u->name,
                      t->name);
    if (wb_unit_alive(t) == 0)
        return refuse(why, BG_R_UNIT_GONE, "%s has no models left on the table", t->name);
    int facing = name_index(bg_facing_names, json_string_value(json_object_get(cmd, "facing")));
    if (facing < 0)                                                             /* 8) */
        return refuse(why, BG_R_BAD_FACING, "\"facing\": front, flank or rear");
    stmt_open(g, us, ui, SK_CHARGE, s);
    struct bg_stmt *st = &ux->stmt;
    st->target = ti;
    st->charge = t->facts.charge;
    st->charged_by = tx->charged_by;
    st->facing = tx->facing;
    st->charge_turn = tx->charge_turn;
    st->counter_charged = tx->counter_charged;
    ux->declared_turn = g->turn;
    ux->declared_target = ti;
    bool keep = t->facts.charge.charged && !t->facts.charge.to_front && facing == 0;
    if (!keep) {
        t->facts.charge = (struct wb_charge){ true, facing == 0, u->kind, wb_unit_alive(u),
                                              u->skirmish };
        tx->charged_by = ui;
        tx->facing = facing;
        tx->counter_charged = false;
        tx->charge_turn = g->turn;
    }
    judge_unit(g, ts, ti);
    json_t *e = unit_event("charge", g, us, ui);
    json_object_set_new(e, "target", json_string(t->name));
    json_object_set_new(e, "facing", json_string(bg_facing_names[facing]));
    json_object_set_new(e, "models", json_integer(wb_unit_alive(u)));
    json_object_set_new(e, "kept", json_boolean(keep));
    json_object_set_new(e, "rank", json_string(wb_reason_code(tx->why_rank)));
    json_array_append_new(ev, e);
    return 0;
}

/* T charged to its front in this declare_charges segment by a unit that
 * may counter charge it: the verdict with "this segment" applied (B29). */
static struct wb_verdict counter_verdict(const struct bg_game *g, int ts, int ti)
{
    struct wb_unit t = g->side[ts].army.units[ti];
    if (g->side[ts].x[ti].charge_turn != g->turn || g->segment != BG_SEG_CHARGES)
        t.facts.charge.charged = false;
    return wb_counter_charge(&t, NULL, NULL);
}

/* B29. "counter_charge": T's side, in declare_charges, when T was charged
 * to its front this segment: 1) keys 2) T, own, segment, on the table 3) not
 * fleeing 4) not yet 5) wb_counter_charge. */
static int do_counter_charge(struct bg_game *g, int s, const json_t *cmd, json_t *ev,
                             struct wr_refusal *why)
{
    static const char *const keys[] = { "type", "unit", NULL };
    int ts, ti;
    if (only_keys(cmd, keys, why) != 0 ||                                       /* 1) */
        unit_checks(g, s, cmd, "unit", true, BG_SEG_CHARGES, &ts, &ti, why) != 0)  /* 2) */
        return why->reason;
    struct wb_unit *t = &g->side[ts].army.units[ti];
    struct bg_unit_x *tx = &g->side[ts].x[ti];
    if (t->status & WB_ST_FLEEING)                                              /* 3) */
        return refuse(why, BG_R_FLEEING, "%s is fleeing", t->name);
    if (tx->counter_charged && tx->charge_turn == g->turn)                     /* 4) */
        return refuse(why, BG_R_ALREADY_STATED, "%s already counter charged", t->name);
    struct wb_verdict v = counter_verdict(g, ts, ti);                           /* 5) */
    if (!v.yes)
        return refuse(why, (int)v.why, "%s: %s", t->name, wb_reason_text(v.why));
    stmt_open(g, ts, ti, SK_COUNTER, s);
    tx->counter_charged = true;
    json_t *e = unit_event("counter_charge", g, ts, ti);
    json_object_set_new(e, "charger",
                        json_string(g->side[!ts].army.units[tx->charged_by].name));
    json_object_set_new(e, "why", json_string(wb_reason_text(v.why)));
    /* "it gets +1S if it has thrusting spears" (B1): said, for the table. */
    json_object_set_new(e, "thrusting_spears", json_boolean(t->thrusting_spears));
    json_array_append_new(ev, e);
    return 0;
}

/* B30. "screen_flees": S's side, in declare_charges, after U (a friendly
 * unit S screens) declared a charge: 1) keys 2) S, own, segment, on the
 * table 3) U a friend 4) S not fleeing 5) wb_screen_flee. S flees. */
static int do_screen_flees(struct bg_game *g, int s, const json_t *cmd, json_t *ev,
                           struct wr_refusal *why)
{
    static const char *const keys[] = { "type", "screen", "unit", NULL };
    int ss, si, us, ui;
    if (only_keys(cmd, keys, why) != 0 ||                                       /* 1) */
        unit_checks(g, s, cmd, "screen", true, BG_SEG_CHARGES, &ss, &si, why) != 0 ||
        find_named(g, cmd, "unit", &us, &ui, why) != 0)                         /* 2) */
        return why->reason;
    struct wb_unit *sc = &g->side[ss].army.units[si];
    const struct wb_unit *u = &g->side[us].army.units[ui];
    if (us != ss)                                                               /* 3) */
        return refuse(why, BG_R_NOT_FRIENDS, "%s does not screen the enemy's %s", sc->name,
                      u->name);
    if (sc->status & WB_ST_FLEEING)                                             /* 4) */
        return refuse(why, BG_R_FLEEING, "%s is fleeing already", sc->name);
    struct wb_verdict v = wb_screen_flee(sc, u, g->side[us].x[ui].declared_turn == g->turn);
    if (!v.yes)                                                                 /* 5) */
        return refuse(why, (int)v.why, "%s: %s", sc->name, wb_reason_text(v.why));
    stmt_open(g, ss, si, SK_SCREEN, s);
    sc->status = (sc->status & ~(unsigned)WB_ST_FALLING_BACK) | WB_ST_FLEEING;
    g->side[ss].x[si].why_retreat = WB_R_SCREEN_FLEE;
    judge_unit(g, ss, si);
    json_t *e = unit_event("screen_flees", g, ss, si);
    json_object_set_new(e, "screened", json_string(u->name));
    json_object_set_new(e, "why", json_string(wb_reason_text(v.why)));
    json_array_append_new(ev, e);
    return 0;
}

/* B37. "cover": either side, in shooting: does a shot at U through S get
 * soft cover? 1) keys 2) S and U, segment 3) los 4) friends. The verdict
 * is the event's; nothing changes, nothing to dispute. */
static int do_cover(struct bg_game *g, int s, const json_t *cmd, json_t *ev,
                    struct wr_refusal *why)
{
    static const char *const keys[] = { "type", "screen", "unit", "los", NULL };
    int ss, si, us, ui;
    if (only_keys(cmd, keys, why) != 0 ||                                       /* 1) */
        unit_checks(g, s, cmd, "screen", false, BG_SEG_SHOOTING, &ss, &si, why) != 0 ||
        find_named(g, cmd, "unit", &us, &ui, why) != 0)                         /* 2) */
        return why->reason;
    json_t *los = json_object_get(cmd, "los");
    if (!json_is_boolean(los))                                                  /* 3) */
        return refuse(why, WB_R_BAD_COMMAND, "\"los\": true when the line of sight passes "
                      "through the screen, else false");
    const struct wb_unit *sc = &g->side[ss].army.units[si], *u = &g->side[us].army.units[ui];
    if (us != ss)                                                               /* 4) */
        return refuse(why, BG_R_NOT_FRIENDS, "%s does not screen the enemy's %s", sc->name,
                      u->name);
    struct wb_verdict v = wb_screen_cover(sc, u, json_is_true(los));
    json_t *e = unit_event("cover", g, us, ui);
    json_object_set_new(e, "screen", json_string(sc->name));
    json_object_set_new(e, "los", json_boolean(json_is_true(los)));
    json_object_set_new(e, "cover", json_boolean(v.yes));
    json_object_set_new(e, "outcome", json_string(wb_reason_code(v.why)));
    json_object_set_new(e, "why", json_string(wb_reason_text(v.why)));
    json_array_append_new(ev, e);
    return 0;
}

/* B31. "broke": either side, in combat: 1) keys 2) U, segment, on the
 * table 3) not fleeing. U flees; a unit not in skirmish formation that
 * breaks ends confident a) for its army. */
static int do_broke(struct bg_game *g, int s, const json_t *cmd, json_t *ev,
                    struct wr_refusal *why)
{
    static const char *const keys[] = { "type", "unit", NULL };
    int us, ui;
    if (only_keys(cmd, keys, why) != 0 ||                                       /* 1) */
        unit_checks(g, s, cmd, "unit", false, BG_SEG_COMBAT, &us, &ui, why) != 0)  /* 2) */
        return why->reason;
    struct wb_army *a = &g->side[us].army;
    struct wb_unit *u = &a->units[ui];
    struct bg_unit_x *x = &g->side[us].x[ui];
    if (u->status & WB_ST_FLEEING)                                              /* 3) */
        return refuse(why, BG_R_FLEEING, "%s is fleeing already", u->name);
    stmt_open(g, us, ui, SK_BROKE, s);
    bool was = a->formed_unit_broken;
    u->status = (u->status & ~(unsigned)WB_ST_FALLING_BACK) | WB_ST_FLEEING;
    x->why_retreat = WB_R_FLEES;
    x->broke_turn = g->turn;
    formed_broken(a, g->side[us].x);
    judge_all(g);
    json_t *e = unit_event("broke", g, us, ui);
    json_object_set_new(e, "confident_a_lost", json_boolean(!was && a->formed_unit_broken));
    json_array_append_new(ev, e);
    return 0;
}

/* B32. "reform": U's side, at the end of the combat phase (its combat
 * segment): 1) keys 2) U, own, on the table 3) wb_reform (segment, flank or
 * rear, did not break, no other facing) 4) not already. */
static int do_reform(struct bg_game *g, int s, const json_t *cmd, json_t *ev,
                     struct wr_refusal *why)
{
    static const char *const keys[] = { "type", "unit", NULL };
    int us, ui;
    if (only_keys(cmd, keys, why) != 0 ||                                       /* 1) */
        unit_checks(g, s, cmd, "unit", true, -1, &us, &ui, why) != 0)           /* 2) */
        return why->reason;
    struct wb_unit *u = &g->side[us].army.units[ui];
    const struct bg_unit_x *x = &g->side[us].x[ui];
    bool broke = x->broke_turn == g->turn || (u->status & WB_ST_FLEEING);
    struct wb_verdict v = wb_reform(u, g->segment == BG_SEG_COMBAT, broke);    /* 3) */
    if (!v.yes)
        return refuse(why, (int)v.why, "%s: %s", u->name, wb_reason_text(v.why));
    if (u->status & WB_ST_REFORMED)                                             /* 4) */
        return refuse(why, BG_R_ALREADY_STATED, "%s has reformed already", u->name);
    stmt_open(g, us, ui, SK_REFORM, s);
    u->status |= WB_ST_REFORMED;
    judge_unit(g, us, ui);
    json_t *e = unit_event("reform", g, us, ui);
    json_object_set_new(e, "rank", json_string(wb_reason_code(x->why_rank)));
    json_array_append_new(ev, e);
    return 0;
}

/* B33. "general_killed": either side, any segment: 1) keys 2) a side 3) its
 * general alive. Edgy c) from the next player turn; the general is no
 * longer with his unit (confident c). */
static int do_general_killed(struct bg_game *g, int s, const json_t *cmd, json_t *ev,
                             struct wr_refusal *why)
{
    static const char *const keys[] = { "type", "side", NULL };
    if (only_keys(cmd, keys, why) != 0)                                         /* 1) */
        return why->reason;
    int a = side_of(json_string_value(json_object_get(cmd, "side")));
    if (a < 0)                                                                  /* 2) */
        return refuse(why, WB_R_BAD_COMMAND, "\"side\": p1 or p2, whose general died");
    struct bg_side *sd = &g->side[a];
    if (sd->army.general_killed_turn > 0)                                       /* 3) */
        return refuse(why, BG_R_GENERAL_DEAD, "%s's general died in turn %d", side_name[a],
                      sd->army.general_killed_turn);
    memset(&sd->general, 0, sizeof sd->general);
    sd->general.open = true;
    sd->general.kind = SK_GENERAL;
    sd->general.by = s;
    for (int i = 0; i < sd->army.count; i++)
        if (sd->army.units[i].general) {
            sd->general.generals |= 1u << i;
            sd->army.units[i].general = false;
        }
    sd->army.general_killed_turn = g->turn;
    judge_all(g);
    json_array_append_new(ev, json_pack("{s:s, s:s, s:i, s:i}", "type", "general_killed",
                                        "side", side_name[a], "turn", g->turn, "edgy_from",
                                        g->turn + 1));
    return 0;
}

/* B34. "elephant": U's side, in combat: 1) keys 2) U, own, segment, on
 * the table 3) beat or survived 4) wb_elephant_event: the army's upgrade,
 * once. */
static int do_elephant(struct bg_game *g, int s, const json_t *cmd, json_t *ev,
                       struct wr_refusal *why)
{
    static const char *const keys[] = { "type", "unit", "event", NULL };
    static const char *const events[] = { "beat", "survived", NULL };
    int us, ui;
    if (only_keys(cmd, keys, why) != 0 ||                                       /* 1) */
        unit_checks(g, s, cmd, "unit", true, BG_SEG_COMBAT, &us, &ui, why) != 0)   /* 2) */
        return why->reason;
    int e = name_index(events, json_string_value(json_object_get(cmd, "event")));
    if (e < 0)                                                                  /* 3) */
        return refuse(why, WB_R_BAD_COMMAND, "\"event\": beat or survived");
    struct wb_army *a = &g->side[us].army;
    struct wb_verdict v = wb_elephant_event(a, e == 0);                         /* 4) */
    if (!v.yes)
        return refuse(why, (int)v.why, "%s: %s", fam_names[a->familiarity],
                      wb_reason_text(v.why));
    stmt_open(g, us, ui, SK_ELEPHANT, s);
    judge_all(g);
    json_t *j = unit_event("familiarity", g, us, ui);
    json_object_set_new(j, "event", json_string(events[e]));
    json_object_set_new(j, "elephants", json_string(fam_names[a->familiarity]));
    json_object_set_new(j, "upgraded", json_true());
    json_object_set_new(j, "why", json_string(wb_reason_text(v.why)));
    json_array_append_new(ev, j);
    return 0;
}

/* B36. "left_table": either side, any segment: 1) keys 2) U on the table
 * 3) fleeing. U is no longer alive for the break point (B15). */
static int do_left_table(struct bg_game *g, int s, const json_t *cmd, json_t *ev,
                         struct wr_refusal *why)
{
    static const char *const keys[] = { "type", "unit", NULL };
    int us, ui;
    if (only_keys(cmd, keys, why) != 0 ||                                       /* 1) */
        unit_checks(g, s, cmd, "unit", false, -1, &us, &ui, why) != 0)          /* 2) */
        return why->reason;
    struct wb_unit *u = &g->side[us].army.units[ui];
    if (!(u->status & WB_ST_FLEEING))                                           /* 3) */
        return refuse(why, BG_R_NOT_FLED, "%s is not fleeing", u->name);
    stmt_open(g, us, ui, SK_LEFT, s);
    u->status |= WB_ST_OFF_TABLE;
    judge_all(g);
    json_t *e = unit_event("left_table", g, us, ui);
    json_object_set_new(e, "models_left", json_integer(wb_army_alive(&g->side[us].army)));
    json_array_append_new(ev, e);
    return 0;
}

static int stmt_index(const char *s)
{
    return name_index(bg_statement_names, s);
}

/* B35. A dispute of a combat statement: {"unit", "fact": its type}, or
 * {"side", "fact": "general_killed"}: 1) keys 2) the unit or side 3) its
 * last statement, open, of that type 4) stated by the other side. */
static int dispute_stmt(struct bg_game *g, int s, const json_t *cmd, json_t *ev,
                        struct wr_refusal *why)
{
    static const char *const keys[] = { "type", "unit", "side", "fact", NULL };
    int k = stmt_index(json_string_value(json_object_get(cmd, "fact")));
    int us, ui = -1;
    struct bg_stmt *st;
    if (only_keys(cmd, keys, why) != 0)                                         /* 1) */
        return why->reason;
    if (k == SK_GENERAL) {                                                      /* 2) */
        us = side_of(json_string_value(json_object_get(cmd, "side")));
        if (us < 0 || json_object_get(cmd, "unit"))
            return refuse(why, WB_R_BAD_COMMAND, "dispute general_killed with \"side\": "
                          "p1 or p2");
        st = &g->side[us].general;
    } else {
        if (json_object_get(cmd, "side"))
            return refuse(why, WB_R_BAD_COMMAND, "a dispute of %s names its \"unit\"",
                          bg_statement_names[k]);
        if (find_named(g, cmd, "unit", &us, &ui, why) != 0)
            return why->reason;
        st = &g->side[us].x[ui].stmt;
    }
    const char *who = ui >= 0 ? g->side[us].army.units[ui].name : side_name[us];
    if (!st->open || st->kind != k)                                             /* 3) */
        return refuse(why, BG_R_NOT_STATED, "%s's last %s this turn is not open to dispute",
                      who, bg_statement_names[k]);
    if (st->by == s)                                                            /* 4) */
        return refuse(why, BG_R_OWN_FACT, "the %s of %s is your own statement",
                      bg_statement_names[k], who);
    st->open = false;
    g->dispute.on = true;
    g->dispute.side = us;
    g->dispute.unit = ui;
    g->dispute.fact = NFACTS + k;
    json_array_append_new(ev, json_pack("{s:s, s:s, s:s?, s:s}", "type", "dispute", "side",
                                        side_name[s], "unit", ui >= 0 ? who : NULL, "fact",
                                        bg_statement_names[k]));
    if (g->referee)
        return 0;
    int face = roll(g, ev, "dispute");                  /* B22: a D6, 4+ stands */
    if (face == 0)
        return refuse(why, WB_R_BAD_COMMAND, "the host has no die for the dispute");
    json_array_append_new(ev, settled_event(g, face >= 4, "dice"));
    settle(g, face >= 4);
    return 0;
}

/* B35. A combat statement that does not stand is undone: what it changed
 * goes back to what it was before. */
static void stmt_undo(struct bg_game *g)
{
    int us = g->dispute.side, ui = g->dispute.unit, k = g->dispute.fact - NFACTS;
    struct wb_army *a = &g->side[us].army;
    if (k == SK_GENERAL) {
        struct bg_stmt *st = &g->side[us].general;
        a->general_killed_turn = 0;
        for (int i = 0; i < a->count; i++)
            if (st->generals >> i & 1u)
                a->units[i].general = true;
        judge_all(g);
        return;
    }
    struct wb_unit *u = &a->units[ui];
    struct bg_unit_x *x = &g->side[us].x[ui];
    const struct bg_stmt *st = &x->stmt;
    switch (k) {
    case SK_CHARGE: {
        /* The target's charge as it was, its counter charge with it, when
         * the charge it holds is this one (not an earlier one it kept,
         * B27, nor a later one). */
        struct wb_unit *t = &g->side[!us].army.units[st->target];
        struct bg_unit_x *tx = &g->side[!us].x[st->target];
        if (t->facts.charge.charged && tx->charged_by == ui && tx->charge_turn == g->turn) {
            t->facts.charge = st->charge;
            tx->charged_by = st->charged_by;
            tx->facing = st->facing;
            tx->counter_charged = st->counter_charged;
            tx->charge_turn = st->charge_turn;
            if (tx->stmt.open && tx->stmt.kind == SK_COUNTER)
                tx->stmt.open = false;
        }
        x->declared_turn = 0;
        break;
    }
    case SK_COUNTER:
        x->counter_charged = false;
        break;
    case SK_ELEPHANT:
        a->elephant_upgraded = false;
        break;
    default:            /* screen_flees, broke, reform, left_table: its statuses */
        u->status = (st->status & ~(unsigned)BG_ST_JUDGED) | (u->status & BG_ST_JUDGED);
        x->why_retreat = st->why_retreat;
        x->broke_turn = st->broke_turn;
        formed_broken(a, g->side[us].x);
        break;
    }
    judge_all(g);
}

/* B28, B35. The end of a player turn: statements close; a combat whose
 * charged unit or charger is out of it (fleeing, falling back, off the
 * table, no models) is over: the charge, its counter charge and the
 * reformed status go, and with them a rank bonus the charge took. */
static void combat_turn_over(struct bg_game *g)
{
    for (int s = 0; s < 2; s++) {
        g->side[s].general.open = false;
        for (int i = 0; i < g->side[s].army.count; i++) {
            struct wb_unit *u = &g->side[s].army.units[i];
            struct bg_unit_x *x = &g->side[s].x[i];
            x->stmt.open = false;
            bool over = out_of_combat(u);
            if (u->facts.charge.charged &&
                (over || out_of_combat(&g->side[!s].army.units[x->charged_by]))) {
                memset(&u->facts.charge, 0, sizeof u->facts.charge);
                x->counter_charged = false;
                over = true;
            }
            if (over)
                u->status &= ~(unsigned)WB_ST_REFORMED;
        }
    }
    judge_all(g);
}

/* The members a unit's state adds for the combat commands. */
static void combat_unit_json(const struct bg_game *g, int s, int i, json_t *j)
{
    const struct wb_unit *u = &g->side[s].army.units[i];
    const struct bg_unit_x *x = &g->side[s].x[i];
    json_t *charge = json_null();
    if (u->facts.charge.charged)
        charge = json_pack("{s:s, s:s, s:s, s:i, s:b, s:i, s:b}", "by",
                           g->side[!s].army.units[x->charged_by].name, "facing",
                           bg_facing_names[x->facing], "kind", bg_kind_names[u->facts.charge.kind],
                           "models", u->facts.charge.models, "skirmish",
                           u->facts.charge.skirmish, "turn", x->charge_turn, "counter_charged",
                           x->counter_charged);
    json_object_set_new(j, "charge", charge);
    json_object_set_new(j, "charging", x->declared_turn > 0 && x->declared_turn == g->turn
                        ? json_string(g->side[!s].army.units[x->declared_target].name)
                        : json_null());
    json_object_set_new(j, "broke", json_boolean(x->broke_turn > 0));
    json_object_set_new(j, "left_table", json_boolean(u->status & WB_ST_OFF_TABLE));
    json_object_set_new(j, "disputable",
                        x->stmt.open ? json_string(bg_statement_names[x->stmt.kind]) : json_null());
}

static void combat_side_json(const struct bg_game *g, int s, json_t *j)
{
    const struct wb_army *a = &g->side[s].army;
    json_object_set_new(j, "elephants_upgraded", json_boolean(a->elephant_upgraded));
    json_object_set_new(j, "general_killed", a->general_killed_turn > 0
                        ? json_integer(a->general_killed_turn) : json_null());
    json_object_set_new(j, "general_killed_disputable", json_boolean(g->side[s].general.open));
    json_object_set_new(j, "formed_unit_broken", json_boolean(a->formed_unit_broken));
}

/* Who may send a command: the sides (either, unless the handler says
 * otherwise), or the referee. */
enum who { SIDES, REFEREE };

static const struct bg_command {
    const char *type;
    enum bg_phase phase;
    enum who who;
    bool blocked_by_dispute;    /* refused while the referee settles a dispute (B22) */
    int (*handler)(struct bg_game *, int, const json_t *, json_t *, struct wr_refusal *);
} commands[] = {
    { "roster", BG_ROSTER, SIDES, false, do_roster },
    { "start", BG_START, SIDES, false, do_start },
    { "fact", BG_PLAY, SIDES, true, do_fact },
    { "dispute", BG_PLAY, SIDES, true, do_dispute },
    { "settle", BG_PLAY, REFEREE, false, do_settle },
    { "casualties", BG_PLAY, SIDES, true, do_casualties },
    { "test", BG_PLAY, SIDES, true, do_test },
    { "end_phase", BG_PLAY, SIDES, true, do_end },
    { "end_turn", BG_PLAY, SIDES, true, do_end },
    { "offer_end", BG_PLAY, SIDES, false, do_offer },
    { "accept_end", BG_PLAY, SIDES, false, do_accept },
    { "victory_points", BG_VICTORY, SIDES, false, do_victory_points },
    { "settle_points", BG_VICTORY, REFEREE, false, do_settle_points },
    { "charge", BG_PLAY, SIDES, true, do_charge },
    { "counter_charge", BG_PLAY, SIDES, true, do_counter_charge },
    { "screen_flees", BG_PLAY, SIDES, true, do_screen_flees },
    { "cover", BG_PLAY, SIDES, true, do_cover },
    { "broke", BG_PLAY, SIDES, true, do_broke },
    { "reform", BG_PLAY, SIDES, true, do_reform },
    { "general_killed", BG_PLAY, SIDES, true, do_general_killed },
    { "elephant", BG_PLAY, SIDES, true, do_elephant },
    { "left_table", BG_PLAY, SIDES, true, do_left_table },
};

int bg_apply(struct bg_game *g, const char *seat, const json_t *cmd, json_t **events,
             struct wr_refusal *why)
{
    *events = NULL;
    const char *type = json_string_value(json_object_get(cmd, "type"));
    const struct bg_command *c = NULL;
    for (size_t i = 0; type && i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(commands[i].type, type) == 0)
            c = &commands[i];
    if (!json_is_object(cmd) || c == NULL)
        return refuse(why, WB_R_BAD_COMMAND, "a command is an object whose \"type\" is roster, "
                      "start, fact, dispute, settle, casualties, test, end_phase, end_turn, "
                      "offer_end, accept_end, charge, counter_charge, screen_flees, cover, "
                      "broke, reform, general_killed, elephant, left_table, victory_points "
                      "or settle_points");
    int s = side_of(seat);
    bool is_ref = g->referee && seat && strcmp(seat, "referee") == 0;
    if (g->phase == BG_OVER)
        return refuse(why, WB_R_GAME_OVER, "the battle is over: %s", g->winner);
    if ((c->who == SIDES && s < 0) || (c->who == REFEREE && !is_ref))
        return refuse(why, WB_R_NOT_YOUR_TURN, c->who == SIDES ? "only the two sides may %s"
                      : "only the referee may %s", type);
    if (c->phase != g->phase)
        return refuse(why, WB_R_WRONG_PHASE, "%s is not allowed while the battle is at %s",
                      type, phase_names[g->phase]);
    if (c->blocked_by_dispute && g->dispute.on)
        return refuse(why, BG_R_DISPUTE_PENDING, "the referee settles %s's %s first",
                      dispute_unit(g) ? dispute_unit(g) : side_name[g->dispute.side],
                      dispute_fact(g));
    struct bg_game *work = malloc(sizeof *work);
    json_t *ev = json_array();
    if (work == NULL || ev == NULL) {
        free(work);
        json_decref(ev);
        return refuse(why, WB_R_NO_MEMORY, "out of memory");
    }
    memcpy(work, g, sizeof *work);
    int r = c->handler(work, s, cmd, ev, why);
    if (r == 0) {
        memcpy(g, work, sizeof *g);
        *events = ev;
    } else {
        json_decref(ev);
    }
    free(work);
    return r;
}

/* --- the state ---------------------------------------------------------------- */

static json_t *statuses_json(const struct wb_unit *u)
{
    static const struct { unsigned bit; const char *name; } names[] = {
        { WB_ST_CONFIDENT, "confident" }, { WB_ST_EDGY, "edgy" }, { WB_ST_FLEEING, "fleeing" },
        { WB_ST_FALLING_BACK, "falling_back" }, { WB_ST_FELL_BACK, "fell_back" },
        { WB_ST_REFORMED, "reformed" }, { WB_ST_RANK_LOST, "rank_bonus_lost" },
    };
    json_t *a = json_array();
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (u->status & names[i].bit)
            json_array_append_new(a, json_string(names[i].name));
    return a;
}

static json_t *unit_json(const struct bg_game *g, int s, int i)
{
    const struct wb_unit *u = &g->side[s].army.units[i];
    const struct bg_unit_x *x = &g->side[s].x[i];
    json_t *fj = json_object();
    for (int f = 0; f < NFACTS; f++)
        json_object_set_new(fj, bg_fact_names[f], f < BG_TERRAIN_FACTS
                                ? json_string(bg_terrain_names[x->value[f]])
                                : json_boolean(x->value[f]));
    json_t *stated = json_array();
    for (int f = 0; f < NFACTS; f++)
        if (x->stated >> f & 1u)
            json_array_append_new(stated, json_string(bg_fact_names[f]));
    json_t *reasons = json_pack("{s:s, s:s, s:s}", "confident", wb_reason_code(x->why_conf),
                                "edgy", wb_reason_code(x->why_edgy), "rank",
                                wb_reason_code(x->why_rank));
    if (x->why_retreat != WB_R_OK)
        json_object_set_new(reasons, "retreat", json_string(wb_reason_code(x->why_retreat)));
    json_t *j = json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:b, s:b, s:i, s:o, "
                          "s:o, s:o, s:o}",
                          "name", u->name, "kind", bg_kind_names[u->kind], "models", u->models,
                          "wounds", u->wounds, "wounds_lost", u->wounds_lost, "models_left",
                          wb_unit_alive(u), "move", u->move, "files", u->files, "ranks",
                          u->ranks, "skirmish", u->skirmish, "general", u->general, "points",
                          x->points, "status", statuses_json(u), "why", reasons, "facts", fj,
                          "stated", stated);
    json_object_set_new(j, "crew", json_integer(u->crew));
    json_object_set_new(j, "mounted", json_boolean(u->mounted));
    json_object_set_new(j, "thrusting_spears", json_boolean(u->thrusting_spears));
    combat_unit_json(g, s, i, j);
    return j;
}

static json_t *side_json(const struct bg_game *g, int s, bool sees)
{
    const struct bg_side *sd = &g->side[s];
    json_t *j = json_pack("{s:b, s:s}", "in", sd->in, "elephants",
                          fam_names[sd->army.familiarity]);
    if (!sees)
        return j;
    int alive = wb_army_alive(&sd->army), start = sd->army.start_models;
    char line[96];
    snprintf(line, sizeof line, "%d of %d models, breaks at %d", alive, start, start / 4);
    json_t *units = json_array();
    for (int i = 0; i < sd->army.count; i++)
        json_array_append_new(units, unit_json(g, s, i));
    json_object_set_new(j, "units", units);
    json_object_set_new(j, "models_left", json_integer(alive));
    json_object_set_new(j, "start_models", json_integer(start));
    json_object_set_new(j, "breaks_at", json_integer(start / 4));
    json_object_set_new(j, "break_point", json_string(line));
    combat_side_json(g, s, j);
    return j;
}

/* The end and the campaign's options in the state (B40-B44): public. */
static void end_json(const struct bg_game *g, json_t *j)
{
    json_t *reports = json_object(), *ambush = json_object();
    for (int s = 0; s < 2; s++) {
        const struct bg_vp *r = &g->vp_report[s];
        json_object_set_new(reports, side_name[s], r->in ? json_pack("{s:i, s:i}", "p1", r->p1,
                                                                     "p2", r->p2)
                                                         : json_null());
        if (g->ambush[s] != BG_AMBUSH_NONE)
            json_object_set_new(ambush, side_name[s], json_string(
                                    g->ambush[s] == BG_AMBUSH_DUE ? "due" : "waiting"));
    }
    json_object_set_new(j, "decided", g->decided[0] ? json_string(g->decided) : json_null());
    json_object_set_new(j, "victory_points", g->vp_agreed ? json_pack("{s:i, s:i}", "p1",
                                                                      g->vp[0], "p2", g->vp[1])
                                                          : json_null());
    json_object_set_new(j, "vp_reports", reports);
    /* Read back from the text the option was checked with (opt_campaign). */
    json_t *c = g->campaign[0] ? json_loads(g->campaign, 0, NULL) : NULL;
    json_object_set_new(j, "campaign", c ? c : json_null());
    json_object_set_new(j, "ambush", ambush);
}

json_t *bg_project(const struct bg_game *g, const char *seat)
{
    int me = side_of(seat);
    bool revealed = g->phase != BG_ROSTER;
    json_t *sides = json_object();
    for (int s = 0; s < 2; s++)
        json_object_set_new(sides, side_name[s], side_json(g, s, revealed || me == s));
    json_t *dispute = json_null(), *offer = json_null();
    if (g->dispute.on)
        dispute = json_pack("{s:s, s:s?, s:s}", "side", side_name[g->dispute.side], "unit",
                            dispute_unit(g), "fact", dispute_fact(g));
    if (g->offer >= 0)
        offer = json_pack("{s:s, s:s}", "side", side_name[g->offer], "result",
                          (const char *[]){ "p1", "p2", "draw" }[g->offer_result]);
    /* The dice (docs/dice.md): the next roll's k, the seed's commitment,
     * and the seed once the battle is over. */
    json_t *dice = json_pack("{s:I}", "rolls", (json_int_t)g->rolls);
    if (g->has_seed) {
        char hex[65];
        wr_dice_commitment(g->seed, hex);
        json_object_set_new(dice, "commitment", json_string(hex));
        if (g->phase == BG_OVER) {
            wr_dice_seed_hex(g->seed, hex);
            json_object_set_new(dice, "seed", json_string(hex));
        }
    }
    json_t *j = json_pack("{s:s, s:i, s:b, s:{s:b, s:b}, s:i, s:s?, s:s?, s:o, s:o, s:o, s:s?, "
                          "s:o}",
                     "phase", phase_names[g->phase], "points", g->points, "referee", g->referee,
                     "options", "diagonal", g->opts.diagonal, "deep_is_column",
                     g->opts.deep_is_column, "turn", g->turn, "player",
                     g->phase >= BG_PLAY ? side_name[g->active] : NULL, "segment",
                     g->phase == BG_PLAY ? segment_names[g->segment] : NULL, "sides", sides,
                     "dispute", dispute, "offer", offer, "winner",
                     g->winner[0] ? g->winner : NULL, "dice", dice);
    end_json(g, j);
    return j;
}

/* A roster event shows its units to its own side only; the state reveals
 * them all once both are in. */
json_t *bg_project_events(const struct bg_game *g, const char *seat, const json_t *events)
{
    (void)g;
    json_t *out = json_array();
    size_t i;
    json_t *e;
    json_array_foreach((json_t *)events, i, e) {
        const char *type = json_string_value(json_object_get(e, "type"));
        const char *side = json_string_value(json_object_get(e, "side"));
        if (type && strcmp(type, "roster") == 0 && (seat == NULL || !side ||
                                                    strcmp(seat, side) != 0)) {
            json_array_append_new(out, json_pack("{s:s, s:s?}", "type", "roster", "side", side));
            continue;
        }
        json_array_append(out, e);
    }
    return out;
}

/* B39. Whose reaction is awaited beside the player turn: the side of a
 * unit that may counter charge a charge of this segment. */
static int combat_awaiting(const struct bg_game *g, struct wr_decision *out, int max)
{
    int o = !g->active;
    for (int i = 0; i < g->side[o].army.count && max > 0; i++) {
        const struct wb_unit *t = &g->side[o].army.units[i];
        if (wb_unit_alive(t) > 0 && !(t->status & WB_ST_FLEEING) &&
            !g->side[o].x[i].counter_charged && counter_verdict(g, o, i).yes) {
            out[0] = (struct wr_decision){ side_name[o], "counter_charge" };
            return 1;
        }
    }
    return 0;
}

/* The combat commands' invariants: a charge names a charger of the other
 * army, off the table is fleeing, confident a) follows the broke
 * statements, a dispute names a fact or statement of a unit. */
static int combat_check(const struct bg_game *g, struct wr_refusal *why);

int bg_awaiting(const struct bg_game *g, struct wr_decision *out, int max)
{
    int n = 0;
    switch (g->phase) {
    case BG_ROSTER:
        for (int s = 0; s < 2 && n < max; s++)
            if (!g->side[s].in)
                out[n++] = (struct wr_decision){ side_name[s], "roster" };
        break;
    case BG_START:
        if (max > 0)
            out[n++] = (struct wr_decision){ "p1", "start" };
        break;
    case BG_PLAY:
        if (max > 0)
            out[n++] = g->dispute.on ? (struct wr_decision){ "referee", "settle" }
                                     : (struct wr_decision){ side_name[g->active], "turn" };
        if (!g->dispute.on)
            n += combat_awaiting(g, out + n, max - n);
        break;
    case BG_VICTORY: {
        /* Each side that has not reported; both again, and the referee,
         * while the reports differ (B41). */
        bool differ = reports_differ(g);
        for (int s = 0; s < 2 && n < max; s++)
            if (!g->vp_report[s].in || differ)
                out[n++] = (struct wr_decision){ side_name[s], "victory_points" };
        if (differ && g->referee && n < max)
            out[n++] = (struct wr_decision){ "referee", "settle_points" };
        break;
    }
    case BG_OVER:
        break;
    }
    return n;
}

/* --- invariants ------------------------------------------------------------------ */

static int broken(struct wr_refusal *why, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int broken(struct wr_refusal *why, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    wr_vrefuse_in(why, &bg_reasons, WB_R_BAD_COMMAND, fmt, ap);
    va_end(ap);
    return -1;
}

/* The end's and the campaign options' invariants (B40-B44). */
static int check_end(const struct bg_game *g, struct wr_refusal *why)
{
    if ((g->phase >= BG_VICTORY) != (g->decided[0] != '\0') ||
        (g->phase == BG_OVER) != g->vp_agreed)
        return broken(why, "phase %s with the result decided '%s' and points agreed %d",
                      phase_names[g->phase], g->decided, g->vp_agreed);
    if (g->phase == BG_OVER && strcmp(g->winner, g->decided) != 0)
        return broken(why, "the winner %s is not the result decided, %s", g->winner,
                      g->decided);
    for (int s = 0; s < 2; s++) {
        const struct bg_vp *r = &g->vp_report[s];
        if (r->in && (g->phase < BG_VICTORY || r->p1 < 0 || r->p1 > BG_VP_MAX || r->p2 < 0 ||
                      r->p2 > BG_VP_MAX))
            return broken(why, "%s reported %d-%d at %s", side_name[s], r->p1, r->p2,
                          phase_names[g->phase]);
        if (g->phase == BG_OVER && !r->in)
            return broken(why, "over without %s's report", side_name[s]);
        /* Due at the side's first player turn, not before; waiting in
         * play only while the side has not had one. */
        if (g->ambush[s] == BG_AMBUSH_DUE && (g->phase < BG_PLAY || (g->turn < 2 &&
                                                                  g->active != s)))
            return broken(why, "%s's ambush is due before its first turn", side_name[s]);
        if (g->ambush[s] == BG_AMBUSH_WAITING && g->phase == BG_PLAY &&
            (g->turn > 1 || g->active == s))
            return broken(why, "%s's ambush still waits in its turn %d", side_name[s],
                          g->turn);
    }
    if (g->phase == BG_VICTORY && g->vp_report[0].in && g->vp_report[1].in &&
        !reports_differ(g))
        return broken(why, "the reports agree and the game is not over");
    if (g->vp_agreed && (g->vp[0] < 0 || g->vp[0] > BG_VP_MAX || g->vp[1] < 0 ||
                         g->vp[1] > BG_VP_MAX))
        return broken(why, "points agreed %d-%d", g->vp[0], g->vp[1]);
    if (memchr(g->campaign, '\0', sizeof g->campaign) == NULL)
        return broken(why, "the option campaign is not a string");
    if (g->campaign[0]) {
        json_t *c = json_loads(g->campaign, 0, NULL);
        bool ok = json_is_object(c);
        json_decref(c);
        if (!ok)
            return broken(why, "the option campaign is not an object");
    }
    return 0;
}

int bg_check(const struct bg_game *g, struct wr_refusal *why)
{
    if (check_end(g, why) != 0)
        return -1;
    if ((unsigned)g->phase > BG_OVER || (g->phase == BG_OVER) != (g->winner[0] != '\0'))
        return broken(why, "phase %d with winner '%s'", (int)g->phase, g->winner);
    if (g->phase >= BG_START && !(g->side[0].in && g->side[1].in))
        return broken(why, "the battle is past its rosters with a roster missing");
    if (g->dispute.on && (!g->referee || g->phase != BG_PLAY))
        return broken(why, "a dispute is pending without a referee to settle it");
    if ((unsigned)g->segment >= BG_SEG_COUNT || (g->phase == BG_PLAY && g->turn < 1))
        return broken(why, "segment %d at turn %d", (int)g->segment, g->turn);
    for (int s = 0; s < 2; s++) {
        const struct wb_army *a = &g->side[s].army;
        if (a->count < 0 || a->count > WB_UNITS_MAX || (g->side[s].in && a->count < 1) ||
            (g->phase != BG_ROSTER && !g->side[s].in))
            return broken(why, "%s has %d units", side_name[s], a->count);
        if (g->side[s].in && a->start_models != wb_army_start_count(a))
            return broken(why, "%s started with %d models, its roster says %d", side_name[s],
                          a->start_models, wb_army_start_count(a));
        for (int i = 0; i < a->count; i++) {
            const struct wb_unit *u = &a->units[i];
            if (u->wounds_lost < 0 || u->wounds_lost > u->models * u->wounds)
                return broken(why, "%s lost %d of %d wounds", u->name, u->wounds_lost,
                              u->models * u->wounds);
            if ((u->status & WB_ST_FLEEING) && (u->status & WB_ST_FALLING_BACK))
                return broken(why, "%s flees and falls back at once", u->name);
            if (g->phase != BG_PLAY)
                continue;
            /* The statuses the verdicts decide are what the rules say now. */
            struct bg_game *copy = malloc(sizeof *copy);
            if (copy == NULL)
                return broken(why, "out of memory");
            memcpy(copy, g, sizeof *copy);
            judge_unit(copy, s, i);
            unsigned want = copy->side[s].army.units[i].status;
            free(copy);
            if ((want & BG_ST_JUDGED) != (u->status & BG_ST_JUDGED))
                return broken(why, "%s's statuses are %#x, the rules say %#x", u->name,
                              u->status, want);
        }
    }
    return combat_check(g, why);
}

static int combat_check(const struct bg_game *g, struct wr_refusal *why)
{
    if (g->dispute.on && (g->dispute.fact < 0 || g->dispute.fact >= NFACTS + SK_COUNT ||
                          (g->dispute.unit < 0) != (g->dispute.fact == NFACTS + SK_GENERAL)))
        return broken(why, "a dispute of fact %d, unit %d", g->dispute.fact, g->dispute.unit);
    for (int s = 0; s < 2; s++) {
        const struct wb_army *a = &g->side[s].army, *o = &g->side[!s].army;
        bool formed = false;
        for (int i = 0; i < a->count; i++) {
            const struct wb_unit *u = &a->units[i];
            const struct bg_unit_x *x = &g->side[s].x[i];
            formed |= x->broke_turn > 0 && !u->skirmish;
            if (u->facts.charge.charged &&
                (x->charged_by < 0 || x->charged_by >= o->count || x->facing < 0 ||
                 x->facing > 2 || (x->facing == 0) != u->facts.charge.to_front ||
                 u->facts.charge.models < 1))
                return broken(why, "%s's charge names charger %d, facing %d", u->name,
                              x->charged_by, x->facing);
            if ((u->status & WB_ST_OFF_TABLE) && !(u->status & WB_ST_FLEEING))
                return broken(why, "%s left the table without fleeing", u->name);
            if (x->stmt.open && (x->stmt.kind < 0 || x->stmt.kind >= SK_GENERAL ||
                                 x->stmt.by < 0 || x->stmt.by > 1))
                return broken(why, "%s's open statement is %d by %d", u->name, x->stmt.kind,
                              x->stmt.by);
            if (x->declared_turn > g->turn || x->charge_turn > g->turn ||
                x->broke_turn > g->turn)
                return broken(why, "%s has a charge or break after turn %d", u->name, g->turn);
        }
        if (formed != a->formed_unit_broken)
            return broken(why, "%s's confident a) flag is %d, its broke statements say %d",
                          side_name[s], a->formed_unit_broken, formed);
        if (a->elephant_upgraded && a->familiarity == WB_EXPERT)
            return broken(why, "%s is expert with elephants and upgraded", side_name[s]);
    }
    return 0;
}

/* --- the random player ---------------------------------------------------------- */

static json_t *random_roster(const struct bg_game *g, int s, struct wr_prng *rng)
{
    const struct bg_side *sd = &g->side[s];
    int have = sd->army.count, n = 1 + wr_prng_below(rng, 3), budget = g->points;
    for (int i = 0; i < have; i++)
        budget -= sd->x[i].points;
    json_t *units = json_array();
    for (int i = have; i < have + n; i++) {
        char name[WB_NAME_MAX];
        snprintf(name, sizeof name, "%s-u%d", side_name[s], i + 1);
        int kind = wr_prng_below(rng, 6), pts = wr_prng_below(rng, budget / (2 * n) + 1);
        /* One draw per statement: the order of a call's arguments is
         * unspecified, and the same seed must give the same roster with
         * every compiler (tests/golden/battle-autoplay.ndjson). */
        int models = 1 + wr_prng_below(rng, 30), wounds = 1 + wr_prng_below(rng, 3);
        int files = 1 + wr_prng_below(rng, 6), ranks = 1 + wr_prng_below(rng, 6);
        budget -= pts;
        /* Cavalry of 5" to 8": some may counter charge (B29), some not. */
        int move = kind == WB_CAVALRY ? 5 + wr_prng_below(rng, 4) : 4;
        json_array_append_new(units, json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, s:b, s:i, s:i}",
                                               "name", name, "kind", bg_kind_names[kind],
                                               "models", models, "wounds", wounds, "files",
                                               files, "ranks", ranks, "general", i == 0,
                                               "points", pts, "move", move));
    }
    return json_pack("{s:s, s:o, s:b}", "type", "roster", "units", units, "last",
                     have + n >= 6 || wr_prng_below(rng, 3) == 0);
}

/* A random live unit of side s, or -1. */
static int live_unit(const struct bg_game *g, int s, struct wr_prng *rng)
{
    int live[WB_UNITS_MAX], n = 0;
    for (int i = 0; i < g->side[s].army.count; i++)
        if (wb_unit_alive(&g->side[s].army.units[i]) > 0)
            live[n++] = i;
    return n ? live[wr_prng_below(rng, n)] : -1;
}

static json_t *random_turn(const struct bg_game *g, int s, struct wr_prng *rng)
{
    int pick = wr_prng_below(rng, 20);
    const struct wb_army *mine = &g->side[s].army, *theirs = &g->side[!s].army;
    if (pick < 7) {                 /* casualties on an enemy unit */
        int e = live_unit(g, !s, rng);
        if (e >= 0) {
            const struct wb_unit *u = &theirs->units[e];
            int left = u->models * u->wounds - u->wounds_lost;
            return json_pack("{s:s, s:s, s:i}", "type", "casualties", "unit", u->name,
                             "wounds", 1 + wr_prng_below(rng, left < 8 ? left : 8));
        }
    } else if (pick < 10) {         /* a fact about an own unit */
        int u = wr_prng_below(rng, mine->count), f = wr_prng_below(rng, NFACTS);
        json_t *v = f < BG_TERRAIN_FACTS ? json_string(bg_terrain_names[wr_prng_below(rng, 5)])
                                         : json_boolean(wr_prng_below(rng, 2));
        return json_pack("{s:s, s:s, s:s, s:o}", "type", "fact", "unit", mine->units[u].name,
                         "fact", bg_fact_names[f], "value", v);
    } else if (pick < 12) {         /* dispute an enemy fact */
        for (int i = 0; i < theirs->count; i++)
            for (int f = 0; f < NFACTS; f++)
                if (g->side[!s].x[i].stated >> f & 1u)
                    return json_pack("{s:s, s:s, s:s}", "type", "dispute", "unit",
                                     theirs->units[i].name, "fact", bg_fact_names[f]);
    } else if (pick < 15) {         /* a test */
        int u = live_unit(g, s, rng);
        if (u >= 0) {
            bool fleeing = (mine->units[u].status & WB_ST_FLEEING) != 0;
            const char *t = fleeing ? "rally" : wr_prng_below(rng, 2) ? "panic" : "ld";
            return json_pack("{s:s, s:s, s:s, s:i}", "type", "test", "unit",
                             mine->units[u].name, "test", t, "target",
                             5 + wr_prng_below(rng, 5));
        }
    }
    return json_pack("{s:s}", "type", pick == 19 ? "end_turn" : "end_phase");
}

/* Victory points (B41): a side agrees with the other's report three times
 * in four (always once the reports differ), else reports its own; the
 * referee settles on one of the two reports or on points of its own. */
static json_t *random_points(const struct bg_game *g, int s, struct wr_prng *rng)
{
    /* Two statements: the order of an initializer list's evaluations is
     * unspecified (C11 6.7.9), and a seed must give one game everywhere. */
    int vp[2];
    vp[0] = 50 * wr_prng_below(rng, 61);
    vp[1] = 50 * wr_prng_below(rng, 61);
    if (s < 0) {
        int pick = wr_prng_below(rng, 3);
        if (pick < 2) {
            vp[0] = g->vp_report[pick].p1;
            vp[1] = g->vp_report[pick].p2;
        }
        return json_pack("{s:s, s:i, s:i}", "type", "settle_points", "p1", vp[0], "p2", vp[1]);
    }
    const struct bg_vp *o = &g->vp_report[!s];
    if (o->in && (g->vp_report[s].in || wr_prng_below(rng, 4) != 0)) {
        vp[0] = o->p1;
        vp[1] = o->p2;
    }
    return json_pack("{s:s, s:i, s:i}", "type", "victory_points", "p1", vp[0], "p2", vp[1]);
}

/* A combat command that is legal now for side s, the side whose player
 * turn it is, or NULL (B26-B37). */
static json_t *random_combat(const struct bg_game *g, int s, struct wr_prng *rng)
{
    const struct wb_army *mine = &g->side[s].army, *theirs = &g->side[!s].army;
    int pick = wr_prng_below(rng, 12);
    if (pick < 6) {                 /* dispute an open statement of the other side */
        for (int k = 0; k < 2; k++) {
            const struct bg_side *sd = &g->side[k];
            if (sd->general.open && sd->general.by != s)
                return json_pack("{s:s, s:s, s:s}", "type", "dispute", "side", side_name[k],
                                 "fact", "general_killed");
            for (int i = 0; i < sd->army.count; i++)
                if (sd->x[i].stmt.open && sd->x[i].stmt.by != s)
                    return json_pack("{s:s, s:s, s:s}", "type", "dispute", "unit",
                                     sd->army.units[i].name, "fact",
                                     bg_statement_names[sd->x[i].stmt.kind]);
        }
    }
    if (pick == 1) {                /* a fleeing unit leaves the table */
        for (int k = 0; k < 2; k++)
            for (int i = 0; i < g->side[k].army.count; i++) {
                const struct wb_unit *u = &g->side[k].army.units[i];
                if ((u->status & WB_ST_FLEEING) && wb_unit_alive(u) > 0)
                    return json_pack("{s:s, s:s}", "type", "left_table", "unit", u->name);
            }
    }
    if (pick == 2 && wr_prng_below(rng, 8) == 0) {  /* a general dies, now and then */
        int k = wr_prng_below(rng, 2);
        if (g->side[k].army.general_killed_turn == 0)
            return json_pack("{s:s, s:s}", "type", "general_killed", "side", side_name[k]);
    }
    int u = live_unit(g, s, rng), t = live_unit(g, !s, rng);
    if (u < 0)
        return NULL;
    const struct wb_unit *mu = &mine->units[u];
    const struct bg_unit_x *mx = &g->side[s].x[u];
    int facing = wr_prng_below(rng, 3);
    /* Cavalry seeks enemy cavalry's front now and then (a counter charge). */
    for (int i = 0; mu->kind == WB_CAVALRY && facing == 0 && i < theirs->count; i++)
        if (theirs->units[i].kind == WB_CAVALRY && wb_unit_alive(&theirs->units[i]) > 0)
            t = i;
    switch (g->segment) {
    case BG_SEG_CHARGES:
        if (pick < 8 && t >= 0 && !(mu->status & WB_ST_FLEEING) &&
            wb_may_declare_charge(mu).yes && mx->declared_turn != g->turn)
            return json_pack("{s:s, s:s, s:s, s:s}", "type", "charge", "unit", mu->name,
                             "target", theirs->units[t].name, "facing", bg_facing_names[facing]);
        for (int i = 0; i < mine->count; i++) {
            const struct wb_unit *sc = &mine->units[i];
            if (wb_unit_alive(sc) == 0 || (sc->status & WB_ST_FLEEING) || !sc->skirmish)
                continue;
            for (int j = 0; j < mine->count; j++) {
                const struct wb_unit *c = &mine->units[j];
                bool charging = g->side[s].x[j].declared_turn == g->turn;
                if (wb_screen_flee(sc, c, charging).yes)
                    return json_pack("{s:s, s:s, s:s}", "type", "screen_flees", "screen",
                                     sc->name, "unit", c->name);
                if (charging && j != i)     /* a charger screened: say so */
                    return json_pack("{s:s, s:s, s:s, s:b}", "type", "fact", "unit",
                                     c->name, "fact", "near_screen", "value", true);
            }
        }
        break;
    case BG_SEG_SHOOTING:
        if (pick < 8) {
            int v = live_unit(g, s, rng);
            return json_pack("{s:s, s:s, s:s, s:b}", "type", "cover", "screen", mu->name,
                             "unit", mine->units[v].name, "los", wr_prng_below(rng, 2));
        }
        break;
    case BG_SEG_COMBAT: {
        bool broke = mx->broke_turn == g->turn || (mu->status & WB_ST_FLEEING);
        if (pick < 5 && mu->facts.charge.charged && !mu->facts.charge.to_front &&
            !mu->facts.fighting_flank_rear)     /* charged in the flank: it fights there */
            return json_pack("{s:s, s:s, s:s, s:b}", "type", "fact", "unit", mu->name, "fact",
                             "fighting_flank_rear", "value", true);
        if (pick < 5 && wb_reform(mu, true, broke).yes && !(mu->status & WB_ST_REFORMED))
            return json_pack("{s:s, s:s}", "type", "reform", "unit", mu->name);
        if (pick < 7) {
            struct wb_army a = *mine;
            bool beat = wr_prng_below(rng, 2);
            if (wb_elephant_event(&a, beat).yes)
                return json_pack("{s:s, s:s, s:s}", "type", "elephant", "unit", mu->name,
                                 "event", beat ? "beat" : "survived");
        }
        int k = wr_prng_below(rng, 2), b = live_unit(g, k, rng);
        if (pick < 10 && b >= 0 && !(g->side[k].army.units[b].status & WB_ST_FLEEING))
            return json_pack("{s:s, s:s}", "type", "broke", "unit",
                             g->side[k].army.units[b].name);
        break;
    }
    default:
        break;
    }
    return NULL;
}

/* The reaction of the side that is not in its player turn (B39). */
static json_t *combat_reaction(const struct bg_game *g, int o)
{
    for (int i = 0; i < g->side[o].army.count; i++) {
        const struct wb_unit *t = &g->side[o].army.units[i];
        if (wb_unit_alive(t) > 0 && !(t->status & WB_ST_FLEEING) &&
            !g->side[o].x[i].counter_charged && counter_verdict(g, o, i).yes)
            return json_pack("{s:s, s:s}", "type", "counter_charge", "unit", t->name);
    }
    return NULL;
}

json_t *bg_autoplay(const struct bg_game *g, const char *seat, struct wr_prng *rng)
{
    struct wr_decision d[3];
    int n = bg_awaiting(g, d, 3), s = side_of(seat);
    bool awaited = false;
    for (int i = 0; seat && i < n; i++)
        awaited |= strcmp(d[i].seat, seat) == 0;
    if (!awaited)
        return NULL;
    switch (g->phase) {
    case BG_ROSTER:
        return random_roster(g, s, rng);
    case BG_START:
        return json_pack("{s:s}", "type", "start");
    case BG_PLAY:
        if (g->dispute.on)
            return json_pack("{s:s, s:b}", "type", "settle", "stands", wr_prng_below(rng, 2));
        if (s != g->active)
            return combat_reaction(g, s);
        if (wr_prng_below(rng, 3) == 0) {
            json_t *c = random_combat(g, s, rng);
            if (c != NULL)
                return c;
        }
        return random_turn(g, s, rng);
    case BG_VICTORY:
        return random_points(g, s, rng);
    case BG_OVER:
        break;
    }
    return NULL;
}
