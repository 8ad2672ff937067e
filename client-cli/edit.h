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

struct wrc_edit_hooks {
    /* A line, without its newline (borrowed for the call); NULL at the end
     * of the input (Ctrl-D on an empty line, or end of the pipe). */
    void (*on_line)(void *ctx, const char *line);
    /* Candidates for word, the word being typed; words[0..nwords) are the
     * words before it on the line. */
    void (*complete)(void *ctx, char *const *words, int nwords, const char *word,
                     struct wrc_cands *out);
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

/* The terminal changed size. */
void wrc_edit_resize(struct wrc_edit *e);

/* Stop reading: save the history, give the terminal back as it was, close
 * the loop handle. Freed once the loop has closed the handle. */
void wrc_edit_close(struct wrc_edit *e);

#endif
