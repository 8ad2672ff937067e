/*
 * games.c - games, seats, versions, patches and the command path.
 *
 * The command path, in order:
 *   1) the message names a game this connection joined as a seat;
 *   2) a seq already answered is answered again, never applied twice;
 *   3) the ruleset validates and applies the command (in memory);
 *   4) the new version's projection is diffed per view into one patch,
 *      serialised once; the command joins the store batch;
 *   5) at the end of the loop iteration the batch commits (one fsync for
 *      every command of the iteration), and only then are the patches
 *      broadcast, the acks sent and the notifications started.
 * A failed commit stops the process (see wrd_games_flush): a command is
 * never acknowledged without being durable.
 */
#include "games.h"

#include <jansson.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "addr.h"
#include "ask.h"
#include "conn.h"
#include "dlist.h"
#include "games_int.h"
#include "jsonout.h"
#include "jsonpatch.h"
#include "log.h"
#include "mail.h"
#include "notify.h"
#include "pbem.h"
#include "record.h"
#include "ruleset.h"
#include "server.h"
#include "store.h"

#define PATCH_RING 64           /* patches kept per view for `sync` */
#define SNAPSHOT_EVERY 200

static const char *const status_names[] = { "open", "running", "finished" };

struct view {
    json_t *state;              /* projection at the game's version */
    struct wrd_msg *patch[PATCH_RING];  /* patch (v-1 -> v) at index v % PATCH_RING */
    int64_t patch_to[PATCH_RING];
};

/* A child of a game (ruleset.h, child), as its parent's server section
 * shows it: kept by the parent, so a finished child that left memory is
 * still shown; its status and result follow the child's (link_status). */
struct link {
    char game[24];
    char ruleset[24];
    char key[64];
    int status;
    char result[64];            /* "" while none */
};

struct member_ref {
    struct wrd_conn *conn;
    int seat;                   /* -1 spectator */
    int64_t since;              /* version of the state it was sent on joining */
};

/* A stored snapshot, while a restore compares its replay with it. */
struct snap {
    int64_t version;
    char *state;                /* the public state's text */
};

/* Deliveries that wait for the commit of the iteration's batch. */
enum { D_BROADCAST, D_DIRECT, D_NOTIFY, D_STATE_ALL, D_STATE_ONE, D_MAIL };

struct deferred {
    int kind;
    struct wrd_game *game;
    int view;                   /* D_BROADCAST */
    int64_t version;            /* D_BROADCAST: the patch's `to` */
    struct wrd_conn *conn;      /* D_DIRECT, D_STATE_ONE (holds a reference) */
    struct wrd_msg *msg;        /* D_BROADCAST, D_DIRECT (holds a reference) */
    int seat;                   /* D_NOTIFY, D_MAIL */
    const char *event;          /* D_NOTIFY, D_MAIL (a mail_kinds event) */
    char *text;                 /* D_MAIL: the mail's first lines, or NULL (owned) */
    char *reply_id;             /* D_MAIL: the message it answers, or NULL (owned) */
};

/* An open invite, found by its hash (claims would otherwise compare the
 * invite with every seat of every game the server holds). */
struct invite_ref {
    struct wrd_game *game;
    int seat;
    struct invite_ref *next;
};

struct load;
static int64_t next_wake(const struct wrd_game *g);

/* When seat s of g is reminded of its deadline: at 80% of its time. */
static int64_t remind_at(const struct wrd_game *g, const struct seat *s)
{
    return s->deadline_at - g->deadline_s * 200;
}
static void evict_queued(struct wrd_server *srv);
static int fetch(struct wrd_server *srv, struct wrd_conn *c, const json_t *msg, rerun_fn run,
                 const char *const *ids, int n);

/* --- small helpers ------------------------------------------------------- */

int64_t wrd_now_ms(void)
{
    uv_timeval64_t tv;
    uv_gettimeofday(&tv);
    return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

static unsigned hash(const char *s)
{
    unsigned h = 2166136261u;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 16777619u;
    return h % HASH_BUCKETS;
}

static void hex(const uint8_t *b, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[b[i] >> 4];
        out[2 * i + 1] = digits[b[i] & 15];
    }
    out[2 * n] = '\0';
}

void games_sha256_hex(const char *text, char out[65])
{
    uint8_t d[SHA256_DIGEST_LENGTH];
    SHA256((const unsigned char *)text, strlen(text), d);
    hex(d, sizeof d, out);
}

/* n random bytes as hex into out (2n+1 bytes). */
int games_random_hex(size_t n, char *out)
{
    uint8_t b[64];
    if (n > sizeof b || uv_random(NULL, NULL, b, n, 0, NULL) != 0)
        return -1;
    hex(b, n, out);
    return 0;
}

/* Secrets are compared by their hashes, in constant time. */
int games_same_hash(const char *a, const char *b)
{
    return CRYPTO_memcmp(a, b, 64) == 0;
}

int games_is_hex(const char *s, size_t len)
{
    if (s == NULL || strlen(s) != len)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return 1;
}

struct wrd_game *games_find(struct wrd_games *gs, const char *id)
{
    if (id == NULL)
        return NULL;
    for (struct wrd_game *g = gs->bucket[hash(id)]; g; g = g->next)
        if (strcmp(g->id, id) == 0)
            return g;
    return NULL;
}

/* The bucket of a hex SHA-256: its first 8 digits are as good as any. */
static unsigned invite_bucket(const char *hash_hex)
{
    unsigned v = 0;
    for (int i = 0; i < 8 && hash_hex[i]; i++) {
        char c = hash_hex[i];
        v = v * 16 + (unsigned)(c <= '9' ? c - '0' : (c | 32) - 'a' + 10);
    }
    return v % HASH_BUCKETS;
}

static void invite_index(struct wrd_games *gs, struct wrd_game *g, int seat)
{
    struct invite_ref *r = malloc(sizeof *r);
    if (r == NULL) {
        wrd_error("out of memory for the invite index", NULL);
        abort();
    }
    unsigned b = invite_bucket(g->seats[seat].invite_hash);
    *r = (struct invite_ref){ g, seat, gs->invites[b] };
    gs->invites[b] = r;
}

void games_invite_unindex(struct wrd_games *gs, struct wrd_game *g, int seat)
{
    for (struct invite_ref **p = &gs->invites[invite_bucket(g->seats[seat].invite_hash)]; *p;
         p = &(*p)->next)
        if ((*p)->game == g && (*p)->seat == seat) {
            struct invite_ref *dead = *p;
            *p = dead->next;
            free(dead);
            return;
        }
}

int games_seat_index(const struct wrd_game *g, const char *name)
{
    for (int i = 0; name && i < g->nseats; i++)
        if (strcmp(g->seats[i].name, name) == 0)
            return i;
    return -1;
}

/* Is seat name one of those that forfeited (g->forfeit: names joined by '+')? */
static int forfeited(const struct wrd_game *g, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = g->forfeit; *p; p = strchr(p, '+') ? strchr(p, '+') + 1 : "")
        if (strncmp(p, name, n) == 0 && (p[n] == '+' || p[n] == '\0'))
            return 1;
    return 0;
}

static int view_of(const struct wrd_game *g, int seat)
{
    if (g->nviews == 1)
        return 0;
    return seat >= 0 ? seat : g->nseats;
}

static void defer(struct wrd_games *gs, struct deferred d)
{
    if (gs->npending == gs->cappending) {
        int cap = gs->cappending ? 2 * gs->cappending : 256;
        struct deferred *p = realloc(gs->pending, sizeof *p * (size_t)cap);
        if (p == NULL) {
            wrd_error("out of memory for deliveries", NULL);
            abort();
        }
        gs->pending = p;
        gs->cappending = cap;
    }
    gs->pending[gs->npending++] = d;
}

void games_defer_direct(struct wrd_games *gs, struct wrd_conn *c, struct wrd_msg *m)
{
    wrd_conn_ref(c);
    defer(gs, (struct deferred){ .kind = D_DIRECT, .conn = c, .msg = m });
}

/* Shown in the lobby: a game anyone may watch, or whose seats anyone may
 * claim. Other games are found only by their id. */
static int listed(const struct wrd_game *g)
{
    return g->spectators || g->open_seats;
}

int games_compute_status(const struct wrd_game *g)
{
    if (g->forfeit[0] || g->rs->result(g->g) != NULL)
        return ST_FINISHED;
    for (int i = 0; i < g->nseats; i++)
        if (g->seats[i].token_hash[0] == '\0')
            return ST_OPEN;
    return ST_RUNNING;
}

/* The earliest deadline of the seats awaited now, 0 when none runs. */
static int64_t earliest_deadline(const struct wrd_game *g)
{
    int64_t t = 0;
    for (int i = 0; i < g->nseats; i++)
        if (g->seats[i].deadline_at && (t == 0 || g->seats[i].deadline_at < t))
            t = g->seats[i].deadline_at;
    return t;
}

/* The seat's row: inserted with its game (insert), changed later. */
static int seat_row(struct wrd_server *srv, struct wrd_game *g, int i, int insert)
{
    if (g->follower)
        return 0;               /* its owner writes it */
    cluster_changed(srv->games, g);
    g->noted_other = 1;
    const struct seat *s = &g->seats[i];
    char *mail = wrd_pbem_reg_text(&s->mail);
    struct wrd_seat_row r = { g->id, s->name, s->token_hash[0] ? s->token_hash : NULL,
                              s->invite_hash[0] ? s->invite_hash : NULL, s->webhook, mail };
    int rc = insert ? srv->store->ops->put_seat(srv->store, &r)
                    : srv->store->ops->update_seat(srv->store, &r);
    free(mail);
    return rc;
}

static const char *result_of(const struct wrd_game *g)
{
    return g->forfeit[0] ? "forfeit" : g->rs->result(g->g);
}

/* Room for a forfeit's result, which is stored as "forfeit:SEATS". */
#define STATUS_RESULT_MAX 160

/* The game's row as of now (res: STATUS_RESULT_MAX bytes for the result). */
static void status_of(struct wrd_game *g, struct wrd_status_row *row,
                      char res[STATUS_RESULT_MAX])
{
    const char *r = result_of(g);
    if (g->forfeit[0]) {
        snprintf(res, STATUS_RESULT_MAX, "forfeit:%s", g->forfeit);
        r = res;
    }
    /* A forfeited game keeps the deadline that passed: its reason names it. */
    *row = (struct wrd_status_row){
        .game = g->id, .status = status_names[g->status], .result = r,
        .deadline_ms = g->forfeit[0] ? g->forfeit_deadline : earliest_deadline(g),
        .version = g->version,
        .awaiting = g->status == ST_RUNNING ? wr_game_awaited(g->g) : NULL,
        .moved_ms = g->moved_ms,
        /* a linked game stays in memory while it runs (shelvable) */
        .wake_ms = g->status != ST_RUNNING ? 0 : g->parent[0] || g->nchildren ? 1 : next_wake(g),
    };
}

/* Is row what put_game stored (store.h): open, with no result, deadline,
 * version, awaited seat, move or wake? */
static int status_as_put(const struct wrd_status_row *row)
{
    return strcmp(row->status, "open") == 0 && row->result == NULL && row->deadline_ms == 0 &&
           row->version == 0 && row->awaiting == NULL && row->moved_ms == 0 && row->wake_ms == 0;
}

/* The game's row written (to_put: only when it differs from what
 * put_game stored, for a game just put). */
static int status_write(struct wrd_server *srv, struct wrd_game *g, int to_put)
{
    if (g->follower)
        return 0;               /* its owner writes it */
    cluster_changed(srv->games, g);
    g->noted_other = 1;
    char res[STATUS_RESULT_MAX];
    struct wrd_status_row row;
    status_of(g, &row, res);
    if (to_put && status_as_put(&row))
        return 0;
    return srv->store->ops->put_status(srv->store, &row);
}

static int status_row(struct wrd_server *srv, struct wrd_game *g)
{
    return status_write(srv, g, 0);
}

/* The end of a message written as text: the id it answers (when not
 * NULL), the closing brace; the message, or NULL when out of memory. The
 * buffer is released. */
static struct wrd_msg *end_msg(struct wrd_buf *b, const json_t *id)
{
    if (id) {
        wrd_buf_lit(b, ",\"id\":");
        wrd_buf_json(b, id);
    }
    wrd_buf_lit(b, "}");
    struct wrd_msg *m = b->failed ? NULL : wrd_msg_new(b->s, b->len);
    wrd_buf_release(b);
    return m;
}

/* The time each awaited seat has left, as of now, into the server section
 * sec (borrowed; changed in place): "deadlines_left" follows "deadlines". */
static void time_left(const struct wrd_game *g, json_t *sec, int64_t now)
{
    json_t *left = json_object_get(sec, "deadlines_left");
    if (left == NULL)
        return;
    for (int i = 0; i < g->nseats; i++)
        if (g->seats[i].deadline_at && json_object_get(left, g->seats[i].name))
            json_object_set_new(left, g->seats[i].name,
                                json_integer(g->seats[i].deadline_at > now
                                                 ? g->seats[i].deadline_at - now : 0));
}

/* A state message: the server's own part (version, status, forfeit,
 * deadline) around the ruleset's projection for the seat's view, tagged
 * with its game (a full state replaces it). Written as text directly, the
 * view serialised in place (states go to every joiner, so they are as hot
 * as patches); the time left in its server section is brought up to now
 * first. The state that announces a forfeit (forfeit_events) carries the
 * server's own events, one {"type":"forfeit","seat","reason"} per seat
 * that forfeited:
 * {"type":"state","game","version","ruleset","status","state","seat"
 *  [,"forfeit"][,"deadline_ms"][,"events"]} */
static struct wrd_msg *state_msg(struct wrd_game *g, int seat, const json_t *id,
                                 int forfeit_events)
{
    const struct view *v = &g->views[view_of(g, seat)];
    time_left(g, json_object_get(v->state, "server"), wrd_now_ms());
    char stack[4096];
    struct wrd_buf b;
    wrd_buf_init(&b, stack, sizeof stack);
    wrd_buf_lit(&b, "{\"type\":\"state\",\"game\":");
    wrd_buf_str(&b, g->id, strlen(g->id));
    wrd_buf_lit(&b, ",\"version\":");
    wrd_buf_int(&b, g->version);
    wrd_buf_lit(&b, ",\"ruleset\":");
    wrd_buf_str(&b, g->rs->name, strlen(g->rs->name));
    wrd_buf_lit(&b, ",\"status\":");
    wrd_buf_str(&b, status_names[g->status], strlen(status_names[g->status]));
    wrd_buf_lit(&b, ",\"state\":");
    wrd_buf_json(&b, v->state);
    wrd_buf_lit(&b, ",\"seat\":");
    if (seat >= 0)
        wrd_buf_str(&b, g->seats[seat].name, strlen(g->seats[seat].name));
    else
        wrd_buf_lit(&b, "null");
    if (g->forfeit[0]) {
        wrd_buf_lit(&b, ",\"forfeit\":");
        wrd_buf_str(&b, g->forfeit, strlen(g->forfeit));
    }
    int64_t deadline = earliest_deadline(g);
    if (deadline) {
        wrd_buf_lit(&b, ",\"deadline_ms\":");
        wrd_buf_int(&b, deadline);
    }
    if (forfeit_events && g->forfeit[0]) {
        json_t *evs = json_array();
        for (int i = 0; i < g->nseats; i++)
            if (g->seats[i].forfeit_why[0])
                json_array_append_new(evs, json_pack("{s:s, s:s, s:s}", "type", "forfeit",
                                                     "seat", g->seats[i].name, "reason",
                                                     g->seats[i].forfeit_why));
        wrd_buf_lit(&b, ",\"events\":");
        wrd_buf_json(&b, evs);
        json_decref(evs);
    }
    struct wrd_msg *m = end_msg(&b, id);
    if (m)
        m->game = g;            /* a full state replaces it when dropped */
    return m;
}

struct wrd_msg *wrd_games_state_msg(struct wrd_server *srv, struct wrd_conn *c,
                                    const struct wrd_member *m)
{
    (void)srv;
    struct wrd_game *g = m->game;
    for (int k = 0; k < g->nmembers; k++)
        if (g->members[k].conn == c)
            g->members[k].since = g->version;   /* the patches it holds go no further */
    return state_msg(g, m->seat, NULL, 0);
}

static void send_state(struct wrd_conn *c, struct wrd_game *g, int seat, const json_t *id,
                       int forfeit_events)
{
    struct wrd_msg *m = state_msg(g, seat, id, forfeit_events);
    wrd_conn_send(c, m);
    wrd_msg_unref(m);
}

/* --- game objects -------------------------------------------------------- */

static void game_free(struct wrd_game *g)
{
    if (g == NULL)
        return;
    if (g->g)
        g->rs->destroy(g->g);
    json_decref(g->noted_cmds);
    for (int i = 0; i < g->nseats; i++) {
        free(g->seats[i].webhook);
        for (int k = 0; k < RESULTS; k++)
            wrd_msg_unref(g->seats[i].results[k].answer);
    }
    for (int v = 0; v < g->nviews; v++) {
        json_decref(g->views[v].state);
        for (int k = 0; k < PATCH_RING; k++)
            wrd_msg_unref(g->views[v].patch[k]);
    }
    free(g->seats);
    free(g->views);
    for (int i = 0; i < g->nlines; i++)
        free(g->lines[i]);
    free(g->lines);
    free(g->members);
    wrd_addr_put(g->srv, g->owner);
    free(g->scenario_name);
    free(g->scenario_text);
    for (int i = 0; i < g->nsnaps; i++)
        free(g->snaps[i].state);
    free(g->snaps);
    free(g->children);
    json_decref(g->options);
    free(g);
}

/* A new game object around a ruleset game (not yet in the registry). */
static struct wrd_game *game_new(struct wrd_server *srv, const struct wr_ruleset *rs,
                                 const char *id,
                                 const char *scenario_name, const char *scenario_text,
                                 json_t *options, const uint8_t seed[32], char *err, size_t errlen,
                                 int *reason)
{
    struct wrd_game *g = calloc(1, sizeof *g);
    if (g == NULL) {
        snprintf(err, errlen, "out of memory");
        json_decref(options);
        return NULL;
    }
    snprintf(g->id, sizeof g->id, "%s", id);
    g->srv = srv;
    g->rs = rs;
    g->options = options;
    memcpy(g->seed, seed, 32);
    g->scenario_name = strdup(scenario_name ? scenario_name : "");
    g->scenario_text = scenario_text ? strdup(scenario_text) : NULL;
    g->spectators = !json_is_false(json_object_get(options, "spectators"));
    g->open_seats = json_is_true(json_object_get(options, "open_seats"));
    g->deadline_s = json_integer_value(json_object_get(options, "deadline_seconds"));
    json_t *scenario = NULL;
    if (scenario_text) {
        json_error_t jerr;
        scenario = json_loads(scenario_text, 0, &jerr);
        if (scenario == NULL) {
            snprintf(err, errlen, "scenario: %s", jerr.text);
            game_free(g);
            return NULL;
        }
    }
    struct wr_refusal why = { WR_R_BAD_SCENARIO, "bad_scenario", "" };
    g->g = rs->create(scenario, options, g->id, seed, NULL, &why);
    json_decref(scenario);
    if (g->g == NULL) {
        snprintf(err, errlen, "%s", why.message);
        if (reason)
            *reason = why.reason;
        game_free(g);
        return NULL;
    }
    const char *const *names = rs->seats(g->g);
    int n = 0;
    while (names[n])
        n++;
    g->seats = calloc((size_t)n, sizeof *g->seats);
    if (g->seats == NULL) {
        snprintf(err, errlen, "out of memory");
        game_free(g);
        return NULL;
    }
    for (; g->nseats < n; g->nseats++)
        if (snprintf(g->seats[g->nseats].name, sizeof g->seats[0].name, "%s",
                     names[g->nseats]) >= (int)sizeof g->seats[0].name) {
            snprintf(err, errlen, "seat name too long");
            game_free(g);
            return NULL;
        }
    g->nviews = rs->hidden_info ? g->nseats + 1 : 1;
    g->views = calloc((size_t)g->nviews, sizeof *g->views);
    if (g->views == NULL) {
        snprintf(err, errlen, "out of memory");
        game_free(g);
        return NULL;
    }
    g->quiet_at = -1;
    return g;
}


/* Count g (sign 1) or stop counting it (-1) as open or live, server-wide
 * and for the address that created it. */
static void count_game(struct wrd_games *gs, struct wrd_game *g, int sign)
{
    int live = g->status != ST_FINISHED, open = g->status == ST_OPEN;
    gs->live += sign * live;
    if (g->owner) {
        g->owner->games += sign * live;
        g->owner->open_games += sign * open;
    }
}

/* Every change of a game's status goes through here, so the counts follow. */
void games_set_status(struct wrd_games *gs, struct wrd_game *g, int status)
{
    if (g->counted)
        count_game(gs, g, -1);
    g->status = status;
    if (g->counted)
        count_game(gs, g, 1);
}

/* Is game a older than (created before) the key (ms, id)? Lists run
 * newest first by this order, and cursors name a key. */
static int older(const struct wrd_game *a, int64_t ms, const char *id)
{
    return a->created_ms < ms || (a->created_ms == ms && strcmp(a->id, id) < 0);
}

static void registry_add(struct wrd_games *gs, struct wrd_game *g)
{
    g->touched_ms = wrd_now_ms();
    g->counted = 1;
    count_game(gs, g, 1);
    unsigned h = hash(g->id);
    g->next = gs->bucket[h];
    gs->bucket[h] = g;
    /* In key order: a new game goes last, a game read back from the store
     * a few steps back. */
    struct wrd_game *after = gs->all_tail;
    while (after && !older(after, g->created_ms, g->id))
        after = after->all_prev;
    g->all_prev = after;
    g->all_next = after ? after->all_next : gs->all_head;
    if (g->all_next)
        g->all_next->all_prev = g;
    else
        gs->all_tail = g;
    if (after)
        after->all_next = g;
    else
        gs->all_head = g;
    gs->count++;
}

