/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Memory budgets, the system half: make, fill, measure and remove the cgroup (memcg.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/file_io.h"
#include "lib/memcg.h"

static int write_text(const char *dir, const char *file, const char *text)
{
	char path[PATH_MAX + 64];
	_cleanup_close_ int fd = -1;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	return dut_write_all(fd, text, strlen(text));
}

static int read_u64(const char *dir, const char *file, uint64_t *ret)
{
	char path[PATH_MAX + 64], buf[64];
	int r;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if ((r = dut_read_text(path, buf, sizeof(buf))) < 0)
		return r;
	if (!strncmp(buf, "max", 3)) {
		*ret = UINT64_MAX;
		return 0;
	}
	char *end;
	errno = 0;
	unsigned long long v = strtoull(buf, &end, 10);

	if (errno || end == buf)
		return -EINVAL;
	*ret = v;
	return 0;
}

static bool word_in(const char *text, const char *word)
{
	size_t w = strlen(word);

	for (const char *p = text; (p = strstr(p, word)); p += w)
		if ((p == text || p[-1] == ' ' || p[-1] == '\n') &&
		    (p[w] == '\0' || p[w] == ' ' || p[w] == '\n'))
			return true;
	return false;
}

/* Which hierarchy to use and where its root is. */
static int pick(struct dut_memcg_mounts *m, enum dut_memcg_kind *ret_kind, struct dut_error *err)
{
	char path[PATH_MAX + 32], ctl[512];
	int r;

	if ((r = dut_memcg_read_mounts(m, err)) < 0)
		return r;
	if (m->v2_mountpoint[0]) {
		snprintf(path, sizeof(path), "%s/cgroup.controllers", m->v2_mountpoint);
		if (dut_read_text(path, ctl, sizeof(ctl)) == 0 && word_in(ctl, "memory")) {
			*ret_kind = DUT_MEMCG_V2;
			return 0;
		}
	}
	if (m->v1_mountpoint[0]) {
		*ret_kind = DUT_MEMCG_V1;
		return 0;
	}
	dut_error_set(err, "no memory cgroup controller is available (cgroup v2 at %s lists no "
		      "\"memory\" controller and no cgroup v1 memory hierarchy is mounted); a memory "
		      "budget needs one: boot with cgroup v2 (systemd's default) or mount the v1 "
		      "controller (mount -t cgroup -o memory cgroup /sys/fs/cgroup/memory)",
		      m->v2_mountpoint[0] ? m->v2_mountpoint : "(not mounted)");
	return -ENOTSUP;
}

/* v2: the mount's root and dutlab/ hand the memory controller down. */
static int v2_prepare(const struct dut_memcg_mounts *m, struct dut_error *err)
{
	char dir[PATH_MAX + 16], path[PATH_MAX + 48], ctl[512];
	int r;

	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", m->v2_mountpoint);
	if ((r = dut_read_text(path, ctl, sizeof(ctl))) < 0 ||
	    (!word_in(ctl, "memory") && (r = write_text(m->v2_mountpoint, "cgroup.subtree_control",
							 "+memory")) < 0)) {
		dut_error_set(err, "cannot enable the memory controller in %s: %s", path, strerror(-r));
		return r;
	}
	snprintf(dir, sizeof(dir), "%s/dutlab", m->v2_mountpoint);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		r = -errno;
		dut_error_set(err, "cannot create the cgroup %s: %s", dir, strerror(-r));
		return r;
	}
	if ((r = write_text(dir, "cgroup.subtree_control", "+memory")) < 0) {
		dut_error_set(err, "cannot enable the memory controller in %s/cgroup.subtree_control: %s",
			      dir, strerror(-r));
		return r;
	}
	return 0;
}

static int procs_empty(const char *dir, bool *ret_empty)
{
	char path[PATH_MAX + 32], buf[256];
	int r;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	if ((r = dut_read_text(path, buf, sizeof(buf))) < 0 && r != -EFBIG)
		return r;
	*ret_empty = buf[0] == '\0';
	return 0;
}

