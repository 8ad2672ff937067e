/*
 * waterloo_draw.c - what both board pictures are drawn from
 * (waterloo_draw.h): the views (the set-up, or a state's units), the
 * units stacked on each square, the geometry of square centres and the
 * names of rows and unit types. The SVG is waterloo_draw_svg.c's, the
 * text waterloo_draw_text.c's.
 *
 * Nothing here does I/O: everything is appended to a wr_strbuf.
 */
#include "waterloo_draw_internal.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

/* --- geometry ------------------------------------------------------------- */

void wl_draw_centre_rc(int r, int c, double *x, double *y)
{
    *x = WL_SVG_ORIGIN_X + (WL_DRAW_XMAX - wl_draw_x_rc(r, c)) * WL_SVG_HALF_W;
    *y = WL_SVG_ORIGIN_Y + r * WL_SVG_ROW_H;
}

void wl_draw_svg_centre(wl_sq s, double *x, double *y)
{
    wl_draw_centre_rc(wl_sq_row(s), wl_sq_col(s), x, y);
}

void wl_draw_row_name(int r, char *out)
{
    if (r == 0)
        strcpy(out, "0");
    else if (r <= 26)
        snprintf(out, 3, "%c", 'A' + r - 1);
    else
        snprintf(out, 3, "%c%c", 'A' + r - 27, 'A' + r - 27);
}

/* --- units ----------------------------------------------------------------- */

void wl_draw_stacks_build(const struct wl_scenario *sc, const struct wl_draw_view *v,
                          struct wl_draw_stacks *st)
{
    int16_t last[WL_NSQ];
    for (int s = 0; s < WL_NSQ; s++) {
        st->first[s] = -1;
        last[s] = -1;
        st->count[s] = 0;
        st->factors[s] = 0;
    }
    for (int i = 0; i < sc->nunits; i++) {
        st->next[i] = -1;
        wl_sq s = v->at[i];
        if (s == WL_SQ_NONE || s < 0 || s >= WL_NSQ)
            continue;
        if (last[s] < 0)
            st->first[s] = (int16_t)i;
        else
            st->next[last[s]] = (int16_t)i;
        last[s] = (int16_t)i;
        st->count[s]++;
        unsigned f = st->factors[s] + sc->units[i].combat;
        st->factors[s] = (uint8_t)(f > 255 ? 255 : f);
    }
}

const char *wl_draw_type_words(int type)
{
    return type == WL_HORSE_ARTILLERY ? "horse artillery" : wl_utype_name(type);
}

const char *wl_draw_act_name(int act)
{
    static const char *const names[] = { NULL, "move", "attack", "retreat", "exchange",
                                         "advance", "place" };
    return act > 0 && (size_t)act < sizeof names / sizeof names[0] ? names[act] : NULL;
}

/* --- views ------------------------------------------------------------------ */

/* Nothing on the board, nothing off it, nothing marked. */
static void view_clear(struct wl_draw_view *v)
{
    memset(v, 0, sizeof *v);
    for (int i = 0; i < WL_MAX_UNITS; i++)
        v->at[i] = v->from[i] = WL_SQ_NONE;
}

static void caption_for_turn(const struct wl_scenario *sc, int turn, char *out, size_t n,
                             const char *what)
{
    if (turn >= 1 && turn <= sc->nturns)
        snprintf(out, n, "%s: turn %d, %s %s", what, turn, sc->turns[turn - 1].date,
                 sc->turns[turn - 1].time);
    else
        snprintf(out, n, "%s", what);
}

void wl_draw_view_setup(struct wl_draw_view *v, const struct wl_scenario *sc,
                        const struct wl_options *opt)
{
    struct wl_options def = wl_options_default();
    view_clear(v);
    v->turn = sc->start_turn > 0 ? sc->start_turn : 1;
    for (int i = 0; i < sc->nunits; i++) {
        if (!wl_unit_plays(opt ? opt : &def, sc, i))
            continue;                   /* not in a game of these options (H1, TP3) */
        v->at[i] = sc->units[i].setup;
        if (v->at[i] == WL_SQ_NONE) {
            v->pending++;
            v->off[i] = WL_DRAW_PENDING;
        }
    }
    caption_for_turn(sc, sc->start_turn > 0 ? sc->start_turn : 1, v->caption,
                     sizeof v->caption, "Set-up");
}

int wl_draw_view_from_state(struct wl_draw_view *v, const struct wl_scenario *sc,
                            const json_t *state, struct wr_refusal *why)
{
    view_clear(v);
    if (!json_is_object(state)) {
        wl_refuse(why, WL_R_BAD_COMMAND, "the state is not a JSON object");
        return -1;
    }
    json_t *units = json_object_get(state, "units");
    if (!json_is_object(units)) {
        wl_refuse(why, WL_R_BAD_COMMAND, "the state has no \"units\" object");
        return -1;
    }
    const char *id;
    json_t *u;
    json_object_foreach(units, id, u) {
        int i = wl_scenario_find_unit(sc, id);
        if (i < 0) {
            wl_refuse(why, WL_R_UNKNOWN_UNIT, "the state names unit '%.40s', which scenario "
                      "'%.47s' does not have", id, sc->name);
            return -1;
        }
        const char *at = json_string_value(json_object_get(u, "at"));
        if (at == NULL) {
            wl_refuse(why, WL_R_BAD_COMMAND, "units.%.40s: \"at\" is not a string", id);
            return -1;
        }
        if (strcmp(at, "pending") == 0) {
            v->pending++;
            v->off[i] = WL_DRAW_PENDING;
        } else if (strcmp(at, "eliminated") == 0) {
            v->eliminated++;
            v->off[i] = WL_DRAW_ELIMINATED;
        } else if (strcmp(at, "exited") == 0) {
            v->exited++;
            v->off[i] = WL_DRAW_EXITED;
        } else {
            wl_sq s;
            if (wl_grid_parse(at, (size_t)-1, &s) != 0 || !wl_grid_on_board(s)) {
                wl_refuse(why, WL_R_BAD_SQUARE, "units.%.40s: '%.20s' is not a square of "
                          "the board", id, at);
                return -1;
            }
            v->at[i] = s;
        }
    }
    json_int_t turn = json_integer_value(json_object_get(state, "turn"));
    v->turn = (int)turn;
    const char *date = json_string_value(json_object_get(state, "date"));
    const char *time = json_string_value(json_object_get(state, "time"));
    const char *phase = json_string_value(json_object_get(state, "phase"));
    const char *winner = json_string_value(json_object_get(state, "winner"));
    int n = snprintf(v->caption, sizeof v->caption, "Turn %d, %.10s %.5s, %.20s", (int)turn,
                     date ? date : "?", time ? time : "?", phase ? phase : "?");
    if (winner && n > 0 && (size_t)n < sizeof v->caption)
        snprintf(v->caption + n, sizeof v->caption - (size_t)n, ", won by %.20s", winner);
    return 0;
}

void wl_draw_mark_moves(struct wl_draw_view *v)
{
    memset(v->last_move, 0, sizeof v->last_move);
    for (int i = 0; i < WL_MAX_UNITS; i++) {
        if (v->from[i] == WL_SQ_NONE)
            continue;
        if (v->from[i] < WL_NSQ)
            v->last_move[v->from[i]] = 1;
        if (v->at[i] != WL_SQ_NONE && v->at[i] < WL_NSQ)
            v->last_move[v->at[i]] = 1;
    }
}
