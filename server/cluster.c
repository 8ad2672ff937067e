/*
 * cluster.c - several servers on one store (--cluster): each game owned by
 * one process at a time, copies of it kept in step on the others from the
 * store's notes and rows, the commands and claims of a copy's clients
 * forwarded to the owner, and a game whose owner died taken over.
 *
 * The games themselves, their command path and their registry are games.c's;
 * the two share what games_int.h declares. The design is told below, under
 * "several servers on one store".
 */
#include "games_int.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "conn.h"
#include "dlist.h"
#include "log.h"
#include "ruleset.h"
#include "server.h"
#include "store.h"

/* --- several servers on one store (--cluster) ----------------------------------------- */

/*
 * With --cluster, N processes share one store (store.h, the cluster ops).
 * Each game is owned by one process at a time: it holds the store's lock
 * of the game (own()), runs its commands, deadlines and notifications, and
 * writes it. Any other process may hold a copy of it, a follower: for its
 * own clients (members joined there), kept in step from the store and
 * never written there.
 *
 *   - Owning. A process owns the games it creates, and a game it reads
 *     from the store when no other process holds it (cluster_adopt). It
 *     lets a game go when the game leaves its memory (cluster_let_go).
 *     The loop makes no round trip for a lock: a new game's and a game
 *     let go are ops of the batch (own_new, disown); a game read or taken
 *     over has its lock tried on a worker thread with the read of its
 *     later rows (read_rows, own), settled in tail_done (took).
 *   - Being taken (g->taking: also catching and a follower until settled).
 *     No deadline runs (arm_timer stops a follower's); a command or a
 *     claim of a client here waits in the forwards with sent_ms 0
 *     (place), then runs here (run_waiting) or goes to the owner
 *     (send_waiting); a late forward waits for the take under way
 *     (on_tick); a forward from another process is left for its sender
 *     to send again (note_forward); a request that needs the rows waits
 *     for the read (cluster_recheck); other writes are answered
 *     owned_elsewhere (cluster_may_write); it stays in memory
 *     (cluster_busy).
 *   - Notes. After a commit, every game the batch changed is named to
 *     every process by a note "ID VERSION" (WRD_NOTE_GAME): a follower
 *     then reads the rows after its version (read_tail, on a worker
 *     thread) and applies them as the owner did: the rules replay the
 *     commands (the same seed, the same dice), the views are diffed and
 *     the patches go to its members. A game let go is noted "ID VERSION -".
 *   - Forwarding. A command a follower's client sends goes to the owner
 *     as a note (WRD_NOTE_FORWARD); the owner runs it through the same
 *     command_core as its own clients' and answers with a note
 *     (WRD_NOTE_REPLY) in the batch of the command, so the answer exists
 *     only once the command is durable. The follower gives its client
 *     the answer once its copy has reached the answer's version: the
 *     patch and the ack arrive as on the owner.
 *   - Taking over. A forward with no answer after FORWARD_WAIT_MS (its
 *     owner died: its session's locks went with it; or it let the game
 *     go) makes the follower try to own the game (take). When it can, it
 *     reads the rows after its version and then runs the waiting commands
 *     itself; when it cannot, they are sent again. A command the dead owner had committed is in those rows: the
 *     re-run finds its seq answered and gives the same answer (step 2).
 *     When it cannot, another process holds the game: the command is
 *     forwarded again, and answered again if it was applied already.
 *
 * Writes that are not commands (a claim, a webhook, orders by mail) are
 * taken only by the owner: a follower answers owned_elsewhere, unless the
 * game has no owner, when it takes the game first. Linked games (a parent
 * and its children) are not shared: each is driven only where it is owned.
 */

#define FORWARD_WAIT_MS 400     /* an owner silent this long is taken over */

/* Why a read of a game's rows first tries its lock (read_rows): a game read
 * from the store (cluster_adopt), or a follower taken over (take). */
enum { OWN_ADOPT = 1, OWN_TAKE = 2 };
#define FORWARD_TICK_MS 100

/* A command or a claim of a client of this process, for a game it does
 * not own (or owns but is still reading): sent to the owner, or waiting to
 * run here.
 *
 * Each forward is in three places, so that no event walks all of them:
 * the list of its game (g->fwd_head, oldest first: the order it was sent
 * in, which is the order its game's forwards run and are answered in), or
 * while no game held here has its name (a claim by an invite not known
 * here) the cluster's list of those; the cluster's list of every forward,
 * oldest first, for the tick; and the table by fid, for the answers. */
enum { FWD_COMMAND, FWD_CLAIM };

struct forward {
    struct forward *prev, *next;        /* in its game's list (or the gameless one) */
    struct forward *all_prev, *all_next;        /* every forward, oldest first */
    struct forward *fid_next;   /* the chain of its bucket by fid */
    struct wrd_game *g;         /* whose list holds it: games_find(game), NULL when
                                   that is NULL */
    int kind;                   /* FWD_* */
    uint64_t fid;
    struct wrd_conn *conn;      /* a reference */
    char game[24];              /* "": a claim by an invite this process does not know */
    int seat;                   /* -1 with game "" */
    char seat_name[24];
    int64_t seq;                /* FWD_COMMAND */
    json_t *cmd, *jid;          /* references (cmd: FWD_COMMAND; jid may be NULL) */
    json_t *msg;                /* FWD_CLAIM: the client's claim (a reference) */
    char invite_hash[65];       /* FWD_CLAIM: "" when by game and seat */
    char token[65];             /* FWD_CLAIM: the claimer's token, made here (only its */
    char token_hash[65];        /*   hash goes to the owner) */
    int64_t sent_ms;            /* when it was last sent; 0: it runs here once the game
                                   is read (owned) */
    int replied;                /* the owner's answer came: */
    int64_t version;            /* ...the game's version then */
    char *answer;               /* ...and its text, or NULL (the copy's remembered one) */
};

struct cluster {
    char node[17];              /* this process among the others: 16 hex digits */
    uv_poll_t poll;             /* the store's note descriptor */
    uv_timer_t tick;            /* forwards without an answer */
    /* For the tests, WARROOM_TEST_NOTE_DELAY_MS (0 off): the notes that
     * arrive are read that much later (late), as on a loaded machine, so
     * that a copy is behind its owner while its clients are answered. */
    uv_timer_t late;
    int note_delay_ms;
    int handles;                /* poll, tick and late initialised */
    struct forward *all_head, *all_tail;        /* every forward, oldest first */
    struct forward *gameless_head, *gameless_tail;      /* those of no game held here */
    struct forward **by_fid;    /* buckets by fid (a power of two of them) */
    size_t nby_fid, nforwards;
    uint64_t next_fid;
    struct wrd_game **noted;    /* games changed in the open batch */
    int nnoted, capnoted;
    int owned;                  /* games held and owned */
    uint64_t forwarded, takeovers;
    uint64_t notes, notes_parsed;   /* forwards and replies come; of them, ours */
};

