/*
 * bench_rules.c - benchmarks of the rules library (not a test): the time to
 * compute the reachable squares of one unit on the full 49x57 board with
 * 150 units on it, the time to replay a 30-turn game of random legal
 * play from its record, and the time to save and restore a game of 1815
 * after about 300 commands (ruleset.h, version 5) against the time to
 * replay those commands. Prints one JSON line.
 *
 *   bench_rules SCENARIO_DIR
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "waterloo_autoplay.h"
#include "dice.h"
#include "record.h"
#include "ruleset.h"

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double pct(double *v, int n, double p)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    int i = (int)(p * (n - 1) + 0.5);
    return v[i];
}

static const char *dir;

static json_t *resolve(const char *name, void *ctx)
{
    char path[1024];
    (void)ctx;
    snprintf(path, sizeof path, "%s/%s/scenario.json", dir, name);
    return json_load_file(path, 0, NULL);
}

/* Spread every unit over the board: French in the south half, P-A-A in the
 * north, one unit per square, on playable squares. Returns units placed. */
static int spread(struct wl_game *g, struct wr_prng *rng)
{
    int placed = 0;
    uint8_t used[WL_NSQ] = { 0 };
    for (int i = 0; i < g->sc->nunits && placed < 150; i++) {
        for (int tries = 0; tries < 1000; tries++) {
            int french = g->sc->units[i].side == WL_FRENCH;
            int r = french ? 26 + wr_prng_below(rng, 23) : 1 + wr_prng_below(rng, 23);
            wl_sq s = wl_sq_make(r, 1 + wr_prng_below(rng, 57));
            if (!wl_grid_playable(s) || used[s])
                continue;
            used[s] = 1;
            g->units[i].where = WL_ON_BOARD;
            g->units[i].at = s;
            placed++;
            break;
        }
    }
    return placed;
}

