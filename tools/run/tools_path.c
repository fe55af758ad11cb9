/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Where dutlab's sibling programs are; see tools_path.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tools/run/tools_path.h"

enum layout { BUILD, FLAT };

static int fill(struct run_tools *t, const char *dir, enum layout l)
{
	static const char *const build[] = { "fuse/dutfs", "pgload/pgload", "probe/dutprobe" };
	static const char *const flat[] = { "dutfs", "pgload", "dutprobe" };
	char *const out[] = { t->dutfs, t->pgload, t->dutprobe };
	const char *const *names = l == BUILD ? build : flat;

	for (int i = 0; i < 3; i++) {
		int n = snprintf(out[i], PATH_MAX, "%s/%s", dir, names[i]);

		if (n < 0 || n >= PATH_MAX)
			return -ENAMETOOLONG;
	}
	return 0;
}

static bool all_exec(const struct run_tools *t, run_is_exec_fn is_exec)
{
	return is_exec(t->dutfs) && is_exec(t->pgload) && is_exec(t->dutprobe);
}

/* 1 when dir has the three programs in layout l, 0 when not, -errno. */
static int try_dir(struct run_tools *t, const char *dir, enum layout l, run_is_exec_fn is_exec)
{
	int r;

	if (!dir[0])
		return 0;
	if ((r = fill(t, dir, l)) < 0)
		return r;
	return all_exec(t, is_exec);
}

/* The directory part of path into buf ("" when there is none). */
static int dir_of(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;

	if (n >= len)
		return -ENAMETOOLONG;
	memcpy(buf, path, n);
	buf[n] = '\0';
	if (slash && n == 0)
		snprintf(buf, len, "/");
	return 0;
}

int run_tools_resolve(const char *exe, const char *build_root, const char *path_env,
		      run_is_exec_fn is_exec, struct run_tools *t)
{
	char dir[PATH_MAX], up[PATH_MAX];
	int r;

	t->where = NULL;
	if (build_root && build_root[0]) {
		/* an explicit build root is the answer, not a hint: its paths are
		 * taken even where a program is missing (the run's checks name
		 * those it needs; a stand-in build may hold only one) */
		if ((r = fill(t, build_root, BUILD)) < 0)
			return r;
		t->where = "DUT_BUILD_ROOT";
		return 0;
	}
	if (exe && exe[0] == '/') {
		if ((r = dir_of(exe, dir, sizeof(dir))) < 0 || (r = dir_of(dir, up, sizeof(up))) < 0)
			return r;
		/* build/tools/dutlab: the build tree is the parent of tools/ */
		if ((r = try_dir(t, up, BUILD, is_exec)) < 0)
			return r;
		if (r) {
			t->where = "build tree";
			return 0;
		}
		if ((r = try_dir(t, dir, FLAT, is_exec)) < 0)
			return r;
		if (r) {
			t->where = "installed";
			return 0;
		}
	}
	for (const char *p = path_env; p && *p;) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		/* only absolute entries: "" or "." would be the current directory */
		if (n && n < sizeof(dir) && p[0] == '/') {
			memcpy(dir, p, n);
			dir[n] = '\0';
			if ((r = try_dir(t, dir, FLAT, is_exec)) < 0)
				return r;
			if (r) {
				t->where = "PATH";
				return 0;
			}
		}
		p = end ? end + 1 : p + n;
	}
	return -ENOENT;
}
