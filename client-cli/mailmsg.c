/*
 * mailmsg.c - one mail message read for `warroom mail-in` (mailmsg.h): the
 * headers into slots by a table of names, the MIME tree walked for its
 * first text part, the part decoded by a table of transfer encodings and
 * turned into UTF-8 by a table of charsets, and its lines read up to the
 * first cut of a table of markers.
 */
#include "mailmsg.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- a growing byte buffer ------------------------------------------------------------- */

struct buf {
    char *s;                    /* NUL-terminated when len > 0; owned */
    size_t len, cap;
    int oom;
};

static void buf_add(struct buf *b, const void *p, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (s == NULL) {
            b->oom = 1;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
    memcpy(b->s + b->len, p, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void buf_byte(struct buf *b, int c)
{
    char ch = (char)c;
    buf_add(b, &ch, 1);
}

static void buf_release(struct buf *b)
{
    free(b->s);
    memset(b, 0, sizeof *b);
}

/* The buffer's text as a new string (the buffer emptied). NULL when out of
 * memory. */
static char *buf_take(struct buf *b)
{
    if (b->oom)
        return NULL;
    char *s = b->s ? b->s : strdup("");
    memset(b, 0, sizeof *b);
    return s;
}

/* --- small helpers ----------------------------------------------------------------------- */

static void seterr(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void seterr(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (errlen)
        vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static int lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

static int blank(int c)
{
    return c == ' ' || c == '\t';
}

/* a[0..n) equals the NUL-terminated b, without regard to ASCII case */
static int eqn(const char *a, size_t n, const char *b)
{
    for (size_t i = 0; i < n; i++, b++)
        if (*b == '\0' || lower((unsigned char)a[i]) != lower((unsigned char)*b))
            return 0;
    return *b == '\0';
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = lower(c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* --- UTF-8 and charsets ----------------------------------------------------------------- */

static void put_cp(struct buf *b, uint32_t cp)
{
    char u[4];
    if (cp < 0x80) {
        u[0] = (char)cp;
        buf_add(b, u, 1);
    } else if (cp < 0x800) {
        u[0] = (char)(0xC0 | cp >> 6);
        u[1] = (char)(0x80 | (cp & 0x3F));
        buf_add(b, u, 2);
    } else if (cp < 0x10000) {
        u[0] = (char)(0xE0 | cp >> 12);
        u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (char)(0x80 | (cp & 0x3F));
        buf_add(b, u, 3);
    } else {
        u[0] = (char)(0xF0 | cp >> 18);
        u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[3] = (char)(0x80 | (cp & 0x3F));
        buf_add(b, u, 4);
    }
}

/* The length of the valid UTF-8 sequence at s[0..n) (no overlong form, no
 * surrogate, at most U+10FFFF), or 0. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    if (s[0] < 0x80)
        return 1;
    size_t k;
    uint32_t cp, min;
    if ((s[0] & 0xE0) == 0xC0)
        k = 2, cp = s[0] & 0x1F, min = 0x80;
    else if ((s[0] & 0xF0) == 0xE0)
        k = 3, cp = s[0] & 0x0F, min = 0x800;
    else if ((s[0] & 0xF8) == 0xF0)
        k = 4, cp = s[0] & 0x07, min = 0x10000;
    else
        return 0;
    if (n < k)
        return 0;
    for (size_t i = 1; i < k; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return k;
}

static void from_utf8(struct buf *b, const char *p, size_t n)
{
    const unsigned char *s = (const unsigned char *)p;
    for (size_t i = 0; i < n;) {
        size_t k = utf8_seq(s + i, n - i);
        if (k == 0) {
            put_cp(b, 0xFFFD);
            i++;
        } else {
            buf_add(b, s + i, k);
            i += k;
        }
    }
}

static void from_latin1(struct buf *b, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        put_cp(b, (unsigned char)p[i]);
}

/* Windows-1252's 0x80..0x9F (0: undefined, read as U+FFFD). */
static const uint16_t cp1252[32] = {
    0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
    0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017D, 0,
    0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
    0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
};

static void from_cp1252(struct buf *b, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned c = (unsigned char)p[i];
        if (c >= 0x80 && c < 0xA0)
            put_cp(b, cp1252[c - 0x80] ? cp1252[c - 0x80] : 0xFFFD);
        else
            put_cp(b, c);
    }
}

/* Charset names (RFC 2046 and the IANA aliases mailers use) -> converters;
 * a name not here is read as UTF-8. */
static const struct {
    const char *name;
    void (*convert)(struct buf *b, const char *p, size_t n);
} charsets[] = {
    { "utf-8", from_utf8 },        { "utf8", from_utf8 },
    { "us-ascii", from_utf8 },     { "ascii", from_utf8 },
    { "iso-8859-1", from_latin1 }, { "iso8859-1", from_latin1 },
    { "iso_8859-1", from_latin1 }, { "latin1", from_latin1 },
    { "l1", from_latin1 },         { "windows-1252", from_cp1252 },
    { "cp1252", from_cp1252 },     { "x-cp1252", from_cp1252 },
};

static void to_utf8(struct buf *b, const char *charset, size_t cslen, const char *p, size_t n)
{
    for (size_t i = 0; i < sizeof charsets / sizeof charsets[0]; i++)
        if (eqn(charset, cslen, charsets[i].name)) {
            charsets[i].convert(b, p, n);
            return;
        }
    from_utf8(b, p, n);
}

/* --- transfer encodings ---------------------------------------------------------------- */

static void dec_identity(struct buf *b, const char *p, size_t n)
{
    buf_add(b, p, n);
}

/* RFC 2045 6.7: =XX a byte, '=' ending a line (blanks may follow it) a
 * soft break; any other '=' is kept as it is (6.7 (1), a robust decoder). */
static void dec_qp(struct buf *b, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] != '=') {
            buf_byte(b, p[i]);
            continue;
        }
        if (i + 2 < n && hexval((unsigned char)p[i + 1]) >= 0 &&
            hexval((unsigned char)p[i + 2]) >= 0) {
            buf_byte(b, hexval((unsigned char)p[i + 1]) * 16 + hexval((unsigned char)p[i + 2]));
            i += 2;
            continue;
        }
        size_t j = i + 1;
        while (j < n && blank((unsigned char)p[j]))
            j++;
        if (j < n && p[j] == '\r')
            j++;
        if (j >= n || p[j] == '\n') {   /* soft line break */
            i = j < n ? j : n - 1;
            continue;
        }
        buf_byte(b, '=');
    }
}

static int b64val(int c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* RFC 2045 6.8: characters outside the alphabet are ignored; '=' ends. */
static void dec_b64(struct buf *b, const char *p, size_t n)
{
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n && p[i] != '='; i++) {
        int v = b64val((unsigned char)p[i]);
        if (v < 0)
            continue;
        acc = (acc << 6 | (uint32_t)v) & 0xFFFFFF;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            buf_byte(b, (int)((acc >> bits) & 0xFF));
        }
    }
}

static const struct {
    const char *name;
    void (*decode)(struct buf *b, const char *p, size_t n);
} encodings[] = {
    { "quoted-printable", dec_qp }, { "base64", dec_b64 }, { "7bit", dec_identity },
    { "8bit", dec_identity },       { "binary", dec_identity },
};

/* --- headers --------------------------------------------------------------------------- */

enum slot {
    H_MESSAGE_ID, H_SUBJECT, H_FROM,
    H_DELIVERED_TO, H_X_ORIGINAL_TO, H_ENVELOPE_TO, H_TO, H_CC,    /* recipients, in order */
    H_CONTENT_TYPE, H_CTE, H_DISPOSITION,
    H_N
};

/* Header names -> slots. A repeated recipient header adds to its slot (two
 * Delivered-To lines are both read); any other keeps its first value. */
static const struct {
    const char *name;
    enum slot slot;
    int repeat;
} headers[] = {
    { "message-id", H_MESSAGE_ID, 0 },   { "subject", H_SUBJECT, 0 },
    { "from", H_FROM, 0 },               { "delivered-to", H_DELIVERED_TO, 1 },
    { "x-original-to", H_X_ORIGINAL_TO, 1 }, { "envelope-to", H_ENVELOPE_TO, 1 },
    { "to", H_TO, 1 },                   { "cc", H_CC, 1 },
    { "content-type", H_CONTENT_TYPE, 0 }, { "content-transfer-encoding", H_CTE, 0 },
    { "content-disposition", H_DISPOSITION, 0 },
};

struct hdrs {
    struct buf v[H_N];
    int seen[H_N];
};

static void hdrs_release(struct hdrs *h)
{
    for (int i = 0; i < H_N; i++)
        buf_release(&h->v[i]);
}

/* The end of the line starting at p[i] (the index of its '\n', or n), and
 * its length without a final '\r'. */
static size_t line_end(const char *p, size_t n, size_t i, size_t *len)
{
    const char *nl = memchr(p + i, '\n', n - i);
    size_t e = nl ? (size_t)(nl - p) : n;
    *len = e - i;
    if (*len > 0 && p[e - 1] == '\r')
        (*len)--;
    return e;
}

/* A header field name followed by ':' at s[0..n): the name's length, or 0. */
static size_t field_name(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && s[i] != ':' && (unsigned char)s[i] > 32 && (unsigned char)s[i] < 127)
        i++;
    return i > 0 && i < n && s[i] == ':' ? i : 0;
}

/* Read the header block of p[0..n) into h (unfolded values, without the
 * name). *body is where the body starts (after the empty line; n when
 * there is none). Returns 0, or -1 when strict and p does not start with a
 * header field (not a message). */
static int read_headers(const char *p, size_t n, struct hdrs *h, size_t *body, int strict)
{
    size_t i = 0, len;
    int cur = -1;               /* the slot of the field being read, or -1 (ignored) */
    int any = 0;
    memset(h, 0, sizeof *h);
    if (strict && n >= 5 && memcmp(p, "From ", 5) == 0)     /* an mbox envelope line */
        i = line_end(p, n, 0, &len) + 1;
    while (i < n) {
        size_t e = line_end(p, n, i, &len);
        const char *s = p + i;
        size_t next = e < n ? e + 1 : n;
        if (len == 0) {         /* the empty line: the body follows */
            *body = next;
            return 0;
        }
        if (blank((unsigned char)s[0])) {       /* a folded continuation */
            if (cur >= 0)
                buf_add(&h->v[cur], s, len);
        } else {
            size_t k = field_name(s, len);
            if (k == 0) {
                if (strict && !any)
                    return -1;
                cur = -1;       /* a broken line among the headers is passed over */
            } else {
                any = 1;
                cur = -1;
                for (size_t t = 0; t < sizeof headers / sizeof headers[0]; t++) {
                    if (!eqn(s, k, headers[t].name))
                        continue;
                    enum slot sl = headers[t].slot;
                    if (h->seen[sl] && !headers[t].repeat)
                        break;
                    if (h->seen[sl])
                        buf_byte(&h->v[sl], ',');
                    h->seen[sl] = 1;
                    buf_add(&h->v[sl], s + k + 1, len - k - 1);
                    cur = (int)sl;
                    break;
                }
            }
        }
        i = next;
    }
    *body = n;
    return strict && !any ? -1 : 0;
}

/* --- addresses --------------------------------------------------------------------------- */

struct rcpts {
    char **a;
    int n;
};

static int add_rcpt(struct rcpts *r, const char *s, size_t n)
{
    while (n > 0 && blank((unsigned char)*s))
        s++, n--;
    while (n > 0 && blank((unsigned char)s[n - 1]))
        n--;
    if (n == 0 || n > WRC_MAIL_MAX_ADDR || memchr(s, '@', n) == NULL ||
        r->n >= WRC_MAIL_MAX_TO)
        return 0;
    for (size_t i = 0; i < n; i++)      /* no blank, control or non-ASCII byte */
        if ((unsigned char)s[i] <= 32 || (unsigned char)s[i] >= 127)
            return 0;
    for (int i = 0; i < r->n; i++)
        if (eqn(s, n, r->a[i]))
            return 0;
    char *c = malloc(n + 1);
    if (c == NULL)
        return -1;
    memcpy(c, s, n);
    c[n] = '\0';
    r->a[r->n++] = c;
    return 0;
}

/* The addresses of an address list (RFC 5322 3.4): each item's <...> when
 * it has one, else the item itself; comments, quoted display names and a
 * group's name ("team: a@x, b@y;") dropped. -1 when out of memory. */
static int read_addresses(const char *v, size_t n, struct rcpts *r)
{
    struct buf item = { 0 };
    int depth = 0, quoted = 0, angle = 0, has_angle = 0;
    struct buf in_angle = { 0 };
    for (size_t i = 0; i <= n; i++) {
        int c = i < n ? (unsigned char)v[i] : ',';
        if (quoted) {
            if (c == '\\' && i + 1 < n)
                i++;
            else if (c == '"')
                quoted = 0;
            continue;
        }
        if (depth > 0) {
            if (c == '\\' && i + 1 < n)
                i++;
            else if (c == '(')
                depth++;
            else if (c == ')')
                depth--;
            if (i < n)
                continue;
            c = ',';            /* an unclosed comment ends the list */
        }
        if (c == '(') {
            depth = 1;
        } else if (c == '"' && !angle) {
            quoted = 1;
        } else if (c == '<' && !angle) {
            angle = 1;
            has_angle = 1;
            in_angle.len = 0;
        } else if (c == '>' && angle) {
            angle = 0;
        } else if (angle && c != ',') {
            buf_byte(&in_angle, c);
        } else if (c == ':' && !angle) {
            item.len = 0;       /* a group's name */
        } else if (c == ',' || c == ';') {
            int rc = has_angle ? add_rcpt(r, in_angle.s ? in_angle.s : "", in_angle.len)
                               : add_rcpt(r, item.s ? item.s : "", item.len);
            item.len = 0;
            in_angle.len = 0;
            angle = has_angle = 0;
            if (rc != 0 || item.oom || in_angle.oom) {
                buf_release(&item);
                buf_release(&in_angle);
                return -1;
            }
        } else {
            buf_byte(&item, c);
        }
    }
    buf_release(&item);
    buf_release(&in_angle);
    return 0;
}

/* --- header values: Message-ID, Subject -------------------------------------------- */

/* s[0..n) trimmed, and what is between its first '<' and the next '>'. */
static void unbracket(const char **s, size_t *n)
{
    const char *p = *s, *lt = memchr(p, '<', *n);
    if (lt) {
        const char *gt = memchr(lt, '>', *n - (size_t)(lt - p));
        if (gt) {
            *s = lt + 1;
            *n = (size_t)(gt - lt - 1);
        }
    }
    while (*n > 0 && blank((unsigned char)**s))
        (*s)++, (*n)--;
    while (*n > 0 && (blank((unsigned char)(*s)[*n - 1]) || (*s)[*n - 1] == '\r'))
        (*n)--;
}

/* Control characters (C0, DEL) of a UTF-8 string become blanks. */
static void blank_controls(char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 32 || s[i] == 127)
            s[i] = ' ';
}

