/*
 * url.c - ws:// URLs taken apart (url.h).
 */
#include "url.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int wrc_url_parse(const char *text, struct wrc_url *u, char *err, size_t errlen)
{
    memset(u, 0, sizeof *u);
    if (text == NULL || strlen(text) >= sizeof u->text - 1) {
        snprintf(err, errlen, "the server URL is missing or too long");
        return -1;
    }
    if (strncmp(text, "wss://", 6) == 0 || strncmp(text, "https://", 8) == 0) {
        snprintf(err, errlen, "'%s': warroom speaks plain ws:// only (put a TLS proxy in front "
                 "of the server and use its ws:// address)", text);
        return -1;
    }
    if (strncmp(text, "ws://", 5) != 0) {
        snprintf(err, errlen, "'%s' is not a ws:// URL (write it like %s)", text,
                 WRC_DEFAULT_SERVER);
        return -1;
    }
    const char *h = text + 5, *end;
    size_t hl;
    if (*h == '[') {                            /* [IPv6] */
        end = strchr(h, ']');
        if (end == NULL) {
            snprintf(err, errlen, "'%s': an IPv6 address needs its closing ']'", text);
            return -1;
        }
        hl = (size_t)(end - h - 1);
        memcpy(u->host, h + 1, hl < sizeof u->host ? hl : 0);
        end++;
    } else {
        end = h + strcspn(h, ":/");
        hl = (size_t)(end - h);
        if (hl < sizeof u->host)
            memcpy(u->host, h, hl);
    }
    if (hl == 0 || hl >= sizeof u->host) {
        snprintf(err, errlen, "'%s' names no host", text);
        return -1;
    }
    u->port = 80;
    if (*end == ':') {
        char *stop;
        errno = 0;
        long p = strtol(end + 1, &stop, 10);
        if (errno || stop == end + 1 || p < 1 || p > 65535 || (*stop && *stop != '/')) {
            snprintf(err, errlen, "'%s': the port must be a number from 1 to 65535", text);
            return -1;
        }
        u->port = (int)p;
        end = stop;
    } else if (*end && *end != '/') {
        snprintf(err, errlen, "'%s': unexpected '%c' after the host", text, *end);
        return -1;
    }
    snprintf(u->path, sizeof u->path, "%s", *end ? end : "/");
    int n = snprintf(u->text, sizeof u->text, "%s%s", text, *end ? "" : "/");
    (void)n;
    return 0;
}
