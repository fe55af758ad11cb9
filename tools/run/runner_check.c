/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Checks before a run starts (no side effects): root, the programs each
 * configuration needs, each target (tools/run/stage.h checks, space), and
 * what this build cannot run yet (a hot standby without `pgload cluster
 * standby`, shaping without `dutfs --shape`).  Every refusal says what,
 * why, and what to do.
 */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <limits.h>
#include <unistd.h>

#include "lib/fs_safe.h"
#include "lib/pgbin.h"
#include "tools/run/runner_pgbuild.h"
#include "tools/run/runner_priv.h"

bool runner_pgload_has_standby(struct runner *R)
{
	static int known = -1;
	char *argv[] = { R->pgload, "cluster", "--help", NULL };

	if (known < 0)
		known = run_command_mentions(argv, "standby");
	return known == 1;
}

bool runner_dutfs_has_shape(struct runner *R)
{
	static int known = -1;
	char *argv[] = { R->dutfs, "--help", NULL };

	if (known < 0)
		known = run_command_mentions(argv, "--shape");
	return known == 1;
}

void runner_describe_path(const char *path, char *buf, size_t len)
{
	struct stat st;
	struct passwd *pw;
	char owner[64];

	if (lstat(path, &st) < 0) {
		snprintf(buf, len, "%s", strerror(errno));
		return;
	}
	pw = getpwuid(st.st_uid);
	if (pw)
		snprintf(owner, sizeof(owner), "%s", pw->pw_name);
	else
		snprintf(owner, sizeof(owner), "uid %u", (unsigned)st.st_uid);
	if (S_ISLNK(st.st_mode))
		snprintf(buf, len, "a symbolic link, owner %s", owner);
	else
		snprintf(buf, len, "owner %s, mode %04o", owner, (unsigned)(st.st_mode & 07777));
}

int runner_view_off_reachable(const char *target, const char *path, struct dut_error *err)
{
	char bad[PATH_MAX] = "", what[160];
	int r = run_user_can_search(path, "postgres", bad, sizeof(bad));

	if (r == -EACCES) {
		runner_describe_path(bad, what, sizeof(what));
		dut_error_set(err, "target %s: view = off: user postgres cannot search %s (%s), on the way to the "
			      "data directory under %s; without dutfs PostgreSQL reaches its files directly, and "
			      "dutlab does not change directories it did not make: give postgres search permission "
			      "(e.g. chmod o+x %s), choose a target it can reach, or use a dutfs view (view = device)",
			      target, bad, what, path, bad);
		return r;
	}
	if (r < 0) {
		dut_error_set(err, "target %s: cannot check that user postgres reaches %s: %s", target, path,
			      strerror(-r));
		return r;
	}
	return 0;
}

/*
 * /var/tmp is everyone's: /var/tmp/dutlab and the directories under it that
 * the run uses must be root's and closed to others before root writes, mounts
 * or mkfs's anything there.  Missing ones are made (0755 root); a dry run
 * only checks the ones that exist.
 */
static int ensure_var_dir(struct runner *R, const char *dir, bool quiet)
{
	char bad[PATH_MAX] = "", what[160];
	struct stat st;
	int r;

	if (R->o->dry_run && lstat(dir, &st) < 0 && errno == ENOENT)
		return 0;
	r = run_ensure_private_dir(dir, 0755, bad, sizeof(bad));
	if (r == 0 || quiet)
		return r;
	if (r == -ENOENT && R->o->dry_run)
		return 0;
	if (!bad[0])
		snprintf(bad, sizeof(bad), "%s", dir);
	runner_describe_path(bad, what, sizeof(what));
	if (r == -ELOOP || r == -EPERM || r == -EACCES || r == -ENOTDIR)
		runner_error(R, "refusing %s (%s): %s; dutlab run as root writes, mounts and makes filesystems "
			     "there, so it must be root's and not writable by others: remove it, or chown root "
			     "and chmod go-w it, then run again", bad, what, dut_fs_safe_strerror(r));
	else
		runner_error(R, "cannot create %s: %s", bad, strerror(-r));
	return r;
}

