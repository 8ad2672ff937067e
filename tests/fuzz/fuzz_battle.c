/*
 * fuzz_battle.c - libFuzzer target for the battle referee's outside input
 * (common/rulesets/battle/battle_game.c): the options of create() and the
 * command parser and rules.
 *
 * An input starting with 'O' is a game's options in JSON: create() either
 * refuses them with a reason or makes a game whose invariants hold. Any
 * other first byte b advances a battle (with a referee when b is odd) by
 * b % 64 commands of the random player, so the fuzzer meets every phase:
 * rosters, the roll-off, play, disputes, the end; the rest is a command in
 * JSON, tried from every seat and from no seat. A refused command must
 * leave every view unchanged; an accepted one must keep the invariants.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "battle_game.h"
#include "prng.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t seed[32] = { 15, 2 };

static char *views(const struct wr_game *g)
{
    static const char *const who[] = { "p1", "p2", "referee", NULL };
    size_t len = 0;
    char *all = NULL;
    for (int v = 0; v < 4; v++) {
        json_t *p = g->rs->project(g, who[v]);
        char *s = json_dumps(p, JSON_SORT_KEYS | JSON_COMPACT);
        if (s == NULL)
            abort();
        all = realloc(all, len + strlen(s) + 2);
        if (all == NULL)
            abort();
        memcpy(all + len, s, strlen(s));
        len += strlen(s);
        all[len++] = '\n';
        all[len] = '\0';
        free(s);
        json_decref(p);
    }
    return all;
}

static void checked(const struct wr_game *g)
{
    struct wr_refusal why;
    if (g->rs->check(g, &why) != 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const struct wr_ruleset *rs = &wr_ruleset_battle;
    struct wr_refusal why = { 0, NULL, "" };
    if (data[0] == 'O') {
        json_t *o = json_loadb((const char *)data + 1, size - 1, JSON_DECODE_ANY, NULL);
        struct wr_game *g = rs->create(NULL, o, "fuzz", seed, NULL, &why);
        if (g == NULL && (why.code == NULL || why.message[0] == '\0'))
            abort();
        if (g) {
            checked(g);
            rs->destroy(g);
        }
        json_decref(o);
        return 0;
    }
    json_t *opts = json_pack("{s:b}", "referee", data[0] & 1);
    struct wr_game *g = rs->create(NULL, opts, "fuzz", seed, NULL, &why);
    json_decref(opts);
    if (g == NULL)
        abort();
    struct wr_prng rng;
    wr_prng_seed(&rng, data[0]);
    for (int i = 0; i < data[0] % 64; i++) {
        struct wr_decision d[3];
        if (rs->awaiting(g, d, 3) == 0)
            break;
        json_t *cmd = rs->autoplay(g, d[0].seat, &rng), *ev = NULL;
        if (cmd == NULL || rs->apply(g, d[0].seat, cmd, &ev, &why) != 0)
            abort();
        json_decref(cmd);
        json_decref(ev);
    }
    json_t *cmd = json_loadb((const char *)data + 1, size - 1, JSON_DECODE_ANY, NULL);
    static const char *const seats[] = { "p1", "p2", "referee", NULL };
    for (int s = 0; s < 4 && cmd; s++) {
        char *before = views(g);
        json_t *ev = NULL;
        int r = rs->apply(g, seats[s], cmd, &ev, &why);
        if (r != 0) {
            char *after = views(g);
            if (ev != NULL || why.code == NULL || strcmp(before, after) != 0 ||
                r >= rs->reasons->count)
                abort();
            free(after);
        } else {
            if (!json_is_array(ev))
                abort();
            checked(g);
            for (int v = 0; v < 4; v++) {
                json_t *pe = rs->project_events(g, seats[v], ev);
                if (!json_is_array(pe))
                    abort();
                json_decref(pe);
            }
        }
        free(before);
        json_decref(ev);
    }
    json_decref(cmd);
    rs->destroy(g);
    return 0;
}
