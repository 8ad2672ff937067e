/*
 * fuzz_record.c - libFuzzer target for the game-record parser and replayer
 * of every ruleset (common/core/record.h): any bytes are replayed as a
 * record (the scenarios test/small and campaign/ancient-world resolved
 * from scenarios/, by name or as a base); the replay must fail cleanly or
 * succeed, never crash, leak or break a ruleset's invariants (the fuzz
 * build is a Debug build: wr_game_apply() checks them after every
 * command).
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "ruleset.h"

#ifndef WARROOM_SCENARIO_DIR
#error "WARROOM_SCENARIO_DIR must be defined by the build"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static json_t *resolve(const char *name, void *ctx)
{
    /* Read once: the rulesets only read them, and release their reference. */
    static const char *const names[] = { "test/small", "campaign/ancient-world" };
    static json_t *loaded[2];
    (void)ctx;
    for (int i = 0; i < 2; i++) {
        if (strcmp(name, names[i]) != 0)    /* never open arbitrary paths */
            continue;
        if (loaded[i] == NULL) {
            char path[512];
            snprintf(path, sizeof path, "%s/%s.json", WARROOM_SCENARIO_DIR, names[i]);
            loaded[i] = json_load_file(path, 0, NULL);
        }
        return json_incref(loaded[i]);
    }
    return NULL;
}

/* Every line reported says what the replayer promises. */
static void on_line(void *ctx, int n, const char *seat, const json_t *cmd, int verdict,
                    const struct wr_refusal *why, const json_t *events)
{
    int *last = ctx;
    if (n <= *last || seat == NULL || !json_is_object(cmd) || (verdict == 0) != (why == NULL) ||
        (verdict == 0) != json_is_array(events) || (why != NULL && why->code == NULL))
        abort();
    *last = n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int last = 1;
    struct wr_record_opts o = { wr_ruleset_find, resolve, NULL, (int)(size & 1), on_line, &last };
    struct wr_record_result res;
    struct wr_refusal why;
    memset(&why, 0, sizeof why);
    int rc = wr_record_replay((const char *)data, size, &o, &res, &why);
    if (rc == 0) {
        /* A game at the end of the record, and every view of it. */
        if (res.game == NULL || res.rs == NULL || res.accepted < 0 || res.refused < 0 ||
            res.dice < 0 || (res.refused > 0 && !o.keep_going) || (res.dice > 0 && !res.has_seed))
            abort();
        const char *const *seats = res.rs->seats(res.game);
        for (int i = -1; i < 0 || seats[i]; i++) {
            json_t *st = res.rs->project(res.game, i < 0 ? NULL : seats[i]);
            if (!json_is_object(st))
                abort();
            json_decref(st);
        }
    } else {
        /* No game, and a reason a person can read (it ends up in `warroom
         * replay`'s output). */
        if (rc < WR_RECORD_ENOMEM || rc > WR_RECORD_EBAD || res.game != NULL ||
            why.code == NULL || why.message[0] == '\0' ||
            memchr(why.message, '\0', sizeof why.message) == NULL ||
            strncmp(why.message, "line ", 5) != 0)
            abort();
    }
    wr_record_result_release(&res);
    return 0;
}
