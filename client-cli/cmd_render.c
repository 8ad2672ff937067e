/*
 * cmd_render.c - "warroom render" (cmd_render.h).
 *
 *   warroom render [--scenario FILE|NAME] [--state FILE] [--svg OUT.svg | --text]
 *                  [--cols N] [--rows N] [--no-color | --color]
 *   warroom render --report OUT.html --state RECORD [--scenario FILE|NAME]
 *
 * Any ruleset's game, drawn by its presentation (present.h: draw_text,
 * draw_svg), or a whole game's report (draw_report): the record replayed,
 * its final state given to the view, and each accepted command with its
 * events passed as the steps. A scenario is a file (a path that exists, or that ends in
 * ".json") or a name, looked up as scenarios.h says ($WARROOM_SCENARIOS,
 * ./scenarios, then this build's scenario folders). The state is a state
 * object (what the server sends, bare or in its `state` message) or a game
 * record (NDJSON, replayed to its end; its header then names the scenario
 * unless --scenario is given). Without a state, the picture is the
 * scenario at its start, as the ruleset's view draws a game before any
 * state.
 *
 * The ruleset is the state's ("ruleset"), else the scenario's (its
 * "ruleset", or its base's), else the first registered; the scenario is
 * --scenario, else the record's, else the ruleset's default.
 */
#include "cmd_render.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "present.h"
#include "ruleset.h"
#include "scenarios.h"
#include "strbuf.h"
#include "record.h"

#define STATE_MAX (64u << 20)
#define PATH_MAX_LEN 4096

static const char prog[] = "warroom render";

static void render_usage(FILE *out)
{
    char places[6144];
    wrc_scenario_places(places, sizeof places);
    fprintf(out,
        "usage: warroom render [--scenario FILE|NAME] [--state FILE]\n"
        "                      [--svg OUT.svg | --text] [--cols N] [--rows N]\n"
        "                      [--no-color | --color]\n"
        "       warroom render --report OUT.html --state RECORD [--scenario FILE|NAME]\n"
        "\n"
        "Draw a game of any ruleset: a scenario at its start, or where a game state (or\n"
        "the end of a game record) has it, as its ruleset draws it. With --report, a\n"
        "whole game from its record: one HTML page (the result, the board at the end,\n"
        "the battles, the losses) for rulesets that have a game report.\n"
        "\n"
        "  --scenario FILE|NAME  scenario file, or NAME for NAME.json or\n"
        "                        NAME/scenario.json in %s\n"
        "                        ($WARROOM_SCENARIOS first, when set); default: the\n"
        "                        record's, else the ruleset's default\n"
        "  --state FILE          a game state (JSON) or a game record (NDJSON, replayed)\n"
        "  --svg OUT.svg         write the picture as SVG (\"-\" for stdout)\n"
        "  --report OUT.html     write the game report of the --state record (\"-\" for\n"
        "                        stdout)\n"
        "  --text                print the picture as text (the default)\n"
        "  --cols N, --rows N    the room the text picture may take (default: no limit)\n"
        "  --no-color, --color   text without / with ANSI colours (default: colours\n"
        "                        when stdout is a terminal and NO_COLOR is not set)\n"
        "  -h, --help            print this help\n"
        "\n"
        "The ruleset is the state's, else the scenario's, else %s.\n",
        places, wr_ruleset_at(0) ? wr_ruleset_at(0)->name : "none");
}

static int readable(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    fclose(f);
    return 1;
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && strcmp(s + n - m, tail) == 0;
}

/* Find the scenario file for arg (a path or a NAME). Returns 0 with path
 * filled, or -1 with a message in err. */
static int find_scenario(const char *arg, char *path, size_t n, char *err, size_t errn)
{
    if (readable(arg) || ends_with(arg, ".json")) {
        snprintf(path, n, "%s", arg);
        return 0;       /* a missing file is reported by the loader, with its path */
    }
    if (wrc_scenario_path(arg, path, n) == 0)
        return 0;
    char places[6144];
    wrc_scenario_places(places, sizeof places);
    snprintf(err, errn, "no scenario '%s': not a file, and no %s.json or %s/scenario.json in %s",
             arg, arg, arg, places);
    return -1;
}

/* Resolver for game records and a scenario's base: a scenario name, as
 * --scenario would find it. */
static json_t *resolve_by_name(void *ctx, const char *name)
{
    (void)ctx;
    char path[PATH_MAX_LEN], err[8192];
    if (find_scenario(name, path, sizeof path, err, sizeof err) != 0)
        return NULL;
    return json_load_file(path, JSON_REJECT_DUPLICATES, NULL);
}

static json_t *resolve_for_replay(const char *name, void *ctx)
{
    return resolve_by_name(ctx, name);
}

