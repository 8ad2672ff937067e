/*
 * battle_present_events.c - the battle's events and reasons in words: one
 * line per event (the panel's log, the battle sheet's turn by turn), the
 * rules core's sentence for a reason code. Used by battle_present.c and
 * battle_present_draw.c (battle_present.h).
 */
#include "battle_present.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "battle_game.h"
#include "present.h"

/* --- reasons ------------------------------------------------------------------------------ */

const char *bp_reason_text(const char *code)
{
    for (int r = 0; code && r < BG_R_COUNT; r++)
        if (strcmp(wr_reason_code_in(&bg_reasons, r), code) == 0)
            return wr_reason_text_in(&bg_reasons, r);
    return NULL;
}

/* --- events ------------------------------------------------------------------------------- */

/* ": " and the rules core's sentence for reason code r, when it has one. */
static void reason_tail(const char *r, struct wr_strbuf *out)
{
    const char *text = bp_reason_text(r);
    if (text != NULL)
        wr_strbuf_printf(out, ": %s", text);
}

static void faces_list(const json_t *faces, struct wr_strbuf *out)
{
    size_t i;
    json_t *f;
    json_array_foreach(faces, i, f)
        wr_strbuf_printf(out, "%s%lld", i ? "+" : "", json_integer_value(f));
}

