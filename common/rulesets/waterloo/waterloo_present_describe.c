/*
 * waterloo_present_describe.c - where a Waterloo game stands and, for the
 * seat awaited, what the rules require of it now (waterloo_present.h).
 *
 *   Turn 2, 1815-06-16 09:00, french_combat: awaiting french (declare)
 *     battle 0: fr-jerome vs aa-picton at 6-6 (column 1-1), declared
 *   Your decision (declare): declare every battle of this combat phase at once.
 *     Must attack (in an enemy zone): fr-jerome on K-40, ...
 *     Orders: attack ATTACKER... vs DEFENDER... [; ...], e.g. "attack ..."; ...
 *   Turn 2 of 30, 1815-06-16 09:00, 29 turns left with this one
 *   Still to arrive: turn 3: aa-alten, aa-art-3 at Braine-le-Comte ... +40 more
 *   Lost: French 6 (1 unit), Allied 5 (1)
 *
 * The first line, the battles and the last three lines are for every
 * seat; the decision only for the seat awaited (in a movement phase it
 * names each reinforcement due with the order that brings it on).
 *
 * The units listed are worked out with the rules library on the game
 * rebuilt from the state; each example is a line order() turns into a
 * command the rules accept now (the random player's choice with a fixed
 * seed, checked before it is shown; none is shown when the check fails).
 */
#include "waterloo_present_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prng.h"
#include "waterloo_autoplay.h"
#include "waterloo_combat.h"
#include "waterloo_teams.h"

#define LIST_WIDTH 100          /* lists wrap before this many characters */
#define LIST_MAX 20             /* items named in a list; the rest are counted */
#define EXAMPLE_SEED 1815       /* the random player's seed for examples */
#define PLACE_TRIES 64          /* set-up squares tried for a place example */
#define ENTRY_PATH 6            /* board squares of a reinforcement's example move */
#define ARRIVALS_LINES 2        /* lines the arrivals still to come may take */

/* --- lists ------------------------------------------------------------------------- */

/* A list of items on lines of at most LIST_WIDTH characters, continued
 * with an indent, at most LIST_MAX items named. */
struct list {
    struct wr_strbuf *out;
    size_t line_start;          /* offset of the current line in out */
    int n;                      /* items given */
};

static void list_begin(struct list *l, struct wr_strbuf *out, const char *title)
{
    l->out = out;
    l->line_start = out->len;
    l->n = 0;
    wr_strbuf_puts(out, title);
}

__attribute__((format(printf, 2, 3)))
static void list_item(struct list *l, const char *fmt, ...)
{
    char item[160];
    va_list ap;
    if (l->n++ >= LIST_MAX)
        return;
    va_start(ap, fmt);
    vsnprintf(item, sizeof item, fmt, ap);
    va_end(ap);
    if (l->n > 1)
        wr_strbuf_puts(l->out, ",");
    if (l->n > 1 && l->out->len - l->line_start + strlen(item) + 2 > LIST_WIDTH) {
        wr_strbuf_puts(l->out, "\n     ");
        l->line_start = l->out->len - 5;
    } else {
        wr_strbuf_puts(l->out, " ");
    }
    wr_strbuf_puts(l->out, item);
}

static void list_end(struct list *l, const char *none)
{
    if (l->n == 0)
        wr_strbuf_puts(l->out, none);
    if (l->n > LIST_MAX)
        wr_strbuf_printf(l->out, " and %d more", l->n - LIST_MAX);
    wr_strbuf_puts(l->out, "\n");
}

/* --- examples ---------------------------------------------------------------------- */

static const char *id_of(const struct wl_game *g, int u)
{
    return g->sc->units[u].id;
}

static void ids(struct wr_strbuf *b, const struct wl_game *g, const int16_t *u, int n,
                const char *sep)
{
    for (int k = 0; k < n; k++)
        wr_strbuf_printf(b, "%s%s", k ? sep : "", id_of(g, u[k]));
}

static void squares(struct wr_strbuf *b, const wl_sq *path, int n)
{
    char name[WL_SQ_NAME_MAX];
    for (int k = 0; k < n; k++)
        wr_strbuf_printf(b, " %s", path[k] == WL_PATH_OFF ? "off" : wl_grid_name(path[k], name));
}

