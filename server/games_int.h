/*
 * games_int.h - what games.c and cluster.c share: internal to those two
 * files, not for any other module (they use games.h).
 *
 * games.c holds the games: their structs, seats, views and patches, the
 * command path, create, claim and join, the flush and its deliveries, the
 * registry, restore, and games leaving memory and read back. cluster.c
 * holds --cluster (several servers on one store): which process owns a
 * game, the copies the others keep in step from the store's rows and
 * notes, the commands and claims forwarded to a game's owner, and a game
 * taken over. Each file calls the other only through the functions
 * declared here, named with the prefix of the file that defines them
 * (games_, cluster_); everything else stays static in its file.
 */
#ifndef WRD_GAMES_INT_H
#define WRD_GAMES_INT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "games.h"
#include "pbem.h"

struct forward;
struct wr_game;
struct wr_refusal;
struct wr_ruleset;
struct wrd_addr;
struct wrd_command_row;
struct wrd_games_stats;

#define RESULTS 32              /* answers kept per seat for re-sent seqs */
#define HASH_BUCKETS 4096
#define WRD_MAX_SEQ ((json_int_t)9007199254740991)     /* 2^53 - 1 */

enum status { ST_OPEN, ST_RUNNING, ST_FINISHED };

struct result {
    int64_t seq;
    struct wrd_msg *answer;     /* the ack or error sent for it */
};

struct seat {
    char name[24];
    char token_hash[65];        /* "" while unclaimed */
    char invite_hash[65];       /* "" when there is no open invite */
    char *webhook;
    char webhook_owner[64];     /* address of the client that set webhook; "" unknown
                                   (restored): the notifier uses the URL's host */
    int connected;              /* connections joined as this seat */
    int64_t last_seq;
    struct result results[RESULTS];
    int was_awaited;            /* refresh_awaiting's scratch */
    /* The decision awaited from this seat (refresh_awaiting): while the
     * game runs, what it must send (the ruleset's word, valid until the
     * game's next command), else NULL; its deadline (ms since the epoch,
     * 0 = none) and whether the reminder went out. */
    const char *what;
    int64_t deadline_at;
    int reminded;
    /* Why this seat forfeited, once it has ("french: no decision (move) in
     * 86400 s (deadline 2026-12-02 10:00:00 UTC)"; forfeit_reason()), else
     * "": in the server section, the forfeit event and the notification. */
    char forfeit_why[192];
    /* Its mail registration (pbem.h): none, pending or confirmed. */
    struct wrd_pbem_reg mail;
};

