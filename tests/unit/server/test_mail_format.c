/*
 * test_mail_format.c - the pure half of server/mail.h: the address and URL
 * checks (tables, one numbered row each) and the one message formatter.
 *
 * The formatter's output is read back with this file's own small parsers
 * (header unfolding, quoted-printable and base64 decoders, an RFC 2047
 * B-word decoder), never with mail.c's helpers, so the formatter is not
 * asked to check itself: text and attachments must come back byte for
 * byte, lines must end in CRLF only, header lines stay within 78
 * characters and body lines within 76.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mail.h"

/* ---- the test's own readers ------------------------------------------------------ */

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;                  /* RFC 2045: uppercase hex only */
}

/* Decode quoted-printable body text (CRLF line ends) into a malloc'd
 * string with "\n" line ends; fails the test on a malformed escape. */
static char *qp_decode(const char *s, size_t n, size_t *outlen)
{
    char *out = malloc(n + 1);
    size_t o = 0;
    assert_non_null(out);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '=') {
            if (i + 2 < n && s[i + 1] == '\r' && s[i + 2] == '\n') {
                i += 2;         /* a soft line break */
                continue;
            }
            assert_true(i + 2 < n);
            int hi = hexval(s[i + 1]), lo = hexval(s[i + 2]);
            assert_true(hi >= 0 && lo >= 0);
            out[o++] = (char)(hi * 16 + lo);
            i += 2;
        } else if (s[i] == '\r') {
            assert_true(i + 1 < n && s[i + 1] == '\n');
            out[o++] = '\n';
            i++;
        } else {
            assert_true(s[i] != '\n');
            out[o++] = s[i];
        }
    }
    out[o] = '\0';
    *outlen = o;
    return out;
}

static int b64val(int c)
{
    const char *d = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char *p = c != 0 ? strchr(d, c) : NULL;
    return p != NULL ? (int)(p - d) : -1;
}

/* Decode base64 text, skipping CRLF; fails the test on anything else. */
static unsigned char *b64_decode(const char *s, size_t n, size_t *outlen)
{
    unsigned char *out = malloc(n + 1);
    size_t o = 0;
    unsigned acc = 0;
    int bits = 0, pad = 0;
    assert_non_null(out);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\r' || s[i] == '\n')
            continue;
        if (s[i] == '=') {
            pad++;
            continue;
        }
        assert_int_equal(pad, 0);
        int v = b64val((unsigned char)s[i]);
        assert_true(v >= 0);
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (unsigned char)(acc >> bits);
            acc &= (1u << bits) - 1;
        }
    }
    *outlen = o;
    return out;
}

/* The message split: the header block (up to the empty line) and body. */
struct parsed {
    char *msg;
    size_t len;
    const char *body;
    size_t bodylen;
    size_t headlen;
};

/* Every line ends in CRLF (no bare CR or LF); header lines <= 78, body
 * lines <= 76 characters. */
static void check_lines(const char *msg, size_t len, struct parsed *p)
{
    size_t start = 0;
    int in_body = 0;
    p->msg = (char *)msg;
    p->len = len;
    p->body = NULL;
    for (size_t i = 0; i < len; i++) {
        if (msg[i] == '\r') {
            assert_true(i + 1 < len);
            assert_int_equal(msg[i + 1], '\n');
        } else if (msg[i] == '\n') {
            assert_true(i > 0);
            assert_int_equal(msg[i - 1], '\r');
            size_t linelen = i - 1 - start;
            if (!in_body && linelen == 0) {
                in_body = 1;
                p->headlen = start;
                p->body = msg + i + 1;
                p->bodylen = len - (i + 1);
            } else if (!in_body) {
                if (linelen > 78)
                    fail_msg("header line of %zu characters: %.*s", linelen, (int)linelen,
                             msg + start);
            } else if (linelen > 76) {
                fail_msg("body line of %zu characters: %.*s", linelen, (int)linelen,
                         msg + start);
            }
            start = i + 1;
        } else {
            assert_true(msg[i] != '\0');
        }
    }
    assert_true(len >= 2 && msg[len - 2] == '\r' && msg[len - 1] == '\n');
    assert_non_null(p->body);
}

