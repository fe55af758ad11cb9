/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Step kind oltp-run: pgload run, a pgbench-compatible OLTP run.
 *
 * The report of it reads pgload run documents: TPS, latency, replica lag, reads.
 *
 * Both halves in one file (tools/kinds/meson.build compiles it twice).
 */
#if defined(DUTLAB_KIND_RUN)
/* ---- the orchestrator's half: struct dut_step_type (tools/run/experiment.h) ---- */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "tools/run/steps/steps_priv.h"

/* oltp-run with -t: transactions per second assumed for the ETA. */
#define EXP_OLTP_ASSUMED_TPS 300.0

static const char *const scripts[] = { "tpcb-like", "simple-update", "select-only", NULL };
static const char *const protocols[] = { "simple", "extended", "prepared", NULL };

static const struct dut_param_spec oltp_run_params[] = {
	{ .key = "script", .kind = DUT_P_LIST, .item_kind = DUT_ITEM_CHOICE_WEIGHT, .flag = "-b",
	  .def = "tpcb-like", .choices = scripts, .help = "built-in scripts, each optionally @WEIGHT" },
	{ .key = "clients", .kind = DUT_P_UINT, .flag = "-c", .def = "1", .min = 1, .max = 1000,
	  .help = "client connections" },
	{ .key = "threads", .kind = DUT_P_UINT, .flag = "-j", .def = "1", .min = 1, .max = 1000,
	  .help = "client threads (at most clients)" },
	{ .key = "duration", .kind = DUT_P_DURATION, .flag = "-T", .min = 1, .max = 86400,
	  .help = "run time (whole seconds); this or transactions" },
	{ .key = "transactions", .kind = DUT_P_UINT, .flag = "-t", .min = 1, .max = 1e9,
	  .help = "transactions per client; this or duration" },
	{ .key = "rate", .kind = DUT_P_NUMBER, .flag = "-R", .min = 0.1, .max = 1e7,
	  .help = "target transactions per second (default: as fast as possible)" },
	{ .key = "protocol", .kind = DUT_P_CHOICE, .flag = "-M", .def = "simple", .choices = protocols,
	  .help = "query protocol" },
	{ .key = "progress", .kind = DUT_P_DURATION, .flag = "-P", .min = 1, .max = 3600,
	  .help = "progress report interval (whole seconds)" },
	{ .key = "max-tries", .kind = DUT_P_UINT, .flag = "--max-tries", .min = 1, .max = 100,
	  .help = "tries of a transaction that fails with a serialization error or deadlock" },
	{ .key = "seed", .kind = DUT_P_UINT, .flag = "--seed", .min = 0, .max = 4294967295.0,
	  .help = "seed of the random account ids" },
};

static int oltp_run_check(const struct dut_step *s, char *msg, size_t len, unsigned *ret_line)
{
	const struct dut_param_value *d = dut_step_param(s, "duration"), *t = dut_step_param(s, "transactions");
	const struct dut_param_value *th = dut_step_param(s, "threads"), *cl = dut_step_param(s, "clients");

	if (d->set == t->set) {
		snprintf(msg, len, "expected exactly one of duration or transactions, found %s",
			 d->set ? "both" : "neither");
		*ret_line = d->set ? t->line : s->line;
		return -EINVAL;
	}
	if (d->set && d->u % NS_PER_S) {
		snprintf(msg, len, "duration: expected whole seconds, found \"%s\"", d->text);
		*ret_line = d->line;
		return -EINVAL;
	}
	if (th->u > cl->u) {
		snprintf(msg, len, "threads: expected at most clients (%llu), found %llu",
			 (unsigned long long)cl->u, (unsigned long long)th->u);
		*ret_line = th->set ? th->line : cl->line;
		return -EINVAL;
	}
	return 0;
}

static uint64_t oltp_run_estimate(const struct dut_step *s, uint64_t target_bytes, uint64_t db_bytes)
{
	if (step_pset(s, "duration"))
		return step_pu(s, "duration");
	return step_secs((double)step_pu(s, "transactions") * (double)step_pu(s, "clients") / EXP_OLTP_ASSUMED_TPS);
}

