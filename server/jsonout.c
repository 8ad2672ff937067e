/*
 * jsonout.c - compact JSON text, fast (see jsonout.h).
 */
#include "jsonout.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 512

void wrd_buf_init(struct wrd_buf *b, char *stack, size_t cap)
{
    b->s = stack;
    b->cap = stack ? cap : 0;
    b->len = 0;
    b->heap = 0;
    b->failed = 0;
}

void wrd_buf_release(struct wrd_buf *b)
{
    if (b->heap)
        free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
    b->heap = 0;
}

/* Room for n more bytes; 0, or -1 (and failed) when out of memory. */
static int reserve(struct wrd_buf *b, size_t n)
{
    if (b->failed)
        return -1;
    if (b->len + n <= b->cap)
        return 0;
    size_t cap = b->cap ? 2 * b->cap : 256;
    while (cap < b->len + n)
        cap *= 2;
    char *s = b->heap ? realloc(b->s, cap) : malloc(cap);
    if (s == NULL) {
        b->failed = 1;
        return -1;
    }
    if (!b->heap && b->len)
        memcpy(s, b->s, b->len);
    b->s = s;
    b->cap = cap;
    b->heap = 1;
    return 0;
}

void wrd_buf_add_grow(struct wrd_buf *b, const char *s, size_t n)
{
    if (reserve(b, n) < 0)
        return;
    memcpy(b->s + b->len, s, n);
    b->len += n;
}

void wrd_buf_lit(struct wrd_buf *b, const char *s)
{
    wrd_buf_add(b, s, strlen(s));
}

void wrd_buf_int(struct wrd_buf *b, long long v)
{
    char tmp[24];
    char *p = tmp + sizeof tmp;
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--p = '-';
    wrd_buf_add(b, p, (size_t)(tmp + sizeof tmp - p));
}

/* jansson's escapes: the quote, the backslash and control characters;
 * everything else (UTF-8 included) as it is. */
void wrd_buf_str(struct wrd_buf *b, const char *s, size_t n)
{
    if (reserve(b, n + 2) < 0)
        return;
    b->s[b->len++] = '"';
    wrd_buf_escaped(b, s, n);
    wrd_buf_add(b, "\"", 1);
}

void wrd_buf_escaped(struct wrd_buf *b, const char *s, size_t n)
{
    static const char hexd[] = "0123456789ABCDEF";   /* jansson writes \u001F */
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        wrd_buf_add(b, s + run, i - run);
        run = i + 1;
        char e[6] = { '\\', 0, 0, 0, 0, 0 };
        size_t el = 2;
        switch (c) {
        case '"': e[1] = '"'; break;
        case '\\': e[1] = '\\'; break;
        case '\b': e[1] = 'b'; break;
        case '\f': e[1] = 'f'; break;
        case '\n': e[1] = 'n'; break;
        case '\r': e[1] = 'r'; break;
        case '\t': e[1] = 't'; break;
        default:
            e[1] = 'u';
            e[2] = '0';
            e[3] = '0';
            e[4] = hexd[c >> 4];
            e[5] = hexd[c & 15];
            el = 6;
        }
        wrd_buf_add(b, e, el);
    }
    wrd_buf_add(b, s + run, n - run);
}

/* A real as jansson writes it: %.17g, always with a '.' or an exponent,
 * the exponent without '+' or leading zeros. */
static void put_real(struct wrd_buf *b, double v)
{
    char t[64];
    int n = snprintf(t, sizeof t - 3, "%.17g", v);
    if (n < 0 || (size_t)n >= sizeof t - 3) {
        b->failed = 1;
        return;
    }
    size_t len = (size_t)n;
    for (size_t i = 0; i < len; i++)
        if (t[i] == ',')
            t[i] = '.';         /* a locale's decimal comma */
    if (strchr(t, '.') == NULL && strchr(t, 'e') == NULL) {
        t[len++] = '.';
        t[len++] = '0';
        t[len] = '\0';
    }
    char *start = strchr(t, 'e');
    if (start) {
        start++;
        char *end = start + 1;
        if (*start == '-')
            start++;
        while (*end == '0')
            end++;
        if (end != start) {
            memmove(start, end, len - (size_t)(end - t) + 1);
            len -= (size_t)(end - start);
        }
    }
    wrd_buf_add(b, t, len);
}

static int put(struct wrd_buf *b, const json_t *j, int depth)
{
    if (depth > MAX_DEPTH) {
        b->failed = 1;
        return -1;
    }
    switch (json_typeof(j)) {
    case JSON_OBJECT: {
        /* The iterator directly (json_object_foreach converts each key
         * back to an iterator): insertion order, as json_dumps. */
        json_t *o = (json_t *)j;
        int first = 1;
        wrd_buf_add(b, "{", 1);
        for (void *it = json_object_iter(o); it; it = json_object_iter_next(o, it)) {
            if (!first)
                wrd_buf_add(b, ",", 1);
            first = 0;
            wrd_buf_str(b, json_object_iter_key(it), json_object_iter_key_len(it));
            wrd_buf_add(b, ":", 1);
            if (put(b, json_object_iter_value(it), depth + 1) < 0)
                return -1;
        }
        wrd_buf_add(b, "}", 1);
        break;
    }
    case JSON_ARRAY: {
        size_t n = json_array_size(j);
        wrd_buf_add(b, "[", 1);
        for (size_t i = 0; i < n; i++) {
            if (i)
                wrd_buf_add(b, ",", 1);
            if (put(b, json_array_get(j, i), depth + 1) < 0)
                return -1;
        }
        wrd_buf_add(b, "]", 1);
        break;
    }
    case JSON_STRING:
        wrd_buf_str(b, json_string_value(j), json_string_length(j));
        break;
    case JSON_INTEGER:
        wrd_buf_int(b, (long long)json_integer_value(j));
        break;
    case JSON_REAL:
        put_real(b, json_real_value(j));
        break;
    case JSON_TRUE:
        wrd_buf_add(b, "true", 4);
        break;
    case JSON_FALSE:
        wrd_buf_add(b, "false", 5);
        break;
    case JSON_NULL:
        wrd_buf_add(b, "null", 4);
        break;
    }
    return b->failed ? -1 : 0;
}

int wrd_buf_json(struct wrd_buf *b, const json_t *j)
{
    if (j == NULL) {
        b->failed = 1;
        return -1;
    }
    return put(b, j, 0);
}

char *wrd_json_text(const json_t *j)
{
    struct wrd_buf b;
    wrd_buf_init(&b, NULL, 0);
    if (wrd_buf_json(&b, j) < 0 || reserve(&b, 1) < 0) {
        wrd_buf_release(&b);
        return NULL;
    }
    b.s[b.len] = '\0';
    return b.s;     /* heap: reserve() always moved it there */
}
