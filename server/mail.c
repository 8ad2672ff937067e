/*
 * mail.c - outgoing mail (server/mail.h): the address and URL checks, the
 * one message formatter (RFC 5322 + MIME), and the mailer, libcurl's SMTP
 * client driven by the libuv loop through the multi socket interface.
 *
 * The mailer keeps every pending message in one list, in the order sent.
 * A message is QUEUED (waiting for a transfer slot), RUNNING (an easy
 * handle in the multi handle) or WAITING (to retry at due_ms, on the one
 * retry timer). The pump starts the first QUEUED messages while fewer than
 * max_running transfers run, so messages go out in order.
 */
#include "mail.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

#include <curl/curl.h>

#include "log.h"

/* ---- errors --------------------------------------------------------------------- */

const char *wrd_mail_err_code(int err)
{
    if (err == 0)
        return "ok";
#define WRD_MAIL_ERR_CODE(id, value, code, text) if (err == value) return code;
    WRD_MAIL_ERR_MAP(WRD_MAIL_ERR_CODE)
#undef WRD_MAIL_ERR_CODE
    return "unknown";
}

const char *wrd_mail_err_text(int err)
{
    if (err == 0)
        return "ok";
#define WRD_MAIL_ERR_TEXT(id, value, code, text) if (err == value) return text;
    WRD_MAIL_ERR_MAP(WRD_MAIL_ERR_TEXT)
#undef WRD_MAIL_ERR_TEXT
    return "unknown error";
}

/* ---- the address check ---------------------------------------------------------- */

/* Byte classes of an address: what may stand in a local part, in a domain
 * label. Everything not listed is refused (controls, blanks, 8-bit). */
enum { C_LOCAL = 1, C_LABEL = 2 };

static unsigned char addr_class(unsigned char c)
{
    static const char local_refused[] = "\"(),:;<>[\\]@";
    if (c <= 0x20 || c >= 0x7f)
        return 0;
    unsigned char k = 0;
    if (strchr(local_refused, c) == NULL)
        k |= C_LOCAL;
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-')
        k |= C_LABEL;
    return k;
}

#define MAX_LOCAL 64
#define MAX_LABEL 63

/* The rules, checked in this order:
 *   1) present, 1..WRD_MAIL_MAX_ADDRESS bytes;
 *   2) exactly one '@';
 *   3) a local part of 1..64 bytes, each printable ASCII and none of
 *      blank, quote, parentheses, brackets, comma, colon, semicolon,
 *      backslash;
 *   4) a domain of dot-separated labels: each 1..63 letters, digits and
 *      hyphens, not starting or ending with a hyphen (RFC 1035). */
int wrd_mail_check_address(const char *addr, const char **why)
{
    const char *w = NULL;
    size_t len = addr != NULL ? strnlen(addr, WRD_MAIL_MAX_ADDRESS + 1) : 0;
    const char *at = addr != NULL ? memchr(addr, '@', len) : NULL;
    /* 1) */
    if (addr == NULL || len == 0)
        w = "the address is empty";
    else if (len > WRD_MAIL_MAX_ADDRESS)
        w = "the address is longer than 254 bytes";
    /* 2) */
    else if (at == NULL)
        w = "the address has no '@'";
    else if (memchr(at + 1, '@', len - (size_t)(at - addr) - 1) != NULL)
        w = "the address has more than one '@'";
    /* 3) */
    else if (at == addr)
        w = "the address has no local part before the '@'";
    else if (at - addr > MAX_LOCAL)
        w = "the local part is longer than 64 bytes";
    else {
        for (const char *p = addr; p < at && w == NULL; p++)
            if (!(addr_class((unsigned char)*p) & C_LOCAL))
                w = "the local part holds a blank, a control or a character not allowed";
        /* 4) */
        const char *d = at + 1, *end = addr + len;
        if (w == NULL && d == end)
            w = "the address has no domain after the '@'";
        while (w == NULL && d < end) {
            const char *dot = memchr(d, '.', (size_t)(end - d));
            const char *lend = dot != NULL ? dot : end;
            size_t n = (size_t)(lend - d);
            if (n == 0)
                w = "the domain has an empty label";
            else if (n > MAX_LABEL)
                w = "a domain label is longer than 63 bytes";
            else if (d[0] == '-' || lend[-1] == '-')
                w = "a domain label starts or ends with a hyphen";
            for (const char *p = d; p < lend && w == NULL; p++)
                if (!(addr_class((unsigned char)*p) & C_LABEL))
                    w = "the domain holds a character other than letters, digits, '-' and '.'";
            if (w == NULL && dot != NULL && dot + 1 == end)
                w = "the domain has an empty label";
            d = lend + 1;
        }
    }
    if (why != NULL)
        *why = w;
    return w == NULL ? 0 : WRD_MAIL_EBADADDR;
}

/* ---- the URL check -------------------------------------------------------------- */

/* The rules, in order: 1) smtp:// or smtps:// in any case; 2) no user
 * info; 3) a host: a name (letters, digits, '-', '.') or a bracketed IPv6
 * literal (hex digits, ':', '.'); 4) an optional port 1..65535; 5) nothing
 * after but an optional "/". */
