/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One repetition of a configuration: stage the targets, mount dutfs over
 * each target that holds data, create the cluster (and the standby), and
 * push one undo action per resource on the cleanup stack.  Teardown
 * unwinds the stack: stop the standby and the cluster (copying the server
 * log), copy dutfs's stats.json, unmount and wait for the daemon (the
 * trace is complete only when it has exited), remove the run's data, tear
 * the targets down.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "lib/cleanup.h"
#include "lib/file_io.h"
#include "lib/fs_safe.h"
#include "lib/run_manifest.h"
#include "lib/units.h"
#include "tools/run/runner_priv.h"

#define MOUNT_TIMEOUT_NS (60 * NS_PER_S)
#define UMOUNT_TIMEOUT_NS (30 * NS_PER_S)
#define DUTFS_EXIT_TIMEOUT_NS (60 * NS_PER_S)
#define CLUSTER_TIMEOUT_NS (300 * NS_PER_S)
#define STOP_TIMEOUT_NS (120 * NS_PER_S)
/* What root copies or reads from where others write, at most. */
#define SERVER_LOG_MAX_BYTES (64u << 20)
#define STATS_MAX_BYTES (16u << 20)
#define STATE_MAX_BYTES (64u << 10)

/* PostgreSQL's user: the only owner a file root takes from a data directory may have. */
static int postgres_uid(uid_t *ret)
{
	struct passwd *pw = getpwnam("postgres");

	if (!pw)
		return -ENOENT;
	*ret = pw->pw_uid;
	return 0;
}

void repeat_mark(struct runner *R, const char *label)
{
	struct repeat_ctx *x = R->rep;
	char cmd[256];

	run_pathf(cmd, sizeof(cmd), "mark %s", label);
	for (size_t t = 0; x && t < R->e->ntargets; t++) {
		struct dut_error err = { "" };

		if (x->targets[t].mounted && run_dutfs_control(x->targets[t].mnt, cmd, &err) < 0)
			runner_warn(R, "phase marker \"%s\" not written: %s", label, err.msg);
	}
}

static struct run_rep_state *repeat_state(struct runner *R)
{
	return &R->st->cfgs[R->rep->cfg].reps[R->rep->rep];
}

static void repeat_artifact(struct runner *R, const char *key, const char *file)
{
	if (run_rep_add_artifact(repeat_state(R), key, file) < 0)
		runner_warn(R, "out of memory recording %s", file);
}

static int cmd(struct runner *R, char *const argv[], const char *log, bool interruptible, uint64_t timeout_ns,
	       int *ret_status)
{
	struct run_cmd_opts o = { .log_path = log, .interruptible = interruptible,
				  .timeout_ns = timeout_ns, .grace_ns = 20 * NS_PER_S };

	return run_command(argv, &o, ret_status);
}

/* ---- undo actions ---- */

struct undo_arg {
	struct runner *R;
	struct repeat_target *t;
};

static int undo_stage(void *arg, struct dut_error *err)
{
	struct repeat_target *t = ((struct undo_arg *)arg)->t;
	int r = repeat_stage_teardown(t->stage, err);

	t->stage = NULL;
	return r;
}

static int undo_backing(void *arg, struct dut_error *err)
{
	struct repeat_target *t = ((struct undo_arg *)arg)->t;
	int r;

	if (t->mounted) {
		/* never remove data from under a mount that is still there */
		dut_error_set(err, "%s is still mounted: %s stays", t->mnt, t->backing);
		return -EBUSY;
	}
	r = run_rm_rf(t->backing);
	if (r < 0)
		dut_error_set(err, "cannot remove %s: %s", t->backing, dut_fs_safe_strerror(r));
	return r;
}

