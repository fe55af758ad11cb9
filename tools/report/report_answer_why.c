/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * "Why", per configuration, for OLTP and restore steps (pure): what limited
 * the transactions, and the restore's verdicts.  The step kinds' why ops
 * (tools/kinds/, their report halves) point here; a leaf that calls no driver.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/cleanup.h"
#include "lib/hist.h"
#include "tools/compare/compare.h"
#include "tools/report/report_answer.h"
#include "tools/report/report_answer_bursts.h"
#include "tools/report/report_answer_dss.h"
#include "tools/report/report_answer_fill.h"
#include "tools/report/report_answer_head.h"
#include "tools/report/report_answer_rows.h"
#include "tools/report/report_run_steps.h"
#include "tools/report/report_answer_srv.h"
#include "tools/report/rundir_kinds.h"
#include "tools/report/rundir_stats.h"

#include "tools/report/report_answer_why.h"

#define MIB (1024.0 * 1024.0)

/* Median of the mean transaction latency (ns) over a configuration's documents of a step. */
static struct cmp_stat txn_mean(const struct rundir_config *c, const char *step)
{
	const struct dut_result *docs[RUNDIR_MAX_DOCS];
	size_t nd = rundir_config_docs(c, step, docs, RUNDIR_MAX_DOCS);
	double v[RUNDIR_MAX_DOCS];
	unsigned n = 0;

	for (size_t i = 0; i < nd; i++) {
		struct dut_result_phase *ph = dut_result_find_phase(docs[i], "run");
		struct dut_hist_summary s;

		if (ph && dut_phase_get_latency(ph, "txn", &s) == 0 && s.count)
			v[n++] = s.mean;
	}
	return cmp_stat_of(v, n);
}

/* Shares above this name what limited a step; below it the evidence does not say. */
#define LIMIT_SHARE_PCT 30.0
/* Fewer WAL fsyncs per commit than this: commits did not wait for flushes. */
#define WAL_WAIT_PER_COMMIT 0.05

/* One estimate of a share of the transaction time (%, -1: none) and where it comes from. */
struct view {
	double v;
	const char *src;
};

/* The largest of the three into *ret (-1 when none); its source. */
static const char *view_pick(const struct view v[3], double *ret)
{
	int best = -1;

	for (int i = 0; i < 3; i++)
		if (v[i].v >= 0 && (best < 0 || v[i].v > v[best].v))
			best = i;
	*ret = best < 0 ? -1 : v[best].v;
	return best < 0 ? "" : v[best].src;
}

/* "read share by source: 6% the trace, 18% blk_read_time, ...; WAL share ..." (only with two or more) */
static void views_text(const struct view r[3], const struct view w[3], char *buf, size_t n)
{
	const struct view *all[2] = { r, w };
	const char *what[2] = { "read share of the transaction time by source:", "WAL share by source:" };
	size_t l = 0;

	buf[0] = 0;
	for (int k = 0; k < 2; k++) {
		int have = 0;

		for (int i = 0; i < 3; i++)
			have += all[k][i].v >= 0;
		if (have < 2)
			continue;
		l += (size_t)snprintf(buf + l, l < n ? n - l : 0, "%s%s", l ? "; " : "", what[k]);
		for (int i = 0, first = 1; i < 3; i++) {
			if (all[k][i].v < 0)
				continue;
			l += (size_t)snprintf(buf + l, l < n ? n - l : 0, "%s %.0f%% %s", first ? "" : ",",
					      fmin(all[k][i].v, 100), all[k][i].src);
			first = 0;
		}
	}
}

