/*
 * edit.c - the interactive prompt (edit.h).
 */
#include "edit.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <histedit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wchar.h>

#define HISTORY_SIZE 1000
#define MAX_WORDS 64

struct wrc_edit {
    uv_loop_t *loop;
    uv_poll_t poll;             /* standard input readable */
    uv_timer_t timer;           /* a regular file cannot be polled: read it on ticks */
    int use_timer;
    int tty;
    EditLine *el;
    History *hist;
    char history[1100];
    char prompt[64];
    struct wrc_edit_hooks hooks;
    void *ctx;
    int last_was_tab;           /* a second Tab in a row lists the matches */
    int in_key;                 /* on_key runs: the key's function redisplays at its end */
    void (*answer)(void *ctx, int key);     /* a question asked: its answer; NULL: none */
    char saved_prompt[64];      /* the prompt while a question is asked */
    int in_line;                /* a line is being handled: the next prompt is fresh */
    int eof;                    /* the terminal is gone */
    int stdin_flags;            /* file status flags of standard input at the start */
    mbstate_t mbs;              /* a character being read, byte by byte */
    int closed;
    char *buf;                  /* not a terminal: the line being read */
    size_t len, cap;
};

void wrc_cands_add(struct wrc_cands *c, const char *s)
{
    if (c->n == c->cap) {
        int cap = c->cap ? 2 * c->cap : 32;
        char **v = realloc(c->v, sizeof *v * (size_t)cap);
        if (v == NULL)
            return;
        c->v = v;
        c->cap = cap;
    }
    if ((c->v[c->n] = strdup(s)) != NULL)
        c->n++;
}

static void cands_release(struct wrc_cands *c)
{
    for (int i = 0; i < c->n; i++)
        free(c->v[i]);
    free(c->v);
    memset(c, 0, sizeof *c);
}

static struct wrc_edit *of(EditLine *el)
{
    void *p = NULL;
    el_get(el, EL_CLIENTDATA, &p);
    return p;
}

static char *prompt_of(EditLine *el)
{
    return of(el)->prompt;
}

/* --- completion ---------------------------------------------------------------- */

/* The matches (200 at most, then how many in all): to the on_list hook as
 * one line for it to wrap, or under the prompt in lines of about 100
 * columns. */
static void list_matches(struct wrc_edit *e, const struct wrc_cands *hits)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f == NULL)
        return;
    int col = 0;
    for (int i = 0; i < hits->n && i < 200; i++) {
        int w = (int)strlen(hits->v[i]) + 2;
        if (col + w > 100 && e->hooks.on_list == NULL) {
            fputs("\n", f);
            col = 0;
        }
        fprintf(f, "%s  ", hits->v[i]);
        col += w;
    }
    if (hits->n > 200)
        fprintf(f, "... (%d in all)", hits->n);
    fputs("\n", f);
    fclose(f);
    if (e->hooks.on_list) {
        e->in_key = 1;          /* the completion's redisplay follows */
        e->hooks.on_list(e->ctx, text);
        e->in_key = 0;
    } else {
        fputs("\r\n", stdout);
        for (const char *s = text; *s; s++) {
            if (*s == '\n')
                putchar('\r');
            putchar(*s);
        }
        fflush(stdout);
    }
    free(text);
}

static unsigned char complete(EditLine *el, int ch)
{
    (void)ch;
    struct wrc_edit *e = of(el);
    const LineInfo *li = el_line(el);
    size_t upto = (size_t)(li->cursor - li->buffer);
    char line[1024];
    if (e->hooks.complete == NULL || upto >= sizeof line)
        return CC_ERROR;
    memcpy(line, li->buffer, upto);
    line[upto] = '\0';
    char *start = line + upto;
    while (start > line && !isspace((unsigned char)start[-1]))
        start--;
    char word[256];
    snprintf(word, sizeof word, "%.255s", start);     /* a longer word completes nothing */
    *start = '\0';
    char *words[MAX_WORDS];
    int nwords = 0;
    char *save = NULL;
    for (char *t = strtok_r(line, " \t", &save); t && nwords < MAX_WORDS;
         t = strtok_r(NULL, " \t", &save))
        words[nwords++] = t;

    struct wrc_cands all = { 0 }, hits = { 0 };
    e->hooks.complete(e->ctx, words, nwords, word, &all);
    size_t wl = strlen(word);
    for (int i = 0; i < all.n; i++)
        if (strncasecmp(all.v[i], word, wl) == 0)
            wrc_cands_add(&hits, all.v[i]);
    cands_release(&all);
    unsigned char rc = CC_ERROR;
    if (hits.n == 1) {
        el_deletestr(el, (int)wl);
        el_insertstr(el, hits.v[0]);
        el_insertstr(el, " ");
        rc = CC_REFRESH;
    } else if (hits.n > 1) {
        /* the longest common prefix, ignoring case */
        size_t common = strlen(hits.v[0]);
        for (int i = 1; i < hits.n; i++) {
            size_t k = 0;
            while (k < common && hits.v[i][k] &&
                   tolower((unsigned char)hits.v[i][k]) == tolower((unsigned char)hits.v[0][k]))
                k++;
            common = k;
        }
        if (common > wl) {
            char pre[256];
            snprintf(pre, sizeof pre, "%.*s", (int)common, hits.v[0]);
            el_deletestr(el, (int)wl);
            el_insertstr(el, pre);
            rc = CC_REFRESH;
        } else if (e->last_was_tab) {
            /* list them (to the caller, or under the line), then the prompt again */
            list_matches(e, &hits);
            rc = CC_REDISPLAY;
        } else {
            rc = CC_REFRESH_BEEP;
        }
    }
    cands_release(&hits);
    e->last_was_tab = 2;        /* cleared by the next keystroke that is not a Tab */
    return rc;
}

