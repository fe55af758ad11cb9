/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Mergeable latency histograms with log-linear buckets.
 *
 * Values are uint64_t (nanoseconds by convention).  Buckets: values below
 * 2^DUT_HIST_SUB_BITS are recorded exactly; above that, each power-of-two
 * range [2^k, 2^(k+1)) is split into 2^(DUT_HIST_SUB_BITS-1) equal linear
 * sub-buckets, so the bucket width is at most 2^-(DUT_HIST_SUB_BITS-1) of the
 * value: < 1.6 % with SUB_BITS = 7, and a query reports the bucket midpoint,
 * which is within 0.8 % of every value in the bucket.  The buckets span
 * 0 .. 2^DUT_HIST_MAX_BITS ns (~ 550 s); larger values go to the last bucket
 * (whose range therefore ends at UINT64_MAX) and still count exactly in
 * count/min/max/mean.  sum and sumsq saturate; mean and stddev then fall
 * back to bucket midpoints.
 *
 * Threading: a struct dut_hist is owned by one thread, which adds to it
 * without locks or atomics.  Readers merge per-thread histograms afterwards
 * (dut_hist_merge is exact: merged percentiles equal those of one histogram
 * that saw every value).  Code that must read a histogram while its owner
 * writes (live stats) copies it with dut_hist_snapshot(), which is racy
 * per-bucket but never crashes and never tears count/sum more than one add.
 */
#ifndef DUT_HIST_H
#define DUT_HIST_H

#include <stdbool.h>
#include <stdint.h>

#define DUT_HIST_SUB_BITS 7
#define DUT_HIST_MAX_BITS 39
/* 2^SUB_BITS exact buckets, then (MAX_BITS - SUB_BITS) powers of two of 2^(SUB_BITS-1) each. */
#define DUT_HIST_NBUCKETS \
	((1u << DUT_HIST_SUB_BITS) + (DUT_HIST_MAX_BITS - DUT_HIST_SUB_BITS) * (1u << (DUT_HIST_SUB_BITS - 1)))

/* Buckets in chunks of this many (the sparse histogram, lib/hist_sparse.h, allocates by chunk). */
#define DUT_HIST_CHUNK (1u << (DUT_HIST_SUB_BITS - 1))
#define DUT_HIST_NCHUNKS (DUT_HIST_NBUCKETS / DUT_HIST_CHUNK)
_Static_assert(DUT_HIST_NCHUNKS <= 64, "a chunk's bit in a 64-bit mask");
_Static_assert(DUT_HIST_NBUCKETS % DUT_HIST_CHUNK == 0, "whole chunks");

struct dut_hist {
	uint64_t count;
	uint64_t min;            /* UINT64_MAX when count == 0 */
	uint64_t max;
	uint64_t sum;            /* saturates at UINT64_MAX */
	unsigned __int128 sumsq; /* exact sum of squares, for stddev; saturates */
	uint64_t buckets[DUT_HIST_NBUCKETS];
};

/* The standard percentile set every tool reports; all zero when count == 0. */
struct dut_hist_summary {
	uint64_t count;
	uint64_t min, max;
	double mean, stddev;     /* population stddev */
	uint64_t p50, p90, p99, p999, p9999;
};

void dut_hist_init(struct dut_hist *h);
/* Allocate and init on the heap (the struct is ~20 KiB); NULL on ENOMEM. */
struct dut_hist *dut_hist_new(void);
void dut_hist_free(struct dut_hist *h);

/* The [lo, hi] range of values a bucket holds (dut_hist_bucket() below gives a value's). */
void dut_hist_bucket_range(unsigned idx, uint64_t *ret_lo, uint64_t *ret_hi);

void dut_hist_add_n(struct dut_hist *h, uint64_t v, uint64_t n);
/*
 * dut_hist_add() for a histogram several threads add to at once (lock-free
 * atomics; no lost adds).  Only for histograms every writer adds to this
 * way; readers copy with dut_hist_snapshot() as for an owned one.
 */
