/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dutfs file operations on backing fds: open, create, read, write, flush,
 * release, fsync, fallocate.  Each data operation goes through
 * dutfs_io_begin/end (layer.h) so the tracer and later a shaper see it.
 *
 * O_DIRECT: libfuse 3.14 hands write data at an unaligned address, so a
 * pwrite on an O_DIRECT backing fd fails with EINVAL.  We keep the backing
 * file O_DIRECT (so direct I/O through the mount still reaches the device,
 * which is what a device trace must show) and copy the data into the
 * worker's 4 KiB-aligned buffer first: a memcpy of <= 1 MiB is cheaper than
 * any device I/O it precedes.  If the backing still refuses (offset or length
 * not aligned for that device, or a writeback page tail at EOF that the
 * kernel sends through an O_DIRECT handle), the request is redone on a
 * buffered twin fd of the same file, opened on first need.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuse/dutfs.h"
#include "fuse/reply_raw.h"
#include "lib/trace.h"

struct dutfs_fh {
	int fd;
	int buffered_fd;     /* -1 until needed; only for O_DIRECT fds; guarded by lock */
	int direct_fd;       /* writeback twin of a buffered fd; -1 until needed, -2 refused; lock */
	int flags;           /* flags the backing fd was opened with */
	uint16_t trace_flags;
	pthread_mutex_t lock;
};

static struct dutfs_fh *fh_of(struct fuse_file_info *fi)
{
	return (struct dutfs_fh *)(uintptr_t)fi->fh;
}

int dutfs_fh_fd(const struct fuse_file_info *fi)
{
	return ((const struct dutfs_fh *)(uintptr_t)fi->fh)->fd;
}

static int fh_buffered(struct dutfs_fh *fh)
{
	char pp[64];
	int fd;

	pthread_mutex_lock(&fh->lock);
	if (fh->buffered_fd < 0) {
		snprintf(pp, sizeof(pp), "/proc/self/fd/%d", fh->fd);
		fh->buffered_fd = open(pp, (fh->flags & ~(O_DIRECT | O_TRUNC | O_CREAT | O_EXCL)) | O_CLOEXEC);
	}
	fd = fh->buffered_fd;
	pthread_mutex_unlock(&fh->lock);
	return fd;
}

/* The O_DIRECT twin of a buffered fd, for writeback writes; -1 if the backing refuses O_DIRECT. */
static int fh_direct(struct dutfs_fh *fh)
{
	char pp[64];
	int fd;

	pthread_mutex_lock(&fh->lock);
	if (fh->direct_fd == -1) {
		snprintf(pp, sizeof(pp), "/proc/self/fd/%d", fh->fd);
		fd = open(pp, (fh->flags & ~(O_TRUNC | O_CREAT | O_EXCL)) | O_DIRECT | O_CLOEXEC);
		fh->direct_fd = fd < 0 ? -2 : fd;
	}
	fd = fh->direct_fd < 0 ? -1 : fh->direct_fd;
	pthread_mutex_unlock(&fh->lock);
	return fd;
}

static void fh_free(struct dutfs_fh *fh)
{
	if (fh->buffered_fd >= 0)
		close(fh->buffered_fd);
	if (fh->direct_fd >= 0)
		close(fh->direct_fd);
	pthread_mutex_destroy(&fh->lock);
	free(fh);
}

static struct dutfs_fh *fh_new(int fd, int flags)
{
	struct dutfs_fh *fh = malloc(sizeof(*fh));

	if (!fh)
		return NULL;
	fh->fd = fd;
	fh->buffered_fd = -1;
	fh->direct_fd = -1;
	fh->flags = flags;
	fh->trace_flags = (flags & O_DIRECT) ? DUT_TRACE_F_DIRECT : 0;
	pthread_mutex_init(&fh->lock, NULL);
	return fh;
}

/* Flags for the backing open, from the flags the application used. */
static int backing_flags(const struct dutfs *fs, int flags)
{
	flags &= ~(O_NOFOLLOW | O_CREAT | O_EXCL | O_NOCTTY);
	if (fs->view == DUTFS_VIEW_DEVICE) {
		/*
		 * The writeback cache reads pages around partial writes and
		 * applies O_APPEND itself: the backing fd must be readable
		 * and must not append.
		 */
		if ((flags & O_ACCMODE) == O_WRONLY)
			flags = (flags & ~O_ACCMODE) | O_RDWR;
		flags &= ~O_APPEND;
	}
	return flags | O_CLOEXEC;
}

/* Reply to open/create: page cache in the device view, direct_io in the syscall view. */
static unsigned open_reply_flags(const struct dutfs *fs)
{
	if (fs->view == DUTFS_VIEW_SYSCALL)
		return DUTFS_FOPEN_DIRECT_IO | DUTFS_FOPEN_PARALLEL_DIRECT_WRITES;
	/* every change comes through this kernel, so cached pages stay valid */
	return DUTFS_FOPEN_KEEP_CACHE;
}

