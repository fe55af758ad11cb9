/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * THE table of the report's step kinds (rundir_kinds.h), made from the
 * list in tools/kinds/meson.build (the generated X-macro
 * tools/kinds/step_kinds.h): rundir_kind_<kind>, the report's half of
 * tools/kinds/<kind>.c (compiled with DUTLAB_KIND_REPORT), for each.
 * Adding a kind is that file and the list's row (which also gives its value
 * DOC_<kind>).
 *
 * Which kind a result document is (rundir_doc_kind_of) and a run's steps
 * with their kinds (rundir_steps) are answered here from the kinds'
 * recognition fields; they are declared in rundir_stats.h, where their
 * callers have always found them.  No op body calls them, so the table
 * adds no call cycle.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "tools/kinds/step_kinds.h"
#include "tools/report/rundir_kinds.h"

#define RUNDIR_KINDS(X) DUTLAB_STEP_KINDS(X)

#define DECLARE_KIND(k) extern const struct rundir_kind_ops rundir_kind_##k;
#define KIND_ROW(k) &rundir_kind_##k,
RUNDIR_KINDS(DECLARE_KIND)

static const struct rundir_kind_ops *const kinds[] = { RUNDIR_KINDS(KIND_ROW) };
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

const struct rundir_kind_ops *rundir_kind_ops_of(enum rundir_doc_kind kind)
{
	for (size_t i = 0; i < NKINDS; i++)
		if (kinds[i]->kind == kind)
			return kinds[i];
	return NULL;
}

static const char *config_str(const struct dut_result *r, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(dut_result_json(r), "config", &v) ||
	    !json_object_object_get_ex(v, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* A kind's own test first (a document's shape), then its tool and config key = value. */
enum rundir_doc_kind rundir_doc_kind_of(const struct dut_result *r)
{
	const char *tool = dut_result_tool_name(r);

	for (size_t i = 0; i < NKINDS; i++)
		if (kinds[i]->recognise && strcmp(tool, kinds[i]->doc_tool) == 0 && kinds[i]->recognise(r))
			return kinds[i]->kind;
	for (size_t i = 0; i < NKINDS; i++) {
		const char *s = kinds[i]->doc_key ? config_str(r, kinds[i]->doc_key) : NULL;

		if (!kinds[i]->recognise && s && strcmp(tool, kinds[i]->doc_tool) == 0 &&
		    strcmp(s, kinds[i]->doc_value) == 0)
			return kinds[i]->kind;
	}
	return DOC_OTHER;
}

const char *rundir_doc_kind_name(enum rundir_doc_kind k)
{
	const struct rundir_kind_ops *o = rundir_kind_ops_of(k);

	return o ? o->label : "other";
}

static enum rundir_doc_kind step_kind(const struct rundir_model *m, const char *name)
{
	for (size_t i = 0; i < m->nconfigs; i++)
		for (size_t r = 0; r < m->configs[i].nreps; r++) {
			const struct rundir_step *s = rundir_rep_step(&m->configs[i].reps[r], name);

			for (size_t d = 0; s && d < s->ndocs; d++)
				if (s->docs[d].doc)
					return rundir_doc_kind_of(s->docs[d].doc);
		}
	return DOC_OTHER;
}

int rundir_steps(const struct rundir_model *m, struct rundir_stepinfo **ret, size_t *ret_n)
{
	struct rundir_stepinfo *v = NULL;
	size_t n = 0;

	for (size_t i = 0; i < m->nconfigs; i++)
		for (size_t r = 0; r < m->configs[i].nreps; r++) {
			const struct rundir_rep *rp = &m->configs[i].reps[r];

			for (size_t s = 0; s < rp->nsteps; s++) {
				const char *name = rp->steps[s].name;
				bool seen = false;
				struct rundir_stepinfo *nv;

				for (size_t k = 0; k < n && !seen; k++)
					seen = strcmp(v[k].name, name) == 0;
				if (seen)
					continue;
				nv = realloc(v, (n + 1) * sizeof(*v));
				if (!nv) {
					free(v);
					return -ENOMEM;
				}
				v = nv;
				v[n++] = (struct rundir_stepinfo){ .name = name, .kind = step_kind(m, name) };
			}
		}
	*ret = v;
	*ret_n = n;
	return 0;
}
