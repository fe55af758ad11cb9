/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Private to tools/report*.c: statistics and row helpers (report.c) for the builder (report_build.c). */
#ifndef DUTLAB_REPORT_PRIV_H
#define DUTLAB_REPORT_PRIV_H

#include "tools/report/report.h"

enum rep_rec_kind { REP_RK_READ, REP_RK_WRITE, REP_RK_FSYNC, REP_RK_OTHER };

static inline enum rep_rec_kind rep_rec_kind(const struct dut_trace_rec *r)
{
	switch (r->op) {
	case DUT_OP_READ:
		return REP_RK_READ;
	case DUT_OP_WRITE:
	case DUT_OP_MMAP_WRITE:
		return REP_RK_WRITE;
	case DUT_OP_FSYNC:
	case DUT_OP_FDATASYNC:
		return REP_RK_FSYNC;
	default:
		return REP_RK_OTHER;
	}
}

static inline uint64_t rep_sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* floor(log2(len)), 0 for 0 and 1: at most 31, inside the REP_SIZE_BINS bins */
static inline unsigned rep_size_bin(uint32_t len)
{
	return len > 1 ? 31u - (unsigned)__builtin_clz(len) : 0;
}

/* A read's or write's counters (not its latency) into d. */
static inline void rep_dir_add(struct rep_dirstats *d, const struct dut_trace_rec *r, enum rep_access acc)
{
	uint64_t done = r->result > 0 ? (uint64_t)r->result : 0;

	d->ops++;
	d->bytes += done;
	d->seq_ops += acc != REP_ACCESS_RANDOM;
	d->seq_bytes += acc != REP_ACCESS_RANDOM ? done : 0;
	d->rewrite_ops += acc == REP_ACCESS_TAIL_REWRITE;
	d->errors += r->result < 0;
	d->size_bins[rep_size_bin(r->len)]++;
}

/* A record's dutfs time into d (d->hist made), idx its bucket: 0 or -ENOMEM. */
static inline int rep_dutfs_add(struct rep_dutfs *d, const struct dut_trace_rec *r, unsigned idx)
{
	int err = dut_shist_add_at(d->hist, r->dutfs_ns, idx);

	if (err < 0)
		return err;
	d->reqs++;
	d->sum_ns = rep_sat_add(d->sum_ns, r->dutfs_ns);
	d->req_sum_ns = rep_sat_add(d->req_sum_ns, rep_sat_add(r->lat_ns, r->dutfs_ns));
	return 0;
}

/*
 * One record into st; the histograms are made on their first value.
 * Inline (with the histogram add): the builder does this twice a record.
 */
static inline int rep_stats_add(struct rep_stats *st, const struct dut_trace_rec *r,
				enum rep_rec_kind k, enum rep_access acc)
{
	struct dut_shist **h;
	int err;

	if (k == REP_RK_OTHER) {
		st->other_ops++;
		return 0;
	}
	if (k == REP_RK_FSYNC) {
		st->fsyncs++;
		h = &st->fsync_lat;
	} else {
		struct rep_dirstats *d = &st->dir[k == REP_RK_READ ? REP_READ : REP_WRITE];

		rep_dir_add(d, r, acc);
		h = &d->lat;
	}
	if (__builtin_expect(!*h, 0) && !(*h = dut_shist_new()))
		return -ENOMEM;
	if ((err = dut_shist_add(*h, r->lat_ns)) < 0)
		return err;
	if (r->dutfs_ns) {
		struct rep_dutfs *d = &st->dutfs;

		if (__builtin_expect(!d->hist, 0) && !(d->hist = dut_shist_new()))
			return -ENOMEM;
		return rep_dutfs_add(d, r, dut_hist_bucket(r->dutfs_ns));
	}
	return 0;
}
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

/*
 * For tests: every record of b through the builder's general path, none on
 * the fast path (report_build.c, rec_fast): the reference that path must
 * equal.  Before the first report_builder_add.
 */
void report_builder_set_general_only(struct report_builder *b);

/* report_phases.c: phases[0] (whole trace) and one per marker, with "(before first marker)". */
int rep_phases_init(struct report *rep, const struct dut_trace *t, uint64_t first, uint64_t last);
/* After the pass: phase totals and the whole trace's classes, summed from phases[p].cls[c]. */
int rep_phases_total(struct report *rep);
/* The dutfs-time findings; lat[c]: lat_ns of class c's records with dutfs_ns (NULL: none). */
void rep_dutfs_findings(struct report *rep, struct dut_shist *const lat[RC_COUNT]);

#endif
