/*
 * jsonpatch.c - RFC 6902 patches between jansson values: the diff that
 * builds them and the applier that checks and applies them.
 *
 * Pointers are handled with explicit lengths throughout (a key may hold a
 * NUL byte when a program put it there with json_object_setn()). The
 * applier works on a deep copy and walks pointers iteratively; the diff
 * recurses once per level of the documents, which jansson's parser bounds
 * (JSON_PARSER_MAX_DEPTH).
 */
#include "jsonpatch.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- the error table ------------------------------------------------------ */

const char *wr_jsonpatch_err_code(int err)
{
    switch (err) {
    case WR_JSONPATCH_OK:
        return "ok";
#define WR_JSONPATCH_ERR_CODE(id, value, code, text) \
    case value:                                      \
        return code;
        WR_JSONPATCH_ERR_MAP(WR_JSONPATCH_ERR_CODE)
#undef WR_JSONPATCH_ERR_CODE
    default:
        return "unknown";
    }
}

const char *wr_jsonpatch_err_text(int err)
{
    switch (err) {
    case WR_JSONPATCH_OK:
        return "success";
#define WR_JSONPATCH_ERR_TEXT(id, value, code, text) \
    case value:                                      \
        return text;
        WR_JSONPATCH_ERR_MAP(WR_JSONPATCH_ERR_TEXT)
#undef WR_JSONPATCH_ERR_TEXT
    default:
        return "unknown error";
    }
}

/* --- JSON pointers ---------------------------------------------------------- */

size_t wr_jsonpointer_escape(const char *key, size_t len, char *buf, size_t size)
{
    size_t out = 0;
    for (size_t i = 0; i < len; i++) {
        const char *rep = key[i] == '~' ? "~0" : key[i] == '/' ? "~1" : NULL;
        size_t n = rep ? 2 : 1;
        for (size_t j = 0; j < n; j++, out++)
            if (out + 1 < size)
                buf[out] = rep ? rep[j] : key[i];
    }
    if (size > 0)
        buf[out < size ? out : size - 1] = '\0';
    return out;
}

/* 0 when p (n bytes) is a well-formed pointer: empty, or starting with '/'
 * with every '~' followed by '0' or '1'. */
static int pointer_check(const char *p, size_t n)
{
    if (n == 0)
        return 0;
    if (p[0] != '/')
        return WR_JSONPATCH_EPOINTER;
    for (size_t i = 0; i < n; i++)
        if (p[i] == '~' && (i + 1 == n || (p[i + 1] != '0' && p[i + 1] != '1')))
            return WR_JSONPATCH_EPOINTER;
    return 0;
}

/* A reusable buffer for one unescaped token. */
struct token {
    char *s;
    size_t len, cap;
};

/* Unescape the raw token raw[0..n) (no '/' in it, escapes checked) into t. */
static int token_set(struct token *t, const char *raw, size_t n)
{
    if (n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 32;
        while (cap < n + 1)
            cap *= 2;
        char *s = realloc(t->s, cap);
        if (s == NULL)
            return WR_JSONPATCH_ENOMEM;
        t->s = s;
        t->cap = cap;
    }
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (raw[i] == '~') {
            t->s[o++] = raw[i + 1] == '0' ? '~' : '/';
            i++;
        } else {
            t->s[o++] = raw[i];
        }
    }
    t->s[o] = '\0';
    t->len = o;
    return 0;
}

/* Parse an array index: decimal digits, no leading zero unless "0". */
static int index_parse(const struct token *t, size_t *out)
{
    if (t->len == 0 || t->len > 18 || (t->s[0] == '0' && t->len > 1))
        return WR_JSONPATCH_EINDEX;
    size_t v = 0;
    for (size_t i = 0; i < t->len; i++) {
        if (t->s[i] < '0' || t->s[i] > '9')
            return WR_JSONPATCH_EINDEX;
        v = v * 10 + (size_t)(t->s[i] - '0');
    }
    *out = v;
    return 0;
}

