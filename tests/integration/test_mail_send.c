/*
 * test_mail_send.c - the mailer (server/mail.h) on its own uv loop against
 * a real SMTP server, tests/support/smtp_sink.py (Debian's aiosmtpd) on a
 * loopback port the kernel picks, started by each test and stopped with
 * SIGTERM by its pid: a message arrives byte for byte with its envelope;
 * 451s are retried with backoff; AUTH with right and wrong credentials; a
 * 550 recipient is given up after one attempt; refused connections and
 * silent servers (time-outs) are retried; the bounds; closing with
 * messages queued, waiting and in flight; and the log (the test's stderr,
 * captured in a file) never holds an address or a password.
 *
 * Every wait runs the loop one iteration at a time until a condition holds
 * or a uv_timer deadline fires; nothing sleeps. Each test ends by closing
 * the mailer, letting uv_run() return by itself, and requiring
 * uv_loop_close() == 0 and exactly one done callback.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <uv.h>

#include "mail.h"

#define DEADLINE_MS 30000
#define FROM "warroom@games.example.org"
#define TO "player@example.net"
#define KEY "g-0123456789ab/french"

/* ---- the sink -------------------------------------------------------------------- */

struct sink {
    pid_t pid;
    int port;
    char dir[256];              /* the maildir */
};

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Start smtp_sink.py with extra arguments (NULL-terminated, may be NULL);
 * 0 once it printed its port. */
