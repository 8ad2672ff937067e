#define _GNU_SOURCE
/*
 * test_web.c - the web port (--web-listen; server/web.h, docs/protocol.md
 * "The web port"): one real warroomd on 127.0.0.1 with ephemeral ports,
 * spoken to with raw HTTP over plain sockets.
 *
 * - the files: each page route answers its file of web/ byte for byte,
 *   with the security headers, an ETag (304 on If-None-Match), gzip when
 *   asked (inflated: the same bytes), HEAD (the head alone);
 * - the bad-input and security matrix: traversal forms, paths outside the
 *   table, long paths, methods, bodies, huge headers, a websocket upgrade:
 *   never a 200, each the answer its row names, the server still answering
 *   after every row;
 * - the limits the main port's HTTP has (net.c): connections per address
 *   and the handshake deadline bound the web port too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "proc.h"

#ifndef WARROOM_WEB_DIR
#error "WARROOM_WEB_DIR: the source tree's web/, set by tests/CMakeLists.txt"
#endif

#define T 5000                  /* ms to wait for any one answer */

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* One HTTP answer as read. */
struct answer {
    int status;                 /* 0: the connection closed with no answer */
    char head[8192];            /* the head, NUL-terminated */
    char *body;                 /* malloc'd, NUL-terminated */
    size_t len;
};

/* The value of header name (case-insensitive) in a's head, copied into
 * out; NULL when absent. */
static const char *header(const struct answer *a, const char *name, char *out, size_t cap)
{
    size_t nl = strlen(name);
    for (const char *l = strstr(a->head, "\r\n"); l; l = strstr(l + 2, "\r\n")) {
        const char *h = l + 2;
        if (strncasecmp(h, name, nl) == 0 && h[nl] == ':') {
            h += nl + 1;
            while (*h == ' ')
                h++;
            size_t n = strcspn(h, "\r");
            if (n >= cap)
                n = cap - 1;
            memcpy(out, h, n);
            out[n] = '\0';
            return out;
        }
    }
    return NULL;
}

/* Send req (len bytes) on a new connection to port and read one answer
 * (its Content-Length of body, none for HEAD or 304). Returns the socket
 * (the caller closes it), or -1. */
static int request(int port, const char *req, size_t len, int head_only, struct answer *a)
{
    memset(a, 0, sizeof *a);
    int fd = wt_tcp_connect("127.0.0.1", port);
    if (fd < 0)
        return -1;
    for (size_t off = 0; off < len;) {
        ssize_t w = send(fd, req + off, len - off, MSG_NOSIGNAL);
        if (w <= 0)
            break;              /* refused midway: read what it answered */
        off += (size_t)w;
    }
    char buf[1 << 16];
    size_t got = 0, want = (size_t)-1;
    long deadline = now_ms() + T;
    while (got < want && got < sizeof buf - 1) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        long left = deadline - now_ms();
        if (left <= 0 || poll(&p, 1, (int)left) <= 0)
            break;
        ssize_t r = recv(fd, buf + got, sizeof buf - 1 - got, 0);
        if (r <= 0)
            break;
        got += (size_t)r;
        buf[got] = '\0';
        char *end = strstr(buf, "\r\n\r\n");
        if (end && want == (size_t)-1) {
            size_t hl = (size_t)(end - buf) + 4;
            memcpy(a->head, buf, hl < sizeof a->head ? hl : sizeof a->head - 1);
            sscanf(buf, "HTTP/1.1 %d", &a->status);
            char v[32];
            size_t cl = header(a, "content-length", v, sizeof v) ? strtoul(v, NULL, 10) : 0;
            want = hl + (head_only || a->status == 304 ? 0 : cl);
        }
    }
    if (a->status != 0) {
        size_t hl = strlen(a->head);
        a->len = got > hl ? (want < got ? want : got) - hl : 0;
        a->body = malloc(a->len + 1);
        memcpy(a->body, buf + hl, a->len);
        a->body[a->len] = '\0';
    }
    return fd;
}

/* GET path with extra header lines (each ending \r\n, or ""). */
static void get(int port, const char *method, const char *path, const char *extra,
                struct answer *a)
{
    char req[4096];
    int n = snprintf(req, sizeof req, "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%s\r\n", method, path,
                     extra);
    int fd = request(port, req, (size_t)n, strcmp(method, "HEAD") == 0, a);
    assert_true(fd >= 0);
    close(fd);
}

static char *file(const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", WARROOM_WEB_DIR, name);
    char *t = wt_read_file(path, len);
    assert_non_null(t);
    return t;
}

static struct wt_server srv;
static int web, ws;

