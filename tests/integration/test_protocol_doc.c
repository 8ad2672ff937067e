/*
 * test_protocol_doc.c - a third-party client written from docs/protocol.md and
 * docs/rulesets/tictactoe.md alone, to find every place where the server and
 * its documentation disagree.
 *
 * It speaks the protocol on the raw websocket helpers of proc.h (not
 * wsclient), parses every message with duplicate keys rejected, follows each
 * game only by applying patches with its own RFC 6902 applier, and checks
 * every message the server sends against the doc's table of fields. Each
 * check cites, in a comment, the sentence of the doc it tests; a row whose
 * check fails says which sentence the server did not keep.
 *
 * Every row starts its own warroomd (so the lobby and the address budgets
 * start empty); every wait has a deadline. "Nothing else came" is checked
 * with a barrier: a later request on the same connection, whose answer must
 * be the next message.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "proc.h"

/* cmocka's fail_msg() cuts its text at 1 KiB; a failure here prints whole
 * messages, so it writes them to stderr itself, then fails. */
#define fail_long(...)                                                                      \
    do {                                                                                    \
        fprintf(stderr, "ERROR: ");                                                         \
        fprintf(stderr, __VA_ARGS__);                                                       \
        fprintf(stderr, "\n");                                                              \
        fail();                                                                             \
    } while (0)

#define WAIT_MS 10000
#define MAX_CLIENTS 64
#define MAX_VIOLATIONS 128

/* Sentences of the doc that several failure messages cite. */
#define DOC_ORDER "protocol.md, Conventions: \"Each message answering a request comes before " \
                  "anything the request leads to: `created` before the creator's `state`, "   \
                  "`claimed` before the claimer's.\""
#define DOC_ID "protocol.md, Conventions: \"every direct answer echoes it (`welcome`, "     \
               "`created`, `claimed`, the `state` answering `join` or `sync`, `synced`, " \
               "`games`, `record`, `setup`, `answer`, `rulesets`, `left`, `ok`, and `error`)\""

/* ------------------------------------------------------------------------- */
/* Clients                                                                    */

struct client {
    int fd;
    char name[32];
    int closed;          /* a close frame arrived */
    int close_code;      /* its status code (1005 when it had none) */
    unsigned barriers;
    json_t *last_id;     /* the `id` of the last message expect() took (owned) */
};

static struct wt_server g_srv;
static int g_srv_up;
static struct client *g_clients[MAX_CLIENTS];

/* Field disagreements seen in any message of any row (see check_shape). */
static char *g_violations[MAX_VIOLATIONS];
static size_t g_nviolations;

static void violation(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void violation(const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    for (size_t i = 0; i < g_nviolations; i++)
        if (strcmp(g_violations[i], buf) == 0)
            return;
    if (g_nviolations < MAX_VIOLATIONS)
        g_violations[g_nviolations++] = strdup(buf);
}

/* JSON texts made for failure messages, freed by the row's teardown. */
static char *g_dumps[256];
static size_t g_ndumps;

/* j as compact JSON text for a message; owned by the row (see g_dumps). */
static const char *dump(const json_t *j)
{
    if (g_ndumps == sizeof g_dumps / sizeof g_dumps[0])
        return "(too many messages)";
    char *s = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
    if (s == NULL)
        return "(unprintable)";
    g_dumps[g_ndumps++] = s;
    return s;
}

static struct client *client_open(const char *name)
{
    size_t slot = 0;
    while (slot < MAX_CLIENTS && g_clients[slot] != NULL)
        slot++;
    assert_true(slot < MAX_CLIENTS);
    struct client *c = calloc(1, sizeof *c);
    assert_non_null(c);
    c->fd = wt_ws_connect(g_srv.port);
    if (c->fd < 0)
        fail_long("%s: the websocket connection to port %d failed", name, g_srv.port);
    snprintf(c->name, sizeof c->name, "%s", name);
    g_clients[slot] = c;
    return c;
}

static void client_close(struct client *c)
{
    for (size_t i = 0; i < MAX_CLIENTS; i++)
        if (g_clients[i] == c)
            g_clients[i] = NULL;
    if (!c->closed) {
        static const unsigned char normal[2] = { 0x03, 0xe8 };     /* 1000 */
        (void)wt_ws_send_frame(c->fd, 0x88, 2, normal, 2);
    }
    close(c->fd);
    json_decref(c->last_id);
    free(c);
}

static void check_shape(const json_t *m);

/* The next message, or NULL when the connection was closed (c->closed and
 * c->close_code set) or nothing came within WAIT_MS. */
static json_t *recv_msg(struct client *c)
{
    int op;
    char *data = NULL;
    size_t len = 0;
    if (c->closed || wt_ws_recv(c->fd, &op, &data, &len, WAIT_MS) < 0)
        return NULL;
    if (op == 8) {
        c->closed = 1;
        c->close_code = len >= 2 ? ((unsigned char)data[0] << 8) | (unsigned char)data[1]
                                 : 1005;
        free(data);
        return NULL;
    }
    /* protocol.md: "Every message is UTF-8 **text** holding exactly one JSON
     * object with a `"type"`". */
    if (op != 1)
        fail_long("%s: a frame of opcode %d; protocol.md: \"Every message is UTF-8 text\"",
                  c->name, op);
    /* protocol.md, Server messages: "apply them in order (RFC 6902; parse with
     * duplicate keys rejected)". */
    json_error_t err;
    json_t *m = json_loadb(data, len, JSON_REJECT_DUPLICATES, &err);
    if (m == NULL || !json_is_object(m) || !json_is_string(json_object_get(m, "type")))
        fail_long("%s: not one JSON object with a string type (%s): %.300s", c->name,
                  m == NULL ? err.text : "no type", data);
    free(data);
    check_shape(m);
    return m;
}

/* An id value meaning "do not look at `id`" (the field check still does). */
static json_t g_id_unchecked_storage;
#define ID_UNCHECKED (&g_id_unchecked_storage)

/* m (from c) must be of type; its id must be id (NULL: none at all;
 * ID_UNCHECKED: not looked at). Records the id in c->last_id. */
static void check_type_and_id(struct client *c, const json_t *m, const char *type,
                              const json_t *id, const char *doc)
{
    const char *t = json_string_value(json_object_get(m, "type"));
    if (strcmp(t, type) != 0)
        fail_long("%s: expected `%s` (%s); the server sent %s", c->name, type, doc, dump(m));
    json_decref(c->last_id);
    c->last_id = json_incref(json_object_get(m, "id"));
    if (id == ID_UNCHECKED)
        return;
    json_t *got = json_object_get(m, "id");
    /* protocol.md, Conventions: "Any client message may carry `"id"` (a string
     * or integer of the client's choosing); every direct answer echoes it". */
    if (id == NULL && got != NULL)
        fail_long("%s: `%s` carries id %s, though %s: %s", c->name, type, dump(got), doc,
                  dump(m));
    if (id != NULL && (got == NULL || !json_equal(id, got)))
        fail_long("%s: `%s` should echo id %s (%s; %s); the server sent %s", c->name, type,
                  dump(id), doc, DOC_ID, dump(m));
}

/* The next message, which must exist. */
static json_t *recv_some(struct client *c, const char *what, const char *doc)
{
    json_t *m = recv_msg(c);
    if (m == NULL) {
        if (c->closed)
            fail_long("%s: waited for %s (%s); the connection was closed with %d", c->name,
                      what, doc, c->close_code);
        fail_long("%s: waited for %s (%s); nothing came within %d ms", c->name, what, doc,
                  WAIT_MS);
    }
    return m;
}

/* The next message must be of type, with id (see check_type_and_id). */
static json_t *expect(struct client *c, const char *type, const json_t *id, const char *doc)
{
    json_t *m = recv_some(c, type, doc);
    check_type_and_id(c, m, type, id, doc);
    return m;
}

/* The answer of type (with id) and the `state` it leads to: in the order
 * the doc gives (the answer first) when !any_order, else in either order.
 * Rows 1 and 2 check that order; the other rows leave it to them, so that
 * one disagreement fails one row. */
static void expect_answer_and_state(struct client *c, const char *type, const json_t *id,
                                    int any_order, const char *doc, json_t **answer,
                                    json_t **state)
{
    static const char *state_doc = "protocol.md, Server messages: `id` on a `state` only "
                                   "\"when it answers `join` or `sync`\"";
    json_t *m = recv_some(c, type, doc);
    if (any_order && strcmp(json_string_value(json_object_get(m, "type")), "state") == 0) {
        check_type_and_id(c, m, "state", NULL, state_doc);
        *state = m;
        *answer = expect(c, type, id, doc);
        return;
    }
    check_type_and_id(c, m, type, id, doc);
    *answer = m;
    *state = expect(c, "state", NULL, doc);
}

/* Send msg (stolen), with "id": id added when id is not NULL. */
static void send_msg(struct client *c, json_t *msg, const json_t *id)
{
    assert_non_null(msg);
    if (id != NULL)
        json_object_set(msg, "id", (json_t *)id);
    char *text = json_dumps(msg, JSON_COMPACT);
    assert_non_null(text);
    if (wt_ws_send_text(c->fd, text, strlen(text)) != 0)
        fail_long("%s: sending %s failed", c->name, text);
    free(text);
    json_decref(msg);
}

/* Nothing more is queued for c: the answer to a later request (a `list`) is
 * the next message. doc says why nothing else may come. */
static void expect_nothing_else(struct client *c, const char *doc)
{
    char id[32];
    snprintf(id, sizeof id, "barrier-%u", ++c->barriers);
    json_t *jid = json_string(id);
    send_msg(c, json_pack("{s:s}", "type", "list"), jid);
    json_decref(jid);
    json_t *m = recv_msg(c);
    if (m == NULL)
        fail_long("%s: no answer to a `list` (barrier %s)%s", c->name, id,
                  c->closed ? ": the connection was closed" : "");
    const char *t = json_string_value(json_object_get(m, "type"));
    const char *got = json_string_value(json_object_get(m, "id"));
    if (strcmp(t, "games") != 0 || got == NULL || strcmp(got, id) != 0)
        fail_long("%s: %s; yet before the answer to a later request the server sent %s",
                  c->name, doc, dump(m));
    json_decref(m);
}

static struct client *connect_hello(const char *name)
{
    struct client *c = client_open(name);
    send_msg(c, json_pack("{s:s,s:i,s:s}", "type", "hello", "protocol", 1, "client",
                          "protocol-doc-test/1"), NULL);
    /* protocol.md, hello: "The server answers `welcome`." */
    json_decref(expect(c, "welcome", NULL, "protocol.md, hello: \"The server answers welcome\""));
    return c;
}

static const char *sget(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static int is_hex(const char *s, size_t n)
{
    if (s == NULL || strlen(s) != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') ||
              (s[i] >= 'A' && s[i] <= 'F')))
            return 0;
    return 1;
}

static void assert_str(const json_t *o, const char *k, const char *want, const char *what)
{
    const char *got = sget(o, k);
    if (got == NULL || strcmp(got, want) != 0)
        fail_long("%s: `%s` should be \"%s\": %s", what, k, want, dump(o));
}

static void assert_int(const json_t *o, const char *k, json_int_t want, const char *what)
{
    const json_t *v = json_object_get(o, k);
    if (!json_is_integer(v) || json_integer_value(v) != want)
        fail_long("%s: `%s` should be %lld: %s", what, k, (long long)want, dump(o));
}

/* ------------------------------------------------------------------------- */
/* The doc's table of server messages                                         */

static int in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; *p != '\0';) {
        const char *e = strchr(p, ',');
        size_t len = e != NULL ? (size_t)(e - p) : strlen(p);
        if (len == n && strncmp(p, name, n) == 0)
            return 1;
        p += len + (e != NULL);
    }
    return 0;
}

/* obj must have every field of required and nothing outside required and
 * optional (comma-separated lists); a difference is recorded as a violation. */
static void check_fields(const char *what, const json_t *obj, const char *required,
                         const char *optional, const char *doc)
{
    if (!json_is_object(obj)) {
        violation("%s is not an object (%s)", what, doc);
        return;
    }
    for (const char *p = required; *p != '\0';) {
        const char *e = strchr(p, ',');
        size_t len = e != NULL ? (size_t)(e - p) : strlen(p);
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)len, p);
        if (json_object_get(obj, name) == NULL)
            violation("%s: missing field `%s` (%s)", what, name, doc);
        p += len + (e != NULL);
    }
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)obj, key, val) {
        if (!in_list(required, key) && !in_list(optional, key)) {
            char *v = json_dumps(val, JSON_COMPACT | JSON_ENCODE_ANY);
            violation("%s: extra field `%s` (here %.60s) (%s)", what, key, v ? v : "?", doc);
            free(v);
        }
    }
}

static void check_events(const char *what, const json_t *events)
{
    /* tictactoe.md, Events: "`marked` | `seat`, `cell`", "`game_over` | `winner`". */
    static const char *doc = "tictactoe.md, Events table";
    if (!json_is_array(events)) {
        violation("%s: `events` is not an array (%s)", what, doc);
        return;
    }
    size_t i;
    json_t *ev;
    json_array_foreach(events, i, ev) {
        const char *t = sget(ev, "type");
        char w[96];
        snprintf(w, sizeof w, "%s event `%s`", what, t != NULL ? t : "?");
        if (t != NULL && strcmp(t, "marked") == 0)
            check_fields(w, ev, "type,seat,cell", "", doc);
        else if (t != NULL && strcmp(t, "game_over") == 0)
            check_fields(w, ev, "type,winner", "", doc);
        else
            violation("%s: an event the ruleset's page does not list (%s)", w, doc);
    }
}

