/*
 * main.c - warroom, the terminal client: option parsing and the table of
 * sub-commands.
 */
#include "commands.h"
#include "warroom_version.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd_render.h"

struct command {
    const char *name;
    const char *args;
    const char *summary;
    int (*run)(int argc, char **argv);
};

/* Sub-commands land here as they are built (see docs/ and the README). */
static const struct command commands[] = {
    { "render", WR_CLI_RENDER_ARGS, WR_CLI_RENDER_SUMMARY, wr_cli_render },
    { "replay", "[-k] FILE", "replay a game record offline and verify its dice", wrc_cmd_replay },
    { "campaign-map", WRC_CAMPAIGN_MAP_ARGS, WRC_CAMPAIGN_MAP_SUMMARY, wrc_cmd_campaign_map },
    { NULL, NULL, NULL, NULL },
};

static void usage(FILE *out)
{
    fprintf(out,
        "usage: warroom [options] <command> [args]\n"
        "\n"
        "The Warroom terminal client.\n"
        "\n"
        "options:\n"
        "  -s, --server URL   server to talk to (WARROOM_SERVER), default ws://127.0.0.1:8080/\n"
        "      --json         print results as JSON lines, for scripts\n"
        "  -h, --help         print this help and exit\n"
        "  -V, --version      print the version and exit\n"
        "\n"
        "commands:\n");
    int n = 0;
    for (const struct command *c = commands; c->name; c++, n++) {
        if (strlen(c->args) <= 20)
            fprintf(out, "  %-10s %-20s %s\n", c->name, c->args, c->summary);
        else    /* long argument lists get a line of their own */
            fprintf(out, "  %-10s %s\n  %-10s %s\n", c->name, c->args, "", c->summary);
    }
    if (n == 0)
        fprintf(out, "  (none yet in this version)\n");
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "server", required_argument, NULL, 's' },
        { "json", no_argument, NULL, 'j' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 },
    };
    int opt;
    while ((opt = getopt_long(argc, argv, "+s:hV", longopts, NULL)) != -1) {
        switch (opt) {
        case 'h':
            usage(stdout);
            return 0;
        case 'V':
            printf("warroom %s (protocol %d)\n", WARROOM_VERSION, WARROOM_PROTOCOL_VERSION);
            return 0;
        case 's':
        case 'j':
            break;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind >= argc) {
        usage(stderr);
        return 2;
    }
    for (const struct command *c = commands; c->name; c++)
        if (strcmp(c->name, argv[optind]) == 0)
            return c->run(argc - optind, argv + optind);
    fprintf(stderr, "warroom: unknown command '%s' (see warroom --help)\n", argv[optind]);
    return 2;
}
