/*
 * net.c - libwebsockets on the server's libuv loop: one port for plain
 * HTTP (/healthz, /metrics, /games) and websockets (protocol v1).
 *
 * See docs/stack-notes.md for the lws 4.1 pitfalls this file
 * works around: foreign-loop shutdown in two steps, writes and POLLOUT
 * (conn.c's write path), no built-in message size cap, protocols[0]
 * binding, no signal handlers on a foreign loop.
 *
 * Connections are counted twice over: before the websocket upgrade (every
 * accepted connection, HTTP ones included, is a "handshake": capped per
 * address and in total at accept, and closed --handshake-timeout seconds
 * after its accept unless it became a websocket by then), and after it
 * (websockets: capped per address and in total at the upgrade). lws's fd
 * table and the process's open file limit are sized for both.
 */
#define _GNU_SOURCE             /* RTLD_NEXT (the reads lws makes, below) */
#include <uv.h>                 /* before libwebsockets.h (stack-notes 16) */
#include <libwebsockets.h>

#include "server.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "addr.h"
#include "conn.h"
#include "dlist.h"
#include "games.h"
#include "log.h"
#include "mail.h"
#include "notify.h"
#include "protocol.h"
#include "store_open.h"
#include "warroom_version.h"
#include "web.h"

/* Per-connection data lws allocates (per_session_data_size). */
struct pss {
    struct wrd_conn *conn;      /* websocket connections */
    int counted;                /* counted in its address's connections */
    char addr[64];
};

/* --- connections per address ------------------------------------------------ */

/* An HTTP answer prepared off the loop (the lobby's finished games are
 * read from the store): shared by the handshake and the job until both are
 * done with it. */
struct http_wait {
    int gone;                   /* the connection closed: the job frees it */
    int done;                   /* the answer is in body and status */
    int in_call;                /* answered within the call that asked */
    int status;
    unsigned flags;
    char *body;
    struct lws *wsi;
    /* Before the job: waiting for the address's budget in its turn
     * (addr.h), with the lobby's request (NULL once let through), a timer
     * to try again, and a watch for the client closing its side meanwhile
     * (wait_hup). handles counts those initialised: the wait is freed when
     * the last of them is closed (wait_free). */
    struct wrd_addr_turn turn;
    json_t *req;
    uv_timer_t timer;
    uv_poll_t hup;
    int hup_fd;                 /* a dup() of the socket, for hup; -1 none */
    int timing;
    int handles;
};

static void wait_closed(uv_handle_t *hd)
{
    struct http_wait *hw = hd->data;
    if (hd == (uv_handle_t *)&hw->hup) {
        close(hw->hup_fd);
        hw->hup_fd = -1;
    }
    if (--hw->handles == 0)
        free(hw);
}

/* Stop watching for the client's end of stream. */
static void wait_unwatch(struct http_wait *hw)
{
    if (hw->hup_fd >= 0 && !uv_is_closing((uv_handle_t *)&hw->hup))
        uv_close((uv_handle_t *)&hw->hup, wait_closed);
}

/* Free hw (its body is the caller's). */
static void wait_free(struct http_wait *hw)
{
    json_decref(hw->req);
    hw->req = NULL;
    if (hw->handles == 0) {
        free(hw);
        return;
    }
    wait_unwatch(hw);
    if (hw->timing)
        uv_close((uv_handle_t *)&hw->timer, wait_closed);
}

/* A connection not yet a websocket, in the list of them by accept time
 * (so by deadline) until it is upgraded or gone. */
struct handshake {
    struct handshake *prev, *next;
    struct lws *wsi;
    uint64_t deadline;          /* uv_now() ms */
    char addr[64];
    struct wrd_addr *from;      /* its address's record (holds a reference) */
    struct wrd_addr *bill;      /* the client its requests cost (client_of), or NULL
                                 * before the first; holds a reference */
    struct http_wait *wait;     /* an answer being prepared off the loop, or NULL */
    /* HTTP: an answer not known to be out (http_watch) */
    struct handshake *wprev, *wnext;
    int watched;
    int rx_off;                 /* lws told to stop reading it */
    int close_when_out;
    int timed_out;              /* counted in wrd_net.timed_out */
};

/* What the network layer keeps for the server's life. */
struct wrd_net {
    lws_retry_bo_t retry;       /* idle policy: ping, then hang up */
    /* handshakes */
    struct handshake *first, *last;     /* every one, oldest first */
    struct handshake *waiting;  /* the oldest not yet closed for its deadline */
    int handshakes;             /* connections not yet websockets */
    uv_timer_t deadline;        /* fires at the oldest handshake's deadline */
    uv_timer_t vouch;           /* every third of --idle-timeout: wrd_conn_vouch_stopped */
    int timer_open;             /* the timer and the check may be started (not closed) */
    struct handshake *watched;  /* HTTP answers not known to be out */
    uv_check_t check;           /* runs http_check() while there are some */
    uint64_t refused, timed_out;        /* counters for /metrics */
    uint64_t refused_logged;    /* refusals when the last warning was logged */
    uint64_t refusal_log_ms;    /* uv_now() of that warning */
    uint64_t timed_out_logged, timeout_log_ms;  /* the same for time-outs */
};

/* The address of a peer as counted: dotted quad for IPv4 (also when it
 * arrives as an IPv4-mapped IPv6 address), else the IPv6 text. */
static void peer_key(const struct sockaddr *sa, char *out, size_t cap)
{
    if (sa->sa_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, out, (socklen_t)cap);
        return;
    }
    if (sa->sa_family == AF_INET6) {
        const struct in6_addr *a6 = &((const struct sockaddr_in6 *)sa)->sin6_addr;
        if (IN6_IS_ADDR_V4MAPPED(a6))
            inet_ntop(AF_INET, &a6->s6_addr[12], out, (socklen_t)cap);
        else
            inet_ntop(AF_INET6, a6, out, (socklen_t)cap);
        return;
    }
    snprintf(out, cap, "?");
}

/* The peer of socket fd into *ss: 0, or -1 (no socket, or not connected). */
static int peer_of(int fd, struct sockaddr_storage *ss)
{
    socklen_t len = sizeof *ss;
    return fd >= 0 && getpeername(fd, (struct sockaddr *)ss, &len) == 0 ? 0 : -1;
}

static void peer_key_fd(int fd, char *out, size_t cap)
{
    struct sockaddr_storage ss;
    if (peer_of(fd, &ss) != 0)
        snprintf(out, cap, "?");
    else
        peer_key((const struct sockaddr *)&ss, out, cap);
}

/* --- the bytes lws reads: unmasked client frames ---------------------------------- */

/*
 * RFC 6455 5.1: a server MUST close the connection on a frame its client
 * did not mask. lws 4.1 accepts unmasked frames, and whether a frame was
 * masked lives only in its private per-connection struct; so warroomd
 * looks at the bytes themselves, as lws reads them: lws reads a plain
 * socket with recv() and a TLS one with SSL_read(), and this file defines
 * both functions. A dynamic executable's definitions come before those of
 * the libraries it loads, so lws's calls land here; each passes the call
 * on (recvfrom(), OpenSSL's own SSL_read()) and, for a socket that is one
 * of the server's connections, runs what was read through a parser of
 * frame headers (or, before the upgrade, of request heads). Every other
 * socket and caller only costs a table look-up.
 *
 * Where the websocket stream starts: a client sends nothing after its
 * upgrade request before the answer (RFC 6455 4.1), so when the upgrade
 * is done (LWS_CALLBACK_ESTABLISHED) what was read must end exactly where
 * the upgrade request's head ends. Heads are found as lws finds them (a
 * line feed followed by an empty line, CR LF or bare LF); each request
 * head lws answered (LWS_CALLBACK_HTTP) is taken off in order, so the one
 * left is the upgrade's. Bytes read past it were sent too early: that too
 * closes with 1002. If the upgrade request was not seen passing here (lws
 * reading some other way), the check is off: said once, as an error.
 */

#define RAW_HEADS 8             /* request heads read ahead of their answers */

struct raw {
    struct lws *wsi;
    int ws;                     /* upgraded: frames from here on */
    int bad;                    /* an unmasked frame, or bytes before the 101 */
    const char *why;            /* which, for the close frame */
    uint64_t seen;              /* bytes read so far */
    /* before the upgrade */
    int line;                   /* 0 in a line, 1 after its LF, 2 after LF CR */
    uint64_t heads[RAW_HEADS];  /* offsets just past heads not yet answered */
    int nheads, heads_lost;
    /* the frame parser */
    int st;                     /* 0 first byte, 1 length byte, 2 extended length, 3 key */
    int need;                   /* bytes left of the extended length or of the key */
    uint64_t len, skip;         /* the frame's length; payload bytes left to skip */
};

static struct raw **raw_by_fd;  /* indexed by socket: the server's connections */
static int raw_nfd;
static int raw_warned;          /* the check found inactive (said once) */

static struct raw *raw_of(int fd)
{
    return fd >= 0 && fd < raw_nfd ? raw_by_fd[fd] : NULL;
}

static void raw_heads(struct raw *r, const unsigned char *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (b[i] == '\n') {
            if (r->line == 0) {
                r->line = 1;
                continue;
            }
            r->line = 0;
            if (r->nheads == RAW_HEADS)
                r->heads_lost = 1;
            else
                r->heads[r->nheads++] = r->seen + i + 1;
        } else {
            r->line = b[i] == '\r' && r->line == 1 ? 2 : 0;
        }
    }
}