/* Every message is held to the table of protocol.md's *Server messages*. */
static void check_shape(const json_t *m)
{
    static const char *doc = "protocol.md, Server messages table";
    const char *t = sget(m, "type");
    if (strcmp(t, "welcome") == 0) {
        /* "`welcome` | `protocol`, `server`, `limits` {`max_message` (bytes),
         * `commands_per_second` (per connection), `max_queue` (messages),
         * `max_queue_bytes` (bytes)}" */
        check_fields("welcome", m, "type,protocol,server,limits", "id", doc);
        if (json_is_object(json_object_get(m, "limits")))
            check_fields("welcome.limits", json_object_get(m, "limits"),
                         "max_message,commands_per_second,max_queue,max_queue_bytes", "", doc);
    } else if (strcmp(t, "created") == 0) {
        /* "`created` | `game`, `seat`, `token`, `invites`, `version`" */
        check_fields("created", m, "type,game,seat,token,invites,version", "id", doc);
    } else if (strcmp(t, "claimed") == 0) {
        /* "`claimed` | `game`, `seat`, `token`" */
        check_fields("claimed", m, "type,game,seat,token", "id", doc);
    } else if (strcmp(t, "state") == 0) {
        /* "`state` | `game`, `version`, `seat` (null for spectators), `ruleset`,
         * `status`, `state` (with its server section, see *The state*);
         * `forfeit` and `deadline_ms` when they apply (see *Deadlines*); `id`
         * when it answers `join` or `sync`". Deadlines: "the `state` message
         * carries the same `forfeit` next to `status`" (when a seat forfeits)
         * and "a `state` message carries `"deadline_ms"`, the earliest of
         * them" (of the server section's deadlines). */
        const json_t *st = json_object_get(m, "state");
        const json_t *srv = json_object_get(st, "server");
        int forfeit = json_is_string(json_object_get(srv, "forfeit"));
        int deadlines = json_object_size(json_object_get(srv, "deadlines")) > 0;
        char required[128];
        snprintf(required, sizeof required, "type,game,version,seat,ruleset,status,state%s%s",
                 forfeit ? ",forfeit" : "", deadlines ? ",deadline_ms" : "");
        /* Deadlines: "the `state` every connection receives carries
         * `events`, one `{"type":"forfeit","seat","reason"}` per seat" */
        check_fields(forfeit || deadlines ? "state (with its forfeit or deadlines)" : "state", m,
                     required, forfeit ? "id,events" : "id",
                     "protocol.md, Server messages table: `forfeit` and `deadline_ms` when "
                     "they apply, i.e. when the server section has a forfeit or deadlines");
        const char *rs = sget(m, "ruleset");
        /* tictactoe.md, The state: "{"board":"....x...o","turn":"x","winner":null,
         * "moves":2, "server":{...}}"; protocol.md, The state: "plus one key the
         * server owns and no ruleset uses, `server`". */
        if (rs != NULL && strcmp(rs, "tictactoe") == 0)
            check_fields("state.state (tictactoe)", st, "board,turn,winner,moves,server", "",
                         "tictactoe.md, The state; protocol.md, The state");
        /* protocol.md, The state: "server": {"status", "result", "forfeit",
         * "awaiting", "deadlines"}, and "forfeit_reason" once a seat
         * forfeited, "deadlines_left" while a deadline runs */
        if (json_is_object(st))
            check_fields("state.state.server", json_object_get(st, "server"),
                         "status,result,forfeit,awaiting,deadlines",
                         "forfeit_reason,deadlines_left", "protocol.md, The state");
    } else if (strcmp(t, "patch") == 0) {
        /* "`patch` | `game`, `from`, `to`, `by` (the seat whose command it
         * was), `ops` (RFC 6902), `events`" */
        check_fields("patch", m, "type,game,from,to,by,ops,events", "", doc);
        check_events("patch", json_object_get(m, "events"));
    } else if (strcmp(t, "synced") == 0) {
        /* "`synced` | `game`, `version`" */
        check_fields("synced", m, "type,game,version", "id", doc);
    } else if (strcmp(t, "ack") == 0) {
        /* "`ack` | `game`, `seq`, `version`, `events`; `id` when the command
         * had one" */
        check_fields("ack", m, "type,game,seq,version,events", "id", doc);
        check_events("ack", json_object_get(m, "events"));
    } else if (strcmp(t, "error") == 0) {
        /* "`error` | `code`, `message`, and `seq` / `id` / `game` when known";
         * hello: "the error lists the supported versions in `"protocols"`". */
        const char *code = sget(m, "code");
        if (code != NULL && strcmp(code, "unsupported_protocol") == 0)
            check_fields("error unsupported_protocol", m, "type,code,message,protocols",
                         "seq,id,game", "protocol.md, hello and Server messages table");
        else
            check_fields("error", m, "type,code,message", "seq,id,game", doc);
    } else if (strcmp(t, "games") == 0) {
        /* "`games` | `games`: [{`game`, `ruleset`, `scenario`, `status`,
         * `version`, `seats`: {seat: "taken"/"free"}, `awaiting` (the first
         * awaited seat, or null), `spectators` (...), `open_seats`, `watching`
         * (...), `last_move_ms` (...), and `result` once finished (the
         * ruleset's result, or `"forfeit"`)}], `cursor`" */
        check_fields("games", m, "type,games,cursor", "id", doc);
        size_t i;
        json_t *g;
        json_array_foreach(json_object_get(m, "games"), i, g) {
            const char *st = sget(g, "status");
            int finished = st != NULL && strcmp(st, "finished") == 0;
            check_fields(finished ? "games[] entry (finished)" : "games[] entry (not finished)",
                         g,
                         finished ? "game,ruleset,scenario,status,version,seats,awaiting,"
                                    "spectators,open_seats,watching,last_move_ms,result"
                                  : "game,ruleset,scenario,status,version,seats,awaiting,"
                                    "spectators,open_seats,watching,last_move_ms",
                         "", doc);
        }
    } else if (strcmp(t, "record") == 0) {
        /* "`record` | `game`, `record`" */
        check_fields("record", m, "type,game,record", "id", doc);
    } else if (strcmp(t, "setup") == 0) {
        /* "`setup` | `game`, `ruleset`, `scenario` (an object, or null), `options`" */
        check_fields("setup", m, "type,game,ruleset,scenario,options", "id", doc);
        json_t *sc = json_object_get(m, "scenario");
        if (!json_is_object(sc) && !json_is_null(sc))
            violation("setup's scenario is neither an object nor null (%s)", doc);
        if (!json_is_object(json_object_get(m, "options")))
            violation("setup's options is not an object (%s)", doc);
    } else if (strcmp(t, "answer") == 0) {
        /* "`answer` | `game`, `what`, `version`, and by `what`: `svg` (draw),
         * `text` (describe), `orders` (orders), `kind` with `command` and
         * `check`, or with `text` (order), `lines` (events), `candidates`
         * (complete)" */
        const char *w = sget(m, "what") ? sget(m, "what") : "";
        const char *kind = sget(m, "kind") ? sget(m, "kind") : "";
        const char *req = strcmp(w, "draw") == 0       ? "type,game,what,version,svg"
                        : strcmp(w, "describe") == 0   ? "type,game,what,version,text"
                        : strcmp(w, "orders") == 0     ? "type,game,what,version,orders"
                        : strcmp(w, "events") == 0     ? "type,game,what,version,lines"
                        : strcmp(w, "complete") == 0   ? "type,game,what,version,candidates"
                        : strcmp(kind, "command") == 0 ? "type,game,what,version,kind,command,check"
                                                       : "type,game,what,version,kind,text";
        check_fields("answer", m, req, "id", doc);
        size_t i;
        json_t *o;
        json_array_foreach(json_object_get(m, "orders"), i, o)
            check_fields("answer's orders[] entry", o,
                         "name,synopsis,help,example,query,preview", "", doc);
    } else if (strcmp(t, "rulesets") == 0) {
        /* "`rulesets` | `rulesets`: [{`name`, `summary`, `seats`, `options`:
         * [{`name`, `help`}], `needs_scenario`, `default_scenario`,
         * `scenarios`: [{`name`, `title`, `description`}]}], `options`:
         * [{`name`, `help`, `default`}]" */
        check_fields("rulesets", m, "type,rulesets,options", "id", doc);
        size_t i, k;
        json_t *r, *o;
        json_array_foreach(json_object_get(m, "rulesets"), i, r) {
            check_fields("rulesets[] entry", r, "name,summary,seats,options,needs_scenario,"
                         "default_scenario,scenarios", "", doc);
            json_array_foreach(json_object_get(r, "options"), k, o)
                check_fields("rulesets[].options[] entry", o, "name,help", "", doc);
            json_array_foreach(json_object_get(r, "scenarios"), k, o)
                check_fields("rulesets[].scenarios[] entry", o, "name,title,description", "",
                             doc);
        }
        json_array_foreach(json_object_get(m, "options"), i, o)
            check_fields("rulesets options[] entry", o, "name,help,default", "", doc);
    } else if (strcmp(t, "left") == 0) {
        /* "`left` | `game`" */
        check_fields(t, m, "type,game", "id", doc);
    } else if (strcmp(t, "ok") == 0) {
        /* "`ok` | `game`, `mail` (`none`, `pending` or `confirmed`)" */
        check_fields(t, m, "type,game,mail", "id", doc);
        const char *mail = json_string_value(json_object_get(m, "mail"));
        if (mail == NULL || (strcmp(mail, "none") != 0 && strcmp(mail, "pending") != 0 &&
                             strcmp(mail, "confirmed") != 0))
            violation("ok: mail is \"%s\", not none, pending or confirmed (%s)",
                      mail ? mail : "(absent)", doc);
    } else if (strcmp(t, "mail_in") == 0) {
        /* "`mail_in` | `result`; `game`, `seat`, `done`, `refused` unless ignored" */
        const char *r = json_string_value(json_object_get(m, "result"));
        if (r && strcmp(r, "ignored") == 0)
            check_fields(t, m, "type,result", "id", doc);
        else
            check_fields(t, m, "type,result,game,seat,done,refused", "id", doc);
    } else {
        violation("a message of type `%s`, which the table does not have (%s)", t, doc);
    }
}

/* ------------------------------------------------------------------------- */
/* RFC 6902 (JSON Patch) on RFC 6901 pointers, written for this client         */

/* The next reference token of *p (which points at its '/'), unescaped; -1
 * when it is badly escaped or too long. */
static int next_token(const char **p, char *tok, size_t cap)
{
    const char *s = *p + 1;
    size_t n = 0;
    while (*s != '\0' && *s != '/') {
        char ch = *s++;
        if (ch == '~') {
            if (*s == '0')
                ch = '~';
            else if (*s == '1')
                ch = '/';
            else
                return -1;
            s++;
        }
        if (n + 1 >= cap)
            return -1;
        tok[n++] = ch;
    }
    tok[n] = '\0';
    *p = s;
    return 0;
}

/* An array index token: digits without a leading zero, < limit. */
static int array_index(const char *tok, size_t limit, size_t *idx)
{
    if (tok[0] == '\0' || (tok[0] == '0' && tok[1] != '\0'))
        return -1;
    size_t v = 0;
    for (const char *q = tok; *q != '\0'; q++) {
        if (*q < '0' || *q > '9' || v > 100000000)
            return -1;
        v = v * 10 + (size_t)(*q - '0');
    }
    if (v >= limit)
        return -1;
    *idx = v;
    return 0;
}

/* The value at path (borrowed), or NULL. */
static json_t *ptr_get(json_t *doc, const char *path)
{
    char tok[256];
    json_t *cur = doc;
    if (*path != '\0' && *path != '/')
        return NULL;
    while (*path != '\0') {
        if (next_token(&path, tok, sizeof tok) < 0)
            return NULL;
        size_t i;
        if (json_is_object(cur))
            cur = json_object_get(cur, tok);
        else if (json_is_array(cur) && array_index(tok, json_array_size(cur), &i) == 0)
            cur = json_array_get(cur, i);
        else
            return NULL;
        if (cur == NULL)
            return NULL;
    }
    return cur;
}

/* The container holding path's last token (borrowed), that token in last. */
static json_t *ptr_parent(json_t *doc, const char *path, char *last, size_t cap)
{
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        return NULL;
    char head[1024];
    size_t hn = (size_t)(slash - path);
    if (hn >= sizeof head)
        return NULL;
    memcpy(head, path, hn);
    head[hn] = '\0';
    const char *p = slash;
    if (next_token(&p, last, cap) < 0)
        return NULL;
    return ptr_get(doc, head);
}

static int op_add(json_t **doc, const char *path, json_t *value /* borrowed */)
{
    if (*path == '\0') {
        json_decref(*doc);
        *doc = json_deep_copy(value);
        return 0;
    }
    char last[256];
    json_t *parent = ptr_parent(*doc, path, last, sizeof last);
    if (json_is_object(parent))
        return json_object_set_new(parent, last, json_deep_copy(value));
    if (json_is_array(parent)) {
        size_t i;
        if (strcmp(last, "-") == 0)
            return json_array_append_new(parent, json_deep_copy(value));
        if (array_index(last, json_array_size(parent) + 1, &i) < 0)
            return -1;
        return json_array_insert_new(parent, i, json_deep_copy(value));
    }
    return -1;
}

static int op_remove(json_t **doc, const char *path)
{
    char last[256];
    json_t *parent = ptr_parent(*doc, path, last, sizeof last);
    if (json_is_object(parent))
        return json_object_del(parent, last);
    size_t i;
    if (json_is_array(parent) && array_index(last, json_array_size(parent), &i) == 0)
        return json_array_remove(parent, i);
    return -1;
}

static int apply_op(json_t **doc, const json_t *op)
{
    const char *name = sget(op, "op");
    const char *path = sget(op, "path");
    const char *from = sget(op, "from");
    json_t *value = json_object_get(op, "value");
    if (name == NULL || path == NULL)
        return -1;
    if (strcmp(name, "add") == 0)
        return value != NULL ? op_add(doc, path, value) : -1;
    if (strcmp(name, "remove") == 0)
        return op_remove(doc, path);
    if (strcmp(name, "replace") == 0) {
        if (value == NULL || ptr_get(*doc, path) == NULL)
            return -1;
        if (*path != '\0' && op_remove(doc, path) < 0)
            return -1;
        return op_add(doc, path, value);
    }
    if (strcmp(name, "test") == 0) {
        json_t *at = ptr_get(*doc, path);
        return value != NULL && at != NULL && json_equal(at, value) ? 0 : -1;
    }
    if (strcmp(name, "move") == 0 || strcmp(name, "copy") == 0) {
        json_t *src = from != NULL ? ptr_get(*doc, from) : NULL;
        if (src == NULL)
            return -1;
        size_t fl = strlen(from);
        if (name[0] == 'm' && strncmp(path, from, fl) == 0 && path[fl] == '/')
            return -1;                  /* RFC 6902 4.4: not into its own child */
        json_t *v = json_deep_copy(src);
        int rc = name[0] == 'm' ? op_remove(doc, from) : 0;
        if (rc == 0)
            rc = op_add(doc, path, v);
        json_decref(v);
        return rc;
    }
    return -1;
}

/* Apply ops to *doc, all or nothing: 0, or -1 and *doc unchanged. */
static int patch_apply(json_t **doc, const json_t *ops)
{
    if (!json_is_array(ops))
        return -1;
    json_t *work = json_deep_copy(*doc);
    size_t i;
    json_t *op;
    json_array_foreach(ops, i, op) {
        if (apply_op(&work, op) < 0) {
            json_decref(work);
            return -1;
        }
    }
    json_decref(*doc);
    *doc = work;
    return 0;
}

/* ------------------------------------------------------------------------- */
/* A game as a client follows it                                              */

/* What one connection holds of a game: its state and version. */
struct view {
    json_t *state;          /* the `state` field of the last full state, patched since */
    json_int_t version;
};

static void view_release(struct view *v)
{
    json_decref(v->state);
    v->state = NULL;
}

static void view_from_state(struct view *v, const json_t *msg)
{
    json_decref(v->state);
    v->state = json_deep_copy(json_object_get(msg, "state"));
    v->version = json_integer_value(json_object_get(msg, "version"));
    assert_non_null(v->state);
}

/* protocol.md, Server messages: "`patch.ops` turns the `state` the client
 * holds at version `from` into the state at `to`; apply them in order". */
static void view_patch(struct view *v, const json_t *patch, const char *who)
{
    const json_t *from = json_object_get(patch, "from");
    const json_t *to = json_object_get(patch, "to");
    if (!json_is_integer(from) || !json_is_integer(to) || json_integer_value(from) != v->version)
        fail_long("%s: a patch that does not start at the client's version %lld: %s", who,
                  (long long)v->version, dump(patch));
    /* protocol.md, Conventions: "every accepted command raises the game's
     * `version` by one" */
    if (json_integer_value(to) <= json_integer_value(from))
        fail_long("%s: a patch whose `to` is not after its `from`: %s", who, dump(patch));
    if (patch_apply(&v->state, json_object_get(patch, "ops")) < 0)
        fail_long("%s: the patch's ops do not apply (RFC 6902) to the state at %lld: %s "
                  "state: %s", who, (long long)v->version, dump(patch), dump(v->state));
    v->version = json_integer_value(to);
}

struct game {
    char id[64];
    char xtoken[80];
    char otoken[80];
    char invite[48];
};

