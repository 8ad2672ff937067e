/*
 * test_report.c - the pictures a club posts (common/rulesets/waterloo/
 * waterloo_draw_svg.c and waterloo_report.c): the 1815 board's SVG gives
 * every square its id, a stack its total factors, the last move a mark
 * (from the states the view was given, or the report's steps),
 * the reinforcements still to come their track by turn, and the combat
 * results table as the scenario has it; the game report of the played game
 * in tests/golden/waterloo-1815-autoplay.ndjson shows every battle of the
 * record in order with its die and result, a losses chart whose totals are
 * the factors eliminated, and nothing that needs the network or a script;
 * draw_report refuses steps that are not steps.
 *
 * What is expected is read from the scenario, the record's events and the
 * final state, never from the renderer's own helpers.
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
#include "record.h"
#include "ruleset.h"
#include "waterloo_draw.h"
#include "waterloo_scenario.h"

#ifndef WARROOM_SCENARIO_DIR
#error "WARROOM_SCENARIO_DIR must be defined by the build"
#endif
#ifndef WARROOM_GOLDEN_DIR
#error "WARROOM_GOLDEN_DIR must be defined by the build"
#endif

#define RECORD WARROOM_GOLDEN_DIR "/waterloo-1815-autoplay.ndjson"

static size_t count(const char *s, const char *what)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, what)) != NULL; p += strlen(what))
        n++;
    return n;
}

static char *read_text(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *s = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = cap ? 2 * cap : 1 << 16;
            char *t = realloc(s, cap);
            if (t == NULL)
                break;
            s = t;
        }
        size_t got = fread(s + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    fclose(f);
    if (s)
        s[n] = '\0';
    *len = n;
    return s;
}

static json_t *load_scenario_json(const char *name, void *ctx)
{
    (void)ctx;
    char path[512];
    snprintf(path, sizeof path, "%s/%s/scenario.json", WARROOM_SCENARIO_DIR, name);
    return json_load_file(path, 0, NULL);
}

static json_t *host_scenario(void *ctx, const char *name)
{
    return load_scenario_json(name, ctx);
}

/* --- the played game, replayed once for every test --------------------------- */

struct game {
    struct wl_scenario sc;
    json_t *scen;               /* the scenario's JSON */
    json_t *options;            /* the record's options */
    json_t *steps;              /* {"seat","cmd","events"} of each command */
    json_t *state;              /* the public state at the end */
    int results[1024][2];       /* die (0: none) and result of each battle, in order */
    char codes[1024][8];
    int nresults;
    char *html;                 /* the report */
};

static void on_line(void *ctx, int n, const char *seat, const json_t *cmd, int verdict,
                    const struct wr_refusal *why, const json_t *events)
{
    (void)n;
    (void)why;
    struct game *g = ctx;
    assert_int_equal(verdict, 0);
    json_array_append_new(g->steps, json_pack("{s:s, s:O, s:O}", "seat", seat, "cmd", cmd,
                                              "events", events));
    /* A battle's result, with the die its roll event showed in the same
     * command (none for a battle decided without one). */
    size_t i, j;
    json_t *e, *r;
    json_array_foreach(events, i, e) {
        if (strcmp(json_string_value(json_object_get(e, "type")), "result") != 0)
            continue;
        json_int_t battle = json_integer_value(json_object_get(e, "battle"));
        int die = 0;
        json_array_foreach(events, j, r)
            if (j < i && strcmp(json_string_value(json_object_get(r, "type")), "roll") == 0 &&
                json_integer_value(json_object_get(r, "battle")) == battle)
                die = (int)json_integer_value(json_object_get(r, "face"));
        assert_true(g->nresults < 1024);
        g->results[g->nresults][0] = die;
        snprintf(g->codes[g->nresults], sizeof g->codes[0], "%s",
                 json_string_value(json_object_get(e, "result")));
        g->nresults++;
    }
}

