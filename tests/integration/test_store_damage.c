#define _GNU_SOURCE
/*
 * test_store_damage.c - a store is whole or refused, against the real
 * warroomd:
 *
 *  1. damage, page by page: a store is built through the server (tictactoe
 *     games finished, running and open with unclaimed seats, some without
 *     spectators, some with open seats or a deadline; Waterloo games of
 *     test/small played by the rules library's random legal player), so
 *     that every table spans several pages, interior pages included; the
 *     server stops cleanly and what it holds is recorded (every game's
 *     joined state and exported record, and the lobby). Then every page of
 *     the file is damaged in turn, in a copy, two ways (the whole page
 *     overwritten with pseudo-random bytes; four bytes flipped in its
 *     middle), and `warroomd --verify` on the copy must either refuse it
 *     (a non-zero exit status and an error line in its log), or pass it,
 *     and then the server started on it holds every game exactly as
 *     recorded. A copy --verify refuses is started too (a start reads only
 *     the games it loads, so it may well start): it must refuse or start,
 *     and then stop cleanly. A crash (a signal), a pass or a start with
 *     anything missing or different, an exit without a message or a hang
 *     fails the test; it prints how many copies were refused and how many
 *     passed whole, and its time;
 *  2. one server per database: a second warroomd on the database of a
 *     running one is refused at start (exit 6, a message), and the first
 *     one goes on serving: the invite the second could have accepted is
 *     claimed once, on the first;
 *  3. a read-only database is refused at start (exit 5, a message) and
 *     left unchanged: as root (CI), the server runs as nobody through
 *     setpriv on a file it may read but not write; otherwise the file is
 *     made read-only with chmod.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

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

#include "waterloo_autoplay.h"
#include "waterloo_game.h"
#include "proc.h"
#include "waterloo_scenario.h"
#include "wsclient.h"

#ifndef WARROOM_SCENARIO_DIR
#error "WARROOM_SCENARIO_DIR must be defined by the build"
#endif
#ifndef WARROOMD_BIN
#error "WARROOMD_BIN must be defined by the build"
#endif

#define T 5000
#define START_MS 60000      /* a start, restore included (ASan builds are slow) */

/* The store is built from one address as fast as it goes: its budgets lifted. */
static const char *const server_args[] = {
    "--scenarios", WARROOM_SCENARIO_DIR, "--rate", "100000", "--address-rate", "100000000",
    "--max-open-per-address", "100000", "--max-games-per-address", "100000", NULL
};

static const char *str(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* --- a server that may refuse to start ---------------------------------------------------- */

struct run {
    pid_t pid;
    int out_fd;
    int port;
};

static pid_t live_pid;      /* killed at exit if a failed test left it running */

static void kill_live(void)
{
    if (live_pid > 0) {
        kill(live_pid, SIGKILL);
        waitpid(live_pid, NULL, 0);
        live_pid = 0;
    }
}

/* Run argv (NULL-terminated), stderr to log, stdout to a pipe whose
 * reading end goes to *out: its pid (live_pid too), or -1. */
static pid_t spawn(const char *const *argv, const char *log, int *out)
{
    static int registered;
    if (!registered && atexit(kill_live) == 0)
        registered = 1;
    int pipefd[2];
    if (pipe(pipefd) < 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(pipefd[0]);
        close(pipefd[1]);
        return -1;
    }
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd >= 0)
            dup2(fd, 2);
        dup2(pipefd[1], 1);
        close(pipefd[0]);
        close(pipefd[1]);
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    live_pid = pid;
    close(pipefd[1]);
    *out = pipefd[0];
    return pid;
}

/* Start warroomd on db (argv prefix: a wrapper such as setpriv, or NULL),
 * stderr to log. 1 when it listens (r filled), 0 when it exited first
 * (*status), -1 when it did neither within START_MS. */