static int setup(void **state)
{
    static const char *const args[] = { "--web-listen", "127.0.0.1:0",
                                        "--max-handshakes-per-address", "4",
                                        "--handshake-timeout", "2", NULL };
    if (wt_server_start(&srv, args) < 0)
        return -1;
    ws = srv.port;
    web = wt_server_web_port(&srv);
    return web > 0 ? 0 : -1;
}

static int teardown(void **state)
{
    wt_server_stop(&srv, 15, 10000);
    wt_server_cleanup(&srv);
    return 0;
}

/* The headers every answer of the web port carries. */
static void security_headers(const struct answer *a)
{
    char v[1024], want[128];
    assert_non_null(header(a, "content-security-policy", v, sizeof v));
    snprintf(want, sizeof want, "connect-src 'self' ws://127.0.0.1:%d;", ws);
    assert_non_null(strstr(v, want));
    assert_non_null(strstr(v, "default-src 'none';"));
    assert_non_null(strstr(v, "script-src 'self';"));
    assert_non_null(strstr(v, "frame-ancestors 'none'"));
    assert_null(strstr(v, "unsafe-inline"));
    assert_string_equal(header(a, "x-content-type-options", v, sizeof v), "nosniff");
    assert_string_equal(header(a, "referrer-policy", v, sizeof v), "no-referrer");
}

static void answers_file(const char *path, const char *name, const char *type)
{
    struct answer a;
    size_t len;
    char *want = file(name, &len), v[256];
    get(web, "GET", path, "", &a);
    assert_int_equal(a.status, 200);
    security_headers(&a);
    assert_string_equal(header(&a, "content-type", v, sizeof v), type);
    assert_string_equal(header(&a, "cache-control", v, sizeof v), "no-cache");
    assert_non_null(header(&a, "etag", v, sizeof v));
    assert_int_equal(a.len, len);
    assert_memory_equal(a.body, want, len);
    free(a.body);
    free(want);
}

static void test_pages(void **state)
{
    answers_file("/", "index.html", "text/html; charset=utf-8");
    answers_file("/index.html", "index.html", "text/html; charset=utf-8");
    answers_file("/game/g-8a7c3e0f1d22", "game.html", "text/html; charset=utf-8");
    answers_file("/invite/79b7a2e2952e564e101644be3d21f726", "invite.html",
                 "text/html; charset=utf-8");
    answers_file("/js/lobby.js", "js/lobby.js", "text/javascript; charset=utf-8");
    answers_file("/css/warroom.css", "css/warroom.css", "text/css; charset=utf-8");
    /* No page has an inline script or style (the CSP would refuse it). */
    static const char *const pages[] = { "index.html", "game.html", "invite.html" };
    for (int i = 0; i < 3; i++) {
        size_t len;
        char *t = file(pages[i], &len);
        assert_null(strstr(t, "<script>"));
        assert_null(strstr(t, "<style"));
        assert_null(strstr(t, "style="));
        assert_null(strstr(t, "onclick="));
        free(t);
    }
    /* /config.json names the websocket. */
    struct answer a;
    char want[64];
    get(web, "GET", "/config.json", "", &a);
    assert_int_equal(a.status, 200);
    snprintf(want, sizeof want, "\"port\":%d", ws);
    assert_non_null(strstr(a.body, want));
    assert_non_null(strstr(a.body, "\"scheme\":\"ws\""));
    free(a.body);
}

static void test_caching_gzip_head(void **state)
{
    struct answer a, b;
    char etag[128], extra[256], v[128];
    size_t len;
    char *want = file("js/game.js", &len);
    get(web, "GET", "/js/game.js", "", &a);
    assert_int_equal(a.status, 200);
    assert_non_null(header(&a, "etag", etag, sizeof etag));
    assert_true(etag[0] == '"');                    /* strong */
    /* If-None-Match: 304, no body; another tag: 200. */
    snprintf(extra, sizeof extra, "If-None-Match: %s\r\n", etag);
    get(web, "GET", "/js/game.js", extra, &b);
    assert_int_equal(b.status, 304);
    assert_int_equal(b.len, 0);
    security_headers(&b);
    assert_string_equal(header(&b, "etag", v, sizeof v), etag);
    free(b.body);
    get(web, "GET", "/js/game.js", "If-None-Match: \"0000\"\r\n", &b);
    assert_int_equal(b.status, 200);
    free(b.body);
    /* gzip when asked: the same bytes once inflated. */
    get(web, "GET", "/js/game.js", "Accept-Encoding: gzip, deflate\r\n", &b);
    assert_int_equal(b.status, 200);
    assert_string_equal(header(&b, "content-encoding", v, sizeof v), "gzip");
    assert_string_equal(header(&b, "vary", v, sizeof v), "Accept-Encoding");
    assert_true(b.len < len);
    char *out = malloc(len + 1);
    z_stream z = { 0 };
    assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
    z.next_in = (unsigned char *)b.body;
    z.avail_in = (uInt)b.len;
    z.next_out = (unsigned char *)out;
    z.avail_out = (uInt)len + 1;
    assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
    assert_int_equal(z.total_out, len);
    assert_memory_equal(out, want, len);
    inflateEnd(&z);
    free(out);
    free(b.body);
    /* Not asked: not gzip'd. */
    assert_null(header(&a, "content-encoding", v, sizeof v));
    /* HEAD: the head a GET gets, no body. */
    get(web, "HEAD", "/js/game.js", "", &b);
    assert_int_equal(b.status, 200);
    assert_string_equal(header(&b, "content-length", v, sizeof v),
                        header(&a, "content-length", extra, sizeof extra));
    assert_int_equal(b.len, 0);
    free(b.body);
    free(a.body);
    free(want);
}

