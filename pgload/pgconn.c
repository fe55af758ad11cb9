/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/log.h"
#include "pgload/pgconn.h"

uint64_t pgl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void strip_newline(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
}

/* Server NOTICEs ("table does not exist, skipping") are debug output. */
static void notice_to_debug(void *arg, const char *msg)
{
	(void)arg;
	dut_dbg("server: %.*s", (int)strcspn(msg, "\n"), msg);
}

static int finish_connect(PGconn *conn, PGconn **ret, struct dut_error *err)
{
	if (!conn) {
		dut_error_set(err, "out of memory for a connection");
		return -ENOMEM;
	}
	if (PQstatus(conn) != CONNECTION_OK) {
		char msg[400];

		snprintf(msg, sizeof(msg), "%s", PQerrorMessage(conn));
		strip_newline(msg);
		dut_error_set(err, "cannot connect to the server: %s", msg);
		PQfinish(conn);
		return -ECONNREFUSED;
	}
	PQsetNoticeProcessor(conn, notice_to_debug, NULL);
	*ret = conn;
	return 0;
}

int pgl_pq_connect(const char *conninfo, PGconn **ret, struct dut_error *err)
{
	/* application_name comes first so that a conninfo that sets one wins. */
	const char *const keys[] = { "application_name", "dbname", NULL };
	const char *const vals[] = { "pgload", conninfo, NULL };

	return finish_connect(PQconnectdbParams(keys, vals, 1), ret, err);
}

int pgl_pq_connect_db(const char *conninfo, const char *dbname, PGconn **ret,
		      struct dut_error *err)
{
	const char *const keys[] = { "application_name", "dbname", "dbname", NULL };
	const char *const vals[] = { "pgload", conninfo, dbname, NULL };

	return finish_connect(PQconnectdbParams(keys, vals, 1), ret, err);
}

static int result_error(PGresult *res, const char *sql, struct dut_error *err)
{
	char msg[400];

	snprintf(msg, sizeof(msg), "%s", PQresultErrorMessage(res));
	strip_newline(msg);
	dut_error_set(err, "%.120s: %s", sql, msg);
	PQclear(res);
	return -EIO;
}

int pgl_pq_exec(PGconn *c, const char *sql, struct dut_error *err)
{
	PGresult *res = PQexec(c, sql);
	ExecStatusType st = PQresultStatus(res);

	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
		return result_error(res, sql, err);
	PQclear(res);
	return 0;
}

int pgl_pq_value(PGconn *c, const char *sql, char *buf, size_t len, struct dut_error *err)
{
	PGresult *res = PQexec(c, sql);

	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		return result_error(res, sql, err);
	if (PQntuples(res) < 1 || PQnfields(res) < 1) {
		dut_error_set(err, "%.120s: no rows", sql);
		PQclear(res);
		return -ENOENT;
	}
	snprintf(buf, len, "%s", PQgetvalue(res, 0, 0));
	PQclear(res);
	return 0;
}

int pgl_pq_settings(PGconn *c, struct pgl_settings *st, struct dut_error *err)
{
	const char *sql = "SELECT name, setting, unit FROM pg_settings";
	PGresult *res = PQexec(c, sql);

	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		return result_error(res, sql, err);
	pgl_settings_init(st);
	for (int i = 0; i < PQntuples(res); i++)
		pgl_settings_set(st, PQgetvalue(res, i, 0), PQgetvalue(res, i, 1),
				 PQgetisnull(res, i, 2) ? NULL : PQgetvalue(res, i, 2));
	PQclear(res);
	return 0;
}

int pgl_pq_scale(PGconn *c, int64_t *ret, struct dut_error *err)
{
	char buf[32];
	int r = pgl_pq_value(c, "SELECT count(*) FROM pgbench_branches", buf, sizeof(buf), err);

	if (r < 0) {
		dut_error_set(err, "cannot read the scale from pgbench_branches (run pgload init first)");
		return r;
	}
	*ret = strtoll(buf, NULL, 10);
	if (*ret <= 0) {
		dut_error_set(err, "pgbench_branches is empty (run pgload init first)");
		return -ENOENT;
	}
	return 0;
}

/*
 * One row per relation with storage.  Shared catalogs (relisshared) are
 * reported with db_oid 0 and tablespace pg_global; the parent of an index is
 * its table, of a toast table (and of its index) the table that owns it.
 */
