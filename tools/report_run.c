/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The report of a run directory as a document (pure): facts, findings, tables, charts. */
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
#include "tools/report_buf.h"
#include "tools/report_doc.h"
#include "tools/report_run_steps.h"
#include "tools/run_stats.h"

#define MIB (1024.0 * 1024.0)
#define SPREAD_NOTE "Values are medians over the runs of each configuration (runs: its result " \
	"documents, one per repetition, or one per repeat of a step); the spread is the min-max " \
	"range of those runs (not an IQR)."

static void charts_of(struct rdoc *d, const struct charts *cs, const char *step)
{
	char p[320];

	for (size_t i = 0; cs && i < cs->n; i++) {
		const struct chart *c = &cs->v[i];

		if (strcmp(c->step, step) != 0)
			continue;
		if (c->rendered) {
			snprintf(p, sizeof(p), "charts/%s.png", c->name);
			rdoc_image(d, p, c->title);
		} else {
			rdoc_para(d, "Chart not rendered: %s (%s).", c->title,
				  c->why_not ? c->why_not : "charts were not drawn");
		}
	}
}

/* ---- the head: what ran ---- */

/* A step status that produced what the step measures ("ok"; "complete" in older manifests). */
static bool step_done(const struct run_step *s)
{
	return strcmp(s->status, "ok") == 0 || strcmp(s->status, "complete") == 0;
}

/*
 * A run that did not complete (interrupted, failed, still running): which
 * steps of each repetition completed and which did not, so the partial
 * report says what its tables hold.
 */
static void steps_done(struct rdoc *d, const struct run_model *m)
{
	if (strcmp(m->status, "interrupted") == 0)
		rdoc_item(d, "the run was interrupted (Ctrl-C or a signal) and torn down; this report holds what "
			  "completed before that");
	for (size_t i = 0; i < m->nconfigs; i++)
		for (size_t r = 0; r < m->configs[i].nreps; r++) {
			const struct run_rep *rp = &m->configs[i].reps[r];
			struct rbuf ok = { 0 }, not = { 0 };

			for (size_t k = 0; k < rp->nsteps; k++) {
				const struct run_step *st = &rp->steps[k];
				struct rbuf *b = step_done(st) ? &ok : &not;

				rbuf_printf(b, "%s%s", b->len ? ", " : "", st->name);
				if (!step_done(st))
					rbuf_printf(b, " (%s)", st->status[0] ? st->status : "?");
			}
			rdoc_item(d, "%s rep %u (%s): steps completed: %s; not completed: %s", m->configs[i].name,
				  rp->rep, rp->status, ok.len ? ok.s : "none", not.len ? not.s : "none");
			d->oom |= ok.oom || not.oom;
			rbuf_free(&ok);
			rbuf_free(&not);
		}
}

/*
 * The view of a configuration: its dutfs view where a repetition had a
 * dutfs mount, "no dutfs" where none had (a run of dutprobe steps only, or
 * view off).  Older manifests do not record the mounts: then the view as
 * configured.
 */
static const char *config_view(const struct run_config *c)
{
	bool known = false;

	for (size_t r = 0; r < c->nreps; r++) {
		if (c->reps[r].dutfs_mounts > 0)
			return c->view[0] ? c->view : "-";
		known |= c->reps[r].dutfs_mounts == 0;
	}
	return known ? "no dutfs" : c->view[0] ? c->view : "-";
}

/*
 * The filesystem the data went on: the one the run made ("ext4-ordered
 * (ext4)"), or with filesystem none the one the target already had ("ext4,
 * the target's own"), as the manifest recorded it from mountinfo; "none
 * (raw)" for an image or device used without one.  A manifest from before
 * the record says "the target's own (not recorded)", not "none".
 */
