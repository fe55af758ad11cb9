/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Command lines of steps (pure): each step type's parameters become options
 * of its tool through the `flag` of the parameter table
 * (experiment_steps.c); one builder per tool command says what else the
 * command needs (where the cluster is, the probe target, --json, --relmap).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "tools/run/runner.h"

#define NS_PER_S UINT64_C(1000000000)
#define NS_PER_MS UINT64_C(1000000)

/* ---- string vectors ---- */

int run_argv_add(struct run_argv *a, const char *s)
{
	char *copy;

	if (a->n + 2 > a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 16;
		char **v = realloc(a->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		a->v = v;
		a->cap = cap;
	}
	copy = strdup(s);
	if (!copy)
		return -ENOMEM;
	a->v[a->n++] = copy;
	a->v[a->n] = NULL;
	return 0;
}

int run_argv_addf(struct run_argv *a, const char *fmt, ...)
{
	_cleanup_free_ char *s = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		s = NULL;
		return -ENOMEM;
	}
	return run_argv_add(a, s);
}

char **run_argv_take(struct run_argv *a)
{
	char **v = a->v;

	if (!v)
		v = calloc(1, sizeof(*v));
	a->v = NULL;
	a->n = a->cap = 0;
	return v;
}

void run_strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

void run_argv_free(struct run_argv *a)
{
	run_strv_free(a->v);
	a->v = NULL;
	a->n = a->cap = 0;
}

char **run_strv_copy(char *const *v)
{
	struct run_argv a = { 0 };

	for (size_t i = 0; v && v[i]; i++)
		if (run_argv_add(&a, v[i]) < 0) {
			run_argv_free(&a);
			return NULL;
		}
	return run_argv_take(&a);
}

/* ---- parameters -> options ---- */

void run_fmt_duration_arg(uint64_t ns, char *buf, size_t len)
{
	if (ns % NS_PER_S == 0)
		snprintf(buf, len, "%" PRIu64, ns / NS_PER_S);
	else
		snprintf(buf, len, "%" PRIu64 "ms", (ns + NS_PER_MS / 2) / NS_PER_MS);
}

/* A list as the tools take it: items joined by ',' without blanks. */
static int add_list(struct run_argv *a, const char *text)
{
	_cleanup_free_ char *s = malloc(strlen(text) + 1);
	char *o = s;

	if (!s)
		return -ENOMEM;
	for (const char *p = text; *p; p++)
		if (*p != ' ' && *p != '\t')
			*o++ = *p;
	*o = '\0';
	return run_argv_add(a, s);
}

/* Every parameter of s with a flag and a value, except the keys in skip. */
static int add_params(struct run_argv *a, const struct dut_step *s, const char *const *skip)
{
	char num[64];
	int r = 0;

	for (size_t i = 0; i < s->type->nparams && r == 0; i++) {
		const struct dut_param_spec *p = &s->type->params[i];
		const struct dut_param_value *v = &s->values[i];
		bool skipped = false;

		for (size_t k = 0; skip && skip[k]; k++)
			skipped |= strcmp(skip[k], p->key) == 0;
		if (skipped || !p->flag || !v->text)
			continue;
		switch (p->kind) {
		case DUT_P_BOOL:
			if (v->u)
				r = run_argv_add(a, p->flag);
			continue;
		case DUT_P_TABLESPACE:
			if (strcmp(v->text, "default") == 0)
				continue;
			break;
		default:
			break;
		}
		if ((r = run_argv_add(a, p->flag)) < 0)
			break;
		switch (p->kind) {
		case DUT_P_UINT:
		case DUT_P_SIZE:
			snprintf(num, sizeof(num), "%" PRIu64, v->u);
			r = run_argv_add(a, num);
			break;
		case DUT_P_DURATION:
			run_fmt_duration_arg(v->u, num, sizeof(num));
			r = run_argv_add(a, num);
			break;
		case DUT_P_LIST:
			r = add_list(a, v->text);
			break;
		default:
			r = run_argv_add(a, v->text);
			break;
		}
	}
	return r;
}

