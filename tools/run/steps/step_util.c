/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What more than one step kind uses (pure): parameter accessors, the probe
 * kinds' space and command line, and parameters -> options through the
 * `flag` of each parameter.  No kind is named here.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "tools/run/steps/steps_priv.h"

const struct dut_param_value *dut_step_param(const struct dut_step *s, const char *key)
{
	for (size_t i = 0; i < s->type->nparams; i++)
		if (strcmp(s->type->params[i].key, key) == 0)
			return &s->values[i];
	return NULL;
}

uint64_t step_pu(const struct dut_step *s, const char *key)
{
	const struct dut_param_value *v = dut_step_param(s, key);

	return v && v->text ? v->u : 0;
}

bool step_pset(const struct dut_step *s, const char *key)
{
	const struct dut_param_value *v = dut_step_param(s, key);

	return v && v->text;
}

uint64_t step_secs(double s)
{
	return (uint64_t)(s * NS_PER_S);
}

uint64_t step_no_space(const struct dut_step *s, uint64_t db_bytes)
{
	return 0;
}

uint64_t step_probe_bytes(const struct dut_step *s, uint64_t target_bytes)
{
	if (step_pset(s, "span"))
		return step_pu(s, "span");
	if (step_pset(s, "size"))
		return step_pu(s, "size");
	return target_bytes ? target_bytes : EXP_UNKNOWN_DEVICE_BYTES;
}

uint64_t step_probe_space(const struct dut_step *s, uint64_t db_bytes)
{
	return s->raw ? 0 : step_pu(s, "size");
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

int step_add_params(struct run_argv *a, const struct dut_step *s, const char *const *skip)
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

int step_pgload_tail(struct run_argv *a, const struct run_step_ctx *c, bool marks_off)
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

int step_build_probe(const struct dut_step *s, const struct run_step_ctx *c, struct run_argv *cmd,
		     struct run_argv *pre, struct dut_error *err)
{
	/* the file's size only applies to a file, not to a raw target */
	static const char *const skip_raw[] = { "size", NULL };
	int r;

	if ((r = run_argv_add(cmd, c->dutprobe)) < 0 || (r = run_argv_add(cmd, s->type->command)) < 0 ||
	    (r = step_add_params(cmd, s, s->raw ? skip_raw : NULL)) < 0)
		return r;
	/* a raw image or device was made for this experiment (destructive = yes
	 * for a device); dutprobe still refuses mounted or busy ones */
	if (s->raw && !s->type->reads_only && (r = run_argv_add(cmd, "--destructive")) < 0)
		return r;
	if (c->json_path && ((r = run_argv_add(cmd, "--json")) < 0 || (r = run_argv_add(cmd, c->json_path)) < 0))
		return r;
	return run_argv_add(cmd, c->probe_target);
}
