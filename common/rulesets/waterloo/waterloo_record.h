/*
 * waterloo_record.h - game records: reading them and replaying them.
 *
 * A game record is NDJSON. The first line is the header
 *   {"warroom":"game-record","version":1,"game":ID,"ruleset":"waterloo",
 *    "scenario": NAME or an inline scenario object, "seed": HEX (absent while
 *    the game runs)}
 * then one line per accepted (or, in a raw log, attempted) command
 *   {"seat":"french"|"allied","cmd":{...},"rolls":[[k,face],...]}
 * ("rolls" only when the command rolled). Replay is deterministic: the same
 * record gives the same events and final state. With the seed, every roll is
 * derived again and checked against the recorded one; without it the
 * recorded rolls are used.
 */
#ifndef WL_RECORD_H
#define WL_RECORD_H

#include <stddef.h>

#include "waterloo_reason.h"
#include "waterloo_scenario.h"

struct json_t;

/* Called once per command line: n is the 1-based command number; r is the
 * verdict (WL_R_OK with events, or a refusal in why). events is borrowed. */
typedef void (*wl_replay_line_cb)(void *ctx, int n, enum wl_reason r,
                                  const struct wr_refusal *why, const struct json_t *events);

struct wl_replay_opts {
    wl_scenario_resolver resolve;   /* scenario by name (header "scenario": "name") */
    void *resolve_ctx;
    int keep_going;                 /* report refused commands and go on */
    wl_replay_line_cb on_line;      /* may be NULL */
    void *line_ctx;
};

/* Replay the record text[0..len). Returns 0 and the final state (new
 * reference in *final_state) when every command was accepted (or skipped
 * with keep_going) and every roll matched; -1 with why filled otherwise:
 * a malformed line ("line 7: ..."), an unknown scenario, a refused command
 * without keep_going, or a roll that differs from the seed's ("line 12:
 * roll 5 was recorded as 3, the seed gives 6"). */
int wl_replay(const char *text, size_t len, const struct wl_replay_opts *opts,
              struct json_t **final_state, struct wr_refusal *why);

#endif
