/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fuse/shape/journal.h"
#include "fuse/shape/keymap.h"

struct extent {
	uint64_t start, end;     /* [start, end) */
};

struct jfile {
	struct extent *ext;      /* sorted, disjoint, not adjacent */
	size_t n, cap;
	struct shape_loss loss;  /* of the latest journaled write */
};

struct inflight {
	uint64_t token, key, offset, len;
	struct shape_loss loss;
};

struct shape_journal {
	pthread_mutex_t lock;
	struct shape_keymap files;   /* key -> struct jfile *; lock */
	struct inflight *fl;         /* lock */
	size_t nfl, capfl;
	uint64_t next_token;         /* lock */
	uint64_t rng;                /* lock */
};

int shape_journal_new(uint64_t seed, struct shape_journal **ret)
{
	struct shape_journal *j = calloc(1, sizeof(*j));

	if (!j)
		return -ENOMEM;
	pthread_mutex_init(&j->lock, NULL);
	j->rng = seed;
	j->next_token = 1;
	*ret = j;
	return 0;
}

static void jfile_free(struct jfile *f)
{
	free(f->ext);
	free(f);
}

static void free_each(uint64_t key, void *val, void *arg)
{
	jfile_free(val);
}

void shape_journal_free(struct shape_journal *j)
{
	if (!j)
		return;
	shape_keymap_each(&j->files, free_each, NULL);
	shape_keymap_clear(&j->files);
	free(j->fl);
	pthread_mutex_destroy(&j->lock);
	free(j);
}

int shape_journal_write_begin(struct shape_journal *j, uint64_t key, uint64_t offset,
			      uint64_t len, const struct shape_loss *loss, uint64_t *ret_token)
{
	int r = 0;

	pthread_mutex_lock(&j->lock);
	if (j->nfl == j->capfl) {
		size_t ncap = j->capfl ? j->capfl * 2 : 16;
		struct inflight *n = ncap <= SHAPE_JOURNAL_MAX_INFLIGHT ?
				     realloc(j->fl, ncap * sizeof(*n)) : NULL;

		if (!n) {
			r = ncap <= SHAPE_JOURNAL_MAX_INFLIGHT ? -ENOMEM : -ENOSPC;
			goto out_unlock;
		}
		j->fl = n;
		j->capfl = ncap;
	}
	j->fl[j->nfl] = (struct inflight){ j->next_token, key, offset, len, *loss };
	*ret_token = j->next_token++;
	j->nfl++;
out_unlock:
	pthread_mutex_unlock(&j->lock);
	return r;
}

