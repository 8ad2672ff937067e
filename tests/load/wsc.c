/*
 * wsc.c - non-blocking websocket client connections on one epoll set (see
 * wsc.h).
 */
#define _GNU_SOURCE
#include "wsc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define RBUF (256 * 1024)           /* shared read buffer */
#define MAX_FRAME (16u << 20)       /* larger server frames are a protocol error */
#define MAX_HEAD 8192               /* handshake answer */
#define EVENTS 1024

enum { C_CONNECTING, C_HANDSHAKE, C_OPEN, C_DEAD };

struct wl_conn {
    struct wl_net *net;
    int fd;
    int state;
    void *user;
    char accept[32];                /* the Sec-WebSocket-Accept we expect */
    unsigned char *in;              /* bytes read and not yet parsed */
    size_t in_len, in_cap;
    unsigned char *frag;            /* a fragmented message being joined */
    size_t frag_len, frag_cap;
    int fragmenting;
    unsigned char *out;             /* bytes to write */
    size_t out_len, out_off, out_cap;
    int port;                       /* the server's, for the Host header */
    int dirty;                      /* on the flush list */
    uint32_t events;                /* the epoll mask registered */
    struct wl_conn *zombie_next;
};

struct wl_net {
    int ep;
    struct wl_net_cbs cbs;
    struct wl_net_stats stats;
    uint64_t rng;
    unsigned char *rbuf;
    struct wl_conn **dirty;
    int ndirty, capdirty;
    struct wl_conn *zombies;        /* dead connections, freed after the turn */
};

/* --- small helpers ------------------------------------------------------------- */

static uint64_t next_rand(struct wl_net *n)
{
    /* xorshift64*: masking keys need to be unpredictable to proxies, not
     * to attackers; a loopback load tool needs neither, only variety. */
    uint64_t x = n->rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    n->rng = x;
    return x * 2685821657736338717ull;
}

static int grow(unsigned char **buf, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 256;
    while (c < need)
        c *= 2;
    unsigned char *b = realloc(*buf, c);
    if (b == NULL)
        return -1;
    *buf = b;
    *cap = c;
    return 0;
}

static void set_events(struct wl_conn *c, uint32_t ev)
{
    if (c->events == ev || c->state == C_DEAD)
        return;
    struct epoll_event e = { .events = ev, .data.ptr = c };
    if (epoll_ctl(c->net->ep, EPOLL_CTL_MOD, c->fd, &e) == 0)
        c->events = ev;
}

static void mark_dirty(struct wl_conn *c)
{
    struct wl_net *n = c->net;
    if (c->dirty)
        return;
    if (n->ndirty == n->capdirty) {
        int cap = n->capdirty ? 2 * n->capdirty : 1024;
        struct wl_conn **d = realloc(n->dirty, sizeof *d * (size_t)cap);
        if (d == NULL)
            return;         /* it will be written when EPOLLOUT fires instead */
        n->dirty = d;
        n->capdirty = cap;
    }
    n->dirty[n->ndirty++] = c;
    c->dirty = 1;
}

static void release_buffers(struct wl_conn *c)
{
    free(c->in);
    free(c->frag);
    free(c->out);
    c->in = c->frag = c->out = NULL;
    c->in_len = c->in_cap = c->frag_len = c->frag_cap = 0;
    c->out_len = c->out_cap = c->out_off = 0;
}

