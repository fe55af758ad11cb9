/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The dutfs lowlevel ops table, connection set-up and the file-system object.
 *
 * Not implemented on purpose (libfuse answers ENOSYS, the kernel then stops
 * asking and handles it itself or fails cleanly):
 *  - xattrs: with a getxattr handler the kernel asks for security.capability
 *    before every write(); PostgreSQL needs no xattrs.
 *  - getlk/setlk/flock: POSIX and flock locks are kept by the kernel for
 *    this mount (all users are local), which is what PostgreSQL's tools need.
 *  - copy_file_range, lseek(SEEK_DATA/HOLE), ioctl, poll: the kernel falls
 *    back to read/write and generic lseek.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuse/dutfs.h"
#include "fuse/relmap_class.h"
#include "fuse/shaper.h"
#include "fuse/shape/timerq.h"


static void dutfs_init(void *userdata, struct fuse_conn_info *conn)
{
	struct dutfs *fs = userdata;
	unsigned want = FUSE_CAP_ASYNC_READ | FUSE_CAP_ASYNC_DIO | FUSE_CAP_PARALLEL_DIROPS |
			FUSE_CAP_READDIRPLUS | FUSE_CAP_READDIRPLUS_AUTO | FUSE_CAP_ATOMIC_O_TRUNC |
			FUSE_CAP_CACHE_SYMLINKS;

	/* the device view: the kernel gathers writes; what reaches us is what a device would see */
	if (fs->view == DUTFS_VIEW_DEVICE)
		want |= FUSE_CAP_WRITEBACK_CACHE;
	conn->want |= want & conn->capable;
	/*
	 * Splice read (libfuse sets it when there is a write_buf): writeback
	 * writes of the device view then reach the backing file's page cache
	 * with one copy instead of two (dutfs_op_write_buf), which took
	 * `pgbench -i` from 1.47x native to 1.12x (docs/bench-dutfs.md).
	 * Every other request costs one more syscall with it (splice, then
	 * read from the pipe), so in the device view it goes off while small
	 * requests arrive without large writes (loop.c turns it on and off).  The
	 * syscall view's writes are small and come from user pages the
	 * kernel copies anyway: never there.  SPLICE_WRITE/MOVE only matter
	 * for fuse_reply_data, which dutfs does not use.
	 */
	fs->conn = conn;
	fs->splice_capable = fs->view == DUTFS_VIEW_DEVICE && (conn->capable & FUSE_CAP_SPLICE_READ);
	conn->want &= ~(unsigned)FUSE_CAP_SPLICE_READ;
	if (fs->splice_capable)
		conn->want |= FUSE_CAP_SPLICE_READ;
	atomic_store(&fs->splice_on, fs->splice_capable);
	conn->want &= ~(unsigned)(FUSE_CAP_SPLICE_WRITE | FUSE_CAP_SPLICE_MOVE);
	/*
	 * Every change reaches the backing files through this kernel, so a
	 * changed mtime never means someone else changed the data: no
	 * automatic invalidation (it would drop cached pages on getattr).
	 */
	conn->want &= ~(unsigned)FUSE_CAP_AUTO_INVAL_DATA;
	/*
	 * libfuse 3.14 asks for FUSE_HANDLE_KILLPRIV by default, which tells
	 * the kernel that dutfs kills S_ISUID/S_ISGID itself on write,
	 * truncate and chown (older kernels then send no mode change).  It
	 * cannot ask for KILLPRIV_V2 (no FUSE_CAP for it; the flags it would
	 * send on setattr and open do not reach the ops).  Without either,
	 * the kernel computes the new mode and sends it as a SETATTR for
	 * truncate, chown and page-cache writes; what it leaves to dutfs:
	 * direct_io writes (FUSE_WRITE_KILL_SUIDGID, which libfuse 3.14 drops:
	 * see dutfs_op_write) and open(O_TRUNC) (the open runs as the caller,
	 * so the backing file system kills the bits).  docs/dutfs.md, "Other
	 * users".
	 */
	conn->want &= ~(unsigned)FUSE_CAP_HANDLE_KILLPRIV;
	/*
	 * fs->max_write (dutfs_init_fs, main.c); libfuse 3.14 derives max_pages
	 * from it.  It caps it at 1 MiB before this call, not after: dutfs
	 * receives requests itself (loop.c), into buffers of that size.
	 */
	conn->max_write = fs->max_write;
	/*
	 * Syscall view: no readahead window (the bdi's ra_pages becomes 0), so
	 * a fault on a private mapping reads only its page.  It does not stop
	 * posix_fadvise(WILLNEED) on 6.18: force_page_cache_ra still reads up
	 * to the bdi's io_pages (32) pages; those READs carry no lock owner
	 * and are kept out of the trace (counted_read, read_fill.c).
	 */
	conn->max_readahead = fs->view == DUTFS_VIEW_SYSCALL ? 0 : DUTFS_BUF_MAX;
	/*
	 * Readahead, writeback and async direct I/O are "background"
	 * requests; the kernel default of 12 in flight caps a QD32 reader.
	 */
	conn->max_background = 128;
	conn->congestion_threshold = 96;
	conn->time_gran = 1;
	/*
	 * With the writeback cache the kernel owns mtime/ctime: every write
	 * that moves mtime dirties the inode, and the next fsync/fdatasync
	 * first sends a SETATTR(mtime, ctime) round trip (sync_inode_metadata
	 * in fuse_fsync): one per WAL commit.  With a 1 s granularity the
	 * kernel's timestamps move at most once a second per file, so that
	 * round trip all but disappears.  The cost: file times on the mount
	 * (and on the backing files) have whole-second resolution, as on
	 * ext3; PostgreSQL does not use sub-second file times.
	 */
	if (fs->view == DUTFS_VIEW_DEVICE)
		conn->time_gran = 1000000000;
}

