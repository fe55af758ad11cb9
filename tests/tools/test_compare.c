/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of dutlab compare (tools/compare*.c) on the result documents in
 * tests/tools/fixtures/compare/: the hand-made h-*.json (three queries with
 * round times, so every expected value below is checked by hand), the real
 * pgload dss documents dss-*.json (SF 0.01, plan text trimmed), and OLTP
 * and dutprobe documents for the generic comparison.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/result.h"
#include "tests/cu_main.h"
#include "tools/compare/compare.h"

#define MAXF 4

/* Read the fixtures and compare them; the documents are freed by put_docs(). */
static int run_compare(const char *const *files, size_t n, size_t baseline, bool force,
		       struct dut_result **docs, struct cmp **ret, struct dut_error *err)
{
	struct cmp_input in[MAXF] = { { { 0 } } };
	struct cmp_opts o = { .baseline = baseline, .force = force };
	char path[512];

	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/tests/tools/fixtures/compare/%s", cu_source_root(), files[i]);
		if (dut_result_read_file(path, &docs[i], err) < 0)
			return -EIO;
		in[i] = (struct cmp_input){ .source = files[i], .docs = &docs[i], .ndocs = 1 };
	}
	return cmp_build(in, n, &o, ret, err);
}

static void put_docs(struct dut_result **docs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dut_result_free(docs[i]);
}

static bool near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(1.0, fabs(b));
}

/*
 * m-time and m-score on the fixtures.  Times (s) and plan fingerprints:
 *   h-base     Q1 1 aaaa   Q2 2 bbbb   Q3 4 cccc
 *   h-same     Q1 2 aaaa   Q2 2 bbbb   Q3 8 cccc
 *   h-diff     Q1 1.5 aaaa Q2 3 dddd   Q3 6 cccc
 *   h-none     Q1 1 a222   Q2 2 b222   Q3 4 c222
 *   h-reps     Q1 {1,3,2}  Q2 {2,2,10} Q3 {8,4,6} (3 repetitions, same plans as h-base)
 *   h-unstable Q1 {1,1}    Q2 {2,2} bbbb then eeee   Q3 {4,4}
 *   h-timeout  Q1 1        Q2 2        Q3 timed out
 */
struct mtime_case {
	const char *name;
	const char *files[MAXF];
	size_t n, baseline;
	bool force;
	unsigned qualifying;     /* 0: m-time undefined */
	double m_time[MAXF], m_score[MAXF], total[MAXF];
	unsigned nok[MAXF];
	const char *explanation; /* a substring */
};

