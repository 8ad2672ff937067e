/*
 * waterloo_map.c - building and querying the terrain of a board (see waterloo_map.h).
 */
#include "waterloo_map.h"

#include <string.h>

static void copy_name(char *dst, const char *src)
{
    size_t n = strlen(src);
    if (n >= WL_NAME_MAX)
        n = WL_NAME_MAX - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

void wl_map_init(struct wl_map *m)
{
    memset(m, 0, sizeof *m);
    for (int s = 0; s < WL_NSQ; s++) {
        m->cell[s].town = -1;
        m->cell[s].entry = -1;
    }
}

int wl_map_add_road(struct wl_map *m, const char *name, enum wl_road_kind kind,
                    const wl_sq *path, int n, struct wr_refusal *why)
{
    char a[WL_SQ_NAME_MAX], b[WL_SQ_NAME_MAX];
    if (m->nroads >= WL_MAX_ROADS) {
        wl_refuse(why, WL_R_BAD_COMMAND, "road %s: more than %d roads", name, WL_MAX_ROADS);
        return -1;
    }
    if (n < 2) {
        wl_refuse(why, WL_R_BAD_COMMAND, "road %s: a road needs at least two squares", name);
        return -1;
    }
    for (int i = 0; i + 1 < n; i++) {
        if (wl_grid_dir_to(path[i], path[i + 1]) < 0) {
            wl_refuse(why, WL_R_NOT_ADJACENT, "road %s: %s and %s are not adjacent", name,
                      wl_grid_name(path[i], a), wl_grid_name(path[i + 1], b));
            return -1;
        }
    }
    int id = ++m->nroads;
    copy_name(m->roads[id].name, name);
    m->roads[id].kind = (uint8_t)kind;
    for (int i = 0; i + 1 < n; i++) {
        int d = wl_grid_dir_to(path[i], path[i + 1]);
        /* Where two roads share a hexside the primary one wins. */
        uint8_t *here = &m->cell[path[i]].road[d];
        uint8_t *there = &m->cell[path[i + 1]].road[wl_dir_opposite(d)];
        if (*here == 0 || m->roads[*here].kind < kind) {
            *here = (uint8_t)id;
            *there = (uint8_t)id;
        }
    }
    return id;
}

int wl_map_add_river(struct wl_map *m, const char *name, const wl_sq *squares, int n,
                     struct wr_refusal *why)
{
    char a[WL_SQ_NAME_MAX];
    if (m->nrivers >= WL_MAX_RIVERS) {
        wl_refuse(why, WL_R_BAD_COMMAND, "river %s: more than %d rivers", name, WL_MAX_RIVERS);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        int r = m->cell[squares[i]].river;
        if (r != 0) {
            wl_refuse(why, WL_R_BAD_COMMAND, "river %s: %s is already on the %s", name,
                      wl_grid_name(squares[i], a), m->rivers[r]);
            return -1;
        }
    }
    int id = ++m->nrivers;
    copy_name(m->rivers[id], name);
    for (int i = 0; i < n; i++)
        m->cell[squares[i]].river = (uint8_t)id;
    return id;
}

int wl_map_add_town(struct wl_map *m, const char *name, wl_sq at, struct wr_refusal *why)
{
    char a[WL_SQ_NAME_MAX];
    if (m->ntowns >= WL_MAX_TOWNS) {
        wl_refuse(why, WL_R_BAD_COMMAND, "town %s: more than %d towns", name, WL_MAX_TOWNS);
        return -1;
    }
    if (m->cell[at].town >= 0) {
        wl_refuse(why, WL_R_BAD_COMMAND, "town %s: %s already holds %s", name,
                  wl_grid_name(at, a), m->towns[m->cell[at].town].name);
        return -1;
    }
    copy_name(m->towns[m->ntowns].name, name);
    m->towns[m->ntowns].at = at;
    m->cell[at].town = (int8_t)m->ntowns;
    return m->ntowns++;
}

int wl_map_add_entry(struct wl_map *m, const char *name, wl_sq at, struct wr_refusal *why)
{
    char a[WL_SQ_NAME_MAX];
    if (m->nentries >= WL_MAX_ENTRIES) {
        wl_refuse(why, WL_R_BAD_COMMAND, "entry %s: more than %d entries", name,
                  WL_MAX_ENTRIES);
        return -1;
    }
    if (!wl_grid_partial(at)) {
        wl_refuse(why, WL_R_BAD_ENTRY, "entry %s: %s is not a partial edge square", name,
                  wl_grid_name(at, a));
        return -1;
    }
    copy_name(m->entries[m->nentries].name, name);
    m->entries[m->nentries].at = at;
    m->cell[at].entry = (int8_t)m->nentries;
    return m->nentries++;
}

int wl_map_has_road(const struct wl_map *m, wl_sq s)
{
    for (int d = 0; d < WL_NDIR; d++)
        if (m->cell[s].road[d])
            return 1;
    return 0;
}

void wl_map_finish(struct wl_map *m)
{
    for (int s = 0; s < WL_NSQ; s++) {
        m->cell[s].hilltop = 0;
        m->cell[s].bridge = (uint8_t)(m->cell[s].river && wl_map_has_road(m, (wl_sq)s));
    }
    for (int s = 0; s < WL_NSQ; s++) {
        uint8_t high = m->cell[s].slope_high;
        for (int d = 0; d < WL_NDIR && high; d++) {
            if (!(high & (1u << d)))
                continue;
            wl_sq n = wl_grid_neighbour((wl_sq)s, d);
            if (n != WL_SQ_NONE && m->cell[n].slope_high == 0)
                m->cell[n].hilltop = 1;
        }
    }
}

int wl_map_find_town(const struct wl_map *m, const char *name)
{
    for (int i = 0; i < m->ntowns; i++)
        if (strcmp(m->towns[i].name, name) == 0)
            return i;
    return -1;
}

int wl_map_find_entry(const struct wl_map *m, const char *name)
{
    for (int i = 0; i < m->nentries; i++)
        if (strcmp(m->entries[i].name, name) == 0)
            return i;
    return -1;
}
