/*
 * waterloo_scenario.h - a Waterloo-family scenario as plain structs: the map, the
 * combat results table, the units with their set-up or arrival, the time
 * record, the set-up zones and an optional start point.
 *
 * waterloo_scenario.c turns scenario JSON into these structs (the one module that
 * touches json_t for scenarios) and validates everything, naming the
 * offending entry in its errors. Rule code reads only these structs.
 */
#ifndef WR_SCENARIO_H
#define WR_SCENARIO_H

#include <stddef.h>
#include <stdint.h>

#include "waterloo_map.h"
#include "reason.h"

#define WR_MAX_UNITS 256
#define WR_MAX_TURNS 64
#define WR_ID_MAX 24
#define WR_STACK_LIMIT 15
#define WR_CRT_COLS 11          /* 1-6 .. 1-2, 1-1, 2-1 .. 6-1 */
#define WR_CRT_ROWS 6

enum wr_side { WR_FRENCH = 0, WR_ALLIED = 1, WR_NSIDES = 2 };

/* Nation decides the counter colour only: Prussians and Anglo-Allies are
 * one side (they stack together and are moved by one player). */
enum wr_nation { WR_NATION_FRENCH, WR_NATION_PRUSSIAN, WR_NATION_ANGLO_ALLIED };

enum wr_utype { WR_INFANTRY, WR_CAVALRY, WR_ARTILLERY, WR_HORSE_ARTILLERY, WR_HQ };

/* Combat results. */
enum wr_result { WR_AE, WR_DE, WR_AB2, WR_DB2, WR_EX };

struct wr_unit_def {
    char id[WR_ID_MAX];         /* stable key, e.g. "fr-ii-jerome" */
    char name[WR_NAME_MAX];     /* "Jerome" */
    char size[8];               /* "XX", "X", "III", ... */
    uint8_t side;               /* enum wr_side */
    uint8_t nation;             /* enum wr_nation */
    uint8_t type;               /* enum wr_utype */
    uint8_t combat;             /* printed combat factor (0 for HQ) */
    uint8_t move;               /* printed movement factor */
    uint8_t team_hq;            /* HQ used only when more than two play */
    wr_sq setup;                /* square at the start, or WR_SQ_NONE */
    int8_t arrive_turn;         /* 1-based turn of arrival, or 0 when set up */
    int8_t entry;               /* map entry index for arrivals, or -1 */
};

struct wr_turn_time {
    char date[11];              /* "1815-06-16" */
    char time[6];               /* "07:00" */
};

/* Phases of the turn, in order. */
enum wr_phase {
    WR_PH_SETUP_FRENCH,
    WR_PH_SETUP_ALLIED,
    WR_PH_FRENCH_MOVE,
    WR_PH_FRENCH_COMBAT,
    WR_PH_DEFECTION,            /* P-A-A removes units for French exits */
    WR_PH_ALLIED_MOVE,          /* arrivals enter during this phase */
    WR_PH_ALLIED_COMBAT,
    WR_PH_OVER,
    WR_NPHASES
};

struct wr_scenario {
    char name[WR_NAME_MAX];
    struct wr_map map;
    uint8_t crt[WR_CRT_ROWS][WR_CRT_COLS];      /* [die-1][column], enum wr_result */
    int crt_reconstructed;                       /* 1 when not the printed card */
    struct wr_unit_def units[WR_MAX_UNITS];
    int nunits;
    struct wr_turn_time turns[WR_MAX_TURNS];
    int nturns;
    /* set-up zones: zone[side][sq] != 0 when a unit of side may be placed */
    uint8_t zone[WR_NSIDES][WR_NSQ];
    int start_turn;                              /* 1-based; default 1 */
    int start_phase;                             /* enum wr_phase; default set-up */
};

/* CRT column index for the odds label "1-6" .. "6-1"; -1 when unknown. */
int wr_crt_column(const char *label);

/* Label of a CRT column ("2-1"). */
const char *wr_crt_label(int column);

/* Code of a result ("AE", "DE", "AB2", "DB2", "EX"). */
const char *wr_result_code(int r);

const char *wr_side_name(int side);          /* "french" / "allied" */
const char *wr_utype_name(int type);         /* "infantry", ... "hq" */
const char *wr_phase_name(int phase);        /* "french_move", ... */

/* Index of the unit with this id, or -1. */
int wr_scenario_find_unit(const struct wr_scenario *sc, const char *id);

/* --- loading (waterloo_scenario.c; documented in docs/scenario-format.md) --- */

struct json_t;

/* Finds the JSON of a base scenario by name, for "base": returns a new
 * reference (the loader releases it with json_decref) or NULL when there
 * is none. name is borrowed for the call; ctx is the loader caller's. It is
 * called once per level of a chain of bases (at most 8 deep). */
typedef struct json_t *(*wr_scenario_resolver)(const char *name, void *ctx);

/* Fill sc from scenario JSON (borrowed: only read, its reference count is
 * not touched). A scenario naming a "base" is loaded on top of that base
 * (resolve may be NULL: then "base" is an error). Validates everything; on
 * error returns -1 with why (may be NULL) holding WR_R_BAD_SCENARIO and a
 * message naming the offending entry (e.g. "roads[2] (Nivelles-Namur):
 * are not adjacent"), always valid UTF-8; sc then holds no
 * usable scenario. sc is zeroed first and owns no pointers (nothing to
 * release). sc is large (about 80 KB): allocate it, don't put it on a small
 * stack. */
int wr_scenario_load(struct wr_scenario *sc, const struct json_t *json,
                     wr_scenario_resolver resolve, void *ctx, struct wr_refusal *why);

/* Read (stdio; at most 8 MiB; duplicate keys refused) and load a scenario
 * file; a "base" is looked up as <dir>/<base>.json, then as
 * <dir>/<base>/scenario.json, where <dir> is the directory of the file
 * naming it. Errors as for wr_scenario_load; file errors name the path
 * ("x.json:12:5: ..." for JSON syntax). */
int wr_scenario_load_file(struct wr_scenario *sc, const char *path, struct wr_refusal *why);

#endif
