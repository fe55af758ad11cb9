/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Step tables of the run report (report_run_steps.c), pure: each appends one table (or none) to d. */
#ifndef DUT_TOOLS_REPORT_RUN_STEPS_H
#define DUT_TOOLS_REPORT_RUN_STEPS_H

#include "tools/report/report_doc.h"
#include "tools/report/rundir_model.h"

void report_identify_table(struct rdoc *d, const struct rundir_model *m, const char *step);
void report_bench_table(struct rdoc *d, const struct rundir_model *m, const char *step);
void report_slc_table(struct rdoc *d, const struct rundir_model *m, const char *step);
void report_fill_table(struct rdoc *d, const struct rundir_model *m, const char *step);
void report_restore_table(struct rdoc *d, const struct rundir_model *m, const char *step);
/* dutlab crash (report_run_crash.c): states, verdict, controls, damage found, per configuration. */
void report_crash_table(struct rdoc *d, const struct rundir_model *m, const char *step);
/* report_run_soak.c: a partial report (the run still running) says so; a
 * step stopped by Ctrl-C says what of it the tables hold; traces kept
 * within trace-max: what was removed, and the whole run per second. */
void report_run_partial_head(struct rdoc *d, const struct rundir_model *m);
void report_run_interrupted_steps(struct rdoc *d, const struct rundir_model *m);
void report_run_rotation_section(struct rdoc *d, const struct rundir_model *m);
/* Only for configurations with a replica; nothing when there is none. */
void report_replica_lag_table(struct rdoc *d, const struct rundir_model *m, const char *step);
/* The median of an slc pass's per-window throughput (B/s; 0 without windows). */
double report_slc_level(struct dut_result_phase *ph);
/* report_run_pg.c */
void report_oltp_table(struct rdoc *d, const struct rundir_model *m, const char *step);
void report_phase_table(struct rdoc *d, const struct rundir_model *m, const char *step);
void report_dss_mtime(struct rdoc *d, const struct rundir_model *m, const char *step);

#endif
