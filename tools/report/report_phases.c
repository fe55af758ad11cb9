/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The trace report's phases and findings, around the one-pass builder (report_build.c).  Pure. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tools/report/report.h"
#include "tools/report/report_priv.h"

int rep_phases_init(struct report *rep, const struct dut_trace *t, uint64_t first, uint64_t last)
{
	bool before;
	size_t n;

	if (!t->nrecs)
		first = last = t->hdr.start_monotonic_ns;
	before = t->nmarkers && t->nrecs && first < t->markers[0].ts_ns;
	n = 1 + before + t->nmarkers;
	rep->phases = calloc(n, sizeof(*rep->phases));
	if (!rep->phases)
		return -ENOMEM;
	rep->nphases = n;
	rep->phases[0].name = strdup("whole trace");
	rep->phases[0].start_ns = first;
	rep->phases[0].end_ns = last;
	if (before) {
		rep->phases[1].name = strdup("(before first marker)");
		rep->phases[1].start_ns = first;
		rep->phases[1].end_ns = t->markers[0].ts_ns;
	}
	for (size_t i = 0; i < t->nmarkers; i++) {
		struct rep_phase *p = &rep->phases[1 + before + i];

		p->name = strdup(t->markers[i].label);
		p->start_ns = t->markers[i].ts_ns;
		p->end_ns = i + 1 < t->nmarkers ? t->markers[i + 1].ts_ns
						: (last + 1 > p->start_ns ? last + 1 : p->start_ns);
	}
	for (size_t i = 0; i < n; i++)
		if (!rep->phases[i].name)
			return -ENOMEM;
	return 0;
}

/*
 * Every record went to one phase and class: phases[p].cls[c], p >= 1 when
 * there are marker phases (they cover the whole trace), else p == 0.  The
 * rest is sums: a phase's total over its classes, the whole trace's classes
 * over the phases.  Adding each record once instead of four times is most
 * of the builder's speed: a histogram add is a cache miss.
 */
int rep_phases_total(struct report *rep)
{
	struct rep_phase *ph = rep->phases;
	int r;

	for (size_t p = 1; p < rep->nphases; p++)
		for (unsigned c = 0; c < RC_COUNT; c++)
			if ((r = rep_stats_merge(&ph[0].cls[c], &ph[p].cls[c])) < 0 ||
			    (r = rep_stats_merge(&ph[p].total, &ph[p].cls[c])) < 0)
				return r;
	for (unsigned c = 0; c < RC_COUNT; c++)
		if ((r = rep_stats_merge(&ph[0].total, &ph[0].cls[c])) < 0)
			return r;
	return 0;
}

static int cmp_finding(const void *a, const void *b)
{
	const struct rep_dutfs_finding *x = a, *y = b;

	if (x->share_pct != y->share_pct)
		return x->share_pct > y->share_pct ? -1 : 1;
	return (x->cls > y->cls) - (x->cls < y->cls);
}

/*
 * Classes where dutfs took more than REP_DUTFS_SHARE_FINDING_PCT of the
 * request time, among those with enough of the run's requests and request
 * time to have set its pace (rep_dutfs_is_finding).  The finding compares the instrument's median with the
 * device's (lat_ns) on the same records: reads, writes and fsyncs with
 * dutfs_ns, merged.
 */
void rep_dutfs_findings(struct report *rep, struct dut_shist *const lat[RC_COUNT])
{
	const struct rep_phase *all = &rep->phases[0];

	for (unsigned c = 0; c < RC_COUNT; c++) {
		const struct rep_dutfs *d = &all->cls[c].dutfs;
		struct rep_dutfs_finding *f = &rep->dutfs_findings[rep->ndutfs_findings];
		double share = rep_dutfs_share_pct(d);

		if (!rep_dutfs_is_finding(d, &all->total.dutfs))
			continue;
		*f = (struct rep_dutfs_finding){ .cls = (enum rep_class)c, .share_pct = share,
						 .reqs = d->reqs,
						 .dutfs_p50_ns = dut_shist_percentile(d->hist, 50),
						 .lat_p50_ns = dut_shist_percentile(lat[c], 50) };
		rep->ndutfs_findings++;
	}
	if (rep->ndutfs_findings > 1)
		qsort(rep->dutfs_findings, rep->ndutfs_findings, sizeof(rep->dutfs_findings[0]), cmp_finding);
}
