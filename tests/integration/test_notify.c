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

/* ---- (a) the request on the wire ---------------------------------------------------- */

static void test_post_arrives(void **state)
{
    struct fx *f = *state;
    static const int script[] = { 200 };
    assert_int_equal(rx_start(&f->loop, &f->rx, "127.0.0.1", script, 1), 0);
    f->n = wrd_notifier_new(&f->loop, NULL);
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
    f->n = wrd_notifier_new(&f->loop, NULL);
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
    f->n = wrd_notifier_new(&f->loop, NULL);
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
    f->n = wrd_notifier_new(&f->loop, NULL);
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
    f->n = wrd_notifier_new(&f->loop, NULL);
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
    f->n = wrd_notifier_new(&f->loop, "/bin/true");
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
             "  echo \"parent=$WT_NOTIFY_PARENT\"\n"
             "  if read -r line; then echo stdin=data; else echo stdin=eof; fi\n"
             "} > '%s/env.tmp' && mv '%s/env.tmp' '%s'\n",
             f->dir, f->dir, out);
    write_script(script, text);

    /* The child gets the parent's environment, with the notifier's WARROOM_*
     * values winning over stale ones. */
    setenv("WT_NOTIFY_PARENT", "inherited", 1);
    setenv("WARROOM_EVENT", "stale", 1);
    f->n = wrd_notifier_new(&f->loop, script);
    assert_non_null(f->n);
    const struct wrd_notify_env env = {
        .event = "deadline_reminder", .game = "g-00aa11bb22cc", .seat = "french",
        .ruleset = "waterloo", .version = 1234567,
    };
    assert_int_equal(wrd_notify(f->n, NULL, NULL, &env), 0);
    unsetenv("WT_NOTIFY_PARENT");
    unsetenv("WARROOM_EVENT");
    RUN_UNTIL(f, stats(f).commands_exited_total == 1);
    struct wrd_notify_stats s = stats(f);
    assert_int_equal(s.commands_started_total, 1);
    assert_int_equal(s.commands_failed_total, 0);
    assert_int_equal(s.commands_running, 0);
    const char *got = read_file(out);
    assert_non_null(got);
    assert_string_equal(got,
                        "event=deadline_reminder\n"
                        "game=g-00aa11bb22cc\n"
                        "seat=french\n"
                        "version=1234567\n"
                        "ruleset=waterloo\n"
                        "parent=inherited\n"
                        "stdin=eof\n");

    /* No env: every value empty, version 0. */
    unlink(out);
    assert_int_equal(wrd_notify(f->n, NULL, NULL, NULL), 0);
    RUN_UNTIL(f, stats(f).commands_exited_total == 2);
    got = read_file(out);
    assert_non_null(got);
    assert_string_equal(got, "event=\ngame=\nseat=\nversion=0\nruleset=\nparent=\nstdin=eof\n");
}

static void test_command_failures(void **state)
{
    struct fx *f = *state;
    /* A non-zero exit is counted (and logged). */
    f->n = wrd_notifier_new(&f->loop, "false");
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
    f->n = wrd_notifier_new(&f->loop, "/nonexistent/warroom-notify");
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
    f->n = wrd_notifier_new(&f->loop, "true");
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
    f->n = wrd_notifier_new(&f->loop, "true");
    assert_non_null(f->n);
    wrd_notifier_set_limits(f->n, 2, 0, 0);
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/", f->rx.port);
    assert_int_equal(wrd_notify(f->n, url, "{}", &env_turn), 0);
    assert_int_equal(wrd_notify(f->n, url, "{}", &env_turn), 0);
    assert_int_equal(wrd_notify(f->n, url, "{}", &env_turn), WRD_NOTIFY_EFULL);
    struct wrd_notify_stats s = stats(f);
    assert_int_equal(s.webhooks_pending, 2);
    assert_int_equal(s.webhooks_dropped_total, 1);
    assert_int_equal(s.commands_started_total, 3);
    RUN_UNTIL(f, f->rx.requests == 2 && stats(f).commands_exited_total == 3);
    /* teardown closes with both requests in flight */
}

/* A response whose status line never ends fails after 8 KiB, without
 * waiting for the time-out. */
static void test_endless_status_line(void **state)
{
    struct fx *f = *state;
    static const int script[] = { RX_SILENT };      /* the test answers by hand */
    assert_int_equal(rx_start(&f->loop, &f->rx, "127.0.0.1", script, 1), 0);
    f->n = wrd_notifier_new(&f->loop, NULL);
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
    f->n = wrd_notifier_new(&f->loop, sleeper);
    assert_non_null(f->n);
    /* A grace longer than the deadline: the children must go on SIGTERM. */
    wrd_notifier_set_timing(f->n, 60000, 60000, 2 * DEADLINE_MS);
    wrd_notifier_set_limits(f->n, 0, 2, 0);
    char silent[128], refused[128];
    snprintf(silent, sizeof silent, "http://127.0.0.1:%d/in-flight", f->rx.port);
    snprintf(refused, sizeof refused, "http://127.0.0.1:%d/retry", port);

    /* In flight: sent, never answered. Pending retry: refused once, next try in 60 s.
     * Two children running, one queued. */
    assert_int_equal(wrd_notify(f->n, silent, body_json, &env_turn), 0);
    assert_int_equal(wrd_notify(f->n, refused, body_json, &env_turn), 0);
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
    f->n = wrd_notifier_new(&f->loop, sleeper);
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
    f->n = wrd_notifier_new(&f->loop, NULL);
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
        cmocka_unit_test_setup_teardown(test_command_env, setup, teardown),
        cmocka_unit_test_setup_teardown(test_command_failures, setup, teardown),
        cmocka_unit_test_setup_teardown(test_command_bounds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_webhook_bounds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_endless_status_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_close_in_flight, setup, teardown),
        cmocka_unit_test_setup_teardown(test_close_kills_stubborn_child, setup, teardown),
        cmocka_unit_test_setup_teardown(test_close_idle, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
