/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `dutlab run`: check everything, make the run directory, walk the plan
 * (setup items start a repetition, step items run a step), print progress
 * with an ETA, keep manifest.json current, tear down on failure and on
 * Ctrl-C.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/file_io.h"
#include "lib/log.h"
#include "lib/fs_safe.h"
#include "tools/run/runner_priv.h"

/* ---- the run directory ---- */

static int pick_rundir(const struct runner *R, char *buf, size_t len)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	struct stat st;

	if (R->o->out) {
		char cwd[PATH_MAX];

		/* absolute: the run directory is checked component by component from / */
		if (R->o->out[0] != '/' && getcwd(cwd, sizeof(cwd)))
			return run_pathf(buf, len, "%s/%s", cwd, R->o->out);
		return run_pathf(buf, len, "%s", R->o->out);
	}
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	run_pathf(buf, len, "%s/runs/%s-%s", run_var_root(), R->e->name, stamp);
	for (unsigned i = 2; lstat(buf, &st) == 0 && i < 100; i++)
		run_pathf(buf, len, "%s/runs/%s-%s-%u", run_var_root(), R->e->name, stamp, i);
	return 0;
}

/* The run directory is root's and closed (RUN_DIR_MODE), every directory
 * above it root's or sticky: what the runner writes there needs no more care
 * than O_EXCL / O_NOFOLLOW on the last name. */
static int make_rundir(struct runner *R, struct dut_error *err)
{
	const char *dir = R->st->rundir;
	char path[PATH_MAX + 32], bad[PATH_MAX] = "";
	_cleanup_free_ char *text = NULL;
	_cleanup_close_ int fd = -1;
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;
	size_t len;
	int r, logfd;

	r = run_ensure_private_dir(dir, RUN_DIR_MODE, bad, sizeof(bad));
	if (r < 0) {
		const char *which = bad[0] ? bad : dir;
		char what[160];
		struct stat st;

		runner_describe_path(which, what, sizeof(what));
		if (lstat(which, &st) == 0)
			dut_error_set(err, "refusing the run directory %s: %s (%s): %s; root writes the run "
				      "there: give a directory whose every component is root's (or sticky, like /tmp) "
				      "and not writable by others, or remove it, or chown root and chmod go-w it",
				      dir, which, what, dut_fs_safe_strerror(r));
		else
			dut_error_set(err, "cannot create the run directory %s: %s: %s", dir, which, strerror(-r));
		return r;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fchmod(fd, RUN_DIR_MODE) < 0) {
		dut_error_set(err, "cannot open the run directory %s: %s", dir, strerror(errno));
		return -errno;
	}
	d = fdopendir(dup(fd));
	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			dut_error_set(err, "the run directory %s exists and is not empty; give a new --out", dir);
			return -EEXIST;
		}
	run_pathf(path, sizeof(path), "%s/run.log", dir);
	logfd = run_open_log(path);
	R->log = logfd >= 0 ? fdopen(logfd, "a") : NULL;
	if (!R->log) {
		r = logfd < 0 ? logfd : -errno;
		if (logfd >= 0)
			close(logfd);
		dut_error_set(err, "cannot write %s: %s", path, strerror(-r));
		return r;
	}
	run_pathf(path, sizeof(path), "%s/experiment.ini", dir);
	if (R->o->source) {
		r = dut_read_small_file(R->o->source, DUT_EXP_MAX_BYTES, &text, &len);
		if (r == 0)
			r = run_write_file(path, text, RUN_FILE_MODE);
	} else {
		r = run_write_file(path, dut_experiment_default_text, RUN_FILE_MODE);
	}
	if (r < 0)
		runner_warn(R, "cannot copy the experiment to %s: %s", path, strerror(-r));
	return 0;
}

/* ---- progress ---- */

static void progress_start(struct runner *R, size_t i)
{
	char label[512], est[32], left[32], el[32];

	runner_item_label(R, &R->plan->items[i], label, sizeof(label));
	run_fmt_duration(R->plan->items[i].est_ns, est, sizeof(est));
	run_fmt_duration(run_progress_left_ns(&R->prog, i, 0), left, sizeof(left));
	run_fmt_duration(run_now_ns() - R->t0_ns, el, sizeof(el));
	runner_say(R, "[%6s] [%zu/%zu] %s: start (estimate %s; about %s left in the run)", el, i + 1,
		   R->plan->nitems, label, est, left);
}