/* The unfolded value of header name in a header block, malloc'd, or NULL. */
static char *header(const char *head, size_t headlen, const char *name)
{
    size_t nl = strlen(name);
    const char *p = head, *end = head + headlen;
    while (p < end) {
        const char *eol = strstr(p, "\r\n");
        assert_non_null(eol);
        if ((size_t)(eol - p) > nl && strncasecmp(p, name, nl) == 0 && p[nl] == ':') {
            char *v = malloc(headlen + 1);
            size_t o = 0;
            const char *q = p + nl + 1;
            for (;;) {
                while (q < eol && *q == ' ' && o == 0)
                    q++;
                memcpy(v + o, q, (size_t)(eol - q));
                o += (size_t)(eol - q);
                const char *nx = eol + 2;
                if (nx < end && (*nx == ' ' || *nx == '\t')) {
                    q = nx;     /* a folded line: the CRLF goes, the blank stays */
                    eol = strstr(nx, "\r\n");
                    continue;
                }
                break;
            }
            v[o] = '\0';
            return v;
        }
        p = eol + 2;
    }
    return NULL;
}

/* The subject from encoded-words "=?UTF-8?B?...?=" separated by blanks
 * (which RFC 2047 6.2 drops between adjacent words), or the raw value. */
static char *decode_subject(const char *v)
{
    char *out = calloc(1, strlen(v) + 1);
    size_t o = 0;
    const char *p = v;
    assert_non_null(out);
    if (strncmp(p, "=?", 2) != 0) {
        strcpy(out, v);
        return out;
    }
    while (*p) {
        while (*p == ' ')
            p++;
        if (*p == '\0')
            break;
        assert_true(strncasecmp(p, "=?UTF-8?B?", 10) == 0);
        p += 10;
        const char *e = strstr(p, "?=");
        assert_non_null(e);
        assert_true(e - p + 12 <= 75);      /* RFC 2047: a word of at most 75 */
        size_t n;
        unsigned char *d = b64_decode(p, (size_t)(e - p), &n);
        memcpy(out + o, d, n);
        o += n;
        free(d);
        p = e + 2;
    }
    out[o] = '\0';
    return out;
}

/* ---- address and URL tables ------------------------------------------------------- */

