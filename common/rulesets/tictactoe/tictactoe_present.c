/*
 * tictactoe_present.c - what a client shows of a noughts and crosses game
 * and reads from its player (present.h): the 3x3 grid as text or SVG, the
 * order "mark N", the free cells as completions, and the check of a mark
 * with the judge the rules use (tictactoe.h).
 *
 * The view keeps the board as the state says it ({"board":"x..o.....",
 * "turn","winner","moves"}) and the state itself, whose "server" section
 * says whether the game has started and who is awaited.
 */
#include "tictactoe.h"

#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ttt_view {
    struct wr_view base;        /* first: the presentation interface's view */
    char board[10];             /* '.', 'x', 'o'; NUL-terminated */
    int moves;
    char winner;                /* 0 running, 'x', 'o' or 'd' (draw) */
    json_t *state;              /* owned: the last state taken, or NULL */
};

static const struct wr_order ttt_orders[] = {
    { "mark", "mark N", "Mark cell N (0 to 8, row by row from the top left) with your sign; "
      "the cell must be free and it must be your turn.", "mark 4", 0, NULL },
    { NULL, NULL, NULL, NULL, 0, NULL },
};

static struct wr_view *ttt_open(const struct wr_ruleset *rs, const json_t *scenario,
                                const json_t *options, const char *seat,
                                const struct wr_host *host, struct wr_refusal *why)
{
    (void)scenario;             /* noughts and crosses needs none */
    (void)options;
    (void)host;
    struct ttt_view *t = calloc(1, sizeof *t);
    if (t == NULL) {
        wr_refuse(why, WR_R_NO_MEMORY, "out of memory");
        return NULL;
    }
    wr_view_init(&t->base, rs, seat);
    memset(t->board, '.', 9);
    return &t->base;
}

static void ttt_close(struct wr_view *v)
{
    struct ttt_view *t = (struct ttt_view *)v;
    json_decref(t->state);
    free(t);
}

static int ttt_update(struct wr_view *v, const json_t *state, struct wr_refusal *why)
{
    struct ttt_view *t = (struct ttt_view *)v;
    const char *board = json_string_value(json_object_get(state, "board"));
    const char *winner = json_string_value(json_object_get(state, "winner"));
    json_t *moves = json_object_get(state, "moves");
    int nx = 0, no = 0;
    for (int i = 0; board && i < 9 && board[i]; i++) {
        nx += board[i] == 'x';
        no += board[i] == 'o';
        if (board[i] != 'x' && board[i] != 'o' && board[i] != '.')
            board = NULL;
    }
    if (board == NULL || strlen(board) != 9 || !json_is_integer(moves) ||
        json_integer_value(moves) != nx + no) {
        wr_refuse(why, WR_R_BAD_COMMAND, "not a noughts and crosses state: it needs a board "
                  "of 9 cells ('.', 'x', 'o') and the number of moves made");
        return -1;
    }
    json_t *copy = json_deep_copy(state);
    if (copy == NULL) {
        wr_refuse(why, WR_R_NO_MEMORY, "out of memory");
        return -1;
    }
    json_decref(t->state);
    t->state = copy;
    memcpy(t->board, board, 9);
    t->moves = nx + no;
    t->winner = winner == NULL ? 0 : strcmp(winner, "draw") == 0 ? 'd' : winner[0];
    v->has_state = 1;
    return 0;
}

/* Is the game running as the server says (no server section: as the
 * board says)? */
static int running(const struct ttt_view *t)
{
    const char *status = json_string_value(
        json_object_get(json_object_get(t->state, "server"), "status"));
    return status ? strcmp(status, "running") == 0 : t->winner == 0;
}

static const char *to_move(const struct ttt_view *t)
{
    return t->moves % 2 == 0 ? "x" : "o";
}

static void free_cells(const struct ttt_view *t, struct wr_strbuf *out)
{
    for (int i = 0, n = 0; i < 9; i++)
        if (t->board[i] == '.')
            wr_strbuf_printf(out, "%s%d", n++ ? ", " : "", i);
}

