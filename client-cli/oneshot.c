/*
 * oneshot.c - the one-shot commands, for correspondence play and scripts:
 *
 *   warroom new [--ruleset R] [--scenario S] [--seat SEAT] ...
 *   warroom claim INVITE | --game GAME --seat SEAT
 *   warroom status GAME
 *   warroom do GAME 'ORDER'            (an order of the game's view, or JSON)
 *   warroom wait GAME [--timeout SECONDS]
 *   warroom export GAME [--output FILE]
 *   warroom games [--all]
 *   warroom notify GAME [--mail ADDR | --no-mail] [--confirm CODE] ...
 *   warroom mail-in < MESSAGE          (for an MTA: exit codes of sysexits.h)
 *
 * Each connects, does one thing and exits: 0 success, 1 refused (the reason
 * code and sentence printed), 2 usage, 3 connection (mail-in: 0, 64, 65,
 * 75, as its help says). --json prints the server's answer as one JSON line
 * instead of sentences. Tokens never reach stdout: they are kept in the
 * config file (config.h).
 */
#include "commands.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "client.h"
#include "mailmsg.h"
#include "strbuf.h"

/* --- options ------------------------------------------------------------------------ */

struct extra {
    const char *name;
    int has_arg;
    const char **value;         /* has_arg */
    int *flag;                  /* !has_arg */
    json_t *all;                /* has_arg, repeatable: every value appended (may be NULL) */
};

/* Parse --server, --json, --help and the command's extras; positional
 * arguments are left in argv[optind..]. Returns 0, 1 for --help (usage
 * printed), or WRC_EXIT_USAGE. */
static int parse(const char *cmd, const char *usage, struct wrc_opts *o, const struct extra *ex,
                 int argc, char **argv)
{
    struct option longopts[16];
    int n = 0;
    longopts[n++] = (struct option){ "server", required_argument, NULL, 's' };
    longopts[n++] = (struct option){ "json", no_argument, NULL, 'j' };
    longopts[n++] = (struct option){ "help", no_argument, NULL, 'h' };
    for (int i = 0; ex && ex[i].name && n < 15; i++)
        longopts[n++] = (struct option){ ex[i].name, ex[i].has_arg ? required_argument
                                                                   : no_argument, NULL,
                                         256 + i };
    longopts[n] = (struct option){ NULL, 0, NULL, 0 };
    optind = 0;
    opterr = 0;
    int opt;
    while ((opt = getopt_long(argc, argv, ":s:h", longopts, NULL)) != -1) {
        switch (opt) {
        case 's':
            o->server = optarg;
            break;
        case 'j':
            o->json = 1;
            break;
        case 'h':
            printf("usage: warroom %s %s\n", cmd, usage);
            return 1;
        case ':':
            fprintf(stderr, "warroom %s: %s needs a value\n", cmd, argv[optind - 1]);
            return WRC_EXIT_USAGE;
        case '?':
            fprintf(stderr, "warroom %s: unknown option '%s'\nusage: warroom %s %s\n", cmd,
                    argv[optind - 1], cmd, usage);
            return WRC_EXIT_USAGE;
        default:
            if (ex[opt - 256].all)
                json_array_append_new(ex[opt - 256].all, json_string(optarg));
            else if (ex[opt - 256].has_arg)
                *ex[opt - 256].value = optarg;
            else
                *ex[opt - 256].flag = 1;
        }
    }
    return 0;
}

static int positional(const char *cmd, const char *usage, int argc, char **argv, int want)
{
    if (argc - optind != want) {
        fprintf(stderr, "warroom %s: %s\nusage: warroom %s %s\n", cmd,
                argc - optind < want ? "missing argument" : "too many arguments", cmd, usage);
        return WRC_EXIT_USAGE;
    }
    return 0;
}

/* --- output ------------------------------------------------------------------------- */

static void print_json(const json_t *j)
{
    char *s = json_dumps(j, JSON_COMPACT);
    if (s)
        puts(s);
    free(s);
    fflush(stdout);
}

/* The server's answer without secrets and without our request id. */
static void print_answer(json_t *a)
{
    json_t *c = json_deep_copy(a);
    json_object_del(c, "token");
    json_object_del(c, "id");
    print_json(c);
    json_decref(c);
}

static int print_error(const json_t *e, int json, const char *prefix)
{
    if (json) {
        print_answer((json_t *)e);
    } else {
        printf("%s%s: %s\n", prefix, json_string_value(json_object_get(e, "code")),
               json_string_value(json_object_get(e, "message")));
        fflush(stdout);
    }
    return WRC_EXIT_REFUSED;
}

static int is_type(const json_t *m, const char *type)
{
    const char *t = json_string_value(json_object_get(m, "type"));
    return t && strcmp(t, type) == 0;
}

/* Where the game stands, as its view describes it, and its picture sized
 * to the terminal; the text ends with a newline. */
static void print_status(struct wrc_game *g, struct wrc_view *w)
{
    struct wr_strbuf b;
    wr_strbuf_init(&b);
    const char *scen = json_string_value(json_object_get(json_object_get(w->setup, "scenario"),
                                                         "name"));
    wr_strbuf_printf(&b, "game %s (%s%s%s), version %lld, %s", g->id, g->ruleset,
                     scen ? ", scenario " : "", scen ? scen : "", (long long)g->version,
                     g->status);
    if (g->forfeit[0])
        wr_strbuf_printf(&b, " (%s forfeited on time)", g->forfeit);
    if (g->seat[0])
        wr_strbuf_printf(&b, "; you hold the %s seat", g->seat);
    else
        wr_strbuf_puts(&b, "; you are watching");
    wr_strbuf_puts(&b, "\n");
    /* Linked games: the parent this game is part of, the games of its parts. */
    const json_t *server = json_object_get(g->state, "server");
    const json_t *up = json_object_get(server, "parent");
    if (up)
        wr_strbuf_printf(&b, "part of game %s: %s\n",
                         json_string_value(json_object_get(up, "game")),
                         json_string_value(json_object_get(up, "key")));
    if (json_string_value(json_object_get(up, "refused")))
        wr_strbuf_printf(&b, "not applied there: %s\n",
                         json_string_value(json_object_get(up, "refused")));
    size_t k;
    const json_t *ch;
    json_array_foreach(json_object_get(server, "children"), k, ch) {
        const char *res = json_string_value(json_object_get(ch, "result"));
        wr_strbuf_printf(&b, "%s is played as game %s (%s, %s%s%s)\n",
                         json_string_value(json_object_get(ch, "key")),
                         json_string_value(json_object_get(ch, "game")),
                         json_string_value(json_object_get(ch, "ruleset")),
                         json_string_value(json_object_get(ch, "status")),
                         res ? ", result " : "", res ? res : "");
    }
    w->v->pr->describe(w->v, &b);
    if (b.len > 0 && b.s[b.len - 1] != '\n')
        wr_strbuf_puts(&b, "\n");
    int lines = 0;
    for (size_t i = 0; i < b.len; i++)
        lines += b.s[i] == '\n';
    struct wr_draw_opts d = { 0 };      /* no pan */
    wrc_terminal(&d.cols, &d.rows, &d.color);
    d.rows = d.rows > lines + 6 ? d.rows - lines - 2 : 4;
    wr_strbuf_puts(&b, "\n");
    size_t before = b.len;
    w->v->pr->draw_text(w->v, &d, &b);
    if (b.len > before && b.s[b.len - 1] != '\n')
        wr_strbuf_puts(&b, "\n");
    if (b.s)
        fputs(b.s, stdout);
    fflush(stdout);
    wr_strbuf_release(&b);
}

