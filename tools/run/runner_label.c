/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The label of a plan item in progress lines ("cfg rep 1/2: run (pgbench) 1/3"):
 * the runner's start/end lines and a soak step's progress lines use it, so it
 * is apart from both (no call cycle between runner.c and runner_soak.c). */
#include <stdio.h>

#include "tools/run/runner_priv.h"
#include "tools/run/runner_sys.h"

void runner_item_label(const struct runner *R, const struct dut_plan_item *it, char *buf, size_t len)
{
	const struct run_cfg_state *cs = &R->st->cfgs[it->config];

	if (it->kind == DUT_PLAN_SETUP) {
		run_pathf(buf, len, "%s rep %u/%u: setup", cs->dir, it->rep + 1, R->e->repetitions);
	} else {
		const struct dut_step *s = &R->e->steps[it->step];

		if (s->repeat > 1)
			run_pathf(buf, len, "%s rep %u/%u: %s (%s) %u/%u", cs->dir, it->rep + 1, R->e->repetitions,
				 s->name, s->type->name, it->iteration + 1, s->repeat);
		else
			run_pathf(buf, len, "%s rep %u/%u: %s (%s)", cs->dir, it->rep + 1, R->e->repetitions,
				 s->name, s->type->name);
	}
}
