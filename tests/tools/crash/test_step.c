/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The crash step of dutlab run experiments (pure parts): its keys parse and
 * are checked, its command line carries them with the configuration's
 * [postgres] settings, the identify step's document and the work
 * directory; exit 1 is a result; and the campaign's result document is a
 * dutlab-result that the run report recognises as a crash document.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/cu_main.h"
#include "tools/crash/crash_result.h"
#include "tools/run/runner.h"
#include "tools/report/rundir_stats.h"

#define HEAD "[target t]\ntype = directory\npath = /tmp/x\n"

static char *join(char **v)
{
	size_t n = 1;
	char *s;

	for (size_t i = 0; v && v[i]; i++)
		n += strlen(v[i]) + 1;
	s = calloc(1, n);
	for (size_t i = 0; s && v && v[i]; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, v[i]);
	}
	return s;
}

static const struct {
	const char *name, *text, *want;   /* want: the command, or the parse error's text */
	bool ok;
	const char *pg_bindir;            /* the configuration's resolved PostgreSQL (runner_steps.c) */
} rows[] = {
	{ "defaults", HEAD "[step c]\ntype = crash\n",
	  "DUTLAB crash --states 45 --controls 2 --seed 1 --duration 4 --clients 4 --json J --workdir W", true },
	{ "every key, settings from [postgres], identify", HEAD
	  "[postgres]\nset = shared_buffers=64MB\nset = full_page_writes=off\n"
	  "[step id]\ntype = identify\n"
	  "[step c]\ntype = crash\nstates = 30\ncontrols = 0\nseed = 7\npoints = wal-write, time\n"
	  "losses = torn,subset\nclass-loss = wal=lose-none,data=torn\nsector = 4k\nidentify = id\nduration = 3s\n"
	  "clients = 2\n",
	  "DUTLAB crash --states 30 --controls 0 --seed 7 --points wal-write,time --losses torn,subset "
	  "--class-loss wal=lose-none,data=torn --sector 4096 --duration 3 --clients 2 --set shared_buffers=64MB --set full_page_writes=off "
	  "--identify ID.json --json J --workdir W", true },
	{ "the configuration's PostgreSQL, and the init point", HEAD
	  "[postgres]\nversion = 16\n[step c]\ntype = crash\npoints = init\n",
	  "DUTLAB crash --states 45 --controls 2 --seed 1 --points init --duration 4 --clients 4 "
	  "--bindir=/usr/lib/postgresql/16/bin --json J --workdir W", true, "/usr/lib/postgresql/16/bin" },
	{ "unknown point", HEAD "[step c]\ntype = crash\npoints = wal-writes\n", "points", false },
	{ "duration not whole seconds", HEAD "[step c]\ntype = crash\nduration = 1500ms\n", "whole seconds", false },
	{ "no states at all", HEAD "[step c]\ntype = crash\nstates = 0\ncontrols = 0\n", "at least one state", false },
	{ "raw refused", HEAD "[step c]\ntype = crash\nraw = yes\n", "filesystem", false },
	{ "sector not a size it takes", HEAD "[step c]\ntype = crash\nsector = 128k\n", "sector", false },
};

