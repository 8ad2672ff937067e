/*
 * test_notify.c - the notifier (server/notify.c) on its own uv loop, against
 * a tiny HTTP receiver in the same loop on 127.0.0.1 with an ephemeral port:
 * the request on the wire, retries after 5xx, refused connections, silent
 * receivers (time-out), URL checks, the notify command and its environment,
 * the bounds, and a clean close with work in flight.
 *
 * Every wait runs the loop one iteration at a time until a condition holds
 * or a uv_timer deadline fires; nothing sleeps. Each test ends by closing the
 * notifier and the receiver, letting uv_run() return by itself, and
 * requiring uv_loop_close() == 0 and exactly one done callback.
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
#include <fcntl.h>
#include <netdb.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <uv.h>

#include "log.h"
#include "notify.h"

#define DEADLINE_MS 20000
#define RX_SILENT 0             /* a script entry: accept, read, never answer */

/* ---- the HTTP receiver ---------------------------------------------------------- */

struct rx;

struct rx_conn {
    uv_tcp_t tcp;
    struct rx *rx;
    struct rx_conn *prev, *next;
    char buf[8192];
    size_t len;
    int status;                 /* what to answer; RX_SILENT: nothing */
    int done;                   /* the request is complete */
    int closing;
    uv_write_t wr;
    char resp[128];
};

struct rx {
    uv_tcp_t server;
    int listening;
    int port;
    const int *script;          /* status per connection; the last one repeats */
    size_t nscript;
    int connections;            /* accepted */
    int requests;               /* complete requests received */
    char last[8193];            /* the last complete request, room for a NUL */
    size_t last_len;
    struct rx_conn *conns;
    int handles;                /* open or closing */
};

static void rx_conn_closed(uv_handle_t *h)
{
    struct rx_conn *c = h->data;
    if (c->prev != NULL)
        c->prev->next = c->next;
    else
        c->rx->conns = c->next;
    if (c->next != NULL)
        c->next->prev = c->prev;
    c->rx->handles--;
    free(c);
}

static void rx_conn_close(struct rx_conn *c)
{
    if (c->closing)
        return;
    c->closing = 1;
    uv_close((uv_handle_t *)&c->tcp, rx_conn_closed);
}

static void rx_written(uv_write_t *req, int status)
{
    rx_conn_close(req->data);
}

static void rx_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    struct rx_conn *c = h->data;
    size_t room = sizeof c->buf - c->len;
    *buf = uv_buf_init(c->buf + c->len, (unsigned int)(room > 0 ? room : 0));
}

/* The request is complete when the head is and Content-Length bytes follow. */
static int request_complete(const char *buf, size_t len)
{
    const char *end = NULL;
    for (size_t i = 0; i + 4 <= len; i++)
        if (memcmp(buf + i, "\r\n\r\n", 4) == 0) {
            end = buf + i + 4;
            break;
        }
    if (end == NULL)
        return 0;
    size_t head = (size_t)(end - buf), body = 0;
    for (size_t i = 0; i + 16 <= head; i++)
        if (memcmp(buf + i, "Content-Length: ", 16) == 0) {
            body = strtoul(buf + i + 16, NULL, 10);
            break;
        }
    return len >= head + body;
}

static void rx_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
    struct rx_conn *c = s->data;
    if (nread < 0) {            /* EOF, an error, or the buffer is full (UV_ENOBUFS) */
        rx_conn_close(c);
        return;
    }
    c->len += (size_t)nread;
    if (c->done || !request_complete(c->buf, c->len))
        return;
    c->done = 1;
    struct rx *rx = c->rx;
    rx->requests++;
    memcpy(rx->last, c->buf, c->len);
    rx->last_len = c->len;
    if (c->status == RX_SILENT)
        return;                 /* keep reading: EOF comes when the client gives up */
    int n = snprintf(c->resp, sizeof c->resp,
                     "HTTP/1.1 %d Whatever\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                     c->status);
    uv_buf_t b = uv_buf_init(c->resp, (unsigned int)n);
    c->wr.data = c;
    if (uv_write(&c->wr, s, &b, 1, rx_written) < 0)
        rx_conn_close(c);
}

static void rx_connection(uv_stream_t *server, int status)
{
    struct rx *rx = server->data;
    if (status < 0)
        return;
    struct rx_conn *c = calloc(1, sizeof *c);
    assert_non_null(c);
    c->rx = rx;
    uv_tcp_init(server->loop, &c->tcp);
    c->tcp.data = c;
    rx->handles++;
    c->next = rx->conns;
    if (rx->conns != NULL)
        rx->conns->prev = c;
    rx->conns = c;
    if (uv_accept(server, (uv_stream_t *)&c->tcp) < 0) {
        rx_conn_close(c);
        return;
    }
    size_t i = (size_t)rx->connections < rx->nscript ? (size_t)rx->connections : rx->nscript - 1;
    c->status = rx->script[i];
    rx->connections++;
    uv_read_start((uv_stream_t *)&c->tcp, rx_alloc, rx_read);
}

/* Connections of the receiver not closed. */
static int rx_open(const struct rx *rx)
{
    int k = 0;
    for (const struct rx_conn *c = rx->conns; c != NULL; c = c->next)
        k += !c->closing;
    return k;
}

static void rx_server_closed(uv_handle_t *h)
{
    struct rx *rx = h->data;
    rx->handles--;
}

/* Listen on addr ("127.0.0.1" or "::1"), port 0. Returns 0 or a libuv error. */
static int rx_start(uv_loop_t *loop, struct rx *rx, const char *addr, const int *script,
                    size_t nscript)
{
    struct sockaddr_storage ss;
    int r = strchr(addr, ':') != NULL ? uv_ip6_addr(addr, 0, (struct sockaddr_in6 *)&ss)
                                      : uv_ip4_addr(addr, 0, (struct sockaddr_in *)&ss);
    assert_int_equal(r, 0);
    rx->script = script;
    rx->nscript = nscript;
    uv_tcp_init(loop, &rx->server);
    rx->server.data = rx;
    rx->handles++;
    rx->listening = 1;
    r = uv_tcp_bind(&rx->server, (struct sockaddr *)&ss, 0);
    if (r == 0)
        r = uv_listen((uv_stream_t *)&rx->server, 64, rx_connection);
    if (r < 0)
        return r;
    int len = sizeof ss;
    uv_tcp_getsockname(&rx->server, (struct sockaddr *)&ss, &len);
    rx->port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                              : ((struct sockaddr_in *)&ss)->sin_port);
    return 0;
}

static void rx_close(struct rx *rx)
{
    if (rx->listening) {
        rx->listening = 0;
        uv_close((uv_handle_t *)&rx->server, rx_server_closed);
    }
    for (struct rx_conn *c = rx->conns; c != NULL; c = c->next)
        rx_conn_close(c);
}

/* ---- the fixture ------------------------------------------------------------------- */

struct fx {
    uv_loop_t loop;
    uv_timer_t deadline;
    int timed_out;
    struct rx rx, rx2;
    struct wrd_notifier *n;
    int done_calls;
    int finished;
    char dir[256];              /* a temporary directory, or "" */
};

static void on_deadline(uv_timer_t *t)
{
    struct fx *f = t->data;
    f->timed_out = 1;
    uv_stop(&f->loop);
}

static void on_done(void *arg)
{
    struct fx *f = arg;
    f->done_calls++;
}

static int setup(void **state)
{
    struct fx *f = calloc(1, sizeof *f);
    if (f == NULL || uv_loop_init(&f->loop) != 0)
        return -1;
    uv_timer_init(&f->loop, &f->deadline);
    f->deadline.data = f;
    uv_timer_start(&f->deadline, on_deadline, DEADLINE_MS, 0);
    *state = f;
    return 0;
}

