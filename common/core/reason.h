/*
 * reason.h - why a command was refused.
 *
 * A rule check returns a reason, not a bool (Freeciv's
 * unit_move_to_tile_test). Every ruleset has its own table of reasons
 * (rulesets/<name>/): an X-macro of (id, wire code, sentence) whose enum
 * starts with the core reasons below, which every ruleset shares, at the
 * same values. A refusal carries the wire code itself, so a host sends it
 * without knowing any ruleset's table; its sentence is written for a person
 * and names the rule and the pieces involved.
 */
#ifndef WR_REASON_H
#define WR_REASON_H

#include <stdarg.h>

/* The reasons every ruleset shares: X(id, code, sentence). */
#define WR_CORE_REASONS(X) \
    X(OK, "ok", "accepted") \
    X(BAD_COMMAND, "bad_command", "the command is not understood") \
    X(BAD_SCENARIO, "bad_scenario", "the scenario is not valid") \
    X(NOT_YOUR_TURN, "not_your_turn", "another seat is awaited") \
    X(WRONG_PHASE, "wrong_phase", "that command is not allowed in this phase") \
    X(GAME_OVER, "game_over", "the game is over") \
    X(BAD_OPTIONS, "bad_options", "the game's options are not valid") \
    X(NO_MEMORY, "no_memory", "out of memory")

enum wr_reason {
#define WR_REASON_ENUM(id, code, text) WR_R_##id,
    WR_CORE_REASONS(WR_REASON_ENUM)
#undef WR_REASON_ENUM
    WR_R_CORE_COUNT             /* a ruleset's own reasons start here */
};

/* One row of a reason table. */
struct wr_reason_info {
    const char *code;           /* stable, on the wire: "zoc_reenter" */
    const char *text;           /* the generic sentence */
};

/* A ruleset's reason table: its rows, indexed by reason (the core ones
 * first), static storage. */
struct wr_reason_table {
    const struct wr_reason_info *rows;
    int count;
};

/* Build a ruleset's table rows from its X-macro, after the core rows:
 *   static const struct wr_reason_info rows[] = { WR_REASON_ROWS(MY_MAP) }; */
#define WR_REASON_ROW(id, code, text) { code, text },
#define WR_REASON_ROWS(MAP) WR_CORE_REASONS(WR_REASON_ROW) MAP(WR_REASON_ROW)

#define WR_REFUSAL_MSG_MAX 256

/* A refusal: the reason (a number of the refusing ruleset's table), its
 * wire code (static storage, never NULL once filled) and a sentence. */
struct wr_refusal {
    int reason;
    const char *code;
    char message[WR_REFUSAL_MSG_MAX];
};

/* The core table. */
extern const struct wr_reason_table wr_core_reasons;

/* The wire code and generic sentence of reason r in table t ("unknown" out
 * of range). */
const char *wr_reason_code_in(const struct wr_reason_table *t, int r);
const char *wr_reason_text_in(const struct wr_reason_table *t, int r);

/* Fill why (may be NULL) with reason r of table t and a printf-style
 * sentence (NULL: the table's); returns r. The one refusal formatter: the
 * sentence is always valid UTF-8 (it goes into JSON), quoted input cut
 * inside a character is repaired, invalid bytes become '?'. */
int wr_vrefuse_in(struct wr_refusal *why, const struct wr_reason_table *t, int r,
                  const char *fmt, va_list ap) __attribute__((format(printf, 4, 0)));

/* The same for a core reason. */
enum wr_reason wr_refuse(struct wr_refusal *why, enum wr_reason r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
enum wr_reason wr_vrefuse(struct wr_refusal *why, enum wr_reason r, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
const char *wr_reason_code(enum wr_reason r);

/* Make text valid UTF-8 in place (for a message edited after a refusal). */
void wr_utf8_clean(char *text);

#endif
