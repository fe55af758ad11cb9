/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Collecting a run's server-side evidence (servstat_pg.h).
 *
 * Threads: the sampler thread alone uses c->conn and res->waits between
 * start and the join in finish; c->stop is an atomic flag.  Everything
 * else runs in the caller's thread.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pgload/pgconn.h"
#include "pgload/servstat_pg.h"
#include "pgload/psi_linux.h"
#include "pgload/servstat_sys.h"

struct pgl_servstat_collector {
	struct pgl_servstat *res;
	PGconn *conn;
	char admin_pid[16];
	struct pgl_ctr_set before;
	uint64_t before_ns, cpu_start_ns;
	int pm_pid;                      /* 0: the server's processes are not on this host */
	struct pgl_proc_snap cpu_a;
	double client_a;
	struct pgl_hostcpu host_a;
	struct pgl_psi psi_a;
	bool host_a_ok, psi_a_ok;
	uint64_t t0_ns;
	pthread_t tid;
	bool started;
	int stop;                        /* atomic */
};

/* The sampled rows: our database's client backends (not the admin connection, not the lag sampler) and the WAL and buffer writers. */
static const char activity_sql[] =
	"SELECT backend_type, wait_event_type, wait_event FROM pg_stat_activity "
	"WHERE backend_type IN ('checkpointer', 'walwriter', 'background writer') "
	"OR (backend_type = 'client backend' AND datname = $1 AND pid <> $2::int "
	"AND application_name <> 'pgload_lag')";
/*
 * Without pg_read_all_stats PostgreSQL hides the wait events of other roles'
 * processes (the auxiliary ones too: NULL, which would read as CPU): only
 * the client backends of our own role, which pgload's clients are.
 */
static const char activity_own_sql[] =
	"SELECT backend_type, wait_event_type, wait_event FROM pg_stat_activity "
	"WHERE backend_type = 'client backend' AND datname = $1 AND pid <> $2::int "
	"AND application_name <> 'pgload_lag' AND usename = current_user";

static void note(struct pgl_servstat *s, const char *what, PGconn *conn)
{
	const char *m = conn ? PQerrorMessage(conn) : "out of memory";
	size_t l = strlen(s->note);

	snprintf(s->note + l, sizeof(s->note) - l, "%s%s: %.*s", l ? "; " : "", what,
		 (int)strcspn(m, "\n"), m);
}

static int read_counters(struct pgl_servstat_collector *c, struct pgl_ctr_set *set)
{
	struct pgl_ctr_query q[PGL_CTR_MAX_QUERIES];
	size_t n = pgl_ctr_queries(c->res->version_num, q);

	memset(set, 0, sizeof(*set));
	for (size_t i = 0; i < n; i++) {
		const char *params[1] = { c->res->dbname };
		PGresult *r = PQexecParams(c->conn, q[i].sql, q[i].needs_dbname ? 1 : 0, NULL,
					   q[i].needs_dbname ? params : NULL, NULL, NULL, 0);
		const char *vals[PGL_CTR_QUERY_MAX_COLS];

		if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1 ||
		    PQnfields(r) != (int)q[i].ncols) {
			char what[96];

			snprintf(what, sizeof(what), "%s not read", q[i].view);
			note(c->res, what, c->conn);
			PQclear(r);
			return -EIO;
		}
		for (unsigned k = 0; k < q[i].ncols; k++)
			vals[k] = PQgetisnull(r, 0, (int)k) ? NULL : PQgetvalue(r, 0, (int)k);
		if (pgl_ctr_store_row(&q[i], vals, set) < 0) {
			snprintf(c->res->note, sizeof(c->res->note), "%s: a value is not a number", q[i].view);
			PQclear(r);
			return -EINVAL;
		}
		PQclear(r);
	}
	return 0;
}

