/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Steady-state criteria (probe/steady.c) against hand-computed windows.
 * For a window of 5 rounds, x = 0..4, x_bar = 2, sum (x - x_bar)^2 = 4+1+0+1+4 = 10,
 * so slope = sum (x - 2)(y - mean) / 10 and the SNIA excursion is |slope| * 4.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "lib/cleanup.h"
#include "probe/steady.h"
#include "tests/cu_main.h"

struct row {
	const char *name;
	const char *crit;
	double y[8];
	size_t n;
	int ret;
	bool attained;
	double mean, slope, range_pct, excursion_pct, max_dev_pct;
};

static const struct row rows[] = {
	/* mean 500/5 = 100; range 102-98 = 4 -> 4 %;
	 * slope = ((-2)(0) + (-1)(2) + 0(-2) + 1(1) + 2(-1)) / 10 = -3/10 = -0.3;
	 * excursion 0.3*4 = 1.2 -> 1.2 %; max dev 2 -> 2 %.  SNIA: attained. */
	{ "snia steady", "snia", { 100, 102, 98, 101, 99 }, 5, 0, true, 100, -0.3, 4, 1.2, 2 },
	/* mean 120; range 40 -> 33.33 %;
	 * slope = ((-2)(-20) + (-1)(-10) + 0 + (1)(10) + (2)(20)) / 10 = 100/10 = 10;
	 * excursion 10*4 = 40 -> 33.33 %; max dev 20 -> 16.67 %.  Not attained. */
	{ "snia ramp", "snia", { 100, 110, 120, 130, 140 }, 5, 0, false, 120, 10, 100.0 / 3, 100.0 / 3, 50.0 / 3 },
	/* mean 100; range 20 -> 20 % (limit inclusive: passes);
	 * slope = ((-2)(-10) + (-1)(-5) + 0 + (1)(5) + (2)(10)) / 10 = 50/10 = 5;
	 * excursion 5*4 = 20 -> 20 % > 10 %: not attained (slope fails alone). */
	{ "snia slope fails", "snia", { 90, 95, 100, 105, 110 }, 5, 0, false, 100, 5, 20, 20, 10 },
	/* mean 500/5 = 100; range 125-75 = 50 -> 50 % (fails);
	 * slope = ((-2)(0) + (-1)(-25) + 0(25) + (1)(25) + (2)(-25)) / 10 = 0 -> excursion 0. */
	{ "snia range fails", "snia", { 100, 75, 125, 125, 75 }, 5, 0, false, 100, 0, 50, 0, 25 },
	/* Custom limits 60 %, 5 %: the same window now passes. */
	{ "snia custom limits", "snia:60%,5%", { 100, 75, 125, 125, 75 }, 5, 0, true, 100, 0, 50, 0, 25 },
	/* Only the last 5 of 7 rounds count: the first two are the "snia steady" rows' warm-up. */
	{ "window is the tail", "snia", { 1000, 10, 100, 102, 98, 101, 99 }, 7, 0, true, 100, -0.3, 4, 1.2, 2 },
	/* fio iops:10%: mean 100, max |y - mean| = 9 -> 9 % <= 10. */
	{ "fio iops passes", "iops:10%", { 100, 109, 91, 100, 100 }, 5, 0, true, 100, -0.9, 18, 3.6, 9 },
	/* max dev 11 -> 11 % > 10.  slope = ((-1)(11) + 0(-11)) / 10 = -1.1. */
	{ "fio iops fails", "iops:10%", { 100, 111, 89, 100, 100 }, 5, 0, false, 100, -1.1, 22, 4.4, 11 },
	/* fio iops_slope:2%: mean 102, slope = (-2)(-2)+(-1)(-1)+0+(1)(1)+(2)(2) = 10 /10 = 1
	 * -> 1/102 = 0.98 % <= 2. */
	{ "fio slope passes", "iops_slope:2%", { 100, 101, 102, 103, 104 }, 5, 0, true, 102, 1, 400.0 / 102,
	  400.0 / 102, 200.0 / 102 },
	/* mean 106, slope 3 -> 3/106 = 2.83 % > 2. */
	{ "fio slope fails", "iops_slope:2%", { 100, 103, 106, 109, 112 }, 5, 0, false, 106, 3, 1200.0 / 106,
	  1200.0 / 106, 600.0 / 106 },
	/* Window 3 (@3): last three {98, 101, 99}: mean 298/3 = 99.33; range 3 -> 900/298 %;
	 * x_bar = 1, sum (x-1)^2 = 2, slope = ((-1)(98 - 99.33) + (1)(99 - 99.33)) / 2 = 1/2;
	 * excursion 0.5*2 = 1 -> 300/298 %; max dev 101 - 99.33 = 5/3 -> 500/298 = 1.68 % <= 2. */
	{ "window option", "iops:2%@3", { 100, 102, 98, 101, 99 }, 5, 0, true, 298.0 / 3, 0.5, 900.0 / 298,
	  300.0 / 298, 500.0 / 298 },
	{ "too few rounds", "snia", { 100, 100, 100, 100 }, 4, -EAGAIN, false, 0, 0, 0, 0, 0 },
};

