/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Steady-state detection on a per-round series (pure code).
 *
 * Every criterion looks at the last `window` rounds y[n-window .. n):
 *
 *  snia[:R%,S%]   SNIA SSS PTS (default R = 20 %, S = 10 %, window 5):
 *                 range:  max - min           <= R % of the window mean, and
 *                 slope:  |b| * (window - 1)  <= S % of the window mean,
 *                 where b is the least-squares slope per round (x = 0..window-1),
 *                 so |b|*(window-1) is the excursion of the fitted line.
 *  iops:N%        fio's steadystate=iops:N%: every value within N % of the mean,
 *                 max |y_i - mean| <= N % of mean.
 *  iops_slope:N%  fio's steadystate=iops_slope:N%: |b| <= N % of the mean
 *                 (b per round, as fio's per-sample slope).
 *  Any of them may end in "@W" to set the window: "iops:10%@8".
 */
#ifndef DUTPROBE_STEADY_H
#define DUTPROBE_STEADY_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/error.h"

enum ss_kind { SS_SNIA, SS_FIO_IOPS, SS_FIO_SLOPE };

struct ss_criterion {
	enum ss_kind kind;
	unsigned window;          /* rounds, >= 2 */
	double range_pct;         /* snia: range limit; iops: deviation limit */
	double slope_pct;         /* snia: excursion limit; iops_slope: slope limit */
};

struct ss_eval {
	bool attained;
	double mean, min, max;
	double slope;             /* per round */
	double range_pct;         /* (max - min) / mean * 100 */
	double excursion_pct;     /* |slope| * (window - 1) / mean * 100 */
	double max_dev_pct;       /* max |y - mean| / mean * 100 */
	double slope_pct;         /* |slope| / mean * 100 */
};

void ss_criterion_default(struct ss_criterion *ret);   /* snia:20%,10%@5 */
int ss_parse(const char *s, struct ss_criterion *ret, struct dut_error *err);
/* "snia:20%,10%@5", "iops:10%@5", "iops_slope:2%@5". */
char *ss_describe(const struct ss_criterion *c, char *buf, size_t len);
/*
 * Evaluate over the last window values of y[0..n).  -EAGAIN when n < window
 * (not enough rounds yet); -EINVAL for a non-positive mean.
 */
int ss_evaluate(const struct ss_criterion *c, const double *y, size_t n, struct ss_eval *ret);

#endif
