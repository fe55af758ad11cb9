/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lib/hist.h"
#include "tests/cu_main.h"

DUT_DEFINE_FREEP(struct dut_hist *, dut_hist_free)
#define _cleanup_hist_ _cleanup_(dut_hist_freep)

/* splitmix64: a reproducible stream, no libc rand() state shared with anything */
static uint64_t rng_next(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Log-uniform in [lo, hi]: every decade equally represented. */
static uint64_t rng_loguniform(uint64_t *state, double lo, double hi)
{
	double u = (double)(rng_next(state) >> 11) / (double)(UINT64_C(1) << 53);

	return (uint64_t)llround(exp(log(lo) + u * (log(hi) - log(lo))));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void test_bucket_index_of_chosen_values(void)
{
	static const struct {
		uint64_t v;
		unsigned idx;
	} rows[] = {
		{ 0, 0 }, { 1, 1 }, { 63, 63 }, { 64, 64 }, { 127, 127 },
		/* first log-linear group: width 2 */
		{ 128, 128 }, { 129, 128 }, { 130, 129 }, { 255, 191 },
		/* second: width 4 */
		{ 256, 192 }, { 259, 192 }, { 260, 193 }, { 511, 255 },
		{ 1000, 64 * 3 + (1000 >> 3) },            /* 2^9 <= 1000 < 2^10: s = 3 */
		{ 1000000, 64 * 13 + (1000000 >> 13) },     /* 2^19 <= 1e6 < 2^20: s = 13 */
		{ (UINT64_C(1) << 39) - 1, DUT_HIST_NBUCKETS - 1 },
		{ UINT64_C(1) << 39, DUT_HIST_NBUCKETS - 1 },
		{ UINT64_C(1) << 63, DUT_HIST_NBUCKETS - 1 },
		{ UINT64_MAX, DUT_HIST_NBUCKETS - 1 },
	};

	CU_ASSERT_EQUAL(DUT_HIST_NBUCKETS, 2176);
	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		unsigned idx = dut_hist_bucket(rows[i].v);

		CU_CHECK(idx == rows[i].idx, "row %zu v=%" PRIu64 ": bucket %u, want %u", i,
			 rows[i].v, idx, rows[i].idx);
	}
}

/* Every bucket boundary: ranges tile 0..UINT64_MAX, and index(range) == bucket. */
static void test_bucket_ranges_round_trip_at_every_boundary(void)
{
	uint64_t prev_hi = 0;

	for (unsigned i = 0; i < DUT_HIST_NBUCKETS; i++) {
		uint64_t lo = 1, hi = 0;

		dut_hist_bucket_range(i, &lo, &hi);
		CU_CHECK(lo <= hi, "bucket %u: lo %" PRIu64 " > hi %" PRIu64, i, lo, hi);
		CU_CHECK(i == 0 ? lo == 0 : lo == prev_hi + 1,
			 "bucket %u: lo %" PRIu64 " does not follow previous hi %" PRIu64,
			 i, lo, prev_hi);
		CU_CHECK(dut_hist_bucket(lo) == i, "bucket %u: index(lo=%" PRIu64 ") = %u",
			 i, lo, dut_hist_bucket(lo));
		CU_CHECK(dut_hist_bucket(hi) == i, "bucket %u: index(hi=%" PRIu64 ") = %u",
			 i, hi, dut_hist_bucket(hi));
		if (lo > 0)
			CU_CHECK(dut_hist_bucket(lo - 1) == i - 1, "bucket %u: index(lo-1) = %u",
				 i, dut_hist_bucket(lo - 1));
		/* width bound from the header: < 1/64 of the value (not the open last one) */
		if (i + 1 < DUT_HIST_NBUCKETS)
			CU_CHECK((hi - lo + 1) * 64 <= (lo > 64 ? lo : 64),
				 "bucket %u: width %" PRIu64 " at %" PRIu64 " too coarse",
				 i, hi - lo + 1, lo);
		prev_hi = hi;
	}
	CU_ASSERT_EQUAL(prev_hi, UINT64_MAX);
}

/* Exact percentile by the header's definition: the ceil(p*n)-th smallest value. */
static uint64_t exact_percentile(const uint64_t *sorted, uint64_t n, unsigned p_per_10000)
{
	uint64_t rank = (n * p_per_10000 + 9999) / 10000;

	return sorted[(rank ? rank : 1) - 1];
}

static const struct {
	const char *name;
	double pct;
	unsigned per10000;
} pct_rows[] = {
	{ "p50", 50, 5000 }, { "p90", 90, 9000 }, { "p99", 99, 9900 },
	{ "p99.9", 99.9, 9990 }, { "p99.99", 99.99, 9999 }, { "p100", 100, 10000 },
	{ "p1", 1, 100 }, { "p25", 25, 2500 }, { "p99.5", 99.5, 9950 },
};

/* 10k log-uniform values from 100 ns to 100 s: midpoint error <= 1 % (header: 0.8 %). */
static void test_percentiles_within_one_percent_from_100ns_to_100s(void)
{
	static const uint64_t counts[] = { 1, 2, 3, 7, 100, 1001, 10000 };
	enum { N = 10000 };
	_cleanup_free_ uint64_t *vals = malloc(N * sizeof(*vals));
	_cleanup_hist_ struct dut_hist *h = dut_hist_new();
	double worst = 0;

	CU_ASSERT_FATAL(vals && h);
	for (size_t c = 0; c < DUT_ARRAY_SIZE(counts); c++) {
		uint64_t seed = 42 + c, n = counts[c];

		dut_hist_reset(h);
		for (uint64_t i = 0; i < n; i++) {
			vals[i] = rng_loguniform(&seed, 100, 100e9);
			dut_hist_add(h, vals[i]);
		}
		qsort(vals, n, sizeof(*vals), cmp_u64);
		for (size_t r = 0; r < DUT_ARRAY_SIZE(pct_rows); r++) {
			uint64_t want = exact_percentile(vals, n, pct_rows[r].per10000);
			uint64_t got = dut_hist_percentile(h, pct_rows[r].pct);
			double rel = fabs((double)got - (double)want) / (double)want;

			if (rel > worst)
				worst = rel;
			CU_CHECK(rel <= 0.0079, "n=%" PRIu64 " %s: got %" PRIu64 ", exact %" PRIu64
				 " (%.3f %%)", n, pct_rows[r].name, got, want, rel * 100);
		}
		CU_CHECK(dut_hist_percentile(h, 100) == vals[n - 1], "n=%" PRIu64 ": p100 != max", n);
		CU_CHECK(h->min == vals[0] && h->max == vals[n - 1], "n=%" PRIu64 ": min/max", n);
	}
	/* the sweep must have exercised the error bound, not only exact buckets */
	CU_CHECK(worst > 0.001, "worst relative error %.5f: suspiciously exact", worst);
}

static void test_percentiles_of_small_values_are_exact(void)
{
	_cleanup_hist_ struct dut_hist *h = dut_hist_new();
	uint64_t vals[100];

	CU_ASSERT_FATAL(h != NULL);
	for (unsigned i = 0; i < 100; i++) {
		vals[i] = (i * 37) % 100 + 20;          /* 20..119, exact buckets */
		dut_hist_add(h, vals[i]);
	}
	qsort(vals, 100, sizeof(*vals), cmp_u64);
	for (size_t r = 0; r < DUT_ARRAY_SIZE(pct_rows); r++) {
		uint64_t want = exact_percentile(vals, 100, pct_rows[r].per10000);
		uint64_t got = dut_hist_percentile(h, pct_rows[r].pct);

		CU_CHECK(got == want, "%s: got %" PRIu64 ", want %" PRIu64, pct_rows[r].name,
			 got, want);
	}
}

/* Reference moments by two passes in long double. */
static void exact_moments(const uint64_t *v, size_t n, double *ret_mean, double *ret_sd)
{
	long double s = 0, ss = 0, mean;

	for (size_t i = 0; i < n; i++)
		s += v[i];
	mean = s / n;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - mean) * (v[i] - mean);
	*ret_mean = (double)mean;
	*ret_sd = (double)sqrtl(ss / n);
}

