/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/log.h"
#include "pgload/mark.h"

static int find_control(const char *start, char *ret, size_t len)
{
	char dir[PATH_MAX];

	if (!realpath(start, dir))
		return -errno;
	for (;;) {
		char *slash;

		if (snprintf(ret, len, "%s/.dutfs/control", strcmp(dir, "/") ? dir : "") >= (int)len)
			return -ENAMETOOLONG;
		if (access(ret, W_OK) == 0)
			return 0;
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
	if (explicit_path) {
		snprintf(m->path, sizeof(m->path), "%s", explicit_path);
	} else if (!start_dir || find_control(start_dir, m->path, sizeof(m->path)) < 0) {
		dut_dbg("no dutfs control file above %s: phase markers are off",
			start_dir ? start_dir : "(unknown data directory)");
		m->path[0] = '\0';
		return 0;
	}
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
