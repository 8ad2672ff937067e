/*
 * fuzz_battle_present.c - libFuzzer target for the battle's presentation
 * (common/rulesets/battle/battle_present.c, battle_present_draw.c): what
 * it reads from outside is a line a player types (order(), complete()), a
 * state from a server (update()) and the events and steps of a record
 * (event(), draw_report()).
 *
 * The first byte b advances a battle (with a referee when b is odd) by
 * b % 64 commands of the random player, so the views meet every phase.
 * Then, when the rest starts with '{', it is a state in JSON up to a NUL
 * byte, given to the views after the game's own; what follows is a line.
 * Each view (p1, p2, the referee, a spectator) orders the line: a command
 * made of it must be an object with a "type" string, and is applied to
 * the game (accepted or refused, never a crash); its events go through
 * event(). Each view is then described, completed after the line's words,
 * drawn in 40 columns (no line longer, no ESC byte), as SVG, and as a
 * battle sheet of the steps so far.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "battle_game.h"
#include "battle_present.h"
#include "prng.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t seed[32] = { 15, 3 };

static void add(void *ctx, const char *cand)
{
    if (cand == NULL || strlen(cand) >= 64)
        abort();
    (*(int *)ctx)++;
}

static void check_text(const char *s, int cols)
{
    int n = 0;
    for (; s && *s; s++) {
        if (*s == '\x1b')
            abort();
        if (*s == '\n')
            n = 0;
        else if (((unsigned char)*s & 0xc0) != 0x80 && ++n > cols)
            abort();
    }
}

static void step(struct wr_game *g, const char *seat, const json_t *cmd, json_t *steps,
                 const struct wr_present *pr, struct wr_view *v)
{
    json_t *ev = NULL;
    struct wr_refusal why;
    if (wr_game_apply(g, seat, cmd, &ev, &why) != 0)
        return;
    size_t i;
    json_t *e;
    json_array_foreach(ev, i, e) {
        struct wr_strbuf line;
        wr_strbuf_init(&line);
        pr->event(v, e, &line);
        if (line.s && strchr(line.s, '\n'))
            abort();
        wr_strbuf_release(&line);
    }
    json_array_append_new(steps, json_pack("{s:s, s:O, s:o}", "seat", seat, "cmd", cmd,
                                           "events", ev));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const struct wr_ruleset *rs = &wr_ruleset_battle;
    const struct wr_present *pr = rs->present;
    struct wr_refusal why;
    json_t *opts = json_pack("{s:b}", "referee", data[0] & 1);
    struct wr_game *g = rs->create(NULL, opts, "fuzz", seed, NULL, &why);
    json_decref(opts);
    if (g == NULL)
        abort();
    static const char *const seats[] = { "p1", "p2", "referee", NULL };
    struct wr_view *views[4];
    for (int s = 0; s < 4; s++)
        if ((views[s] = pr->open(rs, NULL, NULL, seats[s], NULL, &why)) == NULL)
            abort();
    json_t *steps = json_array();
    struct wr_prng rng;
    wr_prng_seed(&rng, data[0]);
    for (int n = 0; n < data[0] % 64; n++) {
        const char *seat = wr_game_awaited(g);
        json_t *cmd = seat ? rs->autoplay(g, seat, &rng) : NULL;
        if (cmd == NULL)
            break;
        step(g, seat, cmd, steps, pr, views[3]);
        json_decref(cmd);
    }
    const char *rest = (const char *)data + 1;
    size_t rlen = size - 1;
    json_t *st = NULL;
    if (rlen && rest[0] == '{') {
        const char *nul = memchr(rest, 0, rlen);
        size_t slen = nul ? (size_t)(nul - rest) : rlen;
        st = json_loadb(rest, slen, 0, NULL);
        rest += slen + (nul != NULL);
        rlen -= slen + (nul != NULL);
    }
    char line[1200];
    if (rlen >= sizeof line || memchr(rest, 0, rlen)) {
        rlen = 0;
    }
    memcpy(line, rest, rlen);
    line[rlen] = '\0';
    for (int s = 0; s < 4; s++) {
        struct wr_view *v = views[s];
        json_t *own = rs->project(g, seats[s]);
        if (pr->update(v, own, &why) != 0)
            abort();        /* the game's own state is always taken */
        json_decref(own);
        if (st)
            pr->update(v, st, &why);
        json_t *cmd = NULL;
        struct wr_strbuf out;
        wr_strbuf_init(&out);
        enum wr_order_kind k = pr->order(v, line, &cmd, &out, &why);
        if (k == WR_ORDER_COMMAND) {
            if (!json_is_object(cmd) || !json_is_string(json_object_get(cmd, "type")))
                abort();
            if (pr->precheck(v, cmd, &why) != 0)
                abort();
            if (seats[s])
                step(g, seats[s], cmd, steps, pr, v);
        } else if (cmd != NULL || (k == WR_ORDER_ERROR && why.message[0] == '\0')) {
            abort();
        }
        json_decref(cmd);
        wr_strbuf_release(&out);
        /* complete after the line's first words */
        const char *words[8];
        char buf[1200];
        memcpy(buf, line, rlen + 1);
        int nw = 0;
        for (char *t = strtok(buf, " "); t && nw < 8; t = strtok(NULL, " "))
            words[nw++] = t;
        int cands = 0;
        if (nw >= 1)
            pr->complete(v, words, nw, "", add, &cands);
        wr_strbuf_init(&out);
        pr->describe(v, &out);
        struct wr_draw_opts o = { 40, 0, 0, 0, 0 };
        wr_strbuf_release(&out);
        wr_strbuf_init(&out);
        if (pr->draw_text(v, &o, &out) != 0)
            abort();
        check_text(out.s, 40);
        wr_strbuf_release(&out);
        wr_strbuf_init(&out);
        if (pr->draw_svg(v, &out) != 0)
            abort();
        wr_strbuf_release(&out);
        wr_strbuf_init(&out);
        if (pr->draw_report(v, steps, &out) != 0)
            abort();
        wr_strbuf_release(&out);
    }
    for (int s = 0; s < 4; s++)
        pr->close(views[s]);
    json_decref(st);
    json_decref(steps);
    rs->destroy(g);
    return 0;
}
