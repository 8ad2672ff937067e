/*
 * test_combat.c - combat (waterloo_combat.h) against the rulebook's worked examples.
 *
 * A position is written as two short texts, its terrain and its units, so
 * that a table row reads like the diagram it reproduces. The rulebook's
 * diagrams are not in the text we have: each position is built to match
 * the words and the odds the rulebook states, and says which example it is.
 * Table-driven: each row is numbered so a failure names it.
 *
 * Terrain: space-separated items
 *   river=Name:SQ,SQ,..   woods=SQ,..   slope=SQ:DIR,DIR (high sides)
 *   road=Name:SQ,SQ,..  (primary)   sroad=Name:SQ,..  (secondary)
 *   exit=SQ,..  (French exit squares)
 * Units: space-separated S:Name:F@SQ, S = F (French, "Blue") or A (allied,
 *   "Red"), F = the combat factor or "hq", SQ = "-" for a unit off the board.
 * Battles: "Blue-A,Blue-B>Red-A|Blue-C>Red-B"; "#n" names unit number n.
 * Odds: "10-4=2-1,6-4=1-1", one per battle: attack-defence=column ("AE"
 *   for an automatic A-Elim).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "waterloo_combat.h"
#include "waterloo_move.h"
#include "wl_testdata.h"

#define FC WL_PH_FRENCH_COMBAT
#define AC WL_PH_ALLIED_COMBAT
#define PDEF (-1)               /* the position's own phase */

/* --- positions ------------------------------------------------------------- */

struct position {
    const char *what;           /* the rulebook example it reproduces */
    const char *terrain;
    const char *units;
    int phase;
};

enum {
    P_DFI_RIVER, P_DFI_PLAIN, P_DFI_MIXED, P_DFI_RIVERDEF, P_DFI_HILL, P_DFI_HILL_A,
    P_DFI_HILL_B, P_RC1, P_RC2, P_RC3, P_HC1, P_HC_STAR, P_HC2, P_HC_STAR2, P_HILL_SIDE,
    P_HILL_PLAIN, P_HILL_RIVERTOP, P_HQ, P_HQ_ALONE, P_MISC1, P_MISC2, P_MU1, P_MU2A, P_MU2B,
    P_MU3, P_SOAK1, P_SOAK2, P_SURROUND, P_SURROUND_Z,
    P_RET_OPEN, P_RET_ZOC, P_RET_EDGE, P_RET_RIVER, P_RET_BRIDGE, P_RET_FROMRIVER,
    P_RET_STACK, P_RET_WOODS, P_RET_WOODS2, P_RET_EXIT, P_RET_EXIT_ALLY, P_RET_EXIT_TRAP,
    P_RET_BAD,
    P_ADV_RIVER, P_ADV_ENEMY, P_ADV_STACK, P_ADV_SLOPE, P_ADV_SLOPE_AWAY, P_ADV_PLAIN,
    P_ADV_EXCH, P_ADV_MIXED, P_RET_HQ, P_ADV_HQ, P_ADV_HQ_STACK,
    P_COUNT
};

#define EXIT_TERRAIN                                                                 \
    "exit=A-39,A-40,A-41,A-42,A-43,A-44,A-45 road=Brussels:B-44,A-45,0-46 "         \
    "sroad=Ohain:B-39,A-39,0-39"