static void progress_end(struct runner *R, size_t i, uint64_t took_ns, const char *how)
{
	char label[512], took[32], left[32], el[32];

	runner_item_label(R, &R->plan->items[i], label, sizeof(label));
	run_fmt_duration(took_ns, took, sizeof(took));
	run_fmt_duration(run_progress_left_ns(&R->prog, i + 1, 0), left, sizeof(left));
	run_fmt_duration(run_now_ns() - R->t0_ns, el, sizeof(el));
	if (run_signal_received)
		runner_say(R, "[%6s] [%zu/%zu] %s: %s in %s", el, i + 1, R->plan->nitems, label, how, took);
	else
		runner_say(R, "[%6s] [%zu/%zu] %s: %s in %s (about %s left)", el, i + 1, R->plan->nitems, label,
			   how, took, left);
}

/* ---- the walk ---- */

static void skip_rest_of_rep(struct runner *R, size_t i)
{
	for (size_t j = i + 1; j < R->plan->nitems && R->plan->items[j].kind != DUT_PLAN_SETUP; j++) {
		struct run_step_state *ss =
			&R->st->cfgs[R->plan->items[j].config].reps[R->plan->items[j].rep].steps[R->plan->items[j].step];

		R->prog.state[j] = RUN_ITEM_SKIPPED;
		if (ss->status == RUN_PENDING)
			ss->status = RUN_SKIPPED;
	}
}

static void end_rep(struct runner *R, enum run_status status)
{
	struct repeat_ctx *x = R->rep;
	struct run_rep_state *rs;
	const char *dir;
	uint64_t t0;
	char took[32];

	if (!x)
		return;
	rs = &R->st->cfgs[x->cfg].reps[x->rep];
	dir = R->st->cfgs[x->cfg].dir;
	t0 = run_now_ns();
	runner_say(R, "         %s rep %u: teardown", dir, rs->rep);
	repeat_teardown(R);        /* frees x */
	run_fmt_duration(run_now_ns() - t0, took, sizeof(took));
	runner_say(R, "         %s rep %u: torn down in %s", dir, rs->rep, took);
	if (rs->status == RUN_RUNNING || rs->status == RUN_PENDING)
		rs->status = status;
	for (size_t s = 0; s < R->e->nsteps; s++)
		if (rs->steps[s].status == RUN_RUNNING)
			rs->steps[s].status = status == RUN_COMPLETE ? RUN_COMPLETE : status;
	runner_write_manifest(R);
}

static void fail_rep(struct runner *R, size_t i, int r, const struct dut_error *err)
{
	const struct dut_plan_item *it = &R->plan->items[i];
	struct run_cfg_state *cs = &R->st->cfgs[it->config];
	struct run_rep_state *rs = &cs->reps[it->rep];
	/* a Ctrl-C also reaches helpers in our process group (mkfs): their failure is the interruption */
	enum run_status st = r == -EINTR || run_signal_received ? RUN_INTERRUPTED : RUN_FAILED;

	rs->status = st;
	run_set_text(&rs->reason, "%s", st == RUN_INTERRUPTED ? "interrupted" : err->msg[0] ? err->msg : strerror(-r));
	if (st != RUN_INTERRUPTED)
		runner_error(R, "%s rep %u failed: %s", cs->dir, it->rep + 1, rs->reason);
	skip_rest_of_rep(R, i);
	end_rep(R, st);
}

static void finish_configs(struct runner *R)
{
	for (size_t c = 0; c < R->plan->nconfigs; c++) {
		struct run_cfg_state *cs = &R->st->cfgs[c];
		enum run_status st = RUN_COMPLETE;

		if (!R->cfg_ok[c]) {
			cs->status = RUN_SKIPPED;
			for (unsigned r = 0; r < R->e->repetitions; r++) {
				cs->reps[r].status = RUN_SKIPPED;
				for (size_t s = 0; s < R->e->nsteps; s++)
					cs->reps[r].steps[s].status = RUN_SKIPPED;
			}
			continue;
		}
		for (unsigned r = 0; r < R->e->repetitions; r++) {
			enum run_status rs = cs->reps[r].status;

			if (rs == RUN_FAILED && st == RUN_COMPLETE)
				st = RUN_FAILED;
			if (rs == RUN_INTERRUPTED)
				st = RUN_INTERRUPTED;
			if ((rs == RUN_PENDING || rs == RUN_RUNNING) && st == RUN_COMPLETE)
				st = run_signal_received ? RUN_INTERRUPTED : RUN_PENDING;
		}
		if (st == RUN_FAILED && !cs->reason) {
			for (unsigned r = 0; r < R->e->repetitions && !cs->reason; r++)
				if (cs->reps[r].reason)
					run_set_text(&cs->reason, "rep %u: %s", r + 1, cs->reps[r].reason);
		}
		cs->status = st;
	}
}

/* The setup item of the repetition set up now (its block's first item). */
static size_t current_rep_item(const struct runner *R)
{
	for (size_t i = 0; R->rep && i < R->plan->nitems; i++) {
		const struct dut_plan_item *it = &R->plan->items[i];

		if (it->kind == DUT_PLAN_SETUP && it->config == R->rep->cfg && it->rep == R->rep->rep)
			return i;
	}
	return 0;
}