static int token_is_dash(const struct token *t)
{
    return t->len == 1 && t->s[0] == '-';
}

/* The child of cur named by t, or an error (nothing there). */
static int child_get(json_t *cur, const struct token *t, json_t **out)
{
    *out = NULL;
    if (json_is_object(cur)) {
        *out = json_object_getn(cur, t->s, t->len);
        return *out ? 0 : WR_JSONPATCH_ENOTFOUND;
    }
    if (json_is_array(cur)) {
        size_t i;
        if (index_parse(t, &i) != 0 || i >= json_array_size(cur))
            return WR_JSONPATCH_EINDEX;
        *out = json_array_get(cur, i);
        return 0;
    }
    return WR_JSONPATCH_ENOTFOUND;
}

/* Walk p (n > 0 bytes, checked) from root down to the parent of its last
 * token; leave that token unescaped in t. */
static int walk_to_parent(json_t *root, const char *p, size_t n, struct token *t,
                          json_t **parent)
{
    json_t *cur = root;
    size_t pos = 0;     /* at a '/' */
    for (;;) {
        size_t end = pos + 1;
        while (end < n && p[end] != '/')
            end++;
        int rc = token_set(t, p + pos + 1, end - pos - 1);
        if (rc != 0)
            return rc;
        if (end == n) {
            *parent = cur;
            return 0;
        }
        rc = child_get(cur, t, &cur);
        if (rc != 0)
            return rc;
        pos = end;
    }
}

/* Resolve p (n bytes, checked) to the value there, borrowed. */
static int walk(json_t *root, const char *p, size_t n, struct token *t, json_t **out)
{
    *out = NULL;
    if (n == 0) {
        *out = root;
        return 0;
    }
    json_t *parent;
    int rc = walk_to_parent(root, p, n, t, &parent);
    return rc != 0 ? rc : child_get(parent, t, out);
}

int wr_jsonpointer_getn(const json_t *doc, const char *ptr, size_t len, json_t **out)
{
    if (out != NULL)
        *out = NULL;
    if (doc == NULL || ptr == NULL || out == NULL)
        return WR_JSONPATCH_EINVAL;
    int rc = pointer_check(ptr, len);
    if (rc != 0)
        return rc;
    struct token t = { NULL, 0, 0 };
    /* The walk only reads; the cast lets one walker serve apply and get. */
    rc = walk((json_t *)doc, ptr, len, &t, out);
    free(t.s);
    return rc;
}

int wr_jsonpointer_get(const json_t *doc, const char *ptr, json_t **out)
{
    if (ptr == NULL) {
        if (out != NULL)
            *out = NULL;
        return WR_JSONPATCH_EINVAL;
    }
    return wr_jsonpointer_getn(doc, ptr, strlen(ptr), out);
}

/* --- apply ------------------------------------------------------------------ */

/* Numbers compare by value (RFC 6902 4.6); everything else as json_equal. */
static int value_equal(const json_t *a, const json_t *b)
{
    if (json_is_number(a) && json_is_number(b)) {
        if (json_is_integer(a) && json_is_integer(b))
            return json_integer_value(a) == json_integer_value(b);
        if (json_is_real(a) && json_is_real(b))
            return json_real_value(a) == json_real_value(b);
        json_int_t i = json_is_integer(a) ? json_integer_value(a) : json_integer_value(b);
        double r = json_is_real(a) ? json_real_value(a) : json_real_value(b);
        /* -2^63 <= r < 2^63, so the conversion is defined. */
        if (!(r >= -9223372036854775808.0 && r < 9223372036854775808.0))
            return 0;
        return (double)(json_int_t)r == r && (json_int_t)r == i;
    }
    if (json_typeof(a) != json_typeof(b))
        return 0;
    if (json_is_array(a)) {
        size_t n = json_array_size(a);
        if (n != json_array_size(b))
            return 0;
        for (size_t i = 0; i < n; i++)
            if (!value_equal(json_array_get(a, i), json_array_get(b, i)))
                return 0;
        return 1;
    }
    if (json_is_object(a)) {
        if (json_object_size(a) != json_object_size(b))
            return 0;
        const char *key;
        size_t klen;
        json_t *va;
        json_object_keylen_foreach((json_t *)a, key, klen, va)
        {
            json_t *vb = json_object_getn(b, key, klen);
            if (vb == NULL || !value_equal(va, vb))
                return 0;
        }
        return 1;
    }
    return json_equal(a, b);
}

