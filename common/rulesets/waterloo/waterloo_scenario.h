/*
 * waterloo_scenario.h - a Waterloo-family scenario as plain structs: the map, the
 * combat results table, the units with their set-up or arrival, the time
 * record, the set-up zones and an optional start point.
 *
 * waterloo_scenario.c turns scenario JSON into these structs (the one module that
 * touches json_t for scenarios) and validates everything, naming the
 * offending entry in its errors. Rule code reads only these structs.
 */
#ifndef WL_SCENARIO_H
#define WL_SCENARIO_H

#include <stddef.h>
#include <stdint.h>

#include "waterloo_map.h"
#include "waterloo_reason.h"

#define WL_MAX_UNITS 256
#define WL_MAX_TURNS 64
#define WL_ID_MAX 24
#define WL_STACK_LIMIT 15
#define WL_CRT_COLS 11          /* 1-6 .. 1-2, 1-1, 2-1 .. 6-1 */
#define WL_CRT_ROWS 6
#define WL_MAX_FORMATIONS 64
#define WL_MAX_COMMANDERS 4     /* commanders a side in a team game, at most */
#define WL_SLUG_MAX 40          /* a commander's seat word (wl_scenario_slug), NUL included */

enum wl_side { WL_FRENCH = 0, WL_ALLIED = 1, WL_NSIDES = 2 };

/* Nation decides the counter colour and, when the scenario gives a zone
 * per allied nation, the set-up zone (nation_zone): Prussians and
 * Anglo-Allies are one side (they stack together and are moved by one
 * player). */
enum wl_nation { WL_NATION_FRENCH, WL_NATION_PRUSSIAN, WL_NATION_ANGLO_ALLIED, WL_NNATIONS };

enum wl_utype { WL_INFANTRY, WL_CAVALRY, WL_ARTILLERY, WL_HORSE_ARTILLERY, WL_HQ };

/* Combat results. */
enum wl_result { WL_AE, WL_DE, WL_AB2, WL_DB2, WL_EX };

struct wl_unit_def {
    char id[WL_ID_MAX];         /* stable key, e.g. "fr-ii-jerome" */
    char name[WL_NAME_MAX];     /* "Jerome" */
    char size[8];               /* "XX", "X", "III", ... */
    uint8_t side;               /* enum wl_side */
    uint8_t nation;             /* enum wl_nation */
    uint8_t type;               /* enum wl_utype */
    uint8_t combat;             /* printed combat factor (0 for HQ) */
    uint8_t move;               /* printed movement factor */
    uint8_t team_hq;            /* HQ used only when more than two play */
    wl_sq setup;                /* square at the start, or WL_SQ_NONE */
    int8_t arrive_turn;         /* 1-based turn of arrival, or 0 when set up */
    int8_t entry;               /* map entry index for arrivals, or -1 */
    int16_t formation;          /* formations[] index, or -1 (none named) */
};

/* One formation of the order of battle (army, wing, corps, ...): a tree
 * per side, each formation under its parent, headed by an HQ unit or by
 * none. A team game's commanders are HQs; a unit is commanded by the
 * nearest commander heading a formation above it (its own formation
 * first), and by its side's commander-in-chief when there is none
 * (docs/scenario-format.md, "formations" and "commanders"). */
struct wl_formation {
    char id[WL_ID_MAX];
    char name[WL_NAME_MAX];
    uint8_t side;               /* enum wl_side */
    int16_t parent;             /* formations[] index, always lower; -1 for a root */
    int16_t hq;                 /* units[] index of the HQ heading it, or -1 */
};

struct wl_turn_time {
    char date[11];              /* "1815-06-16" */
    char time[6];               /* "07:00" */
};

/* Phases of the turn, in order. */
enum wl_phase {
    WL_PH_SETUP_FRENCH,
    WL_PH_SETUP_ALLIED,
    WL_PH_FRENCH_MOVE,
    WL_PH_FRENCH_COMBAT,
    WL_PH_DEFECTION,            /* P-A-A removes units for French exits */
    WL_PH_ALLIED_MOVE,          /* arrivals enter during this phase */
    WL_PH_ALLIED_COMBAT,
    WL_PH_OVER,
    WL_NPHASES
};