static void config_filesystem(const struct run_config *c, char *buf, size_t n)
{
	const char *seen = "";
	bool none = !c->filesystem[0] || strcmp(c->filesystem, "none") == 0, recorded = false;

	for (size_t r = 0; r < c->nreps; r++) {
		recorded |= c->reps[r].dutfs_mounts >= 0;
		if (!*seen && c->reps[r].filesystems && c->reps[r].filesystems[0])
			seen = c->reps[r].filesystems;
	}
	if (!c->filesystem[0] && !*seen)
		snprintf(buf, n, "-");          /* the manifest says nothing */
	else if (none && *seen)
		snprintf(buf, n, "%s, the target's own", seen);
	else if (none && recorded)
		snprintf(buf, n, "none (raw)");
	else if (none)
		snprintf(buf, n, "the target's own (not recorded)");
	else if (*seen)
		snprintf(buf, n, "%s (%s)", c->filesystem, seen);
	else
		snprintf(buf, n, "%s", c->filesystem);
}

/* Under the Configurations table: the PostgreSQL of the configurations that had
 * a cluster (manifest "postgres"), one line when they all ran the same. */
/* ", 16 kB blocks" when not PostgreSQL's default 8 kB (and the WAL's likewise); "" */
static void blocks_text(const struct run_config *c, char *buf, size_t n)
{
	size_t used = 0;

	buf[0] = 0;
	if (c->pg_block_kb && c->pg_block_kb != 8)
		used = (size_t)snprintf(buf, n, ", %u kB blocks", c->pg_block_kb);
	if (c->pg_wal_block_kb && c->pg_wal_block_kb != 8 && used < n)
		snprintf(buf + used, n - used, ", %u kB WAL blocks", c->pg_wal_block_kb);
}

static void postgres_line(struct rdoc *d, const struct run_model *m)
{
	char bl[64];
	const struct run_config *first = NULL;
	bool same = true;

	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct run_config *c = &m->configs[i];

		if (!c->pg_version || !c->pg_version[0])
			continue;
		if (!first)
			first = c;
		same &= strcmp(c->pg_version, first->pg_version) == 0 && strcmp(c->pg_bindir, first->pg_bindir) == 0 &&
			c->pg_block_kb == first->pg_block_kb && c->pg_wal_block_kb == first->pg_wal_block_kb;
	}
	if (!first)
		return;
	if (same) {
		blocks_text(first, bl, sizeof(bl));
		rdoc_para(d, "PostgreSQL: %s, from %s%s.", first->pg_version, first->pg_bindir, bl);
		return;
	}
	rdoc_para(d, "PostgreSQL per configuration:");
	rdoc_list(d);
	for (size_t i = 0; i < m->nconfigs; i++) {
		if (!m->configs[i].pg_version || !m->configs[i].pg_version[0])
			continue;
		blocks_text(&m->configs[i], bl, sizeof(bl));
		rdoc_item(d, "%u %s: %s, from %s%s", m->configs[i].index, m->configs[i].name,
			  m->configs[i].pg_version, m->configs[i].pg_bindir, bl);
	}
}

static void facts(struct rdoc *d, const struct run_model *m)
{
	char mem[32];

	rdoc_heading(d, 2, "Run");
	rdoc_list(d);
	rdoc_item(d, "run directory: %s", m->dir[0] ? m->dir : "(not given)");
	rdoc_item(d, "status: %s; started %s, finished %s", m->status,
		  m->started_at[0] ? m->started_at : "?", m->finished_at[0] ? m->finished_at : "not yet");
	rdoc_item(d, "experiment: %s; %u repetition%s per configuration",
		  m->source[0] ? m->source : "?", m->repetitions, m->repetitions == 1 ? "" : "s");
	if (strcmp(m->status, "complete") != 0)
		steps_done(d, m);
	if (m->have_host)
		rdoc_item(d, "host: %s, %s, %u CPUs, %s GiB memory, %s", m->host.hostname,
			  m->host.cpu_model, m->host.cpus,
			  run_fmt_num((double)m->host.mem_bytes / (MIB * 1024), 1, mem, sizeof(mem)), m->host.kernel);

	rdoc_heading(d, 2, "Configurations");
	rdoc_table(d, "", "#|configuration|status|>repetitions|view|filesystem|replica|reason");
	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct run_config *c = &m->configs[i];
		char fsbuf[160];
		unsigned ok = 0;

		for (size_t r = 0; r < c->nreps; r++)
			ok += strcmp(c->reps[r].status, "complete") == 0 || strcmp(c->reps[r].status, "ok") == 0;
		rdoc_cell(d, "%u", c->index);
		rdoc_cell(d, "%s", c->name);
		rdoc_cell(d, "%s", c->status);
		rdoc_cell(d, "%u of %zu complete", ok, c->nreps);
		rdoc_cell(d, "%s", config_view(c));
		config_filesystem(c, fsbuf, sizeof(fsbuf));
		rdoc_cell(d, "%s", fsbuf);
		rdoc_cell(d, "%s", c->replica[0] ? c->replica : "-");
		rdoc_cell(d, "%s", c->reason[0] ? c->reason : "");
	}
	postgres_line(d, m);
}

