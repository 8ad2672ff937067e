#define _GNU_SOURCE
/*
 * test_campaign_battle.c - linked games over the wire: a campaign's battle
 * played as a `battle` game made with `parent` (docs/protocol.md, create;
 * docs/architecture.md, "Linked games"; readings C15-C17), on the real
 * warroomd, each seat a websocket client and a spectator for each game:
 *
 * - a two-player campaign with a referee is played with each seat's legal
 *   commands (read from the public state's awaited seats) until a battle
 *   is arranged; attacks whose battle holds no Hidden Ambush Force are
 *   reported by hand (1000 each: no town changes) and the next one played,
 *   up to a bound, so that the battle played holds one when the server's
 *   dice give one (otherwise the test says so on stderr and plays it
 *   without: ambush_due -> reveal_ambush is also covered by
 *   tests/unit/campaign/test_campaign_link.c);
 * - refusals: a battle before one is arranged (the campaign's no_battle),
 *   another ruleset (battle_ruleset), a bad parent, a connection that is
 *   no member, a spectator; a second battle for the same attack
 *   (child_exists);
 * - the battle: its seats held by the campaign's players with their own
 *   tokens, the campaign's description and ambush shown; rosters sealed
 *   (every frame the other side, the referee and the spectator receive is
 *   scanned for the first side's unit names until both are in, and each of
 *   them must receive them after), the start, a fact disputed and settled
 *   by the referee, an Ld test rolled, casualties until an army reaches its
 *   break point; the ambush due at its side's first turn reveals the note
 *   in the campaign;
 * - the server is killed mid-battle and restarted: both games and the link
 *   between them are back (server.parent, server.children);
 * - both sides report the same victory points: the campaign applies them
 *   (battle_result, the town taken or not by the 250-point rule, computed
 *   here from the numbers reported); the battle's spectator followed every
 *   patch and holds what a fresh spectator is sent;
 * - the terminal client: `warroom create battle --parent GAME` refused
 *   while a battle game runs (child_exists), `warroom status` showing the
 *   link on both games, and, at the campaign's next battle, a battle made
 *   with the client: its seat held with the campaign seat's saved token.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "campaign_map.h"
#include "cli.h"
#include "proc.h"
#include "wsclient.h"

#if !defined(WARROOM_SCENARIO_DIR) || !defined(WARROOM_CLIENT_PATH)
#error "WARROOM_SCENARIO_DIR and WARROOM_CLIENT_PATH must be defined by the build"
#endif

#define T 5000                  /* ms to wait for any one answer */
#define MAX_ATTACKS 40          /* attacks played to find a Hidden Ambush Force */
#define MAX_COMMANDS 4000       /* commands of the campaign before its battle */
#define VP_ATTACKER 1400        /* the victory points both sides report */
#define VP_DEFENDER 1100

static const char *const server_args[] = { "--scenarios", WARROOM_SCENARIO_DIR, NULL };

