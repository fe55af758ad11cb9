/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Report of a rotated trace: what the segments kept, and the whole run's
 * per-second series from the side file (tools/report/report_seconds.h).
 *
 * The series is shown in at most about 60 rows: one per second up to two
 * minutes, else one per ceil(seconds / 60) seconds.  A row's rates are its
 * seconds' sums over its length; its p99 is the worst second's p99 (the
 * side file has percentiles per second, not histograms, so a longer
 * interval's own p99 cannot be had).
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
		if (sf->nrows) {
			rot->sec.rows = malloc(sf->nrows * sizeof(sf->rows[0]));
			if (!rot->sec.rows) {
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

static void agg_add(struct rep_sec_agg *a, const struct dut_trace_sec_row *r)
{
	for (unsigned k = 0; k < DUT_SEC_KINDS; k++) {
		a->ops[k] += r->k[k].ops;
		a->bytes[k] += r->k[k].bytes;
		if (r->k[k].ops && r->k[k].p99_ns > a->p99[k])
			a->p99[k] = r->k[k].p99_ns;
	}
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
	size_t i = 0;

	for (uint64_t from = 0; from < end; from += step) {
		struct rep_sec_agg a = { { 0 } };
		uint64_t len = from + step <= end ? step : end - from;

		while (i < rot->sec.nrows && rot->sec.rows[i].sec < from + len)
			agg_add(&a, &rot->sec.rows[i++]);
		fn(ctx, from, len, &a);
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
		"p99 = the worst second's)\n", rep_rotation_interval_s(rot));
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
		add_u64(o, "worst_second_p99_ns", a->p99[k]);
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
		arr = json_object_new_array();
		if (arr) {
			rep_rotation_walk(rot, json_row, arr);
			json_object_object_add(o, "series", arr);
		}
	}
	json_object_object_add(tg, "rotation", o);
}