static const struct position positions[P_COUNT] = {
    /* "Combat -- When Defense Factors Increase" */
    [P_DFI_RIVER] = { "Defense Factors Increase 1: Blue attacks from river squares",
                      "river=Dyle:M-28,M-29,M-30,M-31,M-32",
                      "F:Blue-A:4@M-31 F:Blue-B:6@M-30 F:Blue-C:6@M-29 "
                      "A:Red-A:2@L-31 A:Red-B:1@L-30 A:Red-C:1@L-29", FC },
    [P_DFI_PLAIN] = { "Defense Factors Increase 2: non-river attackers; Red on a river, a "
                      "woods and (attacked down slope from a hill top) a slope square",
                      "river=Thyle:O-19,O-20,O-21 woods=O-25 slope=O-30:SW",
                      "F:Blue-A:4@P-20 F:Blue-B:4@P-25 F:Blue-C:6@P-30 "
                      "A:Red-A:2@O-20 A:Red-B:1@O-25 A:Red-C:2@O-30", FC },
    [P_DFI_MIXED] = { "Defense Factors Increase 3: river and non-river attackers",
                      "river=Dyle:M-28,M-29,M-30",
                      "F:Blue-A:4@M-30 F:Blue-B:4@M-31 A:Red:2@L-31", FC },
    [P_DFI_RIVERDEF] = { "Defense Factors Increase 4: Red on river squares, attacked from "
                         "river squares",
                         "river=Dyle:M-19,M-20,M-21,M-22,M-23,M-24,M-25,M-26",
                         "F:Blue-A:6@M-20 A:Red-A:2@M-21 F:Blue-B:4@M-25 A:Red-B:1@M-26", FC },
    [P_DFI_HILL] = { "Defense Factors Increase 5: Blue-A on a slope, Blue-B on a hill top",
                     "slope=N-30:NE slope=N-31:NE",
                     "F:Blue-A:4@N-30 F:Blue-B:6@M-31 A:Red:2@M-30", FC },
    [P_DFI_HILL_A] = { "Defense Factors Increase 5: Blue-B not in the picture",
                       "slope=N-30:NE slope=N-31:NE",
                       "F:Blue-A:4@N-30 F:Blue-B:6@- A:Red:2@M-30", FC },
    [P_DFI_HILL_B] = { "Defense Factors Increase 5: Blue-A not in the picture",
                       "slope=N-30:NE slope=N-31:NE",
                       "F:Blue-A:4@- F:Blue-B:6@M-31 A:Red:2@M-30", FC },
    /* "River Combat" */
    [P_RC1] = { "River Combat 1: Blue on a river square", "river=Dyle:N-29,N-30,N-31",
                "F:Blue:4@N-30 A:Red:2@M-30", FC },
    [P_RC2] = { "River Combat 2: the river touches Blue's square but is not through it",
                "river=Dyle:O-29,O-30,O-31", "F:Blue:4@N-30 A:Red:2@M-30", FC },
    [P_RC3] = { "River Combat 3: Blue-A on a river square, Blue-B not",
                "river=Dyle:N-29,N-30", "F:Blue-A:4@N-30 F:Blue-B:4@M-31 A:Red:2@M-30", FC },
    /* "Hilltop Combat" */
    [P_HC1] = { "Hilltop Combat 1: both attack from slope squares; a river and a road "
                "change nothing",
                "slope=N-30:NE slope=M-29:W river=Dyle:N-29,N-30,N-31 "
                "road=Genappe:O-30,N-30,M-30,L-30",
                "F:Blue-A:4@N-30 F:Blue-B:4@M-29 A:Red:2@M-30", FC },
    [P_HC_STAR] = { "footnote *: a river runs through both attackers' slope squares",
                    "slope=N-30:NE slope=M-29:W river=Dyle:M-29,N-29,N-30",
                    "F:Blue-A:4@N-30 F:Blue-B:4@M-29 A:Red:2@M-30", FC },
    [P_HC2] = { "Hilltop Combat 2: only Red-A is on a hill top",
                "slope=N-30:NE", "F:Blue:4@N-30 A:Red-A:2@M-30 A:Red-B:2@M-31", FC },
    [P_HC_STAR2] = { "footnote **: a river runs through Blue's hill top",
                     "slope=N-30:NE slope=N-31:NE river=Dyle:L-31,M-31,N-31",
                     "F:Blue:4@M-31 A:Red:2@M-30", FC },
    [P_HILL_SIDE] = { "reading: a slope whose high side faces away from the hill top",
                      "slope=N-30:NE slope=M-29:E", "F:Blue:4@M-29 A:Red:2@M-30", FC },
    [P_HILL_PLAIN] = { "reading: a plain square next to a hill top", "slope=N-30:NE",
                       "F:Blue:4@M-31 A:Red:2@M-30", FC },
    [P_HILL_RIVERTOP] = { "reading: a hill top on a river, attacked uphill from a river slope",
                          "slope=N-30:NE river=Dyle:M-30,N-30", "F:Blue:4@N-30 A:Red:2@M-30",
                          FC },
    /* "Use of Headquarters Units" */
    [P_HQ] = { "HQ units: no zone, may not attack, eliminated when attacked", "",
               "F:Blue:4@M-30 F:Napoleon:hq@M-31 A:Red:2@L-31 A:Wellington:hq@L-30", FC },
    [P_HQ_ALONE] = { "an enemy HQ alone next to Blue", "",
                     "F:Blue:4@M-30 A:Wellington:hq@L-30", FC },
    /* "Miscellaneous Examples" */
    [P_MISC1] = { "Miscellaneous 1: two rivers, only one way to fight",
                  "river=Dyle:M-27,M-28,M-29,M-30 river=Lasne:K-31,L-30",
                  "F:Blue-A:5@M-30 A:Red-A:5@L-30 F:Blue-B:6@M-27 A:Red-B:2@L-27", FC },
    [P_MISC2] = { "Miscellaneous 2: Blue-A, B on a river square, Blue-C, D on a plain one",
                  "river=Dyle:K-31,L-31,L-32",
                  "F:Blue-A:6@L-31 F:Blue-B:5@L-31 F:Blue-C:5@N-30 F:Blue-D:3@N-30 "
                  "A:Red-A:7@M-30 A:Red-B:4@M-31", FC },
    /* "Multiple Unit Battles" */
    [P_MU1] = { "Multiple Unit Battles 1: four attackers, three defenders", "",
                "F:Blue-A:4@M-30 F:Blue-B:4@L-31 F:Blue-C:5@M-29 F:Blue-D:3@M-28 "
                "A:Red-A:4@L-30 A:Red-B:2@L-29 A:Red-C:4@L-28", FC },
    [P_MU2A] = { "Multiple Unit Battles 2: stacked defenders, attackers on two squares", "",
                 "F:Blue-A:4@M-30 F:Blue-B:4@M-29 A:Red-A:2@L-30 A:Red-B:2@L-30 "
                 "A:Red-C:4@L-30", FC },
    [P_MU2B] = { "Multiple Unit Battles 2: stacked defenders, stacked attackers", "",
                 "F:Blue-A:4@M-30 F:Blue-B:4@M-30 A:Red-A:2@L-30 A:Red-B:2@L-30 "
                 "A:Red-C:4@L-30", FC },
    [P_MU3] = { "Multiple Unit Battles 3: stacked attackers, defenders on two squares", "",
                "F:Blue-A:5@M-30 F:Blue-B:4@M-30 A:Red-A:2@L-30 A:Red-B:4@L-31", FC },
    /* "Soaking Off" */
    [P_SOAK1] = { "Soaking Off 1: Blue-E soaks off against Red-B, C, D", "",
                  "F:Blue-A:4@L-30 F:Blue-B:5@L-30 F:Blue-C:4@M-29 F:Blue-D:5@M-29 "
                  "F:Blue-E:2@M-28 F:Blue-F:6@N-29 A:Red-A:6@M-30 A:Red-B:6@L-29 "
                  "A:Red-C:6@N-28 A:Red-D:6@N-28", FC },
    [P_SOAK2] = { "Soaking Off 2: Blue-A soaks off against Red-A, B, D", "",
                  "F:Blue-A:2@O-28 F:Blue-B:5@M-31 F:Blue-C:5@L-31 F:Blue-D:5@L-30 "
                  "F:Blue-E:5@N-30 F:Blue-F:4@N-29 A:Red-A:6@P-28 A:Red-B:6@O-27 "
                  "A:Red-C:6@M-30 A:Red-D:6@O-29", FC },
    /* "Examples: How to Have Combat" */
    [P_SURROUND] = { "How to Have Combat: Blue-A circled square Z; Red is surrounded", "",
                     "F:Blue-A:4@M-31 F:Blue-B:4@L-30 F:Blue-C:3@N-29 A:Red:5@M-30", FC },
    [P_SURROUND_Z] = { "How to Have Combat: had Blue-A stopped on Z, Red escapes through E",
                       "", "F:Blue-A:4@M-29 F:Blue-B:4@L-30 F:Blue-C:3@N-29 A:Red:5@M-30",
                       FC },
    /* "Combat Results Explanation", BACK 2 */
    [P_RET_OPEN] = { "retreat: one winner next to the loser, open ground", "",
                     "F:Blue:4@N-29 A:Red:2@M-30", FC },
    [P_RET_ZOC] = { "retreat rule a: zones of control (an HQ has none)", "",
                    "F:Blue-A:4@L-30 F:Blue-B:4@O-30 F:Napoleon:hq@M-33 A:Red:2@M-30", FC },
    [P_RET_EDGE] = { "retreat rule b: the north edge", "",
                     "F:Blue:4@C-29 A:Red:2@B-30 A:Red-E:2@A-33", FC },
    [P_RET_RIVER] = { "retreat rule c: onto or across a river",
                      "river=Dyle:N-28,N-29,N-30,N-31,N-32", "F:Blue:4@L-30 A:Red:2@M-30",
                      FC },
    [P_RET_BRIDGE] = { "retreat rule c: across a river by a bridge",
                       "river=Dyle:N-28,N-29,N-30,N-31,N-32 road=Bridge:M-32,N-31,O-30",
                       "F:Blue:4@L-32 A:Red:2@M-32", FC },
    [P_RET_FROMRIVER] = { "retreat rule d: from a river square",
                          "river=Dyle:N-28,N-29,N-30,N-31,N-32 river=Lasne:P-28,P-29",
                          "F:Blue:4@M-30 A:Red:2@N-30", FC },
    [P_RET_STACK] = { "retreat rule e: through friendly stacks, over-stacking at the end", "",
                      "F:Blue:4@N-29 A:Red:5@M-30 A:Red-S1:8@L-30 A:Red-S2:7@L-30 "
                      "A:Red-T1:6@K-30 A:Red-T2:4@K-30 A:Red-U1:6@K-31 A:Red-U2:5@K-31", FC },
    [P_RET_WOODS] = { "retreat rule f: X woods, Y road-woods (road M-30 L-31 K-31), M-29 "
                      "road-woods entered off its road",
                      "woods=L-30,L-31,M-29 road=Wood:M-30,L-31,K-31 "
                      "road=Forest:L-29,M-29,N-28",
                      "F:Blue:4@N-30 A:Red:2@M-30", FC },
    [P_RET_WOODS2] = { "retreat rule f: woods as the second square only", "woods=K-30",
                       "F:Blue:4@N-30 A:Red:2@M-30", FC },
    [P_RET_EXIT] = { "retreat EXCEPTION: French units leaving by A-39 and A-45", EXIT_TERRAIN,
                     "F:Fr-A:4@A-45 F:Fr-B:4@B-39 F:Fr-C:4@B-41 F:Fr-D:4@A-42 A:Al-A:4@B-45",
                     AC },
    [P_RET_EXIT_ALLY] = { "retreat EXCEPTION: not for allied units", EXIT_TERRAIN,
                          "A:Al-A:4@A-45 F:Fr-A:4@C-45", FC },
    [P_RET_EXIT_TRAP] = { "retreat EXCEPTION: the road off the board is the only way out",
                          EXIT_TERRAIN, "F:Fr-A:4@A-45 A:Al-A:4@B-44 A:Al-B:4@A-46", AC },
    [P_RET_BAD] = { "not retreats at all", "",
                    "F:Blue-A:4@N-29 F:Blue-B:4@K-30 A:Red:2@M-30 A:Red-X:2@-", FC },
    /* "Movement After Combat" */
    [P_ADV_RIVER] = { "Movement After Combat 1: Blue attacked from a river square (Blue-X, "
                      "also on the river, fought another battle)",
                      "river=Dyle:M-29,M-30,M-31", "F:Blue:4@M-30 F:Blue-X:4@M-29 A:Red:2@-",
                      FC },
    [P_ADV_ENEMY] = { "advance: the vacated square is held by the enemy again",
                      "river=Dyle:M-29,M-30,M-31", "F:Blue:4@M-30 A:Red:2@- A:Red-X:2@L-30",
                      FC },
    [P_ADV_STACK] = { "advance: Blue-A has advanced already; stacking counts",
                      "river=Dyle:M-29,M-30,M-31",
                      "F:Blue-A:9@L-30 F:Blue-B:7@M-30 F:Blue-C:6@M-30 A:Red:4@-", FC },
    [P_ADV_SLOPE] = { "Movement After Combat: from a slope onto the vacated hill top",
                      "slope=N-30:NE slope=N-31:NE",
                      "F:Blue-A:4@N-30 F:Blue-B:6@M-31 A:Red:2@- A:Red-B:1@-", FC },
    [P_ADV_SLOPE_AWAY] = { "reading: a slope facing away still advances onto a hill top",
                           "slope=N-30:NE slope=M-29:E", "F:Blue:4@M-29 A:Red:2@-", FC },
    [P_ADV_PLAIN] = { "advance: from a plain square", "", "F:Blue:4@M-30 A:Red:2@-", FC },
    [P_ADV_EXCH] = { "Movement After Combat 2: exchange; Blue-A survives",
                     "river=Dyle:M-29,M-30,M-31", "F:Blue-A:4@M-30 F:Blue-B:4@- A:Red:4@-",
                     FC },
    [P_ADV_MIXED] = { "advance: river and non-river attackers together",
                      "river=Dyle:M-29,M-30", "F:Blue-A:4@M-30 F:Blue-B:4@M-31 A:Red:2@-", FC },
    /* HQs "have no bearing on the play of the game as they have no zone of control and
     * cannot be used to delay the enemy" (docs/rules-notes.md H2) */
    [P_RET_HQ] = { "HQ in the way: Red's only escape (through M-31, as in How to Have "
                   "Combat) crosses Napoleon's square",
                   "", "F:Blue-A:4@M-29 F:Blue-B:4@L-30 F:Blue-C:3@N-29 F:Napoleon:hq@M-31 "
                   "A:Red:5@M-30", FC },
    [P_ADV_HQ] = { "HQ in the way: Wellington alone on the square Red vacated",
                   "river=Dyle:M-29,M-30,M-31", "F:Blue:4@M-30 A:Red:2@- A:Wellington:hq@L-30",
                   FC },
    [P_ADV_HQ_STACK] = { "HQ in the way: Wellington with Red-X on the vacated square",
                         "river=Dyle:M-29,M-30,M-31",
                         "F:Blue:4@M-30 A:Red:2@- A:Red-X:2@L-30 A:Wellington:hq@L-30", FC },
};

/* --- building a position ---------------------------------------------------- */

struct fx {
    struct wl_scenario *sc;
    struct wl_game *g;
    int row;
    const char *table;
};

/* Copy the next token of *p (leading spaces skipped) up to a character of
 * seps into buf and step past it; 0 when nothing is left. */
static int next_token(const char **p, const char *seps, char *buf, size_t n)
{
    const char *s = *p + strspn(*p, " ");
    if (*s == '\0')
        return 0;
    size_t len = strcspn(s, seps);
    if (len >= n)
        fail_msg("test data: token too long in '%s'", s);
    memcpy(buf, s, len);
    buf[len] = '\0';
    s += len;
    if (*s != '\0')
        s++;
    *p = s;
    return 1;
}

