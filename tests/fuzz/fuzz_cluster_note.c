/*
 * fuzz_cluster_note.c - libFuzzer target for the notes one warroomd of a
 * cluster reads from the others (server/cluster.c, "notes"): a game
 * changed, a forwarded command or claim, a reply. They come through
 * PostgreSQL from any session that can NOTIFY on the database, so they are
 * outside input like a client's message.
 *
 * In process: the fuzz server (fuzz_server.h) whose store's cluster ops are
 * this file's (the games are owned when the input says so, notes put are
 * dropped, the tail of a game is "no such game"), games made through the
 * protocol, then each input line handed to wrd_games_note: its first byte
 * the channel (1-3), the rest the payload, with "$G" replaced by the newest
 * game's id, "$I" by the hash of its invite to seat o, and "$N" by this
 * process's node (so forwards and replies reach past "not ours"). Nothing
 * may crash, leak or trip the sanitizers, and the server's bounds hold
 * after each input (checked: abort).
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "conn.h"
#include "fuzz_server.h"
#include "games.h"
#include "games_int.h"
#include "log.h"
#include "protocol.h"
#include "server.h"
#include "store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int owns = 1;            /* what own() answers: the input's first byte */
static int fds[2] = { -1, -1 };

static int fz_own(struct wrd_store *st, const char *game)
{
    (void)st;
    (void)game;
    return owns;
}

static int fz_own_new(struct wrd_store *st, const char *game)
{
    (void)st;
    (void)game;
    return 0;
}

static int fz_disown(struct wrd_store *st, const char *game)
{
    (void)st;
    (void)game;
    return 0;
}

static int fz_put_note(struct wrd_store *st, int channel, const char *payload)
{
    (void)st;
    return channel >= WRD_NOTE_GAME && channel <= WRD_NOTE_REPLY &&
                   strlen(payload) <= WRD_NOTE_MAX ? 0 : -1;
}

static int fz_note_fd(struct wrd_store *st)
{
    (void)st;
    return fds[0];
}

static int fz_drain(struct wrd_store *st, void (*cb)(void *, int, const char *), void *ctx)
{
    (void)st;
    (void)cb;
    (void)ctx;
    return 0;
}

static int fz_read_tail(struct wrd_store *st, const char *game, int64_t after,
                        const struct wrd_store_loader *l, char *err, size_t errlen)
{
    (void)st;
    (void)game;
    (void)after;
    (void)l;
    (void)err;
    (void)errlen;
    return 1;
}

static const struct wrd_store_cluster_ops fz_cluster = {
    .own = fz_own, .own_new = fz_own_new, .disown = fz_disown, .put_note = fz_put_note,
    .note_fd = fz_note_fd, .drain_notes = fz_drain, .read_tail = fz_read_tail,
};

/* The fuzz server, in a cluster whose ops are the ones above. */
static struct wrd_server *server(void)
{
    struct wrd_server *srv = fuzz_server();
    if (srv->store->cluster == NULL) {
        char err[256];
        if (pipe(fds) != 0)
            abort();
        wrd_log_set_level(WRD_LOG_ERROR);
        srv->store->cluster = &fz_cluster;
        if (wrd_games_start_cluster(srv, err, sizeof err) != 0)
            abort();
    }
    return srv;
}

/* text[0..len) into out with "$G" replaced by the game's id, "$I" by
 * invite (a hash) and "$N" by this process's node (wrd_games_node). */
static void expand(const char *text, size_t len, const char *game, const char *invite,
                   const char *node, char *out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < len && n + 20 < cap; i++) {
        const char *v = NULL;
        if (text[i] == '$' && i + 1 < len)
            v = text[i + 1] == 'G' ? game : text[i + 1] == 'I' ? invite
                : text[i + 1] == 'N' ? node : NULL;
        if (v != NULL) {
            size_t vl = strlen(v);
            if (n + vl + 1 >= cap)
                break;
            memcpy(out + n, v, vl);
            n += vl;
            i++;
        } else {
            out[n++] = text[i];
        }
    }
    out[n] = '\0';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct wrd_server *srv = server();
    if (size < 2)
        return 0;
    owns = data[0] & 1;
    /* a game to name: created (owned or followed, as own() says) and
     * claimed by a connection of this process */
    struct wrd_conn *c = wrd_conn_new(srv, NULL, "127.0.0.1");
    if (c == NULL)
        return 0;
    c->hello = 1;
    static const char create[] = "{\"type\":\"create\",\"ruleset\":\"tictactoe\",\"seat\":\"x\","
                                 "\"options\":{\"open_seats\":true}}";
    wrd_protocol_dispatch(srv, c, create, sizeof create - 1);
    const char *why = NULL;
    json_t *req = json_pack("{s:i}", "limit", 1);
    json_t *page = wrd_games_list(srv, req, &why);
    const char *g = json_string_value(json_object_get(json_array_get(json_object_get(page,
                                                                                     "games"), 0),
                                                      "game"));
    char game[32] = "g-000000000000";
    if (g && strlen(g) < sizeof game)
        strcpy(game, g);
    json_decref(page);
    json_decref(req);
    char invite[65] = "";
    struct wrd_game *held = games_find(srv->games, game);
    if (held && held->nseats > 1)
        memcpy(invite, held->seats[1].invite_hash, sizeof invite);
    const char *node = wrd_games_node(srv);
    size_t start = 1;
    char payload[WRD_NOTE_MAX + 64];
    for (size_t i = 1; i <= size; i++) {
        if (i == size || data[i] == '\n') {
            if (i > start + 1) {
                int channel = data[start] % 4;
                expand((const char *)data + start + 1, i - start - 1, game, invite, node,
                       payload, sizeof payload);
                wrd_games_note(srv, channel, payload);
            }
            start = i + 1;
        }
    }
    wrd_games_flush(srv);
    uv_run(&srv->loop, UV_RUN_NOWAIT);
    /* the reads and lock tries the notes started end (each wakes the
     * loop), so that what a take decides is run too */
    while (wrd_games_reading(srv) > 0)
        uv_run(&srv->loop, UV_RUN_ONCE);
    wrd_games_flush(srv);
    /* What the server promises whatever the notes say: bounded games, a
     * bounded queue for its client, its own name among the others kept. */
    if (wrd_games_count(srv) > srv->cfg.max_games || c->qlen > c->qcap ||
        strlen(wrd_games_node(srv)) != 16)
        abort();            /* check failed */
    wrd_conn_closed(c);
    return 0;
}
