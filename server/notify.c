/*
 * notify.c - webhooks and the notify command on the server's loop (see
 * notify.h for the contract).
 *
 * A webhook notification is one struct hook, alive from wrd_notify() until
 * it is sent, given up or cancelled. It owns a timer (the time-out of an
 * attempt, then the delay before the next one) and, during an attempt, a
 * TCP handle. An attempt is: resolve (uv_getaddrinfo) -> connect to each
 * address in turn -> write the whole request -> read up to the end of the
 * status line -> close. Every callback of a TCP handle that is closing is
 * ignored, so an attempt ends exactly once (attempt_end). A hook is freed
 * once it is done and its handles are closed.
 *
 * A name lookup cannot be interrupted once a worker thread runs it: the
 * lookup request lives apart from the hook (struct lookup) and is simply
 * abandoned; its callback frees it. The notifier counts the lookups
 * outstanding and, when closing, waits for them as for its handles.
 *
 * Fair shares: a hook belongs to a seat (the env's game and seat) and to an
 * owner (struct owner: the address of the client that registered the
 * webhook, an IPv6 one by its /64, or when unknown the destination host).
 * A seat has at most one hook: a newer notification for it waits in the
 * hook as `newer` and takes the place of `cur` when the next attempt starts
 * (hook_renew, start_attempt). An owner has at most max_per_owner hooks.
 * When all max_pending places are taken, a newcomer whose owner holds at
 * least two fewer than the owner holding the most takes one of that owner's
 * places (evict_for); otherwise it is dropped. Seats and owners are found
 * through two small hash tables.
 *
 * Destinations are judged by one table of address ranges (struct range):
 * wrd_notify_addr_refused() walks it, first match wins. The registration
 * check parses an IP-literal host with getaddrinfo(AI_NUMERICHOST), which
 * takes exactly the spellings the delivery lookup would take as numeric,
 * and never touches the network. At delivery, connect_next() skips every
 * address of the lookup's answer that is refused, connecting only to
 * addresses it has just checked.
 *
 * A notify command is one struct cmd: queued, then running (a uv_process_t
 * reaped by its exit callback), then closing. At close, running children get
 * SIGTERM and a grace (the grace timer, whose close is the notifier's last
 * step even when there is nothing to wait for, so done() always comes from
 * the loop).
 */
#include "notify.h"
#include "iprange.h"
#include "log.h"

#include <ctype.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

extern char **environ;

#define NENV 6
static const char *const env_names[NENV] = {
    "WARROOM_EVENT", "WARROOM_GAME", "WARROOM_SEAT", "WARROOM_VERSION", "WARROOM_RULESET",
    "WARROOM_REASON",
};

enum hook_phase { HP_RESOLVING, HP_CONNECTING, HP_EXCHANGING, HP_WAITING, HP_DONE };
enum tcp_state { TCP_NONE, TCP_OPEN, TCP_CLOSING };
/* What to do once the TCP handle has closed. */
enum after_close { AC_NOTHING, AC_NEXT_ADDRESS, AC_START };

struct hook;

struct lookup {
    uv_getaddrinfo_t req;
    struct wrd_notifier *n;
    struct hook *h;             /* NULL once abandoned */
};

/* One notification's request. */
struct req {
    char *host;                 /* for the resolver: no brackets; NULL: no request */
    char port[6];
    int exempt;                 /* the host is on the allow-list by name */
    char *text;                 /* the whole HTTP request, body included */
    size_t len;
};

/* Whose share a pending hook counts in. */
struct owner {
    struct owner *chain;        /* hash chain */
    unsigned pending;           /* its hooks pending */
    char key[];                 /* "from ADDRESS" or "to HOST" */
};

#define BUCKETS 256

struct hook {
    struct wrd_notifier *n;
    struct hook *prev, *next;
    struct req cur;             /* the notification being delivered */
    struct req newer;           /* a newer one for the same seat, sent in cur's place
                                   from the next attempt on (host NULL: none) */
    int settled;                /* cur needs no more attempts (sent, or refused) */
    char *seat;                 /* "GAME SEAT", or NULL: shares no seat */
    struct hook *seat_chain;    /* hash chain of the seat table, while pending */
    struct owner *owner;        /* while pending */
    const char *refused;        /* this attempt: why the last address was refused */
    int attempts;               /* attempts started */
    enum hook_phase phase;
    struct lookup *lookup;      /* the name lookup in progress, or NULL */
    struct addrinfo *ai;        /* the lookup's answer during an attempt */
    struct addrinfo *ai_next;   /* the next address to try */
    int last_err;               /* last connection error (libuv code) */
    uv_timer_t timer;
    uv_tcp_t tcp;
    enum tcp_state tcp_state;
    enum after_close after_close;
    uv_connect_t connect;
    uv_write_t write;
    size_t got;                 /* response bytes read in this attempt */
    char status[32];            /* start of the status line */
    size_t status_len;
    int handles;                /* open or closing: the timer, the TCP handle */
};

enum cmd_state { CMD_QUEUED, CMD_RUNNING, CMD_CLOSING };

struct cmd {
    uv_process_t proc;
    struct wrd_notifier *n;
    struct cmd *prev, *next;
    enum cmd_state state;
    char *env[NENV];            /* "WARROOM_EVENT=...", in env_names order */
};

struct cmd_list {
    struct cmd *head, *tail;
    unsigned count;
};

/* An allow-list entry: a name, or an address range. */
struct allow {
    struct wrd_iprange range;   /* family 0: a name */
    char name[254];             /* lower case, no final dot */
};

struct wrd_notifier {
    uv_loop_t *loop;
    char *cmd;                  /* NULL: no notify command */
    struct allow *allow;        /* the operator's exemptions */
    size_t nallow;
    uint64_t base_ms, timeout_ms, grace_ms;
    unsigned max_pending, max_children, max_queued, max_per_owner;
    struct hook *hooks;         /* every hook not yet freed */
    struct hook *seats[BUCKETS];        /* pending hooks with a seat, by seat */
    struct owner *owners[BUCKETS];      /* owners with hooks pending, by key */
    unsigned hooks_alive;
    unsigned lookups;           /* lookups outstanding, abandoned or not */
    struct cmd_list queued, running, closing_cmds;  /* closing_cmds: handles closing */
    struct wrd_notify_stats stats;
    char rbuf[WRD_NOTIFY_MAX_RESPONSE];   /* read buffer shared by every connection */
    uv_timer_t grace;           /* at close: how long children get after SIGTERM;
                                   its close callback ends the notifier's life */
    int closing, grace_closing, grace_closed;
    void (*done)(void *);
    void *done_arg;
};

/* ---- errors ---------------------------------------------------------------- */

const char *wrd_notify_err_code(int err)
{
    switch (err) {
    case 0: return "ok";
#define WRD_NOTIFY_ERR_CODE(id, value, code, text) case value: return code;
    WRD_NOTIFY_ERR_MAP(WRD_NOTIFY_ERR_CODE)
#undef WRD_NOTIFY_ERR_CODE
    default: return "unknown";
    }
}

const char *wrd_notify_err_text(int err)
{
    switch (err) {
    case 0: return "success";
#define WRD_NOTIFY_ERR_TEXT(id, value, code, text) case value: return text;
    WRD_NOTIFY_ERR_MAP(WRD_NOTIFY_ERR_TEXT)
#undef WRD_NOTIFY_ERR_TEXT
    default: return "unknown error";
    }
}

