/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The DSS generator against the TPC-H specification: cardinalities (rows
 * counted in the generated text, expected numbers from the specification's
 * table), determinism whatever the chunking and thread count, value domains
 * and date rules by checking every row at SF 0.01, and the comment grammar.
 * Value domains: test_dss_domains.c.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/cleanup.h"
#include "pgload/dss/gen.h"
#include "pgload/dss/genrun.h"
#include "tests/cu_main.h"
#include "tests/pgload/dss/gen_util.h"

/* ---- cardinalities ---- */

/* The specification's table (clause 4.2.5), multiplied out. */
static const struct {
	double sf;
	uint64_t supplier, part, partsupp, customer, orders;
} spec_rows[] = {
	{ 0.01, 100, 2000, 8000, 1500, 15000 },
	{ 0.1, 1000, 20000, 80000, 15000, 150000 },
	{ 1, 10000, 200000, 800000, 150000, 1500000 },
};

static void test_cardinalities_small_sf(void)
{
	for (size_t i = 0; i < 2; i++) {
		double sf = spec_rows[i].sf;
		const uint64_t want[DSS_NTABLES] = {
			[DSS_REGION] = 5, [DSS_NATION] = 25,
			[DSS_SUPPLIER] = spec_rows[i].supplier, [DSS_PART] = spec_rows[i].part,
			[DSS_PARTSUPP] = spec_rows[i].partsupp, [DSS_CUSTOMER] = spec_rows[i].customer,
			[DSS_ORDERS] = spec_rows[i].orders,
		};
		for (unsigned t = 0; t < DSS_NTABLES; t++) {
			struct rows r;
			if (gen(sf, 1, t, &r))
				continue;
			uint64_t lines = 0;
			for (size_t k = 0; k < r.buf.len; k++)
				lines += r.buf.p[k] == '\n';
			CU_CHECK(lines == r.n, "SF %g %s: %llu lines, %llu rows reported", sf,
				 dss_table_name(t), (unsigned long long)lines, (unsigned long long)r.n);
			if (t == DSS_LINEITEM) {
				/* 1..7 lines per order, uniform: 4 per order on average. */
				double per = (double)lines / spec_rows[i].orders;
				CU_CHECK(fabs(per - 4) < 0.08, "SF %g lineitem: %llu rows, %.3f per order",
					 sf, (unsigned long long)lines, per);
			} else {
				CU_CHECK(lines == want[t], "SF %g %s: %llu rows, want %llu", sf,
					 dss_table_name(t), (unsigned long long)lines,
					 (unsigned long long)want[t]);
			}
			dss_buf_free(&r.buf);
		}
	}
}

/* SF 1: the stated counts.  Small tables are generated and counted whole;
 * orders and lineitem by their units and line counts (6M rows of text
 * would make a slow unit test), checked against the text on a chunk. */
static void test_cardinalities_sf1(void)
{
	struct dss_gen g;
	struct dss_buf b = { 0 };
	uint64_t n, lines = 0, hist[8] = { 0 };
	const enum dss_table small[] = { DSS_SUPPLIER, DSS_PART, DSS_PARTSUPP, DSS_CUSTOMER };
	const uint64_t want[] = { spec_rows[2].supplier, spec_rows[2].part, spec_rows[2].partsupp,
				  spec_rows[2].customer };

	if (dss_gen_init(&g, 1, 1.0)) {
		cu_fail("dss_gen_init SF 1");
		return;
	}
	for (size_t i = 0; i < DUT_ARRAY_SIZE(small); i++) {
		uint64_t total = 0, units = dss_gen_units(&g, small[i]);
		for (uint64_t lo = 0; lo < units; lo += 20000) {
			b.len = 0;
			dss_gen_chunk(&g, small[i], lo, lo + 20000 < units ? lo + 20000 : units, &b, &n);
			for (size_t k = 0; k < b.len; k++)
				total += b.p[k] == '\n';
		}
		CU_CHECK(total == want[i], "SF 1 %s: %llu rows, want %llu", dss_table_name(small[i]),
			 (unsigned long long)total, (unsigned long long)want[i]);
	}
	CU_CHECK(dss_gen_units(&g, DSS_ORDERS) == spec_rows[2].orders, "SF 1 orders: %llu",
		 (unsigned long long)dss_gen_units(&g, DSS_ORDERS));
	for (uint64_t u = 0; u < dss_gen_units(&g, DSS_ORDERS); u++) {
		unsigned k = dss_order_lines(&g, u);
		hist[k < 8 ? k : 0]++;
		lines += k;
	}
	CU_CHECK(hist[0] == 0, "%llu orders with a line count outside 1..7",
		 (unsigned long long)hist[0]);
	for (unsigned k = 1; k <= 7; k++)
		CU_CHECK(fabs(hist[k] / 1.5e6 - 1 / 7.0) < 0.003, "SF 1: %llu orders with %u lines",
			 (unsigned long long)hist[k], k);
	CU_CHECK(lines > 5990000 && lines < 6010000, "SF 1 lineitem: %llu rows, want ~6.0M",
		 (unsigned long long)lines);
	/* The text agrees with the line counts on a chunk in the middle. */
	uint64_t expect = 0, got = 0;
	b.len = 0;
	dss_gen_chunk(&g, DSS_LINEITEM, 700000, 710000, &b, &n);
	for (uint64_t u = 700000; u < 710000; u++)
		expect += dss_order_lines(&g, u);
	for (size_t k = 0; k < b.len; k++)
		got += b.p[k] == '\n';
	CU_CHECK(got == expect && n == expect, "lineitem chunk: %llu lines, %llu expected",
		 (unsigned long long)got, (unsigned long long)expect);
	dss_buf_free(&b);
	dss_gen_free(&g);
}

