/*
 * waterloo_turn.c - the turn machine of Waterloo: applies commands to a game.
 *
 * Every command is checked completely before anything changes, so a
 * refused command leaves the game exactly as it was. The phase table is in
 * waterloo_game.h; the order of a turn is the rulebook's "How to Play": French
 * movement, French combat, defection removal, P-A-A reinforcements and
 * movement, P-A-A combat, time record.
 */
#include "waterloo_command.h"

#include <stdio.h>
#include <string.h>

#include "waterloo_combat.h"
#include "dice.h"
#include "waterloo_move.h"
#include "waterloo_teams.h"

#define NAME(g, i) ((g)->sc->units[i].name)

static struct wl_event *emit(struct wl_events *ev, int type)
{
    static const struct wl_event blank = { .unit = -1, .from = WL_SQ_NONE, .to = WL_SQ_NONE,
                                           .battle = -1, .side = -1 };
    if (ev->n >= WL_MAX_EVENTS)
        return NULL;
    struct wl_event *e = &ev->ev[ev->n++];
    *e = blank;
    e->type = type;
    return e;
}

static void await(struct wl_game *g, int side, int what)
{
    g->await_side = side;
    g->await_what = what;
}

static int is_combat_unit(const struct wl_game *g, int i)
{
    return g->sc->units[i].type != WL_HQ;
}

/* Unit i has left the game: a subordinate commander whose HQ it was is
 * out (waterloo_teams.h), and every seat sees it. */
static void unit_lost(struct wl_game *g, int i, struct wl_events *ev)
{
    int k = wl_team_unit_lost(g, i);
    struct wl_event *e = k > 0 ? emit(ev, WL_EV_COMMANDER_OUT) : NULL;
    if (e) {
        e->side = g->sc->units[i].side;
        e->amount = k;
    }
}

static void eliminate(struct wl_game *g, int i, struct wl_events *ev)
{
    struct wl_event *e = emit(ev, WL_EV_ELIMINATED);
    if (e) {
        e->unit = i;
        e->from = g->units[i].at;
    }
    g->units[i].where = WL_ELIMINATED;
    g->units[i].at = WL_SQ_NONE;
    g->units[i].must_retreat = 0;
    unit_lost(g, i, ev);
}

/* Rules 2 (docs/rules-notes.md H2): a unit of side entered square s; the
 * enemy HQ units alone there are eliminated. wl_game_enemy_holds() let it
 * in, so only they can be there; under rules 1 it never lets a unit onto
 * an enemy square, and this does nothing. */
static void overrun(struct wl_game *g, wl_sq s, int side, struct wl_events *ev)
{
    if (s < 0 || s >= WL_NSQ)
        return;
    for (int i = 0; i < g->sc->nunits; i++)
        if (g->units[i].where == WL_ON_BOARD && g->units[i].at == s &&
            g->sc->units[i].side != side)
            eliminate(g, i, ev);
}

/* Combat factors of side still in the game: on the board and, when
 * with_pending, not yet arrived. */
static int side_factors(const struct wl_game *g, int side, int with_pending)
{
    int sum = 0;
    for (int i = 0; i < g->sc->nunits; i++) {
        const struct wl_unit_def *d = &g->sc->units[i];
        if (d->side != side || d->type == WL_HQ)
            continue;
        if (g->units[i].where == WL_ON_BOARD ||
            (with_pending && g->units[i].where == WL_PENDING))
            sum += d->combat > 0 ? d->combat : 1;   /* a 0-factor combat unit still counts */
    }
    return sum;
}

static void game_over(struct wl_game *g, int winner, const char *why, struct wl_events *ev)
{
    g->winner = winner;
    g->phase = WL_PH_OVER;
    snprintf(g->win_reason, sizeof g->win_reason, "%s", why);
    await(g, -1, WL_AW_NONE);
    g->current = -1;
    for (int i = 0; i < g->sc->nunits; i++)
        g->units[i].engaged = 0;            /* nothing is owed once the game is over */
    struct wl_event *e = emit(ev, WL_EV_GAME_OVER);
    if (e)
        e->side = winner;
}

/* Victory (rulebook "How to Win"). French: every P-A-A combat unit
 * eliminated, on the board and awaiting arrival. P-A-A: every French combat
 * unit gone from the board (once no defection is outstanding), or the time
 * limit (end_of_turn), or clause c (checked at the start of P-A-A movement). */
static int check_victory(struct wl_game *g, struct wl_events *ev)
{
    if (g->phase == WL_PH_OVER)
        return 1;
    if (side_factors(g, WL_ALLIED, 1) == 0) {
        game_over(g, WL_FRENCH, "every P-A-A combat unit is eliminated", ev);
        return 1;
    }
    if (g->defection_owed == 0 && g->exited_factors == 0 &&
        side_factors(g, WL_FRENCH, 0) == 0) {
        game_over(g, WL_ALLIED, "no French combat unit is left on the board", ev);
        return 1;
    }
    return 0;
}

/* Clause c: the P-A-A board is empty, the reinforcements cannot enter
 * because every entrance is blocked, and the French cannot exit enough
 * factors to remove them by defection. */
static int check_clause_c(struct wl_game *g, struct wl_events *ev)
{
    if (side_factors(g, WL_ALLIED, 0) != 0)
        return 0;
    int pending = side_factors(g, WL_ALLIED, 1);
    for (int i = 0; i < g->sc->nunits; i++)
        if (g->units[i].where == WL_PENDING && g->sc->units[i].side == WL_ALLIED &&
            wl_move_entry_for(g, i) >= 0)
            return 0;
    if (2 * side_factors(g, WL_FRENCH, 0) >= pending)
        return 0;
    game_over(g, WL_ALLIED, "clause c: every entrance is blocked and the French cannot "
              "exit enough units to win by defection", ev);
    return 1;
}

static void enter_phase(struct wl_game *g, int phase, struct wl_events *ev);

static void emit_phase(struct wl_game *g, struct wl_events *ev)
{
    struct wl_event *e = emit(ev, WL_EV_PHASE);
    if (e) {
        e->phase = g->phase;
        e->turn = g->turn;
    }
}

/* Does the mover have a battle it must or may fight? Any of its combat
 * units adjacent to an enemy unit on the board. */
