/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dutfs file operations on backing fds: open, create, read, write, flush,
 * release, fsync, fallocate.  Each data operation goes through
 * dutfs_io_begin/end (layer.h) so the tracer and later a shaper see it.
 *
 * O_DIRECT backing fds: in the device view every regular file's backing fd
 * is O_DIRECT, so each traced request (readahead, readpage, writeback) is
 * served by the device and never by the backing file's page cache (the
 * mount's page cache is the only one); a file the application opens O_DIRECT
 * gets an O_DIRECT backing fd in either view.  libfuse 3.14 hands write data
 * at an unaligned address, so a pwrite on an O_DIRECT fd would fail with
 * EINVAL: the data is copied into the worker's 4 KiB-aligned buffer first (a
 * memcpy of <= 1 MiB is cheaper than any device I/O it precedes).  What the
 * backing still refuses (EINVAL: an offset or length not aligned for the
 * device, such as the short last page writeback sends at EOF) goes on a
 * buffered twin fd of the same file, opened on first need: a page-aligned
 * head still goes direct, only the unaligned rest goes buffered.  A file
 * system without O_DIRECT (tmpfs before Linux 6.6) gets buffered fds.  Each
 * request served through the backing page cache although it was meant to go
 * direct carries DUT_TRACE_F_BUFFERED in its trace record.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuse/dutfs.h"
#include "fuse/fh.h"
#include "fuse/reply_raw.h"
#include "fuse/uring.h"
#include "lib/trace.h"


static struct dutfs_fh *fh_of(struct fuse_file_info *fi)
{
	return (struct dutfs_fh *)(uintptr_t)fi->fh;
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

static void fh_free(struct dutfs_fh *fh)
{
	if (fh->buffered_fd >= 0)
		close(fh->buffered_fd);
	pthread_mutex_destroy(&fh->lock);
	free(fh);
}

static struct dutfs_fh *fh_new(int fd, int flags, uint16_t trace_flags)
{
	struct dutfs_fh *fh = malloc(sizeof(*fh));