/* Is this text a game record? Its first line is the record header. */
static json_t *record_header(const char *text, size_t len)
{
    const char *nl = memchr(text, '\n', len);
    size_t first = nl ? (size_t)(nl - text) : len;
    json_t *h = json_loadb(text, first, 0, NULL);
    if (h && json_is_object(h) &&
        json_is_string(json_object_get(h, "warroom")) &&
        strcmp(json_string_value(json_object_get(h, "warroom")), "game-record") == 0)
        return h;
    json_decref(h);
    return NULL;
}

struct opts {
    const char *scenario;
    const char *state;
    const char *svg;
    const char *report;
    int cols, rows;             /* 0: no limit */
    int text;
    int color;                  /* -1: decide by the terminal */
};

/* A count for --cols / --rows: 0 or -1 with the sentence printed. */
static int count_arg(const char *opt, const char *arg, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(arg, &end, 10);
    if (errno || *end || end == arg || v < 1 || v > 10000) {
        fprintf(stderr, "%s: --%s '%s' is not a number from 1 to 10000\n", prog, opt, arg);
        return -1;
    }
    *out = (int)v;
    return 0;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
    static const struct option longopts[] = {
        { "scenario", required_argument, NULL, 's' },
        { "state", required_argument, NULL, 'S' },
        { "svg", required_argument, NULL, 'g' },
        { "report", required_argument, NULL, 'R' },
        { "text", no_argument, NULL, 't' },
        { "cols", required_argument, NULL, 'c' },
        { "rows", required_argument, NULL, 'r' },
        { "no-color", no_argument, NULL, 'n' },
        { "color", no_argument, NULL, 'C' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    memset(o, 0, sizeof *o);
    o->color = -1;
    optind = 0;         /* glibc: start over, argv[0] is "render" */
    opterr = 0;
    int opt;
    while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (opt) {
        case 's': o->scenario = optarg; break;
        case 'S': o->state = optarg; break;
        case 'g': o->svg = optarg; break;
        case 'R': o->report = optarg; break;
        case 't': o->text = 1; break;
        case 'n': o->color = 0; break;
        case 'C': o->color = 1; break;
        case 'c':
            if (count_arg("cols", optarg, &o->cols) != 0)
                return 2;
            break;
        case 'r':
            if (count_arg("rows", optarg, &o->rows) != 0)
                return 2;
            break;
        case 'h':
            render_usage(stdout);
            return -1;
        case ':':
            fprintf(stderr, "%s: %s needs a value\n", prog, argv[optind - 1]);
            return 2;
        default:
            fprintf(stderr, "%s: unknown option '%s' (see warroom render --help)\n", prog,
                    argv[optind - 1]);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "%s: unexpected argument '%s' (see warroom render --help)\n", prog,
                argv[optind]);
        return 2;
    }
    if (o->svg && o->text) {
        fprintf(stderr, "%s: give --svg or --text, not both\n", prog);
        return 2;
    }
    if (o->report && (o->svg || o->text || o->cols || o->rows)) {
        fprintf(stderr, "%s: --report writes the whole game's report: give it without --svg, "
                        "--text, --cols and --rows\n", prog);
        return 2;
    }
    if (o->report && o->state == NULL) {
        fprintf(stderr, "%s: --report needs the game's record: --state RECORD.ndjson\n", prog);
        return 2;
    }
    if (o->svg && (o->cols || o->rows)) {
        fprintf(stderr, "%s: --cols and --rows size the text picture; the SVG is the whole "
                        "picture\n", prog);
        return 2;
    }
    return 0;
}

static int write_file(const char *path, const struct wr_strbuf *b)
{
    if (strcmp(path, "-") == 0) {
        if (fwrite(b->s, 1, b->len, stdout) != b->len || fflush(stdout) != 0) {
            fprintf(stderr, "%s: cannot write to stdout: %s\n", prog, strerror(errno));
            return 1;
        }
        return 0;
    }
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
        fprintf(stderr, "%s: cannot write '%s': %s\n", prog, path, strerror(errno));
        return 1;
    }
    int ok = fwrite(b->s, 1, b->len, f) == b->len;
    ok = (fclose(f) == 0) && ok;
    if (!ok) {
        fprintf(stderr, "%s: cannot write '%s': %s\n", prog, path, strerror(errno));
        return 1;
    }
    return 0;
}

/* The scenario JSON for arg (a file or a name; NULL: the record's, else
 * name_default; both NULL: none). *scen is a new reference or NULL.
 * Returns 0 or 1 (message printed). */
