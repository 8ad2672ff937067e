/*
 * battle_present_draw.c - what the battle's view draws (battle_present.h):
 * the roster view as terminal text (each army: its break point, each unit
 * with its models left of its start, formation, statuses and the rules
 * core's sentence for each, the facts stated; a sealed roster as sealed;
 * the last tests seen), the same lines as an SVG document, and the battle
 * sheet (draw_report): one self-contained HTML page, inline CSS, no
 * script, that a club prints or posts.
 *
 * The text is cut into lines of at most the columns given (80 when 0) by
 * wr_text_cut (strbuf.h); long sentences are wrapped at a space, indented.
 * Everything comes from the view's state and, for the sheet, from the
 * steps' events (docs/rulesets/battle.md, "Events"). No I/O: everything is
 * appended to a wr_strbuf.
 */
#include "battle_present.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const side_names[] = { "p1", "p2" };

static const json_t *side_of_state(const json_t *st, int s)
{
    return json_object_get(json_object_get(st, "sides"), side_names[s]);
}

/* --- text lines --------------------------------------------------------------------------- */

/* Append text as lines of at most width characters: the first line as
 * is, the next ones indented by indent spaces, broken at a space when
 * there is one. */
static void put_wrapped(struct wr_strbuf *out, int width, int indent, const char *text)
{
    size_t n = strlen(text), k = 0;
    int first = 1;
    while (k < n || first) {
        int room = width - (first ? 0 : indent);
        if (room < 8)
            room = 8;
        size_t end = k + wr_text_cut(text + k, n - k, room), brk = end;
        if (end < n) {
            while (brk > k && text[brk] != ' ')
                brk--;
            if (brk == k)
                brk = end;
        }
        if (!first)
            wr_strbuf_printf(out, "%*s", indent, "");
        wr_strbuf_add(out, text + k, brk - k);
        wr_strbuf_puts(out, "\n");
        k = brk;
        while (k < n && text[k] == ' ')
            k++;
        first = 0;
    }
}

/* The statuses of a unit, comma separated, in words. */
static void statuses(const json_t *u, struct wr_strbuf *b)
{
    static const struct { const char *code, *words; } names[] = {
        { "confident", "confident" }, { "edgy", "edgy" }, { "fleeing", "fleeing" },
        { "falling_back", "falling back" }, { "fell_back", "fell back" },
        { "reformed", "reformed" }, { "rank_bonus_lost", "rank bonus lost" },
    };
    const json_t *st = json_object_get(u, "status");
    int n = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        for (size_t k = 0; k < json_array_size(st); k++)
            if (json_string_value(json_array_get(st, k)) &&
                strcmp(json_string_value(json_array_get(st, k)), names[i].code) == 0)
                wr_strbuf_printf(b, "%s%s", n++ ? ", " : "", names[i].words);
    if (n == 0)
        wr_strbuf_puts(b, "steady");
}

/* The facts of a unit that say something (true, or a terrain not clear);
 * those stated and not yet disputed marked "*". */
static void facts(const json_t *u, struct wr_strbuf *b)
{
    const json_t *f = json_object_get(u, "facts"), *stated = json_object_get(u, "stated");
    const char *key;
    json_t *val;
    int n = 0;
    json_object_foreach((json_t *)f, key, val) {
        int open = 0;
        for (size_t k = 0; k < json_array_size(stated); k++)
            open |= json_string_value(json_array_get(stated, k)) &&
                    strcmp(json_string_value(json_array_get(stated, k)), key) == 0;
        if (json_is_true(val))
            wr_strbuf_printf(b, "%s%s%s", n++ ? ", " : "", key, open ? "*" : "");
        else if (json_is_string(val) && strcmp(json_string_value(val), "clear") != 0)
            wr_strbuf_printf(b, "%s%s %s%s", n++ ? ", " : "", key, json_string_value(val),
                             open ? "*" : "");
    }
}

