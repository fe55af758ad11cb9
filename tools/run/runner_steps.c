/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One iteration of a step: its phase marker on every dutfs mount, its
 * command line (runner_argv.c), the tool run with its output in
 * <step>.log and its result document in <step>.json, and the record in
 * the run state.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/fs_safe.h"
#include "lib/result.h"
#include "tools/run/runner_priv.h"

/* Generous: a step that overruns its estimate by this much is stuck. */
#define STEP_TIMEOUT_MIN_NS (600 * NS_PER_S)

static bool is_last_relmap_step(const struct dut_experiment *e, size_t step)
{
	if (!run_step_writes_relmap(&e->steps[step]))
		return false;
	for (size_t i = step + 1; i < e->nsteps; i++)
		if (run_step_writes_relmap(&e->steps[i]))
			return false;
	return true;
}

struct probe_file_arg {
	char path[PATH_MAX];
};

static int undo_probe_file(void *arg, struct dut_error *err)
{
	struct probe_file_arg *a = arg;

	if (unlink(a->path) < 0 && errno != ENOENT) {
		dut_error_set(err, "cannot remove %s: %s", a->path, strerror(errno));
		return -errno;
	}
	return 0;
}

static int undo_workdir(void *arg, struct dut_error *err)
{
	struct probe_file_arg *a = arg;
	int r = run_rm_rf(a->path);

	if (r < 0 && r != -ENOENT) {
		dut_error_set(err, "cannot remove %s: %s", a->path, strerror(-r));
		return r;
	}
	return 0;
}

/* The work directory of a kind with .workdir (a crash campaign's clusters and
 * dutfs mounts) on the target's filesystem, removed at teardown when the step made it. */
static int step_workdir(struct runner *R, const struct dut_step *s, const char *dir, char *buf, size_t len,
			 struct dut_error *err)
{
	struct probe_file_arg *a;
	struct stat st;

	if (!dir[0]) {
		dut_error_set(err, "step %s: the %s step needs a filesystem on its target for its work directory",
			      s->name, s->type->name);
		return -EINVAL;
	}
	run_pathf(buf, len, "%s/dutlab-%s-%s", dir, s->type->name, s->name);
	/*
	 * The target may be a directory in /tmp, where anyone could have made
	 * this name first: root mounts and removes trees in it, so one that
	 * exists must be root's and not writable by others, with no link on
	 * the way (lib/fs_safe.h); the tool checks it again.
	 */
	if (lstat(buf, &st) == 0) {
		char bad[PATH_MAX] = "";
		int r = run_ensure_private_dir(buf, 0755, bad, sizeof(bad));

		if (r < 0)
			dut_error_set(err, "step %s: refusing the work directory %s (%s: %s): remove it, or chown "
				      "root and chmod go-w it", s->name, buf, bad[0] ? bad : buf,
				      dut_fs_safe_strerror(r));
		return r;
	}
	if (!(a = calloc(1, sizeof(*a))))
		return -ENOMEM;
	run_pathf(a->path, sizeof(a->path), "%s", buf);
	if (run_cleanup_push(&R->rep->cleanup, "remove the step's work directory", undo_workdir, a,
			     free) < 0) {
		free(a);
		return -ENOMEM;
	}
	return 0;
}

/* The document of the identify step `name` (a kind with .identify) run before step `s`
 * in this repetition: a parameter "identify" names it. */
static int identify_doc(struct runner *R, const struct dut_step *s, char *buf, size_t len, struct dut_error *err)
{
	const char *name = dut_step_param(s, "identify")->text;
	char base[128];

	for (size_t i = 0; i < R->e->nsteps && &R->e->steps[i] != s; i++) {
		const struct dut_step *id = &R->e->steps[i];

		if (strcmp(id->name, name) != 0)
			continue;
		if (!id->type->identify)
			break;
		run_step_basename(id, 0, base, sizeof(base));
		run_pathf(buf, len, "%s/%s.json", R->rep->dir, base);
		if (access(buf, R_OK) < 0) {
			dut_error_set(err, "step %s: identify = %s: that step wrote no %s", s->name, name, buf);
			return -ENOENT;
		}
		return 0;
	}
	dut_error_set(err, "step %s: identify = %s: expected the name of an identify step before it", s->name, name);
	return -EINVAL;
}

/* Where a probe step probes: the raw device, or a file on the target's
 * filesystem (removed at teardown when the step created it). */