/* Run the loop until expr holds; fail on the deadline. */
#define RUN_UNTIL(f, expr)                                                              \
    do {                                                                                \
        while (!(expr) && !(f)->timed_out)                                              \
            uv_run(&(f)->loop, UV_RUN_ONCE);                                            \
        if ((f)->timed_out)                                                             \
            fail_msg("deadline passed waiting for %s", #expr);                           \
    } while (0)

/* A notifier whose receivers, on loopback, are allowed by the operator
 * (without the allow-list, loopback is refused: see test_destinations). */
static struct wrd_notifier *notifier_new(struct fx *f, const char *cmd)
{
    struct wrd_notifier *n = wrd_notifier_new(&f->loop, cmd);
    if (n != NULL && wrd_notifier_set_allow(n, "127.0.0.1, ::1", NULL) != 0)
        fail_msg("cannot set the allow-list");
    return n;
}

static struct wrd_notify_stats stats(struct fx *f)
{
    struct wrd_notify_stats s;
    wrd_notifier_stats(f->n, &s);
    return s;
}

/* Close the notifier and the receivers; the loop must end by itself before
 * the deadline, done must be called once, and the loop must close. */
static int finish(struct fx *f)
{
    if (f->finished)
        return 0;
    f->finished = 1;
    int ok = 1;
    if (f->n != NULL) {
        wrd_notifier_close(f->n, on_done, f);
        f->n = NULL;
        ok &= f->done_calls == 0;           /* never from inside the call */
    }
    rx_close(&f->rx);
    rx_close(&f->rx2);
    /* A fresh deadline that watches but keeps nothing alive. */
    f->timed_out = 0;
    uv_timer_start(&f->deadline, on_deadline, DEADLINE_MS, 0);
    uv_unref((uv_handle_t *)&f->deadline);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    ok &= !f->timed_out && f->done_calls == 1 && f->rx.handles == 0 && f->rx2.handles == 0;
    uv_close((uv_handle_t *)&f->deadline, NULL);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    ok &= uv_loop_close(&f->loop) == 0;
    if (!ok)
        fprintf(stderr, "finish: timed_out=%d done_calls=%d rx.handles=%d rx2.handles=%d\n",
                f->timed_out, f->done_calls, f->rx.handles, f->rx2.handles);
    return ok ? 0 : -1;
}

static void rm_dir(const char *dir)
{
    static const char *const files[] = { "env.txt", "env.tmp", "env.txt.tmp", "notify.sh", "sleeper.sh" };
    char path[400];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
}

static int teardown(void **state)
{
    struct fx *f = *state;
    int r = finish(f);
    if (f->dir[0] != '\0')
        rm_dir(f->dir);
    free(f);
    return r;
}

static void make_dir(struct fx *f)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(f->dir, sizeof f->dir, "%s/warroom-notify-XXXXXX", tmp ? tmp : "/tmp");
    assert_non_null(mkdtemp(f->dir));
}

static void write_script(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    assert_int_equal(fclose(fp), 0);
    assert_int_equal(chmod(path, 0755), 0);
}

/* A port nobody listens on: bind one, then close it. */
static int closed_port(struct fx *f)
{
    struct rx tmp;
    static const int any[] = { 200 };
    memset(&tmp, 0, sizeof tmp);
    assert_int_equal(rx_start(&f->loop, &tmp, "127.0.0.1", any, 1), 0);
    int port = tmp.port;
    rx_close(&tmp);
    while (tmp.handles > 0)
        uv_run(&f->loop, UV_RUN_ONCE);
    return port;
}

static const char body_json[] =
    "{\"event\":\"your_turn\",\"game\":\"g-1a2b3c4d5e6f\",\"seat\":\"allied\",\"version\":42,"
    "\"awaiting\":{\"seat\":\"allied\",\"phase\":\"movement\"},\"ruleset\":\"waterloo\"}";

static const struct wrd_notify_env env_turn = {
    .event = "your_turn", .game = "g-1a2b3c4d5e6f", .seat = "allied", .ruleset = "waterloo",
    .version = 42,
};

/* A your_turn notification for seat of game, its webhook set from owner
 * (NULL: unknown). Each (game, seat) has at most one webhook pending. */
static struct wrd_notify_env env_of(const char *game, const char *seat, const char *owner)
{
    return (struct wrd_notify_env){ .event = "your_turn", .game = game, .seat = seat,
                                    .ruleset = "tictactoe", .version = 1, .owner = owner };
}

/* ---- (a) the request on the wire ---------------------------------------------------- */

static void test_post_arrives(void **state)
{
    struct fx *f = *state;
    static const int script[] = { 200 };
    assert_int_equal(rx_start(&f->loop, &f->rx, "127.0.0.1", script, 1), 0);
    f->n = notifier_new(f, NULL);
    assert_non_null(f->n);
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/hooks/allied?token=abc#not-sent", f->rx.port);
    assert_int_equal(wrd_notify(f->n, url, body_json, &env_turn), 0);
    assert_int_equal(stats(f).webhooks_pending, 1);
    RUN_UNTIL(f, stats(f).webhooks_sent_total == 1);

    struct wrd_notify_stats s = stats(f);
    assert_int_equal(s.webhook_failures_total, 0);
    assert_int_equal(s.webhooks_pending, 0);
    assert_int_equal(s.commands_started_total, 0);
    assert_int_equal(f->rx.requests, 1);
    f->rx.last[f->rx.last_len] = '\0';
    const char *req = f->rx.last;
    const char *line = "POST /hooks/allied?token=abc HTTP/1.1\r\n";
    assert_memory_equal(req, line, strlen(line));
    char host[64], length[64];
    snprintf(host, sizeof host, "\r\nHost: 127.0.0.1:%d\r\n", f->rx.port);
    snprintf(length, sizeof length, "\r\nContent-Length: %zu\r\n", strlen(body_json));
    assert_non_null(strstr(req, host));
    assert_non_null(strstr(req, length));
    assert_non_null(strstr(req, "\r\nContent-Type: application/json\r\n"));
    assert_non_null(strstr(req, "\r\nConnection: close\r\n"));
    assert_non_null(strstr(req, "\r\nUser-Agent: warroomd\r\n"));
    const char *body = strstr(req, "\r\n\r\n");
    assert_non_null(body);
    assert_string_equal(body + 4, body_json);
}

/* A host name and no path: the name is resolved (uv_getaddrinfo) and the
 * request line says "/". Then an IPv6 literal, with brackets in Host. */
static void test_post_by_name_and_ipv6(void **state)
{
    struct fx *f = *state;
    static const int script[] = { 204 };
    assert_int_equal(rx_start(&f->loop, &f->rx, "127.0.0.1", script, 1), 0);
    f->n = notifier_new(f, NULL);
    assert_non_null(f->n);
    char url[128];
    snprintf(url, sizeof url, "http://localhost:%d", f->rx.port);
    assert_int_equal(wrd_notify(f->n, url, "{}", NULL), 0);
    RUN_UNTIL(f, stats(f).webhooks_sent_total == 1);
    f->rx.last[f->rx.last_len] = '\0';
    assert_memory_equal(f->rx.last, "POST / HTTP/1.1\r\n", 17);

    /* An IPv6 literal, when this machine has ::1. */
    if (rx_start(&f->loop, &f->rx2, "::1", script, 1) != 0) {
        print_message("no IPv6 loopback: the [::1] case is skipped\n");
        return;
    }
    snprintf(url, sizeof url, "http://[::1]:%d/v6", f->rx2.port);
    assert_int_equal(wrd_notify(f->n, url, "{}", NULL), 0);
    RUN_UNTIL(f, stats(f).webhooks_sent_total == 2);
    f->rx2.last[f->rx2.last_len] = '\0';
    char host[64];
    snprintf(host, sizeof host, "\r\nHost: [::1]:%d\r\n", f->rx2.port);
    assert_non_null(strstr(f->rx2.last, host));
}

/* ---- (b) 500, 500, 200 ---------------------------------------------------------------- */

static void test_retry_after_500(void **state)
{
    struct fx *f = *state;
    static const int script[] = { 500, 500, 200 };
    assert_int_equal(rx_start(&f->loop, &f->rx, "127.0.0.1", script, 3), 0);
    f->n = notifier_new(f, NULL);
    assert_non_null(f->n);
    wrd_notifier_set_timing(f->n, 20, 2000, 0);
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/h", f->rx.port);
    uint64_t t0 = uv_now(&f->loop);
    assert_int_equal(wrd_notify(f->n, url, body_json, &env_turn), 0);
    RUN_UNTIL(f, stats(f).webhooks_sent_total == 1);
    struct wrd_notify_stats s = stats(f);
    assert_int_equal(s.webhook_failures_total, 2);
    assert_int_equal(s.webhooks_given_up_total, 0);
    assert_int_equal(s.webhooks_pending, 0);
    assert_int_equal(f->rx.connections, 3);
    assert_int_equal(f->rx.requests, 3);
    /* It waited 20 then 40 ms between attempts. */
    uv_update_time(&f->loop);
    assert_true(uv_now(&f->loop) - t0 >= 60);
}

/* ---- (c) connection refused until it gives up ------------------------------------------- */

static void test_refused_gives_up(void **state)
{
    struct fx *f = *state;
    int port = closed_port(f);
    f->n = notifier_new(f, NULL);
    assert_non_null(f->n);
    wrd_notifier_set_timing(f->n, 10, 2000, 0);
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/h", port);
    uint64_t t0 = uv_now(&f->loop);
    assert_int_equal(wrd_notify(f->n, url, body_json, &env_turn), 0);
    RUN_UNTIL(f, stats(f).webhooks_given_up_total == 1);
    struct wrd_notify_stats s = stats(f);
    assert_int_equal(s.webhook_failures_total, 1 + WRD_NOTIFY_RETRIES);
    assert_int_equal(s.webhooks_sent_total, 0);
    assert_int_equal(s.webhooks_pending, 0);
    uv_update_time(&f->loop);
    assert_true(uv_now(&f->loop) - t0 >= 10 + 20 + 40 + 80 + 160);
}