static int setup(void **state)
{
    struct game *g = calloc(1, sizeof *g);
    struct wr_refusal why;
    if (g == NULL ||
        wl_scenario_load_file(&g->sc, WARROOM_SCENARIO_DIR "/waterloo-1815/scenario.json",
                              &why) != 0)
        return -1;
    g->scen = load_scenario_json("waterloo-1815", NULL);
    g->steps = json_array();
    size_t len;
    char *text = read_text(RECORD, &len);
    if (text == NULL || g->scen == NULL)
        return -1;
    struct wr_record_opts ro = { wr_ruleset_find, load_scenario_json, NULL, 0, on_line, g };
    struct wr_record_result res;
    if (wr_record_replay(text, len, &ro, &res, &why) != 0) {
        fprintf(stderr, "%s: %s\n", RECORD, why.message);
        return -1;
    }
    g->state = res.rs->project(res.game, NULL);
    wr_record_result_release(&res);
    /* the record's options: its header's */
    const char *nl = strchr(text, '\n');
    json_t *header = json_loadb(text, (size_t)(nl - text), 0, NULL);
    g->options = json_incref(json_object_get(header, "options"));
    json_decref(header);
    free(text);

    const struct wr_ruleset *rs = wr_ruleset_find("waterloo");
    static const struct wr_host host = { NULL, host_scenario, NULL };
    struct wr_view *v = rs->present->open(rs, g->scen, g->options, NULL, &host, &why);
    if (v == NULL || rs->present->update(v, g->state, &why) != 0)
        return -1;
    struct wr_strbuf out;
    wr_strbuf_init(&out);
    int rc = rs->present->draw_report(v, g->steps, &out);
    rs->present->close(v);
    if (rc != 0)
        return -1;
    g->html = out.s;            /* taken from the buffer: freed by teardown */
    *state = g;
    return 0;
}

static int teardown(void **state)
{
    struct game *g = *state;
    json_decref(g->scen);
    json_decref(g->options);
    json_decref(g->steps);
    json_decref(g->state);
    free(g->html);
    free(g);
    return 0;
}

/* --- the report ------------------------------------------------------------------ */

static void test_report_is_one_document(void **state)
{
    struct game *g = *state;
    const char *h = g->html;
    assert_int_equal(strncmp(h, "<!DOCTYPE html>\n<html", 21), 0);
    assert_non_null(strstr(h, "</html>\n"));
    assert_int_equal(strcmp(h + strlen(h) - 8, "</html>\n"), 0);
    /* self-contained: no script, nothing fetched; the only "http" is the
     * SVG namespace of its two inline pictures */
    assert_null(strstr(h, "<script"));
    assert_null(strstr(h, "href="));
    assert_null(strstr(h, "src="));
    assert_null(strstr(h, "url(http"));
    assert_int_equal(count(h, "http"), count(h, "xmlns=\"http://www.w3.org/2000/svg\""));
    assert_int_equal(count(h, "<svg "), 2);
    /* the title: scenario, result, turns played */
    json_int_t turn = json_integer_value(json_object_get(g->state, "turn"));
    const char *winner = json_string_value(json_object_get(g->state, "winner"));
    assert_non_null(winner);
    assert_non_null(strstr(h, "<h1>waterloo-1815: a game report</h1>"));
    char want[128];
    snprintf(want, sizeof want, "%s victory</span>",
             strcmp(winner, "french") == 0 ? "French" : "Allied");
    assert_non_null(strstr(h, want));
    snprintf(want, sizeof want, "%d turns played", (int)turn);
    assert_non_null(strstr(h, want));
    const char *reason = json_string_value(json_object_get(g->state, "result"));
    assert_non_null(reason);
    assert_non_null(strstr(h, reason));
}

