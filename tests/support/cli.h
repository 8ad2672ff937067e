/*
 * cli.h - run a command-line program for an integration test: its stdout
 * and stderr captured, extra environment (HOME pointing at a temporary
 * directory, ...), and every wait bounded by a deadline: reading until a
 * text appears, or until the process exits. A process past its deadline is
 * killed and the wait reports failure; nothing sleeps in place of waiting.
 *
 * WT_CLIENT_WRAPPER (environment of the test) runs the program under a
 * tool, e.g. "valgrind --error-exitcode=99 --leak-check=full".
 */
#ifndef WT_CLI_H
#define WT_CLI_H

#include <stddef.h>
#include <sys/types.h>

struct wt_proc {
    pid_t pid;
    int out_fd, err_fd;         /* -1 once at EOF */
    char *out, *err;            /* everything read so far, NUL-terminated */
    size_t out_len, err_len;
    int status;                 /* exit status once reaped (see exited) */
    int exited;
};

/* Start argv (argv[0] a path) with env ("NAME=VALUE" strings, NULL-ended;
 * may be NULL) added to the test's environment. 0 or -1. */
int wt_proc_start(struct wt_proc *p, const char *const *argv, const char *const *env);

/* Read output until text appears in stdout or stderr (0), the deadline
 * passes or both streams end (-1). */
int wt_proc_expect(struct wt_proc *p, const char *text, int timeout_ms);

/* Read everything and reap the process within timeout_ms. Returns its exit
 * code, or -1 (killed on time-out, or died of a signal). */
int wt_proc_finish(struct wt_proc *p, int timeout_ms);

/* 1 while the process runs (not yet reaped), else 0. */
int wt_proc_running(struct wt_proc *p);

void wt_proc_release(struct wt_proc *p);

/* Start, finish within timeout_ms, and return the exit code; *out and
 * *err (may be NULL) get the output (caller frees). */
int wt_run(const char *const *argv, const char *const *env, int timeout_ms, char **out,
           char **err);

#endif