static int probe_target(struct runner *R, const struct dut_step *s, char *buf, size_t len,
			struct dut_error *err)
{
	const char *name = s->target ? s->target : R->e->pg_target;
	struct repeat_target *t = NULL;

	for (size_t i = 0; i < R->e->ntargets; i++)
		if (strcmp(R->e->targets[i].name, name) == 0)
			t = &R->rep->targets[i];
	if (!t || !t->stage) {
		dut_error_set(err, "step %s: target %s is not staged", s->name, name);
		return -EINVAL;
	}
	if (s->raw) {
		if (!repeat_stage_device(t->stage)) {
			dut_error_set(err, "step %s: raw = yes needs an image or device target, %s is a directory",
				      s->name, name);
			return -EINVAL;
		}
		run_pathf(buf, len, "%s", repeat_stage_device(t->stage));
		return 0;
	}
	if (s->type->workdir)
		return step_workdir(R, s, t->dir, buf, len, err);
	if (s->type->reads_only) {
		/* a kind that only reads (identify): the target's directory names its filesystem
		 * and device; without a filesystem, the image's loop device or the device itself */
		if (!t->dir[0] && !repeat_stage_device(t->stage)) {
			dut_error_set(err, "step %s: target %s has neither a filesystem nor a device", s->name, name);
			return -EINVAL;
		}
		run_pathf(buf, len, "%s", t->dir[0] ? t->dir : repeat_stage_device(t->stage));
		return 0;
	}
	if (!t->dir[0]) {
		dut_error_set(err, "step %s: target %s has no filesystem (use raw = yes)", s->name, name);
		return -EINVAL;
	}
	run_pathf(buf, len, "%s/%s", t->dir, dut_step_param(s, "file")->text);
	if (access(buf, F_OK) < 0) {
		struct probe_file_arg *a = calloc(1, sizeof(*a));

		if (!a)
			return -ENOMEM;
		run_pathf(a->path, sizeof(a->path), "%s", buf);
		if (run_cleanup_push(&R->rep->cleanup, "remove the probe file", undo_probe_file, a, free) < 0) {
			free(a);
			return -ENOMEM;
		}
	}
	return 0;
}

/* The standby's replay lag, as pgload sampled it during the step, into replica.json. */
static void save_replica_lag(struct runner *R, const struct dut_step *s, const char *json, const char *file)
{
	struct repeat_ctx *x = R->rep;
	char path[PATH_MAX + 32];
	json_object *result = json_object_from_file(json), *doc;
	int r;

	if (!result)
		return;
	run_pathf(path, sizeof(path), "%s/replica.json", x->dir);
	doc = access(path, F_OK) == 0 ? json_object_from_file(path) : NULL;
	r = run_replica_add(&doc, dut_replica_mode_name(R->plan->configs[x->cfg].replica), s->name, file, result);
	if (r > 0 && run_write_file(path, json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
									JSON_C_TO_STRING_NOSLASHESCAPE),
				    RUN_FILE_MODE) == 0)
		run_rep_add_artifact(&R->st->cfgs[x->cfg].reps[x->rep], "replica", "replica.json");
	else if (r < 0)
		runner_warn(R, "cannot add the replica lag of step %s to %s: %s", s->name, path, strerror(-r));
	json_object_put(doc);
	json_object_put(result);
}

/* What dutprobe identify found, for manifest.json: the target path, the device beneath it, its link. */
static json_object *identify_device(const char *json)
{
	json_object *doc = json_object_from_file(json), *t, *bd, *link, *o, *v;

	if (!doc)
		return NULL;
	o = json_object_new_object();
	if (o && json_object_object_get_ex(doc, "target", &t)) {
		static const char *const tkeys[] = { "path", "kind", "through" };
		static const char *const bkeys[] = { "name", "model", "vendor", "size_bytes", "rotational" };

		for (size_t i = 0; i < sizeof(tkeys) / sizeof(tkeys[0]); i++)
			if (json_object_object_get_ex(t, tkeys[i], &v))
				json_object_object_add(o, strcmp(tkeys[i], "path") == 0 ? "target" : tkeys[i],
						       json_object_get(v));
		if (json_object_object_get_ex(t, "block_device", &bd))
			for (size_t i = 0; i < sizeof(bkeys) / sizeof(bkeys[0]); i++)
				if (json_object_object_get_ex(bd, bkeys[i], &v))
					json_object_object_add(o, bkeys[i], json_object_get(v));
		if (json_object_object_get_ex(t, "link", &link) && json_object_is_type(link, json_type_object)) {
			if (json_object_object_get_ex(link, "description", &v))
				json_object_object_add(o, "link", json_object_get(v));
			if (json_object_object_get_ex(link, "ceiling_bytes_per_s", &v))
				json_object_object_add(o, "ceiling_bytes_per_s", json_object_get(v));
		}
	}
	json_object_put(doc);
	return o;
}

