/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target for the experiment file parser (tools/run), then the
 * planner and the plan renderer on whatever parsed.
 * Invariants checked (abort on violation):
 *   - the parser returns 0 or -EINVAL (never another error for input under
 *     64 KiB); on error the message starts "fuzz.ini:N: " and the result
 *     pointer is untouched;
 *   - a parsed experiment has at least one target and one step, at most
 *     DUT_EXP_MAX_CONFIGS configurations, and its plan builds: one
 *     configuration per matrix combination, items in time order whose
 *     estimates add up to the plan's, each step item naming a real step;
 *   - the renderer succeeds.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/run/experiment.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                              \
	do {                                                                     \
		if (!(cond)) {                                                   \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__,   \
				__LINE__, #cond);                                        \
			abort();                                                 \
		}                                                                \
	} while (0)

static void check_plan(const struct dut_experiment *e, const struct dut_plan *p)
{
	uint64_t t = 0;

	CHECK(p->nconfigs == e->nconfigs);
	for (size_t i = 0; i < p->nitems; i++) {
		const struct dut_plan_item *it = &p->items[i];

		CHECK(it->start_ns == t);
		CHECK(it->config < p->nconfigs && it->rep < e->repetitions);
		CHECK(it->kind == DUT_PLAN_SETUP || (it->step < e->nsteps && it->iteration < e->steps[it->step].repeat));
		t += it->est_ns;
	}
	CHECK(t == p->est_ns);
	for (size_t i = 0; i < p->nconfigs; i++)
		CHECK(p->configs[i].name && p->configs[i].ntargets == e->ntargets);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dut_experiment *e = (struct dut_experiment *)&size;   /* sentinel: must stay */
	struct dut_plan *p = NULL;
	struct dut_error err;
	FILE *null;
	int r;

	if (size > 65536)
		return 0;
	memset(&err, 0, sizeof(err));
	r = dut_experiment_parse((const char *)data, size, "fuzz.ini", &e, &err);
	if (r < 0) {
		CHECK(r == -EINVAL);
		CHECK(e == (struct dut_experiment *)&size);
		CHECK(strncmp(err.msg, "fuzz.ini:", 9) == 0 && err.msg[9] >= '1' && err.msg[9] <= '9');
		CHECK(memchr(err.msg, '\0', sizeof(err.msg)) != NULL);
		return 0;
	}
	CHECK(e->ntargets >= 1 && e->nsteps >= 1);
	CHECK(e->nconfigs >= 1 && e->nconfigs <= DUT_EXP_MAX_CONFIGS);
	CHECK(dut_experiment_plan(e, &p) == 0);
	check_plan(e, p);
	null = fopen("/dev/null", "w");
	CHECK(null && dutlab_run_print_plan(p, null) == 0);
	fclose(null);
	dut_plan_free(p);
	dut_experiment_free(e);
	return 0;
}
