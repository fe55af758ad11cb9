/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dutlab compare for pgload dss results (pure): phase times, per-query
 * medians and plan fingerprints, m-time and m-score.  The document layout
 * read here is the one pgload/dss/report_json.c writes: config.scale_factor,
 * config.params, config.param_seed, config.data_seed, and in the "queries"
 * phase extra.queries[] = { query, title, rep, status, duration_ns,
 * plan_fingerprint, ... }.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "tools/compare/compare.h"

/* A time of 0 would make the geometric mean 0: count it as 1 ns (as pgload does). */
#define MIN_TIME_S 1e-9

static json_object *config_member(const struct dut_result *r, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(dut_result_json(r), "config", &v) ||
	    !json_object_object_get_ex(v, key, &v))
		return NULL;
	return v;
}

static json_object *doc_queries(const struct dut_result *r)
{
	struct dut_result_phase *ph = dut_result_find_phase(r, "queries");
	json_object *q;

	if (!ph || !json_object_object_get_ex(dut_phase_extra(ph), "queries", &q) ||
	    !json_object_is_type(q, json_type_array))
		return NULL;
	return q;
}

static int entry_int(json_object *e, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(e, key, &v) ? json_object_get_int(v) : -1;
}

static const char *entry_str(json_object *e, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(e, key, &v) && json_object_is_type(v, json_type_string) ?
	       json_object_get_string(v) : NULL;
}

/* ---- comparability ---- */

/* Refuse (or, with force, warn about) a difference between two documents. */
static int differ(struct cmp *c, bool force, struct dut_error *err, const char *what,
		  const struct cmp_input *a, const char *va, const struct cmp_input *b, const char *vb,
		  const char *why)
{
	if (!force) {
		dut_error_set(err, "%s differ: %s (%s) has %s, %s (%s) has %s: %s (use --force to compare anyway)",
			      what, a->label, a->source, va, b->label, b->source, vb, why);
		return -EINVAL;
	}
	return cmp_warn(c, "%s differ: %s has %s, %s has %s (compared anyway: --force)",
			what, a->label, va, b->label, vb);
}

static void params_text(const struct dut_result *r, char *buf, size_t n)
{
	json_object *p = config_member(r, "params"), *s = config_member(r, "param_seed");
	const char *mode = p ? json_object_get_string(p) : "unknown";

	if (strcmp(mode, "random") == 0)
		snprintf(buf, n, "random parameters (seed %s)", s ? json_object_get_string(s) : "?");
	else
		snprintf(buf, n, "%s parameters", mode);
}

/* The query numbers a document ran, as "1,2,...,22" (in the order of a 64-bit set). */
static void query_set_text(const struct dut_result *r, char *buf, size_t n)
{
	json_object *qs = doc_queries(r);
	uint64_t set = 0;
	size_t len = 0;

	buf[0] = 0;
	for (size_t i = 0; qs && i < json_object_array_length(qs); i++) {
		int q = entry_int(json_object_array_get_idx(qs, i), "query");
		if (q >= 0 && q < 64)
			set |= 1ull << q;
	}
	for (int q = 0; q < 64 && len < n; q++)
		if (set & (1ull << q))
			len += snprintf(buf + len, n - len, "%sQ%d", len ? "," : "", q);
	if (!set)
		snprintf(buf, n, "no queries");
}