/* Is g waiting on the store or on another process? It stays in memory. */
int cluster_busy(const struct wrd_game *g)
{
    const struct cluster *cl = g->srv->games->cluster;
    if (cl == NULL)
        return 0;
    return g->catching || g->waiters || g->fwd_head;
}

void cluster_changed(struct wrd_games *gs, struct wrd_game *g)
{
    struct cluster *cl = gs->cluster;
    if (cl == NULL || g->noted)
        return;
    if (cl->nnoted == cl->capnoted) {
        int cap = cl->capnoted ? 2 * cl->capnoted : 64;
        struct wrd_game **n = realloc(cl->noted, sizeof *n * (size_t)cap);
        if (n == NULL) {
            wrd_error("out of memory for a note: the other processes see the game late",
                      "game=%s", g->id);
            return;
        }
        cl->noted = n;
        cl->capnoted = cap;
    }
    g->noted = 1;
    cl->noted[cl->nnoted++] = g;
}

static void put_game_note(struct wrd_server *srv, const struct wrd_game *g, int let_go)
{
    char note[64];
    snprintf(note, sizeof note, "%s %lld%s", g->id, (long long)g->version, let_go ? " -" : "");
    if (srv->store->cluster->put_note(srv->store, WRD_NOTE_GAME, note) != 0)
        wrd_error("store write failed", "game=%s note=game", g->id);
}

/* A command of g's into the batch: the note of the batch carries it, so
 * the copies apply it without reading the store. */
void cluster_note_command(struct wrd_server *srv, struct wrd_game *g,
                          const struct wrd_command_row *row, const json_t *cmd)
{
    if (srv->games->cluster == NULL)
        return;
    cluster_changed(srv->games, g);
    if (g->noted_cmds == NULL && (g->noted_cmds = json_array()) == NULL)
        return;
    json_array_append_new(g->noted_cmds,
                          json_pack("{s:I, s:s, s:I, s:O, s:I}", "v", (json_int_t)row->version,
                                    "s", row->seat, "q", (json_int_t)row->client_seq, "c", cmd,
                                    "t", (json_int_t)row->at_ms));
}

/* Before the commit: the notes of the games the batch changed: "ID
 * VERSION", followed by the batch's commands of the game ([{v, s, q, c,
 * t}], version, seat, client seq, command, time) when they are all it
 * changed and they fit in a note. */
void cluster_put_notes(struct wrd_server *srv)
{
    struct cluster *cl = srv->games->cluster;
    if (cl == NULL)
        return;
    for (int i = 0; i < cl->nnoted; i++) {
        struct wrd_game *g = cl->noted[i];
        char *cmds = g->noted_cmds && !g->noted_other
                         ? json_dumps(g->noted_cmds, JSON_COMPACT) : NULL;
        size_t len = cmds ? strlen(cmds) : 0;
        char *note = len && len + 64 < WRD_NOTE_MAX ? malloc(len + 64) : NULL;
        if (note) {
            snprintf(note, len + 64, "%s %lld %s", g->id, (long long)g->version, cmds);
            if (srv->store->cluster->put_note(srv->store, WRD_NOTE_GAME, note) != 0)
                wrd_error("store write failed", "game=%s note=game", g->id);
        } else {
            put_game_note(srv, g, 0);
        }
        free(note);
        free(cmds);
        json_decref(g->noted_cmds);
        g->noted_cmds = NULL;
        g->noted = g->noted_other = 0;
    }
    cl->nnoted = 0;
}

static void forward_free(struct forward *f)
{
    wrd_conn_unref(f->conn);
    json_decref(f->cmd);
    json_decref(f->jid);
    json_decref(f->msg);
    free(f->answer);
    free(f);
}

/* The head and tail of the list f belongs in by its game's name. */
static void forward_list(struct cluster *cl, struct forward *f, struct forward ***head,
                         struct forward ***tail)
{
    if (f->g) {
        *head = &f->g->fwd_head;
        *tail = &f->g->fwd_tail;
    } else {
        *head = &cl->gameless_head;
        *tail = &cl->gameless_tail;
    }
}

/* f at the end of the list of the game it names (g, found by the caller:
 * games_find(f->game), or NULL). */
static void forward_list_add(struct cluster *cl, struct forward *f, struct wrd_game *g)
{
    struct forward **head, **tail;
    f->g = g;
    forward_list(cl, f, &head, &tail);
    WRD_DLIST_APPEND(*head, *tail, f, prev, next);
}

static void forward_list_remove(struct cluster *cl, struct forward *f)
{
    struct forward **head, **tail;
    forward_list(cl, f, &head, &tail);
    WRD_DLIST_REMOVE(*head, *tail, f, prev, next);
}

static struct forward **fid_bucket(struct cluster *cl, uint64_t fid)
{
    return &cl->by_fid[fid & (cl->nby_fid - 1)];
}

/* Room in the table by fid for one more forward: its buckets doubled
 * when it holds as many forwards as buckets. -1 out of memory. */
static int fid_room(struct cluster *cl)
{
    if (cl->nforwards < cl->nby_fid)
        return 0;
    size_t n = cl->nby_fid ? 2 * cl->nby_fid : 64;
    struct forward **b = calloc(n, sizeof *b);
    if (b == NULL)
        return -1;
    for (size_t i = 0; i < cl->nby_fid; i++)
        for (struct forward *f = cl->by_fid[i], *next; f; f = next) {
            next = f->fid_next;
            f->fid_next = b[f->fid & (n - 1)];
            b[f->fid & (n - 1)] = f;
        }
    free(cl->by_fid);
    cl->by_fid = b;
    cl->nby_fid = n;
    return 0;
}

/* The forward whose fid is fid, or NULL. */
static struct forward *forward_by_fid(struct cluster *cl, uint64_t fid)
{
    if (cl->nby_fid == 0)
        return NULL;
    struct forward *f = *fid_bucket(cl, fid);
    while (f && f->fid != fid)
        f = f->fid_next;
    return f;
}

/* f (its fid and game set) into the lists and the table; fid_room has
 * made room for it. */
static void forward_link(struct cluster *cl, struct forward *f, struct wrd_game *g)
{
    forward_list_add(cl, f, g);
    WRD_DLIST_APPEND(cl->all_head, cl->all_tail, f, all_prev, all_next);
    struct forward **b = fid_bucket(cl, f->fid);
    f->fid_next = *b;
    *b = f;
    cl->nforwards++;
}

/* f out of the lists and the table (the caller frees it). */
static void forward_unlink(struct cluster *cl, struct forward *f)
{
    forward_list_remove(cl, f);
    WRD_DLIST_REMOVE(cl->all_head, cl->all_tail, f, all_prev, all_next);
    struct forward **p = fid_bucket(cl, f->fid);
    while (*p != f)
        p = &(*p)->fid_next;
    *p = f->fid_next;
    cl->nforwards--;
}

/* f now names another game (a claim by an invite answered by its owner):
 * into that game's list, when this process holds it. */
static void forward_rename(struct wrd_server *srv, struct forward *f, const char *game)
{
    struct cluster *cl = srv->games->cluster;
    snprintf(f->game, sizeof f->game, "%s", game);
    forward_list_remove(cl, f);
    forward_list_add(cl, f, f->game[0] ? games_find(srv->games, f->game) : NULL);
}

