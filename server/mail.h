/*
 * mail.h - outgoing mail: format a message (one formatter) and send it
 * through an SMTP server (--smtp smtp://HOST:PORT or smtps://HOST:PORT)
 * with libcurl's SMTP client, on the server's libuv loop.
 *
 * Nothing blocks the loop: libcurl's multi interface is driven by the
 * loop (curl_multi_socket_action from uv_poll and uv_timer callbacks);
 * name lookups happen in libcurl's threaded resolver. A message is tried
 * at once, then again after base, 2x, 4x, 8x and 16x base (six attempts
 * in all; base is 30 s in production) when the attempt fails for a reason
 * that may pass: a connection error, a time-out (60 s), an SMTP 4xx
 * reply. A 5xx reply (the server will never take it) gives it up at once.
 * A message given up is logged (game and seat, never the address) and
 * counted.
 *
 * Secrecy: an address is a secret of its seat. It is never logged, never
 * put in an error message or a metric label: logs name the message by the
 * key the caller gives (game and seat).
 *
 * Bounds, counted in what they protect (the SMTP server's goodwill and
 * this server's memory): bytes of one message (WRD_MAIL_MAX_MESSAGE);
 * messages pending (queued, in flight or waiting to retry) per key
 * (default 8), per address (default 16: several seats may share one), and
 * in all (default 1000); transfers running at once (default 4; the others
 * wait their turn in order). Past a bound the new message is dropped,
 * logged and counted, and wrd_mail_send returns WRD_MAIL_EFULL.
 *
 * Log lines (server/log.h), each naming the message by its key only:
 * "mail sent" (info: key, attempts), "mail attempt failed" (warn: key,
 * attempt, smtp = the last SMTP reply code or 0, error = libcurl's constant
 * sentence for its error code, retry_ms), "mail given up" (error: key,
 * attempts, smtp, error), "mail dropped" (warn: key, bound = pending,
 * per_key or per_address), and the count dropped by a close.
 *
 * Lifetimes: the mailer borrows the loop (it must outlive the mailer) and
 * copies everything else it is given. wrd_mailer_close frees it.
 */
#ifndef WRD_MAIL_H
#define WRD_MAIL_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

/* Errors: X(id, value, code, text). Values are negative; 0 is success. */
#define WRD_MAIL_ERR_MAP(X)                                                                \
    X(EBADURL, -1, "bad_url", "not an smtp:// or smtps:// URL with a host")                \
    X(EINVAL, -2, "invalid_argument", "a required argument is missing or malformed")       \
    X(ETOOBIG, -3, "mail_too_big", "the message is larger than the server allows")          \
    X(EFULL, -4, "full", "too many messages pending: dropped")                             \
    X(ENOMEM, -5, "no_memory", "out of memory")                                              \
    X(EBADADDR, -6, "bad_address", "not a mail address this server sends to")

enum wrd_mail_err {
    WRD_MAIL_OK = 0,
#define WRD_MAIL_ERR_ENUM(id, value, code, text) WRD_MAIL_##id = value,
    WRD_MAIL_ERR_MAP(WRD_MAIL_ERR_ENUM)
#undef WRD_MAIL_ERR_ENUM
};

/* Stable code of an error ("bad_url"; "ok" for 0, "unknown" otherwise),
 * and its generic sentence. */
const char *wrd_mail_err_code(int err);
const char *wrd_mail_err_text(int err);

#define WRD_MAIL_MAX_ADDRESS 254        /* bytes of an address (RFC 5321's path limit) */
#define WRD_MAIL_MAX_MESSAGE (1 << 20)  /* bytes of a formatted message */
#define WRD_MAIL_RETRIES 5              /* retries after the first attempt */
#define WRD_MAIL_DEFAULT_BASE_MS 30000  /* first retry delay; doubles each time */
#define WRD_MAIL_DEFAULT_TIMEOUT_MS 60000
#define WRD_MAIL_DEFAULT_MAX_PENDING 1000
#define WRD_MAIL_DEFAULT_MAX_PER_KEY 8
#define WRD_MAIL_DEFAULT_MAX_PER_ADDRESS 16
#define WRD_MAIL_DEFAULT_MAX_RUNNING 4

