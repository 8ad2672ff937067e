/*
 * track.c - following games by state and patches (track.h).
 */
#include "track.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonpatch.h"

void wrc_track_init(struct wrc_tracker *t)
{
    memset(t, 0, sizeof *t);
}

void wrc_track_release(struct wrc_tracker *t)
{
    for (int i = 0; i < t->n; i++) {
        json_decref(t->games[i]->state);
        json_decref(t->games[i]->log);
        free(t->games[i]);
    }
    t->n = 0;
}

struct wrc_game *wrc_track_get(struct wrc_tracker *t, const char *id, int create)
{
    if (id == NULL)
        return NULL;
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->games[i]->id, id) == 0)
            return t->games[i];
    if (!create || t->n == WRC_TRACK_MAX_GAMES || strlen(id) >= sizeof t->games[0]->id)
        return NULL;
    struct wrc_game *g = calloc(1, sizeof *g);
    if (g == NULL)
        return NULL;
    snprintf(g->id, sizeof g->id, "%s", id);
    g->version = -1;
    g->sync_from = -2;
    g->log = json_array();
    t->games[t->n++] = g;
    return g;
}

static void copy_str(char *dst, size_t n, const json_t *v)
{
    snprintf(dst, n, "%s", json_string_value(v) ? json_string_value(v) : "");
}

static void log_events(struct wrc_game *g, const json_t *events, int64_t version,
                       const char *by)
{
    size_t i;
    json_t *e;
    json_array_foreach(events, i, e)
        json_array_append_new(g->log, json_pack("{s:I, s:s, s:O}", "version",
                                                (json_int_t)version, "by", by ? by : "",
                                                "event", e));
    while (json_array_size(g->log) > WRC_TRACK_LOG)
        json_array_remove(g->log, 0);
}

enum wrc_track_result wrc_track_message(struct wrc_tracker *t, const json_t *msg,
                                        struct wrc_game **game, int64_t *since)
{
    const char *type = json_string_value(json_object_get(msg, "type"));
    const char *id = json_string_value(json_object_get(msg, "game"));
    *game = NULL;
    if (type == NULL || id == NULL)
        return WRC_TRACK_NONE;
    if (strcmp(type, "state") == 0) {
        struct wrc_game *g = wrc_track_get(t, id, 1);
        json_t *st = json_object_get(msg, "state");
        if (g == NULL || st == NULL)
            return WRC_TRACK_NONE;
        *game = g;
        copy_str(g->seat, sizeof g->seat, json_object_get(msg, "seat"));
        copy_str(g->ruleset, sizeof g->ruleset, json_object_get(msg, "ruleset"));
        copy_str(g->status, sizeof g->status, json_object_get(msg, "status"));
        copy_str(g->forfeit, sizeof g->forfeit, json_object_get(msg, "forfeit"));
        if (g->rejoin && g->state) {
            g->rejoin = 0;
            return WRC_TRACK_REJOINED;
        }
        g->rejoin = 0;
        json_decref(g->state);
        g->state = json_deep_copy(st);
        g->version = json_integer_value(json_object_get(msg, "version"));
        g->sync_from = -2;
        return WRC_TRACK_STATE;
    }
    struct wrc_game *g = wrc_track_get(t, id, 0);
    if (g == NULL)
        return WRC_TRACK_NONE;
    *game = g;
    if (strcmp(type, "synced") == 0) {
        g->sync_from = -2;
        return WRC_TRACK_NONE;
    }
    if (strcmp(type, "patch") != 0 || g->state == NULL)
        return WRC_TRACK_NONE;
    int64_t from = json_integer_value(json_object_get(msg, "from"));
    int64_t to = json_integer_value(json_object_get(msg, "to"));
    if (to <= g->version)
        return WRC_TRACK_NONE;          /* already have it */
    json_t *out = NULL;
    if (from != g->version ||
        wr_jsonpatch_apply(g->state, json_object_get(msg, "ops"), &out, NULL, 0) != 0) {
        /* Missed messages: patches from where we are. A patch that does not
         * apply to what we hold: the whole state (since -1). */
        int64_t want = from != g->version ? g->version : -1;
        if (g->sync_from == want)
            return WRC_TRACK_NONE;
        g->sync_from = want;
        *since = want;
        return WRC_TRACK_GAP;
    }
    json_decref(g->state);
    g->state = out;
    g->version = to;
    g->sync_from = -2;
    log_events(g, json_object_get(msg, "events"), to,
               json_string_value(json_object_get(msg, "by")));
    return WRC_TRACK_PATCH;
}
