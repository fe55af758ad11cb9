/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Rate-limit schedule (Poisson, seeded), schedule-lag accounting and retry accounting. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "pgload/retry.h"
#include "pgload/throttle.h"
#include "tests/cu_main.h"

/* Exponential gaps: mean = sd = 1/rate, P(gap < mean) = 1 - 1/e, memoryless. */
static void test_poisson_schedule_statistics(void)
{
	static const struct { double rate; uint64_t seed; } rows[] = {
		{ 100.0, 1 }, { 1000.0, 2 }, { 25000.0, 3 }, { 3.5, 4 },
	};
	const unsigned n = 200000;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct pgl_rng rng;
		struct pgl_sched s;
		double mean = 1e9 / rows[i].rate, sum = 0, sumsq = 0;
		unsigned below = 0;
		uint64_t prev;

		pgl_rng_seed(&rng, rows[i].seed);
		pgl_sched_init(&s, rows[i].rate, 1000, &rng);
		CU_CHECK(s.next_ns >= 1000, "rate %g: first slot before the start", rows[i].rate);
		prev = pgl_sched_take(&s, &rng);
		for (unsigned k = 0; k < n; k++) {
			uint64_t slot = pgl_sched_take(&s, &rng);
			double gap = (double)(slot - prev);

			CU_CHECK(slot >= prev, "rate %g: slots go backwards", rows[i].rate);
			sum += gap;
			sumsq += gap * gap;
			below += gap < mean;
			prev = slot;
		}
		double m = sum / n, sd = sqrt(sumsq / n - m * m);

		/* Standard error of the mean is mean/sqrt(n) = 0.22 %: allow 1.5 %. */
		CU_CHECK(fabs(m / mean - 1) < 0.015, "rate %g: mean gap %.1f ns, want %.1f", rows[i].rate, m, mean);
		CU_CHECK(fabs(sd / mean - 1) < 0.03, "rate %g: gap stddev %.1f, want ~%.1f", rows[i].rate, sd, mean);
		CU_CHECK(fabs((double)below / n - (1 - exp(-1))) < 0.01, "rate %g: %.4f of gaps below the mean",
			 rows[i].rate, (double)below / n);
	}
}

static void test_schedule_is_reproducible(void)
{
	struct pgl_rng a, b;
	struct pgl_sched sa, sb;

	pgl_rng_seed(&a, 99);
	pgl_rng_seed(&b, 99);
	pgl_sched_init(&sa, 500, 0, &a);
	pgl_sched_init(&sb, 500, 0, &b);
	for (int i = 0; i < 1000; i++)
		CU_CHECK(pgl_sched_take(&sa, &a) == pgl_sched_take(&sb, &b), "slot %d differs", i);
}

static void test_lag_accounting(void)
{
	static const struct { uint64_t sched, start, lag; } rows[] = {
		{ 1000, 1000, 0 },      /* on time */
		{ 1000, 900, 0 },       /* early start counts as no lag */
		{ 1000, 1500, 500 },
		{ 2000, 9000, 7000 },
		{ 5000, 5001, 1 },
	};
	struct pgl_lag l = { 0 }, other = { 0 }, merged = { 0 };

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		CU_CHECK(pgl_lag_add(&l, rows[i].sched, rows[i].start) == rows[i].lag, "row %zu", i);
	CU_CHECK(l.count == 5 && l.sum_ns == 7501 && l.max_ns == 7000, "count %llu sum %llu max %llu",
		 (unsigned long long)l.count, (unsigned long long)l.sum_ns, (unsigned long long)l.max_ns);
	CU_CHECK(fabs(pgl_lag_mean_ns(&l) - 1500.2) < 1e-9, "mean %f", pgl_lag_mean_ns(&l));
	pgl_lag_add(&other, 0, 10000);
	pgl_lag_merge(&merged, &l);
	pgl_lag_merge(&merged, &other);
	CU_CHECK(merged.count == 6 && merged.sum_ns == 17501 && merged.max_ns == 10000, "merge");
	CU_CHECK(pgl_lag_mean_ns(&(struct pgl_lag){ 0 }) == 0.0, "empty mean");
}