/* The rulesets this warroom has, from the registry: each with its summary,
 * seats, default scenario and options (for warroom help new). */
static void print_rulesets(FILE *out)
{
    fprintf(out, "\nrulesets (--ruleset; the first is the default):\n");
    for (int i = 0; wr_ruleset_at(i); i++) {
        const struct wr_ruleset *rs = wr_ruleset_at(i);
        fprintf(out, "  %s: %s\n    seats:", rs->name, rs->summary);
        for (int k = 0; rs->default_seats && rs->default_seats[k]; k++)
            fprintf(out, "%s %s", k ? "," : "", rs->default_seats[k]);
        if (rs->options)
            fprintf(out, " (the most; its options may make fewer)");
        fprintf(out, "\n    scenario: %s\n", rs->default_scenario ? rs->default_scenario
                                                                   : rs->needs_scenario
                                                                   ? "(none by default: name one)"
                                                                   : "none needed");
        if (rs->options == NULL || rs->options[0].name == NULL)
            fprintf(out, "    options: none\n");
        for (const struct wr_option *op = rs->options; op && op->name; op++)
            fprintf(out, "%s      --option %s=VALUE: %s\n", op == rs->options ? "    options:\n"
                                                                          : "",
                    op->name, op->help);
    }
    fprintf(out, "\nEvery game also takes the server's options spectators and open_seats (true\n"
                 "or false) and deadline_seconds, as --no-spectators, --open-seats, --deadline.\n");
}

/* "KEY=VALUE" into opts: VALUE as JSON when it is JSON, else as a string.
 * 0, or -1 (the sentence printed). */
static int add_option(json_t *opts, const char *kv)
{
    const char *eq = strchr(kv, '=');
    if (eq == NULL || eq == kv) {
        fprintf(stderr, "warroom new: --option wants KEY=VALUE, not '%s'\n", kv);
        return -1;
    }
    char key[64];
    snprintf(key, sizeof key, "%.*s", (int)(eq - kv < 63 ? eq - kv : 63), kv);
    json_t *v = json_loads(eq + 1, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, NULL);
    json_object_set_new(opts, key, v ? v : json_string(eq + 1));
    return 0;
}

/* A mail address as the client checks it: loosely (an '@', no blank or
 * control character, at most 254 bytes); the server decides. 0, or
 * WRC_EXIT_USAGE with the sentence printed. */
static int check_mail(const char *cmd, const char *addr)
{
    int ok = addr[0] != '\0' && strchr(addr, '@') != NULL && strlen(addr) <= 254;
    for (const char *p = addr; ok && *p; p++)
        ok = (unsigned char)*p > ' ' && *p != 127;
    if (!ok)
        fprintf(stderr, "warroom %s: --mail wants a mail address (NAME@DOMAIN, no blanks), "
                "not '%s'\n", cmd, addr);
    return ok ? 0 : WRC_EXIT_USAGE;
}

/* --- new ------------------------------------------------------------------------------ */

