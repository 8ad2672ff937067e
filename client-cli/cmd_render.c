/*
 * cmd_render.c - "warroom render" (cmd_render.h).
 *
 *   warroom render [--scenario FILE|NAME] [--state FILE] [--svg OUT.svg | --text]
 *                  [--center SQ [--radius N]] [--no-color | --color]
 *
 * A scenario is a file (a path that exists, or that ends in ".json") or a
 * name, looked up as scenarios.h says ($WARROOM_SCENARIOS, ./scenarios, then
 * the installed share directory). The default is the 1815 scenario. The state
 * is either a state object (wl_game_state_json: what the server sends, or
 * a game's final state) or a game record (NDJSON, replayed to its end; its
 * header then names the scenario unless --scenario is given).
 */
#include "cmd_render.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "waterloo_record.h"
#include "render.h"
#include "waterloo_scenario.h"
#include "scenarios.h"


#define DEFAULT_SCENARIO "waterloo-1815"
#define DEFAULT_RADIUS 8
#define STATE_MAX (64u << 20)
#define PATH_MAX_LEN 4096

static const char prog[] = "warroom render";

static void render_usage(FILE *out)
{
    fprintf(out,
        "usage: warroom render [--scenario FILE|NAME] [--state FILE]\n"
        "                      [--svg OUT.svg | --text] [--center SQ [--radius N]]\n"
        "                      [--no-color | --color]\n"
        "\n"
        "Draw the board of a scenario with its units: at the set-up, or where a game\n"
        "state puts them.\n"
        "\n"
        "  --scenario FILE|NAME  scenario file, or NAME for scenarios/NAME.json or\n"
        "                        scenarios/NAME/scenario.json (current directory, then\n"
        "                        %s/scenarios); default %s\n"
        "  --state FILE          a game state (JSON) or a game record (NDJSON, replayed)\n"
        "  --svg OUT.svg         write the whole board as SVG (\"-\" for stdout)\n"
        "  --text                print the board as text (the default)\n"
        "  --center SQ           print only the squares around SQ (e.g. X-27)\n"
        "  --radius N            how many squares around --center (default %d)\n"
        "  --no-color, --color   text without / with ANSI colours (default: colours\n"
        "                        when stdout is a terminal and NO_COLOR is not set)\n"
        "  -h, --help            print this help\n",
        WARROOM_SHARE_DIR, DEFAULT_SCENARIO, DEFAULT_RADIUS);
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
    snprintf(err, errn, "no scenario '%s': not a file, and no %s.json or %s/scenario.json in "
                        "$WARROOM_SCENARIOS, ./scenarios or %s/scenarios",
             arg, arg, arg, WARROOM_SHARE_DIR);
    return -1;
}

/* Resolver for game records: a scenario name, as --scenario would find it. */
static json_t *resolve_by_name(const char *name, void *ctx)
{
    (void)ctx;
    char path[PATH_MAX_LEN], err[1024];
    if (find_scenario(name, path, sizeof path, err, sizeof err) != 0)
        return NULL;
    return json_load_file(path, JSON_REJECT_DUPLICATES, NULL);
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
    const char *center;
    int radius;                 /* -1: not given */
    int text;
    int color;                  /* -1: decide by the terminal */
};

