/*
 * toy.c - a toy ruleset, "race": two runners take turns to move toward a
 * target, a step of 1 or 2 or a roll of the die, and the first to reach the
 * target wins. It exists to show that a ruleset is its folder and a
 * registry: the conformance suite, a warroomd and its integration test
 * are built for it (tests/conformance/toy/CMakeLists.txt) from the same
 * sources as for the shipped rulesets, with nothing in server/ or
 * client-cli/ knowing it. It uses what a real ruleset uses: seats, an
 * option, dice (with a seed, or the host's recorded rolls), its own
 * reasons, an invariant check, a random player and a presentation (the
 * plain one, present.h).
 *
 * Seats "red" (moves first) and "blue". Option "target": 5..100 (default
 * 21). Commands {"type":"step","n":1|2} and {"type":"roll"}. State
 * {"ruleset":"toy","target":21,"totals":{"red":0,"blue":0},"turn":"red",
 * "moves":0,"rolls":0,"winner":null}. Events "stepped" and "rolled" (seat,
 * by, total), "roll" (k, face: a host records it), "game_over" (winner).
 */
#include "dice.h"
#include "present.h"
#include "prng.h"
#include "ruleset.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOY_TARGET_DEFAULT 21
#define TOY_TARGET_MIN 5
#define TOY_TARGET_MAX 100

struct toy {
    struct wr_game base;        /* first: the ruleset interface's game */
    const struct wr_host *host; /* borrowed: rolls when there is no seed */
    char id[64];
    uint8_t seed[32];
    int has_seed;
    int target;
    int total[2];
    int moves;                  /* commands accepted; the mover is moves % 2 */
    uint32_t rolls;             /* k of the next roll */
    int winner;                 /* -1 running, else the seat index */
};

static const char *const toy_seats[] = { "red", "blue", NULL };

static const struct wr_option toy_options[] = {
    { "target", "the total that wins the race: 5..100 (default 21)" },
    { NULL, NULL },
};

extern const struct wr_ruleset wr_ruleset_toy;

#define TOY_REASON_MAP(X) \
    X(BAD_STEP, "bad_step", "a step is 1 or 2") \
    X(NO_ROLL, "no_roll", "the host has no roll for this game")

enum toy_reason {
#define TOY_REASON_CORE(id, code, text) TOY_R_##id = WR_R_##id,
    WR_CORE_REASONS(TOY_REASON_CORE)
#undef TOY_REASON_CORE
#define TOY_REASON_OWN(id, code, text) TOY_R_##id,
    TOY_REASON_MAP(TOY_REASON_OWN)
#undef TOY_REASON_OWN
    TOY_R_COUNT
};

static const struct wr_reason_info toy_reason_rows[] = { WR_REASON_ROWS(TOY_REASON_MAP) };
static const struct wr_reason_table toy_reasons = { toy_reason_rows, TOY_R_COUNT };