static int sink_start(struct sink *s, const char *const *extra)
{
    snprintf(s->dir, sizeof s->dir, "/tmp/wt-mail-XXXXXX");
    if (mkdtemp(s->dir) == NULL)
        return -1;
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    const char *argv[16] = { "/usr/bin/python3", WARROOM_SMTP_SINK, s->dir };
    int argc = 3;
    for (int i = 0; extra != NULL && extra[i] != NULL && argc < 15; i++)
        argv[argc++] = extra[i];
    argv[argc] = NULL;
    s->pid = fork();
    if (s->pid < 0)
        return -1;
    if (s->pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(fds[1]);
    char line[32];
    size_t n = 0;
    long end = now_ms() + 15000;
    while (n < sizeof line - 1 && (n == 0 || line[n - 1] != '\n')) {
        struct pollfd p = { .fd = fds[0], .events = POLLIN };
        long left = end - now_ms();
        if (left <= 0 || poll(&p, 1, (int)left) <= 0)
            break;
        ssize_t r = read(fds[0], line + n, sizeof line - 1 - n);
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    close(fds[0]);
    line[n] = '\0';
    s->port = atoi(line);
    return s->port > 0 ? 0 : -1;
}

static void sink_stop(struct sink *s)
{
    if (s->pid > 0) {
        kill(s->pid, SIGTERM);
        int st;
        waitpid(s->pid, &st, 0);
        s->pid = 0;
    }
    if (s->dir[0] != '\0') {
        char cmd[400];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", s->dir);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", s->dir);
        s->dir[0] = '\0';
    }
}

/* The n-th message the sink kept (1-based), or NULL; caller frees. */
static char *sink_message(const struct sink *s, int n, size_t *len)
{
    char path[400];
    snprintf(path, sizeof path, "%s/new/%06d.eml", s->dir, n);
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *buf = malloc(4 << 20);
    size_t got = fread(buf, 1, (4 << 20) - 1, f);
    fclose(f);
    buf[got] = '\0';
    *len = got;
    return buf;
}

static int sink_count(const struct sink *s)
{
    char path[400];
    snprintf(path, sizeof path, "%s/new", s->dir);
    DIR *d = opendir(path);
    int n = 0;
    if (d == NULL)
        return -1;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* ---- the fixture ------------------------------------------------------------------ */

struct fx {
    uv_loop_t loop;
    uv_timer_t deadline;
    int timed_out;
    struct wrd_mailer *m;
    struct sink sink;
    int done_calls;
    int finished;
    int saved_stderr;
    char logpath[64];
    int lfd;                    /* a silent listener (never accepts), or -1 */
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
    f->lfd = -1;
    uv_timer_init(&f->loop, &f->deadline);
    f->deadline.data = f;
    uv_timer_start(&f->deadline, on_deadline, DEADLINE_MS, 0);
    /* The log: stderr goes to a file for the test, read by log_text. */
    snprintf(f->logpath, sizeof f->logpath, "/tmp/wt-mail-log-XXXXXX");
    int fd = mkstemp(f->logpath);
    if (fd < 0)
        return -1;
    fflush(stderr);
    f->saved_stderr = dup(2);
    dup2(fd, 2);
    close(fd);
    *state = f;
    return 0;
}

/* Everything logged so far (caller frees). */
static char *log_text(struct fx *f)
{
    fflush(stderr);
    FILE *fp = fopen(f->logpath, "rb");
    assert_non_null(fp);
    char *buf = calloc(1, 1 << 20);
    size_t n = fread(buf, 1, (1 << 20) - 1, fp);
    buf[n] = '\0';
    fclose(fp);
    return buf;
}

/* No address (nor the password) in the log; what must be there is. */
static void check_log(struct fx *f, const char *const *secrets, const char *const *wanted)
{
    char *log = log_text(f);
    for (int i = 0; secrets != NULL && secrets[i] != NULL; i++)
        if (strstr(log, secrets[i]) != NULL)
            fail_msg("the log holds the secret \"%s\":\n%s", secrets[i], log);
    for (int i = 0; wanted != NULL && wanted[i] != NULL; i++)
        if (strstr(log, wanted[i]) == NULL)
            fail_msg("the log lacks \"%s\":\n%s", wanted[i], log);
    free(log);
}

#define RUN_UNTIL(f, expr)                                                              \
    do {                                                                                \
        while (!(expr) && !(f)->timed_out)                                              \
            uv_run(&(f)->loop, UV_RUN_ONCE);                                            \
        if ((f)->timed_out)                                                             \
            fail_msg("deadline passed waiting for %s", #expr);                           \
    } while (0)

static struct wrd_mail_stats stats(struct fx *f)
{
    struct wrd_mail_stats s;
    wrd_mailer_stats(f->m, &s);
    return s;
}

static struct wrd_mailer *mailer_on(struct fx *f, int port, const char *user, const char *pw)
{
    char url[64], err[256] = "";
    snprintf(url, sizeof url, "smtp://127.0.0.1:%d", port);
    struct wrd_mail_config cfg = { .url = url, .user = user, .password = pw, .from = FROM };
    struct wrd_mailer *m = wrd_mailer_new(&f->loop, &cfg, err, sizeof err);
    if (m == NULL)
        fail_msg("wrd_mailer_new: %s", err);
    return m;
}

/* Close the mailer; the loop must end by itself before the deadline, done
 * must be called once (never from inside the call), the loop must close. */
static int finish(struct fx *f)
{
    if (f->finished)
        return 0;
    f->finished = 1;
    int ok = 1;
    if (f->m != NULL) {
        wrd_mailer_close(f->m, on_done, f);
        f->m = NULL;
        ok &= f->done_calls == 0;
    }
    f->timed_out = 0;
    uv_timer_start(&f->deadline, on_deadline, DEADLINE_MS, 0);
    uv_unref((uv_handle_t *)&f->deadline);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    ok &= !f->timed_out && f->done_calls == 1;
    if (f->timed_out)
        uv_print_all_handles(&f->loop, stderr);
    uv_close((uv_handle_t *)&f->deadline, NULL);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    ok &= uv_loop_close(&f->loop) == 0;
    if (!ok)
        fprintf(stderr, "finish: timed_out=%d done_calls=%d\n", f->timed_out, f->done_calls);
    return ok ? 0 : -1;
}

static int teardown(void **state)
{
    struct fx *f = *state;
    int r = finish(f);
    sink_stop(&f->sink);
    if (f->lfd >= 0)
        close(f->lfd);
    /* The captured log (cmocka's failure messages with it) goes to the
     * real stderr, so a failure shows what the mailer said. */
    char *log = log_text(f);
    dup2(f->saved_stderr, 2);
    fputs(log, stderr);
    free(log);
    close(f->saved_stderr);
    unlink(f->logpath);
    free(f);
    return r;
}

/* A formatted message to `to` with subject. Caller frees. */
static char *message(const char *to, const char *subject, size_t *len)
{
    static const char svg[] = "<svg xmlns=\"http://www.w3.org/2000/svg\"><rect/></svg>\n";
    struct wrd_mail_part part = { "image/svg+xml", "board.svg", svg, sizeof svg - 1 };
    struct wrd_mail_msg msg = {
        .from = FROM,
        .to = to,
        .reply_to = "play+g-0123456789ab.1.42.3f9a0c6d1e2b4a5c6d7e@games.example.org",
        .subject = subject,
        .text = "Your move.\n.\n\xe2\x94\x8c\xe2\x94\x80\xe2\x94\x90 a = b  \n",
        .message_id = "g-0123456789ab.1.42@games.example.org",
        .parts = &part,
        .nparts = 1,
        .date_ms = 1796169600000LL,
    };
    int err = 0;
    char *s = wrd_mail_format(&msg, len, &err);
    if (s == NULL)
        fail_msg("format: %s", wrd_mail_err_code(err));
    return s;
}

/* The sink's n-th message must be msg[0..len) for envelope to. */
static void expect_kept(struct fx *f, int n, const char *to, const char *msg, size_t len)
{
    size_t got = 0;
    char *kept = sink_message(&f->sink, n, &got);
    if (kept == NULL)
        fail_msg("the sink has no message %d", n);
    char head[512];
    snprintf(head, sizeof head, "X-Sink-Mail-From: %s\r\nX-Sink-Rcpt-To: %s\r\n", FROM, to);
    size_t hl = strlen(head);
    if (got < hl || memcmp(kept, head, hl) != 0)
        fail_msg("message %d: envelope headers %.*s", n, (int)(got < 200 ? got : 200), kept);
    if (got - hl != len || memcmp(kept + hl, msg, len) != 0)
        fail_msg("message %d differs: %zu bytes kept, %zu sent", n, got - hl, len);
    free(kept);
}

/* A port nothing listens on (bound, then closed). */
static int dead_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t al = sizeof a;
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &al), 0);
    close(fd);
    return ntohs(a.sin_port);
}

