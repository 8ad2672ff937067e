/*
 * test_conformance.c - every ruleset of the registry this test links
 * (wr_ruleset_at(0), (1), ...) against the contract of common/core/ruleset.h,
 * with nothing written per ruleset: a ruleset joins the suite by being in
 * the registry. tests/conformance/CMakeLists.txt builds it twice: against
 * every shipped ruleset (warroom_common) and against the toy registry of
 * tests/conformance/toy/.
 *
 *  a) every shipped scenario of a ruleset (scenarios/: each *.json and each
 *     folder/scenario.json whose "ruleset", or its base's, names it) is accepted
 *     by create(), its default scenario is one of them, and a ruleset that
 *     needs no scenario creates a game without one; the scenarios of
 *     option_setups are played a second time with those options, through
 *     c), d) and f) like the others;
 *  b) the static contract: version, name, reason table, options, every
 *     function pointer, the presentation and its version;
 *  c) determinism: the same seed and commands give byte-identical
 *     projections (every seat and the public one) and events, twice; and
 *     without the seed, the rolls taken from the "roll" events, the same
 *     commands are accepted and give the same events;
 *  d) random games played by autoplay() for the awaited seats: check()
 *     after every command, a few refused commands per game that must
 *     change no projection, every projection rebuilt exactly from the old
 *     one by JSON Patch (jsonpatch.h), the projections and events of a
 *     ruleset without hidden information the same for every seat;
 *  e) sealed information, for rulesets with hidden_info: a differential
 *     test of simultaneous decisions (see sealed_pair());
 *  f) records: each random game of d) written as the server exports it
 *     (server/games.c) and replayed by the record replayer (record.h):
 *     every command accepted, the same result, the same projections byte
 *     for byte; with the seed for a finished game (every die verified), and
 *     without it, as a running game's record, from its recorded rolls;
 *  g) saved games, for rulesets that save (ruleset.h, version 5): random
 *     games saved, dumped, loaded and restored before every command, the
 *     restored game answering as the original (projections for every view,
 *     awaited decisions, result, child battles), saving to the same text and
 *     taking the next command (and a malformed one) alike; a copy restored
 *     early played on beside the original; damaged saves refused.
 * Each ruleset's counts are printed, and each must reach a floor, so the
 * suite cannot pass by doing nothing.
 *
 * Scale: CONFORMANCE_GAMES random games per ruleset (a compile definition:
 * fewer under the sanitizers), or the environment's
 * WARROOM_CONFORMANCE_GAMES; CONFORMANCE_MAX_COMMANDS commands at most per
 * game.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "jsonpatch.h"
#include "present.h"
#include "prng.h"
#include "reason.h"
#include "record.h"
#include "ruleset.h"

#ifndef WARROOM_SCENARIO_DIR
#error "WARROOM_SCENARIO_DIR must name scenarios/"
#endif
#ifndef CONFORMANCE_GAMES
#define CONFORMANCE_GAMES 40
#endif
#ifndef CONFORMANCE_MAX_COMMANDS
#define CONFORMANCE_MAX_COMMANDS 400
#endif

#define MAX_RULESETS 32
#define MAX_SCENARIOS 64
#define MAX_VIEWS 17            /* the seats of a game and the public view */
#define PROBES_PER_GAME 6       /* refused-command probes tried per game, at most */
#define PAIRS_PER_GAME 4        /* differential pairs tried per game, at most */
#define PAIR_TRIES 16           /* autoplay draws to find a second, different command */

/* --- helpers ------------------------------------------------------------------ */

static char *dump(const json_t *j)
{
    char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
    assert_non_null(s);
    return s;
}

/* The same with object keys sorted: JSON objects are unordered (RFC 8259),
 * and a patch's "add" puts a new key last, so a state rebuilt by a patch
 * is compared in this form. */
static char *dump_sorted(const json_t *j)
{
    char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    assert_non_null(s);
    return s;
}

static json_t *load_file(const char *path)
{
    json_error_t err;
    json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
    if (j == NULL)
        fail_msg("%s: %s (line %d)", path, err.text, err.line);
    return j;
}

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* --- scenarios: the files of scenarios/ and the host that resolves bases ------ */

/* A shipped scenario: its name (as a create message names it: "test/small",
 * "waterloo-1815"), its folder under scenarios/ ("test", ""), its JSON. */
struct scenario {
    char name[512];
    char dir[512];
    json_t *json;
};

/* A game's host: no roll source (every game here has a seed), scenarios
 * by name, looked up first next to the scenario being created (a base is
 * named relative to the file that names it, docs/scenario-format.md,
 * "Bases"), then from scenarios/ itself. Lives as long as the games made
 * with it. */
struct host_ctx {
    char dir[512];
};

static json_t *find_scenario(const char *dir, const char *name)
{
    char path[1024];
    for (int round = 0; round < 2; round++) {
        const char *d = round == 0 ? dir : "";
        if (round == 0 && d[0] == '\0')
            continue;
        for (int f = 0; f < 2; f++) {
            snprintf(path, sizeof path, "%s/%s%s%s%s", WARROOM_SCENARIO_DIR, d, d[0] ? "/" : "",
                     name, f == 0 ? ".json" : "/scenario.json");
            if (is_file(path))
                return load_file(path);
        }
    }
    return NULL;
}

static json_t *host_scenario(void *ctx, const char *name)
{
    const struct host_ctx *h = ctx;
    if (name == NULL || strstr(name, "..") != NULL)
        return NULL;
    return find_scenario(h->dir, name);
}

/* The ruleset a scenario names, following its bases (at most 8 deep). */
static const char *scenario_ruleset(const struct scenario *s, char *buf, size_t n)
{
    json_t *j = json_incref(s->json);
    for (int depth = 0; j != NULL && depth < 8; depth++) {
        const char *rs = json_string_value(json_object_get(j, "ruleset"));
        if (rs != NULL) {
            snprintf(buf, n, "%s", rs);
            json_decref(j);
            return buf;
        }
        const char *base = json_string_value(json_object_get(j, "base"));
        json_t *next = base ? find_scenario(s->dir, base) : NULL;
        json_decref(j);
        j = next;
    }
    json_decref(j);
    return NULL;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct scenario *)a)->name, ((const struct scenario *)b)->name);
}

/* Every scenario in the folder rel of scenarios/ ("" for the top), into list. */
static void walk(const char *rel, struct scenario *list, int *n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s%s%s", WARROOM_SCENARIO_DIR, rel[0] ? "/" : "", rel);
    DIR *d = opendir(path);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char sub[512], full[1280];
        snprintf(sub, sizeof sub, "%s%s%s", rel, rel[0] ? "/" : "", e->d_name);
        snprintf(full, sizeof full, "%s/%s", WARROOM_SCENARIO_DIR, sub);
        struct stat st;
        if (stat(full, &st) != 0)
            continue;
        size_t len = strlen(e->d_name);
        struct scenario *s = &list[*n];
        if (S_ISDIR(st.st_mode)) {
            char inner[1400];
            snprintf(inner, sizeof inner, "%s/scenario.json", full);
            if (is_file(inner)) {
                assert_true(*n < MAX_SCENARIOS);
                snprintf(s->name, sizeof s->name, "%s", sub);
                snprintf(s->dir, sizeof s->dir, "%s", rel);
                s->json = load_file(inner);
                (*n)++;
            }
            walk(sub, list, n);
        } else if (len > 5 && strcmp(e->d_name + len - 5, ".json") == 0 &&
                   strcmp(e->d_name, "scenario.json") != 0) {
            assert_true(*n < MAX_SCENARIOS);
            snprintf(s->name, sizeof s->name, "%.*s", (int)(strlen(sub) - 5), sub);
            snprintf(s->dir, sizeof s->dir, "%s", rel);
            s->json = load_file(full);
            (*n)++;
        }
    }
    closedir(d);
}

/* The ways a ruleset's games start: its shipped scenarios, and no
 * scenario at all when it needs none. */
struct setup {
    const char *name;           /* "(none)" without a scenario */
    const json_t *scenario;     /* borrowed from the scenario list; NULL: none */
    const char *options;        /* the options of create(), JSON text; NULL: the defaults */
    struct wr_host host;
    struct host_ctx ctx;
};

struct rs_setups {
    int n;
    struct setup s[MAX_SCENARIOS + 1];
};

static struct scenario all_scenarios[MAX_SCENARIOS];
static int nall_scenarios = -1;

static void load_scenarios(void)
{
    if (nall_scenarios >= 0)
        return;
    nall_scenarios = 0;
    walk("", all_scenarios, &nall_scenarios);
    qsort(all_scenarios, (size_t)nall_scenarios, sizeof all_scenarios[0], by_name);
}

