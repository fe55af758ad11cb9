/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Report of a rotated trace: what the segments kept, and the whole run's
 * per-second series from the side file (tools/report/report_seconds.h).
 *
 * The series is shown in at most about 60 rows: one per second up to two
 * minutes, else one per ceil(seconds / 60) seconds.  A row's rates are its
 * seconds' sums over its length; its p99 is the interval's own, from the
 * seconds' histograms merged (side file format 2, exact as lib/hist is);
 * a format-1 side file has percentiles per second only, so there it is the
 * worst second's p99.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tools/report/report_seconds.h"

#define NS_PER_S 1e9
#define MAX_ROWS 60u

int rep_rotation_new(const struct dut_trace *meta, const struct dut_trace_seconds_file *sf,
		     uint64_t first_ns, uint64_t last_ns, struct rep_rotation **ret)
{
	struct rep_rotation *rot = calloc(1, sizeof(*rot));

	if (!rot)
		return -ENOMEM;
	rot->seg = meta->seg;
	rot->first_seq = meta->first_seq;
	rot->records_gone = meta->records_gone;
	rot->kept_first_ns = first_ns;
	rot->kept_last_ns = last_ns;
	rot->start_monotonic_ns = meta->hdr.start_monotonic_ns;
	if (sf) {
		rot->have_seconds = true;
		rot->sec = *sf;
		rot->sec.rows = NULL;
		rot->sec.buckets = NULL;
		if (sf->nbuckets) {
			rot->sec.buckets = malloc(sf->nbuckets * sizeof(sf->buckets[0]));
			if (!rot->sec.buckets) {
				free(rot);
				return -ENOMEM;
			}
			memcpy(rot->sec.buckets, sf->buckets, sf->nbuckets * sizeof(sf->buckets[0]));
		}
		if (sf->nrows) {
			rot->sec.rows = malloc(sf->nrows * sizeof(sf->rows[0]));
			if (!rot->sec.rows) {
				free(rot->sec.buckets);
				free(rot);
				return -ENOMEM;
			}
			memcpy(rot->sec.rows, sf->rows, sf->nrows * sizeof(sf->rows[0]));
		}
	}
	*ret = rot;
	return 0;
}

void rep_rotation_free(struct rep_rotation *rot)
{
	if (!rot)
		return;
	free(rot->sec.rows);
	free(rot->sec.buckets);
	free(rot);
}

static double rel_s(const struct rep_rotation *rot, uint64_t ts)
{
	return ts > rot->start_monotonic_ns ? (double)(ts - rot->start_monotonic_ns) / NS_PER_S : 0.0;
}

void rep_rotation_render_head(const struct rep_rotation *rot, const char *path, FILE *out)
{
	double mib = (double)rot->seg.max_bytes / (1024.0 * 1024.0);

	fprintf(out, "  rotated:    --trace-max %.1f MiB in %u segments; read segments %" PRIu32 " to %"
		PRIu32 " (%s.%" PRIu32 " .. %s)", mib, rot->seg.keep, rot->first_seq, rot->seg.seq, path,
		rot->first_seq, path);
	if (rot->first_seq > 1)
		fprintf(out, "; segments 1 to %" PRIu32 " were removed with their %" PRIu64 " records",
			rot->first_seq - 1, rot->records_gone);
	fprintf(out, "\n");
	if (rot->records_gone)
		fprintf(out, "  kept:       records from %.3f s to %.3f s of the run: every table below but "
			"the per-second series covers only them\n", rel_s(rot, rot->kept_first_ns),
			rel_s(rot, rot->kept_last_ns));
	if (!rot->have_seconds) {
		fprintf(out, "  seconds:    no side file %s%s: no series of the whole run\n", path,
			DUT_TRACE_SECONDS_SUFFIX);
		return;
	}
	fprintf(out, "  seconds:    %s%s: %" PRIu64 " read/write/sync records in %" PRIu64 " seconds "
		"(%s)%s\n", path, DUT_TRACE_SECONDS_SUFFIX, rot->sec.records, rot->sec.end_sec,
		rot->sec.complete ? "closed by dutfs" : "NOT closed: it ends with dutfs",
		rot->sec.late ? "; some records counted a second late" : "");
}