/* Parse frame headers in b[0..n); returns n, or where the first unmasked
 * frame starts (its first byte may have been in an earlier read). */
static size_t raw_frames(struct raw *r, const unsigned char *b, size_t n)
{
    size_t i = 0, start = 0;
    while (i < n) {
        if (r->skip > 0) {
            size_t k = r->skip < n - i ? (size_t)r->skip : n - i;
            i += k;
            r->skip -= k;
            continue;
        }
        unsigned char c = b[i++];
        switch (r->st) {
        case 0:
            start = i - 1;
            r->st = 1;
            break;
        case 1:
            if (!(c & 0x80)) {
                r->bad = 1;
                r->why = "unmasked frame";
                return start;
            }
            r->len = c & 0x7f;
            r->st = r->len >= 126 ? 2 : 3;
            r->need = r->len == 126 ? 2 : r->len == 127 ? 8 : 4;
            if (r->len >= 126)
                r->len = 0;
            break;
        case 2:
            r->len = r->len << 8 | c;
            if (--r->need == 0) {
                r->st = 3;
                r->need = 4;
            }
            break;
        default:
            if (--r->need == 0) {
                r->st = 0;
                r->skip = r->len;
            }
            break;
        }
    }
    return n;
}

/* n bytes lws read from fd; returns how many of them lws may have (fewer
 * when they hold an unmasked frame: it never sees that frame's bytes). */
static size_t raw_read(int fd, const void *buf, size_t n)
{
    struct raw *r = raw_of(fd);
    if (r == NULL)
        return n;
    size_t ok = n;
    if (r->ws)
        ok = raw_frames(r, buf, n);
    else
        raw_heads(r, buf, n);
    r->seen += n;
    if (r->bad)
        lws_callback_on_writable(r->wsi);   /* closes it (SERVER_WRITEABLE) */
    return ok;
}

ssize_t recv(int fd, void *buf, size_t len, int flags)
{
    struct raw *r = raw_of(fd);
    if (r != NULL && r->bad && !(flags & MSG_PEEK)) {
        errno = EAGAIN;         /* nothing more for lws: it is being closed */
        return -1;
    }
    ssize_t n = recvfrom(fd, buf, len, flags, NULL, NULL);
    if (n <= 0 || (flags & MSG_PEEK))
        return n;
    size_t ok = raw_read(fd, buf, (size_t)n);
    if (ok == 0) {
        errno = EAGAIN;
        return -1;
    }
    return (ssize_t)ok;
}

/* TLS: the frames are checked the same way, but OpenSSL has no way to give
 * back what it decrypted: lws may see the unmasked frame (its data is not
 * dispatched, a ping may be answered) before the 1002. */
int SSL_read(SSL *ssl, void *buf, int num)
{
    static int (*real_read)(SSL *, void *, int);
    static int (*get_fd)(const SSL *);
    if (real_read == NULL) {
        *(void **)&real_read = dlsym(RTLD_NEXT, "SSL_read");
        *(void **)&get_fd = dlsym(RTLD_DEFAULT, "SSL_get_fd");
        if (real_read == NULL) {
            errno = ENOSYS;
            return -1;
        }
    }
    int n = real_read(ssl, buf, num);
    if (n > 0 && get_fd != NULL)
        raw_read(get_fd(ssl), buf, (size_t)n);
    return n;
}

/* An accepted connection: watch what lws reads of it. */
static void raw_begin(struct lws *wsi)
{
    int fd = (int)lws_get_socket_fd(wsi);
    if (fd < 0 || fd >= raw_nfd)
        return;
    struct raw *r = calloc(1, sizeof *r);
    if (r == NULL)
        return;
    r->wsi = wsi;
    free(raw_by_fd[fd]);
    raw_by_fd[fd] = r;
}

static void raw_end(struct lws *wsi)
{
    int fd = (int)lws_get_socket_fd(wsi);
    struct raw *r = raw_of(fd);
    if (r != NULL && r->wsi == wsi) {
        free(r);
        raw_by_fd[fd] = NULL;
    }
}

/* LWS_CALLBACK_HTTP: one request head answered. */
static void raw_answered(struct lws *wsi)
{
    struct raw *r = raw_of((int)lws_get_socket_fd(wsi));
    if (r == NULL || r->wsi != wsi)
        return;
    if (r->nheads == 0) {
        r->heads_lost = 1;
        return;
    }
    memmove(r->heads, r->heads + 1, sizeof r->heads[0] * (size_t)--r->nheads);
}

/* LWS_CALLBACK_ESTABLISHED: frames from here on. */
static void raw_upgraded(struct lws *wsi)
{
    struct raw *r = raw_of((int)lws_get_socket_fd(wsi));
    if (r == NULL || r->wsi != wsi)
        return;
    r->ws = 1;
    if (r->seen == 0) {
        if (!raw_warned)
            wrd_error("unmasked frames cannot be refused", "hint=\"lws read the upgrade "
                      "request without recv() or SSL_read()\"");
        raw_warned = 1;
        raw_by_fd[(int)lws_get_socket_fd(wsi)] = NULL;
        free(r);
        return;
    }
    if (r->heads_lost || r->nheads == 0 || r->heads[0] != r->seen) {
        r->bad = 1;             /* frames (or anything) sent before the 101 */
        r->why = "data before the handshake's answer";
        lws_callback_on_writable(wsi);
    }
}

/* Whether wsi's client broke the masking rule (or sent before the 101):
 * 0 no, 1 yes, 2 yes and the close frame is written (raw_close_frame). */
static int raw_bad(struct lws *wsi)
{
    struct raw *r = raw_of((int)lws_get_socket_fd(wsi));
    return r != NULL && r->wsi == wsi ? r->bad : 0;
}

static void close_frame(struct lws *wsi, int code, const char *reason);

/* From SERVER_WRITEABLE: 1002 with the reason, once. */
static void raw_close_frame(struct lws *wsi)
{
    struct raw *r = raw_of((int)lws_get_socket_fd(wsi));
    if (r == NULL || r->wsi != wsi || r->bad != 1)
        return;
    close_frame(wsi, LWS_CLOSE_STATUS_PROTOCOL_ERR, r->why);
    r->bad = 2;
}

/* --- handshakes: connections not yet websockets ------------------------------------ */

static void deadline_arm(struct wrd_server *srv);

/* The address a connection is counted at: its peer's; or, when the peer
 * is one of --trusted-proxy, the client the proxy names last in
 * X-Forwarded-For (a proxy that names none leaves its own address: it
 * must add the header, or every client behind it shares one count). Reads
 * the request's headers: during an HTTP request or the upgrade only. */
static void client_key(struct wrd_server *srv, struct lws *wsi, char *out, size_t cap)
{
    struct sockaddr_storage ss;
    if (peer_of((int)lws_get_socket_fd(wsi), &ss) != 0) {
        snprintf(out, cap, "?");
        return;
    }
    peer_key((const struct sockaddr *)&ss, out, cap);
    int trusted = 0;
    for (int i = 0; i < srv->cfg.ntrusted_proxies && !trusted; i++)
        trusted = wrd_iprange_has(&srv->cfg.trusted_proxy[i], (struct sockaddr *)&ss);
    /* lws holds at most 4 KiB of headers; repeated ones are joined by commas */
    char hdr[4200];
    int n = trusted ? lws_hdr_copy(wsi, hdr, sizeof hdr, WSI_TOKEN_X_FORWARDED_FOR) : -1;
    struct sockaddr_storage client;
    if (n > 0 && wrd_forwarded_client(hdr, (size_t)n, &client) == 0)
        peer_key((const struct sockaddr *)&client, out, cap);
}

/* h->bill is the record of the client of h's current request (client_key;
 * the peer's own, h->from's, without a trusted proxy); 0, or -1 out of
 * memory. */
static int bill(struct wrd_server *srv, struct lws *wsi, struct handshake *h)
{
    char key[64];
    client_key(srv, wsi, key, sizeof key);
    struct wrd_addr *a = wrd_addr_get(srv, key);
    if (a == NULL)
        return -1;
    wrd_addr_put(srv, h->bill);
    h->bill = a;
    return 0;
}

/* Accept time: refuse (non-zero) a connection from addr when the server
 * holds --max-handshakes of them, or --max-handshakes-per-address from
 * addr. Refused here, before lws makes anything of the socket, a flood
 * costs an accept() and a close() per connection and holds nothing. */
static int handshake_refused(struct wrd_server *srv, const char *addr)
{
    struct wrd_net *net = srv->net;
    const char *why = NULL;
    if (srv->stopping) {
        why = "stopping";
    } else if (net->handshakes >= srv->cfg.max_handshakes) {
        why = "max_handshakes";
    } else {
        struct wrd_addr *a = wrd_addr_find(srv, addr);
        if (a != NULL && a->handshakes >= srv->cfg.max_handshakes_per_address)
            why = "max_handshakes_per_address";
    }
    if (why == NULL)
        return 0;
    net->refused++;
    /* One line per 10 s at most, however many are refused. */
    uint64_t now = uv_now(&srv->loop);
    if (net->refused_logged == 0 || now - net->refusal_log_ms >= 10000) {
        wrd_warn("connections refused at accept", "addr=%s reason=%s refused=%llu handshakes=%d",
                 addr, why, (unsigned long long)(net->refused - net->refused_logged),
                 net->handshakes);
        net->refused_logged = net->refused;
        net->refusal_log_ms = now;
    }
    return 1;
}