/* The short order that makes command c of game g (waterloo_present.h's forms). */
static void order_line(const struct wl_game *g, const struct wl_cmd *c, struct wr_strbuf *b)
{
    char name[WL_SQ_NAME_MAX];
    switch (c->type) {
    case WL_CMD_PLACE:
    case WL_CMD_ADVANCE:
        wr_strbuf_printf(b, "%s %s %s", c->type == WL_CMD_PLACE ? "place" : "advance",
                         id_of(g, c->units[0]), wl_grid_name(c->to, name));
        break;
    case WL_CMD_MOVE:
    case WL_CMD_RETREAT:
        wr_strbuf_puts(b, c->type == WL_CMD_MOVE ? "move " : "retreat ");
        ids(b, g, c->units, c->nunits, ",");
        squares(b, c->path, c->npath);
        break;
    case WL_CMD_DECLARE:
        wr_strbuf_puts(b, c->nbattles ? "attack" : "declare");
        for (int i = 0; i < c->nbattles; i++) {
            wr_strbuf_puts(b, i ? " ; " : " ");
            ids(b, g, c->battles[i].attackers, c->battles[i].nattackers, " ");
            wr_strbuf_puts(b, " vs ");
            ids(b, g, c->battles[i].defenders, c->battles[i].ndefenders, " ");
        }
        break;
    case WL_CMD_RESOLVE:
        wr_strbuf_printf(b, "resolve %d", c->battle);
        break;
    case WL_CMD_EXCHANGE_LOSSES:
    case WL_CMD_DEFECT:
        wr_strbuf_puts(b, c->type == WL_CMD_DEFECT ? "defect " : "exchange ");
        ids(b, g, c->units, c->nunits, " ");
        break;
    default:    /* end_setup, end_phase, no_advance */
        wr_strbuf_puts(b, c->type == WL_CMD_END_SETUP ? "endsetup" :
                          c->type == WL_CMD_END_PHASE ? "end" : "noadvance");
        break;
    }
}

/* Does line make a command the rules accept from v's seat now (or one
 * only the server can judge)? work is scratch for the check. */
static int line_accepted(const struct wl_view *v, struct wl_game *work, const char *line)
{
    json_t *cmd = NULL;
    struct wr_refusal why;
    if (wl_present_command(v, line, &cmd, &why) != 0)
        return 0;
    int verdict = wl_present_judge(v, work, cmd, &why);
    json_decref(cmd);
    return verdict >= 0;
}

/* A place order for the set-up: one of the seat's units onto another
 * square of its zone, the first the rules accept. */
static int place_example(const struct wl_view *v, struct wl_game *work, struct wr_strbuf *b)
{
    const struct wl_game *g = v->g;
    char name[WL_SQ_NAME_MAX];
    int tries = 0;
    for (int u = 0; u < g->sc->nunits; u++) {
        if (!wl_present_yours(v, u) || g->units[u].where != WL_ON_BOARD)
            continue;
        for (wl_sq s = 0; s < WL_NSQ && tries < PLACE_TRIES; s++) {
            if (!g->sc->zone[v->side][s] || s == g->units[u].at || !wl_grid_playable(s))
                continue;
            tries++;
            wr_strbuf_release(b);
            wr_strbuf_printf(b, "place %s %s", id_of(g, u), wl_grid_name(s, name));
            if (b->s && line_accepted(v, work, b->s))
                return 0;
        }
    }
    wr_strbuf_release(b);
    return -1;
}

/* ", e.g. \"LINE\"" for an order that makes a legal answer to the
 * decision awaited: the random player's choice (a fixed seed: the same
 * state gives the same example), or a place order during the set-up. */
static void example(const struct wl_view *v, struct wr_strbuf *out)
{
    struct wl_game *work = malloc(sizeof *work), *now = malloc(sizeof *now);
    struct wl_reach *reach = malloc(sizeof *reach);
    struct wl_cmd *c = malloc(sizeof *c);
    struct wr_strbuf line;
    wr_strbuf_init(&line);
    if (work && now && reach && c) {
        int found;
        if (v->g->await_what == WL_AW_SETUP) {
            found = place_example(v, work, &line) == 0;
        } else {
            struct wr_prng rng;
            wr_prng_seed(&rng, EXAMPLE_SEED);
            *now = *v->g;       /* with the advance's squares, when known */
            wl_present_fill_advance(v, now);
            found = wl_autoplay_next_by(now, v->commander, &rng, reach, c) == 0;
            if (found)
                order_line(v->g, c, &line);
            found = found && line.s && line_accepted(v, work, line.s);
        }
        if (found && !line.failed)
            wr_strbuf_printf(out, ", e.g. \"%s\"", line.s);
    }
    wr_strbuf_release(&line);
    free(c);
    free(reach);
    free(now);
    free(work);
}

/* --- the decisions ------------------------------------------------------------------ */

