/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of `dutlab report RUNDIR` and `dutlab compare RUNDIR` pieces:
 * the manifest parser (good and broken manifests), the run model loaded from
 * the fixture run directories tests/tools/fixtures/rundir-*, the findings on
 * them (exact numbers, from the documents' own values), TPS findings on
 * synthetic models, chart building, and the Markdown/HTML renderers.
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
#include "tools/compare/compare_run.h"
#include "tools/report/findings.h"
#include "tools/report/report.h"
#include "tools/report/report_doc.h"
#include "tools/report/rundir_model.h"
#include "tools/report/rundir_stats.h"

DUT_DEFINE_FREEP(struct rundir_model *, rundir_model_free)
DUT_DEFINE_FREEP(struct findings *, findings_free)
DUT_DEFINE_FREEP(struct charts *, charts_free)
DUT_DEFINE_FREEP(struct rdoc *, rdoc_free)

static bool near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(1.0, fabs(b));
}

static struct rundir_model *load_fixture(const char *name)
{
	struct dut_error err = { { 0 } };
	struct rundir_model *m = NULL;
	char p[512];
	int r;

	snprintf(p, sizeof(p), "%s/tests/tools/fixtures/%s", cu_source_root(), name);
	r = rundir_model_load(p, RUNDIR_LOAD_DOCS | RUNDIR_LOAD_TRACES, &m, &err);
	CU_CHECK(r == 0, "%s: rundir_model_load: %d %s", name, r, err.msg);
	return r == 0 ? m : NULL;
}

/* ---- the manifest parser ---- */

#define STEP "{\"name\":\"oltp\",\"status\":\"ok\",\"results\":[\"oltp.json\"]}"
#define REP "{\"rep\":1,\"dir\":\"c00-a/rep1\",\"status\":\"complete\",\"steps\":[" STEP "]}"
#define CFG "{\"index\":0,\"name\":\"a\",\"dir\":\"c00-a\",\"status\":\"complete\",\"reps\":[" REP "]}"
#define HEAD "\"schema\":\"dutlab-run\",\"schema_version\":1,\"experiment\":{\"name\":\"x\"},\"status\":\"complete\""

static void test_manifest_good(void)
{
	static const char text[] = "{" HEAD ",\"host\":{\"hostname\":\"h\",\"cpus\":2,\"mem_bytes\":1024},"
		"\"configs\":[" CFG ",{\"index\":1,\"name\":\"b\",\"dir\":\"c01-b\",\"status\":\"skipped\","
		"\"reason\":\"mkfs.btrfs is not installed\"}],\"future_member\":[1,2]}\n";
	_cleanup_(rundir_model_freep) struct rundir_model *m = NULL;
	struct dut_error err = { { 0 } };
	int r = rundir_manifest_parse(text, strlen(text), "m.json", &m, &err);

	CU_CHECK(r == 0, "good manifest refused: %s", err.msg);
	if (r)
		return;
	CU_CHECK(strcmp(m->name, "x") == 0 && strcmp(m->status, "complete") == 0, "name/status");
	CU_CHECK(m->have_host && m->host.cpus == 2 && m->host.mem_bytes == 1024, "host");
	CU_CHECK(m->nconfigs == 2, "nconfigs %zu", m->nconfigs);
	CU_CHECK(m->configs[0].nreps == 1 && m->configs[0].reps[0].nsteps == 1, "reps/steps");
	CU_CHECK(strcmp(m->configs[0].reps[0].steps[0].docs[0].file, "oltp.json") == 0, "result file");
	CU_CHECK(m->configs[0].reps[0].trace == NULL, "no trace artifact");
	CU_CHECK(m->configs[1].nreps == 0 && strcmp(m->configs[1].reason, "mkfs.btrfs is not installed") == 0,
		 "skipped config");
}

struct bad_manifest {
	const char *name;
	const char *text;
	const char *msg;          /* the whole error message */
};

/* the traces of the other mounts: artifacts "trace-<target>" */
static void test_manifest_more_traces(void)
{
	static const char text[] = "{" HEAD ",\"configs\":[{\"index\":0,\"name\":\"a\",\"dir\":\"c\","
		"\"status\":\"complete\",\"reps\":[{\"rep\":1,\"dir\":\"c/r\",\"status\":\"ok\","
		"\"artifacts\":{\"trace\":\"trace.dtr\",\"trace-slow\":\"trace-slow.dtr\","
		"\"stats-slow\":\"dutfs-stats-slow.json\",\"trace-wal\":\"trace-wal.dtr\"}}]}]}";
	_cleanup_(rundir_model_freep) struct rundir_model *m = NULL;
	struct dut_error err = { { 0 } };
	const struct rundir_rep *rp;
	int r = rundir_manifest_parse(text, strlen(text), "m.json", &m, &err);

	CU_CHECK(r == 0, "refused: %s", err.msg);
	if (r)
		return;
	rp = &m->configs[0].reps[0];
	CU_CHECK(strcmp(rp->trace, "trace.dtr") == 0, "trace");
	CU_CHECK(rp->nmore == 2, "nmore %zu", rp->nmore);
	CU_CHECK(rp->nmore == 2 && strcmp(rp->more_traces[0], "trace-slow.dtr") == 0 &&
		 strcmp(rp->more_traces[1], "trace-wal.dtr") == 0, "more traces in manifest order");
	/* an absolute path is refused like any artifact */
	static const char bad[] = "{" HEAD ",\"configs\":[{\"index\":0,\"name\":\"a\",\"dir\":\"c\","
		"\"status\":\"complete\",\"reps\":[{\"rep\":1,\"dir\":\"c/r\",\"status\":\"ok\","
		"\"artifacts\":{\"trace-slow\":\"/etc/passwd\"}}]}]}";
	_cleanup_(rundir_model_freep) struct rundir_model *m2 = NULL;

	CU_CHECK(rundir_manifest_parse(bad, strlen(bad), "m.json", &m2, &err) < 0, "absolute trace-slow accepted");
}

