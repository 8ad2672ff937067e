/*
 * waterloo_record.h - Waterloo's old entry to game records, kept for
 * client-cli/cmd_render.c until it replays through record.h: a shim over
 * wr_record_replay() (common/core/record.h, where the format is
 * described) that knows the ruleset "waterloo" only and gives the final
 * public state. New code uses record.h.
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

/* Replay the Waterloo record text[0..len) with wr_record_replay(). Returns
 * 0 and the final public state (new reference in *final_state), or -1 with
 * why filled as wr_record_replay() fills it (a record of another ruleset
 * is refused). */
int wl_replay(const char *text, size_t len, const struct wl_replay_opts *opts,
              struct json_t **final_state, struct wr_refusal *why);

#endif
