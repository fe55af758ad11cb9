/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The answer section of a run directory's report (pure): what the experiment
 * asked, the device and the memory the server had, the headline figure of
 * each step per configuration, why (what limited each OLTP step, the
 * restore verdicts, from the evidence in the run directory), and the trap
 * findings: what the run did not measure.
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
#include "tools/compare.h"
#include "tools/report_answer.h"
#include "tools/report_answer_bursts.h"
#include "tools/report_answer_dss.h"
#include "tools/report_answer_fill.h"
#include "tools/report_answer_head.h"
#include "tools/report_run_steps.h"
#include "tools/report_answer_srv.h"
#include "tools/run_stats.h"

#define MIB (1024.0 * 1024.0)

/* ---- the answer: what the experiment asked, the numbers, and why ---- */

/* Median of the mean transaction latency (ns) over a configuration's documents of a step. */
static struct cmp_stat txn_mean(const struct run_config *c, const char *step)
{
	const struct dut_result *docs[RUN_MAX_DOCS];
	size_t nd = run_config_docs(c, step, docs, RUN_MAX_DOCS);
	double v[RUN_MAX_DOCS];
	unsigned n = 0;

	for (size_t i = 0; i < nd; i++) {
		struct dut_result_phase *ph = dut_result_find_phase(docs[i], "run");
		struct dut_hist_summary s;

		if (ph && dut_phase_get_latency(ph, "txn", &s) == 0 && s.count)
			v[n++] = s.mean;
	}
	return cmp_stat_of(v, n);
}

/* Median over a configuration's documents of a step of the sum of their phases' durations (s). */
static struct cmp_stat all_phases_s(const struct run_config *c, const char *step)
{
	const struct dut_result *docs[RUN_MAX_DOCS];
	size_t nd = run_config_docs(c, step, docs, RUN_MAX_DOCS);
	double v[RUN_MAX_DOCS];
	unsigned n = 0;

	for (size_t i = 0; i < nd; i++) {
		uint64_t ns, sum = 0;

		for (size_t p = 0; p < dut_result_phase_count(docs[i]); p++)
			if (dut_phase_get_duration(dut_result_phase_at(docs[i], p), &ns) == 0)
				sum += ns;
		if (sum)
			v[n++] = (double)sum / 1e9;
	}
	return cmp_stat_of(v, n);
}

static void answer_row(struct rdoc *d, const char *cfg, const char *step, const char *what,
		       const struct cmp_stat *s, double scale, int dec, const struct cmp_stat *base)
{
	char a[64], b[64];
	double ratio;

	if (!s->n)
		return;
	rdoc_cell(d, "%s", cfg);
	rdoc_cell(d, "%s", step);
	rdoc_cell(d, "%s", what);
	rdoc_cell(d, "%s", run_fmt_median(s, scale, dec, a, sizeof(a)));
	rdoc_cell(d, "%s", run_fmt_range(s, scale, dec, b, sizeof(b)));
	rdoc_cell(d, "%u", s->n);
	if (base && cmp_ratio(s, base, &ratio))
		rdoc_cell(d, "%.2fx", ratio);
	else
		rdoc_cell(d, "-");
}

/*
 * The write-cache rows of one slc pass: MiB written before the first fall
 * (the median over the documents that found one), or "none found" with the
 * pass's median level when no document of the pass found a knee.  A pass
 * that no document has (no idle wait) gives no row.
 */
static void slc_rows(struct rdoc *d, const struct run_config *c, const char *st, const char *phase,
		     const char *what)
{
	const struct dut_result *sd[RUN_MAX_DOCS];
	size_t nd = run_config_docs(c, st, sd, RUN_MAX_DOCS), have = 0;
	double vals[RUN_MAX_DOCS], lvl[RUN_MAX_DOCS];
	unsigned n = 0, nl = 0;
	struct cmp_stat v, l;
	char a[64];

	for (size_t k = 0; k < nd; k++) {
		struct dut_result_phase *ph = dut_result_find_phase(sd[k], phase);
		json_object *ex = ph ? dut_phase_extra(ph) : NULL;
		json_object *knees = ex ? run_jget(ex, "knees") : NULL;
		double med = ph ? report_slc_level(ph) : 0;

		if (!ph)
			continue;
		have++;
		if (med > 0)
			lvl[nl++] = med;
		for (size_t j = 0; knees && j < json_object_array_length(knees); j++) {
			json_object *kn = json_object_array_get_idx(knees, j);

			if (json_object_get_double(run_jget(kn, "rel_change")) < 0) {
				vals[n++] = json_object_get_double(run_knee_bytes(kn));
				break;
			}
		}
	}
	if (!have)
		return;
	v = cmp_stat_of(vals, n);
	if (v.n) {
		answer_row(d, c->name, st, what, &v, 1 / MIB, 0, NULL);
		return;
	}
	l = cmp_stat_of(lvl, nl);
	rdoc_cell(d, "%s", c->name);
	rdoc_cell(d, "%s", st);
	rdoc_cell(d, "%s", what);
	if (l.n)
		rdoc_cell(d, "none found (one level, %s MB/s)", run_fmt_median(&l, 1e-6, 0, a, sizeof(a)));
	else
		rdoc_cell(d, "none found");
	rdoc_cell(d, "-");
	rdoc_cell(d, "%zu", have);
	rdoc_cell(d, "-");
}