/* Scenarios played a second time with other options than the defaults,
 * when the registry has the ruleset: data, not code per ruleset (each
 * option named must be one the ruleset declares). */
static const struct {
    const char *ruleset, *scenario, *options;
} option_setups[] = {
    /* Waterloo's team play: two commanders a side (docs/rules-notes.md). */
    { "waterloo", "waterloo-1815", "{\"commanders\": 2}" },
};

/* The options a host gives create() for a game of setup su (new reference). */
static json_t *setup_options(const struct wr_ruleset *rs, const struct setup *su)
{
    json_t *given = su->options ? json_loads(su->options, 0, NULL) : NULL;
    if (su->options && given == NULL)
        fail_msg("option_setups: bad JSON %s", su->options);
    const char *key;
    json_t *v;
    json_object_foreach(given, key, v)
        if (wr_ruleset_option(rs, key) == NULL)
            fail_msg("%s: option_setups names option '%s', which it does not declare",
                     rs->name, key);
    json_t *opts = wr_game_options(rs, given, 1);
    json_decref(given);
    return opts;
}

static void setups_of(const struct wr_ruleset *rs, struct rs_setups *out)
{
    load_scenarios();
    memset(out, 0, sizeof *out);
    if (!rs->needs_scenario) {
        out->s[0].name = "(none)";
        out->s[0].host = (struct wr_host){ NULL, host_scenario, &out->s[0].ctx };
        out->n = 1;
    }
    for (int i = 0; i < nall_scenarios; i++) {
        char buf[64];
        const char *named = scenario_ruleset(&all_scenarios[i], buf, sizeof buf);
        if (named == NULL || strcmp(named, rs->name) != 0)
            continue;
        struct setup *s = &out->s[out->n++];
        s->name = all_scenarios[i].name;
        s->scenario = all_scenarios[i].json;
        snprintf(s->ctx.dir, sizeof s->ctx.dir, "%s", all_scenarios[i].dir);
        s->host = (struct wr_host){ NULL, host_scenario, &s->ctx };
        for (size_t k = 0; k < sizeof option_setups / sizeof option_setups[0]; k++)
            if (strcmp(option_setups[k].ruleset, rs->name) == 0 &&
                strcmp(option_setups[k].scenario, s->name) == 0 && out->n < MAX_SCENARIOS) {
                struct setup *o = &out->s[out->n++];
                *o = *s;
                o->options = option_setups[k].options;
                o->host.ctx = &o->ctx;
            }
    }
}

/* --- games: created, replayed, looked at ---------------------------------------- */

/* A game being played and what it takes to make it again: the setup, the
 * seed, the id and every accepted command ([seat, cmd] pairs). */
struct run {
    const struct wr_ruleset *rs;
    const struct setup *su;
    uint8_t seed[32];
    char id[64];
    struct wr_game *g;
    json_t *history;
    json_t *events;             /* the events of each accepted command (f) */
    char *record;               /* the command lines of its record (f), malloc'd */
    size_t record_len;
    int rolls;                  /* "roll" events of the accepted commands */
};

static struct wr_game *create_game(const struct wr_ruleset *rs, const struct setup *su,
                                   const char *id, const uint8_t seed[32])
{
    struct wr_refusal why = { 0, NULL, "" };
    json_t *opts = setup_options(rs, su);
    struct wr_game *g = rs->create(su->scenario, opts, id, seed, &su->host, &why);
    json_decref(opts);
    if (g == NULL)
        fail_msg("%s: create with scenario %s refused: %s (%s)", rs->name, su->name,
                 why.code ? why.code : "?", why.message);
    assert_ptr_equal(g->rs, rs);
    return g;
}

static void run_start(struct run *r, const struct wr_ruleset *rs, const struct setup *su,
                      int rs_index, int game)
{
    memset(r, 0, sizeof *r);
    r->rs = rs;
    r->su = su;
    for (int k = 0; k < 32; k++)
        r->seed[k] = (uint8_t)(game * 131 + k * 7 + rs_index * 29 + 1);
    snprintf(r->id, sizeof r->id, "conf-%.32s-%d", rs->name, game);
    r->g = create_game(rs, su, r->id, r->seed);
    r->history = json_array();
    r->events = json_array();
}

static void run_end(struct run *r)
{
    r->rs->destroy(r->g);
    json_decref(r->history);
    json_decref(r->events);
    free(r->record);
    r->events = NULL;
    r->g = NULL;
    r->history = NULL;
    r->record = NULL;
}

/* A new game in the state of r: its history applied again (deterministic,
 * so this is a copy). Caller destroys. */
static struct wr_game *replay(const struct run *r)
{
    struct wr_game *g = create_game(r->rs, r->su, r->id, r->seed);
    size_t i;
    json_t *step;
    json_array_foreach(r->history, i, step) {
        json_t *ev = NULL;
        struct wr_refusal why;
        const char *seat = json_string_value(json_array_get(step, 0));
        if (r->rs->apply(g, seat, json_array_get(step, 1), &ev, &why) != 0)
            fail_msg("%s: replaying %s: command %zu refused: %s", r->rs->name, r->id, i,
                     why.message);
        json_decref(ev);
    }
    return g;
}

/* The views of a game: its seats, then the public one (NULL). */
static int views_of(const struct wr_game *g, const char *views[MAX_VIEWS])
{
    const char *const *s = g->rs->seats(g);
    int n = 0;
    while (s[n] != NULL) {
        assert_true(n < MAX_VIEWS - 1);
        views[n] = s[n];
        n++;
    }
    views[n++] = NULL;
    return n;
}

static const char *view_name(const char *v)
{
    return v ? v : "(public)";
}

/* The awaited decisions, as one string ("p1:tactic p2:tactic"). */
static void awaited_text(const struct wr_game *g, char *buf, size_t n)
{
    struct wr_decision d[WR_DECISIONS_MAX];
    int k = g->rs->awaiting(g, d, WR_DECISIONS_MAX);
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; i < k && at < n; i++)
        at += (size_t)snprintf(buf + at, n - at, "%s%s:%s", i ? " " : "", d[i].seat, d[i].what);
}

static int is_awaited(const struct wr_game *g, const char *seat)
{
    struct wr_decision d[WR_DECISIONS_MAX];
    int k = g->rs->awaiting(g, d, WR_DECISIONS_MAX);
    for (int i = 0; i < k; i++)
        if (seat && strcmp(d[i].seat, seat) == 0)
            return 1;
    return 0;
}

/* What every host may rely on after any command: the awaited seats are
 * seats of the game, a game awaits nobody exactly when it has a result,
 * and a result is "draw" or seats of the game ("p1", or allies "p1+p3"). */
static void consistent(const struct wr_game *g)
{
    const struct wr_ruleset *rs = g->rs;
    struct wr_decision d[WR_DECISIONS_MAX];
    int k = rs->awaiting(g, d, WR_DECISIONS_MAX);
    assert_true(k >= 0 && k <= wr_game_nseats(g));
    for (int i = 0; i < k; i++) {
        if (wr_game_seat_index(g, d[i].seat) < 0)
            fail_msg("%s: awaits '%s', not a seat of the game", rs->name, d[i].seat);
        assert_non_null(d[i].what);
    }
    const char *res = rs->result(g);
    if ((k == 0) != (res != NULL))
        fail_msg("%s: awaits %d seats with result %s", rs->name, k, res ? res : "(none)");
    if (res != NULL && strcmp(res, "draw") != 0) {
        char buf[256], *save = NULL;
        snprintf(buf, sizeof buf, "%s", res);
        for (char *t = strtok_r(buf, "+", &save); t; t = strtok_r(NULL, "+", &save))
            if (wr_game_seat_index(g, t) < 0)
                fail_msg("%s: result '%s' names '%s', not a seat", rs->name, res, t);
    }
    struct wr_refusal why;
    if (rs->check(g, &why) != 0)
        fail_msg("%s: an invariant is broken: %s", rs->name, why.message);
}

/* A refusal as ruleset.h promises it: a reason of the ruleset's table, its
 * wire code, a sentence, no events. */
static void refused_properly(const struct wr_ruleset *rs, int r, const struct wr_refusal *why,
                             const json_t *events)
{
    assert_true(r > 0 && r < rs->reasons->count);
    assert_non_null(why->code);
    assert_string_equal(why->code, wr_reason_code_in(rs->reasons, r));
    assert_true(why->message[0] != '\0');
    assert_null(events);
}

/* --- a) shipped scenarios ---------------------------------------------------------- */