/* The server still serves its lobby page. */
static void still_up(const char *row)
{
    struct answer a;
    get(web, "GET", "/", "", &a);
    if (a.status != 200)
        fail_msg("row '%s': the web port no longer answers (%d)", row, a.status);
    free(a.body);
}

/* A row of the matrix: a raw request and the answers allowed (0: the
 * connection closed with no answer). Never a 200. */
struct row {
    const char *name;
    const char *req;            /* NULL: built by the row's own code */
    int want[3];
    int ours;                   /* answered by web_answer: security headers required */
};

static const struct row rows[] = {
    { "dot-dot", "GET /../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n", { 400, 404 }, 0 },
    { "dot-dot in js", "GET /js/../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n", { 400, 404 }, 0 },
    { "%2e%2e", "GET /%2e%2e/etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n", { 400, 404, 403 }, 0 },
    { "%2E%2E%2F", "GET /%2E%2E%2F%2E%2E%2Fetc%2Fpasswd HTTP/1.1\r\nHost: x\r\n\r\n",
      { 400, 404, 403 }, 0 },
    { "..%2f", "GET /js/..%2f..%2fCMakeLists.txt HTTP/1.1\r\nHost: x\r\n\r\n",
      { 400, 404, 403 }, 0 },
    { "double slash", "GET //etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n", { 400, 404 }, 0 },
    { "backslash", "GET /js\\..\\..\\CMakeLists.txt HTTP/1.1\r\nHost: x\r\n\r\n", { 400, 404 }, 0 },
    /* lws refuses a NUL in the path itself: it closes the connection. */
    { "%00", "GET /index.html%00.js HTTP/1.1\r\nHost: x\r\n\r\n", { 0, 400, 404 }, 0 },
    { "%5c", "GET /js%5c..%5cindex.html HTTP/1.1\r\nHost: x\r\n\r\n", { 400, 404, 403 }, 0 },
    { "outside the table", "GET /CMakeLists.txt HTTP/1.1\r\nHost: x\r\n\r\n", { 404 }, 1 },
    { "hidden", "GET /.git/config HTTP/1.1\r\nHost: x\r\n\r\n", { 404 }, 1 },
    { "source tree", "GET /web/index.html HTTP/1.1\r\nHost: x\r\n\r\n", { 404 }, 1 },
    { "directory", "GET /js/ HTTP/1.1\r\nHost: x\r\n\r\n", { 404 }, 1 },
    { "game, two segments", "GET /game/g-1/../../x HTTP/1.1\r\nHost: x\r\n\r\n", { 400, 404 }, 0 },
    { "game, odd id", "GET /game/g-1!rm HTTP/1.1\r\nHost: x\r\n\r\n", { 404 }, 1 },
    { "game, empty", "GET /game/ HTTP/1.1\r\nHost: x\r\n\r\n", { 404 }, 1 },
    { "healthz is the main port's", "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", { 404 }, 1 },
    { "POST", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", { 405 }, 1 },
    { "PUT", "PUT /index.html HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi", { 405 }, 1 },
    { "DELETE", "DELETE /index.html HTTP/1.1\r\nHost: x\r\n\r\n", { 405 }, 1 },
    { "OPTIONS", "OPTIONS / HTTP/1.1\r\nHost: x\r\n\r\n", { 405 }, 1 },
    { "GET with a body", "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello", { 400 }, 1 },
    { "GET chunked", "GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
      { 400 }, 1 },
    { "websocket upgrade", "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
      { 0, 400, 403 }, 0 },
    { "long path", NULL, { 0, 400, 414 }, 0 },
    { "huge headers", NULL, { 0, 400, 431 }, 0 },
    { "not HTTP", "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03garbage\r\n\r\n", { 0, 400 }, 0 },
};

static char *build(const struct row *r, size_t *len)
{
    char *q = malloc(200000);
    size_t n = 0;
    if (strcmp(r->name, "long path") == 0) {
        n += (size_t)sprintf(q, "GET /");
        memset(q + n, 'a', 20000);
        n += 20000;
        n += (size_t)sprintf(q + n, " HTTP/1.1\r\nHost: x\r\n\r\n");
    } else {
        n += (size_t)sprintf(q, "GET / HTTP/1.1\r\nHost: x\r\n");
        for (int i = 0; i < 150; i++) {
            n += (size_t)sprintf(q + n, "X-Pad-%d: ", i);
            memset(q + n, 'b', 1000);
            n += 1000;
            n += (size_t)sprintf(q + n, "\r\n");
        }
        n += (size_t)sprintf(q + n, "\r\n");
    }
    *len = n;
    return q;
}

static void test_bad_requests(void **state)
{
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const struct row *r = &rows[i];
        struct answer a;
        size_t len;
        char *q = r->req ? NULL : build(r, &len);
        const char *req = r->req ? r->req : q;
        if (r->req)
            len = strlen(r->req);
        int fd = request(web, req, len, 0, &a);
        free(q);
        assert_true(fd >= 0);
        close(fd);
        int ok = 0;
        for (int k = 0; k < 3; k++)
            ok |= a.status == r->want[k] && (k == 0 || r->want[k] != 0 || a.status == 0);
        if (getenv("WT_VERBOSE"))
            fprintf(stderr, "row %-28s %d\n", r->name, a.status);
        if (!ok)
            fail_msg("row '%s': answered %d", r->name, a.status);
        if (r->ours) {
            security_headers(&a);
            char v[64];
            if (a.status == 405)
                assert_string_equal(header(&a, "allow", v, sizeof v), "GET, HEAD");
        }
        if (a.status != 0)
            assert_null(strstr(a.body, "root:"));
        free(a.body);
        still_up(r->name);
    }
}

