/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pgload/client.h"
#include "pgload/pgconn.h"
#include "pgload/session.h"

static void live_add(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, *p + v, __ATOMIC_RELAXED);
}

static void abort_client(struct pgl_thread *th, struct pgl_client *c, const char *why)
{
	struct pgl_thread_result *r = th->res;

	if (!r->first_error[0]) {
		char msg[200];
		size_t n;

		snprintf(msg, sizeof(msg), "%s", why);
		/* libpq messages span lines ("\n\t..."): make one line of them. */
		for (char *p = msg; *p; p++)
			if (*p == '\n' || *p == '\t')
				*p = ' ';
		n = strlen(msg);
		while (n && msg[n - 1] == ' ')
			msg[--n] = '\0';
		snprintf(r->first_error, sizeof(r->first_error), "client %u aborted: %s", c->id, msg);
	}
	r->aborted_clients++;
	c->state = CS_ABORTED;
	c->want_write = false;
}

void pgl_thread_name_stmts(struct pgl_thread *th)
{
	for (unsigned s = 0; s < th->cfg->mix.n; s++)
		for (unsigned i = 0; i < th->cfg->mix.e[s].script->nstmts; i++)
			snprintf(th->stmt_names[s][i], sizeof(th->stmt_names[s][i]), "pgl_%u_%u", s, i);
}

int pgl_client_connect(struct pgl_thread *th, struct pgl_client *c)
{
	const struct pgl_run_config *cfg = th->cfg;
	struct dut_error err;
	uint64_t t0 = pgl_now_ns();
	int r = pgl_pq_connect(th->conninfo, &c->conn, &err);

	th->res->conn_ns_total += pgl_now_ns() - t0;
	th->res->nconns++;
	if (r < 0) {
		c->conn = NULL;
		abort_client(th, c, err.msg);
		return r;
	}
	if (cfg->protocol == PGL_PROTO_PREPARED) {
		for (unsigned s = 0; s < cfg->mix.n; s++) {
			const struct pgl_script *sc = cfg->mix.e[s].script;

			for (unsigned i = 0; i < sc->nstmts; i++) {
				PGresult *res;

				res = PQprepare(c->conn, th->stmt_names[s][i], sc->stmts[i].sql,
						(int)sc->stmts[i].nparams, NULL);
				if (PQresultStatus(res) != PGRES_COMMAND_OK) {
					abort_client(th, c, PQresultErrorMessage(res));
					PQclear(res);
					return -EIO;
				}
				PQclear(res);
			}
		}
	}
	if (PQsetnonblocking(c->conn, 1) != 0 ||
	    (cfg->pipeline && PQenterPipelineMode(c->conn) != 1)) {
		abort_client(th, c, PQerrorMessage(c->conn));
		return -EIO;
	}
	c->sock = PQsocket(c->conn);
	for (unsigned i = 0; i < PGL_MAX_PARAMS; i++)
		c->pvals[i] = c->pbuf[i];
	c->state = CS_CHOOSE;
	return 0;
}

/* Queue one statement of the current script on the connection. */
static int send_stmt(struct pgl_thread *th, struct pgl_client *c, unsigned i)
{
	const struct pgl_run_config *cfg = th->cfg;
	const struct pgl_stmt *st = &cfg->mix.e[c->script].script->stmts[i];

	if (th->spin.budget_ns)
		c->sent_ns = pgl_now_ns();
	switch (cfg->protocol) {
	case PGL_PROTO_SIMPLE:
		if (pgl_stmt_render(st, c->vars, th->sql, sizeof(th->sql)) < 0)
			return -ENOSPC;
		return PQsendQuery(c->conn, th->sql) == 1 ? 0 : -EIO;
	case PGL_PROTO_EXTENDED:
		for (unsigned p = 0; p < st->nparams; p++)
			pgl_i64_to_text(c->vars[st->params[p]], c->pbuf[p]);
		return PQsendQueryParams(c->conn, st->sql, (int)st->nparams, NULL, c->pvals, NULL,
					 NULL, 0) == 1 ? 0 : -EIO;
	case PGL_PROTO_PREPARED:
		for (unsigned p = 0; p < st->nparams; p++)
			pgl_i64_to_text(c->vars[st->params[p]], c->pbuf[p]);
		return PQsendQueryPrepared(c->conn, th->stmt_names[c->script][i], (int)st->nparams,
					   c->pvals, NULL, NULL, 0) == 1 ? 0 : -EIO;
	}
	return -EINVAL;
}

static void flush(struct pgl_thread *th, struct pgl_client *c)
{
	int f = PQflush(c->conn);

	if (f < 0)
		abort_client(th, c, PQerrorMessage(c->conn));
	else
		c->want_write = f == 1;
}

