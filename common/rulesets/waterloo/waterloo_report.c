/*
 * waterloo_report.c - a whole Waterloo game as one HTML document a club can
 * post (present.h's draw_report): its title (the scenario, the result and
 * the turns played), the losses of each side per turn as a small SVG bar
 * chart, the board at the end (waterloo_draw.h's SVG, the last move
 * marked), the timeline of battles (turn, attackers against defenders,
 * odds and column, die, result, the units lost) and the eliminated units
 * of each side.
 *
 * The document is self-contained: inline CSS and SVG, no script, no link
 * to anything outside it. Everything comes from the view's state (the end
 * of the game) and from the steps' events (docs/rulesets/waterloo.md lists
 * them): "phase" gives the turn, "declared" a battle (its units from the
 * declare command that made it), "roll" its die, "result" its result, and
 * "eliminated" a loss, counted in the turn and battle where it happened.
 *
 * Nothing here does I/O: everything is appended to a wr_strbuf.
 */
#include "waterloo_present_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "waterloo_draw.h"

/* One battle of the game, as the steps tell it. Its units are borrowed
 * from the steps (valid while draw_report runs). */
struct rp_battle {
    int turn;
    int side;                   /* the attacker (enum wl_side), or -1 unknown */
    int num;                    /* its number in its combat phase */
    char odds[16], column[16];
    int die;                    /* 0: not rolled */
    char result[8];             /* "" until resolved */
    int fought;                 /* its place in the order battles were resolved
                                 * (0-based), or -1 while not resolved */
    const json_t *attackers, *defenders;
};

/* One unit eliminated: when, by which battle (-1: none known), where. */
struct rp_loss {
    int unit;                   /* scenario index */
    int turn;
    int battle;                 /* index in the battles, or -1 */
    char from[WL_SQ_NAME_MAX];
};

struct rp_game {
    struct rp_battle *battles;
    int nbattles, capb;
    struct rp_loss *losses;
    int nlosses, capl;
    int factors[WL_MAX_TURNS + 1][WL_NSIDES];  /* combat factors eliminated per turn */
    int units[WL_MAX_TURNS + 1][WL_NSIDES];
    int last_turn;                              /* the highest turn seen */
    int nfought;                                /* battles resolved */
    const json_t *last_move;    /* the events of the last step that moved a unit */
    const char *reason;         /* the game_over event's reason, or NULL */
};

static const char *rp_str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

/* A step is {"seat":SEAT,"cmd":{...},"events":[...]} (present.h). */
static int step_ok(const json_t *step)
{
    return json_is_object(step) && json_is_string(json_object_get(step, "seat")) &&
           json_is_object(json_object_get(step, "cmd")) &&
           json_is_array(json_object_get(step, "events"));
}

/* The battle numbered num most recently declared, or -1. */
static int find_battle(const struct rp_game *r, int num)
{
    for (int i = r->nbattles - 1; i >= 0; i--)
        if (r->battles[i].num == num)
            return i;
    return -1;
}

static int add_battle(struct rp_game *r, const struct rp_battle *b)
{
    if (r->nbattles == r->capb) {
        int cap = r->capb ? 2 * r->capb : 64;
        struct rp_battle *n = realloc(r->battles, (size_t)cap * sizeof *n);
        if (n == NULL)
            return -1;
        r->battles = n;
        r->capb = cap;
    }
    r->battles[r->nbattles++] = *b;
    return 0;
}

static int add_loss(struct rp_game *r, const struct rp_loss *l)
{
    if (r->nlosses == r->capl) {
        int cap = r->capl ? 2 * r->capl : 64;
        struct rp_loss *n = realloc(r->losses, (size_t)cap * sizeof *n);
        if (n == NULL)
            return -1;
        r->losses = n;
        r->capl = cap;
    }
    r->losses[r->nlosses++] = *l;
    return 0;
}