/* A connection was accepted (handshake_refused() let it in): count it and
 * start its deadline. */
static int handshake_begin(struct wrd_server *srv, struct lws *wsi)
{
    struct wrd_net *net = srv->net;
    struct handshake *h = calloc(1, sizeof *h);
    if (h == NULL)
        return -1;
    peer_key_fd((int)lws_get_socket_fd(wsi), h->addr, sizeof h->addr);
    struct wrd_addr *a = wrd_addr_get(srv, h->addr);
    if (a == NULL) {
        free(h);
        return -1;
    }
    h->from = a;
    a->handshakes++;
    net->handshakes++;
    h->wsi = wsi;
    h->deadline = uv_now(&srv->loop) + (uint64_t)srv->cfg.handshake_timeout * 1000;
    WRD_DLIST_APPEND(net->first, net->last, h, prev, next);
    lws_set_opaque_user_data(wsi, h);
    if (net->waiting == NULL) {
        net->waiting = h;
        deadline_arm(srv);
    }
    return 0;
}

/* Take h off the list of HTTP answers watched. */
static void unwatch(struct wrd_net *net, struct handshake *h)
{
    if (!h->watched)
        return;
    if (h->wprev)
        h->wprev->wnext = h->wnext;
    else
        net->watched = h->wnext;
    if (h->wnext)
        h->wnext->wprev = h->wprev;
    h->wprev = h->wnext = NULL;
    h->watched = 0;
    if (net->watched == NULL && net->timer_open)
        uv_check_stop(&net->check);
}

/* The connection became a websocket (upgraded) or is gone: it holds no
 * handshake. One gone at or after its deadline without being upgraded is
 * a time-out whoever closed it: on_deadline, or lws's own time-outs (a
 * backstop a second later, see lws_create_context below). */
static void handshake_end(struct wrd_server *srv, struct lws *wsi, int upgraded)
{
    struct handshake *h = lws_get_opaque_user_data(wsi);
    if (h == NULL || srv->net == NULL)
        return;
    struct wrd_net *net = srv->net;
    if (!upgraded && !h->timed_out && uv_now(&srv->loop) >= h->deadline)
        net->timed_out++;
    lws_set_opaque_user_data(wsi, NULL);
    unwatch(net, h);
    if (net->waiting == h)
        net->waiting = h->next;         /* its timer finds nothing to do */
    WRD_DLIST_REMOVE(net->first, net->last, h, prev, next);
    if (h->wait) {
        struct http_wait *hw = h->wait;
        if (hw->done || hw->req != NULL) {     /* answered, or still waiting its turn */
            wrd_addr_leave(h->bill, &hw->turn);
            free(hw->body);
            wait_free(hw);
        } else {
            hw->gone = 1;       /* the job frees it when it ends */
        }
    }
    net->handshakes--;
    h->from->handshakes--;
    wrd_addr_put(srv, h->from);
    wrd_addr_put(srv, h->bill);
    free(h);
}

/* The oldest handshakes' deadline passed: close them, whatever they are
 * doing (half a request, a trickle of bytes, an idle keep-alive). They
 * still count until lws has closed them (WSI_DESTROY). */
static void on_deadline(uv_timer_t *t)
{
    struct wrd_server *srv = t->data;
    struct wrd_net *net = srv->net;
    uint64_t now = uv_now(&srv->loop);
    int killed = 0;
    while (net->waiting && net->waiting->deadline <= now) {
        struct handshake *h = net->waiting;
        net->waiting = h->next;
        lws_set_timeout(h->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
        h->timed_out = 1;
        net->timed_out++;
        killed++;
    }
    if (killed) {
        /* One line per 10 s at most. */
        if (net->timed_out_logged == 0 || now - net->timeout_log_ms >= 10000) {
            wrd_info("handshakes timed out", "closed=%llu handshake_timeout=%d",
                     (unsigned long long)(net->timed_out - net->timed_out_logged),
                     srv->cfg.handshake_timeout);
            net->timed_out_logged = net->timed_out;
            net->timeout_log_ms = now;
        }
        lws_cancel_service(srv->ctx);       /* lws closes them in its next service */
    }
    deadline_arm(srv);
}

static void on_vouch(uv_timer_t *t)
{
    wrd_conn_vouch_stopped(t->data);
}

static void deadline_arm(struct wrd_server *srv)
{
    struct wrd_net *net = srv->net;
    if (!net->timer_open)
        return;
    if (net->waiting == NULL) {
        uv_timer_stop(&net->deadline);
        return;
    }
    uint64_t now = uv_now(&srv->loop);
    uv_timer_start(&net->deadline, on_deadline,
                   net->waiting->deadline > now ? net->waiting->deadline - now : 0, 0);
}

/* --- the open file limit ----------------------------------------------------------- */

/* lws's fd table beyond --max-connections and --max-handshakes: the listen
 * socket, lws's event pipe, connections closing (refused upgrades, ...). */
#define FD_TABLE_MARGIN 64
/* Descriptors outside lws's connections: stdio, the store's files, the
 * loop's own, the notifier's webhook sockets and notify commands' pipes.
 * Each handshake may hold one more, outside lws's table, while a lobby
 * page of it waits its turn (wait_watch): counted with --max-handshakes. */
#define FD_RESERVE (64 + WRD_NOTIFY_DEFAULT_MAX_PENDING + 3 * WRD_NOTIFY_DEFAULT_MAX_CHILDREN)

/*
 * Set the soft RLIMIT_NOFILE to exactly what the limits need, and return
 * it: lws's fd table is made that size too (fd_limit_per_thread). Equal,
 * lws 4.1 finds a socket's connection by indexing its table with the fd;
 * a table smaller than the limit makes it search the whole table on every
 * event instead. The connection limits keep lws's share of the table
 * below FD_RESERVE of the end, so accept() never fails for want of a
 * descriptor (which would leave the listening socket readable and the loop
 * spinning). When the hard limit is too low, the connection limits are
 * lowered to fit it, with a warning; -1 when nothing useful fits.
 */
static long size_fd_limit(struct wrd_config *cfg)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) {
        wrd_error("cannot read the open file limit", "hint=\"getrlimit(RLIMIT_NOFILE) failed\"");
        return -1;
    }
    long need = (long)cfg->max_connections + 2L * cfg->max_handshakes + FD_TABLE_MARGIN +
                FD_RESERVE;
    long have = need;
    if (rl.rlim_max != RLIM_INFINITY && (long)rl.rlim_max < need)
        have = (long)rl.rlim_max;
    struct rlimit want = { (rlim_t)have, rl.rlim_max };
    if (setrlimit(RLIMIT_NOFILE, &want) != 0) {
        wrd_error("cannot set the open file limit", "nofile=%ld needed=%ld", have, need);
        return -1;
    }
    if (have == need)
        return need;
    /* Short of descriptors, the notifier's share shrinks too (at worst
     * webhooks then fail for a while; they are retried). */
    long reserve = have / 4 < FD_RESERVE ? (have / 4 > 64 ? have / 4 : 64) : FD_RESERVE;
    long room = have - FD_TABLE_MARGIN - reserve;
    if (room < 2) {
        wrd_error("open file limit too low", "hard_nofile=%ld needed=%ld hint=\"raise the hard "
                  "limit (ulimit -Hn, LimitNOFILE=)\"", have, need);
        return -1;
    }
    int hs = cfg->max_handshakes;
    if (hs > room / 4)
        hs = room / 4 > 0 ? (int)(room / 4) : 1;
    int mc = (int)(room - 2 * hs);
    wrd_warn("open file limit too low: connection limits lowered",
             "hard_nofile=%ld needed=%ld max_connections=%d max_handshakes=%d hint=\"raise the "
             "hard limit (ulimit -Hn, LimitNOFILE=) or lower --max-connections\"", have, need,
             mc, hs);
    cfg->max_connections = mc;
    cfg->max_handshakes = hs;
    if (cfg->max_handshakes_per_address > hs)
        cfg->max_handshakes_per_address = hs;
    return have;
}

/* --- HTTP --------------------------------------------------------------------- */

/*
 * HTTP answers. lws 4.1 will not read a connection's next request while
 * the answer to the last one waits for the socket to be writable (its h1
 * role in "doing transaction" or "deferring action"), but it leaves the
 * socket's POLLIN armed, and pipelined bytes it already holds make it ask
 * for service without waiting: a client that sends requests back to back
 * and never reads the answers kept the loop at 100% CPU. So each answer
 * is written whole from LWS_CALLBACK_HTTP (head, then body); if the socket
 * then has no room (the client does not read), the connection is watched:
 * after every poll (http_check) lws is told to stop reading it (rx flow
 * control) while its socket is not writable, and to go on once it is,
 * which is when lws can finish a partial write or take the next request.
 * lws's h1 role ignores POLLOUT while rx is flow-controlled, hence the
 * toggle rather than flow control for the whole answer.
 */

/* Answer flags. */
#define HTTP_F_CLOSE 1          /* Connection: close; closed once the answer is out */
#define HTTP_F_HEAD 2           /* the head only (a HEAD request) */
#define HTTP_F_ALLOW 4          /* a 405: say which methods are allowed */

/* Whether fd has room to write (POLLOUT now). */
static int fd_writable(int fd)
{
    struct pollfd pf = { .fd = fd, .events = POLLOUT };
    return fd >= 0 && poll(&pf, 1, 0) == 1 && (pf.revents & POLLOUT);
}

