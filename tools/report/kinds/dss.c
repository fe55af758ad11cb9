/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The report of step kind dss (pgload dss documents): phases, m-time, query charts, plan findings. */
#include <string.h>

#include <json-c/json.h>

#include "tools/report/chart_priv.h"
#include "tools/report/findings_priv.h"
#include "tools/report/report_answer_dss.h"
#include "tools/report/report_answer_rows.h"
#include "tools/report/report_run_reads.h"
#include "tools/report/report_run_steps.h"
#include "tools/report/rundir_kinds.h"

/* pgload dss documents: config.scale_factor. */
static bool dss_doc(const struct dut_result *r)
{
	json_object *v;

	return json_object_object_get_ex(dut_result_json(r), "config", &v) &&
	       json_object_object_get_ex(v, "scale_factor", NULL);
}

static void dss_table(struct rdoc *d, const struct rundir_model *m, const char *step)
{
	report_phase_table(d, m, step);
	report_dss_mtime(d, m, step);
	report_reads_table(d, m, step, true);
}

static void dss_answer(struct rdoc *d, const struct rundir_model *m, const char *st)
{
	struct cmp *cmp = answer_dss_cmp(m, st);

	for (size_t i = 0; cmp && i < m->nconfigs; i++) {
		const struct rundir_config *c = &m->configs[i];

		for (size_t k = 0; k < cmp->ninputs; k++)
			if (strcmp(cmp->inputs[k].source, c->name) == 0 && cmp->sum[k].m_defined) {
				struct cmp_stat mt = { .n = 1, .median = cmp->sum[k].m_time_s,
						       .min = cmp->sum[k].m_time_s, .max = cmp->sum[k].m_time_s };
				struct cmp_stat bt = { .n = 1, .median = cmp->sum[0].m_time_s };

				answer_row(d, c->name, st, "m-time, queries plan-stable in every configuration (s)", &mt,
					   1, 3, cmp->sum[0].m_defined ? &bt : NULL);
				break;
			}
	}
	cmp_free(cmp);
}

static size_t dss_why(struct rdoc *d, const struct rundir_model *m, const char *step)
{
	struct cmp *cmp = answer_dss_cmp(m, step);
	size_t n = answer_why_dss(d, m, step, cmp);

	cmp_free(cmp);
	return n;
}

const struct rundir_kind_ops rundir_kind_dss = {
	.kind = DOC_dss, .step_kind = "dss", .label = "pgload dss",
	.doc_tool = "pgload", .recognise = dss_doc,
	.table = dss_table, .step_charts = chart_dss, .findings = findings_dss, .answer = dss_answer,
	.why_step = dss_why,
	.traps = findings_traps_dss,
};