static int start(const char *const *prefix, const char *db, const char *log, struct run *r,
                 int *status)
{
    const char *argv[32];
    int argc = 0;
    for (int i = 0; prefix && prefix[i]; i++)
        argv[argc++] = prefix[i];
    const char *rest[] = { WARROOMD_BIN, "--listen", "127.0.0.1:0", "--db", db, "--log-level",
                           "warn", "--scenarios", WARROOM_SCENARIO_DIR, NULL };
    for (int i = 0; rest[i]; i++)
        argv[argc++] = rest[i];
    argv[argc] = NULL;
    int pipefd[2];
    pid_t pid = spawn(argv, log, &pipefd[0]);
    if (pid < 0)
        return -1;
    /* Its first line on stdout says where it listens; EOF: it exited. */
    char line[256];
    size_t n = 0;
    long deadline = now_ms() + START_MS;
    int rc;
    for (;;) {
        long left = deadline - now_ms();
        if (left <= 0) {
            rc = -1;
            break;
        }
        struct pollfd p = { .fd = pipefd[0], .events = POLLIN };
        if (poll(&p, 1, (int)left) <= 0)
            continue;
        if (read(pipefd[0], line + n, 1) <= 0) {
            rc = 0;
            break;
        }
        if (line[n] == '\n' || n + 2 >= sizeof line) {
            line[n] = '\0';
            rc = sscanf(line, "warroomd listening on %*[a-z]://127.0.0.1:%d/", &r->port) == 1
                     ? 1 : -1;
            break;
        }
        n++;
    }
    if (rc == 1) {
        r->pid = pid;
        r->out_fd = pipefd[0];
        return 1;
    }
    if (rc < 0)
        kill(pid, SIGKILL);
    waitpid(pid, status, 0);
    live_pid = 0;
    close(pipefd[0]);
    return rc;
}

/* warroomd --verify on db, stderr to log: its wait status, or -1 when it
 * did not exit within START_MS (it is then killed). */
static int verify(const char *db, const char *log)
{
    const char *argv[] = { WARROOMD_BIN, "--verify", "--db", db, "--log-level", "warn",
                           "--scenarios", WARROOM_SCENARIO_DIR, NULL };
    int pipefd[2];
    pid_t pid = spawn(argv, log, &pipefd[0]);
    if (pid < 0)
        return -1;
    /* stdout's EOF: it exited */
    long deadline = now_ms() + START_MS;
    int status = -1, timed_out = 1;
    char buf[256];
    for (;;) {
        long left = deadline - now_ms();
        if (left <= 0)
            break;
        struct pollfd p = { .fd = pipefd[0], .events = POLLIN };
        if (poll(&p, 1, (int)left) > 0 && read(pipefd[0], buf, sizeof buf) <= 0) {
            timed_out = 0;
            break;
        }
    }
    if (timed_out)
        kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    live_pid = 0;
    close(pipefd[0]);
    return timed_out ? -1 : status;
}

/* SIGTERM and the wait status of a started server. */
static int stop(struct run *r)
{
    int status = -1;
    kill(r->pid, SIGTERM);
    long deadline = now_ms() + 30000;
    char buf[256];
    for (;;) {
        long left = deadline - now_ms();
        struct pollfd p = { .fd = r->out_fd, .events = POLLIN };
        if (left <= 0) {
            kill(r->pid, SIGKILL);
            break;
        }
        if (poll(&p, 1, (int)left) > 0 && read(r->out_fd, buf, sizeof buf) <= 0)
            break;
    }
    close(r->out_fd);
    waitpid(r->pid, &status, 0);
    live_pid = 0;
    return status;
}

static int log_has(const char *log, const char *needle)
{
    char *text = wt_read_file(log, NULL);
    int found = text && strstr(text, needle) != NULL;
    free(text);
    return found;
}

/* --- the games of the store ----------------------------------------------------------------- */

#define MAX_GAMES 256

struct recorded {
    char id[32];
    char token[80];             /* a seat's token, for games without spectators */
    char *state, *record;       /* as recorded */
};

static struct recorded games[MAX_GAMES];
static int ngames;
static char *lobby;

static struct recorded *add_game(const char *id, const char *token, int spectators)
{
    assert_true(ngames < MAX_GAMES);
    struct recorded *g = &games[ngames++];
    snprintf(g->id, sizeof g->id, "%s", id);
    snprintf(g->token, sizeof g->token, "%s", spectators ? "" : token);
    return g;
}

static json_t *expect_ok(struct wt_client *c, const char *type)
{
    json_t *m = wt_expect(c, type, T);
    if (m == NULL)
        fail_msg("%s: no %s", c->name, type);
    return m;
}

/* A tictactoe game: x created by a, o claimed by b unless open_only; then
 * the moves (cells) in turn. */
