/*
 * ask.c - the `ask` message (ask.h): a connection's own view of a game,
 * opened lazily, fed the connection's projection, answering through the
 * ruleset's presentation.
 *
 * Each WHAT is one row of a table: the fields it takes besides game and
 * what, and the function that answers it into the answer object. The
 * checks run in order:
 *   1) the connection's command budget (conn.h), as a command's;
 *   2) a WHAT of the table, with only the fields of its row;
 *   3) the view, opened now if this is the connection's first ask of the
 *      game, and fed the connection's projection if it changed;
 *   4) the row: its fields within their limits (ask.h), then its answer,
 *      charged to the address by its size (addr.h).
 */
#include "ask.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "conn.h"
#include "present.h"
#include "reason.h"
#include "ruleset.h"
#include "server.h"
#include "strbuf.h"

struct wrd_ask {
    struct wr_view *view;       /* owned; closed by wrd_ask_free() */
    uint64_t fed;               /* the game's shown when the view last took its state */
    int has_fed;
    /* The last SVG drawn, while it shows what the view shows: kept until
     * the view takes a new state or a query marks the picture. */
    char *svg;
    size_t svg_len;
};

/* An answer's text from a presentation: valid UTF-8 (present.h promises
 * it; cleaned all the same, as every refusal is), as a JSON string. */
static json_t *text_json(struct wr_strbuf *sb)
{
    if (sb->failed)
        return NULL;
    if (sb->s == NULL)
        return json_string("");
    wr_utf8_clean(sb->s);
    return json_stringn(sb->s, strlen(sb->s));
}

/* --- the rows ----------------------------------------------------------------- */

struct ask_ctx {
    struct wrd_ask *a;
    const struct json_t *msg;
    json_t *answer;             /* the answer object being filled */
    struct wr_refusal why;      /* a refusal: sent as an error with its code */
    const char *bad;            /* a bad_message sentence */
};

static int ask_draw(struct ask_ctx *x)
{
    struct wrd_ask *a = x->a;
    if (a->svg == NULL) {
        struct wr_strbuf sb;
        wr_strbuf_init(&sb);
        if (a->view->pr->draw_svg(a->view, &sb) != 0 || sb.s == NULL) {
            wr_strbuf_release(&sb);
            return -1;
        }
        a->svg = sb.s;          /* taken over: the strbuf's bytes are malloc'd */
        a->svg_len = sb.len;
    }
    json_t *s = json_stringn(a->svg, a->svg_len);
    return s ? json_object_set_new(x->answer, "svg", s) : -1;
}

static int ask_describe(struct ask_ctx *x)
{
    struct wr_strbuf sb;
    wr_strbuf_init(&sb);
    x->a->view->pr->describe(x->a->view, &sb);
    json_t *t = text_json(&sb);
    wr_strbuf_release(&sb);
    return t ? json_object_set_new(x->answer, "text", t) : -1;
}

static int ask_orders(struct ask_ctx *x)
{
    json_t *list = json_array();
    for (const struct wr_order *o = x->a->view->pr->orders; list && o->name; o++) {
        const char *preview = x->a->view->pr->version >= 3 ? o->preview : NULL;
        json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:s, s:b, s:s?}", "name",
                                              o->name, "synopsis", o->synopsis, "help", o->help,
                                              "example", o->example, "query", o->query != 0,
                                              "preview", preview));
    }
    if (list == NULL)
        return -1;
    return json_object_set_new(x->answer, "orders", list);
}

static int ask_order(struct ask_ctx *x)
{
    const char *line = json_string_value(json_object_get(x->msg, "line"));
    if (line == NULL) {
        x->bad = "ask order needs 'line'";
        return 1;
    }
    if (strlen(line) > WRD_ASK_LINE_MAX) {
        x->bad = "ask.line may have at most 1024 bytes";
        return 1;
    }
    /* A line that is a JSON object is the host's business (present.h):
     * such a command is sent as it is, with `command`. */
    if (line[strspn(line, " \t")] == '{') {
        x->bad = "ask.line is an order's words; send a JSON command with command";
        return 1;
    }
    struct wr_view *v = x->a->view;
    json_t *cmd = NULL;
    struct wr_strbuf out;
    wr_strbuf_init(&out);
    enum wr_order_kind k = v->pr->order(v, line, &cmd, &out, &x->why);
    if (k == WR_ORDER_ANSWER) {
        /* a query may mark the picture: the next draw shows it */
        free(x->a->svg);
        x->a->svg = NULL;
        json_t *t = text_json(&out);
        wr_strbuf_release(&out);
        json_decref(cmd);
        if (t == NULL)
            return -1;
        json_object_set_new(x->answer, "kind", json_string("answer"));
        return json_object_set_new(x->answer, "text", t);
    }
    wr_strbuf_release(&out);
    if (k != WR_ORDER_COMMAND || cmd == NULL) {
        json_decref(cmd);
        return k == WR_ORDER_COMMAND ? -1 : 2;
    }
    int check = v->pr->precheck(v, cmd, &x->why);
    if (check < 0) {
        json_decref(cmd);
        return 2;
    }
    json_object_set_new(x->answer, "kind", json_string("command"));
    json_object_set_new(x->answer, "command", cmd);
    return json_object_set_new(x->answer, "check", json_integer(check > 0));
}