static int undo_mount(void *arg, struct dut_error *err)
{
	struct undo_arg *a = arg;
	struct repeat_target *t = a->t;
	struct runner *R = a->R;
	char src[PATH_MAX + 32], dst[PATH_MAX + 96], name[96], key[96];
	int r;

	if (run_is_mountpoint(t->mnt) == 1) {
		run_pathf(src, sizeof(src), "%s/.dutfs/stats.json", t->mnt);
		run_pathf(name, sizeof(name), "dutfs-stats%s.json", t->suffix);
		run_pathf(dst, sizeof(dst), "%s/%s", R->rep->dir, name);
		run_pathf(key, sizeof(key), "stats%s", t->suffix);
		/* served by dutfs (root's daemon) at the root of the mount, which is root's */
		r = run_copy_owned(src, 0, dst, RUN_FILE_MODE, STATS_MAX_BYTES);
		if (r == 0)
			repeat_artifact(R, key, name);
		else
			runner_warn(R, "cannot copy %s: %s", src, dut_fs_safe_strerror(r));
		r = run_umount(t->mnt, UMOUNT_TIMEOUT_NS, err);
		if (r < 0)
			return r;
		if (err->msg[0])
			runner_warn(R, "%s", err->msg);
	}
	t->mounted = false;
	if (!t->dutfs_pid && run_read_pidfile(t->pidfile, &t->dutfs_pid) < 0)
		t->dutfs_pid = 0;
	/* the trace is complete (footer written) only when the daemon has exited */
	if (t->dutfs_pid && run_wait_gone(t->dutfs_pid, DUTFS_EXIT_TIMEOUT_NS) < 0) {
		kill(t->dutfs_pid, SIGKILL);
		dut_error_set(err, "dutfs (pid %ld) did not exit %.0f s after the unmount of %s; killed it "
			      "(its trace has no footer)", (long)t->dutfs_pid,
			      (double)DUTFS_EXIT_TIMEOUT_NS / NS_PER_S, t->mnt);
		run_wait_gone(t->dutfs_pid, 5 * NS_PER_S);
		r = -ETIMEDOUT;
	} else {
		r = 0;
	}
	unlink(t->pidfile);
	rmdir(t->mnt);
	return r;
}

struct cluster_arg {
	struct runner *R;
	char pgdata[PATH_MAX];
	char log_name[64];      /* postgres.log or standby-postgres.log */
};

static uint64_t json_u64(json_object *o, const char *a, const char *b)
{
	json_object *x, *y;

	if (!json_object_object_get_ex(o, a, &x) || !json_object_object_get_ex(x, b, &y) ||
	    !json_object_is_type(y, json_type_int) || json_object_get_int64(y) < 0)
		return 0;
	return (uint64_t)json_object_get_int64(y);
}

/*
 * The database's size and the budget's peak usage, from the result
 * documents of the repetition's pgload steps (target.database_bytes,
 * config.memory.peak_bytes: the last document that has them), and a line
 * saying how much of the database fitted in the budget.
 */
static void collect_memory(struct runner *R)
{
	struct run_rep_state *rs = repeat_state(R);
	struct run_rep_memory *m = &rs->mem;
	char path[PATH_MAX + 256], b[32], p[32], d[32];

	for (size_t i = 0; i < R->e->nsteps; i++) {
		const struct run_argv_list *l = &rs->steps[i].results;

		if (strcmp(R->e->steps[i].type->tool, "pgload") != 0)
			continue;
		for (size_t j = 0; j < l->n; j++) {
			json_object *doc;
			uint64_t v;

			run_pathf(path, sizeof(path), "%s/%s", R->rep->dir, l->v[j]);
			if (!(doc = json_object_from_file(path)))
				continue;
			/* pgload's target.database_bytes and config.memory: the manifest's names */
			if ((v = json_u64(doc, "target", DUT_RM_DATABASE_BYTES)))
				m->database_bytes = v;
			{
				json_object *cfg;

				if (json_object_object_get_ex(doc, "config", &cfg) &&
				    (v = json_u64(cfg, DUT_RM_MEMORY, DUT_RM_PEAK_BYTES)) > m->peak_bytes)
					m->peak_bytes = v;
			}
			json_object_put(doc);
		}
	}
	if (!m->budget_bytes) {
		if (m->database_bytes)
			runner_say(R, "         database %s, no memory budget (it may be served from the page cache)",
				   dut_format_size(m->database_bytes, d, sizeof(d)));
		return;
	}
	dut_format_size(m->budget_bytes, b, sizeof(b));
	if (m->peak_bytes)
		dut_format_size(m->peak_bytes, p, sizeof(p));
	else
		snprintf(p, sizeof(p), "unknown");
	if (m->database_bytes)
		runner_say(R, "         memory budget %s (peak %s), database %s: %.1fx the budget", b, p,
			   dut_format_size(m->database_bytes, d, sizeof(d)),
			   (double)m->database_bytes / (double)m->budget_bytes);
	else
		runner_say(R, "         memory budget %s (peak %s)", b, p);
}