static int has_contact(const struct wl_game *g, int mover)
{
    struct wl_occupancy occ;
    wl_game_occupancy(g, &occ);
    for (int i = 0; i < g->sc->nunits; i++) {
        if (g->units[i].where != WL_ON_BOARD || g->sc->units[i].side != mover ||
            !is_combat_unit(g, i))
            continue;
        for (int d = 0; d < WL_NDIR; d++) {
            wl_sq n = wl_grid_neighbour(g->units[i].at, d);
            if (n != WL_SQ_NONE && occ.side[n] == 1 - mover)
                return 1;
        }
    }
    return 0;
}

static void end_of_turn(struct wl_game *g, struct wl_events *ev)
{
    if (g->turn >= g->sc->nturns) {
        game_over(g, WL_ALLIED, "the French did not win by the end of the time record", ev);
        return;
    }
    g->turn++;
    enter_phase(g, WL_PH_FRENCH_MOVE, ev);
}

static void after_combat(struct wl_game *g, struct wl_events *ev)
{
    g->nbattles = 0;
    g->current = -1;
    g->declared = 0;
    for (int i = 0; i < g->sc->nunits; i++) {
        g->units[i].battle = -1;
        g->units[i].advanced = 0;
        g->units[i].engaged = 0;
    }
    if (g->phase == WL_PH_FRENCH_COMBAT)
        enter_phase(g, g->exited_factors > 0 ? WL_PH_DEFECTION : WL_PH_ALLIED_MOVE, ev);
    else
        end_of_turn(g, ev);
}

static void enter_phase(struct wl_game *g, int phase, struct wl_events *ev)
{
    g->phase = phase;
    memset(g->cmdr_done, 0, sizeof g->cmdr_done);
    /* The moves of the phase that ends can no longer be taken back. */
    g->undo.nmoves = 0;
    for (int i = 0; i < g->sc->nunits; i++)
        g->units[i].undo_move = 0;
    if (check_victory(g, ev))
        return;
    emit_phase(g, ev);
    switch (phase) {
    case WL_PH_SETUP_ALLIED:
        await(g, WL_ALLIED, WL_AW_SETUP);
        break;
    case WL_PH_FRENCH_MOVE:
    case WL_PH_ALLIED_MOVE:
        for (int i = 0; i < g->sc->nunits; i++)
            g->units[i].moved = 0;
        await(g, wl_phase_mover(phase), WL_AW_MOVE);
        if (phase == WL_PH_ALLIED_MOVE)
            check_clause_c(g, ev);
        break;
    case WL_PH_FRENCH_COMBAT:
    case WL_PH_ALLIED_COMBAT:
        g->nbattles = 0;
        g->current = -1;
        g->declared = 0;
        if (!has_contact(g, wl_phase_mover(phase))) {
            after_combat(g, ev);
        } else if (wl_combat_one_at_a_time(g)) {
            /* The obligations of the phase are those of its start. */
            for (int i = 0; i < g->sc->nunits; i++)
                g->units[i].engaged = (uint8_t)wl_combat_engaged(g, i);
            await(g, wl_phase_mover(phase), WL_AW_COMBAT);
        } else {
            await(g, wl_phase_mover(phase), WL_AW_DECLARE);
        }
        break;
    case WL_PH_DEFECTION: {
        g->defection_owed = 2 * g->exited_factors;
        g->exited_factors = 0;
        struct wl_event *e = emit(ev, WL_EV_DEFECTION_DUE);
        if (e)
            e->amount = g->defection_owed;
        if (side_factors(g, WL_ALLIED, 1) <= g->defection_owed) {
            /* Nothing to choose: every P-A-A combat unit defects. */
            for (int i = 0; i < g->sc->nunits; i++)
                if (g->sc->units[i].side == WL_ALLIED && is_combat_unit(g, i) &&
                    (g->units[i].where == WL_ON_BOARD || g->units[i].where == WL_PENDING)) {
                    struct wl_event *d = emit(ev, WL_EV_DEFECTED);
                    if (d)
                        d->unit = i;
                    g->units[i].where = WL_ELIMINATED;
                    g->units[i].at = WL_SQ_NONE;
                }
            g->defection_owed = 0;
            check_victory(g, ev);
            return;
        }
        await(g, WL_ALLIED, WL_AW_DEFECTION);
        break;
    }
    default:
        break;
    }
}

/* --- set-up ---------------------------------------------------------------- */

static const char *const nation_names[WL_NNATIONS] = { "french", "prussian", "anglo-allied" };

static enum wl_reason do_place(struct wl_game *g, int side, const struct wl_cmd *c,
                               struct wl_events *ev, struct wr_refusal *why)
{
    char a[WL_SQ_NAME_MAX];
    if (c->nunits != 1)
        return wl_refuse(why, WL_R_BAD_COMMAND, "place names exactly one unit");
    int i = c->units[0];
    if (g->sc->units[i].side != side)
        return wl_refuse(why, WL_R_NOT_YOUR_UNIT, "%s is not yours to place", NAME(g, i));
    if (g->units[i].where != WL_ON_BOARD)
        return wl_refuse(why, WL_R_UNIT_NOT_ON_BOARD,
                         "%s arrives later and is not placed at set-up", NAME(g, i));
    if (!wl_grid_playable(c->to))
        return wl_refuse(why, WL_R_NOT_PLAYABLE, "%s is not a playable square",
                         wl_grid_name(c->to, a));
    /* A side without a zone in the scenario keeps its printed set-up. */
    if (!wl_setup_zone_ok(g, i, c->to))
        return wl_refuse(why, WL_R_OUTSIDE_SETUP_ZONE, "%s is outside the %s set-up zone",
                         wl_grid_name(c->to, a),
                         g->opt.rules >= 2 && g->sc->nation_zones
                             ? nation_names[g->sc->units[i].nation] : wl_side_name(side));
    struct wl_occupancy occ;
    wl_game_occupancy(g, &occ);
    if (occ.side[c->to] == 1 - side)
        return wl_refuse(why, WL_R_ENEMY_SQUARE, "%s holds enemy units", wl_grid_name(c->to, a));
    int f = occ.factors[c->to] + (g->units[i].at == c->to ? 0 : g->sc->units[i].combat);
    if (f > WL_STACK_LIMIT)
        return wl_refuse(why, WL_R_STACKING, "%s would bring %d combat factors onto %s",
                         NAME(g, i), f, wl_grid_name(c->to, a));
    struct wl_event *e = emit(ev, WL_EV_PLACED);
    if (e) {
        e->unit = i;
        e->from = g->units[i].at;
        e->to = c->to;
    }
    g->units[i].at = c->to;
    return WL_R_OK;
}

