/*
 * warroom_load.c - warroom-load: load and crash tests of warroomd over
 * loopback websockets.
 *
 * It opens N concurrent games (tictactoe or waterloo), each with two player
 * connections and S spectator connections, and plays random legal commands:
 * the next as soon as the seat to move has seen the previous one's patch, or
 * at a fixed rate per game. Finished games are replaced, so N stay
 * concurrent. At the end it prints one JSON object: commands per second,
 * the server's CPU time per command (from /proc/PID/stat), the latency from
 * sending a command to its patch reaching the last spectator, games
 * completed, errors, and the server's peak RSS.
 *
 * With --crash K it SIGKILLs the server K times at random moments, restarts
 * it on the same database, lets every client reconnect, join and sync, and
 * re-send the commands it saw no answer for. At the end it checks every game
 * it played against the server's record of it (export): every command a
 * client saw acknowledged is there, at the version of its ack, and no
 * command is there twice. Any difference fails the run.
 *
 * With --cluster N it starts N warroomd --cluster on one PostgreSQL
 * database (a fresh one of WT_STORE_URL's cluster, or --db) and spreads
 * every game over them: slot i's games are created by a host connection on
 * process i % N (which owns them), the second seat is claimed there too
 * (or, --claim-on player, on its player's process), the players play
 * through processes i+1 and i+2 and the spectators through i, i+1, ...
 * The latency is also measured per spectator, on the owning process and
 * on the others. --crash K then SIGKILLs, K times, the process owning the
 * most games (its /metrics), restarts it a random moment later, and moves
 * its clients to the next live process (join, sync, re-send what had no
 * answer with the same seq). Cluster runs are checked against the record
 * like crash runs, and compare spectators (below).
 *
 * With --compare-spectators (always with --cluster) every spectator keeps
 * the game's state: its join's state with every patch applied. When a game
 * ends its spectators must hold the same state; at the end, once every
 * game has reached its last version everywhere, a fresh connection on each
 * process joins every game as a spectator, and every spectator's state and
 * every player's version must equal that one, at the version the tool saw
 * acknowledged. A difference fails the run, naming game, process and
 * version.
 *
 * One thread, one epoll set, non-blocking raw websockets (wsc.c): the tool
 * shares the machine's cores with the server and must stay small. It talks
 * to 127.0.0.0/8 only. (A restarted cluster process's address line is read
 * between turns of the loop; /metrics, read before a kill, blocks briefly.)
 *
 * Waterloo games are played with the rules library: each game has a local
 * replica (common/rulesets/waterloo/waterloo_game.h) kept in step by applying every acknowledged
 * command with the dice faces the server's ack reported, and the next
 * command is chosen by the random legal player of common/rulesets/waterloo/waterloo_autoplay.h.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "waterloo_autoplay.h"
#include "waterloo_command.h"
#include "waterloo_game.h"
#include "jscan.h"
#include "jsonpatch.h"
#include "pgdb.h"
#include "waterloo_scenario.h"
#include "wsc.h"

#ifndef WARROOM_SCENARIO_DIR
#define WARROOM_SCENARIO_DIR "scenarios"
#endif

#define LAT_RING 8
#define MAX_CONNECTING 512      /* handshakes in progress at once */
#define EXPORT_WINDOW 32        /* export requests in flight while checking */

/* --- options ------------------------------------------------------------------- */

static struct {
    const char *start;          /* warroomd to start, or NULL */
    const char *server;         /* ws://127.x.y.z:port/ to attach to */
    pid_t server_pid;
    const char *server_args[32];
    int nserver_args;
    const char *scenarios;
    const char *scenario;
    int waterloo;
    int games, spectators, idle;
    double seconds;
    long moves;
    double rate;                /* commands per second per game, 0 = as fast as seen */
    int per_address;
    int crash;                  /* kills */
    int kill_min_ms, kill_max_ms;
    uint64_t seed;
    int keep;
    int cluster;                /* N warroomd --cluster processes, 0 = one plain server */
    const char *db;             /* --db: the servers' database (kept), or NULL */
    int claim_on_player;        /* claim seat 2 on its player's process, not the owner's */
    int compare;                /* spectators keep the state and are compared */
    char cmdline[2048];
} opt = {
    .scenarios = WARROOM_SCENARIO_DIR,
    .scenario = "waterloo-1815",
    .games = 100,
    .spectators = 3,
    .seconds = 10,
    .per_address = 250,
    .kill_min_ms = 300,
    .kill_max_ms = 1500,
};

static void usage(FILE *out)
{
    fprintf(out,
        "usage: warroom-load (--start WARROOMD | --server ws://127.0.0.1:PORT/) [options]\n"
        "\n"
        "Load and crash tests of warroomd over loopback websockets. Prints one JSON\n"
        "object; exits 1 when anything went wrong (errors, lost or repeated commands).\n"
        "\n"
        "  --start PATH          start this warroomd on 127.0.0.1:0 with a fresh database\n"
        "                        in a temporary directory (stopped with SIGTERM at the end)\n"
        "  --server URL          attach to a running server (127.0.0.0/8 only)\n"
        "  --server-pid PID      its process id, for the CPU and memory figures\n"
        "  --server-arg ARG      one more argument for a started server (repeatable);\n"
        "                        defaults: --max-connections 20000 --max-per-address 20000\n"
        "                        --max-handshakes-per-address 1024\n"
        "                        --rate 100000 --max-games 100000000 --scenarios DIR\n"
        "                        (and no per-address request budget or game caps)\n"
        "  --ruleset NAME        tictactoe (default) or waterloo\n"
        "  --scenario NAME       waterloo scenario (default waterloo-1815)\n"
        "  --scenarios DIR       scenario directory (default the source tree's)\n"
        "  --games N             concurrent games (default 100)\n"
        "  --spectators S        spectator connections per game (default 3)\n"
        "  --seconds T           play for T seconds after set-up (default 10)\n"
        "  --moves M             or stop after M acknowledged commands\n"
        "  --rate R              commands per second per game; 0 (default) sends the next\n"
        "                        command as soon as the seat to move saw the last patch\n"
        "  --idle N              also open N connections that only say hello\n"
        "  --per-address N       connections per loopback source address (default 250;\n"
        "                        127.0.0.1, 127.0.0.2, ... so a server's per-address\n"
        "                        limit is never what stops the test)\n"
        "  --crash K             SIGKILL the started server K times, restart it on the\n"
        "                        same database, resync, then check every game (tictactoe)\n"
        "  --kill-min-ms MS      play at least MS between kills (default 300)\n"
        "  --kill-max-ms MS      and at most MS (default 1500)\n"
        "  --cluster N           start N (2..8) warroomd --cluster on one PostgreSQL\n"
        "                        database (WT_STORE_URL, WT_STORE_URL_FILE or --db): game i\n"
        "                        is created on process i %% N, its players play through\n"
        "                        processes i+1 and i+2, its spectators spread over all N;\n"
        "                        --crash kills the process owning the most games and\n"
        "                        restarts it later, its clients moving to the next one\n"
        "  --db URI              the servers' database (postgres://...; used as it is)\n"
        "  --claim-on WHERE      owner (default: the second seat is claimed on the game's\n"
        "                        creating process) or player (on its player's process)\n"
        "  --compare-spectators  spectators keep the state (state + patches) and at the\n"
        "                        end every one must equal a fresh spectator's state on\n"
        "                        every process (always on with --cluster)\n"
        "  --seed N              random seed (default: from the clock)\n"
        "  --keep                keep the temporary directory (database, server log)\n"
        "  -h, --help            this text\n");
}

/* --- time, randomness ------------------------------------------------------------ */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct wr_prng rng;

/* --- figures ----------------------------------------------------------------------- */

struct samples {
    float *v;
    size_t n, cap;
};

static void sample_add(struct samples *s, double ms)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 65536;
        float *v = realloc(s->v, sizeof *v * cap);
        if (v == NULL)
            return;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = (float)ms;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static double pct(const struct samples *s, double p)
{
    if (s->n == 0)
        return 0;
    size_t i = (size_t)ceil(p * (double)s->n);
    if (i > 0)
        i--;
    if (i >= s->n)
        i = s->n - 1;
    return s->v[i];
}

static struct {
    struct samples lat, ack_lat, restart_ms;
    struct samples lat_same, lat_cross;         /* --cluster, per spectator */
    long spectators_compared, views_differ;     /* --compare-spectators */
    long stale_states;          /* --cluster: states of a copy behind what was seen */
    long acks, acks_in_window, sent_in_window, sent;
    long games_completed, games_created;
    long errors, closed, bad_answers;
    char error_codes[16][32];
    long error_counts[16];
    int nerror_codes;
    /* crash */
    int kills;
    long resent, resent_original, resent_fresh, lost, duplicated, mismatched, unresolved,
        abandoned, checked_games, checked_commands;
    uint64_t frames_t0, frames_t1;     /* messages received by then */
    uint64_t sent_t0, sent_t1;         /* messages sent by then */
} st;

static void count_error(const char *code)
{
    st.errors++;
    for (int i = 0; i < st.nerror_codes; i++)
        if (strcmp(st.error_codes[i], code) == 0) {
            st.error_counts[i]++;
            return;
        }
    if (st.nerror_codes < 16) {
        snprintf(st.error_codes[st.nerror_codes], sizeof st.error_codes[0], "%s", code);
        st.error_counts[st.nerror_codes++] = 1;
    }
}

