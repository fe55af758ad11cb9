/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fuse/shape/fill.h"

struct shape_fill_file {
	uint64_t nbits;    /* bits allocated (multiple of 64) */
	uint64_t *words;
	uint64_t set;      /* bits set */
};

/* Set or clear bits [lo, hi); returns how many changed. */
static uint64_t range_op(uint64_t *w, uint64_t lo, uint64_t hi, bool set)
{
	uint64_t changed = 0;

	while (lo < hi) {
		uint64_t i = lo / 64, b = lo % 64;
		uint64_t n = 64 - b < hi - lo ? 64 - b : hi - lo;
		uint64_t mask = (n == 64 ? ~0ull : ((1ull << n) - 1)) << b;

		if (set) {
			changed += (uint64_t)__builtin_popcountll(mask & ~w[i]);
			w[i] |= mask;
		} else {
			changed += (uint64_t)__builtin_popcountll(mask & w[i]);
			w[i] &= ~mask;
		}
		lo += n;
	}
	return changed;
}

static int ensure_bits(struct shape_fill_file *ff, uint64_t nbits)
{
	uint64_t want = ff->nbits ? ff->nbits : 64;
	uint64_t *nw;

	if (nbits <= ff->nbits)
		return 0;
	while (want < nbits)
		want *= 2;
	nw = realloc(ff->words, want / 8);
	if (!nw)
		return -ENOMEM;
	memset(nw + ff->nbits / 64, 0, (want - ff->nbits) / 8);
	ff->words = nw;
	ff->nbits = want;
	return 0;
}

int shape_fill_write(struct shape_fill *f, uint64_t key, uint64_t offset, uint64_t len)
{
	struct shape_fill_file *ff = shape_keymap_get(&f->files, key);
	uint64_t lo, hi;

	if (len == 0 || offset / SHAPE_FILL_GRAIN >= SHAPE_FILL_MAX_FILE_GRAINS)
		return 0;
	lo = offset / SHAPE_FILL_GRAIN;
	hi = (offset + len - 1) / SHAPE_FILL_GRAIN + 1;
	if (hi > SHAPE_FILL_MAX_FILE_GRAINS)
		hi = SHAPE_FILL_MAX_FILE_GRAINS;
	if (!ff) {
		ff = calloc(1, sizeof(*ff));
		if (!ff)
			return -ENOMEM;
		if (shape_keymap_put(&f->files, key, ff) < 0) {
			free(ff);
			return -ENOMEM;
		}
	}
	if (ensure_bits(ff, hi) < 0)
		return -ENOMEM;
	lo = range_op(ff->words, lo, hi, true);
	ff->set += lo;
	f->grains += lo;
	return 0;
}

static void clear_range(struct shape_fill *f, struct shape_fill_file *ff, uint64_t lo, uint64_t hi)
{
	uint64_t n;

	if (hi > ff->nbits)
		hi = ff->nbits;
	if (lo >= hi)
		return;
	n = range_op(ff->words, lo, hi, false);
	ff->set -= n;
	f->grains -= n;
}

void shape_fill_truncate(struct shape_fill *f, uint64_t key, uint64_t size)
{
	struct shape_fill_file *ff = shape_keymap_get(&f->files, key);

	if (ff)
		clear_range(f, ff, size / SHAPE_FILL_GRAIN + (size % SHAPE_FILL_GRAIN != 0), ff->nbits);
}

void shape_fill_punch(struct shape_fill *f, uint64_t key, uint64_t offset, uint64_t len)
{
	struct shape_fill_file *ff = shape_keymap_get(&f->files, key);
	uint64_t end = offset + len < offset ? UINT64_MAX : offset + len;

	if (ff)
		clear_range(f, ff, offset / SHAPE_FILL_GRAIN + (offset % SHAPE_FILL_GRAIN != 0),
			    end / SHAPE_FILL_GRAIN);
}

static void free_file(struct shape_fill_file *ff)
{
	free(ff->words);
	free(ff);
}

void shape_fill_forget(struct shape_fill *f, uint64_t key)
{
	struct shape_fill_file *ff = shape_keymap_del(&f->files, key);

	if (ff) {
		f->grains -= ff->set;
		free_file(ff);
	}
}

uint64_t shape_fill_file_grains(const struct shape_fill *f, uint64_t key)
{
	const struct shape_fill_file *ff = shape_keymap_get(&f->files, key);

	return ff ? ff->set : 0;
}

static void free_each(uint64_t key, void *val, void *arg)
{
	free_file(val);
}

void shape_fill_clear(struct shape_fill *f)
{
	shape_keymap_each(&f->files, free_each, NULL);
	shape_keymap_clear(&f->files);
	f->grains = 0;
}
