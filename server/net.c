/*
 * net.c - libwebsockets on the server's libuv loop: one port for plain
 * HTTP (/healthz, /metrics, /games) and websockets (protocol v1).
 *
 * See shared/reference/stack-notes.md for the lws 4.1 pitfalls this file
 * works around: foreign-loop shutdown in two steps, one lws_write() per
 * WRITEABLE callback, no built-in message size cap, protocols[0] binding,
 * no signal handlers on a foreign loop.
 */
#include <uv.h>                 /* before libwebsockets.h (stack-notes 16) */
#include <libwebsockets.h>

#include "server.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "conn.h"
#include "games.h"
#include "log.h"
#include "notify.h"
#include "protocol.h"
#include "warroom_version.h"

/* Per-connection data lws allocates (per_session_data_size). */
struct pss {
    struct wrd_conn *conn;      /* websocket connections */
    char *http_body;            /* HTTP answers */
    size_t http_len;
    int counted;                /* counted in its address's connections */
    char addr[64];
};

/* --- connections per address ------------------------------------------------ */

#define ADDR_BUCKETS 1024

struct addr_count {
    struct addr_count *next;
    int n;
    char addr[64];
};

/* What the network layer keeps for the server's life. */
struct wrd_net {
    struct addr_count *addr[ADDR_BUCKETS];
    lws_retry_bo_t retry;       /* idle policy: ping, then hang up */
};

static struct addr_count **addr_table(struct wrd_server *srv)
{
    return srv->net ? srv->net->addr : NULL;
}

static unsigned addr_hash(const char *s)
{
    unsigned h = 5381;
    while (*s)
        h = h * 33 + (unsigned char)*s++;
    return h % ADDR_BUCKETS;
}

/* Add delta to addr's count; returns the new count. */
static int addr_add(struct wrd_server *srv, const char *addr, int delta)
{
    struct addr_count **t = addr_table(srv);
    if (t == NULL)
        return 0;
    struct addr_count **p = &t[addr_hash(addr)];
    for (; *p; p = &(*p)->next)
        if (strcmp((*p)->addr, addr) == 0)
            break;
    if (*p == NULL) {
        if (delta <= 0)
            return 0;
        *p = calloc(1, sizeof **p);
        if (*p == NULL)
            return 0;
        snprintf((*p)->addr, sizeof (*p)->addr, "%s", addr);
    }
    int n = ((*p)->n += delta);
    if (n <= 0) {
        struct addr_count *dead = *p;
        *p = dead->next;
        free(dead);
    }
    return n;
}

/* --- HTTP --------------------------------------------------------------------- */

static int http_reply(struct lws *wsi, struct pss *p, int status, const char *type, char *body)
{
    unsigned char hdr[LWS_PRE + 512], *start = hdr + LWS_PRE, *pos = start,
                  *end = hdr + sizeof hdr - 1;
    if (body == NULL)
        return 1;
    p->http_body = body;
    p->http_len = strlen(body);
    if (lws_add_http_common_headers(wsi, (unsigned int)status, type, p->http_len, &pos, end) ||
        lws_finalize_write_http_header(wsi, start, &pos, end))
        return 1;
    lws_callback_on_writable(wsi);
    return 0;
}

/* Append printf output to a growing buffer. */
struct sbuf {
    char *s;
    size_t len, cap;
};

__attribute__((format(printf, 2, 3))) static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0)
            return;
        if (b->s && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = (b->cap + (size_t)n + 1) * 2;
        char *s = realloc(b->s, cap);
        if (s == NULL)
            return;
        b->s = s;
        b->cap = cap;
    }
}

