/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Log-linear latency histogram (see lib/hist.h for the bucket layout).
 *
 * The bucket of a value and the owner's add are inline in lib/hist.h (the
 * index arithmetic is explained there).
 *
 * Concurrency: the owner thread is the only writer.  Its stores to the
 * 64-bit fields are relaxed atomics (plain moves on x86-64 and arm64) and
 * count is stored last with release order, so dut_hist_snapshot() can read
 * count, copy, re-read count and retry when an add raced with the copy.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hist.h"

#define SUB_COUNT (1u << (DUT_HIST_SUB_BITS - 1))      /* sub-buckets per power of two */
#define LAST_BUCKET (DUT_HIST_NBUCKETS - 1)

#define LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)

_Static_assert(DUT_HIST_SUB_BITS >= 2 && DUT_HIST_MAX_BITS < 64 &&
	       DUT_HIST_MAX_BITS > DUT_HIST_SUB_BITS, "bucket layout");

void dut_hist_init(struct dut_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

struct dut_hist *dut_hist_new(void)
{
	struct dut_hist *h = malloc(sizeof(*h));

	if (h)
		dut_hist_init(h);
	return h;
}

void dut_hist_free(struct dut_hist *h)
{
	free(h);
}

void dut_hist_reset(struct dut_hist *h)
{
	dut_hist_init(h);
}

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

/*
 * Many writers, no lock: every field is a read-modify-write atomic.  The
 * buckets, count and the low word of sumsq are fetch-adds; min, max, sum
 * and the high word of sumsq are compare-and-swap loops (they retry only
 * when another writer changed the same word in between, and min/max only
 * when v is a new extreme).  sumsq is kept as two 64-bit words because a
 * 128-bit atomic needs cmpxchg16b (libatomic would take a lock): the carry
 * out of the low word is known from the value fetch_add returns, so the
 * words add up exactly; the high word saturates, and a saturated high
 * word is what dut_hist_stddev() treats as a saturated sumsq.  count is
 * added last with release order, as dut_hist_add() stores it, so
 * dut_hist_snapshot() works on a shared histogram too.
 */
typedef uint64_t __attribute__((may_alias)) word_alias;

static void cas_sat_add(uint64_t *p, uint64_t v)
{
	uint64_t cur = LOAD(p);

	while (!__atomic_compare_exchange_n(p, &cur, dut_hist_sat_add64(cur, v), true, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED))
		;
}

void dut_hist_add_shared(struct dut_hist *h, uint64_t v)
{
	unsigned __int128 sq = (unsigned __int128)v * v;
	word_alias *w = (word_alias *)&h->sumsq;
	unsigned lo_i = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? 0 : 1;
	uint64_t sq_lo = (uint64_t)sq, sq_hi = (uint64_t)(sq >> 64), old_lo, cur;

	__atomic_fetch_add(&h->buckets[dut_hist_bucket(v)], 1, __ATOMIC_RELAXED);
	cur = LOAD(&h->min);
	while (v < cur && !__atomic_compare_exchange_n(&h->min, &cur, v, true, __ATOMIC_RELAXED,
						       __ATOMIC_RELAXED))
		;
	cur = LOAD(&h->max);
	while (v > cur && !__atomic_compare_exchange_n(&h->max, &cur, v, true, __ATOMIC_RELAXED,
						       __ATOMIC_RELAXED))
		;
	cas_sat_add(&h->sum, v);
	old_lo = __atomic_fetch_add(&w[lo_i], sq_lo, __ATOMIC_RELAXED);
	sq_hi += old_lo + sq_lo < old_lo;  /* the carry; sq_hi < 2^64 - 1, so no wrap */
	if (sq_hi)
		cas_sat_add(&w[1 - lo_i], sq_hi);
	__atomic_fetch_add(&h->count, 1, __ATOMIC_RELEASE);
}

void dut_hist_add_n(struct dut_hist *h, uint64_t v, uint64_t n)
{
	unsigned idx = dut_hist_bucket(v);
	unsigned __int128 sq = (unsigned __int128)v * v, sqn;
	uint64_t vn;

	if (n == 0)
		return;
	if (__builtin_mul_overflow(v, n, &vn))
		vn = UINT64_MAX;
	if (__builtin_mul_overflow(sq, (unsigned __int128)n, &sqn))
		sqn = ~(unsigned __int128)0;
	STORE(&h->buckets[idx], h->buckets[idx] + n);
	if (v < h->min)
		STORE(&h->min, v);
	if (v > h->max)
		STORE(&h->max, v);
	STORE(&h->sum, dut_hist_sat_add64(h->sum, vn));
	h->sumsq = dut_hist_sat_add128(h->sumsq, sqn);
	__atomic_store_n(&h->count, h->count + n, __ATOMIC_RELEASE);
}

/*
 * Saturating addition of non-negative numbers is associative
 * (min(a + b + c, MAX) whichever way it is grouped), so merging in any
 * order gives the same sum/sumsq as one histogram fed every value.
 */
void dut_hist_merge(struct dut_hist *dst, const struct dut_hist *src)
{
	for (unsigned i = 0; i < DUT_HIST_NBUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->sum = dut_hist_sat_add64(dst->sum, src->sum);
	dst->sumsq = dut_hist_sat_add128(dst->sumsq, src->sumsq);
	dst->count += src->count;
}

/*
 * The buckets are copied as they are (racy per bucket, as documented); the
 * scalars are read seqlock-style: count is stored last by the owner, so an
 * unchanged count around the reads means no add completed in between and
 * sum/sumsq/min/max are those of `count` adds plus at most the one in
 * flight.  The window is a few loads wide, so even against an owner adding
 * flat out a retry soon succeeds; the bound only keeps a reader from
 * spinning forever.  (On weakly ordered CPUs the owner's relaxed stores of
 * the next add may overtake the release of count, so there "one add" can
 * be a few.)
 */
void dut_hist_snapshot(struct dut_hist *dst, const struct dut_hist *src)
{
	uint64_t before = 0, after;

	for (unsigned i = 0; i < DUT_HIST_NBUCKETS; i++)
		dst->buckets[i] = LOAD(&src->buckets[i]);
	for (int tries = 0; tries < 1000; tries++) {
		before = __atomic_load_n(&src->count, __ATOMIC_ACQUIRE);
		dst->min = LOAD(&src->min);
		dst->max = LOAD(&src->max);
		dst->sum = LOAD(&src->sum);
		/* no 128-bit atomic load without cmpxchg16b: a torn copy is
		 * caught by the count re-check like any other race */
		memcpy(&dst->sumsq, (const void *)&src->sumsq, sizeof(dst->sumsq));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		after = LOAD(&src->count);
		if (before == after)
			break;
	}
	dst->count = before;
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

static uint64_t bucket_value(const struct dut_hist *h, unsigned idx)
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
static void percentiles(const struct dut_hist *h, const double *pcts, uint64_t *ret,
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
		while (idx < DUT_HIST_NBUCKETS && cum + h->buckets[idx] < rank)
			cum += h->buckets[idx++];
		/* buckets summing to less than count: a racy snapshot */
		ret[j] = idx < DUT_HIST_NBUCKETS ? bucket_value(h, idx) : h->max;
	}
}

uint64_t dut_hist_percentile(const struct dut_hist *h, double pct)
{
	uint64_t v;

	percentiles(h, &pct, &v, 1);
	return v;
}

/* Sum and sum of squares from bucket midpoints, for when the exact ones saturated. */
static void bucket_moments(const struct dut_hist *h, long double *ret_sum,
			   long double *ret_sumsq)
{
	long double s = 0, sq = 0;

	for (unsigned i = 0; i < DUT_HIST_NBUCKETS; i++) {
		long double v, n = h->buckets[i];

		if (!h->buckets[i])
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
static bool moments_saturated(const struct dut_hist *h)
{
	return h->sum == UINT64_MAX || (uint64_t)(h->sumsq >> 64) == UINT64_MAX;
}

double dut_hist_mean(const struct dut_hist *h)
{
	long double s, sq;

	if (h->count == 0)
		return 0;
	if (h->sum != UINT64_MAX)
		return (double)((long double)h->sum / h->count);
	bucket_moments(h, &s, &sq);
	return (double)(s / h->count);
}

double dut_hist_stddev(const struct dut_hist *h)
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

void dut_hist_summarize(const struct dut_hist *h, struct dut_hist_summary *ret)
{
	static const double pcts[] = { 50, 90, 99, 99.9, 99.99 };
	uint64_t v[5];

	percentiles(h, pcts, v, 5);
	*ret = (struct dut_hist_summary) {
		.count = h->count,
		.min = h->count ? h->min : 0,
		.max = h->max,
		.mean = dut_hist_mean(h),
		.stddev = dut_hist_stddev(h),
		.p50 = v[0], .p90 = v[1], .p99 = v[2], .p999 = v[3], .p9999 = v[4],
	};
}
