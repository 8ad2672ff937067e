/*
 * player.h - players of the terminal client `warroom` in integration tests:
 * a real warroomd on 127.0.0.1 (port 0), each player a separate `warroom`
 * process with its own HOME (so its own config file and scenario cache),
 * and the client's interactive mode in a tmux pane whose screen is polled
 * with a deadline. Shared by tests/integration/test_client.c and
 * tests/integration/test_client_campaign.c.
 *
 * Failures are cmocka failures (fail_msg): call these from a cmocka test.
 * The client and the scenarios are the build's (WARROOM_CLIENT_PATH,
 * WARROOM_SCENARIO_DIR, compile definitions of this library).
 */
#ifndef WT_PLAYER_H
#define WT_PLAYER_H

#include <stddef.h>

#include <jansson.h>

#include "cli.h"
#include "proc.h"

#define WT_CLIENT_MS 20000      /* ms allowed for one client command (valgrind is slow) */

/* A server and a directory for the players' homes. Lives from
 * wt_fixture_setup() to wt_fixture_teardown() (which removes root). */
struct wt_fixture {
    struct wt_server s;
    char root[256];             /* players' homes live here */
    char url[64];
};

/* cmocka group setup/teardown: one server with the build's scenarios for
 * every test of the group; *state points to a static struct wt_fixture.
 * Teardown fails unless the server exits 0 on SIGTERM. */
int wt_fixture_setup(void **state);
int wt_fixture_teardown(void **state);
/* Start f's server and make its root (f zeroed by the caller); 0 or -1.
 * wt_fixture_stop() stops it (fails unless it exits 0) and removes root. */
int wt_fixture_start(struct wt_fixture *f);
void wt_fixture_stop(struct wt_fixture *f);
/* Remove a directory tree (best effort). */
void wt_remove_tree(const char *root);
/* The server's arguments (NULL-terminated, static). */
extern const char *const wt_fixture_server_args[];

/* A player: its own HOME under the fixture's root. Lives as long as its
 * fixture; env points into the struct (do not copy a player while a
 * process started with its env runs). */
struct player {
    const char *name;
    struct wt_home h;           /* its HOME and the environment for it (cli.h) */
    const char *url;
};

void player_init(struct player *p, struct wt_fixture *f, const char *name);

/* Run `warroom --server URL args...` (NULL-terminated) as player p: its exit
 * code and output, never NULL (free with result_free()). */
struct result {
    int rc;
    char *out, *err;
};
struct result run(struct player *p, ...);
void result_free(struct result *r);

/* Run and expect exit code rc and text in stdout or stderr. */
#define EXPECT(p, rc_, text, ...)                                                           \
    do {                                                                                  \
        struct result r_ = run((p), __VA_ARGS__, NULL);                                   \
        if (r_.rc != (rc_) || (!strstr(r_.out, text) && !strstr(r_.err, text)))           \
            fail_msg("%s: exit %d (want %d), want \"%s\"\nstdout: %s\nstderr: %s",         \
                     (p)->name, r_.rc, (rc_), text, r_.out, r_.err);                      \
        result_free(&r_);                                                                 \
    } while (0)

/* Run with --json and args (NULL-terminated); fails unless it exits want_rc
 * with JSON on stdout; the first line of stdout as JSON (new reference). */
json_t *run_json(struct player *p, int want_rc, ...);

/* o[key] as a string, or NULL. */
const char *str(const json_t *o, const char *key);

/* --- tmux ----------------------------------------------------------------------- */

/* A tmux server on its own socket; kill it with tmux(t, NULL, "kill-server", NULL). */
struct tmux {
    char sock[300];
};

/* Fails the test unless tmux runs; t's socket is made under f's root. */
void tmux_init(struct tmux *t, struct wt_fixture *f);
/* Run `tmux -S sock -f /dev/null args...` (NULL-terminated); its exit code,
 * stdout in *out (may be NULL; caller frees). */
int tmux(struct tmux *t, char **out, ...);
/* Poll the pane's screen until every text of the NULL-terminated list shows
 * or timeout_ms passes; returns the last screen (caller frees) or fails. */
char *screen_shows(struct tmux *t, const char *pane, int timeout_ms, ...);
/* Start `warroom --server URL MODE GAME` as p in a new 160x50 tmux session
 * named pane; "EXIT=<code>" is printed when it ends. */
void tmux_start(struct tmux *t, struct player *p, const char *pane, const char *mode,
                const char *game);
/* Same, in a terminal of cols x rows. */
void tmux_start_size(struct tmux *t, struct player *p, const char *pane, const char *mode,
                     const char *game, int cols, int rows);
/* The pane's screen now, its lines as the program wrote them (a line the
 * terminal wrapped comes back whole: capture-pane -J); caller frees. */
char *screen_now(struct tmux *t, const char *pane);

#endif
