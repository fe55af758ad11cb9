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
#include "tools/report_doc.h"
#include "tools/run_stats.h"

#define MIB (1024.0 * 1024.0)
#define SPREAD_NOTE "Values are medians over the runs of each configuration (runs: its result " \
	"documents, one per repetition, or one per repeat of a step); the spread is the min-max " \
	"range of those runs (not an IQR)."

/* "1,234.5 (1,100.0-1,300.0)" pieces */
static const char *num(double v, int dec, char *buf, size_t n)
{
	return run_fmt_num(v, dec, buf, n);
}

static const char *range(const struct cmp_stat *s, double scale, int dec, char *buf, size_t n)
{
	char a[32], b[32];

	if (!s->n)
		snprintf(buf, n, "-");
	else if (s->n == 1)
		snprintf(buf, n, "(1 value)");
	else
		snprintf(buf, n, "%s-%s", num(s->min * scale, dec, a, sizeof(a)),
			 num(s->max * scale, dec, b, sizeof(b)));
	return buf;
}

static const char *med(const struct cmp_stat *s, double scale, int dec, char *buf, size_t n)
{
	if (!s->n)
		snprintf(buf, n, "-");
	else
		num(s->median * scale, dec, buf, n);
	return buf;
}

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
	if (m->have_host)
		rdoc_item(d, "host: %s, %s, %u CPUs, %s GiB memory, %s", m->host.hostname,
			  m->host.cpu_model, m->host.cpus,
			  num((double)m->host.mem_bytes / (MIB * 1024), 1, mem, sizeof(mem)), m->host.kernel);

	rdoc_heading(d, 2, "Configurations");
	rdoc_table(d, "", "#|configuration|status|>repetitions|view|filesystem|replica|reason");
	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct run_config *c = &m->configs[i];
		unsigned ok = 0;

		for (size_t r = 0; r < c->nreps; r++)
			ok += strcmp(c->reps[r].status, "complete") == 0 || strcmp(c->reps[r].status, "ok") == 0;
		rdoc_cell(d, "%u", c->index);
		rdoc_cell(d, "%s", c->name);
		rdoc_cell(d, "%s", c->status);
		rdoc_cell(d, "%u of %zu complete", ok, c->nreps);
		rdoc_cell(d, "%s", c->view[0] ? c->view : "-");
		rdoc_cell(d, "%s", c->filesystem[0] ? c->filesystem : "-");
		rdoc_cell(d, "%s", c->replica[0] ? c->replica : "-");
		rdoc_cell(d, "%s", c->reason[0] ? c->reason : "");
	}
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

	rdoc_table(d, SPREAD_NOTE, "configuration|>runs|>TPS (tx/s)|>TPS min-max (tx/s)|"
		   ">ratio to first|>latency p50 (ms)|>latency p99 (ms)|>p99 min-max (ms)");
	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct run_config *c = &m->configs[i];
		struct cmp_stat tps = run_metric(c, step, "run", "tps");
		struct cmp_stat p50 = run_latency(c, step, "run", "txn", "p50");
		struct cmp_stat p99 = run_latency(c, step, "run", "txn", "p99");
		char a[64];
		double ratio;

		if (!tps.n)
			continue;
		rdoc_cell(d, "%s", c->name);
		rdoc_cell(d, "%u", tps.n);
		rdoc_cell(d, "%s", med(&tps, 1, 1, a, sizeof(a)));
		rdoc_cell(d, "%s", range(&tps, 1, 1, a, sizeof(a)));
		if (cmp_ratio(&tps, &base, &ratio))
			rdoc_cell(d, "%.2fx", ratio);
		else
			rdoc_cell(d, "-");
		rdoc_cell(d, "%s", med(&p50, 1e-6, 2, a, sizeof(a)));
		rdoc_cell(d, "%s", med(&p99, 1e-6, 2, a, sizeof(a)));
		rdoc_cell(d, "%s", range(&p99, 1e-6, 2, a, sizeof(a)));
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
			rdoc_cell(d, "%s", med(&t, 1, 3, a, sizeof(a)));
			rdoc_cell(d, "%s", range(&t, 1, 3, a, sizeof(a)));
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
				num(cl->t_s.median, 4, a, sizeof(a));
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
		rdoc_cell(d, "%s", s->m_defined ? num(s->m_time_s, 3, a, sizeof(a)) : "undefined");
		if (s->m_defined && cmp->sum[0].m_time_s > 0)
			rdoc_cell(d, "%.2fx", s->m_time_s / cmp->sum[0].m_time_s);
		else
			rdoc_cell(d, "-");
		rdoc_cell(d, "%s", s->m_defined ? num(s->m_score_s, 4, a, sizeof(a)) : "undefined");
		rdoc_cell(d, "%s", num(s->total_s, 3, a, sizeof(a)));
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

