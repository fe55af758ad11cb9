/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>

#include "fuse/shape/keymap.h"

static size_t slot_of(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

void *shape_keymap_get(const struct shape_keymap *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (!m->vals[i])
			return NULL;
		if (m->keys[i] == key)
			return m->vals[i];
	}
}

static int grow(struct shape_keymap *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 16;
	uint64_t *nk = calloc(ncap, sizeof(*nk));
	void **nv = calloc(ncap, sizeof(*nv));

	if (!nk || !nv) {
		free(nk);
		free(nv);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		size_t j;

		if (!m->vals[i])
			continue;
		for (j = slot_of(m->keys[i], ncap); nv[j]; j = (j + 1) & (ncap - 1))
			;
		nk[j] = m->keys[i];
		nv[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = nk;
	m->vals = nv;
	m->cap = ncap;
	return 0;
}

int shape_keymap_put(struct shape_keymap *m, uint64_t key, void *val)
{
	size_t i;

	/* load factor at most 1/2 */
	if ((m->count + 1) * 2 > m->cap && grow(m) < 0)
		return -ENOMEM;
	for (i = slot_of(key, m->cap); m->vals[i]; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key) {
			m->vals[i] = val;
			return 0;
		}
	}
	m->keys[i] = key;
	m->vals[i] = val;
	m->count++;
	return 0;
}

void *shape_keymap_del(struct shape_keymap *m, uint64_t key)
{
	size_t i, j, mask = m->cap - 1;
	void *val;

	if (!m->cap)
		return NULL;
	for (i = slot_of(key, m->cap);; i = (i + 1) & mask) {
		if (!m->vals[i])
			return NULL;
		if (m->keys[i] == key)
			break;
	}
	val = m->vals[i];
	m->vals[i] = NULL;
	m->count--;
	/* backward shift: move later members of the probe run into the hole */
	for (j = (i + 1) & mask; m->vals[j]; j = (j + 1) & mask) {
		size_t home = slot_of(m->keys[j], m->cap);

		/* j may move to i when home is not cyclically in (i, j] */
		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->keys[i] = m->keys[j];
			m->vals[i] = m->vals[j];
			m->vals[j] = NULL;
			i = j;
		}
	}
	return val;
}

void shape_keymap_each(const struct shape_keymap *m, void (*fn)(uint64_t key, void *val, void *arg),
		       void *arg)
{
	for (size_t i = 0; i < m->cap; i++) {
		if (m->vals[i])
			fn(m->keys[i], m->vals[i], arg);
	}
}

void shape_keymap_clear(struct shape_keymap *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
	m->cap = m->count = 0;
}