/* An encoded word is at most 75 characters (RFC 2047 2); mailers that
 * write longer ones are read up to this. */
#define ENCODED_WORD_MAX 1000

/* An RFC 2047 encoded word at v[i..n): =?charset?Q|B?text?=. Its decoded
 * text (UTF-8) is added to out and its length returned, or 0 when there is
 * no encoded word there. */
static size_t encoded_word(const char *v, size_t n, size_t i, struct buf *out)
{
    if (i + 2 > n || v[i] != '=' || v[i + 1] != '?')
        return 0;
    size_t cs = i + 2, q1 = cs;
    if (n - i > ENCODED_WORD_MAX)       /* scans stay short: no quadratic subject */
        n = i + ENCODED_WORD_MAX;
    while (q1 < n && v[q1] != '?' && !blank((unsigned char)v[q1]))
        q1++;
    if (q1 + 3 >= n || v[q1] != '?' || v[q1 + 2] != '?')
        return 0;
    int enc = lower((unsigned char)v[q1 + 1]);
    if (enc != 'q' && enc != 'b')
        return 0;
    size_t t = q1 + 3, e = t;
    while (e + 1 < n && !(v[e] == '?' && v[e + 1] == '='))
        if (blank((unsigned char)v[e++]))
            return 0;
    if (e + 1 >= n)
        return 0;
    struct buf raw = { 0 };
    if (enc == 'b') {
        dec_b64(&raw, v + t, e - t);
    } else {
        for (size_t k = t; k < e; k++) {
            if (v[k] == '_')
                buf_byte(&raw, ' ');
            else if (v[k] == '=' && k + 2 < e && hexval((unsigned char)v[k + 1]) >= 0 &&
                     hexval((unsigned char)v[k + 2]) >= 0) {
                buf_byte(&raw, hexval((unsigned char)v[k + 1]) * 16 +
                                   hexval((unsigned char)v[k + 2]));
                k += 2;
            } else {
                buf_byte(&raw, v[k]);
            }
        }
    }
    size_t cslen = q1 - cs;
    const char *star = memchr(v + cs, '*', cslen);     /* RFC 2231: charset*language */
    if (star)
        cslen = (size_t)(star - (v + cs));
    to_utf8(out, v + cs, cslen, raw.s ? raw.s : "", raw.len);
    buf_release(&raw);
    return e + 2 - i;
}

