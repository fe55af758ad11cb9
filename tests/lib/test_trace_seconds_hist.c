/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The side file's latency histograms (format 2): the column's encoding
 * round-trips every bucket, bad columns are refused, and the histograms
 * of any run of seconds merge into exactly the histogram of their records
 * (so a phase's or the whole run's percentiles can be had after rotation).
 * Format 1 is still read, without histograms.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lib/splitmix.h"
#include "lib/trace.h"
#include "tests/cu_main.h"

DUT_DEFINE_FREEP(struct dut_trace_seconds_file *, dut_trace_seconds_file_free)
DUT_DEFINE_FREEP(struct dut_trace_seconds *, dut_trace_seconds_free)
DUT_DEFINE_FREEP(struct dut_hist *, dut_hist_free)

#define S 1000000000ull

/* Every field lib/hist's percentiles read, and the percentiles themselves. */
static void check_same_hist(const struct dut_hist *a, const struct dut_hist *b, const char *what)
{
	static const double pcts[] = { 1, 25, 50, 90, 99, 99.9, 99.99, 100 };
	unsigned diff = 0;

	for (unsigned i = 0; i < DUT_HIST_NBUCKETS; i++)
		diff += a->buckets[i] != b->buckets[i];
	CU_CHECK(diff == 0, "%s: %u buckets differ", what, diff);
	CU_CHECK(a->count == b->count && a->min == b->min && a->max == b->max && a->sum == b->sum,
		 "%s: count %" PRIu64 "/%" PRIu64 " min %" PRIu64 "/%" PRIu64 " max %" PRIu64 "/%" PRIu64
		 " sum %" PRIu64 "/%" PRIu64, what, a->count, b->count, a->min, b->min, a->max, b->max,
		 a->sum, b->sum);
	for (unsigned i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++)
		CU_CHECK(dut_hist_percentile(a, pcts[i]) == dut_hist_percentile(b, pcts[i]),
			 "%s: p%g %" PRIu64 " against %" PRIu64, what, pcts[i],
			 dut_hist_percentile(a, pcts[i]), dut_hist_percentile(b, pcts[i]));
}

/* A latency about log-normal around 20 us, now and then huge (the last bucket) or tiny (exact). */
static uint64_t some_lat(uint64_t *st)
{
	uint64_t r = dut_splitmix64(st);

	if (r % 1000 == 0)
		return UINT64_C(1) << 45;
	if (r % 1000 == 1)
		return r % 128;
	return 2000 + (dut_splitmix64(st) % 20000) * (1 + r % 8) * (1 + (r >> 8) % 3);
}

static void test_column_round_trips(void)
{
	static const struct {
		const char *name;
		uint64_t vals[4];
		size_t n;
		const char *text;
	} rows[] = {
		{ "empty", { 0 }, 0, "-" },
		{ "one zero", { 0 }, 1, "0" },
		{ "one value twice", { 100, 100 }, 2, "100:2" },
		{ "steps", { 5, 7, 7, 127 }, 4, "5,2:2,120" },
		{ "last bucket", { UINT64_MAX }, 1, "2175" },
	};
	_cleanup_free_ char *buf = malloc(DUT_TRACE_SEC_HIST_MAX);
	_cleanup_free_ struct dut_trace_sec_bucket *b = malloc(DUT_HIST_NBUCKETS * sizeof(*b));
	_cleanup_(dut_hist_freep) struct dut_hist *h = dut_hist_new(), *back = dut_hist_new();
	uint64_t st = 25;
	size_t n;

	CU_ASSERT_FATAL(buf && b && h && back);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		dut_hist_reset(h);
		for (size_t j = 0; j < rows[i].n; j++)
			dut_hist_add(h, rows[i].vals[j]);
		CU_CHECK(dut_trace_sec_hist_encode(h, buf) == strlen(rows[i].text) &&
			 strcmp(buf, rows[i].text) == 0, "%s: \"%s\", want \"%s\"", rows[i].name, buf,
			 rows[i].text);
	}
	/* 100k values over the whole range; then every bucket once (the longest column) */
	for (int round = 0; round < 2; round++) {
		dut_hist_reset(h);
		dut_hist_reset(back);
		if (round == 0) {
			for (int i = 0; i < 100000; i++)
				dut_hist_add(h, some_lat(&st));
		} else {
			for (unsigned i = 0; i < DUT_HIST_NBUCKETS; i++) {
				uint64_t lo, hi;

				dut_hist_bucket_range(i, &lo, &hi);
				dut_hist_add(h, lo);
			}
		}
		n = dut_trace_sec_hist_encode(h, buf);
		CU_ASSERT(n < DUT_TRACE_SEC_HIST_MAX);
		CU_ASSERT_EQUAL_FATAL(dut_trace_sec_hist_parse(buf, n, b, &n), 0);
		if (round == 1)
			CU_ASSERT_EQUAL(n, DUT_HIST_NBUCKETS);
		dut_trace_sec_hist_merge(back, b, n, h->min, h->max, h->sum);
		check_same_hist(back, h, round ? "every bucket" : "100k values");
	}
}