static enum run_status finish_status(int r, int status)
{
	if (r == -EINTR)
		return RUN_INTERRUPTED;
	return r == 0 && status == 0 ? RUN_COMPLETE : RUN_FAILED;
}

/* The CPU time of the repetition's dutfs daemons so far (ticks); -errno, -ENOENT without one. */
static int dutfs_cpu(const struct repeat_ctx *x, size_t ntargets, uint64_t *ret)
{
	uint64_t sum = 0, t;
	unsigned n = 0;

	for (size_t i = 0; i < ntargets; i++) {
		if (!x->targets[i].mounted || !x->targets[i].dutfs_pid)
			continue;
		if (run_proc_cpu_ticks(x->targets[i].dutfs_pid, &t) < 0)
			return -ESRCH;
		sum += t;
		n++;
	}
	*ret = sum;
	return n ? 0 : -ENOENT;
}

int repeat_run_step(struct runner *R, const struct dut_plan_item *it, struct dut_error *err)
{
	const struct dut_step *s = &R->e->steps[it->step];
	struct repeat_ctx *x = R->rep;
	struct run_rep_state *rs = &R->st->cfgs[x->cfg].reps[x->rep];
	struct run_step_state *ss = &rs->steps[it->step];
	char base[128], json[PATH_MAX + 160], log[PATH_MAX + 160], relmap[PATH_MAX + 32];
	char target[PATH_MAX + 64], dump[PATH_MAX + 160], dump_ext[PATH_MAX];
	char **cmds[2] = { NULL, NULL }, name[192], self[PATH_MAX], idjson[PATH_MAX + 160];
	struct run_step_ctx c = {
		.pgload = R->pgload, .dutprobe = R->dutprobe, .cfg = &R->plan->configs[x->cfg],
		.pgdata = x->pgdata, .conninfo = x->conninfo, .json_path = json,
		.pg_bindir = R->st->cfgs[x->cfg].pg.major ? R->st->cfgs[x->cfg].pg.bindir : NULL,
	};
	struct run_cmd_opts o = { .log_path = log, .interruptible = true, .grace_ns = 20 * NS_PER_S };
	struct soak_watch watch;
	size_t ncmds = 0;
	uint64_t t0, dutfs0 = 0, dutfs1 = 0;
	bool dutfs_cpu_ok;
	int status = 0, r;

	run_step_basename(s, it->iteration, base, sizeof(base));
	run_pathf(json, sizeof(json), "%s/%s.json", x->dir, base);
	run_pathf(log, sizeof(log), "%s/%s.log", x->dir, base);
	if (s->type->probe) {
		if ((r = probe_target(R, s, target, sizeof(target), err)) < 0)
			return r;
		c.probe_target = target;
	}
	if (it->iteration + 1 == s->repeat && is_last_relmap_step(R->e, it->step)) {
		run_pathf(relmap, sizeof(relmap), "%s/relmap.json", x->dir);
		c.relmap_path = relmap;
	}
	if (s->type->restores) {
		const char *d = dut_step_param(s, "dump")->text;
		const struct repeat_target *pg = NULL;

		for (size_t i = 0; i < R->e->ntargets; i++)
			if (x->targets[i].ct->holds_pgdata)
				pg = &x->targets[i];
		c.dump_is_self = strcmp(d, "self") == 0;
		if (c.dump_is_self) {
			/* next to the run's data, not through dutfs: making the dump is not measured */
			run_pathf(dump, sizeof(dump), "%s/%s.dump", pg ? pg->backing : x->dir, s->name);
			c.dump_path = dump;
		} else {
			if (d[0] == '/' || !R->e->base_dir)
				run_pathf(dump_ext, sizeof(dump_ext), "%s", d);
			else
				run_pathf(dump_ext, sizeof(dump_ext), "%s/%s", R->e->base_dir, d);
			c.dump_path = dump_ext;
		}
	}
	if (s->type->runs_dutlab) {
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

		if (n < 0) {
			int e = errno;

			dut_error_set(err, "step %s: cannot find this program (/proc/self/exe): %s", s->name,
				      strerror(e));
			return -e;
		}
		self[n] = '\0';
		c.dutlab = self;
	}
	/* a kind with an "identify" parameter (crash) gets that step's document */
	if (dut_step_param(s, "identify") && dut_step_param(s, "identify")->text) {
		if ((r = identify_doc(R, s, idjson, sizeof(idjson), err)) < 0)
			return r;
		c.identify_json = idjson;
	}
	r = run_step_argv(s, &c, cmds, &ncmds, err);
	if (r < 0)
		return r;
	if (it->iteration == 0) {
		ss->argv = run_strv_copy(cmds[ncmds - 1]);
		dut_host_utc_now(ss->started_at, sizeof(ss->started_at));
	}
	ss->status = RUN_RUNNING;
	repeat_mark(R, s->mark ? s->mark : s->name);
	dutfs_cpu_ok = dutfs_cpu(x, R->e->ntargets, &dutfs0) == 0;
	o.timeout_ns = 4 * it->est_ns > STEP_TIMEOUT_MIN_NS ? 4 * it->est_ns : STEP_TIMEOUT_MIN_NS;
	soak_watch_start(&watch, R, it, log, &o);
	t0 = run_now_ns();
	r = 0;
	for (size_t i = 0; i < ncmds && r == 0 && status == 0; i++)
		r = run_command(cmds[i], &o, &status);
	ss->wall_ns += run_now_ns() - t0;
	soak_watch_end(&watch);
	/* what the instrument cost: dutfs's CPU beside the server's and the client's */
	if (dutfs_cpu_ok && dutfs_cpu(x, R->e->ntargets, &dutfs1) == 0 && dutfs1 >= dutfs0) {
		ss->dutfs_cpu_known = it->iteration == 0 || ss->dutfs_cpu_known;
		ss->dutfs_cpu_s += (double)(dutfs1 - dutfs0) / (double)run_clock_ticks();
	} else {
		ss->dutfs_cpu_known = false;
	}
	ss->exit_code = status;
	/* the kind's .result_exit (dutlab crash's exit 1: damage, a blind control) is a finding the document says */
	if (r == 0 && status != 0 && run_step_exit_is_result(s, status) && access(json, F_OK) == 0)
		status = 0;
	ss->runs_done++;
	for (size_t i = 0; i < ncmds; i++)
		run_strv_free(cmds[i]);
	run_pathf(name, sizeof(name), "%s.log", base);
	run_list_add(&ss->logs, name);
	if (access(json, F_OK) == 0) {
		run_pathf(name, sizeof(name), "%s.json", base);
		run_list_add(&ss->results, name);
	}
	if (c.cfg->replica != DUT_REPLICA_NONE && access(json, F_OK) == 0)
		save_replica_lag(R, s, json, name);
	if (s->type->identify && !ss->device && access(json, F_OK) == 0 &&
	    (ss->device = identify_device(json))) {
		/* the path identify saw is the run's staging mount; the experiment's target names it for good */
		const char *tn = s->target ? s->target : R->e->pg_target;

		for (size_t i = 0; i < R->e->ntargets; i++)
			if (strcmp(R->e->targets[i].name, tn) == 0 && R->e->targets[i].path) {
				json_object_object_add(ss->device, "experiment_target", json_object_new_string(tn));
				json_object_object_add(ss->device, "experiment_path",
						       json_object_new_string(R->e->targets[i].path));
			}
	}
	if (c.relmap_path && access(c.relmap_path, F_OK) == 0)
		run_rep_add_artifact(rs, "relmap", "relmap.json");
	ss->status = finish_status(r, status);
	if (ss->status == RUN_COMPLETE && it->iteration + 1 < s->repeat)
		ss->status = RUN_RUNNING;
	if (r == -EINTR)
		return r;
	if (r == -ETIMEDOUT) {
		dut_error_set(err, "step %s ran more than 4 times its estimate and was stopped: see %s", s->name, log);
		return r;
	}
	if (r < 0) {
		dut_error_set(err, "step %s: cannot run %s: %s", s->name, s->type->tool, strerror(-r));
		return r;
	}
	if (status != 0) {
		dut_error_set(err, "step %s: %s exited with %d: see %s", s->name, s->type->tool, status, log);
		return -EIO;
	}
	return 0;
}
