/*
 * campaign_present.c - the campaign's presentation (present.h):
 * wr_present_campaign. The short orders a player types and the command
 * each makes, the description of where the campaign stands and of the
 * decision awaited from the view's seat, one line per event, completion,
 * and the pre-check that runs the server's own rules (wr_campaign_apply)
 * on a campaign rebuilt from the projected state. The map is drawn by
 * campaign_draw.c.
 *
 * Towns in orders: the rest of the line after the order's word names the
 * town, so names with spaces are typed as they are ("attack Carthago
 * Nova"); case does not matter, "_" stands for a space ("Carthago_Nova"),
 * and surrounding quotes are dropped. Completion offers the "_" form, one
 * word per town.
 *
 * Sealing a tactic (C9): the view never makes up a salt (it is pure and
 * deterministic). "commit TACTIC SALT" sends only the commitment, the
 * SHA-256 of TACTIC followed by SALT, computed here; "tactic TACTIC SALT"
 * later sends the choice with the same salt, which the server checks. A
 * host that wants sealed choices without asking its player picks the salt
 * and types both lines. "tactic TACTIC" alone sends the choice unsealed:
 * the server still keeps it from the other seats until both are in.
 */
#include "campaign_internal.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "present.h"
#include "strbuf.h"

struct cp_view {
    struct wr_view base;
    struct wr_campaign_map map;         /* the scenario's, loaded by open() */
    json_t *options;                    /* a copy of open()'s options, or NULL */
    json_t *state;                      /* a copy of the last state taken, or NULL */
};

static const struct cp_view *cview(const struct wr_view *v)
{
    return (const struct cp_view *)v;
}

/* --- small helpers ---------------------------------------------------------------- */

static char fold(char ch)
{
    if (ch == '_')
        return ' ';
    return ch >= 'A' && ch <= 'Z' ? (char)(ch - 'A' + 'a') : ch;
}

/* Does typed[0..n) start name, case and "_" for " " aside? */
static int name_starts(const char *typed, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (name[i] == '\0' || fold(typed[i]) != fold(name[i]))
            return 0;
    return 1;
}

/* The town typed (the rest of a line, quotes dropped), or -1. */
static int find_town(const struct wr_campaign_map *m, const char *typed)
{
    size_t n = strlen(typed);
    if (n >= 2 && (typed[0] == '"' || typed[0] == '\'') && typed[n - 1] == typed[0]) {
        typed++;
        n -= 2;
    }
    for (int t = 0; t < m->ntowns; t++)
        if (strlen(m->towns[t].name) == n && name_starts(typed, n, m->towns[t].name))
            return t;
    return -1;
}

/* The index of name in names[0..n), "-" and " " read as "_", case aside; -1. */
static int find_word(const char *const *names, int from, int n, const char *typed)
{
    for (int i = from; typed && i < n; i++) {
        const char *a = typed, *b = names[i];
        while (*a && *b) {
            char x = *a == '-' || *a == ' ' ? '_' : *a >= 'A' && *a <= 'Z' ? (char)(*a + 32) : *a;
            if (x != *b)
                break;
            a++, b++;
        }
        if (*a == '\0' && *b == '\0')
            return i;
    }
    return -1;
}

static void list_towns(struct wr_strbuf *out, const struct wr_campaign_map *m, uint64_t set)
{
    int n = 0;
    for (int t = 0; t < m->ntowns; t++)
        if (set >> t & 1u)
            wr_strbuf_printf(out, "%s%s", n++ ? ", " : "", m->towns[t].name);
    if (n == 0)
        wr_strbuf_puts(out, "(none)");
}

static int first_town(uint64_t set)
{
    for (int t = 0; t < 64; t++)
        if (set >> t & 1u)
            return t;
    return -1;
}

static int count_towns(uint64_t set)
{
    int n = 0;
    for (; set; set &= set - 1)
        n++;
    return n;
}

/* --- the position: a campaign rebuilt from the projected state ------------------- */

static int phase_of(const char *name)
{
    for (int i = WR_CP_START; name && i <= WR_CP_OVER; i++)
        if (strcmp(cp_phase_names[i], name) == 0)
            return i;
    return -1;
}

/* One side's tactic of the current round as the state shows it to this
 * seat: its own in full, the other's as "submitted" only; then whether the
 * other's choice is in is read from who the state still awaits. */
static void read_tactic(struct wr_campaign_side_tactic *t, const json_t *o, const char *seat,
                        const json_t *awaiting)
{
    const char *choice = wr_state_str(o, "choice"), *commitment = wr_state_str(o, "commitment");
    const char *salt = wr_state_str(o, "salt");
    if (choice || commitment) {
        t->chosen = choice != NULL && wr_campaign_tactic_parse(choice) >= 0;
        t->choice = t->chosen ? wr_campaign_tactic_parse(choice) : 0;
        t->committed = commitment != NULL && strlen(commitment) == 64;
        if (t->committed)
            memcpy(t->commitment, commitment, 65);
        t->has_salt = salt != NULL;
        snprintf(t->salt, sizeof t->salt, "%s", salt ? salt : "");
        return;
    }
    if (json_is_true(json_object_get(o, "submitted"))) {
        const char *what = wr_state_str(awaiting, seat);
        t->chosen = what == NULL || strcmp(what, "tactic") != 0;
        t->committed = !t->chosen;
    }
}

