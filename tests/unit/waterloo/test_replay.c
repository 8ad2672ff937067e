/*
 * test_replay.c - game records: a random legal game recorded and replayed
 * gives the same state; a tampered roll, a bad line or a refused command is
 * caught with its line number; a record without the seed replays from its
 * recorded rolls; and the golden record replays to a byte-identical state.
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

#include "waterloo_autoplay.h"
#include "dice.h"
#include "waterloo_record.h"

#ifndef WARROOM_SCENARIO_DIR
#error "WARROOM_SCENARIO_DIR must be defined by the build"
#endif
#ifndef WARROOM_GOLDEN_DIR
#error "WARROOM_GOLDEN_DIR must be defined by the build"
#endif

static json_t *resolve(const char *name, void *ctx)
{
    char path[512];
    (void)ctx;
    snprintf(path, sizeof path, "%s/%s.json", WARROOM_SCENARIO_DIR, name);
    return json_load_file(path, 0, NULL);
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

/* Play a random legal game of test/small with the given seeds; return its
 * record and (in *final) its final state text. */
static char *play(uint64_t rng_seed, const uint8_t seed[32], int with_seed, char **final)
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

    struct text t = { NULL, 0, 0 };
    char hex[65];
    wr_dice_seed_hex(seed, hex);
    json_t *h = json_pack("{s:s, s:i, s:s, s:s, s:s}", "warroom", "game-record", "version", 1,
                          "game", g->id, "ruleset", "waterloo", "scenario", "test/small");
    if (with_seed)
        json_object_set_new(h, "seed", json_string(hex));
    append_json(&t, h);

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
        if (json_array_size(rolls) > 0)
            json_object_set_new(line, "rolls", rolls);
        else
            json_decref(rolls);
        append_json(&t, line);
        json_decref(cj);
        json_decref(events);
    }
    json_t *st = wl_game_state_json(g);
    *final = json_dumps(st, JSON_SORT_KEYS | JSON_COMPACT);
    json_decref(st);
    free(cmd);
    free(reach);
    free(g);
    free(sc);
    return t.s;
}

static char *replay_state(const char *rec, int keep_going, int *rc, struct wr_refusal *why)
{
    struct wl_replay_opts o = { resolve, NULL, keep_going, NULL, NULL };
    json_t *st = NULL;
    *rc = wl_replay(rec, strlen(rec), &o, &st, why);
    if (st == NULL)
        return NULL;
    char *s = json_dumps(st, JSON_SORT_KEYS | JSON_COMPACT);
    json_decref(st);
    return s;
}

static const uint8_t seed[32] = { 0x42, 0x17, 0x99, 0x01 };

static void test_replay_matches_live_game(void **state)
{
    (void)state;
    for (uint64_t s = 1; s <= 10; s++) {
        char *live, *rec = play(s, seed, 1, &live);
        int rc;
        struct wr_refusal why;
        char *a = replay_state(rec, 0, &rc, &why);
        if (rc != 0)
            fail_msg("game %d: replay failed: %s", (int)s, why.message);
        assert_string_equal(a, live);
        char *b = replay_state(rec, 0, &rc, &why);
        assert_string_equal(a, b);          /* deterministic */
        free(a);
        free(b);
        free(live);
        free(rec);
    }
}

static void test_tampered_roll(void **state)
{
    (void)state;
    char *live, *rec = play(3, seed, 1, &live);
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
    assert_int_equal(rc, -1);
    assert_null(s);
    assert_non_null(strstr(why.message, "was recorded as"));
    assert_non_null(strstr(why.message, "line "));
    free(live);
    free(rec);
}

static void test_without_seed_uses_recorded_rolls(void **state)
{
    (void)state;
    char *live, *rec = play(5, seed, 0, &live);
    int rc;
    struct wr_refusal why;
    char *s = replay_state(rec, 0, &rc, &why);
    if (rc != 0)
        fail_msg("replay without seed failed: %s", why.message);
    /* Same game; the seedless replay knows no commitment, so compare units. */
    json_t *a = json_loads(s, 0, NULL), *b = json_loads(live, 0, NULL);
    assert_true(json_equal(json_object_get(a, "units"), json_object_get(b, "units")));
    assert_true(json_equal(json_object_get(a, "winner"), json_object_get(b, "winner")));
    json_decref(a);
    json_decref(b);
    free(s);
    free(live);
    free(rec);
}