static const struct bad_manifest bad_manifests[] = {
	{ "not json", "{\"schema\":", "m.json: not valid JSON at byte 10: unexpected end of the file" },
	/* byte 102 is the "x" */
	{ "trailing text", "{" HEAD ",\"configs\":[]} x", "m.json: not valid JSON at byte 102: unexpected character" },
	{ "array root", "[]", "m.json: expected a JSON object, found an array" },
	{ "other schema", "{\"schema\":\"dutlab-result\"}",
	  "m.json: schema: expected \"dutlab-run\", found \"dutlab-result\": not a dutlab run manifest" },
	{ "newer version", "{\"schema\":\"dutlab-run\",\"schema_version\":2}",
	  "m.json: schema_version: the manifest has version 2, this dutlab reads version 1: use the dutlab that made the run" },
	{ "no configs", "{" HEAD "}", "m.json: configs: missing (expected an array)" },
	{ "no experiment name", "{\"schema\":\"dutlab-run\",\"schema_version\":1,\"experiment\":{}}",
	  "m.json: experiment.name: missing (expected a string)" },
	{ "config not object", "{" HEAD ",\"configs\":[3]}", "m.json: configs[0]: expected an object, found an integer" },
	{ "step name number", "{" HEAD ",\"configs\":[{\"index\":0,\"name\":\"a\",\"dir\":\"c00-a\",\"status\":\"complete\","
	  "\"reps\":[{\"rep\":1,\"dir\":\"c00-a/rep1\",\"status\":\"complete\",\"steps\":[{\"name\":7}]}]}]}",
	  "m.json: configs[0].reps[0].steps[0].name: expected a string, found an integer" },
	{ "dir leaves", "{" HEAD ",\"configs\":[{\"index\":0,\"name\":\"a\",\"dir\":\"x/../../etc\",\"status\":\"complete\"}]}",
	  "m.json: configs[0].dir: \"x/../../etc\" leaves the run directory (..)" },
	{ "absolute result", "{" HEAD ",\"configs\":[{\"index\":0,\"name\":\"a\",\"dir\":\"c\",\"status\":\"complete\","
	  "\"reps\":[{\"rep\":1,\"dir\":\"c/r\",\"status\":\"ok\",\"steps\":[{\"name\":\"s\",\"status\":\"ok\","
	  "\"results\":[\"/etc/passwd\"]}]}]}]}",
	  "m.json: configs[0].reps[0].steps[0].results[]: \"/etc/passwd\" is absolute: expected a path inside the run directory" },
	{ "negative index", "{" HEAD ",\"configs\":[{\"index\":-1}]}",
	  "m.json: configs[0].index: -1 is out of range (0..10000)" },
	{ "result not string", "{" HEAD ",\"configs\":[{\"index\":0,\"name\":\"a\",\"dir\":\"c\",\"status\":\"complete\","
	  "\"reps\":[{\"rep\":1,\"dir\":\"c/r\",\"status\":\"ok\",\"artifacts\":{\"trace\":5}}]}]}",
	  "m.json: configs[0].reps[0].artifacts.trace: expected a string, found an integer" },
};

static void test_manifest_broken(void)
{
	for (size_t i = 0; i < sizeof(bad_manifests) / sizeof(bad_manifests[0]); i++) {
		const struct bad_manifest *b = &bad_manifests[i];
		struct rundir_model *m = NULL;
		struct dut_error err = { { 0 } };
		int r = rundir_manifest_parse(b->text, strlen(b->text), "m.json", &m, &err);

		CU_CHECK(r == -EINVAL && !m, "%s: accepted (r=%d)", b->name, r);
		CU_CHECK(strcmp(err.msg, b->msg) == 0, "%s: message\n  got  %s\n  want %s", b->name, err.msg, b->msg);
		rundir_model_free(m);
	}
}

static void test_load_missing_dir(void)
{
	struct rundir_model *m = NULL;
	struct dut_error err = { { 0 } };
	int r = rundir_model_load("/nonexistent-dutlab-run", RUNDIR_LOAD_DOCS, &m, &err);

	CU_CHECK(r == -EINVAL && !m, "missing run dir: r=%d", r);
	CU_CHECK(strcmp(err.msg, "/nonexistent-dutlab-run/manifest.json: No such file or directory "
			"(not a run directory of dutlab run?)") == 0, "message: %s", err.msg);
}

/* ---- the model of the fixtures ---- */

static void test_load_oltp_fixture(void)
{
	_cleanup_(rundir_model_freep) struct rundir_model *m = load_fixture("rundir-oltp");

	if (!m)
		return;
	CU_CHECK(m->nconfigs == 2 && m->nnotes == 0, "configs %zu notes %zu (%s)", m->nconfigs, m->nnotes,
		 m->nnotes ? m->notes[0] : "");
	for (size_t i = 0; i < m->nconfigs; i++)
		for (size_t r = 0; r < m->configs[i].nreps; r++) {
			const struct rundir_rep *rp = &m->configs[i].reps[r];
			const struct rundir_step *s = rundir_rep_step(rp, "oltp");

			CU_CHECK(rp->io && rp->io_has_relmap, "config %zu rep %zu: trace with relmap", i, r);
			CU_CHECK(s && s->ndocs == 1 && s->docs[0].doc, "config %zu rep %zu: oltp doc", i, r);
			CU_CHECK(rundir_doc_kind_of(s->docs[0].doc) == DOC_oltp_run, "kind");
		}
	/* tps of the fixture documents: 283.718... and 189.965... -> median 236.842 */
	struct cmp_stat tps = rundir_metric(&m->configs[0], "oltp", "run", "tps");

	CU_CHECK(tps.n == 2 && near(tps.median, (283.71800221820763 + 189.96546486932422) / 2) &&
		 near(tps.min, 189.96546486932422) && near(tps.max, 283.71800221820763), "tps stat");
}

static void test_load_reports_broken_docs(void)
{
	/* a manifest naming documents that are not there: loaded, with notes */
	static const char text[] = "{" HEAD ",\"configs\":[" CFG "]}";
	char dir[] = "/tmp/test-run-report.XXXXXX", p[600];
	_cleanup_(rundir_model_freep) struct rundir_model *m = NULL;
	struct dut_error err = { { 0 } };
	FILE *f;

	if (!mkdtemp(dir)) {
		cu_fail("mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(p, sizeof(p), "%s/manifest.json", dir);
	f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	CU_CHECK(rundir_model_load(dir, RUNDIR_LOAD_DOCS | RUNDIR_LOAD_TRACES, &m, &err) == 0, "load: %s", err.msg);
	CU_CHECK(m && m->nnotes == 1 && strstr(m->notes[0], "c00-a/rep1/oltp.json (step oltp) not used: "),
		 "note: %s", m && m->nnotes ? m->notes[0] : "(none)");
	unlink(p);
	rmdir(dir);
}

/* ---- findings ---- */

static const struct finding *find(const struct findings *f, enum finding_kind k, size_t config,
				  const char *subject)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->v[i].kind == k && f->v[i].config == config &&
		    (!subject || strcmp(f->v[i].subject, subject) == 0))
			return &f->v[i];
	return NULL;
}