static void tictactoe(int port, const char *options, const int *cells, int ncells, int open_only)
{
    struct wt_client a, b;
    assert_int_equal(wt_open(&a, "x", port), 0);
    json_t *opts = json_loads(options, 0, NULL);
    assert_non_null(opts);
    wt_send(&a, "{s:s, s:s, s:s, s:O}", "type", "create", "ruleset", "tictactoe", "seat", "x",
            "options", opts);
    json_t *created = expect_ok(&a, "created");
    const char *id = str(created, "game");
    add_game(id, str(created, "token"), !json_is_false(json_object_get(opts, "spectators")));
    json_decref(opts);
    if (!open_only) {
        assert_int_equal(wt_open(&b, "o", port), 0);
        wt_send(&b, "{s:s, s:s}", "type", "claim", "invite",
                str(json_object_get(created, "invites"), "o"));
        json_decref(expect_ok(&b, "claimed"));
        for (int i = 0; i < ncells; i++) {
            struct wt_client *who = i % 2 ? &b : &a;
            wt_send(who, "{s:s, s:s, s:i, s:{s:s, s:i}}", "type", "command", "game", id, "seq",
                    i + 1, "cmd", "type", "mark", "cell", cells[i]);
            json_t *ack = expect_ok(who, "ack");
            assert_int_equal(json_integer_value(json_object_get(ack, "version")), i + 1);
            json_decref(ack);
        }
        wt_close(&b);
    }
    json_decref(created);
    wt_close(&a);
}

/* Waterloo: the random legal player on a replica that follows the server's dice. */
struct replica {
    struct wl_game g;
    struct wl_cmd cmd;
    int k[64], face[64], nrolls;
};

static int replica_roll(void *ctx, uint32_t k)
{
    const struct replica *r = ctx;
    for (int i = 0; i < r->nrolls; i++)
        if (r->k[i] == (int)k)
            return r->face[i];
    return 0;
}

static void waterloo(int port, const struct wl_scenario *sc, int moves, uint64_t seed)
{
    struct wt_client c[2];
    assert_int_equal(wt_open(&c[0], "french", port), 0);
    assert_int_equal(wt_open(&c[1], "allied", port), 0);
    wt_send(&c[0], "{s:s, s:s, s:s, s:s}", "type", "create", "ruleset", "waterloo", "scenario",
            "test/small", "seat", "french");
    json_t *created = expect_ok(&c[0], "created");
    char id[32];
    snprintf(id, sizeof id, "%s", str(created, "game"));
    add_game(id, str(created, "token"), 1);
    wt_send(&c[1], "{s:s, s:s}", "type", "claim", "invite",
            str(json_object_get(created, "invites"), "allied"));
    json_decref(created);
    json_decref(expect_ok(&c[1], "claimed"));
    struct replica *r = calloc(1, sizeof *r);
    struct wl_reach *reach = malloc(sizeof *reach);
    struct wl_events *ev = malloc(sizeof *ev);
    assert_true(r && reach && ev);
    wl_game_init(&r->g, sc, id, NULL);
    r->g.roll_source = replica_roll;
    r->g.roll_ctx = r;
    struct wr_prng rng;
    wr_prng_seed(&rng, seed);
    int seq[2] = { 0, 0 };
    for (int i = 0; i < moves && r->g.await_side >= 0; i++) {
        if (wl_autoplay_next(&r->g, &rng, reach, &r->cmd) != 0)
            break;
        int side = r->g.await_side, who = side == WL_FRENCH ? 0 : 1;
        json_t *cmd = wl_cmd_json(&r->g, &r->cmd);
        wt_send(&c[who], "{s:s, s:s, s:i, s:o}", "type", "command", "game", id, "seq",
                ++seq[who], "cmd", cmd);
        json_t *ack = expect_ok(&c[who], "ack");
        assert_int_equal(json_integer_value(json_object_get(ack, "version")), i + 1);
        r->nrolls = 0;
        size_t j;
        json_t *e;
        json_array_foreach(json_object_get(ack, "events"), j, e) {
            const char *type = str(e, "type");
            if (type && strcmp(type, "roll") == 0 && r->nrolls < 64) {
                r->k[r->nrolls] = (int)json_integer_value(json_object_get(e, "k"));
                r->face[r->nrolls++] = (int)json_integer_value(json_object_get(e, "face"));
            }
        }
        json_decref(ack);
        struct wr_refusal why;
        ev->n = 0;
        if (wl_game_apply(&r->g, side, &r->cmd, ev, &why) != WL_R_OK)
            fail_msg("game %s: the replica refuses what the server took at %d", id, i + 1);
    }
    free(r);
    free(reach);
    free(ev);
    wt_close(&c[0]);
    wt_close(&c[1]);
}