/* ---- URLs ------------------------------------------------------------------- */

struct url {
    char host[256];             /* for the resolver */
    char host_header[300];      /* for "Host:" (brackets, port when not 80) */
    char port[6];
    const char *path;           /* up to the fragment; may be empty or start with '?' */
    size_t path_len;
};

static int host_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '.' || c == '_';
}

static int parse_url(const char *url, struct url *u, const char **why)
{
    const char *w = NULL;
    size_t len = strnlen(url, WRD_NOTIFY_MAX_URL + 1);
    if (len > WRD_NOTIFY_MAX_URL) {
        w = "the URL is longer than 2048 bytes";
        goto bad;
    }
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)url[i];
        if (c <= 0x20 || c >= 0x7f) {
            w = "the URL holds a space, a control character or a non-ASCII byte";
            goto bad;
        }
    }
    if (strncasecmp(url, "https://", 8) == 0) {
        w = "https is not supported: give an http:// URL";
        goto bad;
    }
    if (strncasecmp(url, "http://", 7) != 0) {
        w = "not an http:// URL";
        goto bad;
    }
    const char *auth = url + 7;
    size_t auth_len = strcspn(auth, "/?#");
    const char *auth_end = auth + auth_len;
    if (auth_len == 0) {
        w = "the URL has no host";
        goto bad;
    }
    if (memchr(auth, '@', auth_len) != NULL) {
        w = "user information (user@host) is not allowed in a webhook URL";
        goto bad;
    }

    const char *host, *host_end, *p;
    int v6 = 0;
    if (auth[0] == '[') {
        host = auth + 1;
        host_end = memchr(host, ']', (size_t)(auth_end - host));
        if (host_end == NULL) {
            w = "an IPv6 literal lacks its closing ']'";
            goto bad;
        }
        p = host_end + 1;
        v6 = 1;
    } else {
        host = auth;
        host_end = memchr(auth, ':', auth_len);
        if (host_end == NULL)
            host_end = auth_end;
        p = host_end;
    }
    size_t host_len = (size_t)(host_end - host);
    if (host_len == 0) {
        w = "the URL has no host";
        goto bad;
    }
    if (host_len > 253) {
        w = "the host name is longer than 253 bytes";
        goto bad;
    }
    memcpy(u->host, host, host_len);
    u->host[host_len] = '\0';
    if (v6) {
        unsigned char a6[16];
        if (uv_inet_pton(AF_INET6, u->host, a6) != 0) {
            w = "the bracketed host is not an IPv6 address";
            goto bad;
        }
    } else {
        for (size_t i = 0; i < host_len; i++)
            if (!host_char(host[i])) {
                w = "the host name holds a character other than letters, digits, '-', '.', '_'";
                goto bad;
            }
    }

    unsigned long port = 80;
    if (p < auth_end) {
        if (*p != ':') {
            w = "unexpected characters after the host";
            goto bad;
        }
        p++;
        size_t digits = (size_t)(auth_end - p);
        port = 0;
        if (digits == 0 || digits > 5) {
            w = "the port is not a number from 1 to 65535";
            goto bad;
        }
        for (; p < auth_end; p++) {
            if (*p < '0' || *p > '9') {
                w = "the port is not a number from 1 to 65535";
                goto bad;
            }
            port = port * 10 + (unsigned long)(*p - '0');
        }
        if (port < 1 || port > 65535) {
            w = "the port is not a number from 1 to 65535";
            goto bad;
        }
    }
    snprintf(u->port, sizeof u->port, "%lu", port);
    const char *lb = v6 ? "[" : "", *rb = v6 ? "]" : "";
    if (port == 80)
        snprintf(u->host_header, sizeof u->host_header, "%s%s%s", lb, u->host, rb);
    else
        snprintf(u->host_header, sizeof u->host_header, "%s%s%s:%lu", lb, u->host, rb, port);
    u->path = auth_end;
    u->path_len = strcspn(auth_end, "#");
    return 0;
bad:
    if (why != NULL)
        *why = w;
    return WRD_NOTIFY_EBADURL;
}

int wrd_notify_check_url(const char *url, const char **why)
{
    struct url u;
    if (url == NULL) {
        if (why != NULL)
            *why = "no URL";
        return WRD_NOTIFY_EBADURL;
    }
    return parse_url(url, &u, why);
}

/* ---- destinations ------------------------------------------------------------- */

enum range_kind { RK_REFUSE, RK_EMBEDS_V4 };

/* A range of addresses: the first row whose prefix matches decides. */
struct range {
    int family;
    unsigned char prefix[16];
    unsigned bits;
    enum range_kind kind;
    unsigned v4_at;             /* RK_EMBEDS_V4: where the IPv4 address sits */
    const char *what;
};

static const struct range ranges[] = {
    /* IPv4 (RFC 6890 and its updates) */
    { AF_INET, { 0 }, 8, RK_REFUSE, 0, "an unspecified address (0.0.0.0/8)" },
    { AF_INET, { 10 }, 8, RK_REFUSE, 0, "a private address (10.0.0.0/8)" },
    { AF_INET, { 100, 64 }, 10, RK_REFUSE, 0,
      "a shared (carrier-grade NAT) address (100.64.0.0/10)" },
    { AF_INET, { 127 }, 8, RK_REFUSE, 0, "a loopback address (127.0.0.0/8)" },
    { AF_INET, { 169, 254, 169, 254 }, 32, RK_REFUSE, 0,
      "the cloud metadata address (169.254.169.254)" },
    { AF_INET, { 169, 254 }, 16, RK_REFUSE, 0, "a link-local address (169.254.0.0/16)" },
    { AF_INET, { 172, 16 }, 12, RK_REFUSE, 0, "a private address (172.16.0.0/12)" },
    { AF_INET, { 192, 0, 0 }, 24, RK_REFUSE, 0,
      "an IETF protocol assignment (192.0.0.0/24)" },
    { AF_INET, { 192, 0, 2 }, 24, RK_REFUSE, 0, "a documentation address (192.0.2.0/24)" },
    { AF_INET, { 192, 168 }, 16, RK_REFUSE, 0, "a private address (192.168.0.0/16)" },
    { AF_INET, { 198, 18 }, 15, RK_REFUSE, 0, "a benchmarking address (198.18.0.0/15)" },
    { AF_INET, { 198, 51, 100 }, 24, RK_REFUSE, 0,
      "a documentation address (198.51.100.0/24)" },
    { AF_INET, { 203, 0, 113 }, 24, RK_REFUSE, 0,
      "a documentation address (203.0.113.0/24)" },
    { AF_INET, { 224 }, 4, RK_REFUSE, 0, "a multicast address (224.0.0.0/4)" },
    { AF_INET, { 255, 255, 255, 255 }, 32, RK_REFUSE, 0,
      "the broadcast address (255.255.255.255)" },
    { AF_INET, { 240 }, 4, RK_REFUSE, 0, "a reserved address (240.0.0.0/4)" },
    /* IPv6: the exact addresses before ::/96, which holds them */
    { AF_INET6, { 0 }, 128, RK_REFUSE, 0, "the unspecified address (::)" },
    { AF_INET6, { [15] = 1 }, 128, RK_REFUSE, 0, "the loopback address (::1)" },
    { AF_INET6, { [10] = 0xff, [11] = 0xff }, 96, RK_EMBEDS_V4, 12,
      "an IPv4-mapped address (::ffff:0:0/96)" },
    { AF_INET6, { [8] = 0xff, [9] = 0xff }, 96, RK_EMBEDS_V4, 12,
      "an IPv4-translated address (::ffff:0:0:0/96)" },
    { AF_INET6, { 0 }, 96, RK_EMBEDS_V4, 12, "an IPv4-compatible address (::/96)" },
    { AF_INET6, { 0, 0x64, 0xff, 0x9b }, 96, RK_EMBEDS_V4, 12,
      "a NAT64 address (64:ff9b::/96)" },
    { AF_INET6, { 0, 0x64, 0xff, 0x9b, 0, 1 }, 48, RK_REFUSE, 0,
      "a local-use NAT64 address (64:ff9b:1::/48)" },
    { AF_INET6, { 1, 0 }, 64, RK_REFUSE, 0, "a discard-only address (100::/64)" },
    { AF_INET6, { 0x20, 0x01, 0, 2, 0, 0 }, 48, RK_REFUSE, 0,
      "a benchmarking address (2001:2::/48)" },
    { AF_INET6, { 0x20, 0x01, 0x0d, 0xb8 }, 32, RK_REFUSE, 0,
      "a documentation address (2001:db8::/32)" },
    { AF_INET6, { 0x20, 0x02 }, 16, RK_EMBEDS_V4, 2, "a 6to4 address (2002::/16)" },
    { AF_INET6, { 0xfc }, 7, RK_REFUSE, 0, "a unique local (private) address (fc00::/7)" },
    { AF_INET6, { 0xfe, 0x80 }, 10, RK_REFUSE, 0, "a link-local address (fe80::/10)" },
    { AF_INET6, { 0xfe, 0xc0 }, 10, RK_REFUSE, 0, "a site-local address (fec0::/10)" },
    { AF_INET6, { 0xff }, 8, RK_REFUSE, 0, "a multicast address (ff00::/8)" },
};

