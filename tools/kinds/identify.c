/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Step kind identify: dutprobe identify, what the device is.  Reads only.
 *
 * The report of it reads dutprobe identify documents: what the device is. No headline figure.
 *
 * Both halves in one file (tools/kinds/meson.build compiles it twice).
 */
#if defined(DUTLAB_KIND_RUN)
/* ---- the orchestrator's half: struct dut_step_type (tools/run/experiment.h) ---- */
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

#elif defined(DUTLAB_KIND_REPORT)
/* ---- the report's half: struct rundir_kind_ops (tools/report/rundir_kinds.h) ---- */
#include <json-c/json.h>

#include "tools/report/report_answer_head.h"
#include "tools/report/report_run_steps.h"
#include "tools/report/rundir_kinds.h"

/* dutprobe identify documents: target.link is an object. */
static bool identify_doc(const struct dut_result *r)
{
	json_object *t, *v;

	return json_object_object_get_ex(dut_result_json(r), "target", &t) &&
	       json_object_object_get_ex(t, "link", &v) && json_object_is_type(v, json_type_object);
}

const struct rundir_kind_ops rundir_kind_identify = {
	.kind = DOC_identify, .step_kind = "identify", .label = "dutprobe identify",
	.doc_tool = "dutprobe", .recognise = identify_doc,
	.table = report_identify_table, .answer_head = answer_target,
	.target = RUNDIR_TARGET_IDENTIFY, .no_link_check = true,
};

#else
#error "a step kind is built by tools/kinds/meson.build, with DUTLAB_KIND_RUN or DUTLAB_KIND_REPORT"
#endif
