/*
 * test_wsc.c - the load tool's websocket client (wsc.c) against a scripted
 * server on 127.0.0.1 in the same process: the handshake and its accept
 * key, a message fragmented over three frames with a ping between them
 * (answered with the same payload while the message is being joined),
 * masked client frames, 16- and 64-bit lengths, a masked server frame
 * refused, and the close handshake. warroomd never fragments, so this is
 * where those paths are checked. Every wait has a deadline.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "wsc.h"

static struct {
    int opened, closed, close_code;
    char msg[8][128];
    size_t msg_len[8];
    int nmsg;
    size_t big_len;
    char why[64];
} seen;

static void on_open(struct wl_conn *c)
{
    (void)c;
    seen.opened++;
}

static void on_message(struct wl_conn *c, const char *data, size_t len)
{
    (void)c;
    if (len > 1000) {
        seen.big_len = len;
        return;
    }
    if (seen.nmsg < 8) {
        memcpy(seen.msg[seen.nmsg], data, len < 127 ? len : 127);
        seen.msg_len[seen.nmsg++] = len;
    }
}

static void on_close(struct wl_conn *c, int code, const char *why)
{
    (void)c;
    seen.closed++;
    seen.close_code = code;
    snprintf(seen.why, sizeof seen.why, "%s", why);
}

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Turn the client's loop until *flag reaches want (5 s at most). */
static void pump_until(struct wl_net *n, const int *flag, int want)
{
    long deadline = now_ms() + 5000;
    while (*flag < want && now_ms() < deadline)
        wl_net_poll(n, 10);
    assert_true(*flag >= want);
}

static void read_exact(int fd, void *buf, size_t len)
{
    char *p = buf;
    long deadline = now_ms() + 5000;
    while (len > 0) {
        struct pollfd pf = { .fd = fd, .events = POLLIN };
        assert_true(now_ms() < deadline);
        if (poll(&pf, 1, 50) <= 0)
            continue;
        ssize_t r = read(fd, p, len);
        assert_true(r > 0);
        p += r;
        len -= (size_t)r;
    }
}

/* A client frame, read by the scripted server: must be masked; unmasked
 * payload into buf. Returns the opcode. */
static int read_client_frame(int fd, char *buf, size_t cap, size_t *len)
{
    unsigned char h[2], key[4];
    read_exact(fd, h, 2);
    assert_true(h[0] & 0x80);           /* FIN */
    assert_true(h[1] & 0x80);           /* masked */
    size_t n = h[1] & 127;
    if (n == 126) {
        unsigned char e[2];
        read_exact(fd, e, 2);
        n = ((size_t)e[0] << 8) | e[1];
    }
    assert_true(n < cap);
    read_exact(fd, key, 4);
    read_exact(fd, buf, n);
    for (size_t i = 0; i < n; i++)
        buf[i] ^= (char)key[i & 3];
    *len = n;
    return h[0] & 15;
}

static void send_frame(int fd, int fin, int op, const void *data, size_t len, int mask)
{
    unsigned char h[14];
    size_t k = 0;
    h[k++] = (unsigned char)((fin ? 0x80 : 0) | op);
    unsigned char m = mask ? 0x80 : 0;
    if (len < 126) {
        h[k++] = (unsigned char)(m | len);
    } else if (len < 65536) {
        h[k++] = m | 126;
        h[k++] = (unsigned char)(len >> 8);
        h[k++] = (unsigned char)len;
    } else {
        h[k++] = m | 127;
        for (int i = 7; i >= 0; i--)
            h[k++] = (unsigned char)((uint64_t)len >> (8 * i));
    }
    if (mask) {
        memset(h + k, 0, 4);            /* a zero key: the payload stays as it is */
        k += 4;
    }
    assert_int_equal(write(fd, h, k), (ssize_t)k);
    if (len)
        assert_int_equal(write(fd, data, len), (ssize_t)len);
}

/* Listen, let the client connect, answer its handshake. Returns the
 * server side of the connection. */