int dut_memcg_read_mounts(struct dut_memcg_mounts *ret, struct dut_error *err)
{
	_cleanup_free_ char *text = NULL;
	int r;

	/* a host with many mounts has a long mountinfo (up to 64 MiB) */
	r = dut_read_text_alloc("/proc/self/mountinfo", (size_t)64 << 20, &text, NULL);
	if (r < 0 || (r = dut_memcg_parse_mounts(text, ret)) < 0) {
		dut_error_set(err, "cannot read /proc/self/mountinfo: %s", strerror(-r));
		return r;
	}
	return 0;
}

int dut_memcg_locate(const char *name, uint64_t limit_bytes, struct dut_memcg *ret,
		     struct dut_error *err)
{
	struct dut_memcg_mounts m;
	struct dut_memcg cg = { .limit_bytes = limit_bytes };
	char self[PATH_MAX] = "", text[4096];
	int r;

	if (limit_bytes < DUT_MEMCG_MIN_BYTES) {
		dut_error_set(err, "a memory budget of %" PRIu64 " bytes is too small (at least %llu MiB)",
			      limit_bytes, DUT_MEMCG_MIN_BYTES >> 20);
		return -EINVAL;
	}
	if ((r = pick(&m, &cg.kind, err)) < 0)
		return r;
	if (cg.kind == DUT_MEMCG_V1 &&
	    ((r = dut_read_text("/proc/self/cgroup", text, sizeof(text))) < 0 ||
	     (r = dut_memcg_self_path(text, DUT_MEMCG_V1, self, sizeof(self))) < 0)) {
		dut_error_set(err, "cannot find this process's memory cgroup in /proc/self/cgroup: %s",
			      strerror(-r));
		return r;
	}
	if ((r = dut_memcg_child_dir(cg.kind, &m, self, name, cg.dir, sizeof(cg.dir))) < 0) {
		dut_error_set(err, "cannot place the cgroup \"%s\" under %s: %s", name,
			      cg.kind == DUT_MEMCG_V2 ? m.v2_mountpoint : m.v1_mountpoint, strerror(-r));
		return r;
	}
	*ret = cg;
	return 0;
}

int dut_memcg_make(const struct dut_memcg *cg, struct dut_error *err)
{
	struct dut_memcg_mounts m;
	enum dut_memcg_kind kind;
	char num[32];
	bool empty;
	int r;

	if (cg->kind == DUT_MEMCG_V2 && ((r = pick(&m, &kind, err)) < 0 || (r = v2_prepare(&m, err)) < 0))
		return r;
	if (mkdir(cg->dir, 0755) < 0) {
		r = -errno;
		if (r != -EEXIST) {
			dut_error_set(err, "cannot create the cgroup %s: %s%s", cg->dir, strerror(-r),
				      r == -EACCES || r == -EPERM ? " (memory budgets need root)" : "");
			return r;
		}
		if ((r = procs_empty(cg->dir, &empty)) < 0 || !empty) {
			dut_error_set(err, "the cgroup %s exists and has processes in it (another run "
				      "uses that budget: stop it, or pick another name)", cg->dir);
			return r < 0 ? r : -EBUSY;
		}
	}
	snprintf(num, sizeof(num), "%" PRIu64, cg->limit_bytes);
	if ((r = write_text(cg->dir, dut_memcg_limit_file(cg->kind), num)) < 0) {
		dut_error_set(err, "cannot set %s/%s to %s: %s", cg->dir, dut_memcg_limit_file(cg->kind),
			      num, strerror(-r));
		rmdir(cg->dir);
		return r;
	}
	return 0;
}

int dut_memcg_create(const char *name, uint64_t limit_bytes, struct dut_memcg *ret,
		     struct dut_error *err)
{
	struct dut_memcg cg;
	int r;