static int adjacent_combat_unit(const struct wl_game *g, int u, int side)
{
    for (int e = 0; e < g->sc->nunits; e++)
        if (g->sc->units[e].side == side && g->sc->units[e].type != WL_HQ &&
            g->units[e].where == WL_ON_BOARD &&
            wl_grid_distance(g->units[e].at, g->units[u].at) == 1)
            return e;
    return -1;
}

static void unit_at(struct list *l, const struct wl_game *g, int u)
{
    char name[WL_SQ_NAME_MAX];
    if (g->units[u].where == WL_ON_BOARD)
        list_item(l, "%s on %s", id_of(g, u), wl_grid_name(g->units[u].at, name));
    else
        list_item(l, "%s", id_of(g, u));
}

static void decide_setup(const struct wl_view *v, struct wr_strbuf *out)
{
    const struct wl_game *g = v->g;
    int zone = 0;
    for (wl_sq s = 0; s < WL_NSQ; s++)
        zone += g->sc->zone[v->side][s] && wl_grid_playable(s);
    if (zone == 0) {
        wr_strbuf_printf(out, "the scenario gives the %s units no set-up zone: they stand "
                         "where it sets them up.\n  Orders: endsetup ends your set-up.\n",
                         wl_side_name(v->side));
        return;
    }
    wr_strbuf_printf(out, "place your units on squares of the %s set-up zone (%d squares, "
                     "at most %d combat factors on one), then end your set-up.\n",
                     wl_side_name(v->side), zone, WL_STACK_LIMIT);
    wr_strbuf_puts(out, "  Orders: place UNIT SQUARE");
    example(v, out);
    wr_strbuf_puts(out, "; endsetup when they stand where you want them.\n");
}

/* The order that brings reinforcement u on now: "move U SQ..." along the
 * shortest legal path of at most ENTRY_PATH squares to the square farthest
 * from its entry, written without the entry square (the order puts it
 * back, waterloo_present_order.c), or with it when the rules refuse the
 * short form. 0 and the line in b, or -1 when no such order is accepted. */
static int entry_order(const struct wl_view *v, struct wl_game *work, struct wl_reach *reach,
                       int u, struct wr_strbuf *b)
{
    const struct wl_game *g = v->g;
    struct wr_refusal why;
    int unit = u, best = -1;
    if (wl_move_reach(g, &unit, 1, reach, &why) != WL_R_OK)
        return -1;
    wl_sq entry = reach->n ? reach->path[0][0] : WL_SQ_NONE;
    for (int i = 0, far = 0; i < reach->n; i++) {
        int d = reach->end[i] == WL_PATH_OFF ? 0 : wl_grid_distance(entry, reach->end[i]);
        if (d > 0 && reach->path_len[i] >= 2 && reach->path_len[i] <= ENTRY_PATH + 1 &&
            (d > far || (d == far && reach->path_len[i] < reach->path_len[best]))) {
            best = i;
            far = d;
        }
    }
    for (int full = 0; best >= 0 && full < 2; full++) {
        wr_strbuf_release(b);
        wr_strbuf_printf(b, "move %s", id_of(g, u));
        squares(b, reach->path[best] + 1 - full, reach->path_len[best] - 1 + full);
        if (b->s && !b->failed && line_accepted(v, work, b->s))
            return 0;
    }
    wr_strbuf_release(b);
    return -1;
}

/* "Reinforcements due:" and a line for each unit of the seat's due now:
 * its entry and the order that brings it on, checked with the rules. */
static void reinforcements(const struct wl_view *v, struct wr_strbuf *out)
{
    const struct wl_game *g = v->g;
    struct wl_game *work = malloc(sizeof *work);
    struct wl_reach *reach = malloc(sizeof *reach);
    struct wr_strbuf line;
    char name[WL_SQ_NAME_MAX];
    int n = 0;
    wr_strbuf_init(&line);
    wr_strbuf_puts(out, "  Reinforcements due:");
    for (int u = 0; u < g->sc->nunits; u++) {
        const struct wl_unit_def *d = &g->sc->units[u];
        if (!wl_present_yours(v, u) || g->units[u].where != WL_PENDING ||
            d->arrive_turn > g->turn)
            continue;
        if (n++ == 0)
            wr_strbuf_puts(out, " (a path may start on the entry square or next to it)\n");
        int e = wl_move_entry_for(g, u);
        if (e < 0) {
            wr_strbuf_printf(out, "    %s cannot enter: every entry is in an enemy zone\n",
                             d->id);
            continue;
        }
        wr_strbuf_printf(out, "    %s enters at %s (%s)", d->id, g->sc->map.entries[e].name,
                         wl_grid_name(g->sc->map.entries[e].at, name));
        if (work && reach && entry_order(v, work, reach, u, &line) == 0)
            wr_strbuf_printf(out, ", e.g. \"%s\"", line.s);
        wr_strbuf_puts(out, "\n");
    }
    if (n == 0)
        wr_strbuf_puts(out, " none\n");
    wr_strbuf_release(&line);
    free(reach);
    free(work);
}

