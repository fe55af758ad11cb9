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

/*
 * An SLC cache that ends inside a window (field case: 217 MiB with 16 MiB
 * windows, printed as [208 MiB, 208 MiB]): the straddling window runs at the
 * harmonic mix of the two levels.  Over 300 seeds with the end placed
 * anywhere inside a window, the interval from knee_locate() always holds
 * it, and the estimate is within a quarter window in at least 90 %.
 */
static void test_locate_holds_a_knee_inside_a_window(void)
{
	const double w = 16.0 * 1048576, b1 = 100e6, b2 = 20e6;
	unsigned held = 0, close = 0, runs = 0;

	for (uint64_t seed = 1; seed <= 300; seed++) {
		double y[40];
		uint64_t end[40];
		struct knee_result r;
		struct knee_locus l;

		rng_state = seed * 7919;
		double knee = (13 + 0.05 + 0.9 * uniform01()) * w;

		for (size_t i = 0; i < 40; i++) {
			double a = knee - (double)i * w;   /* bytes of window i written before the knee */
			double t = a >= w ? w / b1 : a <= 0 ? w / b2 : a / b1 + (w - a) / b2;

			y[i] = w / t * (1 + 0.05 * gauss());
			end[i] = (uint64_t)((double)(i + 1) * w);
		}
		CU_ASSERT_FATAL(knee_detect(y, 40, NULL, &r) == 0);
		if (r.nknees < 1) {
			cu_fail("seed %llu: no knee", (unsigned long long)seed);
			continue;
		}
		runs++;
		knee_locate(&r.knees[0], y, end, 40, &l);
		if ((double)l.lo <= knee && knee <= (double)l.hi)
			held++;
		else
			cu_fail("seed %llu: knee at %.1f MiB outside [%.1f, %.1f] MiB", (unsigned long long)seed,
				knee / 1048576, (double)l.lo / 1048576, (double)l.hi / 1048576);
		if (fabs((double)l.at - knee) <= w / 4)
			close++;
	}
	CU_CHECK(held == runs && runs == 300, "%u of %u intervals hold the knee", held, runs);
	CU_CHECK(close >= 270, "%u of 300 estimates within a quarter window", close);
}

/* No reported knee changes the level by less than min_rel_change (no "-0 %" knee). */
static void test_no_knee_below_the_threshold(void)
{
	unsigned bad = 0;

	for (uint64_t seed = 1; seed <= 2000; seed++) {
		double y[64];
		struct knee_result r;

		rng_state = seed * 104729;
		double lv[4] = { 0 };
		size_t n = 0, cnt[4];

		for (int p = 0; p < 4; p++) {
			lv[p] = 100 * (0.5 + uniform01());
			cnt[p] = 4 + (size_t)(12 * uniform01());
		}
		for (int p = 0; p < 4; p++)
			for (size_t i = 0; i < cnt[p] && n < 64; i++)
				y[n++] = lv[p] * (1 + 0.08 * gauss()) * (uniform01() < 0.05 ? 2.5 : 1);
		CU_ASSERT_FATAL(knee_detect(y, n, NULL, &r) == 0);
		for (size_t k = 0; k < r.nknees; k++)
			if (!(fabs(r.knees[k].rel_change) >= 0.15 * fmax(1, r.knees[k].median_after /
									 r.knees[k].median_before) - 1e-12)) {
				if (bad++ < 5)
					cu_fail("seed %llu: knee %zu of %+.1f %%", (unsigned long long)seed, k,
						r.knees[k].rel_change * 100);
			}
	}
	CU_CHECK(bad == 0, "%u knees below the 15 %% threshold", bad);
}

static const struct cu_test tests[] = {
	{ "locate_holds_a_knee_inside_a_window", test_locate_holds_a_knee_inside_a_window },
	{ "no_knee_below_the_threshold", test_no_knee_below_the_threshold },
	{ "clean_knee_found_exactly", test_clean_knee_found_exactly },
	{ "noisy_knee_found_near_truth", test_noisy_knee_found_near_truth },
	{ "two_plateaus_give_two_knees", test_two_plateaus_give_two_knees },
	{ "flat_or_drifting_series_has_no_knee", test_flat_or_drifting_series_has_no_knee },
	{ "very_short_series_reports_why", test_very_short_series_reports_why },
	{ "outlier_does_not_move_the_levels", test_outlier_does_not_move_the_levels },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "probe_knee", .tests = tests };
