/*
 * protocol.c - the message table of protocol v1 and its dispatcher.
 *
 * The dispatcher assumes the client is stale or hostile: it checks that the
 * frame is a JSON object, that its type is known, that hello came first,
 * that every field is known and of the right JSON type, and that required
 * fields are present. Handlers (games.c) then check ids, seats and state.
 */
#include "protocol.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "addr.h"
#include "catalog.h"
#include "conn.h"
#include "games.h"
#include "server.h"
#include "warroom_version.h"

enum ftype { F_STR, F_INT, F_BOOL, F_OBJ, F_STR_OR_NULL, F_ARR };

struct field {
    const char *name;
    int type;
    int required;
};

/* The most fields a message has (create's seven, and room for one more). */
#define FIELDS_MAX 8

struct spec {
    const char *type;
    void (*handler)(struct wrd_server *srv, struct wrd_conn *c, const json_t *msg);
    /* What the message costs its address's budget before it is handled
     * (addr.h; answers whose size varies are charged more once built). */
    int cost;
    struct field fields[FIELDS_MAX];
};

static void handle_hello(struct wrd_server *srv, struct wrd_conn *c, const json_t *msg);

static const struct spec specs[] = {
    { "hello", handle_hello, 1, { { "protocol", F_INT, 1 }, { "client", F_STR, 0 } } },
    { "create", wrd_games_create, 20,
      { { "ruleset", F_STR, 1 }, { "scenario", F_STR, 0 }, { "seat", F_STR, 0 },
        { "options", F_OBJ, 0 }, { "webhook", F_STR_OR_NULL, 0 }, { "parent", F_STR, 0 },
        { "mail", F_STR, 0 } } },
    { "claim", wrd_games_claim, 5,
      { { "invite", F_STR, 0 }, { "game", F_STR, 0 }, { "seat", F_STR, 0 },
        { "webhook", F_STR_OR_NULL, 0 }, { "mail", F_STR, 0 } } },
    { "join", wrd_games_join, 2,
      { { "game", F_STR, 1 }, { "token", F_STR, 0 }, { "spectate", F_BOOL, 0 } } },
    { "command", wrd_games_command, 1,
      { { "game", F_STR, 1 }, { "seq", F_INT, 1 }, { "cmd", F_OBJ, 1 } } },
    { "sync", wrd_games_sync, 1, { { "game", F_STR, 1 }, { "since", F_INT, 1 } } },
    { "list", wrd_games_list_msg, 5,
      { { "filter", F_OBJ, 0 }, { "limit", F_INT, 0 }, { "cursor", F_STR, 0 } } },
    { "leave", wrd_games_leave, 1, { { "game", F_STR, 1 } } },
    { "export", wrd_games_export, 5, { { "game", F_STR, 1 } } },
    { "setup", wrd_games_setup, 2, { { "game", F_STR, 1 } } },
    { "ask", wrd_games_ask, 2,
      { { "game", F_STR, 1 }, { "what", F_STR, 1 }, { "line", F_STR, 0 },
        { "events", F_ARR, 0 }, { "words", F_ARR, 0 }, { "word", F_STR, 0 } } },
    { "notify", wrd_games_notify, 2,
      { { "game", F_STR, 1 }, { "webhook", F_STR_OR_NULL, 0 }, { "mail", F_STR_OR_NULL, 0 },
        { "confirm", F_STR, 0 }, { "digest", F_BOOL, 0 } } },
    { "mail_in", wrd_games_mail_in, 10,
      { { "to", F_ARR, 1 }, { "lines", F_ARR, 1 }, { "message_id", F_STR, 0 } } },
    { "rulesets", wrd_catalog_rulesets, 2, { { NULL, 0, 0 } } },
};

static int type_ok(const json_t *v, int type)
{
    switch (type) {
    case F_STR:
        return json_is_string(v);
    case F_INT:
        return json_is_integer(v);
    case F_BOOL:
        return json_is_boolean(v);
    case F_OBJ:
        return json_is_object(v);
    case F_STR_OR_NULL:
        return json_is_string(v) || json_is_null(v);
    case F_ARR:
        return json_is_array(v);
    }
    return 0;
}

static const char *const type_names[] = { "a string", "an integer", "true or false",
                                          "an object", "a string or null", "an array" };

static void handle_hello(struct wrd_server *srv, struct wrd_conn *c, const json_t *msg)
{
    json_int_t p = json_integer_value(json_object_get(msg, "protocol"));
    json_t *jid = json_object_get(msg, "id");
    if (p != WARROOM_PROTOCOL_VERSION) {
        json_t *e = json_pack("{s:s, s:s, s:s, s:[i]}", "type", "error", "code",
                              "unsupported_protocol", "message",
                              "this server speaks protocol 1", "protocols",
                              WARROOM_PROTOCOL_VERSION);
        if (jid)
            json_object_set(e, "id", jid);
        wrd_conn_send_json(c, e);
        /* Nothing else can be said in a protocol it does not speak. */
        wrd_conn_close_after(c, 1008, "unsupported protocol");
        return;
    }
    c->hello = 1;
    json_t *w = json_pack("{s:s, s:i, s:s, s:{s:I, s:i, s:i, s:I}}", "type", "welcome",
                          "protocol", WARROOM_PROTOCOL_VERSION, "server",
                          "warroomd/" WARROOM_VERSION, "limits", "max_message",
                          (json_int_t)srv->cfg.max_message, "commands_per_second", srv->cfg.rate,
                          "max_queue", srv->cfg.max_queue, "max_queue_bytes",
                          (json_int_t)srv->cfg.max_queue_bytes);
    if (jid)
        json_object_set(w, "id", jid);
    wrd_conn_send_json(c, w);
}

