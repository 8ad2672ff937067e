/*
 * main.c - warroomd: parse options, open the store, restore every game,
 * run the loop, shut down cleanly on SIGINT/SIGTERM.
 *
 * Start-up refuses a store it cannot trust, each with its exit status
 * (warroomd --help): another process holds it (6), this process cannot
 * write it (5), it is damaged (4: SQLite's check, or a row, a checksum or a
 * count that is not what was committed); such a store is not repaired.
 *
 * Shutdown: stop taking signals and new work, commit what is pending, let
 * every connection drain its queue and close with 1001 going away (at most
 * a grace period), close the notifier and the game timers, then the two-step
 * lws context destruction of a foreign loop (stack-notes pitfall 1), the
 * store, and the loop (uv_loop_close must return 0).
 */
#include "server.h"

#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "addr.h"
#include "catalog.h"
#include "conn.h"
#include "games.h"
#include "jsonalloc.h"
#include "log.h"
#include "mail.h"
#include "notify.h"
#include "protocol.h"
#include "store.h"
#include "store_open.h"

/* Exit statuses; 3 (a failed commit) is games.c's. */
enum { EXIT_START = 1, EXIT_USAGE = 2, EXIT_DAMAGED = 4, EXIT_READONLY = 5, EXIT_LOCKED = 6 };

#define GRACE_MS 2000
#define GRACE_TICK_MS 20

/* Once per loop iteration, before the loop waits: commit, then deliver. */
static void on_flush(uv_prepare_t *h)
{
    wrd_games_flush(h->data);
}

static void on_grace(uv_timer_t *t)
{
    struct wrd_server *srv = t->data;
    uint64_t waited = uv_now(&srv->loop) - srv->grace_started;
    if (srv->conns != NULL && waited < GRACE_MS)
        return;
    if (srv->grace_after == 0) {
        srv->grace_after = uv_now(&srv->loop);
        return;
    }
    if (uv_now(&srv->loop) - srv->grace_after < 100)
        return;
    if (wrd_games_committing(srv))
        return;                 /* its end flushes; then this */
    uv_timer_stop(t);
    uv_close((uv_handle_t *)t, NULL);
    wrd_games_flush(srv);
    uv_close((uv_handle_t *)&srv->flush, NULL);
    wrd_net_stop(srv);
}

static void on_signal(uv_signal_t *h, int signum)
{
    struct wrd_server *srv = h->data;
    if (srv->stopping)
        return;
    wrd_info("shutting down", "signal=%d connections=%d", signum, srv->connections);
    srv->stopping = 1;
    uv_close((uv_handle_t *)&srv->sigint, NULL);
    uv_close((uv_handle_t *)&srv->sigterm, NULL);
    wrd_games_keep_summaries(srv);
    wrd_games_flush(srv);
    wrd_games_close_handles(srv);
    wrd_addrs_close(srv);
    if (srv->notifier) {
        wrd_notifier_close(srv->notifier, NULL, NULL);
        srv->notifier = NULL;
    }
    if (srv->mailer) {
        wrd_mailer_close(srv->mailer, NULL, NULL);
        srv->mailer = NULL;
    }
    wrd_conn_close_all(srv);
    srv->grace_started = uv_now(&srv->loop);
    uv_timer_init(&srv->loop, &srv->grace);
    srv->grace.data = srv;
    uv_timer_start(&srv->grace, on_grace, 0, GRACE_TICK_MS);
}

/* The mailer of --smtp, its credentials from WARROOM_SMTP_USER and
 * WARROOM_SMTP_PASSWORD or from the first line (USER:PASSWORD) of
 * --smtp-credentials: read once, here, before the loop runs. 0, or -1
 * logged. */