int wrc_cmd_new(const struct wrc_opts *go, int argc, char **argv)
{
    static const char usage[] =
        "[RULESET] [--ruleset NAME] [--scenario NAME] [--seat SEAT] [--deadline SECONDS]\n"
        "                   [--open-seats] [--no-spectators] [--webhook URL] [--mail ADDR]\n"
        "                   [--parent GAME] [--option KEY=VALUE]...\n"
        "Create a game (default: the first ruleset below, its default scenario, the first\n"
        "seat) and print the invite codes to send to the other players. --option sets one\n"
        "of the ruleset's options (repeat it for several); VALUE is read as JSON when it is\n"
        "JSON, else as a string: --option players=3 --option alliances='[[\"p1\",\"p2\"]]'.\n"
        "--parent GAME plays part of GAME (one of your games: its seat's token is used) as\n"
        "a game of its own, such as a campaign's battle: 'warroom create battle --parent\n"
        "GAME'. Its seats are held by the players of GAME, with the same tokens.\n"
        "--mail ADDR: your seat's mails go to ADDR (play by email), once you have confirmed\n"
        "it: the server mails it a code; reply to that mail, or run 'warroom notify GAME\n"
        "--confirm CODE' (warroom help notify, warroom help mail-in).";
    struct wrc_opts o = *go;
    const char *ruleset = wr_ruleset_at(0) ? wr_ruleset_at(0)->name : "", *scenario = NULL,
               *seat = NULL, *deadline = NULL, *webhook = NULL, *parent = NULL, *mail = NULL;
    int open_seats = 0, no_spectators = 0;
    json_t *kvs = json_array();
    const struct extra ex[] = {
        { "ruleset", 1, &ruleset, NULL, NULL }, { "scenario", 1, &scenario, NULL, NULL },
        { "seat", 1, &seat, NULL, NULL }, { "deadline", 1, &deadline, NULL, NULL },
        { "webhook", 1, &webhook, NULL, NULL }, { "open-seats", 0, NULL, &open_seats, NULL },
        { "no-spectators", 0, NULL, &no_spectators, NULL }, { "option", 1, NULL, NULL, kvs },
        { "parent", 1, &parent, NULL, NULL }, { "mail", 1, &mail, NULL, NULL },
        { NULL, 0, NULL, NULL, NULL },
    };
    int rc = parse("new", usage, &o, ex, argc, argv);
    if (rc == 1)
        print_rulesets(stdout);
    if (rc == 0 && argc - optind == 1)
        ruleset = argv[optind++];       /* warroom create battle ... */
    if (rc == 0)
        rc = positional("new", usage, argc, argv, 0);
    if (rc == 0 && mail)
        rc = check_mail("new", mail);
    if (rc) {
        json_decref(kvs);
        return rc == 1 ? 0 : rc;
    }
    /* A ruleset this warroom does not have is the server's to refuse. */
    const struct wr_ruleset *rs = wr_ruleset_find(ruleset);
    if (scenario == NULL && rs)
        scenario = rs->default_scenario;
    json_t *opts = json_pack("{s:b, s:b}", "spectators", !no_spectators, "open_seats",
                             open_seats);
    size_t k;
    json_t *kv;
    json_array_foreach(kvs, k, kv) {
        if (add_option(opts, json_string_value(kv)) != 0) {
            json_decref(kvs);
            json_decref(opts);
            return WRC_EXIT_USAGE;
        }
    }
    json_decref(kvs);
    if (deadline) {
        char *end;
        errno = 0;
        long d = strtol(deadline, &end, 10);
        if (errno || *end || d < 0) {
            fprintf(stderr, "warroom new: --deadline wants seconds (0, or 60 to 2592000)\n");
            json_decref(opts);
            return WRC_EXIT_USAGE;
        }
        json_object_set_new(opts, "deadline_seconds", json_integer(d));
    }
    json_t *msg = json_pack("{s:s, s:s, s:o}", "type", "create", "ruleset", ruleset, "options",
                            opts);
    if (scenario)
        json_object_set_new(msg, "scenario", json_string(scenario));
    if (seat)
        json_object_set_new(msg, "seat", json_string(seat));
    if (webhook)
        json_object_set_new(msg, "webhook", json_string(webhook));
    if (parent)
        json_object_set_new(msg, "parent", json_string(parent));
    if (mail)
        json_object_set_new(msg, "mail", json_string(mail));

    /* A linked game is made by a seat of its parent: this connection joins
     * the parent with the seat's token first, and that token holds the
     * child's seat too. */
    struct wrc_client cl;
    const char *parent_token = NULL;
    if ((rc = wrc_client_init(&cl, &o, parent)) != 0 || (rc = wrc_client_connect(&cl, 0)) != 0) {
        json_decref(msg);
        wrc_client_release(&cl);
        return rc;
    }
    if (parent) {
        parent_token = json_string_value(json_object_get(wrc_config_game(&cl.cfg, parent),
                                                         "token"));
        if (parent_token == NULL) {
            fprintf(stderr, "warroom new: you hold no seat of game %s (no token for it in %s)\n",
                    parent, cl.cfg.path);
            json_decref(msg);
            wrc_client_release(&cl);
            return WRC_EXIT_REFUSED;
        }
        if (wrc_client_join(&cl, parent, 0, &rc) == NULL) {
            json_decref(msg);
            wrc_client_release(&cl);
            return rc;
        }
    }
    int err;
    json_t *a = wrc_client_call(&cl, msg, WRC_TIMEOUT_MS, &err);
    if (a == NULL) {
        rc = wrc_client_conn_error(&cl, "create", err);
    } else if (!is_type(a, "created")) {
        rc = print_error(a, o.json, "the server refused: ");
    } else {
        const char *game = json_string_value(json_object_get(a, "game"));
        const char *myseat = json_string_value(json_object_get(a, "seat"));
        char errs[1400];
        const char *token = parent ? parent_token
                                   : json_string_value(json_object_get(a, "token"));
        json_t *fields = json_pack("{s:s, s:s, s:O, s:s, s:O, s:i}", "server", cl.url.text,
                                   "ruleset", ruleset, "seat", json_object_get(a, "seat"),
                                   "token", token, "invites", json_object_get(a, "invites"),
                                   "seq", 0);
        if (scenario)
            json_object_set_new(fields, "scenario", json_string(scenario));
        if (parent)
            json_object_set(fields, "parent", json_object_get(a, "parent"));
        if (wrc_config_server(&cl.cfg) == NULL)      /* the first server becomes the default */
            wrc_config_set_server(&cl.cfg, cl.url.text, errs, sizeof errs);
        if (wrc_config_set_game(&cl.cfg, game, fields, errs, sizeof errs) != 0) {
            /* Without the token the seat is lost: show it this once. */
            fprintf(stderr, "warroom: %s\nwarroom: your token for game %s is %s: keep it\n",
                    errs, game, token);
            rc = WRC_EXIT_REFUSED;
        }
        json_decref(fields);
        if (o.json) {
            print_answer(a);
        } else {
            printf("created game %s (%s%s%s) on %s\n", game, ruleset,
                   scenario ? ", scenario " : "", scenario ? scenario : "", cl.url.text);
            if (parent)
                printf("it plays %s of game %s; its seats are held by that game's players, "
                       "with their tokens\n", json_string_value(json_object_get(
                           json_object_get(a, "parent"), "key")), parent);
            printf("you hold the %s seat (its token is kept in %s)\n", myseat, cl.cfg.path);
            if (mail)
                printf("a code goes to your mail address: reply to that mail, or run "
                       "warroom notify %s --confirm CODE\n", game);
            printf("send each invite to the player who should take that seat (each works "
                   "once):\n");
            const char *s;
            json_t *inv;
            json_object_foreach(json_object_get(a, "invites"), s, inv)
                printf("  %s: %s\n      they run: warroom --server %s claim %s\n", s,
                       json_string_value(inv), cl.url.text, json_string_value(inv));
        }
    }
    json_decref(a);
    wrc_client_release(&cl);
    return rc;
}

/* --- claim ------------------------------------------------------------------------------ */

