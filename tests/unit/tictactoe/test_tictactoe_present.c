/*
 * test_tictactoe_present.c - tictactoe's presentation, reached only as a
 * client reaches it: wr_ruleset_find("tictactoe")->present (present.h).
 * The states fed to it are the ruleset's own projections (with a server
 * section as warroomd adds it), so the check of a mark is compared with
 * what apply() says of the same command on the same game.
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
#include "ruleset.h"

static const struct wr_ruleset *rs(void)
{
    const struct wr_ruleset *r = wr_ruleset_find("tictactoe");
    assert_non_null(r);
    assert_non_null(r->present);
    assert_int_equal(r->present->version, WR_PRESENT_VERSION);
    return r;
}

/* The projection of g with a server section as warroomd sends it. */
static json_t *state_of(const struct wr_game *g)
{
    json_t *st = g->rs->project(g, NULL);
    struct wr_decision d[2];
    int n = g->rs->awaiting(g, d, 2);
    json_t *aw = json_object();
    for (int i = 0; i < n; i++)
        json_object_set_new(aw, d[i].seat, json_string(d[i].what));
    const char *res = g->rs->result(g);
    json_object_set_new(st, "server", json_pack("{s:s, s:s?, s:n, s:o}", "status",
                                                res ? "finished" : "running", "result", res,
                                                "forfeit", "awaiting", aw));
    return st;
}

static struct wr_view *open_view(const char *seat)
{
    struct wr_refusal why = { 0, NULL, { 0 } };
    struct wr_view *v = rs()->present->open(rs(), NULL, NULL, seat, NULL, &why);
    if (v == NULL)
        fail_msg("open: %s", why.message);
    return v;
}

static void feed(struct wr_view *v, const struct wr_game *g)
{
    struct wr_refusal why = { 0, NULL, { 0 } };
    json_t *st = state_of(g);
    if (v->pr->update(v, st, &why) != 0)
        fail_msg("update: %s", why.message);
    json_decref(st);
}

static char *text_of(struct wr_strbuf *b)
{
    char *s = strdup(b->s ? b->s : "");
    wr_strbuf_release(b);
    return s;
}

static char *describe(const struct wr_view *v)
{
    struct wr_strbuf b;
    wr_strbuf_init(&b);
    v->pr->describe(v, &b);
    return text_of(&b);
}

static void test_orders_table(void **unused)
{
    (void)unused;
    const struct wr_present *pr = rs()->present;
    const struct wr_order *o = wr_present_order(pr, "mark");
    assert_non_null(o);
    assert_string_equal(o->synopsis, "mark N");
    assert_false(o->query);
    assert_non_null(o->help);
    /* Every order's example is a line order() turns into a command. */
    struct wr_view *v = open_view("x");
    for (const struct wr_order *e = pr->orders; e->name; e++) {
        json_t *cmd = NULL;
        struct wr_strbuf out;
        struct wr_refusal why = { 0, NULL, { 0 } };
        wr_strbuf_init(&out);
        assert_int_equal(pr->order(v, e->example, &cmd, &out, &why), WR_ORDER_COMMAND);
        assert_non_null(cmd);
        json_decref(cmd);
        wr_strbuf_release(&out);
    }
    pr->close(v);
}

static void test_order_lines(void **unused)
{
    (void)unused;
    const struct wr_present *pr = rs()->present;
    struct wr_view *v = open_view("x");
    static const struct { const char *line; int kind; int cell; } rows[] = {
        { "mark 4", WR_ORDER_COMMAND, 4 },
        { "  mark   0  ", WR_ORDER_COMMAND, 0 },
        { "mark 9", WR_ORDER_COMMAND, 9 },      /* its range is the rules' to judge */
        { "mark", WR_ORDER_ERROR, 0 },
        { "mark four", WR_ORDER_ERROR, 0 },
        { "mark 4 5", WR_ORDER_ERROR, 0 },
        { "move 4", WR_ORDER_ERROR, 0 },
        { "", WR_ORDER_ERROR, 0 },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        json_t *cmd = NULL;
        struct wr_strbuf out;
        struct wr_refusal why = { 0, NULL, { 0 } };
        wr_strbuf_init(&out);
        int k = pr->order(v, rows[i].line, &cmd, &out, &why);
        if (k != rows[i].kind)
            fail_msg("row %zu '%s': kind %d, want %d", i, rows[i].line, k, rows[i].kind);
        if (k == WR_ORDER_COMMAND) {
            json_t *want = json_pack("{s:s, s:i}", "type", "mark", "cell", rows[i].cell);
            assert_true(json_equal(cmd, want));
            json_decref(want);
        } else {
            assert_null(cmd);
            assert_string_equal(why.code, "bad_command");
            assert_non_null(strstr(why.message, "mark N"));
        }
        json_decref(cmd);
        wr_strbuf_release(&out);
    }
    pr->close(v);
}