static void test_mean_and_stddev_match_exact_computation(void)
{
	static const struct {
		const char *name;
		double lo, hi;
		size_t n;
	} rows[] = {
		{ "wide 100ns..100s", 100, 100e9, 5000 },
		{ "narrow around 80us (cancellation)", 80000, 80100, 5000 },
		{ "two values", 1000, 3000, 2 },
	};
	_cleanup_free_ uint64_t *vals = malloc(5000 * sizeof(*vals));
	_cleanup_hist_ struct dut_hist *h = dut_hist_new();

	CU_ASSERT_FATAL(vals && h);
	for (size_t r = 0; r < DUT_ARRAY_SIZE(rows); r++) {
		uint64_t seed = 7 + r;
		double mean, sd;

		dut_hist_reset(h);
		for (size_t i = 0; i < rows[r].n; i++) {
			vals[i] = rng_loguniform(&seed, rows[r].lo, rows[r].hi);
			dut_hist_add(h, vals[i]);
		}
		exact_moments(vals, rows[r].n, &mean, &sd);
		CU_CHECK(fabs(dut_hist_mean(h) - mean) <= 1e-12 * mean,
			 "%s: mean %.6f, exact %.6f", rows[r].name, dut_hist_mean(h), mean);
		CU_CHECK(fabs(dut_hist_stddev(h) - sd) <= 1e-9 * sd + 1e-9,
			 "%s: stddev %.9f, exact %.9f", rows[r].name, dut_hist_stddev(h), sd);
	}
	/* two values: the population stddev is half their distance */
	CU_ASSERT_DOUBLE_EQUAL(dut_hist_stddev(h), fabs((double)vals[0] - (double)vals[1]) / 2, 1e-9);
}