/* The `state` message's own checks: game, seat, ruleset, version, status and
 * the server section's status. */
static void check_state_msg(const json_t *m, const char *game, const char *seat,
                            json_int_t version, const char *status, const char *who)
{
    assert_str(m, "game", game, who);
    assert_str(m, "ruleset", "tictactoe", who);
    assert_int(m, "version", version, who);
    /* protocol.md, Server messages: "`seat` (null for spectators)" */
    const json_t *s = json_object_get(m, "seat");
    if (seat == NULL ? !json_is_null(s) : !json_is_string(s) ||
                                          strcmp(json_string_value(s), seat) != 0)
        fail_long("%s: `seat` should be %s: %s", who, seat != NULL ? seat : "null", dump(m));
    assert_str(m, "status", status, who);
    /* protocol.md, The state: "`status`: `open`, `running` or `finished` (as
     * `state.status`)" */
    const json_t *srv = json_object_get(json_object_get(m, "state"), "server");
    if (!json_is_object(srv))
        fail_long("%s: the state has no server section (protocol.md, The state: \"plus one "
                  "key the server owns and no ruleset uses, `server`\"): %s", who, dump(m));
    assert_str(srv, "status", status, who);
}

/* The server section's `awaiting` must be want (a JSON text). */
static void check_awaiting(const json_t *state, const char *want, const char *who,
                           const char *doc)
{
    json_t *w = json_loads(want, 0, NULL);
    assert_non_null(w);
    const json_t *got = json_object_get(json_object_get(state, "server"), "awaiting");
    if (got == NULL || !json_equal(got, w))
        fail_long("%s: server.awaiting should be %s (%s): %s", who, want, doc, dump(state));
    json_decref(w);
}

/* Sends create (as x, with options, a JSON text, and id when not NULL). */
static void send_create(struct client *c, const char *options, const json_t *id)
{
    json_t *msg = json_pack("{s:s,s:s,s:s}", "type", "create", "ruleset", "tictactoe", "seat",
                            "x");
    if (options != NULL)
        json_object_set_new(msg, "options", json_loads(options, 0, NULL));
    send_msg(c, msg, id);
}

/* The answers to a create: `created` (echoing id) and the creator's state,
 * in the doc's order unless any_order; fills g and, when v is not NULL, c's
 * view of the game. */
static void expect_created(struct client *c, const json_t *id, int any_order, struct game *g,
                           struct view *v)
{
    /* protocol.md, Conventions: "Each message answering a request comes before
     * anything the request leads to: `created` before the creator's `state`";
     * create: "The creator is joined to the game and receives its `state`
     * right after `created`." */
    json_t *cr, *st;
    expect_answer_and_state(c, "created", id, any_order,
                            DOC_ORDER "; create: \"The creator is joined to the game and "
                                      "receives its `state` right after `created`.\"",
                            &cr, &st);
    snprintf(g->id, sizeof g->id, "%s", sget(cr, "game") ? sget(cr, "game") : "");
    snprintf(g->xtoken, sizeof g->xtoken, "%s", sget(cr, "token") ? sget(cr, "token") : "");
    const char *inv = sget(json_object_get(cr, "invites"), "o");
    snprintf(g->invite, sizeof g->invite, "%s", inv != NULL ? inv : "");
    /* protocol.md, create: "`created`: {"type":"created","game":...,
     * "seat":"french","token":"<64 hex>","invites":{"allied":"<32 hex>"},
     * "version":0}"; "One invite per other seat." */
    if (g->id[0] == '\0' || !is_hex(g->xtoken, 64) || !is_hex(g->invite, 32) ||
        json_object_size(json_object_get(cr, "invites")) != 1)
        fail_long("created: a game id, a 64-hex token and one 32-hex invite, for o, expected "
                  "(protocol.md, Conventions and create): %s", dump(cr));
    assert_str(cr, "seat", "x", "created");
    assert_int(cr, "version", 0, "created");
    json_decref(cr);
    check_state_msg(st, g->id, "x", 0, "open", "the creator's state");
    if (v != NULL)
        view_from_state(v, st);
    json_decref(st);
}

/* Creates a game as x on c (see expect_created). */
static void create_game(struct client *c, const char *options, int any_order, struct game *g,
                        struct view *v)
{
    send_create(c, options, NULL);
    expect_created(c, NULL, any_order, g, v);
}

/* o claims g by invite on c (a new connection, hello done): `claimed` (with
 * id), then the state, running (in that order unless any_order). Fills
 * g->otoken and v. */
static void claim_game(struct client *c, struct game *g, struct view *v, const json_t *id,
                       int any_order)
{
    send_msg(c, json_pack("{s:s,s:s}", "type", "claim", "invite", g->invite), id);
    /* protocol.md, claim: "Answer: `claimed` `{"game","seat","token"}`; the
     * claimer is joined and receives the `state` right after it. When the
     * claim fills the game's last seat the game starts ... and every
     * connection of the game receives a full `state`: the claimer's is that
     * one." */
    json_t *cl, *st;
    expect_answer_and_state(c, "claimed", id, any_order,
                            DOC_ORDER "; claim: \"the claimer is joined and receives the "
                                      "`state` right after it\"",
                            &cl, &st);
    assert_str(cl, "game", g->id, "claimed");
    assert_str(cl, "seat", "o", "claimed");
    if (!is_hex(sget(cl, "token"), 64))
        fail_long("claimed: `token` should be 64 hex digits (protocol.md, Conventions): %s",
                  dump(cl));
    snprintf(g->otoken, sizeof g->otoken, "%s", sget(cl, "token"));
    json_decref(cl);
    check_state_msg(st, g->id, "o", 0, "running", "the claimer's state");
    if (v != NULL)
        view_from_state(v, st);
    json_decref(st);
}

/* The full state a connection already joined receives when the game starts. */
static void expect_start_state(struct client *c, const struct game *g, const char *seat,
                               struct view *v)
{
    /* protocol.md, claim: "When the claim fills the game's last seat the game
     * starts (`status` `running`, ...) and every connection of the game
     * receives a full `state`". */
    json_t *st = expect(c, "state", NULL,
                        "protocol.md, claim: \"every connection of the game receives a full "
                        "`state`\" when the last seat is claimed");
    check_state_msg(st, g->id, seat, 0, "running", c->name);
    if (v != NULL)
        view_from_state(v, st);
    json_decref(st);
}

static void send_mark(struct client *c, const struct game *g, json_int_t seq, int cell,
                      const json_t *id)
{
    send_msg(c, json_pack("{s:s,s:s,s:I,s:{s:s,s:i}}", "type", "command", "game", g->id, "seq",
                          seq, "cmd", "type", "mark", "cell", cell), id);
}

/* The actor marks cell; every client of all[] (the actor among them) must
 * receive the patch, the actor then its ack; each view follows by the patch
 * alone. Returns the actor's patch (caller frees). */
static json_t *play_mark(struct client *actor, json_int_t seq, int cell, const struct game *g,
                         struct client **all, struct view *views, size_t n)
{
    send_mark(actor, g, seq, cell, NULL);
    json_t *mine = NULL;
    for (size_t i = 0; i < n; i++) {
        /* protocol.md, Server messages: "`patch` ... after every accepted
         * command, to every connection of the game" and command: "by then the
         * `patch` carrying its effect has been sent to every connection of the
         * game". */
        json_t *p = expect(all[i], "patch", NULL,
                           "protocol.md, command: \"by then the `patch` carrying its effect "
                           "has been sent to every connection of the game\"");
        assert_str(p, "game", g->id, all[i]->name);
        assert_int(p, "to", views[i].version + 1, all[i]->name);
        view_patch(&views[i], p, all[i]->name);
        if (all[i] == actor)
            mine = p;
        else
            json_decref(p);
    }
    assert_non_null(mine);
    /* protocol.md, command: "`ack` comes only after the command is durably
     * stored; by then the `patch` carrying its effect has been sent"; the
     * ack echoes `seq`; "the `ack` carries the same events as the sender's
     * `patch`". */
    json_t *ack = expect(actor, "ack", NULL, "protocol.md, command: \"The answer is `ack`\"");
    assert_str(ack, "game", g->id, "ack");
    assert_int(ack, "seq", seq, "ack");
    assert_int(ack, "version", json_integer_value(json_object_get(mine, "to")), "ack");
    if (!json_equal(json_object_get(ack, "events"), json_object_get(mine, "events")))
        fail_long("ack: \"the `ack` carries the same events as the sender's `patch`\" "
                  "(protocol.md): ack %s, patch %s", dump(ack), dump(mine));
    json_decref(ack);
    return mine;
}

/* Expects the next message to be a command's error with code, echoing seq
 * (as sent) and naming the game. */
static void expect_command_error(struct client *c, const char *code, const json_t *seq,
                                 const char *game, const json_t *id, const char *doc,
                                 const char *want_message)
{
    json_t *e = expect(c, "error", id, doc);
    if (sget(e, "code") == NULL || strcmp(sget(e, "code"), code) != 0)
        fail_long("%s: error `%s` expected (%s): %s", c->name, code, doc, dump(e));
    /* protocol.md, Conventions: "`ack` and a command's `error` echo `seq`, and
     * a command's `error` names its `game`, even when the message was refused
     * for its shape (a `seq` that is not an integer is echoed as sent)". */
    const json_t *s = json_object_get(e, "seq");
    if (s == NULL || !json_equal(s, seq))
        fail_long("%s: the error should echo seq %s as sent (protocol.md, Conventions: \"a "
                  "`seq` that is not an integer is echoed as sent\"): %s", c->name, dump(seq),
                  dump(e));
    const char *gm = sget(e, "game");
    if (gm == NULL || strcmp(gm, game) != 0)
        fail_long("%s: the error should name game %s (protocol.md, Conventions: \"a "
                  "command's `error` names its `game`, even when the message was refused for "
                  "its shape\"): %s", c->name, game, dump(e));
    if (!json_is_string(json_object_get(e, "message")))
        fail_long("%s: an error without its `message`: %s", c->name, dump(e));
    if (want_message != NULL && strcmp(sget(e, "message"), want_message) != 0)
        fail_long("%s: the `%s` message should be \"%s\" (%s): %s", c->name, code,
                  want_message, doc, dump(e));
    json_decref(e);
}

/* A fresh connection joins g (as the seat of token, or as a spectator when
 * token is NULL) and its state must equal v, built from patches. */
static void compare_with_fresh_join(const struct game *g, const char *token, const char *seat,
                                    const struct view *v, const char *who)
{
    struct client *f = connect_hello("fresh");
    json_t *join = token != NULL
                       ? json_pack("{s:s,s:s,s:s}", "type", "join", "game", g->id, "token", token)
                       : json_pack("{s:s,s:s,s:b}", "type", "join", "game", g->id, "spectate", 1);
    json_t *id = json_string("fresh-join");
    send_msg(f, join, id);
    /* protocol.md, join: "Answer: `state` (full projection, echoing `id`)." */
    json_t *st = expect(f, "state", id, "protocol.md, join: \"Answer: `state` (full projection, "
                                        "echoing `id`)\"");
    json_decref(id);
    const json_t *srv = json_object_get(json_object_get(st, "state"), "server");
    check_state_msg(st, g->id, seat, v->version, sget(srv, "status") ? sget(srv, "status") : "?",
                    "a fresh join's state");
    /* protocol.md, Conventions: "States and patches carry versions, so a
     * client always knows exactly what it has." */
    if (json_integer_value(json_object_get(st, "version")) != v->version ||
        !json_equal(json_object_get(st, "state"), v->state))
        fail_long("%s: the state built by applying patches differs from a fresh join's at "
                  "version %lld (protocol.md, Server messages: \"`patch.ops` turns the `state` "
                  "the client holds at version `from` into the state at `to`\"):\n  patches: "
                  "%s\n  join:    %s", who, (long long)v->version, dump(v->state), dump(st));
    json_decref(st);
    client_close(f);
}

/* ------------------------------------------------------------------------- */
/* Rows                                                                       */

static int row_setup(void **unused)
{
    (void)unused;
    static const char *const args[] = { "--scenarios", WARROOM_SCENARIO_DIR, NULL };
    if (wt_server_start(&g_srv, args) != 0)
        return -1;
    g_srv_up = 1;
    return 0;
}

static void example_release(void);     /* row 13's page, read by example_read() */

static int row_teardown(void **unused)
{
    (void)unused;
    for (size_t i = 0; i < MAX_CLIENTS; i++)
        if (g_clients[i] != NULL)
            client_close(g_clients[i]);
    int rc = 0;
    if (g_srv_up) {
        int status = wt_server_stop(&g_srv, SIGTERM, 10000);
        if (status != 0) {
            fprintf(stderr, "warroomd did not stop cleanly on SIGTERM (wait status %d)\n",
                    status);
            rc = -1;
        }
        wt_server_cleanup(&g_srv);
        g_srv_up = 0;
    }
    example_release();
    while (g_ndumps > 0)
        free(g_dumps[--g_ndumps]);
    return rc;
}

/* Row 1: on create, `created` comes first, then the creator's `state`, once. */
static void row01_create_then_state(void **unused)
{
    (void)unused;
    struct client *x = connect_hello("x");
    struct game g;
    /* protocol.md, Conventions: "`created` before the creator's `state`";
     * create: "The creator is joined to the game and receives its `state`
     * right after `created`." (create_game checks both, in that order.) */
    create_game(x, NULL, 0, &g, NULL);
    /* Once: nothing else is sent to the creator of an open game. */
    expect_nothing_else(x, "protocol.md, create: the creator receives its `state` right after "
                           "`created`, once; nothing else happens in an open game");
}

/* Row 2: on claim, `claimed` then the claimer's `state`; the claim that fills
 * the last seat gives every connection (creator, a spectator joined before,
 * the claimer) one full running state, and the claimer only that one. Then
 * the same by lobby claim of an open seat. */
static void row02_claim_then_state(void **unused)
{
    (void)unused;
    for (int lobby = 0; lobby <= 1; lobby++) {
        struct client *x = connect_hello(lobby ? "x(lobby)" : "x");
        struct client *s = connect_hello(lobby ? "spectator(lobby)" : "spectator");
        struct client *o = connect_hello(lobby ? "o(lobby)" : "o");
        struct game g;
        create_game(x, lobby ? "{\"open_seats\":true}" : NULL, 1, &g, NULL);
        json_t *sid = json_string("watch");
        send_msg(s, json_pack("{s:s,s:s,s:b}", "type", "join", "game", g.id, "spectate", 1), sid);
        json_t *st = expect(s, "state", sid, "protocol.md, join: \"Answer: `state`\"");
        json_decref(sid);
        check_state_msg(st, g.id, NULL, 0, "open", "a spectator's join before the start");
        json_decref(st);

        if (lobby) {
            /* protocol.md, claim: "or, for a game with open seats,
             * {"type":"claim","game":"g-...","seat":"allied"}". */
            send_msg(o, json_pack("{s:s,s:s,s:s}", "type", "claim", "game", g.id, "seat", "o"),
                     NULL);
            json_t *cl = expect(o, "claimed", NULL, DOC_ORDER);
            assert_str(cl, "seat", "o", "claimed (lobby)");
            assert_str(cl, "game", g.id, "claimed (lobby)");
            json_decref(cl);
            json_t *cs = expect(o, "state", NULL,
                                "protocol.md, claim: \"the claimer is joined and receives the "
                                "`state` right after it\"");
            check_state_msg(cs, g.id, "o", 0, "running", "the lobby claimer's state");
            json_decref(cs);
        } else {
            claim_game(o, &g, NULL, NULL, 0);
        }
        /* protocol.md, claim: "every connection of the game receives a full
         * `state`: the claimer's is that one." So the claimer has one state,
         * and each other connection one as well. */
        expect_nothing_else(o, "protocol.md, claim: \"every connection of the game receives a "
                               "full `state`: the claimer's is that one\" (one state, once)");
        expect_start_state(x, &g, "x", NULL);
        expect_nothing_else(x, "protocol.md, claim: the creator receives one full `state` "
                               "when the last seat is claimed");
        expect_start_state(s, &g, NULL, NULL);
        expect_nothing_else(s, "protocol.md, claim: a spectator receives one full `state` "
                               "when the last seat is claimed");
        client_close(x);
        client_close(s);
        client_close(o);
    }
}

