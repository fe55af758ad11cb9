/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Signature detection on crafted buffers and the target checks (lib/dev_safety.c); mountinfo: tests/lib/test_mountinfo.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "lib/cleanup.h"
#include "lib/dev_safety.h"
#include "tests/cu_main.h"

static uint8_t buf[SIG_SCAN_BYTES];

static void put(uint64_t off, const char *bytes, size_t len)
{
	memcpy(buf + off, bytes, len);
}

#define PUT(off, str) put(off, str, sizeof(str) - 1)

static void mbr_entry(int i, uint8_t type, uint32_t nsect)
{
	uint8_t *e = buf + 446 + 16 * i;

	e[0] = 0;
	e[4] = type;
	e[12] = (uint8_t)nsect;
	e[13] = (uint8_t)(nsect >> 8);
	e[14] = (uint8_t)(nsect >> 16);
	e[15] = (uint8_t)(nsect >> 24);
	buf[510] = 0x55;
	buf[511] = 0xaa;
}

static void test_signatures_found_at_their_offsets(void)
{
	static const struct {
		const char *what;
		uint64_t off;
		const char *magic;
		size_t len;
		const char *name;
	} rows[] = {
		{ "ext4", 1080, "\x53\xef", 2, "ext2/3/4 filesystem" },
		{ "xfs", 0, "XFSB", 4, "XFS filesystem" },
		{ "btrfs", 65600, "_BHRfS_M", 8, "btrfs filesystem" },
		{ "swap", 4086, "SWAPSPACE2", 10, "swap space" },
		{ "gpt", 512, "EFI PART", 8, "GPT partition table" },
		{ "gpt 4k", 4096, "EFI PART", 8, "GPT partition table (4 KiB sectors)" },
		{ "luks", 0, "LUKS\xba\xbe", 6, "LUKS encrypted volume" },
		{ "md 1.2", 4096, "\xfc\x4e\x2b\xa9", 4, "Linux RAID (md 1.2) member" },
		{ "iso", 32769, "CD001", 5, "ISO 9660 filesystem" },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		struct sig_hit hits[SIG_MAX_HITS];
		size_t n;

		memset(buf, 0, sizeof(buf));
		put(rows[i].off, rows[i].magic, rows[i].len);
		n = sig_detect(buf, sizeof(buf), hits, SIG_MAX_HITS);
		CU_CHECK(n == 1, "%s: %zu hits", rows[i].what, n);
		if (n >= 1)
			CU_CHECK(!strcmp(hits[0].name, rows[i].name) && hits[0].offset == rows[i].off,
				 "%s: found %s at %llu", rows[i].what, hits[0].name, (unsigned long long)hits[0].offset);
		/* One byte off (earlier, or later for magics at offset 0) is not the magic. */
		memset(buf, 0, sizeof(buf));
		put(rows[i].off ? rows[i].off - 1 : 1, rows[i].magic, rows[i].len);
		CU_CHECK(sig_detect(buf, sizeof(buf), hits, SIG_MAX_HITS) == 0,
			 "%s: found when shifted by one byte", rows[i].what);
	}
}

static void test_lvm_label_in_second_sector(void)
{
	struct sig_hit hits[SIG_MAX_HITS];

	memset(buf, 0, sizeof(buf));
	PUT(512, "LABELONE");
	PUT(512 + 24, "LVM2 001");
	CU_ASSERT_EQUAL_FATAL(sig_detect(buf, sizeof(buf), hits, SIG_MAX_HITS), 1);
	CU_ASSERT_STRING_EQUAL(hits[0].name, "LVM2 physical volume");
	CU_ASSERT_EQUAL(hits[0].offset, 512);
	/* LABELONE without the LVM2 type is someone else's label: not claimed. */
	memset(buf + 536, 0, 8);
	CU_ASSERT_EQUAL(sig_detect(buf, sizeof(buf), hits, SIG_MAX_HITS), 0);
}

