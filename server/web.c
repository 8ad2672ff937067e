/*
 * web.c - the web client's files in memory (web.h).
 */
#include "web.h"

#include <dirent.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

struct wrd_web {
    int n;
    struct wrd_web_file files[WRD_WEB_MAX_FILES];
    char csp[512];
};

/* Content types by extension: the only files served. */
static const struct { const char *ext, *type; } types[] = {
    { ".html", "text/html; charset=utf-8" },
    { ".js", "text/javascript; charset=utf-8" },
    { ".css", "text/css; charset=utf-8" },
    { ".json", "application/json" },
    { ".svg", "image/svg+xml" },
    { ".png", "image/png" },
    { ".ico", "image/x-icon" },
    { ".txt", "text/plain; charset=utf-8" },
};

/* Page routes: a prefix whose one following segment is free (the game id,
 * the invite code), answered by a page of the table. */
static const struct { const char *prefix, *page; } routes[] = {
    { "/game/", "/game.html" },
    { "/invite/", "/invite.html" },
};

static const char *type_of(const char *name)
{
    const char *dot = strrchr(name, '.');
    for (size_t i = 0; dot && i < sizeof types / sizeof types[0]; i++)
        if (strcmp(dot, types[i].ext) == 0)
            return types[i].type;
    return NULL;
}

/* Fill f's ETag and gzip'd copy from its bytes. */
static int finish(struct wrd_web_file *f)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    if (!EVP_Digest(f->body, f->len, md, &mdlen, EVP_sha256(), NULL) || mdlen < 16)
        return -1;
    char *e = f->etag;
    *e++ = '"';
    for (int i = 0; i < 16; i++)
        e += sprintf(e, "%02x", md[i]);
    *e++ = '"';
    *e = '\0';
    /* gzip (windowBits 15 + 16), kept only when smaller. */
    z_stream z = { 0 };
    if (deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return -1;
    uLong cap = deflateBound(&z, (uLong)f->len) + 32;
    unsigned char *gz = malloc(cap);
    if (gz == NULL) {
        deflateEnd(&z);
        return -1;
    }
    z.next_in = f->body;
    z.avail_in = (uInt)f->len;
    z.next_out = gz;
    z.avail_out = (uInt)cap;
    int rc = deflate(&z, Z_FINISH);
    size_t out = cap - z.avail_out;
    deflateEnd(&z);
    if (rc != Z_STREAM_END || out >= f->len) {
        free(gz);
        return 0;
    }
    f->gz = gz;
    f->gzlen = out;
    return 0;
}

static struct wrd_web_file *add(struct wrd_web *w, const char *path, const char *type,
                                unsigned char *body, size_t len, char *why, size_t wlen)
{
    if (w->n >= WRD_WEB_MAX_FILES || strlen(path) >= sizeof w->files[0].path) {
        snprintf(why, wlen, "too many files or too long a path: %s", path);
        free(body);
        return NULL;
    }
    struct wrd_web_file *f = &w->files[w->n++];
    snprintf(f->path, sizeof f->path, "%s", path);
    f->type = type;
    f->body = body;
    f->len = len;
    if (finish(f) < 0) {
        snprintf(why, wlen, "cannot hash or compress %s", path);
        return NULL;
    }
    return f;
}

static int read_file(const char *file, unsigned char **out, size_t *len, char *why, size_t wlen)
{
    FILE *fp = fopen(file, "rb");
    struct stat st;
    if (fp == NULL || fstat(fileno(fp), &st) < 0 || st.st_size > (off_t)WRD_WEB_MAX_BYTES) {
        snprintf(why, wlen, "cannot read %s (or larger than %u bytes)", file, WRD_WEB_MAX_BYTES);
        if (fp)
            fclose(fp);
        return -1;
    }
    unsigned char *b = malloc((size_t)st.st_size + 1);
    size_t n = b ? fread(b, 1, (size_t)st.st_size, fp) : 0;
    fclose(fp);
    if (b == NULL || n != (size_t)st.st_size) {
        free(b);
        snprintf(why, wlen, "cannot read %s", file);
        return -1;
    }
    *out = b;
    *len = n;
    return 0;
}

