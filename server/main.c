/*
 * main.c - warroomd: parse options, open the store, restore every game,
 * run the loop, shut down cleanly on SIGINT/SIGTERM.
 *
 * Shutdown: stop taking signals and new work, commit what is pending, let
 * every connection drain its queue and close with 1001 going away (at most
 * a grace period), close the notifier and the game timers, then the two-step
 * lws context destruction of a foreign loop (stack-notes pitfall 1), the
 * store, and the loop (uv_loop_close must return 0).
 */
#include "server.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "addr.h"
#include "conn.h"
#include "games.h"
#include "log.h"
#include "notify.h"
#include "store.h"

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
    wrd_games_flush(srv);
    wrd_games_close_handles(srv);
    wrd_addrs_close(srv);
    if (srv->notifier) {
        wrd_notifier_close(srv->notifier, NULL, NULL);
        srv->notifier = NULL;
    }
    wrd_conn_close_all(srv);
    srv->grace_started = uv_now(&srv->loop);
    uv_timer_init(&srv->loop, &srv->grace);
    srv->grace.data = srv;
    uv_timer_start(&srv->grace, on_grace, 0, GRACE_TICK_MS);
}

int main(int argc, char **argv)
{
    static struct wrd_server srv;
    char err[512];

    int rc = wrd_config_parse(&srv.cfg, argc, argv);
    if (rc != 0)
        return rc < 0 ? 2 : 0;
    wrd_log_set_level(srv.cfg.log_level);
    signal(SIGPIPE, SIG_IGN);       /* writes to closed sockets are errors, not deaths */

    if (wrd_store_sqlite_ops.open(&srv.store, srv.cfg.db, err, sizeof err) < 0) {
        wrd_error("cannot open the store", "db=%s error=\"%s\"", srv.cfg.db, err);
        return 1;
    }
    uv_loop_init(&srv.loop);
    if (wrd_addrs_new(&srv) != 0 || wrd_games_new(&srv) != 0 ||
        wrd_games_restore(&srv, err, sizeof err) != 0) {
        wrd_error("cannot restore the games", "db=%s error=\"%s\"", srv.cfg.db, err);
        wrd_games_close_handles(&srv);
        wrd_addrs_close(&srv);
        uv_run(&srv.loop, UV_RUN_DEFAULT);
        wrd_games_free(&srv);
        wrd_addrs_free(&srv);
        srv.store->ops->close(srv.store);
        uv_loop_close(&srv.loop);
        return 1;
    }
    srv.notifier = wrd_notifier_new(&srv.loop, srv.cfg.notify_cmd);
    if (srv.notifier) {
        wrd_notifier_set_limits(srv.notifier, (unsigned)srv.cfg.webhook_max_pending, 0, 0);
        wrd_notifier_set_max_per_owner(srv.notifier, (unsigned)srv.cfg.webhook_max_per_owner);
        /* The list was checked with the options: only memory can fail here. */
        if (wrd_notifier_set_allow(srv.notifier, srv.cfg.webhook_allow, NULL) != 0)
            wrd_error("cannot keep the webhook allow-list", "error=no_memory");
    }
    uv_signal_init(&srv.loop, &srv.sigint);
    uv_signal_init(&srv.loop, &srv.sigterm);
    srv.sigint.data = srv.sigterm.data = &srv;
    uv_signal_start(&srv.sigint, on_signal, SIGINT);
    uv_signal_start(&srv.sigterm, on_signal, SIGTERM);
    uv_prepare_init(&srv.loop, &srv.flush);
    srv.flush.data = &srv;
    uv_prepare_start(&srv.flush, on_flush);

    if (wrd_net_start(&srv) < 0) {
        srv.stopping = 1;
        uv_close((uv_handle_t *)&srv.sigint, NULL);
        uv_close((uv_handle_t *)&srv.sigterm, NULL);
        uv_close((uv_handle_t *)&srv.flush, NULL);
        wrd_games_close_handles(&srv);
        wrd_addrs_close(&srv);
        if (srv.notifier)
            wrd_notifier_close(srv.notifier, NULL, NULL);
        uv_run(&srv.loop, UV_RUN_DEFAULT);
        wrd_net_release(&srv);
        wrd_games_free(&srv);
        wrd_addrs_free(&srv);
        uv_loop_close(&srv.loop);
        srv.store->ops->close(srv.store);
        return 1;
    }

    uv_run(&srv.loop, UV_RUN_DEFAULT);
    wrd_net_release(&srv);
    wrd_games_free(&srv);
    wrd_addrs_free(&srv);
    srv.store->ops->close(srv.store);
    rc = uv_loop_close(&srv.loop);
    wrd_info("stopped", "loop_close=%d", rc);
    return rc == 0 ? 0 : 1;
}