/*
 * A failed repetition whose server log shows a backend killed by SIGKILL
 * while the server ran in a memory budget: say that the budget's OOM killer
 * is the likely cause, and what to do, in the repetition's reason.
 */
static void explain_killed(struct runner *R, const char *log)
{
	struct run_rep_state *rs = &R->st->cfgs[R->rep->cfg].reps[R->rep->rep];
	char b[32], *text = NULL, *hit;
	size_t len;

	if (rs->status != RUN_FAILED || !rs->mem.budget_bytes ||
	    dut_read_small_file(log, SERVER_LOG_MAX_BYTES, &text, &len) < 0)
		return;
	if ((hit = strstr(text, "was terminated by signal 9")) != NULL) {
		dut_format_size(rs->mem.budget_bytes, b, sizeof(b));
		run_set_text(&rs->reason, "%s; the server log says a server process was killed (signal 9) "
			     "while the server ran in a %s memory budget: the budget's OOM killer, most "
			     "likely; raise [postgres] memory (ANALYZE with a high statistics target, sorts "
			     "and hash joins need memory beyond shared_buffers) or lower shared_buffers",
			     rs->reason ? rs->reason : "failed", b);
		runner_error(R, "%s rep %u: a server process was killed (signal 9) in a %s memory budget: "
			     "raise [postgres] memory (see %s)", R->st->cfgs[R->rep->cfg].dir, R->rep->rep + 1, b,
			     log);
	}
	free(text);
}