static void read_attack(struct wr_campaign *c, const json_t *a)
{
    struct wr_campaign_attack *at = &c->at;
    const char *side_seat[2] = { wr_state_str(a, "attacker"), wr_state_str(a, "defender") };
    at->attacker = wr_campaign_player(c, side_seat[0]);
    at->defender = wr_campaign_player(c, side_seat[1]);
    at->target =
        wr_campaign_map_find(&c->map, wr_state_str(a, "target") ? wr_state_str(a, "target") : "");
    at->counter =
        wr_state_str(a, "counter") ? wr_campaign_map_find(&c->map, wr_state_str(a, "counter")) : -1;
    at->contest_winner = -1;
    for (int s = 0; s < 2; s++) {
        if (side_seat[s] == NULL)
            continue;
        const json_t *faces = json_object_get(json_object_get(a, "dice"), side_seat[s]);
        size_t i;
        json_t *f;
        json_array_foreach(faces, i, f) {
            if (i >= WR_CAMPAIGN_TOWNS_MAX)
                break;
            at->faces[s][i] = (uint8_t)json_integer_value(f);
            at->ndice[s] = (int)i + 1;
        }
        at->sixes[s] = (int)wr_state_int(json_object_get(a, "sixes"), side_seat[s]);
        const char *cw = wr_state_str(a, "contest_winner");
        if (cw && strcmp(cw, side_seat[s]) == 0)
            at->contest_winner = s;
        const json_t *amb = json_object_get(json_object_get(a, "ambush"), side_seat[s]);
        if (json_is_object(amb)) {
            at->note[s].needed = 1;
            at->note[s].sealed = json_is_true(json_object_get(amb, "sealed"));
            at->note[s].revealed = json_is_true(json_object_get(amb, "revealed"));
            snprintf(at->note[s].text, sizeof at->note[s].text, "%s",
                     wr_state_str(amb, "note") ? wr_state_str(amb, "note") : "");
        }
        const json_t *rep = json_object_get(json_object_get(a, "reports"), side_seat[s]);
        if (json_is_object(rep)) {
            at->reported[s] = 1;
            at->report[s][0] = (int)wr_state_int(rep, "attacker");
            at->report[s][1] = (int)wr_state_int(rep, "defender");
        }
    }
    size_t i;
    json_t *o;
    json_array_foreach(json_object_get(a, "strategies"), i, o) {
        if (at->nstrategies >= WR_CAMPAIGN_STRATEGIES_MAX)
            break;
        struct wr_campaign_strategy_won *s = &at->strategies[at->nstrategies++];
        const char *seat = wr_state_str(o, "seat"), *from = wr_state_str(o, "from");
        s->side = seat && side_seat[1] && strcmp(seat, side_seat[1]) == 0;
        s->roll = (int)wr_state_int(o, "roll");
        s->strategy = wr_campaign_strategy_parse(wr_state_str(o, "strategy"));
        s->strategy = s->strategy < 0 ? WR_CS_NONE : s->strategy;
        s->pending = json_is_true(json_object_get(o, "pending"));
        s->reinforcement = from && strcmp(from, "reinforcement") == 0;
    }
    json_array_foreach(json_object_get(a, "rounds"), i, o) {
        if (at->nrounds > WR_CAMPAIGN_ROUNDS_MAX)
            break;
        struct wr_campaign_round *r = &at->rounds[at->nrounds++];
        for (int s = 0; s < 2; s++) {
            const json_t *t = json_object_get(o, s ? "defender" : "attacker");
            int ch = wr_campaign_tactic_parse(wr_state_str(t, "choice"));
            r->side[s].chosen = 1;
            r->side[s].choice = ch < 0 ? 0 : ch;
        }
        r->result = r->side[0].choice * WR_CT_COUNT + r->side[1].choice;
    }
    at->battle = json_is_object(json_object_get(a, "battle"));
    if (at->battle && at->nrounds > 0)
        at->battle_cell = at->rounds[at->nrounds - 1].result;
    at->disputed = json_is_true(json_object_get(a, "disputed"));
}

/* The campaign in the position of the view's state, to run the server's
 * rules on; NULL when there is no state or it does not make one. Dice come
 * from a fixed seed: acceptance never depends on a roll. Caller frees with
 * wr_campaign_free(). */
static struct wr_campaign *position(const struct cp_view *p)
{
    static const uint8_t seed[32];
    const json_t *st = p->state;
    if (st == NULL)
        return NULL;
    json_t *o = json_object();
    json_object_set_new(o, "players",
                        json_integer((json_int_t)json_array_size(json_object_get(st, "players"))));
    if (json_array_size(json_object_get(st, "alliances")))
        json_object_set(o, "alliances", json_object_get(st, "alliances"));
    json_object_set_new(o, "referee", json_boolean(wr_state_str(st, "referee") != NULL));
    if (json_is_integer(json_object_get(st, "max_rounds")))
        json_object_set(o, "max_rounds", json_object_get(st, "max_rounds"));
    if (json_is_integer(json_object_get(st, "max_turns")))
        json_object_set(o, "max_turns", json_object_get(st, "max_turns"));
    struct wr_refusal why;
    struct wr_campaign *c = wr_campaign_new(&p->map, o, "precheck", seed, NULL, &why);
    json_decref(o);
    int phase = phase_of(wr_state_str(st, "phase"));
    if (c == NULL || phase < 0) {
        wr_campaign_free(c);
        return NULL;
    }
    c->phase = (enum wr_campaign_phase)phase;
    c->turn = (int)wr_state_int(st, "turn");
    c->first = wr_campaign_player(c, wr_state_str(st, "first"));
    c->active = wr_campaign_player(c, wr_state_str(st, "active"));
    c->rolls = (uint32_t)wr_state_int(json_object_get(st, "dice"), "rolls");
    for (int t = 0; t < p->map.ntowns; t++) {
        int ow = cp_state_owner(st, &p->map, t);
        c->owner[t] = ow < c->nplayers ? ow : -1;
    }
    const json_t *a = json_object_get(st, "attack");
    if (json_is_object(a)) {
        read_attack(c, a);
        const json_t *seats = json_object_get(json_object_get(st, "awaiting"), "seats");
        for (int s = 0; s < 2; s++) {
            const char *seat = cp_pname(cp_side_player(c, s));
            read_tactic(&c->at.tactic[s], json_object_get(json_object_get(a, "tactics"), seat),
                        seat, seats);
        }
    }
    if (c->phase == WR_CP_OVER) {
        snprintf(c->winner, sizeof c->winner, "%s",
                 wr_state_str(st, "winner") ? wr_state_str(st, "winner") : "?");
        c->end = "conquest";
    }
    /* A state the server sent keeps the invariants; one that does not
     * cannot be judged (and the rules must not run on it). */
    if (wr_campaign_check(c, &why) != 0) {
        wr_campaign_free(c);
        return NULL;
    }
    return c;
}

/* The towns the view's seat may name now for what ("choose_town",
 * "attack", "counter"), by the server's own checks. */
static uint64_t legal_towns(const struct wr_campaign *c, const char *seat, const char *what)
{
    uint64_t set = 0;
    int p = c ? wr_campaign_player(c, seat) : -1;
    for (int t = 0; c && p >= 0 && what && t < c->map.ntowns; t++) {
        enum wr_campaign_reason r = WR_CR_BAD_COMMAND;
        if (strcmp(what, "choose_town") == 0)
            r = wr_campaign_check_draft(c, p, t, NULL);
        else if (strcmp(what, "attack") == 0)
            r = wr_campaign_check_attack(c, p, t, NULL);
        else if (strcmp(what, "counter") == 0 && c->at.attacker >= 0 && c->at.target >= 0)
            r = wr_campaign_check_counter(c, c->at.attacker, c->at.target, t, NULL);
        if (r == WR_CR_OK)
            set |= (uint64_t)1 << t;
    }
    return set;
}

