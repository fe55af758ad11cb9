/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dutlab compare: comparability checks and the generic metric comparison (pure). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "tools/compare/compare.h"

/* ---- what a document is ---- */

static const char *config_string(const struct dut_result *r, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(dut_result_json(r), "config", &v) ||
	    !json_object_object_get_ex(v, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* pgload dss documents carry config.scale_factor (OLTP ones config.workload). */
static bool doc_is_dss(const struct dut_result *r)
{
	json_object *v;

	return strcmp(dut_result_tool_name(r), "pgload") == 0 &&
	       json_object_object_get_ex(dut_result_json(r), "config", &v) &&
	       json_object_object_get_ex(v, "scale_factor", NULL);
}

/* "pgload dss", "pgload oltp", "dutprobe bench", or the tool name alone. */
static char *doc_kind(const struct dut_result *r)
{
	const char *tool = dut_result_tool_name(r);
	const char *sub = config_string(r, "workload");
	char *s;

	if (doc_is_dss(r))
		sub = "dss";
	else if (!sub)
		sub = config_string(r, "test");
	if (asprintf(&s, "%s%s%s", tool, sub ? " " : "", sub ? sub : "") < 0)
		return NULL;
	return s;
}

static int check_kinds(struct cmp *c, struct dut_error *err)
{
	const struct cmp_input *b = &c->inputs[c->baseline];

	c->kind_name = doc_kind(b->docs[0]);
	if (!c->kind_name)
		return -ENOMEM;
	c->kind = doc_is_dss(b->docs[0]) ? CMP_DSS : CMP_GENERIC;
	for (size_t i = 0; i < c->ninputs; i++) {
		const struct cmp_input *in = &c->inputs[i];

		for (size_t d = 0; d < in->ndocs; d++) {
			_cleanup_free_ char *k = doc_kind(in->docs[d]);

			if (!k)
				return -ENOMEM;
			if (strcmp(k, c->kind_name) != 0) {
				dut_error_set(err, "cannot compare a %s result (%s: %s) with a %s result "
					      "(%s: %s): compare results of one tool and workload",
					      c->kind_name, b->label, b->source, k, in->label, in->source);
				return -EINVAL;
			}
		}
	}
	return 0;
}

/* ---- generic: every phase metric present in all inputs ---- */

static json_object *phase_json(const struct dut_result *r, const char *phase, const char *member)
{
	json_object *phases, *v;

	if (!json_object_object_get_ex(dut_result_json(r), "phases", &phases))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(phases); i++) {
		json_object *p = json_object_array_get_idx(phases, i), *n;

		if (json_object_object_get_ex(p, "name", &n) &&
		    strcmp(json_object_get_string(n), phase) == 0)
			return json_object_object_get_ex(p, member, &v) ? v : NULL;
	}
	return NULL;
}

enum value_src { SRC_DURATION, SRC_METRIC, SRC_LATENCY };

/* One sample of a value in one document; false when the document lacks it. */
static bool doc_value(const struct dut_result *r, enum value_src src, const char *phase,
		      const char *name, const char *pct, const char *unit, double *ret)
{
	struct dut_result_phase *ph = dut_result_find_phase(r, phase);
	json_object *lat, *v;
	const char *u;
	uint64_t ns;

	if (!ph)
		return false;
	switch (src) {
	case SRC_DURATION:
		if (dut_phase_get_duration(ph, &ns) < 0)
			return false;
		*ret = (double)ns / 1e9;
		return true;
	case SRC_METRIC:
		if (dut_phase_get_metric(ph, name, ret, &u) < 0 || strcmp(u, unit) != 0)
			return false;
		return true;
	case SRC_LATENCY:
		lat = phase_json(r, phase, "latency");
		if (!lat || !json_object_object_get_ex(lat, name, &lat) ||
		    !json_object_object_get_ex(lat, pct, &v))
			return false;
		*ret = json_object_get_double(v) / 1e6;     /* ns -> ms */
		return true;
	}
	return false;
}

/* Collect the value from every document; add a row only when every input has it. */
static int add_common(struct cmp *c, enum value_src src, const char *phase, const char *name,
		      const char *pct, const char *unit, const char *row_metric,
		      const char *row_unit)
{
	struct cmp_stat *st = calloc(c->ninputs, sizeof(*st));
	struct cmp_row *row;
	int ret = 0;

	if (!st)
		return -ENOMEM;
	for (size_t i = 0; i < c->ninputs; i++) {
		const struct cmp_input *in = &c->inputs[i];
		double *v = calloc(in->ndocs, sizeof(*v));
		unsigned n = 0;

		if (!v) {
			ret = -ENOMEM;
			goto out;
		}
		for (size_t d = 0; d < in->ndocs; d++)
			if (doc_value(in->docs[d], src, phase, name, pct, unit, &v[n]))
				n++;
		st[i] = n == in->ndocs ? cmp_stat_of(v, n) : (struct cmp_stat){ 0 };
		free(v);
		if (!st[i].n)
			goto out;  /* not in every input: not compared */
	}
	row = cmp_add_row(c, phase, row_metric, row_unit);
	if (!row) {
		ret = -ENOMEM;
		goto out;
	}
	memcpy(row->v, st, c->ninputs * sizeof(*st));
out:
	free(st);
	return ret;
}

static int generic_phase(struct cmp *c, const char *phase)
{
	static const char *const pcts[] = { "mean", "p50", "p99", "p99.9" };
	json_object *metrics = phase_json(c->inputs[c->baseline].docs[0], phase, "metrics");
	json_object *lat = phase_json(c->inputs[c->baseline].docs[0], phase, "latency");
	char buf[300];
	int ret = add_common(c, SRC_DURATION, phase, NULL, NULL, NULL, "time", "s");

	if (ret < 0 || !metrics)
		return ret;
	json_object_object_foreach(metrics, name, m) {
		json_object *u;
		const char *unit = json_object_object_get_ex(m, "unit", &u) ? json_object_get_string(u) : "";

		ret = add_common(c, SRC_METRIC, phase, name, NULL, unit, name, unit);
		if (ret < 0)
			return ret;
	}
	if (!lat)
		return 0;
	json_object_object_foreach(lat, lname, l) {
		(void)l;
		for (size_t k = 0; k < DUT_ARRAY_SIZE(pcts); k++) {
			snprintf(buf, sizeof(buf), "latency %s %s", lname, pcts[k]);
			ret = add_common(c, SRC_LATENCY, phase, lname, pcts[k], NULL, buf, "ms");
			if (ret < 0)
				return ret;
		}
	}
	return 0;
}

static int generic_build(struct cmp *c, struct dut_error *err)
{
	const struct dut_result *b = c->inputs[c->baseline].docs[0];
	int ret;

	for (size_t p = 0; p < dut_result_phase_count(b); p++) {
		ret = generic_phase(c, dut_phase_name(dut_result_phase_at(b, p)));
		if (ret < 0)
			return ret;
	}
	if (!c->nrows) {
		dut_error_set(err, "the %s results have no phase metric in common (phases of %s: %s): "
			      "nothing to compare", c->kind_name, c->inputs[c->baseline].label,
			      c->inputs[c->baseline].source);
		return -EINVAL;
	}
	return 0;
}

int cmp_build(const struct cmp_input *inputs, size_t ninputs, const struct cmp_opts *o,
	      struct cmp **ret, struct dut_error *err)
{
	struct cmp *c;
	int r;

	if (ninputs < 2) {
		dut_error_set(err, "compare needs at least 2 results, got %zu", ninputs);
		return -EINVAL;
	}
	if (ninputs > CMP_MAX_INPUTS) {
		dut_error_set(err, "compare takes at most %d results, got %zu", CMP_MAX_INPUTS, ninputs);
		return -EINVAL;
	}
	if (o->baseline >= ninputs) {
		dut_error_set(err, "baseline %zu: there are only %zu results", o->baseline + 1, ninputs);
		return -EINVAL;
	}
	for (size_t i = 0; i < ninputs; i++)
		if (!inputs[i].ndocs) {
			dut_error_set(err, "%s: no result document", inputs[i].source);
			return -EINVAL;
		}
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->ninputs = ninputs;
	c->baseline = o->baseline;
	c->inputs = calloc(ninputs, sizeof(*c->inputs));
	if (!c->inputs) {
		r = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < ninputs; i++) {
		c->inputs[i] = inputs[i];
		snprintf(c->inputs[i].label, sizeof(c->inputs[i].label), "%c", (char)('A' + i));
	}
	r = check_kinds(c, err);
	if (r < 0)
		goto fail;
	if (c->kind == CMP_DSS)
		r = cmp_dss_build(c, o->force, err);
	else
		r = generic_build(c, err);
	if (r < 0)
		goto fail;
	*ret = c;
	return 0;
fail:
	cmp_free(c);
	return r;
}