/* precheck says what apply says, for every cell, every seat, at every
 * point of a game (x: 4, 0, 8 wins; o: 1, 2). */
static void test_precheck_is_apply(void **unused)
{
    (void)unused;
    const struct wr_ruleset *r = rs();
    struct wr_refusal why = { 0, NULL, { 0 } };
    static const uint8_t seed[32] = "0123456789abcdef0123456789abcde";
    struct wr_game *g = r->create(NULL, NULL, "g-test", seed, NULL, &why);
    assert_non_null(g);
    struct wr_view *vx = open_view("x"), *vo = open_view("o");
    static const int moves[] = { 4, 1, 0, 2, 8 };
    int checked = 0, refused = 0;
    for (size_t m = 0; m <= sizeof moves / sizeof moves[0]; m++) {
        feed(vx, g);
        feed(vo, g);
        for (int cell = -1; cell <= 9; cell++) {
            struct wr_view *views[2] = { vx, vo };
            for (int s = 0; s < 2; s++) {
                json_t *cmd = json_pack("{s:s, s:i}", "type", "mark", "cell", cell);
                struct wr_refusal pw = { 0, NULL, { 0 } }, aw = { 0, NULL, { 0 } };
                int pc = r->present->precheck(views[s], cmd, &pw);
                /* apply on a copy of the game: replay the moves so far */
                struct wr_game *h = r->create(NULL, NULL, "g-copy", NULL, NULL, &aw);
                for (size_t k = 0; k < m; k++) {
                    json_t *ev = NULL, *mk = json_pack("{s:s, s:i}", "type", "mark", "cell",
                                                       moves[k]);
                    assert_int_equal(r->apply(h, k % 2 ? "o" : "x", mk, &ev, &aw), 0);
                    json_decref(ev);
                    json_decref(mk);
                }
                json_t *ev = NULL;
                int ar = r->apply(h, views[s]->seat, cmd, &ev, &aw);
                json_decref(ev);
                r->destroy(h);
                if (ar == 0) {
                    assert_int_equal(pc, 1);
                } else {
                    if (pc != -1)
                        fail_msg("after %zu moves, %s marks %d: precheck %d, apply %s",
                                 m, views[s]->seat, cell, pc, aw.code);
                    assert_string_equal(pw.code, aw.code);
                    assert_string_equal(pw.message, aw.message);
                    refused++;
                }
                checked++;
                json_decref(cmd);
            }
        }
        if (m < sizeof moves / sizeof moves[0]) {
            json_t *ev = NULL, *mk = json_pack("{s:s, s:i}", "type", "mark", "cell", moves[m]);
            assert_int_equal(r->apply(g, m % 2 ? "o" : "x", mk, &ev, &why), 0);
            json_decref(ev);
            json_decref(mk);
        }
    }
    assert_int_equal(checked, 6 * 11 * 2);
    assert_true(refused > 0 && refused < checked);
    /* A spectator's command is the server's to refuse; so is one before
     * any state. */
    struct wr_view *vs = open_view(NULL), *fresh = open_view("x");
    feed(vs, g);
    json_t *cmd = json_pack("{s:s, s:i}", "type", "mark", "cell", 3);
    assert_int_equal(r->present->precheck(vs, cmd, &why), 0);
    assert_int_equal(r->present->precheck(fresh, cmd, &why), 0);
    json_decref(cmd);
    r->present->close(vs);
    r->present->close(fresh);
    r->present->close(vx);
    r->present->close(vo);
    r->destroy(g);
}

