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

/* A player of a client test: its own HOME (dir) with the XDG config and
 * cache directories under it, so its own config file and scenario cache,
 * and env, the environment pointing the client there (NULL-ended, for
 * wt_proc_start() and wt_run(); its strings live in h). */
struct wt_home {
    char dir[320];
    char e_home[340], e_config[360], e_cache[360];
    const char *env[5];
};

/* Make the directory root/name (0700) and fill h: HOME, XDG_CONFIG_HOME,
 * XDG_CACHE_HOME and NO_COLOR=1. 0, or -1 when the directory cannot be
 * made or the path is too long. */
int wt_home_init(struct wt_home *h, const char *root, const char *name);

#endif
