/*
 * fields.c - a struct to JSON and back by a table of its fields (fields.h).
 * jansson: json_object_set_new and json_array_append_new steal the value.
 */
#include "fields.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* An integer of size bytes at p, as a long long (signed: sign-extended). */
static long long get_num(const void *p, size_t size, int is_signed)
{
    switch (size) {
    case 1:
        return is_signed ? (long long)*(const int8_t *)p : (long long)*(const uint8_t *)p;
    case 2:
        return is_signed ? (long long)*(const int16_t *)p : (long long)*(const uint16_t *)p;
    case 4:
        return is_signed ? (long long)*(const int32_t *)p : (long long)*(const uint32_t *)p;
    default:
        return *(const int64_t *)p;
    }
}

static void set_num(void *p, size_t size, long long v)
{
    switch (size) {
    case 1:
        *(uint8_t *)p = (uint8_t)v;
        break;
    case 2:
        *(uint16_t *)p = (uint16_t)v;
        break;
    case 4:
        *(uint32_t *)p = (uint32_t)v;
        break;
    default:
        *(int64_t *)p = (int64_t)v;
        break;
    }
}

/* The field of t called name, or NULL. */
static const struct wr_field *field_named(const struct wr_field *t, const char *name)
{
    for (; t->name; t++)
        if (strcmp(t->name, name) == 0)
            return t;
    return NULL;
}

/* How many elements of f are saved: n, or the value of its count field
 * ("count", or "army.count": a field of an earlier nested struct). */
static int saved_count(const void *obj, const struct wr_field *t, const struct wr_field *f)
{
    if (f->count == NULL)
        return f->n;
    const char *name = f->count, *dot = strchr(name, '.');
    const char *at = obj;
    if (dot != NULL) {
        char head[64];
        snprintf(head, sizeof head, "%.*s", (int)(dot - name), name);
        const struct wr_field *s = field_named(t, head);
        at += s->offset;
        t = s->sub;
        name = dot + 1;
    }
    const struct wr_field *c = field_named(t, name);
    long long v = get_num(at + c->offset, c->size, 1);
    return v < 0 ? 0 : v > f->n ? f->n : (int)v;
}

static json_t *element_json(const void *p, const struct wr_field *f)
{
    switch (f->kind) {
    case WR_F_INT:
    case WR_F_UINT:
        return json_integer((json_int_t)get_num(p, f->size, f->kind == WR_F_INT));
    case WR_F_BOOL:
        return json_boolean(get_num(p, f->size, 0) != 0);
    case WR_F_STR:
        return json_stringn((const char *)p, strnlen((const char *)p, f->size));
    case WR_F_SUB:
        return wr_fields_save(p, f->sub);
    }
    return NULL;
}

json_t *wr_fields_save(const void *obj, const struct wr_field *t)
{
    json_t *o = json_object();
    for (const struct wr_field *f = t; o && f->name; f++) {
        const char *base = (const char *)obj + f->offset;
        json_t *v;
        if (f->n == 1 && f->count == NULL) {
            v = element_json(base, f);
        } else {
            v = json_array();
            int k = saved_count(obj, t, f);
            for (int i = 0; v && i < k; i++)
                if (json_array_append_new(v, element_json(base + (size_t)i * f->size, f)) != 0) {
                    json_decref(v);
                    v = NULL;
                }
        }
        if (v == NULL || json_object_set_new(o, f->name, v) != 0) {
            json_decref(o);
            o = NULL;
        }
    }
    return o;
}

/* One element of f from v into p; path names it in msg. */
static int element_load(void *p, const struct wr_field *f, const json_t *v, const char *path,
                        char *msg, size_t n)
{
    switch (f->kind) {
    case WR_F_INT:
    case WR_F_UINT:
        if (!json_is_integer(v) || json_integer_value(v) < f->lo || json_integer_value(v) > f->hi) {
            snprintf(msg, n, "%s: an integer %lld..%lld", path, f->lo, f->hi);
            return -1;
        }
        set_num(p, f->size, (long long)json_integer_value(v));
        return 0;
    case WR_F_BOOL:
        if (!json_is_boolean(v)) {
            snprintf(msg, n, "%s: true or false", path);
            return -1;
        }
        set_num(p, f->size, json_is_true(v));
        return 0;
    case WR_F_STR:
        if (!json_is_string(v) || json_string_length(v) >= f->size ||
            strlen(json_string_value(v)) != json_string_length(v)) {
            snprintf(msg, n, "%s: a string of at most %zu bytes", path, f->size - 1);
            return -1;
        }
        memset(p, 0, f->size);
        memcpy(p, json_string_value(v), json_string_length(v));
        return 0;
    case WR_F_SUB: {
        char inner[256];
        if (wr_fields_load(p, f->sub, v, inner, sizeof inner) != 0) {
            snprintf(msg, n, "%s%s%s", path, inner[0] == '[' || inner[0] == ':' ? "" : ".",
                     inner);
            return -1;
        }
        return 0;
    }
    }
    return -1;
}

int wr_fields_load(void *obj, const struct wr_field *t, const json_t *j, char *msg, size_t n)
{
    if (!json_is_object(j)) {
        snprintf(msg, n, ": an object");
        return -1;
    }
    const char *key;
    json_t *jv;
    json_object_foreach((json_t *)j, key, jv)
        if (field_named(t, key) == NULL) {
            snprintf(msg, n, "%.40s: not a field", key);
            return -1;
        }
    for (const struct wr_field *f = t; f->name; f++) {
        const json_t *v = json_object_get(j, f->name);
        char *base = (char *)obj + f->offset;
        char path[96];
        if (v == NULL) {
            snprintf(msg, n, "%s: missing", f->name);
            return -1;
        }
        if (f->n == 1 && f->count == NULL) {
            snprintf(path, sizeof path, "%s", f->name);
            if (element_load(base, f, v, path, msg, n) != 0)
                return -1;
            continue;
        }
        int k = saved_count(obj, t, f);
        if (!json_is_array(v) || json_array_size(v) != (size_t)k) {
            snprintf(msg, n, "%s: an array of %d", f->name, k);
            return -1;
        }
        for (int i = 0; i < k; i++) {
            snprintf(path, sizeof path, "%s[%d]", f->name, i);
            if (element_load(base + (size_t)i * f->size, f, json_array_get(v, (size_t)i), path,
                             msg, n) != 0)
                return -1;
        }
    }
    return 0;
}
