/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Files, mounts and processes for the runner (syscalls only; the decisions
 * are in runner.c and runner_rep.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/dutfs_ctl.h"
#include "lib/file_io.h"
#include "lib/fs_safe.h"
#include "lib/mountinfo.h"
#include "lib/pstat.h"
#include "lib/spawn.h"
#include "tools/run/runner_sys.h"

int run_mkdir_p(const char *path, mode_t mode)
{
	char buf[PATH_MAX];
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, n + 1);
	for (char *p = buf + 1;; p++) {
		if (*p == '/' || *p == '\0') {
			char c = *p;

			*p = '\0';
			if (mkdir(buf, mode) < 0 && errno != EEXIST)
				return -errno;
			*p = c;
			if (!c)
				break;
		}
	}
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

/*
 * In a child that became user (uid, gid and its groups): the first prefix
 * of path it cannot search.  A prefix that does not exist ends the walk:
 * what is below is made later, by dutlab.
 */
static int first_unsearchable(const char *path, char *bad, size_t bad_len)
{
	char buf[PATH_MAX];
	size_t n = strlen(path);

	if (n >= sizeof(buf) || path[0] != '/')
		return -EINVAL;
	for (size_t i = 1; i <= n; i++) {
		if (i < n && path[i] != '/')
			continue;
		memcpy(buf, path, i);
		buf[i] = '\0';
		if (access(buf, X_OK) == 0)
			continue;
		if (errno == ENOENT)
			return 0;
		snprintf(bad, bad_len, "%s", buf);
		return -errno;
	}
	return 0;
}

struct search_ctx {
	const char *path;
};

/* In the child, as the user: exit 1 with the prefix on stdout when one is not searchable. */
static int search_child(void *ctx)
{
	const struct search_ctx *x = ctx;
	char bad[PATH_MAX] = "";

	if (first_unsearchable(x->path, bad, sizeof(bad)) < 0)
		return write(STDOUT_FILENO, bad, strlen(bad)) < 0 ? 2 : 1;
	return 0;
}

int run_user_can_search(const char *path, const char *user, char *ret_bad, size_t bad_len)
{
	struct passwd *pw = getpwnam(user);
	char bad[PATH_MAX] = "";
	struct dut_capture cap = { .buf = bad, .cap = sizeof(bad) };
	struct search_ctx x = { .path = path };
	struct dut_spawn_ids ids;
	/* access() checks with the real ids: the child becomes the user for real, ACLs count */
	struct dut_spawn_opts o = { .out = { .how = DUT_SPAWN_CAPTURE }, .capture = &cap, .ids = &ids };
	struct dut_child c;
	int r;

	if (!pw)
		return -ENOENT;
	ids = (struct dut_spawn_ids){ .uid = pw->pw_uid, .gid = pw->pw_gid, .groups_of = user };
	if ((r = dut_spawn_call(search_child, &x, &o, &c)) < 0)
		return r;
	if ((r = dut_child_wait(&c, 0, 0)) < 0)
		return r;
	if (c.fail != DUT_SPAWN_OK || !WIFEXITED(c.status) || WEXITSTATUS(c.status) == 2)
		return -EIO;
	if (WEXITSTATUS(c.status) == 1) {
		snprintf(ret_bad, bad_len, "%s", bad);
		return -EACCES;
	}
	return 0;
}

/* Whether a mount sits on path (as given or resolved): 1, 0, or -errno reading mountinfo. */
int run_is_mountpoint(const char *path)
{
	_cleanup_free_ char *text = NULL;
	_cleanup_free_ struct dut_mount *m = malloc(sizeof(*m));
	char real[PATH_MAX];
	size_t len;
	int r;

	if (!m)
		return -ENOMEM;
	r = dut_read_text_alloc("/proc/self/mountinfo", 64u << 20, &text, &len);
	if (r < 0)
		return r;
	if (!realpath(path, real))
		snprintf(real, sizeof(real), "%s", path);
	return dut_mountinfo_find_point(text, len, real, m) == 1 || dut_mountinfo_find_point(text, len, path, m) == 1;
}

int run_copy_owned(const char *src, uid_t owner, const char *dst, mode_t mode, size_t max_bytes)
{
	return dut_copy_file_safe(src, owner, dst, mode, max_bytes);
}

int run_rm_rf(const char *path)
{
	return dut_remove_tree(path);
}

int run_write_file(const char *path, const char *text, mode_t mode)
{
	return dut_write_file_nofollow(path, text, strlen(text), mode, (uid_t)-1, (gid_t)-1);
}

const char *run_var_root(void)
{
	const char *env = getenv("DUTLAB_VAR_ROOT");

	/* a test seam: the tests must not touch the machine's /var/tmp/dutlab */
	return env && env[0] == '/' ? env : RUN_VAR_ROOT_DEFAULT;
}

int run_ensure_private_dir(const char *path, mode_t mode, char *ret_bad, size_t bad_len)
{
	return dut_ensure_private_dir(path, mode, ret_bad, bad_len);
}

int run_free_bytes(const char *path, uint64_t *ret)
{
	char buf[PATH_MAX];
	struct statvfs sv;

	snprintf(buf, sizeof(buf), "%s", path);
	while (statvfs(buf, &sv) < 0) {
		if (errno != ENOENT || strcmp(buf, "/") == 0)
			return -errno;
		snprintf(buf, sizeof(buf), "%s", dirname(buf));
	}
	*ret = (uint64_t)sv.f_bfree * sv.f_frsize;
	return 0;
}

int run_umount(const char *mnt, uint64_t timeout_ns, struct dut_error *err)
{
	uint64_t t0 = run_now_ns();

	for (;;) {
		/* UMOUNT_NOFOLLOW: a mount point replaced by a link must not unmount where it points */
		if (umount2(mnt, UMOUNT_NOFOLLOW) == 0)
			return 0;
		if (errno == EINVAL || errno == ENOENT) {
			/* not (or no longer) mounted */
			return run_is_mountpoint(mnt) == 1 ? -EINVAL : 0;
		}
		if (errno != EBUSY || run_now_ns() - t0 > timeout_ns)
			break;
		run_sleep_ms(250);
	}
	int e = errno;

	if (umount2(mnt, MNT_DETACH | UMOUNT_NOFOLLOW) == 0) {
		dut_error_set(err, "%s was busy (%s) for %.0f s: detached it lazily", mnt, strerror(e),
			      (double)timeout_ns / 1e9);
		return 0;
	}
	dut_error_set(err, "cannot unmount %s: %s", mnt, strerror(errno));
	return -errno;
}

/* A zombie that init has not reaped yet counts as gone. */
static bool pid_alive(pid_t pid)
{
	struct dut_proc_stat st;
	int r;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return false;
	r = dut_pstat_read(pid, &st);
	/* a stat that does not parse says nothing: alive, as kill(2) said */
	return r == 0 ? st.state != 'Z' : r == -EINVAL;
}

int run_wait_gone(pid_t pid, uint64_t timeout_ns)
{
	uint64_t t0 = run_now_ns();

	while (pid_alive(pid)) {
		if (run_now_ns() - t0 > timeout_ns)
			return -ETIMEDOUT;
		run_sleep_ms(50);
	}
	return 0;
}

int run_read_pidfile(const char *path, pid_t *ret)
{
	_cleanup_free_ char *text = NULL;
	size_t len;
	long v;
	char *end;
	/* pid files are root's own (the marker, dutfs's pid file): anything else is planted */
	int r = dut_read_file_owned(path, geteuid(), 4096, &text, &len);

	if (r < 0)
		return r;
	errno = 0;
	v = strtol(text, &end, 10);
	if (errno || end == text || v <= 1)
		return -EINVAL;
	*ret = (pid_t)v;
	return 0;
}

bool run_is_dutlab(pid_t pid)
{
	char path[64], comm[64] = "";
	_cleanup_fclose_ FILE *f = NULL;

	if (!pid_alive(pid))
		return false;
	snprintf(path, sizeof(path), "/proc/%ld/comm", (long)pid);
	f = fopen(path, "re");
	if (!f || !fgets(comm, sizeof(comm), f))
		return false;
	return strncmp(comm, "dutlab", 6) == 0;
}

int run_dutfs_control(const char *mnt, const char *cmd, struct dut_error *err)
{
	char path[PATH_MAX], status[256];
	_cleanup_close_ int fd = -1;
	int r;

	snprintf(path, sizeof(path), "%s/" DUT_CTL_NAME, mnt);
	if ((fd = dut_ctl_open(path)) < 0) {
		dut_error_set(err, "cannot open %s: %s", path, dut_fs_safe_strerror(fd));
		return fd;
	}
	r = dut_ctl_command(fd, cmd, status, sizeof(status));
	if (r == -EINVAL)
		dut_error_set(err, "dutfs refused \"%s\": %s", cmd, status);
	else if (r < 0)
		dut_error_set(err, "cannot write \"%s\" to %s: %s", cmd, path, strerror(-r));
	return r;
}

int run_pathf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

bool run_is_executable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

int run_self_exe(char *buf, size_t len)
{
	static const char gone[] = " (deleted)";
	ssize_t n = len ? readlink("/proc/self/exe", buf, len - 1) : -1;
	size_t l;

	if (n < 0)
		return -errno;
	buf[n] = '\0';
	/* rebuilt or upgraded while running (ninja, apt): the new file at the same path */
	l = (size_t)n;
	if (l > sizeof(gone) - 1 && strcmp(buf + l - (sizeof(gone) - 1), gone) == 0)
		buf[l - (sizeof(gone) - 1)] = '\0';
	return 0;
}

int run_proc_cpu_ticks(pid_t pid, uint64_t *ret)
{
	struct dut_proc_stat st;
	int r = dut_pstat_read(pid, &st);

	if (r < 0)
		return r;
	*ret = st.utime + st.stime;
	return 0;
}

long run_clock_ticks(void)
{
	long t = sysconf(_SC_CLK_TCK);

	return t > 0 ? t : 100;
}

int run_find_tools(struct run_tools *t, struct dut_error *err)
{
	const char *env = getenv("DUT_BUILD_ROOT");
	char exe[PATH_MAX];
	int n = run_self_exe(exe, sizeof(exe)) == 0;
	int r;

	if (!n)
		exe[0] = '\0';
	r = run_tools_resolve(n ? exe : NULL, env, getenv("PATH"), run_is_executable, t);
	if (r == -ENOENT)
		dut_error_set(err, "cannot find dutfs, pgload and dutprobe: not in the build tree of %s, "
			      "not beside it and not on PATH; build the whole project (ninja -C build) "
			      "or install the dutlab package", n ? exe : "dutlab");
	else if (r < 0)
		dut_error_set(err, "cannot find dutfs, pgload and dutprobe: %s", strerror(-r));
	return r;
}

bool run_command_mentions(char *const argv[], const char *needle)
{
	char tmpl[] = "/tmp/dutlab-probe.XXXXXX";
	struct run_cmd_opts o = { .timeout_ns = 20ull * 1000000000, .grace_ns = 1000000000,
				  .no_header = true };
	_cleanup_free_ char *text = NULL;
	size_t len;
	int fd = mkstemp(tmpl), status;
	bool found = false;

	if (fd < 0)
		return false;
	close(fd);
	o.log_path = tmpl;
	if (run_command(argv, &o, &status) == 0 && dut_read_small_file(tmpl, 1u << 20, &text, &len) == 0)
		found = strstr(text, needle) != NULL;
	unlink(tmpl);
	return found;
}