static int start_mailer(struct wrd_server *srv)
{
    char line[512] = "", err[256];
    const char *user = getenv("WARROOM_SMTP_USER");
    const char *password = getenv("WARROOM_SMTP_PASSWORD");
    if (srv->cfg.smtp_credentials) {
        FILE *f = fopen(srv->cfg.smtp_credentials, "r");
        char *colon = NULL;
        if (f && fgets(line, sizeof line, f)) {
            line[strcspn(line, "\r\n")] = '\0';
            colon = strchr(line, ':');
        }
        if (f)
            fclose(f);
        if (colon == NULL) {
            wrd_error("cannot read the SMTP credentials", "file=%s want=\"USER:PASSWORD on "
                      "its first line\"", srv->cfg.smtp_credentials);
            return -1;
        }
        *colon = '\0';
        user = line;
        password = colon + 1;
    }
    struct wrd_mail_config mc = { srv->cfg.smtp, user, password, srv->cfg.mail_from };
    srv->mailer = wrd_mailer_new(&srv->loop, &mc, err, sizeof err);
    memset(line, 0, sizeof line);
    if (srv->mailer == NULL) {
        wrd_error("cannot start the mailer", "error=\"%s\"", err);
        return -1;
    }
    if (srv->cfg.mail_retry_ms > 0)
        wrd_mailer_set_timing(srv->mailer, (uint64_t)srv->cfg.mail_retry_ms, 0);
    wrd_games_start_digest(srv);
    wrd_info("mail on", "replies=%s", srv->cfg.mail_reply ? "read" : "not read");
    return 0;
}

/* The store's location as logs show it: never a password (store_open.h). */
static char db_shown[512];

/* The exit status and the log line of a store that refuses to serve. */
static int refuse(const struct wrd_server *srv, const char *what, int rc, char *err)
{
    static const struct { int rc, status; const char *msg; } why[] = {
        { WRD_STORE_DAMAGED, EXIT_DAMAGED, "the store is damaged: refusing to start" },
        { WRD_STORE_READONLY, EXIT_READONLY, "the store cannot be written: refusing to start" },
        { WRD_STORE_LOCKED, EXIT_LOCKED, "the store is in use by another process: refusing "
                                         "to start" },
    };
    /* The message goes between quotes in a logfmt line. */
    for (char *p = err; *p; p++)
        if (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20)
            *p = *p == '"' ? '\'' : ' ';
    for (size_t i = 0; i < sizeof why / sizeof why[0]; i++)
        if (why[i].rc == rc) {
            wrd_error(why[i].msg, "db=%s error=\"%s\"", db_shown, err);
            return why[i].status;
        }
    wrd_error(what, "db=%s error=\"%s\"", db_shown, err);
    return EXIT_START;
}

/* warroomd --verify: the whole store checked (the store opened with its
 * full check), every game replayed against its snapshots; one line on
 * stdout when all is well, the first failure on stderr otherwise. */
static int verify(struct wrd_server *srv)
{
    char err[512];
    uv_loop_init(&srv->loop);
    int rc = wrd_games_new(srv);
    if (rc == 0)
        rc = wrd_games_verify(srv, err, sizeof err);
    else
        snprintf(err, sizeof err, "out of memory");
    int status = rc == 0 ? 0 : refuse(srv, "the store does not verify", rc, err);
    if (rc == 0)
        printf("warroomd: %s verified: %s\n", db_shown, err);
    wrd_games_free(srv);
    srv->store->ops->close(srv->store);
    uv_loop_close(&srv->loop);
    return status;
}

