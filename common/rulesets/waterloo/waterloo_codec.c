/*
 * waterloo_codec.c - Waterloo commands, events and state to and from JSON.
 *
 * Every field of a command is checked for type and range here, with a
 * sentence naming the field, before the turn machine sees the command.
 * jansson: json_object_set_new / json_array_append_new steal the value.
 */
#include "waterloo_command.h"

#include <jansson.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dice.h"
#include "jsonpatch.h"
#include "waterloo_suggest.h"
#include "waterloo_teams.h"

/* --- options -------------------------------------------------------------- */

int wl_options_read(const json_t *options, const struct wl_scenario *sc, struct wl_options *opt,
                    struct wr_refusal *why)
{
    *opt = wl_options_default();
    const json_t *rules = json_object_get(options, "rules");
    if (rules != NULL) {
        if (!json_is_integer(rules) || json_integer_value(rules) < 1 ||
            json_integer_value(rules) > WL_RULES) {
            wl_refuse(why, WL_R_BAD_OPTIONS, "rules: an integer 1..%d", WL_RULES);
            return -1;
        }
        opt->rules = (int)json_integer_value(rules);
    }
    const json_t *commanders = json_object_get(options, "commanders");
    if (commanders != NULL) {
        if (!json_is_integer(commanders) || json_integer_value(commanders) < 1 ||
            json_integer_value(commanders) > WL_MAX_COMMANDERS) {
            wl_refuse(why, WL_R_BAD_OPTIONS, "commanders: an integer 1..%d",
                      sc->most_commanders);
            return -1;
        }
        opt->commanders = (int)json_integer_value(commanders);
    }
    const json_t *undo = json_object_get(options, "undo");
    if (undo != NULL) {
        if (!json_is_boolean(undo)) {
            wl_refuse(why, WL_R_BAD_OPTIONS, "undo: true or false");
            return -1;
        }
        opt->undo = json_is_true(undo);
    }
    return wl_options_check(opt, sc, why);
}

/* --- parsing --------------------------------------------------------------- */

static enum wl_reason parse_unit(const struct wl_game *g, const json_t *j, const char *field,
                                 int16_t *out, struct wr_refusal *why)
{
    const char *id = json_string_value(j);
    if (id == NULL)
        return wl_refuse(why, WL_R_BAD_COMMAND, "%s must be a unit id (a string)", field);
    int i = wl_scenario_find_unit(g->sc, id);
    if (i < 0)
        return wl_refuse_unknown_unit(why, g->sc, g->await_side, id);
    *out = (int16_t)i;
    return WL_R_OK;
}

static enum wl_reason parse_units(const struct wl_game *g, const json_t *arr, const char *field,
                                  int16_t *out, int max, int *n, struct wr_refusal *why)
{
    if (!json_is_array(arr))
        return wl_refuse(why, WL_R_BAD_COMMAND, "%s must be a list of unit ids", field);
    if ((int)json_array_size(arr) > max)
        return wl_refuse(why, WL_R_BAD_COMMAND, "%s names more than %d units", field, max);
    size_t k;
    json_t *v;
    json_array_foreach(arr, k, v) {
        enum wl_reason r = parse_unit(g, v, field, &out[k], why);
        if (r != WL_R_OK)
            return r;
        for (size_t j = 0; j < k; j++)
            if (out[j] == out[k])
                return wl_refuse(why, WL_R_BAD_COMMAND, "%s is named twice",
                                 g->sc->units[out[k]].id);
    }
    *n = (int)json_array_size(arr);
    return WL_R_OK;
}

static enum wl_reason parse_square(const json_t *j, const char *field, int allow_off,
                                   wl_sq *out, struct wr_refusal *why)
{
    const char *s = json_string_value(j);
    if (s == NULL)
        return wl_refuse(why, WL_R_BAD_COMMAND, "%s must be a square name like \"X-27\"", field);
    if (allow_off && strcmp(s, "off") == 0) {
        *out = WL_PATH_OFF;
        return WL_R_OK;
    }
    if (wl_grid_parse(s, (size_t)-1, out) != 0 || !wl_grid_on_board(*out))
        return wl_refuse_bad_square(why, s);
    return WL_R_OK;
}

static enum wl_reason parse_path(const json_t *arr, struct wl_cmd *c, struct wr_refusal *why)
{
    if (!json_is_array(arr) || json_array_size(arr) == 0)
        return wl_refuse(why, WL_R_BAD_COMMAND, "path must be a non-empty list of squares");
    if (json_array_size(arr) > WL_PATH_MAX)
        return wl_refuse(why, WL_R_TOO_FAR, "a path has at most %d squares", WL_PATH_MAX);
    size_t k;
    json_t *v;
    json_array_foreach(arr, k, v) {
        enum wl_reason r = parse_square(v, "path", k + 1 == json_array_size(arr), &c->path[k],
                                        why);
        if (r != WL_R_OK)
            return r;
    }
    c->npath = (int)json_array_size(arr);
    return WL_R_OK;
}

/* Reject keys the command does not have: a typo must not be ignored. */
static enum wl_reason only_keys(const json_t *j, const char *const *keys, struct wr_refusal *why)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)j, key, v) {
        int ok = strcmp(key, "type") == 0;
        for (int i = 0; keys[i] && !ok; i++)
            ok = strcmp(key, keys[i]) == 0;
        if (!ok)
            return wl_refuse(why, WL_R_BAD_COMMAND, "unknown field '%.32s'", key);
    }
    return WL_R_OK;
}

enum wl_reason wl_cmd_parse(const struct wl_game *g, const json_t *j, struct wl_cmd *c,
                            struct wr_refusal *why)
{
    static const char *const k_none[] = { NULL };
    static const char *const k_place[] = { "unit", "at", NULL };
    static const char *const k_move[] = { "unit", "units", "path", NULL };
    static const char *const k_declare[] = { "battles", NULL };
    static const char *const k_resolve[] = { "battle", NULL };
    static const char *const k_retreat[] = { "unit", "path", NULL };
    static const char *const k_units[] = { "units", NULL };
    static const char *const k_advance[] = { "unit", "to", NULL };
    static const char *const *const keys[WL_NCMDS] = {
        k_place, k_none, k_move, k_none, k_declare, k_resolve, k_retreat, k_units,
        k_advance, k_none, k_units, k_none,
    };

