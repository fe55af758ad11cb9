/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Bounded traces (--trace-max): the writer's rotation keeps the segments
 * within the bound, every segment is a whole trace, the streaming reader
 * reads the segment set in order with the run's totals, and the per-second
 * side file has every record the writer got, also those rotated away.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/trace.h"
#include "lib/trace_format.h"
#include "tests/cu_main.h"

DUT_DEFINE_FREEP(struct dut_trace_stream *, dut_trace_stream_close)
DUT_DEFINE_FREEP(struct dut_trace_seconds_file *, dut_trace_seconds_file_free)
DUT_DEFINE_FREEP(struct dut_trace_seconds *, dut_trace_seconds_free)

static char tmpdir[256];

static int suite_init(void)
{
	return cu_tmpdir_make(tmpdir, sizeof(tmpdir), "rotate");
}

static int suite_cleanup(void)
{
	return cu_tmpdir_remove(tmpdir);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Bytes and count of the files named PREFIX or PREFIX.<digits> in tmpdir. */
static uint64_t segment_bytes(const char *prefix, unsigned *ret_files)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	size_t pl = strlen(prefix);
	uint64_t sum = 0;

	*ret_files = 0;
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char p[600];
		struct stat st;
		const char *tail = e->d_name + pl;

		if (strncmp(e->d_name, prefix, pl) || (*tail && (*tail != '.' || !tail[1] ||
							       strspn(tail + 1, "0123456789") != strlen(tail + 1))))
			continue;
		snprintf(p, sizeof(p), "%s/%s", tmpdir, e->d_name);
		if (stat(p, &st) == 0) {
			sum += (uint64_t)st.st_size;
			(*ret_files)++;
		}
	}
	closedir(d);
	return sum;
}

struct run_result {
	uint64_t emitted, written, dropped, rotations;
	uint64_t t0;
};

/*
 * Whether write_run writes 2.0's compact frames (else 1.1's fixed 48-byte
 * records, whose size these tests' bounds were chosen for).
 */
static bool compact_run;

/* n records, 100 us apart from the writer's start, over 3 files of different classes. */
static void write_run(const char *path, uint64_t max_bytes, unsigned segs, unsigned n,
		      struct run_result *res)
{
	struct dut_trace_writer *w = NULL;
	static const char *const files[] = { "base/5/16384", "pg_wal/000000010000000000000001",
					     "global/pg_control" };
	struct dut_pg_file pg;

	res->t0 = mono_ns();
	CU_ASSERT_EQUAL_FATAL(dut_trace_writer_open(path, &(struct dut_trace_writer_opts){
		.thread_buf_recs = 1u << 16, .flush_interval_ns = 2000000, .max_bytes = max_bytes,
		.max_segments = segs, .fixed_records = !compact_run }, &w), 0);
	(void)dut_trace_writer_info(w, "program", "test");
	for (uint32_t i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(dut_pg_classify(files[i], DUT_PG_ROOT_AUTO, 0, &pg), 0);
		CU_ASSERT_EQUAL(dut_trace_writer_add_file(w, i + 1, files[i], &pg), 0);
	}
	(void)dut_trace_writer_mark(w, res->t0, "first");
	for (unsigned k = 0; k < n; k++) {
		uint16_t op = k % 10 == 9 ? DUT_OP_FSYNC : k % 3 ? DUT_OP_WRITE : DUT_OP_READ;

		dut_trace_emit(w, &(struct dut_trace_rec){
			.ts_ns = res->t0 + (uint64_t)k * 100000, .op = op, .len = 8192,
			/* scattered pages: about 17 bytes a compact record */
			.offset = ((uint64_t)k * 2654435761u % 1000003) * 8192,
			.result = op == DUT_OP_FSYNC ? 0 : 8192, .file_id = k % 3 + 1,
			.lat_ns = 1000 + k % 5000 });
		if (k == n / 2)
			(void)dut_trace_writer_mark(w, res->t0 + (uint64_t)k * 100000, "second");
		if (k % 4096 == 4095)
			usleep(3000); /* let the writer drain: drops are allowed, but few */
	}
	res->emitted = n;
	res->rotations = dut_trace_writer_rotations(w);
	CU_ASSERT_EQUAL(dut_trace_writer_close_counts(w, &res->written, &res->dropped), 0);
}

