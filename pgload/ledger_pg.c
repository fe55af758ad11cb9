/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ledger workload against a server: the tables, the clients (one thread
 * and connection each) with their fdatasync'ed files, and what the check
 * reads back.  0 or -errno; err explains.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/file_io.h"
#include "pgload/ledger_pg.h"
#include "pgload/pgconn.h"
#include "pgload/rng.h"
#include "pgload/session.h"

static const char init_sql[] =
	"CREATE TABLE IF NOT EXISTS ledger_txn (id bigint PRIMARY KEY, aid int NOT NULL, delta int NOT NULL);"
	"CREATE TABLE IF NOT EXISTS ledger_item (id bigint PRIMARY KEY, aid int NOT NULL, delta int NOT NULL);"
	"CREATE TABLE IF NOT EXISTS ledger_base (sum_a bigint, sum_t bigint, sum_b bigint, sum_h bigint,"
	" n_h bigint, nonzero_accounts bigint);"
	"TRUNCATE ledger_txn, ledger_item, ledger_base;"
	"INSERT INTO ledger_base SELECT"
	" (SELECT coalesce(sum(abalance), 0) FROM pgbench_accounts),"
	" (SELECT coalesce(sum(tbalance), 0) FROM pgbench_tellers),"
	" (SELECT coalesce(sum(bbalance), 0) FROM pgbench_branches),"
	" (SELECT coalesce(sum(delta), 0) FROM pgbench_history),"
	" (SELECT count(*) FROM pgbench_history),"
	" (SELECT count(*) FROM pgbench_accounts WHERE abalance <> 0);"
	"CHECKPOINT";

int pgl_ledger_init_tables(PGconn *c, struct dut_error *err)
{
	char buf[32];

	if (pgl_pq_value(c, "SELECT count(*) FROM pg_class WHERE relname = 'pgbench_accounts'",
			 buf, sizeof(buf), err) < 0)
		return -EIO;
	if (strcmp(buf, "1") != 0) {
		dut_error_set(err, "no pgbench tables in this database: run pgload init first");
		return -ENOENT;
	}
	return pgl_pq_exec(c, init_sql, err) < 0 ? -EIO : 0;
}

/* ---- the clients ---- */

struct client {
	pthread_t tid;
	unsigned idx;
	const struct pgl_ledger_run_opts *o;
	int64_t scale;
	uint64_t deadline_ns;
	int fd;                       /* the ledger file */
	uint64_t committed, in_flight;
	bool aborted;
	char error[256];
};

/* One line, then fdatasync: the ledger outlives the database's crash. */
static int log_line(struct client *c, char kind, int64_t id)
{
	char line[40];
	int n = snprintf(line, sizeof(line), "%c %" PRId64 "\n", kind, id);

	if (write(c->fd, line, (size_t)n) != n || fdatasync(c->fd) < 0) {
		snprintf(c->error, sizeof(c->error), "writing the ledger file: %s", strerror(errno));
		return -EIO;
	}
	return 0;
}

static void set_pq_error(struct client *c, PGconn *conn, const char *what)
{
	const char *m = PQerrorMessage(conn);
	size_t n;

	snprintf(c->error, sizeof(c->error), "%s: %s", what, m && *m ? m : "connection lost");
	n = strlen(c->error);
	while (n && c->error[n - 1] == '\n')
		c->error[--n] = 0;
}

static bool exec_ok(PGconn *conn, const char *sql, const char *want_status)
{
	PGresult *res = PQexec(conn, sql);
	bool ok = res && PQresultStatus(res) == PGRES_COMMAND_OK &&
		  (!want_status || strcmp(PQcmdStatus(res), want_status) == 0);

	PQclear(res);
	return ok;
}

