/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Target staging for `dutlab run` (docs/staging.md is the user's guide):
 * make one [target] of an experiment ready for one configuration, and undo
 * it afterwards.
 *
 *     directory  mkdir -p; used as is (filesystem none only)
 *     image      create or extend the file to size (fallocate), attach a loop
 *                device (autoclear), then mkfs + mount unless filesystem none
 *     device     only with destructive = yes: mkfs + mount unless filesystem none
 *
 * Order of use, per configuration:
 *
 *     dut_stage_check()     for every config and target BEFORE anything starts
 *                           (no side effects)
 *     dut_stage_prepare()   -> struct dut_stage
 *     dut_stage_dir()       where the data goes (NULL for filesystem none on an
 *                           image or device: use dut_stage_device(), raw)
 *     dut_stage_teardown()
 *
 * Every function returns 0 or -errno and, on failure, explains in err (may
 * be NULL) what was wrong and what the user can do.  Nothing here prints.
 * Needs root for images, devices, mkfs and mount.
 */
#ifndef DUTLAB_RUN_STAGE_H
#define DUTLAB_RUN_STAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/error.h"
#include "tools/run/experiment.h"

struct dut_stage;

struct dut_stage_spec {
	const struct dut_target *target;      /* from the experiment (tools/run/experiment.h) */
	const struct dut_filesystem *fs;      /* NULL or type none: use the directory as is */
	const char *base_dir;                 /* resolve relative target paths against it */
	const char *mnt_root;                 /* where to create mountpoints (a private dir;
					       * created 0755 if missing, never removed; it must
					       * be searchable by the postgres user) */
	uint64_t need_bytes;                  /* refuse before starting when less is free */
	/* Additive: teardown deletes the image file when prepare created it
	 * (default false: the image stays, and the next prepare reuses it).
	 * An image file the user already had is never deleted. */
	bool remove_created_image;
	/* Image targets: allow symbolic links in the path (default false: a
	 * link anywhere in it is refused, since whoever can change the link
	 * could make the stage format another file).  The experiment's
	 * [target] has no key for it yet (follow-symlinks = yes). */
	bool follow_symlinks;
};

/*
 * No side effects: the target is not mounted or in use (a device, one of its
 * partitions, swap, a holder, an exclusive opener; an image already attached
 * to a loop device), a device has destructive = yes, the mkfs program is
 * installed (-ENOENT, naming the Debian package), and there is space
 * (an image's missing bytes vs the free space of its directory; need_bytes
 * vs the image or device size, or the free space of a directory target).
 */
int dut_stage_check(const struct dut_stage_spec *s, struct dut_error *err);

/*
 * image: create/extend file (fallocate), attach a loop device, mkfs, mount;
 * device: (destructive only) mkfs, mount; directory: mkdir -p; fs none: as is.
 * Runs the checks of dut_stage_check() first.  After mkfs, refuses when the
 * new filesystem has less than need_bytes free.  On failure undoes what it
 * did (unmounts, detaches the loop device, removes the mountpoint and an
 * image file it created, shrinks back an image it extended).
 */
int dut_stage_prepare(const struct dut_stage_spec *s, struct dut_stage **ret, struct dut_error *err);

/* The directory to put data in (the mountpoint, or the directory target);
 * NULL for filesystem none on an image or a device. */
const char *dut_stage_dir(const struct dut_stage *s);
/* /dev/loopN (image), the device (device target), or NULL (directory). */
const char *dut_stage_device(const struct dut_stage *s);

/* Additive, for the manifest (how the filesystem was made): the mkfs
 * command line that ran ("/usr/sbin/mkfs.ext4 -q -F ... /dev/loop3") and the
 * mount options as mount -o takes them ("data=journal,noatime"; "" when
 * none); NULL when no filesystem was made. */
const char *dut_stage_mkfs_command(const struct dut_stage *s);
const char *dut_stage_mount_options(const struct dut_stage *s);

/*
 * umount (retry EBUSY for a short, bounded time), remove the mountpoint,
 * detach the loop device, free.  s may be NULL (then 0).  Always frees s:
 * when the filesystem stays busy it returns -EBUSY and err names the
 * mountpoint to unmount by hand (the loop device then detaches by itself
 * at that umount: it is attached with autoclear).  Never deletes an image
 * file the user already had.
 */
int dut_stage_teardown(struct dut_stage *s, struct dut_error *err);

#endif
