#define _GNU_SOURCE
/*
 * player.c - players of the terminal client in integration tests (player.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "player.h"

#include "cli.h"

#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef WARROOM_SCENARIO_DIR
#error "WARROOM_SCENARIO_DIR must be defined by the build"
#endif
#ifndef WARROOM_CLIENT_PATH
#error "WARROOM_CLIENT_PATH must be defined by the build"
#endif

const char *const wt_fixture_server_args[] = { "--scenarios", WARROOM_SCENARIO_DIR, NULL };

int wt_fixture_start(struct wt_fixture *f)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(f->root, sizeof f->root, "%s/warroom-client-XXXXXX", tmp ? tmp : "/tmp");
    if (mkdtemp(f->root) == NULL || wt_server_start(&f->s, wt_fixture_server_args) < 0)
        return -1;
    snprintf(f->url, sizeof f->url, "ws://127.0.0.1:%d/", f->s.port);
    return 0;
}

int wt_fixture_setup(void **state)
{
    static struct wt_fixture f;
    if (wt_fixture_start(&f) < 0)
        return -1;
    *state = &f;
    return 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void wt_remove_tree(const char *root)
{
    nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* A test that failed half-way (cmocka jumps out of it) leaves the tmux
 * server of tmux_init() running, its clients with it: stop it before its
 * socket's folder goes. */
static void tmux_leftovers(struct wt_fixture *f)
{
    struct tmux t;
    snprintf(t.sock, sizeof t.sock, "%s/tmux.sock", f->root);
    if (access(t.sock, F_OK) == 0)
        tmux(&t, NULL, "kill-server", NULL);
}

int wt_fixture_teardown(void **state)
{
    struct wt_fixture *f = *state;
    tmux_leftovers(f);
    int status = wt_server_stop(&f->s, SIGTERM, 10000);
    wt_server_cleanup(&f->s);
    wt_remove_tree(f->root);
    return (status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0) ? 0 : -1;
}

void wt_fixture_stop(struct wt_fixture *f)
{
    tmux_leftovers(f);
    int status = wt_server_stop(&f->s, SIGTERM, 10000);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    wt_server_cleanup(&f->s);
    wt_remove_tree(f->root);
}

/* --- players --------------------------------------------------------------------- */

void player_init(struct player *p, struct wt_fixture *f, const char *name)
{
    static int n;
    char dir[64];
    memset(p, 0, sizeof *p);
    p->name = name;
    p->url = f->url;
    snprintf(dir, sizeof dir, "%s-%d", name, ++n);
    assert_int_equal(wt_home_init(&p->h, f->root, dir), 0);
}

/* argv for `warroom --server URL [--json] args...` (NULL-terminated list). */
static void argv_of(struct player *p, int json, const char **argv, va_list ap)
{
    int n = 0;
    argv[n++] = WARROOM_CLIENT_PATH;
    argv[n++] = "--server";
    argv[n++] = p->url;
    if (json)
        argv[n++] = "--json";
    for (const char *a = va_arg(ap, const char *); a && n < 30; a = va_arg(ap, const char *))
        argv[n++] = a;
    argv[n] = NULL;
}

struct result run(struct player *p, ...)
{
    const char *argv[32];
    va_list ap;
    va_start(ap, p);
    argv_of(p, 0, argv, ap);
    va_end(ap);
    struct result r = { 0, NULL, NULL };
    r.rc = wt_run(argv, p->h.env, WT_CLIENT_MS, &r.out, &r.err);
    if (r.out == NULL)
        r.out = strdup("");
    if (r.err == NULL)
        r.err = strdup("");
    return r;
}

void result_free(struct result *r)
{
    free(r->out);
    free(r->err);
}

json_t *run_json(struct player *p, int want_rc, ...)
{
    const char *argv[32];
    va_list ap;
    va_start(ap, want_rc);
    argv_of(p, 1, argv, ap);
    va_end(ap);
    char *out = NULL, *err = NULL;
    int rc = wt_run(argv, p->h.env, WT_CLIENT_MS, &out, &err);
    json_t *j = out ? json_loads(out, JSON_DISABLE_EOF_CHECK, NULL) : NULL;
    if (rc != want_rc || j == NULL)
        fail_msg("%s %s: exit %d (want %d)\nstdout: %s\nstderr: %s", p->name, argv[4], rc,
                 want_rc, out ? out : "", err ? err : "");
    free(out);
    free(err);
    return j;
}