/*
 * open(O_TRUNC) (FUSE_CAP_ATOMIC_O_TRUNC: the kernel passes O_TRUNC instead
 * of a SETATTR) truncated the file inside the backing open: record it as a
 * TRUNCATE to size 0 as well, with the open's times.  The truncation has
 * happened, so a layer cannot refuse it; its verdict is ignored.
 */
static void trace_open_trunc(struct dutfs *fs, fuse_req_t req, struct dutfs_inode *in,
			     const struct dutfs_io *open_io)
{
	struct dutfs_io io;

	/* every begin has its end (a layer holds state between them) */
	(void)dutfs_io_begin(fs, req, &io, DUT_OP_TRUNCATE, in, 0, 0, open_io->flags);
	io.ts_ns = open_io->ts_ns;
	dutfs_io_end_at(fs, &io, 0, open_io->ts_ns + open_io->lat_ns);
}

void dutfs_op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct dutfs *fs = dutfs_of(req);
	struct dutfs_inode *in;
	struct dutfs_fh *fh;
	struct dutfs_io io;
	char pp[64];
	int flags, fd = -1, r;

	if (dutfs_is_ctl_ino(ino)) {
		dutfs_ctl_open(req, ino, fi);
		return;
	}
	in = dutfs_inode(fs, ino);
	flags = backing_flags(fs, fi->flags);
	if (in->type == S_IFREG)
		dutfs_tracer_file_id(fs, in);
	snprintf(pp, sizeof(pp), "/proc/self/fd/%d", in->fd);
	r = dutfs_io_begin(fs, req, &io, DUT_OP_OPEN, in, 0, 0,
			   (fi->flags & O_DIRECT) ? DUT_TRACE_F_DIRECT : 0);
	if (!r) {
		fd = open(pp, flags);
		r = fd < 0 ? -errno : 0;
	}
	dutfs_io_end(fs, &io, r);
	if (io.result < 0) {
		if (fd >= 0)
			close(fd);
		fuse_reply_err(req, -io.result);
		return;
	}
	if ((fi->flags & O_TRUNC) && in->type == S_IFREG)
		trace_open_trunc(fs, req, in, &io);
	fh = fh_new(fd, flags);
	if (!fh) {
		close(fd);
		fuse_reply_err(req, ENOMEM);
		return;
	}
	if (dutfs_reply_open_raw(req, (uint64_t)(uintptr_t)fh, open_reply_flags(fs)) < 0) {
		/* the kernel did not take the handle (interrupted): release it here */
		close(fd);
		fh_free(fh);
	}
}

void dutfs_op_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
		     struct fuse_file_info *fi)
{
	struct dutfs *fs = dutfs_of(req);
	struct dutfs_inode *dir, *in;
	struct fuse_entry_param e;
	struct dutfs_creds cr;
	struct dutfs_fh *fh;
	uint64_t t0, t1;
	int flags, fd, r;

	if (dutfs_is_ctl_ino(parent) || !dutfs_name_ok(name)) {
		fuse_reply_err(req, dutfs_is_ctl_ino(parent) ? EPERM : EINVAL);
		return;
	}
	if (parent == FUSE_ROOT_ID && !strcmp(name, DUTFS_CTL_NAME)) {
		fuse_reply_err(req, EEXIST);
		return;
	}
	dir = dutfs_inode(fs, parent);
	flags = backing_flags(fs, fi->flags) | O_CREAT | O_NOFOLLOW | (fi->flags & O_EXCL);
	dutfs_creds_enter(fs, req, &cr);
	t0 = dutfs_now_ns();
	fd = openat(dir->fd, name, flags, mode);
	t1 = dutfs_now_ns();
	r = fd < 0 ? -errno : 0;
	dutfs_creds_leave(&cr);
	if (r < 0) {
		fuse_reply_err(req, -r);
		return;
	}
	r = dutfs_do_lookup(fs, dir, name, &e);
	if (r < 0) {
		close(fd);
		fuse_reply_err(req, -r);
		return;
	}
	in = dutfs_inode(fs, e.ino);
	if (in->type == S_IFREG) {
		struct dutfs_io io;

		/*
		 * The file id needs the inode, which exists only after the
		 * call: the record is made afterwards with the measured times
		 * (a layer cannot fail a create before it happens).
		 */
		dutfs_tracer_file_id(fs, in);
		(void)dutfs_io_begin(fs, req, &io, DUT_OP_CREATE, in, 0, 0,
				     (fi->flags & O_DIRECT) ? DUT_TRACE_F_DIRECT : 0);
		io.ts_ns = t0;
		dutfs_io_end_at(fs, &io, 0, t1);
	}
	fh = fh_new(fd, flags & ~(O_CREAT | O_EXCL | O_TRUNC | O_NOFOLLOW));
	if (!fh) {
		close(fd);
		dutfs_inode_unref(fs, in, 1);
		fuse_reply_err(req, ENOMEM);
		return;
	}
	if (dutfs_reply_create_raw(req, e.ino, e.generation, &e.attr, DUTFS_TIMEOUT_S, (uint64_t)(uintptr_t)fh,
				   open_reply_flags(fs)) < 0) {
		close(fd);
		fh_free(fh);
		dutfs_inode_unref(fs, in, 1);
	}
}

