/*
 * cmd_campaign.c - "warroom campaign-map": a campaign's map and status.
 *
 *   warroom campaign-map --scenario FILE|NAME [--state FILE] [--svg OUT.svg]
 *
 * Without --svg, prints the towns with their owners and neighbours as text;
 * with --state, first the campaign's status (phase, turn, towns held, the
 * attack under way, who is awaited) and the command each awaited seat sends
 * next, with the towns it may name (checked with the rules' own functions,
 * common/rulesets/campaign/campaign.h). With --svg, draws the map: towns
 * at their "x", "y", a line for each adjacency, each town coloured by its
 * owner.
 *
 * The state is what the server sends: a `state` message, or its "state"
 * object (a campaign state, see common/rulesets/campaign/campaign.h).
 */
#include "commands.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign.h"
#include "campaign_map.h"
#include "scenarios.h"
#include "strbuf.h"

#define STATE_MAX (16u << 20)
#define SVG_W 1000.0            /* width of the picture, at least */
#define SVG_W_MAX 2400.0        /* ... and at most, however crowded the map */
#define SVG_MIN_GAP 40.0        /* distance wanted between the centres of two towns */
#define SVG_MARGIN 70.0
#define SVG_TOP 60.0            /* room for the title and the legend */

static const char prog[] = "warroom campaign-map";

/* Fill colours of p1..p8; free towns are white. */
static const char *const colours[WR_CAMPAIGN_PLAYERS_MAX] = {
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"
};

