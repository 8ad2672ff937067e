/*
 * test_record.c - game records of every ruleset (common/core/record.h):
 *
 * - Waterloo: a random legal game recorded and replayed gives the same
 *   state; a tampered roll, a bad line or a refused command is caught with
 *   its line number; a record without the seed replays from its recorded
 *   rolls; the golden record replays to a byte-identical state; a scenario
 *   built on a "base" and starting in a later phase, inline or by name;
 * - the campaign: the record warroomd exported (tests/golden/) replays with
 *   every die verified, each seat's projection hides what it must while a
 *   choice is sealed, a tampered roll is named, the record without its seed
 *   replays from its rolls;
 * - tictactoe: the exported record replays; a refused line stops the replay
 *   or, with keep_going, is counted and reported to the line callback;
 * - the header writer writes the bytes warroomd exported, and the limits on
 *   line lengths hold.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dice.h"
#include "record.h"
#include "ruleset.h"
#include "waterloo_autoplay.h"
#include "waterloo_command.h"
#include "waterloo_game.h"

#ifndef WARROOM_SCENARIO_DIR
#error "WARROOM_SCENARIO_DIR must be defined by the build"
#endif
#ifndef WARROOM_GOLDEN_DIR
#error "WARROOM_GOLDEN_DIR must be defined by the build"
#endif

#define CAMPAIGN_GOLDEN WARROOM_GOLDEN_DIR "/campaign-ancient-3p.ndjson"
#define TICTACTOE_GOLDEN WARROOM_GOLDEN_DIR "/tictactoe-x-wins.ndjson"

/* Scenarios by name under scenarios/; a name not found there is looked up
 * in scenarios/test/ (test/override.json's base is "small", found next to
 * it as `warroomd --scenarios scenarios/test` would). */
static json_t *resolve(const char *name, void *ctx)
{
    char path[512];
    (void)ctx;
    snprintf(path, sizeof path, "%s/%s.json", WARROOM_SCENARIO_DIR, name);
    json_t *j = json_load_file(path, 0, NULL);
    if (j == NULL) {
        snprintf(path, sizeof path, "%s/test/%s.json", WARROOM_SCENARIO_DIR, name);
        j = json_load_file(path, 0, NULL);
    }
    return j;
}

/* A growing text buffer for the record. */
struct text {
    char *s;
    size_t len, cap;
};

static void append(struct text *t, const char *s)
{
    size_t n = strlen(s);
    if (t->len + n + 2 > t->cap) {
        t->cap = (t->len + n + 2) * 2;
        t->s = realloc(t->s, t->cap);
        assert_non_null(t->s);
    }
    memcpy(t->s + t->len, s, n);
    t->len += n;
    t->s[t->len++] = '\n';
    t->s[t->len] = '\0';
}

static void append_json(struct text *t, json_t *j)
{
    char *s = json_dumps(j, JSON_COMPACT);
    append(t, s);
    free(s);
    json_decref(j);
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s)
        s[n] = '\0';
    fclose(f);
    return s;
}

/* What a random game of test/small made, for comparison. */
struct played {
    char *final;            /* the final state, sorted keys */
    char winner[16];        /* "" while running */
    int commands, rolls;
};

/* Play a random legal game of test/small with the given seeds; return its
 * record (the header from wr_record_header()) and what it made. */
static char *play(uint64_t rng_seed, const uint8_t seed[32], int with_seed, struct played *p)
{
    struct wl_scenario *sc = calloc(1, sizeof *sc);
    struct wl_game *g = malloc(sizeof *g);
    struct wl_reach *reach = malloc(sizeof *reach);
    struct wl_cmd *cmd = malloc(sizeof *cmd);
    struct wr_refusal why;
    json_t *sj = resolve("test/small", NULL);
    assert_non_null(sj);
    assert_int_equal(wl_scenario_load(sc, sj, NULL, NULL, &why), 0);
    json_decref(sj);
    wl_game_init(g, sc, "golden-1", seed);
    memset(p, 0, sizeof *p);

    struct text t = { NULL, 0, 0 };
    /* The options a host pins for a new game: the rules version it plays. */
    json_t *opts = wr_game_options(wr_ruleset_find("waterloo"), NULL, 1);
    assert_int_equal(json_integer_value(json_object_get(opts, "rules")), g->opt.rules);
    char *h = wr_record_header(g->id, "waterloo", "test/small", NULL, opts,
                               with_seed ? seed : NULL);
    json_decref(opts);
    assert_non_null(h);
    append(&t, h);
    free(h);

    struct wr_prng rng;
    wr_prng_seed(&rng, rng_seed);
    while (g->phase != WL_PH_OVER) {
        assert_int_equal(wl_autoplay_next(g, &rng, reach, cmd), 0);
        json_t *cj = wl_cmd_json(g, cmd);
        const char *seat = wl_side_name(g->await_side);
        json_t *events = NULL;
        enum wl_reason r = wl_game_apply_json(g, g->await_side, cj, &events, &why);
        if (r != WL_R_OK)
            fail_msg("random player refused: %s", why.message);
        json_t *line = json_pack("{s:s, s:O}", "seat", seat, "cmd", cj);
        json_t *rolls = json_array();
        size_t i;
        json_t *e;
        json_array_foreach(events, i, e) {
            if (strcmp(json_string_value(json_object_get(e, "type")), "roll") == 0)
                json_array_append_new(rolls, json_pack("[O, O]", json_object_get(e, "k"),
                                                       json_object_get(e, "face")));
        }
        p->rolls += (int)json_array_size(rolls);
        p->commands++;
        if (json_array_size(rolls) > 0)
            json_object_set_new(line, "rolls", rolls);
        else
            json_decref(rolls);
        append_json(&t, line);
        json_decref(cj);
        json_decref(events);
    }
    json_t *st = wl_game_state_json(g);
    p->final = json_dumps(st, JSON_SORT_KEYS | JSON_COMPACT);
    json_decref(st);
    snprintf(p->winner, sizeof p->winner, "%s", g->winner < 0 ? "" : wl_side_name(g->winner));
    free(cmd);
    free(reach);
    free(g);
    free(sc);
    return t.s;
}

