/*
 * fuzz_waterloo_present.c - libFuzzer target for Waterloo's presentation
 * (common/rulesets/waterloo/waterloo_present.h): what a player types and
 * what a server sends, on the small test scenario.
 *
 * Positions are made once, at start-up: a random legal game (the ruleset's
 * random player, on the game rebuilt from each state), its state with a
 * server section kept every few commands (POSITIONS at most). The first
 * byte of an input picks a position (byte / 2) and what the rest is
 * (byte % 2), read up to its first NUL:
 *   0  a line the awaited seat types: order() must give a command (a JSON
 *      object with a "type", which precheck() answers with 1, 0, or -1 and
 *      a reason), an answer (text ending in a newline) or an error with a
 *      reason; the line's words are completed;
 *   1  a state from a server: update() takes it, or refuses it and keeps
 *      the view as it was (describe() says the same as before).
 * Either way describe() then ends in a newline and the text picture
 * without colour has no ESC byte and no line wider than its 60 columns;
 * the SVG of a state taken is one document (drawing the whole board, it
 * is left out otherwise: it would slow the target tenfold).
 *
 * FUZZ_PRESENT_SEEDS=DIR writes the seeds at start-up (each position's
 * state, and the example its description gives): that is how the committed
 * seed corpus was made.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "present.h"
#include "ruleset.h"
#include "waterloo_autoplay.h"
#include "waterloo_command.h"

#ifndef FUZZ_SCENARIO
#error "FUZZ_SCENARIO (a scenario file) must be defined by the build"
#endif

#define POSITIONS 64
#define EVERY 3                 /* commands between two positions kept */
#define COLS 60

extern const struct wr_ruleset wr_ruleset_waterloo;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static json_t *scenario;
static json_t *states[POSITIONS];
static char seats[POSITIONS][16];      /* the seat awaited there ("" when none) */
static char *described[POSITIONS];     /* what describe() says there */
static int npositions;

static json_t *with_server_section(const struct wr_game *g)
{
    struct wr_decision d[WR_DECISIONS_MAX];
    int n = g->rs->awaiting(g, d, WR_DECISIONS_MAX);
    json_t *st = g->rs->project(g, NULL), *aw = json_object();
    for (int i = 0; i < n; i++)
        json_object_set_new(aw, d[i].seat, json_string(d[i].what));
    const char *res = g->rs->result(g);
    json_object_set_new(st, "server",
                        json_pack("{s:s, s:o, s:n, s:o, s:o}", "status",
                                  res ? "finished" : "running", "result",
                                  res ? json_string(res) : json_null(), "forfeit", "awaiting",
                                  aw, "deadlines", json_object()));
    return st;
}

static void write_seed(const char *dir, const char *name, int byte, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return;
    fputc(byte, f);
    fputs(text, f);
    fclose(f);
}

/* The example of a description (the text of its first e.g. "..."), or NULL. */
static char *example_of(const char *text)
{
    const char *p = text ? strstr(text, "e.g. \"") : NULL;
    const char *q = p ? strchr(p + 6, '"') : NULL;
    return q ? strndup(p + 6, (size_t)(q - p - 6)) : NULL;
}

static void write_seeds(const char *dir)
{
    const struct wr_present *pr = wr_ruleset_waterloo.present;
    for (int i = 0; i < npositions; i++) {
        char name[32], *text = json_dumps(states[i], JSON_COMPACT);
        snprintf(name, sizeof name, "state%02d", i);
        write_seed(dir, name, 2 * i + 1, text);
        free(text);
        struct wr_refusal why;
        struct wr_view *v = pr->open(&wr_ruleset_waterloo, scenario, NULL, seats[i], NULL, &why);
        struct wr_strbuf d;
        wr_strbuf_init(&d);
        if (v && pr->update(v, states[i], &why) == 0)
            pr->describe(v, &d);
        char *line = example_of(d.s);
        if (line) {
            snprintf(name, sizeof name, "order%02d", i);
            write_seed(dir, name, 2 * i, line);
        }
        free(line);
        wr_strbuf_release(&d);
        if (v)
            pr->close(v);
    }
}

