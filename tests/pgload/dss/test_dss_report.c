/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The DSS result renderers: a filled struct dss_report becomes a result
 * document (lib/result.h) that parses back with one phase per DSS phase,
 * the per-step and per-query details in "extra", and a human table that
 * says TPC-H-derived and never claims a TPC-H result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lib/result.h"
#include "pgload/dss/report.h"
#include "tests/cu_main.h"

static void fill(struct dss_report *r)
{
	*r = (struct dss_report){ .sf = 0.01, .data_seed = 2, .param_seed = 7, .threads = 2,
				  .reps = 1, .stats_target = 1000, .sink = "copy" };
	snprintf(r->server_version, sizeof(r->server_version), "15.20");
	r->block_size = 16384;
	r->wal_block_size = 8192;
	r->ran[DSS_PH_LOAD] = r->ran[DSS_PH_KEYS] = r->ran[DSS_PH_QUERIES] = true;
	r->phase_ns[DSS_PH_LOAD] = 2000000000;
	r->phase_ns[DSS_PH_KEYS] = 500000000;
	r->phase_ns[DSS_PH_QUERIES] = 300000000;
	r->njobs = 2;
	r->jobs[0] = (struct dss_gen_job){ DSS_LINEITEM, 0, 15000 };
	r->jobs[1] = (struct dss_gen_job){ DSS_REGION, 0, 5 };
	r->gen.threads = 2;
	r->gen.wall_ns = 1000000000;
	r->gen.job[0] = (struct dss_gen_table_stats){ 60000, 7000000 };
	r->gen.job[1] = (struct dss_gen_table_stats){ 5, 500 };
	r->gen.thread[0] = (struct dss_gen_thread_stats){ 30000, 3500000, 2, 400000000, 300000000, 5 };
	r->gen.thread[1] = (struct dss_gen_thread_stats){ 30005, 3500500, 2, 410000000, 310000000, 6 };
	struct dss_step *s = dss_report_step(r, DSS_PH_KEYS, "lineitem_pkey", "primary key");
	s->ns = 300000000;
	s = dss_report_step(r, DSS_PH_KEYS, "orders_custkey_idx", "index");
	s->ns = 200000000;
	struct dss_query_run *q = dss_report_query(r);
	q->q = 1;
	q->rep = 1;
	q->ns = 120000000;
	q->rows = 4;
	q->fingerprint = 0x0123456789abcdefull;
	q->shape = strdup("Sort(Seq Scan{Relation Name=lineitem})");
	q->plan_json = strdup("[{\"Plan\": {\"Node Type\": \"Sort\"}}]");
	q->params.n = 1;
	snprintf(q->params.v[0], sizeof(q->params.v[0]), "90");
	q = dss_report_query(r);
	q->q = 18;
	q->rep = 1;
	q->status = DSS_TIMEOUT;
	q->ns = 180000000;
	snprintf(q->error, sizeof(q->error), "canceling statement due to statement timeout");
}

