/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The answer section that opens a run directory's report (report_answer.c, pure). */
#ifndef DUTLAB_REPORT_ANSWER_H
#define DUTLAB_REPORT_ANSWER_H

#include <stddef.h>

#include "tools/report/findings.h"
#include "tools/report/report_doc.h"
#include "tools/report/rundir_model.h"
#include "tools/report/rundir_stats.h"

void report_answer_section(struct rdoc *d, const struct rundir_model *m, const struct findings *f,
			   const struct rundir_stepinfo *steps, size_t nsteps);

#endif
