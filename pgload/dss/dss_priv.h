/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internals of `pgload dss` shared by its libpq files (pg_*.c), the file
 * sinks and dss_main.c.  Library-style: functions return 0 or -errno and
 * put a message for the user into err; only dss_main.c prints.
 */
#ifndef DSS_PRIV_H
#define DSS_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include <libpq-fe.h>

#include "lib/error.h"
#include "pgload/dss/gen.h"
#include "pgload/dss/genrun.h"
#include "pgload/dss/queries.h"
#include "pgload/dss/report.h"

struct dss_opts {
	const char *conninfo, *host, *port, *user;
	double sf;
	uint64_t data_seed, param_seed;
	unsigned threads;
	bool phase[DSS_NPHASES];
	bool query[DSS_NQUERIES + 1];
	bool random_params;
	unsigned reps;
	uint64_t timeout_ns;
	unsigned stats_target;
	const char *dutfs_control;
	const char *pgdata;          /* where to look for .dutfs/control from */
	const char *to_files;
	bool gen_only;
	const char *json_path;
	const char *relmap_path;       /* --relmap */
	bool quiet;
};

/* ---- pg_util.c ---- */
/* Connect as the options say (application_name pgload-dss). */
int dss_pg_connect(const struct dss_opts *o, PGconn **ret, struct dut_error *err);
/*
 * Run a statement that returns no rows (or whose rows are ignored).
 * -ETIMEDOUT for a statement timeout (SQLSTATE 57014), -EIO otherwise,
 * with the server's message in err.  *ret_rows (may be NULL): PQcmdTuples.
 */
int dss_pg_exec(PGconn *c, const char *sql, uint64_t *ret_rows, struct dut_error *err);
/* The single value a query returns (*ret malloc'ed); errors as dss_pg_exec. */
int dss_pg_value(PGconn *c, const char *sql, char **ret, struct dut_error *err);
/* COPY rows (the generator's text) into table; -EIO with err. */
int dss_pg_copy(PGconn *c, enum dss_table t, const char *buf, size_t len,
		struct dut_error *err);
uint64_t dss_now_ns(void);

/* ---- pg_load.c ---- */
/* Drop and create the tables, then COPY them on o->threads connections. */
int dss_phase_load(const struct dss_opts *o, const struct dss_gen *g, PGconn *c,
		   struct dss_report *r, struct dut_error *err);

/* ---- pg_phases.c ---- */
int dss_phase_keys(const struct dss_opts *o, PGconn *c, struct dss_report *r,
		   struct dut_error *err);
int dss_phase_analyze(const struct dss_opts *o, PGconn *c, struct dss_report *r,
		      struct dut_error *err);
int dss_phase_rf(const struct dss_opts *o, const struct dss_gen *g, PGconn *c,
		 struct dss_report *r, struct dut_error *err);

/* ---- pg_queries.c ---- */
int dss_phase_queries(const struct dss_opts *o, PGconn *c, struct dss_report *r,
		      struct dut_error *err);

/* ---- sink_file.c ---- */
/* Generate without a server: to DIR/<table>.tbl files, or to nothing (dir NULL). */
int dss_generate_offline(const struct dss_opts *o, const struct dss_gen *g,
			 struct dss_report *r, struct dut_error *err);

#endif
