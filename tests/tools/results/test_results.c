/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dutlab results, the pure part: run ids, metric flattening, devices. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/cu_main.h"
#include "tools/results.h"

static const char manifest_fmt[] =
	"{ \"schema\": \"dutlab-run\", \"schema_version\": 1,"
	"  \"experiment\": { \"name\": %s, \"repetitions\": 1 },"
	"  \"started_at\": %s, \"status\": \"complete\","
	"  \"host\": { \"hostname\": %s, \"kernel\": \"k\", \"cpu_model\": \"c\", \"cpus\": 2, \"mem_bytes\": 1 },"
	"  \"configs\": [] }";

static struct run_model *manifest(const char *name, const char *started, const char *host)
{
	struct dut_error err = { { 0 } };
	struct run_model *m = NULL;
	char text[2048];

	snprintf(text, sizeof(text), manifest_fmt, name, started, host);
	if (run_manifest_parse(text, strlen(text), "m.json", &m, &err) < 0)
		CU_FAIL_FATAL(err.msg);
	return m;
}

static void test_run_id_from_identity(void)
{
	static const struct {
		const char *name, *started, *host, *want;   /* want NULL: refused */
	} cases[] = {
		{ "\"e2e\"", "\"2026-12-01T10:00:00Z\"", "\"db1\"", "e2e@db1@2026-12-01T10:00:00Z" },
		{ "\"e2e\"", "\"2026-12-01T10:00:01Z\"", "\"db1\"", "e2e@db1@2026-12-01T10:00:01Z" },
		{ "\"e2e\"", "\"2026-12-01T10:00:00Z\"", "\"\"", NULL },
		{ "\"\"", "\"2026-12-01T10:00:00Z\"", "\"db1\"", NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct run_model *m = manifest(cases[i].name, cases[i].started, cases[i].host);
		struct dut_error err = { { 0 } };
		char id[256];
		int r = results_run_id(m, id, sizeof(id), &err);

		if (cases[i].want) {
			CU_ASSERT_EQUAL(r, 0);
			CU_ASSERT_STRING_EQUAL(id, cases[i].want);
		} else {
			CU_ASSERT_EQUAL(r, -EINVAL);
			CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "the manifest has no"));
		}
		run_model_free(m);
	}
}

static void test_run_id_too_long_is_refused(void)
{
	struct run_model *m = manifest("\"a-rather-long-experiment-name\"", "\"2026-12-01T10:00:00Z\"", "\"db1\"");
	struct dut_error err = { { 0 } };
	char id[16];

	CU_ASSERT_EQUAL(results_run_id(m, id, sizeof(id), &err), -EINVAL);
	run_model_free(m);
}

static const char doc_text[] =
	"{ \"schema\": \"dutlab-result\", \"schema_version\": 1,"
	"  \"tool\": { \"name\": \"pgload\" }, \"config\": { \"workload\": \"oltp\" },"
	"  \"phases\": [ { \"name\": \"run\","
	"    \"metrics\": { \"tps\": { \"value\": 1234.5, \"unit\": \"tx/s\" },"
	"                   \"failed\": { \"value\": 0 },"
	"                   \"broken\": { \"value\": \"x\" } },"
	"    \"latency\": { \"txn\": { \"unit\": \"ns\", \"count\": 10, \"p99\": 2000000, \"mean\": 1.5e6 } },"
	"    \"series\": { \"per_second\": { \"columns\": [\"t_s\", \"tps\"], \"rows\": [[1, 1]] } } },"
	"   { \"name\": \"load\", \"metrics\": { \"rows\": { \"value\": 100, \"unit\": \"rows\" } } } ] }";

static const struct results_metric *find(const struct results_metrics *m, const char *phase, const char *name)
{
	for (size_t i = 0; i < m->n; i++)
		if (strcmp(m->v[i].phase, phase) == 0 && strcmp(m->v[i].name, name) == 0)
			return &m->v[i];
	return NULL;
}

