/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Step kind crash: dutlab crash (docs/crash.md), a crash-consistency
 * campaign in a directory of its own on the target's filesystem; its
 * clusters and dutfs mounts are its own.  Exit 1 is its finding (damage,
 * a blind control), which its document says.
 *
 * The report of it reads dutlab crash documents: the campaign's verdicts.
 *
 * Both halves in one file (tools/kinds/meson.build compiles it twice).
 */
#if defined(DUTLAB_KIND_RUN)
/* ---- the orchestrator's half: struct dut_step_type (tools/run/experiment.h) ---- */
#include <errno.h>
#include <stdio.h>

#include "tools/run/steps/steps_priv.h"

/* A crash state (docs/crash.md): copy, two starts, the workload, checks; the
 * template once.  Measured 3 to 12 s per state beside the workload on 2 cores. */
#define EXP_CRASH_STATE_NS (10 * NS_PER_S)
#define EXP_CRASH_TEMPLATE_NS (40 * NS_PER_S)

static const char *const crash_points[] = { "wal-write", "wal-fsync", "heap-write", "index-write", "data-fsync",
					    "pg_control", "slru-write", "checkpoint", "time", "init", NULL };
static const char *const crash_losses[] = { "lose-all", "lose-none", "subset", "torn", "fsync-eio", NULL };

/* the keys of dutlab crash's [crash] section */
static const struct dut_param_spec crash_params[] = {
	{ .key = "states", .kind = DUT_P_UINT, .flag = "--states", .def = "45", .min = 0, .max = 100000,
	  .help = "states with fsync honoured; each must come through undamaged" },
	{ .key = "controls", .kind = DUT_P_UINT, .flag = "--controls", .def = "2", .min = 0, .max = 1000,
	  .help = "states per negative control (full_page_writes=off, fsync=off); each control must see damage" },
	{ .key = "seed", .kind = DUT_P_UINT, .flag = "--seed", .def = "1", .min = 0, .max = 4294967295.0,
	  .help = "the campaign's seed: state I is the same plan for the same seed" },
	{ .key = "points", .kind = DUT_P_LIST, .item_kind = DUT_ITEM_CHOICE, .flag = "--points",
	  .choices = crash_points, .help = "crash points (default: all but init)" },
	{ .key = "losses", .kind = DUT_P_LIST, .item_kind = DUT_ITEM_CHOICE, .flag = "--losses",
	  .choices = crash_losses, .help = "what a crash loses (default: all five)" },
	{ .key = "class-loss", .kind = DUT_P_STRING, .flag = "--class-loss",
	  .help = "loss modes fixed per class of files, e.g. wal=lose-none,data=torn (the others drawn)" },
	{ .key = "sector", .kind = DUT_P_SIZE, .flag = "--sector", .min = 512, .max = 64 * KiB,
	  .help = "atomic write unit torn writes tear at (default 512, or the identify step's)" },
	{ .key = "identify", .kind = DUT_P_STRING,
	  .help = "an identify step before this one: tear at the device's power-fail atomic unit" },
	{ .key = "duration", .kind = DUT_P_DURATION, .flag = "--duration", .def = "4s", .min = 1, .max = 600,
	  .help = "the ledger workload's length before the latest crash (whole seconds)" },
	{ .key = "clients", .kind = DUT_P_UINT, .flag = "--clients", .def = "4", .min = 1, .max = 64,
	  .help = "ledger clients" },
};

static int crash_check(const struct dut_step *s, char *msg, size_t len, unsigned *ret_line)
{
	const struct dut_param_value *d = dut_step_param(s, "duration");
	const struct dut_param_value *st = dut_step_param(s, "states"), *c = dut_step_param(s, "controls");

	if (s->raw) {
		snprintf(msg, len, "raw: a crash campaign needs a filesystem on its target for its clusters; "
			 "expected raw = no");
		*ret_line = s->line;
		return -EINVAL;
	}
	if (d->u % NS_PER_S) {
		snprintf(msg, len, "duration: expected whole seconds, found \"%s\"", d->text);
		*ret_line = d->line;
		return -EINVAL;
	}
	if (st->u == 0 && c->u == 0) {
		snprintf(msg, len, "expected at least one state: states and controls are both 0");
		*ret_line = st->set ? st->line : c->set ? c->line : s->line;
		return -EINVAL;
	}
	return 0;
}