static void put_unit(struct wr_strbuf *out, int width, const json_t *u)
{
    struct wr_strbuf b;
    wr_strbuf_init(&b);
    char form[24];
    if (json_is_true(json_object_get(u, "skirmish")))
        snprintf(form, sizeof form, "skirmish");
    else
        snprintf(form, sizeof form, "%lldx%lld", wr_state_int(u, "files"),
                 wr_state_int(u, "ranks"));
    wr_strbuf_printf(&b, "  %-18.18s %-11s %4lld/%-4lld %-8s ", wr_state_text(u, "name"),
                     wr_state_text(u, "kind"), wr_state_int(u, "models_left"),
                     wr_state_int(u, "models"), form);
    if (json_is_true(json_object_get(u, "general")))
        wr_strbuf_puts(&b, "[general] ");
    if (json_is_true(json_object_get(u, "mounted")))
        wr_strbuf_puts(&b, "[mounted] ");
    if (wr_state_int(u, "crew") > 0)
        wr_strbuf_printf(&b, "[crew %lld] ", wr_state_int(u, "crew"));
    if (json_is_true(json_object_get(u, "thrusting_spears")))
        wr_strbuf_puts(&b, "[spears] ");
    statuses(u, &b);
    put_wrapped(out, width, 6, b.s ? b.s : "");
    wr_strbuf_release(&b);
    static const char *const whys[] = { "confident", "edgy", "rank", "retreat" };
    const json_t *why = json_object_get(u, "why");
    for (size_t i = 0; i < sizeof whys / sizeof whys[0]; i++) {
        const char *code = wr_state_str(why, whys[i]);
        const char *text = code ? bp_reason_text(code) : NULL;
        if (code == NULL)
            continue;
        /* "confident: secure flanks..." says its label itself */
        size_t n = strlen(whys[i]);
        wr_strbuf_init(&b);
        if (text && strncmp(text, whys[i], n) == 0 && text[n] == ':')
            wr_strbuf_printf(&b, "    %s", text);
        else
            wr_strbuf_printf(&b, "    %s: %s", whys[i], text ? text : code);
        put_wrapped(out, width, 6, b.s);
        wr_strbuf_release(&b);
    }
    wr_strbuf_init(&b);
    facts(u, &b);
    if (b.len) {
        struct wr_strbuf l;
        wr_strbuf_init(&l);
        wr_strbuf_printf(&l, "    facts: %s", b.s);
        put_wrapped(out, width, 6, l.s);
        wr_strbuf_release(&l);
    }
    wr_strbuf_release(&b);
}

/* Lines of the SVG's own that bp_draw_svg reads out of the text: a
 * unit's lines follow UNIT_BEGIN and its name, up to UNIT_END. A unit
 * whose name holds a control byte gets none (plain_name). */
#define UNIT_BEGIN '\001'
#define UNIT_END '\002'

static int draw_text(const struct bp_view *p, const struct wr_draw_opts *o, struct wr_strbuf *out,
                     int mark_units);

static int plain_name(const char *name)
{
    for (const unsigned char *c = (const unsigned char *)name; c && *c; c++)
        if (*c < 0x20 || *c == 0x7f)
            return 0;
    return name != NULL;
}

int bp_draw_text(const struct bp_view *p, const struct wr_draw_opts *o, struct wr_strbuf *out)
{
    return draw_text(p, o, out, 0);
}

/* The roster view; with mark_units, each unit's lines between a
 * UNIT_BEGIN line (with its name) and a UNIT_END line, for the SVG. */
