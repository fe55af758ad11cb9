/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The device reads of each configuration in one step, side by side, for
 * experiments whose configurations differ in PostgreSQL 18's io_method
 * (tools/experiments/io-method.ini, docs/io-method.md): how many reads
 * reached the device (dutfs trace), how large they were, how long they took,
 * and which processes issued them.  Pure: from the run model.
 */
#ifndef DUTLAB_REPORT_RUN_READS_H
#define DUTLAB_REPORT_RUN_READS_H

#include <stdint.h>

#include "lib/hist.h"
#include "tools/report/report_doc.h"
#include "tools/report/rundir_model.h"

/* The role pgload's relation map gives PostgreSQL 18's I/O worker processes (pg_stat_activity.backend_type). */
#define REPORT_READS_WORKER_ROLE "io worker"

struct report_reads {
	unsigned ntraced;          /* repetitions whose trace has the phase */
	uint64_t ops, bytes;       /* reads in the phase, every class, every mount */
	uint64_t multi_ops;        /* of them, two blocks or more long (size bins, tools/report/report.h) */
	/* the whole traces (the report keeps processes per trace, not per phase): reads by io workers */
	uint64_t all_ops, all_bytes, worker_ops, worker_bytes;
};

/*
 * The reads of configuration c in the trace phase `phase` (a step's marker,
 * or RUNDIR_DSS_PHASE("queries")), with block_bytes the server's block (0: 8 KiB);
 * their latencies are merged into lat when it is not NULL.
 */
void report_reads_of(const struct rundir_config *c, const char *phase, uint32_t block_bytes, struct report_reads *ret,
		     struct dut_hist *lat);

/* A configuration's io_method as its server reported it (result documents' target.settings), or NULL. */
const char *report_config_io_method(const struct rundir_config *c);

/*
 * The step's table "Device reads per configuration" when at least two
 * configurations ran with different io_method values and have traced reads
 * in the step (OLTP: the step's marker; DSS: its query phase); nothing
 * otherwise.
 */
void report_reads_table(struct rdoc *d, const struct rundir_model *m, const char *step, bool dss);

#endif