static void test_address_table(void **state)
{
    (void)state;
    char longaddr[300], local65[80], label64[100], exact254[260];
    memset(longaddr, 'a', sizeof longaddr - 1);
    longaddr[sizeof longaddr - 1] = '\0';
    longaddr[10] = '@';
    memset(local65, 'x', 65);
    strcpy(local65 + 65, "@example.org");
    strcpy(label64, "a@");
    memset(label64 + 2, 'b', 64);
    strcpy(label64 + 66, ".org");
    /* 254 bytes exactly: "a@" + labels of 63 and dots. */
    strcpy(exact254, "a@");
    size_t n = 2;
    while (n + 64 <= 254) {
        memset(exact254 + n, 'c', 63);
        n += 63;
        exact254[n++] = '.';
    }
    memset(exact254 + n, 'd', 254 - n);
    exact254[254] = '\0';
    char over255[260];
    strcpy(over255, exact254);
    over255[253] = 'd';
    strcpy(over255 + 254, "d");

    static const struct { const char *addr; int ok; } rows[] = {
        /* 0 */ { "a@b", 1 },
        /* 1 */ { "play+g-0123456789ab.1.42.3f9a0c6d1e2b4a5c6d7e@games.example.org", 1 },
        /* 2 */ { "first.last@sub.example.co.uk", 1 },
        /* 3 */ { "o'brien_x-y=z@ex-ample.org", 1 },
        /* 4 */ { "A@B.C0", 1 },
        /* 5 */ { "a b@c", 0 },
        /* 6 */ { "a@b..c", 0 },
        /* 7 */ { "<a@b>", 0 },
        /* 8 */ { "a@b,c@d", 0 },
        /* 9 */ { "a@-b", 0 },
        /* 10 */ { "a@b-", 0 },
        /* 11 */ { "", 0 },
        /* 12 */ { "ab", 0 },
        /* 13 */ { "@b", 0 },
        /* 14 */ { "a@", 0 },
        /* 15 */ { "a@b@c", 0 },
        /* 16 */ { "a@.b", 0 },
        /* 17 */ { "a@b.", 0 },
        /* 18 */ { "a\"b@c", 0 },
        /* 19 */ { "a\\b@c", 0 },
        /* 20 */ { "a;b@c", 0 },
        /* 21 */ { "a@b_c", 0 },
        /* 22 */ { "a\r\nBcc: x@y@c", 0 },
        /* 23 */ { "a@b\r\n", 0 },
        /* 24 */ { "a\t@b", 0 },
        /* 25 */ { "\xc3\xa9@b", 0 },
        /* 26 */ { "a@b c", 0 },
        /* 27 */ { "a(b)@c", 0 },
        /* 28 */ { "a@[127.0.0.1]", 0 },
        /* 29 */ { "a:b@c", 0 },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const char *why = "unset";
        int r = wrd_mail_check_address(rows[i].addr, &why);
        if ((r == 0) != rows[i].ok)
            fail_msg("row %zu (%s): got %d, why %s", i, rows[i].addr, r, why ? why : "-");
        if (rows[i].ok)
            assert_null(why);
        else {
            assert_int_equal(r, WRD_MAIL_EBADADDR);
            assert_non_null(why);
            assert_true(strlen(why) > 0);
        }
    }
    const char *why = NULL;
    assert_int_equal(wrd_mail_check_address(longaddr, &why), WRD_MAIL_EBADADDR);  /* 300 bytes */
    assert_int_equal(wrd_mail_check_address(local65, &why), WRD_MAIL_EBADADDR);
    assert_int_equal(wrd_mail_check_address(label64, &why), WRD_MAIL_EBADADDR);
    assert_int_equal(strlen(exact254), 254);
    assert_int_equal(wrd_mail_check_address(exact254, &why), 0);
    assert_int_equal(strlen(over255), 255);
    assert_int_equal(wrd_mail_check_address(over255, &why), WRD_MAIL_EBADADDR);
    assert_int_equal(wrd_mail_check_address(NULL, &why), WRD_MAIL_EBADADDR);
    assert_int_equal(wrd_mail_check_address("a@b", NULL), 0);
}

static void test_url_table(void **state)
{
    (void)state;
    static const struct { const char *url; int ok; } rows[] = {
        /* 0 */ { "smtp://127.0.0.1:2525", 1 },
        /* 1 */ { "smtps://mail.example.org", 1 },
        /* 2 */ { "SMTP://mail.example.org:25/", 1 },
        /* 3 */ { "smtp://[::1]:2525", 1 },
        /* 4 */ { "smtp://user:pw@mail.example.org", 0 },
        /* 5 */ { "http://mail.example.org", 0 },
        /* 6 */ { "smtp://", 0 },
        /* 7 */ { "smtp://host:0", 0 },
        /* 8 */ { "smtp://host:65536", 0 },
        /* 9 */ { "smtp://host:25/path", 0 },
        /* 10 */ { "smtp://host:", 0 },
        /* 11 */ { "smtp://ho st", 0 },
        /* 12 */ { "smtp://host?x=1", 0 },
        /* 13 */ { "smtp://[::1", 0 },
        /* 14 */ { "file:///etc/passwd", 0 },
        /* 15 */ { "smtp:/host", 0 },
        /* 16 */ { "smtp://host:99999999999999999999", 0 },
        /* 17 */ { "", 0 },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const char *why = "unset";
        int r = wrd_mail_check_url(rows[i].url, &why);
        if ((r == 0) != rows[i].ok)
            fail_msg("row %zu (%s): got %d, why %s", i, rows[i].url, r, why ? why : "-");
        if (!rows[i].ok) {
            assert_int_equal(r, WRD_MAIL_EBADURL);
            assert_non_null(why);
        }
    }
    assert_int_equal(wrd_mail_check_url(NULL, NULL), WRD_MAIL_EBADURL);
}

