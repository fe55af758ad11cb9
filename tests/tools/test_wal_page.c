/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The WAL page of a trace alone (issue #26): `dutlab report TRACE` without a
 * run directory measured WAL tail rewrites in 8 KiB pages whatever the
 * server was built with.  It now takes the page from --wal-block-size, else
 * from the alignment of the trace's WAL writes (tools/report/report.h,
 * rep_wal_guess_*).  The last test runs the dutlab program
 * ($DUT_BUILD_ROOT/tools/dutlab, or $DUTLAB) on a trace of a server with
 * 16 KiB WAL pages: with the old program every rewrite read as random.
 */
#include <errno.h>
#include <stddef.h>
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/trace.h"
#include "tests/cu_main.h"
#include "tools/report/report.h"

#define NCOMMITS 400

static struct dut_trace_rec wrec(uint64_t ts, uint32_t id, uint64_t off, uint32_t len)
{
	return (struct dut_trace_rec){ .ts_ns = ts, .offset = off, .len = len, .result = (int32_t)len,
				       .lat_ns = 1000, .file_id = id, .pid = 10, .op = DUT_OP_WRITE };
}

/*
 * PostgreSQL's WAL writes with pages of wal_page bytes: each commit writes
 * from the start of the current, partly filled page through one to three
 * pages; the next starts at that last page again unless the commit filled
 * it (every 7th).  Every odd_every-th write (0: none) is instead a
 * writeback split: 255 4 KiB pages at a 4 KiB offset.  Returns the count;
 * *ret_rewrites the writes that start one page back.
 */
static size_t commits(struct dut_trace_rec *v, size_t n, uint32_t wal_page, unsigned odd_every,
		      uint64_t *ret_rewrites)
{
	uint64_t page = 0, rewrites = 0;
	bool prev_filled = false;

	for (size_t i = 0; i < n; i++) {
		unsigned pages = 1 + (unsigned)(i % 3);
		bool filled = i % 7 == 0;

		if (odd_every && i % odd_every == odd_every - 1) {
			v[i] = wrec(1000 + i, 1, (page * wal_page) | 4096, 255 * 4096);
			continue;
		}
		v[i] = wrec(1000 + i, 1, page * wal_page, pages * wal_page);
		rewrites += i > 0 && !prev_filled;
		page += filled ? pages : pages - 1;
		prev_filled = filled;
	}
	if (ret_rewrites)
		*ret_rewrites = rewrites;
	return n;
}

static void test_guess_from_the_alignment(void)
{
	static const struct {
		uint32_t page;          /* the server's */
		size_t n;               /* writes */
		unsigned odd_every;     /* writeback splits among them */
		uint32_t want;          /* the guess; 0: not known */
		const char *what;
	} cases[] = {
		{ 16384, NCOMMITS, 0, 16384, "16 KiB pages" },
		{ 32768, NCOMMITS, 0, 32768, "32 KiB pages" },
		{ 65536, NCOMMITS, 0, 65536, "64 KiB pages" },
		{ 8192, NCOMMITS, 0, 8192, "8 KiB pages: half the writes 16 KiB-aligned is not 16 KiB" },
		{ 16384, NCOMMITS, 25, 16384, "16 KiB with 4 % writeback splits" },
		{ 16384, NCOMMITS, 10, 0, "16 KiB with 10 % splits: not shown" },
		{ 8192, NCOMMITS, 10, 0, "8 KiB with 10 % splits: never 4 KiB" },
		{ 4096, NCOMMITS, 0, 0, "a 4 KiB server: not below 8 KiB" },
		{ 16384, REP_WAL_GUESS_MIN_WRITES - 1, 0, 0, "too few writes" },
		{ 16384, REP_WAL_GUESS_MIN_WRITES, 0, 16384, "just enough writes" },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(cases); i++) {
		struct dut_trace_rec v[NCOMMITS];
		struct rep_wal_guess g = { 0 };
		uint32_t got;

		commits(v, cases[i].n, cases[i].page, cases[i].odd_every, NULL);
		for (size_t k = 0; k < cases[i].n; k++)
			rep_wal_guess_add(&g, &v[k]);
		got = rep_wal_guess_page(&g);
		CU_CHECK(got == cases[i].want, "%s: guessed %u, want %u (%llu writes)", cases[i].what, got,
			 cases[i].want, (unsigned long long)g.writes);
	}
}

