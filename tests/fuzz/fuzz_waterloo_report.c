/*
 * fuzz_waterloo_report.c - libFuzzer target for Waterloo's game report
 * (present.h's draw_report, common/rulesets/waterloo/waterloo_report.c):
 * its steps are outside input (a record's commands and events, read from a
 * file anyone may hand over).
 *
 * At start-up a game of the small test scenario is played by the ruleset's
 * random player for up to COMMANDS commands; the view takes its final
 * state. An input is the JSON text of a steps array. draw_report must
 * return 0 with one HTML document (from "<!DOCTYPE html>" to "</html>\n",
 * no "<script": names and ids from the steps are escaped) when the input
 * is an array of {"seat":string,"cmd":object,"events":array}, and -1 for
 * anything else.
 *
 * FUZZ_REPORT_SEEDS=DIR writes the seeds at start-up (the game's steps,
 * whole and in parts): that is how the committed seed corpus was made.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "present.h"
#include "prng.h"
#include "ruleset.h"

#ifndef FUZZ_SCENARIO
#error "FUZZ_SCENARIO (a scenario file) must be defined by the build"
#endif

#define COMMANDS 160

extern const struct wr_ruleset wr_ruleset_waterloo;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct wr_view *view;

/* Are these steps as present.h says? */
static int steps_ok(const json_t *steps)
{
    size_t i;
    json_t *s;
    if (!json_is_array(steps))
        return 0;
    json_array_foreach(steps, i, s)
        if (!json_is_object(s) || !json_is_string(json_object_get(s, "seat")) ||
            !json_is_object(json_object_get(s, "cmd")) ||
            !json_is_array(json_object_get(s, "events")))
            return 0;
    return 1;
}

static void write_seed(const char *dir, const char *name, const json_t *steps)
{
    char path[1024], *text = json_dumps(steps, JSON_COMPACT);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = text ? fopen(path, "wb") : NULL;
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    free(text);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const struct wr_ruleset *rs = &wr_ruleset_waterloo;
    struct wr_refusal why;
    json_t *scenario = json_load_file(FUZZ_SCENARIO, 0, NULL);
    static const uint8_t dice[32] = { 7 };
    struct wr_game *game = scenario ? rs->create(scenario, NULL, "fuzz", dice, NULL, &why) : NULL;
    if (game == NULL) {
        fprintf(stderr, "fuzz_waterloo_report: cannot start a game of %s\n", FUZZ_SCENARIO);
        abort();
    }
    struct wr_prng rng;
    wr_prng_seed(&rng, 11);
    json_t *steps = json_array();
    for (int n = 0; n < COMMANDS; n++) {
        const char *seat = wr_game_awaited(game);
        json_t *cmd = seat ? rs->autoplay(game, seat, &rng) : NULL, *events = NULL;
        if (cmd == NULL)
            break;
        if (rs->apply(game, seat, cmd, &events, &why) != 0)
            abort();    /* the random player proposed an illegal command */
        json_array_append_new(steps, json_pack("{s:s, s:o, s:o}", "seat", seat, "cmd", cmd,
                                               "events", events));
    }
    json_t *state = rs->project(game, NULL);
    view = rs->present->open(rs, scenario, NULL, NULL, NULL, &why);
    if (view == NULL || rs->present->update(view, state, &why) != 0)
        abort();
    const char *dir = getenv("FUZZ_REPORT_SEEDS");
    if (dir) {
        write_seed(dir, "whole", steps);
        size_t n = json_array_size(steps);
        for (size_t part = 0; part < 4; part++) {
            json_t *slice = json_array();
            for (size_t i = part * n / 4; i < (part + 1) * n / 4; i++)
                json_array_append(slice, json_array_get(steps, i));
            char name[16];
            snprintf(name, sizeof name, "part%zu", part);
            write_seed(dir, name, slice);
            json_decref(slice);
        }
    }
    json_decref(steps);
    json_decref(state);
    rs->destroy(game);
    json_decref(scenario);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *steps = json_loadb((const char *)data, size, 0, NULL);
    if (steps == NULL)
        return 0;
    struct wr_strbuf out;
    wr_strbuf_init(&out);
    int rc = view->pr->draw_report(view, steps, &out);
    if (rc != (steps_ok(steps) ? 0 : -1))
        abort();        /* steps taken that are not steps, or refused that are */
    if (rc == 0 && (out.len < 16 || strncmp(out.s, "<!DOCTYPE html>\n", 16) != 0 ||
                    strcmp(out.s + out.len - 8, "</html>\n") != 0 || strstr(out.s, "<script")))
        abort();        /* not one document, or text from the steps not escaped */
    wr_strbuf_release(&out);
    json_decref(steps);
    return 0;
}
