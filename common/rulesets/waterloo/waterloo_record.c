/*
 * waterloo_record.c - reading and replaying game records (see waterloo_record.h).
 */
#include "waterloo_record.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "waterloo_command.h"
#include "dice.h"
#include "waterloo_game.h"

#define MAX_ROLLS 100000

/* The recorded faces, by k, for replaying without the seed. */
struct rolls {
    uint8_t *face;          /* face[k], 0 = not recorded */
    uint32_t n;
};

static int recorded_roll(void *ctx, uint32_t k)
{
    const struct rolls *r = ctx;
    return k < r->n ? r->face[k] : 0;
}

/* Split off the next line; returns its length or -1 at the end. */
static long next_line(const char *text, size_t len, size_t *pos, const char **line)
{
    while (*pos < len && (text[*pos] == '\n' || text[*pos] == '\r'))
        (*pos)++;
    if (*pos >= len)
        return -1;
    *line = text + *pos;
    size_t start = *pos;
    while (*pos < len && text[*pos] != '\n')
        (*pos)++;
    size_t end = *pos;
    if (end > start && text[end - 1] == '\r')
        end--;
    return (long)(end - start);
}

static int fail(struct wr_refusal *why, int lineno, const char *what)
{
    wl_refuse(why, WL_R_BAD_COMMAND, "line %d: %s", lineno, what);
    return -1;
}

/* Check a line's "rolls" field: a list of [k, face] pairs. Stores faces in r
 * (growing it) and counts them in *count. */
static int read_rolls(const json_t *arr, struct rolls *r, int lineno, int *count,
                      struct wr_refusal *why)
{
    *count = 0;
    if (arr == NULL)
        return 0;
    if (!json_is_array(arr))
        return fail(why, lineno, "\"rolls\" must be a list of [k, face] pairs");
    size_t i;
    json_t *p;
    json_array_foreach(arr, i, p) {
        json_t *jk = json_array_get(p, 0), *jf = json_array_get(p, 1);
        if (!json_is_array(p) || json_array_size(p) != 2 || !json_is_integer(jk) ||
            !json_is_integer(jf))
            return fail(why, lineno, "each roll is [k, face]");
        json_int_t k = json_integer_value(jk), f = json_integer_value(jf);
        if (k < 0 || k >= MAX_ROLLS || f < 1 || f > 6)
            return fail(why, lineno, "a roll has k out of range or a face outside 1..6");
        if ((uint32_t)k >= r->n) {
            uint32_t n = (uint32_t)k + 64;
            uint8_t *nf = realloc(r->face, n);
            if (nf == NULL)
                return fail(why, lineno, "out of memory");
            memset(nf + r->n, 0, n - r->n);
            r->face = nf;
            r->n = n;
        }
        r->face[k] = (uint8_t)f;
        (*count)++;
    }
    return 0;
}

/* The roll events of an accepted command must be exactly the recorded rolls. */
static int check_rolls(const json_t *events, const json_t *recorded, int lineno,
                       struct wr_refusal *why)
{
    size_t i, seen = 0;
    json_t *e;
    json_array_foreach(events, i, e) {
        const char *type = json_string_value(json_object_get(e, "type"));
        if (type == NULL || strcmp(type, "roll") != 0)
            continue;
        json_int_t k = json_integer_value(json_object_get(e, "k"));
        json_int_t face = json_integer_value(json_object_get(e, "face"));
        json_t *rec = json_array_get(recorded, seen++);
        if (rec == NULL) {
            wl_refuse(why, WL_R_BAD_COMMAND, "line %d: roll %lld (face %lld) is not in the record",
                      lineno, (long long)k, (long long)face);
            return -1;
        }
        json_int_t rk = json_integer_value(json_array_get(rec, 0));
        json_int_t rf = json_integer_value(json_array_get(rec, 1));
        if (rk != k || rf != face) {
            wl_refuse(why, WL_R_BAD_COMMAND,
                      "line %d: roll %lld was recorded as %lld, the seed gives %lld", lineno,
                      (long long)rk, (long long)rf, (long long)face);
            return -1;
        }
    }
    if (seen != json_array_size(recorded)) {
        wl_refuse(why, WL_R_BAD_COMMAND, "line %d: the record has %zu rolls, the game made %zu",
                  lineno, json_array_size(recorded), seen);
        return -1;
    }
    return 0;
}

