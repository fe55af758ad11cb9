/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The sparse histogram answers as the dense one fed the same values. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lib/hist.h"
#include "lib/hist_sparse.h"
#include "tests/cu_main.h"

DUT_DEFINE_FREEP(struct dut_hist *, dut_hist_free)
DUT_DEFINE_FREEP(struct dut_shist *, dut_shist_free)

static uint64_t rng_next(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Values of the kind `shape` names: 0 narrow, 1 every power of two, 2 tiny and huge. */
static uint64_t value(uint64_t *st, int shape)
{
	uint64_t x = rng_next(st);

	switch (shape) {
	case 0: return 100000 + x % 50000;
	case 1: return x >> (x % 64);
	default: return x % 3 == 0 ? x % 200 : x % 3 == 1 ? UINT64_MAX - x % 5 : (UINT64_C(1) << 39) + x % 7;
	}
}

/* Bucket i of a sparse histogram, whatever its chunk's width. */
static uint64_t sbucket(const struct dut_shist *s, unsigned i)
{
	unsigned c = i / DUT_HIST_CHUNK;

	if (!s->chunk[c])
		return 0;
	return s->chunk[c][i % DUT_HIST_CHUNK] |
	       (s->wide >> c & 1 ? (uint64_t)s->chunk[c][DUT_HIST_CHUNK + i % DUT_HIST_CHUNK] << 32 : 0);
}

static unsigned chunks_of(const struct dut_shist *h)
{
	unsigned n = 0;

	for (unsigned c = 0; c < DUT_HIST_NCHUNKS; c++)
		n += h->chunk[c] != NULL;
	return n;
}

static void check_same(const struct dut_hist *d, const struct dut_shist *s, const char *what)
{
	static const double pcts[] = { 0, 1, 25, 50, 90, 99, 99.9, 99.99, 100, 150 };
	struct dut_hist_summary a, b;
	unsigned bad = 0;

	CU_CHECK(d->count == s->count && d->min == s->min && d->max == s->max && d->sum == s->sum &&
		 d->sumsq == s->sumsq, "%s: count %" PRIu64 "/%" PRIu64 ", min, max, sum or sumsq differ",
		 what, d->count, s->count);
	for (unsigned i = 0; i < DUT_HIST_NBUCKETS; i++)
		bad += d->buckets[i] != sbucket(s, i);
	CU_CHECK(bad == 0, "%s: %u buckets differ", what, bad);
	for (size_t i = 0; i < DUT_ARRAY_SIZE(pcts); i++)
		CU_CHECK(dut_hist_percentile(d, pcts[i]) == dut_shist_percentile(s, pcts[i]),
			 "%s: p%g %" PRIu64 " vs %" PRIu64, what, pcts[i], dut_hist_percentile(d, pcts[i]),
			 dut_shist_percentile(s, pcts[i]));
	dut_hist_summarize(d, &a);
	dut_shist_summarize(s, &b);
	CU_CHECK(memcmp(&a, &b, sizeof(a)) == 0, "%s: summaries differ (mean %g vs %g)", what, a.mean, b.mean);
	CU_CHECK(dut_hist_mean(d) == dut_shist_mean(s), "%s: mean %g vs %g", what, dut_hist_mean(d),
		 dut_shist_mean(s));
}

static void test_adds_answer_as_the_dense_histogram(void)
{
	for (int shape = 0; shape < 3; shape++) {
		_cleanup_(dut_hist_freep) struct dut_hist *d = dut_hist_new();
		_cleanup_(dut_shist_freep) struct dut_shist *s = dut_shist_new();
		uint64_t st = 7 + (uint64_t)shape;
		char what[32];

		if (!d || !s) {
			CU_FAIL("out of memory");
			return;
		}
		snprintf(what, sizeof(what), "shape %d", shape);
		check_same(d, s, "empty");
		CU_ASSERT_EQUAL(chunks_of(s), 0);
		for (int i = 0; i < 20000; i++) {
			uint64_t v = value(&st, shape);

			dut_hist_add(d, v);
			CU_ASSERT_EQUAL_FATAL(dut_shist_add(s, v), 0);
		}
		check_same(d, s, what);
		/* narrow values live in few chunks: what makes it small */
		if (shape == 0)
			CU_CHECK(chunks_of(s) <= 2, "100-150 us in %u chunks", chunks_of(s));
	}
}

static void test_merges_answer_as_the_dense_merge(void)
{
	_cleanup_(dut_hist_freep) struct dut_hist *d = dut_hist_new(), *dd = dut_hist_new();
	_cleanup_(dut_shist_freep) struct dut_shist *a = dut_shist_new(), *b = dut_shist_new();
	uint64_t st = 99;

	if (!d || !dd || !a || !b) {
		CU_FAIL("out of memory");
		return;
	}
	for (int i = 0; i < 5000; i++) {
		uint64_t v = value(&st, 0), w = value(&st, 1 + i % 2);

		dut_hist_add(d, v);
		dut_hist_add(d, w);
		CU_ASSERT_EQUAL_FATAL(dut_shist_add(a, v), 0);
		CU_ASSERT_EQUAL_FATAL(dut_shist_add(b, w), 0);
	}
	/* sparse into sparse: b's chunks a lacks are made */
	CU_ASSERT_EQUAL(dut_shist_merge(a, b), 0);
	check_same(d, a, "sparse merge");
	/* sparse into dense */
	dut_hist_merge_sparse(dd, a);
	check_same(dd, a, "merge into a dense histogram");
	/* an empty one merges as nothing */
	dut_shist_reset(b);
	CU_ASSERT_EQUAL(dut_shist_merge(a, b), 0);
	check_same(d, a, "empty merged");
}

static void test_reset_keeps_chunks_and_counts_nothing(void)
{
	_cleanup_(dut_hist_freep) struct dut_hist *d = dut_hist_new();
	_cleanup_(dut_shist_freep) struct dut_shist *s = dut_shist_new();
	unsigned n;

	if (!d || !s) {
		CU_FAIL("out of memory");
		return;
	}
	for (uint64_t v = 1; v < (UINT64_C(1) << 40); v *= 3)
		CU_ASSERT_EQUAL_FATAL(dut_shist_add(s, v), 0);
	n = chunks_of(s);
	CU_ASSERT(n > 10);
	dut_shist_reset(s);
	CU_ASSERT_EQUAL(chunks_of(s), n);
	check_same(d, s, "reset");
	dut_hist_add(d, 12345);
	CU_ASSERT_EQUAL(dut_shist_add(s, 12345), 0);
	check_same(d, s, "one value after a reset");
}

static void test_saturated_sums_fall_back_alike(void)
{
	_cleanup_(dut_hist_freep) struct dut_hist *d = dut_hist_new();
	_cleanup_(dut_shist_freep) struct dut_shist *s = dut_shist_new();

	if (!d || !s) {
		CU_FAIL("out of memory");
		return;
	}
	for (int i = 0; i < 4; i++) {
		dut_hist_add(d, UINT64_MAX / 2);
		CU_ASSERT_EQUAL(dut_shist_add(s, UINT64_MAX / 2), 0);
	}
	CU_ASSERT_EQUAL(s->sum, UINT64_MAX);
	check_same(d, s, "saturated");
}

/*
 * A bucket at 2^32 - 1 in a 32-bit chunk: one more value carries into the
 * chunk's new high words and counts on exactly (the test sets the count
 * instead of adding 4 billion values: the dense histogram gets them with
 * add_n).
 */
static void set_full(struct dut_hist *d, struct dut_shist *s, uint64_t v)
{
	unsigned idx = dut_hist_bucket(v);

	dut_hist_add_n(d, v, UINT32_MAX);
	CU_ASSERT_EQUAL_FATAL(dut_shist_add(s, v), 0);
	s->chunk[idx / DUT_HIST_CHUNK][idx % DUT_HIST_CHUNK] = UINT32_MAX;
	s->count = d->count;
	s->min = d->min;
	s->max = d->max;
	s->sum = d->sum;
	s->sumsq = d->sumsq;
}

static void test_a_full_32_bit_bucket_widens_its_chunk(void)
{
	_cleanup_(dut_hist_freep) struct dut_hist *d = dut_hist_new(), *d2 = dut_hist_new();
	_cleanup_(dut_shist_freep) struct dut_shist *s = dut_shist_new(), *a = dut_shist_new(),
						   *b = dut_shist_new();
	const uint64_t v = 150000;
	const unsigned c = dut_hist_bucket(v) / DUT_HIST_CHUNK;

	if (!d || !d2 || !s || !a || !b) {
		CU_FAIL("out of memory");
		return;
	}
	set_full(d, s, v);
	CU_ASSERT_EQUAL(s->wide, 0);
	check_same(d, s, "a bucket at 2^32 - 1");
	dut_hist_add(d, v);
	dut_hist_add(d, v + 1);
	CU_ASSERT_EQUAL(dut_shist_add(s, v), 0);
	CU_ASSERT_EQUAL(dut_shist_add(s, v + 1), 0);
	CU_CHECK(s->wide == UINT64_C(1) << c, "wide mask %#llx, chunk %u", (unsigned long long)s->wide, c);
	CU_CHECK(sbucket(s, dut_hist_bucket(v)) == (UINT64_C(1) << 32) + (dut_hist_bucket(v + 1) ==
		 dut_hist_bucket(v)), "bucket %llu", (unsigned long long)sbucket(s, dut_hist_bucket(v)));
	check_same(d, s, "2^32 values and more");
	dut_shist_reset(s);
	dut_hist_reset(d);
	CU_ASSERT_EQUAL(dut_shist_add(s, v), 0);
	dut_hist_add(d, v);
	check_same(d, s, "a wide chunk reset");

	/* merging two 32-bit chunks whose sum passes 2^32 - 1 widens the destination's */
	set_full(d2, a, v);
	CU_ASSERT_EQUAL(dut_shist_add(b, v), 0);
	CU_ASSERT_EQUAL(dut_shist_add(b, 3 * v), 0);
	dut_hist_add(d2, v);
	dut_hist_add(d2, 3 * v);
	CU_ASSERT_EQUAL(dut_shist_merge(a, b), 0);
	CU_ASSERT(a->wide >> c & 1);
	check_same(d2, a, "a merge past 2^32 - 1");
	/* a wide source into a 32-bit destination, and into a dense one */
	dut_shist_reset(b);
	CU_ASSERT_EQUAL(dut_shist_add(b, 7), 0);
	CU_ASSERT_EQUAL(dut_shist_merge(b, a), 0);
	dut_hist_add(d2, 7);
	CU_ASSERT(b->wide >> c & 1);
	check_same(d2, b, "a wide chunk merged into a 32-bit one");
	dut_hist_reset(d);
	dut_hist_merge_sparse(d, b);
	check_same(d, b, "a wide chunk merged into a dense histogram");
}

static const struct cu_test tests[] = {
	{ "adds_answer_as_the_dense_histogram", test_adds_answer_as_the_dense_histogram },
	{ "merges_answer_as_the_dense_merge", test_merges_answer_as_the_dense_merge },
	{ "reset_keeps_chunks_and_counts_nothing", test_reset_keeps_chunks_and_counts_nothing },
	{ "saturated_sums_fall_back_alike", test_saturated_sums_fall_back_alike },
	{ "a_full_32_bit_bucket_widens_its_chunk", test_a_full_32_bit_bucket_widens_its_chunk },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "hist_sparse", .tests = tests };
