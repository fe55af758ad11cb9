/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The experiment runner behind `dutlab run` (docs/dutlab-run.md).
 *
 * A run walks the plan (tools/run/experiment.h) item by item: a setup item
 * tears down the previous repetition and sets up a fresh one (targets,
 * dutfs mounts, a cluster, a standby), a step item runs one iteration of a
 * step.  Every resource a repetition acquires pushes its undo action on a
 * cleanup stack (runner_cleanup.c); the normal teardown, a failure and
 * Ctrl-C all unwind the same stack.  The state of the run (struct
 * run_state) is what the manifest is rendered from (manifest.c, pure) and
 * is rewritten after every step.
 *
 * Pure parts, unit-tested: the cleanup stack, step argv building
 * (runner_argv.c), the ETA (progress.c), the manifest (manifest.c).
 * Syscalls: spawn.c (children), runner_sys.c (files, mounts),
 * runner_target.c (staging), runner.c / runner_rep.c / runner_steps.c
 * (the orchestration).
 */
#ifndef DUTLAB_RUN_RUNNER_H
#define DUTLAB_RUN_RUNNER_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "lib/error.h"
#include "lib/result.h"
#include "tools/run/experiment.h"
#include "tools/run/steps/step_argv.h"

/* ---- status of a run, a configuration, a repetition, a step ---- */

enum run_status {
	RUN_PENDING = 0, RUN_RUNNING, RUN_COMPLETE, RUN_FAILED, RUN_SKIPPED, RUN_INTERRUPTED,
};

/* "pending", "running", "complete", "failed", "skipped", "interrupted";
 * for steps RUN_COMPLETE is "ok". */
const char *run_status_name(enum run_status s);
const char *run_step_status_name(enum run_status s);

struct run_artifact {
	char *key;      /* "trace", "relmap", "stats", "server_log", "trace-<target>", ... */
	char *file;     /* relative to the repetition's directory */
};

struct run_step_state {
	enum run_status status;
	int exit_code;          /* of the last run; -1 while none */
	char started_at[32];    /* RFC 3339 UTC of the first iteration; "" before */
	uint64_t wall_ns;       /* all iterations */
	unsigned runs_done;     /* iterations finished */
	char **argv;            /* the measuring command of the first iteration (NULL-terminated) */
	struct run_argv_list { char **v; size_t n; } results, logs;   /* files written, in order */
	json_object *device;    /* identify: the target and the device beneath it (manifest), or NULL */
	bool dutfs_cpu_known;   /* every dutfs daemon of the repetition was read before and after */
	double dutfs_cpu_s;     /* their CPU time during the step (all iterations) */
};

struct run_rep_state {
	unsigned rep;           /* 1.. */
	enum run_status status;
	char *reason;           /* why it failed, or NULL */
	struct run_step_state *steps;    /* one per exp->steps */
	struct run_artifact *artifacts;
	size_t nartifacts;
	/* The server's memory budget, read back from pgload's state file and
	 * result documents (0: none / unknown); manifest "memory". */
	struct run_rep_memory {
		uint64_t budget_bytes, shared_buffers_bytes, peak_bytes, database_bytes;
	} mem;
	/* What each used target was staged as (manifest "targets"). */
	struct run_rep_target {
		char *name;
		char *path;         /* the target, absolute */
		char *dir;          /* where its data went (a directory); NULL: raw, no filesystem */
		char *filesystem;   /* the type of dir's filesystem ("ext4", mountinfo); NULL: unknown */
		bool dutfs;         /* a dutfs mount over it */
	} *targets;
	size_t ntargets;
};

struct run_cfg_state {
	enum run_status status;
	char *reason;
	char *dir;              /* "c00-default" */
	/* The PostgreSQL it runs, found by the checks (runner_check.c):
	 * major 0 while not known or without a cluster (manifest "postgres") */
	struct run_cfg_pg {
		unsigned major;
		char version[160];      /* `postgres --version` */
		char bindir[PATH_MAX];
		/* the block sizes in kB: a dutlab pg build's (runner_pgbuild.c),
		 * else DUT_PG_DEFAULT_BLOCK_KB, what every Debian package has */
		unsigned block_kb, wal_block_kb;
	} pg;
	struct run_rep_state *reps;     /* exp->repetitions */
};

struct run_state {
	const struct dut_experiment *exp;
	const struct dut_plan *plan;
	char *source;           /* experiment file, or "built-in" */
	char *rundir;
	char started_at[32], finished_at[32];
	enum run_status status;
	bool have_host;
	struct dut_host host;
	struct run_cfg_state *cfgs;     /* plan->nconfigs */
};

int run_state_new(const struct dut_plan *plan, const char *source, const char *rundir,
		  struct run_state **ret);