/* Take g out of the registry (it is not freed). */
static void registry_remove(struct wrd_games *gs, struct wrd_game *g)
{
    for (struct wrd_game **p = &gs->bucket[hash(g->id)]; *p; p = &(*p)->next)
        if (*p == g) {
            *p = g->next;
            break;
        }
    WRD_DLIST_REMOVE(gs->all_head, gs->all_tail, g, all_prev, all_next);
    g->next = NULL;
    for (int i = 0; i < g->nseats; i++)
        if (g->seats[i].invite_hash[0])
            games_invite_unindex(gs, g, i);
    if (g->counted)
        count_game(gs, g, -1);
    g->counted = 0;
    gs->count--;
}

static int add_line(struct wrd_game *g, char *line)
{
    if (g->nlines == g->caplines) {
        int cap = g->caplines ? 2 * g->caplines : 64;
        char **l = realloc(g->lines, sizeof *l * (size_t)cap);
        if (l == NULL) {
            free(line);
            return -1;
        }
        g->lines = l;
        g->caplines = cap;
    }
    g->lines[g->nlines++] = line;
    return 0;
}

/* The record line of a command: seat, command and the rolls it made
 * ({"seat":..,"cmd":..,"rolls":[[k,face],...]}, "rolls" only when it rolled). */
static char *record_line(const char *seat, const json_t *cmd, const json_t *events)
{
    char stack[1024];
    struct wrd_buf b;
    wrd_buf_init(&b, stack, sizeof stack);
    wrd_buf_lit(&b, "{\"seat\":");
    wrd_buf_str(&b, seat, strlen(seat));
    wrd_buf_lit(&b, ",\"cmd\":");
    wrd_buf_json(&b, cmd);
    size_t i;
    json_t *e;
    int rolls = 0;
    json_array_foreach(events, i, e) {
        const char *type = json_string_value(json_object_get(e, "type"));
        if (type == NULL || strcmp(type, "roll") != 0)
            continue;
        wrd_buf_lit(&b, rolls++ ? ",[" : ",\"rolls\":[[");
        wrd_buf_json(&b, json_object_get(e, "k"));
        wrd_buf_lit(&b, ",");
        wrd_buf_json(&b, json_object_get(e, "face"));
        wrd_buf_lit(&b, "]");
    }
    wrd_buf_lit(&b, rolls ? "]}" : "}");
    wrd_buf_add(&b, "", 1);
    char *line = b.failed ? NULL : b.heap ? b.s : strdup(b.s);
    if (line != b.s)
        wrd_buf_release(&b);
    return line;
}

void games_remember(struct seat *s, int64_t seq, struct wrd_msg *answer)
{
    struct result *r = &s->results[seq % RESULTS];
    wrd_msg_unref(r->answer);
    r->seq = seq;
    r->answer = answer;
    wrd_msg_ref(answer);
    if (seq > s->last_seq)
        s->last_seq = seq;
}

void games_remember_stored(struct wrd_game *g, int seat, int64_t seq, const json_t *events)
{
    json_t *pev = g->rs->project_events(g->g, g->seats[seat].name, events);
    struct wrd_msg *a = games_change_msg(g, seq, NULL, NULL, pev, NULL);
    json_decref(pev);
    games_remember(&g->seats[seat], seq, a);
    wrd_msg_unref(a);
}

/* --- notifications and deadlines ------------------------------------------ */

/* The server's part of every projected state, under the key "server"
 * (rulesets never use that key): the game's status, its result and the
 * seats that forfeited (and, once they have, why: "forfeit_reason"), each
 * awaited seat with what it must send, their deadlines and, while any
 * runs, the time each has left ("deadlines_left", in ms as of when the
 * state or patch was made; state_msg() brings it up to the moment a state
 * is sent: a client has no clock to trust). Patches carry its changes like
 * any other, so a client learns from a patch that the game is over. */
static json_t *server_section(const struct wrd_game *g)
{
    json_t *aw = json_object(), *dl = json_object();
    char why[1024] = "";
    size_t at = 0;
    for (int i = 0; i < g->nseats; i++) {
        const struct seat *s = &g->seats[i];
        if (s->what)
            json_object_set_new(aw, s->name, json_string(s->what));
        if (s->deadline_at)
            json_object_set_new(dl, s->name, json_integer(s->deadline_at));
        if (s->forfeit_why[0] && at < sizeof why)
            at += (size_t)snprintf(why + at, sizeof why - at, "%s%s", at ? "; " : "",
                                   s->forfeit_why);
    }
    const char *res = result_of(g);
    /* (built member by member: it is built for every command, and
     * json_pack would parse its format each time) */
    json_t *o = json_object();
    json_object_set_new_nocheck(o, "status", json_string_nocheck(status_names[g->status]));
    json_object_set_new_nocheck(o, "result", res ? json_string(res) : json_null());
    json_object_set_new_nocheck(o, "forfeit", g->forfeit[0] ? json_string(g->forfeit)
                                                           : json_null());
    json_object_set_new_nocheck(o, "awaiting", aw);
    json_object_set_new_nocheck(o, "deadlines", dl);
    if (why[0])
        json_object_set_new(o, "forfeit_reason", json_string(why));
    /* Linked games: a parent lists its children, a child names its parent. */
    if (g->nchildren > 0) {
        json_t *ch = json_array();
        for (int i = 0; i < g->nchildren; i++) {
            const struct link *l = &g->children[i];
            json_array_append_new(ch, json_pack("{s:s, s:s, s:s, s:s, s:o}", "game", l->game,
                                                "ruleset", l->ruleset, "key", l->key, "status",
                                                status_names[l->status], "result",
                                                l->result[0] ? json_string(l->result)
                                                             : json_null()));
        }
        json_object_set_new(o, "children", ch);
    }
    if (g->parent[0]) {
        json_t *pa = json_pack("{s:s, s:s}", "game", g->parent, "key", g->link_key);
        if (g->link_refused[0])
            json_object_set_new(pa, "refused", json_string(g->link_refused));
        json_object_set_new(o, "parent", pa);
    }
    if (json_object_size(dl) > 0) {
        json_object_set_new(o, "deadlines_left", json_copy(dl));
        time_left(g, o, wrd_now_ms());
    }
    return o;
}

/* Why seat i forfeits: no decision (what) in the game's time, by deadline
 * (ms since the epoch; 0: no longer known, a forfeit stored before reasons
 * were), into the seat's forfeit_why. */
static void forfeit_reason(struct wrd_game *g, int i, const char *what, int64_t deadline)
{
    char when[48] = "unknown";
    time_t t = (time_t)(deadline / 1000);
    struct tm tm;
    if (deadline > 0 && gmtime_r(&t, &tm) != NULL)
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
    snprintf(g->seats[i].forfeit_why, sizeof g->seats[i].forfeit_why,
             "%s: no decision (%s) in %lld s (deadline %s)", g->seats[i].name,
             what ? what : "?", (long long)g->deadline_s, when);
}

/* View v's projection now, with the server section. */
static json_t *project_view(struct wrd_game *g, int v, json_t *section)
{
    const char *vs = g->nviews > 1 && v < g->nseats ? g->seats[v].name : NULL;
    json_t *st = g->rs->project(g->g, vs);
    if (st)
        json_object_set(st, "server", section);
    return st;
}

/* Every view's projection, from scratch (a new or restored game, once its
 * status is known). */
static void project_all(struct wrd_game *g)
{
    json_t *section = server_section(g);
    for (int v = 0; v < g->nviews; v++) {
        json_decref(g->views[v].state);
        g->views[v].state = project_view(g, v, section);
    }
    json_decref(section);
    g->shown++;
}

/* The public projection as snapshots hold it: without the server section
 * (deadlines are times, not replayable facts). Caller frees. */
static char *snapshot_text(struct wrd_game *g)
{
    json_t *st = g->views[g->nviews - 1].state;
    json_t *section = json_incref(json_object_get(st, "server"));
    json_object_del(st, "server");
    char *text = json_dumps(st, JSON_COMPACT | JSON_SORT_KEYS);
    if (section)
        json_object_set_new(st, "server", section);
    return text;
}

/* --- play by email (pbem.h) ------------------------------------------------------ */

/* Each mail a seat may get: its event, the subject's words after "SEAT, ",
 * and whether it shows the game (the board, the decision, the orders). */
static const struct mail_kind {
    const char *event;
    const char *subject;
    int game;
} mail_kinds[] = {
    { "confirm", "confirm your address", 0 },
    { "confirmed", "your address is confirmed", 1 },
    { "your_turn", "your move", 1 },
    { "deadline_reminder", "your time is running out", 1 },
    { "deadline_expired", "your time ran out", 1 },
    { "answer", "your orders", 1 },
    { "game_over", "the game is over", 1 },
    { "digest", "your move (daily digest)", 1 },
};

/*
 * Mail seat i of g about event (a mail_kinds event), lead (may be NULL)
 * first: to its confirmed address (its pending one for "confirm", and only
 * that one goes there), with the seat's own view of the game as it stands
 * now, and a reply address tagged with the game's version ("c" for the
 * confirmation). Called after the commit (the flush), so a mail never
 * shows what the store has not kept. Failures are logged, never the
 * address.
 */
static void mail_seat(struct wrd_server *srv, struct wrd_game *g, int i, const char *event,
                      const char *lead, const char *reply_id)
{
    struct seat *s = &g->seats[i];
    const struct mail_kind *k = NULL;
    for (size_t j = 0; j < sizeof mail_kinds / sizeof mail_kinds[0]; j++)
        if (strcmp(mail_kinds[j].event, event) == 0)
            k = &mail_kinds[j];
    int confirm = strcmp(event, "confirm") == 0;
    if (srv->mailer == NULL || k == NULL ||
        s->mail.state != (confirm ? WRD_PBEM_PENDING : WRD_PBEM_CONFIRMED))
        return;
    struct wr_strbuf text, svg;
    wr_strbuf_init(&text);
    wr_strbuf_init(&svg);
    if (lead)
        wr_strbuf_puts(&text, lead);
    if (k->game) {
        const struct wrd_pbem_game pg = {
            .id = g->id, .rs = g->rs, .scenario_name = g->scenario_name,
            .scenario_text = g->scenario_text, .options = g->options, .seat = s->name,
            .version = g->version, .state = g->views[view_of(g, i)].state,
            .url = srv->cfg.mail_url,
        };
        struct wr_refusal why = { 0, "", "" };
        struct wr_view *v = wrd_pbem_view(&pg, &why);
        if (v) {
            if (lead)
                wr_strbuf_puts(&text, "\n");
            wrd_pbem_game_text(v, &pg, s->what != NULL, srv->cfg.mail_reply != NULL, &text);
            if (v->pr->draw_svg(v, &svg) != 0) {
                wr_strbuf_release(&svg);
                wr_strbuf_init(&svg);
            }
            v->pr->close(v);
        } else {
            wrd_warn("no view of the game for a mail", "game=%s seat=%s code=%s", g->id,
                     s->name, why.code);
        }
    }
    char subject[160], what[24];
    snprintf(subject, sizeof subject, "Warroom %s: %s, %s", g->id, s->name, k->subject);
    if (confirm)
        snprintf(what, sizeof what, "c");
    else
        snprintf(what, sizeof what, "%lld", (long long)g->version);
    const struct wrd_pbem_post post = { srv->mailer, srv->cfg.mail_from, srv->cfg.mail_reply,
                                        wrd_now_ms() };
    int rc = text.failed ? WRD_MAIL_ENOMEM
                         : wrd_pbem_post(&post, &s->mail, g->id, i, s->name, what, subject,
                                         text.s ? text.s : "", svg.len ? &svg : NULL,
                                         reply_id);
    if (rc != 0)
        wrd_warn("mail not queued", "game=%s seat=%s event=%s error=%s", g->id, s->name,
                 event, wrd_mail_err_code(rc));
    else
        wrd_debug("mail queued", "game=%s seat=%s event=%s version=%lld", g->id, s->name,
                  event, (long long)g->version);
    wr_strbuf_release(&text);
    wr_strbuf_release(&svg);
}

/* A mail to seat i of g once this iteration's batch is durable; text (may
 * be NULL) is its first lines, reply_id (may be NULL) the message it
 * answers, both owned by the queue from now on. */
static void defer_mail(struct wrd_games *gs, struct wrd_game *g, int i, const char *event,
                       char *text, char *reply_id)
{
    if (gs->srv->mailer == NULL) {
        free(text);
        free(reply_id);
        return;
    }
    defer(gs, (struct deferred){ .kind = D_MAIL, .game = g, .seat = i, .event = event,
                                 .text = text, .reply_id = reply_id });
}

/* Register address for seat i of g (NULL: remove the seat's address): a
 * new secret, so every tag of an older mail stops verifying, and, for an
 * address, the confirmation mail with its code (after the commit). The
 * caller writes the seat's row. */
static void mail_register(struct wrd_server *srv, struct wrd_game *g, int i,
                          const char *address)
{
    struct seat *s = &g->seats[i];
    char code[WRD_PBEM_CODE_LEN + 1];
    if (address == NULL || wrd_pbem_reg_new(&s->mail, address, code) != 0) {
        if (address)
            wrd_error("no randomness for a mail registration", "game=%s seat=%s", g->id,
                      s->name);
        memset(&s->mail, 0, sizeof s->mail);
        return;
    }
    struct wr_strbuf t;
    wr_strbuf_init(&t);
    wr_strbuf_printf(&t, "Someone, you we hope, asked Warroom to send the mails of seat %s of "
                     "game %s (%s) to this address.\n\nTo confirm, ", s->name, g->id,
                     g->rs->name);
    if (srv->cfg.mail_reply)
        wr_strbuf_puts(&t, "reply to this mail (what you write does not matter), or ");
    wr_strbuf_printf(&t, "run\n\n    warroom notify %s --confirm %s\n\nCode: %s\n\n"
                     "If it was not you, ignore this mail: nothing more will come.\n",
                     g->id, code, code);
    OPENSSL_cleanse(code, sizeof code);
    if (t.failed) {
        wr_strbuf_release(&t);
        return;
    }
    defer_mail(srv->games, g, i, "confirm", t.s, NULL);
}

/* Absent (or null when null_ok), or an address the mailer sends to, on a
 * server that sends mail, asked for by an address within its hourly
 * share: 0. Otherwise the error is sent (mail_off, bad_address,
 * too_many_mails) and -1. */
static int check_mail(struct wrd_server *srv, struct wrd_conn *c, const json_t *m, int null_ok,
                      const char *game, json_t *jid)
{
    if (m == NULL || (null_ok && json_is_null(m)))
        return 0;
    const char *why = "mail must be an address";
    if (srv->mailer == NULL) {
        wrd_conn_error(c, WRD_E_MAIL_OFF, "this server sends no mail (it runs without --smtp)",
                       game, NULL, jid);
        return -1;
    }
    if (!json_is_string(m) || wrd_mail_check_address(json_string_value(m), &why) != 0) {
        char text[200];
        snprintf(text, sizeof text, "mail: %s", why);
        wrd_conn_error(c, WRD_E_BAD_ADDRESS, text, game, NULL, jid);
        return -1;
    }
    if (!wrd_addr_take_mail(srv, c->from, srv->cfg.max_mails_per_address)) {
        char text[200];
        snprintf(text, sizeof text, "your address has asked for %d confirmation mails this "
                 "hour (--max-mails-per-address): try again later",
                 srv->cfg.max_mails_per_address);
        wrd_conn_error(c, WRD_E_TOO_MANY_MAILS, text, game, NULL, jid);
        return -1;
    }
    return 0;
}

static void notify_seat(struct wrd_server *srv, struct wrd_game *g, int seat, const char *event)
{
    struct seat *s = &g->seats[seat];
    json_t *body = json_pack("{s:s, s:s, s:s, s:I, s:s}", "event", event, "game", g->id, "seat",
                             s->name, "version", (json_int_t)g->version, "ruleset", g->rs->name);
    /* What the seat must decide, and every decision the game awaits. */
    json_t *section = json_object_get(g->views[view_of(g, seat)].state, "server");
    json_object_set_new(body, "what", s->what ? json_string(s->what) : json_null());
    json_object_set(body, "awaiting", json_object_get(section, "awaiting"));
    /* A forfeit says why. */
    const char *reason = strcmp(event, "deadline_expired") == 0 && s->forfeit_why[0]
                             ? s->forfeit_why : NULL;
    if (reason)
        json_object_set_new(body, "reason", json_string(reason));
    char *text = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    struct wrd_notify_env env = { .event = event, .game = g->id, .seat = s->name,
                                  .ruleset = g->rs->name, .version = (long)g->version,
                                  .owner = s->webhook_owner, .reason = reason };
    int rc = text && srv->notifier ? wrd_notify(srv->notifier, s->webhook, text, &env) : 0;
    if (rc != 0)
        wrd_warn("notification not queued", "game=%s seat=%s error=%s", g->id, s->name,
                 wrd_notify_err_code(rc));
    free(text);
    /* a seat on the digest hears of its turns once a day (mail_digest) */
    if (s->mail.state == WRD_PBEM_CONFIRMED &&
        !(s->mail.digest && strcmp(event, "your_turn") == 0)) {
        char lead[320] = "";
        if (reason)
            snprintf(lead, sizeof lead, "Your time ran out: %s.\n", reason);
        else if (strcmp(event, "deadline_reminder") == 0 && s->deadline_at > 0)
            snprintf(lead, sizeof lead, "Your decision is due within %lld minutes.\n",
                     (long long)((s->deadline_at - wrd_now_ms()) / 60000 + 1));
        mail_seat(srv, g, seat, event, lead[0] ? lead : NULL, NULL);
    }
}

static void on_deadline(uv_timer_t *t);

/* The deadline timer, set for the next reminder or expiry of any seat. */
void games_arm_timer(struct wrd_game *g)
{
    int64_t next = next_wake(g);
    if (next == 0 || g->srv->stopping || g->follower) {
        if (g->timer)
            uv_timer_stop(g->timer);
        return;
    }
    if (g->timer == NULL) {
        g->timer = malloc(sizeof *g->timer);
        if (g->timer == NULL)
            return;
        uv_timer_init(&g->srv->loop, g->timer);
        g->timer->data = g;
    }
    int64_t now = wrd_now_ms();
    uv_timer_start(g->timer, on_deadline, (uint64_t)(next > now ? next - now : 0), 0);
}

/*
 * Which seats does the game await now? Called after every change (a
 * command by seat `actor`, or -1: a claim, a restore). A seat is awaited
 * only while the game runs (never before every seat is claimed). A seat
 * that becomes awaited, or that acted and is still awaited, gets a fresh
 * deadline; one still awaited that did not act keeps its own. Seats that
 * become awaited with no connection joined are notified. Re-arms the timer.
 */
void games_refresh_awaiting(struct wrd_server *srv, struct wrd_game *g, int actor, int notify)
{
    struct wr_decision d[WR_DECISIONS_MAX];
    int n = g->status == ST_RUNNING ? g->rs->awaiting(g->g, d, WR_DECISIONS_MAX) : 0;
    int64_t now = wrd_now_ms();
    for (int i = 0; i < g->nseats; i++) {
        g->seats[i].was_awaited = g->seats[i].what != NULL;
        g->seats[i].what = NULL;
    }
    for (int k = 0; k < n; k++) {
        int i = games_seat_index(g, d[k].seat);
        if (i < 0)
            continue;
        struct seat *s = &g->seats[i];
        s->what = d[k].what;
        if (!s->was_awaited || i == actor) {
            s->deadline_at = g->deadline_s > 0 ? now + g->deadline_s * 1000 : 0;
            s->reminded = 0;
        }
        if (!s->was_awaited && notify && s->connected == 0)
            defer(srv->games, (struct deferred){ .kind = D_NOTIFY, .game = g, .seat = i,
                                                  .event = "your_turn" });
    }
    for (int i = 0; i < g->nseats; i++)
        if (g->seats[i].what == NULL)
            g->seats[i].deadline_at = 0;
    games_arm_timer(g);
}

void games_broadcast_state(struct wrd_games *gs, struct wrd_game *g)
{
    defer(gs, (struct deferred){ .kind = D_STATE_ALL, .game = g });
}

/* Every view's server section again (the game changed without a command). */
void games_refresh_sections(struct wrd_game *g)
{
    json_t *section = server_section(g);
    for (int v = 0; v < g->nviews; v++)
        json_object_set(g->views[v].state, "server", section);
    json_decref(section);
    g->shown++;
}

/* --- linked games ------------------------------------------------------------- */

/* The server section of g changed without a command of its own (a
 * child's status, a command of a child's refused). A command of g later in
 * this loop iteration carries the change in its patch (publish projects
 * the section afresh); otherwise the flush sends every member the full
 * state (flush_dirty). Either way no event of g is lost. */
static void section_changed(struct wrd_games *gs, struct wrd_game *g)
{
    if (g->dirty_queued)
        return;
    if (gs->ndirty == gs->capdirty) {
        int cap = gs->capdirty ? 2 * gs->capdirty : 16;
        struct wrd_game **d = realloc(gs->dirty, sizeof *d * (size_t)cap);
        if (d == NULL) {
            /* No list: the state goes now (a later patch of this
             * iteration's may then be skipped; its change is in it). */
            games_refresh_sections(g);
            g->quiet_at = g->version;
            games_broadcast_state(gs, g);
            return;
        }
        gs->dirty = d;
        gs->capdirty = cap;
    }
    g->dirty_queued = 1;
    gs->dirty[gs->ndirty++] = g;
}

/* Before the deliveries: each dirty game whose views do not show its
 * server section as it is now gets it, in a full state to every member
 * after the patches of this iteration; a sync from before gets it too. */
static void flush_dirty(struct wrd_games *gs)
{
    for (int i = 0; i < gs->ndirty; i++) {
        struct wrd_game *g = gs->dirty[i];
        g->dirty_queued = 0;
        /* (the time left is not a change: it is counted when sent) */
        json_t *now = server_section(g);
        json_t *shown = json_copy(json_object_get(g->views[0].state, "server"));
        json_object_del(now, "deadlines_left");
        json_object_del(shown, "deadlines_left");
        int same = json_equal(now, shown);
        json_decref(now);
        json_decref(shown);
        if (same)
            continue;
        games_refresh_sections(g);
        g->quiet_at = g->version;
        games_broadcast_state(gs, g);
    }
    gs->ndirty = 0;
}

/* The child id among parent's children, or NULL. */
static struct link *child_link(struct wrd_game *parent, const char *id)
{
    for (int i = 0; i < parent->nchildren; i++)
        if (strcmp(parent->children[i].game, id) == 0)
            return &parent->children[i];
    return NULL;
}

