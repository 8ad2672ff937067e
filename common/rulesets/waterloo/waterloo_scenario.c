/*
 * waterloo_scenario.c - scenario JSON (docs/scenario-format.md, version 1) into
 * struct wl_scenario.
 *
 * This is the one module of common/ that touches json_t for scenarios, and
 * wl_scenario_load_file() is the one place common/ reads a file (stdio
 * only). Loading has two steps. First the "effective" JSON is formed: a
 * scenario with a "base" is laid over its base (itself loaded and validated
 * first), key by key, with "units" optionally patched by id. Then the
 * effective JSON is read into the structs, validating everything on the way
 * and naming the offending entry in every error ("roads[2] (Nivelles-Namur):
 * are not adjacent"). Nothing from the input is trusted:
 * every count is checked against the fixed capacities of the structs before
 * anything is written.
 *
 * jansson ownership: json_object_get/json_array_get return borrowed
 * references; json_object_set_new and json_array_append_new steal the
 * reference they are given (also on failure); json_deep_copy and the
 * resolver return new references, released here with json_decref. The
 * caller's JSON is only read, never modified (not even its refcount).
 */
#include "waterloo_scenario.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FILE_MAX (8u << 20)             /* scenario files: 8 MiB at most */
#define BASE_DEPTH_MAX 8                /* base of a base of ... */
#define WHERE_MAX 128                   /* "units[17] (fr-jerome)" */
#define DESCRIPTION_MAX 8192
#define SHOW "%.40s"                    /* user text quoted in messages */

/* One pass of reading effective JSON into a scenario. Heap-allocated: the
 * scratch arrays are too big for small stacks. */
struct ld {
    struct wl_scenario *sc;
    struct wr_refusal *why;
    wl_sq sq[WL_NSQ];                   /* scratch list of squares */
    uint16_t factors[WL_NSQ];           /* set-up: combat factors per square */
    int8_t side_at[WL_NSQ];             /* set-up: side on a square, -1 none */
    int8_t river_item[WL_NSQ];          /* rivers[] index of a river square */
    int16_t slope_item[WL_NSQ];         /* slopes[] index + 1 of a slope */
};

enum need { NEED_FRAME, NEED_BOARD, NEED_PLAYABLE };

