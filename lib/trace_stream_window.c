/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Streaming reader: one trace read by several threads, each its own time
 * window through its own reader.  A clone shares the original's bytes and
 * scan (only read after the scan) and has its own merge; a window makes the
 * merge skip the blocks before it and stop at its end (trace_stream.c), so
 * a reader's work is about its window's records.  Pure.
 *
 * Order of closing: the clones first, then the original, which owns the
 * mapping and the scan.  The release hook (dropping pages behind a merge)
 * is shared: a page one reader drops is read again from the page cache by
 * another that still needs it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/trace.h"
#include "lib/trace_format.h"
#include "lib/trace_stream_priv.h"
#include "lib/trace_stream_tune.h"

static int clone_set(struct dut_trace_stream *s, struct dut_trace_stream **ret)
{
	struct dut_trace_stream **parts = calloc(s->nparts, sizeof(*parts));
	int r = 0;

	if (!parts)
		return -ENOMEM;
	for (size_t i = 0; i < s->nparts && r == 0; i++)
		r = dut_trace_stream_clone(s->parts[i], &parts[i]);
	if (r < 0) {
		for (size_t i = 0; i < s->nparts; i++)
			dut_trace_stream_close(parts[i]);
		free(parts);
		return r;
	}
	/* the set's seconds file is the original's alone: the clone has none */
	return dut_trace_stream_set(parts, s->nparts, NULL, ret);
}

int dut_trace_stream_clone(struct dut_trace_stream *s, struct dut_trace_stream **ret)
{
	struct dut_trace_stream *c;
	int r;

	if (s->nparts)
		return clone_set(s, ret);
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->shared = true;
	c->buf = s->buf;
	c->len = s->len;
	c->sc = s->sc;
	c->zero_dutfs = s->zero_dutfs;
	c->decoded_cap = s->decoded_cap;
	c->span_for = UINT64_MAX;
	r = dut_trace_stream_merge_init(c, s->bend);
	if (r < 0) {
		dut_trace_stream_close(c);
		return r;
	}
	dut_trace_stream_set_window(c, s->lo, s->hi);
	*ret = c;
	return 0;
}

void dut_trace_stream_set_window(struct dut_trace_stream *s, uint64_t lo, uint64_t hi)
{
	for (size_t i = 0; i < s->nparts; i++)
		dut_trace_stream_set_window(s->parts[i], lo, hi);
	s->lo = lo;
	s->hi = hi;
	if (!s->nparts)
		dut_trace_stream_window_reset(s);
}

/*
 * About how many records are before t: a block's records taken as spread
 * evenly over [min_ts, max_ts] (the index has nothing finer).
 */
static double recs_before(const struct dut_trace_stream *s, uint64_t t)
{
	double n = 0;

	for (size_t i = 0; i < s->nparts; i++)
		n += recs_before(s->parts[i], t);
	for (size_t k = 0; k < s->sc.nblocks && !s->nparts; k++) {
		const struct dut_trace_block *b = &s->sc.blocks[k];

		if (!b->nrecs || t <= b->min_ts)
			continue;
		if (t > b->max_ts)
			n += (double)b->nrecs;
		else
			n += (double)b->nrecs * (double)(t - b->min_ts) /
			     ((double)(b->max_ts - b->min_ts) + 1.0);
	}
	return n;
}

/* k == 0 has no windows: bounds[0] is left alone. */
void dut_trace_stream_cut(const struct dut_trace_stream *s, size_t k, uint64_t *bounds)
{
	double total = recs_before(s, UINT64_MAX);

	if (k == 0)
		return;
	bounds[0] = 0;
	bounds[k] = UINT64_MAX;
	/* each bound: the earliest time with i / k of the records before it (a monotone count) */
	for (size_t i = 1; i < k; i++) {
		double want = total * (double)i / (double)k;
		uint64_t lo = i > 1 ? bounds[i - 1] : 0, hi = UINT64_MAX;

		while (lo < hi) {
			uint64_t mid = lo + (hi - lo) / 2;

			if (recs_before(s, mid) >= want)
				hi = mid;
			else
				lo = mid + 1;
		}
		bounds[i] = lo;
	}
}

size_t dut_trace_stream_blocks_split(const struct dut_trace_stream *s)
{
	size_t n = s->blocks_split;

	for (size_t i = 0; i < s->nparts; i++)
		n += dut_trace_stream_blocks_split(s->parts[i]);
	return n;
}

void dut_trace_stream_take_error(struct dut_trace_stream *s, const struct dut_trace_stream *from)
{
	if (s->failed || !from->failed)
		return; /* s's own error (an earlier window's) comes first */
	dut_trace_stream_error(from, &s->merr);
	s->failed = from->failed;
}
