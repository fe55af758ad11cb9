/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The trap findings of `dutlab report RUNDIR` (what a run did not measure)
 * and its answer section, on synthetic run models: a manifest text, result
 * documents as JSON text, and traces built in memory.  Each detector has a
 * model that triggers it and one that does not; a clean model triggers none.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lib/result.h"
#include "lib/trace.h"
#include "tests/cu_main.h"
#include "tools/report/chart.h"
#include "tools/report/findings.h"
#include "tools/report/report.h"
#include "tools/report/report_doc.h"
#include "tools/report/rundir_model.h"
#include "tools/report/rundir_stats.h"

DUT_DEFINE_FREEP(struct rundir_model *, rundir_model_free)
DUT_DEFINE_FREEP(struct findings *, findings_free)
DUT_DEFINE_FREEP(struct rdoc *, rdoc_free)

#define HEAD "\"schema\":\"dutlab-run\",\"schema_version\":1,\"experiment\":{\"name\":\"x\"," \
	"\"description\":\"does the trap fire\"},\"status\":\"complete\""
#define DOC_HEAD "{\"schema\":\"dutlab-result\",\"schema_version\":1,\"tool\":{\"name\":"

/* A run of one configuration "a" with one repetition and the given steps (JSON objects). */
static struct rundir_model *model(const char *cfg_extra, const char *steps)
{
	char text[4096];
	struct dut_error err = { { 0 } };
	struct rundir_model *m = NULL;

	snprintf(text, sizeof(text), "{" HEAD ",\"configs\":[{\"index\":0,\"name\":\"a\",\"dir\":\"c00-a\","
		 "\"status\":\"complete\"%s,\"reps\":[{\"rep\":1,\"dir\":\"c00-a/rep1\",\"status\":\"complete\","
		 "\"steps\":[%s]}]}]}", cfg_extra, steps);
	if (rundir_manifest_parse(text, strlen(text), "m.json", &m, &err) < 0)
		cu_fail("manifest: %s", err.msg);
	return m;
}

static struct dut_result *doc(const char *text)
{
	struct dut_result *r = NULL;
	struct dut_error err = { { 0 } };

	if (dut_result_parse(text, strlen(text), &r, &err) < 0)
		cu_fail("document: %s\n%s", err.msg, text);
	return r;
}

static void set_doc(struct rundir_model *m, size_t step, const char *text)
{
	if (m)
		m->configs[0].reps[0].steps[step].docs[0].doc = doc(text);
}

static const struct finding *find(const struct findings *f, enum finding_kind k)
{
	for (size_t i = 0; f && i < f->n; i++)
		if (f->v[i].kind == k)
			return &f->v[i];
	return NULL;
}

static struct findings *build(const struct rundir_model *m)
{
	struct findings *f = NULL;

	if (!m || findings_build(m, &f) < 0)
		cu_fail("findings_build");
	return f;
}

/* pgload run document: committed, TPS including/excluding connections, latency. */
static void oltp_doc(char *buf, size_t n, double committed, double tps_in, double tps_ex)
{
	snprintf(buf, n, DOC_HEAD "\"pgload\",\"version\":\"0\"},\"target\":{\"database_bytes\":402759015},"
		 "\"config\":{\"workload\":\"oltp\",\"memory\":{\"budget_bytes\":83886080}},"
		 "\"phases\":[{\"name\":\"run\",\"duration_ns\":10000000000,\"metrics\":{"
		 "\"tps\":{\"value\":%g,\"unit\":\"tx/s\"},\"committed\":{\"value\":%g,\"unit\":\"tx\"},"
		 "\"tps_including_connections\":{\"value\":%g,\"unit\":\"tx/s\"},"
		 "\"tps_excluding_connections\":{\"value\":%g,\"unit\":\"tx/s\"},"
		 "\"connection_time_avg\":{\"value\":12000000,\"unit\":\"ns\"}},"
		 "\"latency\":{\"txn\":{\"unit\":\"ns\",\"count\":100,\"min\":1000,\"max\":9000000,"
		 "\"mean\":2000000,\"stddev\":1000,\"p50\":1500000,\"p90\":3000000,\"p99\":8000000,\"p99.9\":9000000,\"p99.99\":9000000}}}]}",
		 tps_ex, committed, tps_in, tps_ex);
}

/* ---- a trace with marker "oltp": nreads random 8 KiB heap reads, WAL writes and fdatasyncs ---- */

static struct dut_trace_file tr_files[] = {
	{ 1, "base/5/16384", { .cls = DUT_PG_REL, .fork = DUT_PG_FORK_MAIN, .db_oid = 5,
			       .tablespace_oid = 1663, .relfilenode = 16384 } },
	{ 2, "pg_wal/000000010000000000000001", { .cls = DUT_PG_WAL, .timeline = 1, .wal_segno = 1 } },
};
static struct dut_trace_marker tr_markers[] = { { 1000, "oltp" } };
static struct dut_trace_rec tr_recs[8192];

/* span: from the marker to the last record, ns; wal_bytes per write */
static size_t trace_recs(unsigned nreads, unsigned nwal, uint32_t wal_bytes, uint64_t span_ns)
{
	size_t n = 0;
	uint64_t ts = 1001, step = span_ns / (nreads + 2 * nwal + 1);

	CU_ASSERT_FATAL((size_t)nreads + 2 * nwal + 1 <= DUT_ARRAY_SIZE(tr_recs));

	for (unsigned i = 0; i < nreads; i++, ts += step)
		tr_recs[n++] = (struct dut_trace_rec){ .ts_ns = ts, .offset = (4000 - i) * 8192ull,
			.len = 8192, .result = 8192, .lat_ns = 200000, .file_id = 1, .op = DUT_OP_READ };
	for (unsigned i = 0; i < nwal; i++, ts += step) {
		tr_recs[n++] = (struct dut_trace_rec){ .ts_ns = ts, .offset = i * (uint64_t)wal_bytes,
			.len = wal_bytes, .result = (int64_t)wal_bytes, .lat_ns = 10000, .file_id = 2,
			.op = DUT_OP_WRITE };
		tr_recs[n++] = (struct dut_trace_rec){ .ts_ns = ts + 1, .lat_ns = 1000000, .file_id = 2,
			.op = DUT_OP_FDATASYNC };
	}
	tr_recs[n++] = (struct dut_trace_rec){ .ts_ns = 1000 + span_ns, .file_id = 1, .op = DUT_OP_RELEASE };
	return n;
}

static void attach_trace(struct rundir_model *m, unsigned nreads, unsigned nwal, uint32_t wal_bytes,
			 uint64_t span_ns)
{
	struct dut_trace t = { .files = tr_files, .nfiles = 2, .recs = tr_recs,
			       .nrecs = trace_recs(nreads, nwal, wal_bytes, span_ns),
			       .markers = tr_markers, .nmarkers = 1, .has_footer = true };

	if (m && report_build(&t, NULL, &m->configs[0].reps[0].io) < 0)
		cu_fail("report_build");
}

