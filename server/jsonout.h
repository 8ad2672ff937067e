/*
 * jsonout.h - compact JSON text, fast: a growing byte buffer and a writer
 * of jansson values into it.
 *
 * jansson 2.14's json_dumps() spends 15,000 to 25,000 instructions on a
 * 200-byte message: for every object and array it formats the value's
 * address with snprintf() into a hash table of parents, to detect reference
 * loops. warroomd serialises every message it sends and several texts per
 * command, so that alone was a third of its user time under load. This
 * writer produces exactly the text of json_dumps(j, JSON_COMPACT) (objects
 * in insertion order, the same escapes, the same numbers; test_jsonout
 * checks it byte for byte) for the values the server builds, which hold no
 * loops.
 */
#ifndef WRD_JSONOUT_H
#define WRD_JSONOUT_H

#include <stddef.h>
#include <string.h>

struct json_t;

/* A byte buffer that starts in caller memory (often the stack) and moves
 * to the heap when it outgrows it. Not NUL-terminated. */
struct wrd_buf {
    char *s;
    size_t len, cap;
    int heap;                   /* s is malloc'd */
    int failed;                 /* an allocation failed: the text is incomplete */
};

/* Start empty in stack[0..cap) (stack may be NULL with cap 0). */
void wrd_buf_init(struct wrd_buf *b, char *stack, size_t cap);
/* Free the heap part, if any. */
void wrd_buf_release(struct wrd_buf *b);

/* s[0..n) copied as is. Inline for the common case (room left: a message
 * is written a few bytes at a time, hundreds of times per command); the
 * rest, growing the buffer, is wrd_buf_add_grow's. */
void wrd_buf_add_grow(struct wrd_buf *b, const char *s, size_t n);
static inline void wrd_buf_add(struct wrd_buf *b, const char *s, size_t n)
{
    if (!b->failed && n <= b->cap - b->len) {
        memcpy(b->s + b->len, s, n);
        b->len += n;
    } else {
        wrd_buf_add_grow(b, s, n);
    }
}
/* A NUL-terminated piece of JSON syntax, copied as is. */
void wrd_buf_lit(struct wrd_buf *b, const char *s);
void wrd_buf_int(struct wrd_buf *b, long long v);
/* s[0..n) as a quoted JSON string (valid UTF-8 expected, as in json_t). */
void wrd_buf_str(struct wrd_buf *b, const char *s, size_t n);
/* The same without the quotes: what goes between them. */
void wrd_buf_escaped(struct wrd_buf *b, const char *s, size_t n);
/* j (borrowed) as compact JSON; -1 for a value nested too deeply. */
int wrd_buf_json(struct wrd_buf *b, const struct json_t *j);

/* j as compact JSON text, NUL-terminated, malloc'd (caller frees): the
 * drop-in for json_dumps(j, JSON_COMPACT). NULL on failure. */
char *wrd_json_text(const struct json_t *j);

#endif
