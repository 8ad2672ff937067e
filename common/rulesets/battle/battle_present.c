/*
 * battle_present.c - the battle referee's presentation (present.h):
 * wr_present_battle. The short orders a player types, one row each in the
 * table `orders` below, and the command each makes; the view (the last
 * state, the roster draft, the last tests); describe(), the panel; one
 * line per event; completion. The roster view and the battle sheet are
 * battle_present_draw.c.
 *
 * Unit names in orders: as on the roster, case aside, "_" for a space;
 * a name with spaces is quoted ("Light Horse") or typed as it is when the
 * state knows it (the longest run of words that names a unit is taken).
 * A name the state does not know is refused with unknown_unit and the
 * nearest names (did you mean). Before any unit is known (no state, or
 * rosters sealed) names pass as typed: the server judges them.
 *
 * Rosters: each `unit NAME KIND MODELS [key=value...] [skirmish] [general]`
 * line adds a unit to the view's draft (nothing is sent); `roster list`
 * shows it, `roster clear` empties it, `roster done` sends it as one
 * roster command with "last": true. The draft is kept until the state
 * shows the seat's roster in. A whole roster command typed as one JSON
 * line goes to the server as it is (the host's business, present.h).
 *
 * The view does not pre-judge commands (precheck answers 0): the battle's
 * rules work on facts the state shows, but the server's order of checks
 * and its sentences are the server's; a refusal comes back in one round
 * trip with the rules core's sentence.
 */
#include "battle_present.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "battle_game.h"

/* --- the orders ----------------------------------------------------------------------- */

enum {
    O_UNIT, O_ROSTER, O_START, O_FACT, O_DISPUTE, O_SETTLE, O_CAS, O_TEST, O_END, O_ENDTURN,
    O_CHARGE, O_CC, O_FLEE, O_COVER, O_BROKE, O_REFORM, O_GENERAL, O_ELEPHANT, O_LEFT,
    O_OFFER, O_ACCEPT, O_VP, O_SETTLE_VP, O_COUNT
};

static const struct wr_order orders[O_COUNT + 1] = {
    { "unit", "unit NAME KIND MODELS [files=F ranks=R wounds=W move=M points=P crew=C] "
      "[skirmish] [general] [mounted] [spears]",
      "Add a unit to the roster you are writing (kind: infantry, cavalry, chariot, elephant, "
      "character, skirmishers); nothing is sent until 'roster done'.",
      "unit Spears infantry 20 files=5 ranks=4 points=300", 1, NULL },
    { "roster", "roster done|list|clear",
      "Send the units written with 'unit' as your whole roster, sealed until both are in "
      "(done), or show (list) or drop (clear) them.", "roster done", 0, NULL },
    { "start", "start",
      "Start the battle: the server rolls a D6 per side, again on a tie; the higher takes the "
      "first player turn (B21).", "start", 0, NULL },
    { "fact", "fact UNIT FACT VALUE",
      "State a fact about one of your units (terrain clear|hill|ford|difficult|obstacle, or "
      "secure_flanks, rear_support... yes|no); the other side may dispute it.",
      "fact Spears secure_flanks yes", 0, NULL },
    { "dispute", "dispute UNIT FACT",
      "Dispute the other side's last statement of FACT (or of charge, reform...) about UNIT, or "
      "dispute general_killed p1|p2: the referee settles it, or a D6 (4+: it stands) (B22).",
      "dispute Spears secure_flanks", 0, NULL },
    { "settle", "settle yes|no",
      "The referee settles the disputed fact: yes, it stands; no, it goes back to its value "
      "before (B22).", "settle yes", 0, NULL },
    { "cas", "cas UNIT WOUNDS",
      "Report wounds lost by a unit of either side, as the base rules decide (B23).",
      "cas Spears 3", 0, NULL },
    { "test", "test UNIT ld|panic|rally TARGET",
      "Ask for an Ld test of your unit: the server rolls 2D6 (3D6 when edgy), passed at most "
      "TARGET; a failed panic test falls back or flees (B9, B16).", "test Spears panic 7", 0, NULL },
    { "end", "end",
      "End this segment of your player turn (declare_charges, rally, compulsory_move, "
      "shooting, combat); after combat, the turn.", "end", 0, NULL },
    { "endturn", "endturn", "End your player turn now: the break points are checked (B14, B25).",
      "endturn", 0, NULL },
    { "charge", "charge UNIT TARGET front|flank|rear",
      "Declare that your UNIT charges TARGET to its front, flank or rear (declare_charges); "
      "sets the charge the rank bonus sees (B2-B4, B8).", "charge Cavalry Spears flank", 0, NULL },
    { "cc", "cc UNIT",
      "Your cavalry UNIT, charged to its front this segment, counter charges (B1).",
      "cc Cavalry", 0, NULL },
    { "flee", "flee SCREEN UNIT",
      "Your skirmish SCREEN flees out of the way as UNIT, which it screens, declares a charge "
      "(B5).", "flee Slingers Spears", 0, NULL },
    { "cover", "cover SCREEN UNIT yes|no",
      "Ask whether a shot at UNIT through SCREEN (line of sight through it: yes|no) gets soft "
      "cover (B5); changes nothing.", "cover Slingers Spears yes", 0, NULL },
    { "broke", "broke UNIT",
      "UNIT broke in close combat, as the base rules decide: it flees; a formed unit ends "
      "confident a) for its army.", "broke Spears", 0, NULL },
    { "reform", "reform UNIT",
      "Your UNIT, fighting to its flank or rear, reforms at the end of the combat phase (B8).",
      "reform Spears", 0, NULL },
    { "general_killed", "general_killed p1|p2",
      "That army's general died: its units are edgy (c) from the next player turn (B11).",
      "general_killed p2", 0, NULL },
    { "elephant", "elephant UNIT beat|survived",
      "Your UNIT beat an elephant in combat, or survived a round with one unbroken: the army's "
      "familiarity may improve (B13).", "elephant Spears survived", 0, NULL },
    { "left", "left UNIT",
      "A fleeing UNIT left the table: it no longer counts as alive for the break point (B15).",
      "left Spears", 0, NULL },
    { "offer", "offer p1|p2|draw",
      "Offer to end the battle with this result; the other side accepts or plays on.",
      "offer draw", 0, NULL },
    { "accept", "accept", "Accept the other side's offer to end the battle.", "accept", 0, NULL },
    { "vp", "vp P1 P2",
      "Report the victory points the base rules award, p1's then p2's (0..1000000); both "
      "sides' reports must agree.", "vp 1300 1000", 0, NULL },
    { "settle_points", "settle_points P1 P2",
      "The referee settles unequal victory point reports: p1's then p2's.",
      "settle_points 1300 1000", 0, NULL },
    { NULL, NULL, NULL, NULL, 0, NULL },
};

