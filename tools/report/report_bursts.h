/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Data-file write bursts against TPS dips (report_bursts.c, pure): the
 * per-second TPS of the runs of an OLTP step, the bytes the trace saw
 * written to the tables' and indexes' files in the same seconds, and the
 * seconds the checkpointer worked.
 *
 * Definitions (docs/report.md "Write bursts and TPS dips"):
 *   - the seconds of a run are its per-second series rows; the first (the
 *     clients ramp up) and the last (usually partial) are not counted;
 *   - a dip is a counted second whose TPS is below BURST_DIP_PCT % of the
 *     run's median TPS over the counted seconds;
 *   - a burst is a second (any row) whose data-file write bytes are at
 *     least BURST_FACTOR times the run's median over the counted seconds
 *     and at least BURST_FLOOR_BYTES;
 *   - a dip coincides with a burst (a checkpoint) when the burst (the
 *     checkpointer's work) is in the same or the previous second.
 */
#ifndef DUTLAB_REPORT_BURSTS_H
#define DUTLAB_REPORT_BURSTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/compare/compare.h"

#define BURST_DIP_PCT 70.0
#define BURST_FACTOR 2.0
#define BURST_FLOOR_BYTES (1024u * 1024u)

/* One run of a step: its seconds; write_bytes and ckpt NULL when unknown. */
struct burst_run {
	const double *tps;             /* [nsecs] transactions committed in second i */
	const uint64_t *write_bytes;   /* [nsecs] data-file bytes written in second i */
	const bool *ckpt;              /* [nsecs] the checkpointer worked in second i */
	size_t nsecs;
};

struct burst_result {
	size_t nruns;                  /* runs given */
	size_t nsecs;                  /* counted seconds over the runs */
	size_t ntraced_secs, nckpt_secs_known;   /* of them, with write bytes / checkpoint samples */
	size_t ndips;
	size_t dips_burst;             /* dips at a burst (same or previous second) */
	size_t dips_ckpt;              /* dips at a checkpoint */
	size_t dips_neither;           /* dips at neither (both known) or unexplained */
	size_t nburst_secs;            /* counted seconds that are bursts */
	uint64_t write_bytes;          /* data-file bytes written in the counted seconds */
	struct cmp_stat tps;           /* of the runs' median TPS */
	struct cmp_stat tps_burst, tps_other;   /* TPS of the counted burst seconds and of the others */
};

/*
 * The bytes of ticks (tick_ns each, from 0) falling in second i after
 * offset_ns, for i in [0, nsecs): out[i] sums ticks whose start lies in
 * [offset_ns + i s, offset_ns + (i + 1) s).
 */
void burst_rebin(const uint64_t *ticks, size_t nticks, uint64_t tick_ns, uint64_t offset_ns,
		 uint64_t *out, size_t nsecs);

/* The runs' seconds summarised; -ENOMEM. */
int burst_analyse(const struct burst_run *runs, size_t nruns, struct burst_result *ret);

#endif
