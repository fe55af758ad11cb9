/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `pgload restore`: children, /proc, conninfo and catalogs (see restore_sys.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/spawn.h"
#include "pgload/pgconn.h"
#include "pgload/psi_linux.h"
#include "pgload/restore_sys.h"
#include "pgload/servstat_sys.h"

/* --- children ----------------------------------------------------------- */

int pgl_child_run(char *const argv[], const char *out_path, const char *password,
		  struct pgl_child *ret, struct dut_error *err)
{
	struct pgl_child c = { 0 };
	_cleanup_free_ char *pw_env = NULL;
	const char *env_add[] = { NULL, NULL };
	struct dut_capture cap = { .buf = c.err_tail, .cap = sizeof(c.err_tail), .keep_tail = true };
	struct dut_spawn_opts o = {
		.env_add = password ? env_add : NULL,
		.stdin_inherit = true,
		.out = out_path ? (struct dut_spawn_out){ .how = DUT_SPAWN_PATH, .path = out_path,
							  .flags = O_CREAT | O_TRUNC, .mode = 0644 }
				: (struct dut_spawn_out){ .how = DUT_SPAWN_NULL },
		.err = { .how = DUT_SPAWN_CAPTURE },
		.capture = &cap,
		.signals = DUT_SPAWN_SIG_PIPE,
	};
	struct dut_child child;
	uint64_t t0 = pgl_now_ns();
	int r;

	/* PGPASSWORD in the child's environment only: it never shows in the process list */
	if (password && asprintf(&pw_env, "PGPASSWORD=%s", password) < 0) {
		pw_env = NULL;
		dut_error_set(err, "cannot start %s: %s", argv[0], strerror(ENOMEM));
		return -ENOMEM;
	}
	env_add[0] = pw_env;
	if ((r = dut_spawn(argv, &o, &child)) < 0) {
		dut_error_set(err, "cannot start %s: %s", argv[0], strerror(-r));
		return r;
	}
	if ((r = dut_child_wait(&child, 0, 0)) < 0) {
		dut_error_set(err, "waiting for %s: %s", argv[0], strerror(-r));
		return r;
	}
	/* what the child used to say on its stderr before exiting 127 */
	if (child.fail == DUT_SPAWN_FAIL_REDIRECT)
		snprintf(c.err_tail, sizeof(c.err_tail), "cannot redirect the output to %s: %s\n",
			 out_path ? out_path : "/dev/null", strerror(child.fail_errno));
	else if (child.fail != DUT_SPAWN_OK)
		snprintf(c.err_tail, sizeof(c.err_tail), "cannot run %s: %s\n", argv[0],
			 strerror(child.fail_errno));
	c.wall_ns = pgl_now_ns() - t0;
	c.status = dut_wait_code(child.status);
	c.cpu_ns = child.cpu_ns;
	*ret = c;
	return 0;
}

/* --- conninfo ----------------------------------------------------------- */

static int append_kv(char *buf, size_t len, size_t *used, const char *key, const char *val)
{
	int n = snprintf(buf + *used, len - *used, "%s%s='", *used ? " " : "", key);

	if (n < 0 || (size_t)n >= len - *used)
		return -ENAMETOOLONG;
	*used += (size_t)n;
	for (const char *p = val; *p; p++) {
		if (*used + 3 >= len)
			return -ENAMETOOLONG;
		if (*p == '\'' || *p == '\\')
			buf[(*used)++] = '\\';
		buf[(*used)++] = *p;
	}
	if (*used + 2 >= len)
		return -ENAMETOOLONG;
	buf[(*used)++] = '\'';
	buf[*used] = '\0';
	return 0;
}

/* A setting libpq would use anyway (sslmode=prefer...): left out to keep conninfos short. */
static bool is_default(const PQconninfoOption *defaults, const PQconninfoOption *o)
{
	for (const PQconninfoOption *d = defaults; d->keyword; d++)
		if (strcmp(d->keyword, o->keyword) == 0)
			return d->val && strcmp(d->val, o->val) == 0 && strcmp(o->keyword, "dbname") != 0 &&
			       strcmp(o->keyword, "user") != 0;
	return false;
}

int pgl_conninfo_for_db(PGconn *c, const char *dbname, char *buf, size_t len,
			char **ret_password)
{
	PQconninfoOption *opts = PQconninfo(c), *defaults = PQconndefaults();
	char *password = NULL;
	size_t used = 0;
	int r = 0;

	if (!opts || !defaults) {
		PQconninfoFree(opts);
		PQconninfoFree(defaults);
		return -ENOMEM;
	}
	buf[0] = '\0';
	for (PQconninfoOption *o = opts; o->keyword && r == 0; o++) {
		if (!o->val || !o->val[0] || o->dispchar[0] == 'D' || is_default(defaults, o))
			continue;
		/* libpq names ~/.pgpass even when there is none */
		if (strcmp(o->keyword, "passfile") == 0 && access(o->val, R_OK) < 0)
			continue;
		if (strcmp(o->keyword, "password") == 0) {
			if (!(password = strdup(o->val)))
				r = -ENOMEM;
			continue;
		}
		if (strcmp(o->keyword, "dbname") == 0 && dbname)
			continue;
		r = append_kv(buf, len, &used, o->keyword, o->val);
	}
	if (r == 0 && dbname)
		r = append_kv(buf, len, &used, "dbname", dbname);
	PQconninfoFree(opts);
	PQconninfoFree(defaults);
	if (r < 0) {
		free(password);
		return r;
	}
	if (ret_password)
		*ret_password = password;
	else
		free(password);
	return 0;
}

/* --- server CPU --------------------------------------------------------- */

void pgl_server_cpu_open(struct pgl_server_cpu *s, PGconn *c, const char *data_directory)
{
	struct dut_proc_stat backend;
	char link[64], cwd[4096], real_dd[4096];
	ssize_t n;
	long pid = PQbackendPID(c);

	s->postmaster_pid = 0;
	if (!data_directory || !data_directory[0]) {
		snprintf(s->note, sizeof(s->note), "SHOW data_directory failed (not a superuser?)");
		return;
	}
	if (dut_pstat_read((int)pid, &backend) < 0) {
		snprintf(s->note, sizeof(s->note), "backend pid %ld is not on this host", pid);
		return;
	}
	snprintf(link, sizeof(link), "/proc/%d/cwd", backend.ppid);
	n = readlink(link, cwd, sizeof(cwd) - 1);
	if (n < 0 || !realpath(data_directory, real_dd)) {
		snprintf(s->note, sizeof(s->note), "cannot read %s or %s: %s", link, data_directory,
			 strerror(errno));
		return;
	}
	cwd[n] = '\0';
	if (strcmp(cwd, real_dd) != 0) {
		snprintf(s->note, sizeof(s->note),
			 "pid %d (parent of backend %ld) is not the postmaster of %s: server on another host?",
			 backend.ppid, pid, data_directory);
		return;
	}
	s->postmaster_pid = backend.ppid;
	s->note[0] = '\0';
}

/*
 * CPU: see restore.h.  I/O: like cutime, the postmaster's /proc/PID/io
 * holds the I/O of the children it reaped, so the postmaster's plus that
 * of its live children only grows while the server runs.
 */
int pgl_server_sample_now(const struct pgl_server_cpu *s, struct pgl_server_sample *ret)
{
	_cleanup_closedir_ DIR *d = NULL;
	struct pgl_server_sample out = { 0 };
	struct dut_proc_stat pm, p;
	struct pgl_proc_io io;
	struct dirent *e;
	uint64_t ticks;
	int r;

	if (!s->postmaster_pid)
		return -ENOENT;
	if ((r = dut_pstat_read((int)s->postmaster_pid, &pm)) < 0)
		return r;
	ticks = pm.utime + pm.stime + pm.cutime + pm.cstime;
	out.io_r = pgl_proc_io_read(s->postmaster_pid, &out.io);
	if (!(d = opendir("/proc")))
		return -errno;
	while ((e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);

		/* a process may exit between readdir and open: then cutime has it */
		if (*end || pid <= 0 || dut_pstat_read((int)pid, &p) < 0 || p.ppid != s->postmaster_pid)
			continue;
		ticks += p.utime + p.stime;
		if (out.io_r == 0 && (r = pgl_proc_io_read(pid, &io)) == 0)
			pgl_proc_io_add(&out.io, &io);
		else if (out.io_r == 0 && r != -ENOENT && r != -ESRCH)
			out.io_r = r;      /* gone meanwhile is fine (reaped: the postmaster has it) */
	}
	out.cpu_ns = ticks * (1000000000u / (uint64_t)pgl_clock_ticks());
	*ret = out;
	return 0;
}

/* --- catalogs ----------------------------------------------------------- */

static PGresult *query(PGconn *c, const char *sql, struct dut_error *err)
{
	PGresult *res = PQexec(c, sql);

	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		dut_error_set(err, "%.80s...: %s", sql, PQresultErrorMessage(res));
		PQclear(res);
		return NULL;
	}
	return res;
}