static json_object *jget(json_object *o, const char *key)
{
	json_object *v;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/*
 * With one document, the spread shown is that document's own: dutprobe bench
 * keeps the min and max of its repetitions as <metric>_min and <metric>_max.
 */
static bool own_range(const struct run_config *c, const char *step, const char *phase,
		      const char *metric, struct cmp_stat *v)
{
	struct cmp_stat lo, hi;
	char name[64];

	snprintf(name, sizeof(name), "%s_min", metric);
	lo = run_metric(c, step, phase, name);
	snprintf(name, sizeof(name), "%s_max", metric);
	hi = run_metric(c, step, phase, name);
	if (v->n != 1 || lo.n != 1 || hi.n != 1)
		return false;
	v->min = lo.median;
	v->max = hi.median;
	v->n = 2;   /* a range to print */
	return true;
}

/* median and range cells of a bench metric */
static void bench_cells(struct rdoc *d, const struct run_config *c, const char *step, const char *pn,
			const char *metric, double scale, int dec)
{
	struct cmp_stat v = run_metric(c, step, pn, metric);
	bool own = own_range(c, step, pn, metric, &v);
	char a[64];

	rdoc_cell(d, "%s", med(&v, scale, dec, a, sizeof(a)));
	rdoc_cell(d, "%s%s", range(&v, scale, dec, a, sizeof(a)), own ? " (its own reps)" : "");
}

static void bench_table(struct rdoc *d, const struct run_model *m, const char *step)
{
	rdoc_table(d, "dutprobe bench rows. Each document's value is already the median of its own "
		   "repetitions; here: the median over the documents of the configuration, with their "
		   "min-max range (with one document: the min-max of its own repetitions, marked \"its own "
		   "reps\"). cache = above the link's ceiling (the page cache, not the device).",
		   "configuration|row|>documents|>MB/s|>MB/s min-max|>IOPS|>IOPS min-max|>p99 (ms)|cache");
	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct run_config *c = &m->configs[i];
		const struct dut_result *docs[1];

		if (!run_config_docs(c, step, docs, 1))
			continue;
		for (size_t p = 0; p < dut_result_phase_count(docs[0]); p++) {
			struct dut_result_phase *ph = dut_result_phase_at(docs[0], p);
			const char *pn = dut_phase_name(ph);
			struct cmp_stat bw = run_metric(c, step, pn, "bw");
			struct cmp_stat p99 = run_latency(c, step, pn, "io", "p99");
			json_object *flag = jget(dut_phase_extra(ph), "cache_not_device");
			char a[64];

			rdoc_cell(d, "%s", c->name);
			rdoc_cell(d, "%s", pn);
			rdoc_cell(d, "%u", bw.n);
			bench_cells(d, c, step, pn, "bw", 1e-6, 1);
			bench_cells(d, c, step, pn, "iops", 1, 0);
			rdoc_cell(d, "%s", med(&p99, 1e-6, 2, a, sizeof(a)));
			rdoc_cell(d, "%s", flag && json_object_get_boolean(flag) ? "cache" : "");
		}
	}
}

