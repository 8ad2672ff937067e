/*
 * present.c - helpers every ruleset's presentation and every client use.
 */
#include "present.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void wr_view_init(struct wr_view *v, const struct wr_ruleset *rs, const char *seat)
{
    v->pr = rs->present;
    v->rs = rs;
    snprintf(v->seat, sizeof v->seat, "%s", seat ? seat : "");
    v->has_state = 0;
}

const struct wr_order *wr_present_order(const struct wr_present *pr, const char *name)
{
    for (const struct wr_order *o = pr->orders; name && o->name; o++)
        if (strcmp(o->name, name) == 0)
            return o;
    return NULL;
}

const char *wr_state_awaits(const json_t *state, const char *seat)
{
    if (seat == NULL || seat[0] == '\0')
        return NULL;
    json_t *aw = json_object_get(json_object_get(state, "server"), "awaiting");
    return json_string_value(json_object_get(aw, seat));
}

/* A duration in ms as a player reads a clock: "2d 3h", "23h 59m", "4m 10s",
 * "9s" (rounded down; 0 and less: "0s"). */
static void time_left_text(json_int_t ms, struct wr_strbuf *out)
{
    long long s = ms > 0 ? (long long)(ms / 1000) : 0;
    if (s >= 86400)
        wr_strbuf_printf(out, "%lldd %lldh", s / 86400, s % 86400 / 3600);
    else if (s >= 3600)
        wr_strbuf_printf(out, "%lldh %lldm", s / 3600, s % 3600 / 60);
    else if (s >= 60)
        wr_strbuf_printf(out, "%lldm %llds", s / 60, s % 60);
    else
        wr_strbuf_printf(out, "%llds", s);
}

void wr_state_waiting_line(const json_t *state, struct wr_strbuf *out)
{
    json_t *srv = json_object_get(state, "server");
    const char *status = json_string_value(json_object_get(srv, "status"));
    const char *result = json_string_value(json_object_get(srv, "result"));
    const char *forfeit = json_string_value(json_object_get(srv, "forfeit"));
    const char *why = json_string_value(json_object_get(srv, "forfeit_reason"));
    if (status == NULL) {
        wr_strbuf_puts(out, "no state yet");
        return;
    }
    if (strcmp(status, "open") == 0) {
        wr_strbuf_puts(out, "open: waiting for every seat to be claimed");
        return;
    }
    if (result || strcmp(status, "running") != 0) {
        if (forfeit && why)
            wr_strbuf_printf(out, "over: %s forfeited (%s)", forfeit, why);
        else if (forfeit)
            wr_strbuf_printf(out, "over: %s forfeited", forfeit);
        else if (result && strcmp(result, "draw") == 0)
            wr_strbuf_puts(out, "over: a draw");
        else
            wr_strbuf_printf(out, "over: %s won", result ? result : "nobody");
        return;
    }
    json_t *aw = json_object_get(srv, "awaiting");
    json_t *left = json_object_get(srv, "deadlines_left");
    const char *seat;
    json_t *what;
    int n = 0;
    json_object_foreach(aw, seat, what) {
        wr_strbuf_printf(out, "%s%s (%s", n++ ? ", " : "awaiting ", seat,
                         json_string_value(what) ? json_string_value(what) : "?");
        json_t *ms = json_object_get(left, seat);
        if (json_is_integer(ms)) {
            wr_strbuf_puts(out, "; time left ");
            time_left_text(json_integer_value(ms), out);
        }
        wr_strbuf_puts(out, ")");
    }
    if (n == 0)
        wr_strbuf_puts(out, "awaiting nobody");
}

/* --- the plain presentation ---------------------------------------------------------- */

struct plain_view {
    struct wr_view base;
    json_t *state;
};

static struct wr_view *plain_open(const struct wr_ruleset *rs, const json_t *scenario,
                                  const json_t *options, const char *seat,
                                  const struct wr_host *host, struct wr_refusal *why)
{
    (void)scenario;
    (void)options;
    (void)host;
    struct plain_view *p = calloc(1, sizeof *p);
    if (p == NULL) {
        wr_refuse(why, WR_R_NO_MEMORY, "out of memory");
        return NULL;
    }
    wr_view_init(&p->base, rs, seat);
    return &p->base;
}

static void plain_close(struct wr_view *v)
{
    struct plain_view *p = (struct plain_view *)v;
    json_decref(p->state);
    free(p);
}

