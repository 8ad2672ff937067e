/*
 * test_mailmsg.c - the mail parser of `warroom mail-in` (client-cli/mailmsg.h):
 * replies as the common mailers send them (the files of mail/, written by
 * hand after Gmail, Thunderbird, Apple Mail, Outlook and mutt) give exactly
 * their orders, recipients and Message-ID; small messages try each cut, each
 * encoding and charset; every limit is refused with its sentence, and the
 * message just inside it is read. Numbered rows; a failure names its row.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mailmsg.h"

#ifndef MAIL_DIR
#error "MAIL_DIR: the folder of the .eml fixtures"
#endif

/* lines (or recipients) joined by '|' */
static char *joined(char **v, int n)
{
    size_t len = 1;
    for (int i = 0; i < n; i++)
        len += strlen(v[i]) + 1;
    char *s = calloc(1, len);
    for (int i = 0; i < n; i++) {
        if (i)
            strcat(s, "|");
        strcat(s, v[i]);
    }
    return s;
}

static char *read_fixture(const char *name, size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", MAIL_DIR, name);
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        fail_msg("cannot open %s", path);
    char *buf = malloc(WRC_MAIL_MAX_BYTES + 2);
    *len = fread(buf, 1, WRC_MAIL_MAX_BYTES + 2, f);
    fclose(f);
    return buf;
}

/* Check m (parsed with rc and err) against the row's expectations: lines,
 * recipients, id, subject (NULL: not checked), or an error fragment. */
static void expect(int row, const char *what, int rc, const char *err, struct wrc_mailmsg *m,
                   const char *lines, const char *to, const char *id, const char *subject,
                   const char *errfrag)
{
    if (errfrag) {
        if (rc == 0)
            fail_msg("row %d (%s): parsed, want the error \"%s\"", row, what, errfrag);
        if (strstr(err, errfrag) == NULL)
            fail_msg("row %d (%s): error \"%s\", want \"%s\"", row, what, err, errfrag);
        if (m->lines || m->to || m->message_id || m->nlines || m->nto)
            fail_msg("row %d (%s): a refused message left something in *out", row, what);
        return;
    }
    if (rc != 0)
        fail_msg("row %d (%s): refused: %s", row, what, err);
    char *l = joined(m->lines, m->nlines), *t = joined(m->to, m->nto);
    if (lines && strcmp(l, lines) != 0)
        fail_msg("row %d (%s): lines\n  \"%s\"\nwant\n  \"%s\"", row, what, l, lines);
    if (to && strcmp(t, to) != 0)
        fail_msg("row %d (%s): recipients\n  \"%s\"\nwant\n  \"%s\"", row, what, t, to);
    free(l);
    free(t);
    if (id && strcmp(m->message_id ? m->message_id : "(none)", id) != 0)
        fail_msg("row %d (%s): Message-ID \"%s\", want \"%s\"", row, what,
                 m->message_id ? m->message_id : "(none)", id);
    if (subject && strcmp(m->subject ? m->subject : "(none)", subject) != 0)
        fail_msg("row %d (%s): Subject \"%s\", want \"%s\"", row, what,
                 m->subject ? m->subject : "(none)", subject);
}

/* --- the mailers' replies (the files of mail/) ------------------------------------ */