/* Read the steps' events into r. Returns 0, or -1 when memory ran out. */
static int read_steps(struct rp_game *r, const struct wl_scenario *sc, const json_t *steps)
{
    int turn = sc->start_turn > 0 && sc->start_turn <= WL_MAX_TURNS ? sc->start_turn : 1;
    int side = -1, current = -1;
    r->last_turn = turn;
    size_t i, j;
    const json_t *step, *e;
    json_array_foreach(steps, i, step) {
        const json_t *cmd = json_object_get(step, "cmd");
        const json_t *events = json_object_get(step, "events");
        const json_t *declared = strcmp(rp_str(cmd, "type"), "declare") == 0
                                     ? json_object_get(cmd, "battles") : NULL;
        size_t ndeclared = 0;
        json_array_foreach(events, j, e) {
            const char *type = rp_str(e, "type");
            json_int_t num = json_integer_value(json_object_get(e, "battle"));
            if (strcmp(type, "phase") == 0) {
                json_int_t t = json_integer_value(json_object_get(e, "turn"));
                if (t >= 1 && t <= WL_MAX_TURNS)
                    turn = (int)t;
                if (turn > r->last_turn)
                    r->last_turn = turn;
                const char *ph = rp_str(e, "phase");
                side = strcmp(ph, "french_combat") == 0 ? WL_FRENCH
                       : strcmp(ph, "allied_combat") == 0 ? WL_ALLIED : -1;
                current = -1;
            } else if (strcmp(type, "declared") == 0) {
                struct rp_battle b = { .turn = turn, .side = side, .num = (int)num,
                                       .fought = -1 };
                snprintf(b.odds, sizeof b.odds, "%s", rp_str(e, "odds"));
                snprintf(b.column, sizeof b.column, "%s", rp_str(e, "column"));
                const json_t *d = json_array_get(declared, ndeclared++);
                b.attackers = json_object_get(d, "attackers");
                b.defenders = json_object_get(d, "defenders");
                if (add_battle(r, &b) != 0)
                    return -1;
            } else if (strcmp(type, "roll") == 0) {
                int b = find_battle(r, (int)num);
                json_int_t face = json_integer_value(json_object_get(e, "face"));
                if (b >= 0 && face >= 1 && face <= 6)
                    r->battles[b].die = (int)face;
            } else if (strcmp(type, "result") == 0) {
                int b = find_battle(r, (int)num);
                if (b >= 0) {
                    snprintf(r->battles[b].result, sizeof r->battles[b].result, "%s",
                             rp_str(e, "result"));
                    if (r->battles[b].fought < 0)
                        r->battles[b].fought = r->nfought++;
                }
                current = b;
            } else if (strcmp(type, "eliminated") == 0) {
                int u = wl_scenario_find_unit(sc, rp_str(e, "unit"));
                if (u < 0)
                    continue;
                struct rp_loss l = { .unit = u, .turn = turn, .battle = current };
                snprintf(l.from, sizeof l.from, "%s", rp_str(e, "from"));
                if (add_loss(r, &l) != 0)
                    return -1;
                r->factors[turn][sc->units[u].side] += sc->units[u].combat;
                r->units[turn][sc->units[u].side]++;
            } else if (strcmp(type, "game_over") == 0) {
                r->reason = json_string_value(json_object_get(e, "reason"));
            } else if (strcmp(type, "moved") == 0 || strcmp(type, "entered") == 0 ||
                       strcmp(type, "retreated") == 0 || strcmp(type, "advanced") == 0) {
                r->last_move = events;
            }
        }
    }
    return 0;
}

/* The board at the end with the last step's moves marked: each unit
 * moved then, from the square it left. */
static void mark_moves(struct wl_draw_view *dv, const struct wl_scenario *sc, const json_t *events)
{
    size_t i, j;
    const json_t *e, *u;
    json_array_foreach(events, i, e) {
        wl_sq from;
        const char *f = rp_str(e, "from");
        if (wl_grid_parse(f, (size_t)-1, &from) != 0 || !wl_grid_on_board(from))
            continue;
        const json_t *units = json_object_get(e, "units");
        if (!json_is_array(units)) {
            int k = wl_scenario_find_unit(sc, rp_str(e, "unit"));
            if (k >= 0)
                dv->from[k] = from;
            continue;
        }
        json_array_foreach(units, j, u) {
            int k = wl_scenario_find_unit(sc, json_string_value(u) ? json_string_value(u) : "");
            if (k >= 0)
                dv->from[k] = from;
        }
    }
}

/* --- the document --------------------------------------------------------------- */

