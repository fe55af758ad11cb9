/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The charts of a run (pure): each step's through its kind's ops
 * (rundir_kinds.h), then its I/O mix per configuration, then the whole
 * traces'.  Kept apart from chart.c, which holds the chart bodies the
 * kinds point at, so the ops add no call cycle.
 */
#include <errno.h>
#include <stdlib.h>

#include "lib/cleanup.h"
#include "tools/report/chart.h"
#include "tools/report/chart_priv.h"
#include "tools/report/rundir_kinds.h"
#include "tools/report/rundir_stats.h"

int charts_build(const struct rundir_model *m, struct charts **ret)
{
	struct charts *cs = calloc(1, sizeof(*cs));
	_cleanup_free_ struct rundir_stepinfo *steps = NULL;
	size_t nsteps;
	int r;

	if (!cs)
		return -ENOMEM;
	r = rundir_steps(m, &steps, &nsteps);
	for (size_t s = 0; r == 0 && s < nsteps; s++) {
		const char *name = steps[s].name;
		const struct rundir_kind_ops *ops = rundir_kind_ops_of(steps[s].kind);

		if (ops && ops->step_charts && (r = ops->step_charts(cs, m, name)) < 0)
			break;
		for (size_t i = 0; r == 0 && i < m->nconfigs; i++) {
			const struct rundir_config *c = &m->configs[i];

			if (ops && ops->config_charts)
				r = ops->config_charts(cs, c, name);
			if (r == 0)
				r = chart_iomix(cs, c, name);   /* the trace phase of this step, if marked */
		}
	}
	for (size_t i = 0; r == 0 && i < m->nconfigs; i++)
		r = chart_iomix(cs, &m->configs[i], NULL);
	if (r < 0) {
		charts_free(cs);
		return r;
	}
	*ret = cs;
	return 0;
}