/* Every battle of the record, in order, with its die and result. */
static void test_report_battles(void **state)
{
    struct game *g = *state;
    assert_true(g->nresults >= 10);
    const char *p = g->html;
    int n = 0, turns = 0, last_turn = -1;
    while ((p = strstr(p, "<tr class=\"rp-battle\" data-turn=\"")) != NULL) {
        int turn = atoi(p + strlen("<tr class=\"rp-battle\" data-turn=\""));
        if (turn != last_turn)
            turns++;
        last_turn = turn;
        const char *end = strstr(p, "</tr>");
        assert_non_null(end);
        const char *die = strstr(p, "<td class=\"rp-die\">");
        const char *res = strstr(p, "<td class=\"rp-res ");
        assert_true(die && die < end && res && res < end);
        if (n >= g->nresults)
            fail_msg("row %d: more battles in the report than results in the record", n + 1);
        char want_die[8];
        snprintf(want_die, sizeof want_die, g->results[n][0] ? "%d<" : "-<",
                 g->results[n][0]);
        if (strncmp(die + strlen("<td class=\"rp-die\">"), want_die, strlen(want_die)) != 0)
            fail_msg("row %d: die %.3s, the record rolled %s", n + 1,
                     die + strlen("<td class=\"rp-die\">"), want_die);
        res = strchr(res, '>') + 1;
        if (strncmp(res, g->codes[n], strlen(g->codes[n])) != 0 ||
            res[strlen(g->codes[n])] != '<')
            fail_msg("row %d: result %.6s, the record says %s", n + 1, res, g->codes[n]);
        n++;
        p = end;
    }
    assert_int_equal(n, g->nresults);
    assert_true(turns >= 3);        /* battles on several turns */
}

/* The chart's bars add up, per side, to the factors of the units the
 * final state has eliminated; the eliminated lists say the same. */
static void test_report_losses(void **state)
{
    struct game *g = *state;
    int want[WL_NSIDES] = { 0, 0 }, units[WL_NSIDES] = { 0, 0 };
    const char *id;
    json_t *u;
    json_object_foreach(json_object_get(g->state, "units"), id, u) {
        if (strcmp(json_string_value(json_object_get(u, "at")), "eliminated") != 0)
            continue;
        int i = wl_scenario_find_unit(&g->sc, id);
        assert_true(i >= 0);
        want[g->sc.units[i].side] += g->sc.units[i].combat;
        units[g->sc.units[i].side]++;
    }
    assert_true(want[WL_FRENCH] > 0 && want[WL_ALLIED] > 0);
    int got[WL_NSIDES] = { 0, 0 }, bars = 0;
    const char *p = g->html;
    while ((p = strstr(p, "<rect class=\"rp-bar\" data-side=\"")) != NULL) {
        p += strlen("<rect class=\"rp-bar\" data-side=\"");
        int side = strncmp(p, "french\"", 7) == 0 ? WL_FRENCH : WL_ALLIED;
        const char *f = strstr(p, "data-factors=\"");
        assert_non_null(f);
        got[side] += atoi(f + strlen("data-factors=\""));
        bars++;
    }
    json_int_t turn = json_integer_value(json_object_get(g->state, "turn"));
    assert_int_equal(bars, 2 * turn);   /* two bars a turn */
    assert_int_equal(got[WL_FRENCH], want[WL_FRENCH]);
    assert_int_equal(got[WL_ALLIED], want[WL_ALLIED]);
    char s[160];
    snprintf(s, sizeof s, "data-french=\"%d\" data-allied=\"%d\"", want[0], want[1]);
    assert_non_null(strstr(g->html, s));
    for (int side = 0; side < WL_NSIDES; side++) {
        snprintf(s, sizeof s, "<div class=\"rp-elim\" data-side=\"%s\" data-factors=\"%d\">"
                              "<h3 class=\"%s\">%s: %d units",
                 side ? "allied" : "french", want[side], side ? "rp-al" : "rp-fr",
                 side ? "Allied" : "French", units[side]);
        if (!strstr(g->html, s))
            fail_msg("no eliminated list '%s'", s);
    }
}

/* The board at the end marks the last move of the record: the units of
 * its last movement event, from the square they left to where they are. */
