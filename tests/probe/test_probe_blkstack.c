/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The pure parts of the block-device stack walk (lib/blkstack.h): decoding
 * LOOP_GET_STATUS64's lo_rdevice and the stack named in messages.  The walk
 * itself runs on real loop devices in test-probe-stack.sh. */
#include <string.h>
#include <sys/sysmacros.h>

#include "lib/blkstack.h"
#include "tests/cu_main.h"

/* The kernel's new_encode_dev(), written out independently for the rows. */
static uint64_t encode(unsigned maj, unsigned min)
{
	return (min & 0xff) | ((uint64_t)maj << 8) | ((uint64_t)(min & ~0xffu) << 12);
}

static void test_lo_rdevice_decodes_to_the_device(void)
{
	const struct { unsigned maj, min; } rows[] = {
		{ 7, 0 }, { 7, 1 }, { 8, 17 }, { 259, 3 }, { 7, 300 }, { 259, 70000 }, { 4095, 1048575 },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		dev_t d = dut_blkstack_decode_dev(encode(rows[i].maj, rows[i].min));

		CU_CHECK(major(d) == rows[i].maj && minor(d) == rows[i].min, "%u:%u decoded as %u:%u", rows[i].maj,
			 rows[i].min, major(d), minor(d));
	}
	CU_CHECK(dut_blkstack_decode_dev(0) == makedev(0, 0), "0 is no device (a regular backing file)");
}

static void test_label_names_the_stack(void)
{
	struct dut_blkstack s = { .n = 4 };
	char buf[256];

	s.nodes[0] = (struct dut_blk_node){ .name = "loop0", .parent = -1, .rel = DUT_BLK_SELF };
	s.nodes[1] = (struct dut_blk_node){ .name = "loop1", .parent = 0, .rel = DUT_BLK_LOOP_OVER };
	s.nodes[2] = (struct dut_blk_node){ .name = "loop1p1", .parent = 1, .rel = DUT_BLK_PARTITION };
	s.nodes[3] = (struct dut_blk_node){ .name = "dm-0", .parent = 2, .rel = DUT_BLK_HOLDER };
	CU_CHECK(!strcmp(dut_blkstack_label(&s, 0, buf, sizeof(buf)), "/dev/loop0"), "%s", buf);
	CU_CHECK(!strcmp(dut_blkstack_label(&s, 1, buf, sizeof(buf)), "/dev/loop1 (a loop device over /dev/loop0)"),
		 "%s", buf);
	CU_CHECK(!strcmp(dut_blkstack_label(&s, 3, buf, sizeof(buf)),
			 "/dev/dm-0 (holding /dev/loop1p1, a partition of /dev/loop1, a loop device over /dev/loop0)"),
		 "%s", buf);
	dut_blkstack_label(&s, 3, buf, 24);     /* truncated, still terminated */
	CU_CHECK(strlen(buf) == 23, "%s", buf);
	CU_CHECK(!strcmp(dut_blkstack_label(&s, 9, buf, sizeof(buf)), "?"), "out of range");
}

static const struct cu_test tests[] = {
	{ "lo_rdevice_decodes_to_the_device", test_lo_rdevice_decodes_to_the_device },
	{ "label_names_the_stack", test_label_names_the_stack },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "blkstack", .tests = tests };