static void walk(struct runner *R)
{
	for (size_t i = 0; i < R->plan->nitems; i++) {
		const struct dut_plan_item *it = &R->plan->items[i];
		struct run_cfg_state *cs = &R->st->cfgs[it->config];
		struct dut_error err = { "" };
		uint64_t t0;
		int r;

		if (run_signal_received)
			break;
		if (R->prog.state[i] == RUN_ITEM_SKIPPED)
			continue;
		if (it->kind == DUT_PLAN_SETUP) {
			end_rep(R, RUN_COMPLETE);
			if (!R->cfg_ok[it->config]) {
				R->prog.state[i] = RUN_ITEM_SKIPPED;
				skip_rest_of_rep(R, i);
				continue;
			}
			cs->status = RUN_RUNNING;
			cs->reps[it->rep].status = RUN_RUNNING;
			runner_write_manifest(R);
		}
		progress_start(R, i);
		t0 = run_now_ns();
		if (it->kind == DUT_PLAN_SETUP)
			r = repeat_setup(R, it->config, it->rep, &err);
		else
			r = repeat_run_step(R, it, &err);
		R->prog.state[i] = RUN_ITEM_DONE;
		R->prog.actual_ns[i] = run_now_ns() - t0;
		progress_end(R, i, R->prog.actual_ns[i], r == 0 ? "ok" : r == -EINTR ? "interrupted" : "FAILED");
		if (r < 0)
			fail_rep(R, i, r, &err);
		else
			runner_write_manifest(R);
	}
	if (run_signal_received && R->rep) {
		struct dut_error err = { "" };

		for (size_t s = 0; s < R->e->nsteps; s++) {
			struct run_step_state *ss = &R->st->cfgs[R->rep->cfg].reps[R->rep->rep].steps[s];

			if (ss->status == RUN_RUNNING)
				ss->status = RUN_INTERRUPTED;
		}
		/* the repetition set up now, wherever the order put it: not item 0's */
		fail_rep(R, current_rep_item(R), -EINTR, &err);
	}
	end_rep(R, RUN_COMPLETE);
}

static void summary(struct runner *R)
{
	char took[32];

	run_fmt_duration(run_now_ns() - R->t0_ns, took, sizeof(took));
	runner_say(R, "\nrun %s after %s:", run_status_name(R->st->status), took);
	for (size_t c = 0; c < R->plan->nconfigs; c++) {
		const struct run_cfg_state *cs = &R->st->cfgs[c];

		runner_say(R, "  %-32s %s%s%s", cs->dir, run_status_name(cs->status), cs->reason ? ": " : "",
			   cs->reason ? cs->reason : "");
	}
	/* the run directory is named at the start, and by dutlab run at the end with its report */
}

static int setup_runner(struct runner *R, const struct dut_experiment *e, const struct run_opts *o,
			struct dut_error *err)
{
	_cleanup_free_ struct run_tools *tools = calloc(1, sizeof(*tools));
	char rundir[PATH_MAX];
	int r;