static void test_report_last_move(void **state)
{
    struct game *g = *state;
    const json_t *last = NULL;
    size_t i, j;
    json_t *step, *e;
    json_array_foreach(g->steps, i, step) {
        json_array_foreach(json_object_get(step, "events"), j, e) {
            const char *t = json_string_value(json_object_get(e, "type"));
            if (strcmp(t, "moved") == 0 || strcmp(t, "entered") == 0 ||
                strcmp(t, "retreated") == 0 || strcmp(t, "advanced") == 0)
                last = e;
        }
    }
    assert_non_null(last);
    const char *from = json_string_value(json_object_get(last, "from"));
    const json_t *unit = json_object_get(last, "unit");
    if (unit == NULL)
        unit = json_array_get(json_object_get(last, "units"), 0);
    const char *to = json_string_value(json_object_get(
        json_object_get(json_object_get(g->state, "units"), json_string_value(unit)), "at"));
    assert_non_null(from);
    assert_non_null(to);
    char want[96];
    snprintf(want, sizeof want, "<title>last move: %s to %s</title>", from, to);
    const char *mark = strstr(g->html, "<g id=\"last-move\">");
    assert_non_null(mark);
    const char *found = strstr(mark, want);
    if (found == NULL || found > strstr(mark, "<g id=\"units\">"))
        fail_msg("no mark '%s' in the last-move group", want);
}

/* --- the SVG board ------------------------------------------------------------------ */

/* The 1815 set-up as the presentation draws it before any state. */
static char *start_svg(const struct game *g)
{
    const struct wr_ruleset *rs = wr_ruleset_find("waterloo");
    static const struct wr_host host = { NULL, host_scenario, NULL };
    struct wr_refusal why;
    struct wr_view *v = rs->present->open(rs, g->scen, NULL, NULL, &host, &why);
    assert_non_null(v);
    struct wr_strbuf out;
    wr_strbuf_init(&out);
    assert_int_equal(rs->present->draw_svg(v, &out), 0);
    rs->present->close(v);
    return out.s;
}

static void test_svg_square_ids(void **state)
{
    struct game *g = *state;
    char *svg = start_svg(g);
    const char *ids = strstr(svg, "<g id=\"square-ids\">");
    assert_non_null(ids);
    /* the squares of the board, from the board reference's numbering:
     * rows A..WW (1..49) and the partial row 0, diagonals 1..57 */
    int n = 0;
    for (int r = 0; r <= 49; r++)
        for (int c = 1; c <= 57; c++) {
            wl_sq s = wl_sq_make(r, c);
            if (!wl_grid_on_board(s))
                continue;
            char name[WL_SQ_NAME_MAX], want[48];
            snprintf(want, sizeof want, "\">%s</text>", wl_grid_name(s, name));
            n++;
            if (!strstr(ids, want))
                fail_msg("square %s has no id in the SVG", name);
        }
    const char *end = strstr(ids, "</g>");
    size_t k = 0;
    for (const char *p = ids; (p = strstr(p, "<text class=\"sq\"")) != NULL && p < end; p++)
        k++;
    assert_int_equal(k, (size_t)n);
    free(svg);
}

/* Gosselies holds several counters at the start: the stack shows their
 * total, and its strongest counter is drawn last, on top. */
static void test_svg_stacks(void **state)
{
    struct game *g = *state;
    char *svg = start_svg(g);
    struct wl_draw_view *dv = malloc(sizeof *dv);
    wl_draw_view_setup(dv, &g->sc, NULL);
    int stacks = 0;
    for (wl_sq s = 0; s < WL_NSQ; s++) {
        int n = 0, factors = 0, strongest = -1;
        for (int i = 0; i < g->sc.nunits; i++)
            if (dv->at[i] == s) {
                n++;
                factors += g->sc.units[i].combat;
                if (strongest < 0 || g->sc.units[i].combat > g->sc.units[strongest].combat)
                    strongest = i;
            }
        if (n < 2 || factors == 0)
            continue;
        stacks++;
        char name[WL_SQ_NAME_MAX], want[160];
        wl_grid_name(s, name);
        snprintf(want, sizeof want, "<g class=\"stack\" id=\"st-%s\"><title>%d units, %d "
                                    "combat factors</title>", name, n, factors);
        const char *badge = strstr(svg, want);
        if (badge == NULL)
            fail_msg("no stack total for %s: %s", name, want);
        snprintf(want, sizeof want, ">%d</text></g>", factors);
        assert_non_null(strstr(badge, want));
        /* the top counter is the last unit group before the badge */
        const char *top = NULL;
        for (const char *p = svg; (p = strstr(p, "<g class=\"unit\" id=\"u-")) && p < badge; p++)
            top = p;
        assert_non_null(top);
        /* the strongest, or one as strong */
        char got_id[80];
        sscanf(top + strlen("<g class=\"unit\" id=\"u-"), "%79[^\"]", got_id);
        int k = wl_scenario_find_unit(&g->sc, got_id);
        assert_true(k >= 0);
        if (g->sc.units[k].combat != g->sc.units[strongest].combat)
            fail_msg("%s: %s (%d) on top, %s (%d) is stronger", name, got_id,
                     g->sc.units[k].combat, g->sc.units[strongest].id,
                     g->sc.units[strongest].combat);
    }
    assert_true(stacks >= 3);
    free(dv);
    free(svg);
}

