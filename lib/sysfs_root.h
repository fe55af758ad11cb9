/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where sysfs is: /sys, or $DUTPROBE_SYSFS_ROOT (a test seam: a fake tree of
 * /sys/block, /sys/class/block and /sys/dev/block).  One variable for every
 * reader, dutprobe's identify, target and safety checks and dutlab's staging
 * alike, so a test that fakes the tree fakes it for all of them (the staging
 * code also runs dutprobe's safety checks).  The name is dutprobe's, where
 * docs/dutprobe.md documents it.
 */
#ifndef DUT_SYSFS_ROOT_H
#define DUT_SYSFS_ROOT_H

#include <stdlib.h>

#define DUT_SYSFS_ROOT_ENV "DUTPROBE_SYSFS_ROOT"

static inline const char *dut_sysfs_root(void)
{
	const char *r = getenv(DUT_SYSFS_ROOT_ENV);

	return r && *r ? r : "/sys";
}

#endif