static void test_crash_step_keys_and_argv(void)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct dut_experiment *e = NULL;
		struct dut_error err = { "" };
		struct dut_plan *p = NULL;
		int r = dut_experiment_parse(rows[i].text, strlen(rows[i].text), "t.ini", &e, &err);

		if (!rows[i].ok) {
			CU_CHECK(r < 0 && strstr(err.msg, rows[i].want), "%s: parse %d, message \"%s\", want \"%s\"",
				 rows[i].name, r, err.msg, rows[i].want);
			dut_experiment_free(e);
			continue;
		}
		CU_CHECK(r == 0, "%s: parse failed: %s", rows[i].name, err.msg);
		if (r < 0)
			continue;
		CU_ASSERT_EQUAL_FATAL(dut_experiment_plan(e, &p), 0);
		{
			const struct dut_step *s = &e->steps[e->nsteps - 1];
			struct run_step_ctx c = { .dutlab = "DUTLAB", .cfg = &p->configs[0], .json_path = "J",
						  .probe_target = "W", .pg_bindir = rows[i].pg_bindir,
						  .identify_json = dut_step_param(s, "identify")->text ? "ID.json" : NULL };
			char **cmds[2] = { NULL, NULL };
			size_t n = 0;
			char *got;

			/* a campaign makes its own clusters: the configuration needs none */
			CU_CHECK(!p->configs[0].needs_cluster, "%s: the crash step asked for a cluster", rows[i].name);
			CU_ASSERT_EQUAL(run_step_supported(s, NULL), 0);
			CU_ASSERT_EQUAL_FATAL(run_step_argv(s, &c, cmds, &n, &err), 0);
			got = join(cmds[0]);
			CU_CHECK(n == 1 && strcmp(got, rows[i].want) == 0, "%s:\n  got  %s\n  want %s", rows[i].name, got,
				 rows[i].want);
			CU_CHECK(run_step_exit_is_result(s, 1) && !run_step_exit_is_result(s, 2) &&
				 !run_step_exit_is_result(s, 3), "%s: exit statuses", rows[i].name);
			free(got);
			run_strv_free(cmds[0]);
		}
		dut_plan_free(p);
		dut_experiment_free(e);
	}
}

static void test_other_steps_exit_1_is_a_failure(void)
{
	static const char text[] = HEAD "[step l]\ntype = oltp-init\nscale = 1\n";
	struct dut_experiment *e = NULL;
	struct dut_error err = { "" };

	CU_ASSERT_EQUAL_FATAL(dut_experiment_parse(text, strlen(text), "t.ini", &e, &err), 0);
	CU_ASSERT_FALSE(run_step_exit_is_result(&e->steps[0], 1));
	dut_experiment_free(e);
}

/* A campaign of three states (one damaged, one per control) as a dutlab-result document. */
static void test_result_document_reads_back_as_crash(void)
{
	struct crash_outcome o[3] = { 0 };
	struct crash_report rep = { .o = o, .n = 3, .only_state = -1, .template_ms = 1000, .elapsed_ms = 61000 };
	struct dut_result *res = NULL, *back = NULL;
	struct dut_result_phase *ph;
	struct dut_error err = { "" };
	char *text = NULL;
	double v = -1;
	json_object *x, *states;

	crash_campaign_defaults(&rep.c);
	rep.c.states = 1;
	rep.c.control_states = 1;
	for (unsigned i = 0; i < 3; i++) {
		crash_plan_state(&rep.c, i, &o[i].st);
		o[i].started = true;
		o[i].balances_ok = true;
		o[i].phase_ms[CRASH_PH_RECOVERY] = 100 * (i + 1);
	}
	o[0].lost = 5;          /* the regular state lost commits */
	o[1].started = false;   /* each control saw damage */
	o[2].lost = 9;
	for (unsigned i = 0; i < 3; i++)
		crash_outcome_judge(&o[i]);
	CU_ASSERT_EQUAL_FATAL(crash_report_result(&rep, "0.1.0", &res), 0);
	CU_ASSERT_EQUAL_FATAL(dut_result_to_string(res, &text), 0);
	CU_CHECK(dut_result_parse(text, strlen(text), &back, &err) == 0, "the document does not read back: %s", err.msg);
	if (!back)
		goto out;
	CU_ASSERT_STRING_EQUAL(dut_result_tool_name(back), "dutlab");
	CU_ASSERT_EQUAL(rundir_doc_kind_of(back), DOC_crash);
	CU_ASSERT_PTR_NOT_NULL(dut_result_find_phase(back, "template"));
	ph = dut_result_find_phase(back, "campaign");
	CU_ASSERT_PTR_NOT_NULL_FATAL(ph);
	CU_ASSERT(dut_phase_get_metric(ph, "states", &v, NULL) == 0 && v == 3);
	CU_ASSERT(dut_phase_get_metric(ph, "regular_damaged", &v, NULL) == 0 && v == 1);
	CU_ASSERT(dut_phase_get_metric(ph, "commits_lost", &v, NULL) == 0 && v == 5);   /* controls not counted */
	CU_ASSERT(dut_phase_get_metric(ph, "states_per_minute", &v, NULL) == 0 && v == 3);
	CU_ASSERT(dut_phase_get_metric(ph, "fpw_off_detected", &v, NULL) == 0 && v == 1);
	CU_ASSERT(dut_phase_get_metric(ph, "pass", &v, NULL) == 0 && v == 0);
	x = dut_phase_extra(ph);
	CU_ASSERT(json_object_object_get_ex(x, "states", &states) && json_object_array_length(states) == 3);
	CU_ASSERT(json_object_object_get_ex(x, "verdict", &states));
	CU_ASSERT(json_object_object_get_ex(dut_result_json(back), "states", NULL) == 0);
out:
	free(text);
	dut_result_free(back);
	dut_result_free(res);
}

