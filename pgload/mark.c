/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dutfs phase markers: see mark.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/dutfs_ctl.h"
#include "lib/fs_safe.h"
#include "pgload/mark.h"

/* A .dutfs/control found walking up from PGDATA but refused (lib/dutfs_ctl.h says why): the first is kept. */
static void refused(const char *path, int err, void *ctx)
{
	struct pgl_marker *m = ctx;

	if (!m->refused.msg[0])
		dut_error_set(&m->refused, "ignoring %s: %s", path, dut_fs_safe_strerror(err));
}

int pgl_marker_open(struct pgl_marker *m, const char *explicit_path, const char *start_dir,
		    struct dut_error *err)
{
	m->fd = -1;
	m->path[0] = '\0';
	m->where.msg[0] = m->refused.msg[0] = '\0';
	if (!explicit_path) {
		if (start_dir && (m->fd = dut_ctl_find(start_dir, m->path, sizeof(m->path), refused, m)) >= 0) {
			dut_error_set(&m->where, "phase markers go to %s", m->path);
			return 0;
		}
		dut_error_set(&m->where, "no dutfs control file above %s: phase markers are off",
			      start_dir ? start_dir : "(unknown data directory)");
		m->fd = -1;
		m->path[0] = '\0';
		return 0;
	}
	snprintf(m->path, sizeof(m->path), "%s", explicit_path);
	m->fd = open(m->path, O_RDWR | O_CLOEXEC);
	if (m->fd < 0) {
		int e = errno;

		dut_error_set(err, "cannot open the dutfs control file %s: %s", m->path, strerror(e));
		return -e;
	}
	dut_error_set(&m->where, "phase markers go to %s", m->path);
	return 0;
}

int pgl_mark(struct pgl_marker *m, const char *label, struct dut_error *err)
{
	char cmd[256], status[256];
	int r;

	if (m->fd < 0)
		return 0;
	snprintf(cmd, sizeof(cmd), "mark %s", label);
	r = dut_ctl_command(m->fd, cmd, status, sizeof(status));
	if (r == -EINVAL)
		dut_error_set(err, "dutfs refused marker \"%s\": %s", label, status);
	else if (r < 0)
		dut_error_set(err, "dutfs marker \"%s\" not written to %s: %s", label, m->path, strerror(-r));
	return r;
}

void pgl_marker_close(struct pgl_marker *m)
{
	if (m->fd >= 0)
		close(m->fd);
	m->fd = -1;
}