/* A failure worth a line on stderr (the first few of each run). */
static void complain(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void complain(const char *fmt, ...)
{
    static int lines;
    if (lines++ >= 20)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("warroom-load: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* --- the server processes ------------------------------------------------------- */

/* The servers the tool talks to: one (a started warroomd, or --server), or
 * with --cluster N the N warroomd --cluster processes it started on one
 * PostgreSQL database. A killed cluster process is restarted later with the
 * same arguments (a new ephemeral port). */
#define MAX_PROCS 8

struct proc {
    pid_t pid;                  /* 0 while it is down */
    int out_fd;
    int port;
    int restarts;               /* incarnations started so far */
    double cpu0;                /* its CPU seconds when the measured window began */
    double restart_at;          /* when a killed process comes back (cluster) */
    char log[320];
    /* /metrics totals of its killed incarnations (counters restart at 0) */
    double commands_gone, forwards_gone, takeovers_gone;
    double last_commands, last_forwards, last_takeovers;    /* its last /metrics */
    int starting;               /* started, its address line not read yet */
    double start_deadline;
    char line[256];             /* what it printed so far of its current line */
    size_t nline;
    long sent, acked;           /* commands the tool's seats sent through it, and acks */
};

static struct proc procs[MAX_PROCS];
static int nprocs = 1;

struct server_metrics {
    double commits, commit_seconds, commands;
    double commits_le_10ms, commits_le_50ms;    /* histogram buckets */
    double games_owned, forwards, takeovers;    /* --cluster */
    int ok;
};

/* The last counters read from process p (added to its totals if it is
 * killed: a restarted process counts from 0 again). */
static void metrics_seen(int p, const struct server_metrics *m)
{
    if (!m->ok)
        return;
    procs[p].last_commands = m->commands;
    procs[p].last_forwards = m->forwards;
    procs[p].last_takeovers = m->takeovers;
}

static struct {
    uint32_t addr;
    int port;                   /* --server's */
    char dir[256], db[300];
    int started;                /* we own them */
    int own_db;                 /* the database is ours to drop (pgdb.h) */
} srv;

/* Start process p; spawn_wait() reads its address line. */
static int spawn_begin(int p)
{
    struct proc *pr = &procs[p];
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC) < 0)
        return -1;
    const char *argv[64];
    int argc = 0;
    argv[argc++] = opt.start;
    if (opt.cluster)
        argv[argc++] = "--cluster";
    argv[argc++] = "--listen";
    argv[argc++] = "127.0.0.1:0";
    argv[argc++] = "--db";
    argv[argc++] = srv.db;
    argv[argc++] = "--log-level";
    argv[argc++] = "warn";
    argv[argc++] = "--scenarios";
    argv[argc++] = opt.scenarios;
    argv[argc++] = "--max-connections";
    argv[argc++] = "20000";
    argv[argc++] = "--max-per-address";
    argv[argc++] = "20000";
    /* MAX_CONNECTING handshakes at once, all from loopback addresses */
    argv[argc++] = "--max-handshakes-per-address";
    argv[argc++] = "1024";
    argv[argc++] = "--rate";
    argv[argc++] = "100000";
    argv[argc++] = "--max-games";
    argv[argc++] = "100000000";
    /* The tool is many clients on a few loopback addresses: lift the
     * per-address budgets (--server-arg can set them again). */
    argv[argc++] = "--address-rate";
    argv[argc++] = "100000000";
    argv[argc++] = "--max-games-per-address";
    argv[argc++] = "100000000";
    argv[argc++] = "--max-open-per-address";
    argv[argc++] = "100000000";
    for (int i = 0; i < opt.nserver_args && argc < 63; i++)
        argv[argc++] = opt.server_args[i];
    argv[argc] = NULL;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int log = open(pr->log, O_WRONLY | O_CREAT | O_APPEND, 0644);
        dup2(pipefd[1], 1);
        if (log >= 0)
            dup2(log, 2);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(pipefd[1]);
    pr->pid = pid;
    pr->out_fd = pipefd[0];
    pr->starting = 1;
    pr->nline = 0;
    pr->start_deadline = now_s() + 120;     /* restoring a large store takes a while */
    return 0;
}

/* Read what process p printed, for up to wait_ms: 1 once its address line
 * came (it is up), 0 not yet, -1 when it failed (then it is stopped and
 * its log shown). */
static int spawn_wait(int p, int wait_ms)
{
    struct proc *pr = &procs[p];
    double deadline = now_s() + wait_ms / 1000.0;
    if (deadline > pr->start_deadline)
        deadline = pr->start_deadline;
    while (pr->nline + 1 < sizeof pr->line) {
        int left = (int)((deadline - now_s()) * 1000);
        struct pollfd pf = { .fd = pr->out_fd, .events = POLLIN };
        int ready = poll(&pf, 1, left > 0 ? left : 0);
        if (ready == 0 && now_s() < pr->start_deadline)
            return 0;
        if (ready <= 0)
            break;
        ssize_t r = read(pr->out_fd, pr->line + pr->nline, 1);
        if (r <= 0)
            break;
        if (pr->line[pr->nline] == '\n') {
            pr->line[pr->nline] = '\0';
            pr->nline = 0;
            if (sscanf(pr->line, "warroomd listening on ws://127.0.0.1:%d/", &pr->port) == 1) {
                srv.addr = 0x7f000001;
                pr->starting = 0;
                if (!pr->restarts++)
                    fprintf(stderr, "warroom-load: warroomd %d: pid %d on ws://127.0.0.1:%d/, "
                            "store %s\n", p, (int)pr->pid, pr->port, srv.db);
                return 1;
            }
            continue;
        }
        pr->nline++;
    }
    complain("warroomd %d did not print its address (log: %s)", p, pr->log);
    kill(pr->pid, SIGKILL);
    waitpid(pr->pid, NULL, 0);
    pr->starting = 0;
    /* What it said (an option it does not know, a database it cannot
     * open): its first lines and its last. */
    FILE *log = fopen(pr->log, "r");
    char said[512], last[512] = "";
    int lines = 0;
    while (log && fgets(said, sizeof said, log)) {
        if (lines++ < 4)
            fprintf(stderr, "warroomd %d: %s", p, said);
        else
            memcpy(last, said, sizeof last);
    }
    if (last[0])
        fprintf(stderr, "warroomd %d: ...\nwarroomd %d: %s", p, p, last);
    if (log)
        fclose(log);
    close(pr->out_fd);
    pr->pid = 0;
    return -1;
}

/* Start process p and wait until it listens. */
static int spawn_server(int p)
{
    if (spawn_begin(p) < 0)
        return -1;
    return spawn_wait(p, 120000) == 1 ? 0 : -1;
}

static int start_servers(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(srv.dir, sizeof srv.dir, "%s/warroom-load-XXXXXX", tmp ? tmp : "/tmp");
    if (mkdtemp(srv.dir) == NULL)
        return -1;
    snprintf(srv.db, sizeof srv.db, "%s/warroom.db", srv.dir);
    for (int p = 0; p < nprocs; p++) {
        if (opt.cluster)
            snprintf(procs[p].log, sizeof procs[p].log, "%s/warroomd-%d.log", srv.dir, p);
        else
            snprintf(procs[p].log, sizeof procs[p].log, "%s/warroomd.log", srv.dir);
    }
    srv.started = 1;
    if (opt.db) {
        /* --db: the caller's database, used as it is and kept. */
        snprintf(srv.db, sizeof srv.db, "%s", opt.db);
    } else {
        /* WT_STORE_URL (or WT_STORE_URL_FILE): a fresh database of that
         * PostgreSQL cluster instead (tests/support/pgdb.h), dropped at the
         * end. A cluster always has one (parse_options made sure). */
        const char *base = wt_pg_base();
        if (base && wt_pg_create(base, srv.db, sizeof srv.db) < 0)
            return -1;
        srv.own_db = base != NULL;
    }
    for (int p = 0; p < nprocs; p++)
        if (spawn_server(p) < 0)
            return -1;
    return 0;
}

/* SIGTERM (or SIGKILL) process p, then wait for the exit: its stdout ends
 * when it does. Returns the wait status, or -1 after a time-out (then
 * killed). */
static int stop_server(int p, int sig, int timeout_ms)
{
    struct proc *pr = &procs[p];
    int status = -1;
    if (pr->pid <= 0)
        return -1;
    kill(pr->pid, sig);
    double deadline = now_s() + timeout_ms / 1000.0;
    for (;;) {
        int left = (int)((deadline - now_s()) * 1000);
        if (left <= 0) {
            kill(pr->pid, SIGKILL);
            waitpid(pr->pid, &status, 0);
            status = -1;
            break;
        }
        struct pollfd pf = { .fd = pr->out_fd, .events = POLLIN };
        if (poll(&pf, 1, left) > 0) {
            char buf[256];
            if (read(pr->out_fd, buf, sizeof buf) <= 0) {
                waitpid(pr->pid, &status, 0);
                break;
            }
        }
    }
    close(pr->out_fd);
    pr->pid = 0;
    return status;
}

static void cleanup_dir(void)
{
    if (!srv.started || srv.dir[0] == '\0' || opt.keep)
        return;
    if (srv.own_db && strncmp(srv.db, "postgres://", 11) == 0)
        wt_pg_drop(srv.db);
    static const char *const files[] = { "warroom.db", "warroom.db-wal", "warroom.db-shm" };
    char path[400];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", srv.dir, files[i]);
        unlink(path);
    }
    for (int p = 0; p < nprocs; p++)
        unlink(procs[p].log);
    rmdir(srv.dir);
}

/* The port of process p (the --server's when the tool started none). */
static int proc_port(int p)
{
    return srv.started ? procs[p].port : srv.port;
}

static pid_t server_pid(void)
{
    return srv.started ? procs[0].pid : opt.server_pid;
}

/* utime + stime of pid in seconds, and utime alone into *user (when not
 * NULL); -1 when unknown. */
static double proc_times(pid_t pid, double *user)
{
    char path[64], buf[2048];
    if (pid <= 0)
        return -1;
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    if (p == NULL)
        return -1;
    /* fields after the name: state(3) ... utime(14) stime(15) */
    unsigned long long ut = 0, stt = 0;
    if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &stt) != 2)
        return -1;
    double tck = (double)sysconf(_SC_CLK_TCK);
    if (user)
        *user = (double)ut / tck;
    return (double)(ut + stt) / tck;
}

static double proc_cpu(pid_t pid)
{
    return proc_times(pid, NULL);
}

/* The user-space CPU seconds of the one server (-1 with several, or when
 * unknown): what the server's own code costs, the kernel's part aside. */
static double server_user_cpu(void)
{
    double user = -1;
    if (opt.cluster || opt.crash || proc_times(server_pid(), &user) < 0)
        return -1;
    return user;
}

/* A "VmXXX:" figure of /proc/PID/status in kB; -1 when unknown. */
static long proc_status_kb(pid_t pid, const char *key)
{
    char path[64], line[256];
    long v = -1;
    if (pid <= 0)
        return -1;
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    size_t kl = strlen(key);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, kl) == 0) {
            v = strtol(line + kl, NULL, 10);
            break;
        }
    fclose(f);
    return v;
}

