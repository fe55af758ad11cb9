/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Soak runs (docs/dutlab-run.md "Long runs"): while a step runs, with
 * [experiment] progress, a line every so often that says how long it has
 * run, what pgbench said last and what each dutfs trace holds; with
 * [experiment] report-every, report.md rewritten as a partial report: the
 * manifest is written (the step "running") and `dutlab report RUNDIR` runs
 * in the background, in a process group of its own, while the step goes on.
 * A partial report still being written when the step ends is stopped: the
 * final report is written after the teardown (run_cmd.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "lib/cleanup.h"
#include "lib/file_io.h"
#include "tools/run/runner_priv.h"

#define NS_PER_S UINT64_C(1000000000)
#define STATS_MAX_BYTES (1u << 20)
#define LOG_TAIL_BYTES 4096

/* The last "progress: ..." line pgbench wrote into the step's log (pgload passes -P on). */
static void last_progress_line(const char *log, char *buf, size_t len)
{
	char tail[LOG_TAIL_BYTES + 1];
	_cleanup_close_ int fd = open(log, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	char *p, *nl;

	buf[0] = '\0';
	if (fd < 0 || dut_read_tail(fd, tail, sizeof(tail)) <= 0)
		return;
	for (p = tail; (p = strstr(p, "progress: ")); p++) {
		nl = strchr(p, '\n');
		if (!nl)
			break;   /* a line still being written */
		snprintf(buf, len, "%.*s", (int)(nl - p), p);
	}
}

/* "trace 812345 records (0 dropped), 3 rotations" from a mount's .dutfs/stats.json. */
static void trace_state(const struct repeat_target *t, char *buf, size_t len)
{
	_cleanup_free_ char *text = NULL;
	char path[PATH_MAX + 32];
	json_object *root, *tr, *v;
	size_t n = 0;
	int l;

	buf[0] = '\0';
	run_pathf(path, sizeof(path), "%s/.dutfs/stats.json", t->mnt);
	if (dut_read_text_alloc(path, STATS_MAX_BYTES, &text, &n) < 0)
		return;
	root = json_tokener_parse(text);
	if (!root)
		return;
	if (json_object_object_get_ex(root, "trace", &tr) && json_object_object_get_ex(tr, "records_written", &v)) {
		l = snprintf(buf, len, "trace%s %" PRIu64 " records", t->suffix, json_object_get_uint64(v));
		if (json_object_object_get_ex(tr, "records_dropped", &v) && l > 0 && (size_t)l < len)
			l += snprintf(buf + l, len - (size_t)l, " (%" PRIu64 " dropped)", json_object_get_uint64(v));
		if (json_object_object_get_ex(tr, "rotations", &v) && l > 0 && (size_t)l < len)
			snprintf(buf + l, len - (size_t)l, ", %" PRIu64 " rotations", json_object_get_uint64(v));
	}
	json_object_put(root);
}

static void progress_line(struct soak_watch *w, uint64_t now)
{
	struct runner *R = w->R;
	char label[512], el[32], ran[32], est[32], left[32], pg[256], tr[1024] = "", one[256];
	size_t i = (size_t)(w->it - R->plan->items);
	size_t l = 0;

	runner_item_label(R, w->it, label, sizeof(label));
	run_fmt_duration(now - R->t0_ns, el, sizeof(el));
	run_fmt_duration(now - w->t0_ns, ran, sizeof(ran));
	run_fmt_duration(w->it->est_ns, est, sizeof(est));
	run_fmt_duration(run_progress_left_ns(&R->prog, i, now - w->t0_ns), left, sizeof(left));
	last_progress_line(w->log, pg, sizeof(pg));
	for (size_t t = 0; R->rep && t < R->e->ntargets; t++) {
		if (!R->rep->targets[t].mounted)
			continue;
		trace_state(&R->rep->targets[t], one, sizeof(one));
		if (one[0] && l < sizeof(tr))
			l += (size_t)snprintf(tr + l, sizeof(tr) - l, "; %s", one);
	}
	runner_say(R, "[%6s] [%zu/%zu] %s: running for %s of about %s (about %s left in the run)%s%s%s", el, i + 1,
		   R->plan->nitems, label, ran, est, left, pg[0] ? "; pgbench " : "", pg, tr);
}

static void report_reap(struct soak_watch *w, bool stop)
{
	int st;

	if (!w->report_pid)
		return;
	if (stop && waitpid(w->report_pid, &st, WNOHANG) == 0) {
		kill(-w->report_pid, SIGTERM);
		runner_say(w->R, "         the partial report still being written was stopped (the final one follows)");
		if (waitpid(w->report_pid, &st, 0) < 0 && errno != ECHILD)
			return;
		w->report_pid = 0;
		return;
	}
	if (stop || waitpid(w->report_pid, &st, WNOHANG) == w->report_pid) {
		if (!stop && (!WIFEXITED(st) || WEXITSTATUS(st) != 0))
			runner_warn(w->R, "the partial report (dutlab report %s) failed (status %d): see %s/report.log",
				    w->R->st->rundir, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st),
				    w->R->st->rundir);
		w->report_pid = 0;
	}
}

static void partial_report(struct soak_watch *w)
{
	struct runner *R = w->R;
	char self[PATH_MAX], log[PATH_MAX + 32];
	char *argv[] = { self, "report", R->st->rundir, NULL };
	int r;

	report_reap(w, false);
	if (w->report_pid) {
		runner_warn(R, "the last partial report is still being written: not starting another");
		return;
	}
	if ((r = run_self_exe(self, sizeof(self))) < 0) {
		runner_warn(R, "no partial report: cannot find this program: %s", strerror(-r));
		return;
	}
	/* the report reads the manifest: the step as running, its start time */
	runner_write_manifest(R);
	run_pathf(log, sizeof(log), "%s/report.log", R->st->rundir);
	r = run_spawn(argv, log, false, &w->report_pid);
	if (r < 0) {
		runner_warn(R, "no partial report: cannot start %s: %s", self, strerror(-r));
		w->report_pid = 0;
		return;
	}
	w->reports++;
	runner_say(R, "         partial report %u: %s/report.md (rewritten every %" PRIu64 " s while the step runs)",
		   w->reports, R->st->rundir, R->e->report_every_ns / NS_PER_S);
}

static void soak_tick(void *ctx, uint64_t now)
{
	struct soak_watch *w = ctx;

	if (w->report_pid)
		report_reap(w, false);
	if (w->next_progress_ns && now >= w->next_progress_ns) {
		progress_line(w, now);
		w->next_progress_ns = now + w->R->e->progress_ns;
	}
	if (w->next_report_ns && now >= w->next_report_ns) {
		partial_report(w);
		w->next_report_ns = now + w->R->e->report_every_ns;
	}
}

void soak_watch_start(struct soak_watch *w, struct runner *R, const struct dut_plan_item *it,
		      const char *log, struct run_cmd_opts *o)
{
	uint64_t now = run_now_ns();

	*w = (struct soak_watch){ .R = R, .it = it, .log = log, .t0_ns = now };
	if (!R->e->progress_ns && !R->e->report_every_ns)
		return;
	if (R->e->progress_ns)
		w->next_progress_ns = now + R->e->progress_ns;
	if (R->e->report_every_ns)
		w->next_report_ns = now + R->e->report_every_ns;
	o->tick = soak_tick;
	o->tick_ctx = w;
}

void soak_watch_end(struct soak_watch *w)
{
	report_reap(w, true);
}
