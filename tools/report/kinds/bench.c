/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The report of step kind bench (dutprobe bench documents): the rows, cache findings. */
#include <stdio.h>
#include <string.h>

#include "tools/report/findings_priv.h"
#include "tools/report/report_answer_rows.h"
#include "tools/report/report_run_steps.h"
#include "tools/report/rundir_kinds.h"

/* Every row of the first document: MB/s for sequential rows, IOPS for the others. */
static void bench_answer(struct rdoc *d, const struct rundir_model *m, const char *st)
{
	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct rundir_config *c = &m->configs[i], *b = &m->configs[0];
		const struct dut_result *docs[1];

		if (!rundir_config_docs(c, st, docs, 1))
			continue;
		for (size_t p = 0; p < dut_result_phase_count(docs[0]); p++) {
			const char *pn = dut_phase_name(dut_result_phase_at(docs[0], p));
			bool seq = strncmp(pn, "SEQ", 3) == 0;
			struct cmp_stat v = rundir_metric(c, st, pn, seq ? "bw" : "iops");
			struct cmp_stat base = rundir_metric(b, st, pn, seq ? "bw" : "iops");
			char what[96];

			snprintf(what, sizeof(what), "%s (%s)", pn, seq ? "MB/s" : "IOPS");
			answer_row(d, c->name, st, what, &v, seq ? 1e-6 : 1, 0, &base);
		}
	}
}

/* A bench writes with its write rows ("SEQ1M Q8T1 W"). */
static bool bench_writes(const struct dut_result *d)
{
	for (size_t p = 0; p < dut_result_phase_count(d); p++) {
		const char *n = dut_phase_name(dut_result_phase_at(d, p));
		size_t len = strlen(n);

		if (len > 2 && strcmp(n + len - 2, " W") == 0)
			return true;
	}
	return false;
}

static const char *bench_unprepared(const struct dut_result *d, bool written, bool fresh, bool loop)
{
	(void)d;
	if (!written)
		return "no fill or sequential write ran on the target before it in the repetition";
	if (fresh)
		return loop ? "the target is a loop image the run created, never written before"
			    : "the target is a file the step created, never written before";
	return NULL;
}

const struct rundir_kind_ops rundir_kind_bench = {
	.kind = DOC_bench, .step_kind = "bench", .label = "dutprobe bench",
	.doc_tool = "dutprobe", .doc_key = "test", .doc_value = "bench",
	.table = report_bench_table, .findings = findings_cache, .answer = bench_answer,
	/* its figures above the link are the cache findings' (findings_cache) */
	.target = RUNDIR_TARGET_PROBE, .writes = bench_writes, .unprepared = bench_unprepared, .no_link_check = true,
};