/* Format 1: the worst second's p99; format 2 sets the interval's own after the walk. */
static void agg_add(struct rep_sec_agg *a, const struct dut_trace_sec_row *r)
{
	for (unsigned k = 0; k < DUT_SEC_KINDS; k++) {
		a->ops[k] += r->k[k].ops;
		a->bytes[k] += r->k[k].bytes;
		if (r->k[k].ops && r->k[k].p99_ns > a->p99[k])
			a->p99[k] = r->k[k].p99_ns;
	}
}

/* The interval's own p99 per kind from the side file's histograms; false: none kept (format 1). */
static bool agg_exact_p99(const struct rep_rotation *rot, uint64_t from, uint64_t len,
			  struct dut_hist *h, struct rep_sec_agg *a)
{
	if (!rot->sec.has_hist || !h)
		return false;
	for (unsigned k = 0; k < DUT_SEC_KINDS; k++) {
		dut_hist_reset(h);
		dut_trace_seconds_file_hist(&rot->sec, k, from, from + len, h);
		a->p99[k] = dut_hist_percentile(h, 99);
	}
	return true;
}

uint64_t rep_rotation_interval_s(const struct rep_rotation *rot)
{
	uint64_t n = rot->sec.end_sec;

	return n <= 2 * MAX_ROWS ? 1 : (n + MAX_ROWS - 1) / MAX_ROWS;
}

void rep_rotation_walk(const struct rep_rotation *rot,
		       void (*fn)(void *ctx, uint64_t from_s, uint64_t len_s, const struct rep_sec_agg *a),
		       void *ctx)
{
	uint64_t step = rep_rotation_interval_s(rot), end = rot->sec.end_sec;
	struct dut_hist *h = rot->sec.has_hist ? dut_hist_new() : NULL;
	size_t i = 0;

	for (uint64_t from = 0; from < end; from += step) {
		struct rep_sec_agg a = { { 0 } };
		uint64_t len = from + step <= end ? step : end - from;

		while (i < rot->sec.nrows && rot->sec.rows[i].sec < from + len)
			agg_add(&a, &rot->sec.rows[i++]);
		a.exact = agg_exact_p99(rot, from, len, h, &a);
		fn(ctx, from, len, &a);
	}
	dut_hist_free(h);
}

int rep_rotation_whole_run(const struct rep_rotation *rot, enum dut_trace_sec_kind k,
			   struct dut_hist_summary *ret)
{
	struct dut_hist *h;
	int r;

	if (!rot->have_seconds || !rot->sec.has_hist)
		return -ENODATA;
	if (!(h = dut_hist_new()))
		return -ENOMEM;
	r = dut_trace_seconds_file_hist(&rot->sec, k, 0, UINT64_MAX, h);
	if (r == 0)
		dut_hist_summarize(h, ret);
	dut_hist_free(h);
	return r;
}

static void human_whole_run(const struct rep_rotation *rot, FILE *out)
{
	fprintf(out, "  whole run, exact from the side file's histograms:\n");
	for (unsigned k = 0; k < DUT_SEC_KINDS; k++) {
		struct dut_hist_summary sm;

		if (rep_rotation_whole_run(rot, k, &sm) < 0 || !sm.count)
			continue;
		fprintf(out, "    %-5s %10" PRIu64 " ops  p50 %9.1f us  p90 %9.1f us  p99 %9.1f us  "
			"p99.9 %9.1f us  max %9.1f us\n", dut_trace_sec_kind_name(k), sm.count,
			(double)sm.p50 / 1e3, (double)sm.p90 / 1e3, (double)sm.p99 / 1e3,
			(double)sm.p999 / 1e3, (double)sm.max / 1e3);
	}
}

static void human_row(void *ctx, uint64_t from, uint64_t len, const struct rep_sec_agg *a)
{
	FILE *out = ctx;

	fprintf(out, "  %8" PRIu64 " %10.1f %9.2f %10.1f %10.1f %9.2f %10.1f %9.1f %10.1f\n", from,
		(double)a->ops[DUT_SEC_READ] / (double)len,
		(double)a->bytes[DUT_SEC_READ] / (double)len / 1e6, (double)a->p99[DUT_SEC_READ] / 1e3,
		(double)a->ops[DUT_SEC_WRITE] / (double)len,
		(double)a->bytes[DUT_SEC_WRITE] / (double)len / 1e6, (double)a->p99[DUT_SEC_WRITE] / 1e3,
		(double)a->ops[DUT_SEC_SYNC] / (double)len, (double)a->p99[DUT_SEC_SYNC] / 1e3);
}

