/*
 * shortcmd.c - a typed line that is a JSON object (shortcmd.h).
 */
#include "shortcmd.h"

#include <ctype.h>
#include <jansson.h>
#include <stdio.h>

int wrc_line_json(const char *text, json_t **cmd, char *err, size_t errlen)
{
    *cmd = NULL;
    while (isspace((unsigned char)*text))
        text++;
    if (*text != '{')
        return 0;
    json_error_t je;
    json_t *c = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    if (c == NULL) {
        snprintf(err, errlen, "not a JSON object: %s", je.text);
        return -1;
    }
    if (!json_is_object(c)) {
        snprintf(err, errlen, "not a JSON object");
        json_decref(c);
        return -1;
    }
    *cmd = c;
    return 1;
}