static double self_cpu(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

static void loadavg(char *buf, size_t cap)
{
    FILE *f = fopen("/proc/loadavg", "r");
    buf[0] = '\0';
    if (f) {
        if (fgets(buf, (int)cap, f) == NULL)
            buf[0] = '\0';
        fclose(f);
    }
    char *nl = strchr(buf, '\n');
    if (nl)
        *nl = '\0';
}

/* --- games and clients -------------------------------------------------------------- */

/* ROLE_HOST: with --cluster, the connection that creates a slot's games on
 * their owning process (and claims the second seat there, unless
 * --claim-on player), then leaves them. ROLE_PROBE: the fresh spectators
 * of the final comparison, one per process. */
enum role { ROLE_SEAT0, ROLE_SEAT1, ROLE_SPEC, ROLE_IDLE, ROLE_CHECK, ROLE_HOST, ROLE_PROBE };
enum phase { P_WAIT, P_CREATING, P_CLAIMING, P_JOINING, P_PLAYING, P_DONE };

struct client {
    struct wl_conn *ws;
    struct slot *slot;
    int role;
    uint32_t src;
    int welcomed;
    int joined;                 /* has a state of the slot's current game */
    int64_t seen;               /* highest version of it seen */
    int queued;                 /* waiting to connect */
    int moved;                  /* --cluster: moved to another process, no state since */
    int64_t sync_since;         /* the version its last sync said it held (a player after
                                   a kill: the tool's), until a patch from it or a state at
                                   or after it; 0 none */
    int proc;                   /* the process it talks to (moves when that one is killed) */
    /* --compare-spectators: the state this spectator holds (its last
     * `state`'s state with every patch since applied), owned, NULL until
     * the first; doc_v its version. */
    json_t *doc;
    int64_t doc_v;
    /* The slot's finished game this connection leaves with its next request
     * for the slot (a create, claim or join), as a client that goes from one
     * game to the next does: both in one go, so the server's answers to the
     * two leave in one write. Empty: none. */
    char leave[32];
};

/* One command of a game's history (crash checks). */
struct cmdrec {
    int64_t seq;
    int64_t version;            /* from the ack; 0 until acknowledged */
    int8_t seat;
    int8_t cell;
};

struct gamerec {
    char id[32];
    struct cmdrec *cmds;
    int ncmds, capcmds;
    int abandoned;
    struct gamerec *next;
};

struct pend {
    int active;
    int64_t seq;
    int cell;
    int64_t version;            /* the version it made, once known (patch or state) */
    double t;
    int resent;                 /* sent again after a restart */
    int durable;                /* ...and the restarted server already had it */
    int needs_resend;           /* unanswered when the server was killed */
    int in_window;
    int rec_i;                  /* 1 + its index in the game's history, 0 = none */
};

struct slot {
    int idx;
    int phase;
    struct client *seat[2];
    struct client *spec;        /* opt.spectators of them */
    struct client *host;        /* --cluster: creates the games, or NULL */
    int owner;                  /* --cluster: the process owning the game, -1 = not known */
    char game[32];
    char invite[40];
    char token[2][72];
    int spec_joined;
    int64_t version;            /* highest version confirmed to the tool */
    char seen_by[48];           /* which message confirmed it (for failure reports) */
    int64_t seen_at_kill;       /* highest version seen before the last kill */
    int64_t acked_max;          /* highest version acknowledged */
    int over;
    int compared;               /* in the final comparison (frozen when it starts) */
    char board[10];             /* tictactoe */
    int64_t seq[2];
    struct pend pend[2];
    struct {
        int64_t v;
        double t;
        int seen;
        int in_window;
    } lat[LAT_RING];
    double next_at;             /* --rate pacing */
    int heap_pos;               /* in the pacing heap, or -1 */
    struct gamerec *rec;
    /* waterloo replica */
    struct wl_game *wg;
    struct wl_cmd *wcmd;
    int rolls_k[64], rolls_face[64], nrolls;
};

static struct slot *slots;
static struct client *clients;
static int nclients;
static struct client checker;
static struct wl_net *net;
static struct gamerec *recs_head, **recs_tail = &recs_head;

static struct {
    int started;                /* play began (all games set up) */
    int stopping;               /* no new commands or games */
    double t0, t1;
    double cpu0, cpu1, self0, self1;
    double user0, user1;        /* the server's user-space part (one server) */
    double cpu_killed;          /* CPU of the server processes killed in the window */
    int ready;                  /* games set up before the start */
    int welcomed;               /* connections welcomed */
    int connecting;             /* handshakes in progress */
    int next_connect;           /* next client index to connect */
    int server_down;            /* between a kill and the restart */
    double next_kill;
    long rss_before_kb;
    char load_before[128], load_after[128];
} run;

/* waterloo */
static struct wl_scenario *scenario;
static struct wl_reach *reach;
static struct wl_events *events_scratch;

static const char *seat_name(int seat)
{
    if (opt.waterloo)
        return seat == 0 ? "french" : "allied";
    return seat == 0 ? "x" : "o";
}

/* --- the pacing heap (--rate) ----------------------------------------------------- */

static struct slot **heap;
static int nheap;

static void heap_swap(int a, int b)
{
    struct slot *t = heap[a];
    heap[a] = heap[b];
    heap[b] = t;
    heap[a]->heap_pos = a;
    heap[b]->heap_pos = b;
}

static void heap_push(struct slot *s)
{
    if (s->heap_pos >= 0)
        return;
    int i = nheap++;
    heap[i] = s;
    s->heap_pos = i;
    while (i > 0 && heap[(i - 1) / 2]->next_at > heap[i]->next_at) {
        heap_swap(i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static struct slot *heap_pop(void)
{
    struct slot *top = heap[0];
    heap_swap(0, --nheap);
    top->heap_pos = -1;
    int i = 0;
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < nheap && heap[l]->next_at < heap[m]->next_at)
            m = l;
        if (r < nheap && heap[r]->next_at < heap[m]->next_at)
            m = r;
        if (m == i)
            break;
        heap_swap(i, m);
        i = m;
    }
    return top;
}

/* --- sending ------------------------------------------------------------------------ */

static void sendf(struct client *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sendf(struct client *c, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0 && (size_t)n < sizeof buf && c->ws)
        wl_conn_send(c->ws, buf, (size_t)n);
}

static void send_text(struct client *c, const char *text)
{
    if (c->ws)
        wl_conn_send(c->ws, text, strlen(text));
}

static struct gamerec *new_rec(const char *id)
{
    struct gamerec *r = calloc(1, sizeof *r);
    if (r == NULL)
        return NULL;
    snprintf(r->id, sizeof r->id, "%s", id);
    *recs_tail = r;
    recs_tail = &r->next;
    return r;
}

static struct cmdrec *rec_add(struct gamerec *r, int seat, int64_t seq, int cell)
{
    if (r == NULL)
        return NULL;
    if (r->ncmds == r->capcmds) {
        int cap = r->capcmds ? 2 * r->capcmds : 16;
        struct cmdrec *c = realloc(r->cmds, sizeof *c * (size_t)cap);
        if (c == NULL)
            return NULL;
        r->cmds = c;
        r->capcmds = cap;
    }
    struct cmdrec *c = &r->cmds[r->ncmds++];
    *c = (struct cmdrec){ seq, 0, (int8_t)seat, (int8_t)cell };
    return c;
}

/* --- game set-up ------------------------------------------------------------------- */

/* Who creates a slot's games (and so holds the first seat's token first),
 * and who claims the second seat: the players themselves, or with
 * --cluster the slot's host on the owning process (the claim there too
 * unless --claim-on player). */
static struct client *creator(const struct slot *s)
{
    return s->host ? s->host : s->seat[0];
}

static struct client *claimer(const struct slot *s)
{
    return s->host && !opt.claim_on_player ? s->host : s->seat[1];
}

/* c's leave of its finished game, first thing before its next request. */
static void leave_first(struct client *c)
{
    if (c->leave[0] == '\0')
        return;
    sendf(c, "{\"type\":\"leave\",\"game\":\"%s\"}", c->leave);
    c->leave[0] = '\0';
}

static void send_create(struct slot *s)
{
    leave_first(creator(s));
    if (opt.waterloo)
        sendf(creator(s), "{\"type\":\"create\",\"ruleset\":\"waterloo\",\"scenario\":\"%s\","
                          "\"seat\":\"french\"}", opt.scenario);
    else
        send_text(creator(s), "{\"type\":\"create\",\"ruleset\":\"tictactoe\",\"seat\":\"x\"}");
}

static void send_claim(struct slot *s)
{
    leave_first(claimer(s));
    sendf(claimer(s), "{\"type\":\"claim\",\"invite\":\"%s\"}", s->invite);
}

static void send_join(struct client *c)
{
    struct slot *s = c->slot;
    leave_first(c);
    if (c->role == ROLE_SPEC)
        sendf(c, "{\"type\":\"join\",\"game\":\"%s\",\"spectate\":true}", s->game);
    else
        sendf(c, "{\"type\":\"join\",\"game\":\"%s\",\"token\":\"%s\"}", s->game,
              s->token[c->role]);
    /* After a restart a player also asks for what it missed since the last
     * version it knows: join sends the whole state, sync the difference
     * (a full state again, or "synced", since a restarted server holds no
     * patches). Both must agree with what the client saw acknowledged. */
    if (st.kills > 0 && c->role != ROLE_SPEC) {
        c->sync_since = s->version;
        sendf(c, "{\"type\":\"sync\",\"game\":\"%s\",\"since\":%lld,\"id\":\"sync:%lld\"}",
              s->game, (long long)s->version, (long long)s->version);
    }
}

static void reset_game(struct slot *s)
{
    s->game[0] = s->invite[0] = s->token[0][0] = s->token[1][0] = '\0';
    s->spec_joined = 0;
    s->version = s->acked_max = s->seen_at_kill = 0;
    s->seen_by[0] = '\0';
    s->over = 0;
    memset(s->board, '.', 9);
    s->board[9] = '\0';
    s->seq[0] = s->seq[1] = 0;
    memset(s->pend, 0, sizeof s->pend);
    for (int i = 0; i < LAT_RING; i++)
        s->lat[i].v = -1;
    s->rec = NULL;
    s->seat[0]->joined = s->seat[1]->joined = 0;
    s->seat[0]->seen = s->seat[1]->seen = 0;
    s->seat[0]->sync_since = s->seat[1]->sync_since = 0;
    for (int i = 0; i < opt.spectators; i++) {
        struct client *c = &s->spec[i];
        c->joined = 0, c->seen = 0;
        json_decref(c->doc);
        c->doc = NULL;
        c->doc_v = 0;
    }
    if (s->host)
        s->host->joined = 0;
    s->owner = -1;
}

/* Start the slot's next game. Its players and spectators leave the
 * previous one with their first request for the next (leave_first). */
static void new_game(struct slot *s)
{
    if (s->game[0]) {
        snprintf(s->seat[0]->leave, sizeof s->seat[0]->leave, "%s", s->game);
        snprintf(s->seat[1]->leave, sizeof s->seat[1]->leave, "%s", s->game);
        for (int i = 0; i < opt.spectators; i++)
            snprintf(s->spec[i].leave, sizeof s->spec[i].leave, "%s", s->game);
    }
    reset_game(s);
    if (run.stopping) {
        s->phase = P_DONE;
        return;
    }
    s->phase = P_CREATING;
    if (creator(s)->welcomed)
        send_create(s);
}

static void maybe_move(struct slot *s);
static void compare_spectators(struct slot *s);
static void probe_next(struct client *c);
static void on_probe_error(struct client *c, const struct wl_jv *f);

static void check_ready(struct slot *s)
{
    if (s->phase != P_JOINING || !s->token[1][0] || !s->seat[0]->joined || !s->seat[1]->joined ||
        s->spec_joined < opt.spectators)
        return;
    s->phase = P_PLAYING;
    if (!run.started)
        run.ready++;
    else
        maybe_move(s);
}

/* After a client's hello is answered: what it should do for its slot now
 * (also after a reconnect). */
static void on_welcome(struct client *c)
{
    struct slot *s = c->slot;
    c->welcomed = 1;
    run.welcomed++;
    if (s == NULL || s->phase == P_DONE || s->phase == P_WAIT)
        return;
    switch (c->role) {
    case ROLE_HOST:
        /* Its answers may have died with a killed process: what it has not
         * seen answered, it asks again (a stored claim answers bad_invite). */
        if (s->game[0] == '\0')
            send_create(s);
        else if (s->token[1][0] == '\0' && claimer(s) == c)
            send_claim(s);
        break;
    case ROLE_SEAT0:
        if (s->game[0] == '\0') {
            if (creator(s) == c)
                send_create(s);
        } else {
            send_join(c);
        }
        break;
    case ROLE_SEAT1:
        if (s->game[0] == '\0')
            break;
        if (s->token[1][0] == '\0') {
            if (claimer(s) == c)
                send_claim(s);
        } else {
            send_join(c);
        }
        break;
    case ROLE_SPEC:
        if (s->game[0])
            send_join(c);
        break;
    }
}

/* --- tictactoe ------------------------------------------------------------------------ */

static int ttt_over(const char *b)
{
    static const int lines[8][3] = { { 0, 1, 2 }, { 3, 4, 5 }, { 6, 7, 8 }, { 0, 3, 6 },
                                     { 1, 4, 7 }, { 2, 5, 8 }, { 0, 4, 8 }, { 2, 4, 6 } };
    for (int i = 0; i < 8; i++)
        if (b[lines[i][0]] != '.' && b[lines[i][0]] == b[lines[i][1]] &&
            b[lines[i][1]] == b[lines[i][2]])
            return 1;
    return strchr(b, '.') == NULL;
}

/* The tool learns that version v exists (a patch, an ack or a state): the
 * commands that made the versions up to v were its own pending ones, x
 * making the odd versions and o the even ones. -1 when they were not. */
static const char *const role_names[] = { "seat 0", "seat 1", "a spectator", "idle", "check",
                                          "host", "probe" };

static int confirm_from(struct slot *s, int64_t v, const char *what, const struct client *c)
{
    if (v > s->version)
        snprintf(s->seen_by, sizeof s->seen_by, "%s to %s", what, role_names[c->role]);
    if (opt.waterloo)
        return 0;
    while (s->version < v) {
        int64_t u = s->version + 1;
        int seat = (int)((u - 1) % 2);
        struct pend *p = &s->pend[seat];
        if (!p->active || (p->version != 0 && p->version != u))
            return -1;
        s->board[p->cell] = seat ? 'o' : 'x';
        p->version = u;
        s->version = u;
        if (ttt_over(s->board))
            s->over = 1;
    }
    return 0;
}

static void send_command(struct slot *s, int seat, const char *cmd_json, int cell, int resend)
{
    struct pend *p = &s->pend[seat];
    struct client *c = s->seat[seat];
    size_t cap = strlen(cmd_json) + 128;
    char stackbuf[512], *buf = cap <= sizeof stackbuf ? stackbuf : malloc(cap);
    if (buf == NULL)
        return;
    int n = snprintf(buf, cap, "{\"type\":\"command\",\"game\":\"%s\",\"seq\":%lld,\"cmd\":%s}",
                     s->game, (long long)p->seq, cmd_json);
    if (c->ws)
        wl_conn_send(c->ws, buf, (size_t)n);
    procs[c->proc].sent++;
    if (buf != stackbuf)
        free(buf);
    (void)cell;
    if (resend) {
        p->resent = 1;
        p->durable = p->version != 0;
        p->needs_resend = 0;
        st.resent++;
    }
}

static void ttt_move(struct slot *s, int seat, double now)
{
    int empty[9], ne = 0;
    for (int i = 0; i < 9; i++)
        if (s->board[i] == '.')
            empty[ne++] = i;
    if (ne == 0)
        return;
    int cell = empty[wr_prng_below(&rng, ne)];
    struct pend *p = &s->pend[seat];
    *p = (struct pend){ .active = 1, .seq = ++s->seq[seat], .cell = cell, .t = now,
                        .in_window = !run.stopping };
    p->rec_i = rec_add(s->rec, seat, p->seq, cell) ? s->rec->ncmds : 0;
    char cmd[48];
    snprintf(cmd, sizeof cmd, "{\"type\":\"mark\",\"cell\":%d}", cell);
    send_command(s, seat, cmd, cell, 0);
}

/* --- waterloo ------------------------------------------------------------------------- */

static int wl_roll(void *ctx, uint32_t k)
{
    const struct slot *s = ctx;
    for (int i = 0; i < s->nrolls; i++)
        if (s->rolls_k[i] == (int)k)
            return s->rolls_face[i];
    return 0;
}

static void wl_move(struct slot *s, double now)
{
    struct wl_game *g = s->wg;
    if (g->phase == WL_PH_OVER || g->await_side < 0 ||
        wl_autoplay_next(g, &rng, reach, s->wcmd) != 0) {
        s->over = 1;
        return;
    }
    int seat = g->await_side == WL_FRENCH ? 0 : 1;
    struct pend *p = &s->pend[seat];
    *p = (struct pend){ .active = 1, .seq = ++s->seq[seat], .cell = -1, .t = now,
                        .in_window = !run.stopping };
    json_t *j = wl_cmd_json(g, s->wcmd);
    char *text = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    if (text)
        send_command(s, seat, text, -1, 0);
    free(text);
}

/* The ack of the replica's pending command: apply it with the ack's dice. */
static int wl_acked(struct slot *s, int seat, const char *msg, size_t len, int64_t version)
{
    json_t *m = json_loadb(msg, len, 0, NULL);
    json_t *evs = json_object_get(m, "events");
    size_t i;
    json_t *e;
    s->nrolls = 0;
    json_array_foreach(evs, i, e) {
        const char *type = json_string_value(json_object_get(e, "type"));
        if (type && strcmp(type, "roll") == 0 && s->nrolls < 64) {
            s->rolls_k[s->nrolls] = (int)json_integer_value(json_object_get(e, "k"));
            s->rolls_face[s->nrolls++] = (int)json_integer_value(json_object_get(e, "face"));
        }
    }
    json_decref(m);
    struct wr_refusal why;
    events_scratch->n = 0;
    int side = seat == 0 ? WL_FRENCH : WL_ALLIED;
    if (version != s->version + 1 ||
        wl_game_apply(s->wg, side, s->wcmd, events_scratch, &why) != WL_R_OK) {
        complain("game %s: the replica does not follow the server at version %lld", s->game,
                 (long long)version);
        return -1;
    }
    s->version = version;
    if (s->wg->phase == WL_PH_OVER || s->wg->await_side < 0)
        s->over = 1;
    return 0;
}

/* --- play ------------------------------------------------------------------------------ */

static void maybe_move(struct slot *s)
{
    if (s->phase != P_PLAYING || s->over || run.stopping || !run.started || run.server_down)
        return;
    if (s->pend[0].active || s->pend[1].active) {
        /* tictactoe: the seat to move may go while the other's ack is on
         * its way; waterloo: one command in flight per game. */
        if (opt.waterloo || s->pend[(int)(s->version % 2)].active)
            return;
    }
    int seat;
    if (opt.waterloo) {
        if (s->wg->await_side < 0) {
            s->over = 1;
            return;
        }
        seat = s->wg->await_side == WL_FRENCH ? 0 : 1;
    } else {
        seat = (int)(s->version % 2);
    }
    struct client *c = s->seat[seat];
    if (!c->joined || c->seen < s->version || c->ws == NULL)
        return;
    if (opt.moves > 0 && st.sent_in_window >= opt.moves)
        return;
    double now = now_s();
    if (opt.rate > 0) {
        if (now < s->next_at) {
            heap_push(s);
            return;
        }
        s->next_at = (s->next_at > now - 1.0 / opt.rate ? s->next_at : now) + 1.0 / opt.rate;
    }
    int64_t v = s->version + 1;
    s->lat[v % LAT_RING].v = v;
    s->lat[v % LAT_RING].t = now;
    s->lat[v % LAT_RING].seen = 0;
    s->lat[v % LAT_RING].in_window = 1;
    if (opt.waterloo)
        wl_move(s, now);
    else
        ttt_move(s, seat, now);
    st.sent++;
    st.sent_in_window++;
}

static void maybe_finish(struct slot *s)
{
    if (s->phase != P_PLAYING || !s->over || s->pend[0].active || s->pend[1].active)
        return;
    for (int i = 0; i < opt.spectators; i++)
        if (s->spec[i].seen < s->version)
            return;
    if (opt.compare)
        compare_spectators(s);
    if (run.stopping) {
        /* Kept (joined) for the final comparison. */
        s->phase = P_DONE;
        return;
    }
    if (run.started)
        st.games_completed++;
    new_game(s);
}

static void spectator_saw(struct slot *s, const struct client *c, int64_t v, double now)
{
    if (v <= 0)
        return;
    if (s->lat[v % LAT_RING].v != v)
        return;
    /* --cluster: each spectator's own latency, on the owning process or
     * on another (unknown once the owner was killed: a takeover moved it). */
    if (opt.cluster && s->owner >= 0 && s->lat[v % LAT_RING].in_window)
        sample_add(c->proc == s->owner ? &st.lat_same : &st.lat_cross,
                   (now - s->lat[v % LAT_RING].t) * 1e3);
    if (++s->lat[v % LAT_RING].seen == opt.spectators) {
        if (s->lat[v % LAT_RING].in_window)
            sample_add(&st.lat, (now - s->lat[v % LAT_RING].t) * 1e3);
        s->lat[v % LAT_RING].v = -1;
    }
}

static struct cmdrec *pend_rec(struct slot *s, struct pend *p)
{
    return s->rec && p->rec_i > 0 && p->rec_i <= s->rec->ncmds ? &s->rec->cmds[p->rec_i - 1]
                                                              : NULL;
}

static void on_ack(struct client *c, int64_t seq, int64_t version, const char *msg, size_t len)
{
    struct slot *s = c->slot;
    int seat = c->role;
    struct pend *p = &s->pend[seat];
    double now = now_s();
    if (!p->active || p->seq != seq) {
        st.bad_answers++;
        complain("game %s seat %s: an ack for seq %lld, which is not pending", s->game,
                 seat_name(seat), (long long)seq);
        return;
    }
    if (opt.waterloo) {
        if (wl_acked(s, seat, msg, len, version) < 0) {
            count_error("replica");
            p->active = 0;
            s->phase = P_DONE;
            return;
        }
    } else {
        if (p->version != 0 && p->version != version) {
            st.duplicated++;
            complain("game %s seat %s: seq %lld made version %lld but its ack says %lld",
                     s->game, seat_name(seat), (long long)seq, (long long)p->version,
                     (long long)version);
        }
        if (version > s->version && confirm_from(s, version, "an ack", c) < 0) {
            st.mismatched++;
            complain("game %s: an ack for version %lld the tool cannot explain", s->game,
                     (long long)version);
        }
        if (p->resent) {
            if (p->durable)
                st.resent_original++;
            else
                st.resent_fresh++;
        }
    }
    struct cmdrec *r = pend_rec(s, p);
    if (r)
        r->version = version;
    if (version > s->acked_max)
        s->acked_max = version;
    st.acks++;
    procs[c->proc].acked++;
    if (run.started && !run.stopping)
        st.acks_in_window++;
    if (!p->resent && p->in_window) {
        sample_add(&st.ack_lat, (now - p->t) * 1e3);
        if (opt.spectators == 0)
            sample_add(&st.lat, (now - p->t) * 1e3);
    }
    p->active = 0;
    maybe_finish(s);
    maybe_move(s);
}

/* --- messages from the server ---------------------------------------------------------- */

enum { K_TYPE, K_GAME, K_FROM, K_TO, K_SEQ, K_VERSION, K_CODE, K_TOKEN, K_INVITES, K_STATE,
       K_MESSAGE, K_OPS, K_ID, NK };
static const char *const keys[NK] = { "type", "game", "from", "to", "seq", "version", "code",
                                      "token", "invites", "state", "message", "ops", "id" };

static int game_is(const struct slot *s, struct wl_jv g)
{
    return s != NULL && s->game[0] && wl_jv_streq(g, s->game);
}

/* The nested member key of an object value (a one-level path). */
static struct wl_jv member(struct wl_jv obj, const char *key)
{
    struct wl_jv out = { NULL, 0 };
    const char *const k[1] = { key };
    if (obj.p)
        wl_js_fields(obj.p, obj.n, k, 1, &out);
    return out;
}

static void resend_pending(struct client *c)
{
    struct slot *s = c->slot;
    struct pend *p = &s->pend[c->role];
    if (!p->active || !p->needs_resend)
        return;
    char cmd[48];
    snprintf(cmd, sizeof cmd, "{\"type\":\"mark\",\"cell\":%d}", p->cell);
    send_command(s, c->role, cmd, p->cell, 1);
}

/* --- what spectators hold (--compare-spectators) ---------------------------------------- */

/* The text a state is compared by: keys sorted, compact, without
 * server.deadlines_left (the one member a state built by patches may hold
 * differently, docs/protocol.md "The state"). Caller frees. */
static char *canonical(const json_t *doc)
{
    json_t *d = json_deep_copy(doc);
    json_t *server = json_object_get(d, "server");
    if (json_is_object(server))
        json_object_del(server, "deadlines_left");
    char *text = json_dumps(d, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(d);
    return text;
}

static void doc_state(struct client *c, struct wl_jv state, int64_t v)
{
    if (c->doc && v < c->doc_v)
        return;             /* counted as lost by the caller */
    json_t *d = state.p ? json_loadb(state.p, state.n, JSON_REJECT_DUPLICATES, NULL) : NULL;
    if (d == NULL) {
        st.views_differ++;
        complain("game %s: process %d sent a spectator a state at version %lld it cannot read",
                 c->slot->game, c->proc, (long long)v);
    }
    json_decref(c->doc);
    c->doc = d;
    c->doc_v = v;
}

/* A patch from..to on the spectator's state. One it cannot apply leaves it
 * without a state (so the final comparison names it too). */
static void doc_patch(struct client *c, struct wl_jv ops, int64_t from, int64_t to)
{
    struct slot *s = c->slot;
    if (c->doc == NULL || to <= c->doc_v)
        return;
    json_t *p = ops.p ? json_loadb(ops.p, ops.n, JSON_REJECT_DUPLICATES, NULL) : NULL;
    json_t *out = NULL;
    char err[200] = "unreadable ops";
    if (from != c->doc_v)
        snprintf(err, sizeof err, "the spectator holds version %lld", (long long)c->doc_v);
    if (from != c->doc_v || p == NULL ||
        wr_jsonpatch_apply(c->doc, p, &out, err, sizeof err) != 0) {
        st.views_differ++;
        complain("game %s: a spectator on process %d cannot apply the patch %lld..%lld: %s",
                 s->game, c->proc, (long long)from, (long long)to, err);
        json_decref(c->doc);
        c->doc = NULL;
    } else {
        json_decref(c->doc);
        c->doc = out;
        c->doc_v = to;
    }
    json_decref(p);
}

/* A finished game: every spectator holds the same state at its last
 * version (whichever process it follows the game through). */
static void compare_spectators(struct slot *s)
{
    char *first = NULL;
    int first_proc = -1;
    for (int i = 0; i < opt.spectators; i++) {
        struct client *c = &s->spec[i];
        if (c->doc == NULL || c->doc_v != s->version) {
            st.views_differ++;
            complain("game %s: the spectator on process %d holds %s%lld, the game is at "
                     "version %lld", s->game, c->proc, c->doc ? "version " : "no state, seen ",
                     (long long)(c->doc ? c->doc_v : c->seen), (long long)s->version);
            continue;
        }
        char *text = canonical(c->doc);
        if (first == NULL) {
            first = text, first_proc = c->proc;
            continue;
        }
        if (text == NULL || strcmp(text, first) != 0) {
            st.views_differ++;
            complain("game %s version %lld: the spectators on processes %d and %d hold "
                     "different states", s->game, (long long)s->version, first_proc, c->proc);
        }
        free(text);
    }
    free(first);
    st.spectators_compared += opt.spectators;
}

static void on_probe_state(struct client *c, const struct wl_jv *f);

static void on_state(struct client *c, const struct wl_jv *f)
{
    struct slot *s = c->slot;
    int64_t v;
    if (c->role == ROLE_PROBE) {
        on_probe_state(c, f);
        return;
    }
    if (c->role == ROLE_HOST || !game_is(s, f[K_GAME]) || wl_jv_int(f[K_VERSION], &v) < 0)
        return;
    int first = !c->joined;
    if (!c->joined) {
        c->joined = 1;
        if (c->role == ROLE_SPEC)
            s->spec_joined++;
    }
    /* A state may be older than what another connection of the game has
     * already seen (connections are not ordered with each other), never
     * older than what this one saw, nor than anything seen before the
     * server was last killed: the restarted server restored at least that,
     * and only builds on it.
     *
     * --cluster: a state comes from the process the client is on, which
     * may follow the game (not own it) and be behind what clients of other
     * processes saw (its join's answer, the full state a copy sends when it
     * learns that the game started): counted as stale, not lost; the
     * patches follow, and the final checks say whether anything
     * acknowledged was lost. Never older than what this connection saw,
     * unless it moved here from a killed process; and never older than the
     * version its sync said it knew (the sync's id carries it). */
    int stale = 0;
    char id[32] = "";
    long long since = -1;
    if (wl_jv_str(f[K_ID], id, sizeof id) == 0 && sscanf(id, "sync:%lld", &since) == 1 &&
        v < since) {
        st.lost++;
        complain("game %s: a sync from version %lld was answered with a state at version %lld "
                 "(to %s on process %d)", s->game, since, (long long)v, role_names[c->role],
                 c->proc);
    }
    if (c->moved) {
        c->moved = 0;
        if (v < c->seen || v < s->seen_at_kill) {
            stale = 1;
            c->seen = v;
            json_decref(c->doc);
            c->doc = NULL;
        }
    } else if (opt.cluster && v < s->seen_at_kill && v >= c->seen) {
        stale = 1;
    }
    st.stale_states += stale;
    if (v < c->seen) {
        st.lost++;
        complain("game %s: a state at version %lld, but this connection (%s on process %d) "
                 "saw %lld", s->game, (long long)v, role_names[c->role], c->proc,
                 (long long)c->seen);
    }
    if (v > c->seen)
        c->seen = v;
    if (c->sync_since > 0 && v >= c->sync_since)
        c->sync_since = 0;
    if (opt.compare && c->role == ROLE_SPEC)
        doc_state(c, f[K_STATE], v);
    if (!opt.waterloo) {
        char board[16] = "";
        wl_jv_str(member(f[K_STATE], "board"), board, sizeof board);
        int bad = 0;
        if (v < s->seen_at_kill && !stale) {
            st.lost++;
            bad = 1;
            complain("game %s: the restarted server is at version %lld; before the kill the "
                     "tool saw %lld (last raised by %s); a state to %s on process %d, %s",
                     s->game, (long long)v, (long long)s->seen_at_kill, s->seen_by,
                     role_names[c->role], c->proc, first ? "its first" : "not its first");
        } else if (v > s->version && confirm_from(s, v, "a state", c) < 0) {
            st.mismatched++;
            bad = 1;
            complain("game %s: version %lld holds commands the tool did not send", s->game,
                     (long long)v);
        }
        if (!bad && v == s->version && strlen(board) == 9 && strcmp(board, s->board) != 0) {
            st.mismatched++;
            bad = 1;
            complain("game %s: board %s at version %lld, the tool expects %s", s->game, board,
                     (long long)v, s->board);
        }
        if (bad && strlen(board) == 9) {
            memcpy(s->board, board, 10);
            s->version = v;
            s->over = ttt_over(board);
        }
        if (c->role != ROLE_SPEC)
            resend_pending(c);
    }
    check_ready(s);
    maybe_finish(s);
    maybe_move(s);
}

static void on_patch(struct client *c, const struct wl_jv *f)
{
    struct slot *s = c->slot;
    int64_t from, to;
    if (c->role == ROLE_HOST || !game_is(s, f[K_GAME]) || wl_jv_int(f[K_FROM], &from) < 0 ||
        wl_jv_int(f[K_TO], &to) < 0)
        return;
    if (to <= c->seen)
        return;             /* already known (a sync answer after a state) */
    /* A sync's answer goes on from the version the sync named, which the
     * client holds (a client keeps its own newer state when the join of a
     * copy behind answers older): not a gap. */
    int from_sync = c->sync_since > 0 && from == c->sync_since;
    if (from_sync)
        c->sync_since = 0;
    if (from > c->seen && !from_sync) {
        count_error("patch_gap");
        complain("game %s: a patch from %lld, the connection (%s on process %d) has %lld",
                 s->game, (long long)from, role_names[c->role], c->proc, (long long)c->seen);
    }
    if (opt.compare && c->role == ROLE_SPEC)
        doc_patch(c, f[K_OPS], from, to);
    c->seen = to;
    if (to > s->version && confirm_from(s, to, "a patch", c) < 0) {
        st.mismatched++;
        complain("game %s: a patch to version %lld the tool cannot explain", s->game,
                 (long long)to);
    }
    if (c->role == ROLE_SPEC)
        spectator_saw(s, c, to, now_s());
    maybe_finish(s);
    maybe_move(s);
}

static void on_created(struct client *c, const struct wl_jv *f)
{
    struct slot *s = c->slot;
    if (s == NULL || c != creator(s) || s->phase != P_CREATING)
        return;
    if (wl_jv_str(f[K_GAME], s->game, sizeof s->game) < 0 ||
        wl_jv_str(f[K_TOKEN], s->token[0], sizeof s->token[0]) < 0 ||
        wl_jv_str(member(f[K_INVITES], seat_name(1)), s->invite, sizeof s->invite) < 0) {
        count_error("bad_created");
        return;
    }
    st.games_created++;
    s->phase = P_CLAIMING;
    s->owner = opt.cluster ? c->proc : 0;
    if (c->role == ROLE_HOST) {
        /* The host only sets the game up: the first player joins with the
         * token on its own process. */
        sendf(c, "{\"type\":\"leave\",\"game\":\"%s\"}", s->game);
        if (s->seat[0]->welcomed)
            send_join(s->seat[0]);
    } else {
        c->joined = 1;      /* the creator is joined (its state may come first) */
        c->seen = 0;
    }
    if ((opt.crash || opt.cluster) && !opt.waterloo)
        s->rec = new_rec(s->game);      /* tictactoe's commands are checked */
    if (opt.waterloo) {
        wl_game_init(s->wg, scenario, s->game, NULL);
        s->wg->roll_source = wl_roll;
        s->wg->roll_ctx = s;
    }
    if (claimer(s)->welcomed)
        send_claim(s);
    for (int i = 0; i < opt.spectators; i++)
        if (s->spec[i].welcomed)
            send_join(&s->spec[i]);
}

static void on_claimed(struct client *c, const struct wl_jv *f)
{
    struct slot *s = c->slot;
    if (s == NULL || c != claimer(s) || !game_is(s, f[K_GAME]))
        return;
    if (wl_jv_str(f[K_TOKEN], s->token[1], sizeof s->token[1]) < 0) {
        count_error("bad_claimed");
        return;
    }
    if (c->role == ROLE_HOST) {
        sendf(c, "{\"type\":\"leave\",\"game\":\"%s\"}", s->game);
        if (s->seat[1]->welcomed)
            send_join(s->seat[1]);
    } else {
        c->joined = 1;
        c->seen = 0;
    }
    s->phase = P_JOINING;
    check_ready(s);
}

static void on_record(struct client *c, const char *data, size_t len);
static void checker_failed(void);

static void on_error(struct client *c, const struct wl_jv *f)
{
    char code[40] = "?";
    wl_jv_str(f[K_CODE], code, sizeof code);
    if (c->role == ROLE_PROBE) {
        on_probe_error(c, f);
        return;
    }
    if (c->role == ROLE_CHECK) {
        count_error(code);
        checker_failed();
        return;
    }
    struct slot *s = c->slot;
    if (s != NULL && c == claimer(s) && strcmp(code, "bad_invite") == 0 && st.kills > 0) {
        /* The claim was stored but its answer died with the server: the
         * seat's token is gone. Nothing was played: start another game. */
        st.abandoned++;
        if (s->rec)
            s->rec->abandoned = 1;
        new_game(s);
        return;
    }
    count_error(code);
    char msg[128] = "";
    wl_jv_str(f[K_MESSAGE], msg, sizeof msg);
    if (opt.cluster && s != NULL)
        complain("error %s (%s) to %s on process %d, game %s (created on %d)", code, msg,
                 role_names[c->role], c->proc, s->game, s->owner);
    else
        complain("error %s (%s)", code, msg);
    int64_t seq;
    if (s == NULL || c->role > ROLE_SEAT1 || wl_jv_int(f[K_SEQ], &seq) < 0)
        return;
    struct pend *p = &s->pend[c->role];
    if (!p->active || p->seq != seq)
        return;
    if (p->resent) {
        /* Re-sent after a restart and refused: it was applied before and
         * then forgotten, or never stored and now illegal. */
        st.duplicated++;
    }
    struct cmdrec *r = pend_rec(s, p);
    if (r)
        r->version = -1;
    p->active = 0;
    /* Start again from the server's state. */
    if (!run.stopping && s->phase == P_PLAYING && !opt.waterloo)
        send_join(c);
}

static void on_message(struct wl_conn *ws, const char *data, size_t len)
{
    struct client *c = wl_conn_user(ws);
    struct wl_jv f[NK];
    if (wl_js_fields(data, len, keys, NK, f) < 0) {
        count_error("unreadable_message");
        return;
    }
    struct wl_jv t = f[K_TYPE];
    if (wl_jv_streq(t, "patch")) {
        on_patch(c, f);
    } else if (wl_jv_streq(t, "ack")) {
        int64_t seq, version;
        if (c->slot && c->role <= ROLE_SEAT1 && game_is(c->slot, f[K_GAME]) &&
            wl_jv_int(f[K_SEQ], &seq) == 0 && wl_jv_int(f[K_VERSION], &version) == 0)
            on_ack(c, seq, version, data, len);
    } else if (wl_jv_streq(t, "state")) {
        on_state(c, f);
    } else if (wl_jv_streq(t, "welcome")) {
        on_welcome(c);
        if (c->role == ROLE_CHECK)
            on_record(c, NULL, 0);
        else if (c->role == ROLE_PROBE)
            probe_next(c);
    } else if (wl_jv_streq(t, "created")) {
        on_created(c, f);
    } else if (wl_jv_streq(t, "claimed")) {
        on_claimed(c, f);
    } else if (wl_jv_streq(t, "error")) {
        on_error(c, f);
    } else if (wl_jv_streq(t, "record")) {
        on_record(c, data, len);
    } else if (!wl_jv_streq(t, "left") && !wl_jv_streq(t, "synced")) {
        count_error("unexpected_message");
    }
}

/* --- connections ----------------------------------------------------------------------- */

enum { Q_NONE, Q_CONNECTING, Q_OPEN };

static void on_open(struct wl_conn *ws)
{
    struct client *c = wl_conn_user(ws);
    if (c->queued == Q_CONNECTING)
        run.connecting--;
    c->queued = Q_OPEN;
    static const char hello[] = "{\"type\":\"hello\",\"protocol\":1,\"client\":\"warroom-load\"}";
    wl_conn_send(ws, hello, sizeof hello - 1);
}

static void on_close(struct wl_conn *ws, int code, const char *why)
{
    struct client *c = wl_conn_user(ws);
    if (c->queued == Q_CONNECTING)
        run.connecting--;
    c->queued = Q_NONE;
    c->ws = NULL;
    c->welcomed = 0;
    c->joined = 0;
    st.closed++;
    count_error("connection_closed");
    complain("a connection closed: %s (code %d)", why, code);
}

static int open_client(struct client *c)
{
    c->ws = wl_conn_open(net, c->src, srv.addr, proc_port(c->proc), c);
    if (c->ws == NULL) {
        complain("cannot connect: %s", strerror(errno));
        count_error("connect");
        return -1;
    }
    c->queued = Q_CONNECTING;
    run.connecting++;
    return 0;
}

/* Connect the clients without a connection, MAX_CONNECTING handshakes at a
 * time (all of them at the start, a killed process's after a kill). */
static void start_connections(void)
{
    while (run.connecting < MAX_CONNECTING && run.next_connect < nclients && !run.server_down) {
        struct client *c = &clients[run.next_connect++];
        if (c->ws == NULL)
            open_client(c);
    }
}

/* --- crash ----------------------------------------------------------------------------- */

static int rand_ms(int lo, int hi)
{
    return hi > lo ? lo + wr_prng_below(&rng, hi - lo + 1) : lo;
}

/* Process p is gone (killed): its clients lose their connections and move
 * to process `to` (the same one for a single server, which comes back).
 * What they had in flight is re-sent once they have joined again, with the
 * same seq; every state from now on must hold at least what the tool saw. */
static void drop_clients(int p, int to)
{
    for (int i = 0; i < opt.games; i++) {
        struct slot *s = &slots[i];
        s->seen_at_kill = s->version > s->acked_max ? s->version : s->acked_max;
    }
    for (int i = 0; i < nclients; i++) {
        struct client *c = &clients[i];
        if (c->proc != p)
            continue;
        if (c->ws)
            wl_conn_abort(c->ws);
        if (c->queued == Q_CONNECTING)
            run.connecting--;
        if (c->welcomed)
            run.welcomed--;
        struct slot *s = c->slot;
        if (s != NULL) {
            if (c->role == ROLE_SPEC && c->joined)
                s->spec_joined--;
            if (c->role <= ROLE_SEAT1 && s->pend[c->role].active)
                s->pend[c->role].needs_resend = 1;
            for (int k = 0; k < LAT_RING; k++)
                s->lat[k].v = -1;
            if (s->phase == P_PLAYING)
                s->phase = P_JOINING;
        }
        c->ws = NULL;
        c->welcomed = c->joined = 0;
        c->queued = Q_NONE;
        c->moved = to != p;
        c->proc = to;
    }
    run.next_connect = 0;
}

/* SIGKILL process p (its CPU so far counted first, restores included). */
static void kill_proc(int p)
{
    struct proc *pr = &procs[p];
    double cpu = proc_cpu(pr->pid);
    if (cpu >= 0)
        run.cpu_killed += cpu - pr->cpu0;
    pr->cpu0 = 0;
    pr->commands_gone += pr->last_commands;
    pr->forwards_gone += pr->last_forwards;
    pr->takeovers_gone += pr->last_takeovers;
    pr->last_commands = pr->last_forwards = pr->last_takeovers = 0;
    kill(pr->pid, SIGKILL);
    waitpid(pr->pid, NULL, 0);
    close(pr->out_fd);
    pr->pid = 0;
    st.kills++;
}

static int kill_and_restart(void)
{
    double t = now_s();
    kill_proc(0);
    run.server_down = 1;
    drop_clients(0, 0);
    if (spawn_server(0) < 0)
        return -1;
    sample_add(&st.restart_ms, (now_s() - t) * 1e3);
    run.server_down = 0;
    return 0;
}

static struct server_metrics get_metrics(int port);

/* --cluster: SIGKILL the live process that owns the most games (its
 * /metrics; a tie drawn with the run's seed), to be restarted at
 * procs[p].restart_at; its clients move to the next live process. */
static int cluster_kill(void)
{
    int best[MAX_PROCS], nbest = 0;
    double most = -1;
    for (int p = 0; p < nprocs; p++) {
        if (procs[p].pid <= 0 || procs[p].starting)
            continue;
        struct server_metrics m = get_metrics(procs[p].port);
        metrics_seen(p, &m);
        double owned = m.ok ? m.games_owned : 0;
        if (owned > most)
            most = owned, nbest = 0;
        if (owned == most)
            best[nbest++] = p;
    }
    if (nbest == 0)
        return -1;
    int p = best[nbest > 1 ? wr_prng_below(&rng, nbest) : 0];
    int to = p;
    do
        to = (to + 1) % nprocs;
    while ((procs[to].pid <= 0 || procs[to].starting) && to != p);
    if (to == p)
        return -1;
    kill_proc(p);
    fprintf(stderr, "warroom-load: kill %d: process %d (%g games owned), its clients to %d\n",
            st.kills, p, most, to);
    /* Its games are taken over by whoever next gets a command for them. */
    for (int i = 0; i < opt.games; i++)
        if (slots[i].owner == p)
            slots[i].owner = -1;
    drop_clients(p, to);
    procs[p].restart_at = now_s() + rand_ms(opt.kill_min_ms, opt.kill_max_ms) / 1000.0;
    return 0;
}

/* The killed process p, due back: started now, or (already started) its
 * address line read if it came, without blocking the loop. 1 once it is
 * up again, 0 not yet, -1 when it did not start. */
static int cluster_restart(int p, int wait_ms)
{
    struct proc *pr = &procs[p];
    if (pr->pid <= 0) {
        if (spawn_begin(p) < 0)
            return -1;
        pr->cpu0 = 0;
        pr->restart_at = now_s();
    }
    int up = spawn_wait(p, wait_ms);
    if (up == 1)
        sample_add(&st.restart_ms, (now_s() - pr->restart_at) * 1e3);
    return up;
}

/* A process that is down or not up yet, or -1. */
static int cluster_down(void)
{
    for (int p = 0; p < nprocs; p++)
        if (procs[p].pid <= 0 || procs[p].starting)
            return p;
    return -1;
}

/* --- the final check: every game against the server's record ------------------------- */

static struct {
    struct gamerec *next;       /* next to request */
    struct gamerec *fifo[EXPORT_WINDOW];
    int head, n;
    int done;
} chk;

static int cmp_version(const void *a, const void *b)
{
    const struct cmdrec *x = a, *y = b;
    return (x->version > y->version) - (x->version < y->version);
}

static void verify(struct gamerec *r, const char *text)
{
    /* The acknowledged commands in version order: 1, 2, ..., n. */
    struct cmdrec *acked = malloc(sizeof *acked * (size_t)(r->ncmds + 1));
    int n = 0;
    for (int i = 0; i < r->ncmds; i++)
        if (r->cmds[i].version > 0)
            acked[n++] = r->cmds[i];
    qsort(acked, (size_t)n, sizeof *acked, cmp_version);
    for (int i = 0; i < n; i++)
        if (acked[i].version != i + 1) {
            st.mismatched++;
            complain("game %s: acknowledged versions are not 1..%d (found %lld at %d)", r->id, n,
                     (long long)acked[i].version, i + 1);
            break;
        }
    /* The record: a header line, then one line per applied command. */
    int line = 0, lines = 0;
    const char *p = text;
    while (p && *p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len > 0 && line++ > 0) {
            json_t *j = json_loadb(p, len, 0, NULL);
            const char *seat = json_string_value(json_object_get(j, "seat"));
            int cell = (int)json_integer_value(json_object_get(json_object_get(j, "cmd"),
                                                               "cell"));
            if (lines < n) {
                const struct cmdrec *a = &acked[lines];
                if (seat == NULL || strcmp(seat, seat_name(a->seat)) != 0 || cell != a->cell) {
                    st.mismatched++;
                    complain("game %s: version %d is %s %d on the server, %s %d acknowledged",
                             r->id, lines + 1, seat ? seat : "?", cell, seat_name(a->seat),
                             a->cell);
                }
            }
            lines++;
            json_decref(j);
        }
        p = nl ? nl + 1 : NULL;
    }
    if (lines < n) {
        st.lost += n - lines;
        complain("game %s: %d commands acknowledged, %d on the server", r->id, n, lines);
    } else if (lines > n) {
        st.duplicated += lines - n;
        complain("game %s: %d commands on the server, %d acknowledged", r->id, lines, n);
    }
    st.checked_games++;
    st.checked_commands += n;
    free(acked);
}

static void request_exports(void)
{
    while (chk.n < EXPORT_WINDOW && chk.next) {
        struct gamerec *r = chk.next;
        chk.next = r->next;
        chk.fifo[(chk.head + chk.n++) % EXPORT_WINDOW] = r;
        sendf(&checker, "{\"type\":\"export\",\"game\":\"%s\"}", r->id);
    }
    if (chk.n == 0 && chk.next == NULL)
        chk.done = 1;
}

static struct gamerec *fifo_pop(void)
{
    if (chk.n == 0)
        return NULL;
    struct gamerec *r = chk.fifo[chk.head];
    chk.head = (chk.head + 1) % EXPORT_WINDOW;
    chk.n--;
    return r;
}

static void checker_failed(void)
{
    struct gamerec *r = fifo_pop();
    if (r) {
        st.mismatched++;
        complain("game %s: export refused", r->id);
    }
    request_exports();
}

static void on_record(struct client *c, const char *data, size_t len)
{
    (void)c;
    if (data != NULL) {
        struct gamerec *r = fifo_pop();
        json_t *m = json_loadb(data, len, 0, NULL);
        const char *game = json_string_value(json_object_get(m, "game"));
        const char *text = json_string_value(json_object_get(m, "record"));
        if (r && game && text && strcmp(game, r->id) == 0) {
            verify(r, text);
        } else if (r) {
            st.mismatched++;
            complain("game %s: unexpected export answer", r->id);
        }
        json_decref(m);
    }
    request_exports();
}

/* --- the final comparison: what everyone holds against fresh spectators ------------- */

/* Once every game has reached its last version everywhere, one fresh
 * connection per process joins each game as a spectator: its state must be
 * the one every spectator of the game built (on whichever process), at the
 * version the tool saw acknowledged, and every player must have seen that
 * version. The join's id is the slot's index. */
static struct client probes[MAX_PROCS];
static struct {
    int next[MAX_PROCS];        /* next slot to ask about */
    int out[MAX_PROCS];         /* joins in flight */
    int done;                   /* probes that asked about every slot */
} prb;

/* A game the comparison covers: still joined by everyone at the end. */
static int comparable(const struct slot *s)
{
    return s->game[0] && (s->phase == P_PLAYING || s->phase == P_DONE) && s->token[1][0];
}

/* Does a spectator's state (--compare-spectators) show its game still
 * waiting for a seat? */
static int doc_open(const struct client *c)
{
    const char *status = json_string_value(json_object_get(json_object_get(c->doc, "server"),
                                                           "status"));
    return status == NULL || strcmp(status, "open") == 0;
}

/* Has everyone of every comparable game seen its last version? And, with
 * --compare-spectators, has every spectator seen that the game started?
 * A claim changes no version, and a process that follows a game (--cluster)
 * learns of it a little later than its owner: the full state saying so
 * comes after. */
static int settled(void)
{
    for (int i = 0; i < opt.games; i++) {
        const struct slot *s = &slots[i];
        if (!comparable(s))
            continue;
        for (int k = 0; k < 2; k++)
            if (!s->seat[k]->joined || s->seat[k]->seen < s->version)
                return 0;
        for (int k = 0; k < opt.spectators; k++)
            if (!s->spec[k].joined || s->spec[k].seen < s->version ||
                (opt.compare && doc_open(&s->spec[k])))
                return 0;
    }
    return 1;
}

static void probe_next(struct client *c)
{
    int p = c->proc;
    while (prb.out[p] < EXPORT_WINDOW && prb.next[p] < opt.games) {
        int i = prb.next[p]++;
        if (!slots[i].compared)
            continue;
        sendf(c, "{\"type\":\"join\",\"game\":\"%s\",\"spectate\":true,\"id\":%d}",
              slots[i].game, i);
        prb.out[p]++;
    }
    if (prb.out[p] == 0 && prb.next[p] >= opt.games) {
        prb.next[p]++;          /* counted once */
        prb.done++;
    }
}

/* The answer to one probe join: slot's index from the id, or -1. */
static int probe_slot(const struct wl_jv *f)
{
    int64_t i;
    if (wl_jv_int(f[K_ID], &i) < 0 || i < 0 || i >= opt.games)
        return -1;
    return (int)i;
}

static void on_probe_state(struct client *c, const struct wl_jv *f)
{
    int i = probe_slot(f), p = c->proc;
    int64_t v;
    if (i < 0)
        return;                 /* not an answer (nothing else is expected) */
    struct slot *s = &slots[i];
    prb.out[p]--;
    json_t *fresh = f[K_STATE].p ? json_loadb(f[K_STATE].p, f[K_STATE].n, JSON_REJECT_DUPLICATES,
                                              NULL)
                                 : NULL;
    char *want = fresh ? canonical(fresh) : NULL;
    if (!game_is(s, f[K_GAME]) || wl_jv_int(f[K_VERSION], &v) < 0 || want == NULL) {
        st.views_differ++;
        complain("game %s: process %d answered a spectator's join with an unreadable state",
                 s->game, p);
        v = -1;
    } else if (v != s->version) {
        st.views_differ++;
        complain("game %s: a fresh spectator on process %d gets version %lld, the tool saw "
                 "%lld", s->game, p, (long long)v, (long long)s->version);
    }
    if (want && v == s->version) {
        if (opt.compare)
            for (int k = 0; k < opt.spectators; k++) {
                struct client *sp = &s->spec[k];
                char *have = sp->doc && sp->doc_v == v ? canonical(sp->doc) : NULL;
                if (have == NULL || strcmp(have, want) != 0) {
                    st.views_differ++;
                    complain("game %s version %lld: the spectator on process %d holds %s than a "
                             "fresh spectator on process %d (it holds %.400s; the fresh one "
                             "%.400s)", s->game, (long long)v, sp->proc,
                             have ? "another state" : "no state or an older one", p,
                             have ? have : "nothing", want);
                }
                free(have);
                st.spectators_compared++;
            }
        for (int k = 0; k < 2; k++)
            if (s->seat[k]->seen != v) {
                st.views_differ++;
                complain("game %s: the player %s on process %d saw version %lld, a fresh "
                         "spectator on process %d gets %lld", s->game, seat_name(k),
                         s->seat[k]->proc, (long long)s->seat[k]->seen, p, (long long)v);
            }
        char board[16] = "";
        if (!opt.waterloo && wl_jv_str(member(f[K_STATE], "board"), board, sizeof board) == 0 &&
            strcmp(board, s->board) != 0) {
            st.views_differ++;
            complain("game %s version %lld: board %s on process %d, the players made %s",
                     s->game, (long long)v, board, p, s->board);
        }
    }
    free(want);
    json_decref(fresh);
    sendf(c, "{\"type\":\"leave\",\"game\":\"%s\"}", s->game);
    probe_next(c);
}

static void on_probe_error(struct client *c, const struct wl_jv *f)
{
    int i = probe_slot(f);
    char code[40] = "?";
    wl_jv_str(f[K_CODE], code, sizeof code);
    if (i < 0)
        return;
    prb.out[c->proc]--;
    st.views_differ++;
    complain("game %s: a spectator's join on process %d: error %s", slots[i].game, c->proc, code);
    probe_next(c);
}

/* --- /metrics ---------------------------------------------------------------------------- */

static double metric(const char *body, const char *name)
{
    char key[128];
    snprintf(key, sizeof key, "\n%s ", name);
    const char *p = strstr(body, key);
    return p ? strtod(p + strlen(key), NULL) : 0;
}

/* GET /metrics with a deadline (blocking, outside the measured window's
 * hot path: once before and once after). */
static struct server_metrics get_metrics(int port)
{
    struct server_metrics m = { 0 };
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                             .sin_addr.s_addr = htonl(srv.addr) };
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        if (fd >= 0)
            close(fd);
        return m;
    }
    static const char req[] = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    if (write(fd, req, sizeof req - 1) != (ssize_t)(sizeof req - 1)) {
        close(fd);
        return m;
    }
    static char buf[65536];
    size_t n = 0;
    double deadline = now_s() + 5;
    while (n + 1 < sizeof buf) {
        int left = (int)((deadline - now_s()) * 1000);
        struct pollfd p = { .fd = fd, .events = POLLIN };
        if (left <= 0 || poll(&p, 1, left) <= 0)
            break;
        ssize_t r = read(fd, buf + n, sizeof buf - 1 - n);
        if (r <= 0)
            break;
        n += (size_t)r;
        buf[n] = '\0';
        const char *cl = strcasestr(buf, "content-length:"), *body = strstr(buf, "\r\n\r\n");
        if (cl && body && n >= (size_t)(body + 4 - buf) + strtoul(cl + 15, NULL, 10))
            break;
    }
    close(fd);
    buf[n] = '\0';
    const char *body = strstr(buf, "\r\n\r\n");
    if (body == NULL)
        return m;
    m.commits = metric(body, "warroom_store_commit_seconds_count");
    m.commit_seconds = metric(body, "warroom_store_commit_seconds_sum");
    m.commands = metric(body, "warroom_commands_total");
    m.commits_le_10ms = metric(body, "warroom_store_commit_seconds_bucket{le=\"0.01\"}");
    m.commits_le_50ms = metric(body, "warroom_store_commit_seconds_bucket{le=\"0.05\"}");
    m.games_owned = metric(body, "warroom_games_owned");
    m.forwards = metric(body, "warroom_cluster_forwards_total");
    m.takeovers = metric(body, "warroom_cluster_takeovers_total");
    m.ok = 1;
    return m;
}