static int check_docs(struct cmp *c, bool force, struct dut_error *err)
{
	const struct cmp_input *b = &c->inputs[c->baseline];
	const struct dut_result *bd = b->docs[0];
	json_object *sf = config_member(bd, "scale_factor");
	char bv[160], v[160];
	int ret;

	c->scale_factor = sf ? json_object_get_double(sf) : 0;
	for (size_t i = 0; i < c->ninputs; i++) {
		const struct cmp_input *in = &c->inputs[i];

		for (size_t d = 0; d < in->ndocs; d++) {
			const struct dut_result *r = in->docs[d];
			json_object *s = config_member(r, "scale_factor");
			json_object *ds = config_member(r, "data_seed"), *bds = config_member(bd, "data_seed");

			if (!s || json_object_get_double(s) != c->scale_factor) {
				snprintf(bv, sizeof(bv), "SF %g", c->scale_factor);
				snprintf(v, sizeof(v), "SF %g", s ? json_object_get_double(s) : 0.0);
				ret = differ(c, force, err, "scale factors", b, bv, in, v,
					     "times at different scales are not comparable");
				if (ret < 0)
					return ret;
			}
			query_set_text(bd, bv, sizeof(bv));
			query_set_text(r, v, sizeof(v));
			if (strcmp(bv, v) != 0 &&
			    (ret = differ(c, force, err, "query sets", b, bv, in, v,
					  "totals over different queries are not comparable")) < 0)
				return ret;
			params_text(bd, bv, sizeof(bv));
			params_text(r, v, sizeof(v));
			if (strcmp(bv, v) != 0 &&
			    (ret = differ(c, force, err, "substitution parameters", b, bv, in, v,
					  "the queries asked different questions")) < 0)
				return ret;
			snprintf(bv, sizeof(bv), "data seed %s", bds ? json_object_get_string(bds) : "?");
			snprintf(v, sizeof(v), "data seed %s", ds ? json_object_get_string(ds) : "?");
			if (strcmp(bv, v) != 0 &&
			    (ret = differ(c, force, err, "data seeds", b, bv, in, v,
					  "the databases held different data")) < 0)
				return ret;
		}
	}
	return 0;
}

/* ---- phase times ---- */

static bool have_row(const struct cmp *c, const char *phase)
{
	for (size_t i = 0; i < c->nrows; i++)
		if (strcmp(c->rows[i].phase, phase) == 0)
			return true;
	return false;
}

static int phase_row(struct cmp *c, const char *phase)
{
	struct cmp_row *row = cmp_add_row(c, phase, "time", "s");

	if (!row)
		return -ENOMEM;
	for (size_t i = 0; i < c->ninputs; i++) {
		const struct cmp_input *in = &c->inputs[i];
		double v[in->ndocs];
		unsigned n = 0;

		for (size_t d = 0; d < in->ndocs; d++) {
			struct dut_result_phase *ph = dut_result_find_phase(in->docs[d], phase);
			uint64_t ns;

			if (ph && dut_phase_get_duration(ph, &ns) == 0)
				v[n++] = (double)ns / 1e9;
		}
		row->v[i] = cmp_stat_of(v, n);
	}
	return 0;
}

/* Phases in the order the baseline has them, then any others. */
static int phase_rows(struct cmp *c)
{
	for (size_t k = 0; k < c->ninputs; k++) {
		const struct cmp_input *in = &c->inputs[(c->baseline + k) % c->ninputs];

		for (size_t d = 0; d < in->ndocs; d++)
			for (size_t p = 0; p < dut_result_phase_count(in->docs[d]); p++) {
				const char *name = dut_phase_name(dut_result_phase_at(in->docs[d], p));
				int ret;

				if (!have_row(c, name) && (ret = phase_row(c, name)) < 0)
					return ret;
			}
	}
	return 0;
}

/* ---- queries ---- */

static struct cmp_query *find_query(struct cmp *c, unsigned q)
{
	for (size_t i = 0; i < c->nqueries; i++)
		if (c->queries[i].q == q)
			return &c->queries[i];
	return NULL;
}

static int add_query(struct cmp *c, unsigned q, const char *title)
{
	struct cmp_query *qs = realloc(c->queries, (c->nqueries + 1) * sizeof(*qs));

	if (!qs)
		return -ENOMEM;
	c->queries = qs;
	qs[c->nqueries] = (struct cmp_query){ .q = q, .title = strdup(title ? title : ""),
					      .cell = calloc(c->ninputs, sizeof(struct cmp_qcell)) };
	if (!qs[c->nqueries].title || !qs[c->nqueries].cell) {
		free(qs[c->nqueries].title);
		free(qs[c->nqueries].cell);
		return -ENOMEM;
	}
	c->nqueries++;
	return 0;
}

static int by_query(const void *a, const void *b)
{
	const struct cmp_query *x = a, *y = b;

	return (x->q > y->q) - (x->q < y->q);
}

