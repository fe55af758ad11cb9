/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <math.h>

#include "pgload/throttle.h"

uint64_t pgl_sched_gap(double mean_ns, struct pgl_rng *rng)
{
	/* 1 - U lies in (0, 1], so log() is finite. */
	double u = 1.0 - pgl_rng_double(rng);

	return (uint64_t)(-log(u) * mean_ns + 0.5);
}

void pgl_sched_init(struct pgl_sched *s, double rate_per_s, uint64_t start_ns,
		    struct pgl_rng *rng)
{
	s->mean_gap_ns = 1e9 / rate_per_s;
	s->next_ns = start_ns + pgl_sched_gap(s->mean_gap_ns, rng);
}

uint64_t pgl_sched_take(struct pgl_sched *s, struct pgl_rng *rng)
{
	uint64_t slot = s->next_ns;

	s->next_ns += pgl_sched_gap(s->mean_gap_ns, rng);
	return slot;
}

uint64_t pgl_lag_add(struct pgl_lag *l, uint64_t sched_ns, uint64_t start_ns)
{
	uint64_t lag = start_ns > sched_ns ? start_ns - sched_ns : 0;

	l->count++;
	l->sum_ns += lag;
	if (lag > l->max_ns)
		l->max_ns = lag;
	return lag;
}

void pgl_lag_merge(struct pgl_lag *dst, const struct pgl_lag *src)
{
	dst->count += src->count;
	dst->sum_ns += src->sum_ns;
	if (src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
}

double pgl_lag_mean_ns(const struct pgl_lag *l)
{
	return l->count ? (double)l->sum_ns / (double)l->count : 0.0;
}