int main(int argc, char **argv)
{
    dir = argc > 1 ? argv[1] : "scenarios";
    struct wl_scenario *sc = calloc(1, sizeof *sc);
    struct wl_game *g = malloc(sizeof *g);
    struct wl_reach *reach = malloc(sizeof *reach);
    struct wl_cmd *cmd = malloc(sizeof *cmd);
    struct wr_refusal why;
    json_t *sj = resolve("waterloo-1815", NULL);
    if (sj == NULL || wl_scenario_load(sc, sj, NULL, NULL, &why) != 0) {
        fprintf(stderr, "bench_rules: cannot load waterloo-1815 from %s\n", dir);
        return 1;
    }
    json_decref(sj);
    static const uint8_t seed[32] = { 9 };

    /* 1) Reachable squares of one unit, 150 units on the board. */
    enum { SAMPLES = 20000 };
    double *t_inf = malloc(sizeof(double) * SAMPLES), *t_cav = malloc(sizeof(double) * SAMPLES);
    int n_inf = 0, n_cav = 0, on_board = 0;
    long squares = 0;
    struct wr_prng rng;
    wr_prng_seed(&rng, 1);
    for (int pos = 0; pos < 50; pos++) {
        wl_game_init(g, sc, "bench", seed);
        on_board = spread(g, &rng);
        for (int i = 0; i < sc->nunits; i++) {
            if (g->units[i].where != WL_ON_BOARD || sc->units[i].type == WL_HQ)
                continue;
            g->phase = sc->units[i].side == WL_FRENCH ? WL_PH_FRENCH_MOVE : WL_PH_ALLIED_MOVE;
            int one = i;
            double t0 = now_us();
            wl_move_reach(g, &one, 1, reach, NULL);
            double dt = now_us() - t0;
            squares += reach->n;
            if (sc->units[i].move >= 6 && n_cav < SAMPLES)
                t_cav[n_cav++] = dt;
            else if (sc->units[i].move < 6 && n_inf < SAMPLES)
                t_inf[n_inf++] = dt;
        }
    }

    /* 2) A 30-turn game of random legal play, recorded, then replayed. */
    wl_game_init(g, sc, "bench-game", seed);
    wr_prng_seed(&rng, 7);
    size_t cap = 1 << 20, len = 0;
    char *rec = malloc(cap);
    char hex[65];
    wr_dice_seed_hex(seed, hex);
    len += (size_t)snprintf(rec, cap, "{\"warroom\":\"game-record\",\"version\":1,\"game\":"
                            "\"bench-game\",\"ruleset\":\"waterloo\",\"scenario\":"
                            "\"waterloo-1815\",\"seed\":\"%s\"}\n", hex);
    int commands = 0;
    struct wl_events *ev = malloc(sizeof *ev);
    double t_play0 = now_us();
    while (g->phase != WL_PH_OVER) {
        wl_autoplay_next(g, &rng, reach, cmd);
        json_t *line = json_pack("{s:s, s:o}", "seat", wl_side_name(g->await_side), "cmd",
                                 wl_cmd_json(g, cmd));
        ev->n = 0;
        if (wl_game_apply(g, g->await_side, cmd, ev, &why) != WL_R_OK) {
            fprintf(stderr, "bench_rules: random player refused: %s\n", why.message);
            return 1;
        }
        json_t *rolls = json_array();
        for (int e = 0; e < ev->n; e++)
            if (ev->ev[e].type == WL_EV_ROLL)
                json_array_append_new(rolls, json_pack("[i, i]", (int)ev->ev[e].k, ev->ev[e].face));
        if (json_array_size(rolls))
            json_object_set_new(line, "rolls", rolls);
        else
            json_decref(rolls);
        char *s = json_dumps(line, JSON_COMPACT);
        size_t n = strlen(s);
        if (len + n + 2 > cap)
            rec = realloc(rec, cap *= 2);
        memcpy(rec + len, s, n);
        len += n;
        rec[len++] = '\n';
        free(s);
        json_decref(line);
        commands++;
    }
    double t_play = (now_us() - t_play0) / 1e3;
    int turns = g->turn;

    enum { RUNS = 15 };
    double t_replay[RUNS];
    struct wr_record_opts o = { wr_ruleset_find, resolve, NULL, 0, NULL, NULL };
    int fails = 0;
    for (int r = 0; r < RUNS; r++) {
        struct wr_record_result res;
        double t0 = now_us();
        /* The seed is in the header: every roll is derived again and checked;
         * the time includes the final public projection, as a replay's user
         * reads it. */
        json_t *st = NULL;
        if (wr_record_replay(rec, len, &o, &res, &why) != 0)
            fails++;
        else
            st = res.rs->project(res.game, NULL);
        t_replay[r] = (now_us() - t0) / 1e3;
        json_decref(st);
        wr_record_result_release(&res);
    }

    /* 3) Balance sanity check: 100 random legal games (not a goal). */
    int wins[2] = { 0, 0 }, end_turns = 0;
    long battles = 0, cmds = 0;
    double t_games0 = now_us();
    for (int s = 1; s <= 100; s++) {
        uint8_t s32[32] = { (uint8_t)s, (uint8_t)(s >> 8), 0x44 };
        wl_game_init(g, sc, "selfplay", s32);
        wr_prng_seed(&rng, (uint64_t)s * 104729);
        while (g->phase != WL_PH_OVER) {
            wl_autoplay_next(g, &rng, reach, cmd);
            ev->n = 0;
            if (wl_game_apply(g, g->await_side, cmd, ev, &why) != WL_R_OK) {
                fprintf(stderr, "bench_rules: selfplay %d refused: %s\n", s, why.message);
                return 1;
            }
            battles += cmd->type == WL_CMD_RESOLVE;
            cmds++;
        }
        wins[g->winner]++;
        end_turns += g->turn;
    }
    double t_games = (now_us() - t_games0) / 1e3;

    /* 4) Save and restore (ruleset.h, version 5) through the ruleset
     *    interface, as a host keeps a full snapshot: a game of 1815 after
     *    SAVE_AFTER commands of random legal play saved and dumped (the
     *    text a store holds), that text loaded and restored; against a
     *    replay of those commands from the start (create and apply). */
    enum { SAVE_AFTER = 300, SAVE_RUNS = 41 };
    const struct wr_ruleset *wrs = wr_ruleset_find("waterloo");
    json_t *sj2 = resolve("waterloo-1815", NULL), *wopts = wr_game_options(wrs, NULL, 1);
    struct wr_game *wg = wrs->create(sj2, wopts, "bench-save", seed, NULL, &why);
    json_t *hist = json_array();
    wr_prng_seed(&rng, 11);
    for (int c = 0; wg && c < SAVE_AFTER && wr_game_awaited(wg); c++) {
        const char *seat = wr_game_awaited(wg);
        json_t *wc = wrs->autoplay(wg, seat, &rng), *wev = NULL;
        if (wc == NULL || wrs->apply(wg, seat, wc, &wev, &why) != 0) {
            fprintf(stderr, "bench_rules: save game refused: %s\n", why.message);
            return 1;
        }
        json_array_append_new(hist, json_pack("[s, o]", seat, wc));
        json_decref(wev);
    }
    double t_save[SAVE_RUNS], t_restore[SAVE_RUNS], t_replay_cmds[SAVE_RUNS];
    size_t save_bytes = 0;
    for (int r = 0; r < SAVE_RUNS; r++) {
        double t0 = now_us();
        json_t *sv = wr_game_save(wg);
        char *text = json_dumps(sv, JSON_COMPACT | JSON_SORT_KEYS);
        t_save[r] = now_us() - t0;
        json_decref(sv);
        save_bytes = strlen(text);
        t0 = now_us();
        json_t *loaded = json_loads(text, 0, NULL);
        struct wr_game *rg = wr_game_restore(wrs, loaded, sj2, wopts, "bench-save", seed, NULL,
                                             &why);
        t_restore[r] = now_us() - t0;
        if (rg == NULL) {
            fprintf(stderr, "bench_rules: restore refused: %s\n", why.message);
            return 1;
        }
        wrs->destroy(rg);
        json_decref(loaded);
        free(text);
        t0 = now_us();
        struct wr_game *pg = wrs->create(sj2, wopts, "bench-save", seed, NULL, &why);
        size_t hi;
        json_t *step;
        json_array_foreach(hist, hi, step) {
            json_t *pev = NULL;
            if (wrs->apply(pg, json_string_value(json_array_get(step, 0)),
                           json_array_get(step, 1), &pev, &why) != 0) {
                fprintf(stderr, "bench_rules: replay refused: %s\n", why.message);
                return 1;
            }
            json_decref(pev);
        }
        t_replay_cmds[r] = now_us() - t0;
        wrs->destroy(pg);
    }
    int save_cmds = (int)json_array_size(hist);
    wrs->destroy(wg);
    json_decref(hist);
    json_decref(sj2);
    json_decref(wopts);

    printf("{\"bench\":\"rules\",\"reach_units_on_board\":%d,"
           "\"reach_infantry_us\":{\"n\":%d,\"median\":%.2f,\"p99\":%.2f},"
           "\"reach_cavalry_us\":{\"n\":%d,\"median\":%.2f,\"p99\":%.2f},"
           "\"reach_mean_squares\":%.1f,"
           "\"game\":{\"turns\":%d,\"commands\":%d,\"play_ms\":%.1f,\"record_bytes\":%zu},"
           "\"replay_ms\":{\"median\":%.2f,\"min\":%.2f},\"replay_failures\":%d,"
           "\"selfplay\":{\"games\":100,\"french_wins\":%d,\"allied_wins\":%d,"
           "\"mean_end_turn\":%.1f,\"battles_per_game\":%.1f,\"commands_per_game\":%.0f,"
           "\"ms_per_game\":%.1f},"
           "\"save\":{\"commands\":%d,\"bytes\":%zu,\"save_us\":%.1f,\"restore_us\":%.1f,"
           "\"replay_us\":%.1f}}\n",
           on_board, n_inf, pct(t_inf, n_inf, 0.5), pct(t_inf, n_inf, 0.99), n_cav,
           pct(t_cav, n_cav, 0.5), pct(t_cav, n_cav, 0.99),
           (double)squares / (n_inf + n_cav), turns, commands, t_play, len,
           pct(t_replay, RUNS, 0.5), pct(t_replay, RUNS, 0.0), fails, wins[0], wins[1],
           end_turns / 100.0, battles / 100.0, cmds / 100.0, t_games / 100, save_cmds,
           save_bytes, pct(t_save, SAVE_RUNS, 0.5), pct(t_restore, SAVE_RUNS, 0.5),
           pct(t_replay_cmds, SAVE_RUNS, 0.5));
    return fails ? 1 : 0;
}
