/*
 * url.h - the server address the client talks to: a ws:// URL taken apart
 * into what libwebsockets needs (host, port, path).
 *
 * Only plain ws:// is spoken (the server has no TLS; put a TLS proxy in
 * front of it and use its ws:// side). Forms accepted:
 *   ws://HOST[:PORT][/PATH]     HOST a name, an IPv4 address or [IPv6]
 * The port defaults to 80 and the path to "/".
 */
#ifndef WRC_URL_H
#define WRC_URL_H

#include <stddef.h>

#define WRC_DEFAULT_SERVER "ws://127.0.0.1:8080/"

struct wrc_url {
    char host[256];         /* without the IPv6 brackets */
    int port;
    char path[512];         /* starts with "/" */
    char text[800];         /* the URL as given (normalised: ends in a path) */
};

/* Parse text into u. Returns 0, or -1 with a sentence in err (errlen
 * bytes, caller's) saying what is wrong and what is expected. */
int wrc_url_parse(const char *text, struct wrc_url *u, char *err, size_t errlen);

#endif
