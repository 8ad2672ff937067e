/*
 * notify.h - tell a seat that is not connected that the game awaits it:
 * a webhook (HTTP POST of a JSON body to an http:// URL) and/or a local
 * notify command run with WARROOM_* variables (docs/protocol.md,
 * "Notifications").
 *
 * Everything runs on the server's libuv loop and nothing blocks it: names
 * are resolved with uv_getaddrinfo (thread pool), the POST is a uv_tcp
 * connection, and the command is a uv_spawn'd child reaped by its exit
 * callback. A webhook attempt succeeds on a 2xx status line; anything else,
 * a connection error, or no status line within the time-out (10 s) fails it,
 * and it is tried again after 1, 2, 4, 8 and 16 s (six attempts in all),
 * then given up and logged. Only the host and port of a URL are ever logged:
 * the path may hold a secret.
 *
 * Destinations: the server must not be a way into the networks it sits in.
 * One pure classifier (wrd_notify_addr_refused, a table of ranges) refuses
 * loopback, unspecified, private, shared (CGNAT), link-local (the cloud
 * metadata address among them), multicast, broadcast, reserved,
 * documentation and benchmarking addresses, and the IPv6 forms that embed an
 * IPv4 address (mapped, compatible, translated, NAT64, 6to4) when the
 * embedded address is refused. It is applied twice:
 *  - when a client registers a URL (wrd_notifier_check_url): an IP-literal
 *    host in any spelling the resolver takes as numeric (127.1, 2130706433,
 *    0x7f.0.0.1, [::ffff:127.0.0.1]) and the names localhost and *.localhost
 *    (RFC 6761) are refused; other names are not resolved then;
 *  - at delivery, to every address the name lookup returned: only allowed
 *    addresses are connected to, and the address connected is the very one
 *    checked (no second lookup, so DNS rebinding gains nothing). A
 *    notification none of whose addresses is allowed is refused: logged
 *    (host, port, address), counted, not retried.
 * The operator's allow-list (wrd_notifier_set_allow, --webhook-allow)
 * exempts hosts by name (then every address the name resolves to is
 * allowed), by address or by CIDR range (matched against IP literals and
 * against the addresses a name resolves to).
 *
 * Bounds: notifications pending (in flight or waiting to retry), children
 * running, commands waiting for a free child slot, body size, response bytes
 * read. Past a bound a notification is dropped with a warning and counted.
 *
 * Fair shares of the pending webhooks, so that hooks that never answer fill
 * only their owner's share and never cost another seat its notification:
 *  - a seat (the env's game and seat) has at most one webhook pending: a
 *    newer notification for it replaces the one waiting, and is sent in its
 *    place from the next attempt on, with all six attempts (if an attempt is
 *    in flight, the newer one waits for its end; if it was answered 2xx, the
 *    newer one is sent at once). Only the newest waits; every older one that
 *    was neither sent nor refused is counted as replaced;
 *  - an owner (the address of the client that registered the webhook, given
 *    in env->owner; an IPv6 address counts by its /64; when it is unknown,
 *    as for webhooks restored after a restart, the destination host stands
 *    in) has at most max_per_owner webhooks pending (default 20);
 *  - the server has at most max_pending (default 1000). When they are all
 *    taken, a newcomer whose owner holds at least two fewer than the owner
 *    holding the most takes the place of one of that owner's webhooks (one
 *    waiting to retry, if any), which is dropped; otherwise the newcomer is.
 *
 * The notifier writes to sockets: the process must ignore SIGPIPE
 * (signal(SIGPIPE, SIG_IGN) in main), as libuv does not do it for TCP.
 */
#ifndef WRD_NOTIFY_H
#define WRD_NOTIFY_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

/* Errors: X(id, value, code, text). Values are negative; 0 is success. */
#define WRD_NOTIFY_ERR_MAP(X)                                                              \
    X(EBADURL, -1, "bad_url",                                                              \
      "not an http:// URL this server can post to (https is not supported)")                \
    X(EINVAL, -2, "invalid_argument", "a required argument is NULL or the notifier is closing") \
    X(ETOOBIG, -3, "body_too_big", "the notification body is larger than the server allows") \
    X(EFULL, -4, "full", "too many notifications pending: dropped")                        \
    X(ENOMEM, -5, "no_memory", "out of memory")                                              \
    X(EREFUSED, -6, "webhook_refused",                                                     \
      "the server does not post to that destination (loopback, private, link-local, ...)")