/* --- what a server holds ----------------------------------------------------------------------- */

/* The next text message on c's socket, as sorted JSON text (caller frees),
 * or NULL. */
static char *next_text(struct wt_client *c, const char *want_type)
{
    int op;
    char *data = NULL;
    size_t len;
    if (wt_ws_recv(c->fd, &op, &data, &len, T) < 0 || op != 1) {
        free(data);
        return NULL;
    }
    json_t *m = json_loadb(data, len, 0, NULL);
    free(data);
    const char *type = str(m, "type");
    char *out = NULL;
    /* The time a seat has left is counted when the state is sent: never
     * the same twice (protocol.md, The state). */
    json_object_del(json_object_get(json_object_get(m, "state"), "server"), "deadlines_left");
    if (type && strcmp(type, want_type) == 0)
        out = json_dumps(m, JSON_COMPACT | JSON_SORT_KEYS);
    else if (m)
        out = json_dumps(m, JSON_COMPACT | JSON_SORT_KEYS);     /* an error: kept, it differs */
    json_decref(m);
    return out;
}

static int by_id(const void *a, const void *b)
{
    return strcmp(str(*(json_t *const *)a, "game"), str(*(json_t *const *)b, "game"));
}

/* The lobby, sorted by game (the server lists in creation order, and two
 * games created in the same millisecond come back in id order). */
static char *lobby_of(struct wt_client *c)
{
    wt_send(c, "{s:s}", "type", "list");
    char *text = next_text(c, "games");
    json_t *m = text ? json_loads(text, 0, NULL) : NULL;
    free(text);
    json_t *list = json_object_get(m, "games");
    size_t n = json_array_size(list);
    json_t **v = calloc(n + 1, sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = json_array_get(list, i);
    qsort(v, n, sizeof *v, by_id);
    json_t *sorted = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append(sorted, v[i]);
    free(v);
    char *out = json_dumps(sorted, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(sorted);
    json_decref(m);
    return out;
}

/* Compare (or, with record set, record) every game's joined state and
 * exported record, and the lobby. 0 when all equal; else why says what. */
static int holds(int port, int record, char *why, size_t whylen)
{
    struct wt_client c;
    if (wt_open(&c, "checker", port) != 0) {
        snprintf(why, whylen, "no welcome");
        return -1;
    }
    int bad = 0;
    char *l = lobby_of(&c);
    if (record) {
        lobby = l;
    } else {
        if (l == NULL || strcmp(l, lobby) != 0) {
            snprintf(why, whylen, "the lobby differs");
            bad = 1;
        }
        free(l);
    }
    for (int i = 0; i < ngames && !bad; i++) {
        struct recorded *g = &games[i];
        if (g->token[0])
            wt_send(&c, "{s:s, s:s, s:s}", "type", "join", "game", g->id, "token", g->token);
        else
            wt_send(&c, "{s:s, s:s, s:b}", "type", "join", "game", g->id, "spectate", 1);
        wt_send(&c, "{s:s, s:s}", "type", "export", "game", g->id);
        wt_send(&c, "{s:s, s:s}", "type", "leave", "game", g->id);
        char *state = next_text(&c, "state"), *rec = next_text(&c, "record");
        char *left = next_text(&c, "left");
        if (record) {
            g->state = state;
            g->record = rec;
            if (state == NULL || rec == NULL || strstr(state, "\"type\":\"state\"") == NULL ||
                strstr(rec, "\"type\":\"record\"") == NULL)
                fail_msg("game %d of %d, %s: %s / %.300s", i, ngames, g->id, state ? state : "(no state)",
                         rec ? rec : "(no record)");
        } else {
            if (state == NULL || strcmp(state, g->state) != 0)
                bad = snprintf(why, whylen, "game %s: state %.200s", g->id,
                               state ? state : "(none)") > 0;
            else if (rec == NULL || strcmp(rec, g->record) != 0)
                bad = snprintf(why, whylen, "game %s: record differs", g->id) > 0;
            free(state);
            free(rec);
        }
        free(left);
    }
    wt_close(&c);
    return bad ? -1 : 0;
}

/* --- 1. damage, page by page ------------------------------------------------------------------ */

static uint64_t prng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void write_file(const char *path, const char *buf, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, buf, len), (ssize_t)len);
    close(fd);
}

