/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Block device facts read from the fixture sysfs tree
 * (tests/probe/identify/fixtures/sys, made by fixtures/make-sysfs.sh).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "probe/identify/ident.h"
#include "probe/identify/identify.h"
#include "tests/cu_main.h"

static char root[PATH_MAX];

static int suite_init(void)
{
	snprintf(root, sizeof(root), "%s/tests/probe/identify/fixtures/sys", cu_source_root());
	return 0;
}

struct row {
	const char *name;
	const char *disk;
	bool part;
	unsigned partno;
	uint64_t size_bytes, start_bytes;
	int rot;
	uint32_t lbs, pbs;
	uint64_t opt_io;
	const char *sched, *wc;
	uint64_t discard_max;
	const char *model;
	enum dp_link_kind link;
	double ceiling_mb;          /* MB/s, +-1 */
	const char *desc;           /* substring of the link description */
	bool nvme;
	const char *stack;          /* substring, or NULL = no stack */
};

static const struct row rows[] = {
	{ "nvme0n1", "nvme0n1", false, 0, 1953525168ull * 512, 0, 0, 512, 512, 0, "none",
	  "write back", 2199023255040ull, "Samsung SSD 970 EVO Plus 1TB", DP_LINK_PCIE, 3938.5,
	  "PCIe 3.0 x4", true, NULL },
	{ "nvme0n1p1", "nvme0n1", true, 1, 1953523120ull * 512, 2048 * 512, 0, 512, 512, 0, "none",
	  "write back", 2199023255040ull, "Samsung SSD 970 EVO Plus 1TB", DP_LINK_PCIE, 3938.5,
	  "PCIe 3.0 x4", true, NULL },
	{ "sda", "sda", false, 0, 976773168ull * 512, 0, 0, 512, 512, 0, "mq-deadline", "write back",
	  2147450880, "Samsung SSD 860", DP_LINK_SATA, 600, "SATA 6.0 Gbps", false, NULL },
	{ "sda1", "sda", true, 1, 1048576ull * 512, 2048 * 512, 0, 512, 512, 0, "mq-deadline",
	  "write back", 2147450880, "Samsung SSD 860", DP_LINK_SATA, 600, "SATA 6.0 Gbps", false, NULL },
	{ "sdb", "sdb", false, 0, 7814037168ull * 512, 0, 1, 512, 4096, 0, "bfq", "write back", 0,
	  "WDC WD40EFRX-68N", DP_LINK_SATA, 500,
	  "SATA 6.0 Gbps, limited by the host controller's PCIe 2.0 x1", false, NULL },
	{ "sdc", "sdc", false, 0, 1953525168ull * 512, 0, 0, 512, 512, 33553920, "mq-deadline",
	  "write through", 4294966784ull, "2362", DP_LINK_USB, 1212.1,
	  "USB 3.1 Gen 2 (10 Gbit/s) via ASMedia ASM2362, uas", false, NULL },
	{ "sdc1", "sdc", true, 1, 1953523120ull * 512, 2048 * 512, 0, 512, 512, 33553920,
	  "mq-deadline", "write through", 4294966784ull, "2362", DP_LINK_USB, 1212.1,
	  "via ASMedia ASM2362", false, NULL },
	{ "sdd", "sdd", false, 0, 30031872ull * 512, 0, 1, 512, 512, 0, "mq-deadline",
	  "write through", 0, "Cruzer Blade", DP_LINK_USB, 60,
	  "USB 2.0 high speed (480 Mbit/s) via SanDisk Cruzer Blade (0781:5567), usb-storage",
	  false, NULL },
	{ "loop0", "loop0", false, 0, 2097152ull * 512, 0, 0, 512, 512, 0, "none", "write back", 4096,
	  "", DP_LINK_NONE, 0, "loop device over /var/tmp/x.img: no link", false, NULL },
	{ "loop0p1", "loop0", true, 1, 2095104ull * 512, 2048 * 512, 0, 512, 512, 0, "none",
	  "write back", 4096, "", DP_LINK_NONE, 0, "loop device over /var/tmp/x.img", false, NULL },
	/* device-mapper over sda2: the facts are sda's, the stack says how we got there */
	{ "dm-0", "sda", true, 2, 975722496ull * 512, 1050624ull * 512, 0, 512, 512, 0,
	  "mq-deadline", "write back", 2147450880, "Samsung SSD 860", DP_LINK_SATA, 600,
	  "SATA 6.0 Gbps", false, "dm-0" },
};

