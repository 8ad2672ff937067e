/*
 * waterloo_map.h - the terrain of a board: what every square is, and how roads and
 * rivers run. Immutable once built; games share it read-only.
 *
 * Roads are connections across hexsides: road[d] of a square names the road
 * that leaves it through hexside d (0 = none). A road is added as a path of
 * adjacent squares; towns on that path simply continue it. Rivers are sets
 * of river squares, each square on at most one river. A slope records which
 * of its hexsides are the high side; hill tops are derived (a non-slope
 * square adjacent to a high side). Bridges are derived: a river square that
 * a road passes through.
 */
#ifndef WL_MAP_H
#define WL_MAP_H

#include <stdint.h>

#include "waterloo_grid.h"
#include "waterloo_reason.h"

#define WL_MAX_ROADS 64
#define WL_MAX_RIVERS 16
#define WL_MAX_TOWNS 96
#define WL_MAX_ENTRIES 16
#define WL_NAME_MAX 48

enum wl_road_kind { WL_ROAD_NONE = 0, WL_ROAD_SECONDARY = 1, WL_ROAD_PRIMARY = 2 };

struct wl_cell {
    uint8_t woods;              /* 1: a woods square */
    uint8_t slope_high;         /* bit d: high side faces direction d; 0: not a slope */
    uint8_t hilltop;            /* derived: adjacent to the high side of a slope */
    uint8_t river;              /* river id 1..nrivers; 0: not a river square */
    uint8_t road[WL_NDIR];      /* road id 1..nroads through hexside d; 0: none */
    uint8_t bridge;             /* derived: a road runs through this river square */
    uint8_t exit;               /* a French exit square (A-39..A-45) */
    int8_t town;                /* index into towns, or -1 */
    int8_t entry;               /* index into entries (partial squares), or -1 */
};

struct wl_road {
    char name[WL_NAME_MAX];
    uint8_t kind;               /* enum wl_road_kind */
};

struct wl_place {
    char name[WL_NAME_MAX];
    wl_sq at;
};

struct wl_map {
    struct wl_cell cell[WL_NSQ];
    struct wl_road roads[WL_MAX_ROADS + 1];     /* [0] unused */
    int nroads;
    char rivers[WL_MAX_RIVERS + 1][WL_NAME_MAX]; /* [0] unused */
    int nrivers;
    struct wl_place towns[WL_MAX_TOWNS];
    int ntowns;
    /* Road entries at the board edge, in clockwise order around the board;
     * the "next unblocked road clockwise" of the reinforcement rule. */
    struct wl_place entries[WL_MAX_ENTRIES];
    int nentries;
};

/* Empty map: all clear, no roads, rivers, towns or entries. */
void wl_map_init(struct wl_map *m);

/* Add a road along path[0..n-1] (adjacent squares). Returns the road id
 * (1..), or -1 with why filled (non-adjacent step, too many roads). */
int wl_map_add_road(struct wl_map *m, const char *name, enum wl_road_kind kind,
                    const wl_sq *path, int n, struct wr_refusal *why);

/* Add a river; returns its id (1..) or -1. Squares already on another river
 * are an error (a square is on one river). */
int wl_map_add_river(struct wl_map *m, const char *name, const wl_sq *squares, int n,
                     struct wr_refusal *why);

int wl_map_add_town(struct wl_map *m, const char *name, wl_sq at, struct wr_refusal *why);

/* Entries must be added in clockwise order; at must be a partial square. */
int wl_map_add_entry(struct wl_map *m, const char *name, wl_sq at, struct wr_refusal *why);

/* Derive hill tops and bridges. Call once after all terrain is in. */
void wl_map_finish(struct wl_map *m);

/* --- queries (all O(1)) --- */

static inline int wl_map_is_river(const struct wl_map *m, wl_sq s)
{
    return m->cell[s].river != 0;
}

/* Kind of the road crossing hexside d of s (enum wl_road_kind). */
static inline int wl_map_road_kind(const struct wl_map *m, wl_sq s, int d)
{
    return m->roads[m->cell[s].road[d]].kind;
}

/* True when any road leaves s. */
int wl_map_has_road(const struct wl_map *m, wl_sq s);

/* Index of the town or entry called name, or -1. */
int wl_map_find_town(const struct wl_map *m, const char *name);
int wl_map_find_entry(const struct wl_map *m, const char *name);

#endif