    memset(c, 0, offsetof(struct wl_cmd, battles));
    c->nbattles = 0;
    c->to = WL_SQ_NONE;
    c->battle = -1;
    if (!json_is_object(j))
        return wl_refuse(why, WL_R_BAD_COMMAND, "a command is a JSON object with a \"type\"");
    const char *type = json_string_value(json_object_get(j, "type"));
    if (type == NULL)
        return wl_refuse(why, WL_R_BAD_COMMAND, "the command has no \"type\"");
    c->type = wl_cmd_type(type);
    if (c->type < 0)
        return wl_refuse(why, WL_R_BAD_COMMAND, "unknown command type '%.32s'", type);
    enum wl_reason r = only_keys(j, keys[c->type], why);
    if (r != WL_R_OK)
        return r;

    json_t *unit = json_object_get(j, "unit");
    switch (c->type) {
    case WL_CMD_PLACE:
        if ((r = parse_unit(g, unit, "unit", &c->units[0], why)) != WL_R_OK)
            return r;
        c->nunits = 1;
        return parse_square(json_object_get(j, "at"), "at", 0, &c->to, why);
    case WL_CMD_MOVE: {
        json_t *units = json_object_get(j, "units");
        if ((unit == NULL) == (units == NULL))
            return wl_refuse(why, WL_R_BAD_COMMAND, "move names either \"unit\" or \"units\"");
        if (unit) {
            if ((r = parse_unit(g, unit, "unit", &c->units[0], why)) != WL_R_OK)
                return r;
            c->nunits = 1;
        } else if ((r = parse_units(g, units, "units", c->units, WL_MAX_IN_BATTLE, &c->nunits,
                                    why)) != WL_R_OK) {
            return r;
        }
        if (c->nunits == 0)
            return wl_refuse(why, WL_R_BAD_COMMAND, "move names no unit");
        return parse_path(json_object_get(j, "path"), c, why);
    }
    case WL_CMD_RETREAT:
        if ((r = parse_unit(g, unit, "unit", &c->units[0], why)) != WL_R_OK)
            return r;
        c->nunits = 1;
        return parse_path(json_object_get(j, "path"), c, why);
    case WL_CMD_ADVANCE:
        if ((r = parse_unit(g, unit, "unit", &c->units[0], why)) != WL_R_OK)
            return r;
        c->nunits = 1;
        return parse_square(json_object_get(j, "to"), "to", 0, &c->to, why);
    case WL_CMD_EXCHANGE_LOSSES:
    case WL_CMD_DEFECT:
        return parse_units(g, json_object_get(j, "units"), "units", c->units, WL_MAX_UNITS,
                           &c->nunits, why);
    case WL_CMD_RESOLVE: {
        json_t *b = json_object_get(j, "battle");
        if (!json_is_integer(b)) {
            int declared = 0;
            for (int i = 0; i < g->nbattles; i++)
                declared += g->battles[i].state == WL_B_DECLARED;
            return wl_refuse(why, WL_R_BAD_COMMAND, "resolve needs the number of a declared "
                             "battle%s", declared ? "" : ", and no battle is declared now");
        }
        json_int_t v = json_integer_value(b);
        c->battle = (v < 0 || v >= WL_MAX_BATTLES) ? WL_MAX_BATTLES : (int)v;
        return WL_R_OK;
    }
    case WL_CMD_DECLARE: {
        json_t *arr = json_object_get(j, "battles");
        if (!json_is_array(arr))
            return wl_refuse(why, WL_R_BAD_COMMAND, "declare needs \"battles\": a list");
        if (json_array_size(arr) > WL_MAX_BATTLES)
            return wl_refuse(why, WL_R_BAD_COMMAND, "at most %d battles", WL_MAX_BATTLES);
        size_t k;
        json_t *v;
        json_array_foreach(arr, k, v) {
            static const char *const k_battle[] = { "attackers", "defenders", NULL };
            char field[48];
            if (!json_is_object(v))
                return wl_refuse(why, WL_R_BAD_COMMAND,
                                 "battles[%zu] must be {attackers, defenders}", k);
            if ((r = only_keys(v, k_battle, why)) != WL_R_OK)
                return r;
            struct wl_cmd_battle *b = &c->battles[k];
            snprintf(field, sizeof field, "battles[%zu].attackers", k);
            if ((r = parse_units(g, json_object_get(v, "attackers"), field, b->attackers,
                                 WL_MAX_IN_BATTLE, &b->nattackers, why)) != WL_R_OK)
                return r;
            snprintf(field, sizeof field, "battles[%zu].defenders", k);
            if ((r = parse_units(g, json_object_get(v, "defenders"), field, b->defenders,
                                 WL_MAX_IN_BATTLE, &b->ndefenders, why)) != WL_R_OK)
                return r;
        }
        c->nbattles = (int)json_array_size(arr);
        return WL_R_OK;
    }
    default:
        return WL_R_OK;
    }
}

/* --- output ---------------------------------------------------------------- */

static json_t *square_json(wl_sq s)
{
    char buf[WL_SQ_NAME_MAX];
    if (s == WL_PATH_OFF)
        return json_string("off");
    return s == WL_SQ_NONE ? json_null() : json_string(wl_grid_name(s, buf));
}

static json_t *path_json(const wl_sq *p, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, square_json(p[i]));
    return a;
}

static json_t *units_json(const struct wl_game *g, const int16_t *u, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_string(g->sc->units[u[i]].id));
    return a;
}

static const char *const event_names[] = {
    "placed", "moved", "entered", "exited", "phase", "declared", "roll", "result",
    "eliminated", "retreated", "advanced", "defected", "defection_due", "game_over",
    "commander_out", "undone", "restored",
};

/* The units commander k of side commands by the order of battle and that
 * are still in the game: those that pass to the commander-in-chief when
 * he is out. */
static json_t *command_json(const struct wl_game *g, int side, int k)
{
    json_t *a = json_array();
    for (int i = 0; i < g->sc->nunits; i++)
        if (g->sc->units[i].side == side &&
            wl_scenario_commander(g->sc, wl_team_size(g), i) == k &&
            (g->units[i].where == WL_ON_BOARD || g->units[i].where == WL_PENDING))
            json_array_append_new(a, json_string(g->sc->units[i].id));
    return a;
}