/* the control files' actions are the tracer's (dutfs.h, struct dutfs_ctl_actions) */
static int ctl_mark(struct dutfs *fs, const char *label)
{
	return dutfs_tracer_mark(fs->tracer, label);
}

static int ctl_set_tracing(struct dutfs *fs, bool on)
{
	return dutfs_tracer_set_enabled(fs->tracer, on);
}

static const struct dutfs_ctl_actions ctl_actions = {
	.render_stats = dutfs_tracer_render_stats,
	.mark = ctl_mark,
	.set_tracing = ctl_set_tracing,
};

static inline void count_req(fuse_req_t req, enum dutfs_req k)
{
	atomic_fetch_add_explicit(&dutfs_of(req)->nreq[k], 1, memory_order_relaxed);
}

/*
 * Each entry of the ops table counts its request, then runs the op.
 * Requests libfuse answers itself (ENOSYS for xattrs, locks, ...; init,
 * destroy, interrupt) are not counted.
 */
#define COUNTED(op, KIND, params, args)          \
	static void counted_##op params          \
	{                                        \
		count_req(req, DUTFS_REQ_##KIND); \
		dutfs_op_##op args;              \
	}

/*
 * While a shaped device is crashed (docs/shaping.md), requests that change
 * the namespace or attributes fail with EIO, like the data requests the
 * shaper layer refuses.  Lookups, getattr, readdir and statfs still answer,
 * and the control directory works (it is how "recover" gets in).
 */
static bool refused_while_crashed(fuse_req_t req, fuse_ino_t ino)
{
	struct dutfs *fs = dutfs_of(req);

	if (!fs->shaper || dutfs_is_ctl_ino(ino) || !dutfs_shaper_is_down(fs->shaper))
		return false;
	fuse_reply_err(req, EIO);
	return true;
}

#define GATED(op, KIND, params, args, ino)               \
	static void counted_##op params                  \
	{                                                \
		count_req(req, DUTFS_REQ_##KIND);         \
		if (!refused_while_crashed(req, ino))    \
			dutfs_op_##op args;              \
	}

COUNTED(lookup, LOOKUP, (fuse_req_t req, fuse_ino_t p, const char *n), (req, p, n))
COUNTED(forget, FORGET, (fuse_req_t req, fuse_ino_t i, uint64_t n), (req, i, n))
COUNTED(getattr, GETATTR, (fuse_req_t req, fuse_ino_t i, struct fuse_file_info *fi), (req, i, fi))
GATED(setattr, SETATTR, (fuse_req_t req, fuse_ino_t i, struct stat *a, int s, struct fuse_file_info *fi),
      (req, i, a, s, fi), i)
COUNTED(readlink, READLINK, (fuse_req_t req, fuse_ino_t i), (req, i))
GATED(mknod, MKNOD, (fuse_req_t req, fuse_ino_t p, const char *n, mode_t m, dev_t d), (req, p, n, m, d), p)
GATED(mkdir, MKDIR, (fuse_req_t req, fuse_ino_t p, const char *n, mode_t m), (req, p, n, m), p)
GATED(symlink, SYMLINK, (fuse_req_t req, const char *l, fuse_ino_t p, const char *n), (req, l, p, n), p)
GATED(link, LINK, (fuse_req_t req, fuse_ino_t i, fuse_ino_t p, const char *n), (req, i, p, n), p)
GATED(unlink, UNLINK, (fuse_req_t req, fuse_ino_t p, const char *n), (req, p, n), p)
GATED(rmdir, RMDIR, (fuse_req_t req, fuse_ino_t p, const char *n), (req, p, n), p)
GATED(rename, RENAME, (fuse_req_t req, fuse_ino_t p, const char *n, fuse_ino_t np, const char *nn,
		       unsigned int f), (req, p, n, np, nn, f), p)
COUNTED(statfs, STATFS, (fuse_req_t req, fuse_ino_t i), (req, i))
COUNTED(open, OPEN, (fuse_req_t req, fuse_ino_t i, struct fuse_file_info *fi), (req, i, fi))
GATED(create, CREATE, (fuse_req_t req, fuse_ino_t p, const char *n, mode_t m, struct fuse_file_info *fi),
      (req, p, n, m, fi), p)
/*
 * Syscall view: a READ of a data file without a lock owner was not issued
 * by a read syscall (direct_io reads always carry one) but by the kernel
 * filling the page cache: fadvise(WILLNEED), readahead(2), a fault on a
 * private mapping.  It is served without a trace record (read_fill.c).
 */
static void counted_read(fuse_req_t req, fuse_ino_t i, size_t s, off_t o, struct fuse_file_info *fi)
{
	count_req(req, DUTFS_REQ_READ);
	if (dutfs_of(req)->view == DUTFS_VIEW_SYSCALL && !fi->lock_owner && !dutfs_is_ctl_ino(i))
		dutfs_op_read_fill(req, i, s, o, fi);
	else
		dutfs_op_read(req, i, s, o, fi);
}
COUNTED(write, WRITE, (fuse_req_t req, fuse_ino_t i, const char *b, size_t s, off_t o,
		       struct fuse_file_info *fi), (req, i, b, s, o, fi))
COUNTED(write_buf, WRITE, (fuse_req_t req, fuse_ino_t i, struct fuse_bufvec *b, off_t o,
			   struct fuse_file_info *fi), (req, i, b, o, fi))
COUNTED(flush, FLUSH, (fuse_req_t req, fuse_ino_t i, struct fuse_file_info *fi), (req, i, fi))
COUNTED(release, RELEASE, (fuse_req_t req, fuse_ino_t i, struct fuse_file_info *fi), (req, i, fi))
COUNTED(fsync, FSYNC, (fuse_req_t req, fuse_ino_t i, int d, struct fuse_file_info *fi), (req, i, d, fi))
COUNTED(fallocate, FALLOCATE, (fuse_req_t req, fuse_ino_t i, int m, off_t o, off_t l,
			       struct fuse_file_info *fi), (req, i, m, o, l, fi))
COUNTED(opendir, OPENDIR, (fuse_req_t req, fuse_ino_t i, struct fuse_file_info *fi), (req, i, fi))
COUNTED(readdir, READDIR, (fuse_req_t req, fuse_ino_t i, size_t s, off_t o, struct fuse_file_info *fi),
	(req, i, s, o, fi))
COUNTED(readdirplus, READDIRPLUS, (fuse_req_t req, fuse_ino_t i, size_t s, off_t o,
				   struct fuse_file_info *fi), (req, i, s, o, fi))
COUNTED(releasedir, RELEASEDIR, (fuse_req_t req, fuse_ino_t i, struct fuse_file_info *fi), (req, i, fi))
GATED(fsyncdir, FSYNCDIR, (fuse_req_t req, fuse_ino_t i, int d, struct fuse_file_info *fi), (req, i, d, fi), i)

static void counted_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *forgets)
{
	/* one request forgets count inodes: count it as that many forgets */
	atomic_fetch_add_explicit(&dutfs_of(req)->nreq[DUTFS_REQ_FORGET], count, memory_order_relaxed);
	dutfs_op_forget_multi(req, count, forgets);
}

const struct fuse_lowlevel_ops dutfs_ll_ops = {
	.init = dutfs_init,
	.lookup = counted_lookup,
	.forget = counted_forget,
	.forget_multi = counted_forget_multi,
	.getattr = counted_getattr,
	.setattr = counted_setattr,
	.readlink = counted_readlink,
	.mknod = counted_mknod,
	.mkdir = counted_mkdir,
	.symlink = counted_symlink,
	.link = counted_link,
	.unlink = counted_unlink,
	.rmdir = counted_rmdir,
	.rename = counted_rename,
	.statfs = counted_statfs,
	.open = counted_open,
	.create = counted_create,
	.read = counted_read,
	.write = counted_write,
	.write_buf = counted_write_buf,
	.flush = counted_flush,
	.release = counted_release,
	.fsync = counted_fsync,
	.fallocate = counted_fallocate,
	.opendir = counted_opendir,
	.readdir = counted_readdir,
	.readdirplus = counted_readdirplus,
	.releasedir = counted_releasedir,
	.fsyncdir = counted_fsyncdir,
};

/*
 * Device view: does the backing file system take O_DIRECT?  An unnamed
 * O_TMPFILE in the backing directory (nothing appears in it) opened
 * O_DIRECT; EINVAL where the same open without O_DIRECT works means no
 * (tmpfs before Linux 6.6): every read and write then goes through the
 * backing page cache, which the user is told once, here, and every record
 * says (DUT_TRACE_F_BUFFERED).  When the check cannot tell (no O_TMPFILE,
 * no write permission), each open finds out (ops_file.c).
 */
static bool backing_takes_direct(const struct dutfs *fs)
{
	int fd = openat(fs->root.fd, ".", O_TMPFILE | O_RDWR | O_DIRECT | O_CLOEXEC, 0600);

	if (fd >= 0 || errno != EINVAL) {
		if (fd >= 0)
			close(fd);
		return true;
	}
	fd = openat(fs->root.fd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		return true;
	close(fd);
	fuse_log(FUSE_LOG_WARNING,
		 "dutfs: warning: the file system of %s refuses O_DIRECT (tmpfs before Linux 6.6?); "
		 "the device view's reads and writes go through its page cache, so the trace shows "
		 "page-cache copies, not the device (records flagged 0x10 \"buffered\"); use a backing "
		 "directory on ext4, xfs or btrfs\n", fs->backing);
	return false;
}

int dutfs_init_fs(struct dutfs *fs, const struct dutfs_cli *cli, const char *backing,
		  const char *mountpoint)
{
	struct dutfs_tracer_opts to = { .trace_path = cli->trace_path, .view = cli->view,
					.trace_max_bytes = cli->trace_max_bytes,
					.trace_segments = cli->trace_segments };
	struct stat st;
	int r;

	memset(fs, 0, sizeof(*fs));
	fs->root.fd = -1;
	fs->cli = cli;
	fs->view = cli->view;
	/*
	 * 1 MiB requests.  In the device view one page less: a spliced request
	 * is a header page plus its data pages in one pipe, and a pipe holds
	 * at most pipe-max-size (1 MiB by default; more needs CAP_SYS_RESOURCE).
	 * So the device view's largest write request (writeback, or a 1 MiB
	 * O_DIRECT write: 1020 + 4 KiB) is 1020 KiB, unless main.c raises it.
	 */
	fs->max_write = fs->view == DUTFS_VIEW_DEVICE ? DUTFS_BUF_MAX - 4096 : DUTFS_BUF_MAX;
	fs->owner_uid = getuid();
	fs->owner_gid = getgid();
	fs->backing = strdup(backing);
	fs->mountpoint = strdup(mountpoint);
	if (!fs->backing || !fs->mountpoint) {
		r = -ENOMEM;
		goto out_free;
	}
	fs->root.fd = open(backing, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fs->root.fd < 0 || fstat(fs->root.fd, &st) < 0) {
		r = -errno;
		goto out_free;
	}
	fs->root.dev = st.st_dev;
	fs->root.ino = st.st_ino;
	fs->root.type = S_IFDIR;
	if (cli->backing_cache_given)
		fuse_log(FUSE_LOG_WARNING, "dutfs: warning: --backing-cache is obsolete and ignored: "
			 "the device view reads and writes the backing files O_DIRECT, so they keep no "
			 "copy in memory; remove the option\n");
	fs->backing_direct = fs->view == DUTFS_VIEW_DEVICE && backing_takes_direct(fs);
	r = dutfs_creds_init(fs);
	if (r < 0)
		goto out_free;
	r = dutfs_itab_init(fs);
	if (r < 0)
		goto out_free;
	r = dutfs_ctl_new(fs, &ctl_actions, &fs->ctl);
	if (r < 0)
		goto out_itab;
	r = dutfs_tracer_new(&to, &fs->tracer);
	if (r < 0)
		goto out_ctl;
	/* what the latencies of the trace's reads and writes measure */
	(void)dutfs_tracer_info(fs->tracer, "backing_io",
				fs->view == DUTFS_VIEW_SYSCALL ? "as opened"
				: fs->backing_direct ? "direct" : "buffered");
	fs->layers[0] = (struct dutfs_layer){ .ops = &dutfs_tracer_layer, .ctx = fs };
	fs->nlayers = 1;
	for (unsigned i = 0; i < DUTFS_WRITE_LOCKS; i++)
		pthread_mutex_init(&fs->write_locks[i], NULL);
	return 0;

out_ctl:
	dutfs_ctl_free(fs->ctl);
out_itab:
	dutfs_itab_fini(fs);
out_free:
	if (fs->root.fd >= 0)
		close(fs->root.fd);
	free(fs->root_groups);
	free(fs->backing);
	free(fs->mountpoint);
	return r;
}

int dutfs_init_shaping(struct dutfs *fs, const struct dutfs_shaper_opts *o, struct shape_rules *rules,
		       struct shape_classifier *cls)
{
	int r = shape_sched_new(&fs->sched);

	if (r < 0) {
		shape_rules_free(rules);
		dutfs_relmap_class_free(cls);
		return r;
	}
	r = dutfs_shaper_new(fs, o, rules, cls, &fs->shaper);
	if (r < 0) {
		shape_sched_free(fs->sched);
		fs->sched = NULL;
		return r;
	}
	/* after the tracer: its complete runs last and records the shaped result */
	fs->layers[fs->nlayers++] = (struct dutfs_layer){ .ops = &dutfs_shaper_layer, .ctx = fs->shaper };
	return 0;
}

void dutfs_fini_fs(struct dutfs *fs)
{
	/* pending late replies go out (and are traced) before the tracer goes */
	if (fs->sched)
		shape_sched_stop(fs->sched);
	dutfs_shaper_free(fs->shaper);
	shape_sched_free(fs->sched);
	for (unsigned i = 0; i < DUTFS_WRITE_LOCKS; i++)
		pthread_mutex_destroy(&fs->write_locks[i]);
	dutfs_tracer_free(fs->tracer);
	dutfs_ctl_free(fs->ctl);
	dutfs_itab_fini(fs);
	close(fs->root.fd);
	free(fs->root_groups);
	free(fs->backing);
	free(fs->mountpoint);
}
