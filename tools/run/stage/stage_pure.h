/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The pure half of target staging (no I/O; unit-tested in
 * tests/tools/stage/test_stage_pure.c): per-filesystem mkfs argv and mount
 * options, space arithmetic, loop sysfs text, paths.
 * stage_linux.c, loop_linux.c and exec_linux.c do the syscalls.
 */
#ifndef DUTLAB_RUN_STAGE_PURE_H
#define DUTLAB_RUN_STAGE_PURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/dev_safety.h"       /* struct sig_hit, sig_detect() */
#include "tools/run/experiment.h"

/* ---- filesystems (stage_fs.c) ---- */

#define STAGE_FS_MAX_ARGS 8
#define STAGE_FS_ARG_LEN 64

/* One row per filesystem type that creates something (not DUT_FS_NONE). */
struct stage_fs_ops {
	enum dut_fs_type type;
	const char *mkfs;               /* program: "mkfs.ext4" */
	const char *package;            /* Debian package that has it: "e2fsprogs" */
	const char *fstype;             /* for mount(2): "ext4" */
	uint64_t min_bytes;             /* smallest device Debian 12's mkfs accepts; 0: no limit */
	/* Options of our own before the user's: quiet, force, block size, and
	 * with keep_blocks no discard (a discard on a loop device punches holes
	 * into the image and undoes its fallocate).  Returns how many strings
	 * it wrote into out (at most STAGE_FS_MAX_ARGS). */
	size_t (*mkfs_args)(const struct dut_filesystem *fs, bool keep_blocks, char out[][STAGE_FS_ARG_LEN]);
	/* The filesystem's own mount data ("data=journal"), or NULL. */
	const char *(*mount_data)(const struct dut_filesystem *fs);
};

/* NULL for DUT_FS_NONE or an unknown type. */
const struct stage_fs_ops *stage_fs_ops_of(enum dut_fs_type t);

/*
 * mkfs argv: PROG, our options, the user's mkfs-options (split at blanks;
 * quotes are refused, since nothing here is a shell), DEVICE, NULL.
 * prog is the program to run (a full path or ops->mkfs).  Malloc'ed; free
 * with stage_argv_free().  0, -EINVAL (msg says why) or -ENOMEM.
 */
int stage_mkfs_argv(const struct dut_filesystem *fs, const char *prog, const char *device, bool keep_blocks,
		    char ***ret, char *msg, size_t msglen);
void stage_argv_free(char **argv);
/* argv joined by blanks into buf (for messages); returns buf. */
char *stage_argv_join(char *const *argv, char *buf, size_t len);

/*
 * Mount options of a filesystem: the generic ones (noatime, ro, sync,
 * lazytime, ...) become MS_* flags, as mount(8) does; the rest, after the
 * filesystem's own (ext4 data=), is the data string for mount(2).
 * *ret_data is malloc'ed (never NULL).  0, -EINVAL (msg: an empty option,
 * or data= set in mount-options of an ext4 filesystem) or -ENOMEM.
 */
int stage_mount_options(const struct dut_filesystem *fs, unsigned long *ret_flags, char **ret_data,
			char *msg, size_t msglen);

/* ---- space (stage_pure.c) ---- */

struct stage_space_facts {
	enum dut_target_type type;
	const char *path;               /* the target, for messages */
	const char *fs_dir;             /* the directory whose free space counts (messages) */
	uint64_t need_bytes;            /* what the configuration will write */
	uint64_t free_bytes;            /* directory target, image: free space of fs_dir */
	uint64_t image_size;            /* image: requested size */
	uint64_t image_allocated;       /* image: bytes the existing file already has allocated */
	uint64_t device_bytes;          /* device: its size */
	const char *fs_name;            /* the filesystem to create, or NULL (none) */
	uint64_t fs_min_bytes;          /* its mkfs's minimum size (stage_fs_ops.min_bytes) */
};

/* Bytes fallocate still has to find for an image. */
uint64_t stage_image_missing_bytes(uint64_t size, uint64_t allocated);
/* 0, or -ENOSPC with msg saying how much is needed, where, and what to do
 * (also when an image or device is smaller than its filesystem's minimum). */
int stage_space_check(const struct stage_space_facts *f, char *msg, size_t msglen);

/* ---- image files (stage_pure.c) ---- */

/* The marker of an image dutlab made: a trusted.* xattr, which only root
 * (CAP_SYS_ADMIN) can set, so no user can mark a file of theirs. */
#define STAGE_IMAGE_XATTR "trusted.dutlab.image"
#define STAGE_IMAGE_XATTR_VALUE "dutlab image 1"
/* An unmarked file must be blank this far (and carry no signature). */
#define STAGE_IMAGE_HEAD_BYTES (1u << 20)

struct stage_image_facts {
	const char *path;               /* for messages */
	bool marked;                    /* has the marker */
	uint64_t size_bytes;
	const uint8_t *head;            /* the first head_len bytes (unmarked files) */
	size_t head_len;
};

/*
 * An existing image file may be formatted when dutlab made it (marked), it
 * is empty, or its first MiB is all zero (no signature either: a fresh
 * truncate -s).  0, or -EEXIST with msg naming the signature or the first
 * non-zero byte and what to do.
 */
int stage_image_verdict(const struct stage_image_facts *f, char *msg, size_t msglen);

/* ---- loop sysfs text, paths (stage_pure.c) ---- */

/* mountinfo lookups: lib/mountinfo.h (by source, last = 1: the mount on top;
 * btrfs shows an anonymous 0:N device number, so devices are looked up by name) */

/* /sys/block/loopN/loop/backing_file text -> the path: strips the newline
 * and a " (deleted)" suffix (then *ret_deleted = true).  Returns out. */
char *stage_backing_file_path(const char *text, char *out, size_t len, bool *ret_deleted);

/* path if absolute, else base_dir/path ("." or NULL base: path).  Malloc'ed or NULL. */
char *stage_resolve_path(const char *base_dir, const char *path);
/* The directory part of path ("/" or "." at the top).  Writes into out. */
char *stage_dirname(const char *path, char *out, size_t len);
/* A mountpoint template "<mnt_root>/<name>-XXXXXX" for mkdtemp, the name
 * reduced to [A-Za-z0-9._+-] (others become '_').  Malloc'ed or NULL. */
char *stage_mountpoint_template(const char *mnt_root, const char *target_name);

#endif