static int collect_queries(struct cmp *c)
{
	for (size_t i = 0; i < c->ninputs; i++)
		for (size_t d = 0; d < c->inputs[i].ndocs; d++) {
			json_object *qs = doc_queries(c->inputs[i].docs[d]);

			for (size_t k = 0; qs && k < json_object_array_length(qs); k++) {
				json_object *e = json_object_array_get_idx(qs, k);
				int q = entry_int(e, "query"), ret;

				if (q < 0 || find_query(c, (unsigned)q))
					continue;
				if ((ret = add_query(c, (unsigned)q, entry_str(e, "title"))) < 0)
					return ret;
			}
		}
	if (c->nqueries)
		qsort(c->queries, c->nqueries, sizeof(*c->queries), by_query);
	return 0;
}

/* Every run of query q in input i: times, failures, fingerprints. */
static int fill_cell(const struct cmp_input *in, unsigned q, struct cmp_qcell *cell)
{
	size_t cap = 0;
	double *t = NULL;
	unsigned nt = 0;
	bool fp_missing = false;

	for (size_t d = 0; d < in->ndocs; d++) {
		json_object *qs = doc_queries(in->docs[d]);

		for (size_t k = 0; qs && k < json_object_array_length(qs); k++) {
			json_object *e = json_object_array_get_idx(qs, k), *v;
			const char *status = entry_str(e, "status"), *fp = entry_str(e, "plan_fingerprint");

			if (entry_int(e, "query") != (int)q)
				continue;
			if (!fp)
				fp_missing = true;
			else if (!cell->nruns)
				snprintf(cell->fingerprint, sizeof(cell->fingerprint), "%s", fp);
			else if (strcmp(cell->fingerprint, fp) != 0)
				cell->plan_unstable = true;
			cell->nruns++;
			if (!status || strcmp(status, "ok") != 0 ||
			    !json_object_object_get_ex(e, "duration_ns", &v)) {
				cell->nfailed++;
				continue;
			}
			if (nt == cap) {
				double *n = realloc(t, (cap = cap ? 2 * cap : 8) * sizeof(*t));
				if (!n) {
					free(t);
					return -ENOMEM;
				}
				t = n;
			}
			t[nt++] = (double)json_object_get_uint64(v) / 1e9;
		}
	}
	if (fp_missing)
		cell->fingerprint[0] = 0;
	cell->present = cell->nruns > 0;
	cell->t_s = cmp_stat_of(t, nt);
	free(t);
	return 0;
}

static enum cmp_why cell_why(const struct cmp_qcell *cell)
{
	if (!cell->present)
		return CMP_WHY_MISSING;
	if (cell->nfailed)
		return CMP_WHY_NOT_OK;
	if (!cell->fingerprint[0])
		return CMP_WHY_NO_FINGERPRINT;
	if (cell->plan_unstable)
		return CMP_WHY_PLAN_UNSTABLE;
	if (cell->plan_differs)
		return CMP_WHY_PLAN_CHANGED;
	return CMP_QUALIFIES;
}

static int classify_queries(struct cmp *c)
{
	for (size_t k = 0; k < c->nqueries; k++) {
		struct cmp_query *q = &c->queries[k];
		const struct cmp_qcell *base = &q->cell[c->baseline];
		int ret;

		for (size_t i = 0; i < c->ninputs; i++)
			if ((ret = fill_cell(&c->inputs[i], q->q, &q->cell[i])) < 0)
				return ret;
		q->why = CMP_QUALIFIES;
		for (size_t i = 0; i < c->ninputs; i++) {
			struct cmp_qcell *cell = &q->cell[i];

			cell->plan_differs = cell->fingerprint[0] && base->fingerprint[0] &&
					     strcmp(cell->fingerprint, base->fingerprint) != 0;
			if (q->why == CMP_QUALIFIES && cell_why(cell) != CMP_QUALIFIES) {
				q->why = cell_why(cell);
				q->why_input = i;
			}
		}
		if (q->why == CMP_QUALIFIES)
			c->nqualifying++;
	}
	return 0;
}

static void summarise(struct cmp *c)
{
	for (size_t i = 0; i < c->ninputs; i++) {
		struct cmp_dss_sum *s = &c->sum[i];
		double mlog = 0, alog = 0;

		for (size_t k = 0; k < c->nqueries; k++) {
			const struct cmp_query *q = &c->queries[k];
			const struct cmp_qcell *cell = &q->cell[i];
			double t = cell->t_s.median, lt = log(fmax(t, MIN_TIME_S));

			if (!cell->present || cell->nfailed || !cell->t_s.n)
				continue;
			s->nok++;
			s->total_s += t;
			alog += lt;
			if (q->why == CMP_QUALIFIES) {
				s->m_time_s += t;
				mlog += lt;
			}
		}
		s->geomean_s = s->nok ? exp(alog / s->nok) : 0;
		s->m_defined = c->nqualifying > 0;
		s->m_score_s = s->m_defined ? exp(mlog / c->nqualifying) : 0;
	}
}