/*
 * (ps_partkey, ps_suppkey) is a key at any scale factor, including ones
 * where the specification's formula alone repeats a supplier (S = 120 at
 * SF 0.012, S = 4 at SF 0.0004); scale factors outside the range are refused.
 */
static void test_partsupp_key_unique_at_any_sf(void)
{
	static const double sfs[] = { 0.0004, 0.001, 0.01, 0.012, 0.024, 0.036 };

	for (size_t i = 0; i < DUT_ARRAY_SIZE(sfs); i++) {
		struct rows r;
		char f[MAXF][256];
		size_t pos = 0;
		long s[4], row = 0, bad = 0;

		if (gen(sfs[i], 1, DSS_PARTSUPP, &r))
			continue;
		while (next_row(&r.buf, &pos, f) && bad < 3) {
			s[row % 4] = atol(f[1]);
			if (row++ % 4 == 3 && (s[0] == s[1] || s[0] == s[2] || s[0] == s[3] ||
					       s[1] == s[2] || s[1] == s[3] || s[2] == s[3])) {
				cu_fail("SF %g part %s: suppliers %ld %ld %ld %ld", sfs[i], f[0],
					s[0], s[1], s[2], s[3]);
				bad++;
			}
		}
		dss_buf_free(&r.buf);
	}
	static const double refused[] = { 0, 0.0001, 10001, -1 };
	for (size_t i = 0; i < DUT_ARRAY_SIZE(refused); i++) {
		struct dss_gen g;
		int ret = dss_gen_init(&g, 1, refused[i]);
		CU_CHECK(ret == -EINVAL, "SF %g accepted (%d)", refused[i], ret);
		if (ret == 0)
			dss_gen_free(&g);
	}
}

/* ---- determinism ---- */

struct sum_sink {
	uint64_t h[DSS_NTABLES];
};

static int sum_chunk(void *sink, void *tctx, unsigned job, enum dss_table t, const char *buf,
		     size_t len)
{
	struct sum_sink *s = sink;

	for (size_t i = 0; i < len; i++) {
		s->h[job] ^= (unsigned char)buf[i];
		s->h[job] *= 0x100000001b3ull;
	}
	return 0;
}

static const struct dss_sink_ops sum_ops = { .chunk = sum_chunk, .ordered = true };

static void checksums(uint64_t seed, unsigned threads, uint64_t unit_chunk, uint64_t *out)
{
	struct dss_gen g;
	struct dss_gen_job jobs[DSS_NTABLES];
	struct sum_sink s;
	struct dss_gen_stats st;

	for (unsigned j = 0; j < DSS_NTABLES; j++)
		s.h[j] = 0xcbf29ce484222325ull;
	if (dss_gen_init(&g, seed, 0.01)) {
		cu_fail("dss_gen_init");
		return;
	}
	unsigned n = dss_gen_jobs_tables(&g, jobs);
	int ret = dss_gen_run(&g, jobs, n, threads, unit_chunk, &sum_ops, &s, &st);
	CU_CHECK(ret == 0 && st.threads == threads, "run with %u threads: %d", threads, ret);
	for (unsigned j = 0; j < n; j++)
		out[jobs[j].t] = s.h[j];
	dss_gen_free(&g);
}