static const char *classify(int family, const unsigned char *a, int embedded)
{
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
        const struct range *r = &ranges[i];
        if (r->family != family || !wrd_prefix_match(a, r->prefix, r->bits))
            continue;
        if (r->kind == RK_REFUSE)
            return r->what;
        /* An IPv4 address inside an IPv6 one: judged as itself. */
        return embedded ? r->what : classify(AF_INET, a + r->v4_at, 1);
    }
    return NULL;
}

const char *wrd_notify_addr_refused(const struct sockaddr *sa)
{
    if (sa != NULL && sa->sa_family == AF_INET)
        return classify(AF_INET, (const unsigned char *)&((const struct sockaddr_in *)sa)->sin_addr,
                        0);
    if (sa != NULL && sa->sa_family == AF_INET6)
        return classify(AF_INET6, ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr, 0);
    return "not an IPv4 or IPv6 address";
}

/* The length of host without one final dot. */
static size_t name_len(const char *host)
{
    size_t len = strlen(host);
    return len > 1 && host[len - 1] == '.' ? len - 1 : len;
}

/* localhost and *.localhost (RFC 6761 6.3), any case, final dot or not. */
static int is_localhost(const char *host)
{
    size_t len = name_len(host);
    return (len == 9 && strncasecmp(host, "localhost", 9) == 0) ||
           (len > 10 && strncasecmp(host + len - 10, ".localhost", 10) == 0);
}

/* Parse one allow-list entry (text[0..len), trimmed, not empty) into *a:
 * an address or range (iprange.h), else a host name. */
static int allow_parse(const char *text, size_t len, struct allow *a, const char **why)
{
    memset(a, 0, sizeof *a);
    if (len > 255) {
        *why = "an allow-list entry is longer than 255 bytes";
        return -1;
    }
    int rc = wrd_iprange_parse(text, len, &a->range, why);
    if (rc <= 0)
        return rc;
    size_t nlen = len > 0 && text[len - 1] == '.' && len > 1 ? len - 1 : len;
    if (nlen == 0 || nlen > 253) {
        *why = "an allow-list name is empty or longer than 253 bytes";
        return -1;
    }
    for (size_t i = 0; i < nlen; i++) {
        if (!host_char(text[i])) {
            *why = "an allow-list entry is neither an IP address, a range, nor a host name";
            return -1;
        }
        a->name[i] = (char)tolower((unsigned char)text[i]);
    }
    a->name[nlen] = '\0';
    return 0;
}

/* Parse list into out (NULL: only check); returns the number of entries,
 * or -1 with *why set. */
static long allow_parse_list(const char *list, struct allow *out, const char **why)
{
    long count = 0;
    const char *item;
    size_t len;
    while (wrd_list_next(&list, &item, &len)) {
        if (len == 0)
            continue;
        struct allow a;
        if (allow_parse(item, len, &a, why) < 0)
            return -1;
        if (out != NULL)
            out[count] = a;
        count++;
    }
    return count;
}

int wrd_notify_allow_check(const char *list, const char **why)
{
    const char *w = NULL;
    if (allow_parse_list(list, NULL, &w) < 0) {
        if (why != NULL)
            *why = w;
        return WRD_NOTIFY_EINVAL;
    }
    return 0;
}

int wrd_notifier_set_allow(struct wrd_notifier *n, const char *list, const char **why)
{
    const char *w = NULL;
    long count = allow_parse_list(list, NULL, &w);
    if (n == NULL || count < 0) {
        if (why != NULL)
            *why = n == NULL ? "no notifier" : w;
        return WRD_NOTIFY_EINVAL;
    }
    struct allow *a = NULL;
    if (count > 0) {
        a = calloc((size_t)count, sizeof *a);
        if (a == NULL)
            return WRD_NOTIFY_ENOMEM;
        allow_parse_list(list, a, &w);
    }
    free(n->allow);
    n->allow = a;
    n->nallow = (size_t)count;
    return 0;
}

/* The host is on the allow-list by name. */
static int allowed_name(const struct wrd_notifier *n, const char *host)
{
    size_t len = name_len(host);
    for (size_t i = 0; n != NULL && i < n->nallow; i++)
        if (n->allow[i].range.family == 0 && strlen(n->allow[i].name) == len &&
            strncasecmp(n->allow[i].name, host, len) == 0)
            return 1;
    return 0;
}

/* The address is on the allow-list (an address or a range holding it). */
static int allowed_addr(const struct wrd_notifier *n, const struct sockaddr *sa)
{
    for (size_t i = 0; n != NULL && i < n->nallow; i++)
        if (wrd_iprange_has(&n->allow[i].range, sa))
            return 1;
    return 0;
}

/* Why delivery may not connect to sa for a hook, or NULL. */
static const char *delivery_refused(const struct wrd_notifier *n, const struct hook *h,
                                    const struct sockaddr *sa)
{
    if (h->cur.exempt || allowed_addr(n, sa))
        return NULL;
    return wrd_notify_addr_refused(sa);
}