/* Subject: encoded words decoded (blanks between two of them dropped, RFC
 * 2047 6.2), the rest read as UTF-8, controls made blanks, trimmed. */
static char *decode_subject(const char *v, size_t n)
{
    struct buf out = { 0 };
    size_t i = 0;
    int after_word = 0;
    while (i < n) {
        size_t k = encoded_word(v, n, i, &out);
        if (k > 0) {
            i += k;
            after_word = 1;
            continue;
        }
        if (after_word && blank((unsigned char)v[i])) {
            size_t j = i;
            while (j < n && blank((unsigned char)v[j]))
                j++;
            struct buf probe = { 0 };
            int word_next = encoded_word(v, n, j, &probe) > 0;
            buf_release(&probe);
            if (word_next) {
                i = j;
                continue;
            }
        }
        after_word = 0;
        size_t j = i + 1;
        while (j < n && !(v[j] == '=' && j + 1 < n && v[j + 1] == '?'))
            j++;
        from_utf8(&out, v + i, j - i);
        i = j;
    }
    char *s = buf_take(&out);
    if (s == NULL)
        return NULL;
    blank_controls(s, strlen(s));
    size_t a = strspn(s, " \t"), len = strlen(s);
    while (len > a && blank((unsigned char)s[len - 1]))
        len--;
    memmove(s, s + a, len - a);
    s[len - a] = '\0';
    return s;
}