/* Replay rec with the program's rulesets and the scenarios above. */
static int replay(const char *rec, size_t len, int keep_going, struct wr_record_result *res,
                  struct wr_refusal *why)
{
    struct wr_record_opts o = { wr_ruleset_find, resolve, NULL, keep_going, NULL, NULL };
    return wr_record_replay(rec, len, &o, res, why);
}

/* The text of a game's projection for seat (NULL: public), sorted keys. */
static char *projection(const struct wr_record_result *res, const char *seat)
{
    json_t *st = res->rs->project(res->game, seat);
    assert_non_null(st);
    char *s = json_dumps(st, JSON_SORT_KEYS | JSON_COMPACT);
    json_decref(st);
    return s;
}

/* Replay rec and return its final public state's text (NULL on failure). */
static char *replay_state(const char *rec, int keep_going, int *rc, struct wr_refusal *why)
{
    struct wr_record_result res;
    *rc = replay(rec, strlen(rec), keep_going, &res, why);
    char *s = res.game ? projection(&res, NULL) : NULL;
    if (*rc != 0)
        assert_null(res.game);
    wr_record_result_release(&res);
    return s;
}

static const uint8_t seed[32] = { 0x42, 0x17, 0x99, 0x01 };

/* --- Waterloo ------------------------------------------------------------- */

static void test_replay_matches_live_game(void **state)
{
    (void)state;
    for (uint64_t s = 1; s <= 10; s++) {
        struct played live;
        char *rec = play(s, seed, 1, &live);
        struct wr_record_result res;
        struct wr_refusal why;
        int rc = replay(rec, strlen(rec), 0, &res, &why);
        if (rc != 0)
            fail_msg("game %d: replay failed: %s", (int)s, why.message);
        char *a = projection(&res, NULL);
        assert_string_equal(a, live.final);
        /* Every command accepted, every roll verified, the same winner. */
        assert_int_equal(res.accepted, live.commands);
        assert_int_equal(res.refused, 0);
        assert_int_equal(res.dice, live.rolls);
        assert_true(live.rolls > 0);
        assert_non_null(res.result);
        assert_string_equal(res.result, live.winner);
        assert_string_equal(res.game_id, "golden-1");
        assert_int_equal(res.has_seed, 1);
        wr_record_result_release(&res);
        assert_null(res.game);
        int rc2;
        char *b = replay_state(rec, 0, &rc2, &why);
        assert_int_equal(rc2, 0);
        assert_string_equal(a, b);          /* deterministic */
        free(a);
        free(b);
        free(live.final);
        free(rec);
    }
}

static void test_tampered_roll(void **state)
{
    (void)state;
    struct played live;
    char *rec = play(3, seed, 1, &live);
    /* Change the face of the first recorded roll. */
    char *p = strstr(rec, "\"rolls\": [[");
    if (p == NULL)
        p = strstr(rec, "\"rolls\":[[");
    assert_non_null(p);
    char *comma = strchr(p, ',');
    assert_non_null(comma);
    char *face = comma + 1;
    while (*face == ' ')
        face++;
    *face = *face == '6' ? '1' : (char)(*face + 1);
    int rc;
    struct wr_refusal why;
    char *s = replay_state(rec, 0, &rc, &why);
    assert_int_equal(rc, WR_RECORD_EDICE);
    assert_null(s);
    assert_non_null(strstr(why.message, "was recorded as"));
    assert_non_null(strstr(why.message, "line "));
    free(live.final);
    free(rec);
}

static void test_without_seed_uses_recorded_rolls(void **state)
{
    (void)state;
    struct played live;
    char *rec = play(5, seed, 0, &live);
    struct wr_record_result res;
    struct wr_refusal why;
    int rc = replay(rec, strlen(rec), 0, &res, &why);
    if (rc != 0)
        fail_msg("replay without seed failed: %s", why.message);
    assert_int_equal(res.has_seed, 0);
    assert_int_equal(res.dice, 0);          /* nothing to verify them with */
    assert_int_equal(res.accepted, live.commands);
    char *s = projection(&res, NULL);
    /* Same game; the seedless replay knows no commitment, so compare units. */
    json_t *a = json_loads(s, 0, NULL), *b = json_loads(live.final, 0, NULL);
    assert_true(json_equal(json_object_get(a, "units"), json_object_get(b, "units")));
    assert_true(json_equal(json_object_get(a, "winner"), json_object_get(b, "winner")));
    json_decref(a);
    json_decref(b);
    free(s);
    wr_record_result_release(&res);
    free(live.final);
    free(rec);
}

#define WL_HEAD "{\"warroom\":\"game-record\",\"version\":1,\"game\":\"g\",\"ruleset\":\"waterloo\"," \
                "\"scenario\":\"test/small\"}\n"
#define TTT_HEAD "{\"warroom\":\"game-record\",\"version\":1,\"game\":\"g\",\"ruleset\":\"tictactoe\"," \
                 "\"scenario\":\"\"}\n"
#define CP_HEAD(opts) "{\"warroom\":\"game-record\",\"version\":1,\"game\":\"g\",\"ruleset\":" \
                      "\"campaign\",\"scenario\":\"campaign/ancient-world\"" opts "}\n"
/* A game id one byte too long. */
#define ID64 "g-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcd"
#define MARK(seat, cell) "{\"seat\":\"" seat "\",\"cmd\":{\"type\":\"mark\",\"cell\":" #cell "}}\n"

