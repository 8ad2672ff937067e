/*
 * catalog.c - the `rulesets` answer, built once at start-up (catalog.h).
 */
#include "catalog.h"

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "addr.h"
#include "conn.h"
#include "ruleset.h"
#include "server.h"

struct wrd_catalog {
    json_t *answer;             /* {"type":"rulesets","rulesets":[...],"options":[...]} */
    size_t bytes;               /* its size as sent, for the address's budget */
};

/* The server's own create options (docs/protocol.md, create; checked by
 * games.c's check_options): name, help, default. */
static const struct {
    const char *name, *help;
    int is_bool, value;
} server_options[] = {
    { "spectators", "true or false: whether anyone may watch (default true)", 1, 1 },
    { "open_seats", "true or false: whether anyone may claim the other seats from the lobby, "
                    "not only by invite (default false)", 1, 0 },
    { "deadline_seconds", "seconds allowed for each decision: 0 for none (the default), or "
                          "1..2592000 (30 days); a seat out of time forfeits", 0, 0 },
};

/* Scenario names found under the folder, before they are read. */
struct names {
    int n;
    char *name[WRD_CATALOG_MAX_SCENARIOS];
};

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void add_name(struct names *ns, const char *prefix, const char *name, size_t len)
{
    char buf[512];
    if (ns->n == WRD_CATALOG_MAX_SCENARIOS || len > 200)
        return;
    snprintf(buf, sizeof buf, "%s%s%.*s", prefix, prefix[0] ? "/" : "", (int)len, name);
    if ((ns->name[ns->n] = strdup(buf)) != NULL)
        ns->n++;
}

/* The names under dir/prefix: NAME.json and NAME/scenario.json; depth 0
 * also looks one folder down. The names create() takes (games.c's
 * load_scenario): no hidden entries, nothing climbing out. */
static void scan(const char *dir, const char *prefix, int depth, struct names *ns)
{
    char path[1024];
    snprintf(path, sizeof path, "%s%s%s", dir, prefix[0] ? "/" : "", prefix);
    DIR *d = opendir(path);
    if (d == NULL)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        size_t len = strlen(n);
        char sub[1536];
        if (n[0] == '.')
            continue;
        snprintf(sub, sizeof sub, "%s/%s", path, n);
        if (len > 5 && strcmp(n + len - 5, ".json") == 0) {
            if (is_file(sub))
                add_name(ns, prefix, n, len - 5);
        } else if (is_dir(sub)) {
            char inner[1600];
            snprintf(inner, sizeof inner, "%s/scenario.json", sub);
            if (is_file(inner))
                add_name(ns, prefix, n, len);
            else if (depth == 0)
                scan(dir, n, 1, ns);
        }
    }
    closedir(d);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The file of scenario name, as games.c's load_scenario finds it. */
static json_t *read_scenario(const char *dir, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.json", dir, name);
    json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, NULL);
    if (j == NULL) {
        snprintf(path, sizeof path, "%s/%s/scenario.json", dir, name);
        j = json_load_file(path, JSON_REJECT_DUPLICATES, NULL);
    }
    if (j != NULL && !json_is_object(j)) {
        json_decref(j);
        j = NULL;
    }
    return j;
}

/* Does rs make a game of scenario sj (its default options, a fixed seed:
 * nothing is rolled at creation)? */
static int accepts(const struct wr_ruleset *rs, const json_t *sj)
{
    static const uint8_t seed[32];
    struct wr_refusal why = { WR_R_BAD_SCENARIO, "bad_scenario", "" };
    json_t *opts = wr_game_options(rs, NULL, 1);
    if (opts == NULL)
        return 0;
    struct wr_game *g = rs->create(sj, opts, "g-catalog", seed, NULL, &why);
    json_decref(opts);
    if (g == NULL)
        return 0;
    rs->destroy(g);
    return 1;
}

/* Each scenario the folder has for its ruleset, into that ruleset's
 * "scenarios" (lists keyed by ruleset name in bucket). */