static void check_row(const struct row *w, const struct dp_blockdev *bd)
{
	const char *n = w->name;

	CU_CHECK(strcmp(bd->disk, w->disk) == 0, "%s: disk '%s', want '%s'", n, bd->disk, w->disk);
	CU_CHECK(bd->is_partition == w->part && bd->partno == w->partno, "%s: partition %d/%u", n,
		 bd->is_partition, bd->partno);
	CU_CHECK(bd->size_bytes == w->size_bytes, "%s: size %llu", n, (unsigned long long)bd->size_bytes);
	CU_CHECK(bd->part_start_bytes == w->start_bytes, "%s: start %llu", n,
		 (unsigned long long)bd->part_start_bytes);
	CU_CHECK(bd->rotational == w->rot, "%s: rotational %d", n, bd->rotational);
	CU_CHECK(bd->logical_block_bytes == w->lbs && bd->physical_block_bytes == w->pbs,
		 "%s: blocks %u/%u", n, bd->logical_block_bytes, bd->physical_block_bytes);
	CU_CHECK(bd->optimal_io_bytes == w->opt_io, "%s: optimal io %llu", n,
		 (unsigned long long)bd->optimal_io_bytes);
	CU_CHECK(strcmp(bd->scheduler, w->sched) == 0, "%s: scheduler '%s'", n, bd->scheduler);
	CU_CHECK(strcmp(bd->write_cache, w->wc) == 0, "%s: write cache '%s'", n, bd->write_cache);
	CU_CHECK(bd->discard_max_bytes == w->discard_max, "%s: discard %llu", n,
		 (unsigned long long)bd->discard_max_bytes);
	CU_CHECK(bd->atomic_write_unit_max_bytes == (strcmp(w->disk, "nvme0n1") == 0 ? 4096u : 0u),
		 "%s: atomic write unit %llu", n, (unsigned long long)bd->atomic_write_unit_max_bytes);
	CU_CHECK(strcmp(bd->model, w->model) == 0, "%s: model '%s'", n, bd->model);
	CU_CHECK(bd->link.kind == w->link, "%s: link kind %d, want %d", n, bd->link.kind, w->link);
	CU_CHECK(fabs(bd->link.ceiling_bytes_per_s / 1e6 - w->ceiling_mb) < 1.0, "%s: ceiling %.1f MB/s, want %.1f",
		 n, bd->link.ceiling_bytes_per_s / 1e6, w->ceiling_mb);
	CU_CHECK(strstr(bd->link.desc, w->desc) != NULL, "%s: desc '%s' lacks '%s'", n, bd->link.desc,
		 w->desc);
	CU_CHECK(bd->is_nvme == w->nvme, "%s: nvme %d", n, bd->is_nvme);
	if (w->stack)
		CU_CHECK(strstr(bd->stack, w->stack) != NULL, "%s: stack '%s'", n, bd->stack);
	else
		CU_CHECK(bd->stack[0] == '\0', "%s: unexpected stack '%s'", n, bd->stack);
}

static void test_blockdev_by_name(void)
{
	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		struct dp_blockdev bd;
		int r = dp_sysfs_blockdev_by_name(root, rows[i].name, &bd);

		CU_CHECK(r == 0, "%s: r = %d", rows[i].name, r);
		if (r == 0)
			check_row(&rows[i], &bd);
	}
}