/* --- options, set-up, the run, the report -------------------------------------------- */

enum { O_START = 256, O_SERVER, O_SERVER_PID, O_SERVER_ARG, O_SCENARIOS, O_SCENARIO, O_RULESET,
       O_GAMES, O_SPECTATORS, O_SECONDS, O_MOVES, O_RATE, O_IDLE, O_PER_ADDRESS, O_CRASH,
       O_KILL_MIN, O_KILL_MAX, O_SEED, O_KEEP, O_CLUSTER, O_DB, O_CLAIM_ON, O_COMPARE };

static int number(const char *name, const char *v, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (errno || *end || end == v || d < lo || d > hi) {
        fprintf(stderr, "warroom-load: %s wants a number from %g to %g, got '%s'\n", name, lo,
                hi, v);
        return -1;
    }
    *out = d;
    return 0;
}

static int parse_options(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "start", required_argument, NULL, O_START },
        { "server", required_argument, NULL, O_SERVER },
        { "server-pid", required_argument, NULL, O_SERVER_PID },
        { "server-arg", required_argument, NULL, O_SERVER_ARG },
        { "scenarios", required_argument, NULL, O_SCENARIOS },
        { "scenario", required_argument, NULL, O_SCENARIO },
        { "ruleset", required_argument, NULL, O_RULESET },
        { "games", required_argument, NULL, O_GAMES },
        { "spectators", required_argument, NULL, O_SPECTATORS },
        { "seconds", required_argument, NULL, O_SECONDS },
        { "moves", required_argument, NULL, O_MOVES },
        { "rate", required_argument, NULL, O_RATE },
        { "idle", required_argument, NULL, O_IDLE },
        { "per-address", required_argument, NULL, O_PER_ADDRESS },
        { "crash", required_argument, NULL, O_CRASH },
        { "kill-min-ms", required_argument, NULL, O_KILL_MIN },
        { "kill-max-ms", required_argument, NULL, O_KILL_MAX },
        { "seed", required_argument, NULL, O_SEED },
        { "keep", no_argument, NULL, O_KEEP },
        { "cluster", required_argument, NULL, O_CLUSTER },
        { "db", required_argument, NULL, O_DB },
        { "claim-on", required_argument, NULL, O_CLAIM_ON },
        { "compare-spectators", no_argument, NULL, O_COMPARE },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    size_t at = 0;
    for (int i = 0; i < argc && at < sizeof opt.cmdline - 1; i++)
        at += (size_t)snprintf(opt.cmdline + at, sizeof opt.cmdline - at, "%s%s", i ? " " : "",
                               argv[i]);
    int o;
    double d;
    while ((o = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (o) {
        case 'h':
            usage(stdout);
            exit(0);
        case O_START:
            opt.start = optarg;
            break;
        case O_SERVER:
            opt.server = optarg;
            break;
        case O_SERVER_PID:
            if (number("--server-pid", optarg, 1, 4194304, &d) < 0)
                return -1;
            opt.server_pid = (pid_t)d;
            break;
        case O_SERVER_ARG:
            if (opt.nserver_args >= 32)
                return -1;
            opt.server_args[opt.nserver_args++] = optarg;
            break;
        case O_SCENARIOS:
            opt.scenarios = optarg;
            break;
        case O_SCENARIO:
            opt.scenario = optarg;
            break;
        case O_RULESET:
            if (strcmp(optarg, "waterloo") == 0) {
                opt.waterloo = 1;
            } else if (strcmp(optarg, "tictactoe") != 0) {
                fprintf(stderr, "warroom-load: --ruleset is tictactoe or waterloo\n");
                return -1;
            }
            break;
        case O_GAMES:
            if (number("--games", optarg, 0, 100000, &d) < 0)
                return -1;
            opt.games = (int)d;
            break;
        case O_SPECTATORS:
            if (number("--spectators", optarg, 0, 100, &d) < 0)
                return -1;
            opt.spectators = (int)d;
            break;
        case O_SECONDS:
            if (number("--seconds", optarg, 0.1, 86400, &opt.seconds) < 0)
                return -1;
            break;
        case O_MOVES:
            if (number("--moves", optarg, 1, 1e12, &d) < 0)
                return -1;
            opt.moves = (long)d;
            break;
        case O_RATE:
            if (number("--rate", optarg, 0, 1e6, &opt.rate) < 0)
                return -1;
            break;
        case O_IDLE:
            if (number("--idle", optarg, 0, 1000000, &d) < 0)
                return -1;
            opt.idle = (int)d;
            break;
        case O_PER_ADDRESS:
            if (number("--per-address", optarg, 1, 1000000, &d) < 0)
                return -1;
            opt.per_address = (int)d;
            break;
        case O_CRASH:
            if (number("--crash", optarg, 0, 100000, &d) < 0)
                return -1;
            opt.crash = (int)d;
            break;
        case O_KILL_MIN:
            if (number("--kill-min-ms", optarg, 1, 3600000, &d) < 0)
                return -1;
            opt.kill_min_ms = (int)d;
            break;
        case O_KILL_MAX:
            if (number("--kill-max-ms", optarg, 1, 3600000, &d) < 0)
                return -1;
            opt.kill_max_ms = (int)d;
            break;
        case O_SEED:
            if (number("--seed", optarg, 0, 1e18, &d) < 0)
                return -1;
            opt.seed = (uint64_t)d;
            break;
        case O_KEEP:
            opt.keep = 1;
            break;
        case O_CLUSTER:
            if (number("--cluster", optarg, 2, MAX_PROCS, &d) < 0)
                return -1;
            opt.cluster = (int)d;
            break;
        case O_DB:
            opt.db = optarg;
            break;
        case O_CLAIM_ON:
            if (strcmp(optarg, "player") == 0) {
                opt.claim_on_player = 1;
            } else if (strcmp(optarg, "owner") != 0) {
                fprintf(stderr, "warroom-load: --claim-on is owner or player\n");
                return -1;
            }
            break;
        case O_COMPARE:
            opt.compare = 1;
            break;
        default:
            usage(stderr);
            return -1;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "warroom-load: unexpected argument '%s'\n", argv[optind]);
        return -1;
    }
    if ((opt.start == NULL) == (opt.server == NULL)) {
        fprintf(stderr, "warroom-load: give --start PATH or --server URL (one of them)\n");
        return -1;
    }
    if (opt.crash && (opt.start == NULL || opt.waterloo)) {
        fprintf(stderr, "warroom-load: --crash needs --start and the tictactoe ruleset\n");
        return -1;
    }
    if (opt.kill_max_ms < opt.kill_min_ms)
        opt.kill_max_ms = opt.kill_min_ms;
    if (opt.db && (opt.start == NULL || strncmp(opt.db, "postgres://", 11) != 0)) {
        fprintf(stderr, "warroom-load: --db is a postgres:// URI for the servers --start "
                        "starts\n");
        return -1;
    }
    if (opt.cluster) {
        /* Several processes share one set of games: only a database all of
         * them reach can hold it (a SQLite file belongs to one process). */
        const char *base = opt.db ? NULL : wt_pg_base();
        if (opt.start == NULL) {
            fprintf(stderr, "warroom-load: --cluster needs --start (the tool starts the "
                            "processes)\n");
            return -1;
        }
        if (opt.db == NULL && (base == NULL || *base == '\0')) {
            fprintf(stderr, "warroom-load: --cluster needs PostgreSQL: set WT_STORE_URL or "
                            "WT_STORE_URL_FILE (a fresh database of that cluster), or give "
                            "--db postgres://...\n");
            return -1;
        }
        nprocs = opt.cluster;
        opt.compare = 1;
    } else if (opt.claim_on_player) {
        fprintf(stderr, "warroom-load: --claim-on is for --cluster\n");
        return -1;
    }
    if (opt.server) {
        unsigned a, b, c2, d2;
        int port;
        if (sscanf(opt.server, "ws://%u.%u.%u.%u:%d", &a, &b, &c2, &d2, &port) != 5 ||
            a != 127 || b > 255 || c2 > 255 || d2 > 255 || port <= 0 || port > 65535) {
            fprintf(stderr, "warroom-load: --server must be ws://127.x.y.z:PORT/ (loopback "
                            "only), got '%s'\n", opt.server);
            return -1;
        }
        srv.addr = (a << 24) | (b << 16) | (c2 << 8) | d2;
        srv.port = port;
    }
    return 0;
}

