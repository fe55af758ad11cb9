/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lib/mountinfo: one parser for /proc/self/mountinfo and its finders, on the
 * mount tables the write-safety checks, identify, dutfs and the staging code
 * were each tested with when each had a parser of its own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lib/mountinfo.h"
#include "tests/cu_main.h"

#define LEN(s) (sizeof(s) - 1)

static struct dut_mount *new_mount(void)
{
	struct dut_mount *m = calloc(1, sizeof(*m));

	CU_ASSERT_FATAL(m != NULL);
	return m;
}

static void test_parse_line_fields_and_escapes(void)
{
	_cleanup_free_ struct dut_mount *m = new_mount();
	static const char line[] =
		"36 35 98:0 /mnt1 /mnt/with\\040space rw,noatime master:1 shared:2 - ext3 /dev/root rw,errors=continue";

	CU_ASSERT_EQUAL_FATAL(dut_mountinfo_parse_line(line, LEN(line), m), 0);
	CU_CHECK(m->major == 98 && m->minor == 0, "dev %u:%u", m->major, m->minor);
	CU_CHECK(!strcmp(m->root, "/mnt1"), "root %s", m->root);
	CU_CHECK(!strcmp(m->mount_point, "/mnt/with space"), "mount point %s", m->mount_point);
	CU_CHECK(!strcmp(m->fstype, "ext3") && !strcmp(m->source, "/dev/root"), "%s %s", m->fstype, m->source);
	CU_CHECK(!strcmp(m->super_opts, "rw,errors=continue"), "super options %s", m->super_opts);
	/* a backslash not followed by three octal digits is kept as it is */
	static const char odd[] = "1 2 3:4 / /a\\9b rw - ext4 /dev/x\\\\ rw";
	CU_ASSERT_EQUAL_FATAL(dut_mountinfo_parse_line(odd, LEN(odd), m), 0);
	CU_CHECK(!strcmp(m->mount_point, "/a\\9b") && !strcmp(m->source, "/dev/x\\\\"), "%s %s",
		 m->mount_point, m->source);
}

static void test_parse_line_refuses_what_is_not_mountinfo(void)
{
	_cleanup_free_ struct dut_mount *m = new_mount();
	static const char *const bad[] = {
		"1 2 3:4 / /x rw",                         /* no " - " */
		"1 2 x:4 / /x rw - ext4 /dev/a rw",        /* device number */
		"1 2 3: / /x rw - ext4 /dev/a rw",
		"1 2 :4 / /x rw - ext4 /dev/a rw",
		"1 2 3:4:5 / /x rw - ext4 /dev/a rw",
		"1 2 3:4 / /x rw - xfs",                   /* no source */
		"22 1 8:1",                                /* short */
		"",
	};
	char *longmp;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CU_CHECK(dut_mountinfo_parse_line(bad[i], strlen(bad[i]), m) == -EINVAL, "\"%s\"", bad[i]);
	/* a field longer than its buffer is an error, not a shortened mount point */
	longmp = malloc(PATH_MAX + 64);
	CU_ASSERT_FATAL(longmp != NULL);
	strcpy(longmp, "1 2 3:4 / /");
	memset(longmp + strlen(longmp), 'a', PATH_MAX);
	strcpy(longmp + strlen("1 2 3:4 / /") + PATH_MAX, " rw - ext4 /dev/a rw");
	CU_CHECK(dut_mountinfo_parse_line(longmp, strlen(longmp), m) == -ENAMETOOLONG, "long mount point");
	free(longmp);
}

/* The write-safety checks' table: first mount of a device number; garbage skipped. */
static const char safety_text[] =
	"22 28 0:21 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw\n"
	"28 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
	"garbage line without fields\n"
	"41 28 7:0 / /mnt/with\\040space rw,relatime shared:20 master:3 - ext4 /dev/loop0 rw\n"
	"42 28 7:16 /sub /srv/bind rw - xfs /dev/loop1 rw,attr2\n"
	"43 28 259:1 / /data rw - btrfs /dev/nvme0n1p1 rw";   /* no newline at the end */

