/*
 * campaign_map.h - the map of a campaign: towns and which towns are
 * adjacent, read from a campaign scenario file (docs/scenario-format.md,
 * "Campaign maps") into plain structs, so the campaign rules never touch
 * JSON for the map.
 *
 * A map has 4 to 64 towns (adjacency is a 64-bit mask per town). The
 * loader refuses the whole file on the first error and names the entry:
 *
 *   towns[3] (Wavre): adjacent town 'Limal' is not on the map
 *   towns[5] (Ligny): lists 'Fleurus', but towns[2] (Fleurus) does not list 'Ligny'
 *   towns: the map is not connected: towns[9] (Tamines) cannot be reached from towns[0] (Waterloo)
 *
 * Pure functions over caller-held structs: no globals, no I/O except
 * wr_campaign_map_load_file reading the file it is given.
 */
#ifndef WR_CAMPAIGN_MAP_H
#define WR_CAMPAIGN_MAP_H

#include <stdint.h>

#include "campaign_reason.h"

struct json_t;

#define WR_CAMPAIGN_TOWNS_MIN 4
#define WR_CAMPAIGN_TOWNS_MAX 64
#define WR_CAMPAIGN_NAME_MAX 48         /* bytes of a name, with its NUL */
#define WR_CAMPAIGN_DESCRIPTION_MAX 8192
#define WR_CAMPAIGN_COORD_MAX 1e6       /* |x|, |y| at most this */

struct wr_campaign_town {
    char name[WR_CAMPAIGN_NAME_MAX];
    int has_xy;                 /* 1 when the file gave "x" and "y" */
    double x, y;                /* drawing position (any unit; y grows downward) */
    uint64_t adj;               /* bit j set: adjacent to town j */
};

struct wr_campaign_map {
    char name[WR_CAMPAIGN_NAME_MAX];
    int ntowns;
    struct wr_campaign_town towns[WR_CAMPAIGN_TOWNS_MAX];
};

/* Read the campaign scenario j (borrowed) into m. Returns 0, or -1 with why
 * filled (reason WR_CR_BAD_SCENARIO, the message naming the entry); m is
 * then unspecified. */
int wr_campaign_map_load(struct wr_campaign_map *m, const struct json_t *j,
                         struct wr_refusal *why);

/* The same from a file (duplicate keys refused). */
int wr_campaign_map_load_file(struct wr_campaign_map *m, const char *path,
                              struct wr_refusal *why);

/* Index of the town called name, or -1. */
int wr_campaign_map_find(const struct wr_campaign_map *m, const char *name);

/* Are towns a and b adjacent? (Both valid indices.) */
static inline int wr_campaign_map_adjacent(const struct wr_campaign_map *m, int a, int b)
{
    return (int)((m->towns[a].adj >> b) & 1u);
}

#endif