static int load_scenario(const char *arg, const json_t *header, const char *name_default,
                         json_t **scen)
{
    char path[PATH_MAX_LEN], err[8192];
    const json_t *named = header ? json_object_get(header, "scenario") : NULL;
    *scen = NULL;
    if (arg == NULL && json_is_object(named)) {
        *scen = json_incref((json_t *)named);
        return 0;
    }
    if (arg == NULL && json_is_string(named)) {
        if (json_string_value(named)[0] == '\0')
            return 0;       /* "": a ruleset without scenarios (record.h) */
        arg = json_string_value(named);
    }
    if (arg == NULL)
        arg = name_default;
    if (arg == NULL)
        return 0;
    if (find_scenario(arg, path, sizeof path, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", prog, err);
        return 1;
    }
    json_error_t je;
    *scen = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (*scen == NULL) {
        if (je.line <= 0)
            fprintf(stderr, "%s: %s\n", prog, je.text);
        else
            fprintf(stderr, "%s: %s:%d:%d: %s\n", prog, path, je.line, je.column, je.text);
        return 1;
    }
    return 0;
}

/* The ruleset a scenario names, itself or through its base ("" when
 * neither does). */
static const char *scenario_ruleset(const json_t *scen, json_t **hold)
{
    const char *name = json_string_value(json_object_get(scen, "ruleset"));
    const char *base = json_string_value(json_object_get(scen, "base"));
    *hold = NULL;
    if (name == NULL && base) {
        *hold = resolve_by_name(NULL, base);
        name = json_string_value(json_object_get(*hold, "ruleset"));
    }
    return name ? name : "";
}

/* Read the --state file into *text (caller frees) and, when it is a game
 * record, its header into *header (new reference; NULL for a state).
 * Returns 0 or 1 (message printed). */
static int read_state(const char *path, json_t **header, char **text, size_t *len)
{
    *text = wrc_slurp(path, STATE_MAX, len);
    if (*text == NULL) {
        fprintf(stderr, "%s: cannot read state '%s': %s\n", prog, path, strerror(errno));
        return 1;
    }
    *header = record_header(*text, *len);
    return 0;
}

/* A step of a report (present.h's draw_report): each accepted command
 * with its events, appended to the array ctx. */
static void add_step(void *ctx, int n, const char *seat, const json_t *cmd, int verdict,
                     const struct wr_refusal *why, const json_t *events)
{
    (void)n;
    (void)why;
    if (verdict != 0)
        return;
    json_array_append_new(ctx, json_pack("{s:s, s:O, s:O}", "seat", seat, "cmd", cmd,
                                         "events", events ? events : json_null()));
}

/* The state of the --state text: parsed, or the final state of the
 * record replayed. *state is a new reference. steps (NULL: not wanted)
 * gets a record's steps. Returns 0 or 1 (message printed). */
static int state_json(const char *path, const char *text, size_t len, const json_t *header,
                      json_t **state, json_t *steps)
{
    if (header) {
        struct wr_refusal why;
        struct wr_record_opts ro = { wr_ruleset_find, resolve_for_replay, NULL, 0,
                                     steps ? add_step : NULL, steps };
        struct wr_record_result res;
        int rc = wr_record_replay(text, len, &ro, &res, &why);
        *state = rc == 0 ? res.rs->project(res.game, NULL) : NULL;
        wr_record_result_release(&res);
        if (rc != 0 || *state == NULL) {
            fprintf(stderr, "%s: replaying '%s': %s\n", prog, path,
                    rc != 0 ? why.message : "out of memory");
            return 1;
        }
        return 0;
    }
    json_error_t je;
    *state = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (*state == NULL) {
        fprintf(stderr, "%s: %s:%d:%d: %s\n", prog, path, je.line, je.column, je.text);
        return 1;
    }
    /* A server's state message: the state is inside, the ruleset beside it. */
    json_t *inner = json_object_get(*state, "state");
    const char *type = json_string_value(json_object_get(*state, "type"));
    if (type && strcmp(type, "state") == 0 && json_is_object(inner)) {
        json_t *st = json_incref(inner);
        if (!json_object_get(st, "ruleset") && json_object_get(*state, "ruleset"))
            json_object_set(st, "ruleset", json_object_get(*state, "ruleset"));
        json_decref(*state);
        *state = st;
    }
    return 0;
}

/* A new game of rs on scen, before any command, as a spectator sees it
 * (new reference), or NULL with the reason printed. */
static json_t *start_state(const struct wr_ruleset *rs, const json_t *scen,
                           const json_t *options, const struct wr_host *host)
{
    static const uint8_t seed[32];
    struct wr_refusal why;
    struct wr_game *g = rs->create(scen, options, "render", seed, host, &why);
    if (g == NULL) {
        fprintf(stderr, "%s: the scenario: %s\n", prog, why.message);
        return NULL;
    }
    json_t *st = rs->project(g, NULL);
    rs->destroy(g);
    return st;
}

int wr_cli_render(int argc, char **argv)
{
    struct opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc != 0)
        return rc < 0 ? 0 : rc;

    static const struct wr_host host = { NULL, resolve_by_name, NULL };
    json_t *header = NULL, *state = NULL, *scen = NULL, *base = NULL, *steps = NULL;
    struct wr_view *view = NULL;
    char *text = NULL;
    size_t len = 0;
    struct wr_strbuf out;
    wr_strbuf_init(&out);
    struct wr_refusal why;
    rc = 1;
    if (o.report && (steps = json_array()) == NULL)
        goto done;
    if (o.state && (read_state(o.state, &header, &text, &len) != 0 ||
                    state_json(o.state, text, len, header, &state, steps) != 0))
        goto done;
    if (o.report && header == NULL) {
        fprintf(stderr, "%s: --report needs a game record, and '%s' is a state: a report "
                        "tells the whole game\n", prog, o.state);
        goto done;
    }
    /* The ruleset: the state's, else the scenario's, else the first. */
    const char *rsname = json_string_value(json_object_get(state, "ruleset"));
    if (rsname == NULL)
        rsname = json_string_value(json_object_get(header, "ruleset"));
    if (load_scenario(o.scenario, header, NULL, &scen) != 0)
        goto done;
    const char *scen_rs = scen ? scenario_ruleset(scen, &base) : "";
    if (rsname && scen_rs[0] && strcmp(rsname, scen_rs) != 0) {
        fprintf(stderr, "%s: the state '%s' is a game of ruleset '%s', the scenario one of "
                        "'%s'\n", prog, o.state, rsname, scen_rs);
        goto done;
    }
    if (rsname == NULL && scen_rs[0])
        rsname = scen_rs;
    const struct wr_ruleset *rs = rsname ? wr_ruleset_find(rsname) : wr_ruleset_at(0);
    if (rs == NULL) {
        fprintf(stderr, "%s: this warroom has no ruleset '%s' (warroom help new lists "
                        "those it has)\n", prog, rsname);
        goto done;
    }
    if (o.report && (rs->present->version < 2 || rs->present->draw_report == NULL)) {
        fprintf(stderr, "%s: ruleset '%s' has no game report (its presentation draws "
                        "pictures only: --svg or --text)\n", prog, rs->name);
        goto done;
    }
    if (scen == NULL && (load_scenario(NULL, NULL, rs->default_scenario, &scen) != 0))
        goto done;
    const char *named = json_string_value(json_object_get(state, "scenario"));
    const char *sname = json_string_value(json_object_get(scen, "name"));
    if (named && sname && strcmp(named, sname) != 0) {
        fprintf(stderr, "%s: the state '%s' is a game of scenario '%s', not of '%s' "
                        "(name its scenario with --scenario)\n", prog, o.state, named, sname);
        goto done;
    }
    const json_t *options = json_object_get(header, "options");
    view = rs->present->open(rs, scen, json_is_object(options) ? options : NULL, NULL, &host,
                             &why);
    if (view == NULL) {
        fprintf(stderr, "%s: %s\n", prog, why.message);
        goto done;
    }
    /* Without a state the view draws the scenario at its start, as its
     * ruleset shows a game before any state; the scenario is still checked
     * by making a game of it. */
    json_t *check = state ? NULL : start_state(rs, scen, options, &host);
    if (state == NULL && check == NULL)
        goto done;
    json_decref(check);
    if (state && rs->present->update(view, state, &why) != 0) {
        fprintf(stderr, "%s: %s: %s\n", prog, o.state ? o.state : "the scenario", why.message);
        goto done;
    }
    if (o.report) {
        if (rs->present->draw_report(view, steps, &out) != 0) {
            fprintf(stderr, "%s: out of memory\n", prog);
            goto done;
        }
        rc = write_file(o.report, &out);
        goto done;
    }
    if (o.svg) {
        if (rs->present->draw_svg(view, &out) != 0) {
            fprintf(stderr, "%s: out of memory\n", prog);
            goto done;
        }
        rc = write_file(o.svg, &out);
        goto done;
    }
    struct wr_draw_opts d = { .cols = o.cols, .rows = o.rows, .color = o.color };
    if (d.color < 0)
        d.color = isatty(STDOUT_FILENO) && getenv("NO_COLOR") == NULL;
    if (rs->present->draw_text(view, &d, &out) != 0) {
        fprintf(stderr, "%s: out of memory\n", prog);
        goto done;
    }
    rc = write_file("-", &out);
done:
    if (view)
        view->pr->close(view);
    wr_strbuf_release(&out);
    json_decref(state);
    json_decref(steps);
    json_decref(header);
    json_decref(scen);
    json_decref(base);
    free(text);
    return rc;
}
