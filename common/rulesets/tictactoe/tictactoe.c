/*
 * tictactoe.c - the smallest ruleset: noughts and crosses, for protocol
 * tests and for load comparisons with other game servers (boardgame.io and
 * Colyseus benchmark with the same game).
 *
 * Seats "x" (moves first) and "o". Command {"type":"mark","cell":0..8}.
 * State {"board":"x..o.....","turn":"x","winner":null,"moves":n}.
 */
#include "tictactoe.h"

#include "ruleset.h"
#include "present.h"
#include "prng.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct ttt {
    struct wr_game base;    /* first: the ruleset interface's game */
    char board[10];         /* '.', 'x', 'o'; NUL-terminated */
    int moves;
    char winner;            /* 0 running, 'x', 'o', or 'd' (draw) */
};

static const char *const seats[] = { "x", "o", NULL };


/* Tictactoe's own reasons (core/reason.h explains the scheme). The wire
 * codes are those the protocol has always sent for a cell out of range
 * and a cell already marked. */
#define TTT_REASON_MAP(X) \
    X(BAD_CELL, "bad_square", "a cell is 0..8") \
    X(CELL_TAKEN, "enemy_square", "that cell is already marked")

enum ttt_reason {
#define TTT_REASON_CORE(id, code, text) TTT_R_##id = WR_R_##id,
    WR_CORE_REASONS(TTT_REASON_CORE)
#undef TTT_REASON_CORE
#define TTT_REASON_OWN(id, code, text) TTT_R_##id,
    TTT_REASON_MAP(TTT_REASON_OWN)
#undef TTT_REASON_OWN
    TTT_R_COUNT
};

static const struct wr_reason_info ttt_reason_rows[] = { WR_REASON_ROWS(TTT_REASON_MAP) };
static const struct wr_reason_table ttt_reasons = { ttt_reason_rows, TTT_R_COUNT };