/* Read and drop what the peer sent that will never be read (a refused
 * request's body, pipelined requests: at most 64 KiB), so that closing
 * does not reset the connection (RST) before the peer has read the answer. */
static void drain_input(int fd)
{
    char buf[4096];
    for (int i = 0; fd >= 0 && i < 16; i++)
        if (recvfrom(fd, buf, sizeof buf, MSG_DONTWAIT, NULL, NULL) <= 0)
            break;
}

static void rx_set(struct handshake *h, int off)
{
    if (h->rx_off != off) {
        h->rx_off = off;
        lws_rx_flow_control(h->wsi, !off);
    }
    /* While it is not read, lws's keep-alive timer (5 s for the next
     * request, set again as each answer completes) must not close it: the
     * next request is there, unread. The handshake deadline
     * (handshake_begin) still bounds the connection. */
    if (off)
        lws_set_timeout(h->wsi, NO_PENDING_TIMEOUT, 0);
}

/* After every poll, for each watched answer: out (all handed to the kernel
 * and the socket writable again) ends the watch, and the connection is
 * closed if it had to be; else lws may read the connection only while its
 * socket is writable (see above). */
static void http_check(uv_check_t *ck)
{
    struct wrd_server *srv = ck->data;
    struct wrd_net *net = srv->net;
    int killed = 0;
    for (struct handshake *h = net->watched, *next; h; h = next) {
        next = h->wnext;
        int fd = (int)lws_get_socket_fd(h->wsi);
        int writable = fd_writable(fd);
        if (writable && !lws_partial_buffered(h->wsi)) {
            rx_set(h, 0);
            unwatch(net, h);
            if (h->close_when_out) {
                drain_input(fd);
                lws_set_timeout(h->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
                killed++;
            }
            continue;
        }
        rx_set(h, !writable);
    }
    if (killed)
        lws_cancel_service(srv->ctx);
}

/* Watch an answer lws may not have sent whole (see above). */
static int http_watch(struct wrd_server *srv, struct lws *wsi, int close_when_out)
{
    struct wrd_net *net = srv->net;
    struct handshake *h = lws_get_opaque_user_data(wsi);
    if (h == NULL || !net->timer_open)
        return close_when_out ? -1 : 0;
    h->close_when_out = close_when_out;
    if (!h->watched) {
        h->watched = 1;
        h->wprev = NULL;
        h->wnext = net->watched;
        if (net->watched)
            net->watched->wprev = h;
        else
            uv_check_start(&net->check, http_check);
        net->watched = h;
    }
    rx_set(h, !fd_writable((int)lws_get_socket_fd(wsi)));
    return 0;
}

/* A header an answer adds: "name:" and its value. */
struct http_hdr {
    const char *name, *value;
};

/* Answer a request with status and len bytes of body (not taken), the
 * headers hdrs (n of them) added: the one writer of HTTP answers, all
 * from LWS_CALLBACK_HTTP. Returns the callback's result. */
static int http_send(struct lws *wsi, int status, const char *type, const unsigned char *body,
                     size_t len, const struct http_hdr *hdrs, int nhdrs, unsigned flags)
{
    struct wrd_server *srv = lws_context_user(lws_get_context(wsi));
    unsigned char hdr[LWS_PRE + 2048], *start = hdr + LWS_PRE, *pos = start,
                  *end = hdr + sizeof hdr - 1;
    int mux = lws_get_network_wsi(wsi) != wsi;      /* an HTTP/2 stream */
    int bad = lws_add_http_common_headers(wsi, (unsigned int)status, type, len, &pos, end) ||
              ((flags & HTTP_F_ALLOW) &&
               lws_add_http_header_by_name(wsi, (const unsigned char *)"allow:",
                                           (const unsigned char *)"GET, HEAD", 9, &pos, end)) ||
              ((flags & HTTP_F_CLOSE) && !mux &&
               lws_add_http_header_by_token(wsi, WSI_TOKEN_CONNECTION,
                                            (const unsigned char *)"close", 5, &pos, end));
    for (int i = 0; !bad && i < nhdrs; i++)
        bad = lws_add_http_header_by_name(wsi, (const unsigned char *)hdrs[i].name,
                                          (const unsigned char *)hdrs[i].value,
                                          (int)strlen(hdrs[i].value), &pos, end);
    if (bad || lws_finalize_write_http_header(wsi, start, &pos, end))
        return -1;
    /* HEAD: RFC 9110 9.3.2, the head a GET gets, Content-Length included,
     * and no content (an HTTP/2 stream still needs its end). */
    size_t n = flags & HTTP_F_HEAD ? 0 : len;
    if (n > 0 || mux) {
        unsigned char *buf = malloc(LWS_PRE + n + 1);
        if (buf == NULL)
            return -1;
        if (n > 0)
            memcpy(buf + LWS_PRE, body, n);
        int w = lws_write(wsi, buf + LWS_PRE, n, LWS_WRITE_HTTP_FINAL);
        free(buf);
        if (w < 0)
            return -1;
    }
    if (mux)            /* lws's HTTP/2 streams are not read by connection */
        return lws_http_transaction_completed(wsi) ? -1 : 0;
    int fd = (int)lws_get_socket_fd(wsi);
    if (flags & HTTP_F_CLOSE) {
        if (!lws_partial_buffered(wsi)) {
            drain_input(fd);
            return -1;
        }
        return http_watch(srv, wsi, 1);
    }
    if (lws_http_transaction_completed(wsi))
        return -1;
    if (lws_partial_buffered(wsi) || !fd_writable(fd))
        return http_watch(srv, wsi, 0);
    return 0;
}

/* Answer with status and a text body (taken; NULL: out of memory, close). */
static int http_answer(struct lws *wsi, int status, const char *type, char *body, unsigned flags)
{
    if (body == NULL)
        return -1;
    int rc = http_send(wsi, status, type, (const unsigned char *)body, strlen(body), NULL, 0,
                       flags);
    free(body);
    return rc;
}

/* Whether the request announces content (a Content-Length other than 0,
 * or any Transfer-Encoding). */
static int http_has_body(struct lws *wsi)
{
    if (lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_TRANSFER_ENCODING) > 0)
        return 1;
    int n = lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH);
    if (n <= 0)
        return 0;
    char v[32];
    if (n >= (int)sizeof v || lws_hdr_copy(wsi, v, sizeof v, WSI_TOKEN_HTTP_CONTENT_LENGTH) < 0)
        return 1;
    for (const char *c = v; *c; c++)
        if (*c != '0' && *c != ' ' && *c != '\t')
            return 1;
    return 0;
}

/* Whether the client asked to close after this request. */
static int http_wants_close(struct lws *wsi)
{
    char v[64];
    if (lws_hdr_total_length(wsi, WSI_TOKEN_CONNECTION) <= 0 ||
        lws_hdr_copy(wsi, v, sizeof v, WSI_TOKEN_CONNECTION) < 0)
        return 0;
    for (char *c = v; *c; c++)
        if (*c >= 'A' && *c <= 'Z')
            *c = (char)(*c - 'A' + 'a');
    return strstr(v, "close") != NULL;
}

/* Append printf output to a growing buffer. */
struct sbuf {
    char *s;
    size_t len, cap;
};

__attribute__((format(printf, 2, 3))) static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0)
            return;
        if (b->s && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = (b->cap + (size_t)n + 1) * 2;
        char *s = realloc(b->s, cap);
        if (s == NULL)
            return;
        b->s = s;
        b->cap = cap;
    }
}

