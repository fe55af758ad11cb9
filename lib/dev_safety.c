/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Signature detection (pure); see safety.h.  mountinfo: lib/mountinfo.c. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/dev_safety.h"

struct magic {
	const char *name;
	uint64_t offset;
	const char *bytes;
	size_t len;
};

#define M(name, off, str) { name, off, str, sizeof(str) - 1 }

/* Fixed-offset magics. Offsets are from each format's specification. */
static const struct magic magics[] = {
	M("LUKS encrypted volume", 0, "LUKS\xba\xbe"),
	M("XFS filesystem", 0, "XFSB"),
	M("Linux RAID (md 1.1) member", 0, "\xfc\x4e\x2b\xa9"),
	M("NTFS filesystem", 3, "NTFS    "),
	M("FAT filesystem", 54, "FAT12   "),
	M("FAT filesystem", 54, "FAT16   "),
	M("FAT32 filesystem", 82, "FAT32   "),
	M("GPT partition table", 512, "EFI PART"),
	M("ext2/3/4 filesystem", 1080, "\x53\xef"),
	M("F2FS filesystem", 1024, "\x10\x20\xf5\xf2"),
	M("GPT partition table (4 KiB sectors)", 4096, "EFI PART"),
	M("Linux RAID (md 1.2) member", 4096, "\xfc\x4e\x2b\xa9"),
	M("swap space", 4086, "SWAPSPACE2"),
	M("swap space (old format)", 4086, "SWAP-SPACE"),
	M("swap space (16 KiB pages)", 16374, "SWAPSPACE2"),
	M("swap space (64 KiB pages)", 65526, "SWAPSPACE2"),
	M("ISO 9660 filesystem", 32769, "CD001"),
	M("btrfs filesystem", 65600, "_BHRfS_M"),
};

static int add_hit(struct sig_hit *hits, size_t max, size_t n, const char *name, uint64_t off)
{
	if (n < max) {
		hits[n].name = name;
		hits[n].offset = off;
	}
	return 1;
}

/* An MBR: 0x55AA at 510 and at least one plausible partition entry. */
static bool has_mbr(const uint8_t *buf, size_t len)
{
	if (len < 512 || buf[510] != 0x55 || buf[511] != 0xaa)
		return false;
	for (int i = 0; i < 4; i++) {
		const uint8_t *e = buf + 446 + 16 * i;
		uint32_t nsect = (uint32_t)e[12] | (uint32_t)e[13] << 8 | (uint32_t)e[14] << 16 |
				 (uint32_t)e[15] << 24;

		/* boot flag 0x00/0x80, a type, a length */
		if ((e[0] == 0 || e[0] == 0x80) && e[4] != 0 && nsect != 0)
			return true;
	}
	return false;
}

size_t sig_detect(const uint8_t *buf, size_t len, struct sig_hit *hits, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < sizeof(magics) / sizeof(magics[0]); i++) {
		const struct magic *m = &magics[i];

		if (m->offset + m->len <= len && !memcmp(buf + m->offset, m->bytes, m->len))
			n += add_hit(hits, max, n, m->name, m->offset);
	}
	/* LVM2 physical volume: "LABELONE" in one of the first four sectors, "LVM2 001" at +24. */
	for (uint64_t s = 0; s < 4; s++) {
		uint64_t off = s * 512;

		if (off + 32 <= len && !memcmp(buf + off, "LABELONE", 8) &&
		    !memcmp(buf + off + 24, "LVM2 001", 8)) {
			n += add_hit(hits, max, n, "LVM2 physical volume", off);
			break;
		}
	}
	/* A FAT/NTFS boot sector also ends in 0x55AA: only call it a partition table alone. */
	if (has_mbr(buf, len) && n == 0)
		n += add_hit(hits, max, n, "MBR partition table", 510);
	return n < max ? n : max;
}

bool safety_same_target(const struct safety_seen *seen, mode_t opened_mode, dev_t opened_rdev)
{
	if (seen->is_blk)
		return S_ISBLK(opened_mode) && opened_rdev == seen->rdev;
	return !S_ISBLK(opened_mode);
}