/* ---- (d) a receiver that never answers ----------------------------------------------------- */

static void test_timeout_retried(void **state)
{
    struct fx *f = *state;
    static const int script[] = { RX_SILENT, RX_SILENT, 200 };
    assert_int_equal(rx_start(&f->loop, &f->rx, "127.0.0.1", script, 3), 0);
    f->n = notifier_new(f, NULL);
    assert_non_null(f->n);
    wrd_notifier_set_timing(f->n, 20, 100, 0);
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/slow", f->rx.port);
    assert_int_equal(wrd_notify(f->n, url, body_json, &env_turn), 0);
    RUN_UNTIL(f, stats(f).webhook_failures_total == 1);
    assert_int_equal(f->rx.requests, 1);        /* it was sent, then not answered */
    RUN_UNTIL(f, stats(f).webhooks_sent_total == 1);
    struct wrd_notify_stats s = stats(f);
    assert_int_equal(s.webhook_failures_total, 2);
    assert_int_equal(s.webhooks_pending, 0);
    assert_int_equal(f->rx.connections, 3);
    /* The silent connections were closed by the notifier. */
    RUN_UNTIL(f, f->rx.conns == NULL);
}

/* ---- (e) URLs --------------------------------------------------------------------------- */

struct url_row {
    int row;
    const char *url;
    int want;                   /* 0 or WRD_NOTIFY_EBADURL */
    const char *why;            /* a word of the reason, for refusals */
};

static void test_urls(void **state)
{
    struct fx *f = *state;
    static char too_long[WRD_NOTIFY_MAX_URL + 2], just_fits[WRD_NOTIFY_MAX_URL + 1];
    strcpy(too_long, "http://example.com/");
    memset(too_long + strlen(too_long), 'a', sizeof too_long - 1 - strlen(too_long));
    strcpy(just_fits, "http://example.com/");
    memset(just_fits + strlen(just_fits), 'a', sizeof just_fits - 1 - strlen(just_fits));
    assert_int_equal(strlen(too_long), WRD_NOTIFY_MAX_URL + 1);
    assert_int_equal(strlen(just_fits), WRD_NOTIFY_MAX_URL);

    const struct url_row rows[] = {
        { 1, "https://example.com/hook", WRD_NOTIFY_EBADURL, "https is not supported" },
        { 2, "HTTPS://example.com/hook", WRD_NOTIFY_EBADURL, "https is not supported" },
        { 3, "ftp://example.com/hook", WRD_NOTIFY_EBADURL, "not an http" },
        { 4, "http://", WRD_NOTIFY_EBADURL, "no host" },
        { 5, "http:///path", WRD_NOTIFY_EBADURL, "no host" },
        { 6, "http://host:99999/", WRD_NOTIFY_EBADURL, "port" },
        { 7, "http://host:0/", WRD_NOTIFY_EBADURL, "port" },
        { 8, "http://host:/", WRD_NOTIFY_EBADURL, "port" },
        { 9, "http://host:80x/", WRD_NOTIFY_EBADURL, "port" },
        { 10, "http://exa mple.com/", WRD_NOTIFY_EBADURL, "space" },
        { 11, "http://example.com/a b", WRD_NOTIFY_EBADURL, "space" },
        { 12, " http://example.com/", WRD_NOTIFY_EBADURL, "space" },
        { 13, "http://example.com/\r\nX-Injected: 1", WRD_NOTIFY_EBADURL, "control" },
        { 14, "http://exa\tmple.com/", WRD_NOTIFY_EBADURL, "control" },
        { 15, "http://example.com/\x7f", WRD_NOTIFY_EBADURL, "control" },
        { 16, "http://example.com/caf\xc3\xa9", WRD_NOTIFY_EBADURL, "non-ASCII" },
        { 17, too_long, WRD_NOTIFY_EBADURL, "2048" },
        { 18, "http://user:pw@example.com/", WRD_NOTIFY_EBADURL, "user" },
        { 19, "http://user@example.com/", WRD_NOTIFY_EBADURL, "user" },
        { 20, "http://[::1/", WRD_NOTIFY_EBADURL, "']'" },
        { 21, "http://[example.com]/", WRD_NOTIFY_EBADURL, "IPv6" },
        { 22, "http://[::1]x/", WRD_NOTIFY_EBADURL, "after the host" },
        { 23, "http://ex%61mple.com/", WRD_NOTIFY_EBADURL, "host name" },
        { 24, "", WRD_NOTIFY_EBADURL, "not an http" },
        { 25, "example.com/hook", WRD_NOTIFY_EBADURL, "not an http" },
        { 26, "http:example.com", WRD_NOTIFY_EBADURL, "not an http" },
        { 40, "http://example.com", 0, NULL },
        { 41, "http://example.com:8080/hook?x=1#frag", 0, NULL },
        { 42, "HTTP://Example.COM/Hook", 0, NULL },
        { 43, "http://[::1]:8080/x", 0, NULL },
        { 44, "http://[fe80::1]", 0, NULL },
        { 45, "http://127.0.0.1:65535/", 0, NULL },
        { 46, "http://example.com?x=1", 0, NULL },
        { 47, "http://my_host.example-1.org:1/", 0, NULL },
        { 48, just_fits, 0, NULL },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const struct url_row *r = &rows[i];
        const char *why = NULL;
        int got = wrd_notify_check_url(r->url, &why);
        if (got != r->want)
            fail_msg("row %d: got %d (%s), want %d", r->row, got, why ? why : "-", r->want);
        if (r->why != NULL && (why == NULL || strstr(why, r->why) == NULL))
            fail_msg("row %d: reason \"%s\" lacks \"%s\"", r->row, why ? why : "(null)", r->why);
    }

    /* wrd_notify refuses the same URLs and queues nothing, not even the command. */
    f->n = notifier_new(f, "/bin/true");
    assert_non_null(f->n);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        if (rows[i].want == 0)
            continue;
        int got = wrd_notify(f->n, rows[i].url, "{}", &env_turn);
        if (got != WRD_NOTIFY_EBADURL)
            fail_msg("row %d: wrd_notify returned %d", rows[i].row, got);
    }
    assert_int_equal(wrd_notify(f->n, NULL, "{}", NULL) == 0, 1);   /* command only */
    RUN_UNTIL(f, stats(f).commands_exited_total == 1);
    struct wrd_notify_stats s = stats(f);
    assert_int_equal(s.webhooks_pending, 0);
    assert_int_equal(s.commands_started_total, 1);
    assert_int_equal(s.commands_failed_total, 0);

    /* Arguments and sizes. */
    assert_int_equal(wrd_notify(NULL, NULL, NULL, NULL), WRD_NOTIFY_EINVAL);
    assert_int_equal(wrd_notify(f->n, "http://127.0.0.1:9/", NULL, NULL), WRD_NOTIFY_EINVAL);
    static char big[WRD_NOTIFY_MAX_BODY + 2];
    memset(big, ' ', sizeof big - 1);
    assert_int_equal(wrd_notify(f->n, "http://127.0.0.1:9/", big, NULL), WRD_NOTIFY_ETOOBIG);
    assert_int_equal(stats(f).webhooks_pending, 0);
    assert_int_equal(wrd_notify_check_url(NULL, NULL), WRD_NOTIFY_EBADURL);

    /* The error table. */
    assert_string_equal(wrd_notify_err_code(WRD_NOTIFY_EBADURL), "bad_url");
    assert_string_equal(wrd_notify_err_code(WRD_NOTIFY_EFULL), "full");
    assert_string_equal(wrd_notify_err_code(0), "ok");
    assert_string_equal(wrd_notify_err_code(-99), "unknown");
    assert_non_null(strstr(wrd_notify_err_text(WRD_NOTIFY_EBADURL), "https"));
}

/* ---- (e2) destinations -------------------------------------------------------------- */

/* text as a sockaddr, parsed as the resolver parses numeric hosts. */
static void sockaddr_of(int row, const char *text, struct sockaddr_storage *ss)
{
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICHOST;
    if (getaddrinfo(text, "80", &hints, &res) != 0 || res == NULL)
        fail_msg("row %d: the resolver does not take %s as numeric", row, text);
    memcpy(ss, res->ai_addr, res->ai_addrlen);
    freeaddrinfo(res);
}

struct addr_row {
    int row;
    const char *addr;
    const char *why;            /* a word of the refusal, or NULL: allowed */
};

