/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libpq helpers of `pgload dss` (see dss_priv.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pgload/dss/dss_priv.h"

uint64_t dss_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The server's message without its trailing newline. */
static const char *message(PGconn *c, PGresult *res)
{
	static __thread char buf[512];
	const char *m = res ? PQresultErrorMessage(res) : PQerrorMessage(c);
	size_t n;

	if (!m || !*m)
		m = PQerrorMessage(c);
	snprintf(buf, sizeof(buf), "%s", m);
	n = strlen(buf);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return buf;
}

int dss_pg_connect(const struct dss_opts *o, PGconn **ret, struct dut_error *err)
{
	const char *keys[8], *vals[8];
	unsigned n = 0;
	PGconn *c;

	if (o->conninfo) {
		keys[n] = "dbname";
		vals[n++] = o->conninfo;
	}
	if (o->host) {
		keys[n] = "host";
		vals[n++] = o->host;
	}
	if (o->port) {
		keys[n] = "port";
		vals[n++] = o->port;
	}
	if (o->user) {
		keys[n] = "user";
		vals[n++] = o->user;
	}
	keys[n] = "fallback_application_name";
	vals[n++] = "pgload-dss";
	keys[n] = NULL;
	vals[n] = NULL;
	c = PQconnectdbParams(keys, vals, 1);
	if (!c) {
		dut_error_set(err, "cannot allocate a libpq connection");
		return -ENOMEM;
	}
	if (PQstatus(c) != CONNECTION_OK) {
		dut_error_set(err, "cannot connect to PostgreSQL: %s", message(c, NULL));
		PQfinish(c);
		return -ECONNREFUSED;
	}
	/* The load's "drop table if exists" would fill the output with notices. */
	PGresult *res = PQexec(c, "set client_min_messages = warning");
	PQclear(res);
	*ret = c;
	return 0;
}

static int result_error(PGconn *c, PGresult *res, const char *what, struct dut_error *err)
{
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	int ret = state && strcmp(state, "57014") == 0 ? -ETIMEDOUT : -EIO;

	dut_error_set(err, "%s: %s", what, message(c, res));
	return ret;
}

int dss_pg_exec(PGconn *c, const char *sql, uint64_t *ret_rows, struct dut_error *err)
{
	PGresult *res = PQexec(c, sql);
	ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
	int ret = 0;

	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
		char what[80];
		snprintf(what, sizeof(what), "%.60s%s", sql, strlen(sql) > 60 ? "..." : "");
		ret = result_error(c, res, what, err);
	} else if (ret_rows) {
		const char *t = PQcmdTuples(res);
		*ret_rows = t && *t ? strtoull(t, NULL, 10) : (uint64_t)PQntuples(res);
	}
	PQclear(res);
	return ret;
}

int dss_pg_value(PGconn *c, const char *sql, char **ret, struct dut_error *err)
{
	PGresult *res = PQexec(c, sql);
	int ret_code = 0;

	if (!res || PQresultStatus(res) != PGRES_TUPLES_OK) {
		char what[80];
		snprintf(what, sizeof(what), "%.60s%s", sql, strlen(sql) > 60 ? "..." : "");
		ret_code = result_error(c, res, what, err);
	} else if (PQntuples(res) != 1 || PQnfields(res) != 1) {
		dut_error_set(err, "%.60s: %d rows of %d columns, expected one value", sql,
			      PQntuples(res), PQnfields(res));
		ret_code = -EIO;
	} else if (!(*ret = strdup(PQgetvalue(res, 0, 0)))) {
		ret_code = -ENOMEM;
	}
	PQclear(res);
	return ret_code;
}

#define COPY_SLICE (1u << 20)

int dss_pg_copy(PGconn *c, enum dss_table t, const char *buf, size_t len,
		struct dut_error *err)
{
	char sql[96];
	PGresult *res;
	int ret = 0;

	snprintf(sql, sizeof(sql), "copy %s from stdin (format text, delimiter '|')",
		 dss_table_name(t));
	res = PQexec(c, sql);
	if (!res || PQresultStatus(res) != PGRES_COPY_IN) {
		ret = result_error(c, res, sql, err);
		PQclear(res);
		return ret;
	}
	PQclear(res);
	for (size_t off = 0; off < len; off += COPY_SLICE) {
		size_t n = len - off < COPY_SLICE ? len - off : COPY_SLICE;
		if (PQputCopyData(c, buf + off, (int)n) != 1) {
			dut_error_set(err, "COPY %s: %s", dss_table_name(t), message(c, NULL));
			ret = -EIO;
			break;
		}
	}
	if (PQputCopyEnd(c, ret ? "pgload dss: generator error" : NULL) != 1 && !ret) {
		dut_error_set(err, "COPY %s: %s", dss_table_name(t), message(c, NULL));
		ret = -EIO;
	}
	while ((res = PQgetResult(c))) {
		if (PQresultStatus(res) != PGRES_COMMAND_OK && !ret)
			ret = result_error(c, res, "COPY", err);
		PQclear(res);
	}
	return ret;
}