static char *metrics_text(struct wrd_server *srv)
{
    static const char *const bounds[WRD_HIST_BUCKETS] = { "0.0001", "0.00025", "0.0005", "0.001",
                                                          "0.0025", "0.005", "0.01", "0.025",
                                                          "0.05", "0.1", "0.25", "1" };
    const struct wrd_metrics *m = &srv->metrics;
    struct sbuf b = { NULL, 0, 0 };
    sb_printf(&b, "# HELP warroom_connections Open websocket connections.\n"
                  "# TYPE warroom_connections gauge\nwarroom_connections %d\n",
              srv->connections);
    if (srv->net)
        sb_printf(&b, "# HELP warroom_handshakes Open connections not yet websockets (HTTP ones "
                      "included).\n# TYPE warroom_handshakes gauge\nwarroom_handshakes %d\n"
                      "# HELP warroom_handshakes_refused_total Connections closed at accept: "
                      "--max-handshakes or --max-handshakes-per-address reached.\n"
                      "# TYPE warroom_handshakes_refused_total counter\n"
                      "warroom_handshakes_refused_total %llu\n"
                      "# HELP warroom_handshake_timeouts_total Connections closed for not being "
                      "websockets --handshake-timeout seconds after their accept.\n"
                      "# TYPE warroom_handshake_timeouts_total counter\n"
                      "warroom_handshake_timeouts_total %llu\n",
                  srv->net->handshakes, (unsigned long long)srv->net->refused,
                  (unsigned long long)srv->net->timed_out);
    struct wrd_games_stats gst;
    wrd_games_stats(srv, &gst);
    sb_printf(&b, "# HELP warroom_games Games held in memory by the server.\n"
                  "# TYPE warroom_games gauge\nwarroom_games %d\n"
                  "# HELP warroom_games_running Of those, running games.\n"
                  "# TYPE warroom_games_running gauge\nwarroom_games_running %d\n"
                  "# HELP warroom_games_read_total Games read back from the store (asked for, "
                  "or due).\n# TYPE warroom_games_read_total counter\n"
                  "warroom_games_read_total %llu\n"
                  "# HELP warroom_games_shelved_total Running games that left memory, idle "
                  "(--game-idle).\n# TYPE warroom_games_shelved_total counter\n"
                  "warroom_games_shelved_total %llu\n",
              gst.held, gst.running, gst.reads, gst.shelved);
    if (gst.cluster)
        sb_printf(&b, "# HELP warroom_games_owned Games this process owns (--cluster).\n"
                      "# TYPE warroom_games_owned gauge\nwarroom_games_owned %d\n"
                      "# HELP warroom_cluster_forwards_total Commands sent to the process that "
                      "owns their game.\n# TYPE warroom_cluster_forwards_total counter\n"
                      "warroom_cluster_forwards_total %llu\n"
                      "# HELP warroom_cluster_takeovers_total Games taken from a process that "
                      "died or let them go.\n# TYPE warroom_cluster_takeovers_total counter\n"
                      "warroom_cluster_takeovers_total %llu\n"
                      "# HELP warroom_cluster_notes_total Forwards and replies that came from "
                      "the cluster (every process gets every one).\n"
                      "# TYPE warroom_cluster_notes_total counter\n"
                      "warroom_cluster_notes_total %llu\n"
                      "# HELP warroom_cluster_notes_read_total Of those, the ones addressed to "
                      "this process, the only ones parsed.\n"
                      "# TYPE warroom_cluster_notes_read_total counter\n"
                      "warroom_cluster_notes_read_total %llu\n",
                  gst.owned, gst.forwarded, gst.takeovers, gst.notes, gst.notes_parsed);
    sb_printf(&b, "# HELP warroom_commands_total Accepted commands.\n"
                  "# TYPE warroom_commands_total counter\nwarroom_commands_total %llu\n",
              (unsigned long long)m->commands);
    sb_printf(&b, "# HELP warroom_rejections_total Refused messages and commands.\n"
                  "# TYPE warroom_rejections_total counter\nwarroom_rejections_total %llu\n",
              (unsigned long long)m->rejections);
    size_t rx = 0;
    for (const struct wrd_conn *c = srv->conns; c; c = c->next)
        rx += c->in_cap;
    sb_printf(&b, "# HELP warroom_receive_buffer_bytes Bytes of the open websockets' buffers "
                  "joining inbound messages.\n"
                  "# TYPE warroom_receive_buffer_bytes gauge\nwarroom_receive_buffer_bytes %zu\n",
              rx);
    sb_printf(&b, "# HELP warroom_bytes_in_total Websocket payload bytes received.\n"
                  "# TYPE warroom_bytes_in_total counter\nwarroom_bytes_in_total %llu\n",
              (unsigned long long)m->bytes_in);
    sb_printf(&b, "# HELP warroom_bytes_out_total Websocket payload bytes sent.\n"
                  "# TYPE warroom_bytes_out_total counter\nwarroom_bytes_out_total %llu\n",
              (unsigned long long)m->bytes_out);
    sb_printf(&b, "# HELP warroom_websocket_writes_total Websocket writes (each one send()), "
                  "by the path that made them: straight after a commit, or from a WRITEABLE "
                  "callback (POLLOUT raised and dropped).\n"
                  "# TYPE warroom_websocket_writes_total counter\n"
                  "warroom_websocket_writes_total{path=\"direct\"} %llu\n"
                  "warroom_websocket_writes_total{path=\"writeable\"} %llu\n",
              (unsigned long long)m->writes_direct, (unsigned long long)m->writes_writeable);
    sb_printf(&b, "# HELP warroom_store_commit_seconds Store batch commit latency.\n"
                  "# TYPE warroom_store_commit_seconds histogram\n");
    for (int i = 0; i < WRD_HIST_BUCKETS; i++)
        sb_printf(&b, "warroom_store_commit_seconds_bucket{le=\"%s\"} %llu\n", bounds[i],
                  (unsigned long long)m->commit_buckets[i]);
    sb_printf(&b, "warroom_store_commit_seconds_bucket{le=\"+Inf\"} %llu\n"
                  "warroom_store_commit_seconds_sum %.6f\nwarroom_store_commit_seconds_count %llu\n",
              (unsigned long long)m->commits, m->commit_seconds_sum,
              (unsigned long long)m->commits);
    if (srv->notifier) {
        struct wrd_notify_stats ns;
        wrd_notifier_stats(srv->notifier, &ns);
        sb_printf(&b, "# TYPE warroom_webhooks_sent_total counter\nwarroom_webhooks_sent_total %llu\n"
                      "# TYPE warroom_webhooks_given_up_total counter\n"
                      "warroom_webhooks_given_up_total %llu\n",
                  (unsigned long long)ns.webhooks_sent_total,
                  (unsigned long long)ns.webhooks_given_up_total);
        sb_printf(&b, "# HELP warroom_webhooks_refused_total Webhook notifications not sent: "
                      "no address of their destination is allowed.\n"
                      "# TYPE warroom_webhooks_refused_total counter\n"
                      "warroom_webhooks_refused_total %llu\n",
                  (unsigned long long)ns.webhooks_refused_total);
        sb_printf(&b, "# HELP warroom_webhooks_dropped_total Webhook notifications dropped: "
                      "their owner's share or every place was taken.\n"
                      "# TYPE warroom_webhooks_dropped_total counter\n"
                      "warroom_webhooks_dropped_total %llu\n"
                      "# HELP warroom_webhooks_replaced_total Webhook notifications replaced "
                      "by a newer one for the same seat before they were sent.\n"
                      "# TYPE warroom_webhooks_replaced_total counter\n"
                      "warroom_webhooks_replaced_total %llu\n"
                      "# HELP warroom_webhooks_pending Webhook notifications in flight or "
                      "waiting to retry.\n"
                      "# TYPE warroom_webhooks_pending gauge\nwarroom_webhooks_pending %u\n",
                  (unsigned long long)ns.webhooks_dropped_total,
                  (unsigned long long)ns.webhooks_replaced_total, ns.webhooks_pending);
    }
    if (srv->mailer) {
        struct wrd_mail_stats ms;
        wrd_mailer_stats(srv->mailer, &ms);
        sb_printf(&b, "# HELP warroom_mails_sent_total Mails the SMTP server accepted.\n"
                      "# TYPE warroom_mails_sent_total counter\nwarroom_mails_sent_total %llu\n"
                      "# HELP warroom_mail_failures_total Failed attempts to hand a mail over, "
                      "each retry counted.\n"
                      "# TYPE warroom_mail_failures_total counter\n"
                      "warroom_mail_failures_total %llu\n"
                      "# HELP warroom_mails_given_up_total Mails given up: refused (5xx) or "
                      "every attempt failed.\n"
                      "# TYPE warroom_mails_given_up_total counter\n"
                      "warroom_mails_given_up_total %llu\n"
                      "# HELP warroom_mails_dropped_total Mails dropped by a bound (per seat, "
                      "per address, in all).\n"
                      "# TYPE warroom_mails_dropped_total counter\n"
                      "warroom_mails_dropped_total %llu\n"
                      "# HELP warroom_mails_pending Mails queued, in flight or waiting to retry.\n"
                      "# TYPE warroom_mails_pending gauge\nwarroom_mails_pending %u\n"
                      "# HELP warroom_mails_running Mails being handed to the SMTP server now.\n"
                      "# TYPE warroom_mails_running gauge\nwarroom_mails_running %u\n",
                  (unsigned long long)ms.sent_total, (unsigned long long)ms.failures_total,
                  (unsigned long long)ms.given_up_total, (unsigned long long)ms.dropped_total,
                  ms.pending, ms.running);
    }
    return b.s;
}

/*
 * A request head is in. Every page is read-only: GET and HEAD; anything
 * else is 405 with Allow. No request body is read: a GET or HEAD that
 * announces one is refused (400, RFC 9110 9.3.1: content in a GET has no
 * meaning here, and a body the server does not read could be taken for
 * the next request), as is any other method's; both close the connection
 * once answered.
 */
/* The lobby's answer is ready (from the loop): it goes when the connection
 * can take it. */
static void lobby_ready(struct wrd_server *srv, void *ctx, json_t *answer, const char *why)
{
    struct http_wait *hw = ctx;
    if (hw->gone) {
        wait_free(hw);
        return;
    }
    if (answer != NULL) {
        hw->status = 200;
        hw->body = json_dumps(answer, JSON_COMPACT);
        struct handshake *h = lws_get_opaque_user_data(hw->wsi);
        if (h != NULL && hw->body != NULL)
            wrd_addr_charge(srv, h->bill, wrd_addr_bytes_cost(strlen(hw->body)));
    } else {
        char msg[200];
        snprintf(msg, sizeof msg, "%s\n", why ? why : "the lobby could not be read");
        hw->status = why && strstr(why, "could not be read") ? 500 : 400;
        hw->body = strdup(msg);
    }
    hw->done = 1;
    if (!hw->in_call)
        lws_callback_on_writable(hw->wsi);
}

/* Write the lobby's answer, ready in h->wait (which it frees). */
static int lobby_answer(struct lws *wsi, struct handshake *h)
{
    struct http_wait *hw = h->wait;
    h->wait = NULL;
    int rc = http_answer(wsi, hw->status, hw->status == 200 ? "application/json" : "text/plain",
                         hw->body, hw->flags);
    wait_free(hw);
    return rc;
}

