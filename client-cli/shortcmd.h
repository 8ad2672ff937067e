/*
 * shortcmd.h - the one form of a typed command every game shares: a line
 * that is a JSON object is the command itself, sent as typed. Any other
 * line is an order for the game's view (present.h, order()).
 */
#ifndef WRC_SHORTCMD_H
#define WRC_SHORTCMD_H

#include <stddef.h>

struct json_t;

/* Is text (leading blanks skipped) a JSON object? 1 and *cmd (a new
 * reference) when it is; 0 when it does not start with '{' (an order);
 * -1 with a sentence in err (errlen bytes) when it starts with '{' but is
 * not one JSON object (duplicate keys refused, as the server does). */
int wrc_line_json(const char *text, struct json_t **cmd, char *err, size_t errlen);

#endif