struct wrd_game {
    char id[24];
    const struct wr_ruleset *rs;
    struct wr_game *g;          /* the ruleset's game */
    char *scenario_name;
    char *scenario_text;        /* JSON text, or NULL */
    json_t *options;
    uint8_t seed[32];
    int64_t version;
    int status;
    char forfeit[128];          /* seat(s) that forfeited on time ('+' between), or "" */
    struct seat *seats;         /* nseats, as the ruleset names them */
    int nseats;
    struct view *views;         /* one per seat then the public one, or just one */
    int nviews;
    struct member_ref *members;
    int nmembers, capmembers;
    int spectators;             /* option */
    int open_seats;             /* option */
    int64_t deadline_s;         /* option; 0 = none */
    uv_timer_t *timer;          /* deadline timer (allocated when used) */
    char **lines;               /* the record: one JSON line per command */
    int nlines, caplines;
    int64_t restored_deadline;  /* restore only: the stored earliest deadline */
    int64_t forfeit_deadline;   /* the deadline that passed (ms since the epoch), kept
                                   in the game's row once it forfeited; 0: none */
    uint64_t shown;             /* counts every change of the views' states (a command,
                                   a server section changed without one): asks feed
                                   their views again when it moved (ask.h) */
    int64_t quiet_at;           /* the version at which the server section last changed
                                   without a command (the start, a forfeit); -1: never */
    struct wrd_server *srv;
    struct wrd_addr *owner;     /* the address that created it (NULL after a restart) */
    int counted;                /* in the registry's counts (set_status) */
    int pins;                   /* exports being written: it stays in memory */
    int evict_queued;           /* in the registry's list of games to leave memory */
    int64_t touched_ms;         /* its last command, join, leave or read back: a running
                                   game idle for --game-idle leaves memory (shelve) */
    int64_t full_version;       /* the version of its latest full snapshot in the store
                                   (written or read back), 0: none */
    /* restore only: the snapshots still to compare with the replay (every
     * one for --verify, none otherwise), oldest first */
    struct snap *snaps;
    int nsnaps, capsnaps, snap_at;
    int64_t created_ms;
    int64_t moved_ms;           /* the last accepted command's time (ms since the epoch,
                                   the store's, restored with it), 0: none yet */
    /* Linked games: a child's parent and the key its ruleset gave ("" for
     * a game without a parent), and the last command of this child's
     * events the parent refused ("" none: not stored, shown until the next
     * one); a parent's children, oldest first. */
    char parent[24];
    char link_key[64];
    char link_refused[320];
    struct link *children;
    int nchildren, capchildren;
    int dirty_queued;           /* in the registry's list of dirty games */
    /* Several servers (--cluster; cluster.c): a game held here is either
     * owned (this process writes it) or followed (a copy kept in step from
     * the store, never written here: follower). */
    int follower;
    int catching;               /* a read of the store's later rows is under way */
    int catch_again;            /* ...and another note came meanwhile: read again */
    int taking;                 /* ...and first the try of its lock (own(), on the same
                                   worker): a follower until that says otherwise */
    int take_again;             /* a take asked during a plain read: taken after it */
    int released;               /* its owner let it go: the next command tries to own it */
    int noted;                  /* changed in this batch: a note goes to the others */
    json_t *noted_cmds;         /* ...its commands of this batch, for the note (NULL none) */
    int noted_other;            /* ...and a change that is no command (a seat, a forfeit):
                                   the note then carries no command, copies read it */
    struct catch_waiter *waiters;   /* requests run again once the read is done */
    struct forward *fwd_head, *fwd_tail;    /* its forwards (cluster.c), oldest first */
    struct wrd_game *next;      /* hash chain */
    struct wrd_game *all_prev, *all_next;   /* every game held, oldest first (by
                                               created_ms, then id) */
};

struct wrd_games {
    struct wrd_server *srv;
    struct wrd_game *bucket[HASH_BUCKETS];
    struct invite_ref *invites[HASH_BUCKETS];
    struct wrd_game *all_head, *all_tail;
    int count;                  /* games in memory */
    int live;                   /* of those, open or running (--max-games) */
    int64_t last_created_ms;    /* the newest game's created_ms (create keeps them apart) */
    struct wrd_game **evict;    /* games that may leave memory after this iteration */
    int nevict, capevict;
    int evicted;                /* since memory was last given back */
    struct load *loads;         /* games being read back from the store */
    int tails;                  /* --cluster: reads of a game's later rows on the workers
                                   (read_rows until tail_done) */
    struct deferred *pending;
    int npending, cappending;
    struct wrd_game **dirty;    /* games whose server section changed without a command
                                   (section_changed), looked at by the flush */
    int ndirty, capdirty;
    uv_timer_t digest;          /* the daily digest of mails (when digest_on) */
    int digest_on;
    uv_timer_t sweep;           /* idle running games out, due ones back (when sweep_on) */
    int sweep_on;
    int sweeping;               /* a selection of due games is under way */
    uint64_t reads, shelved;    /* games read back from the store, running games shelved
                                   (/metrics) */
    struct cluster *cluster;    /* --cluster, or NULL */
    struct commit_job *commit_job;  /* a batch being committed off the loop, or NULL */
    struct committer *committer;    /* the thread that commits it (started on the first) */
};

typedef void (*rerun_fn)(struct wrd_server *srv, struct wrd_conn *c, const struct json_t *msg,
                         int fetched);