static void decide_move(const struct wl_view *v, struct wr_strbuf *out)
{
    const struct wl_game *g = v->g;
    struct list l;
    wr_strbuf_puts(out, "move any of your units that have not moved this phase (each "
                        "once), then end the phase.\n");
    /* The reinforcements first: on a small screen they are what is cut last. */
    reinforcements(v, out);
    list_begin(&l, out, "  Not moved yet:");
    for (int u = 0; u < g->sc->nunits; u++)
        if (wl_present_yours(v, u) && g->units[u].where == WL_ON_BOARD && !g->units[u].moved)
            list_item(&l, "%s", id_of(g, u));
    list_end(&l, " none");
    wr_strbuf_puts(out, "  Orders: move UNIT[,UNIT...] SQUARE... (the path square by square)");
    example(v, out);
    wr_strbuf_puts(out, "; reach UNIT marks where a unit can go; end ends the phase.\n");
    if (v->side >= 0 && wl_undo_check(g, v->side, v->commander, NULL) == WL_R_OK)
        wr_strbuf_puts(out, "  undo takes back your last move.\n");
}

static void decide_declare(const struct wl_view *v, struct wr_strbuf *out)
{
    const struct wl_game *g = v->g;
    struct list l;
    int must = 0;
    wr_strbuf_puts(out, "declare every battle of this combat phase at once; each attacker "
                        "must touch every defender of its battle.\n");
    list_begin(&l, out, "  Must attack (in an enemy zone):");
    for (int u = 0; u < g->sc->nunits; u++)
        if (g->sc->units[u].side == v->side && g->sc->units[u].type != WL_HQ &&
            g->units[u].where == WL_ON_BOARD && adjacent_combat_unit(g, u, 1 - v->side) >= 0) {
            unit_at(&l, g, u);
            must++;
        }
    list_end(&l, " none");
    list_begin(&l, out, "  Must be attacked (one of yours in its zone):");
    for (int u = 0; u < g->sc->nunits; u++)
        if (g->sc->units[u].side != v->side && g->sc->units[u].type != WL_HQ &&
            g->units[u].where == WL_ON_BOARD && adjacent_combat_unit(g, u, v->side) >= 0)
            unit_at(&l, g, u);
    list_end(&l, " none");
    wr_strbuf_puts(out, "  Orders: attack ATTACKER... vs DEFENDER... [; ATTACKER... vs "
                        "DEFENDER...]");
    example(v, out);
    wr_strbuf_printf(out, "; odds ATTACKER... vs DEFENDER... gives the odds first%s.\n",
                     must ? "" : "; declare alone declares no battle");
}

static void battle_units(struct wr_strbuf *out, const struct wl_game *g, const struct wl_battle *b)
{
    ids(out, g, b->attackers, b->nattackers, ",");
    wr_strbuf_puts(out, " vs ");
    ids(out, g, b->defenders, b->ndefenders, ",");
}

/* The battles still declared, each with its odds and the result of each die face. */
static void open_battles(struct wr_strbuf *out, const struct wl_game *g)
{
    for (int i = 0; i < g->nbattles; i++) {
        const struct wl_battle *b = &g->battles[i];
        if (b->state != WL_B_DECLARED)
            continue;
        wr_strbuf_printf(out, "  Battle %d: ", i);
        battle_units(out, g, b);
        wr_strbuf_printf(out, " at %d-%d, ", b->attack, b->defence);
        if (b->column < 0) {
            wr_strbuf_puts(out, "worse than 1-6: the attackers are eliminated\n");
            continue;
        }
        wr_strbuf_printf(out, "column %s: die 1-6 gives", wl_crt_label(b->column));
        for (int f = 0; f < WL_CRT_ROWS; f++)
            wr_strbuf_printf(out, " %s", wl_result_code(g->sc->crt[f][b->column]));
        wr_strbuf_puts(out, "\n");
    }
}

static void decide_resolve(const struct wl_view *v, struct wr_strbuf *out)
{
    wr_strbuf_puts(out, "resolve the declared battles one at a time, in any order: the die "
                        "picks the result in the battle's column.\n");
    open_battles(out, v->g);
    wr_strbuf_puts(out, "  Orders: resolve [BATTLE] (alone: the first still declared)");
    example(v, out);
    wr_strbuf_puts(out, ".\n");
}

