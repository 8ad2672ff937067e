/*
 * waterloo_present.c - Waterloo's presentation (waterloo_present.h): a
 * view's life, the states it takes, the check of a command with the rules
 * the server referees with, events as sentences and the two pictures.
 * Orders and completion are waterloo_present_order.c's, the description
 * waterloo_present_describe.c's.
 */
#include "waterloo_present_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "waterloo_draw.h"
#include "waterloo_teams.h"

/* The radius of a text picture centred by `view SQ` with no room given. */
#define DEFAULT_RADIUS 8

/* --- open, close, update ------------------------------------------------------ */

/* The host's scenarios, for a scenario built on a "base". */
static json_t *base_scenario(const char *name, void *ctx)
{
    const struct wr_host *host = ctx;
    return host->scenario(host->ctx, name);
}

static void present_close(struct wr_view *base)
{
    struct wl_view *v = (struct wl_view *)base;
    if (v == NULL)
        return;
    json_decref(v->state);
    json_decref(v->options);
    free(v->g);
    free(v->scratch);
    free(v->sc);
    free(v);
}

static struct wr_view *present_open(const struct wr_ruleset *rs, const json_t *scenario,
                                    const json_t *options, const char *seat,
                                    const struct wr_host *host, struct wr_refusal *why)
{
    if (scenario == NULL) {
        wl_refuse(why, WL_R_BAD_SCENARIO, "waterloo needs a scenario");
        return NULL;
    }
    struct wl_view *v = calloc(1, sizeof *v);
    if (v == NULL) {
        wl_refuse(why, WL_R_NO_MEMORY, "out of memory");
        return NULL;
    }
    if ((v->sc = malloc(sizeof *v->sc)) == NULL ||
        (v->scratch = malloc(sizeof *v->scratch)) == NULL ||
        (options && (v->options = json_deep_copy(options)) == NULL)) {
        present_close(&v->base);
        wl_refuse(why, WL_R_NO_MEMORY, "out of memory");
        return NULL;
    }
    int has_resolver = host && host->scenario;
    if (wl_scenario_load(v->sc, scenario, has_resolver ? base_scenario : NULL,
                         has_resolver ? (void *)host : NULL, why) != 0) {
        present_close(&v->base);
        return NULL;
    }
    wr_view_init(&v->base, rs, seat);
    /* A seat that is neither side watches, as a spectator does. */
    v->side = v->base.seat[0] ? wl_team_side_of_seat(v->base.seat) : -1;
    v->reach_from = v->centre = v->action = WL_SQ_NONE;
    v->radius = -1;
    for (int i = 0; i < WL_MAX_UNITS; i++)
        v->moved_from[i] = WL_SQ_NONE;
    return &v->base;
}

/* Where a unit changed place between two positions: the new square of the
 * first one that moved on the board, else the square the first one that
 * left the board left; WL_SQ_NONE when nothing moved. */
static wl_sq changed_square(const struct wl_game *old, const struct wl_game *now)
{
    wl_sq left = WL_SQ_NONE;
    for (int i = 0; i < now->sc->nunits; i++) {
        const struct wl_unit *a = &old->units[i], *b = &now->units[i];
        if (a->where == b->where && a->at == b->at)
            continue;
        if (b->where == WL_ON_BOARD)
            return b->at;
        if (a->where == WL_ON_BOARD && left == WL_SQ_NONE)
            left = a->at;
    }
    return left;
}

/* The square of the battle being fought (or the next one): its first
 * defender on the board, else its first attacker; WL_SQ_NONE when none. */
static wl_sq battle_square(const struct wl_game *g)
{
    int bi = g->current;
    for (int i = 0; bi < 0 && i < g->nbattles; i++)
        if (g->battles[i].state == WL_B_DECLARED)
            bi = i;
    if (bi < 0)
        return WL_SQ_NONE;
    const struct wl_battle *b = &g->battles[bi];
    for (int k = 0; k < b->ndefenders + b->nattackers; k++) {
        int u = k < b->ndefenders ? b->defenders[k] : b->attackers[k - b->ndefenders];
        if (g->units[u].where == WL_ON_BOARD)
            return g->units[u].at;
    }
    return WL_SQ_NONE;
}

