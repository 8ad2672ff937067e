/*
 * waterloo_present_order.c - Waterloo's short orders (waterloo_present.h):
 * the orders table, a line turned into the command it stands for, the
 * queries the view answers itself (reach, odds, view, clear), and the
 * completion of an order's words.
 *
 * One table row per order gives its words' bounds, the command type's own
 * name when a player may type that too, what each word is (for
 * completion) and the function that makes the command or the answer.
 */
#include "waterloo_present_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "waterloo_combat.h"
#include "waterloo_suggest.h"

#define LINE_MAX_LEN 4096
#define MAX_WORDS 160
#define MAX_VIEW_RADIUS 30
#define REACH_WIDTH 100         /* reach's answer wraps before this many characters */

/* What the player sees of each order: the help lists them in this order. */
const struct wr_order wl_present_orders[] = {
    { "place", "place UNIT SQUARE",
      "Set-up: move one of your units to a square of your side's set-up zone, at most 15 "
      "combat factors a square (rules: Prepare for Play).",
      "place fr-ii-girard OO-13", 0, NULL },
    { "endsetup", "endsetup",
      "Set-up: your units stand where you want them; the other side sets up next, then the "
      "French move (rules: Prepare for Play). Also end_setup.",
      "endsetup", 0, NULL },
    { "move", "move UNIT[,UNIT...] SQUARE... [off]",
      "Movement: a unit, or a stack moving together at its slowest unit's rate, enters the "
      "squares of the path one by one; it stops on entering an enemy zone, a river or woods, "
      "a primary road adds 4 squares, a reinforcement's path starts on its entry square (or "
      "next to it: the entry is filled in) and French units leave the board with off from "
      "A-39 to A-45 (rules: How to Move Units).",
      "move fr-g-friant TT-14 TT-13", 0, NULL },
    { "end", "end",
      "End your movement phase; your combat phase follows (rules: How to Play). Under rules 2 "
      "it also ends your combat phase, once every declared battle is resolved and every unit "
      "that must fight has fought. During the set-up it ends your set-up. Also end_phase.",
      "end", 0, NULL },
    { "undo", "undo",
      "Movement: take back your last move of this movement phase, unit for unit, with "
      "anything it changed (an HQ it overran comes back, a reinforcement goes back to "
      "arrive); again for the move before. Not once the phase has ended, and not in a game "
      "played without undo (a tournament game). A house convenience, not a rule of 1962.",
      "undo", 0, NULL },
    { "attack", "attack ATTACKER... vs DEFENDER... [; ATTACKER... vs DEFENDER...]",
      "Combat: declare battles, each attacker touching every defender of its battle. Under "
      "rules 2 one battle or several at a time, the next chosen after earlier results; by the "
      "end of the phase every unit of yours in an enemy zone has attacked and every enemy unit "
      "with one of yours in its zone has been attacked. Under rules 1 every battle of the "
      "phase at once (rules: How to Have Combat).",
      "attack fr-iii-lefol fr-iii-domon vs pr-i-3", 0, "odds" },
    { "declare", "declare ATTACKER[,ATTACKER...]:DEFENDER[,DEFENDER...] ...",
      "The same declaration written as pairs, one per battle; declare alone declares no "
      "battle: under rules 2 it ends the combat phase like end, under rules 1 the rules allow "
      "it only when no unit of yours is in an enemy zone.",
      "declare fr-iii-lefol,fr-iii-domon:pr-i-3", 0, "odds" },
    { "resolve", "resolve [BATTLE]",
      "Roll the die for a declared battle (numbered from 0) and apply the Combat Results "
      "Table; without a number, the first battle not yet fought (rules: Combat Results "
      "Table).",
      "resolve 0", 0, NULL },
    { "retreat", "retreat UNIT SQUARE SQUARE",
      "After a Back-2 the winner moves each losing unit two squares away; a retreat into an "
      "enemy zone, off the board, across a river or into woods off a road eliminates it and "
      "is refused while an open route exists (rules: Combat Results Explanation).",
      "retreat pr-i-3 EE-15 DD-15", 0, NULL },
    { "exchange", "exchange UNIT...",
      "After an exchange the side with the larger printed total removes units of its own "
      "from the battle worth at least the other side's printed total (rules: Combat Results "
      "Explanation). Also exchange_losses.",
      "exchange fr-iii-domon", 0, NULL },
    { "advance", "advance UNIT SQUARE",
      "After winning, an attacker on a river square may advance onto a square the defenders "
      "vacated, one on a slope onto a vacated hill top (rules: Movement After Combat).",
      "advance fr-iii-lefol II-13", 0, NULL },
    { "noadvance", "noadvance",
      "Take no (further) advance after the battle just won (rules: Movement After Combat). "
      "Also no_advance.",
      "noadvance", 0, NULL },
    { "defect", "defect UNIT...",
      "French units left the board: remove P-A-A units, on the board or still to arrive, "
      "worth at least twice their combat factors (rules: How to Win).",
      "defect aa-wissel aa-kruse", 0, NULL },
    { "reach", "reach UNIT[,UNIT...]",
      "The squares a unit, or a stack moving together, can end its move on now, by the "
      "movement rules; they are marked * on the board until the game moves on.",
      "reach fr-g-friant", 1, NULL },
    { "odds", "odds ATTACKER... vs DEFENDER...",
      "The odds of an attack: the attack and defence factors (each defender doubled or not "
      "by the terrain), the Combat Results Table column and the result of each die face.",
      "odds fr-iii-lefol vs pr-i-3", 1, NULL },
    { "view", "view [SQUARE [RADIUS]]",
      "Centre the board on a square, RADIUS (1 to 30) squares around it; view alone follows "
      "the action again.",
      "view X-27 4", 1, NULL },
    { "clear", "clear", "Remove the squares reach marked.", "clear", 1, NULL },
    { NULL, NULL, NULL, NULL, 0, NULL },
};

