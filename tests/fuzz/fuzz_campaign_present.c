/*
 * fuzz_campaign_present.c - libFuzzer target for the campaign's
 * presentation (common/rulesets/campaign/campaign_present.c,
 * campaign_draw.c): what it reads from outside is a state (update(), then
 * the position pre-checks rebuild from it) and a line a player types
 * (order(), complete()).
 *
 * The input is a state in JSON, a NUL byte, then a line. The state is
 * given to a view of p1, p2, the referee and a spectator on the ancient
 * map; whether or not it is taken, each view then reads the line: a
 * command made of it must have a shape the campaign's codec accepts
 * (wr_campaign_parse_command) and is pre-checked; the view is described,
 * completed after the line's words and drawn, the text without an ESC
 * byte and within its columns.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign.h"
#include "present.h"
#include "strbuf.h"

#ifndef WARROOM_SCENARIO_DIR
#error "WARROOM_SCENARIO_DIR must be defined by the build"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static json_t *scenario(void)
{
    /* Loaded once per process: only read. */
    static json_t *j;
    if (j == NULL && (j = json_load_file(WARROOM_SCENARIO_DIR "/campaign/ancient-world.json", 0,
                                         NULL)) == NULL)
        abort();
    return j;
}

static void add(void *ctx, const char *cand)
{
    if (cand == NULL || strlen(cand) >= WR_CAMPAIGN_NAME_MAX)
        abort();
    (*(int *)ctx)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, 0, size);
    size_t slen = nul ? (size_t)(nul - data) : size;
    char line[1200];
    size_t llen = nul ? size - slen - 1 : 0;
    if (llen >= sizeof line)
        return 0;
    memcpy(line, nul ? (const char *)nul + 1 : "", llen);
    line[llen] = '\0';
    json_t *st = json_loadb((const char *)data, slen, 0, NULL);
    static const char *const seats[] = { "p1", "p2", "referee", NULL };
    json_t *opts = NULL;        /* any number of players: the seeds hold 3 */
    for (int s = 0; s < 4; s++) {
        struct wr_refusal why;
        const struct wr_ruleset *rs = &wr_ruleset_campaign;
        struct wr_view *v = rs->present->open(rs, scenario(), opts, seats[s], NULL, &why);
        if (v == NULL)
            abort();
        if (st)
            rs->present->update(v, st, &why);
        json_t *cmd = NULL;
        struct wr_strbuf out;
        wr_strbuf_init(&out);
        if (strlen(line) == llen &&
            rs->present->order(v, line, &cmd, &out, &why) == WR_ORDER_COMMAND) {
            struct wr_campaign_cmd k;
            if (cmd == NULL || wr_campaign_parse_command(cmd, &k, &why) != WR_CR_OK)
                abort();        /* an order made a command the server cannot read */
            int r = rs->present->precheck(v, cmd, &why);
            if (r < -1 || r > 1)
                abort();
        }
        json_decref(cmd);
        rs->present->describe(v, &out);
        const char *words[4] = { "attack", "Carthago", NULL, NULL };
        int n = 0;
        words[0] = s == 0 ? "attack" : s == 1 ? "counter" : s == 2 ? "tactic" : "choose";
        rs->present->complete(v, words, 1, strlen(line) < 40 ? line : "", add, &n);
        rs->present->complete(v, words, 2, "", add, &n);
        wr_strbuf_release(&out);
        struct wr_draw_opts o = { .cols = (int)(size % 90), .rows = (int)(size % 30) };
        wr_strbuf_init(&out);
        if (rs->present->draw_text(v, &o, &out) != 0 || (out.len && memchr(out.s, 0x1b, out.len)))
            abort();
        for (const char *l = out.s; l && *l;) {
            const char *e = strchr(l, '\n');
            int chars = 0;
            for (const char *p = l; p < e; p++)
                chars += (*p & 0xc0) != 0x80;
            if (e == NULL || (o.cols && chars > o.cols))
                abort();
            l = e + 1;
        }
        wr_strbuf_release(&out);
        wr_strbuf_init(&out);
        if (rs->present->draw_svg(v, &out) != 0)
            abort();
        wr_strbuf_release(&out);
        rs->present->close(v);
    }
    json_decref(opts);
    json_decref(st);
    return 0;
}