/* A listener that never accepts nor answers: the kernel completes the
 * handshake, the client waits for a greeting that never comes. */
static int silent_listener(struct fx *f)
{
    f->lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t al = sizeof a;
    assert_int_equal(bind(f->lfd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(f->lfd, 8), 0);
    assert_int_equal(getsockname(f->lfd, (struct sockaddr *)&a, &al), 0);
    return ntohs(a.sin_port);
}

static int has_connection(int lfd)
{
    struct pollfd p = { .fd = lfd, .events = POLLIN };
    return poll(&p, 1, 0) == 1;
}

/* ---- the tests -------------------------------------------------------------------- */

static void test_delivered(void **state)
{
    struct fx *f = *state;
    assert_int_equal(sink_start(&f->sink, NULL), 0);
    f->m = mailer_on(f, f->sink.port, NULL, NULL);
    size_t len;
    char *msg = message(TO, "Warroom g-0123456789ab: french, your move", &len);
    assert_int_equal(wrd_mail_send(f->m, TO, KEY, msg, len), 0);
    assert_int_equal(stats(f).pending, 1);
    RUN_UNTIL(f, stats(f).sent_total == 1);
    struct wrd_mail_stats s = stats(f);
    assert_int_equal(s.failures_total, 0);
    assert_int_equal(s.given_up_total, 0);
    assert_int_equal(s.pending, 0);
    assert_int_equal(s.running, 0);
    assert_int_equal(sink_count(&f->sink), 1);
    expect_kept(f, 1, TO, msg, len);
    free(msg);
    const char *secrets[] = { TO, FROM, NULL };
    const char *wanted[] = { "mail sent", "key=\"" KEY "\"", NULL };
    check_log(f, secrets, wanted);
}

/* --fail-first 2: two 451s, retried after base and 2x base, then kept. */
static void test_retry_451(void **state)
{
    struct fx *f = *state;
    const char *args[] = { "--fail-first", "2", NULL };
    assert_int_equal(sink_start(&f->sink, args), 0);
    f->m = mailer_on(f, f->sink.port, NULL, NULL);
    wrd_mailer_set_timing(f->m, 100, 5000);
    size_t len;
    char *msg = message(TO, "Warroom g-0123456789ab: retried", &len);
    uint64_t t0 = uv_now(&f->loop);
    assert_int_equal(wrd_mail_send(f->m, TO, KEY, msg, len), 0);
    RUN_UNTIL(f, stats(f).sent_total == 1);
    uv_update_time(&f->loop);
    /* Two waits, 100 and 200 ms, at the least. */
    assert_true(uv_now(&f->loop) - t0 >= 300);
    struct wrd_mail_stats s = stats(f);
    assert_int_equal(s.failures_total, 2);
    assert_int_equal(s.given_up_total, 0);
    assert_int_equal(s.pending, 0);
    assert_int_equal(sink_count(&f->sink), 1);
    expect_kept(f, 1, TO, msg, len);
    free(msg);
    const char *secrets[] = { TO, FROM, NULL };
    const char *wanted[] = { "mail attempt failed", "smtp=451", "retry_ms=100", "retry_ms=200",
                             "attempts=3", NULL };
    check_log(f, secrets, wanted);
}

/* AUTH: the right credentials deliver; wrong ones get 535 and no
 * credentials 530, both 5xx: given up after one attempt (not retried). */
static void test_auth(void **state)
{
    struct fx *f = *state;
    const char *args[] = { "--auth", "warroom:s3cret-pw", NULL };
    assert_int_equal(sink_start(&f->sink, args), 0);
    size_t len;
    char *msg = message(TO, "Warroom g-0123456789ab: with a login", &len);

    f->m = mailer_on(f, f->sink.port, "warroom", "s3cret-pw");
    assert_int_equal(wrd_mail_send(f->m, TO, KEY, msg, len), 0);
    RUN_UNTIL(f, stats(f).sent_total == 1);
    assert_int_equal(stats(f).failures_total, 0);
    expect_kept(f, 1, TO, msg, len);
    struct wrd_mailer *good = f->m;

    f->m = mailer_on(f, f->sink.port, "warroom", "wrong-pw");
    wrd_mailer_set_timing(f->m, 50, 5000);
    assert_int_equal(wrd_mail_send(f->m, TO, KEY, msg, len), 0);
    RUN_UNTIL(f, stats(f).given_up_total == 1);
    assert_int_equal(stats(f).failures_total, 1);
    assert_int_equal(stats(f).sent_total, 0);
    assert_int_equal(stats(f).pending, 0);
    struct wrd_mailer *wrong = f->m;

    f->m = mailer_on(f, f->sink.port, NULL, NULL);
    wrd_mailer_set_timing(f->m, 50, 5000);
    assert_int_equal(wrd_mail_send(f->m, TO, KEY, msg, len), 0);
    RUN_UNTIL(f, stats(f).given_up_total == 1);
    assert_int_equal(stats(f).failures_total, 1);
    assert_int_equal(stats(f).sent_total, 0);
    assert_int_equal(sink_count(&f->sink), 1);
    free(msg);

    /* Two more mailers to close: their done callbacks are counted too. */
    wrd_mailer_close(good, on_done, f);
    wrd_mailer_close(wrong, on_done, f);
    f->done_calls = -2;         /* finish() wants exactly one more */
    RUN_UNTIL(f, f->done_calls == 0);
    const char *secrets[] = { TO, FROM, "s3cret-pw", "wrong-pw", NULL };
    const char *wanted[] = { "mail given up", "smtp=535", "smtp=530", "attempts=1", NULL };
    check_log(f, secrets, wanted);
}

/* RCPT answered 550: given up after one attempt; another recipient in
 * the same run is kept. */
static void test_refused_recipient(void **state)
{
    struct fx *f = *state;
    const char *args[] = { "--refuse-rcpt", "nobody@example.net", NULL };
    assert_int_equal(sink_start(&f->sink, args), 0);
    f->m = mailer_on(f, f->sink.port, NULL, NULL);
    wrd_mailer_set_timing(f->m, 50, 5000);
    size_t len1, len2;
    char *bad = message("nobody@example.net", "Warroom g-0123456789ab: refused", &len1);
    char *good = message(TO, "Warroom g-0123456789ab: kept", &len2);
    assert_int_equal(wrd_mail_send(f->m, "nobody@example.net", "g-0123456789ab/prussian", bad,
                                   len1), 0);
    assert_int_equal(wrd_mail_send(f->m, TO, KEY, good, len2), 0);
    RUN_UNTIL(f, stats(f).given_up_total == 1 && stats(f).sent_total == 1);
    struct wrd_mail_stats s = stats(f);
    assert_int_equal(s.failures_total, 1);
    assert_int_equal(s.pending, 0);
    assert_int_equal(sink_count(&f->sink), 1);
    expect_kept(f, 1, TO, good, len2);
    free(bad);
    free(good);
    const char *secrets[] = { TO, FROM, "nobody@example.net", NULL };
    const char *wanted[] = { "mail given up", "key=\"g-0123456789ab/prussian\" attempts=1 smtp=550",
                             NULL };
    check_log(f, secrets, wanted);
}

/* Nothing listens: every attempt fails to connect; six attempts (base,
 * 2x, 4x, 8x, 16x between them), then given up. */
static void test_refused_connection(void **state)
{
    struct fx *f = *state;
    f->m = mailer_on(f, dead_port(), NULL, NULL);
    wrd_mailer_set_timing(f->m, 10, 5000);
    size_t len;
    char *msg = message(TO, "Warroom g-0123456789ab: nobody there", &len);
    uint64_t t0 = uv_now(&f->loop);
    assert_int_equal(wrd_mail_send(f->m, TO, KEY, msg, len), 0);
    RUN_UNTIL(f, stats(f).given_up_total == 1);
    uv_update_time(&f->loop);
    assert_true(uv_now(&f->loop) - t0 >= 10 + 20 + 40 + 80 + 160);
    struct wrd_mail_stats s = stats(f);
    assert_int_equal(s.failures_total, WRD_MAIL_RETRIES + 1);
    assert_int_equal(s.sent_total, 0);
    assert_int_equal(s.pending, 0);
    free(msg);
    const char *secrets[] = { TO, FROM, NULL };
    const char *wanted[] = { "retry_ms=160", "attempts=6 smtp=0", NULL };
    check_log(f, secrets, wanted);
}

/* A server that never greets: the attempt times out and is retried. */
static void test_timeout(void **state)
{
    struct fx *f = *state;
    f->m = mailer_on(f, silent_listener(f), NULL, NULL);
    wrd_mailer_set_timing(f->m, 20, 200);
    size_t len;
    char *msg = message(TO, "Warroom g-0123456789ab: silence", &len);
    assert_int_equal(wrd_mail_send(f->m, TO, KEY, msg, len), 0);
    RUN_UNTIL(f, stats(f).failures_total == 2);
    struct wrd_mail_stats s = stats(f);
    assert_int_equal(s.sent_total, 0);
    assert_int_equal(s.given_up_total, 0);
    assert_int_equal(s.pending, 1);
    free(msg);
    const char *secrets[] = { TO, FROM, NULL };
    const char *wanted[] = { "mail attempt failed", "Timeout", NULL };
    check_log(f, secrets, wanted);
    /* finish() closes it with the message in flight or waiting. */
}

/* The bounds: per key, per address, in all; the input checks; messages
 * kept in the order sent with one transfer at a time. */
static void test_bounds(void **state)
{
    struct fx *f = *state;
    assert_int_equal(sink_start(&f->sink, NULL), 0);
    f->m = mailer_on(f, f->sink.port, NULL, NULL);
    wrd_mailer_set_limits(f->m, 5, 2, 3, 1);
    const char *other = "other@example.net";
    struct { const char *to, *key, *subject; int want; } rows[] = {
        /* 0 */ { TO, "k/a", "m0", 0 },
        /* 1 */ { TO, "k/a", "m1", 0 },
        /* 2 */ { TO, "k/a", "m2", WRD_MAIL_EFULL },        /* per key */
        /* 3 */ { TO, "k/b", "m3", 0 },
        /* 4 */ { "PLAYER@example.net", "k/c", "m4", WRD_MAIL_EFULL },  /* per address */
        /* 5 */ { other, "k/d", "m5", 0 },
        /* 6 */ { other, "k/e", "m6", 0 },
        /* 7 */ { other, "k/f", "m7", WRD_MAIL_EFULL },     /* in all: 5 */
    };
    char *msgs[8];
    size_t lens[8];
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        msgs[i] = message(rows[i].to, rows[i].subject, &lens[i]);
        int r = wrd_mail_send(f->m, rows[i].to, rows[i].key, msgs[i], lens[i]);
        if (r != rows[i].want)
            fail_msg("row %zu: %s, want %s", i, wrd_mail_err_code(r),
                     wrd_mail_err_code(rows[i].want));
        assert_true(stats(f).running <= 1);
    }
    struct wrd_mail_stats s = stats(f);
    assert_int_equal(s.dropped_total, 3);
    assert_int_equal(s.pending, 5);
    assert_int_equal(s.running, 1);
    /* The input checks: nothing queued, nothing counted as dropped. */
    assert_int_equal(wrd_mail_send(f->m, "a b@c", "k/x", msgs[0], lens[0]), WRD_MAIL_EBADADDR);
    assert_int_equal(wrd_mail_send(f->m, NULL, "k/x", msgs[0], lens[0]), WRD_MAIL_EINVAL);
    assert_int_equal(wrd_mail_send(f->m, TO, NULL, msgs[0], lens[0]), WRD_MAIL_EINVAL);
    assert_int_equal(wrd_mail_send(f->m, TO, "k/x", msgs[0], WRD_MAIL_MAX_MESSAGE + 1),
                     WRD_MAIL_ETOOBIG);
    assert_int_equal(stats(f).pending, 5);
    assert_int_equal(stats(f).dropped_total, 3);

    while (!f->timed_out && stats(f).sent_total < 5) {
        uv_run(&f->loop, UV_RUN_ONCE);
        assert_true(stats(f).running <= 1);
    }
    assert_int_equal(stats(f).sent_total, 5);
    int n = 1;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (rows[i].want == 0)
            expect_kept(f, n++, rows[i].to, msgs[i], lens[i]);
    /* Room again once sent. */
    assert_int_equal(wrd_mail_send(f->m, TO, "k/a", msgs[0], lens[0]), 0);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        free(msgs[i]);
    const char *secrets[] = { TO, "PLAYER@example.net", other, FROM, NULL };
    const char *wanted[] = { "bound=per_key", "bound=per_address", "bound=pending", NULL };
    check_log(f, secrets, wanted);
    /* finish() closes it with that last message queued or in flight. */
}