/* A child of parent, shown in its server section from now on: 0, or -1
 * when memory runs out (the link is stored all the same). */
static int add_child(struct wrd_game *parent, const char *id, const char *ruleset,
                     const char *key, int status, const char *result)
{
    if (parent->nchildren == parent->capchildren) {
        int cap = parent->capchildren ? 2 * parent->capchildren : 4;
        struct link *l = realloc(parent->children, sizeof *l * (size_t)cap);
        if (l == NULL)
            return -1;
        parent->children = l;
        parent->capchildren = cap;
    }
    struct link *l = &parent->children[parent->nchildren++];
    memset(l, 0, sizeof *l);
    snprintf(l->game, sizeof l->game, "%s", id);
    snprintf(l->ruleset, sizeof l->ruleset, "%s", ruleset);
    snprintf(l->key, sizeof l->key, "%s", key ? key : "");
    l->status = status;
    snprintf(l->result, sizeof l->result, "%s", result ? result : "");
    return 0;
}

/* A running (not finished) child of parent keyed key, or NULL. */
static const struct link *running_child(const struct wrd_game *parent, const char *key)
{
    for (int i = 0; i < parent->nchildren; i++)
        if (parent->children[i].status != ST_FINISHED &&
            strcmp(parent->children[i].key, key) == 0)
            return &parent->children[i];
    return NULL;
}

/* After any change of child's status or result: its parent's entry
 * follows, and the parent's members see it. */
static void link_status(struct wrd_games *gs, struct wrd_game *child)
{
    struct wrd_game *parent = child->parent[0] ? games_find(gs, child->parent) : NULL;
    struct link *l = parent ? child_link(parent, child->id) : NULL;
    if (l == NULL)
        return;
    const char *res = result_of(child);
    if (l->status == child->status && strcmp(l->result, res ? res : "") == 0)
        return;
    l->status = child->status;
    snprintf(l->result, sizeof l->result, "%s", res ? res : "");
    section_changed(gs, parent);
}

static void on_deadline(uv_timer_t *t)
{
    struct wrd_game *g = t->data;
    struct wrd_server *srv = g->srv;
    if (g->status != ST_RUNNING)
        return;
    int64_t now = wrd_now_ms();
    int nexpired = 0;
    for (int i = 0; i < g->nseats; i++) {
        struct seat *s = &g->seats[i];
        s->was_awaited = 0;     /* here: expired */
        if (s->deadline_at == 0)
            continue;
        if (now >= s->deadline_at) {
            s->was_awaited = 1;
            nexpired++;
        } else if (!s->reminded && now >= remind_at(g, s)) {
            s->reminded = 1;
            defer(srv->games, (struct deferred){ .kind = D_NOTIFY, .game = g, .seat = i,
                                                  .event = "deadline_reminder" });
        }
    }
    if (nexpired == 0) {
        /* The stored wake moves to the expiry: a sweep does not read the
         * game back for a reminder already sent. */
        if (status_row(srv, g) != 0)
            wrd_error("store write failed", "game=%s", g->id);
        games_arm_timer(g);
        return;
    }
    /* Time is up: the seats whose deadline passed forfeit, each with its
     * reason, and the game ends. */
    size_t at = 0;
    g->forfeit_deadline = 0;
    for (int i = 0; i < g->nseats && at < sizeof g->forfeit; i++)
        if (g->seats[i].was_awaited) {
            at += (size_t)snprintf(g->forfeit + at, sizeof g->forfeit - at, "%s%s",
                                   at ? "+" : "", g->seats[i].name);
            forfeit_reason(g, i, g->seats[i].what, g->seats[i].deadline_at);
            if (g->forfeit_deadline == 0 || g->seats[i].deadline_at < g->forfeit_deadline)
                g->forfeit_deadline = g->seats[i].deadline_at;
        }
    g->quiet_at = g->version;
    games_set_status(srv->games, g, ST_FINISHED);
    wrd_info("deadline expired: seat forfeits", "game=%s seat=%s", g->id, g->forfeit);
    for (int i = 0; i < g->nseats; i++) {
        g->seats[i].what = NULL;
        g->seats[i].deadline_at = 0;
    }
    games_arm_timer(g);
    /* Each seat that ran out of time hears of it; the others playing by
     * mail hear that the game is over. */
    for (int i = 0; i < g->nseats; i++)
        if (g->seats[i].was_awaited) {
            defer(srv->games, (struct deferred){ .kind = D_NOTIFY, .game = g, .seat = i,
                                                  .event = "deadline_expired" });
        } else if (g->seats[i].mail.state == WRD_PBEM_CONFIRMED) {
            char lead[256];
            snprintf(lead, sizeof lead, "The game is over: %s forfeited on time.\n",
                     g->forfeit);
            defer_mail(srv->games, g, i, "game_over", strdup(lead), NULL);
        }
    if (status_row(srv, g) != 0)
        wrd_error("store write failed", "game=%s", g->id);
    games_refresh_sections(g);
    /* Every connection gets the full state, with the forfeit events. */
    defer(srv->games, (struct deferred){ .kind = D_STATE_ALL, .game = g, .event = "forfeit" });
    link_status(srv->games, g);
    games_maybe_evict(srv->games, g);
}

/* --- the command path -------------------------------------------------------- */

/* Apply cmd for seat through the rules. On success the version goes up,
 * the command joins the game's record and *events holds its events (new
 * reference); the views are left to games_publish(). On refusal the game is
 * unchanged and why says why. */
int games_apply(struct wrd_game *g, int seat, const json_t *cmd, json_t **events,
          struct wr_refusal *why)
{
    if (wr_game_apply(g->g, g->seats[seat].name, cmd, events, why) != WR_R_OK)
        return -1;
    g->version++;
    add_line(g, record_line(g->seats[seat].name, cmd, *events));
    return 0;
}

/* The text of {"type":"patch","game","from","to","by","ops","events"} (by:
 * the seat whose command it was) and of {"type":"ack","game","seq",
 * "version","events"} when seq > 0 (ops and by unused), written directly:
 * these go out for every command. */
struct wrd_msg *games_change_msg(const struct wrd_game *g, int64_t seq, const char *by,
                           const json_t *ops, const json_t *events, const json_t *id)
{
    char stack[2048];
    struct wrd_buf b;
    wrd_buf_init(&b, stack, sizeof stack);
    wrd_buf_lit(&b, seq > 0 ? "{\"type\":\"ack\",\"game\":" : "{\"type\":\"patch\",\"game\":");
    wrd_buf_str(&b, g->id, strlen(g->id));
    if (seq > 0) {
        wrd_buf_lit(&b, ",\"seq\":");
        wrd_buf_int(&b, seq);
        wrd_buf_lit(&b, ",\"version\":");
        wrd_buf_int(&b, g->version);
    } else {
        wrd_buf_lit(&b, ",\"from\":");
        wrd_buf_int(&b, g->version - 1);
        wrd_buf_lit(&b, ",\"to\":");
        wrd_buf_int(&b, g->version);
        wrd_buf_lit(&b, ",\"by\":");
        wrd_buf_str(&b, by, strlen(by));
        wrd_buf_lit(&b, ",\"ops\":");
        if (ops)
            wrd_buf_json(&b, ops);
        else
            wrd_buf_lit(&b, "[]");
    }
    wrd_buf_lit(&b, ",\"events\":");
    if (events)
        wrd_buf_json(&b, events);
    else
        wrd_buf_lit(&b, "[]");
    return end_msg(&b, id);
}

/* Does the first token of op's path sort after key (byte order, then
 * length: wr_jsonpatch_diff's order of an object's members)? */
static int op_after(const json_t *op, const char *key)
{
    const char *path = json_string_value(json_object_get(op, "path"));
    if (path == NULL || path[0] != '/')
        return 0;
    size_t n = strcspn(path + 1, "/"), k = strlen(key);
    int c = memcmp(path + 1, key, n < k ? n : k);
    return c > 0 || (c == 0 && n > k);
}

/* View v brought up to date in place by its ruleset's update_view
 * (ruleset.h, version 6), the server section (section, borrowed) put in;
 * the patch that does it, with the section's operations where a diff of
 * the whole views has them (its members sorted), so a client gets the
 * patch it got when views were projected and diffed. NULL when the
 * ruleset has no update_view or it failed: the view is then unchanged. */
static json_t *update_view(struct wrd_game *g, int v, const char *vs, json_t *section)
{
    json_t *st = g->views[v].state;
    if (g->rs->version < 6 || g->rs->update_view == NULL || st == NULL)
        return NULL;
    /* The section's diff first: once the ruleset has updated the view,
     * nothing may fail. */
    json_t *from = json_object(), *to = json_object();
    json_t *was = json_object_get(st, "server");
    if (was)
        json_object_set(from, "server", was);
    json_object_set(to, "server", section);
    json_t *sops = wr_jsonpatch_diff(from, to);
    json_decref(from);
    json_decref(to);
    json_t *ops = sops ? wr_game_update_view(g->g, vs, st) : NULL;
    if (ops == NULL) {
        json_decref(sops);
        return NULL;
    }
    size_t at = 0, i;
    json_t *op;
    while (at < json_array_size(ops) && !op_after(json_array_get(ops, at), "server"))
        at++;
    json_array_foreach(sops, i, op)
        json_array_insert(ops, at + i, op);
    json_decref(sops);
    json_object_set(st, "server", section);
    return ops;
}

/* After a live command by seat actor: the game's status, the seats it now
 * awaits, then each view's patch (serialised once, kept for sync,
 * broadcast after the commit): from the ruleset's update_view when it has
 * one, which patches the view in place at the cost of what the command
 * changed; else the view projected afresh and diffed with the last. */
void games_publish(struct wrd_server *srv, struct wrd_game *g, int actor, const json_t *events)
{
    games_set_status(srv->games, g, games_compute_status(g));
    games_refresh_awaiting(srv, g, actor, !g->follower);   /* the owner notifies */
    json_t *section = server_section(g);
    for (int v = 0; v < g->nviews; v++) {
        const char *vs = g->nviews > 1 && v < g->nseats ? g->seats[v].name : NULL;
        json_t *ops = update_view(g, v, vs, section);
        if (ops == NULL) {
            json_t *now = project_view(g, v, section);
            ops = wr_jsonpatch_diff(g->views[v].state, now);
            json_decref(g->views[v].state);
            g->views[v].state = now;
        }
        json_t *evs = g->rs->project_events(g->g, vs, events);
        struct wrd_msg *m = games_change_msg(g, 0, g->seats[actor].name, ops, evs, NULL);
        json_decref(ops);
        json_decref(evs);
        if (m)
            m->game = g;        /* droppable: a fresh state replaces it */
        int k = (int)(g->version % PATCH_RING);
        wrd_msg_unref(g->views[v].patch[k]);
        g->views[v].patch[k] = m;
        g->views[v].patch_to[k] = g->version;
        if (m) {
            wrd_msg_ref(m);
            defer(srv->games, (struct deferred){ .kind = D_BROADCAST, .game = g, .view = v,
                                                  .version = g->version, .msg = m });
        }
    }
    json_decref(section);
    g->shown++;
    games_maybe_evict(srv->games, g);
}

/*
 * Steps 4 and 5 of the command path for cmd from seat (the seq its client
 * gave, 0 for a command of the server's: a linked game's): the rules; on
 * success the patches (publish), the command, status and snapshot rows
 * into the batch, the parent's entry of a child. 0 with *events (new
 * reference, unprojected), or -1 with why and the game unchanged.
 */
static int run_command(struct wrd_server *srv, struct wrd_game *g, int seat, const json_t *cmd,
                       int64_t seq, json_t **events, struct wr_refusal *why)
{
    if (games_apply(g, seat, cmd, events, why) != 0) {
        srv->metrics.rejections++;
        return -1;
    }
    srv->metrics.commands++;
    int old_status = g->status;
    games_publish(srv, g, seat, *events);
    char *cmd_text = wrd_json_text(cmd);
    char *ev_text = wrd_json_text(*events);
    struct wrd_command_row row = { g->id, g->version, g->seats[seat].name, seq, cmd_text, ev_text,
                                   wrd_now_ms() };
    g->moved_ms = g->touched_ms = row.at_ms;
    int bad = srv->store->ops->put_command(srv->store, &row) != 0;
    cluster_note_command(srv, g, &row, cmd);
    int other = g->noted_other;     /* a command's own row: the copies replay it */
    if (g->status != old_status || g->deadline_s > 0)
        bad |= status_row(srv, g) != 0;
    g->noted_other = other;
    if (g->status == ST_FINISHED || g->version % SNAPSHOT_EVERY == 0) {
        char *st = snapshot_text(g);
        bad |= srv->store->ops->put_snapshot(srv->store, g->id, g->version, st, NULL) != 0;
        free(st);
    }
    free(cmd_text);
    free(ev_text);
    if (bad)
        wrd_error("store write failed", "game=%s version=%lld", g->id, (long long)g->version);
    if (g->status == ST_FINISHED && old_status != ST_FINISHED) {
        wrd_info("game finished", "game=%s result=%s", g->id, result_of(g));
        /* Every seat playing by mail hears of the end, but the one whose
         * command ended it: its answer (or its screen) shows the end. */
        for (int i = 0; i < g->nseats; i++)
            if (i != seat && g->seats[i].mail.state == WRD_PBEM_CONFIRMED) {
                char lead[128];
                snprintf(lead, sizeof lead, "The game is over: %s.\n", result_of(g));
                defer_mail(srv->games, g, i, "game_over", strdup(lead), NULL);
            }
    }
    link_status(srv->games, g);
    return 0;
}

/* How deep a chain of linked games is followed (a parent's own parent...). */
#define LINK_DEPTH 8

/*
 * After an accepted command of child with events (borrowed): the events a
 * spectator sees go to the parent's ruleset (child_events), and each
 * command it returns is applied to the parent through run_command, from
 * the seat it names: in the same batch, so it is as durable as the
 * child's command and shown after the same commit. A command the parent
 * refuses changes nothing: it is logged and named in the child's server
 * section (server.parent.refused), and the child goes on.
 */
void games_to_parent(struct wrd_server *srv, struct wrd_game *child, const json_t *events,
               int depth)
{
    if (child->parent[0] == '\0' || depth >= LINK_DEPTH)
        return;
    struct wrd_game *parent = games_find(srv->games, child->parent);
    if (parent == NULL || parent->rs->child_events == NULL) {
        if (parent == NULL)
            wrd_warn("linked game's parent not held", "game=%s parent=%s", child->id,
                     child->parent);
        return;
    }
    if (parent->follower || parent->catching) {
        /* (several servers) only the parent's owner may apply to it:
         * linked games are not shared between processes */
        wrd_warn("linked game's parent owned by another process", "game=%s parent=%s",
                 child->id, parent->id);
        snprintf(child->link_refused, sizeof child->link_refused, "%s is held by another "
                 "server process: its events were not passed to it", parent->id);
        section_changed(srv->games, child);
        return;
    }
    json_t *pub = child->rs->project_events(child->g, NULL, events);
    json_t *cmds = pub ? parent->rs->child_events(parent->g, child->link_key, pub) : NULL;
    json_decref(pub);
    size_t i;
    json_t *x;
    json_array_foreach(cmds, i, x) {
        const char *seat = json_string_value(json_object_get(x, "seat"));
        const json_t *cmd = json_object_get(x, "command");
        int si = games_seat_index(parent, seat);
        struct wr_refusal why = { WR_R_BAD_COMMAND, "bad_command",
                                  "the parent's ruleset named no seat or command" };
        json_t *pev = NULL;
        if (parent->status != ST_RUNNING) {
            why = (struct wr_refusal){ WR_R_GAME_OVER, "game_over", "the game has finished" };
            if (parent->status == ST_OPEN)
                snprintf(why.message, sizeof why.message, "the game has not started");
        } else if (si >= 0 && json_is_object(cmd) &&
                   run_command(srv, parent, si, cmd, 0, &pev, &why) == 0) {
            games_to_parent(srv, parent, pev, depth + 1);
            json_decref(pev);
            continue;
        }
        const char *type = json_string_value(json_object_get(cmd, "type"));
        wrd_warn("parent refused a linked game's command", "game=%s parent=%s seat=%s cmd=%s "
                 "code=%s message=\"%s\"", child->id, parent->id, seat ? seat : "-",
                 type ? type : "-", why.code, why.message);
        snprintf(child->link_refused, sizeof child->link_refused, "%s refused %s from %s: %s (%s)",
                 parent->id, type ? type : "a command", seat ? seat : "no seat", why.message,
                 why.code);
        section_changed(srv->games, child);
    }
    json_decref(cmds);
}

/* Step 2: the answer (new reference) to a seq of seat already answered:
 * the same answer again, or an error when it is too old to be kept; NULL
 * when seq is new. */
struct wrd_msg *games_answered_before(struct wrd_game *g, int seat, int64_t seq,
                                const json_t *jid)
{
    struct seat *s = &g->seats[seat];
    if (seq > s->last_seq)
        return NULL;
    struct result *r = &s->results[seq % RESULTS];
    if (r->seq == seq && r->answer) {
        wrd_msg_ref(r->answer);
        return r->answer;
    }
    json_t *jseq = json_integer(seq);
    struct wrd_msg *a = wrd_error_msg(WRD_E_STALE_SEQ, "that seq was answered long ago", g->id,
                                      jseq, jid);
    json_decref(jseq);
    return a;
}

/*
 * Steps 3 to 5 for a new seq of seat (checked: > its last): the game must
 * be in play, then the rules and the batch. The answer (new reference,
 * remembered for the seat: an ack or a refusal), and *events the accepted
 * command's events (new reference, unprojected) or NULL. Called on the
 * process that owns the game, for its own clients and for those of the
 * others (forwarded).
 */
struct wrd_msg *games_command_core(struct wrd_server *srv, struct wrd_game *g, int seat,
                             int64_t seq, const json_t *cmd, const json_t *jid,
                             json_t **events)
{
    struct seat *s = &g->seats[seat];
    json_t *jseq = json_integer(seq);
    struct wrd_msg *a;
    *events = NULL;
    /* 3) a game in play: started (every seat claimed) and not over */
    if (g->status != ST_RUNNING) {
        a = g->status == ST_OPEN
            ? wrd_error_msg(WRD_E_NOT_STARTED, "the game starts when every seat is claimed",
                            g->id, jseq, jid)
            : wrd_error_msg(WRD_E_GAME_OVER, "the game has finished", g->id, jseq, jid);
        srv->metrics.rejections++;
    } else {
        /* 4) the rules, 5) the batch */
        struct wr_refusal why;
        if (run_command(srv, g, seat, cmd, seq, events, &why) != 0) {
            a = wrd_refusal_msg(why.code, why.message, g->id, jseq, jid);
        } else {
            json_t *pev = g->rs->project_events(g->g, s->name, *events);
            a = games_change_msg(g, seq, NULL, NULL, pev, jid);
            json_decref(pev);
        }
    }
    json_decref(jseq);
    games_remember(s, seq, a);
    return a;
}

static void command_run(struct wrd_server *srv, struct wrd_conn *c, const json_t *msg,
                        int fetched)
{
    struct wrd_games *gs = srv->games;
    const char *id = json_string_value(json_object_get(msg, "game"));
    json_t *jseq = json_object_get(msg, "seq");
    json_t *cmd = json_object_get(msg, "cmd");
    json_t *jid = json_object_get(msg, "id");
    struct wrd_game *g = games_find(gs, id);
    /* 1) a game this connection joined as a seat (a game not in memory is
     * read back first, for the right refusal: it cannot be joined) */
    if (g == NULL && !fetched && fetch(srv, c, msg, command_run, &id, 1))
        return;
    if (g == NULL) {
        wrd_conn_error(c, WRD_E_NO_SUCH_GAME, "there is no such game", id, jseq, jid);
        return;
    }
    struct wrd_member *m = wrd_conn_member(c, g);
    if (m == NULL) {
        wrd_conn_error(c, WRD_E_NOT_JOINED, "join the game with your seat token first", id, jseq,
                       jid);
        return;
    }
    if (m->seat < 0) {
        wrd_conn_error(c, WRD_E_SPECTATOR, "spectators cannot act", id, jseq, jid);
        return;
    }
    json_int_t seq = json_integer_value(jseq);
    if (seq <= 0 || seq > WRD_MAX_SEQ) {
        /* Bounded so that a client cannot wedge its seat with a seq nothing
         * can follow (2^63-1), and so that every seq is exact in a double
         * (JavaScript clients). */
        wrd_conn_error(c, WRD_E_BAD_MESSAGE, "seq must be an integer from 1 to 2^53-1", id, jseq,
                       jid);
        return;
    }
    /* 2) a re-sent command is answered again, never applied twice */
    struct wrd_msg *again = games_answered_before(g, m->seat, seq, jid);
    if (again) {
        games_defer_direct(gs, c, again);
        return;
    }
    if (!wrd_conn_take_token(c)) {
        wrd_conn_error(c, WRD_E_RATE_LIMITED, "too many commands per second", id, jseq, jid);
        return;
    }
    /* another process owns the game: the command goes to it */
    if (gs->cluster && cluster_forward(srv, c, g, m->seat, seq, cmd, jid))
        return;
    json_t *events = NULL;
    games_defer_direct(gs, c, games_command_core(srv, g, m->seat, seq, cmd, jid, &events));
    /* 6) a linked game's events, to its parent */
    if (events)
        games_to_parent(srv, g, events, 0);
    json_decref(events);
}

void wrd_games_command(struct wrd_server *srv, struct wrd_conn *c, const json_t *msg)
{
    command_run(srv, c, msg, 0);
}

/* --- create, claim, join ---------------------------------------------------- */

/* Join c to g as seat (-1: a spectator). Its state goes now, echoing id
 * (STATE_NOW: a join); or once the flush has sent the answer deferred
 * before it (STATE_AFTER: create and claim answer `created` or `claimed`
 * first); or not at all (STATE_NONE: a broadcast state covers it). */