/* Only writes that did something count: reads, fsyncs and failed writes do not. */
static void test_guess_counts_done_writes(void)
{
	struct rep_wal_guess g = { 0 };
	struct dut_trace_rec r = wrec(1, 1, 16384, 16384);

	r.op = DUT_OP_READ;
	rep_wal_guess_add(&g, &r);
	r.op = DUT_OP_FDATASYNC;
	rep_wal_guess_add(&g, &r);
	r.op = DUT_OP_WRITE;
	r.result = -5;
	rep_wal_guess_add(&g, &r);
	CU_ASSERT_EQUAL(g.writes, 0);
	r.result = 16384;
	rep_wal_guess_add(&g, &r);
	CU_ASSERT_EQUAL(g.writes, 1);
	CU_ASSERT_EQUAL(g.aligned[4], 1); /* 16 KiB */
	CU_ASSERT_EQUAL(g.aligned[5], 0); /* 32 KiB */
}

static void test_wal_block_parse(void)
{
	static const struct {
		const char *s;
		int rc;
		uint32_t bytes;
	} cases[] = {
		{ "16kB", 0, 16384 }, { "16k", 0, 16384 }, { "16KB", 0, 16384 }, { "16", 0, 16384 },
		{ "1kB", 0, 1024 }, { "64kB", 0, 65536 }, { "8192", 0, 8192 }, { "65536", 0, 65536 },
		{ "128kB", -EINVAL, 0 }, { "3kB", -EINVAL, 0 }, { "0", -EINVAL, 0 }, { "", -EINVAL, 0 },
		{ "-8", -EINVAL, 0 }, { "16MB", -EINVAL, 0 }, { "512", -EINVAL, 0 }, { "12288", -EINVAL, 0 },
		{ "kB", -EINVAL, 0 },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(cases); i++) {
		uint32_t b = 0;
		int rc = rep_wal_block_parse(cases[i].s, &b);

		CU_CHECK(rc == cases[i].rc && (rc < 0 || b == cases[i].bytes), "\"%s\": rc %d bytes %u, want %d %u",
			 cases[i].s, rc, b, cases[i].rc, cases[i].bytes);
	}
}

/* ---- the program ---- */

static const struct dut_pg_file wal_pg = { .cls = DUT_PG_WAL, .timeline = 1, .wal_segno = 1 };

static const struct dut_pg_file heap_pg = { .cls = DUT_PG_REL, .fork = DUT_PG_FORK_MAIN, .db_oid = 5,
					     .tablespace_oid = DUT_PG_DEFAULTTABLESPACE_OID, .relfilenode = 16384 };

/*
 * A trace of NCOMMITS commits with WAL pages of wal_page bytes, each
 * followed by its fdatasync and by a 64 KiB-aligned write of 64 KiB to a
 * table's file (whose alignment must not count).
 */
static int write_trace(const char *path, uint32_t wal_page, uint64_t *ret_rewrites)
{
	struct dut_trace_rec v[NCOMMITS];
	struct dut_trace_writer *w;
	int r;

	commits(v, NCOMMITS, wal_page, 0, ret_rewrites);
	if ((r = dut_trace_writer_open(path, &(struct dut_trace_writer_opts){ 0 }, &w)) < 0)
		return r;
	if ((r = dut_trace_writer_add_file(w, 1, "pg_wal/000000010000000000000001", &wal_pg)) < 0 ||
	    (r = dut_trace_writer_add_file(w, 2, "base/5/16384", &heap_pg)) < 0) {
		dut_trace_writer_close(w);
		return r;
	}
	for (size_t i = 0; i < NCOMMITS; i++) {
		struct dut_trace_rec s = { .ts_ns = v[i].ts_ns * 3 + 1, .lat_ns = 500, .file_id = 1, .pid = 10,
					   .op = DUT_OP_FDATASYNC };
		struct dut_trace_rec d = wrec(v[i].ts_ns * 3 + 2, 2, (uint64_t)i * 65536, 65536);

		v[i].ts_ns *= 3;
		dut_trace_emit(w, &v[i]);
		dut_trace_emit(w, &s);
		dut_trace_emit(w, &d);
	}
	return dut_trace_writer_close(w);
}

/*
 * The guess is taken in the report's own pass: only the WAL segments'
 * writes count, and the report is the one a pass without the watch makes.
 */