/* Is addr an address the server sends to: local@domain, ASCII printable
 * without blanks, quotes, brackets, parentheses, commas, colons,
 * semicolons or backslashes, at most WRD_MAIL_MAX_ADDRESS bytes, one '@',
 * a non-empty local part of at most 64 bytes, a domain of dot-separated
 * labels (letters, digits, hyphens; no empty label, none longer than 63
 * bytes or starting or ending with a hyphen, as RFC 1035 says; no address
 * literal "[...]"). 0 yes, WRD_MAIL_EBADADDR no, with *why (when why is
 * not NULL) a constant sentence saying what is wrong, and NULL on 0.
 * Pure. tests/fuzz/fuzz_mail_address.c checks what an accepted address
 * promises. */
int wrd_mail_check_address(const char *addr, const char **why);

/* Check an --smtp URL without connecting: smtp:// or smtps:// (any case),
 * a host, an optional port, no path beyond "/" and no user info (the
 * credentials come from the environment or a file, never the command
 * line). 0 or WRD_MAIL_EBADURL with *why set. Pure. */
int wrd_mail_check_url(const char *url, const char **why);

/* One attachment of a message: bytes (borrowed for the call), their MIME
 * type ("image/svg+xml") and file name ("board.svg"). */
struct wrd_mail_part {
    const char *type;
    const char *filename;
    const char *data;
    size_t len;
};

/* What a message says. Every string is borrowed for the call; NULL reads
 * as absent (only from, to, subject and text are required). */
struct wrd_mail_msg {
    const char *from;           /* header From: and the envelope sender */
    const char *to;             /* header To: and the one envelope recipient */
    const char *reply_to;       /* header Reply-To:, or NULL */
    const char *subject;        /* UTF-8; encoded (RFC 2047) when not plain ASCII */
    const char *text;           /* UTF-8 plain text, lines ending in "\n" */
    const char *message_id;     /* the id without brackets ("g-...@host"), or NULL: none */
    const char *in_reply_to;    /* a message id without brackets, or NULL */
    const struct wrd_mail_part *parts;  /* attachments (may be NULL when nparts is 0) */
    int nparts;
    int64_t date_ms;            /* the Date: header (Unix ms, written in UTC) */
};

/* Format m as an RFC 5322 message with CRLF line ends: headers From, To,
 * Reply-To, Subject, Date, Message-ID, In-Reply-To, References,
 * MIME-Version, Auto-Submitted: auto-generated; a text/plain part (UTF-8,
 * quoted-printable, so no line is longer than 76 characters on the wire
 * and the text comes back byte for byte) alone, or first in a
 * multipart/mixed with the attachments in base64. Header values may not
 * hold CR or LF (a header injection): refused. Returns the message
 * (NUL-terminated, *len its length; caller frees), or NULL with *err set
 * to WRD_MAIL_EINVAL, WRD_MAIL_EBADADDR, WRD_MAIL_ETOOBIG or
 * WRD_MAIL_ENOMEM. Pure: no clock, no randomness (the MIME boundary is
 * derived from the content). The same message gives the same bytes.
 *
 * In detail: the checks run in the order: a required field missing
 * (EINVAL); CR or LF in any header value (EINVAL); from, to or reply_to
 * not passing wrd_mail_check_address (EBADADDR); a subject that is not
 * UTF-8, holds a control character (a tab too) or is over 900 bytes, a
 * message id not 1..250 printable bytes with an '@' and without blanks,
 * quotes or brackets, a part type that is not "type/subtype" or a file
 * name with a quote, slash or backslash or over 60 bytes (EINVAL); more
 * than WRD_MAIL_MAX_MESSAGE bytes of text and attachments, or of the
 * message once encoded (ETOOBIG). The Subject is written as it is when
 * it is printable ASCII, fits one 78-character line and holds no "=?";
 * otherwise as RFC 2047 B encoded-words of whole UTF-8 characters, one
 * per folded line. Date is "Wed, 02 Dec 2026 00:00:00 +0000". The text's
 * quoted-printable also encodes a '.' or the 'F' of "From " opening a
 * line. In-Reply-To also gives References. The boundary ("=_wr" and 32
 * hex digits) cannot occur in quoted-printable or base64 text. */