static void test_bad_records(void **state)
{
    static const struct {
        int row;
        const char *rec;
        int keep_going;
        int rc;
        const char *code;       /* NULL: not checked */
        const char *msg;        /* NULL: not checked */
        int accepted, refused;  /* -1: not checked */
    } t[] = {
        { 1, "", 0, WR_RECORD_EBAD, "bad_command", "line 1: the record is empty", 0, 0 },
        { 2, "{\"warroom\":\"game-record\",\"version\":2}\n", 0, WR_RECORD_EBAD, NULL,
          "not a version 1", -1, -1 },
        { 3, "not json\n", 0, WR_RECORD_EBAD, NULL, "line 1", -1, -1 },
        { 4, "{\"warroom\":\"game-record\",\"version\":1,\"game\":\"g\",\"ruleset\":\"chess\","
             "\"scenario\":\"test/small\"}\n", 0, WR_RECORD_EBAD, NULL,
          "line 1: this program has no ruleset 'chess'", -1, -1 },
        { 5, "{\"warroom\":\"game-record\",\"version\":1,\"game\":\"g\",\"ruleset\":\"waterloo\","
             "\"scenario\":\"test/nowhere\"}\n", 0, WR_RECORD_EBAD, "bad_scenario",
          "unknown scenario", -1, -1 },
        { 6, "{\"warroom\":\"game-record\",\"version\":1,\"game\":\"g\",\"ruleset\":\"waterloo\","
             "\"scenario\":\"test/small\",\"seed\":\"abc\"}\n", 0, WR_RECORD_EBAD, NULL,
          "64 hex", -1, -1 },
        { 7, WL_HEAD "{\"seat\":\"french\",\"cmd\":{\"type\":\"end_setup\"}}\n"
             "{\"seat\":\"french\",\"cmd\":{\"type\":\"end_setup\"}}\n", 0, WR_RECORD_EREFUSED,
          "not_your_turn", "line 3: the allied player is awaited", 1, 1 },
        { 8, WL_HEAD "{\"seat\":\"french\",\"cmd\":{\"type\":\"end_setup\"}}\n"
             "{\"seat\":\"french\",\"cmd\":{\"type\":\"end_setup\"}}\n"
             "{\"seat\":\"allied\",\"cmd\":{\"type\":\"end_setup\"}}\n", 1, 0, NULL, NULL, 2, 1 },
        { 9, WL_HEAD "{\"seat\":\"nobody\",\"cmd\":{}}\n", 0, WR_RECORD_EBAD, NULL,
          "line 2: \"seat\" must be one of the game's seats (french, allied)", 0, 0 },
        { 10, WL_HEAD "[]\n", 0, WR_RECORD_EBAD, NULL, "line 2", -1, -1 },
        { 11, WL_HEAD "{\"seat\":\"french\",\"cmd\":{\"type\":\"end_setup\"},\"rolls\":[[0,7]]}\n",
          0, WR_RECORD_EBAD, NULL, "face outside", -1, -1 },
        /* the header, field by field */
        { 12, "{\"warroom\":\"scenario\",\"version\":1,\"game\":\"g\",\"ruleset\":\"tictactoe\","
              "\"scenario\":\"\"}\n", 0, WR_RECORD_EBAD, NULL, "line 1: not a version 1", -1, -1 },
        { 13, "{\"warroom\":\"game-record\",\"version\":1,\"ruleset\":\"tictactoe\","
              "\"scenario\":\"\"}\n", 0, WR_RECORD_EBAD, NULL, "line 1: \"game\" must be", -1, -1 },
        { 14, "{\"warroom\":\"game-record\",\"version\":1,\"game\":\"" ID64 "\",\"ruleset\":\"tictactoe\",\"scenario\":\"\"}\n", 0,
          WR_RECORD_EBAD, NULL, "\"game\" must be a game id (a string of 1 to 63 bytes)", -1, -1 },
        { 15, "{\"warroom\":\"game-record\",\"version\":1,\"game\":\"g\",\"ruleset\":\"tictactoe\","
              "\"scenario\":\"\",\"options\":[]}\n", 0, WR_RECORD_EBAD, "bad_options",
          "line 1: \"options\" must be an object", -1, -1 },
        { 16, "{\"warroom\":\"game-record\",\"version\":1,\"game\":\"g\",\"ruleset\":\"tictactoe\","
              "\"scenario\":7}\n", 0, WR_RECORD_EBAD, "bad_scenario", "line 1: \"scenario\" must",
          -1, -1 },
        { 17, "{\"warroom\":\"game-record\",\"version\":1,\"game\":\"g\",\"ruleset\":7,"
              "\"scenario\":\"\"}\n", 0, WR_RECORD_EBAD, NULL, "line 1: \"ruleset\" must", -1, -1 },
        { 18, "{\"warroom\":\"game-record\",\"version\":1,\"version\":1}\n", 0, WR_RECORD_EBAD,
          NULL, "line 1: duplicate object key", -1, -1 },
        /* the ruleset's own verdict on the scenario and the options */
        { 19, "{\"warroom\":\"game-record\",\"version\":1,\"game\":\"g\",\"ruleset\":\"waterloo\","
              "\"scenario\":\"\"}\n", 0, WR_RECORD_EBAD, "bad_scenario",
          "line 1: waterloo needs a scenario", -1, -1 },
        { 20, CP_HEAD(",\"options\":{\"players\":9}"), 0, WR_RECORD_EBAD, "bad_options",
          "line 1: ", -1, -1 },
        /* no "options": {}, so a campaign of two players, p1 and p2 */
        { 21, CP_HEAD("") "{\"seat\":\"p3\",\"cmd\":{\"type\":\"start\"}}\n", 0, WR_RECORD_EBAD,
          NULL, "line 2: \"seat\" must be one of the game's seats (p1, p2)", 0, 0 },
        /* command lines */
        { 22, TTT_HEAD "\n\r\n" MARK("x", 4) "{\"seat\":\"o\"}\n", 0, WR_RECORD_EBAD, NULL,
          "line 5: \"cmd\" must be an object", 1, 0 },
        { 23, TTT_HEAD MARK("x", 4) MARK("o", 4), 0, WR_RECORD_EREFUSED, "enemy_square",
          "line 3: cell 4 is taken", 1, 1 },
        { 24, TTT_HEAD MARK("x", 4) MARK("o", 4) MARK("o", 0) MARK("x", 0), 1, 0, NULL, NULL, 2,
          2 },
        { 25, TTT_HEAD "{\"seat\":\"x\",\"cmd\":{\"type\":\"mark\",\"cell\":4},\"rolls\":[[0,3]]}\n",
          0, WR_RECORD_EDICE, NULL, "line 2: the record has 1 rolls, the game made 0", 1, 0 },
        { 26, TTT_HEAD "{\"seat\":\"x\",\"cmd\":{\"type\":\"mark\",\"cell\":4},\"rolls\":[[-1,3]]}\n",
          0, WR_RECORD_EBAD, NULL, "line 2: a roll has k out of range", 0, 0 },
        { 27, TTT_HEAD "{\"seat\":\"x\",\"cmd\":{\"type\":\"mark\",\"cell\":4},\"rolls\":{}}\n",
          0, WR_RECORD_EBAD, NULL, "line 2: \"rolls\" must be a list", 0, 0 },
        { 28, TTT_HEAD "{\"cmd\":{\"type\":\"mark\",\"cell\":4}}\n", 0, WR_RECORD_EBAD, NULL,
          "line 2: \"seat\" must be one of the game's seats (x, o)", 0, 0 },
        { 29, TTT_HEAD MARK("x", 4) "{\"seat\":\"o\",\"cmd\":{}} trailing\n", 0, WR_RECORD_EBAD,
          NULL, "line 3: end of file expected", 1, 0 },
        /* CRLF line ends, no newline at the end, unknown fields ignored */
        { 30, "{\"warroom\":\"game-record\",\"version\":1,\"game\":\"g\",\"ruleset\":\"tictactoe\","
              "\"scenario\":\"\",\"comment\":\"x\"}\r\n{\"seat\":\"x\",\"cmd\":{\"type\":\"mark\","
              "\"cell\":4},\"at\":1}\r\n" "{\"seat\":\"o\",\"cmd\":{\"type\":\"mark\",\"cell\":0}}",
          0, 0, NULL, NULL, 2, 0 },
        /* a running game's record: no seed, and a roll the line lacks */
        { 31, CP_HEAD(",\"options\":{\"players\":2}") "{\"seat\":\"p1\",\"cmd\":{\"type\":"
              "\"start\"},\"rolls\":[[0,3]]}\n", 0, WR_RECORD_EREFUSED, "bad_command",
          "roll 1 has no face", 0, 1 },
        /* null options and seed read as none */
        { 32, "{\"warroom\":\"game-record\",\"version\":1,\"game\":\"g\",\"ruleset\":\"tictactoe\","
              "\"scenario\":\"\",\"options\":null,\"seed\":null}\n" MARK("x", 4), 0, 0, NULL,
          NULL, 1, 0 },
    };
    (void)state;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        struct wr_record_result res;
        struct wr_refusal why = { WR_R_OK, "ok", "" };
        int rc = replay(t[i].rec, strlen(t[i].rec), t[i].keep_going, &res, &why);
        if (rc != t[i].rc || (t[i].msg && strstr(why.message, t[i].msg) == NULL))
            fail_msg("row %d: rc %d, message '%s'", t[i].row, rc, why.message);
        if (t[i].code && strcmp(why.code, t[i].code) != 0)
            fail_msg("row %d: code %s, want %s", t[i].row, why.code, t[i].code);
        if ((t[i].accepted >= 0 && res.accepted != t[i].accepted) ||
            (t[i].refused >= 0 && res.refused != t[i].refused))
            fail_msg("row %d: %d accepted, %d refused", t[i].row, res.accepted, res.refused);
        if ((rc == 0) != (res.game != NULL))
            fail_msg("row %d: rc %d but the game is %s", t[i].row, rc, res.game ? "there" : "NULL");
        wr_record_result_release(&res);
    }
}