static const char rp_style[] =
    "<style>\n"
    "body{font-family:'DejaVu Sans',Verdana,Arial,sans-serif;color:#222;margin:0;"
    "background:#f7f5ee}\n"
    ".rp-page{max-width:1400px;margin:0 auto;padding:24px 28px;background:#fff}\n"
    "h1{font-size:26px;margin:0 0 4px}\n"
    "h2{font-size:19px;margin:28px 0 8px;border-bottom:2px solid #ddd6c0;padding-bottom:3px}\n"
    ".rp-sub{font-size:15px;color:#444;margin:2px 0}\n"
    ".rp-result{font-size:17px;font-weight:bold;margin:10px 0 4px}\n"
    ".rp-map svg{width:100%;height:auto;border:1px solid #ccc}\n"
    "table.rp-t{border-collapse:collapse;font-size:13px;width:100%}\n"
    ".rp-t th{background:#ece6d2;text-align:left;padding:4px 6px;position:sticky;top:0}\n"
    ".rp-t td{padding:3px 6px;border-top:1px solid #e6e1d0;vertical-align:top}\n"
    ".rp-t tr.rp-turn td{background:#f4f1e6;font-weight:bold;border-top:2px solid #cfc7ad}\n"
    ".rp-n{text-align:right;white-space:nowrap}\n"
    ".rp-die{text-align:center;font-weight:bold}\n"
    ".rp-fr{color:#2a5db0}.rp-al{color:#b3261e}\n"
    ".rp-res{font-weight:bold;white-space:nowrap}\n"
    ".rp-ra{background:#f8dcd8}.rp-rd{background:#d9e6f5}.rp-rx{background:#ebebe6}\n"
    ".rp-lost{font-size:12px;color:#555}\n"
    ".rp-f{display:inline-block;min-width:16px;padding:0 4px;border-radius:8px;"
    "background:#444;color:#fff;font-size:11px;font-weight:bold;text-align:center}\n"
    ".rp-cols{display:flex;gap:28px;flex-wrap:wrap}\n"
    ".rp-cols>div{flex:1;min-width:300px}\n"
    ".rp-foot{font-size:12px;color:#777;margin-top:28px}\n"
    "</style>\n";

static const char *const side_words[WL_NSIDES] = { "French", "Allied" };
static const char *const side_class[WL_NSIDES] = { "rp-fr", "rp-al" };

/* "Jerome, Foy (11)": the names of the units listed (ids the scenario
 * does not have as they are) and their combat factors. */
static void unit_list(struct wr_strbuf *b, const struct wl_scenario *sc, const json_t *ids)
{
    size_t i;
    const json_t *id;
    int factors = 0, n = 0;
    json_array_foreach(ids, i, id) {
        const char *s = json_string_value(id);
        if (s == NULL)
            continue;
        int u = wl_scenario_find_unit(sc, s);
        wr_strbuf_puts(b, n++ ? ", " : "");
        wr_strbuf_xml(b, u >= 0 ? sc->units[u].name : s);
        if (u >= 0)
            factors += sc->units[u].combat;
    }
    if (n == 0)
        wr_strbuf_puts(b, "?");
    else
        wr_strbuf_printf(b, " <span class=\"rp-f\">%d</span>", factors);
}

static const char *result_css(const char *res)
{
    if (res[0] == 'A')
        return "rp-ra";
    if (res[0] == 'D')
        return "rp-rd";
    return "rp-rx";
}

static void turn_time(struct wr_strbuf *b, const struct wl_scenario *sc, int turn)
{
    if (turn >= 1 && turn <= sc->nturns)
        wr_strbuf_printf(b, "%s %s", sc->turns[turn - 1].date, sc->turns[turn - 1].time);
}

/* The title: the scenario, the result and the turns played. */
static void rp_title(struct wr_strbuf *b, const struct wl_view *v, const struct rp_game *r)
{
    const struct wl_scenario *sc = v->sc;
    const char *winner = json_string_value(json_object_get(v->state, "winner"));
    const char *reason = json_string_value(json_object_get(v->state, "result"));
    json_int_t turn = json_integer_value(json_object_get(v->state, "turn"));
    int first = sc->start_turn > 0 ? sc->start_turn : 1;
    if (reason == NULL)
        reason = r->reason;
    wr_strbuf_puts(b, "<h1>");
    wr_strbuf_xml(b, sc->name);
    wr_strbuf_puts(b, ": a game report</h1>\n<p class=\"rp-result\">");
    if (winner) {
        int side = strcmp(winner, "french") == 0 ? WL_FRENCH : WL_ALLIED;
        wr_strbuf_printf(b, "<span class=\"%s\">%s victory</span>", side_class[side],
                         side == WL_FRENCH ? "French" : "Allied");
        if (reason && reason[0]) {
            wr_strbuf_puts(b, ": ");
            wr_strbuf_xml(b, reason);
        }
    } else {
        wr_strbuf_printf(b, "Unfinished: the record stops in turn %d, the game still running",
                         (int)turn);
    }
    wr_strbuf_printf(b, "</p>\n<p class=\"rp-sub\">%d turn%s played, turn %d (", (int)turn - first + 1,
                     turn - first + 1 == 1 ? "" : "s", first);
    turn_time(b, sc, first);
    wr_strbuf_printf(b, ") to turn %d (", (int)turn);
    turn_time(b, sc, (int)turn);
    wr_strbuf_printf(b, "); %d battle%s fought.</p>\n", r->nbattles, r->nbattles == 1 ? "" : "s");
}