void dutfs_op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	struct dutfs *fs = dutfs_of(req);
	struct dutfs_fh *fh;
	struct dutfs_io io;
	ssize_t n = 0;
	void *buf;
	int r;

	if (dutfs_is_ctl_ino(ino)) {
		dutfs_ctl_read(req, ino, size, off, fi);
		return;
	}
	fh = fh_of(fi);
	buf = dutfs_thread_buf(fs, size);
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	r = dutfs_io_begin(fs, req, &io, DUT_OP_READ, dutfs_inode(fs, ino), (uint64_t)off,
			   (uint32_t)size, fh->trace_flags);
	if (!r) {
		size_t want = io.xfer_len; /* < size: a short read injected by shaping */

		n = pread(fh->fd, buf, want, off);
		if (n < 0 && errno == EINVAL && (fh->flags & O_DIRECT)) {
			int bfd = fh_buffered(fh);

			n = bfd < 0 ? -1 : pread(bfd, buf, want, off);
		}
		r = n < 0 ? -errno : (int)n;
	}
	dutfs_io_reply(fs, req, &io, r, DUTFS_REPLY_BUF, buf);
}

/*
 * Where a write goes: the fd and the source (4 KiB aligned for an O_DIRECT
 * fd, copied into the worker's buffer if libfuse's is not).  A writeback
 * write of the device view goes to the file's O_DIRECT twin when its offset
 * and length are 4 KiB multiples: the data is already in the mount's page
 * cache, and a second copy into the backing file's page cache cost half the
 * daemon's CPU during a data load (copy_folio_from_iter_atomic, and memory
 * for a second cache).  Page tails at EOF and backings that refuse O_DIRECT
 * (tmpfs) take the buffered fd.  Returns 0 or -ENOMEM.
 */
static int write_target(struct dutfs *fs, struct dutfs_fh *fh, bool writeback, const char *buf,
			size_t size, off_t off, int *ret_fd, const void **ret_src)
{
	int fd = fh->fd;
	bool direct = fh->flags & O_DIRECT;
	const void *src = buf;

	if (!direct && writeback && fs->view == DUTFS_VIEW_DEVICE &&
	    !((uint64_t)off & 4095) && !(size & 4095)) {
		int dfd = fh_direct(fh);

		if (dfd >= 0) {
			fd = dfd;
			direct = true;
		}
	}
	if (direct && ((uintptr_t)buf & 4095)) {
		void *abuf = dutfs_thread_buf(fs, size);

		if (!abuf)
			return -ENOMEM;
		memcpy(abuf, buf, size);
		src = abuf;
	}
	*ret_fd = fd;
	*ret_src = src;
	return 0;
}

/*
 * pwrite to the backing file.  Buffered writes to one file take the file's
 * stripe of fs->write_locks first (see dutfs.h): the backing file system
 * serialises them anyway, and a sleeping waiter costs no CPU where a
 * spinning one costs a whole CPU.  O_DIRECT writes are not serialised: the
 * backing file system may run non-extending ones in parallel.  An O_DIRECT
 * write the backing refuses (EINVAL: alignment) is redone buffered.
 */
static ssize_t backing_pwrite(struct dutfs *fs, struct dutfs_fh *fh, const struct dutfs_inode *in,
			      int fd, const void *src, size_t size, off_t off)
{
	pthread_mutex_t *lock = &fs->write_locks[((in->ino * 0x9E3779B97F4A7C15ull) >> 32) %
						 DUTFS_WRITE_LOCKS];
	bool buffered = fd == fh->fd && !(fh->flags & O_DIRECT);
	ssize_t n;

	if (!buffered) {
		n = pwrite(fd, src, size, off);
		if (n >= 0 || errno != EINVAL)
			return n;
		fd = (fh->flags & O_DIRECT) ? fh_buffered(fh) : fh->fd;
		if (fd < 0)
			return -1;
	}
	pthread_mutex_lock(lock);
	n = pwrite(fd, src, size, off);
	pthread_mutex_unlock(lock);
	return n;
}

