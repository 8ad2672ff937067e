/*
 * test_error_codes.c - the server's error codes (server/errors.h) and
 * docs/protocol.md's table of them say the same: every code of the table
 * in the header is documented, and every code the documentation's table
 * lists is one the server has (its own, or the notifier's webhook_refused).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "notify.h"

#ifndef WARROOM_DOCS_DIR
#error "WARROOM_DOCS_DIR must be defined by the build"
#endif

static char *read_doc(void)
{
    FILE *f = fopen(WARROOM_DOCS_DIR "/protocol.md", "rb");
    assert_non_null(f);
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* The "## Error codes" section's table, as text. */
static char *error_table(char *doc)
{
    char *start = strstr(doc, "\n## Error codes\n");
    assert_non_null(start);
    char *end = strstr(start + 1, "\n## ");
    if (end)
        *end = '\0';
    return start;
}

static int server_knows(const char *code)
{
    for (int e = 0; e < WRD_E_COUNT; e++)
        if (strcmp(wrd_error_code((enum wrd_error)e), code) == 0)
            return 1;
    return strcmp(code, wrd_notify_err_code(WRD_NOTIFY_EREFUSED)) == 0;
}

static void test_every_code_documented(void **state)
{
    (void)state;
    char *table = error_table(read_doc());
    for (int e = 0; e < WRD_E_COUNT; e++) {
        char quoted[64];
        snprintf(quoted, sizeof quoted, "`%s`", wrd_error_code((enum wrd_error)e));
        if (strstr(table, quoted) == NULL)
            fail_msg("%s is not in docs/protocol.md's table of error codes", quoted);
        assert_true(strlen(wrd_error_text((enum wrd_error)e)) > 0);
    }
}

static void test_every_documented_code_known(void **state)
{
    (void)state;
    char *table = error_table(read_doc());
    /* Each row starts "| `code`" (some rows list several codes). */
    int rows = 0;
    for (char *line = strstr(table, "\n| `"); line; line = strstr(line + 1, "\n| `")) {
        char *end = strchr(line + 1, '\n');
        char *cell_end = strstr(line + 3, " |");
        if (cell_end == NULL || (end && cell_end > end))
            continue;
        for (char *q = strchr(line + 2, '`'); q && q < cell_end; q = strchr(q + 1, '`')) {
            char *close = strchr(q + 1, '`');
            if (close == NULL || close > cell_end)
                break;
            char code[64];
            snprintf(code, sizeof code, "%.*s", (int)(close - q - 1), q + 1);
            if (!server_knows(code))
                fail_msg("docs/protocol.md documents `%s`, which the server does not send",
                         code);
            rows++;
            q = close;
        }
    }
    assert_true(rows >= WRD_E_COUNT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_code_documented),
        cmocka_unit_test(test_every_documented_code_known),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
