/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The tables of the pgload step kinds (pure): oltp-run, pgload init and dss phases, DSS m-time. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tools/compare/compare.h"
#include "tools/report/report_doc.h"
#include "tools/report/report_run_steps.h"
#include "tools/report/rundir_stats.h"

#define SPREAD_NOTE "Values are medians over the runs of each configuration (runs: its result " \
	"documents, one per repetition, or one per repeat of a step); the spread is the min-max " \
	"range of those runs (not an IQR)."

void report_oltp_table(struct rdoc *d, const struct rundir_model *m, const char *step)
{
	struct cmp_stat base = rundir_metric(&m->configs[0], step, "run", "tps");

	rdoc_table(d, SPREAD_NOTE " TPS excludes the time the clients took to connect (pgbench's "
		   "\"without initial connection time\"); connection time = from the start until every client "
		   "was connected, and TPS including it beside.",
		   "configuration|>runs|>TPS (tx/s)|>TPS min-max (tx/s)|"
		   ">ratio to first|>latency p50 (ms)|>latency p99 (ms)|>p99 min-max (ms)|"
		   ">connection time (s)|>TPS incl. connections (tx/s)");
	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct rundir_config *c = &m->configs[i];
		struct cmp_stat tps = rundir_metric(c, step, "run", "tps");
		struct cmp_stat p50 = rundir_latency(c, step, "run", "txn", "p50");
		struct cmp_stat p99 = rundir_latency(c, step, "run", "txn", "p99");
		struct cmp_stat conn = rundir_metric(c, step, "run", "connection_time_total");
		struct cmp_stat incl = rundir_metric(c, step, "run", "tps_including_connections");
		char a[64];
		double ratio;

		if (!tps.n)
			continue;
		rdoc_cell(d, "%s", c->name);
		rdoc_cell(d, "%u", tps.n);
		rdoc_cell(d, "%s", rundir_fmt_median(&tps, 1, 1, a, sizeof(a)));
		rdoc_cell(d, "%s", rundir_fmt_range(&tps, 1, 1, a, sizeof(a)));
		if (cmp_ratio(&tps, &base, &ratio))
			rdoc_cell(d, "%.2fx", ratio);
		else
			rdoc_cell(d, "-");
		rdoc_cell(d, "%s", rundir_fmt_median(&p50, 1e-6, 2, a, sizeof(a)));
		rdoc_cell(d, "%s", rundir_fmt_median(&p99, 1e-6, 2, a, sizeof(a)));
		rdoc_cell(d, "%s", rundir_fmt_range(&p99, 1e-6, 2, a, sizeof(a)));
		rdoc_cell(d, "%s", rundir_fmt_median(&conn, 1e-9, 3, a, sizeof(a)));
		rdoc_cell(d, "%s", rundir_fmt_median(&incl, 1, 1, a, sizeof(a)));
	}
}

/* Phase durations of a step per configuration (pgload init, dss). */
void report_phase_table(struct rdoc *d, const struct rundir_model *m, const char *step)
{
	rdoc_table(d, "Phase times. " SPREAD_NOTE, "configuration|phase|>runs|>time (s)|>min-max (s)");
	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct dut_result *docs[1];
		const struct rundir_config *c = &m->configs[i];

		if (!rundir_config_docs(c, step, docs, 1))
			continue;
		for (size_t p = 0; p < dut_result_phase_count(docs[0]); p++) {
			const char *pn = dut_phase_name(dut_result_phase_at(docs[0], p));
			struct cmp_stat t = rundir_duration(c, step, pn);
			char a[64];

			if (!t.n)
				continue;
			rdoc_cell(d, "%s", c->name);
			rdoc_cell(d, "%s", pn);
			rdoc_cell(d, "%u", t.n);
			rdoc_cell(d, "%s", rundir_fmt_median(&t, 1, 3, a, sizeof(a)));
			rdoc_cell(d, "%s", rundir_fmt_range(&t, 1, 3, a, sizeof(a)));
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
				rundir_fmt_num(cl->t_s.median, 4, a, sizeof(a));
			rdoc_cell(d, "%s%s", a, cl->nfailed ? " !" : cl->plan_unstable ? " ?" :
				  cl->plan_differs ? " *" : "");
		}
	}
}

/* m-time per configuration against the first (tools/compare/compare.c). */
void report_dss_mtime(struct rdoc *d, const struct rundir_model *m, const char *step)
{
	const struct dut_result *docs[CMP_MAX_INPUTS][RUNDIR_MAX_DOCS];
	struct cmp_input in[CMP_MAX_INPUTS];
	struct cmp_opts o = { .baseline = 0 };
	struct dut_error err = { { 0 } };
	struct cmp *cmp = NULL;
	size_t n = 0;
	int r;

	for (size_t i = 0; i < m->nconfigs && n < CMP_MAX_INPUTS; i++) {
		in[n] = (struct cmp_input){ .source = m->configs[i].name,
					    .docs = (struct dut_result *const *)docs[n] };
		in[n].ndocs = rundir_config_docs(&m->configs[i], step, docs[n], RUNDIR_MAX_DOCS);
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
		rdoc_cell(d, "%s", s->m_defined ? rundir_fmt_num(s->m_time_s, 3, a, sizeof(a)) : "undefined");
		if (s->m_defined && cmp->sum[0].m_time_s > 0)
			rdoc_cell(d, "%.2fx", s->m_time_s / cmp->sum[0].m_time_s);
		else
			rdoc_cell(d, "-");
		rdoc_cell(d, "%s", s->m_defined ? rundir_fmt_num(s->m_score_s, 4, a, sizeof(a)) : "undefined");
		rdoc_cell(d, "%s", rundir_fmt_num(s->total_s, 3, a, sizeof(a)));
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