static void catch_up(struct wrd_server *srv, struct wrd_game *g);
static void run_waiters(struct wrd_server *srv, struct wrd_game *g);
static void after_follow(struct wrd_server *srv, struct wrd_game *g);
static void send_waiting(struct wrd_server *srv, struct wrd_game *g);

static int read_rows(struct wrd_server *srv, struct wrd_game *g, int own);

/* Try to own g, a follower, off the loop: its lock is tried on a worker
 * thread (own(), which may wait for a commit), then its rows after its
 * version are read; g is `taking` meanwhile, and tail_done settles it
 * (took): owned, it runs the forwards waiting for it (run_waiting); not,
 * they are sent to the owner (send_waiting). A take asked while a plain
 * read runs starts after it. 0 under way (or g owned already), -1 no
 * worker could be asked (nothing changes). */
int cluster_take(struct wrd_server *srv, struct wrd_game *g)
{
    if (!g->follower)
        return 0;
    return read_rows(srv, g, OWN_TAKE);
}

/* The try of g's lock is done (rc: own()'s answer, 0 when it did not run):
 * g is owned, or stays a follower. kind: OWN_TAKE or OWN_ADOPT. */
static void took(struct wrd_server *srv, struct wrd_game *g, int kind, int rc)
{
    struct cluster *cl = srv->games->cluster;
    g->taking = 0;
    if (rc < 0)
        wrd_error("the store could not say who owns a game", "game=%s", g->id);
    if (rc != 1) {
        g->released = 0;        /* another process has it now (or the store failed:
                                   a forward's wait takes it again) */
        return;
    }
    g->follower = 0;
    g->released = 0;
    cl->owned++;
    if (kind == OWN_TAKE) {
        cl->takeovers++;
        wrd_info("game taken over", "game=%s version=%lld", g->id, (long long)g->version);
    }
}

/* The text of a forward or a reply: "TO JSON" (store.h, the channels),
 * TO its addressee; NULL when it is too long. Every process gets every
 * note, and reads past those addressed to others without parsing them. */
static char *note_text(const char *to, json_t *j)
{
    char *body = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    size_t k = strlen(to);
    size_t n = body ? k + 1 + strlen(body) : SIZE_MAX;
    char *t = n <= WRD_NOTE_MAX ? malloc(n + 1) : NULL;
    if (t != NULL) {
        memcpy(t, to, k);
        t[k] = ' ';
        memcpy(t + k + 1, body, n - k);     /* with its '\0' */
    }
    free(body);
    return t;
}

/* A forward's or a reply's addressee, copied to to (cap bytes), and its
 * JSON text after it; NULL when the note has none. */
static const char *note_to(const char *payload, char *to, size_t cap)
{
    const char *sp = strchr(payload, ' ');
    size_t n = sp ? (size_t)(sp - payload) : 0;
    if (n == 0 || n >= cap)
        return NULL;
    memcpy(to, payload, n);
    to[n] = '\0';
    return sp + 1;
}

static int send_forward(struct wrd_server *srv, struct forward *f)
{
    struct cluster *cl = srv->games->cluster;
    json_t *j = json_pack("{s:s, s:I, s:s, s:s, s:s, s:O?}", "node", cl->node, "fid",
                          (json_int_t)f->fid, "kind", f->kind == FWD_CLAIM ? "claim" : "command",
                          "game", f->game, "seat", f->seat_name, "id", f->jid);
    if (f->kind == FWD_COMMAND) {
        json_object_set_new(j, "seq", json_integer(f->seq));
        json_object_set(j, "cmd", f->cmd);
    } else {
        json_object_set_new(j, "token_hash", json_string(f->token_hash));
        json_object_set_new(j, "addr", json_string(f->conn->addr));
        if (f->invite_hash[0])
            json_object_set_new(j, "invite_hash", json_string(f->invite_hash));
        json_t *x;
        if ((x = json_object_get(f->msg, "webhook")) != NULL)
            json_object_set(j, "webhook", x);
        if ((x = json_object_get(f->msg, "mail")) != NULL)
            json_object_set(j, "mail", x);
    }
    /* to the game's owner, or, for a claim by an invite (its game not
     * known here), to whoever holds the invite's game */
    char *t = note_text(f->game[0] ? f->game : f->invite_hash, j);
    int rc = t ? srv->store->cluster->put_note(srv->store, WRD_NOTE_FORWARD, t) : -1;
    free(t);
    if (rc == 0) {
        f->sent_ms = wrd_now_ms();
        cl->forwarded++;
        wrd_debug("forwarded", "game=%s fid=%llu kind=%s", f->game, (unsigned long long)f->fid,
                  f->kind == FWD_CLAIM ? "claim" : "command");
    }
    return rc;
}

/* A forward of c's for g (NULL: a claim by an invite not known here), in
 * the list; NULL when out of memory (c has had the error). */
static struct forward *new_forward(struct wrd_server *srv, struct wrd_conn *c,
                                   struct wrd_game *g, int kind, int seat,
                                   const json_t *jid)
{
    struct cluster *cl = srv->games->cluster;
    struct forward *f = fid_room(cl) == 0 ? calloc(1, sizeof *f) : NULL;
    if (f == NULL) {
        wrd_conn_error(c, WRD_E_INTERNAL, "out of memory", g ? g->id : NULL, NULL, jid);
        return NULL;
    }
    f->kind = kind;
    f->fid = ++cl->next_fid;
    f->conn = c;
    wrd_conn_ref(c);
    snprintf(f->game, sizeof f->game, "%s", g ? g->id : "");
    f->seat = seat;
    snprintf(f->seat_name, sizeof f->seat_name, "%s", g ? g->seats[seat].name : "");
    f->jid = json_incref((json_t *)jid);
    forward_link(cl, f, g);
    return f;
}

/* Send f to g's owner; a game its owner let go is taken at once rather
 * than after a wait (f then runs here once g is read). 1 placed, or 0: it
 * could not be sent (f freed, its client told). */
static int place(struct wrd_server *srv, struct forward *f, struct wrd_game *g)
{
    if (g && (g->taking || (g->follower && g->released && cluster_take(srv, g) == 0)))
        return 1;               /* runs here or is sent once the take is settled */
    if (g && !g->follower)
        return 1;               /* owned, being read: runs once read */
    if (send_forward(srv, f) == 0)
        return 1;
    forward_unlink(srv->games->cluster, f);
    json_t *jseq = f->kind == FWD_COMMAND ? json_integer(f->seq) : NULL;
    wrd_conn_error(f->conn, WRD_E_INTERNAL, "the request could not be passed to the server "
                   "process that holds its game", g ? g->id : NULL, jseq, f->jid);
    json_decref(jseq);
    forward_free(f);
    return 0;
}

/* A command for g from c's seat, new seq: 1 taken here (forwarded to the
 * owner, or waiting for g's read), 0 this process owns g and may run it. */