static void lobby_retry(uv_timer_t *t);

/* The client of a page waiting its turn closed its side of the connection
 * (or the socket failed). lws does not read a connection whose request is
 * being answered, so it would learn of the close only when writing the
 * answer, and the page would keep its turn and be charged for nobody.
 * Read as a proxy reads it when its client goes away (a half-close
 * included): the page is given up and the connection closed, and its turn
 * leaves the queue (handshake_end). */
static void wait_hup(uv_poll_t *p, int status, int events)
{
    (void)status;
    (void)events;
    struct http_wait *hw = p->data;
    uv_poll_stop(p);
    lws_set_timeout(hw->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
}

/* A request ahead of hw's page in its address's queue went away: it
 * tries again when its shorter wait is over (addr.h, wake). A page's turn
 * is queued only once lobby_try has started its timer, and leaves the
 * queue before its request is dropped or its handshake ends: so the timer,
 * the request and the handshake are all there. */
static void lobby_wake(struct wrd_addr_turn *t)
{
    struct http_wait *hw = WRD_CONTAINER_OF(t, struct http_wait, turn);
    struct handshake *h = lws_get_opaque_user_data(hw->wsi);
    struct wrd_server *srv = lws_context_user(lws_get_context(hw->wsi));
    uv_timer_start(&hw->timer, lobby_retry,
                   (uint64_t)wrd_addr_turn_wait_ms(srv, h->bill, t), 0);
}

/* Watch hw's socket for its client's end of stream while it waits: on a
 * dup() of it, as lws's own watch of the socket stays as it is. Without
 * it (no descriptor left) the page only waits. */
static void wait_watch(struct wrd_server *srv, struct http_wait *hw)
{
    int fd = (int)lws_get_socket_fd(hw->wsi);
    hw->hup_fd = fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 0) : -1;
    if (hw->hup_fd < 0)
        return;
    if (uv_poll_init(&srv->loop, &hw->hup, hw->hup_fd) != 0) {
        close(hw->hup_fd);
        hw->hup_fd = -1;
        return;
    }
    hw->hup.data = hw;
    hw->handles++;
    uv_poll_start(&hw->hup, UV_DISCONNECT, wait_hup);
}

/* The lobby page in h->wait, in its turn for its address's budget (it
 * costs what a `list` costs): once let through, its request goes to the
 * games (lobby_ready). While the budget is spent, or spoken for by
 * requests of the address that waited first, it waits on the server, as
 * a websocket's message does, and tries again when wrd_addr_turn_wait_ms
 * says; a page that would still be waiting at its connection's deadline
 * (--handshake-timeout) is answered 429 at once. On return the answer
 * may be done (hw->done): the caller writes it. */
static void lobby_try(struct wrd_server *srv, struct handshake *h)
{
    struct http_wait *hw = h->wait;
    if (!wrd_addr_take_turn(srv, h->bill, &hw->turn, wrd_protocol_cost("list"))) {
        uint64_t ms = (uint64_t)wrd_addr_turn_wait_ms(srv, h->bill, &hw->turn);
        if (uv_now(&srv->loop) + ms < h->deadline) {
            if (!hw->timing) {
                uv_timer_init(&srv->loop, &hw->timer);
                hw->timer.data = hw;
                hw->timing = 1;
                hw->handles++;
                wait_watch(srv, hw);
            }
            uv_timer_start(&hw->timer, lobby_retry, ms, 0);
            return;
        }
        wrd_addr_leave(h->bill, &hw->turn);
        wait_unwatch(hw);
        json_decref(hw->req);
        hw->req = NULL;
        hw->status = 429;
        hw->body = strdup("too many requests from your address: wait a moment\n");
        hw->done = 1;
        return;
    }
    json_t *req = hw->req;
    hw->req = NULL;
    wait_unwatch(hw);
    hw->in_call = 1;
    wrd_games_list_async(srv, req, lobby_ready, hw);
    json_decref(req);
    hw->in_call = 0;
}

static void lobby_retry(uv_timer_t *t)
{
    struct http_wait *hw = t->data;
    struct wrd_server *srv = lws_context_user(lws_get_context(hw->wsi));
    lobby_try(srv, lws_get_opaque_user_data(hw->wsi));
    if (hw->done)
        lws_callback_on_writable(hw->wsi);
}

/* Whether wsi came in on the web port (its own vhost, "web"). */
static int on_web_port(struct lws *wsi)
{
    const char *name = lws_get_vhost_name(lws_get_vhost(wsi));
    return name != NULL && strcmp(name, "web") == 0;
}

/* Whether the request's header tok contains word (case-insensitively). */
static int header_has(struct lws *wsi, enum lws_token_indexes tok, const char *word)
{
    char v[1024];
    int n = lws_hdr_total_length(wsi, tok);
    if (n <= 0 || n >= (int)sizeof v || lws_hdr_copy(wsi, v, sizeof v, tok) < 0)
        return 0;
    return strcasestr(v, word) != NULL;
}

/* The web port: files of the table (web.h) and nothing else. Every answer,
 * errors included, carries the security headers; every file is answered
 * with "Cache-Control: no-cache" and its ETag (revalidated each time, 304
 * when unchanged), so a new install is seen at the next load. */
static int web_answer(struct lws *wsi, const char *path, int method_ok, int body,
                      unsigned flags)
{
    struct wrd_server *srv = lws_context_user(lws_get_context(wsi));
    struct http_hdr h[8] = {
        { "content-security-policy:", wrd_web_csp(srv->web) },
        { "x-content-type-options:", "nosniff" },
        { "referrer-policy:", "no-referrer" },
        { "cache-control:", "no-cache" },
    };
    int n = 4;
    if (!method_ok) {
        static const char msg[] = "method not allowed: GET and HEAD only\n";
        return http_send(wsi, 405, "text/plain; charset=utf-8", (const unsigned char *)msg,
                         sizeof msg - 1, h, n, flags | HTTP_F_ALLOW);
    }
    if (body) {
        static const char msg[] = "bad request: a GET or HEAD request carries no content\n";
        return http_send(wsi, 400, "text/plain; charset=utf-8", (const unsigned char *)msg,
                         sizeof msg - 1, h, n, flags);
    }
    const struct wrd_web_file *f = NULL;
    enum wrd_web_verdict v = wrd_web_find(srv->web, path, &f);
    if (v != WRD_WEB_FOUND) {
        const char *msg = v == WRD_WEB_BAD ? "bad request: not a path of this site\n"
                                           : "not found\n";
        return http_send(wsi, v == WRD_WEB_BAD ? 400 : 404, "text/plain; charset=utf-8",
                         (const unsigned char *)msg, strlen(msg), h, n, flags);
    }
    h[n++] = (struct http_hdr){ "etag:", f->etag };
    h[n++] = (struct http_hdr){ "vary:", "Accept-Encoding" };
    if (header_has(wsi, WSI_TOKEN_HTTP_IF_NONE_MATCH, f->etag))
        return http_send(wsi, 304, f->type, NULL, 0, h, n, flags | HTTP_F_HEAD);
    if (f->gz && header_has(wsi, WSI_TOKEN_HTTP_ACCEPT_ENCODING, "gzip")) {
        h[n++] = (struct http_hdr){ "content-encoding:", "gzip" };
        return http_send(wsi, 200, f->type, f->gz, f->gzlen, h, n, flags);
    }
    return http_send(wsi, 200, f->type, f->body, f->len, h, n, flags);
}

static int on_http(struct lws *wsi, const char *path)
{
    struct wrd_server *srv = lws_context_user(lws_get_context(wsi));
    int get = lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI) > 0;
    int head = !get && lws_hdr_total_length(wsi, WSI_TOKEN_HEAD_URI) > 0;
    int body = http_has_body(wsi);
    unsigned flags = (head ? HTTP_F_HEAD : 0) | (body || http_wants_close(wsi) ? HTTP_F_CLOSE : 0);
    if (srv->web != NULL && on_web_port(wsi))
        return web_answer(wsi, path, get || head, body, flags);
    if (!get && !head)
        return http_answer(wsi, 405, "text/plain",
                          strdup("method not allowed: GET and HEAD only\n"),
                          flags | HTTP_F_ALLOW);
    if (body)
        return http_answer(wsi, 400, "text/plain",
                          strdup("bad request: a GET or HEAD request carries no content\n"),
                          flags);
    if (strcmp(path, "/healthz") == 0) {
        json_t *j = json_pack("{s:s, s:s, s:i, s:i}", "status", srv->stopping ? "stopping" : "ok",
                              "version", WARROOM_VERSION, "connections", srv->connections, "games",
                              wrd_games_count(srv));
        char *text = json_dumps(j, JSON_COMPACT);
        json_decref(j);
        return http_answer(wsi, srv->stopping ? 503 : 200, "application/json", text, flags);
    }
    if (strcmp(path, "/metrics") == 0)
        return http_answer(wsi, 200, "text/plain; version=0.0.4", metrics_text(srv), flags);
    if (strcmp(path, "/games") == 0) {
        /* The lobby: ?ruleset=&status=&limit=&cursor= as in `list`. */
        json_t *req = json_object(), *filter = json_object();
        static const char *const args[] = { "ruleset", "status", "limit", "cursor" };
        for (int i = 0; i < 4; i++) {
            char name[16], v[128];
            snprintf(name, sizeof name, "%s=", args[i]);
            if (lws_get_urlarg_by_name(wsi, name, v, sizeof v) == NULL)
                continue;
            if (i < 2)
                json_object_set_new(filter, args[i], json_string(v));
            else if (i == 2)
                json_object_set_new(req, "limit", json_integer(strtol(v, NULL, 10)));
            else
                json_object_set_new(req, "cursor", json_string(v));
        }
        json_object_set_new(req, "filter", filter);
        /* It waits its turn for the caller's address's budget (lobby_try),
         * and the answer may need the store's finished games, read on a
         * worker thread: it is written when ready (HTTP_WRITEABLE). */
        struct handshake *h = lws_get_opaque_user_data(wsi);
        struct http_wait *hw = h ? calloc(1, sizeof *hw) : NULL;
        if (hw == NULL || bill(srv, wsi, h) != 0) {
            free(hw);
            json_decref(req);
            return http_answer(wsi, 500, "text/plain", strdup("out of memory\n"), flags);
        }
        *hw = (struct http_wait){ .flags = flags, .wsi = wsi, .req = req, .hup_fd = -1,
                                  .turn = { .wake = lobby_wake } };
        h->wait = hw;
        lobby_try(srv, h);
        return hw->done ? lobby_answer(wsi, h) : 0;
    }
    return http_answer(wsi, 404, "text/plain", strdup("not found\n"), flags);
}

