/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The report builder's fast path (report_build.c, rec_fast) against its
 * general path (report_builder_set_general_only): the same report, rendered
 * byte for byte for every --by and as JSON, on the cases that must leave or
 * bend the fast path: a phase that starts inside a run of one file's
 * records, a record without dutfs time inside such a run, a process that
 * changes (also to one sharing its pid cache slot, and to writeback), a
 * relation file whose relation changes with time, a file id without FILE
 * entry; and generated traces fed in batches of every size.  Every case is
 * also cut into 2 to 5 runs of records built apart and absorbed
 * (report_build_ways: the sum the threaded pass makes).  Each case also
 * asserts the numbers it is about, so a bug in both paths is caught too.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/relmap.h"
#include "lib/trace.h"
#include "tests/cu_main.h"
#include "tests/tools/render_mem.h"
#include "tools/report/report.h"
#include "tools/report/report_priv.h"
#include "tools/trace/trace_gen.h"

DUT_DEFINE_FREEP(struct report *, report_free)
DUT_DEFINE_FREEP(struct relmap *, relmap_free)
DUT_DEFINE_FREEP(struct dut_trace *, dut_trace_free)

/* The JSON document without its "created" line (the one that says when). */
static char *render_json(const struct report *rep)
{
	struct report_opts o = { .trace_path = "t.dtr", .by = REP_BY_CLASS };
	char path[] = "/tmp/dut-test-report-fast.XXXXXX";
	char *buf = NULL, *line = NULL;
	size_t len = 0, cap = 0;
	FILE *in, *out;
	int fd = mkstemp(path);

	if (fd < 0)
		return NULL;
	close(fd);
	if (report_render_json.render(rep, &o, NULL, path) < 0 || !(in = fopen(path, "r"))) {
		unlink(path);
		return NULL;
	}
	out = open_memstream(&buf, &len);
	while (out && getline(&line, &cap, in) > 0)
		if (!strstr(line, "\"created\""))
			fputs(line, out);
	if (out)
		fclose(out);
	fclose(in);
	free(line);
	unlink(path);
	return buf;
}

/* got (the fast path) renders as want (the general path) for every --by and as JSON. */
static void check_same(const char *name, const struct report *want, const struct report *got)
{
	static const enum rep_by bys[] = { REP_BY_CLASS, REP_BY_FILE, REP_BY_RELATION, REP_BY_PHASE,
					   REP_BY_PROCESS };

	for (size_t i = 0; i < DUT_ARRAY_SIZE(bys); i++) {
		_cleanup_free_ char *a = render_mem_human(want, bys[i], 0), *b = render_mem_human(got, bys[i], 0);

		CU_ASSERT_FATAL(a && b);
		CU_CHECK(strcmp(a, b) == 0, "%s: --by %s: the fast path's report differs:\n--- general\n%s\n"
			 "--- fast\n%s", name, rep_by_name(bys[i]), a, b);
	}
	{
		_cleanup_free_ char *a = render_json(want), *b = render_json(got);

		CU_ASSERT_FATAL(a && b);
		CU_CHECK(strcmp(a, b) == 0, "%s: the fast path's JSON differs:\n--- general\n%s\n--- fast\n%s",
			 name, a, b);
	}
}

/* t's report with records added batch at a time (0: all at once); general: no fast path. */
static int build(const struct dut_trace *t, const struct relmap *m, const struct rep_pages *pages,
		 size_t batch, bool general, struct report **ret)
{
	uint64_t first = t->nrecs ? t->recs[0].ts_ns : 0, last = t->nrecs ? t->recs[t->nrecs - 1].ts_ns : 0;
	struct report_builder *b;
	int r = report_builder_new(t, first, last, m, &b);

	if (r < 0)
		return r;
	report_builder_set_pages(b, pages);
	if (general)
		report_builder_set_general_only(b);
	if (!batch)
		batch = t->nrecs ? t->nrecs : 1;
	for (size_t i = 0; i < t->nrecs; i += batch) {
		r = report_builder_add(b, t->recs + i, t->nrecs - i < batch ? t->nrecs - i : batch);
		if (r < 0) {
			report_builder_free(b);
			return r;
		}
	}
	return report_builder_finish(b, ret);
}