/* A request waiting for reads: run again once `waiting` reaches 0. A
 * client's (conn set) runs run(srv, conn, msg, 1); the server's own (conn
 * NULL: the digest) runs then(srv). */
struct pending_req {
    rerun_fn run;
    struct wrd_conn *conn;      /* a reference, or NULL */
    json_t *msg;                /* a reference, or NULL */
    int waiting;
    void (*then)(struct wrd_server *srv);
    int fetched;                /* what run() is told: 0 and 1 mean 1 (read back); 2: a
                                   copy read its rows again (cluster_recheck) */
};

/* When the joiner's state goes. */
enum { STATE_NOW, STATE_AFTER, STATE_NONE };

/* --- games.c, for cluster.c ------------------------------------------------------------ */

/* The game id held in memory, or NULL. */
struct wrd_game *games_find(struct wrd_games *gs, const char *id);
/* The index of g's seat called name, or -1. */
int games_seat_index(const struct wrd_game *g, const char *name);
/* Is s (NULL: no) exactly len lowercase hex digits? */
int games_is_hex(const char *s, size_t len);
/* Two 64-digit hashes compared in constant time: 1 equal. */
int games_same_hash(const char *a, const char *b);
/* The SHA-256 of text as 64 hex digits into out. */
void games_sha256_hex(const char *text, char out[65]);
/* n random bytes as hex into out (2n+1 bytes): 0, or -1. */
int games_random_hex(size_t n, char *out);
/* g's open invite of seat out of the registry's invite index. */
void games_invite_unindex(struct wrd_games *gs, struct wrd_game *g, int seat);
/* g's status set (the registry's counts follow). */
void games_set_status(struct wrd_games *gs, struct wrd_game *g, int status);
/* g's status (ST_*) from its rules and its forfeit. */
int games_compute_status(const struct wrd_game *g);
/* m sent to c after the commit of the batch (takes the caller's reference to m). */
void games_defer_direct(struct wrd_games *gs, struct wrd_conn *c, struct wrd_msg *m);
/* The answer to seq kept for seat s (its own reference taken). */
void games_remember(struct seat *s, int64_t seq, struct wrd_msg *answer);
/* The same for a command read back from the store (a restart, a copy kept in
 * step): the answer is built from its events (borrowed) as seat sees them. */
void games_remember_stored(struct wrd_game *g, int seat, int64_t seq, const json_t *events);
/* g's deadline timer set for its next wake (stopped for a follower). */
void games_arm_timer(struct wrd_game *g);
/* The seats g awaits now, and their deadlines (after a command by actor, or -1). */
void games_refresh_awaiting(struct wrd_server *srv, struct wrd_game *g, int actor, int notify);
/* A full state to every member of g after the commit. */
void games_broadcast_state(struct wrd_games *gs, struct wrd_game *g);
/* Every view's server section of g again. */
void games_refresh_sections(struct wrd_game *g);
/* cmd of seat through the rules: 0 applied (*events a new reference), -1 refused (why). */
int games_apply(struct wrd_game *g, int seat, const json_t *cmd, json_t **events,
          struct wr_refusal *why);
/* The text of a patch (seq 0) or an ack of g's latest version (new reference). */
struct wrd_msg *games_change_msg(const struct wrd_game *g, int64_t seq, const char *by,
                           const json_t *ops, const json_t *events, const json_t *id);
/* After a command of seat actor: g's status, awaited seats and every view's patch. */
void games_publish(struct wrd_server *srv, struct wrd_game *g, int actor, const json_t *events);
/* A child's accepted command's events (borrowed) to its parent's rules. */
void games_to_parent(struct wrd_server *srv, struct wrd_game *child, const json_t *events,
               int depth);
/* The answer (new reference) to a seq of seat already answered, or NULL when new. */
struct wrd_msg *games_answered_before(struct wrd_game *g, int seat, int64_t seq,
                                const json_t *jid);
/* A new seq of seat run through the rules and the batch: the answer (new reference). */
struct wrd_msg *games_command_core(struct wrd_server *srv, struct wrd_game *g, int seat,
                             int64_t seq, const json_t *cmd, const json_t *jid,
                             json_t **events);