static int draw_text(const struct bp_view *p, const struct wr_draw_opts *o, struct wr_strbuf *out,
                     int mark_units)
{
    int width = o && o->cols > 0 ? o->cols : 80;
    const json_t *st = p->state;
    struct wr_strbuf b;
    if (st == NULL) {
        put_wrapped(out, width, 2, "The battle: no state yet.");
        return out->failed ? -1 : 0;
    }
    wr_strbuf_init(&b);
    wr_strbuf_printf(&b, "The battle, %lld points: %s", wr_state_int(st, "points"),
                     wr_state_text(st, "phase"));
    if (wr_state_str(st, "segment"))
        wr_strbuf_printf(&b, ", turn %lld, %s's player turn (%s)", wr_state_int(st, "turn"),
                         wr_state_text(st, "player"), wr_state_text(st, "segment"));
    else if (wr_state_int(st, "turn") > 0)
        wr_strbuf_printf(&b, " after turn %lld", wr_state_int(st, "turn"));
    if (wr_state_str(st, "winner"))
        wr_strbuf_printf(&b, ", result %s", wr_state_text(st, "winner"));
    put_wrapped(out, width, 2, b.s);
    wr_strbuf_release(&b);
    for (int s = 0; s < 2; s++) {
        const json_t *sd = side_of_state(st, s), *units = json_object_get(sd, "units");
        wr_strbuf_init(&b);
        wr_strbuf_printf(&b, "%s: ", side_names[s]);
        if (!json_is_array(units))
            wr_strbuf_printf(&b, "roster sealed (%s)",
                             json_is_true(json_object_get(sd, "in")) ? "in" : "being written");
        else if (!json_is_true(json_object_get(sd, "in")))
            wr_strbuf_printf(&b, "roster not in yet (%zu units sent, sealed)",
                             json_array_size(units));
        else
            wr_strbuf_printf(&b, "%s; elephants: %s", wr_state_str(sd, "break_point")
                                                          ? wr_state_str(sd, "break_point")
                                                          : "roster not in yet",
                             wr_state_text(sd, "elephants"));
        put_wrapped(out, width, 2, b.s);
        wr_strbuf_release(&b);
        size_t i;
        json_t *u;
        json_array_foreach(units, i, u) {
            const char *name = wr_state_str(u, "name");
            int mark = mark_units && plain_name(name);
            if (mark)
                wr_strbuf_printf(out, "%c%s\n", UNIT_BEGIN, name);
            put_unit(out, width, u);
            if (mark)
                wr_strbuf_printf(out, "%c\n", UNIT_END);
        }
    }
    put_wrapped(out, width, 2, "(* stated, open to dispute)");
    if (p->log->n) {
        put_wrapped(out, width, 2, "Last tests:");
        for (int i = 0; i < p->log->n; i++) {
            const struct bp_test *t = &p->log->tests[i];
            const char *why = bp_reason_text(t->outcome);
            wr_strbuf_init(&b);
            wr_strbuf_printf(&b, "  %s %s, target %d: ", t->unit, t->test, t->target);
            for (int k = 0; k < t->nfaces; k++)
                wr_strbuf_printf(&b, "%s%d", k ? "+" : "", t->faces[k]);
            wr_strbuf_printf(&b, " %s: %s", t->passed ? "passed" : "failed",
                             why ? why : t->outcome);
            put_wrapped(out, width, 4, b.s);
            wr_strbuf_release(&b);
        }
    }
    return out->failed ? -1 : 0;
}

int bp_draw_svg(const struct bp_view *p, struct wr_strbuf *out)
{
    struct wr_strbuf text;
    wr_strbuf_init(&text);
    struct wr_draw_opts o = { 100, 0, 0, 0, 0 };
    if (draw_text(p, &o, &text, 1) != 0) {
        wr_strbuf_release(&text);
        return -1;
    }
    int lines = 0;              /* the lines shown: not the marks */
    for (const char *q = text.s; q && *q; q = strchr(q, '\n') ? strchr(q, '\n') + 1 : "")
        lines += *q != UNIT_BEGIN && *q != UNIT_END;
    wr_strbuf_printf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"820\" "
                          "height=\"%d\" font-family=\"monospace\" font-size=\"13\">\n"
                          "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
                     lines * 16 + 16);
    const char *s = text.s ? text.s : "";
    for (int y = 0; *s; y++) {
        const char *nl = strchr(s, '\n');
        size_t n = nl ? (size_t)(nl - s) : strlen(s);
        char line[256];
        /* each unit's lines in a group named as the orders take it
         * (present.h: data-word) */
        if (*s == UNIT_BEGIN || *s == UNIT_END) {
            snprintf(line, sizeof line, "%.*s", (int)(n - 1 < 255 ? n - 1 : 255), s + 1);
            if (*s == UNIT_BEGIN) {
                wr_strbuf_puts(out, "<g class=\"unit\" data-word=\"");
                wr_strbuf_xml(out, line);
                wr_strbuf_puts(out, "\">\n");
            } else {
                wr_strbuf_puts(out, "</g>\n");
            }
            s += n + (nl != NULL);
            y--;
            continue;
        }
        snprintf(line, sizeof line, "%.*s", (int)(n < 255 ? n : 255), s);
        wr_strbuf_printf(out, "<text x=\"8\" y=\"%d\" xml:space=\"preserve\">", 20 + 16 * y);
        wr_strbuf_xml(out, line);
        wr_strbuf_puts(out, "</text>\n");
        s += n + (nl != NULL);
    }
    wr_strbuf_puts(out, "</svg>\n");
    wr_strbuf_release(&text);
    return out->failed ? -1 : 0;
}