/* Row 3: every direct answer the doc lists echoes `id`, strings and integers
 * alike: welcome, created, claimed, the state answering join and sync,
 * synced, games, record, left, ok, error. */
static void row03_id_echoed(void **unused)
{
    (void)unused;
    json_t *cmd_sent[2] = { NULL, NULL }, *cmd_echo[2] = { NULL, NULL };
    for (int kind = 0; kind <= 1; kind++) {
        /* protocol.md, Conventions: "Any client message may carry `"id"` (a
         * string or integer of the client's choosing); every direct answer
         * echoes it". */
        json_t *ids[12];
        for (int i = 0; i < 12; i++) {
            static const char *const strs[12] = { "hello", "", "claim-\xc3\xa9", "join",
                                                  "sync-0", "sync-1", "list", "export",
                                                  "notify", "leave", "no-game", "cmd" };
            static const json_int_t ints[12] = { 0, 1, 9007199254740991LL, -7, 42, 43,
                                                 1000000, 5, 6, 7, 8, 9 };
            ids[i] = kind == 0 ? json_string(strs[i]) : json_integer(ints[i]);
        }
        struct client *x = client_open(kind ? "x(int ids)" : "x(string ids)");
        send_msg(x, json_pack("{s:s,s:i}", "type", "hello", "protocol", 1), ids[0]);
        json_decref(expect(x, "welcome", ids[0], DOC_ID));

        struct game g;
        send_create(x, NULL, ids[1]);
        expect_created(x, ids[1], 1, &g, NULL);

        struct view views[3] = { { NULL, 0 }, { NULL, 0 }, { NULL, 0 } };
        struct client *o = connect_hello(kind ? "o(int ids)" : "o(string ids)");
        claim_game(o, &g, &views[1], ids[2], 1);
        expect_start_state(x, &g, "x", &views[0]);

        struct client *s = connect_hello(kind ? "spectator(int ids)" : "spectator(string ids)");
        send_msg(s, json_pack("{s:s,s:s,s:b}", "type", "join", "game", g.id, "spectate", 1),
                 ids[3]);
        json_t *js = expect(s, "state", ids[3], DOC_ID);
        view_from_state(&views[2], js);
        json_decref(js);

        struct client *all[3] = { x, o, s };
        json_decref(play_mark(x, 1, 4, &g, all, views, 3));
        json_decref(play_mark(o, 1, 8, &g, all, views, 3));
        for (int i = 0; i < 3; i++)
            view_release(&views[i]);

        /* sync from 0: whichever answer the doc allows (a full state, or
         * patches then synced), its direct answer echoes id. */
        send_msg(x, json_pack("{s:s,s:s,s:i}", "type", "sync", "game", g.id, "since", 0), ids[4]);
        json_t *m = recv_msg(x);
        while (m != NULL && strcmp(sget(m, "type"), "patch") == 0) {
            if (json_object_get(m, "id") != NULL)
                fail_long("a patch answering sync carries an id (%s): %s", DOC_ID, dump(m));
            json_decref(m);
            m = recv_msg(x);
        }
        if (m == NULL || (strcmp(sget(m, "type"), "state") != 0 &&
                          strcmp(sget(m, "type"), "synced") != 0))
            fail_long("sync: neither a state nor patches then synced: %s",
                      m != NULL ? dump(m) : "nothing");
        if (!json_equal(json_object_get(m, "id"), ids[4]))
            fail_long("the %s answering sync should echo id %s (%s): %s", sget(m, "type"),
                      dump(ids[4]), DOC_ID, dump(m));
        json_decref(m);
        /* sync from 1: patches, then synced echoing id. */
        send_msg(x, json_pack("{s:s,s:s,s:i}", "type", "sync", "game", g.id, "since", 1), ids[5]);
        json_decref(expect(x, "patch", NULL, "protocol.md, sync: \"the `patch`es from 41 to the "
                                             "current version, then `synced`\""));
        json_decref(expect(x, "synced", ids[5], DOC_ID));

        send_msg(x, json_pack("{s:s}", "type", "list"), ids[6]);
        json_decref(expect(x, "games", ids[6], DOC_ID));
        send_msg(x, json_pack("{s:s,s:s}", "type", "export", "game", g.id), ids[7]);
        json_decref(expect(x, "record", ids[7], DOC_ID));
        send_msg(s, json_pack("{s:s,s:s}", "type", "setup", "game", g.id), ids[7]);
        json_decref(expect(s, "setup", ids[7], DOC_ID));
        send_msg(s, json_pack("{s:s,s:s,s:s}", "type", "ask", "game", g.id, "what", "describe"),
                 ids[7]);
        json_decref(expect(s, "answer", ids[7], DOC_ID));
        send_msg(x, json_pack("{s:s,s:s,s:n}", "type", "notify", "game", g.id, "webhook"),
                 ids[8]);
        json_decref(expect(x, "ok", ids[8], DOC_ID));
        send_msg(s, json_pack("{s:s,s:s}", "type", "leave", "game", g.id), ids[9]);
        json_decref(expect(s, "left", ids[9], DOC_ID));
        /* protocol.md, join: "Errors: ... `no_such_game`". */
        send_msg(x, json_pack("{s:s,s:s,s:b}", "type", "join", "game", "g-000000000000",
                              "spectate", 1), ids[10]);
        json_t *e = expect(x, "error", ids[10], DOC_ID);
        assert_str(e, "code", "no_such_game", "join of an unknown game");
        json_decref(e);
        /* A refused command (o marks out of turn): its error echoes seq and
         * names the game; whether it echoes id is checked after both kinds
         * of id, below. */
        json_t *seq = json_integer(2);
        send_mark(o, &g, 2, 0, ids[11]);
        expect_command_error(o, "not_your_turn", seq, g.id, ID_UNCHECKED, DOC_ID, NULL);
        json_decref(seq);
        cmd_sent[kind] = json_incref(ids[11]);
        cmd_echo[kind] = o->last_id;
        o->last_id = NULL;
        for (int i = 0; i < 12; i++)
            json_decref(ids[i]);
        client_close(x);
        client_close(o);
        client_close(s);
    }
    /* protocol.md, Conventions: "every direct answer echoes it (... `ok`, and
     * `error`)" and Server messages: "`error` | `code`, `message`, and `seq` /
     * `id` / `game` when known". A command's error is a direct answer to a
     * message that carried an id. */
    const char *bad_sent = NULL, *bad_echo = NULL;
    for (int kind = 0; kind <= 1; kind++) {
        if (bad_sent == NULL &&
            (cmd_echo[kind] == NULL || !json_equal(cmd_echo[kind], cmd_sent[kind]))) {
            bad_sent = dump(cmd_sent[kind]);
            bad_echo = cmd_echo[kind] != NULL ? dump(cmd_echo[kind]) : "no id";
        }
        json_decref(cmd_echo[kind]);
        json_decref(cmd_sent[kind]);
    }
    if (bad_sent != NULL)
        fail_long("a refused command's `error` should echo the command's id %s (%s); it "
                  "echoed %s", bad_sent, DOC_ID, bad_echo);
}

/* Row 4: a whole game (the doc's example, x wins on 2-4-6), followed by both
 * seats and a spectator by patches alone; each is compared with a fresh
 * join's state at every version, and the last patch says the game is over. */
static void row04_game_to_the_end_by_patches(void **unused)
{
    (void)unused;
    struct client *x = connect_hello("x");
    struct client *o = connect_hello("o");
    struct client *s = connect_hello("spectator");
    struct game g;
    struct view views[3] = { { NULL, 0 }, { NULL, 0 }, { NULL, 0 } };
    create_game(x, NULL, 1, &g, &views[0]);
    claim_game(o, &g, &views[1], NULL, 1);
    expect_start_state(x, &g, "x", &views[0]);
    json_t *sid = json_integer(3);
    send_msg(s, json_pack("{s:s,s:s,s:b}", "type", "join", "game", g.id, "spectate", 1), sid);
    json_t *st = expect(s, "state", sid, "protocol.md, join: \"Answer: `state`\"");
    json_decref(sid);
    check_state_msg(st, g.id, NULL, 0, "running", "the spectator's join");
    view_from_state(&views[2], st);
    json_decref(st);

    struct client *all[3] = { x, o, s };
    static const char *const seats[3] = { "x", "o", NULL };
    const char *tokens[3] = { g.xtoken, g.otoken, NULL };
    static const int cells[5] = { 4, 8, 2, 1, 6 };
    for (int i = 0; i < 3; i++)
        compare_with_fresh_join(&g, tokens[i], seats[i], &views[i], all[i]->name);
    /* protocol.md, The state: "`awaiting`: every seat whose decision the game
     * awaits now, each with what it must send (the ruleset's word, such as
     * `mark`...)". */
    check_awaiting(views[2].state, "{\"x\":\"mark\"}", "version 0",
                   "protocol.md, The state: awaiting");
    json_t *last = NULL;
    for (int k = 0; k < 5; k++) {
        struct client *actor = k % 2 == 0 ? x : o;
        json_decref(last);
        last = play_mark(actor, k / 2 + 1, cells[k], &g, all, views, 3);
        for (int i = 0; i < 3; i++) {
            /* protocol.md, Server messages: only patches after a command; a
             * full `state` goes out only on the start, a forfeit, or "when
             * patches are not enough". */
            expect_nothing_else(all[i], "protocol.md, Server messages: after an accepted "
                                        "command every connection gets its `patch` (and the "
                                        "sender its `ack`), nothing else");
            compare_with_fresh_join(&g, tokens[i], seats[i], &views[i], all[i]->name);
        }
        if (k < 4)
            check_awaiting(views[2].state, k % 2 == 0 ? "{\"o\":\"mark\"}" : "{\"x\":\"mark\"}",
                           "a running game", "protocol.md, The state: awaiting");
    }
    /* protocol.md, The state: "It changes like the rest of the state, so
     * patches carry it: the `patch` of the command that ends a game sets
     * `/server/status` to `finished`." and Example session: "The game goes
     * on until a `patch` sets `/server/status` to `finished` (with
     * `/server/result`)". Every connection's state, built by patches only,
     * must say so. */
    for (int i = 0; i < 3; i++) {
        const json_t *srv = json_object_get(views[i].state, "server");
        if (sget(srv, "status") == NULL || strcmp(sget(srv, "status"), "finished") != 0 ||
            sget(srv, "result") == NULL || strcmp(sget(srv, "result"), "x") != 0)
            fail_long("%s: after the last patch the state built from patches should have "
                      "server.status \"finished\" and server.result \"x\" (protocol.md, The "
                      "state: \"the `patch` of the command that ends a game sets "
                      "`/server/status` to `finished`\"; \"`result`: ... then the ruleset's "
                      "result (a seat, `\"draw\"`, ...)\"): %s; last patch %s", all[i]->name,
                      dump(views[i].state), dump(last));
        /* "`awaiting`: ... empty while a seat is unclaimed and once the game
         * is over" */
        check_awaiting(views[i].state, "{}", all[i]->name,
                       "protocol.md, The state: awaiting is empty once the game is over");
        /* tictactoe.md, The end: "its `patch` sets the state's `winner`,
         * makes `turn` `null`" */
        if (!json_is_null(json_object_get(views[i].state, "turn")) ||
            sget(views[i].state, "winner") == NULL ||
            strcmp(sget(views[i].state, "winner"), "x") != 0)
            fail_long("%s: tictactoe.md, The end: winner \"x\" and turn null: %s", all[i]->name,
                      dump(views[i].state));
    }
    /* The last patch itself names /server/status and /server/result. */
    int has_status = 0, has_result = 0;
    size_t i;
    json_t *op;
    json_array_foreach(json_object_get(last, "ops"), i, op) {
        const char *p = sget(op, "path");
        if (p != NULL && (strcmp(p, "/server/status") == 0 || strcmp(p, "/server") == 0))
            has_status = 1;
        if (p != NULL && (strcmp(p, "/server/result") == 0 || strcmp(p, "/server") == 0))
            has_result = 1;
    }
    if (!has_status || !has_result)
        fail_long("the last patch should set /server/status and /server/result (protocol.md, "
                  "Example session: \"a `patch` sets `/server/status` to `finished` (with "
                  "`/server/result`)\"): %s", dump(last));
    /* tictactoe.md, The end: "The last `mark` carries `game_over`". */
    json_t *evs = json_object_get(last, "events");
    json_t *lastev = json_array_get(evs, json_array_size(evs) - 1);
    assert_str(lastev, "type", "game_over", "the last patch's last event");
    assert_str(lastev, "winner", "x", "the last patch's game_over event");
    json_decref(last);
    for (int k = 0; k < 3; k++)
        view_release(&views[k]);
}

/* Row 5: sync answers patches then `synced`; `synced` alone when current; a
 * full `state` (echoing id) from a version before the start. */