static void test_err_codes(void **state)
{
    (void)state;
    assert_string_equal(wrd_mail_err_code(0), "ok");
    assert_string_equal(wrd_mail_err_code(WRD_MAIL_EFULL), "full");
    assert_string_equal(wrd_mail_err_code(WRD_MAIL_EBADADDR), "bad_address");
    assert_string_equal(wrd_mail_err_code(-99), "unknown");
    assert_string_equal(wrd_mail_err_text(WRD_MAIL_ETOOBIG),
                        "the message is larger than the server allows");
}

/* ---- the formatter ---------------------------------------------------------------- */

static struct wrd_mail_msg base_msg(const char *text)
{
    struct wrd_mail_msg m = {
        .from = "warroom@games.example.org",
        .to = "player@example.net",
        .reply_to = "play+g-0123456789ab.1.42.3f9a0c6d1e2b4a5c6d7e@games.example.org",
        .subject = "Warroom g-0123456789ab: french, your move",
        .text = text,
        .message_id = "g-0123456789ab.1.42@games.example.org",
        .in_reply_to = NULL,
        .date_ms = 1796169600123LL,
    };
    return m;
}

/* Format m, check its lines, and return it parsed (caller frees p->msg). */
static void format_ok(const struct wrd_mail_msg *m, struct parsed *p)
{
    size_t len = 0;
    int err = 12345;
    char *msg = wrd_mail_format(m, &len, &err);
    if (msg == NULL)
        fail_msg("wrd_mail_format refused: %s", wrd_mail_err_code(err));
    assert_int_equal(err, 0);
    assert_int_equal(strlen(msg), len);
    check_lines(msg, len, p);
}

static void expect_header(const struct parsed *p, const char *name, const char *want)
{
    char *v = header(p->msg, p->headlen, name);
    if (v == NULL)
        fail_msg("no %s header", name);
    if (strcmp(v, want) != 0)
        fail_msg("%s: got \"%s\", want \"%s\"", name, v, want);
    free(v);
}

static void test_plain_headers(void **state)
{
    (void)state;
    struct wrd_mail_msg m = base_msg("Hello.\n");
    m.in_reply_to = "CAxyz.123@mail.example.net";
    struct parsed p;
    format_ok(&m, &p);
    expect_header(&p, "From", "warroom@games.example.org");
    expect_header(&p, "To", "player@example.net");
    expect_header(&p, "Reply-To", m.reply_to);
    expect_header(&p, "Subject", m.subject);
    expect_header(&p, "Date", "Wed, 02 Dec 2026 00:00:00 +0000");
    expect_header(&p, "Message-ID", "<g-0123456789ab.1.42@games.example.org>");
    expect_header(&p, "In-Reply-To", "<CAxyz.123@mail.example.net>");
    expect_header(&p, "References", "<CAxyz.123@mail.example.net>");
    expect_header(&p, "MIME-Version", "1.0");
    expect_header(&p, "Auto-Submitted", "auto-generated");
    expect_header(&p, "Content-Type", "text/plain; charset=utf-8");
    expect_header(&p, "Content-Transfer-Encoding", "quoted-printable");
    size_t n;
    char *text = qp_decode(p.body, p.bodylen, &n);
    assert_string_equal(text, "Hello.\n");
    free(text);
    free(p.msg);

    /* Absent optional fields: no header at all. */
    m.reply_to = NULL;
    m.message_id = NULL;
    m.in_reply_to = NULL;
    m.date_ms = 0;
    format_ok(&m, &p);
    assert_null(header(p.msg, p.headlen, "Reply-To"));
    assert_null(header(p.msg, p.headlen, "Message-ID"));
    assert_null(header(p.msg, p.headlen, "In-Reply-To"));
    assert_null(header(p.msg, p.headlen, "References"));
    expect_header(&p, "Date", "Thu, 01 Jan 1970 00:00:00 +0000");
    free(p.msg);
    m.date_ms = 951782400000LL;
    format_ok(&m, &p);
    expect_header(&p, "Date", "Tue, 29 Feb 2000 00:00:00 +0000");
    free(p.msg);
}