static void rotation_keeps_bound(const char *name, uint64_t max_bytes, unsigned segs)
{
	char path[300], sp[320];
	struct run_result res;
	_cleanup_(dut_trace_stream_closep) struct dut_trace_stream *s = NULL;
	_cleanup_(dut_trace_seconds_file_freep) struct dut_trace_seconds_file *sec = NULL;
	struct dut_error err = { { 0 } };
	const struct dut_trace *m;
	const struct dut_trace_rec *recs;
	uint64_t got = 0, prev = 0, sec_ops = 0;
	unsigned nfiles;
	size_t n;
	bool ordered = true;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	/* 250k records of 48 bytes: 12 MB into 4 MiB; compact: about 4 MB into 2 MiB */
	write_run(path, max_bytes, segs, 250000, &res);
	CU_ASSERT_EQUAL(res.written + res.dropped, res.emitted);
	CU_ASSERT(res.rotations >= 2);
	CU_ASSERT(segment_bytes(name, &nfiles) <= max_bytes);
	CU_ASSERT(nfiles <= segs && nfiles >= 2);

	CU_ASSERT_EQUAL_FATAL(dut_trace_stream_open(path, &s, &err), 0);
	m = dut_trace_stream_meta(s);
	CU_ASSERT_FATAL(m->segmented);
	/* the writer may still rotate while close drains the rings: rotations is a lower bound */
	CU_ASSERT(m->seg.seq >= res.rotations + 1);
	CU_ASSERT_EQUAL(m->first_seq + nfiles - 1, m->seg.seq);
	CU_ASSERT(m->records_gone > 0);
	CU_ASSERT_EQUAL(m->records_gone + m->nrecs, res.written);
	CU_ASSERT(m->has_footer);
	CU_ASSERT_EQUAL(m->footer.records_written, res.written);
	CU_ASSERT_EQUAL(m->footer.records_dropped, res.dropped);
	/* the newest segment has the whole meta trace */
	CU_ASSERT_EQUAL(m->nfiles, 3);
	CU_ASSERT_EQUAL(m->nmarkers, 2);
	CU_ASSERT(m->info && strstr(m->info, "program=test\n") && !strstr(strstr(m->info, "program=test\n") + 1, "program=test"));
	while (dut_trace_stream_next(s, &recs, &n) == 0 && n) {
		for (size_t i = 0; i < n; i++) {
			if (recs[i].ts_ns < prev)
				ordered = false;
			prev = recs[i].ts_ns;
		}
		got += n;
	}
	CU_ASSERT(ordered);
	CU_ASSERT_EQUAL(got, m->nrecs);

	/* the side file: every record written, each second of the run */
	CU_ASSERT_PTR_NOT_NULL_FATAL(dut_trace_stream_seconds(s));
	snprintf(sp, sizeof(sp), "%s%s", path, DUT_TRACE_SECONDS_SUFFIX);
	CU_ASSERT_EQUAL_FATAL(dut_trace_seconds_load(sp, &sec, &err), 0);
	CU_ASSERT(sec->complete);
	CU_ASSERT_EQUAL(sec->records, res.written);
	CU_ASSERT_EQUAL(sec->late, 0);
	for (size_t i = 0; i < sec->nrows; i++)
		for (unsigned k = 0; k < DUT_SEC_KINDS; k++)
			sec_ops += sec->rows[i].k[k].ops;
	CU_ASSERT_EQUAL(sec_ops, res.written);
	/* 250k records 100 us apart: 25 seconds, none missing (drops thin them, not empty them) */
	CU_ASSERT_EQUAL(sec->nrows, 25);
	CU_ASSERT_EQUAL(sec->end_sec, 25);
	CU_ASSERT_EQUAL(sec->rows[0].sec, 0);
	CU_ASSERT_EQUAL(sec->rows[sec->nrows - 1].sec, 24);
}

static void test_rotation_keeps_bound_and_reads_as_one_trace(void)
{
	compact_run = false;
	rotation_keeps_bound("rot.dtr", 4u << 20, 4);
}

/* The same with 2.0's compact frames (what dutfs writes). */
static void test_rotation_compact_keeps_bound(void)
{
	compact_run = true;
	rotation_keeps_bound("crot.dtr", 2u << 20, 2);
	compact_run = false;
}

