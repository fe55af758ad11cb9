/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The report of step kind fill (dutprobe fill documents): IOPS per fill level and queue depth. */
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "tools/report/chart_priv.h"
#include "tools/report/findings_priv.h"
#include "tools/report/report_answer_rows.h"
#include "tools/report/report_answer_fill.h"
#include "tools/report/report_run_steps.h"
#include "tools/report/rundir_kinds.h"

/* Every fill level at every queue depth: the fall with fill is the answer. */
static void fill_answer(struct rdoc *d, const struct rundir_model *m, const char *st)
{
	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct rundir_config *c = &m->configs[i], *b = &m->configs[0];
		const struct dut_result *docs[1];

		if (!rundir_config_docs(c, st, docs, 1))
			continue;
		for (int q = 1; q <= 1024; q *= 2) {
			char name[32], what[96];

			snprintf(name, sizeof(name), "iops_qd%d", q);
			for (size_t p = 0; p < dut_result_phase_count(docs[0]); p++) {
				const char *pn = dut_phase_name(dut_result_phase_at(docs[0], p));
				struct cmp_stat v, base;

				if (strncmp(pn, "level_", 6) != 0)
					continue;
				v = rundir_metric(c, st, pn, name);
				base = rundir_metric(b, st, pn, name);
				snprintf(what, sizeof(what), "random-write IOPS at QD %d, fill %s", q, pn + 6);
				answer_row(d, c->name, st, what, &v, 1, 0, &base);
			}
		}
	}
}

/* A fill writes the device at every level. */
static bool fill_writes(const struct dut_result *d)
{
	(void)d;
	return true;
}

static const char *fill_unprepared(const struct dut_result *d, bool written, bool fresh, bool loop)
{
	json_object *pre = rundir_jget(findings_doc_member(d, "config"), "preconditioned");

	(void)written, (void)fresh, (void)loop;
	return pre && !json_object_get_boolean(pre) ? "dutprobe fill says the target was not preconditioned"
						    : NULL;
}

/* The link check: random-write IOPS times the block size, at every level and queue depth. */
static double fill_peak(const struct rundir_config *c, const char *step, char *what, size_t n)
{
	const struct dut_result *docs[RUNDIR_MAX_DOCS];
	size_t nd = rundir_config_docs(c, step, docs, RUNDIR_MAX_DOCS);
	double best = 0;

	for (size_t d = 0; d < nd; d++) {
		double bs = json_object_get_double(rundir_jget(findings_doc_member(docs[d], "config"), "block_bytes"));

		for (size_t p = 0; bs > 0 && p < dut_result_phase_count(docs[d]); p++) {
			struct dut_result_phase *ph = dut_result_phase_at(docs[d], p);

			for (int q = 1; q <= 256; q *= 2) {
				char name[32];
				const char *unit;
				double v;

				snprintf(name, sizeof(name), "iops_qd%d", q);
				if (dut_phase_get_metric(ph, name, &v, &unit) == 0 && v * bs > best) {
					best = v * bs;
					snprintf(what, n, "random writes at QD %d", q);
				}
			}
		}
	}
	return best;
}

const struct rundir_kind_ops rundir_kind_fill = {
	.kind = DOC_fill, .step_kind = "fill", .label = "dutprobe fill",
	.doc_tool = "dutprobe", .doc_key = "test", .doc_value = "fill",
	.table = report_fill_table, .config_charts = chart_fill, .findings = findings_fill, .answer = fill_answer,
	.why_config = answer_why_fill,
	.target = RUNDIR_TARGET_PROBE, .writes = fill_writes, .unprepared = fill_unprepared, .peak_bps = fill_peak,
};
