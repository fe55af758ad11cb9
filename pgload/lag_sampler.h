/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The replay lag sampler of pgload run: its own connection to the primary
 * and its own thread, reading pg_stat_replication once a second into a
 * struct pgl_replica_lag (lag.h) that the caller reads after stop.
 */
#ifndef PGL_LAG_SAMPLER_H
#define PGL_LAG_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>

#include <libpq-fe.h>

#include "lib/error.h"
#include "pgload/lag.h"


struct pgl_lag_sampler;

/*
 * Look at the server through the caller's admin connection; *ret = NULL
 * (return 0) when there is nothing to sample: no streaming standby and not
 * forced, or the target is itself a standby (rl->note says so when forced).
 * Else connect the sampler.  -errno when a query or the connection fails.
 */
int pgl_lag_sampler_open(const char *conninfo, PGconn *admin, bool force,
			 struct pgl_replica_lag *rl, struct pgl_lag_sampler **ret,
			 struct dut_error *err);
/* Sample at t0 + 1 s, t0 + 2 s, ... (CLOCK_MONOTONIC ns).  -errno. */
int pgl_lag_sampler_start(struct pgl_lag_sampler *s, uint64_t t0_ns);
/* One last sample, join, disconnect, free.  NULL is fine. */
void pgl_lag_sampler_stop(struct pgl_lag_sampler *s);

#endif