static void test_find_dev(void)
{
	_cleanup_free_ struct dut_mount *m = new_mount();
	static const struct {
		unsigned maj, min;
		int found;
		const char *mnt, *fstype, *source;
	} rows[] = {
		{ 254, 0, 1, "/", "ext4", "/dev/vda" },
		{ 7, 0, 1, "/mnt/with space", "ext4", "/dev/loop0" },
		{ 7, 16, 1, "/srv/bind", "xfs", "/dev/loop1" },
		{ 259, 1, 1, "/data", "btrfs", "/dev/nvme0n1p1" },
		{ 7, 1, 0, NULL, NULL, NULL },
		{ 70, 0, 0, NULL, NULL, NULL },   /* 7:0 must not match 70:0 */
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int f = dut_mountinfo_find_dev(safety_text, LEN(safety_text), rows[i].maj, rows[i].min, m);

		CU_CHECK(f == rows[i].found, "%u:%u: found %d", rows[i].maj, rows[i].min, f);
		if (f == 1 && rows[i].found)
			CU_CHECK(!strcmp(m->mount_point, rows[i].mnt) && !strcmp(m->fstype, rows[i].fstype) &&
				 !strcmp(m->source, rows[i].source), "%u:%u: %s %s %s", rows[i].maj,
				 rows[i].min, m->mount_point, m->fstype, m->source);
	}
	CU_CHECK(dut_mountinfo_find_dev("", 0, 7, 0, m) == 0, "empty table");
	/* the first of two mounts of one device */
	static const char two[] = "1 0 8:1 / /first rw - ext4 /dev/sda1 rw\n2 0 8:1 / /second rw - ext4 /dev/sda1 rw\n";
	CU_CHECK(dut_mountinfo_find_dev(two, LEN(two), 8, 1, m) == 1 && !strcmp(m->mount_point, "/first"),
		 "first of two: %s", m->mount_point);
}

/* The staging code's table: by mount point the mount on top; by source first or last. */
static const char stage_text[] =
	"22 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw,errors=remount-ro\n"
	"41 22 7:0 / /var/tmp/dl/mnt/pg-abc123 rw,relatime shared:30 - ext4 /dev/loop0 rw,data=journal\n"
	"this line is not mountinfo\n"
	"43 22 0:39 / /var/tmp/dl/mnt/wal-x rw,relatime shared:31 - btrfs /dev/loop1 rw,space_cache=v2\n"
	"44 22 0:40 / /mnt/with\\040space rw - tmpfs tmpfs rw\n"
	"45 41 0:41 / /var/tmp/dl/mnt/pg-abc123 rw - tmpfs over rw\n"
	"47 22 7:3 / /mnt/loop1-again rw - ext4 /dev/loop1 rw\n"
	"46 22 7:2 / /mnt/trunc rw - xfs";   /* no source: malformed, skipped */

static void test_find_point_and_source(void)
{
	_cleanup_free_ struct dut_mount *m = new_mount();
	static const struct {
		int by_point, last;
		const char *want;
		int found;
		const char *fstype, *other;     /* other: source (by point) or mount point (by source) */
	} rows[] = {
		{ 1, 1, "/", 1, "ext4", "/dev/nvme0n1p2" },
		/* stacked: the top mount wins */
		{ 1, 1, "/var/tmp/dl/mnt/pg-abc123", 1, "tmpfs", "over" },
		{ 1, 1, "/mnt/with space", 1, "tmpfs", "tmpfs" },
		{ 1, 1, "/mnt/with\\040space", 0, NULL, NULL },
		{ 1, 1, "/mnt/trunc", 0, NULL, NULL },
		{ 1, 1, "/var/tmp/dl/mnt", 0, NULL, NULL },
		/* btrfs: 0:39 in mountinfo, found by its source */
		{ 0, 0, "/dev/loop1", 1, "btrfs", "/var/tmp/dl/mnt/wal-x" },
		{ 0, 1, "/dev/loop1", 1, "ext4", "/mnt/loop1-again" },
		{ 0, 1, "/dev/loop0", 1, "ext4", "/var/tmp/dl/mnt/pg-abc123" },
		{ 0, 1, "/dev/loop2", 0, NULL, NULL },
		{ 0, 1, "/dev/loop", 0, NULL, NULL },   /* no prefix match */
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int r = rows[i].by_point ? dut_mountinfo_find_point(stage_text, LEN(stage_text), rows[i].want, m)
					 : dut_mountinfo_find_source(stage_text, LEN(stage_text), rows[i].want,
								     rows[i].last, m);

		CU_CHECK(r == rows[i].found, "row %zu (%s): returned %d", i, rows[i].want, r);
		if (r == 1 && rows[i].found == 1)
			CU_CHECK(!strcmp(m->fstype, rows[i].fstype) &&
				 !strcmp(rows[i].by_point ? m->source : m->mount_point, rows[i].other),
				 "row %zu (%s): got %s %s %s", i, rows[i].want, m->fstype, m->source, m->mount_point);
	}
	CU_CHECK(dut_mountinfo_find_point("", 0, "/", m) == 0, "empty text");
	/* only len bytes are read: a table cut before its last line does not see it */
	static const char cut[] = "1 0 8:1 / /a rw - ext4 /dev/sda1 rw\n2 0 8:2 / /b rw - ext4 /dev/sda2 rw\n";
	CU_CHECK(dut_mountinfo_find_point(cut, strlen("1 0 8:1 / /a rw - ext4 /dev/sda1 rw\n"), "/b", m) == 0,
		 "past len");
}

