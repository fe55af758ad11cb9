/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Rows of "The answer in numbers" (report_answer_rows.c; pure). */
#ifndef DUTLAB_REPORT_ANSWER_ROWS_H
#define DUTLAB_REPORT_ANSWER_ROWS_H

#include "tools/compare/compare.h"
#include "tools/report/report_doc.h"
#include "tools/report/rundir_model.h"

/* Median over a configuration's documents of a step of the sum of their phases' durations (s). */
struct cmp_stat answer_all_phases_s(const struct rundir_config *c, const char *step);
/* One row: configuration, step, figure, median and range (times scale, dec decimals), runs,
 * ratio to base (NULL: "-"); nothing when s has no value. */
void answer_row(struct rdoc *d, const char *cfg, const char *step, const char *what,
		const struct cmp_stat *s, double scale, int dec, const struct cmp_stat *base);
/* The write-cache rows of one slc pass (phase "write" or "write_after_idle"). */
void answer_slc_rows(struct rdoc *d, const struct rundir_config *c, const char *st, const char *phase,
		     const char *what);
/* The DSS m-time of every configuration (NULL when not comparable; cmp_free it). */
struct cmp *answer_dss_cmp(const struct rundir_model *m, const char *step);

#endif