static void test_scenarios_load(void **state)
{
    (void)state;
    const struct wr_ruleset *rs;
    static const uint8_t seed[32] = { 1, 2, 3 };
    for (int i = 0; (rs = wr_ruleset_at(i)) != NULL; i++) {
        struct rs_setups *ss = malloc(sizeof *ss);
        setups_of(rs, ss);
        int shipped = 0, has_default = rs->default_scenario == NULL;
        for (int k = 0; k < ss->n; k++) {
            struct wr_game *g = create_game(rs, &ss->s[k], "conf-load", seed);
            consistent(g);
            rs->destroy(g);
            if (ss->s[k].scenario != NULL) {
                shipped++;
                if (rs->default_scenario && strcmp(ss->s[k].name, rs->default_scenario) == 0)
                    has_default = 1;
            }
        }
        if (!has_default)
            fail_msg("%s: its default scenario '%s' is not among scenarios/", rs->name,
                     rs->default_scenario);
        if (rs->needs_scenario) {
            /* A game needs one: there is one, and none is refused. */
            if (shipped == 0)
                fail_msg("%s needs a scenario and scenarios/ has none for it", rs->name);
            struct wr_refusal why = { 0, NULL, "" };
            struct wr_game *g = rs->create(NULL, NULL, "conf-none", seed, NULL, &why);
            assert_null(g);
            assert_non_null(why.code);
        }
        printf("conformance: %s: %d shipped scenarios load%s\n", rs->name, shipped,
               rs->needs_scenario ? "" : ", and a game without one");
        free(ss);
    }
}

/* --- b) the static contract ---------------------------------------------------------- */

static void test_static_contract(void **state)
{
    (void)state;
    const struct wr_ruleset *rs;
    int n = 0;
    for (int i = 0; (rs = wr_ruleset_at(i)) != NULL; i++, n++) {
        assert_int_equal(rs->version, WR_RULESET_VERSION);
        assert_non_null(rs->name);
        assert_true(rs->name[0] != '\0');
        assert_int_equal(strspn(rs->name, "abcdefghijklmnopqrstuvwxyz0123456789_-"),
                         strlen(rs->name));
        assert_ptr_equal(wr_ruleset_find(rs->name), rs);
        for (int j = 0; j < i; j++)
            assert_string_not_equal(wr_ruleset_at(j)->name, rs->name);
        assert_non_null(rs->summary);
        /* Seats: at least one, NULL-terminated, distinct. */
        assert_non_null(rs->default_seats);
        int ns = 0;
        for (; ns < 64 && rs->default_seats[ns]; ns++)
            for (int j = 0; j < ns; j++)
                assert_string_not_equal(rs->default_seats[j], rs->default_seats[ns]);
        assert_true(ns >= 1 && ns < 64);
        assert_true(rs->hidden_info == 0 || rs->hidden_info == 1);
        /* Options: NULL, or named entries with help until a NULL name. */
        int no = 0;
        for (const struct wr_option *o = rs->options; o && o->name && no < 64; o++, no++)
            assert_non_null(o->help);
        assert_true(no < 64);
        assert_true(rs->needs_scenario == 0 || rs->needs_scenario == 1);
        /* The reason table: the core reasons at their indices, then its own. */
        assert_non_null(rs->reasons);
        assert_true(rs->reasons->count >= WR_R_CORE_COUNT);
        for (int r = 0; r < rs->reasons->count; r++) {
            assert_non_null(rs->reasons->rows[r].code);
            assert_non_null(rs->reasons->rows[r].text);
            if (r < WR_R_CORE_COUNT)
                assert_string_equal(rs->reasons->rows[r].code, wr_core_reasons.rows[r].code);
        }
        /* Every function. */
        assert_non_null(rs->create);
        assert_non_null(rs->destroy);
        assert_non_null(rs->seats);
        assert_non_null(rs->apply);
        assert_non_null(rs->project);
        assert_non_null(rs->project_events);
        assert_non_null(rs->awaiting);
        assert_non_null(rs->result);
        assert_non_null(rs->check);
        assert_non_null(rs->autoplay);
        /* The presentation. */
        const struct wr_present *pr = rs->present;
        assert_non_null(pr);
        assert_true(pr->version >= 1 && pr->version <= WR_PRESENT_VERSION);
        assert_non_null(pr->orders);
        assert_non_null(pr->open);
        assert_non_null(pr->close);
        assert_non_null(pr->update);
        assert_non_null(pr->describe);
        assert_non_null(pr->event);
        assert_non_null(pr->order);
        assert_non_null(pr->precheck);
        assert_non_null(pr->complete);
        assert_non_null(pr->draw_text);
        assert_non_null(pr->draw_svg);
    }
    assert_true(n >= 1);
    printf("conformance: %d rulesets in the registry\n", n);
}

/* --- c) determinism ---------------------------------------------------------------- */

/* Everything a host gets from a game after one command, appended to *t:
 * the events as each view sees them, then each view's projection. */
static void transcript_step(const struct wr_game *g, const char *seat, const json_t *cmd,
                            const json_t *events, char **t, size_t *len)
{
    const char *views[MAX_VIEWS];
    int nv = views_of(g, views);
    char *parts[2 * MAX_VIEWS + 1];
    int np = 0;
    parts[np++] = dump(cmd);
    for (int v = 0; v < nv; v++) {
        json_t *pe = g->rs->project_events(g, views[v], events);
        json_t *p = g->rs->project(g, views[v]);
        parts[np++] = dump(pe);
        parts[np++] = dump(p);
        json_decref(pe);
        json_decref(p);
    }
    for (int i = 0; i < np; i++) {
        size_t add = strlen(parts[i]) + strlen(seat) + 2;
        *t = realloc(*t, *len + add + 1);
        assert_non_null(*t);
        *len += (size_t)sprintf(*t + *len, "%s %s\n", seat, parts[i]);
        free(parts[i]);
    }
}

/* The rolls of a game as its events recorded them ("roll": k, face), the
 * host's roll source for the same game replayed without its seed. */
struct rolls {
    struct host_ctx scenarios;  /* first: the host's ctx serves both */
    int n;
    uint8_t face[4096];
};

static void rolls_record(struct rolls *r, const json_t *events)
{
    size_t i;
    json_t *e;
    json_array_foreach(events, i, e) {
        const char *type = json_string_value(json_object_get(e, "type"));
        if (type == NULL || strcmp(type, "roll") != 0)
            continue;
        json_t *k = json_object_get(e, "k"), *face = json_object_get(e, "face");
        assert_true(json_is_integer(k) && json_is_integer(face));
        assert_int_equal(json_integer_value(k), r->n);     /* numbered 0, 1, 2, ... */
        assert_true(json_integer_value(face) >= 1 && json_integer_value(face) <= 6);
        assert_true(r->n < (int)sizeof r->face);
        r->face[r->n++] = (uint8_t)json_integer_value(face);
    }
}

static int rolls_roll(void *ctx, uint32_t k)
{
    const struct rolls *r = ctx;
    return k < (uint32_t)r->n ? r->face[k] : 0;
}

/* Each view's events, appended to *t. */
static void transcript_events(const struct wr_game *g, const json_t *events, char **t,
                              size_t *len)
{
    const char *views[MAX_VIEWS];
    int nv = views_of(g, views);
    for (int v = 0; v < nv; v++) {
        json_t *pe = g->rs->project_events(g, views[v], events);
        char *s = dump(pe);
        *t = realloc(*t, *len + strlen(s) + 2);
        assert_non_null(*t);
        *len += (size_t)sprintf(*t + *len, "%s\n", s);
        free(s);
        json_decref(pe);
    }
}

