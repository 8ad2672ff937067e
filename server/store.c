/*
 * store.c - the choice of a store's backend by its location (store_open.h).
 */
#include "store_open.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *prefix;
    const struct wrd_store_ops *ops;
} backends[] = {
    { "postgres://", &wrd_store_pg_ops },
    { "postgresql://", &wrd_store_pg_ops },
};

const struct wrd_store_ops *wrd_store_backend(const char *location)
{
    for (size_t i = 0; i < sizeof backends / sizeof backends[0]; i++)
        if (strncmp(location, backends[i].prefix, strlen(backends[i].prefix)) == 0)
            return backends[i].ops;
    return &wrd_store_sqlite_ops;
}

int wrd_store_open(struct wrd_store **out, const char *location, int flags, char *err,
                   size_t errlen)
{
    return wrd_store_backend(location)->open(out, location, flags, err, errlen);
}

void wrd_store_redact(const char *loc, char *out, size_t len)
{
    snprintf(out, len, "%s", loc);
    char *s = strstr(out, "://");
    if (s) {
        s += 3;
        char *at = strchr(s, '@'), *slash = strchr(s, '/');
        char *colon = strchr(s, ':');
        if (at && (slash == NULL || at < slash) && colon && colon < at) {
            char rest[256];
            snprintf(rest, sizeof rest, "%s", at);
            snprintf(colon, len - (size_t)(colon - out), ":***%s", rest);
        }
    }
    char *pw = strstr(out, "password=");
    if (pw) {
        char *end = strchr(pw, '&');
        char rest[256];
        snprintf(rest, sizeof rest, "%s", end ? end : "");
        snprintf(pw, len - (size_t)(pw - out), "password=***%s", rest);
    }
}
