/*
 * test_wsrecv.c - the tests' websocket reader (support/proc.h,
 * wt_ws_recv): a short wait for "the next message, if any" must never
 * give up in the middle of a message. When it did, the bytes it had read
 * were lost and every later read began inside the message: under load a
 * frame's payload can come more than 5 ms after its header, and
 * test_address_turns, which reads with 5 ms waits, lost answers so.
 * Frames are written by hand into one end of a socket pair, as a server
 * writes them (unmasked).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proc.h"

/* A server's frame: FIN, text, a payload under 126 bytes. */
static size_t frame(unsigned char *buf, const char *text)
{
    size_t n = strlen(text);
    buf[0] = 0x81;
    buf[1] = (unsigned char)n;
    memcpy(buf + 2, text, n);
    return n + 2;
}

static void write_all(int fd, const void *buf, size_t len)
{
    assert_int_equal(write(fd, buf, len), (ssize_t)len);
}

static void expect_text(int fd, const char *want, int timeout_ms)
{
    int op = 0;
    char *data = NULL;
    size_t len = 0;
    if (wt_ws_recv(fd, &op, &data, &len, timeout_ms) != 0)
        fail_msg("no message where \"%s\" was written", want);
    assert_int_equal(op, 1);
    assert_int_equal(len, strlen(want));
    assert_memory_equal(data, want, len);
    free(data);
}

/* What has already arrived is read even when the wait is over. */
static void test_arrived_read_at_timeout_zero(void **state)
{
    (void)state;
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    unsigned char buf[64];
    write_all(sv[1], buf, frame(buf, "{\"type\":\"games\"}"));
    expect_text(sv[0], "{\"type\":\"games\"}", 0);
    /* and nothing more is there: -1 at once */
    int op;
    char *data = NULL;
    size_t len;
    assert_int_equal(wt_ws_recv(sv[0], &op, &data, &len, 0), -1);
    assert_null(data);
    close(sv[0]);
    close(sv[1]);
}

struct late {
    int fd;
    int after_ms;
    const unsigned char *rest;
    size_t len;
};

/* Writes the rest of a frame once the reader's wait for it is over (the
 * event under test is that wait running out). */
static void *write_late(void *arg)
{
    struct late *l = arg;
    poll(NULL, 0, l->after_ms);
    write_all(l->fd, l->rest, l->len);
    return NULL;
}

/* A frame whose payload comes after the wait is over: the message is read
 * whole, and the next one after it too. */
static void test_payload_after_the_wait(void **state)
{
    (void)state;
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    static const char first[] = "{\"type\":\"rulesets\",\"id\":1}";
    static const char second[] = "{\"type\":\"games\",\"id\":7}";
    unsigned char a[64], b[64];
    size_t na = frame(a, first), nb = frame(b, second);
    /* the header and one byte now, the rest of it and the next frame 60 ms
     * after a reader that waits 10 ms */
    unsigned char rest[128];
    memcpy(rest, a + 3, na - 3);
    memcpy(rest + na - 3, b, nb);
    write_all(sv[1], a, 3);
    struct late l = { .fd = sv[1], .after_ms = 60, .rest = rest, .len = na - 3 + nb };
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, write_late, &l), 0);
    expect_text(sv[0], first, 10);
    expect_text(sv[0], second, 1000);
    pthread_join(t, NULL);
    close(sv[0]);
    close(sv[1]);
}

/* The same with the header itself split, and a message of two frames
 * (a continuation) whose second comes late. */
static void test_split_header_and_late_continuation(void **state)
{
    (void)state;
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    /* "abc" (text, not FIN) then "def" (continuation, FIN) */
    static const unsigned char one[] = { 0x01, 3, 'a', 'b', 'c' };
    static const unsigned char two[] = { 0x80, 3, 'd', 'e', 'f' };
    unsigned char rest[16];
    memcpy(rest, one + 1, sizeof one - 1);
    memcpy(rest + sizeof one - 1, two, sizeof two);
    write_all(sv[1], one, 1);
    struct late l = { .fd = sv[1], .after_ms = 60, .rest = rest, .len = sizeof one - 1 + sizeof two };
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, write_late, &l), 0);
    expect_text(sv[0], "abcdef", 10);
    pthread_join(t, NULL);
    close(sv[0]);
    close(sv[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arrived_read_at_timeout_zero),
        cmocka_unit_test(test_payload_after_the_wait),
        cmocka_unit_test(test_split_header_and_late_continuation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
