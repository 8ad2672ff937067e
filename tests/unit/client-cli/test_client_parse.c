/*
 * test_client_parse.c - what the terminal client reads from people: server
 * URLs (client-cli/url.c) and the short forms of rules commands
 * (client-cli/shortcmd.c). Numbered rows; a failure names its row.
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

static void test_short_forms(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        const char *json;       /* the command, or NULL when refused */
        const char *err;        /* a fragment of the error when refused */
    } rows[] = {
        /* 1 */ { "move fr-jerome J-40 I-40",
                  "{\"type\":\"move\",\"unit\":\"fr-jerome\",\"path\":[\"J-40\",\"I-40\"]}", NULL },
        /* 2 */ { "  move fr-jerome,fr-foy j-40 off ",
                  "{\"type\":\"move\",\"units\":[\"fr-jerome\",\"fr-foy\"],"
                  "\"path\":[\"J-40\",\"off\"]}", NULL },
        /* 3 */ { "end", "{\"type\":\"end_phase\"}", NULL },
        /* 4 */ { "endsetup", "{\"type\":\"end_setup\"}", NULL },
        /* 5 */ { "declare fr-jerome:aa-picton fr-foy,fr-pire:aa-cooke",
                  "{\"type\":\"declare\",\"battles\":[{\"attackers\":[\"fr-jerome\"],"
                  "\"defenders\":[\"aa-picton\"]},{\"attackers\":[\"fr-foy\",\"fr-pire\"],"
                  "\"defenders\":[\"aa-cooke\"]}]}", NULL },
        /* 6 */ { "declare", "{\"type\":\"declare\",\"battles\":[]}", NULL },
        /* 7 */ { "attack fr-jerome vs aa-picton; fr-foy fr-pire vs aa-cooke",
                  "{\"type\":\"declare\",\"battles\":[{\"attackers\":[\"fr-jerome\"],"
                  "\"defenders\":[\"aa-picton\"]},{\"attackers\":[\"fr-foy\",\"fr-pire\"],"
                  "\"defenders\":[\"aa-cooke\"]}]}", NULL },
        /* 8 */ { "attack", "{\"type\":\"declare\",\"battles\":[]}", NULL },
        /* 9 */ { "resolve 2", "{\"type\":\"resolve\",\"battle\":2}", NULL },
        /* 10 */ { "resolve", "{\"type\":\"resolve\"}", NULL },
        /* 11 */ { "retreat fr-jerome j-40 k-40",
                   "{\"type\":\"retreat\",\"unit\":\"fr-jerome\",\"path\":[\"J-40\",\"K-40\"]}",
                   NULL },
        /* 12 */ { "advance fr-foy I-41",
                   "{\"type\":\"advance\",\"unit\":\"fr-foy\",\"to\":\"I-41\"}", NULL },
        /* 13 */ { "noadvance", "{\"type\":\"no_advance\"}", NULL },
        /* 14 */ { "exchange fr-foy fr-pire",
                   "{\"type\":\"exchange_losses\",\"units\":[\"fr-foy\",\"fr-pire\"]}", NULL },
        /* 15 */ { "defect aa-ross,aa-cooke",
                   "{\"type\":\"defect\",\"units\":[\"aa-ross\",\"aa-cooke\"]}", NULL },
        /* 16 */ { "place fr-foy k-41",
                   "{\"type\":\"place\",\"unit\":\"fr-foy\",\"at\":\"K-41\"}", NULL },
        /* 17 */ { "mark 4", "{\"type\":\"mark\",\"cell\":4}", NULL },
        /* 18 */ { "{\"type\":\"mark\",\"cell\":0}", "{\"type\":\"mark\",\"cell\":0}", NULL },
        /* 19 */ { "{\"type\":\"mark\",\"type\":\"x\"}", NULL, "duplicate" },
        /* 20 */ { "[1]", NULL, "unknown command" },
        /* 21 */ { "move fr-jerome", NULL, "usage: move" },
        /* 22 */ { "retreat fr-jerome J-40", NULL, "usage: retreat" },
        /* 23 */ { "declare fr-jerome", NULL, "ATTACKERS:DEFENDERS" },
        /* 24 */ { "attack fr-jerome vs", NULL, "usage: attack" },
        /* 25 */ { "attack vs aa-picton", NULL, "usage: attack" },
        /* 26 */ { "resolve first", NULL, "not a battle number" },
        /* 27 */ { "mark", NULL, "usage: mark" },
        /* 28 */ { "", NULL, "no command" },
        /* 29 */ { "dance", NULL, "unknown command 'dance'" },
        /* 30 */ { "end now", NULL, "usage: end" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char err[512] = "";
        json_t *c = wrc_shortcmd_parse(rows[i].text, err, sizeof err);
        if (rows[i].json == NULL) {
            if (c != NULL || strstr(err, rows[i].err) == NULL)
                fail_msg("row %zu (%s): want an error with \"%s\", got %s / \"%s\"", i + 1,
                         rows[i].text, rows[i].err, c ? "a command" : "no command", err);
            continue;
        }
        json_t *want = json_loads(rows[i].json, 0, NULL);
        assert_non_null(want);
        if (c == NULL || !json_equal(c, want)) {
            char *got = c ? json_dumps(c, JSON_COMPACT) : NULL;
            fail_msg("row %zu (%s): got %s (%s), want %s", i + 1, rows[i].text,
                     got ? got : "nothing", err, rows[i].json);
        }
        json_decref(c);
        json_decref(want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_urls),
        cmocka_unit_test(test_short_forms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