/* The tactics side may choose now: all but its last after no battle (C8). */
static unsigned allowed_tactics(const struct wr_campaign *c, int side)
{
    unsigned set = (1u << WR_CT_COUNT) - 1;
    if (side >= 0 && c->at.nrounds > 0)
        set &= ~(1u << c->at.rounds[c->at.nrounds - 1].side[side].choice);
    return set;
}

/* --- the orders ---------------------------------------------------------------------- */

/* The orders, in help's order; the table of what each makes is below, row
 * for row. */
enum { O_START, O_CHOOSE, O_ATTACK, O_COUNTER, O_STRATEGY, O_COMMIT, O_TACTIC, O_AMBUSH,
       O_REVEAL, O_REPORT, O_SETTLE, O_COUNT };

static const struct wr_order orders[O_COUNT + 1] = {
    { "start", "start",
      "p1 starts the campaign: the server rolls a die for each player and the highest chooses "
      "the first town (C1).", "start", 0, NULL },
    { "choose", "choose TOWN",
      "Take a free town in the draft; while a free town is adjacent to one of yours, it must be "
      "one of those (C2).", "choose Roma", 0, NULL },
    { "attack", "attack TOWN",
      "Attack any town of a neighbour: a player, not your ally, who holds a town adjacent to "
      "one of yours (C4).", "attack Carthago Nova", 0, NULL },
    { "counter", "counter TOWN",
      "As the defender, put one of the attacker's towns at stake: one adjacent to the target "
      "if the attacker has one, else any (C4).", "counter Roma", 0, NULL },
    { "strategy", "strategy NAME",
      "After a Brilliant Generalship choose the strategy to use: flank_march, hidden_ambush, "
      "scouts, rapid_deployment or good_planning (C13).", "strategy scouts", 0, NULL },
    { "commit", "commit TACTIC SALT",
      "Seal this round's tactic: sends only SHA-256 of TACTIC followed by SALT; then send it "
      "with 'tactic TACTIC SALT', the same salt (C9).", "commit attack x7", 0, NULL },
    { "tactic", "tactic TACTIC [SALT]",
      "Choose this round's tactic in secret: march, counter_march, attack, defend or regroup, "
      "not your last one after no battle (C7, C8); after a commit, with its salt (C9).",
      "tactic defend", 0, NULL },
    { "ambush", "ambush NOTE",
      "Write down where your Hidden Ambush Force is, before either side reports; only you see "
      "it until it is revealed (C12).", "ambush behind the wood on the left", 0, NULL },
    { "reveal", "reveal [SEAT]",
      "Show a sealed ambush note during the battle: the ambusher its own; the referee names "
      "the side when both wrote one (C12).", "reveal", 0, NULL },
    { "report", "report A D",
      "Report the battle's victory points, the attacker's A then the defender's D; both "
      "reports must agree, and 250 more takes a town (C11).", "report 1450 1100", 0, NULL },
    { "settle", "settle A D",
      "The referee settles disputed reports with the attacker's A and the defender's D "
      "victory points (C11).", "settle 1450 1100", 0, NULL },
    { NULL, NULL, NULL, NULL, 0, NULL },
};

/* A line cut into words; rest[i] is the line from word i on. */
#define WORDS_MAX 8
struct words {
    char buf[1024];
    char *w[WORDS_MAX];
    const char *rest[WORDS_MAX];
    int n;
    int more;                   /* more words than WORDS_MAX */
};

static int is_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n';
}

static int split(const char *line, struct words *ws, char *restbuf, size_t restsz)
{
    memset(ws, 0, sizeof *ws);
    size_t len = strlen(line);
    if (len >= sizeof ws->buf || len >= restsz)
        return -1;
    memcpy(ws->buf, line, len + 1);
    memcpy(restbuf, line, len + 1);
    while (len > 0 && is_space(restbuf[len - 1]))
        restbuf[--len] = '\0';
    char *p = ws->buf;
    for (;;) {
        while (is_space(*p))
            p++;
        if (*p == '\0')
            break;
        if (ws->n == WORDS_MAX) {
            ws->more = 1;
            break;
        }
        ws->rest[ws->n] = restbuf + (p - ws->buf);
        ws->w[ws->n++] = p;
        while (*p && !is_space(*p))
            p++;
        if (*p)
            *p++ = '\0';
    }
    return 0;
}

static int bad_line(struct wr_refusal *why, int order, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Refuse a line of order with the sentence and the synopsis; returns -1. */
static int bad_line(struct wr_refusal *why, int order, const char *fmt, ...)
{
    char text[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    wr_campaign_refuse(why, WR_CR_BAD_COMMAND, "%s (usage: %s)", text, orders[order].synopsis);
    return -1;
}

/* What a line leaves out, taken from the state: the only town allowed. */
static int only_town(const struct cp_view *p, const char *what, int order, struct wr_refusal *why)
{
    struct wr_campaign *c = position(p);
    uint64_t set = c ? legal_towns(c, p->base.seat, what) : 0;
    wr_campaign_free(c);
    if (count_towns(set) == 1)
        return first_town(set);
    if (set == 0)
        return bad_line(why, order, "name the town");
    struct wr_strbuf b;
    wr_strbuf_init(&b);
    list_towns(&b, &p->map, set);
    bad_line(why, order, "name the town, one of %.100s", b.s ? b.s : "");
    wr_strbuf_release(&b);
    return -1;
}

/* A victory-point count: 0..WR_CAMPAIGN_VP_MAX in decimal digits, or -1. */
static int vp_of(const char *s)
{
    long v = 0;
    if (s == NULL || *s == '\0')
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || (v = v * 10 + (*s - '0')) > WR_CAMPAIGN_VP_MAX)
            return -1;
    }
    return (int)v;
}

