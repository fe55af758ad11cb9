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

void dut_hist_view_of(const struct dut_hist *h, struct dut_hist_view *ret);
uint64_t dut_hist_view_percentile(const struct dut_hist_view *h, double pct);
double dut_hist_view_mean(const struct dut_hist_view *h);
double dut_hist_view_stddev(const struct dut_hist_view *h);
void dut_hist_view_summarize(const struct dut_hist_view *h, struct dut_hist_summary *ret);

#endif