/* Rules 2: battles one at a time; what is still owed (the units engaged
 * when the phase began that have not fought) and what is declared. */
static void decide_combat(const struct wl_view *v, struct wr_strbuf *out)
{
    const struct wl_game *g = v->g;
    struct list l;
    int owed = 0, open = 0;
    wr_strbuf_puts(out, "fight this combat phase one battle at a time: declare one battle or "
                        "several, resolve any declared one, choose the next after seeing the "
                        "result; each attacker must touch every defender of its battle.\n");
    for (int pass = 0; pass < 2; pass++) {
        list_begin(&l, out, pass == 0 ? "  Must still attack (in an enemy zone):"
                                      : "  Must still be attacked (one of yours in its zone):");
        for (int u = 0; u < g->sc->nunits; u++)
            if ((g->sc->units[u].side == v->side) == (pass == 0) && wl_combat_owes(g, u)) {
                unit_at(&l, g, u);
                owed++;
            }
        list_end(&l, " none");
    }
    for (int i = 0; i < g->nbattles; i++)
        open += g->battles[i].state == WL_B_DECLARED;
    open_battles(out, g);
    wr_strbuf_puts(out, "  Orders: attack ATTACKER... vs DEFENDER... [; ...], resolve [BATTLE]");
    example(v, out);
    wr_strbuf_printf(out, "; odds ATTACKER... vs DEFENDER... gives the odds first; end ends "
                          "the phase%s.\n",
                     owed || open ? " once nothing is owed or left to resolve" : "");
}

static void decide_retreat(const struct wl_view *v, struct wr_strbuf *out)
{
    const struct wl_game *g = v->g;
    char a[WL_SQ_NAME_MAX], b[WL_SQ_NAME_MAX], at[WL_SQ_NAME_MAX];
    wr_strbuf_printf(out, "you won battle %d (%s): retreat each losing unit two squares, "
                     "by an open route (no enemy zone, river or woods off the road) where "
                     "one exists.\n", g->current,
                     wl_result_code(g->battles[g->current].result));
    for (int u = 0; u < g->sc->nunits; u++) {
        if (!g->units[u].must_retreat)
            continue;
        wl_sq paths[8][2];
        int n = wl_combat_open_retreats(g, u, paths, 8);
        struct list l;
        char title[96];
        snprintf(title, sizeof title, "  %s on %s, open routes:", id_of(g, u),
                 wl_grid_name(g->units[u].at, at));
        list_begin(&l, out, title);
        for (int k = 0; k < n; k++)
            if (k < 8)
                list_item(&l, "%s %s", wl_grid_name(paths[k][0], a),
                          paths[k][1] == WL_PATH_OFF ? "off" : wl_grid_name(paths[k][1], b));
            else
                l.n++;
        list_end(&l, " none");
    }
    wr_strbuf_puts(out, "  Orders: retreat UNIT SQUARE SQUARE");
    example(v, out);
    wr_strbuf_puts(out, ".\n");
}

static void decide_exchange(const struct wl_view *v, struct wr_strbuf *out)
{
    const struct wl_game *g = v->g;
    const struct wl_battle *b = &g->battles[g->current];
    int attacker = v->side == wl_phase_mover(g->phase);
    const int16_t *mine = attacker ? b->attackers : b->defenders;
    const int16_t *theirs = attacker ? b->defenders : b->attackers;
    int nmine = attacker ? b->nattackers : b->ndefenders;
    int ntheirs = attacker ? b->ndefenders : b->nattackers;
    int need = 0;
    for (int k = 0; k < ntheirs; k++)
        need += g->sc->units[theirs[k]].combat;
    wr_strbuf_printf(out, "battle %d was an exchange: the other side lost its units in it; "
                     "remove units of yours from it worth at least %d printed combat "
                     "factors.\n", g->current, need);
    struct list l;
    list_begin(&l, out, "  Yours in it:");
    for (int k = 0; k < nmine; k++)
        if (g->units[mine[k]].where == WL_ON_BOARD)
            list_item(&l, "%s (%d)", id_of(g, mine[k]), g->sc->units[mine[k]].combat);
    list_end(&l, " none");
    wr_strbuf_puts(out, "  Orders: exchange UNIT...");
    example(v, out);
    wr_strbuf_puts(out, ".\n");
}

