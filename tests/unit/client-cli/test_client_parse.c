/*
 * test_client_parse.c - what the terminal client reads from people: server
 * URLs (client-cli/url.c) and a command typed as a JSON object
 * (client-cli/shortcmd.c; every other line is an order of the game's view,
 * tested with each ruleset's presentation). Numbered rows; a failure names
 * its row.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shortcmd.h"
#include "url.h"

static void test_urls(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int ok;
        const char *host;
        int port;
        const char *path;       /* or, when !ok, a fragment of the error */
    } rows[] = {
        /* 1 */ { "ws://127.0.0.1:8080/", 1, "127.0.0.1", 8080, "/" },
        /* 2 */ { "ws://example.org", 1, "example.org", 80, "/" },
        /* 3 */ { "ws://example.org:9/games/x", 1, "example.org", 9, "/games/x" },
        /* 4 */ { "ws://[::1]:8080/", 1, "::1", 8080, "/" },
        /* 5 */ { "wss://example.org/", 0, NULL, 0, "plain ws://" },
        /* 6 */ { "http://example.org/", 0, NULL, 0, "not a ws:// URL" },
        /* 7 */ { "127.0.0.1:8080", 0, NULL, 0, "not a ws:// URL" },
        /* 8 */ { "ws://:8080/", 0, NULL, 0, "names no host" },
        /* 9 */ { "ws://host:0/", 0, NULL, 0, "1 to 65535" },
        /* 10 */ { "ws://host:99999/", 0, NULL, 0, "1 to 65535" },
        /* 11 */ { "ws://host:80x/", 0, NULL, 0, "1 to 65535" },
        /* 12 */ { "ws://[::1/", 0, NULL, 0, "closing ']'" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct wrc_url u;
        char err[256] = "";
        int rc = wrc_url_parse(rows[i].text, &u, err, sizeof err);
        if ((rc == 0) != rows[i].ok)
            fail_msg("row %zu (%s): rc %d (%s)", i + 1, rows[i].text, rc, err);
        if (rows[i].ok) {
            if (strcmp(u.host, rows[i].host) || u.port != rows[i].port ||
                strcmp(u.path, rows[i].path))
                fail_msg("row %zu: host %s port %d path %s", i + 1, u.host, u.port, u.path);
        } else if (strstr(err, rows[i].path) == NULL) {
            fail_msg("row %zu: error \"%s\", want \"%s\"", i + 1, err, rows[i].path);
        }
    }
}

static void test_json_lines(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int rc;                 /* 1 a JSON object, 0 an order, -1 refused */
        const char *json;       /* the command when rc is 1 */
        const char *err;        /* a fragment of the error when rc is -1 */
    } rows[] = {
        /* 1 */ { "{\"type\":\"mark\",\"cell\":0}", 1, "{\"type\":\"mark\",\"cell\":0}", NULL },
        /* 2 */ { "  \t{\"type\":\"end_phase\"}  ", 1, "{\"type\":\"end_phase\"}", NULL },
        /* 3 */ { "{\"type\":\"mark\",\"type\":\"x\"}", -1, NULL, "duplicate" },
        /* 4 */ { "{\"type\":\"mark\"", -1, NULL, "not a JSON object" },
        /* 5 */ { "{\"type\":\"mark\"} {}", -1, NULL, "not a JSON object" },
        /* 6 */ { "mark 4", 0, NULL, NULL },
        /* 7 */ { "[1]", 0, NULL, NULL },
        /* 8 */ { "", 0, NULL, NULL },
        /* 9 */ { "move fr-jerome {J-40}", 0, NULL, NULL },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char err[512] = "";
        json_t *c = (json_t *)1;
        int rc = wrc_line_json(rows[i].text, &c, err, sizeof err);
        if (rc != rows[i].rc)
            fail_msg("row %zu (%s): %d, want %d (%s)", i + 1, rows[i].text, rc, rows[i].rc, err);
        if (rc == 1) {
            json_t *want = json_loads(rows[i].json, 0, NULL);
            assert_non_null(want);
            if (c == NULL || !json_equal(c, want))
                fail_msg("row %zu (%s): not the command %s", i + 1, rows[i].text, rows[i].json);
            json_decref(want);
            json_decref(c);
            continue;
        }
        assert_null(c);
        if (rc == -1 && strstr(err, rows[i].err) == NULL)
            fail_msg("row %zu (%s): want an error with \"%s\", got \"%s\"", i + 1,
                     rows[i].text, rows[i].err, err);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_urls),
        cmocka_unit_test(test_json_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