static void test_findings_oltp(void)
{
	_cleanup_(rundir_model_freep) struct rundir_model *m = load_fixture("rundir-oltp");
	_cleanup_(findings_freep) struct findings *f = NULL;
	const struct finding *x;

	if (!m || findings_build(m, &f) < 0) {
		cu_fail("findings_build");
		return;
	}
	/* TPS: medians 305.763 (431.515, 180.011) vs 236.842 (283.718, 189.965): ranges overlap */
	x = find(f, FIND_TPS_RATIO, 1, "oltp");
	CU_CHECK(x != NULL, "no TPS finding");
	if (x) {
		double v = (431.5152091338623 + 180.01052385463996) / 2, b = (283.71800221820763 + 189.96546486932422) / 2;

		CU_CHECK(near(x->value[0], v / b) && near(x->value[1], v) && near(x->value[2], b), "tps ratio %g", x->value[0]);
		CU_CHECK(!x->exceeds && x->count[0] == 2 && x->count[1] == 2, "exceeds/reps");
		CU_CHECK(strcmp(x->text, "sync-off: 1.29x the TPS of sync-on in step oltp (305.8 vs 236.8 tx/s, "
				"medians of 2 and 2 repetitions; ranges 180.0-431.5 and 190.0-283.7 tx/s): the "
				"difference is not shown: it does not exceed the run-to-run spread (the min-max ranges "
				"overlap)") == 0,
			 "text: %s", x->text);
	}
	/* random reads: the two sync-on traces, read by report_build: heap 31+33, all 47+49 */
	x = find(f, FIND_RANDOM_READS, 0, NULL);
	CU_CHECK(x && strcmp(x->subject, "heap") == 0 && x->count[0] == 64 && x->count[1] == 96,
		 "sync-on random reads: %s %llu of %llu", x ? x->subject : "-",
		 x ? (unsigned long long)x->count[0] : 0, x ? (unsigned long long)x->count[1] : 0);
	CU_CHECK(x && strcmp(x->text, "sync-on: 67% of random reads hit heap relations (64 of 96, 2 traced "
			     "repetitions)") == 0, "text: %s", x ? x->text : "");
	x = find(f, FIND_RANDOM_READS, 1, "heap");
	/* 142: one read re-reads the last page read on its file (a tail re-read, sequential since #18) */
	CU_CHECK(x && x->count[0] == 83 && x->count[1] == 142, "sync-off random reads");
	x = find(f, FIND_WRITE_BYTES, 0, "wal");
	CU_CHECK(x && x->count[0] == x->count[1] && near(x->value[0], 100), "sync-on: all writes WAL");
	CU_CHECK(find(f, FIND_TPS_RATIO, 0, NULL) == NULL, "the first config is not compared with itself");
}

static void test_findings_probe(void)
{
	_cleanup_(rundir_model_freep) struct rundir_model *m = load_fixture("rundir-probe");
	_cleanup_(findings_freep) struct findings *f = NULL;
	const struct finding *x;

	if (!m || findings_build(m, &f) < 0) {
		cu_fail("findings_build");
		return;
	}
	x = find(f, FIND_CACHE_ROW, 1, "SEQ1M Q8T1 R");
	CU_CHECK(x && near(x->value[0], 3.2e9) && near(x->value[1], 6e8), "cache row");
	CU_CHECK(x && strcmp(x->text, "usb-sata-edited: the page cache served SEQ1M Q8T1 R, not the device: "
			     "3,200 MB/s exceeds the interface ceiling of 600 MB/s (USB 3.0 bridge to SATA "
			     "6 Gb/s (hand-edited))") == 0, "text: %s", x ? x->text : "");
	CU_CHECK(find(f, FIND_CACHE_ROW, 0, NULL) == NULL, "the real virtio rows are not flagged");

	x = find(f, FIND_SLC_KNEE, 0, "slc");
	CU_CHECK(x && near(x->value[0], 25165824) && near(x->value[1], 454669367.4570085) &&
		 near(x->value[2], 1463374672.8230479) && near(x->value[3], 2.218546877278725), "slc knee");
	CU_CHECK(x && strstr(x->text, "rose after 24 MiB written: 454.7 -> 1,463.4 MB/s (+222%, confidence medium)"),
		 "text: %s", x ? x->text : "");

	x = find(f, FIND_FILL_DROP, 0, "qd8");
	CU_CHECK(x && near(x->value[0], 3783.379176668367) && near(x->value[1], 6260.755311651256) &&
		 near(x->value[2], 3783.379176668367 / 6260.755311651256) && x->value[3] == 90 && x->value[4] == 30,
		 "fill qd8");
	/* --quick rounds: no level reached steady state (extra.by_queue_depth[].steady_state false) */
	CU_CHECK(x && strcmp(x->text, "file-ext4: random-write IOPS at QD 8: 3,783 at 90% full vs 6,261 at "
			     "30% full (0.60x); steady state was not reached at both levels, so these are not "
			     "yet the drive's sustained figures") == 0, "text: %s", x ? x->text : "");
}

static void test_findings_dss(void)
{
	_cleanup_(rundir_model_freep) struct rundir_model *m = load_fixture("rundir-dss");
	_cleanup_(findings_freep) struct findings *f = NULL;
	const struct finding *x;

	if (!m || findings_build(m, &f) < 0) {
		cu_fail("findings_build");
		return;
	}
	/* the same plan changes test_compare finds between dss-a and dss-c */
	x = find(f, FIND_DSS_PLANS, 2, NULL);
	CU_CHECK(x && strcmp(x->subject, "Q6, Q14 and Q15") == 0 && x->count[0] == 3 && x->count[1] == 22 &&
		 x->count[2] == 19, "no-shipdate-idx plans: %s", x ? x->subject : "-");
	CU_CHECK(x && strstr(x->text, "no-shipdate-idx: this DSS configuration changed the plans of Q6, Q14 and "
			     "Q15 (against default), so those are out of m-time; m-time over the 19 queries"),
		 "text: %s", x ? x->text : "");
	CU_CHECK(x && near(x->value[2], x->value[0] / x->value[1]), "m-time ratio");
	x = find(f, FIND_DSS_PLANS, 1, NULL);
	CU_CHECK(x && x->count[0] == 19 && x->count[2] == 3, "rpc50-nohash: 19 changed, 3 kept");
}

/* ---- TPS findings on synthetic models: the spread verdict ---- */