/* --- movement -------------------------------------------------------------- */

/* Mark unit i as moved or eliminated by move n of the phase, where it is
 * now (struct wl_undo). */
static void undo_mark(struct wl_game *g, int i, int n)
{
    g->units[i].undo_move = (uint16_t)n;
    g->units[i].undo_at = g->units[i].at;
    g->units[i].undo_where = g->units[i].where;
}

static enum wl_reason do_move(struct wl_game *g, int side, int cmdr, const struct wl_cmd *c,
                              struct wl_events *ev, struct wr_refusal *why)
{
    int units[WL_MAX_UNITS];
    for (int k = 0; k < c->nunits; k++)
        units[k] = c->units[k];
    enum wl_reason r = wl_move_check(g, units, c->nunits, c->path, c->npath, why);
    if (r != WL_R_OK)
        return r;
    int first = c->units[0];
    int pending = g->units[first].where == WL_PENDING;
    wl_sq from = pending ? c->path[0] : g->units[first].at;
    int leaves = c->path[c->npath - 1] == WL_PATH_OFF;
    wl_sq to = leaves ? WL_SQ_NONE : c->path[c->npath - 1];

    struct wl_event *e = emit(ev, pending ? WL_EV_ENTERED : WL_EV_MOVED);
    if (e) {
        e->nunits = c->nunits < WL_MAX_IN_BATTLE ? c->nunits : WL_MAX_IN_BATTLE;
        for (int k = 0; k < e->nunits; k++)
            e->units[k] = c->units[k];
        e->unit = first;
        e->from = from;
        e->to = to;
        e->npath = c->npath;
        memcpy(e->path, c->path, sizeof(wl_sq) * (size_t)c->npath);
    }
    /* Remember the move, to take it back (struct wl_undo): the units it
     * moves, and the enemy HQs on its path that it eliminates. */
    if (g->opt.undo && g->undo.known && g->undo.nmoves < WL_MAX_UNITS) {
        int n = ++g->undo.nmoves;
        g->undo.cmdr[n - 1] = (uint8_t)cmdr;
        for (int k = 0; k < c->nunits; k++)
            undo_mark(g, c->units[k], n);
        for (int i = 0; i < g->sc->nunits; i++)
            for (int k = 0; k < c->npath && g->units[i].where == WL_ON_BOARD &&
                            g->sc->units[i].side != side; k++)
                if (g->units[i].at == c->path[k])
                    undo_mark(g, i, n);
    }
    for (int k = 0; k < c->npath; k++)
        overrun(g, c->path[k], side, ev);
    for (int k = 0; k < c->nunits; k++) {
        struct wl_unit *u = &g->units[c->units[k]];
        u->moved = 1;
        if (leaves) {
            u->where = WL_EXITED;
            u->at = WL_SQ_NONE;
            if (is_combat_unit(g, c->units[k]))
                g->exited_factors += g->sc->units[c->units[k]].combat;
            struct wl_event *x = emit(ev, WL_EV_EXITED);
            if (x)
                x->unit = c->units[k];
        } else {
            u->where = WL_ON_BOARD;
            u->at = to;
        }
    }
    return WL_R_OK;
}

/* --- taking back a move (docs/rules-notes.md, "Taking back a move") ------- */

enum wl_reason wl_undo_check(const struct wl_game *g, int side, int k, struct wr_refusal *why)
{
    char seat[WL_SEAT_MAX];
    /* 1) The game allows it. */
    if (!g->opt.undo)
        return wl_refuse(why, WL_R_UNDO_OFF, "moves cannot be taken back in this game: it is "
                         "played without undo (a tournament game)");
    /* 2) A movement phase of side, not ended by k. */
    if (g->phase == WL_PH_OVER || g->await_side != side || g->await_what != WL_AW_MOVE)
        return wl_refuse(why, WL_R_NOTHING_TO_UNDO, "a move can be taken back only in your "
                         "own movement phase, before it ends");
    if (k < 0 || k >= wl_team_size(g))
        return wl_refuse(why, WL_R_NOTHING_TO_UNDO, "%s has no commander %d",
                         wl_side_name(side), k);
    if (g->cmdr_done[side][k])
        return wl_refuse(why, WL_R_NOTHING_TO_UNDO, "%s has ended this movement phase: "
                         "its moves stand", wl_team_seat(g, side, k, seat));
    /* 3) The side's last move was k's; from a state, one of k's units moved. */
    if (!g->undo.known) {
        for (int i = 0; i < g->sc->nunits; i++)
            if (g->sc->units[i].side == side && g->units[i].moved &&
                wl_team_commander(g, i) == k)
                return WL_R_OK;
        return wl_refuse(why, WL_R_NOTHING_TO_UNDO, "no move of yours to take back: none of "
                         "your units has moved in this movement phase");
    }
    if (g->undo.nmoves == 0)
        return wl_refuse(why, WL_R_NOTHING_TO_UNDO, "no move of yours to take back: %s",
                         wl_team_size(g) > 1 ? "none of your units has moved in this "
                                               "movement phase, or their moves were taken back"
                                             : "no unit has moved in this movement phase, "
                                               "or every move was taken back");
    int by = g->undo.cmdr[g->undo.nmoves - 1];
    if (by != k)
        return wl_refuse(why, WL_R_NOTHING_TO_UNDO, "the last move of this phase was %s's: "
                         "only the last move can be taken back, by the one who made it",
                         wl_team_seat(g, side, by, seat));
    return WL_R_OK;
}

/* Take back the last move of the phase: its units go back where they were
 * (on their square, or off the board to arrive), unmoved; an exit is
 * taken off the count of factors that left; the units it eliminated come
 * back, and a commander out with his HQ is back in. */