static int load_scenario(void)
{
    char path[1024];
    struct wr_refusal why;
    scenario = calloc(1, sizeof *scenario);
    reach = malloc(sizeof *reach);
    events_scratch = malloc(sizeof *events_scratch);
    if (scenario == NULL || reach == NULL || events_scratch == NULL)
        return -1;
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, i == 0 ? "%s/%s.json" : "%s/%s/scenario.json", opt.scenarios,
                 opt.scenario);
        if (access(path, R_OK) == 0) {
            if (wl_scenario_load_file(scenario, path, &why) != 0) {
                fprintf(stderr, "warroom-load: %s\n", why.message);
                return -1;
            }
            return 0;
        }
    }
    fprintf(stderr, "warroom-load: no scenario %s in %s\n", opt.scenario, opt.scenarios);
    return -1;
}

/* Each slot's clients side by side: seat 0, seat 1, the spectators, and
 * with --cluster the host. The cluster spread: slot i's games are created
 * on process i % N, its players talk to i+1 and i+2, its spectators to i,
 * i+1, ... (so most commands cross processes and most games have
 * spectators on a process that does not own them). */
static int setup_clients(void)
{
    int per_game = 2 + opt.spectators + (opt.cluster ? 1 : 0);
    nclients = opt.games * per_game + opt.idle;
    clients = calloc((size_t)(nclients ? nclients : 1), sizeof *clients);
    slots = calloc((size_t)(opt.games ? opt.games : 1), sizeof *slots);
    heap = calloc((size_t)(opt.games ? opt.games : 1), sizeof *heap);
    if (clients == NULL || slots == NULL || heap == NULL)
        return -1;
    for (int i = 0; i < nclients; i++) {
        clients[i].src = 0x7f000001u + (uint32_t)(i / opt.per_address);
        clients[i].role = ROLE_IDLE;
    }
    for (int g = 0; g < opt.games; g++) {
        struct slot *s = &slots[g];
        struct client *base = &clients[g * per_game];
        s->idx = g;
        s->heap_pos = -1;
        s->seat[0] = &base[0];
        s->seat[1] = &base[1];
        s->spec = &base[2];
        base[0].role = ROLE_SEAT0;
        base[1].role = ROLE_SEAT1;
        for (int k = 0; k < per_game; k++) {
            base[k].slot = s;
            if (k >= 2)
                base[k].role = ROLE_SPEC;
        }
        if (opt.cluster) {
            s->host = &base[2 + opt.spectators];
            s->host->role = ROLE_HOST;
            s->host->proc = g % nprocs;
            s->seat[0]->proc = (g + 1) % nprocs;
            s->seat[1]->proc = (g + 2) % nprocs;
            for (int k = 0; k < opt.spectators; k++)
                s->spec[k].proc = (g + k) % nprocs;
        }
        if (opt.waterloo) {
            s->wg = malloc(sizeof *s->wg);
            s->wcmd = malloc(sizeof *s->wcmd);
            if (s->wg == NULL || s->wcmd == NULL)
                return -1;
        }
        reset_game(s);
        s->phase = P_CREATING;
    }
    checker.role = ROLE_CHECK;
    checker.src = 0x7f000001u;
    return 0;
}

