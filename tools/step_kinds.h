/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The step kinds, once: X(name) for each, in the order dutlab lists them.
 * Both halves of a kind are tabled from this list: the runner's
 * (tools/run/steps/steps.c, struct dut_step_type dut_step_kind_NAME) and the
 * report's (tools/report/rundir_kinds.c, struct rundir_kind_ops
 * rundir_kind_NAME).  A macro only, so the report includes it without the
 * orchestrator.  Adding a kind: one row here, then its two files.
 */
#ifndef DUTLAB_STEP_KINDS_H
#define DUTLAB_STEP_KINDS_H

#define DUTLAB_STEP_KINDS(X) \
	X(identify)          \
	X(bench)             \
	X(slc)               \
	X(fill)              \
	X(oltp_init)         \
	X(oltp_run)          \
	X(dss)               \
	X(restore)           \
	X(crash)

#endif