static struct dut_result *oltp_doc(double tps)
{
	char text[600];
	struct dut_result *r = NULL;
	struct dut_error err = { { 0 } };

	snprintf(text, sizeof(text), "{\"schema\":\"dutlab-result\",\"schema_version\":1,\"tool\":{\"name\":"
		 "\"pgload\",\"version\":\"0\"},\"config\":{\"workload\":\"oltp\"},\"phases\":[{\"name\":\"run\","
		 "\"metrics\":{\"tps\":{\"value\":%.17g,\"unit\":\"tx/s\"}}}]}", tps);
	if (dut_result_parse(text, strlen(text), &r, &err) < 0)
		cu_fail("oltp_doc: %s", err.msg);
	return r;
}

#define MAXR 3
struct tps_case {
	const char *name;
	double a[MAXR], b[MAXR];
	unsigned na, nb;
	double ratio;
	bool exceeds;
	const char *verdict;   /* the end of the sentence */
};

static const struct tps_case tps_cases[] = {
	{ "separate ranges", { 100, 110, 90 }, { 200, 190, 210 }, 3, 3, 2.0, true,
	  "the difference exceeds the run-to-run spread (the min-max ranges do not overlap)" },
	{ "overlapping ranges", { 100, 150 }, { 140, 160 }, 2, 2, 150.0 / 125, false,
	  "the difference is not shown: it does not exceed the run-to-run spread (the min-max ranges overlap)" },
	{ "touching ranges overlap", { 100, 120 }, { 120, 140 }, 2, 2, 130.0 / 110, false,
	  "is not shown: it does not exceed" },
	{ "one repetition", { 100 }, { 300 }, 1, 1, 3.0, false,
	  "the difference is not shown: with one repetition the run-to-run spread is unknown" },
};

static const struct chart *chart_named(const struct charts *c, const char *name);

/* A document with a replica_lag series gets a lag chart; one without does not. */
static void test_lag_chart(void)
{
	static const char lagdoc[] = "{\"schema\":\"dutlab-result\",\"schema_version\":1,\"tool\":{\"name\":"
		"\"pgload\",\"version\":\"0\"},\"config\":{\"workload\":\"oltp\"},\"phases\":[{\"name\":\"run\","
		"\"metrics\":{\"tps\":{\"value\":100,\"unit\":\"tx/s\"}},\"series\":{\"replica_lag\":{\"columns\":"
		"[\"t_s\",\"replay_lag_ms\",\"replay_lag_bytes\"],\"units\":[\"s\",\"ms\",\"bytes\"],\"rows\":"
		"[[1,2.5,8192],[2,40,65536]]}}}]}";
	static const char text[] = "{" HEAD ",\"configs\":[{\"index\":0,\"name\":\"sync\",\"dir\":\"c00-sync\","
		"\"status\":\"complete\",\"reps\":[" REP "]},{\"index\":1,\"name\":\"none\",\"dir\":\"c01-none\","
		"\"status\":\"complete\",\"reps\":[" REP "]}]}";
	_cleanup_(rundir_model_freep) struct rundir_model *m = NULL;
	_cleanup_(charts_freep) struct charts *c = NULL;
	struct dut_error err = { { 0 } };
	const struct chart *x;

	if (rundir_manifest_parse(text, strlen(text), "m.json", &m, &err) < 0 ||
	    dut_result_parse(lagdoc, strlen(lagdoc), &m->configs[0].reps[0].steps[0].docs[0].doc, &err) < 0) {
		cu_fail("setup: %s", err.msg);
		return;
	}
	m->configs[1].reps[0].steps[0].docs[0].doc = oltp_doc(90);
	if (charts_build(m, &c) < 0) {
		cu_fail("charts_build");
		return;
	}
	x = chart_named(c, "lag-oltp-c00-sync");
	CU_CHECK(x && x->ndata == 1 && strcmp(x->data[0].text, "# t_s replay_lag_ms\n1 2.5\n2 40\n") == 0,
		 "lag data: %s", x ? x->data[0].text : "(no chart)");
	CU_CHECK(x && strstr(x->script, "set ylabel 'replay lag (ms)'"), "lag script");
	CU_CHECK(chart_named(c, "lag-oltp-c01-none") == NULL, "no lag chart without a standby");
}

static void test_tps_spread_verdict(void)
{
	for (size_t i = 0; i < sizeof(tps_cases) / sizeof(tps_cases[0]); i++) {
		const struct tps_case *t = &tps_cases[i];
		char text[2048], reps[2][600];
		_cleanup_(rundir_model_freep) struct rundir_model *m = NULL;
		_cleanup_(findings_freep) struct findings *f = NULL;
		struct dut_error err = { { 0 } };
		const struct finding *x;

		for (int c = 0; c < 2; c++) {
			size_t len = 0;
			unsigned n = c ? t->nb : t->na;

			reps[c][0] = 0;
			for (unsigned r = 0; r < n; r++)
				len += (size_t)snprintf(reps[c] + len, sizeof(reps[c]) - len,
					"%s{\"rep\":%u,\"dir\":\"c%d/r%u\",\"status\":\"complete\",\"steps\":[" STEP "]}",
					r ? "," : "", r + 1, c, r + 1);
		}
		snprintf(text, sizeof(text), "{" HEAD ",\"configs\":["
			 "{\"index\":0,\"name\":\"A\",\"dir\":\"c0\",\"status\":\"complete\",\"reps\":[%s]},"
			 "{\"index\":1,\"name\":\"B\",\"dir\":\"c1\",\"status\":\"complete\",\"reps\":[%s]}]}",
			 reps[0], reps[1]);
		if (rundir_manifest_parse(text, strlen(text), "m.json", &m, &err) < 0) {
			cu_fail("%s: manifest: %s", t->name, err.msg);
			continue;
		}
		for (int c = 0; c < 2; c++)
			for (size_t r = 0; r < m->configs[c].nreps; r++)
				m->configs[c].reps[r].steps[0].docs[0].doc = oltp_doc(c ? t->b[r] : t->a[r]);
		if (findings_build(m, &f) < 0) {
			cu_fail("%s: findings_build", t->name);
			continue;
		}
		x = find(f, FIND_TPS_RATIO, 1, "oltp");
		CU_CHECK(x && near(x->value[0], t->ratio), "%s: ratio %g, want %g", t->name, x ? x->value[0] : 0, t->ratio);
		CU_CHECK(x && x->exceeds == t->exceeds, "%s: exceeds", t->name);
		CU_CHECK(x && strstr(x->text, t->verdict), "%s: text %s", t->name, x ? x->text : "");
	}
}