json_t *wl_event_json(const struct wl_game *g, const struct wl_event *e)
{
    json_t *o = json_object();
    json_object_set_new(o, "type", json_string(event_names[e->type]));
    if (e->unit >= 0)
        json_object_set_new(o, "unit", json_string(g->sc->units[e->unit].id));
    switch (e->type) {
    case WL_EV_MOVED:
    case WL_EV_ENTERED:
        json_object_set_new(o, "units", units_json(g, e->units, e->nunits));
        json_object_set_new(o, "from", square_json(e->from));
        json_object_set_new(o, "path", path_json(e->path, e->npath));
        break;
    case WL_EV_RETREATED:
        json_object_set_new(o, "from", square_json(e->from));
        json_object_set_new(o, "path", path_json(e->path, e->npath));
        break;
    case WL_EV_PLACED:
    case WL_EV_ADVANCED:
        json_object_set_new(o, "from", square_json(e->from));
        json_object_set_new(o, "to", square_json(e->to));
        break;
    case WL_EV_ELIMINATED:
    case WL_EV_DEFECTED:
        json_object_set_new(o, "from", square_json(e->from));
        break;
    case WL_EV_PHASE:
        json_object_set_new(o, "phase", json_string(wl_phase_name(e->phase)));
        json_object_set_new(o, "turn", json_integer(e->turn));
        break;
    case WL_EV_DECLARED:
        json_object_set_new(o, "battle", json_integer(e->battle));
        json_object_set_new(o, "odds", json_sprintf("%d-%d", e->attack, e->defence));
        json_object_set_new(o, "column", e->column < 0 ? json_string("A-Elim")
                                                       : json_string(wl_crt_label(e->column)));
        break;
    case WL_EV_ROLL:
        json_object_set_new(o, "battle", json_integer(e->battle));
        json_object_set_new(o, "k", json_integer(e->k));
        json_object_set_new(o, "face", json_integer(e->face));
        break;
    case WL_EV_RESULT:
        json_object_set_new(o, "battle", json_integer(e->battle));
        json_object_set_new(o, "result", json_string(wl_result_code(e->result)));
        break;
    case WL_EV_DEFECTION_DUE:
        json_object_set_new(o, "factors", json_integer(e->amount));
        break;
    case WL_EV_GAME_OVER:
        json_object_set_new(o, "winner", json_string(wl_side_name(e->side)));
        json_object_set_new(o, "reason", json_string(g->win_reason));
        break;
    case WL_EV_UNDONE:
        json_object_set_new(o, "units", units_json(g, e->units, e->nunits));
        json_object_set_new(o, "from", square_json(e->from));
        json_object_set_new(o, "to", square_json(e->to));
        break;
    case WL_EV_RESTORED:
        json_object_set_new(o, "to", square_json(e->to));
        break;
    case WL_EV_COMMANDER_OUT: {
        char seat[WL_SEAT_MAX];
        json_object_set_new(o, "seat", json_string(wl_team_seat(g, e->side, e->amount, seat)));
        json_object_set_new(o, "to", json_string(wl_team_seat(g, e->side, 0, seat)));
        json_object_set_new(o, "units", command_json(g, e->side, e->amount));
        break;
    }
    default:
        break;
    }
    return o;
}

enum wl_reason wl_game_apply_json(struct wl_game *g, int side, const json_t *cmd,
                                  json_t **events, struct wr_refusal *why)
{
    return wl_game_apply_json_by(g, side, 0, cmd, events, why);
}

enum wl_reason wl_game_apply_json_by(struct wl_game *g, int side, int k, const json_t *cmd,
                                     json_t **events, struct wr_refusal *why)
{
    /* Both are large; the game is not re-entered, so they live on the heap
     * of the caller's choosing: here, one allocation per call. */
    struct {
        struct wl_cmd c;
        struct wl_events ev;
    } *w = malloc(sizeof *w);
    *events = NULL;
    if (w == NULL)
        return wl_refuse(why, WL_R_BAD_COMMAND, "out of memory");
    enum wl_reason r = wl_cmd_parse(g, cmd, &w->c, why);
    if (r == WL_R_OK) {
        w->ev.n = 0;
        r = wl_game_apply_by(g, side, k, &w->c, &w->ev, why);
        if (r == WL_R_OK) {
            *events = json_array();
            for (int i = 0; i < w->ev.n; i++)
                json_array_append_new(*events, wl_event_json(g, &w->ev.ev[i]));
        }
    }
    free(w);
    return r;
}

static json_t *unit_state(const struct wl_game *g, int i)
{
    static const char *const where[] = { NULL, "pending", "eliminated", "exited" };
    const struct wl_unit *u = &g->units[i];
    json_t *o = json_object();
    json_object_set_new(o, "at", u->where == WL_ON_BOARD ? square_json(u->at)
                                                         : json_string(where[u->where]));
    if (u->moved)
        json_object_set_new(o, "moved", json_true());
    if (u->battle >= 0)
        json_object_set_new(o, "battle", json_integer(u->battle));
    if (u->must_retreat)
        json_object_set_new(o, "retreat", json_true());
    if (u->engaged)
        json_object_set_new(o, "engaged", json_true());
    if (wl_team_size(g) > 1) {
        char seat[WL_SEAT_MAX];
        json_object_set_new(o, "commander", json_string(wl_team_seat(
                                                g, g->sc->units[i].side,
                                                wl_team_commander(g, i), seat)));
    }
    return o;
}

/* A team game's commanders: for each side, in seat order, {seat, hq, out,
 * ended} (ended: he has ended the current set-up or movement phase). */
static json_t *commanders_json(const struct wl_game *g)
{
    json_t *o = json_object();
    for (int side = 0; side < WL_NSIDES; side++) {
        json_t *a = json_array();
        for (int k = 0; k < wl_team_size(g); k++) {
            char seat[WL_SEAT_MAX];
            json_array_append_new(a, json_pack("{s:s, s:s, s:b, s:b}",
                                               "seat", wl_team_seat(g, side, k, seat),
                                               "hq", g->sc->units[wl_team_hq(g, side, k)].id,
                                               "out", g->cmdr_out[side][k],
                                               "ended", g->cmdr_done[side][k]));
        }
        json_object_set_new(o, wl_side_name(side), a);
    }
    return o;
}

/* The commanders awaited now, by seat, in a team game. */
static json_t *awaited_seats_json(const struct wl_game *g)
{
    uint8_t mine[WL_MAX_COMMANDERS];
    json_t *a = json_array();
    char seat[WL_SEAT_MAX];
    wl_team_awaited(g, mine);
    for (int k = 0; k < wl_team_size(g); k++)
        if (mine[k])
            json_array_append_new(a, json_string(wl_team_seat(g, g->await_side, k, seat)));
    return a;
}

static const char *const battle_states[] = { "declared", "retreats", "exchange", "advance",
                                             "done" };

/* The state, or (with_units 0) all of it but "units": what
 * wl_game_state_update builds afresh for every command. */