static void usage(FILE *out)
{
    fprintf(out,
        "usage: warroom campaign-map --scenario FILE|NAME [--state FILE] [--svg OUT.svg]\n"
        "\n"
        "List the towns of a campaign map with their owners and neighbours, or draw the\n"
        "map as SVG with the towns coloured by owner. With a game state, also show the\n"
        "campaign's status and the command each awaited seat sends next.\n"
        "\n"
        "  --scenario FILE|NAME  a campaign map: a file, or NAME for scenarios/NAME.json\n"
        "                        (e.g. campaign/low-countries-1815, campaign/ancient-world)\n"
        "  --state FILE          a campaign state (the server's state message or its\n"
        "                        \"state\"); \"-\" reads standard input\n"
        "  --svg OUT.svg         draw the map as SVG (\"-\" for standard output)\n"
        "  -h, --help            print this help\n");
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

static int load_map(struct wr_campaign_map *m, const char *arg)
{
    char path[4096];
    struct wr_refusal why;
    if (readable(arg) || ends_with(arg, ".json"))
        snprintf(path, sizeof path, "%s", arg);
    else if (wrc_scenario_path(arg, path, sizeof path) != 0) {
        fprintf(stderr, "%s: no scenario '%s': not a file, and no %s.json in "
                        "$WARROOM_SCENARIOS or ./scenarios\n", prog, arg, arg);
        return 1;
    }
    if (wr_campaign_map_load_file(m, path, &why) != 0) {
        fprintf(stderr, "%s: %s\n", prog, why.message);
        return 1;
    }
    return 0;
}

/* The campaign state in the file (new reference), or NULL (printed). */
static json_t *load_state(const char *path, const struct wr_campaign_map *m)
{
    size_t len;
    char *text = wrc_slurp(path, STATE_MAX, &len);
    if (text == NULL) {
        fprintf(stderr, "%s: cannot read state '%s': %s\n", prog, path, strerror(errno));
        return NULL;
    }
    json_error_t je;
    json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    free(text);
    if (j == NULL) {
        fprintf(stderr, "%s: %s:%d:%d: %s\n", prog, path, je.line, je.column, je.text);
        return NULL;
    }
    json_t *st = json_object_get(j, "state");
    const char *type = json_string_value(json_object_get(j, "type"));
    if (type && strcmp(type, "state") == 0 && json_is_object(st)) {
        json_incref(st);
        json_decref(j);
        j = st;
    }
    const char *rs = json_string_value(json_object_get(j, "ruleset"));
    const char *name = json_string_value(json_object_get(j, "map"));
    json_t *towns = json_object_get(j, "towns");
    if (rs == NULL || strcmp(rs, "campaign") != 0 || !json_is_object(towns) || name == NULL) {
        fprintf(stderr, "%s: '%s' is not a campaign state\n", prog, path);
        json_decref(j);
        return NULL;
    }
    if (strcmp(name, m->name) != 0) {
        fprintf(stderr, "%s: '%s' is a campaign on the map '%s', not '%s' (name its map with "
                        "--scenario)\n", prog, path, name, m->name);
        json_decref(j);
        return NULL;
    }
    const char *key;
    json_t *v;
    json_object_foreach(towns, key, v) {
        const char *o = json_string_value(v);
        if (wr_campaign_map_find(m, key) < 0 ||
            (!json_is_null(v) && (o == NULL || o[0] != 'p' || o[1] < '1' || o[1] > '8' || o[2]))) {
            fprintf(stderr, "%s: '%s': the town '%.60s' or its owner is not of this map\n", prog,
                    path, key);
            json_decref(j);
            return NULL;
        }
    }
    return j;
}

/* Player index 0..7 of the owner of town t in st, or -1. */
static int owner_of(const json_t *st, const struct wr_campaign_map *m, int t)
{
    const char *o = st ? json_string_value(json_object_get(json_object_get(st, "towns"),
                                                           m->towns[t].name))
                       : NULL;
    return o ? o[1] - '1' : -1;
}

/* A campaign in the position of st, to ask the rules what is legal. */
static struct wr_campaign *position(const struct wr_campaign_map *m, const json_t *st)
{
    json_t *opts = json_pack("{s:I, s:O}", "players",
                             (json_int_t)json_array_size(json_object_get(st, "players")),
                             "alliances", json_object_get(st, "alliances"));
    static const uint8_t seed[32];
    struct wr_refusal why;
    struct wr_campaign *c = opts ? wr_campaign_new(m, opts, "client", seed, NULL, &why) : NULL;
    json_decref(opts);
    if (c == NULL)
        return NULL;
    for (int t = 0; t < m->ntowns; t++)
        c->owner[t] = owner_of(st, m, t) < c->nplayers ? owner_of(st, m, t) : -1;
    json_t *a = json_object_get(st, "attack");
    c->at.attacker = c->at.target = -1;
    if (json_is_object(a)) {
        c->at.attacker = wr_campaign_player(c, json_string_value(json_object_get(a, "attacker")));
        c->at.target = wr_campaign_map_find(m, json_string_value(json_object_get(a, "target")));
    }
    return c;
}

static void list_names(struct wr_strbuf *b, const struct wr_campaign_map *m, uint64_t set)
{
    int n = 0;
    for (int t = 0; t < m->ntowns; t++)
        if (set >> t & 1u)
            wr_strbuf_printf(b, "%s%s", n++ ? ", " : "", m->towns[t].name);
    if (n == 0)
        wr_strbuf_puts(b, "(none)");
}

/* The command seat sends for what, and the towns it may name. */
static void next_command(struct wr_strbuf *b, const struct wr_campaign_map *m,
                         const json_t *st, const char *seat, const char *what)
{
    struct wr_campaign *c = position(m, st);
    int p = c ? wr_campaign_player(c, seat) : -1;
    uint64_t legal = 0;
    for (int t = 0; c && t < m->ntowns; t++) {
        enum wr_campaign_reason r = WR_CR_BAD_COMMAND;
        if (strcmp(what, "choose_town") == 0)
            r = wr_campaign_check_draft(c, p, t, NULL);
        else if (strcmp(what, "attack") == 0)
            r = wr_campaign_check_attack(c, p, t, NULL);
        else if (strcmp(what, "counter") == 0 && c->at.attacker >= 0 && c->at.target >= 0)
            r = wr_campaign_check_counter(c, c->at.attacker, c->at.target, t, NULL);
        if (r == WR_CR_OK)
            legal |= (uint64_t)1 << t;
    }
    wr_strbuf_printf(b, "  %s: ", seat);
    if (strcmp(what, "start") == 0) {
        wr_strbuf_puts(b, "{\"type\":\"start\"}  (the server rolls for the first choice)\n");
    } else if (strcmp(what, "choose_town") == 0 || strcmp(what, "attack") == 0 ||
               strcmp(what, "counter") == 0) {
        wr_strbuf_printf(b, "{\"type\":\"%s\",\"%s\":TOWN}\n      TOWN: ", what,
                         strcmp(what, "attack") == 0 ? "target" : "town");
        list_names(b, m, legal);
        wr_strbuf_puts(b, "\n");
    } else if (strcmp(what, "choose_strategy") == 0) {
        wr_strbuf_puts(b, "{\"type\":\"choose_strategy\",\"strategy\":S}\n      S: flank_march, "
                          "hidden_ambush, scouts, rapid_deployment, good_planning\n");
    } else if (strcmp(what, "tactic") == 0) {
        wr_strbuf_puts(b, "{\"type\":\"tactic\",\"choice\":T,\"salt\":SALT}  (salt optional)\n"
                          "      T: march, counter_march, attack, defend, regroup (not your last "
                          "after no battle)\n"
                          "      or first {\"type\":\"commit\",\"commitment\":H}, H = "
                          "sha256(T followed by SALT) in lowercase hex\n");
    } else if (strcmp(what, "seal_ambush") == 0) {
        wr_strbuf_puts(b, "{\"type\":\"seal_ambush\",\"note\":\"where the hidden unit is\"}\n");
    } else if (strcmp(what, "report") == 0 || strcmp(what, "settle") == 0) {
        wr_strbuf_printf(b, "{\"type\":\"%s\",\"attacker\":VP,\"defender\":VP}  (victory "
                            "points of the battle)\n", what);
    } else {
        wr_strbuf_printf(b, "%s\n", what);
    }
    wr_campaign_free(c);
}

/* The campaign's status, from the state. */
static void status_text(struct wr_strbuf *b, const struct wr_campaign_map *m, const json_t *st)
{
    const char *phase = json_string_value(json_object_get(st, "phase"));
    json_int_t turn = json_integer_value(json_object_get(st, "turn"));
    json_t *mt = json_object_get(st, "max_turns");
    wr_strbuf_printf(b, "phase: %s", phase ? phase : "?");
    if (turn > 0) {
        wr_strbuf_printf(b, ", turn %lld", (long long)turn);
        if (json_is_integer(mt))
            wr_strbuf_printf(b, " of %lld", (long long)json_integer_value(mt));
    }
    wr_strbuf_puts(b, "\nheld:");
    const char *key;
    json_t *v;
    int n = 0;
    json_object_foreach(json_object_get(st, "held"), key, v)
        wr_strbuf_printf(b, "%s %s %lld", n++ ? "," : "", key, (long long)json_integer_value(v));
    wr_strbuf_puts(b, "\n");
    size_t i;
    json_t *al;
    json_array_foreach(json_object_get(st, "alliances"), i, al) {
        char *s = json_dumps(al, JSON_COMPACT);
        wr_strbuf_printf(b, "alliance: %s\n", s ? s : "?");
        free(s);
    }
    json_t *a = json_object_get(st, "attack");
    if (json_is_object(a)) {
        const char *counter = json_string_value(json_object_get(a, "counter"));
        wr_strbuf_printf(b, "attack: %s attacks %s's %s",
                         json_string_value(json_object_get(a, "attacker")),
                         json_string_value(json_object_get(a, "defender")),
                         json_string_value(json_object_get(a, "target")));
        if (counter)
            wr_strbuf_printf(b, "; %s is at stake", counter);
        wr_strbuf_printf(b, "; round %lld\n",
                         (long long)json_integer_value(json_object_get(a, "round")));
        json_array_foreach(json_object_get(a, "strategies"), i, v)
            wr_strbuf_printf(b, "  strategy: %s %s (rolled %lld)\n",
                             json_string_value(json_object_get(v, "seat")),
                             json_string_value(json_object_get(v, "strategy")),
                             (long long)json_integer_value(json_object_get(v, "roll")));
        json_t *bt = json_object_get(a, "battle");
        if (json_is_object(bt))
            wr_strbuf_printf(b, "  battle: %s, %lld points a side\n",
                             json_string_value(json_object_get(bt, "text")),
                             (long long)json_integer_value(json_object_get(bt, "points")));
    }
    const char *winner = json_string_value(json_object_get(st, "winner"));
    if (winner)
        wr_strbuf_printf(b, "over: %s (%s)\n",
                         strcmp(winner, "draw") == 0 ? "a draw" : winner,
                         json_string_value(json_object_get(st, "end")) ?
                         json_string_value(json_object_get(st, "end")) : "?");
    json_t *seats = json_object_get(json_object_get(st, "awaiting"), "seats");
    if (json_object_size(seats)) {
        wr_strbuf_puts(b, "next:\n");
        json_object_foreach(seats, key, v)
            next_command(b, m, st, key, json_string_value(v) ? json_string_value(v) : "?");
    }
}

static void map_text(struct wr_strbuf *b, const struct wr_campaign_map *m, const json_t *st)
{
    wr_strbuf_printf(b, "%s: %d towns\n", m->name, m->ntowns);
    if (st)
        status_text(b, m, st);
    wr_strbuf_puts(b, "\n");
    wr_strbuf_printf(b, "  %-24s %-6s %s\n", "town", "owner", "adjacent");
    for (int t = 0; t < m->ntowns; t++) {
        int o = owner_of(st, m, t);
        char owner[16] = "-";
        if (o >= 0)
            snprintf(owner, sizeof owner, "p%d", o + 1);
        wr_strbuf_printf(b, "  %-24s %-6s ", m->towns[t].name, owner);
        list_names(b, m, m->towns[t].adj);
        wr_strbuf_puts(b, "\n");
    }
}

/* --- SVG ------------------------------------------------------------------- */

static double dmin(double a, double b) { return a < b ? a : b; }
static double dmax(double a, double b) { return a > b ? a : b; }

/* Drawing positions: the map's x, y scaled into the picture (y grows
 * downward); towns without a position are lined up below the map. */
static void layout(const struct wr_campaign_map *m, double *px, double *py, double *width,
                   double *height)
{
    double x0 = 1e300, x1 = -1e300, y0 = 1e300, y1 = -1e300;
    int placed = 0;
    for (int t = 0; t < m->ntowns; t++)
        if (m->towns[t].has_xy) {
            placed++;
            x0 = dmin(x0, m->towns[t].x);
            x1 = dmax(x1, m->towns[t].x);
            y0 = dmin(y0, m->towns[t].y);
            y1 = dmax(y1, m->towns[t].y);
        }
    /* Fit the larger side into the picture, or more when two towns would
     * come closer than SVG_MIN_GAP (a crowded map gets a bigger picture). */
    double span = placed ? dmax(x1 - x0, y1 - y0) : 0, closest = 1e300;
    for (int t = 0; t < m->ntowns; t++)
        for (int u = t + 1; u < m->ntowns; u++)
            if (m->towns[t].has_xy && m->towns[u].has_xy) {
                double dx = m->towns[t].x - m->towns[u].x, dy = m->towns[t].y - m->towns[u].y;
                double d2 = dx * dx + dy * dy;
                closest = d2 > 0 ? dmin(closest, d2) : closest;
            }
    double scale = span > 0 ? (SVG_W - 2 * SVG_MARGIN) / span : 1;
    while (closest < 1e300 && closest * scale * scale < SVG_MIN_GAP * SVG_MIN_GAP &&
           span * scale < SVG_W_MAX - 2 * SVG_MARGIN)
        scale *= 1.05;
    double w = placed ? dmax((x1 - x0) * scale, SVG_W - 2 * SVG_MARGIN) : SVG_W - 2 * SVG_MARGIN;
    double h = placed ? (y1 - y0) * scale : 0;
    double row = SVG_TOP + SVG_MARGIN + h + (placed ? SVG_MARGIN : 0);
    int loose = 0;
    for (int t = 0; t < m->ntowns; t++) {
        if (m->towns[t].has_xy) {
            px[t] = SVG_MARGIN + (m->towns[t].x - x0) * scale;
            py[t] = SVG_TOP + SVG_MARGIN + (m->towns[t].y - y0) * scale;
        } else {
            px[t] = SVG_MARGIN + (loose % 6) * (w / 5);
            py[t] = row + (loose / 6) * 50.0;
            loose++;
        }
    }
    *height = (loose ? row + ((loose - 1) / 6) * 50.0 : SVG_TOP + SVG_MARGIN + h) + SVG_MARGIN;
    *width = w + 2 * SVG_MARGIN + 80;      /* room for the names of the easternmost towns */
}

static int map_svg(struct wr_strbuf *b, const struct wr_campaign_map *m, const json_t *st)
{
    double px[WR_CAMPAIGN_TOWNS_MAX], py[WR_CAMPAIGN_TOWNS_MAX], w, h;
    layout(m, px, py, &w, &h);
    wr_strbuf_printf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                        "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n",
                     w, h, w, h);
    wr_strbuf_puts(b, "<style>.road{stroke:#888;stroke-width:2}.town{stroke:#222;stroke-width:1.5}"
                      ".name{font-size:11px;fill:#111}.legend{font-size:14px}</style>\n");
    wr_strbuf_printf(b, "<rect width=\"%.0f\" height=\"%.0f\" fill=\"#f7f3e8\"/>\n", w, h);
    wr_strbuf_puts(b, "<text x=\"20\" y=\"30\" font-size=\"20\">");
    wr_strbuf_xml(b, m->name);
    wr_strbuf_puts(b, "</text>\n");
    /* The legend: each player's colour and towns held. */
    int held[WR_CAMPAIGN_PLAYERS_MAX] = { 0 }, nfree = 0, nplayers = 0;
    for (int t = 0; t < m->ntowns; t++) {
        int o = owner_of(st, m, t);
        if (o >= 0 && o < WR_CAMPAIGN_PLAYERS_MAX)
            held[o]++;
        else
            nfree++;
    }
    nplayers = st ? (int)json_array_size(json_object_get(st, "players")) : 0;
    double lx = 20;
    for (int p = 0; p < nplayers && p < WR_CAMPAIGN_PLAYERS_MAX; p++, lx += 110)
        wr_strbuf_printf(b, "<circle cx=\"%.0f\" cy=\"50\" r=\"7\" fill=\"%s\" class=\"town\"/>"
                            "<text class=\"legend\" x=\"%.0f\" y=\"55\">p%d: %d</text>\n",
                         lx + 7, colours[p], lx + 20, p + 1, held[p]);
    wr_strbuf_printf(b, "<circle cx=\"%.0f\" cy=\"50\" r=\"7\" fill=\"#fff\" class=\"town\"/>"
                        "<text class=\"legend\" x=\"%.0f\" y=\"55\">free: %d</text>\n",
                     lx + 7, lx + 20, nfree);
    /* Adjacency, each pair once. */
    wr_strbuf_puts(b, "<g class=\"roads\">\n");
    for (int t = 0; t < m->ntowns; t++)
        for (int u = t + 1; u < m->ntowns; u++)
            if (wr_campaign_map_adjacent(m, t, u))
                wr_strbuf_printf(b, "<line class=\"road\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                                    "y2=\"%.1f\"/>\n", px[t], py[t], px[u], py[u]);
    wr_strbuf_puts(b, "</g>\n<g class=\"towns\">\n");
    for (int t = 0; t < m->ntowns; t++) {
        int o = owner_of(st, m, t);
        wr_strbuf_printf(b, "<g class=\"town-%s\"><circle class=\"town\" cx=\"%.1f\" cy=\"%.1f\" "
                            "r=\"9\" fill=\"%s\"><title>", o >= 0 ? "owned" : "free", px[t], py[t],
                         o >= 0 && o < WR_CAMPAIGN_PLAYERS_MAX ? colours[o] : "#ffffff");
        wr_strbuf_xml(b, m->towns[t].name);
        if (o >= 0)
            wr_strbuf_printf(b, ": p%d", o + 1);
        /* The name goes to the right of the town, or above it when another
         * town sits there. */
        int crowded = 0;
        for (int u = 0; u < m->ntowns && !crowded; u++)
            crowded = u != t && py[u] - py[t] < 14 && py[t] - py[u] < 14 && px[u] > px[t] &&
                      px[u] - px[t] < 110;
        if (crowded)
            wr_strbuf_printf(b, "</title></circle><text class=\"name\" text-anchor=\"middle\" "
                                "x=\"%.1f\" y=\"%.1f\">", px[t], py[t] - 13);
        else
            wr_strbuf_printf(b, "</title></circle><text class=\"name\" x=\"%.1f\" y=\"%.1f\">",
                             px[t] + 12, py[t] + 4);
        wr_strbuf_xml(b, m->towns[t].name);
        wr_strbuf_puts(b, "</text></g>\n");
    }
    wr_strbuf_puts(b, "</g>\n</svg>\n");
    return b->failed ? -1 : 0;
}