/* Make the command of order o from the words of the line. 0, or -1 with why. */
static int make_command(struct cp_view *p, int o, const struct words *ws, json_t **cmd,
                        struct wr_refusal *why)
{
    static const char *const what_of[O_COUNT] = { [O_CHOOSE] = "choose_town",
                                                  [O_ATTACK] = "attack",
                                                  [O_COUNTER] = "counter" };
    static const char *const key_of[O_COUNT] = { [O_CHOOSE] = "town", [O_ATTACK] = "target",
                                                 [O_COUNTER] = "town" };
    int nargs = ws->n - 1 + ws->more;
    switch (o) {
    case O_START:
        if (nargs)
            return bad_line(why, o, "start takes nothing more");
        *cmd = json_pack("{s:s}", "type", "start");
        return 0;
    case O_CHOOSE:
    case O_ATTACK:
    case O_COUNTER: {
        int t = nargs ? find_town(&p->map, ws->rest[1]) : only_town(p, what_of[o], o, why);
        if (nargs && t < 0)
            return bad_line(why, o, "no town '%.60s' on %s", ws->rest[1], p->map.name);
        if (t < 0)
            return -1;
        *cmd = json_pack("{s:s, s:s}", "type", what_of[o], key_of[o], p->map.towns[t].name);
        return 0;
    }
    case O_STRATEGY: {
        int s = nargs == 1 ? find_word(cp_strategy_names, WR_CS_FLANK_MARCH,
                                       WR_CS_BRILLIANT_GENERALSHIP, ws->w[1]) : -1;
        if (s < 0)
            return bad_line(why, o, "the strategy is one of flank_march, hidden_ambush, scouts, "
                            "rapid_deployment, good_planning");
        *cmd = json_pack("{s:s, s:s}", "type", "choose_strategy", "strategy", cp_strategy_names[s]);
        return 0;
    }
    case O_COMMIT:
    case O_TACTIC: {
        int t = nargs >= 1 ? find_word(cp_tactic_names, 0, WR_CT_COUNT, ws->w[1]) : -1;
        if (t < 0 || nargs > 2 || (o == O_COMMIT && nargs != 2))
            return bad_line(why, o, "%s", t < 0 ? "the tactic is one of march, counter_march, "
                            "attack, defend, regroup" : o == O_COMMIT ? "give the tactic and a "
                            "salt of your own" : "only a tactic and a salt");
        const char *salt = nargs == 2 ? ws->w[2] : NULL;
        if (salt && strlen(salt) > WR_CAMPAIGN_SALT_MAX)
            return bad_line(why, o, "a salt is at most %d bytes", WR_CAMPAIGN_SALT_MAX);
        if (o == O_TACTIC) {
            *cmd = json_pack("{s:s, s:s}", "type", "tactic", "choice", cp_tactic_names[t]);
            if (salt)
                json_object_set_new(*cmd, "salt", json_string(salt));
            return 0;
        }
        char hex[65];
        if (wr_campaign_commitment(cp_tactic_names[t], salt, hex) != 0)
            return bad_line(why, o, "the commitment could not be computed");
        *cmd = json_pack("{s:s, s:s}", "type", "commit", "commitment", hex);
        return 0;
    }
    case O_AMBUSH:
        if (nargs == 0 || strlen(ws->rest[1]) > WR_CAMPAIGN_NOTE_MAX)
            return bad_line(why, o, "write where the unit is, 1 to %d bytes", WR_CAMPAIGN_NOTE_MAX);
        *cmd = json_pack("{s:s, s:s}", "type", "seal_ambush", "note", ws->rest[1]);
        return 0;
    case O_REVEAL:
        if (nargs > 1 || (nargs == 1 && strlen(ws->w[1]) > 16))
            return bad_line(why, o, "name at most the seat of the side");
        *cmd = json_pack("{s:s}", "type", "reveal_ambush");
        if (nargs == 1)
            json_object_set_new(*cmd, "seat", json_string(ws->w[1]));
        return 0;
    case O_REPORT:
    case O_SETTLE: {
        int a = nargs == 2 ? vp_of(ws->w[1]) : -1, d = nargs == 2 ? vp_of(ws->w[2]) : -1;
        if (a < 0 || d < 0)
            return bad_line(why, o, "give the attacker's and the defender's victory points, "
                            "0 to %d", WR_CAMPAIGN_VP_MAX);
        *cmd = json_pack("{s:s, s:i, s:i}", "type", o == O_REPORT ? "report" : "settle",
                         "attacker", a, "defender", d);
        return 0;
    }
    }
    return bad_line(why, o, "not an order");
}

/* --- the view ------------------------------------------------------------------------ */

static struct wr_view *cp_open(const struct wr_ruleset *rs, const json_t *scenario,
                               const json_t *options, const char *seat,
                               const struct wr_host *host, struct wr_refusal *why)
{
    (void)host;
    static const uint8_t seed[32];
    if (scenario == NULL) {
        wr_campaign_refuse(why, WR_CR_BAD_SCENARIO, "a campaign needs a scenario: its map");
        return NULL;
    }
    struct cp_view *p = calloc(1, sizeof *p);
    if (p == NULL) {
        wr_campaign_refuse(why, WR_CR_NO_MEMORY, "out of memory");
        return NULL;
    }
    wr_view_init(&p->base, rs, seat);
    if (wr_campaign_map_load(&p->map, scenario, why) != 0) {
        free(p);
        return NULL;
    }
    /* The options as create() reads them: refused the same way. */
    struct wr_campaign *c = wr_campaign_new(&p->map, options, "view", seed, NULL, why);
    if (c == NULL) {
        free(p);
        return NULL;
    }
    wr_campaign_free(c);
    if (options && (p->options = json_deep_copy(options)) == NULL) {
        free(p);
        wr_campaign_refuse(why, WR_CR_NO_MEMORY, "out of memory");
        return NULL;
    }
    return &p->base;
}

static void cp_close(struct wr_view *v)
{
    struct cp_view *p = (struct cp_view *)v;
    if (p == NULL)
        return;
    json_decref(p->options);
    json_decref(p->state);
    free(p);
}