static enum wl_reason do_undo(struct wl_game *g, int side, int k, struct wl_events *ev,
                              struct wr_refusal *why)
{
    enum wl_reason r = wl_undo_check(g, side, k, why);
    if (r != WL_R_OK)
        return r;
    if (!g->undo.known)
        return wl_refuse(why, WL_R_BAD_COMMAND, "this copy of the game was made from a state, "
                         "which does not say where the units came from: the server takes "
                         "the move back");
    int n = g->undo.nmoves;
    struct wl_event *e = emit(ev, WL_EV_UNDONE);
    for (int i = 0; i < g->sc->nunits; i++) {
        struct wl_unit *u = &g->units[i];
        if (u->undo_move != n || g->sc->units[i].side != side)
            continue;
        if (e && e->nunits < WL_MAX_IN_BATTLE) {
            if (e->nunits == 0) {
                e->unit = i;
                e->from = u->at;
                e->to = u->undo_at;
            }
            e->units[e->nunits++] = (int16_t)i;
        }
        if (u->where == WL_EXITED && is_combat_unit(g, i))
            g->exited_factors -= g->sc->units[i].combat;
        u->where = u->undo_where;
        u->at = u->undo_at;
        u->moved = 0;
        u->undo_move = 0;
    }
    for (int i = 0; i < g->sc->nunits; i++) {
        struct wl_unit *u = &g->units[i];
        if (u->undo_move != n)
            continue;
        int other = g->sc->units[i].side;
        for (int c = 1; c < wl_team_size(g); c++)
            if (wl_team_hq(g, other, c) == i)
                g->cmdr_out[other][c] = 0;
        u->where = u->undo_where;
        u->at = u->undo_at;
        u->undo_move = 0;
        struct wl_event *x = emit(ev, WL_EV_RESTORED);
        if (x) {
            x->unit = i;
            x->to = u->at;
        }
    }
    g->undo.nmoves = n - 1;
    return WL_R_OK;
}

/* --- combat ---------------------------------------------------------------- */

static void open_advances(struct wl_game *g, struct wl_battle *b, int *count)
{
    *count = 0;
    for (int k = 0; k < b->nattackers; k++) {
        int u = b->attackers[k];
        if (g->units[u].where != WL_ON_BOARD || g->units[u].advanced)
            continue;
        for (int v = 0; v < b->nvacated; v++)
            if (wl_combat_check_advance(g, b, u, b->vacated[v], NULL) == WL_R_OK)
                (*count)++;
    }
}

static void finish_battle(struct wl_game *g, struct wl_events *ev);

static int open_battles(const struct wl_game *g)
{
    int n = 0;
    for (int i = 0; i < g->nbattles; i++)
        n += g->battles[i].state != WL_B_DONE;
    return n;
}

/* No battle half-resolved: what the combat phase awaits next, or its end.
 * Rules 1: the next battle, the end when every declared battle is done.
 * Rules 2: another declaration, a resolve or end_phase; the end by itself
 * once every battle is done and nothing more can be declared. */
static void combat_goes_on(struct wl_game *g, struct wl_events *ev)
{
    int mover = wl_phase_mover(g->phase);
    if (wl_combat_one_at_a_time(g)) {
        if (open_battles(g) > 0 || wl_combat_can_declare(g))
            await(g, mover, WL_AW_COMBAT);
        else
            after_combat(g, ev);
    } else if (open_battles(g) > 0) {
        await(g, mover, WL_AW_RESOLVE);
    } else {
        after_combat(g, ev);
    }
}

/* The attacker won a battle: offer the advance if anyone may take it. */
static void attacker_won(struct wl_game *g, struct wl_battle *b, struct wl_events *ev)
{
    int n;
    open_advances(g, b, &n);
    if (n > 0) {
        b->state = WL_B_ADVANCE;
        await(g, wl_phase_mover(g->phase), WL_AW_ADVANCE);
    } else {
        finish_battle(g, ev);
    }
}

static void finish_battle(struct wl_game *g, struct wl_events *ev)
{
    struct wl_battle *b = &g->battles[g->current];
    b->state = WL_B_DONE;
    g->current = -1;
    if (check_victory(g, ev))
        return;
    combat_goes_on(g, ev);
}

/* Losers of a Back-2: units with no open retreat are eliminated at once;
 * the rest wait for the winner's choice. Returns the number waiting. */
static int start_retreats(struct wl_game *g, struct wl_battle *b, int defenders,
                          struct wl_events *ev)
{
    const int16_t *losers = defenders ? b->defenders : b->attackers;
    int n = defenders ? b->ndefenders : b->nattackers;
    int waiting = 0;
    for (int k = 0; k < n; k++) {
        int u = losers[k];
        if (g->units[u].where != WL_ON_BOARD)
            continue;
        if (wl_combat_open_retreats(g, u, NULL, 0) == 0) {
            if (defenders)
                b->vacated[b->nvacated++] = g->units[u].at;
            eliminate(g, u, ev);
        } else {
            g->units[u].must_retreat = 1;
            waiting++;
        }
    }
    return waiting;
}

static int printed_total(const struct wl_game *g, const int16_t *u, int n)
{
    int sum = 0;
    for (int k = 0; k < n; k++)
        if (g->units[u[k]].where == WL_ON_BOARD)
            sum += g->sc->units[u[k]].combat;
    return sum;
}

/* Exchange: the side with the smaller printed total loses all; the other
 * loses at least that total, chosen by its owner (automatic when every
 * unit must go). Returns 1 when a choice is awaited. */
static int start_exchange(struct wl_game *g, struct wl_battle *b, struct wl_events *ev)
{
    int pa = printed_total(g, b->attackers, b->nattackers);
    int pd = printed_total(g, b->defenders, b->ndefenders);
    const int16_t *small = pa <= pd ? b->attackers : b->defenders;
    int nsmall = pa <= pd ? b->nattackers : b->ndefenders;
    const int16_t *large = pa <= pd ? b->defenders : b->attackers;
    int nlarge = pa <= pd ? b->ndefenders : b->nattackers;
    int need = pa <= pd ? pa : pd;
    int large_total = pa <= pd ? pd : pa;

    for (int k = 0; k < nsmall; k++)
        if (g->units[small[k]].where == WL_ON_BOARD) {
            if (small == b->defenders)
                b->vacated[b->nvacated++] = g->units[small[k]].at;
            eliminate(g, small[k], ev);
        }
    /* Every unit must go when dropping the weakest would fall short. */
    int weakest = 1 << 30;
    for (int k = 0; k < nlarge; k++)
        if (g->units[large[k]].where == WL_ON_BOARD && g->sc->units[large[k]].combat < weakest)
            weakest = g->sc->units[large[k]].combat;
    if (need == 0)
        return 0;
    if (large_total - weakest < need) {
        for (int k = 0; k < nlarge; k++)
            if (g->units[large[k]].where == WL_ON_BOARD) {
                if (large == b->defenders)
                    b->vacated[b->nvacated++] = g->units[large[k]].at;
                eliminate(g, large[k], ev);
            }
        return 0;
    }
    b->state = WL_B_EXCHANGE;
    await(g, g->sc->units[large[0]].side, WL_AW_EXCHANGE);
    return 1;
}