/* A PATH.<n> of an earlier run is not read as one of this run's segments. */
static void test_reader_ignores_other_runs_segments(void)
{
	char path[300];
	struct run_result a, b;
	unsigned files_a, files_b;
	_cleanup_(dut_trace_stream_closep) struct dut_trace_stream *s = NULL;
	struct dut_error err = { { 0 } };
	const struct dut_trace *m;

	snprintf(path, sizeof(path), "%s/runs.dtr", tmpdir);
	write_run(path, 4u << 20, 4, 250000, &a);   /* leaves runs.dtr.N */
	(void)segment_bytes("runs.dtr", &files_a);
	CU_ASSERT(files_a >= 2);
	write_run(path, 4u << 20, 4, 1000, &b);     /* a short run: runs.dtr only */
	CU_ASSERT_EQUAL(b.rotations, 0);
	(void)segment_bytes("runs.dtr", &files_b);
	CU_ASSERT_EQUAL(files_b, files_a);          /* the old run's segments are still there */
	CU_ASSERT_EQUAL_FATAL(dut_trace_stream_open(path, &s, &err), 0);
	m = dut_trace_stream_meta(s);
	CU_ASSERT(m->segmented);
	CU_ASSERT_EQUAL(m->seg.seq, 1);
	CU_ASSERT_EQUAL(m->nrecs, b.written);
	CU_ASSERT_EQUAL(m->records_gone, 0);
}

/* Without max_bytes nothing changes: no SEGMENT frame, no side file. */
static void test_no_rotation_without_max(void)
{
	char path[300], sp[320];
	struct run_result r;
	_cleanup_(dut_trace_stream_closep) struct dut_trace_stream *s = NULL;
	struct dut_error err = { { 0 } };

	snprintf(path, sizeof(path), "%s/plain.dtr", tmpdir);
	write_run(path, 0, 0, 20000, &r);
	snprintf(sp, sizeof(sp), "%s%s", path, DUT_TRACE_SECONDS_SUFFIX);
	CU_ASSERT(access(sp, F_OK) < 0);
	CU_ASSERT_EQUAL_FATAL(dut_trace_stream_open(path, &s, &err), 0);
	CU_ASSERT(!dut_trace_stream_meta(s)->segmented);
	CU_ASSERT_PTR_NULL(dut_trace_stream_seconds(s));
	CU_ASSERT_EQUAL(dut_trace_stream_meta(s)->nrecs, r.written);
}

static void test_writer_rejects_bad_rotation(void)
{
	static const struct { const char *name; uint64_t max; unsigned segs; } rows[] = {
		{ "segments under 1 MiB", 3u << 20, 4 },
		{ "one segment", 8u << 20, 1 },
		{ "too many segments", 1ull << 40, DUT_TRACE_SEGMENTS_MAX + 1 },
	};
	char path[300];

	snprintf(path, sizeof(path), "%s/bad.dtr", tmpdir);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct dut_trace_writer *w = NULL;

		if (dut_trace_writer_open(path, &(struct dut_trace_writer_opts){
			.max_bytes = rows[i].max, .max_segments = rows[i].segs }, &w) != -EINVAL) {
			cu_fail("%s: accepted", rows[i].name);
			dut_trace_writer_close(w);
		}
	}
	{
		struct dut_trace_writer *w = NULL;

		CU_ASSERT_EQUAL(dut_trace_writer_open("/dev/null", &(struct dut_trace_writer_opts){
			.max_bytes = 8u << 20 }, &w), -EINVAL);
	}
}