static const char relmap_sql[] =
	"SELECT CASE WHEN c.relisshared THEN 0 ELSE d.oid END, "
	"       CASE WHEN c.relisshared THEN '' ELSE d.datname END, "
	"       COALESCE(NULLIF(c.reltablespace, 0), "
	"                CASE WHEN c.relisshared THEN 1664 ELSE d.dattablespace END), "
	"       t.spcname, pg_relation_filenode(c.oid), c.oid, n.nspname, c.relname, c.relkind, "
	"       COALESCE(pn.nspname || '.' || p.relname, '') "
	"FROM pg_class c "
	"JOIN pg_namespace n ON n.oid = c.relnamespace "
	"JOIN pg_database d ON d.datname = current_database() "
	"JOIN pg_tablespace t ON t.oid = COALESCE(NULLIF(c.reltablespace, 0), "
	"     CASE WHEN c.relisshared THEN 1664 ELSE d.dattablespace END) "
	"LEFT JOIN pg_index i ON i.indexrelid = c.oid "
	"LEFT JOIN pg_class ic ON ic.oid = i.indrelid "
	"LEFT JOIN pg_class p ON p.oid = CASE "
	"     WHEN c.relkind = 't' THEN (SELECT o.oid FROM pg_class o WHERE o.reltoastrelid = c.oid LIMIT 1) "
	"     WHEN c.relkind = 'i' AND ic.relkind = 't' THEN "
	"          (SELECT o.oid FROM pg_class o WHERE o.reltoastrelid = ic.oid LIMIT 1) "
	"     ELSE i.indrelid END "
	"LEFT JOIN pg_namespace pn ON pn.oid = p.relnamespace "
	"WHERE pg_relation_filenode(c.oid) IS NOT NULL";

static void copy_name(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src);
}

static int snapshot_db(PGconn *c, struct pgl_relmap *m, uint64_t now_ns, struct dut_error *err)
{
	PGresult *res = PQexec(c, relmap_sql);
	struct pgl_relrow *rows;
	int n, r;

	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		return result_error(res, "relation snapshot", err);
	n = PQntuples(res);
	rows = calloc((size_t)(n ? n : 1), sizeof(*rows));
	if (!rows) {
		PQclear(res);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		struct pgl_relrow *w = &rows[i];

		w->db_oid = (uint32_t)strtoul(PQgetvalue(res, i, 0), NULL, 10);
		copy_name(w->database, sizeof(w->database), PQgetvalue(res, i, 1));
		w->tablespace_oid = (uint32_t)strtoul(PQgetvalue(res, i, 2), NULL, 10);
		copy_name(w->tablespace, sizeof(w->tablespace), PQgetvalue(res, i, 3));
		w->relfilenode = (uint32_t)strtoul(PQgetvalue(res, i, 4), NULL, 10);
		w->oid = (uint32_t)strtoul(PQgetvalue(res, i, 5), NULL, 10);
		copy_name(w->schema, sizeof(w->schema), PQgetvalue(res, i, 6));
		copy_name(w->name, sizeof(w->name), PQgetvalue(res, i, 7));
		w->relkind = PQgetvalue(res, i, 8)[0];
		copy_name(w->parent, sizeof(w->parent), PQgetvalue(res, i, 9));
	}
	PQclear(res);
	r = pgl_relmap_observe(m, rows, (size_t)n, now_ns);
	free(rows);
	return r;
}

int pgl_pq_relmap_procs(PGconn *c, struct pgl_relmap *m, struct dut_error *err)
{
	const char *sql = "SELECT pid, backend_type FROM pg_stat_activity";
	PGresult *res = PQexec(c, sql);
	int r = 0;

	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		return result_error(res, sql, err);
	for (int i = 0; i < PQntuples(res) && r == 0; i++)
		r = pgl_relmap_add_proc(m, atoi(PQgetvalue(res, i, 0)), PQgetvalue(res, i, 1));
	PQclear(res);
	return r;
}

int pgl_pq_relmap_snapshot(const char *conninfo, PGconn *c, struct pgl_relmap *m,
			   struct dut_error *err)
{
	const char *dbs_sql = "SELECT datname FROM pg_database WHERE datallowconn ORDER BY oid";
	uint64_t now = pgl_now_ns();
	PGresult *res;
	char bs[32];
	int r = 0;

	if (pgl_pq_value(c, "SHOW block_size", bs, sizeof(bs), err) == 0)
		m->block_size = (uint32_t)strtoul(bs, NULL, 10);
	if ((r = pgl_pq_relmap_procs(c, m, err)) < 0)
		return r;
	res = PQexec(c, dbs_sql);
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		return result_error(res, dbs_sql, err);
	for (int i = 0; i < PQntuples(res) && r == 0; i++) {
		const char *db = PQgetvalue(res, i, 0);
		PGconn *dc;

		if (strcmp(db, PQdb(c)) == 0) {
			r = snapshot_db(c, m, now, err);
			continue;
		}
		if ((r = pgl_pq_connect_db(conninfo, db, &dc, err)) < 0)
			break;
		r = snapshot_db(dc, m, now, err);
		PQfinish(dc);
	}
	PQclear(res);
	return r;
}