/* --- the battle sheet --------------------------------------------------------------------- */

static const char sheet_css[] =
    "body{font-family:Georgia,serif;max-width:60em;margin:1.5em auto;padding:0 1em;"
    "color:#222}\n"
    "h1{font-size:1.7em;margin-bottom:.2em}h2{font-size:1.2em;border-bottom:2px solid #444;"
    "margin-top:1.6em}\n"
    "table{border-collapse:collapse;width:100%;margin:.5em 0;font-size:.92em}\n"
    "th,td{border:1px solid #999;padding:.2em .45em;text-align:left;vertical-align:top}\n"
    "th{background:#e8e4da}td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
    ".result{font-size:1.25em;font-weight:bold;margin:.3em 0}.small{color:#555;font-size:.85em}\n"
    ".lost{color:#a00}.pass{color:#070}.fail{color:#a00}\n"
    "ol.turn{margin:.2em 0 .8em;padding-left:2em}ol.turn li{margin:.1em 0}\n"
    ".seat{font-weight:bold;display:inline-block;min-width:3.5em}code{word-break:break-all}\n"
    "@media print{body{margin:0;max-width:none}h2{break-after:avoid}tr,li{break-inside:avoid}}\n";

static void esc(struct wr_strbuf *out, const char *s)
{
    wr_strbuf_xml(out, s ? s : "?");
}

static void put_rosters(const json_t *st, struct wr_strbuf *out)
{
    wr_strbuf_puts(out, "<h2>The armies</h2>\n");
    for (int s = 0; s < 2; s++) {
        const json_t *sd = side_of_state(st, s), *units = json_object_get(sd, "units");
        wr_strbuf_printf(out, "<h3>%s", side_names[s]);
        if (wr_state_str(sd, "break_point")) {
            wr_strbuf_puts(out, ": ");
            esc(out, wr_state_str(sd, "break_point"));
        }
        wr_strbuf_puts(out, "</h3>\n");
        if (!json_is_array(units)) {
            wr_strbuf_puts(out, "<p>Roster sealed.</p>\n");
            continue;
        }
        wr_strbuf_puts(out, "<table><tr><th>unit</th><th>kind</th><th>models</th><th>left</th>"
                            "<th>lost</th><th>formation</th><th>points</th><th>at the end</th>"
                            "</tr>\n");
        size_t i;
        json_t *u;
        long long pts = 0;
        json_array_foreach(units, i, u) {
            long long m = wr_state_int(u, "models"), left = wr_state_int(u, "models_left");
            pts += wr_state_int(u, "points");
            wr_strbuf_puts(out, "<tr><td>");
            esc(out, wr_state_str(u, "name"));
            if (json_is_true(json_object_get(u, "general")))
                wr_strbuf_puts(out, " (general)");
            wr_strbuf_puts(out, "</td><td>");
            esc(out, wr_state_str(u, "kind"));
            wr_strbuf_printf(out, "</td><td class=\"n\">%lld</td><td class=\"n\">%lld</td>"
                                  "<td class=\"n%s\">%lld</td><td>",
                             m, left, m > left ? " lost" : "", m - left);
            if (json_is_true(json_object_get(u, "skirmish")))
                wr_strbuf_puts(out, "skirmish");
            else
                wr_strbuf_printf(out, "%lld &times; %lld", wr_state_int(u, "files"),
                                 wr_state_int(u, "ranks"));
            wr_strbuf_printf(out, "</td><td class=\"n\">%lld</td><td>", wr_state_int(u, "points"));
            struct wr_strbuf b;
            wr_strbuf_init(&b);
            statuses(u, &b);
            esc(out, b.s);
            wr_strbuf_release(&b);
            wr_strbuf_puts(out, "</td></tr>\n");
        }
        wr_strbuf_printf(out, "<tr><th colspan=\"6\">total</th><td class=\"n\">%lld</td>"
                              "<td></td></tr></table>\n", pts);
    }
}