int wl_replay(const char *text, size_t len, const struct wl_replay_opts *opts,
              json_t **final_state, struct wr_refusal *why)
{
    struct wl_scenario *sc = NULL;
    struct wl_game *g = NULL;
    struct rolls rolls = { NULL, 0 };
    json_t *header = NULL, *line = NULL;
    int rc = -1, lineno = 1;
    size_t pos = 0;
    const char *l;
    long n;
    json_error_t jerr;

    *final_state = NULL;
    /* 1) The header. */
    if ((n = next_line(text, len, &pos, &l)) < 0) {
        fail(why, 1, "the record is empty");
        goto out;
    }
    header = json_loadb(l, (size_t)n, JSON_REJECT_DUPLICATES, &jerr);
    if (header == NULL || !json_is_object(header)) {
        fail(why, 1, header ? "the header is not an object" : jerr.text);
        goto out;
    }
    const char *magic = json_string_value(json_object_get(header, "warroom"));
    json_t *ver = json_object_get(header, "version");
    const char *game_id = json_string_value(json_object_get(header, "game"));
    const char *ruleset = json_string_value(json_object_get(header, "ruleset"));
    json_t *scen = json_object_get(header, "scenario");
    json_t *seed_j = json_object_get(header, "seed");
    if (magic == NULL || strcmp(magic, "game-record") != 0 || !json_is_integer(ver) ||
        json_integer_value(ver) != 1) {
        fail(why, 1, "not a version 1 warroom game record");
        goto out;
    }
    if (game_id == NULL || strlen(game_id) >= WL_GAME_ID_MAX) {
        fail(why, 1, "\"game\" must be a game id (a string of at most 63 bytes)");
        goto out;
    }
    if (ruleset == NULL || strcmp(ruleset, "waterloo") != 0) {
        fail(why, 1, "this replay knows the ruleset \"waterloo\" only");
        goto out;
    }
    uint8_t seed[32];
    int has_seed = 0;
    if (seed_j != NULL && !json_is_null(seed_j)) {
        if (!json_is_string(seed_j) || wr_dice_parse_seed(json_string_value(seed_j), seed) != 0) {
            fail(why, 1, "\"seed\" must be 64 hex digits");
            goto out;
        }
        has_seed = 1;
    }
    /* 2) The scenario: inline, or by name through the resolver. */
    sc = calloc(1, sizeof *sc);
    g = malloc(sizeof *g);
    if (sc == NULL || g == NULL) {
        fail(why, 1, "out of memory");
        goto out;
    }
    if (json_is_object(scen)) {
        if (wl_scenario_load(sc, scen, opts->resolve, opts->resolve_ctx, why) != 0)
            goto out;
    } else if (json_is_string(scen) && opts->resolve != NULL) {
        json_t *sj = opts->resolve(json_string_value(scen), opts->resolve_ctx);
        if (sj == NULL) {
            wl_refuse(why, WL_R_BAD_COMMAND, "line 1: unknown scenario '%.64s'",
                      json_string_value(scen));
            goto out;
        }
        int lrc = wl_scenario_load(sc, sj, opts->resolve, opts->resolve_ctx, why);
        json_decref(sj);
        if (lrc != 0)
            goto out;
    } else {
        fail(why, 1, "\"scenario\" must be a scenario name or an inline scenario");
        goto out;
    }
    wl_game_init(g, sc, game_id, has_seed ? seed : NULL);
    if (!has_seed) {
        g->roll_source = recorded_roll;
        g->roll_ctx = &rolls;
    }

    /* 3) The commands. */
    int cmdno = 0;
    while ((n = next_line(text, len, &pos, &l)) >= 0) {
        lineno++;
        cmdno++;
        json_decref(line);
        line = json_loadb(l, (size_t)n, JSON_REJECT_DUPLICATES, &jerr);
        if (line == NULL || !json_is_object(line)) {
            fail(why, lineno, line ? "a command line is a JSON object" : jerr.text);
            goto out;
        }
        const char *seat = json_string_value(json_object_get(line, "seat"));
        int side = seat ? wl_side_from_name(seat) : -1;
        json_t *cmd = json_object_get(line, "cmd");
        json_t *rec_rolls = json_object_get(line, "rolls");
        int nrolls;
        if (side < 0) {
            fail(why, lineno, "\"seat\" must be \"french\" or \"allied\"");
            goto out;
        }
        if (read_rolls(rec_rolls, &rolls, lineno, &nrolls, why) != 0)
            goto out;
        struct wr_refusal verdict = { WL_R_OK, "ok", "" };
        json_t *events = NULL;
        enum wl_reason r = wl_game_apply_json(g, side, cmd, &events, &verdict);
        if (opts->on_line)
            opts->on_line(opts->line_ctx, cmdno, r, &verdict, events);
        if (r != WL_R_OK) {
            if (!opts->keep_going) {
                wl_refuse(why, r, "line %d: %s", lineno, verdict.message);
                goto out;
            }
            continue;
        }
        json_t *none = rec_rolls ? NULL : json_array();
        int bad = has_seed && check_rolls(events, rec_rolls ? rec_rolls : none, lineno, why) != 0;
        json_decref(none);
        json_decref(events);
        if (bad)
            goto out;
    }
    *final_state = wl_game_state_json(g);
    rc = 0;
out:
    json_decref(line);
    json_decref(header);
    free(rolls.face);
    free(g);
    free(sc);
    return rc;
}
