/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Step kind slc: dutprobe slc, write until the write cache is exhausted.
 *
 * The report of it reads dutprobe slc documents: the knee, its charts and findings.
 *
 * Both halves in one file (tools/kinds/meson.build compiles it twice).
 */
#if defined(DUTLAB_KIND_RUN)
/* ---- the orchestrator's half: struct dut_step_type (tools/run/experiment.h) ---- */
#include "tools/run/steps/steps_priv.h"

static const struct dut_param_spec slc_params[] = {
	{ .key = "span", .kind = DUT_P_SIZE, .flag = "--span", .min = MiB, .max = PiB,
	  .help = "how much to write (default: all of the file or device)" },
	{ .key = "bs", .kind = DUT_P_SIZE, .flag = "--bs", .def = "1M", .min = 4 * KiB, .max = 64 * MiB,
	  .help = "write size" },
	{ .key = "qd", .kind = DUT_P_UINT, .flag = "--qd", .def = "8", .min = 1, .max = 1024,
	  .help = "queue depth" },
	{ .key = "window", .kind = DUT_P_SIZE, .flag = "--window", .def = "64M", .min = MiB, .max = 64 * GiB,
	  .help = "one throughput sample per this many bytes written" },
	{ .key = "idle", .kind = DUT_P_DURATION, .flag = "--idle", .min = 1, .max = 86400,
	  .help = "then wait idle and write again: how much cache came back" },
	{ .key = "no-trim", .kind = DUT_P_BOOL, .flag = "--no-trim", .def = "no",
	  .help = "do not discard the span first" },
	PROBE_FILE_PARAMS,
};

static uint64_t slc_estimate(const struct dut_step *s, uint64_t target_bytes, uint64_t db_bytes)
{
	uint64_t once = step_secs((double)step_probe_bytes(s, target_bytes) / EXP_PROBE_WRITE_BPS);

	return step_pset(s, "idle") ? 2 * once + step_pu(s, "idle") : once;
}

const struct dut_step_type dut_step_kind_slc = {
	.name = "slc", .tool = "dutprobe", .command = "slc", .probe = true, STEP_PARAMS(slc_params),
	.summary = "write until the write cache is exhausted: the knee",
	.estimate_ns = slc_estimate, .space_bytes = step_probe_space, .argv = step_build_probe,
};

#elif defined(DUTLAB_KIND_REPORT)
/* ---- the report's half: struct rundir_kind_ops (tools/report/rundir_kinds.h) ---- */
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

#else
#error "a step kind is built by tools/kinds/meson.build, with DUTLAB_KIND_RUN or DUTLAB_KIND_REPORT"
#endif
