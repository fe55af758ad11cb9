/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The runner's pure parts (tools/run/runner.h): step command lines from
 * step parameters, the ETA, manifest.json, the cleanup stack's order, the
 * names of run directories.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lib/redact.h"
#include "tests/cu_main.h"
#include "tools/run/runner.h"

#define S 1000000000ull

static struct dut_experiment *parse(const char *text)
{
	struct dut_experiment *e = NULL;
	struct dut_error err = { "" };
	int r = dut_experiment_parse(text, strlen(text), "t.ini", &e, &err);

	CU_CHECK(r == 0, "parse failed (%d): %s", r, err.msg);
	return e;
}

static char *join(char **v)
{
	size_t n = 1;
	char *s;

	for (size_t i = 0; v && v[i]; i++)
		n += strlen(v[i]) + 1;
	s = calloc(1, n);
	for (size_t i = 0; v && v[i]; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, v[i]);
	}
	return s;
}

#define HEAD "[target t]\ntype = directory\npath = /tmp/x\n"

static const struct {
	const char *name, *text;
	size_t step;
	bool relmap;
	const char *want[2];    /* the commands, joined by blanks */
	const char *pg_bindir;  /* the configuration's PostgreSQL, as the checks found it */
} argv_rows[] = {
	{ "oltp-init with every option", HEAD "[step load]\ntype = oltp-init\nscale = 10\njobs = 2\nfillfactor = 90\n",
	  0, true, { "PGLOAD init --pgdata /m/pgdata -s 10 --jobs 2 --fillfactor 90 --json J "
		     "--dutfs-control /dev/null --relmap R" } },
	{ "oltp-run: scripts with weights, defaults passed", HEAD
	  "[step l]\ntype = oltp-init\nscale = 1\n"
	  "[step rw]\ntype = oltp-run\nscript = tpcb-like@3, select-only\nclients = 8\nthreads = 2\n"
	  "duration = 30s\nprogress = 10s\nrate = 100.5\n",
	  1, false, { "PGLOAD run --pgdata /m/pgdata -b tpcb-like@3 -b select-only -c 8 -j 2 -T 30 -R 100.5 "
		      "-M simple -P 10 --json J --dutfs-control /dev/null" } },
	{ "oltp-run with transactions", HEAD "[step l]\ntype = oltp-init\nscale = 1\n"
	  "[step ro]\ntype = oltp-run\nscript = select-only\ntransactions = 10\nclients = 4\nthreads = 4\n"
	  "protocol = prepared\nmax-tries = 3\nseed = 7\n",
	  1, false, { "PGLOAD run --pgdata /m/pgdata -b select-only -c 4 -j 4 -t 10 -M prepared --max-tries 3 "
		      "--seed 7 --json J --dutfs-control /dev/null" } },
	{ "dss: lists without blanks, duration as seconds", HEAD
	  "[step d]\ntype = dss\nscale = 0.05\nphases = load, keys\nqueries = 1, 3-5\ntimeout = 90s\n",
	  0, false, { "PGLOAD dss -d CONN --pgdata /m/pgdata -s 0.05 --phases load,keys --queries 1,3-5 "
		      "--reps 1 --timeout 90 --json J" } },
	{ "bench on a file: sizes in bytes, sub-second durations in ms, booleans as flags", HEAD
	  "[step b]\ntype = bench\nsize = 64M\ntime = 500ms\nreps = 2\nread-only = yes\n",
	  0, false, { "DUTPROBE bench --time 500ms --warmup 1 --reps 2 --read-only --size 67108864 --json J /d/f" } },
	{ "slc: no-trim false is not passed", HEAD
	  "[step s]\ntype = slc\nsize = 1G\nidle = 30s\n",
	  0, false, { "DUTPROBE slc --bs 1048576 --qd 8 --window 67108864 --idle 30 --size 1073741824 --json J /d/f" } },
	{ "fill: lists of levels and queue depths", HEAD
	  "[step f]\ntype = fill\nsize = 256M\nlevels = 30%, 60%\nqd = 1, 8\nround-time = 2s\nmax-rounds = 3\n",
	  0, false, { "DUTPROBE fill --levels 30%,60% --qd 1,8 --bs 16384 --round-time 2 --max-rounds 3 "
		      "--size 268435456 --json J /d/f" } },
	{ "restore of self: a dump first, then the timed restore", HEAD
	  "[step l]\ntype = oltp-init\nscale = 1\n[step r]\ntype = restore\njobs = 2\n",
	  1, false, { "PGLOAD restore dump --source CONN --out DUMP",
		      "PGLOAD restore run --dump DUMP --pgdata /m/pgdata -j 2 --dbname restored --clean --json J" } },
	{ "restore on the configuration's PostgreSQL: pg_dump and pg_restore of its major", HEAD
	  "[step l]\ntype = oltp-init\nscale = 1\n[step r]\ntype = restore\njobs = 2\n",
	  1, false, { "PGLOAD restore dump --source CONN --out DUMP --bindir=/pg/16/bin",
		      "PGLOAD restore run --dump DUMP --pgdata /m/pgdata -j 2 --dbname restored --clean "
		      "--bindir=/pg/16/bin --json J" }, "/pg/16/bin" },
};