/* A square name, "off" (WL_PATH_OFF) or "none" (WL_SQ_NONE). */
static int sq_list(const char *text, wl_sq *out, int max)
{
    char tok[16];
    int n = 0;
    while (next_token(&text, ",", tok, sizeof tok)) {
        if (n == max)
            fail_msg("test data: too many squares");
        out[n++] = wlt_sq(tok);
    }
    return n;
}

static int dir_of(const char *name)
{
    for (int d = 0; d < WL_NDIR; d++)
        if (strcmp(wl_dir_name(d), name) == 0)
            return d;
    fail_msg("test data: no direction '%s'", name);
    return -1;
}

static void add_terrain(struct fx *f, const char *terrain)
{
    struct wl_map *m = &f->sc->map;
    struct wr_refusal why;
    char item[256], name[64], dirs[32];
    wl_sq s[24];

    while (next_token(&terrain, " ", item, sizeof item)) {
        char *args = strchr(item, '=');
        if (args == NULL)
            fail_msg("test data: terrain item '%s' has no '='", item);
        *args++ = '\0';
        if (strcmp(item, "river") == 0 || strcmp(item, "road") == 0 ||
            strcmp(item, "sroad") == 0) {
            const char *q = args;
            if (!next_token(&q, ":", name, sizeof name))
                fail_msg("test data: %s without a name", item);
            int n = sq_list(q, s, 24), rc;
            if (item[0] == 'r' && item[1] == 'i')
                rc = wl_map_add_river(m, name, s, n, &why);
            else
                rc = wl_map_add_road(m, name,
                                     item[0] == 's' ? WL_ROAD_SECONDARY : WL_ROAD_PRIMARY, s, n,
                                     &why);
            if (rc < 0)
                fail_msg("test data: %s", why.message);
        } else if (strcmp(item, "woods") == 0 || strcmp(item, "exit") == 0) {
            int n = sq_list(args, s, 24);
            for (int i = 0; i < n; i++) {
                if (item[0] == 'w')
                    m->cell[s[i]].woods = 1;
                else
                    m->cell[s[i]].exit = 1;
            }
        } else if (strcmp(item, "slope") == 0) {
            const char *q = args;
            char where[16];
            if (!next_token(&q, ":", where, sizeof where))
                fail_msg("test data: slope without a square");
            wl_sq at = wlt_sq(where);
            while (next_token(&q, ",", dirs, sizeof dirs))
                m->cell[at].slope_high |= (uint8_t)(1u << dir_of(dirs));
        } else {
            fail_msg("test data: unknown terrain '%s'", item);
        }
    }
}

static void add_units(struct fx *f, const char *units)
{
    struct wl_scenario *sc = f->sc;
    char tok[64];

    while (next_token(&units, " ", tok, sizeof tok)) {
        char *name = tok + 2, *factor = strchr(name, ':'), *at;
        if ((tok[0] != 'F' && tok[0] != 'A') || tok[1] != ':' || factor == NULL)
            fail_msg("test data: unit '%s'", tok);
        *factor++ = '\0';
        at = strchr(factor, '@');
        if (at == NULL)
            fail_msg("test data: unit '%s' has no square", name);
        *at++ = '\0';
        struct wl_unit_def *d = &sc->units[sc->nunits++];
        if (strlen(name) >= sizeof d->id)
            fail_msg("test data: unit name '%s' too long", name);
        memcpy(d->id, name, strlen(name) + 1);
        memcpy(d->name, name, strlen(name) + 1);
        snprintf(d->size, sizeof d->size, "XX");
        d->side = tok[0] == 'F' ? WL_FRENCH : WL_ALLIED;
        d->nation = tok[0] == 'F' ? WL_NATION_FRENCH : WL_NATION_ANGLO_ALLIED;
        if (strcmp(factor, "hq") == 0) {
            d->type = WL_HQ;
            d->combat = 0;
        } else {
            d->type = WL_INFANTRY;
            d->combat = (uint8_t)atoi(factor);
        }
        d->move = 4;
        d->setup = strcmp(at, "-") == 0 ? WL_SQ_NONE : wlt_sq(at);
        d->entry = -1;
    }
}

/* Build position pos in phase (PDEF: its own) into f. */
static void build(struct fx *f, const char *table, int row, int pos, int phase)
{
    const struct position *p = &positions[pos];
    struct wr_refusal why;

    f->row = row;
    f->table = table;
    f->sc = calloc(1, sizeof *f->sc);
    f->g = calloc(1, sizeof *f->g);
    assert_non_null(f->sc);
    assert_non_null(f->g);
    wl_map_init(&f->sc->map);
    add_terrain(f, p->terrain);
    wl_map_finish(&f->sc->map);
    add_units(f, p->units);
    f->sc->start_turn = 1;
    wl_game_init(f->g, f->sc, "test", NULL);
    for (int i = 0; i < f->sc->nunits; i++)
        if (f->sc->units[i].setup == WL_SQ_NONE)
            f->g->units[i].where = WL_ELIMINATED;
    f->g->phase = phase == PDEF ? p->phase : phase;
    switch (f->g->phase) {
    case WL_PH_FRENCH_COMBAT:
    case WL_PH_ALLIED_COMBAT:
        f->g->await_what = WL_AW_DECLARE;
        break;
    default:
        f->g->await_what = WL_AW_MOVE;
        break;
    }
    f->g->await_side = (f->g->phase == WL_PH_ALLIED_COMBAT ||
                        f->g->phase == WL_PH_ALLIED_MOVE) ? WL_ALLIED : WL_FRENCH;
    if (wl_game_check(f->g, &why) != 0)
        fail_msg("%s row %d: position '%s' is not valid: %s", table, row, p->what,
                 why.message);
}

static void release(struct fx *f)
{
    free(f->g);
    free(f->sc);
}

/* Unit number of name, or n for "#n". */
static int unit(const struct fx *f, const char *name)
{
    if (name[0] == '#')
        return atoi(name + 1);
    int u = wl_scenario_find_unit(f->sc, name);
    if (u < 0)
        fail_msg("%s row %d: test data: no unit '%s'", f->table, f->row, name);
    return u;
}

static void unit_list(const struct fx *f, const char *text, int16_t *out, int *n)
{
    char tok[32];
    *n = 0;
    while (next_token(&text, ",", tok, sizeof tok))
        out[(*n)++] = (int16_t)unit(f, tok);
}

static int parse_battles(const struct fx *f, const char *spec, struct wl_battle *b, int max)
{
    char seg[256];
    int nb = 0;
    while (next_token(&spec, "|", seg, sizeof seg)) {
        char *gt = strchr(seg, '>');
        if (gt == NULL || nb == max)
            fail_msg("%s row %d: test data: battle '%s'", f->table, f->row, seg);
        *gt = '\0';
        memset(&b[nb], 0, sizeof b[nb]);
        unit_list(f, seg, b[nb].attackers, &b[nb].nattackers);
        unit_list(f, gt + 1, b[nb].defenders, &b[nb].ndefenders);
        nb++;
    }
    return nb;
}

static void odds_text(const struct fx *f, struct wl_battle *b, int nb, char *out, size_t n)
{
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < nb && len < n; i++) {
        wl_combat_odds(f->g, &b[i]);
        len += (size_t)snprintf(out + len, n - len, "%s%d-%d=%s", i ? "," : "", b[i].attack,
                                b[i].defence,
                                b[i].column < 0 ? "AE" : wl_crt_label(b[i].column));
    }
}

/* --- odds -------------------------------------------------------------------- */

static void test_column(void **state)
{
    static const struct { int row, attack, defence; const char *col; } t[] = {
        /* "Combat Results Table": the rulebook's conversions */
        { 1, 29, 10, "2-1" }, { 2, 9, 5, "1-1" }, { 3, 24, 5, "4-1" }, { 4, 2, 3, "1-2" },
        { 5, 4, 15, "1-4" }, { 6, 4, 2, "2-1" }, { 7, 9, 3, "3-1" },
        /* the examples' odds */
        { 8, 11, 5, "2-1" }, { 9, 2, 18, "AE" }, { 10, 19, 11, "1-1" }, { 11, 24, 6, "4-1" },
        { 12, 6, 18, "1-3" }, { 13, 12, 6, "2-1" }, { 14, 11, 14, "1-2" },
        { 15, 11, 7, "1-1" }, { 16, 14, 7, "2-1" }, { 17, 3, 6, "1-2" }, { 18, 13, 4, "3-1" },
        { 19, 3, 4, "1-2" }, { 20, 8, 8, "1-1" }, { 21, 10, 2, "5-1" }, { 22, 4, 1, "4-1" },
        { 23, 10, 4, "2-1" }, { 24, 6, 4, "1-1" }, { 25, 5, 5, "1-1" },
        /* the edges of the table */
        { 26, 6, 1, "6-1" }, { 27, 7, 1, "6-1" }, { 28, 100, 1, "6-1" }, { 29, 1, 6, "1-6" },
        { 30, 1, 7, "AE" }, { 31, 2, 12, "1-6" }, { 32, 2, 13, "AE" }, { 33, 5, 0, "6-1" },
        { 34, 0, 5, "AE" }, { 35, 5, 3, "1-1" }, { 36, 17, 3, "5-1" }, { 37, 5, 11, "1-3" },
        { 38, 5, 10, "1-2" }, { 39, 3, 2, "1-1" }, { 40, 0, 0, "6-1" },
    };
    (void)state;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        int c = wl_combat_column(t[i].attack, t[i].defence);
        const char *got = c == -1 ? "AE" : wl_crt_label(c);
        if (strcmp(got, t[i].col) != 0)
            fail_msg("column row %d: %d-%d gives %s (%d), want %s", t[i].row, t[i].attack,
                     t[i].defence, got, c, t[i].col);
    }
    assert_int_equal(wl_combat_column(29, 10), wl_crt_column("2-1"));
    assert_int_equal(wl_combat_column(1, 6), 0);
    assert_int_equal(wl_combat_column(9, 5), 5);
    assert_int_equal(wl_combat_column(60, 10), 10);
    assert_int_equal(wl_combat_column(2, 18), -1);
}