/* Keep the squares of the units of each battle declared in v's state,
 * for an advance after it (wl_present_fill_advance); a new combat phase
 * forgets the last one's. */
static void remember_battles(struct wl_view *v)
{
    const struct wl_game *g = v->g;
    if (g->turn != v->seen_turn || g->phase != v->seen_phase) {
        memset(v->seen, 0, sizeof v->seen);
        v->seen_turn = g->turn;
        v->seen_phase = g->phase;
    }
    for (int i = 0; i < g->nbattles && i < WL_MAX_BATTLES; i++) {
        const struct wl_battle *b = &g->battles[i];
        if (b->state != WL_B_DECLARED)
            continue;
        for (int k = 0; k < b->nattackers + b->ndefenders && k < 2 * WL_MAX_IN_BATTLE; k++) {
            int u = k < b->nattackers ? b->attackers[k] : b->defenders[k - b->nattackers];
            v->seen_sq[i][k] = g->units[u].where == WL_ON_BOARD ? g->units[u].at : WL_SQ_NONE;
        }
        v->seen[i] = 1;
    }
}

int wl_present_fill_advance(const struct wl_view *v, struct wl_game *work)
{
    int i = work->current;
    if (work->await_what != WL_AW_ADVANCE || i < 0 || i >= WL_MAX_BATTLES || !v->seen[i] ||
        work->turn != v->seen_turn || work->phase != v->seen_phase)
        return 0;
    struct wl_battle *b = &work->battles[i];
    b->nvacated = 0;
    for (int k = 0; k < b->ndefenders; k++) {
        wl_sq s = v->seen_sq[i][b->nattackers + k];
        if (s != WL_SQ_NONE && b->nvacated < WL_MAX_IN_BATTLE)
            b->vacated[b->nvacated++] = s;
    }
    for (int k = 0; k < b->nattackers; k++) {
        struct wl_unit *u = &work->units[b->attackers[k]];
        if (u->where == WL_ON_BOARD && u->at != v->seen_sq[i][k])
            u->advanced = 1;
    }
    return 1;
}

int wl_present_yours(const struct wl_view *v, int u)
{
    return v->g->sc->units[u].side == v->side &&
           (wl_team_size(v->g) < 2 || wl_team_commander(v->g, u) == v->commander);
}

/* The last move the pictures mark (moved_from), as the view sees it from
 * one state to the next (update() gets no events). For a player: the other
 * side's moves since the player's own last order, each unit's square before
 * them (its entry's for an arrival); the first state that comes while the
 * player's side is awaited comes of its own order, and the marks go. For a
 * spectator: the moves of the last state that moved a unit on the board. A
 * unit that leaves the board is not marked. */
static void note_last_move(struct wl_view *v, const struct wl_game *old,
                           const struct wl_game *now)
{
    wl_sq from[WL_MAX_UNITS];
    int any = 0, n = now->sc->nunits;
    for (int i = 0; i < n; i++) {
        const struct wl_unit *a = &old->units[i], *b = &now->units[i];
        int e = now->sc->units[i].entry;
        from[i] = WL_SQ_NONE;
        if (now->sc->units[i].side == v->side || b->where != WL_ON_BOARD ||
            (a->where == WL_ON_BOARD && a->at == b->at))
            continue;
        if (a->where == WL_ON_BOARD)
            from[i] = a->at;
        else if (e >= 0 && e < now->sc->map.nentries)
            from[i] = now->sc->map.entries[e].at;
        any |= from[i] != WL_SQ_NONE;
    }
    if (v->side < 0) {
        if (any)
            memcpy(v->moved_from, from, sizeof from[0] * (size_t)n);
        return;
    }
    for (int i = 0; i < n; i++) {
        if (old->await_side == v->side)
            v->moved_from[i] = WL_SQ_NONE;
        if (v->moved_from[i] == WL_SQ_NONE)
            v->moved_from[i] = from[i];
    }
}

/* The state is rebuilt into a game first (it must fit the scenario), then
 * kept; the marks of a reach belonged to the old position and go. */
