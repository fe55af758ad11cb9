/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An open file's handle (fi->fh): made and freed by ops_file.c; the backing
 * fd is read by the other ops too (setattr's ftruncate, the page fill), here
 * and inline so that they need not call into ops_file.c.
 */
#ifndef DUTFS_FH_H
#define DUTFS_FH_H

#include <pthread.h>
#include <stdint.h>

#include "fuse/dutfs.h"

struct dutfs_fh {
	int fd;
	int buffered_fd;     /* -1 until needed; only for O_DIRECT fds; guarded by lock */
	int flags;           /* flags the backing fd was opened with */
	uint16_t trace_flags; /* on every record: F_DIRECT (the application's), F_BUFFERED (no O_DIRECT) */
	pthread_mutex_t lock;
};

/* the backing fd of an open file */
static inline int dutfs_fh_fd(const struct fuse_file_info *fi)
{
	return ((const struct dutfs_fh *)(uintptr_t)fi->fh)->fd;
}

#endif
