/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dutlab compare with run directories (pure): a run directory gives one
 * input per configuration that has documents of the compared step (all its
 * repetitions' documents; compare takes their median).  Result documents
 * given alongside are one input each, in the order of the command line.
 */
#ifndef DUTLAB_COMPARE_RUN_H
#define DUTLAB_COMPARE_RUN_H

#include "tools/compare/compare.h"
#include "tools/report/rundir_model.h"
#include "tools/report/rundir_stats.h"

struct cmp_run_set {
	struct cmp_input in[CMP_MAX_INPUTS];
	char *source[CMP_MAX_INPUTS];           /* owned: "RUNDIR: config (n documents)" */
	struct dut_result **docs[CMP_MAX_INPUTS]; /* owned arrays of borrowed documents */
	size_t n;
};

/* One input per configuration of m with documents of step; -E2BIG (err set) past CMP_MAX_INPUTS. */
int cmp_run_add_step(struct cmp_run_set *s, const struct rundir_model *m, const char *step,
		     struct dut_error *err);
/* One input: a single (borrowed) document. */
int cmp_run_add_doc(struct cmp_run_set *s, const char *source, struct dut_result *doc,
		    struct dut_error *err);
void cmp_run_set_clear(struct cmp_run_set *s);

/* The first step of m whose documents are of kind k, or NULL. */
const char *cmp_run_step_of_kind(const struct rundir_model *m, enum rundir_doc_kind k);

#endif