static int serve(int argc, char **argv)
{
    static struct wrd_server srv;
    char err[512];

    int rc = wrd_config_parse(&srv.cfg, argc, argv);
    if (rc != 0)
        return rc < 0 ? EXIT_USAGE : 0;
    wrd_log_set_level(srv.cfg.log_level);
    wrd_store_redact(srv.cfg.db, db_shown, sizeof db_shown);
    wrd_config_check_scenarios(&srv.cfg);
    signal(SIGPIPE, SIG_IGN);       /* writes to closed sockets are errors, not deaths */

    uint64_t t0 = uv_hrtime();
    rc = wrd_store_open(&srv.store, srv.cfg.db,
                        (srv.cfg.verify ? WRD_STORE_CHECK_FULL : srv.cfg.db_check) |
                            (srv.cfg.cluster ? WRD_STORE_SHARED : 0),
                        err, sizeof err);
    if (rc < 0)
        return refuse(&srv, "cannot open the store", rc, err);
    if (srv.store->ops->set_cache &&
        (rc = srv.store->ops->set_cache(srv.store, (int64_t)srv.cfg.db_cache_mib << 20, err,
                                        sizeof err)) < 0) {
        srv.store->ops->close(srv.store);
        return refuse(&srv, "cannot size the store's cache", rc, err);
    }
    if (srv.cfg.cluster && srv.store->cluster == NULL) {
        srv.store->ops->close(srv.store);
        fprintf(stderr, "warroomd: --cluster needs a store several servers can share "
                        "(--db postgres://...)\n");
        return EXIT_USAGE;
    }
    if (srv.cfg.verify)
        return verify(&srv);
    uint64_t t1 = uv_hrtime();
    uv_loop_init(&srv.loop);
    snprintf(err, sizeof err, "out of memory");
    wrd_protocol_init(&srv);
    if (wrd_addrs_new(&srv) != 0 || wrd_games_new(&srv) != 0 ||
        (rc = wrd_games_restore(&srv, err, sizeof err)) != 0) {
        int status = refuse(&srv, "cannot restore the games", rc, err);
        wrd_games_close_handles(&srv);
        wrd_addrs_close(&srv);
        uv_run(&srv.loop, UV_RUN_DEFAULT);
        wrd_games_free(&srv);
        wrd_addrs_free(&srv);
        srv.store->ops->close(srv.store);
        uv_loop_close(&srv.loop);
        return status;
    }
    wrd_info("store opened", "db=%s check=%s open_ms=%.1f load_ms=%.1f", db_shown,
             srv.cfg.db_check == WRD_STORE_CHECK_FULL    ? "full"
             : srv.cfg.db_check == WRD_STORE_CHECK_QUICK ? "quick"
                                                         : "none",
             (double)(t1 - t0) / 1e6, (double)(uv_hrtime() - t1) / 1e6);
    wrd_games_start_sweep(&srv);
    if (srv.cfg.cluster && wrd_games_start_cluster(&srv, err, sizeof err) != 0) {
        wrd_error("cannot join the cluster", "error=\"%s\"", err);
        srv.stopping = 1;
    }
    srv.notifier = wrd_notifier_new(&srv.loop, srv.cfg.notify_cmd);
    if (srv.notifier) {
        wrd_notifier_set_limits(srv.notifier, (unsigned)srv.cfg.webhook_max_pending, 0, 0);
        wrd_notifier_set_max_per_owner(srv.notifier, (unsigned)srv.cfg.webhook_max_per_owner);
        /* The list was checked with the options: only memory can fail here. */
        if (wrd_notifier_set_allow(srv.notifier, srv.cfg.webhook_allow, NULL) != 0)
            wrd_error("cannot keep the webhook allow-list", "error=no_memory");
    }
    int mail_failed = srv.cfg.smtp && start_mailer(&srv) != 0;
    uv_signal_init(&srv.loop, &srv.sigint);
    uv_signal_init(&srv.loop, &srv.sigterm);
    srv.sigint.data = srv.sigterm.data = &srv;
    uv_signal_start(&srv.sigint, on_signal, SIGINT);
    uv_signal_start(&srv.sigterm, on_signal, SIGTERM);
    uv_prepare_init(&srv.loop, &srv.flush);
    srv.flush.data = &srv;
    uv_prepare_start(&srv.flush, on_flush);

    /* What `rulesets` answers: the registry and the scenarios folder, read
     * once, before the address is printed (clients may ask at once). */
    srv.catalog = wrd_catalog_load(srv.cfg.scenarios);
    if (srv.catalog == NULL)
        wrd_error("cannot build the rulesets answer", "error=no_memory");
    if (mail_failed || wrd_net_start(&srv) < 0) {
        wrd_catalog_free(srv.catalog);
        srv.stopping = 1;
        uv_close((uv_handle_t *)&srv.sigint, NULL);
        uv_close((uv_handle_t *)&srv.sigterm, NULL);
        uv_close((uv_handle_t *)&srv.flush, NULL);
        wrd_games_close_handles(&srv);
        wrd_addrs_close(&srv);
        if (srv.notifier)
            wrd_notifier_close(srv.notifier, NULL, NULL);
        if (srv.mailer)
            wrd_mailer_close(srv.mailer, NULL, NULL);
        uv_run(&srv.loop, UV_RUN_DEFAULT);
        wrd_net_release(&srv);
        wrd_games_free(&srv);
        wrd_addrs_free(&srv);
        uv_loop_close(&srv.loop);
        srv.store->ops->close(srv.store);
        return EXIT_START;
    }

    uv_run(&srv.loop, UV_RUN_DEFAULT);
    wrd_catalog_free(srv.catalog);
    wrd_net_release(&srv);
    wrd_games_free(&srv);
    wrd_addrs_free(&srv);
    srv.store->ops->close(srv.store);
    rc = uv_loop_close(&srv.loop);
    wrd_info("stopped", "loop_close=%d", rc);
    return rc == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    wrd_json_alloc_init();      /* before any JSON value exists */
    int rc = serve(argc, argv);
    wrd_json_alloc_release();
    return rc;
}