static void test_fixtures(void **state)
{
    (void)state;
    static const struct {
        const char *file;
        const char *lines;      /* joined by '|' */
        const char *to;
        const char *id;
        const char *subject;
    } rows[] = {
        /* 1: multipart/alternative, quoted-printable with soft breaks, the attribution
         * wrapped over two lines */
        { "gmail-alternative.eml",
          "move fr-jerome J-40 I-40|move fr-foy J-41 I-41|attack fr-jerome fr-foy against "
          "al-picton with a very long order line that Gmail wraps with a soft break",
          "play+g-0123456789ab.1.42.3f9a0c6d1e2b4a5c6d7e@games.example.org",
          "CAH3x+Y9kq0pZrXbW1aVf8=mR2s@mail.gmail.com",
          "Re: Warroom g-0123456789ab: french, your move" },
        /* 2: 8bit UTF-8 format=flowed (a long line wrapped), tabs and blanks trimmed,
         * the signature "-- " */
        { "thunderbird.eml", "move al-picton G-12 G-13|note the Guard will not move before "
          "the Prussians are held at Plancenoit, whatever the cost|end",
          "warroom@games.example.org|"
          "play+g-0123456789ab.0.7.00112233445566778899@games.example.org",
          "5c1e2f7a-91d3-4b8e-a0f2-3d9c61e8b7a4@example.net", NULL },
        /* 3: the attribution quoted ("> On ... wrote:"), us-ascii quoted-printable */
        { "apple-mail.eml", "charge fr-kellermann H-20",
          "play+g-0123456789ab.1.43.0a1b2c3d4e5f60718293@games.example.org",
          "A1B2C3D4-E5F6-4789-9ABC-DEF012345678@icloud.com", NULL },
        /* 4: CRLF, Windows-1252, the "From: ... Sent: ..." block, a recipient twice in
         * two cases (kept once) */
        { "outlook.eml",
          "move pr-bulow P-10 O-10|note \xe2\x80\x9cPlancenoit\xe2\x80\x9d by nightfall "
          "\xe2\x80\x93 Blucher\xe2\x80\x99s promise",
          "play+g-0123456789ab.2.9.ffeeddccbbaa99887766@games.example.org|"
          "gneisenau@outlook.com",
          "AM0PR01MB1234F00D5E6A7B8C9D0E1F2A3B4C5D6E7F8A9@AM0PR01MB1234.eurprd01.prod."
          "exchangelabs.com",
          "RE: Warroom g-0123456789ab: prussian, your move" },
        /* 5: an mbox "From " line first, Envelope-To, a group with no address,
         * -----Original Message----- */
        { "outlook-original.eml", "end",
          "play+g-0123456789ab.2.9.ffeeddccbbaa99887766@games.example.org",
          "old-outlook-1@example.com", NULL },
        /* 6: ISO-8859-1 8bit, a comment after the address, Cc, an RFC 2047 Subject in
         * ISO-8859-1 */
        { "mutt-latin1.eml",
          "move fr-vandamme W-05 W-06|note marche sur Wavre, comme l'Empereur l'a "
          "ordonn\xc3\xa9 \xc3\xa0 midi",
          "play+g-0123456789ab.1.44.5566778899aabbccddee@games.example.org|ney@icloud.com|"
          "grouchy@example.fr",
          "20261201224000.GA12345@example.fr",
          "Re: Warroom g-0123456789ab: french, votre coup \xc3\xa0 Wavre" },
        /* 7: a base64 body (CRLF inside), a Subject of two B-encoded words folded */
        { "base64.eml", "charge al-uxbridge K-07|note Union Brigade \xe2\x80\x94 en avant",
          "play+g-0123456789ab.0.12.aabbccddeeff00112233@games.example.org",
          "b64-0001@example.org",
          "Re: Warroom g-0123456789ab: allied, your move \xe2\x80\x94 charge!" },
        /* 8: HTML only: tags, style, title and comments removed, entities read, blanks
         * collapsed, the blockquote a cut */
        { "html-only.eml",
          "move fr-jerome J-40 I-40|note Hougoumont & the orchard \xe2\x80\x94 again",
          "play+g-0123456789ab.1.50.0123456789abcdef0123@games.example.org",
          "html-only-1@example.com", NULL },
        /* 9: multipart/mixed > alternative, orders with '=' (encoded and not) and
         * non-ASCII, a soft break inside a word, the attachment and epilogue ignored */
        { "equals-nonascii.eml",
          "note odds=3:1 at La Haye Sainte \xe2\x80\x94 tenez bon|note Stra\xc3\x9f" "e nach "
          "Br\xc3\xbcssel, a=b stays|move al-ompteda H-12 H-13",
          "play+g-0123456789ab.0.60.99887766554433221100@games.example.org",
          "eq-1@example.org", NULL },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        size_t len;
        char *raw = read_fixture(rows[i].file, &len);
        struct wrc_mailmsg m;
        char err[300] = "";
        int rc = wrc_mailmsg_parse(raw, len, &m, err, sizeof err);
        expect((int)i + 1, rows[i].file, rc, err, &m, rows[i].lines, rows[i].to, rows[i].id,
               rows[i].subject, NULL);
        wrc_mailmsg_free(&m);
        free(raw);
    }
}

/* --- small messages: each cut, encoding, charset, header form --------------------------- */

#define H "To: play+t@x.org\nContent-Type: text/plain; charset=utf-8\n\n"