/* The classifier, row by row: every refused range (its edges too), public
 * addresses just outside them, the IPv6 forms that embed an IPv4 address,
 * and the odd IPv4 spellings the resolver accepts. */
static void test_classifier(void **state)
{
    (void)state;
    static const struct addr_row rows[] = {
        /* IPv4, refused */
        { 1, "0.0.0.0", "unspecified" },
        { 2, "0.255.255.255", "unspecified" },
        { 3, "10.0.0.1", "(10.0.0.0/8)" },
        { 4, "10.255.255.255", "(10.0.0.0/8)" },
        { 5, "100.64.0.1", "carrier-grade NAT" },
        { 6, "100.127.255.255", "carrier-grade NAT" },
        { 7, "127.0.0.1", "loopback" },
        { 8, "127.255.255.254", "loopback" },
        { 9, "169.254.169.254", "cloud metadata" },
        { 10, "169.254.0.1", "link-local" },
        { 11, "169.254.255.255", "link-local" },
        { 12, "172.16.0.1", "(172.16.0.0/12)" },
        { 13, "172.31.255.255", "(172.16.0.0/12)" },
        { 14, "192.168.0.1", "(192.168.0.0/16)" },
        { 15, "192.168.255.255", "(192.168.0.0/16)" },
        { 16, "192.0.0.8", "IETF" },
        { 17, "192.0.2.1", "documentation" },
        { 18, "198.51.100.7", "documentation" },
        { 19, "203.0.113.9", "documentation" },
        { 20, "198.18.0.1", "benchmarking" },
        { 21, "198.19.255.255", "benchmarking" },
        { 22, "224.0.0.1", "multicast" },
        { 23, "239.255.255.250", "multicast" },
        { 24, "255.255.255.255", "broadcast" },
        { 25, "240.0.0.1", "reserved" },
        /* IPv4, allowed: public, and just outside each refused range */
        { 30, "8.8.8.8", NULL },
        { 31, "93.184.216.34", NULL },
        { 32, "1.0.0.0", NULL },
        { 33, "9.255.255.255", NULL },
        { 34, "11.0.0.0", NULL },
        { 35, "100.63.255.255", NULL },
        { 36, "100.128.0.0", NULL },
        { 37, "126.255.255.255", NULL },
        { 38, "128.0.0.0", NULL },
        { 39, "169.253.255.255", NULL },
        { 40, "169.255.0.0", NULL },
        { 41, "172.15.255.255", NULL },
        { 42, "172.32.0.0", NULL },
        { 43, "192.167.255.255", NULL },
        { 44, "192.169.0.0", NULL },
        { 45, "198.17.255.255", NULL },
        { 46, "198.20.0.0", NULL },
        { 47, "223.255.255.255", NULL },
        /* odd IPv4 spellings (inet_aton's) */
        { 50, "127.1", "loopback" },
        { 51, "2130706433", "loopback" },
        { 52, "0x7f.0.0.1", "loopback" },
        { 53, "0177.0.0.1", "loopback" },
        { 54, "0x7f000001", "loopback" },
        { 55, "10.1", "(10.0.0.0/8)" },
        { 56, "0", "unspecified" },
        { 57, "3232235777", "(192.168.0.0/16)" },
        { 58, "0xa9.0xfe.0xa9.0xfe", "cloud metadata" },
        { 59, "134744072", NULL },             /* 8.8.8.8 */
        /* IPv6 */
        { 60, "::", "unspecified" },
        { 61, "::1", "(::1)" },
        { 62, "fc00::1", "unique local" },
        { 63, "fd00:ec2::254", "unique local" },     /* a cloud's IPv6 metadata */
        { 64, "fe80::1", "(fe80::/10)" },
        { 65, "febf:ffff::1", "(fe80::/10)" },
        { 66, "fec0::1", "site-local" },
        { 67, "ff02::1", "(ff00::/8)" },
        { 68, "2001:db8::1", "documentation" },
        { 69, "2001:2::1", "benchmarking" },
        { 70, "100::1", "discard" },
        { 71, "64:ff9b:1::1", "local-use NAT64" },
        { 72, "2001:4860:4860::8888", NULL },
        { 73, "2606:4700:4700::1111", NULL },
        { 74, "fbff:ffff::1", NULL },
        { 75, "fe00::1", NULL },
        /* IPv6 forms of IPv4 addresses: judged by the IPv4 address */
        { 80, "::ffff:127.0.0.1", "(127.0.0.0/8)" },
        { 81, "::ffff:7f00:1", "(127.0.0.0/8)" },
        { 82, "::ffff:10.0.0.1", "(10.0.0.0/8)" },
        { 83, "::ffff:169.254.169.254", "cloud metadata" },
        { 84, "::ffff:0.0.0.0", "unspecified" },
        { 85, "::ffff:8.8.8.8", NULL },
        { 86, "::127.0.0.1", "(127.0.0.0/8)" },          /* compatible */
        { 87, "::ffff:0:127.0.0.1", "(127.0.0.0/8)" },   /* translated */
        { 88, "64:ff9b::10.0.0.1", "(10.0.0.0/8)" },      /* NAT64 */
        { 89, "64:ff9b::8.8.8.8", NULL },
        { 90, "2002:7f00:1::1", "(127.0.0.0/8)" },       /* 6to4 */
        { 91, "2002:a9fe:a9fe::1", "cloud metadata" },
        { 92, "2002:808:808::1", NULL },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const struct addr_row *r = &rows[i];
        struct sockaddr_storage ss;
        sockaddr_of(r->row, r->addr, &ss);
        const char *got = wrd_notify_addr_refused((struct sockaddr *)&ss);
        if (r->why == NULL && got != NULL)
            fail_msg("row %d: %s refused as %s, want allowed", r->row, r->addr, got);
        if (r->why != NULL && (got == NULL || strstr(got, r->why) == NULL))
            fail_msg("row %d: %s got %s, want \"%s\"", r->row, r->addr, got ? got : "allowed",
                     r->why);
    }
    /* Other families, and nothing at all, are refused. */
    struct sockaddr_storage un;
    memset(&un, 0, sizeof un);
    un.ss_family = AF_UNIX;
    assert_non_null(wrd_notify_addr_refused((struct sockaddr *)&un));
    assert_non_null(wrd_notify_addr_refused(NULL));
}

struct reg_row {
    int row;
    const char *allow;          /* the allow-list, or NULL */
    const char *url;
    int want;
    const char *why;            /* a word of the sentence, for errors */
};

/* What a client may register: IP literals in refused ranges (any spelling)
 * and localhost names are refused, names are not resolved, malformed URLs
 * stay malformed; the allow-list exempts names, addresses and ranges. */
