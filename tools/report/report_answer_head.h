/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The head of the answer section (report_answer_head.c, pure). */
#ifndef DUTLAB_REPORT_ANSWER_HEAD_H
#define DUTLAB_REPORT_ANSWER_HEAD_H

#include <stddef.h>

#include "tools/report/report_doc.h"
#include "tools/report/rundir_model.h"
#include "tools/report/rundir_stats.h"

/* "Device under test, CONFIG: PATH (...)" per configuration with an identify document. */
void answer_target(struct rdoc *d, const struct rundir_model *m, const struct rundir_stepinfo *steps, size_t nsteps);
/* "Memory, CONFIG: ..." the budget against the database size, per configuration. */
void answer_memory(struct rdoc *d, const struct rundir_model *m, const struct rundir_stepinfo *steps, size_t nsteps);

#endif