/* A state re-run alone must get the campaign's settings and tearing unit, or it is another state. */
static void test_reproduce_keeps_settings_and_identify(void)
{
	static const char *const sets[] = { "fsync=off", "shared_buffers=64MB" };
	struct crash_report r = { .only_state = -1, .sets = sets, .nsets = 2, .identify = "/r/id.json" };
	char line[400];

	crash_campaign_defaults(&r.c);
	r.c.states = 2;
	r.c.control_states = 0;
	crash_repro_command(&r, 1, line, sizeof(line));
	CU_CHECK(strcmp(line, "dutlab crash --seed 1 --states 2 --controls 0 --set 'fsync=off' "
			      "--set 'shared_buffers=64MB' --identify '/r/id.json' --state 1") == 0, "got %s", line);
}

/*
 * The dry run says what is mounted: a crash-only experiment starts no
 * cluster, so the run mounts no dutfs view of its own (nothing traced); the
 * campaign mounts its own per state.  With a PostgreSQL step beside it the
 * run's traced view is there too.
 */
static void test_dry_run_says_what_is_mounted(void)
{
	static const struct { const char *text, *want, *not; } plans[] = {
		{ HEAD "[step c]\ntype = crash\n",
		  "dutfs: no mount of the run's own (no step runs PostgreSQL on it); step c mounts dutfs itself for "
		  "each of its states (view syscall, the state's fault rules, no trace)\n", "tracing on" },
		{ HEAD "[step l]\ntype = oltp-init\nscale = 1\n[step c]\ntype = crash\n",
		  "dutfs: view device, tracing on; step c mounts dutfs itself for each of its states", "no mount" },
	};

	for (size_t i = 0; i < sizeof(plans) / sizeof(plans[0]); i++) {
		struct dut_experiment *e = NULL;
		struct dut_error err = { "" };
		struct dut_plan *p = NULL;
		char *txt = NULL;
		size_t len = 0;
		FILE *f;

		CU_ASSERT_EQUAL_FATAL(dut_experiment_parse(plans[i].text, strlen(plans[i].text), "t.ini", &e, &err), 0);
		CU_ASSERT_EQUAL_FATAL(dut_experiment_plan(e, &p), 0);
		f = open_memstream(&txt, &len);
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		dutlab_run_print_plan(p, f);
		fclose(f);
		CU_CHECK(strstr(txt, plans[i].want) && !strstr(txt, plans[i].not), "row %zu: %s", i, txt);
		free(txt);
		dut_plan_free(p);
		dut_experiment_free(e);
	}
}

static const struct cu_test tests[] = {
	{ "reproduce_keeps_settings_and_identify", test_reproduce_keeps_settings_and_identify },
	{ "crash_step_keys_and_argv", test_crash_step_keys_and_argv },
	{ "other_steps_exit_1_is_a_failure", test_other_steps_exit_1_is_a_failure },
	{ "result_document_reads_back_as_crash", test_result_document_reads_back_as_crash },
	{ "dry_run_says_what_is_mounted", test_dry_run_says_what_is_mounted },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "crash-step", .tests = tests };