int wrc_cmd_claim(const struct wrc_opts *go, int argc, char **argv)
{
    static const char usage[] =
        "[--mail ADDR] [--webhook URL] INVITE | --game GAME --seat SEAT\n"
        "Take the seat an invite is for (or a free seat of a game with open seats).\n"
        "--mail ADDR: the seat's mails go to ADDR (play by email), once you have confirmed\n"
        "it: the server mails it a code; reply to that mail, or run 'warroom notify GAME\n"
        "--confirm CODE' (warroom help notify, warroom help mail-in).";
    struct wrc_opts o = *go;
    const char *game = NULL, *seat = NULL, *webhook = NULL, *mail = NULL;
    const struct extra ex[] = {
        { "game", 1, &game, NULL, NULL }, { "seat", 1, &seat, NULL, NULL },
        { "webhook", 1, &webhook, NULL, NULL }, { "mail", 1, &mail, NULL, NULL },
        { NULL, 0, NULL, NULL, NULL },
    };
    int rc = parse("claim", usage, &o, ex, argc, argv);
    if (rc)
        return rc == 1 ? 0 : rc;
    if (mail && (rc = check_mail("claim", mail)) != 0)
        return rc;
    json_t *msg;
    if (game || seat) {
        if (!game || !seat || (rc = positional("claim", usage, argc, argv, 0)) != 0) {
            fprintf(stderr, "warroom claim: give an INVITE, or both --game and --seat\n");
            return WRC_EXIT_USAGE;
        }
        msg = json_pack("{s:s, s:s, s:s}", "type", "claim", "game", game, "seat", seat);
    } else {
        if ((rc = positional("claim", usage, argc, argv, 1)) != 0)
            return rc;
        msg = json_pack("{s:s, s:s}", "type", "claim", "invite", argv[optind]);
    }
    if (webhook)
        json_object_set_new(msg, "webhook", json_string(webhook));
    if (mail)
        json_object_set_new(msg, "mail", json_string(mail));
    struct wrc_client cl;
    if ((rc = wrc_client_init(&cl, &o, game)) != 0 || (rc = wrc_client_connect(&cl, 0)) != 0) {
        json_decref(msg);
        wrc_client_release(&cl);
        return rc;
    }
    int err;
    json_t *a = wrc_client_call(&cl, msg, WRC_TIMEOUT_MS, &err);
    if (a == NULL) {
        rc = wrc_client_conn_error(&cl, "claim", err);
    } else if (!is_type(a, "claimed")) {
        rc = print_error(a, o.json, "the server refused: ");
    } else {
        const char *id = json_string_value(json_object_get(a, "game"));
        struct wrc_game *g = wrc_track_get(&cl.tr, id, 0);
        char errs[1400];
        json_t *fields = json_pack("{s:s, s:O, s:s, s:i}", "server", cl.url.text, "seat",
                                   json_object_get(a, "seat"), "token",
                                   json_string_value(json_object_get(a, "token")), "seq", 0);
        if (g && g->ruleset[0])
            json_object_set_new(fields, "ruleset", json_string(g->ruleset));
        if (wrc_config_server(&cl.cfg) == NULL)      /* the first server becomes the default */
            wrc_config_set_server(&cl.cfg, cl.url.text, errs, sizeof errs);
        const char *held = json_string_value(json_object_get(wrc_config_game(&cl.cfg, id),
                                                             "seat"));
        if (held && strcmp(held, json_string_value(json_object_get(a, "seat"))) != 0) {
            /* One seat per game in a config: never overwrite the other token. */
            fprintf(stderr, "warroom: this config already holds the %s seat of game %s; "
                    "the %s seat's token is %s: keep it, and play that seat with another "
                    "config (XDG_CONFIG_HOME=DIR warroom ...)\n", held, id,
                    json_string_value(json_object_get(a, "seat")),
                    json_string_value(json_object_get(a, "token")));
            rc = WRC_EXIT_REFUSED;
        } else if (wrc_config_set_game(&cl.cfg, id, fields, errs, sizeof errs) != 0) {
            fprintf(stderr, "warroom: %s\nwarroom: your token for game %s is %s: keep it\n",
                    errs, id, json_string_value(json_object_get(a, "token")));
            rc = WRC_EXIT_REFUSED;
        }
        json_decref(fields);
        if (o.json)
            print_answer(a);
        else
            printf("you hold the %s seat of game %s%s%s%s (its token is kept in %s)\n",
                   json_string_value(json_object_get(a, "seat")), id, g ? " (" : "",
                   g ? g->ruleset : "", g ? ")" : "", cl.cfg.path);
        if (mail && !o.json)
            printf("a code goes to your mail address: reply to that mail, or run "
                   "warroom notify %s --confirm CODE\n", id);
    }
    json_decref(a);
    wrc_client_release(&cl);
    return rc;
}

/* --- status ------------------------------------------------------------------------------ */

/* The state message of g as the server would send it. */
static json_t *state_message(const struct wrc_game *g)
{
    json_t *m = json_pack("{s:s, s:s, s:I, s:s, s:s, s:O}", "type", "state", "game", g->id,
                          "version", (json_int_t)g->version, "ruleset", g->ruleset, "status",
                          g->status, "state", g->state);
    json_object_set_new(m, "seat", g->seat[0] ? json_string(g->seat) : json_null());
    return m;
}

int wrc_cmd_status(const struct wrc_opts *go, int argc, char **argv)
{
    static const char usage[] = "GAME\nSay where a game stands and show its board.";
    struct wrc_opts o = *go;
    int rc = parse("status", usage, &o, NULL, argc, argv);
    if (rc)
        return rc == 1 ? 0 : rc;
    if ((rc = positional("status", usage, argc, argv, 1)) != 0)
        return rc;
    const char *id = argv[optind];
    struct wrc_client cl;
    if ((rc = wrc_client_init(&cl, &o, id)) == 0 && (rc = wrc_client_connect(&cl, 0)) == 0) {
        struct wrc_game *g = wrc_client_join(&cl, id, 0, &rc);
        struct wrc_view *w = NULL;
        if (g && o.json) {
            json_t *m = state_message(g);
            print_json(m);
            json_decref(m);
        } else if (g && (w = wrc_client_view(&cl, g)) != NULL) {
            print_status(g, w);
        } else if (g) {
            rc = WRC_EXIT_REFUSED;
        }
    }
    wrc_client_release(&cl);
    return rc;
}

/* --- do ------------------------------------------------------------------------------------ */

/* What the game waits for now, in one line: its view's first line. */
static void print_now(struct wrc_view *w)
{
    struct wr_strbuf b;
    wr_strbuf_init(&b);
    wrc_view_headline(w->v, &b);
    printf("now: %s\n", b.s ? b.s : "");
    wr_strbuf_release(&b);
}