static json_t *state_json(const struct wl_game *g, int with_units)
{
    const struct wl_scenario *sc = g->sc;
    json_t *s = json_object();
    json_object_set_new(s, "ruleset", json_string("waterloo"));
    json_object_set_new(s, "scenario", json_string(sc->name));
    json_object_set_new(s, "rules", json_integer(g->opt.rules));
    /* Only when off, so the states of games made before the option are
     * unchanged (their stored snapshots still match a replay). */
    if (!g->opt.undo)
        json_object_set_new(s, "undo", json_false());
    json_object_set_new(s, "turn", json_integer(g->turn));
    int t = g->turn - 1 < sc->nturns ? g->turn - 1 : sc->nturns - 1;
    json_object_set_new(s, "date", json_string(t >= 0 ? sc->turns[t].date : ""));
    json_object_set_new(s, "time", json_string(t >= 0 ? sc->turns[t].time : ""));
    json_object_set_new(s, "phase", json_string(wl_phase_name(g->phase)));
    if (g->await_what == WL_AW_NONE) {
        json_object_set_new(s, "awaiting", json_null());
    } else {
        json_t *aw = json_pack("{s:s, s:s}", "seat", wl_side_name(g->await_side), "what",
                               wl_await_name(g->await_what));
        if (g->await_what == WL_AW_DEFECTION)
            json_object_set_new(aw, "factors", json_integer(g->defection_owed));
        if (wl_team_size(g) > 1)
            json_object_set_new(aw, "commanders", awaited_seats_json(g));
        json_object_set_new(s, "awaiting", aw);
    }
    if (wl_team_size(g) > 1)
        json_object_set_new(s, "commanders", commanders_json(g));
    if (with_units) {
        json_t *units = json_object();
        for (int i = 0; i < sc->nunits; i++)
            if (wl_unit_in_game(g, i))
                json_object_set_new(units, sc->units[i].id, unit_state(g, i));
        json_object_set_new(s, "units", units);
    }
    json_t *battles = json_array();
    for (int i = 0; i < g->nbattles; i++) {
        const struct wl_battle *b = &g->battles[i];
        json_t *o = json_object();
        json_object_set_new(o, "attackers", units_json(g, b->attackers, b->nattackers));
        json_object_set_new(o, "defenders", units_json(g, b->defenders, b->ndefenders));
        json_object_set_new(o, "odds", json_sprintf("%d-%d", b->attack, b->defence));
        json_object_set_new(o, "column", b->column < 0 ? json_string("A-Elim")
                                                       : json_string(wl_crt_label(b->column)));
        json_object_set_new(o, "state", json_string(battle_states[b->state]));
        if (b->state != WL_B_DECLARED) {
            if (b->die)
                json_object_set_new(o, "die", json_integer(b->die));
            json_object_set_new(o, "result", json_string(wl_result_code(b->result)));
        }
        json_array_append_new(battles, o);
    }
    json_object_set_new(s, "battles", battles);
    if (g->current >= 0)
        json_object_set_new(s, "current_battle", json_integer(g->current));
    json_object_set_new(s, "exited_factors", json_integer(g->exited_factors));
    json_object_set_new(s, "winner", g->winner < 0 ? json_null()
                                                   : json_string(wl_side_name(g->winner)));
    if (g->winner >= 0)
        json_object_set_new(s, "result", json_string(g->win_reason));
    json_t *dice = json_object();
    if (g->has_seed) {
        char hex[65];
        wr_dice_commitment(g->seed, hex);
        json_object_set_new(dice, "commitment", json_string(hex));
        /* The seed is secret while the game runs, revealed when it ends. */
        if (g->phase == WL_PH_OVER) {
            wr_dice_seed_hex(g->seed, hex);
            json_object_set_new(dice, "seed", json_string(hex));
        }
    }
    json_object_set_new(dice, "rolls", json_integer(g->rolls));
    json_object_set_new(s, "dice", dice);
    return s;
}

json_t *wl_game_state_json(const struct wl_game *g)
{
    return state_json(g, 1);
}

/* --- a state brought up to date ------------------------------------------------ */

/* Every member of a state but "units", as state_json writes them: those
 * wl_game_state_update builds afresh and puts in place, or takes out when
 * the game no longer has them ("current_battle" between battles). A member
 * state_json writes that is not here makes the update refuse (NULL), so a
 * new member cannot be forgotten quietly: the host projects instead, and
 * the test of the update (tests/unit/waterloo/test_update_view.c) fails. */
static const char *const head_members[] = {
    "ruleset", "scenario", "rules", "undo", "turn", "date", "time", "phase", "awaiting",
    "commanders", "battles", "current_battle", "exited_factors", "winner", "result", "dice",
};
#define NHEAD (sizeof head_members / sizeof head_members[0])

void wl_shown_take(const struct wl_game *g, struct wl_shown *s)
{
    memcpy(s->units, g->units, sizeof s->units[0] * (size_t)g->sc->nunits);
    memcpy(s->cmdr_out, g->cmdr_out, sizeof s->cmdr_out);
}

/* Does unit i show differently now than in before? Compares what
 * unit_state() reads of the unit (a field it shows only when set compares
 * as its value: a difference it would not show costs one unit's diff, no
 * more); the commander comes from cmdr_out, compared by the caller. */
static int unit_changed(const struct wl_unit *a, const struct wl_unit *b)
{
    return a->where != b->where || (a->where == WL_ON_BOARD && a->at != b->at) ||
           a->moved != b->moved || a->battle != b->battle ||
           a->must_retreat != b->must_retreat || a->engaged != b->engaged;
}