static int bad(struct wr_refusal *why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Fill why with a bad_scenario refusal; returns -1. */
static int bad(struct wr_refusal *why, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    wl_vrefuse(why, WL_R_BAD_SCENARIO, fmt, ap);
    va_end(ap);
    return -1;
}

/* Put "base 'name': " in front of the message already in why. */
static void prefix_base(struct wr_refusal *why, const char *name)
{
    char tmp[WR_REFUSAL_MSG_MAX];
    memcpy(tmp, why->message, sizeof tmp);
    tmp[sizeof tmp - 1] = '\0';
    int k = snprintf(why->message, sizeof why->message, "base '" SHOW "': ", name);
    if (k < 0 || (size_t)k >= sizeof why->message)
        return;
    size_t len = strlen(tmp), room = sizeof why->message - (size_t)k - 1;
    memcpy(why->message + k, tmp, len < room ? len : room);
    why->message[(size_t)k + (len < room ? len : room)] = '\0';
    wr_utf8_clean(why->message);
}

/* ------------------------------------------------------------------------
 * Shapes: keys, strings, integers
 */

/* Every key of obj must be in allowed (NULL-terminated). where names obj. */
static int check_keys(struct ld *L, const json_t *obj, const char *where,
                      const char *const *allowed)
{
    json_t *o = (json_t *)obj;          /* iteration does not modify */
    for (void *it = json_object_iter(o); it; it = json_object_iter_next(o, it)) {
        const char *key = json_object_iter_key(it);
        size_t klen = json_object_iter_key_len(it);
        int known = 0;
        for (int i = 0; allowed[i] && !known; i++)
            known = strlen(allowed[i]) == klen && memcmp(allowed[i], key, klen) == 0;
        if (!known)
            return bad(L->why, "%s: unknown key '" SHOW "'", where, key);
    }
    return 0;
}

/* The string at obj.key: 0 with *out set (NULL when absent and optional),
 * or -1. Strings are 1..max bytes with no NUL inside. */
static int get_str(struct ld *L, const json_t *obj, const char *key, const char *where,
                   int required, size_t max, const char **out)
{
    json_t *v = json_object_get(obj, key);
    *out = NULL;
    if (v == NULL) {
        if (required)
            return bad(L->why, "%s: missing key '%s'", where, key);
        return 0;
    }
    if (!json_is_string(v))
        return bad(L->why, "%s: %s must be a string", where, key);
    const char *s = json_string_value(v);
    size_t n = json_string_length(v);
    if (strlen(s) != n)
        return bad(L->why, "%s: %s contains a NUL character", where, key);
    if (n == 0)
        return bad(L->why, "%s: %s is empty", where, key);
    if (n > max)
        return bad(L->why, "%s: %s '" SHOW "...' is longer than %zu characters", where, key, s,
                   max);
    *out = s;
    return 0;
}

/* The integer at obj.key, in min..max: 0 with *out set (*out unchanged
 * when absent and optional), or -1. */
static int get_int(struct ld *L, const json_t *obj, const char *key, const char *where,
                   int required, int min, int max, int *out)
{
    json_t *v = json_object_get(obj, key);
    if (v == NULL) {
        if (required)
            return bad(L->why, "%s: missing key '%s'", where, key);
        return 0;
    }
    if (!json_is_integer(v))
        return bad(L->why, "%s: %s must be a whole number", where, key);
    json_int_t n = json_integer_value(v);
    if (n < min || n > max)
        return bad(L->why, "%s: %s %lld is out of range %d..%d", where, key, (long long)n, min,
                   max);
    *out = (int)n;
    return 0;
}

/* The array at obj.key with at most max items: 0 with *out set (NULL when
 * absent and optional), or -1. */
static int get_array(struct ld *L, const json_t *obj, const char *key, const char *where,
                     int required, size_t max, const char *what, json_t **out)
{
    json_t *v = json_object_get(obj, key);
    *out = NULL;
    if (v == NULL) {
        if (required)
            return bad(L->why, "%s: missing key '%s'", where, key);
        return 0;
    }
    if (!json_is_array(v))
        return bad(L->why, "%s: %s must be a list", where, key);
    if (json_array_size(v) > max)
        return bad(L->why, "%s: %s: %zu %s, at most %zu", where, key, json_array_size(v), what,
                   max);
    *out = v;
    return 0;
}

/* The text of a string with no NUL inside (jansson allows them with
 * JSON_ALLOW_NUL), else NULL: so "AE\u0000x" is not taken for "AE". */
static const char *text_of(const json_t *v)
{
    const char *s = json_string_value(v);
    return (s != NULL && strlen(s) == json_string_length(v)) ? s : NULL;
}

/* Index of s in the NULL-terminated names, or -1 (also for s NULL). */
static int lookup(const char *const *names, const char *s)
{
    for (int i = 0; s != NULL && names[i]; i++)
        if (strcmp(names[i], s) == 0)
            return i;
    return -1;
}

static void copy_text(char *dst, size_t size, const char *src)
{
    snprintf(dst, size, "%s", src);
}

/* Names (ids, places, roads): copied into fixed arrays, so bounded. */
static int name_ok(const char *s)
{
    return strlen(s) < WL_NAME_MAX;
}

/* ------------------------------------------------------------------------
 * Squares and square lists
 */

/* Is s good enough for need? Otherwise fail naming it (inside text when a
 * range). */
static int check_need(struct ld *L, wl_sq s, enum need need, const char *where,
                      const char *text, int range)
{
    char a[WL_SQ_NAME_MAX];
    const char *what = NULL;
    if (need == NEED_BOARD && !wl_grid_on_board(s))
        what = "on the board";
    else if (need == NEED_PLAYABLE && !wl_grid_playable(s))
        what = "a playable square";
    if (what == NULL)
        return 0;
    if (range)
        return bad(L->why, "%s: '" SHOW "' includes %s, which is not %s", where, text,
                   wl_grid_name(s, a), what);
    return bad(L->why, "%s: '" SHOW "' is not %s", where, text, what);
}

/* Append one list item, a square ("X-27") or a same-row range
 * ("B-41..B-45", inclusive, in the order written), to out[*n..cap). */
static int add_item(struct ld *L, const json_t *v, const char *where, enum need need,
                    wl_sq *out, int cap, int *n)
{
    if (!json_is_string(v))
        return bad(L->why, "%s: a square must be a string like \"X-27\"", where);
    const char *t = json_string_value(v);
    size_t len = json_string_length(v);
    size_t dots = 0;
    while (dots + 1 < len && !(t[dots] == '.' && t[dots + 1] == '.'))
        dots++;
    if (dots + 1 >= len) {
        wl_sq s;
        if (wl_grid_parse(t, len, &s) != 0)
            return bad(L->why, "%s: unknown square '" SHOW "'", where, t);
        if (check_need(L, s, need, where, t, 0) != 0)
            return -1;
        if (*n >= cap)
            return bad(L->why, "%s: more than %d squares", where, cap);
        out[(*n)++] = s;
        return 0;
    }
    wl_sq a, b;
    if (wl_grid_parse(t, dots, &a) != 0 || wl_grid_parse(t + dots + 2, len - dots - 2, &b) != 0)
        return bad(L->why, "%s: '" SHOW "' is not a range of squares like \"B-41..B-45\"", where,
                   t);
    if (wl_sq_row(a) != wl_sq_row(b))
        return bad(L->why, "%s: '" SHOW "': a range stays on one row", where, t);
    int step = wl_sq_col(a) <= wl_sq_col(b) ? 1 : -1;
    for (int c = wl_sq_col(a);; c += step) {
        wl_sq s = wl_sq_make(wl_sq_row(a), c);
        if (check_need(L, s, need, where, t, 1) != 0)
            return -1;
        if (*n >= cap)
            return bad(L->why, "%s: more than %d squares", where, cap);
        out[(*n)++] = s;
        if (c == wl_sq_col(b))
            break;
    }
    return 0;
}

/* A whole list of squares and ranges into L->sq; *n squares. */
static int list_to_scratch(struct ld *L, const json_t *arr, const char *where, enum need need,
                           int *n)
{
    *n = 0;
    for (size_t i = 0; i < json_array_size(arr); i++)
        if (add_item(L, json_array_get(arr, i), where, need, L->sq, WL_NSQ, n) != 0)
            return -1;
    return 0;
}

/* A single square at obj.key (no ranges). */
static int get_sq(struct ld *L, const json_t *obj, const char *key, const char *where,
                  enum need need, wl_sq *out)
{
    const char *t;
    if (get_str(L, obj, key, where, 1, 16, &t) != 0)
        return -1;
    if (wl_grid_parse(t, (size_t)-1, out) != 0)
        return bad(L->why, "%s: unknown square '" SHOW "'", where, t);
    if (need == NEED_PLAYABLE && !wl_grid_playable(*out))
        return bad(L->why, "%s: %s '" SHOW "' is not a playable square", where, key, t);
    if (need == NEED_BOARD && !wl_grid_on_board(*out))
        return bad(L->why, "%s: %s '" SHOW "' is not on the board", where, key, t);
    return 0;
}

/* An item of a named list: obj must be an object with only keys; where is
 * set to "list[i] (name)" once its name is known. */
static int named_item(struct ld *L, const json_t *obj, const char *list, size_t i,
                      const char *const *keys, char *where, const char **name)
{
    snprintf(where, WHERE_MAX, "%s[%zu]", list, i);
    if (!json_is_object(obj))
        return bad(L->why, "%s: must be an object", where);
    if (get_str(L, obj, "name", where, 1, 1000, name) != 0)
        return -1;
    if (!name_ok(*name))
        return bad(L->why, "%s: name '" SHOW "...' is longer than %d characters", where, *name,
                   WL_NAME_MAX - 1);
    snprintf(where, WHERE_MAX, "%s[%zu] (%s)", list, i, *name);
    return check_keys(L, obj, where, keys);
}

/* ------------------------------------------------------------------------
 * The map
 */

/* A waterloo_map.c call refused what the checks here let through: say where. */
static int map_failed(struct ld *L, const char *where)
{
    char tmp[WR_REFUSAL_MSG_MAX];
    memcpy(tmp, L->why->message, sizeof tmp);
    tmp[sizeof tmp - 1] = '\0';
    return bad(L->why, "%s: %.120s", where, tmp);
}

static int parse_rivers(struct ld *L, const json_t *map)
{
    static const char *const keys[] = { "name", "squares", NULL };
    struct wl_map *m = &L->sc->map;
    json_t *arr, *squares;
    char where[WHERE_MAX], a[WL_SQ_NAME_MAX];
    const char *name;
    int n;
    if (get_array(L, map, "rivers", "map", 0, WL_MAX_RIVERS, "rivers", &arr) != 0)
        return -1;
    for (size_t i = 0; arr && i < json_array_size(arr); i++) {
        const json_t *r = json_array_get(arr, i);
        if (named_item(L, r, "rivers", i, keys, where, &name) != 0 ||
            get_array(L, r, "squares", where, 1, WL_NSQ, "squares", &squares) != 0 ||
            list_to_scratch(L, squares, where, NEED_BOARD, &n) != 0)
            return -1;
        if (n == 0)
            return bad(L->why, "%s: no squares", where);
        for (int k = 0; k < n; k++) {
            int other = m->cell[L->sq[k]].river;
            if (other != 0) {
                int j = L->river_item[L->sq[k]];
                return bad(L->why, "%s: %s is already on rivers[%d] (%s)", where,
                           wl_grid_name(L->sq[k], a), j, m->rivers[other]);
            }
        }
        if (wl_map_add_river(m, name, L->sq, n, L->why) < 0)
            return map_failed(L, where);
        for (int k = 0; k < n; k++)
            L->river_item[L->sq[k]] = (int8_t)i;
    }
    return 0;
}

/* A map list of squares that each set one flag of their cell ("woods",
 * "exits"); need is the kind of square allowed (NEED_BOARD, ...). */
static int parse_flag_list(struct ld *L, const json_t *map, const char *key, int need,
                           size_t flag_offset)
{
    json_t *arr;
    char where[WHERE_MAX];
    int n;
    if (get_array(L, map, key, "map", 0, WL_NSQ, "items", &arr) != 0)
        return -1;
    for (size_t i = 0; arr && i < json_array_size(arr); i++) {
        snprintf(where, sizeof where, "%s[%zu]", key, i);
        n = 0;
        if (add_item(L, json_array_get(arr, i), where, need, L->sq, WL_NSQ, &n) != 0)
            return -1;
        for (int k = 0; k < n; k++)
            *((uint8_t *)&L->sc->map.cell[L->sq[k]] + flag_offset) = 1;
    }
    return 0;
}

static int parse_woods(struct ld *L, const json_t *map)
{
    return parse_flag_list(L, map, "woods", NEED_BOARD, offsetof(struct wl_cell, woods));
}

/* Direction named text (case-insensitive), or -1. */
static int dir_from_name(const char *text)
{
    for (int d = 0; d < WL_NDIR; d++) {
        const char *nm = wl_dir_name(d);
        size_t k = 0;
        while (nm[k] && text[k] && (text[k] == nm[k] || text[k] == nm[k] + ('a' - 'A')))
            k++;
        if (nm[k] == '\0' && text[k] == '\0')
            return d;
    }
    return -1;
}

static int parse_slopes(struct ld *L, const json_t *map)
{
    static const char *const keys[] = { "at", "high", NULL };
    json_t *arr, *high;
    char where[WHERE_MAX], a[WL_SQ_NAME_MAX];
    wl_sq at;
    if (get_array(L, map, "slopes", "map", 0, WL_NSQ, "slopes", &arr) != 0)
        return -1;
    for (size_t i = 0; arr && i < json_array_size(arr); i++) {
        const json_t *s = json_array_get(arr, i);
        snprintf(where, sizeof where, "slopes[%zu]", i);
        if (!json_is_object(s))
            return bad(L->why, "%s: must be an object", where);
        if (check_keys(L, s, where, keys) != 0 || get_sq(L, s, "at", where, NEED_BOARD, &at) != 0)
            return -1;
        snprintf(where, sizeof where, "slopes[%zu] (%s)", i, wl_grid_name(at, a));
        if (L->slope_item[at] != 0)
            return bad(L->why, "%s: %s is already a slope (slopes[%d])", where, a,
                       L->slope_item[at] - 1);
        if (get_array(L, s, "high", where, 1, WL_NDIR, "directions", &high) != 0)
            return -1;
        if (json_array_size(high) == 0)
            return bad(L->why, "%s: high names no direction", where);
        uint8_t bits = 0;
        for (size_t k = 0; k < json_array_size(high); k++) {
            const json_t *d = json_array_get(high, k);
            int dir = text_of(d) ? dir_from_name(text_of(d)) : -1;
            if (dir < 0)
                return bad(L->why, "%s: high[%zu] is not a direction (NE, E, SE, SW, W, NW)",
                           where, k);
            bits = (uint8_t)(bits | (1u << dir));
        }
        L->sc->map.cell[at].slope_high = bits;
        L->slope_item[at] = (int16_t)(i + 1);
    }
    return 0;
}

static int parse_roads(struct ld *L, const json_t *map)
{
    static const char *const keys[] = { "name", "kind", "path", NULL };
    static const char *const kinds[] = { "none", "secondary", "primary", NULL };
    struct wl_map *m = &L->sc->map;
    json_t *arr, *path;
    char where[WHERE_MAX], a[WL_SQ_NAME_MAX], b[WL_SQ_NAME_MAX];
    const char *name, *kind;
    int n;
    if (get_array(L, map, "roads", "map", 0, WL_MAX_ROADS, "roads", &arr) != 0)
        return -1;
    for (size_t i = 0; arr && i < json_array_size(arr); i++) {
        const json_t *r = json_array_get(arr, i);
        if (named_item(L, r, "roads", i, keys, where, &name) != 0 ||
            get_str(L, r, "kind", where, 1, 16, &kind) != 0)
            return -1;
        int k = lookup(kinds, kind);
        if (k < WL_ROAD_SECONDARY)
            return bad(L->why, "%s: kind '" SHOW "' is not primary or secondary", where, kind);
        if (get_array(L, r, "path", where, 1, WL_NSQ, "squares", &path) != 0 ||
            list_to_scratch(L, path, where, NEED_BOARD, &n) != 0)
            return -1;
        if (n < 2)
            return bad(L->why, "%s: a road needs at least two squares", where);
        for (int s = 0; s + 1 < n; s++)
            if (wl_grid_dir_to(L->sq[s], L->sq[s + 1]) < 0)
                return bad(L->why, "%s: %s and %s are not adjacent", where,
                           wl_grid_name(L->sq[s], a), wl_grid_name(L->sq[s + 1], b));
        if (wl_map_add_road(m, name, (enum wl_road_kind)k, L->sq, n, L->why) < 0)
            return map_failed(L, where);
    }
    return 0;
}

static int parse_towns(struct ld *L, const json_t *map)
{
    static const char *const keys[] = { "name", "at", NULL };
    struct wl_map *m = &L->sc->map;
    json_t *arr;
    char where[WHERE_MAX], a[WL_SQ_NAME_MAX];
    const char *name;
    wl_sq at;
    if (get_array(L, map, "towns", "map", 0, WL_MAX_TOWNS, "towns", &arr) != 0)
        return -1;
    for (size_t i = 0; arr && i < json_array_size(arr); i++) {
        const json_t *t = json_array_get(arr, i);
        if (named_item(L, t, "towns", i, keys, where, &name) != 0 ||
            get_sq(L, t, "at", where, NEED_BOARD, &at) != 0)
            return -1;
        int other = wl_map_find_town(m, name);
        if (other >= 0)
            return bad(L->why, "%s: towns[%d] has the same name", where, other);
        other = m->cell[at].town;
        if (other >= 0)
            return bad(L->why, "%s: %s already holds towns[%d] (%s)", where,
                       wl_grid_name(at, a), other, m->towns[other].name);
        if (wl_map_add_town(m, name, at, L->why) < 0)
            return map_failed(L, where);
    }
    return 0;
}

/* Position of a partial square along the board edge, clockwise from the
 * north-west corner: the north edge west to east, the east edge north to
 * south, the west edge south to north. */
static int edge_key(wl_sq s)
{
    int r = wl_sq_row(s), x = wl_grid_x(s);
    if (r == 0)
        return 66 - x;
    if (x <= 0)
        return 100 + r;
    return 300 + (WL_ROWS - r);
}

static int parse_entries(struct ld *L, const json_t *map)
{
    static const char *const keys[] = { "name", "at", NULL };
    struct wl_map *m = &L->sc->map;
    json_t *arr;
    char where[WHERE_MAX], a[WL_SQ_NAME_MAX];
    const char *name;
    wl_sq at;
    if (get_array(L, map, "entries", "map", 0, WL_MAX_ENTRIES, "entries", &arr) != 0)
        return -1;
    for (size_t i = 0; arr && i < json_array_size(arr); i++) {
        const json_t *e = json_array_get(arr, i);
        if (named_item(L, e, "entries", i, keys, where, &name) != 0 ||
            get_sq(L, e, "at", where, NEED_FRAME, &at) != 0)
            return -1;
        if (wl_map_find_entry(m, name) >= 0)
            return bad(L->why, "%s: entries[%d] has the same name", where,
                       wl_map_find_entry(m, name));
        if (m->cell[at].entry >= 0)
            return bad(L->why, "%s: %s is already entries[%d] (%s)", where, wl_grid_name(at, a),
                       m->cell[at].entry, m->entries[m->cell[at].entry].name);
        if (!wl_grid_partial(at))
            return bad(L->why, "%s: %s is not a partial edge square", where,
                       wl_grid_name(at, a));
        if (!wl_map_has_road(m, at))
            return bad(L->why, "%s: no road runs into %s", where, wl_grid_name(at, a));
        if (wl_map_add_entry(m, name, at, L->why) < 0)
            return map_failed(L, where);
    }
    /* Clockwise: going round the list, the edge position falls back at most
     * once (where the list wraps past the north-west corner). */
    int falls = 0;
    for (int i = 0; i < m->nentries && m->nentries > 2; i++) {
        int j = (i + 1) % m->nentries;
        if (edge_key(m->entries[j].at) < edge_key(m->entries[i].at))
            falls++;
    }
    if (falls > 1) {
        for (int i = 0; i + 1 < m->nentries; i++)
            if (edge_key(m->entries[i + 1].at) < edge_key(m->entries[i].at))
                return bad(L->why,
                           "entries[%d] (%s): not clockwise after entries[%d] (%s); list the "
                           "entries clockwise around the board",
                           i + 1, m->entries[i + 1].name, i, m->entries[i].name);
    }
    return 0;
}

static int parse_exits(struct ld *L, const json_t *map)
{
    return parse_flag_list(L, map, "exits", NEED_PLAYABLE, offsetof(struct wl_cell, exit));
}

/* "not_river" / "not_woods": facts the map must agree with. */
static int parse_checks(struct ld *L, const json_t *map, const char *key, int woods)
{
    const struct wl_map *m = &L->sc->map;
    json_t *arr;
    char where[WHERE_MAX], a[WL_SQ_NAME_MAX];
    int n;
    if (get_array(L, map, key, "map", 0, WL_NSQ, "items", &arr) != 0)
        return -1;
    for (size_t i = 0; arr && i < json_array_size(arr); i++) {
        snprintf(where, sizeof where, "%s[%zu]", key, i);
        n = 0;
        if (add_item(L, json_array_get(arr, i), where, NEED_BOARD, L->sq, WL_NSQ, &n) != 0)
            return -1;
        for (int k = 0; k < n; k++) {
            const struct wl_cell *c = &m->cell[L->sq[k]];
            if (woods && c->woods)
                return bad(L->why, "%s: %s is a woods square", where,
                           wl_grid_name(L->sq[k], a));
            if (!woods && c->river)
                return bad(L->why, "%s: %s is on rivers[%d] (%s)", where,
                           wl_grid_name(L->sq[k], a), L->river_item[L->sq[k]],
                           m->rivers[c->river]);
        }
    }
    return 0;
}

static int parse_map(struct ld *L, const json_t *root)
{
    static const char *const keys[] = { "woods", "slopes", "rivers", "roads", "towns",
                                        "entries", "exits", "not_river", "not_woods", NULL };
    const json_t *map = json_object_get(root, "map");
    if (map == NULL)
        return bad(L->why, "scenario: missing key 'map'");
    if (!json_is_object(map))
        return bad(L->why, "map must be an object");
    if (check_keys(L, map, "map", keys) != 0)
        return -1;
    wl_map_init(&L->sc->map);
    if (parse_rivers(L, map) != 0 || parse_woods(L, map) != 0 || parse_slopes(L, map) != 0 ||
        parse_roads(L, map) != 0 || parse_towns(L, map) != 0 || parse_entries(L, map) != 0 ||
        parse_exits(L, map) != 0)
        return -1;
    wl_map_finish(&L->sc->map);
    if (parse_checks(L, map, "not_river", 0) != 0 || parse_checks(L, map, "not_woods", 1) != 0)
        return -1;
    return 0;
}

/* ------------------------------------------------------------------------
 * Combat results table
 */

static int parse_crt(struct ld *L, const json_t *root)
{
    static const char *const keys[] = { "reconstruction", "columns", "rows", NULL };
    static const char *const results[] = { "AE", "DE", "AB2", "DB2", "EX", NULL };
    const json_t *crt = json_object_get(root, "crt");
    json_t *cols, *rows;
    if (crt == NULL)
        return bad(L->why, "scenario: missing key 'crt'");
    if (!json_is_object(crt))
        return bad(L->why, "crt must be an object");
    if (check_keys(L, crt, "crt", keys) != 0)
        return -1;

    const json_t *rec = json_object_get(crt, "reconstruction");
    if (rec == NULL)
        return bad(L->why, "crt: missing key 'reconstruction' (true unless it is the printed "
                           "card)");
    if (!json_is_boolean(rec))
        return bad(L->why, "crt: reconstruction must be true or false");
    L->sc->crt_reconstructed = json_is_true(rec);

    if (get_array(L, crt, "columns", "crt", 1, 1000, "labels", &cols) != 0)
        return -1;
    if (json_array_size(cols) != WL_CRT_COLS)
        return bad(L->why, "crt.columns: %zu labels, want the %d from 1-6 to 6-1",
                   json_array_size(cols), WL_CRT_COLS);
    for (int c = 0; c < WL_CRT_COLS; c++) {
        const json_t *v = json_array_get(cols, (size_t)c);
        if (text_of(v) == NULL || wl_crt_column(text_of(v)) != c)
            return bad(L->why, "crt.columns[%d]: '" SHOW "', want '%s'", c,
                       json_is_string(v) ? json_string_value(v) : "(not a string)",
                       wl_crt_label(c));
    }

    if (get_array(L, crt, "rows", "crt", 1, 1000, "rows", &rows) != 0)
        return -1;
    if (json_array_size(rows) != WL_CRT_ROWS)
        return bad(L->why, "crt.rows: %zu rows, want %d (die rolls 1 to 6)",
                   json_array_size(rows), WL_CRT_ROWS);
    for (int r = 0; r < WL_CRT_ROWS; r++) {
        const json_t *row = json_array_get(rows, (size_t)r);
        if (!json_is_array(row))
            return bad(L->why, "crt.rows[%d]: must be a list of %d results", r, WL_CRT_COLS);
        if (json_array_size(row) != WL_CRT_COLS)
            return bad(L->why, "crt.rows[%d]: %zu entries, want %d", r, json_array_size(row),
                       WL_CRT_COLS);
        for (int c = 0; c < WL_CRT_COLS; c++) {
            const json_t *v = json_array_get(row, (size_t)c);
            int res = lookup(results, text_of(v));
            if (res < 0)
                return bad(L->why, "crt.rows[%d][%d]: not a result (AE, DE, AB2, DB2, EX)", r,
                           c);
            L->sc->crt[r][c] = (uint8_t)res;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Time record
 */

static int digits(const char *s, int n)
{
    for (int i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

static int two(const char *s) { return (s[0] - '0') * 10 + (s[1] - '0'); }

static int date_ok(const json_t *v)
{
    const char *s = json_string_value(v);
    if (s == NULL || json_string_length(v) != 10 || strlen(s) != 10 || !digits(s, 4) ||
        s[4] != '-' || !digits(s + 5, 2) || s[7] != '-' || !digits(s + 8, 2))
        return 0;
    return two(s + 5) >= 1 && two(s + 5) <= 12 && two(s + 8) >= 1 && two(s + 8) <= 31;
}

static int time_ok(const json_t *v)
{
    const char *s = json_string_value(v);
    if (s == NULL || json_string_length(v) != 5 || strlen(s) != 5 || !digits(s, 2) ||
        s[2] != ':' || !digits(s + 3, 2))
        return 0;
    return two(s) <= 23 && two(s + 3) <= 59;
}

static int check_date(struct ld *L, const json_t *v, const char *where)
{
    if (!date_ok(v))
        return bad(L->why, "%s: '" SHOW "' is not a date (want YYYY-MM-DD)", where,
                   json_is_string(v) ? json_string_value(v) : "(not a string)");
    return 0;
}

static int check_time(struct ld *L, const json_t *v, const char *where)
{
    if (!time_ok(v))
        return bad(L->why, "%s: '" SHOW "' is not a time (want HH:MM)", where,
                   json_is_string(v) ? json_string_value(v) : "(not a string)");
    return 0;
}

static int parse_time_record(struct ld *L, const json_t *root)
{
    static const char *const turn_keys[] = { "date", "time", NULL };
    static const char *const compact_keys[] = { "days", "times", NULL };
    struct wl_scenario *sc = L->sc;
    const json_t *tr = json_object_get(root, "time_record");
    char where[WHERE_MAX];
    if (tr == NULL)
        return bad(L->why, "scenario: missing key 'time_record'");
    if (json_is_array(tr)) {
        if (json_array_size(tr) > WL_MAX_TURNS)
            return bad(L->why, "time_record: %zu turns, at most %d", json_array_size(tr),
                       WL_MAX_TURNS);
        for (size_t i = 0; i < json_array_size(tr); i++) {
            const json_t *t = json_array_get(tr, i);
            snprintf(where, sizeof where, "time_record[%zu]", i);
            if (!json_is_object(t))
                return bad(L->why, "%s: must be an object {\"date\", \"time\"}", where);
            const json_t *d = json_object_get(t, "date"), *h = json_object_get(t, "time");
            if (check_keys(L, t, where, turn_keys) != 0 || check_date(L, d, where) != 0 ||
                check_time(L, h, where) != 0)
                return -1;
            copy_text(sc->turns[i].date, sizeof sc->turns[i].date, json_string_value(d));
            copy_text(sc->turns[i].time, sizeof sc->turns[i].time, json_string_value(h));
            sc->nturns++;
        }
    } else if (json_is_object(tr)) {
        json_t *days, *times;
        if (check_keys(L, tr, "time_record", compact_keys) != 0 ||
            get_array(L, tr, "days", "time_record", 1, WL_MAX_TURNS, "days", &days) != 0 ||
            get_array(L, tr, "times", "time_record", 1, WL_MAX_TURNS, "times", &times) != 0)
            return -1;
        size_t nd = json_array_size(days), nt = json_array_size(times);
        if (nd * nt > WL_MAX_TURNS)
            return bad(L->why, "time_record: %zu days x %zu times = %zu turns, at most %d", nd,
                       nt, nd * nt, WL_MAX_TURNS);
        for (size_t i = 0; i < nd; i++) {
            snprintf(where, sizeof where, "time_record.days[%zu]", i);
            if (check_date(L, json_array_get(days, i), where) != 0)
                return -1;
        }
        for (size_t i = 0; i < nt; i++) {
            snprintf(where, sizeof where, "time_record.times[%zu]", i);
            if (check_time(L, json_array_get(times, i), where) != 0)
                return -1;
        }
        for (size_t i = 0; i < nd; i++)
            for (size_t k = 0; k < nt; k++) {
                struct wl_turn_time *t = &sc->turns[sc->nturns++];
                copy_text(t->date, sizeof t->date, json_string_value(json_array_get(days, i)));
                copy_text(t->time, sizeof t->time, json_string_value(json_array_get(times, k)));
            }
    } else {
        return bad(L->why, "time_record must be a list of {\"date\", \"time\"} or "
                           "{\"days\": [...], \"times\": [...]}");
    }
    if (sc->nturns == 0)
        return bad(L->why, "time_record: 0 turns");
    for (int i = 1; i < sc->nturns; i++) {
        const struct wl_turn_time *p = &sc->turns[i - 1], *t = &sc->turns[i];
        int c = strcmp(t->date, p->date);
        if (c < 0 || (c == 0 && strcmp(t->time, p->time) <= 0))
            return bad(L->why, "time_record: turn %d (%s %s) is not after turn %d (%s %s)",
                       i + 1, t->date, t->time, i, p->date, p->time);
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Set-up zones, units, start
 */

/* One zone: the squares of list key of setup_zones z (absent: every
 * playable square) into zone[]. */
static int parse_zone(struct ld *L, const json_t *z, const char *key, uint8_t *zone)
{
    char where[WHERE_MAX];
    json_t *arr = NULL;
    int n;
    if (z != NULL && get_array(L, z, key, "setup_zones", 0, WL_NSQ, "items", &arr))
        return -1;
    if (arr == NULL) {
        /* No zone given: a side may set up anywhere playable. */
        for (int s = 0; s < WL_NSQ; s++)
            zone[s] = (uint8_t)wl_grid_playable((wl_sq)s);
        return 0;
    }
    for (size_t i = 0; i < json_array_size(arr); i++) {
        snprintf(where, sizeof where, "setup_zones.%s[%zu]", key, i);
        n = 0;
        if (add_item(L, json_array_get(arr, i), where, NEED_PLAYABLE, L->sq, WL_NSQ, &n))
            return -1;
        for (int k = 0; k < n; k++)
            zone[L->sq[k]] = 1;
    }
    return 0;
}

/* setup_zones: "french", and for the allied side either "allied" or both
 * "prussian" and "anglo-allied" (docs/scenario-format.md). */
static int parse_zones(struct ld *L, const json_t *root)
{
    static const char *const keys[] = { "french", "allied", "prussian", "anglo-allied", NULL };
    const json_t *z = json_object_get(root, "setup_zones");
    struct wl_scenario *sc = L->sc;
    if (z != NULL) {
        if (!json_is_object(z))
            return bad(L->why, "setup_zones must be an object {\"french\", \"allied\"} or "
                               "{\"french\", \"prussian\", \"anglo-allied\"}");
        if (check_keys(L, z, "setup_zones", keys) != 0)
            return -1;
        int pr = json_object_get(z, "prussian") != NULL;
        int aa = json_object_get(z, "anglo-allied") != NULL;
        if ((pr || aa) && json_object_get(z, "allied") != NULL)
            return bad(L->why, "setup_zones: give allied, or prussian and anglo-allied, "
                               "not both");
        if (pr != aa)
            return bad(L->why, "setup_zones: give both prussian and anglo-allied, or neither");
        sc->nation_zones = pr;
    }
    if (parse_zone(L, z, "french", sc->zone[WL_FRENCH]) != 0)
        return -1;
    memcpy(sc->nation_zone[WL_NATION_FRENCH], sc->zone[WL_FRENCH], WL_NSQ);
    if (!sc->nation_zones) {
        if (parse_zone(L, z, "allied", sc->zone[WL_ALLIED]) != 0)
            return -1;
        memcpy(sc->nation_zone[WL_NATION_PRUSSIAN], sc->zone[WL_ALLIED], WL_NSQ);
        memcpy(sc->nation_zone[WL_NATION_ANGLO_ALLIED], sc->zone[WL_ALLIED], WL_NSQ);
        return 0;
    }
    if (parse_zone(L, z, "prussian", sc->nation_zone[WL_NATION_PRUSSIAN]) != 0 ||
        parse_zone(L, z, "anglo-allied", sc->nation_zone[WL_NATION_ANGLO_ALLIED]) != 0)
        return -1;
    for (int s = 0; s < WL_NSQ; s++)
        sc->zone[WL_ALLIED][s] = (uint8_t)(sc->nation_zone[WL_NATION_PRUSSIAN][s] |
                                           sc->nation_zone[WL_NATION_ANGLO_ALLIED][s]);
    return 0;
}

static int id_ok(const char *s)
{
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '-' || *s == '_' || *s == '.'))
            return 0;
    return 1;
}

/* ------------------------------------------------------------------------
 * The order of battle: formations and the commanders of team play
 */

static int find_formation(const struct wl_scenario *sc, const char *id)
{
    for (int f = 0; f < sc->nformations; f++)
        if (strcmp(sc->formations[f].id, id) == 0)
            return f;
    return -1;
}

int wl_scenario_commander(const struct wl_scenario *sc, int n, int i)
{
    if (n < 2 || n > sc->most_commanders || i < 0 || i >= sc->nunits)
        return 0;
    const struct wl_unit_def *d = &sc->units[i];
    for (int f = d->formation; f >= 0; f = sc->formations[f].parent) {
        int hq = sc->formations[f].hq;
        for (int k = 0; hq >= 0 && k < n; k++)
            if (sc->commanders[n - 2][d->side][k] == hq)
                return k;
    }
    return 0;
}

char *wl_scenario_slug(const char *name, char *buf, size_t size)
{
    size_t n = 0;
    int gap = 0;
    if (size == 0)
        return buf;
    for (const char *p = name; *p && n + 1 < size; p++) {
        char ch = *p;
        if (ch == '\'')
            continue;
        if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || (ch >= 'A' && ch <= 'Z')) {
            if (gap && n > 0 && n + 2 < size)
                buf[n++] = '_';
            gap = 0;
            buf[n++] = (char)(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
        } else {
            gap = 1;
        }
    }
    buf[n] = '\0';
    return buf;
}

/* formations: [{id, name, side | parent, hq?}], before the units (which
 * name them); a parent comes earlier in the list, so the formations of a
 * side form a tree. The HQs are read by parse_formation_hqs(), after the
 * units. */
static int parse_formations(struct ld *L, const json_t *root)
{
    static const char *const keys[] = { "id", "name", "side", "parent", "hq", NULL };
    static const char *const sides[] = { "french", "allied", NULL };
    struct wl_scenario *sc = L->sc;
    json_t *list;
    char where[WHERE_MAX];
    if (get_array(L, root, "formations", "scenario", 0, WL_MAX_FORMATIONS, "formations",
                  &list) != 0)
        return -1;
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *o = json_array_get(list, i);
        struct wl_formation *f = &sc->formations[sc->nformations];
        const char *id, *name, *side, *parent;
        snprintf(where, sizeof where, "formations[%zu]", i);
        if (!json_is_object(o))
            return bad(L->why, "%s: must be an object", where);
        if (get_str(L, o, "id", where, 1, 1000, &id) != 0)
            return -1;
        if (strlen(id) >= WL_ID_MAX || !id_ok(id))
            return bad(L->why, "%s: id '" SHOW "' is not 1 to %d letters, digits, '-', '_' "
                               "or '.'", where, id, WL_ID_MAX - 1);
        if (find_formation(sc, id) >= 0)
            return bad(L->why, "%s: duplicate id '%s'", where, id);
        snprintf(where, sizeof where, "formations[%zu] (%s)", i, id);
        if (check_keys(L, o, where, keys) != 0 ||
            get_str(L, o, "name", where, 1, 1000, &name) != 0 ||
            get_str(L, o, "side", where, 0, 64, &side) != 0 ||
            get_str(L, o, "parent", where, 0, 1000, &parent) != 0)
            return -1;
        if (!name_ok(name))
            return bad(L->why, "%s: name '" SHOW "...' is longer than %d characters", where,
                       name, WL_NAME_MAX - 1);
        int si = side ? lookup(sides, side) : -1;
        if (side && si < 0)
            return bad(L->why, "%s: side '" SHOW "' is not french or allied", where, side);
        f->parent = -1;
        if (parent != NULL) {
            f->parent = (int16_t)find_formation(sc, parent);
            if (f->parent < 0)
                return bad(L->why, "%s: parent '" SHOW "' is not a formation listed before it",
                           where, parent);
            if (si >= 0 && si != sc->formations[f->parent].side)
                return bad(L->why, "%s: side %s is not the side of its parent '%s'", where,
                           side, parent);
            si = sc->formations[f->parent].side;
        } else if (si < 0) {
            return bad(L->why, "%s: a formation without a parent names its side", where);
        }
        copy_text(f->id, sizeof f->id, id);
        copy_text(f->name, sizeof f->name, name);
        f->side = (uint8_t)si;
        f->hq = -1;
        sc->nformations++;
    }
    return 0;
}

/* The "hq" of each formation: an HQ unit of its side heading no other
 * formation. */
static int parse_formation_hqs(struct ld *L, const json_t *root)
{
    struct wl_scenario *sc = L->sc;
    const json_t *list = json_object_get(root, "formations");
    for (int f = 0; f < sc->nformations; f++) {
        const char *hq;
        char where[WHERE_MAX];
        snprintf(where, sizeof where, "formations[%d] (%s)", f, sc->formations[f].id);
        if (get_str(L, json_array_get(list, (size_t)f), "hq", where, 0, 1000, &hq) != 0)
            return -1;
        if (hq == NULL)
            continue;
        int u = wl_scenario_find_unit(sc, hq);
        if (u < 0)
            return bad(L->why, "%s: hq '" SHOW "' is not a unit", where, hq);
        if (sc->units[u].type != WL_HQ || sc->units[u].side != sc->formations[f].side)
            return bad(L->why, "%s: hq '%s' is not an HQ unit of the %s side", where, hq,
                       wl_side_name(sc->formations[f].side));
        for (int e = 0; e < f; e++)
            if (sc->formations[e].hq == u)
                return bad(L->why, "%s: hq '%s' already heads formation '%s'", where, hq,
                           sc->formations[e].id);
        sc->formations[f].hq = (int16_t)u;
    }
    return 0;
}

/* commanders: [{"french": [hq...], "allied": [hq...]}, ...], entry i for
 * i + 2 commanders a side, the commander-in-chief first. Every commander's
 * HQ is under his own command, and a subordinate heads a formation. */
static int parse_commanders(struct ld *L, const json_t *root)
{
    static const char *const keys[] = { "french", "allied", NULL };
    struct wl_scenario *sc = L->sc;
    json_t *list;
    char where[WHERE_MAX];
    sc->most_commanders = 1;
    if (get_array(L, root, "commanders", "scenario", 0, WL_MAX_COMMANDERS - 1,
                  "entries", &list) != 0)
        return -1;
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *o = json_array_get(list, i);
        int n = (int)i + 2;
        snprintf(where, sizeof where, "commanders[%zu]", i);
        if (!json_is_object(o))
            return bad(L->why, "%s: must be an object {\"french\": [...], \"allied\": [...]}",
                       where);
        if (check_keys(L, o, where, keys) != 0)
            return -1;
        for (int side = 0; side < WL_NSIDES; side++) {
            const json_t *hqs = json_object_get(o, keys[side]);
            if (!json_is_array(hqs) || (int)json_array_size(hqs) != n)
                return bad(L->why, "%s: %s must list %d HQ units (%d commanders a side, the "
                                   "commander-in-chief first)", where, keys[side], n, n);
            for (int k = 0; k < n; k++) {
                const char *id = text_of(json_array_get(hqs, (size_t)k));
                int u = id ? wl_scenario_find_unit(sc, id) : -1;
                if (u < 0 || sc->units[u].type != WL_HQ || sc->units[u].side != side)
                    return bad(L->why, "%s: %s[%d] is not an HQ unit of the %s side", where,
                               keys[side], k, keys[side]);
                for (int j = 0; j < k; j++)
                    if (sc->commanders[i][side][j] == u)
                        return bad(L->why, "%s: %s names %s twice", where, keys[side], id);
                sc->commanders[i][side][k] = (int16_t)u;
            }
        }
        sc->most_commanders = n;
        for (int side = 0; side < WL_NSIDES; side++)
            for (int k = 0; k < n; k++) {
                int u = sc->commanders[i][side][k], heads = 0;
                for (int f = 0; f < sc->nformations; f++)
                    heads |= sc->formations[f].hq == u;
                if (k > 0 && !heads)
                    return bad(L->why, "%s: %s[%d] (%s) heads no formation: a subordinate "
                                       "commands the formation his HQ heads", where,
                               keys[side], k, sc->units[u].id);
                char a[WL_SLUG_MAX], b[WL_SLUG_MAX];
                wl_scenario_slug(sc->units[u].name, a, sizeof a);
                if (a[0] == '\0')
                    return bad(L->why, "%s: %s[%d] (%s): the HQ's name gives no seat name "
                                       "(letters or digits)", where, keys[side], k,
                               sc->units[u].id);
                for (int j = 0; j < k; j++)
                    if (strcmp(a, wl_scenario_slug(sc->units[sc->commanders[i][side][j]].name,
                                                   b, sizeof b)) == 0)
                        return bad(L->why, "%s: %s[%d] and %s[%d] would both be seat %s:%s",
                                   where, keys[side], j, keys[side], k, keys[side], a);
                if (wl_scenario_commander(sc, n, u) != k)
                    return bad(L->why, "%s: %s[%d] (%s) would not command his own HQ: its "
                                       "formation is under another commander", where,
                               keys[side], k, sc->units[u].id);
            }
    }
    return 0;
}


static int parse_unit(struct ld *L, const json_t *u, size_t i)
{
    static const char *const keys[] = { "id", "name", "side", "nation", "type", "size",
                                        "combat", "move", "at", "arrive", "team_hq",
                                        "formation", NULL };
    static const char *const arrive_keys[] = { "turn", "entry", NULL };
    static const char *const sides[] = { "french", "allied", NULL };
    static const char *const nations[] = { "french", "prussian", "anglo-allied", NULL };
    static const char *const types[] = { "infantry", "cavalry", "artillery", "horse_artillery",
                                         "hq", NULL };
    struct wl_scenario *sc = L->sc;
    struct wl_unit_def *d = &sc->units[sc->nunits];
    char where[WHERE_MAX], sub[WHERE_MAX + 16], a[WL_SQ_NAME_MAX];
    const char *id, *name, *side, *nation, *type, *size, *entry;
    int combat = 0, move = 0, turn = 0;

    snprintf(where, sizeof where, "units[%zu]", i);
    if (!json_is_object(u))
        return bad(L->why, "%s: must be an object", where);
    if (get_str(L, u, "id", where, 1, 1000, &id) != 0)
        return -1;
    if (strlen(id) >= WL_ID_MAX || !id_ok(id))
        return bad(L->why, "%s: id '" SHOW "' is not 1 to %d letters, digits, '-', '_' or '.'",
                   where, id, WL_ID_MAX - 1);
    if (wl_scenario_find_unit(sc, id) >= 0)
        return bad(L->why, "%s: duplicate id '%s'", where, id);
    snprintf(where, sizeof where, "units[%zu] (%s)", i, id);
    if (check_keys(L, u, where, keys) != 0 || get_str(L, u, "name", where, 1, 1000, &name) != 0)
        return -1;
    if (!name_ok(name))
        return bad(L->why, "%s: name '" SHOW "...' is longer than %d characters", where, name,
                   WL_NAME_MAX - 1);

    /* 1) side, nation and type are words from fixed lists; the nation
     *    belongs to the side. */
    if (get_str(L, u, "side", where, 1, 64, &side) != 0 ||
        get_str(L, u, "nation", where, 1, 64, &nation) != 0 ||
        get_str(L, u, "type", where, 1, 64, &type) != 0 ||
        get_str(L, u, "size", where, 0, sizeof d->size - 1, &size) != 0)
        return -1;
    int si = lookup(sides, side), ni = lookup(nations, nation), ti = lookup(types, type);
    if (si < 0)
        return bad(L->why, "%s: side '" SHOW "' is not french or allied", where, side);
    if (ni < 0)
        return bad(L->why, "%s: nation '" SHOW "' is not french, prussian or anglo-allied", where,
                   nation);
    if ((si == WL_FRENCH) != (ni == WL_NATION_FRENCH))
        return bad(L->why, "%s: a %s unit is not on the %s side", where, nation, side);
    if (ti < 0)
        return bad(L->why,
                   "%s: type '" SHOW "' is not infantry, cavalry, artillery, horse_artillery or hq",
                   where, type);

    /* 2) Printed factors: combat 1..15 (0 for HQ, which have none), move 1..12. */
    if (get_int(L, u, "combat", where, 1, 0, WL_STACK_LIMIT, &combat) != 0 ||
        get_int(L, u, "move", where, 1, 1, 12, &move) != 0)
        return -1;
    if (ti == WL_HQ && combat != 0)
        return bad(L->why, "%s: HQ units have no combat factor (combat must be 0)", where);
    if (ti != WL_HQ && combat == 0)
        return bad(L->why, "%s: combat 0 is only for HQ units (1..%d)", where, WL_STACK_LIMIT);

    /* 3) team_hq marks HQ units used only when more than two play. */
    const json_t *team = json_object_get(u, "team_hq");
    if (team != NULL && !json_is_boolean(team))
        return bad(L->why, "%s: team_hq must be true or false", where);
    if (json_is_true(team) && ti != WL_HQ)
        return bad(L->why, "%s: team_hq is only for HQ units", where);

    copy_text(d->id, sizeof d->id, id);
    copy_text(d->name, sizeof d->name, name);
    copy_text(d->size, sizeof d->size, size ? size : "");
    d->side = (uint8_t)si;
    d->nation = (uint8_t)ni;
    d->type = (uint8_t)ti;
    d->combat = (uint8_t)combat;
    d->move = (uint8_t)move;
    d->team_hq = (uint8_t)json_is_true(team);
    d->setup = WL_SQ_NONE;
    d->arrive_turn = 0;
    d->entry = -1;
    d->formation = -1;

    /* 3b) formation: one of the scenario's formations of the unit's side. */
    const char *formation;
    if (get_str(L, u, "formation", where, 0, 1000, &formation) != 0)
        return -1;
    if (formation != NULL) {
        int f = find_formation(sc, formation);
        if (f < 0)
            return bad(L->why, "%s: formation '" SHOW "' is not one of formations[]", where,
                       formation);
        if (sc->formations[f].side != si)
            return bad(L->why, "%s: formation '%s' is of the other side", where, formation);
        d->formation = (int16_t)f;
    }

    /* 4) Either "at" a playable square inside the nation's set-up zone
     *    (so inside the side's too), or "arrive" (allied units only) on a
     *    turn of the record at an entry. */
    const json_t *at = json_object_get(u, "at"), *arrive = json_object_get(u, "arrive");
    if ((at == NULL) == (arrive == NULL))
        return bad(L->why, "%s: give either at (set up) or arrive (reinforcement)", where);
    if (at != NULL) {
        if (get_sq(L, u, "at", where, NEED_PLAYABLE, &d->setup) != 0)
            return -1;
        if (!sc->nation_zone[ni][d->setup])
            return bad(L->why, "%s: %s is outside the %s set-up zone", where,
                       wl_grid_name(d->setup, a), sc->nation_zones ? nation : side);
    } else {
        snprintf(sub, sizeof sub, "%s: arrive", where);
        if (si != WL_ALLIED)
            return bad(L->why, "%s: only allied units arrive (the French set up every unit)",
                       where);
        if (!json_is_object(arrive))
            return bad(L->why, "%s must be an object {\"turn\", \"entry\"}", sub);
        if (check_keys(L, arrive, sub, arrive_keys) != 0 ||
            get_int(L, arrive, "turn", sub, 1, 1, 1000, &turn) != 0 ||
            get_str(L, arrive, "entry", sub, 1, 1000, &entry) != 0)
            return -1;
        if (turn > sc->nturns)
            return bad(L->why, "%s: arrive.turn %d is after the last turn of the time record "
                               "(%d)",
                       where, turn, sc->nturns);
        int e = wl_map_find_entry(&sc->map, entry);
        if (e < 0)
            return bad(L->why, "%s: arrive.entry '" SHOW "' is not an entry", where, entry);
        d->arrive_turn = (int8_t)turn;
        d->entry = (int8_t)e;
    }
    sc->nunits++;
    return 0;
}

static int parse_units(struct ld *L, const json_t *root)
{
    const json_t *units = json_object_get(root, "units");
    char a[WL_SQ_NAME_MAX];
    if (units == NULL)
        return bad(L->why, "scenario: missing key 'units'");
    if (json_is_object(units))
        return bad(L->why, "units: only a scenario with a base may patch units with "
                           "{\"replace\"} or {\"set\", \"remove\"}");
    if (!json_is_array(units))
        return bad(L->why, "units must be a list");
    if (json_array_size(units) > WL_MAX_UNITS)
        return bad(L->why, "units: %zu units, at most %d", json_array_size(units),
                   WL_MAX_UNITS);
    for (size_t i = 0; i < json_array_size(units); i++)
        if (parse_unit(L, json_array_get(units, i), i) != 0)
            return -1;

    /* Set-up stacking: at most 15 combat factors a square, one side a square. */
    memset(L->factors, 0, sizeof L->factors);
    memset(L->side_at, -1, sizeof L->side_at);
    for (int i = 0; i < L->sc->nunits; i++) {
        const struct wl_unit_def *d = &L->sc->units[i];
        if (d->setup == WL_SQ_NONE)
            continue;
        if (L->side_at[d->setup] >= 0 && L->side_at[d->setup] != d->side)
            return bad(L->why, "set-up: %s holds both french and allied units (units[%d] %s)",
                       wl_grid_name(d->setup, a), i, d->id);
        L->side_at[d->setup] = (int8_t)d->side;
        L->factors[d->setup] = (uint16_t)(L->factors[d->setup] + d->combat);
    }
    for (int s = 0; s < WL_NSQ; s++)
        if (L->factors[s] > WL_STACK_LIMIT)
            return bad(L->why, "set-up: %d combat factors on %s (over the %d limit)",
                       L->factors[s], wl_grid_name((wl_sq)s, a), WL_STACK_LIMIT);
    return 0;
}

static int parse_start(struct ld *L, const json_t *root)
{
    static const char *const keys[] = { "turn", "phase", NULL };
    static const struct { const char *name; int phase; } phases[] = {
        { "setup_french", WL_PH_SETUP_FRENCH },
        { "setup_allied", WL_PH_SETUP_ALLIED },
        { "french_move", WL_PH_FRENCH_MOVE },
        { "allied_move", WL_PH_ALLIED_MOVE },
    };
    const json_t *st = json_object_get(root, "start");
    const char *phase;
    int turn = 1;
    L->sc->start_turn = 1;
    L->sc->start_phase = WL_PH_SETUP_FRENCH;
    if (st == NULL)
        return 0;
    if (!json_is_object(st))
        return bad(L->why, "start must be an object {\"turn\", \"phase\"}");
    if (check_keys(L, st, "start", keys) != 0 ||
        get_int(L, st, "turn", "start", 1, 1, L->sc->nturns, &turn) != 0 ||
        get_str(L, st, "phase", "start", 1, 64, &phase) != 0)
        return -1;
    for (size_t i = 0; i < sizeof phases / sizeof phases[0]; i++) {
        if (strcmp(phases[i].name, phase) != 0)
            continue;
        if (phases[i].phase <= WL_PH_SETUP_ALLIED && turn != 1)
            return bad(L->why, "start: %s is before turn 1, not turn %d", phase, turn);
        L->sc->start_turn = turn;
        L->sc->start_phase = phases[i].phase;
        return 0;
    }
    return bad(L->why, "start: phase '" SHOW "' is not setup_french, setup_allied, french_move "
                       "or allied_move",
               phase);
}

/* The file header: what a scenario file must say about itself. */
static int check_header(struct wr_refusal *why, const json_t *root)
{
    const json_t *w = json_object_get(root, "warroom"), *v = json_object_get(root, "version");
    if (text_of(w) == NULL || strcmp(text_of(w), "scenario") != 0)
        return bad(why, "scenario: \"warroom\": \"scenario\" is missing (not a scenario file?)");
    if (!json_is_integer(v))
        return bad(why, "scenario: \"version\": 1 is missing");
    if (json_integer_value(v) != 1)
        return bad(why, "scenario: version %lld is not supported (this is version 1)",
                   (long long)json_integer_value(v));
    return 0;
}

/* Read effective JSON (no "base") into L->sc. */
static int parse(struct ld *L, const json_t *root)
{
    static const char *const keys[] = { "warroom", "version", "name", "ruleset", "base",
                                        "description", "map", "crt", "units", "time_record",
                                        "setup_zones", "start", "formations", "commanders",
                                        NULL };
    const char *name, *ruleset, *description;
    memset(L->sc, 0, sizeof *L->sc);
    memset(L->river_item, -1, sizeof L->river_item);
    memset(L->slope_item, 0, sizeof L->slope_item);
    if (check_keys(L, root, "scenario", keys) != 0 || check_header(L->why, root) != 0 ||
        get_str(L, root, "name", "scenario", 1, 1000, &name) != 0 ||
        get_str(L, root, "ruleset", "scenario", 1, 64, &ruleset) != 0 ||
        get_str(L, root, "description", "scenario", 0, DESCRIPTION_MAX, &description) != 0)
        return -1;
    if (!name_ok(name))
        return bad(L->why, "scenario: name '" SHOW "...' is longer than %d characters", name,
                   WL_NAME_MAX - 1);
    if (strcmp(ruleset, "waterloo") != 0)
        return bad(L->why, "scenario: ruleset '" SHOW "' is not waterloo", ruleset);
    if (parse_map(L, root) != 0 || parse_crt(L, root) != 0 || parse_time_record(L, root) != 0 ||
        parse_zones(L, root) != 0 || parse_formations(L, root) != 0 ||
        parse_units(L, root) != 0 || parse_formation_hqs(L, root) != 0 ||
        parse_commanders(L, root) != 0 || parse_start(L, root) != 0)
        return -1;
    copy_text(L->sc->name, sizeof L->sc->name, name);
    return 0;
}

/* ------------------------------------------------------------------------
 * Bases
 */

/* A base name: 1..47 characters, names of letters, digits, '_', '-' and
 * '.' joined by '/'; ".." may go up a directory; no absolute paths. */
static int base_name_ok(const char *s, size_t len)
{
    if (len == 0 || len >= WL_NAME_MAX || strlen(s) != len)
        return 0;
    size_t seg = 0;
    for (size_t i = 0; i <= len; i++) {
        char ch = s[i];
        if (ch == '/' || ch == '\0') {
            if (seg == 0)
                return 0;
            if (s[i - seg] == '.' && !(seg == 2 && s[i - 1] == '.'))
                return 0;               /* ".", ".hidden"; ".." is allowed */
            seg = 0;
            continue;
        }
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '-' || ch == '_' || ch == '.'))
            return 0;
        seg++;
    }
    return 1;
}

/* Index in the units list of the unit with id, or -1. */
static int unit_index(const json_t *units, const char *id)
{
    for (size_t i = 0; i < json_array_size(units); i++) {
        const json_t *u = json_array_get(units, i);
        const json_t *v = json_object_get(u, "id");
        if (text_of(v) != NULL && strcmp(text_of(v), id) == 0)
            return (int)i;
    }
    return -1;
}

/* Is id named in list[0..upto) (ids, or unit objects with an id)? */
static int list_has_id(const json_t *list, const char *id, size_t upto)
{
    for (size_t i = 0; i < json_array_size(list) && i < upto; i++) {
        const json_t *v = json_array_get(list, i);
        if (json_is_object(v))
            v = json_object_get(v, "id");
        if (text_of(v) != NULL && strcmp(text_of(v), id) == 0)
            return 1;
    }
    return 0;
}

/* Apply a units patch ({"replace"} or {"set", "remove"}) to out.units. */
static int patch_units(json_t *out, const json_t *patch, struct wr_refusal *why)
{
    const json_t *replace = json_object_get(patch, "replace");
    const json_t *set = json_object_get(patch, "set"), *remove = json_object_get(patch, "remove");
    json_t *units = json_object_get(out, "units");
    json_t *p = (json_t *)patch;
    for (void *it = json_object_iter(p); it; it = json_object_iter_next(p, it)) {
        const char *k = json_object_iter_key(it);
        if (strcmp(k, "replace") != 0 && strcmp(k, "set") != 0 && strcmp(k, "remove") != 0)
            return bad(why, "units: unknown key '" SHOW "' (want replace, or set and remove)",
                       k);
    }
    if (replace != NULL) {
        if (set != NULL || remove != NULL)
            return bad(why, "units: replace cannot go with set or remove");
        if (!json_is_array(replace))
            return bad(why, "units.replace must be a list of units");
        if (json_object_set_new(out, "units", json_deep_copy(replace)) != 0)
            return bad(why, "out of memory");
        return 0;
    }
    if (set == NULL && remove == NULL)
        return bad(why, "units: a patch needs replace, set or remove");
    if (!json_is_array(units))
        return bad(why, "units: the base has no list of units to patch");
    if (remove != NULL && !json_is_array(remove))
        return bad(why, "units.remove must be a list of unit ids");
    if (set != NULL && !json_is_array(set))
        return bad(why, "units.set must be a list of unit objects");

    for (size_t i = 0; i < json_array_size(remove); i++) {
        const json_t *v = json_array_get(remove, i);
        if (text_of(v) == NULL)
            return bad(why, "units.remove[%zu]: must be a unit id", i);
        int k = unit_index(units, json_string_value(v));
        if (k < 0)
            return bad(why, "units.remove[%zu]: no unit '" SHOW "' in the base", i,
                       json_string_value(v));
        json_array_remove(units, (size_t)k);
    }
    for (size_t i = 0; i < json_array_size(set); i++) {
        const json_t *s = json_array_get(set, i);
        const json_t *idv = json_object_get(s, "id");
        if (!json_is_object(s))
            return bad(why, "units.set[%zu]: must be a unit object", i);
        if (text_of(idv) == NULL)
            return bad(why, "units.set[%zu]: missing id (a string)", i);
        const char *id = json_string_value(idv);
        if (list_has_id(remove, id, (size_t)-1))
            return bad(why, "units.set[%zu] (" SHOW "): the unit is also in remove", i, id);
        if (list_has_id(set, id, i))
            return bad(why, "units.set[%zu] (" SHOW "): the id is set twice", i, id);
        int k = unit_index(units, id);
        if (k < 0) {
            if (json_array_append_new(units, json_deep_copy(s)) != 0)
                return bad(why, "out of memory");
            continue;
        }
        json_t *u = json_array_get(units, (size_t)k);
        if (!json_is_object(u))
            return bad(why, "units[%d]: must be an object", k);
        json_t *sm = (json_t *)s;
        for (void *it = json_object_iter(sm); it; it = json_object_iter_next(sm, it)) {
            const char *key = json_object_iter_key(it);
            json_t *v = json_object_iter_value(it);
            /* A unit is either set up or arriving: giving one drops the other. */
            if (strcmp(key, "at") == 0)
                json_object_del(u, "arrive");
            if (strcmp(key, "arrive") == 0)
                json_object_del(u, "at");
            if (json_is_null(v))
                json_object_del(u, key);
            else if (json_object_set_new(u, key, json_deep_copy(v)) != 0)
                return bad(why, "out of memory");
        }
    }
    return 0;
}

/* What the resolver is asked for, and where it may say why it failed. */
struct resolving {
    wl_scenario_resolver resolve;
    void *ctx;
    const char *error;                  /* resolver's own message, or NULL */
};

static int load(struct wl_scenario *sc, const json_t *json, struct resolving *res, int depth,
                json_t **effective, struct wr_refusal *why);

/* Form the effective JSON of json: *owned is NULL when json itself is
 * effective (it names no base), else a new object (caller releases) laid
 * over the loaded and validated base. */
static int form_effective(const json_t *json, struct resolving *res, int depth, json_t **owned,
                          struct wr_refusal *why)
{
    *owned = NULL;
    if (!json_is_object(json))
        return bad(why, "a scenario must be a JSON object");
    if (check_header(why, json) != 0)
        return -1;
    const json_t *bv = json_object_get(json, "base");
    if (bv == NULL)
        return 0;
    if (!json_is_string(bv) || !base_name_ok(json_string_value(bv), json_string_length(bv)))
        return bad(why, "scenario: base must name a scenario (letters, digits, '-', '_', '.', "
                        "with '/' between directory names)");
    char name[WL_NAME_MAX];
    copy_text(name, sizeof name, json_string_value(bv));
    if (res->resolve == NULL)
        return bad(why, "base '%s': no way to find base scenarios here", name);
    if (depth >= BASE_DEPTH_MAX)
        return bad(why, "base '%s': more than %d levels of base scenarios (a cycle?)", name,
                   BASE_DEPTH_MAX);

    json_t *bj = res->resolve(name, res->ctx);
    if (bj == NULL) {
        if (res->error && res->error[0])
            return bad(why, "base '%s': %.200s", name, res->error);
        return bad(why, "base '%s': not found", name);
    }
    /* The base is a whole scenario: load and validate it first, so that
     * its errors are reported against it. */
    struct wl_scenario *tmp = malloc(sizeof *tmp);
    json_t *beff = NULL;
    int rc = tmp ? load(tmp, bj, res, depth + 1, &beff, why) : bad(why, "out of memory");
    free(tmp);
    if (rc != 0) {
        json_decref(bj);
        prefix_base(why, name);
        return -1;
    }
    json_t *out = json_deep_copy(beff ? beff : bj);
    json_decref(beff);
    json_decref(bj);
    if (out == NULL)
        return bad(why, "out of memory");
    json_object_del(out, "base");

    /* Each key present replaces the base's wholly; null removes it; a
     * units object patches the base's units. */
    json_t *o = (json_t *)json;
    for (void *it = json_object_iter(o); it; it = json_object_iter_next(o, it)) {
        const char *key = json_object_iter_key(it);
        json_t *v = json_object_iter_value(it);
        if (strcmp(key, "base") == 0)
            continue;
        if (json_is_null(v)) {
            json_object_del(out, key);
            continue;
        }
        if (strcmp(key, "units") == 0 && json_is_object(v)) {
            if (patch_units(out, v, why) != 0) {
                json_decref(out);
                return -1;
            }
            continue;
        }
        if (json_object_set_new(out, key, json_deep_copy(v)) != 0) {
            json_decref(out);
            return bad(why, "out of memory");
        }
    }
    *owned = out;
    return 0;
}

/* Load json into sc; when effective is not NULL, hand back the effective
 * JSON (NULL when json itself is; caller releases). */
static int load(struct wl_scenario *sc, const json_t *json, struct resolving *res, int depth,
                json_t **effective, struct wr_refusal *why)
{
    json_t *owned = NULL;
    if (form_effective(json, res, depth, &owned, why) != 0)
        return -1;
    struct ld *L = malloc(sizeof *L);
    if (L == NULL) {
        json_decref(owned);
        return bad(why, "out of memory");
    }
    memset(L, 0, sizeof *L);
    L->sc = sc;
    L->why = why;
    int rc = parse(L, owned ? owned : json);
    free(L);
    if (rc == 0 && effective != NULL)
        *effective = owned;
    else
        json_decref(owned);
    return rc;
}

int wl_scenario_load(struct wl_scenario *sc, const json_t *json, wl_scenario_resolver resolve,
                     void *ctx, struct wr_refusal *why)
{
    struct wr_refusal local;
    struct resolving res = { resolve, ctx, NULL };
    if (why == NULL)
        why = &local;
    memset(sc, 0, sizeof *sc);
    if (json == NULL)
        return bad(why, "no scenario JSON");
    return load(sc, json, &res, 0, NULL, why);
}

/* ------------------------------------------------------------------------
 * Files
 */

#define PATH_MAX_LEN 4096

struct file_ctx {
    char dir[PATH_MAX_LEN];             /* directory of the file last read */
    char error[WR_REFUSAL_MSG_MAX];     /* why a base could not be read */
};

/* dir := the directory part of path ("." when none). */
static void set_dir(char *dir, const char *path)
{
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        copy_text(dir, PATH_MAX_LEN, ".");
    else if (slash == path)
        copy_text(dir, PATH_MAX_LEN, "/");
    else
        snprintf(dir, PATH_MAX_LEN, "%.*s", (int)(slash - path), path);
}

/* Read and parse a JSON file of at most FILE_MAX bytes. Returns a new
 * reference, or NULL with err filled, or NULL with *missing set when the
 * file does not exist. */
static json_t *read_json(const char *path, char *err, size_t errlen, int *missing)
{
    *missing = 0;
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        if (errno == ENOENT || errno == ENOTDIR)
            *missing = 1;
        snprintf(err, errlen, "%.200s: %s", path, strerror(errno));
        return NULL;
    }
    char *buf = NULL;
    size_t n = 0, cap = 0;
    int too_big = 0, oom = 0;
    for (;;) {
        if (n == cap) {
            if (cap == FILE_MAX + 1) {
                too_big = 1;
                break;
            }
            size_t ncap = cap ? cap * 2 : 64 * 1024;
            if (ncap > FILE_MAX + 1)
                ncap = FILE_MAX + 1;
            char *nb = realloc(buf, ncap);
            if (nb == NULL) {
                oom = 1;
                break;
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    int read_error = ferror(f);
    fclose(f);
    json_t *j = NULL;
    if (too_big || n > FILE_MAX) {
        snprintf(err, errlen, "%.200s: larger than %u MiB", path, FILE_MAX >> 20);
    } else if (oom) {
        snprintf(err, errlen, "%.200s: out of memory", path);
    } else if (read_error) {
        snprintf(err, errlen, "%.200s: read error", path);
    } else {
        json_error_t je;
        j = json_loadb(buf ? buf : "", n, JSON_REJECT_DUPLICATES, &je);
        if (j == NULL)
            snprintf(err, errlen, "%.150s:%d:%d: %.90s", path, je.line, je.column, je.text);
    }
    free(buf);
    return j;
}

static json_t *file_resolve(const char *name, void *vctx)
{
    struct file_ctx *fc = vctx;
    char path[PATH_MAX_LEN + WL_NAME_MAX + 32];
    int missing;
    for (int i = 0; i < 2; i++) {
        if (i == 0)
            snprintf(path, sizeof path, "%s/%s.json", fc->dir, name);
        else
            snprintf(path, sizeof path, "%s/%s/scenario.json", fc->dir, name);
        json_t *j = read_json(path, fc->error, sizeof fc->error, &missing);
        if (j != NULL) {
            fc->error[0] = '\0';
            set_dir(fc->dir, path);     /* a base's own base is next to it */
            return j;
        }
        if (!missing)
            return NULL;
    }
    snprintf(fc->error, sizeof fc->error, "neither %s.json nor %s/scenario.json in %.150s",
             name, name, fc->dir);
    return NULL;
}

int wl_scenario_load_file(struct wl_scenario *sc, const char *path, struct wr_refusal *why)
{
    struct wr_refusal local;
    int missing;
    if (why == NULL)
        why = &local;
    memset(sc, 0, sizeof *sc);
    struct file_ctx *fc = malloc(sizeof *fc);
    if (fc == NULL)
        return bad(why, "out of memory");
    fc->error[0] = '\0';
    json_t *j = read_json(path, fc->error, sizeof fc->error, &missing);
    if (j == NULL) {
        bad(why, "%s", fc->error);
        free(fc);
        return -1;
    }
    set_dir(fc->dir, path);
    fc->error[0] = '\0';
    struct resolving res = { file_resolve, fc, fc->error };
    int rc = load(sc, j, &res, 0, NULL, why);
    json_decref(j);
    free(fc);
    return rc;
}
