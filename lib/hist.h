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

/* Bucket index of a value, and the [lo, hi] range of values a bucket holds. */
unsigned dut_hist_bucket(uint64_t v);
void dut_hist_bucket_range(unsigned idx, uint64_t *ret_lo, uint64_t *ret_hi);

void dut_hist_add(struct dut_hist *h, uint64_t v);
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

#endif