int wrd_notifier_check_url(const struct wrd_notifier *n, const char *url, char *why, size_t len)
{
    struct url u;
    const char *w = NULL;
    if (url == NULL || parse_url(url, &u, &w) < 0) {
        if (url == NULL)
            w = "no URL";
        if (why != NULL && len > 0)
            snprintf(why, len, "%s", w);
        return WRD_NOTIFY_EBADURL;
    }
    if (allowed_name(n, u.host))
        return 0;
    const char *reason = NULL;
    struct sockaddr_storage ss;
    if (is_localhost(u.host))
        reason = "a name of this machine (localhost, RFC 6761)";
    else if (wrd_ip_parse(u.host, &ss) == 0 && !allowed_addr(n, (struct sockaddr *)&ss))
        reason = wrd_notify_addr_refused((struct sockaddr *)&ss);
    if (reason == NULL)
        return 0;
    if (why != NULL && len > 0)
        snprintf(why, len, "webhook refused: its host %s is %s; this server posts only to public "
                 "addresses", u.host, reason);
    return WRD_NOTIFY_EREFUSED;
}

/* ---- the notifier's life ---------------------------------------------------- */

static void notifier_maybe_done(struct wrd_notifier *n)
{
    if (!n->closing || !n->grace_closed || n->hooks_alive > 0 || n->lookups > 0 ||
        n->running.count > 0 || n->closing_cmds.count > 0)
        return;
    void (*done)(void *) = n->done;
    void *arg = n->done_arg;
    free(n->cmd);
    free(n->allow);
    free(n);
    if (done != NULL)
        done(arg);
}

static void on_grace_closed(uv_handle_t *handle)
{
    struct wrd_notifier *n = handle->data;
    n->grace_closed = 1;
    notifier_maybe_done(n);
}

static void close_grace(struct wrd_notifier *n)
{
    if (!n->grace_closing) {
        n->grace_closing = 1;
        uv_close((uv_handle_t *)&n->grace, on_grace_closed);
    }
}

struct wrd_notifier *wrd_notifier_new(uv_loop_t *loop, const char *notify_cmd)
{
    struct wrd_notifier *n = calloc(1, sizeof *n);
    if (n == NULL)
        return NULL;
    if (notify_cmd != NULL && notify_cmd[0] != '\0') {
        n->cmd = strdup(notify_cmd);
        if (n->cmd == NULL) {
            free(n);
            return NULL;
        }
    }
    n->loop = loop;
    n->base_ms = WRD_NOTIFY_DEFAULT_BASE_MS;
    n->timeout_ms = WRD_NOTIFY_DEFAULT_TIMEOUT_MS;
    n->grace_ms = WRD_NOTIFY_DEFAULT_GRACE_MS;
    n->max_pending = WRD_NOTIFY_DEFAULT_MAX_PENDING;
    n->max_children = WRD_NOTIFY_DEFAULT_MAX_CHILDREN;
    n->max_queued = WRD_NOTIFY_DEFAULT_MAX_QUEUED;
    n->max_per_owner = WRD_NOTIFY_DEFAULT_MAX_PER_OWNER;
    uv_timer_init(loop, &n->grace);
    n->grace.data = n;
    return n;
}

void wrd_notifier_set_timing(struct wrd_notifier *n, uint64_t base_ms, uint64_t timeout_ms,
                             uint64_t grace_ms)
{
    if (base_ms > 0)
        n->base_ms = base_ms;
    if (timeout_ms > 0)
        n->timeout_ms = timeout_ms;
    if (grace_ms > 0)
        n->grace_ms = grace_ms;
}

void wrd_notifier_set_max_per_owner(struct wrd_notifier *n, unsigned max_per_owner)
{
    if (max_per_owner > 0)
        n->max_per_owner = max_per_owner;
}

void wrd_notifier_set_limits(struct wrd_notifier *n, unsigned max_pending, unsigned max_children,
                             unsigned max_queued)
{
    if (max_pending > 0)
        n->max_pending = max_pending;
    if (max_children > 0)
        n->max_children = max_children;
    if (max_queued > 0)
        n->max_queued = max_queued;
}

void wrd_notifier_stats(const struct wrd_notifier *n, struct wrd_notify_stats *out)
{
    *out = n->stats;
    out->commands_running = n->running.count;
    out->commands_queued = n->queued.count;
}

/* ---- fair shares --------------------------------------------------------------- */

#define OWNER_KEY 300

static unsigned bucket_of(const char *key)
{
    uint32_t h = 2166136261u;           /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)key; *p != '\0'; p++)
        h = (h ^ *p) * 16777619u;
    return h % BUCKETS;
}

static struct hook *seat_find(const struct wrd_notifier *n, const char *seat)
{
    for (struct hook *h = n->seats[bucket_of(seat)]; h != NULL; h = h->seat_chain)
        if (strcmp(h->seat, seat) == 0)
            return h;
    return NULL;
}

static void seat_add(struct hook *h)
{
    if (h->seat == NULL)
        return;
    struct hook **head = &h->n->seats[bucket_of(h->seat)];
    h->seat_chain = *head;
    *head = h;
}

static void seat_remove(struct hook *h)
{
    if (h->seat == NULL)
        return;
    for (struct hook **p = &h->n->seats[bucket_of(h->seat)]; *p != NULL; p = &(*p)->seat_chain)
        if (*p == h) {
            *p = h->seat_chain;
            h->seat_chain = NULL;
            return;
        }
}

/* The owner key of a notification: "from ADDRESS" for the client that
 * registered the webhook (IPv4, an IPv4-mapped IPv6 address as IPv4, other
 * IPv6 addresses by their /64, which one subscriber usually holds whole),
 * or "to HOST", the destination, when that client is not known (a webhook
 * restored after a restart). */
static void owner_key(const char *owner, const char *host, char key[OWNER_KEY])
{
    static const unsigned char mapped[12] = { [10] = 0xff, [11] = 0xff };
    unsigned char a[16];
    if (owner == NULL || owner[0] == '\0') {
        int len = snprintf(key, OWNER_KEY, "to %s", host);
        for (int i = 3; i < len && i < OWNER_KEY; i++)
            key[i] = (char)tolower((unsigned char)key[i]);
    } else if (uv_inet_pton(AF_INET6, owner, a) != 0) {
        snprintf(key, OWNER_KEY, "from %s", owner);
    } else if (memcmp(a, mapped, 12) == 0) {
        snprintf(key, OWNER_KEY, "from %u.%u.%u.%u", a[12], a[13], a[14], a[15]);
    } else {
        snprintf(key, OWNER_KEY, "from %x:%x:%x:%x::/64", a[0] << 8 | a[1], a[2] << 8 | a[3],
                 a[4] << 8 | a[5], a[6] << 8 | a[7]);
    }
}

static struct owner *owner_find(const struct wrd_notifier *n, const char *key)
{
    for (struct owner *o = n->owners[bucket_of(key)]; o != NULL; o = o->chain)
        if (strcmp(o->key, key) == 0)
            return o;
    return NULL;
}

/* One more place in key's share; NULL when memory runs out. */
static struct owner *owner_take(struct wrd_notifier *n, const char *key)
{
    struct owner *o = owner_find(n, key);
    if (o == NULL) {
        size_t len = strlen(key) + 1;
        if ((o = calloc(1, sizeof *o + len)) == NULL)
            return NULL;
        memcpy(o->key, key, len);
        unsigned b = bucket_of(key);
        o->chain = n->owners[b];
        n->owners[b] = o;
    }
    o->pending++;
    return o;
}

