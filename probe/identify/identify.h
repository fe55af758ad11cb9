/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dutprobe identify: what a target (block device, partition or regular file)
 * really is, and what the link to it can carry.
 *
 * The public surface for the rest of dutprobe is this header and
 * probe/identify/nvme.h (NVMe deallocate for the trim subcommand).
 */
#ifndef DUTPROBE_IDENTIFY_H
#define DUTPROBE_IDENTIFY_H

#include <stddef.h>

/*
 * The 'identify' subcommand: argv[0] = "identify".
 *     dutprobe identify TARGET [--json FILE]
 * Returns the process exit status (0 ok, 1 failure, 2 usage error).
 */
int dutprobe_identify_main(int argc, char **argv);

/*
 * What the link to the device behind target_path can carry, for flagging
 * "this rate is a cache, not the device".
 *
 * *ret_bytes_per_s: the interface ceiling in bytes/s after line encoding
 * (0 = unknown, or no link at all); desc: one line such as "PCIe 3.0 x4",
 * "USB 3.1 Gen 2 (10 Gbit/s) via ASMedia ASM2362", "SATA 6.0 Gbps",
 * "loop device over /var/tmp/x.img: no link" (always NUL-terminated when
 * desclen > 0).  The table behind the numbers: probe/identify/link.c.
 *
 * Returns 0, or -errno when target_path cannot be resolved to a device
 * (-ENOENT: no such path; -ENODEV: no block device behind it).
 */
int dutprobe_link_ceiling(const char *target_path, double *ret_bytes_per_s,
			  char *desc, size_t desclen);

#endif
