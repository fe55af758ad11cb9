/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The keys, analyze and refresh (RF1, RF2) phases of `pgload dss`. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgload/dss/dss_priv.h"
#include "pgload/dss/schema.h"

/* Run sql as step of phase p, timed; a failure stops the phase. */
static int timed(PGconn *c, struct dss_report *r, enum dss_phase p, const char *name,
		 const char *kind, const char *sql, struct dut_error *err)
{
	struct dss_step *s = dss_report_step(r, p, name, kind);
	uint64_t t0 = dss_now_ns(), rows = 0;
	int ret = dss_pg_exec(c, sql, &rows, err);

	if (s) {
		s->ns = dss_now_ns() - t0;
		s->rows = rows;
		if (ret < 0) {
			s->status = ret == -ETIMEDOUT ? DSS_TIMEOUT : DSS_FAILED;
			snprintf(s->error, sizeof(s->error), "%s", err->msg);
		}
	}
	return ret;
}

int dss_phase_keys(const struct dss_opts *o, PGconn *c, struct dss_report *r,
		   struct dut_error *err)
{
	unsigned n;
	const struct dss_key_stmt *k = dss_schema_keys(&n);

	for (unsigned i = 0; i < n; i++) {
		int ret = timed(c, r, DSS_PH_KEYS, k[i].name, dss_key_kind_name(k[i].kind),
				k[i].sql, err);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int dss_phase_analyze(const struct dss_opts *o, PGconn *c, struct dss_report *r,
		      struct dut_error *err)
{
	char sql[96];
	int ret;

	snprintf(sql, sizeof(sql), "set default_statistics_target = %u", o->stats_target);
	ret = dss_pg_exec(c, sql, NULL, err);
	for (unsigned t = 0; ret == 0 && t < DSS_NTABLES; t++) {
		const char *name = dss_table_name((enum dss_table)t);
		snprintf(sql, sizeof(sql), "analyze %s", name);
		ret = timed(c, r, DSS_PH_ANALYZE, name, "table", sql, err);
	}
	if (dss_pg_exec(c, "reset default_statistics_target", NULL, ret ? NULL : err) < 0 && !ret)
		ret = -EIO;
	return ret;
}

/* RF1: the refresh orders and their lines, COPYed in one transaction. */
static int rf1(const struct dss_gen *g, PGconn *c, struct dss_step *s, struct dut_error *err)
{
	static const enum dss_table tables[] = { DSS_ORDERS, DSS_LINEITEM };
	struct dss_buf buf = { 0 };
	int ret = dss_pg_exec(c, "begin", NULL, err);

	for (unsigned i = 0; ret == 0 && i < 2; i++) {
		uint64_t rows;
		buf.len = 0;
		ret = dss_gen_chunk(g, tables[i], g->orders, g->orders + g->rf_orders, &buf, &rows);
		if (ret < 0) {
			dut_error_set(err, "generating the RF1 rows: %s", strerror(-ret));
			break;
		}
		ret = dss_pg_copy(c, tables[i], buf.p, buf.len, err);
		s->rows += rows;
	}
	dss_buf_free(&buf);
	if (ret == 0)
		return dss_pg_exec(c, "commit", NULL, err);
	dss_pg_exec(c, "rollback", NULL, NULL);
	return ret;
}

/* RF2: delete the refresh orders (those RF1 inserted) and their lines. */
static int rf2(const struct dss_gen *g, PGconn *c, struct dss_step *s, struct dut_error *err)
{
	static const char *const del[] = {
		"delete from lineitem where l_orderkey = any($1::bigint[])",
		"delete from orders where o_orderkey = any($1::bigint[])",
	};
	size_t cap = g->rf_orders * 21 + 3, n = 0;
	char *keys = malloc(cap);
	int ret;

	if (!keys)
		return -ENOMEM;
	keys[n++] = '{';
	for (uint64_t u = 0; u < g->rf_orders; u++)
		n += (size_t)snprintf(keys + n, cap - n, "%s%" PRIu64, u ? "," : "",
				      dss_order_key(g, g->orders + u));
	snprintf(keys + n, cap - n, "}");
	ret = dss_pg_exec(c, "begin", NULL, err);
	for (unsigned i = 0; ret == 0 && i < 2; i++) {
		const char *vals[1] = { keys };
		PGresult *res = PQexecParams(c, del[i], 1, NULL, vals, NULL, NULL, 0);
		if (PQresultStatus(res) != PGRES_COMMAND_OK) {
			dut_error_set(err, "RF2: %s", PQresultErrorMessage(res));
			ret = -EIO;
		} else {
			s->rows += strtoull(PQcmdTuples(res), NULL, 10);
		}
		PQclear(res);
	}
	free(keys);
	if (ret == 0)
		return dss_pg_exec(c, "commit", NULL, err);
	dss_pg_exec(c, "rollback", NULL, NULL);
	return ret;
}

int dss_phase_rf(const struct dss_opts *o, const struct dss_gen *g, PGconn *c,
		 struct dss_report *r, struct dut_error *err)
{
	int (*const fn[2])(const struct dss_gen *, PGconn *, struct dss_step *,
			   struct dut_error *) = { rf1, rf2 };
	static const char *const names[2] = { "RF1 (insert new orders)",
					      "RF2 (delete those orders)" };

	for (unsigned i = 0; i < 2; i++) {
		struct dss_step *s = dss_report_step(r, DSS_PH_RF, names[i], "refresh");
		uint64_t t0 = dss_now_ns();
		int ret = fn[i](g, c, s, err);
		s->ns = dss_now_ns() - t0;
		if (ret < 0) {
			s->status = DSS_FAILED;
			snprintf(s->error, sizeof(s->error), "%s", err->msg);
			return ret;
		}
	}
	return 0;
}
