/*
 * datadir.c - the scenario directories of this build (datadir.h).
 */
#define _XOPEN_SOURCE 700      /* realpath() */
#include "datadir.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Compiled in by platform/CMakeLists.txt. */
#ifndef WARROOM_BUILD_DIR
#error "WARROOM_BUILD_DIR: the build tree, set by platform/CMakeLists.txt"
#endif
#ifndef WARROOM_SOURCE_SCENARIOS
#error "WARROOM_SOURCE_SCENARIOS: the source tree's scenarios/"
#endif
#ifndef WARROOM_SOURCE_WEB
#error "WARROOM_SOURCE_WEB: the source tree's web/"
#endif
#ifndef WARROOM_SHARE_DIR
#error "WARROOM_SHARE_DIR: the configured prefix's share/warroom"
#endif

/* This program's executable, resolved; 0 with it in buf, -1 if unknown. */
static int self_exe(char *buf, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", buf, len - 1);
    if (n <= 0 || (size_t)n >= len - 1)
        return -1;
    buf[n] = '\0';
    return 0;
}

/* Whether path lies under dir (both resolved paths). */
static int under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return n > 0 && strncmp(path, dir, n) == 0 && path[n] == '/';
}

static void add(struct wr_datadirs *d, const char *dir)
{
    for (int i = 0; i < d->n; i++)
        if (strcmp(d->dir[i], dir) == 0)
            return;
    if (d->n < WR_DATADIR_MAX && strlen(dir) < WR_DATADIR_LEN)
        memcpy(d->dir[d->n++], dir, strlen(dir) + 1);
}

/* The directories of one kind: the source tree's src (run from the build
 * tree), else <bindir>/../share/warroom/NAME and the prefix's. */
static void datadirs(struct wr_datadirs *d, const char *src, const char *name)
{
    char exe[PATH_MAX], build[PATH_MAX];
    d->n = 0;
    int known = self_exe(exe, sizeof exe) == 0;
    if (known && realpath(WARROOM_BUILD_DIR, build) != NULL && under(exe, build)) {
        add(d, src);            /* run from the build tree */
        return;
    }
    /* <bindir>/../share/warroom/NAME, written without "..": the
     * executable's folder's parent, then share/warroom/NAME. */
    char *slash = known ? strrchr(exe, '/') : NULL;
    if (slash != NULL) {
        *slash = '\0';
        char *up = strrchr(exe, '/');
        if (up != NULL) {
            char rel[PATH_MAX + 32];
            *up = '\0';
            snprintf(rel, sizeof rel, "%s/share/warroom/%s", exe, name);
            add(d, rel);
        }
    }
    char share[PATH_MAX];
    snprintf(share, sizeof share, "%s/%s", WARROOM_SHARE_DIR, name);
    add(d, share);
}

void wr_datadir_scenarios(struct wr_datadirs *d)
{
    datadirs(d, WARROOM_SOURCE_SCENARIOS, "scenarios");
}

void wr_datadir_web(struct wr_datadirs *d)
{
    datadirs(d, WARROOM_SOURCE_WEB, "web");
}

const char *wr_datadir_first(const struct wr_datadirs *d)
{
    struct stat st;
    for (int i = 0; i < d->n; i++)
        if (stat(d->dir[i], &st) == 0 && S_ISDIR(st.st_mode))
            return d->dir[i];
    return d->dir[0];
}

void wr_datadir_join(const char *const dirs[], int n, char *buf, size_t len)
{
    size_t at = 0;
    if (len == 0)
        return;
    buf[0] = '\0';
    for (int i = 0; i < n && at < len; i++) {
        int w = snprintf(buf + at, len - at, "%s%s%s", i == 0 ? "" : i == n - 1 ? " or " : ", ",
                         dirs[i][0] == '/' ? "" : "./", dirs[i]);
        if (w < 0)
            break;
        at += (size_t)w;
    }
}
