/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The client side of dutfs's control file (<mount>/.dutfs/control, docs/dutfs.md):
 * one command per write(2), the answer ("ok" or "error: ...") read back at
 * offset 0.  pgload's phase markers and dutlab run's markers and trace
 * switches all speak through this.  Syscalls; nothing here prints.
 */
#ifndef DUT_DUTFS_CTL_H
#define DUT_DUTFS_CTL_H

#include <stddef.h>

#define DUT_CTL_NAME ".dutfs/control"

/*
 * Open a control file for commands.  Root writes to it, and a search may
 * start in a directory postgres can write (PGDATA): so no link in any
 * component, a regular file, owned by root or by us (dutfs reports the uid
 * it runs as).  The fd, or -ENOENT (absent), -EPERM (someone else's),
 * -EINVAL (not a regular file), -ELOOP (a link) or another -errno.
 */
int dut_ctl_open(const char *path);

/*
 * The first acceptable DIR/.dutfs/control at or above start (start itself
 * first, then each parent up to /): its fd, its path in ret.  A candidate
 * that exists but is refused is passed to refused (may be NULL) with its
 * -errno, and the walk goes on.  -ENOENT when there is none.
 */
int dut_ctl_find(const char *start, char *ret, size_t len,
		 void (*refused)(const char *path, int err, void *ctx), void *ctx);

/*
 * Send cmd (without its newline) and read the answer into status (may be
 * NULL; "" when dutfs said nothing).  0 when accepted, -EINVAL when dutfs
 * answered "error..." (status holds the answer), -ENAMETOOLONG for a command
 * over 250 bytes, else the write's -errno.  A plain file in the place of
 * the control file (tests) echoes the command back and counts as accepted.
 */
int dut_ctl_command(int fd, const char *cmd, char *status, size_t status_len);

#endif