static const struct mtime_case mtime_cases[] = {
	/* A: 1+2+4 = 7, (1*2*4)^(1/3) = 8^(1/3) = 2.
	 * B: 2+2+8 = 12, (2*2*8)^(1/3) = 32^(1/3) = 3.1748021039363987 */
	{ "all plans equal", { "h-base.json", "h-same.json" }, 2, 0, false, 3,
	  { 7, 12 }, { 2, 3.1748021039363987 }, { 7, 12 }, { 3, 3 },
	  "every query kept its plan in every result: 3 of 3 queries are compared" },
	/* Q2 changed plan: A 1+4 = 5, sqrt(1*4) = 2; B 1.5+6 = 7.5, sqrt(1.5*6) = 3.
	 * Plain totals: A 7; B 1.5+3+6 = 10.5. */
	{ "some plans differ", { "h-base.json", "h-diff.json" }, 2, 0, false, 2,
	  { 5, 7.5 }, { 2, 3 }, { 7, 10.5 }, { 3, 3 },
	  "plans changed for Q2 in config B, so those are out of m-time; 2 of 3 queries are compared" },
	/* Same with B as the baseline: the marks move, the qualifying set does not. */
	{ "baseline 2", { "h-base.json", "h-diff.json" }, 2, 1, false, 2,
	  { 5, 7.5 }, { 2, 3 }, { 7, 10.5 }, { 3, 3 },
	  "plans changed for Q2 in config A" },
	/* Three results: Q2 out (h-diff); h-same over Q1, Q3: 2+8 = 10, sqrt(16) = 4. */
	{ "three results", { "h-base.json", "h-same.json", "h-diff.json" }, 3, 0, false, 2,
	  { 5, 10, 7.5 }, { 2, 4, 3 }, { 7, 12, 10.5 }, { 3, 3, 3 },
	  "plans changed for Q2 in config C, so those are out of m-time; 2 of 3 queries are compared" },
	/* No query qualifies: m-time undefined; the plain totals remain (7, geomean 2). */
	{ "none qualify", { "h-base.json", "h-none.json" }, 2, 0, false, 0,
	  { 0, 0 }, { 0, 0 }, { 7, 7 }, { 3, 3 },
	  "plans changed for Q1, Q2, Q3 in config B, so no query is compared: m-time and m-score are undefined" },
	/* Medians of the repetitions: Q1 2, Q2 2, Q3 6 -> 10; (2*2*6)^(1/3) = 24^(1/3)
	 * = 2.8844991406148166. */
	{ "repetitions use medians", { "h-base.json", "h-reps.json" }, 2, 0, false, 3,
	  { 7, 10 }, { 2, 2.8844991406148166 }, { 7, 10 }, { 3, 3 }, "3 of 3 queries are compared" },
	/* Q2's plan changed between B's repetitions: Q1 + Q3 = 5 in both, sqrt(4) = 2. */
	{ "plan varies within a result", { "h-base.json", "h-unstable.json" }, 2, 0, false, 2,
	  { 5, 5 }, { 2, 2 }, { 7, 7 }, { 3, 3 },
	  "plans varied between repetitions for Q2 in config B, so those are out of m-time" },
	/* Q3 timed out in B: out of m-time (1+2 = 3, sqrt(2)) and of B's plain total (3, 2 queries). */
	{ "timeout", { "h-base.json", "h-timeout.json" }, 2, 0, false, 2,
	  { 3, 3 }, { 1.4142135623730951, 1.4142135623730951 }, { 7, 3 }, { 3, 2 },
	  "timeouts or failures for Q3 in config B" },
	/* Different query set, forced: Q3 not run in B. */
	{ "query set forced", { "h-base.json", "h-qset.json" }, 2, 0, true, 2,
	  { 3, 3 }, { 1.4142135623730951, 1.4142135623730951 }, { 7, 3 }, { 3, 2 },
	  "no runs for Q3 in config B" },
	/* No queries phase anywhere. */
	{ "no queries phase", { "h-noqueries.json", "h-noqueries.json" }, 2, 0, false, 0,
	  { 0, 0 }, { 0, 0 }, { 0, 0 }, { 0, 0 },
	  "no result has a queries phase, so m-time and m-score are undefined" },
	/*
	 * Real pgload dss documents at SF 0.01 (A: default, 3 repetitions; C:
	 * lineitem_shipdate_idx dropped, 2 repetitions).  Dropping the index
	 * changed the plans of Q6, Q14, Q15.  The sums of the medians of the
	 * other 19 queries, computed independently with jq, are 650022162 ns and
	 * 1388442415.5 ns; geometric means 19706224.3015563 and 40648087.749248 ns.
	 */
	{ "real: index dropped", { "dss-a-default.json", "dss-c-no-shipdate-idx.json" }, 2, 0, false, 19,
	  { 0.650022162, 1.3884424155 }, { 0.0197062243015563, 0.040648087749248 },
	  { NAN, NAN }, { 22, 22 },
	  "plans changed for Q6, Q14, Q15 in config B, so those are out of m-time; 19 of 22 queries are compared" },
	/* random_page_cost=50 and enable_hashjoin=off changed every plan but Q1, Q6 and Q22;
	 * dropping the index changed Q6: 2 queries are left. */
	{ "real: three configs", { "dss-a-default.json", "dss-b-rpc50-nohash.json", "dss-c-no-shipdate-idx.json" },
	  3, 0, false, 2, { NAN, NAN, NAN }, { NAN, NAN, NAN }, { NAN, NAN, NAN }, { 22, 22, 22 },
	  "in config B and for Q6, Q14, Q15 in config C, so those are out of m-time; 2 of 22 queries are compared" },
};