static void test_registration_check(void **state)
{
    struct fx *f = *state;
    static const struct reg_row rows[] = {
        { 1, NULL, "http://127.0.0.1:9/hook", WRD_NOTIFY_EREFUSED, "127.0.0.1 is a loopback" },
        { 2, NULL, "http://127.1/", WRD_NOTIFY_EREFUSED, "loopback" },
        { 3, NULL, "http://2130706433/", WRD_NOTIFY_EREFUSED, "loopback" },
        { 4, NULL, "http://0x7f.0.0.1/", WRD_NOTIFY_EREFUSED, "loopback" },
        { 5, NULL, "http://0177.0.0.1:8080/x", WRD_NOTIFY_EREFUSED, "loopback" },
        { 6, NULL, "http://[::1]/", WRD_NOTIFY_EREFUSED, "loopback" },
        { 7, NULL, "http://[::ffff:127.0.0.1]/", WRD_NOTIFY_EREFUSED, "loopback" },
        { 8, NULL, "http://[::ffff:7f00:1]:80/", WRD_NOTIFY_EREFUSED, "loopback" },
        { 9, NULL, "http://10.0.0.5/", WRD_NOTIFY_EREFUSED, "private" },
        { 10, NULL, "http://172.20.1.1/", WRD_NOTIFY_EREFUSED, "private" },
        { 11, NULL, "http://192.168.0.1/", WRD_NOTIFY_EREFUSED, "private" },
        { 12, NULL, "http://169.254.169.254/latest/meta-data/", WRD_NOTIFY_EREFUSED,
          "cloud metadata" },
        { 13, NULL, "http://[fe80::1]/", WRD_NOTIFY_EREFUSED, "link-local" },
        { 14, NULL, "http://100.64.1.1/", WRD_NOTIFY_EREFUSED, "carrier-grade" },
        { 15, NULL, "http://0.0.0.0/", WRD_NOTIFY_EREFUSED, "unspecified" },
        { 16, NULL, "http://0/", WRD_NOTIFY_EREFUSED, "unspecified" },
        { 17, NULL, "http://224.0.0.1/", WRD_NOTIFY_EREFUSED, "multicast" },
        { 18, NULL, "http://255.255.255.255/", WRD_NOTIFY_EREFUSED, "broadcast" },
        { 19, NULL, "http://[fd00::1]/", WRD_NOTIFY_EREFUSED, "unique local" },
        { 20, NULL, "http://localhost/", WRD_NOTIFY_EREFUSED, "localhost" },
        { 21, NULL, "http://LOCALHOST:8080/", WRD_NOTIFY_EREFUSED, "localhost" },
        { 22, NULL, "http://localhost./", WRD_NOTIFY_EREFUSED, "localhost" },
        { 23, NULL, "http://hooks.localhost/", WRD_NOTIFY_EREFUSED, "localhost" },
        { 24, NULL, "http://a.b.LocalHost/", WRD_NOTIFY_EREFUSED, "localhost" },
        { 25, NULL, "http://[fe80::1%nosuchif]/", WRD_NOTIFY_EREFUSED, "link-local" },
        { 26, NULL, "http://[::1%25lo]/", WRD_NOTIFY_EREFUSED, "loopback" },
        /* accepted: public literals, and names (looked up only at delivery) */
        { 30, NULL, "http://example.com/hook", 0, NULL },
        { 31, NULL, "http://8.8.8.8/", 0, NULL },
        { 32, NULL, "http://[2001:4860:4860::8888]:8080/", 0, NULL },
        { 33, NULL, "http://localhost.example.com/", 0, NULL },
        { 34, NULL, "http://notlocalhost/", 0, NULL },
        { 35, NULL, "http://127.0.0.1.example.com/", 0, NULL },
        /* malformed stays malformed */
        { 40, NULL, "https://example.com/", WRD_NOTIFY_EBADURL, "https" },
        { 41, NULL, "http://", WRD_NOTIFY_EBADURL, "no host" },
        { 42, NULL, "https://127.0.0.1/", WRD_NOTIFY_EBADURL, "https" },
        { 43, NULL, NULL, WRD_NOTIFY_EBADURL, "no URL" },
        /* the allow-list */
        { 50, "127.0.0.1", "http://127.0.0.1:9/", 0, NULL },
        { 51, "127.0.0.1", "http://127.1/", 0, NULL },        /* the same address */
        { 52, "127.0.0.1", "http://[::ffff:127.0.0.1]/", 0, NULL },
        { 53, "127.0.0.1", "http://127.0.0.2/", WRD_NOTIFY_EREFUSED, "loopback" },
        { 54, "127.0.0.1", "http://localhost/", WRD_NOTIFY_EREFUSED, "localhost" },
        { 55, "10.0.0.0/8, ", "http://10.9.8.7/", 0, NULL },
        { 56, "10.0.0.0/8", "http://192.168.0.1/", WRD_NOTIFY_EREFUSED, "private" },
        { 57, "LocalHost.", "http://localhost:1/", 0, NULL },
        { 58, "localhost", "http://x.localhost/", WRD_NOTIFY_EREFUSED, "localhost" },
        { 59, "fd00::/8", "http://[fd12::1]/", 0, NULL },
        { 60, "fd00::/8", "http://[fc00::1]/", WRD_NOTIFY_EREFUSED, "unique local" },
        { 61, "[::1]", "http://[::1]:8080/", 0, NULL },
        { 62, "::ffff:10.0.0.0/104", "http://10.1.2.3/", 0, NULL },
        { 63, "hooks.lan", "http://HOOKS.LAN./x", 0, NULL },
        { 64, "hooks.lan", "https://hooks.lan/", WRD_NOTIFY_EBADURL, "https" },
    };
    f->n = wrd_notifier_new(&f->loop, NULL);
    assert_non_null(f->n);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const struct reg_row *r = &rows[i];
        if (wrd_notifier_set_allow(f->n, r->allow, NULL) != 0)
            fail_msg("row %d: allow-list '%s' refused", r->row, r->allow);
        char why[512] = "";
        int got = wrd_notifier_check_url(f->n, r->url, why, sizeof why);
        if (got != r->want)
            fail_msg("row %d: %s got %s (%s), want %s", r->row, r->url ? r->url : "NULL",
                     wrd_notify_err_code(got), why, wrd_notify_err_code(r->want));
        if (r->why != NULL && strstr(why, r->why) == NULL)
            fail_msg("row %d: \"%s\" lacks \"%s\"", r->row, why, r->why);
    }
    /* Without a notifier: no allow-list, the same table. */
    char why[512];
    assert_int_equal(wrd_notifier_check_url(NULL, "http://127.1/", why, sizeof why),
                     WRD_NOTIFY_EREFUSED);
    assert_int_equal(wrd_notifier_check_url(NULL, "http://example.com/", why, sizeof why), 0);
    assert_string_equal(wrd_notify_err_code(WRD_NOTIFY_EREFUSED), "webhook_refused");

    /* Allow-lists: good and bad. A bad one leaves the old one in place. */
    static const char *const good[] = { "", " , ", "127.0.0.1, localhost ,10.0.0.0/8",
                                        "[::1],::1/128,fd00::/8", "0.0.0.0/0", "h_1.example" };
    static const char *const bad[] = { "10.0.0.0/33", "::/129", "foo/8", "a b", "10.0.0.0/",
                                       "/8", "http://x", "10.0.0.0/-1", "[::1]/x" };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        if (wrd_notify_allow_check(good[i], NULL) != 0)
            fail_msg("allow-list '%s' refused", good[i]);
    assert_int_equal(wrd_notifier_set_allow(f->n, "127.0.0.1", NULL), 0);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *w = NULL;
        if (wrd_notify_allow_check(bad[i], &w) != WRD_NOTIFY_EINVAL || w == NULL)
            fail_msg("allow-list '%s' accepted", bad[i]);
        if (wrd_notifier_set_allow(f->n, bad[i], NULL) != WRD_NOTIFY_EINVAL)
            fail_msg("allow-list '%s' set", bad[i]);
    }
    assert_int_equal(wrd_notifier_check_url(f->n, "http://127.0.0.1/", why, sizeof why), 0);
}

/* Run fn with stderr going to a file; returns what was written (static). */
static const char *capture_log(struct fx *f, void (*fn)(struct fx *))
{
    char path[400];
    snprintf(path, sizeof path, "%s/env.txt", f->dir);
    fflush(stderr);
    int saved = dup(2);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(saved >= 0 && fd >= 0);
    assert_true(dup2(fd, 2) == 2);
    close(fd);
    fn(f);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    static char text[65536];
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    size_t n = fread(text, 1, sizeof text - 1, fp);
    fclose(fp);
    text[n] = '\0';
    return text;
}

static void refuse_three(struct fx *f)
{
    char url[128];
    /* A name straight to wrd_notify: looked up, then refused. */
    snprintf(url, sizeof url, "http://localhost:%d/secret-path?token=s3cr3t", f->rx.port);
    assert_int_equal(wrd_notify(f->n, url, body_json, &env_turn), 0);
    RUN_UNTIL(f, stats(f).webhooks_refused_total == 1);
    /* IP literals, in spellings the resolver takes. */
    snprintf(url, sizeof url, "http://127.1:%d/secret-path", f->rx.port);
    assert_int_equal(wrd_notify(f->n, url, body_json, &env_turn), 0);
    snprintf(url, sizeof url, "http://[::ffff:127.0.0.1]:%d/secret-path", f->rx.port);
    assert_int_equal(wrd_notify(f->n, url, body_json, &env_turn), 0);
    RUN_UNTIL(f, stats(f).webhooks_refused_total == 3);
}

/* At delivery: whatever the name resolves to is checked, and nothing is
 * connected to when every address is refused. The log names host and port,
 * never the path. The allow-list lets the same URLs through. */