	if (!fh)
		return NULL;
	fh->fd = fd;
	fh->buffered_fd = -1;
	fh->flags = flags;
	fh->trace_flags = trace_flags;
	pthread_mutex_init(&fh->lock, NULL);
	return fh;
}

/*
 * The device view reads and writes regular files O_DIRECT: what it traces
 * must be what the device serves (see the top of this file).
 */
static bool view_wants_direct(const struct dutfs *fs, mode_t type)
{
	return fs->view == DUTFS_VIEW_DEVICE && type == S_IFREG && fs->backing_direct;
}

/*
 * The trace flags every record of a file starts with: the application's
 * O_DIRECT, and F_BUFFERED for a device-view file on a backing file system
 * that refused O_DIRECT at mount time.
 */
static uint16_t file_trace_flags(const struct dutfs *fs, int app_flags, mode_t type)
{
	uint16_t f = (app_flags & O_DIRECT) ? DUT_TRACE_F_DIRECT : 0;

	if (fs->view == DUTFS_VIEW_DEVICE && type == S_IFREG && !fs->backing_direct)
		f |= DUT_TRACE_F_BUFFERED;
	return f;
}

/* Flags for the backing open of a file of type (S_IFMT bits), from the flags the application used. */
static int backing_flags(const struct dutfs *fs, int flags, mode_t type)
{
	flags &= ~(O_NOFOLLOW | O_CREAT | O_EXCL | O_NOCTTY);
	if (view_wants_direct(fs, type))
		flags |= O_DIRECT;
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

/*
 * The caller's fd (opened with its own access mode) replaced by one with the
 * daemon's flags: the device view's O_WRONLY becomes O_RDWR (backing_flags),
 * which the caller may not have.  O_TRUNC was done by the first open.
 */
static int reopen_as_daemon(int *fd, int flags)
{
	char pp[64];
	int nfd;

	snprintf(pp, sizeof(pp), "/proc/self/fd/%d", *fd);
	nfd = open(pp, flags & ~O_TRUNC);
	if (nfd < 0)
		return -errno;
	close(*fd);
	*fd = nfd;
	return 0;
}

/*
 * The backing file system refused O_DIRECT (EINVAL) for a file the device
 * view wanted direct (the mount-time check passed: a file system mounted
 * below the backing directory, say): say so once; the file goes buffered.
 */
static void warn_no_direct(struct dutfs *fs)
{
	if (!atomic_exchange_explicit(&fs->no_direct_warned, true, memory_order_relaxed))
		fuse_log(FUSE_LOG_WARNING,
			 "dutfs: warning: a file below %s is on a file system that refuses O_DIRECT; "
			 "its reads and writes go through that file system's page cache, not to the "
			 "device (trace flag 0x10 \"buffered\"); keep the backing directory on one "
			 "ext4, xfs or btrfs file system\n",
			 fs->backing);
}

/*
 * Device view, after a create: the same file reopened O_DIRECT in *fd (as
 * the daemon; the caller created it, so its access mode is granted).  The
 * create itself runs without O_DIRECT: a backing file system that refuses
 * O_DIRECT refuses it after creating the file, and a retry could not keep
 * O_EXCL.  A refusal keeps the buffered fd and adds F_BUFFERED.
 */
static int reopen_direct(struct dutfs *fs, int *fd, int *flags, uint16_t *tflags)
{
	int r = reopen_as_daemon(fd, *flags | O_DIRECT);

	if (r == -EINVAL) {
		warn_no_direct(fs);
		*tflags |= DUT_TRACE_F_BUFFERED;
		return 0;
	}
	if (!r)
		*flags |= O_DIRECT;
	return r;
}

/*
 * A write by a user other than root to a file with S_ISUID (or S_ISGID and
 * S_IXGRP) kills those bits first, as ext4 does.  The kernel asks for it
 * with FUSE_WRITE_KILL_SUIDGID on direct_io writes, but libfuse 3.14 does
 * not pass write_flags on, so dutfs decides from the writer (a writeback
 * write is the kernel's: it killed the bits by SETATTR when the page was
 * dirtied) and from in->kill_privs, which every stat of the file refreshes.
 * The write path of an ordinary file pays one relaxed load.  0 or -errno
 * (the write then fails, as a failed file_remove_privs fails it on ext4).
 */
static int write_kill_privs(struct dutfs *fs, fuse_req_t req, fuse_ino_t ino,
			    const struct dutfs_fh *fh, const struct fuse_file_info *fi)
{
	struct dutfs_inode *in = dutfs_inode(fs, ino);

	if (!atomic_load_explicit(&in->kill_privs, memory_order_relaxed) || fi->writepage ||
	    fuse_req_ctx(req)->uid == 0)
		return 0;
	return dutfs_kill_privs(fs, in, ino, fh->fd);
}

void dutfs_op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct dutfs *fs = dutfs_of(req);
	struct dutfs_inode *in;
	struct dutfs_creds cr;
	struct dutfs_fh *fh;
	struct dutfs_io io;
	char pp[64];
	uint16_t tflags;
	bool refused = false;
	int flags, cflags, fd = -1, r;

	if (dutfs_is_ctl_ino(ino)) {
		dutfs_ctl_open(req, ino, fi);
		return;
	}
	in = dutfs_inode(fs, ino);
	tflags = file_trace_flags(fs, fi->flags, in->type);
	flags = backing_flags(fs, fi->flags, in->type);
	/* the caller's own access mode: the backing file system checks it for the caller */
	cflags = (flags & ~O_ACCMODE) | (fi->flags & O_ACCMODE);
	if (in->type == S_IFREG)
		dutfs_tracer_file_id(fs, in);
	snprintf(pp, sizeof(pp), "/proc/self/fd/%d", in->fd);
	r = dutfs_creds_enter(fs, req, &cr);
	if (r < 0) {
		fuse_reply_err(req, -r);
		return;
	}
	r = dutfs_io_begin(fs, req, &io, DUT_OP_OPEN, in, 0, 0, tflags);
	if (!r) {
		fd = open(pp, cflags);
		r = fd < 0 ? -errno : 0;
		/* O_DIRECT refused before any truncation: the device view goes buffered */
		if (r == -EINVAL && (cflags & O_DIRECT) && !(fi->flags & O_DIRECT)) {
			refused = true;
			cflags &= ~O_DIRECT;
			flags &= ~O_DIRECT;
			tflags |= DUT_TRACE_F_BUFFERED;
			fd = open(pp, cflags);
			r = fd < 0 ? -errno : 0;
		}
	}
	dutfs_creds_leave(fs, &cr);
	if (refused)
		warn_no_direct(fs);
	if (!r && cflags != flags)
		r = reopen_as_daemon(&fd, flags);
	dutfs_io_end(fs, &io, r);
	if (io.result < 0) {
		if (fd >= 0)
			close(fd);
		fuse_reply_err(req, -io.result);
		return;
	}
	/* a later write by another user must know about S_ISUID/S_ISGID set behind our back */
	if ((fi->flags & O_ACCMODE) != O_RDONLY && in->type == S_IFREG && fuse_req_ctx(req)->uid != 0) {
		struct stat st;

		if (fstat(fd, &st) == 0)
			dutfs_note_mode(in, st.st_mode);
	}
	if ((fi->flags & O_TRUNC) && in->type == S_IFREG)
		trace_open_trunc(fs, req, in, &io);
	fh = fh_new(fd, flags, tflags);
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
	uint16_t tflags = file_trace_flags(fs, fi->flags, S_IFREG);
	bool direct;
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
	/* the view's O_DIRECT comes after the create (reopen_direct); the application's stays */
	flags = backing_flags(fs, fi->flags, S_IFREG);
	direct = (flags & O_DIRECT) && !(fi->flags & O_DIRECT);
	if (direct)
		flags &= ~O_DIRECT;
	flags |= O_CREAT | O_NOFOLLOW | (fi->flags & O_EXCL);
	r = dutfs_creds_enter(fs, req, &cr);
	if (r < 0) {
		fuse_reply_err(req, -r);
		return;
	}
	t0 = dutfs_now_ns();
	fd = openat(dir->fd, name, flags, mode);
	t1 = dutfs_now_ns();
	r = fd < 0 ? -errno : 0;
	dutfs_creds_leave(fs, &cr);
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
	flags &= ~(O_CREAT | O_EXCL | O_TRUNC | O_NOFOLLOW);
	if (direct && in->type == S_IFREG) {
		r = reopen_direct(fs, &fd, &flags, &tflags);
		if (r < 0) {
			/* the file exists now, as after a create whose reply was lost */
			close(fd);
			dutfs_inode_unref(fs, in, 1);
			fuse_reply_err(req, -r);
			return;
		}
	}
	if (in->type == S_IFREG) {
		struct dutfs_io io;

		/*
		 * The file id needs the inode, which exists only after the
		 * call: the record is made afterwards with the measured times
		 * (a layer cannot fail a create before it happens).
		 */
		dutfs_tracer_file_id(fs, in);
		(void)dutfs_io_begin(fs, req, &io, DUT_OP_CREATE, in, 0, 0, tflags);
		io.ts_ns = t0;
		dutfs_io_end_at(fs, &io, 0, t1);
	}
	fh = fh_new(fd, flags, tflags);
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
	/* on the ring, straight into the entry's reply buffer: no copy at the reply */
	buf = dutfs_transport_reply_buf(size);
	if (!buf)
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
			/* unaligned for the device (an O_DIRECT application's request) */
			int bfd = fh_buffered(fh);

			io.flags |= DUT_TRACE_F_BUFFERED;
			n = bfd < 0 ? -1 : pread(bfd, buf, want, off);
		}
		r = n < 0 ? -errno : (int)n;
	}
	dutfs_io_reply(fs, req, &io, r, DUTFS_REPLY_BUF, buf);
}

