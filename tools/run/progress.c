/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Time left in a run (pure).  The plan's estimates are for a 2-core
 * reference machine.  Once items have run, the ratio of measured to
 * estimated time of the done items of the same kind scales the pending
 * ones: setups by setups, each step by its own earlier runs (in other
 * repetitions and configurations).  A step that has not run yet keeps its
 * estimate: a 30 s run takes 30 s however fast the setup was.  The ratio
 * is bounded (1/4 to 4): one odd item (a step that failed at once) must
 * not make the ETA absurd.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "tools/run/runner.h"

#define NS_PER_S UINT64_C(1000000000)
#define RATIO_MIN 0.25
#define RATIO_MAX 4.0

int run_progress_init(struct run_progress *p, const struct dut_plan *plan)
{
	p->plan = plan;
	p->state = calloc(plan->nitems ? plan->nitems : 1, sizeof(*p->state));
	p->actual_ns = calloc(plan->nitems ? plan->nitems : 1, sizeof(*p->actual_ns));
	if (!p->state || !p->actual_ns) {
		run_progress_free(p);
		return -ENOMEM;
	}
	return 0;
}

void run_progress_free(struct run_progress *p)
{
	free(p->state);
	free(p->actual_ns);
	p->state = NULL;
	p->actual_ns = NULL;
}

static bool same_kind(const struct dut_plan_item *a, const struct dut_plan_item *b)
{
	return a->kind == b->kind && (a->kind != DUT_PLAN_STEP || a->step == b->step);
}

static double ratio(const struct run_progress *p, const struct dut_plan_item *like)
{
	double est = 0, act = 0, r;

	for (size_t i = 0; i < p->plan->nitems; i++)
		if (p->state[i] == RUN_ITEM_DONE && same_kind(&p->plan->items[i], like)) {
			est += (double)p->plan->items[i].est_ns;
			act += (double)p->actual_ns[i];
		}
	if (est <= 0)
		return 1.0;
	r = act / est;
	return r < RATIO_MIN ? RATIO_MIN : r > RATIO_MAX ? RATIO_MAX : r;
}

uint64_t run_progress_left_ns(const struct run_progress *p, size_t current, uint64_t current_elapsed_ns)
{
	double left = 0;

	for (size_t i = current; i < p->plan->nitems; i++) {
		double est;

		if (p->state[i] != RUN_ITEM_PENDING)
			continue;
		est = (double)p->plan->items[i].est_ns * ratio(p, &p->plan->items[i]);
		if (i == current) {
			/* an item that overruns its estimate has "a moment" left, not zero */
			est -= (double)current_elapsed_ns;
			if (est < 0)
				est = 0;
		}
		left += est;
	}
	return (uint64_t)left;
}

void run_fmt_duration(uint64_t ns, char *buf, size_t len)
{
	uint64_t s = (ns + NS_PER_S / 2) / NS_PER_S;

	if (ns < 10 * NS_PER_S)
		snprintf(buf, len, "%.1fs", (double)ns / NS_PER_S);
	else if (s < 60)
		snprintf(buf, len, "%" PRIu64 "s", s);
	else if (s < 3600)
		snprintf(buf, len, "%" PRIu64 "m%02" PRIu64 "s", s / 60, s % 60);
	else
		snprintf(buf, len, "%" PRIu64 "h%02" PRIu64 "m", s / 3600, (s % 3600) / 60);
}