static void test_json_document_round_trip(void)
{
	struct dss_report r;
	struct dut_result *res = dut_result_new("pgload", "0.1.0"), *back = NULL;
	_cleanup_free_ char *text = NULL;
	struct dut_error err = { "" };
	double v = 0;
	const char *unit;

	fill(&r);
	CU_CHECK(res && dss_report_to_result(&r, res) == 0, "dss_report_to_result failed");
	CU_CHECK(dut_result_to_string(res, &text) == 0, "serialising failed");
	CU_CHECK(text && dut_result_parse(text, strlen(text), &back, &err) == 0, "parse: %s", err.msg);
	if (!back)
		goto out;
	CU_CHECK(dut_result_phase_count(back) == 3, "%zu phases", dut_result_phase_count(back));
	static const char *const names[] = { "load", "keys", "queries" };
	for (size_t i = 0; i < 3 && i < dut_result_phase_count(back); i++)
		CU_CHECK(strcmp(dut_phase_name(dut_result_phase_at(back, i)), names[i]) == 0,
			 "phase %zu is %s", i, dut_phase_name(dut_result_phase_at(back, i)));

	struct dut_result_phase *load = dut_result_find_phase(back, "load");
	CU_CHECK(load && dut_phase_get_metric(load, "rows", &v, &unit) == 0 && v == 60005,
		 "load rows %g", v);
	json_object *t, *x;
	CU_CHECK(load && json_object_object_get_ex(dut_phase_extra(load), "tables", &t) &&
		 json_object_object_get_ex(t, "lineitem", &x), "load extra.tables.lineitem");

	struct dut_result_phase *keys = dut_result_find_phase(back, "keys");
	CU_CHECK(keys && dut_phase_get_metric(keys, "primary_keys", &v, &unit) == 0 && v == 3e8 &&
		 strcmp(unit, "ns") == 0, "keys primary_keys %g", v);
	CU_CHECK(keys && dut_phase_get_metric(keys, "indexes", &v, &unit) == 0 && v == 2e8,
		 "keys indexes %g", v);

	struct dut_result_phase *qp = dut_result_find_phase(back, "queries");
	json_object *arr = NULL, *q0, *plan;
	CU_CHECK(qp && json_object_object_get_ex(dut_phase_extra(qp), "queries", &arr) &&
		 json_object_array_length(arr) == 2, "queries extra has 2 runs");
	if (arr && json_object_array_length(arr) == 2) {
		q0 = json_object_array_get_idx(arr, 0);
		CU_CHECK(json_object_object_get_ex(q0, "plan_fingerprint", &x) &&
			 strcmp(json_object_get_string(x), "0123456789abcdef") == 0, "fingerprint");
		CU_CHECK(json_object_object_get_ex(q0, "plan", &plan) &&
			 json_object_is_type(plan, json_type_array), "plan kept as JSON");
		CU_CHECK(json_object_object_get_ex(json_object_array_get_idx(arr, 1), "status", &x) &&
			 strcmp(json_object_get_string(x), "timeout") == 0, "Q18 status timeout");
	}
	CU_CHECK(qp && dut_phase_get_metric(qp, "queries_timeout", &v, &unit) == 0 && v == 1,
		 "queries_timeout %g", v);
	CU_CHECK(qp && dut_phase_get_metric(qp, "queries_ok", &v, &unit) == 0 && v == 1,
		 "queries_ok %g", v);
	json_object *target = json_object_object_get(dut_result_json(back), "target");
	const char *w = json_object_get_string(json_object_object_get(target, "workload"));
	CU_CHECK(w && strstr(w, "TPC-H-derived") && strstr(w, "not comparable"), "workload \"%s\"", w);
	/* the server's block sizes, as in pgbench results (#26) */
	CU_CHECK(json_object_get_int64(json_object_object_get(target, "block_size")) == 16384,
		 "target.block_size %s", json_object_get_string(json_object_object_get(target, "block_size")));
	CU_CHECK(json_object_get_int64(json_object_object_get(target, "wal_block_size")) == 8192,
		 "target.wal_block_size %s", json_object_get_string(json_object_object_get(target, "wal_block_size")));
out:
	dut_result_free(back);
	dut_result_free(res);
	dss_report_free(&r);
}

static void test_human_table(void)
{
	struct dss_report r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fill(&r);
	if (!f) {
		cu_fail("open_memstream");
		return;
	}
	dss_report_human(&r, f);
	fclose(f);
	static const char *const want[] = {
		"TPC-H-derived", "not a TPC-H result", "lineitem", "orders_custkey_idx",
		"0123456789abcdef", "pricing summary report", "timeout",
		"server: PostgreSQL 15.20, block size 16384 bytes, WAL block size 8192 bytes",
	};
	for (size_t i = 0; i < DUT_ARRAY_SIZE(want); i++)
		CU_CHECK(strstr(buf, want[i]), "human output lacks \"%s\":\n%s", want[i], buf);
	/* No sentence presents the numbers as a TPC-H result. */
	CU_CHECK(!strstr(buf, "TPC-H result:") && !strstr(buf, "QphH"), "claims TPC-H:\n%s", buf);
	free(buf);
	dss_report_free(&r);
}

/* A server that did not say its block sizes: no target.block_size, nothing made up. */
static void test_json_without_block_size(void)
{
	struct dss_report r;
	struct dut_result *res = dut_result_new("pgload", "0.1.0");
	json_object *target;

	fill(&r);
	r.block_size = r.wal_block_size = 0;
	CU_CHECK(res && dss_report_to_result(&r, res) == 0, "dss_report_to_result failed");
	target = res ? json_object_object_get(dut_result_json(res), "target") : NULL;
	CU_CHECK(target && !json_object_object_get_ex(target, "block_size", NULL) &&
		 !json_object_object_get_ex(target, "wal_block_size", NULL), "a block size without one known");
	dut_result_free(res);
	dss_report_free(&r);
}

static const struct cu_test tests[] = {
	{ "json_document_round_trip", test_json_document_round_trip },
	{ "human_table", test_human_table },
	{ "json_without_block_size", test_json_without_block_size },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "dss-report", .tests = tests };