static void test_mtime(void)
{
	for (size_t k = 0; k < DUT_ARRAY_SIZE(mtime_cases); k++) {
		const struct mtime_case *t = &mtime_cases[k];
		struct dut_result *docs[MAXF] = { 0 };
		struct dut_error err = { { 0 } };
		struct cmp *c = NULL;
		int r = run_compare(t->files, t->n, t->baseline, t->force, docs, &c, &err);

		CU_CHECK(r == 0, "%s: cmp_build: %d %s", t->name, r, err.msg);
		if (r == 0) {
			CU_CHECK(c->kind == CMP_DSS, "%s: kind %s", t->name, c->kind_name);
			CU_CHECK(c->nqualifying == t->qualifying, "%s: %u qualifying, expected %u",
				 t->name, c->nqualifying, t->qualifying);
			CU_CHECK(strstr(c->explanation, t->explanation) != NULL,
				 "%s: explanation \"%s\" lacks \"%s\"", t->name, c->explanation, t->explanation);
			for (size_t i = 0; i < t->n; i++) {
				const struct cmp_dss_sum *s = &c->sum[i];

				CU_CHECK(s->m_defined == (t->qualifying > 0), "%s[%zu]: m_defined %d",
					 t->name, i, s->m_defined);
				if (t->qualifying && !isnan(t->m_time[i]))
					CU_CHECK(near(s->m_time_s, t->m_time[i]) && near(s->m_score_s, t->m_score[i]),
						 "%s[%zu]: m-time %.12g m-score %.12g, expected %.12g %.12g", t->name,
						 i, s->m_time_s, s->m_score_s, t->m_time[i], t->m_score[i]);
				if (!isnan(t->total[i]))
					CU_CHECK(near(s->total_s, t->total[i]), "%s[%zu]: total %.12g, expected %.12g",
						 t->name, i, s->total_s, t->total[i]);
				CU_CHECK(s->nok == t->nok[i], "%s[%zu]: %u queries in totals, expected %u",
					 t->name, i, s->nok, t->nok[i]);
			}
		}
		cmp_free(c);
		put_docs(docs, t->n);
	}
}

/* Per-query cells: the marks and the medians with their spread. */
static void test_query_cells(void)
{
	static const char *const files[] = { "h-base.json", "h-reps.json" };
	static const char *const diff[] = { "h-base.json", "h-diff.json" };
	struct dut_result *docs[MAXF] = { 0 };
	struct dut_error err = { { 0 } };
	struct cmp *c = NULL;

	CU_ASSERT_EQUAL_FATAL(run_compare(files, 2, 0, false, docs, &c, &err), 0);
	CU_ASSERT_EQUAL(c->nqueries, 3);
	/* Q2 in h-reps: {2, 2, 10}: median 2, min 2, max 10, 3 runs. */
	CU_ASSERT(near(c->queries[1].cell[1].t_s.median, 2) && near(c->queries[1].cell[1].t_s.max, 10) &&
		  near(c->queries[1].cell[1].t_s.min, 2) && c->queries[1].cell[1].t_s.n == 3);
	CU_ASSERT(!c->queries[1].cell[1].plan_differs);
	CU_ASSERT_STRING_EQUAL(c->queries[0].title, "pricing summary report");
	cmp_free(c);
	put_docs(docs, 2);

	c = NULL;
	CU_ASSERT_EQUAL_FATAL(run_compare(diff, 2, 0, false, docs, &c, &err), 0);
	CU_ASSERT(!c->queries[0].cell[1].plan_differs && c->queries[1].cell[1].plan_differs &&
		  !c->queries[1].cell[0].plan_differs);
	CU_ASSERT(c->queries[1].why == CMP_WHY_PLAN_CHANGED && c->queries[1].why_input == 1);
	/* phase times: load 10 s and 15 s (ratio 1.5); queries 7 s and 10.5 s */
	CU_ASSERT_EQUAL(c->nrows, 2);
	{
		double r = 0;
		CU_ASSERT(strcmp(c->rows[0].phase, "load") == 0 && cmp_ratio(&c->rows[0].v[1], &c->rows[0].v[0], &r) &&
			  near(r, 1.5));
		CU_ASSERT(strcmp(c->rows[1].phase, "queries") == 0 && near(c->rows[1].v[1].median, 10.5));
	}
	cmp_free(c);
	put_docs(docs, 2);
}

struct stat_case {
	double v[5];
	unsigned n;
	double median, min, max;
};

static void test_median(void)
{
	static const struct stat_case cases[] = {
		{ { 3 }, 1, 3, 3, 3 },
		{ { 4, 1 }, 2, 2.5, 1, 4 },            /* even: mean of the middle two */
		{ { 1, 3, 2 }, 3, 2, 1, 3 },
		{ { 8, 4, 6, 5 }, 4, 5.5, 4, 8 },
		{ { 2, 2, 10, 2, 9 }, 5, 2, 2, 10 },
	};

	for (size_t k = 0; k < DUT_ARRAY_SIZE(cases); k++) {
		double v[5];
		struct cmp_stat s;

		memcpy(v, cases[k].v, sizeof(v));
		s = cmp_stat_of(v, cases[k].n);
		CU_CHECK(s.n == cases[k].n && near(s.median, cases[k].median) && near(s.min, cases[k].min) &&
			 near(s.max, cases[k].max), "row %zu: median %g min %g max %g", k, s.median, s.min, s.max);
	}
	CU_ASSERT_EQUAL(cmp_stat_of(NULL, 0).n, 0);
}