	if ((r = dut_memcg_locate(name, limit_bytes, &cg, err)) < 0 || (r = dut_memcg_make(&cg, err)) < 0)
		return r;
	*ret = cg;
	return 0;
}

int dut_memcg_open(const char *dir, struct dut_memcg *ret, struct dut_error *err)
{
	struct dut_memcg cg = { 0 };
	char path[PATH_MAX + 32];
	int r;

	if (snprintf(cg.dir, sizeof(cg.dir), "%s", dir) >= (int)sizeof(cg.dir))
		return -ENAMETOOLONG;
	snprintf(path, sizeof(path), "%s/memory.max", dir);
	cg.kind = access(path, F_OK) == 0 ? DUT_MEMCG_V2 : DUT_MEMCG_V1;
	if ((r = read_u64(dir, dut_memcg_limit_file(cg.kind), &cg.limit_bytes)) < 0) {
		dut_error_set(err, "%s is not a memory cgroup (%s: %s)", dir,
			      dut_memcg_limit_file(cg.kind), strerror(-r));
		return r;
	}
	*ret = cg;
	return 0;
}

int dut_memcg_enter(const struct dut_memcg *cg, pid_t pid)
{
	char num[32];

	snprintf(num, sizeof(num), "%d", pid ? (int)pid : (int)getpid());
	return write_text(cg->dir, dut_memcg_procs_file(cg->kind), num);
}

int dut_memcg_usage(const struct dut_memcg *cg, uint64_t *ret_current, uint64_t *ret_peak)
{
	uint64_t cur, peak = 0;
	int r;

	if ((r = read_u64(cg->dir, dut_memcg_usage_file(cg->kind), &cur)) < 0)
		return r;
	if (read_u64(cg->dir, dut_memcg_peak_file(cg->kind), &peak) < 0)
		peak = 0;
	*ret_current = cur;
	*ret_peak = peak;
	return 0;
}

/* Move every process left in dir to its parent cgroup. */
static void evict(const char *dir)
{
	char path[PATH_MAX + 32], parent[PATH_MAX];
	static char buf[1 << 14];
	char *slash, *p, *save = NULL;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	buf[0] = '\0';         /* static: a failed read must not replay the last one */
	if (dut_read_text(path, buf, sizeof(buf)) < 0 && !buf[0])
		return;
	snprintf(parent, sizeof(parent), "%s", dir);
	slash = strrchr(parent, '/');
	if (!slash || slash == parent)
		return;
	*slash = '\0';
	for (p = strtok_r(buf, "\n", &save); p; p = strtok_r(NULL, "\n", &save))
		write_text(parent, "cgroup.procs", p);
}

int dut_memcg_kill(const struct dut_memcg *cg, int sig)
{
	char path[PATH_MAX + 32];
	static char buf[1 << 14];
	char *p, *save = NULL, *end;
	int r, n = 0;

	snprintf(path, sizeof(path), "%s/%s", cg->dir, dut_memcg_procs_file(cg->kind));
	buf[0] = '\0';
	if ((r = dut_read_text(path, buf, sizeof(buf))) < 0 && r != -EFBIG)
		return r == -ENOENT ? 0 : r;
	for (p = strtok_r(buf, "\n", &save); p; p = strtok_r(NULL, "\n", &save)) {
		long pid = strtol(p, &end, 10);

		if (pid > 1 && *end == '\0' && pid != (long)getpid() && kill((pid_t)pid, sig) == 0)
			n++;
	}
	return n;
}

int dut_memcg_remove(const struct dut_memcg *cg)
{
	const struct timespec pause = { 0, 20 * 1000 * 1000 };

	for (int tries = 0; tries < 50; tries++) {
		if (rmdir(cg->dir) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -errno;
		evict(cg->dir);         /* a straggler, or a task still exiting */
		nanosleep(&pause, NULL);
	}
	return -EBUSY;
}