static void decide_advance(const struct wl_view *v, struct wr_strbuf *out)
{
    const struct wl_game *g = v->g;
    const struct wl_battle *b = &g->battles[g->current];
    wr_strbuf_printf(out, "your attackers won battle %d: one on a river square may advance "
                     "onto a square the defenders vacated, one on a slope onto a vacated "
                     "hill top, each once.\n", g->current);
    struct wl_game *now = malloc(sizeof *now);
    int known = 0;
    if (now) {
        *now = *g;
        known = wl_present_fill_advance(v, now);
    }
    if (known) {
        /* each attacker that may still advance, and where (the rules say) */
        const struct wl_battle *nb = &now->battles[now->current];
        char name[WL_SQ_NAME_MAX], to[WL_SQ_NAME_MAX];
        int any = 0;
        for (int k = 0; k < nb->nattackers; k++) {
            int u = nb->attackers[k];
            if (now->units[u].where != WL_ON_BOARD || now->units[u].advanced)
                continue;
            int n = 0;
            for (int i = 0; i < nb->nvacated; i++) {
                int dup = 0;
                for (int j = 0; j < i; j++)
                    dup |= nb->vacated[j] == nb->vacated[i];
                if (dup || wl_combat_check_advance(now, nb, u, nb->vacated[i], NULL) != WL_R_OK)
                    continue;
                wl_grid_name(nb->vacated[i], to);
                if (n++)
                    wr_strbuf_printf(out, ", %s", to);
                else
                    wr_strbuf_printf(out, "  %s on %s may advance to %s", id_of(g, u),
                                     wl_grid_name(now->units[u].at, name), to);
            }
            if (n) {
                wr_strbuf_puts(out, "\n");
                any = 1;
            }
        }
        if (!any)
            wr_strbuf_puts(out, "  No attacker may advance now.\n");
    } else {
        struct list l;
        list_begin(&l, out, "  Attackers on a river or slope square:");
        for (int k = 0; k < b->nattackers; k++) {
            int u = b->attackers[k];
            if (g->units[u].where != WL_ON_BOARD)
                continue;
            const struct wl_cell *c = &g->sc->map.cell[g->units[u].at];
            if (c->river || c->slope_high)
                unit_at(&l, g, u);
        }
        list_end(&l, " none");
        wr_strbuf_puts(out, "  (This view did not see the battle declared, and the game's "
                            "position does not say which squares were vacated: the server "
                            "judges an advance.)\n");
    }
    free(now);
    wr_strbuf_puts(out, "  Orders: advance UNIT SQUARE, or noadvance");
    example(v, out);
    wr_strbuf_puts(out, ".\n");
}

static void decide_defect(const struct wl_view *v, struct wr_strbuf *out)
{
    const struct wl_game *g = v->g;
    wr_strbuf_printf(out, "French units worth %d combat factors left the board: remove "
                     "P-A-A units, on the board or still to arrive, worth at least %d "
                     "printed combat factors.\n", g->defection_owed / 2, g->defection_owed);
    wr_strbuf_puts(out, "  Orders: defect UNIT...");
    example(v, out);
    wr_strbuf_puts(out, ".\n");
}

/* The decision awaited of v's seat: what the rules require now and the
 * orders that make it, indexed by enum wl_await. */
static void (*const decisions[])(const struct wl_view *v, struct wr_strbuf *out) = {
    [WL_AW_SETUP] = decide_setup,
    [WL_AW_MOVE] = decide_move,
    [WL_AW_DECLARE] = decide_declare,
    [WL_AW_RESOLVE] = decide_resolve,
    [WL_AW_RETREAT] = decide_retreat,
    [WL_AW_EXCHANGE] = decide_exchange,
    [WL_AW_ADVANCE] = decide_advance,
    [WL_AW_DEFECTION] = decide_defect,
    [WL_AW_COMBAT] = decide_combat,
};

/* --- the record: time, arrivals, losses ---------------------------------------------- */

/* text[0..len) on lines of at most LIST_WIDTH characters, broken at
 * blanks, continued with an indent, at most max lines (the rest is cut). */
static void put_wrapped(struct wr_strbuf *out, const char *text, size_t len, int max)
{
    size_t i = 0;
    for (int line = 0; i < len && line < max; line++) {
        size_t room = LIST_WIDTH - (line ? 5 : 0), end = i + room;
        if (end >= len) {
            end = len;
        } else {
            while (end > i && text[end] != ' ')
                end--;
            if (end == i)
                end = i + room;
        }
        wr_strbuf_printf(out, "%s%.*s\n", line ? "     " : "", (int)(end - i), text + i);
        i = end;
        while (i < len && text[i] == ' ')
            i++;
    }
}

