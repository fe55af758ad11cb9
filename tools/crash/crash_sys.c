/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/file_io.h"
#include "lib/fs_safe.h"
#include "lib/pstat.h"
#include "lib/spawn.h"
#include "tools/crash/crash_shm.h"
#include "tools/crash/crash_sys.h"
#include "tools/run/runner_sys.h"

uint64_t crash_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void crash_sleep_ms(unsigned ms)
{
	run_sleep_ms(ms);
}

/* The runner's spawn: a process group of its own, the log appended (0600, no link followed). */
int crash_spawn(char *const argv[], const char *log, pid_t *ret_pid)
{
	return run_spawn(argv, log, false, ret_pid);
}

int crash_poll(pid_t pid, int *ret_status)
{
	int st, r = dut_wait_pid_nohang(pid, &st);

	if (r == 1)
		*ret_status = dut_wait_code(st);
	return r;
}

void crash_stop_group(pid_t pid, unsigned grace_ms)
{
	uint64_t t0 = crash_now_ms();
	int st;

	kill(-pid, SIGTERM);
	while (crash_poll(pid, &st) == 0) {
		if (crash_now_ms() - t0 > grace_ms) {
			kill(-pid, SIGKILL);
			waitpid(pid, &st, 0);
			break;
		}
		crash_sleep_ms(20);
	}
	kill(-pid, SIGKILL);   /* what is left of the group */
}

/* The parent pid of pid, -1 when it is gone. */
static pid_t parent_of(pid_t pid)
{
	struct dut_proc_stat st;

	return dut_pstat_read(pid, &st) < 0 ? -1 : (pid_t)st.ppid;
}

/* Running, not a zombie waiting for a slow reaper (pg_ctl's postmaster is reparented). */
static bool proc_alive(pid_t pid)
{
	struct dut_proc_stat st;

	return dut_pstat_read(pid, &st) == 0 && st.state != 'Z' && st.state != 'X';
}

static size_t children_of(pid_t parent, pid_t *out, size_t max)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	size_t n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) && n < max) {
		pid_t p = (pid_t)strtol(e->d_name, NULL, 10);

		if (p > 0 && parent_of(p) == parent)
			out[n++] = p;
	}
	closedir(d);
	return n;
}

int crash_become_subreaper(void)
{
	return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0 ? -errno : 0;
}