int wrd_mail_check_url(const char *url, const char **why)
{
    static const char *const schemes[] = { "smtp://", "smtps://" };
    const char *w = NULL, *p = NULL;
    if (url == NULL)
        w = "no URL";
    for (size_t i = 0; w == NULL && p == NULL && i < sizeof schemes / sizeof schemes[0]; i++)
        if (strncasecmp(url, schemes[i], strlen(schemes[i])) == 0)
            p = url + strlen(schemes[i]);
    /* 1) */
    if (w == NULL && p == NULL)
        w = "the URL does not start with smtp:// or smtps://";
    if (w == NULL) {
        size_t alen = strcspn(p, "/?#");
        /* 2) */
        if (memchr(p, '@', alen) != NULL)
            w = "the URL holds user info: credentials come from the environment or a file";
        /* 3) */
        const char *h = p, *hend;
        if (w == NULL && *h == '[') {
            hend = h + 1;
            while (hend < p + alen && (strchr("0123456789abcdefABCDEF:.", *hend) != NULL))
                hend++;
            if (hend == h + 1 || hend >= p + alen || *hend != ']')
                w = "the URL's IPv6 host is malformed";
            else
                hend++;
        } else if (w == NULL) {
            hend = h;
            while (hend < p + alen && (addr_class((unsigned char)*hend) & C_LABEL || *hend == '.'))
                hend++;
            if (hend == h)
                w = "the URL has no host";
        }
        /* 4) */
        if (w == NULL && *hend == ':') {
            const char *q = hend + 1;
            long port = 0;
            while (*q >= '0' && *q <= '9' && port <= 65535)
                port = port * 10 + (*q++ - '0');
            if (q == hend + 1 || port < 1 || port > 65535)
                w = "the URL's port is not a number from 1 to 65535";
            hend = q;
        }
        /* 5) */
        if (w == NULL && !(hend[0] == '\0' || (hend[0] == '/' && hend[1] == '\0')))
            w = "the URL has something after the host and port (a path, a query, a bad character)";
    }
    if (why != NULL)
        *why = w;
    return w == NULL ? 0 : WRD_MAIL_EBADURL;
}

/* ---- the formatter -------------------------------------------------------------- */

struct buf {
    char *p;
    size_t len, cap;
    int oom;
};

static void buf_add(struct buf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap != 0 ? b->cap : 4096;
        while (b->len + n + 1 > cap)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (p == NULL) {
            b->oom = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void buf_str(struct buf *b, const char *s)
{
    buf_add(b, s, strlen(s));
}

static void buf_fmt(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void buf_fmt(struct buf *b, const char *fmt, ...)
{
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof tmp)
        b->oom = 1;             /* never with this file's formats */
    else
        buf_add(b, tmp, (size_t)n);
}

static const char hexdig[] = "0123456789ABCDEF";
static const char b64dig[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* base64 of s[0..n) without line breaks. */
static void b64_add(struct buf *b, const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)s[i] << 16;
        if (i + 1 < n)
            v |= (unsigned)s[i + 1] << 8;
        if (i + 2 < n)
            v |= s[i + 2];
        char q[4] = { b64dig[(v >> 18) & 63], b64dig[(v >> 12) & 63],
                      i + 1 < n ? b64dig[(v >> 6) & 63] : '=', i + 2 < n ? b64dig[v & 63] : '=' };
        buf_add(b, q, 4);
    }
}

/* base64 body: lines of 76 characters (57 bytes) ending in CRLF. */
static void b64_body(struct buf *b, const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n; i += 57) {
        b64_add(b, s + i, n - i < 57 ? n - i : 57);
        buf_add(b, "\r\n", 2);
    }
}

/* Quoted-printable (RFC 2045 6.7) of text, each "\n" a CRLF line break.
 * Kept literal: printable ASCII but '='; blanks but at the end of a line.
 * Encoded too: a '.' or the 'F' of "From " opening a line (harmless to an
 * SMTP server that does no dot-stuffing, to an mbox). Lines are at most 76
 * characters, soft breaks ("=" CRLF) included. Text not ending in "\n"
 * ends with a soft break, so the decoded text is exactly the input. */
static void qp_body(struct buf *b, const char *text, size_t n)
{
    size_t col = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '\n') {
            buf_add(b, "\r\n", 2);
            col = 0;
            continue;
        }
        int at_eol = i + 1 == n || text[i + 1] == '\n';
        int literal = (c >= 33 && c <= 126 && c != '=') || ((c == ' ' || c == '\t') && !at_eol);
        size_t tlen = literal ? 1 : 3;
        /* The token may end the line at 76 only when the line ends here;
         * otherwise leave room for the soft break's '='. */
        size_t room = at_eol && i + 1 < n ? 76 : 75;
        if (col + tlen > room) {
            buf_add(b, "=\r\n", 3);
            col = 0;
        }
        /* Opening a line on the wire (after a soft break too). */
        if (col == 0 && (c == '.' || (c == 'F' && n - i >= 5 && memcmp(text + i, "From ", 5) == 0)))
            literal = 0;
        char tok[3] = { (char)c, 0, 0 };
        tlen = 1;
        if (!literal) {
            tok[0] = '=';
            tok[1] = hexdig[c >> 4];
            tok[2] = hexdig[c & 15];
            tlen = 3;
        }
        buf_add(b, tok, tlen);
        col += tlen;
    }
    if (n > 0 && text[n - 1] != '\n')
        buf_add(b, "=\r\n", 3);
}

