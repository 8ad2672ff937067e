/*
 * ruleset.h - the ruleset interface, version 6: how a host (the server, the
 * terminal client, a replay, a test) holds a game of any ruleset without
 * knowing which one it is.
 *
 * A ruleset is a value, a const struct wr_ruleset, and lives in its own
 * folder, common/rulesets/<name>/. The registry (registry.c) is built from
 * one list, common/rulesets/rulesets.list: adding a ruleset is its folder
 * and one line there. The model is SQLite's sqlite3_vfs and
 * sqlite3_io_methods: a version field first, which says which fields exist;
 * a base struct at the start of every object a ruleset hands out; every
 * lifetime stated.
 *
 * Contract, for every function below:
 *  - JSON passed in is borrowed for the duration of the call;
 *  - JSON returned is a new reference the caller releases (json_decref);
 *  - strings returned (seat names, awaited decisions, the result) are owned
 *    by the game and stay valid until its next apply() or its destroy();
 *  - the host passed to create() is borrowed and must outlive the game;
 *  - a refusal (struct wr_refusal, reason.h) is filled from the ruleset's
 *    own reason table, so why->code is the wire code;
 *  - no function does I/O, keeps global state or reads the clock: given
 *    the same scenario, options, seed (or recorded rolls) and commands, a
 *    ruleset gives byte-identical states and events.
 * A game is used by one thread at a time; distinct games are independent.
 */
#ifndef WR_RULESET_H
#define WR_RULESET_H

#include <stdint.h>

#include "reason.h"

struct json_t;
struct wr_ruleset;
struct wr_present;
struct wr_prng;

/* Versions: 3 added rules, 4 child and child_events (linked games), 5 save
 * and restore (a whole game as JSON, for a host's snapshots), 6
 * update_view (a view brought up to date with the patch that does it). */
#define WR_RULESET_VERSION 6

/* The start of every game object a ruleset creates: a ruleset's own game
 * struct has a struct wr_game as its first member, and create() sets rs. */
struct wr_game {
    const struct wr_ruleset *rs;
};

/* What a host provides to a game.
 *
 * Dice: a game created with a seed derives roll k from it (dice.h); a game
 * created without one (the record of a game still running, whose seed is
 * secret, replayed) asks roll() for the face of roll k, 1..6, or 0 when the
 * host has none, and the command that needed it is then refused
 * (bad_command). roll may be NULL: no rolls without a seed.
 *
 * Scenarios: a scenario may name another it builds on ("base"); scenario()
 * returns that one by name (a new reference), or NULL when the host has no
 * such scenario. May be NULL: then a "base" is refused. */
struct wr_host {
    int (*roll)(void *ctx, uint32_t k);
    struct json_t *(*scenario)(void *ctx, const char *name);
    void *ctx;
};

/* One awaited decision: the seat and what it must send (a short word such
 * as "mark", "move" or "tactic"). */
struct wr_decision {
    const char *seat;
    const char *what;
};

/* Most decisions awaited at once that a host needs to hold: a ruleset
 * awaits at most as many seats as its game has, and hosts size their
 * arrays by wr_game_nseats(). This bound is only for small stack arrays of
 * helpers that stop at it. */
#define WR_DECISIONS_MAX 16

/* One option of create(): its name, and what it takes (for help texts:
 * "2..8 players", "true or false"). Values are JSON. */
struct wr_option {
    const char *name;
    const char *help;
};

struct wr_ruleset {
    int version;                /* WR_RULESET_VERSION */
    const char *name;           /* the create message's "ruleset": lowercase, [a-z0-9_-] */
    const char *summary;        /* one line for help texts */
    /* The seats of a game when the options do not change them, else the
     * most a game can have, NULL-terminated; for help and checks. A game's
     * own are seats(). */
    const char *const *default_seats;
    /* 1 when seats may see different states (sealed choices, hidden
     * units): hosts then project and diff per seat; 0 when every seat and
     * spectator sees the same state, projected once. */
    int hidden_info;
    /* The options create() reads, terminated by a NULL name; NULL: none.
     * create() reads these from its options object and ignores other
     * names (a host's own, such as the server's deadline_seconds); a host
     * refuses names that neither it nor the ruleset knows. */
    const struct wr_option *options;
    /* The scenario a game takes when none is named (NULL: none needed or
     * none by default), and whether one is required. */
    const char *default_scenario;
    int needs_scenario;
    /* Its reason table: the core reasons, then its own (reason.h). */
    const struct wr_reason_table *reasons;

    /* A new game from a scenario (may be NULL when !needs_scenario) and
     * options (may be NULL), with the game's id (at most 63 bytes: it keys
     * the dice) and its 32-byte dice seed (NULL: rolls come from the host).
     * Returns the game, or NULL with why filled (bad_scenario, bad_options,
     * no_memory). */
    struct wr_game *(*create)(const struct json_t *scenario, const struct json_t *options,
                              const char *game_id, const uint8_t *seed,
                              const struct wr_host *host, struct wr_refusal *why);
    void (*destroy)(struct wr_game *g);

