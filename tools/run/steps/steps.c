/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * THE table of step kinds, made from the list in tools/kinds/meson.build
 * (the generated X-macro tools/kinds/step_kinds.h).  Each kind is one file,
 * tools/kinds/<kind>.c, whose orchestrator half (compiled with
 * DUTLAB_KIND_RUN) defines `const struct dut_step_type
 * dut_step_kind_<kind>`: its parameters (key, kind, range, default, the
 * option of its tool), cross-parameter checks, time and space estimates,
 * command line, and the fields the planner and runner ask instead of its
 * name (.reads_only, .identify, .workdir, .own_clusters, .places_tables,
 * .restores, .relmap, .result_exit).  Adding a kind is that file plus its
 * row in the list.  The order is the order of docs/experiment-format.md
 * and of "expected one of" messages.
 *
 * Where the halves go: the orchestrator's halves are linked whole into the
 * experiment library (libdutlab_run: parser, planner; the runner links it,
 * and struct run_argv / run_step_ctx live in step_argv.h with the argv ops
 * so the kinds need nothing of the runner).  The report (libdutlab_core)
 * must not link the orchestrator and recognises a kind's result documents
 * by their own fields, so the same file compiled with DUTLAB_KIND_REPORT
 * gives a struct rundir_kind_ops, tabled in tools/report/rundir_kinds.c,
 * whose .step_kind is the name used here (test tools_step_kinds checks the
 * two tables agree, structure_step_kinds that every file has its row).
 * Nothing here calls back into the parser or the planner, so the kinds add
 * no call cycle (tests/structure/cycles.py).
 *
 * Estimates are for the 2-core reference machine and err on the long side:
 * they drive an ETA and a "not enough space" check, not a result.
 */
#include <string.h>

#include "tools/kinds/step_kinds.h"
#include "tools/run/experiment.h"

#define DUT_STEP_KINDS(X) DUTLAB_STEP_KINDS(X)

#define DECLARE_KIND(k) extern const struct dut_step_type dut_step_kind_##k;
#define KIND_ROW(k) &dut_step_kind_##k,
DUT_STEP_KINDS(DECLARE_KIND)

const struct dut_step_type *const dut_step_types[] = { DUT_STEP_KINDS(KIND_ROW) NULL };
const size_t dut_step_ntypes = sizeof(dut_step_types) / sizeof(dut_step_types[0]) - 1;

const struct dut_step_type *dut_step_type_find(const char *name)
{
	for (size_t i = 0; i < dut_step_ntypes; i++)
		if (strcmp(dut_step_types[i]->name, name) == 0)
			return dut_step_types[i];
	return NULL;
}
