/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Command lines of steps (pure): each step kind builds its own
 * (tools/kinds/<kind>.c, the kind's argv op); this file is the runner's
 * door to those ops.
 */
#include <errno.h>

#include "tools/run/runner.h"

int run_step_supported(const struct dut_step *s, struct dut_error *err)
{
	if (!s->type->argv) {
		dut_error_set(err, "step %s: type %s has no runner", s->name, s->type->name);
		return -ENOTSUP;
	}
	return s->type->supported ? s->type->supported(s, err) : 0;
}

bool run_step_exit_is_result(const struct dut_step *s, int status)
{
	return s->type->result_exit && status == s->type->result_exit;
}

bool run_step_writes_relmap(const struct dut_step *s)
{
	return s->type->relmap;
}

int run_step_argv(const struct dut_step *s, const struct run_step_ctx *ctx, char **ret_cmds[2],
		  size_t *ret_ncmds, struct dut_error *err)
{
	struct run_argv cmd = { 0 }, pre = { 0 };
	int r;

	if (!s->type->argv) {
		dut_error_set(err, "step %s: type %s has no runner", s->name, s->type->name);
		return -ENOTSUP;
	}
	r = s->type->argv(s, ctx, &cmd, &pre, err);
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
