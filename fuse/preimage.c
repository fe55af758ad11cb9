/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The pre-image store (preimage.h).  Per file: a sorted array of disjoint
 * segments; a segment holds the first data_len bytes as data and the rest
 * as "no data" (past the end of file when it was saved).  Writes that
 * extend a segment's range contiguously are appended to it, so a
 * sequential writer makes one segment, not one per request.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuse/dutfs.h"
#include "fuse/preimage.h"
#include "fuse/shape/keymap.h"

/* A segment stops growing here, so appending stays cheap. */
#define SEG_MAX_BYTES (16ull << 20)

struct seg {
	uint64_t off, len;     /* [off, off + len) */
	uint64_t data_len;     /* bytes of data from off; the rest had no data */
	unsigned char *data;
};

struct pfile {
	struct dutfs_inode *in;  /* a reference is held */
	uint64_t synced_size;    /* file size when its first pre-image was saved */
	struct seg *s;           /* sorted by off, disjoint */
	size_t n, cap;
};

struct dutfs_preimages {
	struct dutfs *fs;
	pthread_mutex_t lock;
	struct shape_keymap files;   /* key -> struct pfile *; lock */
	struct dutfs_preimage_stats st; /* lock */
};

int dutfs_preimages_new(struct dutfs *fs, uint64_t max_bytes, struct dutfs_preimages **ret)
{
	struct dutfs_preimages *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->fs = fs;
	p->st.max_bytes = max_bytes;
	pthread_mutex_init(&p->lock, NULL);
	*ret = p;
	return 0;
}