/* A line split into words (at most MAX_WORDS, each NUL-terminated in buf). */
struct words {
    char buf[LINE_MAX_LEN * 3];     /* room for " ; " around every ';' */
    char *w[MAX_WORDS];
    int n;
};

/* What order() made of a line, handed to a row's function. */
struct parse {
    const struct wl_view *v;
    const struct words *ws;
    const struct wr_order *order;
    struct wr_refusal *why;
};

/* Refuse a line as bad_command: what is wrong, then the order's synopsis
 * and example. Returns -1. */
__attribute__((format(printf, 2, 3)))
static int bad(const struct parse *p, const char *fmt, ...)
{
    char what[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    wl_refuse(p->why, WL_R_BAD_COMMAND, "%s; usage: %s (e.g. %s)", what, p->order->synopsis,
              p->order->example);
    return -1;
}

/* --- the pieces of a command -------------------------------------------------- */

/* A square name in capitals, or "off" where allow_off. */
static json_t *square(const char *s, int allow_off)
{
    char up[16];
    size_t n = strlen(s);
    if (allow_off && strcmp(s, "off") == 0)
        return json_string("off");
    if (n == 0 || n >= sizeof up)
        return json_string(s);      /* the rules will name it as not a square */
    for (size_t i = 0; i <= n; i++)
        up[i] = (char)toupper((unsigned char)s[i]);
    return json_string(up);
}

/* Unit ids separated by commas appended to list. */
static void unit_list(json_t *list, const char *s)
{
    const char *p = s;
    while (*p) {
        size_t n = strcspn(p, ",");
        if (n > 0)
            json_array_append_new(list, json_stringn(p, n));
        p += n;
        if (*p == ',')
            p++;
    }
}

/* Words from..to-1 as one list of unit ids (commas or spaces between). */
static json_t *units_of(const struct words *ws, int from, int to)
{
    json_t *a = json_array();
    for (int i = from; i < to; i++)
        unit_list(a, ws->w[i]);
    return a;
}

/* The first battle still declared in the state, or -1. */
static int next_battle(const struct wl_view *v)
{
    for (int i = 0; v->g && i < v->g->nbattles; i++)
        if (v->g->battles[i].state == WL_B_DECLARED)
            return i;
    return -1;
}

/* --- orders for the server ------------------------------------------------------ */

/* place, retreat and advance name one unit: a list is refused here, with
 * the order for its first unit (each of the others follows the same way). */
static int one_unit(const struct parse *p)
{
    const char *w = p->ws->w[1];
    size_t n = strcspn(w, ",");
    if (w[n] == '\0')
        return 0;
    return bad(p, "%s takes one unit at a time: %s %.*s ..., then the next", p->order->name,
               p->order->name, (int)(n < 40 ? n : 40), w);
}

static int o_place(const struct parse *p, json_t **cmd)
{
    if (one_unit(p))
        return -1;
    *cmd = json_pack("{s:s, s:s, s:o}", "type", "place", "unit", p->ws->w[1], "at",
                     square(p->ws->w[2], 0));
    return 0;
}

static int o_end_setup(const struct parse *p, json_t **cmd)
{
    (void)p;
    *cmd = json_pack("{s:s}", "type", "end_setup");
    return 0;
}

/* The entry square a reinforcement's path leaves out: when the units are
 * due and their first square touches the entry the rules make them use
 * now (wl_move_entry_for), that entry; else WL_SQ_NONE (the path is sent
 * as typed, and the rules judge it). */
static wl_sq entry_left_out(const struct wl_view *v, const json_t *units, const char *first)
{
    const struct wl_game *g = v->g;
    const char *id = json_string_value(json_array_get(units, 0));   /* none: "move , J-40" */
    int u = g && id ? wl_scenario_find_unit(v->sc, id) : -1;
    if (u < 0 || g->units[u].where != WL_PENDING || v->sc->units[u].arrive_turn > g->turn)
        return WL_SQ_NONE;
    int e = wl_move_entry_for(g, u);
    wl_sq s;
    if (e < 0 || wl_grid_parse(first, (size_t)-1, &s) != 0)
        return WL_SQ_NONE;
    wl_sq at = g->sc->map.entries[e].at;
    return s != at && wl_grid_distance(at, s) == 1 ? at : WL_SQ_NONE;
}

/* A reinforcement's path may leave out its entry square: it is put back. */
static int o_move(const struct parse *p, json_t **cmd)
{
    const struct words *ws = p->ws;
    json_t *units = units_of(ws, 1, 2), *path = json_array();
    wl_sq entry = entry_left_out(p->v, units, ws->w[2]);
    char name[WL_SQ_NAME_MAX];
    if (entry != WL_SQ_NONE)
        json_array_append_new(path, json_string(wl_grid_name(entry, name)));
    for (int i = 2; i < ws->n; i++)
        json_array_append_new(path, square(ws->w[i], i == ws->n - 1));
    if (json_array_size(units) == 1)
        *cmd = json_pack("{s:s, s:O, s:o}", "type", "move", "unit", json_array_get(units, 0),
                         "path", path);
    else
        *cmd = json_pack("{s:s, s:O, s:o}", "type", "move", "units", units, "path", path);
    json_decref(units);
    return 0;
}

/* end: the movement phase, or the set-up while a set-up is awaited. */
static int o_end(const struct parse *p, json_t **cmd)
{
    int setup = p->v->g && p->v->g->await_what == WL_AW_SETUP;
    *cmd = json_pack("{s:s}", "type", setup ? "end_setup" : "end_phase");
    return 0;
}

/* undo: the last move of this movement phase taken back. */
static int o_undo(const struct parse *p, json_t **cmd)
{
    (void)p;
    *cmd = json_pack("{s:s}", "type", "undo");
    return 0;
}

static json_t *battle(json_t *att, json_t *def)
{
    return json_pack("{s:o, s:o}", "attackers", att, "defenders", def);
}

/* "A B vs C ; D vs E": battles separated by ";" (or "and"). */
static int o_attack(const struct parse *p, json_t **cmd)
{
    const struct words *ws = p->ws;
    json_t *list = json_array(), *att = json_array(), *def = json_array();
    int side = 0;       /* 0 attackers, 1 defenders */
    for (int i = 1; i <= ws->n; i++) {
        const char *w = i < ws->n ? ws->w[i] : ";";
        if (strcmp(w, "vs") == 0) {
            if (side == 1 || json_array_size(att) == 0)
                goto bad;
            side = 1;
        } else if (strcmp(w, ";") == 0 || strcmp(w, "and") == 0) {
            if (i == ws->n && json_array_size(att) == 0 && json_array_size(def) == 0)
                break;          /* the line ended with ";" */
            if (side == 0 || json_array_size(def) == 0)
                goto bad;
            json_array_append_new(list, battle(att, def));
            att = json_array();
            def = json_array();
            side = 0;
        } else {
            unit_list(side ? def : att, w);
        }
    }
    json_decref(att);
    json_decref(def);
    *cmd = json_pack("{s:s, s:o}", "type", "declare", "battles", list);
    return 0;
bad:
    json_decref(att);
    json_decref(def);
    json_decref(list);
    return bad(p, "each battle is attackers, vs, then defenders");
}

/* "A,B:C,D" pairs; none: no battle. */
static int o_declare(const struct parse *p, json_t **cmd)
{
    const struct words *ws = p->ws;
    json_t *list = json_array();
    for (int i = 1; i < ws->n; i++) {
        const char *colon = strchr(ws->w[i], ':');
        if (colon == NULL || colon == ws->w[i] || colon[1] == '\0') {
            json_decref(list);
            return bad(p, "'%.40s' is not ATTACKERS:DEFENDERS", ws->w[i]);
        }
        json_t *att = json_array(), *def = json_array();
        char left[LINE_MAX_LEN];
        snprintf(left, sizeof left, "%.*s", (int)(colon - ws->w[i]), ws->w[i]);
        unit_list(att, left);
        unit_list(def, colon + 1);
        json_array_append_new(list, battle(att, def));
    }
    *cmd = json_pack("{s:s, s:o}", "type", "declare", "battles", list);
    return 0;
}

/* resolve [N]; without N the first battle still declared (none: the
 * command goes without, and the rules say why). */
static int o_resolve(const struct parse *p, json_t **cmd)
{
    long n = next_battle(p->v);
    if (p->ws->n == 2) {
        char *end;
        errno = 0;
        n = strtol(p->ws->w[1], &end, 10);
        if (errno || *end || end == p->ws->w[1] || n < 0 || n >= WL_MAX_BATTLES)
            return bad(p, "'%.20s' is not a battle number (0 to %d)", p->ws->w[1],
                       WL_MAX_BATTLES - 1);
    }
    *cmd = n < 0 ? json_pack("{s:s}", "type", "resolve")
                 : json_pack("{s:s, s:i}", "type", "resolve", "battle", (int)n);
    return 0;
}

static int o_retreat(const struct parse *p, json_t **cmd)
{
    if (one_unit(p))
        return -1;
    *cmd = json_pack("{s:s, s:s, s:[o, o]}", "type", "retreat", "unit", p->ws->w[1], "path",
                     square(p->ws->w[2], 0), square(p->ws->w[3], 1));
    return 0;
}

static int o_exchange(const struct parse *p, json_t **cmd)
{
    *cmd = json_pack("{s:s, s:o}", "type", "exchange_losses", "units",
                     units_of(p->ws, 1, p->ws->n));
    return 0;
}

static int o_advance(const struct parse *p, json_t **cmd)
{
    if (one_unit(p))
        return -1;
    *cmd = json_pack("{s:s, s:s, s:o}", "type", "advance", "unit", p->ws->w[1], "to",
                     square(p->ws->w[2], 0));
    return 0;
}

static int o_no_advance(const struct parse *p, json_t **cmd)
{
    (void)p;
    *cmd = json_pack("{s:s}", "type", "no_advance");
    return 0;
}

static int o_defect(const struct parse *p, json_t **cmd)
{
    *cmd = json_pack("{s:s, s:o}", "type", "defect", "units", units_of(p->ws, 1, p->ws->n));
    return 0;
}

/* --- queries ------------------------------------------------------------------------ */

/* Unit indices from words from..to-1 (ids separated by commas or spaces). */
static int query_units(const struct parse *p, int from, int to, int *out, int max)
{
    int n = 0;
    for (int i = from; i < to; i++) {
        char buf[LINE_MAX_LEN];
        snprintf(buf, sizeof buf, "%s", p->ws->w[i]);
        char *save = NULL;
        for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            int u = wl_scenario_find_unit(p->v->sc, t);
            if (u < 0)
                return wl_refuse_unknown_unit(p->why, p->v->sc, p->v->side, t), -1;
            if (n == max)
                return bad(p, "at most %d units", max);
            out[n++] = u;
        }
    }
    return n > 0 ? n : bad(p, "name at least one unit");
}

