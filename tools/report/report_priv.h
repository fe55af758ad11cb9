/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Private to tools/report*.c: statistics and row helpers (report.c) for the builder (report_build.c). */
#ifndef DUTLAB_REPORT_PRIV_H
#define DUTLAB_REPORT_PRIV_H

#include "tools/report/report.h"

enum rep_rec_kind { REP_RK_READ, REP_RK_WRITE, REP_RK_FSYNC, REP_RK_OTHER };

enum rep_rec_kind rep_rec_kind(const struct dut_trace_rec *r);
int rep_stats_add(struct rep_stats *st, const struct dut_trace_rec *r, enum rep_rec_kind k,
		  enum rep_access acc);
void rep_stats_free(struct rep_stats *st);
/*
 * dst += src: the same statistics as if dst had seen src's records too
 * (counters add, saturating sums saturate, histograms merge exactly).
 */
int rep_stats_merge(struct rep_stats *dst, const struct rep_stats *src);
/* Back to no records, keeping the histograms' memory (they count 0 and merge as nothing). */
void rep_stats_reset(struct rep_stats *st);

struct rep_rows {
	struct rep_row *v;
	size_t n, cap;
};

int rep_rows_add(struct rep_rows *rs, const char *name, const char *detail, size_t *ret_idx);
/* The row named name, added (with detail) when there is none. */
int rep_rows_get(struct rep_rows *rs, const char *name, const char *detail, size_t *ret_idx);
/* Drop rows without records and sort the rest (bytes, then ops, then name). */
void rep_rows_finish(struct rep_rows *rs);
void rep_rows_free(struct rep_row *v, size_t n);

/* report_phases.c: phases[0] (whole trace) and one per marker, with "(before first marker)". */
int rep_phases_init(struct report *rep, const struct dut_trace *t, uint64_t first, uint64_t last);
/* After the pass: phase totals and the whole trace's classes, summed from phases[p].cls[c]. */
int rep_phases_total(struct report *rep);
/* The dutfs-time findings; lat[c]: lat_ns of class c's records with dutfs_ns (NULL: none). */
void rep_dutfs_findings(struct report *rep, struct dut_hist *const lat[RC_COUNT]);

#endif
