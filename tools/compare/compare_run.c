/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Inputs of dutlab compare from run directories (pure). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "tools/compare/compare_run.h"

static int too_many(struct dut_error *err)
{
	dut_error_set(err, "more than %d configurations and documents to compare: compare fewer "
		      "run directories, or one step (--step)", CMP_MAX_INPUTS);
	return -E2BIG;
}

int cmp_run_add_step(struct cmp_run_set *s, const struct rundir_model *m, const char *step,
		     struct dut_error *err)
{
	for (size_t i = 0; i < m->nconfigs; i++) {
		const struct dut_result *tmp[RUNDIR_MAX_DOCS];
		size_t nd = rundir_config_docs(&m->configs[i], step, tmp, RUNDIR_MAX_DOCS);
		struct dut_result **docs;
		char *src;

		if (!nd)
			continue;
		if (s->n == CMP_MAX_INPUTS)
			return too_many(err);
		docs = calloc(nd, sizeof(*docs));
		if (!docs)
			return -ENOMEM;
		memcpy(docs, tmp, nd * sizeof(*docs));
		if (asprintf(&src, "%s: %s (%zu document%s of step %s)", m->dir, m->configs[i].name, nd,
			     nd == 1 ? "" : "s", step) < 0) {
			free(docs);
			return -ENOMEM;
		}
		s->docs[s->n] = docs;
		s->source[s->n] = src;
		s->in[s->n] = (struct cmp_input){ .source = src, .docs = docs, .ndocs = nd };
		s->n++;
	}
	return 0;
}

int cmp_run_add_doc(struct cmp_run_set *s, const char *source, struct dut_result *doc,
		    struct dut_error *err)
{
	struct dut_result **docs;

	if (s->n == CMP_MAX_INPUTS)
		return too_many(err);
	docs = calloc(1, sizeof(*docs));
	if (!docs)
		return -ENOMEM;
	docs[0] = doc;
	s->docs[s->n] = docs;
	s->source[s->n] = NULL;
	s->in[s->n] = (struct cmp_input){ .source = source, .docs = docs, .ndocs = 1 };
	s->n++;
	return 0;
}

void cmp_run_set_clear(struct cmp_run_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->docs[i]);
		free(s->source[i]);
	}
	*s = (struct cmp_run_set){ 0 };
}

const char *cmp_run_step_of_kind(const struct rundir_model *m, enum rundir_doc_kind k)
{
	_cleanup_free_ struct rundir_stepinfo *steps = NULL;
	size_t n;

	if (rundir_steps(m, &steps, &n) < 0)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (steps[i].kind == k)
			return steps[i].name;
	return NULL;
}
