/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * /proc/self/mountinfo, parsed once for everyone (pure: text in, mounts out).
 *
 * A line (proc(5)):
 *
 *     36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw,errors=continue
 *     id parent maj:min root mount-point options [optional...] - fstype source super-options
 *
 * The kernel writes space, tab, newline and backslash inside a field as
 * \ooo octal escapes; every string field here is decoded.  A field longer
 * than its buffer makes the line malformed (-ENAMETOOLONG) rather than
 * silently shortened: a truncated mount point could match another.
 *
 * Which mount a caller wants differs, so the finders say it in their name:
 * the first line (the earliest mount of a device), the last line (the mount
 * on top, what a path resolves to), or the longest mount point containing a
 * path.  Every finder skips malformed lines; a caller that must refuse them
 * walks the text with dut_mountinfo_next().
 */
#ifndef DUT_MOUNTINFO_H
#define DUT_MOUNTINFO_H

#include <limits.h>
#include <stddef.h>

struct dut_mount {
	unsigned major, minor;            /* st_dev of files on this mount */
	char root[PATH_MAX];              /* the mount's root within its file system */
	char mount_point[PATH_MAX];
	char fstype[64];                  /* "ext4", "fuse.dutfs", "cgroup2" */
	char source[PATH_MAX];            /* "/dev/vda1", "dutfs", "none" */
	char super_opts[1024];            /* "rw,memory" */
};

/*
 * Parse one line of len bytes (no newline).  0; -EINVAL when it is not a
 * mountinfo line; -ENAMETOOLONG when a field does not fit its buffer.
 */
int dut_mountinfo_parse_line(const char *line, size_t len, struct dut_mount *ret);

/*
 * The next non-empty line of [*pos, end): 1 and *ret filled, 0 at the end,
 * or the line's parse error (*pos is past that line either way, so a caller
 * that skips bad lines just calls again).
 */
int dut_mountinfo_next(const char **pos, const char *end, struct dut_mount *ret);

/* First mount of major:minor: 1 found, 0 not. */
int dut_mountinfo_find_dev(const char *text, size_t len, unsigned major, unsigned minor,
			   struct dut_mount *ret);
/* First (last = 0) or last (last = 1) mount whose source is exactly source: 1 or 0. */
int dut_mountinfo_find_source(const char *text, size_t len, const char *source, int last,
			      struct dut_mount *ret);
/* The last mount (the one on top) whose mount point is exactly path: 1 or 0. */
int dut_mountinfo_find_point(const char *text, size_t len, const char *path, struct dut_mount *ret);
/*
 * Among the mounts of major:minor, the one whose mount point is the longest
 * prefix (at a '/' boundary) of the absolute path: where path was resolved
 * through when several bind mounts show the same device.  1 or 0.
 */
int dut_mountinfo_find_covering(const char *text, size_t len, unsigned major, unsigned minor,
				const char *path, struct dut_mount *ret);

/*
 * Whether the comma-separated list of len bytes at opts holds word exactly
 * ("memory" in "rw,memory"; also the controller lists of /proc/self/cgroup).
 */
int dut_mount_has_option(const char *opts, size_t len, const char *word);

#endif