int games_attach(struct wrd_server *srv, struct wrd_conn *c, struct wrd_game *g, int seat,
           const json_t *id, int when)
{
    struct wrd_member *old = wrd_conn_member(c, g);
    if (old)
        wrd_games_member_left(srv, c, g);
    if (wrd_conn_join(c, g, seat) == NULL)
        return -1;
    if (g->nmembers == g->capmembers) {
        int cap = g->capmembers ? 2 * g->capmembers : 8;
        struct member_ref *m = realloc(g->members, sizeof *m * (size_t)cap);
        if (m == NULL) {
            wrd_conn_leave(c, g);
            return -1;
        }
        g->members = m;
        g->capmembers = cap;
    }
    g->members[g->nmembers++] = (struct member_ref){ c, seat, g->version };
    if (seat >= 0)
        g->seats[seat].connected++;
    if (when == STATE_AFTER) {
        wrd_conn_ref(c);
        defer(srv->games, (struct deferred){ .kind = D_STATE_ONE, .game = g, .conn = c });
    } else if (when == STATE_NOW) {
        send_state(c, g, seat, id, 0);
    }
    return 0;
}

/* Close m's view of its game, if it has one, and give its address the
 * view back (--max-views-per-address). */
static void drop_view(struct wrd_conn *c, struct wrd_member *m)
{
    if (m->ask == NULL)
        return;
    wrd_ask_free(m->ask);
    m->ask = NULL;
    if (c->from)
        c->from->views--;
}

void wrd_games_member_left(struct wrd_server *srv, struct wrd_conn *c, struct wrd_game *g)
{
    struct wrd_member *mine = wrd_conn_member(c, g);
    if (mine)
        drop_view(c, mine);             /* its view goes with it */
    for (int i = 0; i < g->nmembers; i++)
        if (g->members[i].conn == c) {
            if (g->members[i].seat >= 0)
                g->seats[g->members[i].seat].connected--;
            g->members[i] = g->members[--g->nmembers];
            break;
        }
    wrd_conn_leave(c, g);
    g->touched_ms = wrd_now_ms();
    games_maybe_evict(srv->games, g);
}

static json_t *load_scenario(struct wrd_server *srv, const char *name, char *err, size_t errlen)
{
    char path[1024];
    if (name[0] == '\0' || name[0] == '/' || strstr(name, "..") || strlen(name) > 200) {
        snprintf(err, errlen, "bad scenario name");
        return NULL;
    }
    for (int i = 0; i < 2; i++) {
        if (i == 0)
            snprintf(path, sizeof path, "%s/%s.json", srv->cfg.scenarios, name);
        else
            snprintf(path, sizeof path, "%s/%s/scenario.json", srv->cfg.scenarios, name);
        json_error_t jerr;
        json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
        if (j)
            return j;
    }
    snprintf(err, errlen, "the server has no scenario '%.64s'", name);
    return NULL;
}

/* The server's own options are checked here; the ruleset's (rs->options)
 * are let through for its create() to check. */
static const char *check_options(const struct wr_ruleset *rs, const json_t *o)
{
    const char *key;
    json_t *v;
    if (o == NULL)
        return NULL;
    json_object_foreach((json_t *)o, key, v) {
        if (wr_ruleset_option(rs, key))
            continue;
        if (strcmp(key, "spectators") == 0 || strcmp(key, "open_seats") == 0) {
            if (!json_is_boolean(v))
                return "spectators and open_seats are true or false";
        } else if (strcmp(key, "deadline_seconds") == 0) {
            json_int_t d = json_integer_value(v);
            if (!json_is_integer(v) || d < 0 || d > 2592000)
                return "deadline_seconds is 0 (none) to 2592000 (30 days)";
        } else {
            return "unknown option";
        }
    }
    return NULL;
}

/* Absent, null, or an http:// URL the notifier can post to: 0. Otherwise
 * the error is sent (bad_message for a malformed URL, webhook_refused for a
 * destination the notifier refuses) and the result is negative. */
static int check_webhook(struct wrd_server *srv, struct wrd_conn *c, const json_t *w,
                         const char *bad, const char *game, json_t *jid)
{
    if (w == NULL || json_is_null(w))
        return 0;
    char why[512];
    int r = json_is_string(w) ? wrd_notifier_check_url(srv->notifier, json_string_value(w), why,
                                                       sizeof why)
                              : WRD_NOTIFY_EBADURL;
    if (r == WRD_NOTIFY_EREFUSED)
        wrd_conn_refusal(c, wrd_notify_err_code(r), why, game, NULL, jid);
    else if (r != 0)
        wrd_conn_error(c, WRD_E_BAD_MESSAGE, bad, game, NULL, jid);
    return r;
}

/* The rest of create, once the ruleset (and, for a linked game, the parent
 * with the creator's seat in it and its ruleset's answer, link, borrowed)
 * is known: options is the creator's, or the parent's answer's. */
static void create_run(struct wrd_server *srv, struct wrd_conn *c, const json_t *msg,
                       const struct wr_ruleset *rs, const char *scen, const json_t *options,
                       struct wrd_game *parent, int parent_seat, const json_t *link,
                       const char *key)
{
    struct wrd_games *gs = srv->games;
    json_t *jid = json_object_get(msg, "id");
    const char *seatname = json_string_value(json_object_get(msg, "seat"));
    json_t *webhook = json_object_get(msg, "webhook");
    char err[256];
    const char *bad = check_options(rs, options);
    if (bad) {
        wrd_conn_error(c, WRD_E_BAD_OPTIONS, bad, NULL, NULL, jid);
        return;
    }
    if (check_webhook(srv, c, webhook, "webhook must be an http:// URL", NULL, jid) != 0 ||
        check_mail(srv, c, json_object_get(msg, "mail"), 0, NULL, jid) != 0)
        return;
    /* Games in play cost memory until they end: bounded server-wide, per
     * creating address, and, for games nobody else has joined yet (which
     * cost the creator nothing), more tightly per address. */
    if (gs->live >= srv->cfg.max_games) {
        wrd_conn_error(c, WRD_E_TOO_MANY_GAMES, "the server holds its maximum of games in play",
                       NULL, NULL, jid);
        return;
    }
    if (c->from->games >= srv->cfg.max_games_per_address) {
        wrd_conn_error(c, WRD_E_TOO_MANY_GAMES, "your address has created the most games in play "
                       "it may: finish some first", NULL, NULL, jid);
        return;
    }
    if (c->from->open_games >= srv->cfg.max_open_per_address) {
        wrd_conn_error(c, WRD_E_TOO_MANY_OPEN_GAMES, "your address has created the most games "
                       "waiting for players it may: wait until their seats are claimed", NULL,
                       NULL, jid);
        return;
    }
    char *scenario_text = NULL;
    if (scen) {
        json_t *sj = load_scenario(srv, scen, err, sizeof err);
        if (sj == NULL) {
            wrd_conn_error(c, WRD_E_NO_SUCH_SCENARIO, err, NULL, NULL, jid);
            return;
        }
        scenario_text = json_dumps(sj, JSON_COMPACT | JSON_PRESERVE_ORDER);
        json_decref(sj);
    }
    uint8_t seed[32];
    char id[24], rnd[13];
    if (uv_random(NULL, NULL, seed, sizeof seed, 0, NULL) != 0 || games_random_hex(6, rnd) != 0) {
        free(scenario_text);
        wrd_conn_error(c, WRD_E_INTERNAL, "no randomness available", NULL, NULL, jid);
        return;
    }
    snprintf(id, sizeof id, "g-%s", rnd);
    /* A new game names the rules version it is played under (ruleset.h). */
    json_t *opts = wr_game_options(rs, options, 1);
    int why = WR_R_BAD_SCENARIO;
    struct wrd_game *g = game_new(srv, rs, id, scen, scenario_text, opts, seed, err, sizeof err,
                                  &why);
    free(scenario_text);
    if (g == NULL) {
        wrd_conn_error(c, why == WR_R_BAD_OPTIONS ? WRD_E_BAD_OPTIONS : WRD_E_NO_SUCH_SCENARIO, err,
                       NULL, NULL, jid);
        return;
    }
    /* A linked game's seats are held by the parent seats' holders: each
     * mapped seat takes the parent seat's token hash (and webhook), so the
     * same token opens both; the creator's is the one mapped to its seat. */
    int me = -1;
    const json_t *map = parent ? json_object_get(link, "seats") : NULL;
    if (parent) {
        for (int i = 0; i < g->nseats && me < 0; i++) {
            const char *ps = json_string_value(json_object_get(map, g->seats[i].name));
            if (ps && strcmp(ps, parent->seats[parent_seat].name) == 0)
                me = i;
        }
        if (me >= 0 && seatname && strcmp(seatname, g->seats[me].name) != 0)
            me = -1;
    } else {
        me = games_seat_index(g, seatname ? seatname : g->seats[0].name);
    }
    if (me < 0) {
        game_free(g);
        wrd_conn_error(c, WRD_E_BAD_SEAT, parent ? "your seat of the parent game holds no "
                       "seat of this one, or not that seat" : "no such seat in this ruleset",
                       NULL, NULL, jid);
        return;
    }
    if (gs->cluster && cluster_own_new(srv, g) != 0) {
        /* a fresh id no process holds: only the store can fail here */
        wrd_error("the store could not give a new game its owner", "game=%s", g->id);
        game_free(g);
        wrd_conn_error(c, WRD_E_INTERNAL, "the store failed; no game was made", NULL, NULL, jid);
        return;
    }
    /* The creator's token, and one invite per other seat. */
    char token[65] = "", invite[33];
    json_t *inv = json_object();
    if (parent == NULL) {
        games_random_hex(32, token);
        games_sha256_hex(token, g->seats[me].token_hash);
    }
    if (json_is_string(webhook)) {
        g->seats[me].webhook = strdup(json_string_value(webhook));
        snprintf(g->seats[me].webhook_owner, sizeof g->seats[me].webhook_owner, "%s", c->addr);
    }
    mail_register(srv, g, me, json_string_value(json_object_get(msg, "mail")));
    for (int i = 0; i < g->nseats; i++) {
        int pi = parent ? games_seat_index(parent, json_string_value(json_object_get(
                                                  map, g->seats[i].name))) : -1;
        if (pi >= 0 && parent->seats[pi].token_hash[0]) {
            struct seat *from = &parent->seats[pi], *to = &g->seats[i];
            memcpy(to->token_hash, from->token_hash, sizeof to->token_hash);
            if (to->webhook == NULL && from->webhook) {
                to->webhook = strdup(from->webhook);
                memcpy(to->webhook_owner, from->webhook_owner, sizeof to->webhook_owner);
            }
            if (to->mail.state == WRD_PBEM_NONE)
                to->mail = from->mail;  /* the same player: the same mail */
            continue;
        }
        if (i == me)
            continue;
        games_random_hex(16, invite);
        games_sha256_hex(invite, g->seats[i].invite_hash);
        invite_index(gs, g, i);
        json_object_set_new(inv, g->seats[i].name, json_string(invite));
    }
    if (parent) {
        snprintf(g->parent, sizeof g->parent, "%s", parent->id);
        snprintf(g->link_key, sizeof g->link_key, "%s", key);
    }
    g->owner = wrd_addr_hold(c->from);
    /* Keys of games are unique and in creation order, even for games made
     * in the same millisecond (the lobby lists newest first by them). */
    int64_t now = wrd_now_ms();
    g->created_ms = now > gs->last_created_ms ? now : gs->last_created_ms + 1;
    gs->last_created_ms = g->created_ms;
    g->status = games_compute_status(g);
    if (g->status == ST_RUNNING)
        games_refresh_awaiting(srv, g, -1, 1);
    project_all(g);
    registry_add(gs, g);

    char *opt_text = json_dumps(g->options, JSON_COMPACT);
    struct wrd_game_row row = { g->id, rs->name, g->scenario_name,
                                g->scenario_text ? g->scenario_text : "null", opt_text, g->seed,
                                g->created_ms, listed(g), parent ? g->parent : NULL,
                                parent ? g->link_key : NULL };
    int fail = srv->store->ops->put_game(srv->store, &row) != 0;
    free(opt_text);
    for (int i = 0; i < g->nseats; i++)
        fail |= seat_row(srv, g, i, 1) != 0;
    fail |= status_write(srv, g, 1) != 0;     /* a game that starts at once */
    if (fail)
        wrd_error("store write failed", "game=%s", g->id);
    wrd_info("game created", "game=%s ruleset=%s scenario=%s parent=%s", g->id, rs->name,
             g->scenario_name, parent ? parent->id : "-");
    if (parent) {
        if (add_child(parent, g->id, rs->name, key, g->status, NULL) != 0)
            wrd_error("out of memory for a link", "game=%s parent=%s", g->id, parent->id);
        /* its row says it is linked now: a start loads it (wake_ms 1) */
        if (status_row(srv, parent) != 0)
            wrd_error("store write failed", "game=%s", parent->id);
        section_changed(gs, parent);
    }

    /* A linked game's creator already holds its token: the parent's. */
    json_t *ans = json_pack("{s:s, s:s, s:s, s:o, s:I}", "type", "created", "game", g->id,
                            "seat", g->seats[me].name, "invites", inv, "version",
                            (json_int_t)g->version);
    if (parent)
        json_object_set_new(ans, "parent", json_pack("{s:s, s:s}", "game", parent->id, "key",
                                                     key));
    else
        json_object_set_new(ans, "token", json_string(token));
    if (jid)
        json_object_set(ans, "id", jid);
    /* The answer carries a secret: it waits for the commit like an ack. */
    struct wrd_msg *a = wrd_msg_json(ans);
    json_decref(ans);
    games_defer_direct(gs, c, a);
    if (games_attach(srv, c, g, me, jid, STATE_AFTER) != 0)
        wrd_conn_error(c, WRD_E_INTERNAL, "out of memory", g->id, NULL, jid);
}

void wrd_games_create(struct wrd_server *srv, struct wrd_conn *c, const json_t *msg)
{
    struct wrd_games *gs = srv->games;
    json_t *jid = json_object_get(msg, "id");
    const char *rsname = json_string_value(json_object_get(msg, "ruleset"));
    const char *scen = json_string_value(json_object_get(msg, "scenario"));
    json_t *options = json_object_get(msg, "options");

    const char *parent_id = json_string_value(json_object_get(msg, "parent"));
    char err[256];

    const struct wr_ruleset *rs = wr_ruleset_find(rsname);
    if (rs == NULL) {
        wrd_conn_error(c, WRD_E_NO_SUCH_RULESET, "the server has no such ruleset", NULL, NULL, jid);
        return;
    }
    if (scen == NULL)
        scen = rs->default_scenario;    /* NULL too when the ruleset needs none */
    /* A linked game: the parent's ruleset says what it is (its key, its
     * options over the creator's, who holds its seats). */
    struct wrd_game *parent = NULL;
    json_t *link = NULL;
    const char *key = NULL;
    int parent_seat = -1;
    if (parent_id) {
        parent = games_find(gs, parent_id);
        if (parent == NULL) {
            wrd_conn_error(c, WRD_E_NO_SUCH_GAME, "there is no such parent game (it must be in "
                           "play)", parent_id, NULL, jid);
            return;
        }
        struct wrd_member *pm = wrd_conn_member(c, parent);
        if (pm == NULL) {
            wrd_conn_error(c, WRD_E_NOT_JOINED, "join the parent game with your seat token "
                           "first", parent_id, NULL, jid);
            return;
        }
        if (pm->seat < 0) {
            wrd_conn_error(c, WRD_E_SPECTATOR, "spectators cannot make a game of the parent's",
                           parent_id, NULL, jid);
            return;
        }
        if (parent->status != ST_RUNNING) {
            if (parent->status == ST_OPEN)
                wrd_conn_error(c, WRD_E_NOT_STARTED, "the parent game has not started",
                               parent_id, NULL, jid);
            else
                wrd_conn_error(c, WRD_E_GAME_OVER, "the parent game has finished", parent_id,
                               NULL, jid);
            return;
        }
        if (!cluster_may_write(srv, c, parent, jid))
            return;             /* a link is written with its parent */
        if (parent->rs->child == NULL) {
            wrd_conn_error(c, WRD_E_NO_CHILDREN, "that game's ruleset plays no part of it as a "
                           "game of its own", parent_id, NULL, jid);
            return;
        }
        parent_seat = pm->seat;
        struct wr_refusal why = { WR_R_BAD_COMMAND, "bad_command", "" };
        link = parent->rs->child(parent->g, parent->seats[pm->seat].name, rs->name, options,
                                 &why);
        if (link == NULL) {
            wrd_conn_refusal(c, why.code, why.message, parent_id, NULL, jid);
            return;
        }
        key = json_string_value(json_object_get(link, "key"));
        options = json_object_get(link, "options");
        if (key == NULL || key[0] == '\0' || strlen(key) > 63 || !json_is_object(options) ||
            !json_is_object(json_object_get(link, "seats"))) {
            json_decref(link);
            wrd_error("a ruleset's child answer is malformed", "parent=%s", parent_id);
            wrd_conn_error(c, WRD_E_INTERNAL, "the parent's ruleset gave no usable answer",
                           parent_id, NULL, jid);
            return;
        }
        const struct link *running = running_child(parent, key);
        if (running) {
            snprintf(err, sizeof err, "%s is already played as game %s (%s)", key,
                     running->game, status_names[running->status]);
            json_decref(link);
            wrd_conn_error(c, WRD_E_CHILD_EXISTS, err, parent_id, NULL, jid);
            return;
        }
    }
    create_run(srv, c, msg, rs, scen, options, parent, parent_seat, link, key);
    json_decref(link);
}

/*
 * The claim of seat of g by the holder of a token whose hash is token_hash:
 * the seat taken, its invite used, its webhook (set by the address
 * owner_addr) and mail set, the rows into the batch. When it was the last
 * seat the game starts: its first decisions are awaited (and their
 * deadlines run) from now, and every member gets a full state after the
 * commit. 1 when the game started, else 0. The owner's, for its own clients
 * and for another process's (forwarded).
 */
int games_claim_seat(struct wrd_server *srv, struct wrd_game *g, int seat, const char *token_hash,
               const json_t *webhook, const char *owner_addr, const json_t *mail)
{
    struct wrd_games *gs = srv->games;
    struct seat *s = &g->seats[seat];
    snprintf(s->token_hash, sizeof s->token_hash, "%s", token_hash);
    if (s->invite_hash[0])
        games_invite_unindex(gs, g, seat);
    s->invite_hash[0] = '\0';
    free(s->webhook);
    s->webhook = json_is_string(webhook) ? strdup(json_string_value(webhook)) : NULL;
    snprintf(s->webhook_owner, sizeof s->webhook_owner, "%s", s->webhook ? owner_addr : "");
    if (json_is_string(mail))
        mail_register(srv, g, seat, json_string_value(mail));
    int old = g->status;
    games_set_status(gs, g, games_compute_status(g));
    if (seat_row(srv, g, seat, 0) != 0 || status_row(srv, g) != 0)
        wrd_error("store write failed", "game=%s", g->id);
    wrd_info("seat claimed", "game=%s seat=%s", g->id, s->name);
    if (old == g->status)
        return 0;
    games_refresh_awaiting(srv, g, -1, 1);
    games_refresh_sections(g);
    g->quiet_at = g->version;
    games_broadcast_state(gs, g);
    link_status(gs, g);
    return 1;
}

/* The game and seat a claim names: by the hash of its invite (h, or NULL),
 * or by game id and seat name. 0 with *g and *seat; else the error code
 * (WRD_E_*) and its sentence in *why. */
int games_claim_target(struct wrd_games *gs, const char *h, const char *id,
                 const char *seatname, struct wrd_game **g, int *seat, const char **why)
{
    *g = NULL;
    *seat = -1;
    if (h) {
        for (struct invite_ref *r = gs->invites[invite_bucket(h)]; r; r = r->next)
            if (games_same_hash(r->game->seats[r->seat].invite_hash, h)) {
                *g = r->game;
                *seat = r->seat;
                break;
            }
        if (*g == NULL)
            return *why = "unknown or already used invite", WRD_E_BAD_INVITE;
    } else {
        *g = games_find(gs, id);
        if (*g == NULL)
            return *why = "there is no such game", WRD_E_NO_SUCH_GAME;
        if (!(*g)->open_seats)
            return *why = "this game's seats are by invitation", WRD_E_NOT_OPEN;
        *seat = games_seat_index(*g, seatname);
        if (*seat < 0)
            return *why = "no such seat in this game", WRD_E_BAD_SEAT;
    }
    if ((*g)->seats[*seat].token_hash[0])
        return *why = "that seat is taken", WRD_E_SEAT_TAKEN;
    return 0;
}

/* The answer to a claim: {"type":"claimed","game","seat","token"}, with id. */
struct wrd_msg *games_claimed_msg(const char *game, const char *seat, const char *token,
                            const json_t *jid)
{
    json_t *ans = json_pack("{s:s, s:s, s:s, s:s}", "type", "claimed", "game", game, "seat",
                            seat, "token", token);
    if (jid)
        json_object_set(ans, "id", (json_t *)jid);
    struct wrd_msg *a = wrd_msg_json(ans);
    json_decref(ans);
    return a;
}

