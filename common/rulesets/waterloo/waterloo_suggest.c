/*
 * waterloo_suggest.c - "did you mean" for unit ids and squares
 * (waterloo_suggest.h).
 */
#include "waterloo_suggest.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "waterloo_grid.h"

#define NAME_MAX_LEN 63

int wl_suggest_distance(const char *a, const char *b)
{
    /* Optimal string alignment: three rows of the table are enough. */
    int d[3][NAME_MAX_LEN + 1];
    size_t na = strlen(a), nb = strlen(b);
    if (na > NAME_MAX_LEN)
        na = NAME_MAX_LEN;
    if (nb > NAME_MAX_LEN)
        nb = NAME_MAX_LEN;
    for (size_t j = 0; j <= nb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= na; i++) {
        int *row = d[i % 3], *up = d[(i - 1) % 3], *up2 = d[(i + 1) % 3];
        row[0] = (int)i;
        for (size_t j = 1; j <= nb; j++) {
            int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
            int best = up[j - 1] + (ca != cb);
            if (up[j] + 1 < best)
                best = up[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == cb && up2[j - 2] + 1 < best)
                best = up2[j - 2] + 1;
            row[j] = best;
        }
    }
    return d[na % 3][nb];
}

/* The farthest a unit id may be from what was typed to be suggested (a
 * square's name: 1, waterloo_suggest.h). */
static int reach_of(const char *typed)
{
    return strlen(typed) <= 4 ? 1 : 2;
}

/* The best WL_SUGGEST_MAX candidates so far, nearest (then preferred,
 * then first offered) first. */
struct best {
    int n;
    int key[WL_SUGGEST_MAX];    /* distance * 2 + (not preferred) */
    char name[WL_SUGGEST_MAX][WL_ID_MAX];
};

static void consider(struct best *b, const char *typed, const char *name, int preferred,
                     int reach)
{
    int dist = wl_suggest_distance(typed, name);
    if (dist == 0 || dist > reach)
        return;
    int key = dist * 2 + !preferred, k = b->n;
    while (k > 0 && b->key[k - 1] > key)
        k--;
    if (k >= WL_SUGGEST_MAX)
        return;
    int last = b->n < WL_SUGGEST_MAX ? b->n : WL_SUGGEST_MAX - 1;
    for (int i = last; i > k; i--) {
        b->key[i] = b->key[i - 1];
        memcpy(b->name[i], b->name[i - 1], WL_ID_MAX);
    }
    b->key[k] = key;
    snprintf(b->name[k], WL_ID_MAX, "%s", name);
    if (b->n < WL_SUGGEST_MAX)
        b->n++;
}

/* ": did you mean A?", ": did you mean A or B?", ": did you mean A, B or C?":
 * the candidates nearest of all. */
static void did_you_mean(const struct best *b, char *out, size_t n)
{
    int m = 1;          /* only the nearest are named */
    while (m < b->n && b->key[m] / 2 == b->key[0] / 2)
        m++;
    size_t len = (size_t)snprintf(out, n, ": did you mean");
    for (int i = 0; i < m && len < n; i++)
        len += (size_t)snprintf(out + len, n - len, "%s%s",
                                i == 0 ? " " : i == m - 1 ? " or " : ", ", b->name[i]);
    if (len < n)
        snprintf(out + len, n - len, "?");
}

enum wl_reason wl_refuse_unknown_unit(struct wr_refusal *why, const struct wl_scenario *sc,
                                      int side, const char *id)
{
    struct best b = { 0 };
    char tail[4 * WL_ID_MAX + 32];
    for (int i = 0; id && i < sc->nunits; i++)
        consider(&b, id, sc->units[i].id, sc->units[i].side == side, reach_of(id));
    if (b.n)
        did_you_mean(&b, tail, sizeof tail);
    else
        snprintf(tail, sizeof tail, " in this scenario");
    return wl_refuse(why, WL_R_UNKNOWN_UNIT, "no unit %.40s%s", id ? id : "", tail);
}

enum wl_reason wl_refuse_bad_square(struct wr_refusal *why, const char *text)
{
    struct best b = { 0 };
    char tail[4 * WL_ID_MAX + 32], name[WL_SQ_NAME_MAX];
    for (int r = 0; text && strlen(text) <= NAME_MAX_LEN && r < WL_ROWS; r++)
        for (int c = 1; c < WL_COLS; c++)
            if (wl_grid_in_frame(r, c) && wl_grid_on_board(wl_sq_make(r, c)))
                consider(&b, text, wl_grid_name(wl_sq_make(r, c), name), 0, 1);
    tail[0] = '\0';
    if (b.n)
        did_you_mean(&b, tail, sizeof tail);
    return wl_refuse(why, WL_R_BAD_SQUARE, "'%.16s' is not a square of the board%s",
                     text ? text : "", tail);
}
