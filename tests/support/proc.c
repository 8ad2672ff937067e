/*
 * proc.c - see proc.h.
 */
#define _GNU_SOURCE
#include "proc.h"
#include "pgdb.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef WARROOMD_PATH
#error "WARROOMD_PATH must be defined by the build"
#endif

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Read until a full line is in buf or the deadline passes. */
static int read_line(int fd, char *buf, size_t cap, long deadline)
{
    size_t n = 0;
    while (n + 1 < cap) {
        long left = deadline - now_ms();
        if (left <= 0)
            return -1;
        struct pollfd p = { .fd = fd, .events = POLLIN };
        if (poll(&p, 1, (int)left) <= 0)
            continue;
        ssize_t r = read(fd, buf + n, 1);
        if (r <= 0)
            return -1;
        if (buf[n] == '\n') {
            buf[n] = '\0';
            return 0;
        }
        n++;
    }
    return -1;
}

/* Children started and not yet stopped (servers, SMTP sinks), each with
 * the signal that ends it. */
#define MAX_LIVE 64
static struct {
    pid_t pid;
    int sig;
} live[MAX_LIVE];

static void stop_leftovers(void)
{
    for (int i = 0; i < MAX_LIVE; i++)
        if (live[i].pid > 0) {
            kill(live[i].pid, live[i].sig);
            waitpid(live[i].pid, NULL, 0);
            live[i].pid = 0;
        }
}

void wt_track_child(pid_t pid, int alive, int sig)
{
    static int registered;
    if (!registered && atexit(stop_leftovers) == 0)
        registered = 1;
    for (int i = 0; i < MAX_LIVE; i++)
        if (alive ? live[i].pid == 0 : live[i].pid == pid) {
            live[i].pid = alive ? pid : 0;
            live[i].sig = sig;
            return;
        }
}

/* A server: killed when left. */
static void track_live(pid_t pid, int alive)
{
    wt_track_child(pid, alive, SIGKILL);
}

int wt_server_instrumented(void)
{
#ifdef WT_SANITIZED
    return 1;
#else
    return getenv("WT_WRAPPER") != NULL;
#endif
}