static void claim_run(struct wrd_server *srv, struct wrd_conn *c, const json_t *msg, int fetched)
{
    struct wrd_games *gs = srv->games;
    json_t *jid = json_object_get(msg, "id");
    const char *invite = json_string_value(json_object_get(msg, "invite"));
    const char *id = json_string_value(json_object_get(msg, "game"));
    const char *seatname = json_string_value(json_object_get(msg, "seat"));
    json_t *webhook = json_object_get(msg, "webhook");
    json_t *mail = json_object_get(msg, "mail");
    if (check_webhook(srv, c, webhook, "webhook must be an http:// URL", NULL, jid) != 0 ||
        check_mail(srv, c, mail, 0, NULL, jid) != 0)
        return;
    if (invite == NULL && (id == NULL || seatname == NULL)) {
        wrd_conn_error(c, WRD_E_BAD_MESSAGE, "claim needs an invite, or a game and a seat", id, NULL,
                       jid);
        return;
    }
    /* Invites are only ever compared by hash. */
    char h[65];
    if (invite && !games_is_hex(invite, 32)) {
        wrd_conn_error(c, WRD_E_BAD_INVITE, "an invite is 32 hex digits", NULL, NULL, jid);
        return;
    }
    if (invite)
        games_sha256_hex(invite, h);
    else if (!fetched && games_find(gs, id) == NULL && fetch(srv, c, msg, claim_run, &id, 1))
        return;                 /* not in memory here: read from the store first */
    struct wrd_game *g;
    int seat;
    const char *why;
    int code = games_claim_target(gs, invite ? h : NULL, id, seatname, &g, &seat, &why);
    /* in a cluster, the game of an invite may be held by another process */
    if (code == WRD_E_BAD_INVITE && gs->cluster && cluster_claim(srv, c, NULL, -1, h, msg))
        return;
    if (code != 0) {
        wrd_conn_error(c, code, why, code == WRD_E_SEAT_TAKEN || code == WRD_E_NOT_OPEN ||
                       code == WRD_E_BAD_SEAT ? g->id : code == WRD_E_NO_SUCH_GAME ? id : NULL,
                       NULL, jid);
        return;
    }
    if (gs->cluster && cluster_claim(srv, c, g, seat, invite ? h : NULL, msg))
        return;                 /* another process owns it */
    char token[65], token_hash[65];
    games_random_hex(32, token);
    games_sha256_hex(token, token_hash);
    games_defer_direct(gs, c, games_claimed_msg(g->id, g->seats[seat].name, token, jid));
    int started = games_claim_seat(srv, g, seat, token_hash, webhook, c->addr, mail);
    /* the claimer is joined to the game: a full state after `claimed` (or
     * the start's, which every member gets) */
    if (games_attach(srv, c, g, seat, started ? NULL : jid, started ? STATE_NONE : STATE_AFTER) != 0)
        wrd_conn_error(c, WRD_E_INTERNAL, "out of memory", g->id, NULL, jid);
}

void wrd_games_claim(struct wrd_server *srv, struct wrd_conn *c, const json_t *msg)
{
    claim_run(srv, c, msg, 0);
}

void games_join_run(struct wrd_server *srv, struct wrd_conn *c, const json_t *msg, int fetched)
{
    json_t *jid = json_object_get(msg, "id");
    const char *id = json_string_value(json_object_get(msg, "game"));
    const char *token = json_string_value(json_object_get(msg, "token"));
    int spectate = json_is_true(json_object_get(msg, "spectate"));
    struct wrd_game *g = games_find(srv->games, id);
    if (g == NULL && !fetched && fetch(srv, c, msg, games_join_run, &id, 1))
        return;                 /* a finished game, read back from the store first */
    if (g == NULL) {
        wrd_conn_error(c, WRD_E_NO_SUCH_GAME, "there is no such game", id, NULL, jid);
        return;
    }
    if ((token != NULL) == spectate) {
        wrd_conn_error(c, WRD_E_BAD_MESSAGE, "join with a token, or with \"spectate\": true", id,
                       NULL, jid);
        return;
    }
    if (spectate) {
        if (!g->spectators) {
            wrd_conn_error(c, WRD_E_NO_SPECTATORS, "this game does not allow spectators", id, NULL,
                           jid);
            return;
        }
        games_attach(srv, c, g, -1, jid, STATE_NOW);
        return;
    }
    char h[65];
    int seat = -1;
    if (games_is_hex(token, 64)) {
        games_sha256_hex(token, h);
        for (int i = 0; i < g->nseats; i++)
            if (g->seats[i].token_hash[0] && games_same_hash(g->seats[i].token_hash, h))
                seat = i;
    }
    /* a copy of another process's game may not know a seat claimed just
     * now (even one read for this join: the read may have started before
     * the claim's commit): it reads the store's rows once more before
     * refusing */
    if (seat < 0 && fetched < 2 && cluster_recheck(srv, c, g, msg, games_join_run))
        return;
    if (seat < 0) {
        wrd_conn_error(c, WRD_E_BAD_TOKEN, "that token opens no seat of this game", id, NULL, jid);
        return;
    }
    games_attach(srv, c, g, seat, jid, STATE_NOW);
}

void wrd_games_join(struct wrd_server *srv, struct wrd_conn *c, const json_t *msg)
{
    games_join_run(srv, c, msg, 0);
}

/* --- sync, list, leave, export, notify ------------------------------------------ */

static void sync_run(struct wrd_server *srv, struct wrd_conn *c, const json_t *msg, int fetched)
{
    json_t *jid = json_object_get(msg, "id");
    const char *id = json_string_value(json_object_get(msg, "game"));
    json_int_t since = json_integer_value(json_object_get(msg, "since"));
    struct wrd_game *g = games_find(srv->games, id);
    if (g == NULL && !fetched && fetch(srv, c, msg, sync_run, &id, 1))
        return;                 /* not in memory: read back, for the right refusal */
    struct wrd_member *m = g ? wrd_conn_member(c, g) : NULL;
    if (m == NULL) {
        wrd_conn_error(c, g ? WRD_E_NOT_JOINED : WRD_E_NO_SUCH_GAME,
                       g ? "join the game first" : "there is no such game", id, NULL, jid);
        return;
    }
    /* A copy of another process's game (or one whose rows are being
     * read after a takeover) may be behind what the client saw: a client
     * that moved here from a process that was killed knows versions the
     * notes have not brought yet. It reads the store's rows once before
     * answering, so that a sync never answers with a state older than
     * `since` (the versions a client saw were committed). */
    if (since > g->version && fetched < 2 && cluster_recheck(srv, c, g, msg, sync_run))
        return;
    /* The patches from `since` on, then `synced`; or a full state when
     * they are gone, or when the server section changed without a command
     * at or after `since` (the game started, or ended by forfeit). */
    const struct view *v = &g->views[view_of(g, m->seat)];
    int have = since >= 0 && since <= g->version && g->version - since <= PATCH_RING &&
               since > g->quiet_at;
    for (json_int_t k = since + 1; have && k <= g->version; k++)
        have = v->patch[k % PATCH_RING] && v->patch_to[k % PATCH_RING] == k;
    if (!have) {
        send_state(c, g, m->seat, jid, 0);
        return;
    }
    for (json_int_t k = since + 1; k <= g->version; k++)
        wrd_conn_send(c, v->patch[k % PATCH_RING]);
    json_t *a = json_pack("{s:s, s:s, s:I}", "type", "synced", "game", g->id, "version",
                          (json_int_t)g->version);
    if (jid)
        json_object_set(a, "id", jid);
    wrd_conn_send_json(c, a);
}

void wrd_games_sync(struct wrd_server *srv, struct wrd_conn *c, const json_t *msg)
{
    sync_run(srv, c, msg, 0);
}

static json_t *game_summary(const struct wrd_game *g)
{
    json_t *seats = json_object();
    for (int i = 0; i < g->nseats; i++)
        json_object_set_new(seats, g->seats[i].name,
                            json_string(g->seats[i].token_hash[0] ? "taken" : "free"));
    /* the ruleset's first awaited seat (its order, not the seats') */
    const char *aw = g->status == ST_RUNNING ? wr_game_awaited(g->g) : NULL;
    json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:I, s:o, s:b, s:b}", "game", g->id, "ruleset",
                          g->rs->name, "scenario", g->scenario_name, "status",
                          status_names[g->status], "version", (json_int_t)g->version, "seats",
                          seats, "spectators", g->spectators, "open_seats", g->open_seats);
    json_object_set_new(o, "awaiting", aw ? json_string(aw) : json_null());
    int watching = 0;
    for (int k = 0; k < g->nmembers; k++)
        watching += g->members[k].seat < 0;
    json_object_set_new(o, "watching", json_integer(watching));
    json_object_set_new(o, "last_move_ms", g->moved_ms ? json_integer(g->moved_ms) : json_null());
    if (g->status == ST_FINISHED)
        json_object_set_new(o, "result", json_string(result_of(g) ? result_of(g) : ""));
    return o;
}

static int status_index(const char *name)
{
    for (int i = 0; i < 3; i++)
        if (strcmp(name, status_names[i]) == 0)
            return i;
    return -1;
}

#define LIST_DEFAULT 50
#define LIST_MAX 200

/* A list request read: the lobby (listed games, newest first, after a
 * cursor), or the games named by their ids. */
struct list_query {
    const char *ruleset;        /* or NULL */
    int status;                 /* or -1 */
    const json_t *games;        /* ids asked for by name, or NULL */
    int limit;
    int64_t before_ms;          /* the cursor: games older than (ms, id) */
    char before_id[24];
    int from_top;               /* no cursor */
};

/* Read {filter:{ruleset,status,games}, limit, cursor}; NULL, or what is
 * wrong with it. */
static const char *read_query(const json_t *req, struct list_query *q)
{
    memset(q, 0, sizeof *q);
    q->status = -1;
    q->limit = LIST_DEFAULT;
    q->from_top = 1;
    const json_t *f = json_object_get(req, "filter"), *v;
    const char *key;
    json_object_foreach((json_t *)f, key, v) {
        if (strcmp(key, "ruleset") == 0 && json_is_string(v)) {
            q->ruleset = json_string_value(v);
        } else if (strcmp(key, "status") == 0 && json_is_string(v)) {
            if ((q->status = status_index(json_string_value(v))) < 0)
                return "filter.status is open, running or finished";
        } else if (strcmp(key, "games") == 0 && json_is_array(v)) {
            if (json_array_size(v) > LIST_MAX)
                return "filter.games names at most 200 games";
            q->games = v;
        } else {
            return "filter has ruleset (a string), status (a string) and games (a list of "
                   "game ids)";
        }
    }
    json_t *l = json_object_get(req, "limit");
    if (l) {
        if (!json_is_integer(l) || json_integer_value(l) < 1 ||
            json_integer_value(l) > LIST_MAX)
            return "limit is 1 to 200";
        q->limit = (int)json_integer_value(l);
    }
    const char *cur = json_string_value(json_object_get(req, "cursor"));
    if (cur) {
        /* "<created_ms>:<game id>", as the previous answer gave it */
        char *end;
        long long ms = strtoll(cur, &end, 10);
        if (end == cur || *end != ':' || strlen(end + 1) >= sizeof q->before_id)
            return "cursor is the one a games answer gave";
        q->before_ms = ms;
        snprintf(q->before_id, sizeof q->before_id, "%s", end + 1);
        q->from_top = 0;
    }
    return NULL;
}

static int matches(const struct wrd_game *g, const struct list_query *q)
{
    return (q->ruleset == NULL || strcmp(q->ruleset, g->rs->name) == 0) &&
           (q->status < 0 || q->status == g->status);
}

/* The answer to a list query: {"games": [...], "cursor": next or null}
 * (new reference). */
static json_t *list_answer(struct wrd_server *srv, const struct list_query *q)
{
    struct wrd_games *gs = srv->games;
    json_t *list = json_array();
    char next[64] = "";
    if (q->games) {
        size_t i;
        json_t *id;
        json_array_foreach(q->games, i, id) {
            struct wrd_game *g = games_find(gs, json_string_value(id));
            if (g && matches(g, q))
                json_array_append_new(list, game_summary(g));
        }
    } else {
        /* Newest first, from the game just older than the cursor: found
         * by its id when it is held, else by walking back. */
        struct wrd_game *g = gs->all_tail;
        if (!q->from_top) {
            struct wrd_game *at = games_find(gs, q->before_id);
            if (at && at->created_ms == q->before_ms)
                g = at->all_prev;
            else
                while (g && !older(g, q->before_ms, q->before_id))
                    g = g->all_prev;
        }
        int n = 0;
        for (; g; g = g->all_prev) {
            if (!listed(g) || !matches(g, q))
                continue;
            if (n == q->limit) {
                /* more to come: the cursor is the last one sent */
                struct wrd_game *last = NULL;
                json_t *lj = json_array_get(list, (size_t)n - 1);
                last = games_find(gs, json_string_value(json_object_get(lj, "game")));
                if (last)
                    snprintf(next, sizeof next, "%lld:%s", (long long)last->created_ms,
                             last->id);
                break;
            }
            json_array_append_new(list, game_summary(g));
            n++;
        }
    }
    return json_pack("{s:o, s:o}", "games", list, "cursor",
                     next[0] ? json_string(next) : json_null());
}

json_t *wrd_games_list(struct wrd_server *srv, const json_t *request, const char **why)
{
    struct list_query q;
    if ((*why = read_query(request, &q)) != NULL)
        return NULL;
    return list_answer(srv, &q);
}

void wrd_games_leave(struct wrd_server *srv, struct wrd_conn *c, const json_t *msg)
{
    const char *id = json_string_value(json_object_get(msg, "game"));
    struct wrd_game *g = games_find(srv->games, id);
    if (g && wrd_conn_member(c, g))
        wrd_games_member_left(srv, c, g);
    json_t *a = json_pack("{s:s, s:s}", "type", "left", "game", id ? id : "");
    json_t *jid = json_object_get(msg, "id");
    if (jid)
        json_object_set(a, "id", jid);
    wrd_conn_send_json(c, a);
}

/* An export being written: {"type":"record","game","record"[,"id"]},
 * the record produced line by line as the connection takes it. The game is
 * pinned in memory until the stream is done. */
struct export_stream {
    struct wrd_stream base;     /* must be first */
    struct wrd_game *g;
    char *head;                 /* the record's header line */
    json_t *id;                 /* echoed, or NULL */
    int next;                   /* the next record line; -1: the message's start */
    int end;                    /* lines when the export was asked for */
};

static int export_next(struct wrd_stream *st, struct wrd_buf *b, size_t want)
{
    struct export_stream *x = (struct export_stream *)st;
    size_t start = b->len;
    if (x->next < 0) {
        wrd_buf_lit(b, "{\"type\":\"record\",\"game\":");
        wrd_buf_str(b, x->g->id, strlen(x->g->id));
        wrd_buf_lit(b, ",\"record\":\"");
        wrd_buf_escaped(b, x->head, strlen(x->head));
        wrd_buf_lit(b, "\\n");
        x->next = 0;
    }
    while (x->next < x->end && b->len - start < want) {
        const char *line = x->g->lines[x->next++];
        wrd_buf_escaped(b, line, strlen(line));
        wrd_buf_lit(b, "\\n");
    }
    if (x->next < x->end)
        return b->failed ? -1 : 0;
    wrd_buf_lit(b, "\"");
    if (x->id) {
        wrd_buf_lit(b, ",\"id\":");
        wrd_buf_json(b, x->id);
    }
    wrd_buf_lit(b, "}");
    return b->failed ? -1 : 1;
}

static void export_free(struct wrd_stream *st)
{
    struct export_stream *x = (struct export_stream *)st;
    x->g->pins--;
    games_maybe_evict(x->g->srv->games, x->g);
    free(x->head);
    json_decref(x->id);
    free(x);
}

static void export_run(struct wrd_server *srv, struct wrd_conn *c, const json_t *msg,
                       int fetched)
{
    json_t *jid = json_object_get(msg, "id");
    const char *id = json_string_value(json_object_get(msg, "game"));
    struct wrd_game *g = games_find(srv->games, id);
    if (g == NULL && !fetched && fetch(srv, c, msg, export_run, &id, 1))
        return;                 /* a finished game, read back from the store first */
    if (g == NULL) {
        wrd_conn_error(c, WRD_E_NO_SUCH_GAME, "there is no such game", id, NULL, jid);
        return;
    }
    struct wrd_member *m = wrd_conn_member(c, g);
    if (!g->spectators && (m == NULL || m->seat < 0)) {
        wrd_conn_error(c, WRD_E_NO_SPECTATORS, "only the players may export this game", id, NULL,
                       jid);
        return;
    }
    /* The record holds every command as sent, sealed choices included: a
     * game with hidden information is exported once it is over. */
    if (g->rs->hidden_info && g->status != ST_FINISHED) {
        wrd_conn_error(c, WRD_E_NOT_FINISHED, "this game has hidden information: its record is "
                       "available when it is over", id, NULL, jid);
        return;
    }
    /* Header: the scenario inline, so the record stands alone; the seed only
     * once the game is over. */
    json_t *scen = g->scenario_text ? json_loads(g->scenario_text, 0, NULL) : NULL;
    /* the options too, so a replay makes the same game (a campaign's players) */
    char *head = wr_record_header(g->id, g->rs->name, g->scenario_name, scen, g->options,
                                  g->status == ST_FINISHED ? g->seed : NULL);
    json_decref(scen);
    struct export_stream *x = calloc(1, sizeof *x);
    if (head == NULL || x == NULL) {
        free(head);
        free(x);
        wrd_conn_error(c, WRD_E_INTERNAL, "out of memory", id, NULL, jid);
        return;
    }
    /* The record goes out as a stream: a silent reader holds one piece
     * of it at a time, not the whole record (conn.h). */
    size_t bytes = strlen(head);
    for (int i = 0; i < g->nlines; i++)
        bytes += strlen(g->lines[i]) + 1;
    wrd_addr_charge(srv, c->from, wrd_addr_bytes_cost(bytes));
    *x = (struct export_stream){ { export_next, export_free }, g, head, json_incref(jid), -1,
                                 g->nlines };
    g->pins++;
    wrd_conn_stream(c, &x->base, bytes + 64);
}

void wrd_games_export(struct wrd_server *srv, struct wrd_conn *c, const json_t *msg)
{
    export_run(srv, c, msg, 0);
}

/* The game's setup, for a client to open its view without the scenario
 * file: {"type":"setup","game","ruleset","scenario","options"[,"id"]}, the
 * scenario as stored (its compact text, or null). A Waterloo scenario is
 * about 34 KB: the answer is charged by its size, as export's is. */
void wrd_games_setup(struct wrd_server *srv, struct wrd_conn *c, const json_t *msg)
{
    json_t *jid = json_object_get(msg, "id");
    const char *id = json_string_value(json_object_get(msg, "game"));
    struct wrd_game *g = games_find(srv->games, id);
    struct wrd_member *m = g ? wrd_conn_member(c, g) : NULL;
    if (m == NULL) {
        wrd_conn_error(c, g ? WRD_E_NOT_JOINED : WRD_E_NO_SUCH_GAME,
                       g ? "join the game first" : "there is no such game", id, NULL, jid);
        return;
    }
    struct wrd_buf b;
    wrd_buf_init(&b, NULL, 0);
    wrd_buf_lit(&b, "{\"type\":\"setup\",\"game\":");
    wrd_buf_str(&b, g->id, strlen(g->id));
    wrd_buf_lit(&b, ",\"ruleset\":");
    wrd_buf_str(&b, g->rs->name, strlen(g->rs->name));
    wrd_buf_lit(&b, ",\"scenario\":");
    wrd_buf_lit(&b, g->scenario_text ? g->scenario_text : "null");
    wrd_buf_lit(&b, ",\"options\":");
    if (g->options)
        wrd_buf_json(&b, g->options);
    else
        wrd_buf_lit(&b, "{}");
    size_t bytes = b.len;
    struct wrd_msg *a = end_msg(&b, jid);
    if (a == NULL) {
        wrd_conn_error(c, WRD_E_INTERNAL, "out of memory", id, NULL, jid);
        return;
    }
    wrd_addr_charge(srv, c->from, wrd_addr_bytes_cost(bytes));
    wrd_conn_send(c, a);
    wrd_msg_unref(a);
}

/* ask: only a member of the game asks, its view fed its own projection
 * (the seat's, or the public one for a spectator). */
void wrd_games_ask(struct wrd_server *srv, struct wrd_conn *c, const json_t *msg)
{
    json_t *jid = json_object_get(msg, "id");
    const char *id = json_string_value(json_object_get(msg, "game"));
    struct wrd_game *g = games_find(srv->games, id);
    struct wrd_member *m = g ? wrd_conn_member(c, g) : NULL;
    if (m == NULL) {
        wrd_conn_error(c, WRD_E_NOT_JOINED, "join the game first (as a seat or a spectator)", id,
                       NULL, jid);
        return;
    }
    /* at most WRD_ASK_VIEWS_MAX views a connection: the others' first */
    int views = 0;
    for (int i = 0; i < c->nmembers; i++)
        views += c->members[i].ask != NULL;
    for (int i = 0; m->ask == NULL && views >= WRD_ASK_VIEWS_MAX && i < c->nmembers; i++)
        if (c->members[i].ask != NULL) {
            drop_view(c, &c->members[i]);
            views--;
        }
    /* and at most --max-views-per-address over its address's connections:
     * these views are memory that reconnecting must not multiply */
    int opened = m->ask == NULL;
    if (opened && c->from && c->from->views >= srv->cfg.max_views_per_address) {
        char why[160];
        snprintf(why, sizeof why, "your address holds %d views of games "
                 "(--max-views-per-address): close a page or leave a game first",
                 srv->cfg.max_views_per_address);
        wrd_conn_error(c, WRD_E_TOO_MANY_VIEWS, why, id, NULL, jid);
        return;
    }
    const struct wrd_ask_game gm = {
        .id = g->id,
        .rs = g->rs,
        .scenario_text = g->scenario_text,
        .options = g->options,
        .seat = m->seat >= 0 ? g->seats[m->seat].name : "",
        .version = g->version,
        .shown = g->shown,
        .state = g->views[view_of(g, m->seat)].state,
    };
    wrd_ask_answer(srv, c, &m->ask, &gm, msg);
    if (opened && m->ask != NULL && c->from)
        c->from->views++;
}

