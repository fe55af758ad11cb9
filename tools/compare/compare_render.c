/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Renderers of struct cmp: a human table and a result document (JSON). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lib/result.h"
#include "tools/compare/compare.h"
#include "tools/report/report_out.h"

DUT_DEFINE_FREEP(struct dut_result *, dut_result_free)

#define SPREAD_DEFINITION "spread: half the min-max range of the repetitions, relative to the median"
#define M_TIME_DEFINITION \
	"m-time: total of the median times of the queries whose plan fingerprint is identical in " \
	"every compared result (and that succeeded everywhere); m-score: their geometric mean"

/* ---- human ---- */

static const char *fmt_ratio(const struct cmp_stat *v, const struct cmp_stat *base, char *buf,
			     size_t n)
{
	double r;

	if (!cmp_ratio(v, base, &r))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.2fx", r);
	return buf;
}

static const char *fmt_spread(const struct cmp_stat *s, char *buf, size_t n)
{
	if (s->n < 2 || s->median <= 0)
		buf[0] = 0;
	else
		snprintf(buf, n, "±%.0f%%", (s->max - s->min) / 2 / s->median * 100);
	return buf;
}

/* value (decimals < 0: 6 significant digits), spread, mark and (except for the baseline) ratio */
static void cell(FILE *out, const struct cmp *c, size_t i, const struct cmp_stat *v,
		 const struct cmp_stat *base, int decimals, char mark)
{
	char val[32], sp[16], ra[16];

	if (v->n && decimals < 0)
		snprintf(val, sizeof(val), "%.6g", v->median);
	else if (v->n)
		snprintf(val, sizeof(val), "%.*f", decimals, v->median);
	else
		snprintf(val, sizeof(val), "-");
	fmt_spread(v, sp, sizeof(sp));
	/* "±" is two bytes in UTF-8: pad the spread by hand */
	fprintf(out, " %12s %s%*s%c", val, sp, (int)(5 - (sp[0] ? strlen(sp) - 1 : 0)), "", mark);
	fprintf(out, " %7s", i != c->baseline && v->n ? fmt_ratio(v, base, ra, sizeof(ra)) : "");
}

static void head(FILE *out, const struct cmp *c, const char *first, int width)
{
	fprintf(out, "  %-*s", width, first);
	for (size_t i = 0; i < c->ninputs; i++)
		fprintf(out, " %12s%7s %7s", c->inputs[i].label, "",
			i == c->baseline ? "" : "ratio");
	fputc('\n', out);
}

static void preamble(FILE *out, const struct cmp *c)
{
	fprintf(out, "dutlab compare: %s", c->kind_name);
	if (c->kind == CMP_DSS)
		fprintf(out, " (TPC-H-derived, not TPC-H results), SF %g", c->scale_factor);
	fprintf(out, "; %zu results, baseline %s; ratios are result / baseline\n", c->ninputs,
		c->inputs[c->baseline].label);
	for (size_t i = 0; i < c->ninputs; i++)
		fprintf(out, "  %s  %s\n", c->inputs[i].label, c->inputs[i].source);
	for (size_t i = 0; i < c->nwarnings; i++)
		fprintf(out, "warning: %s\n", c->warnings[i]);
}

static void human_generic(FILE *out, const struct cmp *c)
{
	fputc('\n', out);
	head(out, c, "phase / metric (unit)", 40);
	for (size_t r = 0; r < c->nrows; r++) {
		const struct cmp_row *row = &c->rows[r];
		char name[128];

		snprintf(name, sizeof(name), "%s / %s (%s)", row->phase, row->metric, row->unit);
		fprintf(out, "  %-40s", name);
		for (size_t i = 0; i < c->ninputs; i++)
			cell(out, c, i, &row->v[i], &row->v[c->baseline], -1, ' ');
		fputc('\n', out);
	}
	bool spread = false;

	for (size_t r = 0; r < c->nrows; r++)
		for (size_t i = 0; i < c->ninputs; i++)
			spread |= c->rows[r].v[i].n > 1;
	fprintf(out, "\nrows: the metrics present in every result; latency in ms%s%s\n",
		spread ? "; " : "", spread ? SPREAD_DEFINITION : "");
}

enum sum_field { SUM_M_TIME, SUM_M_SCORE, SUM_TOTAL, SUM_GEOMEAN };

static struct cmp_stat sum_value(const struct cmp_dss_sum *s, enum sum_field f)
{
	static const bool is_m[SUM_GEOMEAN + 1] = { [SUM_M_TIME] = true, [SUM_M_SCORE] = true };
	const double v[] = { [SUM_M_TIME] = s->m_time_s, [SUM_M_SCORE] = s->m_score_s,
			     [SUM_TOTAL] = s->total_s, [SUM_GEOMEAN] = s->geomean_s };