static void test_qp_round_trip(void **state)
{
    (void)state;
    char longline[400], longutf8[800], at76[80], at75[80], at77[80];
    memset(longline, 'x', 300);
    strcpy(longline + 300, "\n");
    longutf8[0] = '\0';
    for (int i = 0; i < 60; i++)
        strcat(longutf8, "\xe2\x95\x90=");          /* '═' and '=': escapes across breaks */
    strcat(longutf8, "\n");
    memset(at76, 'y', 76);
    strcpy(at76 + 76, "\n");
    memset(at75, 'y', 75);
    strcpy(at75 + 75, "\n");
    memset(at77, 'y', 77);
    strcpy(at77 + 77, "\n");
    char dotwrap[100], fromwrap[100];
    memset(dotwrap, 'z', 75);
    strcpy(dotwrap + 75, ".y\n");             /* the '.' wraps to open a wire line */
    memset(fromwrap, 'z', 75);
    strcpy(fromwrap + 75, "From y\n");
    const char *rows[] = {
        /* 0 */ "\xe2\x94\x8c\xe2\x94\x80\xe2\x94\x90 box\n\xe2\x94\x82 \xe2\x94\x82\n"
                "\xe2\x94\x94\xe2\x94\x80\xe2\x94\x98\n",
        /* 1 */ "a = b == c=\n=\n",
        /* 2 */ "trailing blanks   \ntrailing tab\t\n \n",
        /* 3 */ longline,
        /* 4 */ ".\n",
        /* 5 */ "one\n.\ntwo\n..\n",
        /* 6 */ "From the front\nno newline at the end",
        /* 7 */ "",
        /* 8 */ "\n\n\n",
        /* 9 */ longutf8,
        /* 10 */ at75,
        /* 11 */ at76,
        /* 12 */ at77,
        /* 13 */ "bare\rcarriage return\r\n",
        /* 14 */ "=_wr not a boundary\n--=_wr\n",
        /* 15 */ dotwrap,
        /* 16 */ fromwrap,
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct wrd_mail_msg m = base_msg(rows[i]);
        struct parsed p;
        format_ok(&m, &p);
        size_t n;
        char *text = qp_decode(p.body, p.bodylen, &n);
        if (n != strlen(rows[i]) || memcmp(text, rows[i], n) != 0)
            fail_msg("row %zu: decoded \"%s\"", i, text);
        /* No line of the body starts with '.' (nor "From "), and no line
         * ends in a blank (a transport may strip it). */
        for (const char *l = p.body; l < p.body + p.bodylen;) {
            const char *eol = strstr(l, "\r\n");
            assert_non_null(eol);
            if (eol > l) {
                assert_true(l[0] != '.');
                assert_true(strncmp(l, "From ", 5) != 0);
                assert_true(eol[-1] != ' ' && eol[-1] != '\t');
            }
            l = eol + 2;
        }
        free(text);
        free(p.msg);
    }
}