json_t *wl_game_state_update(const struct wl_game *g, const struct wl_shown *before,
                             json_t *state)
{
    const struct wl_scenario *sc = g->sc;
    json_t *units = json_object_get(state, "units");
    if (!json_is_object(units))
        return NULL;
    json_t *head = state_json(g, 0);
    /* The parts that changed, old and new, under the keys they have in a
     * state: their diff is the diff of the whole states, since everything
     * else is equal (and wr_jsonpatch_diff sorts keys, so in its order). */
    json_t *from = json_object(), *to = json_object();
    json_t *from_units = json_object(), *to_units = json_object();
    json_t *ops = NULL;
    if (head == NULL || from == NULL || to == NULL || from_units == NULL || to_units == NULL)
        goto done;
    const char *key;
    json_t *value;
    json_object_foreach(head, key, value) {
        size_t k = 0;
        while (k < NHEAD && strcmp(key, head_members[k]) != 0)
            k++;
        if (k == NHEAD)
            goto done;
    }
    for (size_t k = 0; k < NHEAD; k++) {
        json_t *was = json_object_get(state, head_members[k]);
        json_t *now = json_object_get(head, head_members[k]);
        if ((was == NULL && now == NULL) || (was && now && json_equal(was, now)))
            continue;
        if ((was && json_object_set(from, head_members[k], was) != 0) ||
            (now && json_object_set(to, head_members[k], now) != 0))
            goto done;
    }
    /* A commander out hands his units to the commander-in-chief: every
     * unit's "commander" may have changed (rare: once per HQ lost). */
    int all = wl_team_size(g) > 1 &&
              memcmp(before->cmdr_out, g->cmdr_out, sizeof g->cmdr_out) != 0;
    for (int i = 0; i < sc->nunits; i++) {
        if (!wl_unit_in_game(g, i) || !(all || unit_changed(&before->units[i], &g->units[i])))
            continue;
        json_t *was = json_object_get(units, sc->units[i].id);
        if ((was && json_object_set(from_units, sc->units[i].id, was) != 0) ||
            json_object_set_new(to_units, sc->units[i].id, unit_state(g, i)) != 0)
            goto done;
    }
    if (json_object_size(to_units) > 0 &&
        (json_object_set(from, "units", from_units) != 0 ||
         json_object_set(to, "units", to_units) != 0))
        goto done;
    ops = wr_jsonpatch_diff(from, to);
    if (ops == NULL)
        goto done;
    /* Only now is the state touched: replacing a member it has allocates
     * nothing, so a failure past this point is one of adding a member
     * (current_battle, result) when memory is out. */
    for (size_t k = 0; k < NHEAD; k++) {
        json_t *now = json_object_get(to, head_members[k]);
        if (now)
            json_object_set(state, head_members[k], now);
        else if (json_object_get(from, head_members[k]))
            json_object_del(state, head_members[k]);
    }
    json_object_foreach(to_units, key, value)
        json_object_set(units, key, value);
done:
    json_decref(head);
    json_decref(from);
    json_decref(to);
    json_decref(from_units);
    json_decref(to_units);
    return ops;
}

/* --- a game from its state ---------------------------------------------------- */

/* Index of name in table[0..n), or -1. */
static int name_index(const char *name, const char *const *table, int n)
{
    for (int i = 0; name && i < n; i++)
        if (strcmp(name, table[i]) == 0)
            return i;
    return -1;
}

/* Refuse as bad_command with a printf-style sentence; returns -1. */
__attribute__((format(printf, 2, 3)))
static int load_fail(struct wr_refusal *why, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    wl_vrefuse(why, WL_R_BAD_COMMAND, fmt, ap);
    va_end(ap);
    return -1;
}

/* An integer member in lo..hi, or -1 (missing or out of range). */
static int int_in(const json_t *o, const char *key, int lo, int hi, int *out)
{
    const json_t *v = json_object_get(o, key);
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return -1;
    *out = (int)json_integer_value(v);
    return 0;
}

static int load_unit(struct wl_game *g, int i, const json_t *u, struct wr_refusal *why)
{
    static const char *const where[] = { "", "pending", "eliminated", "exited" };
    const char *id = g->sc->units[i].id;
    struct wl_unit *un = &g->units[i];
    const char *at = json_string_value(json_object_get(u, "at"));
    if (!json_is_object(u) || at == NULL)
        return load_fail(why, "units.%.40s: \"at\" must be a square or a place", id);
    int w = name_index(at, where, 4);
    if (w > 0) {
        un->where = (uint8_t)w;
        un->at = WL_SQ_NONE;
    } else if (wl_grid_parse(at, (size_t)-1, &un->at) == 0 && wl_grid_on_board(un->at)) {
        un->where = WL_ON_BOARD;
    } else {
        return load_fail(why, "units.%.40s: '%.16s' is not a square of the board", id, at);
    }
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)u, key, v) {
        if (strcmp(key, "at") == 0)
            continue;
        if (strcmp(key, "moved") == 0 && json_is_true(v)) {
            un->moved = 1;
        } else if (strcmp(key, "retreat") == 0 && json_is_true(v)) {
            un->must_retreat = 1;
        } else if (strcmp(key, "engaged") == 0 && json_is_true(v)) {
            un->engaged = 1;
        } else if (strcmp(key, "commander") == 0 && json_is_string(v) &&
                   wl_team_size(g) > 1) {
            /* derived from the order of battle and who is out: checked
             * once the commanders are read (load_commanders) */
        } else if (strcmp(key, "battle") == 0 && json_is_integer(v) &&
                   json_integer_value(v) >= 0 && json_integer_value(v) < WL_MAX_BATTLES) {
            un->battle = (int8_t)json_integer_value(v);
        } else {
            return load_fail(why, "units.%.40s: unexpected field or value '%.32s'", id, key);
        }
    }
    return 0;
}

static int load_units(struct wl_game *g, const json_t *list, int16_t *out, int *n,
                      const char *field, struct wr_refusal *why)
{
    if (!json_is_array(list) || json_array_size(list) > WL_MAX_IN_BATTLE)
        return load_fail(why, "battles: %s must be a list of at most 32 unit ids", field);
    size_t k;
    json_t *v;
    json_array_foreach(list, k, v) {
        int i = json_string_value(v) ? wl_scenario_find_unit(g->sc, json_string_value(v)) : -1;
        if (i < 0)
            return load_fail(why, "battles: %s names '%.40s', not a unit", field,
                             json_string_value(v) ? json_string_value(v) : "?");
        out[k] = (int16_t)i;
    }
    *n = (int)json_array_size(list);
    return 0;
}