static void test_bad_records(void **state)
{
    static const struct { int row; const char *rec; int keep_going; int rc; const char *msg; } t[] = {
        { 1, "", 0, -1, "line 1: the record is empty" },
        { 2, "{\"warroom\":\"game-record\",\"version\":2}\n", 0, -1, "not a version 1" },
        { 3, "not json\n", 0, -1, "line 1" },
        { 4, "{\"warroom\":\"game-record\",\"version\":1,\"game\":\"g\",\"ruleset\":\"chess\","
             "\"scenario\":\"test/small\"}\n", 0, -1, "ruleset" },
        { 5, "{\"warroom\":\"game-record\",\"version\":1,\"game\":\"g\",\"ruleset\":\"waterloo\","
             "\"scenario\":\"test/nowhere\"}\n", 0, -1, "unknown scenario" },
        { 6, "{\"warroom\":\"game-record\",\"version\":1,\"game\":\"g\",\"ruleset\":\"waterloo\","
             "\"scenario\":\"test/small\",\"seed\":\"abc\"}\n", 0, -1, "64 hex" },
        { 7, "{\"warroom\":\"game-record\",\"version\":1,\"game\":\"g\",\"ruleset\":\"waterloo\","
             "\"scenario\":\"test/small\"}\n{\"seat\":\"french\",\"cmd\":{\"type\":\"end_setup\"}}\n"
             "{\"seat\":\"french\",\"cmd\":{\"type\":\"end_setup\"}}\n", 0, -1,
             "line 3: the allied player is awaited" },
        { 8, "{\"warroom\":\"game-record\",\"version\":1,\"game\":\"g\",\"ruleset\":\"waterloo\","
             "\"scenario\":\"test/small\"}\n{\"seat\":\"french\",\"cmd\":{\"type\":\"end_setup\"}}\n"
             "{\"seat\":\"french\",\"cmd\":{\"type\":\"end_setup\"}}\n"
             "{\"seat\":\"allied\",\"cmd\":{\"type\":\"end_setup\"}}\n", 1, 0, NULL },
        { 9, "{\"warroom\":\"game-record\",\"version\":1,\"game\":\"g\",\"ruleset\":\"waterloo\","
             "\"scenario\":\"test/small\"}\n{\"seat\":\"nobody\",\"cmd\":{}}\n", 0, -1,
             "line 2: \"seat\"" },
        { 10, "{\"warroom\":\"game-record\",\"version\":1,\"game\":\"g\",\"ruleset\":\"waterloo\","
              "\"scenario\":\"test/small\"}\n[]\n", 0, -1, "line 2" },
        { 11, "{\"warroom\":\"game-record\",\"version\":1,\"game\":\"g\",\"ruleset\":\"waterloo\","
              "\"scenario\":\"test/small\"}\n{\"seat\":\"french\",\"cmd\":{\"type\":\"end_setup\"},"
              "\"rolls\":[[0,7]]}\n", 0, -1, "face outside" },
    };
    (void)state;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        int rc;
        struct wr_refusal why = { WL_R_OK, "ok", "" };
        char *s = replay_state(t[i].rec, t[i].keep_going, &rc, &why);
        if (rc != t[i].rc || (t[i].msg && strstr(why.message, t[i].msg) == NULL))
            fail_msg("row %d: rc %d, message '%s'", t[i].row, rc, why.message);
        free(s);
    }
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

/* The golden record: a fixed seed and command list give a byte-identical
 * final state. Set WARROOM_REGEN_GOLDEN=1 to write the files anew after an
 * intended rules change (then review the diff). */
static void test_golden(void **state)
{
    (void)state;
    const char *rec_path = WARROOM_GOLDEN_DIR "/small-seed42.ndjson";
    const char *state_path = WARROOM_GOLDEN_DIR "/small-seed42.state.json";
    if (getenv("WARROOM_REGEN_GOLDEN")) {
        char *live, *rec = play(42, seed, 1, &live);
        FILE *f = fopen(rec_path, "wb");
        assert_non_null(f);
        fputs(rec, f);
        fclose(f);
        f = fopen(state_path, "wb");
        assert_non_null(f);
        fprintf(f, "%s\n", live);
        fclose(f);
        free(live);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replay_matches_live_game),
        cmocka_unit_test(test_tampered_roll),
        cmocka_unit_test(test_without_seed_uses_recorded_rolls),
        cmocka_unit_test(test_bad_records),
        cmocka_unit_test(test_golden),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
