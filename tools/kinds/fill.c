/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Step kind fill: dutprobe fill, random-write IOPS at steady state per fill level.
 *
 * The report of it reads dutprobe fill documents: IOPS per fill level and queue depth.
 *
 * Both halves in one file (tools/kinds/meson.build compiles it twice).
 */
#if defined(DUTLAB_KIND_RUN)
/* ---- the orchestrator's half: struct dut_step_type (tools/run/experiment.h) ---- */
#include "tools/run/steps/steps_priv.h"

static const struct dut_param_spec fill_params[] = {
	{ .key = "levels", .kind = DUT_P_LIST, .item_kind = DUT_ITEM_LEVEL, .flag = "--levels",
	  .def = "30%,60%,90%", .help = "fill levels: percentages of the span, or sizes" },
	{ .key = "qd", .kind = DUT_P_LIST, .item_kind = DUT_ITEM_UINT, .flag = "--qd", .def = "1,8,32",
	  .min = 1, .max = 1024, .help = "queue depths of the random writes" },
	{ .key = "bs", .kind = DUT_P_SIZE, .flag = "--bs", .def = "16K", .min = 512, .max = 64 * MiB,
	  .help = "random write size" },
	{ .key = "round-time", .kind = DUT_P_DURATION, .flag = "--round-time", .def = "10s", .min = 0.1,
	  .max = 3600, .help = "length of one round" },
	{ .key = "max-rounds", .kind = DUT_P_UINT, .flag = "--max-rounds", .def = "30", .min = 1, .max = 1000,
	  .help = "give up on steady state after this many rounds" },
	{ .key = "span", .kind = DUT_P_SIZE, .flag = "--span", .min = MiB, .max = PiB,
	  .help = "the part of the target that counts as full (default: all)" },
	PROBE_FILE_PARAMS,
};

static uint64_t fill_estimate(const struct dut_step *s, uint64_t target_bytes, uint64_t db_bytes)
{
	uint64_t levels = step_pu(s, "levels"), qds = step_pu(s, "qd");
	/* filling to the highest level writes the span at most once; the
	 * rounds are bounded by max-rounds per level and queue depth */
	uint64_t write = step_secs((double)step_probe_bytes(s, target_bytes) / EXP_PROBE_WRITE_BPS);

	return write + levels * qds * step_pu(s, "max-rounds") * step_pu(s, "round-time");
}

const struct dut_step_type dut_step_kind_fill = {
	.name = "fill", .tool = "dutprobe", .command = "fill", .probe = true, STEP_PARAMS(fill_params),
	.summary = "random-write IOPS at steady state, per fill level",
	.estimate_ns = fill_estimate, .space_bytes = step_probe_space, .argv = step_build_probe,
};

#elif defined(DUTLAB_KIND_REPORT)
/* ---- the report's half: struct rundir_kind_ops (tools/report/rundir_kinds.h) ---- */
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

#else
#error "a step kind is built by tools/kinds/meson.build, with DUTLAB_KIND_RUN or DUTLAB_KIND_REPORT"
#endif