/* One place fewer; an owner with none is forgotten. */
static void owner_release(struct wrd_notifier *n, struct owner *o)
{
    if (o == NULL || --o->pending > 0)
        return;
    for (struct owner **p = &n->owners[bucket_of(o->key)]; *p != NULL; p = &(*p)->chain)
        if (*p == o) {
            *p = o->chain;
            break;
        }
    free(o);
}

/* ---- webhooks ----------------------------------------------------------------- */

static void start_attempt(struct hook *h);
static void req_release(struct req *r);
static void connect_next(struct hook *h);

static void hook_maybe_free(struct hook *h)
{
    if (h->phase != HP_DONE || h->handles > 0)
        return;
    struct wrd_notifier *n = h->n;
    if (h->prev != NULL)
        h->prev->next = h->next;
    else
        n->hooks = h->next;
    if (h->next != NULL)
        h->next->prev = h->prev;
    n->hooks_alive--;
    req_release(&h->cur);
    req_release(&h->newer);
    free(h->seat);
    free(h);
    notifier_maybe_done(n);
}

static void on_hook_timer_closed(uv_handle_t *handle)
{
    struct hook *h = handle->data;
    h->handles--;
    hook_maybe_free(h);
}

static void on_tcp_closed(uv_handle_t *handle)
{
    struct hook *h = handle->data;
    h->tcp_state = TCP_NONE;
    h->handles--;
    enum after_close next = h->after_close;
    h->after_close = AC_NOTHING;
    if (next == AC_NEXT_ADDRESS && h->phase == HP_CONNECTING)
        connect_next(h);
    else if (next == AC_START && h->phase == HP_WAITING)
        start_attempt(h);
    else
        hook_maybe_free(h);
}

static void close_tcp(struct hook *h, enum after_close then)
{
    h->after_close = then;
    if (h->tcp_state == TCP_OPEN) {
        h->tcp_state = TCP_CLOSING;
        uv_close((uv_handle_t *)&h->tcp, on_tcp_closed);
    }
}

/* End the current attempt: stop the time-out, abandon the lookup, close the
 * connection. Safe to call in any phase. */
static void attempt_end(struct hook *h)
{
    uv_timer_stop(&h->timer);
    if (h->lookup != NULL) {
        h->lookup->h = NULL;
        uv_cancel((uv_req_t *)&h->lookup->req);
        h->lookup = NULL;
    }
    if (h->tcp_state != TCP_NONE)
        close_tcp(h, AC_NOTHING);
    if (h->ai != NULL) {
        uv_freeaddrinfo(h->ai);
        h->ai = h->ai_next = NULL;
    }
}

/* No longer pending: leave its seat and its owner's share; free it once
 * its handles are closed. */
static void hook_finish(struct hook *h)
{
    h->phase = HP_DONE;
    h->n->stats.webhooks_pending--;
    seat_remove(h);
    owner_release(h->n, h->owner);
    h->owner = NULL;
    uv_close((uv_handle_t *)&h->timer, on_hook_timer_closed);
}

static void on_hook_timer(uv_timer_t *timer);

static void attempt_failed(struct hook *h, const char *why, int uverr)
{
    struct wrd_notifier *n = h->n;
    attempt_end(h);
    n->stats.webhook_failures_total++;
    const char *err = uverr != 0 ? uv_err_name(uverr) : "-";
    int newer = h->newer.host != NULL;
    if (h->attempts > WRD_NOTIFY_RETRIES && !newer) {
        n->stats.webhooks_given_up_total++;
        wrd_warn("webhook given up", "host=%s port=%s attempts=%d reason=\"%s\" error=%s",
                 h->cur.host, h->cur.port, h->attempts, why, err);
        hook_finish(h);
        return;
    }
    /* A newer notification waiting starts afresh, after the first delay. */
    uint64_t delay = newer ? n->base_ms : n->base_ms << (h->attempts - 1);
    wrd_info("webhook attempt failed", "host=%s port=%s attempt=%d reason=\"%s\" error=%s "
             "retry_in_ms=%llu newer=%d", h->cur.host, h->cur.port, h->attempts, why, err,
             (unsigned long long)delay, newer);
    h->phase = HP_WAITING;
    uv_timer_start(&h->timer, on_hook_timer, delay, 0);
}

/* cur needs no more attempts: the hook is done, unless a newer
 * notification waits, which is attempted at once. */
static void cur_settled(struct hook *h)
{
    if (h->newer.host == NULL) {
        hook_finish(h);
        return;
    }
    h->settled = 1;
    h->phase = HP_WAITING;
    uv_timer_start(&h->timer, on_hook_timer, 0, 0);
}

static void attempt_succeeded(struct hook *h, int status)
{
    attempt_end(h);
    h->n->stats.webhooks_sent_total++;
    wrd_info("webhook sent", "host=%s port=%s status=%d attempts=%d", h->cur.host, h->cur.port,
             status, h->attempts);
    cur_settled(h);
}

/* Every address the destination resolved to is refused: no retry (the
 * answer is the destination's own; asking again only invites rebinding). */
static void attempt_refused(struct hook *h)
{
    const char *why = h->refused;
    attempt_end(h);
    h->n->stats.webhooks_refused_total++;
    wrd_warn("webhook destination refused", "host=%s port=%s attempt=%d reason=\"%s\"",
             h->cur.host, h->cur.port, h->attempts, why);
    cur_settled(h);
}

static void on_hook_timer(uv_timer_t *timer)
{
    struct hook *h = timer->data;
    if (h->phase == HP_WAITING) {
        /* The previous attempt's connection may still be closing. */
        if (h->tcp_state == TCP_NONE)
            start_attempt(h);
        else
            h->after_close = AC_START;
    } else if (h->phase != HP_DONE) {
        attempt_failed(h, "no status line before the time-out", 0);
    }
}

/* "HTTP/1.1 204 No Content": the status code, or -1. */
static int parse_status_line(const char *s, size_t len)
{
    if (len < 12 || memcmp(s, "HTTP/", 5) != 0)
        return -1;
    size_t i = 5;
    while (i < len && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.'))
        i++;
    if (i == 5 || i + 4 > len || s[i] != ' ')
        return -1;
    int code = 0;
    for (size_t k = i + 1; k < i + 4; k++) {
        if (s[k] < '0' || s[k] > '9')
            return -1;
        code = code * 10 + (s[k] - '0');
    }
    if (i + 4 < len && s[i + 4] != ' ' && s[i + 4] != '\r')
        return -1;
    return code;
}

static void on_alloc(uv_handle_t *handle, size_t suggested, uv_buf_t *buf)
{
    /* Single thread: the read callback consumes the buffer before the next
     * allocation, so every connection can share it. */
    struct hook *h = handle->data;
    *buf = uv_buf_init(h->n->rbuf, sizeof h->n->rbuf);
}

static void on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf)
{
    struct hook *h = stream->data;
    if (h->tcp_state != TCP_OPEN || nread == 0)
        return;
    if (nread < 0) {
        attempt_failed(h, nread == UV_EOF ? "connection closed before the status line"
                                          : "read failed", nread == UV_EOF ? 0 : (int)nread);
        return;
    }
    for (ssize_t i = 0; i < nread; i++) {
        char c = buf->base[i];
        if (++h->got > WRD_NOTIFY_MAX_RESPONSE) {
            attempt_failed(h, "no status line in the first 8 KiB of the response", 0);
            return;
        }
        if (c == '\n') {
            int code = parse_status_line(h->status, h->status_len);
            if (code >= 200 && code <= 299) {
                attempt_succeeded(h, code);
            } else {
                char why[64];
                if (code < 0)
                    snprintf(why, sizeof why, "malformed status line");
                else
                    snprintf(why, sizeof why, "answered %d", code);
                attempt_failed(h, why, 0);
            }
            return;
        }
        if (h->status_len < sizeof h->status)
            h->status[h->status_len++] = c;
    }
}

