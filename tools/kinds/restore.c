/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Step kind restore: pgload restore, time the restore of a dump into a new database.
 *
 * The report of it reads pgload restore documents: restore time and verdicts.
 *
 * Both halves in one file (tools/kinds/meson.build compiles it twice).
 */
#if defined(DUTLAB_KIND_RUN)
/* ---- the orchestrator's half: struct dut_step_type (tools/run/experiment.h) ---- */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tools/run/steps/steps_priv.h"

/* pg_dump + pg_restore (with index builds), bytes of database per second. */
#define EXP_RESTORE_BPS (20.0 * MiB)
/* A custom-format dump is compressed: about a third of the database. */
#define EXP_DUMP_FRACTION 3

static const char *const dump_formats[] = { "custom", "directory", "plain", NULL };

static const struct dut_param_spec restore_params[] = {
	{ .key = "dump", .kind = DUT_P_STRING, .def = "self",
	  .help = "\"self\": dump the database the steps before built, then time its restore; "
		  "or a dump file (relative to the experiment file)" },
	{ .key = "format", .kind = DUT_P_CHOICE, .flag = "--format", .def = "custom", .choices = dump_formats,
	  .help = "dump format" },
	{ .key = "jobs", .kind = DUT_P_UINT, .flag = "--jobs", .def = "1", .min = 1, .max = 64,
	  .help = "parallel restore jobs (custom and directory formats)" },
	{ .key = "database", .kind = DUT_P_STRING, .def = "restored",
	  .help = "database restored into (created empty first)" },
};

static int restore_check(const struct dut_step *s, char *msg, size_t len, unsigned *ret_line)
{
	const struct dut_param_value *f = dut_step_param(s, "format"), *j = dut_step_param(s, "jobs");

	if (strcmp(f->text, "plain") == 0 && j->u > 1) {
		snprintf(msg, len, "jobs: a plain dump restores with psql, one job; expected jobs = 1 "
			 "or format = custom/directory, found jobs = %llu", (unsigned long long)j->u);
		*ret_line = j->line;
		return -EINVAL;
	}
	return 0;
}

static uint64_t restore_estimate(const struct dut_step *s, uint64_t target_bytes, uint64_t db_bytes)
{
	bool self = strcmp(dut_step_param(s, "dump")->text, "self") == 0;
	/* the file's size is known only at run time: a 1 GiB database is assumed */
	double bytes = self ? (double)db_bytes : GiB;

	return step_secs((self ? 1.5 : 1.0) * bytes / EXP_RESTORE_BPS) + 2 * NS_PER_S;
}

static uint64_t restore_space(const struct dut_step *s, uint64_t db_bytes)
{
	/* the restored copy, plus the dump file when we make it */
	if (strcmp(dut_step_param(s, "dump")->text, "self") == 0)
		return db_bytes + db_bytes / EXP_DUMP_FRACTION;
	return 1ull << 30;
}

static int restore_supported(const struct dut_step *s, struct dut_error *err)
{
	const char *fmt = dut_step_param(s, "format")->text;

	if (strcmp(fmt, "custom") != 0) {
		dut_error_set(err, "step %s: format = %s: pgload restore handles custom-format dumps only "
			      "(use format = custom)", s->name, fmt);
		return -ENOTSUP;
	}
	return 0;
}

static int restore_argv(const struct dut_step *s, const struct run_step_ctx *c, struct run_argv *cmd,
			struct run_argv *pre, struct dut_error *err)
{
	char jobs[32];
	int r;

	if ((r = restore_supported(s, err)) < 0)
		return r;
	if (c->dump_is_self &&
	    ((r = run_argv_add(pre, c->pgload)) < 0 || (r = run_argv_add(pre, "restore")) < 0 ||
	     (r = run_argv_add(pre, "dump")) < 0 || (r = run_argv_add(pre, "--source")) < 0 ||
	     (r = run_argv_add(pre, c->conninfo)) < 0 || (r = run_argv_add(pre, "--out")) < 0 ||
	     (r = run_argv_add(pre, c->dump_path)) < 0))
		return r;
	/* pg_dump of the configuration's major: a newer one writes archives its pg_restore cannot read */
	if (c->dump_is_self && c->pg_bindir && (r = run_argv_addf(pre, "--bindir=%s", c->pg_bindir)) < 0)
		return r;
	snprintf(jobs, sizeof(jobs), "%" PRIu64, dut_step_param(s, "jobs")->u);
	if ((r = run_argv_add(cmd, c->pgload)) < 0 || (r = run_argv_add(cmd, "restore")) < 0 ||
	    (r = run_argv_add(cmd, "run")) < 0 || (r = run_argv_add(cmd, "--dump")) < 0 ||
	    (r = run_argv_add(cmd, c->dump_path)) < 0 || (r = run_argv_add(cmd, "--pgdata")) < 0 ||
	    (r = run_argv_add(cmd, c->pgdata)) < 0 || (r = run_argv_add(cmd, "-j")) < 0 ||
	    (r = run_argv_add(cmd, jobs)) < 0 || (r = run_argv_add(cmd, "--dbname")) < 0 ||
	    (r = run_argv_add(cmd, dut_step_param(s, "database")->text)) < 0 ||
	    /* repeat > 1 restores into the same database again */
	    (r = run_argv_add(cmd, "--clean")) < 0)
		return r;
	if (!c->dump_is_self && (r = run_argv_add(cmd, "--no-check")) < 0)
		return r;
	if (c->pg_bindir && (r = run_argv_addf(cmd, "--bindir=%s", c->pg_bindir)) < 0)
		return r;
	return step_pgload_tail(cmd, c, false);
}

const struct dut_step_type dut_step_kind_restore = {
	.name = "restore", .tool = "pg_restore", .command = NULL, STEP_PARAMS(restore_params),
	.summary = "time the restore of a dump into a new database",
	.restores = true,
	.check = restore_check, .estimate_ns = restore_estimate, .space_bytes = restore_space,
	.argv = restore_argv, .supported = restore_supported,
};

#elif defined(DUTLAB_KIND_REPORT)
/* ---- the report's half: struct rundir_kind_ops (tools/report/rundir_kinds.h) ---- */
#include "tools/report/report_answer_rows.h"
#include "tools/report/report_answer_why.h"
#include "tools/report/report_run_steps.h"
#include "tools/report/rundir_kinds.h"

static void restore_answer(struct rdoc *d, const struct rundir_model *m, const char *st)
{
	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct rundir_config *c = &m->configs[i], *b = &m->configs[0];
		struct cmp_stat v = rundir_duration(c, st, "total"), base = rundir_duration(b, st, "total");

		answer_row(d, c->name, st, "restore time (s)", &v, 1, 2, &base);
	}
}

const struct rundir_kind_ops rundir_kind_restore = {
	.kind = DOC_restore, .step_kind = "restore", .label = "pgload restore",
	.doc_tool = "pgload", .doc_key = "workload", .doc_value = "restore",
	.table = report_restore_table, .answer = restore_answer,
	.why_config = answer_why_restore,
};

#else
#error "a step kind is built by tools/kinds/meson.build, with DUTLAB_KIND_RUN or DUTLAB_KIND_REPORT"
#endif
