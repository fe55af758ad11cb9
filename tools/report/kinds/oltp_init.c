/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The report of step kind oltp-init (pgload init documents): phase times. */
#include "tools/report/report_answer_rows.h"
#include "tools/report/report_run_steps.h"
#include "tools/report/rundir_kinds.h"

static void init_answer(struct rdoc *d, const struct rundir_model *m, const char *st)
{
	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct rundir_config *c = &m->configs[i], *b = &m->configs[0];
		/* the COPY phase only: the run summary's step time adds the
		 * table creation, VACUUM and index builds */
		struct cmp_stat v = rundir_duration(c, st, "init/load"), base = rundir_duration(b, st, "init/load");

		answer_row(d, c->name, st, "COPY load phase of pgload init (init/load, s)", &v, 1, 2, &base);
		v = answer_all_phases_s(c, st);
		base = answer_all_phases_s(b, st);
		answer_row(d, c->name, st, "pgload init, all phases (s)", &v, 1, 2, &base);
	}
}

const struct rundir_kind_ops rundir_kind_oltp_init = {
	.kind = DOC_oltp_init, .step_kind = "oltp-init", .label = "pgload init",
	.doc_tool = "pgload", .doc_key = "workload", .doc_value = "oltp-init",
	.table = report_phase_table, .answer = init_answer,
};