/* The connection ends: unregister, close, report, free after the turn. */
static void finish(struct wl_conn *c, int code, const char *why, int report)
{
    struct wl_net *n = c->net;
    if (c->state == C_DEAD)
        return;
    c->state = C_DEAD;
    epoll_ctl(n->ep, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    c->fd = -1;
    release_buffers(c);
    c->zombie_next = n->zombies;
    n->zombies = c;
    if (report && n->cbs.on_close)
        n->cbs.on_close(c, code, why);
}

static void protocol_error(struct wl_conn *c, const char *why)
{
    c->net->stats.protocol_errors++;
    finish(c, 0, why, 1);
}

/* --- writing ---------------------------------------------------------------------- */

static int queue_frame(struct wl_conn *c, int opcode, const void *data, size_t len)
{
    if (grow(&c->out, &c->out_cap, c->out_len + 14 + len) < 0)
        return -1;
    unsigned char *p = c->out + c->out_len;
    size_t h = 0;
    p[h++] = (unsigned char)(0x80 | opcode);
    if (len < 126) {
        p[h++] = (unsigned char)(0x80 | len);
    } else if (len < 65536) {
        p[h++] = 0x80 | 126;
        p[h++] = (unsigned char)(len >> 8);
        p[h++] = (unsigned char)len;
    } else {
        p[h++] = 0x80 | 127;
        for (int i = 7; i >= 0; i--)
            p[h++] = (unsigned char)((uint64_t)len >> (8 * i));
    }
    uint32_t key32 = (uint32_t)next_rand(c->net);
    unsigned char key[4];
    memcpy(key, &key32, 4);
    memcpy(p + h, key, 4);
    h += 4;
    const unsigned char *d = data;
    for (size_t i = 0; i < len; i++)
        p[h + i] = d[i] ^ key[i & 3];
    c->out_len += h + len;
    c->net->stats.bytes_out += len;
    mark_dirty(c);
    return 0;
}

/* Write what is queued; on a partial write wait for EPOLLOUT. */
static void flush_one(struct wl_conn *c)
{
    c->dirty = 0;
    if (c->state == C_DEAD || c->state == C_CONNECTING)
        return;
    while (c->out_off < c->out_len) {
        ssize_t w = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                set_events(c, EPOLLIN | EPOLLOUT);
                return;
            }
            finish(c, 0, "write failed", 1);
            return;
        }
        c->out_off += (size_t)w;
    }
    c->out_off = c->out_len = 0;
    if (c->out_cap > 65536) {
        free(c->out);
        c->out = NULL;
        c->out_cap = 0;
    }
    set_events(c, EPOLLIN);
}

void wl_net_flush(struct wl_net *n)
{
    /* flush_one may end a connection, whose callback may queue more. */
    for (int i = 0; i < n->ndirty; i++)
        flush_one(n->dirty[i]);
    n->ndirty = 0;
}

int wl_conn_send(struct wl_conn *c, const char *text, size_t len)
{
    if (c == NULL || c->state != C_OPEN)
        return -1;
    int rc = queue_frame(c, 1, text, len);
    if (rc == 0)
        c->net->stats.frames_out++;
    return rc;
}

/* --- reading ---------------------------------------------------------------------- */

static void deliver(struct wl_conn *c, const unsigned char *data, size_t len)
{
    c->net->stats.frames_in++;
    c->net->stats.bytes_in += len;
    if (c->net->cbs.on_message)
        c->net->cbs.on_message(c, (const char *)data, len);
}

static void on_frame(struct wl_conn *c, int fin, int op, const unsigned char *p, size_t len)
{
    switch (op) {
    case 1:
    case 2:
        if (c->fragmenting) {
            protocol_error(c, "new message inside a fragmented one");
            return;
        }
        if (fin) {
            deliver(c, p, len);
            return;
        }
        c->fragmenting = 1;
        c->frag_len = 0;
        /* fall through */
    case 0:
        if (!c->fragmenting) {
            protocol_error(c, "continuation without a message");
            return;
        }
        if (c->frag_len + len > MAX_FRAME ||
            grow(&c->frag, &c->frag_cap, c->frag_len + len + 1) < 0) {
            protocol_error(c, "fragmented message too large");
            return;
        }
        memcpy(c->frag + c->frag_len, p, len);
        c->frag_len += len;
        if (op == 0 && fin) {
            c->fragmenting = 0;
            deliver(c, c->frag, c->frag_len);
            if (c->state != C_DEAD && c->frag_cap > 65536) {
                free(c->frag);
                c->frag = NULL;
                c->frag_cap = 0;
            }
        }
        return;
    case 8: {
        int code = len >= 2 ? (p[0] << 8) | p[1] : 1005;
        /* Answer with the same code, then hang up: the server closes too. */
        queue_frame(c, 8, p, len >= 2 ? 2 : 0);
        flush_one(c);
        finish(c, code, "closed by the server", 1);
        return;
    }
    case 9:
        c->net->stats.pings++;
        queue_frame(c, 10, p, len);
        return;
    case 10:
        return;
    default:
        protocol_error(c, "unknown opcode");
    }
}

/* Parse whole frames from p[0..len); returns the bytes consumed. */
static size_t parse_frames(struct wl_conn *c, const unsigned char *p, size_t len)
{
    size_t off = 0;
    while (c->state == C_OPEN && len - off >= 2) {
        const unsigned char *f = p + off;
        int fin = f[0] >> 7, op = f[0] & 15;
        uint64_t plen = f[1] & 127;
        size_t h = 2;
        if (f[0] & 0x70) {
            protocol_error(c, "reserved bits set");
            break;
        }
        if (f[1] & 0x80) {
            protocol_error(c, "masked frame from the server");
            break;
        }
        if (plen == 126) {
            if (len - off < 4)
                break;
            plen = ((uint64_t)f[2] << 8) | f[3];
            h = 4;
        } else if (plen == 127) {
            if (len - off < 10)
                break;
            plen = 0;
            for (int i = 0; i < 8; i++)
                plen = (plen << 8) | f[2 + i];
            h = 10;
        }
        if (plen > MAX_FRAME) {
            protocol_error(c, "frame too large");
            break;
        }
        if (op >= 8 && (!fin || plen > 125)) {
            protocol_error(c, "bad control frame");
            break;
        }
        if (len - off < h + plen)
            break;
        off += h + (size_t)plen;
        on_frame(c, fin, op, f + h, (size_t)plen);
    }
    return off;
}