/* Results that must not be compared, and what the error says. */
struct refuse_case {
	const char *name;
	const char *files[MAXF];
	size_t n, baseline;
	bool force;
	const char *error;      /* NULL: comparable */
	const char *warning;    /* with force: a substring of the first warning */
};

static const struct refuse_case refuse_cases[] = {
	{ "one result", { "h-base.json" }, 1, 0, false, "compare needs at least 2 results, got 1", NULL },
	{ "baseline out of range", { "h-base.json", "h-same.json" }, 2, 2, false, "baseline 3: there are only 2 results", NULL },
	{ "scale factor", { "h-base.json", "h-sf.json" }, 2, 0, false,
	  "scale factors differ: A (h-base.json) has SF 0.01, B (h-sf.json) has SF 0.1: times at different "
	  "scales are not comparable (use --force to compare anyway)", NULL },
	{ "scale factor forced", { "h-base.json", "h-sf.json" }, 2, 0, true, NULL,
	  "scale factors differ: A has SF 0.01, B has SF 0.1 (compared anyway: --force)" },
	{ "query set", { "h-base.json", "h-qset.json" }, 2, 0, false,
	  "query sets differ: A (h-base.json) has Q1,Q2,Q3, B (h-qset.json) has Q1,Q2", NULL },
	{ "dss with oltp", { "h-base.json", "oltp-a.json" }, 2, 0, false,
	  "cannot compare a pgload dss result (A: h-base.json) with a pgload oltp result (B: oltp-a.json)", NULL },
	{ "dss with oltp, forced", { "h-base.json", "oltp-a.json" }, 2, 0, true, "cannot compare a pgload dss result", NULL },
	{ "oltp with dutprobe", { "oltp-a.json", "probe-bench-a.json" }, 2, 0, false,
	  "cannot compare a pgload oltp result (A: oltp-a.json) with a dutprobe bench result", NULL },
};

static void test_refusals(void)
{
	for (size_t k = 0; k < DUT_ARRAY_SIZE(refuse_cases); k++) {
		const struct refuse_case *t = &refuse_cases[k];
		struct dut_result *docs[MAXF] = { 0 };
		struct dut_error err = { { 0 } };
		struct cmp *c = NULL;
		int r = run_compare(t->files, t->n, t->baseline, t->force, docs, &c, &err);

		if (t->error)
			CU_CHECK(r == -EINVAL && strstr(err.msg, t->error), "%s: %d \"%s\", expected \"%s\"",
				 t->name, r, err.msg, t->error);
		else
			CU_CHECK(r == 0 && c->nwarnings >= 1 && strstr(c->warnings[0], t->warning),
				 "%s: %d %s: expected a warning \"%s\"", t->name, r, err.msg, t->warning);
		cmp_free(c);
		put_docs(docs, t->n);
	}
}

/* A broken document: the lib reader's message names the file. */
static void test_bad_documents(void)
{
	static const struct { const char *file, *error; } cases[] = {
		{ "bad-json.json", "bad-json.json: line 3" },
		{ "not-result.json", "not-result.json: schema: expected \"dutlab-result\", found \"fio-result\"" },
		{ "no-such-file.json", "no-such-file.json: cannot open" },
	};

	for (size_t k = 0; k < DUT_ARRAY_SIZE(cases); k++) {
		const char *files[2] = { "h-base.json", cases[k].file };
		struct dut_result *docs[MAXF] = { 0 };
		struct dut_error err = { { 0 } };
		struct cmp *c = NULL;
		int r = run_compare(files, 2, 0, false, docs, &c, &err);

		CU_CHECK(r == -EIO && strstr(err.msg, cases[k].error), "%s: %d \"%s\"", cases[k].file, r, err.msg);
		cmp_free(c);
		put_docs(docs, 2);
	}
}

/* The generic comparison: every metric present in all documents, with ratios. */
struct generic_case {
	const char *files[2];
	const char *phase, *metric, *unit;
	double a, b, ratio;
};

