/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dutlab results compare as a report (pure): the three tables and the charts
 * of the spread in the report document of a run directory (report_doc.h), so
 * that render_md() and render_html() lay it out and charts_render() draws it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "tools/report/chart.h"
#include "tools/report/report_doc.h"
#include "tools/results/results.h"

/* Bars in one chart; a chart with more says so in its title. */
#define MAX_BARS 60

const char *const results_titles[3] = {
	"Spread over runs, per device model, model+firmware, filesystem and host (median of each run's repetitions)",
	"Newest run of each experiment on each host",
	"Regressions: the newest run outside the min-max of the earlier runs",
};

static void table_clear(struct results_table *t)
{
	for (size_t i = 0; i < t->ncols; i++)
		free(t->cols[i]);
	for (size_t i = 0; i < t->ncols * t->nrows; i++)
		free(t->cells[i]);
	free(t->cols);
	free(t->numeric);
	free(t->cells);
	memset(t, 0, sizeof(*t));
}

void results_cmp_clear(struct results_cmp *cmp)
{
	for (size_t i = 0; i < DUT_ARRAY_SIZE(cmp->t); i++)
		table_clear(&cmp->t[i]);
}

void results_cell_text(const struct results_table *t, size_t r, size_t c, char *buf, size_t len)
{
	const char *v = t->cells[r * t->ncols + c];
	char *end;
	double d;

	if (!v) {
		snprintf(buf, len, "-");
		return;
	}
	if (t->numeric[c] && strchr(v, '.')) {
		d = strtod(v, &end);
		if (!*end) {
			snprintf(buf, len, "%.6g", d);
			return;
		}
	}
	snprintf(buf, len, "%s", v);
}

static int col(const struct results_table *t, const char *name)
{
	for (size_t i = 0; i < t->ncols; i++)
		if (strcmp(t->cols[i], name) == 0)
			return (int)i;
	return -1;
}

static const char *cell(const struct results_table *t, size_t r, int c)
{
	const char *v = c >= 0 ? t->cells[r * t->ncols + (size_t)c] : NULL;

	return v ? v : "";
}

/* ---- charts ---- */

/* The spread's columns a chart is grouped by, in sort order. */
enum { K_EXP, K_STEP, K_PHASE, K_METRIC, K_UNIT, K_DIM, K_CFG, K_KEY, K_N };
static const char *const key_cols[K_N] = {
	"experiment", "step", "phase", "metric", "unit", "dimension", "config", "key",
};

struct spread {
	const struct results_table *t;
	int k[K_N];
	int median, min, max;
};

static int rows_cmp(const void *a, const void *b, void *arg)
{
	const struct spread *s = arg;
	size_t ra = *(const size_t *)a, rb = *(const size_t *)b;

	for (size_t i = 0; i < K_N; i++) {
		int d = strcmp(cell(s->t, ra, s->k[i]), cell(s->t, rb, s->k[i]));

		if (d)
			return d;
	}
	return ra < rb ? -1 : ra > rb;
}

/* Rows a and b agree in the first n grouping columns. */
static bool same(const struct spread *s, size_t a, size_t b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(cell(s->t, a, s->k[i]), cell(s->t, b, s->k[i])) != 0)
			return false;
	return true;
}

/* Distinct values of column k among rows idx[from..to). */
static size_t distinct(const struct spread *s, const size_t *idx, size_t from, size_t to, size_t k)
{
	size_t n = 0;

	for (size_t i = from; i < to; i++) {
		size_t j = from;

		while (j < i && strcmp(cell(s->t, idx[i], s->k[k]), cell(s->t, idx[j], s->k[k])) != 0)
			j++;
		n += j == i;
	}
	return n;
}

static int warn(struct charts *cs, const char *metric)
{
	char **w = realloc(cs->warnings, (cs->nwarnings + 1) * sizeof(*w));

	if (!w)
		return -ENOMEM;
	cs->warnings = w;
	if (asprintf(&w[cs->nwarnings], "metric name \"%.80s\" has characters other than A-Z a-z 0-9 _ . : / %% - "
		     "and space (or is longer than 128); not charted", metric) < 0)
		return -ENOMEM;
	cs->nwarnings++;
	return 0;
}