/* The arrivals track: every unit still to come, under its turn. */
static void test_svg_arrivals(void **state)
{
    struct game *g = *state;
    char *svg = start_svg(g);
    const char *track = strstr(svg, "<g id=\"arrivals\">");
    assert_non_null(track);
    struct wl_draw_view *dv = malloc(sizeof *dv);
    wl_draw_view_setup(dv, &g->sc, NULL);
    int due = 0;
    for (int i = 0; i < g->sc.nunits; i++) {
        if (dv->off[i] != WL_DRAW_PENDING)
            continue;
        due++;
        const struct wl_unit_def *u = &g->sc.units[i];
        char group[64], title[160];
        snprintf(group, sizeof group, "<g class=\"arrival\" data-turn=\"%d\">", u->arrive_turn);
        if (u->type == WL_HQ)
            snprintf(title, sizeof title, "<title>%s (HQ, move %d)</title>", u->name, u->move);
        else
            snprintf(title, sizeof title, "<title>%s (", u->name);
        /* its counter is in a group of its turn */
        int found = 0;
        for (const char *p = track; (p = strstr(p, group)) != NULL && !found; p++) {
            const char *end = strstr(p, "</g>\n</g>");
            const char *t = strstr(p, title);
            found = t && end && t < end + 1;
        }
        if (!found)
            fail_msg("unit %s (turn %d) is not on the arrivals track", u->id, u->arrive_turn);
    }
    assert_true(due > 20);
    assert_int_equal(count(track, "<g class=\"arrive\""), (size_t)due);
    free(dv);
    free(svg);
}

static void test_svg_crt(void **state)
{
    struct game *g = *state;
    char *svg = start_svg(g);
    const char *crt = strstr(svg, "<g id=\"crt\">");
    assert_non_null(crt);
    const char *p = crt;
    for (int r = 0; r < WL_CRT_ROWS; r++)
        for (int c = 0; c < WL_CRT_COLS; c++) {
            p = strstr(p, "<text class=\"crc\"");
            assert_non_null(p);
            p = strchr(p, '>') + 1;
            const char *code = wl_result_code(g->sc.crt[r][c]);
            if (strncmp(p, code, strlen(code)) != 0 || p[strlen(code)] != '<')
                fail_msg("CRT die %d column %s: %.5s, the scenario says %s", r + 1,
                         wl_crt_label(c), p, code);
        }
    for (int c = 0; c < WL_CRT_COLS; c++) {
        char want[48];
        snprintf(want, sizeof want, "\">%s</text>", wl_crt_label(c));
        assert_non_null(strstr(crt, want));
    }
    free(svg);
}

/* The view marks the last move by the states it was given: the record's
 * first move, replayed in a game of its own, shows from the square it
 * left to where the unit stands; a later state that moves nobody keeps
 * the mark. */