static char *metrics_text(struct wrd_server *srv)
{
    static const char *const bounds[WRD_HIST_BUCKETS] = { "0.0001", "0.00025", "0.0005", "0.001",
                                                          "0.0025", "0.005", "0.01", "0.025",
                                                          "0.05", "0.1", "0.25", "1" };
    const struct wrd_metrics *m = &srv->metrics;
    struct sbuf b = { NULL, 0, 0 };
    sb_printf(&b, "# HELP warroom_connections Open websocket connections.\n"
                  "# TYPE warroom_connections gauge\nwarroom_connections %d\n",
              srv->connections);
    sb_printf(&b, "# HELP warroom_games Games held by the server.\n"
                  "# TYPE warroom_games gauge\nwarroom_games %d\n",
              wrd_games_count(srv));
    sb_printf(&b, "# HELP warroom_commands_total Accepted commands.\n"
                  "# TYPE warroom_commands_total counter\nwarroom_commands_total %llu\n",
              (unsigned long long)m->commands);
    sb_printf(&b, "# HELP warroom_rejections_total Refused messages and commands.\n"
                  "# TYPE warroom_rejections_total counter\nwarroom_rejections_total %llu\n",
              (unsigned long long)m->rejections);
    sb_printf(&b, "# HELP warroom_bytes_in_total Websocket payload bytes received.\n"
                  "# TYPE warroom_bytes_in_total counter\nwarroom_bytes_in_total %llu\n",
              (unsigned long long)m->bytes_in);
    sb_printf(&b, "# HELP warroom_bytes_out_total Websocket payload bytes sent.\n"
                  "# TYPE warroom_bytes_out_total counter\nwarroom_bytes_out_total %llu\n",
              (unsigned long long)m->bytes_out);
    sb_printf(&b, "# HELP warroom_store_commit_seconds Store batch commit latency.\n"
                  "# TYPE warroom_store_commit_seconds histogram\n");
    for (int i = 0; i < WRD_HIST_BUCKETS; i++)
        sb_printf(&b, "warroom_store_commit_seconds_bucket{le=\"%s\"} %llu\n", bounds[i],
                  (unsigned long long)m->commit_buckets[i]);
    sb_printf(&b, "warroom_store_commit_seconds_bucket{le=\"+Inf\"} %llu\n"
                  "warroom_store_commit_seconds_sum %.6f\nwarroom_store_commit_seconds_count %llu\n",
              (unsigned long long)m->commits, m->commit_seconds_sum,
              (unsigned long long)m->commits);
    if (srv->notifier) {
        struct wrd_notify_stats ns;
        wrd_notifier_stats(srv->notifier, &ns);
        sb_printf(&b, "# TYPE warroom_webhooks_sent_total counter\nwarroom_webhooks_sent_total %llu\n"
                      "# TYPE warroom_webhooks_given_up_total counter\n"
                      "warroom_webhooks_given_up_total %llu\n",
                  (unsigned long long)ns.webhooks_sent_total,
                  (unsigned long long)ns.webhooks_given_up_total);
        sb_printf(&b, "# HELP warroom_webhooks_refused_total Webhook notifications not sent: "
                      "no address of their destination is allowed.\n"
                      "# TYPE warroom_webhooks_refused_total counter\n"
                      "warroom_webhooks_refused_total %llu\n",
                  (unsigned long long)ns.webhooks_refused_total);
        sb_printf(&b, "# HELP warroom_webhooks_dropped_total Webhook notifications dropped: "
                      "their owner's share or every place was taken.\n"
                      "# TYPE warroom_webhooks_dropped_total counter\n"
                      "warroom_webhooks_dropped_total %llu\n"
                      "# HELP warroom_webhooks_replaced_total Webhook notifications replaced "
                      "by a newer one for the same seat before they were sent.\n"
                      "# TYPE warroom_webhooks_replaced_total counter\n"
                      "warroom_webhooks_replaced_total %llu\n"
                      "# HELP warroom_webhooks_pending Webhook notifications in flight or "
                      "waiting to retry.\n"
                      "# TYPE warroom_webhooks_pending gauge\nwarroom_webhooks_pending %u\n",
                  (unsigned long long)ns.webhooks_dropped_total,
                  (unsigned long long)ns.webhooks_replaced_total, ns.webhooks_pending);
    }
    return b.s;
}