static void on_written(uv_write_t *req, int status)
{
    struct hook *h = req->data;
    if (h->tcp_state != TCP_OPEN || status == 0)
        return;
    attempt_failed(h, "sending the request failed", status);
}

static void on_connected(uv_connect_t *req, int status)
{
    struct hook *h = req->data;
    if (h->tcp_state != TCP_OPEN)
        return;
    if (status < 0) {
        h->last_err = status;
        close_tcp(h, AC_NEXT_ADDRESS);
        return;
    }
    h->phase = HP_EXCHANGING;
    uv_buf_t b = uv_buf_init(h->cur.text, (unsigned int)h->cur.len);
    h->write.data = h;
    int r = uv_write(&h->write, (uv_stream_t *)&h->tcp, &b, 1, on_written);
    if (r == 0)
        r = uv_read_start((uv_stream_t *)&h->tcp, on_alloc, on_read);
    if (r < 0)
        attempt_failed(h, "sending the request failed", r);
}

/* Connect to the next allowed address of the lookup's answer (the very
 * sockaddr just checked: nothing is looked up again); the TCP handle is
 * closed. When no address is left and every one tried was refused, the
 * notification is refused. */
static void connect_next(struct hook *h)
{
    struct addrinfo *ai = h->ai_next;
    for (; ai != NULL; ai = ai->ai_next) {
        if (ai->ai_family != AF_INET && ai->ai_family != AF_INET6)
            continue;
        const char *why = delivery_refused(h->n, h, ai->ai_addr);
        if (why == NULL)
            break;
        char addr[64] = "?";
        uv_ip_name(ai->ai_addr, addr, sizeof addr);
        wrd_info("webhook address refused", "host=%s port=%s addr=%s reason=\"%s\"",
                 h->cur.host, h->cur.port, addr, why);
        h->refused = why;
    }
    if (ai == NULL) {
        if (h->last_err == 0 && h->refused != NULL)
            attempt_refused(h);
        else
            attempt_failed(h, h->last_err != 0 ? "cannot connect" : "no usable address",
                           h->last_err);
        return;
    }
    h->ai_next = ai->ai_next;
    h->phase = HP_CONNECTING;
    int r = uv_tcp_init(h->n->loop, &h->tcp);
    if (r < 0) {
        attempt_failed(h, "cannot create a socket", r);
        return;
    }
    h->tcp.data = h;
    h->tcp_state = TCP_OPEN;
    h->handles++;
    h->connect.data = h;
    r = uv_tcp_connect(&h->connect, &h->tcp, ai->ai_addr, on_connected);
    if (r < 0) {
        h->last_err = r;
        close_tcp(h, AC_NEXT_ADDRESS);
    }
}

static void on_resolved(uv_getaddrinfo_t *req, int status, struct addrinfo *res)
{
    struct lookup *lk = (struct lookup *)req;
    struct wrd_notifier *n = lk->n;
    struct hook *h = lk->h;
    free(lk);
    n->lookups--;
    if (h == NULL) {            /* abandoned */
        if (res != NULL)
            uv_freeaddrinfo(res);
        notifier_maybe_done(n);
        return;
    }
    h->lookup = NULL;
    if (status < 0) {
        attempt_failed(h, "cannot resolve the host", status);
        return;
    }
    h->ai = h->ai_next = res;
    h->last_err = 0;
    h->refused = NULL;
    connect_next(h);
}

static void start_attempt(struct hook *h)
{
    struct wrd_notifier *n = h->n;
    if (h->newer.host != NULL) {
        /* The newer notification takes cur's place, with every attempt. */
        if (!h->settled)
            n->stats.webhooks_replaced_total++;
        req_release(&h->cur);
        h->cur = h->newer;
        memset(&h->newer, 0, sizeof h->newer);
        h->attempts = 0;
        h->settled = 0;
    }
    h->attempts++;
    h->phase = HP_RESOLVING;
    h->got = 0;
    h->status_len = 0;
    uv_timer_start(&h->timer, on_hook_timer, n->timeout_ms, 0);
    struct lookup *lk = calloc(1, sizeof *lk);
    if (lk == NULL) {
        attempt_failed(h, "out of memory", UV_ENOMEM);
        return;
    }
    lk->n = n;
    lk->h = h;
    struct addrinfo hints;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    int r = uv_getaddrinfo(n->loop, &lk->req, on_resolved, h->cur.host, h->cur.port, &hints);
    if (r < 0) {
        free(lk);
        attempt_failed(h, "cannot resolve the host", r);
        return;
    }
    n->lookups++;
    h->lookup = lk;
}

/* The request head: path prefix ("/" when the path is empty or a query),
 * path, Host header, body length. */
#define REQUEST_HEAD                                                                       \
    "POST %s%.*s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"                \
    "Content-Length: %zu\r\nConnection: close\r\nUser-Agent: warroomd\r\n\r\n"

static void req_release(struct req *r)
{
    free(r->host);
    free(r->text);
    memset(r, 0, sizeof *r);
}

/* The request of a notification: the head, then the body. */
static int req_make(const struct wrd_notifier *n, const struct url *u, const char *body,
                    size_t body_len, struct req *r)
{
    memset(r, 0, sizeof *r);
    r->host = strdup(u->host);
    const char *slash = (u->path_len == 0 || u->path[0] != '/') ? "/" : "";
    int head = snprintf(NULL, 0,
                        REQUEST_HEAD,
                        slash, (int)u->path_len, u->path, u->host_header, body_len);
    r->text = head > 0 ? malloc((size_t)head + body_len + 1) : NULL;
    if (r->host == NULL || r->text == NULL) {
        req_release(r);
        return WRD_NOTIFY_ENOMEM;
    }
    snprintf(r->text, (size_t)head + 1,
             REQUEST_HEAD,
             slash, (int)u->path_len, u->path, u->host_header, body_len);
    memcpy(r->text + head, body, body_len);
    r->len = (size_t)head + body_len;
    memcpy(r->port, u->port, sizeof r->port);
    r->exempt = allowed_name(n, u->host);
    return 0;
}

/* A new pending hook for r (taken), seat (taken, may be NULL) and owner o
 * (one place taken in its share). */
static void hook_start(struct wrd_notifier *n, struct hook *h, struct req *r, char *seat,
                       struct owner *o)
{
    h->cur = *r;
    h->seat = seat;
    h->owner = o;
    h->n = n;
    uv_timer_init(n->loop, &h->timer);
    h->timer.data = h;
    h->handles = 1;
    h->next = n->hooks;
    if (n->hooks != NULL)
        n->hooks->prev = h;
    n->hooks = h;
    n->hooks_alive++;
    n->stats.webhooks_pending++;
    seat_add(h);
    start_attempt(h);
}

