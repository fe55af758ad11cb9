/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Step kind dss: pgload dss, TPC-H-derived decision support.
 *
 * The report of it reads pgload dss documents: phases, m-time, query charts, plan findings.
 *
 * Both halves in one file (tools/kinds/meson.build compiles it twice).
 */
#if defined(DUTLAB_KIND_RUN)
/* ---- the orchestrator's half: struct dut_step_type (tools/run/experiment.h) ---- */
#include <math.h>
#include <string.h>

#include "tools/run/steps/steps_priv.h"

/*
 * DSS phases on 2 cores: a fixed cost (connections, the 22 plans, small
 * tables) plus seconds per scale factor.  Measured with fs-dss.ini (SF 0.05,
 * stats-target 1000, five filesystems, 2026-12-01): the whole run took 86 s
 * at load average 5 and 2m18s-3m55s at 8-23 (analyze with stats-target 1000
 * the phase that grows most with load: 7-33 s per configuration); these
 * constants put the estimate (2m42s with the setups) within 2x of both ends.
 */
static const double dss_s_fixed[] = { 1, 1, 1, 1, 1 };            /* load keys analyze queries rf */
static const double dss_s_per_sf[] = { 20, 40, 80, 30, 30 };

static const char *const dss_phases[] = { "load", "keys", "analyze", "queries", "rf", "all", NULL };
static const char *const dss_params[] = { "default", "random", NULL };

static const struct dut_param_spec dss_params_spec[] = {
	{ .key = "scale", .kind = DUT_P_NUMBER, .flag = "-s", .min = 0.001, .max = 1000, .required = true,
	  .help = "scale factor (1 = ~1 GiB of data, ~1.5 GiB with indexes)" },
	{ .key = "phases", .kind = DUT_P_LIST, .item_kind = DUT_ITEM_CHOICE, .flag = "--phases",
	  .def = "load,keys,analyze,queries", .choices = dss_phases,
	  .help = "phases, timed separately" },
	{ .key = "queries", .kind = DUT_P_LIST, .item_kind = DUT_ITEM_QUERIES, .flag = "--queries",
	  .min = 1, .max = 22, .help = "queries to run, e.g. 1,3-5,22 (default all 22)" },
	{ .key = "jobs", .kind = DUT_P_UINT, .flag = "-j", .min = 1, .max = 64,
	  .help = "generator threads (default 2)" },
	{ .key = "reps", .kind = DUT_P_UINT, .flag = "--reps", .def = "1", .min = 1, .max = 100,
	  .help = "runs of the query set" },
	{ .key = "timeout", .kind = DUT_P_DURATION, .flag = "--timeout", .min = 1, .max = 86400,
	  .help = "statement_timeout per query" },
	{ .key = "stats-target", .kind = DUT_P_UINT, .flag = "--stats-target", .min = 1, .max = 10000,
	  .help = "default_statistics_target for ANALYZE (default 1000)" },
	{ .key = "params", .kind = DUT_P_CHOICE, .flag = "--params", .choices = dss_params,
	  .help = "substitution parameters (default: the validation ones)" },
};

static bool dss_has_phase(const struct dut_step *s, const char *phase)
{
	const char *t = dut_step_param(s, "phases")->text;
	size_t n = strlen(phase);

	for (const char *p = t; p && *p;) {
		const char *e = strchr(p, ',');
		const char *end = e ? e : p + strlen(p);

		while (*p == ' ')
			p++;
		while (end > p && end[-1] == ' ')
			end--;
		if ((size_t)(end - p) == 3 && memcmp(p, "all", 3) == 0)
			return true;
		if ((size_t)(end - p) == n && memcmp(p, phase, n) == 0)
			return true;
		p = e ? e + 1 : end;
	}
	return false;
}

static uint64_t dss_estimate(const struct dut_step *s, uint64_t target_bytes, uint64_t db_bytes)
{
	static const char *const phases[] = { "load", "keys", "analyze", "queries", "rf" };
	double sf = dut_step_param(s, "scale")->d, total = 0;

	for (size_t i = 0; i < 5; i++) {
		double t;

		if (!dss_has_phase(s, phases[i]))
			continue;
		t = dss_s_fixed[i] + dss_s_per_sf[i] * sf;
		if (i == 3) {
			t *= (double)step_pu(s, "reps");
			if (step_pset(s, "timeout") &&
			    t > 22.0 * (double)step_pu(s, "reps") * step_pu(s, "timeout") / NS_PER_S)
				t = 22.0 * (double)step_pu(s, "reps") * step_pu(s, "timeout") / NS_PER_S;
		}
		total += t < 2 ? 2 : t;
	}
	return step_secs(total);
}

static uint64_t dss_space(const struct dut_step *s, uint64_t db_bytes)
{
	if (!dss_has_phase(s, "load"))
		return 0;
	return (uint64_t)ceil(dut_step_param(s, "scale")->d * (double)DUT_DSS_BYTES_PER_SF);
}

static int dss_argv(const struct dut_step *s, const struct run_step_ctx *c, struct run_argv *cmd,
		    struct run_argv *pre, struct dut_error *err)
{
	int r;

	/* dss keeps its own dss/<phase> markers: they are its sub-phases */
	if ((r = run_argv_add(cmd, c->pgload)) < 0 || (r = run_argv_add(cmd, "dss")) < 0 ||
	    (r = run_argv_add(cmd, "-d")) < 0 || (r = run_argv_add(cmd, c->conninfo)) < 0 ||
	    (r = run_argv_add(cmd, "--pgdata")) < 0 || (r = run_argv_add(cmd, c->pgdata)) < 0 ||
	    (r = step_add_params(cmd, s, NULL)) < 0)
		return r;
	return step_pgload_tail(cmd, c, false);
}

const struct dut_step_type dut_step_kind_dss = {
	.name = "dss", .tool = "pgload", .command = "dss", STEP_PARAMS(dss_params_spec),
	.summary = "TPC-H-derived decision support: load, keys, analyze, queries",
	.relmap = true,
	.estimate_ns = dss_estimate, .space_bytes = dss_space, .argv = dss_argv,
};

#elif defined(DUTLAB_KIND_REPORT)
/* ---- the report's half: struct rundir_kind_ops (tools/report/rundir_kinds.h) ---- */
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

#else
#error "a step kind is built by tools/kinds/meson.build, with DUTLAB_KIND_RUN or DUTLAB_KIND_REPORT"
#endif
