/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A sparse histogram: lib/hist.h's buckets and numbers, with the buckets
 * allocated a chunk of DUT_HIST_CHUNK (64, one power of two) at a time, on
 * the first value that falls in it.  A chunk counts in 32 bits; when a
 * bucket's count carries out of them, the chunk grows a second half of
 * high words (its bit in `wide`), so counts stay exact and the add's only
 * test is the carry.
 *
 * Why: the trace report keeps a histogram per statistic of every file,
 * relation, process and phase row, and of each file's pending part.  A
 * dense one is 17 KiB; a real run's trace (a thousand files) made 100 MB of
 * them, and zeroing and faulting those pages in was most of the report's
 * time.  A latency spreads over a few powers of two: a few chunks of 256
 * bytes and a 330-byte head.  The 32-bit counts halve what the builder's
 * adds touch: 0.80 against 0.85 s for the 10M compact trace's report
 * (6 interleaved runs, docs/soak.md "2026-12-07 (s22)").
 *
 * Same answers as a dense histogram fed the same values (the queries are
 * hist_query.c's, over either).  One owner, no atomics: not for live
 * statistics another thread reads (use struct dut_hist there).
 */
#ifndef DUT_HIST_SPARSE_H
#define DUT_HIST_SPARSE_H

#include <stdint.h>

#include "lib/hist.h"

struct dut_shist {
	uint64_t count;
	uint64_t min;                  /* UINT64_MAX when count == 0 */
	uint64_t max;
	uint64_t sum;                  /* saturates */
	unsigned __int128 sumsq;       /* saturates */
	uint64_t wide;                 /* bit c: chunk c has high words after its low ones */
	uint32_t *chunk[DUT_HIST_NCHUNKS]; /* the low words of 64 counts; NULL: no value there yet */
};

/* Empty, with no chunk; NULL on ENOMEM. */
struct dut_shist *dut_shist_new(void);
void dut_shist_free(struct dut_shist *h);
/* Empty again; keeps its chunks (zeroed) for the next values. */
void dut_shist_reset(struct dut_shist *h);

/* The chunk of bucket idx, made: -ENOMEM (h unchanged) when it cannot be. */
int dut_shist_chunk_make(struct dut_shist *h, unsigned idx);
/*
 * Bucket i of chunk c (made) carried out of its low word: add 2^32 to it,
 * giving the chunk its high words first.  -ENOMEM (h unchanged but for the
 * low word, which the caller restores) when they cannot be.
 */
int dut_shist_carry(struct dut_shist *h, unsigned c, unsigned i);

/* dst += src, exactly; -ENOMEM when a chunk cannot be made (dst then partly added to). */
int dut_shist_merge(struct dut_shist *dst, const struct dut_shist *src);
/* dst += src, into a dense histogram. */
void dut_hist_merge_sparse(struct dut_hist *dst, const struct dut_shist *src);

/* As dut_hist_percentile(), dut_hist_mean() and dut_hist_summarize(). */
uint64_t dut_shist_percentile(const struct dut_shist *h, double pct);
double dut_shist_mean(const struct dut_shist *h);
void dut_shist_summarize(const struct dut_shist *h, struct dut_hist_summary *ret);

/* Add v, whose bucket is idx (== dut_hist_bucket(v)): 0, or -ENOMEM with h unchanged. */
static inline int dut_shist_add_at(struct dut_shist *h, uint64_t v, unsigned idx)
{
	const unsigned c = idx / DUT_HIST_CHUNK, i = idx % DUT_HIST_CHUNK;
	uint32_t *p = h->chunk[c];
	int r;

	if (__builtin_expect(!p, 0)) {
		if ((r = dut_shist_chunk_make(h, idx)) < 0)
			return r;
		p = h->chunk[c];
	}
	if (__builtin_expect(++p[i] == 0, 0) && (r = dut_shist_carry(h, c, i)) < 0) {
		p[i] = UINT32_MAX;
		return r;
	}
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->sum = dut_hist_sat_add64(h->sum, v);
	h->sumsq = dut_hist_sat_add128(h->sumsq, (unsigned __int128)v * v);
	h->count++;
	return 0;
}

static inline int dut_shist_add(struct dut_shist *h, uint64_t v)
{
	return dut_shist_add_at(h, v, dut_hist_bucket(v));
}

#endif
