/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The report of step kind crash (dutlab crash documents): the campaign's verdicts. */
#include "tools/report/findings_priv.h"
#include "tools/report/report_answer_rows.h"
#include "tools/report/report_run_steps.h"
#include "tools/report/rundir_kinds.h"

/* A damaged state with fsync honoured is the finding; a control that saw
 * nothing means the clean figure proves nothing. */
static void crash_answer(struct rdoc *d, const struct rundir_model *m, const char *st)
{
	static const struct { const char *metric, *what; int dec; } rows[] = {
		{ "regular_damaged", "crash states damaged with fsync honoured", 0 },
		{ "commits_lost", "acknowledged commits lost after crashes", 0 },
		{ "fpw_off_detected", "full_page_writes=off control states that saw damage", 0 },
		{ "fsync_off_detected", "fsync=off control states that saw damage", 0 },
		{ "states_per_minute", "crash states per minute", 1 },
	};

	for (size_t i = 0; i < m->nconfigs; i++)
		for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
			struct cmp_stat v = rundir_metric(&m->configs[i], st, "campaign", rows[k].metric);

			answer_row(d, m->configs[i].name, st, rows[k].what, &v, 1, rows[k].dec, NULL);
		}
}

const struct rundir_kind_ops rundir_kind_crash = {
	.kind = DOC_crash, .step_kind = "crash", .label = "dutlab crash",
	.doc_tool = "dutlab", .doc_key = "workload", .doc_value = "crash",
	.table = report_crash_table, .findings = findings_crash, .answer = crash_answer,
};
