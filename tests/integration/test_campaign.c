#define _GNU_SOURCE
/*
 * test_campaign.c - the campaign ruleset hosted by the real warroomd,
 * driven over websockets by one client per seat and a spectator:
 *
 * - create refusals: bad and unknown options, a map that is not a campaign;
 * - sealed choices on the wire: while one side's commitment, salt, tactic
 *   or ambush note is sealed, every frame every other seat, the referee and
 *   a spectator receive is scanned for it (and for any "choice" at all),
 *   the answers of their own views to `ask` (draw, describe, events)
 *   included;
 *   once both choices are in, each of them must have received it (so the
 *   scan is known to see what it looks for); the record cannot be exported
 *   while the game runs;
 * - a 3-player campaign with a referee played to its end: the test reads
 *   "awaiting" from the state to know who acts and what, chooses legal
 *   moves from the map and the state, commits some tactics, disputes one
 *   result for the referee to settle; at the end every client holds the
 *   same state, and the exported record's rolls are numbered 0, 1, 2, ...
 *   and are the ones the revealed seed gives;
 * - a sealed choice that survives the server being killed and restarted:
 *   still its owner's alone, and the round completes.
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
#include <sys/wait.h>

#include "campaign.h"
#include "campaign_map.h"
#include "dice.h"
#include "proc.h"
#include "wsclient.h"

#ifndef WARROOM_SCENARIO_DIR
#error "WARROOM_SCENARIO_DIR must be defined by the build"
#endif

#define T 5000              /* ms to wait for any one answer */
#define MAX_CLIENTS 10      /* 8 players, a referee, a spectator */
#define MAX_SECRETS 32
#define CREATE_ANCIENT "{\"type\":\"create\",\"ruleset\":\"campaign\"," \
                       "\"scenario\":\"campaign/ancient-world\","

static const char *const server_args[] = { "--scenarios", WARROOM_SCENARIO_DIR, NULL };

static int setup(void **state)
{
    return wt_group_start(state, server_args);
}

