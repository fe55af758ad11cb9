/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Syscall view: READ requests that no read syscall issued.
 *
 * With direct_io every read(), pread() and readv() of a process reaches
 * dutfs as a READ of its own, carrying the caller's lock owner (the kernel
 * sends FUSE_READ_LOCKOWNER with a hash of current->files from
 * fuse_direct_io).  The page cache of a direct_io file is still filled by
 * the kernel on behalf of a process for posix_fadvise(POSIX_FADV_WILLNEED)
 * (PostgreSQL's prefetch: bitmap heap scans with effective_io_concurrency
 * > 0, ANALYZE, recovery prefetch), readahead(2), madvise(MADV_WILLNEED)
 * and faults on a private mapping: fuse_readahead and fuse_read_folio,
 * which send no lock owner.  On kernel 6.18 max_readahead = 0 does not
 * stop the fadvise ones: force_page_cache_ra reads min(nr, max(bdi->io_pages,
 * ra_pages)) pages and the fuse bdi keeps io_pages at 32 (docs/dutfs.md,
 * "What the syscall view counts").
 *
 * Such a READ is served from the backing file (its data are needed: a fault
 * waits for them, and the backing page cache then holds the block, as a
 * native prefetch leaves it in the page cache) but is not a request of the
 * database: it is not traced, not shaped and not in the per-file
 * statistics.  stats.json counts it under requests.read and
 * requests.read_page_fill.
 */
#include <errno.h>
#include <unistd.h>

#include "fuse/dutfs.h"
#include "fuse/fh.h"
#include "fuse/shaper.h"

void dutfs_op_read_fill(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			struct fuse_file_info *fi)
{
	struct dutfs *fs = dutfs_of(req);
	void *buf;
	ssize_t n;

	(void)ino;
	atomic_fetch_add_explicit(&fs->nreq[DUTFS_REQ_READ_PAGE_FILL], 1, memory_order_relaxed);
	/* a crashed simulated device serves nothing (the fault gets SIGBUS, readahead is dropped) */
	if (fs->shaper && dutfs_shaper_is_down(fs->shaper)) {
		fuse_reply_err(req, EIO);
		return;
	}
	/*
	 * The buffer is 4 KiB aligned and page-cache requests are whole pages
	 * at page offsets, so the backing fd of an O_DIRECT open takes them too.
	 */
	buf = dutfs_thread_buf(fs, size);
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	n = pread(dutfs_fh_fd(fi), buf, size, off);
	if (n < 0)
		fuse_reply_err(req, errno);
	else
		fuse_reply_buf(req, buf, (size_t)n);
}