static const char *str(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* --- one game: a client per seat, then a spectator ------------------------------ */

#define SEATS 4

struct game {
    char id[32];
    int n;
    struct wt_client cl[SEATS];
    char seat[SEATS][16];           /* "" for the spectator */
    char token[SEATS][80];
    int seq[SEATS];
    long long version;
};

static int seat_client(const struct game *g, const char *seat)
{
    for (int i = 0; i < g->n; i++)
        if (strcmp(g->seat[i], seat) == 0)
            return i;
    fail_msg("game %s: no client for seat %s", g->id, seat);
    return -1;
}

static struct wt_client *spectator(struct game *g)
{
    return &g->cl[g->n - 1];
}

static void clear_backlog(struct wt_client *c)
{
    for (int k = 0; k < c->nbacklog; k++)
        json_decref(c->backlog[k]);
    c->nbacklog = 0;
}

/* Every client of g reads up to g->version. */
static void sync_all(struct game *g)
{
    for (int i = 0; i < g->n; i++) {
        struct wt_client *c = &g->cl[i];
        if (wt_wait_version(c, g->version, T) != 0)
            fail_msg("%s did not reach version %lld of %s", c->name, g->version, g->id);
        clear_backlog(c);
        if (c->bad_patches)
            fail_msg("%s: a patch of %s did not apply", c->name, g->id);
    }
}

/* Send cmd_text from seat; it must be acknowledged. The ack's events (new
 * reference). */
static json_t *ok(struct game *g, const char *seat, const char *cmd_text)
{
    int i = seat_client(g, seat);
    char text[2048];
    snprintf(text, sizeof text, "{\"type\":\"command\",\"game\":\"%s\",\"seq\":%d,\"cmd\":%s}",
             g->id, ++g->seq[i], cmd_text);
    wt_send_text(&g->cl[i], text);
    json_t *ack = wt_expect(&g->cl[i], "ack", T);
    if (ack == NULL) {
        json_t *e = wt_expect(&g->cl[i], "error", 10);
        fail_msg("%s of %s: %s refused: %s %s", seat, g->id, cmd_text,
                 e ? str(e, "code") : "(no answer)", e ? str(e, "message") : "");
    }
    g->version = json_integer_value(json_object_get(ack, "version"));
    json_t *events = json_incref(json_object_get(ack, "events"));
    json_decref(ack);
    sync_all(g);
    return events;
}

static void ok0(struct game *g, const char *seat, const char *cmd_text)
{
    json_decref(ok(g, seat, cmd_text));
}

static const json_t *event_of(const json_t *events, const char *type)
{
    size_t i;
    json_t *e;
    json_array_foreach(events, i, e)
        if (str(e, "type") && strcmp(str(e, "type"), type) == 0)
            return e;
    return NULL;
}

/* The answer to msg_text on client c must be `error` with code. */
static void create_refused(struct wt_client *c, const char *msg_text, const char *code)
{
    wt_send_text(c, msg_text);
    json_t *e = wt_expect(c, "error", T);
    if (e == NULL)
        fail_msg("%s: %s was not refused", c->name, msg_text);
    if (strcmp(str(e, "code"), code) != 0)
        fail_msg("%s: %s gave %s (%s), want %s", c->name, msg_text, str(e, "code"),
                 str(e, "message"), code);
    assert_true(str(e, "message") && str(e, "message")[0]);
    json_decref(e);
}

/* Join client i of g: with its seat's token, or as a spectator. */
static void join(struct game *g, int i, int port)
{
    struct wt_client *c = &g->cl[i];
    assert_int_equal(wt_open(c, c->name, port), 0);
    if (g->seat[i][0])
        wt_send(c, "{s:s, s:s, s:s}", "type", "join", "game", g->id, "token", g->token[i]);
    else
        wt_send(c, "{s:s, s:s, s:b}", "type", "join", "game", g->id, "spectate", 1);
    json_t *st = wt_expect(c, "state", T);
    if (st == NULL) {
        json_t *e = wt_expect(c, "error", 10);
        fail_msg("%s could not join %s: %s", c->name, g->id, e ? str(e, "message") : "-");
    }
    g->version = json_integer_value(json_object_get(st, "version"));
    json_decref(st);
}

/* --- sealed rosters: what the other side, the referee and the spectator receive ---- */

struct sealed {
    const char *owner;              /* the battle seat whose roster it is */
    const char *names[2];           /* its unit names */
    int live;                       /* 1 while sealed */
    int scanned;                    /* frames scanned while sealed */
    int seen[SEATS];                /* received after the reveal */
    char leak[400];
    struct game *g;
};

static void scan_roster(struct wt_client *c, const char *text, size_t len)
{
    struct sealed *s = c->on_text_ctx;
    int i = (int)(c - s->g->cl);
    if (strcmp(s->g->seat[i], s->owner) == 0)
        return;
    for (int k = 0; k < 2; k++) {
        int hit = memmem(text, len, s->names[k], strlen(s->names[k])) != NULL;
        if (s->live && hit && s->leak[0] == '\0')
            snprintf(s->leak, sizeof s->leak, "%s received %s's sealed unit %s: %.200s", c->name,
                     s->owner, s->names[k], text);
        if (!s->live)
            s->seen[i] |= hit;
    }
    s->scanned += s->live;
}

/* --- the campaign's legal commands, from the map and the public state -------------- */

struct campaign {
    struct game g;                  /* p1, p2, referee, spectator */
    struct wr_campaign_map map;
    unsigned rnd;
};

static unsigned rnd(struct campaign *k)
{
    k->rnd = k->rnd * 1103515245u + 12345u;
    return (k->rnd >> 16) & 0x7fff;
}

static const char *owner_of(const json_t *st, const struct campaign *k, int t)
{
    return str(json_object_get(st, "towns"), k->map.towns[t].name);
}

static int owned_by(const json_t *st, const struct campaign *k, int t, const char *seat)
{
    const char *o = owner_of(st, k, t);
    return o && strcmp(o, seat) == 0;
}

static int next_to(const json_t *st, const struct campaign *k, int t, const char *seat)
{
    for (int u = 0; u < k->map.ntowns; u++)
        if (wr_campaign_map_adjacent(&k->map, t, u) && owned_by(st, k, u, seat))
            return 1;
    return 0;
}

/* A random town t with pick(t), or -1. */
static int pick(struct campaign *k, const json_t *st, const char *seat, const char *other,
                int (*ok_town)(const json_t *, const struct campaign *, int, const char *,
                               const char *))
{
    int towns[WR_CAMPAIGN_TOWNS_MAX], n = 0;
    for (int t = 0; t < k->map.ntowns; t++)
        if (ok_town(st, k, t, seat, other))
            towns[n++] = t;
    return n ? towns[rnd(k) % (unsigned)n] : -1;
}

static int free_near(const json_t *st, const struct campaign *k, int t, const char *seat,
                     const char *other)
{
    (void)other;
    return owner_of(st, k, t) == NULL && next_to(st, k, t, seat);
}

static int free_any(const json_t *st, const struct campaign *k, int t, const char *seat,
                    const char *other)
{
    (void)seat;
    (void)other;
    return owner_of(st, k, t) == NULL;
}

/* A town of the other player next to one of seat's (C4: a neighbour's). */
static int enemy_near(const json_t *st, const struct campaign *k, int t, const char *seat,
                      const char *other)
{
    (void)other;
    return owner_of(st, k, t) && !owned_by(st, k, t, seat) && next_to(st, k, t, seat);
}

/* A town of the attacker (other) next to the target (seat names it here). */
static int stake_near(const json_t *st, const struct campaign *k, int t, const char *target,
                      const char *attacker)
{
    int tt = wr_campaign_map_find(&k->map, target);
    return owned_by(st, k, t, attacker) && wr_campaign_map_adjacent(&k->map, t, tt);
}

static int stake_any(const json_t *st, const struct campaign *k, int t, const char *target,
                     const char *attacker)
{
    (void)target;
    return owned_by(st, k, t, attacker);
}

/* Does the attack being fought hold a sealed Hidden Ambush Force note? Its
 * side's campaign seat, or NULL. */
static const char *ambusher(const json_t *st)
{
    const char *seat;
    json_t *n;
    json_object_foreach(json_object_get(json_object_get(st, "attack"), "ambush"), seat, n)
        if (json_is_true(json_object_get(n, "sealed")))
            return seat;
    return NULL;
}

/* One awaited command of the campaign, chosen from the public state. In
 * the battle phase: returns 1 (and sends nothing) when the battle is to be
 * played as a game; else reports it by hand, 1000 each. The battle to play
 * (any_battle): 0 one with a sealed Hidden Ambush Force, or any once
 * MAX_ATTACKS attacks are played; 1 any; 2 one whose Hidden Ambush Force
 * is not written down yet (the note is then not sealed). */
static int campaign_step(struct campaign *k, int *attacks, int any_battle)
{
    const json_t *st = spectator(&k->g)->state;
    const json_t *aw = json_object_get(json_object_get(st, "server"), "awaiting");
    const char *phase = str(st, "phase");
    const json_t *at = json_object_get(st, "attack");
    const char *seat = NULL, *what = NULL;
    const char *s;
    json_t *w;
    json_object_foreach((json_t *)aw, s, w) {
        seat = s;
        what = json_string_value(w);
        break;
    }
    if (seat == NULL)
        fail_msg("the campaign awaits nobody in phase %s", phase);
    char cmd[512];
    if (strcmp(what, "start") == 0) {
        snprintf(cmd, sizeof cmd, "{\"type\":\"start\"}");
    } else if (strcmp(what, "choose_town") == 0) {
        int t = pick(k, st, seat, NULL, free_near);
        if (t < 0)
            t = pick(k, st, seat, NULL, free_any);
        snprintf(cmd, sizeof cmd, "{\"type\":\"choose_town\",\"town\":\"%s\"}",
                 k->map.towns[t].name);
    } else if (strcmp(what, "attack") == 0) {
        int t = pick(k, st, seat, NULL, enemy_near);
        assert_true(t >= 0);
        snprintf(cmd, sizeof cmd, "{\"type\":\"attack\",\"target\":\"%s\"}",
                 k->map.towns[t].name);
        (*attacks)++;
    } else if (strcmp(what, "counter") == 0) {
        const char *target = str(at, "target"), *attacker = str(at, "attacker");
        int t = pick(k, st, target, attacker, stake_near);
        if (t < 0)
            t = pick(k, st, target, attacker, stake_any);
        snprintf(cmd, sizeof cmd, "{\"type\":\"counter\",\"town\":\"%s\"}", k->map.towns[t].name);
    } else if (strcmp(what, "choose_strategy") == 0) {
        snprintf(cmd, sizeof cmd, "{\"type\":\"choose_strategy\",\"strategy\":\"hidden_ambush\"}");
    } else if (strcmp(what, "tactic") == 0) {
        /* attack against attack: an open battle at once (C7's table) */
        snprintf(cmd, sizeof cmd, "{\"type\":\"tactic\",\"choice\":\"attack\"}");
    } else if (strcmp(what, "seal_ambush") == 0 && any_battle == 2) {
        return 1;               /* the battle, its Hidden Ambush Force not written down */
    } else if (strcmp(what, "seal_ambush") == 0) {
        snprintf(cmd, sizeof cmd, "{\"type\":\"seal_ambush\",\"note\":\"Light horse behind "
                 "the olive grove, %s\"}", seat);
    } else if (strcmp(what, "report") == 0) {
        if (any_battle == 1 || (any_battle == 0 && (ambusher(st) || *attacks >= MAX_ATTACKS)))
            return 1;
        /* the state changes under us: the seats are copied first */
        char a[16], d[16];
        snprintf(a, sizeof a, "%s", str(at, "attacker"));
        snprintf(d, sizeof d, "%s", str(at, "defender"));
        snprintf(cmd, sizeof cmd, "{\"type\":\"report\",\"attacker\":1000,\"defender\":1000}");
        ok0(&k->g, a, cmd);
        ok0(&k->g, d, cmd);
        return 0;
    } else {
        fail_msg("the campaign awaits %s from %s: not a command this test sends", what, seat);
    }
    ok0(&k->g, seat, cmd);
    return 0;
}

/* A campaign of p1 and p2 with a referee on the ancient world, every seat
 * claimed, a spectator joined. */
static void start_campaign(struct campaign *k, struct wt_server *s)
{
    memset(k, 0, sizeof *k);
    k->rnd = 4242;
    char path[512];
    struct wr_refusal why;
    snprintf(path, sizeof path, "%s/campaign/ancient-world.json", WARROOM_SCENARIO_DIR);
    if (wr_campaign_map_load_file(&k->map, path, &why) != 0)
        fail_msg("%s: %s", path, why.message);
    struct game *g = &k->g;
    static const char *const names[SEATS] = { "camp-p1", "camp-p2", "camp-referee",
                                              "camp-spectator" };
    for (int i = 0; i < SEATS; i++)
        g->cl[i].name = names[i];
    assert_int_equal(wt_open(&g->cl[0], names[0], s->port), 0);
    wt_send_text(&g->cl[0], "{\"type\":\"create\",\"ruleset\":\"campaign\",\"scenario\":"
                            "\"campaign/ancient-world\",\"seat\":\"p1\",\"options\":"
                            "{\"referee\":true}}");
    json_t *created = wt_expect(&g->cl[0], "created", T);
    assert_non_null(created);
    snprintf(g->id, sizeof g->id, "%s", str(created, "game"));
    snprintf(g->seat[0], sizeof g->seat[0], "p1");
    snprintf(g->token[0], sizeof g->token[0], "%s", str(created, "token"));
    g->n = 1;
    static const char *const others[2] = { "p2", "referee" };
    for (int k2 = 0; k2 < 2; k2++) {
        struct wt_client *c = &g->cl[g->n];
        assert_int_equal(wt_open(c, names[g->n], s->port), 0);
        wt_send(c, "{s:s, s:s}", "type", "claim", "invite",
                str(json_object_get(created, "invites"), others[k2]));
        json_t *claimed = wt_expect(c, "claimed", T);
        assert_non_null(claimed);
        snprintf(g->seat[g->n], sizeof g->seat[0], "%s", others[k2]);
        snprintf(g->token[g->n], sizeof g->token[0], "%s", str(claimed, "token"));
        json_decref(claimed);
        g->n++;
    }
    json_decref(created);
    g->seat[g->n][0] = '\0';
    g->n++;
    join(g, g->n - 1, s->port);
    g->version = 0;
    sync_all(g);
}

/* --- the terminal client ------------------------------------------------------------ */

/* A home for the client whose config holds seat's campaign token. */
static void cli_home(struct wt_home *h, const struct wt_server *s, const struct campaign *k,
                     const char *seat, const char *name)
{
    char path[512];
    assert_int_equal(wt_home_init(h, s->dir, name), 0);
    snprintf(path, sizeof path, "%s/.config", h->dir);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/.config/warroom", h->dir);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/.config/warroom/config.json", h->dir);
    char url[64];
    snprintf(url, sizeof url, "ws://127.0.0.1:%d/", s->port);
    json_t *cfg = json_pack("{s:s, s:{s:{s:s, s:s, s:s, s:s, s:i}}}", "server", url, "games",
                            k->g.id, "server", url, "seat", seat, "token",
                            k->g.token[seat_client(&k->g, seat)], "ruleset", "campaign", "seq",
                            0);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(json_dumpf(cfg, f, JSON_COMPACT), 0);
    fclose(f);
    chmod(path, 0600);
    json_decref(cfg);
}