enum op_kind { OP_ADD, OP_REMOVE, OP_REPLACE, OP_MOVE, OP_COPY, OP_TEST };

static const struct {
    const char *name;
    int needs_from, needs_value;
} op_table[] = {
    [OP_ADD] = { "add", 0, 1 },         [OP_REMOVE] = { "remove", 0, 0 },
    [OP_REPLACE] = { "replace", 0, 1 }, [OP_MOVE] = { "move", 1, 0 },
    [OP_COPY] = { "copy", 1, 0 },       [OP_TEST] = { "test", 0, 1 },
};

struct apply {
    json_t *root;       /* the working copy; owned */
    struct token t;
    char why[160];      /* the specific reason of a failure */
};

static int fail(struct apply *a, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(struct apply *a, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->why, sizeof a->why, fmt, ap);
    va_end(ap);
    return rc;
}

/* Explain a failed walk of the pointer p (n bytes): the "path" of the
 * operation (already in the message) or its "from" (what is "from").
 * a->t holds the token that failed. */
static int walk_failed(struct apply *a, int rc, const char *what, const char *p, size_t n)
{
    char lead[128] = "";
    int tshown = a->t.len > 40 ? 40 : (int)a->t.len;
    size_t i;
    if (strcmp(what, "path") != 0)
        snprintf(lead, sizeof lead, "%s \"%.*s\": ", what, n > 80 ? 80 : (int)n, p);
    switch (rc) {
    case WR_JSONPATCH_ENOMEM:
        return fail(a, rc, "out of memory");
    case WR_JSONPATCH_EINDEX:
        if (token_is_dash(&a->t))
            return fail(a, rc, "%s\"-\" names no element (only \"add\" may use it)", lead);
        if (index_parse(&a->t, &i) != 0)
            return fail(a, rc, "%s\"%.*s\" is not an array index (digits, no leading zero)",
                        lead, tshown, a->t.s);
        return fail(a, rc, "%sindex %zu is out of range", lead, i);
    default:
        return fail(a, rc, "%snothing named \"%.*s\" there", lead, tshown, a->t.s);
    }
}

/* The compact JSON of v, cut to fit buf (size > 4) and then ending "...". */
static const char *show(const json_t *v, char *buf, size_t size)
{
    /* json_dumpb() writes only the pieces that fit whole, so a cut dump is a
     * prefix followed by bytes it left alone: start from zeros. The dump
     * itself has no NUL byte (it escapes them). */
    memset(buf, 0, size);
    size_t n = json_dumpb(v, buf, size - 1, JSON_COMPACT | JSON_ENCODE_ANY);
    if (n > size - 1) {
        n = strnlen(buf, size - 4);
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n] = '\0';
    return buf;
}