static void test_watch_counts_wal_writes_in_the_report_pass(void)
{
	static const uint32_t pages[] = { 8192, 16384 };
	char dir[] = "/tmp/test-wal-watch.XXXXXX", trace[64];

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(trace, sizeof(trace), "%s/trace.dtr", dir);
	for (size_t i = 0; i < DUT_ARRAY_SIZE(pages); i++) {
		struct dut_error err = { { 0 } };
		struct dut_trace_stream *s = NULL;
		struct report *a = NULL, *b = NULL;
		struct rep_wal_guess g = { 0 };

		CU_ASSERT_EQUAL_FATAL(write_trace(trace, pages[i], NULL), 0);
		CU_ASSERT_EQUAL_FATAL(dut_trace_stream_open(trace, &s, &err), 0);
		CU_ASSERT_EQUAL(report_build_stream_watch(s, NULL, NULL, &g, &a), 0);
		dut_trace_stream_close(s);
		CU_CHECK(g.writes == NCOMMITS && rep_wal_guess_page(&g) == pages[i],
			 "%u-byte WAL pages: %llu writes counted, guessed %u", pages[i],
			 (unsigned long long)g.writes, rep_wal_guess_page(&g));
		CU_ASSERT_EQUAL_FATAL(dut_trace_stream_open(trace, &s, &err), 0);
		CU_ASSERT_EQUAL(report_build_stream_pages(s, NULL, NULL, &b), 0);
		dut_trace_stream_close(s);
		if (a && b)
			CU_CHECK(a->nrecs == b->nrecs && a->nrecs == 3 * NCOMMITS &&
				 memcmp(&a->phases[0].cls[RC_WAL].dir[REP_WRITE],
					&b->phases[0].cls[RC_WAL].dir[REP_WRITE],
					offsetof(struct rep_dirstats, lat)) == 0,
				 "%u: the watched pass made another report", pages[i]);
		report_free(a);
		report_free(b);
	}
	unlink(trace);
	rmdir(dir);
}

/*
 * The report's pass counts the writes to files whose FILE entry says WAL
 * segment, whatever their id (a small one, one past 2^22): not a read, not
 * another file's write, not an id without a FILE entry.
 */
static void test_watch_counts_only_wal_segments_writes(void)
{
	static const uint32_t big = (1u << 22) + 7;
	static const struct dut_pg_file seg1 = { .cls = DUT_PG_WAL, .timeline = 1, .wal_segno = 1 };
	static const struct dut_pg_file seg2 = { .cls = DUT_PG_WAL, .timeline = 1, .wal_segno = 2 };
	const struct dut_trace_rec recs[] = {
		wrec(1, 3, 0, 8192),
		{ .ts_ns = 2, .file_id = 3, .op = DUT_OP_READ, .len = 8192, .result = 8192 },
		wrec(3, 5, 0, 8192),
		wrec(4, 4, 0, 8192),
		wrec(5, 9, 0, 8192),
		wrec(6, big, 8192, 8192),
		wrec(7, big + 1, 0, 8192),
		{ .ts_ns = 8, .file_id = big, .op = DUT_OP_MMAP_WRITE, .len = 8192, .result = 8192 },
	};
	char dir[] = "/tmp/test-wal-ids.XXXXXX", trace[64];
	struct dut_trace_writer *w = NULL;
	struct dut_trace_stream *s = NULL;
	struct dut_error err = { { 0 } };
	struct rep_wal_guess g = { 0 };
	struct report *rep = NULL;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(trace, sizeof(trace), "%s/trace.dtr", dir);
	CU_ASSERT_EQUAL_FATAL(dut_trace_writer_open(trace, &(struct dut_trace_writer_opts){ 0 }, &w), 0);
	CU_ASSERT_EQUAL(dut_trace_writer_add_file(w, 3, "pg_wal/000000010000000000000001", &seg1), 0);
	CU_ASSERT_EQUAL(dut_trace_writer_add_file(w, 5, "base/5/16384", &heap_pg), 0);
	CU_ASSERT_EQUAL(dut_trace_writer_add_file(w, big, "pg_wal/000000010000000000000002", &seg2), 0);
	for (size_t i = 0; i < DUT_ARRAY_SIZE(recs); i++)
		dut_trace_emit(w, &recs[i]);
	CU_ASSERT_EQUAL_FATAL(dut_trace_writer_close(w), 0);
	CU_ASSERT_EQUAL_FATAL(dut_trace_stream_open(trace, &s, &err), 0);
	CU_ASSERT_EQUAL(report_build_stream_watch(s, NULL, NULL, &g, &rep), 0);
	CU_CHECK(g.writes == 2, "%llu WAL writes counted, 2 made", (unsigned long long)g.writes);
	report_free(rep);
	dut_trace_stream_close(s);
	unlink(trace);
	rmdir(dir);
}