int wrc_cmd_do(const struct wrc_opts *go, int argc, char **argv)
{
    static const char usage[] =
        "[--no-check] GAME 'ORDER'\n"
        "Send one command for your seat: an order of the game (warroom do GAME help lists\n"
        "them: mark 4, move fr-jerome J-40 I-40, ...) or the command as a JSON object.\n"
        "It is checked here with the rules first (--no-check: leave it to the server).";
    struct wrc_opts o = *go;
    int no_check = 0;
    const struct extra ex[] = { { "no-check", 0, NULL, &no_check, NULL },
                                { NULL, 0, NULL, NULL, NULL } };
    int rc = parse("do", usage, &o, ex, argc, argv);
    if (rc)
        return rc == 1 ? 0 : rc;
    if (argc - optind < 2) {
        fprintf(stderr, "warroom do: give the game and the command\nusage: warroom do %s\n",
                usage);
        return WRC_EXIT_USAGE;
    }
    const char *id = argv[optind];
    /* The command may come as one argument or as several words. */
    struct wr_strbuf text, out;
    wr_strbuf_init(&text);
    wr_strbuf_init(&out);
    for (int i = optind + 1; i < argc; i++)
        wr_strbuf_printf(&text, "%s%s", i > optind + 1 ? " " : "", argv[i]);
    json_t *cmd = NULL;
    char err[512];
    struct wrc_client cl;
    struct wrc_game *g = NULL;
    struct wrc_view *w = NULL;
    if ((rc = wrc_client_init(&cl, &o, id)) != 0 || (rc = wrc_client_connect(&cl, 0)) != 0 ||
        (g = wrc_client_join(&cl, id, 0, &rc)) == NULL)
        goto out;
    if ((w = wrc_client_view(&cl, g)) == NULL) {
        rc = WRC_EXIT_REFUSED;
        goto out;
    }
    const char *line = text.s ? text.s : "";
    if (strncmp(line, "help", 4) == 0 && (line[4] == '\0' || line[4] == ' ')) {
        const char *order = line + 4 + strspn(line + 4, " ");
        if (wrc_view_help(w->v, order, &out) != 0) {
            fputs(out.s ? out.s : "", stderr);
            rc = WRC_EXIT_USAGE;
            goto out;
        }
        fputs(out.s ? out.s : "", stdout);
        goto out;
    }
    struct wr_refusal why;
    switch (wrc_view_line(w->v, line, &cmd, &out, &why)) {
    case WR_ORDER_ERROR:
        fprintf(stderr, "warroom do: %s\n(warroom do %s help lists the orders)\n", why.message,
                id);
        rc = WRC_EXIT_USAGE;
        goto out;
    case WR_ORDER_ANSWER:               /* a question, answered here */
        fputs(out.s ? out.s : "", stdout);
        if (out.len > 0 && out.s[out.len - 1] != '\n')
            putchar('\n');
        goto out;
    case WR_ORDER_COMMAND:
        break;
    }
    if (g->seat[0] == '\0') {
        fprintf(stderr, "warroom do: you hold no seat in game %s (claim an invite first, on "
                "this machine's account)\n", id);
        rc = WRC_EXIT_REFUSED;
        goto out;
    }
    /* 1) the rules here */
    if (!no_check && w->v->pr->precheck(w->v, cmd, &why) < 0) {
        json_t *e = json_pack("{s:s, s:s, s:s, s:s, s:s}", "type", "error", "game", id, "code",
                              why.code, "message", why.message, "checked", "local");
        rc = print_error(e, o.json, "refused (checked here, not sent): ");
        json_decref(e);
        goto out;
    }
    /* 2) the server, whose verdict is final */
    int64_t seq;
    if (wrc_config_next_seq(&cl.cfg, id, &seq, err, sizeof err) != 0) {
        fprintf(stderr, "warroom: %s\n", err);
        rc = WRC_EXIT_REFUSED;
        goto out;
    }
    int e;
    json_t *msg = json_pack("{s:s, s:s, s:I, s:O}", "type", "command", "game", id, "seq",
                            (json_int_t)seq, "cmd", cmd);
    json_t *a = wrc_client_call(&cl, msg, WRC_TIMEOUT_MS, &e);
    if (a == NULL) {
        rc = wrc_client_conn_error(&cl, "command", e);
    } else if (!is_type(a, "ack")) {
        rc = print_error(a, o.json, "refused by the server: ");
    } else if (o.json) {
        print_answer(a);
    } else {
        printf("accepted: game %s is at version %lld\n", id,
               (long long)json_integer_value(json_object_get(a, "version")));
        size_t i;
        json_t *ev;
        json_array_foreach(json_object_get(a, "events"), i, ev) {
            struct wr_strbuf b;
            wr_strbuf_init(&b);
            w->v->pr->event(w->v, ev, &b);
            if (b.s)
                printf("  %s\n", b.s);
            wr_strbuf_release(&b);
        }
        /* The patch came before the ack (docs/protocol.md, command): the
         * view holds the game as the command left it. */
        print_now(w);
        fflush(stdout);
    }
    json_decref(a);
out:
    fflush(stdout);
    json_decref(cmd);
    wr_strbuf_release(&text);
    wr_strbuf_release(&out);
    wrc_client_release(&cl);
    return rc;
}

/* --- wait ---------------------------------------------------------------------------------- */

/* The seats g awaits now, "x" or "p2, p3" (the server section's). */
static void awaited_seats(const struct wrc_game *g, struct wr_strbuf *out)
{
    const char *seat;
    json_t *what;
    int n = 0;
    json_object_foreach(json_object_get(json_object_get(g->state, "server"), "awaiting"), seat,
                        what)
        wr_strbuf_printf(out, "%s%s", n++ ? ", " : "", seat);
}

static int awaits_anyone(const struct wrc_game *g)
{
    return json_object_size(json_object_get(json_object_get(g->state, "server"),
                                             "awaiting")) > 0;
}

/* My decision, or a game that has ended. */
static int wait_done(void *arg)
{
    struct wrc_game *g = arg;
    return strcmp(g->status, "finished") == 0 || wr_state_awaits(g->state, g->seat) ||
           (strcmp(g->status, "running") == 0 && !awaits_anyone(g));
}

int wrc_cmd_wait(const struct wrc_opts *go, int argc, char **argv)
{
    static const char usage[] =
        "[--timeout SECONDS] GAME\n"
        "Block until it is your decision in GAME (exit 0), or the game is over or the time\n"
        "is up (exit 1). Reconnects by itself if the connection drops.";
    struct wrc_opts o = *go;
    const char *timeout = NULL;
    const struct extra ex[] = { { "timeout", 1, &timeout, NULL, NULL },
                                { NULL, 0, NULL, NULL, NULL } };
    int rc = parse("wait", usage, &o, ex, argc, argv);
    if (rc)
        return rc == 1 ? 0 : rc;
    if ((rc = positional("wait", usage, argc, argv, 1)) != 0)
        return rc;
    long secs = 0;
    if (timeout) {
        char *end;
        errno = 0;
        secs = strtol(timeout, &end, 10);
        if (errno || *end || secs <= 0 || secs > 100L * 24 * 3600) {
            fprintf(stderr, "warroom wait: --timeout wants a number of seconds\n");
            return WRC_EXIT_USAGE;
        }
    }
    const char *id = argv[optind];
    struct wrc_client cl;
    struct wrc_game *g = NULL;
    if ((rc = wrc_client_init(&cl, &o, id)) != 0 || (rc = wrc_client_connect(&cl, 1)) != 0 ||
        (g = wrc_client_join(&cl, id, 0, &rc)) == NULL)
        goto out;
    if (g->seat[0] == '\0') {
        fprintf(stderr, "warroom wait: you hold no seat in game %s\n", id);
        rc = WRC_EXIT_REFUSED;
        goto out;
    }
    struct wrc_view *view = wrc_client_view(&cl, g);
    if (view == NULL) {
        rc = WRC_EXIT_REFUSED;
        goto out;
    }
    if (!wait_done(g)) {
        struct wr_strbuf who;
        wr_strbuf_init(&who);
        awaited_seats(g, &who);
        fprintf(stderr, "warroom: waiting for %s in game %s (version %lld)...\n",
                who.s ? who.s : "every seat to be claimed", id, (long long)g->version);
        wr_strbuf_release(&who);
        fflush(stderr);
    }
    int r = wrc_client_wait(&cl, wait_done, g, (int)(secs * 1000));
    if (r == -2) {
        rc = wrc_client_conn_error(&cl, "wait", WRC_CONN_ECLOSED);
        goto out;
    }
    int mine = r == 0 && strcmp(g->status, "finished") != 0 && wr_state_awaits(g->state, g->seat);
    rc = mine ? WRC_EXIT_OK : WRC_EXIT_REFUSED;
    if (o.json) {
        json_t *m = state_message(g);
        print_json(m);
        json_decref(m);
    } else {
        struct wr_strbuf b;
        wr_strbuf_init(&b);
        wrc_view_headline(view->v, &b);
        if (r == -1)
            printf("still not your decision in game %s after %ld s (version %lld): %s\n", id,
                   secs, (long long)g->version, b.s ? b.s : "");
        else if (mine)
            printf("your decision in game %s (version %lld): %s\n", id, (long long)g->version,
                   b.s ? b.s : "");
        else
            printf("game %s is over (version %lld): %s%s%s\n", id, (long long)g->version,
                   b.s ? b.s : "", g->forfeit[0] ? "; forfeited on time by " : "",
                   g->forfeit);
        wr_strbuf_release(&b);
        fflush(stdout);
    }
out:
    wrc_client_release(&cl);
    return rc;
}

