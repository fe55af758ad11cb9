/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `pgload dss`: the TPC-H-derived decision-support workload.  The results
 * it prints are TPC-H-derived measurements of a storage stack; they are not
 * TPC-H results and must never be called so.
 *
 *   pgload dss [-d CONNINFO | -h HOST -p PORT -U USER] [-s SF] [-j THREADS]
 *              [--phases load,keys,analyze,queries,rf] [--queries 1,3-5]
 *              [--params default|random] [--seed N] [--data-seed N] [--reps N]
 *              [--timeout DURATION] [--stats-target N] [--dutfs-control FILE]
 *              [--pgdata DIR] [--json FILE] [--quiet] [--debug]
 *   pgload dss --gen-only | --to-files DIR  [-s SF] [-j THREADS] [--data-seed N]
 *
 * argv[0] is "dss".  Returns the process exit status: 0 when every phase
 * succeeded (query timeouts count as success: they are a measurement), 1
 * when a phase failed, 2 for a usage error.
 */
#ifndef PGLOAD_DSS_H
#define PGLOAD_DSS_H

#include <libpq-fe.h>

#include "lib/error.h"

/*
 * The relation map (--relmap) comes from the OLTP half of pgload: the
 * program passes these ops; without them (NULL, as in the test driver)
 * --relmap is refused.  snapshot records the relations and their files now
 * (conninfo reaches the cluster's other databases; 0, or -errno with err:
 * the map keeps what it had, for the caller to warn about); save writes
 * them.  None prints.
 */
struct dss_relmap_ops {
	void *(*open)(void);
	int (*snapshot)(void *ctx, const char *conninfo, PGconn *c, struct dut_error *err);
	int (*save)(void *ctx, const char *path, struct dut_error *err);
	void (*close)(void *ctx);
};

int pgload_dss_main(int argc, char **argv, const struct dss_relmap_ops *relmap);

#endif
