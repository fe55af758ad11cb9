/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dutlab results, the pure part: run ids, metric flattening, devices, filters, the report. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/cu_main.h"
#include "lib/file_io.h"
#include "tools/report/chart.h"
#include "tools/report/report_doc.h"
#include "tools/results/results.h"

static const char manifest_fmt[] =
	"{ \"schema\": \"dutlab-run\", \"schema_version\": 1,"
	"  \"experiment\": { \"name\": %s, \"repetitions\": 1 },"
	"  \"started_at\": %s, \"status\": \"complete\","
	"  \"host\": { \"hostname\": %s, \"kernel\": \"k\", \"cpu_model\": \"c\", \"cpus\": 2, \"mem_bytes\": 1 },"
	"  \"configs\": [] }";

static struct rundir_model *manifest(const char *name, const char *started, const char *host)
{
	struct dut_error err = { { 0 } };
	struct rundir_model *m = NULL;
	char text[2048];

	snprintf(text, sizeof(text), manifest_fmt, name, started, host);
	if (rundir_manifest_parse(text, strlen(text), "m.json", &m, &err) < 0)
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
		struct rundir_model *m = manifest(cases[i].name, cases[i].started, cases[i].host);
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
		rundir_model_free(m);
	}
}

static void test_run_id_too_long_is_refused(void)
{
	struct rundir_model *m = manifest("\"a-rather-long-experiment-name\"", "\"2026-12-01T10:00:00Z\"", "\"db1\"");
	struct dut_error err = { { 0 } };
	char id[16];

	CU_ASSERT_EQUAL(results_run_id(m, id, sizeof(id), &err), -EINVAL);
	rundir_model_free(m);
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

/* An old step is never edited: version 1 is still the DDL that databases of the first dutlab have. */
static void test_schema_v1_unchanged(void)
{
	char path[4096], *text = NULL, *body;
	size_t len;

	snprintf(path, sizeof(path), "%s/tests/tools/results/schema-v1.sql", cu_source_root());
	CU_ASSERT_EQUAL_FATAL(dut_read_small_file(path, 1 << 20, &text, &len), 0);
	/* after the file's comment lines */
	body = strstr(text, "CREATE SCHEMA");
	CU_ASSERT_PTR_NOT_NULL_FATAL(body);
	CU_ASSERT_STRING_EQUAL(body, results_schema_step(1));
	/* version 2 replaces the views by functions of a filter, and keeps every table */
	CU_ASSERT_PTR_NOT_NULL(strstr(results_schema_step(2), "CREATE FUNCTION dutlab.run_metrics_where(f jsonb)"));
	CU_ASSERT_PTR_NULL(strstr(results_schema_step(2), "DROP TABLE"));
	CU_ASSERT_PTR_NULL(strstr(results_schema_step(2), "ALTER TABLE"));
	free(text);
}

static void test_where_filters(void)
{
	static const struct {
		const char *arg;
		int ret;
		const char *msg;          /* a part of the error */
	} cases[] = {
		{ "host=db1", 0, NULL },
		{ "host=db2", 0, NULL },
		{ "metric=txn.p99", 0, NULL },
		{ "model=", 0, NULL },                   /* runs without a device */
		{ "since=2026-11-01", 0, NULL },
		{ "since=2026-11-02", -EINVAL, "given twice" },
		{ "until=tomorrow", -EINVAL, "date or a timestamp" },
		{ "until=2026", -EINVAL, "date or a timestamp" },
		{ "hostname=db1", -EINVAL, "unknown key \"hostname\"" },
		{ "=db1", -EINVAL, "expected KEY=VALUE" },
		{ "db1", -EINVAL, "expected KEY=VALUE" },
		{ "a-key-much-longer-than-thirty-two-bytes=1", -EINVAL, "unknown key" },
	};
	json_object *f = json_object_new_object();
	char text[512];

	results_where_text(f, text, sizeof(text));
	CU_ASSERT_STRING_EQUAL(text, "every run");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct dut_error err = { { 0 } };

		CU_ASSERT_EQUAL(results_where_add(f, cases[i].arg, &err), cases[i].ret);
		if (cases[i].msg && !strstr(err.msg, cases[i].msg)) {
			fprintf(stderr, "%s: %s\n", cases[i].arg, err.msg);
			CU_FAIL("the error does not say what was wrong");
		}
	}
	CU_ASSERT_STRING_EQUAL(json_object_to_json_string_ext(f, JSON_C_TO_STRING_PLAIN),
			       "{\"host\":[\"db1\",\"db2\"],\"metric\":[\"txn.p99\"],\"model\":[\"\"],"
			       "\"since\":\"2026-11-01\"}");
	results_where_text(f, text, sizeof(text));
	CU_ASSERT_STRING_EQUAL(text, "host = \"db1\" or \"db2\"; metric = \"txn.p99\"; model = \"\"; since 2026-11-01");
	json_object_put(f);
}

