/*
 * jscan.c - see jscan.h.
 */
#include "jscan.h"

#include <string.h>

static const char *ws(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

/* p at '"': the byte after the closing quote, or NULL. */
static const char *skip_string(const char *p, const char *e)
{
    for (p++; p < e; p++) {
        if (*p == '\\')
            p++;
        else if (*p == '"')
            return p + 1;
    }
    return NULL;
}

static const char *skip_value(const char *p, const char *e)
{
    if (p >= e)
        return NULL;
    if (*p == '"')
        return skip_string(p, e);
    if (*p == '{' || *p == '[') {
        int depth = 0;
        while (p < e) {
            switch (*p) {
            case '"':
                p = skip_string(p, e);
                if (p == NULL)
                    return NULL;
                continue;
            case '{':
            case '[':
                depth++;
                break;
            case '}':
            case ']':
                if (--depth == 0)
                    return p + 1;
                break;
            }
            p++;
        }
        return NULL;
    }
    while (p < e && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\n')
        p++;
    return p;
}

int wl_js_fields(const char *s, size_t n, const char *const *keys, int nkeys,
                 struct wl_jv *out)
{
    const char *p = s, *e = s + n;
    for (int i = 0; i < nkeys; i++)
        out[i].p = NULL, out[i].n = 0;
    p = ws(p, e);
    if (p >= e || *p != '{')
        return -1;
    p = ws(p + 1, e);
    if (p < e && *p == '}')
        return 0;
    while (p < e) {
        if (*p != '"')
            return -1;
        const char *k = p + 1, *kend = skip_string(p, e);
        if (kend == NULL)
            return -1;
        size_t klen = (size_t)(kend - 1 - k);
        p = ws(kend, e);
        if (p >= e || *p != ':')
            return -1;
        p = ws(p + 1, e);
        const char *v = p, *vend = skip_value(p, e);
        if (vend == NULL)
            return -1;
        for (int i = 0; i < nkeys; i++)
            if (out[i].p == NULL && strlen(keys[i]) == klen && memcmp(keys[i], k, klen) == 0) {
                out[i].p = v;
                out[i].n = (size_t)(vend - v);
                break;
            }
        p = ws(vend, e);
        if (p < e && *p == ',') {
            p = ws(p + 1, e);
            continue;
        }
        if (p < e && *p == '}')
            return 0;
        return -1;
    }
    return -1;
}

int wl_jv_int(struct wl_jv v, int64_t *out)
{
    if (v.p == NULL || v.n == 0)
        return -1;
    size_t i = 0;
    int neg = 0;
    if (v.p[0] == '-') {
        neg = 1;
        i = 1;
    }
    if (i >= v.n)
        return -1;
    int64_t x = 0;
    for (; i < v.n; i++) {
        if (v.p[i] < '0' || v.p[i] > '9')
            return -1;
        x = x * 10 + (v.p[i] - '0');
    }
    *out = neg ? -x : x;
    return 0;
}

int wl_jv_str(struct wl_jv v, char *buf, size_t cap)
{
    if (v.p == NULL || v.n < 2 || v.p[0] != '"' || v.p[v.n - 1] != '"' || v.n - 2 >= cap ||
        memchr(v.p, '\\', v.n) != NULL)
        return -1;
    memcpy(buf, v.p + 1, v.n - 2);
    buf[v.n - 2] = '\0';
    return 0;
}

int wl_jv_streq(struct wl_jv v, const char *s)
{
    size_t n = strlen(s);
    return v.p != NULL && v.n == n + 2 && v.p[0] == '"' && memcmp(v.p + 1, s, n) == 0;
}