/* The fast path's report of t, checked against the general path's (also in batches of 1 and 3). */
static struct report *build_checked(const char *name, const struct dut_trace *t, const struct relmap *m)
{
	static const size_t batches[] = { 1, 3 };
	_cleanup_(report_freep) struct report *want = NULL;
	struct report *got = NULL;

	CU_ASSERT_EQUAL_FATAL(build(t, m, NULL, 0, true, &want), 0);
	CU_ASSERT_EQUAL_FATAL(build(t, m, NULL, 0, false, &got), 0);
	check_same(name, want, got);
	for (size_t i = 0; i < DUT_ARRAY_SIZE(batches); i++) {
		_cleanup_(report_freep) struct report *other = NULL;

		CU_ASSERT_EQUAL_FATAL(build(t, m, NULL, batches[i], false, &other), 0);
		check_same(name, want, other);
	}
	/* and cut into runs of records, each built on its own and absorbed (report_build_merge.c) */
	for (unsigned ways = 2; ways <= 5 && ways <= REP_PAR_MAX_WAYS; ways++) {
		_cleanup_(report_freep) struct report *other = NULL;
		char wname[96];

		snprintf(wname, sizeof(wname), "%s, %u windows", name, ways);
		CU_ASSERT_EQUAL_FATAL(report_build_ways(t, m, NULL, ways, &other), 0);
		check_same(wname, want, other);
	}
	return got;
}

static const struct rep_row *row(const struct rep_row *rows, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(rows[i].name, name) == 0)
			return &rows[i];
	return NULL;
}

static struct dut_trace_file heap_files[] = {
	{ 1, "base/5/16384", { .cls = DUT_PG_REL, .fork = DUT_PG_FORK_MAIN, .db_oid = 5, .tablespace_oid = 1663,
			       .relfilenode = 16384 } },
	{ 2, "pg_wal/000000010000000000000001", { .cls = DUT_PG_WAL, .timeline = 1, .wal_segno = 1 } },
};

#define REC(TS, OP, ID, OFF, PID, LAT, DUTFS) { .ts_ns = TS, .offset = OFF, .lat_ns = LAT, .len = 8192, \
	.result = (OP) == DUT_OP_READ || (OP) == DUT_OP_WRITE ? 8192 : 0, .file_id = ID, .pid = PID, \
	.op = OP, .dutfs_ns = DUTFS }

static struct dut_trace trace_of(struct dut_trace_rec *recs, size_t n, struct dut_trace_marker *mk, size_t nmk)
{
	return (struct dut_trace){ .files = heap_files, .nfiles = DUT_ARRAY_SIZE(heap_files), .recs = recs,
				   .nrecs = n, .markers = mk, .nmarkers = nmk, .has_footer = true,
				   .footer = { .records_written = n } };
}

/*
 * File 1's records run on the fast path until the marker: the writes after
 * it belong to phase "run" (its own class row and its data write ticks),
 * those before to "(before first marker)", not to the phase their run began in.
 */
