/*
 * prng.c - the seeded pseudo-random generator of prng.h (splitmix64).
 */
#include "prng.h"

void wr_prng_seed(struct wr_prng *r, uint64_t seed)
{
    r->s = seed;
}

uint64_t wr_prng_next(struct wr_prng *r)
{
    /* splitmix64 */
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

int wr_prng_below(struct wr_prng *r, int n)
{
    return (int)(wr_prng_next(r) % (uint64_t)n);
}