/* Merge [a, b) into f; coarsen when over the extent limit. */
static int jfile_add(struct jfile *f, uint64_t a, uint64_t b)
{
	size_t i = 0, k;

	while (i < f->n && f->ext[i].end < a)
		i++;
	k = i;
	while (k < f->n && f->ext[k].start <= b) {
		if (f->ext[k].start < a)
			a = f->ext[k].start;
		if (f->ext[k].end > b)
			b = f->ext[k].end;
		k++;
	}
	if (k > i) {
		/* replace ext[i..k) with one extent */
		f->ext[i] = (struct extent){ a, b };
		memmove(&f->ext[i + 1], &f->ext[k], (f->n - k) * sizeof(f->ext[0]));
		f->n -= k - i - 1;
		return 0;
	}
	if (f->n == f->cap) {
		size_t ncap = f->cap ? f->cap * 2 : 8;
		struct extent *n = realloc(f->ext, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		f->ext = n;
		f->cap = ncap;
	}
	memmove(&f->ext[i + 1], &f->ext[i], (f->n - i) * sizeof(f->ext[0]));
	f->ext[i] = (struct extent){ a, b };
	f->n++;
	if (f->n > SHAPE_JOURNAL_MAX_EXTENTS) {
		size_t best = 0;

		for (i = 1; i + 1 < f->n; i++) {
			if (f->ext[i + 1].start - f->ext[i].end < f->ext[best + 1].start - f->ext[best].end)
				best = i;
		}
		f->ext[best].end = f->ext[best + 1].end;
		memmove(&f->ext[best + 1], &f->ext[best + 2], (f->n - best - 2) * sizeof(f->ext[0]));
		f->n--;
	}
	return 0;
}

void shape_journal_write_end(struct shape_journal *j, uint64_t token, uint64_t written)
{
	struct jfile *f;

	pthread_mutex_lock(&j->lock);
	for (size_t i = 0; i < j->nfl; i++) {
		struct inflight w = j->fl[i];

		if (w.token != token)
			continue;
		j->fl[i] = j->fl[--j->nfl];
		if (written == 0)
			break;
		if (written > w.len)
			written = w.len;
		f = shape_keymap_get(&j->files, w.key);
		if (!f) {
			f = calloc(1, sizeof(*f));
			if (!f || shape_keymap_put(&j->files, w.key, f) < 0) {
				free(f);
				break;   /* ENOMEM: the range is not journaled (stays written) */
			}
		}
		f->loss = w.loss;
		jfile_add(f, w.offset, w.offset + written);
		break;
	}
	pthread_mutex_unlock(&j->lock);
}

void shape_journal_sync(struct shape_journal *j, uint64_t key)
{
	pthread_mutex_lock(&j->lock);
	struct jfile *f = shape_keymap_del(&j->files, key);
	pthread_mutex_unlock(&j->lock);
	if (f)
		jfile_free(f);
}

int shape_journal_drop_unsynced(struct shape_journal *j, uint64_t key,
				struct shape_discard **ret, size_t *ret_n)
{
	struct shape_discard *d = NULL;
	struct jfile *f;
	int r = 0;

	*ret = NULL;
	*ret_n = 0;
	pthread_mutex_lock(&j->lock);
	f = shape_keymap_get(&j->files, key);
	if (f && f->n && !(d = malloc(f->n * sizeof(*d)))) {
		r = -ENOMEM;
		goto out_unlock;
	}
	if (f) {
		for (size_t i = 0; i < f->n; i++)
			d[i] = (struct shape_discard){ key, f->ext[i].start, f->ext[i].end - f->ext[i].start };
		*ret = d;
		*ret_n = f->n;
		shape_keymap_del(&j->files, key);
		jfile_free(f);
	}
out_unlock:
	pthread_mutex_unlock(&j->lock);
	return r;
}

void shape_journal_forget(struct shape_journal *j, uint64_t key)
{
	shape_journal_sync(j, key);
}

void shape_journal_truncate(struct shape_journal *j, uint64_t key, uint64_t size)
{
	struct jfile *f;

	pthread_mutex_lock(&j->lock);
	f = shape_keymap_get(&j->files, key);
	if (f) {
		while (f->n && f->ext[f->n - 1].start >= size)
			f->n--;
		if (f->n && f->ext[f->n - 1].end > size)
			f->ext[f->n - 1].end = size;
	}
	pthread_mutex_unlock(&j->lock);
}

uint64_t shape_journal_unsynced_bytes(struct shape_journal *j, uint64_t key)
{
	uint64_t sum = 0;
	struct jfile *f;

	pthread_mutex_lock(&j->lock);
	f = shape_keymap_get(&j->files, key);
	for (size_t i = 0; f && i < f->n; i++)
		sum += f->ext[i].end - f->ext[i].start;
	pthread_mutex_unlock(&j->lock);
	return sum;
}

/* ---- the crash plan ---- */

struct plan {
	struct shape_discard *d;
	size_t n, cap;
	int err;
};

static void plan_add(struct plan *p, uint64_t key, uint64_t start, uint64_t end)
{
	if (start >= end || p->err)
		return;
	if (p->n == p->cap) {
		size_t ncap = p->cap ? p->cap * 2 : 16;
		struct shape_discard *n = realloc(p->d, ncap * sizeof(*n));

		if (!n) {
			p->err = -ENOMEM;
			return;
		}
		p->d = n;
		p->cap = ncap;
	}
	p->d[p->n++] = (struct shape_discard){ key, start, end - start };
}

static void collect_key(uint64_t key, void *val, void *arg)
{
	struct plan *keys = arg;

	plan_add(keys, key, 0, 1);
}

static int cmp_discard(const void *a, const void *b)
{
	const struct shape_discard *x = a, *y = b;

	if (x->file_key != y->file_key)
		return x->file_key < y->file_key ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return 0;
}

static bool lost(uint64_t *rng, double pct)
{
	if (pct >= 100)
		return true;
	if (pct <= 0)
		return false;
	return shape_rng_unit(rng) < pct / 100;
}

/* A completed unsynced extent: lost whole, or grain by grain (out of order). */
static void lose_extent(struct plan *p, uint64_t *rng, uint64_t key, const struct shape_loss *l,
			const struct extent *x)
{
	uint64_t g = l->grain;

	if (!g || l->lose_pct >= 100 || l->lose_pct <= 0) {
		if (lost(rng, l->lose_pct))
			plan_add(p, key, x->start, x->end);
		return;
	}
	for (uint64_t a = x->start; a < x->end;) {
		uint64_t b = (a / g + 1) * g;

		if (b > x->end)
			b = x->end;
		if (lost(rng, l->lose_pct))
			plan_add(p, key, a, b);
		a = b;
	}
}

/* The sectors of an in-flight write that do not persist. */
static void tear(struct plan *p, uint64_t *rng, const struct inflight *w)
{
	uint64_t s = w->loss.sector ? w->loss.sector : 512;
	uint64_t end = w->offset + w->len, first = w->offset / s, last = (end - 1) / s;
	uint64_t n = last - first + 1, keep;

	if (w->len == 0)
		return;
	switch (w->loss.torn) {
	case SHAPE_TORN_NONE:
		plan_add(p, w->key, w->offset, end);
		return;
	case SHAPE_TORN_PREFIX:
		keep = shape_rng_next(rng) % (n + 1);
		plan_add(p, w->key, shape_max_u64(w->offset, (first + keep) * s), end);
		return;
	case SHAPE_TORN_RANDOM:
		for (uint64_t k = first; k <= last; k++) {
			if (shape_rng_next(rng) & 1)
				continue;   /* this sector persisted */
			plan_add(p, w->key, shape_max_u64(w->offset, k * s),
				 k * s + s < end ? k * s + s : end);
		}
		return;
	}
}

static int cmp_inflight(const void *a, const void *b)
{
	const struct inflight *x = a, *y = b;

	return x->token < y->token ? -1 : x->token > y->token;
}

int shape_journal_crash(struct shape_journal *j, struct shape_discard **ret, size_t *ret_n)
{
	struct plan keys = { 0 }, p = { 0 };
	size_t out = 0;

	pthread_mutex_lock(&j->lock);
	/* visit files in key order so the random draws do not depend on the hash layout */
	shape_keymap_each(&j->files, collect_key, &keys);
	if (keys.err)
		goto out_unlock;
	if (keys.n > 1)
		qsort(keys.d, keys.n, sizeof(keys.d[0]), cmp_discard);
	for (size_t i = 0; i < keys.n; i++) {
		struct jfile *f = shape_keymap_get(&j->files, keys.d[i].file_key);

		for (size_t e = 0; e < f->n; e++)
			lose_extent(&p, &j->rng, keys.d[i].file_key, &f->loss, &f->ext[e]);
	}
	if (j->nfl > 1)
		qsort(j->fl, j->nfl, sizeof(j->fl[0]), cmp_inflight);
	for (size_t i = 0; i < j->nfl; i++)
		tear(&p, &j->rng, &j->fl[i]);
	if (p.err)
		goto out_unlock;

	if (p.n > 1)
		qsort(p.d, p.n, sizeof(p.d[0]), cmp_discard);
	for (size_t i = 0; i < p.n; i++) {
		struct shape_discard *last = out ? &p.d[out - 1] : NULL;

		if (last && last->file_key == p.d[i].file_key &&
		    p.d[i].offset <= last->offset + last->len) {
			uint64_t end = p.d[i].offset + p.d[i].len;

			if (end > last->offset + last->len)
				last->len = end - last->offset;
		} else {
			p.d[out++] = p.d[i];
		}
	}
	shape_keymap_each(&j->files, free_each, NULL);
	shape_keymap_clear(&j->files);
	j->nfl = 0;
	*ret = out ? p.d : NULL;
	*ret_n = out;
	if (!out)
		free(p.d);
	p.d = NULL;
out_unlock:
	pthread_mutex_unlock(&j->lock);
	free(keys.d);
	free(p.d);
	return keys.err ? keys.err : p.err;
}