static void test_fast_run_broken_by_a_phase_start(void)
{
	static struct dut_trace_marker mk[] = { { 1000, "run" } };
	static struct dut_trace_rec recs[] = {
		REC(100, DUT_OP_WRITE, 1, 0, 10, 1000, 0), REC(200, DUT_OP_WRITE, 1, 8192, 10, 1000, 0),
		REC(300, DUT_OP_READ, 1, 16384, 10, 1000, 0), REC(1000, DUT_OP_WRITE, 1, 24576, 10, 1000, 0),
		REC(1100, DUT_OP_WRITE, 1, 32768, 10, 1000, 0), REC(1200, DUT_OP_WRITE, 1, 40960, 10, 1000, 0),
		REC(1300, DUT_OP_FSYNC, 1, 0, 10, 1000, 0),
	};
	struct dut_trace t = trace_of(recs, DUT_ARRAY_SIZE(recs), mk, DUT_ARRAY_SIZE(mk));
	_cleanup_(report_freep) struct report *rep = build_checked("phase start", &t, NULL);

	CU_ASSERT_EQUAL_FATAL(rep->nphases, 3);
	CU_ASSERT_EQUAL(rep->phases[1].cls[RC_HEAP].dir[REP_WRITE].ops, 2);
	CU_ASSERT_EQUAL(rep->phases[1].cls[RC_HEAP].dir[REP_READ].ops, 1);
	CU_ASSERT_EQUAL(rep->phases[2].cls[RC_HEAP].dir[REP_WRITE].ops, 3);
	CU_ASSERT_EQUAL(rep->phases[2].cls[RC_HEAP].dir[REP_WRITE].seq_ops, 3);
	CU_ASSERT_EQUAL(rep->phases[2].cls[RC_HEAP].fsyncs, 1);
	CU_ASSERT_EQUAL_FATAL(rep->phases[2].ndata_ticks > 0, true);
	CU_ASSERT_EQUAL(rep->phases[2].data_write_ticks[0], 3 * 8192);
	CU_ASSERT_EQUAL(rep->phases[0].cls[RC_HEAP].dir[REP_WRITE].ops, 5);
}

/*
 * The findings' device median of a class is over its dutfs-timed records
 * only: one without dutfs time in the middle of a fast run (and more after
 * it) must not enter it.  12 timed reads at 10 us, 13 untimed at 777 us:
 * the median is 10 us, where the untimed ones would make it 777 us.
 */
static void test_fast_run_then_a_record_without_dutfs_time(void)
{
	struct dut_trace_rec recs[25];
	struct dut_trace t;
	_cleanup_(report_freep) struct report *rep = NULL;
	size_t n = 0;

	for (unsigned i = 0; i < 4; i++)
		recs[n++] = (struct dut_trace_rec)REC(100 + n, DUT_OP_READ, 1, 8192 * n, 10, 10000, 5000);
	for (unsigned i = 0; i < 13; i++)
		recs[n++] = (struct dut_trace_rec)REC(100 + n, DUT_OP_READ, 1, 8192 * n, 10, 777000, 0);
	for (unsigned i = 0; i < 8; i++)
		recs[n++] = (struct dut_trace_rec)REC(100 + n, DUT_OP_READ, 1, 8192 * n, 10, 10000, 5000);
	t = trace_of(recs, n, NULL, 0);
	rep = build_checked("untimed record", &t, NULL);
	CU_ASSERT_EQUAL(rep->phases[0].cls[RC_HEAP].dutfs.reqs, 12);
	CU_ASSERT_EQUAL_FATAL(rep->ndutfs_findings, 1);
	CU_ASSERT_EQUAL(rep->dutfs_findings[0].cls, RC_HEAP);
	CU_ASSERT_EQUAL(rep->dutfs_findings[0].reqs, 12);
	CU_ASSERT_EQUAL(rep->dutfs_findings[0].lat_p50_ns, 10000);
}

/* Two pids that share a slot of the builder's pid cache (report_build.c, pid_slot_of). */
static void colliding_pids(uint32_t *a, uint32_t *b)
{
	*a = 4321;
	for (uint32_t p = *a + 1;; p++)
		if (((p * 2654435761u) >> 22 & 1023u) == ((*a * 2654435761u) >> 22 & 1023u)) {
			*b = p;
			return;
		}
}

/*
 * One file's records from processes that change every record, two of them
 * in the same pid cache slot, and writes from writeback (pid 0 whatever
 * the record's pid): each record counts for its own process.
 */