/* ---- the explanation sentence ---- */

struct buf {
	char *s;
	size_t len, cap;
	bool oom;
};

static void bput(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void bput(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->oom)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->oom = true;
			return;
		}
		if (b->s && b->len + (size_t)n < b->cap) {
			b->len += (size_t)n;
			return;
		}
		char *s = realloc(b->s, b->cap = 2 * (b->cap + (size_t)n + 64));
		if (!s) {
			b->oom = true;
			return;
		}
		b->s = s;
	}
}

/* Does query q, in input i, fall under reason w (whatever its first reason was)? */
static bool cell_has(const struct cmp_qcell *cell, enum cmp_why w)
{
	switch (w) {
	case CMP_WHY_MISSING:
		return !cell->present;
	case CMP_WHY_NOT_OK:
		return cell->present && cell->nfailed;
	case CMP_WHY_NO_FINGERPRINT:
		return cell->present && !cell->fingerprint[0];
	case CMP_WHY_PLAN_UNSTABLE:
		return cell->plan_unstable;
	case CMP_WHY_PLAN_CHANGED:
		return cell->plan_differs;
	case CMP_QUALIFIES:
		break;
	}
	return false;
}

/* "plans changed for Q2, Q9 in config B and for Q6 in config C" */
static bool explain_reason(const struct cmp *c, enum cmp_why w, const char *phrase, bool first,
			   struct buf *b)
{
	bool any = false;

	for (size_t i = 0; i < c->ninputs; i++) {
		bool in_any = false;

		for (size_t k = 0; k < c->nqueries; k++) {
			if (!cell_has(&c->queries[k].cell[i], w))
				continue;
			if (!any)
				bput(b, "%s%s for ", first ? "" : "; ", phrase);
			else if (!in_any)
				bput(b, " and for ");
			bput(b, "%sQ%u", in_any ? ", " : "", c->queries[k].q);
			any = in_any = true;
		}
		if (in_any)
			bput(b, " in config %s", c->inputs[i].label);
	}
	return any;
}

static int explain(struct cmp *c)
{
	static const struct { enum cmp_why w; const char *phrase; } reasons[] = {
		{ CMP_WHY_PLAN_CHANGED, "plans changed" },
		{ CMP_WHY_PLAN_UNSTABLE, "plans varied between repetitions" },
		{ CMP_WHY_NO_FINGERPRINT, "no plan fingerprint" },
		{ CMP_WHY_NOT_OK, "timeouts or failures" },
		{ CMP_WHY_MISSING, "no runs" },
	};
	struct buf b = { 0 };
	bool any = false;

	for (size_t r = 0; r < DUT_ARRAY_SIZE(reasons); r++)
		any |= explain_reason(c, reasons[r].w, reasons[r].phrase, !any, &b);
	if (!c->nqueries)
		bput(&b, "no result has a queries phase, so m-time and m-score are undefined");
	else if (!c->nqualifying)
		bput(&b, ", so no query is compared: m-time and m-score are undefined "
		     "(0 of %zu queries kept one plan in every result)", c->nqueries);
	else if (any)
		bput(&b, ", so those are out of m-time; %u of %zu queries are compared",
		     c->nqualifying, c->nqueries);
	else
		bput(&b, "every query kept its plan in every result: %u of %zu queries are compared",
		     c->nqualifying, c->nqueries);
	if (b.oom) {
		free(b.s);
		return -ENOMEM;
	}
	c->explanation = b.s;
	return 0;
}

int cmp_dss_build(struct cmp *c, bool force, struct dut_error *err)
{
	int ret = check_docs(c, force, err);

	if (ret < 0)
		return ret;
	c->sum = calloc(c->ninputs, sizeof(*c->sum));
	if (!c->sum)
		return -ENOMEM;
	if ((ret = phase_rows(c)) < 0 || (ret = collect_queries(c)) < 0 ||
	    (ret = classify_queries(c)) < 0)
		return ret;
	summarise(c);
	return explain(c);
}