static void test_empty_histogram_reports_zeros(void)
{
	struct dut_hist h;
	struct dut_hist_summary s;

	memset(&s, 0xa5, sizeof(s));
	dut_hist_init(&h);
	CU_ASSERT_EQUAL(h.count, 0);
	CU_ASSERT_EQUAL(h.min, UINT64_MAX);
	for (size_t r = 0; r < DUT_ARRAY_SIZE(pct_rows); r++)
		CU_CHECK(dut_hist_percentile(&h, pct_rows[r].pct) == 0, "%s of empty",
			 pct_rows[r].name);
	CU_ASSERT_EQUAL(dut_hist_mean(&h), 0);
	CU_ASSERT_EQUAL(dut_hist_stddev(&h), 0);
	dut_hist_summarize(&h, &s);
	CU_ASSERT(s.count == 0 && s.min == 0 && s.max == 0 && s.mean == 0 && s.stddev == 0);
	CU_ASSERT(s.p50 == 0 && s.p90 == 0 && s.p99 == 0 && s.p999 == 0 && s.p9999 == 0);
}

static void test_single_value_is_every_percentile(void)
{
	static const uint64_t vals[] = { 0, 1, 127, 128, 12345, 987654321, UINT64_C(1) << 45 };

	for (size_t i = 0; i < DUT_ARRAY_SIZE(vals); i++) {
		struct dut_hist h;
		struct dut_hist_summary s;

		dut_hist_init(&h);
		dut_hist_add(&h, vals[i]);
		dut_hist_summarize(&h, &s);
		CU_CHECK(s.count == 1 && s.min == vals[i] && s.max == vals[i],
			 "v=%" PRIu64 ": count/min/max", vals[i]);
		/* clamping the midpoint to [min, max] makes one value exact */
		CU_CHECK(s.p50 == vals[i] && s.p90 == vals[i] && s.p99 == vals[i] &&
			 s.p999 == vals[i] && s.p9999 == vals[i], "v=%" PRIu64 ": percentiles", vals[i]);
		CU_CHECK(s.mean == (double)vals[i] && s.stddev == 0, "v=%" PRIu64 ": mean %f sd %f",
			 vals[i], s.mean, s.stddev);
	}
}

