/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Data-file write bursts against TPS dips (tools/report/report_bursts.h) on
 * synthetic series, and the per-tick data-file write series report_build
 * keeps per phase (issue #18: "write bursts against TPS dips, from the
 * per-second series and the trace").
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lib/cleanup.h"
#include "tests/cu_main.h"
#include "tools/report/report.h"
#include "tools/report/report_bursts.h"

#define MIB (1024u * 1024u)
#define NS 1000000000ull

DUT_DEFINE_FREEP(struct report *, report_free)

/* Ticks of 100 ms into seconds, after an offset that is not a whole number of ticks' seconds. */
static void test_rebin_offsets(void)
{
	uint64_t ticks[25] = { 0 }, out[3];

	ticks[0] = 1;       /* before the offset: not counted */
	ticks[3] = 10;      /* 300 ms: the offset's own tick, second 0 */
	ticks[12] = 100;    /* 1.2 s: still second 0 (0.9 s after the offset) */
	ticks[13] = 1000;   /* 1.3 s: second 1 */
	ticks[24] = 10000;  /* 2.4 s: second 2 */
	burst_rebin(ticks, 25, REP_TICK_NS, 300000000ull, out, 3);
	CU_CHECK(out[0] == 110 && out[1] == 1000 && out[2] == 10000, "got %llu %llu %llu",
		 (unsigned long long)out[0], (unsigned long long)out[1], (unsigned long long)out[2]);
	burst_rebin(ticks, 25, REP_TICK_NS, 0, out, 2);
	CU_CHECK(out[0] == 11 && out[1] == 1100, "no offset: got %llu %llu", (unsigned long long)out[0],
		 (unsigned long long)out[1]);
}

/*
 * 12 seconds at 1000 tx/s with dips in seconds 4 (right after a burst in
 * 3), 7 (a checkpoint, no burst) and 10 (neither); second 0 (ramp-up) and
 * 11 (partial) are low but not counted.
 */
static void test_dips_against_bursts_and_checkpoints(void)
{
	double tps[12] = { 100, 1000, 1010, 990, 500, 1000, 1005, 600, 995, 1000, 400, 50 };
	uint64_t w[12] = { 0 };
	bool ck[12] = { false };
	struct burst_run run = { .tps = tps, .write_bytes = w, .ckpt = ck, .nsecs = 12 };
	struct burst_result r;

	for (size_t i = 0; i < 12; i++)
		w[i] = 200 * 1024;          /* a steady trickle: the median */
	w[3] = 8 * MIB;                     /* a burst: 40x the median */
	w[6] = 300 * 1024;                  /* above the median, below the floor: no burst */
	ck[7] = true;
	CU_ASSERT_EQUAL_FATAL(burst_analyse(&run, 1, &r), 0);
	CU_CHECK(r.nsecs == 10, "counted %zu seconds, want 10 (first and last left out)", r.nsecs);
	CU_CHECK(r.ndips == 3, "%zu dips, want 3", r.ndips);
	CU_CHECK(r.dips_burst == 1, "%zu dips at a burst, want 1 (second 4, burst in 3)", r.dips_burst);
	CU_CHECK(r.dips_ckpt == 1, "%zu dips at a checkpoint, want 1", r.dips_ckpt);
	CU_CHECK(r.dips_neither == 1, "%zu dips at neither, want 1", r.dips_neither);
	CU_CHECK(r.nburst_secs == 1, "%zu burst seconds, want 1", r.nburst_secs);
	CU_CHECK(r.tps_burst.n == 1 && r.tps_burst.median == 990, "TPS in the burst second %g", r.tps_burst.median);
	CU_CHECK(r.tps_other.n == 9 && r.tps_other.median == 1000, "TPS in the others %g (%u)", r.tps_other.median,
		 r.tps_other.n);
	CU_CHECK(r.tps.n == 1 && r.tps.median == 997.5, "median TPS %g", r.tps.median);
	CU_CHECK(r.write_bytes == 8 * 200 * 1024ull + 300 * 1024 + 8 * MIB,
		 "write bytes %llu", (unsigned long long)r.write_bytes);
}

/* A burst two seconds before a dip does not explain it; no write at all gives no burst. */
static void test_table_of_runs(void)
{
	static const struct {
		const char *what;
		double tps[8];
		uint64_t w[8];
		bool traced;
		size_t dips, at_burst, bursts;
	} cases[] = {
		{ "steady, no writes", { 10, 100, 100, 100, 100, 100, 100, 1 }, { 0 }, true, 0, 0, 0 },
		{ "a dip two seconds after a burst", { 10, 100, 100, 100, 50, 100, 100, 1 },
		  { 0, 0, 4 * MIB, 0, 0, 0, 0, 0 }, true, 1, 0, 1 },
		{ "a dip in the burst's second", { 10, 100, 100, 50, 100, 100, 100, 1 },
		  { 0, 0, 0, 4 * MIB, 0, 0, 0, 0 }, true, 1, 1, 1 },
		{ "a burst in the ramp-up second explains a dip in the next", { 10, 50, 100, 100, 100, 100, 100, 1 },
		  { 4 * MIB, 0, 0, 0, 0, 0, 0, 0 }, true, 1, 1, 0 },
		{ "every second writes the same: none is a burst", { 10, 100, 60, 100, 100, 100, 100, 1 },
		  { 4 * MIB, 4 * MIB, 4 * MIB, 4 * MIB, 4 * MIB, 4 * MIB, 4 * MIB, 4 * MIB }, true, 1, 0, 0 },
		{ "not traced: dips counted, none at a burst", { 10, 100, 60, 100, 100, 100, 100, 1 },
		  { 0 }, false, 1, 0, 0 },
		{ "exactly 70 percent is not a dip", { 10, 100, 70, 100, 100, 100, 100, 1 }, { 0 }, true, 0, 0, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct burst_run run = { .tps = cases[i].tps, .write_bytes = cases[i].traced ? cases[i].w : NULL,
					 .nsecs = 8 };
		struct burst_result r;

		CU_ASSERT_EQUAL_FATAL(burst_analyse(&run, 1, &r), 0);
		if (r.ndips != cases[i].dips || r.dips_burst != cases[i].at_burst ||
		    r.nburst_secs != cases[i].bursts || r.nsecs != 6)
			cu_fail("%s: %zu dips, %zu at a burst, %zu burst seconds, %zu seconds; want %zu, %zu, %zu, 6",
				cases[i].what, r.ndips, r.dips_burst, r.nburst_secs, r.nsecs, cases[i].dips,
				cases[i].at_burst, cases[i].bursts);
		if (r.ntraced_secs != (cases[i].traced ? 6u : 0u) || r.nckpt_secs_known)
			cu_fail("%s: %zu traced seconds, %zu with checkpoint samples", cases[i].what, r.ntraced_secs,
				r.nckpt_secs_known);
	}
}

/* Two runs pool their seconds; a run of two rows has no counted second. */
static void test_runs_pool(void)
{
	double a[5] = { 1, 100, 40, 100, 1 }, b[5] = { 1, 200, 200, 200, 1 }, c[2] = { 5, 5 };
	struct burst_run runs[3] = { { .tps = a, .nsecs = 5 }, { .tps = b, .nsecs = 5 }, { .tps = c, .nsecs = 2 } };
	struct burst_result r;

	CU_ASSERT_EQUAL_FATAL(burst_analyse(runs, 3, &r), 0);
	CU_CHECK(r.nruns == 3 && r.nsecs == 6 && r.ndips == 1, "%zu runs, %zu seconds, %zu dips", r.nruns, r.nsecs,
		 r.ndips);
	CU_CHECK(r.tps.n == 2 && r.tps.median == 150, "median of the runs' medians %g (%u)", r.tps.median, r.tps.n);
	CU_CHECK(r.tps_burst.n == 0 && r.tps_other.n == 6, "burst %u other %u", r.tps_burst.n, r.tps_other.n);
}

/* report_build: heap and index writes of a marker phase, per 100 ms from the marker; WAL is not counted. */
static void test_report_phase_ticks(void)
{
	struct dut_trace_file files[] = {
		{ 1, "pg_wal/000000010000000000000001", { .cls = DUT_PG_WAL, .timeline = 1, .wal_segno = 1 } },
		{ 2, "base/5/16384", { .cls = DUT_PG_REL, .fork = DUT_PG_FORK_MAIN, .db_oid = 5,
				       .tablespace_oid = 1663, .relfilenode = 16384 } },
	};
	struct dut_trace_rec recs[] = {
		{ .ts_ns = 1 * NS, .len = 8192, .result = 8192, .file_id = 2, .op = DUT_OP_WRITE },      /* before */
		{ .ts_ns = 10 * NS + 50, .len = 8192, .result = 8192, .file_id = 2, .op = DUT_OP_WRITE },
		{ .ts_ns = 10 * NS + 250000000, .len = 8192, .result = 8192, .file_id = 1, .op = DUT_OP_WRITE },
		{ .ts_ns = 12 * NS + 150000000, .len = 65536, .result = 65536, .file_id = 2, .op = DUT_OP_WRITE },
		{ .ts_ns = 12 * NS + 160000000, .len = 8192, .result = 8192, .file_id = 2, .op = DUT_OP_READ },
	};
	struct dut_trace_marker mk[] = { { 10 * NS, (char *)"read-write" } };
	struct dut_trace t = { .files = files, .nfiles = 2, .recs = recs, .nrecs = 5, .markers = mk, .nmarkers = 1 };
	_cleanup_(report_freep) struct report *rep = NULL;
	const struct rep_phase *ph = NULL;

	CU_ASSERT_EQUAL_FATAL(report_build(&t, NULL, &rep), 0);
	for (size_t i = 0; i < rep->nphases; i++)
		if (strcmp(rep->phases[i].name, "read-write") == 0)
			ph = &rep->phases[i];
	CU_ASSERT_PTR_NOT_NULL_FATAL(ph);
	CU_ASSERT_FATAL(ph->ndata_ticks > 21);
	CU_CHECK(ph->data_write_ticks[0] == 8192, "tick 0: %llu", (unsigned long long)ph->data_write_ticks[0]);
	CU_CHECK(ph->data_write_ticks[2] == 0, "tick 2 (WAL only): %llu", (unsigned long long)ph->data_write_ticks[2]);
	CU_CHECK(ph->data_write_ticks[21] == 65536, "tick 21: %llu", (unsigned long long)ph->data_write_ticks[21]);
	CU_CHECK(rep->phases[0].data_write_ticks == NULL, "the whole trace keeps no series");
}

static const struct cu_test tests[] = {
	{ "rebin_offsets", test_rebin_offsets },
	{ "dips_against_bursts_and_checkpoints", test_dips_against_bursts_and_checkpoints },
	{ "table_of_runs", test_table_of_runs },
	{ "runs_pool", test_runs_pool },
	{ "report_phase_ticks", test_report_phase_ticks },
	{ NULL, NULL },
};
const struct cu_suite cu_suite = { .name = "report_bursts", .tests = tests };
