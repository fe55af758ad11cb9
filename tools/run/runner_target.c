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
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/mountinfo.h"
#include "tools/run/runner_priv.h"
#include "tools/run/stage.h"
#include "tools/run/stage/stage_pure.h"

struct repeat_stage {
	struct dut_stage *stage;
};

void repeat_target_path(const struct runner *R, const struct dut_target *t, char *buf, size_t len)
{
	char rel[PATH_MAX], cwd[PATH_MAX];

	if (t->path[0] == '/' || !R->e->base_dir)
		run_pathf(rel, sizeof(rel), "%s", t->path);
	else
		run_pathf(rel, sizeof(rel), "%s/%s", R->e->base_dir, t->path);
	/* an experiment named by a relative path has a relative base: resolve it here, once */
	if (rel[0] != '/' && getcwd(cwd, sizeof(cwd)))
		run_pathf(buf, len, "%s/%s", strcmp(cwd, "/") ? cwd : "", rel);
	else
		run_pathf(buf, len, "%s", rel);
}

int repeat_path_filesystem(const char *path, char *fstype, size_t fslen, char *mnt, size_t mntlen)
{
	_cleanup_fclose_ FILE *f = NULL;
	_cleanup_free_ struct dut_mount *e = NULL;
	char probe[PATH_MAX], line[4096];
	struct stat st;

	/* a path that does not exist yet would go on its nearest existing ancestor's filesystem */
	run_pathf(probe, sizeof(probe), "%s", path);
	while (stat(probe, &st) < 0) {
		char *slash = strrchr(probe, '/');

		if (errno != ENOENT || !slash)
			return -errno;
		if (slash == probe)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	if (!(f = fopen("/proc/self/mountinfo", "re")))
		return -errno;
	if (!(e = malloc(sizeof(*e))))
		return -ENOMEM;
	while (fgets(line, sizeof(line), f)) {
		if (dut_mountinfo_parse_line(line, strcspn(line, "\n"), e) < 0 || e->major != major(st.st_dev) ||
		    e->minor != minor(st.st_dev))
			continue;
		snprintf(fstype, fslen, "%s", e->fstype);
		if (mnt)
			snprintf(mnt, mntlen, "%s", e->mount_point);
		return 0;
	}
	return -ENOENT;
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

	repeat_target_path(R, t, buf, len);
	slash = strrchr(buf, '/');
	if (slash && slash != buf)
		*slash = '\0';
	else
		run_pathf(buf, len, "%s", slash ? "/" : ".");
}

int repeat_make_image_dirs(struct runner *R, struct dut_error *err)
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

int repeat_stage_check(struct runner *R, const struct dut_config *cfg, const struct dut_config_target *ct,
		       struct dut_error *err)
{
	char mnt_root[PATH_MAX], dir[PATH_MAX];
	struct dut_stage_spec spec;
	struct stat st;

	if (ct->target->type == DUT_TARGET_IMAGE && R->o->dry_run) {
		image_dir(R, ct->target, dir, sizeof(dir));
		if (stat(dir, &st) < 0)
			return 0;       /* said by repeat_make_image_dirs; a run checks after making it */
	}
	spec_of(R, ct, mnt_root, sizeof(mnt_root), &spec);
	return dut_stage_check(&spec, err);
}

/*
 * The manifest's record of a staged target: its path, the directory its
 * data goes to and the filesystem that directory is on (for a directory
 * target the filesystem it already had, which the experiment calls
 * "none"); whether dutfs is mounted over it is set when it is
 * (repeat_target_dutfs_mounted).  Out of memory only loses the record.
 */
static void note_target(struct runner *R, const struct dut_config_target *ct, const char *dir)
{
	struct run_rep_state *rs;
	struct run_rep_target *v, *t;
	char path[PATH_MAX], fstype[64];

	if (!R->rep)
		return;
	rs = &R->st->cfgs[R->rep->cfg].reps[R->rep->rep];
	if (!(v = realloc(rs->targets, (rs->ntargets + 1) * sizeof(*v))))
		return;
	rs->targets = v;
	t = &v[rs->ntargets++];
	repeat_target_path(R, ct->target, path, sizeof(path));
	*t = (struct run_rep_target){ .name = strdup(ct->target->name), .path = strdup(path),
				      .dir = dir ? strdup(dir) : NULL };
	if (dir && repeat_path_filesystem(dir, fstype, sizeof(fstype), NULL, 0) == 0)
		t->filesystem = strdup(fstype);
}

void repeat_target_dutfs_mounted(struct runner *R, const struct dut_config_target *ct)
{
	struct run_rep_state *rs;

	if (!R->rep)
		return;
	rs = &R->st->cfgs[R->rep->cfg].reps[R->rep->rep];
	for (size_t i = 0; i < rs->ntargets; i++)
		if (rs->targets[i].name && strcmp(rs->targets[i].name, ct->target->name) == 0)
			rs->targets[i].dutfs = true;
}

int repeat_stage_prepare(struct runner *R, const struct dut_config *cfg, const struct dut_config_target *ct,
			 struct repeat_stage **ret, struct dut_error *err)
{
	char mnt_root[PATH_MAX];
	struct dut_stage_spec spec;
	struct repeat_stage *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return -ENOMEM;
	spec_of(R, ct, mnt_root, sizeof(mnt_root), &spec);
	r = dut_stage_prepare(&spec, &s->stage, err);
	if (r < 0) {
		free(s);
		return r;
	}
	note_target(R, ct, dut_stage_dir(s->stage));
	*ret = s;
	return 0;
}

const char *repeat_stage_dir(const struct repeat_stage *s)
{
	return dut_stage_dir(s->stage);
}

const char *repeat_stage_device(const struct repeat_stage *s)
{
	return dut_stage_device(s->stage);
}

int repeat_stage_teardown(struct repeat_stage *s, struct dut_error *err)
{
	int r = s ? dut_stage_teardown(s->stage, err) : 0;

	free(s);
	return r;
}

/* A path resolved for the dry run: absolute, through links where it exists. */
static void resolved(const char *path, char *buf, size_t len)
{
	char *real = realpath(path, NULL);

	run_pathf(buf, len, "%s", real ? real : path);
	free(real);
}

/* One target of a configuration: where it is, what the run makes of it, where data goes. */
static void print_resolved_target(struct runner *R, const struct dut_config *cfg, size_t ti, FILE *out)
{
	const struct dut_config_target *ct = &cfg->targets[ti];
	const struct dut_target *t = ct->target;
	bool makes_fs = ct->fs && ct->fs->type != DUT_FS_NONE && t->type != DUT_TARGET_DIRECTORY;
	char path[PATH_MAX], abs[PATH_MAX], fstype[64] = "", mnt[256] = "", *tmpl;
	struct stat st;
	bool exists;

	repeat_target_path(R, t, path, sizeof(path));
	resolved(path, abs, sizeof(abs));
	exists = stat(abs, &st) == 0;
	fprintf(out, "    target %s: %s %s", t->name, dut_target_type_name(t->type), abs);
	if (t->type == DUT_TARGET_DIRECTORY) {
		if (exists && repeat_path_filesystem(abs, fstype, sizeof(fstype), mnt, sizeof(mnt)) == 0)
			fprintf(out, " (on %s, mounted at %s)", fstype, mnt);
		else if (!exists && strncmp(abs, run_var_root(), strlen(run_var_root())) == 0 &&
			 abs[strlen(run_var_root())] == '/')
			fprintf(out, " (does not exist yet: the run makes it, under %s)", run_var_root());
		else if (!exists)
			fprintf(out, " (does not exist: a run is refused)");
	} else if (t->type == DUT_TARGET_IMAGE) {
		fprintf(out, " (%s; a loop device at run time)", exists ? "exists" : "made by the run");
	}
	fputc('\n', out);
	if (makes_fs) {
		tmpl = stage_mountpoint_template(R->work_root[0] ? R->work_root : "/run/dutlab-<pid>/stage",
						 t->name);
		fprintf(out, "      %s made on it, mounted at %s\n", ct->fs->name, tmpl ? tmpl : "?");
		free(tmpl);
	}
	if (cfg_target_holds_data(R->e, cfg, ti)) {
		fprintf(out, "      the run's data: %s/%s", makes_fs ? "<mount>" : abs, RUN_BACKING_NAME);
		if (cfg->view != DUT_VIEW_OFF)
			fprintf(out, ", through dutfs (view %s) mounted at /run/dutlab-<pid>/mnt-%zu", dut_view_name(cfg->view),
				ti);
		else
			fprintf(out, ", without dutfs (view off)");
		fputc('\n', out);
		if (cfg->view != DUT_VIEW_OFF && ct->shape && strcmp(ct->shape, "none") != 0) {
			char shape[PATH_MAX], sabs[PATH_MAX];

			if (ct->shape[0] == '/' || !R->e->base_dir)
				run_pathf(shape, sizeof(shape), "%s", ct->shape);
			else
				run_pathf(shape, sizeof(shape), "%s/%s", R->e->base_dir, ct->shape);
			resolved(shape, sabs, sizeof(sabs));
			fprintf(out, "      shape file: %s%s\n", sabs, access(sabs, R_OK) == 0 ? "" : " (cannot be read)");
		}
	}
}

void repeat_print_resolved(struct runner *R, FILE *out)
{
	fprintf(out, "\nresolved paths (<pid>: the process id of the run; <mount>: the target's mount point):\n");
	for (size_t c = 0; c < R->plan->nconfigs; c++) {
		const struct dut_config *cfg = &R->plan->configs[c];

		fprintf(out, "  [%u/%zu] %s\n", cfg->index + 1, R->plan->nconfigs, cfg->name);
		for (size_t t = 0; t < R->e->ntargets; t++)
			if (cfg_target_used(R->e, cfg, t))
				print_resolved_target(R, cfg, t, out);
	}
	fflush(out);
}