static int on_http(struct lws *wsi, struct pss *p, const char *path)
{
    struct wrd_server *srv = lws_context_user(lws_get_context(wsi));
    /* Every page is read-only: other methods were answered as if GET. */
    if (lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI) <= 0)
        return http_reply(wsi, p, 405, "text/plain", strdup("only GET\n"));
    if (strcmp(path, "/healthz") == 0) {
        json_t *j = json_pack("{s:s, s:s, s:i, s:i}", "status", srv->stopping ? "stopping" : "ok",
                              "version", WARROOM_VERSION, "connections", srv->connections, "games",
                              wrd_games_count(srv));
        char *body = json_dumps(j, JSON_COMPACT);
        json_decref(j);
        return http_reply(wsi, p, srv->stopping ? 503 : 200, "application/json", body);
    }
    if (strcmp(path, "/metrics") == 0)
        return http_reply(wsi, p, 200, "text/plain; version=0.0.4", metrics_text(srv));
    if (strcmp(path, "/games") == 0) {
        /* The lobby: ?ruleset=&status=&limit=&cursor= as in `list`. */
        json_t *req = json_object(), *filter = json_object();
        static const char *const args[] = { "ruleset", "status", "limit", "cursor" };
        for (int i = 0; i < 4; i++) {
            char name[16], v[128];
            snprintf(name, sizeof name, "%s=", args[i]);
            if (lws_get_urlarg_by_name(wsi, name, v, sizeof v) == NULL)
                continue;
            if (i < 2)
                json_object_set_new(filter, args[i], json_string(v));
            else if (i == 2)
                json_object_set_new(req, "limit", json_integer(strtol(v, NULL, 10)));
            else
                json_object_set_new(req, "cursor", json_string(v));
        }
        json_object_set_new(req, "filter", filter);
        const char *why;
        json_t *j = wrd_games_list(srv, req, &why);
        json_decref(req);
        if (j == NULL) {
            char msg[200];
            snprintf(msg, sizeof msg, "%s\n", why);
            return http_reply(wsi, p, 400, "text/plain", strdup(msg));
        }
        char *body = json_dumps(j, JSON_COMPACT);
        json_decref(j);
        return http_reply(wsi, p, 200, "application/json", body);
    }
    return http_reply(wsi, p, 404, "text/plain", strdup("not found\n"));
}

/* --- websockets ------------------------------------------------------------------ */