static const char *const side_names[] = { "p1", "p2", NULL };
static const char *const result_names[] = { "p1", "p2", "draw", NULL };
static const char *const yes_names[] = { "yes", "no", NULL };
static const char *const elephant_events[] = { "beat", "survived", NULL };
static const char *const roster_words[] = { "done", "list", "clear", NULL };

static int word_index(const char *const *names, const char *s)
{
    for (int i = 0; s && names[i]; i++)
        if (strcmp(names[i], s) == 0)
            return i;
    return -1;
}

/* --- refusals ---------------------------------------------------------------------------- */

static int refuse(struct wr_refusal *why, int r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int refuse(struct wr_refusal *why, int r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    wr_vrefuse_in(why, &bg_reasons, r, fmt, ap);
    va_end(ap);
    return -1;
}

/* A line that does not make order o: what is wrong, then its synopsis and
 * example. Returns -1. */
static int bad_line(struct wr_refusal *why, int o, const char *what)
{
    return refuse(why, WB_R_BAD_COMMAND, "%s (usage: %s; e.g. %s)", what, orders[o].synopsis,
                  orders[o].example);
}

/* --- words -------------------------------------------------------------------------------- */

#define WORDS_MAX 24
struct words {
    char buf[1024];
    char *w[WORDS_MAX];
    int quoted[WORDS_MAX];
    int n;
};

static int is_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n';
}

/* Cut line into words; "..." (or '...') is one word without its quotes.
 * -1: too long, too many words, or a quote not closed. */
static int split(const char *line, struct words *ws)
{
    memset(ws, 0, sizeof *ws);
    size_t len = strlen(line);
    if (len >= sizeof ws->buf)
        return -1;
    memcpy(ws->buf, line, len + 1);
    char *p = ws->buf;
    for (;;) {
        while (is_space(*p))
            p++;
        if (*p == '\0')
            return 0;
        if (ws->n == WORDS_MAX)
            return -1;
        if (*p == '"' || *p == '\'') {
            char q = *p++;
            char *end = strchr(p, q);
            if (end == NULL)
                return -1;
            *end = '\0';
            ws->quoted[ws->n] = 1;
            ws->w[ws->n++] = p;
            p = end + 1;
            continue;
        }
        ws->w[ws->n++] = p;
        while (*p && !is_space(*p))
            p++;
        if (*p)
            *p++ = '\0';
    }
}

static char fold(char ch)
{
    if (ch == '_')
        return ' ';
    return ch >= 'A' && ch <= 'Z' ? (char)(ch - 'A' + 'a') : ch;
}

static int same_name(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (fold(*a) != fold(*b))
            return 0;
    return *a == *b;
}

/* The edit distance of a and b, case and "_" aside (a letter added,
 * dropped or changed counts one), of their first 31 bytes. */
static int distance(const char *a, const char *b)
{
    int la = (int)strnlen(a, 31), lb = (int)strnlen(b, 31);
    int d[32][32];
    for (int i = 0; i <= la; i++)
        d[i][0] = i;
    for (int j = 0; j <= lb; j++)
        d[0][j] = j;
    for (int i = 1; i <= la; i++)
        for (int j = 1; j <= lb; j++) {
            int c = d[i - 1][j - 1] + (fold(a[i - 1]) != fold(b[j - 1]));
            if (d[i - 1][j] + 1 < c)
                c = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < c)
                c = d[i][j - 1] + 1;
            d[i][j] = c;
        }
    return d[la][lb];
}

/* --- the state ---------------------------------------------------------------------------- */

/* Every unit the state shows, of both sides. n units at most; returns
 * how many. */
static int state_units(const json_t *st, const json_t **units, int n)
{
    int k = 0;
    for (int s = 0; s < 2; s++) {
        const json_t *list = json_object_get(json_object_get(json_object_get(st, "sides"),
                                                             side_names[s]), "units");
        size_t i;
        json_t *u;
        json_array_foreach(list, i, u)
            if (k < n && wr_state_str(u, "name"))
                units[k++] = u;
    }
    return k;
}

/* The side index of seat (0, 1) or -1. */
static int side_of(const char *seat)
{
    return word_index(side_names, seat);
}

/* --- reading names ------------------------------------------------------------------------ */

/* Take a unit name from word *at on: the longest run of words naming a
 * unit the state shows, or one word as typed when the state shows none.
 * The name goes into name (32 bytes). 0, or -1 with why. */
static int take_unit(const struct bp_view *p, const struct words *ws, int *at, int o,
                     const char *role, char *name, struct wr_refusal *why)
{
    if (*at >= ws->n) {
        char what[64];
        snprintf(what, sizeof what, "name the %s", role);
        return bad_line(why, o, what);
    }
    const json_t *units[2 * 32];
    int n = state_units(p->state, units, 64);
    if (n == 0) {
        if (strlen(ws->w[*at]) >= 32)
            return refuse(why, BG_R_UNKNOWN_UNIT, "a unit's name is 1 to 31 bytes");
        snprintf(name, 32, "%s", ws->w[*at]);
        for (char *c = name; *c; c++)
            if (*c == '_' && !ws->quoted[*at])
                *c = ' ';
        (*at)++;
        return 0;
    }
    for (int k = ws->n - *at; k >= 1; k--) {
        char typed[160] = "";
        size_t len = 0;
        for (int i = 0; i < k && len < sizeof typed; i++)
            len += (size_t)snprintf(typed + len, sizeof typed - len, "%s%s", i ? " " : "",
                                    ws->w[*at + i]);
        if (len >= sizeof typed)
            continue;
        for (int u = 0; u < n; u++)
            if (same_name(typed, wr_state_str(units[u], "name"))) {
                snprintf(name, 32, "%s", wr_state_str(units[u], "name"));
                *at += k;
                return 0;
            }
    }
    /* did you mean: the nearest names, at most 2 edits (1 for a short one) */
    const char *typed = ws->w[*at];
    int best = 3;
    for (int u = 0; u < n; u++) {
        int d = distance(typed, wr_state_str(units[u], "name"));
        if (d < best)
            best = d;
    }
    if (best > (strlen(typed) <= 4 ? 1 : 2))
        return refuse(why, BG_R_UNKNOWN_UNIT, "no unit called '%.31s' is on the table "
                      "(quote a name with spaces: \"Light Horse\")", typed);
    char near[128] = "";
    size_t len = 0;
    for (int u = 0, m = 0; u < n && m < 3; u++)
        if (distance(typed, wr_state_str(units[u], "name")) == best && len < sizeof near) {
            len += (size_t)snprintf(near + len, sizeof near - len, "%s\"%s\"", m++ ? " or " : "",
                                    wr_state_str(units[u], "name"));
        }
    return refuse(why, BG_R_UNKNOWN_UNIT, "no unit called '%.31s' is on the table: did you "
                  "mean %s?", typed, near);
}