/* dutlab report [extra] --json JSON TRACE: its exit status, or -1. */
static int run_report(const char *dutlab, const char *extra, const char *json, const char *trace)
{
	char cmd[16384];
	int st;

	snprintf(cmd, sizeof(cmd), "'%s' report %s --json '%s' '%s' >/dev/null 2>&1", dutlab, extra, json,
		 trace);
	st = system(cmd);
	return st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The whole trace's WAL writes in the result document: ops, sequential, tail rewrites. */
static int wal_writes(const char *json, uint64_t *ops, uint64_t *seq, uint64_t *rewrites)
{
	json_object *root = json_object_from_file(json), *ph, *x;
	int r = -EINVAL;

	if (!root)
		return -EINVAL;
	if (json_object_object_get_ex(root, "phases", &ph) && json_object_array_length(ph) > 0 &&
	    (x = json_object_array_get_idx(ph, 0)) && json_object_object_get_ex(x, "extra", &x) &&
	    json_object_object_get_ex(x, "classes", &x) && json_object_object_get_ex(x, "wal", &x) &&
	    json_object_object_get_ex(x, "write", &x)) {
		json_object *a, *b, *c;

		if (json_object_object_get_ex(x, "ops", &a) && json_object_object_get_ex(x, "sequential_ops", &b) &&
		    json_object_object_get_ex(x, "tail_rewrite_ops", &c)) {
			*ops = (uint64_t)json_object_get_int64(a);
			*seq = (uint64_t)json_object_get_int64(b);
			*rewrites = (uint64_t)json_object_get_int64(c);
			r = 0;
		}
	}
	json_object_put(root);
	return r;
}

static void test_dutlab_report_trace_in_its_wal_pages(void)
{
	const char *env = getenv("DUTLAB"), *root = getenv("DUT_BUILD_ROOT");
	char dir[] = "/tmp/test-wal-page.XXXXXX", dutlab[2048], trace[64], json[64];
	uint64_t rewrites = 0, ops = 0, seq = 0, rw = 0;
	int rc;

	if (env)
		snprintf(dutlab, sizeof(dutlab), "%s", env);
	else
		snprintf(dutlab, sizeof(dutlab), "%s/tools/dutlab", root ? root : "build");
	if (access(dutlab, X_OK) < 0) {
		cu_fail("no dutlab program at %s (set DUT_BUILD_ROOT or DUTLAB)", dutlab);
		return;
	}
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(trace, sizeof(trace), "%s/trace.dtr", dir);
	snprintf(json, sizeof(json), "%s/r.json", dir);
	CU_ASSERT_EQUAL_FATAL(write_trace(trace, 16384, &rewrites), 0);

	/* from the trace: every write but the first continues the stream, the rewrites as rewrites */
	rc = run_report(dutlab, "", json, trace);
	CU_CHECK(rc == 0, "dutlab report exited %d", rc);
	if (rc == 0 && wal_writes(json, &ops, &seq, &rw) == 0)
		CU_CHECK(ops == NCOMMITS && seq == NCOMMITS - 1 && rw == rewrites,
			 "16 KiB WAL pages from the trace: %llu writes, %llu sequential, %llu tail rewrites "
			 "(built %llu; 0 is the old 8 KiB rule)", (unsigned long long)ops, (unsigned long long)seq,
			 (unsigned long long)rw, (unsigned long long)rewrites);
	else
		cu_fail("no WAL writes in %s", json);

	/* --wal-block-size wins: in 8 KiB pages a 16 KiB rewrite is random, as before */
	rc = run_report(dutlab, "--wal-block-size 8kB", json, trace);
	CU_CHECK(rc == 0, "dutlab report --wal-block-size 8kB exited %d", rc);
	if (rc == 0 && wal_writes(json, &ops, &seq, &rw) == 0)
		CU_CHECK(rw == 0 && ops - seq == rewrites + 1, "--wal-block-size 8kB: %llu random, %llu rewrites",
			 (unsigned long long)(ops - seq), (unsigned long long)rw);
	else
		cu_fail("no WAL writes in %s", json);

	/* a size PostgreSQL does not take is a usage error (2) */
	rc = run_report(dutlab, "--wal-block-size 3kB", json, trace);
	CU_CHECK(rc == 2, "--wal-block-size 3kB exited %d, want 2", rc);

	unlink(json);
	unlink(trace);
	rmdir(dir);
}

static const struct cu_test tests[] = {
	{ "guess_from_the_alignment", test_guess_from_the_alignment },
	{ "guess_counts_done_writes", test_guess_counts_done_writes },
	{ "wal_block_parse", test_wal_block_parse },
	{ "watch_counts_wal_writes_in_the_report_pass", test_watch_counts_wal_writes_in_the_report_pass },
	{ "dutlab_report_trace_in_its_wal_pages", test_dutlab_report_trace_in_its_wal_pages },
	{ "watch_counts_only_wal_segments_writes", test_watch_counts_only_wal_segments_writes },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "wal_page", .tests = tests };