static void b64(const unsigned char *in, int n, char *out)
{
    EVP_EncodeBlock((unsigned char *)out, in, n);
}

/* The handshake answer is in c->in[0..in_len): check it, then go on with
 * whatever frames followed it. */
static void on_handshake_bytes(struct wl_conn *c)
{
    unsigned char *end = memmem(c->in, c->in_len, "\r\n\r\n", 4);
    if (end == NULL) {
        if (c->in_len >= MAX_HEAD)
            protocol_error(c, "handshake answer too long");
        return;
    }
    size_t head = (size_t)(end - c->in) + 4;
    char h[MAX_HEAD + 1];
    memcpy(h, c->in, head);
    h[head] = '\0';
    if (strncmp(h, "HTTP/1.1 101", 12) != 0) {
        protocol_error(c, "handshake refused");
        return;
    }
    const char *acc = strcasestr(h, "\r\nSec-WebSocket-Accept:");
    if (acc == NULL) {
        protocol_error(c, "no Sec-WebSocket-Accept");
        return;
    }
    acc += 23;
    while (*acc == ' ')
        acc++;
    if (strncmp(acc, c->accept, strlen(c->accept)) != 0) {
        protocol_error(c, "wrong Sec-WebSocket-Accept");
        return;
    }
    memmove(c->in, c->in + head, c->in_len - head);
    c->in_len -= head;
    c->state = C_OPEN;
    if (c->net->cbs.on_open)
        c->net->cbs.on_open(c);
    if (c->state == C_OPEN && c->in_len > 0) {
        size_t used = parse_frames(c, c->in, c->in_len);
        if (c->state != C_DEAD) {
            memmove(c->in, c->in + used, c->in_len - used);
            c->in_len -= used;
        }
    }
}

static void on_readable(struct wl_conn *c)
{
    struct wl_net *n = c->net;
    for (int round = 0; round < 4 && c->state != C_DEAD; round++) {
        ssize_t r;
        size_t room;
        if (c->in_len == 0 && c->state == C_OPEN) {
            /* Common case: parse straight from the shared buffer. */
            room = RBUF;
            r = recv(c->fd, n->rbuf, room, 0);
            if (r > 0) {
                size_t used = parse_frames(c, n->rbuf, (size_t)r);
                if (c->state != C_DEAD && used < (size_t)r) {
                    if (grow(&c->in, &c->in_cap, (size_t)r - used) < 0) {
                        finish(c, 0, "out of memory", 1);
                        return;
                    }
                    memcpy(c->in, n->rbuf + used, (size_t)r - used);
                    c->in_len = (size_t)r - used;
                }
            }
        } else {
            if (grow(&c->in, &c->in_cap, c->in_len + 65536) < 0) {
                finish(c, 0, "out of memory", 1);
                return;
            }
            room = c->in_cap - c->in_len;
            r = recv(c->fd, c->in + c->in_len, room, 0);
            if (r > 0) {
                c->in_len += (size_t)r;
                if (c->state == C_HANDSHAKE) {
                    on_handshake_bytes(c);
                } else {
                    size_t used = parse_frames(c, c->in, c->in_len);
                    if (c->state != C_DEAD) {
                        memmove(c->in, c->in + used, c->in_len - used);
                        c->in_len -= used;
                    }
                }
                if (c->state != C_DEAD && c->in_len == 0 && c->in_cap > 65536 * 2) {
                    free(c->in);
                    c->in = NULL;
                    c->in_cap = 0;
                }
            }
        }
        if (r == 0) {
            finish(c, 0, "connection closed by the server", 1);
            return;
        }
        if (r < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                finish(c, 0, "read failed", 1);
            return;
        }
        if ((size_t)r < room)
            return;
    }
}