/* --- keys for the caller ---------------------------------------------------------- */

static unsigned char give_key(EditLine *el, enum wrc_key k)
{
    struct wrc_edit *e = of(el);
    if (e->hooks.on_key == NULL)
        return CC_NORM;
    e->in_key = 1;
    e->hooks.on_key(e->ctx, k);
    e->in_key = 0;
    return e->closed ? CC_NORM : CC_REDISPLAY;
}

/* The last byte of "ESC [ 1 ; 2 A".."D" says which arrow. */
static unsigned char shift_arrow(EditLine *el, int ch)
{
    static const struct { int ch; enum wrc_key k; } arrows[] = {
        { 'A', WRC_KEY_SHIFT_UP }, { 'B', WRC_KEY_SHIFT_DOWN },
        { 'C', WRC_KEY_SHIFT_RIGHT }, { 'D', WRC_KEY_SHIFT_LEFT },
    };
    for (size_t i = 0; i < sizeof arrows / sizeof arrows[0]; i++)
        if (arrows[i].ch == ch)
            return give_key(el, arrows[i].k);
    return CC_ERROR;
}

static unsigned char page_up(EditLine *el, int ch)
{
    (void)ch;
    return give_key(el, WRC_KEY_PAGE_UP);
}

static unsigned char page_down(EditLine *el, int ch)
{
    (void)ch;
    return give_key(el, WRC_KEY_PAGE_DOWN);
}

/* The key sequences bound (xterm's, which tmux and most terminals send). */
static const struct {
    const char *seq;
    const wchar_t *fn;
} key_binds[] = {
    { "\\e[1;2A", L"warroom-shift-arrow" }, { "\\e[1;2B", L"warroom-shift-arrow" },
    { "\\e[1;2C", L"warroom-shift-arrow" }, { "\\e[1;2D", L"warroom-shift-arrow" },
    { "\\e[5~", L"warroom-page-up" }, { "\\e[6~", L"warroom-page-down" },
};

int wrc_edit_clear_line(struct wrc_edit *e)
{
    if (!e->tty || e->closed || e->el == NULL)
        return 0;
    const LineInfo *li = el_line(e->el);
    int n = (int)(li->lastchar - li->buffer);
    if (n <= 0)
        return 0;
    el_cursor(e->el, (int)(li->lastchar - li->cursor));
    el_deletestr(e->el, n);
    return 1;
}

void wrc_edit_ask(struct wrc_edit *e, const char *question, void (*answer)(void *ctx, int key))
{
    if (e->closed || !e->tty)
        return;
    if (e->answer == NULL)
        snprintf(e->saved_prompt, sizeof e->saved_prompt, "%s", e->prompt);
    snprintf(e->prompt, sizeof e->prompt, "%s", question);
    e->answer = answer;
}

/* The key answering a question: read here, not by libedit. */
static void on_answer_key(struct wrc_edit *e)
{
    unsigned char c;
    ssize_t n;
    do
        n = read(STDIN_FILENO, &c, 1);
    while (n < 0 && errno == EINTR);
    void (*answer)(void *ctx, int key) = e->answer;
    e->answer = NULL;
    snprintf(e->prompt, sizeof e->prompt, "%s", e->saved_prompt);
    if (n <= 0)
        e->eof = 1;
    answer(e->ctx, n == 1 ? c : -1);
}

/* --- input ------------------------------------------------------------------------ */