static void row05_sync(void **unused)
{
    (void)unused;
    struct client *x = connect_hello("x");
    struct client *o = connect_hello("o");
    struct game g;
    struct view views[2] = { { NULL, 0 }, { NULL, 0 } };
    create_game(x, NULL, 1, &g, &views[0]);
    claim_game(o, &g, &views[1], NULL, 1);
    expect_start_state(x, &g, "x", &views[0]);
    struct client *all[2] = { x, o };
    json_t *snap[4] = { NULL, NULL, NULL, NULL };
    snap[0] = json_deep_copy(views[0].state);
    json_decref(play_mark(x, 1, 4, &g, all, views, 2));
    snap[1] = json_deep_copy(views[0].state);
    json_decref(play_mark(o, 1, 8, &g, all, views, 2));
    snap[2] = json_deep_copy(views[0].state);

    /* protocol.md, sync: "When it no longer holds those patches ..., or when
     * the game's server section changed since then without a command (the
     * game started, or ended by forfeit; see *The state*), it answers with a
     * full `state` (echoing `id`) instead." and The state: "a `sync` from a
     * version before it is answered with a full `state`." x held version 0
     * before the start (the open state); the game started since, without a
     * command. */
    json_t *id = json_integer(100);
    send_msg(x, json_pack("{s:s,s:s,s:i}", "type", "sync", "game", g.id, "since", 0), id);
    json_t *st = expect(x, "state", id,
                        "protocol.md, sync: a full `state` (echoing `id`) \"when the game's "
                        "server section changed since then without a command (the game "
                        "started...)\"; The state: \"a `sync` from a version before it is "
                        "answered with a full `state`\"");
    json_decref(id);
    check_state_msg(st, g.id, "x", 2, "running", "the state answering sync from before the start");
    if (!json_equal(json_object_get(st, "state"), views[0].state))
        fail_long("the state answering sync differs from the client's at version 2: %s vs %s",
                  dump(st), dump(views[0].state));
    json_decref(st);
    expect_nothing_else(x, "protocol.md, sync: a full `state` instead (of patches and synced)");

    json_decref(play_mark(x, 2, 2, &g, all, views, 2));
    snap[3] = json_deep_copy(views[0].state);

    /* protocol.md, sync: "The server answers with the `patch`es from 41 to the
     * current version, then `synced` `{"game","version"}` (echoing `id`)". */
    id = json_string("since-1");
    send_msg(x, json_pack("{s:s,s:s,s:i}", "type", "sync", "game", g.id, "since", 1), id);
    struct view back = { json_deep_copy(snap[1]), 1 };
    while (back.version < 3) {
        json_t *p = expect(x, "patch", NULL,
                           "protocol.md, sync: \"the `patch`es from 41 to the current version, "
                           "then `synced`\"");
        assert_str(p, "game", g.id, "a patch answering sync");
        view_patch(&back, p, "sync from 1");
        json_decref(p);
    }
    if (back.version != 3 || !json_equal(back.state, snap[3]))
        fail_long("sync from 1: the patches lead to %s at %lld, not the state at 3 %s",
                  dump(back.state), (long long)back.version, dump(snap[3]));
    view_release(&back);
    json_t *sy = expect(x, "synced", id, "protocol.md, sync: \"then `synced` "
                                         "`{\"game\",\"version\"}` (echoing `id`)\"");
    assert_str(sy, "game", g.id, "synced");
    assert_int(sy, "version", 3, "synced");
    json_decref(sy);
    json_decref(id);
    expect_nothing_else(x, "protocol.md, sync: patches, then `synced`, and nothing more");

    /* protocol.md, sync: "`since` equal to the current version gives `synced`
     * alone." */
    id = json_integer(7);
    send_msg(x, json_pack("{s:s,s:s,s:i}", "type", "sync", "game", g.id, "since", 3), id);
    sy = expect(x, "synced", id, "protocol.md, sync: \"`since` equal to the current version "
                                 "gives `synced` alone\"");
    assert_int(sy, "version", 3, "synced (current)");
    json_decref(sy);
    json_decref(id);
    expect_nothing_else(x, "protocol.md, sync: \"`since` equal to the current version gives "
                           "`synced` alone\"");
    expect_nothing_else(o, "o received the three patches and its ack only");
    for (int i = 0; i < 4; i++)
        json_decref(snap[i]);
    view_release(&views[0]);
    view_release(&views[1]);
}

/* One `list` answer: its games' ids (a JSON array, caller frees) and its
 * cursor (copied into cursor_out, "" when null). */
static json_t *list_page(struct client *c, json_t *req, char *cursor_out, size_t cap)
{
    json_t *id = json_string("page");
    send_msg(c, req, id);
    json_t *m = expect(c, "games", id, "protocol.md, list: \"Answer: `games` "
                                       "`{\"games\":[...],\"cursor\":\"...\"}`\"");
    json_decref(id);
    json_t *ids = json_array();
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(m, "games"), i, e) {
        if (!json_is_string(json_object_get(e, "game")))
            fail_long("list: an entry without its game id: %s", dump(m));
        json_array_append(ids, json_object_get(e, "game"));
    }
    const json_t *cur = json_object_get(m, "cursor");
    if (!json_is_string(cur) && !json_is_null(cur))
        fail_long("list: `cursor` is neither a string nor null: %s", dump(m));
    snprintf(cursor_out, cap, "%s", json_is_string(cur) ? json_string_value(cur) : "");
    json_decref(m);
    return ids;
}

static json_t *id_array(const char *const *ids, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_string(ids[i]));
    return a;
}

/* got (a JSON array of ids; stolen) must hold exactly the ids of want, in
 * that order when ordered, else in any order. */
static void assert_ids(json_t *got, const char *const *want, size_t n, int ordered,
                       const char *doc)
{
    json_t *w = id_array(want, n);
    int same = json_array_size(got) == n;
    for (size_t i = 0; same && i < n; i++) {
        if (ordered) {
            same = json_equal(json_array_get(got, i), json_array_get(w, i));
        } else {
            int found = 0;
            for (size_t j = 0; j < n; j++)
                found |= json_equal(json_array_get(got, j), json_array_get(w, i));
            same = found;
        }
    }
    const char *wtext = same ? NULL : dump(w), *gtext = same ? NULL : dump(got);
    json_decref(w);
    json_decref(got);
    if (!same)
        fail_long("list: %s: want %s%s, got %s", doc, wtext, ordered ? "" : " (any order)",
                  gtext);
}

/* Row 6: list pages by limit and cursor, the last page's cursor null; a game
 * with spectators off and seats by invite is not listed, but `filter.games`
 * finds it; filters and bad arguments. (Which game comes first is row 7's.) */
static void row06_list_paging(void **unused)
{
    (void)unused;
    struct client *x = connect_hello("x");
    struct game g[6];
    /* created in this order: g0, g1, the private gp (index 2), g3, g4
     * (spectators off, open seats on), g5. */
    static const char *const opts[6] = { NULL, NULL, "{\"spectators\":false,\"open_seats\":false}",
                                         NULL, "{\"spectators\":false,\"open_seats\":true}", NULL };
    for (int i = 0; i < 6; i++)
        create_game(x, opts[i], 1, &g[i], NULL);
    const char *listed[5] = { g[5].id, g[4].id, g[3].id, g[1].id, g[0].id };
    char cursor[512];
    /* protocol.md, list: "the lobby, a page at a time, newest game first. It
     * shows the games anyone may see: those that allow spectators or whose
     * seats anyone may claim (`open_seats`); a game with neither is never
     * listed, only found by its id." "`limit`: games per page"; "`cursor`:
     * where the page starts: the `cursor` of the previous answer."; "Answer:
     * `games` `{"games":[...],"cursor":"..."}`, `cursor` null on the last
     * page." Three pages of 2, 2 and 1 hold the five listed games, once each. */
    json_t *seen = json_array();
    size_t sizes[3];
    for (int page = 0; page < 3; page++) {
        json_t *req = json_pack("{s:s,s:i}", "type", "list", "limit", 2);
        if (page > 0)
            json_object_set_new(req, "cursor", json_string(cursor));
        json_t *ids = list_page(x, req, cursor, sizeof cursor);
        sizes[page] = json_array_size(ids);
        json_array_extend(seen, ids);
        json_decref(ids);
        if ((page < 2) != (cursor[0] != '\0'))
            fail_long("list: page %d of 3 (limit 2, 5 listed games): its cursor should be %s "
                      "(protocol.md, list: \"`cursor` null on the last page\"); pages so far %s",
                      page + 1, page < 2 ? "a string" : "null", dump(seen));
    }
    if (sizes[0] != 2 || sizes[1] != 2 || sizes[2] != 1)
        fail_long("list: limit 2 over 5 listed games should give pages of 2, 2 and 1 "
                  "(protocol.md, list: \"`limit`: games per page\"): %s", dump(seen));
    assert_ids(seen, listed, 5, 0, "the three pages hold each listed game once, never the one "
                                   "with neither spectators nor open seats");
    /* "`limit`: games per page, 1 to 200 (default 50)": one page, the last. */
    json_t *ids = list_page(x, json_pack("{s:s}", "type", "list"), cursor, sizeof cursor);
    assert_ids(ids, listed, 5, 0, "default limit: the five listed games on one page");
    if (cursor[0] != '\0')
        fail_long("list: the default limit holds all 5 games: that page is the last and its "
                  "cursor should be null (protocol.md, list), not \"%s\"", cursor);
    ids = list_page(x, json_pack("{s:s,s:i}", "type", "list", "limit", 5), cursor, sizeof cursor);
    assert_ids(ids, listed, 5, 0, "limit 5: the five listed games");
    if (cursor[0] != '\0')
        fail_long("list: limit 5 over 5 listed games: that page is the last and its cursor "
                  "should be null (protocol.md, list: \"`cursor` null on the last page\"), not "
                  "\"%s\"", cursor);
    /* "`filter.games`: a list of up to 200 game ids: those games, listed or
     * not, in that order (unknown ids are left out)" */
    const char *mine[3] = { g[2].id, g[0].id, g[4].id };
    ids = list_page(x, json_pack("{s:s,s:{s:[s,s,s,s]}}", "type", "list", "filter", "games",
                                 g[2].id, "g-000000000000", g[0].id, g[4].id),
                    cursor, sizeof cursor);
    assert_ids(ids, mine, 3, 1, "filter.games: the private game found by its id, in the order "
                                "asked, the unknown id left out");
    /* The private game's entry says what it is. */
    json_t *id = json_string("private");
    send_msg(x, json_pack("{s:s,s:{s:[s]}}", "type", "list", "filter", "games", g[2].id), id);
    json_t *m = expect(x, "games", id, DOC_ID);
    json_decref(id);
    json_t *e = json_array_get(json_object_get(m, "games"), 0);
    /* protocol.md, Server messages: games entries: `seats`: {seat:
     * "taken"/"free"}, `awaiting` (the first awaited seat, or null),
     * `spectators`, `open_seats`, `watching` (nobody), `last_move_ms` (null
     * before its first command). */
    json_t *want = json_pack("{s:s,s:s,s:s,s:i,s:{s:s,s:s},s:n,s:b,s:b,s:i,s:n}", "game",
                             g[2].id, "ruleset", "tictactoe", "status", "open", "version", 0,
                             "seats", "x", "taken", "o", "free", "awaiting", "spectators", 0,
                             "open_seats", 0, "watching", 0, "last_move_ms");
    /* (the doc does not say what `scenario` shows for a game created without
     * one: it is left out of the comparison) */
    json_t *got = json_deep_copy(e);
    json_object_del(got, "scenario");
    if (e == NULL || !json_equal(got, want))
        fail_long("list: the private open game's entry should be %s (protocol.md, Server "
                  "messages: games): %s", dump(want), dump(m));
    json_decref(got);
    json_decref(want);
    json_decref(m);
    /* "`filter.status`: `open` ..., `running` or `finished`": g0 starts. */
    struct client *o = connect_hello("o");
    claim_game(o, &g[0], NULL, NULL, 1);
    expect_start_state(x, &g[0], "x", NULL);
    const char *running[1] = { g[0].id };
    ids = list_page(x, json_pack("{s:s,s:{s:s}}", "type", "list", "filter", "status", "running"),
                    cursor, sizeof cursor);
    assert_ids(ids, running, 1, 1, "filter.status running: the one started game");
    const char *open[4] = { g[5].id, g[4].id, g[3].id, g[1].id };
    ids = list_page(x, json_pack("{s:s,s:{s:s,s:s}}", "type", "list", "filter", "status", "open",
                                 "ruleset", "tictactoe"),
                    cursor, sizeof cursor);
    assert_ids(ids, open, 4, 0, "filter.status open: the listed games still open");
    /* "Anything else in `filter`, or a bad `limit` or `cursor`, is
     * `bad_message`." */
    static const char *const bad[4] = {
        "{\"type\":\"list\",\"limit\":0}", "{\"type\":\"list\",\"limit\":201}",
        "{\"type\":\"list\",\"cursor\":\"not a cursor\"}",
        "{\"type\":\"list\",\"filter\":{\"colour\":\"red\"}}",
    };
    for (int i = 0; i < 4; i++) {
        id = json_integer(i);
        send_msg(x, json_loads(bad[i], 0, NULL), id);
        json_t *err = expect(x, "error", id, "protocol.md, list: \"Anything else in `filter`, or "
                                             "a bad `limit` or `cursor`, is `bad_message`\"");
        json_decref(id);
        if (sget(err, "code") == NULL || strcmp(sget(err, "code"), "bad_message") != 0)
            fail_long("list %s: bad_message expected: %s", bad[i], dump(err));
        json_decref(err);
    }
}

/* Row 7: the lobby lists the newest game first, also when games are created
 * in quick succession: twelve creates sent at once (answered in order), so
 * several land in the same millisecond, as games of different clients do on
 * a busy server. (Twelve creates, the hello and the list cost 246 units: the
 * address's budget holds 250, so none of them waits; see *Limits*.) */
static void row07_list_newest_first(void **unused)
{
    (void)unused;
    enum { N = 12 };
    struct client *x = connect_hello("x");
    for (int i = 0; i < N; i++) {
        json_t *id = json_integer(i);
        send_msg(x, json_pack("{s:s,s:s,s:s}", "type", "create", "ruleset", "tictactoe", "seat",
                              "x"), id);
        json_decref(id);
    }
    char ids[N][64];
    for (int i = 0; i < N; i++) {
        json_t *id = json_integer(i);
        struct game g;
        expect_created(x, id, 1, &g, NULL);
        json_decref(id);
        snprintf(ids[i], sizeof ids[i], "%s", g.id);
    }
    const char *newest_first[N];
    for (int i = 0; i < N; i++)
        newest_first[i] = ids[N - 1 - i];
    /* protocol.md, list: "the lobby, a page at a time, newest game first." */
    char cursor[512];
    json_t *got = list_page(x, json_pack("{s:s}", "type", "list"), cursor, sizeof cursor);
    assert_ids(got, newest_first, N, 1,
               "protocol.md, list: \"the lobby, a page at a time, newest game first\" (the games "
               "in reverse order of their `created` answers)");
}

/* Row 8: a command before the last claim is `not_started`, echoing seq and
 * naming the game. */
static void row08_not_started(void **unused)
{
    (void)unused;
    struct client *x = connect_hello("x");
    struct game g;
    create_game(x, NULL, 1, &g, NULL);
    /* protocol.md, create: "The game is `open` until every seat is claimed: no
     * command is accepted before (`not_started`)"; command: "a game with a
     * seat still unclaimed answers `not_started`". */
    json_t *seq = json_integer(1);
    send_mark(x, &g, 1, 4, NULL);
    expect_command_error(x, "not_started", seq, g.id, NULL,
                         "protocol.md, command: \"a game with a seat still unclaimed answers "
                         "`not_started`\"", NULL);
    json_decref(seq);
    expect_nothing_else(x, "a refused command changes nothing (no patch)");
}

/* Row 9: after the end every command gets `game_over`, from either seat. */
static void row09_game_over(void **unused)
{
    (void)unused;
    struct client *x = connect_hello("x");
    struct client *o = connect_hello("o");
    struct game g;
    struct view views[2] = { { NULL, 0 }, { NULL, 0 } };
    create_game(x, NULL, 1, &g, &views[0]);
    claim_game(o, &g, &views[1], NULL, 1);
    expect_start_state(x, &g, "x", &views[0]);
    struct client *all[2] = { x, o };
    static const int cells[5] = { 0, 3, 1, 4, 2 };       /* x: the top row */
    for (int k = 0; k < 5; k++)
        json_decref(play_mark(k % 2 == 0 ? x : o, k / 2 + 1, cells[k], &g, all, views, 2));
    /* protocol.md, Example session: "then every command gets `game_over`";
     * command: "a finished one `game_over`". */
    json_t *seq = json_integer(4);
    send_mark(x, &g, 4, 8, NULL);
    expect_command_error(x, "game_over", seq, g.id, NULL,
                         "protocol.md, command: \"a finished one `game_over`\"", NULL);
    json_decref(seq);
    seq = json_integer(3);
    send_mark(o, &g, 3, 8, NULL);
    expect_command_error(o, "game_over", seq, g.id, NULL,
                         "protocol.md, command: \"a finished one `game_over`\"", NULL);
    json_decref(seq);
    expect_nothing_else(x, "a refused command changes nothing (no patch)");
    expect_nothing_else(o, "a refused command changes nothing (no patch)");
    view_release(&views[0]);
    view_release(&views[1]);
}

