/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A small, fast, seedable PRNG (xoshiro256**, seeded through splitmix64).
 * Each pgload thread owns one; nothing here is shared or locked.  Seeded
 * runs are reproducible, which the unit tests rely on.
 */
#ifndef PGL_RNG_H
#define PGL_RNG_H

#include <stdint.h>

#include "lib/splitmix.h"

struct pgl_rng {
	uint64_t s[4];
};

static inline void pgl_rng_seed(struct pgl_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = dut_splitmix64(&seed);
}

static inline uint64_t pgl_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t pgl_rng_next(struct pgl_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = pgl_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = pgl_rotl(s[3], 45);
	return result;
}

/* Uniform double in [0, 1). */
static inline double pgl_rng_double(struct pgl_rng *r)
{
	return (double)(pgl_rng_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform integer in [lo, hi] (inclusive), without modulo bias worth noting
 * for ranges far below 2^64 (the multiply-shift maps 64 random bits). */
static inline int64_t pgl_rng_range(struct pgl_rng *r, int64_t lo, int64_t hi)
{
	uint64_t span = (uint64_t)(hi - lo) + 1;

	if (span == 0) /* full 64-bit range */
		return (int64_t)pgl_rng_next(r);
	return lo + (int64_t)(((unsigned __int128)pgl_rng_next(r) * span) >> 64);
}

#endif