static int sample(struct pgl_servstat_collector *c)
{
	const char *params[2] = { c->res->dbname, c->admin_pid };
	uint64_t sec = (pgl_now_ns() - c->t0_ns) / 1000000000ull;
	PGresult *r = PQexecPrepared(c->conn, "pgl_activity", 2, params, NULL, NULL, 0);
	struct pgl_waits *w = &c->res->waits;
	int ret = 0;

	if (PQresultStatus(r) != PGRES_TUPLES_OK) {
		note(c->res, "wait-event sampling stopped", c->conn);
		PQclear(r);
		return -EIO;
	}
	ret = pgl_waits_sample(w, sec);
	for (int i = 0; i < PQntuples(r) && ret == 0; i++)
		ret = pgl_waits_add(w, PQgetvalue(r, i, 0), PQgetisnull(r, i, 1) ? NULL : PQgetvalue(r, i, 1),
				    PQgetisnull(r, i, 2) ? NULL : PQgetvalue(r, i, 2), sec);
	PQclear(r);
	if (ret < 0)
		snprintf(c->res->note, sizeof(c->res->note), "wait-event sampling stopped: out of memory");
	return ret;
}

static void *sampler_main(void *arg)
{
	struct pgl_servstat_collector *c = arg;
	uint64_t next = c->t0_ns + PGL_WAIT_INTERVAL_NS;

	while (!__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE)) {
		struct timespec ts = { (time_t)(next / 1000000000ull), (long)(next % 1000000000ull) };

		if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			continue;
		if (__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE) || sample(c) < 0)
			break;
		/* a slow query must not make the next samples come in a burst */
		while (next <= pgl_now_ns())
			next += PGL_WAIT_INTERVAL_NS;
	}
	return NULL;
}

/* The postmaster's pid, from the admin backend's parent; 0 when the server is not on this host. */
static int find_postmaster(PGconn *admin, char *why, size_t len)
{
	struct dut_proc_stat be, pm;
	char v[32];
	int pid;

	if (pgl_pq_value(admin, "SELECT pg_backend_pid()", v, sizeof(v), NULL) < 0) {
		snprintf(why, len, "pg_backend_pid() failed");
		return 0;
	}
	pid = atoi(v);
	/* the backend's comm stays "postgres" whatever its process title says */
	if (dut_pstat_read(pid, &be) < 0 || strcmp(be.comm, "postgres") != 0 ||
	    dut_pstat_read(be.ppid, &pm) < 0 || strcmp(pm.comm, "postgres") != 0) {
		snprintf(why, len, "the server's processes are not on this host (backend %d is not a "
			 "local postgres process)", pid);
		return 0;
	}
	return be.ppid;
}

static int server_facts(PGconn *admin, struct pgl_servstat *s, char *admin_pid, size_t len)
{
	PGresult *r = PQexec(admin, "SELECT current_setting('server_version_num'), current_database(), "
			     "pg_backend_pid(), coalesce(current_setting('track_io_timing', true), ''), "
			     "coalesce(current_setting('track_wal_io_timing', true), ''), "
			     "pg_has_role('pg_read_all_stats', 'USAGE')");

	if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1) {
		note(s, "server statistics not collected", admin);
		PQclear(r);
		return -EIO;
	}
	s->version_num = atoi(PQgetvalue(r, 0, 0));
	snprintf(s->dbname, sizeof(s->dbname), "%s", PQgetvalue(r, 0, 1));
	snprintf(admin_pid, len, "%s", PQgetvalue(r, 0, 2));
	snprintf(s->track_io_timing, sizeof(s->track_io_timing), "%s", PQgetvalue(r, 0, 3));
	snprintf(s->track_wal_io_timing, sizeof(s->track_wal_io_timing), "%s", PQgetvalue(r, 0, 4));
	s->waits.own_role_only = strcmp(PQgetvalue(r, 0, 5), "t") != 0;
	PQclear(r);
	return 0;
}

/*
 * Its own connection, in another database than the target (postgres, or
 * template1 when the target is postgres), so that its queries are not
 * transactions of the measured database; else in the target's, noted.
 */