void rep_rotation_render_series(const struct rep_rotation *rot, FILE *out)
{
	if (!rot->have_seconds)
		return;
	fprintf(out, "\nWhole run per %" PRIu64 " s (side file: every second, also of removed segments; "
		"%s)\n", rep_rotation_interval_s(rot),
		rot->sec.has_hist ? "p99 of each interval, from its histograms" :
		"p99 = the worst second's: a format-1 side file keeps no histograms");
	if (rot->sec.has_hist)
		human_whole_run(rot, out);
	fprintf(out, "  %8s %10s %9s %10s %10s %9s %10s %9s %10s\n", "from_s", "reads/s", "read_MB/s",
		"read_p99us", "writes/s", "write_MB/s", "write_p99us", "syncs/s", "sync_p99us");
	rep_rotation_walk(rot, human_row, out);
}

static void add_u64(struct json_object *o, const char *k, uint64_t v)
{
	json_object_object_add(o, k, json_object_new_uint64(v));
}

static void json_row(void *ctx, uint64_t from, uint64_t len, const struct rep_sec_agg *a)
{
	struct json_object *arr = ctx, *row = json_object_new_object();

	if (!row)
		return;
	add_u64(row, "from_s", from);
	add_u64(row, "seconds", len);
	for (unsigned k = 0; k < DUT_SEC_KINDS; k++) {
		struct json_object *o = json_object_new_object();

		if (!o)
			continue;
		add_u64(o, "ops", a->ops[k]);
		add_u64(o, "bytes", a->bytes[k]);
		add_u64(o, a->exact ? "p99_ns" : "worst_second_p99_ns", a->p99[k]);
		json_object_object_add(row, dut_trace_sec_kind_name(k), o);
	}
	json_object_array_add(arr, row);
}

void rep_rotation_render_json(const struct rep_rotation *rot, struct json_object *tg)
{
	struct json_object *o = json_object_new_object(), *arr;

	if (!o)
		return;
	add_u64(o, "max_bytes", rot->seg.max_bytes);
	add_u64(o, "segments", rot->seg.keep);
	add_u64(o, "first_segment_read", rot->first_seq);
	add_u64(o, "last_segment", rot->seg.seq);
	add_u64(o, "records_removed", rot->records_gone);
	json_object_object_add(o, "kept_from_s", json_object_new_double(rel_s(rot, rot->kept_first_ns)));
	json_object_object_add(o, "side_file", json_object_new_boolean(rot->have_seconds));
	if (rot->have_seconds) {
		add_u64(o, "side_file_records", rot->sec.records);
		add_u64(o, "side_file_seconds", rot->sec.end_sec);
		json_object_object_add(o, "side_file_closed", json_object_new_boolean(rot->sec.complete));
		add_u64(o, "series_interval_s", rep_rotation_interval_s(rot));
		add_u64(o, "side_file_version", rot->sec.version);
		if (rot->sec.has_hist) {
			struct json_object *w = json_object_new_object();

			for (unsigned k = 0; w && k < DUT_SEC_KINDS; k++) {
				struct dut_hist_summary sm;
				struct json_object *ko;

				if (rep_rotation_whole_run(rot, k, &sm) < 0 || !(ko = json_object_new_object()))
					continue;
				add_u64(ko, "ops", sm.count);
				add_u64(ko, "p50_ns", sm.p50);
				add_u64(ko, "p90_ns", sm.p90);
				add_u64(ko, "p99_ns", sm.p99);
				add_u64(ko, "p999_ns", sm.p999);
				add_u64(ko, "max_ns", sm.max);
				json_object_object_add(w, dut_trace_sec_kind_name(k), ko);
			}
			if (w)
				json_object_object_add(o, "whole_run", w);
		}
		arr = json_object_new_array();
		if (arr) {
			rep_rotation_walk(rot, json_row, arr);
			json_object_object_add(o, "series", arr);
		}
	}
	json_object_object_add(tg, "rotation", o);
}