static int load_battle(struct wl_game *g, int i, const json_t *o, struct wr_refusal *why)
{
    static const char *const results[] = { "AE", "DE", "AB2", "DB2", "EX" };
    struct wl_battle *b = &g->battles[i];
    memset(b, 0, sizeof *b);
    if (!json_is_object(o))
        return load_fail(why, "battles[%d] must be an object", i);
    if (load_units(g, json_object_get(o, "attackers"), b->attackers, &b->nattackers,
                   "attackers", why) != 0 ||
        load_units(g, json_object_get(o, "defenders"), b->defenders, &b->ndefenders,
                   "defenders", why) != 0)
        return -1;
    const char *odds = json_string_value(json_object_get(o, "odds"));
    const char *column = json_string_value(json_object_get(o, "column"));
    const char *state = json_string_value(json_object_get(o, "state"));
    char tail;
    if (odds == NULL || sscanf(odds, "%d-%d%c", &b->attack, &b->defence, &tail) != 2 ||
        b->attack < 0 || b->defence < 0)
        return load_fail(why, "battles: odds '%.16s' are not 'attack-defence'",
                         odds ? odds : "?");
    b->column = column && strcmp(column, "A-Elim") == 0 ? -1 : (column ? wl_crt_column(column)
                                                                       : -2);
    if (b->column < -1)
        return load_fail(why, "battles: column '%.16s' is not a CRT column",
                         column ? column : "?");
    b->state = name_index(state, battle_states, 5);
    if (b->state < 0)
        return load_fail(why, "battles: state '%.16s' is not a battle state",
                         state ? state : "?");
    if (b->state != WL_B_DECLARED) {
        b->result = name_index(json_string_value(json_object_get(o, "result")), results, 5);
        if (b->result < 0)
            return load_fail(why, "battles: a fought battle needs its result");
        if (json_object_get(o, "die") && int_in(o, "die", 1, 6, &b->die) != 0)
            return load_fail(why, "battles: die must be 1 to 6");
    }
    return 0;
}

/* A team game's commanders (commanders_json): the same seats and HQs as
 * the game's, who is out and who has ended the phase; then every unit's
 * "commander" must be the one the game gives it. */
static int load_commanders(struct wl_game *g, const json_t *state, struct wr_refusal *why)
{
    const json_t *cs = json_object_get(state, "commanders");
    char seat[WL_SEAT_MAX];
    for (int side = 0; side < WL_NSIDES; side++) {
        const json_t *a = json_object_get(cs, wl_side_name(side));
        if (!json_is_array(a) || (int)json_array_size(a) != wl_team_size(g))
            return load_fail(why, "commanders.%s must list %d commanders", wl_side_name(side),
                             wl_team_size(g));
        for (int k = 0; k < wl_team_size(g); k++) {
            const json_t *c = json_array_get(a, (size_t)k);
            const char *name = json_string_value(json_object_get(c, "seat"));
            const json_t *out = json_object_get(c, "out"), *ended = json_object_get(c, "ended");
            if (name == NULL || strcmp(name, wl_team_seat(g, side, k, seat)) != 0)
                return load_fail(why, "commanders.%s[%d] must be seat %s", wl_side_name(side),
                                 k, seat);
            if (!json_is_boolean(out) || !json_is_boolean(ended) ||
                (k == 0 && (json_is_true(out) || json_is_true(ended))))
                return load_fail(why, "commanders.%s[%d]: out and ended are true or false "
                                 "(never true for the commander-in-chief)",
                                 wl_side_name(side), k);
            g->cmdr_out[side][k] = (uint8_t)json_is_true(out);
            g->cmdr_done[side][k] = (uint8_t)json_is_true(ended);
        }
    }
    const json_t *units = json_object_get(state, "units");
    for (int i = 0; i < g->sc->nunits; i++) {
        if (!wl_unit_in_game(g, i))
            continue;
        const char *by = json_string_value(json_object_get(json_object_get(units,
                                                                           g->sc->units[i].id),
                                                           "commander"));
        wl_team_seat(g, g->sc->units[i].side, wl_team_commander(g, i), seat);
        if (by == NULL || strcmp(by, seat) != 0)
            return load_fail(why, "units.%.40s: its commander is %s", g->sc->units[i].id, seat);
    }
    return 0;
}