void dut_hist_add_shared(struct dut_hist *h, uint64_t v);
/* dst += src, exactly. */
void dut_hist_merge(struct dut_hist *dst, const struct dut_hist *src);
void dut_hist_snapshot(struct dut_hist *dst, const struct dut_hist *src);
void dut_hist_reset(struct dut_hist *h);

/*
 * Value at percentile pct (0 < pct <= 100): the smallest bucket whose
 * cumulative count reaches ceil(pct/100 * count), reported as the bucket's
 * midpoint clamped to [min, max].  pct = 100 returns max exactly.
 * 0 when the histogram is empty.  Out of range: pct <= 0 (or NaN) gives
 * min, pct > 100 gives max.
 */
uint64_t dut_hist_percentile(const struct dut_hist *h, double pct);
double dut_hist_mean(const struct dut_hist *h);
double dut_hist_stddev(const struct dut_hist *h);
void dut_hist_summarize(const struct dut_hist *h, struct dut_hist_summary *ret);

/*
 * Inline, because the trace report adds several values per record to
 * histograms (tools/report/report_build.c): a call each was a tenth of its
 * time.  Index arithmetic: let k = floor(log2(v | (2^SUB_BITS - 1))), the
 * top bit of v but at least SUB_BITS - 1.  Shifting v right by s = k -
 * (SUB_BITS - 1) leaves its top SUB_BITS bits, a number in
 * [2^(SUB_BITS-1), 2^SUB_BITS) (or v itself when v < 2^SUB_BITS and s = 0);
 * the bucket is then idx = s * 2^(SUB_BITS-1) + (v >> s): v for the exact
 * range, advancing by 2^(SUB_BITS-1) per power of two above it.  One clz.
 */
static inline unsigned dut_hist_bucket(uint64_t v)
{
	const unsigned last = DUT_HIST_NBUCKETS - 1;
	unsigned k = 63 - (unsigned)__builtin_clzll(v | ((UINT64_C(1) << DUT_HIST_SUB_BITS) - 1));
	unsigned s = k - (DUT_HIST_SUB_BITS - 1);
	uint64_t idx = (uint64_t)s * (1u << (DUT_HIST_SUB_BITS - 1)) + (v >> s);

	/* values >= 2^MAX_BITS share the last bucket (a cmov, not a branch) */
	return idx < last ? (unsigned)idx : last;
}

static inline uint64_t dut_hist_sat_add64(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

static inline unsigned __int128 dut_hist_sat_add128(unsigned __int128 a, unsigned __int128 b)
{
	unsigned __int128 r;

	return __builtin_add_overflow(a, b, &r) ? ~(unsigned __int128)0 : r;
}

/*
 * The owner's add (see Threading above): relaxed stores, count last with
 * release order, so dut_hist_snapshot() can copy while the owner adds.
 * dut_hist_add_at() is the same with v's bucket already known (idx ==
 * dut_hist_bucket(v)), for a caller that adds one value to several
 * histograms.
 */
static inline void dut_hist_add_at(struct dut_hist *h, uint64_t v, unsigned idx)
{
	__atomic_store_n(&h->buckets[idx], h->buckets[idx] + 1, __ATOMIC_RELAXED);
	if (v < h->min)
		__atomic_store_n(&h->min, v, __ATOMIC_RELAXED);
	if (v > h->max)
		__atomic_store_n(&h->max, v, __ATOMIC_RELAXED);
	__atomic_store_n(&h->sum, dut_hist_sat_add64(h->sum, v), __ATOMIC_RELAXED);
	/* v*v < 2^128 always; only the running sum can overflow */
	h->sumsq = dut_hist_sat_add128(h->sumsq, (unsigned __int128)v * v);
	__atomic_store_n(&h->count, h->count + 1, __ATOMIC_RELEASE);
}

static inline void dut_hist_add(struct dut_hist *h, uint64_t v)
{
	dut_hist_add_at(h, v, dut_hist_bucket(v));
}

#endif
