/*
 * play.c - interactive mode: `warroom play GAME` (your seat) and
 * `warroom watch GAME` (a spectator).
 *
 * Whatever the ruleset, everything about the game comes from its view
 * (view.h, the ruleset's presentation): the screen, redrawn on every patch,
 * every answer and every resize, is
 *   the picture (draw_text, sized to the room left, coloured on a terminal),
 *   where the game stands (describe: whose decision, and what it must be),
 *   the last messages (events of patches, answers, refusals, notes),
 *   the prompt (edit.h: line editing, history, Tab completion of the orders
 *   and of their words).
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
#define MSG_SHOW 8              /* message lines shown */

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

/* Write b with "\r\n" line ends (the terminal may be in raw mode), at
 * most max_lines lines. */
static void put_lines(const char *s, int max_lines)
{
    int lines = 0;
    for (const char *l = s; *l && lines < max_lines; lines++) {
        const char *nl = strchr(l, '\n');
        size_t n = nl ? (size_t)(nl - l) : strlen(l);
        fwrite(l, 1, n, stdout);
        fputs("\x1b[0m\r\n", stdout);
        l += n + (nl ? 1 : 0);
    }
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; s && *s; s++)
        n += *s == '\n';
    return n;
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
    /* where the game stands */
    wr_strbuf_printf(&st, "game %s (%s), version %lld, %s; %s%s\n", g->id, g->ruleset,
                     (long long)g->version, g->status, p->watching ? "watching" : "you: ",
                     p->watching ? "" : g->seat);
    p->w->v->pr->describe(p->w->v, &st);
    int fixed = count_lines(st.s) + MSG_SHOW + 2;
    int room = p->rows - fixed;
    /* the picture, in the room left */
    struct wr_draw_opts d = { .cols = p->cols, .rows = room > 3 ? room : 3, .color = p->color };
    p->w->v->pr->draw_text(p->w->v, &d, &pic);
    if (!p->screen) {
        /* Not a terminal (a script): the board and status after each change. */
        printf("%s%s", pic.s ? pic.s : "", st.s ? st.s : "");
        fflush(stdout);
        wr_strbuf_release(&pic);
        wr_strbuf_release(&st);
        return;
    }
    fputs("\x1b[H\x1b[2J", stdout);
    put_lines(pic.s ? pic.s : "", room > 3 ? room : 3);
    if (p->color)
        fputs("\x1b[7m", stdout);       /* the status block in reverse video */
    put_lines(st.s ? st.s : "", 12);
    int first = p->nmsgs > MSG_SHOW ? p->nmsgs - MSG_SHOW : 0;
    for (int i = 0; i < MSG_SHOW; i++) {
        if (first + i < p->nmsgs)
            fprintf(stdout, "%.*s", p->cols > 1 ? p->cols - 1 : 79, p->msgs[first + i]);
        fputs("\r\n", stdout);
    }
    fflush(stdout);
    wr_strbuf_release(&pic);
    wr_strbuf_release(&st);
    if (p->edit)
        wrc_edit_redraw(p->edit);
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

static const char *const own_words[] = { "help", "status", "log", "quit", NULL };

static void help(struct play *p, const char *order)
{
    struct wr_strbuf b;
    wr_strbuf_init(&b);
    if (order[0]) {             /* help ORDER: that order alone */
        wrc_view_help(p->w->v, order, &b);
        say(p, "%s", b.s ? b.s : "");
        wr_strbuf_release(&b);
        return;
    }
    wrc_view_help(p->w->v, NULL, &b);
    say(p, "orders:\n%s", b.s ? b.s : "");
    say(p, "tools:  status | log [N] | help | quit");
    say(p, "Tab completes orders and their words; arrows recall earlier lines.");
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
    for (size_t i = from; i < total; i++) {
        json_t *e = json_array_get(p->g->log, i);
        struct wr_strbuf b;
        wr_strbuf_init(&b);
        p->w->v->pr->event(p->w->v, json_object_get(e, "event"), &b);
        say(p, "v%lld %s%s", (long long)json_integer_value(json_object_get(e, "version")),
            b.s ? b.s : "", by_note(p->g, e));
        wr_strbuf_release(&b);
    }
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
            say(p, "%s", out.s ? out.s : "");
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
        say(p, "%s", b.s ? b.s : "");
        wr_strbuf_release(&b);
    } else if (strcmp(verb, "log") == 0) {
        cmd_log(p, args);
    } else {
        order(p, line);
    }
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
    static const struct wrc_edit_hooks hooks = { on_line, complete };
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