static void test_step_argv_from_params(void)
{
	for (size_t i = 0; i < DUT_ARRAY_SIZE(argv_rows); i++) {
		struct dut_experiment *e = parse(argv_rows[i].text);
		struct dut_plan *p = NULL;
		char **cmds[2] = { NULL, NULL };
		struct dut_error err = { "" };
		size_t n = 0;

		if (!e)
			continue;
		CU_ASSERT_EQUAL_FATAL(dut_experiment_plan(e, &p), 0);
		struct run_step_ctx c = {
			.pgload = "PGLOAD", .dutprobe = "DUTPROBE", .cfg = &p->configs[0],
			.pgdata = "/m/pgdata", .conninfo = "CONN", .probe_target = "/d/f", .json_path = "J",
			.relmap_path = argv_rows[i].relmap ? "R" : NULL, .dump_path = "DUMP", .dump_is_self = true,
			.pg_bindir = argv_rows[i].pg_bindir,
		};
		int r = run_step_argv(&e->steps[argv_rows[i].step], &c, cmds, &n, &err);

		CU_CHECK(r == 0, "%s: run_step_argv %d: %s", argv_rows[i].name, r, err.msg);
		for (size_t k = 0; r == 0 && k < 2; k++) {
			char *got = k < n ? join(cmds[k]) : NULL;
			const char *want = argv_rows[i].want[k];

			CU_CHECK((!got && !want) || (got && want && strcmp(got, want) == 0),
				 "%s: command %zu:\n  got  %s\n  want %s", argv_rows[i].name, k,
				 got ? got : "(none)", want ? want : "(none)");
			free(got);
			run_strv_free(cmds[k]);
		}
		dut_plan_free(p);
		dut_experiment_free(e);
	}
}

/*
 * The step-kind table (tools/run/steps/steps.c, from tools/kinds/): every
 * kind complete, and the fields the planner and runner ask instead of a
 * kind's name say what the name-keyed special cases used to: identify only
 * reads and describes the device, crash has a work directory and clusters of
 * its own and exit 1 is a finding, restore restores, oltp-init places
 * tables, pgload writes relmaps.  The kinds below are checked by name and in
 * their order; a kind added later needs no row here to pass (it is one file
 * and one row in tools/kinds/meson.build), only the checks every kind gets.
 */
static void test_step_kind_table(void)
{
	static const struct {
		const char *name;
		bool probe, reads_only, identify, workdir, own_clusters, runs_dutlab, places_tables, restores, relmap;
		int result_exit;
	} want[] = {
		{ "identify", .probe = true, .reads_only = true, .identify = true },
		{ "bench", .probe = true },
		{ "slc", .probe = true },
		{ "fill", .probe = true },
		{ "oltp-init", .places_tables = true, .relmap = true },
		{ "oltp-run", .relmap = true },
		{ "dss", .relmap = true },
		{ "restore", .restores = true },
		{ "crash", .probe = true, .workdir = true, .own_clusters = true, .runs_dutlab = true, .result_exit = 1 },
	};
	size_t at = 0;

	CU_ASSERT(dut_step_ntypes >= DUT_ARRAY_SIZE(want));
	CU_ASSERT_PTR_NULL(dut_step_types[dut_step_ntypes]);
	for (size_t w = 0; w < DUT_ARRAY_SIZE(want); w++) {
		const struct dut_step_type *t = dut_step_type_find(want[w].name);
		size_t i = at;

		CU_CHECK(t != NULL, "%s: not in the table", want[w].name);
		if (!t)
			continue;
		while (i < dut_step_ntypes && dut_step_types[i] != t)
			i++;
		CU_CHECK(i < dut_step_ntypes, "%s: listed before %s", want[w].name, w ? want[w - 1].name : "");
		at = i < dut_step_ntypes ? i : at;
		CU_CHECK(t->probe == want[w].probe && t->reads_only == want[w].reads_only &&
			 t->identify == want[w].identify && t->workdir == want[w].workdir &&
			 t->own_clusters == want[w].own_clusters && t->runs_dutlab == want[w].runs_dutlab &&
			 t->places_tables == want[w].places_tables && t->restores == want[w].restores &&
			 t->relmap == want[w].relmap && t->result_exit == want[w].result_exit,
			 "%s: its fields differ from what the runner and planner expect of it", t->name);
	}
	for (size_t i = 0; i < dut_step_ntypes; i++) {
		const struct dut_step_type *t = dut_step_types[i];

		CU_CHECK(t->name && dut_step_type_find(t->name) == t, "row %zu: not found by its name", i);
		CU_CHECK(t->tool && t->summary && t->estimate_ns && t->space_bytes && t->argv,
			 "%s: a kind needs a tool, a summary, estimates and an argv op", t->name);
		CU_CHECK(!(t->reads_only || t->workdir) || t->probe, "%s: reads_only and workdir are for probe kinds",
			 t->name);
		for (size_t k = 0; k < i; k++)
			CU_CHECK(strcmp(dut_step_types[k]->name, t->name) != 0, "%s: listed twice", t->name);
		for (size_t k = 0; k < t->nparams; k++)
			CU_CHECK(t->params[k].key && t->params[k].help, "%s: parameter %zu without key or help",
				 t->name, k);
	}
	CU_ASSERT_PTR_NULL(dut_step_type_find("nope"));
}

/* What the probe kinds' argv says about raw targets, and the crash kind's
 * command line: identify only reads, so no --destructive; bench writes. */
