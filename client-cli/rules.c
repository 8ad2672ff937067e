/*
 * rules.c - the client's table of rulesets (rules.h): Waterloo and
 * tictactoe.
 */
#include "rules.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *str(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* --- waterloo ------------------------------------------------------------------ */

static const char *wl_awaited(const json_t *state)
{
    return str(json_object_get(state, "awaiting"), "seat");
}

static const char *wl_winner(const json_t *state)
{
    return str(state, "winner");
}

static void wl_describe(const json_t *state, struct wr_strbuf *out)
{
    const json_t *aw = json_object_get(state, "awaiting");
    wr_strbuf_printf(out, "Turn %d, %s %s, %s", (int)json_integer_value(json_object_get(state,
                     "turn")), str(state, "date") ? str(state, "date") : "?",
                     str(state, "time") ? str(state, "time") : "?",
                     str(state, "phase") ? str(state, "phase") : "?");
    if (str(state, "winner"))
        wr_strbuf_printf(out, ": won by %s (%s)", str(state, "winner"),
                         str(state, "result") ? str(state, "result") : "");
    else if (json_is_object(aw))
        wr_strbuf_printf(out, ": awaiting %s (%s)", str(aw, "seat"), str(aw, "what"));
    const json_t *bs = json_object_get(state, "battles");
    size_t i;
    json_t *b;
    json_array_foreach(bs, i, b) {
        wr_strbuf_printf(out, "\n  battle %zu: ", i);
        const char *sep = "";
        size_t k;
        json_t *u;
        json_array_foreach(json_object_get(b, "attackers"), k, u) {
            wr_strbuf_printf(out, "%s%s", sep, json_string_value(u));
            sep = ",";
        }
        wr_strbuf_puts(out, " vs ");
        sep = "";
        json_array_foreach(json_object_get(b, "defenders"), k, u) {
            wr_strbuf_printf(out, "%s%s", sep, json_string_value(u));
            sep = ",";
        }
        wr_strbuf_printf(out, " at %s (column %s), %s", str(b, "odds"), str(b, "column"),
                         str(b, "state"));
        if (str(b, "result"))
            wr_strbuf_printf(out, ": %s", str(b, "result"));
        if (json_integer_value(json_object_get(b, "die")))
            wr_strbuf_printf(out, " (die %d)", (int)json_integer_value(json_object_get(b, "die")));
    }
}

static void path_text(const json_t *path, struct wr_strbuf *out)
{
    size_t i;
    json_t *s;
    json_array_foreach(path, i, s)
        wr_strbuf_printf(out, "%s%s", i ? " > " : "", json_string_value(s));
}

static void wl_event(const json_t *e, struct wr_strbuf *out)
{
    const char *type = str(e, "type");
    const char *unit = str(e, "unit");
    if (type == NULL)
        return;
    if (strcmp(type, "moved") == 0 || strcmp(type, "entered") == 0) {
        const json_t *units = json_object_get(e, "units");
        size_t i;
        json_t *u;
        json_array_foreach(units, i, u)
            wr_strbuf_printf(out, "%s%s", i ? "," : "", json_string_value(u));
        wr_strbuf_printf(out, " %s from %s: ", type, str(e, "from") ? str(e, "from") : "?");
        path_text(json_object_get(e, "path"), out);
    } else if (strcmp(type, "retreated") == 0) {
        wr_strbuf_printf(out, "%s retreated from %s: ", unit, str(e, "from"));
        path_text(json_object_get(e, "path"), out);
    } else if (strcmp(type, "advanced") == 0 || strcmp(type, "placed") == 0) {
        wr_strbuf_printf(out, "%s %s from %s to %s", unit, type, str(e, "from"), str(e, "to"));
    } else if (strcmp(type, "eliminated") == 0 || strcmp(type, "defected") == 0) {
        wr_strbuf_printf(out, "%s %s%s%s", unit, type, str(e, "from") ? " on " : "",
                         str(e, "from") ? str(e, "from") : "");
    } else if (strcmp(type, "exited") == 0) {
        wr_strbuf_printf(out, "%s left the board", unit);
    } else if (strcmp(type, "phase") == 0) {
        wr_strbuf_printf(out, "turn %d: %s", (int)json_integer_value(json_object_get(e, "turn")),
                         str(e, "phase"));
    } else if (strcmp(type, "declared") == 0) {
        wr_strbuf_printf(out, "battle %d declared at %s (column %s)",
                         (int)json_integer_value(json_object_get(e, "battle")), str(e, "odds"),
                         str(e, "column"));
    } else if (strcmp(type, "roll") == 0) {
        wr_strbuf_printf(out, "battle %d: the die shows %d (roll %d)",
                         (int)json_integer_value(json_object_get(e, "battle")),
                         (int)json_integer_value(json_object_get(e, "face")),
                         (int)json_integer_value(json_object_get(e, "k")));
    } else if (strcmp(type, "result") == 0) {
        wr_strbuf_printf(out, "battle %d: %s", (int)json_integer_value(json_object_get(e,
                         "battle")), str(e, "result"));
    } else if (strcmp(type, "defection_due") == 0) {
        wr_strbuf_printf(out, "P-A-A units worth %d factors must defect",
                         (int)json_integer_value(json_object_get(e, "factors")));
    } else if (strcmp(type, "game_over") == 0) {
        wr_strbuf_printf(out, "game over: %s wins (%s)", str(e, "winner"),
                         str(e, "reason") ? str(e, "reason") : "");
    } else {
        char *s = json_dumps(e, JSON_COMPACT);
        wr_strbuf_puts(out, s ? s : type);
        free(s);
    }
}