/* The golden record: a fixed seed and command list give a byte-identical
 * final state. The record was made before Waterloo had rules versions: it
 * names none, so it replays under rules 1 (its state says "rules":1) and
 * reaches the same positions it always did. Set WARROOM_REGEN_GOLDEN=1 to
 * write the files anew after an intended rules change (then review the
 * diff: the new record names the newest rules). */
static void test_golden(void **state)
{
    (void)state;
    const char *rec_path = WARROOM_GOLDEN_DIR "/small-seed42.ndjson";
    const char *state_path = WARROOM_GOLDEN_DIR "/small-seed42.state.json";
    if (getenv("WARROOM_REGEN_GOLDEN")) {
        struct played live;
        char *rec = play(42, seed, 1, &live);
        FILE *f = fopen(rec_path, "wb");
        assert_non_null(f);
        fputs(rec, f);
        fclose(f);
        f = fopen(state_path, "wb");
        assert_non_null(f);
        fprintf(f, "%s\n", live.final);
        fclose(f);
        free(live.final);
        free(rec);
    }
    char *rec = read_file(rec_path), *want = read_file(state_path);
    assert_non_null(rec);
    assert_non_null(want);
    int rc;
    struct wr_refusal why;
    char *got = replay_state(rec, 0, &rc, &why);
    if (rc != 0)
        fail_msg("golden replay failed: %s", why.message);
    size_t n = strlen(want);
    if (n > 0 && want[n - 1] == '\n')
        want[n - 1] = '\0';
    assert_string_equal(got, want);
    free(got);
    free(rec);
    free(want);
}

/* Rules versions (ruleset.h, "rules"): a host pins the newest for a new
 * game, a game remade from a store or a record that names none is a
 * version 1 game, a version named is kept, and a ruleset without versions
 * gets no such option. */