/* A word of names (case aside), by unique prefix too; -1 when none fits. */
static int take_word(const char *const *names, const char *typed)
{
    int exact = -1, pre = -1, npre = 0;
    size_t n = strlen(typed);
    for (int i = 0; names[i]; i++) {
        if (same_name(typed, names[i]))
            exact = i;
        else if (n > 0 && strlen(names[i]) > n) {
            char head[64];
            snprintf(head, sizeof head, "%.*s", (int)n, names[i]);
            if (same_name(typed, head)) {
                pre = i;
                npre++;
            }
        }
    }
    return exact >= 0 ? exact : npre == 1 ? pre : -1;
}

/* A fact name (or a disputable command's type when commands is set):
 * the name, or NULL with why (unknown_fact, did you mean). */
static const char *take_fact(const char *typed, int commands, struct wr_refusal *why)
{
    int f = take_word(bg_fact_names, typed);
    if (f >= 0)
        return bg_fact_names[f];
    if (commands && (f = word_index(bg_statement_names, typed)) >= 0)
        return bg_statement_names[f];
    const char *near = NULL;
    int best = 3;
    for (int i = 0; bg_fact_names[i]; i++) {
        int d = distance(typed, bg_fact_names[i]);
        if (d < best) {
            best = d;
            near = bg_fact_names[i];
        }
    }
    if (near)
        refuse(why, BG_R_UNKNOWN_FACT, "'%.40s' is not a fact the referee knows: did you mean "
               "%s?", typed, near);
    else
        refuse(why, BG_R_UNKNOWN_FACT, "'%.40s' is not a fact the referee knows: terrain, "
               "enemy_terrain, secure_flanks, rear_support, near_screen, isolated, "
               "flank_threat...", typed);
    return NULL;
}

/* A whole number lo..hi in decimal digits, or -1. */
static long number(const char *s, long lo, long hi)
{
    long v = 0;
    if (s == NULL || *s == '\0')
        return -1;
    for (; *s; s++)
        if (*s < '0' || *s > '9' || (v = v * 10 + (*s - '0')) > hi)
            return -1;
    return v < lo ? -1 : v;
}

static int yes_no(const char *s)
{
    static const char *const yes[] = { "yes", "y", "true", "stands", NULL };
    static const char *const no[] = { "no", "n", "false", NULL };
    return word_index(yes, s) >= 0 ? 1 : word_index(no, s) >= 0 ? 0 : -1;
}

/* --- the roster draft --------------------------------------------------------------------- */

/* `unit NAME... KIND MODELS [key=value...] [skirmish] [general]`: the
 * unit object, or NULL with why. The name is the words before the kind. */
static json_t *draft_unit(const struct words *ws, struct wr_refusal *why)
{
    int k = 1;
    while (k < ws->n && (ws->quoted[k] || word_index(bg_kind_names, ws->w[k]) < 0))
        k++;
    if (k == 1 || k >= ws->n) {
        bad_line(why, O_UNIT, k == 1 ? "name the unit first" :
                 "give its kind: infantry, cavalry, chariot, elephant, character or skirmishers");
        return NULL;
    }
    char name[64] = "";
    size_t len = 0;
    for (int i = 1; i < k && len < sizeof name; i++)
        len += (size_t)snprintf(name + len, sizeof name - len, "%s%s", i > 1 ? " " : "",
                                ws->w[i]);
    if (len == 0 || len >= WB_NAME_MAX) {
        refuse(why, BG_R_BAD_ROSTER, "a unit's name is 1 to %d bytes", WB_NAME_MAX - 1);
        return NULL;
    }
    long models = k + 1 < ws->n ? number(ws->w[k + 1], 1, BG_MODELS_MAX) : -1;
    if (models < 0) {
        bad_line(why, O_UNIT, "give its models, 1 to 1000, after its kind");
        return NULL;
    }
    json_t *u = json_pack("{s:s, s:s, s:i}", "name", name, "kind", ws->w[k], "models",
                          (int)models);
    static const struct { const char *key; long lo, hi; } ints[] = {
        { "files", 1, BG_MODELS_MAX }, { "ranks", 1, BG_MODELS_MAX },
        { "wounds", 1, BG_WOUNDS_MAX }, { "move", 1, 24 }, { "points", 0, BG_POINTS_MAX },
        { "crew", 0, BG_CREW_MAX },
    };
    for (int i = k + 2; u && i < ws->n; i++) {
        const char *w = ws->w[i], *eq = strchr(w, '=');
        static const char *const flags[][2] = {
            { "skirmish", "skirmish" }, { "general", "general" }, { "mounted", "mounted" },
            { "spears", "thrusting_spears" }, { "thrusting_spears", "thrusting_spears" },
        };
        size_t f = 0, nflags = sizeof flags / sizeof flags[0];
        while (eq == NULL && f < nflags && strcmp(w, flags[f][0]) != 0)
            f++;
        if (eq == NULL && f < nflags) {
            json_object_set_new(u, flags[f][1], json_true());
            continue;
        }
        size_t j = 0, nints = sizeof ints / sizeof ints[0];
        while (eq && j < nints && (strlen(ints[j].key) != (size_t)(eq - w) ||
                                   strncmp(ints[j].key, w, (size_t)(eq - w)) != 0))
            j++;
        long v = eq && j < nints ? number(eq + 1, ints[j].lo, ints[j].hi) : -1;
        if (v < 0) {
            char what[160];
            snprintf(what, sizeof what, "'%.40s' is not one of files=, ranks=, wounds= (1..10), "
                     "move= (1..24), points=, crew=, skirmish, general, mounted, spears", w);
            bad_line(why, O_UNIT, what);
            json_decref(u);
            return NULL;
        }
        json_object_set_new(u, ints[j].key, json_integer(v));
    }
    if (u == NULL)
        refuse(why, WB_R_NO_MEMORY, "out of memory");
    return u;
}