/*
 * Where a write goes: the fd and the source (4 KiB aligned for an O_DIRECT
 * fd, copied into the worker's buffer if libfuse's is not).  Returns 0 or
 * -ENOMEM.
 */
static int write_target(struct dutfs *fs, struct dutfs_fh *fh, const char *buf, size_t size,
			const void **ret_src)
{
	const void *src = buf;

	/* buf may be the worker's buffer itself (write_buf): it is aligned, no copy */
	if ((fh->flags & O_DIRECT) && ((uintptr_t)buf & 4095)) {
		void *abuf = dutfs_thread_buf(fs, size);

		if (!abuf)
			return -ENOMEM;
		memcpy(abuf, buf, size);
		src = abuf;
	}
	*ret_src = src;
	return 0;
}

/* The stripe of fs->write_locks that serialises buffered writes to a file (see dutfs.h). */
static pthread_mutex_t *write_lock(struct dutfs *fs, const struct dutfs_inode *in)
{
	return &fs->write_locks[((in->ino * 0x9E3779B97F4A7C15ull) >> 32) % DUTFS_WRITE_LOCKS];
}

/*
 * Write all of size bytes to fd at off, or stop at the first error (*err
 * set); returns the bytes written.  The data comes from src by pwrite, or,
 * with pipe_fd >= 0, from libfuse's pipe by splice: the kernel put references
 * to the mount's page-cache pages in the pipe (no copy), and splice copies
 * them once into the backing file's page cache, one copy instead of two
 * (/dev/fuse into libfuse's buffer, then pwrite).  What splice did not move
 * is still in the pipe.
 */
