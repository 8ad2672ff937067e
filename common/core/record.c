/*
 * record.c - game records of any ruleset: the header writer, the parser and
 * the replayer (see record.h).
 */
#include "record.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dice.h"

static const struct {
    int rc;
    const char *what;
} errors[] = {
#define WR_RECORD_ERROR_ROW(name, value, what) { value, what },
    WR_RECORD_ERRORS(WR_RECORD_ERROR_ROW)
#undef WR_RECORD_ERROR_ROW
};

const char *wr_record_strerror(int rc)
{
    if (rc == 0)
        return "ok";
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].rc == rc)
            return errors[i].what;
    return "unknown error";
}

/* --- writing ---------------------------------------------------------------- */

char *wr_record_header(const char *game_id, const char *ruleset, const char *scenario_name,
                       const json_t *scenario, const json_t *options, const uint8_t *seed)
{
    /* scenario and options are only read: h holds a reference to each
     * while it is written, and drops it with itself. */
    json_t *h = json_pack("{s:s, s:i, s:s, s:s}", "warroom", "game-record", "version", 1, "game",
                          game_id, "ruleset", ruleset);
    json_t *sc = scenario ? json_incref((json_t *)scenario)
                          : json_string(scenario_name ? scenario_name : "");
    json_t *op = options ? json_incref((json_t *)options) : json_object();
    char hex[WR_DICE_HEX_LEN + 1];
    if (seed != NULL)
        wr_dice_seed_hex(seed, hex);
    if (h == NULL) {
        json_decref(sc);
        json_decref(op);
        return NULL;
    }
    /* (json_object_set_new() takes its value even when it fails.) */
    int bad = json_object_set_new(h, "scenario", sc);
    bad |= json_object_set_new(h, "options", op);
    if (seed != NULL)
        bad |= json_object_set_new(h, "seed", json_string(hex));
    char *s = bad ? NULL : json_dumps(h, JSON_COMPACT);
    json_decref(h);
    return s;
}

/* --- reading ----------------------------------------------------------------- */

/* A roll a line recorded. */
struct roll {
    uint32_t k;
    int face;
};

/* The game's host during and after a replay (owned by the result): the
 * current line's rolls, and the resolver while the replay runs. */
struct wr_record_host {
    struct wr_host host;
    wr_record_resolver resolve;
    void *resolve_ctx;
    struct roll *rolls;
    size_t nrolls, cap;
};

static int host_roll(void *ctx, uint32_t k)
{
    const struct wr_record_host *x = ctx;
    for (size_t i = 0; i < x->nrolls; i++)
        if (x->rolls[i].k == k)
            return x->rolls[i].face;
    return 0;
}

static json_t *host_scenario(void *ctx, const char *name)
{
    const struct wr_record_host *x = ctx;
    return x->resolve ? x->resolve(name, x->resolve_ctx) : NULL;
}

/* Where the replay is in the text. */
struct reader {
    const char *text;
    size_t len, pos;
    int lineno;             /* of the line last returned */
};

/* The next line that is not blank, its "\n" (and a "\r" before it) cut:
 * 1 with *line and *n set, 0 at the end of the text. */
static int next_line(struct reader *r, const char **line, size_t *n)
{
    while (r->pos < r->len) {
        const char *s = r->text + r->pos;
        const char *nl = memchr(s, '\n', r->len - r->pos);
        size_t l = nl ? (size_t)(nl - s) : r->len - r->pos;
        r->pos += l + (nl != NULL);
        r->lineno++;
        if (l > 0 && s[l - 1] == '\r')
            l--;
        if (l > 0) {
            *line = s;
            *n = l;
            return 1;
        }
    }
    return 0;
}

