/*
 * fuzz_campaign.c - libFuzzer target for the campaign's outside input: the
 * campaign map loader and the command parser and rules.
 *
 * An input starting with 'M' is a campaign map: whatever the loader accepts
 * must be a map the rules can trust (4..64 towns, adjacency symmetric, no
 * town next to itself, connected, unique names). Any other first byte b
 * advances a 3-player campaign on the ancient map by b % 64 legal commands
 * (so the fuzzer meets every phase: draft, attack, counter, tactics,
 * battle); the rest is a command in JSON, tried from every seat and from no
 * seat. A refused command must leave every seat's view unchanged; an
 * accepted one must keep the invariants.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign.h"

#ifndef WARROOM_SCENARIO_DIR
#error "WARROOM_SCENARIO_DIR must be defined by the build"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct wr_campaign_map *ancient(void)
{
    /* Loaded once per process: the map is read-only. */
    static struct wr_campaign_map *m;
    if (m == NULL) {
        struct wr_refusal why;
        m = calloc(1, sizeof *m);
        if (m == NULL ||
            wr_campaign_map_load_file(m, WARROOM_SCENARIO_DIR "/campaign/ancient-world.json",
                                      &why) != 0)
            abort();
    }
    return m;
}

static void check_map(const struct wr_campaign_map *m)
{
    if (m->ntowns < WR_CAMPAIGN_TOWNS_MIN || m->ntowns > WR_CAMPAIGN_TOWNS_MAX)
        abort();
    uint64_t seen = 1;
    for (int round = 0; round < m->ntowns; round++)
        for (int t = 0; t < m->ntowns; t++)
            if (seen >> t & 1u)
                seen |= m->towns[t].adj;
    for (int t = 0; t < m->ntowns; t++) {
        if (!(seen >> t & 1u) || (m->towns[t].adj >> t & 1u) || m->towns[t].name[0] == '\0')
            abort();
        if (m->ntowns < 64 && (m->towns[t].adj >> m->ntowns) != 0)
            abort();
        for (int u = 0; u < m->ntowns; u++)
            if (wr_campaign_map_adjacent(m, t, u) != wr_campaign_map_adjacent(m, u, t) ||
                (u != t && strcmp(m->towns[t].name, m->towns[u].name) == 0))
                abort();
    }
}

/* The next legal command of the position, as JSON text (deterministic). */
static int next_command(const struct wr_campaign *c, char *seat, char *text, size_t n)
{
    json_t *st = wr_campaign_project(c, NULL);
    json_t *aw = json_object_get(st, "awaiting");
    const char *s = json_string_value(json_object_get(aw, "seat"));
    const char *what = json_string_value(json_object_get(aw, "what"));
    if (s == NULL || what == NULL) {
        json_decref(st);
        return -1;
    }
    snprintf(seat, 16, "%s", s);
    int p = wr_campaign_player(c, s), town = -1;
    for (int t = 0; t < c->map.ntowns && town < 0; t++) {
        enum wr_campaign_reason r = WR_CR_BAD_COMMAND;
        if (strcmp(what, "choose_town") == 0)
            r = wr_campaign_check_draft(c, p, t, NULL);
        else if (strcmp(what, "attack") == 0)
            r = wr_campaign_check_attack(c, p, t, NULL);
        else if (strcmp(what, "counter") == 0)
            r = wr_campaign_check_counter(c, c->at.attacker, c->at.target, t, NULL);
        if (r == WR_CR_OK)
            town = t;
    }
    const char *name = town >= 0 ? c->map.towns[town].name : "";
    if (strcmp(what, "start") == 0)
        snprintf(text, n, "{\"type\":\"start\"}");
    else if (strcmp(what, "choose_town") == 0 || strcmp(what, "counter") == 0)
        snprintf(text, n, "{\"type\":\"%s\",\"town\":\"%s\"}", what, name);
    else if (strcmp(what, "attack") == 0)
        snprintf(text, n, "{\"type\":\"attack\",\"target\":\"%s\"}", name);
    else if (strcmp(what, "choose_strategy") == 0)
        snprintf(text, n, "{\"type\":\"choose_strategy\",\"strategy\":\"hidden_ambush\"}");
    else if (strcmp(what, "tactic") == 0) {
        /* March against defend (no battle), then defend against attack
         * (red attacks blue's defences). */
        int side = p == c->at.attacker ? 0 : 1;
        int last = c->at.nrounds ? c->at.rounds[c->at.nrounds - 1].side[side].choice : -1;
        const char *choice = side == 0 ? (last == WR_CT_MARCH ? "defend" : "march")
                                       : (last == WR_CT_DEFEND ? "attack" : "defend");
        snprintf(text, n, "{\"type\":\"tactic\",\"choice\":\"%s\",\"salt\":\"s\"}", choice);
    } else if (strcmp(what, "seal_ambush") == 0)
        snprintf(text, n, "{\"type\":\"seal_ambush\",\"note\":\"by the river\"}");
    else
        snprintf(text, n, "{\"type\":\"%s\",\"attacker\":1300,\"defender\":1000}", what);
    json_decref(st);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    if (data[0] == 'M') {
        struct wr_campaign_map *m = malloc(sizeof *m);
        struct wr_refusal why;
        json_t *j = json_loadb((const char *)data + 1, size - 1, JSON_REJECT_DUPLICATES, NULL);
        if (j && m && wr_campaign_map_load(m, j, &why) == 0)
            check_map(m);
        json_decref(j);
        free(m);
        return 0;
    }
    static const uint8_t seed[32] = { 9 };
    struct wr_refusal why;
    json_t *opts = json_pack("{s:i, s:b, s:i}", "players", 3, "referee", 1, "max_rounds", 2);
    struct wr_campaign *c = wr_campaign_new(ancient(), opts, "fuzz", seed, NULL, &why);
    json_decref(opts);
    if (c == NULL)
        abort();
    for (int i = 0; i < data[0] % 64 && c->phase != WR_CP_OVER; i++) {
        char seat[16], text[256];
        json_t *ev = NULL;
        if (next_command(c, seat, text, sizeof text) != 0)
            break;
        json_t *cmd = json_loads(text, 0, NULL);
        if (wr_campaign_apply(c, seat, cmd, &ev, &why) != WR_CR_OK)
            abort();        /* the scripted player proposed an illegal command */
        json_decref(cmd);
        json_decref(ev);
    }
    json_t *j = json_loadb((const char *)data + 1, size - 1, 0, NULL);
    static const char *const seats[] = { "p1", "p2", "p3", "referee", "p4", NULL };
    for (int s = 0; j && s < 6; s++) {
        json_t *before[4], *events = NULL;
        for (int v = 0; v < 4; v++)
            before[v] = wr_campaign_project(c, seats[v]);
        enum wr_campaign_reason r = wr_campaign_apply(c, seats[s], j, &events, &why);
        if (r != WR_CR_OK) {
            for (int v = 0; v < 4; v++) {
                json_t *after = wr_campaign_project(c, seats[v]);
                if (!json_equal(before[v], after))
                    abort();    /* a refusal changed the game */
                json_decref(after);
            }
        } else {
            if (wr_campaign_check(c, &why) != 0)
                abort();        /* an accepted command broke an invariant */
            json_decref(wr_campaign_project_events(c, NULL, events));
        }
        for (int v = 0; v < 4; v++)
            json_decref(before[v]);
        json_decref(events);
    }
    json_decref(j);
    wr_campaign_free(c);
    return 0;
}
