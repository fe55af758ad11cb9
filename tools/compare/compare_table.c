/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The comparison table both builders fill (compare.c: generic metrics,
 * compare_dss.c: DSS queries): statistics, ratios, rows, warnings (pure). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "tools/compare/compare.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct cmp_stat cmp_stat_of(double *v, unsigned n)
{
	struct cmp_stat s = { .n = n };

	if (!n)
		return s;
	qsort(v, n, sizeof(*v), cmp_double);
	s.min = v[0];
	s.max = v[n - 1];
	s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	return s;
}

bool cmp_ratio(const struct cmp_stat *v, const struct cmp_stat *base, double *ret)
{
	if (!v->n || !base->n || base->median == 0)
		return false;
	*ret = v->median / base->median;
	return true;
}

const char *cmp_why_text(enum cmp_why why)
{
	switch (why) {
	case CMP_QUALIFIES:
		return "same plan in every result";
	case CMP_WHY_PLAN_CHANGED:
		return "plan changed";
	case CMP_WHY_PLAN_UNSTABLE:
		return "plan varied between repetitions";
	case CMP_WHY_NO_FINGERPRINT:
		return "no plan fingerprint";
	case CMP_WHY_NOT_OK:
		return "timed out or failed";
	case CMP_WHY_MISSING:
		return "not run";
	}
	return "?";
}

int cmp_warn(struct cmp *c, const char *fmt, ...)
{
	char **w = realloc(c->warnings, (c->nwarnings + 1) * sizeof(*w));
	va_list ap;
	int n;

	if (!w)
		return -ENOMEM;
	c->warnings = w;
	va_start(ap, fmt);
	n = vasprintf(&w[c->nwarnings], fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	c->nwarnings++;
	return 0;
}

struct cmp_row *cmp_add_row(struct cmp *c, const char *phase, const char *metric,
			    const char *unit)
{
	struct cmp_row *rows = realloc(c->rows, (c->nrows + 1) * sizeof(*rows));
	struct cmp_row *r;

	if (!rows)
		return NULL;
	c->rows = rows;
	r = &rows[c->nrows];
	*r = (struct cmp_row){ .phase = strdup(phase), .metric = strdup(metric),
			       .unit = strdup(unit), .v = calloc(c->ninputs, sizeof(*r->v)) };
	if (!r->phase || !r->metric || !r->unit || !r->v) {
		free(r->phase);
		free(r->metric);
		free(r->unit);
		free(r->v);
		return NULL;
	}
	c->nrows++;
	return r;
}

void cmp_free(struct cmp *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nwarnings; i++)
		free(c->warnings[i]);
	for (size_t i = 0; i < c->nrows; i++) {
		free(c->rows[i].phase);
		free(c->rows[i].metric);
		free(c->rows[i].unit);
		free(c->rows[i].v);
	}
	for (size_t i = 0; i < c->nqueries; i++) {
		free(c->queries[i].title);
		free(c->queries[i].cell);
	}
	free(c->warnings);
	free(c->rows);
	free(c->queries);
	free(c->sum);
	free(c->explanation);
	free(c->kind_name);
	free(c->inputs);
	free(c);
}