/* Closing with messages in flight (a silent server), queued behind them
 * and waiting to retry: everything freed (ASan, valgrind), done once. */
static void test_close_pending(void **state)
{
    struct fx *f = *state;
    const char *args[] = { "--fail-first", "100", NULL };
    assert_int_equal(sink_start(&f->sink, args), 0);
    /* A: one message waiting to retry (451), one queued behind one in
     * flight is not possible on the sink, which answers at once; so B: */
    f->m = mailer_on(f, f->sink.port, NULL, NULL);
    wrd_mailer_set_timing(f->m, 60000, 5000);
    size_t len;
    char *msg = message(TO, "Warroom g-0123456789ab: never kept", &len);
    assert_int_equal(wrd_mail_send(f->m, TO, "k/waiting", msg, len), 0);
    RUN_UNTIL(f, stats(f).failures_total == 1);
    assert_int_equal(stats(f).pending, 1);
    assert_int_equal(stats(f).running, 0);
    struct wrd_mailer *waiting = f->m;

    /* B: a silent server; two running, three queued. */
    f->m = mailer_on(f, silent_listener(f), NULL, NULL);
    wrd_mailer_set_limits(f->m, 0, 0, 0, 2);
    for (int i = 0; i < 5; i++) {
        char key[16];
        snprintf(key, sizeof key, "k/%d", i);
        assert_int_equal(wrd_mail_send(f->m, TO, key, msg, len), 0);
    }
    assert_int_equal(stats(f).running, 2);
    assert_int_equal(stats(f).pending, 5);
    RUN_UNTIL(f, has_connection(f->lfd));
    free(msg);

    wrd_mailer_close(waiting, on_done, f);
    assert_int_equal(f->done_calls, 0);
    RUN_UNTIL(f, f->done_calls == 1);
    f->done_calls = 0;
    const char *secrets[] = { TO, FROM, NULL };
    const char *wanted[] = { "mailer closed with messages pending: dropped\" count=1", NULL };
    check_log(f, secrets, wanted);
    /* finish() closes B with two in flight and three queued: its timeout
     * is the default 60 s, so a close that waited for the silent server
     * (libcurl ending the DATA and waiting for a reply) would pass the
     * fixture's 30 s deadline and fail. */
}