#define USER_NS(col) col " NOT IN ('pg_catalog', 'information_schema') AND " col " NOT LIKE 'pg_toast%'"

static int read_tables(PGconn *c, struct pgl_restore_catalog *cat, struct dut_error *err)
{
	PGresult *res = query(c,
		"SELECT format('%I.%I', n.nspname, c.relname) FROM pg_class c "
		"JOIN pg_namespace n ON n.oid = c.relnamespace "
		"WHERE c.relkind IN ('r', 'p', 'm') AND " USER_NS("n.nspname") " ORDER BY 1", err);
	int r = 0;

	if (!res)
		return -EIO;
	for (int i = 0; i < PQntuples(res) && r == 0; i++) {
		char sql[600], count[32];
		const char *name = PQgetvalue(res, i, 0);

		snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s", name);
		r = pgl_pq_value(c, sql, count, sizeof(count), err);
		if (r == 0)
			r = pgl_restore_catalog_add_table(cat, name, strtoll(count, NULL, 10));
	}
	PQclear(res);
	return r;
}

int pgl_restore_catalog_read(PGconn *c, struct pgl_restore_catalog *ret, struct dut_error *err)
{
	struct pgl_restore_catalog cat = { 0 };
	PGresult *cons = NULL, *idx = NULL;
	int r = read_tables(c, &cat, err);

	if (r == 0 && !(cons = query(c,
		"SELECT format('%I.%I', n.nspname, t.relname), c.conname, c.contype::text, "
		"pg_get_constraintdef(c.oid) FROM pg_constraint c "
		"JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace "
		"WHERE " USER_NS("n.nspname"), err)))
		r = -EIO;
	for (int i = 0; cons && i < PQntuples(cons) && r == 0; i++)
		r = pgl_restore_catalog_add_con(&cat, PQgetvalue(cons, i, 0), PQgetvalue(cons, i, 1),
						PQgetvalue(cons, i, 2), PQgetvalue(cons, i, 3));
	if (r == 0 && !(idx = query(c,
		"SELECT format('%I.%I', schemaname, tablename), indexname, indexdef FROM pg_indexes "
		"WHERE " USER_NS("schemaname"), err)))
		r = -EIO;
	for (int i = 0; idx && i < PQntuples(idx) && r == 0; i++)
		r = pgl_restore_catalog_add_index(&cat, PQgetvalue(idx, i, 0), PQgetvalue(idx, i, 1),
						  PQgetvalue(idx, i, 2));
	PQclear(cons);
	PQclear(idx);
	if (r < 0) {
		pgl_restore_catalog_free(&cat);
		return r;
	}
	pgl_restore_catalog_sort(&cat);
	*ret = cat;
	return 0;
}

int pgl_database_exists(PGconn *c, const char *name, struct dut_error *err)
{
	const char *params[1] = { name };
	PGresult *res = PQexecParams(c, "SELECT 1 FROM pg_database WHERE datname = $1", 1, NULL,
				     params, NULL, NULL, 0);
	int r;

	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		dut_error_set(err, "looking up database %s: %s", name, PQresultErrorMessage(res));
		r = -EIO;
	} else {
		r = PQntuples(res) > 0;
	}
	PQclear(res);
	return r;
}

int pgl_database_create(PGconn *c, const char *name, bool drop_first, struct dut_error *err)
{
	char *id = PQescapeIdentifier(c, name, strlen(name));
	char sql[512];
	int r = 0;

	if (!id) {
		dut_error_set(err, "bad database name %s", name);
		return -EINVAL;
	}
	if (drop_first) {
		snprintf(sql, sizeof(sql), "DROP DATABASE IF EXISTS %s WITH (FORCE)", id);
		r = pgl_pq_exec(c, sql, err);
	}
	if (r == 0) {
		snprintf(sql, sizeof(sql), "CREATE DATABASE %s TEMPLATE template0", id);
		r = pgl_pq_exec(c, sql, err);
	}
	PQfreemem(id);
	return r;
}