static void *client_main(void *arg)
{
	struct client *c = arg;
	struct dut_error err = { "" };
	struct pgl_rng rng;
	PGconn *conn = NULL;
	char sql[1024];

	pgl_rng_seed(&rng, c->o->seed * 1000003u + c->idx);
	if (pgl_pq_connect(c->o->conninfo, &conn, &err) < 0) {
		snprintf(c->error, sizeof(c->error), "connect: %s", err.msg);
		c->aborted = true;
		return NULL;
	}
	for (uint64_t k = 1; !pgl_stop_requested; k++) {
		int64_t id = pgl_ledger_id(c->idx, k);
		int64_t aid = (int64_t)(pgl_rng_next(&rng) % (uint64_t)(100000 * c->scale)) + 1;
		int64_t tid = (int64_t)(pgl_rng_next(&rng) % (uint64_t)(10 * c->scale)) + 1;
		int64_t bid = (int64_t)(pgl_rng_next(&rng) % (uint64_t)c->scale) + 1;
		int delta = (int)(pgl_rng_next(&rng) % 10001) - 5000;

		if (pgl_now_ns() >= c->deadline_ns)
			break;
		snprintf(sql, sizeof(sql),
			 "BEGIN;"
			 "UPDATE pgbench_accounts SET abalance = abalance + %d WHERE aid = %" PRId64 ";"
			 "UPDATE pgbench_tellers SET tbalance = tbalance + %d WHERE tid = %" PRId64 ";"
			 "UPDATE pgbench_branches SET bbalance = bbalance + %d WHERE bid = %" PRId64 ";"
			 "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES"
			 " (%" PRId64 ", %" PRId64 ", %" PRId64 ", %d, now());"
			 "INSERT INTO ledger_txn VALUES (%" PRId64 ", %" PRId64 ", %d);"
			 "INSERT INTO ledger_item VALUES (%" PRId64 ", %" PRId64 ", %d)",
			 delta, aid, delta, tid, delta, bid, tid, bid, aid, delta, id, aid, delta, id, aid, delta);
		if (!exec_ok(conn, sql, NULL)) {
			/* COMMIT was never sent: the transaction cannot have committed */
			set_pq_error(c, conn, "transaction");
			c->aborted = true;
			break;
		}
		if (log_line(c, 'B', id) < 0) {
			c->aborted = true;
			break;
		}
		if (!exec_ok(conn, "COMMIT", "COMMIT")) {
			set_pq_error(c, conn, "COMMIT");
			c->in_flight++;
			c->aborted = true;
			break;
		}
		if (log_line(c, 'C', id) < 0) {
			c->in_flight++;
			c->aborted = true;
			break;
		}
		c->committed++;
	}
	PQfinish(conn);
	return NULL;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull) };

	nanosleep(&ts, NULL);
}

/* A CHECKPOINT at a chosen time, so crash points in data files and pg_control are reached. */
static void *checkpointer_main(void *arg)
{
	const struct pgl_ledger_run_opts *o = arg;
	struct dut_error err = { "" };
	uint64_t t0 = pgl_now_ns();
	PGconn *conn = NULL;

	if (pgl_pq_connect(o->conninfo, &conn, &err) < 0)
		return NULL;
	while (!pgl_stop_requested && pgl_now_ns() - t0 < o->checkpoint_at_ms * 1000000ull)
		sleep_ns(10000000);
	if (!pgl_stop_requested)
		exec_ok(conn, "CHECKPOINT", NULL);
	PQfinish(conn);
	return NULL;
}

int pgl_ledger_run(const struct pgl_ledger_run_opts *o, struct pgl_ledger_run_result *ret,
		   struct dut_error *err)
{
	struct client *cl = calloc(o->clients, sizeof(*cl));
	PGconn *admin = NULL;
	pthread_t ckpt;
	bool ckpt_started = false;
	int64_t scale;
	uint64_t t0;
	int r = 0;