/* libedit's character reader, ours so that the end of the input is known
 * (libedit's el_gets answers NULL for an emptied line too). One byte per
 * read: the loop polled the terminal readable, so the first read does not
 * block, and the bytes of one key arrive together. */
static int read_char(EditLine *el, wchar_t *wc)
{
    struct wrc_edit *e = of(el);
    for (;;) {
        char c;
        ssize_t n = read(STDIN_FILENO, &c, 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            e->eof = 1;
            return n == 0 ? 0 : -1;
        }
        size_t r = mbrtowc(wc, &c, 1, &e->mbs);
        if (r == (size_t)-2)
            continue;                   /* more bytes of this character */
        if (r == (size_t)-1) {
            memset(&e->mbs, 0, sizeof e->mbs);
            *wc = (wchar_t)(unsigned char)c;
        } else if (r == 0) {
            *wc = 0;
        }
        return 1;
    }
}

static void deliver(struct wrc_edit *e, const char *line)
{
    if (e->hooks.on_line)
        e->hooks.on_line(e->ctx, line);
}

static void on_tty_input(struct wrc_edit *e)
{
    int count = 0;
    if (e->answer) {
        on_answer_key(e);
        return;
    }
    if (e->last_was_tab > 0)
        e->last_was_tab--;
    const char *s = el_gets(e->el, &count);
    /* The end: the terminal is gone, or Ctrl-D (EOT) on an empty line. */
    if (e->eof || (s && count == 1 && s[0] == '\x04')) {
        el_set(e->el, EL_UNBUFFERED, 0);
        fputs("\r\n", stdout);
        deliver(e, NULL);
        return;
    }
    if (s == NULL || count <= 0)
        return;                 /* an empty line (everything erased) */
    if (s[count - 1] != '\n' && s[count - 1] != '\r')
        return;                 /* still typing */
    char *line = strndup(s, (size_t)count - 1);
    el_set(e->el, EL_UNBUFFERED, 0);        /* the terminal as it was, for our output */
    if (line && line[0] && e->hist) {
        HistEvent ev;
        history(e->hist, &ev, H_ENTER, line);
    }
    e->in_line = 1;
    deliver(e, line ? line : "");
    e->in_line = 0;
    free(line);
    if (!e->closed)
        el_set(e->el, EL_UNBUFFERED, 1);    /* raw again, a fresh line and its prompt */
}

static void on_pipe_input(struct wrc_edit *e)
{
    char chunk[4096];
    ssize_t n = read(STDIN_FILENO, chunk, sizeof chunk);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {
        if (e->len > 0) {           /* a last line without its newline */
            e->buf[e->len] = '\0';
            e->len = 0;
            deliver(e, e->buf);
        }
        if (!e->closed)
            deliver(e, NULL);
        return;
    }
    for (ssize_t i = 0; i < n && !e->closed; i++) {
        if (e->len + 2 > e->cap) {
            size_t cap = e->cap ? 2 * e->cap : 256;
            char *b = realloc(e->buf, cap);
            if (b == NULL)
                return;
            e->buf = b;
            e->cap = cap;
        }
        if (chunk[i] == '\n') {
            e->buf[e->len] = '\0';
            e->len = 0;
            deliver(e, e->buf);
        } else if (chunk[i] != '\r') {
            e->buf[e->len++] = chunk[i];
        }
    }
}

static void on_readable(uv_poll_t *p, int status, int events)
{
    struct wrc_edit *e = p->data;
    (void)events;
    if (e->closed)
        return;
    if (status < 0) {
        deliver(e, NULL);
        return;
    }
    if (e->tty)
        on_tty_input(e);
    else
        on_pipe_input(e);
}

static void on_tick(uv_timer_t *t)
{
    struct wrc_edit *e = t->data;
    if (!e->closed)
        on_pipe_input(e);
    if (!e->closed)
        uv_timer_start(&e->timer, on_tick, 0, 0);
}

/* --- life cycle ---------------------------------------------------------------------- */