static PGconn *connect_sampler(const char *conninfo, struct pgl_servstat *s)
{
	const char *other = strcmp(s->dbname, "postgres") != 0 ? "postgres" : "template1";
	const char *keys[] = { "application_name", "dbname", "dbname", "options", "connect_timeout", NULL };
	const char *vals[] = { "pgload_servstat", conninfo, other, "-c statement_timeout=5000", "10", NULL };
	PGconn *c = PQconnectdbParams(keys, vals, 1);

	if (c && PQstatus(c) == CONNECTION_OK)
		return c;
	PQfinish(c);
	keys[2] = "options";
	vals[2] = vals[3];
	keys[3] = "connect_timeout";
	vals[3] = vals[4];
	keys[4] = NULL;
	c = PQconnectdbParams(keys, vals, 1);
	if (c && PQstatus(c) == CONNECTION_OK) {
		snprintf(s->note, sizeof(s->note), "cannot connect to database %s: the sampler's queries are "
			 "transactions of %s too (about %.0f a second)", other, s->dbname, 1e9 / PGL_WAIT_INTERVAL_NS);
		return c;
	}
	note(s, "server statistics not collected: cannot connect", c);
	PQfinish(c);
	return NULL;
}

struct pgl_servstat_collector *pgl_servstat_open(const char *conninfo, PGconn *admin,
						 struct pgl_servstat *res)
{
	struct pgl_servstat_collector *c;
	PGresult *r;