/* pgload -b takes one script per option: "-b tpcb-like@3 -b select-only". */
static int add_scripts(struct run_argv *a, const struct dut_step *s)
{
	const struct dut_param_value *v = dut_step_param(s, "script");
	_cleanup_free_ char *copy = NULL;
	char *save = NULL;
	int r = 0;

	if (!v || !v->text)
		return 0;
	copy = strdup(v->text);
	if (!copy)
		return -ENOMEM;
	for (char *t = strtok_r(copy, ",", &save); t && r == 0; t = strtok_r(NULL, ",", &save)) {
		while (*t == ' ')
			t++;
		for (char *e = t + strlen(t); e > t && e[-1] == ' ';)
			*--e = '\0';
		if (*t && (r = run_argv_add(a, "-b")) == 0)
			r = run_argv_add(a, t);
	}
	return r;
}

/* The matrix's tables-on / indexes-on, unless the step sets its own. */
static int add_placement(struct run_argv *a, const struct dut_step *s, const struct dut_config *cfg)
{
	static const struct { const char *key, *flag; } keys[] = {
		{ "tables-on", "--tables-on" }, { "indexes-on", "--indexes-on" },
	};
	int r = 0;

	for (size_t i = 0; i < DUT_ARRAY_SIZE(keys) && r == 0; i++) {
		const struct dut_param_value *v = dut_step_param(s, keys[i].key);
		const char *ts = i == 0 ? cfg->tables_on : cfg->indexes_on;

		if ((v && v->text) || !ts || strcmp(ts, "default") == 0)
			continue;
		if ((r = run_argv_add(a, keys[i].flag)) == 0)
			r = run_argv_add(a, ts);
	}
	return r;
}

/* ---- one builder per step type ---- */

struct step_builder {
	const char *type;
	int (*build)(const struct dut_step *s, const struct run_step_ctx *c, struct run_argv *cmd,
		     struct run_argv *pre, struct dut_error *err);
	/* NULL: every setting can run */
	int (*supported)(const struct dut_step *s, struct dut_error *err);
	bool relmap;            /* the command takes --relmap */
	int result_exit;        /* a non-zero exit status that is a result (a finding), not a failure */
};

static int pgload_tail(struct run_argv *a, const struct run_step_ctx *c, bool marks_off)
{
	int r = 0;

	if (c->json_path && (r = run_argv_add(a, "--json")) == 0)
		r = run_argv_add(a, c->json_path);
	/* The runner marks every step with its own label; pgload's "init start" /
	 * "run start" markers would cut each step into unnamed phases. */
	if (r == 0 && marks_off && (r = run_argv_add(a, "--dutfs-control")) == 0)
		r = run_argv_add(a, "/dev/null");
	if (r == 0 && c->relmap_path && (r = run_argv_add(a, "--relmap")) == 0)
		r = run_argv_add(a, c->relmap_path);
	return r;
}

static int build_oltp_init(const struct dut_step *s, const struct run_step_ctx *c, struct run_argv *cmd,
			   struct run_argv *pre, struct dut_error *err)
{
	int r;

	if ((r = run_argv_add(cmd, c->pgload)) < 0 || (r = run_argv_add(cmd, "init")) < 0 ||
	    (r = run_argv_add(cmd, "--pgdata")) < 0 || (r = run_argv_add(cmd, c->pgdata)) < 0 ||
	    (r = add_params(cmd, s, NULL)) < 0 || (r = add_placement(cmd, s, c->cfg)) < 0)
		return r;
	return pgload_tail(cmd, c, true);
}

static int build_oltp_run(const struct dut_step *s, const struct run_step_ctx *c, struct run_argv *cmd,
			  struct run_argv *pre, struct dut_error *err)
{
	static const char *const skip[] = { "script", NULL };
	int r;

	if ((r = run_argv_add(cmd, c->pgload)) < 0 || (r = run_argv_add(cmd, "run")) < 0 ||
	    (r = run_argv_add(cmd, "--pgdata")) < 0 || (r = run_argv_add(cmd, c->pgdata)) < 0 ||
	    (r = add_scripts(cmd, s)) < 0 || (r = add_params(cmd, s, skip)) < 0)
		return r;
	return pgload_tail(cmd, c, true);
}