int wl_game_init_from_state(struct wl_game *g, const struct wl_scenario *sc,
                            const json_t *state, const char *game_id, struct wr_refusal *why)
{
    /* 0) the rules version (a state that names none was made under 1) */
    struct wl_options opt = wl_options_default();
    const json_t *rules = json_object_get(state, "rules");
    opt.rules = rules ? (int)json_integer_value(rules) : 1;
    if (opt.rules < 1 || opt.rules > WL_RULES) {
        wl_game_init(g, sc, game_id, NULL);
        return load_fail(why, "rules must be a rules version, 1..%d", WL_RULES);
    }
    /* 0b) the commanders a side: a team game's state lists them */
    const json_t *cs = json_object_get(state, "commanders");
    opt.commanders = cs ? (int)json_array_size(json_object_get(cs, "french")) : 1;
    /* 0c) undo: a state names it only when it is off */
    opt.undo = !json_is_false(json_object_get(state, "undo"));
    if (wl_options_check(&opt, sc, why) != 0) {
        opt = wl_options_default();
        wl_game_init(g, sc, game_id, NULL);
        return load_fail(why, "commanders: the state lists %d a side; scenario '%.40s' "
                         "under rules %d allows 1 to %d", opt.commanders, sc->name, opt.rules,
                         sc->most_commanders);
    }
    wl_game_init_with(g, sc, game_id, NULL, &opt);
    g->undo.known = 0;                  /* the state holds which units moved, not from where */
    if (!json_is_object(state))
        return load_fail(why, "a state is a JSON object");
    /* 1) the same ruleset and scenario */
    const char *rs = json_string_value(json_object_get(state, "ruleset"));
    const char *name = json_string_value(json_object_get(state, "scenario"));
    if (rs && strcmp(rs, "waterloo") != 0)
        return load_fail(why, "the state is of ruleset '%.32s', not waterloo", rs);
    if (name == NULL || strcmp(name, sc->name) != 0)
        return load_fail(why, "the state is of scenario '%.40s', not '%.40s'",
                         name ? name : "?", sc->name);
    /* 2) turn and phase */
    if (int_in(state, "turn", 1, sc->nturns > 0 ? sc->nturns : 1, &g->turn) != 0)
        return load_fail(why, "turn must be 1 to the scenario's last turn");
    const char *phase = json_string_value(json_object_get(state, "phase"));
    g->phase = -1;
    for (int p = 0; phase && p < WL_NPHASES; p++)
        if (strcmp(phase, wl_phase_name(p)) == 0)
            g->phase = p;
    if (g->phase < 0)
        return load_fail(why, "phase '%.32s' is not a phase", phase ? phase : "?");
    /* 3) what is awaited of whom */
    const json_t *aw = json_object_get(state, "awaiting");
    if (json_is_null(aw)) {
        g->await_side = -1;
        g->await_what = WL_AW_NONE;
    } else {
        const char *seat = json_string_value(json_object_get(aw, "seat"));
        g->await_side = seat ? wl_side_from_name(seat) : -1;
        g->await_what = wl_await_from_name(json_string_value(json_object_get(aw, "what")));
        if (g->await_side < 0 || g->await_what <= WL_AW_NONE)
            return load_fail(why, "awaiting must be null or {seat, what}");
        if (g->await_what == WL_AW_DEFECTION &&
            int_in(aw, "factors", 1, 10000, &g->defection_owed) != 0)
            return load_fail(why, "awaiting a defection needs its factors");
    }
    /* 4) every unit of the scenario in the game (wl_unit_in_game: the rules
     *    version decides), and no other */
    const json_t *units = json_object_get(state, "units");
    int playing = 0;
    for (int i = 0; i < sc->nunits; i++)
        playing += wl_unit_in_game(g, i);
    if (!json_is_object(units))
        return load_fail(why, "units must hold every unit of scenario '%.40s'", sc->name);
    for (int i = 0; i < sc->nunits; i++) {
        const json_t *u = json_object_get(units, sc->units[i].id);
        if (!wl_unit_in_game(g, i)) {
            if (u != NULL)
                return load_fail(why, "units: '%.40s' is not in a game of rules %d with %d "
                                 "commander(s) a side", sc->units[i].id, g->opt.rules,
                                 g->opt.commanders);
            continue;
        }
        if (u == NULL)
            return load_fail(why, "units: unit '%.40s' is missing (a state holds every unit "
                             "of the game)", sc->units[i].id);
        if (load_unit(g, i, u, why) != 0)
            return -1;
    }
    if ((int)json_object_size(units) != playing)
        return load_fail(why, "units must hold every unit of scenario '%.40s' in the game, "
                         "and no other", sc->name);
    if (wl_team_size(g) > 1 && load_commanders(g, state, why) != 0)
        return -1;
    /* 5) the battles of the combat phase */
    const json_t *battles = json_object_get(state, "battles");
    if (!json_is_array(battles) || json_array_size(battles) > WL_MAX_BATTLES)
        return load_fail(why, "battles must be a list of at most 64 battles");
    for (size_t i = 0; i < json_array_size(battles); i++)
        if (load_battle(g, (int)i, json_array_get(battles, i), why) != 0)
            return -1;
    g->nbattles = (int)json_array_size(battles);
    for (int i = 0; i < sc->nunits; i++)
        if (g->units[i].battle >= g->nbattles)
            return load_fail(why, "units.%.40s: its battle does not exist", sc->units[i].id);
    g->current = -1;
    if (json_object_get(state, "current_battle") &&
        int_in(state, "current_battle", 0, g->nbattles - 1, &g->current) != 0)
        return load_fail(why, "current_battle is not one of the battles");
    g->declared = (g->phase == WL_PH_FRENCH_COMBAT || g->phase == WL_PH_ALLIED_COMBAT) &&
                  g->await_what != WL_AW_DECLARE;
    /* 6) exits, the winner, the dice */
    if (int_in(state, "exited_factors", 0, 10000, &g->exited_factors) != 0)
        return load_fail(why, "exited_factors must be a count");
    const json_t *winner = json_object_get(state, "winner");
    g->winner = json_is_null(winner) ? -1
              : json_is_string(winner) ? wl_side_from_name(json_string_value(winner)) : -2;
    if (g->winner < -1)
        return load_fail(why, "winner must be null or a side");
    if (g->winner >= 0)
        snprintf(g->win_reason, sizeof g->win_reason, "%s",
                 json_string_value(json_object_get(state, "result")) ?
                 json_string_value(json_object_get(state, "result")) : "");
    const json_t *dice = json_object_get(state, "dice");
    int rolls;
    if (!json_is_object(dice) || int_in(dice, "rolls", 0, 1 << 30, &rolls) != 0)
        return load_fail(why, "dice must be {rolls, ...}");
    g->rolls = (uint32_t)rolls;
    const char *seed = json_string_value(json_object_get(dice, "seed"));
    if (seed) {
        if (wr_dice_parse_seed(seed, g->seed) != 0)
            return load_fail(why, "dice.seed is not 64 hex digits");
        g->has_seed = 1;
        char hex[65];
        const char *commitment = json_string_value(json_object_get(dice, "commitment"));
        wr_dice_commitment(g->seed, hex);
        if (commitment && strcmp(commitment, hex) != 0)
            return load_fail(why, "dice.seed does not match dice.commitment");
    }
    /* 7) a game the turn machine could have made */
    return wl_game_check(g, why) == 0 ? 0 : -1;
}

/* --- a whole game saved ------------------------------------------------------- */

#define WL_SAVE_FORMAT 1

json_t *wl_game_save_json(const struct wl_game *g)
{
    json_t *more = json_object(), *units = json_object(), *vacated = json_array();
    json_t *moves = json_array();
    for (int m = 0; m < g->undo.nmoves; m++)
        json_array_append_new(moves, json_integer(g->undo.cmdr[m]));
    json_object_set_new(more, "declared", json_integer(g->declared));
    json_object_set_new(more, "undo", json_pack("{s:b, s:o}", "known", g->undo.known,
                                                "moves", moves));
    for (int i = 0; i < g->sc->nunits; i++) {
        const struct wl_unit *u = &g->units[i];
        if (!wl_unit_in_game(g, i) || (!u->advanced && u->undo_move == 0))
            continue;
        json_t *o = json_object();
        if (u->advanced)
            json_object_set_new(o, "advanced", json_true());
        if (u->undo_move > 0)
            json_object_set_new(o, "undo", json_pack("[i, o, i]", u->undo_move,
                                                     square_json(u->undo_at), u->undo_where));
        json_object_set_new(units, g->sc->units[i].id, o);
    }
    json_object_set_new(more, "units", units);
    for (int b = 0; b < g->nbattles; b++)
        json_array_append_new(vacated, path_json(g->battles[b].vacated,
                                                 g->battles[b].nvacated));
    json_object_set_new(more, "vacated", vacated);
    return json_pack("{s:i, s:o, s:o}", "format", WL_SAVE_FORMAT, "state",
                     wl_game_state_json(g), "more", more);
}

/* A square of the board (allow_none: or null) from j, else -1. */
static int saved_square(const json_t *j, int allow_none, wl_sq *out)
{
    const char *name = json_string_value(j);
    if (allow_none && json_is_null(j)) {
        *out = WL_SQ_NONE;
        return 0;
    }
    return name && wl_grid_parse(name, (size_t)-1, out) == 0 && wl_grid_on_board(*out) ? 0 : -1;
}