static void test_step_argv_raw_and_crash(void)
{
	static const struct {
		const char *name, *text;
		bool raw;
		const char *want;
	} rows[] = {
		{ "identify on a raw device: read only", HEAD "[step i]\ntype = identify\n", true,
		  "DUTPROBE identify --json J /d/f" },
		{ "identify on a filesystem", HEAD "[step i]\ntype = identify\n", false,
		  "DUTPROBE identify --json J /d/f" },
		{ "bench on a raw device: --destructive, no --size", HEAD "[step b]\ntype = bench\nsize = 64M\n", true,
		  "DUTPROBE bench --time 5 --warmup 1 --reps 3 --destructive --json J /d/f" },
		{ "crash: its keys, its document, its work directory", HEAD "[step c]\ntype = crash\nstates = 3\n", false,
		  "DUTLAB crash --states 3 --controls 2 --seed 1 --duration 4 --clients 4 --identify ID "
		  "--json J --workdir /d/f" },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		struct dut_experiment *e = parse(rows[i].text);
		struct dut_plan *p = NULL;
		char **cmds[2] = { NULL, NULL };
		struct dut_error err = { "" };
		size_t n = 0;

		if (!e)
			continue;
		CU_ASSERT_EQUAL_FATAL(dut_experiment_plan(e, &p), 0);
		e->steps[0].raw = rows[i].raw;
		struct run_step_ctx c = {
			.pgload = "PGLOAD", .dutprobe = "DUTPROBE", .dutlab = "DUTLAB", .cfg = &p->configs[0],
			.probe_target = "/d/f", .json_path = "J", .identify_json = "ID",
		};
		int r = run_step_argv(&e->steps[0], &c, cmds, &n, &err);

		CU_CHECK(r == 0 && n == 1, "%s: run_step_argv %d (%zu commands): %s", rows[i].name, r, n, err.msg);
		if (r == 0) {
			char *got = join(cmds[0]);

			CU_CHECK(strcmp(got, rows[i].want) == 0, "%s:\n  got  %s\n  want %s", rows[i].name, got,
				 rows[i].want);
			free(got);
			for (size_t k = 0; k < n; k++)
				run_strv_free(cmds[k]);
		}
		dut_plan_free(p);
		dut_experiment_free(e);
	}
}

static void test_matrix_placement_reaches_oltp_init(void)
{
	static const char text[] =
		"[target a]\ntype = directory\npath = /a\n[target b]\ntype = directory\npath = /b\n"
		"[tablespace fastts]\ntarget = b\n"
		"[matrix]\ntables-on = default, fastts\n"
		"[step load]\ntype = oltp-init\nscale = 1\n";
	static const char *const want[] = {
		"P init --pgdata D -s 1 --json J --dutfs-control /dev/null",
		"P init --pgdata D -s 1 --tables-on fastts --json J --dutfs-control /dev/null",
	};
	struct dut_experiment *e = parse(text);
	struct dut_plan *p = NULL;

	if (!e)
		return;
	CU_ASSERT_EQUAL_FATAL(dut_experiment_plan(e, &p), 0);
	CU_ASSERT_EQUAL_FATAL(p->nconfigs, 2);
	for (size_t i = 0; i < 2; i++) {
		struct run_step_ctx c = { .pgload = "P", .cfg = &p->configs[i], .pgdata = "D", .json_path = "J" };
		char **cmds[2] = { NULL, NULL };
		size_t n = 0;
		char *got;

		CU_ASSERT_EQUAL_FATAL(run_step_argv(&e->steps[0], &c, cmds, &n, NULL), 0);
		got = join(cmds[0]);
		CU_CHECK(strcmp(got, want[i]) == 0, "config %zu: got %s", i, got);
		free(got);
		run_strv_free(cmds[0]);
	}
	dut_plan_free(p);
	dut_experiment_free(e);
}

static void test_restore_formats_other_than_custom_are_refused(void)
{
	struct dut_experiment *e = parse(HEAD "[step l]\ntype = oltp-init\nscale = 1\n"
					 "[step r]\ntype = restore\nformat = directory\n");
	struct dut_error err = { "" };

	if (!e)
		return;
	CU_ASSERT_EQUAL(run_step_supported(&e->steps[0], NULL), 0);
	CU_ASSERT_EQUAL(run_step_supported(&e->steps[1], &err), -ENOTSUP);
	CU_CHECK(strstr(err.msg, "custom") != NULL, "message: %s", err.msg);
	CU_ASSERT(run_step_writes_relmap(&e->steps[0]));
	CU_ASSERT(!run_step_writes_relmap(&e->steps[1]));
	dut_experiment_free(e);
}

static void test_duration_args(void)
{
	static const struct { uint64_t ns; const char *want; } rows[] = {
		{ 30 * S, "30" }, { 0, "0" }, { S / 2, "500ms" }, { 1500000000ull, "1500ms" }, { 100000000ull, "100ms" },
	};
	char buf[32];

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		run_fmt_duration_arg(rows[i].ns, buf, sizeof(buf));
		CU_CHECK(strcmp(buf, rows[i].want) == 0, "%llu ns: got %s, want %s",
			 (unsigned long long)rows[i].ns, buf, rows[i].want);
	}
}

/* ---- ETA ---- */