static void test_mbr_needs_a_partition_entry(void)
{
	struct sig_hit hits[SIG_MAX_HITS];

	memset(buf, 0, sizeof(buf));
	buf[510] = 0x55;
	buf[511] = 0xaa;
	CU_ASSERT_EQUAL(sig_detect(buf, sizeof(buf), hits, SIG_MAX_HITS), 0);
	mbr_entry(1, 0x83, 2048);
	CU_ASSERT_EQUAL_FATAL(sig_detect(buf, sizeof(buf), hits, SIG_MAX_HITS), 1);
	CU_ASSERT_STRING_EQUAL(hits[0].name, "MBR partition table");
	/* A GPT disk's protective MBR is reported as GPT only. */
	memset(buf, 0, sizeof(buf));
	mbr_entry(0, 0xee, 0xffffffff);
	PUT(512, "EFI PART");
	CU_ASSERT_EQUAL_FATAL(sig_detect(buf, sizeof(buf), hits, SIG_MAX_HITS), 1);
	CU_ASSERT_STRING_EQUAL(hits[0].name, "GPT partition table");
}

static void test_blank_and_short_buffers(void)
{
	struct sig_hit hits[SIG_MAX_HITS];

	memset(buf, 0, sizeof(buf));
	CU_ASSERT_EQUAL(sig_detect(buf, sizeof(buf), hits, SIG_MAX_HITS), 0);
	memset(buf, 0xff, sizeof(buf));
	CU_ASSERT_EQUAL(sig_detect(buf, sizeof(buf), hits, SIG_MAX_HITS), 0);
	/* A magic past the end of a short read is not looked at. */
	memset(buf, 0, sizeof(buf));
	PUT(65600, "_BHRfS_M");
	CU_ASSERT_EQUAL(sig_detect(buf, 65536, hits, SIG_MAX_HITS), 0);
	CU_ASSERT_EQUAL(sig_detect(buf, 0, hits, SIG_MAX_HITS), 0);
	/* Several at once: ext4 and a stale btrfs superblock, both reported in order. */
	PUT(1080, "\x53\xef");
	CU_ASSERT_EQUAL_FATAL(sig_detect(buf, sizeof(buf), hits, SIG_MAX_HITS), 2);
	CU_ASSERT_EQUAL(hits[0].offset, 1080);
	CU_ASSERT_EQUAL(hits[1].offset, 65600);
}

/* What was opened must be what the checks examined (issue #27, finding 3). */
static void test_opened_target_must_be_the_checked_one(void)
{
	const struct {
		const char *name;
		struct safety_seen seen;
		mode_t mode;
		dev_t rdev;
		bool want;
	} rows[] = {
		{ "same device", { true, makedev(7, 0) }, S_IFBLK | 0660, makedev(7, 0), true },
		{ "another device", { true, makedev(7, 0) }, S_IFBLK | 0660, makedev(8, 0), false },
		{ "another minor", { true, makedev(259, 1) }, S_IFBLK | 0660, makedev(259, 2), false },
		{ "device became a file", { true, makedev(7, 0) }, S_IFREG | 0600, 0, false },
		{ "file stayed a file", { false, 0 }, S_IFREG | 0600, 0, true },
		{ "file became a device", { false, 0 }, S_IFBLK | 0660, makedev(8, 0), false },
		{ "device 0:0 is no wildcard", { true, makedev(7, 0) }, S_IFBLK | 0660, makedev(0, 0), false },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		CU_CHECK(safety_same_target(&rows[i].seen, rows[i].mode, rows[i].rdev) == rows[i].want, "%s",
			 rows[i].name);
}

static const struct cu_test tests[] = {
	{ "opened_target_must_be_the_checked_one", test_opened_target_must_be_the_checked_one },
	{ "signatures_found_at_their_offsets", test_signatures_found_at_their_offsets },
	{ "lvm_label_in_second_sector", test_lvm_label_in_second_sector },
	{ "mbr_needs_a_partition_entry", test_mbr_needs_a_partition_entry },
	{ "blank_and_short_buffers", test_blank_and_short_buffers },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "probe_safety", .tests = tests };