static void test_determinism(void **state)
{
    (void)state;
    const struct wr_ruleset *rs;
    for (int i = 0; (rs = wr_ruleset_at(i)) != NULL; i++) {
        struct rs_setups *ss = malloc(sizeof *ss);
        setups_of(rs, ss);
        int steps = 0, rolled = 0;
        for (int k = 0; k < ss->n; k++) {
            /* First: autoplay, every command kept. */
            struct run r;
            run_start(&r, rs, &ss->s[k], i, 1000 + k);
            struct wr_prng rng;
            wr_prng_seed(&rng, 77u + (uint64_t)k);
            char *t1 = NULL, *t2 = NULL;
            size_t n1 = 0, n2 = 0;
            for (int c = 0; c < CONFORMANCE_MAX_COMMANDS / 2; c++) {
                const char *seat = wr_game_awaited(r.g);
                if (seat == NULL)
                    break;
                json_t *cmd = rs->autoplay(r.g, seat, &rng), *ev = NULL;
                assert_non_null(cmd);
                struct wr_refusal why;
                if (rs->apply(r.g, seat, cmd, &ev, &why) != 0)
                    fail_msg("%s: autoplay's command refused: %s", rs->name, why.message);
                transcript_step(r.g, seat, cmd, ev, &t1, &n1);
                json_array_append_new(r.history, json_pack("[s, O]", seat, cmd));
                json_decref(cmd);
                json_decref(ev);
                steps++;
            }
            /* Then: the same seed and the same commands in a new game. */
            struct wr_game *g = create_game(rs, r.su, r.id, r.seed);
            size_t c;
            json_t *step;
            json_array_foreach(r.history, c, step) {
                const char *seat = json_string_value(json_array_get(step, 0));
                json_t *cmd = json_array_get(step, 1), *ev = NULL;
                struct wr_refusal why;
                assert_int_equal(rs->apply(g, seat, cmd, &ev, &why), 0);
                transcript_step(g, seat, cmd, ev, &t2, &n2);
                json_decref(ev);
            }
            assert_true(n1 > 0);
            if (n1 != n2 || memcmp(t1, t2, n1) != 0) {
                size_t at = 0;
                while (at < n1 && at < n2 && t1[at] == t2[at])
                    at++;
                fail_msg("%s, scenario %s: the same seed and commands give a different "
                         "game at byte %zu: %.200s", rs->name, r.su->name, at, t2 + at);
            }
            free(t1);
            free(t2);
            rs->destroy(g);
            /* And without the seed, the rolls from the recorded events (a
             * record of a game still running, replayed): every command is
             * accepted and every view gets the same events. The states may
             * differ where they show the seed's commitment. */
            struct rolls *rolls = calloc(1, sizeof *rolls);
            rolls->scenarios = r.su->ctx;
            struct wr_host host = { rolls_roll, host_scenario, rolls };
            char *e1 = NULL, *e2 = NULL;
            size_t m1 = 0, m2 = 0;
            struct wr_refusal why = { 0, NULL, "" };
            g = create_game(rs, r.su, r.id, r.seed);
            json_t *opts = setup_options(rs, r.su);
            struct wr_game *blind = rs->create(r.su->scenario, opts, r.id, NULL, &host, &why);
            json_decref(opts);
            if (blind == NULL)
                fail_msg("%s: create without a seed refused: %s", rs->name, why.message);
            json_array_foreach(r.history, c, step) {
                const char *seat = json_string_value(json_array_get(step, 0));
                json_t *cmd = json_array_get(step, 1), *ev = NULL, *ev2 = NULL;
                assert_int_equal(rs->apply(g, seat, cmd, &ev, &why), 0);
                rolls_record(rolls, ev);
                transcript_events(g, ev, &e1, &m1);
                if (rs->apply(blind, seat, cmd, &ev2, &why) != 0)
                    fail_msg("%s: command %zu replayed from recorded rolls refused: %s",
                             rs->name, c, why.message);
                transcript_events(blind, ev2, &e2, &m2);
                json_decref(ev);
                json_decref(ev2);
            }
            if (m1 != m2 || memcmp(e1, e2, m1) != 0)
                fail_msg("%s, scenario %s: replayed from its recorded rolls, the game's events "
                         "differ", rs->name, r.su->name);
            rolled += rolls->n;
            free(e1);
            free(e2);
            free(rolls);
            rs->destroy(blind);
            rs->destroy(g);
            run_end(&r);
        }
        printf("conformance: %s: %d commands replayed byte for byte, and from %d recorded "
               "rolls without the seed\n", rs->name, steps, rolled);
        assert_true(steps >= 2 * ss->n);
        free(ss);
    }
}

/* --- f) records --------------------------------------------------------------------------
 *
 * Each random game of d) is written as the server exports it and replayed
 * by the record replayer (record.h) the client's `warroom replay` uses:
 * the header from wr_record_header() (the scenario inline, as
 * server/games.c export_run() writes it), then one line per accepted
 * command, the text of server/games.c record_line() byte for byte. */

struct records {
    int seeded, blind;          /* records replayed with the seed, and without */
    int running_seeded;         /* of the seeded, records of games still running */
    int dice;                   /* rolls verified against the seed */
};

/* Append s[0..n) to the malloc'd text *t of length *len. */
static void text_add(char **t, size_t *len, const char *s, size_t n)
{
    *t = realloc(*t, *len + n + 1);
    assert_non_null(*t);
    memcpy(*t + *len, s, n);
    *len += n;
    (*t)[*len] = '\0';
}

static void text_lit(char **t, size_t *len, const char *s)
{
    text_add(t, len, s, strlen(s));
}

static void text_json(char **t, size_t *len, const json_t *j)
{
    assert_non_null(j);
    char *s = dump(j);
    text_lit(t, len, s);
    free(s);
}

/* The record line of an accepted command, appended to r->record:
 *   {"seat":S,"cmd":CMD[,"rolls":[[k,face],...]]}\n
 * the rolls those of its "roll" events, in order. Its events are kept. */
static void record_line(struct run *r, const char *seat, const json_t *cmd, const json_t *events)
{
    json_t *js = json_string(seat);
    text_lit(&r->record, &r->record_len, "{\"seat\":");
    text_json(&r->record, &r->record_len, js);
    json_decref(js);
    text_lit(&r->record, &r->record_len, ",\"cmd\":");
    text_json(&r->record, &r->record_len, cmd);
    size_t i;
    json_t *e;
    int rolls = 0;
    json_array_foreach(events, i, e) {
        const char *type = json_string_value(json_object_get(e, "type"));
        if (type == NULL || strcmp(type, "roll") != 0)
            continue;
        text_lit(&r->record, &r->record_len, rolls++ ? ",[" : ",\"rolls\":[[");
        text_json(&r->record, &r->record_len, json_object_get(e, "k"));
        text_lit(&r->record, &r->record_len, ",");
        text_json(&r->record, &r->record_len, json_object_get(e, "face"));
        text_lit(&r->record, &r->record_len, "]");
    }
    text_lit(&r->record, &r->record_len, rolls ? "]}\n" : "}\n");
    r->rolls += rolls;
    json_array_append(r->events, (json_t *)events);
}

/* Scenarios by name for a replay, as the game's host finds them: ctx is
 * the setup's host_ctx (a base is named relative to its scenario). */
static json_t *record_resolve(const char *name, void *ctx)
{
    return host_scenario(ctx, name);
}

/* The replayer's events, one dump per line, appended to the text ctx. */
struct line_events {
    char *t;
    size_t len;
};

static void record_events(void *ctx, int n, const char *seat, const json_t *cmd, int verdict,
                          const struct wr_refusal *why, const json_t *events)
{
    struct line_events *le = ctx;
    (void)n;
    (void)seat;
    (void)cmd;
    (void)why;
    assert_int_equal(verdict, 0);
    text_json(&le->t, &le->len, events);
    text_lit(&le->t, &le->len, "\n");
}

/* Each view's projection of g, one dump per line (caller frees). */
static char *projections(const struct wr_game *g)
{
    const char *views[MAX_VIEWS];
    int nv = views_of(g, views);
    char *t = NULL;
    size_t len = 0;
    for (int v = 0; v < nv; v++) {
        json_t *p = g->rs->project(g, views[v]);
        text_lit(&t, &len, view_name(views[v]));
        text_lit(&t, &len, " ");
        text_json(&t, &len, p);
        text_lit(&t, &len, "\n");
        json_decref(p);
    }
    return t;
}

static void same_text(const struct run *r, const char *what, const char *want, const char *got)
{
    if (strcmp(want, got) == 0)
        return;
    size_t at = 0;
    while (want[at] && want[at] == got[at])
        at++;
    fail_msg("%s, scenario %s, game %s: %s differ at byte %zu: want %.200s, got %.200s",
             r->rs->name, r->su->name, r->id, what, at, want + at, got + at);
}

/* r's game as a direct application without the seed would make it: the
 * rolls taken from its events (caller destroys). */
static struct wr_game *blind_game(const struct run *r, struct rolls *dice)
{
    const struct wr_ruleset *rs = r->rs;
    dice->scenarios = r->su->ctx;
    struct wr_host host = { rolls_roll, host_scenario, dice };
    struct wr_refusal why = { 0, NULL, "" };
    size_t i;
    json_t *ev;
    json_array_foreach(r->events, i, ev)
        rolls_record(dice, ev);
    json_t *opts = setup_options(rs, r->su);
    struct wr_game *g = rs->create(r->su->scenario, opts, r->id, NULL, &host, &why);
    json_decref(opts);
    if (g == NULL)
        fail_msg("%s: create without a seed refused: %s", rs->name, why.message);
    json_t *step;
    json_array_foreach(r->history, i, step) {
        json_t *e = NULL;
        if (rs->apply(g, json_string_value(json_array_get(step, 0)), json_array_get(step, 1),
                      &e, &why) != 0)
            fail_msg("%s: command %zu without the seed refused: %s", rs->name, i, why.message);
        json_decref(e);
    }
    return g;
}