/* --- export --------------------------------------------------------------------------------- */

int wrc_cmd_export(const struct wrc_opts *go, int argc, char **argv)
{
    static const char usage[] =
        "[--output FILE] GAME\n"
        "Print the game record (NDJSON, readable by warroom replay).";
    struct wrc_opts o = *go;
    const char *output = NULL;
    const struct extra ex[] = { { "output", 1, &output, NULL, NULL },
                                { NULL, 0, NULL, NULL, NULL } };
    int rc = parse("export", usage, &o, ex, argc, argv);
    if (rc)
        return rc == 1 ? 0 : rc;
    if ((rc = positional("export", usage, argc, argv, 1)) != 0)
        return rc;
    const char *id = argv[optind];
    struct wrc_client cl;
    if ((rc = wrc_client_init(&cl, &o, id)) != 0 || (rc = wrc_client_connect(&cl, 0)) != 0)
        goto out;
    /* Players of a game without spectators must have joined to export it. */
    if (json_object_get(wrc_config_game(&cl.cfg, id), "token") &&
        wrc_client_join(&cl, id, 0, &rc) == NULL)
        goto out;
    int e;
    json_t *a = wrc_client_call(&cl, json_pack("{s:s, s:s}", "type", "export", "game", id),
                                WRC_TIMEOUT_MS, &e);
    if (a == NULL) {
        rc = wrc_client_conn_error(&cl, "export", e);
    } else if (!is_type(a, "record")) {
        rc = print_error(a, o.json, "the server refused: ");
    } else if (o.json) {
        print_answer(a);
    } else {
        const char *rec = json_string_value(json_object_get(a, "record"));
        FILE *f = output ? fopen(output, "w") : stdout;
        if (f == NULL || fputs(rec ? rec : "", f) < 0 || (output && fclose(f) != 0)) {
            fprintf(stderr, "warroom export: cannot write %s: %s\n", output ? output : "stdout",
                    strerror(errno));
            rc = WRC_EXIT_REFUSED;
        }
        fflush(stdout);
    }
    json_decref(a);
out:
    wrc_client_release(&cl);
    return rc;
}

/* --- games ----------------------------------------------------------------------------------- */

int wrc_cmd_games(const struct wrc_opts *go, int argc, char **argv)
{
    static const char usage[] =
        "[--all]\n"
        "List your games on the server (--all: every game in the server's lobby, newest\n"
        "first: those anyone may watch or join, at most 10,000).";
    struct wrc_opts o = *go;
    int all = 0;
    const struct extra ex[] = { { "all", 0, NULL, &all, NULL }, { NULL, 0, NULL, NULL, NULL } };
    int rc = parse("games", usage, &o, ex, argc, argv);
    if (rc)
        return rc == 1 ? 0 : rc;
    if ((rc = positional("games", usage, argc, argv, 0)) != 0)
        return rc;
    struct wrc_client cl;
    if ((rc = wrc_client_init(&cl, &o, NULL)) != 0 || (rc = wrc_client_connect(&cl, 0)) != 0)
        goto out;
    int e;
    /* Mine: the games of this server in the config, asked for by id (200 a
     * request; a game nobody may watch is not in the lobby). --all: the
     * lobby, page by page, newest first. */
    json_t *found = json_array(), *own = json_array(), *cursor = NULL;
    const char *gid;
    json_t *entry;
    json_object_foreach(json_object_get(cl.cfg.root, "games"), gid, entry) {
        const char *srv = json_string_value(json_object_get(entry, "server"));
        if (srv == NULL || strcmp(srv, cl.url.text) == 0)
            json_array_append_new(own, json_string(gid));
    }
    size_t asked = 0;
    for (int pages = 0; pages < (all ? 50 : 1000); pages++) {
        json_t *req;
        if (all) {
            req = json_pack("{s:s, s:i}", "type", "list", "limit", 200);
            if (cursor)
                json_object_set(req, "cursor", cursor);
        } else {
            if (asked >= json_array_size(own) && pages > 0)
                break;          /* (asked once even for none: the server is there) */
            json_t *ids = json_array();
            for (; asked < json_array_size(own) && json_array_size(ids) < 200; asked++)
                json_array_append(ids, json_array_get(own, asked));
            req = json_pack("{s:s, s:{s:o}}", "type", "list", "filter", "games", ids);
        }
        json_t *page = wrc_client_call(&cl, req, WRC_TIMEOUT_MS, &e);
        if (page == NULL) {
            rc = wrc_client_conn_error(&cl, "list", e);
            json_decref(found);
            json_decref(own);
            json_decref(cursor);
            goto out;
        }
        if (!is_type(page, "games")) {
            rc = print_error(page, o.json, "the server refused: ");
            json_decref(page);
            json_decref(found);
            json_decref(own);
            json_decref(cursor);
            goto out;
        }
        json_array_extend(found, json_object_get(page, "games"));
        json_decref(cursor);
        cursor = json_incref(json_object_get(page, "cursor"));
        json_decref(page);
        if (all && !json_is_string(cursor))
            break;
    }
    json_decref(cursor);
    json_decref(own);
    json_t *a = json_pack("{s:o}", "games", found);
    /* Each with the seat I hold. */
    json_t *list = json_array();
    size_t i;
    json_t *g;
    json_array_foreach(json_object_get(a, "games"), i, g) {
        const char *id = json_string_value(json_object_get(g, "game"));
        json_t *mine = wrc_config_game(&cl.cfg, id);
        const char *seat = json_string_value(json_object_get(mine, "seat"));
        if (!all && seat == NULL)
            continue;
        json_t *c = json_deep_copy(g);
        json_object_set_new(c, "my_seat", seat ? json_string(seat) : json_null());
        json_array_append_new(list, c);
    }
    if (o.json) {
        json_t *out = json_pack("{s:s, s:o}", "type", "games", "games", list);
        print_json(out);
        json_decref(out);
    } else {
        printf("%-16s %-10s %-16s %-9s %7s  %-8s %s\n", "GAME", "RULESET", "SCENARIO", "STATUS",
               "VERSION", "YOU", "AWAITING");
        json_array_foreach(list, i, g) {
            const char *seat = json_string_value(json_object_get(g, "my_seat"));
            const char *aw = json_string_value(json_object_get(g, "awaiting"));
            const char *scen = json_string_value(json_object_get(g, "scenario"));
            printf("%-16s %-10s %-16s %-9s %7lld  %-8s %s%s\n",
                   json_string_value(json_object_get(g, "game")),
                   json_string_value(json_object_get(g, "ruleset")),
                   scen && scen[0] ? scen : "-",
                   json_string_value(json_object_get(g, "status")),
                   (long long)json_integer_value(json_object_get(g, "version")),
                   seat ? seat : "-", aw ? aw : "-",
                   aw && seat && strcmp(aw, seat) == 0 ? " (you)" : "");
        }
        if (json_array_size(list) == 0)
            printf(all ? "(no games on %s)\n" : "(you have no games on %s)\n", cl.url.text);
        json_decref(list);
        fflush(stdout);
    }
    json_decref(a);
out:
    wrc_client_release(&cl);
    return rc;
}