/* Losses per side per turn as a bar chart; data-factors on each bar and
 * each side's total on the chart, for readers and tests alike. */
static void rp_chart(struct wr_strbuf *b, const struct rp_game *r)
{
    int total[WL_NSIDES] = { 0, 0 }, most = 0;
    for (int t = 1; t <= r->last_turn; t++)
        for (int s = 0; s < WL_NSIDES; s++) {
            total[s] += r->factors[t][s];
            if (r->factors[t][s] > most)
                most = r->factors[t][s];
        }
    int top = most <= 10 ? 10 : (most + 9) / 10 * 10;
    const double w = 760, h = 240, left = 40, right = 10, up = 30, down = 34;
    double gw = (w - left - right) / r->last_turn, bw = gw * 0.36;
    wr_strbuf_printf(b, "<svg class=\"rp-chart\" xmlns=\"http://www.w3.org/2000/svg\" "
                        "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
                        "data-french=\"%d\" data-allied=\"%d\" font-size=\"11\" "
                        "font-family=\"DejaVu Sans,Verdana,Arial,sans-serif\">\n"
                        "<title>Combat factors eliminated per turn</title>\n",
                     w, h, w, h, total[WL_FRENCH], total[WL_ALLIED]);
    double y0 = h - down, sy = (h - up - down) / top;
    for (int k = 0; k <= 2; k++) {
        double y = y0 - k * top / 2 * sy;
        wr_strbuf_printf(b, "<path d=\"M%.1f %.1fH%.1f\" stroke=\"%s\"/><text x=\"%.1f\" "
                            "y=\"%.1f\" text-anchor=\"end\" fill=\"#555\">%d</text>\n",
                         left, y, w - right, k ? "#e2dccb" : "#888", left - 5, y + 4,
                         k * top / 2);
    }
    for (int t = 1; t <= r->last_turn; t++) {
        double x = left + (t - 1) * gw + gw / 2;
        for (int s = 0; s < WL_NSIDES; s++) {
            int f = r->factors[t][s];
            double bx = x - bw + s * bw, bh = f * sy;
            wr_strbuf_printf(b, "<rect class=\"rp-bar\" data-side=\"%s\" data-turn=\"%d\" "
                                "data-factors=\"%d\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                                "height=\"%.1f\" fill=\"%s\"><title>turn %d: %s lost %d "
                                "factors (%d units)</title></rect>\n",
                             wl_side_name(s), t, f, bx, y0 - bh, bw, bh,
                             s == WL_FRENCH ? "#2a5db0" : "#c62828", t, side_words[s], f,
                             r->units[t][s]);
        }
        if (r->last_turn <= 30 || t % 2 == 1)
            wr_strbuf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
                                "fill=\"#444\">%d</text>\n", x, y0 + 14, t);
    }
    wr_strbuf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#444\">"
                        "turn</text>\n", left + (w - left - right) / 2, h - 4);
    wr_strbuf_printf(b, "<rect x=\"%.1f\" y=\"8\" width=\"12\" height=\"12\" fill=\"#2a5db0\"/>"
                        "<text x=\"%.1f\" y=\"18\">French: %d factors lost</text>"
                        "<rect x=\"%.1f\" y=\"8\" width=\"12\" height=\"12\" fill=\"#c62828\"/>"
                        "<text x=\"%.1f\" y=\"18\">Allied: %d factors lost</text>\n</svg>\n",
                     left, left + 17, total[WL_FRENCH], left + 220, left + 237, total[WL_ALLIED]);
}

/* A battle's number in the timeline (1-based): the order in which the
 * battles were resolved, those never resolved after them in the order of
 * their declaration. */