static int roll_die(struct wl_game *g, uint32_t *k)
{
    *k = g->rolls;
    int face = g->roll_source ? g->roll_source(g->roll_ctx, g->rolls)
                              : (g->has_seed ? wr_dice_roll(g->seed, g->id, g->rolls) : 0);
    if (face < 1 || face > 6)
        return 0;
    g->rolls++;
    return face;
}

static enum wl_reason do_resolve(struct wl_game *g, const struct wl_cmd *c,
                                 struct wl_events *ev, struct wr_refusal *why)
{
    if (c->battle < 0 || c->battle >= g->nbattles)
        return wl_refuse(why, WL_R_NO_SUCH_BATTLE, "there is no battle %d", c->battle);
    struct wl_battle *b = &g->battles[c->battle];
    if (b->state != WL_B_DECLARED)
        return wl_refuse(why, WL_R_BATTLE_DONE, "battle %d is already resolved", c->battle);

    /* 1) HQ units are eliminated when attacked. */
    int combat_defenders = 0;
    for (int k = 0; k < b->ndefenders; k++)
        if (is_combat_unit(g, b->defenders[k]))
            combat_defenders++;

    int face = 0;
    uint32_t k = 0;
    int result;
    if (b->column < 0) {
        result = WL_AE;                 /* worse than 1-6: automatic A-Elim */
    } else if (combat_defenders == 0) {
        result = WL_DE;                 /* only HQ units: eliminated */
    } else {
        face = roll_die(g, &k);
        if (face == 0)
            return wl_refuse(why, WL_R_BAD_COMMAND, "no die roll is available for roll %u "
                             "(a replay without the seed needs the recorded rolls)", g->rolls);
        result = g->sc->crt[face - 1][b->column];
    }
    g->current = c->battle;
    b->die = face;
    b->result = result;
    b->state = WL_B_RETREATS;
    if (face) {
        struct wl_event *e = emit(ev, WL_EV_ROLL);
        if (e) {
            e->battle = c->battle;
            e->k = k;
            e->face = face;
        }
    }
    struct wl_event *e = emit(ev, WL_EV_RESULT);
    if (e) {
        e->battle = c->battle;
        e->result = result;
        e->column = b->column;
    }
    for (int j = 0; j < b->ndefenders; j++)
        if (!is_combat_unit(g, b->defenders[j]) && g->units[b->defenders[j]].where == WL_ON_BOARD) {
            b->vacated[b->nvacated++] = g->units[b->defenders[j]].at;
            eliminate(g, b->defenders[j], ev);
        }

    int mover = wl_phase_mover(g->phase);
    switch (result) {
    case WL_AE:
        for (int j = 0; j < b->nattackers; j++)
            if (g->units[b->attackers[j]].where == WL_ON_BOARD)
                eliminate(g, b->attackers[j], ev);
        finish_battle(g, ev);
        break;
    case WL_DE:
        for (int j = 0; j < b->ndefenders; j++)
            if (g->units[b->defenders[j]].where == WL_ON_BOARD) {
                b->vacated[b->nvacated++] = g->units[b->defenders[j]].at;
                eliminate(g, b->defenders[j], ev);
            }
        attacker_won(g, b, ev);
        break;
    case WL_DB2:
        if (start_retreats(g, b, 1, ev) > 0)
            await(g, mover, WL_AW_RETREAT);
        else
            attacker_won(g, b, ev);
        break;
    case WL_AB2:
        if (start_retreats(g, b, 0, ev) > 0)
            await(g, 1 - mover, WL_AW_RETREAT);
        else
            finish_battle(g, ev);
        break;
    case WL_EX:
        if (!start_exchange(g, b, ev)) {
            if (printed_total(g, b->attackers, b->nattackers) > 0)
                attacker_won(g, b, ev);
            else
                finish_battle(g, ev);
        }
        break;
    }
    return WL_R_OK;
}

static int find_in(const int16_t *list, int n, int u)
{
    for (int k = 0; k < n; k++)
        if (list[k] == u)
            return k;
    return -1;
}

static enum wl_reason do_retreat(struct wl_game *g, const struct wl_cmd *c,
                                 struct wl_events *ev, struct wr_refusal *why)
{
    struct wl_battle *b = &g->battles[g->current];
    if (c->nunits != 1)
        return wl_refuse(why, WL_R_BAD_COMMAND, "retreat names exactly one unit");
    int u = c->units[0];
    if (!g->units[u].must_retreat)
        return wl_refuse(why, WL_R_NOT_LOSING, "%s has no retreat to take", NAME(g, u));
    int outcome;
    enum wl_reason r = wl_combat_retreat_outcome(g, u, c->path, c->npath, &outcome, why);
    if (r != WL_R_OK)
        return r;
    if (outcome == WL_RET_ELIMINATED)
        return wl_refuse(why, WL_R_RETREAT_AVOIDABLE,
                         "that retreat would destroy %s while an open route exists",
                         NAME(g, u));
    struct wl_event *e = emit(ev, WL_EV_RETREATED);
    if (e) {
        e->unit = u;
        e->from = g->units[u].at;
        e->npath = c->npath;
        memcpy(e->path, c->path, sizeof(wl_sq) * (size_t)c->npath);
    }
    int defender = find_in(b->defenders, b->ndefenders, u) >= 0;
    if (defender)
        b->vacated[b->nvacated++] = g->units[u].at;
    g->units[u].must_retreat = 0;
    for (int k = 0; k < c->npath; k++)
        overrun(g, c->path[k], g->sc->units[u].side, ev);
    if (outcome == WL_RET_EXIT) {
        g->units[u].where = WL_EXITED;
        g->units[u].at = WL_SQ_NONE;
        if (is_combat_unit(g, u))
            g->exited_factors += g->sc->units[u].combat;
        struct wl_event *x = emit(ev, WL_EV_EXITED);
        if (x)
            x->unit = u;
    } else {
        g->units[u].at = c->path[c->npath - 1];
    }
    /* Later retreats are judged on the position after this one; a loser
     * that is now boxed in is eliminated. */
    int waiting = 0;
    for (int k = 0; k < g->sc->nunits; k++)
        if (g->units[k].must_retreat) {
            if (wl_combat_open_retreats(g, k, NULL, 0) == 0) {
                g->units[k].must_retreat = 0;
                if (find_in(b->defenders, b->ndefenders, k) >= 0)
                    b->vacated[b->nvacated++] = g->units[k].at;
                eliminate(g, k, ev);
            } else {
                waiting++;
            }
        }
    if (waiting == 0) {
        if (b->result == WL_DB2)
            attacker_won(g, b, ev);
        else
            finish_battle(g, ev);
    }
    return WL_R_OK;
}