static int present_update(struct wr_view *base, const json_t *state, struct wr_refusal *why)
{
    struct wl_view *v = (struct wl_view *)base;
    /* The game is built in scratch; the old one becomes the next scratch
     * (the first state needs one more). */
    if (wl_game_init_from_state(v->scratch, v->sc, state, NULL, why) != 0)
        return -1;
    struct wl_game *spare = v->g ? v->g : malloc(sizeof *spare);
    json_t *copy = spare ? json_deep_copy(state) : NULL;
    if (copy == NULL) {
        if (spare != v->g)
            free(spare);
        return wl_refuse(why, WL_R_NO_MEMORY, "out of memory"), -1;
    }
    wl_sq at = v->g ? changed_square(v->g, v->scratch) : WL_SQ_NONE;
    if (v->g)
        note_last_move(v, v->g, v->scratch);
    if (at == WL_SQ_NONE)
        at = battle_square(v->scratch);
    if (at != WL_SQ_NONE)
        v->action = at;
    v->g = v->scratch;
    v->scratch = spare;
    remember_battles(v);
    int side;
    if (v->side >= 0 && wl_team_parse_seat(v->g, v->base.seat, &side, &v->commander) != 0)
        v->commander = -1;
    json_decref(v->state);
    v->state = copy;
    v->nmarked = 0;
    base->has_state = 1;
    return 0;
}

/* --- checks ------------------------------------------------------------------------- */

/* The copy judged cannot roll (its seed is secret) and a check never
 * depends on a roll: any face will do. */
static int any_face(void *ctx, uint32_t k)
{
    (void)ctx;
    (void)k;
    return 1;
}

int wl_present_judge(const struct wl_view *v, struct wl_game *work, const json_t *cmd,
                     struct wr_refusal *why)
{
    if (v->g == NULL || v->side < 0 || v->commander < 0)
        return 0;
    /* A game not running: the server answers (not_started, game_over). */
    const char *status = json_string_value(json_object_get(json_object_get(v->state, "server"),
                                                           "status"));
    if (status && strcmp(status, "running") != 0)
        return 0;
    *work = *v->g;
    work->roll_source = any_face;
    work->roll_ctx = NULL;
    int complete = wl_present_fill_advance(v, work);
    json_t *events = NULL;
    enum wl_reason r = wl_game_apply_json_by(work, v->side, v->commander, cmd, &events, why);
    json_decref(events);
    if (r == WL_R_OK)
        return 1;
    /* The state says neither which squares the defenders vacated nor who
     * advanced already: unless the view saw the battle declared, an
     * advance refused for that is the server's to judge. */
    const char *type = json_string_value(json_object_get(cmd, "type"));
    if (!complete && r == WL_R_NO_ADVANCE && type && strcmp(type, "advance") == 0)
        return 0;
    /* Nor where the units of the move to take back came from: an undo
     * wl_undo_check() allows is the server's to make. */
    if (r == WL_R_BAD_COMMAND && type && strcmp(type, "undo") == 0 && !work->undo.known)
        return 0;
    return -1;
}

static int present_precheck(struct wr_view *base, const json_t *cmd, struct wr_refusal *why)
{
    struct wl_view *v = (struct wl_view *)base;
    return wl_present_judge(v, v->scratch, cmd, why);
}

/* --- events --------------------------------------------------------------------------- */

static const char *str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "?";
}

static int num(const json_t *o, const char *key)
{
    return (int)json_integer_value(json_object_get(o, key));
}

static void path_text(const json_t *path, struct wr_strbuf *out)
{
    size_t i;
    json_t *s;
    json_array_foreach(path, i, s) {
        const char *sq = json_string_value(s);
        wr_strbuf_printf(out, "%s%s", i ? " > " : "", sq ? sq : "?");
    }
}

/* The line of each event type (waterloo_command.h lists them,
 * docs/rulesets/waterloo.md gives their fields). */
static void ev_moved(const json_t *e, const char *type, struct wr_strbuf *out)
{
    size_t i;
    json_t *u;
    json_array_foreach(json_object_get(e, "units"), i, u) {
        const char *id = json_string_value(u);
        wr_strbuf_printf(out, "%s%s", i ? "," : "", id ? id : "?");
    }
    wr_strbuf_printf(out, " %s from %s: ", type, str(e, "from"));
    path_text(json_object_get(e, "path"), out);
}

