/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Step kind bench: dutprobe bench, sequential and random read/write rows. */
#include <string.h>

#include "tools/run/steps/steps_priv.h"

static const struct dut_param_spec bench_params[] = {
	{ .key = "rows", .kind = DUT_P_STRING, .flag = "--rows",
	  .help = "comma-separated row specs such as SEQ1M Q8T1 R (default: the six default rows)" },
	{ .key = "time", .kind = DUT_P_DURATION, .flag = "--time", .def = "5s", .min = 0.1, .max = 3600,
	  .help = "measured time per repetition of a row" },
	{ .key = "warmup", .kind = DUT_P_DURATION, .flag = "--warmup", .def = "1s", .min = 0, .max = 600,
	  .help = "warm-up before a row, not counted" },
	{ .key = "reps", .kind = DUT_P_UINT, .flag = "--reps", .def = "3", .min = 1, .max = 100,
	  .help = "repetitions per row, reported as median (min-max)" },
	{ .key = "read-only", .kind = DUT_P_BOOL, .flag = "--read-only", .def = "no",
	  .help = "drop the write rows" },
	{ .key = "span", .kind = DUT_P_SIZE, .flag = "--span", .min = MiB, .max = PiB,
	  .help = "region the offsets cover (default: all of the file or device)" },
	PROBE_FILE_PARAMS,
};

static uint64_t count_items(const char *text, uint64_t if_null)
{
	uint64_t n = 1;

	if (!text || strcmp(text, "default") == 0)
		return if_null;
	for (const char *p = text; *p; p++)
		n += *p == ',';
	return n;
}

static uint64_t bench_estimate(const struct dut_step *s, uint64_t target_bytes, uint64_t db_bytes)
{
	uint64_t rows = count_items(dut_step_param(s, "rows")->text, 6);

	if (step_pu(s, "read-only") && !step_pset(s, "rows"))
		rows = 3;
	return rows * (step_pu(s, "warmup") + step_pu(s, "reps") * step_pu(s, "time"));
}

const struct dut_step_type dut_step_kind_bench = {
	.name = "bench", .tool = "dutprobe", .command = "bench", .probe = true, STEP_PARAMS(bench_params),
	.summary = "sequential and random read/write rows (CrystalDiskMark-like)",
	.estimate_ns = bench_estimate, .space_bytes = step_probe_space, .argv = step_build_probe,
};
