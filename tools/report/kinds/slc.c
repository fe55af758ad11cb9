/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The report of step kind slc (dutprobe slc documents): the knee, its charts and findings. */
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

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

/* An slc run writes the device from its first byte. */
static bool slc_writes(const struct dut_result *d)
{
	(void)d;
	return true;
}

/* The link check: the sequential write levels around the knee, and the mean over the write phase. */
static double slc_peak(const struct rundir_config *c, const char *step, char *what, size_t n)
{
	const struct dut_result *docs[RUNDIR_MAX_DOCS];
	size_t nd = rundir_config_docs(c, step, docs, RUNDIR_MAX_DOCS);
	double best = 0;

	for (size_t d = 0; d < nd; d++) {
		struct dut_result_phase *ph = dut_result_find_phase(docs[d], "write");
		json_object *k = ph ? json_object_array_get_idx(rundir_jget(dut_phase_extra(ph), "knees"), 0) : NULL;
		double lv[2] = { json_object_get_double(rundir_jget(k, "bw_before")),
				 json_object_get_double(rundir_jget(k, "bw_after")) };
		double bytes;
		uint64_t ns;
		const char *unit;

		for (int i = 0; i < 2; i++)
			if (lv[i] > best) {
				best = lv[i];
				snprintf(what, n, "the sequential write level");
			}
		if (ph && dut_phase_get_metric(ph, "bytes_written", &bytes, &unit) == 0 &&
		    dut_phase_get_duration(ph, &ns) == 0 && ns && bytes * 1e9 / (double)ns > best) {
			best = bytes * 1e9 / (double)ns;
			snprintf(what, n, "the mean sequential write throughput");
		}
	}
	return best;
}

const struct rundir_kind_ops rundir_kind_slc = {
	.kind = DOC_slc, .step_kind = "slc", .label = "dutprobe slc",
	.doc_tool = "dutprobe", .doc_key = "test", .doc_value = "slc",
	.table = report_slc_table, .config_charts = chart_slc, .findings = findings_slc, .answer = slc_answer,
	.target = RUNDIR_TARGET_PROBE, .writes = slc_writes, .peak_bps = slc_peak,
};