static void test_hand_computed_windows(void)
{
	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		const struct row *r = &rows[i];
		struct ss_criterion c;
		struct ss_eval e;
		int ret;

		CU_ASSERT_EQUAL_FATAL(ss_parse(r->crit, &c, NULL), 0);
		ret = ss_evaluate(&c, r->y, r->n, &e);
		CU_CHECK(ret == r->ret, "%s: ret %d, want %d", r->name, ret, r->ret);
		if (ret || r->ret)
			continue;
		CU_CHECK(e.attained == r->attained, "%s: attained %d", r->name, e.attained);
		CU_CHECK(fabs(e.mean - r->mean) < 1e-9, "%s: mean %g, want %g", r->name, e.mean, r->mean);
		CU_CHECK(fabs(e.slope - r->slope) < 1e-9, "%s: slope %g, want %g", r->name, e.slope, r->slope);
		CU_CHECK(fabs(e.range_pct - r->range_pct) < 1e-9, "%s: range %g%%, want %g%%", r->name, e.range_pct,
			 r->range_pct);
		CU_CHECK(fabs(e.excursion_pct - r->excursion_pct) < 1e-9, "%s: excursion %g%%, want %g%%", r->name,
			 e.excursion_pct, r->excursion_pct);
		CU_CHECK(fabs(e.max_dev_pct - r->max_dev_pct) < 1e-9, "%s: max dev %g%%, want %g%%", r->name,
			 e.max_dev_pct, r->max_dev_pct);
	}
}

static void test_criterion_syntax(void)
{
	static const struct {
		const char *in;
		int ret;
		enum ss_kind kind;
		unsigned window;
		double range, slope;
		const char *canonical;
	} prow[] = {
		{ "snia", 0, SS_SNIA, 5, 20, 10, "snia:20%,10%@5" },
		{ "snia:25%,5%", 0, SS_SNIA, 5, 25, 5, "snia:25%,5%@5" },
		{ "snia:25,5@10", 0, SS_SNIA, 10, 25, 5, "snia:25%,5%@10" },
		{ "iops:10%", 0, SS_FIO_IOPS, 5, 10, 10, "iops:10%@5" },
		{ "iops_slope:2%@8", 0, SS_FIO_SLOPE, 8, 20, 2, "iops_slope:2%@8" },
		{ "iops", -EINVAL, 0, 0, 0, 0, NULL },
		{ "iops:", -EINVAL, 0, 0, 0, 0, NULL },
		{ "iops:-5%", -EINVAL, 0, 0, 0, 0, NULL },
		{ "iops:10%@1", -EINVAL, 0, 0, 0, 0, NULL },
		{ "iops:10%@", -EINVAL, 0, 0, 0, 0, NULL },
		{ "snia:20%", -EINVAL, 0, 0, 0, 0, NULL },
		{ "bw:10%", -EINVAL, 0, 0, 0, 0, NULL },
		{ "", -EINVAL, 0, 0, 0, 0, NULL },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(prow); i++) {
		struct ss_criterion c;
		struct dut_error err = { { 0 } };
		char buf[64];
		int ret = ss_parse(prow[i].in, &c, &err);

		CU_CHECK(ret == prow[i].ret, "\"%s\": ret %d, want %d", prow[i].in, ret, prow[i].ret);
		if (ret) {
			CU_CHECK(err.msg[0] != '\0', "\"%s\": no error message", prow[i].in);
			continue;
		}
		CU_CHECK(c.kind == prow[i].kind && c.window == prow[i].window && c.range_pct == prow[i].range &&
				 c.slope_pct == prow[i].slope,
			 "\"%s\": kind %d window %u range %g slope %g", prow[i].in, c.kind, c.window, c.range_pct,
			 c.slope_pct);
		CU_CHECK(!strcmp(ss_describe(&c, buf, sizeof(buf)), prow[i].canonical), "\"%s\": described as %s",
			 prow[i].in, buf);
	}
}

static const struct cu_test tests[] = {
	{ "hand_computed_windows", test_hand_computed_windows },
	{ "criterion_syntax", test_criterion_syntax },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "probe_steady", .tests = tests };
