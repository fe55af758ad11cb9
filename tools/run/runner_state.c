/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The state of a run (pure): what the manifest is rendered from, the names
 * of configuration directories and step files.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/run/runner.h"

const char *run_status_name(enum run_status s)
{
	switch (s) {
	case RUN_PENDING: return "pending";
	case RUN_RUNNING: return "running";
	case RUN_COMPLETE: return "complete";
	case RUN_FAILED: return "failed";
	case RUN_SKIPPED: return "skipped";
	case RUN_INTERRUPTED: return "interrupted";
	}
	return "?";
}

const char *run_step_status_name(enum run_status s)
{
	return s == RUN_COMPLETE ? "ok" : run_status_name(s);
}

int run_set_text(char **dst, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	free(*dst);
	*dst = s;
	return 0;
}

int run_config_dirname(unsigned index, const char *name, char *buf, size_t len)
{
	int n = snprintf(buf, len, "c%02u-%s", index, name);

	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	for (char *p = strchr(buf, '-') + 1; *p; p++) {
		char c = *p;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			  c == '.' || c == '_' || c == '+' || c == '-';

		if (!ok)
			*p = '_';
	}
	/* "." and ".." would not be directories of their own */
	if (strcmp(strchr(buf, '-') + 1, ".") == 0 || strcmp(strchr(buf, '-') + 1, "..") == 0)
		for (char *p = strchr(buf, '-') + 1; *p; p++)
			*p = '_';
	return 0;
}

int run_step_basename(const struct dut_step *s, unsigned iteration, char *buf, size_t len)
{
	int n = s->repeat > 1 ? snprintf(buf, len, "%s.%u", s->name, iteration + 1)
			      : snprintf(buf, len, "%s", s->name);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int run_list_add(struct run_argv_list *l, const char *s)
{
	char **v = realloc(l->v, (l->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	l->v = v;
	if (!(v[l->n] = strdup(s)))
		return -ENOMEM;
	l->n++;
	return 0;
}

int run_rep_add_artifact(struct run_rep_state *r, const char *key, const char *file)
{
	struct run_artifact *a;

	for (size_t i = 0; i < r->nartifacts; i++)
		if (strcmp(r->artifacts[i].key, key) == 0) {
			char *f = strdup(file);

			if (!f)
				return -ENOMEM;
			free(r->artifacts[i].file);
			r->artifacts[i].file = f;
			return 0;
		}
	a = realloc(r->artifacts, (r->nartifacts + 1) * sizeof(*a));
	if (!a)
		return -ENOMEM;
	r->artifacts = a;
	a[r->nartifacts].key = strdup(key);
	a[r->nartifacts].file = strdup(file);
	if (!a[r->nartifacts].key || !a[r->nartifacts].file) {
		free(a[r->nartifacts].key);
		free(a[r->nartifacts].file);
		return -ENOMEM;
	}
	r->nartifacts++;
	return 0;
}

int run_state_new(const struct dut_plan *plan, const char *source, const char *rundir,
		  struct run_state **ret)
{
	const struct dut_experiment *e = plan->exp;
	struct run_state *st = calloc(1, sizeof(*st));
	char dir[256];

	if (!st)
		return -ENOMEM;
	st->exp = e;
	st->plan = plan;
	st->source = strdup(source);
	st->rundir = strdup(rundir);
	st->cfgs = calloc(plan->nconfigs, sizeof(*st->cfgs));
	if (!st->source || !st->rundir || !st->cfgs)
		goto out_free;
	for (size_t c = 0; c < plan->nconfigs; c++) {
		struct run_cfg_state *cs = &st->cfgs[c];

		if (run_config_dirname(plan->configs[c].index, plan->configs[c].name, dir, sizeof(dir)) < 0)
			snprintf(dir, sizeof(dir), "c%02u", plan->configs[c].index);
		cs->dir = strdup(dir);
		cs->reps = calloc(e->repetitions, sizeof(*cs->reps));
		if (!cs->dir || !cs->reps)
			goto out_free;
		for (unsigned r = 0; r < e->repetitions; r++) {
			cs->reps[r].rep = r + 1;
			cs->reps[r].steps = calloc(e->nsteps ? e->nsteps : 1, sizeof(*cs->reps[r].steps));
			if (!cs->reps[r].steps)
				goto out_free;
			for (size_t s = 0; s < e->nsteps; s++)
				cs->reps[r].steps[s].exit_code = -1;
		}
	}
	*ret = st;
	return 0;
out_free:
	run_state_free(st);
	return -ENOMEM;
}

void run_state_free(struct run_state *st)
{
	if (!st)
		return;
	for (size_t c = 0; st->cfgs && c < st->plan->nconfigs; c++) {
		struct run_cfg_state *cs = &st->cfgs[c];

		for (unsigned r = 0; cs->reps && r < st->exp->repetitions; r++) {
			struct run_rep_state *rs = &cs->reps[r];

			for (size_t s = 0; rs->steps && s < st->exp->nsteps; s++) {
				run_strv_free(rs->steps[s].argv);
				json_object_put(rs->steps[s].device);
				for (size_t i = 0; i < rs->steps[s].results.n; i++)
					free(rs->steps[s].results.v[i]);
				for (size_t i = 0; i < rs->steps[s].logs.n; i++)
					free(rs->steps[s].logs.v[i]);
				free(rs->steps[s].results.v);
				free(rs->steps[s].logs.v);
			}
			free(rs->steps);
			for (size_t a = 0; a < rs->nartifacts; a++) {
				free(rs->artifacts[a].key);
				free(rs->artifacts[a].file);
			}
			free(rs->artifacts);
			for (size_t t = 0; t < rs->ntargets; t++) {
				free(rs->targets[t].name);
				free(rs->targets[t].path);
				free(rs->targets[t].dir);
				free(rs->targets[t].filesystem);
			}
			free(rs->targets);
			free(rs->reason);
		}
		free(cs->reps);
		free(cs->dir);
		free(cs->reason);
	}
	free(st->cfgs);
	free(st->source);
	free(st->rundir);
	free(st);
}