/* --- notify ---------------------------------------------------------------------------------- */

int wrc_cmd_notify(const struct wrc_opts *go, int argc, char **argv)
{
    static const char usage[] =
        "GAME [--mail ADDR | --no-mail] [--confirm CODE] [--digest | --no-digest]\n"
        "     [--webhook URL | --no-webhook]\n"
        "How the server tells your seat of GAME that it is your decision:\n"
        "  --mail ADDR     mail ADDR (play by email): the server sends it a confirmation\n"
        "                  mail with a code, and nothing else until it is confirmed\n"
        "  --confirm CODE  confirm the address with the code of that mail (replying to\n"
        "                  the mail confirms it too)\n"
        "  --no-mail       forget the address\n"
        "  --digest        one mail a day for this game while it awaits you (at the\n"
        "                  server's digest hour), instead of one each time it does;\n"
        "                  --no-digest: one each time again\n"
        "  --webhook URL   POST to an http:// URL; --no-webhook removes it\n"
        "Prints the address's state: none, pending (not yet confirmed) or confirmed.\n"
        "The address is kept like a secret: no other seat, list or export shows it.\n"
        "Orders by reply: see warroom help mail-in.";
    struct wrc_opts o = *go;
    const char *mail = NULL, *confirm = NULL, *webhook = NULL;
    int no_mail = 0, no_webhook = 0, digest = 0, no_digest = 0;
    const struct extra ex[] = {
        { "mail", 1, &mail, NULL, NULL }, { "no-mail", 0, NULL, &no_mail, NULL },
        { "confirm", 1, &confirm, NULL, NULL }, { "webhook", 1, &webhook, NULL, NULL },
        { "no-webhook", 0, NULL, &no_webhook, NULL }, { "digest", 0, NULL, &digest, NULL },
        { "no-digest", 0, NULL, &no_digest, NULL }, { NULL, 0, NULL, NULL, NULL },
    };
    int rc = parse("notify", usage, &o, ex, argc, argv);
    if (rc)
        return rc == 1 ? 0 : rc;
    if ((rc = positional("notify", usage, argc, argv, 1)) != 0)
        return rc;
    if ((mail && no_mail) || (webhook && no_webhook) || (digest && no_digest) ||
        !(mail || no_mail || confirm || webhook || no_webhook || digest || no_digest)) {
        fprintf(stderr, "warroom notify: give --mail ADDR or --no-mail, and/or --confirm CODE, "
                "--digest or --no-digest (or --webhook URL or --no-webhook)\n"
                "usage: warroom notify %s\n", usage);
        return WRC_EXIT_USAGE;
    }
    if (mail && (rc = check_mail("notify", mail)) != 0)
        return rc;
    if (confirm && confirm[0] == '\0') {
        fprintf(stderr, "warroom notify: --confirm wants the code of the confirmation mail\n");
        return WRC_EXIT_USAGE;
    }
    const char *id = argv[optind];
    json_t *msg = json_pack("{s:s, s:s}", "type", "notify", "game", id);
    if (mail || no_mail)
        json_object_set_new(msg, "mail", mail ? json_string(mail) : json_null());
    if (confirm)
        json_object_set_new(msg, "confirm", json_string(confirm));
    if (webhook || no_webhook)
        json_object_set_new(msg, "webhook", webhook ? json_string(webhook) : json_null());
    if (digest || no_digest)
        json_object_set_new(msg, "digest", json_boolean(digest));
    struct wrc_client cl;
    struct wrc_game *g = NULL;
    /* notify speaks for the seat this connection joined as */
    if ((rc = wrc_client_init(&cl, &o, id)) != 0 || (rc = wrc_client_connect(&cl, 0)) != 0 ||
        (g = wrc_client_join(&cl, id, 0, &rc)) == NULL)
        goto out;
    if (g->seat[0] == '\0') {
        fprintf(stderr, "warroom notify: you hold no seat in game %s\n", id);
        rc = WRC_EXIT_REFUSED;
        goto out;
    }
    int e;
    json_t *a = wrc_client_call(&cl, msg, WRC_TIMEOUT_MS, &e);
    msg = NULL;
    if (a == NULL) {
        rc = wrc_client_conn_error(&cl, "notify", e);
    } else if (!is_type(a, "ok")) {
        rc = print_error(a, o.json, "the server refused: ");
    } else if (o.json) {
        print_answer(a);
    } else {
        const char *state = json_string_value(json_object_get(a, "mail"));
        printf("game %s, the %s seat: ", id, g->seat);
        if (state == NULL)
            printf("notification changed\n");
        else if (strcmp(state, "pending") == 0)
            printf("mail address pending: confirm it with the code mailed to it (warroom "
                   "notify %s --confirm CODE), or reply to that mail\n", id);
        else if (strcmp(state, "confirmed") == 0)
            printf("mail address confirmed: the game's mails go to it, and replies to them "
                   "are your orders\n");
        else
            printf("no mail address\n");
        fflush(stdout);
    }
    json_decref(a);
out:
    json_decref(msg);
    wrc_client_release(&cl);
    return rc;
}