static void test_eta_scales_by_measured_time(void)
{
	struct dut_plan_item items[5] = {
		{ .kind = DUT_PLAN_SETUP, .est_ns = 10 * S },
		{ .kind = DUT_PLAN_STEP, .step = 0, .est_ns = 20 * S },
		{ .kind = DUT_PLAN_STEP, .step = 1, .est_ns = 30 * S },
		{ .kind = DUT_PLAN_SETUP, .rep = 1, .est_ns = 10 * S },
		{ .kind = DUT_PLAN_STEP, .rep = 1, .step = 0, .est_ns = 20 * S },
	};
	struct dut_plan plan = { .items = items, .nitems = 5 };
	struct run_progress p;

	CU_ASSERT_EQUAL_FATAL(run_progress_init(&p, &plan), 0);
	/* nothing done: the estimates as they are */
	CU_ASSERT_EQUAL(run_progress_left_ns(&p, 0, 0), 90 * S);
	/* setup took twice its estimate: the next setup scales by 2, steps do not */
	p.state[0] = RUN_ITEM_DONE;
	p.actual_ns[0] = 20 * S;
	CU_ASSERT_EQUAL(run_progress_left_ns(&p, 1, 0), 90 * S);
	/* 10 s into item 1 */
	CU_ASSERT_EQUAL(run_progress_left_ns(&p, 1, 10 * S), 80 * S);
	/* an overrunning item has nothing (not a negative time) left */
	CU_ASSERT_EQUAL(run_progress_left_ns(&p, 1, 100 * S), 70 * S);
	/* step 0 took half: its next run scales by 1/2, step 1 keeps its estimate */
	p.state[1] = RUN_ITEM_DONE;
	p.actual_ns[1] = 10 * S;
	CU_ASSERT_EQUAL(run_progress_left_ns(&p, 2, 0), 60 * S);
	/* skipped items count neither way */
	p.state[2] = RUN_ITEM_SKIPPED;
	CU_ASSERT_EQUAL(run_progress_left_ns(&p, 2, 0), 30 * S);
	/* the ratio is bounded: 100x slower counts as 4x */
	p.actual_ns[0] = 1000 * S;
	p.actual_ns[1] = 2000 * S;
	CU_ASSERT_EQUAL(run_progress_left_ns(&p, 3, 0), 120 * S);
	/* and 1000x faster as 1/4 */
	p.actual_ns[0] = 0;
	p.actual_ns[1] = 1;
	CU_ASSERT_EQUAL(run_progress_left_ns(&p, 3, 0), 7500 * (S / 1000));
	run_progress_free(&p);
}

/*
 * An interleaved plan (2 configurations x 2 repetitions): once the first
 * block (c0 rep 1) ran at twice its estimates, every pending setup and run
 * of the same step, in either configuration, is expected to take twice as
 * long; the time left is the sum over the items after the current one,
 * wherever the order put them.
 */
static void test_eta_over_an_interleaved_plan(void)
{
	static const char text[] = "[experiment]\nrepetitions = 2\n[target t]\ntype = directory\npath = /tmp/x\n"
				   "[matrix]\nview = device, syscall\n[step b]\ntype = bench\nsize = 64M\n";
	struct dut_experiment *e = NULL;
	struct dut_plan *plan = NULL;
	struct dut_error err = { "" };
	struct run_progress p;
	uint64_t rest = 0;

	CU_ASSERT_EQUAL_FATAL(dut_experiment_parse(text, strlen(text), "t.ini", &e, &err), 0);
	CU_ASSERT_EQUAL_FATAL(dut_experiment_plan(e, &plan), 0);
	CU_ASSERT_EQUAL_FATAL(plan->nitems, 8);
	CU_ASSERT(plan->items[2].config == 1 && plan->items[2].rep == 0);  /* interleaved */
	CU_ASSERT_EQUAL_FATAL(run_progress_init(&p, plan), 0);
	CU_ASSERT_EQUAL(run_progress_left_ns(&p, 0, 0), plan->est_ns);
	for (size_t i = 0; i < 2; i++) {
		p.state[i] = RUN_ITEM_DONE;
		p.actual_ns[i] = 2 * plan->items[i].est_ns;
	}
	for (size_t i = 2; i < plan->nitems; i++)
		rest += plan->items[i].est_ns;
	CU_ASSERT_EQUAL(run_progress_left_ns(&p, 2, 0), 2 * rest);
	run_progress_free(&p);
	dut_plan_free(plan);
	dut_experiment_free(e);
}

static void test_duration_format(void)
{
	static const struct { uint64_t ns; const char *want; } rows[] = {
		{ 0, "0.0s" }, { 400000000ull, "0.4s" }, { 9 * S, "9.0s" }, { 42 * S, "42s" },
		{ 185 * S, "3m05s" }, { 3720 * S, "1h02m" },
	};
	char buf[32];

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		run_fmt_duration(rows[i].ns, buf, sizeof(buf));
		CU_CHECK(strcmp(buf, rows[i].want) == 0, "%llu ns: got %s, want %s",
			 (unsigned long long)rows[i].ns, buf, rows[i].want);
	}
}

/* ---- cleanup stack ---- */

struct undo_log {
	char order[32];
	size_t n;
};

struct undo_item {
	struct undo_log *log;
	char id;
	int ret;
};

static int undo_record(void *arg, struct dut_error *err)
{
	struct undo_item *u = arg;

	u->log->order[u->log->n++] = u->id;
	if (u->ret < 0)
		dut_error_set(err, "undo %c failed", u->id);
	return u->ret;
}

static void report_count(const char *label, int ret, const struct dut_error *err, void *ctx)
{
	(*(unsigned *)ctx) += ret < 0 && strstr(err->msg, "failed") != NULL;
}

