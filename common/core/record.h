/*
 * record.h - game records of any ruleset: the one writer of their header,
 * the one parser and the one replayer.
 *
 * A game record is NDJSON (docs/protocol.md, "Game records"). Line 1 is
 * the header
 *   {"warroom":"game-record","version":1,"game":ID,"ruleset":NAME,
 *    "scenario":NAME or an inline scenario object ("" when the game has
 *    none),"options":{...},"seed":HEX64}
 * ("options" absent or null reads as {}; "seed" is absent, or null, while
 * the game runs), then
 * one line per command
 *   {"seat":SEAT,"cmd":{...},"rolls":[[k,face],...]}
 * ("rolls" only when the command rolled: the k and face of each event of
 * type "roll", in the order of the events). Blank lines are skipped; line
 * numbers count them. Fields a version 1 reader does not know are ignored.
 *
 * A replay makes the game again through its ruleset (ruleset.h) and applies
 * every command line. With the seed, every roll is derived again and must
 * be the recorded one: the dice are verified. Without it, the game's host
 * answers roll k with the face the current line recorded for k (0, so the
 * command is refused, when the line has none): the record of a game still
 * running replays. Either way a command's roll events must be exactly its
 * line's "rolls".
 *
 * Pure: no I/O, no globals. The caller reads the file and resolves
 * scenario names.
 */
#ifndef WR_RECORD_H
#define WR_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "reason.h"
#include "ruleset.h"

struct json_t;

/* Longest line of a record, its newline not counted: a command line, and
 * the header, which may hold a whole scenario. */
#define WR_RECORD_LINE_MAX ((size_t)1 << 20)
#define WR_RECORD_HEADER_MAX ((size_t)16 << 20)

/* How a replay fails: X(name, value, what). */
#define WR_RECORD_ERRORS(X) \
    X(EBAD, -1, "the record is not a valid game record") \
    X(EREFUSED, -2, "a command of the record was refused") \
    X(EDICE, -3, "a roll of the record is not the game's") \
    X(ENOMEM, -4, "out of memory")

enum wr_record_error {
#define WR_RECORD_ERROR_ENUM(name, value, what) WR_RECORD_##name = (value),
    WR_RECORD_ERRORS(WR_RECORD_ERROR_ENUM)
#undef WR_RECORD_ERROR_ENUM
};

/* The sentence of a replay's return value ("ok" for 0; static storage). */
const char *wr_record_strerror(int rc);

/* --- writing ---------------------------------------------------------------- */

/* The header line of a record, without its newline, as the server's export
 * sends it: keys in the order above, compact. The scenario is the object
 * scenario when not NULL (borrowed), else the string scenario_name (NULL:
 * ""); options NULL writes {}; seed (32 bytes, NULL: none) is written in
 * lowercase hex. game_id and ruleset are borrowed. Returns a string the
 * caller frees with free(), or NULL when memory ran out. */
char *wr_record_header(const char *game_id, const char *ruleset, const char *scenario_name,
                       const struct json_t *scenario, const struct json_t *options,
                       const uint8_t *seed);

/* --- reading and replaying --------------------------------------------------- */

/* The scenario called name: a new reference the replay releases, or NULL
 * when there is none. Same shape as wrc_scenario_resolve()
 * (client-cli/scenarios.h) and wl_scenario_resolver. */
typedef struct json_t *(*wr_record_resolver)(const char *name, void *ctx);

/* Called once per command line, in order, after the ruleset's verdict:
 * n is the line's number in the record (the header is line 1); seat and
 * cmd are the line's; verdict is 0 (accepted: events holds the unprojected
 * events, why is NULL) or the ruleset's reason (why filled, events NULL).
 * Everything is borrowed for the duration of the call. */
typedef void (*wr_record_line_cb)(void *ctx, int n, const char *seat, const struct json_t *cmd,
                                  int verdict, const struct wr_refusal *why,
                                  const struct json_t *events);

/* How to replay. Borrowed for the duration of wr_record_replay() only. */
struct wr_record_opts {
    /* The rulesets a record may name: wr_ruleset_find (ruleset.h) for those
     * the program links (the core library cannot name the registry it is
     * linked with), or a test's own. Required. */
    const struct wr_ruleset *(*find)(const char *name);
    /* Scenarios by name: for a header naming its scenario and for a
     * scenario's "base". NULL: only inline scenarios without a base. */
    wr_record_resolver resolve;
    void *resolve_ctx;
    /* 1: a refused command is counted, reported to on_line and skipped;
     * 0: it ends the replay (WR_RECORD_EREFUSED). */
    int keep_going;
    wr_record_line_cb on_line;      /* may be NULL */
    void *line_ctx;
};

struct wr_record_host;

/* What a replay made. Filled by wr_record_replay() (zeroed first, so a
 * failed replay's counts say how far it got); its contents are owned and
 * freed with wr_record_result_release(). */
struct wr_record_result {
    /* The game at the end of the record, or NULL when the replay failed.
     * Read it through game->rs (project(), project_events(), awaiting(),
     * seats()): the public state is game->rs->project(game, NULL). Valid
     * until wr_record_result_release(); a caller that applies more commands
     * to it gets no rolls without a seed. */
    struct wr_game *game;
    const struct wr_ruleset *rs;    /* the record's ruleset; static storage */
    /* The game's result: NULL while it runs, else a seat or "draw" (owned
     * by the game, as rs->result() says). */
    const char *result;
    char game_id[64];               /* the header's "game" */
    int has_seed;                   /* the header gave the seed */
    int accepted;                   /* command lines the ruleset accepted */
    int refused;                    /* command lines it refused (keep_going) */
    int dice;                       /* rolls derived from the seed and found recorded */
    int lines;                      /* the last line read (the failing one on failure) */
    struct wr_record_host *host;    /* private: the game's host */
};

/* Replay the record text[0..len) (not NUL-terminated; borrowed). Returns 0
 * with res filled and its game at the end of the record when every line
 * was read, every command accepted (or, with keep_going, refused and
 * counted) and every roll matched; otherwise one of WR_RECORD_ERRORS, with
 * res->game NULL and why saying where and what, "line N: ...": a malformed
 * line or header, a line too long, an unknown ruleset or scenario, options
 * or a scenario the ruleset refuses (its reason and code), a refused
 * command without keep_going (the ruleset's reason and code), or a roll
 * that differs ("line 12: roll 5 was recorded as 3, the seed gives 6").
 * Release res with wr_record_result_release() in both cases. */
int wr_record_replay(const char *text, size_t len, const struct wr_record_opts *o,
                     struct wr_record_result *res, struct wr_refusal *why);

/* Free what res holds (the game, its host); res is zeroed. */
void wr_record_result_release(struct wr_record_result *res);

#endif
