/*
 * strbuf.c - the growable string of strbuf.h.
 */
#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void wr_strbuf_init(struct wr_strbuf *b)
{
    b->s = NULL;
    b->len = 0;
    b->cap = 0;
    b->failed = 0;
}

void wr_strbuf_release(struct wr_strbuf *b)
{
    free(b->s);
    wr_strbuf_init(b);
}

/* Make room for n more bytes and the NUL. */
static int reserve(struct wr_strbuf *b, size_t n)
{
    if (b->failed)
        return -1;
    if (n > (size_t)-1 / 2 - b->len) {
        b->failed = 1;
        return -1;
    }
    size_t need = b->len + n + 1;
    if (need <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap *= 2;
    char *s = realloc(b->s, cap);
    if (s == NULL) {
        b->failed = 1;
        return -1;
    }
    b->s = s;
    b->cap = cap;
    return 0;
}

int wr_strbuf_add(struct wr_strbuf *b, const char *s, size_t n)
{
    if (reserve(b, n) != 0)
        return -1;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
    return 0;
}

int wr_strbuf_puts(struct wr_strbuf *b, const char *s)
{
    return wr_strbuf_add(b, s, strlen(s));
}

int wr_strbuf_printf(struct wr_strbuf *b, const char *fmt, ...)
{
    if (b->failed)
        return -1;
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = 1;
        return -1;
    }
    if ((size_t)n < sizeof small)
        return wr_strbuf_add(b, small, (size_t)n);
    if (reserve(b, (size_t)n) != 0)
        return -1;
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return 0;
}

int wr_strbuf_xml(struct wr_strbuf *b, const char *s)
{
    for (; *s; s++) {
        const char *rep = NULL;
        switch (*s) {
        case '&': rep = "&amp;"; break;
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        case '"': rep = "&quot;"; break;
        case '\'': rep = "&apos;"; break;
        default: break;
        }
        int rc = rep ? wr_strbuf_puts(b, rep) : wr_strbuf_add(b, s, 1);
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* Bytes of the UTF-8 character starting with byte c. */
static size_t utf8_len(unsigned char c)
{
    return c < 0xC0 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
}

/* Bytes of the ANSI escape sequence at s[0..n) (ESC '[' ... final byte). */
static size_t escape_len(const char *s, size_t n)
{
    size_t i = 2;
    while (i < n && !((unsigned char)s[i] >= 0x40 && (unsigned char)s[i] <= 0x7E))
        i++;
    return i < n ? i + 1 : n;
}

size_t wr_text_cut(const char *s, size_t n, int width)
{
    int w = 0;
    size_t i = 0;
    while (i < n) {
        if (s[i] == '\x1b') {
            i += escape_len(s + i, n - i);
            continue;
        }
        if (w == width)
            break;
        size_t len = utf8_len((unsigned char)s[i]);
        i += len < n - i ? len : n - i;
        w++;
    }
    return i;
}