/* Run the client with args in home h; its exit code, *out its stdout and
 * stderr together (caller frees). */
static int cli(const struct wt_home *h, const struct wt_server *s, char **out,
               const char *const *args)
{
    char url[64];
    snprintf(url, sizeof url, "ws://127.0.0.1:%d/", s->port);
    const char *argv[16] = { WARROOM_CLIENT_PATH, "--server", url };
    int n = 3;
    for (; args[n - 3] && n < 15; n++)
        argv[n] = args[n - 3];
    argv[n] = NULL;
    char *o = NULL, *e = NULL;
    int rc = wt_run(argv, h->env, 20000, &o, &e);
    size_t lo = o ? strlen(o) : 0, le = e ? strlen(e) : 0;
    *out = malloc(lo + le + 2);
    snprintf(*out, lo + le + 2, "%s\n%s", o ? o : "", e ? e : "");
    free(o);
    free(e);
    return rc;
}

static void cli_says(const struct wt_home *h, const struct wt_server *s, int want_rc,
                     const char *want_text, const char *const *args)
{
    char *out = NULL;
    int rc = cli(h, s, &out, args);
    if (rc != want_rc || strstr(out, want_text) == NULL)
        fail_msg("warroom %s %s: exit %d, want %d with '%s':\n%s", args[0],
                 args[1] ? args[1] : "", rc, want_rc, want_text, out);
    free(out);
}