static int unfit(struct wr_refusal *why, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int unfit(struct wr_refusal *why, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    wr_campaign_vrefuse(why, WR_CR_BAD_SCENARIO, fmt, ap);
    va_end(ap);
    return -1;
}

static int cp_update(struct wr_view *v, const json_t *state, struct wr_refusal *why)
{
    struct cp_view *p = (struct cp_view *)v;
    const json_t *towns = json_object_get(state, "towns"),
                 *players = json_object_get(state, "players");
    const char *rs = wr_state_str(state, "ruleset"), *map = wr_state_str(state, "map");
    if (!json_is_object(state) || rs == NULL || strcmp(rs, "campaign") != 0 ||
        !json_is_object(towns) || !json_is_array(players) ||
        phase_of(wr_state_str(state, "phase")) < 0)
        return unfit(why, "not a campaign state");
    if (map == NULL || strcmp(map, p->map.name) != 0)
        return unfit(why, "a campaign on the map '%.60s', not '%s'", map ? map : "?", p->map.name);
    size_t np = json_array_size(players);
    json_t *want = json_object_get(p->options, "players");
    if (np < WR_CAMPAIGN_PLAYERS_MIN || np > WR_CAMPAIGN_PLAYERS_MAX ||
        (want && json_integer_value(want) != (json_int_t)np))
        return unfit(why, "%zu players, not as the game's options say", np);
    if (json_object_size(towns) != (size_t)p->map.ntowns)
        return unfit(why, "%zu towns, the map has %d", json_object_size(towns), p->map.ntowns);
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)towns, key, val) {
        int t = wr_campaign_map_find(&p->map, key);
        if (t < 0)
            return unfit(why, "the town '%.60s' is not on %s", key, p->map.name);
        int ow = cp_state_owner(state, &p->map, t);
        if (!json_is_null(val) && (ow < 0 || (size_t)ow >= np))
            return unfit(why, "%s is held by '%.16s', not a player", key,
                         wr_state_text(towns, key));
    }
    json_t *copy = json_deep_copy(state);
    if (copy == NULL) {
        wr_campaign_refuse(why, WR_CR_NO_MEMORY, "out of memory");
        return -1;
    }
    json_decref(p->state);
    p->state = copy;
    v->has_state = 1;
    return 0;
}

/* --- describe ------------------------------------------------------------------------ */

static void first_line(const struct cp_view *p, struct wr_strbuf *out)
{
    const json_t *st = p->state, *a = json_object_get(st, "attack");
    long long turn = wr_state_int(st, "turn");
    if (turn > 0) {
        wr_strbuf_printf(out, "Turn %lld", turn);
        if (json_is_integer(json_object_get(st, "max_turns")))
            wr_strbuf_printf(out, " of %lld", wr_state_int(st, "max_turns"));
        wr_strbuf_puts(out, ", ");
    }
    wr_strbuf_puts(out, wr_state_text(st, "phase"));
    if (json_is_object(a)) {
        wr_strbuf_printf(out, " (%s attacks %s's %s", wr_state_text(a, "attacker"),
                         wr_state_text(a, "defender"), wr_state_text(a, "target"));
        if (wr_state_str(a, "counter"))
            wr_strbuf_printf(out, ", %s at stake", wr_state_str(a, "counter"));
        if (json_is_object(json_object_get(a, "battle")))
            wr_strbuf_printf(out, ", %s", wr_state_text(json_object_get(a, "battle"), "text"));
        else if (wr_state_str(a, "counter"))
            wr_strbuf_printf(out, ", round %lld", wr_state_int(a, "round"));
        wr_strbuf_puts(out, ")");
    }
    wr_strbuf_puts(out, ": ");
    wr_state_waiting_line(st, out);
    const char *winner = wr_state_str(st, "winner");
    if (winner)
        wr_strbuf_printf(out, " (%s by %s)", strcmp(winner, "draw") == 0 ? "a draw" : winner,
                         wr_state_str(st, "end") ? wr_state_str(st, "end") : "?");
    wr_strbuf_puts(out, "\n");
}

static void order_line(struct wr_strbuf *out, int o, const char *example)
{
    wr_strbuf_printf(out, "  order: %s    example: %s\n", orders[o].synopsis,
                     example ? example : orders[o].example);
}

/* The decision on towns (draft, attack, counter): the towns allowed. */
static void decide_towns(const struct cp_view *p, const struct wr_campaign *c, const char *what,
                         struct wr_strbuf *out)
{
    uint64_t set = legal_towns(c, p->base.seat, what);
    int o = strcmp(what, "choose_town") == 0 ? O_CHOOSE : strcmp(what, "attack") == 0 ? O_ATTACK
                                                                                      : O_COUNTER;
    if (o == O_CHOOSE) {
        wr_strbuf_puts(out, "Your decision: take a free town (C2");
        wr_strbuf_puts(out, cp_neighbours(c, cp_towns_of(c, wr_campaign_player(c, p->base.seat))) &
                                    set ? ": one next to yours while there is one)"
                                        : ")");
    } else if (o == O_ATTACK) {
        wr_strbuf_puts(out, "Your decision: attack a town of a neighbour (C4)");
    } else {
        const struct wr_campaign_attack *a = &c->at;
        int near = a->target >= 0 && (c->map.towns[a->target].adj & cp_towns_of(c, a->attacker));
        wr_strbuf_printf(out,
                         "Your decision: %s attacks your %s; put one of %s's towns at stake "
                         "(C4: %s)",
                         cp_pname(a->attacker), a->target >= 0 ? c->map.towns[a->target].name : "?",
                         cp_pname(a->attacker),
                         near ? "one adjacent to the target"
                              : "any, none is adjacent to the target");
    }
    wr_strbuf_printf(out, ".\n  allowed (%d): ", count_towns(set));
    list_towns(out, &p->map, set);
    wr_strbuf_puts(out, "\n");
    char ex[96];
    int t = first_town(set);
    snprintf(ex, sizeof ex, "%s %s", orders[o].name, t >= 0 ? p->map.towns[t].name : "TOWN");
    order_line(out, o, ex);
}