	R->e = e;
	R->o = o;
	R->t0_ns = run_now_ns();
	if (!tools)
		return -ENOMEM;
	if ((r = run_find_tools(tools, err)) < 0)
		return r;
	memcpy(R->dutfs, tools->dutfs, sizeof(R->dutfs));
	memcpy(R->pgload, tools->pgload, sizeof(R->pgload));
	memcpy(R->dutprobe, tools->dutprobe, sizeof(R->dutprobe));
	r = dut_experiment_plan(e, (struct dut_plan **)&R->plan);
	if (r < 0) {
		dut_error_set(err, "cannot plan the experiment: %s", strerror(-r));
		return r;
	}
	pick_rundir(R, rundir, sizeof(rundir));
	r = run_state_new(R->plan, o->source ? o->source : "built-in", rundir, &R->st);
	if (r < 0 || run_progress_init(&R->prog, R->plan) < 0 ||
	    !(R->cfg_ok = calloc(R->plan->nconfigs, sizeof(*R->cfg_ok)))) {
		dut_error_set(err, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

static void free_runner(struct runner *R)
{
	if (R->log)
		fclose(R->log);
	if (R->work_root[0]) {
		char stage[PATH_MAX + 8];

		/* empty by now: every mountpoint was removed at its teardown */
		run_pathf(stage, sizeof(stage), "%s/stage", R->work_root);
		rmdir(stage);
		rmdir(R->work_root);
	}
	free(R->cfg_ok);
	run_progress_free(&R->prog);
	run_state_free(R->st);
	dut_plan_free((struct dut_plan *)R->plan);
}

/* Refuse, or (with --yes) go on without the configurations that cannot run. */
static bool configs_runnable(struct runner *R)
{
	size_t ok = 0;

	for (size_t c = 0; c < R->plan->nconfigs; c++) {
		ok += R->cfg_ok[c];
		if (!R->cfg_ok[c])
			runner_error(R, "configuration %s cannot run: %s", R->st->cfgs[c].dir, R->st->cfgs[c].reason);
	}
	if (ok == R->plan->nconfigs)
		return true;
	if (ok == 0) {
		runner_error(R, "no configuration can run; nothing was started");
		return false;
	}
	if (!R->o->yes) {
		runner_error(R, "%zu of %zu configurations cannot run (above); fix them, or run again with --yes "
			     "to run the other %zu and record these as skipped", R->plan->nconfigs - ok,
			     R->plan->nconfigs, ok);
		return false;
	}
	for (size_t c = 0; c < R->plan->nconfigs; c++)
		if (!R->cfg_ok[c])
			R->st->cfgs[c].status = RUN_SKIPPED;
	return true;
}

int run_experiment(const struct dut_experiment *e, const struct run_opts *o, char **ret_rundir)
{
	struct runner R = { 0 };
	struct dut_error err = { "" };
	int r, code;

	*ret_rundir = NULL;
	if (setup_runner(&R, e, o, &err) < 0) {
		dut_err("%s", err.msg);
		free_runner(&R);
		return 1;
	}
	if (o->dry_run) {
		unsigned bad, cfg_bad = 0;

		dutlab_run_print_plan(R.plan, stdout);
		repeat_print_resolved(&R, stdout);
		bad = runner_check(&R, false);
		for (size_t c = 0; c < R.plan->nconfigs; c++)
			if (!R.cfg_ok[c]) {
				runner_error(&R, "configuration %s cannot run: %s", R.st->cfgs[c].dir,
					     R.st->cfgs[c].reason);
				cfg_bad++;
			}
		if (bad)
			printf("\na run would be refused (above); nothing was done (--dry-run).\n");
		else if (cfg_bad)
			printf("\n%u of %zu configurations cannot run (above): a run would be refused, or with "
			       "--yes skip them; nothing was done (--dry-run).\n", cfg_bad, R.plan->nconfigs);
		else
			printf("\nchecks passed; nothing was done (--dry-run).\n");
		free_runner(&R);
		return bad || cfg_bad ? 1 : 0;  /* scripts can test what the run would do */
	}
	if (runner_check(&R, false) > 0 || !configs_runnable(&R)) {
		dut_err("nothing was started");
		free_runner(&R);
		return 1;
	}
	if (make_rundir(&R, &err) < 0) {
		dut_err("%s", err.msg);
		free_runner(&R);
		return 1;
	}
	run_pathf(R.work_root, sizeof(R.work_root), "/run/dutlab-%ld", (long)getpid());
	r = run_mkdir_p(R.work_root, 0755);
	if (r < 0) {
		runner_error(&R, "cannot create %s for the mountpoints: %s", R.work_root, strerror(-r));
		R.work_root[0] = '\0';
		free_runner(&R);
		return 1;
	}
	R.st->have_host = dut_host_probe(&R.st->host) == 0;
	dut_host_utc_now(R.st->started_at, sizeof(R.st->started_at));
	R.st->status = RUN_RUNNING;
	runner_write_manifest(&R);
	{
		char est[32];

		run_fmt_duration(R.plan->est_ns, est, sizeof(est));
		runner_say(&R, "dutlab run: experiment %s: %zu configuration(s) x %u repetition(s) %s, %zu items (setups and step "
			   "runs); estimated %s\nrun directory: %s (manifest.json, run.log, <config>/rep<N>/)", e->name,
			   R.plan->nconfigs, e->repetitions, dut_exp_order_name(e->order), R.plan->nitems, est, R.st->rundir);
	}
	run_signals_install();
	walk(&R);
	finish_configs(&R);
	if (run_signal_received) {
		R.st->status = RUN_INTERRUPTED;
		runner_error(&R, "interrupted (signal %d): everything was torn down", (int)run_signal_received);
	} else {
		R.st->status = RUN_COMPLETE;
		for (size_t c = 0; c < R.plan->nconfigs; c++)
			if (R.st->cfgs[c].status == RUN_FAILED)
				R.st->status = RUN_FAILED;
	}
	dut_host_utc_now(R.st->finished_at, sizeof(R.st->finished_at));
	runner_write_manifest(&R);
	summary(&R);
	code = R.st->status == RUN_COMPLETE ? 0 : R.st->status == RUN_INTERRUPTED ? 130 : 1;
	*ret_rundir = strdup(R.st->rundir);
	free_runner(&R);
	return code;
}