/* --- declarations and odds ---------------------------------------------------- */

static const struct decl_row {
    int row;
    int pos;
    int phase;
    const char *battles;
    enum wl_reason want;
    const char *odds;           /* NULL: not checked */
    const char *msg;            /* a part of the refusal sentence, or NULL */
} decl_rows[] = {
    /* Combat -- When Defense Factors Increase, 1: "Blue-A attacks Red-A at 4-4, Blue-B
     * attacks Red-B at 6-2, and Blue-C attacks Red-C at 6-2 ... Blue-A & B attacking Red-A
     * at 10-4 and Blue-C attacking Red-B & C at 6-4" */
    { 1, P_DFI_RIVER, PDEF, "Blue-A>Red-A|Blue-B>Red-B|Blue-C>Red-C", WL_R_OK,
      "4-4=1-1,6-2=3-1,6-2=3-1", NULL },
    { 2, P_DFI_RIVER, PDEF, "Blue-A,Blue-B>Red-A|Blue-C>Red-B,Red-C", WL_R_OK,
      "10-4=2-1,6-4=1-1", NULL },
    { 3, P_DFI_RIVER, PDEF, "Blue-A>Red-A|Blue-B>Red-B|Blue-C>Red-C,Red-A", WL_R_NOT_IN_ZONE,
      NULL, "Blue-C on M-29 is not in the zone of Red-A on L-31" },
    /* 2: "Blue-A attacks Red-A at 4-2, Blue-B attacks Red-B at 4-1, and Blue-C attacks Red-C
     * down slope at 6-2" */
    { 4, P_DFI_PLAIN, PDEF, "Blue-A>Red-A|Blue-B>Red-B|Blue-C>Red-C", WL_R_OK,
      "4-2=2-1,4-1=4-1,6-2=3-1", NULL },
    /* 3: "Blue-A & B attack at 8-2" */
    { 5, P_DFI_MIXED, PDEF, "Blue-A,Blue-B>Red", WL_R_OK, "8-2=4-1", NULL },
    { 6, P_DFI_MIXED, PDEF, "Blue-A>Red|Blue-B>Red", WL_R_ONE_BATTLE, NULL,
      "Red is in battles 1 and 2" },
    { 7, P_DFI_MIXED, PDEF, "Blue-A>Red", WL_R_MUST_ATTACK, NULL,
      "Blue-B on M-31 is in the zone of Red and must attack" },
    /* 4: "Blue-A attacks Red-A at 6-2, Blue-B attacks Red-B at 4-1" */
    { 8, P_DFI_RIVERDEF, PDEF, "Blue-A>Red-A|Blue-B>Red-B", WL_R_OK, "6-2=3-1,4-1=4-1", NULL },
    /* 5: "Blue-A & B attack at 10-2 ... Red would be attacked by Blue-A at 4-4 ... Red would
     * be attacked by Blue-B at 6-2" */
    { 9, P_DFI_HILL, PDEF, "Blue-A,Blue-B>Red", WL_R_OK, "10-2=5-1", NULL },
    { 10, P_DFI_HILL_A, PDEF, "Blue-A>Red", WL_R_OK, "4-4=1-1", NULL },
    { 11, P_DFI_HILL_B, PDEF, "Blue-B>Red", WL_R_OK, "6-2=3-1", NULL },
    /* River Combat: "Blue attacks at 4 to 4", "at 4 to 2", "Blue-A & B at 8 to 2" */
    { 12, P_RC1, PDEF, "Blue>Red", WL_R_OK, "4-4=1-1", NULL },
    { 13, P_RC2, PDEF, "Blue>Red", WL_R_OK, "4-2=2-1", NULL },
    { 14, P_RC3, PDEF, "Blue-A,Blue-B>Red", WL_R_OK, "8-2=4-1", NULL },
    /* Hilltop Combat: "attacked at 8 to 4", "Blue attacks Red-A & B at 4 to 6" */
    { 15, P_HC1, PDEF, "Blue-A,Blue-B>Red", WL_R_OK, "8-4=2-1", NULL },
    { 16, P_HC_STAR, PDEF, "Blue-A,Blue-B>Red", WL_R_OK, "8-4=2-1", NULL },
    { 17, P_HC2, PDEF, "Blue>Red-A,Red-B", WL_R_OK, "4-6=1-2", NULL },
    { 18, P_HC2, PDEF, "Blue>Red-A", WL_R_MUST_BE_ATTACKED, NULL,
      "Red-B on M-31 has Blue in its zone and must be attacked" },
    { 19, P_HC_STAR2, PDEF, "Blue>Red", WL_R_OK, "4-4=1-1", NULL },
    { 20, P_HILL_SIDE, PDEF, "Blue>Red", WL_R_OK, "4-2=2-1", NULL },
    { 21, P_HILL_PLAIN, PDEF, "Blue>Red", WL_R_OK, "4-2=2-1", NULL },
    { 22, P_HILL_RIVERTOP, PDEF, "Blue>Red", WL_R_OK, "4-4=1-1", NULL },
    /* Miscellaneous 1: "Blue-A attacks Red-A at 5-5 ... Blue-B attacks Red-B at 6-4"; the
     * only possible way */
    { 23, P_MISC1, PDEF, "Blue-A>Red-A|Blue-B>Red-B", WL_R_OK, "5-5=1-1,6-4=1-1", NULL },
    { 24, P_MISC1, PDEF, "Blue-A>Red-B|Blue-B>Red-A", WL_R_NOT_IN_ZONE, NULL, NULL },
    { 25, P_MISC1, PDEF, "Blue-A,Blue-B>Red-A,Red-B", WL_R_NOT_IN_ZONE, NULL, NULL },
    /* Miscellaneous 2: "a. 19-11 ... b. 11-14 ... 8-4 c. 11-7 ... 8-4 d. 14-7" */
    { 26, P_MISC2, PDEF, "Blue-A,Blue-B,Blue-C,Blue-D>Red-A,Red-B", WL_R_OK, "19-11=1-1",
      NULL },
    { 27, P_MISC2, PDEF, "Blue-A,Blue-B>Red-A|Blue-C,Blue-D>Red-B", WL_R_OK,
      "11-14=1-2,8-4=2-1", NULL },
    { 28, P_MISC2, PDEF, "Blue-A,Blue-C>Red-A|Blue-B,Blue-D>Red-B", WL_R_OK,
      "11-7=1-1,8-4=2-1", NULL },
    { 29, P_MISC2, PDEF, "Blue-A,Blue-B,Blue-D>Red-A|Blue-C>Red-B", WL_R_OK,
      "14-7=2-1,5-4=1-1", NULL },
    /* Multiple Unit Battles 1: "Blue-A and B attack Red-A at 8-4; Blue-C attacks Red-B at
     * 5-2; and Blue-D attacks Red-C at 3-4"; option a (printed garbled, "... at 3-6")
     * read as A, B, C against Red-A at 13-4 and D against Red-B and C at 3-6 */
    { 30, P_MU1, PDEF, "Blue-A,Blue-B>Red-A|Blue-C>Red-B|Blue-D>Red-C", WL_R_OK,
      "8-4=2-1,5-2=2-1,3-4=1-2", NULL },
    { 31, P_MU1, PDEF, "Blue-A,Blue-B,Blue-C>Red-A|Blue-D>Red-B,Red-C", WL_R_OK,
      "13-4=3-1,3-6=1-2", NULL },
    /* "Blue-A and B are not in Red-B and Red-C's zones. Therefore, combat cannot exist
     * between those Units" */
    { 32, P_MU1, PDEF, "Blue-A,Blue-B,Blue-C>Red-A,Red-B|Blue-D>Red-C", WL_R_NOT_IN_ZONE, NULL,
      "Blue-A on M-30 is not in the zone of Red-B on L-29" },
    { 33, P_MU1, PDEF, "Blue-A,Blue-B>Red-A|Blue-C>Red-B|Blue-D>Red-A", WL_R_NOT_IN_ZONE, NULL,
      "Blue-D" },
    { 34, P_MU1, PDEF, "Blue-A,Blue-B>Red-A|Blue-C>Red-B", WL_R_MUST_ATTACK, NULL,
      "Blue-D on M-28 is in the zone of Red-B and must attack" },
    { 35, P_MU1, PDEF, "Blue-A,Blue-B>Red-A|Blue-C,Blue-D>Red-B", WL_R_MUST_BE_ATTACKED, NULL,
      "Red-C on L-28 has Blue-D in its zone and must be attacked" },
    { 36, P_MU1, PDEF, "Blue-A,Blue-B>Red-A|Blue-C>Red-B|Blue-D>Red-C|Blue-D>Red-B",
      WL_R_ONE_BATTLE, NULL, "Blue-D is in battles 3 and 4" },
    { 37, P_MU1, PDEF, "Blue-A,Blue-B>Red-A|Blue-C>Red-B|Blue-D>Red-B,Red-C", WL_R_ONE_BATTLE,
      NULL, "Red-B is in battles 2 and 3" },
    { 38, P_MU1, PDEF, "Blue-A,Blue-B,Blue-A>Red-A|Blue-C>Red-B|Blue-D>Red-C", WL_R_ONE_BATTLE,
      NULL, "Blue-A is named twice in battle 1" },
    { 39, P_MU1, PDEF, "Red-A>Blue-A|Blue-C>Red-B|Blue-D>Red-C", WL_R_NOT_YOUR_UNIT, NULL,
      "Red-A belongs to the other side" },
    { 40, P_MU1, PDEF, "Blue-A,Blue-B>Blue-C", WL_R_NOT_YOUR_UNIT, NULL,
      "Blue-C is your own unit" },
    { 41, P_MU1, PDEF, "Blue-A,Blue-B>", WL_R_EMPTY_BATTLE, NULL, "battle 1 has no defenders" },
    { 42, P_MU1, PDEF, ">Red-A", WL_R_EMPTY_BATTLE, NULL, "battle 1 has no attackers" },
    { 43, P_MU1, PDEF, "", WL_R_MUST_ATTACK, NULL, NULL },
    /* "The attacker may divide combat against stacked Units on the same square ...
     * a. 8-8 b. 4-2; 4-6 c. 4-4; 4-4", with the attackers apart and stacked */
    { 44, P_MU2A, PDEF, "Blue-A,Blue-B>Red-A,Red-B,Red-C", WL_R_OK, "8-8=1-1", NULL },
    { 45, P_MU2A, PDEF, "Blue-A>Red-A|Blue-B>Red-B,Red-C", WL_R_OK, "4-2=2-1,4-6=1-2", NULL },
    { 46, P_MU2A, PDEF, "Blue-A>Red-A,Red-B|Blue-B>Red-C", WL_R_OK, "4-4=1-1,4-4=1-1", NULL },
    { 47, P_MU2A, PDEF, "Blue-A>Red-A,Red-B", WL_R_MUST_ATTACK, NULL, "Blue-B" },
    { 48, P_MU2B, PDEF, "Blue-A,Blue-B>Red-A,Red-B,Red-C", WL_R_OK, "8-8=1-1", NULL },
    { 49, P_MU2B, PDEF, "Blue-A>Red-A|Blue-B>Red-B,Red-C", WL_R_OK, "4-2=2-1,4-6=1-2", NULL },
    { 50, P_MU2B, PDEF, "Blue-A>Red-A,Red-B|Blue-B>Red-C", WL_R_OK, "4-4=1-1,4-4=1-1", NULL },
    { 51, P_MU2B, PDEF, "Blue-A,Blue-B>Red-A,Red-B", WL_R_MUST_BE_ATTACKED, NULL, "Red-C" },
    /* "Stacked Units that are attacking from one square may divide combat ... a. 9-6
     * b. 5-2; 4-4 c. [Blue-A] attacks Red-B at 5-4; Blue-B attacks Red-A at 4-2" */
    { 52, P_MU3, PDEF, "Blue-A,Blue-B>Red-A,Red-B", WL_R_OK, "9-6=1-1", NULL },
    { 53, P_MU3, PDEF, "Blue-A>Red-A|Blue-B>Red-B", WL_R_OK, "5-2=2-1,4-4=1-1", NULL },
    { 54, P_MU3, PDEF, "Blue-A>Red-B|Blue-B>Red-A", WL_R_OK, "5-4=1-1,4-2=2-1", NULL },
    { 55, P_MU3, PDEF, "Blue-A,Blue-B>Red-A", WL_R_MUST_BE_ATTACKED, NULL, "Red-B" },
    /* Soaking Off 1: "Blue-A, B, C, D & F attack Red-A at 24 to 6. Blue-E soaks off
     * against Red-B, C & D at 2 to 18" */
    { 56, P_SOAK1, PDEF, "Blue-A,Blue-B,Blue-C,Blue-D,Blue-F>Red-A|Blue-E>Red-B,Red-C,Red-D",
      WL_R_OK, "24-6=4-1,2-18=AE", NULL },
    { 57, P_SOAK1, PDEF, "Blue-A,Blue-B,Blue-C,Blue-D,Blue-F>Red-A", WL_R_MUST_ATTACK, NULL,
      "Blue-E" },
    { 58, P_SOAK1, PDEF, "Blue-A,Blue-B,Blue-C,Blue-D,Blue-F>Red-A|Blue-E>Red-B",
      WL_R_MUST_BE_ATTACKED, NULL, "Red-C" },
    /* Soaking Off 2: "Blue-A soaks off against Red-A, B & D at 2 to 18. Blue-B, C, D, E & F
     * attack Red-C at 24 to 6" */
    { 59, P_SOAK2, PDEF, "Blue-A>Red-A,Red-B,Red-D|Blue-B,Blue-C,Blue-D,Blue-E,Blue-F>Red-C",
      WL_R_OK, "2-18=AE,24-6=4-1", NULL },
    { 60, P_SOAK2, PDEF, "Blue-B,Blue-C,Blue-D,Blue-E,Blue-F>Red-C,Red-D|Blue-A>Red-A,Red-B",
      WL_R_NOT_IN_ZONE, NULL, "Blue-B on M-31 is not in the zone of Red-D on O-29" },
    /* How to Have Combat: "Battle odds are 11-5, which reduces to 2-1" */
    { 61, P_SURROUND, PDEF, "Blue-A,Blue-B,Blue-C>Red", WL_R_OK, "11-5=2-1", NULL },
    /* Use of Headquarters Units */
    { 62, P_HQ, PDEF, "Blue>Red", WL_R_OK, "4-2=2-1", NULL },
    { 63, P_HQ, PDEF, "Blue>Red,Wellington", WL_R_OK, "4-2=2-1", NULL },
    { 64, P_HQ, PDEF, "Blue,Napoleon>Red", WL_R_HQ_CANNOT_ATTACK, NULL,
      "Napoleon is an HQ unit" },
    { 65, P_HQ, PDEF, "Blue>Red|Napoleon>Wellington", WL_R_HQ_CANNOT_ATTACK, NULL, NULL },
    { 66, P_HQ, PDEF, "Blue>Wellington", WL_R_MUST_BE_ATTACKED, NULL, "Red on L-31" },
    { 67, P_HQ_ALONE, PDEF, "", WL_R_OK, NULL, NULL },
    { 68, P_HQ_ALONE, PDEF, "Blue>Wellington", WL_R_OK, "4-0=6-1", NULL },
    /* whose units, which phase, which units exist */
    { 69, P_RC1, AC, "Red>Blue", WL_R_OK, "2-4=1-2", NULL },
    { 70, P_RC1, AC, "Blue>Red", WL_R_NOT_YOUR_UNIT, NULL, NULL },
    { 71, P_RC1, AC, "", WL_R_MUST_ATTACK, NULL, "Red on M-30 is in the zone of Blue" },
    { 72, P_RC1, WL_PH_FRENCH_MOVE, "Blue>Red", WL_R_WRONG_PHASE, NULL, NULL },
    { 73, P_RC1, PDEF, "#300>Red", WL_R_UNKNOWN_UNIT, NULL, NULL },
    { 74, P_RC1, PDEF, "Blue>#-1", WL_R_UNKNOWN_UNIT, NULL, NULL },
    { 75, P_DFI_HILL_A, PDEF, "Blue-A,Blue-B>Red", WL_R_UNIT_NOT_ON_BOARD, NULL,
      "Blue-B is not on the board" },
};