/* One unit's "more" (wl_game_save_json): advanced, undo [move, at, where]. */
static int restore_unit(struct wl_game *g, int i, const json_t *o, struct wr_refusal *why)
{
    const char *id = g->sc->units[i].id;
    struct wl_unit *u = &g->units[i];
    const json_t *undo = json_object_get(o, "undo"), *adv = json_object_get(o, "advanced");
    if (!json_is_object(o) || json_object_size(o) != (size_t)(!!undo + !!adv) ||
        (adv && !json_is_true(adv)) || (!undo && !adv))
        return load_fail(why, "more.units.%.40s: only advanced (true) and undo", id);
    u->advanced = adv != NULL;
    if (undo == NULL)
        return 0;
    const json_t *move = json_array_get(undo, 0), *where = json_array_get(undo, 2);
    if (!json_is_array(undo) || json_array_size(undo) != 3 || !json_is_integer(move) ||
        json_integer_value(move) < 1 || json_integer_value(move) > g->undo.nmoves ||
        saved_square(json_array_get(undo, 1), 1, &u->undo_at) != 0 || !json_is_integer(where) ||
        json_integer_value(where) < WL_ON_BOARD || json_integer_value(where) > WL_EXITED ||
        (json_integer_value(where) == WL_ON_BOARD) != (u->undo_at != WL_SQ_NONE))
        return load_fail(why, "more.units.%.40s: undo is [move 1..%d, square or null, "
                         "where 0..3 (0 on a square)]", id, g->undo.nmoves);
    u->undo_move = (uint16_t)json_integer_value(move);
    u->undo_where = (uint8_t)json_integer_value(where);
    return 0;
}

/* "more" of wl_game_save_json, on g read from its state. */
static int restore_more(struct wl_game *g, const json_t *more, struct wr_refusal *why)
{
    const json_t *undo = json_object_get(more, "undo"), *units = json_object_get(more, "units");
    const json_t *vacated = json_object_get(more, "vacated");
    const json_t *known = json_object_get(undo, "known"), *moves = json_object_get(undo, "moves");
    if (!json_is_object(more) || json_object_size(more) != 4 ||
        int_in(more, "declared", 0, 1, &g->declared) != 0)
        return load_fail(why, "more: {declared 0 or 1, undo, units, vacated}");
    if (!json_is_object(undo) || json_object_size(undo) != 2 || !json_is_boolean(known) ||
        !json_is_array(moves) || json_array_size(moves) > WL_MAX_UNITS)
        return load_fail(why, "more.undo: {known: true or false, moves: at most %d}",
                         WL_MAX_UNITS);
    g->undo.known = json_is_true(known);
    g->undo.nmoves = (int)json_array_size(moves);
    for (int m = 0; m < g->undo.nmoves; m++) {
        const json_t *c = json_array_get(moves, (size_t)m);
        if (!json_is_integer(c) || json_integer_value(c) < 0 ||
            json_integer_value(c) >= WL_MAX_COMMANDERS)
            return load_fail(why, "more.undo.moves[%d]: a commander 0..%d", m,
                             WL_MAX_COMMANDERS - 1);
        g->undo.cmdr[m] = (uint8_t)json_integer_value(c);
    }
    if (!json_is_object(units))
        return load_fail(why, "more.units must be an object");
    const char *id;
    const json_t *o;
    json_object_foreach((json_t *)units, id, o) {
        int i = wl_scenario_find_unit(g->sc, id);
        if (i < 0 || !wl_unit_in_game(g, i))
            return load_fail(why, "more.units: '%.40s' is not a unit of the game", id);
        if (restore_unit(g, i, o, why) != 0)
            return -1;
    }
    if (!json_is_array(vacated) || (int)json_array_size(vacated) != g->nbattles)
        return load_fail(why, "more.vacated: one list of squares per battle (%d)", g->nbattles);
    for (int b = 0; b < g->nbattles; b++) {
        const json_t *list = json_array_get(vacated, (size_t)b);
        struct wl_battle *bt = &g->battles[b];
        if (!json_is_array(list) || json_array_size(list) > WL_MAX_IN_BATTLE)
            return load_fail(why, "more.vacated[%d]: at most %d squares", b, WL_MAX_IN_BATTLE);
        for (size_t k = 0; k < json_array_size(list); k++)
            if (saved_square(json_array_get(list, k), 0, &bt->vacated[k]) != 0)
                return load_fail(why, "more.vacated[%d][%zu] is not a square of the board", b,
                                 k);
        bt->nvacated = (int)json_array_size(list);
    }
    return 0;
}

int wl_game_restore_json(struct wl_game *g, const json_t *saved, struct wr_refusal *why)
{
    /* 1) format 1: exactly format, state and more */
    const json_t *f = json_object_get(saved, "format");
    if (!json_is_object(saved) || json_object_size(saved) != 3 || !json_is_integer(f) ||
        json_integer_value(f) != WL_SAVE_FORMAT)
        return load_fail(why, "a saved game is {format: %d, state, more}", WL_SAVE_FORMAT);
    /* 2) the state, under the options g was made with */
    struct wl_game *s = malloc(sizeof *s);
    if (s == NULL) {
        wl_refuse(why, WL_R_NO_MEMORY, "out of memory");
        return -1;
    }
    struct wr_refusal inner;
    if (wl_game_init_from_state(s, g->sc, json_object_get(saved, "state"), g->id, &inner) != 0) {
        free(s);
        return load_fail(why, "state: %s", inner.message);
    }
    struct wl_options so = s->opt;
    if (so.rules != g->opt.rules || so.commanders != g->opt.commanders ||
        so.undo != g->opt.undo) {
        free(s);
        return load_fail(why, "state: rules %d, %d commander(s), undo %d; the game's options "
                         "say rules %d, %d, undo %d", so.rules, so.commanders, so.undo,
                         g->opt.rules, g->opt.commanders, g->opt.undo);
    }
    /* 3) a revealed seed is the game's */
    if (s->has_seed && (!g->has_seed || memcmp(s->seed, g->seed, sizeof s->seed) != 0)) {
        free(s);
        return load_fail(why, "state: dice.seed is not the game's seed");
    }
    s->has_seed = g->has_seed;
    memcpy(s->seed, g->seed, sizeof s->seed);
    s->roll_source = g->roll_source;
    s->roll_ctx = g->roll_ctx;
    *g = *s;
    free(s);
    /* 4) what a state does not hold, then the invariants */
    if (restore_more(g, json_object_get(saved, "more"), why) != 0)
        return -1;
    if (wl_game_check(g, &inner) != 0)
        return load_fail(why, "the saved game breaks an invariant: %s", inner.message);
    return 0;
}
