/*
 * play.c - interactive mode: `warroom play GAME` (your seat) and
 * `warroom watch GAME` (a spectator).
 *
 * Whatever the ruleset, everything about the game comes from its view
 * (view.h, the ruleset's presentation): the screen, redrawn on every patch,
 * every answer and every resize, is, top to bottom,
 *   the picture (draw_text, coloured on a terminal, scrolled by the
 *   player's Shift+arrows and PgUp/PgDn: wr_draw_opts's pan),
 *   a line naming the game, then the decision panel (describe: whose
 *   decision, and what it must be), wrapped with a hanging indent,
 *   the last messages (events of patches, answers, refusals, notes),
 *   the prompt (edit.h: line editing, history, Tab completion of the orders
 *   and of their words).
 * Every line is cut or wrapped to the width less one and counted as the
 * lines it takes; each block has its budget of the rows (layout()), so the
 * screen never scrolls: the picture at least half of them, the messages 2
 * at 24 rows up to 8 at 50, the panel what is left, cut with a line saying
 * `status` shows it whole. A text longer than the messages' room (help,
 * status, board, log, a long answer) is shown in place of the picture and
 * panel, a page at a time (PgUp/PgDn), until Enter on an empty line (or
 * the next line typed, or a move of the game).
 * Ctrl-C clears the line being typed; on an empty line it asks before
 * leaving. Ctrl-D and quit leave at once.
 *
 * A typed line is a JSON object (sent as is) or one of the view's orders: a
 * question is answered here, a command is checked with the rules first
 * (precheck) and, if they refuse it, not sent: the refusal says so.
 * Otherwise it is sent; the server's answer is final and shown. The
 * connection reconnects by itself and says so (client.h).
 *
 * Offline (client.h: from the drop until the reconnection's resync is
 * answered) a command is refused at once, "not connected: nothing sent",
 * and forgotten: nothing typed offline is ever sent later. Questions (help,
 * status, log, the view's own) are answered offline as online. An order
 * already sent when the connection drops, still unanswered, is named then
 * ("may or may not have been applied"); the connection sends it again
 * after the resync with its seq, which the server never applies twice
 * (docs/protocol.md, "command"), and its answer, labelled, says which.
 */
#include "commands.h"

#include <jansson.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"
#include "edit.h"
#include "strbuf.h"

#define MSG_KEEP 64             /* message lines kept */
#define MSG_SHOW 8              /* message lines shown at most (from 50 rows) */
#define MSG_FEW 2               /* message lines shown at 24 rows and fewer */

struct play;

/* An order sent and not yet answered: the answer callback's context, from
 * order() to on_answer() (or to the end of run(): a quit drops answers). */
struct sent {
    struct sent *next;
    struct play *p;
    int64_t seq;
    int lost;                   /* in flight when the connection dropped */
    char line[160];             /* as typed */
};

struct play {
    struct wrc_client cl;
    struct wrc_edit *edit;
    struct wrc_game *g;
    struct wrc_view *w;         /* g's view (the client's) */
    int watching;
    int color;                  /* ANSI colours on the board */
    int screen;                 /* stdout is a terminal: clear and redraw */
    int rows, cols;
    uv_signal_t sig_int, sig_term, sig_winch;
    int signals;
    char *msgs[MSG_KEEP];
    int nmsgs;
    int show_board;             /* not a terminal: print the board at the next draw */
    int quitting;
    int pending;                /* orders sent, not yet answered: the list sent */
    struct sent *sent;
    int quit_when_answered;     /* quit asked for while orders were pending */
    int pan_cols, pan_rows;     /* the player's scrolling of the picture (present.h) */
    int board_rows;             /* the rows the picture had at the last draw */
    char *page;                 /* a long text shown in place of the picture; NULL: none */
    int page_top;               /* its first line on screen */
};

/* --- the screen --------------------------------------------------------------------- */

