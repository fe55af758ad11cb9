/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dutlab results: connecting, the schema's versions, the comparison queries. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "tools/results/results_db.h"
#include "tools/results/results_db_priv.h"

static void strip_newline(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
}

static void notice_quiet(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

int results_db_connect(const char *conninfo, PGconn **ret, struct dut_error *err)
{
	/* defaults first, so that a conninfo that sets them wins */
	const char *const keys[] = { "application_name", "connect_timeout", "dbname", NULL };
	const char *const vals[] = { "dutlab-results", "10", conninfo, NULL };
	PGconn *c = PQconnectdbParams(keys, vals, 1);
	char msg[400];

	if (!c) {
		dut_error_set(err, "out of memory for a connection");
		return -ENOMEM;
	}
	if (PQstatus(c) != CONNECTION_OK) {
		snprintf(msg, sizeof(msg), "%s", PQerrorMessage(c));
		strip_newline(msg);
		dut_error_set(err, "cannot connect to the database (%s): %s", conninfo, msg);
		PQfinish(c);
		return -ECONNREFUSED;
	}
	PQsetNoticeProcessor(c, notice_quiet, NULL);
	*ret = c;
	return 0;
}

int rdb_result_error(PGresult *res, const char *what, struct dut_error *err)
{
	char msg[400];

	snprintf(msg, sizeof(msg), "%s", res ? PQresultErrorMessage(res) : "out of memory");
	strip_newline(msg);
	dut_error_set(err, "%s: %s", what, msg);
	PQclear(res);
	return -EIO;
}

int rdb_exec(PGconn *c, const char *sql, const char *what, struct dut_error *err)
{
	PGresult *res = PQexec(c, sql);

	if (PQresultStatus(res) != PGRES_COMMAND_OK && PQresultStatus(res) != PGRES_TUPLES_OK)
		return rdb_result_error(res, what, err);
	PQclear(res);
	return 0;
}

/* The version in dutlab.schema_version: 0 when there is no schema. */
static int schema_version(PGconn *c, int *ret, struct dut_error *err)
{
	PGresult *res = PQexec(c, "SELECT to_regclass('dutlab.schema_version') IS NOT NULL");
	int r;

	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		return rdb_result_error(res, "looking for the schema dutlab", err);
	r = strcmp(PQgetvalue(res, 0, 0), "t") == 0;
	PQclear(res);
	if (!r) {
		*ret = 0;
		return 0;
	}
	res = PQexec(c, "SELECT coalesce(max(version), 0) FROM dutlab.schema_version");
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		return rdb_result_error(res, "reading dutlab.schema_version", err);
	*ret = atoi(PQgetvalue(res, 0, 0));
	PQclear(res);
	return 0;
}

static int refuse_newer(int v, struct dut_error *err)
{
	dut_error_set(err, "the database has schema dutlab version %d, this dutlab knows versions up to %d "
		      "(use the dutlab that created it, or a newer one)", v, RESULTS_SCHEMA_VERSION);
	return -EPROTO;
}

int results_db_init(PGconn *c, int *ret_from, struct dut_error *err)
{
	const char *params[2];
	char vbuf[16];
	PGresult *res;
	int v, r;

	if ((r = rdb_exec(c, "BEGIN", "BEGIN", err)) < 0)
		return r;
	/* two inits at once: the second waits, then finds the schema made */
	if ((r = rdb_exec(c, "SELECT pg_advisory_xact_lock(hashtext('dutlab results schema'))",
			  "locking the schema", err)) < 0 ||
	    (r = schema_version(c, &v, err)) < 0)
		goto out_rollback;
	if (v > RESULTS_SCHEMA_VERSION) {
		r = refuse_newer(v, err);
		goto out_rollback;
	}
	for (int s = v + 1; s <= RESULTS_SCHEMA_VERSION; s++) {
		char what[64];

		snprintf(what, sizeof(what), "schema dutlab version %d", s);
		if ((r = rdb_exec(c, results_schema_step(s), what, err)) < 0)
			goto out_rollback;
		snprintf(vbuf, sizeof(vbuf), "%d", s);
		params[0] = vbuf;
		params[1] = DUT_VERSION;
		res = PQexecParams(c, "INSERT INTO dutlab.schema_version (version, dutlab_version) VALUES ($1, $2)",
				   2, NULL, params, NULL, NULL, 0);
		if (PQresultStatus(res) != PGRES_COMMAND_OK) {
			r = rdb_result_error(res, "recording the schema version", err);
			goto out_rollback;
		}
		PQclear(res);
	}
	if ((r = rdb_exec(c, "COMMIT", "COMMIT", err)) < 0)
		return r;
	*ret_from = v;
	return 0;
out_rollback:
	PQclear(PQexec(c, "ROLLBACK"));
	return r;
}

int results_db_check(PGconn *c, struct dut_error *err)
{
	int v, r;

	if ((r = schema_version(c, &v, err)) < 0)
		return r;
	if (v > RESULTS_SCHEMA_VERSION)
		return refuse_newer(v, err);
	if (v < RESULTS_SCHEMA_VERSION) {
		if (v == 0)
			dut_error_set(err, "the database has no schema dutlab (run dutlab results init --db CONNINFO first)");
		else
			dut_error_set(err, "the database has schema dutlab version %d, this dutlab writes %d "
				      "(run dutlab results init --db CONNINFO to upgrade it)", v, RESULTS_SCHEMA_VERSION);
		return -ENOENT;
	}
	return 0;
}

/* --- comparison --- */

int results_db_timestamp_ok(PGconn *c, const char *s, struct dut_error *err)
{
	PGresult *res = PQexecParams(c, "SELECT $1::timestamptz", 1, NULL, &s, NULL, NULL, 0);
	char msg[400];

	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		snprintf(msg, sizeof(msg), "%s", PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) ?
			 PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : "out of memory");
		PQclear(res);
		dut_error_set(err, "\"%s\" is not a timestamp PostgreSQL reads (%s); use 2026-11-01 or "
			      "2026-11-01T08:00:00Z", s, msg);
		return -EINVAL;
	}
	PQclear(res);
	return 0;
}