static enum wl_reason do_exchange(struct wl_game *g, int side, const struct wl_cmd *c,
                                  struct wl_events *ev, struct wr_refusal *why)
{
    struct wl_battle *b = &g->battles[g->current];
    const int16_t *mine = side == wl_phase_mover(g->phase) ? b->attackers : b->defenders;
    int nmine = side == wl_phase_mover(g->phase) ? b->nattackers : b->ndefenders;
    /* The smaller side is already gone; its printed total was recorded as
     * the factors of the eliminated units of the other list. */
    int need = 0;
    const int16_t *theirs = mine == b->attackers ? b->defenders : b->attackers;
    int ntheirs = mine == b->attackers ? b->ndefenders : b->nattackers;
    for (int k = 0; k < ntheirs; k++)
        need += g->sc->units[theirs[k]].combat;
    int sum = 0;
    for (int k = 0; k < c->nunits; k++) {
        int u = c->units[k];
        if (find_in(mine, nmine, u) < 0 || g->units[u].where != WL_ON_BOARD)
            return wl_refuse(why, WL_R_NOT_LOSING, "%s did not fight in this battle",
                             NAME(g, u));
        for (int j = 0; j < k; j++)
            if (c->units[j] == u)
                return wl_refuse(why, WL_R_BAD_COMMAND, "%s is named twice", NAME(g, u));
        sum += g->sc->units[u].combat;
    }
    if (sum < need)
        return wl_refuse(why, WL_R_EXCHANGE_SHORT,
                         "the exchange demands at least %d printed factors; the units "
                         "chosen have %d", need, sum);
    for (int k = 0; k < c->nunits; k++) {
        int u = c->units[k];
        if (mine == b->defenders)
            b->vacated[b->nvacated++] = g->units[u].at;
        eliminate(g, u, ev);
    }
    if (printed_total(g, b->attackers, b->nattackers) > 0 &&
        printed_total(g, b->defenders, b->ndefenders) == 0)
        attacker_won(g, b, ev);
    else
        finish_battle(g, ev);
    return WL_R_OK;
}

static enum wl_reason do_advance(struct wl_game *g, const struct wl_cmd *c,
                                 struct wl_events *ev, struct wr_refusal *why)
{
    struct wl_battle *b = &g->battles[g->current];
    if (c->type == WL_CMD_NO_ADVANCE) {
        finish_battle(g, ev);
        return WL_R_OK;
    }
    if (c->nunits != 1)
        return wl_refuse(why, WL_R_BAD_COMMAND, "advance names exactly one unit");
    int u = c->units[0];
    if (g->units[u].advanced)
        return wl_refuse(why, WL_R_NO_ADVANCE, "%s has already advanced", NAME(g, u));
    enum wl_reason r = wl_combat_check_advance(g, b, u, c->to, why);
    if (r != WL_R_OK)
        return r;
    struct wl_event *e = emit(ev, WL_EV_ADVANCED);
    if (e) {
        e->unit = u;
        e->from = g->units[u].at;
        e->to = c->to;
    }
    overrun(g, c->to, g->sc->units[u].side, ev);
    g->units[u].at = c->to;
    g->units[u].advanced = 1;
    int n;
    open_advances(g, b, &n);
    if (n == 0)
        finish_battle(g, ev);
    return WL_R_OK;
}

static enum wl_reason do_end_phase(struct wl_game *g, int side, int k, const struct wl_cmd *c,
                                   struct wl_events *ev, struct wr_refusal *why);

/* Rules 1: the whole declaration of the phase (wl_combat_check_declaration).
 * Rules 2: one or more battles added to those of the phase
 * (wl_combat_check_battles); none is end_phase. */
static enum wl_reason do_declare(struct wl_game *g, int side, int cmdr, const struct wl_cmd *c,
                                 struct wl_events *ev, struct wr_refusal *why)
{
    int one_at_a_time = wl_combat_one_at_a_time(g);
    if (one_at_a_time && c->nbattles == 0)
        return do_end_phase(g, side, cmdr, c, ev, why);
    struct wl_battle bs[WL_MAX_BATTLES];
    memset(bs, 0, sizeof(struct wl_battle) * (size_t)c->nbattles);
    for (int i = 0; i < c->nbattles; i++) {
        bs[i].nattackers = c->battles[i].nattackers;
        bs[i].ndefenders = c->battles[i].ndefenders;
        memcpy(bs[i].attackers, c->battles[i].attackers,
               sizeof(int16_t) * (size_t)c->battles[i].nattackers);
        memcpy(bs[i].defenders, c->battles[i].defenders,
               sizeof(int16_t) * (size_t)c->battles[i].ndefenders);
    }
    enum wl_reason r = one_at_a_time ? wl_combat_check_battles(g, bs, c->nbattles, why)
                                     : wl_combat_check_declaration(g, bs, c->nbattles, why);
    if (r != WL_R_OK)
        return r;
    int first = one_at_a_time ? g->nbattles : 0;
    for (int i = 0; i < c->nbattles; i++) {
        int n = first + i;
        wl_combat_odds(g, &bs[i]);
        bs[i].state = WL_B_DECLARED;
        g->battles[n] = bs[i];
        for (int k = 0; k < bs[i].nattackers; k++)
            g->units[bs[i].attackers[k]].battle = (int8_t)n;
        for (int k = 0; k < bs[i].ndefenders; k++)
            g->units[bs[i].defenders[k]].battle = (int8_t)n;
        struct wl_event *e = emit(ev, WL_EV_DECLARED);
        if (e) {
            e->battle = n;
            e->attack = bs[i].attack;
            e->defence = bs[i].defence;
            e->column = bs[i].column;
        }
    }
    g->nbattles = first + c->nbattles;
    g->declared = 1;
    combat_goes_on(g, ev);
    return WL_R_OK;
}

/* end_phase: the end of a movement phase, and under rules 2 of a combat
 * phase (refused while a declared battle is unresolved or an engaged unit
 * has not fought). The one place a phase is ended by its player. */