static void test_declarations(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof decl_rows / sizeof decl_rows[0]; i++) {
        const struct decl_row *t = &decl_rows[i];
        struct fx f;
        struct wl_battle b[8];
        struct wr_refusal why = { WL_R_OK, "ok", "" };
        char odds[256];

        build(&f, "declaration", t->row, t->pos, t->phase);
        int nb = parse_battles(&f, t->battles, b, 8);
        enum wl_reason r = wl_combat_check_declaration(f.g, b, nb, &why);
        if (r != t->want)
            fail_msg("declaration row %d (%s): got %s (%s), want %s", t->row,
                     positions[t->pos].what, wl_reason_code(r), why.message,
                     wl_reason_code(t->want));
        if (r != WL_R_OK && (why.reason != (int)r || why.message[0] == '\0'))
            fail_msg("declaration row %d: refusal not filled in", t->row);
        if (t->msg != NULL && strstr(why.message, t->msg) == NULL)
            fail_msg("declaration row %d: sentence '%s' lacks '%s'", t->row, why.message,
                     t->msg);
        if (t->odds != NULL) {
            odds_text(&f, b, nb, odds, sizeof odds);
            if (strcmp(odds, t->odds) != 0)
                fail_msg("declaration row %d (%s): odds %s, want %s", t->row,
                         positions[t->pos].what, odds, t->odds);
        }
        /* The same call without a refusal to fill gives the same answer. */
        assert_int_equal(wl_combat_check_declaration(f.g, b, nb, NULL), r);
        release(&f);
    }
}

/* --- battles one at a time (rules 2) -------------------------------------------------- */

/* "The attacker resolves all combat one battle at a time ... The attacker has the choice
 * of resolving each battle in any order he chooses." / "All units which move into an
 * enemy zone of control must attack some enemy unit and all defending units in an enemy
 * zone of control must be attacked by at least one enemy unit." / "No Unit may fight or
 * be forced to fight more than one battle per turn." (docs/rules-notes.md D1-D4)
 * A position's units are engaged as the turn machine marks them when the phase begins;
 * `earlier` are battles declared (and done) before; `battles` is the next declaration,
 * checked by wl_combat_check_battles(), or NULL: end_phase, checked by
 * wl_combat_check_obligations(). P_MU1: Red-A touches Blue-A, B and C; Red-B touches
 * Blue-C and D; Red-C touches Blue-D only. */