void run_state_free(struct run_state *st);
int run_rep_add_artifact(struct run_rep_state *r, const char *key, const char *file);
int run_list_add(struct run_argv_list *l, const char *s);
/* Replace *dst by a copy of the formatted text (reasons). */
int run_set_text(char **dst, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "c07-ext4-journal+syscall": index and the name with every character
 * outside [A-Za-z0-9._+-] replaced by '_'.  0 or -ENAMETOOLONG. */
int run_config_dirname(unsigned index, const char *name, char *buf, size_t len);
/* Base name of a step's files: "load", or "load.2" for iteration 1 of a
 * step with repeat > 1 (iterations count from 0, files from 1). */
int run_step_basename(const struct dut_step *s, unsigned iteration, char *buf, size_t len);

/* ---- manifest (manifest.c; pure) ---- */

/* The manifest.json document of the run (contract "Run directory of dutlab run"). */
json_object *run_manifest_json(const struct run_state *st);
/* replica.json of a repetition: append the "replica_lag" series of every
 * phase of a step's result document to *doc (made on first use:
 * { "schema": "dutlab-replica", "schema_version": 1, "mode",
 *   "steps": [ { "step", "result", "phase", "replica_lag": {series} } ] }).
 * Returns the number of series added, or -errno. */
int run_replica_add(json_object **doc, const char *mode, const char *step, const char *result_file,
		    json_object *result);

/* ---- cleanup stack (runner_cleanup.c; pure) ---- */

typedef int (*run_undo_fn)(void *arg, struct dut_error *err);

struct run_undo {
	char label[128];
	run_undo_fn fn;
	void *arg;
	void (*free_arg)(void *arg);    /* NULL: arg is not owned */
};

struct run_cleanup {
	struct run_undo *items;
	size_t n, cap;
};

int run_cleanup_push(struct run_cleanup *c, const char *label, run_undo_fn fn, void *arg,
		     void (*free_arg)(void *));
/* Run the undo actions last-in first-out, every one even when some fail;
 * report(label, ret, err, ctx) is called after each (may be NULL).
 * Returns the number of actions that failed. */
unsigned run_cleanup_unwind(struct run_cleanup *c,
			    void (*report)(const char *label, int ret, const struct dut_error *err, void *ctx),
			    void *ctx);
void run_cleanup_free(struct run_cleanup *c);

/* ---- argv of a step (runner_argv.c: through the kind's ops; pure) ---- */

/* struct run_argv, struct run_step_ctx and run_argv_*: tools/run/steps/step_argv.h */

/* The commands of one iteration of a step: 1, or 2 for a restore of
 * "self" (pgload restore dump, then pgload restore run); the last one is
 * the measured one.  0, -ENOMEM, or -ENOTSUP (with err) for a setting no
 * tool can run yet. */
int run_step_argv(const struct dut_step *s, const struct run_step_ctx *ctx, char **ret_cmds[2],
		  size_t *ret_ncmds, struct dut_error *err);
/* Whether this dutlab can run the step at all: 0 or -ENOTSUP with err
 * (checked for every step before a run starts). */
int run_step_supported(const struct dut_step *s, struct dut_error *err);
/* Whether a step's exit status is a result rather than a failure: dutlab
 * crash exits 1 when it found damage or a blind control (its document says which). */
bool run_step_exit_is_result(const struct dut_step *s, int status);
/* Whether a step's tool writes relation maps (pgload init and run). */
bool run_step_writes_relmap(const struct dut_step *s);

/* ---- what comes from others' files, what others may read (runner_secure.c; pure) ---- */

/* Append " key='value'" to the conninfo in buf, quoted per libpq (single
 * quotes; ' and \ escaped with a backslash).  -ENAMETOOLONG (buf is
 * then as it was). */
int run_conninfo_add(char *buf, size_t len, const char *key, const char *value);
/* host, port, user and dbname, every value quoted: the one way the runner
 * builds a conninfo.  -ENAMETOOLONG (buf is then ""). */
int run_conninfo_build(char *buf, size_t len, const char *host, int port, const char *user,
		       const char *dbname);
/* pgload's socket directory: exactly /tmp/pgload- and 6 characters of
 * mkdtemp's alphabet ([A-Za-z0-9]); nothing else is accepted. */
bool run_socket_dir_ok(const char *dir);
bool run_port_ok(long long port);
/* dut_redact_arg (lib/redact.h) of every element (NULL-terminated; NULL: out of
 * memory; free with run_strv_free). */
char **run_strv_redacted(char *const *v);

/* ---- progress and ETA (progress.c; pure) ---- */

enum run_item_state { RUN_ITEM_PENDING = 0, RUN_ITEM_DONE, RUN_ITEM_SKIPPED };

struct run_progress {
	const struct dut_plan *plan;
	enum run_item_state *state;     /* per plan item */
	uint64_t *actual_ns;            /* per plan item, when done */
};

int run_progress_init(struct run_progress *p, const struct dut_plan *plan);
void run_progress_free(struct run_progress *p);
/* The plan's estimates scaled by measured/estimated time of the items done
 * so far (between 1/4 and 4); the current item counts what is left of it. */
uint64_t run_progress_left_ns(const struct run_progress *p, size_t current, uint64_t current_elapsed_ns);
/* "1h02m", "3m05s", "42s", "0.4s". */
void run_fmt_duration(uint64_t ns, char *buf, size_t len);

/* ---- running (runner.c and friends) ---- */

struct run_opts {
	const char *source;             /* experiment file, NULL: built-in */
	const char *out;                /* --out, NULL: default */
	bool yes;                       /* run what can run; do not ask */
	bool dry_run;
};

/* Signals: SIGINT/SIGTERM/SIGHUP set a flag (runner_signal in spawn.c). */
extern volatile sig_atomic_t run_signal_received;
void run_signals_install(void);

/* The whole run: checks, every configuration and repetition, the manifest.
 * On return *ret_rundir (malloc'd) names the run directory when one was
 * made.  Exit status: 0 complete, 1 failed or refused, 130 interrupted. */
int run_experiment(const struct dut_experiment *e, const struct run_opts *o, char **ret_rundir);

#endif
