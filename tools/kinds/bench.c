/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Step kind bench: dutprobe bench, sequential and random read/write rows.
 *
 * The report of it reads dutprobe bench documents: the rows, cache findings.
 *
 * Both halves in one file (tools/kinds/meson.build compiles it twice).
 */
#if defined(DUTLAB_KIND_RUN)
/* ---- the orchestrator's half: struct dut_step_type (tools/run/experiment.h) ---- */
#include <string.h>

#include "tools/run/steps/steps_priv.h"

static const struct dut_param_spec bench_params[] = {
	{ .key = "rows", .kind = DUT_P_STRING, .flag = "--rows",
	  .help = "comma-separated row specs such as SEQ1M Q8T1 R (default: the six default rows)" },
	{ .key = "time", .kind = DUT_P_DURATION, .flag = "--time", .def = "5s", .min = 0.1, .max = 3600,
	  .help = "measured time per repetition of a row" },
	{ .key = "warmup", .kind = DUT_P_DURATION, .flag = "--warmup", .def = "1s", .min = 0, .max = 600,
	  .help = "warm-up before a row, not counted" },
	{ .key = "reps", .kind = DUT_P_UINT, .flag = "--reps", .def = "3", .min = 1, .max = 100,
	  .help = "repetitions per row, reported as median (min-max)" },
	{ .key = "read-only", .kind = DUT_P_BOOL, .flag = "--read-only", .def = "no",
	  .help = "drop the write rows" },
	{ .key = "span", .kind = DUT_P_SIZE, .flag = "--span", .min = MiB, .max = PiB,
	  .help = "region the offsets cover (default: all of the file or device)" },
	PROBE_FILE_PARAMS,
};

static uint64_t count_items(const char *text, uint64_t if_null)
{
	uint64_t n = 1;

	if (!text || strcmp(text, "default") == 0)
		return if_null;
	for (const char *p = text; *p; p++)
		n += *p == ',';
	return n;
}

static uint64_t bench_estimate(const struct dut_step *s, uint64_t target_bytes, uint64_t db_bytes)
{
	uint64_t rows = count_items(dut_step_param(s, "rows")->text, 6);

	if (step_pu(s, "read-only") && !step_pset(s, "rows"))
		rows = 3;
	return rows * (step_pu(s, "warmup") + step_pu(s, "reps") * step_pu(s, "time"));
}

const struct dut_step_type dut_step_kind_bench = {
	.name = "bench", .tool = "dutprobe", .command = "bench", .probe = true, STEP_PARAMS(bench_params),
	.summary = "sequential and random read/write rows (CrystalDiskMark-like)",
	.estimate_ns = bench_estimate, .space_bytes = step_probe_space, .argv = step_build_probe,
};

#elif defined(DUTLAB_KIND_REPORT)
/* ---- the report's half: struct rundir_kind_ops (tools/report/rundir_kinds.h) ---- */
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

#else
#error "a step kind is built by tools/kinds/meson.build, with DUTLAB_KIND_RUN or DUTLAB_KIND_REPORT"
#endif