	if (is_m[f] ? !s->m_defined : !s->nok)
		return (struct cmp_stat){ 0 };   /* undefined, shown as "-" */
	return (struct cmp_stat){ .median = v[f], .min = v[f], .max = v[f], .n = 1 };
}

static void sum_row(FILE *out, const struct cmp *c, const char *name, enum sum_field f)
{
	struct cmp_stat base = sum_value(&c->sum[c->baseline], f);

	fprintf(out, "  %-30s", name);
	for (size_t i = 0; i < c->ninputs; i++) {
		struct cmp_stat v = sum_value(&c->sum[i], f);

		cell(out, c, i, &v, &base, 4, ' ');
	}
	fputc('\n', out);
}

static void human_dss(FILE *out, const struct cmp *c)
{
	unsigned maxreps = 0;
	bool first = true;

	fprintf(out, "\nphase times (s)\n");
	head(out, c, "phase", 30);
	for (size_t r = 0; r < c->nrows; r++) {
		fprintf(out, "  %-30s", c->rows[r].phase);
		for (size_t i = 0; i < c->ninputs; i++)
			cell(out, c, i, &c->rows[r].v[i], &c->rows[r].v[c->baseline], 3, ' ');
		fputc('\n', out);
	}
	for (size_t k = 0; k < c->nqueries; k++)
		for (size_t i = 0; i < c->ninputs; i++)
			if (c->queries[k].cell[i].t_s.n > maxreps)
				maxreps = c->queries[k].cell[i].t_s.n;
	fprintf(out, "\nquery times (s, median of up to %u run%s); * = plan differs from %s's; "
		"! = timed out or failed; ? = plan varied between repetitions\n",
		maxreps, maxreps == 1 ? "" : "s", c->inputs[c->baseline].label);
	head(out, c, "query", 30);
	for (size_t k = 0; k < c->nqueries; k++) {
		const struct cmp_query *q = &c->queries[k];
		char name[64];

		snprintf(name, sizeof(name), "%c Q%-2u %.24s", q->why == CMP_QUALIFIES ? ' ' : 'x',
			 q->q, q->title);
		fprintf(out, "  %-30s", name);
		for (size_t i = 0; i < c->ninputs; i++) {
			const struct cmp_qcell *cl = &q->cell[i];

			char mark = cl->nfailed ? '!' : cl->plan_unstable ? '?' :
				    cl->plan_differs ? '*' : ' ';

			cell(out, c, i, &cl->t_s, &q->cell[c->baseline].t_s, 4, mark);
		}
		fputc('\n', out);
	}
	if (maxreps > 1)
		fprintf(out, "(%s)\n", SPREAD_DEFINITION);

	fprintf(out, "\nm-time over %u of %zu queries (x above = out of m-time)%s", c->nqualifying,
		c->nqueries, c->nqualifying ? ": " : "\n");
	for (size_t k = 0; c->nqualifying && k < c->nqueries; k++)
		if (c->queries[k].why == CMP_QUALIFIES) {
			fprintf(out, "%sQ%u", first ? "" : ", ", c->queries[k].q);
			first = false;
		}
	if (c->nqualifying)
		fputc('\n', out);
	head(out, c, "", 30);
	sum_row(out, c, "m-time (s)", SUM_M_TIME);
	sum_row(out, c, "m-score (s, geometric mean)", SUM_M_SCORE);
	sum_row(out, c, "total, all queries (s)", SUM_TOTAL);
	sum_row(out, c, "geometric mean, all (s)", SUM_GEOMEAN);
	fprintf(out, "  %-30s", "queries in the totals");
	for (size_t i = 0; i < c->ninputs; i++)
		fprintf(out, " %12u%7s %7s", c->sum[i].nok, "", "");
	fputc('\n', out);
	if (!c->nqualifying)
		fprintf(out, "m-time and m-score: undefined (no query qualifies; not 0)\n");
	fprintf(out, "\n%c%s.\n", c->explanation[0] >= 'a' && c->explanation[0] <= 'z' ?
		c->explanation[0] - 'a' + 'A' : c->explanation[0], c->explanation + 1);
}

static int render_human(const struct cmp *c, const struct cmp_render_opts *o, FILE *out,
			const char *dest)
{
	(void)o;
	(void)dest;
	preamble(out, c);
	if (c->kind == CMP_DSS)
		human_dss(out, c);
	else
		human_generic(out, c);
	return ferror(out) ? -EIO : 0;
}

const struct cmp_renderer cmp_render_human = { .name = "human", .render = render_human };

/* ---- JSON (a result document) ---- */