/* Write r's record (with the seed or without it, as for a running game),
 * replay it and compare: every command accepted, every die verified with
 * the seed, the same events line by line, the same result, and the same
 * projections byte for byte (with the seed, those of r's game; without
 * it, those of the same commands applied to a game without the seed,
 * which show no commitment to a seed). */
static void record_check(const struct run *r, int finished, int with_seed, struct records *n)
{
    const struct wr_ruleset *rs = r->rs;
    /* The game's options as a host pins them (ruleset.h, "rules"). */
    json_t *opts = setup_options(rs, r->su);
    char *text = wr_record_header(r->id, rs->name, r->su->scenario ? r->su->name : NULL,
                                  r->su->scenario, opts, with_seed ? r->seed : NULL);
    json_decref(opts);
    assert_non_null(text);
    size_t len = strlen(text);
    text_lit(&text, &len, "\n");
    if (r->record_len > 0)
        text_add(&text, &len, r->record, r->record_len);
    struct line_events got = { NULL, 0 };
    struct wr_record_opts o = { wr_ruleset_find, record_resolve, (void *)&r->su->ctx, 0,
                                record_events, &got };
    struct wr_record_result res;
    struct wr_refusal why = { 0, NULL, "" };
    int rc = wr_record_replay(text, len, &o, &res, &why);
    if (rc != 0)
        fail_msg("%s, scenario %s, game %s: its record %s the seed does not replay: %s: %s\n"
                 "%.400s", rs->name, r->su->name, r->id, with_seed ? "with" : "without",
                 wr_record_strerror(rc), why.message, text);
    assert_ptr_equal(res.rs, rs);
    assert_int_equal(res.has_seed, with_seed);
    assert_int_equal(res.accepted, (int)json_array_size(r->history));
    assert_int_equal(res.refused, 0);
    assert_int_equal(res.dice, with_seed ? r->rolls : 0);
    assert_string_equal(res.game_id, r->id);

    char *want = NULL;
    size_t wlen = 0;
    size_t i;
    json_t *ev;
    json_array_foreach(r->events, i, ev) {
        text_json(&want, &wlen, ev);
        text_lit(&want, &wlen, "\n");
    }
    same_text(r, "the replay's events", want ? want : "", got.t ? got.t : "");

    const char *result = rs->result(r->g);
    if ((result == NULL) != (res.result == NULL) ||
        (result != NULL && strcmp(result, res.result) != 0))
        fail_msg("%s, game %s: replayed, the result is %s, the game's %s", rs->name, r->id,
                 res.result ? res.result : "(running)", result ? result : "(running)");

    struct rolls *dice = NULL;
    struct wr_game *blind = NULL;
    if (!with_seed) {
        dice = calloc(1, sizeof *dice);
        assert_non_null(dice);
        blind = blind_game(r, dice);
    }
    char *p1 = projections(with_seed ? r->g : blind), *p2 = projections(res.game);
    same_text(r, with_seed ? "the replay's projections" : "the seedless replay's projections",
              p1, p2);
    free(p1);
    free(p2);
    if (blind)
        rs->destroy(blind);
    free(dice);
    free(want);
    free(got.t);
    free(text);
    wr_record_result_release(&res);
    if (with_seed) {
        n->seeded++;
        n->running_seeded += !finished;
        n->dice += r->rolls;
    } else {
        n->blind++;
    }
}

/* --- d), e) random games --------------------------------------------------------------- */

struct counts {
    int games, finished, commands, probes, refused, out_of_turn, patches;
    int pairs, pairs_public, pairs_open;    /* differential pairs: compared, and not (e) */
};

/* The views of r's game as projected now, kept to compare and diff. */
struct views {
    int n;
    const char *name[MAX_VIEWS];
    json_t *state[MAX_VIEWS];
    char *text[MAX_VIEWS];
};

static void views_take(const struct wr_game *g, struct views *v)
{
    v->n = views_of(g, v->name);
    for (int i = 0; i < v->n; i++) {
        v->state[i] = g->rs->project(g, v->name[i]);
        assert_true(json_is_object(v->state[i]));
        v->text[i] = dump(v->state[i]);
    }
}

static void views_free(struct views *v)
{
    for (int i = 0; i < v->n; i++) {
        json_decref(v->state[i]);
        free(v->text[i]);
    }
    v->n = 0;
}

/* A refused command changed nothing any view sees. */
static void views_unchanged(const struct wr_game *g, const struct views *v, const char *what)
{
    for (int i = 0; i < v->n; i++) {
        json_t *now = g->rs->project(g, v->name[i]);
        char *t = dump(now);
        if (strcmp(t, v->text[i]) != 0)
            fail_msg("%s: a refused command (%s) changed what %s sees", g->rs->name, what,
                     view_name(v->name[i]));
        free(t);
        json_decref(now);
    }
}

/* After an accepted command: the patch from each old view to its new one
 * rebuilds it exactly; without hidden information, every seat sees what
 * spectators see, events included. Replaces old with the new views. */
static void views_step(const struct wr_game *g, struct views *old, const json_t *events,
                       struct counts *n)
{
    const struct wr_ruleset *rs = g->rs;
    struct views now;
    views_take(g, &now);
    assert_int_equal(now.n, old->n);
    char *public_events = NULL;
    for (int i = now.n - 1; i >= 0; i--) {
        json_t *patch = wr_jsonpatch_diff(old->state[i], now.state[i]), *rebuilt = NULL;
        assert_non_null(patch);
        char err[256];
        if (wr_jsonpatch_apply(old->state[i], patch, &rebuilt, err, sizeof err) != 0)
            fail_msg("%s: the patch for %s does not apply: %s", rs->name,
                     view_name(now.name[i]), err);
        char *t = dump_sorted(rebuilt), *want = dump_sorted(now.state[i]);
        if (!json_equal(rebuilt, now.state[i]) || strcmp(t, want) != 0)
            fail_msg("%s: the patch for %s rebuilds\n%s\ninstead of\n%s", rs->name,
                     view_name(now.name[i]), t, want);
        free(t);
        free(want);
        json_decref(rebuilt);
        json_decref(patch);
        n->patches++;
        json_t *pe = rs->project_events(g, now.name[i], events);
        assert_true(json_is_array(pe));
        char *et = dump(pe);
        json_decref(pe);
        if (now.name[i] == NULL) {
            public_events = et;
            continue;
        }
        if (!rs->hidden_info) {
            if (strcmp(now.text[i], now.text[now.n - 1]) != 0)
                fail_msg("%s hides nothing, yet %s sees another state than spectators",
                         rs->name, now.name[i]);
            if (strcmp(et, public_events) != 0)
                fail_msg("%s hides nothing, yet %s sees other events than spectators",
                         rs->name, now.name[i]);
        }
        free(et);
    }
    free(public_events);
    views_free(old);
    *old = now;
}

/* A command of seat that is not legal as it stands: a member removed,
 * replaced by a value of another type or an unknown name, or one added.
 * May still be legal (a mutation can land on another legal command). */
static json_t *mutate(const json_t *cmd, struct wr_prng *rng)
{
    json_t *m = json_deep_copy(cmd);
    size_t n = json_object_size(m);
    int kind = wr_prng_below(rng, 4);
    if (n == 0 || kind == 3) {
        json_object_set_new(m, "zz_conformance", json_integer(wr_prng_below(rng, 100)));
        return m;
    }
    int pick = wr_prng_below(rng, (int)n), i = 0;
    const char *key;
    json_t *v;
    json_object_foreach(m, key, v) {
        if (i++ != pick)
            continue;
        if (kind == 0) {
            json_object_del(m, key);
        } else if (kind == 1) {
            json_t *other = json_is_string(v) ? json_integer(-7)
                          : json_is_integer(v) ? json_string("x")
                          : json_is_array(v) ? json_object() : json_array();
            json_object_set_new(m, key, other);
        } else {
            json_object_set_new(m, key, json_is_integer(v)
                                            ? json_integer(json_integer_value(v) + 1000003)
                                            : json_string("no-such-thing"));
        }
        break;
    }
    return m;
}

