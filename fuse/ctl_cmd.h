/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Commands written to MNT/.dutfs/control (pure parser).  One command per
 * write(), optionally ending in one newline:
 *   mark <label>    phase marker in the trace (label: 1..255 printable chars)
 *   trace on        resume tracing
 *   trace off       pause tracing (records are not written; stats go on)
 *   crash           (--shape) the device dies: unsynced data is discarded,
 *                   every request fails with EIO until recover
 *   recover         (--shape) back to running after a crash
 *   reload          (--shape) re-read the rules file; a broken file keeps
 *                   the old rules
 */
#ifndef DUTFS_CTL_CMD_H
#define DUTFS_CTL_CMD_H

#include <stddef.h>

#include "lib/error.h"

#define DUTFS_CTL_LABEL_MAX 255
#define DUTFS_CTL_WRITE_MAX 4096  /* longest write accepted */

enum dutfs_ctl_verb {
	DUTFS_CTL_MARK = 1,
	DUTFS_CTL_TRACE_ON,
	DUTFS_CTL_TRACE_OFF,
	DUTFS_CTL_CRASH,
	DUTFS_CTL_RECOVER,
	DUTFS_CTL_RELOAD,
};

struct dutfs_ctl_cmd {
	enum dutfs_ctl_verb verb;
	char label[DUTFS_CTL_LABEL_MAX + 1]; /* MARK only */
};

/* Parse buf[0..len).  -EINVAL with a reason in err for anything else. */
int dutfs_ctl_parse(const char *buf, size_t len, struct dutfs_ctl_cmd *ret, struct dut_error *err);

#endif