/* Row 10: a hello offering only an unknown protocol gets `unsupported_protocol`
 * listing the supported ones, then close 1008; the next message is not read. */
static void row10_unsupported_protocol(void **unused)
{
    (void)unused;
    struct client *c = client_open("hello 99");
    json_t *id = json_string("old");
    send_msg(c, json_pack("{s:s,s:i}", "type", "hello", "protocol", 99), id);
    /* Sent at once, so it is there to be read: "nothing else is read from it". */
    send_msg(c, json_pack("{s:s,s:i}", "type", "hello", "protocol", 1), NULL);
    /* protocol.md, hello: "A client that offers a protocol the server does not
     * speak gets `error` `unsupported_protocol` (the error lists the
     * supported versions in `"protocols"`), then the connection is closed
     * with 1008; nothing else is read from it." */
    json_t *e = expect(c, "error", id, "protocol.md, hello: \"gets `error` "
                                       "`unsupported_protocol`\"");
    json_decref(id);
    assert_str(e, "code", "unsupported_protocol", "hello 99");
    const json_t *protos = json_object_get(e, "protocols");
    int has1 = 0;
    size_t i;
    json_t *p;
    json_array_foreach(protos, i, p) has1 |= json_is_integer(p) && json_integer_value(p) == 1;
    if (!has1)
        fail_long("hello 99: \"the error lists the supported versions in `\"protocols\"`\" "
                  "(protocol.md, hello): 1 should be among them: %s", dump(e));
    json_decref(e);
    json_t *m = recv_msg(c);
    if (m != NULL)
        fail_long("hello 99: after unsupported_protocol \"the connection is closed with 1008; "
                  "nothing else is read from it\" (protocol.md, hello); the server sent %s",
                  dump(m));
    if (!c->closed || c->close_code != 1008)
        fail_long("hello 99: the connection should be closed with 1008 (protocol.md, hello); %s "
                  "%d", c->closed ? "it was closed with" : "no close frame came, status",
                  c->close_code);
}

/* Row 11: a command refused for its shape (a malformed `seq`, a missing
 * `cmd`, an unknown field) echoes the seq as sent and names its game. */
static void row11_malformed_seq_echoed(void **unused)
{
    (void)unused;
    struct client *x = connect_hello("x");
    struct client *o = connect_hello("o");
    struct game g;
    create_game(x, NULL, 1, &g, NULL);
    claim_game(o, &g, NULL, NULL, 1);
    expect_start_state(x, &g, "x", NULL);
    /* protocol.md, command: "`seq` is the client's sequence number for that
     * seat (an integer from 1 to 2^53−1 = 9,007,199,254,740,991, increasing;
     * anything else is `bad_message`)"; Conventions: "a command's `error`
     * names its `game`, even when the message was refused for its shape (a
     * `seq` that is not an integer is echoed as sent)". */
    static const char *const seqs[6] = { "\"7\"", "2.5", "0", "9007199254740992", "true",
                                         "-3" };
    for (int i = 0; i < 6; i++) {
        char text[512];
        snprintf(text, sizeof text,
                 "{\"type\":\"command\",\"game\":\"%s\",\"seq\":%s,\"cmd\":{\"type\":\"mark\","
                 "\"cell\":4}}", g.id, seqs[i]);
        json_t *seq = json_loads(seqs[i], JSON_DECODE_ANY, NULL);
        send_msg(x, json_loads(text, 0, NULL), NULL);
        expect_command_error(x, "bad_message", seq, g.id, NULL,
                             "protocol.md, command: a `seq` outside 1..2^53-1 \"is "
                             "`bad_message`\"", NULL);
        json_decref(seq);
    }
    /* A good seq on a command whose shape is wrong: no `cmd`; an unknown
     * field ("Unknown fields in a client message are an error
     * (`bad_message`)"). */
    json_t *seq = json_integer(5);
    send_msg(x, json_pack("{s:s,s:s,s:i}", "type", "command", "game", g.id, "seq", 5), NULL);
    expect_command_error(x, "bad_message", seq, g.id, NULL,
                         "protocol.md, Conventions: a command's error echoes seq and names its "
                         "game \"even when the message was refused for its shape\"", NULL);
    json_decref(seq);
    seq = json_integer(6);
    send_msg(x, json_pack("{s:s,s:s,s:i,s:{s:s,s:i},s:i}", "type", "command", "game", g.id,
                          "seq", 6, "cmd", "type", "mark", "cell", 4, "colour", 1), NULL);
    expect_command_error(x, "bad_message", seq, g.id, NULL,
                         "protocol.md, Conventions: \"Unknown fields in a client message are "
                         "an error (`bad_message`)\"", NULL);
    json_decref(seq);
    expect_nothing_else(x, "refused commands change nothing (no patch)");
    expect_nothing_else(o, "refused commands change nothing (no patch)");
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The `deadline_ms` of a state message must be the server section's
 * deadline of seat, within the hour the game gives from now. */
static void check_deadline(const json_t *st, const char *seat, long long before,
                           long long after, const char *who)
{
    /* protocol.md, Deadlines: "The server section lists each awaited seat's
     * deadline, and a `state` message carries `"deadline_ms"`, the earliest
     * of them, in milliseconds since the Unix epoch." */
    const json_t *dl = json_object_get(json_object_get(json_object_get(st, "state"), "server"),
                                       "deadlines");
    const json_t *mine = json_object_get(dl, seat);
    const json_t *ms = json_object_get(st, "deadline_ms");
    if (json_object_size(dl) != 1 || !json_is_integer(mine) || !json_is_integer(ms) ||
        json_integer_value(ms) != json_integer_value(mine) ||
        json_integer_value(ms) < before + 3600 * 1000 ||
        json_integer_value(ms) > after + 3600 * 1000)
        fail_long("%s: server.deadlines should be {\"%s\": T} and deadline_ms T, an hour after "
                  "the decision began (between %lld and %lld) (protocol.md, Deadlines: \"Every "
                  "awaited seat has its own deadline\"; \"a `state` message carries "
                  "`deadline_ms`, the earliest of them\"): %s",
                  who, seat, before + 3600 * 1000, after + 3600 * 1000, dump(st));
    /* protocol.md, The state: "`deadlines_left`: while a deadline runs, the
     * time each awaited seat has left, in milliseconds, counted when the
     * message was made". At most the hour, no less than what is left now. */
    const json_t *left = json_object_get(json_object_get(json_object_get(st, "state"),
                                                         "server"), "deadlines_left");
    const json_t *l = json_object_get(left, seat);
    long long now = now_ms();
    if (json_object_size(left) != 1 || !json_is_integer(l) || json_integer_value(l) > 3600000 ||
        json_integer_value(l) < json_integer_value(ms) - now)
        fail_long("%s: server.deadlines_left should be {\"%s\": L}, L at most an hour and at "
                  "least the %lld ms left now (protocol.md, The state): %s", who, seat,
                  (long long)json_integer_value(ms) - now, dump(st));
}

/* Are a and b the same state but for the time left, which is counted when
 * each message is made (protocol.md, The state)? */
static int same_but_time_left(const json_t *a, const json_t *b)
{
    json_t *x = json_deep_copy(a), *y = json_deep_copy(b);
    json_object_del(json_object_get(x, "server"), "deadlines_left");
    json_object_del(json_object_get(y, "server"), "deadlines_left");
    int same = json_equal(x, y);
    json_decref(x);
    json_decref(y);
    return same;
}

/* Row 12: a game with deadlines: none while a seat is unclaimed; then the
 * awaited seat's deadline in the server section and as the state's
 * `deadline_ms`, following the turn in patches. */
static void row12_deadlines(void **unused)
{
    (void)unused;
    struct client *x = connect_hello("x");
    struct client *o = connect_hello("o");
    struct game g;
    struct view views[2] = { { NULL, 0 }, { NULL, 0 } };
    /* protocol.md, Deadlines: "A game created with `deadline_seconds` gives
     * each decision that long, once the game is running (never while a seat
     * is unclaimed)." (create_game checks the open state; row 17's field
     * check wants no `deadline_ms` while the server section lists none.) */
    create_game(x, "{\"deadline_seconds\":3600}", 1, &g, &views[0]);
    check_awaiting(views[0].state, "{}", "the open game", "protocol.md, The state: awaiting");
    const json_t *dl = json_object_get(json_object_get(views[0].state, "server"), "deadlines");
    if (json_object_size(dl) != 0)
        fail_long("the open game: no deadline \"while a seat is unclaimed\" (protocol.md, "
                  "Deadlines): %s", dump(views[0].state));
    long long before = now_ms();
    send_msg(o, json_pack("{s:s,s:s}", "type", "claim", "invite", g.invite), NULL);
    json_t *cl, *st;
    expect_answer_and_state(o, "claimed", NULL, 1, DOC_ORDER, &cl, &st);
    long long after = now_ms();
    json_decref(cl);
    check_deadline(st, "x", before, after, "the claimer's state");
    view_from_state(&views[1], st);
    json_decref(st);
    st = expect(x, "state", NULL, "protocol.md, claim: every connection receives a full state");
    check_deadline(st, "x", before, after, "the creator's start state");
    view_from_state(&views[0], st);
    json_decref(st);
    /* x marks: o is awaited, with a fresh deadline ("a seat gets a fresh one
     * when it becomes awaited"); the patch carries the server section. */
    struct client *all[2] = { x, o };
    before = now_ms();
    json_decref(play_mark(x, 1, 4, &g, all, views, 2));
    after = now_ms();
    struct client *f = connect_hello("fresh");
    json_t *id = json_string("fresh-join");
    send_msg(f, json_pack("{s:s,s:s,s:b}", "type", "join", "game", g.id, "spectate", 1), id);
    st = expect(f, "state", id, "protocol.md, join: \"Answer: `state`\"");
    json_decref(id);
    check_deadline(st, "o", before, after, "a fresh join after x's mark");
    for (int i = 0; i < 2; i++)
        if (!same_but_time_left(views[i].state, json_object_get(st, "state")))
            fail_long("%s: the state built by patches differs from a fresh join's (protocol.md, "
                      "The state: \"It changes like the rest of the state, so patches carry "
                      "it\", but for the time left):\n  patches: %s\n  join:    %s",
                      all[i]->name, dump(views[i].state), dump(st));
    json_decref(st);
    view_release(&views[0]);
    view_release(&views[1]);
}

/* What c receives before the answer to a later request (a bare `list`): a
 * JSON array of those messages (caller frees). */
static json_t *collect_until_barrier(struct client *c)
{
    char id[32];
    snprintf(id, sizeof id, "barrier-%u", ++c->barriers);
    json_t *jid = json_string(id);
    send_msg(c, json_pack("{s:s}", "type", "list"), jid);
    json_t *got = json_array();
    for (;;) {
        json_t *m = recv_some(c, "the answer to a `list`", "protocol.md, list");
        if (strcmp(sget(m, "type"), "games") == 0 && json_equal(json_object_get(m, "id"), jid)) {
            json_decref(m);
            break;
        }
        json_array_append_new(got, m);
    }
    json_decref(jid);
    return got;
}

/* A token as the page shows it, cut short: its first 8 hex digits and
 * "...". */
static int is_cut_token(const char *s)
{
    char head[9];
    if (s == NULL || strlen(s) != 11 || strcmp(s + 8, "...") != 0)
        return 0;
    memcpy(head, s, 8);
    head[8] = '\0';
    return is_hex(head, 8);
}

/* The example's stand-ins for what differs from run to run: `game` (the
 * game's id), `token` and the invite. cut_tokens: also take a token cut
 * short (the page's messages only; the server sends whole ones). */
static void normalise(json_t *msgs, const char *game, int cut_tokens)
{
    size_t i;
    json_t *m;
    json_array_foreach(msgs, i, m) {
        if (sget(m, "game") != NULL && strcmp(sget(m, "game"), game) == 0)
            json_object_set_new(m, "game", json_string("GAME"));
        const char *tok = sget(m, "token");
        if (is_hex(tok, 64) || (cut_tokens && is_cut_token(tok)))
            json_object_set_new(m, "token", json_string("TOKEN"));
        json_t *inv = json_object_get(m, "invites");
        if (is_hex(sget(inv, "o"), 32))
            json_object_set_new(inv, "o", json_string("INVITE"));
    }
}

/* docs/rulesets/tictactoe.md's example, as row 13 reads it from the page. */
#define EXAMPLE_PAGE WARROOM_DOCS_DIR "/rulesets/tictactoe.md"
#define EXAMPLE_MAX_STEPS 64

/* One step of the example: a seat's message and what the page shows the
 * server sending to each seat's connection. */
struct example_step {
    int actor;                  /* 0: x, 1: o */
    json_t *request;            /* owned */
    json_t *to[2];              /* JSON arrays, to x and to o (owned) */
};

static struct {
    char *text;                 /* the page (owned) */
    struct example_step steps[EXAMPLE_MAX_STEPS];
    size_t nsteps;
} g_example;

/* Frees what example_read() holds (row_teardown calls it, so a failing row
 * leaks nothing). */
static void example_release(void)
{
    for (size_t k = 0; k < g_example.nsteps; k++) {
        json_decref(g_example.steps[k].request);
        json_decref(g_example.steps[k].to[0]);
        json_decref(g_example.steps[k].to[1]);
    }
    g_example.nsteps = 0;
    free(g_example.text);
    g_example.text = NULL;
}

static char *read_text_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap);
    while (buf != NULL) {
        n += fread(buf + n, 1, cap - 1 - n, f);
        if (n < cap - 1)
            break;
        char *more = realloc(buf, cap * 2);
        if (more == NULL) {
            free(buf);
            buf = NULL;
        }
        buf = more;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (buf == NULL || bad) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

/* A line's JSON text, parsed with duplicate keys rejected, or the row fails. */
static json_t *example_json(const char *text, size_t lineno)
{
    json_error_t err;
    json_t *j = json_loads(text, JSON_REJECT_DUPLICATES, &err);
    if (j == NULL || !json_is_object(j))
        fail_long("%s, Example, line %zu of the block: not one JSON object (%s): %s",
                  EXAMPLE_PAGE, lineno, j == NULL ? err.text : "not an object", text);
    return j;
}

/*
 * Reads the first fenced block after the heading "## Example" of
 * tictactoe.md into g_example. Each line of it is one of
 *   X> {...}                a message x's connection sends (a new step)
 *   O> {...}                a message o's connection sends (a new step)
 *   S> (to X) {...}         a message the server sent to x's connection
 *   S> (to X, O) {...}      one it sent to both (also "(to O)", "(to O, X)")
 * Any other line fails the row: the page and this reader must agree.
 */
static void example_read(void)
{
    g_example.text = read_text_file(EXAMPLE_PAGE);
    if (g_example.text == NULL)
        fail_long("cannot read %s", EXAMPLE_PAGE);
    char *h = strstr(g_example.text, "\n## Example\n");
    char *open = h != NULL ? strstr(h, "\n```\n") : NULL;
    char *end = open != NULL ? strstr(open + 4, "\n```") : NULL;
    if (end == NULL)
        fail_long("%s: no fenced block after the heading \"## Example\"", EXAMPLE_PAGE);
    *end = '\0';
    size_t lineno = 0;
    for (char *line = open + 5, *next; line != NULL && line <= end; line = next) {
        next = strchr(line, '\n');
        if (next != NULL)
            *next++ = '\0';
        lineno++;
        if ((line[0] == 'X' || line[0] == 'O') && strncmp(line + 1, "> ", 2) == 0) {
            if (g_example.nsteps == EXAMPLE_MAX_STEPS)
                fail_long("%s, Example: more than %d steps", EXAMPLE_PAGE, EXAMPLE_MAX_STEPS);
            struct example_step *st = &g_example.steps[g_example.nsteps++];
            st->actor = line[0] == 'X' ? 0 : 1;
            st->to[0] = json_array();
            st->to[1] = json_array();
            st->request = example_json(line + 3, lineno);
            continue;
        }
        char *close = strncmp(line, "S> (to ", 7) == 0 ? strstr(line, ") ") : NULL;
        if (close == NULL || g_example.nsteps == 0)
            fail_long("%s, Example, line %zu of the block: neither \"X> \", \"O> \" nor "
                      "\"S> (to ...) \" after a seat's message: %s", EXAMPLE_PAGE, lineno, line);
        *close = '\0';
        json_t *m = example_json(close + 2, lineno);
        struct example_step *st = &g_example.steps[g_example.nsteps - 1];
        for (char *who = line + 7, *comma; who != NULL; who = comma) {
            comma = strstr(who, ", ");
            if (comma != NULL) {
                *comma = '\0';
                comma += 2;
            }
            if (strcmp(who, "X") != 0 && strcmp(who, "O") != 0) {
                json_decref(m);
                fail_long("%s, Example, line %zu of the block: \"(to %s)\" names no seat's "
                          "connection (X or O)", EXAMPLE_PAGE, lineno, who);
            }
            json_array_append(st->to[who[0] == 'X' ? 0 : 1], m);
        }
        json_decref(m);
    }
    if (g_example.nsteps == 0)
        fail_long("%s, Example: no step", EXAMPLE_PAGE);
}

/* Row 13: tictactoe.md's example, "taken from a run of warroomd", read from
 * the page and replayed against the server: every message the page shows
 * for each connection, in its order, must be what the server sends it (the
 * game's id, tokens and the invite aside), and nothing more. The page's game
 * id and invite, in its requests, stand for the run's. Every difference is
 * listed, then the row fails. */
static void row13_tictactoe_example(void **unused)
{
    (void)unused;
    example_read();
    /* The page's game id and invite: its first step's `created`. */
    const char *page_game = NULL, *page_invite = NULL;
    size_t i;
    json_t *m;
    json_array_foreach(g_example.steps[0].to[g_example.steps[0].actor], i, m) {
        if (sget(m, "type") != NULL && strcmp(sget(m, "type"), "created") == 0) {
            page_game = sget(m, "game");
            page_invite = sget(json_object_get(m, "invites"), "o");
        }
    }
    if (page_game == NULL || page_invite == NULL)
        fail_long("%s, Example: its first step shows no `created` with a game and an invite "
                  "for o", EXAMPLE_PAGE);
    struct client *c[2] = { connect_hello("x"), connect_hello("o") };
    char game[64] = "", invite[48] = "";
    size_t ndiff = 0;
    for (size_t k = 0; k < g_example.nsteps; k++) {
        const struct example_step *st = &g_example.steps[k];
        json_t *req = json_deep_copy(st->request);
        assert_non_null(req);
        if (game[0] != '\0' && sget(req, "game") != NULL &&
            strcmp(sget(req, "game"), page_game) == 0)
            json_object_set_new(req, "game", json_string(game));
        if (invite[0] != '\0' && sget(req, "invite") != NULL &&
            strcmp(sget(req, "invite"), page_invite) == 0)
            json_object_set_new(req, "invite", json_string(invite));
        const char *reqtext = dump(req);
        send_msg(c[st->actor], req, NULL);
        json_t *got[2];
        got[st->actor] = collect_until_barrier(c[st->actor]);
        got[1 - st->actor] = collect_until_barrier(c[1 - st->actor]);
        if (k == 0) {
            /* the run's game and invite come in its `created` */
            json_array_foreach(got[st->actor], i, m) {
                if (strcmp(sget(m, "type"), "created") == 0) {
                    snprintf(game, sizeof game, "%s", sget(m, "game") ? sget(m, "game") : "");
                    const char *inv = sget(json_object_get(m, "invites"), "o");
                    snprintf(invite, sizeof invite, "%s", inv != NULL ? inv : "");
                }
            }
            if (game[0] == '\0') {
                const char *text = dump(got[st->actor]);
                json_decref(got[0]);
                json_decref(got[1]);
                fail_long("tictactoe.md, Example: no `created` answered the create: %s", text);
            }
        }
        for (int w = 0; w < 2; w++) {
            json_t *want = json_deep_copy(st->to[w]);
            assert_non_null(want);
            normalise(want, page_game, 1);
            normalise(got[w], game, 0);
            if (!json_equal(want, got[w])) {
                ndiff++;
                fprintf(stderr,
                        "tictactoe.md, Example, step %zu (%c> %s), to %c:\n  the page: %s\n"
                        "  warroomd: %s\n",
                        k + 1, st->actor == 0 ? 'X' : 'O', reqtext, w == 0 ? 'X' : 'O',
                        dump(want), dump(got[w]));
            }
            json_decref(want);
            json_decref(got[w]);
        }
    }
    if (ndiff > 0)
        fail_long("docs/rulesets/tictactoe.md's example (\"taken from a run of `warroomd`\") "
                  "differs from what warroomd sends in %zu places (listed above)", ndiff);
}

/* Row 14: `welcome` gives the limits a server started with default flags
 * has, as *Limits* lists them. */
static void row14_welcome_limits(void **unused)
{
    (void)unused;
    struct client *c = client_open("hello");
    send_msg(c, json_pack("{s:s,s:i}", "type", "hello", "protocol", 1), NULL);
    json_t *w = expect(c, "welcome", NULL, "protocol.md, hello: \"The server answers welcome\"");
    /* protocol.md, Server messages: "`welcome` | `protocol`, `server`,
     * `limits` {`max_message` (bytes), `commands_per_second` (per
     * connection), `max_queue` (messages), `max_queue_bytes` (bytes)}";
     * Limits: "inbound message size | `--max-message` | 65,536 bytes",
     * "commands per second per connection | `--rate` | 200 (burst 400)",
     * "outbound queue per connection | `--max-queue`, `--max-queue-bytes` |
     * 256 messages and 1 MiB (1,048,576 bytes)"; Example session:
     * "protocol":1. */
    assert_int(w, "protocol", 1, "welcome");
    if (!json_is_string(json_object_get(w, "server")))
        fail_long("welcome: `server` should name the server: %s", dump(w));
    json_t *want = json_pack("{s:i,s:i,s:i,s:i}", "max_message", 65536, "commands_per_second",
                             200, "max_queue", 256, "max_queue_bytes", 1048576);
    int same = json_equal(json_object_get(w, "limits"), want);
    const char *wtext = dump(want), *gtext = dump(w);
    json_decref(want);
    json_decref(w);
    if (!same)
        fail_long("welcome: with default flags `limits` should be %s (protocol.md, Limits); "
                  "the server sent %s", wtext, gtext);
}

/* Row 15: what tictactoe.md says of create and of its refusals. */
static void row15_tictactoe_page(void **unused)
{
    (void)unused;
    struct client *x = connect_hello("x");
    /* tictactoe.md, Creating a game: "Without `seat` the creator takes
     * `x`." */
    send_msg(x, json_pack("{s:s,s:s}", "type", "create", "ruleset", "tictactoe"), NULL);
    struct game g;
    expect_created(x, NULL, 1, &g, NULL);
    /* tictactoe.md: "**Options**: none of its own; ... any other is `error`
     * `bad_options` `unknown option`." */
    json_t *id = json_string("colour");
    send_msg(x, json_pack("{s:s,s:s,s:{s:i}}", "type", "create", "ruleset", "tictactoe", "options",
                          "colour", 1), id);
    json_t *e = expect(x, "error", id, "tictactoe.md, Options");
    json_decref(id);
    assert_str(e, "code", "bad_options", "create with an unknown option");
    if (sget(e, "message") == NULL || strstr(sget(e, "message"), "unknown option") == NULL)
        fail_long("create with an unknown option: the message should say `unknown option` "
                  "(tictactoe.md, Options; protocol.md, create): %s", dump(e));
    json_decref(e);
    /* tictactoe.md, Scenario: "A `scenario` in the create message is still
     * looked up (an unknown name is `no_such_scenario`), then ignored by the
     * game; `list` shows its name." */
    id = json_string("nowhere");
    send_msg(x, json_pack("{s:s,s:s,s:s}", "type", "create", "ruleset", "tictactoe", "scenario",
                          "no-such-scenario"), id);
    e = expect(x, "error", id, "tictactoe.md, Scenario");
    json_decref(id);
    assert_str(e, "code", "no_such_scenario", "create with an unknown scenario");
    json_decref(e);
    send_msg(x, json_pack("{s:s,s:s,s:s,s:s}", "type", "create", "ruleset", "tictactoe",
                          "scenario", "test/small", "seat", "x"), NULL);
    struct game gs;
    expect_created(x, NULL, 1, &gs, NULL);
    id = json_string("scenario");
    send_msg(x, json_pack("{s:s,s:{s:[s]}}", "type", "list", "filter", "games", gs.id), id);
    json_t *m = expect(x, "games", id, DOC_ID);
    json_decref(id);
    assert_str(json_array_get(json_object_get(m, "games"), 0), "scenario", "test/small",
               "tictactoe.md, Scenario: \"`list` shows its name\"");
    json_decref(m);

    /* tictactoe.md, mark: "Refusals, in the order checked: `not_your_turn`
     * (`it is o's turn`), `bad_command` (not `{"type":"mark","cell":N}` with
     * an integer `cell` and no other field), `bad_square` (`cell must be
     * 0..8`), `enemy_square` (`cell 4 is taken`). A command from the wrong
     * seat is `not_your_turn` whatever its shape." */
    struct client *o = connect_hello("o");
    claim_game(o, &g, NULL, NULL, 1);
    expect_start_state(x, &g, "x", NULL);
    static const struct {
        char seat;
        const char *cmd;
        const char *code;
        const char *message;        /* NULL: the page gives none */
    } refusals[] = {
        { 'o', "{\"type\":\"mark\",\"cell\":4}", "not_your_turn", "it is x's turn" },
        { 'o', "{\"type\":\"mark\",\"cell\":\"four\",\"colour\":1}", "not_your_turn",
          "it is x's turn" },
        { 'x', "{\"type\":\"mark\",\"cell\":\"4\"}", "bad_command", NULL },
        { 'x', "{\"type\":\"mark\",\"cell\":4,\"colour\":1}", "bad_command", NULL },
        { 'x', "{\"type\":\"mark\"}", "bad_command", NULL },
        { 'x', "{\"type\":\"mark\",\"cell\":9}", "bad_square", "cell must be 0..8" },
        { 'x', "{\"type\":\"mark\",\"cell\":-1}", "bad_square", "cell must be 0..8" },
    };
    json_int_t seq[2] = { 0, 0 };   /* x, o */
    for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; i++) {
        struct client *c = refusals[i].seat == 'x' ? x : o;
        json_int_t *sq = &seq[refusals[i].seat == 'x' ? 0 : 1];
        json_t *cmd = json_loads(refusals[i].cmd, 0, NULL);
        assert_non_null(cmd);
        send_msg(c, json_pack("{s:s,s:s,s:I,s:o}", "type", "command", "game", g.id, "seq", ++*sq,
                              "cmd", cmd), NULL);
        json_t *jseq = json_integer(*sq);
        expect_command_error(c, refusals[i].code, jseq, g.id, NULL,
                             "tictactoe.md, mark: \"Refusals, in the order checked\"; \"A "
                             "command from the wrong seat is `not_your_turn` whatever its "
                             "shape\"",
                             refusals[i].message);
        json_decref(jseq);
    }
    /* x marks 4; then o's mark there is `enemy_square` (`cell 4 is taken`),
     * and x's next one, out of turn, `not_your_turn` (`it is o's turn`). */
    send_mark(x, &g, ++seq[0], 4, NULL);
    json_decref(expect(x, "patch", NULL, "protocol.md, command"));
    json_decref(expect(x, "ack", NULL, "protocol.md, command"));
    json_decref(expect(o, "patch", NULL, "protocol.md, command"));
    send_mark(o, &g, ++seq[1], 4, NULL);
    json_t *jseq = json_integer(seq[1]);
    expect_command_error(o, "enemy_square", jseq, g.id, NULL,
                         "tictactoe.md, mark: \"`enemy_square` (`cell 4 is taken`)\"",
                         "cell 4 is taken");
    json_decref(jseq);
    send_mark(x, &g, ++seq[0], 0, NULL);
    jseq = json_integer(seq[0]);
    expect_command_error(x, "not_your_turn", jseq, g.id, NULL,
                         "tictactoe.md, mark: \"`not_your_turn` (`it is o's turn`)\"",
                         "it is o's turn");
    json_decref(jseq);
    expect_nothing_else(x, "refused commands change nothing (no patch)");
    expect_nothing_else(o, "refused commands change nothing (no patch)");
}

