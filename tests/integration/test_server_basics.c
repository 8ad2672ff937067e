/*
 * test_server_basics.c - the real warroomd on loopback: it starts, prints
 * its address, answers /healthz, speaks hello/welcome, enforces the message
 * size cap with close code 1009, and shuts down cleanly on SIGTERM.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"

static const char *const server_args[] = { "--max-message", "1024", NULL };

static int setup(void **state)
{
    return wt_group_start(state, server_args);
}

static void test_healthz(void **state)
{
    struct wt_server *s = *state;
    int status = 0;
    char body[1024];
    assert_int_equal(wt_http_get(s->port, "/healthz", &status, body, sizeof body), 0);
    assert_int_equal(status, 200);
    assert_non_null(strstr(body, "\"status\":\"ok\""));
    assert_int_equal(wt_http_get(s->port, "/no-such-page", &status, body, sizeof body), 0);
    assert_int_equal(status, 404);
}

/* It listens on the address it printed, 127.0.0.1, and on no other. */
static void test_listens_on_loopback_only(void **state)
{
    struct wt_server *s = *state;
    int fd = wt_tcp_connect("127.0.0.1", s->port);
    assert_true(fd >= 0);
    close(fd);
    fd = wt_tcp_connect("127.0.0.2", s->port);
    assert_int_equal(fd, -1);
}

static void test_hello_welcome(void **state)
{
    struct wt_server *s = *state;
    int fd = wt_ws_connect(s->port);
    assert_true(fd >= 0);
    const char *hello = "{\"type\":\"hello\",\"protocol\":1}";
    assert_int_equal(wt_ws_send_text(fd, hello, strlen(hello)), 0);
    int op;
    char *data;
    size_t len;
    assert_int_equal(wt_ws_recv(fd, &op, &data, &len, 5000), 0);
    assert_int_equal(op, 1);
    assert_non_null(strstr(data, "\"type\":\"welcome\""));
    assert_non_null(strstr(data, "\"protocol\":1"));
    free(data);

    /* Garbage gets a clear error and the connection stays usable. */
    assert_int_equal(wt_ws_send_text(fd, "{not json", 9), 0);
    assert_int_equal(wt_ws_recv(fd, &op, &data, &len, 5000), 0);
    assert_non_null(strstr(data, "\"code\":\"bad_json\""));
    free(data);
    assert_int_equal(wt_ws_send_text(fd, hello, strlen(hello)), 0);
    assert_int_equal(wt_ws_recv(fd, &op, &data, &len, 5000), 0);
    assert_non_null(strstr(data, "welcome"));
    free(data);
    close(fd);
}

static void test_message_too_large(void **state)
{
    struct wt_server *s = *state;
    int fd = wt_ws_connect(s->port);
    assert_true(fd >= 0);
    char *big = malloc(4096);
    memset(big, 'x', 4096);
    assert_int_equal(wt_ws_send_text(fd, big, 4096), 0);
    free(big);
    int op;
    char *data;
    size_t len;
    assert_int_equal(wt_ws_recv(fd, &op, &data, &len, 5000), 0);
    assert_int_equal(op, 8);                    /* close frame */
    assert_true(len >= 2);
    int code = ((unsigned char)data[0] << 8) | (unsigned char)data[1];
    assert_int_equal(code, 1009);
    free(data);
    close(fd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_healthz),
        cmocka_unit_test(test_listens_on_loopback_only),
        cmocka_unit_test(test_hello_welcome),
        cmocka_unit_test(test_message_too_large),
    };
    return cmocka_run_group_tests(tests, setup, wt_group_stop);
}