    /* The game's seats, NULL-terminated, in the ruleset's order (the first
     * is the creator's by default). Valid until destroy(). */
    const char *const *(*seats)(const struct wr_game *g);

    /* Validate a command (a JSON object) from seat and apply it. Returns 0
     * and *events, the list of events (unprojected: pass it through
     * project_events); or a reason (non-zero) with why filled, *events
     * NULL and the game unchanged. */
    int (*apply)(struct wr_game *g, const char *seat, const struct json_t *cmd,
                 struct json_t **events, struct wr_refusal *why);

    /* The state as seat may see it; seat NULL is the public view (for
     * spectators). Everything a host sends passes through these two.
     * project_events may return a new reference to events itself when the
     * seat may see them all: callers only read what they get. Events of
     * type "roll" carry "k" and "face" (a host records them to replay a
     * game without its seed). */
    struct json_t *(*project)(const struct wr_game *g, const char *seat);
    struct json_t *(*project_events)(const struct wr_game *g, const char *seat,
                                     const struct json_t *events);

    /* Every seat whose decision is awaited now and what each must send, in
     * the ruleset's order: fills out[0..max) and returns how many (0 when
     * the game is over). Several seats are awaited at once when they decide
     * simultaneously (the campaign's sealed tactics). A ruleset may also
     * accept a command from a seat it does not await (an optional one: a
     * campaign side reporting again until the reports agree); hosts never
     * refuse a command on that ground, apply() decides. */
    int (*awaiting)(const struct wr_game *g, struct wr_decision *out, int max);
    /* NULL while running; the winning seat, or "draw", once over. */
    const char *(*result)(const struct wr_game *g);

    /* The game's invariants: 0, or -1 with why naming the broken one.
     * wr_game_apply() runs it after every accepted command in builds
     * without NDEBUG (the tests' and the sanitizer build), and the
     * conformance suite after every command of its games. */
    int (*check)(const struct wr_game *g, struct wr_refusal *why);

    /* A legal command for seat, chosen with rng (prng.h, the caller's
     * generator): the random player of the conformance suite, the load
     * tool and the benchmarks. Returns a new reference that apply()
     * accepts from seat now, or NULL when seat is not awaited or the game
     * is over. Never NULL (a ruleset without a random player cannot be
     * checked by the conformance suite). */
    struct json_t *(*autoplay)(const struct wr_game *g, const char *seat, struct wr_prng *rng);

    /* What a client shows and reads (present.h); never NULL. */
    const struct wr_present *present;

    /* Version 3. The version of its rules that new games are played under:
     * 0 or 1 while the rules have never changed a verdict. A ruleset whose
     * rules change so that a command of an old game would be judged
     * differently raises it, declares the option "rules" (an integer
     * 1..rules) and plays each game under the version its options name,
     * the newest when they name none. Hosts pin the version in the options
     * of every game they make (wr_game_options(), fresh), so stored games
     * and records name it; a game made before its ruleset had versions
     * names none, and is remade (a restore, a replay) under version 1. */
    int rules;

    /* Version 4: linked games. A ruleset whose games have parts played as
     * games of their own (the campaign's battles, played as games of the
     * ruleset "battle") says so with these two; every other ruleset leaves
     * both NULL, and a host refuses a child of its games.
     *
     * child: seat (a seat of parent) asks to play part of parent as a new
     * game of the ruleset called ruleset, with the creator's options
     * (borrowed; may be NULL). Returns a new reference,
     *   {"key": K, "options": {...}, "seats": {child seat: parent seat, ...}}
     * where K (1..63 bytes) names the part (a host runs at most one
     * unfinished child per parent and key), options are what the child is
     * created with (the creator's, with the parent's own keys put over
     * them), and seats map child seats to the parent seats whose holders
     * hold them (seat is one of the values). Or NULL with why filled from
     * the parent's reason table (nothing to play now, a ruleset it does
     * not play its parts as, a seat not in the part). Reads parent only.
     *
     * child_events: after each accepted command of the child keyed key,
     * that command's events as a spectator sees them (project_events with
     * seat NULL; borrowed). Returns a new reference to an array of
     * {"seat": parent seat, "command": {...}} that the host applies to
     * parent, in order, each through its ordinary command path (stored
     * before anything it changes is shown), or NULL or [] when the events
     * change nothing. A command the parent then refuses changes nothing;
     * the host reports it, and it does not stop the child. Reads parent
     * only. Like every function here, both are deterministic and do no I/O. */
    struct json_t *(*child)(const struct wr_game *parent, const char *seat, const char *ruleset,
                            const struct json_t *options, struct wr_refusal *why);
    struct json_t *(*child_events)(const struct wr_game *parent, const char *key,
                                   const struct json_t *events);

