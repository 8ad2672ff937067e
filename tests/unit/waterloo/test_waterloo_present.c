/*
 * test_waterloo_present.c - Waterloo's presentation, driven only through
 * struct wr_present (present.h) as a client drives it, on states the
 * ruleset makes itself: games created with wr_ruleset_waterloo, commands
 * applied with wr_game_apply(), projected and given a "server" section
 * as server/games.c's server_section() writes it.
 *
 * What it asserts: open() loads a scenario (its base through the host) and
 * refuses what it cannot load; update() refuses a state that does not fit
 * and keeps the old one; every order line gives exactly its command, and
 * a bad line an error with the order's synopsis; every example of the
 * orders table is an order; the queries answer and mark the picture;
 * precheck() agrees with apply() on every command of scripted and random
 * games (accepted, or refused with the same code and sentence); describe()
 * names the awaited seat and decision, the units the rules require and an
 * example that the rules accept; events read as sentences; completion
 * offers the units, squares and battles that fit; the text picture has no
 * ESC byte without colour and fits its columns and rows; the SVG is one
 * document, the 1815 set-up byte for byte docs/waterloo-1815-start.svg.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "present.h"
#include "prng.h"
#include "ruleset.h"
#include "waterloo_autoplay.h"
#include "waterloo_command.h"
#include "waterloo_suggest.h"

#ifndef WARROOM_SCENARIO_DIR
#error "WARROOM_SCENARIO_DIR must be defined by the build"
#endif
#ifndef WARROOM_DOCS_DIR
#error "WARROOM_DOCS_DIR must be defined by the build"
#endif

extern const struct wr_ruleset wr_ruleset_waterloo;

/* --- the host: forced dice, scenarios by name ---------------------------------------- */

struct dice {
    int faces[64];              /* face of roll k; 0: none */
};

static int forced_roll(void *ctx, uint32_t k)
{
    const struct dice *d = ctx;
    return k < 64 ? d->faces[k] : 0;
}

static json_t *load_json(const char *path)
{
    json_error_t e;
    return json_load_file(path, JSON_REJECT_DUPLICATES, &e);
}

static json_t *scenario_by_name(void *ctx, const char *name)
{
    (void)ctx;
    static const struct { const char *dir, *file; } forms[] = {
        { "", ".json" }, { "test/", ".json" }, { "", "/scenario.json" },
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s%s%s", WARROOM_SCENARIO_DIR, forms[i].dir, name,
                 forms[i].file);
        json_t *j = load_json(path);
        if (j)
            return j;
    }
    return NULL;
}

/* --- a game and its views ------------------------------------------------------------ */

struct fx {
    struct dice dice;
    struct wr_host host;
    const struct wr_ruleset *rs;
    const struct wr_present *pr;
    json_t *scenario;
    struct wr_game *game;
    struct wr_view *fr, *al, *spec;
};

/* The server section of server/games.c's server_section(), for a game
 * whose seats are all claimed. */
static json_t *server_section(const struct wr_game *g)
{
    struct wr_decision d[WR_DECISIONS_MAX];
    int n = g->rs->awaiting(g, d, WR_DECISIONS_MAX);
    json_t *aw = json_object();
    for (int i = 0; i < n; i++)
        json_object_set_new(aw, d[i].seat, json_string(d[i].what));
    const char *res = g->rs->result(g);
    return json_pack("{s:s, s:o, s:n, s:o, s:o}", "status", res ? "finished" : "running",
                     "result", res ? json_string(res) : json_null(), "forfeit", "awaiting", aw,
                     "deadlines", json_object());
}

static json_t *state_of(const struct wr_game *g)
{
    json_t *st = g->rs->project(g, NULL);
    assert_non_null(st);
    json_object_set_new(st, "server", server_section(g));
    return st;
}

static struct wr_view *open_view(struct fx *f, const char *seat)
{
    struct wr_refusal why;
    struct wr_view *v = f->pr->open(f->rs, f->scenario, NULL, seat, &f->host, &why);
    if (v == NULL)
        fail_msg("open(%s): %s", seat ? seat : "spectator", why.message);
    return v;
}

/* Every view takes the game's state now. */
static void sync(struct fx *f)
{
    json_t *st = state_of(f->game);
    struct wr_view *vs[] = { f->fr, f->al, f->spec };
    for (size_t i = 0; i < 3; i++) {
        struct wr_refusal why;
        if (f->pr->update(vs[i], st, &why) != 0)
            fail_msg("update: %s", why.message);
    }
    json_decref(st);
}

/* A game of the scenario file name (under scenarios/), with forced dice
 * when faces is not NULL (else a seed), and its three views. */
static struct fx *fx_new_with(const char *name, const int *faces, int nfaces,
                              const char *options);

static struct fx *fx_new(const char *name, const int *faces, int nfaces)
{
    return fx_new_with(name, faces, nfaces, NULL);
}

/* A game of scenario name with the create() options given as JSON text (NULL: none). */
static struct fx *fx_new_with(const char *name, const int *faces, int nfaces,
                              const char *options)
{
    struct fx *f = calloc(1, sizeof *f);
    assert_non_null(f);
    for (int i = 0; i < nfaces && i < 64; i++)
        f->dice.faces[i] = faces[i];
    f->host = (struct wr_host){ forced_roll, scenario_by_name, &f->dice };
    f->rs = &wr_ruleset_waterloo;
    f->pr = f->rs->present;
    assert_ptr_not_equal(f->pr, &wr_present_plain);
    char path[512];
    snprintf(path, sizeof path, "%s/%s", WARROOM_SCENARIO_DIR, name);
    f->scenario = load_json(path);
    assert_non_null(f->scenario);
    static const uint8_t seed[32] = { 18, 6, 15 };
    struct wr_refusal why;
    json_t *opts = options ? json_loads(options, 0, NULL) : NULL;
    assert_true(options == NULL || opts != NULL);
    f->game = f->rs->create(f->scenario, opts, "present-test", faces ? NULL : seed, &f->host,
                            &why);
    json_decref(opts);
    if (f->game == NULL)
        fail_msg("create: %s", why.message);
    f->fr = open_view(f, "french");
    f->al = open_view(f, "allied");
    f->spec = open_view(f, NULL);
    sync(f);
    return f;
}

static void fx_free(struct fx *f)
{
    f->pr->close(f->fr);
    f->pr->close(f->al);
    f->pr->close(f->spec);
    f->rs->destroy(f->game);
    json_decref(f->scenario);
    free(f);
}

static struct wr_view *view_of(struct fx *f, const char *seat)
{
    return strcmp(seat, "french") == 0 ? f->fr : f->al;
}

/* The command of an order line typed by seat (fails the test otherwise). */
static json_t *command_of(struct fx *f, const char *seat, const char *line)
{
    json_t *cmd = NULL;
    struct wr_strbuf out;
    struct wr_refusal why;
    wr_strbuf_init(&out);
    enum wr_order_kind k = f->pr->order(view_of(f, seat), line, &cmd, &out, &why);
    if (k != WR_ORDER_COMMAND)
        fail_msg("'%s' is not a command: %s", line, k == WR_ORDER_ERROR ? why.message : "a query");
    wr_strbuf_release(&out);
    return cmd;
}

/* Check cmd from seat with precheck(), then apply it to the game: the
 * verdicts agree (the same code and sentence when refused; an advance may
 * not be judged). Returns 0 when applied (the views then take the new
 * state), else the refusal's code in why. */
static int judge_and_apply(struct fx *f, int row, const char *seat, const json_t *cmd,
                           struct wr_refusal *why)
{
    struct wr_refusal local = { 0, NULL, "" };
    int verdict = f->pr->precheck(view_of(f, seat), cmd, &local);
    json_t *events = NULL;
    int rc = wr_game_apply(f->game, seat, cmd, &events, why);
    json_decref(events);
    char *text = json_dumps(cmd, JSON_COMPACT | JSON_SORT_KEYS);
    const char *type = json_string_value(json_object_get(cmd, "type"));
    if (verdict == 0 && !(type && strcmp(type, "advance") == 0))
        fail_msg("row %d: %s %s could not be judged", row, seat, text);
    if (verdict == 1 && rc != 0)
        fail_msg("row %d: %s %s: precheck accepts, apply refuses (%s: %s)", row, seat, text,
                 why->code, why->message);
    if (verdict == -1 && rc == 0)
        fail_msg("row %d: %s %s: precheck refuses (%s: %s), apply accepts", row, seat, text,
                 local.code, local.message);
    if (verdict == -1 && (strcmp(local.code, why->code) != 0 ||
                          strcmp(local.message, why->message) != 0))
        fail_msg("row %d: %s %s: precheck says %s (%s), apply %s (%s)", row, seat, text,
                 local.code, local.message, why->code, why->message);
    free(text);
    if (rc == 0)
        sync(f);
    return rc;
}

/* Rows of a script: seat, an order line or a JSON command, and the code
 * expected ("ok" when it must be applied). */
struct step {
    int row;
    const char *seat;
    const char *order;
    const char *code;
};

static void run_steps(struct fx *f, const struct step *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        json_t *cmd = s[i].order[0] == '{' ? json_loads(s[i].order, 0, NULL)
                                           : command_of(f, s[i].seat, s[i].order);
        assert_non_null(cmd);
        struct wr_refusal why = { 0, "ok", "" };
        int rc = judge_and_apply(f, s[i].row, s[i].seat, cmd, &why);
        if (strcmp(rc == 0 ? "ok" : why.code, s[i].code) != 0)
            fail_msg("row %d: %s '%s' gave %s (%s), want %s", s[i].row, s[i].seat, s[i].order,
                     rc == 0 ? "ok" : why.code, why.message, s[i].code);
        json_decref(cmd);
    }
}

/* --- text helpers -------------------------------------------------------------------- */

static char *describe(struct fx *f, struct wr_view *v)
{
    struct wr_strbuf out;
    wr_strbuf_init(&out);
    f->pr->describe(v, &out);
    assert_non_null(out.s);
    assert_int_equal(out.failed, 0);
    assert_true(out.len > 0 && out.s[out.len - 1] == '\n');
    return out.s;       /* the caller frees */
}

/* The example of a description: the text of its first e.g. "...". */
static int example_of(const char *text, char *line, size_t n)
{
    const char *p = strstr(text, "e.g. \"");
    if (p == NULL)
        return -1;
    p += 6;
    const char *q = strchr(p, '"');
    if (q == NULL || (size_t)(q - p) >= n)
        return -1;
    snprintf(line, n, "%.*s", (int)(q - p), p);
    return 0;
}

/* Follow the example of seat's description: it must be an order the rules
 * accept, and is applied. */
static void follow_example(struct fx *f, int row, const char *seat)
{
    char *d = describe(f, view_of(f, seat));
    char line[1024];
    if (example_of(d, line, sizeof line) != 0)
        fail_msg("row %d: %s's description has no example:\n%s", row, seat, d);
    json_t *cmd = command_of(f, seat, line);
    struct wr_refusal why;
    if (judge_and_apply(f, row, seat, cmd, &why) != 0)
        fail_msg("row %d: the example '%s' was refused: %s", row, line, why.message);
    json_decref(cmd);
    free(d);
}

