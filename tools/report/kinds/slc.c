/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The report of step kind slc (dutprobe slc documents): the knee, its charts and findings. */
#include "tools/report/chart_priv.h"
#include "tools/report/findings_priv.h"
#include "tools/report/report_answer_rows.h"
#include "tools/report/report_run_steps.h"
#include "tools/report/rundir_kinds.h"

static void slc_answer(struct rdoc *d, const struct rundir_model *m, const char *st)
{
	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct rundir_config *c = &m->configs[i];

		answer_slc_rows(d, c, st, "write", "write cache (MiB written before the fall)");
		answer_slc_rows(d, c, st, "write_after_idle", "write cache after the idle wait (MiB written before the fall)");
	}
}

const struct rundir_kind_ops rundir_kind_slc = {
	.kind = DOC_PROBE_SLC, .step_kind = "slc", .label = "dutprobe slc",
	.doc_tool = "dutprobe", .doc_key = "test", .doc_value = "slc",
	.table = report_slc_table, .config_charts = chart_slc, .findings = findings_slc, .answer = slc_answer,
};