/* --- Content-Type ------------------------------------------------------------------------ */

struct ctype {
    char type[64];              /* "text/plain", lower case */
    char charset[64];
    char boundary[256];
    int flowed, delsp;          /* format=flowed; delsp=yes (RFC 3676) */
};

/* The value of parameter name in a header's parameters (RFC 2045 5.1:
 * token or quoted string). 0 when found, else -1. */
static int param(const char *v, size_t n, const char *name, char *out, size_t outlen)
{
    size_t i = 0;
    int quoted = 0;
    while (i < n) {             /* to the next ';' outside quotes */
        if (quoted) {
            if (v[i] == '\\')
                i++;
            else if (v[i] == '"')
                quoted = 0;
            i++;
            continue;
        }
        if (v[i] == '"')
            quoted = 1;
        if (v[i++] != ';')
            continue;
        while (i < n && blank((unsigned char)v[i]))
            i++;
        size_t k = i;
        while (k < n && v[k] != '=' && v[k] != ';' && !blank((unsigned char)v[k]))
            k++;
        size_t namelen = k - i;
        while (k < n && blank((unsigned char)v[k]))
            k++;
        if (k >= n || v[k] != '=' || !eqn(v + i, namelen, name))
            continue;
        k++;
        while (k < n && blank((unsigned char)v[k]))
            k++;
        size_t o = 0;
        if (k < n && v[k] == '"') {
            for (k++; k < n && v[k] != '"'; k++) {
                if (v[k] == '\\' && k + 1 < n)
                    k++;
                if (o + 1 < outlen)
                    out[o++] = v[k];
            }
        } else {
            for (; k < n && v[k] != ';' && !blank((unsigned char)v[k]); k++)
                if (o + 1 < outlen)
                    out[o++] = v[k];
        }
        out[o] = '\0';
        return 0;
    }
    return -1;
}

static void read_ctype(const struct buf *v, struct ctype *ct)
{
    memset(ct, 0, sizeof *ct);
    const char *s = v->s ? v->s : "";
    size_t n = v->len, i = 0, o = 0;
    while (i < n && blank((unsigned char)s[i]))
        i++;
    for (; i < n && s[i] != ';' && !blank((unsigned char)s[i]) && s[i] != '('; i++)
        if (o + 1 < sizeof ct->type)
            ct->type[o++] = (char)lower((unsigned char)s[i]);
    ct->type[o] = '\0';
    if (o == 0)                                 /* RFC 2045 5.2: the default */
        snprintf(ct->type, sizeof ct->type, "text/plain");
    if (param(s, n, "charset", ct->charset, sizeof ct->charset) != 0)
        snprintf(ct->charset, sizeof ct->charset, "us-ascii");
    param(s, n, "boundary", ct->boundary, sizeof ct->boundary);
    char word[16];
    ct->flowed = param(s, n, "format", word, sizeof word) == 0 && eqn(word, strlen(word),
                                                                       "flowed");
    ct->delsp = param(s, n, "delsp", word, sizeof word) == 0 && eqn(word, strlen(word), "yes");
}