static void expect_in(int row, const char *text, const char *want)
{
    if (strstr(text, want) == NULL)
        fail_msg("row %d: '%s' is not in:\n%s", row, want, text);
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* Characters a terminal shows on the widest line (escapes take none). */
static int widest_line(const char *s)
{
    int best = 0, w = 0;
    for (const char *p = s; *p; p++) {
        if (*p == '\n') {
            w = 0;
            continue;
        }
        if (*p == '\x1b') {
            while (p[1] && !(p[1] >= 0x40 && p[1] <= 0x7E && p[1] != '['))
                p++;
            p++;
            continue;
        }
        if (((unsigned char)*p & 0xC0) != 0x80 && ++w > best)
            best = w;
    }
    return best;
}

/* --- open and update ------------------------------------------------------------------- */

static void test_open(void **state)
{
    (void)state;
    const struct wr_ruleset *rs = &wr_ruleset_waterloo;
    const struct wr_present *pr = rs->present;
    struct dice d = { { 0 } };
    struct wr_host host = { forced_roll, scenario_by_name, &d };
    struct wr_refusal why;

    /* 1) no scenario, a broken one, a base without a host to find it */
    assert_null(pr->open(rs, NULL, NULL, "french", &host, &why));
    assert_string_equal(why.code, "bad_scenario");
    json_t *broken = json_pack("{s:s}", "name", "broken");
    assert_null(pr->open(rs, broken, NULL, "french", &host, &why));
    assert_string_equal(why.code, "bad_scenario");
    json_decref(broken);
    json_t *over = load_json(WARROOM_SCENARIO_DIR "/test/override.json");
    assert_non_null(over);
    assert_null(pr->open(rs, over, NULL, "allied", NULL, &why));
    assert_string_equal(why.code, "bad_scenario");

    /* 2) the base found through the host; options kept; before a state */
    json_t *opts = json_pack("{s:i}", "deadline_seconds", 60);
    struct wr_view *v = pr->open(rs, over, opts, "allied", &host, &why);
    json_decref(opts);
    if (v == NULL)
        fail_msg("override.json: %s", why.message);
    assert_ptr_equal(v->pr, pr);
    assert_ptr_equal(v->rs, rs);
    assert_string_equal(v->seat, "allied");
    assert_int_equal(v->has_state, 0);
    struct wr_strbuf out;
    wr_strbuf_init(&out);
    pr->describe(v, &out);
    assert_int_equal(count_lines(out.s), 1);
    expect_in(1, out.s, "no state yet");
    expect_in(2, out.s, "Test: Mont-St-Jean, afternoon");
    wr_strbuf_release(&out);
    /* no state: nothing to judge, no position to query */
    json_t *cmd = json_pack("{s:s}", "type", "end_phase");
    assert_int_equal(pr->precheck(v, cmd, &why), 0);
    json_decref(cmd);
    assert_int_equal(pr->order(v, "reach aa-wissel", &cmd, &out, &why), WR_ORDER_ERROR);
    assert_string_equal(why.code, "bad_command");
    assert_int_equal(pr->order(v, "end", &cmd, &out, &why), WR_ORDER_COMMAND);
    assert_string_equal(json_string_value(json_object_get(cmd, "type")), "end_phase");
    json_decref(cmd);
    pr->close(v);
    json_decref(over);
}

static void test_update(void **state)
{
    (void)state;
    struct fx *f = fx_new("test/small.json", NULL, 0);
    char *before = describe(f, f->fr);
    struct wr_refusal why;
    /* 1) not an object; 2) another scenario's state; 3) a unit off the board */
    json_t *arr = json_array();
    assert_int_equal(f->pr->update(f->fr, arr, &why), -1);
    json_decref(arr);
    json_t *st = state_of(f->game);
    json_object_set_new(st, "scenario", json_string("Test: elsewhere"));
    assert_int_equal(f->pr->update(f->fr, st, &why), -1);
    expect_in(2, why.message, "Test: elsewhere");
    json_object_set_new(st, "scenario", json_string("Test: Mont-St-Jean, small"));
    json_object_set_new(json_object_get(json_object_get(st, "units"), "fr-jerome"), "at",
                        json_string("ZZ-99"));
    assert_int_equal(f->pr->update(f->fr, st, &why), -1);
    expect_in(3, why.message, "units.fr-jerome: 'ZZ-99' is not a square of the board");
    json_decref(st);
    /* the view kept the state it had */
    char *after = describe(f, f->fr);
    assert_string_equal(before, after);
    free(before);
    free(after);
    fx_free(f);
}

/* --- orders --------------------------------------------------------------------------- */

static void test_orders_table(void **state)
{
    (void)state;
    struct fx *f = fx_new("test/small.json", NULL, 0);
    int n = 0;
    for (const struct wr_order *o = f->pr->orders; o->name; o++, n++) {
        assert_non_null(o->synopsis);
        assert_non_null(o->help);
        assert_non_null(o->example);
        if (strncmp(o->synopsis, o->name, strlen(o->name)) != 0 ||
            strncmp(o->example, o->name, strlen(o->name)) != 0)
            fail_msg("row %d: %s: its synopsis and example start with another word", n + 1,
                     o->name);
        if (strlen(o->help) < 20 || o->help[strlen(o->help) - 1] != '.')
            fail_msg("row %d: %s: the help is not a sentence", n + 1, o->name);
        assert_ptr_equal(wr_present_order(f->pr, o->name), o);
        /* the example is an order of its kind */
        json_t *cmd = NULL;
        struct wr_strbuf out;
        struct wr_refusal why;
        wr_strbuf_init(&out);
        enum wr_order_kind k = f->pr->order(f->spec, o->example, &cmd, &out, &why);
        enum wr_order_kind want = o->query ? WR_ORDER_ANSWER : WR_ORDER_COMMAND;
        /* the queries' examples name units of the 1815 scenario */
        if (o->query && k == WR_ORDER_ERROR && strcmp(why.code, "unknown_unit") == 0)
            k = WR_ORDER_ANSWER;
        if (k != want)
            fail_msg("row %d: example '%s' gave kind %d (%s)", n + 1, o->example, k,
                     k == WR_ORDER_ERROR ? why.message : "");
        json_decref(cmd);
        wr_strbuf_release(&out);
    }
    assert_int_equal(n, 17);
    for (const char *const *w = (const char *const[]){ "place", "endsetup", "move", "end",
             "undo", "attack", "declare", "resolve", "retreat", "exchange", "advance", "noadvance",
             "defect", "reach", "odds", "view", "clear", NULL }; *w; w++)
        if (wr_present_order(f->pr, *w) == NULL)
            fail_msg("no order %s", *w);
    fx_free(f);
}

/* The command of line for view v, as compact JSON with sorted keys. */
static char *command_text(struct fx *f, struct wr_view *v, const char *line, struct wr_refusal *why)
{
    json_t *cmd = NULL;
    struct wr_strbuf out;
    wr_strbuf_init(&out);
    enum wr_order_kind k = f->pr->order(v, line, &cmd, &out, why);
    char *text = k == WR_ORDER_COMMAND ? json_dumps(cmd, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    if (k == WR_ORDER_COMMAND)
        assert_int_equal(out.len, 0);
    json_decref(cmd);
    wr_strbuf_release(&out);
    return text;
}

static void test_order_commands(void **state)
{
    (void)state;
    /* the French set-up is awaited: end means end_setup */
    struct fx *f = fx_new("test/small.json", NULL, 0);
    static const struct { int row; const char *line, *json; } rows[] = {
        { 1, "move fr-jerome j-40 i-40",
          "{\"path\":[\"J-40\",\"I-40\"],\"type\":\"move\",\"unit\":\"fr-jerome\"}" },
        { 2, "  move   fr-jerome,fr-foy J-40 ",
          "{\"path\":[\"J-40\"],\"type\":\"move\",\"units\":[\"fr-jerome\",\"fr-foy\"]}" },
        { 3, "move fr-jerome A-40 off",
          "{\"path\":[\"A-40\",\"off\"],\"type\":\"move\",\"unit\":\"fr-jerome\"}" },
        { 4, "end", "{\"type\":\"end_setup\"}" },
        { 5, "end_phase", "{\"type\":\"end_setup\"}" },
        { 6, "endsetup", "{\"type\":\"end_setup\"}" },
        { 7, "end_setup", "{\"type\":\"end_setup\"}" },
        { 8, "place fr-jerome l-42", "{\"at\":\"L-42\",\"type\":\"place\",\"unit\":\"fr-jerome\"}" },
        { 9, "attack fr-jerome fr-foy vs aa-picton; fr-pire vs aa-cooke",
          "{\"battles\":[{\"attackers\":[\"fr-jerome\",\"fr-foy\"],\"defenders\":[\"aa-picton\"]},"
          "{\"attackers\":[\"fr-pire\"],\"defenders\":[\"aa-cooke\"]}],\"type\":\"declare\"}" },
        { 10, "attack fr-jerome,fr-foy vs aa-picton ; fr-pire vs aa-cooke and fr-ii-art vs aa-ross;",
          "{\"battles\":[{\"attackers\":[\"fr-jerome\",\"fr-foy\"],\"defenders\":[\"aa-picton\"]},"
          "{\"attackers\":[\"fr-pire\"],\"defenders\":[\"aa-cooke\"]},"
          "{\"attackers\":[\"fr-ii-art\"],\"defenders\":[\"aa-ross\"]}],\"type\":\"declare\"}" },
        { 11, "declare fr-jerome,fr-foy:aa-picton fr-pire:aa-cooke,aa-ross",
          "{\"battles\":[{\"attackers\":[\"fr-jerome\",\"fr-foy\"],\"defenders\":[\"aa-picton\"]},"
          "{\"attackers\":[\"fr-pire\"],\"defenders\":[\"aa-cooke\",\"aa-ross\"]}],"
          "\"type\":\"declare\"}" },
        { 12, "declare", "{\"battles\":[],\"type\":\"declare\"}" },
        { 13, "resolve 3", "{\"battle\":3,\"type\":\"resolve\"}" },
        { 14, "resolve", "{\"type\":\"resolve\"}" },
        { 15, "retreat aa-picton g-40 off",
          "{\"path\":[\"G-40\",\"off\"],\"type\":\"retreat\",\"unit\":\"aa-picton\"}" },
        { 16, "exchange fr-jerome fr-foy",
          "{\"type\":\"exchange_losses\",\"units\":[\"fr-jerome\",\"fr-foy\"]}" },
        { 17, "exchange_losses fr-jerome,fr-foy",
          "{\"type\":\"exchange_losses\",\"units\":[\"fr-jerome\",\"fr-foy\"]}" },
        { 18, "advance fr-jerome h-40", "{\"to\":\"H-40\",\"type\":\"advance\",\"unit\":\"fr-jerome\"}" },
        { 19, "noadvance", "{\"type\":\"no_advance\"}" },
        { 20, "no_advance", "{\"type\":\"no_advance\"}" },
        { 21, "defect aa-wissel pr-15", "{\"type\":\"defect\",\"units\":[\"aa-wissel\",\"pr-15\"]}" },
        { 22, "move fr-jerome aa-25", "{\"path\":[\"AA-25\"],\"type\":\"move\",\"unit\":\"fr-jerome\"}" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct wr_refusal why;
        char *got = command_text(f, f->fr, rows[i].line, &why);
        if (got == NULL)
            fail_msg("row %d: '%s' refused: %s", rows[i].row, rows[i].line, why.message);
        if (strcmp(got, rows[i].json) != 0)
            fail_msg("row %d: '%s' gave %s, want %s", rows[i].row, rows[i].line, got,
                     rows[i].json);
        free(got);
    }
    /* once the set-up is over, end ends the movement phase; resolve takes
     * the first battle still declared (filled from the state) */
    static const struct step script[] = {
        { 30, "french", "endsetup", "ok" },
        { 31, "allied", "place aa-picton I-40", "ok" },
        { 32, "allied", "endsetup", "ok" },
        { 33, "french", "move fr-jerome,fr-foy J-40", "ok" },
    };
    run_steps(f, script, sizeof script / sizeof script[0]);
    struct wr_refusal why;
    char *got = command_text(f, f->fr, "end", &why);
    assert_string_equal(got, "{\"type\":\"end_phase\"}");
    free(got);
    static const struct step declare[] = {
        { 34, "french", "end", "ok" },
        { 35, "french", "attack fr-jerome fr-foy vs aa-picton", "ok" },
    };
    run_steps(f, declare, sizeof declare / sizeof declare[0]);
    got = command_text(f, f->fr, "resolve", &why);
    assert_string_equal(got, "{\"battle\":0,\"type\":\"resolve\"}");
    free(got);
    fx_free(f);
}

static void test_order_errors(void **state)
{
    (void)state;
    struct fx *f = fx_new("test/small.json", NULL, 0);
    static const struct { int row; const char *line, *want; } rows[] = {
        { 1, "move fr-jerome", "usage: move UNIT[,UNIT...] SQUARE... [off]" },
        { 2, "move", "usage: move UNIT" },
        { 3, "place fr-jerome", "usage: place UNIT SQUARE" },
        { 4, "place fr-jerome L-42 L-43", "usage: place UNIT SQUARE" },
        { 5, "end now", "usage: end (e.g. end)" },
        { 6, "endsetup please", "usage: endsetup" },
        { 7, "attack fr-jerome aa-picton", "usage: attack ATTACKER... vs DEFENDER..." },
        { 8, "attack vs aa-picton x", "usage: attack ATTACKER... vs DEFENDER..." },
        { 9, "attack fr-jerome vs aa-picton vs aa-cooke", "usage: attack" },
        { 10, "attack fr-jerome vs ; fr-foy vs aa-cooke", "usage: attack" },
        { 11, "declare fr-jerome", "usage: declare ATTACKER[,ATTACKER...]:DEFENDER" },
        { 12, "declare :aa-picton", "'" ":aa-picton' is not ATTACKERS:DEFENDERS" },
        { 13, "resolve first", "usage: resolve [BATTLE]" },
        { 14, "resolve -1", "usage: resolve [BATTLE]" },
        { 15, "resolve 1 2", "usage: resolve [BATTLE]" },
        { 16, "retreat aa-picton G-40", "usage: retreat UNIT SQUARE SQUARE" },
        { 17, "exchange", "usage: exchange UNIT..." },
        { 18, "advance fr-jerome", "usage: advance UNIT SQUARE" },
        { 19, "noadvance now", "usage: noadvance" },
        { 20, "defect", "usage: defect UNIT..." },
        { 21, "reach", "usage: reach UNIT[,UNIT...]" },
        { 22, "odds fr-jerome aa-picton", "usage: odds ATTACKER... vs DEFENDER..." },
        { 23, "view ZZ-99", "usage: view [SQUARE [RADIUS]]" },
        { 24, "view J-40 99", "usage: view [SQUARE [RADIUS]]" },
        { 25, "view J-40 4 4", "usage: view [SQUARE [RADIUS]]" },
        { 26, "clear all", "usage: clear" },
        { 27, "fly fr-jerome", "unknown order 'fly' (orders: place, endsetup, move, end," },
        { 28, "", "no order given" },
        { 29, "   ", "no order given" },
        { 30, "{\"type\":\"end_phase\"}", "unknown order" },
        { 31, "mark 4", "unknown order 'mark' (orders:" },
        { 31, "mvoe fr-jerome J-40", "unknown order 'mvoe': did you mean move? (orders: place," },
        /* one unit at a time: refused here, before anything is sent */
        { 32, "advance fr-jerome,fr-foy I-40",
          "advance takes one unit at a time: advance fr-jerome ..., then the next" },
        { 33, "retreat aa-picton,aa-cooke H-40 G-40",
          "retreat takes one unit at a time: retreat aa-picton ..., then the next" },
        { 34, "place fr-jerome,fr-foy L-42", "place takes one unit at a time" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        json_t *cmd = NULL;
        struct wr_strbuf out;
        struct wr_refusal why = { 0, NULL, "" };
        wr_strbuf_init(&out);
        enum wr_order_kind k = f->pr->order(f->fr, rows[i].line, &cmd, &out, &why);
        if (k != WR_ORDER_ERROR)
            fail_msg("row %d: '%s' was taken", rows[i].row, rows[i].line);
        assert_null(cmd);
        assert_int_equal(out.len, 0);
        if (strcmp(why.code, "bad_command") != 0)
            fail_msg("row %d: '%s' gave %s", rows[i].row, rows[i].line, why.code);
        expect_in(rows[i].row, why.message, rows[i].want);
        wr_strbuf_release(&out);
    }
    /* a line longer than an order may be */
    char *longline = malloc(5000);
    assert_non_null(longline);
    memset(longline, 'x', 4999);
    longline[4999] = '\0';
    memcpy(longline, "move ", 5);
    json_t *cmd = NULL;
    struct wr_strbuf out;
    struct wr_refusal why;
    wr_strbuf_init(&out);
    assert_int_equal(f->pr->order(f->fr, longline, &cmd, &out, &why), WR_ORDER_ERROR);
    assert_string_equal(why.code, "bad_command");
    free(longline);
    fx_free(f);
}

/* --- queries and pictures -------------------------------------------------------------- */

static char *draw(struct fx *f, struct wr_view *v, int cols, int rows, int color)
{
    struct wr_draw_opts o = { .cols = cols, .rows = rows, .color = color };
    struct wr_strbuf out;
    wr_strbuf_init(&out);
    assert_int_equal(f->pr->draw_text(v, &o, &out), 0);
    assert_non_null(out.s);
    return out.s;
}

static char *ask(struct fx *f, struct wr_view *v, const char *line)
{
    json_t *cmd = NULL;
    struct wr_strbuf out;
    struct wr_refusal why;
    wr_strbuf_init(&out);
    enum wr_order_kind k = f->pr->order(v, line, &cmd, &out, &why);
    if (k != WR_ORDER_ANSWER)
        fail_msg("'%s': %s", line, k == WR_ORDER_ERROR ? why.message : "not a query");
    assert_null(cmd);
    assert_non_null(out.s);
    assert_true(out.s[out.len - 1] == '\n');
    return out.s;
}

static void test_queries(void **state)
{
    (void)state;
    struct fx *f = fx_new("test/small.json", NULL, 0);
    static const struct step script[] = {
        { 1, "french", "endsetup", "ok" },
        { 2, "allied", "place aa-picton I-40", "ok" },
        { 3, "allied", "endsetup", "ok" },
    };
    run_steps(f, script, sizeof script / sizeof script[0]);

    /* reach: the squares, marked on the next picture; clear removes them */
    char *a = ask(f, f->fr, "reach fr-pire");
    expect_in(1, a, "fr-pire can reach ");
    expect_in(2, a, " J-40");          /* into Picton's zone, and no further */
    expect_in(3, a, "(marked * on the board)");
    free(a);
    char *t = draw(f, f->fr, 0, 0, 0);
    expect_in(4, t, "* marked square");
    free(t);
    t = draw(f, f->fr, 80, 40, 0);
    expect_in(5, t, "* marked square");
    expect_in(6, t, "K-41");           /* centred on Pire: its stack is listed */
    free(t);
    /* marks are the view's own: the other views show none */
    t = draw(f, f->al, 0, 0, 0);
    assert_null(strstr(t, "* marked square"));
    free(t);
    a = ask(f, f->fr, "clear");
    expect_in(7, a, "marks cleared");
    free(a);
    t = draw(f, f->fr, 0, 0, 0);
    assert_null(strstr(t, "* marked square"));
    free(t);
    a = ask(f, f->fr, "clear");
    expect_in(8, a, "nothing was marked");
    free(a);
    /* a new state takes the marks away */
    a = ask(f, f->fr, "reach fr-foy");
    free(a);
    run_steps(f, (const struct step[]){ { 9, "french", "move fr-jerome J-40", "ok" } }, 1);
    t = draw(f, f->fr, 0, 0, 0);
    assert_null(strstr(t, "* marked square"));
    free(t);

    /* reach errors: a unit the scenario lacks; one that has moved */
    json_t *cmd = NULL;
    struct wr_strbuf out;
    struct wr_refusal why;
    wr_strbuf_init(&out);
    assert_int_equal(f->pr->order(f->fr, "reach fr-nobody", &cmd, &out, &why), WR_ORDER_ERROR);
    assert_string_equal(why.code, "unknown_unit");
    assert_int_equal(f->pr->order(f->fr, "reach fr-jerome", &cmd, &out, &why), WR_ORDER_ERROR);
    assert_string_equal(why.code, "already_moved");
    assert_int_equal(out.len, 0);

    /* odds: Jerome on the slope J-40 against Picton on the hill top I-40 */
    a = ask(f, f->fr, "odds fr-jerome vs aa-picton");
    expect_in(10, a, "attack 6 against defence 12: column 1-2; die 1-6: 1=AB2");
    expect_in(11, a, "aa-picton 12 (doubled by terrain)");
    free(a);
    a = ask(f, f->fr, "odds fr-jerome,fr-foy vs aa-cooke aa-picton");
    expect_in(12, a, "defenders: aa-cooke");
    free(a);
    assert_int_equal(f->pr->order(f->fr, "odds fr-jerome vs aa-wissel", &cmd, &out, &why),
                     WR_ORDER_ERROR);
    assert_string_equal(why.code, "unit_not_on_board");

    /* view: a fixed centre and radius, then the action again */
    a = ask(f, f->fr, "view e-43 2");
    expect_in(13, a, "view: centred on E-43, 2 squares around");
    free(a);
    t = draw(f, f->fr, 120, 60, 0);
    char first[64];
    snprintf(first, sizeof first, "\nC ");
    expect_in(14, t, first);            /* rows C..G around E */
    assert_null(strstr(t, "\nB "));
    assert_null(strstr(t, "\nH "));
    expect_in(15, t, "towns: E-43 Waterloo");
    free(t);
    a = ask(f, f->fr, "view");
    expect_in(16, a, "following the action");
    free(a);
    t = draw(f, f->fr, 120, 30, 0);
    expect_in(17, t, "\nJ ");           /* Jerome's move to J-40 */
    free(t);
    wr_strbuf_release(&out);
    fx_free(f);
}

static void test_draw_text_fits(void **state)
{
    (void)state;
    struct fx *f = fx_new("waterloo-1815/scenario.json", NULL, 0);
    static const struct { int cols, rows; } room[] = {
        { 0, 0 }, { 200, 0 }, { 120, 50 }, { 100, 40 }, { 80, 24 }, { 60, 30 }, { 40, 20 },
        { 24, 12 }, { 12, 6 }, { 8, 3 },
    };
    struct wr_view *vs[] = { f->fr, f->spec };
    for (size_t k = 0; k < 2; k++)
        for (size_t i = 0; i < sizeof room / sizeof room[0]; i++)
            for (int color = 0; color < 2; color++) {
                char *t = draw(f, vs[k], room[i].cols, room[i].rows, color);
                int esc = strchr(t, '\x1b') != NULL;
                if (esc != color)
                    fail_msg("row %zu: %dx%d color %d: %s ESC", i + 1, room[i].cols,
                             room[i].rows, color, esc ? "an" : "no");
                if (room[i].cols && widest_line(t) > room[i].cols)
                    fail_msg("row %zu: %dx%d color %d: a line of %d characters", i + 1,
                             room[i].cols, room[i].rows, color, widest_line(t));
                if (room[i].rows && count_lines(t) > room[i].rows)
                    fail_msg("row %zu: %dx%d: %d lines", i + 1, room[i].cols, room[i].rows,
                             count_lines(t));
                if (room[i].cols == 0 && room[i].rows == 0) {
                    expect_in((int)i + 1, t, "\nWW ");      /* the whole board */
                    expect_in((int)i + 1, t, "waterloo-1815: Turn 1, 1815-06-16");
                } else if (room[i].rows >= 24) {
                    expect_in((int)i + 1, t, "key: F/P/A");
                }
                free(t);
            }
    fx_free(f);
}

static void test_draw_svg(void **state)
{
    (void)state;
    /* before any state: the scenario's set-up, as the docs show it */
    const struct wr_ruleset *rs = &wr_ruleset_waterloo;
    struct dice d = { { 0 } };
    struct wr_host host = { forced_roll, scenario_by_name, &d };
    struct wr_refusal why;
    json_t *sc = load_json(WARROOM_SCENARIO_DIR "/waterloo-1815/scenario.json");
    assert_non_null(sc);
    struct wr_view *v = rs->present->open(rs, sc, NULL, NULL, &host, &why);
    assert_non_null(v);
    struct wr_strbuf out;
    wr_strbuf_init(&out);
    assert_int_equal(rs->present->draw_svg(v, &out), 0);
    FILE *file = fopen(WARROOM_DOCS_DIR "/waterloo-1815-start.svg", "rb");
    assert_non_null(file);
    char *want = malloc(out.len + 2);
    assert_non_null(want);
    size_t n = fread(want, 1, out.len + 1, file);
    fclose(file);
    if (n != out.len || memcmp(want, out.s, n) != 0)
        fail_msg("the SVG before any state is not docs/waterloo-1815-start.svg");
    free(want);
    wr_strbuf_release(&out);
    rs->present->close(v);
    json_decref(sc);

    /* a state: the units where it puts them */
    struct fx *f = fx_new("test/small.json", NULL, 0);
    run_steps(f, (const struct step[]){ { 1, "french", "place fr-jerome L-42", "ok" } }, 1);
    assert_int_equal(f->pr->draw_svg(f->spec, &out), 0);
    assert_true(strncmp(out.s, "<svg", 4) == 0);
    assert_true(out.len > 7 && strcmp(out.s + out.len - 7, "</svg>\n") == 0);
    const char *g = strstr(out.s, "id=\"u-fr-jerome\" transform=\"translate(");
    assert_non_null(g);
    double x, y;
    assert_int_equal(sscanf(g + strlen("id=\"u-fr-jerome\" transform=\"translate("), "%lf %lf",
                            &x, &y), 2);
    /* L-42: row 12, x = 84 + 12 - 51 = 45 from the east edge */
    double ex = 150.0 + (66 - 45) * 17.320508075688775, ey = 110.0 + 12 * 30.0;
    assert_true(x > ex - 0.01 && x < ex + 0.01 && y > ey - 0.01 && y < ey + 0.01);
    expect_in(2, out.s, "Turn 1, 1815-06-18 07:00, setup_french");
    wr_strbuf_release(&out);
    fx_free(f);
}

/* --- what the SVG says to a host (present.h version 3) ---------------------------------- */

static char *svg_of(struct fx *f, struct wr_view *v)
{
    struct wr_strbuf out;
    wr_strbuf_init(&out);
    assert_int_equal(f->pr->draw_svg(v, &out), 0);
    return out.s;
}

/* One row: after the script's first `after` steps, what the French,
 * Allied and spectator drawings hold (has) and do not hold (hasnt). */
struct svg_row {
    int row;
    size_t after;
    const char *has[3][3];
    const char *hasnt[3][2];
};

/* On test/small with the die 6: Jerome and Foy (11) attack Picton (6) and
 * resolve: an exchange at 1-1, the French to choose their losses
 * (test_draw_svg_acts, test_exchange). */
static const struct step exchange_opening[] = {
    { 1, "french", "endsetup", "ok" },
    { 2, "allied", "place aa-picton I-38", "ok" },
    { 3, "allied", "endsetup", "ok" },
    { 4, "french", "move fr-jerome,fr-foy K-39 K-38 J-38", "ok" },
    { 5, "french", "end", "ok" },
    { 6, "french", "attack fr-jerome fr-foy vs aa-picton", "ok" },
    { 7, "french", "resolve", "ok" },
};

/* data-act by phase and seat: placing in the set-up, moving, attacking,
 * the units of the battle in an exchange; only for the seat awaited; a
 * spectator's drawing never has one. Every unit and square is named
 * (data-word), every unit selects its reach (data-select), the root clears
 * (data-clear); reach marks its squares. */
static void test_draw_svg_acts(void **state)
{
    (void)state;
    static const int faces[] = { 6 };
    struct fx *f = fx_new("test/small.json", faces, 1);
    static const struct svg_row rows[] = {
        { 1, 0, { { "data-act=\"place fr-jerome\"", "data-word=\"K-39\"", "data-clear=\"clear\"" },
                  { "data-word=\"fr-jerome\" data-select=\"reach fr-jerome\"", NULL, NULL },
                  { "data-word=\"aa-picton\"", NULL, NULL } },
          { { "data-act=\"move", "data-act=\"place aa-" }, { "data-act=", NULL },
            { "data-act=", NULL } } },
        { 2, 1, { { NULL, NULL, NULL }, { "data-act=\"place aa-picton\"", NULL, NULL },
                  { NULL, NULL, NULL } },
          { { "data-act=", NULL }, { "data-act=\"place fr-", NULL }, { "data-act=", NULL } } },
        { 3, 3, { { "data-act=\"move fr-jerome\"", "data-act=\"move fr-foy\"", NULL },
                  { NULL, NULL, NULL }, { NULL, NULL, NULL } },
          { { "data-act=\"move aa-", "data-act=\"place" }, { "data-act=", NULL },
            { "data-act=", NULL } } },
        { 4, 5, { { "data-act=\"attack fr-jerome\"", "data-word=\"J-38\"", NULL },
                  { NULL, NULL, NULL }, { NULL, NULL, NULL } },
          { { "data-act=\"move", "data-act=\"attack aa-" }, { "data-act=", NULL },
            { "data-act=", NULL } } },
        { 5, 7, { { "data-act=\"exchange fr-jerome\"", "data-act=\"exchange fr-foy\"", NULL },
                  { NULL, NULL, NULL }, { NULL, NULL, NULL } },
          { { "data-act=\"attack", "data-act=\"exchange aa-" }, { "data-act=", NULL },
            { "data-act=", NULL } } },
    };
    size_t done = 0;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const struct svg_row *r = &rows[i];
        run_steps(f, exchange_opening + done, r->after - done);
        done = r->after;
        struct wr_view *vs[3] = { f->fr, f->al, f->spec };
        for (int k = 0; k < 3; k++) {
            char *svg = svg_of(f, vs[k]);
            for (int j = 0; j < 3; j++)
                if (r->has[k][j] && strstr(svg, r->has[k][j]) == NULL)
                    fail_msg("row %d, view %d: no %s", r->row, k, r->has[k][j]);
            for (int j = 0; j < 2; j++)
                if (r->hasnt[k][j] && strstr(svg, r->hasnt[k][j]) != NULL)
                    fail_msg("row %d, view %d: %s", r->row, k, r->hasnt[k][j]);
            assert_non_null(strstr(svg, "data-clear=\"clear\""));
            free(svg);
        }
    }
    fx_free(f);

    /* reach marks its squares in the SVG, clear takes them away */
    f = fx_new("test/small.json", NULL, 0);
    run_steps(f, exchange_opening, 3);
    char *svg = svg_of(f, f->fr);
    assert_null(strstr(svg, "class=\"h reach\""));
    free(svg);
    free(ask(f, f->fr, "reach fr-jerome"));
    svg = svg_of(f, f->fr);
    assert_non_null(strstr(svg, "class=\"h reach\""));
    free(svg);
    svg = svg_of(f, f->al);     /* the other view's picture is its own */
    assert_null(strstr(svg, "class=\"h reach\""));
    free(svg);
    free(ask(f, f->fr, "clear"));
    svg = svg_of(f, f->fr);
    assert_null(strstr(svg, "class=\"h reach\""));
    free(svg);
    fx_free(f);
}

/* preview (present.h version 3): attack and declare preview odds, a query
 * taking the same words; no other order has one. */
static void test_orders_preview(void **state)
{
    (void)state;
    struct fx *f = fx_new("test/small.json", NULL, 0);
    assert_true(f->pr->version >= 3);
    int n = 0;
    for (const struct wr_order *o = f->pr->orders; o->name; o++) {
        int want = strcmp(o->name, "attack") == 0 || strcmp(o->name, "declare") == 0;
        if (!want) {
            if (o->preview)
                fail_msg("%s previews %s", o->name, o->preview);
            continue;
        }
        assert_non_null(o->preview);
        assert_string_equal(o->preview, "odds");
        const struct wr_order *q = wr_present_order(f->pr, o->preview);
        assert_non_null(q);
        assert_true(q->query);
        n++;
    }
    assert_int_equal(n, 2);
    /* the same words: the attack's example, its name replaced, is an odds query */
    const struct wr_order *a = wr_present_order(f->pr, "attack");
    char line[256];
    snprintf(line, sizeof line, "odds%s", a->example + strlen("attack"));
    json_t *cmd = NULL;
    struct wr_strbuf out;
    struct wr_refusal why;
    wr_strbuf_init(&out);
    enum wr_order_kind k = f->pr->order(f->spec, line, &cmd, &out, &why);
    /* the example names units of the 1815 scenario */
    assert_true(k == WR_ORDER_ANSWER || (k == WR_ORDER_ERROR &&
                                        strcmp(why.code, "unknown_unit") == 0));
    assert_null(cmd);
    wr_strbuf_release(&out);
    fx_free(f);
}

struct cands {
    char list[8192];
    int n;
};

static void add_cand(void *ctx, const char *cand)
{
    struct cands *c = ctx;
    size_t len = strlen(c->list);
    snprintf(c->list + len, sizeof c->list - len, "%s|", cand);
    c->n++;
}

static void complete(struct fx *f, struct wr_view *v, const char *const *words, int nwords,
                     const char *word, struct cands *c)
{
    c->list[0] = '|';
    c->list[1] = '\0';
    c->n = 0;
    f->pr->complete(v, words, nwords, word, add_cand, c);
}

/* Every candidate of list ("|A|B|") is a square next to square near. */
static void all_near(int row, const char *list, const char *near)
{
    wl_sq a, b;
    assert_int_equal(wl_grid_parse(near, (size_t)-1, &a), 0);
    for (const char *p = list + 1; *p; p += strcspn(p, "|") + 1) {
        char sq[16];
        snprintf(sq, sizeof sq, "%.*s", (int)strcspn(p, "|"), p);
        if (wl_grid_parse(sq, (size_t)-1, &b) != 0 || wl_grid_distance(a, b) != 1)
            fail_msg("row %d: %s is not next to %s (%s)", row, sq, near, list);
    }
}

/* --- the game, scripted ---------------------------------------------------------------- */

/* A battle from set-up to the advance, each command checked with precheck()
 * and applied; describe() at each decision. Die: 2 (DB2 at 1-1). */
static void test_battle(void **state)
{
    (void)state;
    static const int faces[] = { 2 };
    struct fx *f = fx_new("test/small.json", faces, 1);
    char *d;

    /* set-up */
    d = describe(f, f->fr);
    expect_in(1, d, "Turn 1, 1815-06-18 07:00, setup_french: awaiting french (setup)\n");
    expect_in(2, d, "Your decision (setup): place your units on squares of the french set-up "
                    "zone (14 squares");
    expect_in(3, d, "Orders: place UNIT SQUARE, e.g. \"place ");
    free(d);
    /* not awaited: where the game stands and the record, no decision */
    d = describe(f, f->al);
    assert_int_equal(count_lines(d), 4);
    assert_null(strstr(d, "Your decision"));
    free(d);
    d = describe(f, f->spec);
    assert_int_equal(count_lines(d), 4);
    expect_in(4, d, "awaiting french (setup)\nTurn 1 of 6, 1815-06-18 07:00, 6 turns left "
                    "with this one\nStill to arrive: turn 2: aa-wissel at Hal; turn 4: pr-15 "
                    "at Brussels\nLost: none\n");
    free(d);
    static const struct step setup[] = {
        { 10, "allied", "endsetup", "not_your_turn" },
        { 11, "french", "end_phase", "ok" },      /* end_phase during the set-up: end_setup */
        { 12, "allied", "place aa-picton N-42", "outside_setup_zone" },
        { 13, "allied", "place fr-jerome H-42", "not_your_unit" },
        { 14, "allied", "place aa-picton ZZ-99", "bad_square" },
        { 15, "allied", "place aa-nobody H-42", "unknown_unit" },
        { 16, "allied", "place aa-cooke G-41", "ok" },          /* 4 + 6 on G-41 */
        { 16, "allied", "place aa-picton G-41", "stacking" },   /* + 6: 16 */
        { 16, "allied", "place aa-cooke H-41", "ok" },
        { 17, "allied", "move aa-picton H-39", "wrong_phase" },
        { 18, "allied", "place aa-picton I-40", "ok" },
        { 19, "allied", "endsetup", "ok" },
    };
    run_steps(f, setup, sizeof setup / sizeof setup[0]);

    /* French movement into Picton's zone */
    d = describe(f, f->fr);
    expect_in(20, d, "french_move: awaiting french (move)\nYour decision (move): move any of "
                     "your units that have not moved this phase");
    /* Reille, a team HQ, is no counter of a 2-player game under rules 2: "In a 2-player
     * game use only the HQ Units labeled Wellington, Napoleon and Blucher." */
    expect_in(21, d, "Not moved yet: fr-napoleon, fr-jerome, fr-foy, fr-pire, "
                     "fr-ii-art, fr-guard-ha\n");
    expect_in(22, d, "Reinforcements due: none\n");
    free(d);
    follow_example(f, 23, "french");   /* a legal move of the random player's choosing */
    static const struct step move[] = {
        { 30, "allied", "end", "not_your_turn" },
        { 31, "french", "move fr-ii-art L-39 L-38 L-37 L-36 L-35", "too_far" },
        { 32, "french", "move fr-nobody J-40", "unknown_unit" },
        { 33, "french", "move aa-picton H-40", "not_your_unit" },
        { 35, "french", "move fr-jerome,fr-foy J-40", "ok" },
        { 36, "french", "move fr-jerome J-41", "already_moved" },
        { 37, "french", "move fr-pire K-40 J-40 I-41", "zoc_stop" },
        { 38, "french", "move fr-pire K-40 J-40", "ok" },
        { 39, "french", "place fr-ii-art L-42", "wrong_phase" },
        { 40, "french", "end", "ok" },
    };
    /* the example may have moved one of these already: start afresh */
    fx_free(f);
    f = fx_new("test/small.json", faces, 1);
    run_steps(f, (const struct step[]){ { 41, "french", "endsetup", "ok" },
                                        { 42, "allied", "place aa-picton I-40", "ok" },
                                        { 43, "allied", "endsetup", "ok" } }, 3);
    run_steps(f, move, sizeof move / sizeof move[0]);

    /* the declaration: rules 2, battles one at a time (docs/rules-notes.md D1) */
    d = describe(f, f->fr);
    expect_in(50, d, "french_combat: awaiting french (combat)\n");
    expect_in(51, d, "Must still attack (in an enemy zone): fr-jerome on J-40, fr-foy on J-40, "
                     "fr-pire on J-40\n");
    expect_in(52, d, "Must still be attacked (one of yours in its zone): aa-picton on I-40\n");
    expect_in(53, d, "e.g. \"attack fr-");
    free(d);
    static const struct step declare[] = {
        { 54, "french", "declare", "must_attack" },       /* no battle: end_phase */
        { 54, "french", "end", "must_attack" },
        /* Foy and Pire would be left with no enemy to attack */
        { 55, "french", "attack fr-jerome vs aa-picton", "stranded" },
        { 56, "french", "attack fr-jerome fr-foy fr-pire vs aa-cooke", "not_in_zone" },
        { 57, "french", "attack fr-jerome vs aa-picton ; fr-jerome vs aa-picton", "one_battle" },
        { 58, "french", "attack fr-napoleon fr-jerome fr-foy fr-pire vs aa-picton",
          "hq_cannot_attack" },
        { 59, "french", "attack fr-jerome fr-foy fr-pire vs aa-picton", "ok" },
        { 59, "french", "end", "battle_open" },
    };
    run_steps(f, declare, sizeof declare / sizeof declare[0]);

    /* resolve: 15 against 12 (Picton on the hill top), column 1-1 */
    d = describe(f, f->fr);
    expect_in(60, d, "  battle 0: fr-jerome,fr-foy,fr-pire vs aa-picton at 15-12 (column "
                     "1-1), declared\n");
    expect_in(61, d, "Your decision (combat)");
    expect_in(61, d, "Must still attack (in an enemy zone): none\n");
    expect_in(62, d, "Battle 0: fr-jerome,fr-foy,fr-pire vs aa-picton at 15-12, column 1-1: "
                     "die 1-6 gives AB2 DB2 AB2 DB2 AE EX\n");
    expect_in(63, d, "e.g. \"resolve 0\"");
    free(d);
    static const struct step resolve[] = {
        { 64, "french", "resolve 1", "no_such_battle" },
        { 65, "french", "resolve", "ok" },          /* battle 0; the die shows 2: DB2 */
    };
    run_steps(f, resolve, sizeof resolve / sizeof resolve[0]);

    /* the retreat, chosen by the French */
    d = describe(f, f->fr);
    expect_in(70, d, "awaiting french (retreat)\n");
    expect_in(71, d, "Your decision (retreat): you won battle 0 (DB2)");
    expect_in(72, d, "aa-picton on I-40, open routes: ");
    free(d);
    static const struct step retreat[] = {
        { 73, "french", "retreat fr-jerome I-41 H-41", "not_losing" },
        { 74, "french", "{\"type\":\"retreat\",\"unit\":\"aa-picton\",\"path\":[\"H-40\"]}",
          "bad_retreat" },
        { 75, "allied", "retreat aa-picton H-40 G-39", "not_your_turn" },
    };
    run_steps(f, retreat, sizeof retreat / sizeof retreat[0]);
    /* completion: the unit that must retreat, then the first squares of
     * its open routes (next to I-40), then the second of the route chosen */
    struct cands c;
    complete(f, f->fr, (const char *const[]){ "retreat" }, 1, "", &c);
    assert_string_equal(c.list, "|aa-picton|");
    complete(f, f->fr, (const char *const[]){ "retreat", "aa-picton" }, 2, "", &c);
    assert_true(c.n >= 1);
    all_near(77, c.list, "I-40");
    char first[16];
    snprintf(first, sizeof first, "%.*s", (int)strcspn(c.list + 1, "|"), c.list + 1);
    complete(f, f->fr, (const char *const[]){ "retreat", "aa-picton", first }, 3, "", &c);
    assert_true(c.n >= 1);
    all_near(78, c.list, first);
    follow_example(f, 76, "french");

    /* the advance: from the slope J-40 onto the hill top Picton left */
    d = describe(f, f->fr);
    expect_in(80, d, "awaiting french (advance)\n");
    /* the view saw the battle declared: it knows the square Picton left */
    expect_in(81, d, "  fr-jerome on J-40 may advance to I-40\n  fr-foy on J-40 may advance "
                     "to I-40\n  fr-pire on J-40 may advance to I-40\n");
    expect_in(82, d, "e.g. \"advance fr-jerome I-40\"");
    free(d);
    /* a view opened now did not: it names the attackers that might, and
     * leaves the advance to the server */
    struct wr_view *late = open_view(f, "french");
    json_t *st = state_of(f->game);
    struct wr_refusal why;
    assert_int_equal(f->pr->update(late, st, &why), 0);
    json_decref(st);
    d = describe(f, late);
    expect_in(83, d, "Attackers on a river or slope square: fr-jerome on J-40, fr-foy on J-40, "
                     "fr-pire on J-40\n  (This view did not see the battle declared");
    free(d);
    json_t *adv = command_of(f, "french", "advance fr-jerome I-40");
    assert_int_equal(f->pr->precheck(late, adv, &why), 0);
    f->pr->close(late);
    /* the view that saw it judges the advance as the server does */
    assert_int_equal(f->pr->precheck(f->fr, adv, &why), 1);
    json_decref(adv);
    static const struct step advance[] = {
        { 84, "french", "advance fr-jerome I-41", "no_advance" },  /* not vacated */
        { 84, "french", "advance fr-jerome I-40", "ok" },
        { 84, "french", "advance fr-jerome I-40", "no_advance" },  /* advanced already */
        { 84, "allied", "noadvance", "not_your_turn" },
    };
    run_steps(f, advance, sizeof advance / sizeof advance[0]);
    d = describe(f, f->fr);
    expect_in(85, d, "  fr-foy on J-40 may advance to I-40\n  fr-pire on J-40 may advance "
                     "to I-40\n  Orders:");
    assert_null(strstr(d, "fr-jerome on"));
    free(d);
    run_steps(f, (const struct step[]){ { 85, "french", "noadvance", "ok" } }, 1);

    d = describe(f, f->al);
    expect_in(86, d, "allied_move: awaiting allied (move)\nYour decision (move)");
    expect_in(87, d, "Reinforcements due: none");
    free(d);
    fx_free(f);
}

/* Rules 2 from the terminal: "The attacker resolves all combat one battle at a time ...
 * The attacker has the choice of resolving each battle in any order he chooses."
 * (docs/rules-notes.md D1): attack one, resolve it, attack the next, resolve it; the
 * phase then ends by itself. Foy 5 against Cooke 6 (1-2) and Jerome 6 against Picton 6
 * (1-1), both die 5: AE. */
static void test_battles_one_by_one(void **state)
{
    (void)state;
    static const int faces[] = { 5, 5 };
    struct fx *f = fx_new("test/small.json", faces, 2);
    static const struct step script[] = {
        { 1, "french", "endsetup", "ok" },
        { 2, "allied", "endsetup", "ok" },
        { 3, "french", "move fr-jerome J-40 I-40", "ok" },
        { 4, "french", "move fr-foy J-41 I-41", "ok" },
        { 5, "french", "end", "ok" },
        { 6, "french", "end", "must_attack" },
        { 7, "french", "attack fr-foy vs aa-cooke", "ok" },
        { 8, "french", "end", "battle_open" },
        { 9, "french", "resolve", "ok" },
    };
    run_steps(f, script, sizeof script / sizeof script[0]);
    char *d = describe(f, f->fr);
    expect_in(10, d, "  battle 0: fr-foy vs aa-cooke at 5-6 (column 1-2), done: AE (die 5)\n");
    expect_in(11, d, "Your decision (combat)");
    expect_in(12, d, "Must still attack (in an enemy zone): fr-jerome on I-40\n");
    expect_in(13, d, "Must still be attacked (one of yours in its zone): aa-picton on H-40\n");
    free(d);
    static const struct step next[] = {
        { 14, "french", "attack fr-jerome vs aa-cooke", "one_battle" },
        { 15, "french", "attack fr-jerome vs aa-picton", "ok" },
        { 16, "french", "resolve 1", "ok" },
    };
    run_steps(f, next, sizeof next / sizeof next[0]);
    d = describe(f, f->al);
    expect_in(17, d, "allied_move: awaiting allied (move)\n");
    free(d);
    fx_free(f);
}

/* Rules 1 (docs/rules-notes.md D5): every battle in one declaration, then resolve. */
static void test_battle_rules1(void **state)
{
    (void)state;
    static const int faces[] = { 5 };
    struct fx *f = fx_new_with("test/small.json", faces, 1, "{\"rules\":1}");
    static const struct step script[] = {
        { 1, "french", "endsetup", "ok" },
        { 2, "allied", "place aa-picton I-40", "ok" },
        { 3, "allied", "endsetup", "ok" },
        { 4, "french", "move fr-jerome,fr-foy J-40", "ok" },
        { 5, "french", "end", "ok" },
    };
    run_steps(f, script, sizeof script / sizeof script[0]);
    char *d = describe(f, f->fr);
    expect_in(6, d, "french_combat: awaiting french (declare)\n");
    expect_in(7, d, "Your decision (declare): declare every battle of this combat phase at "
                    "once");
    expect_in(8, d, "Must attack (in an enemy zone): fr-jerome on J-40, fr-foy on J-40\n");
    expect_in(9, d, "e.g. \"attack ");
    free(d);
    static const struct step declare[] = {
        { 10, "french", "attack fr-jerome vs aa-picton", "must_attack" },
        { 11, "french", "end", "wrong_phase" },
        { 12, "french", "attack fr-jerome fr-foy vs aa-picton", "ok" },
    };
    run_steps(f, declare, sizeof declare / sizeof declare[0]);
    d = describe(f, f->fr);
    expect_in(13, d, "Your decision (resolve): resolve the declared battles one at a time");
    free(d);
    fx_free(f);
}

/* An exchange the French choose: Jerome and Foy (11) against Picton (6);
 * die 6 (EX at 1-1). */
static void test_exchange(void **state)
{
    (void)state;
    static const int faces[] = { 6 };
    struct fx *f = fx_new("test/small.json", faces, 1);
    run_steps(f, exchange_opening, sizeof exchange_opening / sizeof exchange_opening[0]);
    char *d = describe(f, f->fr);
    expect_in(8, d, "awaiting french (exchange_losses)\n");
    expect_in(9, d, "battle 0 was an exchange: the other side lost its units in it; remove "
                    "units of yours from it worth at least 6 printed combat factors.\n");
    expect_in(10, d, "Yours in it: fr-jerome (6), fr-foy (5)\n");
    expect_in(10, d, "Lost: Allied 6 (1 unit)\n");     /* Picton, the smaller side */
    free(d);
    static const struct step exchange[] = {
        { 11, "french", "exchange fr-foy", "exchange_short" },
        { 12, "french", "exchange aa-cooke", "not_losing" },
        { 13, "french", "exchange fr-foy fr-foy", "bad_command" },
        { 13, "french", "exchange fr-foy,fr-foy", "bad_command" },     /* judged here too */
        { 13, "french", "exchange fr-foy,aa-cooke", "not_losing" },
    };
    run_steps(f, exchange, sizeof exchange / sizeof exchange[0]);
    run_steps(f, (const struct step[]){ { 14, "french", "exchange fr-jerome", "ok" } }, 1);
    d = describe(f, f->spec);
    expect_in(15, d, "allied_move: awaiting allied (move)\n");
    expect_in(16, d, "Lost: French 6 (1 unit), Allied 6 (1)\n");
    free(d);
    fx_free(f);
}

/* A French unit leaves the board by the Brussels road: the P-A-A owes a
 * defection. */
/* The panel at the 1815 game's allied turn 1: the two HQs due at Brussels,
 * each with the order that brings it on; that order, typed as shown, is
 * accepted; the turn record, the arrivals to come and the losses. */
static void test_panel_1815(void **state)
{
    (void)state;
    struct fx *f = fx_new("waterloo-1815/scenario.json", NULL, 0);
    static const struct step script[] = {
        { 1, "french", "endsetup", "ok" },
        { 2, "allied", "endsetup", "ok" },
        { 3, "french", "end", "ok" },
    };
    run_steps(f, script, sizeof script / sizeof script[0]);
    char *d = describe(f, f->al);
    expect_in(5, d, "allied_move: awaiting allied (move)\nYour decision (move)");
    expect_in(6, d, "  Reinforcements due: (a path may start on the entry square or next to "
                    "it)\n    aa-hq-wellington enters at Brussels (0-46), e.g. \"move "
                    "aa-hq-wellington ");
    expect_in(7, d, "Turn 1 of 30, 1815-06-16 07:00, 30 turns left with this one\n");
    expect_in(8, d, "Still to arrive: turn 2: aa-picton, aa-art-5, aa-wissel at Brussels and "
                    "pr-ii-5, pr-ii-6,");
    expect_in(9, d, "turn 3: aa-brunswick at Brussels +59 more\nLost: none\n");
    /* the arrivals take two lines, each within the list's width */
    const char *arr = strstr(d, "Still to arrive:");
    assert_non_null(arr);
    assert_int_equal(count_lines(arr), 3);
    assert_true(widest_line(arr) <= 100);
    free(d);
    /* the reinforcement's order, typed as shown, brings it on (without its
     * entry square: the order fills it in) */
    char line[256];
    d = describe(f, f->al);
    if (example_of(strstr(d, "enters at"), line, sizeof line) != 0)
        fail_msg("row 10: no order for the reinforcement:\n%s", d);
    free(d);
    assert_null(strstr(line, "0-46"));
    json_t *cmd = command_of(f, "allied", line);
    assert_string_equal(json_string_value(json_array_get(json_object_get(cmd, "path"), 0)),
                        "0-46");
    struct wr_refusal why;
    if (judge_and_apply(f, 11, "allied", cmd, &why) != 0)
        fail_msg("row 11: '%s' refused: %s", line, why.message);
    json_decref(cmd);
    d = describe(f, f->al);
    expect_in(12, d, "Reinforcements due: none\n");
    free(d);
    /* allied turn 2: Picton, art-5 and Wissel at Brussels, the II Corps at
     * Namur; each order shown brings its unit on, one after the other */
    static const struct step turn2[] = {
        { 13, "allied", "end", "ok" },
        { 14, "french", "end", "ok" },     /* no battle to fight: the combat phase passes */
    };
    run_steps(f, turn2, sizeof turn2 / sizeof turn2[0]);
    d = describe(f, f->al);
    expect_in(16, d, "Turn 2 of 30, 1815-06-16 09:00, 29 turns left with this one\n");
    expect_in(17, d, "    aa-picton enters at Brussels (0-46), e.g. \"move aa-picton ");
    expect_in(18, d, "    pr-ii-5 enters at Namur (");
    free(d);
    int entered = 0;
    for (;;) {
        d = describe(f, f->al);
        const char *at = strstr(d, "enters at");
        if (at == NULL || example_of(at, line, sizeof line) != 0) {
            free(d);
            break;
        }
        free(d);
        cmd = command_of(f, "allied", line);
        if (judge_and_apply(f, 20 + entered, "allied", cmd, &why) != 0)
            fail_msg("row %d: '%s' refused: %s", 20 + entered, line, why.message);
        json_decref(cmd);
        entered++;
    }
    assert_int_equal(entered, 7);
    d = describe(f, f->al);
    expect_in(30, d, "Reinforcements due: none\n");
    free(d);
    fx_free(f);
}

/* Refusals speak a wargamer's words: no JSON field, no protocol name; a
 * mistyped unit or square gets the nearest names. Each row: seat, order,
 * the code (unchanged: the protocol) and the whole sentence, the same from
 * precheck() and from the rules (judge_and_apply checks they agree). */
static void test_refusal_words(void **state)
{
    (void)state;
    struct fx *f = fx_new("test/small.json", NULL, 0);
    static const struct { int row; const char *seat, *line, *code, *message; } rows[] = {
        { 1, "french", "move fr-jerome J-40", "wrong_phase",
          "a move is not allowed now: the game waits for the French to set up their units" },
        { 2, "allied", "endsetup", "not_your_turn",
          "the french player is awaited: the game waits for the French to set up their units" },
        { 3, "french", "place fr-jerom L-42", "unknown_unit",
          "no unit fr-jerom: did you mean fr-jerome?" },
        { 4, "french", "place fr-jeorme L-42", "unknown_unit",
          "no unit fr-jeorme: did you mean fr-jerome?" },
        { 5, "french", "place fr-nobody-at-all L-42", "unknown_unit",
          "no unit fr-nobody-at-all in this scenario" },
        { 6, "french", "place fr-jerome L-4Z", "bad_square",
          "'L-4Z' is not a square of the board: did you mean L-40, L-41 or L-42?" },
        { 7, "french", "place fr-jerome ZZ-99", "bad_square",
          "'ZZ-99' is not a square of the board" },
        { 8, "french", "resolve", "bad_command",
          "resolve needs the number of a declared battle, and no battle is declared now" },
        { 9, "french", "exchange fr-foy fr-foy", "bad_command", "fr-foy is named twice" },
        { 10, "french", "attack fr-jerome vs aa-pictn", "unknown_unit",
          "no unit aa-pictn: did you mean aa-picton?" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        json_t *cmd = command_of(f, rows[i].seat, rows[i].line);
        struct wr_refusal why = { 0, "ok", "" };
        if (judge_and_apply(f, rows[i].row, rows[i].seat, cmd, &why) == 0)
            fail_msg("row %d: '%s' was applied", rows[i].row, rows[i].line);
        if (strcmp(why.code, rows[i].code) != 0 || strcmp(why.message, rows[i].message) != 0)
            fail_msg("row %d: '%s' gave %s (%s), want %s (%s)", rows[i].row, rows[i].line,
                     why.code, why.message, rows[i].code, rows[i].message);
        json_decref(cmd);
    }
    /* the queries too */
    json_t *cmd = NULL;
    struct wr_strbuf out;
    struct wr_refusal why;
    wr_strbuf_init(&out);
    assert_int_equal(f->pr->order(f->fr, "reach fr-pyre", &cmd, &out, &why), WR_ORDER_ERROR);
    assert_string_equal(why.code, "unknown_unit");
    assert_string_equal(why.message, "no unit fr-pyre: did you mean fr-pire?");
    assert_int_equal(f->pr->order(f->fr, "resolve", &cmd, &out, &why), WR_ORDER_COMMAND);
    json_decref(cmd);
    wr_strbuf_release(&out);
    fx_free(f);

    /* 11) the nearest first, and among them the units of the side preferred */
    struct wl_scenario *sc = calloc(1, sizeof *sc);
    assert_non_null(sc);
    static const struct { const char *id; int side; } units[] = {
        { "fr-ney", WL_FRENCH }, { "aa-ney", WL_ALLIED }, { "fr-neyy", WL_FRENCH },
    };
    for (int i = 0; i < 3; i++) {
        snprintf(sc->units[i].id, sizeof sc->units[i].id, "%s", units[i].id);
        sc->units[i].side = (uint8_t)units[i].side;
    }
    sc->nunits = 3;
    wl_refuse_unknown_unit(&why, sc, WL_ALLIED, "xx-ney");
    assert_string_equal(why.message, "no unit xx-ney: did you mean aa-ney or fr-ney?");
    wl_refuse_unknown_unit(&why, sc, WL_FRENCH, "xx-ney");
    assert_string_equal(why.message, "no unit xx-ney: did you mean fr-ney or aa-ney?");
    wl_refuse_unknown_unit(&why, sc, WL_ALLIED, "fr-neyyy");
    assert_string_equal(why.message, "no unit fr-neyyy: did you mean fr-neyy?");
    free(sc);
    /* 12) the distance: a change, an addition, a swap count one; case none */
    static const struct { const char *a, *b; int d; } dist[] = {
        { "fr-jerom", "fr-jerome", 1 }, { "fr-jeorme", "fr-jerome", 1 },
        { "FR-JEROME", "fr-jerome", 0 }, { "kitten", "sitting", 3 }, { "abc", "", 3 },
        { "", "", 0 }, { "ab", "ba", 1 },
    };
    for (size_t i = 0; i < sizeof dist / sizeof dist[0]; i++)
        if (wl_suggest_distance(dist[i].a, dist[i].b) != dist[i].d)
            fail_msg("row 12.%zu: %s/%s: %d, want %d", i, dist[i].a, dist[i].b,
                     wl_suggest_distance(dist[i].a, dist[i].b), dist[i].d);
}

/* A reinforcement's path may leave out its entry square: the order puts
 * it back when the first square touches the entry the rules make it use;
 * otherwise the path goes as typed and the rules say why it is wrong. */
static void test_entry_left_out(void **state)
{
    (void)state;
    struct fx *f = fx_new("waterloo-1815/scenario.json", NULL, 0);
    static const struct step script[] = {
        { 1, "french", "endsetup", "ok" },
        { 2, "allied", "endsetup", "ok" },
        { 3, "french", "end", "ok" },
    };
    run_steps(f, script, sizeof script / sizeof script[0]);
    static const struct { int row; const char *line, *json; } rows[] = {
        { 4, "move aa-hq-wellington a-46 b-46",
          "{\"path\":[\"0-46\",\"A-46\",\"B-46\"],\"type\":\"move\","
          "\"unit\":\"aa-hq-wellington\"}" },
        { 5, "move aa-hq-wellington 0-46 A-46",
          "{\"path\":[\"0-46\",\"A-46\"],\"type\":\"move\",\"unit\":\"aa-hq-wellington\"}" },
        { 6, "move aa-hq-wellington C-46",       /* not next to the entry: as typed */
          "{\"path\":[\"C-46\"],\"type\":\"move\",\"unit\":\"aa-hq-wellington\"}" },
        { 7, "move aa-picton A-46",              /* not due yet: as typed */
          "{\"path\":[\"A-46\"],\"type\":\"move\",\"unit\":\"aa-picton\"}" },
        { 8, "move pr-i-1 J-40",                 /* on the board: as typed */
          "{\"path\":[\"J-40\"],\"type\":\"move\",\"unit\":\"pr-i-1\"}" },
        { 8, "move , A-46",                      /* no unit named: as typed */
          "{\"path\":[\"A-46\"],\"type\":\"move\",\"units\":[]}" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct wr_refusal why;
        char *got = command_text(f, f->al, rows[i].line, &why);
        if (got == NULL || strcmp(got, rows[i].json) != 0)
            fail_msg("row %d: '%s' gave %s, want %s", rows[i].row, rows[i].line,
                     got ? got : why.message, rows[i].json);
        free(got);
    }
    static const struct step moves[] = {
        { 9, "allied", "move aa-hq-wellington C-46", "bad_entry" },
        { 10, "allied", "move aa-picton A-46", "not_arrived" },
        { 11, "allied", "move aa-hq-wellington A-46 B-46", "ok" },
    };
    run_steps(f, moves, sizeof moves / sizeof moves[0]);
    fx_free(f);
}

static void test_defection(void **state)
{
    (void)state;
    struct fx *f = fx_new("test/small.json", NULL, 0);
    static const struct step script[] = {
        { 1, "french", "place fr-jerome K-38", "ok" },
        { 2, "french", "endsetup", "ok" },
        { 3, "allied", "place aa-picton G-38", "ok" },
        { 4, "allied", "place aa-cooke G-38", "ok" },
        { 5, "allied", "place aa-ross G-38", "ok" },
        { 6, "allied", "place aa-uxbridge E-46", "ok" },
        { 7, "allied", "place aa-wellington E-46", "ok" },
        { 8, "allied", "endsetup", "ok" },
        { 9, "french", "move fr-jerome J-39 I-40 H-40 G-41 F-42 E-43 D-43 C-43 B-44", "too_far" },
        { 10, "french", "move fr-jerome J-39 I-40 H-40 G-41 F-42 E-43 D-43 C-43", "ok" },
        { 11, "french", "end", "ok" },
        { 12, "allied", "end", "ok" },
        { 13, "french", "move fr-jerome B-44 A-45 off", "ok" },
        { 14, "french", "end", "ok" },
    };
    run_steps(f, script, sizeof script / sizeof script[0]);
    char *d = describe(f, f->al);
    expect_in(15, d, "defection: awaiting allied (defect)\n");
    expect_in(16, d, "Your decision (defect): French units worth 6 combat factors left the "
                     "board: remove P-A-A units, on the board or still to arrive, worth at "
                     "least 12 printed combat factors.\n");
    expect_in(16, d, "Lost: none; left the board: French 6 (1 unit)\n");
    free(d);
    d = describe(f, f->fr);
    assert_null(strstr(d, "Your decision"));
    free(d);
    static const struct step defect[] = {
        { 17, "allied", "defect aa-wissel", "defection_short" },
        { 18, "allied", "defect fr-foy", "not_your_unit" },
        { 19, "french", "defect aa-picton aa-cooke", "not_your_turn" },
    };
    run_steps(f, defect, sizeof defect / sizeof defect[0]);
    follow_example(f, 20, "allied");
    d = describe(f, f->al);
    expect_in(21, d, "allied_move: awaiting allied (move)\n");
    free(d);
    fx_free(f);
}

/* --- random games: precheck() agrees with apply(), the examples are legal ------- */

/* The command of a random legal player for the awaited seat (the ruleset's
 * own, on the game rebuilt from the state), or NULL when the game is over. */
static json_t *random_command(const struct wl_scenario *sc, const json_t *st,
                              struct wr_prng *rng, struct wl_game *g, struct wl_reach *reach,
                              struct wl_cmd *c)
{
    struct wr_refusal why;
    if (wl_game_init_from_state(g, sc, st, NULL, &why) != 0)
        fail_msg("the state does not load: %s", why.message);
    if (wl_autoplay_next(g, rng, reach, c) != 0)
        return NULL;
    return wl_cmd_json(g, c);
}

/* A variant of cmd that may or may not be legal: another unit, a longer or
 * shorter path, another square or battle. */
static json_t *mutate(const json_t *cmd, const struct wl_scenario *sc, struct wr_prng *rng)
{
    json_t *m = json_deep_copy(cmd);
    json_t *path = json_object_get(m, "path");
    const char *id = sc->units[wr_prng_below(rng, sc->nunits)].id;
    switch (wr_prng_below(rng, 5)) {
    case 0:
        if (json_object_get(m, "unit"))
            json_object_set_new(m, "unit", json_string(id));
        break;
    case 1:
        if (json_array_size(path) > 1)
            json_array_remove(path, json_array_size(path) - 1);
        else if (path)
            json_array_append_new(path, json_string("J-40"));
        break;
    case 2:
        if (path)
            json_array_insert_new(path, 0, json_string("K-41"));
        break;
    case 3:
        if (json_object_get(m, "battle"))
            json_object_set_new(m, "battle", json_integer(wr_prng_below(rng, 3)));
        else if (json_object_get(m, "units"))
            json_array_append_new(json_object_get(m, "units"), json_string(id));
        break;
    default:
        json_object_set_new(m, "type", json_string(wr_prng_below(rng, 2) ? "end_phase"
                                                                          : "end_setup"));
        break;
    }
    return m;
}

static void random_games(const char *name, int games, int steps)
{
    struct wl_scenario *sc = malloc(sizeof *sc);
    struct wl_game *g = malloc(sizeof *g);
    struct wl_reach *reach = malloc(sizeof *reach);
    struct wl_cmd *c = malloc(sizeof *c);
    assert_true(sc && g && reach && c);
    char path[512];
    snprintf(path, sizeof path, "%s/%s", WARROOM_SCENARIO_DIR, name);
    struct wr_refusal why;
    if (wl_scenario_load_file(sc, path, &why) != 0)
        fail_msg("%s: %s", name, why.message);
    int judged = 0, refused = 0, examples = 0;
    for (int game = 0; game < games; game++) {
        struct fx *f = fx_new(name, NULL, 0);
        struct wr_prng rng;
        wr_prng_seed(&rng, 1000 + (uint64_t)game);
        for (int step = 0; step < steps; step++) {
            int row = game * 10000 + step;
            json_t *st = state_of(f->game);
            json_t *cmd = random_command(sc, st, &rng, g, reach, c);
            json_decref(st);
            if (cmd == NULL)
                break;
            const char *seat = wr_game_awaited(f->game);
            const char *other = strcmp(seat, "french") == 0 ? "allied" : "french";
            /* the awaited seat's description: its example is legal */
            char *d = describe(f, view_of(f, seat));
            expect_in(row, d, "Your decision (");
            char line[1024];
            if (example_of(d, line, sizeof line) == 0) {
                json_t *ex = command_of(f, seat, line);
                struct wr_refusal ew;
                int verdict = f->pr->precheck(view_of(f, seat), ex, &ew);
                if (verdict < 0)
                    fail_msg("row %d: the example '%s' is refused: %s\n%s", row, line,
                             ew.message, d);
                json_decref(ex);
                examples++;
            }
            free(d);
            /* the other seat, then a variant: refused or not, both agree */
            struct wr_refusal w;
            if (judge_and_apply(f, row, other, cmd, &w) == 0)
                fail_msg("row %d: the seat not awaited was obeyed", row);
            json_t *m = mutate(cmd, sc, &rng);
            int rc = judge_and_apply(f, row, seat, m, &w);
            refused += rc != 0;
            judged += 2;
            json_decref(m);
            if (rc != 0 && judge_and_apply(f, row, seat, cmd, &w) != 0)
                fail_msg("row %d: the random player's command was refused: %s", row,
                         w.message);
            judged += rc != 0;
            json_decref(cmd);
        }
        fx_free(f);
    }
    /* the variants hit both sides of the rules */
    if (refused == 0 || examples == 0 || judged < games * 10)
        fail_msg("%s: %d judged, %d refused, %d examples", name, judged, refused, examples);
    free(c);
    free(reach);
    free(g);
    free(sc);
}

static void test_random_small(void **state)
{
    (void)state;
    random_games("test/small.json", 6, 300);
}

static void test_random_1815(void **state)
{
    (void)state;
    random_games("waterloo-1815/scenario.json", 1, 120);
}

/* --- events and completion --------------------------------------------------------------- */

static void test_events(void **state)
{
    (void)state;
    struct fx *f = fx_new("test/small.json", NULL, 0);
    static const struct { int row; const char *json, *line; } rows[] = {
        { 1, "{\"type\":\"moved\",\"unit\":\"fr-jerome\",\"units\":[\"fr-jerome\",\"fr-foy\"],"
             "\"from\":\"K-40\",\"path\":[\"J-40\",\"I-40\"]}",
          "fr-jerome,fr-foy moved from K-40: J-40 > I-40" },
        { 2, "{\"type\":\"entered\",\"unit\":\"aa-wissel\",\"units\":[\"aa-wissel\"],"
             "\"from\":\"C-57\",\"path\":[\"C-57\",\"C-56\"]}",
          "aa-wissel entered from C-57: C-57 > C-56" },
        { 3, "{\"type\":\"retreated\",\"unit\":\"aa-picton\",\"from\":\"I-40\","
             "\"path\":[\"H-40\",\"G-39\"]}",
          "aa-picton retreated from I-40: H-40 > G-39" },
        { 4, "{\"type\":\"advanced\",\"unit\":\"fr-jerome\",\"from\":\"J-40\",\"to\":\"I-40\"}",
          "fr-jerome advanced from J-40 to I-40" },
        { 5, "{\"type\":\"placed\",\"unit\":\"fr-jerome\",\"from\":\"K-40\",\"to\":\"L-42\"}",
          "fr-jerome placed from K-40 to L-42" },
        { 6, "{\"type\":\"eliminated\",\"unit\":\"aa-picton\",\"from\":\"I-40\"}",
          "aa-picton eliminated on I-40" },
        { 7, "{\"type\":\"defected\",\"unit\":\"pr-15\",\"from\":null}", "pr-15 defected" },
        { 8, "{\"type\":\"exited\",\"unit\":\"fr-jerome\"}", "fr-jerome left the board" },
        { 9, "{\"type\":\"phase\",\"phase\":\"french_combat\",\"turn\":2}",
          "turn 2: french_combat" },
        { 10, "{\"type\":\"declared\",\"battle\":0,\"odds\":\"15-12\",\"column\":\"1-1\"}",
          "battle 0 declared at 15-12 (column 1-1)" },
        { 11, "{\"type\":\"roll\",\"battle\":0,\"k\":3,\"face\":2}",
          "battle 0: the die shows 2 (roll 3)" },
        { 12, "{\"type\":\"result\",\"battle\":1,\"result\":\"DB2\"}", "battle 1: DB2" },
        { 13, "{\"type\":\"defection_due\",\"factors\":12}",
          "P-A-A units worth 12 factors must defect" },
        { 14, "{\"type\":\"game_over\",\"winner\":\"allied\",\"reason\":\"time\"}",
          "game over: allied wins (time)" },
        { 15, "{\"type\":\"fanfare\",\"n\":1}", "{\"n\":1,\"type\":\"fanfare\"}" },
        { 16, "{\"type\":\"placed\"}", "? placed from ? to ?" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        json_t *e = json_loads(rows[i].json, 0, NULL);
        assert_non_null(e);
        struct wr_strbuf out;
        wr_strbuf_init(&out);
        f->pr->event(f->spec, e, &out);
        if (out.s == NULL || strcmp(out.s, rows[i].line) != 0)
            fail_msg("row %d: '%s', want '%s'", rows[i].row, out.s ? out.s : "", rows[i].line);
        wr_strbuf_release(&out);
        json_decref(e);
    }
    fx_free(f);
}

/* Completion offers only what makes sense now: in a movement phase, the
 * seat's units that have not moved and its due reinforcements, then the
 * squares a legal path takes next; never a unit still to arrive later,
 * never the whole board. */
static void test_complete_now(void **state)
{
    (void)state;
    struct fx *f = fx_new("test/small.json", NULL, 0);
    static const struct step script[] = {
        { 1, "french", "endsetup", "ok" },
        { 2, "allied", "place aa-picton I-40", "ok" },
        { 3, "allied", "endsetup", "ok" },
    };
    run_steps(f, script, sizeof script / sizeof script[0]);
    struct cands c;
    complete(f, f->fr, (const char *const[]){ "move" }, 1, "", &c);
    assert_string_equal(c.list, "|fr-napoleon|fr-jerome|fr-foy|fr-pire|fr-ii-art|fr-guard-ha|");
    run_steps(f, (const struct step[]){ { 4, "french", "move fr-jerome,fr-foy J-40", "ok" } },
              1);
    complete(f, f->fr, (const char *const[]){ "move" }, 1, "fr-", &c);
    assert_string_equal(c.list, "|fr-napoleon|fr-pire|fr-ii-art|fr-guard-ha|");
    complete(f, f->fr, (const char *const[]){ "reach" }, 1, "fr-j", &c);
    assert_int_equal(c.n, 0);
    /* Pire on K-41: the squares next to it it can move to, then on */
    complete(f, f->fr, (const char *const[]){ "move", "fr-pire" }, 2, "", &c);
    assert_true(c.n >= 2);
    all_near(5, c.list, "K-41");
    assert_null(strstr(c.list, "|off|"));
    complete(f, f->fr, (const char *const[]){ "move", "fr-pire", "K-40" }, 3, "", &c);
    assert_true(c.n >= 1);
    all_near(6, c.list, "K-40");
    assert_null(strstr(c.list, "|K-41|"));          /* where it came from is no end */
    /* a letter typed: still only squares it can reach, not the board's */
    complete(f, f->fr, (const char *const[]){ "move", "fr-pire" }, 2, "a", &c);
    assert_int_equal(c.n, 0);
    /* the other seat's units are no candidates of its move */
    complete(f, f->fr, (const char *const[]){ "move" }, 1, "aa-", &c);
    assert_int_equal(c.n, 0);
    fx_free(f);

    /* 1815, allied turn 1: Wellington's HQ is due at Brussels (0-46); the
     * Hanoverian reserve (turn 10) is not */
    f = fx_new("waterloo-1815/scenario.json", NULL, 0);
    static const struct step s1815[] = {
        { 10, "french", "endsetup", "ok" },
        { 11, "allied", "endsetup", "ok" },
        { 12, "french", "end", "ok" },
    };
    run_steps(f, s1815, sizeof s1815 / sizeof s1815[0]);
    complete(f, f->al, (const char *const[]){ "move" }, 1, "aa-hq-", &c);
    assert_string_equal(c.list, "|aa-hq-wellington|");
    complete(f, f->al, (const char *const[]){ "move", "aa-hq-wellington" }, 2, "", &c);
    expect_in(13, c.list, "|0-46|");
    char rest[8192];        /* the others: the squares next to the entry */
    const char *entry = strstr(c.list, "|0-46|");
    snprintf(rest, sizeof rest, "%.*s%s", (int)(entry - c.list), c.list, entry + 5);
    assert_true(strlen(rest) > 1);
    all_near(14, rest, "0-46");
    assert_true(c.n >= 2);
    complete(f, f->al, (const char *const[]){ "move", "aa-hq-wellington", "A-46" }, 3, "", &c);
    assert_true(c.n >= 1);
    all_near(15, c.list, "A-46");
    fx_free(f);
}

static void test_complete(void **state)
{
    (void)state;
    struct fx *f = fx_new("test/small.json", NULL, 0);
    static const struct step script[] = {
        { 1, "french", "endsetup", "ok" },
        { 2, "allied", "place aa-picton I-40", "ok" },
        { 3, "allied", "endsetup", "ok" },
        { 4, "french", "move fr-jerome,fr-foy J-40", "ok" },
        { 5, "french", "end", "ok" },
        { 6, "french", "attack fr-jerome fr-foy vs aa-picton", "ok" },
    };
    run_steps(f, script, sizeof script / sizeof script[0]);
    static const struct {
        int row;
        const char *words[4];
        int nwords;
        const char *word;
        const char *has, *lacks;
        int n;                  /* how many candidates; -1: any */
    } rows[] = {
        { 1, { "move" }, 1, "fr-j", "|fr-jerome|", "fr-foy", 1 },
        { 2, { "move" }, 1, "fr-jerome,fr-f", "|fr-jerome,fr-foy|", NULL, 1 },
        { 3, { "move", "fr-guard-ha" }, 2, "", "|K-41|", "|L-41|", 7 },   /* off, L-41's neighbours */
        { 4, { "move", "fr-guard-ha", "K-41" }, 3, "", "|K-40|", NULL, -1 },
        { 5, { "move", "fr-pire" }, 2, "k-4", "|K-40|", "fr-", -1 },
        { 6, { "move", "fr-pire" }, 2, "of", "|off|", NULL, 1 },
        { 7, { "place" }, 1, "aa-p", "|aa-picton|", NULL, 1 },
        { 8, { "place", "aa-picton" }, 2, "H-4", "|H-40|", "|H-4|", 10 },
        { 9, { "resolve" }, 1, "", "|0|", NULL, 1 },
        { 10, { "resolve", "0" }, 2, "", NULL, "|", 0 },
        { 11, { "attack", "fr-jerome" }, 2, "", "|vs|", NULL, -1 },
        { 12, { "attack", "fr-jerome" }, 2, "v", "|vs|", NULL, 1 },
        { 13, { "odds", "fr-jerome", "vs" }, 3, "aa-pi", "|aa-picton|", NULL, 1 },
        { 14, { "declare" }, 1, "fr-jerome:aa-c", "|fr-jerome:aa-cooke|", NULL, 1 },
        { 15, { "end" }, 1, "", NULL, "|", 0 },
        { 16, { "noadvance" }, 1, "", NULL, "|", 0 },
        { 17, { "view" }, 1, "e-4", "|E-43|", "|D-", -1 },
        { 18, { "reach" }, 1, "pr-", NULL, "|", 0 },     /* pr-15 arrives on turn 4 */
        { 19, { "fly" }, 1, "", NULL, "|", 0 },
        { 20, { "retreat", "aa-picton", "H-40" }, 3, "", "|off|", NULL, -1 },
        { 21, { "exchange" }, 1, "fr-", "|fr-jerome|", "|aa-", -1 },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct cands c;
        complete(f, f->fr, rows[i].words, rows[i].nwords, rows[i].word, &c);
        if (rows[i].has && strstr(c.list, rows[i].has) == NULL)
            fail_msg("row %d: %s not among %s", rows[i].row, rows[i].has, c.list);
        if (rows[i].lacks && rows[i].n != 0 && strstr(c.list, rows[i].lacks))
            fail_msg("row %d: %s among %s", rows[i].row, rows[i].lacks, c.list);
        if (rows[i].n >= 0 && c.n != rows[i].n)
            fail_msg("row %d: %d candidates (%s), want %d", rows[i].row, c.n, c.list, rows[i].n);
    }
    fx_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open),
        cmocka_unit_test(test_update),
        cmocka_unit_test(test_orders_table),
        cmocka_unit_test(test_order_commands),
        cmocka_unit_test(test_order_errors),
        cmocka_unit_test(test_queries),
        cmocka_unit_test(test_draw_text_fits),
        cmocka_unit_test(test_draw_svg),
        cmocka_unit_test(test_draw_svg_acts),
        cmocka_unit_test(test_orders_preview),
        cmocka_unit_test(test_battle),
        cmocka_unit_test(test_battle_rules1),
        cmocka_unit_test(test_battles_one_by_one),
        cmocka_unit_test(test_exchange),
        cmocka_unit_test(test_defection),
        cmocka_unit_test(test_panel_1815),
        cmocka_unit_test(test_entry_left_out),
        cmocka_unit_test(test_refusal_words),
        cmocka_unit_test(test_random_small),
        cmocka_unit_test(test_random_1815),
        cmocka_unit_test(test_events),
        cmocka_unit_test(test_complete),
        cmocka_unit_test(test_complete_now),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