/* The forfeit `state` c must receive (o ran out of time at version 1). */
static void expect_forfeit_state(struct client *c, const struct game *g, const char *seat,
                                 const json_t *id, const json_t *before)
{
    /* protocol.md, Deadlines: "When a seat's deadline passes, **it
     * forfeits**: the game ends, `status` becomes `finished`, the server
     * section says `"result":"forfeit"` and `"forfeit":"<seat>"` ..., the
     * `state` message carries the same `forfeit` next to `status`, and every
     * connection receives that `state`"; "The ruleset's part of the state is
     * left as it was (no winner ...)"; The state: "`awaiting`: ... empty ...
     * once the game is over". tictactoe.md, The end: "a full `state` to every
     * connection, of the same version. Its `status` is `finished` and it
     * carries `"forfeit": SEAT`"; "The ruleset's part stays as it was". */
    static const char *doc = "protocol.md, Deadlines: a forfeit is sent as a full `state` to "
                             "every connection";
    json_t *st = expect(c, "state", id, doc);
    check_state_msg(st, g->id, seat, 1, "finished", c->name);
    assert_str(st, "forfeit", "o", c->name);
    /* protocol.md, Deadlines: "its reason, `forfeit_reason` in the server
     * section: `o: no decision (mark) in 2 s (deadline 2026-12-02 10:00:00
     * UTC)`"; "that `state` carries `events`, one
     * `{"type":"forfeit","seat","reason"}` per seat that forfeited" (the one
     * every connection receives then; a `sync` or `join` later has none). */
    const char *why = json_string_value(json_object_get(
        json_object_get(json_object_get(st, "state"), "server"), "forfeit_reason"));
    if (why == NULL || strncmp(why, "o: no decision (mark) in 2 s (deadline ", 39) != 0 ||
        strcmp(why + strlen(why) - 5, " UTC)") != 0)
        fail_long("%s: the forfeit's reason (protocol.md, Deadlines): %s", c->name, dump(st));
    json_t *evs = json_object_get(st, "events");
    if (id == NULL) {
        json_t *e = json_pack("{s:s,s:s,s:s}", "type", "forfeit", "seat", "o", "reason", why);
        int same = json_array_size(evs) == 1 && json_equal(json_array_get(evs, 0), e);
        json_decref(e);
        if (!same)
            fail_long("%s: the forfeit state's events (protocol.md, Deadlines): %s", c->name,
                      dump(st));
    } else if (evs != NULL) {
        fail_long("%s: a state sent later has no events (protocol.md, Deadlines): %s", c->name,
                  dump(st));
    }
    json_t *want = json_deep_copy(before);
    json_object_set_new(want, "server",
                        json_pack("{s:s,s:s,s:s,s:{},s:{},s:s}", "status", "finished", "result",
                                  "forfeit", "forfeit", "o", "awaiting", "deadlines",
                                  "forfeit_reason", why));
    int same = json_equal(json_object_get(st, "state"), want);
    const char *wtext = dump(want), *gtext = dump(st);
    json_decref(want);
    json_decref(st);
    if (!same)
        fail_long("%s: the forfeit state should be the state at version 1, the ruleset's part "
                  "as it was and the server section %s (protocol.md, Deadlines; The state):\n"
                  "  want: %s\n  got:  %s", c->name,
                  "{status finished, result forfeit, forfeit o, awaiting {}, deadlines {}}",
                  wtext, gtext);
}