/* Start (or restart, on retry) the current transaction. */
static void begin_try(struct pgl_thread *th, struct pgl_client *c, uint64_t now)
{
	const struct pgl_script *sc = th->cfg->mix.e[c->script].script;
	int r = 0;

	if (c->tries == 1) {
		c->start_ns = now;
		if (th->cfg->rate > 0) {
			c->lag_ns = pgl_lag_add(&th->res->lag, c->sched_ns, now);
			dut_hist_add(th->res->lagh, c->lag_ns);
		}
	}
	c->err = PGL_ERR_NONE;
	c->errmsg[0] = '\0';
	c->stmt = 0;
	if (th->cfg->pipeline) {
		for (unsigned i = 0; i < sc->nstmts && r == 0; i++)
			r = send_stmt(th, c, i);
		if (r == 0 && PQpipelineSync(c->conn) != 1)
			r = -EIO;
		c->sync_pending = true;
	} else {
		r = send_stmt(th, c, 0);
	}
	if (r < 0) {
		abort_client(th, c, PQerrorMessage(c->conn));
		return;
	}
	c->state = CS_BUSY;
	flush(th, c);
}

static bool run_over(const struct pgl_thread *th, const struct pgl_client *c, uint64_t now)
{
	if (pgl_stop_requested)
		return true;
	if (th->cfg->txns_per_client)
		return c->txns >= th->cfg->txns_per_client;
	return now >= th->deadline_ns;
}

void pgl_client_kick(struct pgl_thread *th, struct pgl_client *c, uint64_t now)
{
	const struct pgl_run_config *cfg = th->cfg;

	if (c->state == CS_THROTTLE) {
		if (pgl_stop_requested || (!cfg->txns_per_client && c->sched_ns >= th->deadline_ns)) {
			c->state = CS_DONE;
			return;
		}
		if (now >= c->sched_ns)
			begin_try(th, c, now);
		return;
	}
	if (c->state != CS_CHOOSE)
		return;
	if (run_over(th, c, now)) {
		c->state = CS_DONE;
		return;
	}
	c->script = pgl_mix_pick(&cfg->mix, &th->rng);
	cfg->mix.e[c->script].script->draw(&th->rng, cfg->scale, c->vars);
	c->tries = 1;
	if (cfg->rate > 0) {
		c->sched_ns = pgl_sched_take(&th->sched, &th->rng);
		if (c->sched_ns > now) {
			c->state = CS_THROTTLE;
			return;
		}
	}
	begin_try(th, c, now);
}

static void txn_finished(struct pgl_thread *th, struct pgl_client *c, bool committed)
{
	struct pgl_thread_result *r = th->res;
	uint64_t now = pgl_now_ns();
	/* With -R, latency counts from the scheduled start, as pgbench does. */
	uint64_t from = th->cfg->rate > 0 ? c->sched_ns : c->start_ns;
	uint64_t lat = now > from ? now - from : 0;
	uint64_t sec = now > th->bench_start_ns ? (now - th->bench_start_ns) / 1000000000ull : 0;

	c->txns++;
	if (committed) {
		r->committed++;
		r->script_committed[c->script]++;
		r->script_lat_sum_ns[c->script] += lat;
		dut_hist_add(r->lat, lat);
		pgl_retry_on_commit(&r->retry, c->tries);
		live_add(&th->live_committed, 1);
		live_add(&th->live_lat_sum_ns, lat);
	} else {
		r->failed++;
		r->script_failed[c->script]++;
		live_add(&th->live_failed, 1);
	}
	if (pgl_thread_sec_add(r, sec, committed, lat, c->lag_ns, c->tries - 1) < 0) {
		abort_client(th, c, "out of memory for the per-second series");
		return;
	}
	c->state = CS_CHOOSE;
	pgl_client_kick(th, c, now);
}

/* Apply the retry decision once the transaction is rolled back (or needed no rollback). */
static void apply_action(struct pgl_thread *th, struct pgl_client *c, int action,
			 const char *msg)
{
	switch ((enum pgl_retry_action)action) {
	case PGL_RETRY:
		c->tries++;
		begin_try(th, c, pgl_now_ns());
		break;
	case PGL_FAIL_TXN:
		txn_finished(th, c, false);
		break;
	case PGL_ABORT_CLIENT:
		abort_client(th, c, msg);
		break;
	}
}

