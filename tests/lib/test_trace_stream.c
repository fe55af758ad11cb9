/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The streaming reader's merge (lib/trace_stream_merge.c) on traces built
 * here frame by frame, so each case has the runs it is about: many runs at
 * once, equal times across runs (file order decides), a run that ends while
 * others go on, a stretch of one run that ends exactly at the runner-up's
 * key, runs that end and new ones that start as later blocks are split.
 * Each trace is checked as 1.1 (records read in place) and as 2.0 (compact
 * frames decoded into arrays, and with no decoded arrays at all): the
 * stream must give the records in the stable sort's order by time.  A
 * record's lat_ns is its index in the file, so the expected order is the
 * indices sorted by (ts, index).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lib/trace.h"
#include "lib/trace_format.h"
#include "lib/trace_stream_tune.h"
#include "tests/cu_main.h"
#include "tests/lib/trace_build.h"

/* A case: frames of times, in file order (a 0 ends each frame's list). */
#define MAXF 8
#define MAXR 12
struct mcase {
	const char *name;
	uint64_t ts[MAXF][MAXR];
};

static const uint64_t *g_ts;  /* for cmp_idx: the times by file index */

static int cmp_idx(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	if (g_ts[x] != g_ts[y])
		return g_ts[x] < g_ts[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

enum mode { M_FIXED, M_DECODED, M_CODED };
static const char *const mode_name[] = { "1.1", "2.0 decoded", "2.0 coded" };

/*
 * Stream buf and check its records against the stable sort of ts[] (the
 * times by file index): the order (lat_ns is the index) and every field.
 */
static void check_stream(const char *name, enum mode m, const uint8_t *buf, size_t len,
			 const uint64_t *ts, size_t n)
{
	struct dut_error err = { { 0 } };
	struct dut_trace_stream *s = NULL;
	uint64_t *want = malloc((n ? n : 1) * sizeof(*want));
	const struct dut_trace_rec *v;
	size_t k, got = 0;
	bool bad = false;

	CU_ASSERT_PTR_NOT_NULL_FATAL(want);
	for (size_t i = 0; i < n; i++)
		want[i] = i;
	g_ts = ts;
	qsort(want, n, sizeof(*want), cmp_idx);
	CU_ASSERT_EQUAL_FATAL(dut_trace_stream_open_buf(buf, len, &s, &err), 0);
	if (m == M_CODED)
		dut_trace_stream_set_decoded_cap(s, 0);
	while (!bad && dut_trace_stream_next(s, &v, &k) == 0 && k) {
		for (size_t i = 0; i < k && !bad; i++, got++) {
			struct dut_trace_rec x;

			if (got >= n) {
				cu_fail("%s (%s): more records than the %zu written", name, mode_name[m], n);
				bad = true;
				break;
			}
			x = rec_of(ts[want[got]], want[got]);
			if (memcmp(&x, &v[i], sizeof(x)) != 0) {
				cu_fail("%s (%s): record %zu is #%llu at %llu, expected #%llu at %llu", name,
					mode_name[m], got, (unsigned long long)v[i].lat_ns,
					(unsigned long long)v[i].ts_ns, (unsigned long long)want[got],
					(unsigned long long)ts[want[got]]);
				bad = true;
			}
		}
	}
	if (!bad && got != n)
		cu_fail("%s (%s): %zu records, %zu written", name, mode_name[m], got, n);
	dut_trace_stream_close(s);
	free(want);
}

/* Build frames (nf of them, frame f has nr[f] times in ts + off[f]) in each mode and check. */
static void check_frames(const char *name, const uint64_t *ts, size_t nf, const size_t *nr)
{
	size_t n = 0;

	for (size_t f = 0; f < nf; f++)
		n += nr[f];
	for (enum mode m = M_FIXED; m <= M_CODED; m++) {
		struct tbuf b = { 0 };
		uint64_t idx = 0;
		size_t at = 0;

		put_header(&b, m != M_FIXED);
		for (size_t f = 0; f < nf; f++) {
			put_frame(&b, m != M_FIXED, ts + at, nr[f], &idx);
			at += nr[f];
		}
		put_footer(&b, n);
		check_stream(name, m, b.p, b.len, ts, n);
		free(b.p);
	}
}

static void check_cases(const struct mcase *cases, size_t ncases)
{
	for (size_t c = 0; c < ncases; c++) {
		uint64_t ts[MAXF * MAXR];
		size_t nr[MAXF], nf = 0, n = 0;

		for (size_t f = 0; f < MAXF && cases[c].ts[f][0]; f++, nf++) {
			nr[f] = 0;
			for (size_t i = 0; i < MAXR && cases[c].ts[f][i]; i++, nr[f]++)
				ts[n++] = cases[c].ts[f][i];
		}
		check_frames(cases[c].name, ts, nf, nr);
	}
}

static void test_equal_times_across_runs_go_in_file_order(void)
{
	static const struct mcase cases[] = {
		{ "three runs, all records at one time", { { 5, 5, 5 }, { 5, 5 }, { 5, 5, 5, 5 } } },
		{ "pairs of equal times", { { 5, 5, 7, 7, 9 }, { 5, 7, 7, 9, 9 }, { 4, 5, 7, 10 } } },
		{ "a later frame's times equal an earlier one's", { { 1, 3, 5, 7 }, { 2, 3, 6, 7 }, { 3, 7 } } },
		{ "equal times where time goes down in a frame", { { 4, 6, 2, 6 }, { 2, 4, 6, 6 } } },
	};

	check_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

static void test_stretch_ends_exactly_at_the_runner_up(void)
{
	static const struct mcase cases[] = {
		/* the second run's 30 has the larger offset: the first emits its 30 first */
		{ "runner-up's time, later in the file", { { 10, 20, 30, 40 }, { 30, 31 } } },
		/* the first run's 30 is later in the file: its stretch stops before it */
		{ "runner-up's time, earlier in the file", { { 30, 31 }, { 10, 20, 30, 40 } } },
		{ "a long stretch up to the runner-up", { { 1, 2, 3, 4, 5, 6, 7, 8, 9, 50 }, { 9, 10 }, { 50 } } },
		{ "stretches alternate at one time", { { 1, 1, 2, 2 }, { 1, 1, 2, 2 } } },
		{ "one record per stretch", { { 1, 3, 5, 7, 9 }, { 2, 4, 6, 8, 10 } } },
	};

	check_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

static void test_run_that_ends_leaves_the_others(void)
{
	static const struct mcase cases[] = {
		{ "the first run ends first", { { 1, 2 }, { 1, 3, 5, 7, 9, 11 }, { 2, 4, 6 } } },
		{ "the winner ends while the runner-up waits", { { 1, 2, 3 }, { 10, 11 }, { 12 } } },
		{ "runs end one after another", { { 1 }, { 1, 2 }, { 1, 2, 3 }, { 1, 2, 3, 4 } } },
		{ "a run of one record", { { 7 }, { 1, 9 } } },
		{ "a single run", { { 3, 4, 4, 5 } } },
		/* segments of one frame chain into runs; the chains end at different times */
		{ "time goes down inside frames", { { 5, 6, 1, 2, 9, 3 }, { 4, 8, 2, 10 } } },
	};

	check_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

static uint64_t lcg(uint64_t *x)
{
	*x = *x * 6364136223846793005ull + 1442695040888963407ull;
	return *x >> 33;
}

/*
 * Many runs at once (up to 70 threads' frames interleaved in time, so the
 * tree grows past 64 leaves), and over several 2 MiB blocks, so runs end
 * when the merge catches up with the blocks split and new ones start in
 * later blocks (the tree is rebuilt with fewer or more leaves).
 */
static void test_many_runs_over_many_blocks(void)
{
	static const unsigned threads[] = { 70, 3, 1, 33, 8, 64, 2 };
	size_t cap = 600000, n = 0, nf = 0;
	uint64_t *ts = malloc(cap * sizeof(*ts)), x = 42, base = 1000;
	size_t *nr = malloc(cap * sizeof(*nr));

	CU_ASSERT_PTR_NOT_NULL_FATAL(ts);
	CU_ASSERT_PTR_NOT_NULL_FATAL(nr);
	for (size_t phase = 0; phase < sizeof(threads) / sizeof(threads[0]); phase++) {
		unsigned nt = threads[phase];

		for (unsigned round = 0; round < 4000 / nt + 2; round++) {
			/* each thread's frame: times within the round, interleaved with the others' */
			for (unsigned t = 0; t < nt; t++) {
				size_t k = 5 + lcg(&x) % 20;
				uint64_t at = base + lcg(&x) % 50;

				for (size_t i = 0; i < k && n < cap; i++) {
					ts[n++] = at;
					at += lcg(&x) % 4 == 0 ? 0 : lcg(&x) % 100; /* some equal times */
					if (lcg(&x) % 97 == 0)
						at -= at - base > 30 ? 30 : 0; /* time goes down inside a frame */
				}
				nr[nf++] = k;
			}
			base += 1000;
		}
	}
	CU_ASSERT_FATAL(n < cap);
	CU_ASSERT(n * DUT_TRACE_REC_SIZE > 3 * DUT_TRACE_BLOCK_SIZE);
	check_frames("many runs over many blocks", ts, nf, nr);
	free(ts);
	free(nr);
}

/* The hooks' calls after the scan: [off, off + len) ranges, in call order. */
struct hook_log {
	bool on;
	size_t nrel, npf;
	uint64_t rel[4096][2], pf[4096][2];
};

static void log_release(void *ctx, size_t off, size_t len)
{
	struct hook_log *l = ctx;

	if (l->on && l->nrel < DUT_ARRAY_SIZE(l->rel)) {
		l->rel[l->nrel][0] = off;
		l->rel[l->nrel++][1] = off + len;
	}
}

static void log_prefault(void *ctx, size_t off, size_t len)
{
	struct hook_log *l = ctx;

	if (l->on && l->npf < DUT_ARRAY_SIZE(l->pf)) {
		l->pf[l->npf][0] = off;
		l->pf[l->npf++][1] = off + len;
	}
}

static int cmp_range(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/*
 * The merge hands every block back once, in runs of at least
 * DUT_TRACE_RELEASE_BATCH bytes (one madvise each, not one per block), and
 * asks for each block's pages to be mapped in before it reads them, in
 * runs as long.
 */
static void test_pages_go_back_and_come_in_by_the_run(void)
{
	static struct hook_log lg;
	struct dut_trace_stream_hooks hooks = { .release = log_release, .prefault = log_prefault, .ctx = &lg };
	struct dut_error err = { { 0 } };
	struct dut_trace_stream *s = NULL;
	const struct dut_trace_rec *v;
	struct tbuf b = { 0 };
	uint64_t idx = 0, ts[64], first, end, covered;
	size_t n = 0, k, nbatch = 0;

	memset(&lg, 0, sizeof(lg));
	put_header(&b, false);
	first = b.len;
	/* 4 threads' frames of 64 records per round, their times interleaved */
	while (b.len < 12 * DUT_TRACE_RELEASE_BATCH + 1000) {
		for (unsigned t = 0; t < 4; t++) {
			for (size_t i = 0; i < 64; i++)
				ts[i] = 1000 + (idx / 256) * 1000 + i * 4 + t;
			put_frame(&b, false, ts, 64, &idx);
		}
	}
	end = b.len;
	put_footer(&b, idx);
	CU_ASSERT_EQUAL_FATAL(dut_trace_stream_new(b.p, b.len, &hooks, &s, &err), 0);
	lg.on = true;
	while (dut_trace_stream_next(s, &v, &k) == 0 && k)
		n += k;
	CU_ASSERT_EQUAL(n, idx);
	/* released: [first, end) exactly once, the runs all long but for the last */
	qsort(lg.rel, lg.nrel, sizeof(lg.rel[0]), cmp_range);
	covered = first;
	for (size_t i = 0; i < lg.nrel; i++) {
		CU_CHECK(lg.rel[i][0] == covered, "release %zu starts at %" PRIu64 ", expected %" PRIu64, i,
			 lg.rel[i][0], covered);
		covered = lg.rel[i][1];
		nbatch += lg.rel[i][1] - lg.rel[i][0] >= DUT_TRACE_RELEASE_BATCH;
	}
	CU_CHECK(covered >= end, "released up to %" PRIu64 " of %" PRIu64, covered, end);
	CU_CHECK(lg.nrel >= 2 && nbatch >= lg.nrel - 1, "%zu releases, %zu of them of a whole run", lg.nrel,
		 nbatch);
	/* prefaulted: every block's bytes, in about one call per run */
	qsort(lg.pf, lg.npf, sizeof(lg.pf[0]), cmp_range);
	covered = first;
	for (size_t i = 0; i < lg.npf; i++) {
		CU_CHECK(lg.pf[i][0] <= covered, "a hole before prefault %zu at %" PRIu64, i, lg.pf[i][0]);
		if (lg.pf[i][1] > covered)
			covered = lg.pf[i][1];
	}
	CU_CHECK(covered >= end, "mapped in up to %" PRIu64 " of %" PRIu64, covered, end);
	CU_CHECK(lg.npf <= (end - first) / DUT_TRACE_RELEASE_BATCH + 1, "%zu prefault calls for %" PRIu64 " bytes",
		 lg.npf, end - first);
	dut_trace_stream_close(s);
	free(b.p);
}

static const struct cu_test tests[] = {
	{ "equal_times_across_runs_go_in_file_order", test_equal_times_across_runs_go_in_file_order },
	{ "stretch_ends_exactly_at_the_runner_up", test_stretch_ends_exactly_at_the_runner_up },
	{ "run_that_ends_leaves_the_others", test_run_that_ends_leaves_the_others },
	{ "many_runs_over_many_blocks", test_many_runs_over_many_blocks },
	{ "pages_go_back_and_come_in_by_the_run", test_pages_go_back_and_come_in_by_the_run },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "trace_stream", .tests = tests };