static void unlink_side_files(const char *db)
{
    char p[512];
    snprintf(p, sizeof p, "%.400s-wal", db);
    unlink(p);
    snprintf(p, sizeof p, "%.400s-shm", db);
    unlink(p);
}

static void test_damage_page_by_page(void **state)
{
    (void)state;
    struct wt_server s;
    assert_int_equal(wt_server_start(&s, server_args), 0);
    long t_build = now_ms();
    ngames = 0;

    /* The store: tictactoe in every state and with every option... */
    static const int win[5] = { 4, 1, 0, 2, 8 }, some[3] = { 4, 0, 8 };
    for (int i = 0; i < 210; i++) {
        static const char *const options[5] = {
            "{}", "{\"spectators\":false}", "{\"open_seats\":true}",
            "{\"deadline_seconds\":86400}", "{\"spectators\":false,\"open_seats\":true}",
        };
        const char *o = options[i % 5];
        switch (i % 3) {
        case 0:
            tictactoe(s.port, o, win, 5, 0);
            break;
        case 1:
            tictactoe(s.port, o, some, 1 + i % 3, 0);
            break;
        default:
            tictactoe(s.port, o, NULL, 0, 1);
        }
    }
    /* ... and Waterloo games: five played to their end, one part of the
     * way, one not started. */
    struct wl_scenario *sc = calloc(1, sizeof *sc);
    struct wr_refusal why;
    assert_int_equal(wl_scenario_load_file(sc, WARROOM_SCENARIO_DIR "/test/small.json", &why), 0);
    for (int i = 0; i < 7; i++)
        waterloo(s.port, sc, i < 5 ? 1000 : i == 5 ? 60 : 0, (uint64_t)i + 1);
    char why_text[512];
    assert_int_equal(holds(s.port, 1, why_text, sizeof why_text), 0);
    int status = wt_server_stop(&s, SIGTERM, 30000);
    assert_true(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    char wal[400];
    snprintf(wal, sizeof wal, "%s-wal", s.db);
    assert_int_equal(access(wal, F_OK), -1);        /* stopped cleanly: all in the file */
    size_t size;
    char *pristine = wt_read_file(s.db, &size);
    assert_non_null(pristine);
    unsigned page = ((unsigned char)pristine[16] << 8) | (unsigned char)pristine[17];
    if (page == 1)
        page = 65536;
    assert_true(page >= 512 && size % page == 0);
    size_t npages = size / page;
    fprintf(stderr, "test_store_damage: %d games, a store of %zu pages of %u bytes, built in "
            "%.1f s\n", ngames, npages, page, (double)(now_ms() - t_build) / 1000);

    char copy[400], log[400];
    snprintf(copy, sizeof copy, "%s/copy.db", s.dir);
    snprintf(log, sizeof log, "%s/copy.log", s.dir);
    char *buf = malloc(size);
    assert_non_null(buf);
    struct run r;

    /* The control: an undamaged copy starts with everything as recorded. */
    write_file(copy, pristine, size);
    status = verify(copy, log);
    if (status < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("--verify refuses the undamaged copy (status %d)", status);
    assert_int_equal(start(NULL, copy, log, &r, &status), 1);
    if (holds(r.port, 0, why_text, sizeof why_text) != 0)
        fail_msg("the undamaged copy differs: %s", why_text);
    status = stop(&r);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    int refused = 0, whole = 0, partial = 0, crashed = 0, silent = 0, hung = 0;
    int started_refused = 0;
    int whole_by_mode[2] = { 0, 0 };
    int by_status[256] = { 0 };
    char first_bad[1024] = "";
    long t0 = now_ms();
    for (size_t p = 0; p < npages; p++)
        for (int mode = 0; mode < 2; mode++) {
            memcpy(buf, pristine, size);
            uint64_t rnd = 0x9e3779b97f4a7c15u ^ (p * 2 + (size_t)mode + 1);
            char *pg = buf + p * page;
            if (mode == 0) {
                for (unsigned i = 0; i < page; i++)
                    pg[i] = (char)prng(&rnd);
            } else {
                for (unsigned i = page / 2 - 2; i < page / 2 + 2; i++)
                    pg[i] ^= (char)(1 + prng(&rnd) % 255);
            }
            unlink_side_files(copy);
            write_file(copy, buf, size);
            const char *what = NULL;
            int vs = verify(copy, log);
            int passed = vs >= 0 && WIFEXITED(vs) && WEXITSTATUS(vs) == 0;
            if (vs < 0) {
                hung++;
                what = "--verify did not exit";
            } else if (WIFSIGNALED(vs)) {
                crashed++;
                snprintf(why_text, sizeof why_text, "--verify killed by signal %d",
                         WTERMSIG(vs));
                what = why_text;
            } else if (!passed && !log_has(log, "level=error")) {
                silent++;
                what = "--verify failed without an error in its log";
            } else if (!passed) {
                /* Refused by --verify: a start may refuse or serve, and stop
                 * (every eighth such copy: a start and a stop take 0.6 s). */
                refused++;
                by_status[WEXITSTATUS(vs)]++;
                int rc = refused % 8 == 1 ? start(NULL, copy, log, &r, &status) : 2;
                started_refused += rc != 2;
                if (rc == 1) {
                    int st = stop(&r);
                    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
                        crashed += WIFSIGNALED(st);
                        what = "a start on a copy --verify refused did not stop cleanly";
                    }
                } else if (rc < 0) {
                    hung++;
                    what = "a start on a copy --verify refused neither listened nor exited";
                } else if (rc == 0 && WIFSIGNALED(status)) {
                    crashed++;
                    what = "a start on a copy --verify refused was killed by a signal";
                }
            }
            int rc = passed ? start(NULL, copy, log, &r, &status) : 2;
            if (rc == 2) {
                /* counted above */
            } else if (rc == 1) {
                if (holds(r.port, 0, why_text, sizeof why_text) == 0) {
                    whole++;
                    whole_by_mode[mode]++;
                } else {
                    partial++;
                    what = why_text;
                }
                int st = stop(&r);
                if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
                    crashed += WIFSIGNALED(st);
                    what = "it did not stop cleanly";
                }
            } else if (rc < 0) {
                hung++;
                what = "it neither listened nor exited";
            } else if (WIFSIGNALED(status)) {
                crashed++;
                snprintf(why_text, sizeof why_text, "killed by signal %d", WTERMSIG(status));
                what = why_text;
            } else {
                partial++;
                what = "--verify passed it, then the server refused it";
            }
            if (what && first_bad[0] == '\0')
                snprintf(first_bad, sizeof first_bad, "page %zu (offset %zu), %s: %s", p,
                         p * page, mode ? "four bytes flipped" : "random bytes", what);
        }
    double secs = (double)(now_ms() - t0) / 1000;
    fprintf(stderr, "test_store_damage: %zu copies: %d refused (", 2 * npages, refused);
    for (int i = 1; i < 256; i++)
        if (by_status[i])
            fprintf(stderr, "exit %d: %d ", i, by_status[i]);
    fprintf(stderr, "), %d started whole (%d of them with a page of random bytes), %d started "
            "with games missing or different, %d crashed, %d exited without a message, %d "
            "hung; %.1f s (refused: by --verify, %d of those started and stopped; started: "
            "after --verify passed)\n", whole, whole_by_mode[0], partial, crashed, silent, hung,
            secs, started_refused);
    if (first_bad[0])
        fprintf(stderr, "test_store_damage: first bad copy: %s\n", first_bad);
    free(buf);
    free(pristine);
    free(sc);
    for (int i = 0; i < ngames; i++) {
        free(games[i].state);
        free(games[i].record);
    }
    free(lobby);
    unlink_side_files(copy);
    unlink(copy);
    unlink(log);
    wt_server_cleanup(&s);
    assert_int_equal(partial + crashed + silent + hung, 0);
    assert_int_equal(refused + whole, (int)(2 * npages));
}