static void test_cleanup_stack_unwinds_lifo_and_keeps_going(void)
{
	struct undo_log log = { "", 0 };
	struct undo_item items[] = {
		{ &log, 'a', 0 }, { &log, 'b', -EBUSY }, { &log, 'c', 0 }, { &log, 'd', 0 },
	};
	struct run_cleanup c = { 0 };
	unsigned reported = 0;

	for (size_t i = 0; i < DUT_ARRAY_SIZE(items); i++) {
		char label[16];

		snprintf(label, sizeof(label), "undo %c", items[i].id);
		CU_ASSERT_EQUAL_FATAL(run_cleanup_push(&c, label, undo_record, &items[i], NULL), 0);
	}
	/* a failing action (b) does not stop the ones under it (a) */
	CU_ASSERT_EQUAL(run_cleanup_unwind(&c, report_count, &reported), 1);
	CU_ASSERT_STRING_EQUAL(log.order, "dcba");
	CU_ASSERT_EQUAL(reported, 1);
	CU_ASSERT_EQUAL(c.n, 0);
	/* unwinding an empty stack does nothing; the stack is reusable */
	CU_ASSERT_EQUAL(run_cleanup_unwind(&c, NULL, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(run_cleanup_push(&c, "again", undo_record, &items[0], NULL), 0);
	CU_ASSERT_EQUAL(run_cleanup_unwind(&c, NULL, NULL), 0);
	CU_ASSERT_STRING_EQUAL(log.order, "dcbaa");
	run_cleanup_free(&c);
}

static int undo_nothing(void *arg, struct dut_error *err)
{
	return 0;
}

static void test_cleanup_stack_frees_owned_args(void)
{
	struct run_cleanup c = { 0 };

	/* ASan (the unit suite runs under it in CI) sees a leak if these are not freed */
	for (int i = 0; i < 20; i++)
		CU_ASSERT_EQUAL_FATAL(run_cleanup_push(&c, "x", undo_nothing, malloc(16), free), 0);
	CU_ASSERT_EQUAL(run_cleanup_unwind(&c, NULL, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(run_cleanup_push(&c, "y", undo_nothing, malloc(16), free), 0);
	run_cleanup_free(&c);
}

/* ---- names and the manifest ---- */

static void test_config_dirnames(void)
{
	static const struct { unsigned i; const char *name, *want; } rows[] = {
		{ 0, "default", "c00-default" },
		{ 7, "ext4-journal+syscall", "c07-ext4-journal+syscall" },
		{ 12, "tables=slowts+indexes=fastts", "c12-tables_slowts+indexes_fastts" },
		{ 3, "shape=../x/hdd.ini", "c03-shape_.._x_hdd.ini" },
		{ 100, "..", "c100-__" },
	};
	char buf[64];

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		CU_ASSERT_EQUAL_FATAL(run_config_dirname(rows[i].i, rows[i].name, buf, sizeof(buf)), 0);
		CU_CHECK(strcmp(buf, rows[i].want) == 0, "%s: got %s, want %s", rows[i].name, buf, rows[i].want);
	}
	CU_ASSERT_EQUAL(run_config_dirname(1, "a-long-name", buf, 8), -ENAMETOOLONG);
}

static const char *jstr(json_object *o, const char *path)
{
	/* "a.b.c" through objects; "configs.0" style indexes into arrays */
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, ".", &save); k && o; k = strtok_r(NULL, ".", &save)) {
		if (json_object_is_type(o, json_type_array))
			o = json_object_array_get_idx(o, (size_t)atoi(k));
		else if (!json_object_object_get_ex(o, k, &o))
			return NULL;
	}
	return o ? json_object_get_string(o) : NULL;
}

static void test_manifest_document(void)
{
	static const char text[] =
		"[experiment]\nname = m\ndescription = two filesystems\nrepetitions = 2\n"
		"[target t]\ntype = directory\npath = /tmp/x\n"
		"[postgres]\nmemory = 64MiB\n"
		"[matrix]\nset.work_mem = 4MB, 64MB\n"
		"[step load]\ntype = oltp-init\nscale = 1\n"
		"[step rw]\ntype = oltp-run\nduration = 5s\nrepeat = 2\n";
	static const struct { const char *path, *want; } rows[] = {
		{ "schema", "dutlab-run" },
		{ "schema_version", "1" },
		{ "experiment.name", "m" },
		{ "experiment.description", "two filesystems" },
		{ "experiment.source", "t.ini" },
		{ "experiment.repetitions", "2" },
		{ "started_at", "2026-11-30T08:00:00Z" },
		{ "status", "running" },
		{ "dimensions.0.key", "set.work_mem" },
		{ "dimensions.0.values.1", "64MB" },
		{ "configs.1.index", "1" },
		{ "configs.1.name", "work_mem=64MB" },
		{ "configs.1.dir", "c01-work_mem_64MB" },
		{ "configs.1.dims.set.work_mem", NULL },  /* the key has a dot: looked up below */
		{ "configs.1.view", "device" },
		{ "configs.1.replica", "none" },
		{ "configs.1.settings.work_mem", "64MB" },
		{ "configs.1.memory_budget_bytes", "67108864" },
		{ "configs.0.postgres.major", "16" },
		{ "configs.0.postgres.version", "postgres (PostgreSQL) 16.4" },
		{ "configs.0.postgres.bindir", "/usr/lib/postgresql/16/bin" },
		{ "configs.0.reps.0.memory.budget_bytes", "67108864" },
		{ "configs.0.reps.0.memory.database_bytes", "268435456" },
		{ "configs.0.reps.0.memory.peak_bytes", "67100000" },
		{ "configs.0.reps.0.memory.database_per_budget", "4.0" },
		{ "configs.0.status", "failed" },
		{ "configs.0.reason", "mkfs.btrfs is not installed" },
		{ "configs.0.reps.1.rep", "2" },
		{ "configs.0.reps.1.dir", "c00-work_mem_4MB/rep2" },
		{ "configs.0.reps.0.status", "complete" },
		{ "configs.0.reps.0.steps.0.name", "load" },
		{ "configs.0.reps.0.steps.0.type", "oltp-init" },
		{ "configs.0.reps.0.steps.0.tool", "pgload" },
		{ "configs.0.reps.0.steps.0.status", "ok" },
		{ "configs.0.reps.0.steps.0.exit_code", "0" },
		{ "configs.0.reps.0.steps.0.argv.1", "init" },
		{ "configs.0.reps.0.steps.0.wall_ns", "1500000000" },
		{ "configs.0.reps.0.steps.0.results.0", "load.json" },
		{ "configs.0.reps.0.steps.1.results.1", "rw.2.json" },
		{ "configs.0.reps.0.steps.1.logs.0", "rw.1.log" },
		{ "configs.0.reps.0.steps.1.status", "skipped" },
		{ "configs.0.reps.0.artifacts.trace", "trace.dtr" },
		{ "configs.0.reps.0.artifacts.relmap", "relmap.json" },
		{ "configs.0.reps.1.steps.0.exit_code", NULL },
		{ "host.cpus", "2" },
	};
	struct dut_experiment *e = parse(text);
	struct dut_plan *p = NULL;
	struct run_state *st = NULL;
	json_object *m, *dims = NULL, *v = NULL;
	char *argv[] = { "pgload", "init", NULL };

	if (!e)
		return;
	CU_ASSERT_EQUAL_FATAL(dut_experiment_plan(e, &p), 0);
	CU_ASSERT_EQUAL_FATAL(run_state_new(p, "t.ini", "/r", &st), 0);
	snprintf(st->started_at, sizeof(st->started_at), "2026-11-30T08:00:00Z");
	st->status = RUN_RUNNING;
	st->have_host = true;
	st->host.cpus = 2;
	st->cfgs[0].status = RUN_FAILED;
	run_set_text(&st->cfgs[0].reason, "%s", "mkfs.btrfs is not installed");
	st->cfgs[0].pg.major = 16;
	snprintf(st->cfgs[0].pg.version, sizeof(st->cfgs[0].pg.version), "postgres (PostgreSQL) 16.4");
	snprintf(st->cfgs[0].pg.bindir, sizeof(st->cfgs[0].pg.bindir), "/usr/lib/postgresql/16/bin");
	st->cfgs[0].reps[0].status = RUN_COMPLETE;
	st->cfgs[0].reps[0].steps[0].status = RUN_COMPLETE;
	st->cfgs[0].reps[0].steps[0].exit_code = 0;
	st->cfgs[0].reps[0].steps[0].wall_ns = 1500000000ull;
	st->cfgs[0].reps[0].steps[0].argv = run_strv_copy(argv);
	run_list_add(&st->cfgs[0].reps[0].steps[0].results, "load.json");
	run_list_add(&st->cfgs[0].reps[0].steps[1].results, "rw.1.json");
	run_list_add(&st->cfgs[0].reps[0].steps[1].results, "rw.2.json");
	run_list_add(&st->cfgs[0].reps[0].steps[1].logs, "rw.1.log");
	st->cfgs[0].reps[0].steps[1].status = RUN_SKIPPED;
	st->cfgs[0].reps[0].mem.budget_bytes = 64ull << 20;
	st->cfgs[0].reps[0].mem.database_bytes = 256ull << 20;
	st->cfgs[0].reps[0].mem.peak_bytes = 67100000;
	run_rep_add_artifact(&st->cfgs[0].reps[0], "trace", "trace.dtr");
	run_rep_add_artifact(&st->cfgs[0].reps[0], "relmap", "x.json");
	run_rep_add_artifact(&st->cfgs[0].reps[0], "relmap", "relmap.json");   /* replaces */
	m = run_manifest_json(st);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		const char *got = jstr(m, rows[i].path);

		if (!rows[i].want)
			continue;
		CU_CHECK(got && strcmp(got, rows[i].want) == 0, "%s: got %s, want %s", rows[i].path,
			 got ? got : "(absent)", rows[i].want);
	}
	/* no finished_at while running; null exit code before a step ran */
	CU_ASSERT(!json_object_object_get_ex(m, "finished_at", NULL));
	CU_ASSERT_PTR_NULL(jstr(m, "configs.0.reps.1.steps.0.exit_code"));
	/* a repetition whose budget was not read back: nulls, not zeros */
	CU_ASSERT_PTR_NULL(jstr(m, "configs.0.reps.1.memory.budget_bytes"));
	CU_ASSERT_PTR_NULL(jstr(m, "configs.0.reps.1.memory.database_per_budget"));
	/* a configuration whose PostgreSQL is not known (yet): null */
	{
		json_object *pg = (json_object *)1;

		CU_ASSERT(json_pointer_get(m, "/configs/1/postgres", &pg) == 0 && pg == NULL);
	}
	{
		json_object *arts = NULL;

		CU_ASSERT(json_pointer_get(m, "/configs/0/reps/0/artifacts", &arts) == 0 && arts &&
			  json_object_object_length(arts) == 2);
	}
	json_object_object_get_ex(json_object_array_get_idx(json_object_object_get(m, "configs"), 1), "dims", &dims);
	CU_ASSERT(dims && json_object_object_get_ex(dims, "set.work_mem", &v) &&
		  strcmp(json_object_get_string(v), "64MB") == 0);
	json_object_put(m);
	run_state_free(st);
	dut_plan_free(p);
	dut_experiment_free(e);
}