static void decide(const struct cp_view *p, const char *what, struct wr_strbuf *out)
{
    struct wr_campaign *c = position(p);
    if (c == NULL) {
        wr_strbuf_printf(out, "Your decision: %s (the state does not say more)\n", what);
        return;
    }
    int side = cp_side_of(c, p->base.seat);
    const struct wr_campaign_attack *a = &c->at;
    char ex[96];
    if (strcmp(what, "start") == 0) {
        wr_strbuf_puts(out, "Your decision: start the campaign; the server rolls a die for each "
                            "player and the highest chooses the first town (C1).\n");
        order_line(out, O_START, NULL);
    } else if (strcmp(what, "choose_town") == 0 || strcmp(what, "attack") == 0 ||
               strcmp(what, "counter") == 0) {
        decide_towns(p, c, what, out);
    } else if (strcmp(what, "choose_strategy") == 0) {
        wr_strbuf_puts(out, "Your decision: you won a Brilliant Generalship; choose the strategy "
                            "to use (C13): flank_march, hidden_ambush, scouts, rapid_deployment, "
                            "good_planning.\n");
        order_line(out, O_STRATEGY, NULL);
    } else if (strcmp(what, "tactic") == 0) {
        unsigned set = allowed_tactics(c, side);
        int first = -1;
        wr_strbuf_printf(out, "Your decision: your tactic for round %d against %s, in secret (C7)."
                              "\n  allowed: ", a->nrounds + 1,
                         cp_pname(cp_side_player(c, side < 0 ? 0 : 1 - side)));
        for (int t = 0, n = 0; t < WR_CT_COUNT; t++)
            if (set >> t & 1u) {
                wr_strbuf_printf(out, "%s%s", n++ ? ", " : "", cp_tactic_names[t]);
                first = first < 0 ? t : first;
            }
        if (side >= 0 && a->nrounds > 0)
            wr_strbuf_printf(out, " (not %s, your last choice, after no battle: C8)",
                             cp_tactic_names[a->rounds[a->nrounds - 1].side[side].choice]);
        wr_strbuf_puts(out, "\n");
        if (side >= 0 && a->tactic[side].committed) {
            wr_strbuf_puts(out, "  you committed to a hash: send the tactic with the salt you "
                                "hashed it with (C9)\n");
            snprintf(ex, sizeof ex, "tactic %s SALT", cp_tactic_names[first]);
            order_line(out, O_TACTIC, ex);
        } else {
            snprintf(ex, sizeof ex, "tactic %s", cp_tactic_names[first]);
            order_line(out, O_TACTIC, ex);
            wr_strbuf_printf(out, "  or seal it first (C9): %s, then %s with the same salt\n"
                                  "    example: commit %s x7, then tactic %s x7\n",
                             orders[O_COMMIT].synopsis, orders[O_TACTIC].synopsis,
                             cp_tactic_names[first], cp_tactic_names[first]);
        }
    } else if (strcmp(what, "seal_ambush") == 0) {
        wr_strbuf_puts(out, "Your decision: write down where your Hidden Ambush Force is; the "
                            "battle cannot be reported before (C12).\n");
        order_line(out, O_AMBUSH, NULL);
    } else if (strcmp(what, "report") == 0 || strcmp(what, "settle") == 0) {
        int settle = strcmp(what, "settle") == 0;
        wr_strbuf_printf(out, "Your decision: %s the victory points of the battle: %s's (the "
                              "attacker) then %s's (the defender); a winner by %d or more takes "
                              "the loser's disputed town (C11).\n", settle ? "settle" : "report",
                         cp_pname(a->attacker), cp_pname(a->defender), WR_CAMPAIGN_MARGIN);
        for (int s = 0; s < 2; s++)
            if (a->reported[s])
                wr_strbuf_printf(out, "  %s reported %d - %d%s\n", cp_pname(cp_side_player(c, s)),
                                 a->report[s][0], a->report[s][1],
                                 a->disputed ? " (the reports disagree)" : "");
        snprintf(ex, sizeof ex, "%s %d %d", settle ? "settle" : "report",
                 a->reported[0] ? a->report[0][0] : 1450, a->reported[0] ? a->report[0][1] : 1100);
        order_line(out, settle ? O_SETTLE : O_REPORT, ex);
    } else {
        wr_strbuf_printf(out, "Your decision: %s\n", what);
    }
    wr_campaign_free(c);
}

static void cp_describe(const struct wr_view *v, struct wr_strbuf *out)
{
    const struct cp_view *p = cview(v);
    if (p->state == NULL) {
        wr_strbuf_printf(out, "No state yet: a campaign on %s.\n", p->map.name);
        return;
    }
    first_line(p, out);
    const char *what = wr_state_awaits(p->state, v->seat);
    if (what)
        decide(p, what, out);
}

/* --- events -------------------------------------------------------------------------- */

typedef void event_fn(const json_t *e, struct wr_strbuf *out);

static void ev_roll(const json_t *e, struct wr_strbuf *out)
{
    wr_strbuf_printf(out, "%s rolls %lld (%s)",
                     wr_state_str(e, "seat") ? wr_state_str(e, "seat") : "the game",
                     wr_state_int(e, "face"), wr_state_text(e, "for"));
}

static void ev_first_choice(const json_t *e, struct wr_strbuf *out)
{
    wr_strbuf_printf(out, "%s chooses the first town", wr_state_text(e, "seat"));
}

static void ev_town_chosen(const json_t *e, struct wr_strbuf *out)
{
    wr_strbuf_printf(out, "%s takes %s", wr_state_text(e, "seat"), wr_state_text(e, "town"));
}

static void ev_draft_over(const json_t *e, struct wr_strbuf *out)
{
    (void)e;
    wr_strbuf_puts(out, "every town is taken: the draft is over");
}

static void ev_turn(const json_t *e, struct wr_strbuf *out)
{
    wr_strbuf_printf(out, "campaign turn %lld begins", wr_state_int(e, "turn"));
}

static void ev_passed(const json_t *e, struct wr_strbuf *out)
{
    wr_strbuf_printf(out, "%s passes: no neighbour to attack", wr_state_text(e, "seat"));
}

static void ev_attack(const json_t *e, struct wr_strbuf *out)
{
    wr_strbuf_printf(out, "%s attacks %s's %s", wr_state_text(e, "seat"),
                     wr_state_text(e, "defender"), wr_state_text(e, "target"));
}

static void ev_counter(const json_t *e, struct wr_strbuf *out)
{
    wr_strbuf_printf(out, "%s puts %s at stake", wr_state_text(e, "seat"),
                     wr_state_text(e, "town"));
}

static void ev_strategy_dice(const json_t *e, struct wr_strbuf *out)
{
    const char *key;
    json_t *v;
    int n = 0;
    wr_strbuf_puts(out, "strategy dice: ");
    json_object_foreach(json_object_get(e, "sixes"), key, v)
        wr_strbuf_printf(out, "%s%s %lld six%s", n++ ? ", " : "", key,
                         (long long)json_integer_value(v), json_integer_value(v) == 1 ? "" : "es");
    wr_strbuf_printf(out, "; %s", wr_state_str(e, "winner") ? wr_state_str(e, "winner") : "nobody");
    wr_strbuf_puts(out,
                   wr_state_str(e, "winner") ? " rolls on the strategy table" : " rolls (a tie)");
}

static void ev_strategy(const json_t *e, struct wr_strbuf *out)
{
    wr_strbuf_printf(out, "%s wins %s (rolled %lld%s)", wr_state_text(e, "seat"),
                     wr_state_text(e, "strategy"), wr_state_int(e, "roll"),
                     strcmp(wr_state_text(e, "from"), "reinforcement") == 0 ? ", a reinforcement"
                                                                            : "");
}