    /* Version 5; both NULL or both set. A whole game as JSON: everything a
     * later call depends on (hidden parts, sealed choices, the rolls drawn
     * so far, phase, turn, the result), with a "format" integer of the
     * ruleset's own. restore(), given what save() returned and the same
     * scenario, options, game id, seed and host that created the game,
     * returns a game that answers every later call exactly as the saved one
     * would: byte-identical projections for every seat and the public
     * view, events, refusals, awaiting(), result(). It reads nothing but
     * its arguments; saved is borrowed. NULL with why filled (bad_command
     * with a message naming what is wrong, or no_memory) for anything it
     * cannot take: another format, a value out of range, a state the rules
     * could not reach as far as it can tell; the host then replays the
     * commands instead. The saved JSON holds every secret of the game: a
     * host never shows it to a seat. */
    struct json_t *(*save)(const struct wr_game *g);
    struct wr_game *(*restore)(const struct json_t *saved, const struct json_t *scenario,
                               const struct json_t *options, const char *game_id,
                               const uint8_t *seed, const struct wr_host *host,
                               struct wr_refusal *why);

    /* Version 6; may be NULL (then a host projects and diffs). The view a
     * host holds for seat (NULL: the public view) brought up to date after
     * apply(), and the patch that does so, at the cost of what the command
     * changed rather than of the whole state.
     *
     * view: the host's own object, modified in place. On entry it must be
     * json_equal() to what project(g, seat) returned just before the last
     * apply() that returned 0 (or, before any, since create() or
     * restore()), except for members the ruleset's projections never have
     * (a host's own, such as the server's "server"), which are left alone.
     * A host that brings its views up to date after every accepted command
     * meets this; one that applied several commands without doing so, or
     * that is not sure, calls project() instead. Refused commands do not
     * count. The values update_view puts into view are new, shared with
     * nothing the host holds; values it takes out are released.
     *
     * Returns a new reference to an RFC 6902 patch (an array, jsonpatch.h)
     * that turns the view as it was into the view as it is now, the same
     * operations in the same order as wr_jsonpatch_diff() of the two; after
     * the call the view is json_equal() to project(g, seat) (host members
     * aside). NULL when memory runs out or view is not of this game's
     * shape: view is then unchanged, and the host projects and diffs.
     *
     * A ruleset knows what a command changed: it may keep, in the game,
     * what it needs to tell (Waterloo keeps the units as they stood before
     * the last apply() and compares them field by field). Like everything
     * here: deterministic, no I/O, no globals. */
    struct json_t *(*update_view)(const struct wr_game *g, const char *seat,
                                  struct json_t *view);
};

/* --- the registry (registry.c, generated from rulesets.list) ------------- */

/* The ruleset called name (NULL: none), or NULL. */
const struct wr_ruleset *wr_ruleset_find(const char *name);
/* The i-th registered ruleset (0-based, the list's order), or NULL past
 * the last. */
const struct wr_ruleset *wr_ruleset_at(int i);

/* --- helpers every host uses (ruleset.c) --------------------------------- */

/* Is seat one of the ruleset's default seats? */
int wr_ruleset_has_seat(const struct wr_ruleset *rs, const char *seat);
/* The option called name of rs, or NULL. */
const struct wr_option *wr_ruleset_option(const struct wr_ruleset *rs, const char *name);
/* The options to give create() for a game of rs: a new object, a copy of
 * options (borrowed; NULL reads as {}) that names the rules version of the
 * game when rs has versions (rs->rules > 1) and options name none: rs->rules
 * for a new game (fresh = 1), 1 for a game remade from a store or a record
 * (fresh = 0). NULL when memory runs out. */
struct json_t *wr_game_options(const struct wr_ruleset *rs, const struct json_t *options,
                               int fresh);

/* g->rs->apply(), then, without NDEBUG, g->rs->check(), aborting with the
 * broken invariant on stderr if it fails (a bug in the ruleset). */
int wr_game_apply(struct wr_game *g, const char *seat, const struct json_t *cmd,
                  struct json_t **events, struct wr_refusal *why);
/* How many seats g has. */
int wr_game_nseats(const struct wr_game *g);
/* The index of seat among g's seats, or -1. */
int wr_game_seat_index(const struct wr_game *g, const char *seat);
/* The first awaited seat, or NULL when the game waits for nobody. */
const char *wr_game_awaited(const struct wr_game *g);

/* g's ruleset's update_view() (version 6) when it has one, with its
 * contract (view modified in place; a new reference to the patch); NULL
 * when it has none or it fails, the view then unchanged: the host projects
 * and diffs. */
struct json_t *wr_game_update_view(const struct wr_game *g, const char *seat,
                                   struct json_t *view);

/* Can games of rs be saved and restored (version 5, save and restore set)? */
int wr_ruleset_can_save(const struct wr_ruleset *rs);
/* g's ruleset's save(): a new reference the caller releases, holding every
 * secret of the game (never shown to a seat); NULL when the ruleset cannot
 * save (wr_ruleset_can_save) or memory runs out. */
struct json_t *wr_game_save(const struct wr_game *g);
/* rs->restore() (all arguments borrowed; host must outlive the game), or
 * NULL with why filled: bad_command when rs cannot restore or refuses
 * saved, no_memory. The game is the caller's to destroy. */
struct wr_game *wr_game_restore(const struct wr_ruleset *rs, const struct json_t *saved,
                                const struct json_t *scenario, const struct json_t *options,
                                const char *game_id, const uint8_t *seed,
                                const struct wr_host *host, struct wr_refusal *why);

#endif