void wrd_games_notify(struct wrd_server *srv, struct wrd_conn *c, const json_t *msg)
{
    json_t *jid = json_object_get(msg, "id");
    const char *id = json_string_value(json_object_get(msg, "game"));
    json_t *webhook = json_object_get(msg, "webhook");
    json_t *mail = json_object_get(msg, "mail");
    const char *confirm = json_string_value(json_object_get(msg, "confirm"));
    json_t *digest = json_object_get(msg, "digest");
    struct wrd_game *g = games_find(srv->games, id);
    struct wrd_member *m = g ? wrd_conn_member(c, g) : NULL;
    if (m == NULL || m->seat < 0) {
        wrd_conn_error(c, WRD_E_NOT_JOINED, "join the game with your seat token first", id, NULL, jid);
        return;
    }
    if (webhook == NULL && mail == NULL && confirm == NULL && digest == NULL) {
        wrd_conn_error(c, WRD_E_BAD_MESSAGE, "notify sets a webhook, a mail address or the "
                       "digest, or confirms an address", id, NULL, jid);
        return;
    }
    if (digest && srv->mailer == NULL) {
        wrd_conn_error(c, WRD_E_MAIL_OFF, "this server sends no mail (it runs without --smtp)",
                       id, NULL, jid);
        return;
    }
    struct seat *s = &g->seats[m->seat];
    /* Everything is checked before anything changes: a refusal changes
     * nothing. A code confirms the address registered before this message
     * (a new address in the same message would have a new code). */
    struct wrd_pbem_reg reg = s->mail;
    if (confirm && (srv->mailer == NULL || wrd_pbem_reg_confirm(&reg, confirm) != 0)) {
        if (srv->mailer == NULL)
            wrd_conn_error(c, WRD_E_MAIL_OFF, "this server sends no mail (it runs without "
                           "--smtp)", id, NULL, jid);
        else
            wrd_conn_error(c, WRD_E_BAD_CODE, reg.state == WRD_PBEM_PENDING
                           ? "that is not the code of this seat's confirmation mail"
                           : "this seat has no address waiting to be confirmed", id, NULL, jid);
        return;
    }
    if (check_webhook(srv, c, webhook, "webhook must be an http:// URL or null", id, jid) != 0 ||
        check_mail(srv, c, mail, 1, id, jid) != 0 || !cluster_may_write(srv, c, g, jid))
        return;
    if (webhook) {
        free(s->webhook);
        s->webhook = json_is_string(webhook) ? strdup(json_string_value(webhook)) : NULL;
        snprintf(s->webhook_owner, sizeof s->webhook_owner, "%s", s->webhook ? c->addr : "");
    }
    if (confirm) {
        s->mail = reg;
        wrd_info("mail confirmed", "game=%s seat=%s by=code", g->id, s->name);
        defer_mail(srv->games, g, m->seat, "confirmed", NULL, NULL);
    }
    if (mail) {
        mail_register(srv, g, m->seat, json_string_value(mail));
        wrd_info(json_is_string(mail) ? "mail registered" : "mail removed", "game=%s seat=%s",
                 g->id, s->name);
    }
    if (digest)
        s->mail.digest = json_is_true(digest);
    if (seat_row(srv, g, m->seat, 0) != 0)
        wrd_error("store write failed", "game=%s", g->id);
    json_t *a = json_pack("{s:s, s:s, s:s}", "type", "ok", "game", g->id, "mail",
                          wrd_pbem_state_name(s->mail.state));
    if (jid)
        json_object_set(a, "id", jid);
    games_defer_direct(srv->games, c, wrd_msg_json(a));
    json_decref(a);
}

/* --- orders by mail ----------------------------------------------------------------- */

/* Limits of a mail_in (docs/protocol.md, "mail_in"). */
#define MAIL_IN_TO_MAX 16
#define MAIL_IN_LINES_MAX 100
#define MAIL_IN_LINE_MAX 1024

/* The tags of msg's addresses that have the right shape, at most
 * MAIL_IN_TO_MAX, into t; how many. */
static int mail_in_tags(const json_t *msg, struct wrd_pbem_tag *t)
{
    size_t i;
    json_t *a;
    int n = 0;
    json_array_foreach(json_object_get(msg, "to"), i, a)
        if (n < MAIL_IN_TO_MAX && wrd_pbem_tag_parse(json_string_value(a), &t[n]) == 0)
            n++;
    return n;
}

static void mail_in_answer(struct wrd_server *srv, struct wrd_conn *c, json_t *jid,
                           const char *result, const struct wrd_game *g, int seat, int done,
                           int refused)
{
    json_t *a = json_pack("{s:s, s:s}", "type", "mail_in", "result", result);
    if (g) {
        json_object_set_new(a, "game", json_string(g->id));
        json_object_set_new(a, "seat", json_string(g->seats[seat].name));
        json_object_set_new(a, "done", json_integer(done));
        json_object_set_new(a, "refused", json_integer(refused));
    }
    if (jid)
        json_object_set(a, "id", jid);
    games_defer_direct(srv->games, c, wrd_msg_json(a));
    json_decref(a);
}

/* The message id of a mail_in (brackets taken off) when the formatter can
 * write it in In-Reply-To, else NULL; caller frees. */
static char *reply_id(const json_t *msg)
{
    const char *id = json_string_value(json_object_get(msg, "message_id"));
    if (id == NULL)
        return NULL;
    while (*id == ' ' || *id == '<')
        id++;
    char *copy = strdup(id);
    if (copy) {
        copy[strcspn(copy, "> ")] = '\0';
        if (wrd_mail_check_msgid(copy) != 0) {
            free(copy);
            copy = NULL;
        }
    }
    return copy;
}

/* One line of the answer mail: what, the line, and (indented) why. */
static void report_line(struct wr_strbuf *r, const char *what, const char *line,
                        const char *why)
{
    wr_strbuf_printf(r, "%s: %s\n", what, line);
    if (why == NULL)
        return;
    for (const char *p = why; *p;) {
        size_t n = strcspn(p, "\n");
        wr_strbuf_printf(r, "    %.*s\n", (int)n, p);
        p += n + (p[n] == '\n');
    }
}

/*
 * The orders of a confirmed seat's reply to the mail of g's version: each
 * line read by the seat's own view (present.h's order(), the terminal's
 * short orders) and applied through run_command like any command, the view
 * fed the new state after each; the first refusal stops the reading (the
 * orders after it were written for a game it did not reach). A query is
 * answered in the mail and changes nothing. The answer mail goes once the
 * batch is durable.
 */
static void mail_in_orders(struct wrd_server *srv, struct wrd_conn *c, const json_t *msg,
                           struct wrd_game *g, int seat)
{
    json_t *jid = json_object_get(msg, "id");
    const json_t *lines = json_object_get(msg, "lines");
    struct seat *s = &g->seats[seat];
    if (!cluster_may_write(srv, c, g, jid))
        return;
    struct wr_strbuf report;
    wr_strbuf_init(&report);
    const struct wrd_pbem_game pg = {
        .id = g->id, .rs = g->rs, .scenario_name = g->scenario_name,
        .scenario_text = g->scenario_text, .options = g->options, .seat = s->name,
        .version = g->version, .state = g->views[view_of(g, seat)].state,
    };
    struct wr_refusal why = { 0, "", "" };
    struct wr_view *v = wrd_pbem_view(&pg, &why);
    int done = 0, refused = 0, stopped = 0;
    size_t i;
    json_t *jl;
    json_array_foreach(lines, i, jl) {
        const char *line = json_string_value(jl);
        if (stopped || v == NULL) {
            report_line(&report, "not tried", line, NULL);
            continue;
        }
        json_t *cmd = NULL, *events = NULL;
        struct wr_strbuf out;
        wr_strbuf_init(&out);
        enum wr_order_kind k = v->pr->order(v, line, &cmd, &out, &why);
        if (k == WR_ORDER_ANSWER) {
            report_line(&report, "answer", line, out.s ? out.s : "");
        } else if (k == WR_ORDER_COMMAND && g->status != ST_RUNNING) {
            report_line(&report, "not tried", line, "the game has finished");
            stopped = 1;
        } else if (k == WR_ORDER_COMMAND &&
                   run_command(srv, g, seat, cmd, 0, &events, &why) == 0) {
            report_line(&report, "done", line, NULL);
            done++;
            games_to_parent(srv, g, events, 0);
            json_decref(events);
            if (v->pr->update(v, g->views[view_of(g, seat)].state, &why) != 0) {
                v->pr->close(v);
                v = NULL;
            }
        } else {
            char text[600];
            snprintf(text, sizeof text, "%s (%s)", why.message, why.code);
            report_line(&report, "refused", line, text);
            refused++;
            stopped = 1;
        }
        json_decref(cmd);
        wr_strbuf_release(&out);
    }
    if (v)
        v->pr->close(v);
    if (json_array_size(lines) == 0)
        wr_strbuf_puts(&report, "Your reply held no orders.\n");
    wrd_info("mail in", "game=%s seat=%s lines=%zu done=%d refused=%d", g->id, s->name,
             json_array_size(lines), done, refused);
    mail_in_answer(srv, c, jid, refused ? "refused" : "applied", g, seat, done, refused);
    defer_mail(srv->games, g, seat, "answer", report.failed ? NULL : report.s,
               reply_id(msg));
    if (report.failed)
        wr_strbuf_release(&report);
}

/* mail_in once the games its tags name are in memory (or known absent). */
static void mail_in_run(struct wrd_server *srv, struct wrd_conn *c, const json_t *msg,
                        int fetched)
{
    (void)fetched;
    json_t *jid = json_object_get(msg, "id");
    struct wrd_pbem_tag tags[MAIL_IN_TO_MAX];
    int n = mail_in_tags(msg, tags);
    for (int k = 0; k < n; k++) {
        struct wrd_game *g = games_find(srv->games, tags[k].game);
        int seat = tags[k].seat;
        if (g == NULL || seat < 0 || seat >= g->nseats ||
            !wrd_pbem_tag_verify(&g->seats[seat].mail, &tags[k]))
            continue;
        struct seat *s = &g->seats[seat];
        if (strcmp(tags[k].what, "c") == 0) {
            /* a reply to the confirmation mail: once */
            if (s->mail.state != WRD_PBEM_PENDING)
                break;
            s->mail.state = WRD_PBEM_CONFIRMED;
            s->mail.code_hash[0] = '\0';
            if (seat_row(srv, g, seat, 0) != 0)
                wrd_error("store write failed", "game=%s", g->id);
            wrd_info("mail confirmed", "game=%s seat=%s by=reply", g->id, s->name);
            mail_in_answer(srv, c, jid, "confirmed", g, seat, 0, 0);
            defer_mail(srv->games, g, seat, "confirmed", NULL, reply_id(msg));
            return;
        }
        /* a reply to a game mail: only while the game is where the mail
         * left it (a re-sent or late reply is stale) */
        char now[24];
        snprintf(now, sizeof now, "%lld", (long long)g->version);
        if (s->mail.state != WRD_PBEM_CONFIRMED || strcmp(tags[k].what, now) != 0)
            break;
        mail_in_orders(srv, c, msg, g, seat);
        return;
    }
    wrd_info("mail in ignored", "tags=%d why=\"no tag verifies, or it is stale\"", n);
    mail_in_answer(srv, c, jid, "ignored", NULL, 0, 0, 0);
}

void wrd_games_mail_in(struct wrd_server *srv, struct wrd_conn *c, const json_t *msg)
{
    json_t *jid = json_object_get(msg, "id");
    const json_t *to = json_object_get(msg, "to"), *lines = json_object_get(msg, "lines");
    if (srv->mailer == NULL || srv->cfg.mail_reply == NULL) {
        wrd_conn_error(c, WRD_E_MAIL_OFF, srv->mailer ? "this server reads no replies (it "
                       "runs without --mail-reply)" : "this server sends no mail (it runs "
                       "without --smtp)", NULL, NULL, jid);
        return;
    }
    size_t i;
    json_t *x;
    const char *bad = json_array_size(to) > MAIL_IN_TO_MAX ? "at most 16 addresses"
                      : json_array_size(lines) > MAIL_IN_LINES_MAX ? "at most 100 lines"
                      : NULL;
    json_array_foreach(to, i, x)
        if (!json_is_string(x) || json_string_length(x) > WRD_MAIL_MAX_ADDRESS)
            bad = "each address is a string of at most 254 bytes";
    json_array_foreach(lines, i, x)
        if (!json_is_string(x) || json_string_length(x) > MAIL_IN_LINE_MAX ||
            strchr(json_string_value(x), '\n'))
            bad = "each line is a string of at most 1024 bytes without a line break";
    if (bad) {
        char text[160];
        snprintf(text, sizeof text, "mail_in: %s", bad);
        wrd_conn_error(c, WRD_E_BAD_MESSAGE, text, NULL, NULL, jid);
        return;
    }
    struct wrd_pbem_tag tags[MAIL_IN_TO_MAX];
    const char *ids[MAIL_IN_TO_MAX];
    int n = mail_in_tags(msg, tags);
    for (int k = 0; k < n; k++)
        ids[k] = tags[k].game;
    if (fetch(srv, c, msg, mail_in_run, ids, n))
        return;
    mail_in_run(srv, c, msg, 0);
}

/* --- the flush: commit, then deliver --------------------------------------------- */

static void observe_commit(struct wrd_metrics *mt, double seconds)
{
    static const double bounds[WRD_HIST_BUCKETS] = { 0.0001, 0.00025, 0.0005, 0.001, 0.0025,
                                                     0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1 };
    mt->commits++;
    mt->commit_seconds_sum += seconds;
    for (int i = 0; i < WRD_HIST_BUCKETS; i++)
        if (seconds <= bounds[i])
            mt->commit_buckets[i]++;
}

/* A commit off the loop thread (store seal/commit_sealed): the sealed
 * batch, and the deliveries and evictions that wait for it. */
struct commit_job {
    struct wrd_server *srv;
    uint64_t t0;
    int rc;
    char err[256];
    struct deferred *pending;
    int npending, cappending;
    struct wrd_game **evict;
    int nevict, capevict;
};

static void commit_failed(const char *err)
{
    /* Nothing of this batch may be acknowledged, and the games in memory
     * are ahead of the store: stop, and let the restart restore every
     * game from what is durable. */
    wrd_error("store commit failed: stopping", "error=\"%s\"", err);
    fflush(stderr);
    _exit(3);
}

/* Deliver what waited for a commit: pending[0..n), in order. Messages
 * computed now (a full state) show the games as they are, which may be
 * ahead of the store while the next batch is open: those wait for its
 * commit (conn.c's barrier, srv->delivering). */
static void deliver_list(struct wrd_server *srv, struct deferred *pending, int n)
{
    int ahead = srv->store->ops->pending(srv->store);
    /* Everything queued before this point may now be written (conn.h). */
    srv->commits++;
    srv->delivering = 1;
    for (int i = 0; i < n; i++) {
        struct deferred *d = &pending[i];
        switch (d->kind) {
        case D_DIRECT:
            wrd_conn_send(d->conn, d->msg);
            wrd_msg_unref(d->msg);
            wrd_conn_unref(d->conn);
            break;
        case D_BROADCAST:
            for (int k = 0; k < d->game->nmembers; k++) {
                struct member_ref *m = &d->game->members[k];
                if (view_of(d->game, m->seat) == d->view && m->since < d->version)
                    wrd_conn_send(m->conn, d->msg);
            }
            wrd_msg_unref(d->msg);
            break;
        case D_STATE_ALL:
            srv->delivering = !ahead;
            for (int k = 0; k < d->game->nmembers; k++) {
                struct member_ref *m = &d->game->members[k];
                send_state(m->conn, d->game, m->seat, NULL, d->event != NULL);
                m->since = d->game->version;
            }
            srv->delivering = 1;
            break;
        case D_STATE_ONE:
            srv->delivering = !ahead;
            for (int k = 0; k < d->game->nmembers; k++) {
                struct member_ref *m = &d->game->members[k];
                if (m->conn != d->conn)
                    continue;
                send_state(m->conn, d->game, m->seat, NULL, 0);
                m->since = d->game->version;
            }
            srv->delivering = 1;
            wrd_conn_unref(d->conn);
            break;
        case D_NOTIFY:
            notify_seat(srv, d->game, d->seat, d->event);
            break;
        case D_MAIL:
            mail_seat(srv, d->game, d->seat, d->event, d->text, d->reply_id);
            free(d->text);
            free(d->reply_id);
            break;
        }
    }
    srv->delivering = 0;
    wrd_conn_write_ready(srv);  /* everything queued so far that this commit frees */
}

/* The loop thread, once job's batch is durable: deliver what waited for it. */
static void commit_after(struct commit_job *job)
{
    struct wrd_server *srv = job->srv;
    struct wrd_games *gs = srv->games;
    if (job->rc != 0)
        commit_failed(job->err);
    observe_commit(&srv->metrics, (double)(uv_hrtime() - job->t0) / 1e9);
    srv->committing = 0;
    deliver_list(srv, job->pending, job->npending);
    /* The games that may leave memory since the seal; one still named by
     * a delivery of the open batch waits for that batch's commit. */
    struct wrd_game **open = gs->evict;
    int nopen = gs->nevict, capopen = gs->capevict, nnow = 0;
    for (int i = 0; i < job->nevict; i++) {
        struct wrd_game *g = job->evict[i];
        int named = 0;
        for (int k = 0; k < gs->npending && !named; k++)
            named = gs->pending[k].game == g;
        if (named)
            g->evict_queued = 0;        /* queued again below */
        else
            job->evict[nnow++] = g;     /* nnow <= i: compacted in place */
    }
    gs->evict = job->evict;
    gs->nevict = nnow;
    evict_queued(srv);
    gs->evict = open;
    gs->nevict = nopen;
    gs->capevict = capopen;
    for (int k = 0; k < gs->npending; k++)
        if (gs->pending[k].game && !gs->pending[k].game->evict_queued)
            games_maybe_evict(gs, gs->pending[k].game);
    free(job->evict);
    free(job->pending);
    free(job);
    gs->commit_job = NULL;
    wrd_games_flush(srv);       /* the batch filled meanwhile, or what waits */
}

/*
 * The committer: a thread of its own that makes sealed batches durable
 * (store commit_sealed), so a commit never waits behind the libuv
 * workers' reads (a lobby page, a game read back), and the loop never
 * waits for a commit. One job at a time: the loop hands it over under the
 * mutex and the thread wakes the loop (uv_async) when it is done.
 */
struct committer {
    uv_thread_t thread;
    uv_mutex_t mutex;
    uv_cond_t cond;
    uv_async_t done;
    struct wrd_store *store;
    struct commit_job *todo;    /* handed to the thread */
    struct commit_job *finished;    /* handed back */
    int quit;
};

static void committer_main(void *arg)
{
    struct committer *cm = arg;
    uv_mutex_lock(&cm->mutex);
    for (;;) {
        while (cm->todo == NULL && !cm->quit)
            uv_cond_wait(&cm->cond, &cm->mutex);
        if (cm->todo == NULL)
            break;
        struct commit_job *job = cm->todo;
        cm->todo = NULL;
        uv_mutex_unlock(&cm->mutex);
        job->rc = cm->store->ops->commit_sealed(cm->store, job->err, sizeof job->err);
        uv_mutex_lock(&cm->mutex);
        cm->finished = job;
        uv_async_send(&cm->done);
    }
    uv_mutex_unlock(&cm->mutex);
}

static void on_committed(uv_async_t *a)
{
    struct committer *cm = a->data;
    uv_mutex_lock(&cm->mutex);
    struct commit_job *job = cm->finished;
    cm->finished = NULL;
    uv_mutex_unlock(&cm->mutex);
    if (job)
        commit_after(job);
}

static void committer_free(uv_handle_t *h)
{
    free(h->data);              /* the committer */
}

static struct committer *committer_start(struct wrd_server *srv)
{
    struct committer *cm = calloc(1, sizeof *cm);
    if (cm == NULL)
        return NULL;
    cm->store = srv->store;
    uv_mutex_init(&cm->mutex);
    uv_cond_init(&cm->cond);
    uv_async_init(&srv->loop, &cm->done, on_committed);
    cm->done.data = cm;
    if (uv_thread_create(&cm->thread, committer_main, cm) != 0) {
        uv_mutex_destroy(&cm->mutex);
        uv_cond_destroy(&cm->cond);
        uv_close((uv_handle_t *)&cm->done, committer_free);
        return NULL;
    }
    return cm;
}

/* At the stop, once no commit is under way: the thread ends, its handle
 * closes (and frees it). */
static void committer_stop(struct wrd_games *gs)
{
    struct committer *cm = gs->committer;
    if (cm == NULL)
        return;
    gs->committer = NULL;
    uv_mutex_lock(&cm->mutex);
    cm->quit = 1;
    uv_cond_signal(&cm->cond);
    uv_mutex_unlock(&cm->mutex);
    uv_thread_join(&cm->thread);
    uv_mutex_destroy(&cm->mutex);
    uv_cond_destroy(&cm->cond);
    uv_close((uv_handle_t *)&cm->done, committer_free);
}

/* Seal the open batch and hand it to the committer, with the deliveries
 * and evictions that wait for it; 0, or -1 (then commit here). */
static int commit_off_loop(struct wrd_server *srv)
{
    struct wrd_games *gs = srv->games;
    if (gs->committer == NULL && (gs->committer = committer_start(srv)) == NULL)
        return -1;
    struct commit_job *job = calloc(1, sizeof *job);
    if (job == NULL || srv->store->ops->seal(srv->store) != 0) {
        free(job);
        return -1;
    }
    job->srv = srv;
    job->t0 = uv_hrtime();
    job->pending = gs->pending;
    job->npending = gs->npending;
    job->cappending = gs->cappending;
    gs->pending = NULL;
    gs->npending = gs->cappending = 0;
    job->evict = gs->evict;
    job->nevict = gs->nevict;
    job->capevict = gs->capevict;
    gs->evict = NULL;
    gs->nevict = gs->capevict = 0;
    srv->committing = 1;
    gs->commit_job = job;
    struct committer *cm = gs->committer;
    uv_mutex_lock(&cm->mutex);
    cm->todo = job;
    uv_cond_signal(&cm->cond);
    uv_mutex_unlock(&cm->mutex);
    return 0;
}

void wrd_games_flush(struct wrd_server *srv)
{
    struct wrd_games *gs = srv->games;
    if (gs->commit_job)
        return;                 /* its end delivers, then flushes again */
    cluster_put_notes(srv);
    flush_dirty(gs);
    if (srv->store->ops->pending(srv->store)) {
        /* Off the loop when the store can (not while stopping: the
         * stop's last commits are made here) */
        if (srv->store->ops->seal && !srv->stopping && commit_off_loop(srv) == 0)
            return;
        char err[256];
        uint64_t t0 = uv_hrtime();
        if (srv->store->ops->commit(srv->store, err, sizeof err) != 0)
            commit_failed(err);
        observe_commit(&srv->metrics, (double)(uv_hrtime() - t0) / 1e9);
    }
    deliver_list(srv, gs->pending, gs->npending);
    gs->npending = 0;
    evict_queued(srv);
    /* what the evictions put (a game let go: its unlock and its note) is
     * committed now, not at the loop's next wake; nothing is evicted then */
    if (gs->cluster && !srv->stopping && srv->store->ops->pending(srv->store)) {
        wrd_games_flush(srv);
        return;
    }
    if (srv->stopping)
        committer_stop(gs);     /* the last commits are made here now */
}

