/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The block devices stacked on, or under, one block device: what shares its
 * blocks, so that writing to it would destroy them.  Loop devices take no
 * holder or exclusive claim on what backs them, so the kernel's holders
 * links alone do not show a loop over a loop or over a partition; this walk
 * does (lib/blkstack_linux.c, sysfs and LOOP_GET_STATUS64).
 *
 * Edges, from the device (self) out:
 *   up    its partitions, its holders (device-mapper, md, bcache), the loop
 *         devices whose backing file is it (the block device node itself:
 *         lo_rdevice, so even a deleted node is found); and the same from
 *         each device found this way;
 *   down  a partition's disk (whose other partitions do not overlap: from
 *         the disk only loops over it and its holders are followed), a loop
 *         device's backing block device (then all of that one's stack), a
 *         device-mapper/md device's slaves (checked themselves only: other
 *         holders of a slave, such as another LVM volume, use other blocks).
 * A loop over a regular file that lives on a filesystem on the device is
 * not an edge: that filesystem is mounted, which the caller checks.
 */
#ifndef DUT_BLKSTACK_H
#define DUT_BLKSTACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum dut_blk_rel {
	DUT_BLK_SELF,           /* the device asked about */
	DUT_BLK_PARTITION,      /* a partition of the parent */
	DUT_BLK_HOLDER,         /* holds the parent (dm, md, bcache) */
	DUT_BLK_LOOP_OVER,      /* a loop device whose backing file is the parent */
	DUT_BLK_DISK_OF,        /* the disk the parent is a partition of */
	DUT_BLK_BACKING_OF,     /* the block device the parent (a loop device) is backed by */
	DUT_BLK_SLAVE_OF,       /* a device the parent (dm, md) is built from */
};

struct dut_blk_node {
	dev_t dev;
	char name[64];          /* kernel name: "loop1", "sda1", "dm-0" (the /dev name) */
	enum dut_blk_rel rel;   /* to nodes[parent] */
	int parent;             /* -1 for self */
	bool down;              /* reached by going down (self too): may go further down */
	bool whole_only;        /* a disk reached from its partition: its partitions are not followed */
};

#define DUT_BLKSTACK_MAX 64

struct dut_blkstack {
	struct dut_blk_node nodes[DUT_BLKSTACK_MAX];    /* nodes[0] is self */
	size_t n;
	bool truncated;         /* more than DUT_BLKSTACK_MAX: the caller should refuse */
};

/*
 * Walk the stack of block device dev.  sysfs_root: "/sys", or a test tree.
 * 0, or -errno when dev has no sysfs directory.
 */
int dut_blkstack_walk(const char *sysfs_root, dev_t dev, struct dut_blkstack *ret);

/* nodes[i] for a message: "/dev/loop1 (a loop device over /dev/loop0)";
 * self is "/dev/NAME".  Returns buf. */
char *dut_blkstack_label(const struct dut_blkstack *s, size_t i, char *buf, size_t len);

/* Decode LOOP_GET_STATUS64's lo_rdevice (the kernel's huge_encode_dev). */
dev_t dut_blkstack_decode_dev(uint64_t v);

#endif