/* --- the MIME tree ----------------------------------------------------------------------- */

struct text_part {
    const char *p;              /* borrowed from the raw message */
    size_t n;
    char cte[64];
    char charset[64];
    int flowed, delsp;
    int found;
};

struct walk {
    int parts;
    struct text_part plain, html;
    char *err;
    size_t errlen;
};

static void trimmed_lower(const struct buf *v, char *out, size_t outlen)
{
    const char *s = v->s ? v->s : "";
    size_t n = v->len, o = 0, i = 0;
    while (i < n && blank((unsigned char)s[i]))
        i++;
    for (; i < n && !blank((unsigned char)s[i]) && s[i] != ';' && s[i] != '('; i++)
        if (o + 1 < outlen)
            out[o++] = (char)lower((unsigned char)s[i]);
    out[o] = '\0';
}

static int walk_entity(struct walk *w, const struct hdrs *h, const char *body, size_t n,
                       int level);

/* The parts of a multipart body (RFC 2046 5.1.1): delimiter lines
 * "--boundary" (blanks may follow), the last "--boundary--"; the preamble
 * before the first and the epilogue after the last ignored; a part ends
 * before the line break that precedes the next delimiter. */
static int walk_multipart(struct walk *w, const char *boundary, const char *p, size_t n,
                          int level)
{
    size_t blen = strlen(boundary), i = 0, len;
    const char *start = NULL;   /* the current part's first byte, once inside one */
    while (i < n) {
        size_t e = line_end(p, n, i, &len);
        const char *s = p + i;
        int delim = 0, close = 0;
        if (len >= blen + 2 && s[0] == '-' && s[1] == '-' && memcmp(s + 2, boundary, blen) == 0) {
            size_t k = blen + 2;
            if (len >= k + 2 && s[k] == '-' && s[k + 1] == '-')
                close = 1, k += 2;
            while (k < len && blank((unsigned char)s[k]))
                k++;
            delim = k == len;
        }
        if (delim) {
            if (start) {
                size_t end = i;         /* drop the line break before the delimiter */
                if (end > (size_t)(start - p) && p[end - 1] == '\n')
                    end--;
                if (end > (size_t)(start - p) && p[end - 1] == '\r')
                    end--;
                if (++w->parts > WRC_MAIL_MAX_PARTS) {
                    seterr(w->err, w->errlen, "the message has more than %d MIME parts",
                           WRC_MAIL_MAX_PARTS);
                    return -1;
                }
                struct hdrs ph;
                size_t off;
                read_headers(start, (size_t)(p + end - start), &ph, &off, 0);
                int rc = walk_entity(w, &ph, start + off, (size_t)(p + end - start) - off,
                                     level);
                hdrs_release(&ph);
                if (rc != 0)
                    return rc;
            }
            if (close)
                return 0;
            start = e < n ? p + e + 1 : p + n;
        }
        i = e < n ? e + 1 : n;
    }
    if (start && start < p + n) {       /* no closing delimiter: the last part runs to the end */
        if (++w->parts > WRC_MAIL_MAX_PARTS) {
            seterr(w->err, w->errlen, "the message has more than %d MIME parts",
                   WRC_MAIL_MAX_PARTS);
            return -1;
        }
        struct hdrs ph;
        size_t off;
        read_headers(start, (size_t)(p + n - start), &ph, &off, 0);
        int rc = walk_entity(w, &ph, start + off, (size_t)(p + n - start) - off, level);
        hdrs_release(&ph);
        return rc;
    }
    return 0;
}

/* An entity (the message, or a part) whose headers are h and body
 * body[0..n), inside level multiparts. */
static int walk_entity(struct walk *w, const struct hdrs *h, const char *body, size_t n,
                       int level)
{
    struct ctype ct;
    read_ctype(&h->v[H_CONTENT_TYPE], &ct);
    if (strncmp(ct.type, "multipart/", 10) == 0) {
        if (level + 1 > WRC_MAIL_MAX_DEPTH) {
            seterr(w->err, w->errlen, "the message's MIME parts are nested more than %d deep",
                   WRC_MAIL_MAX_DEPTH);
            return -1;
        }
        if (ct.boundary[0] == '\0') {
            seterr(w->err, w->errlen, "a %s part of the message has no boundary", ct.type);
            return -1;
        }
        return walk_multipart(w, ct.boundary, body, n, level + 1);
    }
    char disp[64];
    trimmed_lower(&h->v[H_DISPOSITION], disp, sizeof disp);
    struct text_part *t = strcmp(ct.type, "text/plain") == 0  ? &w->plain
                          : strcmp(ct.type, "text/html") == 0 ? &w->html
                                                              : NULL;
    if (t == NULL || t->found || strcmp(disp, "attachment") == 0)
        return 0;
    t->found = 1;
    t->p = body;
    t->n = n;
    trimmed_lower(&h->v[H_CTE], t->cte, sizeof t->cte);
    snprintf(t->charset, sizeof t->charset, "%s", ct.charset);
    t->flowed = ct.flowed;
    t->delsp = ct.delsp;
    return 0;
}

/* --- HTML to text ------------------------------------------------------------------------ */

/* Tags that end a line (their opening or closing tag), and those whose
 * content is no text. A <blockquote> (quoted text in every HTML mailer)
 * starts a line of its own with '>': a cut. */