/* Insert value (owned; consumed in all cases) at p, RFC 6902 4.1. */
static int do_add(struct apply *a, const char *p, size_t n, json_t *value)
{
    if (n == 0) {
        json_decref(a->root);
        a->root = value;
        return 0;
    }
    json_t *parent;
    int rc = walk_to_parent(a->root, p, n, &a->t, &parent);
    if (rc != 0) {
        json_decref(value);
        return walk_failed(a, rc, "path", p, n);
    }
    if (json_is_object(parent)) {
        if (json_object_setn_new(parent, a->t.s, a->t.len, value) != 0)
            return fail(a, WR_JSONPATCH_ENOMEM, "cannot set member");
        return 0;
    }
    if (json_is_array(parent)) {
        size_t i, size = json_array_size(parent);
        if (token_is_dash(&a->t))
            i = size;
        else if (index_parse(&a->t, &i) != 0 || i > size) {
            json_decref(value);
            return walk_failed(a, WR_JSONPATCH_EINDEX, "path", p, n);
        }
        if (json_array_insert_new(parent, i, value) != 0)
            return fail(a, WR_JSONPATCH_ENOMEM, "cannot insert into the array");
        return 0;
    }
    json_decref(value);
    return fail(a, WR_JSONPATCH_ENOTFOUND, "the parent is not an object or an array");
}

/* Take the value at p out of the document; *out (when not NULL) gets it as
 * a new reference. */
static int do_remove(struct apply *a, const char *p, size_t n, json_t **out)
{
    if (n == 0)
        return fail(a, WR_JSONPATCH_EROOT, "the whole document cannot be removed");
    json_t *parent, *v;
    int rc = walk_to_parent(a->root, p, n, &a->t, &parent);
    if (rc == 0)
        rc = child_get(parent, &a->t, &v);
    if (rc != 0)
        return walk_failed(a, rc, "path", p, n);
    if (out != NULL)
        *out = json_incref(v);
    if (json_is_object(parent))
        json_object_deln(parent, a->t.s, a->t.len);
    else {
        size_t i = 0;
        index_parse(&a->t, &i);       /* child_get checked it */
        json_array_remove(parent, i);
    }
    return 0;
}

/* Replace the existing value at p by value (owned; consumed). */
static int do_replace(struct apply *a, const char *p, size_t n, json_t *value)
{
    if (n == 0) {
        json_decref(a->root);
        a->root = value;
        return 0;
    }
    json_t *parent, *v;
    int rc = walk_to_parent(a->root, p, n, &a->t, &parent);
    if (rc == 0)
        rc = child_get(parent, &a->t, &v);
    if (rc != 0) {
        json_decref(value);
        return walk_failed(a, rc, "path", p, n);
    }
    if (json_is_object(parent))
        rc = json_object_setn_new(parent, a->t.s, a->t.len, value);
    else {
        size_t i = 0;
        index_parse(&a->t, &i);       /* child_get checked it */
        rc = json_array_set_new(parent, i, value);
    }
    return rc != 0 ? fail(a, WR_JSONPATCH_ENOMEM, "cannot replace the value") : 0;
}

/* A string member of op, or an error naming it. */
static int member_string(struct apply *a, const json_t *op, const char *name, const char **s,
                         size_t *n)
{
    json_t *m = json_object_get(op, name);
    if (m == NULL)
        return fail(a, WR_JSONPATCH_EMEMBER, "member \"%s\" is missing", name);
    if (!json_is_string(m))
        return fail(a, WR_JSONPATCH_EMEMBER, "member \"%s\" is not a string", name);
    *s = json_string_value(m);
    *n = json_string_length(m);
    if (pointer_check(*s, *n) != 0)
        return fail(a, WR_JSONPATCH_EPOINTER,
                    "member \"%s\" \"%.*s\" is not a JSON pointer (it starts with '/' "
                    "and escapes only as ~0 and ~1)",
                    name, *n > 80 ? 80 : (int)*n, *s);
    return 0;
}

