/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where dutlab finds dutfs, pgload and dutprobe.  Pure: the caller says what
 * is executable.  In order:
 *   1. $DUT_BUILD_ROOT, a build tree (fuse/dutfs, pgload/pgload, probe/dutprobe),
 *      taken as it is: what it lacks, the run's checks report;
 *   2. the build tree the running program is in (build/tools/dutlab);
 *   3. the directory the program is installed in (/usr/bin/dutlab -> /usr/bin/dutfs);
 *   4. each directory of $PATH.
 * Otherwise the first place that has all three wins; places are never mixed.
 */
#ifndef DUT_RUN_TOOLS_PATH_H
#define DUT_RUN_TOOLS_PATH_H

#include <limits.h>
#include <stdbool.h>

struct run_tools {
	char dutfs[PATH_MAX], pgload[PATH_MAX], dutprobe[PATH_MAX];
	const char *where;   /* "DUT_BUILD_ROOT", "build tree", "installed", "PATH" */
};

typedef bool (*run_is_exec_fn)(const char *path);

/* exe: the running program's absolute path (or NULL); build_root and
 * path_env: the environment's values (or NULL).  0, or -ENOENT when no place
 * has all three (t->where is then NULL), -ENAMETOOLONG for an overlong path. */
int run_tools_resolve(const char *exe, const char *build_root, const char *path_env,
		      run_is_exec_fn is_exec, struct run_tools *t);

#endif