/* Whether path is the var root or under it. */
static bool under_var_root(const char *path)
{
	const char *root = run_var_root();
	size_t n = strlen(root);

	return strncmp(path, root, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

static unsigned check_var_dirs(struct runner *R, bool quiet)
{
	char path[PATH_MAX], root[PATH_MAX], runs[PATH_MAX + 8];
	unsigned bad = 0;
	bool any = !R->o->out;

	run_pathf(root, sizeof(root), "%s", run_var_root());
	for (size_t t = 0; t < R->e->ntargets; t++) {
		repeat_target_path(R, &R->e->targets[t], path, sizeof(path));
		any |= under_var_root(path);
	}
	if (!any)
		return 0;
	if (ensure_var_dir(R, root, quiet) < 0)
		return 1;
	if (!R->o->out) {
		run_pathf(runs, sizeof(runs), "%s/runs", root);
		bad += ensure_var_dir(R, runs, quiet) < 0;
	}
	for (size_t t = 0; t < R->e->ntargets; t++) {
		const struct dut_target *tg = &R->e->targets[t];
		char *slash;

		repeat_target_path(R, tg, path, sizeof(path));
		if (!under_var_root(path) || tg->type == DUT_TARGET_DEVICE)
			continue;
		/* a directory target is that directory; an image lives in one */
		if (tg->type == DUT_TARGET_IMAGE && (slash = strrchr(path, '/')))
			*slash = '\0';
		bad += ensure_var_dir(R, path, quiet) < 0;
	}
	return bad;
}

struct needs {
	bool cluster, dutfs, probe, restore, device, own_clusters;
};

static bool has_restore(const struct dut_experiment *e)
{
	for (size_t i = 0; i < e->nsteps; i++)
		if (e->steps[i].type->restores)
			return true;
	return false;
}

/*
 * The configuration's PostgreSQL: [postgres] bindir as given, or the
 * major asked for (version, [matrix] version) or the newest under
 * dut_pgbin_root(); its programs and its own word on its version.
 */
static int resolve_postgres(struct runner *R, const struct dut_config *cfg, struct run_cfg_pg *ret,
			    struct dut_error *err)
{
	static const char *const rs[] = { "pg_dump", "pg_restore" };
	const char *root = dut_pgbin_root();
	struct run_cfg_pg pg = { 0 };
	unsigned major = 0;
	int r;

	pg.block_kb = pg.wal_block_kb = DUT_PG_DEFAULT_BLOCK_KB;
	if ((cfg->pg_block_kb || cfg->pg_wal_block_kb) && (r = run_pg_build_resolve(R, cfg, false, &pg, err)) != 2) {
		/* a build of dutlab pg build; not built yet: --dry-run says so and goes on */
		if (r != 0) {
			*ret = pg;
			return r;
		}
		major = pg.major;
	} else if (cfg->pg_bindir)
		run_pathf(pg.bindir, sizeof(pg.bindir), "%s", cfg->pg_bindir);
	else if ((r = dut_pgbin_find(root, cfg->pg_major, pg.bindir, sizeof(pg.bindir), &major, err)) < 0) {
		/* a major Debian does not install: dutlab pg build --major N's, if built */
		if (!cfg->pg_major || r != -ENOENT || run_pg_build_resolve(R, cfg, true, &pg, NULL) != 0) {
			if (cfg->pg_major && r == -ENOENT && err) {
				char eta[96];
				size_t used = strlen(err->msg);

				run_pg_build_eta(cfg->pg_major, eta, sizeof(eta));
				snprintf(err->msg + used, sizeof(err->msg) - used, " (the build: %s)", eta);
			}
			return r;
		}
		major = pg.major;
	}
	if ((r = dut_pgbin_check_dir(pg.bindir, err)) < 0 ||
	    (r = dut_pgbin_version(pg.bindir, pg.version, sizeof(pg.version), &pg.major, err)) < 0)
		return r;
	if (major && pg.major != major) {
		dut_error_set(err, "%s is in the directory of PostgreSQL %u, but its postgres says \"%s\": "
			      "reinstall postgresql-%u", pg.bindir, major, pg.version, major);
		return -EINVAL;
	}
	if (pg.major < DUT_PG_MIN_MAJOR) {
		dut_error_set(err, "%s is PostgreSQL %u (\"%s\"), older than dutlab supports (%u and later)",
			      pg.bindir, pg.major, pg.version, DUT_PG_MIN_MAJOR);
		return -ENOTSUP;
	}
	for (size_t i = 0; has_restore(R->e) && i < sizeof(rs) / sizeof(rs[0]); i++) {
		char path[PATH_MAX + 16];

		run_pathf(path, sizeof(path), "%s/%s", pg.bindir, rs[i]);
		if (!run_is_executable(path)) {
			dut_error_set(err, "PostgreSQL %u has no %s (%s), which the restore step needs: install "
				      "postgresql-client-%u", pg.major, rs[i], path, pg.major);
			return -ENOENT;
		}
	}
	*ret = pg;
	return 0;
}

/* Settings the configuration's major does not have (lib/pgbin.h's table). */
static int check_settings(const struct dut_config *cfg, const struct run_cfg_pg *pg, struct dut_error *err)
{
	for (size_t i = 0; i < cfg->nsettings; i++) {
		const struct dut_setting *st = &cfg->settings[i];
		const struct dut_pg_setting_rule *rule = dut_pg_setting_check(st->name, st->value, pg->major);
		char why[256];

		if (!rule)
			continue;
		dut_pg_setting_reason(rule, st->name, st->value, why, sizeof(why));
		dut_error_set(err, "%s; this configuration uses %u (%s): drop the setting (line %u), or choose "
			      "a major that has it ([postgres] version, [matrix] version)", why, pg->major,
			      pg->bindir, st->line);
		return -ENOTSUP;
	}
	return 0;
}

/* resolve_postgres once per distinct version/bindir, then the settings. */
static int check_postgres(struct runner *R, size_t c, struct dut_error *err)
{
	const struct dut_config *cfg = &R->plan->configs[c];
	struct run_cfg_pg *pg = &R->st->cfgs[c].pg;
	int r = 1;

	for (size_t j = 0; j < c && r > 0; j++) {
		const struct dut_config *o = &R->plan->configs[j];

		if (R->st->cfgs[j].pg.major && o->pg_major == cfg->pg_major &&
		    o->pg_block_kb == cfg->pg_block_kb && o->pg_wal_block_kb == cfg->pg_wal_block_kb &&
		    (o->pg_bindir == cfg->pg_bindir || (o->pg_bindir && cfg->pg_bindir &&
							strcmp(o->pg_bindir, cfg->pg_bindir) == 0))) {
			*pg = R->st->cfgs[j].pg;
			r = 0;
		}
	}
	if (r > 0 && (r = resolve_postgres(R, cfg, pg, err)) < 0)
		return r;
	if (r > 0)
		return check_settings(cfg, pg, err);   /* --dry-run, not built: said */
	if (R->o->dry_run && (c == 0 || strcmp(R->st->cfgs[c - 1].pg.bindir, pg->bindir) != 0))
		runner_say(R, "configuration %s: PostgreSQL %u (%s) from %s", R->st->cfgs[c].dir, pg->major,
			   pg->version, pg->bindir);
	return check_settings(cfg, pg, err);
}

static struct needs what_runs(const struct runner *R)
{
	struct needs n = { 0 };

	for (size_t c = 0; c < R->plan->nconfigs; c++) {
		const struct dut_config *cfg = &R->plan->configs[c];

		n.cluster |= cfg->needs_cluster;
		n.dutfs |= cfg->needs_cluster && cfg->view != DUT_VIEW_OFF;
		for (size_t t = 0; t < R->e->ntargets; t++)
			n.device |= cfg_target_used(R->e, cfg, t) &&
				    R->e->targets[t].type == DUT_TARGET_DEVICE;
	}
	for (size_t i = 0; i < R->e->nsteps; i++) {
		n.probe |= R->e->steps[i].type->probe;
		n.restore |= R->e->steps[i].type->restores;
		n.own_clusters |= R->e->steps[i].type->own_clusters;
	}
	/* a kind with clusters of its own (a crash campaign) mounts dutfs and runs pgload itself */
	n.dutfs |= n.own_clusters;
	n.cluster |= n.own_clusters;
	return n;
}

static unsigned need_program(struct runner *R, const char *path, const char *what, bool quiet)
{
	if (run_is_executable(path))
		return 0;
	if (!quiet)
		runner_error(R, "%s is missing (%s): %s", what, path,
			     strstr(path, DUT_PG_ROOT "/") ? "install the PostgreSQL server (tools/setup does)"
							   : "build dutlab first (tools/setup, or ninja -C build)");
	return 1;
}

static unsigned check_global(struct runner *R, bool quiet)
{
	struct needs n = what_runs(R);
	unsigned bad = 0;

	if (geteuid() != 0) {
		bad++;
		if (!quiet)
			runner_error(R, "dutlab run needs root: dutfs mounts for user postgres (allow_other), "
				     "the clusters run as postgres, targets are mounted; run it with sudo");
	}
	if (n.dutfs) {
		struct stat st;

		bad += need_program(R, R->dutfs, "dutfs", quiet);
		if (stat("/dev/fuse", &st) < 0) {
			bad++;
			if (!quiet)
				runner_error(R, "/dev/fuse is missing: this kernel cannot mount FUSE file systems "
					     "(modprobe fuse), or use [dutfs] view = off");
		}
	}
	if (n.cluster) {
		bad += need_program(R, R->pgload, "pgload", quiet);
		if (!getpwnam("postgres")) {
			bad++;
			if (!quiet)
				runner_error(R, "there is no user postgres: install the PostgreSQL server (tools/setup does)");
		}
	}
	if (n.probe)
		bad += need_program(R, R->dutprobe, "dutprobe", quiet);
	for (size_t i = 0; i < R->e->nsteps; i++) {
		struct dut_error err = { "" };

		if (run_step_supported(&R->e->steps[i], &err) < 0) {
			bad++;
			if (!quiet)
				runner_error(R, "%s", err.msg);
		}
	}
	if (n.device && !R->o->yes && !R->o->dry_run) {
		bad++;
		if (!quiet)
			runner_error(R, "the experiment writes to a device target: everything on it is lost; "
				     "run again with --yes to confirm");
	}
	return bad;
}

/*
 * A directory target is the filesystem the user means to measure: one that
 * does not exist (a drive not mounted, a typo) is refused, not made with
 * mkdir -p on whatever filesystem holds its parent (the root filesystem,
 * often).  Only under dutlab's own directory (run_var_root(), where the
 * built-in experiment keeps its target) does the run make it.
 */
static int directory_target_exists(struct runner *R, const struct dut_target *t, struct dut_error *err)
{
	char path[PATH_MAX], fstype[64] = "", mnt[256] = "";
	struct stat st;

	if (t->type != DUT_TARGET_DIRECTORY)
		return 0;
	repeat_target_path(R, t, path, sizeof(path));
	if (stat(path, &st) == 0 || errno != ENOENT || under_var_root(path))
		return 0;
	if (repeat_path_filesystem(path, fstype, sizeof(fstype), mnt, sizeof(mnt)) == 0)
		dut_error_set(err, "target %s: directory %s does not exist; dutlab run does not create it, since "
			      "it would be made on the %s filesystem mounted at %s and measure that instead: "
			      "mount the drive you mean to measure and create the directory on it, or fix the path",
			      t->name, path, fstype, mnt);
	else
		dut_error_set(err, "target %s: directory %s does not exist; dutlab run does not create it: mount "
			      "the drive you mean to measure and create the directory on it, or fix the path",
			      t->name, path);
	return -ENOENT;
}

static int check_config(struct runner *R, size_t c, struct dut_error *err)
{
	const struct dut_config *cfg = &R->plan->configs[c];
	int r;

	if (cfg->needs_cluster && (r = check_postgres(R, c, err)) < 0)
		return r;
	if (cfg->needs_cluster && !R->e->data_checksums) {
		dut_error_set(err, "data-checksums = no: pgload cluster init always enables data checksums; "
			      "remove the key");
		return -ENOTSUP;
	}
	if (cfg->needs_cluster && cfg->replica != DUT_REPLICA_NONE && !runner_pgload_has_standby(R)) {
		dut_error_set(err, "replica = %s: this pgload has no `pgload cluster standby` (hot standby is "
			      "not built yet); use replica = none", dut_replica_mode_name(cfg->replica));
		return -ENOTSUP;
	}
	if (cfg->needs_cluster && cfg->replica != DUT_REPLICA_NONE && R->e->ntablespaces) {
		dut_error_set(err, "replica = %s with [tablespace]: pgload cluster standby copies only clusters whose "
			      "data is all in the data directory; drop the tablespaces or the replica",
			      dut_replica_mode_name(cfg->replica));
		return -ENOTSUP;
	}
	for (size_t t = 0; t < R->e->ntargets; t++) {
		const struct dut_config_target *ct = &cfg->targets[t];

		if (!cfg_target_used(R->e, cfg, t))
			continue;
		if (cfg_target_holds_data(R->e, cfg, t) && cfg->view != DUT_VIEW_OFF && ct->shape &&
		    strcmp(ct->shape, "none") != 0 && !runner_dutfs_has_shape(R)) {
			dut_error_set(err, "target %s: shape = %s: this dutfs has no --shape (shaping is not built "
				      "yet); use shape = none", ct->target->name, ct->shape);
			return -ENOTSUP;
		}
		if ((r = directory_target_exists(R, ct->target, err)) < 0)
			return r;
		r = repeat_stage_check(R, cfg, ct, err);
		if (r < 0)
			return r;
		if (cfg_target_holds_data(R->e, cfg, t) && cfg->view == DUT_VIEW_OFF &&
		    ct->target->type == DUT_TARGET_DIRECTORY) {
			char path[PATH_MAX];

			/* what exists of it now; the setup checks again on the staged directory */
			repeat_target_path(R, ct->target, path, sizeof(path));
			if ((r = runner_view_off_reachable(ct->target->name, path, err)) < 0)
				return r;
		}
	}
	return 0;
}

unsigned runner_check(struct runner *R, bool quiet)
{
	unsigned bad = check_global(R, quiet);
	struct dut_error dir_err = { "" };

	if (bad == 0 && (bad = check_var_dirs(R, quiet)) > 0) {
		/* nothing more is made or looked at under a directory others control */
		for (size_t c = 0; c < R->plan->nconfigs; c++)
			run_set_text(&R->st->cfgs[c].reason, "a directory under %s was refused (above)",
				     run_var_root());
		return bad;
	}
	if (repeat_make_image_dirs(R, &dir_err) < 0) {
		runner_error(R, "%s", dir_err.msg);
		bad++;
	}

	for (size_t c = 0; c < R->plan->nconfigs; c++) {
		struct dut_error err = { "" };

		R->cfg_ok[c] = check_config(R, c, &err) == 0;
		if (!R->cfg_ok[c])
			run_set_text(&R->st->cfgs[c].reason, "%s", err.msg);
	}
	return bad;
}