static int all_idle(void)
{
    for (int i = 0; i < opt.games; i++)
        if (slots[i].pend[0].active || slots[i].pend[1].active)
            return 0;
    return 1;
}

static int poll_until(double t)
{
    /* At most 100 ms (t may be far away: a kill waiting for a restart). */
    double left = t - now_s();
    int ms = left <= 0 ? 0 : left >= 0.1 ? 100 : (int)(left * 1000) + 1;
    if (wl_net_poll(net, ms) < 0) {
        complain("epoll: %s", strerror(errno));
        return -1;
    }
    start_connections();
    return 0;
}

static double round3(double x)
{
    return round(x * 1000) / 1000;
}

static json_t *lat_json(struct samples *s)
{
    if (s->n > 1)
        qsort(s->v, s->n, sizeof *s->v, cmp_float);
    return json_pack("{s:I, s:f, s:f, s:f, s:f}", "n", (json_int_t)s->n, "p50",
                     round3(pct(s, 0.5)), "p90", round3(pct(s, 0.9)), "p99", round3(pct(s, 0.99)),
                     "max", round3(s->n ? (double)s->v[s->n - 1] : 0.0));
}

/* The /metrics counters summed over the live processes. */
static struct server_metrics metrics_all(void)
{
    struct server_metrics sum = { 0 };
    for (int p = 0; p < nprocs; p++) {
        if (srv.started && (procs[p].pid <= 0 || procs[p].starting))
            continue;
        struct server_metrics m = get_metrics(proc_port(p));
        if (!m.ok)
            continue;
        sum.commits += m.commits;
        sum.commit_seconds += m.commit_seconds;
        sum.commands += m.commands;
        sum.commits_le_10ms += m.commits_le_10ms;
        sum.commits_le_50ms += m.commits_le_50ms;
        sum.ok = 1;
    }
    return sum;
}