static void test_errclass(void)
{
	static const struct { const char *state; enum pgl_errclass c; } rows[] = {
		{ "40001", PGL_ERR_SERIALIZATION }, { "40P01", PGL_ERR_DEADLOCK },
		{ "23505", PGL_ERR_OTHER }, { "57P01", PGL_ERR_OTHER }, { "", PGL_ERR_OTHER },
		{ NULL, PGL_ERR_OTHER }, { "40002", PGL_ERR_OTHER },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		CU_CHECK(pgl_errclass_of(rows[i].state) == rows[i].c, "sqlstate %s", rows[i].state ? rows[i].state : "NULL");
}

/* A sequence of outcomes per transaction and what must be counted. */
static void test_retry_accounting(void)
{
	struct pgl_retry_stats s;

	memset(&s, 0, sizeof(s));
	/* max_tries 3: 40001, 40P01, then commit -> retried twice, committed. */
	CU_CHECK(pgl_retry_on_error(&s, PGL_ERR_SERIALIZATION, 1, 3) == PGL_RETRY, "try 1");
	CU_CHECK(pgl_retry_on_error(&s, PGL_ERR_DEADLOCK, 2, 3) == PGL_RETRY, "try 2");
	pgl_retry_on_commit(&s, 3);
	/* Three serialization failures with max_tries 3 -> a failed transaction. */
	CU_CHECK(pgl_retry_on_error(&s, PGL_ERR_SERIALIZATION, 1, 3) == PGL_RETRY, "b1");
	CU_CHECK(pgl_retry_on_error(&s, PGL_ERR_SERIALIZATION, 2, 3) == PGL_RETRY, "b2");
	CU_CHECK(pgl_retry_on_error(&s, PGL_ERR_SERIALIZATION, 3, 3) == PGL_FAIL_TXN, "b3");
	/* max_tries 1 (the default): no retry at all. */
	CU_CHECK(pgl_retry_on_error(&s, PGL_ERR_DEADLOCK, 1, 1) == PGL_FAIL_TXN, "c1");
	/* A commit on the first try is not a retried transaction. */
	pgl_retry_on_commit(&s, 1);
	/* Anything else aborts the client and is not retried. */
	CU_CHECK(pgl_retry_on_error(&s, PGL_ERR_OTHER, 1, 10) == PGL_ABORT_CLIENT, "d1");

	CU_CHECK(s.retries == 4, "retries %llu, want 4", (unsigned long long)s.retries);
	CU_CHECK(s.retried_txns == 1, "retried txns %llu", (unsigned long long)s.retried_txns);
	CU_CHECK(s.serialization_errors == 4 && s.deadlock_errors == 2, "errors %llu/%llu",
		 (unsigned long long)s.serialization_errors, (unsigned long long)s.deadlock_errors);
	CU_CHECK(s.failed_txns == 2 && s.failed_serialization == 1 && s.failed_deadlock == 1,
		 "failed %llu", (unsigned long long)s.failed_txns);
	CU_CHECK(s.other_errors == 1, "other %llu", (unsigned long long)s.other_errors);

	struct pgl_retry_stats m = { 0 };

	pgl_retry_merge(&m, &s);
	pgl_retry_merge(&m, &s);
	CU_CHECK(m.retries == 8 && m.failed_txns == 4 && m.other_errors == 2, "merge doubles");
}

static const struct cu_test tests[] = {
	{ "poisson_schedule_statistics", test_poisson_schedule_statistics },
	{ "schedule_is_reproducible", test_schedule_is_reproducible },
	{ "lag_accounting", test_lag_accounting },
	{ "errclass", test_errclass },
	{ "retry_accounting", test_retry_accounting },
	{ NULL, NULL },
};
const struct cu_suite cu_suite = { .name = "pgload_throttle", .tests = tests };
