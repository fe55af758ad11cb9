/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Private to hist.c, hist_query.c and hist_sparse.c: a histogram seen as
 * its scalars and its buckets in chunks of DUT_HIST_CHUNK (NULL: all zero),
 * which is what the queries read, dense or sparse.
 */
#ifndef DUT_HIST_VIEW_H
#define DUT_HIST_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/hist.h"

struct dut_hist_view {
	uint64_t count, min, max, sum;
	unsigned __int128 sumsq;
	/*
	 * dense: the chunks are uint64_t counts.  Else uint32_t counts, and
	 * when bit c of wide is set, chunk c has as many high words after them.
	 */
	bool dense;
	uint64_t wide;
	const void *chunk[DUT_HIST_NCHUNKS];
};

/*
 * dst's count, min, max, sum and sumsq += src's, for either kind of
 * histogram (their fields have the same names).  Saturating addition of
 * non-negative numbers is associative, so merging in any order gives the
 * sum and sumsq of one histogram fed every value.
 */
#define DUT_HIST_SCALARS_MERGE(dst, src)                                        \
	do {                                                                    \
		if ((src)->min < (dst)->min)                                    \
			(dst)->min = (src)->min;                                \
		if ((src)->max > (dst)->max)                                    \
			(dst)->max = (src)->max;                                \
		(dst)->sum = dut_hist_sat_add64((dst)->sum, (src)->sum);        \
		(dst)->sumsq = dut_hist_sat_add128((dst)->sumsq, (src)->sumsq); \
		(dst)->count += (src)->count;                                   \
	} while (0)

uint64_t dut_hist_view_percentile(const struct dut_hist_view *h, double pct);
double dut_hist_view_mean(const struct dut_hist_view *h);
double dut_hist_view_stddev(const struct dut_hist_view *h);
void dut_hist_view_summarize(const struct dut_hist_view *h, struct dut_hist_summary *ret);

#endif