enum wrd_notify_err {
    WRD_NOTIFY_OK = 0,
#define WRD_NOTIFY_ERR_ENUM(id, value, code, text) WRD_NOTIFY_##id = value,
    WRD_NOTIFY_ERR_MAP(WRD_NOTIFY_ERR_ENUM)
#undef WRD_NOTIFY_ERR_ENUM
};

/* Stable code of an error ("bad_url"; "ok" for 0, "unknown" otherwise). */
const char *wrd_notify_err_code(int err);

/* The generic sentence of an error. */
const char *wrd_notify_err_text(int err);

/* Limits and production defaults. */
#define WRD_NOTIFY_MAX_URL 2048          /* bytes of a webhook URL */
#define WRD_NOTIFY_MAX_BODY 16384        /* bytes of a webhook body */
#define WRD_NOTIFY_MAX_RESPONSE 8192     /* bytes read looking for the status line */
#define WRD_NOTIFY_RETRIES 5             /* retries after the first attempt */
#define WRD_NOTIFY_DEFAULT_BASE_MS 1000  /* first retry delay; doubles each time */
#define WRD_NOTIFY_DEFAULT_TIMEOUT_MS 10000
#define WRD_NOTIFY_DEFAULT_GRACE_MS 2000  /* children's time to exit after SIGTERM at close */
#define WRD_NOTIFY_DEFAULT_MAX_PENDING 1000
#define WRD_NOTIFY_DEFAULT_MAX_PER_OWNER 20
#define WRD_NOTIFY_DEFAULT_MAX_CHILDREN 32
#define WRD_NOTIFY_DEFAULT_MAX_QUEUED 1000

struct wrd_notifier;

/* What a notification is about. The notify command sees the first five as
 * WARROOM_EVENT, _GAME, _SEAT, _RULESET and _VERSION; game and seat also
 * name the seat whose webhook has at most one notification pending, and
 * owner says whose share it counts in. Strings are borrowed for the call
 * only (copied); NULL reads as "". */
struct wrd_notify_env {
    const char *event;          /* "your_turn", "deadline_reminder", "deadline_expired" */
    const char *game;
    const char *seat;
    const char *ruleset;
    long version;
    const char *owner;          /* address of the client that registered the webhook;
                                   NULL or "": unknown, the URL's host stands in */
    const char *reason;         /* deadline_expired: why the seat forfeited (the server
                                   section's forfeit_reason); NULL or "" otherwise */
};

/* Counters for /metrics. The *_total fields only grow; the others are gauges. */
struct wrd_notify_stats {
    uint64_t webhooks_sent_total;       /* answered 2xx */
    uint64_t webhook_failures_total;    /* failed attempts, each retry counted */
    uint64_t webhooks_given_up_total;   /* every attempt failed */
    uint64_t webhooks_dropped_total;    /* no place: its owner's share or every place is
                                           taken; or its place given to a lighter owner */
    uint64_t webhooks_refused_total;    /* no address of the destination is allowed */
    uint64_t webhooks_replaced_total;   /* a newer one for its seat was sent instead */
    uint64_t commands_started_total;    /* notify command spawned */
    uint64_t commands_exited_total;     /* reaped, whatever the exit status */
    uint64_t commands_failed_total;     /* could not start, exited non-zero, or killed */
    uint64_t commands_dropped_total;    /* refused: too many queued */
    unsigned webhooks_pending;          /* in flight or waiting to retry */
    unsigned commands_running;
    unsigned commands_queued;           /* waiting for a free child slot */
};

/* A notifier on loop (borrowed; must outlive the notifier). notify_cmd is
 * copied; NULL or "" means no command. Returns NULL when memory runs out.
 * Release with wrd_notifier_close(), which frees it. */
struct wrd_notifier *wrd_notifier_new(uv_loop_t *loop, const char *notify_cmd);

/* Shorter delays for tests (0 keeps a value): the first retry waits base_ms
 * (then 2x, 4x, 8x, 16x), an attempt fails after timeout_ms without a status
 * line, and at close children get grace_ms to exit after SIGTERM. Applies to
 * timers started after the call. Production: 1000, 10000 and 2000. */
void wrd_notifier_set_timing(struct wrd_notifier *n, uint64_t base_ms, uint64_t timeout_ms,
                             uint64_t grace_ms);

/* Change the bounds (0 keeps a value): webhook notifications pending,
 * children running at once, commands queued behind them. */
void wrd_notifier_set_limits(struct wrd_notifier *n, unsigned max_pending, unsigned max_children,
                             unsigned max_queued);

/* Change the share of one owner (see "Fair shares"; 0 keeps the value). */
void wrd_notifier_set_max_per_owner(struct wrd_notifier *n, unsigned max_per_owner);