static void say(struct play *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add_line(struct play *p, const char *text)
{
    if (p->nmsgs == MSG_KEEP) {
        free(p->msgs[0]);
        memmove(p->msgs, p->msgs + 1, sizeof p->msgs[0] * (MSG_KEEP - 1));
        p->nmsgs--;
    }
    p->msgs[p->nmsgs++] = strdup(text);
}

/* Add a message (split at newlines). */
static void say(struct play *p, const char *fmt, ...)
{
    char text[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    char *save = NULL;
    for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
        add_line(p, l);
    if (!p->screen) {           /* a script reading our output: print as we go */
        printf("%s\n", text);
        fflush(stdout);
    }
}

static void terminal_size(struct play *p)
{
    int color;
    wrc_terminal(&p->cols, &p->rows, &color);
}

/* --- fitting the screen ---------------------------------------------------------------- */

/* Each line of text into out within width characters, each ending in
 * "\n": cut (wrap 0), or wrapped at blanks, a continuation indented two
 * more than its line's own indent (a hanging indent). Returns the lines. */
static int fit(const char *text, int width, int wrap, struct wr_strbuf *out)
{
    int lines = 0;
    if (width < 1)
        width = 1;
    for (const char *s = text ? text : ""; *s;) {
        const char *nl = strchr(s, '\n');
        size_t n = nl ? (size_t)(nl - s) : strlen(s);
        size_t own = 0;
        while (own < n && s[own] == ' ')
            own++;
        int hang = (int)own + 2 < width / 2 ? (int)own + 2 : 0;
        for (size_t k = 0, first = 1; first || k < n; first = 0) {
            int room = width - (first ? 0 : hang);
            size_t end = k + wr_text_cut(s + k, n - k, room);
            size_t brk = end, next = end;
            if (!wrap) {
                next = n;
            } else if (end < n) {
                while (brk > k && s[brk] != ' ')
                    brk--;
                if (brk > k)
                    next = brk;
                else
                    brk = end;          /* one word wider than the room: cut it */
            }
            if (!first)
                wr_strbuf_printf(out, "%*s", hang, "");
            wr_strbuf_add(out, s + k, brk - k);
            wr_strbuf_puts(out, memchr(s + k, '\x1b', brk - k) ? "\x1b[0m\n" : "\n");
            lines++;
            k = next;
            while (k < n && s[k] == ' ')
                k++;
        }
        s += n + (nl ? 1 : 0);
    }
    return lines;
}

/* The start of line k of text (lines ending in "\n"); the end of the text
 * when it has fewer. */
static const char *line_at(const char *text, int k)
{
    const char *s = text ? text : "";
    while (k-- > 0 && *s) {
        const char *nl = strchr(s, '\n');
        s = nl ? nl + 1 : s + strlen(s);
    }
    return s;
}

/* Lines first..first+n of text (fitted: each ends in "\n") to the terminal,
 * each ending in "\r\n" (the terminal may be in raw mode); blank lines
 * when the text has fewer. */
static void put_lines(const char *text, int first, int n)
{
    const char *s = line_at(text, first);
    for (int i = 0; i < n; i++) {
        const char *nl = *s ? strchr(s, '\n') : NULL;
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        fwrite(s, 1, len, stdout);
        fputs("\x1b[0m\x1b[K\r\n", stdout);
        s += len + (nl ? 1 : 0);
    }
}

/* The rows of each block: the messages by the height, the picture at
 * least half (the rest is the panel's), one line naming the game and the
 * prompt's. */
struct layout {
    int width;                  /* characters a line may take: cols - 1 */
    int msgs;                   /* message lines */
    int area;                   /* the picture, the game's line and the panel */
    int board_min;              /* the picture's least */
};

static void layout(const struct play *p, struct layout *l)
{
    int rows = p->rows > 4 ? p->rows : 4;
    l->width = p->cols > 11 ? p->cols - 1 : 10;
    l->msgs = rows <= 24 ? MSG_FEW : rows >= 50 ? MSG_SHOW
            : MSG_FEW + (rows - 24) * (MSG_SHOW - MSG_FEW) / (50 - 24);
    if (rows < 12)
        l->msgs = 1;
    l->area = rows - 1 - l->msgs;
    l->board_min = rows / 2;
}

/* The picture with the player's scrolling, rows lines at most. */
static void picture(struct play *p, int rows, int width, int pan_cols, int pan_rows,
                    struct wr_strbuf *out)
{
    struct wr_draw_opts d = { .cols = width, .rows = rows, .color = p->color,
                              .pan_cols = pan_cols, .pan_rows = pan_rows };
    p->w->v->pr->draw_text(p->w->v, &d, out);
}

/* The messages' last lines, fitted. */
static void message_lines(const struct play *p, int width, int n, struct wr_strbuf *out,
                          int *lines)
{
    int first = p->nmsgs;
    int count = 0;
    while (first > 0 && count < n) {
        struct wr_strbuf one;
        wr_strbuf_init(&one);
        count += fit(p->msgs[first - 1], width, 1, &one);
        wr_strbuf_release(&one);
        first--;
    }
    *lines = 0;
    for (int i = first; i < p->nmsgs; i++)
        *lines += fit(p->msgs[i], width, 1, out);
}

static void draw(struct play *p)
{
    if (p->quitting || (!p->screen && !p->show_board))
        return;
    p->show_board = 0;
    struct wr_strbuf pic, st;
    wr_strbuf_init(&pic);
    wr_strbuf_init(&st);
    struct wrc_game *g = p->g;
    if (!p->screen) {
        /* Not a terminal (a script): the board and status after each change. */
        wr_strbuf_printf(&st, "game %s (%s), version %lld, %s; %s%s\n", g->id, g->ruleset,
                         (long long)g->version, g->status, p->watching ? "watching" : "you: ",
                         p->watching ? "" : g->seat);
        p->w->v->pr->describe(p->w->v, &st);
        struct wr_draw_opts d = { .cols = p->cols, .rows = p->rows > 20 ? p->rows - 10 : 10 };
        p->w->v->pr->draw_text(p->w->v, &d, &pic);
        printf("%s%s", pic.s ? pic.s : "", st.s ? st.s : "");
        fflush(stdout);
        wr_strbuf_release(&pic);
        wr_strbuf_release(&st);
        return;
    }
    struct layout l;
    layout(p, &l);
    struct wr_strbuf head, panel, msgs;
    wr_strbuf_init(&head);
    wr_strbuf_init(&panel);
    wr_strbuf_init(&msgs);
    /* the game's line */
    wr_strbuf_printf(&st, "game %s (%s), version %lld, %s; %s%s", g->id, g->ruleset,
                     (long long)g->version, g->status, p->watching ? "watching" : "you: ",
                     p->watching ? "" : g->seat);
    fit(st.s, l.width, 0, &head);
    wr_strbuf_release(&st);
    fputs("\x1b[H\x1b[2J", stdout);
    int used;
    if (p->page) {
        /* a long text in place of the picture and the panel */
        struct wr_strbuf text;
        wr_strbuf_init(&text);
        int total = fit(p->page, l.width, 1, &text);
        int room = l.area - 1 > 1 ? l.area - 1 : 1;
        if (p->page_top > total - room)
            p->page_top = total - room > 0 ? total - room : 0;
        put_lines(text.s, p->page_top, room);
        char foot[160];
        snprintf(foot, sizeof foot, "-- lines %d-%d of %d; PgUp/PgDn scroll, Enter: back to "
                 "the board --", p->page_top + 1, p->page_top + room < total ?
                 p->page_top + room : total, total);
        wr_strbuf_init(&st);
        fit(foot, l.width, 0, &st);
        if (p->color)
            fputs("\x1b[7m", stdout);
        put_lines(st.s, 0, 1);
        wr_strbuf_release(&st);
        wr_strbuf_release(&text);
        used = room + 1;
    } else {
        /* the panel, wrapped: the picture gets the rows it leaves, at
         * least half the screen; the panel the rows the picture leaves */
        p->w->v->pr->describe(p->w->v, &st);
        int need = fit(st.s, l.width, 1, &panel);
        wr_strbuf_release(&st);
        int brows = l.area - 1 - need;
        if (brows < l.board_min)
            brows = l.board_min;
        if (brows > l.area - 1)
            brows = l.area - 1;
        p->board_rows = brows;
        picture(p, brows, l.width, p->pan_cols, p->pan_rows, &st);
        int blines = fit(st.s, l.width, 0, &pic);       /* cut: never wider */
        if (blines > brows)
            blines = brows;
        wr_strbuf_release(&st);
        put_lines(pic.s, 0, blines);
        if (p->color)
            fputs("\x1b[7m", stdout);       /* the game's line in reverse video */
        put_lines(head.s, 0, 1);
        int prows = l.area - blines - 1;
        if (need <= prows) {
            put_lines(panel.s, 0, need);
            used = blines + 1 + need;
        } else if (prows > 0) {
            put_lines(panel.s, 0, prows - 1);
            wr_strbuf_init(&st);
            fit("  ... (status: the whole panel)", l.width, 0, &st);
            put_lines(st.s, 0, 1);
            wr_strbuf_release(&st);
            used = blines + 1 + prows;
        } else {
            used = blines + 1;
        }
    }
    /* the messages at the bottom, right above the prompt */
    int mlines;
    message_lines(p, l.width, l.msgs, &msgs, &mlines);
    int shown = mlines < l.msgs ? mlines : l.msgs;
    if (used < l.area + l.msgs - shown)
        put_lines("", 0, l.area + l.msgs - shown - used);
    put_lines(msgs.s, mlines - shown, shown);
    fflush(stdout);
    wr_strbuf_release(&pic);
    wr_strbuf_release(&head);
    wr_strbuf_release(&panel);
    wr_strbuf_release(&msgs);
    if (p->edit)
        wrc_edit_redraw(p->edit);
}

/* A text the player asked for (help, status, an answer): in the messages
 * when it fits them, else on a page of its own (title names it). */
static void show(struct play *p, const char *title, const char *text)
{
    struct layout l;
    layout(p, &l);
    struct wr_strbuf b;
    wr_strbuf_init(&b);
    int n = fit(text, l.width, 1, &b);
    wr_strbuf_release(&b);
    if (!p->screen || n <= l.msgs - 1) {
        say(p, "%s", text);
        return;
    }
    free(p->page);
    p->page = strdup(text);
    p->page_top = 0;
    say(p, "(%s: above; PgDn/PgUp scroll, Enter: back to the board)", title);
}

/* --- answers and updates ----------------------------------------------------------------- */

static void quit(struct play *p, int force);

static void on_answer(void *ctx, const json_t *a, int err)
{
    struct sent *o = ctx;
    struct play *p = o->p;
    for (struct sent **q = &p->sent; *q; q = &(*q)->next)
        if (*q == o) {
            *q = o->next;
            break;
        }
    p->pending--;
    int lost = o->lost;
    if (lost)                   /* named when the connection dropped: say which it was */
        say(p, "\"%s\" (in flight when the connection dropped):", o->line);
    free(o);
    const char *type = json_string_value(json_object_get(a, "type"));
    if (a == NULL && lost && err == WRC_CONN_ETIMEOUT)
        say(p, "no answer in time: it is not sent again;\n  once online, the board and the "
            "log show whether it was applied");
    else if (a == NULL)
        say(p, err == WRC_CONN_ETIMEOUT ? "no answer from the server in time (it may still "
            "arrive: the command is safe to send again)" : "the connection is gone");
    else if (type && strcmp(type, "ack") == 0) {
        /* the patch came first: the view shows what the game waits for now */
        struct wr_strbuf b;
        wr_strbuf_init(&b);
        wrc_view_headline(p->w->v, &b);
        say(p, "accepted: the game is at version %lld; now: %s",
            (long long)json_integer_value(json_object_get(a, "version")), b.s ? b.s : "");
        wr_strbuf_release(&b);
    }
    else
        say(p, "refused by the server: %s: %s", json_string_value(json_object_get(a, "code")),
            json_string_value(json_object_get(a, "message")));
    draw(p);
    if (p->quit_when_answered && p->pending == 0)
        quit(p, 1);
}

/* " (by SEAT)" for a log entry of another seat's command (every entry, for
 * a spectator), "" for one's own: who did what, in team games too. Static
 * storage, valid until the next call. */
static const char *by_note(const struct wrc_game *g, const json_t *entry)
{
    static char note[80];
    const char *by = json_string_value(json_object_get(entry, "by"));
    if (by == NULL || by[0] == '\0' || strcmp(by, g->seat) == 0)
        return "";
    snprintf(note, sizeof note, " (by %.64s)", by);
    return note;
}

static void on_change(void *ctx, struct wrc_game *g, int what)
{
    struct play *p = ctx;
    if (g != p->g)
        return;
    if (what == WRC_TRACK_PATCH) {
        /* the game moved: the board again, in place of a page */
        free(p->page);
        p->page = NULL;
        /* the events of this patch: the log's entries at its version */
        size_t n = json_array_size(g->log);
        size_t i = n;
        while (i > 0 && json_integer_value(json_object_get(json_array_get(g->log, i - 1),
                                                           "version")) == g->version)
            i--;
        for (; i < n; i++) {
            struct wr_strbuf b;
            wr_strbuf_init(&b);
            const json_t *e = json_array_get(g->log, i);
            p->w->v->pr->event(p->w->v, json_object_get(e, "event"), &b);
            if (b.s)
                say(p, "  * %s%s", b.s, by_note(g, e));
            wr_strbuf_release(&b);
        }
    }
    p->show_board = 1;
    draw(p);
}

static void on_note(void *ctx, const char *text)
{
    struct play *p = ctx;
    say(p, "%s", text);
    draw(p);
}

/* Offline (up 0): name the orders in flight, which the connection sends
 * again after the resync (client.h). Online again (up 1): say so. */
static void on_link(void *ctx, int up)
{
    struct play *p = ctx;
    if (up) {
        say(p, p->watching ? "online again" : "online again: orders typed now are sent");
    } else {
        for (struct sent *o = p->sent; o; o = o->next) {
            if (o->lost)
                continue;
            o->lost = 1;
            say(p, "connection lost while \"%s\" was unanswered: it may or may not have been "
                "applied;\n  it is sent again once online, numbered %lld as before (the server "
                "never applies one number twice)", o->line, (long long)o->seq);
        }
    }
    draw(p);
}

/* --- commands ------------------------------------------------------------------------------ */

static const char *const own_words[] = { "help", "status", "log", "board", "quit", NULL };

static void help(struct play *p, const char *order)
{
    struct wr_strbuf b;
    wr_strbuf_init(&b);
    if (order[0]) {             /* help ORDER: that order alone */
        wrc_view_help(p->w->v, order, &b);
        show(p, "help", b.s ? b.s : "");
        wr_strbuf_release(&b);
        return;
    }
    wr_strbuf_puts(&b, "orders:\n");
    wrc_view_help(p->w->v, NULL, &b);
    wr_strbuf_puts(&b, "tools:  status | log [N] | help | quit | board (the whole picture and "
                       "its key)\n"
                       "Tab completes orders and their words; arrows recall earlier lines; "
                       "Shift+arrows and PgUp/PgDn scroll the board; Ctrl-C clears the line.\n");
    show(p, "help", b.s ? b.s : "");
    wr_strbuf_release(&b);
}

/* The whole picture with its key, as wide as the screen, on a page. */
static void board(struct play *p)
{
    struct layout l;
    layout(p, &l);
    struct wr_strbuf b;
    wr_strbuf_init(&b);
    struct wr_draw_opts d = { .cols = l.width, .rows = 0, .pan_cols = p->pan_cols,
                              .pan_rows = p->pan_rows };
    p->w->v->pr->draw_text(p->w->v, &d, &b);
    show(p, "board", b.s ? b.s : "");
    wr_strbuf_release(&b);
}

static void cmd_log(struct play *p, const char *args)
{
    int n = atoi(args);
    if (n <= 0)
        n = MSG_SHOW - 1;
    size_t total = json_array_size(p->g->log);
    size_t from = total > (size_t)n ? total - (size_t)n : 0;
    if (total == 0)
        say(p, "no events since you joined (warroom export %s has the whole game)", p->g->id);
    struct wr_strbuf all;
    wr_strbuf_init(&all);
    for (size_t i = from; i < total; i++) {
        json_t *e = json_array_get(p->g->log, i);
        struct wr_strbuf b;
        wr_strbuf_init(&b);
        p->w->v->pr->event(p->w->v, json_object_get(e, "event"), &b);
        wr_strbuf_printf(&all, "v%lld %s%s\n",
                         (long long)json_integer_value(json_object_get(e, "version")),
                         b.s ? b.s : "", by_note(p->g, e));
        wr_strbuf_release(&b);
    }
    if (all.s)
        show(p, "log", all.s);
    wr_strbuf_release(&all);
}

/* A line for the game: a question answered here, or a command checked
 * here, then sent. */
static void order(struct play *p, const char *line)
{
    char err[512];
    json_t *cmd = NULL;
    struct wr_strbuf out;
    struct wr_refusal why;
    wr_strbuf_init(&out);
    enum wr_order_kind k = wrc_view_line(p->w->v, line, &cmd, &out, &why);
    if (k != WR_ORDER_COMMAND) {
        if (k == WR_ORDER_ANSWER)
            show(p, "the answer", out.s ? out.s : "");
        else
            say(p, "%s (help lists the orders)", why.message);
        wr_strbuf_release(&out);
        return;
    }
    wr_strbuf_release(&out);
    if (p->watching) {
        say(p, "you are watching: spectators cannot act");
        json_decref(cmd);
        return;
    }
    if (!wrc_client_online(&p->cl)) {
        /* Never queued: the board may be stale, and an order sent later,
         * unseen, could spend a move the player has since given up on. */
        say(p, "not connected: nothing sent (%s)", p->cl.dead ?
            "the connection is gone for good: quit, and play again later" :
            "reconnecting...; type it again once online");
        json_decref(cmd);
        return;
    }
    if (p->w->v->pr->precheck(p->w->v, cmd, &why) < 0) {
        say(p, "refused (checked here, not sent): %s: %s", why.code, why.message);
        json_decref(cmd);
        return;
    }
    int64_t seq;
    if (wrc_config_next_seq(&p->cl.cfg, p->g->id, &seq, err, sizeof err) != 0) {
        say(p, "%s", err);
        json_decref(cmd);
        return;
    }
    struct sent *o = calloc(1, sizeof *o);
    if (o == NULL) {
        say(p, "not sent: out of memory");
        json_decref(cmd);
        return;
    }
    o->p = p;
    o->seq = seq;
    snprintf(o->line, sizeof o->line, "%s", line);
    json_t *msg = json_pack("{s:s, s:s, s:I, s:o}", "type", "command", "game", p->g->id, "seq",
                            (json_int_t)seq, "cmd", cmd);
    if (wrc_client_send(&p->cl, msg, on_answer, o) != 0) {
        say(p, "not sent: the connection is gone");
        free(o);
        return;
    }
    o->next = p->sent;
    p->sent = o;
    p->pending++;
}

static void on_line(void *ctx, const char *line)
{
    struct play *p = ctx;
    if (line == NULL) {
        quit(p, 0);
        return;
    }
    while (*line == ' ' || *line == '\t')
        line++;
    /* Enter on an empty line, or any line: the page, if any, goes */
    free(p->page);
    p->page = NULL;
    if (*line == '\0') {
        draw(p);
        return;
    }
    char verb[32];
    size_t n = strcspn(line, " \t");
    snprintf(verb, sizeof verb, "%.*s", (int)(n < sizeof verb ? n : sizeof verb - 1), line);
    const char *args = line + n;
    while (*args == ' ' || *args == '\t')
        args++;
    say(p, "> %s", line);
    if (strcmp(verb, "quit") == 0 || strcmp(verb, "exit") == 0) {
        quit(p, 0);
        return;
    }
    if (strcmp(verb, "help") == 0) {
        help(p, args);
    } else if (strcmp(verb, "status") == 0) {
        struct wr_strbuf b;
        wr_strbuf_init(&b);
        p->w->v->pr->describe(p->w->v, &b);
        show(p, "status", b.s ? b.s : "");
        wr_strbuf_release(&b);
    } else if (strcmp(verb, "log") == 0) {
        cmd_log(p, args);
    } else if (strcmp(verb, "board") == 0) {
        board(p);
    } else {
        order(p, line);
        if (strcmp(verb, "view") == 0)
            p->pan_cols = p->pan_rows = 0;      /* a new centre: the scrolling starts again */
    }
    draw(p);
}

/* --- keys ---------------------------------------------------------------------------------- */

/* Shift+arrows scroll the picture a square, PgUp/PgDn half its rows (or a
 * page shown, a page). A scroll that changes nothing (the picture is at
 * its edge) is taken back, so the other way moves at once. */
static void on_key(void *ctx, enum wrc_key key)
{
    struct play *p = ctx;
    if (p->page) {
        struct layout l;
        layout(p, &l);
        int step = l.area - 2 > 1 ? l.area - 2 : 1;
        if (key == WRC_KEY_PAGE_DOWN || key == WRC_KEY_SHIFT_DOWN)
            p->page_top += key == WRC_KEY_PAGE_DOWN ? step : 1;
        else if (key == WRC_KEY_PAGE_UP || key == WRC_KEY_SHIFT_UP)
            p->page_top -= key == WRC_KEY_PAGE_UP ? step : 1;
        if (p->page_top < 0)
            p->page_top = 0;
        draw(p);
        return;
    }
    int half = p->board_rows / 2 > 1 ? p->board_rows / 2 : 1;
    static const struct { enum wrc_key key; int dc, dr; } steps[] = {
        { WRC_KEY_SHIFT_UP, 0, -1 }, { WRC_KEY_SHIFT_DOWN, 0, 1 },
        { WRC_KEY_SHIFT_LEFT, -1, 0 }, { WRC_KEY_SHIFT_RIGHT, 1, 0 },
        { WRC_KEY_PAGE_UP, 0, -2 }, { WRC_KEY_PAGE_DOWN, 0, 2 },
    };
    int dc = 0, dr = 0;
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
        if (steps[i].key == key) {
            dc = steps[i].dc;
            dr = steps[i].dr == 2 || steps[i].dr == -2 ? steps[i].dr / 2 * half : steps[i].dr;
        }
    if (!p->screen || (dc == 0 && dr == 0))
        return;
    struct layout l;
    layout(p, &l);
    struct wr_strbuf before, after;
    wr_strbuf_init(&before);
    wr_strbuf_init(&after);
    picture(p, p->board_rows, l.width, p->pan_cols, p->pan_rows, &before);
    picture(p, p->board_rows, l.width, p->pan_cols + dc, p->pan_rows + dr, &after);
    int moved = before.len != after.len ||
                (before.s && after.s && memcmp(before.s, after.s, before.len) != 0);
    wr_strbuf_release(&before);
    wr_strbuf_release(&after);
    if (!moved)
        return;                 /* at the edge: nothing to show further */
    p->pan_cols += dc;
    p->pan_rows += dr;
    draw(p);
}

/* --- completion ---------------------------------------------------------------------------- */

static void add_cand(void *ctx, const char *cand)
{
    wrc_cands_add(ctx, cand);
}

static void complete(void *ctx, char *const *words, int nwords, const char *word,
                     struct wrc_cands *out)
{
    struct play *p = ctx;
    wrc_view_complete(p->w->v, own_words, (const char *const *)words, nwords, word, add_cand,
                      out);
}

/* A second Tab's matches: in the messages, or on a page when many. */
static void on_list(void *ctx, const char *text)
{
    struct play *p = ctx;
    show(p, "the matches", text);
    draw(p);
}

/* --- life cycle -------------------------------------------------------------------------------- */

static void signal_closed(uv_handle_t *h)
{
    (void)h;
}

/* Leave: at once when force is set (a signal), else once the orders sent
 * have their answers (each has a time-out), reading no more input. */
static void quit(struct play *p, int force)
{
    if (p->quitting)
        return;
    if (p->edit)
        wrc_edit_close(p->edit);
    p->edit = NULL;
    if (!force && p->pending > 0) {
        p->quit_when_answered = 1;
        return;
    }
    p->quitting = 1;
    if (p->signals) {
        uv_close((uv_handle_t *)&p->sig_int, signal_closed);
        uv_close((uv_handle_t *)&p->sig_term, signal_closed);
        uv_close((uv_handle_t *)&p->sig_winch, signal_closed);
        p->signals = 0;
    }
    if (p->cl.conn)
        wrc_conn_close(p->cl.conn);
}

static void on_leave_answer(void *ctx, int key)
{
    struct play *p = ctx;
    if (key == 'y' || key == 'Y' || key < 0) {
        quit(p, 0);
        return;
    }
    say(p, p->watching ? "still watching" : "still playing");
    draw(p);
}

static void on_signal(uv_signal_t *s, int signum)
{
    struct play *p = s->data;
    if (signum == SIGWINCH) {
        terminal_size(p);
        if (p->edit)
            wrc_edit_resize(p->edit);
        draw(p);
        return;
    }
    if (signum == SIGINT && p->edit && wrc_edit_is_tty(p->edit)) {
        /* Ctrl-C: the line typed goes; on an empty line, leave if the
         * player says so */
        if (!wrc_edit_clear_line(p->edit))
            wrc_edit_ask(p->edit, "leave? (y/n) ", on_leave_answer);
        draw(p);
        return;
    }
    quit(p, 1);
}

static int run(const struct wrc_opts *go, int argc, char **argv, int watching)
{
    const char *cmd = watching ? "watch" : "play";
    struct wrc_opts o = *go;
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: warroom %s GAME\n%s\nAt the prompt, help lists the commands.\n", cmd,
               watching ? "Watch a game: its board, redrawn on every move."
                        : "Play your seat of a game: its board, redrawn on every move; orders "
                          "checked with the rules before they are sent.");
        return 0;
    }
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: warroom %s GAME\n", cmd);
        return WRC_EXIT_USAGE;
    }
    const char *id = argv[1];
    struct play *p = calloc(1, sizeof *p);
    if (p == NULL)
        return WRC_EXIT_REFUSED;
    p->watching = watching;
    int rc;
    if ((rc = wrc_client_init(&p->cl, &o, id)) != 0 ||
        (rc = wrc_client_connect(&p->cl, 1)) != 0)
        goto out;
    if (!watching && !json_object_get(wrc_config_game(&p->cl.cfg, id), "token")) {
        fprintf(stderr, "warroom play: you hold no seat in game %s (claim an invite first, or "
                "watch it: warroom watch %s)\n", id, id);
        rc = WRC_EXIT_REFUSED;
        goto out;
    }
    if ((p->g = wrc_client_join(&p->cl, id, watching, &rc)) == NULL)
        goto out;
    if ((p->w = wrc_client_view(&p->cl, p->g)) == NULL) {
        rc = WRC_EXIT_REFUSED;
        goto out;
    }
    setlocale(LC_CTYPE, "");    /* line editing of UTF-8 text */
    p->screen = isatty(STDOUT_FILENO);
    p->color = p->screen && getenv("NO_COLOR") == NULL;
    terminal_size(p);
    p->cl.on_change = on_change;
    p->cl.on_note = on_note;
    p->cl.on_link = on_link;
    p->cl.ctx = p;
    char history[1200];
    snprintf(history, sizeof history, "%s/history", p->cl.cfg.dir);
    static const struct wrc_edit_hooks hooks = { on_line, complete, on_key, on_list };
    char prompt[64];
    snprintf(prompt, sizeof prompt, "%s> ", watching ? "watch" : p->g->seat);
    p->edit = wrc_edit_new(&p->cl.loop, prompt, history, &hooks, p);
    if (p->edit == NULL) {
        fprintf(stderr, "warroom %s: cannot read the terminal\n", cmd);
        rc = WRC_EXIT_REFUSED;
        goto out;
    }
    uv_signal_init(&p->cl.loop, &p->sig_int);
    uv_signal_init(&p->cl.loop, &p->sig_term);
    uv_signal_init(&p->cl.loop, &p->sig_winch);
    p->sig_int.data = p->sig_term.data = p->sig_winch.data = p;
    uv_signal_start(&p->sig_int, on_signal, SIGINT);
    uv_signal_start(&p->sig_term, on_signal, SIGTERM);
    uv_signal_start(&p->sig_winch, on_signal, SIGWINCH);
    p->signals = 1;
    say(p, "%s game %s on %s; help lists the commands, Tab completes, quit leaves",
        watching ? "watching" : "playing", id, p->cl.url.text);
    p->show_board = 1;
    draw(p);
    uv_run(&p->cl.loop, UV_RUN_DEFAULT);        /* until quit */
    rc = 0;
out:
    quit(p, 1);
    wrc_client_release(&p->cl);         /* drops the open requests without callbacks */
    while (p->sent) {
        struct sent *s = p->sent;
        p->sent = s->next;
        free(s);
    }
    for (int i = 0; i < p->nmsgs; i++)
        free(p->msgs[i]);
    free(p->page);
    free(p);
    return rc;
}

int wrc_cmd_play(const struct wrc_opts *o, int argc, char **argv)
{
    return run(o, argc, argv, 0);
}

int wrc_cmd_watch(const struct wrc_opts *o, int argc, char **argv)
{
    return run(o, argc, argv, 1);
}