/* --- 2. one server per database ------------------------------------------------------------------ */

static void test_second_server_refused(void **state)
{
    (void)state;
    struct wt_server s;
    assert_int_equal(wt_server_start(&s, server_args), 0);
    struct wt_client a, b;
    assert_int_equal(wt_open(&a, "x", s.port), 0);
    wt_send(&a, "{s:s, s:s, s:s}", "type", "create", "ruleset", "tictactoe", "seat", "x");
    json_t *created = expect_ok(&a, "created");
    char game[32], invite[80], log[400];
    snprintf(game, sizeof game, "%s", str(created, "game"));
    snprintf(invite, sizeof invite, "%s", str(json_object_get(created, "invites"), "o"));
    json_decref(created);
    snprintf(log, sizeof log, "%s/second.log", s.dir);

    /* 1) the second server on the same database does not start */
    struct run r;
    int status = 0;
    int rc = start(NULL, s.db, log, &r, &status);
    if (rc == 1) {
        stop(&r);
        fail_msg("a second warroomd started on the database of a running one");
    }
    assert_int_equal(rc, 0);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 6);
    assert_true(log_has(log, "the store is in use by another process: refusing to start"));
    /* 2) the first goes on serving: the invite is claimed, once, and played */
    assert_int_equal(wt_open(&b, "o", s.port), 0);
    wt_send(&b, "{s:s, s:s}", "type", "claim", "invite", invite);
    json_decref(expect_ok(&b, "claimed"));
    wt_send(&a, "{s:s, s:s, s:i, s:{s:s, s:i}}", "type", "command", "game", game, "seq", 1,
            "cmd", "type", "mark", "cell", 4);
    json_t *ack = expect_ok(&a, "ack");
    assert_int_equal(json_integer_value(json_object_get(ack, "version")), 1);
    json_decref(ack);
    wt_close(&a);
    wt_close(&b);
    /* 3) and stops cleanly; then the database is free again */
    status = wt_server_stop(&s, SIGTERM, 10000);
    assert_true(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(start(NULL, s.db, log, &r, &status), 1);
    status = stop(&r);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    wt_server_cleanup(&s);
}