/* Open the backing file for data I/O through its O_PATH fd. */
static int open_backing(struct dutfs_inode *in, int flags)
{
	char pp[64];
	int fd;

	snprintf(pp, sizeof(pp), "/proc/self/fd/%d", in->fd);
	fd = open(pp, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* Under p->lock. */
static void pfile_free(struct dutfs_preimages *p, struct pfile *f)
{
	for (size_t i = 0; i < f->n; i++) {
		p->st.bytes -= f->s[i].data_len;
		free(f->s[i].data);
	}
	p->st.files--;
	dutfs_inode_unref(p->fs, f->in, 1);
	free(f->s);
	free(f);
}

static void free_each(uint64_t key, void *val, void *arg)
{
	(void)key;
	pfile_free(arg, val);
}

void dutfs_preimages_clear(struct dutfs_preimages *p)
{
	pthread_mutex_lock(&p->lock);
	shape_keymap_each(&p->files, free_each, p);
	shape_keymap_clear(&p->files);
	pthread_mutex_unlock(&p->lock);
}

void dutfs_preimages_free(struct dutfs_preimages *p)
{
	if (!p)
		return;
	dutfs_preimages_clear(p);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

/* Index of the first segment ending after off. */
static size_t seg_search(const struct pfile *f, uint64_t off)
{
	size_t lo = 0, hi = f->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (f->s[mid].off + f->s[mid].len <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Save [a, b) (no pre-image yet) as a segment at index i; fd/size: the backing file. */
static int seg_add(struct dutfs_preimages *p, struct pfile *f, size_t i, uint64_t a, uint64_t b,
		   int fd, uint64_t size)
{
	uint64_t dlen = size > a ? (size - a < b - a ? size - a : b - a) : 0;
	struct seg *prev = i > 0 ? &f->s[i - 1] : NULL;
	unsigned char *buf;
	ssize_t got;

	/* append to the previous segment when contiguous and all data */
	if (prev && prev->off + prev->len == a && prev->data_len == prev->len &&
	    prev->len + (b - a) <= SEG_MAX_BYTES && dlen > 0) {
		buf = realloc(prev->data, prev->data_len + dlen);
		if (!buf)
			return -ENOMEM;
		prev->data = buf;
		buf += prev->data_len;
	} else {
		if (f->n == f->cap) {
			size_t ncap = f->cap ? f->cap * 2 : 8;
			struct seg *ns = realloc(f->s, ncap * sizeof(*ns));

			if (!ns)
				return -ENOMEM;
			f->s = ns;
			f->cap = ncap;
		}
		buf = dlen ? malloc(dlen) : NULL;
		if (dlen && !buf)
			return -ENOMEM;
		memmove(&f->s[i + 1], &f->s[i], (f->n - i) * sizeof(f->s[0]));
		f->s[i] = (struct seg){ .off = a, .len = 0, .data_len = 0, .data = buf };
		f->n++;
		prev = &f->s[i];
	}
	for (uint64_t done = 0; done < dlen;) {
		got = pread(fd, buf + done, dlen - done, (off_t)(a + done));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			/* shorter than fstat said (a race with a truncate): the rest has no data */
			dlen = done;
			break;
		}
		done += (uint64_t)got;
	}
	prev->len += b - a;
	prev->data_len += dlen;
	p->st.bytes += dlen;
	return 0;
}

int dutfs_preimages_save(struct dutfs_preimages *p, uint64_t key, struct dutfs_inode *in,
			 uint64_t offset, uint64_t len)
{
	uint64_t end = offset + len, need = 0, pos;
	struct pfile *f;
	struct stat st;
	size_t i;
	int fd = -1, r = 0;

	if (len == 0)
		return 0;
	pthread_mutex_lock(&p->lock);
	f = shape_keymap_get(&p->files, key);
	/* bytes without a pre-image yet (an upper bound on the data to save) */
	i = f ? seg_search(f, offset) : 0;
	pos = offset;
	for (size_t k = i; f && k < f->n && f->s[k].off < end; k++) {
		if (f->s[k].off > pos)
			need += f->s[k].off - pos;
		pos = f->s[k].off + f->s[k].len;
	}
	if (pos < end)
		need += end - pos;
	if (need == 0)
		goto out_unlock;
	fd = open_backing(in, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		r = fd < 0 ? fd : -errno;
		p->st.save_errors++;
		goto out_unlock;
	}
	if (need > (uint64_t)st.st_size - (offset < (uint64_t)st.st_size ? offset : (uint64_t)st.st_size))
		need = (uint64_t)st.st_size > offset ? (uint64_t)st.st_size - offset : 0;
	if (p->st.bytes + need > p->st.max_bytes) {
		p->st.refused_writes++;
		r = -ENOSPC;
		goto out_unlock;
	}
	if (!f) {
		f = calloc(1, sizeof(*f));
		if (!f || shape_keymap_put(&p->files, key, f) < 0) {
			free(f);
			r = -ENOMEM;
			goto out_unlock;
		}
		f->in = in;
		f->synced_size = (uint64_t)st.st_size;
		dutfs_inode_ref(p->fs, in);
		p->st.files++;
	}
	/* fill the gaps, left to right (indices shift as segments are inserted) */
	pos = offset;
	i = seg_search(f, offset);
	while (pos < end && r == 0) {
		if (i < f->n && f->s[i].off <= pos) {
			pos = f->s[i].off + f->s[i].len;
			i++;
			continue;
		}
		uint64_t gap_end = i < f->n && f->s[i].off < end ? f->s[i].off : end;
		size_t before = f->n;

		r = seg_add(p, f, i, pos, gap_end, fd, (uint64_t)st.st_size);
		pos = gap_end;
		if (f->n > before)
			i++;
	}
	if (r < 0)
		p->st.save_errors++;
out_unlock:
	pthread_mutex_unlock(&p->lock);
	if (fd >= 0)
		close(fd);
	return r;
}

void dutfs_preimages_drop(struct dutfs_preimages *p, uint64_t key)
{
	struct pfile *f;

	pthread_mutex_lock(&p->lock);
	f = shape_keymap_del(&p->files, key);
	if (f)
		pfile_free(p, f);
	pthread_mutex_unlock(&p->lock);
}

void dutfs_preimages_truncate(struct dutfs_preimages *p, uint64_t key, uint64_t size)
{
	struct pfile *f;

	pthread_mutex_lock(&p->lock);
	f = shape_keymap_get(&p->files, key);
	if (f) {
		/* the truncate persists at a crash: bytes past size cannot come back */
		while (f->n && f->s[f->n - 1].off >= size) {
			struct seg *s = &f->s[--f->n];

			p->st.bytes -= s->data_len;
			free(s->data);
		}
		if (f->n && f->s[f->n - 1].off + f->s[f->n - 1].len > size) {
			struct seg *s = &f->s[f->n - 1];

			s->len = size - s->off;
			if (s->data_len > s->len) {
				p->st.bytes -= s->data_len - s->len;
				s->data_len = s->len;
			}
		}
		/* a truncate persists (it is not journaled): the durable size is now size */
		f->synced_size = size;
	}
	pthread_mutex_unlock(&p->lock);
}

static int pwrite_all(int fd, const unsigned char *b, uint64_t len, uint64_t off)
{
	while (len) {
		ssize_t n = pwrite(fd, b, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		b += n;
		len -= (uint64_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

static void note_err(struct dutfs_preimages *p, int *first, int r)
{
	if (r < 0) {
		p->st.restore_errors++;
		if (!*first)
			*first = r;
	}
}

/* Put back [a, b) of file f from its segments (under p->lock). */
static void restore_range(struct dutfs_preimages *p, struct pfile *f, int fd, uint64_t a,
			  uint64_t b, int *first)
{
	uint64_t pos = a;

	for (size_t i = seg_search(f, a); i < f->n && f->s[i].off < b; i++) {
		const struct seg *s = &f->s[i];
		uint64_t lo = s->off > pos ? s->off : pos;
		uint64_t hi = s->off + s->len < b ? s->off + s->len : b;
		uint64_t dend = s->off + s->data_len;

		if (lo > pos)
			p->st.missing_bytes += lo - pos;
		if (lo < dend) {
			uint64_t e = hi < dend ? hi : dend;

			note_err(p, first, pwrite_all(fd, s->data + (lo - s->off), e - lo, lo));
			p->st.restored_bytes += e - lo;
			lo = e;
		}
		if (lo < hi) {
			/* no data at the last sync: a hole (a tail is truncated later) */
			if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)lo,
				      (off_t)(hi - lo)) < 0 && errno != EOPNOTSUPP)
				note_err(p, first, -errno);
			p->st.hole_bytes += hi - lo;
		}
		pos = hi;
	}
	if (pos < b)
		p->st.missing_bytes += b - pos;
}

/* Is [a, b) inside the union of the sorted, merged ranges plan[0..n)? */
static bool plan_covers(const struct shape_discard *plan, size_t n, uint64_t a, uint64_t b)
{
	for (size_t k = 0; k < n && a < b; k++) {
		if (plan[k].offset > a)
			return false;
		if (plan[k].offset + plan[k].len > a)
			a = plan[k].offset + plan[k].len;
	}
	return a >= b;
}

/*
 * Did the file grow past its synced size only through writes the plan
 * discards?  Every byte written since the sync has a segment, so: some
 * segment lies past synced_size, and all of them are discarded there.
 * (Bytes past synced_size without a segment were never written: a gap.)
 */
static bool tail_discarded(const struct pfile *f, const struct shape_discard *plan, size_t n,
			   uint64_t size)
{
	bool any = false;

	for (size_t i = seg_search(f, f->synced_size); i < f->n && f->s[i].off < size; i++) {
		uint64_t a = f->s[i].off > f->synced_size ? f->s[i].off : f->synced_size;
		uint64_t b = f->s[i].off + f->s[i].len < size ? f->s[i].off + f->s[i].len : size;

		if (a >= b)
			continue;
		if (!plan_covers(plan, n, a, b))
			return false;
		any = true;
	}
	return any;
}

int dutfs_preimages_restore(struct dutfs_preimages *p, const struct shape_discard *plan,
			    size_t n)
{
	int first = 0;

	pthread_mutex_lock(&p->lock);
	p->st.restored_bytes = p->st.hole_bytes = p->st.truncated_files = 0;
	p->st.missing_bytes = p->st.restore_errors = 0;
	for (size_t i = 0; i < n;) {
		uint64_t key = plan[i].file_key;
		struct pfile *f = shape_keymap_get(&p->files, key);
		size_t j = i;
		struct stat st;
		int fd = -1;

		while (j < n && plan[j].file_key == key)
			j++;
		if (f)
			fd = open_backing(f->in, O_RDWR);
		if (fd < 0) {
			for (size_t k = i; k < j; k++)
				p->st.missing_bytes += plan[k].len;
			if (f)
				note_err(p, &first, fd);
			i = j;
			continue;
		}
		for (size_t k = i; k < j; k++)
			restore_range(p, f, fd, plan[k].offset, plan[k].offset + plan[k].len, &first);
		/* the file grew past its synced size only by discarded writes: cut it back */
		if (fstat(fd, &st) == 0 && (uint64_t)st.st_size > f->synced_size &&
		    tail_discarded(f, plan + i, j - i, (uint64_t)st.st_size)) {
			note_err(p, &first, ftruncate(fd, (off_t)f->synced_size) < 0 ? -errno : 0);
			p->st.truncated_files++;
		}
		close(fd);
		i = j;
	}
	shape_keymap_each(&p->files, free_each, p);
	shape_keymap_clear(&p->files);
	pthread_mutex_unlock(&p->lock);
	return first;
}

int dutfs_preimages_restore_file(struct dutfs_preimages *p, uint64_t key,
				 const struct shape_discard *plan, size_t n, uint64_t *ret_bytes)
{
	struct dutfs_preimage_stats saved;
	struct pfile *f;
	int first = 0, fd;

	*ret_bytes = 0;
	pthread_mutex_lock(&p->lock);
	saved = p->st;
	f = shape_keymap_get(&p->files, key);
	fd = f ? open_backing(f->in, O_RDWR) : -ENOENT;
	if (fd >= 0) {
		p->st.restored_bytes = p->st.hole_bytes = 0;
		for (size_t k = 0; k < n; k++)
			if (plan[k].file_key == key)
				restore_range(p, f, fd, plan[k].offset, plan[k].offset + plan[k].len, &first);
		*ret_bytes = p->st.restored_bytes + p->st.hole_bytes;
		close(fd);
	} else if (n) {
		first = fd;
	}
	saved.restore_errors = p->st.restore_errors;
	p->st = saved;
	pthread_mutex_unlock(&p->lock);
	return first;
}

void dutfs_preimages_stats(struct dutfs_preimages *p, struct dutfs_preimage_stats *ret)
{
	pthread_mutex_lock(&p->lock);
	*ret = p->st;
	pthread_mutex_unlock(&p->lock);
}
