/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The answer's evidence from PostgreSQL's counters, its wait events and /proc (pure). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/hist.h"
#include "lib/result.h"
#include "tools/report/report_answer_srv.h"
#include "tools/report/rundir_stats.h"

struct wait_sum {
	char ev[80];
	double count;
};

/* Add the backend rows of one document's histogram. */
static void add_waits(json_object *srv, struct wait_sum *ws, size_t *nws, size_t cap, double *backend)
{
	json_object *w = rundir_jget(srv, "waits"), *ev = rundir_jget(w, "events");

	*backend += json_object_get_double(rundir_jget(w, "backend_samples"));
	for (size_t i = 0; ev && i < json_object_array_length(ev); i++) {
		json_object *e = json_object_array_get_idx(ev, i);
		char name[80];
		size_t k;

		if (strcmp(rundir_jstr(e, "process"), "backend") != 0)
			continue;
		snprintf(name, sizeof(name), "%s:%s", rundir_jstr(e, "type"), rundir_jstr(e, "event"));
		for (k = 0; k < *nws && strcmp(ws[k].ev, name) != 0; k++)
			;
		if (k == *nws) {
			if (*nws == cap)
				continue;
			snprintf(ws[k].ev, sizeof(ws[k].ev), "%s", name);
			ws[k].count = 0;
			(*nws)++;
		}
		ws[k].count += json_object_get_double(rundir_jget(e, "count"));
	}
}

static int cmp_wait(const void *a, const void *b)
{
	const struct wait_sum *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : strcmp(x->ev, y->ev);
}

static void waits_text(struct wait_sum *ws, size_t n, double backend, char *buf, size_t len)
{
	size_t l = 0;

	buf[0] = 0;
	if (!n || backend <= 0)
		return;
	qsort(ws, n, sizeof(*ws), cmp_wait);
	for (size_t i = 0; i < n && i < 5 && l < len; i++) {
		double pct = 100.0 * ws[i].count / backend;

		if (i && pct < 1.0)
			break;
		l += (size_t)snprintf(buf + l, len - l, "%s%s %.0f%%%s", i ? ", " : "", ws[i].ev, pct,
				      i ? "" : " of backend samples");
	}
}

/* What a wait event means for the answer, for the ones a run most often shows. */
static const char *wait_gloss(const char *ev)
{
	static const struct { const char *ev, *gloss; } g[] = {
		{ "Client:ClientRead", "the backend waited for the client (pgload) to send" },
		{ "IPC:SyncRep", "commits waited for the synchronous standby" },
		{ "Lock:transactionid", "row locks: another transaction held the row" },
		{ "Lock:tuple", "row locks" },
		{ "LWLock:BufferMapping", "the shared buffer table" },
		{ "LWLock:BufferContent", "a buffer's content lock" },
	};

	for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++)
		if (strcmp(ev, g[i].ev) == 0)
			return g[i].gloss;
	return NULL;
}

/* The two largest backend waits (already sorted) that are not reads, WAL or CPU, at least 5%. */
static void other_waits_text(const struct wait_sum *ws, size_t n, double backend, char *buf, size_t len)
{
	static const char *const skip[] = { "IO:DataFileRead", "IO:DataFilePrefetch", "IO:WALSync", "IO:WALWrite",
					    "IO:WALInitSync", "IO:WALInitWrite", "LWLock:WALWrite", "CPU:running" };
	size_t l = 0;
	int k = 0;

	buf[0] = 0;
	for (size_t i = 0; i < n && k < 2 && backend > 0 && l < len; i++) {
		double pct = 100.0 * ws[i].count / backend;
		const char *gl;
		bool skipped = false;

		for (size_t j = 0; j < sizeof(skip) / sizeof(skip[0]); j++)
			skipped |= strcmp(ws[i].ev, skip[j]) == 0;
		if (skipped || pct < 5.0)
			continue;
		gl = wait_gloss(ws[i].ev);
		l += (size_t)snprintf(buf + l, len - l, "%s%s %.0f%%%s%s%s", k ? ", " : "", ws[i].ev, pct,
				      gl ? " (" : "", gl ? gl : "", gl ? ")" : "");
		k++;
	}
}

static double median_of(double *v, size_t n)
{
	struct cmp_stat s = cmp_stat_of(v, (unsigned)n);

	return s.median;
}