static void findings_section(struct rdoc *d, const struct run_model *m, const struct findings *f)
{
	rdoc_heading(d, 2, "Findings");
	if (!f->n) {
		rdoc_para(d, "No finding: the run has no data a finding is computed from "
			  "(OLTP TPS of two configurations, DSS plans, dutprobe rows, traces).");
	} else {
		rdoc_list(d);
		for (size_t i = 0; i < f->n; i++)
			rdoc_item(d, "%s.", f->v[i].text);
	}
	if (m->nnotes) {
		rdoc_para(d, "Not used in this report:");
		rdoc_list(d);
		for (size_t i = 0; i < m->nnotes; i++)
			rdoc_item(d, "%s", m->notes[i]);
	}
}

/* ---- per step kind ---- */

static void oltp_table(struct rdoc *d, const struct run_model *m, const char *step)
{
	struct cmp_stat base = run_metric(&m->configs[0], step, "run", "tps");

	rdoc_table(d, SPREAD_NOTE " TPS excludes the time the clients took to connect (pgbench's "
		   "\"without initial connection time\"); connection time = from the start until every client "
		   "was connected, and TPS including it beside.",
		   "configuration|>runs|>TPS (tx/s)|>TPS min-max (tx/s)|"
		   ">ratio to first|>latency p50 (ms)|>latency p99 (ms)|>p99 min-max (ms)|"
		   ">connection time (s)|>TPS incl. connections (tx/s)");
	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct run_config *c = &m->configs[i];
		struct cmp_stat tps = run_metric(c, step, "run", "tps");
		struct cmp_stat p50 = run_latency(c, step, "run", "txn", "p50");
		struct cmp_stat p99 = run_latency(c, step, "run", "txn", "p99");
		struct cmp_stat conn = run_metric(c, step, "run", "connection_time_total");
		struct cmp_stat incl = run_metric(c, step, "run", "tps_including_connections");
		char a[64];
		double ratio;

		if (!tps.n)
			continue;
		rdoc_cell(d, "%s", c->name);
		rdoc_cell(d, "%u", tps.n);
		rdoc_cell(d, "%s", run_fmt_median(&tps, 1, 1, a, sizeof(a)));
		rdoc_cell(d, "%s", run_fmt_range(&tps, 1, 1, a, sizeof(a)));
		if (cmp_ratio(&tps, &base, &ratio))
			rdoc_cell(d, "%.2fx", ratio);
		else
			rdoc_cell(d, "-");
		rdoc_cell(d, "%s", run_fmt_median(&p50, 1e-6, 2, a, sizeof(a)));
		rdoc_cell(d, "%s", run_fmt_median(&p99, 1e-6, 2, a, sizeof(a)));
		rdoc_cell(d, "%s", run_fmt_range(&p99, 1e-6, 2, a, sizeof(a)));
		rdoc_cell(d, "%s", run_fmt_median(&conn, 1e-9, 3, a, sizeof(a)));
		rdoc_cell(d, "%s", run_fmt_median(&incl, 1, 1, a, sizeof(a)));
	}
}