/* Header values: no CR, LF or NUL-cut surprises; printable where it must. */
static int has_crlf(const char *s)
{
    return s != NULL && strpbrk(s, "\r\n") != NULL;
}

/* A message id: 1..250 printable ASCII bytes, no blank, no brackets, one
 * '@' somewhere (id-left "@" id-right, loosely). */
static int check_msgid(const char *id)
{
    size_t n = strlen(id);
    if (n == 0 || n > 250 || strchr(id, '@') == NULL)
        return -1;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)id[i];
        if (c <= 0x20 || c >= 0x7f || c == '<' || c == '>' || c == '"' || c == '\\')
            return -1;
    }
    return 0;
}

/* Is s valid UTF-8 without control characters (C0, DEL)? *ascii set when
 * it is plain printable ASCII. */
static int check_utf8_text(const char *s, int *ascii)
{
    const unsigned char *p = (const unsigned char *)s;
    *ascii = 1;
    while (*p) {
        unsigned c = *p;
        int k = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2
                : (c & 0xf8) == 0xf0 ? 3 : -1;
        if (k < 0 || c == 0xc0 || c == 0xc1 || c > 0xf4)
            return -1;
        if (k == 0 && (c < 0x20 || c == 0x7f))
            return -1;
        if (k > 0)
            *ascii = 0;
        for (int j = 1; j <= k; j++)
            if ((p[j] & 0xc0) != 0x80)
                return -1;
        p += 1 + k;
    }
    return 0;
}

/* The Subject header. Plain ASCII that fits on one 78-character line, and
 * holds no "=?" a reader would take for an encoded-word, is written as it is; anything else as RFC 2047 encoded-words
 * (=?UTF-8?B?...?=), each of whole UTF-8 characters, at most 39 bytes
 * (52 base64 characters), one per line (folded with CRLF SP), so every
 * line stays within 76 characters. */
static void subject_header(struct buf *b, const char *s, int ascii)
{
    size_t n = strlen(s);
    if (ascii && n + 9 <= 78 && strstr(s, "=?") == NULL) {
        buf_fmt(b, "Subject: %s\r\n", s);
        return;
    }
    buf_str(b, "Subject:");
    size_t i = 0;
    do {
        size_t k = n - i < 39 ? n - i : 39;
        while (i + k < n && k > 0 && ((unsigned char)s[i + k] & 0xc0) == 0x80)
            k--;                /* do not cut a character */
        buf_str(b, " =?UTF-8?B?");
        b64_add(b, (const unsigned char *)s + i, k);
        buf_str(b, "?=\r\n");
        i += k;
    } while (i < n);
}

/* The Date header of ms (RFC 5322 3.3, in UTC). */
static void date_header(struct buf *b, int64_t ms)
{
    static const char *const days[] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
    static const char *const months[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                          "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
    int64_t secs = ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000);
    time_t t = (time_t)secs;
    struct tm tm;
    if (gmtime_r(&t, &tm) == NULL) {
        b->oom = 1;
        return;
    }
    buf_fmt(b, "Date: %s, %02d %s %04d %02d:%02d:%02d +0000\r\n", days[tm.tm_wday], tm.tm_mday,
            months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

/* A MIME token for a part's type ("image/svg+xml"): type "/" subtype of
 * RFC 2045 token characters, at most 60 bytes. */
static int check_mime_type(const char *t)
{
    size_t n = strlen(t);
    int slashes = 0;
    if (n == 0 || n > 60 || t[0] == '/' || t[n - 1] == '/')
        return -1;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)t[i];
        if (c == '/')
            slashes++;
        else if (c <= 0x20 || c >= 0x7f || strchr("()<>@,;:\\\"[]?=", c) != NULL)
            return -1;
    }
    return slashes == 1 ? 0 : -1;
}

/* A file name: 1..60 printable ASCII bytes, no quote, backslash or slash. */
static int check_filename(const char *f)
{
    size_t n = strlen(f);
    if (n == 0 || n > 60)
        return -1;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)f[i];
        if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '/')
            return -1;
    }
    return 0;
}

/* FNV-1a, 64 bits, continued from h. */
static uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* The boundary: "=_wr" and 32 hex digits of two hashes of the content.
 * It can never occur in the body: quoted-printable writes '=' only before
 * two hex digits or a line end, and base64 has no '_'. */
static void make_boundary(const struct wrd_mail_msg *m, char out[40])
{
    uint64_t h1 = 0xcbf29ce484222325ULL, h2 = 0x84222325cbf29ce4ULL;
    h1 = fnv1a(h1, m->text, strlen(m->text));
    h2 = fnv1a(h2, m->subject, strlen(m->subject));
    for (int i = 0; i < m->nparts; i++) {
        h1 = fnv1a(h1, m->parts[i].data, m->parts[i].len);
        h2 = fnv1a(h2, m->parts[i].filename, strlen(m->parts[i].filename));
        h2 = fnv1a(h2, &h1, sizeof h1);
    }
    snprintf(out, 40, "=_wr%016llx%016llx", (unsigned long long)h1, (unsigned long long)h2);
}

