/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Step kind slc: dutprobe slc, write until the write cache is exhausted. */
#include "tools/run/steps/steps_priv.h"

static const struct dut_param_spec slc_params[] = {
	{ .key = "span", .kind = DUT_P_SIZE, .flag = "--span", .min = MiB, .max = PiB,
	  .help = "how much to write (default: all of the file or device)" },
	{ .key = "bs", .kind = DUT_P_SIZE, .flag = "--bs", .def = "1M", .min = 4 * KiB, .max = 64 * MiB,
	  .help = "write size" },
	{ .key = "qd", .kind = DUT_P_UINT, .flag = "--qd", .def = "8", .min = 1, .max = 1024,
	  .help = "queue depth" },
	{ .key = "window", .kind = DUT_P_SIZE, .flag = "--window", .def = "64M", .min = MiB, .max = 64 * GiB,
	  .help = "one throughput sample per this many bytes written" },
	{ .key = "idle", .kind = DUT_P_DURATION, .flag = "--idle", .min = 1, .max = 86400,
	  .help = "then wait idle and write again: how much cache came back" },
	{ .key = "no-trim", .kind = DUT_P_BOOL, .flag = "--no-trim", .def = "no",
	  .help = "do not discard the span first" },
	PROBE_FILE_PARAMS,
};

static uint64_t slc_estimate(const struct dut_step *s, uint64_t target_bytes, uint64_t db_bytes)
{
	uint64_t once = step_secs((double)step_probe_bytes(s, target_bytes) / EXP_PROBE_WRITE_BPS);

	return step_pset(s, "idle") ? 2 * once + step_pu(s, "idle") : once;
}

const struct dut_step_type dut_step_kind_slc = {
	.name = "slc", .tool = "dutprobe", .command = "slc", .probe = true, STEP_PARAMS(slc_params),
	.summary = "write until the write cache is exhausted: the knee",
	.estimate_ns = slc_estimate, .space_bytes = step_probe_space, .argv = step_build_probe,
};
