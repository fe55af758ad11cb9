/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Experiment files for `dutlab run` (docs/experiment-format.md is the
 * user's guide): the parsed experiment, and its expansion into a plan.
 *
 *     [experiment]  name, description, repetitions, order, filesystem, progress, report-every
 *     [target T]    type = directory | image | device, path, size, destructive
 *     [filesystem F] type = ext4 | xfs | btrfs | none, data, block-size, mkfs/mount options
 *     [dutfs]       view = device | syscall | off, trace, shape, trace-max, trace-segments
 *     [postgres]    target, wal-on, data-checksums, memory, version | bindir,
 *                   block_size, wal_block_size,
 *                   set = NAME=VALUE (repeatable)
 *     [tablespace S] target
 *     [replica]     target, mode = none | async | sync
 *     [matrix]      filesystem, view, shape, replica, tables-on, indexes-on, version,
 *                   block_size, wal_block_size, set.NAME
 *     [step S]      type = identify | bench | slc | fill | oltp-init | oltp-run | dss | restore
 *
 * All of this is pure code: dut_experiment_parse() reads text, validates it
 * completely (every configuration the matrix expands to is checked) and
 * either returns an experiment or an error that names file:line, what was
 * expected and what was found.  Only dut_experiment_load() (experiment_file.c)
 * reads a file.
 */
#ifndef DUTLAB_RUN_EXPERIMENT_H
#define DUTLAB_RUN_EXPERIMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/error.h"

#define DUT_EXP_NAME_MAX 48
#define DUT_EXP_MAX_CONFIGS 256       /* a matrix may expand to at most this many */
#define DUT_EXP_MAX_REPETITIONS 100
#define DUT_EXP_MAX_STEPS 64
#define DUT_EXP_MAX_BYTES (1u << 20)  /* of experiment text */

enum dut_target_type { DUT_TARGET_DIRECTORY, DUT_TARGET_IMAGE, DUT_TARGET_DEVICE };

struct dut_target {
	char *name;
	unsigned line;
	enum dut_target_type type;
	char *path;             /* as written; relative paths are resolved by the runner
				 * against dut_experiment.base_dir */
	uint64_t size_bytes;    /* image: size of the file; otherwise 0 */
	bool destructive;       /* device: the user agreed to lose its contents */
	bool follow_symlinks;   /* image: its path may go through symbolic links */
	char *filesystem;       /* name of a filesystem, or NULL: the configuration's */
	char *shape;            /* shape rules for this target, or NULL: the configuration's */
};

enum dut_fs_type { DUT_FS_NONE, DUT_FS_EXT4, DUT_FS_XFS, DUT_FS_BTRFS };
enum dut_ext4_data { DUT_EXT4_ORDERED, DUT_EXT4_WRITEBACK, DUT_EXT4_JOURNAL };

struct dut_filesystem {
	char *name;
	unsigned line;          /* 0: built in (ext4-ordered, ..., none) */
	enum dut_fs_type type;
	enum dut_ext4_data data;    /* ext4 only */
	uint32_t block_size;        /* 0: mkfs's default */
	char *mkfs_options;         /* extra, space-separated; NULL: none */
	char *mount_options;        /* extra -o options; NULL: none */
};

enum dut_view { DUT_VIEW_DEVICE, DUT_VIEW_SYSCALL, DUT_VIEW_OFF };
enum dut_replica_mode { DUT_REPLICA_NONE, DUT_REPLICA_ASYNC, DUT_REPLICA_SYNC };

struct dut_setting {
	char *name, *value;
	unsigned line;
};

struct dut_tablespace {
	char *name;
	char *target;
	unsigned line;
};

/* ---- steps: a table of parameters per step kind (tools/kinds/<kind>.c) ---- */

enum dut_param_kind {
	DUT_P_UINT,       /* whole number in [min, max] */
	DUT_P_NUMBER,     /* decimal number in [min, max] (DSS scale factor) */
	DUT_P_SIZE,       /* lib/units size, in [min, max] bytes */
	DUT_P_DURATION,   /* lib/units duration, in [min, max] seconds */
	DUT_P_BOOL,       /* yes/no/true/false/on/off/1/0 */
	DUT_P_CHOICE,     /* one of choices */
	DUT_P_LIST,       /* comma-separated items, each checked by item_kind */
	DUT_P_STRING,     /* free text (a file name, a query list) */
	DUT_P_TABLESPACE, /* a [tablespace] name or "default" */
};

enum dut_item_kind {
	DUT_ITEM_CHOICE,        /* one of choices */
	DUT_ITEM_CHOICE_WEIGHT, /* one of choices, optionally "@WEIGHT" (1..1000) */
	DUT_ITEM_UINT,          /* whole number in [min, max] */
	DUT_ITEM_LEVEL,         /* a percentage ("30%") or a size ("8GiB") */
	DUT_ITEM_QUERIES,       /* a query number or range "3-5" in [min, max] */
};

struct dut_param_spec {
	const char *key;
	enum dut_param_kind kind;
	enum dut_item_kind item_kind;   /* DUT_P_LIST */
	const char *flag;               /* the option of the tool it maps to; NULL: none */
	const char *def;                /* default text, NULL: not passed (the tool's default) */
	double min, max;                /* range (seconds for durations, bytes for sizes) */
	const char *const *choices;     /* NULL-terminated */
	bool required;
	const char *help;
};

struct dut_param_value {
	bool set;               /* written in the file (else def, or nothing) */
	unsigned line;          /* of the key; 0 when defaulted */
	char *text;             /* NULL: neither set nor defaulted */
	uint64_t u;             /* UINT, SIZE (bytes), DURATION (ns), BOOL, CHOICE index, LIST count */
	double d;               /* NUMBER */
};

struct dut_step;
struct run_argv;
struct run_step_ctx;

/*
 * A step kind (tools/kinds/<kind>.c, listed once in tools/kinds/meson.build):
 * everything the parser, the planner and the runner know about it.  Code
 * outside a kind's file asks these fields and ops, never the kind's name.
 */
struct dut_step_type {
	const char *name;               /* "oltp-run" */
	const char *tool;               /* "dutprobe" | "pgload" | "pg_restore" */
	const char *command;            /* first argument of the tool: "bench", "run" */
	bool probe;                     /* runs on a target, not through the cluster */
	const struct dut_param_spec *params;
	size_t nparams;
	const char *summary;
	/* ---- what it needs and does, for the planner and the runner ---- */
	bool reads_only;                /* probe: only reads its target (a filesystem's directory or
					 * the device), so needs no filesystem and no --destructive */
	bool identify;                  /* its document describes the device (manifest's device;
					 * the step another kind's identify = names) */
	bool workdir;                   /* probe: its target is a directory made for it under the
					 * target's filesystem and removed at teardown */
	bool own_clusters;              /* runs clusters and dutfs mounts of its own (needs what a
					 * cluster and dutfs need) */
	bool runs_dutlab;               /* its tool is this dutlab program (ctx->dutlab) */
	bool places_tables;             /* takes tables-on / indexes-on (the [matrix] keys too);
					 * its space splits between the two tablespaces */
	bool restores;                  /* restores a dump: its "dump" parameter is "self" or a file */
	bool relmap;                    /* its tool writes relation maps (--relmap) */
	int result_exit;                /* a non-zero exit status that is a result (a finding), not a failure */
	/* Cross-parameter checks (threads <= clients); 0 or -EINVAL with msg. */
	int (*check)(const struct dut_step *s, char *msg, size_t len, unsigned *ret_line);
	/* Estimated wall time of one run of the step on a 2-core machine;
	 * target_bytes: size of the step's target when known (image, span),
	 * db_bytes: estimated size of the database the steps before it built. */
	uint64_t (*estimate_ns)(const struct dut_step *s, uint64_t target_bytes, uint64_t db_bytes);
	/* Bytes the step adds on its target (database, probe file, dump). */
	uint64_t (*space_bytes)(const struct dut_step *s, uint64_t db_bytes);
	/* Its command line (tools/run/steps/step_argv.h): the measured command into cmd, a command
	 * to run before it into pre (restore's dump); 0, -ENOMEM, -ENOTSUP with err. */
	int (*argv)(const struct dut_step *s, const struct run_step_ctx *c, struct run_argv *cmd,
		    struct run_argv *pre, struct dut_error *err);
	/* NULL: every setting can run; else 0 or -ENOTSUP with err. */
	int (*supported)(const struct dut_step *s, struct dut_error *err);
};

struct dut_step {
	char *name;
	unsigned line;
	const struct dut_step_type *type;
	unsigned repeat;        /* runs in a row within one repetition (default 1) */
	char *target;           /* probe steps: the target (default: the cluster's) */
	bool raw;               /* probe steps: the whole target, not a file on it */
	char *mark;             /* dutfs phase marker label (default: the step name) */
	struct dut_param_value *values;   /* one per type->params */
};

/* The value of a parameter (by key) of a step; NULL if the type has no such key. */
const struct dut_param_value *dut_step_param(const struct dut_step *s, const char *key);
/* Step types, and lookup by name (NULL if unknown). */
extern const struct dut_step_type *const dut_step_types[];
extern const size_t dut_step_ntypes;
const struct dut_step_type *dut_step_type_find(const char *name);

/* ---- matrix ---- */

enum dut_dim_kind {
	DUT_DIM_FILESYSTEM, DUT_DIM_VIEW, DUT_DIM_SHAPE, DUT_DIM_REPLICA,
	DUT_DIM_TABLES_ON, DUT_DIM_INDEXES_ON, DUT_DIM_VERSION, DUT_DIM_BLOCK_SIZE,
	DUT_DIM_WAL_BLOCK_SIZE, DUT_DIM_SET,
};

struct dut_dimension {
	enum dut_dim_kind kind;
	char *key;              /* as written: "filesystem", "set.random_page_cost" */
	char *setting;          /* DUT_DIM_SET: the PostgreSQL setting */
	char **values;
	size_t nvalues;
	unsigned line;
};

/*
 * The order of the (configuration, repetition) blocks of a run.  Interleaved
 * runs repetition 1 of every configuration, then repetition 2 of every
 * configuration, ...: a drift over the run (caches warming, the drive's
 * state, other work on a shared machine) then spreads over every
 * configuration instead of looking like a difference between them.
 */
enum dut_exp_order { DUT_ORDER_INTERLEAVED, DUT_ORDER_SEQUENTIAL };

struct dut_experiment {
	char *source;           /* file name for messages */
	char *base_dir;         /* directory of the file ("." for a bare name) */
	char *name;
	char *description;
	unsigned repetitions;
	enum dut_exp_order order;   /* default: interleaved with repetitions > 1, else sequential */
	unsigned order_line;        /* of the order key; 0 when defaulted */
	/* base configuration, overridden by [matrix] */
	char *filesystem;       /* default "none" */
	enum dut_view view;
	bool trace;
	char *shape;            /* NULL: no shaping */
	enum dut_replica_mode replica;
	/* [dutfs] trace-max: each trace kept within this many bytes by rotation
	 * (dutfs --trace-max); 0: unbounded.  trace-segments: 0 = dutfs's default */
	uint64_t trace_max_bytes;
	unsigned trace_segments;
	unsigned trace_max_line;
	/* [experiment] progress: a line every this often while a step runs;
	 * report-every: report.md rewritten (partial) this often while a step
	 * runs.  0: neither (the default) */
	uint64_t progress_ns, report_every_ns;
	/* cluster */
	char *pg_target;        /* holds the data directory */
	char *wal_target;       /* NULL: WAL with the data directory */
	bool data_checksums;
	uint64_t pg_memory_bytes;   /* [postgres] memory: the server's budget (pgload --memory); 0: none */
	unsigned pg_memory_line;
	char *replica_target;   /* NULL: no [replica] */
	/* [postgres] version = MAJOR or bindir = DIR (at most one); neither:
	 * the newest major installed (lib/pgbin.h), found by the runner */
	unsigned pg_major;      /* 0: not given */
	char *pg_bindir;        /* NULL: not given */
	unsigned pg_line;       /* of the version or bindir key; 0 */
	/* [postgres] block_size, wal_block_size in kB: a build of dutlab pg
	 * build (lib/pgbin.h) rather than an installed major; 0: not given */
	unsigned pg_block_kb, pg_wal_block_kb;
	unsigned pg_block_line, pg_wal_block_line;
	struct dut_setting *settings;
	size_t nsettings;

	struct dut_target *targets;
	size_t ntargets;
	struct dut_filesystem *filesystems;     /* built-ins first, then the file's */
	size_t nfilesystems;
	struct dut_tablespace *tablespaces;
	size_t ntablespaces;
	struct dut_dimension *dims;
	size_t ndims;
	struct dut_step *steps;
	size_t nsteps;
	size_t nconfigs;        /* product of the dimension sizes */
};

int dut_experiment_parse(const char *text, size_t len, const char *filename,
			 struct dut_experiment **ret, struct dut_error *err);
/* Read a file (at most DUT_EXP_MAX_BYTES) and parse it. */
int dut_experiment_load(const char *path, struct dut_experiment **ret, struct dut_error *err);
void dut_experiment_free(struct dut_experiment *e);

/* The built-in experiment `dutlab run` runs without a file (today's main job). */
extern const char dut_experiment_default_text[];
#define DUT_EXPERIMENT_DEFAULT_NAME "<built-in default experiment>"

/* A PostgreSQL setting name ([A-Za-z_][A-Za-z0-9_.]*, at most 63) and a
 * value without control characters: what may reach pgload --set. */
bool dut_setting_name_ok(const char *name);
bool dut_setting_value_ok(const char *value);

const struct dut_filesystem *dut_experiment_filesystem(const struct dut_experiment *e, const char *name);
const struct dut_target *dut_experiment_target(const struct dut_experiment *e, const char *name);

/* ---- the plan ---- */

/* Space estimates (bytes on the target that holds them).  pgbench: a scale
 * unit is 100,000 pgbench_accounts rows = 13 MiB of heap + 2.2 MiB of
 * primary key (PostgreSQL 15, fillfactor 100).  DSS: one SF is ~1 GiB of raw
 * data, ~1.5 GiB in PostgreSQL with primary/foreign key indexes.  WAL:
 * max_wal_size defaults to 1 GiB and is exceeded during bulk loads. */
#define DUT_PGBENCH_TABLE_BYTES_PER_SCALE (13ull << 20)
#define DUT_PGBENCH_INDEX_BYTES_PER_SCALE (2ull << 20)
#define DUT_DSS_BYTES_PER_SF (3ull << 29)               /* 1.5 GiB */
#define DUT_PG_CLUSTER_BYTES (64ull << 20)               /* initdb: ~40 MiB */
#define DUT_PG_WAL_BYTES (1ull << 30)

struct dut_config_target {
	const struct dut_target *target;
	const struct dut_filesystem *fs;
	const char *shape;      /* rules file as written (relative to base_dir), or NULL */
	uint64_t space_bytes;   /* needed inside the target */
	bool holds_pgdata, holds_wal, holds_replica;
};

struct dut_config {
	unsigned index;
	char *name;             /* values of the dimensions joined by '+', or "default" */
	const char **dim_values;    /* one per exp->dims */
	const struct dut_filesystem *filesystem;   /* the configuration's default */
	enum dut_view view;
	bool trace;
	const char *shape;
	enum dut_replica_mode replica;
	const char *tables_on, *indexes_on;     /* NULL: default tablespace */
	unsigned pg_major;      /* [postgres] or [matrix] version; 0: not asked for */
	const char *pg_bindir;  /* [postgres] bindir, or NULL; neither: the newest installed */
	unsigned pg_block_kb, pg_wal_block_kb;  /* [postgres] or [matrix] block_size, wal_block_size; 0: not asked for */
	struct dut_setting *settings;           /* [postgres] set, then matrix set.NAME;
						 * the strings belong to the experiment */
	size_t nsettings;
	bool needs_cluster;
	struct dut_config_target *targets;      /* one per exp->targets */
	size_t ntargets;
	uint64_t setup_ns;      /* one repetition: mkfs, mount, initdb, replica, teardown */
	uint64_t est_ns;        /* all repetitions */
	uint64_t space_bytes;   /* sum over the targets */
};

enum dut_plan_item_kind { DUT_PLAN_SETUP, DUT_PLAN_STEP };

struct dut_plan_item {
	enum dut_plan_item_kind kind;
	unsigned config, rep;               /* rep counts from 0 */
	unsigned step, iteration;           /* DUT_PLAN_STEP: index in exp->steps, 0..repeat-1 */
	uint64_t est_ns;
	uint64_t start_ns;                  /* estimated start, from the beginning of the run */
};

struct dut_plan {
	const struct dut_experiment *exp;
	struct dut_config *configs;
	size_t nconfigs;
	struct dut_plan_item *items;        /* execution order */
	size_t nitems;
	uint64_t est_ns;
};

/* Expand a (parsed, hence valid) experiment: configurations in matrix order
 * (the first [matrix] key varies slowest); each (configuration, repetition)
 * is one contiguous block of items, a setup and the steps in file order;
 * the blocks go repetition-major (interleaved: rep 1 of every configuration,
 * then rep 2, ...) or configuration-major (sequential), as e->order says.
 * 0 or -ENOMEM. */
int dut_experiment_plan(const struct dut_experiment *e, struct dut_plan **ret);
void dut_plan_free(struct dut_plan *p);

/* `dutlab run --dry-run`: the plan as text.  0 or -EIO. */
int dutlab_run_print_plan(const struct dut_plan *p, FILE *out);

/* Names for enums (for renderers). */
const char *dut_target_type_name(enum dut_target_type t);
const char *dut_fs_type_name(enum dut_fs_type t);
const char *dut_view_name(enum dut_view v);
const char *dut_replica_mode_name(enum dut_replica_mode m);
const char *dut_exp_order_name(enum dut_exp_order o);

#endif
