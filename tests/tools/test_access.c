/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * How a request continues its file's stream (tools/report/report.h): sequential,
 * a tail rewrite, random.  Regression (issue #18): PostgreSQL's WAL, written
 * as appends that rewrite the current page at every commit, read as 99.8 %
 * random; a random heap workload must still read as random.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "tests/cu_main.h"
#include "tools/report/report.h"
#include "tools/report/rundir_stats.h"

DUT_DEFINE_FREEP(struct report *, report_free)

static void test_access_rule_table(void)
{
	static const struct {
		bool has_prev;
		uint64_t prev_end, offset;
		enum rep_access want;
		const char *what;
	} cases[] = {
		{ false, 0, 0, REP_ACCESS_RANDOM, "the first request on a file" },
		{ true, 8192, 8192, REP_ACCESS_SEQUENTIAL, "starts where the previous ended" },
		{ true, 16384, 8192, REP_ACCESS_TAIL_REWRITE, "one page back: the tail page again" },
		{ true, 16384, 12288, REP_ACCESS_TAIL_REWRITE, "half a page back" },
		{ true, 16384, 16383, REP_ACCESS_TAIL_REWRITE, "one byte back" },
		{ true, 16384, 8191, REP_ACCESS_RANDOM, "one byte more than a page back" },
		{ true, 16384, 0, REP_ACCESS_RANDOM, "two pages back" },
		{ true, 16384, 16385, REP_ACCESS_RANDOM, "a jump forward by a byte" },
		{ true, 16384, 24576, REP_ACCESS_RANDOM, "a jump forward by a page" },
		{ true, 4096, 0, REP_ACCESS_TAIL_REWRITE, "back to offset 0 within a page" },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(cases); i++) {
		enum rep_access a = rep_access_of(cases[i].has_prev, cases[i].prev_end, cases[i].offset, 0);

		CU_CHECK(a == cases[i].want, "%s: prev_end %llu offset %llu: got %d, want %d", cases[i].what,
			 (unsigned long long)cases[i].prev_end, (unsigned long long)cases[i].offset, a,
			 cases[i].want);
	}
}

static struct dut_trace_file files[] = {
	{ 1, "pg_wal/000000010000000000000001", { .cls = DUT_PG_WAL, .timeline = 1, .wal_segno = 1 } },
	{ 2, "base/5/16384", { .cls = DUT_PG_REL, .fork = DUT_PG_FORK_MAIN, .db_oid = 5, .tablespace_oid = 1663,
			       .relfilenode = 16384 } },
};

#define NCOMMITS 1000
#define NRANDOM 2000
#define PAGE 8192u

static struct dut_trace_rec rec(uint64_t ts, uint8_t op, uint32_t id, uint64_t off, uint32_t len)
{
	return (struct dut_trace_rec){ .ts_ns = ts, .offset = off, .len = len, .result = (int32_t)len,
				       .lat_ns = 1000, .file_id = id, .pid = 10, .op = op };
}

/*
 * WAL as PostgreSQL writes it: each commit writes from the start of the
 * current, partly filled page through the end of its records (one to three
 * pages), then fdatasyncs; the next commit starts at that last page again
 * unless the commit filled it exactly.  Interleaved with it, random 8 KiB
 * reads and writes of a 1 GiB heap file (xorshift, fixed seed).
 */
static size_t build_pages(struct dut_trace_rec *v, uint32_t wal_page, uint32_t heap_page, uint64_t *ret_rewrites)
{
	uint64_t ts = 1000, page = 0, x = 88172645463325252ull, rewrites = 0;
	bool prev_filled = false;
	size_t n = 0;

	for (unsigned i = 0; i < NCOMMITS; i++) {
		unsigned pages = 1 + i % 3;
		bool filled = i % 7 == 0;

		v[n++] = rec(ts++, DUT_OP_WRITE, 1, page * wal_page, pages * wal_page);
		v[n++] = rec(ts++, DUT_OP_FDATASYNC, 1, 0, 0);
		rewrites += i > 0 && !prev_filled;
		page += filled ? pages : pages - 1;
		prev_filled = filled;
		for (unsigned k = 0; k < NRANDOM / NCOMMITS; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			v[n++] = rec(ts++, k ? DUT_OP_READ : DUT_OP_WRITE, 2, (x % 131072) * heap_page, heap_page);
		}
	}
	*ret_rewrites = rewrites;
	return n;
}

static size_t build(struct dut_trace_rec *v, uint64_t *ret_rewrites)
{
	return build_pages(v, PAGE, PAGE, ret_rewrites);
}

static void test_wal_tail_rewrites_are_sequential_heap_stays_random(void)
{
	_cleanup_free_ struct dut_trace_rec *v = calloc(2 * NCOMMITS + NRANDOM, sizeof(*v));
	_cleanup_(report_freep) struct report *rep = NULL;
	struct dut_trace t = { .files = files, .nfiles = DUT_ARRAY_SIZE(files), .has_footer = true };
	const struct rep_dirstats *wal, *heap_r, *heap_w;
	uint64_t rewrites;
	struct rundir_io_class c = { 0 };
	char p[200];

	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	t.recs = v;
	t.nrecs = build(v, &rewrites);
	t.footer.records_written = t.nrecs;
	CU_ASSERT_EQUAL_FATAL(report_build(&t, NULL, &rep), 0);
	wal = &rep->phases[0].cls[RC_WAL].dir[REP_WRITE];
	heap_r = &rep->phases[0].cls[RC_HEAP].dir[REP_READ];
	heap_w = &rep->phases[0].cls[RC_HEAP].dir[REP_WRITE];

	CU_ASSERT_EQUAL(wal->ops, NCOMMITS);
	/* every write but the first continues the stream: no WAL write is random */
	CU_CHECK(wal->seq_ops == NCOMMITS - 1, "WAL sequential %llu of %llu", (unsigned long long)wal->seq_ops,
		 (unsigned long long)wal->ops);
	CU_CHECK(wal->rewrite_ops == rewrites, "WAL tail rewrites %llu, built %llu",
		 (unsigned long long)wal->rewrite_ops, (unsigned long long)rewrites);
	CU_ASSERT(rewrites > NCOMMITS / 2);

	/* random heap I/O: of 2,000 requests over 131,072 pages, hardly any lands within a page behind */
	CU_ASSERT_EQUAL(heap_r->ops + heap_w->ops, NRANDOM);
	CU_CHECK(heap_r->seq_ops + heap_w->seq_ops <= 2, "heap sequential %llu",
		 (unsigned long long)(heap_r->seq_ops + heap_w->seq_ops));

	/* the sentence the report gives each class */
	for (int d = 0; d < 2; d++) {
		c.ops[d] = rep->phases[0].cls[RC_WAL].dir[d].ops;
		c.seq_ops[d] = rep->phases[0].cls[RC_WAL].dir[d].seq_ops;
		c.rewrite_ops[d] = rep->phases[0].cls[RC_WAL].dir[d].rewrite_ops;
	}
	CU_ASSERT_PTR_NULL(rundir_io_pattern(&c, REP_READ, p, sizeof(p)));
	CU_ASSERT_PTR_NOT_NULL_FATAL(rundir_io_pattern(&c, REP_WRITE, p, sizeof(p)));
	CU_CHECK(strncmp(p, "sequential appends with rewrites of the tail page (", 51) == 0, "WAL: %s", p);
	/* the one random write is the first on the file */
	CU_CHECK(strstr(p, "0.1% random of 1,000 writes") != NULL, "WAL: %s", p);
	for (int d = 0; d < 2; d++) {
		c.ops[d] = rep->phases[0].cls[RC_HEAP].dir[d].ops;
		c.seq_ops[d] = rep->phases[0].cls[RC_HEAP].dir[d].seq_ops;
		c.rewrite_ops[d] = rep->phases[0].cls[RC_HEAP].dir[d].rewrite_ops;
	}
	CU_ASSERT_PTR_NOT_NULL_FATAL(rundir_io_pattern(&c, REP_READ, p, sizeof(p)));
	CU_CHECK(strncmp(p, "random (", 8) == 0, "heap reads: %s", p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rundir_io_pattern(&c, REP_WRITE, p, sizeof(p)));
	CU_CHECK(strncmp(p, "random (", 8) == 0, "heap writes: %s", p);
}

/* The rule at other page sizes: one page back is the page given, not 8 KiB. */
static void test_access_rule_page_sizes(void)
{
	static const struct {
		uint32_t page;
		uint64_t prev_end, offset;
		enum rep_access want;
	} cases[] = {
		{ 16384, 32768, 16384, REP_ACCESS_TAIL_REWRITE },  /* one 16 KiB page back */
		{ 16384, 32768, 16383, REP_ACCESS_RANDOM },
		{ 32768, 65536, 32768, REP_ACCESS_TAIL_REWRITE },
		{ 32768, 65536, 40960, REP_ACCESS_TAIL_REWRITE },
		{ 4096, 16384, 8192, REP_ACCESS_RANDOM },          /* two 4 KiB pages back */
		{ 4096, 16384, 12288, REP_ACCESS_TAIL_REWRITE },
		{ 0, 16384, 8192, REP_ACCESS_TAIL_REWRITE },       /* 0: REP_TAIL_PAGE_BYTES */
		{ 0, 32768, 16384, REP_ACCESS_RANDOM },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(cases); i++) {
		enum rep_access a = rep_access_of(true, cases[i].prev_end, cases[i].offset, cases[i].page);

		CU_CHECK(a == cases[i].want, "page %u: prev_end %llu offset %llu: got %d, want %d", cases[i].page,
			 (unsigned long long)cases[i].prev_end, (unsigned long long)cases[i].offset, a,
			 cases[i].want);
	}
}

/*
 * A server built with 16 kB WAL pages and 32 kB blocks (dutlab pg build
 * --wal-block-size 16kB --block-size 32kB): its commits rewrite a 16 KiB
 * tail page.  With the run's page sizes every WAL write but the first
 * continues the stream; measured in 8 KiB pages (before #26) the rewrites
 * read as random.  The heap stays random either way.
 */
static void test_wal_tail_rewrites_in_the_runs_page_size(void)
{
	_cleanup_free_ struct dut_trace_rec *v = calloc(2 * NCOMMITS + NRANDOM, sizeof(*v));
	struct dut_trace t = { .files = files, .nfiles = DUT_ARRAY_SIZE(files), .has_footer = true };
	const struct rep_pages pages = { .block_bytes = 32768, .wal_block_bytes = 16384 };
	uint64_t rewrites;

	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	t.recs = v;
	t.nrecs = build_pages(v, 16384, 32768, &rewrites);
	t.footer.records_written = t.nrecs;
	for (int with = 0; with < 2; with++) {
		_cleanup_(report_freep) struct report *rep = NULL;
		const struct rep_dirstats *wal, *heap_r, *heap_w;

		CU_ASSERT_EQUAL_FATAL(report_build_pages(&t, NULL, with ? &pages : NULL, &rep), 0);
		wal = &rep->phases[0].cls[RC_WAL].dir[REP_WRITE];
		heap_r = &rep->phases[0].cls[RC_HEAP].dir[REP_READ];
		heap_w = &rep->phases[0].cls[RC_HEAP].dir[REP_WRITE];
		CU_ASSERT_EQUAL(wal->ops, NCOMMITS);
		CU_CHECK(heap_r->seq_ops + heap_w->seq_ops <= 2, "heap sequential %llu",
			 (unsigned long long)(heap_r->seq_ops + heap_w->seq_ops));
		if (with) {
			CU_CHECK(rep->pages.block_bytes == 32768 && rep->pages.wal_block_bytes == 16384,
				 "pages %u/%u", rep->pages.block_bytes, rep->pages.wal_block_bytes);
			CU_CHECK(wal->seq_ops == NCOMMITS - 1 && wal->rewrite_ops == rewrites,
				 "16 KiB WAL pages: sequential %llu, tail rewrites %llu (built %llu) of %llu",
				 (unsigned long long)wal->seq_ops, (unsigned long long)wal->rewrite_ops,
				 (unsigned long long)rewrites, (unsigned long long)wal->ops);
		} else {
			/* what the old fixed 8 KiB rule saw: every rewrite of a 16 KiB page random */
			CU_CHECK(rep->pages.wal_block_bytes == REP_TAIL_PAGE_BYTES, "default WAL page %u",
				 rep->pages.wal_block_bytes);
			CU_CHECK(wal->rewrite_ops == 0 && wal->ops - wal->seq_ops == rewrites + 1,
				 "8 KiB rule: random %llu, expected %llu", (unsigned long long)(wal->ops - wal->seq_ops),
				 (unsigned long long)(rewrites + 1));
		}
	}
}

/* The relation map's block_size is the data files' page when the run says nothing. */
static void test_relmap_block_size_is_the_data_page(void)
{
	static const char relmap[] =
		"{\"schema\": \"dutlab-relmap\", \"schema_version\": 1, \"block_size\": 16384, \"relations\": []}";
	_cleanup_(report_freep) struct report *rep = NULL;
	struct dut_trace t = { .files = files, .nfiles = DUT_ARRAY_SIZE(files), .has_footer = true };
	struct dut_trace_rec v[3] = {
		rec(1, DUT_OP_READ, 2, 0, 32768),
		rec(2, DUT_OP_READ, 2, 16384, 16384),      /* the last 16 KiB page again */
		rec(3, DUT_OP_READ, 2, 0, 16384),          /* two pages back */
	};
	struct relmap *m = NULL;
	struct dut_error err = { "" };

	CU_ASSERT_EQUAL_FATAL(relmap_parse(relmap, sizeof(relmap) - 1, &m, &err), 0);
	t.recs = v;
	t.nrecs = t.footer.records_written = 3;
	CU_ASSERT_EQUAL_FATAL(report_build(&t, m, &rep), 0);
	CU_CHECK(rep->pages.block_bytes == 16384 && rep->pages.wal_block_bytes == 8192, "pages %u/%u",
		 rep->pages.block_bytes, rep->pages.wal_block_bytes);
	CU_CHECK(rep->phases[0].cls[RC_HEAP].dir[REP_READ].rewrite_ops == 1 &&
		 rep->phases[0].cls[RC_HEAP].dir[REP_READ].seq_ops == 1, "re-reads %llu",
		 (unsigned long long)rep->phases[0].cls[RC_HEAP].dir[REP_READ].rewrite_ops);
	relmap_free(m);
}

/* Pure appends stay "sequential"; half and half is "mixed". */
static void test_pattern_words(void)
{
	struct rundir_io_class app = { .ops = { 0, 1000 }, .seq_ops = { 0, 999 }, .rewrite_ops = { 0, 3 } };
	struct rundir_io_class mix = { .ops = { 1000, 0 }, .seq_ops = { 500, 0 } };
	char p[200];

	CU_ASSERT_PTR_NOT_NULL_FATAL(rundir_io_pattern(&app, REP_WRITE, p, sizeof(p)));
	CU_CHECK(strcmp(p, "sequential (99.6% appends, 0.3% tail rewrites, 0.1% random of 1,000 writes)") == 0,
		 "%s", p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rundir_io_pattern(&mix, REP_READ, p, sizeof(p)));
	CU_CHECK(strncmp(p, "mixed (", 7) == 0, "%s", p);
}

static const struct cu_test tests[] = {
	{ "access_rule_table", test_access_rule_table },
	{ "wal_tail_rewrites_are_sequential_heap_stays_random", test_wal_tail_rewrites_are_sequential_heap_stays_random },
	{ "pattern_words", test_pattern_words },
	{ "access_rule_page_sizes", test_access_rule_page_sizes },
	{ "wal_tail_rewrites_in_the_runs_page_size", test_wal_tail_rewrites_in_the_runs_page_size },
	{ "relmap_block_size_is_the_data_page", test_relmap_block_size_is_the_data_page },
	{ NULL, NULL },
};
const struct cu_suite cu_suite = { .name = "report_access", .tests = tests };