static void add_scenarios(const char *dir, json_t *bucket)
{
    struct names ns = { 0 };
    scan(dir, "", 0, &ns);
    qsort(ns.name, (size_t)ns.n, sizeof ns.name[0], by_name);
    for (int i = 0; i < ns.n; i++) {
        json_t *sj = read_scenario(dir, ns.name[i]);
        const char *rsname = json_string_value(json_object_get(sj, "ruleset"));
        const struct wr_ruleset *rs = rsname ? wr_ruleset_find(rsname) : NULL;
        json_t *list = rs ? json_object_get(bucket, rs->name) : NULL;
        if (list && json_object_get(sj, "base") == NULL && accepts(rs, sj)) {
            const char *title = json_string_value(json_object_get(sj, "name"));
            const char *desc = json_string_value(json_object_get(sj, "description"));
            json_array_append_new(list, json_pack("{s:s, s:s, s:s}", "name", ns.name[i],
                                                  "title", title ? title : ns.name[i],
                                                  "description", desc ? desc : ""));
        }
        json_decref(sj);
        free(ns.name[i]);
    }
}

struct wrd_catalog *wrd_catalog_load(const char *dir)
{
    struct wrd_catalog *cat = calloc(1, sizeof *cat);
    json_t *list = json_array(), *bucket = json_object(), *sopts = json_array();
    if (cat == NULL || list == NULL || bucket == NULL || sopts == NULL)
        goto fail;
    for (int i = 0; wr_ruleset_at(i); i++)
        json_object_set_new(bucket, wr_ruleset_at(i)->name, json_array());
    if (dir != NULL)
        add_scenarios(dir, bucket);
    for (int i = 0; wr_ruleset_at(i); i++) {
        const struct wr_ruleset *rs = wr_ruleset_at(i);
        json_t *seats = json_array(), *opts = json_array();
        for (int k = 0; rs->default_seats && rs->default_seats[k]; k++)
            json_array_append_new(seats, json_string(rs->default_seats[k]));
        for (const struct wr_option *o = rs->options; o && o->name; o++)
            json_array_append_new(opts, json_pack("{s:s, s:s}", "name", o->name, "help",
                                                   o->help ? o->help : ""));
        json_t *r = json_pack("{s:s, s:s, s:o, s:o, s:b, s:O}", "name", rs->name, "summary",
                              rs->summary ? rs->summary : "", "seats", seats, "options", opts,
                              "needs_scenario", rs->needs_scenario != 0, "scenarios",
                              json_object_get(bucket, rs->name));
        if (r == NULL)
            goto fail;
        json_object_set_new(r, "default_scenario", rs->default_scenario
                                                       ? json_string(rs->default_scenario)
                                                       : json_null());
        json_array_append_new(list, r);
    }
    for (size_t i = 0; i < sizeof server_options / sizeof server_options[0]; i++)
        json_array_append_new(sopts, json_pack("{s:s, s:s, s:o}", "name", server_options[i].name,
                                               "help", server_options[i].help, "default",
                                               server_options[i].is_bool
                                                   ? json_boolean(server_options[i].value)
                                                   : json_integer(server_options[i].value)));
    cat->answer = json_pack("{s:s, s:O, s:O}", "type", "rulesets", "rulesets", list, "options",
                            sopts);
    char *text = cat->answer ? json_dumps(cat->answer, JSON_COMPACT) : NULL;
    if (text == NULL)
        goto fail;
    cat->bytes = strlen(text);
    free(text);
    json_decref(list);
    json_decref(bucket);
    json_decref(sopts);
    return cat;
fail:
    json_decref(list);
    json_decref(bucket);
    json_decref(sopts);
    wrd_catalog_free(cat);
    return NULL;
}

void wrd_catalog_free(struct wrd_catalog *cat)
{
    if (cat == NULL)
        return;
    json_decref(cat->answer);
    free(cat);
}

void wrd_catalog_rulesets(struct wrd_server *srv, struct wrd_conn *c, const json_t *msg)
{
    json_t *jid = json_object_get(msg, "id");
    json_t *a = srv->catalog ? json_copy(srv->catalog->answer) : NULL;
    if (a == NULL) {
        wrd_conn_error(c, WRD_E_INTERNAL, "out of memory", NULL, NULL, jid);
        return;
    }
    if (jid)
        json_object_set(a, "id", jid);
    wrd_addr_charge(srv, c->from, wrd_addr_bytes_cost(srv->catalog->bytes));
    wrd_conn_send_json(c, a);
}
