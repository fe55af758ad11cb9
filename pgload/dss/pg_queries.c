/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The queries phase: each selected query, for each repetition, first
 * EXPLAIN (FORMAT JSON) for its plan fingerprint (kept with the plan text),
 * then the query itself, timed, under statement_timeout.  A query that
 * times out or fails is recorded and the phase goes on with the next one.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "pgload/dss/dss_priv.h"
#include "pgload/dss/plan.h"

static int explain(PGconn *c, const char *sql, struct dss_query_run *q, struct dut_error *err)
{
	size_t n = strlen(sql) + 32;
	_cleanup_free_ char *text = malloc(n);
	int ret;

	if (!text)
		return -ENOMEM;
	snprintf(text, n, "explain (format json) %s", sql);
	ret = dss_pg_value(c, text, &q->plan_json, err);
	if (ret == 0)
		ret = dss_plan_fingerprint(q->plan_json, &q->fingerprint, &q->shape, err);
	return ret;
}

/* statement_timeout in ms (0: none) for what follows. */
static int set_timeout(PGconn *c, uint64_t ms, struct dut_error *err)
{
	char sql[64];

	snprintf(sql, sizeof(sql), "set statement_timeout = %" PRIu64, ms);
	return dss_pg_exec(c, sql, NULL, err);
}

static void run_one(const struct dss_opts *o, PGconn *c, struct dss_query_run *q)
{
	struct dut_error e = { "" };
	char *sql = NULL;
	uint64_t t0, rows = 0;
	int ret;

	ret = dss_query_params(q->q, o->random_params, o->param_seed, q->rep - 1, o->sf,
			       &q->params);
	if (ret == 0)
		ret = dss_query_text(q->q, &q->params, &sql);
	if (ret < 0) {
		q->status = DSS_FAILED;
		snprintf(q->error, sizeof(q->error), "cannot build the query text: %s",
			 strerror(-ret));
		return;
	}
	/* The timeout bounds the query, not its EXPLAIN. */
	uint64_t timeout_ms = (o->timeout_ns + 999999) / 1000000;
	ret = explain(c, sql, q, &e);
	if (ret == 0 && timeout_ms)
		ret = set_timeout(c, timeout_ms, &e);
	if (ret == 0) {
		t0 = dss_now_ns();
		ret = dss_pg_exec(c, sql, &rows, &e);
		q->ns = dss_now_ns() - t0;
		q->rows = rows;
		if (timeout_ms && PQstatus(c) == CONNECTION_OK) {
			struct dut_error e2;
			int r2 = set_timeout(c, 0, &e2);
			if (r2 < 0 && ret == 0) {
				ret = r2;
				e = e2;
			}
		}
	}
	free(sql);
	if (ret < 0) {
		q->status = ret == -ETIMEDOUT ? DSS_TIMEOUT : DSS_FAILED;
		snprintf(q->error, sizeof(q->error), "%s", e.msg);
	}
}

int dss_phase_queries(const struct dss_opts *o, PGconn *c, struct dss_report *r,
		      struct dut_error *err)
{
	int ret = set_timeout(c, 0, err);

	for (unsigned rep = 1; ret == 0 && rep <= o->reps; rep++) {
		for (unsigned q = 1; q <= DSS_NQUERIES; q++) {
			if (!o->query[q])
				continue;
			struct dss_query_run *run = dss_report_query(r);
			if (!run) {
				dut_error_set(err, "out of memory");
				return -ENOMEM;
			}
			run->q = q;
			run->rep = rep;
			run_one(o, c, run);
			if (PQstatus(c) != CONNECTION_OK) {
				dut_error_set(err, "the server closed the connection during Q%u: %s",
					      q, run->error);
				return -EIO;
			}
		}
	}
	if (ret == 0)
		ret = dss_pg_exec(c, "reset statement_timeout", NULL, err);
	return ret;
}