static int needs_state(const struct parse *p)
{
    if (p->v->g)
        return 0;
    wl_refuse(p->why, WL_R_BAD_COMMAND, "%s needs the game's position, and none has come "
              "from the server yet", p->order->name);
    return -1;
}

static int q_reach(struct wl_view *v, const struct parse *p, struct wr_strbuf *out)
{
    int idx[WL_MAX_IN_BATTLE];
    int n = needs_state(p) ? -1 : query_units(p, 1, p->ws->n, idx, WL_MAX_IN_BATTLE);
    if (n < 0)
        return -1;
    struct wl_reach *reach = malloc(sizeof *reach);
    if (reach == NULL)
        return wl_refuse(p->why, WL_R_NO_MEMORY, "out of memory"), -1;
    if (wl_move_reach(v->g, idx, n, reach, p->why) != WL_R_OK) {
        free(reach);
        return -1;
    }
    memset(v->marked, 0, sizeof v->marked);
    v->nmarked = 0;
    v->reach_from = v->g->units[idx[0]].where == WL_ON_BOARD ? v->g->units[idx[0]].at
                                                            : WL_SQ_NONE;
    v->centre = WL_SQ_NONE;
    size_t line = out->len;
    for (int i = 1; i < p->ws->n; i++)
        wr_strbuf_printf(out, "%s%s", i > 1 ? " " : "", p->ws->w[i]);
    wr_strbuf_printf(out, " can reach %d square%s%s", reach->n, reach->n == 1 ? "" : "s",
                     reach->n ? ":" : "");
    for (int i = 0; i < reach->n; i++) {
        char name[WL_SQ_NAME_MAX];
        const char *sq = reach->end[i] == WL_PATH_OFF ? "off (leave the board)"
                                                       : wl_grid_name(reach->end[i], name);
        if (out->len - line + strlen(sq) + 1 > REACH_WIDTH) {
            wr_strbuf_puts(out, "\n   ");
            line = out->len - 3;
        }
        wr_strbuf_printf(out, " %s", sq);
        if (reach->end[i] != WL_PATH_OFF) {
            v->marked[reach->end[i]] = 1;
            v->nmarked++;
        }
    }
    wr_strbuf_puts(out, v->nmarked ? " (marked * on the board)\n" : "\n");
    free(reach);
    return 0;
}