int cluster_forward(struct wrd_server *srv, struct wrd_conn *c, struct wrd_game *g,
                    int seat, int64_t seq, const json_t *cmd, const json_t *jid)
{
    if (!g->follower && !g->catching)
        return 0;
    struct forward *f = new_forward(srv, c, g, FWD_COMMAND, seat, jid);
    if (f) {
        f->seq = seq;
        f->cmd = json_incref((json_t *)cmd);
        place(srv, f, g);
    }
    return 1;
}

/* A claim (msg, checked) of seat of g, or of the invite whose hash is
 * invite_hash when g is NULL (no game here has it): 1 taken here (sent to
 * the owner, to every process for an unknown invite, or waiting for g's
 * read), 0 this process owns g and may run it. */
int cluster_claim(struct wrd_server *srv, struct wrd_conn *c, struct wrd_game *g, int seat,
                  const char *invite_hash, const json_t *msg)
{
    if (g && !g->follower && !g->catching)
        return 0;
    struct forward *f = new_forward(srv, c, g, FWD_CLAIM, seat, json_object_get(msg, "id"));
    if (f == NULL)
        return 1;
    f->msg = json_incref((json_t *)msg);
    snprintf(f->invite_hash, sizeof f->invite_hash, "%s", invite_hash ? invite_hash : "");
    games_random_hex(32, f->token);
    games_sha256_hex(f->token, f->token_hash);
    place(srv, f, g);
    return 1;
}

/* A claim done (by the owner, or here): its answer, and its client joined
 * to the game (a copy here, or read from the store). */
static void claim_answered(struct wrd_server *srv, struct forward *f, const char *game,
                           const char *seat)
{
    games_defer_direct(srv->games, f->conn, games_claimed_msg(game, seat, f->token, f->jid));
    struct wrd_game *g = games_find(srv->games, game);
    int i = g ? games_seat_index(g, seat) : -1;
    if (i >= 0) {
        if (games_attach(srv, f->conn, g, i, NULL, STATE_AFTER) != 0)
            wrd_conn_error(f->conn, WRD_E_INTERNAL, "out of memory", game, NULL, f->jid);
        return;
    }
    json_t *j = json_pack("{s:s, s:s, s:s}", "type", "join", "game", game, "token", f->token);
    if (j)
        games_join_run(srv, f->conn, j, 0);
    json_decref(j);
}

/* The owner's answer to f has come: give it to f's client once g (the
 * copy here) has reached its version. 1 given (f freed), 0 not yet. */
static int deliver(struct wrd_server *srv, struct forward *f)
{
    struct wrd_games *gs = srv->games;
    struct wrd_game *g = games_find(gs, f->game);
    if (g && g->version < f->version) {
        catch_up(srv, g);
        return 0;
    }
    struct wrd_msg *a = NULL;
    forward_unlink(gs->cluster, f);
    if (f->answer)
        a = wrd_msg_new(f->answer, strlen(f->answer));
    else if (f->kind == FWD_CLAIM)
        claim_answered(srv, f, f->game, f->seat_name);
    else if (g)
        a = games_answered_before(g, f->seat, f->seq, f->jid);
    if (a)
        games_defer_direct(gs, f->conn, a);
    forward_free(f);
    return 1;
}

/*
 * A claim of another process's client (or of this one's, waiting for g's
 * read) on the owner: of seat (or of the invite whose hash is invite_hash)
 * by the token whose hash is token_hash. NULL when the seat is the
 * claimer's now (claimed now, or before by the same forward), else the
 * error (new reference).
 */
static struct wrd_msg *claim_here(struct wrd_server *srv, struct wrd_game *g, int seat,
                                  const char *invite_hash, const char *token_hash,
                                  const json_t *webhook, const char *addr, const json_t *mail,
                                  const json_t *jid)
{
    if (seat >= 0 && games_same_hash(g->seats[seat].token_hash, token_hash))
        return NULL;            /* done already (a forward sent again) */
    struct wrd_game *t;
    int ts;
    const char *why;
    int code = games_claim_target(srv->games, invite_hash, g->id, seat >= 0 ? g->seats[seat].name : "",
                            &t, &ts, &why);
    if (code == 0 && t != g)
        code = WRD_E_BAD_INVITE, why = "unknown or already used invite";
    if (code != 0)
        return wrd_error_msg(code, why, g->id, NULL, jid);
    games_claim_seat(srv, g, ts, token_hash, webhook, addr, mail);
    return NULL;
}

/* g is read and owned here: the commands waiting for it run now, in the
 * order they came (those that come meanwhile wait for the next time). */
static void run_waiting(struct wrd_server *srv, struct wrd_game *g)
{
    struct cluster *cl = srv->games->cluster;
    struct forward *last = g->fwd_tail;
    for (struct forward *f = g->fwd_head, *next; f; f = next) {
        next = f->next;
        int at_last = f == last;
        if (!f->replied) {
            wrd_debug("forward run here", "game=%s fid=%llu version=%lld", g->id,
                      (unsigned long long)f->fid, (long long)g->version);
            forward_unlink(cl, f);
            struct wrd_msg *a = NULL;
            json_t *events = NULL;
            if (f->kind == FWD_CLAIM)
                a = claim_here(srv, g, f->seat, f->invite_hash[0] ? f->invite_hash : NULL,
                               f->token_hash, json_object_get(f->msg, "webhook"),
                               f->conn->addr, json_object_get(f->msg, "mail"), f->jid);
            else if ((a = games_answered_before(g, f->seat, f->seq, f->jid)) == NULL)
                a = games_command_core(srv, g, f->seat, f->seq, f->cmd, f->jid, &events);
            if (a)
                games_defer_direct(srv->games, f->conn, a);
            else
                claim_answered(srv, f, g->id, f->seat_name);
            if (events)
                games_to_parent(srv, g, events, 0);
            json_decref(events);
            forward_free(f);
        }
        if (at_last)
            break;
    }
}

/* --- a follower kept in step: the rows after its version ---------------------------- */

struct tail_seat {
    char name[24];
    char token_hash[65];
    char invite_hash[65];
};

struct tail_command {
    char seat[24];
    int64_t version, client_seq, at_ms;
    char *cmd;
};

struct tail_job {
    uv_work_t work;
    struct wrd_server *srv;
    char id[24];
    int64_t after;
    int own;                    /* 0, or OWN_*: own() first, on the worker */
    int owned;                  /* ...its answer (0 when it did not run) */
    int rc;
    char err[200];
    char status[16];
    char result[160];
    int64_t deadline_ms;
    struct tail_seat *seats;
    int nseats, capseats;
    struct tail_command *cmds;
    int ncmds, capcmds;
};

/* arr, holding n of *cap elements of elem bytes, with room for one more:
 * arr itself, or its copy grown (from 8, doubling; *cap updated); NULL when
 * out of memory (arr unchanged, still the caller's). */
static void *grow_room(void *arr, int *cap, int n, size_t elem)
{
    if (n < *cap)
        return arr;
    int c = *cap ? 2 * *cap : 8;
    void *p = realloc(arr, elem * (size_t)c);
    if (p != NULL)
        *cap = c;
    return p;
}