static void refuse_in(struct wr_refusal *why, const struct wr_reason_table *t, int r,
                      const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void refuse_in(struct wr_refusal *why, const struct wr_reason_table *t, int r,
                      const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    wr_vrefuse_in(why, t, r, fmt, ap);
    va_end(ap);
}

/* Fill why with "line N: " and the sentence; returns rc. */
static int fail(struct wr_refusal *why, int rc, enum wr_reason r, int lineno, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int fail(struct wr_refusal *why, int rc, enum wr_reason r, int lineno, const char *fmt, ...)
{
    char msg[WR_REFUSAL_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    wr_refuse(why, r, "line %d: %s", lineno, msg);
    return rc;
}

/* Parse one line of at most max bytes as a JSON object: a new reference,
 * or NULL with why filled. */
static json_t *parse_line(const char *line, size_t n, size_t max, int lineno,
                          const char *what, struct wr_refusal *why)
{
    if (n > max) {
        fail(why, WR_RECORD_EBAD, WR_R_BAD_COMMAND, lineno,
             "%s of %zu bytes is longer than the %zu bytes it may have", what, n, max);
        return NULL;
    }
    json_error_t jerr;
    json_t *j = json_loadb(line, n, JSON_REJECT_DUPLICATES, &jerr);
    if (j == NULL) {
        fail(why, WR_RECORD_EBAD, WR_R_BAD_COMMAND, lineno, "%s", jerr.text);
        return NULL;
    }
    if (!json_is_object(j)) {
        json_decref(j);
        fail(why, WR_RECORD_EBAD, WR_R_BAD_COMMAND, lineno, "%s is not a JSON object", what);
        return NULL;
    }
    return j;
}

/* The header's fields, checked, and the game they make: 0 with res->game
 * and res->rs set, or an error with why filled. */
static int start_game(const json_t *h, const struct wr_record_opts *o, struct wr_record_host *x,
                      int lineno, struct wr_record_result *res, struct wr_refusal *why)
{
    const char *magic = json_string_value(json_object_get(h, "warroom"));
    json_t *ver = json_object_get(h, "version");
    json_t *jid = json_object_get(h, "game");
    json_t *jrs = json_object_get(h, "ruleset");
    json_t *scen = json_object_get(h, "scenario");
    json_t *opts = json_object_get(h, "options");
    json_t *jseed = json_object_get(h, "seed");

    /* 1) What it is: a version 1 game record. */
    if (magic == NULL || strcmp(magic, "game-record") != 0 || !json_is_integer(ver) ||
        json_integer_value(ver) != 1)
        return fail(why, WR_RECORD_EBAD, WR_R_BAD_COMMAND, lineno,
                    "not a version 1 warroom game record (\"warroom\": \"game-record\", "
                    "\"version\": 1)");
    /* 2) The game's id: it keys the dice. */
    size_t idlen = json_string_length(jid);
    if (!json_is_string(jid) || idlen == 0 || idlen > WR_DICE_ID_MAX)
        return fail(why, WR_RECORD_EBAD, WR_R_BAD_COMMAND, lineno,
                    "\"game\" must be a game id (a string of 1 to %d bytes)", WR_DICE_ID_MAX);
    memcpy(res->game_id, json_string_value(jid), idlen + 1);
    /* 3) The ruleset, one this program holds. */
    const char *rsname = json_string_value(jrs);
    if (rsname == NULL)
        return fail(why, WR_RECORD_EBAD, WR_R_BAD_COMMAND, lineno,
                    "\"ruleset\" must be a ruleset's name");
    res->rs = o->find ? o->find(rsname) : NULL;
    if (res->rs == NULL)
        return fail(why, WR_RECORD_EBAD, WR_R_BAD_COMMAND, lineno,
                    "this program has no ruleset '%.64s'", rsname);
    /* 4) The seed, when the game is over. */
    uint8_t seed[WR_DICE_SEED_LEN];
    if (jseed != NULL && !json_is_null(jseed)) {
        if (wr_dice_parse_seed(json_string_value(jseed), seed) != 0)
            return fail(why, WR_RECORD_EBAD, WR_R_BAD_COMMAND, lineno,
                        "\"seed\" must be 64 hex digits");
        res->has_seed = 1;
    }
    /* 5) The options: an object, {} when absent or null. */
    if (json_is_null(opts))
        opts = NULL;
    if (opts != NULL && !json_is_object(opts))
        return fail(why, WR_RECORD_EBAD, WR_R_BAD_OPTIONS, lineno,
                    "\"options\" must be an object");
    /* 6) The scenario: inline, by name, or "" for none. */
    json_t *sj = NULL;
    if (json_is_object(scen)) {
        sj = json_incref(scen);
    } else if (json_is_string(scen) && json_string_length(scen) > 0) {
        const char *name = json_string_value(scen);
        sj = o->resolve ? o->resolve(name, o->resolve_ctx) : NULL;
        if (sj == NULL)
            return fail(why, WR_RECORD_EBAD, WR_R_BAD_SCENARIO, lineno,
                        "unknown scenario '%.64s'", name);
    } else if (!json_is_string(scen)) {
        return fail(why, WR_RECORD_EBAD, WR_R_BAD_SCENARIO, lineno,
                    "\"scenario\" must be a scenario's name (\"\" for none) or an inline "
                    "scenario");
    }
    /* A record that names no rules version was made under version 1. */
    json_t *gopts = wr_game_options(res->rs, opts, 0);
    if (gopts == NULL) {
        json_decref(sj);
        return fail(why, WR_RECORD_ENOMEM, WR_R_NO_MEMORY, lineno, "out of memory");
    }
    struct wr_refusal cwhy = { WR_R_BAD_SCENARIO, "bad_scenario", "" };
    res->game = res->rs->create(sj, gopts, res->game_id, res->has_seed ? seed : NULL, &x->host,
                                &cwhy);
    json_decref(sj);
    json_decref(gopts);
    if (res->game == NULL) {
        refuse_in(why, res->rs->reasons, cwhy.reason, "line %d: %s", lineno, cwhy.message);
        return cwhy.reason == WR_R_NO_MEMORY ? WR_RECORD_ENOMEM : WR_RECORD_EBAD;
    }
    return 0;
}

/* A line's "rolls" (may be NULL): a list of [k, face] pairs, into x. */
static int read_rolls(const json_t *arr, struct wr_record_host *x, int lineno,
                      struct wr_refusal *why)
{
    x->nrolls = 0;
    if (arr == NULL)
        return 0;
    if (!json_is_array(arr))
        return fail(why, WR_RECORD_EBAD, WR_R_BAD_COMMAND, lineno,
                    "\"rolls\" must be a list of [k, face] pairs");
    if (json_array_size(arr) > x->cap) {
        struct roll *r = realloc(x->rolls, json_array_size(arr) * sizeof *r);
        if (r == NULL)
            return fail(why, WR_RECORD_ENOMEM, WR_R_NO_MEMORY, lineno, "out of memory");
        x->rolls = r;
        x->cap = json_array_size(arr);
    }
    size_t i;
    json_t *p;
    json_array_foreach(arr, i, p) {
        json_t *jk = json_array_get(p, 0), *jf = json_array_get(p, 1);
        if (!json_is_array(p) || json_array_size(p) != 2 || !json_is_integer(jk) ||
            !json_is_integer(jf))
            return fail(why, WR_RECORD_EBAD, WR_R_BAD_COMMAND, lineno,
                        "each roll is [k, face]");
        json_int_t k = json_integer_value(jk), f = json_integer_value(jf);
        if (k < 0 || k > (json_int_t)UINT32_MAX || f < 1 || f > 6)
            return fail(why, WR_RECORD_EBAD, WR_R_BAD_COMMAND, lineno,
                        "a roll has k out of range or a face outside 1..6");
        x->rolls[x->nrolls++] = (struct roll){ (uint32_t)k, (int)f };
    }
    return 0;
}

/* The roll events of an accepted command must be the line's recorded rolls,
 * in order; with the seed each is a die verified. */
static int check_rolls(const json_t *events, const struct wr_record_host *x, int lineno,
                       struct wr_record_result *res, struct wr_refusal *why)
{
    size_t i, seen = 0;
    json_t *e;
    json_array_foreach(events, i, e) {
        const char *type = json_string_value(json_object_get(e, "type"));
        if (type == NULL || strcmp(type, "roll") != 0)
            continue;
        json_t *jk = json_object_get(e, "k"), *jf = json_object_get(e, "face");
        if (!json_is_integer(jk) || !json_is_integer(jf))
            return fail(why, WR_RECORD_EDICE, WR_R_BAD_COMMAND, lineno,
                        "the game made a roll without \"k\" and \"face\"");
        long long k = json_integer_value(jk), face = json_integer_value(jf);
        if (seen == x->nrolls)
            return fail(why, WR_RECORD_EDICE, WR_R_BAD_COMMAND, lineno,
                        "roll %lld (face %lld) is not in the record", k, face);
        const struct roll *r = &x->rolls[seen++];
        if ((long long)r->k != k)
            return fail(why, WR_RECORD_EDICE, WR_R_BAD_COMMAND, lineno,
                        "the record's roll %lu is roll %lld of the game", (unsigned long)r->k,
                        k);
        if (r->face != face)
            return fail(why, WR_RECORD_EDICE, WR_R_BAD_COMMAND, lineno,
                        "roll %lld was recorded as %d, %s %lld", k, r->face,
                        res->has_seed ? "the seed gives" : "the game made", face);
    }
    if (seen != x->nrolls)
        return fail(why, WR_RECORD_EDICE, WR_R_BAD_COMMAND, lineno,
                    "the record has %zu rolls, the game made %zu", x->nrolls, seen);
    if (res->has_seed)
        res->dice += (int)seen;
    return 0;
}

/* "french, allied": the game's seats, for a message. */
static void seat_list(const struct wr_game *g, char *buf, size_t len)
{
    const char *const *s = g->rs->seats(g);
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; s[i] && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", s[i]);
}

/* One command line: 0, or an error with why filled. */
static int replay_line(const char *l, size_t n, int lineno, const struct wr_record_opts *o,
                       struct wr_record_host *x, struct wr_record_result *res,
                       struct wr_refusal *why)
{
    json_t *line = parse_line(l, n, WR_RECORD_LINE_MAX, lineno, "a command line", why);
    if (line == NULL)
        return WR_RECORD_EBAD;
    const char *seat = json_string_value(json_object_get(line, "seat"));
    json_t *cmd = json_object_get(line, "cmd");
    int rc = 0;
    if (wr_game_seat_index(res->game, seat) < 0) {
        char seats[128];
        seat_list(res->game, seats, sizeof seats);
        rc = fail(why, WR_RECORD_EBAD, WR_R_BAD_COMMAND, lineno,
                  "\"seat\" must be one of the game's seats (%s)", seats);
    } else if (!json_is_object(cmd)) {
        rc = fail(why, WR_RECORD_EBAD, WR_R_BAD_COMMAND, lineno, "\"cmd\" must be an object");
    } else if ((rc = read_rolls(json_object_get(line, "rolls"), x, lineno, why)) == 0) {
        struct wr_refusal verdict = { WR_R_OK, "ok", "" };
        json_t *events = NULL;
        int r = wr_game_apply(res->game, seat, cmd, &events, &verdict);
        if (o->on_line)
            o->on_line(o->line_ctx, lineno, seat, cmd, r, r ? &verdict : NULL,
                       r ? NULL : events);
        if (r != 0) {
            res->refused++;
            if (!o->keep_going) {
                refuse_in(why, res->rs->reasons, r, "line %d: %s", lineno, verdict.message);
                rc = WR_RECORD_EREFUSED;
            }
        } else {
            res->accepted++;
            rc = check_rolls(events, x, lineno, res, why);
        }
        json_decref(events);
    }
    json_decref(line);
    return rc;
}

int wr_record_replay(const char *text, size_t len, const struct wr_record_opts *o,
                     struct wr_record_result *res, struct wr_refusal *why)
{
    struct reader rd = { text, len, 0, 0 };
    const char *l;
    size_t n;
    int rc;

    memset(res, 0, sizeof *res);
    struct wr_record_host *x = calloc(1, sizeof *x);
    if (x == NULL)
        return fail(why, WR_RECORD_ENOMEM, WR_R_NO_MEMORY, 1, "out of memory");
    res->host = x;
    x->host = (struct wr_host){ host_roll, host_scenario, x };
    x->resolve = o->resolve;
    x->resolve_ctx = o->resolve_ctx;

    /* 1) The header. */
    if (!next_line(&rd, &l, &n)) {
        rc = fail(why, WR_RECORD_EBAD, WR_R_BAD_COMMAND, 1, "the record is empty");
        goto out;
    }
    json_t *h = parse_line(l, n, WR_RECORD_HEADER_MAX, rd.lineno, "the header", why);
    if (h == NULL) {
        rc = WR_RECORD_EBAD;
        goto out;
    }
    rc = start_game(h, o, x, rd.lineno, res, why);
    json_decref(h);
    /* 2) The commands, in order. */
    while (rc == 0 && next_line(&rd, &l, &n))
        rc = replay_line(l, n, rd.lineno, o, x, res, why);
out:
    res->lines = rd.lineno;
    /* Done with the caller's resolver and this record's rolls. */
    x->resolve = NULL;
    x->resolve_ctx = NULL;
    x->nrolls = 0;
    if (rc != 0 && res->game != NULL) {
        res->game->rs->destroy(res->game);
        res->game = NULL;
    }
    if (res->game != NULL)
        res->result = res->rs->result(res->game);
    return rc;
}

void wr_record_result_release(struct wr_record_result *res)
{
    if (res->game != NULL)
        res->game->rs->destroy(res->game);
    if (res->host != NULL)
        free(res->host->rolls);
    free(res->host);
    memset(res, 0, sizeof *res);
}