static enum wl_reason do_end_phase(struct wl_game *g, int side, int k, const struct wl_cmd *c,
                                   struct wl_events *ev, struct wr_refusal *why)
{
    (void)c;
    /* A side's phase ends when each of its commanders has ended it, or its
     * commander-in-chief (wl_team_end_phase; one commander: at once). */
    if (g->phase == WL_PH_FRENCH_MOVE || g->phase == WL_PH_ALLIED_MOVE) {
        if (wl_team_end_phase(g, side, k))
            enter_phase(g, g->phase == WL_PH_FRENCH_MOVE ? WL_PH_FRENCH_COMBAT
                                                         : WL_PH_ALLIED_COMBAT, ev);
        return WL_R_OK;
    }
    /* Combat (rules 2). A subordinate ends it for himself once the battles
     * of his units are resolved; the phase ends when the commander-in-chief
     * (or the only commander) ends it, every battle resolved and every
     * obligation met (docs/rules-notes.md D4, TP7). */
    int sub = wl_team_size(g) > 1 && k > 0;
    for (int i = 0; i < g->nbattles; i++)
        if (g->battles[i].state != WL_B_DONE &&
            (!sub || wl_team_owner(g, g->battles[i].attackers, g->battles[i].nattackers) == k))
            return wl_refuse(why, WL_R_BATTLE_OPEN,
                             "battle %d is declared and not resolved yet: resolve it first", i);
    if (!sub) {
        enum wl_reason r = wl_combat_check_obligations(g, why);
        if (r != WL_R_OK)
            return r;
    }
    if (wl_team_end_phase(g, side, k))
        after_combat(g, ev);
    return WL_R_OK;
}

/* --- defection -------------------------------------------------------------- */

static enum wl_reason do_defect(struct wl_game *g, const struct wl_cmd *c,
                                struct wl_events *ev, struct wr_refusal *why)
{
    int sum = 0;
    for (int k = 0; k < c->nunits; k++) {
        int u = c->units[k];
        if (g->sc->units[u].side != WL_ALLIED)
            return wl_refuse(why, WL_R_NOT_YOUR_UNIT, "%s is not a P-A-A unit", NAME(g, u));
        if (g->units[u].where != WL_ON_BOARD && g->units[u].where != WL_PENDING)
            return wl_refuse(why, WL_R_UNIT_NOT_ON_BOARD, "%s is no longer in the game",
                             NAME(g, u));
        for (int j = 0; j < k; j++)
            if (c->units[j] == u)
                return wl_refuse(why, WL_R_BAD_COMMAND, "%s is named twice", NAME(g, u));
        sum += g->sc->units[u].combat;
    }
    if (sum < g->defection_owed)
        return wl_refuse(why, WL_R_DEFECTION_SHORT,
                         "French units worth %d factors left the board: P-A-A units "
                         "totalling at least %d must be removed; the units chosen have %d",
                         g->defection_owed / 2, g->defection_owed, sum);
    for (int k = 0; k < c->nunits; k++) {
        int u = c->units[k];
        struct wl_event *e = emit(ev, WL_EV_DEFECTED);
        if (e) {
            e->unit = u;
            e->from = g->units[u].at;
        }
        g->units[u].where = WL_ELIMINATED;
        g->units[u].at = WL_SQ_NONE;
        unit_lost(g, u, ev);
    }
    g->defection_owed = 0;
    enter_phase(g, WL_PH_ALLIED_MOVE, ev);
    return WL_R_OK;
}

/* --- dispatch ---------------------------------------------------------------- */

/* Which command answers which awaited thing. */
static int allowed(int what, int type)
{
    switch (what) {
    case WL_AW_SETUP:
        return type == WL_CMD_PLACE || type == WL_CMD_END_SETUP;
    case WL_AW_MOVE:
        return type == WL_CMD_MOVE || type == WL_CMD_END_PHASE;
    case WL_AW_DECLARE:
        return type == WL_CMD_DECLARE;
    case WL_AW_RESOLVE:
        return type == WL_CMD_RESOLVE;
    case WL_AW_RETREAT:
        return type == WL_CMD_RETREAT;
    case WL_AW_EXCHANGE:
        return type == WL_CMD_EXCHANGE_LOSSES;
    case WL_AW_ADVANCE:
        return type == WL_CMD_ADVANCE || type == WL_CMD_NO_ADVANCE;
    case WL_AW_DEFECTION:
        return type == WL_CMD_DEFECT;
    case WL_AW_COMBAT:
        return type == WL_CMD_DECLARE || type == WL_CMD_RESOLVE || type == WL_CMD_END_PHASE;
    }
    return 0;
}

/* --- authority: who may send a command in a team game --------------------- */

/* Which units a command touches, and who may send it (waterloo_teams.h):
 *   EACH     every unit touched is the sender's (orders for units)
 *   OWNER    the sender is the one commander of the units touched, the
 *            commander-in-chief when they are several commanders'
 *   DECIDER  the sender is awaited for the decision (wl_team_awaited)
 *   ENDS     the sender ends the phase for himself (wl_team_end_phase)
 * PLACE, MOVE and the ends also need a sender who has not ended the
 * phase. */
enum touch { T_NONE, T_UNITS, T_ATTACKERS, T_BATTLE };
enum who { W_EACH, W_OWNER, W_DECIDER, W_ENDS };

static const struct {
    uint8_t touch, who;
} authority[WL_NCMDS] = {
    [WL_CMD_PLACE] = { T_UNITS, W_EACH },
    [WL_CMD_END_SETUP] = { T_NONE, W_ENDS },
    [WL_CMD_MOVE] = { T_UNITS, W_EACH },
    [WL_CMD_END_PHASE] = { T_NONE, W_ENDS },
    [WL_CMD_DECLARE] = { T_ATTACKERS, W_OWNER },
    [WL_CMD_RESOLVE] = { T_BATTLE, W_OWNER },
    [WL_CMD_RETREAT] = { T_NONE, W_DECIDER },
    [WL_CMD_EXCHANGE_LOSSES] = { T_NONE, W_DECIDER },
    [WL_CMD_ADVANCE] = { T_NONE, W_DECIDER },
    [WL_CMD_NO_ADVANCE] = { T_NONE, W_DECIDER },
    [WL_CMD_DEFECT] = { T_NONE, W_DECIDER },
    [WL_CMD_UNDO] = { T_NONE, W_EACH },     /* wl_undo_check() judges it */
};