static int tail_game(void *ctx, const struct wrd_game_row *g, const char *status,
                     const char *result, int64_t deadline_ms)
{
    struct tail_job *job = ctx;
    (void)g;
    snprintf(job->status, sizeof job->status, "%s", status);
    snprintf(job->result, sizeof job->result, "%s", result ? result : "");
    job->deadline_ms = deadline_ms;
    return 0;
}

static int tail_seat(void *ctx, const struct wrd_seat_row *r)
{
    struct tail_job *job = ctx;
    void *more = grow_room(job->seats, &job->capseats, job->nseats, sizeof *job->seats);
    if (more == NULL)
        return -1;
    job->seats = more;
    struct tail_seat *s = &job->seats[job->nseats++];
    snprintf(s->name, sizeof s->name, "%s", r->seat);
    snprintf(s->token_hash, sizeof s->token_hash, "%s", r->token_hash ? r->token_hash : "");
    snprintf(s->invite_hash, sizeof s->invite_hash, "%s", r->invite_hash ? r->invite_hash : "");
    return 0;
}

static int tail_command(void *ctx, const struct wrd_command_row *r)
{
    struct tail_job *job = ctx;
    void *more = grow_room(job->cmds, &job->capcmds, job->ncmds, sizeof *job->cmds);
    if (more == NULL)
        return -1;
    job->cmds = more;
    struct tail_command *c = &job->cmds[job->ncmds];
    snprintf(c->seat, sizeof c->seat, "%s", r->seat);
    c->version = r->version;
    c->client_seq = r->client_seq;
    c->at_ms = r->at_ms;
    if ((c->cmd = strdup(r->cmd_json)) == NULL)
        return -1;
    job->ncmds++;
    return 0;
}

static void tail_work(uv_work_t *w)
{
    struct tail_job *job = w->data;
    struct wrd_store *st = job->srv->store;
    struct wrd_store_loader l = { .ctx = job, .game = tail_game, .seat = tail_seat,
                                  .command = tail_command };
    /* the lock first, so the rows read are as of a time it was held */
    if (job->own)
        job->owned = st->cluster->own(st, job->id);
    job->rc = st->cluster->read_tail(st, job->id, job->after, &l, job->err, sizeof job->err);
}

static void tail_free(struct tail_job *job)
{
    for (int i = 0; i < job->ncmds; i++)
        free(job->cmds[i].cmd);
    free(job->cmds);
    free(job->seats);
    free(job);
}

/* One command of the store's, applied to the copy as its owner did. */
static int follow_command(struct wrd_server *srv, struct wrd_game *g, const struct tail_command *r)
{
    int seat = games_seat_index(g, r->seat);
    json_t *cmd = json_loads(r->cmd, 0, NULL);
    json_t *events = NULL;
    struct wr_refusal why = { WR_R_BAD_COMMAND, "bad_command",
                              "unknown seat or unreadable command" };
    int rc = seat >= 0 && cmd && r->version == g->version + 1
                 ? games_apply(g, seat, cmd, &events, &why) : -1;
    json_decref(cmd);
    if (rc != 0) {
        wrd_error("a stored command does not apply to the copy of its game", "game=%s "
                  "version=%lld copy=%lld error=\"%s\"", g->id, (long long)r->version,
                  (long long)g->version, why.message);
        return -1;
    }
    g->moved_ms = r->at_ms;
    games_publish(srv, g, seat, events);
    if (r->client_seq > 0)
        games_remember_stored(g, seat, r->client_seq, events);
    json_decref(events);
    return 0;
}

/* The rows read, applied to g: its seats, its commands, its end. */
static void follow(struct wrd_server *srv, struct wrd_game *g, const struct tail_job *job)
{
    struct wrd_games *gs = srv->games;
    int was_follower = g->follower;
    g->follower = 1;            /* what it applies, its owner has notified and stored */
    int old = g->status;
    for (int k = 0; k < job->nseats; k++) {
        int i = games_seat_index(g, job->seats[k].name);
        if (i < 0)
            continue;
        struct seat *s = &g->seats[i];
        snprintf(s->token_hash, sizeof s->token_hash, "%s", job->seats[k].token_hash);
        if (s->invite_hash[0] && job->seats[k].invite_hash[0] == '\0') {
            games_invite_unindex(gs, g, i);
            s->invite_hash[0] = '\0';
        }
    }
    games_set_status(gs, g, games_compute_status(g));
    if (old == ST_OPEN && g->status == ST_RUNNING) {
        games_refresh_awaiting(srv, g, -1, 0);
        games_refresh_sections(g);
        g->quiet_at = g->version;
        games_broadcast_state(gs, g);
    }
    for (int k = 0; k < job->ncmds; k++)
        if (job->cmds[k].version > g->version && follow_command(srv, g, &job->cmds[k]) != 0)
            break;
    if (g->status != ST_FINISHED && strcmp(job->status, "finished") == 0 &&
        strncmp(job->result, "forfeit:", 8) == 0) {
        /* a forfeit on time: no command, the row says it */
        snprintf(g->forfeit, sizeof g->forfeit, "%s", job->result + 8);
        g->forfeit_deadline = job->deadline_ms;
        games_set_status(gs, g, games_compute_status(g));
        games_refresh_awaiting(srv, g, -1, 0);
        games_refresh_sections(g);
        g->quiet_at = g->version;
        games_broadcast_state(gs, g);
    }
    g->follower = was_follower;
    g->touched_ms = wrd_now_ms();
}

static void tail_done(uv_work_t *w, int status)
{
    struct tail_job *job = w->data;
    struct wrd_server *srv = job->srv;
    struct wrd_games *gs = srv->games;
    struct wrd_game *g = games_find(gs, job->id);
    int owned = status == 0 ? job->owned : 0;
    gs->tails--;
    if (g == NULL) {
        /* not possible while it reads (cluster_busy keeps it); a lock
         * taken for a game gone all the same goes again */
        if (owned == 1 && srv->store->cluster->disown(srv->store, job->id) != 0)
            wrd_error("the store could not let a game go", "game=%s", job->id);
        tail_free(job);
        return;
    }
    g->catching = 0;
    if (job->own)
        took(srv, g, job->own, owned);
    if (status == 0 && job->rc == 0)
        follow(srv, g, job);
    else if (status == 0)
        wrd_error("the store's later rows of a game could not be read", "game=%s error=\"%s\"",
                  g->id, job->rc == 1 ? "no such game" : job->err);
    tail_free(job);
    if ((g->catch_again || (g->take_again && g->follower)) && !srv->stopping) {
        int own = g->take_again && g->follower ? OWN_TAKE : 0;
        g->catch_again = g->take_again = 0;
        if (read_rows(srv, g, own) == 0)
            return;
    }
    g->take_again = 0;
    run_waiters(srv, g);
    if (!g->follower) {
        games_arm_timer(g);           /* taken over: its deadlines are this process's now */
        run_waiting(srv, g);
    } else {
        send_waiting(srv, g);   /* a take refused: its owner runs them */
    }
    after_follow(srv, g);
}