static void test_generic(void)
{
	static const struct generic_case cases[] = {
		{ { "oltp-a.json", "oltp-b.json" }, "run", "tps", "tx/s", 1000, 1250, 1.25 },
		{ { "oltp-a.json", "oltp-b.json" }, "run", "time", "s", 10, 10, 1 },
		{ { "oltp-a.json", "oltp-b.json" }, "run", "latency txn p99", "ms", 8, 4, 0.5 },
		{ { "oltp-a.json", "oltp-b.json" }, "run", "latency txn mean", "ms", 2.5, 2, 0.8 },
		{ { "probe-bench-a.json", "probe-bench-b.json" }, "randread 4k qd1", "iops", "IO/s", 12000, 6000, 0.5 },
		{ { "probe-bench-a.json", "probe-bench-b.json" }, "randread 4k qd1", "bw", "B/s", 49152000, 24576000, 0.5 },
		{ { "probe-bench-a.json", "probe-bench-b.json" }, "randread 4k qd1", "latency io p50", "ms", 0.08, 0.08, 1 },
	};

	for (size_t k = 0; k < DUT_ARRAY_SIZE(cases); k++) {
		const struct generic_case *t = &cases[k];
		struct dut_result *docs[MAXF] = { 0 };
		struct dut_error err = { { 0 } };
		const struct cmp_row *row = NULL;
		struct cmp *c = NULL;
		double r = 0;

		CU_CHECK(run_compare(t->files, 2, 0, false, docs, &c, &err) == 0, "%s: %s", t->metric, err.msg);
		for (size_t i = 0; c && i < c->nrows; i++)
			if (strcmp(c->rows[i].phase, t->phase) == 0 && strcmp(c->rows[i].metric, t->metric) == 0)
				row = &c->rows[i];
		CU_CHECK(row && c->kind == CMP_GENERIC && strcmp(row->unit, t->unit) == 0 &&
			 near(row->v[0].median, t->a) && near(row->v[1].median, t->b) &&
			 cmp_ratio(&row->v[1], &row->v[0], &r) && near(r, t->ratio),
			 "%s/%s: row %s", t->phase, t->metric, row ? "has other values" : "missing");
		cmp_free(c);
		put_docs(docs, 2);
	}
}

/* The JSON renderer writes a readable result document with the compare phase. */
static void test_json_document(void)
{
	static const char *const files[] = { "h-base.json", "h-diff.json" };
	struct dut_result *docs[MAXF] = { 0 }, *out = NULL;
	struct dut_error err = { { 0 } };
	struct cmp *c = NULL;
	char path[] = "/tmp/test_compare.XXXXXX";
	struct dut_result_phase *ph;
	json_object *q;
	const char *unit;
	double v;
	int fd = mkstemp(path);

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	CU_ASSERT_EQUAL_FATAL(run_compare(files, 2, 0, false, docs, &c, &err), 0);
	CU_ASSERT_EQUAL(cmp_render_json.render(c, &(struct cmp_render_opts){ 0 }, NULL, path), 0);
	CU_ASSERT_EQUAL_FATAL(dut_result_read_file(path, &out, &err), 0);
	ph = dut_result_find_phase(out, "compare");
	CU_ASSERT_FATAL(ph != NULL);
	CU_ASSERT(dut_phase_get_metric(ph, "m_time_s", &v, &unit) == 0 && near(v, 5) && strcmp(unit, "s") == 0);
	CU_ASSERT(dut_phase_get_metric(ph, "m_score_s", &v, &unit) == 0 && near(v, 2));
	CU_ASSERT(json_object_object_get_ex(dut_phase_extra(ph), "qualifying_queries", &q) &&
		  json_object_array_length(q) == 2 &&
		  json_object_get_int(json_object_array_get_idx(q, 0)) == 1 &&
		  json_object_get_int(json_object_array_get_idx(q, 1)) == 3);
	ph = dut_result_find_phase(out, "config/B");
	CU_ASSERT(ph && dut_phase_get_metric(ph, "m_time_s", &v, NULL) == 0 && near(v, 7.5));
	CU_ASSERT(ph && dut_phase_get_metric(ph, "m_time_ratio", &v, NULL) == 0 && near(v, 1.5));
	CU_ASSERT(ph && dut_phase_get_metric(ph, "load/time", &v, NULL) == 0 && near(v, 15));
	dut_result_free(out);
	unlink(path);
	cmp_free(c);
	put_docs(docs, 2);
}

static const struct cu_test tests[] = {
	{ "mtime_exact_values", test_mtime },
	{ "query_cells_marks_and_spread", test_query_cells },
	{ "median_of_repetitions", test_median },
	{ "refuses_incomparable_results", test_refusals },
	{ "bad_documents_name_the_file", test_bad_documents },
	{ "generic_metrics_with_ratios", test_generic },
	{ "json_document_compare_phase", test_json_document },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "tools_compare", .tests = tests };