static void draft_list(const struct bp_view *p, struct wr_strbuf *out)
{
    size_t i;
    json_t *u;
    long long points = 0;
    wr_strbuf_printf(out, "Your roster draft: %zu unit%s\n", json_array_size(p->draft),
                     json_array_size(p->draft) == 1 ? "" : "s");
    json_array_foreach(p->draft, i, u) {
        points += wr_state_int(u, "points");
        wr_strbuf_printf(out, "  %-20s %-11s %4lld models", wr_state_text(u, "name"),
                         wr_state_text(u, "kind"), wr_state_int(u, "models"));
        if (json_object_get(u, "files"))
            wr_strbuf_printf(out, " %lldx%lld", wr_state_int(u, "files"),
                             json_object_get(u, "ranks") ? wr_state_int(u, "ranks") : 1);
        if (json_is_true(json_object_get(u, "general")))
            wr_strbuf_puts(out, " general");
        wr_strbuf_printf(out, " %lld pts\n", wr_state_int(u, "points"));
    }
    wr_strbuf_printf(out, "%lld points; 'roster done' sends it\n", points);
}

/* --- order -------------------------------------------------------------------------------- */

/* The command of order o from the words of the line: 0 with *cmd, 1 with
 * an answer in out (a query), or -1 with why. */
static int make_command(struct bp_view *p, int o, const struct words *ws, json_t **cmd,
                        struct wr_strbuf *out, struct wr_refusal *why)
{
    int at = 1, nargs = ws->n - 1;
    char unit[32], other[32];
    switch (o) {
    case O_UNIT: {
        json_t *u = draft_unit(ws, why);
        if (u == NULL)
            return -1;
        for (size_t i = 0; i < json_array_size(p->draft); i++)
            if (same_name(wr_state_text(json_array_get(p->draft, i), "name"),
                          wr_state_text(u, "name"))) {
                json_decref(u);
                return refuse(why, BG_R_DUPLICATE_UNIT, "your draft has a unit called '%s' "
                              "already", wr_state_text(json_array_get(p->draft, i), "name"));
            }
        if (json_array_size(p->draft) >= WB_UNITS_MAX) {
            json_decref(u);
            return refuse(why, BG_R_BAD_ROSTER, "a roster is 1 to %d units", WB_UNITS_MAX);
        }
        wr_strbuf_printf(out, "Added %s (%s, %lld models).\n", wr_state_text(u, "name"),
                         wr_state_text(u, "kind"), wr_state_int(u, "models"));
        json_array_append_new(p->draft, u);
        draft_list(p, out);
        return 1;
    }
    case O_ROSTER: {
        int w = nargs == 1 ? word_index(roster_words, ws->w[1]) : -1;
        if (w < 0)
            return bad_line(why, o, "say done, list or clear");
        if (w == 1) {
            draft_list(p, out);
            return 1;
        }
        if (w == 2) {
            json_array_clear(p->draft);
            wr_strbuf_puts(out, "Your roster draft is empty.\n");
            return 1;
        }
        if (json_array_size(p->draft) == 0)
            return refuse(why, BG_R_BAD_ROSTER, "your roster draft is empty: add units with "
                          "'%s'", orders[O_UNIT].example);
        *cmd = json_pack("{s:s, s:O, s:b}", "type", "roster", "units", p->draft, "last", 1);
        return 0;
    }
    case O_START:
    case O_END:
    case O_ENDTURN:
    case O_ACCEPT: {
        static const char *const type[O_COUNT] = { [O_START] = "start", [O_END] = "end_phase",
                                                   [O_ENDTURN] = "end_turn",
                                                   [O_ACCEPT] = "accept_end" };
        if (nargs)
            return bad_line(why, o, "it takes nothing more");
        *cmd = json_pack("{s:s}", "type", type[o]);
        return 0;
    }
    case O_FACT: {
        if (take_unit(p, ws, &at, o, "unit", unit, why) != 0)
            return -1;
        if (ws->n - at != 2)
            return bad_line(why, o, "give the fact and its value");
        const char *f = take_fact(ws->w[at], 0, why);
        if (f == NULL)
            return -1;
        json_t *v;
        if (word_index(bg_fact_names, f) < BG_TERRAIN_FACTS) {
            int t = take_word(bg_terrain_names, ws->w[at + 1]);
            if (t < 0)
                return refuse(why, BG_R_BAD_VALUE, "%s is clear, hill, ford, difficult or "
                              "obstacle", f);
            v = json_string(bg_terrain_names[t]);
        } else {
            int b = yes_no(ws->w[at + 1]);
            if (b < 0)
                return refuse(why, BG_R_BAD_VALUE, "%s is yes or no", f);
            v = json_boolean(b);
        }
        *cmd = json_pack("{s:s, s:s, s:s, s:o}", "type", "fact", "unit", unit, "fact", f,
                         "value", v);
        return 0;
    }
    case O_DISPUTE: {
        /* The general's death names an army, not a unit (B35). */
        if (nargs == 2 && strcmp(ws->w[1], "general_killed") == 0) {
            int s = strcmp(ws->w[2], "p1") == 0 ? 0 : strcmp(ws->w[2], "p2") == 0 ? 1 : -1;
            if (s < 0)
                return bad_line(why, o,
                                "name the army whose general's death is disputed: p1 or p2");
            *cmd = json_pack("{s:s, s:s, s:s}", "type", "dispute", "side", side_names[s], "fact",
                             "general_killed");
            return 0;
        }
        if (take_unit(p, ws, &at, o, "unit", unit, why) != 0)
            return -1;
        if (ws->n - at != 1)
            return bad_line(why, o, "give the fact disputed");
        const char *f = take_fact(ws->w[at], 1, why);
        if (f == NULL)
            return -1;
        *cmd = json_pack("{s:s, s:s, s:s}", "type", "dispute", "unit", unit, "fact", f);
        return 0;
    }
    case O_SETTLE: {
        int b = nargs == 1 ? yes_no(ws->w[1]) : -1;
        if (b < 0)
            return bad_line(why, o, "say yes (the fact stands) or no");
        *cmd = json_pack("{s:s, s:b}", "type", "settle", "stands", b);
        return 0;
    }
    case O_CAS: {
        if (take_unit(p, ws, &at, o, "unit", unit, why) != 0)
            return -1;
        long w = ws->n - at == 1 ? number(ws->w[at], 1, BG_MODELS_MAX * BG_WOUNDS_MAX) : -1;
        if (w < 0)
            return bad_line(why, o, "give the wounds lost, 1 or more");
        *cmd = json_pack("{s:s, s:s, s:i}", "type", "casualties", "unit", unit, "wounds",
                         (int)w);
        return 0;
    }
    case O_TEST: {
        if (take_unit(p, ws, &at, o, "unit", unit, why) != 0)
            return -1;
        int t = ws->n - at == 2 ? take_word(bg_test_names, ws->w[at]) : -1;
        if (t < 0)
            return bad_line(why, o, "give the test (ld, panic or rally) and its target");
        long target = number(ws->w[at + 1], 0, 1000);
        if (target < 1 || target > BG_TARGET_MAX)
            return refuse(why, BG_R_BAD_TARGET, "a target number is 1 to %d, not '%.20s'",
                          BG_TARGET_MAX, ws->w[at + 1]);
        *cmd = json_pack("{s:s, s:s, s:s, s:i}", "type", "test", "unit", unit, "test",
                         bg_test_names[t], "target", (int)target);
        return 0;
    }
    case O_CHARGE: {
        if (take_unit(p, ws, &at, o, "charging unit", unit, why) != 0 ||
            take_unit(p, ws, &at, o, "unit charged", other, why) != 0)
            return -1;
        int f = ws->n - at == 1 ? take_word(bg_facing_names, ws->w[at]) : -1;
        if (f < 0)
            return bad_line(why, o, "give the facing charged: front, flank or rear");
        *cmd = json_pack("{s:s, s:s, s:s, s:s}", "type", "charge", "unit", unit, "target", other,
                         "facing", bg_facing_names[f]);
        return 0;
    }
    case O_CC:
    case O_BROKE:
    case O_REFORM:
    case O_LEFT: {
        static const char *const type[O_COUNT] = { [O_CC] = "counter_charge", [O_BROKE] = "broke",
                                                   [O_REFORM] = "reform", [O_LEFT] = "left_table" };
        if (take_unit(p, ws, &at, o, "unit", unit, why) != 0)
            return -1;
        if (at != ws->n)
            return bad_line(why, o, "name only the unit (quote a name with spaces)");
        *cmd = json_pack("{s:s, s:s}", "type", type[o], "unit", unit);
        return 0;
    }
    case O_FLEE:
    case O_COVER: {
        if (take_unit(p, ws, &at, o, "screen", unit, why) != 0 ||
            take_unit(p, ws, &at, o, "unit screened", other, why) != 0)
            return -1;
        if (o == O_FLEE) {
            if (at != ws->n)
                return bad_line(why, o, "name only the screen and the unit it screens");
            *cmd = json_pack("{s:s, s:s, s:s}", "type", "screen_flees", "screen", unit, "unit",
                             other);
            return 0;
        }
        int b = ws->n - at == 1 ? yes_no(ws->w[at]) : -1;
        if (b < 0)
            return bad_line(why, o, "say whether the line of sight passes through the screen: "
                            "yes or no");
        *cmd = json_pack("{s:s, s:s, s:s, s:b}", "type", "cover", "screen", unit, "unit", other,
                         "los", b);
        return 0;
    }
    case O_GENERAL: {
        int s = nargs == 1 ? word_index(side_names, ws->w[1]) : nargs == 0 ? side_of(p->base.seat)
                                                                          : -1;
        if (s < 0)
            return bad_line(why, o, "name the side whose general died: p1 or p2");
        *cmd = json_pack("{s:s, s:s}", "type", "general_killed", "side", side_names[s]);
        return 0;
    }
    case O_ELEPHANT: {
        if (take_unit(p, ws, &at, o, "unit", unit, why) != 0)
            return -1;
        int e = ws->n - at == 1 ? take_word(elephant_events, ws->w[at]) : -1;
        if (e < 0)
            return bad_line(why, o, "say beat or survived");
        *cmd = json_pack("{s:s, s:s, s:s}", "type", "elephant", "unit", unit, "event",
                         elephant_events[e]);
        return 0;
    }
    case O_OFFER: {
        int r = nargs == 1 ? word_index(result_names, ws->w[1]) : -1;
        if (r < 0)
            return bad_line(why, o, "give the result offered: p1, p2 (the winner) or draw");
        *cmd = json_pack("{s:s, s:s}", "type", "offer_end", "result", result_names[r]);
        return 0;
    }
    case O_VP:
    case O_SETTLE_VP: {
        long a = nargs == 2 ? number(ws->w[1], 0, 1000000) : -1;
        long b = nargs == 2 ? number(ws->w[2], 0, 1000000) : -1;
        if (a < 0 || b < 0)
            return bad_line(why, o, "give p1's and p2's victory points, 0 to 1000000");
        *cmd = json_pack("{s:s, s:i, s:i}", "type", o == O_VP ? "victory_points" : "settle_points",
                         "p1", (int)a, "p2", (int)b);
        return 0;
    }
    }
    return bad_line(why, o, "not an order");
}

