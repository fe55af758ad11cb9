/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Staging of targets for the runner.  Directory targets are used as they
 * are (mkdir -p, a free-space check).  Images and devices are staged by
 * tools/run/stage.h (loop devices, mkfs, mounts); until that library is
 * built into dutlab, a configuration with one is refused before the run.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tools/run/runner_priv.h"

struct rep_stage {
	char dir[PATH_MAX];
};

void rep_target_path(const struct runner *R, const struct dut_target *t, char *buf, size_t len)
{
	if (t->path[0] == '/' || !R->e->base_dir)
		run_pathf(buf, len, "%s", t->path);
	else
		run_pathf(buf, len, "%s/%s", R->e->base_dir, t->path);
}

int rep_stage_check(struct runner *R, const struct dut_config *cfg, const struct dut_config_target *ct,
		    struct dut_error *err)
{
	const struct dut_target *t = ct->target;
	char path[PATH_MAX];
	uint64_t free_bytes;
	struct stat st;
	int r;

	if (t->type != DUT_TARGET_DIRECTORY) {
		dut_error_set(err, "target %s: %s targets need target staging (loop devices, mkfs), which this "
			      "build of dutlab does not have yet; use a directory target", t->name,
			      dut_target_type_name(t->type));
		return -ENOTSUP;
	}
	rep_target_path(R, t, path, sizeof(path));
	if (stat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
		dut_error_set(err, "target %s: %s exists and is not a directory", t->name, path);
		return -ENOTDIR;
	}
	r = run_free_bytes(path, &free_bytes);
	if (r < 0) {
		dut_error_set(err, "target %s: cannot tell the free space at %s: %s", t->name, path, strerror(-r));
		return r;
	}
	if (free_bytes < ct->space_bytes) {
		dut_error_set(err, "target %s: %s has %.1f GiB free, the steps need about %.1f GiB; free space "
			      "there or point the target at a larger filesystem", t->name, path,
			      (double)free_bytes / (1u << 30), (double)ct->space_bytes / (1u << 30));
		return -ENOSPC;
	}
	return 0;
}

int rep_stage_prepare(struct runner *R, const struct dut_config *cfg, const struct dut_config_target *ct,
		      struct rep_stage **ret, struct dut_error *err)
{
	struct rep_stage *s;
	int r = rep_stage_check(R, cfg, ct, err);

	if (r < 0)
		return r;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	rep_target_path(R, ct->target, s->dir, sizeof(s->dir));
	r = run_mkdir_p(s->dir, 0755);
	if (r < 0) {
		dut_error_set(err, "target %s: cannot create %s: %s", ct->target->name, s->dir, strerror(-r));
		free(s);
		return r;
	}
	*ret = s;
	return 0;
}

const char *rep_stage_dir(const struct rep_stage *s)
{
	return s->dir;
}

const char *rep_stage_device(const struct rep_stage *s)
{
	return NULL;
}

int rep_stage_teardown(struct rep_stage *s, struct dut_error *err)
{
	/* a directory target is the user's: it stays */
	free(s);
	return 0;
}