/* Checks in order: 1) the required fields; 2) no CR or LF in any header
 * value (EINVAL); 3) the addresses (EBADADDR); 4) subject, message ids,
 * parts (EINVAL); 5) the size before encoding (ETOOBIG). */
static int format_check(const struct wrd_mail_msg *m, int *subject_ascii)
{
    /* 1) */
    if (m == NULL || m->from == NULL || m->to == NULL || m->subject == NULL || m->text == NULL
        || m->nparts < 0 || (m->nparts > 0 && m->parts == NULL))
        return WRD_MAIL_EINVAL;
    /* 2) */
    if (has_crlf(m->from) || has_crlf(m->to) || has_crlf(m->reply_to) || has_crlf(m->subject)
        || has_crlf(m->message_id) || has_crlf(m->in_reply_to))
        return WRD_MAIL_EINVAL;
    /* 3) */
    if (wrd_mail_check_address(m->from, NULL) != 0 || wrd_mail_check_address(m->to, NULL) != 0
        || (m->reply_to != NULL && wrd_mail_check_address(m->reply_to, NULL) != 0))
        return WRD_MAIL_EBADADDR;
    /* 4) */
    if (check_utf8_text(m->subject, subject_ascii) != 0 || strlen(m->subject) > 900)
        return WRD_MAIL_EINVAL;
    if ((m->message_id != NULL && check_msgid(m->message_id) != 0)
        || (m->in_reply_to != NULL && check_msgid(m->in_reply_to) != 0))
        return WRD_MAIL_EINVAL;
    size_t total = strlen(m->text);
    for (int i = 0; i < m->nparts; i++) {
        const struct wrd_mail_part *p = &m->parts[i];
        if (p->type == NULL || p->filename == NULL || (p->data == NULL && p->len > 0)
            || check_mime_type(p->type) != 0 || check_filename(p->filename) != 0)
            return WRD_MAIL_EINVAL;
        if (p->len > WRD_MAIL_MAX_MESSAGE)
            return WRD_MAIL_ETOOBIG;
        total += p->len;
    }
    /* 5) */
    if (total > WRD_MAIL_MAX_MESSAGE)
        return WRD_MAIL_ETOOBIG;
    return 0;
}

char *wrd_mail_format(const struct wrd_mail_msg *m, size_t *len, int *err)
{
    int ascii = 1, e = format_check(m, &ascii);
    if (e != 0) {
        if (err != NULL)
            *err = e;
        return NULL;
    }
    struct buf b = { 0 };
    buf_fmt(&b, "From: %s\r\nTo: %s\r\n", m->from, m->to);
    if (m->reply_to != NULL)
        buf_fmt(&b, "Reply-To: %s\r\n", m->reply_to);
    subject_header(&b, m->subject, ascii);
    date_header(&b, m->date_ms);
    if (m->message_id != NULL)
        buf_fmt(&b, "Message-ID: <%s>\r\n", m->message_id);
    if (m->in_reply_to != NULL)
        buf_fmt(&b, "In-Reply-To: <%s>\r\nReferences: <%s>\r\n", m->in_reply_to,
                m->in_reply_to);
    buf_str(&b, "MIME-Version: 1.0\r\nAuto-Submitted: auto-generated\r\n");
    static const char text_head[] = "Content-Type: text/plain; charset=utf-8\r\n"
                                    "Content-Transfer-Encoding: quoted-printable\r\n";
    if (m->nparts == 0) {
        buf_str(&b, text_head);
        buf_str(&b, "\r\n");
        qp_body(&b, m->text, strlen(m->text));
    } else {
        char bd[40];
        make_boundary(m, bd);
        buf_fmt(&b, "Content-Type: multipart/mixed;\r\n boundary=\"%s\"\r\n\r\n", bd);
        buf_str(&b, "This is a MIME message: a text and its attachments.\r\n");
        buf_fmt(&b, "\r\n--%s\r\n", bd);
        buf_str(&b, text_head);
        buf_str(&b, "\r\n");
        qp_body(&b, m->text, strlen(m->text));
        for (int i = 0; i < m->nparts; i++) {
            const struct wrd_mail_part *p = &m->parts[i];
            buf_fmt(&b, "\r\n--%s\r\n", bd);
            buf_fmt(&b, "Content-Type: %s;\r\n name=\"%s\"\r\n", p->type, p->filename);
            buf_str(&b, "Content-Transfer-Encoding: base64\r\n");
            buf_fmt(&b, "Content-Disposition: attachment;\r\n filename=\"%s\"\r\n\r\n",
                    p->filename);
            b64_body(&b, (const unsigned char *)p->data, p->len);
        }
        buf_fmt(&b, "\r\n--%s--\r\n", bd);
    }
    e = b.oom ? WRD_MAIL_ENOMEM : b.len > WRD_MAIL_MAX_MESSAGE ? WRD_MAIL_ETOOBIG : 0;
    if (e != 0) {
        free(b.p);
        if (err != NULL)
            *err = e;
        return NULL;
    }
    if (len != NULL)
        *len = b.len;
    if (err != NULL)
        *err = 0;
    return b.p;
}

/* ---- the mailer ----------------------------------------------------------------- */