static size_t write_all(int fd, int pipe_fd, const void *src, size_t size, off_t off, int *err)
{
	size_t done = 0;

	while (done < size) {
		loff_t pos = off + (off_t)done;
		ssize_t n = pipe_fd >= 0 ? splice(pipe_fd, NULL, fd, &pos, size - done, 0)
					 : pwrite(fd, (const char *)src + done, size - done, pos);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			*err = n < 0 ? errno : EIO;
			break;
		}
		done += (size_t)n;
	}
	return done;
}

/*
 * A write that stopped early: the bytes written, or -err.  The kernel
 * ignores the count of a writeback write (fuse_writepage_end), so a short
 * reply would drop the tail silently: writeback gets the error, which then
 * reaches fsync and close.  Other writes get the short count, as pwrite does.
 */
static ssize_t write_result(size_t done, size_t size, int err, bool writeback)
{
	if (done == size || (done && !writeback))
		return (ssize_t)done;
	return -err;
}

/* The page size every device's O_DIRECT alignment divides (logical blocks are 512 or 4096). */
#define DIRECT_ALIGN 4096u

/*
 * pwrite to the backing file.  Buffered writes to one file take the file's
 * write lock first: the backing file system serialises them anyway, and a
 * sleeping waiter costs no CPU where a spinning one costs a whole CPU.
 * O_DIRECT writes are not serialised: the backing file system may run
 * non-extending ones in parallel.  An O_DIRECT write the backing refuses
 * (EINVAL: alignment) goes direct up to its last whole page when it starts
 * on a page (writeback's short last page at EOF: only that tail goes
 * buffered), and the rest goes on the buffered twin, adding
 * DUT_TRACE_F_BUFFERED to *tflags.  Returns the bytes written or -errno
 * (write_result).
 */
static ssize_t backing_pwrite(struct dutfs *fs, struct dutfs_fh *fh, struct dutfs_inode *in,
			      const void *src, size_t size, off_t off, bool writeback, uint16_t *tflags)
{
	pthread_mutex_t *lock = write_lock(fs, in);
	int fd = fh->fd, err = 0;
	size_t done = 0;

	if (fh->flags & O_DIRECT) {
		size_t head = ((uint64_t)off % DIRECT_ALIGN) ? 0 : size - size % DIRECT_ALIGN;

		done = write_all(fd, -1, src, size, off, &err);
		if (done == size || err != EINVAL)
			return write_result(done, size, err, writeback);
		if (done < head) {
			err = 0;
			done += write_all(fd, -1, (const char *)src + done, head - done,
					  off + (off_t)done, &err);
			if (done < head && err != EINVAL)
				return write_result(done, size, err, writeback);
		}
		err = 0;
		fd = fh_buffered(fh);
		if (fd < 0)
			return write_result(done, size, errno, writeback);
		*tflags |= DUT_TRACE_F_BUFFERED;
	}
	pthread_mutex_lock(lock);
	done += write_all(fd, -1, (const char *)src + done, size - done, off + (off_t)done, &err);
	pthread_mutex_unlock(lock);
	return write_result(done, size, err, writeback);
}

void dutfs_op_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct dutfs *fs = dutfs_of(req);
	struct dutfs_fh *fh;
	struct dutfs_io io;
	const void *src = buf;
	uint16_t tflags;
	ssize_t n;
	int r;

	if (dutfs_is_ctl_ino(ino)) {
		dutfs_ctl_write(req, ino, buf, size, off, fi);
		return;
	}
	fh = fh_of(fi);
	r = write_kill_privs(fs, req, ino, fh, fi);
	if (r == 0)
		r = write_target(fs, fh, buf, size, &src);
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

		n = backing_pwrite(fs, fh, dutfs_inode(fs, ino), src, want, off, fi->writepage,
				   &io.flags);
		r = (int)n;
	}
	dutfs_io_reply(fs, req, &io, r, DUTFS_REPLY_WRITE, NULL);
}

