/*
 * fuzz_record.c - libFuzzer target for the game-record reader: any bytes
 * are replayed as a record (scenarios resolved from scenarios/); the
 * replay must fail cleanly or succeed, never crash or leak.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "record.h"

#ifndef WARROOM_SCENARIO_DIR
#error "WARROOM_SCENARIO_DIR must be defined by the build"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static json_t *resolve(const char *name, void *ctx)
{
    (void)ctx;
    if (strcmp(name, "test/small") != 0)    /* never open arbitrary paths */
        return NULL;
    return json_load_file(WARROOM_SCENARIO_DIR "/test/small.json", 0, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct wr_replay_opts o = { resolve, NULL, (int)(size & 1), NULL, NULL };
    struct wr_refusal why;
    json_t *st = NULL;
    wr_replay((const char *)data, size, &o, &st, &why);
    json_decref(st);
    return 0;
}
