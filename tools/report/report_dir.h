/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `dutlab report RUNDIR`: load the run, compute findings and charts, and
 * write RUNDIR/report.md, RUNDIR/report.html and RUNDIR/charts/ (report_dir.c:
 * the file side; everything it writes comes from the pure builders).
 */
#ifndef DUTLAB_REPORT_DIR_H
#define DUTLAB_REPORT_DIR_H

#include <stddef.h>

#include "lib/error.h"

struct report_dir_summary {
	size_t nfindings, ncharts, nrendered;
	size_t nnotes;
	char first_why_not[512];   /* why the first chart not rendered was not; "" when all were */
	char **warnings;           /* what the charts left out, and why; report_dir_summary_clear() */
	size_t nwarnings;
};

/* Returns 0, -EINVAL with err set (a broken manifest), or -errno (err says what failed). */
int report_dir_write(const char *rundir, struct report_dir_summary *ret, struct dut_error *err);
void report_dir_summary_clear(struct report_dir_summary *s);

#endif