/* --- the battle -------------------------------------------------------------------- */

/* Wait until the campaign's spectator has received an event of type whose
 * key equals value (NULL: any), in a patch or state; the event (new
 * reference). Every campaign client then reads up to that version. */
static json_t *campaign_event(struct campaign *k, const char *type, const char *key,
                              const char *value)
{
    struct wt_client *sp = spectator(&k->g);
    for (int tries = 0; tries < 1000; tries++) {
        json_t *m = wt_next(sp, T);
        if (m == NULL)
            break;
        const json_t *e = event_of(json_object_get(m, "events"), type);
        if (e && (key == NULL || (str(e, key) && strcmp(str(e, key), value) == 0))) {
            json_t *found = json_deep_copy(e);
            json_decref(m);
            k->g.version = sp->version;
            sync_all(&k->g);
            return found;
        }
        json_decref(m);
    }
    fail_msg("the campaign's spectator never received %s", type);
    return NULL;
}

static const json_t *child_entry(const json_t *st, const char *battle)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(json_object_get(st, "server"), "children"), i, c)
        if (strcmp(str(c, "game"), battle) == 0)
            return c;
    return NULL;
}

/* The battle's link as its state and the campaign's show it. */
static void link_shown(struct campaign *k, struct game *b, const char *key, const char *status)
{
    const json_t *up = json_object_get(json_object_get(spectator(b)->state, "server"), "parent");
    assert_non_null(up);
    assert_string_equal(str(up, "game"), k->g.id);
    assert_string_equal(str(up, "key"), key);
    for (int i = 0; i < k->g.n; i++) {
        const json_t *e = child_entry(k->g.cl[i].state, b->id);
        if (e == NULL)
            fail_msg("%s does not see the battle %s among the campaign's children",
                     k->g.cl[i].name, b->id);
        assert_string_equal(str(e, "ruleset"), "battle");
        assert_string_equal(str(e, "key"), key);
        assert_string_equal(str(e, "status"), status);
    }
}

static int side_models_left(const json_t *st, const char *side)
{
    return (int)json_integer_value(json_object_get(json_object_get(json_object_get(st, "sides"),
                                                                   side), "models_left"));
}

/* The battle's events of a command, checked for an ambush due: the
 * campaign shows the ambusher's note then (C16). */
static void ambush_check(struct campaign *k, const json_t *events, const char *ambush_seat,
                         int *revealed)
{
    const json_t *due = event_of(events, "ambush_due");
    if (due == NULL)
        return;
    assert_non_null(ambush_seat);
    assert_false(*revealed);
    json_t *e = campaign_event(k, "ambush_revealed", "seat", ambush_seat);
    assert_string_equal(str(e, "by"), ambush_seat);
    assert_non_null(strstr(str(e, "note"), "olive grove"));
    json_decref(e);
    const json_t *n = json_object_get(json_object_get(json_object_get(
        spectator(&k->g)->state, "attack"), "ambush"), ambush_seat);
    assert_true(json_is_true(json_object_get(n, "revealed")));
    *revealed = 1;
}