static void test_extreme_values_zero_and_uint64_max(void)
{
	struct dut_hist h;
	unsigned __int128 maxsq = (unsigned __int128)UINT64_MAX * UINT64_MAX;
	double mean;

	dut_hist_init(&h);
	dut_hist_add(&h, 0);
	dut_hist_add(&h, UINT64_MAX);
	CU_ASSERT_EQUAL(h.count, 2);
	CU_ASSERT_EQUAL(h.min, 0);
	CU_ASSERT_EQUAL(h.max, UINT64_MAX);
	CU_ASSERT_EQUAL(h.sum, UINT64_MAX);
	CU_ASSERT(h.sumsq == maxsq);                     /* exact: (2^64-1)^2 < 2^128 */
	CU_ASSERT_EQUAL(h.buckets[0], 1);
	CU_ASSERT_EQUAL(h.buckets[DUT_HIST_NBUCKETS - 1], 1);
	CU_ASSERT_EQUAL(dut_hist_percentile(&h, 50), 0);
	CU_ASSERT_EQUAL(dut_hist_percentile(&h, 100), UINT64_MAX);

	/* one below: the sum is exact, so mean and stddev are too (2^63 - 1) */
	dut_hist_init(&h);
	dut_hist_add(&h, 0);
	dut_hist_add(&h, UINT64_MAX - 1);
	CU_ASSERT_DOUBLE_EQUAL(dut_hist_mean(&h), 0x1p63, 1);
	CU_ASSERT_DOUBLE_EQUAL(dut_hist_stddev(&h), 0x1p63, 0x1p63 * 1e-12);

	/* saturation: sum and sumsq stick at their maximum, nothing wraps */
	dut_hist_add(&h, UINT64_MAX);
	dut_hist_add_n(&h, UINT64_MAX, UINT64_C(1) << 40);
	CU_ASSERT_EQUAL(h.sum, UINT64_MAX);
	CU_ASSERT(h.sumsq == ~(unsigned __int128)0);
	CU_ASSERT_EQUAL(h.count, 3 + (UINT64_C(1) << 40));
	mean = dut_hist_mean(&h);
	CU_CHECK(isfinite(mean) && mean >= 0 && mean <= 0x1p64, "saturated mean %g", mean);
	CU_CHECK(isfinite(dut_hist_stddev(&h)), "saturated stddev %g", dut_hist_stddev(&h));
	/* the open last bucket knows only [lo, max]: its midpoint stands for them */
	CU_ASSERT_EQUAL(dut_hist_bucket(dut_hist_percentile(&h, 50)), DUT_HIST_NBUCKETS - 1);
}

static void test_add_n_equals_n_adds(void)
{
	struct dut_hist a, b;

	dut_hist_init(&a);
	dut_hist_init(&b);
	for (int i = 0; i < 1000; i++)
		dut_hist_add(&a, 4242);
	dut_hist_add_n(&b, 4242, 1000);
	dut_hist_add_n(&b, 1, 0);           /* n = 0 must not touch min */
	CU_ASSERT(memcmp(&a, &b, sizeof(a)) == 0);
}

static void check_same(const struct dut_hist *a, const struct dut_hist *b, const char *what)
{
	CU_CHECK(a->count == b->count, "%s: count %" PRIu64 " vs %" PRIu64, what, a->count, b->count);
	CU_CHECK(a->min == b->min && a->max == b->max, "%s: min/max differ", what);
	CU_CHECK(a->sum == b->sum, "%s: sum %" PRIu64 " vs %" PRIu64, what, a->sum, b->sum);
	CU_CHECK(a->sumsq == b->sumsq, "%s: sumsq differs", what);
	CU_CHECK(memcmp(a->buckets, b->buckets, sizeof(a->buckets)) == 0, "%s: buckets differ", what);
	for (size_t r = 0; r < DUT_ARRAY_SIZE(pct_rows); r++)
		CU_CHECK(dut_hist_percentile(a, pct_rows[r].pct) ==
			 dut_hist_percentile(b, pct_rows[r].pct), "%s: %s differs", what,
			 pct_rows[r].name);
}

