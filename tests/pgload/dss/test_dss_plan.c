/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Plan fingerprints from fixture EXPLAIN (FORMAT JSON) documents
 * (fixtures/: a real PostgreSQL 15 plan of Q17 at SF 0.01 and variants).
 * Same fingerprint when only costs, row estimates, widths, filter
 * constants or worker counts differ; a different one when a node type, the
 * join order or an index changes.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "pgload/dss/plan.h"
#include "tests/cu_main.h"

static char *slurp(const char *name)
{
	char path[4096];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/tests/pgload/dss/fixtures/%s", cu_source_root(), name);
	f = fopen(path, "r");
	if (!f) {
		cu_fail("cannot open fixture %s", path);
		return NULL;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Fingerprint of a fixture; 0 (and a failure) when it cannot be read. */
static uint64_t fp_of(const char *name, char **ret_canon)
{
	_cleanup_free_ char *text = slurp(name);
	struct dut_error err = { "" };
	uint64_t fp = 0;
	char *canon = NULL;
	int ret;

	if (!text)
		return 0;
	ret = dss_plan_fingerprint(text, &fp, &canon, &err);
	CU_CHECK(ret == 0, "%s: %d %s", name, ret, err.msg);
	if (ret_canon)
		*ret_canon = canon;
	else
		free(canon);
	return fp;
}

static void test_fnv1a64_known_values(void)
{
	/* Published FNV-1a 64 test vectors. */
	static const struct { const char *in; uint64_t out; } rows[] = {
		{ "", 0xcbf29ce484222325ull },
		{ "a", 0xaf63dc4c8601ec8cull },
		{ "foobar", 0x85944171f73967e8ull },
	};
	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++)
		CU_CHECK(dss_fnv1a64(rows[i].in, strlen(rows[i].in)) == rows[i].out,
			 "fnv1a64(\"%s\")", rows[i].in);
}

static void test_shape_of_real_plan(void)
{
	_cleanup_free_ char *canon = NULL;

	fp_of("plan-q17-base.json", &canon);
	if (!canon)
		return;
	/* Node types, join order, relations, index; no costs, rows or expressions. */
	static const char *const want[] = {
		"Aggregate{Strategy=Plain,Partial Mode=Simple}(Hash Join{Join Type=Inner,",
		"Seq Scan{Parent Relationship=Outer,Relation Name=lineitem,Alias=lineitem}",
		"Index Name=lineitem_partkey_suppkey_idx",
		"Subplan Name=SubPlan 1",
	};
	for (size_t i = 0; i < DUT_ARRAY_SIZE(want); i++)
		CU_CHECK(strstr(canon, want[i]) != NULL, "shape lacks \"%s\": %s", want[i], canon);
	static const char *const unwanted[] = { "Cost", "Rows", "Width", "Brand#", "3111", "Filter" };
	for (size_t i = 0; i < DUT_ARRAY_SIZE(unwanted); i++)
		CU_CHECK(strstr(canon, unwanted[i]) == NULL, "shape has \"%s\": %s", unwanted[i], canon);
}

static void test_same_and_different_plans(void)
{
	static const struct {
		const char *a, *b;
		bool same;
		const char *why;
	} rows[] = {
		{ "plan-q17-base.json", "plan-q17-base.json", true, "the same document" },
		{ "plan-q17-base.json", "plan-q17-costs.json", true,
		  "costs, rows, widths and filter constants differ" },
		{ "plan-gather-w2.json", "plan-gather-w4.json", true, "workers planned 2 vs 4" },
		{ "plan-q17-base.json", "plan-q17-nodetype.json", false, "Hash Join -> Merge Join" },
		{ "plan-q17-base.json", "plan-q17-joinorder.json", false, "join inputs swapped" },
		{ "plan-q17-base.json", "plan-q17-index.json", false, "another index" },
		{ "plan-q17-base.json", "plan-gather-w2.json", false, "another plan" },
	};
	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		uint64_t a = fp_of(rows[i].a, NULL), b = fp_of(rows[i].b, NULL);
		CU_CHECK(a && b && (a == b) == rows[i].same, "%s vs %s (%s): %016llx %016llx",
			 rows[i].a, rows[i].b, rows[i].why, (unsigned long long)a,
			 (unsigned long long)b);
	}
}

static void test_rejects_what_is_not_a_plan(void)
{
	static const char *const rows[] = {
		"", "not json", "{}", "[]", "[{}]", "[{\"Plan\": 3}]",
		"[{\"Plan\": {\"Total Cost\": 1}}]",
		"[{\"Plan\": {\"Node Type\": \"Sort\", \"Plans\": {}}}]",
		"[{\"Plan\": {\"Node Type\": \"Sort\", \"Plans\": [{\"Node Type\": 1}]}}]",
	};
	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		struct dut_error err = { "" };
		uint64_t fp = 0;
		char *canon = NULL;
		int ret = dss_plan_fingerprint(rows[i], &fp, &canon, &err);
		CU_CHECK(ret == -EINVAL && err.msg[0] && !canon, "row %zu \"%s\": %d \"%s\"", i,
			 rows[i], ret, err.msg);
		free(canon);
	}
}

static const struct cu_test tests[] = {
	{ "fnv1a64_known_values", test_fnv1a64_known_values },
	{ "shape_of_real_plan", test_shape_of_real_plan },
	{ "same_and_different_plans", test_same_and_different_plans },
	{ "rejects_what_is_not_a_plan", test_rejects_what_is_not_a_plan },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "dss-plan", .tests = tests };
