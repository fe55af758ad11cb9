/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The sparse histogram (lib/hist_sparse.h).  Pure. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hist_sparse.h"
#include "lib/hist_view.h"

#define CHUNK_BYTES (DUT_HIST_CHUNK * sizeof(uint64_t))

struct dut_shist *dut_shist_new(void)
{
	struct dut_shist *h = calloc(1, sizeof(*h));

	if (h)
		h->min = UINT64_MAX;
	return h;
}

void dut_shist_free(struct dut_shist *h)
{
	if (!h)
		return;
	for (unsigned c = 0; c < DUT_HIST_NCHUNKS; c++)
		free(h->chunk[c]);
	free(h);
}

void dut_shist_reset(struct dut_shist *h)
{
	for (unsigned c = 0; c < DUT_HIST_NCHUNKS; c++)
		if (h->chunk[c])
			memset(h->chunk[c], 0, CHUNK_BYTES);
	h->count = 0;
	h->min = UINT64_MAX;
	h->max = 0;
	h->sum = 0;
	h->sumsq = 0;
}

int dut_shist_chunk_make(struct dut_shist *h, unsigned idx)
{
	unsigned c = idx / DUT_HIST_CHUNK;

	if (c >= DUT_HIST_NCHUNKS)
		return -EINVAL;
	if (!h->chunk[c] && !(h->chunk[c] = calloc(DUT_HIST_CHUNK, sizeof(uint64_t))))
		return -ENOMEM;
	return 0;
}

static void scalars_merge(struct dut_shist *dst, const struct dut_shist *src)
{
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->sum = dut_hist_sat_add64(dst->sum, src->sum);
	dst->sumsq = dut_hist_sat_add128(dst->sumsq, src->sumsq);
	dst->count += src->count;
}

int dut_shist_merge(struct dut_shist *dst, const struct dut_shist *src)
{
	for (unsigned c = 0; c < DUT_HIST_NCHUNKS; c++) {
		const uint64_t *s = src->chunk[c];
		uint64_t *d;

		if (!s)
			continue;
		if (!dst->chunk[c] && dut_shist_chunk_make(dst, c * DUT_HIST_CHUNK) < 0)
			return -ENOMEM;
		d = dst->chunk[c];
		for (unsigned i = 0; i < DUT_HIST_CHUNK; i++)
			d[i] += s[i];
	}
	scalars_merge(dst, src);
	return 0;
}

void dut_hist_merge_sparse(struct dut_hist *dst, const struct dut_shist *src)
{
	for (unsigned c = 0; c < DUT_HIST_NCHUNKS; c++) {
		const uint64_t *s = src->chunk[c];

		if (!s)
			continue;
		for (unsigned i = 0; i < DUT_HIST_CHUNK; i++)
			dst->buckets[c * DUT_HIST_CHUNK + i] += s[i];
	}
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->sum = dut_hist_sat_add64(dst->sum, src->sum);
	dst->sumsq = dut_hist_sat_add128(dst->sumsq, src->sumsq);
	dst->count += src->count;
}

static void view_of(const struct dut_shist *h, struct dut_hist_view *ret)
{
	ret->count = h->count;
	ret->min = h->min;
	ret->max = h->max;
	ret->sum = h->sum;
	ret->sumsq = h->sumsq;
	for (unsigned c = 0; c < DUT_HIST_NCHUNKS; c++)
		ret->chunk[c] = h->chunk[c];
}

uint64_t dut_shist_percentile(const struct dut_shist *h, double pct)
{
	struct dut_hist_view v;

	view_of(h, &v);
	return dut_hist_view_percentile(&v, pct);
}

double dut_shist_mean(const struct dut_shist *h)
{
	struct dut_hist_view v;

	view_of(h, &v);
	return dut_hist_view_mean(&v);
}

void dut_shist_summarize(const struct dut_shist *h, struct dut_hist_summary *ret)
{
	struct dut_hist_view v;

	view_of(h, &v);
	dut_hist_view_summarize(&v, ret);
}
