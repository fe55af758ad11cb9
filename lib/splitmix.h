/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
 * generators", 2014): one 64-bit state advanced by the golden gamma, each
 * value the finaliser of the state.  Every seeded stream in dutlab draws
 * from it (pgload's xoshiro seeding, the DSS generator's counter streams,
 * dutprobe's offsets, dutfs's fault plans, dutlab crash's plan), so seeded
 * runs agree across the tools, and it is written once, here.
 */
#ifndef DUT_SPLITMIX_H
#define DUT_SPLITMIX_H

#include <stdint.h>

#define DUT_SPLITMIX_GAMMA 0x9e3779b97f4a7c15ull

/* The finaliser: a bijective mix of z (also a good 64-bit hash). */
static inline uint64_t dut_mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The next value of the stream whose state is *state. */
static inline uint64_t dut_splitmix64(uint64_t *state)
{
	return dut_mix64(*state += DUT_SPLITMIX_GAMMA);
}

#endif
