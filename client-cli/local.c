/*
 * local.c - Waterloo worked out on the client (local.h).
 */
#include "local.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "waterloo_combat.h"
#include "waterloo_command.h"
#include "scenarios.h"
#include "track.h"

void wrc_local_init(struct wrc_local *l)
{
    memset(l, 0, sizeof *l);
    l->version = -1;
}

void wrc_local_release(struct wrc_local *l)
{
    free(l->sc);
    free(l->g);
    wrc_local_init(l);
}

int wrc_local_load_scenario(struct wrc_local *l, const json_t *scenario, char *err,
                            size_t errlen)
{
    struct wl_scenario *sc = malloc(sizeof *sc);
    struct wr_refusal why;
    if (sc == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (wl_scenario_load(sc, scenario, wrc_scenario_resolve, NULL, &why) != 0) {
        snprintf(err, errlen, "the game's scenario: %s", why.message);
        free(sc);
        return -1;
    }
    free(l->sc);
    l->sc = sc;
    l->version = -1;
    return 0;
}

int wrc_local_sync(struct wrc_local *l, const struct wrc_game *game, struct wr_refusal *why)
{
    if (l->sc == NULL || game->state == NULL) {
        wl_refuse(why, WL_R_BAD_SCENARIO, "the game's scenario is not loaded");
        return -1;
    }
    if (l->g && l->version == game->version && strcmp(l->game, game->id) == 0)
        return 0;
    if (l->g == NULL && (l->g = malloc(sizeof *l->g)) == NULL) {
        wl_refuse(why, WL_R_BAD_COMMAND, "out of memory");
        return -1;
    }
    l->version = -1;
    if (wl_game_init_from_state(l->g, l->sc, game->state, game->id, why) != 0)
        return -1;
    l->version = game->version;
    snprintf(l->game, sizeof l->game, "%s", game->id);
    return 0;
}

/* The copy judged cannot roll (its seed is secret): a resolve order is
 * judged before its roll, so any face will do. */
static int any_face(void *ctx, uint32_t k)
{
    (void)ctx;
    (void)k;
    return 1;
}

enum wl_reason wrc_local_check(struct wrc_local *l, const struct wrc_game *game,
                               const json_t *cmd, int *checked, struct wr_refusal *why)
{
    *checked = 0;
    const char *type = json_string_value(json_object_get(cmd, "type"));
    int side = game->seat[0] ? wl_side_from_name(game->seat) : -1;
    if (side < 0 || (type && strcmp(type, "advance") == 0))
        return WL_R_OK;
    if (wrc_local_sync(l, game, why) != 0)
        return WL_R_OK;             /* cannot judge: the server will */
    struct wl_game *copy = malloc(sizeof *copy);
    if (copy == NULL)
        return WL_R_OK;
    *copy = *l->g;
    copy->roll_source = any_face;
    json_t *events = NULL;
    enum wl_reason r = wl_game_apply_json(copy, side, cmd, &events, why);
    json_decref(events);
    free(copy);
    *checked = 1;
    return r;
}

/* Unit indices from ids separated by commas or spaces. */
static int parse_units(const struct wl_scenario *sc, const char *text, int *out, int max,
                       struct wr_refusal *why)
{
    char buf[1024];
    int n = 0;
    snprintf(buf, sizeof buf, "%s", text);
    char *save = NULL;
    for (char *t = strtok_r(buf, ", \t", &save); t; t = strtok_r(NULL, ", \t", &save)) {
        int i = wl_scenario_find_unit(sc, t);
        if (i < 0) {
            wl_refuse(why, WL_R_UNKNOWN_UNIT, "there is no unit '%.40s'", t);
            return -1;
        }
        if (n == max) {
            wl_refuse(why, WL_R_BAD_COMMAND, "at most %d units", max);
            return -1;
        }
        out[n++] = i;
    }
    if (n == 0) {
        wl_refuse(why, WL_R_BAD_COMMAND, "name at least one unit");
        return -1;
    }
    return n;
}

int wrc_local_reach(struct wrc_local *l, const char *units, uint8_t *highlight, wl_sq *from,
                    struct wr_strbuf *out, struct wr_refusal *why)
{
    int idx[WL_MAX_IN_BATTLE];
    memset(highlight, 0, WL_NSQ);
    *from = WL_SQ_NONE;
    if (l->g == NULL) {
        wl_refuse(why, WL_R_BAD_SCENARIO, "no game state yet");
        return -1;
    }
    int n = parse_units(l->sc, units, idx, WL_MAX_IN_BATTLE, why);
    if (n < 0)
        return -1;
    struct wl_reach *reach = malloc(sizeof *reach);
    if (reach == NULL) {
        wl_refuse(why, WL_R_BAD_COMMAND, "out of memory");
        return -1;
    }
    enum wl_reason r = wl_move_reach(l->g, idx, n, reach, why);
    if (r != WL_R_OK) {
        free(reach);
        return -1;
    }
    *from = l->g->units[idx[0]].at;
    char name[WL_SQ_NAME_MAX];
    wr_strbuf_printf(out, "%s can reach %d square%s:", units, reach->n, reach->n == 1 ? "" : "s");
    for (int i = 0; i < reach->n; i++) {
        if (reach->end[i] == WL_PATH_OFF) {
            wr_strbuf_puts(out, " off (leave the board)");
            continue;
        }
        highlight[reach->end[i]] = 1;
        wr_strbuf_printf(out, " %s", wl_grid_name(reach->end[i], name));
    }
    free(reach);
    return 0;
}

int wrc_local_odds(struct wrc_local *l, const char *attackers, const char *defenders,
                   struct wr_strbuf *out, struct wr_refusal *why)
{
    int a[WL_MAX_IN_BATTLE], d[WL_MAX_IN_BATTLE];
    if (l->g == NULL) {
        wl_refuse(why, WL_R_BAD_SCENARIO, "no game state yet");
        return -1;
    }
    int na = parse_units(l->sc, attackers, a, WL_MAX_IN_BATTLE, why);
    int nd = na < 0 ? -1 : parse_units(l->sc, defenders, d, WL_MAX_IN_BATTLE, why);
    if (na < 0 || nd < 0)
        return -1;
    struct wl_battle b;
    memset(&b, 0, sizeof b);
    for (int i = 0; i < na; i++)
        b.attackers[b.nattackers++] = (int16_t)a[i];
    for (int i = 0; i < nd; i++) {
        if (l->g->units[d[i]].where != WL_ON_BOARD) {
            wl_refuse(why, WL_R_UNIT_NOT_ON_BOARD, "%s is not on the board",
                      l->sc->units[d[i]].name);
            return -1;
        }
        b.defenders[b.ndefenders++] = (int16_t)d[i];
    }
    wl_combat_odds(l->g, &b);
    wr_strbuf_printf(out, "attack %d against defence %d: ", b.attack, b.defence);
    if (b.column < 0) {
        wr_strbuf_puts(out, "worse than 1-6, the attackers are eliminated (A-Elim)");
    } else {
        wr_strbuf_printf(out, "column %s; die 1-6:", wl_crt_label(b.column));
        for (int f = 0; f < WL_CRT_ROWS; f++)
            wr_strbuf_printf(out, " %d=%s", f + 1, wl_result_code(l->sc->crt[f][b.column]));
    }
    wr_strbuf_puts(out, "\n  defenders:");
    for (int i = 0; i < nd; i++) {
        int f = wl_combat_defence_factor(l->g, d[i], b.attackers, b.nattackers);
        wr_strbuf_printf(out, " %s %d%s", l->sc->units[d[i]].id, f,
                         f > l->sc->units[d[i]].combat ? " (doubled by terrain)" : "");
    }
    return 0;
}

/* The square of the event's action, or WL_SQ_NONE. */
static wl_sq event_square(const struct wrc_local *l, const struct wrc_game *game,
                          const json_t *e)
{
    const char *type = json_string_value(json_object_get(e, "type"));
    const char *at = NULL;
    if (type == NULL)
        return WL_SQ_NONE;
    if (strcmp(type, "moved") == 0 || strcmp(type, "entered") == 0 ||
        strcmp(type, "retreated") == 0) {
        const json_t *path = json_object_get(e, "path");
        for (size_t i = json_array_size(path); i > 0 && at == NULL; i--) {
            at = json_string_value(json_array_get(path, i - 1));
            if (at && strcmp(at, "off") == 0)
                at = NULL;
        }
    } else if (strcmp(type, "advanced") == 0 || strcmp(type, "placed") == 0) {
        at = json_string_value(json_object_get(e, "to"));
    } else if (strcmp(type, "eliminated") == 0) {
        at = json_string_value(json_object_get(e, "from"));
    } else if (strcmp(type, "declared") == 0 || strcmp(type, "result") == 0) {
        const json_t *b = json_array_get(json_object_get(game->state, "battles"),
                                         (size_t)json_integer_value(json_object_get(e, "battle")));
        const char *def = json_string_value(json_array_get(json_object_get(b, "defenders"), 0));
        int u = def && l->g ? wl_scenario_find_unit(l->sc, def) : -1;
        if (u >= 0 && l->g->units[u].where == WL_ON_BOARD)
            return l->g->units[u].at;
    }
    wl_sq s;
    if (at && wl_grid_parse(at, (size_t)-1, &s) == 0 && wl_grid_on_board(s))
        return s;
    return WL_SQ_NONE;
}

wl_sq wrc_local_focus(const struct wrc_local *l, const struct wrc_game *game)
{
    if (l->g == NULL)
        return WL_SQ_NONE;
    for (size_t i = json_array_size(game->log); i > 0; i--) {
        wl_sq s = event_square(l, game, json_object_get(json_array_get(game->log, i - 1),
                                                        "event"));
        if (s != WL_SQ_NONE)
            return s;
    }
    /* The middle of the awaited side's units (or of all of them). */
    int side = l->g->await_side;
    for (int pass = 0; pass < 2; pass++) {
        long rows = 0, xs = 0, n = 0;
        for (int i = 0; i < l->sc->nunits; i++)
            if (l->g->units[i].where == WL_ON_BOARD &&
                (pass == 1 || side < 0 || l->sc->units[i].side == side)) {
                rows += wl_sq_row(l->g->units[i].at);
                xs += wl_grid_x(l->g->units[i].at);
                n++;
            }
        if (n == 0)
            continue;
        int r = (int)((rows + n / 2) / n), x = (int)((xs + n / 2) / n);
        if (((x + r) & 1) == 0)
            x++;                    /* x and r differ in parity */
        wl_sq s = wl_sq_make(r, (x - r + 51) / 2);
        if (wl_grid_in_frame(r, (x - r + 51) / 2) && wl_grid_on_board(s))
            return s;
    }
    return WL_SQ_NONE;
}

int wrc_local_board(const struct wrc_local *l, const struct wrc_game *game, wl_sq centre,
                    int radius, const uint8_t *highlight, int color, struct wr_strbuf *out)
{
    struct wr_render_view *v = malloc(sizeof *v);
    struct wr_refusal why;
    if (v == NULL || l->sc == NULL)
        goto fail;
    if (wr_render_view_from_state(v, l->sc, game->state, &why) != 0) {
        wr_strbuf_printf(out, "(cannot draw the board: %s)\n", why.message);
        free(v);
        return 0;
    }
    if (highlight)
        memcpy(v->highlight, highlight, WL_NSQ);
    v->show_ids = 1;            /* orders name units by id */
    struct wr_text_window w;
    if (centre == WL_SQ_NONE || wr_render_window_around(&w, centre, radius) != 0)
        wr_render_window_all(&w);
    int rc = wr_render_text(out, l->sc, v, &w, color);
    free(v);
    return rc;
fail:
    free(v);
    out->failed = 1;
    return -1;
}

const char *wrc_local_unit_id(const struct wrc_local *l, int i)
{
    return l->sc && i >= 0 && i < l->sc->nunits ? l->sc->units[i].id : NULL;
}