static const struct {
    const char *name;
    enum { TAG_BREAK, TAG_SKIP, TAG_QUOTE } what;
} html_tags[] = {
    { "br", TAG_BREAK },    { "p", TAG_BREAK },       { "div", TAG_BREAK },
    { "li", TAG_BREAK },    { "tr", TAG_BREAK },      { "h1", TAG_BREAK },
    { "h2", TAG_BREAK },    { "h3", TAG_BREAK },      { "pre", TAG_BREAK },
    { "hr", TAG_BREAK },    { "table", TAG_BREAK },   { "ul", TAG_BREAK },
    { "ol", TAG_BREAK },    { "style", TAG_SKIP },    { "script", TAG_SKIP },
    { "head", TAG_SKIP },   { "title", TAG_SKIP },    { "blockquote", TAG_QUOTE },
};

static const struct {
    const char *name;
    uint32_t cp;
} html_entities[] = {
    { "amp", '&' }, { "lt", '<' }, { "gt", '>' }, { "quot", '"' }, { "apos", '\'' },
    { "nbsp", ' ' },
};

static void html_entity(struct buf *out, const char *p, size_t n, size_t *i)
{
    size_t k = *i + 1, e = k;
    while (e < n && e - k < 12 && p[e] != ';' && p[e] != '&' && !blank((unsigned char)p[e]))
        e++;
    if (e < n && p[e] == ';' && e > k) {
        uint32_t cp = 0;
        int ok = 0;
        if (p[k] == '#') {
            int hex = k + 1 < e && lower((unsigned char)p[k + 1]) == 'x';
            ok = e > k + 1 + (size_t)hex;
            for (size_t j = k + 1 + (size_t)hex; j < e && ok; j++) {
                int d = hex ? hexval((unsigned char)p[j])
                            : (p[j] >= '0' && p[j] <= '9' ? p[j] - '0' : -1);
                if (d < 0 || cp > 0x10FFFF)
                    ok = 0;
                else
                    cp = cp * (hex ? 16 : 10) + (uint32_t)d;
            }
            if (ok && (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)))
                cp = 0xFFFD;
            if (ok && cp == 0xA0)
                cp = ' ';
        } else {
            for (size_t t = 0; t < sizeof html_entities / sizeof html_entities[0]; t++)
                if (eqn(p + k, e - k, html_entities[t].name)) {
                    cp = html_entities[t].cp;
                    ok = 1;
                }
        }
        if (ok) {
            put_cp(out, cp);
            *i = e;
            return;
        }
    }
    buf_byte(out, '&');
}

/* The text of HTML (UTF-8 already): runs of white space made one blank, line
 * breaks where the table says, tags and comments removed, entities read. */
static void html_to_text(struct buf *out, const char *p, size_t n)
{
    int skip = 0;               /* inside a TAG_SKIP element */
    for (size_t i = 0; i < n; i++) {
        int c = (unsigned char)p[i];
        if (c == '<') {
            if (i + 3 < n && memcmp(p + i, "<!--", 4) == 0) {
                const char *end = NULL;
                for (size_t j = i + 4; j + 2 < n && !end; j++)
                    if (memcmp(p + j, "-->", 3) == 0)
                        end = p + j + 2;
                i = end ? (size_t)(end - p) : n;
                continue;
            }
            size_t j = i + 1;
            int closing = j < n && p[j] == '/';
            if (closing)
                j++;
            size_t k = j;
            while (k < n && ((p[k] >= 'a' && p[k] <= 'z') || (p[k] >= 'A' && p[k] <= 'Z') ||
                             (p[k] >= '0' && p[k] <= '9')))
                k++;
            const char *gt = memchr(p + i, '>', n - i);
            size_t end = gt ? (size_t)(gt - p) : n;
            for (size_t t = 0; t < sizeof html_tags / sizeof html_tags[0]; t++) {
                if (!eqn(p + j, k - j, html_tags[t].name))
                    continue;
                if (html_tags[t].what == TAG_SKIP)
                    skip = !closing;
                else if (html_tags[t].what == TAG_QUOTE && !closing)
                    buf_add(out, "\n>\n", 3);
                else
                    buf_byte(out, '\n');
            }
            i = end;
            continue;
        }
        if (skip)
            continue;
        if (c == '&')
            html_entity(out, p, n, &i);
        else if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
            buf_byte(out, c);
        else if (out->len > 0 && out->s[out->len - 1] != ' ')     /* white space collapsed */
            buf_byte(out, ' ');
    }
}

/* --- the reply's own lines ------------------------------------------------------------- */

/* Where the reply's own text ends: the first line (trimmed) that is one of
 * these. An attribution may have been wrapped over two lines (Gmail): the
 * line before it goes too when it starts "On ". */
enum cut_how { CUT_PREFIX, CUT_SUFFIX, CUT_EQUAL, CUT_PREFIX_AFTER_EMPTY };
static const struct {
    const char *text;
    enum cut_how how;
    int attribution;
} cuts[] = {
    { ">", CUT_PREFIX, 0 },                         /* quoted text */
    { "wrote:", CUT_SUFFIX, 1 },                    /* On ... wrote: */
    { "--", CUT_EQUAL, 0 },                         /* "-- ", the signature */
    { "-----Original Message-----", CUT_PREFIX, 0 },        /* Outlook */
    { "________________", CUT_PREFIX, 0 },          /* Outlook's rule */
    { "From: ", CUT_PREFIX_AFTER_EMPTY, 0 },        /* Outlook's quoted header */
};