/* Phase durations of a step per configuration (pgload init, dss). */
static void phase_table(struct rdoc *d, const struct run_model *m, const char *step)
{
	rdoc_table(d, "Phase times. " SPREAD_NOTE, "configuration|phase|>runs|>time (s)|>min-max (s)");
	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct dut_result *docs[1];
		const struct run_config *c = &m->configs[i];

		if (!run_config_docs(c, step, docs, 1))
			continue;
		for (size_t p = 0; p < dut_result_phase_count(docs[0]); p++) {
			const char *pn = dut_phase_name(dut_result_phase_at(docs[0], p));
			struct cmp_stat t = run_duration(c, step, pn);
			char a[64];

			if (!t.n)
				continue;
			rdoc_cell(d, "%s", c->name);
			rdoc_cell(d, "%s", pn);
			rdoc_cell(d, "%u", t.n);
			rdoc_cell(d, "%s", run_fmt_median(&t, 1, 3, a, sizeof(a)));
			rdoc_cell(d, "%s", run_fmt_range(&t, 1, 3, a, sizeof(a)));
		}
	}
}

/* Per query: the median time in each configuration, plan marks, and whether it is in m-time. */
static void dss_queries(struct rdoc *d, const struct cmp *cmp)
{
	char head[1024] = "query|in m-time";
	size_t len = strlen(head);

	for (size_t i = 0; i < cmp->ninputs && len < sizeof(head); i++)
		len += (size_t)snprintf(head + len, sizeof(head) - len, "|>%s (s)", cmp->inputs[i].source);
	rdoc_table(d, "Query times: the median over the successful runs, in s; * = the plan differs "
		   "from the first configuration's, ! = a run timed out or failed, ? = the plan varied "
		   "between repetitions.", head);
	for (size_t k = 0; k < cmp->nqueries; k++) {
		const struct cmp_query *q = &cmp->queries[k];

		rdoc_cell(d, "Q%u %s", q->q, q->title);
		if (q->why == CMP_QUALIFIES)
			rdoc_cell(d, "yes");
		else
			rdoc_cell(d, "no: %s in %s", cmp_why_text(q->why), cmp->inputs[q->why_input].source);
		for (size_t i = 0; i < cmp->ninputs; i++) {
			const struct cmp_qcell *cl = &q->cell[i];
			char a[32];

			if (!cl->t_s.n)
				snprintf(a, sizeof(a), "-");
			else
				run_fmt_num(cl->t_s.median, 4, a, sizeof(a));
			rdoc_cell(d, "%s%s", a, cl->nfailed ? " !" : cl->plan_unstable ? " ?" :
				  cl->plan_differs ? " *" : "");
		}
	}
}

/* m-time per configuration against the first (tools/compare.c). */
static void dss_mtime(struct rdoc *d, const struct run_model *m, const char *step)
{
	const struct dut_result *docs[CMP_MAX_INPUTS][RUN_MAX_DOCS];
	struct cmp_input in[CMP_MAX_INPUTS];
	struct cmp_opts o = { .baseline = 0 };
	struct dut_error err = { { 0 } };
	struct cmp *cmp = NULL;
	size_t n = 0;
	int r;

	for (size_t i = 0; i < m->nconfigs && n < CMP_MAX_INPUTS; i++) {
		in[n] = (struct cmp_input){ .source = m->configs[i].name,
					    .docs = (struct dut_result *const *)docs[n] };
		in[n].ndocs = run_config_docs(&m->configs[i], step, docs[n], RUN_MAX_DOCS);
		n += in[n].ndocs > 0;
	}
	if (n < 2)
		return;
	r = cmp_build(in, n, &o, &cmp, &err);
	if (r < 0) {
		rdoc_para(d, "The configurations' DSS results are not compared: %s.",
			  r == -EINVAL ? err.msg : strerror(-r));
		return;
	}
	rdoc_table(d, "m-time: the total of the median times of the queries whose plan fingerprint is the "
		   "same in every configuration (and that succeeded everywhere); m-score: their geometric "
		   "mean; ratios against the first configuration.",
		   "configuration|>m-time (s)|>ratio|>m-score (s)|>total, all queries (s)|>queries in the total");
	for (size_t i = 0; i < n; i++) {
		const struct cmp_dss_sum *s = &cmp->sum[i];
		char a[32];

		rdoc_cell(d, "%s", in[i].source);
		rdoc_cell(d, "%s", s->m_defined ? run_fmt_num(s->m_time_s, 3, a, sizeof(a)) : "undefined");
		if (s->m_defined && cmp->sum[0].m_time_s > 0)
			rdoc_cell(d, "%.2fx", s->m_time_s / cmp->sum[0].m_time_s);
		else
			rdoc_cell(d, "-");
		rdoc_cell(d, "%s", s->m_defined ? run_fmt_num(s->m_score_s, 4, a, sizeof(a)) : "undefined");
		rdoc_cell(d, "%s", run_fmt_num(s->total_s, 3, a, sizeof(a)));
		rdoc_cell(d, "%u", s->nok);
	}
	{
		char legend[1024];
		size_t len = 0;

		for (size_t i = 0; i < n && len < sizeof(legend); i++)
			len += (size_t)snprintf(legend + len, sizeof(legend) - len, "%s%s = %s", i ? ", " : "",
						cmp->inputs[i].label, in[i].source);
		rdoc_para(d, "Configurations in the sentence below: %s.", legend);
	}
	rdoc_para(d, "%c%s.", cmp->explanation[0] >= 'a' && cmp->explanation[0] <= 'z' ?
		  cmp->explanation[0] - 'a' + 'A' : cmp->explanation[0], cmp->explanation + 1);
	dss_queries(d, cmp);
	cmp_free(cmp);
}