/*
 * TPS in the seconds the checkpointer worked (a sample saw it off its idle
 * wait) against the other seconds, in the first document with both series.
 * The last second is left out: it is usually partial.
 */
static void ckpt_tps(const struct dut_result *doc, char *buf, size_t len)
{
	struct dut_result_phase *ph = dut_result_find_phase(doc, "run");
	struct dut_series *tps = ph ? dut_phase_get_series(ph, "per_second") : NULL;
	struct dut_series *srv = ph ? dut_phase_get_series(ph, "server_per_second") : NULL;
	int tc = tps ? dut_series_col(tps, "tps") : -1, bc = srv ? dut_series_col(srv, "checkpointer_busy") : -1;
	size_t n = tps && srv ? dut_series_nrows(tps) : 0, nb = 0, ni = 0;
	double *busy, *idle;
	char a[32], b[32];

	buf[0] = 0;
	if (tc < 0 || bc < 0 || n < 3)
		return;
	n = n - 1 < dut_series_nrows(srv) ? n - 1 : dut_series_nrows(srv);
	busy = calloc(n, sizeof(*busy));
	idle = calloc(n, sizeof(*idle));
	if (busy && idle) {
		for (size_t i = 0; i < n; i++) {
			double t = dut_series_get(tps, i, (size_t)tc);

			if (dut_series_get(srv, i, (size_t)bc) > 0)
				busy[nb++] = t;
			else
				idle[ni++] = t;
		}
		if (!nb)
			snprintf(buf, len, "the checkpointer did not work in any of the %zu whole seconds sampled", n);
		else if (!ni)
			snprintf(buf, len, "the checkpointer worked in every one of the %zu whole seconds (TPS median %s)",
				 n, rundir_fmt_num(median_of(busy, nb), 0, a, sizeof(a)));
		else
			snprintf(buf, len, "TPS median %s in the %zu s the checkpointer worked, %s in the other %zu s "
				 "(first run, per-second series)", rundir_fmt_num(median_of(busy, nb), 0, a, sizeof(a)), nb,
				 rundir_fmt_num(median_of(idle, ni), 0, b, sizeof(b)), ni);
	}
	free(busy);
	free(idle);
}

