/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Write safety for block devices.
 *
 * Pure part (safety.c): on-disk signature detection in a buffer holding the
 * first SIG_SCAN_BYTES of a device (mountinfo parsing: lib/mountinfo.h).
 * Linux part (safety_linux.c): gathers the facts for one device (mounts of
 * the device and of everything stacked on or under it, lib/blkstack.h:
 * partitions, holders, loop devices over it, the disk or backing device it
 * is part of; swap, exclusive-open tests, signatures) into a struct
 * safety_report that main turns into a refusal.
 */
#ifndef DUT_DEV_SAFETY_H
#define DUT_DEV_SAFETY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Covers btrfs (65600 + 8), ISO9660 (32769) and GPT on 4 KiB sectors (4096 + 8). */
#define SIG_SCAN_BYTES (128u * 1024)

struct sig_hit {
	const char *name;         /* "ext2/3/4 filesystem", "GPT partition table", ... */
	uint64_t offset;          /* where the magic was found */
};

#define SIG_MAX_HITS 8

/*
 * Look for filesystem, partition-table, RAID, LVM, LUKS and swap signatures
 * in buf[0..len) (the start of a device).  Fills up to max hits in order of
 * offset; returns how many were found (0 = looks blank or unknown data).
 */
size_t sig_detect(const uint8_t *buf, size_t len, struct sig_hit *hits, size_t max);

/*
 * What the write-safety checks looked at (a block device and its number,
 * or something else: a file, nothing), to hold against what was opened
 * afterwards: between the checks and open() the path may have been made to
 * name another device.
 */
struct safety_seen {
	bool is_blk;
	dev_t rdev;               /* is_blk: the device examined */
};

/*
 * Is the opened target (st_mode, st_rdev of its fstat) what was checked?
 * A block device must be the same device; anything else must not have
 * become a block device.  Pure.
 */
bool safety_same_target(const struct safety_seen *seen, mode_t opened_mode, dev_t opened_rdev);

/* What was found on one device; each string empty when nothing was. */
struct safety_report {
	char mounted[512];        /* "/dev/loop0 is mounted at /mnt (ext4)" or partition mounts */
	char in_use[512];         /* holders, swap, exclusive opener */
	char signature[512];      /* "ext2/3/4 filesystem (magic at byte 1080)" */
	bool no_answer;           /* the signature read did not answer in time (in in_use too) */
	dev_t rdev;               /* the device number that was examined */
};

/*
 * Examine a block device by path (the Linux part).  Returns 0 and fills
 * *ret, or -errno when the device cannot be examined at all.  A signature
 * read that does not answer within read_timeout_ns (0 = wait as long as it
 * takes) is a refusal in in_use with no_answer set.  safety_examine() gives
 * the read SAFETY_READ_TIMEOUT_NS (60 s, dutprobe's default stall timeout).
 */
#define SAFETY_READ_TIMEOUT_NS (60ull * 1000000000ull)
int safety_examine_within(const char *dev_path, uint64_t read_timeout_ns, struct safety_report *ret);
int safety_examine(const char *dev_path, struct safety_report *ret);

/*
 * The signature read: the first SIG_SCAN_BYTES of path into buf (room for
 * SIG_SCAN_BYTES).  0 and *ret_n; -ETIME when the open and the read did not
 * both return within timeout_ns (0 = no limit); -errno.  They run in a
 * detached thread, which after -ETIME goes on alone and frees its own
 * memory when the kernel answers.  Exported for the tests (a FIFO with no
 * writer stands in for a device that does not answer).
 */
int safety_sig_read(const char *path, uint64_t timeout_ns, uint8_t *buf, size_t *ret_n);

static inline bool safety_report_clear(const struct safety_report *r)
{
	return !r->mounted[0] && !r->in_use[0] && !r->signature[0];
}

#endif
