/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Replay lag sampler: one thread, one connection.  It never slows the
 * clients down beyond one small catalog query a second on the primary, and
 * a failed query ends the sampling (noted in the result), not the run.
 *
 * Locking: s->lock protects s->stop; rl is written only by the sampler
 * thread between start and stop, and read by the caller after the join.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libpq-fe.h>

#include "pgload/lag_sampler.h"
#include "pgload/pgconn.h"

struct pgl_lag_sampler {
	PGconn *conn;
	struct pgl_replica_lag *rl;
	uint64_t t0_ns, last_ns;
	pthread_t tid;
	bool started, failed;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop;                      /* protected by lock */
};

/*
 * Lags in ms as float8 (NULL stays NULL: idle); bytes between the primary's
 * current WAL position and the standby's replay position.  WAL senders of
 * base backups (state "backup") are not standbys.
 */
static const char sample_sql[] =
	"SELECT application_name, state, sync_state, "
	"(EXTRACT(epoch FROM write_lag) * 1000)::float8, "
	"(EXTRACT(epoch FROM flush_lag) * 1000)::float8, "
	"(EXTRACT(epoch FROM replay_lag) * 1000)::float8, "
	"pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn)::float8 "
	"FROM pg_stat_replication WHERE state IN ('streaming', 'catchup') "
	"ORDER BY application_name";

static void note(struct pgl_lag_sampler *s, const char *what, const char *msg)
{
	snprintf(s->rl->note, sizeof(s->rl->note), "%s: %.*s", what, (int)strcspn(msg, "\n"), msg);
}

static int sample(struct pgl_lag_sampler *s)
{
	uint64_t now = pgl_now_ns();
	PGresult *res = PQexec(s->conn, sample_sql);
	int r = 0;

	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		note(s, "replay lag sampling stopped", PQerrorMessage(s->conn));
		PQclear(res);
		return -EIO;
	}
	s->rl->samples++;
	for (int i = 0; i < PQntuples(res) && r == 0; i++) {
		struct pgl_lag_sample x = { .t_s = (double)(now - s->t0_ns) / 1e9 };

		x.has_times = !PQgetisnull(res, i, 3) && !PQgetisnull(res, i, 4) &&
			      !PQgetisnull(res, i, 5);
		if (x.has_times) {
			x.write_ms = strtod(PQgetvalue(res, i, 3), NULL);
			x.flush_ms = strtod(PQgetvalue(res, i, 4), NULL);
			x.replay_ms = strtod(PQgetvalue(res, i, 5), NULL);
		}
		x.has_bytes = !PQgetisnull(res, i, 6);
		if (x.has_bytes)
			x.replay_bytes = strtod(PQgetvalue(res, i, 6), NULL);
		r = pgl_replica_lag_add(s->rl, PQgetvalue(res, i, 0), PQgetvalue(res, i, 1),
					PQgetvalue(res, i, 2), &x);
	}
	PQclear(res);
	if (r < 0)
		note(s, "replay lag sampling stopped", "out of memory");
	s->last_ns = now;
	return r;
}