int wrd_games_committing(struct wrd_server *srv)
{
    return srv->games && srv->games->commit_job != NULL;
}

int wrd_games_reading(struct wrd_server *srv)
{
    return srv->games ? srv->games->tails : 0;
}

/* --- registry, restore ------------------------------------------------------------ */

int wrd_games_new(struct wrd_server *srv)
{
    srv->games = calloc(1, sizeof *srv->games);
    if (srv->games == NULL)
        return -1;
    srv->games->srv = srv;
    const struct wrd_conn_hooks h = { .member_left = wrd_games_member_left,
                                      .state_msg = wrd_games_state_msg };
    wrd_conn_set_hooks(srv, &h);
    return 0;
}

static void free_timer(uv_handle_t *h)
{
    free(h);
}

/* --- the daily digest ------------------------------------------------------------ */

static void select_and_load(struct wrd_server *srv, struct wrd_ids_query q,
                            void (*then)(struct wrd_server *srv));

/* Each seat on the digest that the game awaits gets its mail now (run
 * between flushes: the state is the committed one), once every game with
 * a seat on mail is in memory. */
static void digest_run(struct wrd_server *srv)
{
    int sent = 0;
    if (srv->stopping)
        return;
    for (struct wrd_game *g = srv->games->all_head; g; g = g->all_next) {
        if (g->status != ST_RUNNING)
            continue;
        for (int i = 0; i < g->nseats; i++) {
            const struct seat *s = &g->seats[i];
            if (s->mail.state == WRD_PBEM_CONFIRMED && s->mail.digest && s->what) {
                mail_seat(srv, g, i, "digest", NULL, NULL);
                sent++;
            }
        }
    }
    wrd_info("mail digest", "mails=%d", sent);
}

static void mail_digest(uv_timer_t *t)
{
    select_and_load(t->data, (struct wrd_ids_query){ WRD_IDS_MAIL, 0 }, digest_run);
}

void wrd_games_start_digest(struct wrd_server *srv)
{
    struct wrd_games *gs = srv->games;
    if (srv->mailer == NULL || gs->digest_on)
        return;
    uint64_t period = srv->cfg.mail_digest_ms > 0 ? (uint64_t)srv->cfg.mail_digest_ms
                                                  : 86400000u;
    uint64_t first = period;
    if (srv->cfg.mail_digest_ms == 0) {
        /* the next --mail-digest-hour o'clock, UTC */
        int64_t now = wrd_now_ms(), day = 86400000;
        int64_t at = now - now % day + (int64_t)srv->cfg.mail_digest_hour * 3600000;
        if (at <= now)
            at += day;
        first = (uint64_t)(at - now);
    }
    uv_timer_init(&srv->loop, &gs->digest);
    gs->digest.data = srv;
    uv_timer_start(&gs->digest, mail_digest, first, period);
    gs->digest_on = 1;
}

void wrd_games_close_handles(struct wrd_server *srv)
{
    if (srv->games->digest_on) {
        uv_close((uv_handle_t *)&srv->games->digest, NULL);
        srv->games->digest_on = 0;
    }
    if (srv->games->sweep_on) {
        uv_close((uv_handle_t *)&srv->games->sweep, NULL);
        srv->games->sweep_on = 0;
    }
    cluster_close(srv->games);
    for (struct wrd_game *g = srv->games->all_head; g; g = g->all_next)
        if (g->timer) {
            uv_close((uv_handle_t *)g->timer, free_timer);
            g->timer = NULL;
        }
}

void wrd_games_free(struct wrd_server *srv)
{
    struct wrd_games *gs = srv->games;
    if (gs == NULL)
        return;
    for (int i = 0; i < gs->npending; i++) {
        wrd_msg_unref(gs->pending[i].msg);
        if (gs->pending[i].conn)
            wrd_conn_unref(gs->pending[i].conn);
    }
    free(gs->pending);
    free(gs->dirty);
    free(gs->evict);
    cluster_free(gs);
    for (int i = 0; i < HASH_BUCKETS; i++)
        while (gs->invites[i]) {
            struct invite_ref *r = gs->invites[i];
            gs->invites[i] = r->next;
            free(r);
        }
    struct wrd_game *g = gs->all_head;
    while (g) {
        struct wrd_game *next = g->all_next;
        game_free(g);
        g = next;
    }
    free(gs);
    srv->games = NULL;
}

void wrd_games_stats(struct wrd_server *srv, struct wrd_games_stats *out)
{
    struct wrd_games *gs = srv->games;
    int running = 0;
    for (struct wrd_game *g = gs->all_head; g; g = g->all_next)
        running += g->status == ST_RUNNING;
    *out = (struct wrd_games_stats){ .held = gs->count, .running = running, .reads = gs->reads,
                                     .shelved = gs->shelved };
    cluster_stats(gs, out);
}

int wrd_games_count(struct wrd_server *srv)
{
    return srv->games->count;
}

/*
 * Reading games back from the store: at start-up every game the store
 * passes (into the registry), or one game on demand (detached: `single`,
 * built on a worker thread and handed to the loop). Commands replay through
 * the rules; views are projected once, at the end (finish_load).
 */
struct restore {
    struct wrd_server *srv;
    int one;                    /* one game, on a worker thread: kept in `single`, the
                                   registry untouched; else every game into the registry */
    int verify;                 /* --verify: each game checked against every snapshot, then
                                   freed (kept in `single` meanwhile) */
    struct wrd_game *single;
    struct wrd_game *last;
    int64_t games, commands;    /* --verify: how many were checked */
    char err[256];
};

static int finish_load(struct wrd_server *srv, struct wrd_game *g, int project, char *err,
                       size_t errlen);

static struct wrd_game *restore_find(struct restore *rs, const char *id)
{
    if (rs->last && strcmp(rs->last->id, id) == 0)
        return rs->last;
    if (rs->one || rs->verify)
        return rs->single && strcmp(rs->single->id, id) == 0 ? rs->single : NULL;
    return games_find(rs->srv->games, id);
}

/* --verify: the game read so far is whole; finish it (every snapshot met)
 * and let it go. */
static int verify_done(struct restore *rs)
{
    struct wrd_game *g = rs->single;
    if (g == NULL)
        return 0;
    rs->single = rs->last = NULL;
    int rc = finish_load(rs->srv, g, 0, rs->err, sizeof rs->err);
    game_free(g);
    rs->games += rc == 0;
    return rc;
}

static int restore_game(void *ctx, const struct wrd_game_row *r, const char *status,
                        const char *result, int64_t deadline_ms)
{
    struct restore *rs = ctx;
    if (rs->verify && verify_done(rs) != 0)
        return -1;
    const struct wr_ruleset *ruleset = wr_ruleset_find(r->ruleset);
    if (ruleset == NULL) {
        snprintf(rs->err, sizeof rs->err, "game %s: unknown ruleset %s", r->id, r->ruleset);
        return -1;
    }
    if (rs->one && rs->single) {
        snprintf(rs->err, sizeof rs->err, "game %s: a second game in a read of one", r->id);
        return -1;
    }
    /* A game stored before its ruleset had rules versions names none: 1. */
    json_t *stored = json_loads(r->options_json, 0, NULL);
    json_t *opts = wr_game_options(ruleset, stored, 0);
    json_decref(stored);
    const char *scen = strcmp(r->scenario_json, "null") == 0 ? NULL : r->scenario_json;
    struct wrd_game *g = game_new(rs->srv, ruleset, r->id, r->scenario_name, scen,
                                  opts ? opts : json_object(), r->seed, rs->err, sizeof rs->err,
                                  NULL);
    if (g == NULL)
        return -1;
    if (result && strncmp(result, "forfeit", 7) == 0 && strcmp(status, "finished") == 0) {
        /* "forfeit:SEATS"; a bare "forfeit" names the seats the game
         * still awaits (finish_load). */
        snprintf(g->forfeit, sizeof g->forfeit, "%s", result[7] == ':' ? result + 8 : "?");
    }
    g->restored_deadline = deadline_ms;
    if (r->parent) {
        snprintf(g->parent, sizeof g->parent, "%s", r->parent);
        snprintf(g->link_key, sizeof g->link_key, "%s", r->link_key ? r->link_key : "");
    }
    if (g->forfeit[0])
        g->forfeit_deadline = deadline_ms;
    g->created_ms = r->created_ms;
    if (rs->one || rs->verify) {
        rs->single = g;
    } else {
        registry_add(rs->srv->games, g);
        if (g->created_ms > rs->srv->games->last_created_ms)
            rs->srv->games->last_created_ms = g->created_ms;
    }
    rs->last = g;
    return 0;
}

static int restore_seat(void *ctx, const struct wrd_seat_row *r)
{
    struct restore *rs = ctx;
    struct wrd_game *g = restore_find(rs, r->game);
    int i = g ? games_seat_index(g, r->seat) : -1;
    if (i < 0) {
        snprintf(rs->err, sizeof rs->err, "game %s: no seat %.40s", r->game, r->seat);
        return -1;
    }
    struct seat *s = &g->seats[i];
    snprintf(s->token_hash, sizeof s->token_hash, "%s", r->token_hash ? r->token_hash : "");
    snprintf(s->invite_hash, sizeof s->invite_hash, "%s", r->invite_hash ? r->invite_hash : "");
    free(s->webhook);
    s->webhook = r->webhook ? strdup(r->webhook) : NULL;
    if (wrd_pbem_reg_read(&s->mail, r->mail) != 0)
        wrd_warn("a seat's mail registration is unreadable: dropped", "game=%s seat=%s",
                 r->game, s->name);
    return 0;
}

/* The public state of g now, as snapshots keep it. */
static int same_as_snapshot(const struct wrd_game *g, const char *state)
{
    json_t *pub = g->rs->project(g->g, NULL);
    char *now = json_dumps(pub, JSON_COMPACT | JSON_SORT_KEYS);
    int same = now && strcmp(now, state) == 0;
    free(now);
    json_decref(pub);
    return same;
}

/*
 * A stored snapshot. For --verify (every snapshot, every command): kept,
 * to be compared with the replay when it reaches its version. For a load
 * (tail_only: the latest snapshot with a full state, then only the
 * commands after it): the game is made again from the full state, checked
 * against the public one, and the replay goes on from there.
 */
static int restore_snapshot(void *ctx, const char *id, int64_t version, const char *state,
                            const char *full)
{
    struct restore *rs = ctx;
    struct wrd_game *g = restore_find(rs, id);
    if (g == NULL) {
        snprintf(rs->err, sizeof rs->err, "game %s: a snapshot of a game not read", id);
        return -1;
    }
    if (!rs->verify) {
        (void)full;
        snprintf(rs->err, sizeof rs->err, "game %s: this server cannot restore the full state "
                 "of version %lld", id, (long long)version);
        return -1;
    }
    if (g->nsnaps == g->capsnaps) {
        int cap = g->capsnaps ? 2 * g->capsnaps : 8;
        struct snap *n = realloc(g->snaps, sizeof *n * (size_t)cap);
        if (n == NULL)
            goto nomem;
        g->snaps = n;
        g->capsnaps = cap;
    }
    char *copy = strdup(state);
    if (copy == NULL)
        goto nomem;
    g->snaps[g->nsnaps++] = (struct snap){ version, copy };
    return 0;
nomem:
    snprintf(rs->err, sizeof rs->err, "out of memory");
    return -1;
}

static int restore_command(void *ctx, const struct wrd_command_row *r)
{
    struct restore *rs = ctx;
    struct wrd_game *g = restore_find(rs, r->game);
    if (g == NULL || r->version != g->version + 1) {
        snprintf(rs->err, sizeof rs->err, "game %s: command %lld out of order", r->game,
                 (long long)r->version);
        return -1;
    }
    rs->last = g;
    int seat = games_seat_index(g, r->seat);
    json_t *cmd = json_loads(r->cmd_json, 0, NULL);
    json_t *events = NULL;
    struct wr_refusal why = { WR_R_BAD_COMMAND, "bad_command",
                              "unknown seat or unreadable command" };
    int rc = seat >= 0 && cmd ? games_apply(g, seat, cmd, &events, &why) : -1;
    json_decref(cmd);
    if (rc != 0) {
        snprintf(rs->err, sizeof rs->err, "game %s: command %lld no longer applies: %.120s", r->game,
                 (long long)r->version, why.message);
        return -1;
    }
    rs->commands++;
    g->moved_ms = r->at_ms;
    /* The answer a re-sent seq gets after the restart. */
    if (r->client_seq > 0 && !rs->verify)
        games_remember_stored(g, seat, r->client_seq, events);
    json_decref(events);
    /* A snapshot must match what replay gives: determinism, checked. */
    if (g->snap_at < g->nsnaps && g->snaps[g->snap_at].version == g->version) {
        if (!same_as_snapshot(g, g->snaps[g->snap_at].state)) {
            snprintf(rs->err, sizeof rs->err, "game %s: replay differs from the snapshot at "
                     "version %lld", g->id, (long long)g->version);
            return -1;
        }
        g->snap_at++;
    }
    return 0;
}

/* A link (store.h, loader link): the parent, when it is held, lists the
 * child with the status and result its row kept. */
static int restore_link(void *ctx, const char *child, const char *parent, const char *key,
                        const char *ruleset, const char *status, const char *result)
{
    struct restore *rs = ctx;
    struct wrd_game *p = games_find(rs->srv->games, parent);
    if (p == NULL || child_link(p, child))
        return 0;               /* a finished parent stays in the store */
    int st = ST_FINISHED;
    for (int i = 0; i < 3; i++)
        if (strcmp(status, status_names[i]) == 0)
            st = i;
    char res[64] = "";
    if (result)
        snprintf(res, sizeof res, "%.*s", (int)strcspn(result, ":"), result);
    return add_child(p, child, ruleset, key, st, res[0] ? res : NULL);
}

/* A game's commands are all in: check that every snapshot was met, then
 * its status, the decisions it awaits and their deadlines, and (project)
 * its views. The timer is armed by the caller, on the loop. */
static int finish_load(struct wrd_server *srv, struct wrd_game *g, int project, char *err,
                       size_t errlen)
{
    if (g->snap_at < g->nsnaps) {
        snprintf(err, errlen, "game %s: a snapshot at version %lld, but commands only to %lld",
                 g->id, (long long)g->snaps[g->snap_at].version, (long long)g->version);
        return -1;
    }
    for (int i = 0; i < g->nsnaps; i++)
        free(g->snaps[i].state);
    free(g->snaps);
    g->snaps = NULL;
    g->nsnaps = g->capsnaps = g->snap_at = 0;
    if (g->forfeit[0] == '?') {
        /* An old record of a forfeit: the seats it still awaits. */
        struct wr_decision d[WR_DECISIONS_MAX];
        int n = g->rs->awaiting(g->g, d, WR_DECISIONS_MAX);
        size_t at = 0;
        g->forfeit[0] = '\0';
        for (int k = 0; k < n && at < sizeof g->forfeit; k++)
            at += (size_t)snprintf(g->forfeit + at, sizeof g->forfeit - at, "%s%s",
                                   k ? "+" : "", d[k].seat);
        if (g->forfeit[0] == '\0')
            snprintf(g->forfeit, sizeof g->forfeit, "?");
    }
    if (g->forfeit[0]) {
        /* Each seat that forfeited: what it did not decide (the forfeit
         * left the game as it was) and the deadline the row kept. */
        struct wr_decision d[WR_DECISIONS_MAX];
        int n = g->rs->awaiting(g->g, d, WR_DECISIONS_MAX);
        for (int k = 0; k < n; k++) {
            int i = games_seat_index(g, d[k].seat);
            if (i >= 0 && forfeited(g, g->seats[i].name))
                forfeit_reason(g, i, d[k].what, g->forfeit_deadline);
        }
    }
    games_set_status(srv->games, g, games_compute_status(g));
    int64_t now = wrd_now_ms();
    if (g->status == ST_RUNNING) {
        struct wr_decision d[WR_DECISIONS_MAX];
        int n = g->rs->awaiting(g->g, d, WR_DECISIONS_MAX);
        for (int k = 0; k < n; k++) {
            int i = games_seat_index(g, d[k].seat);
            if (i < 0)
                continue;
            g->seats[i].what = d[k].what;
            /* Deadlines are kept as the earliest one: every awaited seat
             * gets it back. A reminder whose time passed while the game
             * was out of memory (or the server down) counts as sent: a
             * game read back for its reminder is read before it is due
             * (docs/reliability.md, "Memory"). */
            if (g->deadline_s > 0) {
                struct seat *s = &g->seats[i];
                s->deadline_at = g->restored_deadline ? g->restored_deadline
                                                      : now + g->deadline_s * 1000;
                s->reminded = now >= remind_at(g, s);
            }
        }
    }
    g->touched_ms = now;
    if (project)
        project_all(g);
    return 0;
}

/* When the flush runs: the due games a start loads and the sweep reads
 * back are those due within two periods of the sweep. */
static int64_t sweep_ms(const struct wrd_server *srv)
{
    int64_t idle = srv->cfg.game_idle_ms, p = idle / 2;
    if (idle <= 0 || p > 60000)
        p = 60000;
    return p < 100 ? 100 : p;
}

int wrd_games_restore(struct wrd_server *srv, char *err, size_t errlen)
{
    struct restore rs = { .srv = srv };
    /* Open games and the running ones due soon; the others stay in the
     * store until someone asks for one. */
    struct wrd_store_loader l = { .ctx = &rs, .game = restore_game, .seat = restore_seat,
                                  .command = restore_command, .link = restore_link,
                                  .snapshot = restore_snapshot, .tail_only = 1,
                                  .due_before_ms = wrd_now_ms() + 2 * sweep_ms(srv) };
    char serr[200];
    int rc = srv->store->ops->load(srv->store, &l, serr, sizeof serr);
    if (rc != 0) {
        snprintf(err, errlen, "%s%s%s", serr, rs.err[0] ? ": " : "", rs.err);
        return rc;
    }
    for (struct wrd_game *g = srv->games->all_head; g; g = g->all_next) {
        if (finish_load(srv, g, 1, err, errlen) != 0)
            return -1;
        for (int i = 0; i < g->nseats; i++)
            if (g->seats[i].invite_hash[0])
                invite_index(srv->games, g, i);
        games_arm_timer(g);
    }
    wrd_info("games restored", "games=%d", srv->games->count);
    return 0;
}

int wrd_games_verify(struct wrd_server *srv, char *err, size_t errlen)
{
    struct restore rs = { .srv = srv, .verify = 1 };
    struct wrd_store_loader l = { .ctx = &rs, .game = restore_game, .seat = restore_seat,
                                  .command = restore_command, .snapshot = restore_snapshot,
                                  .finished_too = 1 };
    char serr[200] = "";
    uint64_t t0 = uv_hrtime();
    int rc = srv->store->ops->load(srv->store, &l, serr, sizeof serr);
    if (rc == 0 && verify_done(&rs) != 0)
        rc = -1;
    game_free(rs.single);
    if (rc != 0) {
        snprintf(err, errlen, "%s%s%s", serr, serr[0] && rs.err[0] ? ": " : "", rs.err);
        return rc;
    }
    snprintf(err, errlen, "%lld games, %lld commands replayed, every snapshot met, in %.1f s",
             (long long)rs.games, (long long)rs.commands, (double)(uv_hrtime() - t0) / 1e9);
    return 0;
}

/* --- finished games: out of memory, and back on demand ---------------------------- */

/*
 * A finished game leaves memory once nobody holds it (no connection joined,
 * no export being written): the store has all of it. A request that needs
 * a game not in memory (join, export, list naming it) waits while a worker
 * thread reads it back (store read_game, replayed through the rules like a
 * restart), then runs again; several requests for one game share one read.
 * A lobby page that may show finished games merges the games in memory with
 * the store's finished ones, read on a worker thread too. The loop never
 * reads the store itself.
 */

struct load_waiter {
    struct load_waiter *next;
    struct pending_req *req;
};

/* One game being read back. */
struct load {
    uv_work_t work;
    struct wrd_server *srv;
    struct load *next;          /* gs->loads */
    char id[24];
    struct wrd_game *g;         /* the game read (detached), or NULL */
    int rc;                     /* 0 read, 1 no such game, < 0 failed */
    char err[256];
    struct load_waiter *waiters;
};

/* When g next needs its server without a command: the earliest reminder
 * or expiry of a seat's deadline (ms since the epoch), 0 never. */
static int64_t next_wake(const struct wrd_game *g)
{
    int64_t next = 0;
    for (int i = 0; i < g->nseats; i++) {
        const struct seat *s = &g->seats[i];
        if (s->deadline_at == 0)
            continue;
        int64_t t = s->reminded ? s->deadline_at : remind_at(g, s);
        if (next == 0 || t < next)
            next = t;
    }
    return next;
}

/* May a running game leave memory now (shelve)? When it has been idle for
 * --game-idle, nobody holds it, it is not linked (a parent and its
 * children hand each other events), and nothing is due before the sweep
 * after next could read it back. */
static int shelvable(const struct wrd_game *g, int64_t now)
{
    const struct wrd_server *srv = g->srv;
    if (g->status != ST_RUNNING || srv->cfg.game_idle_ms <= 0 ||
        now - g->touched_ms < srv->cfg.game_idle_ms || g->nchildren || g->parent[0])
        return 0;
    int64_t wake = next_wake(g);
    return wake == 0 || wake > now + 2 * sweep_ms(srv);
}

static int evictable(const struct wrd_game *g)
{
    /* A parent stays while a child runs: the child's events come to it. */
    for (int i = 0; i < g->nchildren; i++)
        if (g->children[i].status != ST_FINISHED)
            return 0;
    if (g->nmembers != 0 || g->pins != 0 || cluster_busy(g))
        return 0;
    /* a copy of another process's game, watched by nobody here */
    if (g->follower)
        return 1;
    return g->status == ST_FINISHED || shelvable(g, wrd_now_ms());
}

/* g may leave memory at the end of this loop iteration. */
void games_maybe_evict(struct wrd_games *gs, struct wrd_game *g)
{
    if (!evictable(g) || g->evict_queued)
        return;
    if (gs->nevict == gs->capevict) {
        int cap = gs->capevict ? 2 * gs->capevict : 64;
        struct wrd_game **e = realloc(gs->evict, sizeof *e * (size_t)cap);
        if (e == NULL)
            return;             /* it stays in memory: no harm */
        gs->evict = e;
        gs->capevict = cap;
    }
    g->evict_queued = 1;
    gs->evict[gs->nevict++] = g;
}