/* ---- the I/O mix of a step: the trace phase between its markers ---- */

/*
 * One traced repetition: file 1 heap (no relmap), file 2 WAL.  Marker "load"
 * at 1000 (10 random heap reads, one 8 KiB WAL write), marker "rw" at 5000
 * (12 random heap reads, 3 sequential ones, 4 KiB WAL writes x 4).
 */
static struct dut_trace_file mix_files[] = {
	{ 1, "base/5/16384", { .cls = DUT_PG_REL, .fork = DUT_PG_FORK_MAIN, .db_oid = 5,
			       .tablespace_oid = 1663, .relfilenode = 16384 } },
	{ 2, "pg_wal/000000010000000000000001", { .cls = DUT_PG_WAL, .timeline = 1, .wal_segno = 1 } },
};
static struct dut_trace_marker mix_markers[] = { { 1000, "load" }, { 5000, "rw" } };
static struct dut_trace_rec mix_recs[32];

static size_t mix_trace_recs(void)
{
	size_t n = 0;
	uint64_t ts = 1001;

	/* load: random heap reads at descending offsets, one WAL write */
	for (unsigned i = 0; i < 10; i++)
		mix_recs[n++] = (struct dut_trace_rec){ .ts_ns = ts++, .offset = (100 - i) * 8192ull,
			.len = 8192, .result = 8192, .file_id = 1, .op = DUT_OP_READ };
	mix_recs[n++] = (struct dut_trace_rec){ .ts_ns = ts++, .len = 8192, .result = 8192, .file_id = 2,
						.op = DUT_OP_WRITE };
	ts = 5001;
	for (unsigned i = 0; i < 12; i++)
		mix_recs[n++] = (struct dut_trace_rec){ .ts_ns = ts++, .offset = (500 + 7 * i) * 8192ull,
			.len = 8192, .result = 8192, .file_id = 1, .op = DUT_OP_READ };
	/* three sequential reads after the last random one */
	for (unsigned i = 0; i < 3; i++)
		mix_recs[n++] = (struct dut_trace_rec){ .ts_ns = ts++, .offset = (500 + 7 * 11 + 1 + i) * 8192ull,
			.len = 8192, .result = 8192, .file_id = 1, .op = DUT_OP_READ };
	for (unsigned i = 0; i < 4; i++)
		mix_recs[n++] = (struct dut_trace_rec){ .ts_ns = ts++, .offset = 8192 + i * 4096ull,
			.len = 4096, .result = 4096, .file_id = 2, .op = DUT_OP_WRITE };
	return n;
}

static void test_step_io_mix(void)
{
	static const char text[] = "{" HEAD ",\"configs\":[{\"index\":0,\"name\":\"a\",\"dir\":\"c00-a\","
		"\"status\":\"complete\",\"reps\":[{\"rep\":1,\"dir\":\"c00-a/rep1\",\"status\":\"complete\","
		"\"steps\":[{\"name\":\"load\",\"status\":\"ok\"},{\"name\":\"rw\",\"status\":\"ok\"},"
		"{\"name\":\"ro\",\"mark\":\"select-only\",\"status\":\"ok\"}]}]}]}";
	struct dut_trace t = { .files = mix_files, .nfiles = 2, .recs = mix_recs, .nrecs = mix_trace_recs(),
			       .markers = mix_markers, .nmarkers = 2, .has_footer = true };
	_cleanup_(rundir_model_freep) struct rundir_model *m = NULL;
	_cleanup_(findings_freep) struct findings *f = NULL;
	struct dut_error err = { { 0 } };
	struct rundir_io_mix mix;
	const struct finding *x;

	if (rundir_manifest_parse(text, strlen(text), "m.json", &m, &err) < 0) {
		cu_fail("manifest: %s", err.msg);
		return;
	}
	CU_CHECK(strcmp(rundir_step_mark(&m->configs[0], "ro"), "select-only") == 0, "mark given");
	CU_CHECK(strcmp(rundir_step_mark(&m->configs[0], "rw"), "rw") == 0, "mark defaults to the name");
	if (report_build(&t, NULL, &m->configs[0].reps[0].io) < 0) {
		cu_fail("report_build");
		return;
	}
	rundir_io_mix_of(&m->configs[0], "rw", &mix);
	CU_CHECK(mix.ntraced == 1 && mix.nrelmap == 0, "rw traced once, no relmap");
	CU_CHECK(mix.cls[RC_HEAP].ops[REP_READ] == 15 && mix.cls[RC_HEAP].seq_ops[REP_READ] == 3,
		 "rw heap reads %llu seq %llu", (unsigned long long)mix.cls[RC_HEAP].ops[REP_READ],
		 (unsigned long long)mix.cls[RC_HEAP].seq_ops[REP_READ]);
	CU_CHECK(mix.cls[RC_WAL].bytes[REP_WRITE] == 4 * 4096, "rw WAL bytes");
	rundir_io_mix_of(&m->configs[0], NULL, &mix);
	CU_CHECK(mix.cls[RC_HEAP].ops[REP_READ] == 25 && mix.cls[RC_WAL].bytes[REP_WRITE] == 8192 + 4 * 4096,
		 "whole trace");
	rundir_io_mix_of(&m->configs[0], "select-only", &mix);
	CU_CHECK(mix.ntraced == 0, "a step without markers in the trace has no I/O mix");

	if (findings_build(m, &f) < 0) {
		cu_fail("findings_build");
		return;
	}
	/* step findings, not whole-trace ones: load 10 random reads, rw 12 */
	x = find(f, FIND_RANDOM_READS, 0, "heap");
	CU_CHECK(x && x->count[0] == 10 && x->count[1] == 10 && strncmp(x->text, "a, step load: 100% of random "
		 "reads hit heap relations (10 of 10, 1 traced repetition) (unknown relation kind: no relmap", 98) == 0,
		 "load finding: %s", x ? x->text : "");
	for (size_t i = 0; i < f->n; i++)
		if (f->v[i].kind == FIND_RANDOM_READS && strstr(f->v[i].text, "step rw"))
			CU_CHECK(f->v[i].count[0] == 12 && f->v[i].count[1] == 12, "rw random reads");
	x = find(f, FIND_WRITE_BYTES, 0, "wal");
	CU_CHECK(x && strstr(x->text, "a, step load: 100% of the bytes written went to WAL"), "wal: %s",
		 x ? x->text : "");
}

/* ---- compare inputs from a run ---- */

