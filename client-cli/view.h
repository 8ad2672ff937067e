/*
 * view.h - the client's view of one game: the game's setup as the server
 * gave it (the `setup` answer, docs/protocol.md), its ruleset found in the
 * registry, and that ruleset's presentation (common/core/present.h) opened
 * for the seat held. Everything the client shows of a game or reads for it
 * goes through here, whatever the ruleset: the client names none.
 *
 * No I/O: text is written into a wr_strbuf for the caller to print.
 */
#ifndef WRC_VIEW_H
#define WRC_VIEW_H

#include <stdint.h>

#include "present.h"
#include "ruleset.h"
#include "strbuf.h"

struct json_t;

struct wrc_view {
    char game[64];
    struct json_t *setup;       /* the setup answer; owned */
    const struct wr_ruleset *rs;
    struct wr_view *v;          /* owned; NULL until opened */
    int64_t fed;                /* the version of the state last fed; -1: none */
};

/* Open w for game from its setup answer ({"ruleset","scenario","options"},
 * borrowed; a copy is kept) for seat ("" or NULL: a spectator). host must
 * outlive the view. 0, or -1 with a sentence in why (a ruleset this client
 * does not have, or the view's own refusal). */
int wrc_view_open(struct wrc_view *w, const char *game, const struct json_t *setup,
                  const char *seat, const struct wr_host *host, struct wr_refusal *why);
/* Close what wrc_view_open() opened (a closed view may be closed again). */
void wrc_view_close(struct wrc_view *w);

/* Give the view the state (borrowed) of version, unless that version was
 * fed already. 0, or -1 with why (the view keeps what it had). */
int wrc_view_feed(struct wrc_view *w, const struct json_t *state, int64_t version,
                  struct wr_refusal *why);

/* A typed line: a JSON object is the command itself (*cmd, sent as is),
 * anything else is the view's order() (present.h). */
enum wr_order_kind wrc_view_line(struct wr_view *v, const char *line, struct json_t **cmd,
                                 struct wr_strbuf *out, struct wr_refusal *why);

/* describe()'s first line, without its newline. */
void wrc_view_headline(const struct wr_view *v, struct wr_strbuf *out);

/* The orders table: with order NULL or "", each order's synopsis, help
 * and example, one block each, then how to send a command as JSON; with an
 * order's name (borrowed), that order's block alone. 0, or -1 with a line
 * naming the orders when v has no order of that name. */
int wrc_view_help(const struct wr_view *v, const char *order, struct wr_strbuf *out);

/* Completion: the first word from the orders table (and the host's own
 * words, NULL-terminated, may be NULL), the others from the view. */
void wrc_view_complete(const struct wr_view *v, const char *const *host_words,
                       const char *const *words, int nwords, const char *word,
                       void (*add)(void *ctx, const char *cand), void *ctx);

#endif
