/*
 * web.h - the web client's files (web/ of the source tree, installed as
 * share/warroom/web), served by warroomd on its web port (--web-listen).
 *
 * Every file is read ONCE at start-up into a fixed table (its URL path, its
 * Content-Type, its bytes, its gzip'd bytes when smaller, a strong ETag: the
 * first 16 bytes of its SHA-256 in hex), so the loop never touches the disk
 * to answer. Only the table's paths exist: nothing in a request is ever
 * turned into a file name. The table also holds /config.json, generated
 * (the websocket's scheme, host and port), and the page routes: "/" is
 * index.html, /game/GAME is game.html, /invite/CODE is invite.html.
 *
 * Lifetime: wrd_web_load() builds the table, owned by the caller until
 * wrd_web_free(); the pointers wrd_web_find() returns live as long.
 */
#ifndef WRD_WEB_H
#define WRD_WEB_H

#include <stddef.h>

struct wrd_web;

/* One file of the table. */
struct wrd_web_file {
    char path[128];             /* URL path, "/js/lobby.js" */
    const char *type;           /* Content-Type (static string) */
    unsigned char *body;        /* the bytes (owned by the table) */
    size_t len;
    unsigned char *gz;          /* gzip'd bytes, NULL when not smaller */
    size_t gzlen;
    char etag[40];              /* "\"<32 hex>\"", quotes included */
};

/* Load every file under dir (regular files with a known extension, hidden
 * ones skipped, at most WRD_WEB_MAX_FILES of at most WRD_WEB_MAX_BYTES
 * each), plus /config.json for the websocket at scheme://host:port/ (a
 * wildcard host, "0.0.0.0" or "::", is left to the page: it uses its own
 * host name). NULL on failure, with the reason in why (len bytes). */
#define WRD_WEB_MAX_FILES 256
#define WRD_WEB_MAX_BYTES (4u << 20)
struct wrd_web *wrd_web_load(const char *dir, const char *scheme, const char *host, int port,
                             char *why, size_t len);
void wrd_web_free(struct wrd_web *w);

/* The number of files (for the log). */
int wrd_web_count(const struct wrd_web *w);

/* The Content-Security-Policy every answer of the web port carries
 * (connect-src names the websocket's origin). Lives as long as w. */
const char *wrd_web_csp(const struct wrd_web *w);

/* How a request path was judged. */
enum wrd_web_verdict {
    WRD_WEB_FOUND,              /* *file set */
    WRD_WEB_NOT_FOUND,          /* 404 */
    WRD_WEB_BAD,                /* 400: "..", "//", "\\", NUL, '%', control bytes, too long */
};

/* The file answering path (the request's path, query excluded), routes
 * included. Pure: reads only w. */
enum wrd_web_verdict wrd_web_find(const struct wrd_web *w, const char *path,
                                  const struct wrd_web_file **file);

#endif