static void test_compare_run_inputs(void)
{
	_cleanup_(rundir_model_freep) struct rundir_model *m = load_fixture("rundir-oltp");
	struct cmp_run_set set = { 0 };
	struct dut_error err = { { 0 } };

	if (!m)
		return;
	CU_CHECK(strcmp(cmp_run_step_of_kind(m, DOC_oltp_run), "oltp") == 0, "step of kind oltp");
	CU_CHECK(strcmp(cmp_run_step_of_kind(m, DOC_oltp_init), "load") == 0, "step of kind init");
	CU_CHECK(cmp_run_step_of_kind(m, DOC_dss) == NULL, "no dss step");
	CU_CHECK(cmp_run_add_step(&set, m, "oltp", &err) == 0 && set.n == 2, "two inputs");
	CU_CHECK(set.n == 2 && set.in[0].ndocs == 2 && set.in[1].ndocs == 2, "two documents each");
	CU_CHECK(set.n && strstr(set.in[1].source, ": sync-off (2 documents of step oltp)"), "source %s",
		 set.n ? set.in[1].source : "");
	cmp_run_set_clear(&set);
}

/* ---- charts (pure part) ---- */

static const struct chart *chart_named(const struct charts *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->v[i].name, name) == 0)
			return &c->v[i];
	return NULL;
}

static void test_charts_probe(void)
{
	_cleanup_(rundir_model_freep) struct rundir_model *m = load_fixture("rundir-probe");
	_cleanup_(charts_freep) struct charts *c = NULL;
	const struct chart *x;

	if (!m || charts_build(m, &c) < 0) {
		cu_fail("charts_build");
		return;
	}
	CU_CHECK(c->n == 2, "charts: %zu (slc and fill; bench has none)", c->n);
	x = chart_named(c, "slc-slc-c00-file-ext4-1");
	CU_CHECK(x && x->ndata == 1 && strstr(x->script, "set arrow from 24, graph 0 to 24, graph 1") &&
		 strstr(x->script, "set output 'slc-slc-c00-file-ext4-1.png'"), "slc chart script");
	/* 32 windows of 8 MiB: the first is at 8 MiB written */
	CU_CHECK(x && strncmp(x->data[0].text, "# written_MiB MB_per_s\n8 ", 25) == 0, "slc data: %.40s",
		 x ? x->data[0].text : "");
	x = chart_named(c, "fill-fill-c00-file-ext4");
	CU_CHECK(x && strstr(x->data[0].text, "\n90 808.09408365653076 3783.3791766683671\n"), "fill data: %s",
		 x ? x->data[0].text : "");
	CU_CHECK(x && strstr(x->script, "using 1:3 with linespoints title 'QD 8'"), "fill script");
}

static void test_charts_oltp(void)
{
	_cleanup_(rundir_model_freep) struct rundir_model *m = load_fixture("rundir-oltp");
	_cleanup_(charts_freep) struct charts *c = NULL;
	const struct chart *x;

	if (!m || charts_build(m, &c) < 0) {
		cu_fail("charts_build");
		return;
	}
	x = chart_named(c, "oltp-oltp-c01-sync-off");
	CU_CHECK(x && x->ndata == 2 && strstr(x->script, "set multiplot layout 2,1"), "oltp chart");
	CU_CHECK(x && strcmp(x->step, "oltp") == 0, "oltp chart step");
	x = chart_named(c, "iomix-c00-sync-on");
	CU_CHECK(x && strcmp(x->step, "") == 0 && strstr(x->data[0].text, "\"heap\" 1 64 0 0\n"),
		 "iomix data: %s", x ? x->data[0].text : "");
}

static const struct { const char *in, *out; } safe_names[] = {
	{ "c00-ext4", "c00-ext4" }, { "a b/c", "a-b-c" }, { ".hidden", "-hidden" }, { "x'y", "x-y" },
};

static void test_chart_safe_name(void)
{
	char buf[64];

	for (size_t i = 0; i < sizeof(safe_names) / sizeof(safe_names[0]); i++)
		CU_CHECK(strcmp(chart_safe_name(safe_names[i].in, buf, sizeof(buf)), safe_names[i].out) == 0,
			 "%s -> %s", safe_names[i].in, buf);
}

static const struct { const char *name; bool ok; } metric_names[] = {
	{ "iops_qd8", true }, { "bw_MB/s", true }, { "lat p99 %", true }, { "a.b:c-d", true },
	{ "", false }, { "x'y", false }, { "x\"y", false }, { "x`id`", false }, { "a\nb", false },
	{ "a;b", false }, { "a@b", false }, { "a$b", false }, { "a\\b", false }, { "a\x7f", false },
	{ "\xc3\xa9", false },
};

static void test_chart_metric_name_ok(void)
{
	char longname[200];

	for (size_t i = 0; i < sizeof(metric_names) / sizeof(metric_names[0]); i++)
		CU_CHECK(chart_metric_name_ok(metric_names[i].name) == metric_names[i].ok, "metric \"%s\": %s",
			 metric_names[i].name, metric_names[i].ok ? "refused" : "accepted");
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	CU_CHECK(!chart_metric_name_ok(longname), "a 199-character name accepted");
}

/* A configuration name is data: in the script only as one single-quoted string, on one line. */
static void test_charts_quote_config_name(void)
{
	_cleanup_(rundir_model_freep) struct rundir_model *m = load_fixture("rundir-dss");
	_cleanup_(charts_freep) struct charts *c = NULL;
	const struct chart *x;

	if (!m)
		return;
	free(m->configs[0].name);
	m->configs[0].name = strdup("a'); system('id'); print('`id` @x\nsystem(\"id\")\r\x1b[2J\\");
	if (!m->configs[0].name || charts_build(m, &c) < 0) {
		cu_fail("charts_build");
		return;
	}
	x = chart_named(c, "dss-dss-phases");
	CU_CHECK(x && strstr(x->script, "title 'a''); system(''id''); print(''`id` @x system(\"id\")  [2J\\'"),
		 "dss legend: %s", x ? x->script : "(no chart)");
	CU_CHECK(x && !strstr(x->script, "\nsystem") && !strchr(x->script, '\r') && !strchr(x->script, 0x1b),
		 "a control character reached the script");
}

static const struct { double v; int dec; const char *out; } nums[] = {
	{ 0, 0, "0" }, { 999.96, 1, "1,000.0" }, { 1234567.891, 2, "1,234,567.89" }, { -1500, 0, "-1,500" },
	{ 12.5, 0, "12" }, { 236.842, 1, "236.8" },
};

