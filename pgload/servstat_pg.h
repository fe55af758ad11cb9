/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The collector of a run's server-side evidence (servstat.h): a connection
 * of its own to another database than the target (postgres, or template1
 * when the target is postgres: its queries are not transactions of the
 * measured database), a sampling thread for
 * pg_stat_activity, and the counter and CPU readings around the interval.
 * Nothing here is fatal to the run: what fails is noted in the result.
 *
 * Order: open (before the interval), start (its beginning), end_cpu (right
 * after the last client is done), finish (after the clients disconnected).
 */
#ifndef PGL_SERVSTAT_PG_H
#define PGL_SERVSTAT_PG_H

#include <libpq-fe.h>

#include "pgload/servstat.h"

struct pgl_servstat_collector;

/* NULL with res->note set when nothing can be collected. */
struct pgl_servstat_collector *pgl_servstat_open(const char *conninfo, PGconn *admin,
						 struct pgl_servstat *res);
void pgl_servstat_start(struct pgl_servstat_collector *c, uint64_t t0_ns);
void pgl_servstat_end_cpu(struct pgl_servstat_collector *c);
/* Stop sampling, read the counters again, fill res, free c (NULL is fine). */
void pgl_servstat_finish(struct pgl_servstat_collector *c);

#endif
