/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dutlab results: the server side (libpq).  Errors: -errno, err says what. */
#ifndef DUTLAB_RESULTS_DB_H
#define DUTLAB_RESULTS_DB_H

#include <stdbool.h>
#include <stddef.h>

#include <libpq-fe.h>

#include "tools/results/results.h"

/* -ECONNREFUSED when the server cannot be reached (err has libpq's words). */
int results_db_connect(const char *conninfo, PGconn **ret, struct dut_error *err);

/*
 * Create the schema or take it to RESULTS_SCHEMA_VERSION, in one
 * transaction; *ret_from is the version found (0: none).  -EPROTO when the
 * database has a newer version than this dutlab knows.
 */
int results_db_init(PGconn *c, int *ret_from, struct dut_error *err);

/* The schema is there at RESULTS_SCHEMA_VERSION; else -ENOENT/-EPROTO, err says what to do. */
int results_db_check(PGconn *c, struct dut_error *err);

struct results_push {
	const struct rundir_model *m;
	const char *manifest_json;   /* the manifest's text, stored as jsonb */
	const struct findings *findings;
	const char *pushed_by;       /* "dutlab VERSION" */
};

/*
 * Push one loaded run in one transaction.  When the run id is there
 * already, nothing changes and *ret_present is true.  *ret_rows counts the
 * rows inserted over all tables.
 */
int results_db_push(PGconn *c, const struct results_push *p, size_t *ret_rows, bool *ret_present,
		    char *ret_run_id, size_t id_len, struct dut_error *err);

/* s reads as a timestamptz; else -EINVAL and err says why (a --where since/until). */
int results_db_timestamp_ok(PGconn *c, const char *s, struct dut_error *err);

/*
 * The three questions over the runs a filter keeps (results_where_parse()'s
 * document as text; "{}": every run), from the functions *_where of the
 * schema.
 */
int results_db_compare(PGconn *c, const char *filter_json, struct results_cmp *ret,
		       struct dut_error *err);

#endif
