/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The sparse histogram (lib/hist_sparse.h).  Pure. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hist_sparse.h"
#include "lib/hist_view.h"

static bool is_wide(const struct dut_shist *h, unsigned c)
{
	return h->wide >> c & 1;
}

static size_t chunk_bytes(const struct dut_shist *h, unsigned c)
{
	return (is_wide(h, c) ? 2 : 1) * DUT_HIST_CHUNK * sizeof(uint32_t);
}

static uint64_t chunk_get(const struct dut_shist *h, unsigned c, unsigned i)
{
	const uint32_t *w = h->chunk[c];

	return w[i] | (is_wide(h, c) ? (uint64_t)w[DUT_HIST_CHUNK + i] << 32 : 0);
}

/* Chunk c (made) with its high words: -ENOMEM (h unchanged) when it cannot be. */
static int chunk_widen(struct dut_shist *h, unsigned c)
{
	uint32_t *w;

	if (is_wide(h, c))
		return 0;
	if (!(w = realloc(h->chunk[c], 2 * DUT_HIST_CHUNK * sizeof(*w))))
		return -ENOMEM;
	memset(w + DUT_HIST_CHUNK, 0, DUT_HIST_CHUNK * sizeof(*w));
	h->chunk[c] = w;
	h->wide |= UINT64_C(1) << c;
	return 0;
}

/* Bucket i of chunk c += v (the chunk made, wide when v needs it). */
static int chunk_add(struct dut_shist *h, unsigned c, unsigned i, uint64_t v)
{
	uint32_t *w = h->chunk[c];
	uint64_t lo = (uint64_t)w[i] + (uint32_t)v, hi = (v >> 32) + (lo >> 32);
	int r;

	if (hi && (r = chunk_widen(h, c)) < 0)
		return r;
	w = h->chunk[c];
	w[i] = (uint32_t)lo;
	if (hi)
		w[DUT_HIST_CHUNK + i] += (uint32_t)hi;
	return 0;
}

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
			memset(h->chunk[c], 0, chunk_bytes(h, c));
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
	if (!h->chunk[c] && !(h->chunk[c] = calloc(DUT_HIST_CHUNK, sizeof(uint32_t))))
		return -ENOMEM;
	return 0;
}

int dut_shist_carry(struct dut_shist *h, unsigned c, unsigned i)
{
	int r = chunk_widen(h, c);

	if (r < 0)
		return r;
	h->chunk[c][DUT_HIST_CHUNK + i]++;
	return 0;
}

int dut_shist_merge(struct dut_shist *dst, const struct dut_shist *src)
{
	for (unsigned c = 0; c < DUT_HIST_NCHUNKS; c++) {
		if (!src->chunk[c])
			continue;
		if (!dst->chunk[c] && dut_shist_chunk_make(dst, c * DUT_HIST_CHUNK) < 0)
			return -ENOMEM;
		for (unsigned i = 0; i < DUT_HIST_CHUNK; i++)
			if (chunk_add(dst, c, i, chunk_get(src, c, i)) < 0)
				return -ENOMEM;
	}
	DUT_HIST_SCALARS_MERGE(dst, src);
	return 0;
}

void dut_hist_merge_sparse(struct dut_hist *dst, const struct dut_shist *src)
{
	for (unsigned c = 0; c < DUT_HIST_NCHUNKS; c++) {
		if (!src->chunk[c])
			continue;
		for (unsigned i = 0; i < DUT_HIST_CHUNK; i++)
			dst->buckets[c * DUT_HIST_CHUNK + i] += chunk_get(src, c, i);
	}
	DUT_HIST_SCALARS_MERGE(dst, src);
}

static void view_of(const struct dut_shist *h, struct dut_hist_view *ret)
{
	ret->count = h->count;
	ret->min = h->min;
	ret->max = h->max;
	ret->sum = h->sum;
	ret->sumsq = h->sumsq;
	ret->dense = false;
	ret->wide = h->wide;
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
