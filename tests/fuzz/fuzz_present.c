/*
 * fuzz_present.c - libFuzzer target for every registered ruleset's
 * presentation (common/core/present.h), which reads two kinds of outside
 * input: the lines a player types (order, complete) and the states a
 * server sends (update). Each ruleset's view is opened once on its default
 * scenario (from the scenarios folder) for its first seat, fed a new game's
 * state. The first byte of an input picks the ruleset and what the rest
 * is: a typed line (ordered, then checked when it makes a command), words
 * to complete, or a state and an event (then described and drawn, and the
 * view given its good state back). Nothing may crash, leak or trip the
 * sanitizers.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "present.h"
#include "ruleset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_RS 16

static json_t *scenario_file(void *ctx, const char *name)
{
    (void)ctx;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.json", WARROOM_SCENARIO_DIR, name);
    json_t *j = json_load_file(path, 0, NULL);
    if (j == NULL) {
        snprintf(path, sizeof path, "%s/%s/scenario.json", WARROOM_SCENARIO_DIR, name);
        j = json_load_file(path, 0, NULL);
    }
    return j;
}

static const struct wr_host host = { NULL, scenario_file, NULL };

struct fixture {
    struct wr_view *v;
    json_t *state;              /* a new game's, with a server section */
};

static struct fixture *fixtures(int *n)
{
    static struct fixture f[MAX_RS];
    static int count = -1;
    if (count >= 0) {
        *n = count;
        return f;
    }
    count = 0;
    static const uint8_t seed[32];
    for (int i = 0; wr_ruleset_at(i) && count < MAX_RS; i++) {
        const struct wr_ruleset *rs = wr_ruleset_at(i);
        struct wr_refusal why;
        json_t *scen = rs->default_scenario ? scenario_file(NULL, rs->default_scenario) : NULL;
        struct wr_game *g = rs->create(scen, NULL, "fuzz", seed, &host, &why);
        if (g == NULL)
            abort();            /* a registered ruleset's default game must exist */
        json_t *st = rs->project(g, NULL);
        struct wr_decision d[WR_DECISIONS_MAX];
        int nd = rs->awaiting(g, d, WR_DECISIONS_MAX);
        json_t *aw = json_object();
        for (int k = 0; k < nd; k++)
            json_object_set_new(aw, d[k].seat, json_string(d[k].what));
        json_object_set_new(st, "server", json_pack("{s:s, s:n, s:n, s:o}", "status", "running",
                                                    "result", "forfeit", "awaiting", aw));
        const char *seat = rs->seats(g)[0];
        f[count].v = rs->present->open(rs, scen, NULL, seat, &host, &why);
        if (f[count].v == NULL || rs->present->update(f[count].v, st, &why) != 0)
            abort();
        f[count].state = st;
        rs->destroy(g);
        json_decref(scen);
        count++;
    }
    *n = count;
    return f;
}

static void add(void *ctx, const char *cand)
{
    (void)cand;
    (*(int *)ctx)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int n;
    struct fixture *f = fixtures(&n);
    if (size < 1 || n == 0)
        return 0;
    struct fixture *x = &f[(data[0] >> 2) % n];
    const struct wr_present *pr = x->v->pr;
    char *text = malloc(size);
    if (text == NULL)
        return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    struct wr_strbuf out;
    struct wr_refusal why;
    wr_strbuf_init(&out);
    switch (data[0] & 3) {
    case 0: {                   /* a typed line */
        json_t *cmd = NULL;
        if (pr->order(x->v, text, &cmd, &out, &why) == WR_ORDER_COMMAND) {
            pr->precheck(x->v, cmd, &why);
            json_decref(cmd);
        }
        break;
    }
    case 1: {                   /* words to complete */
        const char *words[32];
        int nw = 0, count = 0;
        for (char *save = NULL, *w = strtok_r(text, " ", &save); w && nw < 32;
             w = strtok_r(NULL, " ", &save))
            words[nw++] = w;
        if (nw >= 2)
            pr->complete(x->v, words, nw - 1, words[nw - 1], add, &count);
        break;
    }
    default: {                  /* a state, and an event, from a server */
        json_t *j = json_loads(text, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, NULL);
        if (j && pr->update(x->v, j, &why) == 0) {
            static const struct wr_draw_opts o = { .cols = 80, .rows = 24, .color = 1 };
            pr->describe(x->v, &out);
            pr->draw_text(x->v, &o, &out);
            pr->draw_svg(x->v, &out);
            if (pr->update(x->v, x->state, &why) != 0)
                abort();        /* the good state must be taken back */
        }
        if (j) {
            pr->event(x->v, j, &out);
            json_decref(j);
        }
        break;
    }
    }
    wr_strbuf_release(&out);
    free(text);
    return 0;
}