static void slc_table(struct rdoc *d, const struct run_model *m, const char *step)
{
	rdoc_table(d, "Knees of the sequential write throughput (dutprobe slc): where the level changed, "
		   "with the 95% interval of the position.",
		   "configuration|document|knee|>after (MiB)|>95% interval (MiB)|>before (MB/s)|>after (MB/s)|"
		   ">change|confidence");
	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct dut_result *docs[RUN_MAX_DOCS];
		size_t nd = run_config_docs(&m->configs[i], step, docs, RUN_MAX_DOCS);

		for (size_t k = 0; k < nd; k++) {
			struct dut_result_phase *ph = dut_result_find_phase(docs[k], "write");
			json_object *knees = ph ? jget(dut_phase_extra(ph), "knees") : NULL;
			size_t nk = knees ? json_object_array_length(knees) : 0;
			char a[32], b[32];

			for (size_t j = 0; j < nk || (j == 0 && !nk); j++) {
				json_object *kn = nk ? json_object_array_get_idx(knees, j) : NULL;

				rdoc_cell(d, "%s", m->configs[i].name);
				rdoc_cell(d, "%zu", k + 1);
				if (!kn) {
					rdoc_cell(d, "none found");
					for (int e = 0; e < 6; e++)
						rdoc_cell(d, "-");
					continue;
				}
				rdoc_cell(d, "%zu", j + 1);
				rdoc_cell(d, "%s", num(json_object_get_double(run_knee_bytes(kn)) / MIB, 0, a, sizeof(a)));
				rdoc_cell(d, "%s-%s", num(json_object_get_double(jget(kn, "ci95_lo_bytes")) / MIB, 0, a, sizeof(a)),
					  num(json_object_get_double(jget(kn, "ci95_hi_bytes")) / MIB, 0, b, sizeof(b)));
				rdoc_cell(d, "%s", num(json_object_get_double(jget(kn, "bw_before")) / 1e6, 1, a, sizeof(a)));
				rdoc_cell(d, "%s", num(json_object_get_double(jget(kn, "bw_after")) / 1e6, 1, a, sizeof(a)));
				rdoc_cell(d, "%+.0f%%", json_object_get_double(jget(kn, "rel_change")) * 100);
				rdoc_cell(d, "%s", json_object_get_string(jget(kn, "confidence")) ?: "?");
			}
		}
	}
}

static void fill_table(struct rdoc *d, const struct run_model *m, const char *step)
{
	rdoc_table(d, "Random-write IOPS per fill level and queue depth (dutprobe fill). " SPREAD_NOTE,
		   "configuration|level|queue depth|>runs|>IOPS|>IOPS min-max");
	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct run_config *c = &m->configs[i];
		const struct dut_result *docs[1];
		json_object *phases;

		if (!run_config_docs(c, step, docs, 1) ||
		    !json_object_object_get_ex(dut_result_json(docs[0]), "phases", &phases))
			continue;
		for (size_t p = 0; p < json_object_array_length(phases); p++) {
			json_object *ph = json_object_array_get_idx(phases, p);
			const char *pn = json_object_get_string(jget(ph, "name"));

			json_object_object_foreach(jget(ph, "metrics"), name, val) {
				struct cmp_stat st;
				char a[64];

				(void)val;
				if (strncmp(name, "iops_qd", 7) != 0)
					continue;
				st = run_metric(c, step, pn, name);
				rdoc_cell(d, "%s", c->name);
				rdoc_cell(d, "%s", strncmp(pn, "level_", 6) == 0 ? pn + 6 : pn);
				rdoc_cell(d, "%s", name + 7);
				rdoc_cell(d, "%u", st.n);
				rdoc_cell(d, "%s", med(&st, 1, 0, a, sizeof(a)));
				rdoc_cell(d, "%s", range(&st, 1, 0, a, sizeof(a)));
			}
		}
	}
}

static bool iomix_table(struct rdoc *d, const struct run_config *c, const char *step);

static const char *jstr(json_object *o, const char *key)
{
	json_object *v = jget(o, key);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
}

/* dutprobe identify: the target, the device beneath it, its link and ceiling, per configuration. */
static void identify_table(struct rdoc *d, const struct run_model *m, const char *step)
{
	rdoc_table(d, "The target of each configuration as dutprobe identify saw it (the first "
		   "repetition's document).", "configuration|target|kind|through|device|model|link|>ceiling (MB/s)");
	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct dut_result *docs[1];
		json_object *t, *bd, *link;
		char a[32];
		double ceil;

		if (!run_config_docs(&m->configs[i], step, docs, 1))
			continue;
		t = jget(dut_result_json(docs[0]), "target");
		bd = jget(t, "block_device");
		link = jget(t, "link");
		ceil = json_object_get_double(jget(link, "ceiling_bytes_per_s"));
		rdoc_cell(d, "%s", m->configs[i].name);
		rdoc_cell(d, "%s", jstr(t, "path"));
		rdoc_cell(d, "%s", jstr(t, "kind"));
		rdoc_cell(d, "%s", jstr(t, "through"));
		rdoc_cell(d, "%s", jstr(bd, "name"));
		rdoc_cell(d, "%s", *jstr(bd, "model") ? jstr(bd, "model") : jstr(bd, "vendor"));
		rdoc_cell(d, "%s", jstr(link, "description"));
		rdoc_cell(d, "%s", ceil > 0 ? num(ceil / 1e6, 0, a, sizeof(a)) : "unknown");
	}
}