/* One chart of the rows idx[from..to): one dimension of one experiment, step, phase and metric. */
static int spread_chart(struct charts *cs, const struct spread *s, const size_t *idx, size_t from, size_t to)
{
	const struct results_table *t = s->t;
	size_t r0 = idx[from], n = to - from < MAX_BARS ? to - from : MAX_BARS;
	size_t ncfg = distinct(s, idx, from, to, K_CFG), nkey = distinct(s, idx, from, to, K_KEY);
	_cleanup_free_ struct chart_range *v = calloc(n, sizeof(*v));
	_cleanup_free_ char *labels = NULL;
	char raw[400], safe[200], name[220], title[600], ylabel[200], more[64] = "";
	const size_t lab_len = 160;
	const char *unit = cell(t, r0, s->k[K_UNIT]);
	int r;

	if (!v || !(labels = calloc(n, lab_len)))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		size_t row = idx[from + i];
		char *l = labels + i * lab_len;

		if (ncfg == 1)
			snprintf(l, lab_len, "%s", cell(t, row, s->k[K_KEY]));
		else if (nkey == 1)
			snprintf(l, lab_len, "%s", cell(t, row, s->k[K_CFG]));
		else
			snprintf(l, lab_len, "%s, %s", cell(t, row, s->k[K_CFG]), cell(t, row, s->k[K_KEY]));
		v[i] = (struct chart_range){ .label = l, .median = strtod(cell(t, row, s->median), NULL),
					     .min = strtod(cell(t, row, s->min), NULL),
					     .max = strtod(cell(t, row, s->max), NULL) };
	}
	snprintf(raw, sizeof(raw), "%s-%s-%s-%s-%s", cell(t, r0, s->k[K_EXP]), cell(t, r0, s->k[K_STEP]),
		 cell(t, r0, s->k[K_PHASE]), cell(t, r0, s->k[K_METRIC]), cell(t, r0, s->k[K_DIM]));
	/* the index keeps names apart that chart_safe_name() made equal */
	snprintf(name, sizeof(name), "spread-%02zu-%s", cs->n + 1, chart_safe_name(raw, safe, sizeof(safe)));
	if (to - from > n)
		snprintf(more, sizeof(more), "; the first %zu of %zu", n, to - from);
	snprintf(title, sizeof(title), "%s, step %s, phase %s: %s per %s%s (median and min-max over runs%s)",
		 cell(t, r0, s->k[K_EXP]), cell(t, r0, s->k[K_STEP]), cell(t, r0, s->k[K_PHASE]),
		 cell(t, r0, s->k[K_METRIC]), ncfg > 1 && nkey > 1 ? "configuration and " :
		 ncfg > 1 ? "configuration on the " : "", cell(t, r0, s->k[K_DIM]), more);
	snprintf(ylabel, sizeof(ylabel), "%s%s%s%s", cell(t, r0, s->k[K_METRIC]), *unit ? " (" : "", unit,
		 *unit ? ")" : "");
	r = charts_add_ranges(cs, name, title, ylabel, v, n);
	return r;
}

int results_charts_build(const struct results_cmp *cmp, struct charts **ret, size_t *ret_left_out)
{
	struct spread s = { .t = &cmp->t[0] };
	struct charts *cs = calloc(1, sizeof(*cs));
	_cleanup_free_ size_t *idx = NULL;
	const size_t nr = s.t->nrows;
	size_t left = 0;
	int r = 0;

	if (!cs)
		return -ENOMEM;
	for (size_t i = 0; i < K_N; i++)
		s.k[i] = col(s.t, key_cols[i]);
	s.median = col(s.t, "median");
	s.min = col(s.t, "min");
	s.max = col(s.t, "max");
	if (!nr || s.median < 0 || s.min < 0 || s.max < 0)
		goto out;
	if (!(idx = calloc(nr, sizeof(*idx)))) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nr; i++)
		idx[i] = i;
	qsort_r(idx, nr, sizeof(*idx), rows_cmp, &s);
	for (size_t g = 0, ge; g < nr && r == 0; g = ge) {
		bool any = false;

		for (ge = g; ge < nr && same(&s, idx[g], idx[ge], K_DIM); ge++)
			;
		if (!chart_metric_name_ok(cell(s.t, idx[g], s.k[K_METRIC]))) {
			r = warn(cs, cell(s.t, idx[g], s.k[K_METRIC]));
			continue;
		}
		/* a dimension with two keys or more is a comparison; else the host shows the configurations */
		for (size_t d = g, de; d < ge; d = de) {
			for (de = d; de < ge && same(&s, idx[d], idx[de], K_DIM + 1); de++)
				;
			any |= distinct(&s, idx, d, de, K_KEY) >= 2;
		}
		for (size_t d = g, de; d < ge && r == 0; d = de) {
			for (de = d; de < ge && same(&s, idx[d], idx[de], K_DIM + 1); de++)
				;
			if (any ? distinct(&s, idx, d, de, K_KEY) < 2 : strcmp(cell(s.t, idx[d], s.k[K_DIM]), "host") != 0)
				continue;
			if (cs->n == RESULTS_MAX_CHARTS)
				left++;
			else
				r = spread_chart(cs, &s, idx, d, de);
		}
	}