static int plain_update(struct wr_view *v, const json_t *state, struct wr_refusal *why)
{
    struct plain_view *p = (struct plain_view *)v;
    json_t *copy = json_deep_copy(state);
    if (copy == NULL)
        return wr_refuse(why, WR_R_NO_MEMORY, "out of memory"), -1;
    json_decref(p->state);
    p->state = copy;
    v->has_state = 1;
    return 0;
}

static void plain_describe(const struct wr_view *v, struct wr_strbuf *out)
{
    const struct plain_view *p = (const struct plain_view *)v;
    wr_state_waiting_line(p->state, out);
    wr_strbuf_puts(out, "\n");
    const char *what = wr_state_awaits(p->state, v->seat);
    if (what)
        wr_strbuf_printf(out, "Your decision: send a \"%s\" command, as JSON: {\"type\":\"%s\", ...}\n",
                         what, what);
}

static void plain_event(const struct wr_view *v, const json_t *event, struct wr_strbuf *out)
{
    (void)v;
    char *s = json_dumps(event, JSON_COMPACT | JSON_SORT_KEYS);
    wr_strbuf_puts(out, s ? s : "(an event)");
    free(s);
}

static enum wr_order_kind plain_order(struct wr_view *v, const char *line, json_t **cmd,
                                      struct wr_strbuf *out, struct wr_refusal *why)
{
    (void)v;
    (void)cmd;
    (void)out;
    wr_refuse(why, WR_R_BAD_COMMAND, "'%.40s': this game has no short orders: send the command "
              "as a JSON object", line);
    return WR_ORDER_ERROR;
}

static int plain_precheck(struct wr_view *v, const json_t *cmd, struct wr_refusal *why)
{
    (void)v;
    (void)cmd;
    (void)why;
    return 0;
}

static void plain_complete(const struct wr_view *v, const char *const *words, int nwords,
                           const char *word, void (*add)(void *ctx, const char *cand), void *ctx)
{
    (void)v;
    (void)words;
    (void)nwords;
    (void)word;
    (void)add;
    (void)ctx;
}

static int plain_draw_text(const struct wr_view *v, const struct wr_draw_opts *o,
                           struct wr_strbuf *out)
{
    (void)o;
    const struct plain_view *p = (const struct plain_view *)v;
    json_t *st = json_deep_copy(p->state);
    json_object_del(st, "server");
    char *s = st ? json_dumps(st, JSON_INDENT(2) | JSON_SORT_KEYS) : NULL;
    json_decref(st);
    wr_strbuf_puts(out, s ? s : "(no state yet)");
    wr_strbuf_puts(out, "\n");
    free(s);
    return out->failed ? -1 : 0;
}

static int plain_draw_svg(const struct wr_view *v, struct wr_strbuf *out)
{
    struct wr_strbuf text;
    wr_strbuf_init(&text);
    static const struct wr_draw_opts o = { .cols = 0 };
    plain_draw_text(v, &o, &text);
    int lines = 0;
    for (size_t i = 0; i < text.len; i++)
        lines += text.s[i] == '\n';
    wr_strbuf_printf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"640\" height=\"%d\">\n"
                     "<text x=\"10\" y=\"10\" font-family=\"monospace\" font-size=\"12\" "
                     "xml:space=\"preserve\">", 20 + 14 * lines);
    char *save = NULL;
    for (char *l = text.s ? strtok_r(text.s, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save)) {
        wr_strbuf_puts(out, "<tspan x=\"10\" dy=\"14\">");
        wr_strbuf_xml(out, l);
        wr_strbuf_puts(out, "</tspan>");
    }
    wr_strbuf_puts(out, "</text>\n</svg>\n");
    wr_strbuf_release(&text);
    return out->failed ? -1 : 0;
}

static const struct wr_order plain_orders[] = { { NULL, NULL, NULL, NULL, 0, NULL } };

const struct wr_present wr_present_plain = {
    .version = WR_PRESENT_VERSION,
    .orders = plain_orders,
    .open = plain_open,
    .close = plain_close,
    .update = plain_update,
    .describe = plain_describe,
    .event = plain_event,
    .order = plain_order,
    .precheck = plain_precheck,
    .complete = plain_complete,
    .draw_text = plain_draw_text,
    .draw_svg = plain_draw_svg,
};

const char *wr_state_str(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

const char *wr_state_text(const json_t *o, const char *key)
{
    const char *s = wr_state_str(o, key);
    return s ? s : "?";
}

long long wr_state_int(const json_t *o, const char *key)
{
    return (long long)json_integer_value(json_object_get(o, key));
}