/* pgload -b takes one script per option: "-b tpcb-like@3 -b select-only". */
static int add_scripts(struct run_argv *a, const struct dut_step *s)
{
	const struct dut_param_value *v = dut_step_param(s, "script");
	_cleanup_free_ char *copy = NULL;
	char *save = NULL;
	int r = 0;

	if (!v || !v->text)
		return 0;
	copy = strdup(v->text);
	if (!copy)
		return -ENOMEM;
	for (char *t = strtok_r(copy, ",", &save); t && r == 0; t = strtok_r(NULL, ",", &save)) {
		while (*t == ' ')
			t++;
		for (char *e = t + strlen(t); e > t && e[-1] == ' ';)
			*--e = '\0';
		if (*t && (r = run_argv_add(a, "-b")) == 0)
			r = run_argv_add(a, t);
	}
	return r;
}

static int oltp_run_argv(const struct dut_step *s, const struct run_step_ctx *c, struct run_argv *cmd,
			 struct run_argv *pre, struct dut_error *err)
{
	static const char *const skip[] = { "script", NULL };
	int r;

	if ((r = run_argv_add(cmd, c->pgload)) < 0 || (r = run_argv_add(cmd, "run")) < 0 ||
	    (r = run_argv_add(cmd, "--pgdata")) < 0 || (r = run_argv_add(cmd, c->pgdata)) < 0 ||
	    (r = add_scripts(cmd, s)) < 0 || (r = step_add_params(cmd, s, skip)) < 0)
		return r;
	return step_pgload_tail(cmd, c, true);
}

const struct dut_step_type dut_step_kind_oltp_run = {
	.name = "oltp-run", .tool = "pgload", .command = "run", STEP_PARAMS(oltp_run_params),
	.summary = "pgbench-compatible OLTP run",
	.relmap = true,
	.check = oltp_run_check, .estimate_ns = oltp_run_estimate, .space_bytes = step_no_space,
	.argv = oltp_run_argv,
};

#elif defined(DUTLAB_KIND_REPORT)
/* ---- the report's half: struct rundir_kind_ops (tools/report/rundir_kinds.h) ---- */
#include <string.h>

#include <json-c/json.h>

#include "lib/run_manifest.h"
#include "tools/report/chart_priv.h"
#include "tools/report/findings_priv.h"
#include "tools/report/report_answer_bursts.h"
#include "tools/report/report_answer_rows.h"
#include "tools/report/report_answer_why.h"
#include "tools/report/report_run_reads.h"
#include "tools/report/report_run_steps.h"
#include "tools/report/rundir_kinds.h"

static void oltp_table(struct rdoc *d, const struct rundir_model *m, const char *step)
{
	report_oltp_table(d, m, step);
	report_replica_lag_table(d, m, step);
	report_reads_table(d, m, step, false);
}

static void oltp_answer(struct rdoc *d, const struct rundir_model *m, const char *st)
{
	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct rundir_config *c = &m->configs[i], *b = &m->configs[0];
		struct cmp_stat v = rundir_metric(c, st, "run", "tps"), base = rundir_metric(b, st, "run", "tps");

		answer_row(d, c->name, st, "TPS (tx/s)", &v, 1, 1, &base);
		if (c->replica[0] && strcmp(c->replica, "none") != 0) {
			/* what the replica cost besides TPS: how far behind it ran */
			v = rundir_metric(c, st, "run", "replay_lag_ms_p99");
			answer_row(d, c->name, st, "standby replay lag p99 (ms)", &v, 1, 2, NULL);
		}
	}
}

/* The database the run measured: pgload's target.database_bytes. */
static double oltp_database_bytes(const struct dut_result *d)
{
	return json_object_get_double(rundir_jget(rundir_jget(dut_result_json(d), "target"), DUT_RM_DATABASE_BYTES));
}

const struct rundir_kind_ops rundir_kind_oltp_run = {
	.kind = DOC_oltp_run, .step_kind = "oltp-run", .label = "pgload oltp",
	.doc_tool = "pgload", .doc_key = "workload", .doc_value = "oltp",
	.table = oltp_table, .config_charts = chart_oltp_lag, .findings = findings_tps, .answer = oltp_answer,
	.why_config = answer_why_oltp, .database_bytes = oltp_database_bytes, .answer_table = answer_bursts_step,
	.traps = findings_traps_oltp,
};

#else
#error "a step kind is built by tools/kinds/meson.build, with DUTLAB_KIND_RUN or DUTLAB_KIND_REPORT"
#endif