static int shown_number(const struct rp_game *r, int i)
{
    if (r->battles[i].fought >= 0)
        return r->battles[i].fought + 1;
    int n = r->nfought;
    for (int k = 0; k <= i; k++)
        n += r->battles[k].fought < 0;
    return n;
}

/* The battles in the order they were fought, a line per turn above its
 * battles. */
static void rp_battles(struct wr_strbuf *b, const struct wl_scenario *sc, const struct rp_game *r)
{
    if (r->nbattles == 0) {
        wr_strbuf_puts(b, "<p>No battle was fought.</p>\n");
        return;
    }
    int *order = malloc((size_t)r->nbattles * sizeof *order);
    if (order == NULL) {
        b->failed = 1;
        return;
    }
    for (int i = 0; i < r->nbattles; i++)
        order[shown_number(r, i) - 1] = i;
    wr_strbuf_puts(b, "<table class=\"rp-t rp-battles\">\n<tr><th>#</th><th>Attacker</th>"
                      "<th>Attacking (factors)</th><th>Defending (factors)</th>"
                      "<th class=\"rp-n\">Factors \xe2\x86\x92 column</th><th>Die</th><th>Result</th>"
                      "<th>Eliminated</th></tr>\n");
    int shown_turn = -1;
    for (int n = 0; n < r->nbattles; n++) {
        int i = order[n];
        const struct rp_battle *bt = &r->battles[i];
        if (bt->turn != shown_turn) {
            shown_turn = bt->turn;
            wr_strbuf_printf(b, "<tr class=\"rp-turn\"><td colspan=\"8\">Turn %d, ", bt->turn);
            turn_time(b, sc, bt->turn);
            wr_strbuf_puts(b, "</td></tr>\n");
        }
        wr_strbuf_printf(b, "<tr class=\"rp-battle\" data-turn=\"%d\"><td class=\"rp-n\">%d"
                            "</td>", bt->turn, n + 1);
        if (bt->side >= 0)
            wr_strbuf_printf(b, "<td class=\"%s\">%s</td>", side_class[bt->side],
                             side_words[bt->side]);
        else
            wr_strbuf_puts(b, "<td>?</td>");
        wr_strbuf_puts(b, "<td>");
        unit_list(b, sc, bt->attackers);
        wr_strbuf_puts(b, "</td><td>");
        unit_list(b, sc, bt->defenders);
        wr_strbuf_puts(b, "</td><td class=\"rp-n\">");
        wr_strbuf_xml(b, bt->odds);
        wr_strbuf_puts(b, " \xe2\x86\x92 <b>");        /* an arrow to the column used */
        wr_strbuf_xml(b, bt->column);
        wr_strbuf_puts(b, "</b>");
        if (bt->die)
            wr_strbuf_printf(b, "</td><td class=\"rp-die\">%d</td>", bt->die);
        else
            wr_strbuf_puts(b, "</td><td class=\"rp-die\">-</td>");
        wr_strbuf_printf(b, "<td class=\"rp-res %s\">", result_css(bt->result));
        wr_strbuf_xml(b, bt->result[0] ? bt->result : "not resolved");
        wr_strbuf_puts(b, "</td><td class=\"rp-lost\">");
        int lost = 0;
        for (int k = 0; k < r->nlosses; k++) {
            const struct rp_loss *l = &r->losses[k];
            if (l->battle != i)
                continue;
            const struct wl_unit_def *u = &sc->units[l->unit];
            wr_strbuf_printf(b, "%s<span class=\"%s\">", lost++ ? ", " : "",
                             side_class[u->side < WL_NSIDES ? u->side : 0]);
            wr_strbuf_xml(b, u->name);
            wr_strbuf_puts(b, "</span>");
        }
        wr_strbuf_puts(b, "</td></tr>\n");
    }
    wr_strbuf_puts(b, "</table>\n");
    free(order);
}

/* Each side's eliminated units (as the state has them at the end), with
 * the turn, battle and square of their loss when the steps tell it. */