static int q_odds(struct wl_view *v, const struct parse *p, struct wr_strbuf *out)
{
    int vs = -1;
    for (int i = 1; i < p->ws->n && vs < 0; i++)
        if (strcmp(p->ws->w[i], "vs") == 0)
            vs = i;
    if (vs < 0)
        return bad(p, "attackers, vs, then defenders");
    if (needs_state(p))
        return -1;
    struct wl_battle b;
    memset(&b, 0, sizeof b);
    int a[WL_MAX_IN_BATTLE], d[WL_MAX_IN_BATTLE];
    int na = query_units(p, 1, vs, a, WL_MAX_IN_BATTLE);
    int nd = na < 0 ? -1 : query_units(p, vs + 1, p->ws->n, d, WL_MAX_IN_BATTLE);
    if (nd < 0)
        return -1;
    for (int k = 0; k < na + nd; k++) {
        int u = k < na ? a[k] : d[k - na];
        if (v->g->units[u].where != WL_ON_BOARD)
            return wl_refuse(p->why, WL_R_UNIT_NOT_ON_BOARD, "%s is not on the board",
                             v->sc->units[u].name), -1;
        if (k < na)
            b.attackers[b.nattackers++] = (int16_t)u;
        else
            b.defenders[b.ndefenders++] = (int16_t)u;
    }
    wl_combat_odds(v->g, &b);
    wr_strbuf_printf(out, "attack %d against defence %d: ", b.attack, b.defence);
    if (b.column < 0) {
        wr_strbuf_puts(out, "worse than 1-6, the attackers are eliminated (A-Elim)");
    } else {
        wr_strbuf_printf(out, "column %s; die 1-6:", wl_crt_label(b.column));
        for (int f = 0; f < WL_CRT_ROWS; f++)
            wr_strbuf_printf(out, " %d=%s", f + 1, wl_result_code(v->sc->crt[f][b.column]));
    }
    wr_strbuf_puts(out, "\n  defenders:");
    for (int k = 0; k < nd; k++) {
        int f = wl_combat_defence_factor(v->g, d[k], b.attackers, b.nattackers);
        wr_strbuf_printf(out, " %s %d%s", v->sc->units[d[k]].id, f,
                         f > v->sc->units[d[k]].combat ? " (doubled by terrain)" : "");
    }
    wr_strbuf_puts(out, "\n");
    return 0;
}

