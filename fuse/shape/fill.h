/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fill level: which parts of which files hold data, at SHAPE_FILL_GRAIN
 * (64 KiB) granularity, one bitmap per file.  A grain counts as holding
 * data once any byte of it is written; a truncate frees the grains wholly
 * past the new size, a punched hole frees the grains it wholly covers (a
 * partly punched grain still holds data, as on a device with 64 KiB
 * mapping units).  Memory: one bit per 64 KiB of the highest written
 * offset, at most 2 MiB per file; offsets past 1 TiB in one file are not
 * tracked.  Not thread-safe (the owning model's lock covers it).
 */
#ifndef DUTFS_SHAPE_FILL_H
#define DUTFS_SHAPE_FILL_H

#include <stdint.h>

#include "fuse/shape/keymap.h"

#define SHAPE_FILL_GRAIN (64u * 1024u)
#define SHAPE_FILL_MAX_FILE_GRAINS (1ull << 24)

struct shape_fill {
	struct shape_keymap files;  /* file_key -> struct shape_fill_file * */
	uint64_t grains;            /* grains holding data, all files */
};

int shape_fill_write(struct shape_fill *f, uint64_t key, uint64_t offset, uint64_t len);
void shape_fill_truncate(struct shape_fill *f, uint64_t key, uint64_t size);
void shape_fill_punch(struct shape_fill *f, uint64_t key, uint64_t offset, uint64_t len);
void shape_fill_forget(struct shape_fill *f, uint64_t key);
/* Grains holding data in one file (0 if unknown). */
uint64_t shape_fill_file_grains(const struct shape_fill *f, uint64_t key);
void shape_fill_clear(struct shape_fill *f);

#endif