static uint64_t crash_estimate(const struct dut_step *s, uint64_t target_bytes, uint64_t db_bytes)
{
	uint64_t states = step_pu(s, "states") + 2 * step_pu(s, "controls");

	return EXP_CRASH_TEMPLATE_NS + states * (EXP_CRASH_STATE_NS + step_pu(s, "duration"));
}

/* The template cluster (scale 1, ~70 MiB), one state's copy, a damaged state's logs. */
static uint64_t crash_space(const struct dut_step *s, uint64_t db_bytes)
{
	return 3 * DUT_PG_CLUSTER_BYTES + 2 * (DUT_PGBENCH_TABLE_BYTES_PER_SCALE + DUT_PGBENCH_INDEX_BYTES_PER_SCALE);
}

/* dutlab crash --workdir DIR: the campaign makes its own clusters and dutfs
 * mounts there; the configuration's [postgres] settings become --set. */
static int crash_argv(const struct dut_step *s, const struct run_step_ctx *c, struct run_argv *cmd,
		      struct run_argv *pre, struct dut_error *err)
{
	int r;

	if ((r = run_argv_add(cmd, c->dutlab)) < 0 || (r = run_argv_add(cmd, "crash")) < 0 ||
	    (r = step_add_params(cmd, s, NULL)) < 0)
		return r;
	for (size_t i = 0; i < c->cfg->nsettings && r == 0; i++)
		if ((r = run_argv_add(cmd, "--set")) == 0)
			r = run_argv_addf(cmd, "%s=%s", c->cfg->settings[i].name, c->cfg->settings[i].value);
	if (r == 0 && c->identify_json && (r = run_argv_add(cmd, "--identify")) == 0)
		r = run_argv_add(cmd, c->identify_json);
	/* the configuration's PostgreSQL ([postgres] version or bindir), not the newest installed */
	if (r == 0 && c->pg_bindir)
		r = run_argv_addf(cmd, "--bindir=%s", c->pg_bindir);
	if (r == 0 && c->json_path && (r = run_argv_add(cmd, "--json")) == 0)
		r = run_argv_add(cmd, c->json_path);
	if (r == 0 && (r = run_argv_add(cmd, "--workdir")) == 0)
		r = run_argv_add(cmd, c->probe_target);
	return r;
}

const struct dut_step_type dut_step_kind_crash = {
	.name = "crash", .tool = "dutlab", .command = "crash", .probe = true, STEP_PARAMS(crash_params),
	.summary = "crash-consistency campaign: PostgreSQL crashed on dutfs, recovered and checked",
	.workdir = true, .own_clusters = true, .runs_dutlab = true, .result_exit = 1,
	.check = crash_check, .estimate_ns = crash_estimate, .space_bytes = crash_space, .argv = crash_argv,
};

#elif defined(DUTLAB_KIND_REPORT)
/* ---- the report's half: struct rundir_kind_ops (tools/report/rundir_kinds.h) ---- */
#include "tools/report/findings_priv.h"
#include "tools/report/report_answer_rows.h"
#include "tools/report/report_run_steps.h"
#include "tools/report/rundir_kinds.h"

/* A damaged state with fsync honoured is the finding; a control that saw
 * nothing means the clean figure proves nothing. */
static void crash_answer(struct rdoc *d, const struct rundir_model *m, const char *st)
{
	static const struct { const char *metric, *what; int dec; } rows[] = {
		{ "regular_damaged", "crash states damaged with fsync honoured", 0 },
		{ "commits_lost", "acknowledged commits lost after crashes", 0 },
		{ "fpw_off_detected", "full_page_writes=off control states that saw damage", 0 },
		{ "fsync_off_detected", "fsync=off control states that saw damage", 0 },
		{ "states_per_minute", "crash states per minute", 1 },
	};

	for (size_t i = 0; i < m->nconfigs; i++)
		for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
			struct cmp_stat v = rundir_metric(&m->configs[i], st, "campaign", rows[k].metric);

			answer_row(d, m->configs[i].name, st, rows[k].what, &v, 1, rows[k].dec, NULL);
		}
}

const struct rundir_kind_ops rundir_kind_crash = {
	.kind = DOC_crash, .step_kind = "crash", .label = "dutlab crash",
	.doc_tool = "dutlab", .doc_key = "workload", .doc_value = "crash",
	.table = report_crash_table, .findings = findings_crash, .answer = crash_answer,
};

#else
#error "a step kind is built by tools/kinds/meson.build, with DUTLAB_KIND_RUN or DUTLAB_KIND_REPORT"
#endif