static void test_subject_2047(void **state)
{
    (void)state;
    char longascii[220];
    memset(longascii, 'S', 200);
    longascii[200] = '\0';
    const char *rows[] = {
        /* 0 */ "Warroom g-0123456789ab: fran\xc3\xa7" "ais, your move",
        /* 1 */ "\xe2\x95\x94\xe2\x95\x90\xe2\x95\x97 \xe2\x95\x94\xe2\x95\x90\xe2\x95\x97 "
                "\xe2\x95\x94\xe2\x95\x90\xe2\x95\x97 \xe2\x95\x94\xe2\x95\x90\xe2\x95\x97 "
                "\xe2\x95\x94\xe2\x95\x90\xe2\x95\x97 \xe2\x95\x94\xe2\x95\x90\xe2\x95\x97 "
                "\xe2\x95\x94\xe2\x95\x90\xe2\x95\x97 \xe2\x95\x94\xe2\x95\x90\xe2\x95\x97",
        /* 2 */ longascii,
        /* 3 */ "=?UTF-8?B?looks encoded?=",
        /* 4 */ "\xf0\x9f\x8e\xb2 dice \xf0\x9f\x8e\xb2\xf0\x9f\x8e\xb2\xf0\x9f\x8e\xb2"
                "\xf0\x9f\x8e\xb2\xf0\x9f\x8e\xb2\xf0\x9f\x8e\xb2\xf0\x9f\x8e\xb2\xf0\x9f\x8e\xb2"
                "\xf0\x9f\x8e\xb2\xf0\x9f\x8e\xb2\xf0\x9f\x8e\xb2\xf0\x9f\x8e\xb2",
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct wrd_mail_msg m = base_msg("x\n");
        m.subject = rows[i];
        struct parsed p;
        format_ok(&m, &p);
        char *v = header(p.msg, p.headlen, "Subject");
        assert_non_null(v);
        if (strncmp(v, "=?UTF-8?B?", 10) != 0)
            fail_msg("row %zu: not encoded: %s", i, v);
        /* Every encoded word holds whole characters: each decodes alone
         * to valid UTF-8 (checked by its first byte not being a
         * continuation byte). */
        for (const char *w = strstr(v, "=?UTF-8?B?"); w != NULL; w = strstr(w + 1, "=?UTF-8?B?")) {
            const char *e = strstr(w + 10, "?=");
            size_t n;
            unsigned char *d = b64_decode(w + 10, (size_t)(e - w - 10), &n);
            assert_true(n > 0);
            assert_true((d[0] & 0xc0) != 0x80);
            free(d);
        }
        char *s = decode_subject(v);
        if (strcmp(s, rows[i]) != 0)
            fail_msg("row %zu: subject came back as \"%s\"", i, s);
        free(s);
        free(v);
        free(p.msg);
    }
}

/* An attachment of every byte value, several lengths (0, 1, 2, 3 bytes,
 * a line's 57 and one more). */