/* The copy g has moved on: the answers that waited for its version go,
 * in the order their forwards were sent. */
static void after_follow(struct wrd_server *srv, struct wrd_game *g)
{
    struct forward *last = g->fwd_tail;
    for (struct forward *f = g->fwd_head, *next; f; f = next) {
        next = f->next;
        int at_last = f == last;
        if (f->replied && f->version <= g->version)
            deliver(srv, f);
        if (at_last)
            break;
    }
    games_maybe_evict(srv->games, g);
}

/* A request that waits for a copy's read of the store (cluster_recheck). */
struct catch_waiter {
    struct catch_waiter *next;
    struct pending_req *req;
};

/* A request a copy cannot answer from what it knows (a token of a seat
 * claimed just now, a version a client saw on another process): 1 when it
 * waits for a read of g's rows and will run again (run(srv, c, msg, 2));
 * 0 answer now (g is owned here and not being read, or out of memory). */
int cluster_recheck(struct wrd_server *srv, struct wrd_conn *c, struct wrd_game *g,
                    const json_t *msg, rerun_fn run)
{
    if (srv->games->cluster == NULL || (!g->follower && !g->catching))
        return 0;
    struct pending_req *req = calloc(1, sizeof *req);
    struct catch_waiter *w = malloc(sizeof *w);
    if (req == NULL || w == NULL) {
        free(req);
        free(w);
        return 0;
    }
    *req = (struct pending_req){ run, c, json_incref((json_t *)msg), 1, NULL, 2 };
    wrd_conn_ref(c);
    wrd_conn_wait_begin(c);     /* its next messages wait for this one */
    *w = (struct catch_waiter){ g->waiters, req };
    g->waiters = w;
    catch_up(srv, g);
    if (!g->catching)
        run_waiters(srv, g);    /* no read could start: answered from what it knows */
    return 1;
}

/* g's read is done (or g leaves): the requests waiting for it run again. */
static void run_waiters(struct wrd_server *srv, struct wrd_game *g)
{
    while (g->waiters) {
        struct catch_waiter *w = g->waiters;
        g->waiters = w->next;
        games_finish_request(srv, w->req);
        free(w);
    }
}

/* Read g's rows after its version on a worker thread, trying its lock
 * there first when own is OWN_* (g is then `taking`). A read under way: read
 * again after it (take_again for a take; nothing more for a take under
 * way). 0, or -1 when no read could start (nothing changes). */
static int read_rows(struct wrd_server *srv, struct wrd_game *g, int own)
{
    if (g->catching) {
        if (!own)
            g->catch_again = 1;
        else if (!g->taking)
            g->take_again = 1;
        return 0;
    }
    struct tail_job *job = calloc(1, sizeof *job);
    if (job == NULL)
        return -1;
    job->srv = srv;
    job->work.data = job;
    snprintf(job->id, sizeof job->id, "%s", g->id);
    job->after = g->version;
    job->own = own;
    if (uv_queue_work(&srv->loop, &job->work, tail_work, tail_done) != 0) {
        free(job);
        return -1;
    }
    srv->games->tails++;
    g->catching = 1;
    g->taking = own != 0;
    return 0;
}

/* Read g's rows after its version (again, when a read is under way). */
static void catch_up(struct wrd_server *srv, struct wrd_game *g)
{
    (void)read_rows(srv, g, 0);
}

/* g stays a follower after a take: the forwards that waited for its
 * outcome (sent_ms 0) go to its owner (place: g is neither taking nor
 * released now, so none starts a take again). */
static void send_waiting(struct wrd_server *srv, struct wrd_game *g)
{
    struct forward *last = g->fwd_tail;
    for (struct forward *f = g->fwd_head, *next; f; f = next) {
        next = f->next;
        int at_last = f == last;
        if (f->sent_ms == 0 && !f->replied)
            (void)place(srv, f, g);
        if (at_last)
            break;
    }
}

/* --- owning ----------------------------------------------------------------------------- */

/* A game read from the store (or restored at the start): owned when no
 * other process holds it, else followed; either way its rows after the
 * read are read too (another process may have written it meanwhile). Its
 * lock is tried on a worker thread with that read (read_rows): until then
 * it is a follower, taking (no deadline runs, its requests wait). */
void cluster_adopt(struct wrd_server *srv, struct wrd_game *g)
{
    if (srv->games->cluster == NULL)
        return;
    g->follower = 1;
    games_arm_timer(g);               /* stops it */
    if (read_rows(srv, g, OWN_ADOPT) != 0)
        wrd_error("a game read could not try its lock: followed", "game=%s", g->id);
}

/* g leaves memory: an owned game is let go, and the others hear of it.
 * Both go into the open batch (no round trip): its commit lets the lock go
 * before it sends the note "ID VERSION -". g's last change is sealed or
 * committed by now (evict_queued runs after a commit). */
void cluster_let_go(struct wrd_server *srv, struct wrd_game *g)
{
    struct cluster *cl = srv->games->cluster;
    if (cl == NULL || g->follower)
        return;
    put_game_note(srv, g, 1);
    if (srv->store->cluster->disown(srv->store, g->id) != 0)
        wrd_error("the store could not let a game go", "game=%s", g->id);
    cl->owned--;
}

/* May this process write g for a client's request (a claim, a webhook,
 * mail)? 1 yes; 0 no: c has had the error. A game nobody owns is taken. */
int cluster_may_write(struct wrd_server *srv, struct wrd_conn *c, struct wrd_game *g,
                      const json_t *jid)
{
    if (srv->games->cluster == NULL || (!g->follower && !g->catching))
        return 1;
    if (g->follower && g->released)
        (void)cluster_take(srv, g);     /* off the loop: the client asks again */
    wrd_conn_error(c, WRD_E_OWNED_ELSEWHERE, NULL, g->id, NULL, jid);
    return 0;
}

/* --- notes ------------------------------------------------------------------------------- */

/* The commands a note carries ([{v, s, q, c, t}]), applied to the copy g
 * when they follow on from its version: 0 applied (g at their last), -1
 * not (g must read the store). */
static int follow_note(struct wrd_server *srv, struct wrd_game *g, const char *text,
                       long long version)
{
    json_t *cmds = json_loads(text, 0, NULL);
    size_t n = json_array_size(cmds);
    json_t *last = json_array_get(cmds, n ? n - 1 : 0);
    if (n == 0 || json_integer_value(json_object_get(json_array_get(cmds, 0), "v")) !=
                      g->version + 1 ||
        json_integer_value(json_object_get(last, "v")) != version) {
        json_decref(cmds);
        return -1;
    }
    int rc = 0;
    size_t i;
    json_t *x;
    json_array_foreach(cmds, i, x) {
        const char *seat = json_string_value(json_object_get(x, "s"));
        char *cmd = json_dumps(json_object_get(x, "c"), JSON_COMPACT);
        struct tail_command tc = { .version = json_integer_value(json_object_get(x, "v")),
                                   .client_seq = json_integer_value(json_object_get(x, "q")),
                                   .at_ms = json_integer_value(json_object_get(x, "t")),
                                   .cmd = cmd };
        snprintf(tc.seat, sizeof tc.seat, "%s", seat ? seat : "");
        rc = cmd && json_is_object(json_object_get(x, "c")) ? follow_command(srv, g, &tc) : -1;
        free(cmd);
        if (rc != 0)
            break;
    }
    json_decref(cmds);
    g->touched_ms = wrd_now_ms();
    after_follow(srv, g);
    return rc;
}