static void ev_retreated(const json_t *e, const char *type, struct wr_strbuf *out)
{
    wr_strbuf_printf(out, "%s %s from %s: ", str(e, "unit"), type, str(e, "from"));
    path_text(json_object_get(e, "path"), out);
}

static void ev_from_to(const json_t *e, const char *type, struct wr_strbuf *out)
{
    wr_strbuf_printf(out, "%s %s from %s to %s", str(e, "unit"), type, str(e, "from"),
                     str(e, "to"));
}

static void ev_removed(const json_t *e, const char *type, struct wr_strbuf *out)
{
    const char *from = json_string_value(json_object_get(e, "from"));
    wr_strbuf_printf(out, "%s %s%s%s", str(e, "unit"), type, from ? " on " : "", from ? from : "");
}

static void ev_exited(const json_t *e, const char *type, struct wr_strbuf *out)
{
    (void)type;
    wr_strbuf_printf(out, "%s left the board", str(e, "unit"));
}

static void ev_phase(const json_t *e, const char *type, struct wr_strbuf *out)
{
    (void)type;
    wr_strbuf_printf(out, "turn %d: %s", num(e, "turn"), str(e, "phase"));
}

static void ev_declared(const json_t *e, const char *type, struct wr_strbuf *out)
{
    (void)type;
    wr_strbuf_printf(out, "battle %d declared at %s (column %s)", num(e, "battle"),
                     str(e, "odds"), str(e, "column"));
}

static void ev_roll(const json_t *e, const char *type, struct wr_strbuf *out)
{
    (void)type;
    wr_strbuf_printf(out, "battle %d: the die shows %d (roll %d)", num(e, "battle"),
                     num(e, "face"), num(e, "k"));
}

static void ev_result(const json_t *e, const char *type, struct wr_strbuf *out)
{
    (void)type;
    wr_strbuf_printf(out, "battle %d: %s", num(e, "battle"), str(e, "result"));
}

static void ev_defection_due(const json_t *e, const char *type, struct wr_strbuf *out)
{
    (void)type;
    wr_strbuf_printf(out, "P-A-A units worth %d factors must defect", num(e, "factors"));
}

static void ev_game_over(const json_t *e, const char *type, struct wr_strbuf *out)
{
    (void)type;
    const char *reason = json_string_value(json_object_get(e, "reason"));
    wr_strbuf_printf(out, "game over: %s wins (%s)", str(e, "winner"), reason ? reason : "");
}

static void ev_undone(const json_t *e, const char *type, struct wr_strbuf *out)
{
    (void)type;
    size_t i;
    json_t *u;
    wr_strbuf_puts(out, "move taken back: ");
    json_array_foreach(json_object_get(e, "units"), i, u)
        wr_strbuf_printf(out, "%s%s", i ? ", " : "", json_string_value(u) ?
                                                    json_string_value(u) : "?");
    const char *to = json_string_value(json_object_get(e, "to"));
    if (to)
        wr_strbuf_printf(out, " back on %s", to);
    else
        wr_strbuf_puts(out, " back off the board, to arrive");
}

static void ev_restored(const json_t *e, const char *type, struct wr_strbuf *out)
{
    (void)type;
    wr_strbuf_printf(out, "%s is back on %s (the move that eliminated it was taken back)",
                     str(e, "unit"), str(e, "to"));
}

static const struct {
    const char *type;
    void (*line)(const json_t *e, const char *type, struct wr_strbuf *out);
} event_lines[] = {
    { "undone", ev_undone }, { "restored", ev_restored },
    { "moved", ev_moved }, { "entered", ev_moved }, { "retreated", ev_retreated },
    { "advanced", ev_from_to }, { "placed", ev_from_to }, { "eliminated", ev_removed },
    { "defected", ev_removed }, { "exited", ev_exited }, { "phase", ev_phase },
    { "declared", ev_declared }, { "roll", ev_roll }, { "result", ev_result },
    { "defection_due", ev_defection_due }, { "game_over", ev_game_over },
};

