/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The report of step kind restore (pgload restore documents): restore time and verdicts. */
#include "tools/report/report_answer_rows.h"
#include "tools/report/report_answer_why.h"
#include "tools/report/report_run_steps.h"
#include "tools/report/rundir_kinds.h"

static void restore_answer(struct rdoc *d, const struct rundir_model *m, const char *st)
{
	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct rundir_config *c = &m->configs[i], *b = &m->configs[0];
		struct cmp_stat v = rundir_duration(c, st, "total"), base = rundir_duration(b, st, "total");

		answer_row(d, c->name, st, "restore time (s)", &v, 1, 2, &base);
	}
}

const struct rundir_kind_ops rundir_kind_restore = {
	.kind = DOC_restore, .step_kind = "restore", .label = "pgload restore",
	.doc_tool = "pgload", .doc_key = "workload", .doc_value = "restore",
	.table = report_restore_table, .answer = restore_answer,
	.why_config = answer_why_restore,
};