static void ttt_describe(const struct wr_view *v, struct wr_strbuf *out)
{
    const struct ttt_view *t = (const struct ttt_view *)v;
    if (!v->has_state) {
        wr_strbuf_puts(out, "no state yet\n");
        return;
    }
    const json_t *srv = json_object_get(t->state, "server");
    if (t->winner == 'd') {
        wr_strbuf_printf(out, "move %d: a draw\n", t->moves);
    } else if (t->winner) {
        wr_strbuf_printf(out, "move %d: %c wins\n", t->moves, t->winner);
    } else if (srv && !running(t)) {
        wr_strbuf_printf(out, "move %d: ", t->moves);
        wr_state_waiting_line(t->state, out);
        wr_strbuf_puts(out, "\n");
    } else {
        int mine = strcmp(v->seat, to_move(t)) == 0;
        wr_strbuf_printf(out, "move %d: awaiting %s (mark)%s\n", t->moves, to_move(t),
                         mine ? "  <- your decision" : "");
        if (mine) {
            wr_strbuf_puts(out, "Your decision: mark a free cell (");
            free_cells(t, out);
            wr_strbuf_puts(out, ") with mark N, e.g. mark ");
            wr_strbuf_printf(out, "%d\n", (int)(strchr(t->board, '.') - t->board));
        }
    }
}

static void ttt_event(const struct wr_view *v, const json_t *e, struct wr_strbuf *out)
{
    (void)v;
    const char *type = json_string_value(json_object_get(e, "type"));
    const char *seat = json_string_value(json_object_get(e, "seat"));
    const char *winner = json_string_value(json_object_get(e, "winner"));
    if (type && strcmp(type, "marked") == 0 && seat) {
        wr_strbuf_printf(out, "%s marked cell %d", seat,
                         (int)json_integer_value(json_object_get(e, "cell")));
    } else if (type && strcmp(type, "game_over") == 0 && winner) {
        wr_strbuf_printf(out, "game over: %s", strcmp(winner, "draw") == 0 ? "a draw" : winner);
        if (strcmp(winner, "draw") != 0)
            wr_strbuf_puts(out, " wins");
    } else {
        char *s = json_dumps(e, JSON_COMPACT | JSON_SORT_KEYS);
        wr_strbuf_puts(out, s ? s : "(an event)");
        free(s);
    }
}

static enum wr_order_kind ttt_order(struct wr_view *v, const char *line, json_t **cmd,
                                    struct wr_strbuf *out, struct wr_refusal *why)
{
    (void)v;
    (void)out;
    char word[16];
    long n = -1;
    int used = 0;
    *cmd = NULL;
    /* "mark N": N a number (the rules judge its range, as the server would) */
    if (sscanf(line, " %15s %ld %n", word, &n, &used) == 2 && strcmp(word, "mark") == 0 &&
        line[used] == '\0' && n >= -1000 && n <= 1000) {
        *cmd = json_pack("{s:s, s:I}", "type", "mark", "cell", (json_int_t)n);
        if (*cmd == NULL) {
            wr_refuse(why, WR_R_NO_MEMORY, "out of memory");
            return WR_ORDER_ERROR;
        }
        return WR_ORDER_COMMAND;
    }
    while (isspace((unsigned char)*line))
        line++;
    wr_refuse(why, WR_R_BAD_COMMAND, "'%.40s' is not an order: mark N (N a cell, 0 to 8, row "
              "by row from the top left), e.g. mark 4", line);
    return WR_ORDER_ERROR;
}

static int ttt_precheck(struct wr_view *v, const json_t *cmd, struct wr_refusal *why)
{
    struct ttt_view *t = (struct ttt_view *)v;
    if (!v->has_state || v->seat[0] == '\0' || (!running(t) && t->winner == 0))
        return 0;               /* not started, lost on time, a spectator: the server says */
    int cell;
    return ttt_judge(t->board, t->moves, t->winner, v->seat[0] ? v->seat : NULL, cmd, &cell,
                     why) == 0 ? 1 : -1;
}