struct wrc_edit *wrc_edit_new(uv_loop_t *loop, const char *prompt, const char *history_path,
                              const struct wrc_edit_hooks *hooks, void *ctx)
{
    struct wrc_edit *e = calloc(1, sizeof *e);
    if (e == NULL)
        return NULL;
    e->loop = loop;
    e->hooks = *hooks;
    e->ctx = ctx;
    snprintf(e->prompt, sizeof e->prompt, "%s", prompt);
    e->tty = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
    e->stdin_flags = fcntl(STDIN_FILENO, F_GETFL);
    if (uv_poll_init(loop, &e->poll, STDIN_FILENO) == 0) {
        /* uv_poll_init made standard input non-blocking. On a terminal that is
         * the same open file as standard output, whose writes would then fail
         * (EAGAIN) when the terminal is slow: a board drawn half. Polling
         * needs no O_NONBLOCK; we only read once the terminal is readable. */
        if (e->stdin_flags >= 0)
            fcntl(STDIN_FILENO, F_SETFL, e->stdin_flags & ~O_NONBLOCK);
    } else {
        if (e->tty)  {
            free(e);
            return NULL;
        }
        e->use_timer = 1;       /* standard input is a regular file */
        uv_timer_init(loop, &e->timer);
        e->timer.data = e;
    }
    e->poll.data = e;
    if (e->tty) {
        e->el = el_init("warroom", stdin, stdout, stderr);
        if (e->el == NULL) {
            e->tty = 0;
        } else {
            el_set(e->el, EL_CLIENTDATA, e);
            el_set(e->el, EL_GETCFN, read_char);
            el_set(e->el, EL_EDITOR, "emacs");
            el_set(e->el, EL_PROMPT, prompt_of);
            /* The wide call: libedit keeps these strings as given, where the
             * narrow el_set() would copy them and never free the copies. */
            el_wset(e->el, EL_ADDFN, L"warroom-complete", L"complete a command, unit or square",
                    complete);
            el_set(e->el, EL_BIND, "^I", "warroom-complete", NULL);
            el_wset(e->el, EL_ADDFN, L"warroom-shift-arrow", L"a Shift+arrow key", shift_arrow);
            el_wset(e->el, EL_ADDFN, L"warroom-page-up", L"the Page Up key", page_up);
            el_wset(e->el, EL_ADDFN, L"warroom-page-down", L"the Page Down key", page_down);
            for (size_t i = 0; i < sizeof key_binds / sizeof key_binds[0]; i++) {
                char fn[64];
                snprintf(fn, sizeof fn, "%ls", key_binds[i].fn);
                el_set(e->el, EL_BIND, key_binds[i].seq, fn, NULL);
            }
            e->hist = history_init();
            if (e->hist) {
                HistEvent ev;
                history(e->hist, &ev, H_SETSIZE, HISTORY_SIZE);
                history(e->hist, &ev, H_SETUNIQUE, 1);
                if (history_path) {
                    snprintf(e->history, sizeof e->history, "%s", history_path);
                    history(e->hist, &ev, H_LOAD, e->history);
                }
                el_set(e->el, EL_HIST, history, e->hist);
            }
            el_source(e->el, NULL);         /* the user's ~/.editrc, if any */
            el_set(e->el, EL_UNBUFFERED, 1);
        }
    }
    if (e->use_timer)
        uv_timer_start(&e->timer, on_tick, 0, 0);
    else
        uv_poll_start(&e->poll, UV_READABLE, on_readable);
    return e;
}

int wrc_edit_is_tty(const struct wrc_edit *e)
{
    return e->tty;
}

void wrc_edit_redraw(struct wrc_edit *e)
{
    if (e->in_line || e->in_key)
        return;                 /* the prompt of the next line follows, or the key's redisplay */
    if (e->tty && !e->closed)
        el_set(e->el, EL_REFRESH);
    else if (!e->closed) {
        fputs(e->prompt, stdout);
        fflush(stdout);
    }
}

void wrc_edit_resize(struct wrc_edit *e)
{
    if (e->tty && !e->closed)
        el_resize(e->el);
}

static void on_closed(uv_handle_t *h)
{
    struct wrc_edit *e = h->data;
    free(e->buf);
    free(e);
}

void wrc_edit_close(struct wrc_edit *e)
{
    if (e == NULL || e->closed)
        return;
    e->closed = 1;
    if (e->el) {
        el_set(e->el, EL_UNBUFFERED, 0);
        if (e->hist && e->history[0]) {
            HistEvent ev;
            /* The file may be new: make it private before anything is in it. */
            FILE *f = fopen(e->history, "a");
            if (f) {
                fchmod(fileno(f), 0600);
                fclose(f);
            }
            history(e->hist, &ev, H_SAVE, e->history);
        }
        el_end(e->el);
        e->el = NULL;
    }
    if (e->hist)
        history_end(e->hist);
    e->hist = NULL;
    if (e->stdin_flags >= 0)
        fcntl(STDIN_FILENO, F_SETFL, e->stdin_flags);     /* as the shell had it */
    if (e->use_timer) {
        uv_timer_stop(&e->timer);
        uv_close((uv_handle_t *)&e->timer, on_closed);
    } else {
        uv_poll_stop(&e->poll);
        uv_close((uv_handle_t *)&e->poll, on_closed);
    }
}