/* e) Sealed information, by difference. At a simultaneous decision (seat A
 * awaited with others), two different legal commands c1, c2 of A are
 * applied to two copies of the game. What may then differ between the
 * copies for a view X (another seat, or spectators)?
 *
 * Not everything decided simultaneously is sealed: two battle reports
 * are sent independently and shown at once. The suite learns which
 * commands are sealed from the ruleset itself: a command is sealed from X
 * when the events it made, projected for X, differ from those projected
 * for A, its author (the ruleset held something of it back from X). And
 * whether A has decided, and in what form, may be public: a commitment
 * keeps A awaited for its reveal where a plain choice does not, so the
 * awaited decisions may differ, and a state showing "awaiting" shows it.
 * The content of a sealed choice may not be public while the decision is
 * open (another seat still awaited: nothing is due to be revealed). So:
 *
 *   if after c1 and after c2 the awaited decisions are the same and some
 *   seat other than A is among them, then for every view X other than A
 *   from which c1 or c2 is sealed, X's projection and the events of c1
 *   and c2 projected for X are byte-identical between the two copies.
 *
 * This is also the leak check of project_events: a sealed command's
 * events for X must not depend on what was sealed. Pairs whose awaited
 * decisions differ (pairs_public) or where nothing was sealed from anyone
 * (pairs_open) are counted, not compared. A ruleset showing a commitment
 * hash to others would fail here when both commands are commitments to
 * different choices (autoplay should then send the plain form, which the
 * server seals); the campaign shows others only that a tactic is in. */
static void sealed_pair(const struct run *r, const char *seat, struct wr_prng *rng,
                        struct counts *n)
{
    const struct wr_ruleset *rs = r->rs;
    json_t *c1 = rs->autoplay(r->g, seat, rng), *c2 = NULL;
    assert_non_null(c1);
    for (int t = 0; t < PAIR_TRIES && c2 == NULL; t++) {
        c2 = rs->autoplay(r->g, seat, rng);
        assert_non_null(c2);
        if (json_equal(c1, c2)) {
            json_decref(c2);
            c2 = NULL;
        }
    }
    if (c2 == NULL) {
        json_decref(c1);
        return;     /* one legal command only (or autoplay always picks it) */
    }
    struct wr_game *g1 = replay(r), *g2 = replay(r);
    json_t *e1 = NULL, *e2 = NULL;
    struct wr_refusal why;
    if (rs->apply(g1, seat, c1, &e1, &why) != 0 || rs->apply(g2, seat, c2, &e2, &why) != 0)
        fail_msg("%s: autoplay's command refused in a copy: %s", rs->name, why.message);
    char a1[512], a2[512];
    awaited_text(g1, a1, sizeof a1);
    awaited_text(g2, a2, sizeof a2);
    struct wr_decision d[WR_DECISIONS_MAX];
    int k = rs->awaiting(g1, d, WR_DECISIONS_MAX), others = 0, compared = 0;
    for (int i = 0; i < k; i++)
        others += strcmp(d[i].seat, seat) != 0;
    if (strcmp(a1, a2) != 0) {
        n->pairs_public++;
    } else if (others > 0) {
        json_t *own1 = rs->project_events(g1, seat, e1), *own2 = rs->project_events(g2, seat, e2);
        char *o1 = dump(own1), *o2 = dump(own2);
        const char *views[MAX_VIEWS];
        int nv = views_of(g1, views);
        for (int v = 0; v < nv; v++) {
            if (views[v] != NULL && strcmp(views[v], seat) == 0)
                continue;
            json_t *pe1 = rs->project_events(g1, views[v], e1);
            json_t *pe2 = rs->project_events(g2, views[v], e2);
            char *t1 = dump(pe1), *t2 = dump(pe2);
            if (strcmp(t1, o1) != 0 || strcmp(t2, o2) != 0) {
                json_t *p1 = rs->project(g1, views[v]), *p2 = rs->project(g2, views[v]);
                char *s1 = dump(p1), *s2 = dump(p2), *x1 = dump(c1), *x2 = dump(c2);
                if (strcmp(s1, s2) != 0)
                    fail_msg("%s: %s sees %s's sealed choice: after %s\n%s\nafter %s\n%s",
                             rs->name, view_name(views[v]), seat, x1, s1, x2, s2);
                if (strcmp(t1, t2) != 0)
                    fail_msg("%s: the events shown to %s reveal %s's sealed choice: after "
                             "%s\n%s\nafter %s\n%s", rs->name, view_name(views[v]), seat, x1,
                             t1, x2, t2);
                free(s1), free(s2), free(x1), free(x2);
                json_decref(p1), json_decref(p2);
                compared++;
            }
            free(t1), free(t2);
            json_decref(pe1), json_decref(pe2);
        }
        free(o1), free(o2);
        json_decref(own1), json_decref(own2);
        if (compared > 0)
            n->pairs++;
        else
            n->pairs_open++;
    }
    json_decref(e1);
    json_decref(e2);
    rs->destroy(g1);
    rs->destroy(g2);
    json_decref(c1);
    json_decref(c2);
}

/* One refused-command probe of kind k on r's game, seat being awaited.
 * Returns a command accepted instead (a mutation that happened to be
 * legal, or a seat acting when not awaited), with *actor set, else NULL. */
static json_t *probe(struct run *r, const struct views *v, const char *seat, int k,
                     struct wr_prng *rng, struct counts *n, const char **actor, json_t **events)
{
    const struct wr_ruleset *rs = r->rs;
    const char *who = seat, *what;
    json_t *cmd = NULL;
    int must_refuse = 1;
    switch (k) {
    case 0:             /* a seat the game does not have */
        what = "unknown seat";
        who = "zz-no-such-seat";
        cmd = rs->autoplay(r->g, seat, rng);
        break;
    case 1: {           /* a seat of the game that is not awaited */
        what = "seat not awaited";
        const char *views[MAX_VIEWS];
        int nv = views_of(r->g, views) - 1, start = wr_prng_below(rng, nv);
        who = NULL;
        for (int i = 0; i < nv && who == NULL; i++)
            if (!is_awaited(r->g, views[(start + i) % nv]))
                who = views[(start + i) % nv];
        if (who == NULL)
            return NULL;
        /* Not awaited: it has no command of its own to offer... */
        if (rs->autoplay(r->g, who, rng) != NULL)
            fail_msg("%s: autoplay gave a command for %s, which is not awaited", rs->name, who);
        /* ...so it sends the awaited seat's. A seat may have optional
         * commands the rules allow without awaiting them (a report sent
         * again): such an acceptance is counted, not failed. */
        cmd = rs->autoplay(r->g, seat, rng);
        must_refuse = 0;
        break;
    }
    case 2: {           /* not a command object at all, or an empty one */
        what = "malformed";
        static const char *const junk[] = { "[]", "\"mark\"", "17", "null", "{}",
                                            "{\"type\":42}", "{\"type\":\"zz-no-such-type\"}",
                                            "{\"type\":null,\"type2\":[{}]}" };
        cmd = json_loads(junk[wr_prng_below(rng, 8)], JSON_DECODE_ANY, NULL);
        break;
    }
    default: {          /* a legal command, mutated */
        what = "mutated";
        json_t *legal = rs->autoplay(r->g, seat, rng);
        assert_non_null(legal);
        cmd = mutate(legal, rng);
        json_decref(legal);
        must_refuse = 0;
        break;
    }
    }
    assert_non_null(cmd);
    struct wr_refusal why = { 0, NULL, "" };
    json_t *ev = NULL;
    int res = rs->apply(r->g, who, cmd, &ev, &why);
    n->probes++;
    if (res != 0) {
        refused_properly(rs, res, &why, ev);
        views_unchanged(r->g, v, what);
        n->refused++;
        json_decref(cmd);
        return NULL;
    }
    if (must_refuse) {
        char *t = dump(cmd);
        fail_msg("%s: a command that must be refused (%s: %s from %s) was accepted", rs->name,
                 what, t, who);
    }
    if (k == 1)
        n->out_of_turn++;
    *actor = who;
    *events = ev;
    return cmd;
}

static int games_per_ruleset(void)
{
    const char *e = getenv("WARROOM_CONFORMANCE_GAMES");
    int n = e ? atoi(e) : CONFORMANCE_GAMES;
    return n > 0 ? n : CONFORMANCE_GAMES;
}