static void test_svg_view_marks_last_move(void **state)
{
    struct game *g = *state;
    const struct wr_ruleset *rs = wr_ruleset_find("waterloo");
    static const struct wr_host host = { NULL, host_scenario, NULL };
    struct wr_refusal why;
    struct wr_game *game = rs->create(g->scen, g->options, "view", NULL, &host, &why);
    assert_non_null(game);
    json_t *before = NULL, *after = NULL, *moved = NULL;
    size_t i, j;
    json_t *step, *e;
    json_array_foreach(g->steps, i, step) {
        json_t *ev = NULL;
        before = rs->project(game, NULL);
        assert_int_equal(rs->apply(game, json_string_value(json_object_get(step, "seat")),
                                   json_object_get(step, "cmd"), &ev, &why), 0);
        json_array_foreach(ev, j, e)
            if (strcmp(json_string_value(json_object_get(e, "type")), "moved") == 0)
                moved = json_incref(e);
        json_decref(ev);
        if (moved)
            break;
        json_decref(before);
    }
    assert_non_null(moved);
    after = rs->project(game, NULL);
    struct wr_view *v = rs->present->open(rs, g->scen, g->options, NULL, &host, &why);
    assert_non_null(v);
    assert_int_equal(rs->present->update(v, before, &why), 0);
    struct wr_strbuf out;
    wr_strbuf_init(&out);
    assert_int_equal(rs->present->draw_svg(v, &out), 0);
    assert_null(strstr(out.s, "<g class=\"move\">"));     /* one state: nothing to compare */
    wr_strbuf_release(&out);
    assert_int_equal(rs->present->update(v, after, &why), 0);
    const json_t *path = json_object_get(moved, "path");
    char want[96];
    snprintf(want, sizeof want, "<title>last move: %s to %s</title>",
             json_string_value(json_object_get(moved, "from")),
             json_string_value(json_array_get(path, json_array_size(path) - 1)));
    for (int k = 0; k < 2; k++) {
        assert_int_equal(rs->present->draw_svg(v, &out), 0);
        if (!strstr(out.s, want))
            fail_msg("state %d: no mark '%s'", k + 1, want);
        assert_int_equal(count(out.s, "<g class=\"move\">"), 1);
        wr_strbuf_release(&out);
        /* the same position again: nobody moved, the mark stays */
        assert_int_equal(rs->present->update(v, after, &why), 0);
    }
    rs->present->close(v);
    json_decref(before);
    json_decref(after);
    json_decref(moved);
    rs->destroy(game);
}

/* --- outside input ------------------------------------------------------------- */

static void test_report_refuses_bad_steps(void **state)
{
    struct game *g = *state;
    const struct wr_ruleset *rs = wr_ruleset_find("waterloo");
    static const struct wr_host host = { NULL, host_scenario, NULL };
    struct wr_refusal why;
    struct wr_view *v = rs->present->open(rs, g->scen, NULL, NULL, &host, &why);
    assert_non_null(v);
    static const char *const bad[] = {
        "{}", "[1]", "[{\"seat\":\"french\",\"cmd\":{}}]",
        "[{\"seat\":1,\"cmd\":{},\"events\":[]}]",
        "[{\"seat\":\"french\",\"cmd\":[],\"events\":[]}]",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *steps = json_loads(bad[i], 0, NULL);
        struct wr_strbuf out;
        wr_strbuf_init(&out);
        if (rs->present->draw_report(v, steps, &out) != -1)
            fail_msg("row %zu: steps %s taken", i + 1, bad[i]);
        wr_strbuf_release(&out);
        json_decref(steps);
    }
    /* no state and no step: the set-up, no battle */
    json_t *none = json_array();
    struct wr_strbuf out;
    wr_strbuf_init(&out);
    assert_int_equal(rs->present->draw_report(v, none, &out), 0);
    assert_non_null(strstr(out.s, "No battle was fought."));
    wr_strbuf_release(&out);
    json_decref(none);
    rs->present->close(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report_is_one_document),
        cmocka_unit_test(test_report_battles),
        cmocka_unit_test(test_report_losses),
        cmocka_unit_test(test_report_last_move),
        cmocka_unit_test(test_svg_square_ids),
        cmocka_unit_test(test_svg_stacks),
        cmocka_unit_test(test_svg_arrivals),
        cmocka_unit_test(test_svg_crt),
        cmocka_unit_test(test_svg_view_marks_last_move),
        cmocka_unit_test(test_report_refuses_bad_steps),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
