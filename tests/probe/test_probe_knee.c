/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Knee detection on synthetic throughput series (probe/knee.c). */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "lib/cleanup.h"
#include "probe/knee.h"
#include "tests/cu_main.h"

/* Seeded standard normal noise (splitmix64 + Box-Muller): the same series every run. */
static uint64_t rng_state;

static double uniform01(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void)
{
	double u1 = uniform01(), u2 = uniform01();

	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* Plateaus: levels[i] for counts[i] samples, with relative gaussian noise sd. */
static size_t make_series(double *y, const double *levels, const size_t *counts, size_t nplateaus,
			  double sd, uint64_t seed)
{
	size_t n = 0;

	rng_state = seed;
	for (size_t p = 0; p < nplateaus; p++)
		for (size_t i = 0; i < counts[p]; i++, n++)
			y[n] = levels[p] * (1 + sd * gauss());
	return n;
}

static void test_clean_knee_found_exactly(void)
{
	double y[40];
	const double lv[] = { 2000, 500 };
	const size_t cnt[] = { 20, 20 };
	size_t n = make_series(y, lv, cnt, 2, 0, 1);
	struct knee_result r;

	CU_ASSERT_EQUAL_FATAL(knee_detect(y, n, NULL, &r), 0);
	CU_ASSERT_EQUAL_FATAL(r.nknees, 1);
	CU_ASSERT_EQUAL(r.knees[0].index, 20);
	CU_ASSERT_EQUAL(r.knees[0].ci_lo, 20);
	CU_ASSERT_EQUAL(r.knees[0].ci_hi, 20);
	CU_ASSERT_DOUBLE_EQUAL(r.knees[0].median_before, 2000, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r.knees[0].median_after, 500, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r.knees[0].rel_change, -0.75, 1e-12);
	CU_ASSERT_STRING_EQUAL(r.knees[0].confidence, "high");
	CU_ASSERT_EQUAL(r.nsegments, 2);
}

static void test_noisy_knee_found_near_truth(void)
{
	static const struct {
		double before, after, sd;
		size_t n_before, n_after;
		uint64_t seed;
	} rows[] = {
		{ 2000, 600, 0.10, 40, 60, 1 },
		{ 2000, 600, 0.10, 40, 60, 2 },
		{ 2000, 600, 0.10, 40, 60, 3 },
		{ 1500, 1000, 0.10, 50, 50, 4 },   /* a shallow knee: -33 % under 10 % noise */
		{ 3000, 300, 0.10, 10, 90, 5 },    /* a small cache early in the run */
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		double y[200];
		const double lv[] = { rows[i].before, rows[i].after };
		const size_t cnt[] = { rows[i].n_before, rows[i].n_after };
		size_t n = make_series(y, lv, cnt, 2, rows[i].sd, rows[i].seed);
		struct knee_result r;

		CU_ASSERT_EQUAL_FATAL(knee_detect(y, n, NULL, &r), 0);
		CU_CHECK(r.nknees == 1, "row %zu: %zu knees, want 1", i, r.nknees);
		if (r.nknees != 1)
			continue;
		CU_CHECK(r.knees[0].index + 2 >= rows[i].n_before && r.knees[0].index <= rows[i].n_before + 2,
			 "row %zu: knee at %zu, want %zu +- 2", i, r.knees[0].index, rows[i].n_before);
		CU_CHECK(r.knees[0].ci_lo <= r.knees[0].index && r.knees[0].index <= r.knees[0].ci_hi,
			 "row %zu: interval [%zu, %zu] misses %zu", i, r.knees[0].ci_lo, r.knees[0].ci_hi,
			 r.knees[0].index);
		CU_CHECK(fabs(r.knees[0].median_before / rows[i].before - 1) < 0.05 &&
				 fabs(r.knees[0].median_after / rows[i].after - 1) < 0.05,
			 "row %zu: levels %.0f -> %.0f", i, r.knees[0].median_before, r.knees[0].median_after);
	}
}

static void test_two_plateaus_give_two_knees(void)
{
	double y[90];
	const double lv[] = { 3000, 1500, 500 };
	const size_t cnt[] = { 30, 30, 30 };
	size_t n = make_series(y, lv, cnt, 3, 0.05, 11);
	struct knee_result r;

	CU_ASSERT_EQUAL_FATAL(knee_detect(y, n, NULL, &r), 0);
	CU_ASSERT_EQUAL_FATAL(r.nknees, 2);
	CU_CHECK(r.knees[0].index >= 29 && r.knees[0].index <= 31, "first knee at %zu", r.knees[0].index);
	CU_CHECK(r.knees[1].index >= 59 && r.knees[1].index <= 61, "second knee at %zu", r.knees[1].index);
	CU_ASSERT_EQUAL(r.nsegments, 3);
	CU_CHECK(fabs(r.segments[1].median / 1500 - 1) < 0.05, "middle plateau %.0f", r.segments[1].median);
}

static void test_flat_or_drifting_series_has_no_knee(void)
{
	static const struct {
		const char *name;
		double sd, drift;   /* drift: total relative change over the series */
		uint64_t seed;
	} rows[] = {
		{ "flat, 10% noise", 0.10, 0, 21 },
		{ "flat, 10% noise, other seed", 0.10, 0, 22 },
		{ "flat, noiseless", 0, 0, 23 },
		{ "5% drift, 3% noise", 0.03, -0.05, 24 },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		double y[80];
		struct knee_result r;

		rng_state = rows[i].seed;
		for (size_t k = 0; k < 80; k++)
			y[k] = 1000 * (1 + rows[i].drift * (double)k / 79) * (1 + rows[i].sd * gauss());
		CU_ASSERT_EQUAL_FATAL(knee_detect(y, 80, NULL, &r), 0);
		CU_CHECK(r.nknees == 0, "%s: %zu knees (first at %zu)", rows[i].name, r.nknees,
			 r.nknees ? r.knees[0].index : 0);
		CU_CHECK(r.why_none && strstr(r.why_none, "no significant"), "%s: reason %s", rows[i].name,
			 r.why_none ? r.why_none : "(null)");
		CU_ASSERT_EQUAL(r.nsegments, 1);
	}
}

static void test_very_short_series_reports_why(void)
{
	const double y[] = { 2000, 2000, 500, 500, 500 };
	struct knee_result r;

	for (size_t n = 0; n <= 5; n++) {
		CU_ASSERT_EQUAL_FATAL(knee_detect(n ? y : NULL, n, NULL, &r), 0);
		CU_CHECK(r.nknees == 0, "n=%zu: %zu knees", n, r.nknees);
		CU_CHECK(r.why_none && strstr(r.why_none, "too short"), "n=%zu: reason %s", n,
			 r.why_none ? r.why_none : "(null)");
	}
	/* Six samples are enough for min_seg 3 on each side. */
	{
		const double y6[] = { 2000, 2000, 2000, 500, 500, 500 };

		CU_ASSERT_EQUAL(knee_detect(y6, 6, NULL, &r), 0);
		CU_ASSERT_EQUAL(r.nknees, 1);
	}
}

static void test_outlier_does_not_move_the_levels(void)
{
	double y[40];
	const double lv[] = { 2000, 500 };
	const size_t cnt[] = { 20, 20 };
	size_t n = make_series(y, lv, cnt, 2, 0.02, 31);
	struct knee_result r;

	y[5] = 20000;   /* one absurd window (a stall's catch-up, or a bad clock read) */
	CU_ASSERT_EQUAL_FATAL(knee_detect(y, n, NULL, &r), 0);
	CU_ASSERT_EQUAL_FATAL(r.nknees >= 1, 1);
	/* The knee at 20 is found and the medians ignore the spike. */
	{
		bool found = false;

		for (size_t i = 0; i < r.nknees; i++)
			if (r.knees[i].index >= 19 && r.knees[i].index <= 21) {
				found = true;
				CU_CHECK(fabs(r.knees[i].median_after / 500 - 1) < 0.05, "after %.0f",
					 r.knees[i].median_after);
			}
		CU_CHECK(found, "no knee near 20 (%zu knees, first at %zu)", r.nknees, r.knees[0].index);
	}
}

static const struct cu_test tests[] = {
	{ "clean_knee_found_exactly", test_clean_knee_found_exactly },
	{ "noisy_knee_found_near_truth", test_noisy_knee_found_near_truth },
	{ "two_plateaus_give_two_knees", test_two_plateaus_give_two_knees },
	{ "flat_or_drifting_series_has_no_knee", test_flat_or_drifting_series_has_no_knee },
	{ "very_short_series_reports_why", test_very_short_series_reports_why },
	{ "outlier_does_not_move_the_levels", test_outlier_does_not_move_the_levels },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "probe_knee", .tests = tests };
