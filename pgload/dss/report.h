/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The result of a DSS run: one struct the phases fill, read by two
 * renderers: a human table and the JSON result document (lib/result.h),
 * one document phase per DSS phase, with per-step and per-query details
 * (times, rows, plan fingerprints and plan text) in the phase's "extra".
 */
#ifndef DSS_REPORT_H
#define DSS_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/result.h"
#include "pgload/dss/genrun.h"
#include "pgload/dss/queries.h"

enum dss_phase { DSS_PH_LOAD, DSS_PH_KEYS, DSS_PH_ANALYZE, DSS_PH_QUERIES, DSS_PH_RF, DSS_NPHASES };

/* "load", "keys", "analyze", "queries", "rf". */
const char *dss_phase_name(enum dss_phase p);

enum dss_status { DSS_OK, DSS_TIMEOUT, DSS_FAILED };
const char *dss_status_name(enum dss_status s);

/* A timed statement of a phase (an index, a table's ANALYZE, RF1). */
struct dss_step {
	char name[64];
	const char *kind;  /* "primary key", "index", "foreign key", "table", "refresh" */
	uint64_t ns, rows;
	enum dss_status status;
	char error[512];
};

struct dss_query_run {
	unsigned q, rep;
	enum dss_status status;
	char error[512];
	uint64_t ns, rows;
	uint64_t fingerprint;
	char *shape;      /* canonical plan string (malloc'ed, may be NULL) */
	char *plan_json;  /* EXPLAIN (FORMAT JSON) text (malloc'ed, may be NULL) */
	struct dss_qparams params;
};

#define DSS_MAX_STEPS 48

struct dss_report {
	/* configuration */
	double sf;
	uint64_t data_seed, param_seed;
	unsigned threads, reps, stats_target;
	bool random_params;
	uint64_t timeout_ns;
	const char *sink;          /* "copy", "files", "null" */
	char server_version[64];
	/* SHOW block_size and wal_block_size of the server (bytes); 0: not known */
	uint32_t block_size, wal_block_size;

	bool ran[DSS_NPHASES];
	enum dss_status phase_status[DSS_NPHASES];
	uint64_t phase_ns[DSS_NPHASES];

	/* load */
	struct dss_gen_job jobs[DSS_NTABLES];
	unsigned njobs;
	struct dss_gen_stats gen;

	/* keys, analyze, rf */
	struct dss_step steps[DSS_NPHASES][DSS_MAX_STEPS];
	unsigned nsteps[DSS_NPHASES];

	/* queries */
	struct dss_query_run *runs;
	unsigned nruns, cap_runs;
};

/* A new step of phase p (NULL when the table is full). */
struct dss_step *dss_report_step(struct dss_report *r, enum dss_phase p, const char *name,
				 const char *kind);
/* A new query run (zeroed); NULL on -ENOMEM. */
struct dss_query_run *dss_report_query(struct dss_report *r);
void dss_report_free(struct dss_report *r);

void dss_report_human(const struct dss_report *r, FILE *out);
/* Add the phases, config and target to a result document; -ENOMEM, -EINVAL. */
int dss_report_to_result(const struct dss_report *r, struct dut_result *res);

#endif
