/*
 * net.c - libwebsockets on the server's libuv loop: one port for plain
 * HTTP (/healthz) and websockets (protocol v1, JSON text frames).
 *
 * See shared/reference/stack-notes.md for the lws 4.1 pitfalls this file
 * works around: foreign-loop shutdown in two steps, one lws_write() per
 * WRITEABLE callback, no built-in message size cap, protocols[0] binding.
 */
#include <uv.h>                 /* before libwebsockets.h (stack-notes 16) */
#include <libwebsockets.h>

#include "server.h"
#include "log.h"
#include "warroom_version.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define OUT_QUEUE_MAX 64

struct out_msg {
    struct out_msg *next;
    size_t len;
    unsigned char buf[];        /* LWS_PRE headroom, then the payload */
};

/* Per-connection state, allocated by lws (per_session_data_size). */
struct conn {
    struct wrd_server *srv;
    int is_ws;
    /* inbound message being assembled */
    char *in;
    size_t in_len, in_cap;
    int too_large;
    /* outbound queue */
    struct out_msg *head, *tail;
    int queued;
    /* HTTP response */
    char *http_body;
    size_t http_len;
};

static struct wrd_server *server_of(struct lws *wsi)
{
    return lws_context_user(lws_get_context(wsi));
}

static int enqueue(struct lws *wsi, struct conn *c, const char *text, size_t len)
{
    if (c->queued >= OUT_QUEUE_MAX) {
        wrd_warn("outbound queue full, closing", "queued=%d", c->queued);
        lws_close_reason(wsi, LWS_CLOSE_STATUS_POLICY_VIOLATION,
                         (unsigned char *)"too slow", 8);
        lws_set_timeout(wsi, PENDING_TIMEOUT_CLOSE_SEND, LWS_TO_KILL_ASYNC);
        return -1;
    }
    struct out_msg *m = malloc(sizeof *m + LWS_PRE + len);
    if (m == NULL)
        return -1;
    m->next = NULL;
    m->len = len;
    memcpy(m->buf + LWS_PRE, text, len);
    if (c->tail)
        c->tail->next = m;
    else
        c->head = m;
    c->tail = m;
    c->queued++;
    lws_callback_on_writable(wsi);
    return 0;
}

static void send_json(struct lws *wsi, struct conn *c, json_t *msg)
{
    char *text = json_dumps(msg, JSON_COMPACT);
    if (text != NULL) {
        enqueue(wsi, c, text, strlen(text));
        free(text);
    }
    json_decref(msg);
}

static void send_error(struct lws *wsi, struct conn *c, const char *code, const char *message)
{
    send_json(wsi, c, json_pack("{s:s, s:s, s:s}", "type", "error", "code", code,
                                "message", message));
}

/* A whole inbound message has arrived. */
static void on_message(struct lws *wsi, struct conn *c)
{
    json_error_t jerr;
    json_t *msg = json_loadb(c->in, c->in_len, JSON_REJECT_DUPLICATES, &jerr);
    if (msg == NULL || !json_is_object(msg)) {
        send_error(wsi, c, "bad_json", msg ? "a message is a JSON object" : jerr.text);
        json_decref(msg);
        return;
    }
    const char *type = json_string_value(json_object_get(msg, "type"));
    if (type != NULL && strcmp(type, "hello") == 0) {
        send_json(wsi, c, json_pack("{s:s, s:i, s:s}", "type", "welcome",
                                    "protocol", WARROOM_PROTOCOL_VERSION,
                                    "server", "warroomd/" WARROOM_VERSION));
    } else {
        send_error(wsi, c, "unknown_type", "the message type is missing or unknown");
    }
    json_decref(msg);
}

static int on_receive(struct lws *wsi, struct conn *c, const void *data, size_t len)
{
    size_t max = c->srv->cfg.max_message;
    size_t want = c->in_len + len + lws_remaining_packet_payload(wsi);
    if (want > max) {
        lws_close_reason(wsi, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE,
                         (unsigned char *)"message too large", 17);
        return -1;
    }
    if (c->in_len + len > c->in_cap) {
        size_t cap = c->in_cap ? c->in_cap : 1024;
        while (cap < c->in_len + len)
            cap *= 2;
        char *p = realloc(c->in, cap);
        if (p == NULL)
            return -1;
        c->in = p;
        c->in_cap = cap;
    }
    memcpy(c->in + c->in_len, data, len);
    c->in_len += len;
    if (lws_is_final_fragment(wsi) && lws_remaining_packet_payload(wsi) == 0) {
        on_message(wsi, c);
        c->in_len = 0;
    }
    return 0;
}

static int http_reply(struct lws *wsi, struct conn *c, int status, const char *type,
                      char *body)
{
    unsigned char hdr[LWS_PRE + 512], *start = hdr + LWS_PRE, *p = start,
                  *end = hdr + sizeof hdr - 1;
    c->http_body = body;
    c->http_len = strlen(body);
    if (lws_add_http_common_headers(wsi, (unsigned int)status, type, c->http_len, &p, end) ||
        lws_finalize_write_http_header(wsi, start, &p, end))
        return 1;
    lws_callback_on_writable(wsi);
    return 0;
}

static int on_http(struct lws *wsi, struct conn *c, const char *path)
{
    struct wrd_server *srv = c->srv;
    if (strcmp(path, "/healthz") == 0) {
        char *body = NULL;
        json_t *j = json_pack("{s:s, s:s, s:i}", "status", srv->stopping ? "stopping" : "ok",
                              "version", WARROOM_VERSION, "connections", srv->connections);
        body = json_dumps(j, JSON_COMPACT);
        json_decref(j);
        return http_reply(wsi, c, srv->stopping ? 503 : 200, "application/json", body);
    }
    return http_reply(wsi, c, 404, "text/plain", strdup("not found\n"));
}

