/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Rate-limit schedule (-R), as pgbench does it: transaction start times form
 * a Poisson process, so the gaps are exponentially distributed with mean
 * 1/rate.  Each thread schedules its share of the rate; a client that is
 * free takes the next slot, waits until it comes, and the difference
 * between the actual start and the slot is the schedule lag (how far the
 * system fell behind).  Pure code.
 */
#ifndef PGL_THROTTLE_H
#define PGL_THROTTLE_H

#include <stdint.h>

#include "pgload/rng.h"

struct pgl_sched {
	double mean_gap_ns;   /* 1e9 / rate */
	uint64_t next_ns;     /* the next slot to hand out */
};

/* rate_per_s > 0; the first slot is start_ns plus one random gap. */
void pgl_sched_init(struct pgl_sched *s, double rate_per_s, uint64_t start_ns,
		    struct pgl_rng *rng);
/* An exponential gap with this mean (pgbench's getPoissonRand), in ns. */
uint64_t pgl_sched_gap(double mean_ns, struct pgl_rng *rng);
/* Hand out the next slot and advance the schedule. */
uint64_t pgl_sched_take(struct pgl_sched *s, struct pgl_rng *rng);

struct pgl_lag {
	uint64_t count;
	uint64_t sum_ns;
	uint64_t max_ns;
};

/* Account one transaction that was scheduled at sched_ns and started at
 * start_ns (a start before its slot counts as zero lag). Returns the lag. */
uint64_t pgl_lag_add(struct pgl_lag *l, uint64_t sched_ns, uint64_t start_ns);
void pgl_lag_merge(struct pgl_lag *dst, const struct pgl_lag *src);
double pgl_lag_mean_ns(const struct pgl_lag *l);

#endif