static int write_out(const char *path, const struct wr_strbuf *b)
{
    FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "wb");
    if (f == NULL) {
        fprintf(stderr, "%s: cannot write '%s': %s\n", prog, path, strerror(errno));
        return 1;
    }
    int ok = fwrite(b->s, 1, b->len, f) == b->len;
    ok = (f == stdout ? fflush(f) : fclose(f)) == 0 && ok;
    if (!ok) {
        fprintf(stderr, "%s: cannot write '%s': %s\n", prog, path, strerror(errno));
        return 1;
    }
    return 0;
}

int wrc_cmd_campaign_map(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "scenario", required_argument, NULL, 's' },
        { "state", required_argument, NULL, 'S' },
        { "svg", required_argument, NULL, 'g' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *scenario = NULL, *state = NULL, *svg = NULL;
    int opt;
    optind = 0;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (opt) {
        case 's': scenario = optarg; break;
        case 'S': state = optarg; break;
        case 'g': svg = optarg; break;
        case 'h':
            usage(stdout);
            return 0;
        case ':':
            fprintf(stderr, "%s: %s needs a value\n", prog, argv[optind - 1]);
            return 2;
        default:
            fprintf(stderr, "%s: unknown option '%s' (see warroom campaign-map --help)\n", prog,
                    argv[optind - 1]);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "%s: unexpected argument '%s'\n", prog, argv[optind]);
        return 2;
    }
    if (scenario == NULL) {
        fprintf(stderr, "%s: --scenario names the campaign map (e.g. campaign/ancient-world)\n",
                prog);
        return 2;
    }
    struct wr_campaign_map *m = malloc(sizeof *m);
    json_t *st = NULL;
    struct wr_strbuf out;
    wr_strbuf_init(&out);
    int rc = 1;
    if (m == NULL || load_map(m, scenario) != 0)
        goto done;
    if (state && (st = load_state(state, m)) == NULL)
        goto done;
    if (svg) {
        if (map_svg(&out, m, st) != 0) {
            fprintf(stderr, "%s: out of memory\n", prog);
            goto done;
        }
        rc = write_out(svg, &out);
    } else {
        map_text(&out, m, st);
        rc = out.failed ? 1 : write_out("-", &out);
    }
done:
    wr_strbuf_release(&out);
    json_decref(st);
    free(m);
    return rc;
}