/* 1 when s[0..n) (trimmed) ends the reply. */
static int is_cut(const char *s, size_t n, int after_empty, int *attribution)
{
    for (size_t t = 0; t < sizeof cuts / sizeof cuts[0]; t++) {
        size_t k = strlen(cuts[t].text);
        int hit = 0;
        switch (cuts[t].how) {
        case CUT_PREFIX_AFTER_EMPTY:
            if (!after_empty)
                break;
            /* fall through */
        case CUT_PREFIX:
            hit = n >= k && eqn(s, k, cuts[t].text);
            break;
        case CUT_SUFFIX:
            hit = n >= k && eqn(s + n - k, k, cuts[t].text);
            break;
        case CUT_EQUAL:
            hit = n == k && memcmp(s, cuts[t].text, k) == 0;
            break;
        }
        if (hit) {
            *attribution = cuts[t].attribution;
            return 1;
        }
    }
    return 0;
}

/* s[0..n) of UTF-8 without its blanks (spaces, tabs, U+00A0) at both ends. */
static void trim(const char **s, size_t *n)
{
    for (;;) {
        if (*n > 0 && blank((unsigned char)**s))
            (*s)++, (*n)--;
        else if (*n > 1 && (unsigned char)(*s)[0] == 0xC2 && (unsigned char)(*s)[1] == 0xA0)
            (*s) += 2, (*n) -= 2;
        else
            break;
    }
    for (;;) {
        if (*n > 0 && blank((unsigned char)(*s)[*n - 1]))
            (*n)--;
        else if (*n > 1 && (unsigned char)(*s)[*n - 2] == 0xC2 &&
                 (unsigned char)(*s)[*n - 1] == 0xA0)
            (*n) -= 2;
        else
            break;
    }
}

static int read_lines(const char *text, size_t n, struct wrc_mailmsg *m, char *err,
                      size_t errlen)
{
    size_t i = 0, len;
    int after_empty = 0, prev_kept = 0;
    m->lines = calloc(WRC_MAIL_MAX_LINES + 1, sizeof *m->lines);
    char *line = malloc(n + 1);
    if (m->lines == NULL || line == NULL) {
        free(line);
        seterr(err, errlen, "out of memory");
        return -1;
    }
    int rc = 0;
    while (i < n) {
        size_t e = line_end(text, n, i, &len);
        memcpy(line, text + i, len);
        blank_controls(line, len);      /* a lone CR, a tab, a NUL: blanks */
        i = e + 1;
        const char *s = line;
        trim(&s, &len);
        int attribution = 0;
        if (len == 0) {
            after_empty = 1;
            prev_kept = 0;
            continue;
        }
        if (is_cut(s, len, after_empty, &attribution)) {
            /* a wrapped attribution: "On DATE, NAME <ADDR>" then "wrote:" */
            if (attribution && prev_kept && m->nlines > 0 && !(len >= 3 && eqn(s, 3, "On ")) &&
                strncmp(m->lines[m->nlines - 1], "On ", 3) == 0) {
                free(m->lines[--m->nlines]);
                m->lines[m->nlines] = NULL;
            }
            break;
        }
        after_empty = 0;
        if (len > WRC_MAIL_MAX_LINE) {
            seterr(err, errlen, "line %d of the reply is longer than %d bytes (%zu): it is "
                   "refused rather than cut", m->nlines + 1, WRC_MAIL_MAX_LINE, len);
            rc = -1;
            break;
        }
        if (m->nlines >= WRC_MAIL_MAX_LINES) {
            seterr(err, errlen, "the reply has more than %d lines above the quoted text: it "
                   "is refused rather than cut", WRC_MAIL_MAX_LINES);
            rc = -1;
            break;
        }
        char *c = malloc(len + 1);
        if (c == NULL) {
            seterr(err, errlen, "out of memory");
            rc = -1;
            break;
        }
        memcpy(c, s, len);
        c[len] = '\0';
        m->lines[m->nlines++] = c;
        prev_kept = 1;
    }
    free(line);
    return rc;
}

/* --- the message ----------------------------------------------------------------------- */

void wrc_mailmsg_free(struct wrc_mailmsg *m)
{
    free(m->message_id);
    free(m->subject);
    free(m->from);
    for (int i = 0; i < m->nto; i++)
        free(m->to[i]);
    free(m->to);
    for (int i = 0; m->lines && i < m->nlines; i++)
        free(m->lines[i]);
    free(m->lines);
    memset(m, 0, sizeof *m);
}

/* format=flowed (RFC 3676 4.2): a line ending in a space is continued by
 * the next (Thunderbird wraps long lines so); delsp=yes drops that space.
 * Only the reply's own lines matter: a quoted line ('>') is never joined,
 * nor the signature separator "-- ". */
static void unflow(struct buf *b, int delsp)
{
    size_t o = 0, i = 0, len;
    while (i < b->len) {
        size_t e = line_end(b->s, b->len, i, &len), nlen = 0;
        if (e < b->len)
            line_end(b->s, b->len, e + 1, &nlen);
        int soft = len > 0 && b->s[i + len - 1] == ' ' && b->s[i] != '>' &&
                   !(len == 3 && memcmp(b->s + i, "-- ", 3) == 0) && e < b->len &&
                   b->s[e + 1] != '>' && !(nlen == 3 && memcmp(b->s + e + 1, "-- ", 3) == 0);
        memmove(b->s + o, b->s + i, len - (soft && delsp));
        o += len - (soft && delsp);
        if (!soft && e < b->len)
            b->s[o++] = '\n';
        i = e < b->len ? e + 1 : b->len;
    }
    b->len = o;
    if (b->s)
        b->s[o] = '\0';
}

