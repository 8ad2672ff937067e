/*
 * cli.c - see cli.h.
 */
#define _GNU_SOURCE
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

int wt_proc_start(struct wt_proc *p, const char *const *argv, const char *const *env)
{
    int out[2], err[2];
    memset(p, 0, sizeof *p);
    p->out_fd = p->err_fd = -1;
    p->out = calloc(1, 1);
    p->err = calloc(1, 1);
    if (p->out == NULL || p->err == NULL || pipe(out) < 0)
        return -1;
    if (pipe(err) < 0) {
        close(out[0]);
        close(out[1]);
        return -1;
    }
    const char *args[64];
    int n = 0;
    char wrapper[1024] = "";
    const char *w = getenv("WT_CLIENT_WRAPPER");
    if (w && strlen(w) < sizeof wrapper) {
        strcpy(wrapper, w);
        for (char *save = NULL, *t = strtok_r(wrapper, " ", &save); t && n < 24;
             t = strtok_r(NULL, " ", &save))
            args[n++] = t;
    }
    for (int i = 0; argv[i] && n < 63; i++)
        args[n++] = argv[i];
    args[n] = NULL;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        dup2(out[1], 1);
        dup2(err[1], 2);
        close(out[0]);
        close(out[1]);
        close(err[0]);
        close(err[1]);
        unsetenv("WARROOM_SERVER");
        for (int i = 0; env && env[i]; i++)
            putenv((char *)env[i]);
        execvp(args[0], (char *const *)args);
        _exit(127);
    }
    close(out[1]);
    close(err[1]);
    p->pid = pid;
    p->out_fd = out[0];
    p->err_fd = err[0];
    return 0;
}

static void append(char **buf, size_t *len, const char *data, size_t n)
{
    char *b = realloc(*buf, *len + n + 1);
    if (b == NULL)
        return;
    memcpy(b + *len, data, n);
    *len += n;
    b[*len] = '\0';
    *buf = b;
}

/* Read what is there within wait_ms; 0, or -1 when both streams ended. */
static int pump(struct wt_proc *p, int wait_ms)
{
    struct pollfd fds[2];
    int n = 0;
    if (p->out_fd >= 0)
        fds[n++] = (struct pollfd){ .fd = p->out_fd, .events = POLLIN };
    if (p->err_fd >= 0)
        fds[n++] = (struct pollfd){ .fd = p->err_fd, .events = POLLIN };
    if (n == 0)
        return -1;
    if (poll(fds, (nfds_t)n, wait_ms) <= 0)
        return 0;
    for (int i = 0; i < n; i++) {
        if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        char buf[4096];
        ssize_t r = read(fds[i].fd, buf, sizeof buf);
        int is_out = fds[i].fd == p->out_fd;
        if (r > 0) {
            if (is_out)
                append(&p->out, &p->out_len, buf, (size_t)r);
            else
                append(&p->err, &p->err_len, buf, (size_t)r);
        } else if (r == 0 || errno != EINTR) {
            close(fds[i].fd);
            if (is_out)
                p->out_fd = -1;
            else
                p->err_fd = -1;
        }
    }
    return 0;
}

int wt_proc_expect(struct wt_proc *p, const char *text, int timeout_ms)
{
    long deadline = now_ms() + timeout_ms;
    for (;;) {
        if (strstr(p->out, text) || strstr(p->err, text))
            return 0;
        long left = deadline - now_ms();
        if (left <= 0 || pump(p, (int)left) < 0)
            return strstr(p->out, text) || strstr(p->err, text) ? 0 : -1;
    }
}

int wt_proc_running(struct wt_proc *p)
{
    if (p->exited)
        return 0;
    if (waitpid(p->pid, &p->status, WNOHANG) == p->pid) {
        p->exited = 1;
        return 0;
    }
    return 1;
}

int wt_proc_finish(struct wt_proc *p, int timeout_ms)
{
    long deadline = now_ms() + timeout_ms;
    /* The streams end when the process exits (it holds their write ends). */
    while (p->out_fd >= 0 || p->err_fd >= 0) {
        long left = deadline - now_ms();
        if (left <= 0) {
            kill(p->pid, SIGKILL);
            break;
        }
        pump(p, (int)left);
    }
    if (!p->exited) {
        while (!p->exited && now_ms() < deadline + 5000) {
            if (waitpid(p->pid, &p->status, 0) == p->pid)
                p->exited = 1;
            else if (errno != EINTR)
                break;
        }
    }
    if (now_ms() >= deadline && (p->out_fd >= 0 || p->err_fd >= 0 || !p->exited))
        return -1;
    if (!p->exited || !WIFEXITED(p->status))
        return -1;
    return WEXITSTATUS(p->status);
}

void wt_proc_release(struct wt_proc *p)
{
    if (p->pid > 0 && wt_proc_running(p)) {
        kill(p->pid, SIGKILL);
        waitpid(p->pid, &p->status, 0);
    }
    if (p->out_fd >= 0)
        close(p->out_fd);
    if (p->err_fd >= 0)
        close(p->err_fd);
    free(p->out);
    free(p->err);
    memset(p, 0, sizeof *p);
    p->out_fd = p->err_fd = -1;
}

int wt_run(const char *const *argv, const char *const *env, int timeout_ms, char **out,
           char **err)
{
    struct wt_proc p;
    if (wt_proc_start(&p, argv, env) != 0) {
        wt_proc_release(&p);
        return -1;
    }
    int rc = wt_proc_finish(&p, timeout_ms);
    if (out) {
        *out = p.out;
        p.out = NULL;
    }
    if (err) {
        *err = p.err;
        p.err = NULL;
    }
    wt_proc_release(&p);
    return rc;
}

int wt_home_init(struct wt_home *h, const char *root, const char *name)
{
    memset(h, 0, sizeof *h);
    int n = snprintf(h->dir, sizeof h->dir, "%s/%s", root, name);
    if (n < 0 || (size_t)n >= sizeof h->dir || mkdir(h->dir, 0700) < 0)
        return -1;
    snprintf(h->e_home, sizeof h->e_home, "HOME=%s", h->dir);
    snprintf(h->e_config, sizeof h->e_config, "XDG_CONFIG_HOME=%s/.config", h->dir);
    snprintf(h->e_cache, sizeof h->e_cache, "XDG_CACHE_HOME=%s/.cache", h->dir);
    h->env[0] = h->e_home;
    h->env[1] = h->e_config;
    h->env[2] = h->e_cache;
    h->env[3] = "NO_COLOR=1";
    h->env[4] = NULL;
    return 0;
}
