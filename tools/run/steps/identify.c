/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Step kind identify: dutprobe identify, what the device is.  Reads only. */
#include "tools/run/steps/steps_priv.h"

static uint64_t identify_estimate(const struct dut_step *s, uint64_t target_bytes, uint64_t db_bytes)
{
	return 2 * NS_PER_S;
}

const struct dut_step_type dut_step_kind_identify = {
	.name = "identify", .tool = "dutprobe", .command = "identify", .probe = true,
	.summary = "what the device is (model, firmware, interface, behind which bridge)",
	.params = NULL, .nparams = 0,
	/* a filesystem's directory names its filesystem and device; without one, the device */
	.reads_only = true, .identify = true,
	.estimate_ns = identify_estimate, .space_bytes = step_no_space, .argv = step_build_probe,
};