/* CPU seconds of every live process we started (or of --server-pid). */
static double cpu_all(int set_cpu0)
{
    if (!srv.started)
        return proc_cpu(opt.server_pid);
    double sum = 0;
    for (int p = 0; p < nprocs; p++) {
        double c = proc_cpu(procs[p].pid);
        if (c < 0)
            return -1;
        if (set_cpu0)
            procs[p].cpu0 = c;
        sum += c - procs[p].cpu0;
    }
    return sum;
}

/* --cluster: per process, what the tool sent through it and its /metrics
 * at the end (with its killed incarnations' last figures). */
static json_t *cluster_json(double *takeovers)
{
    json_t *a = json_array();
    *takeovers = 0;
    for (int p = 0; p < nprocs; p++) {
        struct server_metrics m = procs[p].pid > 0 ? get_metrics(procs[p].port)
                                                   : (struct server_metrics){ 0 };
        metrics_seen(p, &m);
        struct proc *pr = &procs[p];
        double tk = pr->takeovers_gone + pr->last_takeovers;
        *takeovers += tk;
        json_array_append_new(
            a, json_pack("{s:i, s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:b}", "process", p,
                         "incarnations", pr->restarts, "commands_sent", (json_int_t)pr->sent,
                         "commands_acked", (json_int_t)pr->acked, "commands",
                         (json_int_t)(pr->commands_gone + pr->last_commands), "forwards",
                         (json_int_t)(pr->forwards_gone + pr->last_forwards), "takeovers",
                         (json_int_t)tk, "games_owned", (json_int_t)m.games_owned,
                         "metrics_read", m.ok));
    }
    return a;
}

static json_t *p50_p99(struct samples *s)
{
    if (s->n > 1)
        qsort(s->v, s->n, sizeof *s->v, cmp_float);
    return json_pack("{s:I, s:f, s:f}", "n", (json_int_t)s->n, "p50", round3(pct(s, 0.5)),
                     "p99", round3(pct(s, 0.99)));
}

