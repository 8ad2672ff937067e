/*
 * fuzz_record.c - libFuzzer target for the game-record reader: any bytes
 * are replayed as a record (scenarios resolved from scenarios/); the
 * replay must fail cleanly or succeed, never crash or leak.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "waterloo_record.h"

#ifndef WARROOM_SCENARIO_DIR
#error "WARROOM_SCENARIO_DIR must be defined by the build"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static json_t *resolve(const char *name, void *ctx)
{
    /* Read once: the loader only reads it, and releases its reference. */
    static json_t *small;
    (void)ctx;
    if (strcmp(name, "test/small") != 0)    /* never open arbitrary paths */
        return NULL;
    if (small == NULL)
        small = json_load_file(WARROOM_SCENARIO_DIR "/test/small.json", 0, NULL);
    return json_incref(small);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct wl_replay_opts o = { resolve, NULL, (int)(size & 1), NULL, NULL };
    struct wr_refusal why;
    json_t *st = NULL;
    memset(&why, 0, sizeof why);
    int rc = wl_replay((const char *)data, size, &o, &st, &why);
    /* Success gives a state object; failure gives no state and a reason a
     * person can read (it ends up in `warroom replay`'s output). */
    if (rc == 0 && !json_is_object(st))
        abort();
    if (rc != 0 && (rc != -1 || st != NULL || why.message[0] == '\0' ||
                    memchr(why.message, '\0', sizeof why.message) == NULL))
        abort();
    json_decref(st);
    return 0;
}
