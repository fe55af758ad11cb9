/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pure parts of identify: sysfs value parsers, the link
 * rate table and the USB bridge explanation.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/cleanup.h"
#include "probe/identify/ident.h"
#include "tests/cu_main.h"

static void test_scheduler(void)
{
	static const struct { const char *in; int r; const char *want; } rows[] = {
		{ "[mq-deadline] kyber bfq none\n", 0, "mq-deadline" },
		{ "mq-deadline kyber [bfq] none", 0, "bfq" },
		{ "[none] mq-deadline", 0, "none" },
		{ "none\n", 0, "none" },
		{ "[broken", -EINVAL, NULL },
		{ "", -EINVAL, NULL },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		char buf[32] = "";
		int r = dp_parse_scheduler(rows[i].in, buf, sizeof(buf));
		CU_CHECK(r == rows[i].r && (r || strcmp(buf, rows[i].want) == 0), "'%s': r %d '%s'",
			 rows[i].in, r, buf);
	}
}

static void test_speeds(void)
{
	static const struct { const char *in; int r; double want; } pcie[] = {
		{ "8.0 GT/s PCIe", 0, 8.0 }, { "8 GT/s", 0, 8.0 }, { "2.5 GT/s PCIe\n", 0, 2.5 },
		{ "16.0 GT/s PCIe", 0, 16.0 }, { "Unknown", -EINVAL, 0 }, { "8.0 Gbps", -EINVAL, 0 },
	}, sata[] = {
		{ "6.0 Gbps", 0, 6.0 }, { "1.5 Gbps\n", 0, 1.5 }, { "<unknown>", -EINVAL, 0 },
		{ "3.0 GT/s", -EINVAL, 0 },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(pcie); i++) {
		double v = -1;
		int r = dp_parse_link_speed_gts(pcie[i].in, &v);
		CU_CHECK(r == pcie[i].r && (r || v == pcie[i].want), "pcie '%s': r %d v %.1f", pcie[i].in, r, v);
	}
	for (size_t i = 0; i < DUT_ARRAY_SIZE(sata); i++) {
		double v = -1;
		int r = dp_parse_sata_spd(sata[i].in, &v);
		CU_CHECK(r == sata[i].r && (r || v == sata[i].want), "sata '%s': r %d v %.1f", sata[i].in, r, v);
	}
}

static void test_numbers(void)
{
	unsigned ma = 0, mi = 0;
	uint64_t u = 0;
	uint16_t h = 0;

	CU_CHECK(dp_parse_devnum("259:3\n", &ma, &mi) == 0 && ma == 259 && mi == 3, "devnum");
	CU_CHECK(dp_parse_devnum("259", &ma, &mi) == -EINVAL, "devnum without minor");
	CU_CHECK(dp_parse_devnum("8:1x", &ma, &mi) == -EINVAL, "devnum trailing junk");
	CU_CHECK(dp_parse_u64("2199023255040\n", &u) == 0 && u == 2199023255040ull, "u64");
	CU_CHECK(dp_parse_u64("-1", &u) == -EINVAL, "negative");
	CU_CHECK(dp_parse_u64("99999999999999999999999", &u) == -ERANGE, "overflow");
	CU_CHECK(dp_parse_u64("12 MB", &u) == -EINVAL, "trailing unit");
	CU_CHECK(dp_parse_hex16("174c\n", &h) == 0 && h == 0x174c, "hex");
	CU_CHECK(dp_parse_hex16("12345", &h) == -ERANGE, "hex too big");
}

static void test_rate_table(void)
{
	static const struct { double gts; double mb; const char *gen; } pcie[] = {
		{ 2.5, 250, "1.0" }, { 5.0, 500, "2.0" }, { 8.0, 984.6, "3.0" },
		{ 16.0, 1969.2, "4.0" }, { 32.0, 3938.5, "5.0" }, { 64.0, 7562.5, "6.0" },
		{ 3.0, 0, NULL },
	};
	for (size_t i = 0; i < DUT_ARRAY_SIZE(pcie); i++) {
		double mb = dp_pcie_lane_bytes_per_s(pcie[i].gts) / 1e6;
		const char *g = dp_pcie_gen_name(pcie[i].gts);
		CU_CHECK(fabs(mb - pcie[i].mb) < 0.1 &&
			 ((!g && !pcie[i].gen) || (g && pcie[i].gen && strcmp(g, pcie[i].gen) == 0)),
			 "PCIe %.1f GT/s: %.1f MB/s gen %s", pcie[i].gts, mb, g ? g : "-");
	}

	static const struct { double gbps, mb; } sata[] = { { 1.5, 150 }, { 3.0, 300 }, { 6.0, 600 },
							     { 12.0, 0 } };
	for (size_t i = 0; i < DUT_ARRAY_SIZE(sata); i++)
		CU_CHECK(fabs(dp_sata_bytes_per_s(sata[i].gbps) / 1e6 - sata[i].mb) < 0.01, "SATA %.1f",
			 sata[i].gbps);

	static const struct { unsigned mbps, lanes; double mb; const char *name; } usb[] = {
		{ 12, 0, 1.5, "USB 1.1" }, { 480, 0, 60, "USB 2.0" }, { 5000, 1, 500, "5 Gbit/s" },
		{ 10000, 1, 1212.1, "USB 3.1 Gen 2" }, { 10000, 2, 1000, "Gen 1x2" },
		{ 20000, 2, 2424.2, "Gen 2x2" }, { 7, 0, 0, NULL },
	};
	for (size_t i = 0; i < DUT_ARRAY_SIZE(usb); i++) {
		const char *name = NULL;
		double mb = dp_usb_bytes_per_s(usb[i].mbps, usb[i].lanes, &name, NULL) / 1e6;
		CU_CHECK(fabs(mb - usb[i].mb) < 0.1 &&
			 ((!name && !usb[i].name) || (name && usb[i].name && strstr(name, usb[i].name))),
			 "USB %u x%u: %.1f MB/s '%s'", usb[i].mbps, usb[i].lanes, mb, name ? name : "-");
	}
}