/* --- 3. a read-only database ------------------------------------------------------------------------ */

static void test_read_only_refused(void **state)
{
    (void)state;
    struct wt_server s;
    assert_int_equal(wt_server_start(&s, server_args), 0);
    tictactoe(s.port, "{}", (const int[]){ 4, 0 }, 2, 0);
    int status = wt_server_stop(&s, SIGTERM, 10000);
    assert_true(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0);

    /* Readable by the server, not writable: as root, the server runs as
     * nobody on root's 0644 file, in a directory it may write (so SQLite
     * could make its -wal and -shm files there); else the file is 0444. */
    const char *const as_nobody[] = { "setpriv", "--reuid=65534", "--regid=65534",
                                      "--clear-groups", NULL };
    int root = geteuid() == 0;
    assert_int_equal(chmod(s.dir, 0777), 0);
    assert_int_equal(chmod(s.db, root ? 0644 : 0444), 0);
    size_t before_len, after_len;
    char *before = wt_read_file(s.db, &before_len);
    assert_non_null(before);
    char log[400];
    snprintf(log, sizeof log, "%s/readonly.log", s.dir);
    struct run r;
    int rc = start(root ? as_nobody : NULL, s.db, log, &r, &status);
    if (rc == 1) {
        stop(&r);
        fail_msg("warroomd started on a database it cannot write");
    }
    assert_int_equal(rc, 0);
    assert_true(WIFEXITED(status));
    if (WEXITSTATUS(status) != 5) {
        char *text = wt_read_file(log, NULL);
        fail_msg("exit status %d, want 5; log: %s", WEXITSTATUS(status), text ? text : "");
    }
    assert_true(log_has(log, "the store cannot be written: refusing to start"));
    char *after = wt_read_file(s.db, &after_len);
    assert_non_null(after);
    assert_true(before_len == after_len && memcmp(before, after, before_len) == 0);
    free(before);
    free(after);
    /* Writable again: it starts. */
    assert_int_equal(chmod(s.db, 0644), 0);
    assert_int_equal(start(NULL, s.db, log, &r, &status), 1);
    status = stop(&r);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    wt_server_cleanup(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_second_server_refused),
        cmocka_unit_test(test_read_only_refused),
        cmocka_unit_test(test_damage_page_by_page),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
