/*
 * waterloo_record.c - wl_replay(), a shim over wr_record_replay() (see
 * waterloo_record.h).
 */
#include "waterloo_record.h"

#include <jansson.h>
#include <string.h>

#include "record.h"
#include "ruleset.h"

extern const struct wr_ruleset wr_ruleset_waterloo;

/* Waterloo only: this library cannot name the program's registry. */
static const struct wr_ruleset *waterloo_only(const char *name)
{
    return strcmp(name, "waterloo") == 0 ? &wr_ruleset_waterloo : NULL;
}

struct adapter {
    const struct wl_replay_opts *opts;
    int n;                          /* commands so far */
};

static void adapt_line(void *ctx, int n, const char *seat, const json_t *cmd, int verdict,
                       const struct wr_refusal *why, const json_t *events)
{
    static const struct wr_refusal ok = { WL_R_OK, "ok", "" };
    struct adapter *a = ctx;
    (void)n;
    (void)seat;
    (void)cmd;
    a->opts->on_line(a->opts->line_ctx, ++a->n, (enum wl_reason)verdict, why ? why : &ok,
                     events);
}

int wl_replay(const char *text, size_t len, const struct wl_replay_opts *opts,
              json_t **final_state, struct wr_refusal *why)
{
    struct adapter a = { opts, 0 };
    struct wr_record_opts o = { waterloo_only, opts->resolve, opts->resolve_ctx,
                                opts->keep_going, opts->on_line ? adapt_line : NULL, &a };
    struct wr_record_result res;
    int rc = wr_record_replay(text, len, &o, &res, why);
    *final_state = rc == 0 ? res.rs->project(res.game, NULL) : NULL;
    wr_record_result_release(&res);
    return rc == 0 ? 0 : -1;
}