/* The DSS m-time of every configuration (NULL when not comparable). */
static struct cmp *dss_cmp(const struct run_model *m, const char *step)
{
	const struct dut_result *docs[CMP_MAX_INPUTS][RUN_MAX_DOCS];
	struct cmp_input in[CMP_MAX_INPUTS];
	struct cmp_opts o = { .baseline = 0 };
	struct dut_error err = { { 0 } };
	struct cmp *cmp = NULL;
	size_t n = 0;

	for (size_t i = 0; i < m->nconfigs && n < CMP_MAX_INPUTS; i++) {
		in[n] = (struct cmp_input){ .source = m->configs[i].name,
					    .docs = (struct dut_result *const *)docs[n] };
		in[n].ndocs = run_config_docs(&m->configs[i], step, docs[n], RUN_MAX_DOCS);
		n += in[n].ndocs > 0;
	}
	if (n == 1)
		in[n++] = in[0];   /* one configuration: against itself, for its m-time */
	if (n < 2 || cmp_build(in, n, &o, &cmp, &err) < 0)
		return NULL;
	return cmp;
}

static void answer_numbers(struct rdoc *d, const struct run_model *m, const struct run_stepinfo *steps,
			   size_t nsteps)
{
	rdoc_table(d, "The answer in numbers: the headline figure of each step per configuration, its "
		   "median over the runs, the min-max range of the runs, and its ratio to the first "
		   "configuration.", "configuration|step|figure|>median|>min-max|>runs|>vs first");
	for (size_t s = 0; s < nsteps; s++) {
		const char *st = steps[s].name;
		struct cmp *cmp = steps[s].kind == DOC_DSS ? dss_cmp(m, st) : NULL;

		for (size_t i = 0; i < m->nconfigs; i++) {
			const struct run_config *c = &m->configs[i], *b = &m->configs[0];
			const struct dut_result *docs[1];
			struct cmp_stat v, base;

			switch (steps[s].kind) {
			case DOC_OLTP:
				v = run_metric(c, st, "run", "tps");
				base = run_metric(b, st, "run", "tps");
				answer_row(d, c->name, st, "TPS (tx/s)", &v, 1, 1, &base);
				if (c->replica[0] && strcmp(c->replica, "none") != 0) {
					/* what the replica cost besides TPS: how far behind it ran */
					v = run_metric(c, st, "run", "replay_lag_ms_p99");
					answer_row(d, c->name, st, "standby replay lag p99 (ms)", &v, 1, 2, NULL);
				}
				break;
			case DOC_RESTORE:
				v = run_duration(c, st, "total");
				base = run_duration(b, st, "total");
				answer_row(d, c->name, st, "restore time (s)", &v, 1, 2, &base);
				break;
			case DOC_OLTP_INIT:
				/* the COPY phase only: the run summary's step time adds the
				 * table creation, VACUUM and index builds */
				v = run_duration(c, st, "init/load");
				base = run_duration(b, st, "init/load");
				answer_row(d, c->name, st, "COPY load phase of pgload init (init/load, s)",
					   &v, 1, 2, &base);
				v = all_phases_s(c, st);
				base = all_phases_s(b, st);
				answer_row(d, c->name, st, "pgload init, all phases (s)", &v, 1, 2, &base);
				break;
			case DOC_DSS:
				for (size_t k = 0; cmp && k < cmp->ninputs; k++)
					if (strcmp(cmp->inputs[k].source, c->name) == 0 && cmp->sum[k].m_defined) {
						struct cmp_stat mt = { .n = 1, .median = cmp->sum[k].m_time_s,
								       .min = cmp->sum[k].m_time_s,
								       .max = cmp->sum[k].m_time_s };
						struct cmp_stat bt = { .n = 1, .median = cmp->sum[0].m_time_s };

						answer_row(d, c->name, st, "m-time, queries plan-stable in every configuration (s)", &mt, 1, 3,
							   cmp->sum[0].m_defined ? &bt : NULL);
						break;
					}
				break;
			case DOC_PROBE_BENCH:
				if (!run_config_docs(c, st, docs, 1))
					break;
				for (size_t p = 0; p < dut_result_phase_count(docs[0]); p++) {
					const char *pn = dut_phase_name(dut_result_phase_at(docs[0], p));
					bool seq = strncmp(pn, "SEQ", 3) == 0;
					char what[96];

					v = run_metric(c, st, pn, seq ? "bw" : "iops");
					base = run_metric(b, st, pn, seq ? "bw" : "iops");
					snprintf(what, sizeof(what), "%s (%s)", pn, seq ? "MB/s" : "IOPS");
					answer_row(d, c->name, st, what, &v, seq ? 1e-6 : 1, 0, &base);
				}
				break;
			case DOC_PROBE_SLC:
				slc_rows(d, c, st, "write", "write cache (MiB written before the fall)");
				slc_rows(d, c, st, "write_after_idle",
					 "write cache after the idle wait (MiB written before the fall)");
				break;
			case DOC_PROBE_FILL:
				if (!run_config_docs(c, st, docs, 1))
					break;
				/* every fill level at every queue depth: the fall with fill is the answer */
				for (int q = 1; q <= 1024; q *= 2) {
					char name[32], what[96];

					snprintf(name, sizeof(name), "iops_qd%d", q);
					for (size_t p = 0; p < dut_result_phase_count(docs[0]); p++) {
						const char *pn = dut_phase_name(dut_result_phase_at(docs[0], p));

						if (strncmp(pn, "level_", 6) != 0)
							continue;
						v = run_metric(c, st, pn, name);
						base = run_metric(b, st, pn, name);
						snprintf(what, sizeof(what), "random-write IOPS at QD %d, fill %s", q, pn + 6);
						answer_row(d, c->name, st, what, &v, 1, 0, &base);
					}
				}
				break;
			case DOC_CRASH: {
				/* a damaged state with fsync honoured is the finding; a control that saw
				 * nothing means the clean figure proves nothing */
				static const struct { const char *metric, *what; int dec; } rows[] = {
					{ "regular_damaged", "crash states damaged with fsync honoured", 0 },
					{ "commits_lost", "acknowledged commits lost after crashes", 0 },
					{ "fpw_off_detected", "full_page_writes=off control states that saw damage", 0 },
					{ "fsync_off_detected", "fsync=off control states that saw damage", 0 },
					{ "states_per_minute", "crash states per minute", 1 },
				};

				for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
					v = run_metric(c, st, "campaign", rows[k].metric);
					answer_row(d, c->name, st, rows[k].what, &v, 1, rows[k].dec, NULL);
				}
				break;
			}
			case DOC_PROBE_IDENTIFY:
			case DOC_OTHER:
				break;
			}
		}
		cmp_free(cmp);
	}
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
static void answer_why_oltp(struct rdoc *d, const struct run_config *c, const char *step)
{
	const char *mark = run_step_mark(c, step);
	struct cmp_stat tps = run_metric(c, step, "run", "tps");
	struct cmp_stat tx = run_metric(c, step, "run", "committed");
	struct cmp_stat mean = txn_mean(c, step);
	struct cmp_stat p50 = run_latency(c, step, "run", "txn", "p50");
	struct cmp_stat in = run_metric(c, step, "run", "tps_including_connections");
	struct cmp_stat ex = run_metric(c, step, "run", "tps_excluding_connections");
	char reads[400] = "", wal[400] = "", conn[200], limit[400], a[32], cpu[400], srvtext[1200];
	double share_r = -1, share_w = -1, share_c = -1, share_cpu = -1, rpt = -1;
	const char *src_r = "", *src_w = "";
	char views[300] = "", gap[400] = "";
	double dev_read_ms = -1;       /* the trace's mean read latency (below dutfs) */
	struct run_io_mix mix = { 0 };
	struct answer_srv sv;

	if (!tps.n)
		return;
	answer_srv_of(c, step, &sv);
	answer_srv_cpu_text(&sv, cpu, sizeof(cpu));
	answer_srv_text(&sv, srvtext, sizeof(srvtext));
	if (sv.cpu_share_pct.n)
		share_cpu = sv.cpu_share_pct.median;
	if (mark)
		run_io_mix_of(c, mark, &mix);
	if (!mix.ntraced || !tx.n || tx.median <= 0 || !run_traced_transactions(c, step, mark)) {
		struct run_io_mix whole;

		run_io_mix_of(c, NULL, &whole);
		snprintf(reads, sizeof(reads), "device reads and WAL flushes: unknown (%s)",
			 whole.ntraced ? "the traces have no marker of this step" :
			 strcmp(c->view, "off") == 0 ? "no trace: view off" : "no trace of this step");
	} else {
		struct dut_hist *rh = dut_hist_new(), *fh = dut_hist_new();
		/* every run of the step in the traced repetitions: a step with
		 * repeat = N has N runs inside one marker of the trace */
		double txs = (double)run_traced_transactions(c, step, mark);
		rpt = (double)mix.total.ops[REP_READ] / txs;
		double fpc = (double)mix.cls[RC_WAL].fsyncs / txs;

		if (!rh || !fh) {
			dut_hist_free(rh);
			dut_hist_free(fh);
			d->oom = true;
			return;
		}
		run_io_lat_of(c, mark, RC_COUNT, REP_READ, rh);
		run_io_lat_of(c, mark, RC_WAL, 2, fh);
		if (rh->count)
			dev_read_ms = dut_hist_mean(rh) / 1e6;
		if (rh->count && mean.n && mean.median > 0) {
			share_r = 100.0 * rpt * dut_hist_mean(rh) / mean.median;
			snprintf(reads, sizeof(reads), "device reads: %s per transaction, p50 %.3f ms, p99 "
				 "%.3f ms; they can explain %.0f%% of the mean transaction time (%.2f ms)",
				 run_fmt_num(rpt, rpt < 0.1 ? 4 : 2, a, sizeof(a)),
				 dut_hist_percentile(rh, 50) / 1e6, dut_hist_percentile(rh, 99) / 1e6,
				 fmin(share_r, 100), mean.median / 1e6);
		} else {
			snprintf(reads, sizeof(reads), "device reads: %s per transaction%s",
				 run_fmt_num(rpt, 4, a, sizeof(a)), rh->count ? "" : " (none traced)");
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
			 "them)", share_c, run_fmt_num(in.median, 1, a, sizeof(a)));
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
			 run_fmt_num(in.median, 1, a, sizeof(a)));
	}
	if (rpt >= 0 && rpt < FIND_MEMORY_READS_PER_TX) {
		size_t l = strlen(limit);

		snprintf(limit + l, sizeof(limit) - l, "; memory served its reads, the device was "
			 "barely read (see What this run did not measure)");
	}
	rdoc_item(d, "%s, step %s (%s tx/s): %s. Evidence: %s; %s%s%s; %s%s%s%s.",
		  c->name, step, run_fmt_num(tps.median, 1, a, sizeof(a)), limit, reads,
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
static void answer_why_restore(struct rdoc *d, const struct run_config *c, const char *step)
{
	const struct dut_result *docs[1];
	struct cmp_stat total = run_duration(c, step, "total");
	struct cmp_stat wrote = run_metric(c, step, "total", "server_wchar_bytes");
	const char *mark = run_step_mark(c, step);
	struct run_io_mix mix = { 0 };
	char a[32], b[32];

	if (!run_config_docs(c, step, docs, 1))
		return;
	for (size_t p = 0; p < dut_result_phase_count(docs[0]); p++) {
		struct dut_result_phase *ph = dut_result_phase_at(docs[0], p);
		json_object *x = dut_phase_extra(ph);
		const char *pn = dut_phase_name(ph);
		const char *bound = json_object_get_string(run_jget(x, "bound"));
		const char *why = json_object_get_string(run_jget(x, "bound_reason"));
		const char *v = json_object_get_string(run_jget(x, "verdict"));
		struct cmp_stat t = run_duration(c, step, pn);
		char share[48] = "";

		if (!bound && !v)
			continue;
		if (t.n && total.n && total.median > 0 && strcmp(pn, "total") != 0)
			snprintf(share, sizeof(share), ", %.0f%% of the restore", 100 * t.median / total.median);
		if (bound)
			rdoc_item(d, "%s, step %s, phase %s (%s s%s): %s (%s; pgload restore's verdict from the "
				  "phase's CPU time and the whole machine's pressure stalls and run queue, first "
				  "repetition).", c->name,
				  step, pn, t.n ? run_fmt_num(t.median, 2, a, sizeof(a)) : "-", share, bound,
				  why && *why ? why : "no evidence recorded");
		else
			rdoc_item(d, "%s, step %s, phase %s: %s (pgload restore's verdict from the phase's "
				  "server CPU time against its wall time, first repetition).", c->name, step, pn, v);
	}
	if (mark)
		run_io_mix_of(c, mark, &mix);
	if (wrote.n && wrote.median > 0 && mix.ntraced)
		rdoc_item(d, "%s, step %s: the server wrote %s MiB (write(2) of its processes); %s MiB of "
			  "writes reached the device through dutfs while the restore ran (the trace between the "
			  "step's markers): %s", c->name, step, run_fmt_num(wrote.median / MIB, 1, a, sizeof(a)),
			  run_fmt_num((double)mix.total.bytes[REP_WRITE] / MIB, 1, b, sizeof(b)),
			  (double)mix.total.bytes[REP_WRITE] < 0.5 * wrote.median
				  ? "most of it stayed in the page cache and was written after the restore, so "
				    "the restore's time says little about the device's write speed."
				  : "most of it reached the device during the restore, so the device's write speed "
				    "is part of the restore's time.");

}

void report_answer_section(struct rdoc *d, const struct run_model *m, const struct findings *f,
			   const struct run_stepinfo *steps, size_t nsteps)
{
	size_t ntraps = 0, nwhy = 0;

	rdoc_heading(d, 2, "Answer");
	if (m->description && m->description[0])
		rdoc_para(d, "Asked: %s (experiment %s).", m->description, m->name);
	else
		rdoc_para(d, "Asked: experiment %s (the manifest has no description).", m->name);
	answer_target(d, m, steps, nsteps);
	answer_memory(d, m, steps, nsteps);
	for (size_t s = 0; s < nsteps; s++)
		if (steps[s].kind != DOC_OTHER && steps[s].kind != DOC_PROBE_IDENTIFY) {
			answer_numbers(d, m, steps, nsteps);
			break;
		} else if (s + 1 == nsteps) {
			rdoc_para(d, "No step of this run has a headline figure (no result document of a "
				  "measuring step was read).");
		}
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < f->n; i++)
			if (f->v[i].kind == (k ? FIND_DSS_PLANS : FIND_TPS_RATIO) && !f->v[i].shown &&
			    (k == 0 || !isnan(f->v[i].value[2]))) {
				rdoc_para(d, "No %s difference between configurations is shown by this run: see "
					  "the findings for why (one repetition, overlapping ranges, or "
					  "configurations run one after another).", k ? "DSS m-time" : "TPS");
				break;
			}
	rdoc_para(d, "Why, per configuration and step, from the evidence in the run directory:");
	rdoc_list(d);
	for (size_t s = 0; s < nsteps; s++) {
		if (steps[s].kind == DOC_DSS) {
			struct cmp *cmp = dss_cmp(m, steps[s].name);

			nwhy += answer_why_dss(d, m, steps[s].name, cmp);
			cmp_free(cmp);
		}
		for (size_t i = 0; i < m->nconfigs; i++) {
			size_t before = d->n ? d->b[d->n - 1].nitems : 0;

			if (steps[s].kind == DOC_OLTP)
				answer_why_oltp(d, &m->configs[i], steps[s].name);
			else if (steps[s].kind == DOC_RESTORE)
				answer_why_restore(d, &m->configs[i], steps[s].name);
			else if (steps[s].kind == DOC_PROBE_FILL)
				answer_why_fill(d, &m->configs[i], steps[s].name);
			nwhy += d->b[d->n - 1].nitems - before;
		}
	}
	if (!nwhy)
		rdoc_item(d, "no step of this run has the evidence the report explains from (OLTP steps "
			  "with a trace, restore verdicts, DSS phases, fill levels); the numbers above stand "
			  "alone.");
	answer_bursts_table(d, m, steps, nsteps);
	for (size_t i = 0; i < f->n; i++)
		ntraps += f->v[i].trap;
	if (ntraps) {
		rdoc_para(d, "What this run did not measure (%zu trap finding%s; each says how to fix it):",
			  ntraps, ntraps == 1 ? "" : "s");
		rdoc_list(d);
		for (size_t i = 0; i < f->n; i++)
			if (f->v[i].trap)
				rdoc_item(d, "%s.", f->v[i].text);
	}
}