static void test_blockdev_by_devnum(void)
{
	static const struct { unsigned ma, mi; const char *name, *disk; } dn[] = {
		{ 259, 0, "nvme0n1", "nvme0n1" }, { 259, 1, "nvme0n1p1", "nvme0n1" },
		{ 8, 1, "sda1", "sda" }, { 8, 33, "sdc1", "sdc" }, { 7, 0, "loop0", "loop0" },
		{ 259, 5, "loop0p1", "loop0" },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(dn); i++) {
		struct dp_blockdev bd;
		int r = dp_sysfs_blockdev_by_devnum(root, dn[i].ma, dn[i].mi, &bd);

		CU_CHECK(r == 0 && strcmp(bd.name, dn[i].name) == 0 && strcmp(bd.disk, dn[i].disk) == 0 &&
			 bd.major == dn[i].ma && bd.minor == dn[i].mi,
			 "%u:%u: r %d name '%s' disk '%s'", dn[i].ma, dn[i].mi, r, r ? "" : bd.name,
			 r ? "" : bd.disk);
	}
	struct dp_blockdev bd;
	CU_CHECK(dp_sysfs_blockdev_by_devnum(root, 8, 99, &bd) == -ENODEV, "8:99 does not exist");
	CU_CHECK(dp_sysfs_blockdev_by_name(root, "sdz", &bd) == -ENODEV, "sdz does not exist");
	CU_CHECK(dp_sysfs_blockdev_by_name(root, "../sda", &bd) == -EINVAL, "names have no slash");
}

static void test_nvme_details(void)
{
	struct dp_blockdev bd;

	CU_ASSERT_FATAL(dp_sysfs_blockdev_by_name(root, "nvme0n1p1", &bd) == 0);
	CU_CHECK(strcmp(bd.nvme_ctrl, "nvme0") == 0, "controller '%s'", bd.nvme_ctrl);
	CU_CHECK(strcmp(bd.serial, "S4EWNX0R123456A") == 0, "serial '%s'", bd.serial);
	CU_CHECK(strcmp(bd.firmware, "2B2QEXM7") == 0, "firmware '%s'", bd.firmware);
	CU_CHECK(bd.disk_major == 259 && bd.disk_minor == 0, "disk devnum %u:%u", bd.disk_major,
		 bd.disk_minor);
	CU_CHECK(bd.link.pcie.present && strcmp(bd.link.pcie.addr, "0000:3d:00.0") == 0 &&
		 bd.link.pcie.cur_width == 4 && bd.link.pcie.cur_gts == 8.0,
		 "the endpoint's link, not the root port's: %s x%u %.1f", bd.link.pcie.addr,
		 bd.link.pcie.cur_width, bd.link.pcie.cur_gts);
	CU_CHECK(strstr(bd.link.basis, "128b/130b") != NULL, "basis '%s'", bd.link.basis);
}

static void test_usb_details(void)
{
	struct dp_blockdev bd;

	CU_ASSERT_FATAL(dp_sysfs_blockdev_by_name(root, "sdc1", &bd) == 0);
	const struct dp_usb_link *u = &bd.link.usb;
	CU_CHECK(u->vid == 0x174c && u->pid == 0x2362, "bridge %04x:%04x (not the root hub)", u->vid,
		 u->pid);
	CU_CHECK(strcmp(u->dev, "2-1") == 0 && u->speed_mbps == 10000 && u->lanes == 1,
		 "dev %s speed %u lanes %u", u->dev, u->speed_mbps, u->lanes);
	CU_CHECK(strcmp(u->driver, "uas") == 0, "driver '%s'", u->driver);
	CU_CHECK(u->model && strcmp(u->model->chip, "ASMedia ASM2362") == 0 &&
		 strcmp(u->model->inner, "NVMe") == 0, "bridge model");
	CU_CHECK(strcmp(bd.vendor, "ASMT") == 0, "INQUIRY vendor is the bridge's: '%s'", bd.vendor);
	CU_CHECK(!bd.link.pcie.present, "the xHCI here has no PCIe link attributes");

	CU_ASSERT_FATAL(dp_sysfs_blockdev_by_name(root, "sdd", &bd) == 0);
	CU_CHECK(bd.link.usb.model == NULL && strcmp(bd.link.usb.driver, "usb-storage") == 0,
		 "unknown bridge on usb-storage: driver '%s'", bd.link.usb.driver);
}