/* A spread table as compare gets it from the database. */
static const char *const spread_cols[] = {
	"experiment", "config", "dimension", "key", "step", "phase", "metric", "unit", "runs", "median", "min", "max",
};
static const char *const spread_rows[][12] = {
	/* two hosts: one chart per host dimension; the filesystem has one key */
	{ "e", "c1", "filesystem", "xfs", "rw", "run", "tps", "tx/s", "4", "300.5", "200", "400" },
	{ "e", "c1", "host", "db1", "rw", "run", "tps", "tx/s", "2", "210.25", "200", "220" },
	{ "e", "c1", "host", "db2", "rw", "run", "tps", "tx/s", "2", "390", "380", "400" },
	/* one host, two configurations: the host chart shows the configurations */
	{ "e", "c1", "host", "db1", "rw", "run", "txn.p99", "ns", "2", "1e6", "9e5", "1.1e6" },
	{ "e", "c2", "host", "db1", "rw", "run", "txn.p99", "ns", "2", "2e6", "1.9e6", "2.1e6" },
	{ "e", "c2", "filesystem", "ext4", "rw", "run", "txn.p99", "ns", "2", "2e6", "1.9e6", "2.1e6" },
	/* a metric name that must not reach a chart */
	{ "e", "c1", "host", "db1", "rw", "run", "bad'name\n", "", "1", "1", "1", "1" },
};

static void spread_table(struct results_cmp *cmp)
{
	struct results_table *t = &cmp->t[0];
	const size_t nc = 12, nr = sizeof(spread_rows) / sizeof(spread_rows[0]);

	memset(cmp, 0, sizeof(*cmp));
	cmp->t[0].name = "spread";
	cmp->t[1].name = "newest_per_host";
	cmp->t[2].name = "regressions";
	t->ncols = nc;
	t->nrows = nr;
	t->cols = calloc(nc, sizeof(*t->cols));
	t->numeric = calloc(nc, sizeof(*t->numeric));
	t->cells = calloc(nc * nr, sizeof(*t->cells));
	for (size_t c = 0; c < nc; c++) {
		t->cols[c] = strdup(spread_cols[c]);
		t->numeric[c] = c >= 8;
		for (size_t r = 0; r < nr; r++)
			t->cells[r * nc + c] = strdup(spread_rows[r][c]);
	}
}

static void test_charts_of_the_spread(void)
{
	struct results_cmp cmp;
	struct charts *cs = NULL;
	size_t left = 99;

	spread_table(&cmp);
	CU_ASSERT_EQUAL_FATAL(results_charts_build(&cmp, &cs, &left), 0);
	CU_ASSERT_EQUAL(left, 0);
	CU_ASSERT_EQUAL_FATAL(cs->n, 2);
	CU_ASSERT_STRING_EQUAL(cs->v[0].name, "spread-01-e-rw-run-tps-host");
	CU_ASSERT_PTR_NOT_NULL(strstr(cs->v[0].data[0].text, "1 390 380 400 \"db2\"\n"));
	CU_ASSERT_PTR_NULL(strstr(cs->v[0].data[0].text, "xfs"));
	CU_ASSERT_STRING_EQUAL(cs->v[1].name, "spread-02-e-rw-run-txn.p99-host");
	CU_ASSERT_PTR_NOT_NULL(strstr(cs->v[1].data[0].text, "\"c2\"\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(cs->v[1].script, "set ylabel 'txn.p99 (ns)'"));
	CU_ASSERT_EQUAL(cs->nwarnings, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(cs->warnings[0], "not charted"));
	charts_free(cs);
	results_cmp_clear(&cmp);
}

static void test_report_document(void)
{
	struct results_cmp cmp;
	struct charts *cs = NULL;
	struct rdoc *d = NULL;
	char *md = NULL, *html = NULL;
	size_t left;

	spread_table(&cmp);
	CU_ASSERT_EQUAL_FATAL(results_charts_build(&cmp, &cs, &left), 0);
	cs->v[0].rendered = true;
	CU_ASSERT_EQUAL_FATAL(results_report_build(&cmp, "metric = \"tps\"", cs, 3, &d), 0);
	CU_ASSERT_EQUAL_FATAL(render_md(d, &md), 0);
	CU_ASSERT_EQUAL_FATAL(render_html(d, "t", &html), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(md, "Runs: metric = \"tps\"."));
	CU_ASSERT_PTR_NOT_NULL(strstr(md, "| experiment | config | dimension |"));
	CU_ASSERT_PTR_NOT_NULL(strstr(md, "| ---: | ---: | ---: | ---: |\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(md, "| e | c1 | host | db1 | rw | run | tps | tx/s | 2 | 210.25 | 200 | 220 |"));
	CU_ASSERT_PTR_NOT_NULL(strstr(md, "](charts/spread-01-e-rw-run-tps-host.png)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(md, "Chart not rendered: e, step rw, phase run: txn.p99 per configuration"));
	CU_ASSERT_PTR_NOT_NULL(strstr(md, "3 more charts were left out"));
	CU_ASSERT_PTR_NOT_NULL(strstr(md, "None: no metric of a newest run lies outside"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "<td class=\"n\">210.25</td>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "<img src=\"charts/spread-01-e-rw-run-tps-host.png\""));
	free(md);
	free(html);
	rdoc_free(d);
	charts_free(cs);
	results_cmp_clear(&cmp);
}

static const struct cu_test tests[] = {
	{ "run_id_from_identity", test_run_id_from_identity },
	{ "run_id_too_long_is_refused", test_run_id_too_long_is_refused },
	{ "flatten_metrics_and_latency", test_flatten_metrics_and_latency },
	{ "flatten_no_phases", test_flatten_no_phases },
	{ "device_inner_drive_before_bridge", test_device_inner_drive_before_bridge },
	{ "schema_steps", test_schema_steps },
	{ "schema_v1_unchanged", test_schema_v1_unchanged },
	{ "where_filters", test_where_filters },
	{ "charts_of_the_spread", test_charts_of_the_spread },
	{ "report_document", test_report_document },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "results", .tests = tests };