static void test_campaign_battle(void **state)
{
    (void)state;
    static struct wt_server s;
    assert_int_equal(wt_server_start(&s, server_args), 0);
    static struct campaign k;
    start_campaign(&k, &s);
    char msg[1024];

    /* 1) before any battle is arranged: the campaign refuses */
    snprintf(msg, sizeof msg, "{\"type\":\"create\",\"ruleset\":\"battle\",\"parent\":\"%s\"}",
             k.g.id);
    create_refused(&k.g.cl[0], msg, "no_battle");

    /* 2) the campaign played to a battle, one with an ambush when the dice
     *    give one within MAX_ATTACKS attacks */
    int attacks = 0, steps = 0;
    while (!campaign_step(&k, &attacks, 0))
        if (++steps > MAX_COMMANDS)
            fail_msg("no battle within %d commands", MAX_COMMANDS);
    const json_t *cst = spectator(&k.g)->state;
    assert_string_equal(str(cst, "phase"), "battle");
    const json_t *at = json_object_get(cst, "attack");
    char attacker[16], defender[16], target[64], stake[64], key[32];
    snprintf(attacker, sizeof attacker, "%s", str(at, "attacker"));
    snprintf(defender, sizeof defender, "%s", str(at, "defender"));
    snprintf(target, sizeof target, "%s", str(at, "target"));
    snprintf(stake, sizeof stake, "%s", str(at, "counter"));
    snprintf(key, sizeof key, "attack-%d", attacks);
    char ambush_seat[16] = "";
    if (ambusher(cst))
        snprintf(ambush_seat, sizeof ambush_seat, "%s", ambusher(cst));
    else
        fprintf(stderr, "test_campaign_battle: no Hidden Ambush Force in %d attacks on this "
                "seed: the battle is played without one (ambush_due -> reveal_ambush is "
                "tested in test_campaign_link)\n", attacks);
    const char *ambush_side = !ambush_seat[0] ? NULL
                            : strcmp(ambush_seat, attacker) == 0 ? "p1" : "p2";

    /* 3) refusals: another ruleset, a bad parent, no member, a spectator */
    int ai = seat_client(&k.g, attacker);
    snprintf(msg, sizeof msg, "{\"type\":\"create\",\"ruleset\":\"tictactoe\",\"parent\":\"%s\"}",
             k.g.id);
    create_refused(&k.g.cl[ai], msg, "battle_ruleset");
    create_refused(&k.g.cl[ai], "{\"type\":\"create\",\"ruleset\":\"battle\",\"parent\":"
                                "\"g-nosuchgame\"}", "no_such_game");
    snprintf(msg, sizeof msg, "{\"type\":\"create\",\"ruleset\":\"battle\",\"parent\":\"%s\"}",
             k.g.id);
    struct wt_client stranger;
    assert_int_equal(wt_open(&stranger, "stranger", s.port), 0);
    create_refused(&stranger, msg, "not_joined");
    create_refused(spectator(&k.g), msg, "spectator");

    /* 4) the attacker makes the battle game: its seats held by the
     *    campaign's players, running at once */
    snprintf(msg, sizeof msg, "{\"type\":\"create\",\"ruleset\":\"battle\",\"parent\":\"%s\","
             "\"options\":{\"p1_elephants\":\"know\",\"points\":50}}", k.g.id);
    wt_send_text(&k.g.cl[ai], msg);
    json_t *created = wt_expect(&k.g.cl[ai], "created", T);
    if (created == NULL) {
        json_t *e = wt_expect(&k.g.cl[ai], "error", 10);
        fail_msg("the battle was refused: %s %s", e ? str(e, "code") : "-",
                 e ? str(e, "message") : "");
    }
    assert_string_equal(str(created, "seat"), "p1");
    assert_null(json_object_get(created, "token"));
    assert_int_equal((int)json_object_size(json_object_get(created, "invites")), 0);
    assert_string_equal(str(json_object_get(created, "parent"), "game"), k.g.id);
    assert_string_equal(str(json_object_get(created, "parent"), "key"), key);
    static struct game b;
    memset(&b, 0, sizeof b);
    snprintf(b.id, sizeof b.id, "%s", str(created, "game"));
    json_decref(created);
    /* the campaign's members see the new child, running (a full state) */
    json_decref(wt_expect(spectator(&k.g), "state", T));
    for (int i = 0; i < k.g.n; i++) {
        wt_drain(&k.g.cl[i], 50);
        clear_backlog(&k.g.cl[i]);
    }

    /* 5) a second battle for the same attack: refused, by either side */
    int di = seat_client(&k.g, defender);
    create_refused(&k.g.cl[di], msg, "child_exists");
    create_refused(&k.g.cl[ai], msg, "child_exists");

    /* 6) everyone joins the battle: each seat with its campaign token */
    static const char *const bnames[SEATS] = { "battle-p1", "battle-p2", "battle-referee",
                                               "battle-spectator" };
    const char *holders[3] = { attacker, defender, "referee" };
    static const char *const bseats[3] = { "p1", "p2", "referee" };
    for (int i = 0; i < 3; i++) {
        snprintf(b.seat[i], sizeof b.seat[i], "%s", bseats[i]);
        snprintf(b.token[i], sizeof b.token[i], "%s", k.g.token[seat_client(&k.g, holders[i])]);
    }
    b.seat[3][0] = '\0';
    b.n = 4;
    for (int i = 0; i < b.n; i++) {
        b.cl[i].name = bnames[i];
        join(&b, i, s.port);
    }
    sync_all(&b);
    const json_t *bst = spectator(&b)->state;
    assert_string_equal(str(json_object_get(bst, "server"), "status"), "running");
    assert_int_equal(json_integer_value(json_object_get(bst, "points")), 1000);  /* the campaign's */
    const json_t *desc = json_object_get(bst, "campaign");
    assert_string_equal(str(desc, "attacker"), attacker);
    assert_string_equal(str(desc, "defender"), defender);
    assert_string_equal(str(desc, "target"), target);
    assert_int_equal(json_integer_value(json_object_get(desc, "attack")), attacks);
    if (ambush_side)
        assert_string_equal(str(json_object_get(bst, "ambush"), ambush_side), "waiting");
    link_shown(&k, &b, key, "running");

    /* 6b) the terminal client: a second battle refused, the link shown */
    struct wt_home hd, ha;
    cli_home(&hd, &s, &k, defender, "home-defender");
    cli_home(&ha, &s, &k, attacker, "home-attacker");
    cli_says(&hd, &s, 1, "child_exists",
             (const char *const[]){ "create", "battle", "--parent", k.g.id, NULL });
    char part[160], played[160];
    snprintf(part, sizeof part, "part of game %s: %s", k.g.id, key);
    snprintf(played, sizeof played, "%s is played as game %s (battle, running", key, b.id);
    cli_says(&hd, &s, 0, part, (const char *const[]){ "status", b.id, NULL });
    cli_says(&hd, &s, 0, played, (const char *const[]){ "status", k.g.id, NULL });

    /* 7) sealed rosters */
    static struct sealed sealed = { "p1", { "Spears-k7", "Archers-k7" }, 1, 0, { 0 }, "", NULL };
    sealed.g = &b;
    for (int i = 0; i < b.n; i++) {
        b.cl[i].on_text = scan_roster;
        b.cl[i].on_text_ctx = &sealed;
    }
    ok0(&b, "p1", "{\"type\":\"roster\",\"last\":true,\"units\":["
                  "{\"name\":\"Spears-k7\",\"kind\":\"infantry\",\"models\":20,\"files\":5,"
                  "\"ranks\":4,\"points\":300,\"general\":true},"
                  "{\"name\":\"Archers-k7\",\"kind\":\"infantry\",\"models\":10,\"points\":100}]}");
    for (int i = 1; i < b.n; i++)
        assert_null(json_object_get(json_object_get(json_object_get(b.cl[i].state, "sides"),
                                                    "p1"), "units"));
    assert_true(sealed.scanned > 0);
    if (sealed.leak[0])
        fail_msg("%s", sealed.leak);
    sealed.live = 0;
    ok0(&b, "p2", "{\"type\":\"roster\",\"last\":true,\"units\":["
                  "{\"name\":\"Hoplites\",\"kind\":\"infantry\",\"models\":20,\"files\":5,"
                  "\"ranks\":4,\"points\":400,\"general\":true},"
                  "{\"name\":\"Slingers\",\"kind\":\"skirmishers\",\"models\":8,\"points\":80}]}");
    for (int i = 1; i < b.n; i++)
        if (!sealed.seen[i])
            fail_msg("%s never received p1's units once both rosters were in", b.cl[i].name);
    for (int i = 0; i < b.n; i++)
        b.cl[i].on_text = NULL;

    /* 8) the start; the ambush of the first side is due at once */
    int revealed = 0;
    json_t *ev = ok(&b, "p1", "{\"type\":\"start\"}");
    assert_non_null(event_of(ev, "started"));
    ambush_check(&k, ev, ambush_seat, &revealed);
    json_decref(ev);
    char first[8], second[8];
    snprintf(first, sizeof first, "%s", str(spectator(&b)->state, "player"));
    snprintf(second, sizeof second, "%s", strcmp(first, "p1") == 0 ? "p2" : "p1");
    const char *first_unit = strcmp(first, "p1") == 0 ? "Spears-k7" : "Hoplites";

    /* 9) a fact stated, disputed, settled by the referee */
    char cmd[256];
    snprintf(cmd, sizeof cmd, "{\"type\":\"fact\",\"unit\":\"%s\",\"fact\":\"terrain\","
             "\"value\":\"hill\"}", first_unit);
    ok0(&b, first, cmd);
    snprintf(cmd, sizeof cmd, "{\"type\":\"dispute\",\"unit\":\"%s\",\"fact\":\"terrain\"}",
             first_unit);
    ok0(&b, second, cmd);
    assert_true(json_is_object(json_object_get(spectator(&b)->state, "dispute")));

    /* 10) the server dies mid-battle; after the restart both games and
     *     their link are back */
    int st = wt_server_stop(&s, SIGKILL, 10000);
    assert_true(st >= 0 && WIFSIGNALED(st));
    assert_int_equal(wt_server_restart(&s, server_args), 0);
    long long bv = b.version, cv = k.g.version;
    for (int i = 0; i < b.n; i++)
        wt_close(&b.cl[i]);
    for (int i = 0; i < k.g.n; i++)
        wt_close(&k.g.cl[i]);
    wt_close(&stranger);
    for (int i = 0; i < b.n; i++)
        join(&b, i, s.port);
    for (int i = 0; i < k.g.n; i++)
        join(&k.g, i, s.port);
    assert_int_equal(b.version, bv);
    assert_int_equal(k.g.version, cv);
    sync_all(&b);
    sync_all(&k.g);
    link_shown(&k, &b, key, "running");
    assert_true(json_is_object(json_object_get(spectator(&b)->state, "dispute")));
    create_refused(&k.g.cl[di], msg, "child_exists");

    ev = ok(&b, "referee", "{\"type\":\"settle\",\"stands\":true}");
    const json_t *settled = event_of(ev, "settled");
    assert_non_null(settled);
    assert_string_equal(str(settled, "by"), "referee");
    json_decref(ev);

    /* 11) an Ld test, rolled by the server */
    snprintf(cmd, sizeof cmd, "{\"type\":\"test\",\"unit\":\"%s\",\"test\":\"ld\",\"target\":7}",
             first_unit);
    ev = ok(&b, first, cmd);
    const json_t *test = event_of(ev, "test");
    assert_non_null(test);
    int sum = 0;
    size_t fi;
    json_t *face;
    json_array_foreach(json_object_get(test, "faces"), fi, face) {
        assert_true(json_integer_value(face) >= 1 && json_integer_value(face) <= 6);
        sum += (int)json_integer_value(face);
    }
    assert_true(json_array_size(json_object_get(test, "faces")) >= 2);
    assert_int_equal(json_is_true(json_object_get(test, "passed")), sum <= 7);
    json_decref(ev);

    /* 12) casualties to p2's army, over two player turns, to its break
     *     point (a quarter of 28 models: 7) */
    ok0(&b, first, "{\"type\":\"casualties\",\"unit\":\"Hoplites\",\"wounds\":10}");
    assert_int_equal(side_models_left(spectator(&b)->state, "p2"), 18);
    ev = ok(&b, first, "{\"type\":\"end_turn\"}");
    ambush_check(&k, ev, ambush_seat, &revealed);
    json_decref(ev);
    assert_string_equal(str(spectator(&b)->state, "player"), second);
    assert_string_equal(str(spectator(&b)->state, "phase"), "play");
    if (ambush_side)
        assert_true(revealed);      /* each side has had its first player turn */
    ok0(&b, second, "{\"type\":\"casualties\",\"unit\":\"Hoplites\",\"wounds\":4}");
    ok0(&b, second, "{\"type\":\"casualties\",\"unit\":\"Slingers\",\"wounds\":7}");
    assert_int_equal(side_models_left(spectator(&b)->state, "p2"), 7);
    ev = ok(&b, second, "{\"type\":\"end_turn\"}");
    const json_t *over = event_of(ev, "battle_over");
    assert_non_null(over);
    assert_string_equal(str(over, "result"), "p1");
    json_decref(ev);
    assert_string_equal(str(spectator(&b)->state, "phase"), "victory");

    /* 13) both sides report the same points: the campaign applies them */
    snprintf(cmd, sizeof cmd, "{\"type\":\"victory_points\",\"p1\":%d,\"p2\":%d}", VP_ATTACKER,
             VP_DEFENDER);
    ok0(&b, "p1", cmd);
    ev = ok(&b, "p2", cmd);
    const json_t *agreed = event_of(ev, "victory_points_agreed");
    assert_non_null(agreed);
    assert_int_equal(json_integer_value(json_object_get(agreed, "p1")), VP_ATTACKER);
    json_decref(ev);
    json_t *res = campaign_event(&k, "battle_result", NULL, NULL);
    int margin = VP_ATTACKER > VP_DEFENDER ? VP_ATTACKER - VP_DEFENDER : VP_DEFENDER - VP_ATTACKER;
    int change = margin >= 250;
    assert_int_equal(json_integer_value(json_object_get(res, "attacker")), VP_ATTACKER);
    assert_int_equal(json_integer_value(json_object_get(res, "defender")), VP_DEFENDER);
    assert_int_equal(json_integer_value(json_object_get(res, "margin")), margin);
    assert_int_equal(json_is_true(json_object_get(res, "towns_change")), change);
    json_decref(res);
    cst = spectator(&k.g)->state;
    const json_t *towns = json_object_get(cst, "towns");
    const char *winner = VP_ATTACKER > VP_DEFENDER ? attacker : defender;
    assert_string_equal(str(towns, target), change && winner == attacker ? attacker : defender);
    assert_string_equal(str(towns, stake), change && winner == defender ? defender : attacker);
    assert_string_not_equal(str(cst, "phase"), "battle");
    const json_t *last = json_array_get(json_object_get(cst, "history"),
                                        json_array_size(json_object_get(cst, "history")) - 1);
    assert_int_equal(json_integer_value(json_object_get(last, "attack")), attacks);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(last, "vp"), "attacker")),
                     VP_ATTACKER);

    /* 14) the battle is over; the campaign shows it finished, won by p1 */
    assert_string_equal(str(json_object_get(spectator(&b)->state, "server"), "status"),
                        "finished");
    const json_t *entry = child_entry(spectator(&k.g)->state, b.id);
    assert_non_null(entry);
    assert_string_equal(str(entry, "status"), "finished");
    assert_string_equal(str(entry, "result"), "p1");
    create_refused(&k.g.cl[ai], msg, "no_battle");
    cli_says(&ha, &s, 1, "no_battle",
             (const char *const[]){ "create", "battle", "--parent", k.g.id, NULL });

    /* 15) the battle's spectator followed every patch and holds what a
     *     fresh spectator is sent */
    struct wt_client *bs = spectator(&b);
    assert_true(bs->patches > 0);
    assert_int_equal(bs->bad_patches, 0);
    struct wt_client fresh;
    assert_int_equal(wt_open(&fresh, "fresh", s.port), 0);
    wt_send(&fresh, "{s:s, s:s, s:b}", "type", "join", "game", b.id, "spectate", 1);
    json_t *fst = wt_expect(&fresh, "state", T);
    assert_non_null(fst);
    assert_true(json_equal(json_object_get(fst, "state"), bs->state));
    json_decref(fst);
    wt_close(&fresh);

    /* 16) the campaign's next battle, made with the terminal client by its
     *     attacker: the client joins the campaign with the saved token, and
     *     the battle's seat is held with that token too */
    steps = 0;
    while (!campaign_step(&k, &attacks, 1))
        if (++steps > MAX_COMMANDS)
            fail_msg("no second battle within %d commands", MAX_COMMANDS);
    at = json_object_get(spectator(&k.g)->state, "attack");
    struct wt_home h2;
    cli_home(&h2, &s, &k, str(at, "attacker"), "home-second");
    char *out = NULL;
    int rc = cli(&h2, &s, &out, (const char *const[]){ "--json", "create", "battle", "--parent",
                                                        k.g.id, NULL });
    if (rc != 0)
        fail_msg("warroom create battle --parent: exit %d:\n%s", rc, out);
    json_t *ans = json_loads(out, JSON_DISABLE_EOF_CHECK, NULL);
    free(out);
    assert_non_null(ans);
    assert_string_equal(str(ans, "type"), "created");
    assert_null(json_object_get(ans, "token"));
    snprintf(key, sizeof key, "attack-%d", attacks);
    assert_string_equal(str(json_object_get(ans, "parent"), "key"), key);
    char second_battle[32];
    snprintf(second_battle, sizeof second_battle, "%s", str(ans, "game"));
    json_decref(ans);
    cli_says(&h2, &s, 0, "you hold the p1 seat",
             (const char *const[]){ "status", second_battle, NULL });
    /* the defender's client, which only has its campaign seat, finds the
     *     battle's seat through the link, keeps it, and plays it */
    struct wt_home h3;
    cli_home(&h3, &s, &k, str(at, "defender"), "home-second-defender");
    cli_says(&h3, &s, 0, "you hold the p2 seat",
             (const char *const[]){ "status", second_battle, NULL });
    cli_says(&h3, &s, 0, "",
             (const char *const[]){ "do", "--no-check", second_battle,
                                    "{\"type\":\"roster\",\"last\":true,\"units\":[{\"name\":"
                                    "\"Guard\",\"kind\":\"infantry\",\"models\":12}]}", NULL });
    /* `do` exits once the command is acknowledged: a fresh spectator sees it */
    struct wt_client w;
    assert_int_equal(wt_open(&w, "watcher", s.port), 0);
    wt_send(&w, "{s:s, s:s, s:b}", "type", "join", "game", second_battle, "spectate", 1);
    json_t *ws = wt_expect(&w, "state", T);
    assert_non_null(ws);
    assert_true(json_is_true(json_object_get(json_object_get(json_object_get(
        json_object_get(ws, "state"), "sides"), "p2"), "in")));
    json_decref(ws);
    wt_close(&w);

    for (int i = 0; i < b.n; i++)
        wt_close(&b.cl[i]);
    for (int i = 0; i < k.g.n; i++)
        wt_close(&k.g.cl[i]);
    st = wt_server_stop(&s, SIGTERM, 10000);
    wt_server_cleanup(&s);
    assert_true(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* A command the campaign refuses from its battle's events: the battle's
 * agreed points while a Hidden Ambush Force is not written down (C12's
 * ambush_note_missing). Nothing changes in the campaign, the battle says
 * so in server.parent.refused, and the campaign goes on by hand. */
static void test_parent_refuses(void **state)
{
    (void)state;
    static struct wt_server s;
    assert_int_equal(wt_server_start(&s, server_args), 0);
    static struct campaign k;
    start_campaign(&k, &s);
    int attacks = 0, steps = 0;
    while (!campaign_step(&k, &attacks, 2))
        if (++steps > MAX_COMMANDS)
            fail_msg("no battle within %d commands", MAX_COMMANDS);
    if (attacks > MAX_ATTACKS * 2)
        fail_msg("no Hidden Ambush Force in %d attacks", attacks);
    const json_t *at = json_object_get(spectator(&k.g)->state, "attack");
    char attacker[16], defender[16], writer[16] = "";
    snprintf(attacker, sizeof attacker, "%s", str(at, "attacker"));
    snprintf(defender, sizeof defender, "%s", str(at, "defender"));
    const char *seat;
    json_t *aw;
    json_object_foreach(json_object_get(json_object_get(spectator(&k.g)->state, "server"),
                                        "awaiting"), seat, aw)
        if (strcmp(json_string_value(aw), "seal_ambush") == 0)
            snprintf(writer, sizeof writer, "%s", seat);
    assert_true(writer[0] != '\0');
    long long before = k.g.version;

    /* the battle, ended at once by agreement, its points agreed */
    int ai = seat_client(&k.g, attacker);
    char msg[512];
    snprintf(msg, sizeof msg, "{\"type\":\"create\",\"ruleset\":\"battle\",\"parent\":\"%s\"}",
             k.g.id);
    wt_send_text(&k.g.cl[ai], msg);
    json_t *created = wt_expect(&k.g.cl[ai], "created", T);
    assert_non_null(created);
    static struct game b;
    memset(&b, 0, sizeof b);
    snprintf(b.id, sizeof b.id, "%s", str(created, "game"));
    json_decref(created);
    const json_t *amb = json_object_get(json_object_get(json_object_get(
        spectator(&k.g)->state, "attack"), "ambush"), writer);
    assert_false(json_is_true(json_object_get(amb, "sealed")));
    static const char *const bnames[SEATS] = { "b-p1", "b-p2", "b-referee", "b-spectator" };
    const char *holders[3] = { attacker, defender, "referee" };
    static const char *const bseats[3] = { "p1", "p2", "referee" };
    for (int i = 0; i < 3; i++) {
        snprintf(b.seat[i], sizeof b.seat[i], "%s", bseats[i]);
        snprintf(b.token[i], sizeof b.token[i], "%s", k.g.token[seat_client(&k.g, holders[i])]);
    }
    b.n = 4;
    for (int i = 0; i < b.n; i++) {
        b.cl[i].name = bnames[i];
        join(&b, i, s.port);
    }
    sync_all(&b);
    /* a note not sealed when the battle is made: no ambush in it (C16) */
    assert_int_equal((int)json_object_size(json_object_get(spectator(&b)->state, "ambush")), 0);
    ok0(&b, "p1", "{\"type\":\"roster\",\"last\":true,\"units\":[{\"name\":\"Cavalry\","
                  "\"kind\":\"cavalry\",\"models\":10}]}");
    ok0(&b, "p2", "{\"type\":\"roster\",\"last\":true,\"units\":[{\"name\":\"Warband\","
                  "\"kind\":\"infantry\",\"models\":30}]}");
    ok0(&b, "p1", "{\"type\":\"start\"}");
    ok0(&b, "p1", "{\"type\":\"offer_end\",\"result\":\"draw\"}");
    ok0(&b, "p2", "{\"type\":\"accept_end\"}");
    assert_string_equal(str(spectator(&b)->state, "phase"), "victory");
    ok0(&b, "p1", "{\"type\":\"victory_points\",\"p1\":1500,\"p2\":900}");
    ok0(&b, "p2", "{\"type\":\"victory_points\",\"p1\":1500,\"p2\":900}");

    /* the campaign refused both reports: the battle names it in a full
     *     state after its last patch */
    const char *why = NULL;
    for (int tries = 0; tries < 100; tries++) {
        const json_t *up = json_object_get(json_object_get(spectator(&b)->state, "server"),
                                           "parent");
        if ((why = str(up, "refused")) != NULL)
            break;
        json_t *m = wt_next(spectator(&b), T);
        if (m == NULL)
            break;
        json_decref(m);
    }
    if (why == NULL || strstr(why, "ambush_note_missing") == NULL || strstr(why, k.g.id) == NULL
        || strstr(why, "report") == NULL)
        fail_msg("the battle does not name the refused report: %s", why ? why : "(nothing)");
    /* ... and nothing changed in the campaign: the state that shows its
     *     battle finished (sent in the same flush as any command the
     *     battle's end would have given it, and after them) is still at
     *     the version of before */
    const json_t *entry = NULL;
    for (int tries = 0; tries < 100; tries++) {
        entry = child_entry(spectator(&k.g)->state, b.id);
        if (entry && strcmp(str(entry, "status"), "finished") == 0)
            break;
        json_t *m = wt_next(spectator(&k.g), T);
        if (m == NULL)
            break;
        json_decref(m);
    }
    assert_non_null(entry);
    assert_string_equal(str(entry, "status"), "finished");
    assert_int_equal(spectator(&k.g)->version, before);
    assert_string_equal(str(spectator(&k.g)->state, "phase"), "battle");
    assert_string_equal(str(json_object_get(spectator(&b)->state, "server"), "status"),
                        "finished");
    k.g.version = before;
    sync_all(&k.g);

    /* the campaign goes on by hand: the note, then both reports */
    ok0(&k.g, writer, "{\"type\":\"seal_ambush\",\"note\":\"late\"}");
    ok0(&k.g, attacker, "{\"type\":\"report\",\"attacker\":1500,\"defender\":900}");
    json_t *ev = ok(&k.g, defender, "{\"type\":\"report\",\"attacker\":1500,\"defender\":900}");
    const json_t *res = event_of(ev, "battle_result");
    assert_non_null(res);
    assert_true(json_is_true(json_object_get(res, "towns_change")));
    json_decref(ev);

    for (int i = 0; i < b.n; i++)
        wt_close(&b.cl[i]);
    for (int i = 0; i < k.g.n; i++)
        wt_close(&k.g.cl[i]);
    int st = wt_server_stop(&s, SIGTERM, 10000);
    wt_server_cleanup(&s);
    assert_true(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_campaign_battle),
        cmocka_unit_test(test_parent_refuses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