static void test_flatten_metrics_and_latency(void)
{
	json_object *doc = json_tokener_parse(doc_text);
	struct results_metrics m = { 0 };
	const struct results_metric *x;

	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	CU_ASSERT_EQUAL_FATAL(results_flatten(doc, &m), 0);
	/* tps, failed, txn.count, txn.p99, txn.mean, rows; not "broken", not the series */
	CU_ASSERT_EQUAL(m.n, 6);
	x = find(&m, "run", "tps");
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	CU_ASSERT_DOUBLE_EQUAL(x->value, 1234.5, 1e-9);
	CU_ASSERT_STRING_EQUAL(x->unit, "tx/s");
	x = find(&m, "run", "failed");
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	CU_ASSERT_STRING_EQUAL(x->unit, "");
	x = find(&m, "run", "txn.p99");
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	CU_ASSERT_DOUBLE_EQUAL(x->value, 2e6, 1e-9);
	CU_ASSERT_STRING_EQUAL(x->unit, "ns");
	x = find(&m, "run", "txn.count");
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	CU_ASSERT_STRING_EQUAL(x->unit, "");
	CU_ASSERT_PTR_NULL(find(&m, "run", "broken"));
	CU_ASSERT_PTR_NULL(find(&m, "run", "txn.unit"));
	x = find(&m, "load", "rows");
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	CU_ASSERT_DOUBLE_EQUAL(x->value, 100, 1e-9);
	CU_ASSERT_STRING_EQUAL(results_workload(doc), "oltp");
	results_metrics_clear(&m);
	CU_ASSERT_EQUAL(m.n, 0);
	json_object_put(doc);
}

static void test_flatten_no_phases(void)
{
	json_object *doc = json_tokener_parse("{ \"phases\": [] }");
	struct results_metrics m = { 0 };

	CU_ASSERT_EQUAL(results_flatten(doc, &m), 0);
	CU_ASSERT_EQUAL(m.n, 0);
	CU_ASSERT_STRING_EQUAL(results_workload(doc), "");
	json_object_put(doc);
}

static void test_device_inner_drive_before_bridge(void)
{
	static const struct {
		const char *target, *model, *firmware, *link, *source;
		int ret;
	} cases[] = {
		{ "{ \"block_device\": { \"model\": \"Bridge\", \"serial\": \"B1\", \"firmware\": \"b\" },"
		  "  \"inner_drive\": { \"model\": \"Samsung 980\", \"serial\": \"S1\", \"firmware\": \"3B4Q\" },"
		  "  \"link\": { \"kind\": \"usb\", \"description\": \"USB 3.0\", \"ceiling_bytes_per_s\": 450000000 } }",
		  "Samsung 980", "3B4Q", "usb: USB 3.0", "inner_drive", 0 },
		{ "{ \"block_device\": { \"model\": \"QEMU HARDDISK\", \"serial\": \"\", \"firmware\": \"2.5+\" },"
		  "  \"nvme\": { \"controller\": { \"model\": \"WD SN850\", \"serial\": \"W1\", \"firmware\": \"611\" } } }",
		  "WD SN850", "611", "", "nvme", 0 },
		{ "{ \"block_device\": { \"model\": \"QEMU HARDDISK\", \"firmware\": \"2.5+\" }, \"inner_drive\": null }",
		  "QEMU HARDDISK", "2.5+", "", "block_device", 0 },
		{ "{ \"path\": \"/x\" }", "", "", "", "", -ENOENT },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[1024];
		json_object *doc;
		struct results_device d;
		int r;

		snprintf(text, sizeof(text), "{ \"target\": %s }", cases[i].target);
		doc = json_tokener_parse(text);
		CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
		r = results_device_from_identify(doc, &d);
		CU_ASSERT_EQUAL(r, cases[i].ret);
		if (r == 0) {
			CU_ASSERT_STRING_EQUAL(d.model, cases[i].model);
			CU_ASSERT_STRING_EQUAL(d.firmware, cases[i].firmware);
			CU_ASSERT_STRING_EQUAL(d.link, cases[i].link);
			CU_ASSERT_STRING_EQUAL(d.source, cases[i].source);
		}
		json_object_put(doc);
	}
}

static void test_schema_steps(void)
{
	CU_ASSERT_PTR_NULL(results_schema_step(0));
	CU_ASSERT_PTR_NULL(results_schema_step(RESULTS_SCHEMA_VERSION + 1));
	for (int v = 1; v <= RESULTS_SCHEMA_VERSION; v++)
		CU_ASSERT_PTR_NOT_NULL(results_schema_step(v));
	/* step 1 makes the version table that every later step records itself in */
	CU_ASSERT_PTR_NOT_NULL(strstr(results_schema_step(1), "CREATE TABLE dutlab.schema_version"));
}

static const struct cu_test tests[] = {
	{ "run_id_from_identity", test_run_id_from_identity },
	{ "run_id_too_long_is_refused", test_run_id_too_long_is_refused },
	{ "flatten_metrics_and_latency", test_flatten_metrics_and_latency },
	{ "flatten_no_phases", test_flatten_no_phases },
	{ "device_inner_drive_before_bridge", test_device_inner_drive_before_bridge },
	{ "schema_steps", test_schema_steps },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "results", .tests = tests };
