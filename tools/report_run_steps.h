/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Step tables of the run report (report_run_steps.c), pure: each appends one table (or none) to d. */
#ifndef DUT_TOOLS_REPORT_RUN_STEPS_H
#define DUT_TOOLS_REPORT_RUN_STEPS_H

#include "tools/report_doc.h"
#include "tools/run_model.h"

void report_identify_table(struct rdoc *d, const struct run_model *m, const char *step);
void report_bench_table(struct rdoc *d, const struct run_model *m, const char *step);
void report_slc_table(struct rdoc *d, const struct run_model *m, const char *step);
void report_fill_table(struct rdoc *d, const struct run_model *m, const char *step);
void report_restore_table(struct rdoc *d, const struct run_model *m, const char *step);
/* dutlab crash (report_run_crash.c): states, verdict, controls, damage found, per configuration. */
void report_crash_table(struct rdoc *d, const struct run_model *m, const char *step);
/* Only for configurations with a replica; nothing when there is none. */
void report_replica_lag_table(struct rdoc *d, const struct run_model *m, const char *step);
/* The median of an slc pass's per-window throughput (B/s; 0 without windows). */
double report_slc_level(struct dut_result_phase *ph);

#endif