static void test_fmt_num(void)
{
	char buf[64];

	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
		CU_CHECK(strcmp(rundir_fmt_num(nums[i].v, nums[i].dec, buf, sizeof(buf)), nums[i].out) == 0,
			 "%g/%d -> %s, want %s", nums[i].v, nums[i].dec, buf, nums[i].out);
}

/* ---- renderers ---- */

static struct rdoc *small_doc(void)
{
	struct rdoc *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	rdoc_heading(d, 1, "report: %s", "x");
	rdoc_para(d, "a <b> & c");
	rdoc_list(d);
	rdoc_item(d, "one");
	rdoc_item(d, "two");
	rdoc_table(d, "caption", "name|>value (s)");
	rdoc_cell(d, "a|b");
	rdoc_cell(d, "1.5");
	rdoc_image(d, "charts/x.png", "X over time");
	return d;
}

static void test_render_md(void)
{
	_cleanup_(rdoc_freep) struct rdoc *d = small_doc();
	_cleanup_free_ char *md = NULL;

	CU_CHECK(d && !d->oom && render_md(d, &md) == 0, "render_md");
	CU_CHECK(md && strcmp(md, "# report: x\n\na <b> & c\n\n- one\n- two\n\ncaption\n\n"
			      "| name | value (s) |\n| --- | ---: |\n| a\\|b | 1.5 |\n\n"
			      "![X over time](charts/x.png)\n\n") == 0, "markdown:\n%s", md ? md : "");
}

static void test_render_html(void)
{
	_cleanup_(rdoc_freep) struct rdoc *d = small_doc();
	_cleanup_free_ char *html = NULL;

	CU_CHECK(d && render_html(d, "t<1>", &html) == 0, "render_html");
	if (!html)
		return;
	CU_CHECK(strstr(html, "<title>t&lt;1&gt;</title>") != NULL, "title escaped");
	CU_CHECK(strstr(html, "<p>a &lt;b&gt; &amp; c</p>") != NULL, "paragraph escaped");
	CU_CHECK(strstr(html, "<tr><th>name</th><th>value (s)</th></tr>\n<tr><td>a|b</td><td class=\"n\">1.5</td></tr>"),
		 "table:\n%s", html);
	CU_CHECK(strstr(html, "<img src=\"charts/x.png\" alt=\"X over time\">") != NULL, "relative image");
	CU_CHECK(strstr(html, "<script") == NULL, "no JavaScript");
}

static void test_report_doc_oltp(void)
{
	_cleanup_(rundir_model_freep) struct rundir_model *m = load_fixture("rundir-oltp");
	_cleanup_(findings_freep) struct findings *f = NULL;
	_cleanup_(charts_freep) struct charts *c = NULL;
	_cleanup_(rdoc_freep) struct rdoc *d = NULL;
	_cleanup_free_ char *md = NULL;

	if (!m || findings_build(m, &f) < 0 || charts_build(m, &c) < 0 || report_run_build(m, f, c, &d) < 0 ||
	    render_md(d, &md) < 0) {
		cu_fail("building the report");
		return;
	}
	CU_CHECK(strstr(md, "| sync-off | 2 | 305.8 | 180.0-431.5 | 1.29x |") != NULL, "oltp table row:\n%s", md);
	CU_CHECK(strstr(md, "the spread is the min-max range of those runs (not an IQR)") != NULL, "spread says which");
	/* charts not drawn (charts_render not called): said so, with no image link */
	CU_CHECK(strstr(md, "Chart not rendered: TPS and mean latency per second: sync-on, step oltp") != NULL,
		 "undrawn chart reported");
	CU_CHECK(strstr(md, "](charts/") == NULL, "no link to an undrawn chart");
	CU_CHECK(strstr(md, "| heap | 65 | 98.5 | 0.51 | 0 | 0.0 | 0.00 |") != NULL, "iomix row");
}

static void test_report_doc_dss(void)
{
	_cleanup_(rundir_model_freep) struct rundir_model *m = load_fixture("rundir-dss");
	_cleanup_(findings_freep) struct findings *f = NULL;
	_cleanup_(charts_freep) struct charts *c = NULL;
	_cleanup_(rdoc_freep) struct rdoc *d = NULL;
	_cleanup_free_ char *md = NULL;

	if (!m || findings_build(m, &f) < 0 || charts_build(m, &c) < 0 || report_run_build(m, f, c, &d) < 0 ||
	    render_md(d, &md) < 0) {
		cu_fail("building the report");
		return;
	}
	/* Q6's medians over 3 runs (the compare fixtures): 0.0095, 0.0111, 0.0482 s; plan changed in C */
	CU_CHECK(strstr(md, "| Q6 forecasting revenue change | no: plan changed in no-shipdate-idx | 0.0095 | "
			"0.0111 | 0.0482 * |") != NULL, "Q6 row:\n%s", md);
	CU_CHECK(strstr(md, "| Q1 pricing summary report | yes | 0.1754 | 0.2466 | 0.3241 |") != NULL, "Q1 row");
	CU_CHECK(strstr(md, "Configurations in the sentence below: A = default, B = rpc50-nohash, "
			"C = no-shipdate-idx.") != NULL, "label legend");
	CU_CHECK(c->n == 2 && strcmp(c->v[0].name, "dss-dss-phases") == 0 &&
		 strcmp(c->v[1].name, "dss-dss-queries") == 0, "dss charts");
	CU_CHECK(strstr(c->v[1].data[0].text, "\n\"Q6\" 0.0095") != NULL, "Q6 in the chart data");
}