static void test_attachments(void **state)
{
    (void)state;
    static const size_t lens[] = { 1000, 0, 1, 2, 3, 57, 58 };
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        char *data = calloc(1, lens[li] + 1);
        for (size_t i = 0; i < lens[li]; i++)
            data[i] = (char)(i * 7 + li);
        const char *svg = "<svg xmlns=\"http://www.w3.org/2000/svg\"/>\n";
        struct wrd_mail_part parts[2] = {
            { "image/svg+xml", "board.svg", svg, strlen(svg) },
            { "application/octet-stream", "bytes.bin", data, lens[li] },
        };
        const char *text = "The board:\n\xe2\x94\x8c\xe2\x94\x80\xe2\x94\x90\n";
        struct wrd_mail_msg m = base_msg(text);
        m.parts = parts;
        m.nparts = 2;
        struct parsed p;
        format_ok(&m, &p);
        expect_header(&p, "MIME-Version", "1.0");
        char *ct = header(p.msg, p.headlen, "Content-Type");
        assert_non_null(ct);
        const char *bq = strstr(ct, "boundary=\"");
        assert_non_null(bq);
        assert_int_equal(strncmp(ct, "multipart/mixed;", 16), 0);
        char bd[100];
        const char *bend = strchr(bq + 10, '"');
        assert_non_null(bend);
        snprintf(bd, sizeof bd, "\r\n--%.*s", (int)(bend - bq - 10), bq + 10);
        free(ct);

        /* Split the body at the delimiters: preamble, 3 parts, the close. */
        const char *sec[5];
        size_t nsec = 0;
        const char *q = p.body;
        while ((q = strstr(q, bd)) != NULL && nsec < 5) {
            sec[nsec++] = q + strlen(bd);
            q += strlen(bd);
        }
        assert_int_equal(nsec, 4);
        assert_int_equal(strncmp(sec[3], "--\r\n", 4), 0);
        for (int k = 0; k < 3; k++) {
            assert_int_equal(strncmp(sec[k], "\r\n", 2), 0);
            const char *ph = sec[k] + 2;
            const char *pb = strstr(ph, "\r\n\r\n");
            assert_non_null(pb);
            size_t phlen = (size_t)(pb - ph) + 2;
            pb += 4;
            size_t pblen = (size_t)(sec[k + 1] - strlen(bd) - pb);
            size_t n;
            if (k == 0) {
                char *v = header(ph, phlen, "Content-Type");
                assert_string_equal(v, "text/plain; charset=utf-8");
                free(v);
                char *t = qp_decode(pb, pblen, &n);
                assert_string_equal(t, text);
                free(t);
                continue;
            }
            const struct wrd_mail_part *part = &parts[k - 1];
            char *v = header(ph, phlen, "Content-Transfer-Encoding");
            assert_string_equal(v, "base64");
            free(v);
            v = header(ph, phlen, "Content-Disposition");
            char want[128];
            snprintf(want, sizeof want, "attachment; filename=\"%s\"", part->filename);
            assert_string_equal(v, want);
            free(v);
            v = header(ph, phlen, "Content-Type");
            assert_int_equal(strncmp(v, part->type, strlen(part->type)), 0);
            free(v);
            unsigned char *d = b64_decode(pb, pblen, &n);
            assert_int_equal(n, part->len);
            if (n > 0)
                assert_memory_equal(d, part->data, n);
            free(d);
        }
        /* The boundary is the content's: the same message, the same bytes;
         * another attachment, another boundary. */
        size_t len2;
        int err;
        char *again = wrd_mail_format(&m, &len2, &err);
        assert_non_null(again);
        assert_int_equal(len2, p.len);
        assert_memory_equal(again, p.msg, p.len);
        free(again);
        data[0] ^= 1;
        parts[1].len = lens[li] > 0 ? lens[li] : 1;
        char *other = wrd_mail_format(&m, &len2, &err);
        assert_non_null(other);
        assert_null(strstr(other, bd));
        free(other);
        free(p.msg);
        free(data);
    }
}