static void wl_complete(const json_t *state, json_t *cmd)
{
    const char *type = str(cmd, "type");
    const char *what = str(json_object_get(state, "awaiting"), "what");
    if (type && what && strcmp(type, "end_phase") == 0 && strcmp(what, "setup") == 0) {
        json_object_set_new(cmd, "type", json_string("end_setup"));     /* frees type */
        return;
    }
    if (type && strcmp(type, "resolve") == 0 && json_object_get(cmd, "battle") == NULL) {
        size_t i;
        json_t *b;
        json_array_foreach(json_object_get(state, "battles"), i, b)
            if (str(b, "state") && strcmp(str(b, "state"), "declared") == 0) {
                json_object_set_new(cmd, "battle", json_integer((json_int_t)i));
                break;
            }
    }
}

/* --- tictactoe ------------------------------------------------------------------- */

static const char *ttt_awaited(const json_t *state)
{
    return str(state, "turn");
}

static const char *ttt_winner(const json_t *state)
{
    return str(state, "winner");
}

static void ttt_describe(const json_t *state, struct wr_strbuf *out)
{
    int moves = (int)json_integer_value(json_object_get(state, "moves"));
    if (str(state, "winner"))
        wr_strbuf_printf(out, "move %d: %s", moves, strcmp(str(state, "winner"), "draw") == 0
                         ? "a draw" : str(state, "winner"));
    if (str(state, "winner") && strcmp(str(state, "winner"), "draw") != 0)
        wr_strbuf_puts(out, " wins");
    if (!str(state, "winner"))
        wr_strbuf_printf(out, "move %d: awaiting %s (mark)", moves,
                         str(state, "turn") ? str(state, "turn") : "?");
}

static void ttt_event(const json_t *e, struct wr_strbuf *out)
{
    const char *type = str(e, "type");
    if (type && strcmp(type, "marked") == 0)
        wr_strbuf_printf(out, "%s marked cell %d", str(e, "seat"),
                         (int)json_integer_value(json_object_get(e, "cell")));
    else if (type && strcmp(type, "game_over") == 0)
        wr_strbuf_printf(out, "game over: %s", str(e, "winner"));
}

static void ttt_picture(const json_t *state, int color, struct wr_strbuf *out)
{
    const char *b = str(state, "board");
    if (b == NULL || strlen(b) != 9)
        return;
    for (int r = 0; r < 3; r++) {
        wr_strbuf_puts(out, "   ");
        for (int c = 0; c < 3; c++) {
            char ch = b[3 * r + c];
            if (ch == '.') {
                wr_strbuf_printf(out, " %s%d%s ", color ? "\x1b[2m" : "", 3 * r + c,
                                 color ? "\x1b[0m" : "");
            } else {
                const char *on = !color ? "" : ch == 'x' ? "\x1b[1;31m" : "\x1b[1;34m";
                wr_strbuf_printf(out, " %s%c%s ", on, ch, color ? "\x1b[0m" : "");
            }
            wr_strbuf_puts(out, c < 2 ? "|" : "\n");
        }
        if (r < 2)
            wr_strbuf_puts(out, "   ---+---+---\n");
    }
}

static void ttt_complete(const json_t *state, json_t *cmd)
{
    (void)state;
    (void)cmd;
}

/* --- the table ---------------------------------------------------------------------- */

static const struct wrc_rules rules[] = {
    { "waterloo", wl_awaited, wl_winner, wl_describe, wl_event, NULL, wl_complete },
    { "tictactoe", ttt_awaited, ttt_winner, ttt_describe, ttt_event, ttt_picture, ttt_complete },
};

void wrc_rules_summary(const struct wrc_rules *r, const json_t *state, const char *seat,
                       struct wr_strbuf *out)
{
    struct wr_strbuf d;
    wr_strbuf_init(&d);
    r->describe(state, &d);
    const char *text = d.s ? d.s : "";
    const char *aw = r->awaited(state);
    size_t first = strcspn(text, "\n");
    wr_strbuf_add(out, text, first);
    if (aw && seat && seat[0] && strcmp(aw, seat) == 0)
        wr_strbuf_puts(out, "  <- your decision");
    wr_strbuf_puts(out, text + first);
    wr_strbuf_release(&d);
}

const struct wrc_rules *wrc_rules_find(const char *name)
{
    for (size_t i = 0; name && i < sizeof rules / sizeof rules[0]; i++)
        if (strcmp(rules[i].name, name) == 0)
            return &rules[i];
    return NULL;
}
