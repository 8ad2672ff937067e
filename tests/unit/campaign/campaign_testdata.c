/* campaign_testdata.c - see campaign_testdata.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "campaign_testdata.h"

json_t *ct_jq(const char *text)
{
    char *s = strdup(text);
    assert_non_null(s);
    for (char *p = s; *p; p++)
        if (*p == '\'')
            *p = '"';
    json_error_t err;
    json_t *j = json_loads(s, JSON_REJECT_DUPLICATES, &err);
    if (j == NULL)
        fail_msg("bad test JSON %s: %s", s, err.text);
    free(s);
    return j;
}