static void test_column_refuses_bad_text(void)
{
	static const char *const bad[] = {
		"", ",", "1,", ",1", "1,0", "1:0", "1:", ":1", "2176", "1,2175", "12345678901",
		"1:4294967296", "a", "1;2", "-1", "--", "1 ", " 1", "1::2", "3,-",
	};
	struct dut_trace_sec_bucket b[DUT_HIST_NBUCKETS];
	size_t n = 12345;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CU_CHECK(dut_trace_sec_hist_parse(bad[i], strlen(bad[i]), b, &n) == -EBADMSG,
			 "\"%s\" was accepted", bad[i]);
	CU_ASSERT_EQUAL(n, 12345); /* written only on success */
	CU_ASSERT_EQUAL(dut_trace_sec_hist_parse("2175:4294967295", 15, b, &n), 0);
	CU_ASSERT(n == 1 && b[0].idx == 2175 && b[0].count == UINT32_MAX);
}

/*
 * Records over 12 seconds, three classes and kinds, out of order within
 * the writer's window: the side file's histograms of any interval equal a
 * histogram fed that interval's records directly.
 */
static void test_seconds_merge_to_the_records_histogram(void)
{
	static const uint16_t ops[] = { DUT_OP_READ, DUT_OP_WRITE, DUT_OP_FSYNC, DUT_OP_FDATASYNC,
					DUT_OP_OPEN };
	static const struct { uint64_t from, to; } spans[] = { { 0, 12 }, { 2, 7 }, { 5, 6 }, { 11, 99 },
							       { 0, UINT64_MAX } };
	_cleanup_(dut_trace_seconds_freep) struct dut_trace_seconds *a = NULL;
	_cleanup_(dut_trace_seconds_file_freep) struct dut_trace_seconds_file *f = NULL;
	_cleanup_(dut_hist_freep) struct dut_hist *want = dut_hist_new(), *got = dut_hist_new();
	struct dut_error err = { { 0 } };
	_cleanup_free_ struct dut_trace_rec *recs = calloc(30000, sizeof(*recs));
	_cleanup_free_ char *all = NULL;
	char *text = NULL;
	const uint64_t t0 = 7 * S;
	uint64_t st = 9;
	size_t len = 0;

	CU_ASSERT_FATAL(want && got && recs);
	CU_ASSERT_EQUAL_FATAL(dut_trace_seconds_new(1, t0, &a), 0);
	for (uint32_t id = 1; id <= 3; id++)
		CU_ASSERT_EQUAL(dut_trace_seconds_file_class(a, id, id == 1 ? DUT_PG_REL : id == 2 ?
							      DUT_PG_WAL : DUT_PG_XACT), 0);
	for (size_t i = 0; i < 30000; i++) {
		uint64_t r = dut_splitmix64(&st);
		/* up to 1.5 s behind the newest: inside the 4 open seconds */
		uint64_t at = i * (12 * S / 30000), back = r % (3 * S / 2);

		recs[i] = (struct dut_trace_rec){ .ts_ns = t0 + (at > back ? at - back : 0),
			.op = ops[r % 5], .file_id = 1 + (uint32_t)(r >> 8) % 3, .result = 8192,
			.len = 8192, .lat_ns = some_lat(&st) };
		CU_ASSERT_EQUAL(dut_trace_seconds_add(a, &recs[i]), 0);
		if (i % 5000 == 4999 || i == 29999) {
			CU_ASSERT_EQUAL_FATAL(dut_trace_seconds_take(a, i == 29999, &text), 0);
			all = realloc(all, len + strlen(text) + 1);
			CU_ASSERT_PTR_NOT_NULL_FATAL(all);
			strcpy(all + len, text);
			len += strlen(text);
			free(text);
		}
	}
	CU_ASSERT(strncmp(all, "# dutlab trace seconds 2\n", 25) == 0);
	CU_ASSERT_EQUAL_FATAL(dut_trace_seconds_parse(all, len, &f, &err), 0);
	CU_ASSERT(f->has_hist && f->version == 2 && f->complete && f->late == 0);
	for (size_t s = 0; s < sizeof(spans) / sizeof(spans[0]); s++) {
		for (unsigned k = 0; k < DUT_SEC_KINDS; k++) {
			char what[64];

			dut_hist_reset(want);
			dut_hist_reset(got);
			for (size_t i = 0; i < 30000; i++) {
				uint64_t sec = (recs[i].ts_ns - t0) / S;

				if (dut_trace_sec_kind_of(recs[i].op) == k && sec >= spans[s].from &&
				    sec < spans[s].to)
					dut_hist_add(want, recs[i].lat_ns);
			}
			CU_ASSERT_EQUAL(dut_trace_seconds_file_hist(f, k, spans[s].from, spans[s].to, got), 0);
			snprintf(what, sizeof(what), "seconds %" PRIu64 "..%" PRIu64 " %s", spans[s].from,
				 spans[s].to, dut_trace_sec_kind_name(k));
			check_same_hist(got, want, what);
			if (spans[s].to > 12)
				CU_CHECK(want->count > 0, "%s: no records", what);
		}
	}
}

