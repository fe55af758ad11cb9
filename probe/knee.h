/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Knee (change-point) detection on a throughput series (pure code).
 *
 * Model: the series is piecewise constant plus noise.  The fit runs on a
 * running median of 3 of the series (a lone spike is dropped, step edges stay
 * in place); plateau medians use the raw samples.  Binary segmentation:
 *
 *  1. For a segment y[lo..hi), try every split k (each side at least min_seg
 *     samples) and keep the one with the smallest residual sum of squares
 *     RSS2(k) = RSS(lo..k) + RSS(k..hi) of the two-mean fit (prefix sums: O(n)).
 *  2. Accept the split when the two-segment model wins by the Bayesian
 *     information criterion against one mean, with the change point counted
 *     as a parameter (Gaussian log-likelihood, unknown common variance):
 *         m * ln(RSS1 / RSS2) > penalty * ln(m),   m = hi - lo, penalty = 3
 *     AND the two levels differ by at least min_rel_change of the larger one
 *     (so slow drift in a long series is not reported as a knee).
 *  3. Recurse into both halves (at most max_knees splits in all).
 *  4. Merge any knee whose final neighbouring segments' medians differ by
 *     less than min_rel_change (later cuts can bring them together): no
 *     knee is reported below the threshold.
 *
 * For each knee we report:
 *  - the levels before/after: the medians of the adjacent final segments
 *    (robust to spikes), and their means;
 *  - a 95 % interval for its position: every split k' whose fit is not
 *    significantly worse, m * ln(RSS2(k') / RSS2(k)) <= 3.84 (chi-square, 1 dof:
 *    the profile-likelihood interval);
 *  - t: the level difference over its standard error, |m1 - m2| /
 *    sqrt(s^2 (1/n1 + 1/n2)), s^2 = RSS2 / (m - 2);
 *  - confidence: "high" when t >= 10 and the interval spans at most
 *    max(1, 5 %) of the samples before the knee; "medium" when t >= 5 and it
 *    spans at most 20 %; "low" otherwise.
 *
 * Measured on seeded series with 10 % gaussian noise, 300 seeds each (n = 10
 * .. 1000 samples): a knee is reported in 0-3 % of flat series, and a 30 %
 * drop at mid-series is found within +-2 samples in 95-99 % of them.
 */
#ifndef DUTPROBE_KNEE_H
#define DUTPROBE_KNEE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KNEE_MAX 8

struct knee_opts {
	size_t min_seg;           /* samples on each side of a split; default 3 */
	double min_rel_change;    /* default 0.15 (15 %) */
	double penalty;           /* BIC penalty factor; default 3 */
	unsigned max_knees;       /* default and cap KNEE_MAX */
	bool smooth;              /* fit a running median of 3 (default true) */
};

struct knee_point {
	size_t index;             /* first sample after the knee */
	size_t ci_lo, ci_hi;      /* 95 % interval of index */
	double median_before, median_after;
	double mean_before, mean_after;
	double rel_change;        /* (after - before) / before, of the medians */
	double t_stat;            /* INFINITY for a noiseless series */
	const char *confidence;   /* "high" | "medium" | "low" */
};

struct knee_segment {
	size_t first, end;        /* samples [first, end) */
	double mean, median;
};

struct knee_result {
	size_t nknees;
	struct knee_point knees[KNEE_MAX];      /* by index */
	size_t nsegments;                       /* nknees + 1 */
	struct knee_segment segments[KNEE_MAX + 1];
	const char *why_none;                   /* when nknees == 0: the reason */
};

/*
 * Where a knee of a rate series lies in units of work (bytes written), when
 * sample i covers the work (end[i - 1], end[i]] (end[-1] = 0):
 *  - at: the work done at the before level in the two samples around the
 *    split, assuming the change happened inside one of them (a sample that
 *    straddles it runs at the harmonic mix of the two levels: the time of
 *    each part adds up), so a knee mid-window is placed mid-window;
 *  - lo, hi: the 95 % interval widened by one sample on each side, because
 *    a change inside a sample moves the split by one either way; it
 *    contains the true position whenever the split's interval holds.
 */
struct knee_locus {
	uint64_t at, lo, hi;
};

void knee_opts_default(struct knee_opts *o);
void knee_locate(const struct knee_point *k, const double *y, const uint64_t *end, size_t n,
		 struct knee_locus *ret);
/* 0, or -EINVAL for NULL y with n > 0. A short series is not an error: no knee, why_none says so. */
int knee_detect(const double *y, size_t n, const struct knee_opts *o, struct knee_result *ret);

#endif
