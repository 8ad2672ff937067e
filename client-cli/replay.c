/*
 * replay.c - `warroom replay FILE`: check a game record of any ruleset
 * offline with the rules library (common/core/record.h): every command
 * replayed through its ruleset, every die verified when the record holds
 * the seed. Prints a verdict line, the refused commands and, with --json,
 * the final public state.
 */
#include "commands.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "ruleset.h"
#include "scenarios.h"
#include "strbuf.h"

#define RECORD_MAX ((size_t)256 << 20)

static void usage(FILE *out)
{
    fprintf(out,
        "usage: warroom replay [--keep-going] [--json] FILE|-\n"
        "\n"
        "Replay a game record (NDJSON, as `warroom export` prints it) of any ruleset\n"
        "offline, through the rules the server referees with. When the record holds\n"
        "the seed (the game is over) every die roll is derived again and checked;\n"
        "without it (a game still running) the recorded rolls are used.\n"
        "\n"
        "Prints one verdict line:\n"
        "  record checked: N commands, M dice verified, result R\n"
        "N commands accepted (then \"K refused\" when --keep-going skipped some), M rolls\n"
        "checked against the seed, R the winning seat, \"draw\" or \"still running\";\n"
        "then each refused command as \"line L: CODE: MESSAGE\", and with --json the\n"
        "final public state as one JSON line.\n"
        "  -k, --keep-going   report refused commands and go on\n"
        "  -j, --json         print the final public state after the verdict\n"
        "  -h, --help         print this help\n"
        "\n"
        "Exit status: 0 when every command was accepted and every roll matched; 1 when\n"
        "a command was refused (with --keep-going too), a roll differs, the record is\n"
        "not valid or cannot be read; 2 on usage errors.\n"
        "Scenarios a record names are found as `warroom render --help` says.\n");
}

/* The refused lines, one "line L: CODE: MESSAGE" each, printed after the
 * verdict. */
static void note_refusal(void *ctx, int n, const char *seat, const json_t *cmd, int verdict,
                         const struct wr_refusal *why, const json_t *events)
{
    struct wr_strbuf *b = ctx;
    (void)seat;
    (void)cmd;
    (void)events;
    if (verdict != 0)
        wr_strbuf_printf(b, "line %d: %s: %s\n", n, why->code, why->message);
}

int wrc_cmd_replay(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "keep-going", no_argument, NULL, 'k' },
        { "json", no_argument, NULL, 'j' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int keep_going = 0, json = 0, opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "kjh", longopts, NULL)) != -1) {
        switch (opt) {
        case 'k':
            keep_going = 1;
            break;
        case 'j':
            json = 1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            fprintf(stderr, "usage: warroom replay [--keep-going] [--json] FILE|- "
                            "(--help for more)\n");
            return 2;
        }
    }
    if (optind + 1 != argc) {
        fprintf(stderr, "warroom replay: give exactly one record file (or - for stdin)\n");
        return 2;
    }
    size_t len;
    char *text = wrc_slurp(argv[optind], RECORD_MAX, &len);
    if (text == NULL) {
        fprintf(stderr, "warroom replay: cannot read %s: %s\n", argv[optind],
                errno == EFBIG ? "larger than 256 MiB" : strerror(errno));
        return 1;
    }
    struct wr_strbuf refused;
    wr_strbuf_init(&refused);
    struct wr_record_opts o = { wr_ruleset_find, wrc_scenario_resolve, NULL, keep_going,
                                note_refusal, &refused };
    struct wr_record_result res;
    struct wr_refusal why;
    int rc = wr_record_replay(text, len, &o, &res, &why);
    free(text);
    if (rc == 0) {
        printf("record checked: %d commands, ", res.accepted);
        if (res.refused > 0)
            printf("%d refused, ", res.refused);
        printf("%d dice verified, result %s\n", res.dice,
               res.result ? res.result : "still running");
    }
    if (refused.len > 0)
        fputs(refused.s, stdout);
    int status = rc != 0 || res.refused > 0 ? 1 : 0;
    if (rc == 0 && json) {
        json_t *st = res.rs->project(res.game, NULL);
        char *s = st ? json_dumps(st, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
        if (s != NULL)
            puts(s);
        else
            fprintf(stderr, "warroom replay: out of memory\n");
        status |= s == NULL;
        free(s);
        json_decref(st);
    }
    if (rc == WR_RECORD_EREFUSED)
        fprintf(stderr, "warroom replay: stopped at the first refused command "
                        "(--keep-going replays the rest)\n");
    else if (rc != 0)
        fprintf(stderr, "warroom replay: %s\n", why.message);
    wr_strbuf_release(&refused);
    wr_record_result_release(&res);
    return status;
}