/* "Turn 3 of 12, 1815-06-16 11:00, 10 turns left with this one". */
static void turn_record(const struct wl_game *g, struct wr_strbuf *out)
{
    const struct wl_turn_time *t = &g->sc->turns[g->turn - 1];
    int left = g->sc->nturns - g->turn + 1;
    wr_strbuf_printf(out, "Turn %d of %d, %s %s, %d turn%s left with this one\n", g->turn,
                     g->sc->nturns, t->date, t->time, left, left == 1 ? "" : "s");
}

/* "Still to arrive: turn 4: aa-picton, aa-wissel at Brussels, pr-ii at
 * Namur; turn 5: ..." for the units due after this turn, both sides (the
 * order of battle is no secret), cut to ARRIVALS_LINES lines with "+N
 * more". */
static void arrivals(const struct wl_game *g, struct wr_strbuf *out)
{
    const struct wl_scenario *sc = g->sc;
    struct wr_strbuf text;
    size_t budget = ARRIVALS_LINES * (LIST_WIDTH - 5) - 30;    /* room for breaks, "+NN more" */
    int named = 0, more = 0;
    wr_strbuf_init(&text);
    wr_strbuf_puts(&text, "Still to arrive:");
    for (int t = g->turn + 1; t <= sc->nturns; t++) {
        int turn_named = 0;
        for (int e = -1; e < sc->map.nentries; e++) {
            int in_group = 0;
            for (int u = 0; u < sc->nunits; u++) {
                if (g->units[u].where != WL_PENDING || sc->units[u].arrive_turn != t ||
                    sc->units[u].entry != e)
                    continue;
                size_t before = text.len;
                if (more == 0) {
                    if (in_group)
                        wr_strbuf_puts(&text, ",");
                    else if (turn_named)
                        wr_strbuf_puts(&text, " and");
                    else
                        wr_strbuf_printf(&text, "%s turn %d:", named ? ";" : "", t);
                    wr_strbuf_printf(&text, " %s", sc->units[u].id);
                }
                if (more || text.len > budget) {
                    text.len = before;      /* cut: counted, not named */
                    if (text.s)
                        text.s[before] = '\0';
                    more++;
                    continue;
                }
                in_group = turn_named = 1;
                named++;
            }
            if (in_group && e >= 0)
                wr_strbuf_printf(&text, " at %s", sc->map.entries[e].name);
        }
    }
    if (named == 0 && more == 0)
        wr_strbuf_puts(&text, " none");
    if (more)
        wr_strbuf_printf(&text, " +%d more", more);
    if (text.failed)
        out->failed = 1;
    else
        put_wrapped(out, text.s, text.len, ARRIVALS_LINES);
    wr_strbuf_release(&text);
}

/* "Lost: French 12 (3 units), Allied 6 (1); left the board: French 5 (1)":
 * the printed combat factors of the units eliminated (defected included)
 * and of those that left the board, per side. */
static void losses(const struct wl_game *g, struct wr_strbuf *out)
{
    static const int where[2] = { WL_ELIMINATED, WL_EXITED };
    wr_strbuf_puts(out, "Lost:");
    for (int k = 0; k < 2; k++) {
        int factors[WL_NSIDES] = { 0 }, units[WL_NSIDES] = { 0 }, any = 0;
        for (int u = 0; u < g->sc->nunits; u++)
            if (g->units[u].where == where[k]) {
                factors[g->sc->units[u].side] += g->sc->units[u].combat;
                units[g->sc->units[u].side]++;
                any = 1;
            }
        if (k == 1 && !any)
            break;
        if (k == 1)
            wr_strbuf_puts(out, "; left the board:");
        if (!any)
            wr_strbuf_puts(out, " none");
        for (int side = 0, n = 0; side < WL_NSIDES; side++) {
            if (units[side] == 0)
                continue;
            int first = n++ == 0;
            wr_strbuf_printf(out, "%s %s %d (%d%s)", first ? "" : ",",
                             side == WL_FRENCH ? "French" : "Allied", factors[side],
                             units[side], !first ? "" : units[side] == 1 ? " unit" : " units");
        }
    }
    wr_strbuf_puts(out, "\n");
}

/* --- describe ------------------------------------------------------------------------ */

/* "awaiting french:napoleon, french:ney (move)": the commanders a team
 * game waits for. */
static void awaited_commanders(const struct wl_game *g, struct wr_strbuf *out)
{
    uint8_t mine[WL_MAX_COMMANDERS];
    char seat[WL_SEAT_MAX];
    const char *sep = "";
    wl_team_awaited(g, mine);
    wr_strbuf_puts(out, "awaiting ");
    for (int k = 0; k < wl_team_size(g); k++)
        if (mine[k]) {
            wr_strbuf_printf(out, "%s%s", sep, wl_team_seat(g, g->await_side, k, seat));
            sep = ", ";
        }
    wr_strbuf_printf(out, " (%s)", wl_await_name(g->await_what));
}