void bp_event_line(const json_t *e, struct wr_strbuf *out)
{
    const char *type = wr_state_str(e, "type");
    if (type == NULL) {
        wr_strbuf_puts(out, "(an event without a type)");
        return;
    }
    if (strcmp(type, "roster") == 0) {
        wr_strbuf_printf(out, json_is_true(json_object_get(e, "last")) ? "%s's roster is in"
                                                                       : "%s sends part of "
                                                                         "its roster",
                         wr_state_text(e, "side"));
        if (json_is_array(json_object_get(e, "units")))
            wr_strbuf_printf(out, " (%zu units)", json_array_size(json_object_get(e, "units")));
    } else if (strcmp(type, "rosters_revealed") == 0) {
        wr_strbuf_puts(out, "Both rosters are in: they are revealed");
    } else if (strcmp(type, "roll") == 0) {
        wr_strbuf_printf(out, "Die k=%lld for %s: %lld", wr_state_int(e, "k"),
                         wr_state_text(e, "for"), wr_state_int(e, "face"));
    } else if (strcmp(type, "started") == 0) {
        wr_strbuf_printf(out, "%s takes the first player turn", wr_state_text(e, "first"));
    } else if (strcmp(type, "fact") == 0) {
        json_t *v = json_object_get(e, "value");
        wr_strbuf_printf(out, "%s states: %s %s %s", wr_state_text(e, "side"),
                         wr_state_text(e, "unit"), wr_state_text(e, "fact"),
                         json_is_string(v) ? json_string_value(v)
                         : json_is_true(v) ? "yes"
                                           : "no");
    } else if (strcmp(type, "dispute") == 0) {
        wr_strbuf_printf(out, "%s disputes %s's %s", wr_state_text(e, "side"),
                         wr_state_text(e, "unit"), wr_state_text(e, "fact"));
    } else if (strcmp(type, "settled") == 0) {
        wr_strbuf_printf(out, "Settled by the %s: %s's %s %s", wr_state_text(e, "by"),
                         wr_state_text(e, "unit"), wr_state_text(e, "fact"),
                         json_is_true(json_object_get(e, "stands")) ? "stands" : "does not stand");
    } else if (strcmp(type, "casualties") == 0) {
        wr_strbuf_printf(out, "%s loses %lld wound%s: %lld models left", wr_state_text(e, "unit"),
                         wr_state_int(e, "wounds"), wr_state_int(e, "wounds") == 1 ? "" : "s",
                         wr_state_int(e, "models_left"));
    } else if (strcmp(type, "test") == 0) {
        wr_strbuf_printf(out, "%s %s test, target %lld: ", wr_state_text(e, "unit"),
                         wr_state_text(e, "test"), wr_state_int(e, "target"));
        faces_list(json_object_get(e, "faces"), out);
        const char *why = bp_reason_text(wr_state_str(e, "outcome"));
        wr_strbuf_printf(out, ", %s: %s", json_is_true(json_object_get(e, "passed")) ? "passed"
                                                                                     : "failed",
                         why ? why : wr_state_text(e, "outcome"));
    } else if (strcmp(type, "segment") == 0) {
        wr_strbuf_printf(out, "Segment: %s", wr_state_text(e, "segment"));
    } else if (strcmp(type, "turn_ended") == 0) {
        wr_strbuf_printf(out, "%s ends player turn %lld", wr_state_text(e, "side"),
                         wr_state_int(e, "turn"));
    } else if (strcmp(type, "turn") == 0) {
        wr_strbuf_printf(out, "Turn %lld: %s's player turn, %s", wr_state_int(e, "turn"),
                         wr_state_text(e, "side"), wr_state_text(e, "segment"));
    } else if (strcmp(type, "offer") == 0) {
        wr_strbuf_printf(out, "%s offers to end the battle: %s", wr_state_text(e, "side"),
                         wr_state_text(e, "result"));
    } else if (strcmp(type, "battle_over") == 0) {
        const char *r = wr_state_text(e, "result"), *why = bp_reason_text(wr_state_str(e, "why"));
        wr_strbuf_printf(out, "The battle is over: %s%s", strcmp(r, "draw") == 0 ? "a draw" : r,
                         strcmp(r, "draw") == 0 ? "" : " wins");
        if (why || wr_state_str(e, "why"))
            wr_strbuf_printf(out, " (%s)", why ? why : wr_state_text(e, "why"));
    } else if (strcmp(type, "victory_points_agreed") == 0) {
        wr_strbuf_printf(out, "Victory points agreed: p1 %lld, p2 %lld", wr_state_int(e, "p1"),
                         wr_state_int(e, "p2"));
    } else if (strcmp(type, "ambush_due") == 0) {
        wr_strbuf_printf(out, "%s's hidden ambush force is due", wr_state_text(e, "side"));
    } else if (strcmp(type, "charge") == 0) {
        wr_strbuf_printf(out, "%s charges %s in the %s (%lld models)", wr_state_text(e, "unit"),
                         wr_state_text(e, "target"), wr_state_text(e, "facing"),
                         wr_state_int(e, "models"));
        if (json_is_true(json_object_get(e, "kept")))
            wr_strbuf_puts(out, "; the earlier flank or rear charge stands");
        reason_tail(wr_state_str(e, "rank"), out);
    } else if (strcmp(type, "counter_charge") == 0) {
        wr_strbuf_printf(out, "%s counter charges %s: it counts as charging for its weapons",
                         wr_state_text(e, "unit"), wr_state_text(e, "charger"));
        if (json_is_true(json_object_get(e, "thrusting_spears")))
            wr_strbuf_puts(out, " (+1S: thrusting spears)");
        wr_strbuf_puts(out, ", not for who strikes first");
    } else if (strcmp(type, "screen_flees") == 0) {
        wr_strbuf_printf(out, "%s, screening %s, flees out of the way", wr_state_text(e, "unit"),
                         wr_state_text(e, "screened"));
    } else if (strcmp(type, "cover") == 0) {
        wr_strbuf_printf(out, "A shot at %s through %s: %s", wr_state_text(e, "unit"),
                         wr_state_text(e, "screen"),
                         json_is_true(json_object_get(e, "cover")) ? "soft cover" : "no cover");
        reason_tail(wr_state_str(e, "outcome"), out);
    } else if (strcmp(type, "broke") == 0) {
        wr_strbuf_printf(out, "%s broke in close combat and flees", wr_state_text(e, "unit"));
        if (json_is_true(json_object_get(e, "confident_a_lost")))
            wr_strbuf_printf(out, "; %s's units are no longer confident by a)",
                             wr_state_text(e, "side"));
    } else if (strcmp(type, "reform") == 0) {
        wr_strbuf_printf(out, "%s reforms to face the enemy engaging it", wr_state_text(e, "unit"));
        reason_tail(wr_state_str(e, "rank"), out);
    } else if (strcmp(type, "general_killed") == 0) {
        wr_strbuf_printf(out, "%s's general is killed in player turn %lld (edgy c from turn %lld)",
                         wr_state_text(e, "side"), wr_state_int(e, "turn"),
                         wr_state_int(e, "edgy_from"));
    } else if (strcmp(type, "familiarity") == 0) {
        wr_strbuf_printf(out, "%s %s an elephant: %s's familiarity with elephants (%s) %s",
                         wr_state_text(e, "unit"),
                         strcmp(wr_state_text(e, "event"), "beat") == 0 ? "beat" : "survived",
                         wr_state_text(e, "side"), wr_state_text(e, "elephants"),
                         json_is_true(json_object_get(e, "upgraded")) ? "is upgraded"
                                                                      : "is unchanged");
    } else if (strcmp(type, "left_table") == 0) {
        wr_strbuf_printf(out, "%s left the table: %s has %lld models alive",
                         wr_state_text(e, "unit"), wr_state_text(e, "side"),
                         wr_state_int(e, "models_left"));
    } else if (strcmp(type, "victory_points") == 0) {
        wr_strbuf_printf(out, "%s reports victory points: p1 %lld, p2 %lld",
                         wr_state_text(e, "side"), wr_state_int(e, "p1"), wr_state_int(e, "p2"));
    } else if (strcmp(type, "vp_disputed") == 0) {
        wr_strbuf_puts(out, "The victory point reports differ: report again");
        if (wr_state_str(e, "referee"))
            wr_strbuf_puts(out, ", or the referee settles them");
    } else if (strcmp(type, "vp_settled") == 0) {
        wr_strbuf_printf(out, "The referee settles the victory points: p1 %lld, p2 %lld",
                         wr_state_int(e, "p1"), wr_state_int(e, "p2"));
    } else {
        /* a later event: its type and its fields, compact */
        char *s = json_dumps(e, JSON_COMPACT | JSON_SORT_KEYS);
        wr_strbuf_printf(out, "%.200s", s ? s : type);
        free(s);
    }
}