struct wl_scenario {
    char name[WL_NAME_MAX];
    struct wl_map map;
    uint8_t crt[WL_CRT_ROWS][WL_CRT_COLS];      /* [die-1][column], enum wl_result */
    int crt_reconstructed;                       /* 1 when not the printed card */
    struct wl_unit_def units[WL_MAX_UNITS];
    int nunits;
    struct wl_turn_time turns[WL_MAX_TURNS];
    int nturns;
    /* set-up zones: zone[side][sq] != 0 when a unit of side may be placed;
     * nation_zone[nation][sq] the same for a unit of that nation. A scenario
     * with one zone for the allied side gives both allied nations that zone;
     * one with a zone per allied nation ("prussian", "anglo-allied") makes
     * the side's zone their union. Which one a game uses is the rules
     * version's (wl_setup_zone_ok, waterloo_game.h). */
    uint8_t zone[WL_NSIDES][WL_NSQ];
    uint8_t nation_zone[WL_NNATIONS][WL_NSQ];
    int nation_zones;                            /* 1: a zone per allied nation given */
    int start_turn;                              /* 1-based; default 1 */
    int start_phase;                             /* enum wl_phase; default set-up */
    struct wl_formation formations[WL_MAX_FORMATIONS];
    int nformations;
    /* Team play: commanders[n - 2][side][k] is the HQ (units[] index) of
     * commander k of side when each side has n commanders; k = 0 is the
     * commander-in-chief. most_commanders is the largest n (1: no team
     * play in this scenario). */
    int16_t commanders[WL_MAX_COMMANDERS - 1][WL_NSIDES][WL_MAX_COMMANDERS];
    int most_commanders;
};

/* CRT column index for the odds label "1-6" .. "6-1"; -1 when unknown. */
int wl_crt_column(const char *label);

/* Label of a CRT column ("2-1"). */
const char *wl_crt_label(int column);

/* Code of a result ("AE", "DE", "AB2", "DB2", "EX"). */
const char *wl_result_code(int r);

const char *wl_side_name(int side);          /* "french" / "allied" */
const char *wl_utype_name(int type);         /* "infantry", ... "hq" */
const char *wl_phase_name(int phase);        /* "french_move", ... */

/* Index of the unit with this id, or -1. */
int wl_scenario_find_unit(const struct wl_scenario *sc, const char *id);

/* The commander (0 = the commander-in-chief) of unit i by the order of
 * battle when each side has n commanders (1..sc->most_commanders): the
 * nearest formation above it, its own first, headed by one of its side's
 * commanders; 0 when there is none, and always 0 when n is 1. */
int wl_scenario_commander(const struct wl_scenario *sc, int n, int i);

/* The seat word of an HQ's name: lowercase letters and digits, apostrophes
 * dropped, every other run of characters one '_' ("Prince of Orange" ->
 * "prince_of_orange", "d'Erlon" -> "derlon"), written into buf (size
 * bytes, cut to fit); returns buf. */
char *wl_scenario_slug(const char *name, char *buf, size_t size);

/* --- loading (waterloo_scenario.c; documented in docs/scenario-format.md) --- */

struct json_t;

/* Finds the JSON of a base scenario by name, for "base": returns a new
 * reference (the loader releases it with json_decref) or NULL when there
 * is none. name is borrowed for the call; ctx is the loader caller's. It is
 * called once per level of a chain of bases (at most 8 deep). */
typedef struct json_t *(*wl_scenario_resolver)(const char *name, void *ctx);

/* Fill sc from scenario JSON (borrowed: only read, its reference count is
 * not touched). A scenario naming a "base" is loaded on top of that base
 * (resolve may be NULL: then "base" is an error). Validates everything; on
 * error returns -1 with why (may be NULL) holding WL_R_BAD_SCENARIO and a
 * message naming the offending entry (e.g. "roads[2] (Nivelles-Namur):
 * are not adjacent"), always valid UTF-8; sc then holds no
 * usable scenario. sc is zeroed first and owns no pointers (nothing to
 * release). sc is large (about 90 KB): allocate it, don't put it on a small
 * stack. */
int wl_scenario_load(struct wl_scenario *sc, const struct json_t *json,
                     wl_scenario_resolver resolve, void *ctx, struct wr_refusal *why);

/* Read (stdio; at most 8 MiB; duplicate keys refused) and load a scenario
 * file; a "base" is looked up as <dir>/<base>.json, then as
 * <dir>/<base>/scenario.json, where <dir> is the directory of the file
 * naming it. Errors as for wl_scenario_load; file errors name the path
 * ("x.json:12:5: ..." for JSON syntax). */
int wl_scenario_load_file(struct wl_scenario *sc, const char *path, struct wr_refusal *why);

#endif