enum msg_state { M_QUEUED, M_RUNNING, M_WAITING };

struct mail_msg {
    struct mail_msg *prev, *next;
    enum msg_state state;
    char *to;                   /* "<addr>": the envelope recipient */
    char key[96];               /* for the log and the per-key bound */
    char *data;
    size_t len, pos;            /* pos: what the read callback gave curl */
    int attempts;               /* started so far */
    uint64_t due_ms;            /* M_WAITING: when to try again (uv_now) */
    CURL *easy;                 /* M_RUNNING */
    curl_socket_t fd;           /* M_RUNNING: its socket, as socket_fn saw it, or none */
    struct curl_slist *rcpt;    /* M_RUNNING */
};

/* A socket libcurl asked us to watch. */
struct mail_sock {
    uv_poll_t poll;
    struct wrd_mailer *m;
    curl_socket_t fd;
    struct mail_sock *prev, *next;
};

struct wrd_mailer {
    uv_loop_t *loop;
    CURLM *multi;
    uv_timer_t curl_timer;      /* CURLMOPT_TIMERFUNCTION's one timer */
    uv_timer_t retry_timer;     /* the earliest M_WAITING message */
    struct mail_msg *head, *tail;
    struct mail_sock *socks;
    char *url, *user, *password, *from;
    int smtps;
    uint64_t base_ms, timeout_ms;
    unsigned max_pending, max_per_key, max_per_address, max_running;
    struct wrd_mail_stats st;
    int closing;
    int open_handles;           /* uv handles initialized and not yet closed */
    void (*done)(void *arg);
    void *done_arg;
};

static void msg_unlink(struct wrd_mailer *m, struct mail_msg *g)
{
    if (g->prev != NULL)
        g->prev->next = g->next;
    else
        m->head = g->next;
    if (g->next != NULL)
        g->next->prev = g->prev;
    else
        m->tail = g->prev;
    m->st.pending--;
}

/* End g's transfer, if it has one. A transfer still in flight (abandon)
 * has its socket shut down first: removed in the middle of an upload,
 * libcurl's SMTP client would otherwise end the DATA with "." (the server
 * could keep a cut message) and then wait, blocking the loop, for the
 * reply (smtp_done in libcurl 7.88 ignores "premature"). With the socket
 * shut down the write fails and nothing is waited for. */
static void msg_detach(struct wrd_mailer *m, struct mail_msg *g, int abandon)
{
    if (g->easy != NULL) {
        if (abandon && g->fd != CURL_SOCKET_BAD)
            shutdown(g->fd, SHUT_RDWR);
        g->fd = CURL_SOCKET_BAD;
        curl_multi_remove_handle(m->multi, g->easy);
        curl_easy_cleanup(g->easy);
        g->easy = NULL;
        m->st.running--;
    }
    curl_slist_free_all(g->rcpt);
    g->rcpt = NULL;
}

static void msg_free(struct mail_msg *g)
{
    free(g->to);
    free(g->data);
    free(g);
}

static size_t read_cb(char *out, size_t size, size_t nitems, void *arg)
{
    struct mail_msg *g = arg;
    size_t want = size * nitems, left = g->len - g->pos;
    size_t n = want < left ? want : left;
    memcpy(out, g->data + g->pos, n);
    g->pos += n;
    return n;
}

/* Start g's next attempt: an easy handle in the multi handle. */
static int msg_start(struct wrd_mailer *m, struct mail_msg *g)
{
    g->pos = 0;
    g->fd = CURL_SOCKET_BAD;
    g->easy = curl_easy_init();
    g->rcpt = curl_slist_append(NULL, g->to);
    if (g->easy == NULL || g->rcpt == NULL)
        goto fail;
    CURL *e = g->easy;
    int bad = 0;
    bad |= curl_easy_setopt(e, CURLOPT_URL, m->url) != CURLE_OK;
    bad |= curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "smtp,smtps") != CURLE_OK;
    bad |= curl_easy_setopt(e, CURLOPT_MAIL_FROM, m->from) != CURLE_OK;
    bad |= curl_easy_setopt(e, CURLOPT_MAIL_RCPT, g->rcpt) != CURLE_OK;
    bad |= curl_easy_setopt(e, CURLOPT_UPLOAD, 1L) != CURLE_OK;
    bad |= curl_easy_setopt(e, CURLOPT_READFUNCTION, read_cb) != CURLE_OK;
    bad |= curl_easy_setopt(e, CURLOPT_READDATA, g) != CURLE_OK;
    bad |= curl_easy_setopt(e, CURLOPT_INFILESIZE_LARGE, (curl_off_t)g->len) != CURLE_OK;
    bad |= curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)m->timeout_ms) != CURLE_OK;
    bad |= curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L) != CURLE_OK;
    bad |= curl_easy_setopt(e, CURLOPT_USE_SSL, m->smtps ? (long)CURLUSESSL_ALL
                                                           : (long)CURLUSESSL_TRY) != CURLE_OK;
    bad |= curl_easy_setopt(e, CURLOPT_PRIVATE, g) != CURLE_OK;
    if (m->user != NULL)
        bad |= curl_easy_setopt(e, CURLOPT_USERNAME, m->user) != CURLE_OK;
    if (m->password != NULL)
        bad |= curl_easy_setopt(e, CURLOPT_PASSWORD, m->password) != CURLE_OK;
    if (bad || curl_multi_add_handle(m->multi, e) != CURLM_OK)
        goto fail;
    g->state = M_RUNNING;
    g->attempts++;
    m->st.running++;
    return 0;