static int order_of(const char *word)
{
    static const struct { const char *alias; int o; } aliases[] = {
        { "casualties", O_CAS }, { "end_phase", O_END }, { "end_turn", O_ENDTURN },
        { "counter_charge", O_CC }, { "screen_flees", O_FLEE }, { "left_table", O_LEFT },
        { "victory_points", O_VP }, { "offer_end", O_OFFER }, { "accept_end", O_ACCEPT },
    };
    for (int o = 0; o < O_COUNT; o++)
        if (strcmp(orders[o].name, word) == 0)
            return o;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(aliases[i].alias, word) == 0)
            return aliases[i].o;
    return -1;
}

static enum wr_order_kind bp_order(struct wr_view *v, const char *line, json_t **cmd,
                                   struct wr_strbuf *out, struct wr_refusal *why)
{
    struct bp_view *p = (struct bp_view *)v;
    struct words ws;
    *cmd = NULL;
    if (split(line, &ws) != 0 || ws.n == 0) {
        refuse(why, WB_R_BAD_COMMAND, "%s: type an order (help lists them)",
               ws.n == 0 && strlen(line) < sizeof ws.buf ? "an empty line"
                                                         : "a line too long or a quote not closed");
        return WR_ORDER_ERROR;
    }
    int o = order_of(ws.w[0]);
    if (o < 0) {
        const char *near = NULL;
        int best = 3;
        for (int k = 0; k < O_COUNT; k++) {
            int d = distance(ws.w[0], orders[k].name);
            if (d < best) {
                best = d;
                near = orders[k].name;
            }
        }
        char hint[64] = "";
        if (near && best <= (strlen(ws.w[0]) <= 4 ? 1 : 2))
            snprintf(hint, sizeof hint, ": did you mean %s?", near);
        refuse(why, WB_R_BAD_COMMAND, "'%.40s' is not an order of the battle%s (help lists "
               "them)", ws.w[0], hint);
        return WR_ORDER_ERROR;
    }
    int rc = make_command(p, o, &ws, cmd, out, why);
    if (rc < 0) {
        json_decref(*cmd);
        *cmd = NULL;
        return WR_ORDER_ERROR;
    }
    if (rc == 1)
        return out->failed ? (refuse(why, WB_R_NO_MEMORY, "out of memory"), WR_ORDER_ERROR)
                           : WR_ORDER_ANSWER;
    if (*cmd == NULL) {
        refuse(why, WB_R_NO_MEMORY, "out of memory");
        return WR_ORDER_ERROR;
    }
    return WR_ORDER_COMMAND;
}