static void test_refused_at_delivery(void **state)
{
    struct fx *f = *state;
    make_dir(f);
    static const int script[] = { 200 };
    assert_int_equal(rx_start(&f->loop, &f->rx, "127.0.0.1", script, 1), 0);
    f->n = wrd_notifier_new(&f->loop, NULL);         /* no allow-list */
    assert_non_null(f->n);
    wrd_notifier_set_timing(f->n, 10, 2000, 0);
    wrd_log_set_level(WRD_LOG_DEBUG);
    const char *log = capture_log(f, refuse_three);
    wrd_log_set_level(WRD_LOG_WARN);
    struct wrd_notify_stats s = stats(f);
    assert_int_equal(s.webhooks_refused_total, 3);
    assert_int_equal(s.webhooks_pending, 0);
    assert_int_equal(s.webhooks_sent_total, 0);
    assert_int_equal(s.webhook_failures_total, 0);      /* refused, not failed: no retry */
    assert_int_equal(f->rx.connections, 0);
    assert_int_equal(f->rx.requests, 0);
    char host[64];
    snprintf(host, sizeof host, "host=localhost port=%d", f->rx.port);
    if (strstr(log, "msg=\"webhook destination refused\"") == NULL || strstr(log, host) == NULL ||
        strstr(log, "addr=127.0.0.1") == NULL || strstr(log, "loopback") == NULL)
        fail_msg("the log does not say what was refused:\n%s", log);
    if (strstr(log, "secret-path") != NULL || strstr(log, "s3cr3t") != NULL)
        fail_msg("the log shows a path:\n%s", log);

    /* Allowed by name: every address of the name; by range: the address. */
    assert_int_equal(wrd_notifier_set_allow(f->n, "localhost", NULL), 0);
    char url[128];
    snprintf(url, sizeof url, "http://localhost:%d/by-name", f->rx.port);
    assert_int_equal(wrd_notify(f->n, url, body_json, &env_turn), 0);
    RUN_UNTIL(f, stats(f).webhooks_sent_total == 1);
    assert_int_equal(wrd_notifier_set_allow(f->n, "127.0.0.0/8", NULL), 0);
    snprintf(url, sizeof url, "http://127.1:%d/by-range", f->rx.port);
    assert_int_equal(wrd_notify(f->n, url, body_json, &env_turn), 0);
    RUN_UNTIL(f, stats(f).webhooks_sent_total == 2);
    assert_int_equal(f->rx.requests, 2);
    f->rx.last[f->rx.last_len] = '\0';
    assert_memory_equal(f->rx.last, "POST /by-range ", 15);
    assert_int_equal(stats(f).webhooks_refused_total, 3);
}

/* ---- (f) the notify command ------------------------------------------------------------------ */

static char *read_file(const char *path)
{
    FILE *fp = fopen(path, "r");
    if (fp == NULL)
        return NULL;
    static char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    buf[n] = '\0';
    return buf;
}

static void test_command_env(void **state)
{
    struct fx *f = *state;
    make_dir(f);
    char script[400], text[2048], out[400];
    snprintf(script, sizeof script, "%s/notify.sh", f->dir);
    snprintf(out, sizeof out, "%s/env.txt", f->dir);
    snprintf(text, sizeof text,
             "#!/bin/sh\n"
             "{\n"
             "  echo \"event=$WARROOM_EVENT\"\n"
             "  echo \"game=$WARROOM_GAME\"\n"
             "  echo \"seat=$WARROOM_SEAT\"\n"
             "  echo \"version=$WARROOM_VERSION\"\n"
             "  echo \"ruleset=$WARROOM_RULESET\"\n"
             "  echo \"reason=$WARROOM_REASON\"\n"
             "  echo \"parent=$WT_NOTIFY_PARENT\"\n"
             "  if read -r line; then echo stdin=data; else echo stdin=eof; fi\n"
             "} > '%s/env.tmp' && mv '%s/env.tmp' '%s'\n",
             f->dir, f->dir, out);
    write_script(script, text);

    /* The child gets the parent's environment, with the notifier's WARROOM_*
     * values winning over stale ones. */
    setenv("WT_NOTIFY_PARENT", "inherited", 1);
    setenv("WARROOM_EVENT", "stale", 1);
    setenv("WARROOM_REASON", "stale", 1);
    f->n = notifier_new(f, script);
    assert_non_null(f->n);
    const struct wrd_notify_env env = {
        .event = "deadline_expired", .game = "g-00aa11bb22cc", .seat = "french",
        .ruleset = "waterloo", .version = 1234567,
        .reason = "french: no decision (move) in 86400 s (deadline 2026-12-02 10:00:00 UTC)",
    };
    assert_int_equal(wrd_notify(f->n, NULL, NULL, &env), 0);
    unsetenv("WT_NOTIFY_PARENT");
    unsetenv("WARROOM_EVENT");
    unsetenv("WARROOM_REASON");
    RUN_UNTIL(f, stats(f).commands_exited_total == 1);
    struct wrd_notify_stats s = stats(f);
    assert_int_equal(s.commands_started_total, 1);
    assert_int_equal(s.commands_failed_total, 0);
    assert_int_equal(s.commands_running, 0);
    const char *got = read_file(out);
    assert_non_null(got);
    assert_string_equal(got,
                        "event=deadline_expired\n"
                        "game=g-00aa11bb22cc\n"
                        "seat=french\n"
                        "version=1234567\n"
                        "ruleset=waterloo\n"
                        "reason=french: no decision (move) in 86400 s (deadline 2026-12-02 "
                        "10:00:00 UTC)\n"
                        "parent=inherited\n"
                        "stdin=eof\n");

    /* No env: every value empty, version 0. */
    unlink(out);
    assert_int_equal(wrd_notify(f->n, NULL, NULL, NULL), 0);
    RUN_UNTIL(f, stats(f).commands_exited_total == 2);
    got = read_file(out);
    assert_non_null(got);
    assert_string_equal(got, "event=\ngame=\nseat=\nversion=0\nruleset=\nreason=\nparent=\n"
                                  "stdin=eof\n");
}

static void test_command_failures(void **state)
{
    struct fx *f = *state;
    /* A non-zero exit is counted (and logged). */
    f->n = notifier_new(f, "false");
    assert_non_null(f->n);
    assert_int_equal(wrd_notify(f->n, NULL, NULL, &env_turn), 0);
    RUN_UNTIL(f, stats(f).commands_exited_total == 1);
    assert_int_equal(stats(f).commands_failed_total, 1);
    assert_int_equal(stats(f).commands_started_total, 1);
    wrd_notifier_close(f->n, on_done, f);
    f->n = NULL;
    RUN_UNTIL(f, f->done_calls == 1);
    f->done_calls = 0;

    /* A program that does not exist never starts. */
    f->n = notifier_new(f, "/nonexistent/warroom-notify");
    assert_non_null(f->n);
    assert_int_equal(wrd_notify(f->n, NULL, NULL, &env_turn), 0);
    struct wrd_notify_stats s = stats(f);
    assert_int_equal(s.commands_started_total, 0);
    assert_int_equal(s.commands_failed_total, 1);
    assert_int_equal(s.commands_running, 0);
}

/* At most max_children run; max_queued wait; the rest is dropped. */
static void test_command_bounds(void **state)
{
    struct fx *f = *state;
    f->n = notifier_new(f, "true");
    assert_non_null(f->n);
    wrd_notifier_set_limits(f->n, 0, 2, 3);
    for (int i = 0; i < 5; i++)
        assert_int_equal(wrd_notify(f->n, NULL, NULL, &env_turn), 0);
    struct wrd_notify_stats s = stats(f);
    assert_int_equal(s.commands_running, 2);
    assert_int_equal(s.commands_queued, 3);
    assert_int_equal(wrd_notify(f->n, NULL, NULL, &env_turn), WRD_NOTIFY_EFULL);
    assert_int_equal(stats(f).commands_dropped_total, 1);
    RUN_UNTIL(f, stats(f).commands_exited_total == 5);
    s = stats(f);
    assert_int_equal(s.commands_started_total, 5);
    assert_int_equal(s.commands_failed_total, 0);
    assert_int_equal(s.commands_queued, 0);
    assert_int_equal(s.commands_running, 0);
}

/* At most max_pending webhooks are pending; past it they are dropped, but
 * the command of the same notification still runs. */
static void test_webhook_bounds(void **state)
{
    struct fx *f = *state;
    static const int script[] = { RX_SILENT };
    assert_int_equal(rx_start(&f->loop, &f->rx, "127.0.0.1", script, 1), 0);
    f->n = notifier_new(f, "true");
    assert_non_null(f->n);
    wrd_notifier_set_limits(f->n, 2, 0, 0);
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/", f->rx.port);
    const struct wrd_notify_env e[3] = { env_of("g-1", "a", NULL), env_of("g-1", "b", NULL),
                                         env_of("g-1", "c", NULL) };
    assert_int_equal(wrd_notify(f->n, url, "{}", &e[0]), 0);
    assert_int_equal(wrd_notify(f->n, url, "{}", &e[1]), 0);
    assert_int_equal(wrd_notify(f->n, url, "{}", &e[2]), WRD_NOTIFY_EFULL);
    struct wrd_notify_stats s = stats(f);
    assert_int_equal(s.webhooks_pending, 2);
    assert_int_equal(s.webhooks_dropped_total, 1);
    assert_int_equal(s.commands_started_total, 3);
    RUN_UNTIL(f, f->rx.requests == 2 && stats(f).commands_exited_total == 3);
    /* teardown closes with both requests in flight */
}

/* The body of the last request the receiver got. */
static const char *last_body(struct fx *f)
{
    f->rx.last[f->rx.last_len] = '\0';
    const char *b = strstr(f->rx.last, "\r\n\r\n");
    return b != NULL ? b + 4 : "";
}