double wrd_protocol_cost(const char *type)
{
    for (size_t i = 0; type && i < sizeof specs / sizeof specs[0]; i++)
        if (strcmp(type, specs[i].type) == 0)
            return specs[i].cost;
    return 1;
}

/* What the message costs its address (addr.h): its type's base cost, and
 * 1 per 8 KiB of it. */
static double message_cost(const json_t *msg, size_t len)
{
    return wrd_protocol_cost(json_string_value(json_object_get(msg, "type"))) +
           wrd_addr_bytes_cost(len);
}

int wrd_protocol_dispatch(struct wrd_server *srv, struct wrd_conn *c, const char *text,
                          size_t len)
{
    json_error_t jerr;
    char buf[160];
    json_t *msg = NULL;

    /* 0) within its address's budget, whatever connection it came on: when
     * the budget is spent the message waits on the server, in its turn
     * among the address's waiting messages (addr.h), and the connection
     * reads nothing meanwhile, so a client that asks too fast is slowed,
     * not refused, and costs nothing while it waits. Its cost is kept with
     * the held message: each try before the budget allows it is a
     * comparison, not another parse (held messages are tried again often
     * when many connections share one address). */
    double cost = c->turn.cost;
    int waited = cost != 0;
    if (!waited) {
        msg = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
        cost = message_cost(msg, len);
    }
    if (!wrd_addr_take_turn(srv, c->from, &c->turn, cost)) {
        json_decref(msg);
        return wrd_addr_turn_wait_ms(srv, c->from, &c->turn);
    }
    if (waited)
        msg = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    /* 1) a JSON object */
    if (msg == NULL || !json_is_object(msg)) {
        wrd_conn_error(c, WRD_E_BAD_JSON, msg ? "a message is a JSON object" : jerr.text, NULL, NULL,
                       NULL);
        json_decref(msg);
        return 0;
    }
    json_t *jid = json_object_get(msg, "id");
    if (jid && !json_is_string(jid) && !json_is_integer(jid)) {
        wrd_conn_error(c, WRD_E_BAD_MESSAGE, "id must be a string or an integer", NULL, NULL, NULL);
        goto out;
    }
    /* 2) a known type */
    const char *type = json_string_value(json_object_get(msg, "type"));
    const struct spec *sp = NULL;
    for (size_t i = 0; type && i < sizeof specs / sizeof specs[0]; i++)
        if (strcmp(type, specs[i].type) == 0)
            sp = &specs[i];
    if (sp == NULL) {
        wrd_conn_error(c, WRD_E_BAD_MESSAGE, "unknown or missing message type", NULL, NULL, jid);
        goto out;
    }
    /* 3) hello first */
    if (!c->hello && sp->handler != handle_hello) {
        wrd_conn_error(c, WRD_E_HELLO_FIRST, "send hello first", NULL, NULL, jid);
        goto out;
    }
    /* 4) every field known and of its type, the required ones present;
     * a refusal here still names the game and echoes the seq it was sent
     * (whatever their type), so a client can tell which command failed */
    const char *key;
    json_t *v;
    const char *game = json_string_value(json_object_get(msg, "game"));
    json_t *seq = json_object_get(msg, "seq");
    json_object_foreach(msg, key, v) {
        if (strcmp(key, "type") == 0 || strcmp(key, "id") == 0)
            continue;
        const struct field *f = NULL;
        for (int i = 0; i < FIELDS_MAX && sp->fields[i].name; i++)
            if (strcmp(key, sp->fields[i].name) == 0)
                f = &sp->fields[i];
        if (f == NULL) {
            snprintf(buf, sizeof buf, "%s has no field '%.40s'", sp->type, key);
            wrd_conn_error(c, WRD_E_BAD_MESSAGE, buf, game, seq, jid);
            goto out;
        }
        if (!type_ok(v, f->type)) {
            snprintf(buf, sizeof buf, "%s.%s must be %s", sp->type, f->name, type_names[f->type]);
            wrd_conn_error(c, WRD_E_BAD_MESSAGE, buf, game, seq, jid);
            goto out;
        }
    }
    for (int i = 0; i < FIELDS_MAX && sp->fields[i].name; i++)
        if (sp->fields[i].required && json_object_get(msg, sp->fields[i].name) == NULL) {
            snprintf(buf, sizeof buf, "%s needs '%s'", sp->type, sp->fields[i].name);
            wrd_conn_error(c, WRD_E_BAD_MESSAGE, buf, game, seq, jid);
            goto out;
        }
    sp->handler(srv, c, msg);
out:
    json_decref(msg);
    return 0;
}

void wrd_protocol_init(struct wrd_server *srv)
{
    const struct wrd_conn_hooks h = { .dispatch = wrd_protocol_dispatch };
    wrd_conn_set_hooks(srv, &h);
}