static const char spread_sql[] =
	"SELECT experiment, config, dimension, key, step, phase, metric, unit, runs, median, min, max\n"
	"FROM dutlab.metric_spread_where($1::jsonb)\n"
	"ORDER BY experiment, config, dimension, key, step, phase, metric";
static const char newest_sql[] =
	"SELECT hostname, experiment, started_at, config, step, phase, metric, unit, value, reps\n"
	"FROM dutlab.newest_per_host_where($1::jsonb)\n"
	"ORDER BY hostname, experiment, config_idx, step, phase, metric";
static const char regress_sql[] =
	"SELECT experiment, config, step, phase, metric, unit, hostname, started_at, value,\n"
	"       earlier_min, earlier_max, earlier_runs, direction\n"
	"FROM dutlab.regressions_where($1::jsonb)\n"
	"ORDER BY experiment, config, step, phase, metric";

static bool oid_numeric(Oid t)
{
	/* int2, int4, int8, float4, float8, numeric */
	return t == 21 || t == 23 || t == 20 || t == 700 || t == 701 || t == 1700;
}

static int table_from(PGresult *res, const char *name, struct results_table *t)
{
	size_t nc = (size_t)PQnfields(res), nr = (size_t)PQntuples(res);

	t->name = name;
	t->cols = calloc(nc ? nc : 1, sizeof(*t->cols));
	t->numeric = calloc(nc ? nc : 1, sizeof(*t->numeric));
	t->cells = calloc(nc * nr > 0 ? nc * nr : 1, sizeof(*t->cells));
	if (!t->cols || !t->numeric || !t->cells)
		return -ENOMEM;
	t->ncols = nc;
	for (size_t i = 0; i < nc; i++) {
		t->numeric[i] = oid_numeric(PQftype(res, (int)i));
		if (!(t->cols[i] = strdup(PQfname(res, (int)i))))
			return -ENOMEM;
	}
	t->nrows = nr;
	for (size_t r = 0; r < nr; r++)
		for (size_t i = 0; i < nc; i++) {
			if (PQgetisnull(res, (int)r, (int)i))
				continue;
			if (!(t->cells[r * nc + i] = strdup(PQgetvalue(res, (int)r, (int)i))))
				return -ENOMEM;
		}
	return 0;
}

int results_db_compare(PGconn *c, const char *filter_json, struct results_cmp *ret,
		       struct dut_error *err)
{
	static const struct {
		const char *name, *sql;
	} q[3] = {
		{ "spread", spread_sql }, { "newest_per_host", newest_sql }, { "regressions", regress_sql },
	};
	const char *params[1] = { filter_json };
	struct results_cmp cmp = { 0 };
	int r;

	if ((r = results_db_check(c, err)) < 0)
		return r;
	for (size_t i = 0; i < 3; i++) {
		PGresult *res = PQexecParams(c, q[i].sql, 1, NULL, params, NULL, NULL, 0);

		if (PQresultStatus(res) != PGRES_TUPLES_OK) {
			results_cmp_clear(&cmp);
			return rdb_result_error(res, q[i].name, err);
		}
		r = table_from(res, q[i].name, &cmp.t[i]);
		PQclear(res);
		if (r < 0) {
			results_cmp_clear(&cmp);
			dut_error_set(err, "out of memory for the answer of %s", q[i].name);
			return r;
		}
	}
	*ret = cmp;
	return 0;
}
