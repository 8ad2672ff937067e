/*
 * scenarios.c - scenario lookup by name (see scenarios.h).
 */
#include "scenarios.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "datadir.h"

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int safe_name(const char *name)
{
    return name[0] != '\0' && name[0] != '/' && strstr(name, "..") == NULL;
}

/* The one search order (scenarios.h): the user's folders, then this
 * build's (datadir.h). dir[i] points into data or the environment; a
 * value on the caller's stack. */
struct places {
    int n;
    const char *dir[2 + WR_DATADIR_MAX];
    struct wr_datadirs data;
};

static void scenario_places(struct places *p)
{
    const char *env = getenv("WARROOM_SCENARIOS");
    p->n = 0;
    if (env != NULL && env[0] != '\0')
        p->dir[p->n++] = env;
    p->dir[p->n++] = "scenarios";
    wr_datadir_scenarios(&p->data);
    for (int i = 0; i < p->data.n; i++)
        p->dir[p->n++] = p->data.dir[i];
}

int wrc_scenario_path(const char *name, char *buf, size_t len)
{
    struct places p;
    if (!safe_name(name))
        return -1;
    scenario_places(&p);
    for (int i = 0; i < p.n; i++) {
        snprintf(buf, len, "%s/%s.json", p.dir[i], name);
        if (is_file(buf))
            return 0;
        snprintf(buf, len, "%s/%s/scenario.json", p.dir[i], name);
        if (is_file(buf))
            return 0;
    }
    return -1;
}

void wrc_scenario_places(char *buf, size_t len)
{
    struct places p;
    scenario_places(&p);
    wr_datadir_join(p.dir, p.n, buf, len);
}

json_t *wrc_scenario_resolve(const char *name, void *ctx)
{
    char path[1024];
    (void)ctx;
    if (wrc_scenario_path(name, path, sizeof path) != 0)
        return NULL;
    return json_load_file(path, JSON_REJECT_DUPLICATES, NULL);
}

char *wrc_slurp(const char *path, size_t max, size_t *len)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *s = malloc(cap);
    while (s) {
        if (n + 1 >= cap) {
            if (cap >= max) {
                free(s);
                s = NULL;
                errno = EFBIG;
                break;
            }
            char *t = realloc(s, cap * 2);
            if (t == NULL) {
                free(s);
                s = NULL;
                break;
            }
            s = t;
            cap *= 2;
        }
        size_t got = fread(s + n, 1, cap - 1 - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) {
                free(s);
                s = NULL;
                errno = EIO;
            }
            break;
        }
    }
    if (f != stdin)
        fclose(f);
    if (s) {
        s[n] = '\0';
        *len = n;
    }
    return s;
}
