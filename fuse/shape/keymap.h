/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A small map from uint64_t file keys to pointers (open addressing, linear
 * probing, backward-shift deletion).  Not thread-safe: the owner locks.
 */
#ifndef DUTFS_SHAPE_KEYMAP_H
#define DUTFS_SHAPE_KEYMAP_H

#include <stddef.h>
#include <stdint.h>

struct shape_keymap {
	size_t cap;        /* power of two, or 0 */
	size_t count;
	uint64_t *keys;
	void **vals;       /* NULL = empty slot */
};

void *shape_keymap_get(const struct shape_keymap *m, uint64_t key);
/* Insert or replace (val != NULL); -ENOMEM. */
int shape_keymap_put(struct shape_keymap *m, uint64_t key, void *val);
/* Remove and return the value (NULL if absent). */
void *shape_keymap_del(struct shape_keymap *m, uint64_t key);
/* Visit every entry; fn may not modify the map. */
void shape_keymap_each(const struct shape_keymap *m, void (*fn)(uint64_t key, void *val, void *arg),
		       void *arg);
/* Free the table (not the values). */
void shape_keymap_clear(struct shape_keymap *m);

#endif
