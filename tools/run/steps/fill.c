/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Step kind fill: dutprobe fill, random-write IOPS at steady state per fill level. */
#include "tools/run/steps/steps_priv.h"

static const struct dut_param_spec fill_params[] = {
	{ .key = "levels", .kind = DUT_P_LIST, .item_kind = DUT_ITEM_LEVEL, .flag = "--levels",
	  .def = "30%,60%,90%", .help = "fill levels: percentages of the span, or sizes" },
	{ .key = "qd", .kind = DUT_P_LIST, .item_kind = DUT_ITEM_UINT, .flag = "--qd", .def = "1,8,32",
	  .min = 1, .max = 1024, .help = "queue depths of the random writes" },
	{ .key = "bs", .kind = DUT_P_SIZE, .flag = "--bs", .def = "16K", .min = 512, .max = 64 * MiB,
	  .help = "random write size" },
	{ .key = "round-time", .kind = DUT_P_DURATION, .flag = "--round-time", .def = "10s", .min = 0.1,
	  .max = 3600, .help = "length of one round" },
	{ .key = "max-rounds", .kind = DUT_P_UINT, .flag = "--max-rounds", .def = "30", .min = 1, .max = 1000,
	  .help = "give up on steady state after this many rounds" },
	{ .key = "span", .kind = DUT_P_SIZE, .flag = "--span", .min = MiB, .max = PiB,
	  .help = "the part of the target that counts as full (default: all)" },
	PROBE_FILE_PARAMS,
};

static uint64_t fill_estimate(const struct dut_step *s, uint64_t target_bytes, uint64_t db_bytes)
{
	uint64_t levels = step_pu(s, "levels"), qds = step_pu(s, "qd");
	/* filling to the highest level writes the span at most once; the
	 * rounds are bounded by max-rounds per level and queue depth */
	uint64_t write = step_secs((double)step_probe_bytes(s, target_bytes) / EXP_PROBE_WRITE_BPS);

	return write + levels * qds * step_pu(s, "max-rounds") * step_pu(s, "round-time");
}

const struct dut_step_type dut_step_kind_fill = {
	.name = "fill", .tool = "dutprobe", .command = "fill", .probe = true, STEP_PARAMS(fill_params),
	.summary = "random-write IOPS at steady state, per fill level",
	.estimate_ns = fill_estimate, .space_bytes = step_probe_space, .argv = step_build_probe,
};