static void test_same_bytes_for_any_chunking(void)
{
	static const struct { unsigned threads; uint64_t unit_chunk; } rows[] = {
		{ 3, 0 }, { 3, 777 }, { 2, 1 }, { 1, 5000 },
	};
	uint64_t ref[DSS_NTABLES], got[DSS_NTABLES], other[DSS_NTABLES];

	checksums(42, 1, 0, ref);
	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		checksums(42, rows[i].threads, rows[i].unit_chunk, got);
		for (unsigned t = 0; t < DSS_NTABLES; t++)
			CU_CHECK(got[t] == ref[t], "%s: %u threads, chunks of %llu units differ",
				 dss_table_name(t), rows[i].threads,
				 (unsigned long long)rows[i].unit_chunk);
	}
	/* One chunk for the whole table, without the runner, is the same bytes too. */
	for (unsigned t = 0; t < DSS_NTABLES; t++) {
		struct rows r;
		if (gen(0.01, 42, t, &r))
			continue;
		uint64_t h = 0xcbf29ce484222325ull;
		for (size_t i = 0; i < r.buf.len; i++) {
			h ^= (unsigned char)r.buf.p[i];
			h *= 0x100000001b3ull;
		}
		CU_CHECK(h == ref[t], "%s: single chunk differs from the runner's", dss_table_name(t));
		dss_buf_free(&r.buf);
	}
	/* Another seed gives other data (nation and region names aside). */
	checksums(43, 2, 0, other);
	for (unsigned t = DSS_SUPPLIER; t < DSS_NTABLES; t++)
		CU_CHECK(other[t] != ref[t], "%s: seed 43 gives seed 42's data", dss_table_name(t));
}

/* A sink that fails on its n-th chunk; the other threads wait in order. */
struct failing_sink {
	pthread_mutex_t lock;
	unsigned calls, fail_at;
};

static int failing_chunk(void *sink, void *tctx, unsigned job, enum dss_table t,
			 const char *buf, size_t len)
{
	struct failing_sink *s = sink;
	unsigned n;

	pthread_mutex_lock(&s->lock);
	n = ++s->calls;
	pthread_mutex_unlock(&s->lock);
	return n == s->fail_at ? -EPIPE : 0;
}

static void test_sink_error_stops_the_run(void)
{
	static const struct { bool ordered; unsigned threads, fail_at; } rows[] = {
		{ true, 3, 1 }, { true, 3, 5 }, { false, 3, 5 }, { true, 1, 2 },
	};
	struct dss_gen g;
	struct dss_gen_job jobs[DSS_NTABLES];

	if (dss_gen_init(&g, 1, 0.01)) {
		cu_fail("dss_gen_init");
		return;
	}
	unsigned n = dss_gen_jobs_tables(&g, jobs);
	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		struct dss_sink_ops ops = { .chunk = failing_chunk, .ordered = rows[i].ordered };
		struct failing_sink s = { .fail_at = rows[i].fail_at };
		struct dss_gen_stats st;
		pthread_mutex_init(&s.lock, NULL);
		/* Chunks of 100 units: hundreds of chunks, so stopping early shows. */
		int ret = dss_gen_run(&g, jobs, n, rows[i].threads, 100, &ops, &s, &st);
		CU_CHECK(ret == -EPIPE && s.calls < 50, "row %zu: ret %d after %u chunks", i, ret,
			 s.calls);
		pthread_mutex_destroy(&s.lock);
	}
	dss_gen_free(&g);
}

static const struct cu_test tests[] = {
	{ "cardinalities_small_sf", test_cardinalities_small_sf },
	{ "cardinalities_sf1", test_cardinalities_sf1 },
	{ "partsupp_key_unique_at_any_sf", test_partsupp_key_unique_at_any_sf },
	{ "same_bytes_for_any_chunking", test_same_bytes_for_any_chunking },
	{ "sink_error_stops_the_run", test_sink_error_stops_the_run },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "dss-gen", .tests = tests };