static int bp_precheck(struct wr_view *v, const json_t *cmd, struct wr_refusal *why)
{
    (void)v;
    (void)cmd;
    (void)why;
    return 0;       /* the server judges (see the top of this file) */
}

/* --- the view ----------------------------------------------------------------------------- */

static struct wr_view *bp_open(const struct wr_ruleset *rs, const json_t *scenario,
                               const json_t *options, const char *seat,
                               const struct wr_host *host, struct wr_refusal *why)
{
    (void)scenario;     /* the table is the players' */
    (void)host;
    static const uint8_t seed[32];
    /* The options as create() reads them: refused the same way. */
    struct bg_game *g = bg_new(options, "view", seed, NULL, why);
    if (g == NULL)
        return NULL;
    free(g);
    struct bp_view *p = calloc(1, sizeof *p);
    if (p == NULL || (p->draft = json_array()) == NULL ||
        (p->log = calloc(1, sizeof *p->log)) == NULL) {
        if (p)
            json_decref(p->draft);
        free(p);
        refuse(why, WB_R_NO_MEMORY, "out of memory");
        return NULL;
    }
    p->log->last_k = p->log->test_k = -1;
    wr_view_init(&p->base, rs, seat);
    return &p->base;
}

static void bp_close(struct wr_view *v)
{
    struct bp_view *p = (struct bp_view *)v;
    if (p == NULL)
        return;
    json_decref(p->state);
    json_decref(p->draft);
    free(p->log);
    free(p);
}

static int bp_update(struct wr_view *v, const json_t *state, struct wr_refusal *why)
{
    struct bp_view *p = (struct bp_view *)v;
    static const char *const phases[] = { "roster", "start", "play", "victory", "over", NULL };
    const json_t *sides = json_object_get(state, "sides");
    if (!json_is_object(state) || word_index(phases, wr_state_str(state, "phase")) < 0 ||
        !json_is_object(sides) || !json_is_object(json_object_get(sides, "p1")) ||
        !json_is_object(json_object_get(sides, "p2")))
        return refuse(why, WB_R_BAD_SCENARIO, "not a battle state (phase and sides p1, p2)");
    for (int s = 0; s < 2; s++) {
        const json_t *units = json_object_get(json_object_get(sides, side_names[s]), "units");
        if (units && (!json_is_array(units) || json_array_size(units) > WB_UNITS_MAX))
            return refuse(why, WB_R_BAD_SCENARIO, "%s's units are not a roster of at most %d",
                          side_names[s], WB_UNITS_MAX);
    }
    json_t *copy = json_deep_copy(state);
    if (copy == NULL)
        return refuse(why, WB_R_NO_MEMORY, "out of memory");
    json_decref(p->state);
    p->state = copy;
    v->has_state = 1;
    /* The draft is sent: the seat's roster is in. */
    int me = side_of(v->seat);
    if (me >= 0 && json_is_true(json_object_get(json_object_get(sides, side_names[me]), "in")))
        json_array_clear(p->draft);
    return 0;
}

/* --- describe ----------------------------------------------------------------------------- */

/* A unit of side s fit for an example: the first with models left, else
 * the first; NULL when the side shows none. */
static const char *example_unit(const json_t *st, int s)
{
    const json_t *units = json_object_get(json_object_get(json_object_get(st, "sides"),
                                                          side_names[s]), "units");
    size_t i;
    json_t *u;
    json_array_foreach(units, i, u)
        if (wr_state_int(u, "models_left") > 0)
            return wr_state_str(u, "name");
    return wr_state_str(json_array_get(units, 0), "name");
}

/* "Spears" or "\"Light Horse\"": a name as an order takes it. */
static void put_name(struct wr_strbuf *out, const char *name)
{
    wr_strbuf_printf(out, strchr(name, ' ') ? "\"%s\"" : "%s", name);
}

static void may_line(struct wr_strbuf *out, int o, const char *example)
{
    wr_strbuf_printf(out, "  %-15s e.g. %s\n", orders[o].name, example ? example
                                                                       : orders[o].example);
}

/* An example of order o about unit (a name) with the rest of the line. */
static void may_unit(struct wr_strbuf *out, int o, const char *unit, const char *rest)
{
    if (unit == NULL) {
        may_line(out, o, NULL);
        return;
    }
    struct wr_strbuf b;
    wr_strbuf_init(&b);
    wr_strbuf_printf(&b, "%s ", orders[o].name);
    put_name(&b, unit);
    wr_strbuf_puts(&b, rest);
    may_line(out, o, b.s);
    wr_strbuf_release(&b);
}