static void note_game(struct wrd_server *srv, const char *payload)
{
    char id[24];
    long long version;
    int at = 0;
    if (sscanf(payload, "%23s %lld%n", id, &version, &at) < 2) {
        wrd_warn("a malformed note", "channel=game");
        return;
    }
    const char *rest = payload + at;
    while (*rest == ' ')
        rest++;
    struct wrd_game *g = games_find(srv->games, id);
    if (g == NULL || !g->follower)
        return;                 /* not held, or its own note */
    if (rest[0] == '-')
        g->released = 1;
    else if (rest[0] == '[' && !g->catching && follow_note(srv, g, rest, version) == 0)
        return;                 /* its commands, applied as the owner did */
    else if (version >= g->version)
        catch_up(srv, g);       /* >=: a claim changes a game's seats, not its version */
}

/* The answer to a forward: a note in the batch of what it answers, so it
 * exists once that is durable; a (may be NULL) its message, left out when
 * too long for a note (the sender answers from its copy, the seat's
 * remembered answers); ok: a claim done. */
static void reply(struct wrd_server *srv, struct wrd_game *g, const char *node, json_t *jfid,
                  struct wrd_msg *a, const char *claimed_seat)
{
    json_t *r = json_pack("{s:s, s:O, s:I}", "node", node, "fid", jfid, "version",
                          (json_int_t)g->version);
    if (a && a->len < WRD_NOTE_MAX / 2)
        json_object_set_new(r, "msg", json_stringn((const char *)a->payload, a->len));
    if (claimed_seat) {
        json_object_set_new(r, "game", json_string(g->id));
        json_object_set_new(r, "seat", json_string(claimed_seat));
    }
    char *t = note_text(node, r);
    if (t == NULL || srv->store->cluster->put_note(srv->store, WRD_NOTE_REPLY, t) != 0)
        wrd_error("store write failed", "game=%s note=reply", g->id);
    free(t);
}

/* A forward: run here when this process owns its game (and has read it);
 * else not ours (yet): its sender asks again. */
static void note_forward(struct wrd_server *srv, const char *payload)
{
    char to[65];
    const char *body = note_to(payload, to, sizeof to);
    int by_invite = body && games_is_hex(to, 64);
    struct wrd_game *g = NULL;
    if (by_invite) {
        int ts;
        const char *why;
        games_claim_target(srv->games, to, NULL, NULL, &g, &ts, &why);
    } else if (body) {
        g = games_find(srv->games, to);
    }
    if (g == NULL || g->follower || g->catching)
        return;                 /* not ours: left unparsed */
    srv->games->cluster->notes_parsed++;
    json_t *j = json_loads(body, 0, NULL);
    const char *node = json_string_value(json_object_get(j, "node"));
    const char *kind = json_string_value(json_object_get(j, "kind"));
    const char *id = json_string_value(json_object_get(j, "game"));
    const char *seatname = json_string_value(json_object_get(j, "seat"));
    const char *ih = json_string_value(json_object_get(j, "invite_hash"));
    json_t *jfid = json_object_get(j, "fid");
    json_t *jid = json_object_get(j, "id");
    int claim = kind && strcmp(kind, "claim") == 0;
    if (id == NULL || strcmp(id, by_invite ? "" : to) != 0 ||
        (by_invite && (!claim || ih == NULL || strcmp(ih, to) != 0)))
        g = NULL;               /* the text does not say what its address does */
    if (g == NULL || g->follower || g->catching || node == NULL || !json_is_integer(jfid) ||
        seatname == NULL) {
        json_decref(j);
        return;
    }
    int seat = games_seat_index(g, seatname);
    json_t *events = NULL;
    struct wrd_msg *a = NULL;
    if (claim) {
        const char *th = json_string_value(json_object_get(j, "token_hash"));
        const char *addr = json_string_value(json_object_get(j, "addr"));
        if (th == NULL || !games_is_hex(th, 64) || (ih && !games_is_hex(ih, 64)))
            a = wrd_error_msg(WRD_E_BAD_MESSAGE, "a forwarded claim without a token", g->id, NULL,
                              jid);
        else
            a = claim_here(srv, g, seat, ih, th, json_object_get(j, "webhook"),
                           addr ? addr : "", json_object_get(j, "mail"), jid);
        if (a == NULL) {
            /* the seat: the one named, or the invite's */
            for (int i = 0; i < g->nseats; i++)
                if (games_same_hash(g->seats[i].token_hash, th))
                    seat = i;
        }
        reply(srv, g, node, jfid, a, a == NULL && seat >= 0 ? g->seats[seat].name : NULL);
        wrd_msg_unref(a);
        json_decref(j);
        return;
    }
    json_int_t seq = json_integer_value(json_object_get(j, "seq"));
    json_t *cmd = json_object_get(j, "cmd");
    if (seat < 0 || seq <= 0 || seq > WRD_MAX_SEQ || !json_is_object(cmd))
        a = wrd_error_msg(WRD_E_BAD_MESSAGE, "a forwarded command without a seat, seq or "
                          "command", g->id, NULL, jid);
    else if ((a = games_answered_before(g, seat, seq, jid)) == NULL)
        a = games_command_core(srv, g, seat, seq, cmd, jid, &events);
    if (events)
        games_to_parent(srv, g, events, 0);
    json_decref(events);
    reply(srv, g, node, jfid, a, NULL);
    wrd_msg_unref(a);
    json_decref(j);
}

static void note_reply(struct wrd_server *srv, const char *payload)
{
    struct cluster *cl = srv->games->cluster;
    char to[24];
    const char *body = note_to(payload, to, sizeof to);
    if (body == NULL || strcmp(to, cl->node) != 0)
        return;                 /* another's: left unparsed */
    cl->notes_parsed++;
    json_t *j = json_loads(body, 0, NULL);
    const char *node = json_string_value(json_object_get(j, "node"));
    json_int_t fid = json_integer_value(json_object_get(j, "fid"));
    json_t *version = json_object_get(j, "version");
    const char *msg = json_string_value(json_object_get(j, "msg"));
    struct forward *f = NULL;
    if (node && strcmp(node, cl->node) == 0 && json_is_integer(version))
        f = forward_by_fid(cl, (uint64_t)fid);
    if (f && !f->replied && f->sent_ms != 0) {
        f->replied = 1;
        f->version = json_integer_value(version);
        f->answer = msg ? strdup(msg) : NULL;
        const char *game = json_string_value(json_object_get(j, "game"));
        const char *seat = json_string_value(json_object_get(j, "seat"));
        if (f->kind == FWD_CLAIM && msg == NULL && game && seat) {
            /* a claim by an invite: the owner named its game and seat */
            forward_rename(srv, f, game);
            snprintf(f->seat_name, sizeof f->seat_name, "%s", seat);
            f->version = 0;     /* answered now: the copy, if any, follows */
        }
        deliver(srv, f);
    }
    json_decref(j);
}