/* A newer notification for h's seat: it waits for the attempt in progress
 * (or the one due) and is sent in place of the older one from then on. */
static void hook_renew(struct hook *h, struct req *r)
{
    if (h->newer.host != NULL) {
        h->n->stats.webhooks_replaced_total++;
        req_release(&h->newer);
    }
    h->newer = *r;
    wrd_debug("webhook superseded", "host=%s port=%s seat=\"%s\"", r->host, r->port, h->seat);
}

static void hook_drop(struct wrd_notifier *n, const struct url *u, const char *why,
                      const char *owner, unsigned held)
{
    n->stats.webhooks_dropped_total++;
    wrd_warn("webhook dropped", "reason=\"%s\" host=%s port=%s owner=\"%s\" owner_pending=%u "
             "pending=%u", why, u->host, u->port, owner, held, n->stats.webhooks_pending);
}

/* Every place is taken, and a newcomer's owner holds `held` of them: when
 * some owner holds at least held + 2, one of its hooks (one waiting to retry
 * if it has any) makes room, and 1 is returned. */
static int evict_for(struct wrd_notifier *n, unsigned held)
{
    const struct owner *most = NULL;
    for (int b = 0; b < BUCKETS; b++)
        for (const struct owner *o = n->owners[b]; o != NULL; o = o->chain)
            if (most == NULL || o->pending > most->pending)
                most = o;
    if (most == NULL || most->pending < held + 2)
        return 0;
    struct hook *victim = NULL;
    for (struct hook *h = n->hooks; h != NULL; h = h->next)
        if (h->phase != HP_DONE && h->owner == most &&
            (victim == NULL || (victim->phase != HP_WAITING && h->phase == HP_WAITING)))
            victim = h;
    if (victim == NULL)
        return 0;
    n->stats.webhooks_dropped_total++;
    wrd_warn("webhook dropped", "reason=\"evicted: every place is taken and its owner holds the "
             "most\" host=%s port=%s owner=\"%s\" owner_pending=%u", victim->cur.host,
             victim->cur.port, most->key, most->pending);
    attempt_end(victim);
    hook_finish(victim);
    return 1;
}

/* Queue a webhook notification: renew its seat's hook, or start one if its
 * owner's share and the server's places allow. */
static int hook_queue(struct wrd_notifier *n, const struct url *u, const char *body,
                      size_t body_len, const struct wrd_notify_env *env)
{
    char *seat = NULL;
    if (env != NULL && env->game != NULL && env->game[0] != '\0' && env->seat != NULL &&
        env->seat[0] != '\0') {
        size_t len = strlen(env->game) + 1 + strlen(env->seat) + 1;
        if ((seat = malloc(len)) == NULL)
            return WRD_NOTIFY_ENOMEM;
        snprintf(seat, len, "%s %s", env->game, env->seat);
    }
    struct req r;
    if (req_make(n, u, body, body_len, &r) < 0) {
        free(seat);
        return WRD_NOTIFY_ENOMEM;
    }
    struct hook *h = seat != NULL ? seat_find(n, seat) : NULL;
    if (h != NULL) {
        free(seat);
        hook_renew(h, &r);
        return 0;
    }
    char key[OWNER_KEY];
    owner_key(env != NULL ? env->owner : NULL, u->host, key);
    const struct owner *o = owner_find(n, key);
    unsigned held = o != NULL ? o->pending : 0;
    const char *full = NULL;
    if (held >= n->max_per_owner)
        full = "its owner's share of pending webhooks is full";
    else if (n->stats.webhooks_pending >= n->max_pending && !evict_for(n, held))
        full = "too many pending";
    struct owner *mine = full == NULL ? owner_take(n, key) : NULL;
    h = mine != NULL ? calloc(1, sizeof *h) : NULL;
    if (h == NULL) {
        if (full != NULL)
            hook_drop(n, u, full, key, held);
        else if (mine != NULL)
            owner_release(n, mine);
        req_release(&r);
        free(seat);
        return full != NULL ? WRD_NOTIFY_EFULL : WRD_NOTIFY_ENOMEM;
    }
    hook_start(n, h, &r, seat, mine);
    return 0;
}

/* ---- the notify command --------------------------------------------------------- */

static void list_push(struct cmd_list *l, struct cmd *c)
{
    c->next = NULL;
    c->prev = l->tail;
    if (l->tail != NULL)
        l->tail->next = c;
    else
        l->head = c;
    l->tail = c;
    l->count++;
}

static void list_remove(struct cmd_list *l, struct cmd *c)
{
    if (c->prev != NULL)
        c->prev->next = c->next;
    else
        l->head = c->next;
    if (c->next != NULL)
        c->next->prev = c->prev;
    else
        l->tail = c->prev;
    c->prev = c->next = NULL;
    l->count--;
}

static void cmd_free(struct cmd *c)
{
    for (int i = 0; i < NENV; i++)
        free(c->env[i]);
    free(c);
}

/* The value part of one of the command's WARROOM_* strings, for logs. */
static const char *cmd_val(const struct cmd *c, int i)
{
    return c->env[i] + strlen(env_names[i]) + 1;
}

static void on_cmd_closed(uv_handle_t *handle)
{
    struct cmd *c = handle->data;
    struct wrd_notifier *n = c->n;
    list_remove(&n->closing_cmds, c);
    cmd_free(c);
    notifier_maybe_done(n);
}

/* Stop watching a running child and close its handle. */
static void cmd_close(struct cmd *c)
{
    struct wrd_notifier *n = c->n;
    list_remove(&n->running, c);
    list_push(&n->closing_cmds, c);
    c->state = CMD_CLOSING;
    uv_close((uv_handle_t *)&c->proc, on_cmd_closed);
}

static void start_queued(struct wrd_notifier *n);

static void on_cmd_exit(uv_process_t *proc, int64_t status, int term_signal)
{
    struct cmd *c = proc->data;
    struct wrd_notifier *n = c->n;
    n->stats.commands_exited_total++;
    if (n->closing && term_signal == SIGTERM) {
        wrd_info("notify command terminated", "pid=%d event=%s game=%s seat=%s", proc->pid,
                 cmd_val(c, 0), cmd_val(c, 1), cmd_val(c, 2));
    } else if (status != 0 || term_signal != 0) {
        n->stats.commands_failed_total++;
        wrd_warn("notify command failed", "pid=%d status=%lld signal=%d event=%s game=%s seat=%s",
                 proc->pid, (long long)status, term_signal, cmd_val(c, 0), cmd_val(c, 1),
                 cmd_val(c, 2));
    } else {
        wrd_debug("notify command done", "pid=%d event=%s game=%s seat=%s", proc->pid,
                  cmd_val(c, 0), cmd_val(c, 1), cmd_val(c, 2));
    }
    cmd_close(c);
    if (!n->closing)
        start_queued(n);
    else if (n->running.count == 0)
        close_grace(n);         /* the last child answered SIGTERM in time */
}

