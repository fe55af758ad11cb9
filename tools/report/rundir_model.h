/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The model of one run directory of `dutlab run` (docs/report.md, the
 * contract "Run directory of dutlab run"): manifest.json, the result
 * document of every step of every repetition, and each repetition's dutfs
 * trace summarised by report_build() (with its relation map when there is
 * one).
 *
 * rundir_manifest_parse() is pure (text in, struct out); rundir_model_load()
 * (rundir_model_load.c) reads the directory: the manifest first (a broken one
 * is an error naming the file and the member), then the documents and
 * traces it names.  A missing or unreadable document or trace does not stop
 * the report: it becomes a note (model->notes) that the report prints.
 */
#ifndef DUTLAB_RUNDIR_MODEL_H
#define DUTLAB_RUNDIR_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"
#include "lib/result.h"
#include "tools/report/report.h"

#include "lib/run_manifest.h"

/* the manifest's schema, version and size bound: lib/run_manifest.h */
#define RUNDIR_MANIFEST_SCHEMA DUT_RUN_MANIFEST_SCHEMA
#define RUNDIR_MANIFEST_VERSION DUT_RUN_MANIFEST_VERSION
#define RUNDIR_MANIFEST_MAX_BYTES DUT_RUN_MANIFEST_MAX_BYTES

/* One result document of a step (a step with repeat = k has k of them). */
struct rundir_doc {
	char *file;                /* as named in the manifest, relative to the rep dir */
	struct dut_result *doc;    /* NULL until loaded, or when it could not be read */
};

struct rundir_step {
	char *name, *type, *tool, *status;   /* never NULL ("" when absent) */
	char *mark;                /* the dutfs phase marker around the step (default: name) */
	char *started_at;          /* ISO 8601 UTC as the manifest has it; "" when absent */
	/* identify steps: the experiment's target (its name and the path the
	 * experiment gave) that identify saw through the run's staging mount,
	 * from the manifest's "device"; "" when absent */
	char *experiment_target, *experiment_path;
	int exit_code;
	uint64_t wall_ns;
	double dutfs_cpu_s;        /* the dutfs daemons' CPU time during the step; NAN: not recorded */
	struct rundir_doc *docs;
	size_t ndocs;
};

struct rundir_rep {
	unsigned rep;              /* 1-based */
	char *dir;                 /* relative to the run directory */
	char *status;
	struct rundir_step *steps;
	size_t nsteps;
	char *trace, *relmap;      /* artifacts, relative to dir; NULL when absent */
	struct report *io;         /* the trace summarised; NULL when not loaded */
	bool io_has_relmap;
	/* the traces of the other dutfs mounts (artifacts "trace-<target>":
	 * tablespaces, WAL, standby), and their summaries (NULL when not loaded) */
	char **more_traces;
	struct report **more_io;
	size_t nmore;
	/* manifest "targets" (absent in older manifests): the filesystem types
	 * the targets' data went on, distinct, ", "-joined ("" when none is
	 * known), and how many targets had dutfs over them (-1: not recorded) */
	char *filesystems;
	int dutfs_mounts;
};

struct rundir_config {
	unsigned index;
	char *name, *dir, *status; /* never NULL */
	char *reason;              /* why failed/skipped; "" when none */
	char *view, *filesystem, *replica;   /* "" when absent */
	uint64_t memory_budget_bytes;        /* [postgres] memory; 0: none or not recorded */
	char *pg_version, *pg_bindir;        /* manifest "postgres": `postgres --version`, its bindir; "" */
	unsigned pg_block_kb, pg_wal_block_kb;  /* its block sizes (kB); 0: not recorded (before #26) */
	struct rundir_rep *reps;
	size_t nreps;
};

struct rundir_model {
	char *dir;                 /* the run directory as given; "" from rundir_manifest_parse */
	char *name, *description, *source;
	unsigned repetitions;
	char *status, *started_at, *finished_at;   /* finished_at "" while running */
	bool have_host;
	struct dut_host host;
	struct rundir_config *configs;
	size_t nconfigs;
	char **notes;              /* what could not be loaded, and why */
	size_t nnotes;
};

/*
 * Parse manifest text.  fname names the file in error messages:
 * "RUN/manifest.json: configs[1].reps[0].steps[2].name: expected a string, found a number".
 */
int rundir_manifest_parse(const char *text, size_t len, const char *fname, struct rundir_model **ret,
		       struct dut_error *err);

enum rundir_load_flags {
	RUNDIR_LOAD_DOCS = 1 << 0,    /* read the result documents */
	RUNDIR_LOAD_TRACES = 1 << 1,  /* read and summarise the traces (with relmaps) */
};

/* Read RUNDIR/manifest.json and what it names (flags). */
int rundir_model_load(const char *rundir, unsigned flags, struct rundir_model **ret,
		   struct dut_error *err);
void rundir_model_free(struct rundir_model *m);

/* Is path a run directory (a directory holding manifest.json)? */
bool rundir_dir_detect(const char *path);

/* Add a note (printf-style); -ENOMEM. */
int rundir_model_note(struct rundir_model *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The step with this name in a rep, or NULL. */
const struct rundir_step *rundir_rep_step(const struct rundir_rep *r, const char *name);

/*
 * The server-side evidence of a pgload run document (pgload/servstat.h:
 * extra.server of phase "run", docs/pgload.md): NULL when the document has
 * none, or when it says it was not collected.
 */
struct json_object *rundir_server_json(const struct dut_result *doc);
/*
 * The delta of counter name (a pg_stat_* column, e.g. "wal_sync") there;
 * NAN when absent, and then *why (may be NULL) is the document's reason
 * ("" when it gives none).
 */
double rundir_server_counter(const struct dut_result *doc, const char *name, const char **why);
/* A number of extra.server.cpu ("server_s_per_txn", "cpus", ...): NAN when absent or null. */
double rundir_server_cpu(const struct dut_result *doc, const char *name);

#endif
