/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The report of a rotated trace (--trace-max, docs/soak.md): which
 * segments it read, what was rotated away, and the run's per-second series
 * from the side file, which covers the whole run.
 */
#ifndef DUT_REPORT_SECONDS_H
#define DUT_REPORT_SECONDS_H

#include <stdio.h>
#include <json-c/json.h>

#include "lib/trace.h"

struct rep_rotation {
	struct dut_trace_segment seg;    /* the newest segment's */
	uint32_t first_seq;              /* oldest segment read */
	uint64_t records_gone;           /* in segments rotated away */
	uint64_t kept_first_ns, kept_last_ns; /* records read: first and last time */
	uint64_t start_monotonic_ns;
	bool have_seconds;
	struct dut_trace_seconds_file sec; /* rows owned */
};

struct report;

/* Pure: note what a segmented meta trace and its side file (may be NULL) say; 0 or -ENOMEM. */
int rep_rotation_new(const struct dut_trace *meta, const struct dut_trace_seconds_file *sf,
		     uint64_t first_ns, uint64_t last_ns, struct rep_rotation **ret);
void rep_rotation_free(struct rep_rotation *rot);
/* The header lines (after "records:") and the per-second section. */
void rep_rotation_render_head(const struct rep_rotation *rot, const char *trace_path, FILE *out);
void rep_rotation_render_series(const struct rep_rotation *rot, FILE *out);
/* The series in about 60 intervals (one per second up to two minutes): per
 * kind the ops and bytes summed, and the interval's p99 from the side
 * file's histograms (exact: true), or with a format-1 side file the worst
 * second's p99.  fn is called for each interval, empty ones too (dutlab
 * report RUNDIR's table). */
struct rep_sec_agg {
	uint64_t ops[DUT_SEC_KINDS], bytes[DUT_SEC_KINDS], p99[DUT_SEC_KINDS];
	bool exact;
};
uint64_t rep_rotation_interval_s(const struct rep_rotation *rot);
void rep_rotation_walk(const struct rep_rotation *rot,
		       void (*fn)(void *ctx, uint64_t from_s, uint64_t len_s, const struct rep_sec_agg *a),
		       void *ctx);
/* Kind k's latencies over the whole run (also the removed segments' seconds) from the side
 * file's histograms: 0, -ENODATA (no side file, or format 1) or -ENOMEM. */
int rep_rotation_whole_run(const struct rep_rotation *rot, enum dut_trace_sec_kind k,
			   struct dut_hist_summary *ret);
/* The same facts in the result document's target. */
void rep_rotation_render_json(const struct rep_rotation *rot, struct json_object *target);

#endif
