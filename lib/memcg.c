/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Memory budgets, the pure half: mountinfo (through lib/mountinfo) and /proc/self/cgroup text to paths (memcg.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/memcg.h"
#include "lib/mountinfo.h"

/* Copy a decoded mountinfo field into a PATH_MAX buffer of struct dut_memcg_mounts. */
static int copy_path(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	if (n + 1 > len)
		return -ENAMETOOLONG;
	memcpy(dst, src, n + 1);
	return 0;
}

int dut_memcg_parse_mounts(const char *mountinfo, struct dut_memcg_mounts *ret)
{
	struct dut_memcg_mounts m = { 0 };
	const char *p = mountinfo, *end = mountinfo + strlen(mountinfo);
	struct dut_mount *e = malloc(sizeof(*e));
	int r;

	if (!e)
		return -ENOMEM;
	/* a malformed line is an error here: the budget must not guess */
	while ((r = dut_mountinfo_next(&p, end, e)) > 0) {
		if (!strcmp(e->fstype, "cgroup2") && !m.v2_mountpoint[0]) {
			if (copy_path(m.v2_mountpoint, sizeof(m.v2_mountpoint), e->mount_point) < 0 ||
			    copy_path(m.v2_root, sizeof(m.v2_root), e->root) < 0)
				r = -EINVAL;
		} else if (!strcmp(e->fstype, "cgroup") &&
			   dut_mount_has_option(e->super_opts, strlen(e->super_opts), "memory") &&
			   !m.v1_mountpoint[0]) {
			if (copy_path(m.v1_mountpoint, sizeof(m.v1_mountpoint), e->mount_point) < 0 ||
			    copy_path(m.v1_root, sizeof(m.v1_root), e->root) < 0)
				r = -EINVAL;
		}
		if (r < 0)
			break;
	}
	free(e);
	if (r < 0)
		return r;
	*ret = m;
	return 0;
}

int dut_memcg_self_path(const char *proc_cgroup, enum dut_memcg_kind kind, char *out, size_t len)
{
	const char *p = proc_cgroup;

	while (*p) {
		const char *nl = strchr(p, '\n');
		const char *end = nl ? nl : p + strlen(p);
		const char *c1 = memchr(p, ':', (size_t)(end - p));
		const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(end - c1 - 1)) : NULL;

		if (c2) {
			const char *ctl = c1 + 1;
			size_t ctln = (size_t)(c2 - ctl);
			bool match = kind == DUT_MEMCG_V2 ? (ctln == 0 && c1 - p == 1 && *p == '0')
							  : dut_mount_has_option(ctl, ctln, "memory");

			if (match) {
				size_t n = (size_t)(end - c2 - 1);

				if (n + 1 > len)
					return -ENAMETOOLONG;
				memcpy(out, c2 + 1, n);
				out[n] = '\0';
				return 0;
			}
		}
		p = nl ? nl + 1 : end;
	}
	return -ENOENT;
}

static bool good_name(const char *name)
{
	if (!name[0] || !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (const char *c = name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
		      *c == '_' || *c == '.' || *c == '-'))
			return false;
	return true;
}

int dut_memcg_child_dir(enum dut_memcg_kind kind, const struct dut_memcg_mounts *m,
			const char *self, const char *name, char *out, size_t len)
{
	int n;

	if (!good_name(name))
		return -EINVAL;
	if (kind == DUT_MEMCG_V2) {
		if (!m->v2_mountpoint[0])
			return -EINVAL;
		n = snprintf(out, len, "%s/dutlab/%s", m->v2_mountpoint, name);
	} else if (kind == DUT_MEMCG_V1) {
		size_t rl = strlen(m->v1_root);
		const char *rel = self;

		if (!m->v1_mountpoint[0] || self[0] != '/')
			return -EINVAL;
		/* self must lie under the mount's root ("/" is every path's root) */
		if (!(rl == 1 && m->v1_root[0] == '/')) {
			if (strncmp(self, m->v1_root, rl) != 0 || (self[rl] != '/' && self[rl] != '\0'))
				return -EINVAL;
			rel = self + rl;
		}
		while (*rel == '/')
			rel++;
		n = snprintf(out, len, "%s%s%s/%s", m->v1_mountpoint, *rel ? "/" : "", rel, name);
	} else {
		return -EINVAL;
	}
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Absolute, no "", "." or ".." components, no trailing '/'. */
static bool normal_path(const char *p)
{
	if (p[0] != '/' || strlen(p) >= PATH_MAX)
		return false;
	while (*p) {
		size_t n;

		p++;
		n = strcspn(p, "/");
		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		p += n;
	}
	return true;
}

bool dut_memcg_dir_is_ours(const struct dut_memcg_mounts *m, const char *dir, const char *prefix)
{
	const char *base = strrchr(dir, '/');
	size_t ml;

	if (!normal_path(dir) || !base || strncmp(base + 1, prefix, strlen(prefix)) != 0 ||
	    !good_name(base + 1))
		return false;
	if (m->v1_mountpoint[0]) {
		ml = strlen(m->v1_mountpoint);
		if (strncmp(dir, m->v1_mountpoint, ml) == 0 && dir[ml] == '/')
			return true;
	}
	if (m->v2_mountpoint[0]) {
		ml = strlen(m->v2_mountpoint);
		if (strncmp(dir, m->v2_mountpoint, ml) == 0 && strncmp(dir + ml, "/dutlab/", 8) == 0 &&
		    base == dir + ml + 7)
			return true;
	}
	return false;
}

const char *dut_memcg_limit_file(enum dut_memcg_kind kind)
{
	return kind == DUT_MEMCG_V2 ? "memory.max" : "memory.limit_in_bytes";
}

const char *dut_memcg_procs_file(enum dut_memcg_kind kind)
{
	(void)kind;
	return "cgroup.procs";
}

const char *dut_memcg_peak_file(enum dut_memcg_kind kind)
{
	return kind == DUT_MEMCG_V2 ? "memory.peak" : "memory.max_usage_in_bytes";
}

const char *dut_memcg_usage_file(enum dut_memcg_kind kind)
{
	return kind == DUT_MEMCG_V2 ? "memory.current" : "memory.usage_in_bytes";
}

const char *dut_memcg_kind_name(enum dut_memcg_kind kind)
{
	return kind == DUT_MEMCG_V2 ? "cgroup v2" : kind == DUT_MEMCG_V1 ? "cgroup v1" : "none";
}