static void try_failed(struct pgl_thread *th, struct pgl_client *c, const char *msg)
{
	int action;
	PGTransactionStatusType ts;

	if (PQstatus(c->conn) == CONNECTION_BAD) {
		abort_client(th, c, msg && *msg ? msg : "connection to the server lost");
		return;
	}
	action = pgl_retry_on_error(&th->res->retry, c->err, c->tries, th->cfg->max_tries);
	ts = PQtransactionStatus(c->conn);
	if (ts == PQTRANS_INERROR || ts == PQTRANS_INTRANS) {
		int ok = th->cfg->pipeline
			? PQsendQueryParams(c->conn, "ROLLBACK", 0, NULL, NULL, NULL, NULL, 0) == 1 &&
			  PQpipelineSync(c->conn) == 1
			: PQsendQuery(c->conn, "ROLLBACK") == 1;

		if (!ok) {
			abort_client(th, c, PQerrorMessage(c->conn));
			return;
		}
		if (th->spin.budget_ns)
			c->sent_ns = pgl_now_ns();
		c->after_rollback = action;
		c->err = PGL_ERR_NONE; /* now: did the ROLLBACK itself fail? */
		c->sync_pending = th->cfg->pipeline;
		c->state = CS_ROLLBACK;
		flush(th, c);
		return;
	}
	apply_action(th, c, action, msg);
}

/* One result of the current try; the first error is kept in c->err/errmsg. */
static void take_result(struct pgl_client *c, PGresult *res)
{
	char *msg = c->errmsg;
	size_t len = sizeof(c->errmsg);

	ExecStatusType st = PQresultStatus(res);

	if (st == PGRES_FATAL_ERROR) {
		if (c->err == PGL_ERR_NONE) {
			c->err = pgl_errclass_of(PQresultErrorField(res, PG_DIAG_SQLSTATE));
			snprintf(msg, len, "%s", PQresultErrorMessage(res));
		}
	} else if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK &&
		   st != PGRES_PIPELINE_ABORTED && st != PGRES_PIPELINE_SYNC) {
		if (c->err == PGL_ERR_NONE) {
			c->err = PGL_ERR_OTHER;
			snprintf(msg, len, "unexpected result %s", PQresStatus(st));
		}
	}
}

/* A statement or a pipeline sync completed: move the state machine. */
static void step_done(struct pgl_thread *th, struct pgl_client *c, const char *msg)
{
	const struct pgl_script *sc = th->cfg->mix.e[c->script].script;

	if (c->state == CS_ROLLBACK) {
		if (c->err != PGL_ERR_NONE && c->after_rollback != PGL_ABORT_CLIENT)
			abort_client(th, c, msg);
		else
			apply_action(th, c, c->after_rollback, msg);
		return;
	}
	if (c->err != PGL_ERR_NONE) {
		try_failed(th, c, msg);
		return;
	}
	if (!th->cfg->pipeline && ++c->stmt < sc->nstmts) {
		if (send_stmt(th, c, c->stmt) < 0)
			abort_client(th, c, PQerrorMessage(c->conn));
		else
			flush(th, c);
		return;
	}
	txn_finished(th, c, true);
}

struct pgl_spin_slot pgl_client_spin_slot(const struct pgl_thread *th, const struct pgl_client *c)
{
	return pgl_spin_slot(c->script, c->stmt, th->cfg->pipeline || c->state == CS_ROLLBACK);
}

void pgl_client_input(struct pgl_thread *th, struct pgl_client *c)
{
	const char *msg = c->errmsg;

	if (PQconsumeInput(c->conn) != 1) {
		abort_client(th, c, PQerrorMessage(c->conn));
		return;
	}
	/* Bounded against a libpq surprise; real rounds need a few dozen steps. */
	for (unsigned guard = 0; guard < 4096; guard++) {
		PGresult *res;

		if (c->state != CS_BUSY && c->state != CS_ROLLBACK)
			return;
		if (PQisBusy(c->conn))
			return;
		res = PQgetResult(c->conn);
		if (th->cfg->pipeline) {
			ExecStatusType st;

			if (!res)
				continue; /* end of one query's results */
			st = PQresultStatus(res);
			take_result(c, res);
			PQclear(res);
			if (st == PGRES_PIPELINE_SYNC) {
				c->sync_pending = false;
				step_done(th, c, msg);
			}
			continue;
		}
		if (res) {
			take_result(c, res);
			PQclear(res);
			continue;
		}
		step_done(th, c, msg);
	}
	if (PQstatus(c->conn) == CONNECTION_BAD)
		abort_client(th, c, PQerrorMessage(c->conn));
}

void pgl_client_output(struct pgl_thread *th, struct pgl_client *c)
{
	flush(th, c);
}

void pgl_client_close(struct pgl_client *c)
{
	if (c->conn)
		PQfinish(c->conn);
	c->conn = NULL;
}
