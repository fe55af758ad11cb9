/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Targets: a block device, a partition, or a regular file (created with
 * --size).  Always opened with O_DIRECT; a filesystem that cannot do direct
 * I/O (tmpfs, ...) is refused.  Linux part: target_linux.c.
 */
#ifndef DUTPROBE_TARGET_H
#define DUTPROBE_TARGET_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/error.h"

enum target_kind { TARGET_FILE, TARGET_DISK, TARGET_PARTITION };

struct probe_target {
	char path[PATH_MAX];
	enum target_kind kind;
	int fd;                   /* O_DIRECT; O_RDWR when opened for writing */
	bool writable;
	uint64_t size_bytes;      /* device size, or file size (after --size) */
	uint32_t lbs_bytes;       /* logical block size: the O_DIRECT alignment */
	uint32_t pbs_bytes;       /* physical block size (0 = unknown) */
	unsigned major, minor;    /* of the device, or of the filesystem's device for files */
	bool created;             /* this run created or extended the file */
	bool new_file;            /* this run created the file (it did not exist) */
	bool sparse;              /* the file has unallocated blocks (reads would not hit the device) */
	char fstype[32];          /* files: the filesystem ("ext4", "xfs", ...) */
};

struct target_opts {
	uint64_t size_bytes;      /* --size; 0 = not given */
	bool writes;              /* open read-write */
};

/* Sets fd = -1 so target_close() is safe on a target that never opened. */
void target_init(struct probe_target *t);
/*
 * Open path.  Errors (-errno) come with a user message in err: no such file
 * (give --size), a directory, not a file or block device, --size larger than
 * the device, no O_DIRECT support on <fs>, permission.
 */
int target_open(const char *path, const struct target_opts *o, struct probe_target *t,
		struct dut_error *err);
void target_close(struct probe_target *t);

const char *target_kind_name(enum target_kind k);

/*
 * Discard [off, off+len): BLKDISCARD on a block device, punch a hole in a
 * file.  -EOPNOTSUPP when the device or filesystem cannot.
 */
int target_discard(struct probe_target *t, uint64_t off, uint64_t len);
/* Does [off, off+len) of a file hold a hole (reads there never reach the device)? */
int target_has_hole(const struct probe_target *t, uint64_t off, uint64_t len, bool *ret);
/* Re-read st_blocks: is the file still sparse? */
int target_refresh_sparse(struct probe_target *t);

#endif
