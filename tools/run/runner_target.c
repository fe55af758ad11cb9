/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Staging of targets for the runner, through tools/run/stage.h: a
 * directory is used as it is, an image gets a loop device, a device (with
 * destructive = yes) and an image get the configuration's filesystem and
 * a mount under the run's private directory.  An image the run created is
 * removed at teardown; an image the user had stays.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tools/run/runner_priv.h"
#include "tools/run/stage.h"

struct rep_stage {
	struct dut_stage *stage;
};

void rep_target_path(const struct runner *R, const struct dut_target *t, char *buf, size_t len)
{
	if (t->path[0] == '/' || !R->e->base_dir)
		run_pathf(buf, len, "%s", t->path);
	else
		run_pathf(buf, len, "%s/%s", R->e->base_dir, t->path);
}

static void spec_of(const struct runner *R, const struct dut_config_target *ct, char *mnt_root, size_t len,
		    struct dut_stage_spec *ret)
{
	/* during the checks there is no private directory yet: only its name matters */
	run_pathf(mnt_root, len, "%s/stage", R->work_root[0] ? R->work_root : "/run/dutlab");
	*ret = (struct dut_stage_spec){
		.target = ct->target, .fs = ct->fs, .base_dir = R->e->base_dir, .mnt_root = mnt_root,
		.need_bytes = ct->space_bytes, .remove_created_image = true,
		.follow_symlinks = ct->target->follow_symlinks,
	};
}

/* The directory an image file goes in: the runner creates it when missing
 * (the shipped experiments keep their images in /var/tmp/dutlab/experiments). */
static void image_dir(const struct runner *R, const struct dut_target *t, char *buf, size_t len)
{
	char *slash;

	rep_target_path(R, t, buf, len);
	slash = strrchr(buf, '/');
	if (slash && slash != buf)
		*slash = '\0';
	else
		run_pathf(buf, len, "%s", slash ? "/" : ".");
}

int rep_make_image_dirs(struct runner *R, struct dut_error *err)
{
	char dir[PATH_MAX];
	struct stat st;
	int r;

	for (size_t t = 0; t < R->e->ntargets; t++) {
		if (R->e->targets[t].type != DUT_TARGET_IMAGE)
			continue;
		image_dir(R, &R->e->targets[t], dir, sizeof(dir));
		if (stat(dir, &st) == 0)
			continue;
		if (R->o->dry_run) {
			runner_say(R, "target %s: %s does not exist yet; a run creates it", R->e->targets[t].name, dir);
			continue;
		}
		r = run_mkdir_p(dir, 0755);
		if (r < 0) {
			dut_error_set(err, "target %s: cannot create %s for the image: %s", R->e->targets[t].name, dir,
				      strerror(-r));
			return r;
		}
	}
	return 0;
}

int rep_stage_check(struct runner *R, const struct dut_config *cfg, const struct dut_config_target *ct,
		    struct dut_error *err)
{
	char mnt_root[PATH_MAX], dir[PATH_MAX];
	struct dut_stage_spec spec;
	struct stat st;

	if (ct->target->type == DUT_TARGET_IMAGE && R->o->dry_run) {
		image_dir(R, ct->target, dir, sizeof(dir));
		if (stat(dir, &st) < 0)
			return 0;       /* said by rep_make_image_dirs; a run checks after making it */
	}
	spec_of(R, ct, mnt_root, sizeof(mnt_root), &spec);
	return dut_stage_check(&spec, err);
}

int rep_stage_prepare(struct runner *R, const struct dut_config *cfg, const struct dut_config_target *ct,
		      struct rep_stage **ret, struct dut_error *err)
{
	char mnt_root[PATH_MAX];
	struct dut_stage_spec spec;
	struct rep_stage *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return -ENOMEM;
	spec_of(R, ct, mnt_root, sizeof(mnt_root), &spec);
	r = dut_stage_prepare(&spec, &s->stage, err);
	if (r < 0) {
		free(s);
		return r;
	}
	*ret = s;
	return 0;
}

const char *rep_stage_dir(const struct rep_stage *s)
{
	return dut_stage_dir(s->stage);
}

const char *rep_stage_device(const struct rep_stage *s)
{
	return dut_stage_device(s->stage);
}

int rep_stage_teardown(struct rep_stage *s, struct dut_error *err)
{
	int r = s ? dut_stage_teardown(s->stage, err) : 0;

	free(s);
	return r;
}