fail:
    curl_easy_cleanup(g->easy);
    g->easy = NULL;
    curl_slist_free_all(g->rcpt);
    g->rcpt = NULL;
    return -1;
}

static void retry_arm(struct wrd_mailer *m);

/* Give g up (logged, counted, freed). */
static void msg_give_up(struct wrd_mailer *m, struct mail_msg *g, long smtp, const char *why)
{
    wrd_error("mail given up", "key=\"%s\" attempts=%d smtp=%ld error=\"%s\"", g->key,
              g->attempts, smtp, why);
    m->st.given_up_total++;
    msg_detach(m, g, 0);
    msg_unlink(m, g);
    msg_free(g);
}

/* Start the first queued messages while there is room. */
static void pump(struct wrd_mailer *m)
{
    struct mail_msg *g = m->head;
    while (g != NULL && m->st.running < m->max_running && !m->closing) {
        struct mail_msg *next = g->next;
        if (g->state == M_QUEUED && msg_start(m, g) != 0)
            msg_give_up(m, g, 0, "could not start a transfer (out of memory)");
        g = next;
    }
}

/* One transfer ended with result r. */
static void msg_done(struct wrd_mailer *m, struct mail_msg *g, CURLcode r)
{
    long smtp = 0;
    curl_easy_getinfo(g->easy, CURLINFO_RESPONSE_CODE, &smtp);
    if (r == CURLE_OK) {
        wrd_info("mail sent", "key=\"%s\" attempts=%d", g->key, g->attempts);
        m->st.sent_total++;
        msg_detach(m, g, 0);
        msg_unlink(m, g);
        msg_free(g);
        return;
    }
    m->st.failures_total++;
    /* curl_easy_strerror: a constant sentence, never the address. */
    const char *why = curl_easy_strerror(r);
    if ((smtp >= 500 && smtp <= 599) || g->attempts > WRD_MAIL_RETRIES) {
        msg_give_up(m, g, smtp, why);
        return;
    }
    uint64_t delay = m->base_ms << (g->attempts - 1);
    wrd_warn("mail attempt failed", "key=\"%s\" attempt=%d smtp=%ld error=\"%s\" retry_ms=%llu",
             g->key, g->attempts, smtp, why, (unsigned long long)delay);
    msg_detach(m, g, 0);
    g->state = M_WAITING;
    g->due_ms = uv_now(m->loop) + delay;
    retry_arm(m);
}

static void read_info(struct wrd_mailer *m)
{
    CURLMsg *cm;
    int left;
    while ((cm = curl_multi_info_read(m->multi, &left)) != NULL) {
        if (cm->msg != CURLMSG_DONE)
            continue;
        struct mail_msg *g = NULL;
        CURLcode r = cm->data.result;
        curl_easy_getinfo(cm->easy_handle, CURLINFO_PRIVATE, (char **)&g);
        if (g != NULL)
            msg_done(m, g, r);
    }
    pump(m);
}

static void retry_cb(uv_timer_t *t)
{
    struct wrd_mailer *m = t->data;
    uint64_t now = uv_now(m->loop);
    for (struct mail_msg *g = m->head; g != NULL; g = g->next)
        if (g->state == M_WAITING && g->due_ms <= now)
            g->state = M_QUEUED;
    pump(m);
    retry_arm(m);
}

/* Arm the retry timer for the earliest waiting message (or stop it). */
static void retry_arm(struct wrd_mailer *m)
{
    uint64_t due = UINT64_MAX, now = uv_now(m->loop);
    for (struct mail_msg *g = m->head; g != NULL; g = g->next)
        if (g->state == M_WAITING && g->due_ms < due)
            due = g->due_ms;
    if (due == UINT64_MAX)
        uv_timer_stop(&m->retry_timer);
    else
        uv_timer_start(&m->retry_timer, retry_cb, due > now ? due - now : 0, 0);
}

/* libcurl's clock: one uv timer. */
static void curl_timer_cb(uv_timer_t *t)
{
    struct wrd_mailer *m = t->data;
    int running;
    curl_multi_socket_action(m->multi, CURL_SOCKET_TIMEOUT, 0, &running);
    read_info(m);
}

static int timer_fn(CURLM *multi, long timeout_ms, void *arg)
{
    (void)multi;
    struct wrd_mailer *m = arg;
    if (m->closing)
        return 0;
    if (timeout_ms < 0)
        uv_timer_stop(&m->curl_timer);
    else
        uv_timer_start(&m->curl_timer, curl_timer_cb, (uint64_t)timeout_ms, 0);
    return 0;
}

static void poll_cb(uv_poll_t *h, int status, int events)
{
    struct mail_sock *s = h->data;
    struct wrd_mailer *m = s->m;
    int flags = 0, running;
    if (status < 0)
        flags = CURL_CSELECT_ERR;
    if (events & UV_READABLE)
        flags |= CURL_CSELECT_IN;
    if (events & UV_WRITABLE)
        flags |= CURL_CSELECT_OUT;
    curl_multi_socket_action(m->multi, s->fd, flags, &running);
    read_info(m);
}

