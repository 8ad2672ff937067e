/*
 * replay.c - `warroom replay FILE`: replay a game record offline with the
 * rules library, verify its dice when the seed is present, and print one
 * JSON line per command and the final state.
 */
#include "commands.h"

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "waterloo_record.h"
#include "scenarios.h"

static void print_line(void *ctx, int n, enum wl_reason r, const struct wr_refusal *why,
                       const json_t *events)
{
    (void)ctx;
    json_t *o = r == WL_R_OK
                    ? json_pack("{s:i, s:b, s:O}", "n", n, "ok", 1, "events", events)
                    : json_pack("{s:i, s:b, s:s, s:s}", "n", n, "ok", 0, "error",
                                why->code, "message", why->message);
    char *s = json_dumps(o, JSON_COMPACT);
    if (s)
        puts(s);
    free(s);
    json_decref(o);
}

int wrc_cmd_replay(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "keep-going", no_argument, NULL, 'k' },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int keep_going = 0, quiet = 0, opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "kqh", longopts, NULL)) != -1) {
        switch (opt) {
        case 'k':
            keep_going = 1;
            break;
        case 'q':
            quiet = 1;
            break;
        case 'h':
            printf("usage: warroom replay [--keep-going] [--quiet] FILE|-\n\n"
                   "Replay a game record offline; with its seed, verify every die roll.\n"
                   "Prints {\"n\",\"ok\",\"events\"} or {\"n\",\"ok\":false,\"error\",\"message\"}\n"
                   "per command, then {\"state\": final state}.\n"
                   "  -k, --keep-going   report refused commands and go on\n"
                   "  -q, --quiet        print only the final state\n"
                   "Scenarios named in the record are found in $WARROOM_SCENARIOS,\n"
                   "./scenarios or the installed share directory.\n");
            return 0;
        default:
            return 2;
        }
    }
    if (optind + 1 != argc) {
        fprintf(stderr, "warroom replay: give exactly one record file (or - for stdin)\n");
        return 2;
    }
    size_t len;
    char *text = wrc_slurp(argv[optind], (size_t)256 << 20, &len);
    if (text == NULL) {
        fprintf(stderr, "warroom replay: cannot read %s\n", argv[optind]);
        return 1;
    }
    struct wl_replay_opts o = { wrc_scenario_resolve, NULL, keep_going,
                                quiet ? NULL : print_line, NULL };
    struct wr_refusal why;
    json_t *state = NULL;
    int rc = wl_replay(text, len, &o, &state, &why);
    free(text);
    if (rc != 0) {
        fprintf(stderr, "warroom replay: %s\n", why.message);
        return 1;
    }
    json_t *out = json_pack("{s:o}", "state", state);
    char *s = json_dumps(out, JSON_COMPACT | JSON_SORT_KEYS);
    puts(s);
    free(s);
    json_decref(out);
    return 0;
}