static void test_rules_versions(void **state)
{
    (void)state;
    const struct wr_ruleset *wl = wr_ruleset_find("waterloo");
    const struct wr_ruleset *ttt = wr_ruleset_find("tictactoe");
    assert_true(wl->rules >= 2);
    assert_non_null(wr_ruleset_option(wl, "rules"));
    json_t *fresh = wr_game_options(wl, NULL, 1);
    json_t *old = wr_game_options(wl, NULL, 0);
    json_t *named = json_pack("{s:i, s:b}", "rules", 1, "spectators", 0);
    json_t *kept = wr_game_options(wl, named, 1);
    json_t *none = wr_game_options(ttt, NULL, 1);
    assert_int_equal(json_integer_value(json_object_get(fresh, "rules")), wl->rules);
    assert_int_equal(json_integer_value(json_object_get(old, "rules")), 1);
    assert_int_equal(json_integer_value(json_object_get(kept, "rules")), 1);
    assert_true(json_is_false(json_object_get(kept, "spectators")));
    assert_int_equal(json_integer_value(json_object_get(named, "rules")), 1);
    assert_null(json_object_get(none, "rules"));
    json_decref(fresh);
    json_decref(old);
    json_decref(named);
    json_decref(kept);
    json_decref(none);

    /* A version the ruleset does not have is refused at create. */
    json_t *sj = resolve("test/small", NULL);
    json_t *bad = json_pack("{s:i}", "rules", wl->rules + 1);
    struct wr_refusal why;
    assert_null(wl->create(sj, bad, "g-rules", NULL, NULL, &why));
    assert_string_equal(why.code, "bad_options");
    json_decref(bad);
    json_decref(sj);
}

/* A record is judged by the rules version it names: the golden record
 * (made before versions, so version 1) replays; the same commands under a
 * header naming rules 2 are refused where they first meet a changed rule
 * (line 8 orders Reille's HQ, a team HQ, which is not in a two-player game
 * of rules 2: docs/rules-notes.md H1). */
static void test_record_judged_by_its_rules(void **state)
{
    (void)state;
    char *rec = read_file(WARROOM_GOLDEN_DIR "/small-seed42.ndjson");
    assert_non_null(rec);
    char *nl = strchr(rec, '\n');
    assert_non_null(nl);
    json_t *h = json_loadb(rec, (size_t)(nl - rec), 0, NULL);
    assert_non_null(h);
    assert_null(json_object_get(h, "options"));
    json_object_set_new(h, "options", json_pack("{s:i}", "rules", 2));
    char *head = json_dumps(h, JSON_COMPACT);
    size_t len = strlen(head) + strlen(nl) + 1;
    char *v2 = malloc(len);
    snprintf(v2, len, "%s%s", head, nl);

    struct wr_record_result res;
    struct wr_refusal why;
    assert_int_equal(replay(rec, strlen(rec), 0, &res, &why), 0);
    wr_record_result_release(&res);
    int rc = replay(v2, strlen(v2), 0, &res, &why);
    assert_int_equal(rc, WR_RECORD_EREFUSED);
    assert_string_equal(why.code, "unit_not_on_board");
    if (strstr(why.message, "line 8") == NULL || strstr(why.message, "Reille") == NULL)
        fail_msg("want a refusal at line 8 naming Reille, got: %s", why.message);
    wr_record_result_release(&res);
    free(v2);
    free(head);
    json_decref(h);
    free(rec);
}

/* test/override builds on "small" and starts at turn 3, the French moving:
 * inline or by name, its base comes through the host's scenario(). */
static void test_base_and_start(void **state)
{
    (void)state;
    json_t *sj = resolve("test/override", NULL);
    assert_non_null(sj);
    assert_string_equal(json_string_value(json_object_get(sj, "base")), "small");
    char *inline_head = wr_record_header("g-base", "waterloo", NULL, sj, NULL, NULL);
    char *named_head = wr_record_header("g-base", "waterloo", "test/override", NULL, NULL, NULL);
    json_decref(sj);
    char *heads[2] = { inline_head, named_head };
    for (int i = 0; i < 2; i++) {
        struct text t = { NULL, 0, 0 };
        append(&t, heads[i]);
        append(&t, "{\"seat\":\"french\",\"cmd\":{\"type\":\"end_phase\"}}");
        struct wr_record_result res;
        struct wr_refusal why;
        int rc = replay(t.s, t.len, 0, &res, &why);
        if (rc != 0)
            fail_msg("row %d: %s", i + 1, why.message);
        json_t *st = res.rs->project(res.game, NULL);
        assert_int_equal(json_integer_value(json_object_get(st, "turn")), 3);
        assert_string_not_equal(json_string_value(json_object_get(st, "phase")), "french_move");
        json_decref(st);
        assert_int_equal(res.accepted, 1);
        wr_record_result_release(&res);
        /* Without a resolver the base is not found. */
        struct wr_record_opts o = { wr_ruleset_find, NULL, NULL, 0, NULL, NULL };
        assert_int_not_equal(wr_record_replay(t.s, t.len, &o, &res, &why), 0);
        assert_non_null(strstr(why.message, "line 1: "));
        wr_record_result_release(&res);
        free(t.s);
    }
    free(inline_head);
    free(named_head);
}

/* --- the campaign ---------------------------------------------------------- */

/* How many [k, face] pairs the command lines of rec hold. */
static int count_rolls(const char *rec)
{
    int n = 0;
    const char *line = strchr(rec, '\n') + 1;
    while (*line) {
        const char *end = strchr(line, '\n');
        json_t *l = json_loadb(line, (size_t)(end - line), 0, NULL);
        assert_non_null(l);
        n += (int)json_array_size(json_object_get(l, "rolls"));
        json_decref(l);
        line = end + 1;
    }
    return n;
}