/* The rest of a request's data from the pipe into buf; 0 or -errno. */
static int pipe_read_all(int pipe_fd, void *buf, size_t size)
{
	size_t done = 0;

	while (done < size) {
		ssize_t n = read(pipe_fd, (char *)buf + done, size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += (size_t)n;
	}
	return 0;
}

/*
 * Tell libfuse the pipe is empty: after write_buf it closes and re-creates a
 * pipe whose buffer vector was not used up (three syscalls and a pipe resize
 * per request).
 */
static void pipe_consumed(struct fuse_bufvec *bufv)
{
	bufv->idx = bufv->count;
	bufv->off = 0;
}

/*
 * Write a request whose data is in libfuse's pipe to the backing fd by
 * splice.  For an O_DIRECT fd the pipe holds the mount's page-cache pages
 * themselves, whole and page-aligned (writeback), so the device reads them
 * with no copy at all; a buffered fd gets one copy, under the file's write
 * lock.  EINVAL before any byte: on an O_DIRECT fd, data the device cannot
 * take direct (the short last page at EOF, an unaligned O_DIRECT write),
 * which goes through memory and backing_pwrite (direct head, buffered tail);
 * on a buffered fd, a backing that cannot splice, which gets this request
 * and every later one through memory and pwrite.  Returns the bytes written
 * or -errno (write_result); *consumed tells whether the pipe was emptied.
 */
static int splice_write(struct dutfs *fs, struct dutfs_fh *fh, struct dutfs_inode *in,
			int pipe_fd, size_t size, off_t off, bool writeback, bool *consumed,
			uint16_t *tflags)
{
	pthread_mutex_t *lock = write_lock(fs, in);
	bool direct = fh->flags & O_DIRECT;
	size_t done = 0;
	ssize_t n;
	void *mem;
	int err = 0, r;

	if (!fs->no_splice_write) {
		if (!direct)
			pthread_mutex_lock(lock);
		done = write_all(fh->fd, pipe_fd, NULL, size, off, &err);
		if (!direct)
			pthread_mutex_unlock(lock);
		/* O_DIRECT: the rest (even after some bytes) is still in the pipe, unaligned */
		if (done == size || err != EINVAL || (done && !direct)) {
			/* what is left (an error) libfuse drains by re-creating the pipe */
			*consumed = done == size;
			return (int)write_result(done, size, err, writeback);
		}
		if (!direct)
			fs->no_splice_write = true;
	}
	mem = dutfs_thread_buf(fs, size - done);
	r = mem ? pipe_read_all(pipe_fd, mem, size - done) : -ENOMEM;
	if (r < 0)
		return done && !writeback ? (int)done : r;
	*consumed = true;
	n = backing_pwrite(fs, fh, in, mem, size - done, off + (off_t)done, writeback, tflags);
	if (n < 0)
		return done && !writeback ? (int)done : (int)n;
	return (int)(done + (size_t)n);
}

/*
 * WRITE with libfuse's buffer vector (splice read: the device view).  Memory
 * buffers (small requests, or libfuse could not size its pipe) go to
 * dutfs_op_write.  Pipe buffers of a file go to the backing file by splice
 * (splice_write); those of the control file are read into the worker's
 * buffer and go to dutfs_op_write too.
 */
void dutfs_op_write_buf(fuse_req_t req, fuse_ino_t ino, struct fuse_bufvec *bufv, off_t off,
			struct fuse_file_info *fi)
{
	struct dutfs *fs = dutfs_of(req);
	const struct fuse_buf *b = &bufv->buf[bufv->idx];
	struct dutfs_fh *fh;
	struct dutfs_io io;
	bool consumed = false;
	size_t size;
	void *mem;
	int r;

	if (bufv->count != 1) {
		fuse_reply_err(req, EIO); /* libfuse 3.14 passes one buffer */
		return;
	}
	size = fuse_buf_size(bufv) - bufv->off;
	dutfs_splice_note_write(fs, size);
	if (!(b->flags & FUSE_BUF_IS_FD)) {
		dutfs_op_write(req, ino, (const char *)b->mem + bufv->off, size, off, fi);
		return;
	}
	atomic_fetch_add_explicit(&fs->nreq[DUTFS_REQ_WRITE_SPLICED], 1, memory_order_relaxed);
	fh = dutfs_is_ctl_ino(ino) ? NULL : fh_of(fi);
	if (!fh) {
		mem = dutfs_thread_buf(fs, size);
		r = mem ? pipe_read_all(b->fd, mem, size) : -ENOMEM;
		if (r < 0) {
			fuse_reply_err(req, -r);
			return;
		}
		pipe_consumed(bufv);
		dutfs_op_write(req, ino, mem, size, off, fi);
		return;
	}
	r = write_kill_privs(fs, req, ino, fh, fi);
	if (r < 0) {
		fuse_reply_err(req, -r);
		return;
	}
	r = dutfs_io_begin(fs, req, &io, DUT_OP_WRITE, dutfs_inode(fs, ino), (uint64_t)off,
			   (uint32_t)size,
			   fh->trace_flags | (fi->writepage ? DUT_TRACE_F_WRITEBACK : 0));
	if (!r) {
		/* io.xfer_len < size: a short write injected by shaping */
		r = splice_write(fs, fh, dutfs_inode(fs, ino), b->fd, io.xfer_len, off,
				 fi->writepage, &consumed, &io.flags);
		if (consumed && io.xfer_len == size)
			pipe_consumed(bufv);
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
