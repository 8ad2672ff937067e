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

#ifndef WARROOM_SHARE_DIR
#define WARROOM_SHARE_DIR "/usr/local/share/warroom"
#endif

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int safe_name(const char *name)
{
    return name[0] != '\0' && name[0] != '/' && strstr(name, "..") == NULL;
}

int wrc_scenario_path(const char *name, char *buf, size_t len)
{
    const char *dirs[3] = { getenv("WARROOM_SCENARIOS"), "scenarios",
                            WARROOM_SHARE_DIR "/scenarios" };
    if (!safe_name(name))
        return -1;
    for (int i = 0; i < 3; i++) {
        if (dirs[i] == NULL || dirs[i][0] == '\0')
            continue;
        snprintf(buf, len, "%s/%s.json", dirs[i], name);
        if (is_file(buf))
            return 0;
        snprintf(buf, len, "%s/%s/scenario.json", dirs[i], name);
        if (is_file(buf))
            return 0;
    }
    return -1;
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