void answer_srv_of(const struct rundir_config *c, const char *step, struct answer_srv *ret)
{
	const struct dut_result *docs[RUNDIR_MAX_DOCS];
	size_t nd = rundir_config_docs(c, step, docs, RUNDIR_MAX_DOCS);
	double v[12][RUNDIR_MAX_DOCS];
	unsigned n[12] = { 0 };
	struct wait_sum ws[48];
	size_t nws = 0;
	double backend = 0;
	struct answer_srv a = { 0 };

	a.wal_why = a.wal_time_why = a.ckpt_why = a.cpu_why = "";
	for (size_t i = 0; i < nd; i++) {
		json_object *srv = rundir_server_json(docs[i]);
		struct dut_result_phase *ph = dut_result_find_phase(docs[i], "run");
		struct dut_hist_summary lat;
		const char *why;
		double commits = NAN, sync, synct, ck, x, sv, cl, cpus, clients;

		if (!srv)
			continue;
		if (!a.ndocs++) {
			a.version_num = json_object_get_int(rundir_jget(srv, "server_version_num"));
			a.clients = (unsigned)json_object_get_int(rundir_jget(rundir_jget(dut_result_json(docs[i]),
										       "config"), "clients"));
			a.cpus = (unsigned)rundir_server_cpu(docs[i], "cpus");
			ckpt_tps(docs[i], a.ckpt_tps, sizeof(a.ckpt_tps));
		}
		if (ph)
			dut_phase_get_metric(ph, "committed", &commits, NULL);
		sync = rundir_server_counter(docs[i], "wal_sync", &why);
		if (isnan(sync))
			a.wal_why = why;
		synct = rundir_server_counter(docs[i], "wal_sync_time", &why);
		if (isnan(synct))
			a.wal_time_why = why;
		if (!isnan(sync) && commits > 0)
			v[0][n[0]++] = sync / commits;
		if (!isnan(sync) && !isnan(synct) && sync > 0)
			v[1][n[1]++] = synct / sync;
		ck = rundir_server_counter(docs[i], "checkpoints_timed", &why) +
		     rundir_server_counter(docs[i], "checkpoints_req", NULL);
		if (isnan(ck)) {
			a.ckpt_why = why;
		} else {
			v[2][n[2]++] = ck;
			if (!isnan(x = rundir_server_counter(docs[i], "buffers_checkpoint", NULL)))
				v[3][n[3]++] = x;
			if (!isnan(x = rundir_server_counter(docs[i], "checkpoint_write_time", NULL)))
				v[4][n[4]++] = x / 1e3;
			if (!isnan(x = rundir_server_counter(docs[i], "checkpoint_sync_time", NULL)))
				v[5][n[5]++] = x / 1e3;
		}
		x = rundir_server_counter(docs[i], "blks_read", NULL);
		if (!isnan(x) && commits > 0) {
			double rt = rundir_server_counter(docs[i], "blk_read_time", NULL);

			v[6][n[6]++] = x / commits;
			if (!isnan(rt) && x > 0)
				v[7][n[7]++] = rt / x;
		}
		sv = rundir_server_cpu(docs[i], "server_s_per_txn");
		cl = rundir_server_cpu(docs[i], "client_s_per_txn");
		cpus = rundir_server_cpu(docs[i], "cpus");
		clients = json_object_get_double(rundir_jget(rundir_jget(dut_result_json(docs[i]), "config"), "clients"));
		if (isnan(sv))
			a.cpu_why = json_object_get_string(rundir_jget(rundir_jget(srv, "cpu"), "note"));
		else
			v[8][n[8]++] = sv * 1e3;
		if (!isnan(cl))
			v[9][n[9]++] = cl * 1e3;
		/* Little's law: clients / mean latency = TPS, so this is the share of the
		 * min(clients, CPUs) CPUs the server and the client kept busy */
		if (!isnan(sv) && !isnan(cl) && cpus > 0 && clients > 0 && ph &&
		    dut_phase_get_latency(ph, "txn", &lat) == 0 && lat.mean > 0) {
			v[10][n[10]++] = 100.0 * (sv + cl) * 1e9 * clients / fmin(clients, cpus) / lat.mean;
			v[11][n[11]++] = lat.mean / 1e6;
		}
		add_waits(srv, ws, &nws, sizeof(ws) / sizeof(ws[0]), &backend);
	}
	a.wal_sync_per_commit = cmp_stat_of(v[0], n[0]);
	a.wal_sync_ms = cmp_stat_of(v[1], n[1]);
	a.ckpts = cmp_stat_of(v[2], n[2]);
	a.ckpt_bufs = cmp_stat_of(v[3], n[3]);
	a.ckpt_write_s = cmp_stat_of(v[4], n[4]);
	a.ckpt_sync_s = cmp_stat_of(v[5], n[5]);
	a.blks_read_per_txn = cmp_stat_of(v[6], n[6]);
	a.read_ms = cmp_stat_of(v[7], n[7]);
	a.server_cpu_ms = cmp_stat_of(v[8], n[8]);
	a.client_cpu_ms = cmp_stat_of(v[9], n[9]);
	a.cpu_share_pct = cmp_stat_of(v[10], n[10]);
	a.mean_ms = cmp_stat_of(v[11], n[11]);
	if (!a.cpu_why)
		a.cpu_why = "";
	a.wait_read_pct = a.wait_wal_pct = -1;
	if (backend > 0) {
		static const char *const rd[] = { "IO:DataFileRead", "IO:DataFilePrefetch" };
		static const char *const wl[] = { "IO:WALSync", "IO:WALWrite", "IO:WALInitSync",
						  "IO:WALInitWrite", "LWLock:WALWrite" };
		double r = 0, w = 0;

		for (size_t k = 0; k < nws; k++) {
			for (size_t i = 0; i < sizeof(rd) / sizeof(rd[0]); i++)
				r += strcmp(ws[k].ev, rd[i]) == 0 ? ws[k].count : 0;
			for (size_t i = 0; i < sizeof(wl) / sizeof(wl[0]); i++)
				w += strcmp(ws[k].ev, wl[i]) == 0 ? ws[k].count : 0;
		}
		a.wait_read_pct = 100.0 * r / backend;
		a.wait_wal_pct = 100.0 * w / backend;
	}
	waits_text(ws, nws, backend, a.waits, sizeof(a.waits));
	other_waits_text(ws, nws, backend, a.other_waits, sizeof(a.other_waits));
	*ret = a;
}