static int build_dss(const struct dut_step *s, const struct run_step_ctx *c, struct run_argv *cmd,
		     struct run_argv *pre, struct dut_error *err)
{
	int r;

	/* dss keeps its own dss/<phase> markers: they are its sub-phases */
	if ((r = run_argv_add(cmd, c->pgload)) < 0 || (r = run_argv_add(cmd, "dss")) < 0 ||
	    (r = run_argv_add(cmd, "-d")) < 0 || (r = run_argv_add(cmd, c->conninfo)) < 0 ||
	    (r = run_argv_add(cmd, "--pgdata")) < 0 || (r = run_argv_add(cmd, c->pgdata)) < 0 ||
	    (r = add_params(cmd, s, NULL)) < 0)
		return r;
	return pgload_tail(cmd, c, false);
}

static int restore_supported(const struct dut_step *s, struct dut_error *err)
{
	const char *fmt = dut_step_param(s, "format")->text;

	if (strcmp(fmt, "custom") != 0) {
		dut_error_set(err, "step %s: format = %s: pgload restore handles custom-format dumps only "
			      "(use format = custom)", s->name, fmt);
		return -ENOTSUP;
	}
	return 0;
}

static int build_restore(const struct dut_step *s, const struct run_step_ctx *c, struct run_argv *cmd,
			 struct run_argv *pre, struct dut_error *err)
{
	char jobs[32];
	int r;

	if ((r = restore_supported(s, err)) < 0)
		return r;
	if (c->dump_is_self &&
	    ((r = run_argv_add(pre, c->pgload)) < 0 || (r = run_argv_add(pre, "restore")) < 0 ||
	     (r = run_argv_add(pre, "dump")) < 0 || (r = run_argv_add(pre, "--source")) < 0 ||
	     (r = run_argv_add(pre, c->conninfo)) < 0 || (r = run_argv_add(pre, "--out")) < 0 ||
	     (r = run_argv_add(pre, c->dump_path)) < 0))
		return r;
	/* pg_dump of the configuration's major: a newer one writes archives its pg_restore cannot read */
	if (c->dump_is_self && c->pg_bindir && (r = run_argv_addf(pre, "--bindir=%s", c->pg_bindir)) < 0)
		return r;
	snprintf(jobs, sizeof(jobs), "%" PRIu64, dut_step_param(s, "jobs")->u);
	if ((r = run_argv_add(cmd, c->pgload)) < 0 || (r = run_argv_add(cmd, "restore")) < 0 ||
	    (r = run_argv_add(cmd, "run")) < 0 || (r = run_argv_add(cmd, "--dump")) < 0 ||
	    (r = run_argv_add(cmd, c->dump_path)) < 0 || (r = run_argv_add(cmd, "--pgdata")) < 0 ||
	    (r = run_argv_add(cmd, c->pgdata)) < 0 || (r = run_argv_add(cmd, "-j")) < 0 ||
	    (r = run_argv_add(cmd, jobs)) < 0 || (r = run_argv_add(cmd, "--dbname")) < 0 ||
	    (r = run_argv_add(cmd, dut_step_param(s, "database")->text)) < 0 ||
	    /* repeat > 1 restores into the same database again */
	    (r = run_argv_add(cmd, "--clean")) < 0)
		return r;
	if (!c->dump_is_self && (r = run_argv_add(cmd, "--no-check")) < 0)
		return r;
	if (c->pg_bindir && (r = run_argv_addf(cmd, "--bindir=%s", c->pg_bindir)) < 0)
		return r;
	return pgload_tail(cmd, c, false);
}

static int build_probe(const struct dut_step *s, const struct run_step_ctx *c, struct run_argv *cmd,
		       struct run_argv *pre, struct dut_error *err)
{
	/* the file's size only applies to a file, not to a raw target */
	static const char *const skip_raw[] = { "size", NULL };
	int r;

	if ((r = run_argv_add(cmd, c->dutprobe)) < 0 || (r = run_argv_add(cmd, s->type->command)) < 0 ||
	    (r = add_params(cmd, s, s->raw ? skip_raw : NULL)) < 0)
		return r;
	/* a raw image or device was made for this experiment (destructive = yes
	 * for a device); dutprobe still refuses mounted or busy ones */
	if (s->raw && strcmp(s->type->command, "identify") != 0 && (r = run_argv_add(cmd, "--destructive")) < 0)
		return r;
	if (c->json_path && ((r = run_argv_add(cmd, "--json")) < 0 || (r = run_argv_add(cmd, c->json_path)) < 0))
		return r;
	return run_argv_add(cmd, c->probe_target);
}

