/*
 * fuzz_command.c - libFuzzer target for the Waterloo command parser and
 * validator, built twice: fuzz_command on scenarios/test/small.json and
 * fuzz_command_1815 on scenarios/waterloo-1815/scenario.json (the build
 * sets FUZZ_SCENARIO).
 *
 * Replaying random play before every input made the 1815 target too slow
 * to fuzz, so positions are made once, at start-up: random legal games from
 * fixed seeds (FUZZ_GAMES of them: one 1815 game costs seconds under the
 * sanitizers), positions kept spread over every phase and turn until the
 * game ends (POSITIONS in all). The first byte of an
 * input picks a position; the rest is a command in JSON, tried from both
 * seats on a copy of it. A refused command must leave the state unchanged;
 * an accepted one must keep the invariants (wl_game_check).
 *
 * FUZZ_COMMAND_SEEDS=DIR writes one seed per position into DIR at start-up
 * (the byte of the position, then the command the random player would
 * play there): that is how the committed seed corpus was made.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "waterloo_autoplay.h"
#include "waterloo_command.h"

#ifndef FUZZ_SCENARIO
#error "FUZZ_SCENARIO (a scenario file) must be defined by the build"
#endif

#define POSITIONS 256
#define FIXED 8                 /* positions after the first commands, always kept */
#ifndef FUZZ_GAMES
#define FUZZ_GAMES 4            /* random games the positions come from */
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct wl_scenario *sc;
static struct wl_game *positions;   /* POSITIONS games, by value */
static int npositions;

/* Write the seed of position i (its byte, then the random player's next
 * command there) into dir. */
static void write_seed(const char *dir, int i, struct wr_prng *rng, struct wl_reach *reach,
                       struct wl_cmd *cmd)
{
    const struct wl_game *g = &positions[i];
    if (wl_autoplay_next(g, rng, reach, cmd) != 0)
        return;
    json_t *j = wl_cmd_json(g, cmd);
    char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
    char path[1024];
    snprintf(path, sizeof path, "%s/pos%03d", dir, i);
    FILE *f = text ? fopen(path, "wb") : NULL;
    if (f) {
        fputc(i, f);
        fputs(text, f);
        fclose(f);
    }
    free(text);
    json_decref(j);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    struct wr_refusal why;
    sc = calloc(1, sizeof *sc);
    positions = calloc(POSITIONS, sizeof *positions);
    struct wl_game *g = malloc(sizeof *g);
    struct wl_reach *reach = malloc(sizeof *reach);
    struct wl_cmd *cmd = malloc(sizeof *cmd);
    struct wl_events *ev = malloc(sizeof *ev);
    if (sc == NULL || positions == NULL || g == NULL || reach == NULL || cmd == NULL ||
        ev == NULL || wl_scenario_load_file(sc, FUZZ_SCENARIO, &why) != 0) {
        fprintf(stderr, "fuzz_command: cannot load %s\n", FUZZ_SCENARIO);
        abort();
    }
    /* FUZZ_GAMES random games from seeds 1, 2, ..., each given an equal
     * share of the positions: its start, then a position every `every`
     * commands, `every` doubling (and every other position kept) whenever
     * the share is full, so the share spans the whole game; and its end. */
    static const uint8_t dice[32] = { 7 };
    struct wr_prng rng;
    int share = POSITIONS / FUZZ_GAMES, every = 1;
    for (uint64_t seed = 1; seed <= FUZZ_GAMES; seed++) {
        struct wl_game *mine = positions + npositions;
        int kept = 0, n = 0;
        every = 1;
        wr_prng_seed(&rng, seed);
        wl_game_init(g, sc, "fuzz", dice);
        mine[kept++] = *g;
        while (g->phase != WL_PH_OVER && wl_autoplay_next(g, &rng, reach, cmd) == 0) {
            ev->n = 0;
            if (wl_game_apply(g, g->await_side, cmd, ev, &why) != WL_R_OK)
                abort();    /* the random player proposed an illegal command */
            if (++n % every != 0 && n > FIXED && g->phase != WL_PH_OVER)
                continue;
            if (kept == share) {
                /* The first FIXED (the set-ups) stay; of the rest, every
                 * other goes. */
                for (int k = FIXED; FIXED + 2 * (k - FIXED) < share; k++)
                    mine[k] = mine[FIXED + 2 * (k - FIXED)];
                kept = FIXED + (share - FIXED + 1) / 2;
                every *= 2;
            }
            mine[kept++] = *g;
        }
        npositions += kept;
    }
    int phases = 0, last_turn = 0;
    for (int i = 0; i < npositions; i++) {
        phases |= 1 << positions[i].phase;
        if (positions[i].turn > last_turn)
            last_turn = positions[i].turn;
    }
    fprintf(stderr, "fuzz_command: %d positions of %s, every %d commands, turns 1-%d, "
            "phases 0x%x\n", npositions, FUZZ_SCENARIO, every, last_turn, (unsigned)phases);
    const char *dir = getenv("FUZZ_COMMAND_SEEDS");
    if (dir) {
        wr_prng_seed(&rng, 99);
        for (int i = 0; i < npositions; i += 8)
            write_seed(dir, i, &rng, reach, cmd);
    }
    free(ev);
    free(cmd);
    free(reach);
    free(g);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || npositions == 0)
        return 0;
    json_t *j = json_loadb((const char *)data + 1, size - 1, 0, NULL);
    if (j == NULL)
        return 0;
    struct wl_game *g = malloc(sizeof *g);
    if (g == NULL)
        abort();
    for (int side = 0; side < 2; side++) {
        *g = positions[data[0] % npositions];
        json_t *before = wl_game_state_json(g), *events = NULL;
        struct wr_refusal why;
        enum wl_reason r = wl_game_apply_json(g, side, j, &events, &why);
        json_t *after = wl_game_state_json(g);
        if (r != WL_R_OK && !json_equal(before, after))
            abort();    /* a refusal changed the game */
        if (r == WL_R_OK && wl_game_check(g, &why) != 0)
            abort();    /* an accepted command broke an invariant */
        json_decref(before);
        json_decref(after);
        json_decref(events);
    }
    json_decref(j);
    free(g);
    return 0;
}