	if (!(c = calloc(1, sizeof(*c)))) {
		snprintf(res->note, sizeof(res->note), "server statistics not collected: out of memory");
		return NULL;
	}
	c->res = res;
	res->ncpus = (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
	if (server_facts(admin, res, c->admin_pid, sizeof(c->admin_pid)) < 0 ||
	    !(c->conn = connect_sampler(conninfo, res))) {
		free(c);
		return NULL;
	}
	r = PQprepare(c->conn, "pgl_activity", res->waits.own_role_only ? activity_own_sql : activity_sql,
		      2, NULL);
	if (PQresultStatus(r) != PGRES_COMMAND_OK) {
		note(res, "server statistics not collected", c->conn);
		PQclear(r);
		PQfinish(c->conn);
		free(c);
		return NULL;
	}
	PQclear(r);
	c->pm_pid = find_postmaster(admin, res->cpu_note, sizeof(res->cpu_note));
	res->collected = true;
	return c;
}

void pgl_servstat_start(struct pgl_servstat_collector *c, uint64_t t0_ns)
{
	int r;

	if (!c)
		return;
	c->before_ns = pgl_now_ns();
	c->res->have_counters = read_counters(c, &c->before) == 0;
	if (c->pm_pid && (r = pgl_proc_snap_take(c->pm_pid, &c->cpu_a)) < 0) {
		snprintf(c->res->cpu_note, sizeof(c->res->cpu_note), "cannot read /proc/%d: %s", c->pm_pid,
			 strerror(-r));
		c->pm_pid = 0;
	}
	c->client_a = pgl_self_cpu_s();
	c->host_a_ok = pgl_hostcpu_read(&c->host_a) == 0;
	c->psi_a_ok = pgl_psi_read("cpu", &c->psi_a) == 0;
	c->cpu_start_ns = pgl_now_ns();
	c->t0_ns = t0_ns;
	if ((r = pthread_create(&c->tid, NULL, sampler_main, c)) != 0)
		snprintf(c->res->note, sizeof(c->res->note), "wait events not sampled: %s", strerror(r));
	else
		c->started = true;
}

/* The machine's CPU time and CPU pressure since pgl_servstat_start. */
static void host_cpu_end(struct pgl_servstat_collector *c, struct pgl_servstat *s)
{
	struct pgl_hostcpu h;
	struct pgl_psi p;
	double tick = (double)pgl_clock_ticks();

	s->psi_cpu_some = -1;
	if (c->host_a_ok && pgl_hostcpu_read(&h) == 0 && h.busy >= c->host_a.busy) {
		s->have_host_cpu = true;
		s->host_busy_s = (double)(h.busy - c->host_a.busy) / tick;
		s->host_steal_s = h.steal >= c->host_a.steal ? (double)(h.steal - c->host_a.steal) / tick : 0;
		s->host_iowait_s = h.iowait >= c->host_a.iowait ? (double)(h.iowait - c->host_a.iowait) / tick : 0;
	}
	if (c->psi_a_ok && pgl_psi_read("cpu", &p) == 0 && p.some.known && c->psi_a.some.known &&
	    p.some.total_us >= c->psi_a.some.total_us && s->cpu_wall_s > 0)
		s->psi_cpu_some = (double)(p.some.total_us - c->psi_a.some.total_us) / 1e6 / s->cpu_wall_s;
}

void pgl_servstat_end_cpu(struct pgl_servstat_collector *c)
{
	struct pgl_servstat *s;
	struct pgl_proc_snap b = { 0 };
	int r;

	if (!c)
		return;
	s = c->res;
	s->client_cpu_s = pgl_self_cpu_s() - c->client_a;
	s->cpu_wall_s = (double)(pgl_now_ns() - c->cpu_start_ns) / 1e9;
	host_cpu_end(c, s);
	if (!c->pm_pid)
		return;
	if ((r = pgl_proc_snap_take(c->pm_pid, &b)) < 0) {
		snprintf(s->cpu_note, sizeof(s->cpu_note), "cannot read /proc/%d: %s", c->pm_pid, strerror(-r));
	} else if (pgl_cpu_account(&c->cpu_a, &b, &s->cpu) < 0) {
		snprintf(s->cpu_note, sizeof(s->cpu_note), "the postmaster restarted during the run");
	} else {
		s->have_server_cpu = true;
		s->server_cpu_s = (double)s->cpu.ticks / (double)pgl_clock_ticks();
	}
	pgl_proc_snap_free(&b);
	pgl_proc_snap_free(&c->cpu_a);
}

/*
 * A client backend flushes its statistics when it exits (before it leaves
 * pg_stat_activity): wait until the run's clients are gone, at most 3 s.
 */
static void wait_clients_gone(struct pgl_servstat_collector *c)
{
	const char *params[2] = { c->res->dbname, c->admin_pid };
	uint64_t t0 = pgl_now_ns();

	for (;;) {
		PGresult *r = PQexecParams(c->conn, "SELECT count(*) FROM pg_stat_activity WHERE backend_type = "
					   "'client backend' AND datname = $1 AND pid <> $2::int AND "
					   "application_name NOT IN ('pgload_lag', 'pgload_servstat')",
					   2, NULL, params, NULL, NULL, 0);
		bool gone = PQresultStatus(r) != PGRES_TUPLES_OK || strcmp(PQgetvalue(r, 0, 0), "0") == 0;
		struct timespec ts = { 0, 20 * 1000 * 1000 };

		PQclear(r);
		if (gone || pgl_now_ns() - t0 > 3000000000ull)
			break;
		nanosleep(&ts, NULL);
	}
	/* before 15 the statistics collector publishes every 500 ms */
	if (c->res->version_num < 150000) {
		struct timespec ts = { 0, 700 * 1000 * 1000 };

		nanosleep(&ts, NULL);
	}
}

void pgl_servstat_finish(struct pgl_servstat_collector *c)
{
	struct pgl_servstat *s;
	struct pgl_ctr_set after;

	if (!c)
		return;
	s = c->res;
	if (c->started) {
		__atomic_store_n(&c->stop, 1, __ATOMIC_RELEASE);
		pthread_join(c->tid, NULL);
	}
	pgl_waits_sort(&s->waits);
	if (s->have_counters) {
		wait_clients_gone(c);
		s->have_counters = read_counters(c, &after) == 0;
		s->interval_s = (double)(pgl_now_ns() - c->before_ns) / 1e9;
		if (s->have_counters)
			pgl_ctr_delta(&c->before, &after, &s->delta, &s->stats_reset);
	}
	pgl_servstat_finish_counters(s);
	pgl_proc_snap_free(&c->cpu_a);
	PQfinish(c->conn);
	free(c);
}