static int on_receive(struct lws *wsi, struct wrd_conn *c, const void *data, size_t len)
{
    if (c->held) {
        /* lws keeps what arrives while reading is off (its rx flow cache):
         * nothing may reach here before the held message is dispatched. */
        wrd_error("data while a message is held: closing", "addr=%s", c->addr);
        return -1;
    }
    /* Protocol v1 is JSON text: a binary frame (or a message begun as one)
     * is refused at its first byte with 1003, "unacceptable data". */
    if (lws_frame_is_binary(wsi)) {
        lws_close_reason(wsi, LWS_CLOSE_STATUS_UNACCEPTABLE_OPCODE,
                         (unsigned char *)"text frames only", 16);
        return -1;
    }
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
        char *n = realloc(c->in, cap);
        if (n == NULL)
            return -1;
        c->in = n;
        c->in_cap = cap;
    }
    memcpy(c->in + c->in_len, data, len);
    c->in_len += len;
    c->srv->metrics.bytes_in += len;
    if (lws_is_final_fragment(wsi) && lws_remaining_packet_payload(wsi) == 0)
        wrd_conn_received(c);
    return 0;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    struct pss *p = user;
    struct wrd_server *srv;

    switch (reason) {
    case LWS_CALLBACK_HTTP:
        return on_http(wsi, p, (const char *)in);

    case LWS_CALLBACK_HTTP_WRITEABLE:
        if (p == NULL || p->http_body == NULL)
            break;
        {
            unsigned char *buf = malloc(LWS_PRE + p->http_len + 1);
            if (buf == NULL)
                return -1;
            memcpy(buf + LWS_PRE, p->http_body, p->http_len);
            int n = lws_write(wsi, buf + LWS_PRE, p->http_len, LWS_WRITE_HTTP_FINAL);
            free(buf);
            free(p->http_body);
            p->http_body = NULL;
            if (n < 0)
                return -1;
        }
        if (lws_http_transaction_completed(wsi))
            return -1;
        break;

    case LWS_CALLBACK_HTTP_DROP_PROTOCOL:
    case LWS_CALLBACK_CLOSED_HTTP:
        if (p != NULL && p->conn == NULL) {
            free(p->http_body);
            p->http_body = NULL;
        }
        break;

    case LWS_CALLBACK_ESTABLISHED:
        srv = lws_context_user(lws_get_context(wsi));
        memset(p, 0, sizeof *p);
        lws_get_peer_simple(wsi, p->addr, sizeof p->addr);
        if (srv->stopping || srv->connections >= srv->cfg.max_connections) {
            lws_close_reason(wsi, (enum lws_close_status)1013 /* try again later */,
                             (unsigned char *)"server full", 11);
            return -1;
        }
        if (addr_add(srv, p->addr, 1) > srv->cfg.max_per_address) {
            addr_add(srv, p->addr, -1);
            lws_close_reason(wsi, LWS_CLOSE_STATUS_POLICY_VIOLATION,
                             (unsigned char *)"too many connections", 20);
            return -1;
        }
        p->counted = 1;
        if (srv->cfg.send_buffer > 0) {
            /* A fixed kernel send buffer (no autotuning up to tcp_wmem's
             * maximum): what a slow reader can pin is then this plus
             * --max-queue messages. */
            int fd = (int)lws_get_socket_fd(wsi), sz = srv->cfg.send_buffer;
            if (fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof sz) != 0)
                wrd_warn("cannot set the send buffer", "addr=%s", p->addr);
        }
        p->conn = wrd_conn_new(srv, wsi, p->addr);
        if (p->conn == NULL)
            return -1;
        snprintf(p->conn->addr, sizeof p->conn->addr, "%s", p->addr);
        srv->connections++;
        break;

    case LWS_CALLBACK_RECEIVE:
        if (p->conn == NULL)
            return -1;
        return on_receive(wsi, p->conn, in, len);

    case LWS_CALLBACK_SERVER_WRITEABLE:
        if (p->conn == NULL)
            return -1;
        {
            int code;
            const char *why;
            if (wrd_conn_closing_code(p->conn, &code, &why)) {
                /* Drained: send the close frame (1001 going away when the
                 * server stops), then close. On a libuv loop, lws 4.1 kills
                 * the socket at once when the callback returns -1 ("uv
                 * repeat test" in its close path), without the close frame
                 * lws_close_reason() asked for; so the frame is written
                 * here. 4 is lws 4.1's internal LWS_WRITE_CLOSE (lws-write.h
                 * hides it). */
                unsigned char frame[LWS_PRE + 2 + 123];
                size_t n = strlen(why) > 120 ? 120 : strlen(why);
                frame[LWS_PRE] = (unsigned char)(code >> 8);
                frame[LWS_PRE + 1] = (unsigned char)(code & 0xff);
                memcpy(frame + LWS_PRE + 2, why, n);
                lws_write(wsi, frame + LWS_PRE, 2 + n, (enum lws_write_protocol)4);
                return -1;
            }
        }
        return wrd_conn_write_next(p->conn);

    case LWS_CALLBACK_CLOSED:
        srv = lws_context_user(lws_get_context(wsi));
        if (p->counted)
            addr_add(srv, p->addr, -1);
        p->counted = 0;
        if (p->conn) {
            srv->connections--;
            wrd_conn_closed(p->conn);
            p->conn = NULL;
        }
        break;

    default:
        break;
    }
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}

/* protocols[0] is ours, so clients without a subprotocol bind to it too. */
static const struct lws_protocols protocols[] = {
    /* rx_buffer_size 1024: lws gives every connection a receive buffer
     * this large (commands are a few hundred bytes; longer messages arrive
     * in pieces that on_receive joins), 3 KB less per idle connection than
     * the 4096 before. tx_packet_size 65536: lws hands a write of up to
     * 64 KiB (a large state, or conn.c's coalesced frames) to one send()
     * instead of slicing it into rx_buffer_size pieces, one WRITEABLE round
     * each. */
    { "warroom.v1", callback, sizeof(struct pss), 1024, 0, NULL, 65536 },
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
    for (size_t i = 0; i < n; i++)
        if (buf[i] == '"')
            buf[i] = '\'';
    wrd_log(level == LLL_ERR ? WRD_LOG_ERROR : WRD_LOG_WARN, "libwebsockets", "detail=\"%s\"",
            buf);
}

