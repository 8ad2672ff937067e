/*
 * test_client_view.c - the client's view of a game (client-cli/view.c),
 * built from warroom_client_core with a registry of tictactoe alone: the
 * client sources hold no ruleset of their own, so a game of a ruleset the
 * registry lacks is refused by name, and one it has is opened from the
 * server's setup answer, fed states once per version, and read through.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "view.h"

static json_t *setup_of(const char *ruleset)
{
    return json_pack("{s:s, s:s, s:s, s:n, s:{}}", "type", "setup", "game", "g-1", "ruleset",
                     ruleset, "scenario", "options");
}

static json_t *state_of(const char *board, int moves, const char *turn)
{
    return json_pack("{s:s, s:s, s:n, s:i, s:{s:s, s:{s:s}}}", "board", board, "turn", turn,
                     "winner", "moves", moves, "server", "status", "running", "awaiting", turn,
                     "mark");
}

static void test_other_registry(void **unused)
{
    (void)unused;
    assert_null(wr_ruleset_find("waterloo"));
    assert_non_null(wr_ruleset_find("tictactoe"));
    struct wrc_view w;
    struct wr_refusal why;
    json_t *su = setup_of("waterloo");
    assert_int_equal(wrc_view_open(&w, "g-1", su, "french", NULL, &why), -1);
    assert_non_null(strstr(why.message, "ruleset 'waterloo', which this warroom does not have"));
    wrc_view_close(&w);
    json_decref(su);
}

static void test_view_of_a_game(void **unused)
{
    (void)unused;
    struct wrc_view w;
    struct wr_refusal why;
    json_t *su = setup_of("tictactoe");
    assert_int_equal(wrc_view_open(&w, "g-1", su, "o", NULL, &why), 0);
    json_decref(su);
    assert_string_equal(w.rs->name, "tictactoe");
    assert_true(json_is_object(w.setup));
    json_t *st = state_of("x........", 1, "o");
    assert_int_equal(wrc_view_feed(&w, st, 1, &why), 0);
    json_decref(st);
    /* The same version again is not fed: the view keeps what it has. */
    json_t *other = state_of("xo.......", 2, "x");
    assert_int_equal(wrc_view_feed(&w, other, 1, &why), 0);
    struct wr_strbuf b;
    wr_strbuf_init(&b);
    wrc_view_headline(w.v, &b);
    assert_string_equal(b.s, "move 1: awaiting o (mark)  <- your decision");
    wr_strbuf_release(&b);
    assert_int_equal(wrc_view_feed(&w, other, 2, &why), 0);
    json_decref(other);
    wr_strbuf_init(&b);
    wrc_view_headline(w.v, &b);
    assert_string_equal(b.s, "move 2: awaiting x (mark)");
    wr_strbuf_release(&b);
    /* Lines: a JSON object as typed, an order, a refusal. */
    json_t *cmd = NULL;
    wr_strbuf_init(&b);
    assert_int_equal(wrc_view_line(w.v, " {\"type\":\"mark\",\"cell\":7}", &cmd, &b, &why),
                     WR_ORDER_COMMAND);
    assert_int_equal(json_integer_value(json_object_get(cmd, "cell")), 7);
    json_decref(cmd);
    assert_int_equal(wrc_view_line(w.v, "mark 5", &cmd, &b, &why), WR_ORDER_COMMAND);
    assert_int_equal(json_integer_value(json_object_get(cmd, "cell")), 5);
    json_decref(cmd);
    assert_int_equal(wrc_view_line(w.v, "{\"type\":1,\"type\":2}", &cmd, &b, &why),
                     WR_ORDER_ERROR);
    assert_string_equal(why.code, "bad_command");
    assert_int_equal(wrc_view_line(w.v, "dance", &cmd, &b, &why), WR_ORDER_ERROR);
    assert_non_null(strstr(why.message, "'dance' is not an order"));
    wr_strbuf_release(&b);
    /* help: the orders table; completion: orders and the host's words. */
    wr_strbuf_init(&b);
    assert_int_equal(wrc_view_help(w.v, NULL, &b), 0);
    assert_non_null(strstr(b.s, "mark N\n"));
    assert_non_null(strstr(b.s, "    e.g. mark 4\n"));
    assert_non_null(strstr(b.s, "any tictactoe command as a JSON object"));
    wr_strbuf_release(&b);
    /* help ORDER: that order's block alone; an unknown one names the orders */
    wr_strbuf_init(&b);
    assert_int_equal(wrc_view_help(w.v, "mark", &b), 0);
    assert_true(strncmp(b.s, "mark N\n    ", 11) == 0);
    assert_non_null(strstr(b.s, "    e.g. mark 4\n"));
    assert_null(strstr(b.s, "JSON object"));
    wr_strbuf_release(&b);
    wr_strbuf_init(&b);
    assert_int_equal(wrc_view_help(w.v, "dance", &b), -1);
    assert_true(strncmp(b.s, "no order 'dance'; the orders: mark", 34) == 0);
    wr_strbuf_release(&b);
    wrc_view_close(&w);
    wrc_view_close(&w);         /* closing twice is allowed */
}

static void collect(void *ctx, const char *cand)
{
    wr_strbuf_printf(ctx, "%s ", cand);
}

static void test_complete(void **unused)
{
    (void)unused;
    struct wrc_view w;
    struct wr_refusal why;
    json_t *su = setup_of("tictactoe");
    assert_int_equal(wrc_view_open(&w, "g-1", su, "x", NULL, &why), 0);
    json_decref(su);
    json_t *st = state_of("xo.......", 2, "x");
    assert_int_equal(wrc_view_feed(&w, st, 2, &why), 0);
    json_decref(st);
    static const char *const host[] = { "help", "quit", NULL };
    struct wr_strbuf b;
    wr_strbuf_init(&b);
    wrc_view_complete(w.v, host, NULL, 0, "", collect, &b);
    assert_string_equal(b.s, "mark help quit ");
    wr_strbuf_release(&b);
    const char *words[] = { "mark" };
    wr_strbuf_init(&b);
    wrc_view_complete(w.v, host, words, 1, "", collect, &b);
    assert_string_equal(b.s, "2 3 4 5 6 7 8 ");
    wr_strbuf_release(&b);
    wrc_view_close(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_other_registry),
        cmocka_unit_test(test_view_of_a_game),
        cmocka_unit_test(test_complete),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