static void ev_strategy_chosen(const json_t *e, struct wr_strbuf *out)
{
    wr_strbuf_printf(out, "%s chooses %s", wr_state_text(e, "seat"), wr_state_text(e, "strategy"));
}

static void ev_tactic_committed(const json_t *e, struct wr_strbuf *out)
{
    wr_strbuf_printf(out, "%s seals a tactic for round %lld", wr_state_text(e, "seat"),
                     wr_state_int(e, "round"));
}

static void ev_tactic_chosen(const json_t *e, struct wr_strbuf *out)
{
    wr_strbuf_printf(out, "%s chooses a tactic for round %lld", wr_state_text(e, "seat"),
                     wr_state_int(e, "round"));
    if (wr_state_str(e, "choice"))
        wr_strbuf_printf(out, ": %s", wr_state_str(e, "choice"));
}

static void ev_tactics(const json_t *e, struct wr_strbuf *out)
{
    wr_strbuf_printf(out, "round %lld: the attacker %s, the defender %s: %s. %s",
                     wr_state_int(e, "round"),
                     wr_state_text(json_object_get(e, "attacker"), "choice"),
                     wr_state_text(json_object_get(e, "defender"), "choice"),
                     wr_state_text(e, "why"), wr_state_text(e, "text"));
}

static void ev_battle(const json_t *e, struct wr_strbuf *out)
{
    wr_strbuf_printf(out, "battle: %s, %lld points a side", wr_state_text(e, "text"),
                     wr_state_int(e, "points"));
}

static void ev_called_off(const json_t *e, struct wr_strbuf *out)
{
    wr_strbuf_printf(out, "the attack is called off after %lld rounds without battle",
                     wr_state_int(e, "rounds"));
}

static void ev_ambush_sealed(const json_t *e, struct wr_strbuf *out)
{
    wr_strbuf_printf(out, "%s writes down the hidden ambush force", wr_state_text(e, "seat"));
    if (wr_state_str(e, "note"))
        wr_strbuf_printf(out, ": %s", wr_state_str(e, "note"));
}

static void ev_ambush_revealed(const json_t *e, struct wr_strbuf *out)
{
    wr_strbuf_printf(out, "%s's hidden ambush force: %s", wr_state_text(e, "seat"),
                     wr_state_text(e, "note"));
}

static void ev_report(const json_t *e, struct wr_strbuf *out)
{
    wr_strbuf_printf(out, "%s reports %lld - %lld", wr_state_text(e, "seat"),
                     wr_state_int(e, "attacker"), wr_state_int(e, "defender"));
}

static void ev_disputed(const json_t *e, struct wr_strbuf *out)
{
    wr_strbuf_printf(out, "the reports disagree: report again%s",
                     wr_state_str(e, "referee") ? ", or the referee settles" : "");
}

static void ev_settled(const json_t *e, struct wr_strbuf *out)
{
    wr_strbuf_printf(out, "%s settles %lld - %lld", wr_state_text(e, "seat"),
                     wr_state_int(e, "attacker"), wr_state_int(e, "defender"));
}

static void ev_battle_result(const json_t *e, struct wr_strbuf *out)
{
    wr_strbuf_printf(out, "result %lld - %lld: ", wr_state_int(e, "attacker"),
                     wr_state_int(e, "defender"));
    if (wr_state_str(e, "winner") == NULL)
        wr_strbuf_puts(out, "a draw, no town changes");
    else
        wr_strbuf_printf(
            out, "%s wins by %lld%s", wr_state_text(e, "winner"), wr_state_int(e, "margin"),
            json_is_true(json_object_get(e, "towns_change")) ? "" : ", too little to take a town");
}

static void ev_town_taken(const json_t *e, struct wr_strbuf *out)
{
    wr_strbuf_printf(out, "%s takes %s from %s", wr_state_text(e, "seat"), wr_state_text(e, "town"),
                     wr_state_text(e, "from"));
}

static void ev_eliminated(const json_t *e, struct wr_strbuf *out)
{
    wr_strbuf_printf(out, "%s has no town left and is out", wr_state_text(e, "seat"));
}

static void ev_game_over(const json_t *e, struct wr_strbuf *out)
{
    const char *w = wr_state_text(e, "winner");
    wr_strbuf_printf(out, "the campaign is over (%s): %s", wr_state_text(e, "end"),
                     strcmp(w, "draw") == 0 ? "a draw" : w);
    if (strcmp(w, "draw") != 0)
        wr_strbuf_puts(out, " wins");
}

/* Every event the campaign sends (campaign_turn.c, campaign_draft.c,
 * campaign_attack.c, campaign_battle.c). */
static const struct {
    const char *type;
    event_fn *fn;
} events[] = {
    { "roll", ev_roll },
    { "first_choice", ev_first_choice },
    { "town_chosen", ev_town_chosen },
    { "draft_over", ev_draft_over },
    { "turn", ev_turn },
    { "passed", ev_passed },
    { "attack", ev_attack },
    { "counter", ev_counter },
    { "strategy_dice", ev_strategy_dice },
    { "strategy", ev_strategy },
    { "strategy_chosen", ev_strategy_chosen },
    { "tactic_committed", ev_tactic_committed },
    { "tactic_chosen", ev_tactic_chosen },
    { "tactics", ev_tactics },
    { "battle", ev_battle },
    { "attack_called_off", ev_called_off },
    { "ambush_sealed", ev_ambush_sealed },
    { "ambush_revealed", ev_ambush_revealed },
    { "report", ev_report },
    { "disputed", ev_disputed },
    { "settled", ev_settled },
    { "battle_result", ev_battle_result },
    { "town_taken", ev_town_taken },
    { "eliminated", ev_eliminated },
    { "game_over", ev_game_over },
};

static void cp_event_line(const struct wr_view *v, const json_t *event, struct wr_strbuf *out)
{
    (void)v;
    const char *type = wr_state_str(event, "type");
    for (size_t i = 0; type && i < sizeof events / sizeof events[0]; i++)
        if (strcmp(events[i].type, type) == 0) {
            /* a missing key shows as "?" */
            events[i].fn(event, out);
            return;
        }
    wr_strbuf_printf(out, "(an event: %.40s)", type ? type : "?");
}

/* --- order, precheck, complete ---------------------------------------------------------- */