/* A team game: the commanders out, then the view's own command, "Your
 * units (french:ney): ..." with the units still in the game. */
static void team_lines(const struct wl_view *v, struct wr_strbuf *out)
{
    const struct wl_game *g = v->g;
    char seat[WL_SEAT_MAX], to[WL_SEAT_MAX];
    for (int side = 0; side < WL_NSIDES; side++)
        for (int k = 1; k < wl_team_size(g); k++)
            if (g->cmdr_out[side][k])
                wr_strbuf_printf(out, "  %s is out (his HQ was eliminated); his units are "
                                 "%s's\n", wl_team_seat(g, side, k, seat),
                                 wl_team_seat(g, side, 0, to));
    if (v->side < 0 || v->commander < 0)
        return;
    wr_strbuf_printf(out, "Your units (%s):", wl_team_seat(g, v->side, v->commander, seat));
    int n = 0;
    for (int i = 0; i < g->sc->nunits; i++)
        if (g->sc->units[i].side == v->side && wl_team_commander(g, i) == v->commander &&
            (g->units[i].where == WL_ON_BOARD || g->units[i].where == WL_PENDING))
            wr_strbuf_printf(out, "%s %s", n++ ? "," : "", g->sc->units[i].id);
    wr_strbuf_puts(out, n ? "\n" : " none left\n");
}

/* Is v's seat awaited? The server section says so when the state has one
 * (a game not running awaits nobody), else the rules. */
static int seat_awaited(const struct wl_view *v)
{
    uint8_t mine[WL_MAX_COMMANDERS];
    if (v->side < 0 || v->commander < 0 || v->g->await_side != v->side ||
        (wl_team_awaited(v->g, mine), !mine[v->commander]))
        return 0;
    if (json_object_get(v->state, "server") == NULL)
        return 1;
    return wr_state_awaits(v->state, v->base.seat) != NULL;
}

void wl_present_describe(const struct wr_view *base, struct wr_strbuf *out)
{
    const struct wl_view *v = (const struct wl_view *)base;
    if (v->g == NULL) {
        wr_strbuf_printf(out, "no state yet: the game of scenario '%s' has not been received\n",
                         v->sc->name);
        return;
    }
    const struct wl_game *g = v->g;
    const struct wl_turn_time *t = &g->sc->turns[g->turn - 1];
    wr_strbuf_printf(out, "Turn %d, %s %s, %s: ", g->turn, t->date, t->time,
                     wl_phase_name(g->phase));
    if (json_object_get(v->state, "server"))
        wr_state_waiting_line(v->state, out);
    else if (g->winner >= 0)
        wr_strbuf_printf(out, "over: %s won", wl_side_name(g->winner));
    else if (wl_team_size(g) > 1)
        awaited_commanders(g, out);
    else
        wr_strbuf_printf(out, "awaiting %s (%s)", wl_side_name(g->await_side),
                         wl_await_name(g->await_what));
    if (g->winner >= 0 && g->win_reason[0])
        wr_strbuf_printf(out, " (%s)", g->win_reason);
    wr_strbuf_puts(out, "\n");
    for (int i = 0; i < g->nbattles; i++) {
        const struct wl_battle *b = &g->battles[i];
        static const char *const states[] = { "declared", "retreats", "exchange", "advance",
                                              "done" };
        wr_strbuf_printf(out, "  battle %d: ", i);
        battle_units(out, g, b);
        wr_strbuf_printf(out, " at %d-%d (column %s), %s", b->attack, b->defence,
                         b->column < 0 ? "A-Elim" : wl_crt_label(b->column), states[b->state]);
        if (b->state != WL_B_DECLARED)
            wr_strbuf_printf(out, ": %s", wl_result_code(b->result));
        if (b->die)
            wr_strbuf_printf(out, " (die %d)", b->die);
        wr_strbuf_puts(out, "\n");
    }
    if (wl_team_size(g) > 1)
        team_lines(v, out);
    if (seat_awaited(v) && g->await_what > WL_AW_NONE &&
        g->await_what < (int)(sizeof decisions / sizeof decisions[0])) {
        wr_strbuf_printf(out, "Your decision (%s): ", wl_await_name(g->await_what));
        decisions[g->await_what](v, out);
    }
    turn_record(g, out);
    arrivals(g, out);
    losses(g, out);
}