/* Wait for the peer to close fd (EOF or reset) within ms; 1 if it did. */
static int closed_within(int fd, long ms)
{
    long deadline = now_ms() + ms;
    char c;
    for (;;) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        long left = deadline - now_ms();
        if (left <= 0 || poll(&p, 1, (int)left) <= 0)
            return 0;
        if (recv(fd, &c, 1, 0) <= 0)
            return 1;
    }
}

/* Wait (polling /metrics on the main port, up to T) until the server holds
 * no connection before the upgrade but the one asking: the matrix's
 * connections, closed by this side, may not all be gone on its side yet. */
static void handshakes_drained(void)
{
    long deadline = now_ms() + T;
    for (;;) {
        static char body[1 << 16];
        int status = 0;
        long n = -1;
        if (wt_http_get(ws, "/metrics", &status, body, sizeof body) == 0 && status == 200) {
            const char *l = strstr(body, "\nwarroom_handshakes ");
            if (l)
                n = strtol(l + 20, NULL, 10);
        }
        if (n >= 0 && n <= 1)
            return;
        if (now_ms() > deadline)
            fail_msg("the server still holds %ld connections before the upgrade", n);
        poll(NULL, 0, 20);
    }
}

static void test_limits(void **state)
{
    handshakes_drained();
    /* --max-handshakes-per-address 4: the fifth open connection of one
     * address is closed at once, on the web port as on the main one. */
    int fds[4];
    for (int i = 0; i < 4; i++) {
        fds[i] = wt_tcp_connect("127.0.0.1", web);
        assert_true(fds[i] >= 0);
    }
    /* The four are accepted (counted) before the fifth comes: one request
     * answered on each. */
    for (int i = 0; i < 4; i++) {
        static const char req[] = "GET /config.json HTTP/1.1\r\nHost: x\r\n\r\n";
        assert_int_equal(send(fds[i], req, sizeof req - 1, 0), (ssize_t)(sizeof req - 1));
        char buf[2048];
        struct pollfd p = { .fd = fds[i], .events = POLLIN };
        assert_int_equal(poll(&p, 1, T), 1);
        assert_true(recv(fds[i], buf, sizeof buf, 0) > 0);
    }
    int extra = wt_tcp_connect("127.0.0.1", web);
    assert_true(extra >= 0);
    assert_true(closed_within(extra, T));
    close(extra);
    /* --handshake-timeout 2: an HTTP connection, kept alive, is closed at
     * its deadline. */
    long t0 = now_ms();
    for (int i = 0; i < 4; i++) {
        assert_true(closed_within(fds[i], 2 * T));
        close(fds[i]);
    }
    assert_true(now_ms() - t0 < 2 * T);
    still_up("after the limits");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pages),
        cmocka_unit_test(test_caching_gzip_head),
        cmocka_unit_test(test_bad_requests),
        cmocka_unit_test(test_limits),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
