/*
 * test_addr.c - server/addr: an address's budget and the turns of the
 * requests waiting for it (addr.h). The loop is initialised but never run,
 * so its time stands still and nothing refills behind the test's back: the
 * budget is what each row sets. At 40 units a second a unit takes 25 ms.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <uv.h>

#include "addr.h"
#include "server.h"

#define RATE 40 /* units a second: the burst is then 100 units (addr.c) */

static int setup(void **state)
{
    struct wrd_server *srv = calloc(1, sizeof *srv);
    if (srv == NULL || uv_loop_init(&srv->loop) != 0)
        return -1;
    srv->cfg.address_rate = RATE;
    if (wrd_addrs_new(srv) != 0)
        return -1;
    *state = srv;
    return 0;
}

static int teardown(void **state)
{
    struct wrd_server *srv = *state;
    wrd_addrs_close(srv);
    uv_run(&srv->loop, UV_RUN_DEFAULT);
    wrd_addrs_free(srv);
    int rc = uv_loop_close(&srv->loop);
    free(srv);
    return rc;
}

/* The turns of a, first to last, as "cost cost ...". */
static const char *order(const struct wrd_addr *a)
{
    static char buf[128];
    size_t n = 0;
    buf[0] = '\0';
    for (const struct wrd_addr_turn *t = a->turns; t != NULL; t = t->next)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%g", n ? " " : "", t->cost);
    return buf;
}

/* Nothing waits: a request the budget holds goes through and is never
 * queued; one it does not hold waits, first in line. */
static void test_alone(void **state)
{
    struct wrd_server *srv = *state;
    struct wrd_addr *a = wrd_addr_get(srv, "192.0.2.1");
    assert_non_null(a);
    struct wrd_addr_turn t = { 0 };
    assert_int_equal(wrd_addr_take_turn(srv, a, &t, 6), 1);
    assert_true(t.cost == 0 && a->turns == NULL);
    a->tokens = 2;
    assert_int_equal(wrd_addr_take_turn(srv, a, &t, 6), 0);
    assert_ptr_equal(a->turns, &t);
    assert_string_equal(order(a), "6");
    /* 4 units short: 100 ms, and the 1 ms the wait is rounded up by */
    assert_int_equal(wrd_addr_turn_wait_ms(srv, a, &t), 101);
    a->tokens = 6;
    assert_int_equal(wrd_addr_take_turn(srv, a, &t, 6), 1);
    assert_true(t.cost == 0 && a->turns == NULL && a->tokens == 0);
    wrd_addr_put(srv, a);
}

/* A costly request that waits first is not passed over by a cheaper one
 * the budget could hold sooner, nor by an HTTP page; each goes in its
 * turn, and the later one's wait counts the costs before it. */
static void test_first_come_first_served(void **state)
{
    struct wrd_server *srv = *state;
    struct wrd_addr *a = wrd_addr_get(srv, "192.0.2.2");
    struct wrd_addr_turn list = { 0 }, rulesets = { 0 }, page = { 0 };
    a->tokens = 0;
    assert_int_equal(wrd_addr_take_turn(srv, a, &list, 6), 0);
    assert_int_equal(wrd_addr_take_turn(srv, a, &rulesets, 3), 0);
    assert_string_equal(order(a), "6 3");
    /* the list waits for 6 units (150 ms), the rulesets for 6 + 3 (225 ms) */
    assert_int_equal(wrd_addr_turn_wait_ms(srv, a, &list), 151);
    assert_int_equal(wrd_addr_turn_wait_ms(srv, a, &rulesets), 226);
    a->tokens = 4;              /* enough for the rulesets or a page, not for the list */
    assert_int_equal(wrd_addr_take_turn(srv, a, &rulesets, 3), 0);
    assert_int_equal(wrd_addr_take_turn(srv, a, &page, 1), 0);  /* an HTTP page too */
    assert_int_equal(wrd_addr_take_turn(srv, a, &list, 6), 0);
    assert_true(a->tokens == 4);                    /* nothing was taken */
    assert_string_equal(order(a), "6 3 1");
    a->tokens = 9;
    assert_int_equal(wrd_addr_take_turn(srv, a, &list, 6), 1);
    assert_string_equal(order(a), "3 1");
    assert_int_equal(wrd_addr_take_turn(srv, a, &rulesets, 3), 1);
    assert_true(a->tokens == 0);
    assert_int_equal(wrd_addr_take_turn(srv, a, &page, 1), 0);
    a->tokens = 1;
    assert_int_equal(wrd_addr_take_turn(srv, a, &page, 1), 1);
    assert_null(a->turns);
    assert_null(a->turns_last);
    wrd_addr_put(srv, a);
}

/* A request whose connection goes away leaves the queue, from its head,
 * its middle or its end, and the rest keep their order. */
