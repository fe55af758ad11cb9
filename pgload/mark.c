/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/fs_safe.h"
#include "lib/log.h"
#include "pgload/mark.h"

/*
 * Open a candidate control file found by walking up.  The walk starts in
 * PGDATA, which postgres can write: a link or a file planted there
 * (PGDATA/.dutfs/control -> /etc/passwd) must not receive root's writes.
 * So: no link in any component, a regular file, owned by root or by us
 * (dutfs reports the uid it runs as).  -errno for a refused candidate.
 */
static int open_candidate(const char *path)
{
	struct stat st;
	int fd;

	if (faccessat(AT_FDCWD, path, F_OK, AT_SYMLINK_NOFOLLOW) < 0)
		return -ENOENT;
	if ((fd = dut_open_nofollow(path, O_RDWR | O_NONBLOCK)) < 0)
		return fd;
	if (fstat(fd, &st) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	if (!S_ISREG(st.st_mode) || (st.st_uid != 0 && st.st_uid != geteuid())) {
		close(fd);
		return S_ISREG(st.st_mode) ? -EPERM : -EINVAL;
	}
	return fd;
}

/* The first acceptable .dutfs/control at or above start; its fd, path in ret. */
static int find_control(const char *start, char *ret, size_t len)
{
	char dir[PATH_MAX];

	if (!realpath(start, dir))
		return -errno;
	for (;;) {
		char *slash;
		int fd;

		if (snprintf(ret, len, "%s/.dutfs/control", strcmp(dir, "/") ? dir : "") >= (int)len)
			return -ENAMETOOLONG;
		fd = open_candidate(ret);
		if (fd >= 0)
			return fd;
		if (fd != -ENOENT)
			dut_warn("ignoring %s: %s", ret, dut_fs_safe_strerror(fd));
		slash = strrchr(dir, '/');
		if (!slash || strcmp(dir, "/") == 0)
			return -ENOENT;
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
}

int pgl_marker_open(struct pgl_marker *m, const char *explicit_path, const char *start_dir)
{
	m->fd = -1;
	m->path[0] = '\0';
	if (!explicit_path) {
		if (start_dir && (m->fd = find_control(start_dir, m->path, sizeof(m->path))) >= 0) {
			dut_dbg("phase markers go to %s", m->path);
			return 0;
		}
		dut_dbg("no dutfs control file above %s: phase markers are off",
			start_dir ? start_dir : "(unknown data directory)");
		m->fd = -1;
		m->path[0] = '\0';
		return 0;
	}
	snprintf(m->path, sizeof(m->path), "%s", explicit_path);
	m->fd = open(m->path, O_RDWR | O_CLOEXEC);
	if (m->fd < 0) {
		int e = errno;

		dut_err("cannot open the dutfs control file %s: %s", m->path, strerror(e));
		return -e;
	}
	dut_dbg("phase markers go to %s", m->path);
	return 0;
}

void pgl_mark(struct pgl_marker *m, const char *label)
{
	char cmd[256], status[256];
	int n;
	ssize_t got;

	if (m->fd < 0)
		return;
	n = snprintf(cmd, sizeof(cmd), "mark %s\n", label);
	/* One command per write(), as dutfs expects. */
	if (write(m->fd, cmd, (size_t)n) != n) {
		dut_warn("dutfs marker \"%s\" not written to %s: %s", label, m->path, strerror(errno));
		return;
	}
	got = pread(m->fd, status, sizeof(status) - 1, 0);
	if (got > 0) {
		status[got] = '\0';
		/* dutfs answers "ok" or "error: ..."; a plain file (tests) echoes the command */
		if (strncmp(status, "error", 5) == 0)
			dut_warn("dutfs refused marker \"%s\": %s", label, status);
	}
	dut_dbg("marker: %s", label);
}

void pgl_marker_close(struct pgl_marker *m)
{
	if (m->fd >= 0)
		close(m->fd);
	m->fd = -1;
}
