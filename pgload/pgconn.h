/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Synchronous libpq helpers for set-up and inspection (the load and the
 * benchmark loops use libpq directly).  0 or -errno; err explains.
 */
#ifndef PGL_PGCONN_H
#define PGL_PGCONN_H

#include <stddef.h>
#include <stdint.h>

#include <libpq-fe.h>

#include "lib/error.h"
#include "pgload/relmap.h"
#include "pgload/settings.h"

uint64_t pgl_now_ns(void);     /* CLOCK_MONOTONIC */

int pgl_pq_connect(const char *conninfo, PGconn **ret, struct dut_error *err);
/* Connect to another database of the same server. */
int pgl_pq_connect_db(const char *conninfo, const char *dbname, PGconn **ret,
		      struct dut_error *err);
int pgl_pq_exec(PGconn *c, const char *sql, struct dut_error *err);
/* First column of the first row of a query, as text. */
int pgl_pq_value(PGconn *c, const char *sql, char *buf, size_t len, struct dut_error *err);
int pgl_pq_settings(PGconn *c, struct pgl_settings *st, struct dut_error *err);
/* Scale of the pgbench tables there: count(*) of pgbench_branches. */
int pgl_pq_scale(PGconn *c, int64_t *ret, struct dut_error *err);
/* Snapshot every relation with storage in every database, and the backends. */
int pgl_pq_relmap_snapshot(const char *conninfo, PGconn *c, struct pgl_relmap *m,
			   struct dut_error *err);

/* Only the backends (pid, backend_type): cheap, for when clients are connected. */
int pgl_pq_relmap_procs(PGconn *c, struct pgl_relmap *m, struct dut_error *err);

#endif