static int apply_one(struct apply *a, const json_t *op, const char **opname, const char **path,
                     size_t *pathlen)
{
    if (!json_is_object(op))
        return fail(a, WR_JSONPATCH_ENOTPATCH, "the operation is not an object");
    json_t *o = json_object_get(op, "op");
    if (o == NULL)
        return fail(a, WR_JSONPATCH_EBADOP, "member \"op\" is missing");
    if (!json_is_string(o))
        return fail(a, WR_JSONPATCH_EBADOP, "member \"op\" is not a string");
    size_t k = 0, nk = sizeof op_table / sizeof op_table[0];
    while (k < nk && !(strlen(op_table[k].name) == json_string_length(o) &&
                       strcmp(op_table[k].name, json_string_value(o)) == 0))
        k++;
    if (k == nk)
        return fail(a, WR_JSONPATCH_EBADOP, "unknown operation \"%.20s\"", json_string_value(o));
    *opname = op_table[k].name;

    const char *p, *from = NULL;
    size_t n, nfrom = 0;
    int rc = member_string(a, op, "path", &p, &n);
    if (rc != 0)
        return rc;
    *path = p;
    *pathlen = n;
    if (op_table[k].needs_from && (rc = member_string(a, op, "from", &from, &nfrom)) != 0)
        return rc;
    json_t *value = json_object_get(op, "value");
    if (op_table[k].needs_value && value == NULL)
        return fail(a, WR_JSONPATCH_EMEMBER, "member \"value\" is missing");

    json_t *v;
    switch ((enum op_kind)k) {
    case OP_ADD:
    case OP_REPLACE:
        v = json_deep_copy(value);
        if (v == NULL)
            return fail(a, WR_JSONPATCH_ENOMEM, "out of memory");
        return k == OP_ADD ? do_add(a, p, n, v) : do_replace(a, p, n, v);
    case OP_REMOVE:
        return do_remove(a, p, n, NULL);
    case OP_MOVE:
        /* 4.4: from must not be a proper prefix of path. */
        if (nfrom < n && memcmp(from, p, nfrom) == 0 && p[nfrom] == '/')
            return fail(a, WR_JSONPATCH_EMOVE, "from \"%.*s\" is a parent of path",
                        nfrom > 80 ? 80 : (int)nfrom, from);
        if (nfrom == n && memcmp(from, p, n) == 0) {
            rc = walk(a->root, from, nfrom, &a->t, &v);
            return rc != 0 ? walk_failed(a, rc, "from", from, nfrom) : 0;
        }
        /* from is not "" here: "" is a prefix of any other path. */
        rc = do_remove(a, from, nfrom, &v);
        return rc != 0 ? walk_failed(a, rc, "from", from, nfrom) : do_add(a, p, n, v);
    case OP_COPY:
        rc = walk(a->root, from, nfrom, &a->t, &v);
        if (rc != 0)
            return walk_failed(a, rc, "from", from, nfrom);
        /* A copy, made before the add, so "copy /a to /a/b" makes no cycle. */
        v = json_deep_copy(v);
        if (v == NULL)
            return fail(a, WR_JSONPATCH_ENOMEM, "out of memory");
        return do_add(a, p, n, v);
    case OP_TEST:
        rc = walk(a->root, p, n, &a->t, &v);
        if (rc != 0)
            return walk_failed(a, rc, "path", p, n);
        if (!value_equal(v, value)) {
            char found[48], expected[48];
            return fail(a, WR_JSONPATCH_ETEST, "found %s, expected %s",
                        show(v, found, sizeof found), show(value, expected, sizeof expected));
        }
        return 0;
    }
    return WR_JSONPATCH_EBADOP;
}

