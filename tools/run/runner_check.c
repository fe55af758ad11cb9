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
#include <unistd.h>

#include "tools/run/runner_priv.h"

#define PG_BINDIR "/usr/lib/postgresql/15/bin"

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

struct needs {
	bool cluster, dutfs, probe, restore, device;
};

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
		n.restore |= strcmp(R->e->steps[i].type->name, "restore") == 0;
	}
	return n;
}

static unsigned need_program(struct runner *R, const char *path, const char *what, bool quiet)
{
	if (run_is_executable(path))
		return 0;
	if (!quiet)
		runner_error(R, "%s is missing (%s): %s", what, path,
			     strstr(path, PG_BINDIR) ? "install PostgreSQL 15 (tools/setup does)"
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
		static const char *const pg[] = { "initdb", "pg_ctl", "postgres" };
		char path[256];

		bad += need_program(R, R->pgload, "pgload", quiet);
		for (size_t i = 0; i < sizeof(pg) / sizeof(pg[0]); i++) {
			run_pathf(path, sizeof(path), "%s/%s", PG_BINDIR, pg[i]);
			bad += need_program(R, path, "PostgreSQL 15", quiet);
		}
		if (!getpwnam("postgres")) {
			bad++;
			if (!quiet)
				runner_error(R, "there is no user postgres: install PostgreSQL 15 (tools/setup does)");
		}
	}
	if (n.restore) {
		bad += need_program(R, PG_BINDIR "/pg_dump", "PostgreSQL 15", quiet);
		bad += need_program(R, PG_BINDIR "/pg_restore", "PostgreSQL 15", quiet);
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

static int check_config(struct runner *R, size_t c, struct dut_error *err)
{
	const struct dut_config *cfg = &R->plan->configs[c];
	int r;

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
		r = rep_stage_check(R, cfg, ct, err);
		if (r < 0)
			return r;
	}
	return 0;
}

unsigned runner_check(struct runner *R, bool quiet)
{
	unsigned bad = check_global(R, quiet);
	struct dut_error dir_err = { "" };

	if (rep_make_image_dirs(R, &dir_err) < 0) {
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