/* Why an OLTP step of a configuration ran as it did, from the trace and the document. */
void answer_why_oltp(struct rdoc *d, const struct rundir_config *c, const char *step)
{
	const char *mark = rundir_step_mark(c, step);
	struct cmp_stat tps = rundir_metric(c, step, "run", "tps");
	struct cmp_stat tx = rundir_metric(c, step, "run", "committed");
	struct cmp_stat mean = txn_mean(c, step);
	struct cmp_stat p50 = rundir_latency(c, step, "run", "txn", "p50");
	struct cmp_stat in = rundir_metric(c, step, "run", "tps_including_connections");
	struct cmp_stat ex = rundir_metric(c, step, "run", "tps_excluding_connections");
	char reads[400] = "", wal[400] = "", conn[200], limit[400], a[32], cpu[400], srvtext[1200];
	double share_r = -1, share_w = -1, share_c = -1, share_cpu = -1, rpt = -1;
	const char *src_r = "", *src_w = "";
	char views[300] = "", gap[400] = "";
	double dev_read_ms = -1;       /* the trace's mean read latency (below dutfs) */
	struct rundir_io_mix mix = { 0 };
	struct answer_srv sv;

	if (!tps.n)
		return;
	answer_srv_of(c, step, &sv);
	answer_srv_cpu_text(&sv, cpu, sizeof(cpu));
	answer_srv_text(&sv, srvtext, sizeof(srvtext));
	if (sv.cpu_share_pct.n)
		share_cpu = sv.cpu_share_pct.median;
	if (mark)
		rundir_io_mix_of(c, mark, &mix);
	if (!mix.ntraced || !tx.n || tx.median <= 0 || !rundir_traced_transactions(c, step, mark)) {
		struct rundir_io_mix whole;

		rundir_io_mix_of(c, NULL, &whole);
		snprintf(reads, sizeof(reads), "device reads and WAL flushes: unknown (%s)",
			 whole.ntraced ? "the traces have no marker of this step" :
			 strcmp(c->view, "off") == 0 ? "no trace: view off" : "no trace of this step");
	} else {
		struct dut_hist *rh = dut_hist_new(), *fh = dut_hist_new();
		/* every run of the step in the traced repetitions: a step with
		 * repeat = N has N runs inside one marker of the trace */
		double cut_s = 0;
		double txs = (double)rundir_traced_transactions_cut(c, step, mark, &cut_s);
		rpt = (double)mix.total.ops[REP_READ] / txs;
		double fpc = (double)mix.cls[RC_WAL].fsyncs / txs;

		if (!rh || !fh) {
			dut_hist_free(rh);
			dut_hist_free(fh);
			d->oom = true;
			return;
		}
		rundir_io_lat_of(c, mark, RC_COUNT, REP_READ, rh);
		rundir_io_lat_of(c, mark, RC_WAL, 2, fh);
		if (rh->count)
			dev_read_ms = dut_hist_mean(rh) / 1e6;
		if (rh->count && mean.n && mean.median > 0) {
			share_r = 100.0 * rpt * dut_hist_mean(rh) / mean.median;
			snprintf(reads, sizeof(reads), "device reads: %s per transaction, p50 %.3f ms, p99 "
				 "%.3f ms; they can explain %.0f%% of the mean transaction time (%.2f ms)",
				 rundir_fmt_num(rpt, rpt < 0.1 ? 4 : 2, a, sizeof(a)),
				 dut_hist_percentile(rh, 50) / 1e6, dut_hist_percentile(rh, 99) / 1e6,
				 fmin(share_r, 100), mean.median / 1e6);
		} else {
			snprintf(reads, sizeof(reads), "device reads: %s per transaction%s",
				 rundir_fmt_num(rpt, 4, a, sizeof(a)), rh->count ? "" : " (none traced)");
			if (!rh->count)
				share_r = 0;
		}
		if (fh->count && p50.n && p50.median > 0) {
			/* with group commit one flush serves several commits, but each waits for one;
			 * a step with (almost) no flush per commit did not wait for them */
			bool waits = fpc >= WAL_WAIT_PER_COMMIT;

			share_w = 100.0 * (waits ? 1.0 : fpc) * (double)dut_hist_percentile(fh, 50) / p50.median;
			snprintf(wal, sizeof(wal), "WAL flushes: %.2f fsync per commit, p50 %.3f ms, p99 "
				 "%.3f ms, against a transaction latency p50 of %.3f ms (%s: %.0f%% of it)",
				 fpc, dut_hist_percentile(fh, 50) / 1e6, dut_hist_percentile(fh, 99) / 1e6,
				 p50.median / 1e6, waits ? "a commit waits for one flush" :
				 "commits rarely flushed", fmin(share_w, 100));
		} else {
			snprintf(wal, sizeof(wal), "WAL flushes: %s", fh->count ? "latency of the "
				 "transactions unknown" : "none traced in this step (no commit waited for one)");
			if (!fh->count)
				share_w = 0;
		}
		if (cut_s > 0) {
			size_t n = strlen(reads);

			snprintf(reads + n, sizeof(reads) - n, " (over the seconds the rotated trace kept: "
				 "its first %.0f s were removed, and their transactions are not counted)", cut_s);
		}
		dut_hist_free(rh);
		dut_hist_free(fh);
	}
	/*
	 * Three views of the read and WAL shares: the trace (the device below dutfs), the
	 * server's own timings (the syscalls: FUSE and queueing included) and the wait-event
	 * samples (the backends' wall time, waits for another backend's flush included).
	 * Each may miss part of the time, none counts time that is not there: the largest counts.
	 */
	{
		struct view rv[3] = { { share_r, "the trace" }, { -1, "blk_read_time" },
				      { sv.wait_read_pct, "the wait events" } };
		struct view wv[3] = { { share_w, "the trace" }, { -1, "wal_sync_time" },
				      { sv.wait_wal_pct, "the wait events" } };

		if (sv.blks_read_per_txn.n && sv.read_ms.n && mean.n && mean.median > 0)
			rv[1].v = 100.0 * sv.blks_read_per_txn.median * sv.read_ms.median * 1e6 / mean.median;
		if (sv.wal_sync_per_commit.n && sv.wal_sync_ms.n && p50.n && p50.median > 0) {
			double spc = sv.wal_sync_per_commit.median;

			wv[1].v = 100.0 * (spc >= WAL_WAIT_PER_COMMIT ? 1.0 : spc) * sv.wal_sync_ms.median * 1e6 /
				  p50.median;
		}
		src_r = view_pick(rv, &share_r);
		src_w = view_pick(wv, &share_w);
		views_text(rv, wv, views, sizeof(views));
	}
	/*
	 * PostgreSQL's time per read (the pread, from the backend) against the
	 * device's (the backing call dutfs timed): the difference was spent above
	 * the device, in the FUSE round trip, dutfs and waiting for a CPU.
	 */
	if (dev_read_ms > 0 && rpt >= 0.1 && sv.read_ms.n && sv.read_ms.median > 2 * dev_read_ms)
		snprintf(gap, sizeof(gap), "; PostgreSQL waited %.3f ms per read (blk_read_time) where the "
			 "device took %.3f ms (the trace's mean): %.0f%% of each read's time was spent above "
			 "the device (the FUSE round trip, dutfs, and waiting for a CPU), so a faster device "
			 "would shorten the reads by at most %.0f%%", sv.read_ms.median, dev_read_ms,
			 100.0 * (1 - dev_read_ms / sv.read_ms.median), 100.0 * dev_read_ms / sv.read_ms.median);
	if (in.n && ex.n && ex.median > 0) {
		share_c = 100.0 * (1.0 - in.median / ex.median);
		snprintf(conn, sizeof(conn), "connections: %.0f%% of the step's time (%s tx/s including "
			 "them)", share_c, rundir_fmt_num(in.median, 1, a, sizeof(a)));
	} else {
		snprintf(conn, sizeof(conn), "connections: not in the result documents");
	}
	if (share_r >= LIMIT_SHARE_PCT && share_r >= share_w && share_r >= share_c && share_r >= share_cpu)
		snprintf(limit, sizeof(limit), "limited by device reads (%.0f%% of the transaction time, from "
			 "%s)", fmin(share_r, 100), src_r);
	else if (share_w >= LIMIT_SHARE_PCT && share_w >= share_c && share_w >= share_cpu)
		snprintf(limit, sizeof(limit), "limited by WAL flushes (%.0f%% of the transaction time, from "
			 "%s)", fmin(share_w, 100), src_w);
	else if (share_cpu >= LIMIT_SHARE_PCT && share_cpu >= share_c)
		snprintf(limit, sizeof(limit), "limited by CPU (server and client CPU explain %.0f%% of the "
			 "transaction time)", fmin(share_cpu, 100));
	else if (share_c >= LIMIT_SHARE_PCT)
		snprintf(limit, sizeof(limit), "limited by connection set-up (%.0f%% of the step's time)",
			 fmin(share_c, 100));
	else if ((share_r < 0 || share_w < 0) && share_cpu < 0)
		snprintf(limit, sizeof(limit), "what limited it is not shown: the evidence is missing");
	else if (share_cpu < 0)
		snprintf(limit, sizeof(limit), "not limited by the device reads or WAL flushes the run "
			 "saw (%.0f%% and %.0f%% of the transaction time): the rest is CPU, locks or the "
			 "client, and CPU was not measured", fmin(share_r, 100), fmin(share_w, 100));
	else if (share_r < 0 || share_w < 0)
		snprintf(limit, sizeof(limit), "not limited by CPU (%.0f%% of the transaction time); "
			 "the %s not measured", fmin(share_cpu, 100), share_r < 0 && share_w < 0 ?
			 "device reads and WAL flushes were" : share_r < 0 ? "device reads were" : "WAL flushes were");
	else if (sv.other_waits[0])
		snprintf(limit, sizeof(limit), "not limited by the reads, WAL flushes or CPU the run "
			 "measured (%.0f%%, %.0f%% and %.0f%% of the transaction time): the rest is waits, "
			 "the largest %s of the backends' samples", fmin(share_r, 100),
			 fmin(share_w, 100), fmin(share_cpu, 100), sv.other_waits);
	else
		snprintf(limit, sizeof(limit), "not limited by the reads, WAL flushes or CPU the run "
			 "measured (%.0f%%, %.0f%% and %.0f%% of the transaction time): the rest is waits "
			 "(locks, the client; see the wait events below)", fmin(share_r, 100),
			 fmin(share_w, 100), fmin(share_cpu, 100));
	/* the transactions' limit is not the step's when connecting took most of it */
	if (share_c >= LIMIT_SHARE_PCT && strncmp(limit, "limited by connection", 21) != 0) {
		size_t l = strlen(limit);

		snprintf(limit + l, sizeof(limit) - l, "; besides, connection set-up took %.0f%% of the "
			 "step's time (%s tx/s including it)", fmin(share_c, 100),
			 rundir_fmt_num(in.median, 1, a, sizeof(a)));
	}
	if (rpt >= 0 && rpt < FIND_MEMORY_READS_PER_TX) {
		size_t l = strlen(limit);

		snprintf(limit + l, sizeof(limit) - l, "; memory served its reads, the device was "
			 "barely read (see What this run did not measure)");
	}
	rdoc_item(d, "%s, step %s (%s tx/s): %s. Evidence: %s; %s%s%s; %s%s%s%s.",
		  c->name, step, rundir_fmt_num(tps.median, 1, a, sizeof(a)), limit, reads,
		  wal, *wal ? "; " : "", conn, cpu, *views ? "; " : "", views, gap);
	if (sv.ndocs)
		rdoc_item(d, "%s, step %s, from the server: %s.", c->name, step, srvtext);
	answer_bursts_item(d, c, step);
}