/* The chosen text part, decoded and in UTF-8 (HTML made text). */
static int part_text(const struct text_part *t, int html, struct buf *lines, char *err,
                     size_t errlen)
{
    const char *cte = t->cte[0] ? t->cte : "7bit";
    size_t e = 0;
    while (e < sizeof encodings / sizeof encodings[0] && strcmp(encodings[e].name, cte) != 0)
        e++;
    if (e == sizeof encodings / sizeof encodings[0]) {
        seterr(err, errlen, "the reply's text is in the transfer encoding '%s', not one of "
               "quoted-printable, base64, 7bit, 8bit, binary", cte);
        return -1;
    }
    struct buf raw = { 0 }, utf = { 0 }, txt = { 0 };
    encodings[e].decode(&raw, t->p, t->n);
    to_utf8(&utf, t->charset, strlen(t->charset), raw.s ? raw.s : "", raw.len);
    buf_release(&raw);
    if (t->flowed && !html && !utf.oom)
        unflow(&utf, t->delsp);
    if (html) {
        html_to_text(&txt, utf.s ? utf.s : "", utf.len);
        buf_release(&utf);
        utf = txt;
    }
    int oom = utf.oom;
    *lines = utf;
    if (oom) {
        seterr(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

static int fail(struct wrc_mailmsg *out, struct hdrs *h, struct rcpts *r)
{
    if (h)
        hdrs_release(h);
    for (int i = 0; r && i < r->n; i++)
        free(r->a[i]);
    if (r)
        free(r->a);
    wrc_mailmsg_free(out);
    return -1;
}

int wrc_mailmsg_parse(const char *raw, size_t len, struct wrc_mailmsg *out, char *err,
                      size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (len > WRC_MAIL_MAX_BYTES) {
        seterr(err, errlen, "the message is larger than %d bytes (1 MiB)", WRC_MAIL_MAX_BYTES);
        return -1;
    }
    struct hdrs h;
    size_t body;
    if (len == 0 || read_headers(raw, len, &h, &body, 1) != 0) {
        if (len)
            hdrs_release(&h);
        seterr(err, errlen, "this is not a mail message: it does not start with a header "
               "field (Name: value)");
        return -1;
    }
    struct rcpts r = { calloc(WRC_MAIL_MAX_TO, sizeof(char *)), 0 };
    if (r.a == NULL) {
        seterr(err, errlen, "out of memory");
        return fail(out, &h, &r);
    }
    /* 1) recipients, in the slots' order */
    for (int sl = H_DELIVERED_TO; sl <= H_CC; sl++)
        if (h.v[sl].len && read_addresses(h.v[sl].s, h.v[sl].len, &r) != 0) {
            seterr(err, errlen, "out of memory");
            return fail(out, &h, &r);
        }
    /* 2) Message-ID, Subject, From */
    if (h.seen[H_MESSAGE_ID]) {
        const char *s = h.v[H_MESSAGE_ID].s ? h.v[H_MESSAGE_ID].s : "";
        size_t n = h.v[H_MESSAGE_ID].len;
        unbracket(&s, &n);
        if (n > WRC_MAIL_MAX_ID) {
            seterr(err, errlen, "the message's Message-ID is longer than %d bytes",
                   WRC_MAIL_MAX_ID);
            return fail(out, &h, &r);
        }
        if (n > 0) {
            struct buf b = { 0 };
            from_utf8(&b, s, n);
            out->message_id = buf_take(&b);
            if (out->message_id)
                blank_controls(out->message_id, strlen(out->message_id));
        }
    }
    if (h.seen[H_SUBJECT])
        out->subject = decode_subject(h.v[H_SUBJECT].s ? h.v[H_SUBJECT].s : "",
                                      h.v[H_SUBJECT].len);
    if (h.seen[H_FROM]) {
        struct rcpts f = { calloc(WRC_MAIL_MAX_TO, sizeof(char *)), 0 };
        if (f.a && read_addresses(h.v[H_FROM].s ? h.v[H_FROM].s : "", h.v[H_FROM].len, &f) == 0
            && f.n > 0) {
            out->from = f.a[0];
            f.a[0] = NULL;
        }
        for (int i = 0; f.a && i < f.n; i++)
            free(f.a[i]);
        free(f.a);
    }
    out->to = r.a;
    out->nto = r.n;
    r.a = NULL;
    r.n = 0;
    /* 3) the MIME tree, for its first text part */
    struct walk w = { 0, { 0 }, { 0 }, err, errlen };
    if (walk_entity(&w, &h, raw + body, len - body, 0) != 0)
        return fail(out, &h, NULL);
    hdrs_release(&h);
    const struct text_part *t = w.plain.found ? &w.plain : w.html.found ? &w.html : NULL;
    if (t == NULL) {
        seterr(err, errlen, "the message has no text part (text/plain or text/html) to read "
               "orders from");
        return fail(out, NULL, NULL);
    }
    /* 4) its lines */
    struct buf text = { 0 };
    if (part_text(t, t == &w.html, &text, err, errlen) != 0 ||
        read_lines(text.s ? text.s : "", text.len, out, err, errlen) != 0) {
        buf_release(&text);
        return fail(out, NULL, NULL);
    }
    buf_release(&text);
    return 0;
}