/* Spawn c (not on any list). */
static void cmd_spawn(struct wrd_notifier *n, struct cmd *c)
{
    size_t count = 0;
    for (char **e = environ; e != NULL && *e != NULL; e++)
        count++;
    char **envp = malloc((count + NENV + 1) * sizeof *envp);
    if (envp == NULL) {
        n->stats.commands_failed_total++;
        wrd_warn("notify command not started", "reason=\"out of memory\" event=%s game=%s seat=%s",
                 cmd_val(c, 0), cmd_val(c, 1), cmd_val(c, 2));
        cmd_free(c);
        return;
    }
    size_t k = 0;
    for (size_t i = 0; i < count; i++) {
        const char *e = environ[i];
        int ours = 0;
        for (int j = 0; j < NENV && !ours; j++) {
            size_t len = strlen(env_names[j]);
            ours = strncmp(e, env_names[j], len) == 0 && e[len] == '=';
        }
        if (!ours)
            envp[k++] = environ[i];
    }
    for (int j = 0; j < NENV; j++)
        envp[k++] = c->env[j];
    envp[k] = NULL;

    char *args[2] = { n->cmd, NULL };
    uv_stdio_container_t stdio[3];
    stdio[0].flags = UV_IGNORE;             /* /dev/null */
    stdio[1].flags = UV_INHERIT_FD;
    stdio[1].data.fd = 1;
    stdio[2].flags = UV_INHERIT_FD;
    stdio[2].data.fd = 2;
    uv_process_options_t opt;
    memset(&opt, 0, sizeof opt);
    opt.exit_cb = on_cmd_exit;
    opt.file = n->cmd;
    opt.args = args;
    opt.env = envp;
    opt.stdio_count = 3;
    opt.stdio = stdio;

    c->proc.data = c;
    int r = uv_spawn(n->loop, &c->proc, &opt);
    free(envp);
    if (r < 0) {
        /* The handle is initialised even on failure: close it. */
        n->stats.commands_failed_total++;
        wrd_warn("notify command not started", "cmd=\"%s\" error=%s event=%s game=%s seat=%s",
                 n->cmd, uv_err_name(r), cmd_val(c, 0), cmd_val(c, 1), cmd_val(c, 2));
        c->state = CMD_CLOSING;
        list_push(&n->closing_cmds, c);
        uv_close((uv_handle_t *)&c->proc, on_cmd_closed);
        return;
    }
    n->stats.commands_started_total++;
    c->state = CMD_RUNNING;
    list_push(&n->running, c);
    wrd_debug("notify command started", "pid=%d event=%s game=%s seat=%s", c->proc.pid,
              cmd_val(c, 0), cmd_val(c, 1), cmd_val(c, 2));
}

static void start_queued(struct wrd_notifier *n)
{
    while (!n->closing && n->queued.head != NULL && n->running.count < n->max_children) {
        struct cmd *c = n->queued.head;
        list_remove(&n->queued, c);
        cmd_spawn(n, c);
    }
}

static int cmd_new(struct wrd_notifier *n, const struct wrd_notify_env *env)
{
    if (n->running.count >= n->max_children && n->queued.count >= n->max_queued) {
        n->stats.commands_dropped_total++;
        wrd_warn("notify command dropped", "reason=\"too many queued\" running=%u queued=%u",
                 n->running.count, n->queued.count);
        return WRD_NOTIFY_EFULL;
    }
    struct cmd *c = calloc(1, sizeof *c);
    if (c == NULL)
        return WRD_NOTIFY_ENOMEM;
    c->n = n;
    char version[24];
    snprintf(version, sizeof version, "%ld", env != NULL ? env->version : 0L);
    const char *vals[NENV] = {
        env != NULL ? env->event : NULL, env != NULL ? env->game : NULL,
        env != NULL ? env->seat : NULL, version, env != NULL ? env->ruleset : NULL,
        env != NULL ? env->reason : NULL,
    };
    for (int i = 0; i < NENV; i++) {
        const char *v = vals[i] != NULL ? vals[i] : "";
        size_t len = strlen(env_names[i]) + 1 + strlen(v) + 1;
        c->env[i] = malloc(len);
        if (c->env[i] == NULL) {
            cmd_free(c);
            return WRD_NOTIFY_ENOMEM;
        }
        snprintf(c->env[i], len, "%s=%s", env_names[i], v);
    }
    if (n->running.count < n->max_children)
        cmd_spawn(n, c);
    else
        list_push(&n->queued, c);
    return 0;
}

/* ---- the public calls ------------------------------------------------------------- */

int wrd_notify(struct wrd_notifier *n, const char *url, const char *body,
               const struct wrd_notify_env *env)
{
    if (n == NULL || n->closing || (url != NULL && body == NULL))
        return WRD_NOTIFY_EINVAL;
    struct url u;
    size_t body_len = 0;
    if (url != NULL) {
        const char *why = NULL;
        if (parse_url(url, &u, &why) < 0) {
            wrd_warn("webhook refused", "reason=\"%s\"", why);
            return WRD_NOTIFY_EBADURL;
        }
        body_len = strlen(body);
        if (body_len > WRD_NOTIFY_MAX_BODY) {
            wrd_warn("webhook refused", "reason=\"body too big\" bytes=%zu", body_len);
            return WRD_NOTIFY_ETOOBIG;
        }
    }
    int rc = 0;
    if (url != NULL)
        rc = hook_queue(n, &u, body, body_len, env);
    if (n->cmd != NULL) {
        int r = cmd_new(n, env);
        if (rc == 0)
            rc = r;
    }
    return rc;
}

/* The grace after SIGTERM is over: SIGKILL the children left and stop
 * watching them (they are not reaped: the server is exiting). */
static void on_grace(uv_timer_t *timer)
{
    struct wrd_notifier *n = timer->data;
    while (n->running.head != NULL) {
        struct cmd *c = n->running.head;
        wrd_warn("notify command killed", "pid=%d reason=\"still running after SIGTERM\" "
                 "grace_ms=%llu", c->proc.pid, (unsigned long long)n->grace_ms);
        uv_process_kill(&c->proc, SIGKILL);
        cmd_close(c);
    }
    close_grace(n);
}

void wrd_notifier_close(struct wrd_notifier *n, void (*done)(void *arg), void *arg)
{
    if (n == NULL || n->closing)
        return;
    n->closing = 1;
    n->done = done;
    n->done_arg = arg;
    unsigned cancelled = 0, dropped = 0;
    for (struct hook *h = n->hooks; h != NULL; h = h->next) {
        if (h->phase == HP_DONE)
            continue;
        attempt_end(h);
        hook_finish(h);
        cancelled++;
    }
    while (n->queued.head != NULL) {
        struct cmd *c = n->queued.head;
        list_remove(&n->queued, c);
        cmd_free(c);
        dropped++;
    }
    for (struct cmd *c = n->running.head; c != NULL; c = c->next)
        uv_process_kill(&c->proc, SIGTERM);
    if (cancelled + dropped + n->running.count > 0)
        wrd_info("notifier stopping", "webhooks_cancelled=%u commands_dropped=%u "
                 "commands_terminated=%u", cancelled, dropped, n->running.count);
    /* Children still running are reaped by their exit callback; those that
     * outlive the grace are killed. */
    if (n->running.count > 0)
        uv_timer_start(&n->grace, on_grace, n->grace_ms, 0);
    else
        close_grace(n);
}
