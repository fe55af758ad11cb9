/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The chart bodies of chart.c that the step kinds' report halves (tools/kinds/) and chart_build.c use. */
#ifndef DUTLAB_CHART_PRIV_H
#define DUTLAB_CHART_PRIV_H

#include "tools/report/chart.h"
#include "tools/report/rundir_model.h"

int chart_oltp(struct charts *cs, const struct rundir_config *c, const char *step);
int chart_lag(struct charts *cs, const struct rundir_config *c, const char *step);
int chart_oltp_lag(struct charts *cs, const struct rundir_config *c, const char *step);
int chart_slc(struct charts *cs, const struct rundir_config *c, const char *step);
int chart_fill(struct charts *cs, const struct rundir_config *c, const char *step);
int chart_dss(struct charts *cs, const struct rundir_model *m, const char *step);
/* The I/O mix of a step's trace phase (NULL: the whole traces) in c. */
int chart_iomix(struct charts *cs, const struct rundir_config *c, const char *step);

#endif