static enum wr_order_kind cp_order(struct wr_view *v, const char *line, json_t **cmd,
                                   struct wr_strbuf *out, struct wr_refusal *why)
{
    (void)out;
    struct cp_view *p = (struct cp_view *)v;
    struct words ws;
    char rest[1024];
    *cmd = NULL;
    if (split(line, &ws, rest, sizeof rest) != 0 || ws.n == 0) {
        wr_campaign_refuse(why, WR_CR_BAD_COMMAND, "%s: type an order (start, choose, attack, "
                           "counter, strategy, commit, tactic, ambush, reveal, report, settle)",
                           ws.n == 0 ? "an empty line" : "a line too long");
        return WR_ORDER_ERROR;
    }
    int o = 0;
    while (o < O_COUNT && strcmp(orders[o].name, ws.w[0]) != 0)
        o++;
    if (o == O_COUNT) {
        wr_campaign_refuse(why, WR_CR_BAD_COMMAND, "'%.40s' is not an order of the campaign: "
                           "start, choose, attack, counter, strategy, commit, tactic, ambush, "
                           "reveal, report, settle", ws.w[0]);
        return WR_ORDER_ERROR;
    }
    if (make_command(p, o, &ws, cmd, why) != 0)
        return WR_ORDER_ERROR;
    if (*cmd == NULL) {
        wr_campaign_refuse(why, WR_CR_NO_MEMORY, "out of memory");
        return WR_ORDER_ERROR;
    }
    return WR_ORDER_COMMAND;
}

/* The server's verdict, by its own code: the command applied to the
 * position rebuilt from the state. The projection gives a seat all that
 * its own commands depend on (its sealed tactic, who is still awaited);
 * so a command is not judged only with no state, for a spectator, or while
 * the server does not run the game (its own refusals, not the rules'). */
static int cp_precheck(struct wr_view *v, const json_t *cmd, struct wr_refusal *why)
{
    struct cp_view *p = (struct cp_view *)v;
    const char *status = wr_state_str(json_object_get(p->state, "server"), "status");
    if (p->state == NULL || v->seat[0] == '\0' || (status && strcmp(status, "running") != 0))
        return 0;
    struct wr_campaign *c = position(p);
    if (c == NULL)
        return 0;
    json_t *ev = NULL;
    enum wr_campaign_reason r = wr_campaign_apply(c, v->seat, cmd, &ev, why);
    json_decref(ev);
    wr_campaign_free(c);
    return r == WR_CR_OK ? 1 : -1;
}

/* Offer the towns of set matching what is typed: the "_" form of the whole
 * name for the first word, or a name's next word when the words typed so
 * far (words[1..nwords)) are its first ones. */
static void complete_towns(const struct wr_campaign_map *m, uint64_t set, const char *const *words,
                           int nwords, const char *word, void (*add)(void *ctx, const char *cand),
                           void *ctx)
{
    char typed[256] = "";
    size_t at = 0;
    for (int i = 1; i < nwords && at < sizeof typed; i++)
        at += (size_t)snprintf(typed + at, sizeof typed - at, "%s ", words[i]);
    if (at >= sizeof typed)
        return;
    for (int t = 0; t < m->ntowns; t++) {
        const char *name = m->towns[t].name;
        if (!(set >> t & 1u) || !name_starts(typed, at, name) ||
            !name_starts(word, strlen(word), name + at))
            continue;
        char cand[WR_CAMPAIGN_NAME_MAX];
        size_t n = 0;
        for (const char *s = name + at; *s && (at == 0 || *s != ' '); s++)
            cand[n++] = *s == ' ' ? '_' : *s;
        cand[n] = '\0';
        add(ctx, cand);
    }
}

static void complete_names(const char *const *names, int from, int n, unsigned set,
                           const char *word, void (*add)(void *ctx, const char *cand), void *ctx)
{
    for (int i = from; i < n; i++)
        if ((set >> i & 1u) && strncmp(names[i], word, strlen(word)) == 0)
            add(ctx, names[i]);
}

static void cp_complete(const struct wr_view *v, const char *const *words, int nwords,
                        const char *word, void (*add)(void *ctx, const char *cand), void *ctx)
{
    const struct cp_view *p = cview(v);
    int o = 0;
    while (o < O_COUNT && strcmp(orders[o].name, words[0]) != 0)
        o++;
    struct wr_campaign *c = position(p);
    int side = c ? cp_side_of(c, v->seat) : -1;
    if (o == O_CHOOSE || o == O_ATTACK || o == O_COUNTER) {
        static const char *const what[] = { [O_CHOOSE] = "choose_town", [O_ATTACK] = "attack",
                                            [O_COUNTER] = "counter" };
        /* The towns the rules allow when the seat is awaited for this, else all. */
        const char *aw = wr_state_awaits(p->state, v->seat);
        uint64_t set = c && aw && strcmp(aw, what[o]) == 0 ? legal_towns(c, v->seat, what[o]) : 0;
        if (set == 0)
            set = p->map.ntowns == 64 ? ~(uint64_t)0 : ((uint64_t)1 << p->map.ntowns) - 1;
        complete_towns(&p->map, set, words, nwords, word, add, ctx);
    } else if (o == O_STRATEGY && nwords == 1) {
        complete_names(cp_strategy_names, WR_CS_FLANK_MARCH, WR_CS_BRILLIANT_GENERALSHIP, ~0u,
                       word, add, ctx);
    } else if ((o == O_TACTIC || o == O_COMMIT) && nwords == 1) {
        complete_names(cp_tactic_names, 0, WR_CT_COUNT,
                       c && side >= 0 ? allowed_tactics(c, side) : ~0u, word, add, ctx);
    } else if (o == O_REVEAL && nwords == 1 && c && c->at.attacker >= 0) {
        const char *sides[2] = { cp_pname(c->at.attacker), cp_pname(c->at.defender) };
        complete_names(sides, 0, 2, 3u, word, add, ctx);
    }
    wr_campaign_free(c);
}

static int cp_draw_text_view(const struct wr_view *v, const struct wr_draw_opts *o,
                             struct wr_strbuf *out)
{
    return cp_draw_text(&cview(v)->map, cview(v)->state, o, out);
}

static int cp_draw_svg_view(const struct wr_view *v, struct wr_strbuf *out)
{
    return cp_draw_svg(&cview(v)->map, cview(v)->state, out);
}

const struct wr_present wr_present_campaign = {
    .version = WR_PRESENT_VERSION,
    .orders = orders,
    .open = cp_open,
    .close = cp_close,
    .update = cp_update,
    .describe = cp_describe,
    .event = cp_event_line,
    .order = cp_order,
    .precheck = cp_precheck,
    .complete = cp_complete,
    .draw_text = cp_draw_text_view,
    .draw_svg = cp_draw_svg_view,
};
