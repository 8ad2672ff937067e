/*
 * main.c - warroom, the terminal client: option parsing and the table of
 * sub-commands.
 */
#include "commands.h"
#include "warroom_version.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "client.h"
#include "cmd_render.h"

struct command {
    const char *name;
    const char *args;
    const char *summary;
    int (*run)(int argc, char **argv);                              /* offline */
    int (*run_client)(const struct wrc_opts *o, int argc, char **argv);  /* talks to a server */
};

static const struct command commands[] = {
    { "play", "GAME", "play a game interactively: board, line editing, completion", NULL,
      wrc_cmd_play },
    { "watch", "GAME", "watch a game interactively (a spectator cannot act)", NULL,
      wrc_cmd_watch },
    { "new", "[--ruleset R] [--scenario S] [--option K=V]... ...",
      "create a game; prints the invite codes for the other players (help new: the rulesets)",
      NULL, wrc_cmd_new },
    { "create", "[RULESET] --parent GAME ...",
      "the same as new; with --parent, play part of GAME (a campaign's battle) as a game",
      NULL, wrc_cmd_new },
    { "claim", "[--mail ADDR] INVITE", "take the seat an invite is for", NULL, wrc_cmd_claim },
    { "status", "GAME", "where a game stands, and its board", NULL, wrc_cmd_status },
    { "do", "GAME 'COMMAND'", "send one command for your seat (checked here first)", NULL,
      wrc_cmd_do },
    { "wait", "[--timeout S] GAME", "block until it is your decision", NULL, wrc_cmd_wait },
    { "export", "GAME", "print the game record (NDJSON)", NULL, wrc_cmd_export },
    { "games", "[--all]", "list your games on the server", NULL, wrc_cmd_games },
    { "notify", "GAME --mail ADDR | --no-mail | --confirm CODE",
      "how the server tells your seat it is your decision: a mail address, a webhook",
      NULL, wrc_cmd_notify },
    { "mail-in", "< MESSAGE", "play the orders of a reply to a game's mail (for an MTA's pipe)",
      NULL, wrc_cmd_mail_in },
    { "render", WR_CLI_RENDER_ARGS, WR_CLI_RENDER_SUMMARY, wr_cli_render, NULL },
    { "replay", "[-k] [--json] FILE", "check a game record of any ruleset offline, its dice too",
      wrc_cmd_replay, NULL },
    { NULL, NULL, NULL, NULL, NULL },
};

static void usage(FILE *out)
{
    fprintf(out,
        "usage: warroom [options] <command> [args]\n"
        "\n"
        "The Warroom terminal client.\n"
        "\n"
        "options:\n"
        "  -s, --server URL   server to talk to, default: the game's, else $WARROOM_SERVER,\n"
        "                     else the config's \"server\", else ws://127.0.0.1:8080/\n"
        "      --json         print the server's answer as one JSON line, for scripts\n"
        "  -h, --help         print this help and exit\n"
        "  -V, --version      print the version and exit\n"
        "\n"
        "Seat tokens and servers are kept in $XDG_CONFIG_HOME/warroom/config.json\n"
        "(~/.config/warroom/config.json), mode 0600. One-shot commands exit 0 on success,\n"
        "1 when refused, 2 on usage errors, 3 on connection errors (mail-in, for MTAs:\n"
        "0, 64, 65, 75, as warroom help mail-in says).\n"
        "\n"
        "Play by email: 'new --mail ADDR', 'claim --mail ADDR INVITE' or 'notify GAME\n"
        "--mail ADDR' give your seat a mail address (confirmed once, by a code mailed to\n"
        "it); the game's mails then carry the board, your decision and the orders you may\n"
        "reply with, and a reply piped to 'warroom mail-in' by the server's MTA plays them.\n"
        "\n"
        "commands (warroom help COMMAND, or warroom COMMAND --help, for each):\n");
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
    struct wrc_opts o = { NULL, 0 };
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
            o.server = optarg;
            break;
        case 'j':
            o.json = 1;
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
    /* warroom help [COMMAND]: COMMAND --help */
    char help_arg[] = "--help";
    char *help_argv[3];
    if (strcmp(argv[optind], "help") == 0) {
        if (optind + 1 >= argc) {
            usage(stdout);
            return 0;
        }
        help_argv[0] = argv[optind + 1];
        help_argv[1] = help_arg;
        help_argv[2] = NULL;
        argv = help_argv;
        argc = 2;
        optind = 0;
    }
    for (const struct command *c = commands; c->name; c++)
        if (strcmp(c->name, argv[optind]) == 0)
            return c->run ? c->run(argc - optind, argv + optind)
                          : c->run_client(&o, argc - optind, argv + optind);
    fprintf(stderr, "warroom: unknown command '%s' (see warroom --help)\n", argv[optind]);
    return 2;
}
