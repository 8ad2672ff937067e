/*
 * fuzz_command.c - libFuzzer target for the Waterloo command parser and
 * validator. The first byte advances a game of the test scenario by that
 * many random legal commands (so the fuzzer meets every phase); the rest is
 * a command in JSON, tried from both seats. A refused command must leave
 * the state unchanged; an accepted one must keep the invariants.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autoplay.h"
#include "command.h"

#ifndef WARROOM_SCENARIO_DIR
#error "WARROOM_SCENARIO_DIR must be defined by the build"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct wr_scenario *scenario(void)
{
    /* Loaded once per process: libFuzzer calls this target millions of
     * times and the scenario is read-only. */
    static struct wr_scenario *sc;
    if (sc == NULL) {
        struct wr_refusal why;
        sc = calloc(1, sizeof *sc);
        if (sc == NULL ||
            wr_scenario_load_file(sc, WARROOM_SCENARIO_DIR "/test/small.json", &why) != 0)
            abort();
    }
    return sc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    struct wr_game *g = malloc(sizeof *g);
    struct wr_reach *reach = malloc(sizeof *reach);
    struct wr_cmd *cmd = malloc(sizeof *cmd);
    struct wr_events *ev = malloc(sizeof *ev);
    static const uint8_t seed[32] = { 7 };
    wr_game_init(g, scenario(), "fuzz", seed);
    struct wr_prng rng;
    wr_prng_seed(&rng, data[0]);
    for (int i = 0; i < data[0] && g->phase != WR_PH_OVER; i++) {
        struct wr_refusal why;
        if (wr_autoplay_next(g, &rng, reach, cmd) != 0)
            break;
        ev->n = 0;
        if (wr_game_apply(g, g->await_side, cmd, ev, &why) != WR_R_OK)
            abort();        /* the random player proposed an illegal command */
    }
    json_t *j = json_loadb((const char *)data + 1, size - 1, 0, NULL);
    if (j != NULL) {
        for (int side = 0; side < 2; side++) {
            json_t *before = wr_game_state_json(g), *events = NULL;
            struct wr_refusal why;
            enum wr_reason r = wr_game_apply_json(g, side, j, &events, &why);
            json_t *after = wr_game_state_json(g);
            if (r != WR_R_OK && !json_equal(before, after))
                abort();    /* a refusal changed the game */
            if (r == WR_R_OK && wr_game_check(g, &why) != 0)
                abort();    /* an accepted command broke an invariant */
            json_decref(before);
            json_decref(after);
            json_decref(events);
        }
        json_decref(j);
    }
    free(ev);
    free(cmd);
    free(reach);
    free(g);
    return 0;
}
