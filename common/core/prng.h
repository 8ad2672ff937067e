/*
 * prng.h - a small seeded pseudo-random generator (splitmix64) for tests,
 * benchmarks, random players and the load tool: never for a game's dice,
 * which are auditable and come from dice.h. The generator is a value held
 * by the caller (no global state); the same seed gives the same numbers.
 */
#ifndef WR_PRNG_H
#define WR_PRNG_H

#include <stdint.h>

struct wr_prng {
    uint64_t s;
};

void wr_prng_seed(struct wr_prng *r, uint64_t seed);
uint64_t wr_prng_next(struct wr_prng *r);
/* Uniform in 0..n-1 (n > 0). */
int wr_prng_below(struct wr_prng *r, int n);

#endif