int wr_jsonpatch_apply(const json_t *doc_in, const json_t *patch, json_t **doc_out, char *err,
                       size_t errlen)
{
    if (err != NULL && errlen > 0)
        err[0] = '\0';
    if (doc_out != NULL)
        *doc_out = NULL;
    if (doc_in == NULL || patch == NULL || doc_out == NULL) {
        if (err != NULL && errlen > 0)
            snprintf(err, errlen, "%s", wr_jsonpatch_err_text(WR_JSONPATCH_EINVAL));
        return WR_JSONPATCH_EINVAL;
    }
    if (!json_is_array(patch)) {
        if (err != NULL && errlen > 0)
            snprintf(err, errlen, "the patch is not an array");
        return WR_JSONPATCH_ENOTPATCH;
    }

    struct apply a = { .root = json_deep_copy(doc_in) };
    if (a.root == NULL) {
        if (err != NULL && errlen > 0)
            snprintf(err, errlen, "out of memory");
        return WR_JSONPATCH_ENOMEM;
    }
    size_t i, nops = json_array_size(patch);
    int rc = 0;
    const char *opname = NULL, *path = NULL;
    size_t pathlen = 0;
    for (i = 0; i < nops && rc == 0; i++) {
        opname = NULL;
        path = NULL;
        pathlen = 0;
        rc = apply_one(&a, json_array_get(patch, i), &opname, &path, &pathlen);
    }
    free(a.t.s);
    if (rc != 0) {
        json_decref(a.root);
        if (err != NULL && errlen > 0 && opname != NULL && path != NULL)
            snprintf(err, errlen, "op %zu (%s \"%.*s\"): %s", i - 1, opname,
                     pathlen > 80 ? 80 : (int)pathlen, path, a.why);
        else if (err != NULL && errlen > 0 && opname != NULL)
            snprintf(err, errlen, "op %zu (%s): %s", i - 1, opname, a.why);
        else if (err != NULL && errlen > 0)
            snprintf(err, errlen, "op %zu: %s", i - 1, a.why);
        return rc;
    }
    *doc_out = a.root;
    return 0;
}

/* --- diff ----------------------------------------------------------------- */

struct diff {
    json_t *ops;        /* the patch being built; owned */
    char *path;         /* the pointer of the current node, not NUL-terminated */
    size_t len, cap;
};

/* Bytes of the compact JSON of a string body (without quotes). */
static size_t string_cost(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        c += ch == '"' || ch == '\\' ? 2 : ch < 0x20 ? 6 : 1;
    }
    return c;
}

/* About the size of v's compact JSON; stops counting once past limit (the
 * result is then some value > limit). */
static size_t json_cost(const json_t *v, size_t limit)
{
    size_t c = 0;
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        const char *key;
        size_t klen;
        json_t *m;
        c = 2;
        json_object_keylen_foreach((json_t *)v, key, klen, m)
        {
            c += string_cost(key, klen) + 4 + json_cost(m, limit - (c < limit ? c : limit));
            if (c > limit)
                return c;
        }
        return c;
    }
    case JSON_ARRAY:
        c = 2;
        for (size_t i = 0; i < json_array_size(v); i++) {
            c += 1 + json_cost(json_array_get(v, i), limit - (c < limit ? c : limit));
            if (c > limit)
                return c;
        }
        return c;
    case JSON_STRING:
        return 2 + string_cost(json_string_value(v), json_string_length(v));
    case JSON_INTEGER: {
        json_int_t i = json_integer_value(v);
        c = i < 0 ? 2 : 1;
        for (; i >= 10 || i <= -10; i /= 10)
            c++;
        return c;
    }
    case JSON_REAL:
        return 12;
    case JSON_FALSE:
        return 5;
    default:
        return 4;       /* true, null */
    }
}

/* Cost of {"op":"<op>","path":"<path>"} and ,"value": (when value). */
static size_t op_cost(const struct diff *d, const char *op, const json_t *value)
{
    size_t c = 19 + strlen(op) + string_cost(d->path, d->len);
    return value ? c + 9 + json_cost(value, SIZE_MAX) : c;
}

static int path_reserve(struct diff *d, size_t more)
{
    if (d->len + more <= d->cap)
        return 0;
    size_t cap = d->cap ? d->cap : 64;
    while (cap < d->len + more)
        cap *= 2;
    char *p = realloc(d->path, cap);
    if (p == NULL)
        return -1;
    d->path = p;
    d->cap = cap;
    return 0;
}

static int path_push_key(struct diff *d, const char *key, size_t klen)
{
    size_t need = 1 + wr_jsonpointer_escape(key, klen, NULL, 0);
    if (path_reserve(d, need + 1) != 0)
        return -1;
    d->path[d->len] = '/';
    wr_jsonpointer_escape(key, klen, d->path + d->len + 1, need);
    d->len += need;
    return 0;
}