static void conn_release(struct conn *c)
{
    while (c->head) {
        struct out_msg *m = c->head;
        c->head = m->next;
        free(m);
    }
    c->tail = NULL;
    c->queued = 0;
    free(c->in);
    c->in = NULL;
    free(c->http_body);
    c->http_body = NULL;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    struct conn *c = user;

    switch (reason) {
    case LWS_CALLBACK_HTTP:
        memset(c, 0, sizeof *c);
        c->srv = server_of(wsi);
        return on_http(wsi, c, (const char *)in);

    case LWS_CALLBACK_HTTP_WRITEABLE:
        if (c->http_body == NULL)
            break;
        {
            unsigned char *buf = malloc(LWS_PRE + c->http_len + 1);
            if (buf == NULL)
                return -1;
            memcpy(buf + LWS_PRE, c->http_body, c->http_len);
            int n = lws_write(wsi, buf + LWS_PRE, c->http_len, LWS_WRITE_HTTP_FINAL);
            free(buf);
            free(c->http_body);
            c->http_body = NULL;
            if (n < 0)
                return -1;
        }
        if (lws_http_transaction_completed(wsi))
            return -1;
        break;

    case LWS_CALLBACK_HTTP_DROP_PROTOCOL:
    case LWS_CALLBACK_CLOSED_HTTP:
        if (c != NULL && !c->is_ws) {
            free(c->http_body);
            c->http_body = NULL;
        }
        break;

    case LWS_CALLBACK_ESTABLISHED: {
        struct wrd_server *srv = server_of(wsi);
        memset(c, 0, sizeof *c);
        c->srv = srv;
        c->is_ws = 1;
        srv->connections++;
        if (srv->stopping || srv->connections > srv->cfg.max_connections) {
            lws_close_reason(wsi, LWS_CLOSE_STATUS_GOINGAWAY,
                             (unsigned char *)"server full", 11);
            return -1;
        }
        break;
    }

    case LWS_CALLBACK_RECEIVE:
        return on_receive(wsi, c, in, len);

    case LWS_CALLBACK_SERVER_WRITEABLE: {
        struct out_msg *m = c->head;
        if (m == NULL)
            break;
        if (lws_write(wsi, m->buf + LWS_PRE, m->len, LWS_WRITE_TEXT) < (int)m->len)
            return -1;
        c->head = m->next;
        if (c->head == NULL)
            c->tail = NULL;
        c->queued--;
        free(m);
        if (c->head)
            lws_callback_on_writable(wsi);
        break;
    }

    case LWS_CALLBACK_CLOSED:
        c->srv->connections--;
        conn_release(c);
        break;

    default:
        break;
    }
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}

/* protocols[0] is ours, so clients without a subprotocol bind to it too. */
static const struct lws_protocols protocols[] = {
    { "warroom.v1", callback, sizeof(struct conn), 4096, 0, NULL, 0 },
    { NULL, NULL, 0, 0, 0, NULL, 0 }
};

static void lws_log_to_ours(int level, const char *line)
{
    size_t n = strlen(line);
    char buf[256];
    if (n >= sizeof buf)
        n = sizeof buf - 1;
    memcpy(buf, line, n);
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '"'))
        n--;
    buf[n] = '\0';
    wrd_log(level == LLL_ERR ? WRD_LOG_ERROR : WRD_LOG_WARN, "libwebsockets", "detail=\"%s\"",
            buf);
}

int wrd_net_start(struct wrd_server *srv)
{
    struct lws_context_creation_info info;
    void *foreign_loops[1] = { &srv->loop };

    lws_set_log_level(LLL_ERR | LLL_WARN, lws_log_to_ours);
    memset(&info, 0, sizeof info);
    info.port = srv->cfg.port;
    info.iface = srv->cfg.host;
    info.protocols = protocols;
    info.vhost_name = "default";
    info.options = LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_VALIDATE_UTF8 |
                   (strchr(srv->cfg.host, ':') ? 0 : LWS_SERVER_OPTION_DISABLE_IPV6) |
                   LWS_SERVER_OPTION_HTTP_HEADERS_SECURITY_BEST_PRACTICES_ENFORCE;
    info.foreign_loops = foreign_loops;
    info.pcontext = &srv->ctx;
    info.user = srv;
    info.fd_limit_per_thread = (unsigned int)srv->cfg.max_connections + 64;

    srv->ctx = lws_create_context(&info);
    if (srv->ctx == NULL) {
        wrd_error("cannot listen", "addr=%s:%d hint=\"port busy, or the "
                  "libwebsockets-evlib-uv package missing\"", srv->cfg.host, srv->cfg.port);
        return -1;
    }
    srv->port = lws_get_vhost_listen_port(lws_get_vhost_by_name(srv->ctx, "default"));
    wrd_info("listening", "addr=%s:%d db=%s", srv->cfg.host, srv->port, srv->cfg.db);
    printf("warroomd listening on ws://%s:%d/\n", srv->cfg.host, srv->port);
    fflush(stdout);
    return 0;
}

void wrd_net_stop(struct wrd_server *srv)
{
    srv->stopping = 1;
    if (srv->ctx)
        lws_context_destroy(srv->ctx);      /* first call: async close */
}

void wrd_net_release(struct wrd_server *srv)
{
    if (srv->ctx)
        lws_context_destroy(srv->ctx);      /* second call: frees it */
    srv->ctx = NULL;
}