static int spawn(struct wt_server *s, const char *const *extra)
{
    int pipefd[2];
    if (pipe(pipefd) < 0)
        return -1;
    const char *argv[48];
    int argc = 0;
    /* WT_WRAPPER runs the server under a tool, e.g. "valgrind --error-exitcode=99". */
    char wrapper[512] = "";
    const char *w = getenv("WT_WRAPPER");
    if (w != NULL && strlen(w) < sizeof wrapper) {
        strcpy(wrapper, w);
        for (char *save = NULL, *tok = strtok_r(wrapper, " ", &save); tok && argc < 16;
             tok = strtok_r(NULL, " ", &save))
            argv[argc++] = tok;
    }
    argv[argc++] = WARROOMD_PATH;
    argv[argc++] = "--listen";
    argv[argc++] = "127.0.0.1:0";
    argv[argc++] = "--db";
    argv[argc++] = s->db;
    argv[argc++] = "--log-level";
    argv[argc++] = "warn";
    for (int i = 0; extra && extra[i] && argc < 47; i++)
        argv[argc++] = extra[i];
    argv[argc] = NULL;

    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int logfd = open(s->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
        if (logfd >= 0)
            dup2(logfd, 2);
        dup2(pipefd[1], 1);
        close(pipefd[0]);
        close(pipefd[1]);
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(pipefd[1]);
    s->pid = pid;
    s->out_fd = pipefd[0];
    track_live(pid, 1);
    char line[256];
    if (read_line(s->out_fd, line, sizeof line, now_ms() + 30000) < 0 ||
        sscanf(line, "warroomd listening on %*[a-z]://127.0.0.1:%d/", &s->port) != 1) {
        fprintf(stderr, "warroomd did not print its address\n");
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        track_live(pid, 0);
        close(s->out_fd);
        return -1;
    }
    /* The web port's line comes next (its address, or that it is not
     * served: a default port that was busy), unless the test turned it off: read
     * now, so that what is left on the server's stdout is only its exit
     * (tests poll it to see the server die). */
    int web = 1;
    for (int i = 0; extra && extra[i]; i++)
        if (strcmp(extra[i], "--web-listen") == 0 && extra[i + 1] &&
            strcmp(extra[i + 1], "none") == 0)
            web = 0;
    s->web_port = -1;
    if (web && (read_line(s->out_fd, line, sizeof line, now_ms() + 30000) < 0 ||
                (sscanf(line, "warroomd web client on http%*[s:]//127.0.0.1:%d/",
                        &s->web_port) != 1 &&
                 strncmp(line, "warroomd web client not served", 30) != 0))) {
        fprintf(stderr, "warroomd did not print its web port\n");
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        track_live(pid, 0);
        close(s->out_fd);
        return -1;
    }
    return 0;
}

int wt_server_web_port(struct wt_server *s)
{
    return s->web_port;
}

int wt_server_start(struct wt_server *s, const char *const *extra)
{
    const char *tmp = getenv("TMPDIR");
    memset(s, 0, sizeof *s);
    snprintf(s->dir, sizeof s->dir, "%s/warroom-test-XXXXXX", tmp ? tmp : "/tmp");
    if (mkdtemp(s->dir) == NULL)
        return -1;
    snprintf(s->db, sizeof s->db, "%s/warroom.db", s->dir);
    snprintf(s->log, sizeof s->log, "%s/stderr.log", s->dir);
    /* On PostgreSQL (pgdb.h): a fresh database of the test cluster. */
    const char *base = wt_pg_base();
    if (base && wt_pg_create(base, s->db, sizeof s->db) < 0) {
        rmdir(s->dir);
        return -1;
    }
    return spawn(s, extra);
}

int wt_server_restart(struct wt_server *s, const char *const *extra)
{
    return spawn(s, extra);
}

int wt_server_stop(struct wt_server *s, int sig, int timeout_ms)
{
    int status;
    kill(s->pid, sig);
    /* The server's stdout reaches EOF when it exits. */
    long deadline = now_ms() + timeout_ms;
    for (;;) {
        long left = deadline - now_ms();
        if (left <= 0) {
            kill(s->pid, SIGKILL);
            waitpid(s->pid, &status, 0);
            track_live(s->pid, 0);
            close(s->out_fd);
            return -1;
        }
        struct pollfd p = { .fd = s->out_fd, .events = POLLIN };
        if (poll(&p, 1, (int)left) > 0) {
            char buf[256];
            if (read(s->out_fd, buf, sizeof buf) <= 0)
                break;
        }
    }
    close(s->out_fd);
    waitpid(s->pid, &status, 0);
    track_live(s->pid, 0);
    return status;
}

void wt_server_cleanup(struct wt_server *s)
{
    if (getenv("WT_SHOW_LOG")) {
        char *log = wt_server_log(s, NULL);
        if (log)
            fprintf(stderr, "--- warroomd stderr (%s) ---\n%s--- end ---\n", s->log, log);
        free(log);
    }
    if (strncmp(s->db, "postgres://", 11) == 0)
        wt_pg_drop(s->db);
    DIR *d = opendir(s->dir);
    if (d != NULL) {
        struct dirent *e;
        char path[600];
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(path, sizeof path, "%s/%s", s->dir, e->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(s->dir);
}

char *wt_read_file(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t n = 0, cap = 4096;
    char *buf = malloc(cap);
    for (;;) {
        if (buf == NULL)
            break;
        if (n + 1 >= cap) {
            char *b = realloc(buf, cap * 2);
            if (b == NULL) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = b;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + n, cap - n - 1);
        if (r < 0) {
            free(buf);
            buf = NULL;
            break;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    if (buf != NULL) {
        buf[n] = '\0';
        if (len)
            *len = n;
    }
    return buf;
}

int wt_group_start(void **state, const char *const *extra)
{
    struct wt_server *s = calloc(1, sizeof *s);
    if (s == NULL)
        return -1;
    if (wt_server_start(s, extra) < 0) {
        free(s);
        return -1;
    }
    *state = s;
    return 0;
}

int wt_group_stop(void **state)
{
    struct wt_server *s = *state;
    if (s == NULL)
        return -1;      /* its start failed (cmocka still runs the teardown) */
    int status = wt_server_stop(s, SIGTERM, 10000);
    wt_server_cleanup(s);
    free(s);
    *state = NULL;
    return (status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0) ? 0 : -1;
}

char *wt_server_log(const struct wt_server *s, size_t *len)
{
    return wt_read_file(s->log, len);
}

int wt_tcp_connect(const char *addr, int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    if (inet_pton(AF_INET, addr, &a.sin_addr) != 1 ||
        fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

static int connect_port(int port)
{
    return wt_tcp_connect("127.0.0.1", port);
}

static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        /* send(), not write(): a server that closed gives EPIPE, not SIGPIPE. */
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static int read_exact(int fd, void *buf, size_t len, long deadline)
{
    char *p = buf;
    while (len > 0) {
        /* Past the deadline, what has already arrived is still read. */
        long left = deadline - now_ms();
        struct pollfd pf = { .fd = fd, .events = POLLIN };
        if (poll(&pf, 1, left > 0 ? (int)left : 0) <= 0)
            return -1;
        ssize_t n = read(fd, p, len);
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Read the response head (to the blank line) into buf. */
static int read_head(int fd, char *buf, size_t cap, long deadline)
{
    size_t n = 0;
    while (n + 1 < cap) {
        if (read_exact(fd, buf + n, 1, deadline) < 0)
            return -1;
        n++;
        buf[n] = '\0';
        if (n >= 4 && memcmp(buf + n - 4, "\r\n\r\n", 4) == 0)
            return 0;
    }
    return -1;
}

int wt_http_get(int port, const char *path, int *status, char *body, size_t cap)
{
    return wt_http_get_headers(port, path, NULL, status, body, cap);
}

int wt_http_get_headers(int port, const char *path, const char *headers, int *status, char *body,
                        size_t cap)
{
    int fd = connect_port(port);
    if (fd < 0)
        return -1;
    char req[1024], head[4096];
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%s"
                     "Connection: close\r\n\r\n", path, headers ? headers : "");
    if (n < 0 || (size_t)n >= sizeof req) {
        close(fd);
        return -1;
    }
    long deadline = now_ms() + 5000;
    int rc = -1;
    if (write_all(fd, req, (size_t)n) < 0 || read_head(fd, head, sizeof head, deadline) < 0)
        goto out;
    if (sscanf(head, "HTTP/1.1 %d", status) != 1)
        goto out;
    /* lws keeps the connection open: read exactly Content-Length bytes. */
    char *cl = strcasestr(head, "content-length:");
    size_t len = cl ? strtoul(cl + 15, NULL, 10) : 0;
    if (len >= cap)
        goto out;
    if (read_exact(fd, body, len, deadline) < 0)
        goto out;
    body[len] = '\0';
    rc = 0;
out:
    close(fd);
    return rc;
}

static int fd_write(void *io, const void *buf, size_t len)
{
    return write_all(*(int *)io, buf, len);
}

static int fd_read(void *io, void *buf, size_t len, long deadline)
{
    return read_exact(*(int *)io, buf, len, deadline);
}

int wt_ws_handshake(void *io, int (*wr)(void *io, const void *buf, size_t len),
                    int (*rd)(void *io, void *buf, size_t len, long deadline_ms), int port)
{
    return wt_ws_handshake_headers(io, wr, rd, port, NULL);
}

int wt_ws_handshake_headers(void *io, int (*wr)(void *io, const void *buf, size_t len),
                            int (*rd)(void *io, void *buf, size_t len, long deadline_ms),
                            int port, const char *headers)
{
    char req[1024], head[4096];
    int n = snprintf(req, sizeof req,
                     "GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\n"
                     "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                     "%sSec-WebSocket-Version: 13\r\n\r\n", port, headers ? headers : "");
    if (n < 0 || (size_t)n >= sizeof req || wr(io, req, (size_t)n) < 0)
        return -1;
    /* The response head, to the blank line. */
    long deadline = now_ms() + 5000;
    size_t h = 0;
    while (h + 1 < sizeof head) {
        if (rd(io, head + h, 1, deadline) < 0)
            return -1;
        head[++h] = '\0';
        if (h >= 4 && memcmp(head + h - 4, "\r\n\r\n", 4) == 0)
            return strncmp(head, "HTTP/1.1 101", 12) == 0 ? 0 : -1;
    }
    return -1;
}

static int ws_connect(int port, int rcvbuf, const char *src, const char *headers)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (rcvbuf > 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    if (src != NULL) {
        struct sockaddr_in l = { .sin_family = AF_INET };
        if (inet_pton(AF_INET, src, &l.sin_addr) != 1 ||
            bind(fd, (struct sockaddr *)&l, sizeof l) < 0) {
            close(fd);
            return -1;
        }
    }
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0 ||
        wt_ws_handshake_headers(&fd, fd_write, fd_read, port, headers) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int wt_ws_connect_rcvbuf(int port, int rcvbuf)
{
    return ws_connect(port, rcvbuf, NULL, NULL);
}

int wt_ws_connect_from(int port, const char *src)
{
    return ws_connect(port, 0, src, NULL);
}

int wt_ws_connect_headers(int port, const char *src, const char *headers)
{
    return ws_connect(port, 0, src, headers);
}

int wt_ws_connect(int port)
{
    return ws_connect(port, 0, NULL, NULL);
}

int wt_ws_send_frame(int fd, unsigned first_byte, uint64_t declared_len, const void *data,
                     size_t len)
{
    unsigned char hdr[14];
    size_t h = 0;
    hdr[h++] = (unsigned char)first_byte;
    if (declared_len < 126) {
        hdr[h++] = (unsigned char)(0x80 | declared_len);
    } else if (declared_len < 65536) {
        hdr[h++] = 0x80 | 126;
        hdr[h++] = (unsigned char)(declared_len >> 8);
        hdr[h++] = (unsigned char)declared_len;
    } else {
        hdr[h++] = 0x80 | 127;
        for (int i = 7; i >= 0; i--)
            hdr[h++] = (unsigned char)(declared_len >> (8 * i));
    }
    static const unsigned char mask[4] = { 0x12, 0x34, 0x56, 0x78 };
    memcpy(hdr + h, mask, 4);
    h += 4;
    unsigned char *buf = malloc(h + len);
    if (buf == NULL)
        return -1;
    memcpy(buf, hdr, h);
    for (size_t i = 0; i < len; i++)
        buf[h + i] = ((const unsigned char *)data)[i] ^ mask[i % 4];
    int rc = write_all(fd, buf, h + len);
    free(buf);
    return rc;
}

int wt_ws_send_text(int fd, const char *data, size_t len)
{
    return wt_ws_send_frame(fd, 0x81, len, data, len);      /* FIN + text */
}

/* How long the rest of a message may take once its first bytes came: a
 * server that began a frame sends the rest behind it, and a short wait
 * for "a message, if any" must not give up in the middle of one, which
 * would leave the next read inside it (under load, 5 ms can pass between
 * a frame's header and its payload here). */
#define WT_MESSAGE_REST_MS 10000

/* The deadline for the rest of a message begun. */
static long rest_deadline(long deadline)
{
    long rest = now_ms() + WT_MESSAGE_REST_MS;
    return deadline > rest ? deadline : rest;
}

/* One frame: header, payload (unmasked from a server). The header must
 * begin by the deadline; the rest is then read to its end. */
static int recv_frame(int fd, int *fin, int *opcode, char **data, size_t *len, long deadline)
{
    unsigned char h[2];
    if (read_exact(fd, h, 1, deadline) < 0)
        return -1;
    deadline = rest_deadline(deadline);
    if (read_exact(fd, h + 1, 1, deadline) < 0)
        return -1;
    *fin = h[0] >> 7;
    *opcode = h[0] & 0x0f;
    uint64_t n = h[1] & 0x7f;
    if (n == 126) {
        unsigned char e[2];
        if (read_exact(fd, e, 2, deadline) < 0)
            return -1;
        n = ((uint64_t)e[0] << 8) | e[1];
    } else if (n == 127) {
        unsigned char e[8];
        if (read_exact(fd, e, 8, deadline) < 0)
            return -1;
        n = 0;
        for (int i = 0; i < 8; i++)
            n = (n << 8) | e[i];
    }
    if (n > (64u << 20))
        return -1;
    *data = malloc((size_t)n + 1);
    if (*data == NULL || read_exact(fd, *data, (size_t)n, deadline) < 0) {
        free(*data);
        *data = NULL;
        return -1;
    }
    (*data)[n] = '\0';
    *len = (size_t)n;
    return 0;
}

int wt_ws_recv(int fd, int *opcode, char **data, size_t *len, int timeout_ms)
{
    long deadline = now_ms() + timeout_ms;
    int fin, op;
    char *part;
    size_t plen;
    /* Skip pings; join continuation frames until FIN. */
    do {
        if (recv_frame(fd, &fin, &op, &part, &plen, deadline) < 0)
            return -1;
        if (op == 9 || op == 10)
            free(part);
    } while (op == 9 || op == 10);
    *opcode = op;
    *data = part;
    *len = plen;
    deadline = rest_deadline(deadline);    /* a message begun is read to its end */
    while (!fin) {
        if (recv_frame(fd, &fin, &op, &part, &plen, deadline) < 0) {
            free(*data);
            *data = NULL;
            return -1;
        }
        char *joined = realloc(*data, *len + plen + 1);
        if (joined == NULL) {
            free(part);
            free(*data);
            *data = NULL;
            return -1;
        }
        memcpy(joined + *len, part, plen + 1);
        *data = joined;
        *len += plen;
        free(part);
    }
    return 0;
}

int wt_http_listen(int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = { .sin_family = AF_INET };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 8) < 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    *port = ntohs(a.sin_port);
    return fd;
}

char *wt_http_receive_post(int lfd, int timeout_ms, char *path, size_t pathlen)
{
    long deadline = now_ms() + timeout_ms;
    struct pollfd p = { .fd = lfd, .events = POLLIN };
    if (poll(&p, 1, timeout_ms) <= 0)
        return NULL;
    int fd = accept(lfd, NULL, NULL);
    if (fd < 0)
        return NULL;
    char head[4096], *body = NULL;
    if (read_head(fd, head, sizeof head, deadline) == 0) {
        char *cl = strcasestr(head, "content-length:");
        size_t n = cl ? strtoul(cl + 15, NULL, 10) : 0;
        body = n < (1u << 20) ? malloc(n + 1) : NULL;
        if (body && read_exact(fd, body, n, deadline) == 0) {
            body[n] = '\0';
            if (path && pathlen > 1) {
                const char *sp = strchr(head, ' '), *end = sp ? strchr(sp + 1, ' ') : NULL;
                size_t k = end ? (size_t)(end - sp - 1) : 0;
                if (k >= pathlen)
                    k = pathlen - 1;
                memcpy(path, sp ? sp + 1 : "", k);
                path[k] = '\0';
            }
        } else {
            free(body);
            body = NULL;
        }
    }
    const char *ok = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
    ssize_t w = write(fd, ok, strlen(ok));
    (void)w;            /* the poster may already have gone */
    close(fd);
    return body;
}

long long wt_metric(int port, const char *name)
{
    int status = 0;
    static char body[1 << 16];
    if (wt_http_get(port, "/metrics", &status, body, sizeof body) != 0 || status != 200)
        return -1;
    char key[96];
    snprintf(key, sizeof key, "\n%s ", name);
    const char *p = strstr(body, key);
    return p ? strtoll(p + strlen(key), NULL, 10) : -1;
}
