/*
 * proc.h - start the real warroomd for integration tests and talk to it
 * over loopback with plain sockets (HTTP and a minimal websocket client).
 *
 * Every wait has a deadline (poll), so a broken server fails a test
 * instead of hanging it; nothing sleeps in place of waiting for an event.
 */
#ifndef WT_PROC_H
#define WT_PROC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct wt_server {
    pid_t pid;
    int out_fd;         /* the server's stdout: EOF when it exits */
    int port;
    int web_port;       /* the web port, -1: none (wt_server_web_port) */
    char dir[256];      /* a private temporary directory (the database lives here) */
    char db[300];
    char log[300];      /* the server's stderr, appended to across restarts */
};

/* Start warroomd on 127.0.0.1, port 0, with a database in a fresh temporary
 * directory, or (when WT_STORE_URL or WT_STORE_URL_FILE is set, pgdb.h) a
 * fresh database of the test's PostgreSQL cluster, dropped by
 * wt_server_cleanup. extra is a NULL-terminated list of further arguments (or NULL;
 * a later --log-level overrides the default warn). The server's stderr goes
 * to s->log in that directory (see wt_server_log), and is copied to the
 * test's stderr by wt_server_cleanup when WT_SHOW_LOG is set.
 * Returns 0 once the server printed its address, -1 otherwise. */
int wt_server_start(struct wt_server *s, const char *const *extra);

/* The web port (--web-listen) of the server s started, read (by
 * wt_server_start) from the line it prints after its address; -1 when
 * started with --web-listen none or when it is not served (its default
 * port was busy). */
int wt_server_web_port(struct wt_server *s);

/* Same, reusing s->dir and s->db (a restart on the same store). */
int wt_server_restart(struct wt_server *s, const char *const *extra);

/* Whether the server the tests start runs instrumented: under a wrapper
 * (WT_WRAPPER, valgrind) or built with sanitizers. Its time and memory are
 * then the instrument's as much as its own: a test measuring either says
 * so and asserts no figure (it still runs its steps, for the instrument's
 * checks). */
int wt_server_instrumented(void);

/* A child a test started (alive 1) or has stopped and reaped (alive 0).
 * A failing cmocka test jumps out before its stop: at exit each child
 * still tracked is sent sig and reaped, so a failed run leaves nothing
 * running (wt_server_start tracks its servers so, with SIGKILL). */
void wt_track_child(pid_t pid, int alive, int sig);

/* Send sig, wait up to timeout_ms for the exit; returns the wait status, or
 * -1 on a time-out (the process is then killed). */
int wt_server_stop(struct wt_server *s, int sig, int timeout_ms);

/* Remove the temporary directory and every file in it (and drop the
 * PostgreSQL database wt_server_start made). */
void wt_server_cleanup(struct wt_server *s);

/* A cmocka group fixture: one server for a whole test file, as
 *
 *     static int setup(void **state) { return wt_group_start(state, args); }
 *     ...
 *     return cmocka_run_group_tests(tests, setup, wt_group_stop);
 *
 * wt_group_start starts a warroomd with extra (as wt_server_start) in a
 * struct wt_server it allocates, and sets *state to it: the tests' state
 * until wt_group_stop. Returns 0, or -1 when the server did not start.
 * wt_group_stop stops it with SIGTERM (waiting up to 10 s), removes its
 * directory, frees it, and returns 0 only when it exited with status 0 (a
 * clean shutdown), else -1, which fails the group. */
int wt_group_start(void **state, const char *const *extra);
int wt_group_stop(void **state);

/* Everything the server wrote to stderr so far, NUL-terminated; *len (may be
 * NULL) gets its length. Caller frees; NULL when it cannot be read. */
char *wt_server_log(const struct wt_server *s, size_t *len);

/* A whole file, NUL-terminated (binary content allowed; *len gets the size).
 * Caller frees; NULL when it cannot be read. */
char *wt_read_file(const char *path, size_t *len);

/* GET path; fills *status and up to cap-1 bytes of body (NUL-terminated). */
int wt_http_get(int port, const char *path, int *status, char *body, size_t cap);
/* Same, with more header lines (each ending in "\r\n"; NULL: none). */
int wt_http_get_headers(int port, const char *path, const char *headers, int *status, char *body,
                        size_t cap);

/* A number of GET /metrics ("name value" on a line of its own); -1 when
 * /metrics fails or has no such line. */
long long wt_metric(int port, const char *name);

/* A tiny HTTP receiver for webhooks: a listening socket on 127.0.0.1 with
 * an ephemeral port (-1 on failure), and one POST accepted within
 * timeout_ms, answered 200: its body (caller frees; NULL on time-out), its
 * path into path (may be NULL). */
int wt_http_listen(int *port);
char *wt_http_receive_post(int lfd, int timeout_ms, char *path, size_t pathlen);

/* A TCP connection to addr:port (addr as dotted quad); socket or -1. */
int wt_tcp_connect(const char *addr, int port);

/* A websocket connection; returns the socket or -1. */
int wt_ws_connect(int port);
/* Same, with the socket's receive buffer set to rcvbuf bytes (SO_RCVBUF,
 * before connecting, so the TCP window stays that small) when rcvbuf > 0. */
int wt_ws_connect_rcvbuf(int port, int rcvbuf);
/* Same, from the local address src (a dotted quad of 127.0.0.0/8, e.g.
 * "127.0.0.2", so the server sees another client address; NULL: any). */
int wt_ws_connect_from(int port, const char *src);
/* Same, with more header lines in the upgrade request (each ending in
 * "\r\n", e.g. "X-Forwarded-For: 192.0.2.1\r\n"; NULL: none). */
int wt_ws_connect_headers(int port, const char *src, const char *headers);
/* The websocket upgrade on an open stream: write with wr, read with rd (so
 * a TLS test can pass its own functions); 0 on "101 Switching Protocols". */
int wt_ws_handshake(void *io, int (*wr)(void *io, const void *buf, size_t len),
                    int (*rd)(void *io, void *buf, size_t len, long deadline_ms), int port);
/* Same, with more header lines (see wt_ws_connect_headers). */
int wt_ws_handshake_headers(void *io, int (*wr)(void *io, const void *buf, size_t len),
                            int (*rd)(void *io, void *buf, size_t len, long deadline_ms),
                            int port, const char *headers);
int wt_ws_send_text(int fd, const char *data, size_t len);
/* Any frame, masked as a client must: first_byte is FIN (0x80) | opcode;
 * the header declares declared_len bytes of payload and data[0..len) of
 * them are sent (len < declared_len leaves the frame unfinished, to test
 * what the server does on a frame header alone). */
int wt_ws_send_frame(int fd, unsigned first_byte, uint64_t declared_len, const void *data,
                     size_t len);
/* Receive one message (its frames joined; pings skipped) that begins
 * within timeout_ms: -1 when none began. A message begun is read to its
 * end (up to 10 s more), never left half read; what has already arrived
 * is read even with a timeout of 0. *data is malloc'd (caller frees). */
int wt_ws_recv(int fd, int *opcode, char **data, size_t *len, int timeout_ms);

#endif
