/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Counter-based random numbers for the DSS generator.
 *
 * Every value the generator draws comes from a stream keyed by
 * (seed, table, column, row): the stream's starting state is a SplitMix64
 * hash of the key, and the stream itself is SplitMix64 (add the golden
 * gamma, finalise).  A row therefore never depends on the rows generated
 * before it, so any chunk of any table can be generated on any thread, in
 * any order, and the bytes are the same.
 */
#ifndef DSS_RNG_H
#define DSS_RNG_H

#include <stdint.h>

#include "lib/splitmix.h"

#define DSS_GOLDEN DUT_SPLITMIX_GAMMA

struct dss_rng {
	uint64_t s;
};

static inline uint64_t dss_mix64(uint64_t z)
{
	return dut_mix64(z);
}

/* The stream of column col of row row of table table. */
static inline struct dss_rng dss_rng_at(uint64_t seed, unsigned table, unsigned col,
					uint64_t row)
{
	uint64_t k = dss_mix64(seed + DSS_GOLDEN * (((uint64_t)table << 8) + col + 1));
	struct dss_rng r = { dss_mix64(k ^ (row * 0xd1b54a32d192ed03ull + DSS_GOLDEN)) };
	return r;
}

static inline uint64_t dss_rng_next(struct dss_rng *r)
{
	r->s += DSS_GOLDEN;
	return dss_mix64(r->s);
}

/* Uniform in [lo, hi] (inclusive; hi >= lo), without modulo bias worth naming. */
static inline int64_t dss_rng_range(struct dss_rng *r, int64_t lo, int64_t hi)
{
	uint64_t span = (uint64_t)(hi - lo) + 1;
	return lo + (int64_t)(((unsigned __int128)dss_rng_next(r) * span) >> 64);
}

#endif