static int q_view(struct wl_view *v, const struct parse *p, struct wr_strbuf *out)
{
    const struct words *ws = p->ws;
    char name[WL_SQ_NAME_MAX];
    if (ws->n == 1) {
        v->centre = WL_SQ_NONE;
        v->radius = -1;
        wr_strbuf_puts(out, "view: following the action\n");
        return 0;
    }
    wl_sq s;
    if (wl_grid_parse(ws->w[1], (size_t)-1, &s) != 0 || !wl_grid_on_board(s))
        return bad(p, "'%.20s' is not a square of the board", ws->w[1]);
    long r = -1;
    if (ws->n == 3) {
        char *end;
        errno = 0;
        r = strtol(ws->w[2], &end, 10);
        if (errno || *end || end == ws->w[2] || r < 1 || r > MAX_VIEW_RADIUS)
            return bad(p, "the radius is 1 to %d squares, not '%.20s'", MAX_VIEW_RADIUS,
                       ws->w[2]);
    }
    v->centre = s;
    v->radius = (int)r;
    wr_strbuf_printf(out, "view: centred on %s", wl_grid_name(s, name));
    if (r > 0)
        wr_strbuf_printf(out, ", %ld squares around", r);
    wr_strbuf_puts(out, "\n");
    return 0;
}

static int q_clear(struct wl_view *v, const struct parse *p, struct wr_strbuf *out)
{
    (void)p;
    wr_strbuf_puts(out, v->nmarked ? "marks cleared\n" : "nothing was marked\n");
    v->nmarked = 0;
    return 0;
}

/* --- the table ----------------------------------------------------------------------- */

/* What each word after the order's name is, for completion: one letter per
 * word, the last repeated for the words after it ("" none, 'u' a unit,
 * 'U' units separated by commas (':' and "vs" too where they divide them),
 * 's' a square, 'o' a square or off, 'b' a battle number, 'n' a number). */
struct row {
    const char *name;           /* as in wl_present_orders */
    const char *alias;          /* the command type's name, also accepted, or NULL */
    int min, max;               /* words after the name; max -1: any number */
    const char *words;
    int (*command)(const struct parse *p, json_t **cmd);        /* NULL for a query */
    int (*query)(struct wl_view *v, const struct parse *p, struct wr_strbuf *out);
};

static const struct row rows[] = {
    { "place", NULL, 2, 2, "us", o_place, NULL },
    { "endsetup", "end_setup", 0, 0, "", o_end_setup, NULL },
    { "move", NULL, 2, -1, "Uo", o_move, NULL },
    { "end", "end_phase", 0, 0, "", o_end, NULL },
    { "undo", NULL, 0, 0, "", o_undo, NULL },
    { "attack", NULL, 3, -1, "U", o_attack, NULL },
    { "declare", NULL, 0, -1, "U", o_declare, NULL },
    { "resolve", NULL, 0, 1, "b", o_resolve, NULL },
    { "retreat", NULL, 3, 3, "uso", o_retreat, NULL },
    { "exchange", "exchange_losses", 1, -1, "U", o_exchange, NULL },
    { "advance", NULL, 2, 2, "us", o_advance, NULL },
    { "noadvance", "no_advance", 0, 0, "", o_no_advance, NULL },
    { "defect", NULL, 1, -1, "U", o_defect, NULL },
    { "reach", NULL, 1, -1, "U", NULL, q_reach },
    { "odds", NULL, 3, -1, "U", NULL, q_odds },
    { "view", NULL, 0, 2, "sn", NULL, q_view },
    { "clear", NULL, 0, 0, "", NULL, q_clear },
};

#define NROWS ((int)(sizeof rows / sizeof rows[0]))

static const struct row *find_row(const char *word)
{
    for (int i = 0; word && i < NROWS; i++)
        if (strcmp(rows[i].name, word) == 0 || (rows[i].alias && strcmp(rows[i].alias, word) == 0))
            return &rows[i];
    return NULL;
}

/* Split line into ws, with ';' a word of its own ("aa-picton;" too).
 * 0, or -1 with why. */