void crash_reap_orphans(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

/* The shared memory segments pid maps (crash_shm.h), added to s. */
static void shm_of(pid_t pid, struct crash_shm *s)
{
	char path[64], *buf = NULL;
	size_t len = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	/* /proc says size 0: read to the end */
	if (dut_read_text_alloc(path, 16u << 20, &buf, &len) == 0)
		crash_shm_from_maps(buf, s);
	free(buf);
}

/*
 * Remove what the killed server's processes had mapped, and what its
 * control segment lists (pinned areas nobody maps): no process of it is
 * left to use them.
 */
static unsigned shm_remove(struct crash_shm *s)
{
	unsigned removed = 0;

	for (size_t i = 0; i < s->ndsm; i++) {
		char path[CRASH_SHM_NAME + 16], *buf = NULL;
		size_t len = 0;

		snprintf(path, sizeof(path), "/dev/shm/%s", s->dsm[i]);
		/* the control segment is small (27 KiB for 122 backends); data segments are not read */
		if (crash_read_server_file(path, 256u << 10, &buf, &len) == 0)
			crash_shm_from_control(buf, len, s);
		free(buf);
	}
	for (size_t i = 0; i < s->ndsm; i++) {
		char path[CRASH_SHM_NAME + 16];

		snprintf(path, sizeof(path), "/dev/shm/%s", s->dsm[i]);
		removed += unlink(path) == 0;
	}
	for (size_t i = 0; i < s->nsysv; i++) {
		struct shmid_ds ds;

		/* only when nobody is attached (it was the killed server's) */
		if (shmctl(s->sysv[i], IPC_STAT, &ds) == 0 && ds.shm_nattch == 0)
			removed += shmctl(s->sysv[i], IPC_RMID, NULL) == 0;
	}
	return removed;
}

int crash_kill_server(pid_t postmaster, unsigned timeout_ms)
{
	pid_t kids[256];
	size_t n = children_of(postmaster, kids, 256);
	uint64_t t0 = crash_now_ms();
	struct crash_shm shm = { .ndsm = 0 };

	if (postmaster <= 1)
		return -EINVAL;
	/* what the server maps, read before the kill (the maps go with the processes) */
	shm_of(postmaster, &shm);
	for (size_t i = 0; i < n; i++)
		shm_of(kids[i], &shm);
	kill(postmaster, SIGKILL);
	for (size_t i = 0; i < n; i++)
		kill(kids[i], SIGKILL);
	for (;;) {
		/* the postmaster gone, not only dead: pg_ctl and pgload take a zombie for a
		 * running server.  As the subreaper we reap it (and its killed children) at
		 * once; otherwise PID 1 does, here only every ~2 s */
		bool alive;

		(void)waitpid(postmaster, NULL, WNOHANG);
		for (size_t i = 0; i < n; i++)
			(void)waitpid(kids[i], NULL, WNOHANG);
		alive = kill(postmaster, 0) == 0;

		for (size_t i = 0; i < n && !alive; i++)
			alive = proc_alive(kids[i]);
		if (!alive) {
			shm_remove(&shm);
			return 0;
		}
		if (crash_now_ms() - t0 > timeout_ms)
			return -ETIMEDOUT;
		crash_sleep_ms(20);
	}
}

static size_t read_cmdline(pid_t pid, char *buf, size_t len);

int crash_read_server_file(const char *path, size_t max_bytes, char **ret_buf, size_t *ret_len)
{
	return dut_read_file_owned(path, DUT_ANY_OWNER, max_bytes, ret_buf, ret_len);
}

/*
 * Whether pid runs a program named postgres as uid: postmaster.pid is
 * postgres's to write, and root SIGKILLs the pid it names, so a pid of
 * anyone else's process (or root's) is not taken from it.
 */
static bool is_postgres_as(pid_t pid, uid_t uid)
{
	char path[64], buf[4096];
	size_t n, plen;
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (stat(path, &st) < 0 || st.st_uid != uid)
		return false;
	n = read_cmdline(pid, buf, sizeof(buf));
	plen = n ? strlen(buf) : 0;
	return plen >= 8 && strcmp(buf + plen - 8, "postgres") == 0;
}

int crash_read_postmaster_pid(const char *pgdata, pid_t *ret)
{
	char path[4200], *buf = NULL;
	struct stat st;
	ssize_t n;
	long v;
	int fd;

	snprintf(path, sizeof(path), "%s/postmaster.pid", pgdata);
	fd = dut_open_regular(path, DUT_ANY_OWNER, &st);
	if (fd < 0)
		return fd;
	buf = calloc(1, 4096);
	n = buf ? read(fd, buf, 4095) : -1;
	close(fd);
	v = n > 0 ? strtol(buf, NULL, 10) : 0;
	free(buf);
	if (v <= 0)
		return -ENODATA;
	if (st.st_uid == 0 || v > INT_MAX || !is_postgres_as((pid_t)v, st.st_uid))
		return -ESRCH;
	*ret = (pid_t)v;
	return 0;
}

uint64_t crash_file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

int crash_append_file(const char *path, const char *text)
{
	/* postgresql.auto.conf in pgdata, which postgres writes: a regular file only */
	int fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	int r = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	if (dut_write_all(fd, text, strlen(text)) < 0)
		r = -EIO;
	if (close(fd) < 0 && !r)
		r = -errno;
	return r;
}

bool crash_file_mentions(const char *path, const char *needle, uint64_t from_offset)
{
	char *buf = NULL;
	size_t len = 0;
	bool found;

	if (crash_read_server_file(path, 64u << 20, &buf, &len) < 0)
		return false;
	found = from_offset < len && memmem(buf + from_offset, len - from_offset, needle, strlen(needle));
	free(buf);
	return found;
}

int crash_read_field(const char *path, const char *key, char *out, size_t outlen)
{
	char *buf = NULL, *p;
	size_t len = 0, klen = strlen(key);
	int r = dut_read_small_file(path, 1u << 20, &buf, &len);

	if (r < 0)
		return r;
	r = -ENOENT;
	for (p = buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (strncmp(p, key, klen) == 0 && p[klen] == ':' && p[klen + 1] == ' ') {
			size_t n = strcspn(p + klen + 2, "\n");

			snprintf(out, outlen, "%.*s", (int)n, p + klen + 2);
			r = 0;
			break;
		}
	}
	free(buf);
	return r;
}

/* argv of pid (NUL-separated) into buf; its length, 0 when unreadable. */
static size_t read_cmdline(pid_t pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	return (size_t)n;
}

/* Whether pid runs postgres with pgdata as one of its arguments. */
static bool is_postgres_of(pid_t pid, const char *pgdata)
{
	char buf[8192];
	size_t n = read_cmdline(pid, buf, sizeof(buf)), plen = strlen(buf);
	bool args_match = false;

	if (!n || plen < 8 || strcmp(buf + plen - 8, "postgres") != 0)
		return false;
	for (size_t i = plen + 1; i < n; i += strlen(buf + i) + 1)
		args_match |= strcmp(buf + i, pgdata) == 0;
	return args_match;
}

pid_t crash_find_postmaster(const char *pgdata)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t found = 0;

	if (!d)
		return 0;
	while (!found && (e = readdir(d))) {
		pid_t p = (pid_t)strtol(e->d_name, NULL, 10);

		/* the postmaster's children show their role, not -D: only it matches */
		if (p > 0 && is_postgres_of(p, pgdata))
			found = p;
	}
	closedir(d);
	return found;
}

int crash_tmpfs_free(const char *dir, bool *ret_tmpfs, uint64_t *ret_free_bytes)
{
	struct statfs f;

	if (statfs(dir, &f) < 0)
		return -errno;
	*ret_tmpfs = f.f_type == 0x01021994;   /* TMPFS_MAGIC */
	*ret_free_bytes = (uint64_t)f.f_bavail * (uint64_t)f.f_bsize;
	return 0;
}