/* The tests and rolls, and the disputes, as tables from the steps. */
static void put_tests(const json_t *steps, struct wr_strbuf *out)
{
    wr_strbuf_puts(out, "<h2>Tests and rolls</h2>\n<table><tr><th>turn</th><th>by</th>"
                        "<th>for</th><th>dice (k: face)</th><th>test</th><th>target</th>"
                        "<th>outcome</th></tr>\n");
    long long turn = 0;
    int rows = 0;
    size_t i, k;
    json_t *step, *e;
    json_array_foreach(steps, i, step) {
        const json_t *events = json_object_get(step, "events");
        struct wr_strbuf dice;
        wr_strbuf_init(&dice);
        long long total = 0;
        json_array_foreach(events, k, e) {
            const char *type = wr_state_text(e, "type");
            if (strcmp(type, "turn") == 0 || strcmp(type, "started") == 0)
                turn = strcmp(type, "turn") == 0 ? wr_state_int(e, "turn") : 1;
            if (strcmp(type, "roll") == 0) {
                /* the rolls go with the test, settlement or roll-off after them */
                const char *who = wr_state_text(e, "for");
                wr_strbuf_printf(&dice, "%sk%lld", dice.len ? ", " : "", wr_state_int(e, "k"));
                if (strcmp(who, "p1") == 0 || strcmp(who, "p2") == 0)
                    wr_strbuf_printf(&dice, " (%s)", who);      /* a roll-off's die */
                wr_strbuf_printf(&dice, ": %lld", wr_state_int(e, "face"));
                total += wr_state_int(e, "face");
                continue;
            }
            if (strcmp(type, "test") == 0 || strcmp(type, "settled") == 0 ||
                strcmp(type, "started") == 0) {
                wr_strbuf_printf(out, "<tr><td class=\"n\">%lld</td><td>", turn);
                esc(out, wr_state_str(step, "seat"));
                wr_strbuf_puts(out, "</td><td>");
                esc(out, strcmp(type, "started") == 0 ? "the first turn" : wr_state_str(e, "unit"));
                wr_strbuf_printf(out, "</td><td>%s", dice.len ? dice.s : "");
                if (strcmp(type, "test") == 0)
                    wr_strbuf_printf(out, " = %lld", total);
                wr_strbuf_puts(out, "</td><td>");
                total = 0;
                if (strcmp(type, "test") == 0) {
                    const char *why = bp_reason_text(wr_state_str(e, "outcome"));
                    int pass = json_is_true(json_object_get(e, "passed"));
                    esc(out, wr_state_str(e, "test"));
                    wr_strbuf_printf(out, "</td><td class=\"n\">%lld</td><td class=\"%s\">%s: ",
                                     wr_state_int(e, "target"), pass ? "pass" : "fail",
                                     pass ? "passed" : "failed");
                    esc(out, why ? why : wr_state_str(e, "outcome"));
                } else if (strcmp(type, "settled") == 0) {
                    wr_strbuf_puts(out, "dispute: ");
                    esc(out, wr_state_str(e, "fact"));
                    wr_strbuf_printf(out, "</td><td class=\"n\">4+</td><td>%s",
                                     json_is_true(json_object_get(e, "stands"))
                                         ? "the fact stands" : "the fact does not stand");
                } else {
                    wr_strbuf_puts(out, "roll-off</td><td></td><td>");
                    esc(out, wr_state_str(e, "first"));
                    wr_strbuf_puts(out, " goes first");
                }
                wr_strbuf_puts(out, "</td></tr>\n");
                rows++;
                wr_strbuf_release(&dice);
            }
        }
        if (dice.len) {
            wr_strbuf_printf(out, "<tr><td class=\"n\">%lld</td><td>", turn);
            esc(out, wr_state_str(step, "seat"));
            wr_strbuf_printf(out, "</td><td></td><td>%s</td><td></td><td></td><td></td></tr>\n",
                             dice.s);
            rows++;
        }
        wr_strbuf_release(&dice);
    }
    if (rows == 0)
        wr_strbuf_puts(out, "<tr><td colspan=\"7\">No dice were rolled.</td></tr>\n");
    wr_strbuf_puts(out, "</table>\n");
}