static int path_push_index(struct diff *d, size_t i)
{
    if (path_reserve(d, 24) != 0)
        return -1;
    d->len += (size_t)snprintf(d->path + d->len, 24, "/%zu", i);
    return 0;
}

/* Append {"op": op, "path": <current>, "value": copy of value}; add its cost. */
static int emit(struct diff *d, const char *op, const json_t *value, size_t *cost)
{
    json_t *o = json_object();
    if (o == NULL)
        return -1;
    if (json_object_set_new_nocheck(o, "op", json_string_nocheck(op)) != 0 ||
        json_object_set_new_nocheck(o, "path", json_stringn(d->path, d->len)) != 0 ||
        (value != NULL && json_object_set_new_nocheck(o, "value", json_deep_copy(value)) != 0)) {
        json_decref(o);
        return -1;
    }
    if (json_array_append_new(d->ops, o) != 0)
        return -1;
    *cost += op_cost(d, op, value);
    return 0;
}

static int diff_node(struct diff *d, const json_t *a, const json_t *b, size_t *cost);

/* A key whose value differs between objects a and b; va or vb is NULL
 * when the key is only in the other. */
struct change {
    const char *key;
    size_t len;
    const json_t *va, *vb;
};

static int change_cmp(const void *x, const void *y)
{
    const struct change *p = x, *q = y;
    int c = memcmp(p->key, q->key, p->len < q->len ? p->len : q->len);
    return c != 0 ? c : (p->len > q->len) - (p->len < q->len);
}

/* A growable list that starts on the stack: most steps change few keys. */
struct changes {
    struct change *v;
    size_t n, cap;
    struct change local[8];
};

static int changes_push(struct changes *c, const char *key, size_t len, const json_t *va,
                        const json_t *vb)
{
    if (c->n == c->cap) {
        size_t cap = 2 * c->cap;
        struct change *v = c->v == c->local ? malloc(cap * sizeof *v)
                                            : realloc(c->v, cap * sizeof *v);
        if (v == NULL)
            return -1;
        if (c->v == c->local)
            memcpy(v, c->local, c->n * sizeof *v);
        c->v = v;
        c->cap = cap;
    }
    c->v[c->n++] = (struct change){ key, len, va, vb };
    return 0;
}

/* True when a and b are both objects or both arrays and one of them has
 * more than a few members: recursing finds the differences in one walk,
 * where json_equal() first would walk them twice. */
static int both_large(const json_t *a, const json_t *b)
{
    if (json_is_object(a) && json_is_object(b))
        return json_object_size(a) > 8 || json_object_size(b) > 8;
    if (json_is_array(a) && json_is_array(b))
        return json_array_size(a) > 8 || json_array_size(b) > 8;
    return 0;
}

/* Only the keys that differ are collected, then sorted: an unchanged unit
 * costs a lookup and a json_equal(), not a sort. Large containers are
 * recursed into directly (and add nothing when equal). */
static int diff_object(struct diff *d, const json_t *a, const json_t *b, size_t *cost)
{
    struct changes ch;
    ch.v = ch.local;
    ch.n = 0;
    ch.cap = sizeof ch.local / sizeof ch.local[0];
    size_t found = 0, base = d->len;
    const char *key;
    size_t klen;
    json_t *va, *vb;
    int rc = 0;
    json_object_keylen_foreach((json_t *)a, key, klen, va)
    {
        vb = json_object_getn(b, key, klen);
        found += vb != NULL;
        if (vb == NULL || (va != vb && (both_large(va, vb) || !json_equal(va, vb)))) {
            rc = changes_push(&ch, key, klen, va, vb);
            if (rc != 0)
                break;
        }
    }
    if (rc == 0 && found < json_object_size(b)) {
        json_object_keylen_foreach((json_t *)b, key, klen, vb)
        {
            if (json_object_getn(a, key, klen) == NULL) {
                rc = changes_push(&ch, key, klen, NULL, vb);
                if (rc != 0)
                    break;
            }
        }
    }
    if (rc == 0)
        qsort(ch.v, ch.n, sizeof *ch.v, change_cmp);
    for (size_t i = 0; rc == 0 && i < ch.n; i++) {
        const struct change *c = &ch.v[i];
        rc = path_push_key(d, c->key, c->len);
        if (rc == 0)
            rc = c->vb == NULL   ? emit(d, "remove", NULL, cost)
                 : c->va == NULL ? emit(d, "add", c->vb, cost)
                                 : diff_node(d, c->va, c->vb, cost);
        d->len = base;
    }
    if (ch.v != ch.local)
        free(ch.v);
    return rc;
}

