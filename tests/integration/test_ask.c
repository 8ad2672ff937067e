/*
 * test_ask.c - the client message `ask` (docs/protocol.md, server/ask.h)
 * against the real warroomd: a connection's own view of a game answers
 * draw, describe, orders, order, events and complete exactly as a view of
 * the same rules library opened here, for the same seat and fed the same
 * state, answers them (the refusals byte for byte: one formatter);
 * Waterloo's drawing names every unit and square of the state for a host
 * (data-word), and says which units the seat's clicks act on (data-act)
 * only to the seat awaited; a connection that has not joined gets
 * not_joined, also after it left.
 *
 * The sealed choices of a campaign through ask are tested in
 * test_campaign.c (test_sealed_on_the_wire), where every frame every
 * other seat and a spectator receive is scanned for them; the limits of
 * an ask (its line, its events, the command budget) are rows of
 * test_bad_input.c and test_security.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "present.h"
#include "proc.h"
#include "ruleset.h"
#include "strbuf.h"
#include "wsclient.h"

#ifndef WARROOM_SCENARIO_DIR
#error "WARROOM_SCENARIO_DIR must be defined by the build"
#endif

#define T 5000              /* ms to wait for any one answer */

static const char *const server_args[] = { "--scenarios", WARROOM_SCENARIO_DIR, NULL };

static int setup(void **state)
{
    return wt_group_start(state, server_args);
}