static void test_refused(void **state)
{
    (void)state;
    struct {
        const char *field;
        const char *value;
        int err;
    } rows[] = {
        /* 0 */ { "subject", "Hi\r\nBcc: victim@example.org", WRD_MAIL_EINVAL },
        /* 1 */ { "subject", "Hi\nBcc: victim@example.org", WRD_MAIL_EINVAL },
        /* 2 */ { "subject", "Hi\rthere", WRD_MAIL_EINVAL },
        /* 3 */ { "to", "player@example.net\r\nBcc: victim@example.org", WRD_MAIL_EINVAL },
        /* 4 */ { "reply_to", "a@b\nBcc: victim@example.org", WRD_MAIL_EINVAL },
        /* 5 */ { "from", "a@b\r\nX: y", WRD_MAIL_EINVAL },
        /* 6 */ { "message_id", "x@y\r\nBcc: v@w", WRD_MAIL_EINVAL },
        /* 7 */ { "in_reply_to", "x@y\nBcc: v@w", WRD_MAIL_EINVAL },
        /* 8 */ { "to", "a b@c", WRD_MAIL_EBADADDR },
        /* 9 */ { "reply_to", "<a@b>", WRD_MAIL_EBADADDR },
        /* 10 */ { "from", "a@b,c@d", WRD_MAIL_EBADADDR },
        /* 11 */ { "subject", "tab\there", WRD_MAIL_EINVAL },
        /* 12 */ { "subject", "bad utf-8 \xc3", WRD_MAIL_EINVAL },
        /* 13 */ { "message_id", "<x@y>", WRD_MAIL_EINVAL },
        /* 14 */ { "message_id", "no-at-sign", WRD_MAIL_EINVAL },
        /* 15 */ { "to", NULL, WRD_MAIL_EINVAL },
        /* 16 */ { "subject", NULL, WRD_MAIL_EINVAL },
        /* 17 */ { "text", NULL, WRD_MAIL_EINVAL },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct wrd_mail_msg m = base_msg("x\n");
        const char **f = strcmp(rows[i].field, "subject") == 0      ? &m.subject
                         : strcmp(rows[i].field, "to") == 0         ? &m.to
                         : strcmp(rows[i].field, "reply_to") == 0   ? &m.reply_to
                         : strcmp(rows[i].field, "from") == 0       ? &m.from
                         : strcmp(rows[i].field, "message_id") == 0 ? &m.message_id
                         : strcmp(rows[i].field, "text") == 0       ? &m.text
                                                                    : &m.in_reply_to;
        *f = rows[i].value;
        size_t len = 77;
        int err = 0;
        char *msg = wrd_mail_format(&m, &len, &err);
        if (msg != NULL || err != rows[i].err)
            fail_msg("row %zu: got %s, err %s", i, msg ? "a message" : "NULL",
                     wrd_mail_err_code(err));
    }
    /* Attachments: a type or a name that would break its header. */
    struct wrd_mail_part bad[] = {
        { "image/svg+xml\r\nX: y", "a.svg", "x", 1 },
        { "image/svg+xml", "a\".svg", "x", 1 },
        { "image", "a.svg", "x", 1 },
        { "image/svg+xml", "a/../b.svg", "x", 1 },
        { NULL, "a.svg", "x", 1 },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct wrd_mail_msg m = base_msg("x\n");
        m.parts = &bad[i];
        m.nparts = 1;
        int err = 0;
        assert_null(wrd_mail_format(&m, NULL, &err));
        assert_int_equal(err, WRD_MAIL_EINVAL);
    }
    /* Too big: more text than a message may hold. */
    size_t big = WRD_MAIL_MAX_MESSAGE + 1;
    char *text = malloc(big + 1);
    memset(text, 'a', big);
    text[big] = '\0';
    struct wrd_mail_msg m = base_msg(text);
    int err = 0;
    assert_null(wrd_mail_format(&m, NULL, &err));
    assert_int_equal(err, WRD_MAIL_ETOOBIG);
    /* Text that fits before encoding but not after (every byte escaped). */
    memset(text, '=', WRD_MAIL_MAX_MESSAGE / 2);
    text[WRD_MAIL_MAX_MESSAGE / 2] = '\0';
    m = base_msg(text);
    assert_null(wrd_mail_format(&m, NULL, &err));
    assert_int_equal(err, WRD_MAIL_ETOOBIG);
    free(text);
}

static void test_same_input_same_bytes(void **state)
{
    (void)state;
    struct wrd_mail_msg m = base_msg("The same words.\n");
    size_t l1, l2;
    int err;
    char *a = wrd_mail_format(&m, &l1, &err);
    char *b = wrd_mail_format(&m, &l2, &err);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(l1, l2);
    assert_memory_equal(a, b, l1);
    m.date_ms += 1000;
    char *c = wrd_mail_format(&m, &l2, &err);
    assert_non_null(c);
    assert_true(l1 != l2 || memcmp(a, c, l1) != 0);
    free(a);
    free(b);
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_address_table),
        cmocka_unit_test(test_url_table),
        cmocka_unit_test(test_err_codes),
        cmocka_unit_test(test_plain_headers),
        cmocka_unit_test(test_qp_round_trip),
        cmocka_unit_test(test_subject_2047),
        cmocka_unit_test(test_attachments),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_same_input_same_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
