/*
 * fuzz_protocol.c - libFuzzer target for the server's protocol parser and
 * dispatcher (server/protocol.c into server/games.c), in process: a server
 * with an in-memory SQLite store and connections without sockets. Each
 * input is split at newlines into messages sent on one connection (the
 * first byte says whether hello was already said); after each input the
 * store batch is committed and the deliveries run, as at the end of a loop
 * iteration. Nothing may crash, leak or trip the sanitizers.
 *
 * Game ids are random, so a message can name the game this input created
 * last with "$G" (each occurrence replaced by the id of the newest game in
 * the lobby, wrd_games_list): `ask`, `command` and the others then reach
 * past not_joined into the game and its views.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "conn.h"
#include "fuzz_server.h"
#include "games.h"
#include "log.h"
#include "server.h"
#include "store.h"
#include "protocol.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The id of the newest game listed (the lobby's first: the one this
 * input created last, when it created one), into id (unchanged when none). */
static void newest_game(struct wrd_server *srv, char id[32])
{
    const char *why = NULL;
    json_t *req = json_pack("{s:i}", "limit", 1);
    json_t *page = req ? wrd_games_list(srv, req, &why) : NULL;
    const char *g = json_string_value(json_object_get(json_array_get(json_object_get(page,
                                                                                     "games"), 0),
                                                      "game"));
    if (g && strlen(g) < 32)
        strcpy(id, g);
    json_decref(page);
    json_decref(req);
}

/* Dispatch text[0..len) with every "$G" replaced by the newest game. */
static void dispatch(struct wrd_server *srv, struct wrd_conn *c, const char *text, size_t len,
                     char *game)
{
    size_t at = 0;
    while (at + 1 < len && !(text[at] == '$' && text[at + 1] == 'G'))
        at++;
    if (at + 1 >= len) {
        wrd_protocol_dispatch(srv, c, text, len);
        return;
    }
    newest_game(srv, game);
    size_t glen = strlen(game), cap = len * (glen > 2 ? glen : 2) + 1, n = 0;
    char *buf = malloc(cap);
    if (buf == NULL)
        return;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '$' && i + 1 < len && text[i + 1] == 'G') {
            memcpy(buf + n, game, glen);
            n += glen;
            i++;
        } else {
            buf[n++] = text[i];
        }
    }
    wrd_protocol_dispatch(srv, c, buf, n);
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct wrd_server *srv = fuzz_server();
    if (size < 1)
        return 0;
    struct wrd_conn *c = wrd_conn_new(srv, NULL, "127.0.0.1");
    if (c == NULL)
        return 0;
    c->hello = data[0] & 1;
    char game[32] = "g-000000000000";
    size_t start = 1;
    for (size_t i = 1; i <= size; i++) {
        if (i == size || data[i] == '\n') {
            if (i > start) {
                dispatch(srv, c, (const char *)data + start, i - start, game);
            }
            start = i + 1;
        }
    }
    wrd_games_flush(srv);
    /* Games read back from the store (a join of a finished one) complete on
     * the loop: run it until nothing is pending. */
    uv_run(&srv->loop, UV_RUN_DEFAULT);
    wrd_games_flush(srv);
    /* What the server promises whatever it is sent: bounded games and a
     * bounded queue for the connection. */
    if (wrd_games_count(srv) > srv->cfg.max_games || c->qlen > c->qcap)
        abort();            /* check failed */
    wrd_conn_closed(c);
    return 0;
}