static void step_section(struct rdoc *d, const struct run_model *m, const struct charts *cs,
			 const struct run_stepinfo *s)
{
	rdoc_heading(d, 2, "Step %s (%s)", s->name, run_doc_kind_name(s->kind));
	switch (s->kind) {
	case DOC_OLTP:
		oltp_table(d, m, s->name);
		break;
	case DOC_OLTP_INIT:
		phase_table(d, m, s->name);
		break;
	case DOC_DSS:
		phase_table(d, m, s->name);
		dss_mtime(d, m, s->name);
		break;
	case DOC_PROBE_BENCH:
		bench_table(d, m, s->name);
		break;
	case DOC_PROBE_SLC:
		slc_table(d, m, s->name);
		break;
	case DOC_PROBE_FILL:
		fill_table(d, m, s->name);
		break;
	case DOC_PROBE_IDENTIFY:
		identify_table(d, m, s->name);
		break;
	case DOC_RESTORE:
		phase_table(d, m, s->name);
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
	snprintf(cap, sizeof(cap), "%s%s%s: requests and bytes of %u trace%s summed%s; random = not "
		 "sequential (a request that does not start where the previous one on the file "
		 "ended)%s", c->name, step ? ", step " : "", step ? step : "", mix.ntraced,
		 mix.ntraced == 1 ? "" : "s", step ? " (the trace between the step's markers)" : "",
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
		rdoc_cell(d, "%s", num((double)x->bytes[0] / MIB, 2, b, sizeof(b)));
		rdoc_cell(d, "%s", run_fmt_count(x->ops[1], c1, sizeof(c1)));
		rdoc_cell(d, "%.1f", rep_pct(x->ops[1] - x->seq_ops[1], x->ops[1]));
		rdoc_cell(d, "%s", num((double)x->bytes[1] / MIB, 2, c2, sizeof(c2)));
	}
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
	rdoc_cell(d, "%s", med(s, scale, dec, a, sizeof(a)));
	rdoc_cell(d, "%s", range(s, scale, dec, b, sizeof(b)));
	rdoc_cell(d, "%u", s->n);
	if (base && cmp_ratio(s, base, &ratio))
		rdoc_cell(d, "%.2fx", ratio);
	else
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
				break;
			case DOC_RESTORE:
				v = run_duration(c, st, "total");
				base = run_duration(b, st, "total");
				answer_row(d, c->name, st, "restore time (s)", &v, 1, 2, &base);
				break;
			case DOC_OLTP_INIT:
				v = run_duration(c, st, "init/load");
				base = run_duration(b, st, "init/load");
				answer_row(d, c->name, st, "load time (s)", &v, 1, 2, &base);
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
			case DOC_PROBE_SLC: {
				const struct dut_result *sd[RUN_MAX_DOCS];
				size_t nd = run_config_docs(c, st, sd, RUN_MAX_DOCS);
				double vals[RUN_MAX_DOCS];
				unsigned n = 0;

				for (size_t k = 0; k < nd; k++) {
					struct dut_result_phase *ph = dut_result_find_phase(sd[k], "write");
					json_object *knees = ph ? jget(dut_phase_extra(ph), "knees") : NULL;

					for (size_t j = 0; knees && j < json_object_array_length(knees); j++) {
						json_object *kn = json_object_array_get_idx(knees, j);

						if (json_object_get_double(jget(kn, "rel_change")) < 0) {
							vals[n++] = json_object_get_double(run_knee_bytes(kn));
							break;
						}
					}
				}
				v = cmp_stat_of(vals, n);
				if (v.n)
					answer_row(d, c->name, st, "write cache (MiB written before the fall)", &v,
						   1 / MIB, 0, NULL);
				else if (nd) {
					rdoc_cell(d, "%s", c->name);
					rdoc_cell(d, "%s", st);
					rdoc_cell(d, "write cache");
					rdoc_cell(d, "none found");
					rdoc_cell(d, "-");
					rdoc_cell(d, "%zu", nd);
					rdoc_cell(d, "-");
				}
				break;
			}
			case DOC_PROBE_FILL:
				if (!run_config_docs(c, st, docs, 1))
					break;
				for (int q = 1; q <= 256; q *= 2) {
					const char *hi = NULL;
					char name[32], what[96];
					double best = -1;

					snprintf(name, sizeof(name), "iops_qd%d", q);
					for (size_t p = 0; p < dut_result_phase_count(docs[0]); p++) {
						const char *pn = dut_phase_name(dut_result_phase_at(docs[0], p));
						double pct = strncmp(pn, "level_", 6) == 0 ? strtod(pn + 6, NULL) : -1;

						if (pct > best) {
							best = pct;
							hi = pn;
						}
					}
					if (!hi)
						break;
					v = run_metric(c, st, hi, name);
					base = run_metric(b, st, hi, name);
					snprintf(what, sizeof(what), "random-write IOPS at QD %d, %s", q, hi);
					answer_row(d, c->name, st, what, &v, 1, 0, &base);
				}
				break;
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
	char reads[400] = "", wal[400] = "", conn[200], limit[400], a[32];
	double share_r = -1, share_w = -1, share_c = -1, rpt = -1;
	struct run_io_mix mix = { 0 };

	if (!tps.n)
		return;
	if (mark)
		run_io_mix_of(c, mark, &mix);
	if (!mix.ntraced || !tx.n || tx.median <= 0) {
		struct run_io_mix whole;

		run_io_mix_of(c, NULL, &whole);
		snprintf(reads, sizeof(reads), "device reads and WAL flushes: unknown (%s)",
			 whole.ntraced ? "the traces have no marker of this step" :
			 strcmp(c->view, "off") == 0 ? "no trace: view off" : "no trace of this step");
	} else {
		struct dut_hist *rh = dut_hist_new(), *fh = dut_hist_new();
		double txs = tx.median * mix.ntraced;   /* the traced repetitions' transactions */
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
	if (in.n && ex.n && ex.median > 0) {
		share_c = 100.0 * (1.0 - in.median / ex.median);
		snprintf(conn, sizeof(conn), "connections: %.0f%% of the step's time (%s tx/s including "
			 "them)", share_c, run_fmt_num(in.median, 1, a, sizeof(a)));
	} else {
		snprintf(conn, sizeof(conn), "connections: not in the result documents");
	}
	if (share_r >= LIMIT_SHARE_PCT && share_r >= share_w && share_r >= share_c)
		snprintf(limit, sizeof(limit), "limited by device reads");
	else if (share_w >= LIMIT_SHARE_PCT && share_w >= share_c)
		snprintf(limit, sizeof(limit), "limited by WAL flushes");
	else if (share_c >= LIMIT_SHARE_PCT)
		snprintf(limit, sizeof(limit), "limited by connection set-up");
	else if (share_r < 0 || share_w < 0)
		snprintf(limit, sizeof(limit), "what limited it is not shown: the evidence is missing");
	else
		snprintf(limit, sizeof(limit), "not limited by the device reads or WAL flushes the trace "
			 "saw (%.0f%% and %.0f%% of the transaction time): the rest is CPU, locks or the "
			 "client, which this run did not measure", fmin(share_r, 100), fmin(share_w, 100));
	if (rpt >= 0 && rpt < FIND_MEMORY_READS_PER_TX) {
		size_t l = strlen(limit);

		snprintf(limit + l, sizeof(limit) - l, "; memory served its reads, the device was "
			 "barely read (see What this run did not measure)");
	}
	rdoc_item(d, "%s, step %s (%s tx/s): %s. Evidence: %s; %s%s%s; CPU: not in the result documents.",
		  c->name, step, run_fmt_num(tps.median, 1, a, sizeof(a)), limit, reads,
		  wal, *wal ? "; " : "", conn);
}

/* pgload restore: each phase's verdict (CPU-bound or I/O-bound, from its CPU and wall time). */
static void answer_why_restore(struct rdoc *d, const struct run_config *c, const char *step)
{
	const struct dut_result *docs[1];

	if (!run_config_docs(c, step, docs, 1))
		return;
	for (size_t p = 0; p < dut_result_phase_count(docs[0]); p++) {
		struct dut_result_phase *ph = dut_result_phase_at(docs[0], p);
		const char *v = json_object_get_string(jget(dut_phase_extra(ph), "verdict"));

		if (v)
			rdoc_item(d, "%s, step %s, phase %s: %s (pgload restore's verdict from the phase's "
				  "server CPU time against its wall time, first repetition).", c->name, step,
				  dut_phase_name(ph), v);
	}
}

/* The device under test, from dutprobe identify: at the top, since every figure depends on it. */
static void answer_target(struct rdoc *d, const struct run_model *m, const struct run_stepinfo *steps,
			  size_t nsteps)
{
	bool any = false;

	for (size_t s = 0; s < nsteps; s++) {
		if (steps[s].kind != DOC_PROBE_IDENTIFY)
			continue;
		for (size_t i = 0; i < m->nconfigs; i++) {
			const struct dut_result *docs[1];
			json_object *t, *bd, *link;
			double ceil;
			char a[32];

			if (!run_config_docs(&m->configs[i], steps[s].name, docs, 1))
				continue;
			if (!any)
				rdoc_list(d);
			any = true;
			t = jget(dut_result_json(docs[0]), "target");
			bd = jget(t, "block_device");
			link = jget(t, "link");
			ceil = json_object_get_double(jget(link, "ceiling_bytes_per_s"));
			rdoc_item(d, "Device under test, %s: %s (%s%s%s), device %s%s%s, link %s, interface "
				  "ceiling %s%s.", m->configs[i].name, jstr(t, "path"), jstr(t, "kind"),
				  *jstr(t, "through") ? ", through " : "", jstr(t, "through"), jstr(bd, "name"),
				  *jstr(bd, "model") ? " " : "", jstr(bd, "model"), jstr(link, "description"),
				  ceil > 0 ? num(ceil / 1e6, 0, a, sizeof(a)) : "unknown", ceil > 0 ? " MB/s" : "");
		}
	}
}

/* The memory the server had against the data set: what makes a run out of cache. */
static void answer_memory(struct rdoc *d, const struct run_model *m, const struct run_stepinfo *steps,
			  size_t nsteps)
{
	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct run_config *c = &m->configs[i];
		double db = 0;
		char a[32], b[32];

		for (size_t s = 0; s < nsteps && !db; s++) {
			const struct dut_result *docs[1];

			if (steps[s].kind == DOC_OLTP && run_config_docs(c, steps[s].name, docs, 1))
				db = json_object_get_double(jget(jget(dut_result_json(docs[0]), "target"),
								 "database_bytes"));
		}
		if (!db && !c->memory_budget_bytes)
			continue;
		if (c->memory_budget_bytes && db > 0)
			rdoc_para(d, "Memory, %s: the server ran in a %s MiB budget with a %s MiB database "
				  "(%.1fx the budget), so the data set did not fit in its memory.", c->name,
				  num((double)c->memory_budget_bytes / 1048576, 0, a, sizeof(a)),
				  num(db / 1048576, 0, b, sizeof(b)), db / (double)c->memory_budget_bytes);
		else if (c->memory_budget_bytes)
			rdoc_para(d, "Memory, %s: the server ran in a %s MiB budget.", c->name,
				  num((double)c->memory_budget_bytes / 1048576, 0, a, sizeof(a)));
		else
			rdoc_para(d, "Memory, %s: no memory budget; the %s MiB database could sit in the "
				  "host's page cache (%s GiB of memory).", c->name, num(db / 1048576, 0, a, sizeof(a)),
				  m->have_host ? num((double)m->host.mem_bytes / 1073741824, 1, b, sizeof(b)) : "?");
	}
}

static void answer_section(struct rdoc *d, const struct run_model *m, const struct findings *f,
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
	for (size_t i = 0; i < f->n; i++)
		if (f->v[i].kind == FIND_TPS_RATIO && !f->v[i].shown) {
			rdoc_para(d, "No TPS difference between configurations is shown by this run: see "
				  "the findings for why (one repetition, overlapping ranges, or "
				  "configurations run one after another).");
			break;
		}
	rdoc_para(d, "Why, per configuration and step, from the evidence in the run directory:");
	rdoc_list(d);
	for (size_t s = 0; s < nsteps; s++)
		for (size_t i = 0; i < m->nconfigs; i++) {
			size_t before = d->n ? d->b[d->n - 1].nitems : 0;

			if (steps[s].kind == DOC_OLTP)
				answer_why_oltp(d, &m->configs[i], steps[s].name);
			else if (steps[s].kind == DOC_RESTORE)
				answer_why_restore(d, &m->configs[i], steps[s].name);
			nwhy += d->b[d->n - 1].nitems - before;
		}
	if (!nwhy)
		rdoc_item(d, "no step of this run has the evidence the report explains from (OLTP steps "
			  "with a trace, restore verdicts); the numbers above stand alone.");
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
	answer_section(d, m, f, steps, nsteps);
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