/* A hand-written format-2 file: its class rows, its all rows and the checks. */
static const char v2_file[] =
	"# dutlab trace seconds 2\n"
	"# start_realtime_ns=5 start_monotonic_ns=0\n"
	"sec\tclass\tkind\tops\tbytes\terrors\tp50_ns\tp90_ns\tp99_ns\tp999_ns\tmax_ns\tmin_ns\tsum_ns\thist\n"
	"0\trel\tread\t3\t24576\t0\t100\t200\t200\t200\t200\t100\t400\t100:2,100\n"
	"0\tall\tread\t3\t24576\t0\t100\t200\t200\t200\t200\t100\t400\t100:2,100\n"
	"1\tall\tread\t1\t8192\t0\t50\t50\t50\t50\t50\t50\t50\t50\n"
	"# end\tseconds=2\tlate=0\trecords=4\n";

static void test_formats_read_and_refused(void)
{
	_cleanup_(dut_trace_seconds_file_freep) struct dut_trace_seconds_file *f = NULL;
	_cleanup_(dut_hist_freep) struct dut_hist *h = dut_hist_new();
	struct dut_error err = { { 0 } };
	char buf[1024];
	static const char v1_file[] =
		"# dutlab trace seconds 1\n"
		"# start_realtime_ns=5 start_monotonic_ns=0\n"
		"0\tall\tread\t3\t24576\t0\t100\t200\t200\t200\t200\n"
		"# end\tseconds=1\tlate=0\trecords=3\n";
	static const struct { const char *from, *to, *why; } breaks[] = {
		{ "100:2,100\n", "100:2,101:2\n", "the class row's counts are not its ops" },
		{ "\t50\t50\n", "\t50\t-\n", "an empty histogram with one op" },
		{ "\t50\t50\n", "\t50\n", "no histogram column" },
		{ "\t50\t50\n", "\t50\t50\t7\n", "a column too many" },
		{ "\t50\t50\n", "\t50\t1x\n", "a histogram that is not one" },
	};

	CU_ASSERT_FATAL(h != NULL);
	CU_ASSERT_EQUAL_FATAL(dut_trace_seconds_parse(v2_file, strlen(v2_file), &f, &err), 0);
	CU_ASSERT(f->version == 2 && f->has_hist && f->nrows == 2 && f->records == 4);
	CU_ASSERT_EQUAL(dut_trace_seconds_file_hist(f, DUT_SEC_READ, 0, 2, h), 0);
	CU_ASSERT(h->count == 4 && h->min == 50 && h->max == 200 && h->sum == 450);
	CU_ASSERT_EQUAL(dut_hist_percentile(h, 50), 100);
	dut_trace_seconds_file_free(f);
	f = NULL;

	/* format 1: read as before, without histograms */
	CU_ASSERT_EQUAL_FATAL(dut_trace_seconds_parse(v1_file, strlen(v1_file), &f, &err), 0);
	CU_ASSERT(f->version == 1 && !f->has_hist && f->nrows == 1 && f->rows[0].k[0].p99_ns == 200);
	CU_ASSERT_EQUAL(dut_trace_seconds_file_hist(f, DUT_SEC_READ, 0, 1, h), -ENODATA);
	dut_trace_seconds_file_free(f);
	f = NULL;

	/* a later format: refused, saying so */
	CU_ASSERT_EQUAL(dut_trace_seconds_parse("# dutlab trace seconds 3\n", 25, &f, &err), -EBADMSG);
	CU_ASSERT(strstr(err.msg, "newer than this dutlab") != NULL);

	for (size_t i = 0; i < sizeof(breaks) / sizeof(breaks[0]); i++) {
		const char *at = strstr(v2_file, breaks[i].from);
		size_t pre = (size_t)(at - v2_file);

		snprintf(buf, sizeof(buf), "%.*s%s%s", (int)pre, v2_file, breaks[i].to,
			 at + strlen(breaks[i].from));
		CU_CHECK(dut_trace_seconds_parse(buf, strlen(buf), &f, &err) == -EBADMSG, "%s: accepted",
			 breaks[i].why);
		dut_trace_seconds_file_free(f);
		f = NULL;
	}
}

static const struct cu_test tests[] = {
	{ "column_round_trips", test_column_round_trips },
	{ "column_refuses_bad_text", test_column_refuses_bad_text },
	{ "seconds_merge_to_the_records_histogram", test_seconds_merge_to_the_records_histogram },
	{ "formats_read_and_refused", test_formats_read_and_refused },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "trace_seconds_hist", .tests = tests };