/* A seat has at most one webhook pending: a newer notification replaces
 * the one waiting to retry (only the newest is sent), and one that comes
 * while an attempt is in flight is sent once that attempt is answered. */
static void test_seat_replaces(void **state)
{
    struct fx *f = *state;
    static const int script[] = { 500, 200, RX_SILENT, 200 };
    assert_int_equal(rx_start(&f->loop, &f->rx, "127.0.0.1", script, 4), 0);
    f->n = notifier_new(f, NULL);
    assert_non_null(f->n);
    wrd_notifier_set_timing(f->n, 50, 60000, 0);
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/seat", f->rx.port);
    const struct wrd_notify_env seat = env_of("g-1", "o", "203.0.113.7");

    /* v1 fails (500) and waits to retry; v2 then v3 come meanwhile. */
    assert_int_equal(wrd_notify(f->n, url, "{\"v\":1}", &seat), 0);
    RUN_UNTIL(f, stats(f).webhook_failures_total == 1);
    assert_int_equal(wrd_notify(f->n, url, "{\"v\":2}", &seat), 0);
    assert_int_equal(wrd_notify(f->n, url, "{\"v\":3}", &seat), 0);
    struct wrd_notify_stats s = stats(f);
    assert_int_equal(s.webhooks_pending, 1);
    assert_int_equal(s.webhooks_replaced_total, 1);         /* v2, never attempted */
    RUN_UNTIL(f, stats(f).webhooks_sent_total == 1);
    assert_int_equal(f->rx.requests, 2);                    /* v1 (500), then v3 */
    assert_string_equal(last_body(f), "{\"v\":3}");
    s = stats(f);
    assert_int_equal(s.webhooks_replaced_total, 2);         /* v1 too, never answered 2xx */
    assert_int_equal(s.webhooks_pending, 0);

    /* v4 in flight (the receiver holds it unanswered); v5 waits for it. */
    assert_int_equal(wrd_notify(f->n, url, "{\"v\":4}", &seat), 0);
    RUN_UNTIL(f, f->rx.requests == 3);
    assert_int_equal(wrd_notify(f->n, url, "{\"v\":5}", &seat), 0);
    assert_int_equal(stats(f).webhooks_pending, 1);
    struct rx_conn *c = f->rx.conns;
    while (c != NULL && !(c->done && !c->closing))
        c = c->next;
    assert_non_null(c);
    static char ok[] = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
    uv_buf_t b = uv_buf_init(ok, sizeof ok - 1);
    c->wr.data = c;
    assert_int_equal(uv_write(&c->wr, (uv_stream_t *)&c->tcp, &b, 1, rx_written), 0);
    RUN_UNTIL(f, stats(f).webhooks_sent_total == 3);
    assert_int_equal(f->rx.requests, 4);                    /* v4 answered, then v5 */
    assert_string_equal(last_body(f), "{\"v\":5}");
    s = stats(f);
    assert_int_equal(s.webhooks_replaced_total, 2);         /* both v4 and v5 were sent */
    assert_int_equal(s.webhooks_pending, 0);
    assert_int_equal(s.webhooks_dropped_total, 0);
}

/* An owner holds at most max_per_owner pending webhooks, whoever else
 * holds what; an IPv6 owner counts by its /64, an IPv4-mapped one as IPv4,
 * and without an owner the destination host stands in. */
static void test_owner_shares(void **state)
{
    struct fx *f = *state;
    static const int script[] = { RX_SILENT };
    assert_int_equal(rx_start(&f->loop, &f->rx, "127.0.0.1", script, 1), 0);
    f->n = notifier_new(f, NULL);
    assert_non_null(f->n);
    wrd_notifier_set_timing(f->n, 60000, 60000, 0);
    wrd_notifier_set_max_per_owner(f->n, 3);
    char url[128], byname[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/", f->rx.port);
    snprintf(byname, sizeof byname, "http://localhost:%d/", f->rx.port);
    static const struct {
        int row;
        const char *owner;
        const char *seat;
        int by_name;
        int want;
    } rows[] = {
        { 1, "10.0.0.1", "a1", 0, 0 },
        { 2, "10.0.0.1", "a2", 0, 0 },
        { 3, "10.0.0.1", "a3", 0, 0 },
        { 4, "10.0.0.1", "a4", 0, WRD_NOTIFY_EFULL },      /* its share is full */
        { 5, "::ffff:10.0.0.1", "a5", 0, WRD_NOTIFY_EFULL },
        { 6, "10.0.0.1", "a1", 0, 0 },                     /* a newer one for a1: no new place */
        { 7, "10.0.0.2", "b1", 0, 0 },                     /* another owner: its own share */
        { 10, "2001:db8:1:2::1", "c1", 0, 0 },
        { 11, "2001:db8:1:2::99", "c2", 0, 0 },
        { 12, "2001:db8:1:2:ffff::", "c3", 0, 0 },
        { 13, "2001:db8:1:2::7", "c4", 0, WRD_NOTIFY_EFULL },   /* the same /64 */
        { 14, "2001:db8:1:3::1", "d1", 0, 0 },
        { 20, NULL, "e1", 0, 0 },                          /* unknown: "to 127.0.0.1" */
        { 21, "", "e2", 0, 0 },
        { 22, NULL, "e3", 0, 0 },
        { 23, NULL, "e4", 0, WRD_NOTIFY_EFULL },
        { 24, NULL, "e5", 1, 0 },                          /* "to localhost" */
    };
    unsigned dropped = 0;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const struct wrd_notify_env e = env_of("g-7", rows[i].seat, rows[i].owner);
        int got = wrd_notify(f->n, rows[i].by_name ? byname : url, "{}", &e);
        if (got != rows[i].want)
            fail_msg("row %d: got %s, want %s", rows[i].row, wrd_notify_err_code(got),
                     wrd_notify_err_code(rows[i].want));
        dropped += rows[i].want != 0;
    }
    struct wrd_notify_stats s = stats(f);
    assert_int_equal(s.webhooks_dropped_total, dropped);
    assert_int_equal(s.webhooks_pending, 3 + 1 + 3 + 1 + 3 + 1);
    assert_int_equal(s.webhooks_replaced_total, 0);    /* a1's newer one waits, unsent */
    /* Every pending one is in flight at the silent receiver. */
    RUN_UNTIL(f, f->rx.requests == 12);
    /* A place given back is a place to take again. */
    wrd_notifier_set_max_per_owner(f->n, 4);
    const struct wrd_notify_env e = env_of("g-7", "a4", "10.0.0.1");
    assert_int_equal(wrd_notify(f->n, url, "{}", &e), 0);
    assert_int_equal(stats(f).webhooks_pending, 13);
}

/* When every place is taken, an owner holding fewer takes a place from the
 * owner holding the most (at least two more), never from one holding about
 * as many: one owner cannot keep the others out by filling the server. */
static void test_full_server_evicts_the_greediest(void **state)
{
    struct fx *f = *state;
    static const int script[] = { RX_SILENT };
    assert_int_equal(rx_start(&f->loop, &f->rx, "127.0.0.1", script, 1), 0);
    f->n = notifier_new(f, NULL);
    assert_non_null(f->n);
    wrd_notifier_set_timing(f->n, 60000, 60000, 0);
    wrd_notifier_set_limits(f->n, 4, 0, 0);
    wrd_notifier_set_max_per_owner(f->n, 10);
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/", f->rx.port);
    static const struct {
        int row;
        const char *owner;
        const char *seat;
        int want;
        unsigned dropped;       /* the counter after the row */
    } rows[] = {
        { 1, "198.51.100.1", "a1", 0, 0 },
        { 2, "198.51.100.1", "a2", 0, 0 },
        { 3, "198.51.100.1", "a3", 0, 0 },
        { 4, "198.51.100.1", "a4", 0, 0 },     /* A holds every place */
        { 5, "198.51.100.1", "a5", WRD_NOTIFY_EFULL, 1 },
        { 6, "198.51.100.2", "b1", 0, 2 },     /* B 0 < A 4 - 1: A gives one up */
        { 7, "198.51.100.2", "b2", 0, 3 },     /* B 1, A 3 */
        { 8, "198.51.100.2", "b3", WRD_NOTIFY_EFULL, 4 },  /* B 2, A 2: full */
        { 9, "198.51.100.3", "c1", 0, 5 },     /* C 0: from A or B */
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const struct wrd_notify_env e = env_of("g-9", rows[i].seat, rows[i].owner);
        int got = wrd_notify(f->n, url, "{}", &e);
        if (got != rows[i].want)
            fail_msg("row %d: got %s, want %s", rows[i].row, wrd_notify_err_code(got),
                     wrd_notify_err_code(rows[i].want));
        struct wrd_notify_stats s = stats(f);
        if (s.webhooks_dropped_total != rows[i].dropped || s.webhooks_pending > 4)
            fail_msg("row %d: dropped %llu, pending %u", rows[i].row,
                     (unsigned long long)s.webhooks_dropped_total, s.webhooks_pending);
        if (rows[i].row == 4)
            RUN_UNTIL(f, f->rx.requests == 4);  /* A's four are in flight */
    }
    assert_int_equal(stats(f).webhooks_pending, 4);
    /* The three evicted had their connections closed; B's two and C's one
     * arrived: four open at the receiver. */
    RUN_UNTIL(f, f->rx.requests == 7 && rx_open(&f->rx) == 4);
    assert_int_equal(f->rx.connections, 7);
}