#define OLTP_STEP "{\"name\":\"oltp\",\"status\":\"ok\",\"results\":[\"oltp.json\"]}"

/* Served by memory: 2 reads for 10,000 transactions; with 4,000 reads it is not. */
static void test_trap_page_cache(void)
{
	static const struct { unsigned reads; bool fires; const char *budget; } cases[] = {
		{ 2, true, "the memory budget was 80 MiB against a database of 384 MiB" },
		{ 4000, false, NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		_cleanup_(rundir_model_freep) struct rundir_model *m =
			model(",\"memory_budget_bytes\":83886080", OLTP_STEP);
		_cleanup_(findings_freep) struct findings *f = NULL;
		const struct finding *x;
		char d[2048];

		oltp_doc(d, sizeof(d), 10000, 1000, 1000);
		set_doc(m, 0, d);
		attach_trace(m, cases[i].reads, 10, 8192, 10000000000ull);
		f = build(m);
		x = find(f, FIND_PAGE_CACHE);
		CU_CHECK(!!x == cases[i].fires, "%u reads: fires %d", cases[i].reads, !!x);
		if (!x || !cases[i].fires)
			continue;
		CU_CHECK(x->count[0] == 2 && x->count[1] == 10000 && x->trap, "counts");
		CU_CHECK(strstr(x->text, "a, step oltp: this measured the page cache, not the device: 2 "
				"device reads for 10,000 transactions (0.0002 per transaction") != NULL, "%s", x->text);
		CU_CHECK(strstr(x->text, cases[i].budget) != NULL, "budget: %s", x->text);
	}
	/* without a budget it says how to get one */
	{
		_cleanup_(rundir_model_freep) struct rundir_model *m = model("", OLTP_STEP);
		_cleanup_(findings_freep) struct findings *f = NULL;
		const struct finding *x;
		char d[2048];

		oltp_doc(d, sizeof(d), 10000, 1000, 1000);
		/* a document without the memory member */
		*strstr(d, ",\"memory\"") = 0;
		strcat(d, "},\"phases\":[{\"name\":\"run\",\"metrics\":{\"tps\":{\"value\":1000,\"unit\":\"tx/s\"},"
		       "\"committed\":{\"value\":10000,\"unit\":\"tx\"}}}]}");
		set_doc(m, 0, d);
		attach_trace(m, 0, 10, 8192, 1000000000ull);
		f = build(m);
		x = find(f, FIND_PAGE_CACHE);
		CU_CHECK(x && strstr(x->text, "use a memory budget ([postgres] memory = SIZE"), "%s",
			 x ? x->text : "(none)");
	}
}

/* pgload's connection times: 50% of the step connecting fires; 1% does not. */
static void test_trap_connect(void)
{
	static const struct { double in, ex; bool fires; } cases[] = {
		{ 500, 1000, true }, { 990, 1000, false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		_cleanup_(rundir_model_freep) struct rundir_model *m = model("", OLTP_STEP);
		_cleanup_(findings_freep) struct findings *f = NULL;
		const struct finding *x;
		char d[2048];

		oltp_doc(d, sizeof(d), 10000, cases[i].in, cases[i].ex);
		set_doc(m, 0, d);
		f = build(m);
		x = find(f, FIND_CONNECT);
		CU_CHECK(!!x == cases[i].fires, "%g/%g: fires %d", cases[i].in, cases[i].ex, !!x);
		if (x && cases[i].fires)
			CU_CHECK(fabs(x->value[0] - 50) < 1e-9 && strstr(x->text, "connection set-up dominated: it "
				 "took 50% of the step's time; TPS including connections 500.0 vs excluding them "
				 "1,000.0 tx/s") && strstr(x->text, "mean connection time 12.0 ms"), "%s", x->text);
	}
}

#define IDENT_STEP "{\"name\":\"identify\",\"status\":\"ok\",\"results\":[\"identify.json\"]}"

static void ident_doc(char *buf, size_t n, const char *kind, const char *through, const char *lkind,
		      const char *ldesc, double ceiling)
{
	snprintf(buf, n, DOC_HEAD "\"dutprobe\",\"version\":\"0\"},\"target\":{\"path\":\"/var/tmp/t\","
		 "\"kind\":\"%s\"%s%s%s,\"block_device\":{\"name\":\"vda\",\"model\":\"\"},\"link\":{\"kind\":"
		 "\"%s\",\"description\":\"%s\",\"ceiling_bytes_per_s\":%g}},\"config\":{},\"phases\":[]}",
		 kind, *through ? ",\"through\":\"" : "", through, *through ? "\"" : "", lkind, ldesc, ceiling);
}

/* A directory or loop image on a virtual or unknown link has no flash behind it. */
static void test_trap_no_flash(void)
{
	static const struct { const char *kind, *through, *lkind, *ldesc; bool fires; const char *text; } cases[] = {
		{ "directory", "", "virtual", "paravirtual (virtio/xen): no physical link", true,
		  "a: no flash behind this: the target /var/tmp/t (directory) sits on a link dutprobe describes "
		  "as \"paravirtual (virtio/xen): no physical link\"" },
		{ "file", "loop0 (over /var/tmp/x.img) -> vda", "pcie", "PCIe 4.0 x4", true, "a loop image" },
		{ "directory", "", "unknown", "unknown link", true, "sits on a link" },
		{ "partition", "", "pcie", "PCIe 4.0 x4", false, NULL },
		{ "disk", "", "unknown", "unknown link", false, NULL },
		{ "disk", "", "virtual", "paravirtual (virtio/xen): no physical link", true, "(disk)" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		_cleanup_(rundir_model_freep) struct rundir_model *m = model("", IDENT_STEP);
		_cleanup_(findings_freep) struct findings *f = NULL;
		const struct finding *x;
		char d[2048];

		ident_doc(d, sizeof(d), cases[i].kind, cases[i].through, cases[i].lkind, cases[i].ldesc, 7.8e9);
		set_doc(m, 0, d);
		CU_CHECK(m && rundir_doc_kind_of(m->configs[0].reps[0].steps[0].docs[0].doc) == DOC_identify,
			 "identify document recognised");
		f = build(m);
		x = find(f, FIND_NO_FLASH);
		CU_CHECK(!!x == cases[i].fires, "case %zu: fires %d", i, !!x);
		if (x && cases[i].text)
			CU_CHECK(strstr(x->text, cases[i].text) != NULL, "case %zu: %s", i, x->text);
	}
}

#define BENCH_DOC(kind) DOC_HEAD "\"dutprobe\",\"version\":\"0\"},\"target\":{\"path\":\"/dev/nvme0n1\"," \
	"\"kind\":\"" kind "\",\"link\":\"PCIe 4.0 x4\",\"link_ceiling_bytes_per_s\":7.8e9},\"config\":{\"test\":" \
	"\"bench\"},\"phases\":[{\"name\":\"RND4K Q32T1 W\",\"metrics\":{\"iops\":{\"value\":90000,\"unit\":" \
	"\"IO/s\"},\"bw\":{\"value\":3.6e8,\"unit\":\"B/s\"}}}]}"
#define FILL_DOC DOC_HEAD "\"dutprobe\",\"version\":\"0\"},\"target\":{\"path\":\"/dev/nvme0n1\"," \
	"\"kind\":\"block device\",\"link\":\"PCIe 4.0 x4\",\"link_ceiling_bytes_per_s\":7.8e9},\"config\":{\"test\":" \
	"\"fill\",\"block_bytes\":4096,\"preconditioned\":true},\"phases\":[{\"name\":\"level_50%\",\"metrics\":" \
	"{\"iops_qd8\":{\"value\":50000,\"unit\":\"IO/s\"}}}]}"
#define BENCH_STEP "{\"name\":\"bench\",\"status\":\"ok\",\"results\":[\"bench.json\"]}"
#define FILL_STEP "{\"name\":\"fill\",\"status\":\"ok\",\"results\":[\"fill.json\"]}"

/* A bench write test with nothing written before it, or on a file the step made, is on an empty drive. */
static void test_trap_empty_drive(void)
{
	{
		_cleanup_(rundir_model_freep) struct rundir_model *m = model("", BENCH_STEP);
		_cleanup_(findings_freep) struct findings *f = NULL;
		const struct finding *x;

		set_doc(m, 0, BENCH_DOC("block device"));
		f = build(m);
		x = find(f, FIND_EMPTY_DRIVE);
		CU_CHECK(x && strstr(x->text, "a, step bench: the drive was empty or not preconditioned for this "
				     "write test (no fill or sequential write ran"), "bench alone: %s",
			 x ? x->text : "(none)");
		CU_CHECK(find(f, FIND_NO_FLASH) == NULL, "a PCIe device has flash behind it");
	}
	{
		_cleanup_(rundir_model_freep) struct rundir_model *m = model("", FILL_STEP "," BENCH_STEP);
		_cleanup_(findings_freep) struct findings *f = NULL;

		set_doc(m, 0, FILL_DOC);
		set_doc(m, 1, BENCH_DOC("block device"));
		f = build(m);
		CU_CHECK(find(f, FIND_EMPTY_DRIVE) == NULL, "fill before bench: no finding");
	}
	{
		_cleanup_(rundir_model_freep) struct rundir_model *m = model("", FILL_STEP "," BENCH_STEP);
		_cleanup_(findings_freep) struct findings *f = NULL;
		const struct finding *x;

		set_doc(m, 0, FILL_DOC);
		set_doc(m, 1, BENCH_DOC("file"));
		f = build(m);
		x = find(f, FIND_EMPTY_DRIVE);
		CU_CHECK(x && strstr(x->text, "the target is a file the step created"), "bench file: %s",
			 x ? x->text : "(none)");
	}
}

#define SLC_STEP "{\"name\":\"slc\",\"status\":\"ok\",\"results\":[\"slc.json\"]}"
#define SLC_DOC(before) DOC_HEAD "\"dutprobe\",\"version\":\"0\"},\"target\":{\"path\":\"/dev/sdb\"," \
	"\"kind\":\"block device\",\"link\":\"USB 3.0 (5000 Mbit/s) via bridge\",\"link_ceiling_bytes_per_s\":" \
	"4.5e8},\"config\":{\"test\":\"slc\"},\"phases\":[{\"name\":\"write\",\"duration_ns\":1000000000," \
	"\"metrics\":{\"bytes_written\":{\"value\":4e8,\"unit\":\"B\"}},\"extra\":{\"knees\":[{\"bytes_before\":" \
	"1e8,\"bw_before\":" before ",\"bw_after\":1e8,\"rel_change\":-0.5,\"confidence\":\"high\"}]}}]}"

/* A figure above the link in a step that is not bench: slc's level, and an OLTP step's trace. */
static void test_trap_ceiling(void)
{
	{
		_cleanup_(rundir_model_freep) struct rundir_model *m = model("", SLC_STEP);
		_cleanup_(findings_freep) struct findings *f = NULL;
		const struct finding *x;

		set_doc(m, 0, SLC_DOC("3.3891e9"));
		f = build(m);
		x = find(f, FIND_CEILING);
		CU_CHECK(x && strstr(x->text, "a, step slc: the sequential write level of 3,389 MB/s exceeds the "
				     "interface ceiling of 450 MB/s (USB 3.0 (5000 Mbit/s) via bridge)"), "slc: %s",
			 x ? x->text : "(none)");
	}
	{
		_cleanup_(rundir_model_freep) struct rundir_model *m = model("", SLC_STEP);
		_cleanup_(findings_freep) struct findings *f = NULL;

		set_doc(m, 0, SLC_DOC("2e8"));
		f = build(m);
		CU_CHECK(find(f, FIND_CEILING) == NULL, "slc below the ceiling");
	}
	{
		/* identify says 450 MB/s; the OLTP step moved 4,000 x 8 KiB in 10 ms through dutfs */
		_cleanup_(rundir_model_freep) struct rundir_model *m = model("", IDENT_STEP "," OLTP_STEP);
		_cleanup_(findings_freep) struct findings *f = NULL;
		const struct finding *x;
		char d[2048];

		ident_doc(d, sizeof(d), "directory", "", "usb", "USB 3.0 (5000 Mbit/s) via bridge", 4.5e8);
		set_doc(m, 0, d);
		oltp_doc(d, sizeof(d), 10000, 1000, 1000);
		set_doc(m, 1, d);
		attach_trace(m, 4000, 0, 8192, 10000000ull);
		f = build(m);
		x = find(f, FIND_CEILING);
		CU_CHECK(x && strstr(x->text, "a, step oltp: the traced I/O (reads and writes) of 3,277 MB/s "
				     "exceeds the interface ceiling of 450 MB/s"), "oltp: %s", x ? x->text : "(none)");
	}
}

/* A DSS query whose plan changed between repetitions is named and out of m-time. */
static void test_trap_dss_unstable(void)
{
	_cleanup_(rundir_model_freep) struct rundir_model *m =
		model("", "{\"name\":\"dss\",\"status\":\"ok\",\"results\":[\"dss.json\"]}");
	_cleanup_(findings_freep) struct findings *f = NULL;
	_cleanup_free_ char *text = NULL;
	const struct finding *x;
	char p[512];
	FILE *fp;
	long len;

	snprintf(p, sizeof(p), "%s/tests/tools/fixtures/compare/h-unstable.json", cu_source_root());
	fp = fopen(p, "r");
	if (!fp || fseek(fp, 0, SEEK_END) < 0 || (len = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET) < 0 ||
	    !(text = calloc(1, (size_t)len + 1)) || fread(text, 1, (size_t)len, fp) != (size_t)len) {
		cu_fail("read %s", p);
		if (fp)
			fclose(fp);
		return;
	}
	fclose(fp);
	set_doc(m, 0, text);
	f = build(m);
	x = find(f, FIND_DSS_UNSTABLE);
	CU_CHECK(x && strstr(x->text, "a, step dss: the plan of Q2 changed between repetitions") &&
		 strstr(x->text, "it is out of m-time"), "%s", x ? x->text : "(none)");
}

/* Two configurations, 2 repetitions each, TPS ranges apart: shown only when interleaved. */
static void test_trap_sequential_configs(void)
{
	static const struct { const char *t[4]; bool shown; const char *verdict; } cases[] = {
		{ { "2026-12-01T10:00:00Z", "2026-12-01T10:01:00Z", "2026-12-01T10:02:00Z", "2026-12-01T10:03:00Z" },
		  false, "ran one after another, not interleaved" },
		{ { "2026-12-01T10:00:00Z", "2026-12-01T10:02:00Z", "2026-12-01T10:01:00Z", "2026-12-01T10:03:00Z" },
		  true, "the difference exceeds the run-to-run spread" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[4096], reps[2][1024];
		_cleanup_(rundir_model_freep) struct rundir_model *m = NULL;
		_cleanup_(findings_freep) struct findings *f = NULL;
		struct dut_error err = { { 0 } };
		const struct finding *x;

		for (int c = 0; c < 2; c++)
			snprintf(reps[c], sizeof(reps[c]),
				 "{\"rep\":1,\"dir\":\"c%d/r1\",\"status\":\"complete\",\"steps\":[{\"name\":\"oltp\","
				 "\"status\":\"ok\",\"started_at\":\"%s\",\"results\":[\"o.json\"]}]},"
				 "{\"rep\":2,\"dir\":\"c%d/r2\",\"status\":\"complete\",\"steps\":[{\"name\":\"oltp\","
				 "\"status\":\"ok\",\"started_at\":\"%s\",\"results\":[\"o.json\"]}]}",
				 c, cases[i].t[c * 2], c, cases[i].t[c * 2 + 1]);
		snprintf(text, sizeof(text), "{" HEAD ",\"configs\":["
			 "{\"index\":0,\"name\":\"A\",\"dir\":\"c0\",\"status\":\"complete\",\"reps\":[%s]},"
			 "{\"index\":1,\"name\":\"B\",\"dir\":\"c1\",\"status\":\"complete\",\"reps\":[%s]}]}",
			 reps[0], reps[1]);
		if (rundir_manifest_parse(text, strlen(text), "m.json", &m, &err) < 0) {
			cu_fail("manifest: %s", err.msg);
			continue;
		}
		for (int c = 0; c < 2; c++)
			for (int r = 0; r < 2; r++) {
				char d[2048];

				oltp_doc(d, sizeof(d), 1000, 100, c ? 200 + r : 100 + r);
				m->configs[c].reps[r].steps[0].docs[0].doc = doc(d);
			}
		f = build(m);
		x = find(f, FIND_TPS_RATIO);
		CU_CHECK(x && x->exceeds && x->shown == cases[i].shown && strstr(x->text, cases[i].verdict),
			 "case %zu: %s", i, x ? x->text : "(none)");
	}
}

/* pgload dss document: queries 1 and 2, one run each, q1 taking t_s seconds and q2 2 t_s. */
static void dss_doc(char *buf, size_t n, double t_s)
{
	snprintf(buf, n, DOC_HEAD "\"pgload\",\"version\":\"0\"},\"target\":{\"workload\":"
		 "\"TPC-H-derived decision support (not comparable to TPC-H results)\"},\"config\":"
		 "{\"scale_factor\":0.01,\"data_seed\":2,\"threads\":2,\"params\":\"default\","
		 "\"param_seed\":1,\"repetitions\":1,\"statement_timeout_ns\":0,\"statistics_target\":1000,"
		 "\"sink\":\"copy\"},\"phases\":[{\"name\":\"queries\",\"duration_ns\":%.0f,\"extra\":"
		 "{\"status\":\"ok\",\"queries\":["
		 "{\"query\":1,\"title\":\"a\",\"rep\":1,\"status\":\"ok\",\"duration_ns\":%.0f,\"rows\":1,"
		 "\"params\":[],\"plan_fingerprint\":\"aaaa\",\"plan_shape\":\"Seq Scan\"},"
		 "{\"query\":2,\"title\":\"b\",\"rep\":1,\"status\":\"ok\",\"duration_ns\":%.0f,\"rows\":1,"
		 "\"params\":[],\"plan_fingerprint\":\"bbbb\",\"plan_shape\":\"Seq Scan\"}]}}]}",
		 3 * t_s * 1e9, t_s * 1e9, 2 * t_s * 1e9);
}

static char *answer_md(struct rundir_model *m);

/*
 * Two DSS configurations, B twice as slow: the m-time difference is shown
 * only with repetitions whose ranges do not overlap, interleaved; the Answer
 * says when none is.
 */
static void test_dss_mtime_verdict(void)
{
	static const struct { unsigned reps; const char *t[4]; bool shown; const char *verdict; } cases[] = {
		{ 1, { "2026-12-01T10:00:00Z", "2026-12-01T10:01:00Z" }, false, "with one repetition" },
		{ 2, { "2026-12-01T10:00:00Z", "2026-12-01T10:01:00Z", "2026-12-01T10:02:00Z", "2026-12-01T10:03:00Z" },
		  false, "ran one after another, not interleaved" },
		{ 2, { "2026-12-01T10:00:00Z", "2026-12-01T10:02:00Z", "2026-12-01T10:01:00Z", "2026-12-01T10:03:00Z" },
		  true, "the difference exceeds the run-to-run spread" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[4096], reps[2][1024];
		_cleanup_(rundir_model_freep) struct rundir_model *m = NULL;
		_cleanup_(findings_freep) struct findings *f = NULL;
		struct dut_error err = { { 0 } };
		const struct finding *x;
		unsigned nr = cases[i].reps;

		for (unsigned c = 0; c < 2; c++) {
			size_t l = 0;

			reps[c][0] = 0;
			for (unsigned r = 0; r < nr; r++)
				l += (size_t)snprintf(reps[c] + l, sizeof(reps[c]) - l,
					"%s{\"rep\":%u,\"dir\":\"c%u/r%u\",\"status\":\"complete\",\"steps\":"
					"[{\"name\":\"dss\",\"status\":\"ok\",\"started_at\":\"%s\","
					"\"results\":[\"d.json\"]}]}", r ? "," : "", r + 1, c, r + 1,
					cases[i].t[c * nr + r]);
		}
		snprintf(text, sizeof(text), "{" HEAD ",\"configs\":["
			 "{\"index\":0,\"name\":\"A\",\"dir\":\"c0\",\"status\":\"complete\",\"reps\":[%s]},"
			 "{\"index\":1,\"name\":\"B\",\"dir\":\"c1\",\"status\":\"complete\",\"reps\":[%s]}]}",
			 reps[0], reps[1]);
		if (rundir_manifest_parse(text, strlen(text), "m.json", &m, &err) < 0) {
			cu_fail("manifest: %s", err.msg);
			continue;
		}
		for (unsigned c = 0; c < 2; c++)
			for (unsigned r = 0; r < nr; r++) {
				char d[2048];

				dss_doc(d, sizeof(d), (c ? 2.0 : 1.0) + 0.01 * r);
				m->configs[c].reps[r].steps[0].docs[0].doc = doc(d);
			}
		f = build(m);
		x = find(f, FIND_DSS_PLANS);
		CU_CHECK(x && x->shown == cases[i].shown && strstr(x->text, cases[i].verdict) &&
			 strstr(x->text, "(2.00x)"), "case %zu: %s", i, x ? x->text : "(none)");
		{
			_cleanup_free_ char *md = answer_md(m);
			bool says = md && strstr(md, "No DSS m-time difference between configurations is shown");

			CU_CHECK(md && says == !cases[i].shown, "case %zu: the Answer %s", i,
				 says ? "says none is shown" : "does not say none is shown");
		}
	}
}

/* DSS queries that read (almost) nothing of what the load wrote: memory served them. */
static void test_trap_dss_memory(void)
{
	static struct dut_trace_marker mk[] = { { 1000, "dss/load start" }, { 5000, "dss/queries start" } };
	static const struct { unsigned query_reads; bool trap; } cases[] = { { 8, true }, { 200, false } };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		_cleanup_(rundir_model_freep) struct rundir_model *m =
			model("", "{\"name\":\"dss\",\"status\":\"ok\",\"results\":[\"d.json\"]}");
		_cleanup_(findings_freep) struct findings *f = NULL;
		const struct finding *x;
		char d[2048];
		size_t n = 0;

		dss_doc(d, sizeof(d), 1.0);
		set_doc(m, 0, d);

		/* the load writes 1,024 pages (8 MiB) of a table; the queries read some back */
		for (unsigned k = 0; k < 1024; k++)
			tr_recs[n++] = (struct dut_trace_rec){ .ts_ns = 1001 + k, .offset = k * 8192ull, .len = 8192,
				.result = 8192, .lat_ns = 10000, .file_id = 1, .op = DUT_OP_WRITE };
		for (unsigned k = 0; k < cases[i].query_reads; k++)
			tr_recs[n++] = (struct dut_trace_rec){ .ts_ns = 5001 + k, .offset = k * 8192ull, .len = 8192,
				.result = 8192, .lat_ns = 100000, .file_id = 1, .op = DUT_OP_READ };
		tr_recs[n++] = (struct dut_trace_rec){ .ts_ns = 9000, .file_id = 1, .op = DUT_OP_RELEASE };
		{
			struct dut_trace t = { .files = tr_files, .nfiles = 2, .recs = tr_recs, .nrecs = n,
					       .markers = mk, .nmarkers = 2, .has_footer = true };

			if (report_build(&t, NULL, &m->configs[0].reps[0].io) < 0)
				cu_fail("report_build");
		}
		f = build(m);
		x = find(f, FIND_PAGE_CACHE);
		if (cases[i].trap)
			CU_CHECK(x && strstr(x->text, "a, step dss: the queries measured memory, not the device: "
					     "they read 0.1 MiB from it against about 8.0 MiB"),
				 "case %zu: %s", i, x ? x->text : "(none)");
		else
			CU_CHECK(!x, "case %zu: unexpected: %s", i, x ? x->text : "");
	}
}

/* A write share is said in the unit of its total: never "0.0 of 0.0 MiB". */
static void test_no_share_of_zero(void)
{
	_cleanup_(rundir_model_freep) struct rundir_model *m = model("", OLTP_STEP);
	_cleanup_(findings_freep) struct findings *f = NULL;
	const struct finding *x;
	char d[2048];

	oltp_doc(d, sizeof(d), 10, 1000, 1000);
	set_doc(m, 0, d);
	attach_trace(m, 20, 3, 100, 1000000000ull);
	f = build(m);
	x = find(f, FIND_WRITE_BYTES);
	CU_CHECK(x && strstr(x->text, "100% of the bytes written went to WAL (300 of 300 bytes)"), "%s",
		 x ? x->text : "(none)");
	for (size_t i = 0; f && i < f->n; i++)
		CU_CHECK(!strstr(f->v[i].text, "0.0 of 0.0"), "share of nothing: %s", f->v[i].text);
}

/* A clean run: PCIe disk, reads reach the device, short connections, interleaved: no trap. */
static void test_no_trap_on_a_clean_run(void)
{
	_cleanup_(rundir_model_freep) struct rundir_model *m = model("", IDENT_STEP "," OLTP_STEP);
	_cleanup_(findings_freep) struct findings *f = NULL;
	char d[2048];

	ident_doc(d, sizeof(d), "partition", "", "pcie", "PCIe 4.0 x4", 7.8e9);
	set_doc(m, 0, d);
	oltp_doc(d, sizeof(d), 10000, 995, 1000);
	set_doc(m, 1, d);
	attach_trace(m, 4000, 100, 8192, 10000000000ull);
	f = build(m);
	for (size_t i = 0; f && i < f->n; i++)
		CU_CHECK(!f->v[i].trap, "trap on a clean run: %s", f->v[i].text);
}

/* The report opens with the answer: what was asked, the numbers, and why from the trace. */
static void test_answer_section(void)
{
	_cleanup_(rundir_model_freep) struct rundir_model *m = model("", OLTP_STEP);
	_cleanup_(findings_freep) struct findings *f = NULL;
	_cleanup_(rdoc_freep) struct rdoc *d = NULL;
	_cleanup_free_ char *md = NULL;
	struct charts none = { 0 };
	char doc_text[2048];
	const char *ans, *run;

	oltp_doc(doc_text, sizeof(doc_text), 10000, 1000, 1000);
	set_doc(m, 0, doc_text);
	/* 4,000 reads of 0.2 ms for 10,000 transactions of 2 ms mean: 4% of the time; fsync 1 ms vs p50 1.5 ms */
	attach_trace(m, 4000, 100, 8192, 10000000000ull);
	f = build(m);
	if (!f || report_run_build(m, f, &none, &d) < 0 || render_md(d, &md) < 0) {
		cu_fail("report_run_build");
		return;
	}
	ans = strstr(md, "## Answer");
	run = strstr(md, "## Run");
	CU_CHECK(ans && run && ans < run && ans < strstr(md, "## Findings"), "answer first:\n%s", md);
	CU_CHECK(strstr(md, "Asked: does the trap fire (experiment x).") != NULL, "asked:\n%s", md);
	CU_CHECK(strstr(md, "| a | oltp | TPS (tx/s) | 1,000.0 | (1 value) | 1 | 1.00x |") != NULL,
		 "numbers:\n%s", md);
	CU_CHECK(strstr(md, "- a, step oltp (1,000.0 tx/s): not limited by the device reads or WAL flushes "
			"the run saw (4% and 1% of the transaction time)") != NULL, "why:\n%s", md);
	CU_CHECK(strstr(md, "device reads: 0.40 per transaction, p50 0.200 ms, p99 0.200 ms; they can explain "
			"4% of the mean transaction time (2.00 ms)") != NULL, "reads:\n%s", md);
	CU_CHECK(strstr(md, "WAL flushes: 0.01 fsync per commit, p50 1.000 ms, p99 1.000 ms, against a "
			"transaction latency p50 of 1.500 ms (commits rarely flushed") != NULL, "wal:\n%s", md);
	CU_CHECK(strstr(md, "CPU: not in the result documents") != NULL, "missing evidence said:\n%s", md);

	/* 1,000 flushes of 1 ms for 10,000 commits: each commit waits for one, 67% of its p50 */
	rdoc_free(d);
	d = NULL;
	free(md);
	md = NULL;
	report_free(m->configs[0].reps[0].io);
	m->configs[0].reps[0].io = NULL;
	attach_trace(m, 400, 1000, 8192, 10000000000ull);
	if (report_run_build(m, f, &none, &d) < 0 || render_md(d, &md) < 0) {
		cu_fail("report_run_build");
		return;
	}
	CU_CHECK(strstr(md, "- a, step oltp (1,000.0 tx/s): limited by WAL flushes (67% of the transaction time, from "
			"the trace). Evidence: device reads: 0.0400 per transaction") && strstr(md, "(a commit waits for one flush: 67% of it)"), "wal-bound:\n%s", md);
}


/*
 * A pgload run document with the server-side evidence (pgload/servstat.h):
 * 10,000 commits in 10 s, 8 clients, mean latency 2 ms; the counters of
 * PostgreSQL 15 (or 13: no pg_stat_wal), wait events, CPU per transaction.
 */
static void server_doc(char *buf, size_t n, int version, double server_s_per_txn)
{
	bool v13 = version < 140000;
	char wal[400];

	if (v13)
		snprintf(wal, sizeof(wal), "\"wal_sync\":null,\"wal_sync_time\":null,\"wal_records\":null");
	else
		snprintf(wal, sizeof(wal), "\"wal_sync\":9000,\"wal_sync_time\":4500,\"wal_records\":40000");
	snprintf(buf, n, DOC_HEAD "\"pgload\",\"version\":\"0\"},\"config\":{\"workload\":\"oltp\",\"clients\":8},"
		 "\"phases\":[{\"name\":\"run\",\"duration_ns\":10000000000,\"metrics\":{"
		 "\"tps\":{\"value\":1000,\"unit\":\"tx/s\"},\"committed\":{\"value\":10000,\"unit\":\"tx\"},"
		 "\"tps_including_connections\":{\"value\":1000,\"unit\":\"tx/s\"},"
		 "\"tps_excluding_connections\":{\"value\":1000,\"unit\":\"tx/s\"}},"
		 "\"latency\":{\"txn\":{\"unit\":\"ns\",\"count\":10000,\"min\":1000,\"max\":9000000,"
		 "\"mean\":2000000,\"stddev\":1000,\"p50\":1500000,\"p90\":3000000,\"p99\":8000000,\"p99.9\":9000000,\"p99.99\":9000000}},"
		 "\"series\":{\"per_second\":{\"columns\":[\"t_s\",\"tps\"],\"units\":[\"s\",\"tx/s\"],"
		 "\"rows\":[[1,1000],[2,1000],[3,600],[4,650],[5,1000],[6,300]]},"
		 "\"server_per_second\":{\"columns\":[\"t_s\",\"samples\",\"checkpointer_busy\"],"
		 "\"units\":[\"s\",\"samples\",\"share\"],\"rows\":[[1,10,0],[2,10,0],[3,10,0.5],[4,10,1],[5,10,0],[6,3,0]]}},"
		 "\"extra\":{\"server\":{\"collected\":true,\"server_version_num\":%d,\"interval_s\":10.1,"
		 "\"counters\":{\"xact_commit\":10010,%s,\"checkpoints_timed\":0,\"checkpoints_req\":1,"
		 "\"buffers_checkpoint\":2345,\"checkpoint_write_time\":12300,\"checkpoint_sync_time\":200,"
		 "\"blks_read\":500,\"blk_read_time\":100},"
		 "\"absent\":{%s},"
		 "\"waits\":{\"samples\":100,\"backend_samples\":800,\"events\":["
		 "{\"process\":\"backend\",\"type\":\"IO\",\"event\":\"WALSync\",\"count\":328},"
		 "{\"process\":\"backend\",\"type\":\"Client\",\"event\":\"ClientRead\",\"count\":240},"
		 "{\"process\":\"backend\",\"type\":\"CPU\",\"event\":\"running\",\"count\":136},"
		 "{\"process\":\"backend\",\"type\":\"LWLock\",\"event\":\"WALWrite\",\"count\":96},"
		 "{\"process\":\"checkpointer\",\"type\":\"Activity\",\"event\":\"CheckpointerMain\",\"count\":90}]},"
		 "\"cpu\":{\"cpus\":2,\"wall_s\":10,\"server_s_per_txn\":%g,\"client_s_per_txn\":0.000025}}}}]}",
		 version, wal, v13 ? "\"wal_sync\":\"PostgreSQL 13 has no pg_stat_wal (it is new in 14)\","
		 "\"wal_sync_time\":\"PostgreSQL 13 has no pg_stat_wal (it is new in 14)\"" : "", server_s_per_txn);
}

static char *answer_md(struct rundir_model *m)
{
	_cleanup_(findings_freep) struct findings *f = build(m);
	_cleanup_(rdoc_freep) struct rdoc *d = NULL;
	struct charts none = { 0 };
	char *md = NULL;

	if (!f || report_run_build(m, f, &none, &d) < 0 || render_md(d, &md) < 0)
		cu_fail("report_run_build");
	return md;
}

/* Other work on the machine during an OLTP step: named with its share, or not a finding. */
static void test_trap_contended(void)
{
	static const char cpu_head[] = "\"cpu\":{\"cpus\":2,\"wall_s\":10,";
	static const struct { const char *dutfs; double busy, steal; const char *want; } cases[] = {
		{ ",\"dutfs_cpu_s\":2", 18, 0, "the machine's CPUs were 90% busy, the server and pgload used "
		  "40%, dutfs 10%, other processes 40%, and the hypervisor stole 0%" },
		{ ",\"dutfs_cpu_s\":2", 12, 0, NULL },                     /* others 10% */
		{ "", 14, 0, NULL },                                        /* dutfs and others 30% */
		{ "", 18, 0, "dutfs and other processes 50%" },
		{ ",\"dutfs_cpu_s\":2", 10, 3, "the hypervisor stole 15%" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char step[256], d[8192], tail[8192], *at;
		_cleanup_(rundir_model_freep) struct rundir_model *m = NULL;
		_cleanup_(findings_freep) struct findings *f = NULL;
		const struct finding *x;

		snprintf(step, sizeof(step), "{\"name\":\"oltp\",\"status\":\"ok\",\"wall_ns\":10000000000%s,"
			 "\"results\":[\"oltp.json\"]}", cases[i].dutfs);
		m = model("", step);
		server_doc(d, sizeof(d), 150020, 0.0001);
		/* 10 s on 2 CPUs: 20 CPU-seconds; the server and pgload used 8 of them */
		at = strstr(d, cpu_head);
		CU_ASSERT_FATAL(at != NULL);
		snprintf(tail, sizeof(tail), "%s", at + strlen(cpu_head));
		snprintf(at, sizeof(d) - (size_t)(at - d), "%s\"server_s\":7,\"client_s\":1,\"host\":{\"busy_s\":%g,"
			 "\"steal_s\":%g,\"iowait_s\":0,\"psi_cpu_some\":0.5},%s", cpu_head, cases[i].busy,
			 cases[i].steal, tail);
		set_doc(m, 0, d);
		f = build(m);
		x = find(f, FIND_CONTENDED);
		if (!cases[i].want)
			CU_CHECK(!x, "case %zu: unexpected: %s", i, x ? x->text : "");
		else
			CU_CHECK(x && x->trap && strstr(x->text, cases[i].want) &&
				 strstr(x->text, "a, step oltp: other work competed for the CPUs"),
				 "case %zu: %s", i, x ? x->text : "(none)");
	}
}

/* The why from PostgreSQL's counters, wait events and CPU, beside the trace's figures. */
static void test_answer_server_evidence(void)
{
	_cleanup_(rundir_model_freep) struct rundir_model *m = model("", OLTP_STEP);
	_cleanup_free_ char *md = NULL;
	char d[8192];

	server_doc(d, sizeof(d), 150020, 0.0001);
	set_doc(m, 0, d);
	attach_trace(m, 4000, 100, 8192, 10000000000ull);
	md = answer_md(m);
	if (!md)
		return;
	CU_CHECK(strstr(md, "- a, step oltp, from the server: PostgreSQL 15.20 says: pg_stat_wal: 0.90 WAL syncs "
			"per commit, 0.500 ms per sync (wal_sync_time); checkpoints during the step: 1, 2,345 buffers "
			"written, write 12.30 s, sync 0.20 s; TPS median 625 in the 2 s the checkpointer worked, 1,000 "
			"in the other 3 s (first run, per-second series); pg_stat_database: 0.0500 blocks read per "
			"transaction, 0.200 ms per read (blk_read_time); wait events: IO:WALSync 41% of backend "
			"samples, Client:ClientRead 30%, CPU:running 17%, LWLock:WALWrite 12%.") != NULL,
		 "server line:\n%s", md);
	/* (0.100 + 0.025 ms) x 8 clients / 2 CPUs = 0.5 ms of the 2 ms mean: 25% */
	CU_CHECK(strstr(md, "CPU per transaction: server 0.100 ms, client (pgload) 0.025 ms; times 8 clients over 2 "
			"usable CPUs against the mean transaction time of 2.00 ms, CPU explains 25% of it; ") != NULL,
		 "cpu:\n%s", md);
	/* WAL: 1% by the trace, 0.5 ms per sync / 1.5 ms p50 = 33% by wal_sync_time, 41% + 12% of the
	 * backends' samples waiting for WAL: the largest view counts, and is named */
	CU_CHECK(strstr(md, "- a, step oltp (1,000.0 tx/s): limited by WAL flushes (53% of the transaction time, "
			"from the wait events).") != NULL, "verdict:\n%s", md);
	CU_CHECK(strstr(md, "read share of the transaction time by source: 4% the trace, 0% blk_read_time, 0% the "
			"wait events; WAL share by source: 1% the trace, 33% wal_sync_time, 53% the wait events.")
		 != NULL, "views:\n%s", md);
	CU_CHECK(strstr(md, "CPU: not in the result documents") == NULL, "CPU is in them:\n%s", md);

	/* 0.4 ms of server CPU per transaction: (0.425 x 4) / 2 ms = 85%: CPU-bound, from the evidence */
	dut_result_free(m->configs[0].reps[0].steps[0].docs[0].doc);
	server_doc(d, sizeof(d), 150020, 0.0004);
	set_doc(m, 0, d);
	free(md);
	md = answer_md(m);
	CU_CHECK(md && strstr(md, "- a, step oltp (1,000.0 tx/s): limited by CPU (server and client CPU explain 85% "
			      "of the transaction time)"), "cpu-bound:\n%s", md ? md : "");
}

/* PostgreSQL 13 has no pg_stat_wal: the answer says so, and shows no 0. */
static void test_answer_server_pg13(void)
{
	_cleanup_(rundir_model_freep) struct rundir_model *m = model("", OLTP_STEP);
	_cleanup_free_ char *md = NULL;
	char d[8192];

	server_doc(d, sizeof(d), 130012, 0.0001);
	set_doc(m, 0, d);
	attach_trace(m, 4000, 100, 8192, 10000000000ull);
	md = answer_md(m);
	if (!md)
		return;
	CU_CHECK(strstr(md, "from the server: PostgreSQL 13.12 says: WAL syncs absent (PostgreSQL 13 has no "
			"pg_stat_wal (it is new in 14)), so WAL flushes per commit are known only where a dutfs trace saw them; "
			"checkpoints during the step: 1") != NULL, "pg13:\n%s", md);
	CU_CHECK(strstr(md, "0.00 WAL syncs") == NULL && strstr(md, "pg_stat_wal: 0") == NULL, "no zero:\n%s", md);
}

/* The two load figures measure different things and say so. */
static void test_answer_load_labels(void)
{
	_cleanup_(rundir_model_freep) struct rundir_model *m =
		model("", "{\"name\":\"load\",\"status\":\"ok\",\"results\":[\"load.json\"]}");
	_cleanup_free_ char *md = NULL;

	set_doc(m, 0, DOC_HEAD "\"pgload\",\"version\":\"0\"},\"config\":{\"workload\":\"oltp-init\"},"
		"\"phases\":[{\"name\":\"init/create\",\"duration_ns\":500000000},"
		"{\"name\":\"init/load\",\"duration_ns\":4420000000},"
		"{\"name\":\"init/vacuum\",\"duration_ns\":1080000000},"
		"{\"name\":\"init/pkeys\",\"duration_ns\":2000000000}]}");
	md = answer_md(m);
	CU_CHECK(md && strstr(md, "| a | load | COPY load phase of pgload init (init/load, s) | 4.42 |") &&
		 strstr(md, "| a | load | pgload init, all phases (s) | 8.00 |"), "load rows:\n%s", md ? md : "");
}

#define OLTP_STEP2 "{\"name\":\"oltp\",\"status\":\"ok\",\"results\":[\"oltp.json\",\"oltp-2.json\"]}"

/*
 * A step with repeat = 2 has two runs inside one marker of the trace: its
 * per-transaction figures divide by both runs' transactions (4,000 reads and
 * 1,000 fdatasyncs for 2 x 10,000 transactions: 0.20 and 0.05, not 0.40 and
 * 0.10), as the page-cache trap does.
 */
static void test_answer_repeated_step(void)
{
	_cleanup_(rundir_model_freep) struct rundir_model *m = model("", OLTP_STEP2);
	_cleanup_free_ char *md = NULL;
	char doc_text[2048];

	CU_ASSERT_FATAL(m && m->configs[0].reps[0].steps[0].ndocs == 2);
	oltp_doc(doc_text, sizeof(doc_text), 10000, 1000, 1000);
	m->configs[0].reps[0].steps[0].docs[0].doc = doc(doc_text);
	m->configs[0].reps[0].steps[0].docs[1].doc = doc(doc_text);
	attach_trace(m, 4000, 1000, 8192, 10000000000ull);
	md = answer_md(m);
	CU_CHECK(md && strstr(md, "device reads: 0.20 per transaction") != NULL, "per run, not per step:\n%s", md ? md : "");
	CU_CHECK(md && strstr(md, "they can explain 2% of the mean transaction time") != NULL, "share:\n%s", md ? md : "");
	CU_CHECK(md && strstr(md, "WAL flushes: 0.05 fsync per commit") != NULL, "fsyncs:\n%s", md ? md : "");
}

/* The memory sentence says whether the database fit in the budget. */
static void test_answer_memory_fit(void)
{
	static const struct {
		const char *budget;   /* the manifest's memory_budget_bytes */
		const char *says;
	} rows[] = {
		{ "83886080", "80 MiB budget with a 384 MiB database (4.8x the budget), so the data set did not fit" },
		{ "1073741824", "1,024 MiB budget with a 384 MiB database (0.4x the budget): the data set fit in its memory" },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		char extra[64], doc_text[2048];
		struct rundir_model *m;
		char *md;

		snprintf(extra, sizeof(extra), ",\"memory_budget_bytes\":%s", rows[i].budget);
		m = model(extra, OLTP_STEP);
		oltp_doc(doc_text, sizeof(doc_text), 10000, 1000, 1000);
		set_doc(m, 0, doc_text);
		md = m ? answer_md(m) : NULL;
		CU_CHECK(md && strstr(md, rows[i].says) != NULL, "budget %s:\n%s", rows[i].budget, md ? md : "");
		free(md);
		rundir_model_free(m);
	}
}

/*
 * Connection set-up in the why: alone it is the limit; beside a CPU limit of
 * the transactions it is said too (slc-restore's connect-bound step read
 * "limited by CPU" with 70% of the step spent connecting, and nothing more).
 */
static void test_answer_connections(void)
{
	char doc_text[4096];
	char *md;
	struct rundir_model *m = model("", OLTP_STEP);

	oltp_doc(doc_text, sizeof(doc_text), 10000, 300, 1000);
	set_doc(m, 0, doc_text);
	md = m ? answer_md(m) : NULL;
	CU_CHECK(md && strstr(md, "limited by connection set-up (70% of the step's time)") != NULL,
		 "connections alone:\n%s", md ? md : "");
	free(md);
	rundir_model_free(m);

	/* the server-evidence document with 8 clients at 1 ms CPU per 2 ms transaction: CPU-bound */
	m = model("", OLTP_STEP);
	server_doc(doc_text, sizeof(doc_text), 150000, 0.001);
	{
		char *at = strstr(doc_text, "\"tps_including_connections\":{\"value\":1000");

		CU_ASSERT_FATAL(at != NULL);
		memcpy(at + strlen("\"tps_including_connections\":{\"value\":"), " 300", 4);
	}
	set_doc(m, 0, doc_text);
	md = m ? answer_md(m) : NULL;
	CU_CHECK(md && strstr(md, "; besides, connection set-up took 70% of the step's time (300.0 tx/s "
			      "including it)") != NULL, "beside CPU:\n%s", md ? md : "");
	free(md);
	rundir_model_free(m);
}

/* Nothing the run measured explains the time: the Answer names the largest other waits. */
static void test_answer_other_waits(void)
{
	static const struct { const char *from, *to; } edits[] = {
		{ "\"wal_sync_time\":4500", "\"wal_sync_time\":450" },
		{ "\"event\":\"WALSync\",\"count\":328", "\"event\":\"WALSync\",\"count\":8" },
		{ "\"event\":\"WALWrite\",\"count\":96", "\"event\":\"SyncRep\",\"count\":300" },
	};
	_cleanup_(rundir_model_freep) struct rundir_model *m = model("", OLTP_STEP);
	_cleanup_free_ char *md = NULL;
	char d[8192], tail[8192];

	server_doc(d, sizeof(d), 150020, 0.0001);
	for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
		char *at = strstr(d, edits[i].from);

		CU_ASSERT_FATAL(at != NULL);
		snprintf(tail, sizeof(tail), "%s", at + strlen(edits[i].from));
		snprintf(at, sizeof(d) - (size_t)(at - d), "%s%s", edits[i].to, tail);
	}
	/* SyncRep is an IPC wait, not an LWLock one */
	{
		char *at = strstr(d, "\"type\":\"LWLock\",\"event\":\"SyncRep\"");

		CU_ASSERT_FATAL(at != NULL);
		memcpy(at + 8, "IPC\",   ", 8);
		memmove(at + 13, at + 16, strlen(at + 16) + 1);
	}
	set_doc(m, 0, d);
	attach_trace(m, 4000, 100, 8192, 10000000000ull);
	md = answer_md(m);
	CU_CHECK(md && strstr(md, "the rest is waits, the largest IPC:SyncRep 38% (commits waited for the "
			      "synchronous standby), Client:ClientRead 30% (the backend waited for the client "
			      "(pgload) to send) of the backends' samples"), "answer:\n%s", md ? md : "");
}

static const struct cu_test tests[] = {
	{ "trap_page_cache", test_trap_page_cache },
	{ "trap_connect", test_trap_connect },
	{ "trap_no_flash", test_trap_no_flash },
	{ "trap_empty_drive", test_trap_empty_drive },
	{ "trap_ceiling_every_step_kind", test_trap_ceiling },
	{ "trap_dss_plan_varied_between_repetitions", test_trap_dss_unstable },
	{ "dss_mtime_difference_shown_only_with_spread", test_dss_mtime_verdict },
	{ "trap_other_work_on_the_cpus", test_trap_contended },
	{ "trap_dss_queries_served_by_memory", test_trap_dss_memory },
	{ "answer_names_the_other_waits", test_answer_other_waits },
	{ "trap_configs_run_one_after_another", test_trap_sequential_configs },
	{ "no_share_of_zero_bytes", test_no_share_of_zero },
	{ "no_trap_on_a_clean_run", test_no_trap_on_a_clean_run },
	{ "answer_section_first", test_answer_section },
	{ "answer_server_evidence", test_answer_server_evidence },
	{ "answer_server_pg13_absent_not_zero", test_answer_server_pg13 },
	{ "answer_load_labels", test_answer_load_labels },
	{ "answer_repeated_step_per_run", test_answer_repeated_step },
	{ "answer_memory_fit", test_answer_memory_fit },
	{ "answer_connections", test_answer_connections },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "unit", .tests = tests };
