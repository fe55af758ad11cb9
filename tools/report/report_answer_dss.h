/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The answer's "why" of a DSS step (report_answer_dss.c, pure): per
 * configuration its phase times, the queries its query time went to and
 * the read pattern the trace saw during the queries; against the first
 * configuration, the m-time ratio, the queries whose plan changed and the
 * queries the difference is in.
 */
#ifndef DUTLAB_REPORT_ANSWER_DSS_H
#define DUTLAB_REPORT_ANSWER_DSS_H

#include "tools/compare/compare.h"
#include "tools/report/report_doc.h"
#include "tools/report/rundir_model.h"

/* Items of the current list; cmp: the step's comparison (may be NULL). Returns the items added. */
size_t answer_why_dss(struct rdoc *d, const struct rundir_model *m, const char *step, const struct cmp *cmp);

#endif
