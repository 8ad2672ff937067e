/*
 * view.c - a game's view, through its ruleset's presentation (view.h).
 */
#include "view.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "shortcmd.h"

int wrc_view_open(struct wrc_view *w, const char *game, const json_t *setup, const char *seat,
                  const struct wr_host *host, struct wr_refusal *why)
{
    memset(w, 0, sizeof *w);
    w->fed = -1;
    snprintf(w->game, sizeof w->game, "%s", game);
    const char *name = json_string_value(json_object_get(setup, "ruleset"));
    w->rs = wr_ruleset_find(name);
    if (w->rs == NULL) {
        wr_refuse(why, WR_R_BAD_SCENARIO, "game %.64s is a game of ruleset '%.40s', which this "
                  "warroom does not have (warroom help new lists those it has)", game,
                  name ? name : "?");
        return -1;
    }
    const json_t *scen = json_object_get(setup, "scenario");
    const json_t *opts = json_object_get(setup, "options");
    w->v = w->rs->present->open(w->rs, json_is_object(scen) ? scen : NULL,
                                json_is_object(opts) ? opts : NULL, seat, host, why);
    if (w->v == NULL)
        return -1;
    w->setup = json_deep_copy(setup);
    return 0;
}

void wrc_view_close(struct wrc_view *w)
{
    if (w->v)
        w->v->pr->close(w->v);
    w->v = NULL;
    json_decref(w->setup);
    w->setup = NULL;
}

int wrc_view_feed(struct wrc_view *w, const json_t *state, int64_t version,
                  struct wr_refusal *why)
{
    if (w->v == NULL || state == NULL || version == w->fed)
        return 0;
    if (w->v->pr->update(w->v, state, why) != 0)
        return -1;
    w->fed = version;
    return 0;
}

enum wr_order_kind wrc_view_line(struct wr_view *v, const char *line, json_t **cmd,
                                 struct wr_strbuf *out, struct wr_refusal *why)
{
    char err[200];
    *cmd = NULL;
    switch (wrc_line_json(line, cmd, err, sizeof err)) {
    case 1:
        return WR_ORDER_COMMAND;
    case -1:
        wr_refuse(why, WR_R_BAD_COMMAND, "%s", err);
        return WR_ORDER_ERROR;
    }
    return v->pr->order(v, line, cmd, out, why);
}

void wrc_view_headline(const struct wr_view *v, struct wr_strbuf *out)
{
    struct wr_strbuf d;
    wr_strbuf_init(&d);
    v->pr->describe(v, &d);
    const char *s = d.s ? d.s : "";
    wr_strbuf_add(out, s, strcspn(s, "\n"));
    wr_strbuf_release(&d);
}

/* One order's block: synopsis, help, example. */
static void order_help(const struct wr_order *o, struct wr_strbuf *out)
{
    wr_strbuf_printf(out, "%s%s\n    %s\n    e.g. %s\n", o->synopsis,
                     o->query ? "  (answered here, nothing is sent)" : "", o->help, o->example);
}

int wrc_view_help(const struct wr_view *v, const char *order, struct wr_strbuf *out)
{
    if (order && order[0]) {
        const struct wr_order *o = wr_present_order(v->pr, order);
        if (o) {
            order_help(o, out);
            return 0;
        }
        wr_strbuf_printf(out, "no order '%.40s'; the orders:", order);
        for (o = v->pr->orders; o->name; o++)
            wr_strbuf_printf(out, " %s", o->name);
        wr_strbuf_puts(out, "\n");
        return -1;
    }
    for (const struct wr_order *o = v->pr->orders; o->name; o++)
        order_help(o, out);
    wr_strbuf_printf(out, "{...}\n    any %s command as a JSON object, sent as typed\n",
                     v->rs->name);
    return 0;
}

void wrc_view_complete(const struct wr_view *v, const char *const *host_words,
                       const char *const *words, int nwords, const char *word,
                       void (*add)(void *ctx, const char *cand), void *ctx)
{
    if (nwords == 0) {          /* the caller keeps those that match word */
        for (const struct wr_order *o = v->pr->orders; o->name; o++)
            add(ctx, o->name);
        for (int i = 0; host_words && host_words[i]; i++)
            add(ctx, host_words[i]);
        return;
    }
    v->pr->complete(v, words, nwords, word, add, ctx);
}
