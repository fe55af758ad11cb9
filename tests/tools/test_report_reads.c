/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The report's device reads per configuration for io_method comparisons
 * (tools/report/report_run_reads.h, issue #26): the reads of a step's trace phase,
 * how many were two blocks or more, which process roles issued them, and
 * the table only when the configurations' io_method differs.  Synthetic
 * models: a manifest, a result document per configuration (its server's
 * io_method and 100 transactions) and a trace summary per repetition.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lib/relmap.h"
#include "lib/result.h"
#include "tests/cu_main.h"
#include "tools/report/findings.h"
#include "tools/report/report.h"
#include "tools/report/report_doc.h"
#include "tools/report/report_run_reads.h"
#include "tools/report/rundir_model.h"
#include "tools/report/rundir_stats.h"

DUT_DEFINE_FREEP(struct rundir_model *, rundir_model_free)
DUT_DEFINE_FREEP(struct rdoc *, rdoc_free)
DUT_DEFINE_FREEP(struct findings *, findings_free)

static struct dut_trace_file files[] = {
	{ 1, "base/5/16384", { .cls = DUT_PG_REL, .fork = DUT_PG_FORK_MAIN, .db_oid = 5, .tablespace_oid = 1663,
			       .relfilenode = 16384 } },
};

/* pid 10 a client backend, 20 an io worker; 30 is in no relation map */
static const char relmap_text[] =
	"{\"schema\": \"dutlab-relmap\", \"schema_version\": 1, \"block_size\": 8192, \"relations\": [],"
	" \"processes\": [{\"pid\": 10, \"role\": \"client backend\"}, {\"pid\": 20, \"role\": \"io worker\"}]}";

#define STEP "{\"name\":\"read-only\",\"status\":\"ok\",\"results\":[\"ro.json\"]}"
#define REP(c) "{\"rep\":1,\"dir\":\"c" c "/rep1\",\"status\":\"complete\",\"steps\":[" STEP "]}"

static struct dut_result *doc_of(const char *method)
{
	char text[800];
	struct dut_result *r = NULL;
	struct dut_error err = { { 0 } };

	snprintf(text, sizeof(text), "{\"schema\":\"dutlab-result\",\"schema_version\":1,\"tool\":{\"name\":"
		 "\"pgload\",\"version\":\"0\"},\"target\":{\"settings\":{\"io_method\":{\"setting\":\"%s\"}}},"
		 "\"phases\":[{\"name\":\"run\",\"metrics\":{\"committed\":{\"value\":100,\"unit\":\"tx\"}}}]}",
		 method);
	if (dut_result_parse(text, strlen(text), &r, &err) < 0)
		cu_fail("doc_of: %s", err.msg);
	return r;
}

/*
 * A trace: 5 reads before the step (pid 10), then marker "read-only" and in
 * it nbe 8 KiB reads by the backend (pid 10), nwk 128 KiB reads by the io
 * worker (pid 20) and nun 16 KiB reads by pid 30 (not in the relation map).
 */
static struct report *trace_of(unsigned nbe, unsigned nwk, unsigned nun, const struct relmap *m)
{
	struct dut_trace_rec v[512];
	struct dut_trace_marker mk = { 100, (char *)"read-only" };
	struct dut_trace t = { .files = files, .nfiles = 1, .has_footer = true, .markers = &mk, .nmarkers = 1 };
	struct report *rep = NULL;
	uint64_t ts = 1, off = 0;
	size_t n = 0;

	for (unsigned i = 0; i < 5; i++)
		v[n++] = (struct dut_trace_rec){ .ts_ns = ts++, .offset = (off += 81920), .len = 8192,
						 .result = 8192, .lat_ns = 1000, .file_id = 1, .pid = 10,
						 .op = DUT_OP_READ };
	ts = 200;
	for (unsigned i = 0; i < nbe + nwk + nun; i++) {
		uint32_t len = i < nbe ? 8192 : i < nbe + nwk ? 131072 : 16384;
		uint32_t pid = i < nbe ? 10 : i < nbe + nwk ? 20 : 30;

		v[n++] = (struct dut_trace_rec){ .ts_ns = ts++, .offset = (off += 1 << 20), .len = len,
						 .result = (int32_t)len, .lat_ns = i < nbe ? 100000 : 2000000,
						 .file_id = 1, .pid = pid, .op = DUT_OP_READ };
	}
	t.recs = v;
	t.nrecs = t.footer.records_written = n;
	if (report_build(&t, m, &rep) < 0)
		cu_fail("report_build");
	return rep;
}

static struct rundir_model *model_of(const char *meth0, const char *meth1, const struct relmap *m)
{
	static const char text[] = "{\"schema\":\"dutlab-run\",\"schema_version\":1,\"experiment\":{\"name\":"
		"\"io-method\"},\"status\":\"complete\",\"configs\":["
		"{\"index\":0,\"name\":\"io_method=sync\",\"dir\":\"c0\",\"status\":\"complete\",\"reps\":[" REP("0") "]},"
		"{\"index\":1,\"name\":\"io_method=worker\",\"dir\":\"c1\",\"status\":\"complete\",\"reps\":[" REP("1") "]}]}";
	struct rundir_model *model = NULL;
	struct dut_error err = { { 0 } };

	if (rundir_manifest_parse(text, strlen(text), "m.json", &model, &err) < 0) {
		cu_fail("manifest: %s", err.msg);
		return NULL;
	}
	model->configs[0].reps[0].steps[0].docs[0].doc = doc_of(meth0);
	model->configs[1].reps[0].steps[0].docs[0].doc = doc_of(meth1);
	/* sync: the backend reads 200 blocks itself; worker: 20 of them, 40 combined by the io worker, 10 unnamed */
	model->configs[0].reps[0].io = trace_of(200, 0, 0, m);
	model->configs[1].reps[0].io = trace_of(20, 40, 10, m);
	model->configs[0].reps[0].io_has_relmap = model->configs[1].reps[0].io_has_relmap = true;
	return model;
}

static void test_reads_of_a_step(void)
{
	struct relmap *m = NULL;
	struct dut_error err = { { 0 } };
	_cleanup_(rundir_model_freep) struct rundir_model *model = NULL;
	struct report_reads x;
	struct dut_hist *lat = dut_hist_new();

	CU_ASSERT_PTR_NOT_NULL_FATAL(lat);
	CU_ASSERT_EQUAL_FATAL(relmap_parse(relmap_text, sizeof(relmap_text) - 1, &m, &err), 0);
	model = model_of("sync", "worker", m);
	CU_ASSERT_PTR_NOT_NULL_FATAL(model);
	CU_CHECK(strcmp(report_config_io_method(&model->configs[1]) ? report_config_io_method(&model->configs[1]) : "",
			"worker") == 0, "io_method of the worker configuration");

	report_reads_of(&model->configs[0], "read-only", 8192, &x, NULL);
	CU_CHECK(x.ntraced == 1 && x.ops == 200 && x.bytes == 200 * 8192ull && x.multi_ops == 0,
		 "sync: %u traced, %llu reads, %llu multi-block", x.ntraced, (unsigned long long)x.ops,
		 (unsigned long long)x.multi_ops);
	/* processes are whole traces: the 5 reads before the step count there */
	CU_CHECK(x.all_ops == 205 && x.worker_ops == 0 && x.worker_bytes == 0, "sync roles: %llu %llu",
		 (unsigned long long)x.all_ops, (unsigned long long)x.worker_ops);

	report_reads_of(&model->configs[1], "read-only", 8192, &x, lat);
	CU_CHECK(x.ops == 70 && x.multi_ops == 50, "worker: %llu reads, %llu of two blocks or more (want 70, 50)",
		 (unsigned long long)x.ops, (unsigned long long)x.multi_ops);
	CU_CHECK(x.all_ops == 75 && x.worker_ops == 40 && x.worker_bytes == 40 * 131072ull &&
		 x.all_bytes == 25 * 8192ull + 40 * 131072ull + 10 * 16384ull, "worker roles: %llu %llu of %llu",
		 (unsigned long long)x.worker_ops, (unsigned long long)x.worker_bytes,
		 (unsigned long long)x.all_bytes);
	CU_CHECK(lat->count == 70, "latencies merged: %llu", (unsigned long long)lat->count);
	/* with 16 kB blocks a 16 KiB read is one block */
	report_reads_of(&model->configs[1], "read-only", 16384, &x, NULL);
	CU_CHECK(x.multi_ops == 40, "16 kB blocks: %llu multi-block, want 40", (unsigned long long)x.multi_ops);
	/* a phase no trace has */
	report_reads_of(&model->configs[1], "tpch", 8192, &x, NULL);
	CU_CHECK(x.ntraced == 0 && x.ops == 0 && x.all_ops == 0, "no phase: %u %llu", x.ntraced,
		 (unsigned long long)x.ops);
	dut_hist_free(lat);
	for (size_t i = 0; i < model->nconfigs; i++) {
		report_free(model->configs[i].reps[0].io);
		model->configs[i].reps[0].io = NULL;
	}
	relmap_free(m);
}

/* The table's rows as rendered: one per configuration, only when io_method differs. */
static void test_table_only_when_io_method_differs(void)
{
	struct relmap *m = NULL;
	struct dut_error err = { { 0 } };

	CU_ASSERT_EQUAL_FATAL(relmap_parse(relmap_text, sizeof(relmap_text) - 1, &m, &err), 0);
	for (int same = 0; same < 2; same++) {
		_cleanup_(rundir_model_freep) struct rundir_model *model = model_of("sync", same ? "sync" : "worker", m);
		_cleanup_(rdoc_freep) struct rdoc *d = calloc(1, sizeof(*d));
		_cleanup_free_ char *md = NULL;

		CU_ASSERT_PTR_NOT_NULL_FATAL(model);
		CU_ASSERT_PTR_NOT_NULL_FATAL(d);
		report_reads_table(d, model, "read-only", false);
		CU_ASSERT_FALSE(d->oom);
		CU_ASSERT_EQUAL_FATAL(render_md(d, &md), 0);
		if (same) {
			CU_CHECK(d->n == 0, "the same io_method everywhere: %zu blocks", d->n);
		} else {
			CU_CHECK(d->n == 1 && d->b[0].kind == RD_TABLE, "one table: %zu blocks", d->n);
			CU_CHECK(strstr(md, "| io_method=sync | sync | 200 | 2.00 | 1.6 | 8.0 | 0.0 |") != NULL,
				 "sync row in:\n%s", md);
			CU_CHECK(strstr(md, "| io_method=worker | worker | 70 | 0.70 | 5.3 | 77.7 | 71.4 |") != NULL,
				 "worker row in:\n%s", md);
			/* 5,120 KiB of 5,480 KiB read by the io worker */
			CU_CHECK(strstr(md, "| 93.4 |\n") != NULL, "worker's io worker share in:\n%s", md);
		}
		for (size_t i = 0; i < model->nconfigs; i++) {
			report_free(model->configs[i].reps[0].io);
			model->configs[i].reps[0].io = NULL;
		}
	}
	relmap_free(m);
}

/* The report's PostgreSQL line names each configuration's io_method (18 and
 * later), one line when every configuration ran the same server and method. */
static void test_postgres_line_names_io_method(void)
{
#define PG18 "\"postgres\":{\"major\":18,\"version\":\"postgres (PostgreSQL) 18.6\",\"bindir\":\"/pg/18/bin\"},"
	static const char text[] = "{\"schema\":\"dutlab-run\",\"schema_version\":1,\"experiment\":{\"name\":"
		"\"io-method\"},\"status\":\"complete\",\"configs\":["
		"{\"index\":0,\"name\":\"io_method=sync\",\"dir\":\"c0\",\"status\":\"complete\"," PG18 "\"reps\":[" REP("0") "]},"
		"{\"index\":1,\"name\":\"io_method=worker\",\"dir\":\"c1\",\"status\":\"complete\"," PG18 "\"reps\":[" REP("1") "]}]}";
#undef PG18
	static const struct { const char *m0, *m1, *want; } rows[] = {
		{ "sync", "worker", "- 0 io_method=sync: postgres (PostgreSQL) 18.6, from /pg/18/bin, io_method sync\n"
				    "- 1 io_method=worker: postgres (PostgreSQL) 18.6, from /pg/18/bin, io_method worker" },
		{ "io_uring", "io_uring", "PostgreSQL: postgres (PostgreSQL) 18.6, from /pg/18/bin, io_method io_uring." },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		_cleanup_(rundir_model_freep) struct rundir_model *m = NULL;
		_cleanup_(findings_freep) struct findings *f = NULL;
		_cleanup_(rdoc_freep) struct rdoc *d = NULL;
		_cleanup_free_ char *md = NULL;
		struct dut_error err = { { 0 } };

		CU_ASSERT_EQUAL_FATAL(rundir_manifest_parse(text, strlen(text), "m.json", &m, &err), 0);
		m->configs[0].reps[0].steps[0].docs[0].doc = doc_of(rows[i].m0);
		m->configs[1].reps[0].steps[0].docs[0].doc = doc_of(rows[i].m1);
		CU_ASSERT_EQUAL_FATAL(findings_build(m, &f), 0);
		CU_ASSERT_EQUAL_FATAL(report_run_build(m, f, NULL, &d), 0);
		CU_ASSERT_EQUAL_FATAL(render_md(d, &md), 0);
		CU_CHECK(strstr(md, rows[i].want) != NULL, "row %zu: no \"%s\" in\n%.2500s", i, rows[i].want,
			 strstr(md, "## Configurations") ?: md);
	}
}

static const struct cu_test tests[] = {
	{ "reads_of_a_step", test_reads_of_a_step },
	{ "table_only_when_io_method_differs", test_table_only_when_io_method_differs },
	{ "postgres_line_names_io_method", test_postgres_line_names_io_method },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "report_reads", .tests = tests };