static void test_fast_run_across_pid_changes(void)
{
	struct dut_trace_rec recs[30];
	struct dut_trace t;
	_cleanup_(report_freep) struct report *rep = NULL;
	char na[32], nb[32];
	uint32_t a, b;

	colliding_pids(&a, &b);
	for (unsigned i = 0; i < DUT_ARRAY_SIZE(recs); i++) {
		recs[i] = (struct dut_trace_rec)REC(100 + i, i % 3 == 2 ? DUT_OP_WRITE : DUT_OP_READ, 1,
						     8192 * i, i % 2 ? b : a, 1000 + i, 0);
		if (i % 3 == 2)
			recs[i].flags = i % 6 == 5 ? DUT_TRACE_F_WRITEBACK : 0;
	}
	t = trace_of(recs, DUT_ARRAY_SIZE(recs), NULL, 0);
	rep = build_checked("pid changes", &t, NULL);
	snprintf(na, sizeof(na), "pid %u", a);
	snprintf(nb, sizeof(nb), "pid %u", b);
	CU_ASSERT_PTR_NOT_NULL_FATAL(row(rep->processes, rep->nprocesses, na));
	CU_ASSERT_PTR_NOT_NULL_FATAL(row(rep->processes, rep->nprocesses, nb));
	CU_ASSERT_PTR_NOT_NULL_FATAL(row(rep->processes, rep->nprocesses, "(kernel writeback)"));
	/* i even: a; i odd: b; writes at i % 3 == 2, from writeback when i % 6 == 5 (odd: b's) */
	CU_ASSERT_EQUAL(row(rep->processes, rep->nprocesses, na)->st.dir[REP_READ].ops, 10);
	CU_ASSERT_EQUAL(row(rep->processes, rep->nprocesses, na)->st.dir[REP_WRITE].ops, 5);
	CU_ASSERT_EQUAL(row(rep->processes, rep->nprocesses, nb)->st.dir[REP_READ].ops, 10);
	CU_ASSERT_EQUAL(row(rep->processes, rep->nprocesses, nb)->st.dir[REP_WRITE].ops, 0);
	CU_ASSERT_EQUAL(row(rep->processes, rep->nprocesses, "(kernel writeback)")->st.dir[REP_WRITE].ops, 5);
}

/*
 * A relation file whose relfilenode names a table until 100 and an index
 * after (the relation map's history): its records are counted to the
 * relation and class of their time, never to the one a run of them began in.
 */