/* [dutfs] trace-max and [experiment] progress/report-every reach the manifest and the dry run */
static void test_soak_keys_in_manifest_and_plan(void)
{
	static const char *const texts[2] = {
		"[experiment]\nprogress = 30s\nreport-every = 10m\n" HEAD
		"[dutfs]\ntrace-max = 64MiB\n[step rw]\ntype = oltp-run\nduration = 8h\n",
		HEAD "[step rw]\ntype = oltp-run\nduration = 5s\n",
	};

	for (int k = 0; k < 2; k++) {
		struct dut_experiment *e = parse(texts[k]);
		struct dut_plan *p = NULL;
		struct run_state *st = NULL;
		json_object *m;
		char *txt = NULL;
		size_t len = 0;
		FILE *f;
		const char *mb, *seg, *prog, *rep;

		if (!e)
			continue;
		CU_ASSERT_EQUAL_FATAL(dut_experiment_plan(e, &p), 0);
		CU_ASSERT_EQUAL_FATAL(run_state_new(p, "t.ini", "/r", &st), 0);
		m = run_manifest_json(st);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		mb = jstr(m, "configs.0.trace_max_bytes");
		seg = jstr(m, "configs.0.trace_segments");
		prog = jstr(m, "experiment.progress_ns");
		rep = jstr(m, "experiment.report_every_ns");
		f = open_memstream(&txt, &len);
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		dutlab_run_print_plan(p, f);
		fclose(f);
		if (k == 0) {
			CU_CHECK(mb && strcmp(mb, "67108864") == 0 && seg && strcmp(seg, "4") == 0,
				 "trace_max_bytes %s, trace_segments %s", mb ? mb : "(absent)", seg ? seg : "(absent)");
			CU_CHECK(prog && strcmp(prog, "30000000000") == 0 && rep && strcmp(rep, "600000000000") == 0,
				 "progress_ns %s, report_every_ns %s", prog ? prog : "(absent)", rep ? rep : "(absent)");
			CU_CHECK(strstr(txt, "tracing on (each trace kept within 64 MiB in 4 segments, --trace-max)") &&
				 strstr(txt, "while a step runs: a progress line every 30s; report.md rewritten (a "
					"partial report) every 10m00s"), "plan: %s", txt);
		} else {
			CU_CHECK(!mb && !seg && !prog && !rep, "soak keys in a manifest without them");
			CU_CHECK(!strstr(txt, "--trace-max") && !strstr(txt, "while a step runs"), "plan: %s", txt);
		}
		free(txt);
		json_object_put(m);
		run_state_free(st);
		dut_plan_free(p);
		dut_experiment_free(e);
	}
}