static void put_disputes(const json_t *steps, struct wr_strbuf *out)
{
    wr_strbuf_puts(out, "<h2>Disputes and settlements</h2>\n<table><tr><th>turn</th>"
                        "<th>disputed by</th><th>unit</th><th>fact</th><th>settled by</th>"
                        "<th>verdict</th></tr>\n");
    long long turn = 0;
    int rows = 0;
    size_t i, k;
    json_t *step, *e;
    json_array_foreach(steps, i, step) {
        json_array_foreach(json_object_get(step, "events"), k, e) {
            const char *type = wr_state_text(e, "type");
            if (strcmp(type, "turn") == 0)
                turn = wr_state_int(e, "turn");
            else if (strcmp(type, "started") == 0)
                turn = 1;
            else if (strcmp(type, "dispute") == 0) {
                wr_strbuf_printf(out, "<tr><td class=\"n\">%lld</td><td>", turn);
                esc(out, wr_state_str(e, "side"));
                wr_strbuf_puts(out, "</td><td>");
                esc(out, wr_state_str(e, "unit"));
                wr_strbuf_puts(out, "</td><td>");
                esc(out, wr_state_str(e, "fact"));
                wr_strbuf_puts(out, "</td>");
                rows++;
            } else if (strcmp(type, "settled") == 0 && rows > 0) {
                wr_strbuf_puts(out, "<td>");
                esc(out, wr_state_str(e, "by"));
                wr_strbuf_printf(out, "</td><td>%s</td></tr>\n",
                                 json_is_true(json_object_get(e, "stands")) ? "stands"
                                                                            : "does not stand");
            }
        }
    }
    if (rows == 0)
        wr_strbuf_puts(out, "<tr><td colspan=\"6\">No fact was disputed.</td></tr>\n");
    wr_strbuf_puts(out, "</table>\n");
}

/* Every step, grouped by player turn: who sent it and what came of it. */
static void put_turns(const json_t *steps, struct wr_strbuf *out)
{
    wr_strbuf_puts(out, "<h2>Turn by turn</h2>\n<h3>Before the battle</h3>\n<ol class=\"turn\">\n");
    size_t i, k;
    json_t *step, *e;
    json_array_foreach(steps, i, step) {
        const json_t *events = json_object_get(step, "events");
        wr_strbuf_puts(out, "<li><span class=\"seat\">");
        esc(out, wr_state_str(step, "seat"));
        wr_strbuf_puts(out, "</span> ");
        int n = 0;
        const char *next_turn = NULL;
        long long tn = 0;
        json_array_foreach(events, k, e) {
            const char *type = wr_state_text(e, "type");
            if (strcmp(type, "roll") == 0)
                continue;       /* in the table of tests and rolls */
            if (strcmp(type, "turn") == 0 || strcmp(type, "started") == 0) {
                next_turn =
                    strcmp(type, "turn") == 0 ? wr_state_str(e, "side") : wr_state_str(e, "first");
                tn = strcmp(type, "turn") == 0 ? wr_state_int(e, "turn") : 1;
            }
            struct wr_strbuf b;
            wr_strbuf_init(&b);
            bp_event_line(e, &b);
            wr_strbuf_puts(out, n++ ? "; " : "");
            esc(out, b.s ? b.s : "");
            wr_strbuf_release(&b);
        }
        if (n == 0) {
            char *c = json_dumps(json_object_get(step, "cmd"), JSON_COMPACT | JSON_SORT_KEYS);
            esc(out, c ? c : "?");
            free(c);
        }
        wr_strbuf_puts(out, "</li>\n");
        if (next_turn) {
            wr_strbuf_printf(out, "</ol>\n<h3>Turn %lld: ", tn);
            esc(out, next_turn);
            wr_strbuf_puts(out, "</h3>\n<ol class=\"turn\">\n");
        }
    }
    wr_strbuf_puts(out, "</ol>\n");
}

