/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dutfs's inode table: node ids, the hash of (dev, ino), references, the
 * path of each inode (path tracking) and lookups into it.
 *
 * An inode lives while the kernel holds lookups on it or a child names it as
 * parent: refs counts both, under fs->itab_lock.  The operations on names
 * and attributes (ops_inode.c), files (ops_file.c), the tracer and the
 * shaper use this table; it calls none of them (issue #21: the fuse core
 * had a call cycle through it).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuse/dutfs.h"

struct dutfs_inode *dutfs_inode(struct dutfs *fs, fuse_ino_t ino)
{
	if (ino == FUSE_ROOT_ID)
		return &fs->root;
	return (struct dutfs_inode *)(uintptr_t)ino;
}

static fuse_ino_t node_id(struct dutfs *fs, struct dutfs_inode *in)
{
	return in == &fs->root ? FUSE_ROOT_ID : (fuse_ino_t)(uintptr_t)in;
}

void dutfs_fill_entry_timeouts(struct fuse_entry_param *e)
{
	e->attr_timeout = DUTFS_TIMEOUT_S;
	e->entry_timeout = DUTFS_TIMEOUT_S;
}

/* ---- hash table (itab_lock held) ---- */

static size_t hslot(const struct dutfs *fs, dev_t dev, ino_t ino)
{
	uint64_t h = (uint64_t)ino * 0x9E3779B97F4A7C15ull ^ (uint64_t)dev;

	return (size_t)(h >> 17) & (fs->hsize - 1);
}

struct dutfs_inode *dutfs_itab_find_locked(struct dutfs *fs, dev_t dev, ino_t ino)
{
	for (struct dutfs_inode *p = fs->htab[hslot(fs, dev, ino)]; p; p = p->hnext)
		if (p->ino == ino && p->dev == dev)
			return p;
	return NULL;
}

static void itab_grow(struct dutfs *fs)
{
	size_t nsize = fs->hsize * 2;
	struct dutfs_inode **n = calloc(nsize, sizeof(*n));
	struct dutfs_inode **old = fs->htab;
	size_t osize = fs->hsize;

	if (!n)
		return; /* keep the longer chains; still correct */
	fs->htab = n;
	fs->hsize = nsize;
	for (size_t i = 0; i < osize; i++) {
		for (struct dutfs_inode *p = old[i], *next; p; p = next) {
			size_t s = hslot(fs, p->dev, p->ino);

			next = p->hnext;
			p->hnext = n[s];
			n[s] = p;
		}
	}
	free(old);
}

static void itab_insert(struct dutfs *fs, struct dutfs_inode *in)
{
	size_t s;

	if (fs->hcount >= fs->hsize)
		itab_grow(fs);
	s = hslot(fs, in->dev, in->ino);
	in->hnext = fs->htab[s];
	fs->htab[s] = in;
	fs->hcount++;
}

static void itab_remove(struct dutfs *fs, struct dutfs_inode *in)
{
	struct dutfs_inode **pp = &fs->htab[hslot(fs, in->dev, in->ino)];

	for (; *pp; pp = &(*pp)->hnext) {
		if (*pp == in) {
			*pp = in->hnext;
			fs->hcount--;
			return;
		}
	}
}

int dutfs_itab_init(struct dutfs *fs)
{
	fs->hsize = 4096;
	fs->htab = calloc(fs->hsize, sizeof(*fs->htab));
	if (!fs->htab)
		return -ENOMEM;
	pthread_mutex_init(&fs->itab_lock, NULL);
	fs->root.refs = 1; /* never forgotten */
	itab_insert(fs, &fs->root);
	return 0;
}

void dutfs_itab_fini(struct dutfs *fs)
{
	for (size_t i = 0; fs->htab && i < fs->hsize; i++) {
		for (struct dutfs_inode *p = fs->htab[i], *next; p; p = next) {
			next = p->hnext;
			if (p == &fs->root)
				continue;
			close(p->fd);
			dutfs_pnode_clear(&p->pn);
			free(p);
		}
	}
	free(fs->htab);
	fs->htab = NULL;
	pthread_mutex_destroy(&fs->itab_lock);
}

/* Drop n references (itab_lock held); frees the inode and unrefs its parent chain. */
void dutfs_inode_unref_locked(struct dutfs *fs, struct dutfs_inode *in, uint64_t n)
{
	while (in) {
		struct dutfs_inode *parent;

		if (in->refs < n) /* kernel bug or ours: never underflow */
			n = in->refs;
		in->refs -= n;
		if (in->refs || in == &fs->root)
			return;
		itab_remove(fs, in);
		parent = (struct dutfs_inode *)in->pn.parent;
		dutfs_pnode_clear(&in->pn);
		close(in->fd);
		free(in);
		in = parent;
		n = 1;
	}
}

