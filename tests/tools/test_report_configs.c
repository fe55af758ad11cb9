/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Configurations table of `dutlab report RUNDIR` (issue #18): the
 * filesystem the data really went on (an ext4 directory target is not
 * "filesystem none"), and the dutfs view only where a dutfs mount existed
 * (a run of dutprobe steps has none).  From the manifest's per-repetition
 * "targets"; an older manifest without them keeps what it says.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "tests/cu_main.h"
#include "tools/report/findings.h"
#include "tools/report/report_doc.h"
#include "tools/report/rundir_model.h"

DUT_DEFINE_FREEP(struct rundir_model *, rundir_model_free)
DUT_DEFINE_FREEP(struct findings *, findings_free)
DUT_DEFINE_FREEP(struct rdoc *, rdoc_free)

#define CFG(I, NAME, FS, TARGETS) \
	"{\"index\":" #I ",\"name\":\"" NAME "\",\"dir\":\"c0" #I "\",\"status\":\"complete\"," \
	"\"view\":\"device\",\"filesystem\":\"" FS "\",\"replica\":\"none\",\"reps\":[{\"rep\":1," \
	"\"dir\":\"c0" #I "/rep1\",\"status\":\"complete\",\"steps\":[]" TARGETS "}]}"

static const char manifest[] =
	"{\"schema\":\"dutlab-run\",\"schema_version\":1,\"experiment\":{\"name\":\"x\"},"
	"\"status\":\"complete\",\"configs\":["
	/* the built-in experiment: a directory target on ext4, dutfs over it */
	CFG(0, "dir", "none", ",\"targets\":[{\"name\":\"work\",\"path\":\"/var/tmp/dutlab/default\","
	    "\"dir\":\"/var/tmp/dutlab/default\",\"filesystem\":\"ext4\",\"dutfs\":true}]") ","
	/* fill-iops: dutprobe on a raw image, no cluster, no dutfs */
	CFG(1, "raw", "none", ",\"targets\":[{\"name\":\"drive\",\"path\":\"/var/tmp/d.img\","
	    "\"dir\":null,\"filesystem\":null,\"dutfs\":false}]") ","
	/* an image the run formatted, data and WAL on two targets */
	CFG(2, "ext4-ordered", "ext4-ordered", ",\"targets\":[{\"name\":\"a\",\"path\":\"/i/a.img\","
	    "\"dir\":\"/run/dutlab-1/stage/a-x\",\"filesystem\":\"ext4\",\"dutfs\":true},"
	    "{\"name\":\"b\",\"path\":\"/i/b.img\",\"dir\":\"/run/dutlab-1/stage/b-x\","
	    "\"filesystem\":\"xfs\",\"dutfs\":true},{\"name\":\"c\",\"path\":\"/i/c.img\","
	    "\"dir\":\"/run/dutlab-1/stage/c-x\",\"filesystem\":\"ext4\",\"dutfs\":false}]") ","
	/* a manifest from before the targets were recorded */
	CFG(3, "old", "none", "") "]}";

static void test_configurations_table_filesystem_and_view(void)
{
	_cleanup_(rundir_model_freep) struct rundir_model *m = NULL;
	_cleanup_(findings_freep) struct findings *f = NULL;
	_cleanup_(rdoc_freep) struct rdoc *d = NULL;
	_cleanup_free_ char *md = NULL;
	struct dut_error err = { { 0 } };
	static const char *const rows[] = {
		"| 0 | dir | complete | 1 of 1 complete | device | ext4, the target's own | none |  |",
		"| 1 | raw | complete | 1 of 1 complete | no dutfs | none (raw) | none |  |",
		"| 2 | ext4-ordered | complete | 1 of 1 complete | device | ext4-ordered (ext4, xfs) | none |  |",
		"| 3 | old | complete | 1 of 1 complete | device | the target's own (not recorded) | none |  |",
	};

	CU_ASSERT_EQUAL_FATAL(rundir_manifest_parse(manifest, strlen(manifest), "m.json", &m, &err), 0);
	CU_ASSERT_EQUAL(m->configs[0].reps[0].dutfs_mounts, 1);
	CU_ASSERT_EQUAL(m->configs[2].reps[0].dutfs_mounts, 2);
	CU_ASSERT_STRING_EQUAL(m->configs[2].reps[0].filesystems, "ext4, xfs");
	CU_ASSERT_EQUAL(m->configs[3].reps[0].dutfs_mounts, -1);
	CU_ASSERT_EQUAL_FATAL(findings_build(m, &f), 0);
	CU_ASSERT_EQUAL_FATAL(report_run_build(m, f, NULL, &d), 0);
	CU_ASSERT_EQUAL_FATAL(render_md(d, &md), 0);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		CU_CHECK(strstr(md, rows[i]) != NULL, "no row %s in\n%.2000s", rows[i], strstr(md, "## Configurations") ?: md);
	CU_CHECK(!strstr(md, "| device | none | none |  |\n| 1"), "the ext4 directory reads filesystem none");
}

/* The PostgreSQL each configuration ran (manifest "postgres", #22): one line when all ran the same. */
static void test_configurations_postgres_line(void)
{
#define PG(V, B) "{\"major\":" #V ",\"version\":\"postgres (PostgreSQL) " #V ".1\",\"bindir\":\"" B "\"}"
/* a configuration with its "postgres" */
#define CFGPG(I, NAME, PGOBJ) \
	"{\"index\":" #I ",\"name\":\"" NAME "\",\"dir\":\"c0" #I "\",\"status\":\"complete\"," \
	"\"postgres\":" PGOBJ ",\"reps\":[]}"
	static const char same[] =
		"{\"schema\":\"dutlab-run\",\"schema_version\":1,\"experiment\":{\"name\":\"x\"},\"status\":\"complete\","
		"\"configs\":[" CFGPG(0, "a", PG(15, "/pg/15/bin")) "," CFGPG(1, "b", PG(15, "/pg/15/bin")) "]}";
	static const char mixed[] =
		"{\"schema\":\"dutlab-run\",\"schema_version\":1,\"experiment\":{\"name\":\"x\"},\"status\":\"complete\","
		"\"configs\":[" CFGPG(0, "pg15", PG(15, "/pg/15/bin")) "," CFGPG(1, "pg18", PG(18, "/pg/18/bin"))
		"," CFGPG(2, "probe", "null") "]}";
#undef CFGPG
#undef PG
	static const struct { const char *text, *want, *not; } rows[] = {
		{ same, "PostgreSQL: postgres (PostgreSQL) 15.1, from /pg/15/bin.", "per configuration" },
		{ mixed, "- 0 pg15: postgres (PostgreSQL) 15.1, from /pg/15/bin\n- 1 pg18: postgres (PostgreSQL) 18.1, from /pg/18/bin",
		  "2 probe:" },
		{ manifest, NULL, "PostgreSQL" },   /* older manifests: nothing */
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		_cleanup_(rundir_model_freep) struct rundir_model *m = NULL;
		_cleanup_(findings_freep) struct findings *f = NULL;
		_cleanup_(rdoc_freep) struct rdoc *d = NULL;
		_cleanup_free_ char *md = NULL;
		struct dut_error err = { { 0 } };
		const char *cfgs;

		CU_ASSERT_EQUAL_FATAL(rundir_manifest_parse(rows[i].text, strlen(rows[i].text), "m.json", &m, &err), 0);
		CU_ASSERT_EQUAL_FATAL(findings_build(m, &f), 0);
		CU_ASSERT_EQUAL_FATAL(report_run_build(m, f, NULL, &d), 0);
		CU_ASSERT_EQUAL_FATAL(render_md(d, &md), 0);
		cfgs = strstr(md, "## Configurations");
		CU_ASSERT_PTR_NOT_NULL_FATAL(cfgs);
		if (rows[i].want)
			CU_CHECK(strstr(cfgs, rows[i].want) != NULL, "row %zu: no \"%s\" in\n%.1500s", i, rows[i].want, cfgs);
		CU_CHECK(!strstr(cfgs, rows[i].not) || (strstr(cfgs, "## Findings") && strstr(cfgs, rows[i].not) > strstr(cfgs, "## Findings")),
			 "row %zu: \"%s\" in\n%.1500s", i, rows[i].not, cfgs);
	}
}

static const struct cu_test tests[] = {
	{ "configurations_table_filesystem_and_view", test_configurations_table_filesystem_and_view },
	{ "configurations_postgres_line", test_configurations_postgres_line },
	{ NULL, NULL },
};
const struct cu_suite cu_suite = { .name = "report_configs", .tests = tests };