/* An interrupted run with a failed configuration and no documents still gives a report. */
static void test_report_doc_interrupted(void)
{
	static const char text[] = "{\"schema\":\"dutlab-run\",\"schema_version\":1,\"experiment\":{\"name\":"
		"\"x\"},\"status\":\"interrupted\",\"started_at\":\"2026-11-30T09:00:00Z\",\"configs\":["
		"{\"index\":0,\"name\":\"xfs\",\"dir\":\"c00-xfs\",\"status\":\"failed\",\"reason\":"
		"\"pgload init exited 1\",\"reps\":[{\"rep\":1,\"dir\":\"c00-xfs/rep1\",\"status\":\"failed\","
		"\"steps\":[{\"name\":\"load\",\"status\":\"failed\",\"exit_code\":1,\"results\":[]}]}]}]}";
	_cleanup_(rundir_model_freep) struct rundir_model *m = NULL;
	_cleanup_(findings_freep) struct findings *f = NULL;
	_cleanup_(charts_freep) struct charts *c = NULL;
	_cleanup_(rdoc_freep) struct rdoc *d = NULL;
	_cleanup_free_ char *md = NULL;
	struct dut_error err = { { 0 } };

	if (rundir_manifest_parse(text, strlen(text), "m.json", &m, &err) < 0 || findings_build(m, &f) < 0 ||
	    charts_build(m, &c) < 0 || report_run_build(m, f, c, &d) < 0 || render_md(d, &md) < 0) {
		cu_fail("building the report: %s", err.msg);
		return;
	}
	CU_CHECK(f->n == 0 && c->n == 0, "no finding, no chart");
	CU_CHECK(strstr(md, "- status: interrupted; started 2026-11-30T09:00:00Z, finished not yet\n") != NULL,
		 "status line:\n%s", md);
	CU_CHECK(strstr(md, "| 0 | xfs | failed | 0 of 1 complete | - | - | - | pgload init exited 1 |") != NULL,
		 "config row:\n%s", md);
	CU_CHECK(strstr(md, "No finding: the run has no data") != NULL, "no finding said");
	CU_CHECK(strstr(md, "## Step load (other)") != NULL, "the step is named");
}


/*
 * rundir-srv: a real pgload run document with the server evidence (PostgreSQL 15)
 * and the same made to look like 13's.  The numbers, from its JSON with jq:
 * wal_sync / committed = 0.725, wal_sync_time / wal_sync = 3.841 ms = 31% of the
 * 12.386 ms latency p50; CPU (1.184 + 0.180 ms) x 4 clients / 2 CPUs / 16.70 ms = 16%;
 * TPS per second 369 353 [145 168] 211 194 (4, a partial last second) with the
 * checkpointer at work in seconds 3 and 4.
 */
static void test_report_doc_server_evidence(void)
{
	_cleanup_(rundir_model_freep) struct rundir_model *m = load_fixture("rundir-srv");
	_cleanup_(findings_freep) struct findings *f = NULL;
	_cleanup_(charts_freep) struct charts *c = NULL;
	_cleanup_(rdoc_freep) struct rdoc *d = NULL;
	_cleanup_free_ char *md = NULL;

	if (!m || findings_build(m, &f) < 0 || charts_build(m, &c) < 0 || report_run_build(m, f, c, &d) < 0 ||
	    render_md(d, &md) < 0) {
		cu_fail("building the report");
		return;
	}
	CU_CHECK(m->nnotes == 0, "notes: %s", m->nnotes ? m->notes[0] : "");
	CU_CHECK(strstr(md, "- pg15, step oltp (238.8 tx/s): limited by WAL flushes (31% of the transaction time, "
			"from wal_sync_time).") != NULL, "pg15 verdict:\n%s", md);
	/* the wait events: LWLock:WALWrite 15% + IO:WALSync 11% (+ walwriter-side rows not counted) */
	CU_CHECK(strstr(md, "WAL share by source: 31% wal_sync_time, 25% the wait events.") != NULL, "views:\n%s", md);
	CU_CHECK(strstr(md, "CPU per transaction: server 1.184 ms, client (pgload) 0.180 ms; times 4 clients over 2 "
			"usable CPUs against the mean transaction time of 16.70 ms, CPU explains 16% of it;") != NULL,
		 "cpu:\n%s", md);
	CU_CHECK(strstr(md, "- pg15, step oltp, from the server: PostgreSQL 15.18 says: pg_stat_wal: 0.73 WAL syncs "
			"per commit, 3.841 ms per sync (wal_sync_time); checkpoints during the step: 1, 15,052 buffers "
			"written, write 0.74 s, sync 0.50 s; TPS median 156 in the 2 s the checkpointer worked, 282 in "
			"the other 4 s (first run, per-second series); pg_stat_database: 0.24 blocks read per "
			"transaction, 0.038 ms per read (blk_read_time); wait events: CPU:running 34% of backend "
			"samples, Client:ClientRead 29%, LWLock:WALWrite 15%, IO:WALSync 11%, Lock:transactionid 7%.")
		 != NULL, "pg15 server line:\n%s", md);
	/* 13: no pg_stat_wal, said in a sentence; no WAL share made up, no 0 */
	CU_CHECK(strstr(md, "- pg13, step oltp, from the server: PostgreSQL 13.12 says: WAL syncs absent (PostgreSQL 13 "
			"has no pg_stat_wal (it is new in 14)), so WAL flushes per commit are known only where a dutfs "
			"trace saw them; checkpoints during the step: 1,") != NULL, "pg13 line:\n%s", md);
	CU_CHECK(strstr(md, "- pg13, step oltp (238.8 tx/s): not limited by the reads, WAL flushes or CPU the run "
			"measured (0%, 25% and 16% of the transaction time)") != NULL &&
		 strstr(md, "pg13, step oltp (238.8 tx/s): limited by WAL") == NULL, "pg13 verdict:\n%s", md);
	CU_CHECK(strstr(md, "0.00 WAL syncs") == NULL, "no zero for an absent counter");
}

static const struct cu_test tests[] = {
	{ "manifest_good", test_manifest_good },
	{ "manifest_more_traces", test_manifest_more_traces },
	{ "manifest_broken_names_file_and_member", test_manifest_broken },
	{ "load_missing_dir", test_load_missing_dir },
	{ "load_oltp_fixture", test_load_oltp_fixture },
	{ "load_notes_missing_documents", test_load_reports_broken_docs },
	{ "findings_oltp", test_findings_oltp },
	{ "findings_probe", test_findings_probe },
	{ "findings_dss", test_findings_dss },
	{ "tps_spread_verdict", test_tps_spread_verdict },
	{ "lag_chart_with_a_standby", test_lag_chart },
	{ "step_io_mix_between_markers", test_step_io_mix },
	{ "compare_run_inputs", test_compare_run_inputs },
	{ "charts_probe", test_charts_probe },
	{ "charts_oltp", test_charts_oltp },
	{ "chart_safe_name", test_chart_safe_name },
	{ "chart_metric_name_whitelist", test_chart_metric_name_ok },
	{ "charts_quote_config_name", test_charts_quote_config_name },
	{ "fmt_num", test_fmt_num },
	{ "render_md", test_render_md },
	{ "render_html", test_render_html },
	{ "report_doc_oltp", test_report_doc_oltp },
	{ "report_doc_dss", test_report_doc_dss },
	{ "report_doc_interrupted_run", test_report_doc_interrupted },
	{ "report_doc_server_evidence", test_report_doc_server_evidence },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "unit", .tests = tests };