static void test_link_descriptions(void)
{
	struct dp_link l;

	memset(&l, 0, sizeof(l));
	l.kind = DP_LINK_PCIE;
	l.pcie = (struct dp_pcie_link){ true, "0000:01:00.0", 8.0, 16.0, 2, 4 };
	dp_link_finish(&l, NULL);
	CU_CHECK(strcmp(l.desc, "PCIe 3.0 x2 (device capable of PCIe 4.0 x4)") == 0 &&
		 fabs(l.ceiling_bytes_per_s / 1e6 - 1969.2) < 0.1, "degraded link: '%s' %.1f", l.desc,
		 l.ceiling_bytes_per_s / 1e6);

	memset(&l, 0, sizeof(l));
	l.kind = DP_LINK_NONE;
	dp_link_finish(&l, "/var/tmp/x.img");
	CU_CHECK(strcmp(l.desc, "loop device over /var/tmp/x.img: no link") == 0 &&
		 l.ceiling_bytes_per_s == 0, "loop: '%s'", l.desc);

	memset(&l, 0, sizeof(l));
	l.kind = DP_LINK_SATA;
	dp_link_finish(&l, NULL);
	CU_CHECK(strstr(l.desc, "unknown") && l.ceiling_bytes_per_s == 0, "sata down: '%s'", l.desc);

	memset(&l, 0, sizeof(l));
	l.kind = DP_LINK_USB;
	l.usb.vid = 0x152d;
	l.usb.pid = 0x0583;
	l.usb.speed_mbps = 5000;
	l.usb.model = dp_usb_bridge_lookup(0x152d, 0x0583, 0);
	dp_link_finish(&l, NULL);
	CU_CHECK(strcmp(l.desc, "USB 3.0 / 3.2 Gen 1 (5 Gbit/s) via JMicron JMS583") == 0 &&
		 fabs(l.ceiling_bytes_per_s - 500e6) < 1, "usb: '%s'", l.desc);
}

static void test_usb_bridge_note(void)
{
	static const struct {
		uint16_t vid, pid;
		const char *driver;
		const char *want[3];
	} rows[] = {
		{ 0x174c, 0x2362, "uas", { "ASMedia ASM2362", "smartctl -d sntasmedia -a /dev/sdc", "INQUIRY" } },
		{ 0x0bda, 0x9210, "uas", { "Realtek RTL9210", "-d sntrealtek", "NVMe admin commands" } },
		{ 0x174c, 0x55aa, "uas", { "USB-to-SATA", "-d sat", "ATA IDENTIFY" } },
		{ 0x1234, 0x5678, "usb-storage", { "not in dutprobe's table", "sntjmicron", "one command at a time" } },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		struct dp_usb_link u;
		char note[1024];

		memset(&u, 0, sizeof(u));
		u.vid = rows[i].vid;
		u.pid = rows[i].pid;
		dp_strlcpy(u.driver, rows[i].driver, sizeof(u.driver));
		u.model = dp_usb_bridge_lookup(u.vid, u.pid, 0);
		dp_usb_bridge_note(&u, "sdc", NULL, note, sizeof(note));
		for (int k = 0; k < 3; k++)
			CU_CHECK(strstr(note, rows[i].want[k]) != NULL, "%04x:%04x: note lacks '%s':\n%s",
				 rows[i].vid, rows[i].pid, rows[i].want[k], note);
	}
}

static void test_fs_magic(void)
{
	CU_CHECK(strcmp(dp_fs_magic_name(0xEF53), "ext2/3/4") == 0, "ext4");
	CU_CHECK(strcmp(dp_fs_magic_name(0x58465342), "xfs") == 0, "xfs");
	CU_CHECK(dp_fs_magic_name(0x12345678) == NULL, "unknown");
}

static const struct cu_test tests[] = {
	{ "scheduler", test_scheduler },
	{ "speeds", test_speeds },
	{ "numbers", test_numbers },
	{ "rate_table", test_rate_table },
	{ "link_descriptions", test_link_descriptions },
	{ "usb_bridge_note", test_usb_bridge_note },
	{ "fs_magic", test_fs_magic },
	{ NULL, NULL },
};
const struct cu_suite cu_suite = { .name = "identify_parse", .tests = tests };