/* What every view must give, whatever it was fed; the SVG too with svg. */
static void check_view(const struct wr_present *pr, const struct wr_view *v, int svg,
                       char **said)
{
    struct wr_strbuf b;
    wr_strbuf_init(&b);
    pr->describe(v, &b);
    if (b.len == 0 || b.s[b.len - 1] != '\n')
        abort();        /* a description is lines */
    *said = strdup(b.s);
    wr_strbuf_release(&b);
    struct wr_draw_opts o = { .cols = COLS, .rows = 40, .color = 0 };
    if (pr->draw_text(v, &o, &b) != 0 || memchr(b.s, '\x1b', b.len))
        abort();        /* no colour asked for, an ESC written */
    for (const char *l = b.s; *l;) {
        const char *nl = strchr(l, '\n');
        int w = 0;
        for (const char *p = l; p < (nl ? nl : l + strlen(l)); p++)
            w += ((unsigned char)*p & 0xC0) != 0x80;
        if (w > COLS)
            abort();    /* a line wider than the room */
        l = nl ? nl + 1 : l + strlen(l);
    }
    wr_strbuf_release(&b);
    if (!svg)
        return;
    if (pr->draw_svg(v, &b) != 0 || b.len < 7 || strncmp(b.s, "<svg", 4) != 0 ||
        strcmp(b.s + b.len - 7, "</svg>\n") != 0)
        abort();        /* not one SVG document */
    wr_strbuf_release(&b);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const struct wr_ruleset *rs = &wr_ruleset_waterloo;
    struct wr_refusal why;
    struct wl_scenario *sc = malloc(sizeof *sc);
    struct wl_game *g = malloc(sizeof *g);
    struct wl_reach *reach = malloc(sizeof *reach);
    struct wl_cmd *cmd = malloc(sizeof *cmd);
    scenario = json_load_file(FUZZ_SCENARIO, 0, NULL);
    if (sc == NULL || g == NULL || reach == NULL || cmd == NULL || scenario == NULL ||
        wl_scenario_load(sc, scenario, NULL, NULL, &why) != 0) {
        fprintf(stderr, "fuzz_waterloo_present: cannot load %s\n", FUZZ_SCENARIO);
        abort();
    }
    static const uint8_t dice[32] = { 9 };
    struct wr_game *game = rs->create(scenario, NULL, "fuzz", dice, NULL, &why);
    struct wr_prng rng;
    wr_prng_seed(&rng, 5);
    if (game == NULL)
        abort();
    for (int n = 0; npositions < POSITIONS; n++) {
        json_t *st = with_server_section(game);
        const char *seat = wr_game_awaited(game);
        if (n % EVERY == 0 || seat == NULL) {
            states[npositions] = json_incref(st);
            snprintf(seats[npositions++], sizeof seats[0], "%s", seat ? seat : "");
        }
        if (seat == NULL || wl_game_init_from_state(g, sc, st, NULL, &why) != 0 ||
            wl_autoplay_next(g, &rng, reach, cmd) != 0) {
            json_decref(st);
            break;
        }
        json_t *c = wl_cmd_json(g, cmd), *events = NULL;
        if (wr_game_apply(game, seat, c, &events, &why) != 0)
            abort();    /* the random player proposed an illegal command */
        json_decref(events);
        json_decref(c);
        json_decref(st);
    }
    rs->destroy(game);
    const struct wr_present *pr = rs->present;
    for (int i = 0; i < npositions; i++) {
        struct wr_view *v = pr->open(rs, scenario, NULL, seats[i][0] ? seats[i] : "french",
                                     NULL, &why);
        if (v == NULL || pr->update(v, states[i], &why) != 0)
            abort();
        check_view(pr, v, 1, &described[i]);
        pr->close(v);
    }
    const char *dir = getenv("FUZZ_PRESENT_SEEDS");
    if (dir)
        write_seeds(dir);
    free(cmd);
    free(reach);
    free(g);
    free(sc);
    return 0;
}

static void add_nothing(void *ctx, const char *cand)
{
    (void)ctx;
    if (cand == NULL)
        abort();
}

static void fuzz_line(const struct wr_present *pr, struct wr_view *v, const char *line)
{
    json_t *cmd = NULL;
    struct wr_strbuf out;
    struct wr_refusal why = { 0, NULL, "" };
    wr_strbuf_init(&out);
    enum wr_order_kind k = pr->order(v, line, &cmd, &out, &why);
    if (k == WR_ORDER_COMMAND) {
        if (!json_is_string(json_object_get(cmd, "type")))
            abort();    /* a command without a type */
        why.code = NULL;
        int verdict = pr->precheck(v, cmd, &why);
        if (verdict < -1 || verdict > 1 || (verdict == -1 && why.code == NULL))
            abort();    /* a refusal without its reason */
    } else if (k == WR_ORDER_ANSWER) {
        if (out.len == 0 || out.s[out.len - 1] != '\n')
            abort();    /* an answer is lines */
    } else if (why.code == NULL || cmd != NULL) {
        abort();        /* an error without its reason */
    }
    json_decref(cmd);
    wr_strbuf_release(&out);
    /* complete every word of the line after the first */
    char *copy = strdup(line), *words[16], *save = NULL;
    int n = 0;
    for (char *w = strtok_r(copy, " ", &save); w && n < 16; w = strtok_r(NULL, " ", &save))
        words[n++] = w;
    for (int i = 1; i <= n; i++)
        pr->complete(v, (const char *const *)words, i, i < n ? words[i] : "", add_nothing, NULL);
    free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || npositions == 0)
        return 0;
    const struct wr_present *pr = wr_ruleset_waterloo.present;
    int pos = (data[0] / 2) % npositions;
    char *text = strndup((const char *)data + 1, size - 1);
    struct wr_refusal why;
    struct wr_view *v = pr->open(&wr_ruleset_waterloo, scenario, NULL,
                                 seats[pos][0] ? seats[pos] : "french", NULL, &why);
    if (text == NULL || v == NULL || pr->update(v, states[pos], &why) != 0)
        abort();
    char *said = NULL;
    int svg = 0;
    if (data[0] % 2 == 0) {
        fuzz_line(pr, v, text);
    } else {
        json_t *st = json_loads(text, 0, NULL);
        if (st && pr->update(v, st, &why) == 0) {
            svg = 1;
        } else if (st) {
            check_view(pr, v, 0, &said);
            if (strcmp(said, described[pos]) != 0)
                abort();        /* a refused state changed the view */
            free(said);
        }
        json_decref(st);
    }
    check_view(pr, v, svg, &said);
    free(said);
    pr->close(v);
    free(text);
    return 0;
}