char *wrd_mail_format(const struct wrd_mail_msg *m, size_t *len, int *err);

struct wrd_mailer;

/* The SMTP server and how to log in: url checked by wrd_mail_check_url;
 * user and password NULL for none. Copied by wrd_mailer_new. */
struct wrd_mail_config {
    const char *url;
    const char *user;
    const char *password;
    const char *from;           /* envelope sender of every message */
};

/* Counters for /metrics. The *_total fields only grow; the others are
 * gauges. */
struct wrd_mail_stats {
    uint64_t sent_total;        /* accepted by the SMTP server */
    uint64_t failures_total;    /* failed attempts, each retry counted */
    uint64_t given_up_total;    /* a 5xx, or every attempt failed */
    uint64_t dropped_total;     /* refused by a bound (wrd_mail_send: EFULL) */
    unsigned pending;           /* queued, in flight or waiting to retry */
    unsigned running;           /* transfers in flight */
};

/* A mailer on loop, or NULL with err filled (a bad URL or --mail-from,
 * libcurl failing to start, no memory). Release with wrd_mailer_close.
 * The first call runs curl_global_init(CURL_GLOBAL_DEFAULT), which is not
 * thread-safe: make it before any other thread uses libcurl (warroomd
 * calls it at start-up, single-threaded). It is never undone. */
struct wrd_mailer *wrd_mailer_new(uv_loop_t *loop, const struct wrd_mail_config *cfg, char *err,
                                  size_t errlen);

/* Shorter delays for tests (0 keeps a value): the first retry waits
 * base_ms, an attempt fails after timeout_ms. */
void wrd_mailer_set_timing(struct wrd_mailer *m, uint64_t base_ms, uint64_t timeout_ms);

/* Change the bounds (0 keeps a value). */
void wrd_mailer_set_limits(struct wrd_mailer *m, unsigned max_pending, unsigned max_per_key,
                           unsigned max_per_address, unsigned max_running);

/* Queue one message (message[0..len), as wrd_mail_format made it; copied)
 * for the envelope recipient to, counted under key (a short name for the
 * log and the bounds: "g-0123456789ab/french"; copied), and return at
 * once: 0, WRD_MAIL_EINVAL (NULL argument, or the mailer is closing),
 * WRD_MAIL_EBADADDR, WRD_MAIL_ETOOBIG, WRD_MAIL_EFULL or
 * WRD_MAIL_ENOMEM. Nothing is queued on an error. The bounds are checked
 * in the order in all, per key, per address (addresses compared without
 * regard to case); a key is logged and compared as its first 95 bytes,
 * with anything but printable ASCII, '"' and '\\' replaced by '?'. The
 * first transfer may start inside this call (no callback is made). */
int wrd_mail_send(struct wrd_mailer *m, const char *to, const char *key, const char *message,
                  size_t len);

/* Copy the counters into *out. */
void wrd_mailer_stats(const struct wrd_mailer *m, struct wrd_mail_stats *out);

/* Stop, from inside the loop: transfers in flight are abandoned (their
 * sockets shut down, so no cut message is ended with "." and nothing is
 * waited for), queued and waiting messages dropped (logged with their
 * count). Idle connections libcurl keeps for reuse are closed with a QUIT
 * whose reply libcurl waits for (quick from a live server). Once the last
 * handle is closed the mailer is freed and done(arg) is called (from a
 * loop callback, never from inside this call; done may be NULL). m must
 * not be used after this call. */
void wrd_mailer_close(struct wrd_mailer *m, void (*done)(void *arg), void *arg);

#endif