static void random_game(struct run *r, uint64_t game_seed, struct counts *n)
{
    const struct wr_ruleset *rs = r->rs;
    struct wr_prng rng;
    wr_prng_seed(&rng, game_seed);
    struct views v;
    views_take(r->g, &v);
    consistent(r->g);
    int probes = 0, pairs = 0;
    for (int c = 0; c < CONFORMANCE_MAX_COMMANDS; c++) {
        struct wr_decision d[WR_DECISIONS_MAX];
        int k = rs->awaiting(r->g, d, WR_DECISIONS_MAX);
        if (k == 0) {
            n->finished++;
            /* Over: nobody is awaited, autoplay has nothing to offer. */
            for (int i = 0; i < v.n - 1; i++)
                assert_null(rs->autoplay(r->g, v.name[i], &rng));
            break;
        }
        const char *seat = d[wr_prng_below(&rng, k)].seat, *actor = seat;
        if (rs->hidden_info && k > 1 && pairs < PAIRS_PER_GAME && wr_prng_below(&rng, 2) == 0) {
            sealed_pair(r, seat, &rng, n);
            pairs++;
        }
        json_t *cmd = NULL, *ev = NULL;
        if (probes < PROBES_PER_GAME && wr_prng_below(&rng, 4) == 0) {
            cmd = probe(r, &v, seat, probes % 4, &rng, n, &actor, &ev);
            probes++;
        }
        if (cmd == NULL) {
            actor = seat;
            cmd = rs->autoplay(r->g, seat, &rng);
            if (cmd == NULL)
                fail_msg("%s: no command from autoplay for %s, who is awaited", rs->name, seat);
            struct wr_refusal why = { 0, NULL, "" };
            if (rs->apply(r->g, seat, cmd, &ev, &why) != 0) {
                char *t = dump(cmd);
                fail_msg("%s: autoplay's command %s for %s refused: %s", rs->name, t, seat,
                         why.message);
            }
        }
        assert_true(json_is_array(ev));
        consistent(r->g);
        views_step(r->g, &v, ev, n);
        json_array_append_new(r->history, json_pack("[s, O]", actor, cmd));
        record_line(r, actor, cmd, ev);
        json_decref(cmd);
        json_decref(ev);
        n->commands++;
    }
    views_free(&v);
    n->games++;
}

static void test_random_games(void **state)
{
    (void)state;
    const struct wr_ruleset *rs;
    int games = games_per_ruleset();
    for (int i = 0; (rs = wr_ruleset_at(i)) != NULL; i++) {
        struct rs_setups *ss = malloc(sizeof *ss);
        setups_of(rs, ss);
        assert_true(ss->n > 0);
        struct counts n = { 0 };
        struct records rec = { 0 };
        for (int gi = 0; gi < games; gi++) {
            struct run r;
            run_start(&r, rs, &ss->s[gi % ss->n], i, gi);
            int finished = n.finished;
            random_game(&r, 0x5eed0000u + (uint64_t)gi * 7919u + (uint64_t)i, &n);
            finished = n.finished > finished;
            /* f) Its record, as a running game's (no seed, the recorded
             * rolls), and with the seed, every die verified: as a finished
             * game's, or for a game still at the command cap (a campaign
             * rarely ends within it) a check of its dice all the same. */
            record_check(&r, finished, 0, &rec);
            record_check(&r, finished, 1, &rec);
            run_end(&r);
        }
        printf("conformance: %s: %d games (%d finished), %d commands, %d probes (%d refused, "
               "%d accepted from a seat not awaited), %d patches checked, %d differential "
               "pairs compared (not compared: %d deciding in public, %d awaiting differently)\n",
               rs->name, n.games, n.finished, n.commands, n.probes, n.refused, n.out_of_turn,
               n.patches, n.pairs, n.pairs_open, n.pairs_public);
        printf("conformance: %s: %d records replayed with the seed (%d of finished games, %d "
               "of games still running%s), %d dice verified; %d without it from their "
               "recorded rolls\n", rs->name, rec.seeded, rec.seeded - rec.running_seeded,
               rec.running_seeded, n.finished == 0 ? ": no game finished in this run" : "",
               rec.dice, rec.blind);
        /* The floors: the suite did the work it claims. */
        assert_int_equal(n.games, games);
        assert_true(n.commands >= 5 * games);
        assert_true(n.refused >= games);
        assert_true(n.patches >= n.commands * 2);
        if (rs->hidden_info)
            assert_true(n.pairs >= games / 2);
        assert_true(rec.seeded - rec.running_seeded >= n.finished);
        assert_int_equal(rec.seeded, games);
        assert_int_equal(rec.blind, games);
        free(ss);
    }
}

/* --- g) saved games: save, dump, load, restore at every step ------------------------ */

/* How many games each ruleset plays here, and how long (data, not code per
 * ruleset; a ruleset not named plays the default row). Waterloo plays the
 * 1815 scenario: its set-up and a few turns, with battles. */
static const struct {
    const char *ruleset, *scenario;
    int games, max_commands;
} save_plans[] = {
    { "tictactoe", NULL, 50, 20 },
    { "waterloo", "waterloo-1815", 3, 300 },
    { "campaign", NULL, 10, 250 },
    { "battle", NULL, 10, 250 },
    { NULL, NULL, 20, 250 },            /* any other */
};

/* Under the sanitizers the rows' games and commands are divided by this. */
#if defined(CONFORMANCE_GAMES) && CONFORMANCE_GAMES < 40
#define SAVE_SCALE 2
#else
#define SAVE_SCALE 1
#endif

/* g saved, dumped with sorted keys (the text a host stores), loaded again
 * and restored: a new game, and its text in *text (malloc'd). */
static struct wr_game *save_restore(const struct run *r, const struct wr_game *g, char **text)
{
    json_t *saved = wr_game_save(g);
    if (saved == NULL)
        fail_msg("%s: save returned NULL", r->rs->name);
    *text = dump_sorted(saved);
    json_decref(saved);
    json_error_t err;
    json_t *loaded = json_loads(*text, JSON_REJECT_DUPLICATES, &err);
    if (loaded == NULL)
        fail_msg("%s: a saved game does not load: %s", r->rs->name, err.text);
    assert_non_null(json_object_get(loaded, "format"));
    assert_true(json_is_integer(json_object_get(loaded, "format")));
    struct wr_refusal why = { 0, NULL, "" };
    json_t *opts = setup_options(r->rs, r->su);
    struct wr_game *h = wr_game_restore(r->rs, loaded, r->su->scenario, opts, r->id, r->seed,
                                        &r->su->host, &why);
    json_decref(opts);
    json_decref(loaded);
    if (h == NULL)
        fail_msg("%s: restore refused its own save: %s (%s)\n%s", r->rs->name,
                 why.code ? why.code : "?", why.message, *text);
    assert_ptr_equal(h->rs, r->rs);
    return h;
}

/* a and b answer alike: every view's projection (sorted, compact), the
 * awaited decisions, the result. */
static void same_game(const struct wr_ruleset *rs, const struct wr_game *a,
                      const struct wr_game *b, const char *what, int step)
{
    const char *views[MAX_VIEWS];
    int nv = views_of(a, views);
    assert_int_equal(wr_game_nseats(b), nv - 1);
    for (int v = 0; v < nv; v++) {
        json_t *pa = rs->project(a, views[v]), *pb = rs->project(b, views[v]);
        char *ta = dump_sorted(pa), *tb = dump_sorted(pb);
        if (strcmp(ta, tb) != 0)
            fail_msg("%s: %s at step %d: %s sees\n%s\ninstead of\n%s", rs->name, what, step,
                     view_name(views[v]), tb, ta);
        free(ta), free(tb);
        json_decref(pa), json_decref(pb);
    }
    char wa[512], wb[512];
    awaited_text(a, wa, sizeof wa);
    awaited_text(b, wb, sizeof wb);
    if (strcmp(wa, wb) != 0)
        fail_msg("%s: %s at step %d awaits '%s', not '%s'", rs->name, what, step, wb, wa);
    const char *ra = rs->result(a), *rb = rs->result(b);
    if ((ra == NULL) != (rb == NULL) || (ra && strcmp(ra, rb) != 0))
        fail_msg("%s: %s at step %d: result %s, not %s", rs->name, what, step,
                 rb ? rb : "(none)", ra ? ra : "(none)");
    /* A ruleset of linked games offers the same child to every seat. */
    for (int v = 0; rs->child && v < nv - 1; v++) {
        struct wr_refusal ya = { 0, NULL, "" }, yb = { 0, NULL, "" };
        json_t *ca = rs->child(a, views[v], "battle", NULL, &ya);
        json_t *cb = rs->child(b, views[v], "battle", NULL, &yb);
        char *ta = ca ? dump_sorted(ca) : strdup(ya.message);
        char *tb = cb ? dump_sorted(cb) : strdup(yb.message);
        if ((ca == NULL) != (cb == NULL) || strcmp(ta, tb) != 0)
            fail_msg("%s: %s at step %d: child for %s is %s, not %s", rs->name, what, step,
                     views[v], tb, ta);
        free(ta), free(tb);
        json_decref(ca), json_decref(cb);
    }
}

/* cmd from seat applied to a and b: the same verdict, the same refusal or
 * the same events for every view. Returns the verdict. */
