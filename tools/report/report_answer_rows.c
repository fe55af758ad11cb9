/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Rows of "The answer in numbers" (pure): the helpers the step kinds'
 * answer ops (tools/kinds/, their report halves) write their rows with.  A leaf: it calls
 * no driver, so the kinds' ops add no call cycle.
 */
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "tools/compare/compare.h"
#include "tools/report/report_answer_rows.h"
#include "tools/report/report_run_steps.h"
#include "tools/report/rundir_stats.h"

#define MIB (1024.0 * 1024.0)

/* Median over a configuration's documents of a step of the sum of their phases' durations (s). */
struct cmp_stat answer_all_phases_s(const struct rundir_config *c, const char *step)
{
	const struct dut_result *docs[RUNDIR_MAX_DOCS];
	size_t nd = rundir_config_docs(c, step, docs, RUNDIR_MAX_DOCS);
	double v[RUNDIR_MAX_DOCS];
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

void answer_row(struct rdoc *d, const char *cfg, const char *step, const char *what,
		const struct cmp_stat *s, double scale, int dec, const struct cmp_stat *base)
{
	char a[64], b[64];
	double ratio;

	if (!s->n)
		return;
	rdoc_cell(d, "%s", cfg);
	rdoc_cell(d, "%s", step);
	rdoc_cell(d, "%s", what);
	rdoc_cell(d, "%s", rundir_fmt_median(s, scale, dec, a, sizeof(a)));
	rdoc_cell(d, "%s", rundir_fmt_range(s, scale, dec, b, sizeof(b)));
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
void answer_slc_rows(struct rdoc *d, const struct rundir_config *c, const char *st, const char *phase,
		     const char *what)
{
	const struct dut_result *sd[RUNDIR_MAX_DOCS];
	size_t nd = rundir_config_docs(c, st, sd, RUNDIR_MAX_DOCS), have = 0;
	double vals[RUNDIR_MAX_DOCS], lvl[RUNDIR_MAX_DOCS];
	unsigned n = 0, nl = 0;
	struct cmp_stat v, l;
	char a[64];

	for (size_t k = 0; k < nd; k++) {
		struct dut_result_phase *ph = dut_result_find_phase(sd[k], phase);
		json_object *ex = ph ? dut_phase_extra(ph) : NULL;
		json_object *knees = ex ? rundir_jget(ex, "knees") : NULL;
		double med = ph ? report_slc_level(ph) : 0;

		if (!ph)
			continue;
		have++;
		if (med > 0)
			lvl[nl++] = med;
		for (size_t j = 0; knees && j < json_object_array_length(knees); j++) {
			json_object *kn = json_object_array_get_idx(knees, j);

			if (json_object_get_double(rundir_jget(kn, "rel_change")) < 0) {
				vals[n++] = json_object_get_double(rundir_knee_bytes(kn));
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
		rdoc_cell(d, "none found (one level, %s MB/s)", rundir_fmt_median(&l, 1e-6, 0, a, sizeof(a)));
	else
		rdoc_cell(d, "none found");
	rdoc_cell(d, "-");
	rdoc_cell(d, "%zu", have);
	rdoc_cell(d, "-");
}

/* The DSS m-time of every configuration (NULL when not comparable). */
struct cmp *answer_dss_cmp(const struct rundir_model *m, const char *step)
{
	const struct dut_result *docs[CMP_MAX_INPUTS][RUNDIR_MAX_DOCS];
	struct cmp_input in[CMP_MAX_INPUTS];
	struct cmp_opts o = { .baseline = 0 };
	struct dut_error err = { { 0 } };
	struct cmp *cmp = NULL;
	size_t n = 0;

	for (size_t i = 0; i < m->nconfigs && n < CMP_MAX_INPUTS; i++) {
		in[n] = (struct cmp_input){ .source = m->configs[i].name,
					    .docs = (struct dut_result *const *)docs[n] };
		in[n].ndocs = rundir_config_docs(&m->configs[i], step, docs[n], RUNDIR_MAX_DOCS);
		n += in[n].ndocs > 0;
	}
	if (n == 1)
		in[n++] = in[0];   /* one configuration: against itself, for its m-time */
	if (n < 2 || cmp_build(in, n, &o, &cmp, &err) < 0)
		return NULL;
	return cmp;
}
