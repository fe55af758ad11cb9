/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The answer's "why" of a DSS step (pure).  The read pattern is the trace's
 * during the query phase: pgload dss marks each of its phases "dss/<phase>
 * start" .. "dss/<phase> end", so the phase "dss/queries start" of the
 * trace is the queries' time.  "Sequential" is the trace's rule
 * (tools/report/report.h): a read that starts where the previous one on the file
 * ended, or re-reads its last page.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/report/report_answer_dss.h"
#include "tools/report/rundir_stats.h"

#define MIB (1024.0 * 1024.0)
#define QUERIES_MARK RUNDIR_DSS_PHASE("queries")
/* how many queries the answer names as taking the query time, and as making the difference */
#define TOP_QUERIES 3

/* The comparison's input of a configuration, or -1. */
static int input_of(const struct cmp *cmp, const char *name)
{
	for (size_t i = 0; cmp && i < cmp->ninputs; i++)
		if (strcmp(cmp->inputs[i].source, name) == 0)
			return (int)i;
	return -1;
}

/* "load 1.20 s, keys 0.81 s, ..." of the first document's phases, medians over the documents. */
static void phases_text(const struct rundir_config *c, const char *step, char *buf, size_t n)
{
	const struct dut_result *docs[1];
	size_t l = 0;

	buf[0] = 0;
	if (!rundir_config_docs(c, step, docs, 1))
		return;
	for (size_t p = 0; p < dut_result_phase_count(docs[0]) && l < n; p++) {
		const char *pn = dut_phase_name(dut_result_phase_at(docs[0], p));
		struct cmp_stat t = rundir_duration(c, step, pn);

		if (t.n)
			l += (size_t)snprintf(buf + l, n - l, "%s%s %.2f s", l ? ", " : "", pn, t.median);
	}
}

struct qshare {
	unsigned q;
	double t;
};

static int by_time_desc(const void *a, const void *b)
{
	const struct qshare *x = a, *y = b;

	if (x->t != y->t)
		return x->t > y->t ? -1 : 1;
	return (x->q > y->q) - (x->q < y->q);
}

/* "Q1 31%, Q9 18%, Q18 12% of the 4.20 s of its 22 queries" */
static void dominant_text(const struct cmp *cmp, int k, char *buf, size_t n)
{
	struct qshare *v = calloc(cmp->nqueries + 1, sizeof(*v));
	double total = 0;
	size_t nv = 0, l = 0;

	buf[0] = 0;
	if (!v)
		return;
	for (size_t i = 0; i < cmp->nqueries; i++) {
		const struct cmp_qcell *cl = &cmp->queries[i].cell[k];

		if (!cl->t_s.n)
			continue;
		v[nv++] = (struct qshare){ .q = cmp->queries[i].q, .t = cl->t_s.median };
		total += cl->t_s.median;
	}
	qsort(v, nv, sizeof(*v), by_time_desc);
	for (size_t i = 0; i < nv && i < TOP_QUERIES && total > 0 && l < n; i++)
		l += (size_t)snprintf(buf + l, n - l, "%sQ%u %.0f%%", i ? ", " : "", v[i].q, 100.0 * v[i].t / total);
	if (l && l < n)
		snprintf(buf + l, n - l, " of the %.2f s of its %zu queries", total, nv);
	free(v);
}

/* Less read than this during the queries: memory served them, the device was not what they measured. */
#define DEVICE_READ_MIN_BYTES (1024.0 * 1024.0)

/*
 * "during the queries the trace (view device) saw 1,234 reads of 85.2 MiB,
 * 92% of the bytes sequential (80% of the reads)".  Returns the sequential
 * share of the bytes, -1 without a trace, -2 when (almost) nothing was read.
 */
static double reads_text(const struct rundir_config *c, char *buf, size_t n)
{
	struct rundir_io_mix mix;
	const struct rundir_io_class *t = &mix.total;
	char a[32], b[32];

	rundir_io_mix_of(c, QUERIES_MARK, &mix);
	if (!mix.ntraced) {
		struct rundir_io_mix whole;

		rundir_io_mix_of(c, NULL, &whole);
		snprintf(buf, n, "reads during the queries: not traced (%s)", strcmp(c->view, "off") == 0 ?
			 "view off" : whole.ntraced ? "the trace has no phase \"" QUERIES_MARK "\"" : "no trace");
		return -1;
	}
	if ((double)t->bytes[REP_READ] < DEVICE_READ_MIN_BYTES) {
		if (!t->ops[REP_READ])
			snprintf(buf, n, "during the queries the trace (view %s) saw no read: memory served them",
				 c->view);
		else
			snprintf(buf, n, "during the queries the trace (view %s) saw almost no read (%s, %s KiB): "
				 "memory served them", c->view, rundir_fmt_count(t->ops[REP_READ], a, sizeof(a)),
				 rundir_fmt_num((double)t->bytes[REP_READ] / 1024, 0, b, sizeof(b)));
		return -2;
	}
	snprintf(buf, n, "during the queries the trace (view %s) saw %s reads of %s MiB, %.0f%% of the bytes "
		 "sequential (%.0f%% of the reads)", c->view, rundir_fmt_count(t->ops[REP_READ], a, sizeof(a)),
		 rundir_fmt_num((double)t->bytes[REP_READ] / MIB, 1, b, sizeof(b)),
		 rep_pct(t->seq_bytes[REP_READ], t->bytes[REP_READ]), rep_pct(t->seq_ops[REP_READ], t->ops[REP_READ]));
	return rep_pct(t->seq_bytes[REP_READ], t->bytes[REP_READ]);
}