static int same_apply(const struct wr_ruleset *rs, struct wr_game *a, struct wr_game *b,
                      const char *seat, const json_t *cmd, const char *what, int step,
                      int *rolls)
{
    json_t *ea = NULL, *eb = NULL;
    struct wr_refusal wa = { 0, NULL, "" }, wb = { 0, NULL, "" };
    int ra = rs->apply(a, seat, cmd, &ea, &wa), rb = rs->apply(b, seat, cmd, &eb, &wb);
    if (ra != rb)
        fail_msg("%s: %s at step %d: verdict %d, not %d (%s)", rs->name, what, step, rb, ra,
                 ra ? wa.message : wb.message);
    if (ra != 0) {
        assert_string_equal(wa.code, wb.code);
        assert_string_equal(wa.message, wb.message);
        return ra;
    }
    const char *views[MAX_VIEWS];
    int nv = views_of(a, views);
    for (int v = 0; v < nv; v++) {
        json_t *pa = rs->project_events(a, views[v], ea), *pb = rs->project_events(b, views[v], eb);
        char *ta = dump_sorted(pa), *tb = dump_sorted(pb);
        if (strcmp(ta, tb) != 0)
            fail_msg("%s: %s at step %d: %s is shown the events\n%s\ninstead of\n%s", rs->name,
                     what, step, view_name(views[v]), tb, ta);
        free(ta), free(tb);
        json_decref(pa), json_decref(pb);
    }
    size_t i;
    json_t *e;
    json_array_foreach(ea, i, e) {
        const char *type = json_string_value(json_object_get(e, "type"));
        *rolls += type && strcmp(type, "roll") == 0;
    }
    json_decref(ea);
    json_decref(eb);
    return 0;
}

/* The plan of rs: its row of save_plans. */
static int save_plan(const struct wr_ruleset *rs)
{
    int k = 0;
    while (save_plans[k].ruleset && strcmp(save_plans[k].ruleset, rs->name) != 0)
        k++;
    return k;
}

/* g) For every ruleset that saves: seeded random games where, before every
 * command, the game is saved, dumped, loaded and restored, and the restored
 * game must answer as the original (same_game), save to the same text, and
 * take the next command (and a malformed one) as the original does. One
 * copy restored at an early step is also played on beside the original to
 * the end of the game. Then refusals: a save with another format or a
 * member removed is refused (bad_command, a message). */
static void test_save_restore(void **state)
{
    (void)state;
    const struct wr_ruleset *rs;
    int savers = 0;
    for (int i = 0; (rs = wr_ruleset_at(i)) != NULL; i++) {
        /* Version 5: both set or both NULL. */
        assert_int_equal(rs->save == NULL, rs->restore == NULL);
        if (!wr_ruleset_can_save(rs))
            continue;
        savers++;
        int p = save_plan(rs);
        int games = save_plans[p].games / SAVE_SCALE, max = save_plans[p].max_commands / SAVE_SCALE;
        if (games < 1)
            games = 1;
        struct rs_setups *ss = malloc(sizeof *ss);
        setups_of(rs, ss);
        assert_true(ss->n > 0);
        int pick = 0;
        for (int k = 0; k < ss->n && save_plans[p].scenario; k++)
            if (strcmp(ss->s[k].name, save_plans[p].scenario) == 0 && ss->s[k].options == NULL)
                pick = k + 1;
        if (save_plans[p].scenario && pick == 0)
            fail_msg("%s: no scenario %s", rs->name, save_plans[p].scenario);
        int restores = 0, commands = 0, finished = 0, rolls = 0, beside = 0, refused = 0;
        for (int gi = 0; gi < games; gi++) {
            struct run r;
            run_start(&r, rs, &ss->s[pick ? pick - 1 : gi % ss->n], i, 1000 + gi);
            struct wr_prng rng;
            wr_prng_seed(&rng, 0x5a7e0000u + (uint64_t)gi * 104729u + (uint64_t)i);
            struct wr_game *copy = NULL;        /* restored at step `from`, played beside */
            int from = (int)wr_prng_below(&rng, 8);
            for (int c = 0; c <= max; c++) {
                char *text, *again;
                struct wr_game *h = save_restore(&r, r.g, &text);
                restores++;
                same_game(rs, r.g, h, "a restored game", c);
                if (rs->check(h, &(struct wr_refusal){ 0, NULL, "" }) != 0)
                    fail_msg("%s: a restored game fails check() at step %d", rs->name, c);
                /* A restored game saves to the same text. */
                struct wr_game *h2 = save_restore(&r, h, &again);
                if (strcmp(text, again) != 0)
                    fail_msg("%s: step %d: the save of a restored game differs:\n%s\n%s",
                             rs->name, c, text, again);
                rs->destroy(h2);
                free(again);
                free(text);
                if (c == from)
                    copy = h, h = NULL;
                if (copy != NULL && copy != h)
                    same_game(rs, r.g, copy, "a copy played on", c);
                struct wr_decision d[WR_DECISIONS_MAX];
                int k = rs->awaiting(r.g, d, WR_DECISIONS_MAX);
                if (k == 0 || c == max) {
                    finished += k == 0;
                    if (h)
                        rs->destroy(h);
                    break;
                }
                const char *seat = d[wr_prng_below(&rng, k)].seat;
                /* A malformed command: refused alike. */
                json_t *junk = json_pack("{s:s}", "type", "zz-no-such-type");
                int no_rolls = 0;
                assert_true(same_apply(rs, r.g, h ? h : copy, seat, junk, "a malformed command",
                                       c, &no_rolls) != 0);
                refused++;
                json_decref(junk);
                json_t *cmd = rs->autoplay(r.g, seat, &rng);
                if (cmd == NULL)
                    fail_msg("%s: no command from autoplay for %s", rs->name, seat);
                if (h != NULL) {
                    /* The original and h take it; the copy beside follows. */
                    assert_int_equal(same_apply(rs, r.g, h, seat, cmd, "the next command", c,
                                                &rolls), 0);
                    if (copy != NULL) {
                        json_t *ec = NULL;
                        struct wr_refusal cw = { 0, NULL, "" };
                        if (rs->apply(copy, seat, cmd, &ec, &cw) != 0)
                            fail_msg("%s: the copy played on refused step %d: %s", rs->name,
                                     c, cw.message);
                        json_decref(ec);
                        beside++;
                    }
                    same_game(rs, r.g, h, "a restored game after a command", c);
                    rs->destroy(h);
                } else {
                    assert_int_equal(same_apply(rs, r.g, copy, seat, cmd, "the next command", c,
                                                &rolls), 0);
                    beside++;
                }
                json_array_append_new(r.history, json_pack("[s, O]", seat, cmd));
                json_decref(cmd);
                commands++;
            }
            /* Refusals: another format, a member taken out. */
            json_t *saved = wr_game_save(r.g);
            json_t *bad = json_deep_copy(saved);
            json_object_set_new(bad, "format", json_integer(987654));
            json_t *opts = setup_options(rs, r.su);
            for (int t = 0; t < 3; t++) {
                json_t *try = t == 0 ? json_incref(bad) : json_deep_copy(saved);
                if (t == 1) {
                    /* the first member other than format taken out */
                    const char *key;
                    json_t *v;
                    json_object_foreach(try, key, v)
                        if (strcmp(key, "format") != 0) {
                            json_object_del(try, key);
                            break;
                        }
                } else if (t == 2) {
                    json_decref(try);
                    try = json_string("{\"format\":");     /* truncated text, as a string */
                }
                struct wr_refusal why = { 0, NULL, "" };
                struct wr_game *x = wr_game_restore(rs, try, r.su->scenario, opts, r.id,
                                                    r.seed, &r.su->host, &why);
                if (x != NULL)
                    fail_msg("%s: restore took a damaged save (case %d)", rs->name, t);
                assert_non_null(why.code);
                assert_string_equal(why.code, "bad_command");
                assert_true(why.message[0] != '\0');
                json_decref(try);
            }
            json_decref(opts);
            json_decref(bad);
            json_decref(saved);
            if (copy)
                rs->destroy(copy);
            run_end(&r);
        }
        printf("conformance: %s: saved and restored %d times in %d games (%d finished), "
               "%d commands, %d of them on a copy played on beside, %d dice rolled, "
               "%d malformed commands refused alike\n", rs->name, restores, games, finished,
               commands, beside, rolls, refused);
        assert_true(restores > commands);
        assert_true(commands >= 5 * games);
        assert_true(beside > 0);
        if (strcmp(rs->name, "waterloo") == 0)
            assert_true(rolls > 0);     /* battles were fought */
        free(ss);
    }
    printf("conformance: %d rulesets save and restore\n", savers);
    assert_true(savers > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_static_contract),
        cmocka_unit_test(test_scenarios_load),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_random_games),
        cmocka_unit_test(test_save_restore),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    for (int i = 0; i < nall_scenarios; i++)
        json_decref(all_scenarios[i].json);
    return rc;
}