static int toy_refuse(struct wr_refusal *why, enum toy_reason r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int toy_refuse(struct wr_refusal *why, enum toy_reason r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    wr_vrefuse_in(why, &toy_reasons, r, fmt, ap);
    va_end(ap);
    return r;
}

static struct wr_game *toy_create(const json_t *scenario, const json_t *options,
                                  const char *game_id, const uint8_t *seed,
                                  const struct wr_host *host, struct wr_refusal *why)
{
    (void)scenario;     /* a race needs no map */
    int target = TOY_TARGET_DEFAULT;
    if (options != NULL && !json_is_object(options)) {
        toy_refuse(why, TOY_R_BAD_OPTIONS, "options must be an object");
        return NULL;
    }
    json_t *t = json_object_get(options, "target");
    if (t != NULL) {
        if (!json_is_integer(t) || json_integer_value(t) < TOY_TARGET_MIN ||
            json_integer_value(t) > TOY_TARGET_MAX) {
            toy_refuse(why, TOY_R_BAD_OPTIONS, "target is an integer %d..%d", TOY_TARGET_MIN,
                       TOY_TARGET_MAX);
            return NULL;
        }
        target = (int)json_integer_value(t);
    }
    struct toy *g = calloc(1, sizeof *g);
    if (g == NULL) {
        toy_refuse(why, TOY_R_NO_MEMORY, "out of memory");
        return NULL;
    }
    g->base.rs = &wr_ruleset_toy;
    g->host = host;
    snprintf(g->id, sizeof g->id, "%s", game_id ? game_id : "");
    if (seed != NULL) {
        memcpy(g->seed, seed, 32);
        g->has_seed = 1;
    }
    g->target = target;
    g->winner = -1;
    return &g->base;
}

static void toy_destroy(struct wr_game *g)
{
    free(g);
}

static const char *const *toy_game_seats(const struct wr_game *g)
{
    (void)g;
    return toy_seats;
}

static int mover(const struct toy *t)
{
    return t->winner >= 0 ? -1 : t->moves % 2;
}

/* The face of the game's next roll: from the seed, else the host's record;
 * 0 when there is none. */
static int next_face(const struct toy *t)
{
    if (t->has_seed)
        return wr_dice_roll(t->seed, t->id, t->rolls);
    if (t->host && t->host->roll) {
        int f = t->host->roll(t->host->ctx, t->rolls);
        return f >= 1 && f <= 6 ? f : 0;
    }
    return 0;
}

static int toy_apply(struct wr_game *g, const char *seat, const json_t *cmd, json_t **events,
                     struct wr_refusal *why)
{
    struct toy *t = (struct toy *)g;
    *events = NULL;
    /* 1) running, 2) this seat's turn, 3) a well-formed command, 4) a step
     *    of 1 or 2, or a roll the game can make */
    if (t->winner >= 0)
        return toy_refuse(why, TOY_R_GAME_OVER, "the race is over");
    int me = mover(t);
    if (seat == NULL || strcmp(seat, toy_seats[me]) != 0)
        return toy_refuse(why, TOY_R_NOT_YOUR_TURN, "it is %s's turn", toy_seats[me]);
    const char *type = json_string_value(json_object_get(cmd, "type"));
    json_t *n = json_object_get(cmd, "n");
    int step = type && strcmp(type, "step") == 0, roll = type && strcmp(type, "roll") == 0;
    if (!json_is_object(cmd) || !(step || roll) || json_object_size(cmd) != (size_t)(step ? 2 : 1) ||
        (step && !json_is_integer(n)))
        return toy_refuse(why, TOY_R_BAD_COMMAND,
                          "a command is {\"type\":\"step\",\"n\":1|2} or {\"type\":\"roll\"}");
    int by;
    if (step) {
        json_int_t v = json_integer_value(n);
        if (v != 1 && v != 2)
            return toy_refuse(why, TOY_R_BAD_STEP, "a step is 1 or 2, not %lld", (long long)v);
        by = (int)v;
    } else {
        by = next_face(t);
        if (by == 0)
            return toy_refuse(why, TOY_R_NO_ROLL, "roll %u of this game is not known",
                              (unsigned)t->rolls);
    }
    json_t *ev = json_array();
    if (ev == NULL)
        return toy_refuse(why, TOY_R_NO_MEMORY, "out of memory");
    if (roll)
        json_array_append_new(ev, json_pack("{s:s, s:s, s:I, s:i}", "type", "roll", "seat", seat,
                                            "k", (json_int_t)t->rolls, "face", by));
    t->rolls += (uint32_t)roll;
    t->total[me] += by;
    t->moves++;
    json_array_append_new(ev, json_pack("{s:s, s:s, s:i, s:i}", "type", step ? "stepped" : "rolled",
                                        "seat", seat, "by", by, "total", t->total[me]));
    if (t->total[me] >= t->target) {
        t->winner = me;
        json_array_append_new(ev, json_pack("{s:s, s:s}", "type", "game_over", "winner", seat));
    }
    *events = ev;
    return TOY_R_OK;
}

static const char *toy_result(const struct wr_game *g)
{
    const struct toy *t = (const struct toy *)g;
    return t->winner >= 0 ? toy_seats[t->winner] : NULL;
}

static json_t *toy_project(const struct wr_game *g, const char *seat)
{
    const struct toy *t = (const struct toy *)g;
    (void)seat;     /* a race hides nothing */
    int me = mover(t);
    return json_pack("{s:s, s:i, s:{s:i, s:i}, s:s?, s:i, s:I, s:s?}", "ruleset", "toy", "target",
                     t->target, "totals", "red", t->total[0], "blue", t->total[1], "turn",
                     me >= 0 ? toy_seats[me] : NULL, "moves", t->moves, "rolls",
                     (json_int_t)t->rolls, "winner", toy_result(g));
}

static json_t *toy_project_events(const struct wr_game *g, const char *seat,
                                  const json_t *events)
{
    (void)g;
    (void)seat;
    return json_incref((json_t *)events);
}

static int toy_awaiting(const struct wr_game *g, struct wr_decision *out, int max)
{
    int me = mover((const struct toy *)g);
    if (me < 0 || max < 1)
        return 0;
    out[0] = (struct wr_decision){ toy_seats[me], "move" };
    return 1;
}

/* Each move adds 1..6, so the totals are at most 6 per move made and at
 * least 1; the race is won exactly when the last mover reached the target,
 * and nobody else did. */
static int toy_check(const struct wr_game *g, struct wr_refusal *why)
{
    const struct toy *t = (const struct toy *)g;
    int made[2] = { (t->moves + 1) / 2, t->moves / 2 };
    for (int s = 0; s < 2; s++)
        if (t->total[s] < made[s] || t->total[s] > 6 * made[s])
            return toy_refuse(why, TOY_R_BAD_COMMAND, "%s has %d after %d moves", toy_seats[s],
                              t->total[s], made[s]), -1;
    int last = t->moves > 0 ? (t->moves - 1) % 2 : -1;
    int want = last >= 0 && t->total[last] >= t->target ? last : -1;
    if (t->winner != want || (last >= 0 && t->total[1 - last] >= t->target))
        return toy_refuse(why, TOY_R_BAD_COMMAND, "winner %d, the totals say %d", t->winner,
                          want), -1;
    if (t->rolls > (uint32_t)t->moves)
        return toy_refuse(why, TOY_R_BAD_COMMAND, "%u rolls in %d moves", (unsigned)t->rolls,
                          t->moves), -1;
    return 0;
}

/* The random player: a roll half the time, else a step of 1 or 2. */
static json_t *toy_autoplay(const struct wr_game *g, const char *seat, struct wr_prng *rng)
{
    const struct toy *t = (const struct toy *)g;
    int me = mover(t);
    if (me < 0 || seat == NULL || strcmp(seat, toy_seats[me]) != 0)
        return NULL;
    if (wr_prng_below(rng, 2) == 0)
        return json_pack("{s:s}", "type", "roll");
    return json_pack("{s:s, s:i}", "type", "step", "n", 1 + wr_prng_below(rng, 2));
}

/* Saved games (ruleset.h, version 5): {"format":1,"totals":[red,blue],
 * "moves":n,"rolls":k}; the target is the options', the winner follows
 * from the totals, the dice from the seed (or the host) and k. */
#define TOY_SAVE_FORMAT 1

static json_t *toy_save(const struct wr_game *g)
{
    const struct toy *t = (const struct toy *)g;
    return json_pack("{s:i, s:[i, i], s:i, s:I}", "format", TOY_SAVE_FORMAT, "totals",
                     t->total[0], t->total[1], "moves", t->moves, "rolls", (json_int_t)t->rolls);
}

/* An integer member in lo..hi into *out, else -1. */
static int toy_int(const json_t *o, const char *key, json_int_t lo, json_int_t hi,
                   json_int_t *out)
{
    const json_t *v = json_is_array(o) ? json_array_get(o, (size_t)key[0] - '0')
                                       : json_object_get(o, key);
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return -1;
    *out = json_integer_value(v);
    return 0;
}

/* 1) format 1, exactly its four members, each an integer in range;
 * 2) the game they make passes toy_check() (the winner set from them). */
static struct wr_game *toy_restore(const json_t *saved, const json_t *scenario,
                                   const json_t *options, const char *game_id,
                                   const uint8_t *seed, const struct wr_host *host,
                                   struct wr_refusal *why)
{
    json_int_t format, red, blue, moves, rolls;
    const json_t *totals = json_object_get(saved, "totals");
    if (!json_is_object(saved) || json_object_size(saved) != 4 ||
        toy_int(saved, "format", TOY_SAVE_FORMAT, TOY_SAVE_FORMAT, &format) != 0) {
        toy_refuse(why, TOY_R_BAD_COMMAND, "a saved race is an object of format %d",
                   TOY_SAVE_FORMAT);
        return NULL;
    }
    if (!json_is_array(totals) || json_array_size(totals) != 2 ||
        toy_int(totals, "0", 0, 6 * 200, &red) != 0 ||
        toy_int(totals, "1", 0, 6 * 200, &blue) != 0 ||
        toy_int(saved, "moves", 0, 400, &moves) != 0 ||
        toy_int(saved, "rolls", 0, 400, &rolls) != 0) {
        toy_refuse(why, TOY_R_BAD_COMMAND, "totals are two counts 0..1200, moves and rolls "
                   "counts 0..400");
        return NULL;
    }
    struct wr_game *g = toy_create(scenario, options, game_id, seed, host, why);
    if (g == NULL)
        return NULL;
    struct toy *t = (struct toy *)g;
    t->total[0] = (int)red;
    t->total[1] = (int)blue;
    t->moves = (int)moves;
    t->rolls = (uint32_t)rolls;
    int last = t->moves > 0 ? (t->moves - 1) % 2 : -1;
    t->winner = last >= 0 && t->total[last] >= t->target ? last : -1;
    if (toy_check(g, why) != 0) {
        free(g);
        return NULL;
    }
    return g;
}

const struct wr_ruleset wr_ruleset_toy = {
    .version = WR_RULESET_VERSION,
    .name = "toy",
    .summary = "a race to a target by steps and dice: the test of a ruleset built outside "
               "common/",
    .default_seats = toy_seats,
    .hidden_info = 0,
    .options = toy_options,
    .default_scenario = NULL,
    .needs_scenario = 0,
    .reasons = &toy_reasons,
    .create = toy_create,
    .destroy = toy_destroy,
    .seats = toy_game_seats,
    .apply = toy_apply,
    .project = toy_project,
    .project_events = toy_project_events,
    .awaiting = toy_awaiting,
    .result = toy_result,
    .check = toy_check,
    .autoplay = toy_autoplay,
    .present = &wr_present_plain,
    .save = toy_save,
    .restore = toy_restore,
};