static int count_lines(const char *rec)
{
    int n = 0;
    for (const char *p = rec; *p; p++)
        n += *p == '\n';
    return n;
}

static void test_campaign_record(void **state)
{
    (void)state;
    char *rec = read_file(CAMPAIGN_GOLDEN);
    assert_non_null(rec);
    struct wr_record_result res;
    struct wr_refusal why;
    int rc = replay(rec, strlen(rec), 0, &res, &why);
    if (rc != 0)
        fail_msg("campaign replay failed: %s", why.message);
    assert_string_equal(res.rs->name, "campaign");
    assert_int_equal(res.has_seed, 1);
    assert_int_equal(res.accepted, count_lines(rec) - 1);
    assert_int_equal(res.refused, 0);
    int rolls = count_rolls(rec);
    assert_true(rolls > 0);
    assert_int_equal(res.dice, rolls);          /* every roll verified */
    json_t *pub = res.rs->project(res.game, NULL);
    assert_string_equal(json_string_value(json_object_get(pub, "phase")), "over");
    assert_non_null(res.result);
    assert_string_equal(res.result, json_string_value(json_object_get(pub, "winner")));
    json_t *dice = json_object_get(pub, "dice");
    assert_int_equal(json_integer_value(json_object_get(dice, "rolls")), rolls);
    /* The commitment the game showed is the header's seed's. */
    json_t *head = json_loadb(rec, (size_t)(strchr(rec, '\n') - rec), 0, NULL);
    uint8_t s[32];
    char commitment[65];
    assert_int_equal(wr_dice_parse_seed(json_string_value(json_object_get(head, "seed")), s), 0);
    wr_dice_commitment(s, commitment);
    assert_string_equal(json_string_value(json_object_get(dice, "commitment")), commitment);
    /* The options made the game: three players and a referee. */
    assert_int_equal(wr_game_nseats(res.game), 4);
    assert_true(wr_game_seat_index(res.game, "referee") >= 0);
    /* Over: nothing is sealed, every seat sees what spectators see. */
    const char *const *seats = res.rs->seats(res.game);
    for (int i = 0; seats[i]; i++) {
        json_t *mine = res.rs->project(res.game, seats[i]);
        if (!json_equal(mine, pub))
            fail_msg("%s's projection differs from the public one at the end", seats[i]);
        json_decref(mine);
    }
    json_decref(head);
    json_decref(pub);
    wr_record_result_release(&res);
    free(rec);
}

/* Cut rec after its first n lines (in place). */
static void keep_lines(char *rec, int n)
{
    char *p = rec;
    for (int i = 0; i < n; i++) {
        p = strchr(p, '\n');
        assert_non_null(p);
        p++;
    }
    *p = '\0';
}

/* The record up to p1's sealed tactic: p1's projection holds its choice
 * and salt, the others' and the public one do not, and the seats still
 * awaited are the other side's. */
static void test_campaign_sealed_projection(void **state)
{
    (void)state;
    char *rec = read_file(CAMPAIGN_GOLDEN);
    assert_non_null(rec);
    const char *salt = "salt-p1-020245603bf6c016";
    char *at = strstr(rec, salt);
    assert_non_null(at);
    int n = 1;
    for (const char *p = rec; p < at; p++)
        n += *p == '\n';
    keep_lines(rec, n);             /* the header, the commands up to the tactic */
    struct wr_record_result res;
    struct wr_refusal why;
    int rc = replay(rec, strlen(rec), 0, &res, &why);
    if (rc != 0)
        fail_msg("replay of the first %d lines failed: %s", n, why.message);
    assert_int_equal(res.accepted, n - 1);
    assert_null(res.result);        /* still running */
    const char *const *seats = res.rs->seats(res.game);
    for (int i = -1; i < wr_game_nseats(res.game); i++) {
        const char *seat = i < 0 ? NULL : seats[i];
        char *s = projection(&res, seat);
        int sees = strstr(s, salt) != NULL;
        if (sees != (seat != NULL && strcmp(seat, "p1") == 0))
            fail_msg("%s %s p1's sealed salt", seat ? seat : "the public view",
                     sees ? "sees" : "does not see");
        free(s);
    }
    struct wr_decision d[WR_DECISIONS_MAX];
    int nd = res.rs->awaiting(res.game, d, WR_DECISIONS_MAX);
    assert_true(nd >= 1);
    for (int i = 0; i < nd; i++)
        assert_string_not_equal(d[i].seat, "p1");
    wr_record_result_release(&res);
    free(rec);
}

/* A face changed, k changed, a roll dropped: each named with its line. */
static void test_campaign_tampered(void **state)
{
    (void)state;
    char *golden = read_file(CAMPAIGN_GOLDEN);
    assert_non_null(golden);
    json_t *head = json_loadb(golden, (size_t)(strchr(golden, '\n') - golden), 0, NULL);
    const char *id = json_string_value(json_object_get(head, "game"));
    uint8_t s[32];
    assert_int_equal(wr_dice_parse_seed(json_string_value(json_object_get(head, "seed")), s), 0);
    /* The first line with rolls, and its line number. */
    const char *first = strstr(golden, "\"rolls\":[[0,");
    assert_non_null(first);
    int lineno = 1;
    for (const char *p = golden; p < first; p++)
        lineno += *p == '\n';
    size_t off = (size_t)(first - golden) + strlen("\"rolls\":[[0,");
    int derived = wr_dice_roll(s, id, 0);
    assert_int_equal(golden[off] - '0', derived);
    static const struct {
        int row;
        int what;               /* 0: the face of roll 0, 1: its k, 2: its pair dropped */
        int rc;
    } t[] = {
        { 1, 0, WR_RECORD_EDICE },
        { 2, 1, WR_RECORD_EDICE },
        { 3, 2, WR_RECORD_EDICE },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        char *rec = strdup(golden), want[160];
        int tampered = derived % 6 + 1;
        if (t[i].what == 0) {
            rec[off] = (char)('0' + tampered);
            snprintf(want, sizeof want, "line %d: roll 0 was recorded as %d, the seed gives %d",
                     lineno, tampered, derived);
        } else if (t[i].what == 1) {
            rec[off - 2] = '9';     /* [[9,face],[1,...]... */
            snprintf(want, sizeof want, "line %d: the record's roll 9 is roll 0 of the game",
                     lineno);
        } else {
            /* "[[0,f],[1,..." -> "[[1,...": roll 0 is missing */
            memmove(rec + off - 2, rec + off + 4, strlen(rec + off + 4) + 1);
            snprintf(want, sizeof want, "line %d: the record's roll 1 is roll 0 of the game",
                     lineno);
        }
        struct wr_record_result res;
        struct wr_refusal why;
        int rc = replay(rec, strlen(rec), 1, &res, &why);
        if (rc != t[i].rc || strcmp(why.message, want) != 0)
            fail_msg("row %d: rc %d, '%s', want '%s'", t[i].row, rc, why.message, want);
        assert_null(res.game);
        assert_int_equal(res.lines, lineno);
        wr_record_result_release(&res);
        free(rec);
    }
    json_decref(head);
    free(golden);
}