static const struct phase_row {
    int row;
    int pos;
    const char *earlier;
    const char *battles;
    enum wl_reason want;
    const char *msg;
} phase_rows[] = {
    /* one battle, the rest still possible */
    { 1, P_MU1, "", "Blue-C>Red-B", WL_R_OK, NULL },
    { 2, P_MU1, "", "Blue-A,Blue-B,Blue-C>Red-A", WL_R_OK, NULL },
    /* no stranding: Red-C has only Blue-D next to it */
    { 3, P_MU1, "", "Blue-D>Red-B", WL_R_STRANDED, "Red-C on L-28 must be attacked" },
    { 4, P_MU1, "", "Blue-A>Red-A", WL_R_STRANDED, "Blue-B on L-31 must attack" },
    { 5, P_MU1, "Blue-C>Red-B", "Blue-D>Red-C", WL_R_OK, NULL },
    /* the second declaration, after the first result: no unit in two battles */
    { 6, P_MU1, "Blue-C>Red-B", "Blue-D>Red-B,Red-C", WL_R_ONE_BATTLE,
      "Red-B already fought in battle 0" },
    { 7, P_MU1, "Blue-C>Red-B", "Blue-A,Blue-B,Blue-C>Red-A", WL_R_ONE_BATTLE,
      "Blue-C already fought in battle 0" },
    /* several at once, and everything up front, as rules 1 had it */
    { 8, P_MU1, "Blue-C>Red-B", "Blue-D>Red-C|Blue-A,Blue-B>Red-A", WL_R_OK, NULL },
    { 9, P_MU1, "", "Blue-A,Blue-B,Blue-C>Red-A|Blue-D>Red-B,Red-C", WL_R_OK, NULL },
    /* the per-declaration checks still hold */
    { 10, P_MU1, "", "Blue-A>Red-B", WL_R_NOT_IN_ZONE, NULL },
    { 11, P_MU1, "", "Blue-C>Red-B|Blue-D>Red-B", WL_R_ONE_BATTLE, "Red-B is in battles" },
    /* soak-off: 3 against 2 + 4 is a legal battle */
    { 12, P_MU1, "Blue-A,Blue-B,Blue-C>Red-A", "Blue-D>Red-B,Red-C", WL_R_OK, NULL },
    /* end_phase: the obligations of the phase's start */
    { 13, P_MU1, "", NULL, WL_R_MUST_ATTACK, "Blue-A on M-30 is in the zone of Red-A" },
    { 14, P_MU1, "Blue-C>Red-B", NULL, WL_R_MUST_ATTACK, "Blue-A" },
    { 15, P_MU1, "Blue-A,Blue-B,Blue-C>Red-A|Blue-D>Red-B,Red-C", NULL, WL_R_OK, NULL },
    /* only the enemy owes (a state made by hand or loaded; the stranding rule keeps a
     * game from reaching it) */
    { 16, P_MU1, "Blue-A,Blue-B,Blue-C>Red-A|Blue-D>Red-B", NULL, WL_R_MUST_BE_ATTACKED,
      "Red-C on L-28 has Blue-D in its zone" },
    /* an HQ has no zone: nothing is owed to it, nor by a unit next to it alone */
    { 17, P_HQ_ALONE, "", NULL, WL_R_OK, NULL },
    { 18, P_HQ_ALONE, "", "Blue>Wellington", WL_R_OK, NULL },
};

static void test_phase_declarations(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof phase_rows / sizeof phase_rows[0]; i++) {
        const struct phase_row *t = &phase_rows[i];
        struct fx f;
        struct wl_battle b[8];
        struct wr_refusal why = { WL_R_OK, "ok", "" };

        build(&f, "phase", t->row, t->pos, PDEF);
        assert_true(wl_combat_one_at_a_time(f.g));
        for (int u = 0; u < f.sc->nunits; u++)
            f.g->units[u].engaged = (uint8_t)wl_combat_engaged(f.g, u);
        int ne = parse_battles(&f, t->earlier, f.g->battles, 8);
        for (int k = 0; k < ne; k++) {
            struct wl_battle *e = &f.g->battles[k];
            e->state = WL_B_DONE;
            for (int j = 0; j < e->nattackers; j++)
                f.g->units[e->attackers[j]].battle = (int8_t)k;
            for (int j = 0; j < e->ndefenders; j++)
                f.g->units[e->defenders[j]].battle = (int8_t)k;
        }
        f.g->nbattles = ne;
        enum wl_reason r;
        if (t->battles != NULL) {
            int nb = parse_battles(&f, t->battles, b, 8);
            r = wl_combat_check_battles(f.g, b, nb, &why);
            assert_int_equal(wl_combat_check_battles(f.g, b, nb, NULL), r);
        } else {
            r = wl_combat_check_obligations(f.g, &why);
        }
        if (r != t->want)
            fail_msg("phase row %d (%s): got %s (%s), want %s", t->row, positions[t->pos].what,
                     wl_reason_code(r), why.message, wl_reason_code(t->want));
        if (t->msg != NULL && strstr(why.message, t->msg) == NULL)
            fail_msg("phase row %d: sentence '%s' lacks '%s'", t->row, why.message, t->msg);
        release(&f);
    }
}

/* Defence factors one by one, where the odds rows only see the sum. */
static void test_defence_factor(void **state)
{
    static const struct {
        int row, pos;
        const char *defender, *attackers;
        int want;
    } t[] = {
        { 1, P_HC2, "Red-A", "Blue", 4 },               /* on the hill top: doubles */
        { 2, P_HC2, "Red-B", "Blue", 2 },               /* not a hill top: basic */
        { 3, P_DFI_HILL, "Red", "Blue-A", 4 },          /* f */
        { 4, P_DFI_HILL, "Red", "Blue-B", 2 },          /* e */
        { 5, P_DFI_HILL, "Red", "Blue-A,Blue-B", 2 },   /* slope and hill top mixed */
        { 6, P_DFI_HILL, "Red", "", 2 },                /* no attackers: basic */
        { 7, P_HC_STAR, "Red", "Blue-A,Blue-B", 4 },    /* footnote *: not quadrupled */
        { 8, P_HC_STAR2, "Red", "Blue", 4 },            /* footnote ** */
        { 9, P_MISC1, "Red-A", "Blue-A", 5 },           /* d, another river */
        { 10, P_MISC1, "Red-B", "Blue-B", 4 },          /* b */
        { 11, P_HQ, "Wellington", "Blue", 0 },          /* HQ units defend with 0 */
        { 12, P_HQ, "Red", "Blue", 2 },
        { 13, P_MISC2, "Red-A", "Blue-A,Blue-B", 14 },
        { 14, P_MISC2, "Red-A", "Blue-A,Blue-B,Blue-D", 7 },
    };
    (void)state;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        struct fx f;
        int16_t att[8];
        int natt;
        build(&f, "defence", t[i].row, t[i].pos, PDEF);
        unit_list(&f, t[i].attackers, att, &natt);
        int got = wl_combat_defence_factor(f.g, unit(&f, t[i].defender), att, natt);
        if (got != t[i].want)
            fail_msg("defence row %d (%s): %s defends with %d, want %d", t[i].row,
                     positions[t[i].pos].what, t[i].defender, got, t[i].want);
        release(&f);
    }
}

/* The positions' terrain is what the examples say it is. */
static void test_terrain_of_examples(void **state)
{
    struct fx f;
    (void)state;
    build(&f, "terrain", 1, P_DFI_PLAIN, PDEF);
    assert_true(f.sc->map.cell[wlt_sq("P-30")].hilltop);    /* Blue-C attacks down slope */
    assert_false(f.sc->map.cell[wlt_sq("O-30")].hilltop);
    release(&f);
    build(&f, "terrain", 2, P_HC2, PDEF);
    assert_true(f.sc->map.cell[wlt_sq("M-30")].hilltop);
    assert_false(f.sc->map.cell[wlt_sq("M-31")].hilltop);   /* "Red-B's square is not a hilltop" */
    release(&f);
    build(&f, "terrain", 3, P_RET_BRIDGE, PDEF);
    assert_true(f.sc->map.cell[wlt_sq("N-31")].bridge);
    release(&f);
}

/* --- retreats ------------------------------------------------------------------ */

#define SAFE WL_RET_SAFE
#define EXIT WL_RET_EXIT
#define ELIM WL_RET_ELIMINATED

