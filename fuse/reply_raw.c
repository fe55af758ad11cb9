/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Deliberately does not include fuse_lowlevel.h: <linux/fuse.h> defines the wire structs. */
#include <linux/fuse.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>

#include "fuse/layer.h"      /* dutfs_tracer_raw_replied; no libfuse header */
#include "fuse/reply_raw.h"

/* from fuse_lowlevel.h (libfuse 3.x ABI) */
int fuse_reply_iov(struct fuse_req *req, const struct iovec *iov, int count);

/* The reply timestamp (CLOCK_MONOTONIC, as dutfs_now_ns) right before the reply. */
static uint64_t reply_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Send, then let the tracer finish the open/create record with the reply time. */
static int reply_iov_timed(struct fuse_req *req, const struct iovec *iov)
{
	uint64_t replied_ns = reply_clock_ns();
	int r = fuse_reply_iov(req, iov, 1);

	dutfs_tracer_raw_replied(req, replied_ns);
	return r;
}

static uint32_t wire_flags(unsigned flags)
{
	uint32_t f = 0;

	if (flags & DUTFS_FOPEN_DIRECT_IO)
		f |= FOPEN_DIRECT_IO;
	if (flags & DUTFS_FOPEN_KEEP_CACHE)
		f |= FOPEN_KEEP_CACHE;
	if (flags & DUTFS_FOPEN_PARALLEL_DIRECT_WRITES)
		f |= FOPEN_PARALLEL_DIRECT_WRITES;
	return f;
}

int dutfs_reply_open_raw(struct fuse_req *req, uint64_t fh, unsigned flags)
{
	struct fuse_open_out o;
	struct iovec iov = { .iov_base = &o, .iov_len = sizeof(o) };

	memset(&o, 0, sizeof(o));
	o.fh = fh;
	o.open_flags = wire_flags(flags);
	return reply_iov_timed(req, &iov);
}

static void split_timeout(double t, uint64_t *sec, uint32_t *nsec)
{
	*sec = (uint64_t)t;
	*nsec = (uint32_t)((t - (double)*sec) * 1e9);
}

int dutfs_reply_create_raw(struct fuse_req *req, uint64_t nodeid, uint64_t generation,
			   const struct stat *st, double timeout_s, uint64_t fh, unsigned flags)
{
	struct {
		struct fuse_entry_out e;
		struct fuse_open_out o;
	} out;
	struct iovec iov = { .iov_base = &out, .iov_len = sizeof(out) };
	struct fuse_attr *a = &out.e.attr;

	_Static_assert(sizeof(out) == sizeof(struct fuse_entry_out) + sizeof(struct fuse_open_out),
		       "no padding between the two reply structs");
	memset(&out, 0, sizeof(out));
	out.e.nodeid = nodeid;
	out.e.generation = generation;
	split_timeout(timeout_s, &out.e.entry_valid, &out.e.entry_valid_nsec);
	split_timeout(timeout_s, &out.e.attr_valid, &out.e.attr_valid_nsec);
	a->ino = st->st_ino;
	a->mode = st->st_mode;
	a->nlink = (uint32_t)st->st_nlink;
	a->uid = st->st_uid;
	a->gid = st->st_gid;
	a->rdev = (uint32_t)st->st_rdev;
	a->size = (uint64_t)st->st_size;
	a->blksize = (uint32_t)st->st_blksize;
	a->blocks = (uint64_t)st->st_blocks;
	a->atime = (uint64_t)st->st_atim.tv_sec;
	a->mtime = (uint64_t)st->st_mtim.tv_sec;
	a->ctime = (uint64_t)st->st_ctim.tv_sec;
	a->atimensec = (uint32_t)st->st_atim.tv_nsec;
	a->mtimensec = (uint32_t)st->st_mtim.tv_nsec;
	a->ctimensec = (uint32_t)st->st_ctim.tv_nsec;
	out.o.fh = fh;
	out.o.open_flags = wire_flags(flags);
	return reply_iov_timed(req, &iov);
}