/* Pure: records out of order within the window, a late one, the "all" rows, the text round trip. */
static void test_seconds_aggregate_and_parse(void)
{
	_cleanup_(dut_trace_seconds_freep) struct dut_trace_seconds *a = NULL;
	_cleanup_(dut_trace_seconds_file_freep) struct dut_trace_seconds_file *f = NULL;
	struct dut_error err = { { 0 } };
	char *text = NULL, *all = NULL;
	size_t len = 0;
	const uint64_t S = 1000000000ull, t0 = 5 * S;
	static const struct { uint64_t at; uint16_t op; uint32_t id; int32_t res; uint64_t lat; } recs[] = {
		{ 0, DUT_OP_READ, 1, 8192, 100 },
		{ 2 * S, DUT_OP_WRITE, 2, 4096, 300 },
		{ S / 2, DUT_OP_READ, 2, -5, 200 },     /* out of order, still open */
		{ 3 * S, DUT_OP_OPEN, 1, 0, 50 },        /* not counted */
		{ 9 * S, DUT_OP_FSYNC, 1, 0, 7000 },     /* closes seconds 0..5 */
		{ S, DUT_OP_WRITE, 1, 100, 10 },         /* late: goes to second 6 */
	};

	CU_ASSERT_EQUAL_FATAL(dut_trace_seconds_new(42, t0, &a), 0);
	CU_ASSERT_EQUAL(dut_trace_seconds_file_class(a, 1, DUT_PG_REL), 0);
	CU_ASSERT_EQUAL(dut_trace_seconds_file_class(a, 2, DUT_PG_WAL), 0);
	for (size_t i = 0; i < sizeof(recs) / sizeof(recs[0]); i++) {
		CU_ASSERT_EQUAL(dut_trace_seconds_add(a, &(struct dut_trace_rec){
			.ts_ns = t0 + recs[i].at, .op = recs[i].op, .file_id = recs[i].id,
			.result = recs[i].res, .lat_ns = recs[i].lat }), 0);
		if (i == 4) {
			CU_ASSERT_EQUAL(dut_trace_seconds_take(a, false, &text), 0);
			/* seconds 0 and 2 are written, 9 is open */
			CU_ASSERT(text && strstr(text, "\n0\tall\tread\t2\t8192\t1\t") != NULL);
			CU_ASSERT(text && strstr(text, "\n0\trel\tread\t1\t8192\t0\t100\t") != NULL);
			CU_ASSERT(text && strstr(text, "\n2\twal\twrite\t1\t4096\t0\t300\t") != NULL);
			CU_ASSERT(text && strstr(text, "\n9\t") == NULL);
			all = text;
			len = strlen(text);
		}
	}
	CU_ASSERT_EQUAL_FATAL(dut_trace_seconds_take(a, true, &text), 0);
	CU_ASSERT(strstr(text, "\n6\tall\twrite\t1\t100\t0\t10\t") != NULL);
	CU_ASSERT(strstr(text, "\n9\tall\tsync\t1\t0\t0\t") != NULL);
	CU_ASSERT(strstr(text, "# end\tseconds=10\tlate=1\trecords=5\n") != NULL);
	all = realloc(all, len + strlen(text) + 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(all);
	strcpy(all + len, text);
	free(text);
	CU_ASSERT_EQUAL_FATAL(dut_trace_seconds_parse(all, strlen(all), &f, &err), 0);
	CU_ASSERT_EQUAL(f->start_realtime_ns, 42);
	CU_ASSERT_EQUAL(f->start_monotonic_ns, t0);
	CU_ASSERT(f->complete);
	CU_ASSERT_EQUAL(f->late, 1);
	CU_ASSERT_EQUAL(f->records, 5);
	CU_ASSERT_EQUAL(f->nrows, 4);
	CU_ASSERT_EQUAL(f->end_sec, 10);
	if (f->nrows == 4) {
		CU_ASSERT_EQUAL(f->rows[0].sec, 0);
		CU_ASSERT_EQUAL(f->rows[0].k[DUT_SEC_READ].ops, 2);
		CU_ASSERT_EQUAL(f->rows[0].k[DUT_SEC_READ].errors, 1);
		CU_ASSERT_EQUAL(f->rows[0].k[DUT_SEC_READ].max_ns, 200);
		CU_ASSERT_EQUAL(f->rows[3].k[DUT_SEC_SYNC].p50_ns, 7000);
	}
	/* cut short (a killed writer): the whole lines are read, no end line */
	dut_trace_seconds_file_free(f);
	f = NULL;
	CU_ASSERT_EQUAL(dut_trace_seconds_parse(all, len - 3, &f, &err), 0);
	CU_ASSERT(f && !f->complete && f->nrows == 1);
	dut_trace_seconds_file_free(f);
	f = NULL;
	CU_ASSERT_EQUAL(dut_trace_seconds_parse("hello\n", 6, &f, &err), -EBADMSG);
	free(all);
}

static const struct cu_test tests[] = {
	{ "rotation_keeps_bound_and_reads_as_one_trace", test_rotation_keeps_bound_and_reads_as_one_trace },
	{ "rotation_compact_keeps_bound", test_rotation_compact_keeps_bound },
	{ "reader_ignores_other_runs_segments", test_reader_ignores_other_runs_segments },
	{ "no_rotation_without_max", test_no_rotation_without_max },
	{ "writer_rejects_bad_rotation", test_writer_rejects_bad_rotation },
	{ "seconds_aggregate_and_parse", test_seconds_aggregate_and_parse },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = {
	.name = "trace_rotate", .init = suite_init, .cleanup = suite_cleanup, .tests = tests,
};