static int ask_events(struct ask_ctx *x)
{
    const json_t *evs = json_object_get(x->msg, "events");
    if (!json_is_array(evs)) {
        x->bad = "ask events needs 'events', an array";
        return 1;
    }
    if (json_array_size(evs) > WRD_ASK_EVENTS_MAX) {
        x->bad = "ask.events may hold at most 256 events";
        return 1;
    }
    size_t i;
    const json_t *e;
    json_array_foreach(evs, i, e)
        if (!json_is_object(e)) {
            x->bad = "ask.events holds event objects";
            return 1;
        }
    json_t *lines = json_array();
    json_array_foreach(evs, i, e) {
        struct wr_strbuf sb;
        wr_strbuf_init(&sb);
        x->a->view->pr->event(x->a->view, e, &sb);
        json_t *t = text_json(&sb);
        wr_strbuf_release(&sb);
        if (t == NULL || json_array_append_new(lines, t) != 0) {
            json_decref(lines);
            return -1;
        }
    }
    return json_object_set_new(x->answer, "lines", lines);
}

static void add_candidate(void *ctx, const char *cand)
{
    json_t *list = ctx;
    if (json_array_size(list) < 1000)
        json_array_append_new(list, json_string(cand));
}

static int ask_complete(struct ask_ctx *x)
{
    const json_t *jw = json_object_get(x->msg, "words");
    const char *word = json_string_value(json_object_get(x->msg, "word"));
    if (jw && !json_is_array(jw)) {
        x->bad = "ask.words must be an array of strings";
        return 1;
    }
    if (json_array_size(jw) > WRD_ASK_WORDS_MAX) {
        x->bad = "ask.words may hold at most 64 words";
        return 1;
    }
    if (word == NULL)
        word = "";
    if (strlen(word) > WRD_ASK_LINE_MAX) {
        x->bad = "ask.word may have at most 1024 bytes";
        return 1;
    }
    const char *words[WRD_ASK_WORDS_MAX];
    int n = 0;
    size_t i;
    const json_t *w;
    json_array_foreach(jw, i, w) {
        if (!json_is_string(w) || strlen(json_string_value(w)) > WRD_ASK_LINE_MAX) {
            x->bad = "ask.words must be an array of strings of at most 1024 bytes";
            return 1;
        }
        words[n++] = json_string_value(w);
    }
    json_t *cands = json_array();
    const struct wr_present *pr = x->a->view->pr;
    if (n == 0) {
        /* the first word: the orders table's names (present.h: the host
         * completes it) */
        for (const struct wr_order *o = pr->orders; o->name; o++)
            if (strncmp(o->name, word, strlen(word)) == 0)
                add_candidate(cands, o->name);
    } else {
        pr->complete(x->a->view, words, n, word, add_candidate, cands);
    }
    return json_object_set_new(x->answer, "candidates", cands);
}

/* Each WHAT: its answer, and the fields it takes besides game and what. */
static const struct row {
    const char *what;
    int (*answer)(struct ask_ctx *x);   /* 0 answered, 1 bad_message (x->bad),
                                           2 refused (x->why), -1 failed */
    const char *fields[3];
} rows[] = {
    { "draw", ask_draw, { NULL } },
    { "describe", ask_describe, { NULL } },
    { "orders", ask_orders, { NULL } },
    { "order", ask_order, { "line", NULL } },
    { "events", ask_events, { "events", NULL } },
    { "complete", ask_complete, { "words", "word", NULL } },
};

/* --- the view -------------------------------------------------------------------- */

void wrd_ask_free(struct wrd_ask *a)
{
    if (a == NULL)
        return;
    if (a->view)
        a->view->pr->close(a->view);
    free(a->svg);
    free(a);
}

/* *slot opened (when NULL) and fed the game's state (when it changed):
 * 0, or -1 with why. */