/* Every file under dir/rel, URL path "/rel/name"; depth bounded. */
static int walk(struct wrd_web *w, const char *dir, const char *rel, int depth, char *why,
                size_t wlen)
{
    char here[4096];
    DIR *d = snprintf(here, sizeof here, "%s%s", dir, rel) < (int)sizeof here ? opendir(here)
                                                                               : NULL;
    if (d == NULL) {
        snprintf(why, wlen, "cannot open the web directory %s", here);
        return -1;
    }
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char file[4096], path[512];
        struct stat st;
        if (snprintf(file, sizeof file, "%s/%s", here, e->d_name) >= (int)sizeof file ||
            snprintf(path, sizeof path, "%s/%s", rel, e->d_name) >= (int)sizeof path ||
            stat(file, &st) < 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            if (depth < 4)
                rc = walk(w, dir, path, depth + 1, why, wlen);
            continue;
        }
        const char *type = type_of(e->d_name);
        if (!S_ISREG(st.st_mode) || type == NULL)
            continue;
        unsigned char *body;
        size_t len;
        if (read_file(file, &body, &len, why, wlen) < 0 ||
            add(w, path, type, body, len, why, wlen) == NULL)
            rc = -1;
    }
    closedir(d);
    return rc;
}

struct wrd_web *wrd_web_load(const char *dir, const char *scheme, const char *host, int port,
                             char *why, size_t len)
{
    struct wrd_web *w = calloc(1, sizeof *w);
    if (w == NULL) {
        snprintf(why, len, "out of memory");
        return NULL;
    }
    if (walk(w, dir, "", 0, why, len) < 0) {
        wrd_web_free(w);
        return NULL;
    }
    int wild = strcmp(host, "0.0.0.0") == 0 || strcmp(host, "::") == 0 || host[0] == '\0';
    int v6 = strchr(host, ':') != NULL;
    char origin[128];
    if (wild)
        snprintf(origin, sizeof origin, "%s://*:%d", scheme, port);
    else
        snprintf(origin, sizeof origin, "%s://%s%s%s:%d", scheme, v6 ? "[" : "", host,
                 v6 ? "]" : "", port);
    snprintf(w->csp, sizeof w->csp,
             "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
             "connect-src 'self' %s; base-uri 'none'; frame-ancestors 'none'; "
             "form-action 'none'", origin);
    char cfg[256];
    int n;
    if (wild)
        n = snprintf(cfg, sizeof cfg, "{\"websocket\":{\"scheme\":\"%s\",\"host\":null,"
                     "\"port\":%d}}\n", scheme, port);
    else
        n = snprintf(cfg, sizeof cfg, "{\"websocket\":{\"scheme\":\"%s\",\"host\":\"%s%s%s\","
                     "\"port\":%d}}\n", scheme, v6 ? "[" : "", host, v6 ? "]" : "", port);
    unsigned char *body = malloc((size_t)n + 1);
    if (body == NULL) {
        wrd_web_free(w);
        return NULL;
    }
    memcpy(body, cfg, (size_t)n + 1);
    if (add(w, "/config.json", "application/json", body, (size_t)n, why, len) == NULL) {
        wrd_web_free(w);
        return NULL;
    }
    return w;
}

void wrd_web_free(struct wrd_web *w)
{
    if (w == NULL)
        return;
    for (int i = 0; i < w->n; i++) {
        free(w->files[i].body);
        free(w->files[i].gz);
    }
    free(w);
}

int wrd_web_count(const struct wrd_web *w)
{
    return w->n;
}

const char *wrd_web_csp(const struct wrd_web *w)
{
    return w->csp;
}

static const struct wrd_web_file *lookup(const struct wrd_web *w, const char *path)
{
    for (int i = 0; i < w->n; i++)
        if (strcmp(w->files[i].path, path) == 0)
            return &w->files[i];
    return NULL;
}

enum wrd_web_verdict wrd_web_find(const struct wrd_web *w, const char *path,
                                  const struct wrd_web_file **file)
{
    size_t len = strlen(path);
    if (len == 0 || len > 200 || path[0] != '/' || strstr(path, "..") || strstr(path, "//"))
        return WRD_WEB_BAD;
    for (const unsigned char *c = (const unsigned char *)path; *c; c++)
        if (*c < 0x20 || *c == 0x7f || *c == '\\' || *c == '%')
            return WRD_WEB_BAD;
    if (strcmp(path, "/") == 0)
        path = "/index.html";
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
        size_t pl = strlen(routes[i].prefix);
        if (strncmp(path, routes[i].prefix, pl) != 0)
            continue;
        /* One segment of letters, digits, '-' and '_' after the prefix. */
        const char *seg = path + pl;
        if (*seg == '\0' || strspn(seg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789-_") != strlen(seg))
            return WRD_WEB_NOT_FOUND;
        path = routes[i].page;
        break;
    }
    *file = lookup(w, path);
    return *file ? WRD_WEB_FOUND : WRD_WEB_NOT_FOUND;
}