static int undo_cluster(void *arg, struct dut_error *err)
{
	struct cluster_arg *a = arg;
	struct runner *R = a->R;
	char state[PATH_MAX + 32], src[PATH_MAX + 32], dst[PATH_MAX + 96], log[PATH_MAX + 32];
	char *stop[] = { R->pgload, "cluster", "stop", "--pgdata", a->pgdata, NULL, NULL };
	char *destroy[] = { R->pgload, "cluster", "destroy", "--pgdata", a->pgdata, NULL };
	struct stat st;
	uid_t pg_uid;
	int status = 0, r;

	run_pathf(state, sizeof(state), "%s/pgload_state.json", a->pgdata);
	if (strcmp(a->log_name, "postgres.log") == 0)
		collect_memory(R);
	if (fstatat(AT_FDCWD, state, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;       /* init never got as far as a cluster */
	run_pathf(log, sizeof(log), "%s/cluster.log", R->rep->dir);
	r = cmd(R, stop, log, false, STOP_TIMEOUT_NS, &status);
	if (r < 0 || status != 0) {
		stop[5] = "--immediate";
		runner_warn(R, "the cluster in %s did not stop (see %s); stopping it immediately", a->pgdata, log);
		cmd(R, stop, log, false, STOP_TIMEOUT_NS, &status);
	}
	run_pathf(src, sizeof(src), "%s/pgload_server.log", a->pgdata);
	run_pathf(dst, sizeof(dst), "%s/%s", R->rep->dir, a->log_name);
	/* in postgres's data directory: a regular file of postgres's, no link
	 * followed; the copy is root's and private (it may quote secrets) */
	r = postgres_uid(&pg_uid);
	r = r ?: run_copy_owned(src, pg_uid, dst, RUN_PRIVATE_FILE_MODE, SERVER_LOG_MAX_BYTES);
	if (r == 0) {
		repeat_artifact(R, strcmp(a->log_name, "postgres.log") == 0 ? "server_log" : "standby_server_log",
				a->log_name);
		explain_killed(R, dst);
	}
	else if (r != -ENOENT)
		runner_warn(R, "not copying the server log %s: %s", src, dut_fs_safe_strerror(r));
	r = cmd(R, destroy, log, false, STOP_TIMEOUT_NS, &status);
	if (r < 0 || status != 0) {
		dut_error_set(err, "pgload cluster destroy --pgdata %s failed (see %s)", a->pgdata, log);
		return r < 0 ? r : -EIO;
	}
	return 0;
}

static int push(struct runner *R, const char *label, run_undo_fn fn, void *arg, struct dut_error *err)
{
	int r = run_cleanup_push(&R->rep->cleanup, label, fn, arg, free);

	if (r < 0) {
		/* cannot remember it: undo now rather than leave it behind */
		struct dut_error e2 = { "" };

		fn(arg, &e2);
		free(arg);
		dut_error_set(err, "out of memory");
	}
	return r;
}

static int push_target(struct runner *R, const char *label, run_undo_fn fn, struct repeat_target *t,
		       struct dut_error *err)
{
	struct undo_arg *a = calloc(1, sizeof(*a));

	if (!a) {
		struct dut_error e2 = { "" };
		struct undo_arg tmp = { R, t };

		fn(&tmp, &e2);
		dut_error_set(err, "out of memory");
		return -ENOMEM;
	}
	a->R = R;
	a->t = t;
	return push(R, label, fn, a, err);
}

/* ---- setup ---- */

static int make_backing(struct runner *R, struct repeat_target *t, struct dut_error *err)
{
	char marker[PATH_MAX + 32];
	struct stat st;
	int fd, r;

	run_pathf(t->backing, sizeof(t->backing), "%s/%s", t->dir, RUN_BACKING_NAME);
	run_pathf(marker, sizeof(marker), "%s/%s", t->backing, RUN_BACKING_MARKER);
	/* others must not be able to swap dutlab-run, or a directory above it, for a link
	 * while root works in it: the directory and all above it root's, writable by no one else */
	{
		char bad[PATH_MAX];
		const char *why;

		r = dut_path_trusted(t->dir, bad, sizeof(bad), &why);
		if (r == -EPERM) {
			dut_error_set(err, "target %s: %s is %s: that user could replace %s with a link while "
				      "root works in it; give a directory that only root can change (chown "
				      "root, chmod go-w, also the directories above it), or another one",
				      t->ct->target->name, bad, why, t->backing);
			return -EACCES;
		}
	}
	if (lstat(t->backing, &st) == 0) {
		pid_t owner = 0;

		/* only a real directory of root's with root's marker inside is ours to remove */
		if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
		    fstatat(AT_FDCWD, marker, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) ||
		    st.st_uid != geteuid()) {
			dut_error_set(err, "%s exists and was not made by dutlab run; move it away", t->backing);
			return -EEXIST;
		}
		if (run_read_pidfile(marker, &owner) == 0 && owner != getpid() && run_is_dutlab(owner)) {
			dut_error_set(err, "%s is in use by another dutlab run (pid %ld); wait for it or give this "
				      "experiment another target", t->backing, (long)owner);
			return -EBUSY;
		}
		if (run_is_mountpoint(t->backing) == 1) {
			dut_error_set(err, "%s is mounted; unmount it first", t->backing);
			return -EBUSY;
		}
		runner_warn(R, "removing %s, left by an earlier run that did not finish", t->backing);
		r = run_rm_rf(t->backing);
		if (r < 0) {
			dut_error_set(err, "cannot remove the leftover %s: %s", t->backing, dut_fs_safe_strerror(r));
			return r;
		}
	}
	if (mkdir(t->backing, 0755) < 0) {
		dut_error_set(err, "cannot create %s: %s", t->backing, strerror(errno));
		return -errno;
	}
	r = push_target(R, "remove the run's data", undo_backing, t, err);
	if (r < 0)
		return r;
	fd = open(marker, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd >= 0) {
		/* the owner's pid first (read back by run_read_pidfile), then what this is */
		if (dprintf(fd, "%ld\nmade by dutlab run: the data of a run, removed when it ends\n",
			    (long)getpid()) < 0)
			runner_warn(R, "cannot write %s: %s", marker, strerror(errno));
		close(fd);
	}
	return 0;
}

static int mount_dutfs(struct runner *R, const struct dut_config *cfg, struct repeat_target *t, size_t ti,
		       struct dut_error *err)
{
	struct run_argv a = { 0 };
	char trace[PATH_MAX + 64], log[PATH_MAX + 64], name[96], shape[PATH_MAX];
	const char *shape_rel = t->ct->shape;
	int status = 0, r;

	run_pathf(t->mnt, sizeof(t->mnt), "%s/mnt-%zu", R->work_root, ti);
	run_pathf(t->pidfile, sizeof(t->pidfile), "%s/dutfs-%zu.pid", R->work_root, ti);
	r = run_mkdir_p(t->mnt, 0755);
	if (r < 0) {
		dut_error_set(err, "cannot create the mountpoint %s: %s", t->mnt, strerror(-r));
		return r;
	}
	r = push_target(R, "unmount dutfs", undo_mount, t, err);
	if (r < 0)
		return r;
	run_pathf(name, sizeof(name), "trace%s.dtr", t->suffix);
	run_pathf(trace, sizeof(trace), "%s/%s", R->rep->dir, name);
	run_pathf(log, sizeof(log), "%s/dutfs%s.log", R->rep->dir, t->suffix);
	r = run_argv_add(&a, R->dutfs);
	r = r ?: run_argv_add(&a, t->backing);
	r = r ?: run_argv_add(&a, t->mnt);
	r = r ?: run_argv_add(&a, "--view");
	r = r ?: run_argv_add(&a, dut_view_name(cfg->view));
	if (cfg->trace) {
		r = r ?: run_argv_add(&a, "--trace");
		r = r ?: run_argv_add(&a, trace);
	}
	if (cfg->trace && R->e->trace_max_bytes) {
		char v[32];

		snprintf(v, sizeof(v), "%" PRIu64, R->e->trace_max_bytes);
		r = r ?: run_argv_add(&a, "--trace-max");
		r = r ?: run_argv_add(&a, v);
		if (R->e->trace_segments) {
			snprintf(v, sizeof(v), "%u", R->e->trace_segments);
			r = r ?: run_argv_add(&a, "--trace-segments");
			r = r ?: run_argv_add(&a, v);
		}
	}
	if (shape_rel && strcmp(shape_rel, "none") != 0) {
		if (shape_rel[0] == '/' || !R->e->base_dir)
			run_pathf(shape, sizeof(shape), "%s", shape_rel);
		else
			run_pathf(shape, sizeof(shape), "%s/%s", R->e->base_dir, shape_rel);
		r = r ?: run_argv_add(&a, "--shape");
		r = r ?: run_argv_add(&a, shape);
	}
	r = r ?: run_argv_add(&a, "--pidfile");
	r = r ?: run_argv_add(&a, t->pidfile);
	if (r < 0) {
		run_argv_free(&a);
		dut_error_set(err, "out of memory");
		return r;
	}
	r = cmd(R, a.v, log, true, MOUNT_TIMEOUT_NS, &status);
	run_argv_free(&a);
	if (r == -EINTR)
		return r;
	if (r < 0 || status != 0) {
		dut_error_set(err, "dutfs could not mount %s on %s (exit %d): see %s", t->backing, t->mnt, status, log);
		return r < 0 ? r : -EIO;
	}
	if (run_is_mountpoint(t->mnt) != 1) {
		dut_error_set(err, "dutfs exited 0 but %s is not mounted: see %s", t->mnt, log);
		return -EIO;
	}
	t->mounted = true;
	repeat_target_dutfs_mounted(R, t->ct);
	if (run_read_pidfile(t->pidfile, &t->dutfs_pid) < 0)
		runner_warn(R, "dutfs wrote no pid to %s: the end of its trace cannot be waited for", t->pidfile);
	if (cfg->trace) {
		char key[96];

		run_pathf(key, sizeof(key), "trace%s", t->suffix);
		repeat_artifact(R, key, name);
	}
	return 0;
}

static uint64_t json_u64_key(json_object *o, const char *k)
{
	json_object *v;

	if (!json_object_object_get_ex(o, k, &v) || !json_object_is_type(v, json_type_int) ||
	    json_object_get_int64(v) < 0)
		return 0;
	return (uint64_t)json_object_get_int64(v);
}

static int read_conninfo(struct runner *R, struct repeat_ctx *x, struct dut_error *err)
{
	char path[PATH_MAX + 32];
	_cleanup_free_ char *text = NULL;
	json_object *o = NULL, *sock, *port;
	const char *dir;
	size_t len;
	int64_t p;
	int r;

	/* pgload (run as root) writes it root's own; postgres owns the directory
	 * and could have replaced it: the owner and "no link" are checked on the fd */
	run_pathf(path, sizeof(path), "%s/pgload_state.json", x->pgdata);
	r = dut_read_file_owned(path, geteuid(), STATE_MAX_BYTES, &text, &len);
	if (r < 0) {
		dut_error_set(err, "refusing the cluster state file %s: %s (pgload, run as root, writes it "
			      "root-owned; rebuild pgload if this one does not)", path, dut_fs_safe_strerror(r));
		return r;
	}
	o = json_tokener_parse(text);
	if (!o || !json_object_object_get_ex(o, "socket_dir", &sock) || !json_object_is_type(sock, json_type_string) ||
	    !json_object_object_get_ex(o, "port", &port) || !json_object_is_type(port, json_type_int)) {
		json_object_put(o);
		dut_error_set(err, "cannot read the cluster's socket_dir and port from %s", path);
		return -EINVAL;
	}
	dir = json_object_get_string(sock);
	p = json_object_get_int64(port);
	{
		struct run_rep_memory *m = &R->st->cfgs[x->cfg].reps[x->rep].mem;

		/* the budget pgload recorded (it made and checked the cgroup) */
		m->budget_bytes = json_u64_key(o, "memory_bytes");
		m->shared_buffers_bytes = json_u64_key(o, "shared_buffers_bytes");
	}
	if (!run_socket_dir_ok(dir) || !run_port_ok(p)) {
		dut_error_set(err, "refusing the cluster state file %s: socket_dir \"%.64s\" or port %" PRId64
			      " is not what pgload makes (/tmp/pgload-XXXXXX, a port 1-65535)", path, dir, p);
		json_object_put(o);
		return -EINVAL;
	}
	r = run_conninfo_build(x->conninfo, sizeof(x->conninfo), dir, (int)p, "postgres", "postgres");
	json_object_put(o);
	if (r < 0)
		dut_error_set(err, "the conninfo of the cluster in %s is too long", x->pgdata);
	return r;
}

static struct repeat_target *target_named(struct runner *R, const char *name)
{
	for (size_t t = 0; name && t < R->e->ntargets; t++)
		if (strcmp(R->e->targets[t].name, name) == 0)
			return &R->rep->targets[t];
	return NULL;
}

static int make_postgres_dir(const char *dir)
{
	struct passwd *pw = getpwnam("postgres");
	_cleanup_close_ int fd = -1;

	if (!pw)
		return -ENOENT;
	/* new, in the run's fresh backing directory: an existing one is not ours */
	if (mkdir(dir, 0700) < 0)
		return -errno;
	fd = dut_open_nofollow(dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return fd;
	return fchown(fd, pw->pw_uid, pw->pw_gid) < 0 ? -errno : 0;
}

/* The last non-empty line of a log the runner wrote (pgload's message), "" if none. */
static void log_last_line(const char *path, char *buf, size_t len)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	char data[1024];
	ssize_t n;
	char *end, *start;

	buf[0] = '\0';
	if (fd < 0 || (n = dut_read_tail(fd, data, sizeof(data))) <= 0)
		return;
	end = data + n;
	while (end > data && (end[-1] == '\n' || end[-1] == ' '))
		*--end = '\0';
	start = strrchr(data, '\n');
	start = start ? start + 1 : data;
	/* not the command header the runner wrote itself */
	if (start[0] != '$')
		run_pathf(buf, len, "%s", start);
}

static int start_cluster(struct runner *R, const struct dut_config *cfg, struct dut_error *err)
{
	struct repeat_ctx *x = R->rep;
	struct repeat_target *pg = target_named(R, R->e->pg_target), *wal = target_named(R, R->e->wal_target);
	struct cluster_arg *ca;
	struct run_argv a = { 0 };
	char log[PATH_MAX + 32];
	int status = 0, r;

	run_pathf(x->pgdata, sizeof(x->pgdata), "%s/pgdata", pg->mnt);
	ca = calloc(1, sizeof(*ca));
	if (!ca)
		return -ENOMEM;
	ca->R = R;
	run_pathf(ca->pgdata, sizeof(ca->pgdata), "%s", x->pgdata);
	run_pathf(ca->log_name, sizeof(ca->log_name), "postgres.log");
	r = push(R, "stop the cluster", undo_cluster, ca, err);
	if (r < 0)
		return r;
	r = run_argv_add(&a, R->pgload);
	r = r ?: run_argv_add(&a, "cluster");
	r = r ?: run_argv_add(&a, "init");
	r = r ?: run_argv_add(&a, "--pgdata");
	r = r ?: run_argv_add(&a, x->pgdata);
	/* the configuration's PostgreSQL, as the checks found it (runner_check.c) */
	if (R->st->cfgs[cfg->index].pg.major)
		r = r ?: run_argv_addf(&a, "--bindir=%s", R->st->cfgs[cfg->index].pg.bindir);
	if (wal && wal != pg)
		r = r ?: run_argv_addf(&a, "--wal-dir=%s/pg_wal", wal->mnt);
	if (R->e->pg_memory_bytes)
		r = r ?: run_argv_addf(&a, "--memory=%" PRIu64, R->e->pg_memory_bytes);
	for (size_t i = 0; i < R->e->ntablespaces && r == 0; i++) {
		struct repeat_target *tt = target_named(R, R->e->tablespaces[i].target);
		char dir[PATH_MAX];

		/* pgload wants the directory there, PostgreSQL wants it its own */
		run_pathf(dir, sizeof(dir), "%s/ts-%s", tt->mnt, R->e->tablespaces[i].name);
		if ((r = make_postgres_dir(dir)) < 0) {
			dut_error_set(err, "cannot create the tablespace directory %s: %s", dir, strerror(-r));
			run_argv_free(&a);
			return r;
		}
		r = r ?: run_argv_add(&a, "--tablespace");
		r = r ?: run_argv_addf(&a, "%s=%s/ts-%s", R->e->tablespaces[i].name, tt->mnt,
				       R->e->tablespaces[i].name);
	}
	for (size_t i = 0; i < cfg->nsettings; i++) {
		/* the parser refused these already; pgload writes them into postgresql.conf */
		if (!dut_setting_name_ok(cfg->settings[i].name) || !dut_setting_value_ok(cfg->settings[i].value)) {
			dut_error_set(err, "[postgres] setting %.64s (line %u): not a setting name, or its value has a "
				      "control character", cfg->settings[i].name, cfg->settings[i].line);
			run_argv_free(&a);
			return -EINVAL;
		}
		r = r ?: run_argv_add(&a, "--set");
		r = r ?: run_argv_addf(&a, "%s=%s", cfg->settings[i].name, cfg->settings[i].value);
	}
	if (r < 0) {
		run_argv_free(&a);
		return r;
	}
	run_pathf(log, sizeof(log), "%s/cluster.log", x->dir);
	repeat_mark(R, "setup");
	r = cmd(R, a.v, log, true, CLUSTER_TIMEOUT_NS, &status);
	run_argv_free(&a);
	if (r == -EINTR)
		return r;
	if (r < 0 || status != 0) {
		char last[400];

		/* pgload's last word: a budget with no memory controller, a budget too small, ... */
		log_last_line(log, last, sizeof(last));
		dut_error_set(err, "pgload cluster init failed (exit %d)%s%.300s: see %s", status, last[0] ? ": " : "",
			      last, log);
		return r < 0 ? r : -EIO;
	}
	return read_conninfo(R, x, err);
}

static int start_standby(struct runner *R, const struct dut_config *cfg, struct dut_error *err)
{
	struct repeat_ctx *x = R->rep;
	struct repeat_target *rt = target_named(R, R->e->replica_target);
	struct cluster_arg *ca;
	char log[PATH_MAX + 32];
	char *argv[] = { R->pgload, "cluster", "standby", "--pgdata", x->standby_pgdata, "--primary", x->pgdata,
			 cfg->replica == DUT_REPLICA_SYNC ? "--sync" : NULL, NULL };
	int status = 0, r;

	run_pathf(x->standby_pgdata, sizeof(x->standby_pgdata), "%s/standby", rt->mnt);
	ca = calloc(1, sizeof(*ca));
	if (!ca)
		return -ENOMEM;
	ca->R = R;
	run_pathf(ca->pgdata, sizeof(ca->pgdata), "%s", x->standby_pgdata);
	run_pathf(ca->log_name, sizeof(ca->log_name), "standby-postgres.log");
	r = push(R, "stop the standby", undo_cluster, ca, err);
	if (r < 0)
		return r;
	run_pathf(log, sizeof(log), "%s/standby.log", x->dir);
	r = cmd(R, argv, log, true, CLUSTER_TIMEOUT_NS, &status);
	if (r == -EINTR)
		return r;
	if (r < 0 || status != 0) {
		dut_error_set(err, "pgload cluster standby failed (exit %d): see %s", status, log);
		return r < 0 ? r : -EIO;
	}
	return 0;
}

int repeat_setup(struct runner *R, unsigned cfg_i, unsigned rep, struct dut_error *err)
{
	const struct dut_config *cfg = &R->plan->configs[cfg_i];
	struct repeat_ctx *x;
	int r;

	x = calloc(1, sizeof(*x));
	if (!x || !(x->targets = calloc(R->e->ntargets, sizeof(*x->targets)))) {
		free(x);
		return -ENOMEM;
	}
	x->cfg = cfg_i;
	x->rep = rep;
	R->rep = x;
	run_pathf(x->dir, sizeof(x->dir), "%s/%s/rep%u", R->st->rundir, R->st->cfgs[cfg_i].dir, rep + 1);
	r = run_mkdir_p(x->dir, RUN_DIR_MODE);
	if (r < 0) {
		dut_error_set(err, "cannot create %s: %s", x->dir, strerror(-r));
		return r;
	}
	for (size_t t = 0; t < R->e->ntargets; t++) {
		struct repeat_target *rt = &x->targets[t];

		rt->ct = &cfg->targets[t];
		rt->used = cfg_target_used(R->e, cfg, t);
		rt->data = cfg_target_holds_data(R->e, cfg, t);
		if (!rt->ct->holds_pgdata)
			run_pathf(rt->suffix, sizeof(rt->suffix), "-%s", rt->ct->target->name);
		if (!rt->used)
			continue;
		r = repeat_stage_prepare(R, cfg, rt->ct, &rt->stage, err);
		if (r < 0)
			return r;
		r = push_target(R, "tear the target down", undo_stage, rt, err);
		if (r < 0)
			return r;
		/* resolved once, here: every later open and removal follows no link at all */
		if (repeat_stage_dir(rt->stage) && !realpath(repeat_stage_dir(rt->stage), rt->dir)) {
			dut_error_set(err, "target %s: cannot resolve %s: %s", rt->ct->target->name,
				      repeat_stage_dir(rt->stage), strerror(errno));
			return -errno;
		}
	}
	for (size_t t = 0; t < R->e->ntargets; t++) {
		struct repeat_target *rt = &x->targets[t];

		if (!rt->data)
			continue;
		if (!rt->dir[0]) {
			dut_error_set(err, "target %s has no filesystem to hold data (filesystem none)",
				      rt->ct->target->name);
			return -EINVAL;
		}
		if ((r = make_backing(R, rt, err)) < 0)
			return r;
		if (cfg->view == DUT_VIEW_OFF) {
			/* PostgreSQL (user postgres) reaches the data directly; dutlab does not
			 * change the modes of directories it did not make */
			run_pathf(rt->mnt, sizeof(rt->mnt), "%s", rt->backing);
			if ((r = runner_view_off_reachable(rt->ct->target->name, rt->backing, err)) < 0)
				return r;
		}
		else if ((r = mount_dutfs(R, cfg, rt, t, err)) < 0)
			return r;
	}
	if (run_signal_received)
		return -EINTR;
	if (cfg->needs_cluster && (r = start_cluster(R, cfg, err)) < 0)
		return r;
	if (cfg->needs_cluster && cfg->replica != DUT_REPLICA_NONE && (r = start_standby(R, cfg, err)) < 0)
		return r;
	return 0;
}

static void report_undo(const char *label, int ret, const struct dut_error *err, void *ctx)
{
	struct runner *R = ctx;

	if (ret < 0)
		runner_error(R, "teardown: %s: %s", label, err->msg[0] ? err->msg : strerror(-ret));
	else if (err->msg[0])
		runner_warn(R, "teardown: %s: %s", label, err->msg);
}

void repeat_teardown(struct runner *R)
{
	struct repeat_ctx *x = R->rep;

	if (!x)
		return;
	repeat_mark(R, "teardown");
	run_cleanup_unwind(&x->cleanup, report_undo, R);
	run_cleanup_free(&x->cleanup);
	free(x->targets);
	free(x);
	R->rep = NULL;
}
