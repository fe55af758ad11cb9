/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The report of step kind identify (dutprobe identify documents): what the device is.  No headline figure. */
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
