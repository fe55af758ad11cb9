/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Step kind oltp-init: pgload init, load the pgbench tables.
 *
 * The report of it reads pgload init documents: phase times.
 *
 * Both halves in one file (tools/kinds/meson.build compiles it twice).
 */
#if defined(DUTLAB_KIND_RUN)
/* ---- the orchestrator's half: struct dut_step_type (tools/run/experiment.h) ---- */
#include <string.h>

#include "lib/cleanup.h"
#include "tools/run/steps/steps_priv.h"

/* pgbench -i: load, vacuum, primary keys; ~1 s per scale unit on 2 cores. */
#define EXP_OLTP_INIT_NS_PER_SCALE (1ull * NS_PER_S)

static const struct dut_param_spec oltp_init_params[] = {
	{ .key = "scale", .kind = DUT_P_UINT, .flag = "-s", .min = 1, .max = 100000, .required = true,
	  .help = "pgbench scale: 100,000 accounts and ~15 MiB per unit" },
	{ .key = "jobs", .kind = DUT_P_UINT, .flag = "--jobs", .min = 1, .max = 64,
	  .help = "parallel COPY connections (default: by CPU count)" },
	{ .key = "fillfactor", .kind = DUT_P_UINT, .flag = "--fillfactor", .min = 10, .max = 100,
	  .help = "fillfactor of the pgbench tables (default 100)" },
	{ .key = "tables-on", .kind = DUT_P_TABLESPACE, .flag = "--tables-on",
	  .help = "tablespace of the tables (or the [matrix] tables-on)" },
	{ .key = "indexes-on", .kind = DUT_P_TABLESPACE, .flag = "--indexes-on",
	  .help = "tablespace of the indexes (or the [matrix] indexes-on)" },
};

static uint64_t oltp_init_estimate(const struct dut_step *s, uint64_t target_bytes, uint64_t db_bytes)
{
	return step_pu(s, "scale") * EXP_OLTP_INIT_NS_PER_SCALE;
}

/* Tables and indexes together; the planner splits off the indexes' part
 * (scale * DUT_PGBENCH_INDEX_BYTES_PER_SCALE) when they are placed apart. */
static uint64_t oltp_init_space(const struct dut_step *s, uint64_t db_bytes)
{
	uint64_t ff = step_pset(s, "fillfactor") ? step_pu(s, "fillfactor") : 100;

	return step_pu(s, "scale") *
	       (DUT_PGBENCH_TABLE_BYTES_PER_SCALE * 100 / ff + DUT_PGBENCH_INDEX_BYTES_PER_SCALE);
}

/* The matrix's tables-on / indexes-on, unless the step sets its own. */
static int add_placement(struct run_argv *a, const struct dut_step *s, const struct dut_config *cfg)
{
	static const struct { const char *key, *flag; } keys[] = {
		{ "tables-on", "--tables-on" }, { "indexes-on", "--indexes-on" },
	};
	int r = 0;

	for (size_t i = 0; i < DUT_ARRAY_SIZE(keys) && r == 0; i++) {
		const struct dut_param_value *v = dut_step_param(s, keys[i].key);
		const char *ts = i == 0 ? cfg->tables_on : cfg->indexes_on;

		if ((v && v->text) || !ts || strcmp(ts, "default") == 0)
			continue;
		if ((r = run_argv_add(a, keys[i].flag)) == 0)
			r = run_argv_add(a, ts);
	}
	return r;
}

static int oltp_init_argv(const struct dut_step *s, const struct run_step_ctx *c, struct run_argv *cmd,
			  struct run_argv *pre, struct dut_error *err)
{
	int r;

	if ((r = run_argv_add(cmd, c->pgload)) < 0 || (r = run_argv_add(cmd, "init")) < 0 ||
	    (r = run_argv_add(cmd, "--pgdata")) < 0 || (r = run_argv_add(cmd, c->pgdata)) < 0 ||
	    (r = step_add_params(cmd, s, NULL)) < 0 || (r = add_placement(cmd, s, c->cfg)) < 0)
		return r;
	return step_pgload_tail(cmd, c, true);
}

const struct dut_step_type dut_step_kind_oltp_init = {
	.name = "oltp-init", .tool = "pgload", .command = "init", STEP_PARAMS(oltp_init_params),
	.summary = "load the pgbench tables",
	.places_tables = true, .relmap = true,
	.estimate_ns = oltp_init_estimate, .space_bytes = oltp_init_space, .argv = oltp_init_argv,
};

#elif defined(DUTLAB_KIND_REPORT)
/* ---- the report's half: struct rundir_kind_ops (tools/report/rundir_kinds.h) ---- */
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

#else
#error "a step kind is built by tools/kinds/meson.build, with DUTLAB_KIND_RUN or DUTLAB_KIND_REPORT"
#endif