/* Row 16: a seat that lets its deadline pass forfeits: every connection gets
 * a full `state` saying so, `sync` from before it answers a full state, the
 * lobby shows the result `forfeit`, and commands get `game_over`. */
static void row16_forfeit(void **unused)
{
    (void)unused;
    struct client *x = connect_hello("x");
    struct client *o = connect_hello("o");
    struct client *s = connect_hello("spectator");
    struct game g;
    struct view views[3] = { { NULL, 0 }, { NULL, 0 }, { NULL, 0 } };
    /* protocol.md, create: "`deadline_seconds` (default 0 = none, else
     * 1..2,592,000): time allowed for each decision". Two seconds: x marks
     * at once, then o lets its time pass. */
    create_game(x, "{\"deadline_seconds\":2}", 1, &g, &views[0]);
    claim_game(o, &g, &views[1], NULL, 1);
    expect_start_state(x, &g, "x", &views[0]);
    json_t *id = json_string("watch");
    send_msg(s, json_pack("{s:s,s:s,s:b}", "type", "join", "game", g.id, "spectate", 1), id);
    json_t *st = expect(s, "state", id, "protocol.md, join: \"Answer: `state`\"");
    json_decref(id);
    view_from_state(&views[2], st);
    json_decref(st);
    struct client *all[3] = { x, o, s };
    json_decref(play_mark(x, 1, 4, &g, all, views, 3));
    /* The ruleset's part at version 1, which the forfeit leaves as it was. */
    json_t *before = json_deep_copy(views[2].state);
    json_object_del(before, "server");
    for (int i = 0; i < 3; i++)
        expect_forfeit_state(all[i], &g, i == 0 ? "x" : i == 1 ? "o" : NULL, NULL, before);
    /* protocol.md, sync: "when the game's server section changed since then
     * without a command (the game started, or ended by forfeit ...), it
     * answers with a full `state` (echoing `id`) instead." Version 0 is
     * before the forfeit (and before x's mark). */
    id = json_integer(16);
    send_msg(x, json_pack("{s:s,s:s,s:i}", "type", "sync", "game", g.id, "since", 0), id);
    expect_forfeit_state(x, &g, "x", id, before);
    json_decref(id);
    json_decref(before);
    /* protocol.md, Deadlines: "`list` shows the game's `result` as
     * `"forfeit"`". */
    id = json_string("lobby");
    send_msg(x, json_pack("{s:s,s:{s:[s]}}", "type", "list", "filter", "games", g.id), id);
    json_t *m = expect(x, "games", id, DOC_ID);
    json_decref(id);
    json_t *e = json_array_get(json_object_get(m, "games"), 0);
    assert_str(e, "status", "finished", "the forfeited game in the lobby");
    assert_str(e, "result", "forfeit", "the forfeited game in the lobby (protocol.md, "
                                       "Deadlines: \"`list` shows the game's `result` as "
                                       "`\\\"forfeit\\\"`\")");
    json_decref(m);
    /* protocol.md, command: "a finished one `game_over`". */
    json_t *seq = json_integer(1);
    send_mark(o, &g, 1, 0, NULL);
    expect_command_error(o, "game_over", seq, g.id, NULL,
                         "protocol.md, command: \"a finished one `game_over`\"", NULL);
    json_decref(seq);
    for (int i = 0; i < 3; i++) {
        expect_nothing_else(all[i], "protocol.md, Deadlines: one forfeit `state` per connection");
        view_release(&views[i]);
    }
}

/* Row 18: every message type the server sends has exactly the fields of the
 * doc's table. This row sends every request once (and a command carrying an
 * id), then reports every difference seen here and in the rows before: it
 * runs last. */
static void row18_fields_as_the_table(void **unused)
{
    (void)unused;
    struct client *x = connect_hello("x");
    struct client *o = connect_hello("o");
    struct game g;
    struct view views[2] = { { NULL, 0 }, { NULL, 0 } };
    create_game(x, NULL, 1, &g, &views[0]);
    claim_game(o, &g, &views[1], NULL, 1);
    expect_start_state(x, &g, "x", &views[0]);
    /* A command carrying an id: its answer is an `ack`, whose fields are
     * `game`, `seq`, `version`, `events` (the table); Conventions: "Commands
     * are matched by their `seq` instead". */
    json_t *id = json_string("cmd-with-id");
    send_mark(x, &g, 1, 4, id);
    json_decref(id);
    json_t *p = expect(x, "patch", NULL, "protocol.md, command");
    view_patch(&views[0], p, "x");
    json_decref(p);
    json_decref(expect(x, "ack", ID_UNCHECKED, "protocol.md, command"));
    p = expect(o, "patch", NULL, "protocol.md, command");
    view_patch(&views[1], p, "o");
    json_decref(p);
    send_mark(x, &g, 2, 0, NULL);
    json_decref(expect(x, "error", NULL, "tictactoe.md: not_your_turn"));
    send_msg(x, json_pack("{s:s,s:s,s:i}", "type", "sync", "game", g.id, "since", 1), NULL);
    json_decref(expect(x, "synced", NULL, "protocol.md, sync"));
    send_msg(x, json_pack("{s:s}", "type", "list"), NULL);
    json_decref(expect(x, "games", NULL, "protocol.md, list (a running game)"));
    send_msg(x, json_pack("{s:s,s:s}", "type", "export", "game", g.id), NULL);
    json_decref(expect(x, "record", NULL, "protocol.md, export"));
    send_msg(x, json_pack("{s:s,s:s,s:n}", "type", "notify", "game", g.id, "webhook"), NULL);
    json_decref(expect(x, "ok", NULL, "protocol.md, notify"));
    /* protocol.md, ask: every WHAT's answer has the table's fields; not
     * joined is not_joined. */
    static const char *const whats[] = { "draw", "describe", "orders", "order", "order",
                                         "events", "complete" };
    for (size_t k = 0; k < sizeof whats / sizeof whats[0]; k++) {
        json_t *a = json_pack("{s:s,s:s,s:s}", "type", "ask", "game", g.id, "what", whats[k]);
        if (k == 3)
            json_object_set_new(a, "line", json_string("mark 2"));
        if (k == 4)
            json_object_set_new(a, "line", json_string("mark 4"));      /* taken: refused */
        if (k == 5)
            json_object_set_new(a, "events", json_pack("[{s:s,s:s,s:i}]", "type", "marked",
                                                       "seat", "x", "cell", 4));
        if (k == 6)
            json_object_set_new(a, "words", json_pack("[s]", "mark"));
        send_msg(o, a, NULL);
        json_decref(expect(o, k == 4 ? "error" : "answer", NULL, "protocol.md, ask"));
    }
    struct client *outsider = connect_hello("outsider");
    send_msg(outsider, json_pack("{s:s,s:s,s:s}", "type", "ask", "game", g.id, "what", "draw"),
             NULL);
    json_t *ne = expect(outsider, "error", NULL, "protocol.md, ask");
    assert_str(ne, "code", "not_joined", "protocol.md, ask: \"else `error` `not_joined`\"");
    json_decref(ne);
    send_msg(x, json_pack("{s:s}", "type", "rulesets"), NULL);
    json_decref(expect(x, "rulesets", NULL, "protocol.md, rulesets"));
    /* protocol.md, setup: "`scenario` ... or null for a ruleset that takes
     * none; `options` the `create` options (`{}` when none were given)". */
    send_msg(x, json_pack("{s:s,s:s}", "type", "setup", "game", g.id), NULL);
    json_t *su = expect(x, "setup", NULL, "protocol.md, setup");
    if (!json_is_null(json_object_get(su, "scenario")) ||
        strcmp(sget(su, "ruleset") ? sget(su, "ruleset") : "", "tictactoe") != 0)
        fail_long("setup of a tictactoe game: %s (protocol.md, setup)", dump(su));
    json_decref(su);
    /* Play to the end (o 3, x 2, o 8, x 6: x wins on 2-4-6) for a finished
     * entry in the lobby. */
    struct client *all[2] = { x, o };
    static const int cells[4] = { 3, 2, 8, 6 };
    for (int k = 0; k < 4; k++)
        json_decref(play_mark(k % 2 == 0 ? o : x, k % 2 == 0 ? k / 2 + 1 : k / 2 + 3, cells[k],
                              &g, all, views, 2));
    send_msg(x, json_pack("{s:s}", "type", "list"), NULL);
    json_decref(expect(x, "games", NULL, "protocol.md, list (a finished game)"));
    send_msg(x, json_pack("{s:s,s:s}", "type", "leave", "game", g.id), NULL);
    json_decref(expect(x, "left", NULL, "protocol.md, leave"));
    view_release(&views[0]);
    view_release(&views[1]);

    if (g_nviolations > 0) {
        for (size_t i = 0; i < g_nviolations; i++)
            fprintf(stderr, "field difference %zu: %s\n", i + 1, g_violations[i]);
        fail_long("%zu messages' fields differ from protocol.md's table of server messages "
                  "(listed above)", g_nviolations);
    }
}

/* The entry of array arr (of objects) whose "name" is name, or NULL. */
static json_t *named(const json_t *arr, const char *name)
{
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e)
        if (sget(e, "name") != NULL && strcmp(sget(e, "name"), name) == 0)
            return e;
    return NULL;
}

/* protocol.md, rulesets: what the server can create, with its scenarios
 * (the server runs with the source tree's --scenarios folder). */
static void row17_rulesets(void **unused)
{
    (void)unused;
    struct client *x = connect_hello("x");
    json_t *id = json_string("what-can-i-make");
    send_msg(x, json_pack("{s:s}", "type", "rulesets"), id);
    /* "Answer: `rulesets` (echoing `id`)" */
    json_t *m = expect(x, "rulesets", id, DOC_ID);
    json_decref(id);
    const json_t *list = json_object_get(m, "rulesets");
    /* tictactoe.md: seats `x` and `o`, no options of its own, no scenario. */
    json_t *t = named(list, "tictactoe");
    json_t *seats = json_pack("[s,s]", "x", "o");
    if (t == NULL || !json_equal(json_object_get(t, "seats"), seats) ||
        json_array_size(json_object_get(t, "options")) != 0 ||
        !json_is_false(json_object_get(t, "needs_scenario")) ||
        !json_is_null(json_object_get(t, "default_scenario")) ||
        json_array_size(json_object_get(t, "scenarios")) != 0)
        fail_long("rulesets: tictactoe should have seats x, o, no options and no scenario "
                  "(protocol.md, rulesets; tictactoe.md): %s", dump(m));
    json_decref(seats);
    /* "`scenarios`: the scenarios of the server's `--scenarios` folder made
     * for this ruleset ... a scenario is listed when its file names the
     * ruleset ... (one built on a `"base"` is not listed)": test/small names
     * waterloo; test/override is built on it. */
    json_t *w = named(list, "waterloo");
    if (w == NULL || named(json_object_get(w, "scenarios"), "test/small") == NULL ||
        named(json_object_get(w, "scenarios"), "test/override") != NULL)
        fail_long("rulesets: waterloo's scenarios should list test/small and not test/override "
                  "(protocol.md, rulesets): %s", dump(m));
    /* A scenario is listed under its own ruleset only. */
    if (named(json_object_get(t, "scenarios"), "test/small") != NULL)
        fail_long("rulesets: test/small listed under tictactoe: %s", dump(m));
    /* "`options`: the server's own `create` options, each with its help and
     * `default`" (create: spectators default true, open_seats false,
     * deadline_seconds 0). */
    const json_t *so = json_object_get(m, "options");
    json_t *sp = named(so, "spectators"), *os = named(so, "open_seats"),
           *dl = named(so, "deadline_seconds");
    if (json_array_size(so) != 3 || sp == NULL || !json_is_true(json_object_get(sp, "default")) ||
        os == NULL || !json_is_false(json_object_get(os, "default")) || dl == NULL ||
        json_integer_value(json_object_get(dl, "default")) != 0 ||
        !json_is_integer(json_object_get(dl, "default")))
        fail_long("rulesets: the server's options should be spectators (true), open_seats "
                  "(false) and deadline_seconds (0) (protocol.md, create): %s", dump(m));
    /* Each ruleset's default scenario is one of its listed scenarios when it
     * names one. */
    size_t i;
    json_t *r;
    json_array_foreach(list, i, r) {
        const char *def = sget(r, "default_scenario");
        if (def != NULL && named(json_object_get(r, "scenarios"), def) == NULL)
            fail_long("rulesets: %s's default scenario %s is not listed: %s", sget(r, "name"),
                      def, dump(m));
    }
    json_decref(m);
    /* Conventions: "Unknown fields in a client message are an error". */
    id = json_integer(18);
    send_msg(x, json_pack("{s:s,s:s}", "type", "rulesets", "ruleset", "tictactoe"), id);
    json_t *e = expect(x, "error", id, DOC_ID);
    json_decref(id);
    assert_str(e, "code", "bad_message", "rulesets with an unknown field");
    json_decref(e);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest rows[] = {
        cmocka_unit_test_setup_teardown(row01_create_then_state, row_setup, row_teardown),
        cmocka_unit_test_setup_teardown(row02_claim_then_state, row_setup, row_teardown),
        cmocka_unit_test_setup_teardown(row03_id_echoed, row_setup, row_teardown),
        cmocka_unit_test_setup_teardown(row04_game_to_the_end_by_patches, row_setup,
                                        row_teardown),
        cmocka_unit_test_setup_teardown(row05_sync, row_setup, row_teardown),
        cmocka_unit_test_setup_teardown(row06_list_paging, row_setup, row_teardown),
        cmocka_unit_test_setup_teardown(row07_list_newest_first, row_setup, row_teardown),
        cmocka_unit_test_setup_teardown(row08_not_started, row_setup, row_teardown),
        cmocka_unit_test_setup_teardown(row09_game_over, row_setup, row_teardown),
        cmocka_unit_test_setup_teardown(row10_unsupported_protocol, row_setup, row_teardown),
        cmocka_unit_test_setup_teardown(row11_malformed_seq_echoed, row_setup, row_teardown),
        cmocka_unit_test_setup_teardown(row12_deadlines, row_setup, row_teardown),
        cmocka_unit_test_setup_teardown(row13_tictactoe_example, row_setup, row_teardown),
        cmocka_unit_test_setup_teardown(row14_welcome_limits, row_setup, row_teardown),
        cmocka_unit_test_setup_teardown(row15_tictactoe_page, row_setup, row_teardown),
        cmocka_unit_test_setup_teardown(row16_forfeit, row_setup, row_teardown),
        cmocka_unit_test_setup_teardown(row17_rulesets, row_setup, row_teardown),
        cmocka_unit_test_setup_teardown(row18_fields_as_the_table, row_setup, row_teardown),
    };
    int failed = cmocka_run_group_tests(rows, NULL, NULL);
    for (size_t i = 0; i < g_nviolations; i++)
        free(g_violations[i]);
    return failed;
}
