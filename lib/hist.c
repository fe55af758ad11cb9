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
#include <stdlib.h>
#include <string.h>

#include "lib/hist.h"
#include "lib/hist_view.h"


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

/* Exact in any order: DUT_HIST_SCALARS_MERGE (hist_view.h) says why. */
void dut_hist_merge(struct dut_hist *dst, const struct dut_hist *src)
{
	for (unsigned i = 0; i < DUT_HIST_NBUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
	DUT_HIST_SCALARS_MERGE(dst, src);
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

static void view_of(const struct dut_hist *h, struct dut_hist_view *ret)
{
	ret->count = h->count;
	ret->min = h->min;
	ret->max = h->max;
	ret->sum = h->sum;
	ret->sumsq = h->sumsq;
	ret->dense = true;
	ret->wide = 0;
	for (unsigned c = 0; c < DUT_HIST_NCHUNKS; c++)
		ret->chunk[c] = &h->buckets[c * DUT_HIST_CHUNK];
}

uint64_t dut_hist_percentile(const struct dut_hist *h, double pct)
{
	struct dut_hist_view v;

	view_of(h, &v);
	return dut_hist_view_percentile(&v, pct);
}

double dut_hist_mean(const struct dut_hist *h)
{
	struct dut_hist_view v;

	view_of(h, &v);
	return dut_hist_view_mean(&v);
}

double dut_hist_stddev(const struct dut_hist *h)
{
	struct dut_hist_view v;

	view_of(h, &v);
	return dut_hist_view_stddev(&v);
}

void dut_hist_summarize(const struct dut_hist *h, struct dut_hist_summary *ret)
{
	struct dut_hist_view v;

	view_of(h, &v);
	dut_hist_view_summarize(&v, ret);
}