static const struct retreat_row {
    int row;
    int pos;
    const char *unit;
    const char *p0, *p1;        /* p1 NULL: a one-square path */
    enum wl_reason want;
    int outcome;
    const char *msg;
} retreat_rows[] = {
    /* a) "If a Unit is forced to retreat into an enemy controlled zone it is eliminated" */
    { 1, P_RET_ZOC, "Red", "M-31", "M-32", WL_R_OK, SAFE, NULL },    /* HQ M-33: no zone */
    { 2, P_RET_ZOC, "Red", "M-29", "M-28", WL_R_OK, ELIM, NULL },    /* first square */
    { 3, P_RET_ZOC, "Red", "N-30", "O-29", WL_R_OK, ELIM, NULL },
    { 4, P_RET_ZOC, "Red", "M-31", "N-31", WL_R_OK, ELIM, NULL },    /* second square */
    { 5, P_RET_OPEN, "Red", "L-30", "K-30", WL_R_OK, SAFE, NULL },
    /* b) "If a Unit is forced to retreat off the board it is eliminated" */
    { 6, P_RET_EDGE, "Red", "A-30", "off", WL_R_OK, ELIM, NULL },
    { 7, P_RET_EDGE, "Red", "A-31", "0-32", WL_R_OK, ELIM, NULL },   /* a partial square */
    { 8, P_RET_EDGE, "Red", "A-31", "A-32", WL_R_OK, SAFE, NULL },
    { 9, P_RET_EDGE, "Red-E", "off", "off", WL_R_OK, ELIM, NULL },
    /* c) "If a Unit is forced to retreat onto or across a river it is eliminated" */
    { 10, P_RET_RIVER, "Red", "N-30", "O-30", WL_R_OK, ELIM, NULL },  /* across */
    { 11, P_RET_RIVER, "Red", "M-31", "N-31", WL_R_OK, ELIM, NULL },  /* onto */
    { 12, P_RET_RIVER, "Red", "M-31", "M-32", WL_R_OK, SAFE, NULL },
    { 13, P_RET_BRIDGE, "Red", "N-31", "O-30", WL_R_OK, ELIM, NULL }, /* a bridge too */
    /* d) "Units are allowed to retreat in any direction during combat on river squares ...
     * Retreat onto river squares of another river ... results in elimination" */
    { 14, P_RET_FROMRIVER, "Red", "O-30", "P-30", WL_R_OK, SAFE, NULL },
    { 15, P_RET_FROMRIVER, "Red", "N-31", "N-32", WL_R_OK, SAFE, NULL }, /* along it */
    { 16, P_RET_FROMRIVER, "Red", "O-29", "P-29", WL_R_OK, ELIM, NULL }, /* the Lasne */
    /* e) "Units are allowed to retreat through friendly units even if stacked. However, ...
     * over-stacking, the excess over the stacking limitation must be eliminated" */
    { 17, P_RET_STACK, "Red", "L-30", "K-30", WL_R_OK, SAFE, NULL },   /* through 15, to 15 */
    { 18, P_RET_STACK, "Red", "L-30", "K-31", WL_R_OK, ELIM, NULL },   /* 16 */
    { 19, P_RET_STACK, "Red", "L-31", "K-31", WL_R_OK, ELIM, NULL },
    /* f) woods: "Example of 1: If A retreats into X or Y it is eliminated", "Example of 2: B
     * may retreat into X through Y", "Example of 3: C ... cannot leave the road" */
    { 20, P_RET_WOODS, "Red", "L-30", "K-30", WL_R_OK, ELIM, NULL },   /* f1 no road */
    { 21, P_RET_WOODS, "Red", "L-31", "K-31", WL_R_OK, SAFE, NULL },   /* f1-3 */
    { 22, P_RET_WOODS, "Red", "L-31", "K-32", WL_R_OK, ELIM, NULL },   /* f3 leaves the road */
    { 23, P_RET_WOODS, "Red", "M-29", "L-29", WL_R_OK, ELIM, NULL },   /* f2 not by the road */
    { 24, P_RET_WOODS2, "Red", "L-30", "K-30", WL_R_OK, SAFE, NULL },  /* woods second only */
    /* EXCEPTION: "French units retreating off the board via squares A39 and A45 ... must
     * leave the hex via the hex side intersected by the road" */
    { 25, P_RET_EXIT, "Fr-A", "off", "off", WL_R_OK, EXIT, NULL },
    { 26, P_RET_EXIT, "Fr-A", "0-46", "off", WL_R_OK, EXIT, NULL },
    { 27, P_RET_EXIT, "Fr-A", "0-45", "off", WL_R_OK, ELIM, NULL },   /* not the road side */
    { 28, P_RET_EXIT, "Fr-B", "A-39", "off", WL_R_OK, EXIT, NULL },
    { 29, P_RET_EXIT, "Fr-B", "A-39", "0-39", WL_R_OK, EXIT, NULL },
    { 30, P_RET_EXIT, "Fr-B", "A-39", "0-40", WL_R_OK, ELIM, NULL },
    { 31, P_RET_EXIT, "Fr-C", "A-41", "off", WL_R_OK, ELIM, NULL },   /* no road at A-41 */
    { 32, P_RET_EXIT, "Fr-D", "off", "off", WL_R_OK, ELIM, NULL },
    { 33, P_RET_EXIT_ALLY, "Al-A", "off", "off", WL_R_OK, ELIM, NULL },
    /* not retreats at all */
    { 34, P_RET_BAD, "Red", "N-29", "O-29", WL_R_BAD_RETREAT, 0, "held by the enemy" },
    { 35, P_RET_BAD, "Red", "L-30", "K-30", WL_R_BAD_RETREAT, 0, "held by the enemy" },
    { 36, P_RET_BAD, "Red", "L-29", "K-29", WL_R_BAD_RETREAT, 0, "L-29 does not touch M-30" },
    { 37, P_RET_BAD, "Red", "L-30", "J-30", WL_R_BAD_RETREAT, 0, "J-30 does not touch L-30" },
    { 38, P_RET_BAD, "Red", "L-30", "L-31", WL_R_BAD_RETREAT, 0, "two squares away" },
    { 39, P_RET_BAD, "Red", "L-30", "M-30", WL_R_BAD_RETREAT, 0, NULL },
    { 40, P_RET_BAD, "Red", "L-30", NULL, WL_R_BAD_RETREAT, 0, "two squares, not 1" },
    { 41, P_RET_BAD, "Red", "off", "off", WL_R_BAD_RETREAT, 0, "cannot step off the board" },
    { 42, P_RET_BAD, "Red", "L-31", "off", WL_R_BAD_RETREAT, 0, NULL },
    { 43, P_RET_BAD, "Red", "none", "L-30", WL_R_BAD_RETREAT, 0, NULL },
    { 44, P_RET_EDGE, "Red-E", "off", "A-34", WL_R_BAD_RETREAT, 0, "has left the board" },
    { 45, P_RET_BAD, "Red-X", "L-30", "K-31", WL_R_UNIT_NOT_ON_BOARD, 0, NULL },
    { 46, P_RET_BAD, "#-1", "L-30", "K-31", WL_R_UNKNOWN_UNIT, 0, NULL },
    { 47, P_RET_BAD, "#300", "L-30", "K-31", WL_R_UNKNOWN_UNIT, 0, NULL },
    /* the surrounded unit of "How to Have Combat" */
    { 48, P_SURROUND, "Red", "M-29", "M-28", WL_R_OK, ELIM, NULL },
    { 49, P_SURROUND_Z, "Red", "M-31", "M-32", WL_R_OK, SAFE, NULL },
};

static void test_retreats(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof retreat_rows / sizeof retreat_rows[0]; i++) {
        const struct retreat_row *t = &retreat_rows[i];
        struct fx f;
        struct wr_refusal why = { WL_R_OK, "ok", "" };
        wl_sq path[2];
        int n = t->p1 ? 2 : 1, outcome = -1;

        build(&f, "retreat", t->row, t->pos, PDEF);
        path[0] = wlt_sq(t->p0);
        path[1] = t->p1 ? wlt_sq(t->p1) : WL_SQ_NONE;
        enum wl_reason r = wl_combat_retreat_outcome(f.g, unit(&f, t->unit), path, n, &outcome,
                                                     &why);
        if (r != t->want)
            fail_msg("retreat row %d (%s): got %s (%s), want %s", t->row,
                     positions[t->pos].what, wl_reason_code(r), why.message,
                     wl_reason_code(t->want));
        if (r == WL_R_OK && outcome != t->outcome)
            fail_msg("retreat row %d (%s): %s %s -> outcome %d, want %d", t->row,
                     positions[t->pos].what, t->p0, t->p1, outcome, t->outcome);
        if (t->msg != NULL && strstr(why.message, t->msg) == NULL)
            fail_msg("retreat row %d: sentence '%s' lacks '%s'", t->row, why.message, t->msg);
        release(&f);
    }

    /* Three squares are not a retreat either. */
    struct fx f;
    wl_sq three[3] = { wlt_sq("L-30"), wlt_sq("K-30"), wlt_sq("J-30") };
    int outcome;
    build(&f, "retreat", 50, P_RET_OPEN, PDEF);
    assert_int_equal(wl_combat_retreat_outcome(f.g, unit(&f, "Red"), three, 3, &outcome, NULL),
                     WL_R_BAD_RETREAT);
    assert_int_equal(wl_combat_retreat_outcome(f.g, unit(&f, "Red"), NULL, 2, &outcome, NULL),
                     WL_R_BAD_RETREAT);
    release(&f);
}

static const struct open_row {
    int row;
    int pos;
    const char *unit;
    int want;                   /* number of open paths */
    const char *p0, *p1;        /* one of them, or NULL */
} open_rows[] = {
    /* "RED is completely surrounded by BLUE zones of control, therefore, RED would be
     * eliminated even if the Combat Results Table calls for a retreat" */
    { 1, P_SURROUND, "Red", 0, NULL, NULL },
    /* "Had BLUE-A moved into the square marked (Z), RED would have had an escape route" */
    { 2, P_SURROUND_Z, "Red", 3, "M-31", "M-32" },
    { 3, P_RET_OPEN, "Red", 9, "L-31", "K-32" },
    /* the road off the board is the only open route: EXIT counts */
    { 4, P_RET_EXIT_TRAP, "Fr-A", 1, "off", "off" },
    { 5, P_RET_EXIT_ALLY, "Al-A", 5, "A-46", "A-47" },
    { 6, P_RET_BAD, "Red-X", 0, NULL, NULL },
    { 7, P_RET_BAD, "#300", 0, NULL, NULL },
};

static void test_open_retreats(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof open_rows / sizeof open_rows[0]; i++) {
        const struct open_row *t = &open_rows[i];
        struct fx f;
        wl_sq paths[64][2];

        build(&f, "open", t->row, t->pos, PDEF);
        int u = unit(&f, t->unit);
        int n = wl_combat_open_retreats(f.g, u, paths, 64);
        if (n != t->want)
            fail_msg("open row %d (%s): %d open retreats, want %d", t->row,
                     positions[t->pos].what, n, t->want);
        int found = t->p0 == NULL;
        for (int k = 0; k < n; k++) {
            int outcome = -1;
            if (wl_combat_retreat_outcome(f.g, u, paths[k], 2, &outcome, NULL) != WL_R_OK ||
                outcome == WL_RET_ELIMINATED)
                fail_msg("open row %d: path %d is not open", t->row, k);
            if (t->p0 != NULL && paths[k][0] == wlt_sq(t->p0) && paths[k][1] == wlt_sq(t->p1))
                found = 1;
        }
        if (!found)
            fail_msg("open row %d: %s %s is not among the open retreats", t->row, t->p0, t->p1);
        /* Counting does not depend on room to store. */
        assert_int_equal(wl_combat_open_retreats(f.g, u, NULL, 0), n);
        if (n > 1) {
            wl_sq one[2][2] = { { 0, 0 }, { 77, 77 } };
            assert_int_equal(wl_combat_open_retreats(f.g, u, one, 1), n);
            assert_int_equal(one[0][0], paths[0][0]);
            assert_int_equal(one[1][0], 77);
        }
        release(&f);
    }
}