/* --- mail-in ---------------------------------------------------------------------------------- */

/* Read all of f, at most max bytes (into *buf, caller frees). Returns the
 * length, -2 when there was more (the rest read and dropped, up to a
 * bound: an MTA whose pipe is not read reports a failure of its own), or
 * -1 on a read error. */
static long read_bounded(FILE *f, size_t max, char **buf)
{
    *buf = malloc(max + 1);
    if (*buf == NULL)
        return -1;
    size_t n = fread(*buf, 1, max + 1, f);
    if (ferror(f))
        return -1;
    if (n <= max)
        return (long)n;
    char sink[65536];
    for (size_t drained = 0; drained < (size_t)64 << 20; drained += sizeof sink)
        if (fread(sink, 1, sizeof sink, f) < sizeof sink)
            break;
    return -2;
}

/* The error codes of an answer that a later try may not get: the MTA keeps
 * the message and tries again (EX_TEMPFAIL). Any other error is the
 * message's (EX_DATAERR: the MTA returns it to its sender). */
static const char *const retry_codes[] = { "rate_limited", "internal", "too_many_games", NULL };

int wrc_cmd_mail_in(const struct wrc_opts *go, int argc, char **argv)
{
    static const char usage[] =
        "[--server URL] [--json] < MESSAGE\n"
        "Read one mail message on standard input (at most 1 MiB): a reply to a mail of\n"
        "a game, as an MTA delivers it (a .forward line '|warroom mail-in', procmail, an\n"
        "exim or postfix pipe). Its recipients (Delivered-To, X-Original-To, Envelope-To,\n"
        "To, Cc), its Message-ID and the reply's own lines are sent to the server, which\n"
        "finds the seat by the secret tag in the reply address (never by From) and plays\n"
        "the lines as that seat's orders, one per line; the answer mail says what was\n"
        "done. The lines are those of the first text part (or HTML made text) above the\n"
        "quoted text: reading stops at a line starting with '>', an 'On ... wrote:'\n"
        "line, the signature separator '-- ', '-----Original Message-----', a line of\n"
        "underscores or a 'From: ' line after an empty line. Empty lines are skipped.\n"
        "More than 100 lines, or one longer than 1024 bytes, and the message is refused\n"
        "whole.\n"
        "Prints the server's answer: 'RESULT GAME SEAT DONE REFUSED' (RESULT applied,\n"
        "refused, confirmed or ignored; '-' for a game and seat not found), or its JSON\n"
        "with --json.\n"
        "Exit status (sysexits.h, as MTAs read it): 0 the server answered (whatever the\n"
        "result), 64 usage, 65 the message cannot be read or the server refused it (the\n"
        "MTA returns it), 75 the server cannot be reached or asks to try later (the MTA\n"
        "keeps it and tries again).";
    struct wrc_opts o = *go;
    int rc = parse("mail-in", usage, &o, NULL, argc, argv);
    if (rc)
        return rc == 1 ? 0 : EX_USAGE;
    if (positional("mail-in", usage, argc, argv, 0) != 0)
        return EX_USAGE;
    /* 1) the message */
    char *raw = NULL, err[400];
    long n = read_bounded(stdin, WRC_MAIL_MAX_BYTES, &raw);
    if (n < 0) {
        free(raw);
        if (n == -2)
            fprintf(stderr, "warroom mail-in: the message is larger than %d bytes (1 MiB)\n",
                    WRC_MAIL_MAX_BYTES);
        else
            fprintf(stderr, "warroom mail-in: cannot read standard input: %s\n",
                    strerror(errno));
        return n == -2 ? EX_DATAERR : EX_TEMPFAIL;
    }
    struct wrc_mailmsg m;
    rc = wrc_mailmsg_parse(raw, (size_t)n, &m, err, sizeof err);
    free(raw);
    if (rc != 0) {
        fprintf(stderr, "warroom mail-in: cannot read the message: %s\n", err);
        return EX_DATAERR;
    }
    json_t *to = json_array(), *lines = json_array();
    for (int i = 0; i < m.nto; i++)
        json_array_append_new(to, json_string(m.to[i]));
    for (int i = 0; i < m.nlines; i++)
        json_array_append_new(lines, json_string(m.lines[i]));
    json_t *msg = json_pack("{s:s, s:o, s:o}", "type", "mail_in", "to", to, "lines", lines);
    if (m.message_id)
        json_object_set_new(msg, "message_id", json_string(m.message_id));
    wrc_mailmsg_free(&m);
    /* 2) the server */
    struct wrc_client cl;
    rc = wrc_client_init(&cl, &o, NULL);
    if (rc == 0)
        rc = wrc_client_connect(&cl, 0);
    if (rc != 0) {
        json_decref(msg);
        wrc_client_release(&cl);
        return rc == WRC_EXIT_USAGE ? EX_USAGE : EX_TEMPFAIL;
    }
    int e;
    json_t *a = wrc_client_call(&cl, msg, WRC_TIMEOUT_MS, &e);
    if (a == NULL) {
        wrc_client_conn_error(&cl, "mail-in", e);
        rc = EX_TEMPFAIL;
    } else if (!is_type(a, "mail_in")) {
        const char *code = json_string_value(json_object_get(a, "code"));
        rc = EX_DATAERR;
        for (int i = 0; code && retry_codes[i]; i++)
            if (strcmp(code, retry_codes[i]) == 0)
                rc = EX_TEMPFAIL;
        if (o.json)
            print_answer(a);
        else
            fprintf(stderr, "warroom mail-in: the server refused the message: %s: %s\n",
                    code ? code : "?",
                    json_string_value(json_object_get(a, "message")) ? json_string_value(
                        json_object_get(a, "message")) : "(no sentence)");
    } else if (o.json) {
        print_answer(a);
        rc = 0;
    } else {
        const char *r = json_string_value(json_object_get(a, "result"));
        const char *game = json_string_value(json_object_get(a, "game"));
        const char *seat = json_string_value(json_object_get(a, "seat"));
        printf("%s %s %s %lld %lld\n", r ? r : "?", game ? game : "-", seat ? seat : "-",
               (long long)json_integer_value(json_object_get(a, "done")),
               (long long)json_integer_value(json_object_get(a, "refused")));
        fflush(stdout);
        rc = 0;
    }
    json_decref(a);
    wrc_client_release(&cl);
    return rc;
}