int main(int argc, char **argv)
{
    if (parse_options(argc, argv) < 0)
        return 2;
    signal(SIGPIPE, SIG_IGN);
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    if (opt.seed == 0)
        opt.seed = ((uint64_t)time(NULL) ^ ((uint64_t)getpid() << 16)) % 1000000000;
    wr_prng_seed(&rng, opt.seed);
    if (opt.waterloo && load_scenario() < 0)
        return 2;
    if (setup_clients() < 0) {
        fprintf(stderr, "warroom-load: out of memory\n");
        return 2;
    }
    loadavg(run.load_before, sizeof run.load_before);
    if (opt.start && start_servers() < 0) {
        for (int p = 0; p < nprocs; p++)
            stop_server(p, SIGKILL, 5000);
        if (srv.dir[0] && !opt.keep) {
            if (srv.own_db)
                wt_pg_drop(srv.db);
            opt.keep = 1;
            fprintf(stderr, "warroom-load: kept %s (the server log)\n", srv.dir);
        }
        cleanup_dir();
        return 2;
    }
    const struct wl_net_cbs cbs = { on_open, on_message, on_close };
    net = wl_net_new(&cbs);
    if (net == NULL)
        return 2;
    pid_t pid = server_pid();
    run.rss_before_kb = proc_status_kb(pid, "VmRSS:");
    int failed = 0;

    /* 1) Set-up: every connection welcomed, every game created, claimed
     * and joined, before anything is measured. */
    double setup_start = now_s(), deadline = setup_start + 60 + nclients / 200.0;
    while (run.welcomed < nclients || run.ready < opt.games) {
        /* An error here (a join refused, ...) leaves a game unready: fail
         * now rather than at the deadline. */
        if (now_s() > deadline || st.closed > 0 || st.errors > 0) {
            complain("set-up did not finish: %d of %d connections welcomed, %d of %d games",
                     run.welcomed, nclients, run.ready, opt.games);
            failed = 1;
            break;
        }
        if (poll_until(deadline) < 0) {
            failed = 1;
            break;
        }
    }
    double setup_s = now_s() - setup_start;
    long rss_setup_kb = proc_status_kb(pid, "VmRSS:");

    /* 2) Play. */
    struct server_metrics m0 = metrics_all();
    run.started = 1;
    run.t0 = now_s();
    run.cpu0 = cpu_all(1);
    run.user0 = server_user_cpu();
    run.self0 = self_cpu();
    st.frames_t0 = wl_net_stats(net)->frames_in;
    st.sent_t0 = wl_net_stats(net)->frames_out;
    for (int i = 0; i < opt.games && !failed; i++) {
        /* Paced games start at random phases within one period, so that
         * --rate R offers R x games commands a second evenly, not in bursts. */
        if (opt.rate > 0)
            slots[i].next_at = run.t0 + wr_prng_below(&rng, 1000000) / 1e6 / opt.rate;
        maybe_move(&slots[i]);
    }
    double end = run.t0 + opt.seconds;
    if (opt.crash)
        run.next_kill = run.t0 + rand_ms(opt.kill_min_ms, opt.kill_max_ms) / 1000.0;
    while (!failed) {
        double now = now_s();
        int down = opt.cluster ? cluster_down() : -1;
        if (down >= 0 && now >= procs[down].restart_at) {
            int up = cluster_restart(down, 0);
            if (up < 0) {
                failed = 1;
                break;
            }
            if (up) {
                now = now_s();
                run.next_kill = now + rand_ms(opt.kill_min_ms, opt.kill_max_ms) / 1000.0;
                down = -1;
            }
        }
        if (opt.crash && opt.cluster) {
            if (down < 0 && now >= run.next_kill) {
                if (st.kills >= opt.crash)
                    break;
                if (cluster_kill() < 0) {
                    failed = 1;
                    break;
                }
                run.next_kill = now + 1e9;      /* after the restart */
            }
        } else if (opt.crash) {
            if (now >= run.next_kill) {
                if (st.kills >= opt.crash)
                    break;
                if (kill_and_restart() < 0) {
                    failed = 1;
                    break;
                }
                now = now_s();
                run.next_kill = now + rand_ms(opt.kill_min_ms, opt.kill_max_ms) / 1000.0;
            }
        } else if (opt.moves > 0 ? st.acks_in_window >= opt.moves : now >= end) {
            break;
        }
        while (nheap > 0 && heap[0]->next_at <= now)
            maybe_move(heap_pop());
        double next = opt.crash ? run.next_kill : end;
        if (down >= 0 && procs[down].starting) {
            if (now + 0.005 < next)
                next = now + 0.005; /* its address line, soon */
        } else if (down >= 0 && procs[down].restart_at < next) {
            next = procs[down].restart_at;
        }
        if (nheap > 0 && heap[0]->next_at < next)
            next = heap[0]->next_at;
        if (poll_until(next) < 0)
            failed = 1;
    }
    run.t1 = now_s();
    run.stopping = 1;
    /* A killed cluster process comes back now, for the checks. */
    for (int p; !failed && opt.cluster && (p = cluster_down()) >= 0;)
        if (cluster_restart(p, 120000) < 1)
            failed = 1;
    pid = server_pid();
    run.cpu1 = cpu_all(0);
    run.user1 = server_user_cpu();
    run.self1 = self_cpu();
    st.frames_t1 = wl_net_stats(net)->frames_in;
    st.sent_t1 = wl_net_stats(net)->frames_out;
    long rss_kb = proc_status_kb(pid, "VmRSS:"), hwm_kb = proc_status_kb(pid, "VmHWM:");
    struct server_metrics m1 = metrics_all();

    /* 3) Drain: every command sent gets its answer. */
    deadline = now_s() + (opt.crash ? 60 : 15);
    while (!failed && !all_idle() && now_s() < deadline)
        if (poll_until(deadline) < 0)
            failed = 1;
    for (int i = 0; i < opt.games; i++)
        for (int k = 0; k < 2; k++)
            if (slots[i].pend[k].active)
                st.unresolved++;

    /* 4) Every game at its last version everywhere, then everyone's view
     * against a fresh spectator's on each process. */
    if (opt.compare && !failed) {
        deadline = now_s() + 30;
        while (!settled() && now_s() < deadline)
            if (poll_until(deadline) < 0)
                break;
        if (!settled())
            complain("some games did not reach their last version everywhere in 30 s");
        /* the games compared are those settled now: one whose set-up ends
         * meanwhile (its spectators still joining copies) is left out */
        for (int i = 0; i < opt.games; i++)
            slots[i].compared = comparable(&slots[i]);
        for (int p = 0; p < nprocs; p++) {
            probes[p].role = ROLE_PROBE;
            probes[p].src = 0x7f000001u;
            probes[p].proc = p;
            open_client(&probes[p]);
        }
        deadline = now_s() + 60;
        while (prb.done < nprocs && now_s() < deadline)
            if (poll_until(deadline) < 0)
                break;
        if (prb.done < nprocs) {
            complain("the comparison with fresh spectators did not finish");
            failed = 1;
        }
    }

    /* 5) Crash and cluster runs: every game checked against the record
     * (tictactoe: the check reads its cells). */
    if ((opt.crash || opt.cluster) && !opt.waterloo && !failed) {
        chk.next = recs_head;
        /* From any process: the checker talks to one the tool's seed picks. */
        checker.proc = wr_prng_below(&rng, nprocs);
        if (open_client(&checker) == 0) {
            deadline = now_s() + 120;
            while (!chk.done && now_s() < deadline && checker.ws)
                if (poll_until(deadline) < 0)
                    break;
        }
        if (!chk.done) {
            complain("the check did not finish");
            failed = 1;
        }
    }
    loadavg(run.load_after, sizeof run.load_after);

    /* The takeovers and per-process figures, before the processes go. */
    double takeovers = 0;
    json_t *per_proc = opt.cluster ? cluster_json(&takeovers) : NULL;

    /* 6) Stop the servers we started: each must shut down cleanly. */
    int exit_status = 0;
    if (opt.start) {
        for (int i = 0; i < nclients; i++)
            if (clients[i].ws)
                wl_conn_abort(clients[i].ws);
        if (checker.ws)
            wl_conn_abort(checker.ws);
        for (int p = 0; p < nprocs; p++)
            if (probes[p].ws)
                wl_conn_abort(probes[p].ws);
        wl_net_poll(net, 0);
        for (int p = 0; p < nprocs; p++) {
            int status = stop_server(p, SIGTERM, 30000);
            int code = status >= 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
            if (code != 0) {
                complain("warroomd %d did not stop cleanly (status %d, log %s)", p, code,
                         procs[p].log);
                exit_status = code;
                failed = 1;
            }
        }
    }

    /* 7) The report. */
    double secs = run.t1 - run.t0;
    double cpu = run.cpu0 >= 0 && run.cpu1 >= 0 ? run.cpu1 - run.cpu0 + run.cpu_killed : -1;
    double self = run.self1 - run.self0;
    json_t *errs = json_object();
    for (int i = 0; i < st.nerror_codes; i++)
        json_object_set_new(errs, st.error_codes[i], json_integer(st.error_counts[i]));
    long total_errors = st.errors + st.bad_answers + st.lost + st.duplicated + st.mismatched +
                        st.unresolved + st.views_differ;
    /* A cluster run measures the cross-process path or fails. */
    if (opt.cluster && opt.spectators > 0 && !failed && st.lat_cross.n == 0) {
        complain("no spectator on a process that does not own its game saw a patch");
        failed = 1;
    }
    json_t *out = json_pack(
        "{s:s, s:s, s:i, s:i, s:i, s:f, s:i, s:f, s:I, s:f, s:I, s:I, s:f}",
        "tool", "warroom-load", "ruleset", opt.waterloo ? "waterloo" : "tictactoe", "games",
        opt.games, "spectators", opt.spectators, "idle", opt.idle, "rate_per_game", opt.rate,
        "connections", nclients, "seconds", round3(secs), "commands",
        (json_int_t)st.acks_in_window, "commands_per_second",
        round3(secs > 0 ? st.acks_in_window / secs : 0), "games_completed",
        (json_int_t)st.games_completed, "games_created", (json_int_t)st.games_created,
        "messages_in_per_second",
        round3(secs > 0 ? (double)(st.frames_t1 - st.frames_t0) / secs : 0));
    /* every request sent in the window: moves, and the set-up of the games
     * that replace finished ones (create, claim, join, leave) */
    json_object_set_new(out, "messages_out_per_second",
                        json_real(round3(secs > 0 ? (double)(st.sent_t1 - st.sent_t0) / secs : 0)));
    json_object_set_new(out, "latency_ms", lat_json(&st.lat));
    json_object_set_new(out, "latency_is",
                        json_string(opt.spectators ? "send to the patch at the last spectator"
                                                   : "send to the ack"));
    json_object_set_new(out, "ack_latency_ms", lat_json(&st.ack_lat));
    if (opt.cluster) {
        json_object_set_new(out, "latency_same_ms", p50_p99(&st.lat_same));
        json_object_set_new(out, "latency_cross_ms", p50_p99(&st.lat_cross));
        json_object_set_new(out, "latency_same_cross_is",
                            json_string("send to the patch at each spectator, on the game's "
                                        "owning process or on another (unknown owners, after "
                                        "a takeover, in neither)"));
        json_object_set_new(out, "processes", per_proc);
        json_object_set_new(out, "takeovers", json_integer((json_int_t)takeovers));
        json_object_set_new(out, "claim_on", json_string(opt.claim_on_player ? "player"
                                                                              : "owner"));
    }
    if (opt.compare)
        json_object_set_new(out, "views",
                            json_pack("{s:I, s:I}", "spectators_compared",
                                      (json_int_t)st.spectators_compared, "differences",
                                      (json_int_t)st.views_differ));
    json_t *server = json_pack("{s:i, s:f, s:f, s:f, s:I, s:I, s:I, s:I}", "pid", (int)pid,
                               "cpu_seconds", round3(cpu), "cpu_percent",
                               round3(secs > 0 && cpu >= 0 ? 100 * cpu / secs : -1),
                               "cpu_ms_per_command",
                               st.acks_in_window > 0 && cpu >= 0
                                   ? round(1e6 * cpu / st.acks_in_window) / 1e3
                                   : -1.0,
                               "rss_before_kb", (json_int_t)run.rss_before_kb, "rss_setup_kb",
                               (json_int_t)rss_setup_kb, "rss_kb", (json_int_t)rss_kb,
                               "rss_peak_kb", (json_int_t)hwm_kb);
    if (run.user0 >= 0 && run.user1 >= 0 && st.acks_in_window > 0)
        json_object_set_new(server, "cpu_user_ms_per_command",
                            json_real(round(1e6 * (run.user1 - run.user0) /
                                            st.acks_in_window) / 1e3));
    if (m0.ok && m1.ok && m1.commits > m0.commits) {
        double commits = m1.commits - m0.commits;
        json_object_set_new(server, "commits", json_integer((json_int_t)commits));
        json_object_set_new(server, "commit_ms_mean",
                            json_real(round3(1e3 * (m1.commit_seconds - m0.commit_seconds) /
                                             commits)));
        json_object_set_new(server, "commands_per_commit",
                            json_real(round3((m1.commands - m0.commands) / commits)));
        json_object_set_new(server, "commits_over_10ms",
                            json_integer((json_int_t)(commits - (m1.commits_le_10ms -
                                                                 m0.commits_le_10ms))));
        json_object_set_new(server, "commits_over_50ms",
                            json_integer((json_int_t)(commits - (m1.commits_le_50ms -
                                                                 m0.commits_le_50ms))));
    }
    if (opt.idle > 0 && rss_setup_kb > 0 && run.rss_before_kb > 0)
        json_object_set_new(server, "rss_per_connection_kb",
                            json_real(round3((double)(rss_setup_kb - run.rss_before_kb) /
                                             nclients)));
    if (opt.start)
        json_object_set_new(server, "exit_status", json_integer(exit_status));
    json_object_set_new(out, "server", server);
    json_object_set_new(out, "load_tool",
                        json_pack("{s:f, s:f, s:f}", "cpu_seconds", round3(self), "cpu_percent",
                                  round3(secs > 0 ? 100 * self / secs : 0), "setup_seconds",
                                  round3(setup_s)));
    json_object_set_new(out, "errors",
                        json_pack("{s:I, s:o, s:I, s:I, s:I}", "total", (json_int_t)total_errors,
                                  "by_code", errs, "connections_closed", (json_int_t)st.closed,
                                  "unexpected_answers", (json_int_t)st.bad_answers,
                                  "protocol", (json_int_t)wl_net_stats(net)->protocol_errors));
    json_object_set_new(out, "pings_answered", json_integer((json_int_t)wl_net_stats(net)->pings));
    if (opt.crash || opt.cluster) {
        json_t *cr = json_pack(
            "{s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "kills", st.kills,
            "games_checked", (json_int_t)st.checked_games, "commands_checked",
            (json_int_t)st.checked_commands, "resent", (json_int_t)st.resent,
            "resent_answered_from_store", (json_int_t)st.resent_original, "resent_applied_now",
            (json_int_t)st.resent_fresh, "lost", (json_int_t)st.lost, "duplicated",
            (json_int_t)st.duplicated, "mismatched", (json_int_t)st.mismatched, "unresolved",
            (json_int_t)st.unresolved, "abandoned_setups", (json_int_t)st.abandoned);
        json_object_set_new(cr, "restart_ms", lat_json(&st.restart_ms));
        if (opt.cluster)
            json_object_set_new(cr, "stale_copy_states",
                                json_integer((json_int_t)st.stale_states));
        json_object_set_new(out, "crash", cr);
    }
    json_object_set_new(out, "machine",
                        json_pack("{s:i, s:s, s:s}", "cpus", (int)sysconf(_SC_NPROCESSORS_ONLN),
                                  "loadavg_before", run.load_before, "loadavg_after",
                                  run.load_after));
    json_object_set_new(out, "command_line", json_string(opt.cmdline));
    json_object_set_new(out, "seed", json_integer((json_int_t)opt.seed));
    if (opt.keep && srv.started)
        json_object_set_new(out, "server_dir", json_string(srv.dir));
    char *text = json_dumps(out, JSON_COMPACT | JSON_REAL_PRECISION(10));
    printf("%s\n", text ? text : "{}");
    free(text);
    json_decref(out);
    if (failed || total_errors > 0) {
        if (srv.started && !opt.keep) {
            opt.keep = 1;
            fprintf(stderr, "warroom-load: kept %s (database and server log)\n", srv.dir);
        }
        failed = 1;
    }
    for (int p = 0; p < nprocs; p++)
        if (procs[p].pid > 0)
            stop_server(p, SIGKILL, 5000);
    cleanup_dir();
    wl_net_free(net);
    return failed ? 1 : 0;
}