void wrd_games_note(struct wrd_server *srv, int channel, const char *payload)
{
    if (srv->games->cluster == NULL)
        return;
    switch (channel) {
    case WRD_NOTE_GAME:
        note_game(srv, payload);
        break;
    case WRD_NOTE_FORWARD:
        srv->games->cluster->notes++;
        note_forward(srv, payload);
        break;
    case WRD_NOTE_REPLY:
        srv->games->cluster->notes++;
        note_reply(srv, payload);
        break;
    }
}

static void on_note(void *ctx, int channel, const char *payload)
{
    wrd_games_note(ctx, channel, payload);
}

static void on_note_fd(uv_poll_t *p, int status, int events);

/* WARROOM_TEST_NOTE_DELAY_MS: the notes that came are read now. */
static void on_late_notes(uv_timer_t *t)
{
    struct wrd_server *srv = t->data;
    struct cluster *cl = srv->games->cluster;
    uv_poll_start(&cl->poll, UV_READABLE, on_note_fd);
    on_note_fd(&cl->poll, 0, 0);
}

/* The store's note descriptor is readable (events), or late notes are
 * read (no events). */
static void on_note_fd(uv_poll_t *p, int status, int events)
{
    struct wrd_server *srv = p->data;
    struct cluster *cl = srv->games->cluster;
    if (status >= 0 && events && cl->note_delay_ms > 0) {
        uv_poll_stop(p);
        uv_timer_start(&cl->late, on_late_notes, (uint64_t)cl->note_delay_ms, 0);
        return;
    }
    if (status < 0 || srv->store->cluster->drain_notes(srv->store, on_note, srv) < 0) {
        /* Notes may have been missed: copies would go stale unseen. */
        wrd_error("the store's notes are lost: stopping", "status=%d", status);
        fflush(stderr);
        _exit(3);
    }
}

/* Forwards without an answer: their owner is taken over when it can be,
 * else they are sent again (answered again if applied already). */
static void on_tick(uv_timer_t *t)
{
    struct wrd_server *srv = t->data;
    struct cluster *cl = srv->games->cluster;
    int64_t now = wrd_now_ms();
    struct forward *last = cl->all_tail;
    for (struct forward *f = cl->all_head, *next; f; f = next) {
        next = f->all_next;
        if (f == last)
            next = NULL;        /* those sent meanwhile wait for the next tick */
        struct wrd_game *g = f->g;
        if (g == NULL && f->game[0] && (g = games_find(srv->games, f->game)) != NULL) {
            forward_list_remove(cl, f);         /* its game is held here now */
            forward_list_add(cl, f, g);
        }
        int late = !f->replied && f->sent_ms != 0 && now - f->sent_ms >= FORWARD_WAIT_MS;
        if (f->conn->wsi == NULL || (g == NULL && (f->game[0] || late))) {
            /* its client left; or an invite no process answered for (its
             * game's owner died: it is claimable once a process reads the
             * game again, as any restart does) */
            forward_unlink(cl, f);
            if (f->conn->wsi && f->game[0] == '\0')
                wrd_conn_error(f->conn, WRD_E_BAD_INVITE, "unknown or already used invite", NULL,
                               NULL, f->jid);
            forward_free(f);
            continue;
        }
        if (!late || g == NULL || !g->follower)
            continue;
        if (g->taking || cluster_take(srv, g) == 0) {
            f->sent_ms = 0;             /* runs here, or is sent again, once the take
                                           is settled (tail_done) */
            continue;
        }
        send_forward(srv, f);
    }
}

const char *wrd_games_node(struct wrd_server *srv)
{
    return srv->games->cluster ? srv->games->cluster->node : "";
}

int wrd_games_start_cluster(struct wrd_server *srv, char *err, size_t errlen)
{
    struct wrd_games *gs = srv->games;
    struct wrd_store *st = srv->store;
    struct cluster *cl = calloc(1, sizeof *cl);
    int fd = st->cluster ? st->cluster->note_fd(st) : -1;
    if (cl == NULL || fd < 0 || games_random_hex(8, cl->node) != 0) {
        free(cl);
        snprintf(err, errlen, fd < 0 ? "the store has no notes" : "out of memory");
        return -1;
    }
    gs->cluster = cl;
    uv_poll_init(&srv->loop, &cl->poll, fd);
    cl->poll.data = srv;
    uv_poll_start(&cl->poll, UV_READABLE, on_note_fd);
    uv_timer_init(&srv->loop, &cl->tick);
    cl->tick.data = srv;
    uv_timer_start(&cl->tick, on_tick, FORWARD_TICK_MS, FORWARD_TICK_MS);
    uv_timer_init(&srv->loop, &cl->late);
    cl->late.data = srv;
    cl->note_delay_ms = srv->cfg.test_note_delay_ms;
    if (cl->note_delay_ms)
        wrd_warn("notes are read late (WARROOM_TEST_NOTE_DELAY_MS: for tests only)", "ms=%d",
                 cl->note_delay_ms);
    cl->handles = 1;
    /* the games the start loaded: some may be another process's */
    for (struct wrd_game *g = gs->all_head; g; g = g->all_next)
        cluster_adopt(srv, g);
    wrd_info("cluster joined", "node=%s games=%d", cl->node, gs->count);
    return 0;
}

/* A game just created here: its own, 0; -1 when the store failed. No
 * round trip: its lock is taken by the commit of the batch that stores it
 * (store.h, own_new), and nobody else can know the game before that. */
int cluster_own_new(struct wrd_server *srv, struct wrd_game *g)
{
    if (srv->store->cluster->own_new(srv->store, g->id) != 0)
        return -1;
    srv->games->cluster->owned++;
    return 0;
}

void cluster_close(struct wrd_games *gs)
{
    struct cluster *cl = gs->cluster;
    if (cl && cl->handles) {
        uv_close((uv_handle_t *)&cl->poll, NULL);
        uv_close((uv_handle_t *)&cl->tick, NULL);
        uv_close((uv_handle_t *)&cl->late, NULL);
        cl->handles = 0;
    }
}

void cluster_free(struct wrd_games *gs)
{
    struct cluster *cl = gs->cluster;
    if (cl == NULL)
        return;
    while (cl->all_head) {
        struct forward *f = cl->all_head;
        forward_unlink(cl, f);
        forward_free(f);
    }
    free(cl->by_fid);
    free(cl->noted);
    free(cl);
    gs->cluster = NULL;
}

void cluster_stats(const struct wrd_games *gs, struct wrd_games_stats *out)
{
    const struct cluster *cl = gs->cluster;
    if (cl == NULL)
        return;
    out->cluster = 1;
    out->owned = cl->owned;
    out->forwarded = cl->forwarded;
    out->takeovers = cl->takeovers;
    out->notes = cl->notes;
    out->notes_parsed = cl->notes_parsed;
}