static json_object *stat_json(const struct cmp_stat *s)
{
	json_object *o;

	if (!s->n)
		return NULL;     /* JSON null: no value */
	o = json_object_new_object();
	json_object_object_add(o, "median", json_object_new_double(s->median));
	json_object_object_add(o, "min", json_object_new_double(s->min));
	json_object_object_add(o, "max", json_object_new_double(s->max));
	json_object_object_add(o, "n", json_object_new_int((int)s->n));
	return o;
}

static json_object *ratio_json(const struct cmp_stat *v, const struct cmp_stat *base)
{
	double r;

	return cmp_ratio(v, base, &r) ? json_object_new_double(r) : NULL;
}

static json_object *rows_json(const struct cmp *c)
{
	json_object *arr = json_object_new_array();

	for (size_t r = 0; r < c->nrows; r++) {
		const struct cmp_row *row = &c->rows[r];
		json_object *o = json_object_new_object(), *v = json_object_new_array(),
			    *ra = json_object_new_array();

		json_object_object_add(o, "phase", json_object_new_string(row->phase));
		json_object_object_add(o, "metric", json_object_new_string(row->metric));
		json_object_object_add(o, "unit", json_object_new_string(row->unit));
		for (size_t i = 0; i < c->ninputs; i++) {
			json_object_array_add(v, stat_json(&row->v[i]));
			json_object_array_add(ra, ratio_json(&row->v[i], &row->v[c->baseline]));
		}
		json_object_object_add(o, "values", v);
		json_object_object_add(o, "ratios", ra);
		json_object_array_add(arr, o);
	}
	return arr;
}

static json_object *queries_json(const struct cmp *c)
{
	json_object *arr = json_object_new_array();

	for (size_t k = 0; k < c->nqueries; k++) {
		const struct cmp_query *q = &c->queries[k];
		json_object *o = json_object_new_object(), *cells = json_object_new_array();

		json_object_object_add(o, "query", json_object_new_int((int)q->q));
		json_object_object_add(o, "title", json_object_new_string(q->title));
		json_object_object_add(o, "in_m_time", json_object_new_boolean(q->why == CMP_QUALIFIES));
		if (q->why != CMP_QUALIFIES) {
			json_object_object_add(o, "reason", json_object_new_string(cmp_why_text(q->why)));
			json_object_object_add(o, "reason_config",
					       json_object_new_string(c->inputs[q->why_input].label));
		}
		for (size_t i = 0; i < c->ninputs; i++) {
			const struct cmp_qcell *cl = &q->cell[i];
			json_object *e = json_object_new_object();

			json_object_object_add(e, "time_s", stat_json(&cl->t_s));
			json_object_object_add(e, "ratio", ratio_json(&cl->t_s, &q->cell[c->baseline].t_s));
			json_object_object_add(e, "runs", json_object_new_int((int)cl->nruns));
			json_object_object_add(e, "failed", json_object_new_int((int)cl->nfailed));
			json_object_object_add(e, "plan_fingerprint", cl->fingerprint[0] ?
					       json_object_new_string(cl->fingerprint) : NULL);
			json_object_object_add(e, "plan_differs", json_object_new_boolean(cl->plan_differs));
			json_object_object_add(e, "plan_unstable", json_object_new_boolean(cl->plan_unstable));
			json_object_array_add(cells, e);
		}
		json_object_object_add(o, "configs", cells);
		json_object_array_add(arr, o);
	}
	return arr;
}

static int set_sum_metrics(struct dut_result_phase *ph, const struct cmp *c, size_t i)
{
	const struct cmp_dss_sum *s = &c->sum[i], *b = &c->sum[c->baseline];
	int r = 0;

	if (s->m_defined) {
		r |= dut_phase_set_metric(ph, "m_time_s", s->m_time_s, "s");
		r |= dut_phase_set_metric(ph, "m_score_s", s->m_score_s, "s");
		if (b->m_time_s > 0 && b->m_score_s > 0) {
			r |= dut_phase_set_metric(ph, "m_time_ratio", s->m_time_s / b->m_time_s, "");
			r |= dut_phase_set_metric(ph, "m_score_ratio", s->m_score_s / b->m_score_s, "");
		}
	}
	if (s->nok) {
		r |= dut_phase_set_metric(ph, "total_s", s->total_s, "s");
		r |= dut_phase_set_metric(ph, "geomean_s", s->geomean_s, "s");
	}
	r |= dut_phase_set_metric(ph, "queries_in_totals", s->nok, "queries");
	return r ? -ENOMEM : 0;
}

