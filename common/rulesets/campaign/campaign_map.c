/*
 * campaign_map.c - reading a campaign map (campaign_map.h): the file's
 * header, the towns, their positions and their adjacency, checked in the
 * order docs/scenario-format.md lists the rules.
 */
#include "campaign_map.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define SHOW "%.40s"            /* user text quoted in messages */

static int bad(struct wr_refusal *why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Fill why with a bad_scenario refusal; returns -1. */
static int bad(struct wr_refusal *why, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    wr_campaign_vrefuse(why, WR_CR_BAD_SCENARIO, fmt, ap);
    va_end(ap);
    return -1;
}

/* Every key of obj is one of keys (NULL-terminated)? */
static int known_keys(const json_t *obj, const char *const *keys, const char *where,
                      struct wr_refusal *why)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)obj, key, v) {
        int ok = 0;
        for (int i = 0; keys[i] && !ok; i++)
            ok = strcmp(keys[i], key) == 0;
        if (!ok)
            return bad(why, "%s: unknown key '" SHOW "'", where, key);
    }
    return 0;
}

/* A string at obj.key of 1..max bytes, without NUL or control characters. */
static int get_text(const json_t *obj, const char *key, const char *where, int required,
                    size_t max, const char **out, struct wr_refusal *why)
{
    json_t *v = json_object_get(obj, key);
    *out = NULL;
    if (v == NULL)
        return required ? bad(why, "%s: missing key '%s'", where, key) : 0;
    if (!json_is_string(v))
        return bad(why, "%s: %s must be a string", where, key);
    const char *s = json_string_value(v);
    size_t n = json_string_length(v);
    if (strlen(s) != n)
        return bad(why, "%s: %s contains a NUL character", where, key);
    if (n == 0)
        return bad(why, "%s: %s is empty", where, key);
    if (n > max)
        return bad(why, "%s: %s '" SHOW "...' is longer than %zu bytes", where, key, s, max);
    *out = s;
    return 0;
}

static int has_control(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 1;
    return 0;
}

/* The header: what the file is, its name and description. */
static int load_header(struct wr_campaign_map *m, const json_t *j, struct wr_refusal *why)
{
    static const char *const keys[] = { "warroom", "version", "name", "ruleset", "description",
                                        "towns", NULL };
    const char *w, *ruleset, *name, *description;
    if (!json_is_object(j))
        return bad(why, "scenario: the file must hold a JSON object");
    /* What the file is comes first: a Waterloo scenario given to the
     * campaign is told so, not that its "map" is an unknown key. */
    if (get_text(j, "warroom", "scenario", 1, 64, &w, why) != 0)
        return -1;
    if (strcmp(w, "scenario") != 0)
        return bad(why, "scenario: warroom is '" SHOW "', not 'scenario'", w);
    json_t *version = json_object_get(j, "version");
    if (!json_is_integer(version) || json_integer_value(version) != 1)
        return bad(why, "scenario: version must be 1");
    if (get_text(j, "ruleset", "scenario", 1, 64, &ruleset, why) != 0)
        return -1;
    if (strcmp(ruleset, "campaign") != 0)
        return bad(why, "scenario: ruleset '" SHOW "' is not campaign", ruleset);
    if (known_keys(j, keys, "scenario", why) != 0)
        return -1;
    if (get_text(j, "name", "scenario", 1, WR_CAMPAIGN_NAME_MAX - 1, &name, why) != 0 ||
        get_text(j, "description", "scenario", 0, WR_CAMPAIGN_DESCRIPTION_MAX, &description,
                 why) != 0)
        return -1;
    snprintf(m->name, sizeof m->name, "%s", name);
    return 0;
}

/* A coordinate: a finite JSON number within WR_CAMPAIGN_COORD_MAX. */
static int get_coord(const json_t *v, const char *where, const char *key, double *out,
                     struct wr_refusal *why)
{
    if (!json_is_number(v))
        return bad(why, "%s: %s must be a number", where, key);
    double d = json_number_value(v);
    if (!isfinite(d) || d > WR_CAMPAIGN_COORD_MAX || d < -WR_CAMPAIGN_COORD_MAX)
        return bad(why, "%s: %s must be between -1000000 and 1000000", where, key);
    *out = d;
    return 0;
}

/* Pass 1: every town's own entry (name, position, the shape of its list). */
static int load_town(struct wr_campaign_map *m, int i, const json_t *t, struct wr_refusal *why)
{
    static const char *const keys[] = { "name", "x", "y", "adjacent", NULL };
    char where[96];
    const char *name;
    snprintf(where, sizeof where, "towns[%d]", i);
    if (!json_is_object(t))
        return bad(why, "%s: a town is an object {\"name\", \"adjacent\", \"x\", \"y\"}", where);
    if (get_text(t, "name", where, 1, WR_CAMPAIGN_NAME_MAX - 1, &name, why) != 0)
        return -1;
    snprintf(where, sizeof where, "towns[%d] (" SHOW ")", i, name);
    if (known_keys(t, keys, where, why) != 0)
        return -1;
    if (has_control(name))
        return bad(why, "%s: the name contains a control character", where);
    for (int k = 0; k < i; k++)
        if (strcmp(m->towns[k].name, name) == 0)
            return bad(why, "%s: the name is also towns[%d]'s", where, k);
    struct wr_campaign_town *town = &m->towns[i];
    snprintf(town->name, sizeof town->name, "%s", name);
    json_t *x = json_object_get(t, "x"), *y = json_object_get(t, "y");
    if ((x == NULL) != (y == NULL))
        return bad(why, "%s: give both x and y, or neither", where);
    if (x) {
        if (get_coord(x, where, "x", &town->x, why) != 0 ||
            get_coord(y, where, "y", &town->y, why) != 0)
            return -1;
        town->has_xy = 1;
    }
    json_t *adj = json_object_get(t, "adjacent");
    if (adj == NULL)
        return bad(why, "%s: missing key 'adjacent'", where);
    if (!json_is_array(adj))
        return bad(why, "%s: adjacent must be a list of town names", where);
    size_t k;
    json_t *a;
    json_array_foreach(adj, k, a) {
        if (!json_is_string(a))
            return bad(why, "%s: adjacent[%zu] must be a town name", where, k);
    }
    return 0;
}