void dutfs_op_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct dutfs *fs = dutfs_of(req);
	struct dutfs_fh *fh;
	struct dutfs_io io;
	const void *src;
	uint16_t tflags;
	ssize_t n;
	int fd, r;

	if (dutfs_is_ctl_ino(ino)) {
		dutfs_ctl_write(req, ino, buf, size, off, fi);
		return;
	}
	fh = fh_of(fi);
	r = write_target(fs, fh, fi->writepage, buf, size, off, &fd, &src);
	if (r < 0) {
		fuse_reply_err(req, -r);
		return;
	}
	tflags = fh->trace_flags | (fi->writepage ? DUT_TRACE_F_WRITEBACK : 0);
	r = dutfs_io_begin(fs, req, &io, DUT_OP_WRITE, dutfs_inode(fs, ino), (uint64_t)off,
			   (uint32_t)size, tflags);
	if (!r) {
		/* < size: a short write injected by shaping (unaligned: redone buffered) */
		size_t want = io.xfer_len;

		n = backing_pwrite(fs, fh, dutfs_inode(fs, ino), fd, src, want, off);
		r = n < 0 ? -errno : (int)n;
	}
	dutfs_io_reply(fs, req, &io, r, DUTFS_REPLY_WRITE, NULL);
}

/*
 * close() of the application's fd.  The backing files are local: closing a
 * dup of the backing fd (what a network passthrough does, for close-to-open
 * consistency) gives them nothing, and a FLUSH round trip on every close is
 * pure cost.  ENOSYS tells the kernel to stop sending FLUSH for this mount
 * (fc->no_flush).  It does not weaken close(): with the writeback cache the
 * kernel still writes the file's dirty pages back and reports their errors
 * at close before it would send FLUSH; durability is fsync's job, and FSYNC
 * still reaches the backing file.
 */
void dutfs_op_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	(void)fi;
	fuse_reply_err(req, ENOSYS);
}

void dutfs_op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct dutfs *fs = dutfs_of(req);
	struct dutfs_fh *fh;
	struct dutfs_io io;
	int r;

	if (dutfs_is_ctl_ino(ino)) {
		dutfs_ctl_release(req, ino, fi);
		return;
	}
	fh = fh_of(fi);
	r = dutfs_io_begin(fs, req, &io, DUT_OP_RELEASE, dutfs_inode(fs, ino), 0, 0, fh->trace_flags);
	/* release cannot be refused: the fd is closed whatever a layer says */
	r = close(fh->fd) < 0 ? -errno : (r ? r : 0);
	dutfs_io_end(fs, &io, r);
	fh_free(fh);
	fuse_reply_err(req, 0);
}

void dutfs_op_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi)
{
	struct dutfs *fs = dutfs_of(req);
	struct dutfs_fh *fh;
	struct dutfs_io io;
	int r;

	if (dutfs_is_ctl_ino(ino)) {
		fuse_reply_err(req, 0);
		return;
	}
	fh = fh_of(fi);
	r = dutfs_io_begin(fs, req, &io, datasync ? DUT_OP_FDATASYNC : DUT_OP_FSYNC,
			   dutfs_inode(fs, ino), 0, 0, fh->trace_flags);
	/* skip_call: a model with barriers off acknowledges without syncing */
	if (!r && !io.skip_call)
		r = (datasync ? fdatasync(fh->fd) : fsync(fh->fd)) < 0 ? -errno : 0;
	dutfs_io_reply(fs, req, &io, r, DUTFS_REPLY_ERR, NULL);
}

void dutfs_op_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t offset, off_t length,
			struct fuse_file_info *fi)
{
	struct dutfs *fs = dutfs_of(req);
	struct dutfs_fh *fh;
	struct dutfs_io io;
	bool punch = mode & FALLOC_FL_PUNCH_HOLE;
	int r;

	if (dutfs_is_ctl_ino(ino)) {
		fuse_reply_err(req, EOPNOTSUPP);
		return;
	}
	fh = fh_of(fi);
	/* trace len is 32 bits: lengths above 4 GiB saturate (the result says 0 or -errno) */
	r = dutfs_io_begin(fs, req, &io, punch ? DUT_OP_PUNCH_HOLE : DUT_OP_FALLOCATE,
			   dutfs_inode(fs, ino), (uint64_t)offset,
			   length > UINT32_MAX ? UINT32_MAX : (uint32_t)length,
			   punch ? fh->trace_flags : (uint16_t)mode);
	if (!r)
		r = fallocate(fh->fd, mode, offset, length) < 0 ? -errno : 0;
	dutfs_io_reply(fs, req, &io, r, DUTFS_REPLY_ERR, NULL);
}