static const char *str(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* The message answering the request with this id (an answer or an
 * error); what else arrives meanwhile stays in the backlog, in order. */
static json_t *reply(struct wt_client *c, int id)
{
    json_t *keep[WT_BACKLOG], *got = NULL;
    int nkeep = 0;
    while (got == NULL) {
        json_t *m = wt_next(c, T);
        if (m == NULL)
            break;
        if (json_integer_value(json_object_get(m, "id")) == id)
            got = m;
        else if (nkeep < WT_BACKLOG)
            keep[nkeep++] = m;
        else
            json_decref(m);
    }
    for (int i = 0; i < nkeep && c->nbacklog < WT_BACKLOG; i++)
        c->backlog[c->nbacklog++] = keep[i];
    if (got == NULL)
        fail_msg("%s: no answer to request %d", c->name, id);
    return got;
}

/* ask what of game from c, with the fields of extra (stolen; may be
 * NULL): its answer or error. */
static json_t *ask(struct wt_client *c, const char *game, const char *what, json_t *extra)
{
    static int next_id = 100;
    int id = ++next_id;
    json_t *m = json_pack("{s:s, s:s, s:s, s:i}", "type", "ask", "game", game, "what", what,
                          "id", id);
    if (extra) {
        json_object_update(m, extra);
        json_decref(extra);
    }
    char *text = json_dumps(m, JSON_COMPACT);
    json_decref(m);
    assert_int_equal(wt_send_text(c, text), 0);
    free(text);
    return reply(c, id);
}

/* An answer of what; fails with the error otherwise. */
static json_t *answer(struct wt_client *c, const char *game, const char *what, json_t *extra)
{
    json_t *a = ask(c, game, what, extra);
    if (strcmp(str(a, "type"), "answer") != 0)
        fail_msg("%s: ask %s: %s %s", c->name, what, str(a, "code"), str(a, "message"));
    assert_string_equal(str(a, "what"), what);
    assert_string_equal(str(a, "game"), game);
    return a;
}

/* --- the view of the same library, here -------------------------------------- */

/* c's view of game as the server's is opened: the game's setup (asked of
 * the server), c's seat ("" spectator), fed c's state. */
static struct wr_view *local_view(struct wt_client *c, const char *game, const char *seat)
{
    static int id = 1;
    wt_send(c, "{s:s, s:s, s:i}", "type", "setup", "game", game, "id", ++id);
    json_t *su = reply(c, id);
    assert_string_equal(str(su, "type"), "setup");
    const struct wr_ruleset *rs = wr_ruleset_find(str(su, "ruleset"));
    assert_non_null(rs);
    struct wr_refusal why;
    json_t *scen = json_object_get(su, "scenario"), *opts = json_object_get(su, "options");
    struct wr_view *v = rs->present->open(rs, json_is_object(scen) ? scen : NULL,
                                          json_is_object(opts) ? opts : NULL, seat, NULL, &why);
    if (v == NULL)
        fail_msg("local view: %s", why.message);
    json_decref(su);
    assert_non_null(c->state);
    assert_int_equal(v->pr->update(v, c->state, &why), 0);
    return v;
}

static char *local_svg(struct wr_view *v)
{
    struct wr_strbuf sb;
    wr_strbuf_init(&sb);
    assert_int_equal(v->pr->draw_svg(v, &sb), 0);
    return sb.s;
}

static char *local_describe(struct wr_view *v)
{
    struct wr_strbuf sb;
    wr_strbuf_init(&sb);
    v->pr->describe(v, &sb);
    return sb.s ? sb.s : strdup("");
}

/* The server's answer to `ask order` of line equals what v makes of it:
 * the same command and check, the same query answer, or the same
 * refusal (code and message byte for byte). Returns the answer's kind:
 * "command", "answer" or "error". */
static const char *same_order(struct wt_client *c, const char *game, struct wr_view *v,
                              const char *line)
{
    json_t *a = ask(c, game, "order", json_pack("{s:s}", "line", line));
    json_t *cmd = NULL;
    struct wr_strbuf out;
    struct wr_refusal why;
    wr_strbuf_init(&out);
    enum wr_order_kind k = v->pr->order(v, line, &cmd, &out, &why);
    const char *kind = "error";
    if (k == WR_ORDER_COMMAND) {
        int check = v->pr->precheck(v, cmd, &why);
        if (check < 0)
            k = WR_ORDER_ERROR;
        else {
            kind = "command";
            assert_string_equal(str(a, "type"), "answer");
            assert_string_equal(str(a, "kind"), "command");
            if (!json_equal(json_object_get(a, "command"), cmd))
                fail_msg("%s: '%s' gave %s, here %s", c->name, line,
                         json_dumps(json_object_get(a, "command"), JSON_COMPACT),
                         json_dumps(cmd, JSON_COMPACT));
            assert_int_equal(json_integer_value(json_object_get(a, "check")), check > 0);
        }
    }
    if (k == WR_ORDER_ANSWER) {
        kind = "answer";
        assert_string_equal(str(a, "type"), "answer");
        assert_string_equal(str(a, "kind"), "answer");
        assert_string_equal(str(a, "text"), out.s ? out.s : "");
    }
    if (k == WR_ORDER_ERROR) {
        if (strcmp(str(a, "type"), "error") != 0)
            fail_msg("%s: '%s' was not refused: %s", c->name, line, json_dumps(a, JSON_COMPACT));
        assert_string_equal(str(a, "code"), why.code);
        assert_string_equal(str(a, "message"), why.message);
        assert_string_equal(str(a, "game"), game);
    }
    json_decref(cmd);
    wr_strbuf_release(&out);
    json_decref(a);
    return kind;
}

/* draw and describe of c equal v's; returns the server's SVG (caller frees). */
static char *same_pictures(struct wt_client *c, const char *game, struct wr_view *v)
{
    json_t *d = answer(c, game, "draw", NULL);
    assert_int_equal(json_integer_value(json_object_get(d, "version")), c->version);
    char *mine = local_svg(v);
    assert_string_equal(str(d, "svg"), mine);
    free(mine);
    char *svg = strdup(str(d, "svg"));
    json_decref(d);
    json_t *t = answer(c, game, "describe", NULL);
    char *text = local_describe(v);
    assert_string_equal(str(t, "text"), text);
    free(text);
    json_decref(t);
    return svg;
}

/* orders: the table of v's presentation, in its order. */
static void same_orders(struct wt_client *c, const char *game, struct wr_view *v)
{
    json_t *a = answer(c, game, "orders", NULL);
    json_t *list = json_object_get(a, "orders");
    size_t n = 0;
    for (const struct wr_order *o = v->pr->orders; o->name; o++, n++) {
        json_t *row = json_array_get(list, n);
        assert_non_null(row);
        assert_string_equal(str(row, "name"), o->name);
        assert_string_equal(str(row, "synopsis"), o->synopsis);
        assert_string_equal(str(row, "help"), o->help);
        assert_string_equal(str(row, "example"), o->example);
        assert_int_equal(json_is_true(json_object_get(row, "query")), o->query != 0);
        if (o->preview)
            assert_string_equal(str(row, "preview"), o->preview);
        else
            assert_true(json_is_null(json_object_get(row, "preview")));
    }
    assert_int_equal(json_array_size(list), n);
    json_decref(a);
}

static void collect(void *ctx, const char *cand)
{
    json_array_append_new(ctx, json_string(cand));
}

/* complete: the candidates v gives for words and word. */
static void same_completion(struct wt_client *c, const char *game, struct wr_view *v,
                            const char *const *words, int nwords, const char *word)
{
    json_t *jw = json_array(), *mine = json_array();
    for (int i = 0; i < nwords; i++)
        json_array_append_new(jw, json_string(words[i]));
    json_t *a = answer(c, game, "complete", json_pack("{s:o, s:s}", "words", jw, "word", word));
    v->pr->complete(v, words, nwords, word, collect, mine);
    assert_true(json_array_size(mine) > 0);
    assert_true(json_equal(json_object_get(a, "candidates"), mine));
    json_decref(mine);
    json_decref(a);
}

/* events: each event of the patch c was sent, in v's words (v fed the
 * patch's state). */
static void same_events(struct wt_client *c, const char *game, struct wr_view *v,
                        const json_t *events)
{
    assert_true(json_array_size(events) > 0);
    json_t *a = answer(c, game, "events", json_pack("{s:O}", "events", events));
    json_t *lines = json_object_get(a, "lines");
    assert_int_equal(json_array_size(lines), json_array_size(events));
    size_t i;
    json_t *e;
    json_array_foreach(events, i, e) {
        struct wr_strbuf sb;
        wr_strbuf_init(&sb);
        v->pr->event(v, e, &sb);
        assert_string_equal(json_string_value(json_array_get(lines, i)), sb.s ? sb.s : "");
        wr_strbuf_release(&sb);
    }
    json_decref(a);
}

/* --- a game with two seats and a spectator ------------------------------------- */

struct game {
    char id[32];
    struct wt_client seat[2], spec;
    char name[2][16];
};

static void start(struct game *g, struct wt_server *s, const char *create)
{
    memset(g, 0, sizeof *g);
    assert_int_equal(wt_open(&g->seat[0], "creator", s->port), 0);
    assert_int_equal(wt_send_text(&g->seat[0], create), 0);
    json_t *cr = wt_expect(&g->seat[0], "created", T);
    assert_non_null(cr);
    snprintf(g->id, sizeof g->id, "%s", str(cr, "game"));
    snprintf(g->name[0], sizeof g->name[0], "%s", str(cr, "seat"));
    const char *key;
    json_t *inv;
    json_object_foreach(json_object_get(cr, "invites"), key, inv) {
        assert_int_equal(wt_open(&g->seat[1], "claimer", s->port), 0);
        wt_send(&g->seat[1], "{s:s, s:s}", "type", "claim", "invite", json_string_value(inv));
        json_t *cl = wt_expect(&g->seat[1], "claimed", T);
        assert_non_null(cl);
        snprintf(g->name[1], sizeof g->name[1], "%s", key);
        json_decref(cl);
    }
    json_decref(cr);
    assert_int_equal(wt_open(&g->spec, "spectator", s->port), 0);
    wt_send(&g->spec, "{s:s, s:s, s:b}", "type", "join", "game", g->id, "spectate", 1);
    json_t *st = wt_expect(&g->spec, "state", T);
    assert_non_null(st);
    assert_string_equal(str(st, "status"), "running");
    json_decref(st);
    /* every client holds the running state */
    for (int i = 0; i < 2; i++) {
        wt_drain(&g->seat[i], 200);
        assert_non_null(g->seat[i].state);
        assert_string_equal(str(json_object_get(g->seat[i].state, "server"), "status"),
                            "running");
    }
}

static void stop(struct game *g)
{
    wt_close(&g->seat[0]);
    wt_close(&g->seat[1]);
    wt_close(&g->spec);
}

/* Send cmd (made by a view's order; taken over) from seat i; every client
 * reads the patch; the spectator's patch events are returned (new
 * reference). */
static json_t *play(struct game *g, int i, json_t *cmd)
{
    static int seq = 0;
    json_t *m = json_pack("{s:s, s:s, s:i, s:O}", "type", "command", "game", g->id, "seq", ++seq,
                          "cmd", cmd);
    json_decref(cmd);
    char *text = json_dumps(m, JSON_COMPACT);
    json_decref(m);
    wt_send_text(&g->seat[i], text);
    json_t *ack = wt_expect(&g->seat[i], "ack", T);
    if (ack == NULL) {
        json_t *e = wt_expect(&g->seat[i], "error", 10);
        fail_msg("%s refused: %s", text, e ? str(e, "message") : "?");
    }
    free(text);
    long long v = json_integer_value(json_object_get(ack, "version"));
    json_decref(ack);
    json_t *p = wt_expect(&g->spec, "patch", T);
    assert_non_null(p);
    json_t *events = json_incref(json_object_get(p, "events"));
    json_decref(p);
    for (int k = 0; k < 2; k++)
        assert_int_equal(wt_wait_version(&g->seat[k], v, T), 0);
    assert_int_equal(g->spec.version, v);
    return events;
}

/* The command v makes of line (it must make one). */
static json_t *command_of(struct wr_view *v, const char *line)
{
    json_t *cmd = NULL;
    struct wr_strbuf out;
    struct wr_refusal why;
    wr_strbuf_init(&out);
    if (v->pr->order(v, line, &cmd, &out, &why) != WR_ORDER_COMMAND)
        fail_msg("'%s' is no command: %s", line, why.message);
    wr_strbuf_release(&out);
    return cmd;
}

/* --- the tests -------------------------------------------------------------------- */

#define CREATE_TTT "{\"type\":\"create\",\"ruleset\":\"tictactoe\",\"seat\":\"x\"}"
#define CREATE_WL "{\"type\":\"create\",\"ruleset\":\"waterloo\",\"scenario\":\"waterloo-1815\"," \
                  "\"seat\":\"french\"}"

/* Tictactoe: every WHAT, from both seats and the spectator, equal to the
 * local view's; each cell named for a host. */
static void test_tictactoe(void **state)
{
    struct wt_server *s = *state;
    struct game g;
    start(&g, s, CREATE_TTT);
    struct wt_client *who[3] = { &g.seat[0], &g.seat[1], &g.spec };
    const char *seat[3] = { g.name[0], g.name[1], "" };
    for (int i = 0; i < 3; i++) {
        struct wr_view *v = local_view(who[i], g.id, seat[i]);
        char *svg = same_pictures(who[i], g.id, v);
        for (int cell = 0; cell < 9; cell++) {
            char want[32];
            snprintf(want, sizeof want, "data-word=\"%d\"", cell);
            if (strstr(svg, want) == NULL)
                fail_msg("%s: no %s in the drawing", who[i]->name, want);
        }
        free(svg);
        same_orders(who[i], g.id, v);
        /* x's turn: x's command checked, o's refused as the server would */
        same_order(who[i], g.id, v, "mark 4");
        same_order(who[i], g.id, v, "mark 9");
        same_order(who[i], g.id, v, "fly away");
        const char *first[] = { "mark" };
        same_completion(who[i], g.id, v, first, 1, "");
        v->pr->close(v);
    }
    /* x's own "mark 4" is a command the rules accept */
    struct wr_view *vx = local_view(&g.seat[0], g.id, "x");
    assert_string_equal(same_order(&g.seat[0], g.id, vx, "mark 4"), "command");
    /* o's is refused: not its turn */
    struct wr_view *vo = local_view(&g.seat[1], g.id, "o");
    assert_string_equal(same_order(&g.seat[1], g.id, vo, "mark 4"), "error");
    json_t *events = play(&g, 0, command_of(vx, "mark 4"));
    vx->pr->close(vx);
    vo->pr->close(vo);
    /* after the move: the views follow the new version */
    for (int i = 0; i < 3; i++) {
        struct wr_view *v = local_view(who[i], g.id, seat[i]);
        char *svg = same_pictures(who[i], g.id, v);
        assert_non_null(strstr(svg, "cell 4: x"));
        free(svg);
        same_events(who[i], g.id, v, events);
        same_order(who[i], g.id, v, "mark 4");       /* taken now */
        v->pr->close(v);
    }
    json_decref(events);
    stop(&g);
}

/* data-word="w" is in svg. */
static void has_word(const char *svg, const char *w)
{
    char want[96];
    snprintf(want, sizeof want, "data-word=\"%s\"", w);
    if (strstr(svg, want) == NULL)
        fail_msg("no %s in the drawing", want);
}

/* In phase, every client's draw and describe equal its local view's; every
 * unit on the board and its square is named (data-word) and selects its
 * reach (data-select); the French seat's units carry data-act="ACT U",
 * nobody else's drawing any data-act. Keeps a French unit's id in
 * some_french. */
static void check_acts(struct game *g, const char *const seat[3], const char *phase,
                       const char *act, char some_french[64])
{
    struct wt_client *who[3] = { &g->seat[0], &g->seat[1], &g->spec };
    assert_string_equal(str(g->spec.state, "phase"), phase);
    for (int i = 0; i < 3; i++) {
        struct wr_view *v = local_view(who[i], g->id, seat[i]);
        char *svg = same_pictures(who[i], g->id, v);
        assert_non_null(strstr(svg, "data-clear=\"clear\""));
        const char *id;
        json_t *u;
        int on_board = 0, acts = 0;
        json_object_foreach(json_object_get(who[i]->state, "units"), id, u) {
            const char *at = str(u, "at");
            if (at == NULL || strchr(at, '-') == NULL)
                continue;               /* pending, eliminated, exited */
            on_board++;
            has_word(svg, id);
            has_word(svg, at);
            char want[160];
            snprintf(want, sizeof want, "data-word=\"%s\" data-select=\"reach %s\"", id, id);
            if (strstr(svg, want) == NULL)
                fail_msg("%s: no %s", who[i]->name, want);
            snprintf(want, sizeof want, "data-act=\"%s %s\"", act, id);
            if (i == 0 && strncmp(id, "fr-", 3) == 0) {
                if (strstr(svg, want) == NULL)
                    fail_msg("the French seat's %s has no %s", id, want);
                acts++;
                snprintf(some_french, 64, "%s", id);
            }
        }
        assert_true(on_board > 20);
        if (i == 0)
            assert_true(acts > 0);
        else
            assert_null(strstr(svg, "data-act="));  /* not awaited: nothing to act on */
        free(svg);
        same_orders(who[i], g->id, v);
        v->pr->close(v);
    }
}

/* Waterloo: every WHAT equal to the local view's; every unit on the
 * board and its square named (data-word); the units carry data-select
 * and, for the French seat only, data-act (place in the set-up, move in
 * the movement phase); reach marks its squares in the next draw; attack previews
 * odds. */
static void test_waterloo(void **state)
{
    struct wt_server *s = *state;
    struct game g;
    start(&g, s, CREATE_WL);
    assert_string_equal(g.name[0], "french");
    struct wt_client *who[3] = { &g.seat[0], &g.seat[1], &g.spec };
    const char *seat[3] = { "french", "allied", "" };
    char some_french[64] = "";
    /* the set-up: the French place, then the Allies; then the French move */
    check_acts(&g, seat, "setup_french", "place", some_french);
    struct wr_view *vs = local_view(&g.seat[0], g.id, "french");
    json_decref(play(&g, 0, command_of(vs, "endsetup")));
    vs->pr->close(vs);
    vs = local_view(&g.seat[1], g.id, "allied");
    json_decref(play(&g, 1, command_of(vs, "endsetup")));
    vs->pr->close(vs);
    check_acts(&g, seat, "french_move", "move", some_french);
    /* the orders table's previews */
    json_t *o = answer(&g.seat[0], g.id, "orders", NULL);
    size_t k;
    json_t *row;
    int previews = 0;
    json_array_foreach(json_object_get(o, "orders"), k, row) {
        const char *name = str(row, "name");
        if (strcmp(name, "attack") == 0 || strcmp(name, "declare") == 0) {
            assert_string_equal(str(row, "preview"), "odds");
            previews++;
        } else {
            assert_true(json_is_null(json_object_get(row, "preview")));
        }
    }
    assert_int_equal(previews, 2);
    json_decref(o);
    /* reach: answered as here, and the next draw marks the squares */
    struct wr_view *vf = local_view(&g.seat[0], g.id, "french");
    char line[128];
    snprintf(line, sizeof line, "reach %s", some_french);
    assert_string_equal(same_order(&g.seat[0], g.id, vf, line), "answer");
    char *svg = same_pictures(&g.seat[0], g.id, vf);
    assert_non_null(strstr(svg, "class=\"h reach\""));
    free(svg);
    assert_string_equal(same_order(&g.seat[0], g.id, vf, "clear"), "answer");
    svg = same_pictures(&g.seat[0], g.id, vf);
    assert_null(strstr(svg, "class=\"h reach\""));
    free(svg);
    /* orders as typed: a refusal byte for byte; the table's examples */
    same_order(&g.seat[0], g.id, vf, "move fr-nobody A-1");
    same_order(&g.seat[0], g.id, vf, "attack");
    for (const struct wr_order *ord = vf->pr->orders; ord->name; ord++)
        if (strcmp(ord->name, "view") != 0)
            same_order(&g.seat[0], g.id, vf, ord->example);
    const char *mv[] = { "move" };
    same_completion(&g.seat[0], g.id, vf, mv, 1, "fr-");
    /* the French end their movement: events in words, for every client */
    json_t *events = play(&g, 0, command_of(vf, "end"));
    vf->pr->close(vf);
    for (int i = 0; i < 3; i++) {
        struct wr_view *v = local_view(who[i], g.id, seat[i]);
        free(same_pictures(who[i], g.id, v));
        same_events(who[i], g.id, v, events);
        v->pr->close(v);
    }
    json_decref(events);
    stop(&g);
}

/* Only a member asks: a connection that never joined, or left, gets
 * not_joined; a WHAT that is not one, or a field another WHAT takes, is
 * bad_message. */
static void test_not_joined(void **state)
{
    struct wt_server *s = *state;
    struct game g;
    start(&g, s, CREATE_TTT);
    struct wt_client other;
    assert_int_equal(wt_open(&other, "outsider", s->port), 0);
    json_t *e = ask(&other, g.id, "draw", NULL);
    assert_string_equal(str(e, "type"), "error");
    assert_string_equal(str(e, "code"), "not_joined");
    assert_string_equal(str(e, "game"), g.id);
    json_decref(e);
    e = ask(&other, "g-000000000000", "describe", NULL);
    assert_string_equal(str(e, "code"), "not_joined");
    json_decref(e);
    /* the spectator's view answers, then goes with its leave */
    json_decref(answer(&g.spec, g.id, "draw", NULL));
    wt_send(&g.spec, "{s:s, s:s, s:i}", "type", "leave", "game", g.id, "id", 7);
    json_t *left = reply(&g.spec, 7);
    assert_string_equal(str(left, "type"), "left");
    json_decref(left);
    e = ask(&g.spec, g.id, "draw", NULL);
    assert_string_equal(str(e, "code"), "not_joined");
    json_decref(e);
    /* the shape of an ask */
    e = ask(&g.seat[0], g.id, "fly", NULL);
    assert_string_equal(str(e, "code"), "bad_message");
    json_decref(e);
    e = ask(&g.seat[0], g.id, "draw", json_pack("{s:s}", "line", "mark 4"));
    assert_string_equal(str(e, "code"), "bad_message");
    json_decref(e);
    e = ask(&g.seat[0], g.id, "order", NULL);
    assert_string_equal(str(e, "code"), "bad_message");
    json_decref(e);
    e = ask(&g.seat[0], g.id, "order", json_pack("{s:s}", "line", "{\"type\":\"mark\"}"));
    assert_string_equal(str(e, "code"), "bad_message");
    json_decref(e);
    e = ask(&g.seat[0], g.id, "events", json_pack("{s:[i]}", "events", 3));
    assert_string_equal(str(e, "code"), "bad_message");
    json_decref(e);
    wt_close(&other);
    stop(&g);
}

/* A connection holds at most WRD_ASK_VIEWS_MAX (4) views: asking a
 * fifth game's closes another's, and that game's next ask opens it again,
 * answering as before (its marks gone: Waterloo's reach). */
static void test_views_per_connection(void **state)
{
    struct wt_server *s = *state;
    struct game g[5];
    struct wt_client watcher;
    assert_int_equal(wt_open(&watcher, "watcher", s->port), 0);
    char *first = NULL;
    for (int i = 0; i < 5; i++) {
        start(&g[i], s, i == 0 ? CREATE_WL : CREATE_TTT);
        for (int k = 0; i == 0 && k < 2; k++) {     /* both set-ups end: French movement */
            struct wr_view *vs = local_view(&g[0].seat[k], g[0].id, g[0].name[k]);
            json_decref(play(&g[0], k, command_of(vs, "endsetup")));
            vs->pr->close(vs);
        }
        wt_send(&watcher, "{s:s, s:s, s:b}", "type", "join", "game", g[i].id, "spectate", 1);
        json_t *st = wt_expect(&watcher, "state", T);
        assert_non_null(st);
        json_decref(st);
        if (i == 0) {
            json_t *a = answer(&watcher, g[0].id, "order",
                               json_pack("{s:s}", "line", "reach fr-ii-jerome"));
            assert_string_equal(str(a, "kind"), "answer");
            json_decref(a);
        }
        json_t *d = answer(&watcher, g[i].id, "draw", NULL);
        if (i == 0) {
            first = strdup(str(d, "svg"));
            assert_non_null(strstr(first, "class=\"h reach\""));
        }
        json_decref(d);
    }
    /* the fifth closed the first's view: a fresh one, no marks */
    json_t *d = answer(&watcher, g[0].id, "draw", NULL);
    assert_null(strstr(str(d, "svg"), "class=\"h reach\""));
    struct wr_view *v = local_view(&watcher, g[0].id, "");
    char *mine = local_svg(v);
    assert_string_equal(str(d, "svg"), mine);
    free(mine);
    v->pr->close(v);
    json_decref(d);
    free(first);
    wt_close(&watcher);
    for (int i = 0; i < 5; i++)
        stop(&g[i]);
}

/* An address holds at most --max-views-per-address views over all its
 * connections (3 here): another connection's first ask is too_many_views
 * while the views held still answer, and a leave gives its view back. */
static void test_views_per_address(void **state)
{
    (void)state;
    static const char *const args[] = { "--scenarios", WARROOM_SCENARIO_DIR,
                                        "--max-views-per-address", "3", NULL };
    struct wt_server s;
    assert_int_equal(wt_server_start(&s, args), 0);
    struct game g;
    start(&g, &s, CREATE_TTT);
    for (int i = 0; i < 2; i++)
        json_decref(answer(&g.seat[i], g.id, "draw", NULL));
    json_decref(answer(&g.spec, g.id, "draw", NULL));
    struct wt_client late;
    assert_int_equal(wt_open(&late, "late", s.port), 0);
    wt_send(&late, "{s:s, s:s, s:b}", "type", "join", "game", g.id, "spectate", 1);
    json_t *st = wt_expect(&late, "state", T);
    assert_non_null(st);
    json_decref(st);
    json_t *e = ask(&late, g.id, "draw", NULL);
    assert_string_equal(str(e, "type"), "error");
    assert_string_equal(str(e, "code"), "too_many_views");
    assert_non_null(strstr(str(e, "message"), "3 views"));
    json_decref(e);
    json_decref(answer(&g.seat[0], g.id, "describe", NULL));
    /* the spectator leaves: its view is given back, and the late one's is made */
    wt_send(&g.spec, "{s:s, s:s, s:i}", "type", "leave", "game", g.id, "id", 7);
    json_t *left = reply(&g.spec, 7);
    assert_string_equal(str(left, "type"), "left");
    json_decref(left);
    json_decref(answer(&late, g.id, "draw", NULL));
    e = ask(&g.spec, g.id, "draw", NULL);
    assert_string_equal(str(e, "code"), "not_joined");
    json_decref(e);
    wt_close(&late);
    stop(&g);
    int status = wt_server_stop(&s, SIGTERM, 10000);
    wt_server_cleanup(&s);
    assert_true(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tictactoe),
        cmocka_unit_test(test_waterloo),
        cmocka_unit_test(test_not_joined),
        cmocka_unit_test(test_views_per_connection),
        cmocka_unit_test(test_views_per_address),
    };
    return cmocka_run_group_tests(tests, setup, wt_group_stop);
}
