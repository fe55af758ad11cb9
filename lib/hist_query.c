/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A histogram's queries (percentiles, mean, stddev, summary) over a view of
 * its buckets in chunks, so the dense histogram (hist.c) and the sparse one
 * (hist_sparse.c) answer with the same code and the same numbers, and the
 * range of a bucket.
 */
#include <math.h>
#include <stdbool.h>

#include "lib/hist.h"
#include "lib/hist_view.h"

#define SUB_COUNT (1u << (DUT_HIST_SUB_BITS - 1))      /* sub-buckets per power of two */
#define LAST_BUCKET (DUT_HIST_NBUCKETS - 1)

void dut_hist_bucket_range(unsigned idx, uint64_t *ret_lo, uint64_t *ret_hi)
{
	unsigned s;
	uint64_t lo;

	if (idx >= DUT_HIST_NBUCKETS)
		idx = LAST_BUCKET;
	if (idx < 2 * SUB_COUNT) {
		*ret_lo = *ret_hi = idx;
		return;
	}
	/* inverse of dut_hist_bucket(): idx / SUB_COUNT = s + 1 */
	s = idx / SUB_COUNT - 1;
	lo = (uint64_t)(SUB_COUNT + idx % SUB_COUNT) << s;
	*ret_lo = lo;
	*ret_hi = idx == LAST_BUCKET ? UINT64_MAX : lo + (UINT64_C(1) << s) - 1;
}

static inline uint64_t view_bucket(const struct dut_hist_view *h, unsigned idx)
{
	unsigned c = idx / DUT_HIST_CHUNK, i = idx % DUT_HIST_CHUNK;
	const void *p = h->chunk[c];
	const uint32_t *w;

	if (!p)
		return 0;
	if (h->dense)
		return ((const uint64_t *)p)[i];
	w = p;
	return w[i] | (h->wide >> c & 1 ? (uint64_t)w[DUT_HIST_CHUNK + i] << 32 : 0);
}

/*
 * Rank of percentile pct among count values: ceil(pct/100 * count), in
 * [1, count].  A product that is an integer up to rounding noise (99.9% of
 * 10000 = 9990.000000000002) is taken as that integer, so p99.9 of 10000
 * values is the 9990th, as a person computing it by hand would say.
 */
static uint64_t percentile_rank(uint64_t count, double pct)
{
	long double x = (long double)pct / 100.0L * (long double)count;
	long double r = roundl(x);
	uint64_t rank;

	if (fabsl(x - r) <= 1e-9L * (r > 1 ? r : 1))
		x = r;
	rank = (uint64_t)ceill(x);
	if (rank < 1)
		rank = 1;
	return rank > count ? count : rank;
}

static uint64_t bucket_value(const struct dut_hist_view *h, unsigned idx)
{
	uint64_t lo, hi, mid;

	dut_hist_bucket_range(idx, &lo, &hi);
	if (idx == LAST_BUCKET && h->max >= lo)    /* open-ended: [lo, max] is all we know */
		hi = h->max;
	mid = lo + (hi - lo) / 2;
	if (mid < h->min)
		mid = h->min;
	if (mid > h->max)
		mid = h->max;
	return mid;
}

/* Values at n ascending percentiles pcts[] in one pass over the buckets. */
static void percentiles(const struct dut_hist_view *h, const double *pcts, uint64_t *ret,
			unsigned n)
{
	uint64_t cum = 0;
	unsigned idx = 0;

	for (unsigned j = 0; j < n; j++) {
		uint64_t rank;

		if (h->count == 0) {
			ret[j] = 0;
			continue;
		}
		if (!(pcts[j] > 0)) {           /* also NaN */
			ret[j] = h->min;
			continue;
		}
		if (pcts[j] >= 100) {
			ret[j] = h->max;
			continue;
		}
		rank = percentile_rank(h->count, pcts[j]);
		while (idx < DUT_HIST_NBUCKETS && cum + view_bucket(h, idx) < rank)
			cum += view_bucket(h, idx++);
		/* buckets summing to less than count: a racy snapshot */
		ret[j] = idx < DUT_HIST_NBUCKETS ? bucket_value(h, idx) : h->max;
	}
}

uint64_t dut_hist_view_percentile(const struct dut_hist_view *h, double pct)
{
	uint64_t v;

	percentiles(h, &pct, &v, 1);
	return v;
}

/* Sum and sum of squares from bucket midpoints, for when the exact ones saturated. */
static void bucket_moments(const struct dut_hist_view *h, long double *ret_sum,
			   long double *ret_sumsq)
{
	long double s = 0, sq = 0;

	for (unsigned i = 0; i < DUT_HIST_NBUCKETS; i++) {
		long double v, n = view_bucket(h, i);

		if (!view_bucket(h, i))
			continue;
		v = bucket_value(h, i);
		s += v * n;
		sq += v * v * n;
	}
	*ret_sum = s;
	*ret_sumsq = sq;
}

/* sumsq saturated: its high word at the maximum (dut_hist_add_shared()
 * saturates that word alone; the owner's adds saturate both) */
static bool moments_saturated(const struct dut_hist_view *h)
{
	return h->sum == UINT64_MAX || (uint64_t)(h->sumsq >> 64) == UINT64_MAX;
}

double dut_hist_view_mean(const struct dut_hist_view *h)
{
	long double s, sq;

	if (h->count == 0)
		return 0;
	if (h->sum != UINT64_MAX)
		return (double)((long double)h->sum / h->count);
	bucket_moments(h, &s, &sq);
	return (double)(s / h->count);
}

double dut_hist_view_stddev(const struct dut_hist_view *h)
{
	unsigned __int128 n_sumsq, sum_sq;
	long double n = h->count, s, sq, var;

	if (h->count < 2)
		return 0;
	/* n*sumsq - sum^2 >= 0 exactly, by Cauchy-Schwarz, when nothing overflows */
	if (!moments_saturated(h) &&
	    !__builtin_mul_overflow(h->sumsq, (unsigned __int128)h->count, &n_sumsq) &&
	    !__builtin_mul_overflow((unsigned __int128)h->sum, h->sum, &sum_sq))
		return (double)sqrtl((long double)(n_sumsq - sum_sq) / (n * n));
	if (!moments_saturated(h)) {
		s = h->sum;
		sq = (long double)h->sumsq;
	} else {
		bucket_moments(h, &s, &sq);
	}
	var = sq / n - (s / n) * (s / n);
	return var > 0 ? (double)sqrtl(var) : 0;
}

void dut_hist_view_summarize(const struct dut_hist_view *h, struct dut_hist_summary *ret)
{
	static const double pcts[] = { 50, 90, 99, 99.9, 99.99 };
	uint64_t v[5];

	percentiles(h, pcts, v, 5);
	*ret = (struct dut_hist_summary) {
		.count = h->count,
		.min = h->count ? h->min : 0,
		.max = h->max,
		.mean = dut_hist_view_mean(h),
		.stddev = dut_hist_view_stddev(h),
		.p50 = v[0], .p90 = v[1], .p99 = v[2], .p999 = v[3], .p9999 = v[4],
	};
}