static void test_merge_is_exact(void)
{
	enum { PARTS = 8 };
	_cleanup_hist_ struct dut_hist *all = dut_hist_new();
	_cleanup_hist_ struct dut_hist *merged = dut_hist_new();
	_cleanup_free_ struct dut_hist *part = calloc(PARTS, sizeof(*part));
	struct dut_hist empty;
	uint64_t seed = 99;

	CU_ASSERT_FATAL(all && merged && part);
	for (int p = 0; p < PARTS; p++)
		dut_hist_init(&part[p]);
	for (int i = 0; i < 20000; i++) {
		uint64_t v = rng_loguniform(&seed, 1, 1e12);   /* past the last bucket too */

		dut_hist_add(all, v);
		dut_hist_add(&part[rng_next(&seed) % PARTS], v);
	}
	for (int p = 0; p < PARTS; p++)
		dut_hist_merge(merged, &part[p]);
	check_same(merged, all, "merge of 8");
	/* merging an empty histogram changes nothing (min stays) */
	dut_hist_init(&empty);
	dut_hist_merge(merged, &empty);
	check_same(merged, all, "merge of empty");
}

struct worker {
	struct dut_hist *h;
	uint64_t seed;
	int n;
};

static void *worker_add(void *arg)
{
	struct worker *w = arg;
	uint64_t seed = w->seed;

	for (int i = 0; i < w->n; i++)
		dut_hist_add(w->h, rng_loguniform(&seed, 100, 100e9));
	return NULL;
}

/* 4 threads, each its own histogram; the merge equals a serial replay. */
static void test_threads_own_histograms_and_merge_exactly(void)
{
	enum { T = 4, N = 50000 };
	_cleanup_free_ struct dut_hist *hs = calloc(T, sizeof(*hs));
	_cleanup_hist_ struct dut_hist *merged = dut_hist_new();
	_cleanup_hist_ struct dut_hist *serial = dut_hist_new();
	struct worker w[T];
	pthread_t tid[T];

	CU_ASSERT_FATAL(hs && merged && serial);
	for (int t = 0; t < T; t++) {
		dut_hist_init(&hs[t]);
		w[t] = (struct worker) { .h = &hs[t], .seed = 1000 + t, .n = N };
		CU_ASSERT_FATAL(pthread_create(&tid[t], NULL, worker_add, &w[t]) == 0);
	}
	for (int t = 0; t < T; t++)
		pthread_join(tid[t], NULL);
	for (int t = 0; t < T; t++) {
		dut_hist_merge(merged, &hs[t]);
		w[t].h = serial;
		worker_add(&w[t]);
	}
	CU_ASSERT_EQUAL(merged->count, (uint64_t)T * N);
	check_same(merged, serial, "4 threads");
}

static void *worker_add_shared(void *arg)
{
	struct worker *w = arg;
	uint64_t seed = w->seed;

	for (int i = 0; i < w->n; i++)
		dut_hist_add_shared(w->h, rng_loguniform(&seed, 100, 100e9));
	return NULL;
}

/*
 * 4 threads add to one histogram at once (dutfs's per-file histograms):
 * nothing is lost, and every field equals a serial replay with
 * dut_hist_add().  Values up to 100 s make v*v about 2^83, so the low word
 * of sumsq carries into the high one on most adds.
 */
static void test_shared_adds_from_threads_equal_serial_adds(void)
{
	enum { T = 4, N = 50000 };
	_cleanup_hist_ struct dut_hist *shared = dut_hist_new();
	_cleanup_hist_ struct dut_hist *serial = dut_hist_new();
	struct worker w[T];
	pthread_t tid[T];

	CU_ASSERT_FATAL(shared && serial);
	for (int t = 0; t < T; t++) {
		w[t] = (struct worker) { .h = shared, .seed = 2000 + t, .n = N };
		CU_ASSERT_FATAL(pthread_create(&tid[t], NULL, worker_add_shared, &w[t]) == 0);
	}
	for (int t = 0; t < T; t++)
		pthread_join(tid[t], NULL);
	for (int t = 0; t < T; t++) {
		w[t].h = serial;
		worker_add(&w[t]);
	}
	CU_ASSERT_EQUAL(shared->count, (uint64_t)T * N);
	check_same(shared, serial, "4 threads sharing one");
	CU_ASSERT_DOUBLE_EQUAL(dut_hist_stddev(shared), dut_hist_stddev(serial), 1e-6);
}

/* At the top of the range a shared histogram saturates as an owned one does:
 * sum at UINT64_MAX, and mean/stddev from the buckets, equal to the owned one's. */
