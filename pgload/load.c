/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pgload init: pgbench-compatible tables, loaded by one or several
 * connections (each COPYs its own range of accounts), then VACUUM (ANALYZE)
 * and the primary keys, one statement after the other on the session's
 * connection, as pgbench does.  With one job the load is pgbench's own:
 * TRUNCATE and COPY ... FREEZE in one transaction, so the later VACUUM has
 * nothing to write.
 *
 * Keys and vacuums used to run in parallel, one new connection per table:
 * the three small tables take milliseconds, so that bought nothing, and the
 * seven extra backends cost 0.4-0.6 s of server CPU per init at scale 50
 * on the 2-CPU test machine (docs/bench-pgload.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgload/datagen.h"
#include "pgload/pgconn.h"
#include "pgload/session.h"

/*
 * One CopyData message per buffer.  The server parses a message only once
 * all of it has arrived, so a message must be well below what the socket
 * can hold: with 256 KiB messages and the default 208 KiB socket buffer the
 * backend waited, once per message, for pgload to be scheduled again and
 * send the tail, which costs little on an idle machine and a stall per
 * message on a busy one.
 */
#define COPY_BUF (64 * 1024)
/*
 * Send-buffer size asked for on a loading connection (the kernel caps it at
 * net.core.wmem_max): rows generated ahead wait in the socket, so the
 * server does not stall while the client waits for a CPU.  A client-side
 * socket option; nothing on the server changes.
 */
#define COPY_SNDBUF (4 << 20)

struct load_job {
	const char *conninfo;
	bool freeze;          /* one job: TRUNCATE + COPY FREEZE in one transaction */
	int64_t branches, tellers;   /* rows of the small tables this job loads (0 = none) */
	int64_t first_aid, last_aid; /* accounts range, 1-based inclusive (first > last: none) */
	int ret;
	uint64_t bytes;
	struct dut_error err;
};

static int copy_table(PGconn *c, enum pgl_table t, int64_t first, int64_t last, bool freeze,
		      char *buf, uint64_t *bytes, struct dut_error *err)
{
	static const char *const names[] = {
		[PGL_T_BRANCHES] = "pgbench_branches",
		[PGL_T_TELLERS] = "pgbench_tellers",
		[PGL_T_ACCOUNTS] = "pgbench_accounts",
	};
	char sql[128];
	PGresult *res;
	int64_t next = first;
	int ok = 1;

	snprintf(sql, sizeof(sql), "COPY %s FROM STDIN%s", names[t], freeze ? " WITH (FREEZE ON)" : "");
	res = PQexec(c, sql);
	if (PQresultStatus(res) != PGRES_COPY_IN) {
		dut_error_set(err, "%s: %s", sql, PQresultErrorMessage(res));
		PQclear(res);
		return -EIO;
	}
	PQclear(res);
	while (next <= last && ok == 1) {
		size_t n = pgl_gen_rows(t, &next, last, buf, COPY_BUF);

		ok = PQputCopyData(c, buf, (int)n);
		*bytes += n;
	}
	if (ok != 1 || PQputCopyEnd(c, NULL) != 1) {
		dut_error_set(err, "%s: sending rows failed: %s", sql, PQerrorMessage(c));
		return -EIO;
	}
	res = PQgetResult(c);
	if (PQresultStatus(res) != PGRES_COMMAND_OK) {
		dut_error_set(err, "%s: %s", sql, PQresultErrorMessage(res));
		PQclear(res);
		return -EIO;
	}
	PQclear(res);
	while ((res = PQgetResult(c)))
		PQclear(res);
	return 0;
}

static int load_job_copy(struct load_job *j, PGconn *c)
{
	char *buf = malloc(COPY_BUF);
	int sndbuf = COPY_SNDBUF;
	int r;

	if (!buf)
		return -ENOMEM;
	/* Best effort: without it the load is only slower on a busy machine. */
	(void)setsockopt(PQsocket(c), SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	r = pgl_pq_exec(c, "BEGIN", &j->err);
	if (r == 0 && j->freeze)
		r = pgl_pq_exec(c, "TRUNCATE pgbench_accounts, pgbench_branches, pgbench_history, "
				"pgbench_tellers", &j->err);
	if (r == 0 && j->branches)
		r = copy_table(c, PGL_T_BRANCHES, 1, j->branches, j->freeze, buf, &j->bytes, &j->err);
	if (r == 0 && j->tellers)
		r = copy_table(c, PGL_T_TELLERS, 1, j->tellers, j->freeze, buf, &j->bytes, &j->err);
	if (r == 0 && j->first_aid <= j->last_aid)
		r = copy_table(c, PGL_T_ACCOUNTS, j->first_aid, j->last_aid, j->freeze, buf,
			       &j->bytes, &j->err);
	if (r == 0)
		r = pgl_pq_exec(c, "COMMIT", &j->err);
	free(buf);
	return r;
}

static void *load_job_main(void *arg)
{
	struct load_job *j = arg;
	PGconn *c;

	j->ret = pgl_pq_connect(j->conninfo, &c, &j->err);
	if (j->ret < 0)
		return NULL;
	j->ret = load_job_copy(j, c);
	PQfinish(c);
	return NULL;
}

/* Run the jobs on their own threads and connections; the first failure wins. */
static int run_jobs(struct load_job *jobs, unsigned n, struct dut_error *err)
{
	pthread_t tids[64];
	unsigned started = 0;
	int r = 0;

	for (; started < n && started < 64; started++) {
		if (pthread_create(&tids[started], NULL, load_job_main, &jobs[started]) != 0) {
			dut_error_set(err, "cannot start a load thread");
			r = -EAGAIN;
			break;
		}
	}
	for (unsigned i = 0; i < started; i++) {
		pthread_join(tids[i], NULL);
		if (jobs[i].ret < 0 && r == 0) {
			*err = jobs[i].err;
			r = jobs[i].ret;
		}
	}
	return r;
}

/*
 * --ack-log: "WHAT TABLE" once the server acknowledged the statement, made
 * durable before the next statement is sent, so a crash harness knows which
 * statements a crash of the device must not undo (docs/crash.md).
 */
static int ack(const struct pgl_init_opts *o, const char *what, const char *table, struct dut_error *err)
{
	char line[128];
	struct stat st;
	int fd, n, r = 0;

	if (!o->ack_log)
		return 0;
	n = snprintf(line, sizeof(line), "%s%s%s\n", what, table ? " " : "", table ? table : "");
	errno = EIO;   /* a short write sets none */
	/* appended to as root in a directory others may write: no link, a regular file only */
	fd = open(o->ack_log, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
	if (fd < 0 || fstat(fd, &st) < 0)
		r = -errno;
	else if (!S_ISREG(st.st_mode))
		r = -EINVAL;
	else if (write(fd, line, (size_t)n) != n || fdatasync(fd) < 0)
		r = -errno;
	if (fd >= 0)
		close(fd);
	if (r < 0)
		dut_error_set(err, "--ack-log %s: %s", o->ack_log,
			      r == -ELOOP ? "a symbolic link (refused)" : r == -EINVAL ? "not a regular file" : strerror(-r));
	return r;
}

static int create_tables(struct pgl_session *s, const struct pgl_init_opts *o,
			 struct dut_error *err)
{
	/* pgbench's DDL; aid is bigint from scale 20000 (2^31 accounts) on. */
	const char *aid = o->scale >= 20000 ? "bigint" : "int";
	char hist_cols[128], acct_cols[128];
	const struct { const char *name, *cols; bool ff; } tables[] = {
		{ "pgbench_history", hist_cols, false },
		{ "pgbench_tellers", "tid int not null, bid int, tbalance int, filler char(84)", true },
		{ "pgbench_accounts", acct_cols, true },
		{ "pgbench_branches", "bid int not null, bbalance int, filler char(88)", true },
	};
	int r;

	snprintf(hist_cols, sizeof(hist_cols),
		 "tid int, bid int, aid %s, delta int, mtime timestamp, filler char(22)", aid);
	snprintf(acct_cols, sizeof(acct_cols),
		 "aid %s not null, bid int, abalance int, filler char(84)", aid);
	r = pgl_pq_exec(s->admin, "DROP TABLE IF EXISTS pgbench_accounts, pgbench_branches, "
			    "pgbench_history, pgbench_tellers", err);
	if (r == 0)
		r = ack(o, "drop", NULL, err);
	for (size_t i = 0; r == 0 && i < sizeof(tables) / sizeof(tables[0]); i++) {
		char sql[512], ff[32] = "", ts[96] = "";

		if (tables[i].ff)
			snprintf(ff, sizeof(ff), " WITH (fillfactor=%u)", o->fillfactor);
		if (o->tables_on)
			snprintf(ts, sizeof(ts), " TABLESPACE %s", o->tables_on);
		snprintf(sql, sizeof(sql), "CREATE TABLE %s (%s)%s%s", tables[i].name, tables[i].cols, ff, ts);
		r = pgl_pq_exec(s->admin, sql, err);
		if (r == 0)
			r = ack(o, "create", tables[i].name, err);
	}
	return r;
}

/* Check the named tablespaces before anything is dropped. */
static int check_tablespace(struct pgl_session *s, const char *name, struct dut_error *err)
{
	const char *vals[1] = { name };
	PGresult *res;
	int found;

	if (!name)
		return 0;
	res = PQexecParams(s->admin, "SELECT 1 FROM pg_tablespace WHERE spcname = $1", 1, NULL,
			   vals, NULL, NULL, 0);
	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		dut_error_set(err, "looking up tablespace %s: %s", name, PQresultErrorMessage(res));
		PQclear(res);
		return -EIO;
	}
	found = PQntuples(res);
	PQclear(res);
	if (!found) {
		dut_error_set(err, "tablespace \"%s\" does not exist (create it, e.g. pgload cluster "
			      "init --tablespace %s=DIR)", name, name);
		return -ENOENT;
	}
	return 0;
}

static void phase_done(struct pgl_init_result *res, const char *name, uint64_t t0)
{
	if (res->nphases >= PGL_INIT_MAX_PHASES)
		return;
	snprintf(res->phases[res->nphases].name, sizeof(res->phases[0].name), "%s", name);
	res->phases[res->nphases].duration_ns = pgl_now_ns() - t0;
	res->nphases++;
}

static int load_data(struct pgl_session *s, const struct pgl_init_opts *o,
		     struct pgl_init_result *res, struct dut_error *err)
{
	int64_t naccounts = o->scale * PGL_ACCOUNTS_PER_SCALE;
	unsigned n = o->jobs;
	struct load_job *jobs;
	int r;

	if ((int64_t)n > o->scale)
		n = (unsigned)o->scale; /* at least a branch's worth of accounts per job */
	jobs = calloc(n, sizeof(*jobs));
	if (!jobs)
		return -ENOMEM;
	if (n > 1) {
		r = pgl_pq_exec(s->admin, "TRUNCATE pgbench_accounts, pgbench_branches, "
				"pgbench_history, pgbench_tellers", err);
		if (r < 0)
			goto out;
	}
	for (unsigned i = 0; i < n; i++) {
		jobs[i].conninfo = s->conninfo;
		jobs[i].freeze = n == 1;
		jobs[i].first_aid = naccounts * i / n + 1;
		jobs[i].last_aid = naccounts * (i + 1) / n;
	}
	jobs[0].branches = o->scale * PGL_BRANCHES_PER_SCALE;
	jobs[0].tellers = o->scale * PGL_TELLERS_PER_SCALE;
	res->freeze = n == 1;
	res->jobs = n;
	r = run_jobs(jobs, n, err);
	/* one job: one transaction; several: each job's own, acknowledged together here */
	if (r == 0)
		r = ack(o, n == 1 ? "load" : "load-parallel", NULL, err);
	for (unsigned i = 0; i < n; i++)
		res->bytes_sent += jobs[i].bytes;
	res->rows = (uint64_t)(naccounts + jobs[0].branches + jobs[0].tellers);
out:
	free(jobs);
	return r;
}

static int build_keys(struct pgl_session *s, const struct pgl_init_opts *o, struct dut_error *err)
{
	static const char *const keys[][2] = {
		{ "pgbench_branches", "bid" }, { "pgbench_tellers", "tid" }, { "pgbench_accounts", "aid" },
	};
	char ts[96] = "";
	int r = 0;

	if (o->indexes_on)
		snprintf(ts, sizeof(ts), " USING INDEX TABLESPACE %s", o->indexes_on);
	for (unsigned i = 0; r == 0 && i < 3; i++) {
		char sql[256];

		snprintf(sql, sizeof(sql), "ALTER TABLE %s ADD PRIMARY KEY (%s)%s", keys[i][0],
			 keys[i][1], ts);
		r = pgl_pq_exec(s->admin, sql, err);
		if (r == 0)
			r = ack(o, "key", keys[i][0], err);
	}
	return r;
}

static int vacuum_tables(struct pgl_session *s, const struct pgl_init_opts *o, struct dut_error *err)
{
	static const char *const sql[] = {
		"VACUUM (ANALYZE) pgbench_branches", "VACUUM (ANALYZE) pgbench_tellers",
		"VACUUM (ANALYZE) pgbench_accounts", "VACUUM (ANALYZE) pgbench_history",
	};
	int r = 0;

	for (unsigned i = 0; r == 0 && i < 4; i++) {
		r = pgl_pq_exec(s->admin, sql[i], err);
		if (r == 0)
			r = ack(o, "vacuum", sql[i] + strlen("VACUUM (ANALYZE) "), err);
	}
	return r;
}

static int oltp_init(struct pgl_session *s, const struct pgl_init_opts *o,
		     struct pgl_init_result *res, struct dut_error *err)
{
	uint64_t start = pgl_now_ns(), t0;
	int r;

	res->scale = o->scale;
	res->jobs = o->jobs;
	res->fillfactor = o->fillfactor;
	snprintf(res->target, sizeof(res->target), "%s", s->target);
	snprintf(res->tables_on, sizeof(res->tables_on), "%s", o->tables_on ? o->tables_on : "");
	snprintf(res->indexes_on, sizeof(res->indexes_on), "%s", o->indexes_on ? o->indexes_on : "");
	res->settings = s->settings;
	if ((r = check_tablespace(s, o->tables_on, err)) < 0 ||
	    (r = check_tablespace(s, o->indexes_on, err)) < 0)
		return r;

	/*
	 * pgbench's order: VACUUM (ANALYZE) before the keys.  With the keys
	 * first, the vacuum phase took 1.3-1.4x pgbench's in three of three
	 * pairs; in pgbench's order it was 10-25 % shorter than with keys first
	 * (docs/bench-pgload.md).
	 */
	static const struct {
		const char *name;
		enum { PH_CREATE, PH_LOAD, PH_VACUUM, PH_KEYS } what;
	} phases[] = {
		{ "init/create", PH_CREATE }, { "init/load", PH_LOAD },
		{ "init/vacuum", PH_VACUUM }, { "init/keys", PH_KEYS },
	};
	for (unsigned p = 0; p < sizeof(phases) / sizeof(phases[0]); p++) {
		t0 = pgl_now_ns();
		pgl_phase_begin(s, phases[p].name);
		switch (phases[p].what) {
		case PH_CREATE: r = create_tables(s, o, err); break;
		case PH_LOAD: r = load_data(s, o, res, err); break;
		case PH_VACUUM: r = vacuum_tables(s, o, err); break;
		case PH_KEYS: r = build_keys(s, o, err); break;
		}
		pgl_phase_end(s, phases[p].name);
		if (r < 0)
			return r;
		phase_done(res, phases[p].name, t0);
	}
	res->total_ns = pgl_now_ns() - start;
	return 0;
}

const struct pgl_workload_ops pgl_oltp_workload = {
	.name = "oltp",
	.description = "pgbench-compatible TPC-B-like tables and scripts",
	.init = oltp_init,
	.run = pgl_oltp_run,
};