static void on_connected(struct wl_conn *c)
{
    int err = 0;
    socklen_t el = sizeof err;
    if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0 || err != 0) {
        finish(c, 0, "connect failed", 1);
        return;
    }
    unsigned char raw[16], sha[SHA_DIGEST_LENGTH];
    char key[32], cat[96];
    for (int i = 0; i < 16; i += 8) {
        uint64_t r = next_rand(c->net);
        memcpy(raw + i, &r, 8);
    }
    b64(raw, 16, key);
    snprintf(cat, sizeof cat, "%s258EAFA5-E914-47DA-95CA-C5AB0DC85B11", key);
    SHA1((const unsigned char *)cat, strlen(cat), sha);
    b64(sha, SHA_DIGEST_LENGTH, c->accept);
    char req[512];
    int len = snprintf(req, sizeof req,
                       "GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\n"
                       "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
                       "Sec-WebSocket-Version: 13\r\n\r\n", c->port, key);
    if (grow(&c->out, &c->out_cap, (size_t)len) < 0) {
        finish(c, 0, "out of memory", 1);
        return;
    }
    memcpy(c->out, req, (size_t)len);
    c->out_len = (size_t)len;
    c->state = C_HANDSHAKE;
    flush_one(c);
}

/* --- the set ------------------------------------------------------------------------ */

struct wl_net *wl_net_new(const struct wl_net_cbs *cbs)
{
    struct wl_net *n = calloc(1, sizeof *n);
    if (n == NULL)
        return NULL;
    n->ep = epoll_create1(EPOLL_CLOEXEC);
    n->rbuf = malloc(RBUF);
    if (n->ep < 0 || n->rbuf == NULL) {
        if (n->ep >= 0)
            close(n->ep);
        free(n->rbuf);
        free(n);
        return NULL;
    }
    n->cbs = *cbs;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    n->rng = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 40) ^ 1;
    return n;
}

static void reap(struct wl_net *n)
{
    while (n->zombies) {
        struct wl_conn *z = n->zombies;
        n->zombies = z->zombie_next;
        free(z);
    }
}

void wl_net_free(struct wl_net *n)
{
    if (n == NULL)
        return;
    wl_net_flush(n);
    reap(n);
    close(n->ep);
    free(n->dirty);
    free(n->rbuf);
    free(n);
}

const struct wl_net_stats *wl_net_stats(const struct wl_net *n)
{
    return &n->stats;
}

struct wl_conn *wl_conn_open(struct wl_net *n, uint32_t src, uint32_t dst, int port, void *user)
{
    if ((dst >> 24) != 127) {
        errno = EINVAL;         /* loopback only */
        return NULL;
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return NULL;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (src != 0) {
#ifdef IP_BIND_ADDRESS_NO_PORT
        setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
#endif
        struct sockaddr_in s = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(src) };
        if (bind(fd, (struct sockaddr *)&s, sizeof s) < 0) {
            int e = errno;
            close(fd);
            errno = e;
            return NULL;
        }
    }
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                             .sin_addr.s_addr = htonl(dst) };
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0 && errno != EINPROGRESS) {
        int e = errno;
        close(fd);
        errno = e;
        return NULL;
    }
    struct wl_conn *c = calloc(1, sizeof *c);
    if (c == NULL) {
        close(fd);
        errno = ENOMEM;
        return NULL;
    }
    c->net = n;
    c->fd = fd;
    c->user = user;
    c->state = C_CONNECTING;
    c->port = port;
    c->events = EPOLLOUT | EPOLLIN;
    struct epoll_event e = { .events = c->events, .data.ptr = c };
    if (epoll_ctl(n->ep, EPOLL_CTL_ADD, fd, &e) < 0) {
        int er = errno;
        close(fd);
        free(c);
        errno = er;
        return NULL;
    }
    return c;
}

void *wl_conn_user(const struct wl_conn *c)
{
    return c->user;
}

void wl_conn_set_user(struct wl_conn *c, void *user)
{
    c->user = user;
}

int wl_conn_is_open(const struct wl_conn *c)
{
    return c != NULL && c->state == C_OPEN;
}

void wl_conn_abort(struct wl_conn *c)
{
    finish(c, 0, "aborted", 0);
}

int wl_net_poll(struct wl_net *n, int timeout_ms)
{
    struct epoll_event ev[EVENTS];
    int k = epoll_wait(n->ep, ev, EVENTS, timeout_ms);
    if (k < 0) {
        if (errno == EINTR)
            k = 0;
        else
            return -1;
    }
    for (int i = 0; i < k; i++) {
        struct wl_conn *c = ev[i].data.ptr;
        if (c->state == C_DEAD)
            continue;
        if (c->state == C_CONNECTING) {
            if (ev[i].events & (EPOLLOUT | EPOLLERR | EPOLLHUP))
                on_connected(c);
            continue;
        }
        if (ev[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
            on_readable(c);
        if (c->state != C_DEAD && (ev[i].events & EPOLLOUT))
            flush_one(c);
    }
    wl_net_flush(n);
    reap(n);
    return k;
}