/* --- websockets ------------------------------------------------------------------ */


static int on_receive(struct lws *wsi, struct wrd_conn *c, const void *data, size_t len)
{
    if (raw_bad(wsi))
        return 0;               /* not dispatched: the 1002 is on its way */
    if (c->held) {
        /* lws keeps what arrives while reading is off (its rx flow cache):
         * nothing may reach here before the held message is dispatched. */
        wrd_error("data while a message is held: closing", "addr=%s", c->addr);
        return -1;
    }
    /* Protocol v1 is JSON text: a binary frame (or a message begun as one)
     * is refused at its first byte with 1003, "unacceptable data". */
    if (lws_frame_is_binary(wsi)) {
        lws_close_reason(wsi, LWS_CLOSE_STATUS_UNACCEPTABLE_OPCODE,
                         (unsigned char *)"text frames only", 16);
        return -1;
    }
    size_t max = c->srv->cfg.max_message;
    size_t want = c->in_len + len + lws_remaining_packet_payload(wsi);
    if (want > max) {
        lws_close_reason(wsi, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE,
                         (unsigned char *)"message too large", 17);
        return -1;
    }
    if (c->in_len + len > c->in_cap) {
        size_t cap = c->in_cap ? c->in_cap : WRD_CONN_IN_START;
        while (cap < c->in_len + len)
            cap *= 2;
        char *n = realloc(c->in, cap);
        if (n == NULL)
            return -1;
        c->in = n;
        c->in_cap = cap;
    }
    memcpy(c->in + c->in_len, data, len);
    c->in_len += len;
    c->srv->metrics.bytes_in += len;
    if (lws_is_final_fragment(wsi) && lws_remaining_packet_payload(wsi) == 0)
        wrd_conn_received(c);
    return 0;
}

/* Write a close frame (code, reason of at most 60 bytes): the one write of
 * a SERVER_WRITEABLE callback that then returns -1. */
static void close_frame(struct lws *wsi, int code, const char *reason)
{
    unsigned char frame[LWS_PRE + 64];
    size_t n = strlen(reason);
    frame[LWS_PRE] = (unsigned char)(code >> 8);
    frame[LWS_PRE + 1] = (unsigned char)(code & 0xff);
    memcpy(frame + LWS_PRE + 2, reason, n);
    /* 4 is lws 4.1's internal LWS_WRITE_CLOSE (lws-write.h hides it). */
    lws_write(wsi, frame + LWS_PRE, n + 2, (enum lws_write_protocol)4);
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    struct pss *p = user;
    struct wrd_server *srv;

    switch (reason) {
    case LWS_CALLBACK_FILTER_NETWORK_CONNECTION: {
        /* user is lws's description of the accepted socket, wsi the
         * listening one: nothing exists of the connection yet. */
        const struct lws_filter_network_conn_args *f = user;
        char addr[64];
        peer_key((const struct sockaddr *)&f->cli_addr, addr, sizeof addr);
        return handshake_refused(lws_context_user(lws_get_context(wsi)), addr);
    }

    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
        /* A websocket upgrade: the web port serves files only. */
        return on_web_port(wsi) ? -1 : 0;

    case LWS_CALLBACK_SERVER_NEW_CLIENT_INSTANTIATED:
        /* The accepted socket has its wsi (no protocol bound yet). */
        if (handshake_begin(lws_context_user(lws_get_context(wsi)), wsi) < 0)
            return -1;
        raw_begin(wsi);
        return 0;

    case LWS_CALLBACK_WSI_DESTROY:
        handshake_end(lws_context_user(lws_get_context(wsi)), wsi, 0);
        raw_end(wsi);
        return 0;

    case LWS_CALLBACK_HTTP:
        raw_answered(wsi);
        return on_http(wsi, (const char *)in);

    case LWS_CALLBACK_HTTP_WRITEABLE: {
        /* Answers are written whole by on_http(), but for one prepared off
         * the loop (the lobby), written here once it is ready. */
        struct handshake *h = lws_get_opaque_user_data(wsi);
        return h && h->wait && h->wait->done ? lobby_answer(wsi, h) : 0;
    }

    case LWS_CALLBACK_HTTP_BODY:
    case LWS_CALLBACK_HTTP_BODY_COMPLETION:
        /* Content of a request on_http() refused (lws may parse some along
         * with the head): dropped. Not lws's default, which would end the
         * transaction and keep the connection for what follows. */
        return 0;

    case LWS_CALLBACK_ESTABLISHED:
        srv = lws_context_user(lws_get_context(wsi));
        handshake_end(srv, wsi, 1);         /* a websocket now, counted as one */
        raw_upgraded(wsi);
        memset(p, 0, sizeof *p);
        client_key(srv, wsi, p->addr, sizeof p->addr);
        if (srv->stopping || srv->connections >= srv->cfg.max_connections) {
            lws_close_reason(wsi, (enum lws_close_status)1013 /* try again later */,
                             (unsigned char *)"server full", 11);
            return -1;
        }
        {
            const struct wrd_addr *a = wrd_addr_find(srv, p->addr);
            if (a != NULL && a->websockets >= srv->cfg.max_per_address) {
                lws_close_reason(wsi, LWS_CLOSE_STATUS_POLICY_VIOLATION,
                                 (unsigned char *)"too many connections", 20);
                return -1;
            }
        }
        if (srv->cfg.send_buffer > 0) {
            /* A fixed kernel send buffer (no autotuning up to tcp_wmem's
             * maximum): what a slow reader can pin is then this plus
             * --max-queue messages. */
            int fd = (int)lws_get_socket_fd(wsi), sz = srv->cfg.send_buffer;
            if (fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof sz) != 0)
                wrd_warn("cannot set the send buffer", "addr=%s", p->addr);
        }
        p->conn = wrd_conn_new(srv, wsi, p->addr);
        if (p->conn == NULL)
            return -1;
        p->conn->from->websockets++;
        p->counted = 1;
        srv->connections++;
        break;

    case LWS_CALLBACK_RECEIVE:
        if (p->conn == NULL)
            return -1;
        return on_receive(wsi, p->conn, in, len);

    case LWS_CALLBACK_SERVER_WRITEABLE:
        if (p->conn == NULL)
            return -1;
        if (raw_bad(wsi)) {
            /* An unmasked frame (raw_read): 1002, written here for the
             * reason given below. */
            raw_close_frame(wsi);
            return -1;
        }
        {
            int code;
            const char *why;
            if (wrd_conn_closing_code(p->conn, &code, &why)) {
                /* Drained: send the close frame (1001 going away when the
                 * server stops), then close. On a libuv loop, lws 4.1 kills
                 * the socket at once when the callback returns -1 ("uv
                 * repeat test" in its close path), without the close frame
                 * lws_close_reason() asked for; so the frame is written
                 * here. */
                close_frame(wsi, code, why);
                return -1;
            }
        }
        return wrd_conn_write_next(p->conn);

    case LWS_CALLBACK_CLOSED:
        srv = lws_context_user(lws_get_context(wsi));
        if (p->conn) {
            if (p->counted)
                p->conn->from->websockets--;
            p->counted = 0;
            srv->connections--;
            wrd_conn_closed(p->conn);
            p->conn = NULL;
        }
        break;

    default:
        break;
    }
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}

/* protocols[0] is ours, so clients without a subprotocol bind to it too. */
static const struct lws_protocols protocols[] = {
    /* rx_buffer_size 1024: lws gives every connection a receive buffer
     * this large (commands are a few hundred bytes; longer messages arrive
     * in pieces that on_receive joins), 3 KB less per idle connection than
     * the 4096 before. tx_packet_size 65536: lws hands a write of up to
     * 64 KiB (a large state, or conn.c's coalesced frames) to one send()
     * instead of slicing it into rx_buffer_size pieces, one WRITEABLE round
     * each. */
    { "warroom.v1", callback, sizeof(struct pss), 1024, 0, NULL, 65536 },
    { NULL, NULL, 0, 0, 0, NULL, 0 }
};

