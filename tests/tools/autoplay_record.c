/*
 * autoplay_record.c - write the game record (common/core/record.h) of a game
 * the ruleset's autoplayer plays against itself, with a fixed dice seed and
 * a fixed seed for the autoplayer's choices: the same arguments give the
 * same record, byte for byte. tests/golden/waterloo-1815-autoplay.ndjson is
 * made with it (tests/CMakeLists.txt says how, and checks it stays so).
 *
 *   autoplay_record RULESET SCENARIO_NAME SCENARIO_FILE GAME_ID SEED MAX_TURNS OUT
 *
 * SCENARIO_FILE "-" plays a ruleset that needs no scenario (the battle): the
 * record's scenario is then "" (none) whatever SCENARIO_NAME says.
 * tests/golden/battle-autoplay.ndjson is made so.
 *
 * SEED is a number: the dice seed is its 8 bytes (little-endian) followed
 * by zeros, and the autoplayer's generator is seeded with it too. The game
 * stops when it is over, or before the first command of turn MAX_TURNS + 1
 * (read from the public state's "turn"), or after a bound of commands.
 * OUT "-" is stdout.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prng.h"
#include "record.h"
#include "ruleset.h"

#define MAX_COMMANDS 200000

static json_t *no_base(void *ctx, const char *name)
{
    (void)ctx;
    (void)name;
    return NULL;
}

/* The public state's turn, or -1 when it has none. */
static long turn_of(const struct wr_game *g)
{
    json_t *st = g->rs->project(g, NULL);
    json_t *t = json_object_get(st, "turn");
    long turn = json_is_integer(t) ? (long)json_integer_value(t) : -1;
    json_decref(st);
    return turn;
}

/* A command line as the server writes it (server/games.c record_line). */
static int write_line(FILE *f, const char *seat, const json_t *cmd, const json_t *events)
{
    json_t *line = json_object(), *rolls = json_array();
    json_object_set_new(line, "seat", json_string(seat));
    json_object_set(line, "cmd", (json_t *)cmd);
    size_t i;
    json_t *e;
    json_array_foreach(events, i, e) {
        const char *type = json_string_value(json_object_get(e, "type"));
        if (type && strcmp(type, "roll") == 0)
            json_array_append_new(rolls, json_pack("[OO]", json_object_get(e, "k"),
                                                   json_object_get(e, "face")));
    }
    if (json_array_size(rolls))
        json_object_set(line, "rolls", rolls);
    json_decref(rolls);
    char *s = json_dumps(line, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(line);
    int rc = s && fprintf(f, "%s\n", s) > 0 ? 0 : -1;
    free(s);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 8) {
        fprintf(stderr, "usage: autoplay_record RULESET SCENARIO_NAME SCENARIO_FILE GAME_ID "
                        "SEED MAX_TURNS OUT\n");
        return 2;
    }
    const struct wr_ruleset *rs = wr_ruleset_find(argv[1]);
    if (rs == NULL || rs->autoplay == NULL) {
        fprintf(stderr, "autoplay_record: no ruleset '%s' with an autoplayer\n", argv[1]);
        return 2;
    }
    json_error_t je;
    int no_scenario = strcmp(argv[3], "-") == 0;
    json_t *scen = no_scenario ? NULL : json_load_file(argv[3], JSON_REJECT_DUPLICATES, &je);
    if (scen == NULL && !no_scenario) {
        fprintf(stderr, "autoplay_record: %s:%d: %s\n", argv[3], je.line, je.text);
        return 1;
    }
    unsigned long long seed_n = strtoull(argv[5], NULL, 10);
    long max_turns = strtol(argv[6], NULL, 10);
    uint8_t seed[32] = { 0 };
    for (int i = 0; i < 8; i++)
        seed[i] = (uint8_t)(seed_n >> (8 * i));
    struct wr_host host = { NULL, no_base, NULL };
    struct wr_refusal why;
    /* A new game's options, as the server makes them: the newest rules,
     * written into the header so that a replay plays by them too. */
    json_t *opts = wr_game_options(rs, NULL, 1);
    struct wr_game *g = opts ? rs->create(scen, opts, argv[4], seed, &host, &why) : NULL;
    if (g == NULL) {
        fprintf(stderr, "autoplay_record: %s\n", opts ? why.message : "out of memory");
        json_decref(opts);
        json_decref(scen);
        return 1;
    }
    FILE *f = strcmp(argv[7], "-") == 0 ? stdout : fopen(argv[7], "wb");
    if (f == NULL) {
        fprintf(stderr, "autoplay_record: cannot write '%s': %s\n", argv[7], strerror(errno));
        return 1;
    }
    char *header = wr_record_header(argv[4], rs->name, no_scenario ? "" : argv[2], NULL, opts,
                                    seed);
    int rc = header && fprintf(f, "%s\n", header) > 0 ? 0 : 1;
    free(header);
    struct wr_prng rng;
    wr_prng_seed(&rng, (uint64_t)seed_n);
    for (int n = 0; rc == 0 && n < MAX_COMMANDS; n++) {
        const char *seat = wr_game_awaited(g);
        if (seat == NULL || turn_of(g) > max_turns)
            break;
        json_t *cmd = rs->autoplay(g, seat, &rng), *events = NULL;
        if (cmd == NULL) {
            fprintf(stderr, "autoplay_record: no command for %s\n", seat);
            rc = 1;
            break;
        }
        if (rs->apply(g, seat, cmd, &events, &why) != 0) {
            fprintf(stderr, "autoplay_record: the autoplayer's command was refused: %s\n",
                    why.message);
            rc = 1;
        } else if (write_line(f, seat, cmd, events) != 0) {
            rc = 1;
        }
        json_decref(cmd);
        json_decref(events);
    }
    if (f != stdout && fclose(f) != 0)
        rc = 1;
    const char *result = rs->result(g);
    fprintf(stderr, "autoplay_record: stopped at turn %ld, %s\n", turn_of(g),
            result ? result : "the game still running");
    rs->destroy(g);
    json_decref(opts);
    json_decref(scen);
    return rc;
}
