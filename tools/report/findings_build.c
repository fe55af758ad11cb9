/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The findings of a run (pure): per configuration its traps, each step's
 * findings through its kind's ops (rundir_kinds.h), and the I/O of each
 * step.  Kept apart from findings.c, which holds the bodies the kinds
 * point at, so the ops add no call cycle.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "lib/cleanup.h"
#include "tools/report/findings.h"
#include "tools/report/findings_priv.h"
#include "tools/report/rundir_kinds.h"
#include "tools/report/rundir_stats.h"

int findings_build(const struct rundir_model *m, struct findings **ret)
{
	struct findings *fs = calloc(1, sizeof(*fs));
	_cleanup_free_ struct rundir_stepinfo *steps = NULL;
	size_t nsteps;
	int r;

	if (!fs)
		return -ENOMEM;
	r = rundir_steps(m, &steps, &nsteps);
	for (size_t ci = 0; r == 0 && ci < m->nconfigs; ci++) {
		r = findings_traps(m, ci, steps, nsteps, fs);
		for (size_t s = 0; r == 0 && s < nsteps; s++) {
			const char *name = steps[s].name;
			const struct rundir_kind_ops *ops = rundir_kind_ops_of(steps[s].kind);

			if (ops && ops->findings)
				r = ops->findings(m, ci, name, fs);
		}
		/* the I/O of each step, between its markers; the whole traces when no step has markers */
		bool any = false, one;

		for (size_t s = 0; r == 0 && s < nsteps; s++) {
			r = findings_io(m, ci, steps[s].name, fs, &one);
			any |= one;
		}
		if (r == 0 && !any)
			r = findings_io(m, ci, NULL, fs, &one);
	}
	if (r < 0) {
		findings_free(fs);
		return r;
	}
	*ret = fs;
	return 0;
}