/* Copy the counters into *out. */
void wrd_notifier_stats(const struct wrd_notifier *n, struct wrd_notify_stats *out);

/* Check the syntax of a webhook URL without sending anything (the
 * destination is wrd_notifier_check_url's business). Accepted: http://host[:port][/path][?query][#fragment], scheme in any
 * case, host a name, an IPv4 literal or a bracketed IPv6 literal (no zone),
 * port 1-65535 (default 80), at most WRD_NOTIFY_MAX_URL bytes of printable
 * ASCII. Refused: https and other schemes, user info, spaces, control and
 * non-ASCII bytes, an empty host or port. The fragment is never sent.
 * Returns 0 or WRD_NOTIFY_EBADURL; when why is not NULL, *why is set to a
 * constant sentence saying what is wrong (static storage, never freed). */
int wrd_notify_check_url(const char *url, const char **why);

/* Why a webhook may not be posted to the address sa (AF_INET or AF_INET6;
 * the port is ignored): a constant noun phrase naming the range, e.g. "a
 * loopback address (127.0.0.0/8)", or NULL when the address is allowed. An
 * IPv6 address that embeds an IPv4 one (::ffff:a.b.c.d, ...) is judged by
 * the embedded address. Any other family is refused. Pure: no allow-list,
 * no state. */
const char *wrd_notify_addr_refused(const struct sockaddr *sa);

/* Check an allow-list without keeping it: comma-separated entries, each a
 * host name, an IP literal (IPv6 bracketed or not) or a CIDR range
 * (10.0.0.0/8, fd00::/8); spaces around entries and empty entries are
 * ignored. Returns 0, or WRD_NOTIFY_EINVAL with *why (when why is not NULL)
 * set to a constant sentence. */
int wrd_notify_allow_check(const char *list, const char **why);

/* Replace the notifier's allow-list (NULL or "": none). Names match a URL's
 * host without regard to case or a final dot. Returns 0, WRD_NOTIFY_EINVAL
 * (the list is bad, *why says why; the old list stays) or
 * WRD_NOTIFY_ENOMEM. */
int wrd_notifier_set_allow(struct wrd_notifier *n, const char *list, const char **why);

/* Check a webhook URL as a client registers it: the syntax of
 * wrd_notify_check_url, then the destination (see "Destinations" above; n
 * may be NULL: no allow-list). Returns 0, WRD_NOTIFY_EBADURL or
 * WRD_NOTIFY_EREFUSED; on an error, when why is not NULL, fills why[0..len)
 * with a sentence saying what is wrong (for a refusal, it names the host
 * and the range). */
int wrd_notifier_check_url(const struct wrd_notifier *n, const char *url, char *why, size_t len);

/* Queue one notification and return at once; the work happens on the loop.
 *  - url non-NULL: POST body (JSON text, NUL-terminated, copied) to url.
 *  - a notify command configured: run it with env (borrowed for the call,
 *    copied; NULL: every value empty) added to the parent's environment.
 * Argument and URL errors queue nothing: WRD_NOTIFY_EINVAL (n NULL, body
 * NULL with a url, or the notifier is closing), WRD_NOTIFY_EBADURL (logged
 * with the reason, e.g. "https is not supported"), WRD_NOTIFY_ETOOBIG.
 * The destination is checked at delivery, after the name lookup: a URL
 * whose addresses are all refused is logged and counted
 * (webhooks_refused_total), never connected to.
 * A webhook for a seat that has one pending replaces it (see "Fair
 * shares"). Past a bound the channel that is full drops its part (warning,
 * counter) and the call returns WRD_NOTIFY_EFULL; the other channel still
 * goes.
 * WRD_NOTIFY_ENOMEM likewise. */
int wrd_notify(struct wrd_notifier *n, const char *url, const char *body,
               const struct wrd_notify_env *env);

/* Stop, from inside the loop: cancel retries and requests in flight (a
 * name lookup already running in the thread pool is waited for, not
 * interrupted), drop queued commands, send SIGTERM to running children and
 * reap them; a child still running after the grace (2 s) gets SIGKILL and is
 * no longer watched (not reaped: the process is expected to exit). Once the
 * last handle is closed the notifier is freed and then done(arg) is called
 * (always from a loop callback, never from inside this call; done may be
 * NULL). n must not be used after this call. The loop then ends by itself if
 * nothing else keeps it alive, and uv_loop_close() returns 0. */
void wrd_notifier_close(struct wrd_notifier *n, void (*done)(void *arg), void *arg);

#endif