static void test_leave(void **state)
{
    struct wrd_server *srv = *state;
    struct wrd_addr *a = wrd_addr_get(srv, "192.0.2.3");
    struct wrd_addr_turn t[4] = { { 0 } };
    a->tokens = 0;
    for (int i = 0; i < 4; i++)
        assert_int_equal(wrd_addr_take_turn(srv, a, &t[i], i + 1), 0);
    assert_string_equal(order(a), "1 2 3 4");
    wrd_addr_leave(a, &t[1]);
    assert_string_equal(order(a), "1 3 4");
    wrd_addr_leave(a, &t[1]);   /* not queued any more: nothing */
    assert_string_equal(order(a), "1 3 4");
    wrd_addr_leave(a, &t[0]);
    assert_string_equal(order(a), "3 4");
    wrd_addr_leave(a, &t[3]);
    assert_string_equal(order(a), "3");
    assert_ptr_equal(a->turns_last, &t[2]);
    /* the one left is first now */
    a->tokens = 3;
    assert_int_equal(wrd_addr_take_turn(srv, a, &t[2], 3), 1);
    assert_null(a->turns);
    /* a request that tries again keeps its place */
    a->tokens = 0;
    assert_int_equal(wrd_addr_take_turn(srv, a, &t[0], 2), 0);
    assert_int_equal(wrd_addr_take_turn(srv, a, &t[1], 2), 0);
    assert_int_equal(wrd_addr_take_turn(srv, a, &t[0], 2), 0);
    assert_ptr_equal(a->turns, &t[0]);
    wrd_addr_leave(a, &t[0]);
    wrd_addr_leave(a, &t[1]);
    assert_null(a->turns);
    assert_null(a->turns_last);
    wrd_addr_put(srv, a);
}

/* Which turns were woken, in order ("0 2 ..."): the index of each in woken_of. */
static struct wrd_addr_turn *woken_of;
static char woken[64];

static void note_wake(struct wrd_addr_turn *t)
{
    size_t n = strlen(woken);
    snprintf(woken + n, sizeof woken - n, "%s%d", n ? " " : "", (int)(t - woken_of));
}

/* A request that goes away wakes those behind it, whose waits are shorter
 * by its cost: without the wake they would wait as if it were still there
 * (test_server_limits, test_address_turns_lobby_gone, live). One let
 * through wakes nobody: the waits behind it counted its cost. */
static void test_leave_wakes_those_behind(void **state)
{
    struct wrd_server *srv = *state;
    struct wrd_addr *a = wrd_addr_get(srv, "192.0.2.5");
    struct wrd_addr_turn t[4] = { { 0 } };
    woken_of = t;
    woken[0] = '\0';
    a->tokens = 0;
    for (int i = 0; i < 4; i++) {
        t[i].wake = note_wake;
        assert_int_equal(wrd_addr_take_turn(srv, a, &t[i], 4), 0);
    }
    /* 16 units before the last one's turn: 400 ms */
    assert_int_equal(wrd_addr_turn_wait_ms(srv, a, &t[3]), 401);
    wrd_addr_leave(a, &t[1]);
    assert_string_equal(woken, "2 3");
    assert_int_equal(wrd_addr_turn_wait_ms(srv, a, &t[2]), 201);
    assert_int_equal(wrd_addr_turn_wait_ms(srv, a, &t[3]), 301);
    woken[0] = '\0';
    wrd_addr_leave(a, &t[3]);   /* the last: nobody behind it */
    assert_string_equal(woken, "");
    a->tokens = 4;
    assert_int_equal(wrd_addr_take_turn(srv, a, &t[0], 4), 1);     /* let through */
    assert_string_equal(woken, "");
    assert_int_equal(wrd_addr_turn_wait_ms(srv, a, &t[2]), 101);
    wrd_addr_leave(a, &t[2]);
    assert_null(a->turns);
    wrd_addr_put(srv, a);
}

/* A cost above the whole budget (100 units) waits for a full budget and
 * then goes through, driving the budget below zero; its wait, and that of
 * those behind it, counts it as the burst. */
static void test_cost_above_the_burst(void **state)
{
    struct wrd_server *srv = *state;
    struct wrd_addr *a = wrd_addr_get(srv, "192.0.2.4");
    struct wrd_addr_turn big = { 0 }, small = { 0 };
    a->tokens = 50;
    assert_int_equal(wrd_addr_take_turn(srv, a, &big, 150), 0);
    assert_int_equal(wrd_addr_take_turn(srv, a, &small, 1), 0);
    assert_int_equal(wrd_addr_turn_wait_ms(srv, a, &big), 1251);     /* 50 units short */
    assert_int_equal(wrd_addr_turn_wait_ms(srv, a, &small), 1276);   /* 51 */
    a->tokens = 100;
    assert_int_equal(wrd_addr_take_turn(srv, a, &big, 150), 1);
    assert_true(a->tokens == -50);
    assert_int_equal(wrd_addr_take_turn(srv, a, &small, 1), 0);
    assert_int_equal(wrd_addr_turn_wait_ms(srv, a, &small), 1276);   /* 51 */
    wrd_addr_leave(a, &small);
    wrd_addr_put(srv, a);
}

/* No address record (none could be made): everything goes through. */
static void test_no_record(void **state)
{
    struct wrd_server *srv = *state;
    struct wrd_addr_turn t = { 0 };
    assert_int_equal(wrd_addr_take_turn(srv, NULL, &t, 1000), 1);
    assert_true(t.cost == 0);
    wrd_addr_leave(NULL, &t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_alone, setup, teardown),
        cmocka_unit_test_setup_teardown(test_first_come_first_served, setup, teardown),
        cmocka_unit_test_setup_teardown(test_leave, setup, teardown),
        cmocka_unit_test_setup_teardown(test_leave_wakes_those_behind, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cost_above_the_burst, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_record, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