static const char *of_runs(const struct answer_srv *a)
{
	return a->ndocs > 1 ? " (medians of the runs)" : "";
}

void answer_srv_cpu_text(const struct answer_srv *a, char *buf, size_t n)
{
	if (!a->ndocs) {
		snprintf(buf, n, "CPU: not in the result documents, nor PostgreSQL's counters and wait "
			 "events (the documents predate pgload's server statistics, or the runs used "
			 "--no-server-stats)");
		return;
	}
	if (a->server_cpu_ms.n && !a->cpu_share_pct.n) {
		snprintf(buf, n, "CPU per transaction: server %.3f ms, client (pgload) %.3f ms%s (no mean "
			 "transaction time to set them against)", a->server_cpu_ms.median,
			 a->client_cpu_ms.median, of_runs(a));
		return;
	}
	if (!a->server_cpu_ms.n) {
		snprintf(buf, n, "CPU per transaction: server unknown (%s), client (pgload) %.3f ms",
			 *a->cpu_why ? a->cpu_why : "not measured", a->client_cpu_ms.median);
		return;
	}
	snprintf(buf, n, "CPU per transaction: server %.3f ms, client (pgload) %.3f ms%s; times %u clients "
		 "over %u usable CPUs against the mean transaction time of %.2f ms, CPU explains %.0f%% of it",
		 a->server_cpu_ms.median, a->client_cpu_ms.median, of_runs(a), a->clients,
		 a->clients < a->cpus ? a->clients : a->cpus, a->mean_ms.median, fmin(a->cpu_share_pct.median, 100));
}

void answer_srv_text(const struct answer_srv *a, char *buf, size_t n)
{
	size_t l = 0;
	char x[32], y[32];

#define ADD(...) (l += l < n ? (size_t)snprintf(buf + l, n - l, __VA_ARGS__) : 0)
	if (!a->ndocs) {
		snprintf(buf, n, "PostgreSQL's own counters and wait events are not in the result documents");
		return;
	}
	ADD("PostgreSQL %d.%d says%s: ", a->version_num / 10000, a->version_num % 10000, of_runs(a));
	if (a->wal_sync_per_commit.n) {
		ADD("pg_stat_wal: %.2f WAL syncs per commit", a->wal_sync_per_commit.median);
		if (a->wal_sync_ms.n)
			ADD(", %.3f ms per sync (wal_sync_time)", a->wal_sync_ms.median);
		else
			ADD(", wal_sync_time absent (%s)", *a->wal_time_why ? a->wal_time_why : "not reported");
	} else {
		ADD("WAL syncs absent (%s), so WAL flushes per commit are known only where a dutfs trace "
		    "saw them",
		    *a->wal_why ? a->wal_why : "not reported");
	}
	if (a->ckpts.n && a->ckpts.max == 0) {
		ADD("; no checkpoint during the step");
		if (a->ckpt_tps[0])
			ADD(" (%s)", a->ckpt_tps);
	} else if (a->ckpts.n) {
		ADD("; checkpoints during the step: %.0f", a->ckpts.median);
		if (a->ckpt_bufs.n && a->ckpt_write_s.n && a->ckpt_sync_s.n)
			ADD(", %s buffers written, write %.2f s, sync %.2f s",
			    rundir_fmt_num(a->ckpt_bufs.median, 0, x, sizeof(x)), a->ckpt_write_s.median,
			    a->ckpt_sync_s.median);
		if (a->ckpt_tps[0])
			ADD("; %s", a->ckpt_tps);
	} else {
		ADD("; checkpoints absent (%s)", *a->ckpt_why ? a->ckpt_why : "not reported");
	}
	if (a->blks_read_per_txn.n) {
		ADD("; pg_stat_database: %s blocks read per transaction",
		    rundir_fmt_num(a->blks_read_per_txn.median, a->blks_read_per_txn.median < 0.1 ? 4 : 2, y, sizeof(y)));
		if (a->read_ms.n)
			ADD(", %.3f ms per read (blk_read_time)", a->read_ms.median);
	}
	if (a->waits[0])
		ADD("; wait events: %s", a->waits);
#undef ADD
}