static void test_small(void **state)
{
    (void)state;
    static const struct {
        const char *raw;
        const char *lines;      /* joined by '|', or NULL when refused */
        const char *to;         /* or NULL: not checked */
        const char *errfrag;
    } rows[] = {
        /* 1 */ { H "a\n> quoted\nb\n", "a", "play+t@x.org", NULL },
        /* 2 */ { H "a\n-- \nsig\n", "a", NULL, NULL },
        /* 3 */ { H "a\n--\nsig\n", "a", NULL, NULL },
        /* 4 */ { H "a\n---\nb\n", "a|---|b", NULL, NULL },
        /* 5 */ { H "a\nFrom: not a cut without an empty line before\n",
                  "a|From: not a cut without an empty line before", NULL, NULL },
        /* 6 */ { H "a\n\nFrom: Warroom\nSent: today\n", "a", NULL, NULL },
        /* 7 */ { H "a\n________________________________\nb\n", "a", NULL, NULL },
        /* 8 */ { H "a\n-----Original Message-----\nb\n", "a", NULL, NULL },
        /* 9: a one-line attribution */
        { H "a\nOn Tue, Warroom wrote:\n> x\n", "a", NULL, NULL },
        /* 10: wrapped: the line before goes too */
        { H "a\nOn Tue, 1 Dec 2026, Warroom <p@x.org>\nwrote:\n", "a", NULL, NULL },
        /* 11: the line before is not an attribution's start: kept */
        { H "On the left\n\nb\nwrote:\n", "On the left|b", NULL, NULL },
        /* 12: empty lines skipped, blanks and U+00A0 trimmed, a tab inside a blank */
        { H "\n\n  a\tb  \n\xc2\xa0" "c\xc2\xa0\n\n", "a b|c", NULL, NULL },
        /* 13: nothing but quoted text: no lines, not an error */
        { H "> x\n", "", NULL, NULL },
        /* 14: bad UTF-8 replaced */
        { H "a\xff" "b\xc0\xaf\n", "a\xef\xbf\xbd" "b\xef\xbf\xbd\xef\xbf\xbd", NULL, NULL },
        /* 15: Windows-1252: an undefined byte is U+FFFD */
        { "To: a@b\nContent-Type: text/plain; charset=cp1252\n\n\x80 \x81\n",
          "\xe2\x82\xac \xef\xbf\xbd", NULL, NULL },
        /* 16: an unknown charset is read as UTF-8 */
        { "To: a@b\nContent-Type: text/plain; charset=koi8-r\n\nok \xc3\xa9\n",
          "ok \xc3\xa9", NULL, NULL },
        /* 17: no Content-Type: text/plain, us-ascii */
        { "To: a@b\n\nend\n", "end", "a@b", NULL },
        /* 18: folded headers, names in any case, display names, comments, groups */
        { "tO: \"Doe, J\" <j@x.org>,\n (c) k@x.org (Kay),\n team: l@x.org, m@x.org;\n"
          "DELIVERED-TO: d@x.org\nCc: J@X.ORG\n\nend\n",
          "end", "d@x.org|j@x.org|k@x.org|l@x.org|m@x.org", NULL },
        /* 19: addresses without '@' left out, a quoted display name dropped */
        { "To: nobody, <x>, \"a@b\" <c@d>\n\nend\n", "end", "c@d", NULL },
        /* 20: a NUL and a lone CR inside a line are blanks */
        { "To: a@b\n\na\rb\n", "a b", NULL, NULL },
        /* 21: a Message-ID without brackets (checked below, row 35) */
        { "To: a@b\nMessage-ID: plain-id@x\n\nend\n", "end", NULL, NULL },
        /* 22: quoted-printable: '=' not before hex kept, =20 and soft breaks */
        { "To: a@b\nContent-Transfer-Encoding: Quoted-Printable\n\nx=3Dy =zz lo=\nng=20\n",
          "x=y =zz long", NULL, NULL },
        /* 23: a text/plain attachment is passed over for the HTML */
        { "To: a@b\nContent-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/html"
          "\n\n<p>go</p>\n--b\nContent-Type: text/plain\nContent-Disposition: attachment; "
          "filename=x.txt\n\nnot this\n--b--\n", "go", NULL, NULL },
        /* 24: no closing delimiter: the last part runs to the end */
        { "To: a@b\nContent-Type: multipart/alternative; boundary=\"q r\"\n\npreamble\n--q r"
          "\n\nfirst\n", "first", NULL, NULL },
        /* 25: a boundary followed by blanks (RFC 2046's transport padding) */
        { "To: a@b\nContent-Type: multipart/alternative; boundary=zz\n\n--zz  \n\nz\n--zz--"
          "\n", "z", NULL, NULL },
        /* 26: format=flowed; delsp=yes: the soft break's space dropped; a quoted line
         * and the signature separator are never joined */
        { "To: a@b\nContent-Type: text/plain; format=flowed; delsp=yes\n\nlo \nng \n"
          "-- \nsig\n", "long", NULL, NULL },
        /* 27 */ { "To: a@b\nContent-Type: text/plain; format=flowed\n\na \n> b\n", "a", NULL,
                   NULL },
        /* 28: without format=flowed a trailing blank breaks nothing */
        { "To: a@b\n\nlo \nng\n", "lo|ng", NULL, NULL },
        /* refused */
        /* 29 */ { "", NULL, NULL, "not a mail message" },
        /* 30 */ { "hello world\nthis is no mail\n", NULL, NULL, "not a mail message" },
        /* 31 */ { "To: a@b\nContent-Type: multipart/mixed\n\nx\n", NULL, NULL,
                   "has no boundary" },
        /* 32 */ { "To: a@b\nContent-Transfer-Encoding: x-uuencode\n\nx\n", NULL, NULL,
                   "transfer encoding 'x-uuencode'" },
        /* 33 */ { "To: a@b\nContent-Type: image/png\n\nx\n", NULL, NULL, "no text part" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct wrc_mailmsg m;
        char err[300] = "";
        size_t len = strlen(rows[i].raw);
        int rc = wrc_mailmsg_parse(rows[i].raw, len, &m, err, sizeof err);
        char what[32];
        snprintf(what, sizeof what, "small %zu", i + 1);
        expect((int)i + 1, what, rc, err, &m, rows[i].lines, rows[i].to, NULL, NULL,
               rows[i].errfrag);
        wrc_mailmsg_free(&m);
    }
    /* A NUL inside a line (the rows above are C strings). */
    static const char nul[] = "To: a@b\n\na\0b\n";
    struct wrc_mailmsg m;
    char err[300] = "";
    int rc = wrc_mailmsg_parse(nul, sizeof nul - 1, &m, err, sizeof err);
    expect(34, "a NUL", rc, err, &m, "a b", "a@b", "(none)", "(none)", NULL);
    wrc_mailmsg_free(&m);
    /* The Message-ID of row 21. */
    rc = wrc_mailmsg_parse(rows[20].raw, strlen(rows[20].raw), &m, err, sizeof err);
    expect(35, "a bare Message-ID", rc, err, &m, "end", NULL, "plain-id@x", NULL, NULL);
    wrc_mailmsg_free(&m);
}

/* --- limits: each refused, the message just inside it read ------------------------------- */

struct gen {
    char *s;
    size_t len, cap;
};

static void put(struct gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct gen *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (g->len + (size_t)n + 1 > g->cap) {
        g->cap = (g->len + (size_t)n + 1) * 2;
        g->s = realloc(g->s, g->cap);
    }
    va_start(ap, fmt);
    vsnprintf(g->s + g->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    g->len += (size_t)n;
}

/* n order lines */
static void gen_lines(struct gen *g, int n)
{
    put(g, "To: a@b\n\n");
    for (int i = 0; i < n; i++)
        put(g, "end %d\n", i);
    put(g, "> quoted lines are not counted\n> x\n");
}

/* a line of n bytes ('e' then 'é's when n is odd: bytes, not characters) */
static void gen_long(struct gen *g, int n)
{
    put(g, "To: a@b\nContent-Type: text/plain; charset=utf-8\n\nend\n");
    put(g, "%s", n % 2 ? "e" : "");
    for (int i = 0; i < n / 2; i++)
        put(g, "\xc3\xa9");
    put(g, "\n");
}

/* n multiparts, each in the one before, the text in the last */
static void gen_nested(struct gen *g, int n)
{
    put(g, "To: a@b\nContent-Type: multipart/mixed; boundary=b0\n\n");
    for (int i = 1; i < n; i++)
        put(g, "--b%d\nContent-Type: multipart/alternative; boundary=b%d\n\n", i - 1, i);
    put(g, "--b%d\nContent-Type: text/plain\n\ndeep\n", n - 1);
    for (int i = n - 1; i >= 0; i--)
        put(g, "--b%d--\n", i);
}

/* n parts in one multipart */
static void gen_parts(struct gen *g, int n)
{
    put(g, "To: a@b\nContent-Type: multipart/mixed; boundary=p\n\n");
    for (int i = 0; i < n; i++)
        put(g, "--p\nContent-Type: %s\n\npart\n", i == 0 ? "text/plain" : "image/png");
    put(g, "--p--\n");
}

/* a message of exactly n bytes: one order, then quoted text */
static void gen_size(struct gen *g, int n)
{
    put(g, "To: a@b\n\nend\n");
    while (g->len + 80 < (size_t)n)
        put(g, "> %076d\n", 0);
    while (g->len + 1 < (size_t)n)
        put(g, ">");
    put(g, "\n");
}

/* a Message-ID of n bytes */
static void gen_id(struct gen *g, int n)
{
    put(g, "To: a@b\nMessage-ID: <");
    for (int i = 0; i < n - 2; i++)
        put(g, "i");
    put(g, "@x>\n\nend\n");
}

/* n distinct recipients */
static void gen_rcpts(struct gen *g, int n)
{
    put(g, "To: ");
    for (int i = 0; i < n; i++)
        put(g, "%sp%d@x.org", i ? ", " : "", i);
    put(g, "\n\nend\n");
}

static void test_limits(void **state)
{
    (void)state;
    static const struct {
        void (*gen)(struct gen *g, int n);
        int n;
        const char *errfrag;    /* NULL: read */
        int nlines, nto;        /* when read */
    } rows[] = {
        /* 1 */ { gen_lines, WRC_MAIL_MAX_LINES, NULL, WRC_MAIL_MAX_LINES, 1 },
        /* 2 */ { gen_lines, WRC_MAIL_MAX_LINES + 1, "more than 100 lines", 0, 0 },
        /* 3 */ { gen_long, WRC_MAIL_MAX_LINE, NULL, 2, 1 },
        /* 4 */ { gen_long, WRC_MAIL_MAX_LINE + 1, "line 2 of the reply is longer than 1024 "
                  "bytes (1025)", 0, 0 },
        /* 5 */ { gen_nested, WRC_MAIL_MAX_DEPTH, NULL, 1, 1 },
        /* 6 */ { gen_nested, WRC_MAIL_MAX_DEPTH + 1, "nested more than 5 deep", 0, 0 },
        /* 7 */ { gen_parts, WRC_MAIL_MAX_PARTS, NULL, 1, 1 },
        /* 8 */ { gen_parts, WRC_MAIL_MAX_PARTS + 1, "more than 64 MIME parts", 0, 0 },
        /* 9 */ { gen_size, WRC_MAIL_MAX_BYTES, NULL, 1, 1 },
        /* 10 */ { gen_size, WRC_MAIL_MAX_BYTES + 1, "larger than 1048576 bytes (1 MiB)", 0, 0 },
        /* 11 */ { gen_id, WRC_MAIL_MAX_ID, NULL, 1, 1 },
        /* 12 */ { gen_id, WRC_MAIL_MAX_ID + 1, "Message-ID is longer than 998 bytes", 0, 0 },
        /* 13: past 16 recipients, the first 16 are kept */
        { gen_rcpts, WRC_MAIL_MAX_TO + 4, NULL, 1, WRC_MAIL_MAX_TO },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct gen g = { NULL, 0, 0 };
        rows[i].gen(&g, rows[i].n);
        if (rows[i].gen == gen_size && g.len != (size_t)rows[i].n)
            fail_msg("row %zu: made %zu bytes, not %d", i + 1, g.len, rows[i].n);
        struct wrc_mailmsg m;
        char err[300] = "";
        int rc = wrc_mailmsg_parse(g.s, g.len, &m, err, sizeof err);
        char what[32];
        snprintf(what, sizeof what, "limit %zu", i + 1);
        expect((int)i + 1, what, rc, err, &m, NULL, NULL, NULL, NULL, rows[i].errfrag);
        if (rows[i].errfrag == NULL && (m.nlines != rows[i].nlines || m.nto != rows[i].nto))
            fail_msg("row %zu: %d lines and %d recipients, want %d and %d", i + 1, m.nlines,
                     m.nto, rows[i].nlines, rows[i].nto);
        if (rows[i].gen == gen_rcpts && (strcmp(m.to[0], "p0@x.org") != 0 ||
                                         strcmp(m.to[WRC_MAIL_MAX_TO - 1], "p15@x.org") != 0))
            fail_msg("row %zu: kept %s .. %s, want the first 16", i + 1, m.to[0],
                     m.to[WRC_MAIL_MAX_TO - 1]);
        if (rows[i].gen == gen_long && rc == 0 && strlen(m.lines[1]) != (size_t)rows[i].n)
            fail_msg("row %zu: the long line has %zu bytes", i + 1, strlen(m.lines[1]));
        wrc_mailmsg_free(&m);
        free(g.s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixtures),
        cmocka_unit_test(test_small),
        cmocka_unit_test(test_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