/* The units c touches (authority[].touch) into u; returns how many. */
static int touched(const struct wl_game *g, const struct wl_cmd *c, int16_t *u)
{
    int n = 0;
    switch (authority[c->type].touch) {
    case T_UNITS:
        memcpy(u, c->units, sizeof(int16_t) * (size_t)c->nunits);
        return c->nunits;
    case T_ATTACKERS:
        for (int i = 0; i < c->nbattles; i++)
            for (int k = 0; k < c->battles[i].nattackers && n < WL_MAX_UNITS; k++)
                u[n++] = c->battles[i].attackers[k];
        return n;
    case T_BATTLE:
        if (c->battle < 0 || c->battle >= g->nbattles)
            return 0;
        memcpy(u, g->battles[c->battle].attackers,
               sizeof(int16_t) * (size_t)g->battles[c->battle].nattackers);
        return g->battles[c->battle].nattackers;
    default:
        return 0;
    }
}

/* May commander k of side send c now? Only asked in a team game, once c
 * answers what is awaited of side. */
static enum wl_reason check_authority(const struct wl_game *g, int side, int k,
                                      const struct wl_cmd *c, struct wr_refusal *why)
{
    char seat[WL_SEAT_MAX], other[WL_SEAT_MAX];
    int16_t u[WL_MAX_UNITS];
    int n = touched(g, c, u);
    int w = authority[c->type].who;
    wl_team_seat(g, side, k, seat);
    if (w != W_DECIDER && g->cmdr_done[side][k])
        return wl_refuse(why, WL_R_NOT_YOUR_TURN, "%s has already ended his part of this %s",
                         seat, g->await_what == WL_AW_SETUP ? "set-up" : "movement phase");
    switch (w) {
    case W_EACH:
        for (int j = 0; j < n; j++) {
            int by = wl_team_commander(g, u[j]);
            if (by != k)
                return wl_refuse(why, WL_R_NOT_YOUR_COMMAND, "%s is under %s's command, not %s's",
                                 NAME(g, u[j]), wl_team_seat(g, side, by, other), seat);
        }
        return WL_R_OK;
    case W_OWNER: {
        int by = wl_team_owner(g, u, n);
        if (by != k)
            return wl_refuse(why, WL_R_NOT_YOUR_COMMAND,
                             "%s: these units are for %s to commit (%s)", seat,
                             wl_team_seat(g, side, by, other),
                             by == 0 ? "the commander-in-chief commits units of several "
                                       "commanders together"
                                     : "they are all under his command");
        return WL_R_OK;
    }
    case W_DECIDER: {
        uint8_t mine[WL_MAX_COMMANDERS];
        wl_team_awaited(g, mine);
        if (!mine[k]) {
            int by = 0;
            while (by < WL_MAX_COMMANDERS - 1 && !mine[by])
                by++;
            return wl_refuse(why, WL_R_NOT_YOUR_COMMAND, "%s: it is for %s to %s", seat,
                             wl_team_seat(g, side, by, other), wl_await_words(g->await_what));
        }
        return WL_R_OK;
    }
    default:
        return WL_R_OK;
    }
}

enum wl_reason wl_game_apply(struct wl_game *g, int side, const struct wl_cmd *c,
                             struct wl_events *ev, struct wr_refusal *why)
{
    return wl_game_apply_by(g, side, 0, c, ev, why);
}

enum wl_reason wl_game_apply_by(struct wl_game *g, int side, int k, const struct wl_cmd *c,
                                struct wl_events *ev, struct wr_refusal *why)
{
    /* 1) The game is running and this seat is the awaited one. */
    if (g->phase == WL_PH_OVER)
        return wl_refuse(why, WL_R_GAME_OVER, "the game is over: %s", g->win_reason);
    if (side != g->await_side)
        return wl_refuse(why, WL_R_NOT_YOUR_TURN, "the %s player is awaited: the game waits "
                         "for %s to %s", wl_side_name(g->await_side),
                         wl_side_words(g->await_side), wl_await_words(g->await_what));
    if (k < 0 || k >= wl_team_size(g))
        return wl_refuse(why, WL_R_NOT_YOUR_TURN, "%s has no commander %d",
                         wl_side_name(side), k);
    if (g->cmdr_out[side][k]) {
        char seat[WL_SEAT_MAX];
        return wl_refuse(why, WL_R_COMMANDER_OUT, "%s is out of the game: his HQ was "
                         "eliminated", wl_team_seat(g, side, k, seat));
    }
    /* 2) The command answers what is awaited; undo says itself why not
     *    (wl_undo_check). */
    if (c->type == WL_CMD_UNDO)
        return do_undo(g, side, k, ev, why);
    if (!allowed(g->await_what, c->type))
        return wl_refuse(why, WL_R_WRONG_PHASE, "%s is not allowed now: the game waits for "
                         "%s to %s", wl_cmd_words(c->type), wl_side_words(g->await_side),
                         wl_await_words(g->await_what));
    /* 2b) In a team game, this commander may send it. */
    if (wl_team_size(g) > 1) {
        enum wl_reason r = check_authority(g, side, k, c, why);
        if (r != WL_R_OK)
            return r;
    }
    /* 3) The command itself. */
    switch (c->type) {
    case WL_CMD_PLACE:
        return do_place(g, side, c, ev, why);
    case WL_CMD_END_SETUP:
        if (wl_team_end_phase(g, side, k))
            enter_phase(g, g->phase == WL_PH_SETUP_FRENCH ? WL_PH_SETUP_ALLIED
                                                          : WL_PH_FRENCH_MOVE, ev);
        return WL_R_OK;
    case WL_CMD_MOVE:
        return do_move(g, side, k, c, ev, why);
    case WL_CMD_END_PHASE:
        return do_end_phase(g, side, k, c, ev, why);
    case WL_CMD_DECLARE:
        return do_declare(g, side, k, c, ev, why);
    case WL_CMD_RESOLVE:
        return do_resolve(g, c, ev, why);
    case WL_CMD_RETREAT:
        return do_retreat(g, c, ev, why);
    case WL_CMD_EXCHANGE_LOSSES:
        return do_exchange(g, side, c, ev, why);
    case WL_CMD_ADVANCE:
    case WL_CMD_NO_ADVANCE:
        return do_advance(g, c, ev, why);
    case WL_CMD_DEFECT:
        return do_defect(g, c, ev, why);
    case WL_CMD_UNDO:
        break;                              /* answered above */
    }
    return wl_refuse(why, WL_R_BAD_COMMAND, "unknown command");
}