/* The campaign's record without its seed replays from the recorded rolls
 * to the same towns, history and winner; no die is verified. */
static void test_campaign_without_seed(void **state)
{
    (void)state;
    char *golden = read_file(CAMPAIGN_GOLDEN);
    assert_non_null(golden);
    char *rec = strdup(golden);
    char *sp = strstr(rec, ",\"seed\":\"");
    assert_non_null(sp);
    assert_true(sp < strchr(rec, '\n'));
    memmove(sp, sp + 74, strlen(sp + 74) + 1);     /* ,"seed":"<64 hex>" */
    struct wr_record_result a, b;
    struct wr_refusal why;
    if (replay(golden, strlen(golden), 0, &a, &why) != 0)
        fail_msg("with the seed: %s", why.message);
    if (replay(rec, strlen(rec), 0, &b, &why) != 0)
        fail_msg("without the seed: %s", why.message);
    assert_int_equal(b.has_seed, 0);
    assert_int_equal(b.dice, 0);
    assert_int_equal(b.accepted, a.accepted);
    assert_string_equal(b.result, a.result);
    json_t *pa = a.rs->project(a.game, NULL), *pb = b.rs->project(b.game, NULL);
    static const char *const keys[] = { "towns", "held", "history", "winner", "end", "phase" };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!json_equal(json_object_get(pa, keys[i]), json_object_get(pb, keys[i])))
            fail_msg("\"%s\" differs without the seed", keys[i]);
    assert_non_null(json_object_get(pa, "history"));
    json_decref(pa);
    json_decref(pb);
    wr_record_result_release(&a);
    wr_record_result_release(&b);
    free(rec);
    free(golden);
}

/* --- tictactoe ------------------------------------------------------------- */

static void test_tictactoe_record(void **state)
{
    (void)state;
    char *rec = read_file(TICTACTOE_GOLDEN);
    assert_non_null(rec);
    struct wr_record_result res;
    struct wr_refusal why;
    int rc = replay(rec, strlen(rec), 0, &res, &why);
    if (rc != 0)
        fail_msg("tictactoe replay failed: %s", why.message);
    assert_string_equal(res.rs->name, "tictactoe");
    assert_int_equal(res.accepted, count_lines(rec) - 1);
    assert_int_equal(res.dice, 0);
    assert_int_equal(res.has_seed, 1);
    json_t *pub = res.rs->project(res.game, NULL);
    /* x took the top row: 0, 1, 2 (o played 3 and 4). */
    assert_string_equal(json_string_value(json_object_get(pub, "board")), "xxxoo....");
    assert_string_equal(res.result, "x");
    assert_string_equal(json_string_value(json_object_get(pub, "winner")), res.result);
    json_decref(pub);
    wr_record_result_release(&res);
    free(rec);
}

/* What the line callback saw. */
struct seen {
    int n;
    int line[8], verdict[8];
    char code[8][32];
    int events[8];
};

static void on_line(void *ctx, int n, const char *seat, const json_t *cmd, int verdict,
                    const struct wr_refusal *why, const json_t *events)
{
    struct seen *s = ctx;
    assert_non_null(seat);
    assert_true(json_is_object(cmd));
    assert_true(s->n < 8);
    s->line[s->n] = n;
    s->verdict[s->n] = verdict;
    assert_true((verdict == 0) == (why == NULL));
    assert_true((verdict == 0) == (events != NULL));
    snprintf(s->code[s->n], sizeof s->code[0], "%s", why ? why->code : "ok");
    s->events[s->n] = events ? (int)json_array_size(events) : -1;
    s->n++;
}

static void test_line_callback(void **state)
{
    (void)state;
    const char *rec = TTT_HEAD MARK("x", 4) "\n" MARK("o", 4) MARK("o", 0) MARK("x", 9);
    static const struct {
        int row, line, verdict;
        const char *code;
        int events;
    } want[] = {
        { 1, 2, 0, "ok", 1 },
        { 2, 4, 1, "enemy_square", -1 },        /* line 3 is blank */
        { 3, 5, 0, "ok", 1 },
        { 4, 6, 1, "bad_square", -1 },
    };
    struct seen s;
    memset(&s, 0, sizeof s);
    struct wr_record_opts o = { wr_ruleset_find, NULL, NULL, 1, on_line, &s };
    struct wr_record_result res;
    struct wr_refusal why;
    assert_int_equal(wr_record_replay(rec, strlen(rec), &o, &res, &why), 0);
    assert_int_equal(s.n, 4);
    for (int i = 0; i < 4; i++)
        if (s.line[i] != want[i].line || (s.verdict[i] != 0) != want[i].verdict ||
            strcmp(s.code[i], want[i].code) != 0 || s.events[i] != want[i].events)
            fail_msg("row %d: line %d, verdict %d, code %s, %d events", want[i].row, s.line[i],
                     s.verdict[i], s.code[i], s.events[i]);
    assert_int_equal(res.accepted, 2);
    assert_int_equal(res.refused, 2);
    assert_null(res.result);
    wr_record_result_release(&res);
}