static void test_replica_lag_collected_per_step(void)
{
	static const char doc1[] =
		"{\"schema\":\"dutlab-result\",\"phases\":[{\"name\":\"run\",\"series\":{"
		"\"per_second\":{\"columns\":[\"t_s\",\"tps\"],\"rows\":[[1,5]]},"
		"\"replica_lag\":{\"columns\":[\"t_s\",\"replay_lag_ms\"],\"rows\":[[1,2.5],[2,3.5]]}}}]}";
	static const char doc_without[] =
		"{\"schema\":\"dutlab-result\",\"phases\":[{\"name\":\"load\",\"series\":{}}]}";
	json_object *r1 = json_tokener_parse(doc1), *r2 = json_tokener_parse(doc_without), *doc = NULL;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r2);
	/* no lag series: no document is made */
	CU_ASSERT_EQUAL(run_replica_add(&doc, "sync", "load", "load.json", r2), 0);
	CU_ASSERT_PTR_NULL(doc);
	CU_ASSERT_EQUAL(run_replica_add(&doc, "sync", "rw", "rw.json", r1), 1);
	CU_ASSERT_EQUAL(run_replica_add(&doc, "sync", "rw2", "rw2.json", r1), 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	CU_ASSERT_STRING_EQUAL(jstr(doc, "schema"), "dutlab-replica");
	CU_ASSERT_STRING_EQUAL(jstr(doc, "mode"), "sync");
	CU_ASSERT_STRING_EQUAL(jstr(doc, "steps.0.step"), "rw");
	CU_ASSERT_STRING_EQUAL(jstr(doc, "steps.1.result"), "rw2.json");
	CU_ASSERT_STRING_EQUAL(jstr(doc, "steps.0.phase"), "run");
	CU_ASSERT_STRING_EQUAL(jstr(doc, "steps.1.replica_lag.rows.1.1"), "3.5");
	json_object_put(r1);
	json_object_put(r2);
	json_object_put(doc);
}

static void test_conninfo_values_are_quoted(void)
{
	static const struct { const char *host, *want; } rows[] = {
		{ "/tmp/pgload-abc123", "host='/tmp/pgload-abc123' port='5432' user='postgres' dbname='postgres'" },
		{ "/tmp/x' password='y", "host='/tmp/x\\' password=\\'y' port='5432' user='postgres' dbname='postgres'" },
		{ "a\\b c", "host='a\\\\b c' port='5432' user='postgres' dbname='postgres'" },
	};
	char buf[256], tiny[16];

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		CU_CHECK(run_conninfo_build(buf, sizeof(buf), rows[i].host, 5432, "postgres", "postgres") == 0,
			 "row %zu: build failed", i);
		CU_CHECK(strcmp(buf, rows[i].want) == 0, "row %zu: expected %s, found %s", i, rows[i].want, buf);
	}
	CU_ASSERT_EQUAL(run_conninfo_build(tiny, sizeof(tiny), "/tmp/pgload-abc123", 5432, "postgres", "postgres"),
			-ENAMETOOLONG);
	CU_ASSERT_STRING_EQUAL(tiny, "");
	/* a value that does not fit leaves what was there, whatever the length */
	for (size_t n = 1; n < 40; n++) {
		char b[40] = "host='h'";

		if (n <= strlen(b))
			continue;
		if (run_conninfo_add(b, n, "user", "o'neil") < 0)
			CU_CHECK(strcmp(b, "host='h'") == 0, "len %zu: left %s", n, b);
		else
			CU_CHECK(strcmp(b, "host='h' user='o\\'neil'") == 0, "len %zu: built %s", n, b);
	}
}