void dutfs_inode_unref(struct dutfs *fs, struct dutfs_inode *in, uint64_t n)
{
	pthread_mutex_lock(&fs->itab_lock);
	dutfs_inode_unref_locked(fs, in, n);
	pthread_mutex_unlock(&fs->itab_lock);
}

void dutfs_inode_ref(struct dutfs *fs, struct dutfs_inode *in)
{
	pthread_mutex_lock(&fs->itab_lock);
	in->refs++;
	pthread_mutex_unlock(&fs->itab_lock);
}

int dutfs_inode_list_files(struct dutfs *fs, struct dutfs_file_ref **ret, size_t *ret_n)
{
	struct dutfs_file_ref *v = NULL;
	size_t n = 0;
	int r = 0;

	pthread_mutex_lock(&fs->itab_lock);
	if (fs->hcount) {
		v = calloc(fs->hcount, sizeof(*v));
		if (!v)
			r = -ENOMEM;
	}
	for (size_t i = 0; v && i < fs->hsize; i++) {
		for (struct dutfs_inode *p = fs->htab[i]; p; p = p->hnext) {
			struct dutfs_inode *parent = (struct dutfs_inode *)p->pn.parent;

			if (p->type != S_IFREG || n >= fs->hcount)
				continue;
			v[n].ino = (fuse_ino_t)(uintptr_t)p;
			if (parent && p->pn.name) {
				v[n].parent = parent == &fs->root ? FUSE_ROOT_ID : (fuse_ino_t)(uintptr_t)parent;
				v[n].name = strdup(p->pn.name); /* NULL (ENOMEM): no entry to drop */
			}
			n++;
		}
	}
	pthread_mutex_unlock(&fs->itab_lock);
	if (r == 0) {
		*ret = v;
		*ret_n = n;
	}
	return r;
}

void dutfs_file_refs_free(struct dutfs_file_ref *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i].name);
	free(v);
}

int dutfs_inode_path(struct dutfs *fs, struct dutfs_inode *in, char *buf, size_t size)
{
	int r;

	pthread_mutex_lock(&fs->itab_lock);
	r = dutfs_pnode_path(&in->pn, buf, size);
	pthread_mutex_unlock(&fs->itab_lock);
	return r;
}

/* Move in's path node to (parent, name) (itab_lock held). */
void dutfs_inode_repath_locked(struct dutfs *fs, struct dutfs_inode *in, struct dutfs_inode *parent,
			  const char *name)
{
	struct dutfs_inode *old = (struct dutfs_inode *)in->pn.parent;

	if (dutfs_pnode_set(&in->pn, &parent->pn, name) < 0)
		return; /* ENOMEM: keep the old (stale) name */
	parent->refs++;
	if (old)
		dutfs_inode_unref_locked(fs, old, 1);
}

int dutfs_do_lookup(struct dutfs *fs, struct dutfs_inode *dir, const char *name,
		    struct fuse_entry_param *e)
{
	struct dutfs_inode *in, *found;
	struct stat st;
	int fd;

	memset(e, 0, sizeof(*e));
	fd = openat(dir->fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstatat(fd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	pthread_mutex_lock(&fs->itab_lock);
	found = dutfs_itab_find_locked(fs, st.st_dev, st.st_ino);
	if (found) {
		found->refs++;
		pthread_mutex_unlock(&fs->itab_lock);
		close(fd);
		in = found;
	} else {
		in = calloc(1, sizeof(*in));
		if (!in || dutfs_pnode_set(&in->pn, &dir->pn, name) < 0) {
			pthread_mutex_unlock(&fs->itab_lock);
			free(in);
			close(fd);
			return -ENOMEM;
		}
		in->fd = fd;
		in->dev = st.st_dev;
		in->ino = st.st_ino;
		in->type = st.st_mode & S_IFMT;
		in->refs = 1;
		dir->refs++; /* named as parent */
		itab_insert(fs, in);
		pthread_mutex_unlock(&fs->itab_lock);
	}
	dutfs_note_mode(in, st.st_mode);
	e->ino = node_id(fs, in);
	e->attr = st;
	if (S_ISREG(st.st_mode))
		e->generation = atomic_load_explicit(&fs->file_generation, memory_order_relaxed);
	dutfs_fill_entry_timeouts(e);
	return 0;
}