static void test_loop_details(void)
{
	struct dp_blockdev bd;

	CU_ASSERT_FATAL(dp_sysfs_blockdev_by_name(root, "loop0p1", &bd) == 0);
	CU_CHECK(bd.is_loop && strcmp(bd.loop_backing, "/var/tmp/x.img") == 0 && bd.loop_dio == 0,
		 "loop: %d '%s' dio %d", bd.is_loop, bd.loop_backing, bd.loop_dio);
	CU_CHECK(strcmp(bd.disk_syspath, "/devices/virtual/block/loop0") == 0, "syspath '%s'",
		 bd.disk_syspath);
}

static void test_sata_details(void)
{
	struct dp_blockdev bd;

	CU_ASSERT_FATAL(dp_sysfs_blockdev_by_name(root, "sda", &bd) == 0);
	CU_CHECK(strcmp(bd.link.sata.name, "link3") == 0 && bd.link.sata.gbps == 6.0,
		 "link '%s' %.1f", bd.link.sata.name, bd.link.sata.gbps);
	CU_CHECK(strcmp(bd.vendor, "ATA") == 0 && strcmp(bd.firmware, "4B6Q") == 0,
		 "vendor '%s' rev '%s'", bd.vendor, bd.firmware);
	CU_CHECK(!bd.link.upstream_limits, "onboard AHCI does not limit");

	/* sata_spd found only under /sys/class/ata_link; PCIe 2.0 x1 is the ceiling */
	CU_ASSERT_FATAL(dp_sysfs_blockdev_by_name(root, "sdb", &bd) == 0);
	CU_CHECK(strcmp(bd.link.sata.name, "link5") == 0 && bd.link.sata.gbps == 6.0,
		 "class fallback: '%s' %.1f", bd.link.sata.name, bd.link.sata.gbps);
	CU_CHECK(bd.link.upstream_limits && strcmp(bd.link.pcie.addr, "0000:02:00.0") == 0,
		 "upstream %d at %s", bd.link.upstream_limits, bd.link.pcie.addr);
	CU_CHECK(strstr(bd.link.basis, "500 MB/s") != NULL, "basis '%s'", bd.link.basis);
}

static void test_sysfs_root_from_environment(void)
{
	const char *old = getenv("DUTPROBE_SYSFS_ROOT");
	_cleanup_free_ char *saved = old ? strdup(old) : NULL;

	unsetenv("DUTPROBE_SYSFS_ROOT");
	CU_CHECK(strcmp(dp_sysfs_root(), "/sys") == 0, "default /sys, got %s", dp_sysfs_root());
	setenv("DUTPROBE_SYSFS_ROOT", root, 1);
	CU_CHECK(strcmp(dp_sysfs_root(), root) == 0, "env root, got %s", dp_sysfs_root());
	setenv("DUTPROBE_SYSFS_ROOT", "", 1);
	CU_CHECK(strcmp(dp_sysfs_root(), "/sys") == 0, "empty = default");
	if (saved)
		setenv("DUTPROBE_SYSFS_ROOT", saved, 1);
	else
		unsetenv("DUTPROBE_SYSFS_ROOT");
}

static void test_link_ceiling_errors(void)
{
	double bps = 123;
	char desc[256];
	int r = dutprobe_link_ceiling("/nonexistent/dutprobe-target", &bps, desc, sizeof(desc));

	CU_CHECK(r == -ENOENT && bps == 123 && strstr(desc, "/nonexistent/dutprobe-target"),
		 "missing path: r %d desc '%s'", r, desc);
	r = dutprobe_link_ceiling("/dev/null", &bps, desc, sizeof(desc));
	CU_CHECK(r == -ENOTBLK && strstr(desc, "character device"), "char device: r %d '%s'", r, desc);
}

static const struct cu_test tests[] = {
	{ "blockdev_by_name", test_blockdev_by_name },
	{ "blockdev_by_devnum", test_blockdev_by_devnum },
	{ "nvme_details", test_nvme_details },
	{ "usb_details", test_usb_details },
	{ "loop_details", test_loop_details },
	{ "sata_details", test_sata_details },
	{ "sysfs_root_from_environment", test_sysfs_root_from_environment },
	{ "link_ceiling_errors", test_link_ceiling_errors },
	{ NULL, NULL },
};
const struct cu_suite cu_suite = { .name = "identify_sysfs", .init = suite_init, .tests = tests };