out:
	if (r < 0) {
		charts_free(cs);
		return r;
	}
	*ret = cs;
	*ret_left_out = left;
	return 0;
}

/* ---- the document ---- */

static const char *const none_text[3] = {
	"None: no run matches the filter.",
	"None: no run matches the filter.",
	"None: no metric of a newest run lies outside the min-max of two or more earlier runs of the same "
	"experiment, configuration and step.",
};

static void table(struct rdoc *d, const struct results_table *t)
{
	_cleanup_free_ char *headers = NULL;
	size_t len = 1, o = 0;
	char buf[256];

	for (size_t c = 0; c < t->ncols; c++)
		len += strlen(t->cols[c]) + 2;
	if (!(headers = malloc(len))) {
		d->oom = true;
		return;
	}
	headers[0] = '\0';
	for (size_t c = 0; c < t->ncols; c++)
		o += (size_t)snprintf(headers + o, len - o, "%s%s%s", c ? "|" : "", t->numeric[c] ? ">" : "",
				      t->cols[c]);
	rdoc_table(d, "", headers);
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t c = 0; c < t->ncols; c++) {
			results_cell_text(t, r, c, buf, sizeof(buf));
			rdoc_cell(d, "%s", buf);
		}
}

static void charts_section(struct rdoc *d, const struct charts *cs, size_t left_out)
{
	char p[320];

	if (!cs || (!cs->n && !cs->nwarnings && !left_out))
		return;
	rdoc_heading(d, 3, "Charts of the spread");
	for (size_t i = 0; i < cs->n; i++) {
		const struct chart *c = &cs->v[i];

		if (c->rendered) {
			snprintf(p, sizeof(p), "charts/%s.png", c->name);
			rdoc_image(d, p, c->title);
		} else {
			rdoc_para(d, "Chart not rendered: %s (%s).", c->title,
				  c->why_not ? c->why_not : "charts were not drawn");
		}
	}
	if (left_out)
		rdoc_para(d, "%zu more chart%s left out (at most %d are drawn): narrow the comparison with --where.",
			  left_out, left_out == 1 ? " was" : "s were", RESULTS_MAX_CHARTS);
	if (cs->nwarnings) {
		rdoc_list(d);
		for (size_t i = 0; i < cs->nwarnings; i++)
			rdoc_item(d, "%s", cs->warnings[i]);
	}
}

int results_report_build(const struct results_cmp *cmp, const char *filter_text, const struct charts *cs,
			 size_t charts_left_out, struct rdoc **ret)
{
	struct rdoc *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	rdoc_heading(d, 1, "dutlab results compare");
	rdoc_para(d, "Runs: %s. A run's value is the median over its repetitions; the spread is the median "
		  "and the min-max range of those values over the runs (not an IQR).", filter_text);
	for (size_t i = 0; i < 3; i++) {
		rdoc_heading(d, 2, "%s", results_titles[i]);
		if (cmp->t[i].nrows)
			table(d, &cmp->t[i]);
		else
			rdoc_para(d, "%s", none_text[i]);
		if (i == 0)
			charts_section(d, cs, charts_left_out);
	}
	if (d->oom) {
		rdoc_free(d);
		return -ENOMEM;
	}
	*ret = d;
	return 0;
}