static int compare_phase(struct dut_result *res, const struct cmp *c)
{
	struct dut_result_phase *ph = dut_result_add_phase(res, "compare");
	json_object *extra, *warn, *qual;

	if (!ph || !(extra = dut_phase_extra(ph)))
		return -ENOMEM;
	json_object_object_add(extra, "kind", json_object_new_string(c->kind_name));
	json_object_object_add(extra, "baseline", json_object_new_string(c->inputs[c->baseline].label));
	warn = json_object_new_array();
	for (size_t i = 0; i < c->nwarnings; i++)
		json_object_array_add(warn, json_object_new_string(c->warnings[i]));
	json_object_object_add(extra, "warnings", warn);
	json_object_object_add(extra, c->kind == CMP_DSS ? "phase_times" : "rows", rows_json(c));
	if (c->kind != CMP_DSS)
		return 0;
	/* The baseline's m-time and m-score; every configuration's are in config/<label>. */
	if (c->sum[c->baseline].m_defined &&
	    (dut_phase_set_metric(ph, "m_time_s", c->sum[c->baseline].m_time_s, "s") < 0 ||
	     dut_phase_set_metric(ph, "m_score_s", c->sum[c->baseline].m_score_s, "s") < 0))
		return -ENOMEM;
	if (dut_phase_set_metric(ph, "queries_compared", c->nqualifying, "queries") < 0 ||
	    dut_phase_set_metric(ph, "queries_total", (double)c->nqueries, "queries") < 0)
		return -ENOMEM;
	json_object_object_add(extra, "m_time_defined", json_object_new_boolean(c->nqualifying > 0));
	json_object_object_add(extra, "m_time_definition", json_object_new_string(M_TIME_DEFINITION));
	json_object_object_add(extra, "explanation", json_object_new_string(c->explanation));
	qual = json_object_new_array();
	for (size_t k = 0; k < c->nqueries; k++)
		if (c->queries[k].why == CMP_QUALIFIES)
			json_object_array_add(qual, json_object_new_int((int)c->queries[k].q));
	json_object_object_add(extra, "qualifying_queries", qual);
	json_object_object_add(extra, "queries", queries_json(c));
	return 0;
}

/* config/<label>: one phase per configuration, its values as metrics. */
static int config_phase(struct dut_result *res, const struct cmp *c, size_t i)
{
	char name[300];
	struct dut_result_phase *ph;
	json_object *extra;
	int r;

	snprintf(name, sizeof(name), "config/%s", c->inputs[i].label);
	ph = dut_result_add_phase(res, name);
	if (!ph || !(extra = dut_phase_extra(ph)))
		return -ENOMEM;
	json_object_object_add(extra, "source", json_object_new_string(c->inputs[i].source));
	json_object_object_add(extra, "documents", json_object_new_int((int)c->inputs[i].ndocs));
	for (size_t k = 0; k < c->nrows; k++) {
		const struct cmp_row *row = &c->rows[k];

		if (!row->v[i].n)
			continue;
		snprintf(name, sizeof(name), "%s/%s", row->phase, row->metric);
		if ((r = dut_phase_set_metric(ph, name, row->v[i].median, row->unit)) < 0)
			return r;
	}
	return c->kind == CMP_DSS ? set_sum_metrics(ph, c, i) : 0;
}

static int render_json(const struct cmp *c, const struct cmp_render_opts *o, FILE *out,
		       const char *dest)
{
	_cleanup_(dut_result_freep) struct dut_result *res = dut_result_new("dutlab", DUT_VERSION);
	json_object *inputs, *cfg;
	int r;

	(void)out;
	if (!res)
		return -ENOMEM;
	if (o->argv && (r = dut_result_set_command(res, o->argc, o->argv)) < 0)
		return r;
	inputs = json_object_new_array();
	for (size_t i = 0; i < c->ninputs; i++) {
		json_object *in = json_object_new_object();

		json_object_object_add(in, "label", json_object_new_string(c->inputs[i].label));
		json_object_object_add(in, "source", json_object_new_string(c->inputs[i].source));
		json_object_array_add(inputs, in);
	}
	json_object_object_add(dut_result_target(res), "compared", inputs);
	cfg = dut_result_config(res);
	json_object_object_add(cfg, "command", json_object_new_string("compare"));
	json_object_object_add(cfg, "kind", json_object_new_string(c->kind_name));
	json_object_object_add(cfg, "baseline", json_object_new_string(c->inputs[c->baseline].label));
	if (c->kind == CMP_DSS)
		json_object_object_add(cfg, "scale_factor", json_object_new_double(c->scale_factor));
	json_object_object_add(cfg, "spread_definition", json_object_new_string(SPREAD_DEFINITION));
	if ((r = compare_phase(res, c)) < 0)
		return r;
	for (size_t i = 0; i < c->ninputs; i++)
		if ((r = config_phase(res, c, i)) < 0)
			return r;
	return out_file_write_result(res, dest);
}

const struct cmp_renderer cmp_render_json = { .name = "json", .render = render_json };