static int ttt_refuse(struct wr_refusal *why, enum ttt_reason r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int ttt_refuse(struct wr_refusal *why, enum ttt_reason r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    wr_vrefuse_in(why, &ttt_reasons, r, fmt, ap);
    va_end(ap);
    return r;
}

static struct wr_game *ttt_create(const json_t *scenario, const json_t *options,
                                  const char *game_id, const uint8_t *seed,
                                  const struct wr_host *host, struct wr_refusal *why)
{
    (void)scenario;
    (void)game_id;
    (void)seed;
    (void)host;
    if (options != NULL && !json_is_object(options)) {
        ttt_refuse(why, TTT_R_BAD_OPTIONS, "options must be an object");
        return NULL;
    }
    struct ttt *t = calloc(1, sizeof *t);
    if (t == NULL) {
        ttt_refuse(why, TTT_R_NO_MEMORY, "out of memory");
        return NULL;
    }
    t->base.rs = &wr_ruleset_tictactoe;
    memset(t->board, '.', 9);
    return &t->base;
}

static void ttt_destroy(struct wr_game *g)
{
    free(g);
}

static const char *const *ttt_seats(const struct wr_game *g)
{
    (void)g;
    return seats;
}

static char line_winner(const char *b)
{
    static const int lines[8][3] = { { 0, 1, 2 }, { 3, 4, 5 }, { 6, 7, 8 }, { 0, 3, 6 },
                                     { 1, 4, 7 }, { 2, 5, 8 }, { 0, 4, 8 }, { 2, 4, 6 } };
    for (int i = 0; i < 8; i++)
        if (b[lines[i][0]] != '.' && b[lines[i][0]] == b[lines[i][1]] &&
            b[lines[i][1]] == b[lines[i][2]])
            return b[lines[i][0]];
    return 0;
}

static const char *ttt_awaited(const struct ttt *t)
{
    if (t->winner)
        return NULL;
    return t->moves % 2 == 0 ? "x" : "o";
}

static int ttt_awaiting(const struct wr_game *g, struct wr_decision *out, int max)
{
    const char *aw = ttt_awaited((const struct ttt *)g);
    if (aw == NULL || max < 1)
        return 0;
    out[0] = (struct wr_decision){ aw, "mark" };
    return 1;
}

int ttt_judge(const char *board, int moves, char winner, const char *seat, const json_t *cmd,
              int *cell, struct wr_refusal *why)
{
    /* 1) game running, 2) this seat's turn, 3) well-formed mark, 4) empty cell */
    if (winner)
        return ttt_refuse(why, TTT_R_GAME_OVER, "the game is over");
    const char *aw = moves % 2 == 0 ? "x" : "o";
    if (seat == NULL || strcmp(seat, aw) != 0)
        return ttt_refuse(why, TTT_R_NOT_YOUR_TURN, "it is %s's turn", aw);
    const char *type = json_string_value(json_object_get(cmd, "type"));
    json_t *jc = json_object_get(cmd, "cell");
    if (!json_is_object(cmd) || type == NULL || strcmp(type, "mark") != 0 ||
        !json_is_integer(jc) || json_object_size(cmd) != 2)
        return ttt_refuse(why, TTT_R_BAD_COMMAND, "a command is {\"type\":\"mark\",\"cell\":0..8}");
    json_int_t c = json_integer_value(jc);
    if (c < 0 || c > 8)
        return ttt_refuse(why, TTT_R_BAD_CELL, "cell must be 0..8");
    if (board[c] != '.')
        return ttt_refuse(why, TTT_R_CELL_TAKEN, "cell %d is taken", (int)c);
    *cell = (int)c;
    return TTT_R_OK;
}

static int ttt_apply(struct wr_game *g, const char *seat, const json_t *cmd, json_t **events,
                     struct wr_refusal *why)
{
    struct ttt *t = (struct ttt *)g;
    *events = NULL;
    int c = 0;         /* set by ttt_judge when it accepts; -O3 cannot tell */
    int r = ttt_judge(t->board, t->moves, t->winner, seat, cmd, &c, why);
    if (r != TTT_R_OK)
        return r;
    /* (built member by member, not by json_pack: one per move, and
     * json_pack parses its format every time) */
    json_t *marked = json_object();
    if (marked == NULL ||
        json_object_set_new_nocheck(marked, "type", json_string_nocheck("marked")) != 0 ||
        json_object_set_new_nocheck(marked, "seat", json_string(seat)) != 0 ||
        json_object_set_new_nocheck(marked, "cell", json_integer(c)) != 0) {
        json_decref(marked);
        return ttt_refuse(why, TTT_R_NO_MEMORY, "out of memory");
    }
    json_t *ev = json_array();
    if (ev == NULL || json_array_append_new(ev, marked) != 0) {   /* (which frees marked) */
        if (ev == NULL)
            json_decref(marked);
        json_decref(ev);
        return ttt_refuse(why, TTT_R_NO_MEMORY, "out of memory");
    }
    t->board[c] = seat[0];
    t->moves++;
    char w = line_winner(t->board);
    if (w || t->moves == 9) {
        t->winner = w ? w : 'd';
        json_array_append_new(ev, json_pack("{s:s, s:s}", "type", "game_over", "winner",
                                            w ? (w == 'x' ? "x" : "o") : "draw"));
    }
    *events = ev;
    return TTT_R_OK;
}

static const char *ttt_result(const struct wr_game *g)
{
    switch (((const struct ttt *)g)->winner) {
    case 'x':
        return "x";
    case 'o':
        return "o";
    case 'd':
        return "draw";
    }
    return NULL;
}

/* A member of the view and the game's value for it: string (NULL: null)
 * or, for "moves", integer. */
struct ttt_member {
    const char *key;
    const char *text;
    int number;
    int is_number;
};

static int ttt_member_same(const json_t *was, const struct ttt_member *m)
{
    if (m->is_number)
        return json_is_integer(was) && json_integer_value(was) == m->number;
    if (m->text == NULL)
        return json_is_null(was);
    return json_is_string(was) && strcmp(json_string_value(was), m->text) == 0;
}

static json_t *ttt_member_value(const struct ttt_member *m)
{
    if (m->is_number)
        return json_integer(m->number);
    return m->text ? json_string(m->text) : json_null();
}

/* The members of tictactoe's one view, as the game's fields give them: the
 * one place that says what the view holds. In the keys' byte order, which
 * is wr_jsonpatch_diff()'s order of a patch's operations. */
enum { TTT_NMEMBERS = 4 };

static void ttt_members(const struct ttt *t, struct ttt_member m[TTT_NMEMBERS])
{
    m[0] = (struct ttt_member){ "board", t->board, 0, 0 };
    m[1] = (struct ttt_member){ "moves", NULL, t->moves, 1 };
    m[2] = (struct ttt_member){ "turn", ttt_awaited(t), 0, 0 };
    m[3] = (struct ttt_member){ "winner", ttt_result(&t->base), 0, 0 };
}

/* The order a projection writes them in (board, turn, winner, moves: the
 * order of the states clients have always been sent). */
static const int ttt_shown[TTT_NMEMBERS] = { 0, 2, 3, 1 };

static json_t *ttt_project(const struct wr_game *g, const char *seat)
{
    (void)seat;     /* nothing is hidden in noughts and crosses */
    struct ttt_member m[TTT_NMEMBERS];
    ttt_members((const struct ttt *)g, m);
    json_t *view = json_object();
    for (int i = 0; view != NULL && i < TTT_NMEMBERS; i++) {
        const struct ttt_member *mi = &m[ttt_shown[i]];
        if (json_object_set_new_nocheck(view, mi->key, ttt_member_value(mi)) != 0) {
            json_decref(view);
            view = NULL;
        }
    }
    return view;
}

/* {"op":"replace","path":"/KEY","value":...} for member m (json_pack's
 * format parsing cost more than the rest of an update). NULL when memory
 * runs out. */
static json_t *ttt_replace(const struct ttt_member *m)
{
    char path[16] = "/";
    size_t n = strlen(m->key);
    memcpy(path + 1, m->key, n + 1);    /* the keys are ours: short */
    json_t *op = json_object();
    if (op == NULL || json_object_set_new_nocheck(op, "op", json_string_nocheck("replace")) ||
        json_object_set_new_nocheck(op, "path", json_stringn_nocheck(path, n + 1)) ||
        json_object_set_new_nocheck(op, "value", ttt_member_value(m))) {
        json_decref(op);
        return NULL;
    }
    return op;
}

/* The view brought up to date (ruleset.h, update_view) from the game's
 * fields, with no projection and no diff: the patch replaces the members
 * (ttt_members) whose value differs, in the keys' order as
 * wr_jsonpatch_diff() would. Every operation is built before the view is touched, so a
 * failure leaves it as it was. */
static json_t *ttt_update_view(const struct wr_game *g, const char *seat, json_t *view)
{
    (void)seat;     /* one view: nothing is hidden */
    struct ttt_member m[TTT_NMEMBERS];
    ttt_members((const struct ttt *)g, m);
    enum { NM = TTT_NMEMBERS };
    json_t *to_view[NM] = { NULL };
    json_t *ops = json_array();
    int ok = ops != NULL && json_is_object(view);
    for (int i = 0; ok && i < NM; i++) {
        json_t *was = json_object_get(view, m[i].key);
        /* the view must hold every member, of a type ttt_project() gives */
        ok = was != NULL && (m[i].is_number ? json_is_integer(was)
                                            : json_is_string(was) || json_is_null(was));
        if (!ok || ttt_member_same(was, &m[i]))
            continue;
        to_view[i] = ttt_member_value(&m[i]);
        ok = to_view[i] != NULL && json_array_append_new(ops, ttt_replace(&m[i])) == 0;
    }
    if (!ok) {
        for (int i = 0; i < NM; i++)
            json_decref(to_view[i]);
        json_decref(ops);
        return NULL;
    }
    for (int i = 0; i < NM; i++)
        if (to_view[i])
            json_object_set_new(view, m[i].key, to_view[i]);
    return ops;
}

/* Every seat sees every event: the events themselves, not a copy (a deep
 * copy of each command's events, twice per command, was 5% of warroomd's
 * instructions under load). */
static json_t *ttt_project_events(const struct wr_game *g, const char *seat,
                                  const json_t *events)
{
    (void)g;
    (void)seat;
    return json_incref((json_t *)events);
}

/* The board holds only '.', 'x' and 'o'; x has as many marks as o or one
 * more, and moves counts them; the recorded outcome is the board's. */
static int ttt_check(const struct wr_game *g, struct wr_refusal *why)
{
    const struct ttt *t = (const struct ttt *)g;
    int nx = 0, no = 0;
    for (int i = 0; i < 9; i++) {
        if (t->board[i] == 'x')
            nx++;
        else if (t->board[i] == 'o')
            no++;
        else if (t->board[i] != '.')
            return ttt_refuse(why, TTT_R_BAD_COMMAND, "cell %d holds '%c'", i, t->board[i]), -1;
    }
    if (t->board[9] != '\0' || nx + no != t->moves || nx - no < 0 || nx - no > 1)
        return ttt_refuse(why, TTT_R_BAD_COMMAND, "%d x and %d o after %d moves", nx, no,
                          t->moves), -1;
    char w = line_winner(t->board);
    char want = w ? w : t->moves == 9 ? 'd' : 0;
    if (t->winner != want)
        return ttt_refuse(why, TTT_R_BAD_COMMAND, "the result is '%c', the board says '%c'",
                          t->winner ? t->winner : '-', want ? want : '-'), -1;
    return 0;
}

/* The random player: a free cell chosen by rng, for the seat to move. */
static json_t *ttt_autoplay(const struct wr_game *g, const char *seat, struct wr_prng *rng)
{
    const struct ttt *t = (const struct ttt *)g;
    const char *aw = ttt_awaited(t);
    if (aw == NULL || seat == NULL || strcmp(seat, aw) != 0)
        return NULL;
    int free_cells[9], n = 0;
    for (int i = 0; i < 9; i++)
        if (t->board[i] == '.')
            free_cells[n++] = i;
    if (n == 0)
        return NULL;    /* a full board has a result: not reached */
    return json_pack("{s:s, s:i}", "type", "mark", "cell", free_cells[wr_prng_below(rng, n)]);
}

/* Saved games (ruleset.h, version 5): {"format":1,"board":"x..o....."}.
 * Everything else (moves, the mover, the result) follows from the board. */
#define TTT_SAVE_FORMAT 1

static json_t *ttt_save(const struct wr_game *g)
{
    return json_pack("{s:i, s:s}", "format", TTT_SAVE_FORMAT, "board",
                     ((const struct ttt *)g)->board);
}

/* 1) format 1 and a board of 9 cells '.', 'x' or 'o', nothing else;
 * 2) ttt_check() on the game it makes; 3) a winner moved last (x after
 * one more mark than o, o after as many) and alone has a line. */
static struct wr_game *ttt_restore(const json_t *saved, const json_t *scenario,
                                   const json_t *options, const char *game_id,
                                   const uint8_t *seed, const struct wr_host *host,
                                   struct wr_refusal *why)
{
    const json_t *f = json_object_get(saved, "format");
    const char *board = json_string_value(json_object_get(saved, "board"));
    if (!json_is_object(saved) || json_object_size(saved) != 2 || !json_is_integer(f) ||
        json_integer_value(f) != TTT_SAVE_FORMAT) {
        ttt_refuse(why, TTT_R_BAD_COMMAND, "a saved game is {\"format\":%d,\"board\":...}",
                   TTT_SAVE_FORMAT);
        return NULL;
    }
    if (board == NULL || json_string_length(json_object_get(saved, "board")) != 9 ||
        strspn(board, ".xo") != 9) {
        ttt_refuse(why, TTT_R_BAD_COMMAND, "board: 9 cells of '.', 'x' or 'o'");
        return NULL;
    }
    struct wr_game *g = ttt_create(scenario, options, game_id, seed, host, why);
    if (g == NULL)
        return NULL;
    struct ttt *t = (struct ttt *)g;
    memcpy(t->board, board, 9);
    for (int i = 0; i < 9; i++)
        t->moves += board[i] != '.';
    char w = line_winner(board);
    t->winner = w ? w : t->moves == 9 ? 'd' : 0;
    int nx = 0;
    for (int i = 0; i < 9; i++)
        nx += board[i] == 'x';
    char other[10];
    memcpy(other, board, 10);
    for (int i = 0; w && i < 9; i++)
        if (other[i] == w)
            other[i] = '.';
    if (ttt_check(g, why) != 0) {
        free(g);
        return NULL;
    }
    if (w && ((w == 'x') != (2 * nx == t->moves + 1) || line_winner(other))) {
        ttt_refuse(why, TTT_R_BAD_COMMAND, "board: %c's line cannot be reached", w);
        free(g);
        return NULL;
    }
    return g;
}

const struct wr_ruleset wr_ruleset_tictactoe = {
    .version = WR_RULESET_VERSION,
    .name = "tictactoe",
    .summary = "noughts and crosses: the protocol's test game and the load benchmarks'",
    .default_seats = seats,
    .hidden_info = 0,
    .options = NULL,
    .default_scenario = NULL,
    .needs_scenario = 0,
    .reasons = &ttt_reasons,
    .create = ttt_create,
    .destroy = ttt_destroy,
    .seats = ttt_seats,
    .apply = ttt_apply,
    .project = ttt_project,
    .project_events = ttt_project_events,
    .awaiting = ttt_awaiting,
    .result = ttt_result,
    .check = ttt_check,
    .autoplay = ttt_autoplay,
    .present = &wr_present_tictactoe,
    .save = ttt_save,
    .restore = ttt_restore,
    .update_view = ttt_update_view,
};
