/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dutfs: arguments, checks, mount, daemon, signals.  The file system itself
 * is in fs.c and ops_*.c; tracing in tracer.c; the control dir in ctl.c.
 *
 * Daemonising: we fork before anything starts a thread (the trace writer
 * has one), and the parent waits on a pipe until the child has mounted,
 * opened the trace and written the pid file; then it exits 0.  So when
 * `dutfs ...` returns, the mount is live and --pidfile names the daemon.
 * (fuse_daemonize() would fork after the writer thread exists, and its
 * parent returns before the pid file is written.)  Any error before that
 * point reaches the caller's stderr and the parent exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#include "fuse/dutfs.h"
#include "fuse/relmap_class.h"
#include "fuse/shaper.h"
#include "fuse/shape/rules.h"
#include "fuse/shape/timerq.h"
#include "fuse/uring.h"
#include "lib/cleanup.h"
#include "lib/error.h"
#include "lib/file_io.h"
#include "lib/mountinfo.h"

static bool use_syslog;

static void say(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (use_syslog) {
		vsyslog(prio, fmt, ap);
	} else {
		fputs("dutfs: ", stderr);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	}
	va_end(ap);
}

/* libfuse's messages and ours (fuse_log from the layers) go where say() goes. */
static void log_func(enum fuse_log_level level, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static void log_func(enum fuse_log_level level, const char *fmt, va_list ap)
{
	if (use_syslog) {
		vsyslog((int)level, fmt, ap);
	} else {
		vfprintf(stderr, fmt, ap);
	}
}

/* mountinfo and the sysctls are small; this bounds a broken /proc */
#define DUTFS_PROC_TEXT_MAX (16u << 20)

/* Is any ancestor of path (itself included) the directory (dev, ino)? */
static bool has_ancestor(const char *path, dev_t dev, ino_t ino)
{
	char p[PATH_MAX];
	struct stat st;

	snprintf(p, sizeof(p), "%s", path);
	for (;;) {
		char *slash;

		if (stat(p, &st) == 0 && st.st_dev == dev && st.st_ino == ino)
			return true;
		slash = strrchr(p, '/');
		if (!slash || (slash == p && p[1] == '\0'))
			return false;
		if (slash == p)
			p[1] = '\0';
		else
			*slash = '\0';
	}
}

static int check_dir(const char *what, const char *given, char *real)
{
	struct stat st;

	if (!realpath(given, real)) {
		say(LOG_ERR, "%s %s: %s%s", what, given, strerror(errno),
		    errno == ENOENT ? " (create it first)" : "");
		return -1;
	}
	if (stat(real, &st) < 0 || !S_ISDIR(st.st_mode)) {
		say(LOG_ERR, "%s %s is not a directory", what, given);
		return -1;
	}
	return 0;
}

/* A file dutfs will write (trace, pid file): writable, and not inside the mount. */
static int check_out_file(const char *what, const char *path, const char *mnt)
{
	char dir[PATH_MAX], real[PATH_MAX];
	char *slash;
	int fd;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	if (realpath(dir, real) && dutfs_path_within(real, mnt)) {
		say(LOG_ERR, "%s %s lies inside the mountpoint %s; put it outside the mount", what,
		    path, mnt);
		return -1;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		say(LOG_ERR, "cannot write %s %s: %s", what, path, strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

static int check_args(const struct dutfs_cli *cli, char *backing, char *mnt)
{
	struct stat mst;
	char *mi = NULL;
	size_t milen = 0;
	int r;

	if (check_dir("backing directory", cli->backing, backing) < 0 ||
	    check_dir("mountpoint", cli->mountpoint, mnt) < 0)
		return -1;
	if (stat(mnt, &mst) < 0) {
		say(LOG_ERR, "mountpoint %s: %s", mnt, strerror(errno));
		return -1;
	}
	if (dutfs_path_within(backing, mnt) || has_ancestor(backing, mst.st_dev, mst.st_ino)) {
		say(LOG_ERR, "the backing directory %s is the mountpoint %s or lies inside it; "
		    "use a backing directory outside the mount", backing, mnt);
		return -1;
	}
	if (dutfs_path_within(mnt, backing)) {
		say(LOG_ERR, "the mountpoint %s lies inside the backing directory %s; "
		    "that would make dutfs serve its own mount (use a mountpoint outside it)", mnt, backing);
		return -1;
	}
	r = dut_read_text_alloc("/proc/self/mountinfo", DUTFS_PROC_TEXT_MAX, &mi, &milen);
	if (r == 0) {
		struct dut_mount *m = malloc(sizeof(*m));

		r = m ? dut_mountinfo_find_point(mi, milen, mnt, m) : -ENOMEM;
		free(m);
		free(mi);
		if (r == 1) {
			say(LOG_ERR, "%s is already a mount point (busy); unmount it first or choose another directory", mnt);
			return -1;
		}
	}
	if (cli->trace_path && check_out_file("trace file", cli->trace_path, mnt) < 0)
		return -1;
	if (cli->pidfile && check_out_file("pid file", cli->pidfile, mnt) < 0)
		return -1;
	return 0;
}

/*
 * The kernel gives a FUSE mount's writeback a strict 1 % share of the dirty
 * page limit (bdi max_ratio 1, strict_limit): a data load through the
 * writeback cache then stalls in balance_dirty_pages long before the device
 * is busy.  As root, give the mount the share an ordinary disk file system
 * has.  Found through mountinfo: stat() on the mount would wait for the
 * session loop, which is not running yet.
 */
#define DUTFS_BDI_MAX_RATIO "100"
static void tune_bdi(const char *mnt)
{
	_cleanup_free_ struct dut_mount *m = NULL;
	char *mi = NULL, path[128];
	size_t len = 0;
	int fd;

	if (geteuid() != 0 || !(m = malloc(sizeof(*m))) ||
	    dut_read_text_alloc("/proc/self/mountinfo", DUTFS_PROC_TEXT_MAX, &mi, &len) < 0)
		return;
	if (dut_mountinfo_find_point(mi, len, mnt, m) == 1) {
		/* the bdi of a FUSE mount is named by its device number */
		snprintf(path, sizeof(path), "/sys/class/bdi/%u:%u/max_ratio", m->major, m->minor);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, DUTFS_BDI_MAX_RATIO, strlen(DUTFS_BDI_MAX_RATIO)) < 0)
			say(LOG_WARNING, "could not raise the writeback share of %s (%s): %s; "
			    "writes may be throttled early", mnt, path, strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	free(mi);
}

/*
 * A sysctl (a number in /proc/sys) at least min: raised to min if lower,
 * which *raised says (with the old value in *ret_old).  0 or -errno.
 */
static int sysctl_at_least(const char *path, unsigned long min, bool *raised, unsigned long *ret_old)
{
	char *text = NULL, v[24];
	unsigned long cur;
	size_t len = 0;
	int fd, r;

	*raised = false;
	r = dut_read_text_alloc(path, DUTFS_PROC_TEXT_MAX, &text, &len);
	if (r < 0)
		return r;
	cur = strtoul(text, NULL, 10);
	free(text);
	if (cur >= min)
		return 0;
	snprintf(v, sizeof(v), "%lu", min);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = write(fd, v, strlen(v)) < 0 ? -errno : 0;
	close(fd);
	if (r == 0) {
		*raised = true;
		*ret_old = cur;
	}
	return r;
}

/* Can a new pipe hold size bytes? */
static bool pipe_takes(size_t size)
{
	int p[2];
	bool ok;

	if (pipe2(p, O_CLOEXEC) < 0)
		return false;
	ok = fcntl(p[0], F_SETPIPE_SZ, (int)size) >= 0;
	close(p[0]);
	close(p[1]);
	return ok;
}

/*
 * Device view over /dev/fuse, as root: ask for 8 MiB write requests instead
 * of 1020 KiB.  Writeback (a close(), VACUUM, a checkpoint) then reaches the
 * backing file as one O_DIRECT write per 8 MiB of a contiguous run, which
 * the backing disk takes faster than eight 1 MiB writes (docs/bench-dutfs.md).
 * Two system settings bound it, and dutfs raises each that is lower and
 * leaves it so (each only bounds what may be asked for; restoring one would
 * race with other mounts starting):
 *  - fs.fuse.max_pages_limit (256 by default): a connection's pages per
 *    request, read when the mount is made;
 *  - fs.pipe-max-size (1 MiB by default), only without CAP_SYS_RESOURCE: a
 *    spliced request must fit one pipe (loop.c).
 * Where it is not possible (not root, no such sysctl, the io_uring
 * transport, whose entries dutfs sizes for 1 MiB) requests stay at
 * 1020 KiB.  What was done goes into *note, for the start-up line.
 */
#define DUTFS_BIG_PAGES 2048u
#define DUTFS_MAX_PAGES_LIMIT "/proc/sys/fs/fuse/max_pages_limit"
#define DUTFS_PIPE_MAX_SIZE "/proc/sys/fs/pipe-max-size"
static void big_requests(struct dutfs *fs, const struct dutfs_cli *cli, char *note, size_t note_size)
{
	uint32_t max_write = DUTFS_BIG_PAGES * 4096u - 4096u;
	size_t pipe_size = (size_t)max_write + 4096u;
	unsigned long old_pages = 0, old_pipe = 0;
	bool raised_pages = false, raised_pipe = false;
	const char *what = NULL;
	char done[160] = "";
	int r = 0;

	note[0] = '\0';
	if (fs->view != DUTFS_VIEW_DEVICE || cli->transport != DUTFS_TRANSPORT_DEV || geteuid() != 0)
		return;
	if (!pipe_takes(pipe_size)) {
		r = sysctl_at_least(DUTFS_PIPE_MAX_SIZE, pipe_size, &raised_pipe, &old_pipe);
		if (!r && !pipe_takes(pipe_size))
			r = -EPERM;
		if (r < 0)
			what = DUTFS_PIPE_MAX_SIZE;
	}
	if (!r) {
		r = sysctl_at_least(DUTFS_MAX_PAGES_LIMIT, DUTFS_BIG_PAGES, &raised_pages, &old_pages);
		if (r < 0)
			what = DUTFS_MAX_PAGES_LIMIT;
	}
	if (raised_pipe)
		snprintf(done, sizeof(done), "; raised %s from %lu to %zu", DUTFS_PIPE_MAX_SIZE, old_pipe,
			 pipe_size);
	if (raised_pages)
		snprintf(done + strlen(done), sizeof(done) - strlen(done), "; raised %s from %lu to %u",
			 DUTFS_MAX_PAGES_LIMIT, old_pages, DUTFS_BIG_PAGES);
	if (r < 0) {
		snprintf(note, note_size, ", %u KiB write requests (%s: %s%s)", fs->max_write / 1024, what,
			 strerror(-r), done);
		return;
	}
	snprintf(note, note_size, ", %u KiB write requests%s%s%s", max_write / 1024,
		 done[0] ? " (" : "", done[0] ? done + 2 : "", done[0] ? ")" : "");
	fs->max_write = max_write;
}

static int write_pidfile(const char *path)
{
	FILE *f = fopen(path, "we");

	if (!f)
		return -errno;
	fprintf(f, "%ld\n", (long)getpid());
	return fclose(f) ? -errno : 0;
}

/*
 * Remove the pid file if it still names this process.  umount returns
 * before the daemon has exited, so a script that unmounts and mounts again
 * with the same --pidfile may already have the new daemon's pid there.
 */
static void remove_pidfile(const char *path)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;

	if (dut_read_small_file(path, 64, &buf, &len) == 0 && strtol(buf, NULL, 10) == (long)getpid())
		unlink(path);
}

/* Fork; the parent waits for the child's "mounted" byte and exits. Returns the write end in the child. */
static int daemonize_start(void)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe2(p, O_CLOEXEC) < 0) {
		say(LOG_ERR, "pipe: %s", strerror(errno));
		exit(1);
	}
	pid = fork();
	if (pid < 0) {
		say(LOG_ERR, "fork: %s", strerror(errno));
		exit(1);
	}
	if (pid > 0) {
		int st;

		close(p[1]);
		if (read(p[0], &c, 1) == 1 && c == '0')
			_exit(0);
		/* the child printed why; reap it if it has exited */
		waitpid(pid, &st, 0);
		_exit(1);
	}
	close(p[0]);
	setsid();
	return p[1];
}

static void daemonize_finish(int fd)
{
	int nul = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (nul >= 0) {
		dup2(nul, 0);
		dup2(nul, 1);
		dup2(nul, 2);
		close(nul);
	}
	openlog("dutfs", LOG_PID, LOG_DAEMON);
	use_syslog = true;
	if (chdir("/") < 0) {
		/* cannot happen for "/"; the backing dir is held by fd anyway */
	}
	if (write(fd, "0", 1) != 1) {
		/* parent gone: nobody to tell */
	}
	close(fd);
}

static int build_args(const struct dutfs_cli *cli, struct fuse_args *args)
{
	char opts[4096];

	snprintf(opts, sizeof(opts), "fsname=dutfs,subtype=dutfs,default_permissions%s%s%s",
		 geteuid() == 0 ? ",allow_other" : "", cli->fuse_opts ? "," : "",
		 cli->fuse_opts ? cli->fuse_opts : "");
	if (fuse_opt_add_arg(args, "dutfs") || fuse_opt_add_arg(args, "-o") ||
	    fuse_opt_add_arg(args, opts) || (cli->debug && fuse_opt_add_arg(args, "-d")))
		return -ENOMEM;
	return 0;
}

/*
 * The nice value of the threads that serve requests: the calling thread
 * takes it before the ring threads and the workers exist, and they inherit
 * it (Linux keeps a nice value per thread); the trace writer and the
 * shaper's timer thread, started earlier, keep the caller's.
 *
 * Why: a read that misses the mount's page cache waits for a CPU three
 * times (a worker woken by the request, woken again by the backing read's
 * completion, then the application woken by the reply) where a native read
 * waits once.  When the database's own processes keep every CPU busy (8
 * pgbench clients on 2 CPUs), each of those wake-ups can queue behind them.
 * The threads block in every request, so a higher
 * priority moves their turn forward and takes no CPU from anyone while
 * they wait.  Measured on 2026-12-07 (docs/bench-dutfs.md), -10 gained a
 * few percent at best, within the noise: without --nice nothing changes.
 * Returns the nice value the threads have; ret_errno says why --nice was
 * refused (no root, no CAP_SYS_NICE, a low RLIMIT_NICE), 0 otherwise.
 */
static int serving_priority(bool given, int nice, int *ret_errno)
{
	int err = 0;

	errno = 0;
	if (given && setpriority(PRIO_PROCESS, 0, nice) < 0) {
		err = errno;
		errno = 0;
	}
	nice = getpriority(PRIO_PROCESS, 0);
	if (errno)
		nice = 0;
	*ret_errno = err;
	return nice;
}

static void trace_info(struct dutfs *fs, int nice, int nice_errno)
{
	char v[128];

	dutfs_tracer_info(fs->tracer, "program", "dutfs " DUT_VERSION);
	dutfs_tracer_info(fs->tracer, "backing_dir", fs->backing);
	dutfs_tracer_info(fs->tracer, "mountpoint", fs->mountpoint);
	dutfs_tracer_info(fs->tracer, "view", dutfs_view_name(fs->view));
	snprintf(v, sizeof(v), "%u", fs->cli->threads);
	dutfs_tracer_info(fs->tracer, "threads", v);
	if (nice_errno)
		snprintf(v, sizeof(v), "%d (--nice %d refused: %s)", nice, fs->cli->nice, strerror(nice_errno));
	else
		snprintf(v, sizeof(v), "%d", nice);
	dutfs_tracer_info(fs->tracer, "serving_nice", v);
	snprintf(v, sizeof(v), "%.0f", DUTFS_TIMEOUT_S);
	dutfs_tracer_info(fs->tracer, "attr_timeout_s", v);
	if (fs->cli->fuse_opts)
		dutfs_tracer_info(fs->tracer, "fuse_opts", fs->cli->fuse_opts);
	/* the trace of a shaped run says so (records carry flags 0x4/0x8) */
	if (fs->cli->shape_path)
		dutfs_tracer_info(fs->tracer, "shape_rules", fs->cli->shape_path);
	if (fs->cli->relmap_path)
		dutfs_tracer_info(fs->tracer, "shape_relmap", fs->cli->relmap_path);
}

/* The transport in the trace header and the start-up line (after INIT: it is decided then). */
static void announce(struct dutfs *fs, const char *req_note)
{
	struct dutfs_transport_info ti;
	char detail[512] = "";

	dutfs_transport_get_info(fs->transport, &ti);
	dutfs_tracer_info(fs->tracer, "transport", ti.name);
	dutfs_tracer_info(fs->tracer, "transport_requested", ti.requested);
	if (ti.reason[0] && strcmp(ti.requested, "dev"))
		dutfs_tracer_info(fs->tracer, "transport_fallback", ti.reason);
	if (!strcmp(ti.name, "uring"))
		snprintf(detail, sizeof(detail), " (%u queues x %u threads x %u entries%s%s)", ti.queues,
			 ti.threads_per_queue, ti.entries_per_thread, ti.param_note[0] ? "; " : "",
			 ti.param_note);
	else if (strcmp(ti.requested, "dev"))
		snprintf(detail, sizeof(detail), " (%s requested; falling back to /dev/fuse: %s%s%s)",
			 ti.requested, ti.reason, ti.param_note[0] ? "; " : "", ti.param_note);
	say(LOG_INFO, "mounted %s on %s: view %s, transport %s%s%s", fs->backing, fs->mountpoint,
	    dutfs_view_name(fs->view), ti.name, detail, req_note);
}

static int serve(struct dutfs *fs, const struct dutfs_cli *cli, int ready_fd)
{
	struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
	struct fuse_session *se;
	uint64_t written = 0, dropped = 0;
	char req_note[320];
	int r, ret = 1, nice, nice_errno;

	/* before any thread that serves requests exists (see serving_priority) */
	nice = serving_priority(cli->nice_given, cli->nice, &nice_errno);
	if (nice_errno)
		say(LOG_WARNING, "cannot set the serving threads' nice value to %d (%s); they run at %d",
		    cli->nice, strerror(nice_errno), nice);
	if (build_args(cli, &args) < 0) {
		say(LOG_ERR, "out of memory");
		return 1;
	}
	se = fuse_session_new(&args, &dutfs_ll_ops, sizeof(dutfs_ll_ops), fs);
	if (!se) {
		say(LOG_ERR, "FUSE refused the options \"%s\" (see the message above)",
		    cli->fuse_opts ? cli->fuse_opts : "");
		goto out_args;
	}
	fs->se = se;
	/* before the mount: the kernel offers the ring in INIT only if enable_uring is on then */
	if (dutfs_transport_new(fs, cli->transport, cli->threads, cli->uring_entries, &fs->transport) < 0) {
		say(LOG_ERR, "out of memory");
		goto out_session;
	}
	/* before the mount: the kernel takes the page limit when the mount is made */
	big_requests(fs, cli, req_note, sizeof(req_note));
	if (fuse_set_signal_handlers(se) != 0) {
		say(LOG_ERR, "cannot install signal handlers");
		goto out_session;
	}
	if (fuse_session_mount(se, fs->mountpoint) != 0) {
		say(LOG_ERR, "cannot mount on %s (see the message above; is /dev/fuse there and fusermount3 installed?)",
		    fs->mountpoint);
		goto out_signals;
	}
	if (fs->view == DUTFS_VIEW_DEVICE)
		tune_bdi(fs->mountpoint);
	r = dutfs_transport_start(fs->transport);
	if (r < 0) {
		say(LOG_ERR, "no INIT from the kernel on %s: %s", fs->mountpoint, strerror(-r));
		goto out_unmount;
	}
	if (cli->pidfile && (r = write_pidfile(cli->pidfile)) < 0) {
		say(LOG_ERR, "cannot write pid file %s: %s", cli->pidfile, strerror(-r));
		goto out_unmount;
	}
	trace_info(fs, nice, nice_errno);
	announce(fs, req_note);
	if (ready_fd >= 0)
		daemonize_finish(ready_fd);
	/* a fixed pool of workers; loop.c says why it is not libfuse's loop */
	r = dutfs_session_loop(fs, cli->threads);
	/* replies still held by a model go out now, and their trace records are written */
	if (fs->sched)
		shape_sched_stop(fs->sched);
	ret = r < 0 ? 1 : 0;
	if (r < 0)
		say(LOG_ERR, "FUSE session ended with an error: %s", strerror(-r));
out_unmount:
	fuse_session_unmount(se);
	/* the kernel let go of the ring entries' buffers with the mount */
	dutfs_transport_free(fs->transport);
	fs->transport = NULL;
	r = dutfs_tracer_close(fs->tracer, &written, &dropped);
	if (r < 0)
		say(LOG_ERR, "trace file %s: write error: %s", cli->trace_path, strerror(-r));
	say(LOG_INFO, "unmounted %s; %llu records written, %llu dropped", fs->mountpoint,
	    (unsigned long long)written, (unsigned long long)dropped);
	if (cli->pidfile && ret == 0)
		remove_pidfile(cli->pidfile);
out_signals:
	fuse_remove_signal_handlers(se);
out_session:
	dutfs_transport_free(fs->transport);
	fs->transport = NULL;
	fuse_session_destroy(se);
out_args:
	fuse_opt_free_args(&args);
	return ret;
}

/*
 * Load and check --shape and --relmap before mounting.  Paths are made
 * absolute for reload (the daemon changes to /).
 */
static int load_shaping(const struct dutfs_cli *cli, char *rules_real, char *relmap_real,
			struct shape_rules **ret_rules, struct shape_classifier *ret_cls)
{
	struct dut_error err = { .msg = "" };
	struct shape_classifier cls = { 0 };

	if (!realpath(cli->shape_path, rules_real)) {
		say(LOG_ERR, "--shape %s: %s", cli->shape_path, strerror(errno));
		return -1;
	}
	if (cli->relmap_path) {
		if (!realpath(cli->relmap_path, relmap_real)) {
			say(LOG_ERR, "--relmap %s: %s", cli->relmap_path, strerror(errno));
			return -1;
		}
		if (dutfs_relmap_class_load(cli->relmap_path, &cls, &err) < 0) {
			say(LOG_ERR, "--relmap: %s; nothing mounted", err.msg);
			return -1;
		}
	}
	if (shape_rules_load(cli->shape_path, ret_rules, &err) < 0) {
		say(LOG_ERR, "%s; nothing mounted", err.msg);
		dutfs_relmap_class_free(&cls);
		return -1;
	}
	*ret_cls = cls;
	return 0;
}

int main(int argc, char *argv[])
{
	struct dutfs_cli cli;
	struct dut_error err = { .msg = "" };
	char backing[PATH_MAX], mnt[PATH_MAX], shape_real[PATH_MAX], relmap_real[PATH_MAX];
	struct shape_classifier cls = { 0 };
	struct shape_rules *rules = NULL;
	struct dutfs fs;
	int ready_fd = -1, r, ret;

	if (dutfs_cli_parse(argc, argv, &cli, &err) < 0) {
		fprintf(stderr, "dutfs: %s\n", err.msg);
		return 1;
	}
	if (cli.help) {
		fputs(dutfs_cli_usage, stdout);
		dutfs_cli_free(&cli);
		return 0;
	}
	if (cli.version) {
		printf("dutfs %s (libfuse %d)\n", DUT_VERSION, fuse_version());
		dutfs_cli_free(&cli);
		return 0;
	}
	if (!cli.transport_given && getenv("DUTFS_TRANSPORT") &&
	    dutfs_transport_mode_parse("$DUTFS_TRANSPORT", getenv("DUTFS_TRANSPORT"), &cli.transport, &err) < 0) {
		fprintf(stderr, "dutfs: %s\n", err.msg);
		dutfs_cli_free(&cli);
		return 1;
	}
	/* absolute paths before anything can change the working directory */
	if (check_args(&cli, backing, mnt) < 0) {
		dutfs_cli_free(&cli);
		return 1;
	}
	/* the rules are checked before anything is mounted: a broken file mounts nothing */
	if (cli.shape_path && load_shaping(&cli, shape_real, relmap_real, &rules, &cls) < 0) {
		dutfs_cli_free(&cli);
		return 1;
	}
	fuse_set_log_func(log_func);
	if (!cli.foreground)
		ready_fd = daemonize_start();
	r = dutfs_init_fs(&fs, &cli, backing, mnt);
	if (r < 0) {
		say(LOG_ERR, "%s: %s", r == -ENOMEM ? "start-up" : (cli.trace_path ? cli.trace_path : backing),
		    strerror(-r));
		shape_rules_free(rules);
		dutfs_relmap_class_free(&cls);
		dutfs_cli_free(&cli);
		return 1;
	}
	if (rules) {
		struct dutfs_shaper_opts so = {
			.rules_path = shape_real,
			.relmap_path = cli.relmap_path ? relmap_real : NULL,
			.preimage_max_bytes = cli.preimage_max_bytes,
		};

		r = dutfs_init_shaping(&fs, &so, rules, &cls);
		if (r < 0) {
			say(LOG_ERR, "cannot start shaping: %s", strerror(-r));
			dutfs_fini_fs(&fs);
			dutfs_cli_free(&cli);
			return 1;
		}
	}
	ret = serve(&fs, &cli, ready_fd);
	dutfs_fini_fs(&fs);
	dutfs_cli_free(&cli);
	return ret;
}