/* c joined to g as seat (-1 spectator), its state sent `when` (STATE_*): 0, or -1. */
int games_attach(struct wrd_server *srv, struct wrd_conn *c, struct wrd_game *g, int seat,
           const json_t *id, int when);
/* seat of g claimed by the token whose hash is token_hash: 1 when g started. */
int games_claim_seat(struct wrd_server *srv, struct wrd_game *g, int seat, const char *token_hash,
               const json_t *webhook, const char *owner_addr, const json_t *mail);
/* The game and seat a claim names (invite hash h, or id and seatname): 0, or WRD_E_*. */
int games_claim_target(struct wrd_games *gs, const char *h, const char *id,
                 const char *seatname, struct wrd_game **g, int *seat, const char **why);
/* The `claimed` answer (new reference). */
struct wrd_msg *games_claimed_msg(const char *game, const char *seat, const char *token,
                            const json_t *jid);
/* The join handler (a rerun_fn). */
void games_join_run(struct wrd_server *srv, struct wrd_conn *c, const json_t *msg, int fetched);
/* req run again (a client's) or its then() (the server's), and freed: takes ownership. */
void games_finish_request(struct wrd_server *srv, struct pending_req *req);
/* g may leave memory at the end of this loop iteration. */
void games_maybe_evict(struct wrd_games *gs, struct wrd_game *g);

/* --- cluster.c, for games.c (each does nothing without --cluster) --------------------- */

/* Is g waiting on the store or on another process? It stays in memory. */
int cluster_busy(const struct wrd_game *g);
/* g changed in the open batch: the others get its note after the commit. */
void cluster_changed(struct wrd_games *gs, struct wrd_game *g);
/* A command of g's into the batch (row, cmd borrowed): its note carries it. */
void cluster_note_command(struct wrd_server *srv, struct wrd_game *g,
                          const struct wrd_command_row *row, const json_t *cmd);
/* Before the commit: the notes of the games the batch changed. */
void cluster_put_notes(struct wrd_server *srv);
/* Try to own g, a follower, off the loop: 0 under way (or owned), -1 not. */
int cluster_take(struct wrd_server *srv, struct wrd_game *g);
/* A new command for g from c's seat: 1 taken by the cluster, 0 run it here. */
int cluster_forward(struct wrd_server *srv, struct wrd_conn *c, struct wrd_game *g,
                    int seat, int64_t seq, const json_t *cmd, const json_t *jid);
/* A checked claim (g NULL: by an invite unknown here): 1 taken by the cluster, 0 run it here. */
int cluster_claim(struct wrd_server *srv, struct wrd_conn *c, struct wrd_game *g, int seat,
                  const char *invite_hash, const json_t *msg);
/* A request a copy cannot answer yet: 1 it runs again after a read of g's rows, 0 answer now. */
int cluster_recheck(struct wrd_server *srv, struct wrd_conn *c, struct wrd_game *g,
                    const json_t *msg, rerun_fn run);
/* A game read from the store: owned when no other process holds it, else followed. */
void cluster_adopt(struct wrd_server *srv, struct wrd_game *g);
/* g leaves memory: an owned game is let go, and the others hear of it. */
void cluster_let_go(struct wrd_server *srv, struct wrd_game *g);
/* May this process write g for c's request? 1 yes; 0 no (c has had the error). */
int cluster_may_write(struct wrd_server *srv, struct wrd_conn *c, struct wrd_game *g,
                      const json_t *jid);
/* A game just created here: owned with the batch that stores it; 0, or -1. */
int cluster_own_new(struct wrd_server *srv, struct wrd_game *g);
/* The cluster's uv handles closed (shutdown). */
void cluster_close(struct wrd_games *gs);
/* The cluster's state freed, its forwards dropped (after the loop has ended). */
void cluster_free(struct wrd_games *gs);
/* The cluster's counts into out (/metrics). */
void cluster_stats(const struct wrd_games *gs, struct wrd_games_stats *out);

#endif
