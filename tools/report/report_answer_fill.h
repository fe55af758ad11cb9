/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The answer's why of a dutprobe fill step (report_answer_fill.c, pure). */
#ifndef DUTLAB_REPORT_ANSWER_FILL_H
#define DUTLAB_REPORT_ANSWER_FILL_H

#include "tools/report/report_doc.h"
#include "tools/report/rundir_model.h"

/*
 * Per queue depth: whether random-write IOPS fell with the fill level (the
 * overwrite penalty), stayed flat, or moved up and down more than a fill
 * effect would (noise or caching).  One item per queue depth; none when
 * the step has fewer than two levels.
 */
void answer_why_fill(struct rdoc *d, const struct rundir_config *c, const char *step);

#endif
