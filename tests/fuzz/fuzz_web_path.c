/*
 * fuzz_web_path.c - libFuzzer target for the web port's path judge
 * (server/web.h: wrd_web_find), on the table of the source tree's web/.
 *
 * The input is a request path (cut at its first NUL, as lws gives it). The
 * promises: the verdict is one of the three; a file is found only for a
 * path free of "..", "//", backslashes, '%' and control bytes, and the file
 * found is a page route's or the table entry of exactly that path (nothing
 * else can be reached).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "web.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define check(cond) do { if (!(cond)) abort(); } while (0)

static struct wrd_web *table;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (table == NULL) {
        char why[256];
        table = wrd_web_load(WARROOM_WEB_DIR, "ws", "127.0.0.1", 8080, why, sizeof why);
        if (table == NULL) {
            fprintf(stderr, "fuzz_web_path: %s\n", why);
            abort();
        }
    }
    char path[512];
    size_t n = size < sizeof path - 1 ? size : sizeof path - 1;
    memcpy(path, data, n);
    path[n] = '\0';
    const struct wrd_web_file *f = NULL;
    enum wrd_web_verdict v = wrd_web_find(table, path, &f);
    check(v == WRD_WEB_FOUND || v == WRD_WEB_NOT_FOUND || v == WRD_WEB_BAD);
    if (v != WRD_WEB_FOUND)
        return 0;
    check(f != NULL && path[0] == '/');
    check(strstr(path, "..") == NULL && strstr(path, "//") == NULL);
    for (const unsigned char *c = (const unsigned char *)path; *c; c++)
        check(*c >= 0x20 && *c != 0x7f && *c != '\\' && *c != '%');
    check(strcmp(f->path, path) == 0 ||
          (strcmp(path, "/") == 0 && strcmp(f->path, "/index.html") == 0) ||
          (strncmp(path, "/game/", 6) == 0 && strcmp(f->path, "/game.html") == 0) ||
          (strncmp(path, "/invite/", 8) == 0 && strcmp(f->path, "/invite.html") == 0));
    return 0;
}