static int split(const char *line, struct words *ws, struct wr_refusal *why)
{
    size_t j = 0;
    if (line == NULL)
        line = "";
    if (strlen(line) >= LINE_MAX_LEN)
        return wl_refuse(why, WL_R_BAD_COMMAND, "an order is at most %d characters",
                         LINE_MAX_LEN - 1), -1;
    for (size_t i = 0; line[i]; i++) {
        if (line[i] == ';') {
            memcpy(ws->buf + j, " ; ", 3);
            j += 3;
        } else {
            ws->buf[j++] = line[i];
        }
    }
    ws->buf[j] = '\0';
    ws->n = 0;
    char *save = NULL;
    for (char *t = strtok_r(ws->buf, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
        if (ws->n == MAX_WORDS)
            return wl_refuse(why, WL_R_BAD_COMMAND, "an order has at most %d words",
                             MAX_WORDS), -1;
        ws->w[ws->n++] = t;
    }
    return 0;
}

/* Refuse an unknown first word, naming the orders. */
static void unknown(const char *word, struct wr_refusal *why)
{
    char names[512];
    size_t n = 0;
    names[0] = '\0';
    for (const struct wr_order *o = wl_present_orders; o->name && n < sizeof names; o++)
        n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", n ? ", " : "", o->name);
    const char *near = NULL;        /* the nearest order, one letter off or two swapped */
    for (const struct wr_order *o = wl_present_orders; word && o->name; o++)
        if (near == NULL && wl_suggest_distance(word, o->name) == 1)
            near = o->name;
    if (word && near)
        wl_refuse(why, WL_R_BAD_COMMAND, "unknown order '%.40s': did you mean %s? (orders: %s)",
                  word, near, names);
    else if (word)
        wl_refuse(why, WL_R_BAD_COMMAND, "unknown order '%.40s' (orders: %s)", word, names);
    else
        wl_refuse(why, WL_R_BAD_COMMAND, "no order given (orders: %s)", names);
}

/* Split and find the order's row, checking the number of words. Returns
 * the row, or NULL with why. */
static const struct row *parse_line(const struct wl_view *v, const char *line, struct words *ws,
                                    struct parse *p, struct wr_refusal *why)
{
    if (split(line, ws, why) != 0)
        return NULL;
    const struct row *r = find_row(ws->n ? ws->w[0] : NULL);
    if (r == NULL) {
        unknown(ws->n ? ws->w[0] : NULL, why);
        return NULL;
    }
    *p = (struct parse){ v, ws, wr_present_order(&wr_present_waterloo, r->name), why };
    int args = ws->n - 1;
    if (r->max == 0 && args > 0) {
        bad(p, "%s takes nothing after it", r->name);
        return NULL;
    }
    if (args < r->min || (r->max >= 0 && args > r->max)) {
        int want = args < r->min ? r->min : r->max;
        bad(p, "%s takes %s %d word%s after it", r->name,
            r->min == r->max ? "exactly" : args < r->min ? "at least" : "at most", want,
            want == 1 ? "" : "s");
        return NULL;
    }
    return r;
}

int wl_present_command(const struct wl_view *v, const char *line, json_t **cmd,
                       struct wr_refusal *why)
{
    struct words *ws = malloc(sizeof *ws);
    struct parse p;
    *cmd = NULL;
    if (ws == NULL)
        return wl_refuse(why, WL_R_NO_MEMORY, "out of memory"), -1;
    const struct row *r = parse_line(v, line, ws, &p, why);
    int rc = -1;
    if (r && r->command == NULL)
        wl_refuse(why, WL_R_BAD_COMMAND, "%s is a question answered here, not an order for "
                  "the game", r->name);
    else if (r)
        rc = r->command(&p, cmd);
    if (rc == 0 && *cmd == NULL) {
        wl_refuse(why, WL_R_NO_MEMORY, "out of memory");
        rc = -1;
    }
    free(ws);
    return rc;
}

enum wr_order_kind wl_present_order(struct wr_view *base, const char *line, json_t **cmd,
                                    struct wr_strbuf *out, struct wr_refusal *why)
{
    struct wl_view *v = (struct wl_view *)base;
    struct words *ws = malloc(sizeof *ws);
    struct parse p;
    *cmd = NULL;
    if (ws == NULL)
        return wl_refuse(why, WL_R_NO_MEMORY, "out of memory"), WR_ORDER_ERROR;
    const struct row *r = parse_line(v, line, ws, &p, why);
    enum wr_order_kind kind = WR_ORDER_ERROR;
    if (r && r->query) {
        if (r->query(v, &p, out) == 0)
            kind = WR_ORDER_ANSWER;
    } else if (r && r->command(&p, cmd) == 0) {
        kind = WR_ORDER_COMMAND;
        if (*cmd == NULL) {
            wl_refuse(why, WL_R_NO_MEMORY, "out of memory");
            kind = WR_ORDER_ERROR;
        }
    }
    free(ws);
    return kind;
}

/* --- completion ----------------------------------------------------------------------- */

struct cands {
    void (*add)(void *ctx, const char *cand);
    void *ctx;
    const char *word;           /* what is typed of the word */
    size_t keep;                /* its first keep bytes stay (units before a ',' or ':') */
};

/* Offer prefix-of-word + text when text starts with the rest of the word
 * (squares ignoring case, as order() writes them in capitals). */
static void offer(const struct cands *c, const char *text, int nocase)
{
    const char *rest = c->word + c->keep;
    size_t n = strlen(rest);
    if (nocase ? strncasecmp(text, rest, n) != 0 : strncmp(text, rest, n) != 0)
        return;
    char cand[LINE_MAX_LEN];
    snprintf(cand, sizeof cand, "%.*s%s", (int)c->keep, c->word, text);
    c->add(c->ctx, cand);
}

/* The square of a word: a square's own, or a unit's on the board. */
static wl_sq square_of(const struct wl_view *v, const char *w)
{
    wl_sq s;
    if (wl_grid_parse(w, (size_t)-1, &s) == 0 && wl_grid_on_board(s))
        return s;
    int u = wl_scenario_find_unit(v->sc, w);
    if (u >= 0 && v->g && v->g->units[u].where == WL_ON_BOARD)
        return v->g->units[u].at;
    return WL_SQ_NONE;
}

static void complete_squares(const struct wl_view *v, const struct cands *c, const char *prev,
                             int off)
{
    char name[WL_SQ_NAME_MAX];
    wl_sq last = prev ? square_of(v, prev) : WL_SQ_NONE;
    if (off)
        offer(c, "off", 0);
    if (c->word[0] == '\0') {
        /* After a unit or a square: the squares next to it (thousands
         * otherwise: only once a letter is typed). */
        for (int d = 0; last != WL_SQ_NONE && d < WL_NDIR; d++) {
            wl_sq n = wl_grid_neighbour(last, d);
            if (n != WL_SQ_NONE && wl_grid_playable(n))
                offer(c, wl_grid_name(n, name), 1);
        }
        return;
    }
    for (int r = 1; r < WL_ROWS; r++)
        for (int col = 1; col < WL_COLS; col++)
            if (wl_grid_in_frame(r, col) && wl_grid_playable(wl_sq_make(r, col)))
                offer(c, wl_grid_name(wl_sq_make(r, col), name), 1);
}

/* Is the seat of v the one awaited now for decision what (a decision a
 * unit list of an order answers)? Completion then offers only what that
 * decision can use; otherwise any unit in the game. */
static int deciding(const struct wl_view *v, int what)
{
    return v->g && v->side >= 0 && v->g->await_side == v->side && v->g->await_what == what;
}

/* May unit u be named in word `kind` of order r now (waterloo_present.h's
 * forms; side 1 of attack, odds and declare are the defenders)? Without
 * a state, any unit; a unit still to arrive only once it is due. */
static int unit_fits(const struct wl_view *v, const struct row *r, int side, int u)
{
    const struct wl_game *g = v->g;
    if (g == NULL)
        return 1;
    int where = g->units[u].where, on = where == WL_ON_BOARD;
    int due = where == WL_PENDING && v->sc->units[u].arrive_turn <= g->turn;
    int mine = v->side >= 0 && wl_present_yours(v, u);
    const struct wl_battle *b = g->current >= 0 ? &g->battles[g->current] : NULL;
    if (strcmp(r->name, "move") == 0 || strcmp(r->name, "reach") == 0) {
        if (deciding(v, WL_AW_MOVE))
            return mine && ((on && !g->units[u].moved) || due);
    } else if (strcmp(r->name, "place") == 0) {
        if (deciding(v, WL_AW_SETUP))
            return mine && on;
    } else if (strcmp(r->name, "retreat") == 0) {
        if (deciding(v, WL_AW_RETREAT))
            return g->units[u].must_retreat;
    } else if (strcmp(r->name, "exchange") == 0 || strcmp(r->name, "advance") == 0) {
        int what = r->name[0] == 'e' ? WL_AW_EXCHANGE : WL_AW_ADVANCE;
        if (deciding(v, what) && b) {
            int in = 0;
            for (int k = 0; k < b->nattackers + b->ndefenders; k++)
                in |= (k < b->nattackers ? b->attackers[k]
                                         : b->defenders[k - b->nattackers]) == u;
            return in && mine && on;
        }
    } else if (strcmp(r->name, "defect") == 0) {
        if (deciding(v, WL_AW_DEFECTION))
            return mine && (on || where == WL_PENDING) && u >= 0 &&
                   v->sc->units[u].nation == WL_NATION_ANGLO_ALLIED;
    } else if (v->side >= 0 && g->sc->units[u].side != v->side && side == 0 &&
               (strcmp(r->name, "attack") == 0 || strcmp(r->name, "declare") == 0)) {
        return 0;           /* attackers are the seat's own */
    } else if (v->side >= 0 && g->sc->units[u].side == v->side && side == 1) {
        return 0;           /* defenders the other side's */
    }
    return on || due;
}

static void complete_units(const struct wl_view *v, const struct row *r, struct cands *c,
                           int list, int side)
{
    if (list) {
        for (const char *p = c->word; *p; p++)
            if (*p == ',' || *p == ':') {
                c->keep = (size_t)(p - c->word) + 1;
                side = side || *p == ':';
            }
    }
    for (int i = 0; i < v->sc->nunits; i++)
        if (unit_fits(v, r, side, i))
            offer(c, v->sc->units[i].id, 0);
}

/* The squares a move of the units named in words[1] may take next, after
 * the squares words[2..nwords-1]: the next square of every legal path
 * (wl_move_reach's, one to each square it can end on) that starts with
 * those squares, and the squares next to the last one it can end on; a
 * reinforcement's entry square or the squares beside it first. 0, or -1
 * when the move cannot be judged here (no movement of the seat's now). */
static int complete_move(const struct wl_view *v, const struct cands *c,
                         const char *const *words, int nwords)
{
    int idx[WL_MAX_IN_BATTLE], n = 0;
    char buf[LINE_MAX_LEN], name[WL_SQ_NAME_MAX];
    if (!deciding(v, WL_AW_MOVE))
        return -1;
    snprintf(buf, sizeof buf, "%s", words[1]);
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t && n < WL_MAX_IN_BATTLE;
         t = strtok_r(NULL, ",", &save))
        if ((idx[n] = wl_scenario_find_unit(v->sc, t)) >= 0)
            n++;
    struct wl_reach *reach = n ? malloc(sizeof *reach) : NULL;
    struct wr_refusal why;
    if (reach == NULL || wl_move_reach(v->g, idx, n, reach, &why) != WL_R_OK) {
        free(reach);
        return -1;
    }
    uint8_t can_end[WL_NSQ] = { 0 }, offered[WL_NSQ] = { 0 };
    int off = 0;
    for (int i = 0; i < reach->n; i++) {
        if (reach->end[i] == WL_PATH_OFF)
            off = 1;
        else
            can_end[reach->end[i]] = 1;
    }
    /* The squares typed, the entry square put first when it was left out. */
    wl_sq typed[WL_PATH_MAX + 1];
    int nt = 0, pending = v->g->units[idx[0]].where == WL_PENDING;
    wl_sq entry = pending && reach->n ? reach->path[0][0] : WL_SQ_NONE;
    for (int i = 2; i < nwords && nt < WL_PATH_MAX; i++) {
        wl_sq s;
        if (wl_grid_parse(words[i], (size_t)-1, &s) != 0)
            break;
        if (nt == 0 && pending && s != entry)
            typed[nt++] = entry;
        typed[nt++] = s;
    }
    if (pending && nt == 0)
        typed[nt++] = entry;        /* the entry itself may be typed, or left out */
    for (int i = 0; i < reach->n; i++) {
        if (reach->path_len[i] <= nt ||
            memcmp(reach->path[i], typed, (size_t)nt * sizeof typed[0]) != 0)
            continue;
        wl_sq next = reach->path[i][nt];
        if (next != WL_PATH_OFF && !offered[next]) {
            offered[next] = 1;
            offer(c, wl_grid_name(next, name), 1);
        }
    }
    if (pending && nwords == 2 && entry != WL_SQ_NONE)
        offer(c, wl_grid_name(entry, name), 1);
    wl_sq last = nt ? typed[nt - 1] : v->g->units[idx[0]].at;
    for (int d = 0; d < WL_NDIR; d++) {
        wl_sq s = wl_grid_neighbour(last, d);
        if (s != WL_SQ_NONE && can_end[s] && !offered[s]) {
            offered[s] = 1;
            offer(c, wl_grid_name(s, name), 1);
        }
    }
    if (off && nwords > 2)
        offer(c, "off", 0);
    free(reach);
    return 0;
}