static void decide(const struct bp_view *p, struct wr_strbuf *out)
{
    const json_t *st = p->state;
    const char *phase = wr_state_text(st, "phase"), *seat = p->base.seat;
    int me = side_of(seat);
    const json_t *dispute = json_object_get(st, "dispute");
    if (seat[0] == '\0') {
        wr_strbuf_puts(out, "You watch: no orders.\n");
        return;
    }
    wr_strbuf_printf(out, "You (%s) may now:\n", seat);
    if (strcmp(phase, "roster") == 0) {
        if (me < 0) {
            wr_strbuf_puts(out, "  wait: the sides write their rosters\n");
            return;
        }
        if (json_is_true(json_object_get(json_object_get(json_object_get(st, "sides"), seat),
                                         "in"))) {
            wr_strbuf_puts(out, "  wait: your roster is in, sealed until both are\n");
            return;
        }
        may_line(out, O_UNIT, NULL);
        may_line(out, O_ROSTER, json_array_size(p->draft) ? "roster done" : "roster list");
        if (json_array_size(p->draft))
            wr_strbuf_printf(out, "  (your draft: %zu unit%s)\n", json_array_size(p->draft),
                             json_array_size(p->draft) == 1 ? "" : "s");
        return;
    }
    if (strcmp(phase, "start") == 0) {
        if (me >= 0)
            may_line(out, O_START, NULL);
        else
            wr_strbuf_puts(out, "  wait: a side starts the battle\n");
        return;
    }
    if (strcmp(phase, "victory") == 0) {
        if (me >= 0)
            may_line(out, O_VP, NULL);
        else if (json_is_true(json_object_get(st, "referee")) && strcmp(seat, "referee") == 0)
            may_line(out, O_SETTLE_VP, NULL);
        return;
    }
    if (strcmp(phase, "over") == 0) {
        wr_strbuf_puts(out, "  nothing: the battle is over\n");
        return;
    }
    /* play */
    if (json_is_object(dispute)) {
        if (strcmp(seat, "referee") == 0)
            may_line(out, O_SETTLE, NULL);
        else
            wr_strbuf_puts(out, "  wait for the referee's settlement (offers still go: offer, "
                                "accept)\n");
        return;
    }
    if (me < 0) {
        wr_strbuf_puts(out, "  wait: the referee settles disputes only\n");
        return;
    }
    const char *mine = example_unit(st, me), *theirs = example_unit(st, !me);
    const char *segment = wr_state_text(st, "segment");
    int active = strcmp(wr_state_text(st, "player"), seat) == 0;
    if (active) {
        wr_strbuf_printf(out, "  it is your player turn, segment %s:\n", segment);
        if (strcmp(segment, "declare_charges") == 0 && mine && theirs) {
            struct wr_strbuf b;
            wr_strbuf_init(&b);
            wr_strbuf_puts(&b, " ");
            put_name(&b, theirs);
            wr_strbuf_puts(&b, " front");
            may_unit(out, O_CHARGE, mine, b.s);
            wr_strbuf_release(&b);
        }
        if (strcmp(segment, "rally") == 0)
            may_unit(out, O_TEST, mine, " rally 7");
        if (strcmp(segment, "combat") == 0) {
            may_unit(out, O_BROKE, theirs, "");
            may_unit(out, O_REFORM, mine, "");
        }
        may_line(out, O_END, NULL);
        may_line(out, O_ENDTURN, NULL);
    } else {
        wr_strbuf_printf(out, "  it is %s's player turn (%s); at any time:\n",
                         wr_state_text(st, "player"), segment);
        if (strcmp(segment, "declare_charges") == 0)
            may_unit(out, O_CC, mine, "");
    }
    may_unit(out, O_FACT, mine, " secure_flanks yes");
    may_unit(out, O_CAS, theirs, " 3");
    may_unit(out, O_TEST, mine, " panic 7");
    may_line(out, O_OFFER, NULL);
    if (json_is_object(json_object_get(st, "offer")) &&
        strcmp(wr_state_text(json_object_get(st, "offer"), "side"), seat) != 0)
        may_line(out, O_ACCEPT, NULL);
}

static void bp_describe(const struct wr_view *v, struct wr_strbuf *out)
{
    const struct bp_view *p = (const struct bp_view *)v;
    const json_t *st = p->state;
    if (st == NULL) {
        wr_strbuf_puts(out, "No state yet: the battle has not been received.\n");
        return;
    }
    const char *phase = wr_state_text(st, "phase");
    wr_strbuf_printf(out, "Battle of %lld points, ", wr_state_int(st, "points"));
    if (strcmp(phase, "roster") == 0)
        wr_strbuf_puts(out, "rosters: the sides write them, sealed until both are in");
    else if (strcmp(phase, "start") == 0)
        wr_strbuf_puts(out, "rosters in: the roll-off for the first player turn is due");
    else if (strcmp(phase, "play") == 0)
        wr_strbuf_printf(out, "turn %lld: %s's player turn, segment %s", wr_state_int(st, "turn"),
                         wr_state_text(st, "player"), wr_state_text(st, "segment"));
    else if (strcmp(phase, "victory") == 0)
        wr_strbuf_printf(out, "ended (%s): victory points are due",
                         wr_state_str(st, "decided") ? wr_state_str(st, "decided") : "?");
    else
        wr_strbuf_printf(out, "over after turn %lld: %s", wr_state_int(st, "turn"),
                         !wr_state_str(st, "winner") ? "?"
                         : strcmp(wr_state_str(st, "winner"), "draw") == 0
                             ? "a draw"
                             : wr_state_str(st, "winner"));
    if (strcmp(phase, "over") == 0 && wr_state_str(st, "winner") &&
        strcmp(wr_state_str(st, "winner"), "draw"))
        wr_strbuf_puts(out, " won");
    wr_strbuf_puts(out, "\n");
    if (json_is_object(json_object_get(st, "server"))) {
        wr_state_waiting_line(st, out);
        wr_strbuf_puts(out, "\n");
    }
    const json_t *d = json_object_get(st, "dispute");
    if (json_is_object(d))
        wr_strbuf_printf(
            out,
            "Disputed: %s disputes %s's %s (%s's unit); %s settles it "
            "(settle yes|no)\n",
            side_of(wr_state_str(d, "side")) == 0 ? "p2" : "p1", wr_state_text(d, "unit"),
            wr_state_text(d, "fact"), wr_state_text(d, "side"),
            json_is_true(json_object_get(st, "referee")) ? "the referee" : "a D6 (4+ stands)");
    const json_t *off = json_object_get(st, "offer");
    if (json_is_object(off))
        wr_strbuf_printf(out, "Offer: %s offers to end the battle, result %s (accept)\n",
                         wr_state_text(off, "side"), wr_state_text(off, "result"));
    decide(p, out);
    for (int s = 0; s < 2; s++) {
        const json_t *sd = json_object_get(json_object_get(st, "sides"), side_names[s]);
        if (wr_state_str(sd, "break_point"))
            wr_strbuf_printf(out, "%s: %s\n", side_names[s], wr_state_text(sd, "break_point"));
        else
            wr_strbuf_printf(out, "%s: roster %s\n", side_names[s],
                             json_is_true(json_object_get(sd, "in")) ? "in, sealed"
                                                                    : "being written, sealed");
    }
    const json_t *vp = json_object_get(st, "victory_points");
    const json_t *reports = json_object_get(st, "vp_reports");
    if (json_is_object(vp))
        wr_strbuf_printf(out, "Victory points agreed: p1 %lld, p2 %lld\n", wr_state_int(vp, "p1"),
                         wr_state_int(vp, "p2"));
    else if (strcmp(phase, "victory") == 0 || json_is_object(reports)) {
        wr_strbuf_puts(out, "Victory points:");
        for (int s = 0; s < 2; s++) {
            const json_t *r = json_object_get(reports, side_names[s]);
            if (json_is_object(r))
                wr_strbuf_printf(out, " %s reports p1 %lld, p2 %lld;", side_names[s],
                                 wr_state_int(r, "p1"), wr_state_int(r, "p2"));
            else
                wr_strbuf_printf(out, " %s not yet;", side_names[s]);
        }
        wr_strbuf_puts(out, " the reports must agree\n");
    }
}

/* Keep the tests seen for the roster view: each once (a test is known by
 * the k of the roll before it, so a patch shown twice is kept once). */