static void test_shared_adds_saturate_like_owned_adds(void)
{
	_cleanup_hist_ struct dut_hist *shared = dut_hist_new();
	_cleanup_hist_ struct dut_hist *owned = dut_hist_new();
	const uint64_t vals[] = { UINT64_MAX, UINT64_MAX, 1000, UINT64_MAX / 3 };

	CU_ASSERT_FATAL(shared && owned);
	for (size_t i = 0; i < DUT_ARRAY_SIZE(vals); i++) {
		dut_hist_add_shared(shared, vals[i]);
		dut_hist_add(owned, vals[i]);
	}
	CU_ASSERT_EQUAL(shared->sum, UINT64_MAX);
	CU_ASSERT_EQUAL((uint64_t)(shared->sumsq >> 64), UINT64_MAX);
	CU_ASSERT_EQUAL(shared->count, owned->count);
	CU_ASSERT_EQUAL(shared->min, 1000);
	CU_ASSERT_EQUAL(shared->max, UINT64_MAX);
	CU_ASSERT_DOUBLE_EQUAL(dut_hist_mean(shared), dut_hist_mean(owned), 1.0);
	CU_ASSERT_DOUBLE_EQUAL(dut_hist_stddev(shared), dut_hist_stddev(owned), 1.0);
}

struct live {
	struct dut_hist *h;
	volatile int stop;
};

static void *owner_adds(void *arg)
{
	struct live *l = arg;

	for (int i = 0; i < 2000000 && !l->stop; i++)
		dut_hist_add(l->h, 1000);
	return NULL;
}

/* Live reader against an owner adding flat out: count and sum agree to one add. */
static void test_snapshot_of_live_histogram_is_consistent(void)
{
	_cleanup_hist_ struct dut_hist *h = dut_hist_new();
	_cleanup_hist_ struct dut_hist *snap = dut_hist_new();
	struct live l = { .h = h };
	pthread_t tid;
	uint64_t last = 0;
	int bad = 0;

	CU_ASSERT_FATAL(h && snap);
	CU_ASSERT_FATAL(pthread_create(&tid, NULL, owner_adds, &l) == 0);
	for (int i = 0; i < 2000; i++) {
		dut_hist_snapshot(snap, h);
		if (snap->sum != snap->count * 1000 && snap->sum != (snap->count + 1) * 1000)
			bad++;
		if (snap->count < last)
			bad++;
		last = snap->count;
		(void)dut_hist_percentile(snap, 99);
	}
	l.stop = 1;
	pthread_join(tid, NULL);
	CU_CHECK(bad == 0, "%d of 2000 snapshots had count/sum more than one add apart", bad);
	dut_hist_snapshot(snap, h);
	check_same(snap, h, "quiescent snapshot");
}

static const struct cu_test tests[] = {
	{ "bucket_index_of_chosen_values", test_bucket_index_of_chosen_values },
	{ "bucket_ranges_round_trip_at_every_boundary", test_bucket_ranges_round_trip_at_every_boundary },
	{ "percentiles_within_one_percent_from_100ns_to_100s",
	  test_percentiles_within_one_percent_from_100ns_to_100s },
	{ "percentiles_of_small_values_are_exact", test_percentiles_of_small_values_are_exact },
	{ "mean_and_stddev_match_exact_computation", test_mean_and_stddev_match_exact_computation },
	{ "empty_histogram_reports_zeros", test_empty_histogram_reports_zeros },
	{ "single_value_is_every_percentile", test_single_value_is_every_percentile },
	{ "extreme_values_zero_and_uint64_max", test_extreme_values_zero_and_uint64_max },
	{ "add_n_equals_n_adds", test_add_n_equals_n_adds },
	{ "merge_is_exact", test_merge_is_exact },
	{ "threads_own_histograms_and_merge_exactly", test_threads_own_histograms_and_merge_exactly },
	{ "snapshot_of_live_histogram_is_consistent", test_snapshot_of_live_histogram_is_consistent },
	{ "shared_adds_from_threads_equal_serial_adds", test_shared_adds_from_threads_equal_serial_adds },
	{ "shared_adds_saturate_like_owned_adds", test_shared_adds_saturate_like_owned_adds },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "hist", .tests = tests };