	memset(ret, 0, sizeof(*ret));
	if (!cl)
		return -ENOMEM;
	if (pgl_pq_connect(o->conninfo, &admin, err) < 0) {
		free(cl);
		return -EIO;
	}
	r = pgl_pq_scale(admin, &scale, err);
	PQfinish(admin);
	if (r < 0 || scale < 1) {
		if (r == 0)
			dut_error_set(err, "pgbench_branches is empty: run pgload init first");
		free(cl);
		return r < 0 ? r : -ENOENT;
	}
	t0 = pgl_now_ns();
	for (unsigned i = 0; i < o->clients; i++) {
		char path[4200];

		cl[i] = (struct client){ .idx = i, .o = o, .scale = scale, .fd = -1,
					 .deadline_ns = t0 + (uint64_t)(o->duration_s * 1e9) };
		snprintf(path, sizeof(path), "%s/client-%03u.ledger", o->dir, i);
		cl[i].fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (cl[i].fd < 0) {
			r = -errno;
			dut_error_set(err, "%s: %s", path, strerror(errno));
			break;
		}
	}
	for (unsigned i = 0; r == 0 && i < o->clients; i++) {
		if (pthread_create(&cl[i].tid, NULL, client_main, &cl[i]) != 0) {
			pgl_stop_requested = 1;
			r = -EAGAIN;
			for (unsigned k = 0; k < i; k++)
				pthread_join(cl[k].tid, NULL);
			dut_error_set(err, "cannot start client thread %u", i);
			break;
		}
		if (i + 1 == o->clients && o->checkpoint_at_ms)
			ckpt_started = pthread_create(&ckpt, NULL, checkpointer_main, (void *)o) == 0;
	}
	if (r == 0) {
		for (unsigned i = 0; i < o->clients; i++) {
			pthread_join(cl[i].tid, NULL);
			ret->committed += cl[i].committed;
			ret->in_flight += cl[i].in_flight;
			if (cl[i].aborted) {
				if (!ret->aborted_clients)
					snprintf(ret->first_error, sizeof(ret->first_error), "client %u: %s", i, cl[i].error);
				ret->aborted_clients++;
			}
		}
		pgl_stop_requested = 1;   /* the checkpointer too */
		if (ckpt_started)
			pthread_join(ckpt, NULL);
		ret->elapsed_ns = pgl_now_ns() - t0;
	}
	for (unsigned i = 0; i < o->clients; i++)
		if (cl[i].fd >= 0)
			close(cl[i].fd);
	free(cl);
	return r;
}

/* ---- the check's reads ---- */

static int read_ids(PGconn *c, const char *sql, struct pgl_ids *ids, struct dut_error *err)
{
	PGresult *res = PQexec(c, sql);

	if (!res || PQresultStatus(res) != PGRES_TUPLES_OK) {
		dut_error_set(err, "%s: %s", sql, res ? PQresultErrorMessage(res) : PQerrorMessage(c));
		PQclear(res);
		return -EIO;
	}
	for (int i = 0; i < PQntuples(res); i++) {
		if (pgl_ids_add(ids, strtoll(PQgetvalue(res, i, 0), NULL, 10)) < 0) {
			PQclear(res);
			return -ENOMEM;
		}
	}
	PQclear(res);
	return 0;
}

static int read_i64(PGconn *c, const char *sql, int64_t *ret, struct dut_error *err)
{
	char buf[40];

	if (pgl_pq_value(c, sql, buf, sizeof(buf), err) < 0)
		return -EIO;
	*ret = strtoll(buf, NULL, 10);
	return 0;
}

int pgl_ledger_read_db(PGconn *c, struct pgl_ledger_db *d, struct dut_error *err)
{
	int64_t nonzero = 0;
	struct {
		const char *sql;
		int64_t *out;
	} q[] = {
		{ "SELECT coalesce(sum(delta), 0) FROM ledger_txn", &d->txn_delta_sum },
		{ "SELECT (SELECT coalesce(sum(abalance), 0) FROM pgbench_accounts) - sum_a FROM ledger_base", &d->abalance_moved },
		{ "SELECT (SELECT coalesce(sum(tbalance), 0) FROM pgbench_tellers) - sum_t FROM ledger_base", &d->tbalance_moved },
		{ "SELECT (SELECT coalesce(sum(bbalance), 0) FROM pgbench_branches) - sum_b FROM ledger_base", &d->bbalance_moved },
		{ "SELECT (SELECT coalesce(sum(delta), 0) FROM pgbench_history) - sum_h FROM ledger_base", &d->history_moved },
		{ "SELECT (SELECT count(*) FROM pgbench_history) - n_h FROM ledger_base", &d->history_rows_added },
		{ "SELECT nonzero_accounts FROM ledger_base", &nonzero },
	};

	memset(d, 0, sizeof(*d));
	if (read_ids(c, "SELECT id FROM ledger_txn", &d->txn, err) < 0 ||
	    read_ids(c, "SELECT id FROM ledger_item", &d->item, err) < 0)
		return -EIO;
	for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++)
		if (read_i64(c, q[i].sql, q[i].out, err) < 0)
			return -EIO;
	/* per account only when every balance started at 0 (pgload init's tables) */
	if (nonzero == 0 &&
	    read_i64(c, "SELECT count(*) FROM pgbench_accounts a LEFT JOIN"
		     " (SELECT aid, sum(delta) s FROM ledger_txn GROUP BY aid) l USING (aid)"
		     " WHERE a.abalance <> coalesce(l.s, 0)", &d->accounts_off, err) < 0)
		return -EIO;
	return 0;
}