static void keep_test(struct bp_log *log, const json_t *e)
{
    const char *type = wr_state_str(e, "type");
    if (type && strcmp(type, "roll") == 0 && json_is_integer(json_object_get(e, "k"))) {
        log->last_k = wr_state_int(e, "k");
        return;
    }
    if (type == NULL || strcmp(type, "test") != 0 || log->last_k == log->test_k)
        return;
    log->test_k = log->last_k;
    if (log->n == BP_TESTS_MAX) {
        memmove(&log->tests[0], &log->tests[1], sizeof log->tests[0] * (BP_TESTS_MAX - 1));
        log->n--;
    }
    struct bp_test *t = &log->tests[log->n++];
    memset(t, 0, sizeof *t);
    snprintf(t->unit, sizeof t->unit, "%s", wr_state_text(e, "unit"));
    snprintf(t->test, sizeof t->test, "%s", wr_state_text(e, "test"));
    snprintf(t->outcome, sizeof t->outcome, "%s", wr_state_text(e, "outcome"));
    t->target = (int)wr_state_int(e, "target");
    t->passed = json_is_true(json_object_get(e, "passed"));
    const json_t *faces = json_object_get(e, "faces");
    for (size_t i = 0; i < json_array_size(faces) && i < 3; i++)
        t->faces[t->nfaces++] = (int)json_integer_value(json_array_get(faces, i));
}

static void bp_event(const struct wr_view *v, const json_t *event, struct wr_strbuf *out)
{
    const struct bp_view *p = (const struct bp_view *)v;
    keep_test(p->log, event);
    bp_event_line(event, out);
}

/* --- completion --------------------------------------------------------------------------- */

static void complete_from(const char *const *names, const char *word,
                          void (*add)(void *ctx, const char *cand), void *ctx)
{
    size_t n = strlen(word);
    for (int i = 0; names[i]; i++)
        if (strncmp(names[i], word, n) == 0)
            add(ctx, names[i]);
}

/* The units the state shows (of side s, -1: both) whose "_" form starts
 * with word. */
static void complete_units(const json_t *st, int s, const char *word,
                           void (*add)(void *ctx, const char *cand), void *ctx)
{
    const json_t *units[64];
    int n = state_units(st, units, 64);
    for (int i = 0; i < n; i++) {
        char cand[WB_NAME_MAX];
        snprintf(cand, sizeof cand, "%s", wr_state_str(units[i], "name"));
        for (char *c = cand; *c; c++)
            if (*c == ' ')
                *c = '_';
        int side = 0;
        const json_t *p2 = json_object_get(json_object_get(json_object_get(st, "sides"), "p2"),
                                           "units");
        for (size_t k = 0; k < json_array_size(p2); k++)
            side |= json_array_get(p2, k) == units[i];
        if ((s < 0 || side == s) && strlen(word) <= strlen(cand)) {
            char head[WB_NAME_MAX];
            snprintf(head, sizeof head, "%.*s", (int)strlen(word), cand);
            if (same_name(word, head))
                add(ctx, cand);
        }
    }
}

static void bp_complete(const struct wr_view *v, const char *const *words, int nwords,
                        const char *word, void (*add)(void *ctx, const char *cand), void *ctx)
{
    const struct bp_view *p = (const struct bp_view *)v;
    int o = order_of(words[0]), me = side_of(v->seat), arg = nwords - 1;
    switch (o) {
    case O_UNIT:
        if (arg >= 1)
            complete_from(bg_kind_names, word, add, ctx);
        return;
    case O_ROSTER:
        if (arg == 0)
            complete_from(roster_words, word, add, ctx);
        return;
    case O_FACT:
    case O_TEST:
    case O_REFORM:
    case O_ELEPHANT:
    case O_CC:
        if (arg == 0)
            complete_units(p->state, me, word, add, ctx);
        else if (arg == 1)
            complete_from(o == O_FACT ? bg_fact_names : o == O_TEST ? bg_test_names
                          : o == O_ELEPHANT ? elephant_events : (const char *const[]){ NULL },
                          word, add, ctx);
        else if (arg == 2 && o == O_FACT)
            complete_from(word_index(bg_fact_names, words[2]) < BG_TERRAIN_FACTS &&
                          word_index(bg_fact_names, words[2]) >= 0 ? bg_terrain_names : yes_names,
                          word, add, ctx);
        return;
    case O_DISPUTE:
        if (arg == 0)
            complete_units(p->state, me < 0 ? -1 : !me, word, add, ctx);
        else if (arg == 1) {
            complete_from(bg_fact_names, word, add, ctx);
            complete_from(bg_statement_names, word, add, ctx);
        }
        return;
    case O_CAS:
    case O_BROKE:
    case O_LEFT:
        if (arg == 0)
            complete_units(p->state, -1, word, add, ctx);
        return;
    case O_CHARGE:
        if (arg <= 1)
            complete_units(p->state, me < 0 ? -1 : arg == 0 ? me : !me, word, add, ctx);
        else if (arg == 2)
            complete_from(bg_facing_names, word, add, ctx);
        return;
    case O_FLEE:
    case O_COVER:
        if (arg <= 1)
            complete_units(p->state, -1, word, add, ctx);
        else if (arg == 2 && o == O_COVER)
            complete_from(yes_names, word, add, ctx);
        return;
    case O_SETTLE:
        if (arg == 0)
            complete_from(yes_names, word, add, ctx);
        return;
    case O_GENERAL:
        if (arg == 0)
            complete_from(side_names, word, add, ctx);
        return;
    case O_OFFER:
        if (arg == 0)
            complete_from(result_names, word, add, ctx);
        return;
    }
}

/* --- drawing ------------------------------------------------------------------------------ */

static int bp_draw_text_view(const struct wr_view *v, const struct wr_draw_opts *o,
                             struct wr_strbuf *out)
{
    return bp_draw_text((const struct bp_view *)v, o, out);
}

static int bp_draw_svg_view(const struct wr_view *v, struct wr_strbuf *out)
{
    return bp_draw_svg((const struct bp_view *)v, out);
}

static int bp_draw_report_view(const struct wr_view *v, const json_t *steps, struct wr_strbuf *out)
{
    return bp_draw_report((const struct bp_view *)v, steps, out);
}

const struct wr_present wr_present_battle = {
    .version = WR_PRESENT_VERSION,
    .orders = orders,
    .open = bp_open,
    .close = bp_close,
    .update = bp_update,
    .describe = bp_describe,
    .event = bp_event,
    .order = bp_order,
    .precheck = bp_precheck,
    .complete = bp_complete,
    .draw_text = bp_draw_text_view,
    .draw_svg = bp_draw_svg_view,
    .draw_report = bp_draw_report_view,
};
