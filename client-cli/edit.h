/*
 * edit.h - the interactive prompt on the libuv loop: line editing, history
 * and tab completion with libedit when standard input is a terminal, plain
 * lines otherwise (a script piping commands in).
 *
 * libedit runs in its unbuffered mode: each time standard input is readable
 * the loop hands it one keystroke (el_gets returns at once), so the loop
 * keeps serving the network while a line is typed. Output that arrives
 * meanwhile is printed by the caller, then wrc_edit_redraw() puts the
 * prompt and the half-typed line back.
 *
 * Globals: none. libedit's native API carries our context (EL_CLIENTDATA)
 * into the prompt and completion callbacks, so nothing needs to be global
 * (the readline-compatible API would have forced that).
 *
 * Completion (Tab): the hook lists candidates for the word before the
 * cursor; those matching it (ignoring case) are kept. One match replaces the
 * word (and a space follows); several extend it to their longest common
 * prefix, and a second Tab lists them.
 *
 * Keys the prompt does not edit with go to the on_key hook: Shift+arrows
 * (xterm's "ESC [ 1 ; 2 A".."D") and Page Up / Page Down ("ESC [ 5 ~",
 * "ESC [ 6 ~"); the plain arrows stay history and cursor. A question
 * (wrc_edit_ask) takes the next key typed as its answer.
 */
#ifndef WRC_EDIT_H
#define WRC_EDIT_H

#include <uv.h>

struct wrc_edit;

/* Candidates collected by the completion hook. */
struct wrc_cands {
    char **v;
    int n, cap;
};

/* Add a copy of s. */
void wrc_cands_add(struct wrc_cands *c, const char *s);

/* The keys given to on_key. */
enum wrc_key {
    WRC_KEY_SHIFT_UP,
    WRC_KEY_SHIFT_DOWN,
    WRC_KEY_SHIFT_RIGHT,
    WRC_KEY_SHIFT_LEFT,
    WRC_KEY_PAGE_UP,
    WRC_KEY_PAGE_DOWN,
};

struct wrc_edit_hooks {
    /* A line, without its newline (borrowed for the call); NULL at the end
     * of the input (Ctrl-D on an empty line, or end of the pipe). */
    void (*on_line)(void *ctx, const char *line);
    /* Candidates for word, the word being typed; words[0..nwords) are the
     * words before it on the line. */
    void (*complete)(void *ctx, char *const *words, int nwords, const char *word,
                     struct wrc_cands *out);
    /* A key of enum wrc_key (may be NULL: such keys do nothing). The line
     * being typed stays; output printed during the call is followed by
     * the prompt and that line again (wrc_edit_redraw waits for the call's
     * end). */
    void (*on_key)(void *ctx, enum wrc_key key);
    /* The matches a second Tab lists, one text of lines (borrowed for the
     * call), for the caller to show where it has room (may be NULL: they
     * are printed under the prompt). The prompt and the line follow. */
    void (*on_list)(void *ctx, const char *text);
};

/* Start reading standard input on loop. history (may be NULL) is the file
 * history is read from and saved to (mode 0600). NULL on failure. */
struct wrc_edit *wrc_edit_new(uv_loop_t *loop, const char *prompt, const char *history,
                              const struct wrc_edit_hooks *hooks, void *ctx);

/* 1 when the prompt is a line editor on a terminal. */
int wrc_edit_is_tty(const struct wrc_edit *e);

/* Put the prompt and the line being typed back after other output (which
 * must have ended with a newline). */
void wrc_edit_redraw(struct wrc_edit *e);

/* Empty the line being typed (a terminal only): 1 when it held text, 0
 * when it was empty already. The caller redraws. */
int wrc_edit_clear_line(struct wrc_edit *e);

/* Ask a one-key question (a terminal only): question (copied) replaces the
 * prompt until the next key, whose first byte goes to answer(ctx, byte)
 * (-1: the input ended), the prompt back before the call. The caller
 * redraws to show the question. */
void wrc_edit_ask(struct wrc_edit *e, const char *question, void (*answer)(void *ctx, int key));

/* The terminal changed size. */
void wrc_edit_resize(struct wrc_edit *e);

/* Stop reading: save the history, give the terminal back as it was, close
 * the loop handle. Freed once the loop has closed the handle. */
void wrc_edit_close(struct wrc_edit *e);

#endif
