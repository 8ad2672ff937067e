/*
 * main.c - warroomd: parse options, open the store, run the loop, shut
 * down cleanly on SIGINT/SIGTERM.
 */
#include "server.h"
#include "log.h"
#include "store.h"

#include <stdio.h>
#include <string.h>

static void on_signal(uv_signal_t *h, int signum)
{
    struct wrd_server *srv = h->data;
    if (srv->stopping)
        return;
    wrd_info("shutting down", "signal=%d", signum);
    uv_close((uv_handle_t *)&srv->sigint, NULL);
    uv_close((uv_handle_t *)&srv->sigterm, NULL);
    wrd_net_stop(srv);
}

int main(int argc, char **argv)
{
    static struct wrd_server srv;
    char err[256];

    int rc = wrd_config_parse(&srv.cfg, argc, argv);
    if (rc != 0)
        return rc < 0 ? 2 : 0;
    wrd_log_set_level(srv.cfg.log_level);

    if (wrd_store_sqlite_ops.open(&srv.store, srv.cfg.db, err, sizeof err) < 0) {
        wrd_error("cannot open the store", "db=%s error=\"%s\"", srv.cfg.db, err);
        return 1;
    }
    uv_loop_init(&srv.loop);
    srv.started_ms = uv_now(&srv.loop);
    uv_signal_init(&srv.loop, &srv.sigint);
    uv_signal_init(&srv.loop, &srv.sigterm);
    srv.sigint.data = srv.sigterm.data = &srv;
    uv_signal_start(&srv.sigint, on_signal, SIGINT);
    uv_signal_start(&srv.sigterm, on_signal, SIGTERM);

    if (wrd_net_start(&srv) < 0) {
        uv_close((uv_handle_t *)&srv.sigint, NULL);
        uv_close((uv_handle_t *)&srv.sigterm, NULL);
        uv_run(&srv.loop, UV_RUN_DEFAULT);
        uv_loop_close(&srv.loop);
        srv.store->ops->close(srv.store);
        return 1;
    }

    uv_run(&srv.loop, UV_RUN_DEFAULT);
    wrd_net_release(&srv);
    srv.store->ops->close(srv.store);
    rc = uv_loop_close(&srv.loop);
    wrd_info("stopped", "loop_close=%d", rc);
    return rc == 0 ? 0 : 1;
}