/* The squares of a retreat of words[1] after words[2..]: those of its
 * open routes (none blocked), or -1 when it has none or cannot be named. */
static int complete_retreat(const struct wl_view *v, const struct cands *c,
                            const char *const *words, int nwords)
{
    int u = v->g ? wl_scenario_find_unit(v->sc, words[1]) : -1;
    wl_sq paths[16][2], first = WL_SQ_NONE;
    char name[WL_SQ_NAME_MAX];
    if (u < 0 || !v->g->units[u].must_retreat)
        return -1;
    int n = wl_combat_open_retreats(v->g, u, paths, 16);
    if (n <= 0)
        return -1;
    if (nwords == 3 && wl_grid_parse(words[2], (size_t)-1, &first) != 0)
        return -1;
    uint8_t offered[WL_NSQ] = { 0 };
    for (int k = 0; k < n && k < 16; k++) {
        wl_sq s = nwords == 2 ? paths[k][0] : paths[k][0] == first ? paths[k][1] : WL_SQ_NONE;
        if (s == WL_PATH_OFF)
            offer(c, "off", 0);
        else if (s != WL_SQ_NONE && !offered[s]) {
            offered[s] = 1;
            offer(c, wl_grid_name(s, name), 1);
        }
    }
    return 0;
}

void wl_present_complete(const struct wr_view *base, const char *const *words, int nwords,
                         const char *word, void (*add)(void *ctx, const char *cand), void *ctx)
{
    const struct wl_view *v = (const struct wl_view *)base;
    const struct row *r = nwords >= 1 && words ? find_row(words[0]) : NULL;
    size_t kinds = r ? strlen(r->words) : 0;
    if (kinds == 0 || (r->max >= 0 && nwords > r->max))
        return;
    struct cands c = { add, ctx, word ? word : "", 0 };
    char kind = r->words[(size_t)nwords - 1 < kinds ? (size_t)nwords - 1 : kinds - 1];
    const char *prev = nwords >= 2 ? words[nwords - 1] : NULL;
    char num[16];
    int side = 0;           /* attack, odds: 1 after "vs" (the defenders) */
    for (int i = 1; i < nwords; i++)
        if (strcmp(words[i], "vs") == 0)
            side = 1;
        else if (strcmp(words[i], ";") == 0 || strcmp(words[i], "and") == 0)
            side = 0;
    switch (kind) {
    case 'u':
        complete_units(v, r, &c, 0, 0);
        break;
    case 'U':
        if (strcmp(r->name, "attack") == 0 || strcmp(r->name, "odds") == 0) {
            if (nwords >= 2 && !side)
                offer(&c, "vs", 0);
            if (strcmp(r->name, "attack") == 0 && nwords >= 4 && side)
                offer(&c, ";", 0);
        }
        complete_units(v, r, &c, 1, side);
        break;
    case 's':
    case 'o':
        if (strcmp(r->name, "move") == 0 && complete_move(v, &c, words, nwords) == 0)
            break;
        if (strcmp(r->name, "retreat") == 0 && complete_retreat(v, &c, words, nwords) == 0)
            break;
        complete_squares(v, &c, prev, kind == 'o');
        break;
    case 'b':
        for (int i = 0; v->g && i < v->g->nbattles; i++)
            if (v->g->battles[i].state == WL_B_DECLARED) {
                snprintf(num, sizeof num, "%d", i);
                offer(&c, num, 0);
            }
        break;
    default:
        break;
    }
}
