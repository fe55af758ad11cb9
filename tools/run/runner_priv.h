/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared by the orchestration files of the runner (runner*.c). */
#ifndef DUTLAB_RUN_RUNNER_PRIV_H
#define DUTLAB_RUN_RUNNER_PRIV_H

#include <limits.h>
#include <stdio.h>
#include <sys/types.h>

#include "tools/run/runner.h"
#include "tools/run/runner_sys.h"

#define NS_PER_S UINT64_C(1000000000)
#define RUN_BACKING_NAME "dutlab-run"      /* a data target's directory for the run's data */
#define RUN_BACKING_MARKER ".dutlab-run"   /* inside it: made by dutlab run, safe to remove */

/* One target of the current repetition. */
struct repeat_target {
	const struct dut_config_target *ct;
	bool used;              /* holds data or is probed */
	bool data;              /* holds the cluster, WAL, a tablespace or the standby */
	struct repeat_stage *stage;        /* staged target (runner_target.c) */
	char dir[PATH_MAX];     /* where data goes on the target (stage directory) */
	char backing[PATH_MAX]; /* dir/dutlab-run: the run's data */
	char mnt[PATH_MAX];     /* the dutfs mount over backing, or backing (view off) */
	bool mounted;
	pid_t dutfs_pid;
	char pidfile[PATH_MAX];
	char suffix[80];        /* "" for the cluster's target, "-<target>" otherwise */
};

struct repeat_ctx {
	unsigned cfg, rep;      /* rep counts from 0 */
	char dir[PATH_MAX];     /* RUNDIR/<cfg>/rep<R> */
	struct repeat_target *targets;     /* one per exp->targets */
	struct run_cleanup cleanup;
	char pgdata[PATH_MAX];          /* "" without a cluster */
	char standby_pgdata[PATH_MAX];
	char conninfo[PATH_MAX + 128];
	bool failed;
};

struct runner {
	const struct dut_experiment *e;
	const struct dut_plan *plan;
	const struct run_opts *o;
	struct run_state *st;
	struct run_progress prog;
	char dutfs[PATH_MAX], pgload[PATH_MAX], dutprobe[PATH_MAX];
	char work_root[PATH_MAX];       /* /run/dutlab-<pid>: mountpoints, pid files */
	FILE *log;                      /* RUNDIR/run.log */
	uint64_t t0_ns;
	bool *cfg_ok;                   /* per configuration: passed the checks */
	struct repeat_ctx *rep;            /* the repetition set up now, or NULL */
};

/* Output: to stdout (say) or stderr (warn, error) and to run.log. */
void runner_say(struct runner *R, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void runner_warn(struct runner *R, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void runner_error(struct runner *R, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Rewrite RUNDIR/manifest.json; failures are warned about, not fatal. */
void runner_write_manifest(struct runner *R);

/* runner_check.c: before anything starts.  Returns the number of global
 * problems (printed); configuration problems go to st->cfgs[c].reason and
 * R->cfg_ok[c] = false. */
unsigned runner_check(struct runner *R, bool quiet);
/* "owner alice, mode 0700" or "a symbolic link, owner root" (lstat), for messages. */
void runner_describe_path(const char *path, char *buf, size_t len);
/* view = off: 0 when user postgres can search every existing directory on
 * the way to path, else -EACCES with err naming the directory and the fix. */
int runner_view_off_reachable(const char *target, const char *path, struct dut_error *err);
/* Whether pgload has `cluster standby`, dutfs has --shape (asked once). */
bool runner_pgload_has_standby(struct runner *R);
bool runner_dutfs_has_shape(struct runner *R);

/* runner_target.c: staging (directory targets here; images and devices
 * through tools/run/stage.h once it is built) */
struct repeat_stage;
int repeat_stage_check(struct runner *R, const struct dut_config *cfg, const struct dut_config_target *ct,
		       struct dut_error *err);
int repeat_stage_prepare(struct runner *R, const struct dut_config *cfg, const struct dut_config_target *ct,
			 struct repeat_stage **ret, struct dut_error *err);
const char *repeat_stage_dir(const struct repeat_stage *s);
const char *repeat_stage_device(const struct repeat_stage *s);
int repeat_stage_teardown(struct repeat_stage *s, struct dut_error *err);
/* mkdir -p the directories of image files (--dry-run: only say so). */
int repeat_make_image_dirs(struct runner *R, struct dut_error *err);
/* The target's path made absolute against the experiment's directory (and the current one). */
void repeat_target_path(const struct runner *R, const struct dut_target *t, char *buf, size_t len);
/* The filesystem type ("ext4") and mount point of path, or of its nearest
 * existing ancestor (/proc/self/mountinfo, by device number); mnt may be NULL. */
int repeat_path_filesystem(const char *path, char *fstype, size_t fslen, char *mnt, size_t mntlen);
/* The manifest's record of the target (made at staging) gets dutfs = true: dutfs is mounted over it. */
void repeat_target_dutfs_mounted(struct runner *R, const struct dut_config_target *ct);
/* --dry-run: where each configuration's targets, mounts and shape files resolve to. */
void repeat_print_resolved(struct runner *R, FILE *out);

/* runner_rep.c: one repetition */
int repeat_setup(struct runner *R, unsigned cfg, unsigned rep, struct dut_error *err);
/* Unwind the cleanup stack; the repetition's status is set by the caller. */
void repeat_teardown(struct runner *R);
/* config_targets.c: whether target t of the configuration holds data / is used at all. */
bool cfg_target_holds_data(const struct dut_experiment *e, const struct dut_config *cfg, size_t t);
bool cfg_target_used(const struct dut_experiment *e, const struct dut_config *cfg, size_t t);
/* Write "mark LABEL" on every dutfs mount of the repetition. */
void repeat_mark(struct runner *R, const char *label);

/* "c00-default rep 1/1: soak (oltp-run)": a plan item in progress lines (runner.c). */
void runner_item_label(const struct runner *R, const struct dut_plan_item *it, char *buf, size_t len);

/* runner_soak.c: while a step runs, with [experiment] progress / report-every,
 * a progress line every so often and report.md rewritten as a partial
 * report (dutlab report RUNDIR in the background).  soak_watch_opts hooks the
 * watch into the step's command; soak_watch_end stops a partial report still
 * being written (the final one is written after the teardown). */
struct soak_watch {
	struct runner *R;
	const struct dut_plan_item *it;
	const char *log;        /* the step's log: its last "progress:" line (pgbench -P) */
	uint64_t t0_ns, next_progress_ns, next_report_ns;
	pid_t report_pid;       /* a partial report being written, or 0 */
	unsigned reports;       /* partial reports started */
};
void soak_watch_start(struct soak_watch *w, struct runner *R, const struct dut_plan_item *it,
		      const char *log, struct run_cmd_opts *o);
void soak_watch_end(struct soak_watch *w);

/* runner_steps.c: one iteration of a step.  0, -EINTR (interrupted), or
 * -errno with err (the repetition fails). */
int repeat_run_step(struct runner *R, const struct dut_plan_item *it, struct dut_error *err);

#endif
