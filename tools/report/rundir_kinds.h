/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The report's half of a step kind (pure): what `dutlab report RUNDIR`
 * does with a step whose result documents are of that kind - its table,
 * its charts, its findings and its rows in "The answer in numbers".  One
 * `struct rundir_kind_ops` per kind, the half of tools/kinds/<kind>.c
 * compiled with DUTLAB_KIND_REPORT, tabled in rundir_kinds.c from the list
 * of kinds in tools/kinds/meson.build.
 *
 * Why a second struct and not the orchestrator's struct dut_step_type: the
 * report (libdutlab_core) reads run directories of any dutlab, does not
 * link the orchestrator (libdutlab_run), and recognises documents by their
 * own fields (rundir_doc_kind_of, rundir_stats.c), not by the experiment.
 * .step_kind names the orchestrator's kind (the other half of the same
 * file) that writes these documents, so the two halves are found by the
 * same name.
 *
 * Cycle rule (tests/structure/cycles.py): the drivers that call these ops
 * (report_run.c, chart_build.c, findings_build.c, report_answer.c) hold no
 * op bodies; the bodies live in the kind files or in files that never call
 * back into a driver (report_run_steps.c, report_run_pg.c, chart.c,
 * findings.c, report_answer_rows.c, report_answer_why.c,
 * report_answer_dss.c, report_answer_fill.c).
 */
#ifndef DUTLAB_RUNDIR_KINDS_H
#define DUTLAB_RUNDIR_KINDS_H

#include <stdbool.h>
#include <stddef.h>

#include "tools/report/chart.h"
#include "tools/report/findings.h"
#include "tools/report/report_doc.h"
#include "tools/report/rundir_stats.h"

/* Where the traps (findings_traps.c) read what a configuration's target is. */
enum rundir_target_source {
	RUNDIR_TARGET_NONE = 0,
	RUNDIR_TARGET_IDENTIFY,  /* identify's target object, link an object: read first */
	RUNDIR_TARGET_PROBE,     /* a dutprobe test's target, link a description */
};

struct rundir_kind_ops {
	enum rundir_doc_kind kind;
	const char *step_kind;          /* the experiment's step kind writing these documents */
	const char *label;              /* in the step's heading: "pgload oltp" */
	/* Recognition of its result documents (rundir_doc_kind_of): made by doc_tool, and
	 * either recognise(r) (tested first, for every kind that has one) or the string
	 * config.<doc_key> equal to doc_value. */
	const char *doc_tool;
	bool (*recognise)(const struct dut_result *r);
	const char *doc_key, *doc_value;
	/* The step's section after its heading; NULL: a "no table" paragraph. */
	void (*table)(struct rdoc *d, const struct rundir_model *m, const char *step);
	/* Charts of the step over all configurations, then per configuration; 0 or -errno. */
	int (*step_charts)(struct charts *cs, const struct rundir_model *m, const char *step);
	int (*config_charts)(struct charts *cs, const struct rundir_config *c, const char *step);
	/* Findings of the step in configuration ci; 0 or -errno. */
	int (*findings)(const struct rundir_model *m, size_t ci, const char *step, struct findings *fs);
	/* Its rows of "The answer in numbers", every configuration; NULL: no headline figure. */
	void (*answer)(struct rdoc *d, const struct rundir_model *m, const char *step);
	/* Items of the answer's "why" list: over all configurations (how many it added),
	 * then per configuration. */
	size_t (*why_step)(struct rdoc *d, const struct rundir_model *m, const char *step);
	void (*why_config)(struct rdoc *d, const struct rundir_config *c, const char *step);
	/* The answer's head (before the numbers), over all configurations; *list: a list is
	 * open (the op opens one for its first item and sets it). */
	void (*answer_head)(struct rdoc *d, const struct rundir_model *m, const char *step, bool *list);
	/* The size of the database the step's document d ran on, bytes; 0 unknown (the
	 * answer's memory paragraph: the first step of a kind with this op that knows it). */
	double (*database_bytes)(const struct dut_result *d);
	/* A table after the answer's why list, one row per configuration; *open: its
	 * heading is out (the op writes it before its first row and sets it). */
	void (*answer_table)(struct rdoc *d, const struct rundir_model *m, const char *step, bool *open);

	/* ---- traps (findings_traps.c): what the run did not measure ---- */
	enum rundir_target_source target;
	/* Whether document d wrote to the device (the empty-drive trap); NULL: never. */
	bool (*writes)(const struct dut_result *d);
	/* Why the device was not ready for d's writes; NULL: it was.  written: a step
	 * before it in the repetition wrote; fresh: d's target is a file or loop image the
	 * run created; loop: the configuration's target is a loop image. */
	const char *(*unprepared)(const struct dut_result *d, bool written, bool fresh, bool loop);
	/* The figure-above-the-link trap: the highest device throughput the step's documents
	 * claim in configuration c, B/s (0: none), described in what; NULL: the I/O dutfs
	 * traced between the step's markers.  no_link_check: the kind checks its own figures
	 * (bench: the cache findings) or has none (identify). */
	double (*peak_bps)(const struct rundir_config *c, const char *step, char *what, size_t n);
	bool no_link_check;
	/* The kind's own traps in configuration ci; 0 or -errno. */
	int (*traps)(const struct rundir_model *m, size_t ci, const char *step, struct findings *fs);
};

/* The ops of a document kind; NULL for DOC_OTHER (and kinds without any). */
const struct rundir_kind_ops *rundir_kind_ops_of(enum rundir_doc_kind kind);

#endif