/* identify's table: the longest mount point of the device that holds the path. */
static void test_find_covering(void)
{
	_cleanup_free_ struct dut_mount *m = new_mount();
	static const char text[] =
		"22 1 8:2 / / rw,relatime shared:1 - ext4 /dev/sda2 rw\n"
		"30 22 8:17 / /srv/pg rw,noatime shared:5 - xfs /dev/sdb1 rw,attr2\n"
		"31 22 8:17 /data /mnt/bind rw,noatime shared:5 - xfs /dev/sdb1 rw\n"
		"32 22 0:45 / /var/lib/docker rw - btrfs /dev/nvme0n1p3 rw,ssd\n"
		"33 22 8:33 / /mnt/with\\040space rw - ext4 /dev/sdc1 rw\n"
		"34 22 0:26 / /tmp rw shared:7 - tmpfs tmpfs rw\n";
	static const struct {
		unsigned ma, mi;
		const char *path;
		int found;
		const char *mp, *fs, *src;
	} rows[] = {
		{ 8, 2, "/home/u/f", 1, "/", "ext4", "/dev/sda2" },
		{ 8, 17, "/srv/pg/base/1/1259", 1, "/srv/pg", "xfs", "/dev/sdb1" },
		{ 8, 17, "/mnt/bind/x", 1, "/mnt/bind", "xfs", "/dev/sdb1" },
		{ 8, 17, "/srv/pgx/y", 0, NULL, NULL, NULL },  /* prefix, not a path component */
		{ 0, 45, "/var/lib/docker/a", 1, "/var/lib/docker", "btrfs", "/dev/nvme0n1p3" },
		{ 8, 33, "/mnt/with space/f", 1, "/mnt/with space", "ext4", "/dev/sdc1" },
		{ 9, 9, "/x", 0, NULL, NULL, NULL },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int r = dut_mountinfo_find_covering(text, LEN(text), rows[i].ma, rows[i].mi, rows[i].path, m);

		CU_CHECK(r == rows[i].found, "%s: r %d", rows[i].path, r);
		if (r == 1 && rows[i].found == 1)
			CU_CHECK(!strcmp(m->mount_point, rows[i].mp) && !strcmp(m->fstype, rows[i].fs) &&
				 !strcmp(m->source, rows[i].src), "%s: '%s' '%s' '%s'", rows[i].path,
				 m->mount_point, m->fstype, m->source);
	}
}

/* dutfs's table: a blank line, a FUSE mount with an escaped space. */
static void test_next_walks_every_line(void)
{
	_cleanup_free_ struct dut_mount *m = new_mount();
	static const char mi[] =
		"22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
		"\n"
		"40 22 0:35 / /tmp/my\\040mnt rw,nosuid - fuse.dutfs dutfs rw,user_id=0\n"
		"not mountinfo\n"
		"41 22 0:36 / /var/tmp/a rw - tmpfs tmpfs rw\n";
	const char *p = mi, *end = mi + LEN(mi);
	int got[8], n = 0, r;

	while ((r = dut_mountinfo_next(&p, end, m)) != 0 && n < 8)
		got[n++] = r == 1 ? (int)m->minor : r;
	CU_CHECK(n == 4 && got[0] == 1 && got[1] == 35 && got[2] == -EINVAL && got[3] == 36,
		 "%d lines: %d %d %d %d", n, got[0], got[1], got[2], got[3]);
	CU_CHECK(dut_mountinfo_find_point(mi, LEN(mi), "/tmp/my mnt", m) == 1 && m->major == 0 && m->minor == 35 &&
		 !strcmp(m->fstype, "fuse.dutfs"), "the FUSE mount");
}

static void test_has_option(void)
{
#define HAS(s, w) dut_mount_has_option(s, strlen(s), w)
	CU_CHECK(HAS("rw,memory", "memory") == 1, "last");
	CU_CHECK(HAS("memory,rw", "memory") == 1, "first");
	CU_CHECK(HAS("rw,memory_recursiveprot", "memory") == 0, "prefix");
	CU_CHECK(HAS("rw,nomemory", "memory") == 0, "suffix");
	CU_CHECK(HAS("", "memory") == 0, "empty");
	CU_CHECK(HAS(",,", "memory") == 0, "only commas");
	/* only len bytes count */
	CU_CHECK(dut_mount_has_option("rw,memory", 5, "memory") == 0, "cut before the word");
#undef HAS
}

static const struct cu_test tests[] = {
	{ "parse_line_fields_and_escapes", test_parse_line_fields_and_escapes },
	{ "parse_line_refuses_what_is_not_mountinfo", test_parse_line_refuses_what_is_not_mountinfo },
	{ "find_dev", test_find_dev },
	{ "find_point_and_source", test_find_point_and_source },
	{ "find_covering", test_find_covering },
	{ "next_walks_every_line", test_next_walks_every_line },
	{ "has_option", test_has_option },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "mountinfo", .tests = tests };