static void test_describe_and_draw(void **unused)
{
    (void)unused;
    const struct wr_ruleset *r = rs();
    const struct wr_present *pr = r->present;
    struct wr_refusal why = { 0, NULL, { 0 } };
    struct wr_view *vo = open_view("o"), *vx = open_view("x");
    char *d = describe(vx);
    assert_string_equal(d, "no state yet\n");
    free(d);
    struct wr_game *g = r->create(NULL, NULL, "g-test", NULL, NULL, &why);
    json_t *ev = NULL, *mk = json_pack("{s:s, s:i}", "type", "mark", "cell", 4);
    assert_int_equal(r->apply(g, "x", mk, &ev, &why), 0);
    json_decref(mk);
    feed(vo, g);
    feed(vx, g);
    d = describe(vo);
    assert_string_equal(d, "move 1: awaiting o (mark)  <- your decision\n"
                           "Your decision: mark a free cell (0, 1, 2, 3, 5, 6, 7, 8) with mark N, "
                           "e.g. mark 0\n");
    free(d);
    d = describe(vx);
    assert_string_equal(d, "move 1: awaiting o (mark)\n");
    free(d);
    /* event lines */
    struct wr_strbuf b;
    wr_strbuf_init(&b);
    pr->event(vx, json_array_get(ev, 0), &b);
    assert_string_equal(b.s, "x marked cell 4");
    wr_strbuf_release(&b);
    json_t *over = json_pack("{s:s, s:s}", "type", "game_over", "winner", "draw");
    wr_strbuf_init(&b);
    pr->event(vx, over, &b);
    assert_string_equal(b.s, "game over: a draw");
    wr_strbuf_release(&b);
    json_decref(over);
    json_decref(ev);
    /* the grid, plain and coloured */
    struct wr_draw_opts plain = { .cols = 80, .rows = 24 }, color = { .cols = 80, .rows = 24, .color = 1 };
    wr_strbuf_init(&b);
    assert_int_equal(pr->draw_text(vx, &plain, &b), 0);
    assert_string_equal(b.s, "    0 | 1 | 2 \n   ---+---+---\n    3 | x | 5 \n"
                             "   ---+---+---\n    6 | 7 | 8 \n");
    wr_strbuf_release(&b);
    wr_strbuf_init(&b);
    assert_int_equal(pr->draw_text(vx, &color, &b), 0);
    assert_non_null(strstr(b.s, "\x1b[1;31mx\x1b[0m"));
    wr_strbuf_release(&b);
    wr_strbuf_init(&b);
    assert_int_equal(pr->draw_svg(vx, &b), 0);
    assert_memory_equal(b.s, "<svg ", 5);
    assert_non_null(strstr(b.s, "<title>cell 4: x</title>"));
    assert_non_null(strstr(b.s, "</svg>\n"));
    /* each cell named as mark takes it (present.h: data-word), once */
    for (int cell = 0; cell < 9; cell++) {
        char want[48];
        snprintf(want, sizeof want, "<g class=\"cell\" data-word=\"%d\">", cell);
        const char *at = strstr(b.s, want);
        assert_non_null(at);
        assert_null(strstr(at + 1, want));
    }
    assert_null(strstr(b.s, "data-act="));      /* no order starts on a click */
    wr_strbuf_release(&b);
    /* a state that is not tictactoe's is refused, the view keeps its own */
    json_t *bad = json_pack("{s:s, s:i}", "board", "xx", "moves", 2);
    assert_int_equal(pr->update(vx, bad, &why), -1);
    json_decref(bad);
    d = describe(vx);
    assert_string_equal(d, "move 1: awaiting o (mark)\n");
    free(d);
    pr->close(vo);
    pr->close(vx);
    r->destroy(g);
}

static void collect(void *ctx, const char *cand)
{
    struct wr_strbuf *b = ctx;
    wr_strbuf_printf(b, "%s ", cand);
}

static void test_complete(void **unused)
{
    (void)unused;
    const struct wr_ruleset *r = rs();
    struct wr_refusal why = { 0, NULL, { 0 } };
    struct wr_game *g = r->create(NULL, NULL, "g-test", NULL, NULL, &why);
    json_t *ev = NULL, *mk = json_pack("{s:s, s:i}", "type", "mark", "cell", 1);
    assert_int_equal(r->apply(g, "x", mk, &ev, &why), 0);
    json_decref(mk);
    json_decref(ev);
    struct wr_view *v = open_view("o");
    feed(v, g);
    const char *words[] = { "mark" };
    struct wr_strbuf b;
    wr_strbuf_init(&b);
    r->present->complete(v, words, 1, "", collect, &b);
    assert_string_equal(b.s, "0 2 3 4 5 6 7 8 ");
    wr_strbuf_release(&b);
    wr_strbuf_init(&b);
    r->present->complete(v, words, 1, "1", collect, &b);
    assert_null(b.s);           /* cell 1 is taken */
    wr_strbuf_release(&b);
    const char *two[] = { "mark", "4" };
    wr_strbuf_init(&b);
    r->present->complete(v, two, 2, "", collect, &b);
    assert_null(b.s);
    wr_strbuf_release(&b);
    r->present->close(v);
    r->destroy(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_orders_table),
        cmocka_unit_test(test_order_lines),
        cmocka_unit_test(test_precheck_is_apply),
        cmocka_unit_test(test_describe_and_draw),
        cmocka_unit_test(test_complete),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