static void test_socket_dir_and_port_validated(void)
{
	static const struct { const char *dir; bool ok; } rows[] = {
		{ "/tmp/pgload-aB3xY9", true },
		{ "/tmp/pgload-../../", false },
		{ "/tmp/pgload-a'b c ", false },
		{ "/tmp/pgload-abc", false },
		{ "/tmp/pgload-abcdefg", false },
		{ "/tmp/pgload-ab/cde", false },
		{ "/var/run/postgresql", false },
		{ "tmp/pgload-abcdef", false },
		{ "", false },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		CU_CHECK(run_socket_dir_ok(rows[i].dir) == rows[i].ok, "%s: expected %s", rows[i].dir,
			 rows[i].ok ? "accepted" : "refused");
	CU_ASSERT_FALSE(run_socket_dir_ok(NULL));
	CU_ASSERT_TRUE(run_port_ok(5432));
	CU_ASSERT_TRUE(run_port_ok(65535));
	CU_ASSERT_FALSE(run_port_ok(0));
	CU_ASSERT_FALSE(run_port_ok(65536));
	CU_ASSERT_FALSE(run_port_ok(-1));
}

static void test_passwords_are_redacted(void)
{
	static const struct { const char *in, *want; } rows[] = {
		{ "host=/tmp/s password=hunter2 dbname=x", "host=/tmp/s password=*** dbname=x" },
		{ "password = 'a b\\'c' user=u", "password = *** user=u" },
		{ "password=secret", "password=***" },
		{ "postgresql://alice:hunter2@db.example/x", "postgresql://alice:***@db.example/x" },
		{ "postgres://alice:p%40ss@h:5432/db?sslmode=require&password=two",
		  "postgres://alice:***@h:5432/db?sslmode=require&password=***" },
		{ "postgresql://alice@h/db", "postgresql://alice@h/db" },
		{ "PGPASSWORD=hunter2", "PGPASSWORD=***" },
		{ "host=h user=u", "host=h user=u" },
		{ "--set=mypassword=1", "--set=mypassword=1" },
		{ "/m/pgdata", "/m/pgdata" },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char *r = dut_redact_arg(rows[i].in);

		CU_CHECK(r && strcmp(r, rows[i].want) == 0, "%s: expected %s, found %s", rows[i].in, rows[i].want,
			 r ? r : "(null)");
		free(r);
	}
}

static void test_manifest_argv_has_no_password(void)
{
	struct dut_experiment *e = parse(HEAD "[step l]\ntype = oltp-init\nscale = 1\n");
	struct dut_plan *p = NULL;
	struct run_state *st = NULL;
	json_object *m;
	const char *text;

	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_EQUAL_FATAL(dut_experiment_plan(e, &p), 0);
	CU_ASSERT_EQUAL_FATAL(run_state_new(p, "t.ini", "/r", &st), 0);
	st->cfgs[0].reps[0].steps[0].argv = run_strv_copy((char *[]){ "pgload", "dss", "-d",
		"host=/tmp/s password=hunter2", "postgresql://u:hunter3@h/db", NULL });
	m = run_manifest_json(st);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	text = json_object_to_json_string(m);
	CU_ASSERT_PTR_NULL(strstr(text, "hunter"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "password=***"));
	json_object_put(m);
	run_state_free(st);
	dut_plan_free(p);
	dut_experiment_free(e);
}

static void test_setting_values_without_control_characters(void)
{
	CU_ASSERT_TRUE(dut_setting_value_ok("128MB"));
	CU_ASSERT_TRUE(dut_setting_value_ok("'$libdir/x', y"));
	CU_ASSERT_FALSE(dut_setting_value_ok("1\nlisten_addresses = '*'"));
	CU_ASSERT_FALSE(dut_setting_value_ok("1\r"));
	CU_ASSERT_FALSE(dut_setting_value_ok("\x7f"));
	CU_ASSERT_TRUE(dut_setting_name_ok("pg_stat_statements.max"));
	CU_ASSERT_FALSE(dut_setting_name_ok("a b"));
	CU_ASSERT_FALSE(dut_setting_name_ok("1a"));
	CU_ASSERT_FALSE(dut_setting_name_ok(""));
}

static const struct cu_test tests[] = {
	{ "conninfo_values_are_quoted", test_conninfo_values_are_quoted },
	{ "socket_dir_and_port_validated", test_socket_dir_and_port_validated },
	{ "passwords_are_redacted", test_passwords_are_redacted },
	{ "manifest_argv_has_no_password", test_manifest_argv_has_no_password },
	{ "setting_values_without_control_characters", test_setting_values_without_control_characters },
	{ "step_argv_from_params", test_step_argv_from_params },
	{ "step_kind_table", test_step_kind_table },
	{ "step_argv_raw_and_crash", test_step_argv_raw_and_crash },
	{ "matrix_placement_reaches_oltp_init", test_matrix_placement_reaches_oltp_init },
	{ "restore_formats_other_than_custom_are_refused", test_restore_formats_other_than_custom_are_refused },
	{ "duration_args", test_duration_args },
	{ "eta_scales_by_measured_time", test_eta_scales_by_measured_time },
	{ "eta_over_an_interleaved_plan", test_eta_over_an_interleaved_plan },
	{ "duration_format", test_duration_format },
	{ "cleanup_stack_unwinds_lifo_and_keeps_going", test_cleanup_stack_unwinds_lifo_and_keeps_going },
	{ "cleanup_stack_frees_owned_args", test_cleanup_stack_frees_owned_args },
	{ "config_dirnames", test_config_dirnames },
	{ "manifest_document", test_manifest_document },
	{ "soak_keys_in_manifest_and_plan", test_soak_keys_in_manifest_and_plan },
	{ "replica_lag_collected_per_step", test_replica_lag_collected_per_step },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "runner", .tests = tests };