static const char *str(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* --- a game with one client per seat and a spectator, all scanned ------------- */

enum secret_state { S_FREE, S_LIVE, S_REVEALED };

/* Something one seat sent sealed: a salt, a commitment or a note. */
struct secret {
    enum secret_state state;
    char owner[16];
    char text[WR_CAMPAIGN_NOTE_MAX + 1];
    int tactic;                         /* a tactic's salt or commitment: "choice" is sealed too */
    int seen[MAX_CLIENTS];              /* received by client i since it was revealed */
};

struct game {
    char id[32];
    int n;                              /* clients: the seats, then the spectator */
    struct wt_client cl[MAX_CLIENTS];
    char seat[MAX_CLIENTS][16];         /* "" for the spectator */
    char token[MAX_CLIENTS][80];        /* seat tokens, to join again after a restart */
    int seq[MAX_CLIENTS];
    long long version;
    struct wr_campaign_map map;
    struct secret secrets[MAX_SECRETS];
    int scanned;                        /* frames scanned while something was sealed */
    int choice_scanned;                 /* ... while a tactic was sealed from the receiver */
    char leak[512];                     /* the first leak found, or "" */
    json_t *last_events[MAX_CLIENTS];   /* the events of the last patch client i received */
    unsigned rnd;
};

static int client_index(const struct game *g, const struct wt_client *c)
{
    return (int)(c - g->cl);
}

/* Every frame any client receives passes here. */
static void scan(struct wt_client *c, const char *text, size_t len)
{
    struct game *g = c->on_text_ctx;
    int i = client_index(g, c);
    const char *me = g->seat[i];
    int live = 0, own_tactic = 0, others_tactic = 0;
    for (int k = 0; k < MAX_SECRETS; k++) {
        struct secret *s = &g->secrets[k];
        if (s->state == S_FREE)
            continue;
        int hit = memmem(text, len, s->text, strlen(s->text)) != NULL;
        int mine = strcmp(s->owner, me) == 0;
        if (s->state == S_REVEALED) {
            s->seen[i] |= hit;
            continue;
        }
        if (mine) {
            own_tactic |= s->tactic;
            continue;
        }
        live = 1;
        others_tactic |= s->tactic;
        if (hit && g->leak[0] == '\0')
            snprintf(g->leak, sizeof g->leak, "%s received %s's sealed '%.60s' in: %.300s",
                     me[0] ? me : "the spectator", s->owner, s->text, text);
    }
    g->scanned += live;
    if (memmem(text, len, "\"type\":\"patch\"", strlen("\"type\":\"patch\""))) {
        json_t *m = json_loadb(text, len, 0, NULL);
        json_decref(g->last_events[i]);
        g->last_events[i] = json_incref(json_object_get(m, "events"));
        json_decref(m);
    }
    /* While another side's tactic is sealed (and the receiver has none of
     * its own sealed, which its own messages would show), no frame may
     * carry a choice at all: no round has been revealed since. */
    if (others_tactic && !own_tactic) {
        g->choice_scanned++;
        if (memmem(text, len, "\"choice\"", 8) && g->leak[0] == '\0')
            snprintf(g->leak, sizeof g->leak, "%s received a choice while one was sealed: %.300s",
                     me[0] ? me : "the spectator", text);
    }
}

static void no_leak(const struct game *g)
{
    if (g->leak[0])
        fail_msg("%s", g->leak);
}

static struct secret *seal(struct game *g, const char *owner, const char *text, int tactic)
{
    for (int k = 0; k < MAX_SECRETS; k++) {
        struct secret *s = &g->secrets[k];
        if (s->state != S_FREE)
            continue;
        memset(s, 0, sizeof *s);
        s->state = S_LIVE;
        s->tactic = tactic;
        snprintf(s->owner, sizeof s->owner, "%s", owner);
        snprintf(s->text, sizeof s->text, "%s", text);
        return s;
    }
    fail_msg("too many secrets");
    return NULL;
}

/* The next command reveals the live secrets of kind `tactic` (or notes):
 * from now on they may be seen. Every client has read everything sent
 * before, so everything scanned so far was scanned while they were live. */
static void unseal(struct game *g, int tactic)
{
    for (int k = 0; k < MAX_SECRETS; k++)
        if (g->secrets[k].state == S_LIVE && g->secrets[k].tactic == tactic)
            g->secrets[k].state = S_REVEALED;
}

/* Every client but the owner must have received each revealed secret
 * (proof that the scan sees what it looks for); then they are done. */
static void check_revealed(struct game *g)
{
    for (int k = 0; k < MAX_SECRETS; k++) {
        struct secret *s = &g->secrets[k];
        if (s->state != S_REVEALED)
            continue;
        for (int i = 0; i < g->n; i++)
            if (strcmp(g->seat[i], s->owner) != 0 && !s->seen[i])
                fail_msg("%s never received %s's revealed '%s'",
                         g->seat[i][0] ? g->seat[i] : "the spectator", s->owner, s->text);
        s->state = S_FREE;
    }
}

static int seat_client(const struct game *g, const char *seat)
{
    for (int i = 0; i < g->n; i++)
        if (strcmp(g->seat[i], seat) == 0)
            return i;
    fail_msg("no client for seat %s", seat);
    return -1;
}

/* Every client reads up to the game's version; the messages are tracked
 * (and scanned) and the backlog emptied. */
static void sync_all(struct game *g)
{
    for (int i = 0; i < g->n; i++) {
        struct wt_client *c = &g->cl[i];
        if (wt_wait_version(c, g->version, T) != 0)
            fail_msg("%s did not reach version %lld", c->name, g->version);
        for (int k = 0; k < c->nbacklog; k++)
            json_decref(c->backlog[k]);
        c->nbacklog = 0;
        if (c->bad_patches)
            fail_msg("%s: a patch did not apply", c->name);
    }
    no_leak(g);
}

static void send_cmd(struct game *g, int i, const char *cmd_text)
{
    char text[2048];
    snprintf(text, sizeof text, "{\"type\":\"command\",\"game\":\"%s\",\"seq\":%d,\"cmd\":%s}",
             g->id, ++g->seq[i], cmd_text);
    wt_send_text(&g->cl[i], text);
}

/* Send a command from seat; it must be acknowledged. */
static void ok(struct game *g, const char *seat, const char *cmd_text)
{
    int i = seat_client(g, seat);
    send_cmd(g, i, cmd_text);
    json_t *ack = wt_expect(&g->cl[i], "ack", T);
    if (ack == NULL) {
        json_t *e = wt_expect(&g->cl[i], "error", 10);
        fail_msg("%s: %s refused: %s %s", seat, cmd_text, e ? str(e, "code") : "(no answer)",
                 e ? str(e, "message") : "");
    }
    g->version = json_integer_value(json_object_get(ack, "version"));
    json_decref(ack);
    sync_all(g);
}

static void refused(struct game *g, const char *seat, const char *cmd_text, const char *code)
{
    int i = seat_client(g, seat);
    send_cmd(g, i, cmd_text);
    json_t *e = wt_expect(&g->cl[i], "error", T);
    if (e == NULL)
        fail_msg("%s: %s was not refused", seat, cmd_text);
    if (strcmp(str(e, "code"), code) != 0)
        fail_msg("%s: %s gave %s (%s), want %s", seat, cmd_text, str(e, "code"),
                 str(e, "message"), code);
    json_decref(e);
}

/* The state the spectator holds: the public view. */
static json_t *public_state(struct game *g)
{
    return g->cl[g->n - 1].state;
}

/* Create a campaign on map with options; every seat claimed, a spectator
 * joined, all clients scanned from the start of the game. */
static void start_game(struct game *g, struct wt_server *s, const char *map, const char *options)
{
    memset(g, 0, sizeof *g);
    g->rnd = 12345;
    char path[512];
    struct wr_refusal why;
    snprintf(path, sizeof path, "%s/campaign/%s.json", WARROOM_SCENARIO_DIR, map);
    if (wr_campaign_map_load_file(&g->map, path, &why) != 0)
        fail_msg("%s: %s", path, why.message);
    static const char *const names[MAX_CLIENTS] = { "p1", "p2", "p3", "p4", "p5", "p6", "p7",
                                                    "p8", "c9", "c10" };
    assert_int_equal(wt_open(&g->cl[0], names[0], s->port), 0);
    g->cl[0].on_text = scan;
    g->cl[0].on_text_ctx = g;
    char create[1024], scen[128];
    snprintf(scen, sizeof scen, "campaign/%s", map);
    snprintf(create, sizeof create, "{\"type\":\"create\",\"ruleset\":\"campaign\","
             "\"scenario\":\"%s\",\"seat\":\"p1\",\"options\":%s}", scen, options);
    wt_send_text(&g->cl[0], create);
    json_t *created = wt_expect(&g->cl[0], "created", T);
    if (created == NULL) {
        json_t *e = wt_expect(&g->cl[0], "error", 10);
        fail_msg("create refused: %s", e ? str(e, "message") : "(no answer)");
    }
    snprintf(g->id, sizeof g->id, "%s", str(created, "game"));
    snprintf(g->seat[0], sizeof g->seat[0], "p1");
    snprintf(g->token[0], sizeof g->token[0], "%s", str(created, "token"));
    g->n = 1;
    const char *key;
    json_t *inv;
    json_object_foreach(json_object_get(created, "invites"), key, inv) {
        struct wt_client *c = &g->cl[g->n];
        assert_int_equal(wt_open(c, names[g->n], s->port), 0);
        c->name = g->seat[g->n];
        snprintf(g->seat[g->n], sizeof g->seat[0], "%s", key);
        c->on_text = scan;
        c->on_text_ctx = g;
        wt_send(c, "{s:s, s:s}", "type", "claim", "invite", json_string_value(inv));
        json_t *claimed = wt_expect(c, "claimed", T);
        assert_non_null(claimed);
        assert_string_equal(str(claimed, "seat"), key);
        snprintf(g->token[g->n], sizeof g->token[0], "%s", str(claimed, "token"));
        json_decref(claimed);
        g->n++;
    }
    json_decref(created);
    struct wt_client *sp = &g->cl[g->n];
    assert_int_equal(wt_open(sp, "spectator", s->port), 0);
    sp->on_text = scan;
    sp->on_text_ctx = g;
    g->seat[g->n][0] = '\0';
    g->n++;
    wt_send(sp, "{s:s, s:s, s:b}", "type", "join", "game", g->id, "spectate", 1);
    json_t *st = wt_expect(sp, "state", T);
    assert_non_null(st);
    assert_string_equal(str(st, "status"), "running");
    json_decref(st);
    g->version = 0;
    sync_all(g);
}

/* After a restart: every client connects and joins again (seats with
 * their tokens), scanned as before. */
static void rejoin(struct game *g, struct wt_server *s)
{
    for (int i = 0; i < g->n; i++) {
        struct wt_client *c = &g->cl[i];
        const char *name = c->name;
        assert_int_equal(wt_open(c, name, s->port), 0);
        c->on_text = scan;
        c->on_text_ctx = g;
        if (g->seat[i][0])
            wt_send(c, "{s:s, s:s, s:s}", "type", "join", "game", g->id, "token", g->token[i]);
        else
            wt_send(c, "{s:s, s:s, s:b}", "type", "join", "game", g->id, "spectate", 1);
        json_t *st = wt_expect(c, "state", T);
        if (st == NULL)
            fail_msg("%s could not join again", name);
        g->version = json_integer_value(json_object_get(st, "version"));
        json_decref(st);
    }
    sync_all(g);
}

static void end_game(struct game *g)
{
    for (int i = 0; i < g->n; i++) {
        wt_close(&g->cl[i]);
        json_decref(g->last_events[i]);
        g->last_events[i] = NULL;
    }
}

/* Every client but owner's asks its own view of the game (server/ask.h)
 * for the picture, the decision panel and its last patch's events in
 * words: each answer is scanned like every other frame (scan), while
 * owner's choice is sealed. */
static void ask_all(struct game *g, const char *owner)
{
    int before = g->scanned, asked = 0;
    for (int i = 0; i < g->n; i++) {
        if (strcmp(g->seat[i], owner) == 0)
            continue;
        struct wt_client *c = &g->cl[i];
        json_t *evs = g->last_events[i] ? g->last_events[i] : json_array();
        assert_true(json_array_size(evs) > 0);
        wt_send(c, "{s:s, s:s, s:s}", "type", "ask", "game", g->id, "what", "draw");
        wt_send(c, "{s:s, s:s, s:s}", "type", "ask", "game", g->id, "what", "describe");
        wt_send(c, "{s:s, s:s, s:s, s:O}", "type", "ask", "game", g->id, "what", "events",
                "events", evs);
        if (evs != g->last_events[i])
            json_decref(evs);
        for (int k = 0; k < 3; k++) {
            json_t *a = wt_expect(c, "answer", T);
            if (a == NULL)
                fail_msg("%s: ask not answered", c->name ? c->name : "the spectator");
            if (k == 2)
                assert_int_equal(json_array_size(json_object_get(a, "lines")),
                                 json_array_size(g->last_events[i]));
            json_decref(a);
        }
        asked++;
    }
    assert_true(asked >= 3);
    assert_true(g->scanned >= before + 3 * asked);  /* every answer scanned while sealed */
    no_leak(g);
}

static unsigned rnd(struct game *g)
{
    g->rnd = g->rnd * 1103515245u + 12345u;
    return (g->rnd >> 16) & 0x7fff;
}

/* --- legal moves from the map and the public state ------------------------------ */

static int owner_is(const json_t *st, int town, const struct game *g, const char *seat)
{
    const char *o = str(json_object_get(st, "towns"), g->map.towns[town].name);
    return o && seat && strcmp(o, seat) == 0;
}

static int allied(const json_t *st, const char *a, const char *b)
{
    if (strcmp(a, b) == 0)
        return 1;
    size_t i, k;
    json_t *al, *s;
    json_array_foreach(json_object_get(st, "alliances"), i, al) {
        int ia = 0, ib = 0;
        json_array_foreach(al, k, s) {
            ia |= strcmp(json_string_value(s), a) == 0;
            ib |= strcmp(json_string_value(s), b) == 0;
        }
        if (ia && ib)
            return 1;
    }
    return 0;
}

/* A random town among those `legal` accepts; -1 when none does. */
static int pick_town(struct game *g, const json_t *st, const char *seat,
                     int (*legal)(struct game *, const json_t *, const char *, int))
{
    int towns[WR_CAMPAIGN_TOWNS_MAX], n = 0;
    for (int t = 0; t < g->map.ntowns; t++)
        if (legal(g, st, seat, t))
            towns[n++] = t;
    return n ? towns[rnd(g) % (unsigned)n] : -1;
}

static int near_own(const struct game *g, const json_t *st, const char *seat, int t)
{
    for (int u = 0; u < g->map.ntowns; u++)
        if (wr_campaign_map_adjacent(&g->map, t, u) && owner_is(st, u, g, seat))
            return 1;
    return 0;
}

static int draft_near(struct game *g, const json_t *st, const char *seat, int t)
{
    return json_is_null(json_object_get(json_object_get(st, "towns"), g->map.towns[t].name)) &&
           near_own(g, st, seat, t);
}

static int draft_any(struct game *g, const json_t *st, const char *seat, int t)
{
    (void)seat;
    return json_is_null(json_object_get(json_object_get(st, "towns"), g->map.towns[t].name));
}

static int attackable(struct game *g, const json_t *st, const char *seat, int t)
{
    const char *o = str(json_object_get(st, "towns"), g->map.towns[t].name);
    return o && !allied(st, o, seat) && near_own(g, st, seat, t);
}

static int counter_near(struct game *g, const json_t *st, const char *seat, int t)
{
    (void)seat;
    json_t *a = json_object_get(st, "attack");
    int target = wr_campaign_map_find(&g->map, str(a, "target"));
    return owner_is(st, t, g, str(a, "attacker")) && wr_campaign_map_adjacent(&g->map, t, target);
}

static int counter_any(struct game *g, const json_t *st, const char *seat, int t)
{
    (void)seat;
    return owner_is(st, t, g, str(json_object_get(st, "attack"), "attacker"));
}

/* --- one decision ------------------------------------------------------------------- */

struct plan {
    int commit_rate;            /* 1 in commit_rate tactics goes through a commitment */
    int disputes;               /* results still to dispute (with a referee) */
    int settled;                /* results the referee settled */
    int commits, reveals, notes, attacks;
    char pending_choice[MAX_CLIENTS][16];   /* a seat's committed choice and salt */
    char pending_salt[MAX_CLIENTS][64];
};

static const char *const tactic_names[] = { "march", "counter_march", "attack", "defend",
                                            "regroup" };

static void act(struct game *g, struct plan *pl, const char *seat, const char *what)
{
    json_t *st = public_state(g);
    json_t *a = json_object_get(st, "attack");
    char cmd[1500];
    int i = seat_client(g, seat);
    if (strcmp(what, "start") == 0) {
        ok(g, seat, "{\"type\":\"start\"}");
    } else if (strcmp(what, "choose_town") == 0) {
        int t = pick_town(g, st, seat, draft_near);
        if (t < 0)
            t = pick_town(g, st, seat, draft_any);
        /* A free town far from one's own while a near one is free: refused. */
        int far = pick_town(g, st, seat, draft_any);
        if (far >= 0 && !draft_near(g, st, seat, far) && pick_town(g, st, seat, draft_near) >= 0) {
            snprintf(cmd, sizeof cmd, "{\"type\":\"choose_town\",\"town\":\"%s\"}",
                     g->map.towns[far].name);
            refused(g, seat, cmd, "draft_not_adjacent");
        }
        snprintf(cmd, sizeof cmd, "{\"type\":\"choose_town\",\"town\":\"%s\"}",
                 g->map.towns[t].name);
        ok(g, seat, cmd);
    } else if (strcmp(what, "attack") == 0) {
        int t = pick_town(g, st, seat, attackable);
        assert_true(t >= 0);
        snprintf(cmd, sizeof cmd, "{\"type\":\"attack\",\"target\":\"%s\"}", g->map.towns[t].name);
        pl->attacks++;
        ok(g, seat, cmd);
    } else if (strcmp(what, "counter") == 0) {
        int t = pick_town(g, st, seat, counter_near);
        if (t < 0)
            t = pick_town(g, st, seat, counter_any);
        snprintf(cmd, sizeof cmd, "{\"type\":\"counter\",\"town\":\"%s\"}", g->map.towns[t].name);
        ok(g, seat, cmd);
    } else if (strcmp(what, "choose_strategy") == 0) {
        ok(g, seat, rnd(g) % 2 ? "{\"type\":\"choose_strategy\",\"strategy\":\"hidden_ambush\"}"
                               : "{\"type\":\"choose_strategy\",\"strategy\":\"scouts\"}");
    } else if (strcmp(what, "tactic") == 0) {
        int side = strcmp(str(a, "attacker"), seat) == 0 ? 0 : 1;
        json_t *rounds = json_object_get(a, "rounds");
        size_t nr = json_array_size(rounds);
        const char *last = nr ? str(json_object_get(json_array_get(rounds, nr - 1),
                                                    side ? "defender" : "attacker"), "choice")
                              : NULL;
        /* Does this choice complete the round? Then what is sealed is shown. */
        json_t *waiting = json_object_get(json_object_get(st, "awaiting"), "seats");
        int completes = json_object_size(waiting) == 1;
        if (pl->pending_choice[i][0]) {
            if (completes)
                unseal(g, 1);
            snprintf(cmd, sizeof cmd, "{\"type\":\"tactic\",\"choice\":\"%s\",\"salt\":\"%s\"}",
                     pl->pending_choice[i], pl->pending_salt[i]);
            pl->pending_choice[i][0] = '\0';
            pl->reveals++;
            ok(g, seat, cmd);
            return;
        }
        const char *choice;
        do
            choice = tactic_names[rnd(g) % 5];
        while (last && strcmp(choice, last) == 0);
        char salt[64];
        snprintf(salt, sizeof salt, "salt-%s-%08x%08x", seat, rnd(g) * 7919u, rnd(g) * 104729u);
        if (!completes && pl->commit_rate && rnd(g) % (unsigned)pl->commit_rate == 0) {
            char h[65];
            assert_int_equal(wr_campaign_commitment(choice, salt, h), 0);
            seal(g, seat, h, 1);
            seal(g, seat, salt, 1);
            snprintf(pl->pending_choice[i], sizeof pl->pending_choice[i], "%s", choice);
            snprintf(pl->pending_salt[i], sizeof pl->pending_salt[i], "%s", salt);
            snprintf(cmd, sizeof cmd, "{\"type\":\"commit\",\"commitment\":\"%s\"}", h);
            pl->commits++;
            ok(g, seat, cmd);
            return;
        }
        if (completes)
            unseal(g, 1);
        else
            seal(g, seat, salt, 1);
        snprintf(cmd, sizeof cmd, "{\"type\":\"tactic\",\"choice\":\"%s\",\"salt\":\"%s\"}",
                 choice, salt);
        ok(g, seat, cmd);
    } else if (strcmp(what, "seal_ambush") == 0) {
        char note[128];
        snprintf(note, sizeof note, "NOTE %s: two units behind the ridge, %08x", seat,
                 rnd(g) * 65537u);
        seal(g, seat, note, 0);
        snprintf(cmd, sizeof cmd, "{\"type\":\"seal_ambush\",\"note\":\"%s\"}", note);
        pl->notes++;
        ok(g, seat, cmd);
        /* Now and then the ambusher shows the note at once (its first turn). */
        if (rnd(g) % 2 == 0) {
            unseal(g, 0);
            ok(g, seat, "{\"type\":\"reveal_ambush\"}");
        }
    } else if (strcmp(what, "report") == 0 || strcmp(what, "settle") == 0) {
        int side = strcmp(str(a, "attacker"), seat) == 0 ? 0 : 1;
        json_t *other = json_object_get(json_object_get(a, "reports"),
                                        str(a, side ? "attacker" : "defender"));
        int va = 700 + (int)(rnd(g) % 9) * 100, vd = 700 + (int)(rnd(g) % 9) * 100;
        int settles = strcmp(what, "settle") == 0, ends = settles;
        if (!settles && json_is_object(other)) {
            va = (int)json_integer_value(json_object_get(other, "attacker"));
            vd = (int)json_integer_value(json_object_get(other, "defender"));
            if (pl->disputes > 0 && !json_is_true(json_object_get(a, "disputed"))) {
                pl->disputes--;
                va += 1;        /* disagree, for the referee to settle */
            } else {
                ends = 1;       /* the reports agree */
            }
        }
        /* The report or settlement that ends the battle shows the notes. */
        if (ends)
            unseal(g, 0);
        snprintf(cmd, sizeof cmd, "{\"type\":\"%s\",\"attacker\":%d,\"defender\":%d}", what,
                 va, vd);
        pl->settled += settles;
        ok(g, seat, cmd);
    } else {
        fail_msg("the state awaits '%s' from %s", what, seat);
    }
}

/* One step: whoever the state says is awaited acts. Returns 0 when over. */
static int step(struct game *g, struct plan *pl)
{
    json_t *aw = json_object_get(public_state(g), "awaiting");
    if (json_is_null(aw))
        return 0;
    json_t *seats = json_object_get(aw, "seats");
    /* Each of the seats that may act must be offered by the state; take
     * the referee when it may settle, else one at random. */
    const char *seat = NULL, *what = NULL, *key;
    json_t *v;
    size_t pick = rnd(g) % json_object_size(seats), k = 0;
    json_object_foreach(seats, key, v) {
        if (k++ == pick || strcmp(key, "referee") == 0) {
            seat = key;
            what = json_string_value(v);
            if (strcmp(key, "referee") == 0)
                break;
        }
    }
    /* The seat "awaiting" names first is one of those. */
    assert_non_null(json_object_get(seats, str(aw, "seat")));
    /* Copies: the state these point into is replaced as patches arrive. */
    char seat_copy[16], what_copy[32];
    snprintf(seat_copy, sizeof seat_copy, "%s", seat);
    snprintf(what_copy, sizeof what_copy, "%s", what);
    act(g, pl, seat_copy, what_copy);
    check_revealed(g);
    return 1;
}

/* --- tests --------------------------------------------------------------------------- */

static void test_create_refusals(void **state)
{
    struct wt_server *s = *state;
    struct wt_client c;
    assert_int_equal(wt_open(&c, "creator", s->port), 0);
    static const struct {
        int row;
        const char *msg;
        const char *code;
        const char *words;      /* in the message */
    } t[] = {
        { 1, CREATE_ANCIENT
             "\"options\":{\"players\":9}}",
          "bad_options", "players is a whole number from 2 to 8" },
        { 2, CREATE_ANCIENT
             "\"options\":{\"colour\":\"red\"}}", "bad_options", "unknown option" },
        { 3, CREATE_ANCIENT
             "\"options\":{\"players\":3,\"alliances\":[[\"p1\",\"p2\",\"p3\"]]}}", "bad_options",
          "leaves nobody to fight" },
        { 4, "{\"type\":\"create\",\"ruleset\":\"campaign\",\"scenario\":\"test/small\"}",
          "no_such_scenario", "ruleset 'waterloo' is not campaign" },
        /* The ruleset's options are not the server's for other rulesets. */
        { 6, "{\"type\":\"create\",\"ruleset\":\"tictactoe\",\"options\":{\"players\":3}}",
          "bad_options", "unknown option" },
        { 7, CREATE_ANCIENT
             "\"seat\":\"p3\"}", "bad_seat", "no such seat" },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        wt_send_text(&c, t[i].msg);
        json_t *e = wt_expect(&c, "error", T);
        if (e == NULL)
            fail_msg("row %d: not refused", t[i].row);
        if (strcmp(str(e, "code"), t[i].code) != 0 || !strstr(str(e, "message"), t[i].words))
            fail_msg("row %d: %s (%s), want %s (%s)", t[i].row, str(e, "code"), str(e, "message"),
                     t[i].code, t[i].words);
        json_decref(e);
    }
    /* No scenario named: the ruleset's default map, two players. */
    wt_send_text(&c, "{\"type\":\"create\",\"ruleset\":\"campaign\"}");
    json_t *dflt = wt_expect(&c, "created", T);
    if (dflt == NULL)
        fail_msg("a campaign without a scenario was not created on the default map");
    assert_int_equal(json_object_size(json_object_get(dflt, "invites")), 1);
    json_decref(dflt);
    /* Eight players and a referee: nine seats, eight invites. */
    wt_send_text(&c, "{\"type\":\"create\",\"ruleset\":\"campaign\",\"scenario\":"
                     "\"campaign/low-countries-1815\","
                     "\"options\":{\"players\":8,\"referee\":true}}");
    json_t *created = wt_expect(&c, "created", T);
    assert_non_null(created);
    assert_int_equal(json_object_size(json_object_get(created, "invites")), 8);
    assert_non_null(json_object_get(json_object_get(created, "invites"), "referee"));
    json_decref(created);
    wt_close(&c);
}

/* One side seals its tactic behind a commitment, then reveals it: nobody
 * else receives the commitment, the salt or any choice until the other
 * side's choice is in; then everybody does. */
static void test_sealed_on_the_wire(void **state)
{
    struct wt_server *s = *state;
    struct game *g = calloc(1, sizeof *g);
    struct plan pl;
    memset(&pl, 0, sizeof pl);
    start_game(g, s, "ancient-world", "{\"players\":3,\"referee\":true}");
    /* Play the draft and up to the first tactics. */
    for (int n = 0; n < 500; n++) {
        json_t *st = public_state(g);
        if (strcmp(str(st, "phase"), "tactics") == 0)
            break;
        assert_int_equal(step(g, &pl), 1);
    }
    json_t *st = public_state(g), *a = json_object_get(st, "attack");
    assert_string_equal(str(st, "phase"), "tactics");
    char attacker[16], defender[16];
    snprintf(attacker, sizeof attacker, "%s", str(a, "attacker"));
    snprintf(defender, sizeof defender, "%s", str(a, "defender"));

    const char *salt = "wire-salt-5d0c1a9e77b3";
    char h[65], cmd[256];
    assert_int_equal(wr_campaign_commitment("counter_march", salt, h), 0);
    struct secret *sh = seal(g, attacker, h, 1), *ss = seal(g, attacker, salt, 1);
    (void)sh;
    (void)ss;
    snprintf(cmd, sizeof cmd, "{\"type\":\"commit\",\"commitment\":\"%s\"}", h);
    ok(g, attacker, cmd);
    /* A wrong salt is refused over the wire too. */
    refused(g, attacker, "{\"type\":\"tactic\",\"choice\":\"counter_march\",\"salt\":\"nope\"}",
            "commitment_mismatch");
    snprintf(cmd, sizeof cmd, "{\"type\":\"tactic\",\"choice\":\"counter_march\",\"salt\":\"%s\"}",
             salt);
    ok(g, attacker, cmd);
    /* What the others hold: that it is in, nothing more. */
    json_t *want = json_pack("{s:b}", "submitted", 1);
    for (int i = 0; i < g->n; i++) {
        json_t *mine = json_object_get(json_object_get(json_object_get(g->cl[i].state, "attack"),
                                                       "tactics"), attacker);
        if (strcmp(g->seat[i], attacker) == 0) {
            assert_string_equal(str(mine, "salt"), salt);
            assert_string_equal(str(mine, "commitment"), h);
        } else if (!json_equal(mine, want)) {
            fail_msg("%s holds %s", g->cl[i].name, json_dumps(mine, JSON_COMPACT));
        }
    }
    json_decref(want);
    /* Their own views, asked through the server, show nothing more. */
    ask_all(g, attacker);
    /* The record holds the commands as sent: no export while it runs. */
    wt_send(&g->cl[g->n - 1], "{s:s, s:s}", "type", "export", "game", g->id);
    json_t *e = wt_expect(&g->cl[g->n - 1], "error", T);
    assert_non_null(e);
    assert_string_equal(str(e, "code"), "not_finished");
    json_decref(e);
    /* A spectator joining now gets a full state: scanned like the rest. */
    struct wt_client late;
    assert_int_equal(wt_open(&late, "late spectator", s->port), 0);
    wt_send(&late, "{s:s, s:s, s:b}", "type", "join", "game", g->id, "spectate", 1);
    json_t *ls = wt_expect(&late, "state", T);
    assert_non_null(ls);
    char *text = json_dumps(ls, JSON_COMPACT);
    assert_null(strstr(text, salt));
    assert_null(strstr(text, h));
    assert_null(strstr(text, "\"choice\""));
    free(text);
    json_decref(ls);
    wt_close(&late);
    assert_true(g->scanned > 0);
    assert_true(g->choice_scanned > 0);
    no_leak(g);
    /* The defender's choice completes the round: everyone sees both. */
    unseal(g, 1);
    ok(g, defender, "{\"type\":\"tactic\",\"choice\":\"defend\"}");
    check_revealed(g);          /* every other client received the salt and the hash */
    json_t *r0 = json_array_get(json_object_get(json_object_get(public_state(g), "attack"),
                                                "rounds"), 0);
    assert_string_equal(str(json_object_get(r0, "attacker"), "choice"), "counter_march");
    assert_string_equal(str(json_object_get(r0, "attacker"), "salt"), salt);
    assert_string_equal(str(r0, "result"), "flank_march");     /* blue turns red's flank */
    end_game(g);
    free(g);
}

/* Both sides of a battle choose their tactics at once: each is awaited
 * and each is under a deadline of its own (the server section of the
 * state says so to everyone); the first to choose leaves the other's
 * deadline as it was. */
static void test_both_sides_awaited(void **state)
{
    struct wt_server *s = *state;
    struct game *g = calloc(1, sizeof *g);
    struct plan pl;
    memset(&pl, 0, sizeof pl);
    start_game(g, s, "ancient-world", "{\"players\":2,\"deadline_seconds\":3600}");
    for (int n = 0; n < 500 && strcmp(str(public_state(g), "phase"), "tactics") != 0; n++)
        assert_int_equal(step(g, &pl), 1);
    json_t *st = public_state(g), *a = json_object_get(st, "attack");
    assert_string_equal(str(st, "phase"), "tactics");
    char attacker[16], defender[16];
    snprintf(attacker, sizeof attacker, "%s", str(a, "attacker"));
    snprintf(defender, sizeof defender, "%s", str(a, "defender"));
    json_t *section = json_object_get(st, "server");
    json_t *aw = json_object_get(section, "awaiting"), *dl = json_object_get(section, "deadlines");
    if (aw == NULL || json_object_size(aw) != 2 ||
        strcmp(str(aw, attacker) ? str(aw, attacker) : "", "tactic") != 0 ||
        strcmp(str(aw, defender) ? str(aw, defender) : "", "tactic") != 0)
        fail_msg("the server section does not await both sides' tactics");
    json_int_t d_att = json_integer_value(json_object_get(dl, attacker));
    json_int_t d_def = json_integer_value(json_object_get(dl, defender));
    if (d_att <= 0 || d_def <= 0)
        fail_msg("both sides are not under a deadline (%lld, %lld)", (long long)d_att,
                 (long long)d_def);
    /* The attacker chooses: the defender alone is awaited, its deadline
     * unchanged. */
    ok(g, attacker, "{\"type\":\"tactic\",\"choice\":\"attack\"}");
    section = json_object_get(public_state(g), "server");
    aw = json_object_get(section, "awaiting");
    dl = json_object_get(section, "deadlines");
    assert_int_equal(json_object_size(aw), 1);
    assert_non_null(json_object_get(aw, defender));
    assert_int_equal(json_object_size(dl), 1);
    assert_int_equal(json_integer_value(json_object_get(dl, defender)), d_def);
    end_game(g);
    free(g);
}

static void test_three_player_campaign(void **state)
{
    struct wt_server *s = *state;
    struct game *g = calloc(1, sizeof *g);
    struct plan pl;
    memset(&pl, 0, sizeof pl);
    pl.commit_rate = 2;
    pl.disputes = 1;
    start_game(g, s, "ancient-world", "{\"players\":3,\"referee\":true,\"max_turns\":2}");
    int steps = 0;
    while (step(g, &pl)) {
        if (++steps > 2000)
            fail_msg("the campaign did not end in 2000 decisions");
    }
    json_t *st = public_state(g);
    assert_string_equal(str(st, "phase"), "over");
    const char *winner = str(st, "winner");
    assert_non_null(winner);
    print_message("campaign over after %d decisions: winner %s (%s), %d attacks, %d commitments, "
                  "%d ambush notes, %d settled by the referee; %d frames scanned while sealed, "
                  "%d for a choice\n", steps, winner, str(st, "end"), pl.attacks, pl.commits,
                  pl.notes, pl.settled, g->scanned, g->choice_scanned);
    /* Played through: the draft, attacks, commitments revealed. */
    assert_true(pl.attacks >= 1);
    assert_true(pl.commits >= 1);
    assert_int_equal(pl.commits, pl.reveals);
    assert_true(g->scanned > 0);
    no_leak(g);
    /* Every client holds the same state at the end (nothing is sealed). */
    for (int i = 0; i < g->n - 1; i++)
        if (!json_equal(g->cl[i].state, st))
            fail_msg("%s's state differs from the spectator's", g->cl[i].name);
    /* The status is finished, and the record can be exported: its rolls
     * are numbered from 0 without a gap and the revealed seed gives them. */
    struct wt_client *sp = &g->cl[g->n - 1];
    wt_send(sp, "{s:s, s:s}", "type", "export", "game", g->id);
    json_t *rec = wt_expect(sp, "record", T);
    assert_non_null(rec);
    const char *text = str(rec, "record");
    const char *nl = strchr(text, '\n');
    assert_non_null(nl);
    json_t *head = json_loadb(text, (size_t)(nl - text), 0, NULL);
    assert_string_equal(str(head, "ruleset"), "campaign");
    uint8_t seed[32];
    assert_int_equal(wr_dice_parse_seed(str(head, "seed"), seed), 0);
    char commitment[65];
    wr_dice_commitment(seed, commitment);
    assert_string_equal(commitment, str(json_object_get(st, "dice"), "commitment"));
    long long k = 0;
    for (const char *line = nl + 1; *line;) {
        const char *end = strchr(line, '\n');
        json_t *l = json_loadb(line, (size_t)(end - line), 0, NULL);
        assert_non_null(l);
        size_t i;
        json_t *r;
        json_array_foreach(json_object_get(l, "rolls"), i, r) {
            assert_int_equal(json_integer_value(json_array_get(r, 0)), k);
            assert_int_equal(json_integer_value(json_array_get(r, 1)),
                             wr_dice_roll(seed, g->id, (uint32_t)k));
            k++;
        }
        json_decref(l);
        line = end + 1;
    }
    assert_true(k >= 3);        /* at least the roll for the first choice */
    assert_int_equal(k, json_integer_value(json_object_get(json_object_get(st, "dice"), "rolls")));
    json_decref(head);
    json_decref(rec);
    /* Over: no more commands. */
    refused(g, "p1", "{\"type\":\"start\"}", "game_over");
    end_game(g);
    free(g);
}

/* A sealed choice survives the server being killed: after the restart its
 * owner still sees it, nobody else does, and the round completes. */
static void test_sealed_choice_survives_restart(void **state)
{
    (void)state;
    struct wt_server s;
    assert_int_equal(wt_server_start(&s, server_args), 0);
    struct game *g = calloc(1, sizeof *g);
    struct plan pl;
    memset(&pl, 0, sizeof pl);
    start_game(g, &s, "low-countries-1815", "{\"players\":2}");
    for (int n = 0; n < 500 && strcmp(str(public_state(g), "phase"), "tactics") != 0; n++)
        assert_int_equal(step(g, &pl), 1);
    json_t *a = json_object_get(public_state(g), "attack");
    char attacker[16], defender[16];
    snprintf(attacker, sizeof attacker, "%s", str(a, "attacker"));
    snprintf(defender, sizeof defender, "%s", str(a, "defender"));
    const char *salt = "restart-salt-81be2c";
    seal(g, attacker, salt, 1);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "{\"type\":\"tactic\",\"choice\":\"regroup\",\"salt\":\"%s\"}",
             salt);
    ok(g, attacker, cmd);
    long long v = g->version;
    kill(s.pid, SIGKILL);
    int status = wt_server_stop(&s, SIGKILL, 10000);
    assert_true(WIFSIGNALED(status));
    for (int i = 0; i < g->n; i++)
        wt_close(&g->cl[i]);
    assert_int_equal(wt_server_restart(&s, server_args), 0);
    rejoin(g, &s);
    assert_int_equal(g->version, v);
    json_t *mine = json_object_get(json_object_get(json_object_get(
                       g->cl[seat_client(g, attacker)].state, "attack"), "tactics"), attacker);
    assert_string_equal(str(mine, "salt"), salt);
    assert_string_equal(str(mine, "choice"), "regroup");
    no_leak(g);
    /* regroup against attack: the attacker makes a last stand. */
    unseal(g, 1);
    ok(g, defender, "{\"type\":\"tactic\",\"choice\":\"attack\"}");
    check_revealed(g);
    json_t *b = json_object_get(json_object_get(public_state(g), "attack"), "battle");
    assert_string_equal(str(b, "result"), "last_stand");
    assert_string_equal(str(b, "by"), attacker);
    end_game(g);
    free(g);
    status = wt_server_stop(&s, SIGTERM, 10000);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    wt_server_cleanup(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_refusals),
        cmocka_unit_test(test_sealed_on_the_wire),
        cmocka_unit_test(test_both_sides_awaited),
        cmocka_unit_test(test_three_player_campaign),
        cmocka_unit_test(test_sealed_choice_survives_restart),
    };
    return cmocka_run_group_tests(tests, setup, wt_group_stop);
}
