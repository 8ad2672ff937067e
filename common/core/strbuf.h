/*
 * strbuf.h - a growable string that drawing code writes into, so that the
 * code that makes a picture does no I/O: the caller decides where the bytes
 * go (a file, stdout, a test's assertions).
 *
 * An allocation failure is remembered (failed = 1) and later appends are
 * ignored, so a writer may append freely and check once at the end.
 */
#ifndef WR_STRBUF_H
#define WR_STRBUF_H

#include <stddef.h>

struct wr_strbuf {
    char *s;            /* NUL-terminated when len > 0 or after any append; owned */
    size_t len;         /* bytes written, not counting the NUL */
    size_t cap;         /* bytes allocated */
    int failed;         /* an allocation failed: the contents are incomplete */
};

/* Empty buffer; allocates nothing. */
void wr_strbuf_init(struct wr_strbuf *b);

/* Free the contents; the buffer is empty (and usable) again. */
void wr_strbuf_release(struct wr_strbuf *b);

/* Append n bytes / a NUL-terminated string / printf output. Return 0, or
 * -1 when memory ran out (b->failed is then set). */
int wr_strbuf_add(struct wr_strbuf *b, const char *s, size_t n);
int wr_strbuf_puts(struct wr_strbuf *b, const char *s);
int wr_strbuf_printf(struct wr_strbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Append s with the five XML special characters escaped. */
int wr_strbuf_xml(struct wr_strbuf *b, const char *s);

/* Terminal text: the bytes of s[0..n) that take at most width characters
 * on screen. A UTF-8 character counts one, a tab one, an ANSI escape
 * sequence (ESC '[' ... final byte) none; the escapes right after the cut
 * are left out. */
size_t wr_text_cut(const char *s, size_t n, int width);

#endif