static void free_timer(uv_handle_t *h);

/* The end of the flush: the finished games nobody holds leave memory. */
static void evict_queued(struct wrd_server *srv)
{
    struct wrd_games *gs = srv->games;
    int n = 0;
    for (int i = 0; i < gs->nevict; i++) {
        struct wrd_game *g = gs->evict[i];
        g->evict_queued = 0;
        if (!evictable(g))
            continue;
        cluster_let_go(srv, g);
        registry_remove(gs, g);
        if (g->timer) {
            uv_close((uv_handle_t *)g->timer, free_timer);
            g->timer = NULL;
        }
        gs->shelved += g->status == ST_RUNNING;
        game_free(g);
        n++;
    }
    gs->nevict = 0;
#ifdef __GLIBC__
    /* Give the pages of many freed games back to the system now and then:
     * without it a server's memory stays at its high-water mark. */
    gs->evicted += n;
    if (gs->evicted >= 256) {
        gs->evicted = 0;
        malloc_trim(0);
    }
#else
    (void)n;
#endif
}

/* "g-" and 12 hex digits: an id the server could have made. */
static int plausible_id(const char *id)
{
    return id && strncmp(id, "g-", 2) == 0 && games_is_hex(id + 2, 12);
}

static void load_work(uv_work_t *w)
{
    struct load *ld = w->data;
    struct wrd_server *srv = ld->srv;
    struct restore rs = { .srv = srv, .one = 1 };
    struct wrd_store_loader l = { .ctx = &rs, .game = restore_game, .seat = restore_seat,
                                  .command = restore_command, .snapshot = restore_snapshot,
                                  .tail_only = 1 };
    char serr[200] = "";
    ld->rc = srv->store->ops->read_game(srv->store, ld->id, &l, serr, sizeof serr);
    if (ld->rc == 0 && rs.single && finish_load(srv, rs.single, 1, ld->err, sizeof ld->err) == 0) {
        ld->g = rs.single;
        return;
    }
    if (ld->rc == 0)
        ld->rc = WRD_STORE_ERROR;
    if (ld->rc < 0 && ld->err[0] == '\0')
        snprintf(ld->err, sizeof ld->err, "%.120s%s%.120s", serr, rs.err[0] ? ": " : "", rs.err);
    game_free(rs.single);
}

void games_finish_request(struct wrd_server *srv, struct pending_req *req)
{
    if (req->conn == NULL) {
        req->then(srv);
        free(req);
        return;
    }
    if (req->conn->wsi != NULL)
        req->run(srv, req->conn, req->msg, req->fetched > 1 ? req->fetched : 1);
    wrd_conn_wait_end(req->conn);       /* then its next message, if held */
    wrd_conn_unref(req->conn);
    json_decref(req->msg);
    free(req);
}

static void load_done(uv_work_t *w, int status)
{
    struct load *ld = w->data;
    struct wrd_server *srv = ld->srv;
    struct wrd_games *gs = srv->games;
    for (struct load **p = &gs->loads; *p; p = &(*p)->next)
        if (*p == ld) {
            *p = ld->next;
            break;
        }
    struct wrd_game *g = ld->g;
    if (g && (status != 0 || games_find(gs, g->id) != NULL)) {
        game_free(g);       /* cancelled, or in memory already */
        g = NULL;
    } else if (g) {
        registry_add(gs, g);
        for (int i = 0; i < g->nseats; i++)
            if (g->seats[i].invite_hash[0])
                invite_index(gs, g, i);
        games_arm_timer(g);
        cluster_adopt(srv, g);
    } else if (ld->rc < 0) {
        wrd_error("a stored game could not be read", "game=%s error=\"%s\"", ld->id, ld->err);
    }
    while (ld->waiters) {
        struct load_waiter *wt = ld->waiters;
        ld->waiters = wt->next;
        if (--wt->req->waiting == 0)
            games_finish_request(srv, wt->req);
        free(wt);
    }
    if (g)
        games_maybe_evict(gs, g);
    free(ld);
}

/* The read of game id, started now or already under way; NULL when it
 * cannot start. *started says which. */
static struct load *start_load(struct wrd_server *srv, const char *id, int *started)
{
    struct wrd_games *gs = srv->games;
    *started = 0;
    struct load *ld = gs->loads;
    while (ld && strcmp(ld->id, id) != 0)
        ld = ld->next;
    if (ld)
        return ld;
    if ((ld = calloc(1, sizeof *ld)) == NULL)
        return NULL;
    ld->srv = srv;
    ld->work.data = ld;
    snprintf(ld->id, sizeof ld->id, "%s", id);
    if (uv_queue_work(&srv->loop, &ld->work, load_work, load_done) != 0) {
        free(ld);
        return NULL;
    }
    ld->next = gs->loads;
    gs->loads = ld;
    gs->reads++;
    *started = 1;
    return ld;
}

/* req waits for ld too. */
static void wait_for(struct load *ld, struct pending_req *req)
{
    struct load_waiter *wt = malloc(sizeof *wt);
    if (wt == NULL)
        return;
    *wt = (struct load_waiter){ ld->waiters, req };
    ld->waiters = wt;
    req->waiting++;
}

/*
 * Make sure the games ids[0..n) are in memory before msg is handled: when
 * some are not (and could exist), read them back and return 1: run(srv, c,
 * msg, 1) is called once they are in, or known to be absent. 0: nothing to
 * wait for, go on now. Each read costs the caller's address 2 units.
 */
static int fetch(struct wrd_server *srv, struct wrd_conn *c, const json_t *msg, rerun_fn run,
                 const char *const *ids, int n)
{
    struct wrd_games *gs = srv->games;
    struct pending_req *req = NULL;
    for (int i = 0; i < n; i++) {
        if (!plausible_id(ids[i]) || games_find(gs, ids[i]) != NULL)
            continue;
        if (req == NULL) {
            req = calloc(1, sizeof *req);
            if (req == NULL)
                return 0;
            *req = (struct pending_req){ run, c, json_incref((json_t *)msg), 0, NULL, 1 };
            wrd_conn_ref(c);
            wrd_conn_wait_begin(c);     /* its next messages wait for this one */
        }
        int started;
        struct load *ld = start_load(srv, ids[i], &started);
        if (ld == NULL)
            continue;
        if (started)
            wrd_addr_charge(srv, c->from, 2);
        wait_for(ld, req);
    }
    if (req && req->waiting == 0) {
        wrd_conn_wait_end(req->conn);
        wrd_conn_unref(req->conn);
        json_decref(req->msg);
        free(req);
        return 0;
    }
    return req != NULL;
}

/* --- running games: out of memory when idle (shelved), back when needed ----------- */

/*
 * A running game nobody holds leaves memory once idle for --game-idle
 * (shelvable): the sweep, every sweep_ms, writes its status row (what a
 * lobby shows of it, when it is next due) and queues it; the flush frees it
 * after the commit. It comes back like a finished game (fetch) when a
 * client names it, and on its own when it is due: the sweep asks the store
 * for the games due before the sweep after next (select_ids WRD_IDS_DUE)
 * and reads them back, so their timers fire on time. The digest asks for
 * the games with a seat on mail (WRD_IDS_MAIL) and reads them back first.
 * The loop never reads the store itself: each selection runs on a worker
 * thread.
 */

#define SELECT_MAX 1000             /* ids one selection reads back at most */

struct select_job {
    uv_work_t work;
    struct wrd_server *srv;
    struct wrd_ids_query q;
    char (*ids)[24];
    int n, rc;
    char err[200];
    void (*then)(struct wrd_server *srv);       /* the digest; NULL: the sweep */
};

static int select_keep(void *ctx, const char *id)
{
    struct select_job *job = ctx;
    snprintf(job->ids[job->n++], sizeof job->ids[0], "%s", id);
    return job->n == SELECT_MAX;
}

static void select_work(uv_work_t *w)
{
    struct select_job *job = w->data;
    struct wrd_store *st = job->srv->store;
    job->rc = st->ops->select_ids(st, &job->q, select_keep, job, job->err, sizeof job->err);
}

static void select_done(uv_work_t *w, int status)
{
    struct select_job *job = w->data;
    struct wrd_server *srv = job->srv;
    struct wrd_games *gs = srv->games;
    struct pending_req *req = NULL;
    if (job->then == NULL)
        gs->sweeping = 0;
    if (status != 0 || job->rc < 0) {
        if (job->rc < 0)
            wrd_error("the store could not say which games are due", "error=\"%s\"", job->err);
        job->n = 0;
    }
    if (job->then && (req = calloc(1, sizeof *req)) != NULL)
        req->then = job->then;
    for (int i = 0; i < job->n && !srv->stopping; i++) {
        if (games_find(gs, job->ids[i]) != NULL)
            continue;
        int started;
        struct load *ld = start_load(srv, job->ids[i], &started);
        if (ld && req)
            wait_for(ld, req);
    }
    if (req && req->waiting == 0)
        games_finish_request(srv, req);
    else if (req == NULL && job->then)
        job->then(srv);
    free(job->ids);
    free(job);
}

/* Ask the store for the games q names (on a worker thread), read back
 * those not in memory, then then(srv) (when not NULL). */
static void select_and_load(struct wrd_server *srv, struct wrd_ids_query q,
                            void (*then)(struct wrd_server *srv))
{
    struct select_job *job = calloc(1, sizeof *job);
    if (job && (job->ids = calloc(SELECT_MAX, sizeof job->ids[0])) != NULL) {
        job->srv = srv;
        job->q = q;
        job->then = then;
        job->work.data = job;
        if (uv_queue_work(&srv->loop, &job->work, select_work, select_done) == 0) {
            if (then == NULL)
                srv->games->sweeping = 1;
            return;
        }
        free(job->ids);
    }
    free(job);
    if (then)
        then(srv);
}

/* What a shelved game leaves in the store: its status row, current. */
static void shelve(struct wrd_server *srv, struct wrd_game *g)
{
    if (status_row(srv, g) != 0)
        wrd_error("store write failed", "game=%s", g->id);
    games_maybe_evict(srv->games, g);
}

static void on_sweep(uv_timer_t *t)
{
    struct wrd_server *srv = t->data;
    struct wrd_games *gs = srv->games;
    int64_t now = wrd_now_ms();
    for (struct wrd_game *g = gs->all_head; g; g = g->all_next) {
        /* a copy whose deadline has come: its owner may be dead (its
         * timer gone with it), so the game is taken when it can be */
        int64_t wake = g->follower && !g->catching ? next_wake(g) : 0;
        if (wake && wake <= now && g->status == ST_RUNNING)
            cluster_take(srv, g);
        else if (!g->evict_queued && g->status == ST_RUNNING && evictable(g))
            shelve(srv, g);
    }
    if (!gs->sweeping)
        select_and_load(srv, (struct wrd_ids_query){ WRD_IDS_DUE, now + 2 * sweep_ms(srv) },
                        NULL);
}

void wrd_games_keep_summaries(struct wrd_server *srv)
{
    for (struct wrd_game *g = srv->games->all_head; g; g = g->all_next)
        if (g->status == ST_RUNNING && status_row(srv, g) != 0)
            wrd_error("store write failed", "game=%s", g->id);
}

void wrd_games_start_sweep(struct wrd_server *srv)
{
    struct wrd_games *gs = srv->games;
    if (gs->sweep_on)
        return;
    uv_timer_init(&srv->loop, &gs->sweep);
    gs->sweep.data = srv;
    uint64_t p = (uint64_t)sweep_ms(srv);
    uv_timer_start(&gs->sweep, on_sweep, p, p);
    gs->sweep_on = 1;
}

/* A lobby page that may show finished games: the store's part is read on a
 * worker thread, then merged with the games in memory. */
struct list_job {
    uv_work_t work;
    struct wrd_server *srv;
    struct wrd_conn *conn;      /* a reference; or NULL for GET /games */
    json_t *msg;                /* the request (a reference) */
    struct list_query q;        /* points into msg */
    json_t *rows;               /* the store's games, as summaries, newest first */
    json_t *part;               /* store_row's array (a borrowed one of list_work's) */
    size_t read;                /* rows the store read for it (charged to the address) */
    int rc;
    char err[200];
    void (*reply)(struct wrd_server *srv, void *ctx, json_t *answer, const char *why);
    void *ctx;                  /* reply's, for GET /games */
};

/* The summary of a finished game as the store lists it. */
static int store_row(void *ctx, const struct wrd_finished_row *r)
{
    struct list_job *job = ctx;
    json_t *seats = json_object();
    for (int i = 0; i < r->nseats; i++)
        json_object_set_new(seats, r->seats[i].name,
                            json_string(r->seats[i].taken ? "taken" : "free"));
    json_t *opts = json_loads(r->options_json ? r->options_json : "{}", 0, NULL);
    int finished = strcmp(r->status, "finished") == 0;
    json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:I, s:o, s:b, s:b}", "game", r->id,
                          "ruleset", r->ruleset, "scenario", r->scenario_name, "status",
                          finished ? "finished" : "running", "version", (json_int_t)r->version,
                          "seats", seats,
                          "spectators", !json_is_false(json_object_get(opts, "spectators")),
                          "open_seats", json_is_true(json_object_get(opts, "open_seats")));
    json_decref(opts);
    json_object_set_new(o, "awaiting", !finished && r->awaiting ? json_string(r->awaiting)
                                                                : json_null());
    if (finished)
        json_object_set_new(o, "result",
                            json_string(r->result && strncmp(r->result, "forfeit", 7) == 0
                                            ? "forfeit"
                                            : r->result ? r->result : ""));
    json_object_set_new(o, "watching", json_integer(0));
    json_object_set_new(o, "last_move_ms", r->moved_ms ? json_integer(r->moved_ms) : json_null());
    /* the sort key, taken off before the answer goes */
    json_object_set_new(o, "created_ms", json_integer(r->created_ms));
    json_array_append_new(job->part, o);
    return 0;
}

/* Is row (a store row of a listing) newer than row b, by (created_ms, id)? */
static int row_newer(const json_t *a, const json_t *b)
{
    int64_t am = json_integer_value(json_object_get(a, "created_ms"));
    int64_t bm = json_integer_value(json_object_get(b, "created_ms"));
    return am != bm ? am > bm
                    : strcmp(json_string_value(json_object_get(a, "game")),
                             json_string_value(json_object_get(b, "game"))) > 0;
}

/* The store's part of a page: its running games, its finished games, or
 * both (merged, newest first), limit + 1 of them. */
static void list_work(uv_work_t *w)
{
    struct list_job *job = w->data;
    static const char *const which[2] = { "running", "finished" };
    static const int status[2] = { ST_RUNNING, ST_FINISHED };
    json_t *parts[2] = { NULL, NULL };
    for (int i = 0; i < 2 && job->rc >= 0; i++) {
        if (job->q.status >= 0 && job->q.status != status[i])
            continue;
        struct wrd_finished_query fq = { job->q.from_top ? NULL : job->q.before_id,
                                         job->q.before_ms, job->q.limit + 1, job->q.ruleset,
                                         which[i] };
        job->part = parts[i] = json_array();
        job->rc = job->srv->store->ops->list_finished(job->srv->store, &fq, store_row, job,
                                                      job->err, sizeof job->err);
        job->read += json_array_size(parts[i]);
    }
    size_t a = 0, b = 0;
    while ((int)json_array_size(job->rows) <= job->q.limit) {
        json_t *ra = json_array_get(parts[0], a), *rb = json_array_get(parts[1], b);
        if (ra == NULL && rb == NULL)
            break;
        if (ra && (rb == NULL || row_newer(ra, rb))) {
            json_array_append(job->rows, ra);
            a++;
        } else {
            json_array_append(job->rows, rb);
            b++;
        }
    }
    json_decref(parts[0]);
    json_decref(parts[1]);
}

/* The page: the newest `limit` of the store's running and finished games
 * (each shown as it is in memory when it is there) and the open games,
 * which are all in memory, with a cursor when there is more. */
static json_t *merged_page(struct wrd_server *srv, struct list_job *job)
{
    const struct list_query *q = &job->q;
    json_t *list = json_array();
    struct wrd_game *g = srv->games->all_tail;
    if (!q->from_top)
        while (g && !older(g, q->before_ms, q->before_id))
            g = g->all_prev;
    size_t k = 0;
    int64_t last_ms = 0;
    char last_id[24] = "";
    int more = 0;
    for (;;) {
        while (g && (g->status != ST_OPEN || !listed(g) || !matches(g, q)))
            g = g->all_prev;
        json_t *row = json_array_get(job->rows, k);
        if (g == NULL && row == NULL)
            break;
        if ((int)json_array_size(list) == q->limit) {
            more = 1;
            break;
        }
        int64_t rms = json_integer_value(json_object_get(row, "created_ms"));
        const char *rid = json_string_value(json_object_get(row, "game"));
        if (row && (g == NULL || older(g, rms, rid))) {
            struct wrd_game *held = games_find(srv->games, rid);
            json_t *o = held && held->status != ST_OPEN ? game_summary(held)
                                                        : json_deep_copy(row);
            json_object_del(o, "created_ms");
            json_array_append_new(list, o);
            last_ms = rms;
            snprintf(last_id, sizeof last_id, "%s", rid);
            k++;
        } else {
            json_array_append_new(list, game_summary(g));
            last_ms = g->created_ms;
            snprintf(last_id, sizeof last_id, "%s", g->id);
            g = g->all_prev;
        }
    }
    char next[64];
    snprintf(next, sizeof next, "%lld:%s", (long long)last_ms, last_id);
    return json_pack("{s:o, s:o}", "games", list, "cursor", more ? json_string(next) : json_null());
}

static void list_done(uv_work_t *w, int status)
{
    struct list_job *job = w->data;
    struct wrd_server *srv = job->srv;
    json_t *answer = NULL;
    const char *why = NULL;
    if (status != 0 || job->rc < 0) {
        if (job->rc < 0)
            wrd_error("the lobby could not be read", "error=\"%s\"", job->err);
        why = "the lobby could not be read";
    } else {
        answer = merged_page(srv, job);
    }
    job->reply(srv, job->ctx ? job->ctx : job, answer, why);
    json_decref(answer);
    /* The store's work, beyond the answer's size: a unit per 8 rows read
     * (docs/protocol.md, Limits). */
    if (job->conn)
        wrd_addr_charge(srv, job->conn->from, (double)job->read / 8);
    if (job->conn)
        wrd_conn_unref(job->conn);
    json_decref(job->rows);
    json_decref(job->msg);
    free(job);
}

static void send_games(struct wrd_server *srv, struct wrd_conn *c, json_t *answer,
                       const json_t *jid)
{
    json_object_set_new(answer, "type", json_string("games"));
    if (jid)
        json_object_set(answer, "id", (json_t *)jid);
    struct wrd_msg *m = wrd_msg_json(answer);
    if (m)
        wrd_addr_charge(srv, c->from, wrd_addr_bytes_cost(m->len));
    wrd_conn_send(c, m);
    wrd_msg_unref(m);
}

static void list_reply_ws(struct wrd_server *srv, void *ctx, json_t *answer, const char *why)
{
    struct list_job *job = ctx;
    struct wrd_conn *c = job->conn;
    json_t *jid = json_object_get(job->msg, "id");
    if (c->wsi == NULL)
        return;
    if (answer == NULL)
        wrd_conn_error(c, WRD_E_INTERNAL, why, NULL, NULL, jid);
    else
        send_games(srv, c, answer, jid);
}

/* Start a lobby page that needs the store's finished games. */
static int list_from_store(struct wrd_server *srv, struct wrd_conn *c, const json_t *msg,
                           void (*reply)(struct wrd_server *, void *, json_t *, const char *),
                           void *ctx)
{
    struct list_job *job = calloc(1, sizeof *job);
    if (job == NULL)
        return -1;
    job->srv = srv;
    job->conn = c;
    job->msg = json_incref((json_t *)msg);
    job->rows = json_array();
    job->reply = reply;
    job->ctx = ctx;
    job->work.data = job;
    if (read_query(job->msg, &job->q) != NULL ||
        uv_queue_work(&srv->loop, &job->work, list_work, list_done) != 0) {
        json_decref(job->rows);
        json_decref(job->msg);
        free(job);
        return -1;
    }
    if (c)
        wrd_conn_ref(c);
    return 0;
}

static void list_run(struct wrd_server *srv, struct wrd_conn *c, const json_t *msg, int fetched)
{
    json_t *jid = json_object_get(msg, "id");
    struct list_query q;
    const char *why = read_query(msg, &q);
    if (why) {
        wrd_conn_error(c, WRD_E_BAD_MESSAGE, why, NULL, NULL, jid);
        return;
    }
    if (q.games && !fetched) {
        const char *ids[LIST_MAX];
        int n = 0;
        size_t i;
        json_t *v;
        json_array_foreach(q.games, i, v)
            ids[n++] = json_string_value(v);
        if (fetch(srv, c, msg, list_run, ids, n))
            return;
    }
    if (q.games == NULL && q.status != ST_OPEN) {
        if (list_from_store(srv, c, msg, list_reply_ws, NULL) != 0)
            wrd_conn_error(c, WRD_E_INTERNAL, "the lobby could not be read", NULL, NULL, jid);
        return;
    }
    json_t *a = list_answer(srv, &q);
    send_games(srv, c, a, jid);
    json_decref(a);
}

void wrd_games_list_msg(struct wrd_server *srv, struct wrd_conn *c, const json_t *msg)
{
    list_run(srv, c, msg, 0);
}

int wrd_games_list_async(struct wrd_server *srv, const json_t *request,
                         void (*reply)(struct wrd_server *srv, void *ctx, json_t *answer,
                                       const char *why),
                         void *ctx)
{
    struct list_query q;
    const char *why = read_query(request, &q);
    if (why || q.games || q.status == ST_OPEN) {
        json_t *a = why ? NULL : list_answer(srv, &q);
        reply(srv, ctx, a, why);
        json_decref(a);
        return 0;
    }
    if (list_from_store(srv, NULL, request, reply, ctx) != 0) {
        reply(srv, ctx, NULL, "the lobby could not be read");
        return 0;
    }
    return 1;
}