const char *str(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* --- tmux ------------------------------------------------------------------------------- */

int tmux(struct tmux *t, char **out, ...)
{
    const char *argv[32];
    int n = 0;
    argv[n++] = "tmux";
    argv[n++] = "-S";
    argv[n++] = t->sock;
    argv[n++] = "-f";
    argv[n++] = "/dev/null";
    va_list ap;
    va_start(ap, out);
    for (const char *a = va_arg(ap, const char *); a && n < 31; a = va_arg(ap, const char *))
        argv[n++] = a;
    va_end(ap);
    argv[n] = NULL;
    /* tmux is not the program under test: never under the client's wrapper. */
    char *saved = getenv("WT_CLIENT_WRAPPER") ? strdup(getenv("WT_CLIENT_WRAPPER")) : NULL;
    unsetenv("WT_CLIENT_WRAPPER");
    char *o = NULL;
    int rc = wt_run(argv, NULL, 10000, &o, NULL);
    if (saved) {
        setenv("WT_CLIENT_WRAPPER", saved, 1);
        free(saved);
    }
    if (out)
        *out = o;
    else
        free(o);
    return rc;
}

void tmux_init(struct tmux *t, struct wt_fixture *f)
{
    snprintf(t->sock, sizeof t->sock, "%s/tmux.sock", f->root);
    char *version = NULL;
    int rc = tmux(t, &version, "-V", NULL);
    free(version);
    if (rc != 0)
        fail_msg("tmux is needed for this test (scripts/deps.sh installs it)");
}

char *screen_shows(struct tmux *t, const char *pane, int timeout_ms, ...)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    long deadline = ts.tv_sec * 1000L + ts.tv_nsec / 1000000L + timeout_ms;
    for (;;) {
        char *screen = NULL;
        tmux(t, &screen, "capture-pane", "-p", "-t", pane, NULL);
        int all = screen != NULL;
        va_list ap;
        va_start(ap, timeout_ms);
        const char *missing = NULL;
        for (const char *want = va_arg(ap, const char *); want && all;
             want = va_arg(ap, const char *))
            if (!strstr(screen, want)) {
                all = 0;
                missing = want;
            }
        va_end(ap);
        if (all)
            return screen;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        if (ts.tv_sec * 1000L + ts.tv_nsec / 1000000L >= deadline) {
            fprintf(stderr, "--- pane %s ---\n%s--- end of pane %s ---\n", pane,
                    screen ? screen : "(none)\n", pane);
            fail_msg("pane %s: \"%s\" did not show within %d ms (the screen is above)", pane,
                     missing ? missing : "?", timeout_ms);
        }
        free(screen);
        poll(NULL, 0, 50);      /* the next look at the screen: a bounded poll, not a wait */
    }
}

char *screen_now(struct tmux *t, const char *pane)
{
    char *screen = NULL;
    if (tmux(t, &screen, "capture-pane", "-p", "-J", "-t", pane, NULL) != 0 || screen == NULL)
        fail_msg("pane %s: capture-pane failed", pane);
    return screen;
}

void tmux_start(struct tmux *t, struct player *p, const char *pane, const char *mode,
                const char *game)
{
    tmux_start_size(t, p, pane, mode, game, 160, 50);
}

void tmux_start_size(struct tmux *t, struct player *p, const char *pane, const char *mode,
                     const char *game, int cols, int rows)
{
    char cmd[2048];
    const char *w = getenv("WT_CLIENT_WRAPPER");
    snprintf(cmd, sizeof cmd,
             "env HOME=%s XDG_CONFIG_HOME=%s/.config XDG_CACHE_HOME=%s/.cache TERM=screen "
             "%s %s --server %s %s %s; echo EXIT=$?",
             p->h.dir, p->h.dir, p->h.dir, w ? w : "", WARROOM_CLIENT_PATH, p->url, mode, game);
    char x[16], y[16];
    snprintf(x, sizeof x, "%d", cols);
    snprintf(y, sizeof y, "%d", rows);
    assert_int_equal(tmux(t, NULL, "new-session", "-d", "-x", x, "-y", y, "-s", pane, cmd,
                          NULL), 0);
    tmux(t, NULL, "set-option", "-t", pane, "remain-on-exit", "on", NULL);
}