/* One line for an event; one the table lacks as its JSON. */
static void present_event(const struct wr_view *base, const json_t *e, struct wr_strbuf *out)
{
    (void)base;
    const char *type = json_string_value(json_object_get(e, "type"));
    for (size_t i = 0; type && i < sizeof event_lines / sizeof event_lines[0]; i++)
        if (strcmp(type, event_lines[i].type) == 0) {
            event_lines[i].line(e, type, out);
            return;
        }
    char *s = json_dumps(e, JSON_COMPACT | JSON_SORT_KEYS);
    wr_strbuf_puts(out, s ? s : "(an event)");
    free(s);
}

/* --- pictures ------------------------------------------------------------------------- */

/* What the pictures show: the units where the state puts them (the
 * scenario's set-up before any state), the squares reach marked, the
 * units' ids in the text's list (orders name units by id). */
/* The order each unit's clicks start for v's seat (struct wl_draw_view's
 * act), from the decision awaited of it (none when it is not awaited):
 * in the set-up its units are placed, in movement its units on the board
 * move; when battles are declared (or,
 * under rules 2, fought) its units attack; after a battle, the losers the
 * winner retreats, its own units of the battle in an exchange, its
 * attackers that may advance. */
static void acts_of(const struct wl_view *v, struct wl_draw_view *dv)
{
    const struct wl_game *g = v->g;
    if (g == NULL || v->side < 0 || g->await_side != v->side ||
        wr_state_awaits(v->state, v->base.seat) == NULL)
        return;
    const struct wl_battle *b = g->current >= 0 && g->current < g->nbattles
                                    ? &g->battles[g->current] : NULL;
    for (int i = 0; i < v->sc->nunits; i++) {
        if (g->units[i].where != WL_ON_BOARD)
            continue;
        int yours = wl_present_yours(v, i), attacker = 0, in_battle = 0;
        for (int k = 0; b && k < b->nattackers + b->ndefenders; k++)
            if ((k < b->nattackers ? b->attackers[k] : b->defenders[k - b->nattackers]) == i) {
                in_battle = 1;
                attacker = k < b->nattackers;
            }
        int act = WL_DRAW_ACT_NONE;
        switch (g->await_what) {
        case WL_AW_SETUP:
            act = yours ? WL_DRAW_ACT_PLACE : 0;
            break;
        case WL_AW_MOVE:
            act = yours ? WL_DRAW_ACT_MOVE : 0;
            break;
        case WL_AW_DECLARE:
        case WL_AW_COMBAT:
            act = yours ? WL_DRAW_ACT_ATTACK : 0;
            break;
        case WL_AW_RETREAT:
            act = in_battle && v->sc->units[i].side != v->side ? WL_DRAW_ACT_RETREAT : 0;
            break;
        case WL_AW_EXCHANGE:
            act = in_battle && yours ? WL_DRAW_ACT_EXCHANGE : 0;
            break;
        case WL_AW_ADVANCE:
            act = in_battle && attacker && yours ? WL_DRAW_ACT_ADVANCE : 0;
            break;
        }
        dv->act[i] = (uint8_t)act;
    }
}

static void picture_of(const struct wl_view *v, struct wl_draw_view *dv)
{
    if (v->state == NULL || wl_draw_view_from_state(dv, v->sc, v->state, NULL) != 0) {
        /* The set-up of a game of the view's options: its units only. */
        struct wl_options opt;
        wl_draw_view_setup(dv, v->sc, wl_options_read(v->options, v->sc, &opt, NULL) == 0
                                          ? &opt : NULL);
    }
    if (v->nmarked)
        memcpy(dv->highlight, v->marked, sizeof dv->highlight);
    memcpy(dv->from, v->moved_from, sizeof dv->from);
    wl_draw_mark_moves(dv);
    dv->show_ids = 1;
    dv->select = 1;
    acts_of(v, dv);
    /* A team game: the view's commander's units are marked as his. */
    if (v->g != NULL && wl_team_size(v->g) > 1 && v->side >= 0 && v->commander >= 0)
        for (int i = 0; i < v->sc->nunits; i++)
            dv->mine[i] = v->sc->units[i].side == v->side &&
                          wl_team_commander(v->g, i) == v->commander;
}

