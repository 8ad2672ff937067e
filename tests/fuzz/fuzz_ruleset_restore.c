/*
 * fuzz_ruleset_restore.c - libFuzzer target for every registered ruleset's
 * restore() (ruleset.h, version 5), which reads a saved game from a store
 * that can be damaged. The first byte of an input picks the ruleset, the
 * rest is the JSON text of a saved game, restored with the ruleset's
 * default scenario and options. restore must never crash or leak; a game
 * it returns must pass check(), answer project() for every seat and the
 * public view, awaiting() and result(), and save to a text that restores
 * again. The seed corpus (corpus/fuzz_ruleset_restore/) is real saves of
 * each ruleset, made by the conformance suite's kind of random game.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ruleset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_RS 16

static json_t *scenario_file(void *ctx, const char *name)
{
    (void)ctx;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.json", WARROOM_SCENARIO_DIR, name);
    json_t *j = json_load_file(path, 0, NULL);
    if (j == NULL) {
        snprintf(path, sizeof path, "%s/%s/scenario.json", WARROOM_SCENARIO_DIR, name);
        j = json_load_file(path, 0, NULL);
    }
    return j;
}

static const struct wr_host host = { NULL, scenario_file, NULL };

/* Each ruleset's default scenario and options, loaded once (kept for the
 * process's life, as libFuzzer's targets keep their fixtures). */
struct fixture {
    const struct wr_ruleset *rs;
    json_t *scenario, *options;
};

static struct fixture *fixtures(int *n)
{
    static struct fixture f[MAX_RS];
    static int count = -1;
    if (count < 0) {
        count = 0;
        for (int i = 0; wr_ruleset_at(i) && count < MAX_RS; i++) {
            const struct wr_ruleset *rs = wr_ruleset_at(i);
            f[count].rs = rs;
            f[count].scenario = rs->default_scenario ? scenario_file(NULL, rs->default_scenario)
                                                     : NULL;
            f[count].options = wr_game_options(rs, NULL, 1);
            count++;
        }
    }
    *n = count;
    return f;
}

static const uint8_t seed[32] = { 7, 7, 7 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int n;
    struct fixture *f = fixtures(&n);
    if (size < 1 || n == 0)
        return 0;
    const struct fixture *fx = &f[data[0] % n];
    const struct wr_ruleset *rs = fx->rs;
    if (!wr_ruleset_can_save(rs))
        return 0;
    json_t *saved = json_loadb((const char *)data + 1, size - 1, JSON_DECODE_ANY, NULL);
    struct wr_refusal why = { 0, NULL, "" };
    struct wr_game *g = wr_game_restore(rs, saved, fx->scenario, fx->options, "fuzz", seed,
                                        &host, &why);
    json_decref(saved);
    if (g == NULL) {
        if (why.code == NULL || why.message[0] == '\0')
            abort();                    /* a refusal always says why */
        return 0;
    }
    if (rs->check(g, &why) != 0)
        abort();                        /* restore let a broken game through */
    const char *const *seats = rs->seats(g);
    for (int i = 0;; i++) {
        json_t *p = rs->project(g, seats[i]);
        if (p == NULL)
            abort();
        json_decref(p);
        if (seats[i] == NULL)
            break;
    }
    struct wr_decision d[WR_DECISIONS_MAX];
    int k = rs->awaiting(g, d, WR_DECISIONS_MAX);
    if (k < 0 || (k == 0) != (rs->result(g) != NULL))
        abort();
    /* What it restored saves, and that restores again. */
    json_t *again = wr_game_save(g);
    struct wr_game *h = wr_game_restore(rs, again, fx->scenario, fx->options, "fuzz", seed,
                                        &host, &why);
    if (h == NULL)
        abort();
    rs->destroy(h);
    json_decref(again);
    rs->destroy(g);
    return 0;
}