static void rp_eliminated(struct wr_strbuf *b, const struct wl_scenario *sc,
                          const struct wl_draw_view *dv, const struct rp_game *r)
{
    wr_strbuf_puts(b, "<div class=\"rp-cols\">\n");
    for (int s = 0; s < WL_NSIDES; s++) {
        int n = 0, factors = 0;
        for (int i = 0; i < sc->nunits; i++)
            if (dv->off[i] == WL_DRAW_ELIMINATED && sc->units[i].side == s) {
                n++;
                factors += sc->units[i].combat;
            }
        wr_strbuf_printf(b, "<div class=\"rp-elim\" data-side=\"%s\" data-factors=\"%d\">"
                            "<h3 class=\"%s\">%s: %d unit%s, %d factor%s</h3>\n",
                         wl_side_name(s), factors, side_class[s], side_words[s], n,
                         n == 1 ? "" : "s", factors, factors == 1 ? "" : "s");
        if (n == 0) {
            wr_strbuf_puts(b, "<p>None.</p></div>\n");
            continue;
        }
        wr_strbuf_puts(b, "<table class=\"rp-t\"><tr><th>Unit</th><th class=\"rp-n\">Strength"
                          "</th><th class=\"rp-n\">Turn</th><th>Where</th></tr>\n");
        for (int i = 0; i < sc->nunits; i++) {
            if (dv->off[i] != WL_DRAW_ELIMINATED || sc->units[i].side != s)
                continue;
            const struct wl_unit_def *u = &sc->units[i];
            const struct rp_loss *l = NULL;
            for (int k = r->nlosses - 1; k >= 0 && l == NULL; k--)
                if (r->losses[k].unit == i)
                    l = &r->losses[k];
            wr_strbuf_puts(b, "<tr><td>");
            wr_strbuf_xml(b, u->name);
            wr_strbuf_printf(b, " <span class=\"rp-lost\">%s</span></td><td class=\"rp-n\">",
                             wl_draw_type_words(u->type));
            if (u->type == WL_HQ)
                wr_strbuf_printf(b, "HQ</td>");
            else
                wr_strbuf_printf(b, "%d-%d</td>", u->combat, u->move);
            if (l) {
                wr_strbuf_printf(b, "<td class=\"rp-n\">%d</td><td>", l->turn);
                wr_strbuf_xml(b, l->from);
                if (l->battle >= 0)
                    wr_strbuf_printf(b, ", battle %d", shown_number(r, l->battle));
                wr_strbuf_puts(b, "</td></tr>\n");
            } else {
                wr_strbuf_puts(b, "<td class=\"rp-n\">?</td><td></td></tr>\n");
            }
        }
        wr_strbuf_puts(b, "</table></div>\n");
    }
    wr_strbuf_puts(b, "</div>\n");
}

int wl_present_draw_report(const struct wr_view *base, const json_t *steps, struct wr_strbuf *out)
{
    const struct wl_view *v = (const struct wl_view *)base;
    size_t i;
    const json_t *step;
    if (!json_is_array(steps))
        return -1;
    json_array_foreach(steps, i, step)
        if (!step_ok(step))
            return -1;
    struct rp_game *r = calloc(1, sizeof *r);
    struct wl_draw_view *dv = malloc(sizeof *dv);
    int rc = -1;
    if (r == NULL || dv == NULL || read_steps(r, v->sc, steps) != 0) {
        out->failed = 1;
        goto done;
    }
    if (v->state == NULL || wl_draw_view_from_state(dv, v->sc, v->state, NULL) != 0)
        wl_draw_view_setup(dv, v->sc, NULL);
    if (r->last_move)
        mark_moves(dv, v->sc, r->last_move);

    wr_strbuf_puts(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                        "<title>");
    wr_strbuf_xml(out, v->sc->name);
    wr_strbuf_puts(out, ": a game report</title>\n");
    wr_strbuf_puts(out, rp_style);
    wr_strbuf_puts(out, "</head>\n<body>\n<div class=\"rp-page\">\n");
    rp_title(out, v, r);
    wr_strbuf_puts(out, "<h2>Losses per turn (combat factors eliminated)</h2>\n");
    rp_chart(out, r);
    wr_strbuf_puts(out, "<h2>The board at the end</h2>\n<div class=\"rp-map\">\n");
    wl_draw_svg(out, v->sc, dv);
    wr_strbuf_puts(out, "</div>\n<h2>Battles</h2>\n");
    rp_battles(out, v->sc, r);
    wr_strbuf_puts(out, "<h2>Eliminated</h2>\n");
    rp_eliminated(out, v->sc, dv, r);
    wr_strbuf_printf(out, "<p class=\"rp-foot\">%d commands. Made by warroom render --report "
                          "from the game's record.</p>\n</div>\n</body>\n</html>\n",
                     (int)json_array_size(steps));
    rc = out->failed ? -1 : 0;
done:
    if (r) {
        free(r->battles);
        free(r->losses);
    }
    free(r);
    free(dv);
    return rc;
}
