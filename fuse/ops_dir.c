/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dutfs directory operations: opendir, readdir(plus), releasedir, fsyncdir.
 * The root's listing hides the control directory ".dutfs" (so initdb sees an
 * empty directory); lookup of the name still finds it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuse/dutfs.h"

struct dutfs_dirh {
	DIR *dp;
	off_t offset;           /* position the next entry comes from */
	struct dirent *entry;   /* read but not yet returned (did not fit) */
};

static struct dutfs_dirh *dirh_of(struct fuse_file_info *fi)
{
	return (struct dutfs_dirh *)(uintptr_t)fi->fh;
}

void dutfs_op_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct dutfs *fs = dutfs_of(req);
	struct dutfs_dirh *d;
	int fd;

	if (dutfs_is_ctl_ino(ino)) {
		fi->fh = 0;
		fuse_reply_open(req, fi);
		return;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	fd = openat(dutfs_inode(fs, ino)->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || !(d->dp = fdopendir(fd))) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		free(d);
		fuse_reply_err(req, e);
		return;
	}
	fi->fh = (uint64_t)(uintptr_t)d;
	/* the kernel drops its cached listing when a change goes through it */
	fi->cache_readdir = 1;
	fi->keep_cache = 1;
	if (fuse_reply_open(req, fi) < 0) {
		closedir(d->dp);
		free(d);
	}
}

static bool hidden(fuse_ino_t dir, const char *name)
{
	return dir == FUSE_ROOT_ID && !strcmp(name, DUTFS_CTL_NAME);
}

static void do_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi, bool plus)
{
	struct dutfs *fs = dutfs_of(req);
	struct dutfs_dirh *d;
	char *buf, *p;
	size_t rem;
	int err = 0;

	if (dutfs_is_ctl_ino(ino)) {
		dutfs_ctl_readdir(req, ino, size, off, fi, plus);
		return;
	}
	d = dirh_of(fi);
	buf = malloc(size);
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	if (off != d->offset) {
		seekdir(d->dp, off);
		d->entry = NULL;
		d->offset = off;
	}
	p = buf;
	rem = size;
	for (;;) {
		struct fuse_entry_param e;
		size_t entsize;
		off_t next;
		const char *name;

		if (!d->entry) {
			errno = 0;
			d->entry = readdir(d->dp);
			if (!d->entry) {
				err = errno; /* 0 at the end */
				break;
			}
		}
		next = d->entry->d_off;
		name = d->entry->d_name;
		if (hidden(ino, name)) {
			d->entry = NULL;
			d->offset = next;
			continue;
		}
		if (plus) {
			bool dots = !strcmp(name, ".") || !strcmp(name, "..");

			memset(&e, 0, sizeof(e));
			if (dots) {
				e.attr.st_ino = d->entry->d_ino;
				e.attr.st_mode = (mode_t)d->entry->d_type << 12;
			} else {
				int r = dutfs_do_lookup(fs, dutfs_inode(fs, ino), name, &e);

				if (r < 0) {
					err = -r;
					break;
				}
			}
			entsize = fuse_add_direntry_plus(req, p, rem, name, &e, next);
			if (entsize > rem) {
				if (!dots)
					dutfs_inode_unref(fs, dutfs_inode(fs, e.ino), 1);
				break;
			}
		} else {
			struct stat st = {
				.st_ino = d->entry->d_ino,
				.st_mode = (mode_t)d->entry->d_type << 12,
			};

			entsize = fuse_add_direntry(req, p, rem, name, &st, next);
			if (entsize > rem)
				break;
		}
		p += entsize;
		rem -= entsize;
		d->entry = NULL;
		d->offset = next;
	}
	/* an error after some entries: return those; the next call meets it again */
	if (err && p == buf)
		fuse_reply_err(req, err);
	else
		fuse_reply_buf(req, buf, size - rem);
	free(buf);
}

void dutfs_op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		      struct fuse_file_info *fi)
{
	do_readdir(req, ino, size, off, fi, false);
}

void dutfs_op_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			  struct fuse_file_info *fi)
{
	do_readdir(req, ino, size, off, fi, true);
}

void dutfs_op_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct dutfs_dirh *d = dirh_of(fi);

	if (d) {
		closedir(d->dp);
		free(d);
	}
	fuse_reply_err(req, 0);
}

void dutfs_op_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi)
{
	struct dutfs_dirh *d = dirh_of(fi);
	int fd, r;

	if (!d) {
		fuse_reply_err(req, 0);
		return;
	}
	fd = dirfd(d->dp);
	r = datasync ? fdatasync(fd) : fsync(fd);
	fuse_reply_err(req, r < 0 ? errno : 0);
}