static int parse_args(int argc, char **argv, struct opts *o)
{
    static const struct option longopts[] = {
        { "scenario", required_argument, NULL, 's' },
        { "state", required_argument, NULL, 'S' },
        { "svg", required_argument, NULL, 'g' },
        { "text", no_argument, NULL, 't' },
        { "center", required_argument, NULL, 'c' },
        { "centre", required_argument, NULL, 'c' },
        { "radius", required_argument, NULL, 'r' },
        { "no-color", no_argument, NULL, 'n' },
        { "color", no_argument, NULL, 'C' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    memset(o, 0, sizeof *o);
    o->radius = -1;
    o->color = -1;
    optind = 0;         /* glibc: start over, argv[0] is "render" */
    opterr = 0;
    int opt;
    while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (opt) {
        case 's': o->scenario = optarg; break;
        case 'S': o->state = optarg; break;
        case 'g': o->svg = optarg; break;
        case 't': o->text = 1; break;
        case 'c': o->center = optarg; break;
        case 'n': o->color = 0; break;
        case 'C': o->color = 1; break;
        case 'r': {
            char *end;
            errno = 0;
            long v = strtol(optarg, &end, 10);
            if (errno || *end || end == optarg || v < 0 || v > 60) {
                fprintf(stderr, "%s: --radius '%s' is not a number from 0 to 60\n", prog,
                        optarg);
                return 2;
            }
            o->radius = (int)v;
            break;
        }
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
    if (o->svg && (o->center || o->radius >= 0)) {
        fprintf(stderr, "%s: --center and --radius choose a window of the text picture; "
                        "the SVG is always the whole board\n", prog);
        return 2;
    }
    if (o->radius >= 0 && !o->center) {
        fprintf(stderr, "%s: --radius needs --center\n", prog);
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

/* Load the scenario (by --scenario, or as the record names it, or the
 * default) into sc. Returns 0 or 1 (message printed). */
static int load_scenario(struct wl_scenario *sc, const char *arg, const json_t *header)
{
    struct wr_refusal why;
    char path[PATH_MAX_LEN], err[1024];
    const json_t *named = header ? json_object_get(header, "scenario") : NULL;
    if (arg == NULL && json_is_object(named)) {
        if (wl_scenario_load(sc, named, resolve_by_name, NULL, &why) != 0) {
            fprintf(stderr, "%s: the scenario in the game record: %s\n", prog, why.message);
            return 1;
        }
        return 0;
    }
    if (arg == NULL && json_is_string(named))
        arg = json_string_value(named);
    if (arg == NULL)
        arg = DEFAULT_SCENARIO;
    if (find_scenario(arg, path, sizeof path, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", prog, err);
        return 1;
    }
    if (wl_scenario_load_file(sc, path, &why) != 0) {
        fprintf(stderr, "%s: %s\n", prog, why.message);
        return 1;
    }
    return 0;
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

/* The state of the --state text: parsed, or the final state of the
 * record replayed. *state is a new reference. Returns 0 or 1 (message
 * printed). */
static int state_json(const char *path, const char *text, size_t len, const json_t *header,
                      json_t **state)
{
    if (header) {
        struct wr_refusal why;
        struct wl_replay_opts ro = { resolve_by_name, NULL, 0, NULL, NULL };
        if (wl_replay(text, len, &ro, state, &why) != 0) {
            fprintf(stderr, "%s: replaying '%s': %s\n", prog, path, why.message);
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
    return 0;
}

int wr_cli_render(int argc, char **argv)
{
    struct opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc != 0)
        return rc < 0 ? 0 : rc;

    wl_sq centre = WL_SQ_NONE;
    if (o.center && (wl_grid_parse(o.center, (size_t)-1, &centre) != 0 ||
                     !wl_grid_on_board(centre))) {
        fprintf(stderr, "%s: --center '%s' is not a square of the board (squares are "
                        "written like X-27, AA-25 or 0-46)\n", prog, o.center);
        return 2;
    }

    struct wl_scenario *sc = malloc(sizeof *sc);
    struct wr_render_view *view = malloc(sizeof *view);
    json_t *header = NULL, *state = NULL;
    char *text = NULL;
    size_t len = 0;
    struct wr_strbuf out;
    wr_strbuf_init(&out);
    rc = 1;
    if (sc == NULL || view == NULL) {
        fprintf(stderr, "%s: out of memory\n", prog);
        goto done;
    }
    if (o.state && read_state(o.state, &header, &text, &len) != 0)
        goto done;
    if (load_scenario(sc, o.scenario, header) != 0)
        goto done;
    if (o.state) {
        if (state_json(o.state, text, len, header, &state) != 0)
            goto done;
        const char *named = json_string_value(json_object_get(state, "scenario"));
        if (named && strcmp(named, sc->name) != 0) {
            fprintf(stderr, "%s: the state '%s' is a game of scenario '%s', not of '%s' "
                            "(name its scenario with --scenario)\n",
                    prog, o.state, named, sc->name);
            goto done;
        }
        struct wr_refusal why;
        if (wr_render_view_from_state(view, sc, state, &why) != 0) {
            fprintf(stderr, "%s: %s: %s\n", prog, o.state, why.message);
            goto done;
        }
    } else {
        wr_render_view_setup(view, sc);
    }

    if (o.svg) {
        if (wr_render_svg(&out, sc, view) != 0) {
            fprintf(stderr, "%s: out of memory\n", prog);
            goto done;
        }
        rc = write_file(o.svg, &out);
        goto done;
    }
    struct wr_text_window win;
    int color = o.color;
    if (color < 0)
        color = isatty(STDOUT_FILENO) && getenv("NO_COLOR") == NULL;
    if (o.center)
        wr_render_window_around(&win, centre, o.radius >= 0 ? o.radius : DEFAULT_RADIUS);
    if (wr_render_text(&out, sc, view, o.center ? &win : NULL, color) != 0) {
        fprintf(stderr, "%s: out of memory\n", prog);
        goto done;
    }
    rc = write_file("-", &out);
done:
    wr_strbuf_release(&out);
    json_decref(state);
    json_decref(header);
    free(text);
    free(view);
    free(sc);
    return rc;
}