/* Drop the operations appended after start. */
static void ops_truncate(struct diff *d, size_t start)
{
    while (json_array_size(d->ops) > start)
        json_array_remove(d->ops, json_array_size(d->ops) - 1);
}

static int diff_array(struct diff *d, const json_t *a, const json_t *b, size_t *cost)
{
    size_t n = json_array_size(a), m = json_array_size(b), p = 0, s = 0, base = d->len;
    size_t start = json_array_size(d->ops), c = 0;
    while (p < n && p < m && json_equal(json_array_get(a, p), json_array_get(b, p)))
        p++;
    while (s < n - p && s < m - p &&
           json_equal(json_array_get(a, n - 1 - s), json_array_get(b, m - 1 - s)))
        s++;
    /* The middles a[p, n-s) and b[p, m-s): pairwise, then the surplus removed
     * from the end backwards or the shortfall added in order. With equal
     * lengths this is "per index"; when b extends a, a run of "add". */
    size_t ca = n - p - s, cb = m - p - s, i;
    int rc = 0;
    for (i = 0; rc == 0 && i < ca && i < cb; i++) {
        rc = path_push_index(d, p + i);
        if (rc == 0)
            rc = diff_node(d, json_array_get(a, p + i), json_array_get(b, p + i), &c);
        d->len = base;
    }
    for (i = ca; rc == 0 && i > cb; i--) {
        rc = path_push_index(d, p + i - 1);
        if (rc == 0)
            rc = emit(d, "remove", NULL, &c);
        d->len = base;
    }
    for (i = ca; rc == 0 && i < cb; i++) {
        rc = path_push_index(d, p + i);
        if (rc == 0)
            rc = emit(d, "add", json_array_get(b, p + i), &c);
        d->len = base;
    }
    /* Lengths differ and b does not just extend a: two or more operations
     * may cost more than replacing the whole array. */
    if (rc == 0 && n != m && p < n && json_array_size(d->ops) - start >= 2) {
        size_t whole = op_cost(d, "replace", NULL) + 9 + json_cost(b, c);
        if (whole < c) {
            ops_truncate(d, start);
            c = 0;
            rc = emit(d, "replace", b, &c);
        }
    }
    *cost += c;
    return rc;
}

static int diff_node(struct diff *d, const json_t *a, const json_t *b, size_t *cost)
{
    if (json_is_object(a) && json_is_object(b))
        return diff_object(d, a, b, cost);
    if (json_is_array(a) && json_is_array(b))
        return diff_array(d, a, b, cost);
    return json_equal(a, b) ? 0 : emit(d, "replace", b, cost);
}

json_t *wr_jsonpatch_diff(const json_t *from, const json_t *to)
{
    if (from == NULL || to == NULL)
        return NULL;
    struct diff d = { .ops = json_array() };
    if (d.ops == NULL || path_reserve(&d, 64) != 0) {   /* json_stringn() wants a buffer */
        json_decref(d.ops);
        return NULL;
    }
    size_t cost = 0;
    if (diff_node(&d, from, to, &cost) != 0) {
        json_decref(d.ops);
        d.ops = NULL;
    }
    free(d.path);
    return d.ops;
}