static bool iomix_table(struct rdoc *d, const struct run_config *c, const char *step);

static void step_section(struct rdoc *d, const struct run_model *m, const struct charts *cs,
			 const struct run_stepinfo *s)
{
	rdoc_heading(d, 2, "Step %s (%s)", s->name, run_doc_kind_name(s->kind));
	switch (s->kind) {
	case DOC_OLTP:
		oltp_table(d, m, s->name);
		report_replica_lag_table(d, m, s->name);
		break;
	case DOC_OLTP_INIT:
		phase_table(d, m, s->name);
		break;
	case DOC_DSS:
		phase_table(d, m, s->name);
		dss_mtime(d, m, s->name);
		break;
	case DOC_PROBE_BENCH:
		report_bench_table(d, m, s->name);
		break;
	case DOC_PROBE_SLC:
		report_slc_table(d, m, s->name);
		break;
	case DOC_PROBE_FILL:
		report_fill_table(d, m, s->name);
		break;
	case DOC_PROBE_IDENTIFY:
		report_identify_table(d, m, s->name);
		break;
	case DOC_RESTORE:
		report_restore_table(d, m, s->name);
		break;
	case DOC_CRASH:
		report_crash_table(d, m, s->name);
		break;
	case DOC_OTHER:
		rdoc_para(d, "No table for this step: its documents are of a kind the report does not "
			  "summarise (or none could be read); `dutlab compare` puts any result documents "
			  "side by side.");
		break;
	}
	for (size_t i = 0; i < m->nconfigs; i++)
		iomix_table(d, &m->configs[i], s->name);
	charts_of(d, cs, s->name);
}

/* Fewer requests than this of a class in one direction get no pattern sentence. */
#define PATTERN_MIN_OPS 100

/* The access pattern of each class and direction with enough requests, in words. */
static void iomix_patterns(struct rdoc *d, const struct run_io_mix *mix)
{
	char p[200];
	bool any = false;

	for (int k = 0; k < RC_COUNT; k++)
		for (int dir = 0; dir < 2; dir++) {
			if (mix->cls[k].ops[dir] < PATTERN_MIN_OPS ||
			    !run_io_pattern(&mix->cls[k], dir, p, sizeof(p)))
				continue;
			if (!any)
				rdoc_list(d);
			any = true;
			rdoc_item(d, "%s %s: %s", rep_class_name((enum rep_class)k),
				  dir == REP_WRITE ? "writes" : "reads", p);
		}
}

