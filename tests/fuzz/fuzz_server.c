/* fuzz_server.c - see fuzz_server.h. */
#include "fuzz_server.h"

#include <stdlib.h>
#include <uv.h>

#include "addr.h"
#include "catalog.h"
#include "games.h"
#include "log.h"
#include "protocol.h"
#include "server.h"
#include "store.h"

struct wrd_server *fuzz_server(void)
{
    static struct wrd_server *srv;
    if (srv == NULL) {
        char err[256];
        char *argv[] = { "fuzz", NULL };
        srv = calloc(1, sizeof *srv);
        if (srv == NULL || wrd_config_parse(&srv->cfg, 1, argv) != 0)
            abort();
        srv->cfg.scenarios = WARROOM_SCENARIO_DIR;
        /* A line per game created would make stderr the bottleneck. */
        wrd_log_set_level(WRD_LOG_WARN);
        srv->cfg.max_games = 2000;
        srv->cfg.address_rate = 100000000;
        srv->cfg.max_open_per_address = srv->cfg.max_games_per_address = 100000000;
        uv_loop_init(&srv->loop);
        if (wrd_store_sqlite_ops.open(&srv->store, ":memory:", 0, err, sizeof err) != 0 ||
            wrd_addrs_new(srv) != 0 || wrd_games_new(srv) != 0)
            abort();
        wrd_protocol_init(srv);
        srv->catalog = wrd_catalog_load(srv->cfg.scenarios);   /* `rulesets` */
    }
    return srv;
}