int wrd_net_start(struct wrd_server *srv)
{
    struct lws_context_creation_info info;
    void *foreign_loops[1] = { &srv->loop };

    srv->net = calloc(1, sizeof *srv->net);
    if (srv->net == NULL)
        return -1;
    srv->net->retry.secs_since_valid_ping = (uint16_t)(srv->cfg.idle_timeout / 2);
    srv->net->retry.secs_since_valid_hangup = (uint16_t)srv->cfg.idle_timeout;

    lws_set_log_level(getenv("WARROOM_LWS_DEBUG") ? (LLL_ERR | LLL_WARN | LLL_NOTICE | LLL_INFO | LLL_DEBUG) : (LLL_ERR | LLL_WARN), lws_log_to_ours);
    memset(&info, 0, sizeof info);
    info.port = srv->cfg.port;
    info.iface = srv->cfg.host;
    info.protocols = protocols;
    info.vhost_name = "default";
    info.options = LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_VALIDATE_UTF8 |
                   (strchr(srv->cfg.host, ':') ? 0 : LWS_SERVER_OPTION_DISABLE_IPV6) |
                   LWS_SERVER_OPTION_HTTP_HEADERS_SECURITY_BEST_PRACTICES_ENFORCE;
    if (srv->cfg.tls_cert) {
        /* TLS only on this port: a plain-text client fails its handshake
         * (no ALLOW_NON_SSL_ON_SSL_PORT). */
        info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
        info.ssl_cert_filepath = srv->cfg.tls_cert;
        info.ssl_private_key_filepath = srv->cfg.tls_key;
    }
    info.foreign_loops = foreign_loops;
    info.pcontext = &srv->ctx;
    info.user = srv;
    info.retry_and_idle_policy = &srv->net->retry;
    info.fd_limit_per_thread = (unsigned int)srv->cfg.max_connections + 64;

    srv->ctx = lws_create_context(&info);
    if (srv->ctx == NULL) {
        if (srv->cfg.tls_cert)
            wrd_error("cannot listen", "addr=%s:%d tls_cert=%s tls_key=%s hint=\"port busy, "
                      "an unreadable or mismatched certificate and key, or the "
                      "libwebsockets-evlib-uv package missing\"", srv->cfg.host, srv->cfg.port,
                      srv->cfg.tls_cert, srv->cfg.tls_key);
        else
            wrd_error("cannot listen", "addr=%s:%d hint=\"port busy, or the "
                      "libwebsockets-evlib-uv package missing\"", srv->cfg.host, srv->cfg.port);
        return -1;
    }
    srv->port = lws_get_vhost_listen_port(lws_get_vhost_by_name(srv->ctx, "default"));
    wrd_info("listening", "addr=%s:%d db=%s tls=%s", srv->cfg.host, srv->port, srv->cfg.db,
             srv->cfg.tls_cert ? "on" : "off");
    printf("warroomd listening on %s://%s:%d/\n", srv->cfg.tls_cert ? "wss" : "ws",
           srv->cfg.host, srv->port);
    fflush(stdout);
    return 0;
}

void wrd_net_stop(struct wrd_server *srv)
{
    srv->stopping = 1;
    if (srv->ctx)
        lws_context_destroy(srv->ctx);      /* first call: async close (going away) */
}

void wrd_net_release(struct wrd_server *srv)
{
    if (srv->ctx)
        lws_context_destroy(srv->ctx);      /* second call: frees it */
    srv->ctx = NULL;
    free(srv->batch);
    srv->batch = NULL;
    if (srv->net) {
        for (int i = 0; i < ADDR_BUCKETS; i++)
            while (srv->net->addr[i]) {
                struct addr_count *a = srv->net->addr[i];
                srv->net->addr[i] = a->next;
                free(a);
            }
        free(srv->net);
        srv->net = NULL;
    }
}