/* --- advance after combat ------------------------------------------------------- */

static const struct advance_row {
    int row;
    int pos;
    const char *battle;
    const char *vacated;
    const char *unit;
    const char *to;
    enum wl_reason want;
} advance_rows[] = {
    /* "A unit that defeats any enemy unit while attacking from a river square is allowed to
     * move onto the defeated Unit's vacated square" */
    { 1, P_ADV_RIVER, "Blue>Red", "L-30", "Blue", "L-30", WL_R_OK },
    { 2, P_ADV_RIVER, "Blue>Red", "L-30", "Blue", "L-31", WL_R_NO_ADVANCE },   /* not vacated */
    { 3, P_ADV_RIVER, "Blue>Red", "L-30", "Blue-X", "L-30", WL_R_NO_ADVANCE }, /* not in it */
    { 4, P_ADV_RIVER, "Blue>Red", "L-30,K-30", "Blue", "K-30", WL_R_NO_ADVANCE },/* far */
    { 5, P_ADV_ENEMY, "Blue>Red", "L-30", "Blue", "L-30", WL_R_ENEMY_SQUARE },
    /* stacking: 9 + 7 > 15, 9 + 6 = 15 */
    { 6, P_ADV_STACK, "Blue-A,Blue-B,Blue-C>Red", "L-30", "Blue-B", "L-30", WL_R_STACKING },
    { 7, P_ADV_STACK, "Blue-A,Blue-B,Blue-C>Red", "L-30", "Blue-C", "L-30", WL_R_OK },
    /* "Victorious Units on slopes may move onto hilltop squares vacated by defeated Units";
     * "This applies even if the defender was not doubled" (slope and hill top attackers) */
    { 8, P_ADV_SLOPE, "Blue-A,Blue-B>Red,Red-B", "M-30,N-29", "Blue-A", "M-30", WL_R_OK },
    { 9, P_ADV_SLOPE, "Blue-A,Blue-B>Red,Red-B", "M-30,N-29", "Blue-A", "N-29",
      WL_R_NO_ADVANCE },        /* a vacated square, but not a hill top */
    { 10, P_ADV_SLOPE, "Blue-A,Blue-B>Red,Red-B", "M-30,N-29", "Blue-B", "M-30",
      WL_R_NO_ADVANCE },        /* attacked from a hill top */
    { 11, P_ADV_SLOPE_AWAY, "Blue>Red", "M-30", "Blue", "M-30", WL_R_OK },
    { 12, P_ADV_PLAIN, "Blue>Red", "L-30", "Blue", "L-30", WL_R_NO_ADVANCE },
    /* "Assuming Blue-B and Red are eliminated in an exchange, Blue-A is allowed ... to move
     * onto Red's vacated square" */
    { 13, P_ADV_EXCH, "Blue-A,Blue-B>Red", "L-30", "Blue-A", "L-30", WL_R_OK },
    { 14, P_ADV_EXCH, "Blue-A,Blue-B>Red", "L-30", "Blue-B", "L-30", WL_R_UNIT_NOT_ON_BOARD },
    /* river and non-river attackers: only the one on the river square advances */
    { 15, P_ADV_MIXED, "Blue-A,Blue-B>Red", "L-31", "Blue-A", "L-31", WL_R_OK },
    { 16, P_ADV_MIXED, "Blue-A,Blue-B>Red", "L-31", "Blue-B", "L-31", WL_R_NO_ADVANCE },
    { 17, P_ADV_MIXED, "Blue-A,Blue-B>Red", "L-31", "#-1", "L-31", WL_R_UNKNOWN_UNIT },
    { 18, P_ADV_MIXED, "Blue-A,Blue-B>Red", "L-31", "Blue-A", "none", WL_R_NO_ADVANCE },
};

static void test_advances(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof advance_rows / sizeof advance_rows[0]; i++) {
        const struct advance_row *t = &advance_rows[i];
        struct fx f;
        struct wl_battle b;
        struct wr_refusal why = { WL_R_OK, "ok", "" };

        build(&f, "advance", t->row, t->pos, PDEF);
        if (parse_battles(&f, t->battle, &b, 1) != 1)
            fail_msg("advance row %d: test data: one battle", t->row);
        b.nvacated = sq_list(t->vacated, b.vacated, WL_MAX_IN_BATTLE);
        enum wl_reason r = wl_combat_check_advance(f.g, &b, unit(&f, t->unit), wlt_sq(t->to), &why);
        if (r != t->want)
            fail_msg("advance row %d (%s): %s to %s: got %s (%s), want %s", t->row,
                     positions[t->pos].what, t->unit, t->to, wl_reason_code(r), why.message,
                     wl_reason_code(t->want));
        if (r != WL_R_OK && (why.reason != (int)r || why.message[0] == '\0'))
            fail_msg("advance row %d: refusal not filled in", t->row);
        release(&f);
    }
}

/* --- HQs in the way (rules 2) ------------------------------------------------ */

/* HQs "have no bearing on the play of the game as they have no zone of control and cannot
 * be used to delay the enemy" (rulebook, Unit Types; docs/rules-notes.md H2). Each row is
 * judged under the rules version it names: under 2 a square of enemy HQ units alone is
 * open to a retreating or advancing combat unit (waterloo_turn.c then eliminates the HQs),
 * under 1 it is held like any enemy square. */
static const struct hq_row {
    int row;
    int rules;
    int pos;
    const char *what;           /* "retreat", "open" or "advance" */
    const char *unit;
    const char *a, *b;          /* retreat: the path; advance: the vacated square, to */
    enum wl_reason want;
    int n;                      /* retreat: the outcome; open: the open routes */
} hq_rows[] = {
    { 1, 2, P_RET_HQ, "retreat", "Red", "M-31", "M-32", WL_R_OK, SAFE },
    { 2, 2, P_RET_HQ, "retreat", "Red", "M-31", "L-32", WL_R_OK, SAFE },
    { 3, 1, P_RET_HQ, "retreat", "Red", "M-31", "M-32", WL_R_BAD_RETREAT, 0 },
    /* "the defender retreats, the HQ is eliminated": its only routes cross the HQ */
    { 4, 2, P_RET_HQ, "open", "Red", NULL, NULL, WL_R_OK, 3 },
    { 5, 1, P_RET_HQ, "open", "Red", NULL, NULL, WL_R_OK, 0 },
    /* advance onto a square an HQ holds alone; with a combat unit it stays the enemy's */
    { 6, 2, P_ADV_HQ, "advance", "Blue", "L-30", "L-30", WL_R_OK, 0 },
    { 7, 1, P_ADV_HQ, "advance", "Blue", "L-30", "L-30", WL_R_ENEMY_SQUARE, 0 },
    { 8, 2, P_ADV_HQ_STACK, "advance", "Blue", "L-30", "L-30", WL_R_ENEMY_SQUARE, 0 },
    { 9, 1, P_ADV_HQ_STACK, "advance", "Blue", "L-30", "L-30", WL_R_ENEMY_SQUARE, 0 },
};

static void test_hq_in_the_way(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof hq_rows / sizeof hq_rows[0]; i++) {
        const struct hq_row *t = &hq_rows[i];
        struct fx f;
        struct wr_refusal why = { WL_R_OK, "ok", "" };
        enum wl_reason r = WL_R_OK;
        int got = -1;

        build(&f, "hq", t->row, t->pos, PDEF);
        f.g->opt.rules = t->rules;      /* no team HQ here: init would set nothing else */
        int u = unit(&f, t->unit);
        if (strcmp(t->what, "retreat") == 0) {
            wl_sq path[2] = { wlt_sq(t->a), wlt_sq(t->b) };
            r = wl_combat_retreat_outcome(f.g, u, path, 2, &got, &why);
        } else if (strcmp(t->what, "open") == 0) {
            got = wl_combat_open_retreats(f.g, u, NULL, 0);
        } else {
            struct wl_battle b;
            if (parse_battles(&f, "Blue>Red", &b, 1) != 1)
                fail_msg("hq row %d: test data: one battle", t->row);
            b.nvacated = sq_list(t->a, b.vacated, WL_MAX_IN_BATTLE);
            r = wl_combat_check_advance(f.g, &b, u, wlt_sq(t->b), &why);
            got = 0;
        }
        if (r != t->want)
            fail_msg("hq row %d (rules %d, %s): got %s (%s), want %s", t->row, t->rules,
                     positions[t->pos].what, wl_reason_code(r), why.message,
                     wl_reason_code(t->want));
        if (r == WL_R_OK && got != t->n)
            fail_msg("hq row %d (rules %d, %s): got %d, want %d", t->row, t->rules,
                     positions[t->pos].what, got, t->n);
        if (r == WL_R_BAD_RETREAT && strstr(why.message, "held by the enemy") == NULL)
            fail_msg("hq row %d: sentence '%s' lacks 'held by the enemy'", t->row, why.message);
        release(&f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_column),
        cmocka_unit_test(test_declarations),
        cmocka_unit_test(test_phase_declarations),
        cmocka_unit_test(test_defence_factor),
        cmocka_unit_test(test_terrain_of_examples),
        cmocka_unit_test(test_retreats),
        cmocka_unit_test(test_open_retreats),
        cmocka_unit_test(test_advances),
        cmocka_unit_test(test_hq_in_the_way),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