/* The square the text picture is centred on: the one `view` chose, the
 * units a reach query marked, where the last state changed the board (a
 * move, a loss, the battle being fought), else the middle of the awaited
 * side's units (of all units when it has none on the board). */
static wl_sq focus(const struct wl_view *v, const struct wl_draw_view *dv)
{
    if (v->centre != WL_SQ_NONE)
        return v->centre;
    if (v->nmarked && v->reach_from != WL_SQ_NONE)
        return v->reach_from;
    for (wl_sq s = 0; v->nmarked && s < WL_NSQ; s++)
        if (v->marked[s])
            return s;
    if (v->action != WL_SQ_NONE)
        return v->action;
    int side = v->g ? v->g->await_side : -1;
    for (int pass = 0; pass < 2; pass++) {
        long rows = 0, xs = 0, n = 0;
        for (int i = 0; i < v->sc->nunits; i++)
            if (dv->at[i] != WL_SQ_NONE && (pass == 1 || side < 0 || v->sc->units[i].side == side)) {
                rows += wl_sq_row(dv->at[i]);
                xs += wl_grid_x(dv->at[i]);
                n++;
            }
        if (n == 0)
            continue;
        int r = (int)((rows + n / 2) / n), x = (int)((xs + n / 2) / n);
        if (((x + r) & 1) == 0)
            x++;                    /* x = 2c + r - 51: x and r differ in parity */
        int c = (x - r + 51) / 2;
        if (wl_grid_in_frame(r, c) && wl_grid_on_board(wl_sq_make(r, c)))
            return wl_sq_make(r, c);
    }
    return WL_SQ_NONE;
}

/* The board as text fitting o (waterloo_draw.h, wl_draw_text_fit): with no
 * room given and no `view SQ`, the whole board; else a window around the
 * focus, as large as o allows (or `view SQ R` asks), moved by o's pan. */
static int present_draw_text(const struct wr_view *base, const struct wr_draw_opts *o,
                             struct wr_strbuf *out)
{
    const struct wl_view *v = (const struct wl_view *)base;
    struct wl_draw_fit fit = { 0 };
    if (o) {
        fit.cols = o->cols;
        fit.rows = o->rows;
        fit.color = o->color != 0;
        fit.pan_cols = o->pan_cols;
        fit.pan_rows = o->pan_rows;
    }
    struct wl_draw_view *dv = malloc(sizeof *dv);
    if (dv == NULL) {
        out->failed = 1;
        return -1;
    }
    picture_of(v, dv);
    fit.centre = focus(v, dv);
    int rc;
    if (fit.cols <= 0 && fit.rows <= 0 && !fit.pan_cols && !fit.pan_rows &&
        (v->centre == WL_SQ_NONE || fit.centre == WL_SQ_NONE)) {
        rc = wl_draw_text(out, v->sc, dv, NULL, fit.color);
    } else {
        fit.radius = v->radius >= 0 ? v->radius
                   : fit.cols <= 0 && fit.rows <= 0 ? DEFAULT_RADIUS : -1;
        rc = wl_draw_text_fit(out, v->sc, dv, &fit);
    }
    free(dv);
    return rc;
}

static int present_draw_svg(const struct wr_view *base, struct wr_strbuf *out)
{
    const struct wl_view *v = (const struct wl_view *)base;
    struct wl_draw_view *dv = malloc(sizeof *dv);
    if (dv == NULL) {
        out->failed = 1;
        return -1;
    }
    picture_of(v, dv);
    int rc = wl_draw_svg(out, v->sc, dv);
    free(dv);
    return rc;
}

const struct wr_present wr_present_waterloo = {
    .version = WR_PRESENT_VERSION,
    .orders = wl_present_orders,
    .open = present_open,
    .close = present_close,
    .update = present_update,
    .describe = wl_present_describe,
    .event = present_event,
    .order = wl_present_order,
    .precheck = present_precheck,
    .complete = wl_present_complete,
    .draw_text = present_draw_text,
    .draw_svg = present_draw_svg,
    .draw_report = wl_present_draw_report,
};