static int handshake(struct wl_net *n, struct wl_conn **out)
{
    int l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000001) };
    socklen_t al = sizeof a;
    assert_int_equal(bind(l, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(getsockname(l, (struct sockaddr *)&a, &al), 0);
    assert_int_equal(listen(l, 4), 0);
    *out = wl_conn_open(n, 0, 0x7f000001, ntohs(a.sin_port), NULL);
    assert_non_null(*out);
    int s = -1;
    long deadline = now_ms() + 5000;
    while (s < 0 && now_ms() < deadline) {
        wl_net_poll(n, 10);
        struct pollfd pf = { .fd = l, .events = POLLIN };
        if (poll(&pf, 1, 10) > 0)
            s = accept(l, NULL, NULL);
    }
    close(l);
    assert_true(s >= 0);
    /* The request, up to its blank line (the client sends it once connected). */
    char req[2048];
    size_t got = 0;
    while (got < 4 || memcmp(req + got - 4, "\r\n\r\n", 4) != 0) {
        assert_true(got + 1 < sizeof req);
        wl_net_poll(n, 5);
        struct pollfd pf = { .fd = s, .events = POLLIN };
        if (poll(&pf, 1, 10) > 0) {
            assert_int_equal(read(s, req + got, 1), 1);
            got++;
        }
        assert_true(now_ms() < deadline);
    }
    req[got] = '\0';
    assert_non_null(strstr(req, "GET / HTTP/1.1\r\n"));
    assert_non_null(strstr(req, "Upgrade: websocket\r\n"));
    const char *k = strstr(req, "Sec-WebSocket-Key: ");
    assert_non_null(k);
    char key[64], cat[128], accept[64];
    unsigned char sha[SHA_DIGEST_LENGTH];
    assert_int_equal(sscanf(k + 19, "%63[^\r]", key), 1);
    snprintf(cat, sizeof cat, "%s258EAFA5-E914-47DA-95CA-C5AB0DC85B11", key);
    SHA1((const unsigned char *)cat, strlen(cat), sha);
    EVP_EncodeBlock((unsigned char *)accept, sha, SHA_DIGEST_LENGTH);
    char ans[256];
    int an = snprintf(ans, sizeof ans, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                      "Connection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n", accept);
    assert_int_equal(write(s, ans, (size_t)an), an);
    return s;
}

static void test_fragments_pings_lengths_close(void **state)
{
    (void)state;
    memset(&seen, 0, sizeof seen);
    const struct wl_net_cbs cbs = { on_open, on_message, on_close };
    struct wl_net *n = wl_net_new(&cbs);
    assert_non_null(n);
    struct wl_conn *c;
    int s = handshake(n, &c);
    pump_until(n, &seen.opened, 1);

    /* 1) a message in three fragments, a ping between the first two */
    send_frame(s, 0, 1, "hel", 3, 0);
    send_frame(s, 1, 9, "p1", 2, 0);
    send_frame(s, 0, 0, "lo ", 3, 0);
    send_frame(s, 1, 0, "world", 5, 0);
    pump_until(n, &seen.nmsg, 1);
    assert_int_equal(seen.msg_len[0], 11);
    assert_memory_equal(seen.msg[0], "hello world", 11);
    char buf[70000];
    size_t len;
    assert_int_equal(read_client_frame(s, buf, sizeof buf, &len), 10);     /* pong */
    assert_int_equal(len, 2);
    assert_memory_equal(buf, "p1", 2);

    /* 2) client frames are masked; a 200-byte one uses the 16-bit length */
    char text[200];
    memset(text, 'm', sizeof text);
    assert_int_equal(wl_conn_send(c, text, sizeof text), 0);
    wl_net_flush(n);
    assert_int_equal(read_client_frame(s, buf, sizeof buf, &len), 1);
    assert_int_equal(len, sizeof text);
    assert_memory_equal(buf, text, sizeof text);

    /* 3) a 70,000-byte server message: the 64-bit length */
    memset(buf, 'b', 70000);
    send_frame(s, 1, 1, buf, 70000, 0);
    long deadline = now_ms() + 5000;
    while (seen.big_len == 0 && now_ms() < deadline)
        wl_net_poll(n, 10);
    assert_int_equal(seen.big_len, 70000);

    /* 4) the close handshake: the code comes back, then the callback */
    unsigned char code[2] = { 1001 >> 8, 1001 & 0xff };
    send_frame(s, 1, 8, code, 2, 0);
    pump_until(n, &seen.closed, 1);
    assert_int_equal(seen.close_code, 1001);
    assert_int_equal(read_client_frame(s, buf, sizeof buf, &len), 8);
    assert_int_equal(len, 2);
    assert_memory_equal(buf, code, 2);
    close(s);
    wl_net_free(n);
}

static void test_masked_server_frame_refused(void **state)
{
    (void)state;
    memset(&seen, 0, sizeof seen);
    const struct wl_net_cbs cbs = { on_open, on_message, on_close };
    struct wl_net *n = wl_net_new(&cbs);
    struct wl_conn *c;
    int s = handshake(n, &c);
    pump_until(n, &seen.opened, 1);
    send_frame(s, 1, 1, "x", 1, 1);
    pump_until(n, &seen.closed, 1);
    assert_int_equal(seen.nmsg, 0);
    assert_non_null(strstr(seen.why, "masked"));
    assert_int_equal(wl_net_stats(n)->protocol_errors, 1);
    close(s);
    wl_net_free(n);
}

static void test_loopback_only(void **state)
{
    (void)state;
    const struct wl_net_cbs cbs = { on_open, on_message, on_close };
    struct wl_net *n = wl_net_new(&cbs);
    assert_null(wl_conn_open(n, 0, 0x0a000001, 8080, NULL));       /* 10.0.0.1 */
    wl_net_free(n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fragments_pings_lengths_close),
        cmocka_unit_test(test_masked_server_frame_refused),
        cmocka_unit_test(test_loopback_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