static void handle_closed(uv_handle_t *h);

static void sock_close(struct wrd_mailer *m, struct mail_sock *s)
{
    if (s->prev != NULL)
        s->prev->next = s->next;
    else
        m->socks = s->next;
    if (s->next != NULL)
        s->next->prev = s->prev;
    uv_poll_stop(&s->poll);
    uv_close((uv_handle_t *)&s->poll, handle_closed);
}

static int socket_fn(CURL *easy, curl_socket_t fd, int what, void *arg, void *sockp)
{
    struct wrd_mailer *m = arg;
    struct mail_sock *s = sockp;
    struct mail_msg *g = NULL;
    curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&g);
    if (g != NULL)
        g->fd = what == CURL_POLL_REMOVE ? CURL_SOCKET_BAD : fd;
    if (what == CURL_POLL_REMOVE) {
        if (s != NULL) {
            curl_multi_assign(m->multi, fd, NULL);
            sock_close(m, s);
        }
        return 0;
    }
    if (s == NULL) {
        s = calloc(1, sizeof *s);
        if (s == NULL)
            return -1;
        if (uv_poll_init_socket(m->loop, &s->poll, fd) != 0) {
            free(s);
            return -1;
        }
        m->open_handles++;
        s->m = m;
        s->fd = fd;
        s->poll.data = s;
        s->next = m->socks;
        if (m->socks != NULL)
            m->socks->prev = s;
        m->socks = s;
        curl_multi_assign(m->multi, fd, s);
    }
    int ev = (what & CURL_POLL_IN ? UV_READABLE : 0) | (what & CURL_POLL_OUT ? UV_WRITABLE : 0);
    uv_poll_start(&s->poll, ev, poll_cb);
    return 0;
}

/* curl_global_init is not thread-safe: it runs once, from the first
 * wrd_mailer_new, which warroomd calls at start-up while it is single-
 * threaded (and before any other thread uses libcurl). It is never undone
 * (curl_global_cleanup): a later mailer reuses it. */
static int curl_started;

static char *dup_or_null(const char *s, int *bad)
{
    if (s == NULL)
        return NULL;
    char *d = strdup(s);
    if (d == NULL)
        *bad = 1;
    return d;
}

struct wrd_mailer *wrd_mailer_new(uv_loop_t *loop, const struct wrd_mail_config *cfg, char *err,
                                  size_t errlen)
{
    const char *why = NULL;
    if (loop == NULL || cfg == NULL) {
        snprintf(err, errlen, "no loop or no configuration");
        return NULL;
    }
    if (wrd_mail_check_url(cfg->url, &why) != 0) {
        snprintf(err, errlen, "--smtp: %s", why);
        return NULL;
    }
    if (wrd_mail_check_address(cfg->from, &why) != 0) {
        snprintf(err, errlen, "--mail-from: %s", why);
        return NULL;
    }
    if (!curl_started) {
        if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
            snprintf(err, errlen, "libcurl did not start (curl_global_init)");
            return NULL;
        }
        curl_started = 1;
    }
    struct wrd_mailer *m = calloc(1, sizeof *m);
    if (m == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    int bad = 0;
    m->loop = loop;
    m->url = dup_or_null(cfg->url, &bad);
    m->user = dup_or_null(cfg->user, &bad);
    m->password = dup_or_null(cfg->password, &bad);
    size_t flen = strlen(cfg->from) + 3;
    m->from = malloc(flen);
    if (m->from != NULL)
        snprintf(m->from, flen, "<%s>", cfg->from);
    m->smtps = strncasecmp(cfg->url, "smtps://", 8) == 0;
    m->base_ms = WRD_MAIL_DEFAULT_BASE_MS;
    m->timeout_ms = WRD_MAIL_DEFAULT_TIMEOUT_MS;
    m->max_pending = WRD_MAIL_DEFAULT_MAX_PENDING;
    m->max_per_key = WRD_MAIL_DEFAULT_MAX_PER_KEY;
    m->max_per_address = WRD_MAIL_DEFAULT_MAX_PER_ADDRESS;
    m->max_running = WRD_MAIL_DEFAULT_MAX_RUNNING;
    m->multi = curl_multi_init();
    if (bad || m->from == NULL || m->multi == NULL) {
        snprintf(err, errlen, "out of memory, or libcurl could not make a multi handle");
        if (m->multi != NULL)
            curl_multi_cleanup(m->multi);
        free(m->url);
        free(m->user);
        free(m->password);
        free(m->from);
        free(m);
        return NULL;
    }
    curl_multi_setopt(m->multi, CURLMOPT_SOCKETFUNCTION, socket_fn);
    curl_multi_setopt(m->multi, CURLMOPT_SOCKETDATA, m);
    curl_multi_setopt(m->multi, CURLMOPT_TIMERFUNCTION, timer_fn);
    curl_multi_setopt(m->multi, CURLMOPT_TIMERDATA, m);
    uv_timer_init(loop, &m->curl_timer);
    m->curl_timer.data = m;
    uv_timer_init(loop, &m->retry_timer);
    m->retry_timer.data = m;
    m->open_handles = 2;
    return m;
}