static void ttt_complete(const struct wr_view *v, const char *const *words, int nwords,
                         const char *word, void (*add)(void *ctx, const char *cand), void *ctx)
{
    const struct ttt_view *t = (const struct ttt_view *)v;
    if (nwords != 1 || strcmp(words[0], "mark") != 0)
        return;
    for (int i = 0; i < 9; i++) {
        char c[2] = { (char)('0' + i), '\0' };
        if (t->board[i] == '.' && strncmp(c, word, strlen(word)) == 0)
            add(ctx, c);
    }
}

/* The grid: free cells show their number (dim), x in red, o in blue. */
static int ttt_draw_text(const struct wr_view *v, const struct wr_draw_opts *o,
                         struct wr_strbuf *out)
{
    const struct ttt_view *t = (const struct ttt_view *)v;
    int color = o && o->color;
    for (int r = 0; r < 3; r++) {
        wr_strbuf_puts(out, "   ");
        for (int c = 0; c < 3; c++) {
            char ch = t->board[3 * r + c];
            if (ch == '.') {
                wr_strbuf_printf(out, " %s%d%s ", color ? "\x1b[2m" : "", 3 * r + c,
                                 color ? "\x1b[0m" : "");
            } else {
                const char *on = !color ? "" : ch == 'x' ? "\x1b[1;31m" : "\x1b[1;34m";
                wr_strbuf_printf(out, " %s%c%s ", on, ch, color ? "\x1b[0m" : "");
            }
            wr_strbuf_puts(out, c < 2 ? "|" : "\n");
        }
        if (r < 2)
            wr_strbuf_puts(out, "   ---+---+---\n");
    }
    return out->failed ? -1 : 0;
}

static int ttt_draw_svg(const struct wr_view *v, struct wr_strbuf *out)
{
    const struct ttt_view *t = (const struct ttt_view *)v;
    wr_strbuf_puts(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"200\" height=\"200\" "
                   "viewBox=\"0 0 200 200\">\n"
                   "<rect width=\"200\" height=\"200\" fill=\"#ffffff\"/>\n");
    for (int k = 1; k < 3; k++)
        wr_strbuf_printf(out, "<line x1=\"%d\" y1=\"10\" x2=\"%d\" y2=\"190\" stroke=\"#000\" "
                         "stroke-width=\"3\"/>\n<line x1=\"10\" y1=\"%d\" x2=\"190\" y2=\"%d\" "
                         "stroke=\"#000\" stroke-width=\"3\"/>\n", 10 + 60 * k, 10 + 60 * k,
                         10 + 60 * k, 10 + 60 * k);
    for (int i = 0; i < 9; i++) {
        int x = 40 + 60 * (i % 3), y = 40 + 60 * (i / 3);
        char ch = t->board[i];
        /* the cell, named as mark takes it (present.h: data-word) */
        wr_strbuf_printf(out, "<g class=\"cell\" data-word=\"%d\"><rect x=\"%d\" y=\"%d\" "
                         "width=\"56\" height=\"56\" fill=\"#fff\" fill-opacity=\"0\"/>",
                         i, x - 28, y - 28);
        if (ch == '.')
            wr_strbuf_printf(out, "<text x=\"%d\" y=\"%d\" font-family=\"sans-serif\" "
                             "font-size=\"14\" fill=\"#999\" text-anchor=\"middle\">%d</text>"
                             "</g>\n",
                             x, y + 5, i);
        else
            wr_strbuf_printf(out, "<text x=\"%d\" y=\"%d\" font-family=\"sans-serif\" "
                             "font-size=\"40\" font-weight=\"bold\" fill=\"%s\" "
                             "text-anchor=\"middle\"><title>cell %d: %c</title>%c</text></g>\n",
                             x, y + 14, ch == 'x' ? "#d62728" : "#1f77b4", i, ch, ch);
    }
    wr_strbuf_puts(out, "</svg>\n");
    return out->failed ? -1 : 0;
}

const struct wr_present wr_present_tictactoe = {
    .version = WR_PRESENT_VERSION,
    .orders = ttt_orders,
    .open = ttt_open,
    .close = ttt_close,
    .update = ttt_update,
    .describe = ttt_describe,
    .event = ttt_event,
    .order = ttt_order,
    .precheck = ttt_precheck,
    .complete = ttt_complete,
    .draw_text = ttt_draw_text,
    .draw_svg = ttt_draw_svg,
};