/* wrd_mailer_new refuses a bad URL or sender, saying why. */
static void test_new_refused(void **state)
{
    struct fx *f = *state;
    char err[256];
    struct wrd_mail_config bad_url = { .url = "http://x", .from = FROM };
    assert_null(wrd_mailer_new(&f->loop, &bad_url, err, sizeof err));
    assert_non_null(strstr(err, "--smtp"));
    struct wrd_mail_config user_info = { .url = "smtp://u:p@x", .from = FROM };
    assert_null(wrd_mailer_new(&f->loop, &user_info, err, sizeof err));
    struct wrd_mail_config bad_from = { .url = "smtp://x", .from = "no at" };
    assert_null(wrd_mailer_new(&f->loop, &bad_from, err, sizeof err));
    assert_non_null(strstr(err, "--mail-from"));
    /* One good one, closed at once, nothing sent. */
    struct wrd_mail_config ok = { .url = "smtps://mail.example.org:465", .from = FROM };
    f->m = wrd_mailer_new(&f->loop, &ok, err, sizeof err);
    assert_non_null(f->m);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    if (getenv("WT_FILTER") != NULL)
        cmocka_set_test_filter(getenv("WT_FILTER"));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_delivered, setup, teardown),
        cmocka_unit_test_setup_teardown(test_retry_451, setup, teardown),
        cmocka_unit_test_setup_teardown(test_auth, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refused_recipient, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refused_connection, setup, teardown),
        cmocka_unit_test_setup_teardown(test_timeout, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bounds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_close_pending, setup, teardown),
        cmocka_unit_test_setup_teardown(test_new_refused, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