/* A response whose status line never ends fails after 8 KiB, without
 * waiting for the time-out. */
static void test_endless_status_line(void **state)
{
    struct fx *f = *state;
    static const int script[] = { RX_SILENT };      /* the test answers by hand */
    assert_int_equal(rx_start(&f->loop, &f->rx, "127.0.0.1", script, 1), 0);
    f->n = notifier_new(f, NULL);
    assert_non_null(f->n);
    wrd_notifier_set_timing(f->n, 60000, 10000, 0);
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/", f->rx.port);
    assert_int_equal(wrd_notify(f->n, url, "{}", NULL), 0);
    RUN_UNTIL(f, f->rx.requests == 1);
    struct rx_conn *c = f->rx.conns;
    assert_non_null(c);
    static char junk[WRD_NOTIFY_MAX_RESPONSE + 100];
    memset(junk, 'x', sizeof junk);
    uv_buf_t b = uv_buf_init(junk, sizeof junk);
    c->wr.data = c;
    assert_int_equal(uv_write(&c->wr, (uv_stream_t *)&c->tcp, &b, 1, rx_written), 0);
    RUN_UNTIL(f, stats(f).webhook_failures_total == 1);
    assert_int_equal(stats(f).webhooks_sent_total, 0);
    assert_int_equal(stats(f).webhooks_pending, 1);     /* waiting to retry */
}

/* ---- (g) close with work in flight --------------------------------------------------------------- */

static void test_close_in_flight(void **state)
{
    struct fx *f = *state;
    make_dir(f);
    char sleeper[400];
    snprintf(sleeper, sizeof sleeper, "%s/sleeper.sh", f->dir);
    write_script(sleeper, "#!/bin/sh\nexec sleep 30\n");

    static const int script[] = { RX_SILENT };
    assert_int_equal(rx_start(&f->loop, &f->rx, "127.0.0.1", script, 1), 0);
    int port = closed_port(f);
    f->n = notifier_new(f, sleeper);
    assert_non_null(f->n);
    /* A grace longer than the deadline: the children must go on SIGTERM. */
    wrd_notifier_set_timing(f->n, 60000, 60000, 2 * DEADLINE_MS);
    wrd_notifier_set_limits(f->n, 0, 2, 0);
    char silent[128], refused[128];
    snprintf(silent, sizeof silent, "http://127.0.0.1:%d/in-flight", f->rx.port);
    snprintf(refused, sizeof refused, "http://127.0.0.1:%d/retry", port);

    /* In flight: sent, never answered. Pending retry: refused once, next try in 60 s.
     * Two children running, one queued. */
    const struct wrd_notify_env e1 = env_of("g-1", "a", NULL), e2 = env_of("g-1", "b", NULL);
    assert_int_equal(wrd_notify(f->n, silent, body_json, &e1), 0);
    assert_int_equal(wrd_notify(f->n, refused, body_json, &e2), 0);
    assert_int_equal(wrd_notify(f->n, NULL, NULL, &env_turn), 0);
    RUN_UNTIL(f, f->rx.requests == 1 && stats(f).webhook_failures_total == 1);
    struct wrd_notify_stats s = stats(f);
    assert_int_equal(s.webhooks_pending, 2);
    assert_int_equal(s.commands_running, 2);
    assert_int_equal(s.commands_queued, 1);

    /* A name lookup in progress, too (and a second queued command). */
    char byname[128];
    snprintf(byname, sizeof byname, "http://localhost:%d/lookup", f->rx.port);
    assert_int_equal(wrd_notify(f->n, byname, "{}", NULL), 0);

    uv_update_time(&f->loop);
    uint64_t t0 = uv_now(&f->loop);
    wrd_notifier_close(f->n, on_done, f);
    f->n = NULL;
    assert_int_equal(f->done_calls, 0);
    rx_close(&f->rx);
    uv_unref((uv_handle_t *)&f->deadline);
    /* The loop ends by itself: nothing is left alive. */
    uv_run(&f->loop, UV_RUN_DEFAULT);
    assert_false(f->timed_out);
    assert_int_equal(f->done_calls, 1);
    assert_true(uv_now(&f->loop) - t0 < DEADLINE_MS / 2);
    f->finished = 1;
    uv_close((uv_handle_t *)&f->deadline, NULL);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&f->loop), 0);
}

static void on_tick(uv_timer_t *t)
{
}

/* A child that ignores SIGTERM is killed once the grace is over. */
static void test_close_kills_stubborn_child(void **state)
{
    struct fx *f = *state;
    make_dir(f);
    char sleeper[400], ready[400], text[2048];
    snprintf(sleeper, sizeof sleeper, "%s/sleeper.sh", f->dir);
    snprintf(ready, sizeof ready, "%s/env.txt", f->dir);
    /* The pid stays that of sleep after exec. */
    snprintf(text, sizeof text,
             "#!/bin/sh\ntrap '' TERM\necho $$ > '%s.tmp' && mv '%s.tmp' '%s'\nexec sleep 30\n",
             ready, ready, ready);
    write_script(sleeper, text);
    f->n = notifier_new(f, sleeper);
    assert_non_null(f->n);
    wrd_notifier_set_timing(f->n, 0, 0, 100);
    assert_int_equal(wrd_notify(f->n, NULL, NULL, &env_turn), 0);
    /* Wait until the trap is set: a ticking timer wakes the loop to look. */
    uv_timer_t tick;
    uv_timer_init(&f->loop, &tick);
    uv_timer_start(&tick, on_tick, 5, 5);
    RUN_UNTIL(f, access(ready, F_OK) == 0);
    uv_close((uv_handle_t *)&tick, NULL);
    assert_int_equal(stats(f).commands_running, 1);
    uv_update_time(&f->loop);
    uint64_t t0 = uv_now(&f->loop);
    assert_int_equal(finish(f), 0);
    assert_true(uv_now(&f->loop) - t0 >= 100);
    /* The notifier no longer watches it; it died of SIGKILL (were it not
     * killed, this would wait for the end of sleep 30 and fail). */
    const char *pid_text = read_file(ready);
    assert_non_null(pid_text);
    pid_t pid = (pid_t)atol(pid_text);
    assert_true(pid > 0);
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGKILL);
}

/* Closing an idle notifier still calls done from the loop. */
static void test_close_idle(void **state)
{
    struct fx *f = *state;
    f->n = notifier_new(f, NULL);
    assert_non_null(f->n);
    /* teardown: close, done once, loop closes */
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);   /* as warroomd must */
    const char *lvl = getenv("WT_LOG_LEVEL");
    wrd_log_set_level(lvl != NULL && wrd_log_parse_level(lvl) >= 0
                          ? (enum wrd_log_level)wrd_log_parse_level(lvl) : WRD_LOG_WARN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_post_arrives, setup, teardown),
        cmocka_unit_test_setup_teardown(test_post_by_name_and_ipv6, setup, teardown),
        cmocka_unit_test_setup_teardown(test_retry_after_500, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refused_gives_up, setup, teardown),
        cmocka_unit_test_setup_teardown(test_timeout_retried, setup, teardown),
        cmocka_unit_test_setup_teardown(test_urls, setup, teardown),
        cmocka_unit_test(test_classifier),
        cmocka_unit_test_setup_teardown(test_registration_check, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refused_at_delivery, setup, teardown),
        cmocka_unit_test_setup_teardown(test_command_env, setup, teardown),
        cmocka_unit_test_setup_teardown(test_command_failures, setup, teardown),
        cmocka_unit_test_setup_teardown(test_command_bounds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_webhook_bounds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_seat_replaces, setup, teardown),
        cmocka_unit_test_setup_teardown(test_owner_shares, setup, teardown),
        cmocka_unit_test_setup_teardown(test_full_server_evicts_the_greediest, setup, teardown),
        cmocka_unit_test_setup_teardown(test_endless_status_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_close_in_flight, setup, teardown),
        cmocka_unit_test_setup_teardown(test_close_kills_stubborn_child, setup, teardown),
        cmocka_unit_test_setup_teardown(test_close_idle, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