struct qdiff {
	unsigned q;
	double d;
};

static int by_abs_desc(const void *a, const void *b)
{
	const struct qdiff *x = a, *y = b;

	if (fabs(x->d) != fabs(y->d))
		return fabs(x->d) > fabs(y->d) ? -1 : 1;
	return (x->q > y->q) - (x->q < y->q);
}

/* Of the plan-stable queries, the largest differences of input k against input 0: "Q1 (+0.41 s), Q9 (-0.20 s)". */
static void difference_text(const struct cmp *cmp, size_t k, char *buf, size_t n)
{
	struct qdiff *v = calloc(cmp->nqueries + 1, sizeof(*v));
	size_t nv = 0, l = 0;

	buf[0] = 0;
	if (!v)
		return;
	for (size_t i = 0; i < cmp->nqueries; i++) {
		const struct cmp_query *q = &cmp->queries[i];

		if (q->why == CMP_QUALIFIES && q->cell[k].t_s.n && q->cell[0].t_s.n)
			v[nv++] = (struct qdiff){ .q = q->q, .d = q->cell[k].t_s.median - q->cell[0].t_s.median };
	}
	qsort(v, nv, sizeof(*v), by_abs_desc);
	for (size_t i = 0; i < nv && i < TOP_QUERIES && v[i].d != 0 && l < n; i++)
		l += (size_t)snprintf(buf + l, n - l, "%sQ%u (%+.3f s)", i ? ", " : "", v[i].q, v[i].d);
	free(v);
}

/* "Q2, Q9" of the queries whose plan in input k differs from the baseline's or varied; "" when none. */
static size_t changed_text(const struct cmp *cmp, size_t k, char *buf, size_t n)
{
	size_t l = 0, cnt = 0;

	buf[0] = 0;
	for (size_t i = 0; i < cmp->nqueries && l < n; i++) {
		const struct cmp_qcell *cl = &cmp->queries[i].cell[k];

		if (cl->plan_differs || cl->plan_unstable) {
			l += (size_t)snprintf(buf + l, n - l, "%sQ%u", cnt ? ", " : "", cmp->queries[i].q);
			cnt++;
		}
	}
	return cnt;
}

size_t answer_why_dss(struct rdoc *d, const struct rundir_model *m, const char *step, const struct cmp *cmp)
{
	double seq0 = -1;
	size_t nitems = 0;

	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct rundir_config *c = &m->configs[i];
		char ph[300], dom[300] = "", rd[300], chg[200], diff[200], a[32], b[32];
		int k = input_of(cmp, c->name);
		const struct dut_result *docs[RUNDIR_MAX_DOCS];
		size_t nruns = rundir_config_docs(c, step, docs, RUNDIR_MAX_DOCS);
		double seq;

		phases_text(c, step, ph, sizeof(ph));
		if (!ph[0])
			continue;
		if (k >= 0)
			dominant_text(cmp, k, dom, sizeof(dom));
		seq = reads_text(c, rd, sizeof(rd));
		if (k == 0)
			seq0 = seq;
		rdoc_item(d, "%s, step %s: phases %s (%s); query time %s%s; %s.", c->name, step, ph,
			  nruns == 1 ? "one run" : "medians of the runs", dom[0] ? "mostly " : "",
			  dom[0] ? dom : "per query not known", rd);
		nitems++;
		if (k <= 0 || !cmp->sum[0].m_defined || !cmp->sum[k].m_defined || cmp->sum[k].m_time_s <= 0)
			continue;
		{
			double ratio = cmp->sum[0].m_time_s / cmp->sum[k].m_time_s;
			size_t nchg = changed_text(cmp, (size_t)k, chg, sizeof(chg));
			char seqs[120] = "";

			difference_text(cmp, (size_t)k, diff, sizeof(diff));
			if (seq >= 0 && seq0 >= 0)
				snprintf(seqs, sizeof(seqs), "; %.0f%% of the bytes read sequentially against %.0f%%", seq,
					 seq0);
			else if (seq == -2 && seq0 == -2)
				snprintf(seqs, sizeof(seqs), "; neither read the device during the queries, so the "
					 "difference is not the storage's (CPU, caches, run-to-run noise)");
			rdoc_item(d, "%s against %s, step %s: %.2fx %s on the queries (m-time %s s against %s s, the "
				  "%u queries whose plan is the same everywhere); plans: %s%s%s%s%s%s.", c->name,
				  m->configs[0].name, step, ratio >= 1 ? ratio : 1 / ratio,
				  ratio >= 1 ? "faster" : "slower", rundir_fmt_num(cmp->sum[k].m_time_s, 3, a, sizeof(a)),
				  rundir_fmt_num(cmp->sum[0].m_time_s, 3, b, sizeof(b)), cmp->nqualifying,
				  nchg ? "changed for " : "the same for every query", chg,
				  nchg ? " (left out of m-time)" : "", seqs,
				  diff[0] ? "; the difference is mostly in " : "", diff);
			nitems++;
		}
	}
	return nitems;
}