/* Pass 2: the adjacency lists, once every name is known. */
static int load_adjacency(struct wr_campaign_map *m, const json_t *towns, struct wr_refusal *why)
{
    for (int i = 0; i < m->ntowns; i++) {
        const json_t *adj = json_object_get(json_array_get(towns, (size_t)i), "adjacent");
        size_t k;
        json_t *a;
        json_array_foreach(adj, k, a) {
            const char *other = json_string_value(a);
            int j = wr_campaign_map_find(m, other);
            if (j < 0)
                return bad(why, "towns[%d] (%s): adjacent town '" SHOW "' is not on the map", i,
                           m->towns[i].name, other);
            if (j == i)
                return bad(why, "towns[%d] (%s): a town is not adjacent to itself", i,
                           m->towns[i].name);
            if (m->towns[i].adj >> j & 1u)
                return bad(why, "towns[%d] (%s): '%s' is listed twice", i, m->towns[i].name,
                           other);
            m->towns[i].adj |= (uint64_t)1 << j;
        }
    }
    /* Adjacency goes both ways: each list must name every town naming it. */
    for (int i = 0; i < m->ntowns; i++)
        for (int j = 0; j < m->ntowns; j++)
            if ((m->towns[i].adj >> j & 1u) && !(m->towns[j].adj >> i & 1u))
                return bad(why, "towns[%d] (%s): lists '%s', but towns[%d] (%s) does not list "
                           "'%s'", i, m->towns[i].name, m->towns[j].name, j, m->towns[j].name,
                           m->towns[i].name);
    return 0;
}

/* Every town reachable from town 0. */
static int check_connected(const struct wr_campaign_map *m, struct wr_refusal *why)
{
    uint64_t seen = 1, frontier = 1;
    while (frontier) {
        uint64_t next = 0;
        for (int i = 0; i < m->ntowns; i++)
            if (frontier >> i & 1u)
                next |= m->towns[i].adj;
        frontier = next & ~seen;
        seen |= next;
    }
    for (int i = 0; i < m->ntowns; i++)
        if (!(seen >> i & 1u))
            return bad(why, "towns: the map is not connected: towns[%d] (%s) cannot be reached "
                       "from towns[0] (%s)", i, m->towns[i].name, m->towns[0].name);
    return 0;
}

int wr_campaign_map_load(struct wr_campaign_map *m, const json_t *j, struct wr_refusal *why)
{
    memset(m, 0, sizeof *m);
    /* 1) the header */
    if (load_header(m, j, why) != 0)
        return -1;
    /* 2) the number of towns */
    json_t *towns = json_object_get(j, "towns");
    if (towns == NULL)
        return bad(why, "scenario: missing key 'towns'");
    if (!json_is_array(towns))
        return bad(why, "scenario: towns must be a list");
    size_t n = json_array_size(towns);
    if (n < WR_CAMPAIGN_TOWNS_MIN || n > WR_CAMPAIGN_TOWNS_MAX)
        return bad(why, "towns: %zu towns, a campaign map has %d to %d", n,
                   WR_CAMPAIGN_TOWNS_MIN, WR_CAMPAIGN_TOWNS_MAX);
    m->ntowns = (int)n;
    /* 3) each town: name (unique), position, list */
    for (int i = 0; i < m->ntowns; i++)
        if (load_town(m, i, json_array_get(towns, (size_t)i), why) != 0)
            return -1;
    /* 4) adjacency: known towns, not itself, not twice, symmetric */
    if (load_adjacency(m, towns, why) != 0)
        return -1;
    /* 5) one connected map */
    return check_connected(m, why);
}

int wr_campaign_map_load_file(struct wr_campaign_map *m, const char *path,
                              struct wr_refusal *why)
{
    json_error_t err;
    json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
    if (j == NULL) {
        memset(m, 0, sizeof *m);
        return bad(why, "%s:%d:%d: %s", path, err.line, err.column, err.text);
    }
    int rc = wr_campaign_map_load(m, j, why);
    json_decref(j);
    return rc;
}

int wr_campaign_map_find(const struct wr_campaign_map *m, const char *name)
{
    for (int i = 0; name && i < m->ntowns; i++)
        if (strcmp(m->towns[i].name, name) == 0)
            return i;
    return -1;
}
