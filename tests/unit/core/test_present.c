/*
 * test_present.c - the presentation helpers every ruleset's describe uses
 * (common/core/present.c): the line of the server section, with the time
 * each awaited seat has left and the reason of a forfeit, one row each.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "present.h"
#include "strbuf.h"

static void test_waiting_line(void **state)
{
    (void)state;
    static const struct {
        int row;
        const char *server;     /* the state's "server" section, JSON */
        const char *want;
    } t[] = {
        { 1, NULL, "no state yet" },
        { 2, "{\"status\":\"open\",\"result\":null,\"forfeit\":null,\"awaiting\":{},"
             "\"deadlines\":{}}", "open: waiting for every seat to be claimed" },
        { 3, "{\"status\":\"running\",\"result\":null,\"forfeit\":null,"
             "\"awaiting\":{\"french\":\"move\"},\"deadlines\":{}}", "awaiting french (move)" },
        /* the time left, as the server counted it */
        { 4, "{\"status\":\"running\",\"result\":null,\"forfeit\":null,"
             "\"awaiting\":{\"french\":\"move\"},\"deadlines\":{\"french\":1796205600000},"
             "\"deadlines_left\":{\"french\":86340000}}",
          "awaiting french (move; time left 23h 59m)" },
        { 5, "{\"status\":\"running\",\"result\":null,\"forfeit\":null,"
             "\"awaiting\":{\"p1\":\"tactic\",\"p3\":\"tactic\"},"
             "\"deadlines\":{\"p1\":1,\"p3\":1},\"deadlines_left\":{\"p1\":187200000,"
             "\"p3\":250999}}",
          "awaiting p1 (tactic; time left 2d 4h), p3 (tactic; time left 4m 10s)" },
        { 6, "{\"status\":\"running\",\"result\":null,\"forfeit\":null,"
             "\"awaiting\":{\"x\":\"mark\"},\"deadlines\":{\"x\":1},"
             "\"deadlines_left\":{\"x\":9999}}", "awaiting x (mark; time left 9s)" },
        { 7, "{\"status\":\"running\",\"result\":null,\"forfeit\":null,"
             "\"awaiting\":{\"x\":\"mark\"},\"deadlines\":{\"x\":1},"
             "\"deadlines_left\":{\"x\":0}}", "awaiting x (mark; time left 0s)" },
        { 8, "{\"status\":\"running\",\"result\":null,\"forfeit\":null,"
             "\"awaiting\":{\"x\":\"mark\"},\"deadlines\":{\"x\":1},"
             "\"deadlines_left\":{\"x\":3600000}}", "awaiting x (mark; time left 1h 0m)" },
        /* a forfeit names its reason */
        { 9, "{\"status\":\"finished\",\"result\":\"forfeit\",\"forfeit\":\"french\","
             "\"forfeit_reason\":\"french: no decision (move) in 86400 s (deadline "
             "2026-12-02 10:00:00 UTC)\",\"awaiting\":{},\"deadlines\":{}}",
          "over: french forfeited (french: no decision (move) in 86400 s (deadline "
          "2026-12-02 10:00:00 UTC))" },
        { 10, "{\"status\":\"finished\",\"result\":\"forfeit\",\"forfeit\":\"o\","
              "\"awaiting\":{},\"deadlines\":{}}", "over: o forfeited" },
        { 11, "{\"status\":\"finished\",\"result\":\"x\",\"forfeit\":null,\"awaiting\":{},"
              "\"deadlines\":{}}", "over: x won" },
        { 12, "{\"status\":\"running\",\"result\":null,\"forfeit\":null,\"awaiting\":{},"
              "\"deadlines\":{}}", "awaiting nobody" },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        json_t *st = json_object();
        if (t[i].server) {
            json_t *srv = json_loads(t[i].server, 0, NULL);
            if (srv == NULL)
                fail_msg("row %d: test data: bad JSON", t[i].row);
            json_object_set_new(st, "server", srv);
        }
        struct wr_strbuf out;
        wr_strbuf_init(&out);
        wr_state_waiting_line(st, &out);
        if (out.s == NULL || strcmp(out.s, t[i].want) != 0)
            fail_msg("row %d: '%s', want '%s'", t[i].row, out.s ? out.s : "", t[i].want);
        wr_strbuf_release(&out);
        json_decref(st);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_waiting_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