static void *sampler_main(void *arg)
{
	struct pgl_lag_sampler *s = arg;
	uint64_t next = s->t0_ns + PGL_LAG_INTERVAL_NS;

	pthread_mutex_lock(&s->lock);
	while (!s->stop) {
		struct timespec ts = { (time_t)(next / 1000000000ull), (long)(next % 1000000000ull) };

		if (pthread_cond_timedwait(&s->wake, &s->lock, &ts) != ETIMEDOUT || s->stop)
			continue;
		pthread_mutex_unlock(&s->lock);
		if (sample(s) < 0)
			s->failed = true;
		pthread_mutex_lock(&s->lock);
		if (s->failed)
			break;
		/* A slow query must not make the next samples come in a burst. */
		while (next <= pgl_now_ns())
			next += PGL_LAG_INTERVAL_NS;
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* 1: sample, 0: nothing to sample (rl->note says why when forced). */
static int worth_sampling(PGconn *admin, bool force, struct pgl_replica_lag *rl,
			  struct dut_error *err)
{
	char v[32];
	int r;

	if ((r = pgl_pq_value(admin, "SELECT pg_is_in_recovery()", v, sizeof(v), err)) < 0)
		return r;
	if (strcmp(v, "t") == 0) {
		if (force)
			snprintf(rl->note, sizeof(rl->note), "the target is a standby: replay lag "
				 "is measured with the primary as the target");
		return 0;
	}
	if ((r = pgl_pq_value(admin, "SELECT count(*) FROM pg_stat_replication WHERE state IN "
			      "('streaming', 'catchup')", v, sizeof(v), err)) < 0)
		return r;
	if (strcmp(v, "0") == 0 && force)
		snprintf(rl->note, sizeof(rl->note), "no streaming standby at the start of the run");
	return strcmp(v, "0") != 0 || force ? 1 : 0;
}

int pgl_lag_sampler_open(const char *conninfo, PGconn *admin, bool force,
			 struct pgl_replica_lag *rl, struct pgl_lag_sampler **ret,
			 struct dut_error *err)
{
	/* Bounded queries; its own name, so it is not mistaken for a client. */
	const char *const keys[] = { "dbname", "application_name", "options", "connect_timeout", NULL };
	const char *const vals[] = { conninfo, "pgload_lag", "-c statement_timeout=5000", "10", NULL };
	struct pgl_lag_sampler *s;
	pthread_condattr_t ca;
	int r;

	*ret = NULL;
	if ((r = worth_sampling(admin, force, rl, err)) <= 0)
		return r;
	if (!(s = calloc(1, sizeof(*s))))
		return -ENOMEM;
	s->rl = rl;
	s->conn = PQconnectdbParams(keys, vals, 1);
	if (!s->conn || PQstatus(s->conn) != CONNECTION_OK) {
		dut_error_set(err, "replay lag sampler: cannot connect: %.300s",
			      s->conn ? PQerrorMessage(s->conn) : "out of memory");
		PQfinish(s->conn);
		free(s);
		return -ECONNREFUSED;
	}
	pthread_mutex_init(&s->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->wake, &ca);
	pthread_condattr_destroy(&ca);
	rl->sampled = true;
	*ret = s;
	return 0;
}

/*
 * How long after the load each standby needs to replay all the WAL the
 * primary had written when the load stopped: the end position is read once,
 * then replay_lsn is polled every 20 ms, at most PGL_LAG_CATCHUP_MAX_S.
 */
static void measure_catchup(struct pgl_lag_sampler *s)
{
	const uint64_t poll_ns = 20 * 1000000ull;
	char end_lsn[32], sql[512];
	PGresult *res = PQexec(s->conn, "SELECT pg_current_wal_lsn()");
	uint64_t t0 = pgl_now_ns();
	unsigned pending = s->rl->nstandbys;

	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1) {
		note(s, "catch-up not measured", PQerrorMessage(s->conn));
		PQclear(res);
		return;
	}
	snprintf(end_lsn, sizeof(end_lsn), "%s", PQgetvalue(res, 0, 0));
	PQclear(res);
	/* end_lsn is the server's own text for a pg_lsn: safe to quote. */
	snprintf(sql, sizeof(sql), "SELECT application_name, coalesce(replay_lsn >= '%s'::pg_lsn, "
		 "false) FROM pg_stat_replication WHERE state IN ('streaming', 'catchup')", end_lsn);
	for (unsigned i = 0; i < s->rl->nstandbys; i++)
		s->rl->sb[i].catchup_measured = true;
	while (pending) {
		uint64_t now;

		res = PQexec(s->conn, sql);
		now = pgl_now_ns();
		if (PQresultStatus(res) != PGRES_TUPLES_OK) {
			note(s, "catch-up measurement stopped", PQerrorMessage(s->conn));
			PQclear(res);
			return;
		}
		for (int i = 0; i < PQntuples(res); i++) {
			struct pgl_standby_lag *l = pgl_replica_lag_find(s->rl, PQgetvalue(res, i, 0));

			if (l && !l->caught_up && strcmp(PQgetvalue(res, i, 1), "t") == 0) {
				l->caught_up = true;
				l->catchup_ms = (double)(now - t0) / 1e6;
				pending--;
			}
		}
		PQclear(res);
		if (!pending || now - t0 > PGL_LAG_CATCHUP_MAX_S * 1000000000ull)
			break;
		{
			struct timespec ts = { 0, (long)poll_ns };

			nanosleep(&ts, NULL);
		}
	}
}

int pgl_lag_sampler_start(struct pgl_lag_sampler *s, uint64_t t0_ns)
{
	int r;

	s->t0_ns = s->last_ns = t0_ns;
	r = pthread_create(&s->tid, NULL, sampler_main, s);
	if (r != 0) {
		note(s, "replay lag not sampled", strerror(r));
		return -r;
	}
	s->started = true;
	return 0;
}

void pgl_lag_sampler_stop(struct pgl_lag_sampler *s)
{
	if (!s)
		return;
	if (s->started) {
		pthread_mutex_lock(&s->lock);
		s->stop = true;
		pthread_cond_signal(&s->wake);
		pthread_mutex_unlock(&s->lock);
		pthread_join(s->tid, NULL);
		/* Where the standby stood when the load stopped. */
		if (!s->failed && pgl_now_ns() - s->last_ns > PGL_LAG_INTERVAL_NS / 5 && sample(s) < 0)
			s->failed = true;
		if (!s->failed && s->rl->nstandbys)
			measure_catchup(s);
	}
	pthread_cond_destroy(&s->wake);
	pthread_mutex_destroy(&s->lock);
	PQfinish(s->conn);
	free(s);
}