int bp_draw_report(const struct bp_view *p, const json_t *steps, struct wr_strbuf *out)
{
    if (!json_is_array(steps))
        return -1;
    const json_t *st = p->state;
    size_t i;
    json_t *step;
    json_array_foreach(steps, i, step)
        if (!json_is_object(step) || !json_is_object(json_object_get(step, "cmd")))
            return -1;
    const json_t *over = NULL, *e;
    size_t k;
    json_array_foreach(steps, i, step)
        json_array_foreach(json_object_get(step, "events"), k, e)
            if (wr_state_str(e, "type") && strcmp(wr_state_str(e, "type"), "battle_over") == 0)
                over = e;
    wr_strbuf_puts(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                        "<title>Battle sheet</title>\n<style>\n");
    wr_strbuf_puts(out, sheet_css);
    wr_strbuf_printf(out, "</style></head><body>\n<h1>Battle sheet: %lld points</h1>\n",
                     wr_state_int(st, "points"));
    const char *winner = wr_state_str(st, "winner");
    wr_strbuf_puts(out, "<p class=\"result\">");
    if (over) {
        struct wr_strbuf b;
        wr_strbuf_init(&b);
        bp_event_line(over, &b);
        esc(out, b.s);
        wr_strbuf_release(&b);
    } else if (winner == NULL) {
        wr_strbuf_puts(out, "The battle is not over.");
    } else {
        wr_strbuf_puts(out, "The battle is over: ");
        esc(out, strcmp(winner, "draw") == 0 ? "a draw" : winner);
    }
    wr_strbuf_printf(out, "</p>\n<p class=\"small\">%lld player turns; %s; ",
                     wr_state_int(st, "turn"),
                     json_is_true(json_object_get(st, "referee")) ? "a referee settled disputes"
                                                                  : "disputes settled by a D6");
    const json_t *opts = json_object_get(st, "options");
    wr_strbuf_printf(out, "diagonal %s, deep is column %s; %zu commands.",
                     json_is_true(json_object_get(opts, "diagonal")) ? "on" : "off",
                     json_is_true(json_object_get(opts, "deep_is_column")) ? "on" : "off",
                     json_array_size(steps));
    const json_t *dice = json_object_get(st, "dice");
    if (wr_state_str(dice, "commitment")) {
        wr_strbuf_puts(out, "<br>Dice: commitment <code>");
        esc(out, wr_state_str(dice, "commitment"));
        wr_strbuf_puts(out, "</code>");
        if (wr_state_str(dice, "seed")) {
            wr_strbuf_puts(out, ", seed <code>");
            esc(out, wr_state_str(dice, "seed"));
            wr_strbuf_puts(out, "</code>");
        }
    }
    wr_strbuf_puts(out, "</p>\n");
    put_rosters(st, out);
    wr_strbuf_puts(out, "<h2>Victory points</h2>\n<p>");
    const json_t *vp = json_object_get(st, "victory_points");
    if (json_is_object(vp))
        wr_strbuf_printf(out, "Agreed: p1 %lld, p2 %lld.", wr_state_int(vp, "p1"),
                         wr_state_int(vp, "p2"));
    else
        wr_strbuf_puts(out, "Not reported in this record.");
    wr_strbuf_puts(out, "</p>\n");
    put_tests(steps, out);
    put_disputes(steps, out);
    put_turns(steps, out);
    wr_strbuf_puts(out, "</body></html>\n");
    return out->failed ? -1 : 0;
}