static int ready(struct wrd_ask **slot, const struct wrd_ask_game *gm, struct wr_refusal *why)
{
    struct wrd_ask *a = *slot;
    if (a == NULL) {
        json_t *scen = NULL;
        if (gm->scenario_text) {
            json_error_t jerr;
            scen = json_loads(gm->scenario_text, 0, &jerr);
            if (scen == NULL) {
                wr_refuse(why, WR_R_BAD_SCENARIO, "the game's scenario: %s", jerr.text);
                return -1;
            }
        }
        a = calloc(1, sizeof *a);
        if (a == NULL) {
            json_decref(scen);
            wr_refuse(why, WR_R_NO_MEMORY, "out of memory");
            return -1;
        }
        a->view = gm->rs->present->open(gm->rs, scen,
                                        json_is_object(gm->options) ? gm->options : NULL,
                                        gm->seat, NULL, why);
        json_decref(scen);
        if (a->view == NULL) {
            free(a);
            return -1;
        }
        *slot = a;
    }
    if (a->has_fed && a->fed == gm->shown)
        return 0;
    if (gm->state && a->view->pr->update(a->view, gm->state, why) != 0)
        return -1;
    a->fed = gm->shown;
    a->has_fed = 1;
    free(a->svg);
    a->svg = NULL;
    return 0;
}

void wrd_ask_answer(struct wrd_server *srv, struct wrd_conn *c, struct wrd_ask **slot,
                    const struct wrd_ask_game *gm, const json_t *msg)
{
    json_t *jid = json_object_get(msg, "id");
    const char *what = json_string_value(json_object_get(msg, "what"));
    char buf[160];
    /* 1) the connection's command budget */
    if (!wrd_conn_take_token(c)) {
        wrd_conn_error(c, WRD_E_RATE_LIMITED, "too many commands per second", gm->id, NULL, jid);
        return;
    }
    /* 2) a WHAT of the table, with the fields of its row only */
    const struct row *r = NULL;
    for (size_t i = 0; what && i < sizeof rows / sizeof rows[0]; i++)
        if (strcmp(what, rows[i].what) == 0)
            r = &rows[i];
    if (r == NULL) {
        wrd_conn_error(c, WRD_E_BAD_MESSAGE, "ask.what must be draw, describe, orders, order, "
                       "events or complete", gm->id, NULL, jid);
        return;
    }
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)msg, key, v) {
        if (strcmp(key, "type") == 0 || strcmp(key, "id") == 0 || strcmp(key, "game") == 0 ||
            strcmp(key, "what") == 0)
            continue;
        int known = 0;
        for (int i = 0; r->fields[i]; i++)
            known |= strcmp(key, r->fields[i]) == 0;
        if (!known) {
            snprintf(buf, sizeof buf, "ask %s takes no '%.40s'", r->what, key);
            wrd_conn_error(c, WRD_E_BAD_MESSAGE, buf, gm->id, NULL, jid);
            return;
        }
    }
    /* 3) the view, ready */
    struct ask_ctx x = { .msg = msg };
    if (ready(slot, gm, &x.why) != 0) {
        wrd_conn_refusal(c, x.why.code, x.why.message, gm->id, NULL, jid);
        return;
    }
    x.a = *slot;
    x.answer = json_pack("{s:s, s:s, s:s, s:I}", "type", "answer", "game", gm->id, "what",
                         r->what, "version", (json_int_t)gm->version);
    if (x.answer == NULL) {
        wrd_conn_error(c, WRD_E_INTERNAL, "out of memory", gm->id, NULL, jid);
        return;
    }
    if (jid)
        json_object_set(x.answer, "id", jid);
    /* 4) the row's limits, then its answer */
    int rc = r->answer(&x);
    if (rc != 0) {
        json_decref(x.answer);
        if (rc == 1)
            wrd_conn_error(c, WRD_E_BAD_MESSAGE, x.bad, gm->id, NULL, jid);
        else if (rc == 2)
            wrd_conn_refusal(c, x.why.code, x.why.message, gm->id, NULL, jid);
        else
            wrd_conn_error(c, WRD_E_INTERNAL, "out of memory", gm->id, NULL, jid);
        return;
    }
    struct wrd_msg *m = wrd_msg_json(x.answer);
    json_decref(x.answer);
    if (m == NULL) {
        wrd_conn_error(c, WRD_E_INTERNAL, "out of memory", gm->id, NULL, jid);
        return;
    }
    wrd_addr_charge(srv, c->from, wrd_addr_bytes_cost(m->len));
    wrd_conn_send(c, m);
    wrd_msg_unref(m);
}
