/*
 * bench_jsonpatch.c - what a state update costs: diff and apply of the
 * patch for one step of a Waterloo-sized game.
 *
 * The state holds 155 units {"at": "X-27"} (some with "moved": true) and
 * the turn and phase. Each of 10,000 steps moves 1 to 3 units, toggles
 * their "moved" flag, and now and then advances the phase or the turn; the
 * server's diff of the two states and the client's apply are timed with
 * CLOCK_MONOTONIC. Every applied patch is checked against the new state.
 * Prints one JSON line: median and p99 of each in nanoseconds, the mean
 * patch size in bytes (compact JSON) and the size of the state itself.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "jsonpatch.h"

enum { UNITS = 155, STEPS = 10000 };

static const char *const phases[] = { "french_move", "french_combat", "allied_move",
                                      "allied_combat", "prussian_move", "prussian_combat" };

/* splitmix64, fixed seed: the same game on every run. */
static uint64_t rng_state = 0x1815061800000000ull;

static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static unsigned rng_below(unsigned n)
{
    return (unsigned)(rng_next() % n);
}

/* A square name like "X-27" or "AA-25": rows A..WW, diagonals 1..57. */
static json_t *random_square(void)
{
    char name[24];
    unsigned row = rng_below(49), col = 1 + rng_below(57);
    if (row < 26)
        snprintf(name, sizeof name, "%c-%u", 'A' + row, col);
    else
        snprintf(name, sizeof name, "%c%c-%u", 'A' + row - 26, 'A' + row - 26, col);
    return json_string(name);
}

static void unit_id(unsigned i, char id[16])
{
    /* 80 French, 45 Anglo-allied, 30 Prussian. */
    if (i < 80)
        snprintf(id, 16, "fr-%u", i + 1);
    else if (i < 125)
        snprintf(id, 16, "al-%u", i - 79);
    else
        snprintf(id, 16, "pr-%u", i - 124);
}

static json_t *initial_state(void)
{
    json_t *units = json_object();
    for (unsigned i = 0; i < UNITS; i++) {
        char id[16];
        unit_id(i, id);
        json_t *u = json_object();
        json_object_set_new(u, "at", random_square());
        if (rng_below(4) == 0)
            json_object_set_new(u, "moved", json_true());
        json_object_set_new(units, id, u);
    }
    return json_pack("{s:i, s:s, s:o}", "turn", 1, "phase", phases[0], "units", units);
}

/* The next state: a copy of s with 1..3 units moved and sometimes a new phase. */
static json_t *next_state(const json_t *s)
{
    json_t *n = json_deep_copy(s), *units = json_object_get(n, "units");
    for (unsigned k = 1 + rng_below(3); k > 0; k--) {
        char id[16];
        unit_id(rng_below(UNITS), id);
        json_t *u = json_object_get(units, id);
        json_object_set_new(u, "at", random_square());
        if (json_object_get(u, "moved"))
            json_object_del(u, "moved");
        else
            json_object_set_new(u, "moved", json_true());
    }
    if (rng_below(10) == 0) {
        json_int_t turn = json_integer_value(json_object_get(n, "turn"));
        const char *ph = json_string_value(json_object_get(n, "phase"));
        size_t p = 0;
        while (strcmp(phases[p], ph) != 0)
            p++;
        p = (p + 1) % (sizeof phases / sizeof phases[0]);
        json_object_set_new(n, "phase", json_string(phases[p]));
        if (p == 0)
            json_object_set_new(n, "turn", json_integer(turn + 1));
    }
    return n;
}

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The q-quantile (0..1) of n sorted samples, nearest rank. */
static int64_t quantile(const int64_t *v, size_t n, double q)
{
    size_t i = (size_t)(q * (double)n);
    return v[i < n ? i : n - 1];
}

int main(void)
{
    static int64_t diff_ns[STEPS], apply_ns[STEPS];
    json_t *state = initial_state();
    size_t state_bytes = json_dumpb(state, NULL, 0, JSON_COMPACT);
    double patch_bytes = 0, ops = 0;

    for (int i = 0; i < STEPS; i++) {
        json_t *next = next_state(state), *out = NULL;
        char err[256];

        int64_t t0 = now_ns();
        json_t *patch = wr_jsonpatch_diff(state, next);
        int64_t t1 = now_ns();
        int rc = wr_jsonpatch_apply(state, patch, &out, err, sizeof err);
        int64_t t2 = now_ns();

        if (patch == NULL || rc != 0 || !json_equal(out, next)) {
            fprintf(stderr, "bench_jsonpatch: step %d: patch does not reproduce the state: %s\n",
                    i, rc != 0 ? err : "different result");
            return 1;
        }
        diff_ns[i] = t1 - t0;
        apply_ns[i] = t2 - t1;
        patch_bytes += (double)json_dumpb(patch, NULL, 0, JSON_COMPACT);
        ops += (double)json_array_size(patch);
        json_decref(patch);
        json_decref(out);
        json_decref(state);
        state = next;
    }
    json_decref(state);

    qsort(diff_ns, STEPS, sizeof diff_ns[0], cmp_i64);
    qsort(apply_ns, STEPS, sizeof apply_ns[0], cmp_i64);
    printf("{\"bench\":\"jsonpatch\",\"units\":%d,\"steps\":%d,\"state_bytes\":%zu,"
           "\"diff_ns\":{\"median\":%lld,\"p99\":%lld},"
           "\"apply_ns\":{\"median\":%lld,\"p99\":%lld},"
           "\"patch_bytes_mean\":%.1f,\"ops_mean\":%.2f}\n",
           UNITS, STEPS, state_bytes, (long long)quantile(diff_ns, STEPS, 0.5),
           (long long)quantile(diff_ns, STEPS, 0.99), (long long)quantile(apply_ns, STEPS, 0.5),
           (long long)quantile(apply_ns, STEPS, 0.99), patch_bytes / STEPS, ops / STEPS);
    return 0;
}