/* One configuration's I/O mix table (whole traces, or the phase of a step); false when there is none. */
static bool iomix_table(struct rdoc *d, const struct run_config *c, const char *step)
{
	const char *mark = step ? run_step_mark(c, step) : NULL;
	struct run_io_mix mix;
	char cap[640], a[32], b[32], c1[32], c2[32];

	if (step && !mark)
		return false;
	run_io_mix_of(c, mark, &mix);
	if (!mix.ntraced || !(mix.total.ops[0] + mix.total.ops[1]))
		return false;
	snprintf(cap, sizeof(cap), "%s%s%s: requests and bytes of %u trace%s summed%s; sequential = "
		 "starts where the previous request on the file ended, or at most one page (%u KiB "
		 "in WAL, %u KiB in other files) before (a tail rewrite: PostgreSQL rewrites the current "
		 "WAL page at each commit); random = the rest%s", c->name, step ? ", step " : "",
		 step ? step : "", mix.ntraced, mix.ntraced == 1 ? "" : "s",
		 step ? " (the trace between the step's markers)" : "",
		 c->pg_wal_block_kb ? c->pg_wal_block_kb : REP_TAIL_PAGE_BYTES / 1024,
		 c->pg_block_kb ? c->pg_block_kb : REP_TAIL_PAGE_BYTES / 1024,
		 mix.nrelmap < mix.ntraced ? "; unknown relation kind: no relmap, so relation "
		 "files count as heap" : "");
	rdoc_table(d, cap, "class|>reads|>% random|>read (MiB)|>writes|>% random|>written (MiB)");
	for (int k = 0; k <= RC_COUNT; k++) {
		const struct run_io_class *x = k < RC_COUNT ? &mix.cls[k] : &mix.total;

		if (k < RC_COUNT && !x->ops[0] && !x->ops[1])
			continue;
		rdoc_cell(d, "%s", k < RC_COUNT ? rep_class_name((enum rep_class)k) : "total");
		rdoc_cell(d, "%s", run_fmt_count(x->ops[0], a, sizeof(a)));
		rdoc_cell(d, "%.1f", rep_pct(x->ops[0] - x->seq_ops[0], x->ops[0]));
		rdoc_cell(d, "%s", run_fmt_num((double)x->bytes[0] / MIB, 2, b, sizeof(b)));
		rdoc_cell(d, "%s", run_fmt_count(x->ops[1], c1, sizeof(c1)));
		rdoc_cell(d, "%.1f", rep_pct(x->ops[1] - x->seq_ops[1], x->ops[1]));
		rdoc_cell(d, "%s", run_fmt_num((double)x->bytes[1] / MIB, 2, c2, sizeof(c2)));
	}
	iomix_patterns(d, &mix);
	return true;
}

static void iomix_section(struct rdoc *d, const struct run_model *m, const struct charts *cs)
{
	bool any = false;

	for (size_t i = 0; i < m->nconfigs; i++) {
		struct run_io_mix mix;

		run_io_mix_of(&m->configs[i], NULL, &mix);
		if (!mix.ntraced)
			continue;
		if (!any)
			rdoc_heading(d, 2, "I/O mix per class, whole traces (dutfs)");
		any = true;
		iomix_table(d, &m->configs[i], NULL);
	}
	if (any)
		charts_of(d, cs, "");
}

int report_run_build(const struct run_model *m, const struct findings *f, const struct charts *cs,
		     struct rdoc **ret)
{
	_cleanup_free_ struct run_stepinfo *steps = NULL;
	struct rdoc *d = calloc(1, sizeof(*d));
	size_t nsteps = 0;
	int r;

	if (!d)
		return -ENOMEM;
	r = run_steps(m, &steps, &nsteps);
	if (r < 0) {
		free(d);
		return r;
	}
	rdoc_heading(d, 1, "dutlab report: %s", m->name);
	if (m->description && m->description[0])
		rdoc_para(d, "%s", m->description);
	report_answer_section(d, m, f, steps, nsteps);
	facts(d, m);
	findings_section(d, m, f);
	for (size_t s = 0; s < nsteps; s++)
		step_section(d, m, cs, &steps[s]);
	iomix_section(d, m, cs);
	if (d->oom) {
		rdoc_free(d);
		return -ENOMEM;
	}
	*ret = d;
	return 0;
}