/* pgload restore: each phase's verdict (CPU-bound or I/O-bound, from its CPU and wall time). */
/*
 * A restore step: what each phase waited on (pgload restore's verdict from
 * its CPU time, pressure and run queue), and how much of what the server
 * wrote reached the device while the restore ran (the trace between the
 * step's markers): writes left in the page cache cost the restore nothing.
 */
void answer_why_restore(struct rdoc *d, const struct rundir_config *c, const char *step)
{
	const struct dut_result *docs[1];
	struct cmp_stat total = rundir_duration(c, step, "total");
	struct cmp_stat wrote = rundir_metric(c, step, "total", "server_wchar_bytes");
	const char *mark = rundir_step_mark(c, step);
	struct rundir_io_mix mix = { 0 };
	char a[32], b[32];

	if (!rundir_config_docs(c, step, docs, 1))
		return;
	for (size_t p = 0; p < dut_result_phase_count(docs[0]); p++) {
		struct dut_result_phase *ph = dut_result_phase_at(docs[0], p);
		json_object *x = dut_phase_extra(ph);
		const char *pn = dut_phase_name(ph);
		const char *bound = json_object_get_string(rundir_jget(x, "bound"));
		const char *why = json_object_get_string(rundir_jget(x, "bound_reason"));
		const char *v = json_object_get_string(rundir_jget(x, "verdict"));
		struct cmp_stat t = rundir_duration(c, step, pn);
		char share[48] = "";

		if (!bound && !v)
			continue;
		if (t.n && total.n && total.median > 0 && strcmp(pn, "total") != 0)
			snprintf(share, sizeof(share), ", %.0f%% of the restore", 100 * t.median / total.median);
		if (bound)
			rdoc_item(d, "%s, step %s, phase %s (%s s%s): %s (%s; pgload restore's verdict from the "
				  "phase's CPU time and the whole machine's pressure stalls and run queue, first "
				  "repetition).", c->name,
				  step, pn, t.n ? rundir_fmt_num(t.median, 2, a, sizeof(a)) : "-", share, bound,
				  why && *why ? why : "no evidence recorded");
		else
			rdoc_item(d, "%s, step %s, phase %s: %s (pgload restore's verdict from the phase's "
				  "server CPU time against its wall time, first repetition).", c->name, step, pn, v);
	}
	if (mark)
		rundir_io_mix_of(c, mark, &mix);
	if (wrote.n && wrote.median > 0 && mix.ntraced)
		rdoc_item(d, "%s, step %s: the server wrote %s MiB (write(2) of its processes); %s MiB of "
			  "writes reached the device through dutfs while the restore ran (the trace between the "
			  "step's markers): %s", c->name, step, rundir_fmt_num(wrote.median / MIB, 1, a, sizeof(a)),
			  rundir_fmt_num((double)mix.total.bytes[REP_WRITE] / MIB, 1, b, sizeof(b)),
			  (double)mix.total.bytes[REP_WRITE] < 0.5 * wrote.median
				  ? "most of it stayed in the page cache and was written after the restore, so "
				    "the restore's time says little about the device's write speed."
				  : "most of it reached the device during the restore, so the device's write speed "
				    "is part of the restore's time.");

}