void wrd_mailer_set_timing(struct wrd_mailer *m, uint64_t base_ms, uint64_t timeout_ms)
{
    if (base_ms != 0)
        m->base_ms = base_ms;
    if (timeout_ms != 0)
        m->timeout_ms = timeout_ms;
}

void wrd_mailer_set_limits(struct wrd_mailer *m, unsigned max_pending, unsigned max_per_key,
                           unsigned max_per_address, unsigned max_running)
{
    if (max_pending != 0)
        m->max_pending = max_pending;
    if (max_per_key != 0)
        m->max_per_key = max_per_key;
    if (max_per_address != 0)
        m->max_per_address = max_per_address;
    if (max_running != 0)
        m->max_running = max_running;
    pump(m);
}

/* The key as it is logged: at most 95 bytes, anything but printable ASCII
 * other than '"' and '\\' replaced by '?', so a key cannot forge a field. */
static void key_copy(char out[96], const char *key)
{
    size_t i = 0;
    for (; key[i] != '\0' && i < 95; i++) {
        unsigned char c = (unsigned char)key[i];
        out[i] = c < 0x20 || c >= 0x7f || c == '"' || c == '\\' ? '?' : (char)c;
    }
    out[i] = '\0';
}

int wrd_mail_send(struct wrd_mailer *m, const char *to, const char *key, const char *message,
                  size_t len)
{
    if (m == NULL || to == NULL || key == NULL || message == NULL || m->closing)
        return WRD_MAIL_EINVAL;
    if (wrd_mail_check_address(to, NULL) != 0)
        return WRD_MAIL_EBADADDR;
    if (len > WRD_MAIL_MAX_MESSAGE)
        return WRD_MAIL_ETOOBIG;
    char k[96];
    key_copy(k, key);
    /* The bounds, in the order: in all, per key, per address. */
    unsigned per_key = 0, per_addr = 0;
    for (struct mail_msg *g = m->head; g != NULL; g = g->next) {
        per_key += strcmp(g->key, k) == 0;
        /* g->to is "<addr>"; addresses compare case-blind (the domain is). */
        per_addr += strncasecmp(g->to + 1, to, strlen(to)) == 0 && g->to[strlen(to) + 1] == '>'
                    && strlen(g->to) == strlen(to) + 2;
    }
    const char *bound = m->st.pending >= m->max_pending ? "pending"
                        : per_key >= m->max_per_key     ? "per_key"
                        : per_addr >= m->max_per_address ? "per_address"
                                                        : NULL;
    if (bound != NULL) {
        m->st.dropped_total++;
        wrd_warn("mail dropped", "key=\"%s\" bound=%s", k, bound);
        return WRD_MAIL_EFULL;
    }
    struct mail_msg *g = calloc(1, sizeof *g);
    size_t tlen = strlen(to) + 3;
    if (g == NULL || (g->to = malloc(tlen)) == NULL || (g->data = malloc(len ? len : 1)) == NULL) {
        if (g != NULL)
            msg_free(g);
        return WRD_MAIL_ENOMEM;
    }
    snprintf(g->to, tlen, "<%s>", to);
    memcpy(g->data, message, len);
    g->len = len;
    memcpy(g->key, k, sizeof k);
    g->state = M_QUEUED;
    g->prev = m->tail;
    if (m->tail != NULL)
        m->tail->next = g;
    else
        m->head = g;
    m->tail = g;
    m->st.pending++;
    pump(m);
    return 0;
}

void wrd_mailer_stats(const struct wrd_mailer *m, struct wrd_mail_stats *out)
{
    *out = m->st;
}

static void handle_closed(uv_handle_t *h)
{
    struct wrd_mailer *m;
    if (h->type == UV_POLL) {
        struct mail_sock *s = h->data;
        m = s->m;
        free(s);
    } else {
        m = h->data;
    }
    if (--m->open_handles > 0 || !m->closing)
        return;
    void (*done)(void *) = m->done;
    void *arg = m->done_arg;
    free(m->url);
    free(m->user);
    free(m->password);
    free(m->from);
    free(m);
    if (done != NULL)
        done(arg);
}

void wrd_mailer_close(struct wrd_mailer *m, void (*done)(void *arg), void *arg)
{
    if (m == NULL || m->closing)
        return;
    m->closing = 1;
    m->done = done;
    m->done_arg = arg;
    unsigned dropped = 0;
    while (m->head != NULL) {
        struct mail_msg *g = m->head;
        msg_detach(m, g, 1);
        msg_unlink(m, g);
        msg_free(g);
        dropped++;
    }
    if (dropped > 0)
        wrd_warn("mailer closed with messages pending: dropped", "count=%u", dropped);
    /* Closes the connections it keeps, each through socket_fn's
     * CURL_POLL_REMOVE; then whatever sockets it did not report. */
    curl_multi_cleanup(m->multi);
    m->multi = NULL;
    while (m->socks != NULL)
        sock_close(m, m->socks);
    uv_close((uv_handle_t *)&m->retry_timer, handle_closed);
    uv_close((uv_handle_t *)&m->curl_timer, handle_closed);
}
