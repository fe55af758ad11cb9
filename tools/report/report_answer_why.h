/* SPDX-License-Identifier: GPL-2.0-or-later */
/* "Why" items of the answer for OLTP and restore steps (report_answer_why.c; pure). */
#ifndef DUTLAB_REPORT_ANSWER_WHY_H
#define DUTLAB_REPORT_ANSWER_WHY_H

#include "tools/report/report_doc.h"
#include "tools/report/rundir_model.h"

void answer_why_oltp(struct rdoc *d, const struct rundir_config *c, const char *step);
void answer_why_restore(struct rdoc *d, const struct rundir_config *c, const char *step);

#endif