static void test_relation_change_inside_a_run(void)
{
	static const char j[] =
		"{\"schema\":\"dutlab-relmap\",\"schema_version\":1,\"relations\":["
		"{\"db_oid\":5,\"tablespace_oid\":1663,\"relfilenode\":16384,\"name\":\"old\",\"kind\":\"table\","
		" \"first_seen_ns\":0,\"last_seen_ns\":100},"
		"{\"db_oid\":5,\"tablespace_oid\":1663,\"relfilenode\":16384,\"name\":\"new\",\"kind\":\"index\","
		" \"first_seen_ns\":101,\"last_seen_ns\":200}]}";
	static struct dut_trace_rec recs[] = {
		REC(50, DUT_OP_READ, 1, 0, 10, 1000, 0), REC(60, DUT_OP_READ, 1, 8192, 10, 1000, 0),
		REC(70, DUT_OP_WRITE, 1, 16384, 10, 1000, 0), REC(150, DUT_OP_READ, 1, 24576, 10, 1000, 0),
		REC(160, DUT_OP_READ, 1, 32768, 10, 1000, 0), REC(170, DUT_OP_READ, 1, 40960, 10, 1000, 0),
		REC(180, DUT_OP_WRITE, 2, 0, 10, 1000, 0), REC(190, DUT_OP_WRITE, 2, 8192, 10, 1000, 0),
	};
	_cleanup_(relmap_freep) struct relmap *m = NULL;
	struct dut_error err = { { 0 } };
	struct dut_trace t = trace_of(recs, DUT_ARRAY_SIZE(recs), NULL, 0);
	_cleanup_(report_freep) struct report *rep = NULL;

	CU_ASSERT_EQUAL_FATAL(relmap_parse(j, strlen(j), &m, &err), 0);
	rep = build_checked("relation change", &t, m);
	CU_ASSERT_PTR_NOT_NULL_FATAL(row(rep->relations, rep->nrelations, "old"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(row(rep->relations, rep->nrelations, "new"));
	CU_ASSERT_EQUAL(row(rep->relations, rep->nrelations, "old")->st.dir[REP_READ].ops, 2);
	CU_ASSERT_EQUAL(row(rep->relations, rep->nrelations, "old")->st.dir[REP_WRITE].ops, 1);
	CU_ASSERT_EQUAL(row(rep->relations, rep->nrelations, "new")->st.dir[REP_READ].ops, 3);
	CU_ASSERT_EQUAL(rep->phases[0].cls[RC_HEAP].dir[REP_READ].ops, 2);
	CU_ASSERT_EQUAL(rep->phases[0].cls[RC_INDEX].dir[REP_READ].ops, 3);
	CU_ASSERT_EQUAL(rep->phases[0].cls[RC_WAL].dir[REP_WRITE].ops, 2);
}

/*
 * Records of an id with no FILE entry, in a run: every one counts as
 * unknown.  Id 7 lies below the largest id with an entry (9), so the
 * builder finds it in its direct table and its run takes the fast path.
 */
static void test_unknown_file_records_in_a_run_are_all_counted(void)
{
	static struct dut_trace_file files[] = {
		{ 1, "base/5/16384", { .cls = DUT_PG_REL, .fork = DUT_PG_FORK_MAIN, .db_oid = 5,
				       .tablespace_oid = 1663, .relfilenode = 16384 } },
		{ 9, "base/5/16390", { .cls = DUT_PG_REL, .fork = DUT_PG_FORK_MAIN, .db_oid = 5,
				       .tablespace_oid = 1663, .relfilenode = 16390 } },
	};
	static struct dut_trace_rec recs[] = {
		REC(10, DUT_OP_READ, 7, 0, 10, 1000, 0), REC(20, DUT_OP_READ, 7, 8192, 10, 1000, 0),
		REC(30, DUT_OP_OPEN, 7, 0, 10, 1000, 0), REC(40, DUT_OP_WRITE, 7, 0, 10, 1000, 0),
		REC(50, DUT_OP_READ, 1, 0, 10, 1000, 0), REC(60, DUT_OP_FSYNC, 7, 0, 10, 1000, 0),
		REC(70, DUT_OP_READ, 12, 0, 10, 1000, 0), REC(80, DUT_OP_READ, 12, 8192, 10, 1000, 0),
	};
	struct dut_trace t = trace_of(recs, DUT_ARRAY_SIZE(recs), NULL, 0);
	_cleanup_(report_freep) struct report *rep = NULL;

	t.files = files;
	t.nfiles = DUT_ARRAY_SIZE(files);
	rep = build_checked("unknown file", &t, NULL);
	CU_ASSERT_EQUAL(rep->unknown_file_recs, 7);
	CU_ASSERT_EQUAL(rep->phases[0].cls[RC_OTHER].dir[REP_READ].ops, 4);
	CU_ASSERT_EQUAL(rep->phases[0].cls[RC_OTHER].other_ops, 1);
}

/*
 * A WAL file's tail rewrites are measured in the WAL page, its other
 * files' in the block (rep_pages): a WAL write 12 KiB behind the previous
 * end is a rewrite of a 16 KiB WAL page, a heap write as far back with
 * 4 KiB blocks is random, also on the fast path.
 */
static void test_wal_tail_rewrite_in_a_run_uses_the_wal_page(void)
{
	static struct dut_trace_rec recs[] = {
		REC(10, DUT_OP_WRITE, 2, 0, 10, 1000, 0), REC(20, DUT_OP_WRITE, 2, 8192, 10, 1000, 0),
		REC(30, DUT_OP_WRITE, 2, 4096, 10, 1000, 0), REC(40, DUT_OP_WRITE, 1, 0, 10, 1000, 0),
		REC(50, DUT_OP_WRITE, 1, 8192, 10, 1000, 0), REC(60, DUT_OP_WRITE, 1, 4096, 10, 1000, 0),
	};
	static const struct rep_pages pages = { .block_bytes = 4096, .wal_block_bytes = 16384 };
	struct dut_trace t = trace_of(recs, DUT_ARRAY_SIZE(recs), NULL, 0);
	_cleanup_(report_freep) struct report *want = NULL, *got = NULL;

	CU_ASSERT_EQUAL_FATAL(build(&t, NULL, &pages, 0, true, &want), 0);
	CU_ASSERT_EQUAL_FATAL(build(&t, NULL, &pages, 0, false, &got), 0);
	check_same("WAL page", want, got);
	CU_ASSERT_EQUAL(got->phases[0].cls[RC_WAL].dir[REP_WRITE].seq_ops, 2);
	CU_ASSERT_EQUAL(got->phases[0].cls[RC_WAL].dir[REP_WRITE].rewrite_ops, 1);
	CU_ASSERT_EQUAL(got->phases[0].cls[RC_HEAP].dir[REP_WRITE].seq_ops, 1);
	CU_ASSERT_EQUAL(got->phases[0].cls[RC_HEAP].dir[REP_WRITE].rewrite_ops, 0);
}

static int mem_write(void *ctx, const void *p, size_t n)
{
	FILE *f = ctx;

	return fwrite(p, 1, n, f) == n ? 0 : -EIO;
}

/*
 * Generated traces (few files and processes: long runs; many: short ones;
 * markers, unknown ids, dutfs-heavy WAL), fed in batches of 1, 3 and all,
 * and with the server's page sizes: the general path's report each time.
 */
static void test_generated_traces_in_any_batches(void)
{
	static const struct trace_gen_opts cases[] = {
		{ .records = 20000, .seed = 21, .files = 2, .pids = 1, .markers = 3, .ties = true },
		{ .records = 20000, .seed = 22, .files = 3, .pids = 2, .markers = 5, .dutfs_heavy = true },
		{ .records = 30000, .seed = 23, .markers = 4, .unknown_ids = true, .disorder_pct = 10 },
		{ .records = 10000, .seed = 24, .v1_0 = true, .markers = 1 },
	};
	static const struct rep_pages pages = { .block_bytes = 4096, .wal_block_bytes = 16384 };

	for (size_t c = 0; c < DUT_ARRAY_SIZE(cases); c++) {
		_cleanup_(dut_trace_freep) struct dut_trace *t = NULL;
		_cleanup_(report_freep) struct report *want = NULL, *got = NULL;
		_cleanup_free_ char *buf = NULL;
		struct dut_error err = { { 0 } };
		char name[32];
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		CU_ASSERT_EQUAL_FATAL(trace_gen(&cases[c], mem_write, f), 0);
		fclose(f);
		CU_ASSERT_EQUAL_FATAL(dut_trace_parse((const uint8_t *)buf, len, &t, &err), 0);
		snprintf(name, sizeof(name), "generated case %zu", c);
		report_free(build_checked(name, t, NULL));
		CU_ASSERT_EQUAL_FATAL(build(t, NULL, &pages, 0, true, &want), 0);
		CU_ASSERT_EQUAL_FATAL(build(t, NULL, &pages, 7, false, &got), 0);
		check_same(name, want, got);
		report_free(got);
		got = NULL;
		CU_ASSERT_EQUAL_FATAL(report_build_ways(t, NULL, &pages, 3, &got), 0);
		check_same(name, want, got);
	}
}

static const struct cu_test tests[] = {
	{ "fast_run_broken_by_a_phase_start", test_fast_run_broken_by_a_phase_start },
	{ "fast_run_then_a_record_without_dutfs_time", test_fast_run_then_a_record_without_dutfs_time },
	{ "fast_run_across_pid_changes", test_fast_run_across_pid_changes },
	{ "relation_change_inside_a_run", test_relation_change_inside_a_run },
	{ "unknown_file_records_in_a_run_are_all_counted", test_unknown_file_records_in_a_run_are_all_counted },
	{ "wal_tail_rewrite_in_a_run_uses_the_wal_page", test_wal_tail_rewrite_in_a_run_uses_the_wal_page },
	{ "generated_traces_in_any_batches", test_generated_traces_in_any_batches },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "report_fast", .tests = tests };