static void lws_log_to_ours(int level, const char *line)
{
    size_t n = strlen(line);
    char buf[256];
    if (n >= sizeof buf)
        n = sizeof buf - 1;
    memcpy(buf, line, n);
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '"'))
        n--;
    buf[n] = '\0';
    for (size_t i = 0; i < n; i++)
        if (buf[i] == '"')
            buf[i] = '\'';
    wrd_log(level == LLL_ERR ? WRD_LOG_ERROR : WRD_LOG_WARN, "libwebsockets", "detail=\"%s\"",
            buf);
}

/* The web port: a second vhost of the same context, with the same
 * callback, so its connections are handshakes like the main port's
 * (counted per address and in total, closed at the handshake deadline)
 * and its answers written by the same writer; the files are loaded here,
 * once (web.h). info is the main vhost's, changed for this one. */
static int web_start(struct wrd_server *srv, struct lws_context_creation_info *info)
{
    char why[512];
    const char *scheme = srv->cfg.tls_cert ? "wss" : "ws";
    srv->web = wrd_web_load(srv->cfg.web_dir, scheme, srv->cfg.host, srv->port, why, sizeof why);
    if (srv->web == NULL) {
        wrd_log(srv->cfg.web_named ? WRD_LOG_ERROR : WRD_LOG_WARN, "cannot load the web client",
                "dir=%s detail=\"%s\" hint=\"set --web, or "
                  "--web-listen none\"", srv->cfg.web_dir, why);
        return -1;
    }
    info->port = srv->cfg.web_port;
    info->iface = srv->cfg.web_host;
    info->vhost_name = "web";
    /* lws's own security headers are not sent here: web_answer() sends its
     * own (its CSP names the websocket's origin). */
    info->options &= ~(uint64_t)LWS_SERVER_OPTION_HTTP_HEADERS_SECURITY_BEST_PRACTICES_ENFORCE;
    info->options = (info->options & ~(uint64_t)LWS_SERVER_OPTION_DISABLE_IPV6) |
                    (strchr(srv->cfg.web_host, ':') ? 0 : LWS_SERVER_OPTION_DISABLE_IPV6);
    struct lws_vhost *vh = lws_create_vhost(srv->ctx, info);
    if (vh == NULL) {
        wrd_log(srv->cfg.web_named ? WRD_LOG_ERROR : WRD_LOG_WARN, "cannot listen",
                "addr=%s:%d what=web hint=\"port busy: set --web-listen, "
                  "or --web-listen none\"", srv->cfg.web_host, srv->cfg.web_port);
        return -1;
    }
    srv->web_port = lws_get_vhost_listen_port(vh);
    wrd_info("web listening", "addr=%s:%d dir=%s files=%d", srv->cfg.web_host, srv->web_port,
             srv->cfg.web_dir, wrd_web_count(srv->web));
    printf("warroomd web client on %s://%s:%d/\n", srv->cfg.tls_cert ? "https" : "http",
           srv->cfg.web_host, srv->web_port);
    return 0;
}

int wrd_net_start(struct wrd_server *srv)
{
    struct lws_context_creation_info info;
    void *foreign_loops[1] = { &srv->loop };

    long nofile = size_fd_limit(&srv->cfg);
    if (nofile < 0)
        return -1;
    srv->net = calloc(1, sizeof *srv->net);
    raw_by_fd = calloc((size_t)nofile, sizeof *raw_by_fd);
    if (srv->net == NULL || raw_by_fd == NULL)
        return -1;              /* wrd_net_release() frees what was had */
    raw_nfd = (int)nofile;
    srv->net->retry.secs_since_valid_ping = (uint16_t)(srv->cfg.idle_timeout / 2);
    srv->net->retry.secs_since_valid_hangup = (uint16_t)srv->cfg.idle_timeout;

    lws_set_log_level(getenv("WARROOM_LWS_DEBUG") ? (LLL_ERR | LLL_WARN | LLL_NOTICE | LLL_INFO | LLL_DEBUG) : (LLL_ERR | LLL_WARN), lws_log_to_ours);
    memset(&info, 0, sizeof info);
    info.port = srv->cfg.port;
    info.iface = srv->cfg.host;
    info.protocols = protocols;
    info.vhost_name = "default";
    info.options = LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_VALIDATE_UTF8 |
                   (strchr(srv->cfg.host, ':') ? 0 : LWS_SERVER_OPTION_DISABLE_IPV6) |
                   LWS_SERVER_OPTION_HTTP_HEADERS_SECURITY_BEST_PRACTICES_ENFORCE;
    if (srv->cfg.tls_cert) {
        /* TLS only on this port: a plain-text client fails its handshake
         * (no ALLOW_NON_SSL_ON_SSL_PORT). */
        info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
        info.ssl_cert_filepath = srv->cfg.tls_cert;
        info.ssl_private_key_filepath = srv->cfg.tls_key;
    }
    info.foreign_loops = foreign_loops;
    info.pcontext = &srv->ctx;
    info.user = srv;
    info.retry_and_idle_policy = &srv->net->retry;
    /* lws's fd table: the open file limit, which covers every websocket,
     * every handshake and more (size_fd_limit). */
    info.fd_limit_per_thread = (unsigned int)nofile;
    /* lws's own time-outs before the upgrade (TLS accept, the wait for a
     * request's head, ...) follow the handshake deadline, so that a longer
     * --handshake-timeout means what it says; they are a second later, as a
     * backstop: the deadline itself (on_deadline) closes first, whatever
     * lws is doing with the connection. */
    info.timeout_secs = (unsigned int)srv->cfg.handshake_timeout + 1;
    info.timeout_secs_ah_idle = srv->cfg.handshake_timeout + 1;

    srv->ctx = lws_create_context(&info);
    if (srv->ctx == NULL) {
        if (srv->cfg.tls_cert)
            wrd_error("cannot listen", "addr=%s:%d tls_cert=%s tls_key=%s hint=\"port busy, "
                      "an unreadable or mismatched certificate and key, or the "
                      "libwebsockets-evlib-uv package missing\"", srv->cfg.host, srv->cfg.port,
                      srv->cfg.tls_cert, srv->cfg.tls_key);
        else
            wrd_error("cannot listen", "addr=%s:%d hint=\"port busy, or the "
                      "libwebsockets-evlib-uv package missing\"", srv->cfg.host, srv->cfg.port);
        return -1;
    }
    uv_timer_init(&srv->loop, &srv->net->deadline);
    srv->net->deadline.data = srv;
    uint64_t vouch_ms = (uint64_t)srv->cfg.idle_timeout * 1000 / 3;
    uv_timer_init(&srv->loop, &srv->net->vouch);
    srv->net->vouch.data = srv;
    uv_timer_start(&srv->net->vouch, on_vouch, vouch_ms, vouch_ms);
    uv_check_init(&srv->loop, &srv->net->check);
    srv->net->check.data = srv;
    srv->net->timer_open = 1;
    srv->port = lws_get_vhost_listen_port(lws_get_vhost_by_name(srv->ctx, "default"));
    char db[256];
    wrd_store_redact(srv->cfg.db, db, sizeof db);     /* never a password in a log */
    wrd_info("listening", "addr=%s:%d db=%s scenarios=%s tls=%s", srv->cfg.host, srv->port, db,
             srv->cfg.scenarios, srv->cfg.tls_cert ? "on" : "off");
    printf("warroomd listening on %s://%s:%d/\n", srv->cfg.tls_cert ? "wss" : "ws",
           srv->cfg.host, srv->port);
    srv->web_port = -1;
    if (srv->cfg.web_port >= 0 && web_start(srv, &info) < 0) {
        /* Named by the user: an error. By default (port + 1, the default
         * folder): the websocket server runs on without it and says so. */
        if (srv->cfg.web_named)
            return -1;
        wrd_web_free(srv->web);
        srv->web = NULL;
        wrd_warn("web client not served", "hint=\"set --web-listen and --web; "
                 "--web-listen none to say it is not wanted\"");
        printf("warroomd web client not served (see the log)\n");
    }
    fflush(stdout);
    return 0;
}

void wrd_net_stop(struct wrd_server *srv)
{
    srv->stopping = 1;
    if (srv->net && srv->net->timer_open) {
        srv->net->timer_open = 0;
        uv_close((uv_handle_t *)&srv->net->deadline, NULL);
        uv_close((uv_handle_t *)&srv->net->vouch, NULL);
        uv_close((uv_handle_t *)&srv->net->check, NULL);
    }
    if (srv->ctx)
        lws_context_destroy(srv->ctx);      /* first call: async close (going away) */
}

void wrd_net_release(struct wrd_server *srv)
{
    if (srv->ctx)
        lws_context_destroy(srv->ctx);      /* second call: frees it */
    srv->ctx = NULL;
    wrd_web_free(srv->web);
    srv->web = NULL;
    wrd_conn_ready_free(srv);
    free(srv->batch);
    srv->batch = NULL;
    if (srv->net) {
        while (srv->net->first) {
            struct handshake *h = srv->net->first;
            srv->net->first = h->next;
            wrd_addr_put(srv, h->from);
            wrd_addr_put(srv, h->bill);
            free(h);
        }
        free(srv->net);
        srv->net = NULL;
    }
    for (int fd = 0; fd < raw_nfd; fd++)
        free(raw_by_fd[fd]);
    free(raw_by_fd);
    raw_by_fd = NULL;
    raw_nfd = 0;
}
