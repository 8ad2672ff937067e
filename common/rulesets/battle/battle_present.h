/*
 * battle_present.h - the battle referee's presentation (present.h,
 * version 2): wr_present_battle, and what its files share.
 *
 * battle_present.c holds the short orders (one table: word, synopsis, help,
 * example), the view (a copy of the last state, the roster draft the
 * player is writing, the last tests seen), describe(), one line per event
 * and completion; battle_present_draw.c the roster view as text (and the
 * same lines as SVG) and the battle sheet (draw_report, HTML).
 *
 * Everything is read from the projected state (docs/rulesets/battle.md,
 * "The state"); reason codes in it are turned into the rules core's
 * sentences through bg_reasons (battle_game.h). Pure: no I/O, no globals.
 */
#ifndef BG_BATTLE_PRESENT_H
#define BG_BATTLE_PRESENT_H

#include "present.h"
#include "strbuf.h"

struct json_t;

extern const struct wr_present wr_present_battle;

/* The last tests a view saw (event()), newest last: kept so the roster
 * view can show them; the state keeps no history. */
#define BP_TESTS_MAX 6
struct bp_test {
    char unit[32];
    char test[8];
    int target;
    int faces[3], nfaces;
    int passed;
    char outcome[24];           /* a reason code: ld_passed, flees... */
};

struct bp_log {
    struct bp_test tests[BP_TESTS_MAX];
    int n;
    long long last_k;           /* the k of the last roll seen, -1: none */
    long long test_k;           /* the k of the roll before the last test kept */
};

struct bp_view {
    struct wr_view base;
    struct json_t *state;       /* a copy of the last state taken, or NULL; owned */
    struct json_t *draft;       /* the roster being written (`unit` orders): an array; owned */
    struct bp_log *log;         /* owned; written by event(), which gets a const view */
};

/* battle_present_events.c. The sentence of a reason code of the battle
 * (core, rules core or game), or NULL when the code is not one. Static
 * storage. */
const char *bp_reason_text(const char *code);

/* One line (no "\n") for a battle event (the same as the view's event()). */
void bp_event_line(const struct json_t *event, struct wr_strbuf *out);

/* The roster view as text lines fitting cols (0: 80) and as SVG. */
int bp_draw_text(const struct bp_view *p, const struct wr_draw_opts *o, struct wr_strbuf *out);
int bp_draw_svg(const struct bp_view *p, struct wr_strbuf *out);

/* The battle sheet (present.h's draw_report). */
int bp_draw_report(const struct bp_view *p, const struct json_t *steps, struct wr_strbuf *out);

#endif