/* --- the header writer and the limits ------------------------------------- */

/* The first line of the file at path, without its newline. Caller frees. */
static char *first_line(const char *path)
{
    char *s = read_file(path);
    assert_non_null(s);
    char *nl = strchr(s, '\n');
    assert_non_null(nl);
    *nl = '\0';
    return s;
}

/* The writer makes, from a header's fields, the bytes warroomd exported. */
static void test_header_writer(void **state)
{
    (void)state;
    static const char *const paths[] = { TICTACTOE_GOLDEN, CAMPAIGN_GOLDEN };
    for (int i = 0; i < 2; i++) {
        char *line = first_line(paths[i]);
        json_t *h = json_loads(line, 0, NULL);
        assert_non_null(h);
        uint8_t s[32];
        assert_int_equal(wr_dice_parse_seed(json_string_value(json_object_get(h, "seed")), s), 0);
        json_t *scen = json_object_get(h, "scenario");
        char *w = wr_record_header(json_string_value(json_object_get(h, "game")),
                                   json_string_value(json_object_get(h, "ruleset")),
                                   json_string_value(scen), json_is_object(scen) ? scen : NULL,
                                   json_object_get(h, "options"), s);
        assert_non_null(w);
        if (strcmp(w, line) != 0)
            fail_msg("row %d: wrote\n%.300s\nexported\n%.300s", i + 1, w, line);
        free(w);
        json_decref(h);
        free(line);
    }
    /* A running game: no seed; no options written as {}; no scenario as "". */
    char *w = wr_record_header("g-1", "tictactoe", NULL, NULL, NULL, NULL);
    assert_string_equal(w, "{\"warroom\":\"game-record\",\"version\":1,\"game\":\"g-1\","
                           "\"ruleset\":\"tictactoe\",\"scenario\":\"\",\"options\":{}}");
    free(w);
}

/* Lines as long as they may be pass; one byte more is refused, with the
 * line's number. */
static void test_limits(void **state)
{
    (void)state;
    static const struct {
        int row;
        int header;             /* 1: pad the header, 0: the first command line */
        size_t len;
        int rc;
    } t[] = {
        { 1, 0, WR_RECORD_LINE_MAX, 0 },
        { 2, 0, WR_RECORD_LINE_MAX + 1, WR_RECORD_EBAD },
        { 3, 1, WR_RECORD_HEADER_MAX, 0 },
        { 4, 1, WR_RECORD_HEADER_MAX + 1, WR_RECORD_EBAD },
    };
    static const char head[] = "{\"warroom\":\"game-record\",\"version\":1,\"game\":\"g\","
                               "\"ruleset\":\"tictactoe\",\"scenario\":\"\",\"pad\":\"";
    static const char cmd[] = "{\"seat\":\"x\",\"cmd\":{\"type\":\"mark\",\"cell\":4},\"pad\":\"";
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        size_t cap = t[i].len + sizeof head + sizeof cmd + 64;
        char *rec = malloc(cap), *p = rec;
        assert_non_null(rec);
        /* The padded line: its start, spaces, "\"}". */
        const char *start = t[i].header ? head : cmd;
        if (!t[i].header)
            p += sprintf(p, "%s\"}\n", head);
        size_t fill = t[i].len - strlen(start) - 2;
        p += sprintf(p, "%s", start);
        memset(p, ' ', fill);
        p += fill;
        p += sprintf(p, "\"}\n");
        if (t[i].header)
            p += sprintf(p, "%s\"}\n", cmd);
        struct wr_record_result res;
        struct wr_refusal why;
        int rc = replay(rec, (size_t)(p - rec), 0, &res, &why);
        if (rc != t[i].rc)
            fail_msg("row %d: rc %d (%s)", t[i].row, rc, rc ? why.message : "");
        if (rc == 0) {
            assert_int_equal(res.accepted, 1);
        } else {
            char want[160];
            snprintf(want, sizeof want, "line %d: %s of %zu bytes is longer than the %zu bytes",
                     t[i].header ? 1 : 2, t[i].header ? "the header" : "a command line",
                     t[i].len, t[i].len - 1);
            if (strstr(why.message, want) == NULL)
                fail_msg("row %d: '%s', want '%s'", t[i].row, why.message, want);
        }
        wr_record_result_release(&res);
        free(rec);
    }
}

static void test_strerror(void **state)
{
    (void)state;
    assert_string_equal(wr_record_strerror(0), "ok");
    assert_non_null(strstr(wr_record_strerror(WR_RECORD_EDICE), "roll"));
    assert_non_null(strstr(wr_record_strerror(WR_RECORD_EREFUSED), "refused"));
    assert_string_equal(wr_record_strerror(-99), "unknown error");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replay_matches_live_game),
        cmocka_unit_test(test_tampered_roll),
        cmocka_unit_test(test_without_seed_uses_recorded_rolls),
        cmocka_unit_test(test_bad_records),
        cmocka_unit_test(test_golden),
        cmocka_unit_test(test_rules_versions),
        cmocka_unit_test(test_record_judged_by_its_rules),
        cmocka_unit_test(test_base_and_start),
        cmocka_unit_test(test_campaign_record),
        cmocka_unit_test(test_campaign_sealed_projection),
        cmocka_unit_test(test_campaign_tampered),
        cmocka_unit_test(test_campaign_without_seed),
        cmocka_unit_test(test_tictactoe_record),
        cmocka_unit_test(test_line_callback),
        cmocka_unit_test(test_header_writer),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_strerror),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