/* dutlab crash --workdir DIR: the campaign makes its own clusters and dutfs
 * mounts there; the configuration's [postgres] settings become --set. */
static int build_crash(const struct dut_step *s, const struct run_step_ctx *c, struct run_argv *cmd,
		       struct run_argv *pre, struct dut_error *err)
{
	int r;

	if ((r = run_argv_add(cmd, c->dutlab)) < 0 || (r = run_argv_add(cmd, "crash")) < 0 ||
	    (r = add_params(cmd, s, NULL)) < 0)
		return r;
	for (size_t i = 0; i < c->cfg->nsettings && r == 0; i++)
		if ((r = run_argv_add(cmd, "--set")) == 0)
			r = run_argv_addf(cmd, "%s=%s", c->cfg->settings[i].name, c->cfg->settings[i].value);
	if (r == 0 && c->identify_json && (r = run_argv_add(cmd, "--identify")) == 0)
		r = run_argv_add(cmd, c->identify_json);
	if (r == 0 && c->json_path && (r = run_argv_add(cmd, "--json")) == 0)
		r = run_argv_add(cmd, c->json_path);
	if (r == 0 && (r = run_argv_add(cmd, "--workdir")) == 0)
		r = run_argv_add(cmd, c->probe_target);
	return r;
}

static const struct step_builder builders[] = {
	{ .type = "oltp-init", .build = build_oltp_init, .relmap = true },
	{ .type = "oltp-run", .build = build_oltp_run, .relmap = true },
	{ .type = "dss", .build = build_dss, .relmap = true },
	{ .type = "restore", .build = build_restore, .supported = restore_supported },
	{ .type = "identify", .build = build_probe },
	{ .type = "bench", .build = build_probe },
	{ .type = "slc", .build = build_probe },
	{ .type = "fill", .build = build_probe },
	{ .type = "crash", .build = build_crash, .result_exit = 1 },
};

static const struct step_builder *builder_of(const struct dut_step *s)
{
	for (size_t i = 0; i < DUT_ARRAY_SIZE(builders); i++)
		if (strcmp(builders[i].type, s->type->name) == 0)
			return &builders[i];
	return NULL;
}

int run_step_supported(const struct dut_step *s, struct dut_error *err)
{
	const struct step_builder *b = builder_of(s);

	if (!b) {
		dut_error_set(err, "step %s: type %s has no runner", s->name, s->type->name);
		return -ENOTSUP;
	}
	return b->supported ? b->supported(s, err) : 0;
}

bool run_step_exit_is_result(const struct dut_step *s, int status)
{
	const struct step_builder *b = builder_of(s);

	return b && b->result_exit && status == b->result_exit;
}

bool run_step_writes_relmap(const struct dut_step *s)
{
	const struct step_builder *b = builder_of(s);

	return b && b->relmap;
}

int run_step_argv(const struct dut_step *s, const struct run_step_ctx *ctx, char **ret_cmds[2],
		  size_t *ret_ncmds, struct dut_error *err)
{
	const struct step_builder *b = builder_of(s);
	struct run_argv cmd = { 0 }, pre = { 0 };
	int r;

	if (!b) {
		dut_error_set(err, "step %s: type %s has no runner", s->name, s->type->name);
		return -ENOTSUP;
	}
	r = b->build(s, ctx, &cmd, &pre, err);
	if (r < 0) {
		if (r == -ENOMEM)
			dut_error_set(err, "out of memory");
		run_argv_free(&cmd);
		run_argv_free(&pre);
		return r;
	}
	if (pre.n) {
		ret_cmds[0] = run_argv_take(&pre);
		ret_cmds[1] = run_argv_take(&cmd);
		*ret_ncmds = 2;
	} else {
		ret_cmds[0] = run_argv_take(&cmd);
		*ret_ncmds = 1;
	}
	return 0;
}
