/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * PostgreSQL builds of other block sizes (#26): lib/pgbin.h's block sizes,
 * cache keys and build records; [postgres] block_size, wal_block_size and
 * the [matrix] dimensions of the same names, into every configuration,
 * named and printed; the refusals with the line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/pgbin.h"
#include "tests/cu_main.h"
#include "tools/run/experiment.h"

#define TGT "[target t]\ntype = directory\npath = /tmp/x\n"
#define RUN "[step r]\ntype = oltp-run\nduration = 10s\n"

static void test_block_size_values(void)
{
	static const struct {
		const char *text;
		bool wal;
		int r;
		unsigned kb;
	} rows[] = {
		{ "16kB", false, 0, 16 }, { "16k", false, 0, 16 }, { "16", false, 0, 16 }, { "1kB", false, 0, 1 },
		{ "32KB", false, 0, 32 }, { "8kb", false, 0, 8 }, { "64kB", true, 0, 64 }, { "1k", true, 0, 1 },
		{ "64kB", false, -EINVAL, 0 }, { "3kB", false, -EINVAL, 0 }, { "0", false, -EINVAL, 0 },
		{ "016", false, -EINVAL, 0 }, { "16MB", false, -EINVAL, 0 }, { "16384", false, -EINVAL, 0 },
		{ "", false, -EINVAL, 0 }, { "kB", false, -EINVAL, 0 }, { "128kB", true, -EINVAL, 0 },
		{ "16 kB", false, -EINVAL, 0 },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		unsigned kb = 0;
		char msg[200] = "";
		int r = dut_pg_parse_block_size(rows[i].text, rows[i].wal, &kb, msg, sizeof(msg));

		CU_CHECK(r == rows[i].r && (r < 0 || kb == rows[i].kb), "\"%s\" (wal %d): %d, %u kB",
			 rows[i].text, rows[i].wal, r, kb);
		if (r < 0)
			CU_CHECK(strstr(msg, rows[i].wal ? "1, 2, 4, 8, 16, 32 or 64 kB" : "1, 2, 4, 8, 16 or 32 kB") &&
					 strstr(msg, rows[i].text),
				 "\"%s\": message \"%s\"", rows[i].text, msg);
	}
}

static void test_cache_keys(void)
{
	char k[32];

	CU_ASSERT_EQUAL(dut_pg_build_key(15, 16, 8, k, sizeof(k)), 0);
	CU_ASSERT_STRING_EQUAL(k, "15-bs16k");
	CU_ASSERT_EQUAL(dut_pg_build_key(17, 0, 0, k, sizeof(k)), 0);
	CU_ASSERT_STRING_EQUAL(k, "17-bs8k");
	CU_ASSERT_EQUAL(dut_pg_build_key(18, 1, 32, k, sizeof(k)), 0);
	CU_ASSERT_STRING_EQUAL(k, "18-bs1k-wal32k");
	CU_ASSERT_EQUAL(dut_pg_build_key(18, 1, 32, k, 8), -ENAMETOOLONG);
}

static void test_build_record(void)
{
	struct dut_pg_build b;
	const char *good = "# written by dutlab-pg-build\nmajor=15\nversion=15.18-0+deb12u1\nsuite=bookworm\n"
			   "block_size_kb=16\nwal_block_size_kb=8\nconfigure=--prefix=/x --with-blocksize=16\n"
			   "build_seconds=812\n";

	CU_ASSERT_EQUAL_FATAL(dut_pg_build_parse(good, &b), 0);
	CU_ASSERT_EQUAL(b.major, 15);
	CU_ASSERT_EQUAL(b.block_kb, 16);
	CU_ASSERT_EQUAL(b.wal_block_kb, 8);
	CU_ASSERT_EQUAL(b.build_seconds, 812);
	CU_ASSERT_STRING_EQUAL(b.version, "15.18-0+deb12u1");
	CU_ASSERT_STRING_EQUAL(b.suite, "bookworm");
	CU_ASSERT_STRING_EQUAL(b.configure, "--prefix=/x --with-blocksize=16");
	/* what is not a record of a build */
	CU_ASSERT_EQUAL(dut_pg_build_parse("major=15\nblock_size_kb=16\n", &b), -EINVAL);
	CU_ASSERT_EQUAL(dut_pg_build_parse("major=15\nblock_size_kb=12\nwal_block_size_kb=8\n", &b), -EINVAL);
	CU_ASSERT_EQUAL(dut_pg_build_parse("major=9\nblock_size_kb=8\nwal_block_size_kb=8\n", &b), -EINVAL);
	CU_ASSERT_EQUAL(dut_pg_build_parse("major=15x\nblock_size_kb=8\nwal_block_size_kb=8\n", &b), -EINVAL);
	CU_ASSERT_EQUAL(dut_pg_build_parse("", &b), -EINVAL);
}

/* A cache directory with builds of (major, seconds); 0 seconds: not recorded. */
static void make_cache(char *dir, const unsigned (*builds)[2], size_t n)
{
	strcpy(dir, "/tmp/test_pgbuild.XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	for (size_t i = 0; i < n; i++) {
		char path[256];
		FILE *f;

		snprintf(path, sizeof(path), "%s/%u-bs%uk", dir, builds[i][0], 16 + 16 * (unsigned)(i % 2));
		CU_ASSERT_EQUAL_FATAL(mkdir(path, 0755) == 0 || errno == EEXIST, 1);
		snprintf(path + strlen(path), sizeof(path) - strlen(path), "/%s", DUT_PG_BUILD_CONF);
		CU_ASSERT_PTR_NOT_NULL_FATAL(f = fopen(path, "w"));
		fprintf(f, "major=%u\nblock_size_kb=%u\nwal_block_size_kb=8\n", builds[i][0], 16 + 16 * (unsigned)(i % 2));
		if (builds[i][1])
			fprintf(f, "build_seconds=%u\n", builds[i][1]);
		fclose(f);
	}
}

static void rm_cache(const char *dir)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

/* What --dry-run says a missing build takes: this machine's times first. */
static void test_build_estimate(void)
{
	static const unsigned two15[][2] = { { 15, 900 }, { 15, 1200 } };
	static const unsigned one18[][2] = { { 18, 1600 } };
	static const unsigned untimed[][2] = { { 15, 0 } };
	static const struct {
		const char *name;
		const unsigned (*builds)[2];
		size_t n;
		unsigned major, want;
		bool here;
	} rows[] = {
		{ "empty cache: the measured figure", NULL, 0, 15, DUT_PG_BUILD_SECONDS_GUESS, false },
		{ "empty cache: the same for a later major", NULL, 0, 18, DUT_PG_BUILD_SECONDS_GUESS, false },
		{ "the median of the major's own", two15, 2, 15, 1200, true },
		{ "another major's when none of its own", one18, 1, 15, 1600, true },
		{ "the median of all for 18", two15, 2, 18, 1200, true },
		{ "a build that recorded no time", untimed, 1, 15, DUT_PG_BUILD_SECONDS_GUESS, false },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char dir[64];
		bool here = !rows[i].here;
		unsigned got;

		make_cache(dir, rows[i].builds, rows[i].n);
		got = dut_pg_build_estimate(dir, rows[i].major, &here);
		CU_CHECK(got == rows[i].want && here == rows[i].here, "%s: %u s (timed here %d), want %u s (%d)",
			 rows[i].name, got, here, rows[i].want, rows[i].here);
		rm_cache(dir);
	}
	CU_ASSERT_EQUAL(dut_pg_build_estimate("/nonexistent/dutlab-pg", 15, NULL), DUT_PG_BUILD_SECONDS_GUESS);
}

/* A build's record read from its directory: found, missing, reached through a link (refused). */
static void test_build_read(void)
{
	static const unsigned one15[][2] = { { 15, 700 } };
	char dir[64], path[256], link_dir[300], link_conf[400];
	struct dut_pg_build b = { 0 };
	struct dut_error err = { "" };

	make_cache(dir, one15, 1);
	snprintf(path, sizeof(path), "%s/15-bs16k", dir);
	CU_ASSERT_EQUAL(dut_pg_build_read(path, &b, &err), 0);
	CU_ASSERT(b.major == 15 && b.block_kb == 16 && b.wal_block_kb == 8 && b.build_seconds == 700);
	/* a directory without a record is no build */
	CU_ASSERT_EQUAL(dut_pg_build_read(dir, &b, &err), -ENOENT);
	/* a record that is a link is not followed, and the error names it */
	snprintf(link_dir, sizeof(link_dir), "%s/15-bs32k", dir);
	CU_ASSERT_EQUAL_FATAL(mkdir(link_dir, 0755), 0);
	snprintf(link_conf, sizeof(link_conf), "%s/%s", link_dir, DUT_PG_BUILD_CONF);
	snprintf(path + strlen(path), sizeof(path) - strlen(path), "/%s", DUT_PG_BUILD_CONF);
	CU_ASSERT_EQUAL_FATAL(symlink(path, link_conf), 0);
	err.msg[0] = '\0';
	CU_ASSERT_EQUAL(dut_pg_build_read(link_dir, &b, &err), -ELOOP);
	CU_CHECK(strstr(err.msg, link_conf) != NULL, "the error names the record: %s", err.msg);
	rm_cache(dir);
}

static struct dut_experiment *parse_ok(const char *text, const char *row)
{
	struct dut_experiment *e = NULL;
	struct dut_error err = { "" };
	int r = dut_experiment_parse(text, strlen(text), "t.ini", &e, &err);

	CU_CHECK(r == 0, "%s: parse failed (%d): %s", row, r, err.msg);
	return r == 0 ? e : NULL;
}

static void test_postgres_block_size(void)
{
	struct dut_experiment *e = parse_ok(TGT "[postgres]\nversion = 15\nblock_size = 16kB\nwal_block_size = 32k\n" RUN,
					    "postgres");
	struct dut_plan *p = NULL;

	if (!e)
		return;
	CU_ASSERT_EQUAL(e->pg_block_kb, 16);
	CU_ASSERT_EQUAL(e->pg_wal_block_kb, 32);
	CU_ASSERT_EQUAL_FATAL(dut_experiment_plan(e, &p), 0);
	CU_ASSERT_EQUAL(p->configs[0].pg_major, 15);
	CU_ASSERT_EQUAL(p->configs[0].pg_block_kb, 16);
	CU_ASSERT_EQUAL(p->configs[0].pg_wal_block_kb, 32);
	dut_plan_free(p);
	dut_experiment_free(e);
	/* not given: 0 (the installation's own, 8 kB from Debian) */
	if ((e = parse_ok(TGT RUN, "neither"))) {
		CU_ASSERT_EQUAL(e->pg_block_kb, 0);
		CU_ASSERT_EQUAL(e->pg_wal_block_kb, 0);
		dut_experiment_free(e);
	}
}

/* block_size x filesystem, as the TPC-H-across-filesystems report swept */
static void test_matrix_block_size(void)
{
	struct dut_experiment *e = parse_ok(TGT "[matrix]\nblock_size = 8kB, 16kB, 32kB\nfilesystem = none\n"
					    "wal_block_size = 8kB, 64kB\n" RUN, "matrix");
	struct dut_plan *p = NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (!e)
		return;
	CU_ASSERT_EQUAL(e->dims[0].kind, DUT_DIM_BLOCK_SIZE);
	CU_ASSERT_EQUAL(e->dims[2].kind, DUT_DIM_WAL_BLOCK_SIZE);
	CU_ASSERT_EQUAL_FATAL(dut_experiment_plan(e, &p), 0);
	CU_ASSERT_EQUAL_FATAL(p->nconfigs, 6);
	CU_ASSERT_STRING_EQUAL(p->configs[0].name, "bs8k+none+walbs8k");
	CU_ASSERT_STRING_EQUAL(p->configs[3].name, "bs16k+none+walbs64k");
	CU_ASSERT_STRING_EQUAL(p->configs[5].name, "bs32k+none+walbs64k");
	CU_ASSERT_EQUAL(p->configs[0].pg_block_kb, 8);
	CU_ASSERT_EQUAL(p->configs[3].pg_block_kb, 16);
	CU_ASSERT_EQUAL(p->configs[3].pg_wal_block_kb, 64);
	CU_ASSERT_EQUAL(p->configs[4].pg_wal_block_kb, 8);
	CU_ASSERT_EQUAL(p->configs[5].pg_block_kb, 32);
	f = open_memstream(&text, &len);
	CU_ASSERT_FATAL(f != NULL);
	dutlab_run_print_plan(p, f);
	fclose(f);
	CU_CHECK(strstr(text, "the newest installed built with 32 kB blocks, 64 kB WAL blocks") != NULL, "plan: %s", text);
	free(text);
	dut_plan_free(p);
	dut_experiment_free(e);
}

static void test_refusals_cite_the_line(void)
{
	static const struct {
		const char *name, *text, *msg;
	} rows[] = {
		{ "not_accepted", TGT "[postgres]\nblock_size = 3kB\n" RUN,
		  "t.ini:5: [postgres]: block_size: expected a block size PostgreSQL accepts (1, 2, 4, 8, 16 or 32 kB" },
		{ "too_big", TGT "[postgres]\nblock_size = 64kB\n" RUN, "found \"64kB\"" },
		{ "wal_too_big", TGT "[postgres]\nwal_block_size = 128kB\n" RUN,
		  "wal_block_size: expected a WAL block size PostgreSQL accepts (1, 2, 4, 8, 16, 32 or 64 kB" },
		{ "with_bindir", TGT "[postgres]\nbindir = /opt/pg/bin\nblock_size = 16kB\n" RUN,
		  "block_size: bindir (line 5) names a PostgreSQL installation" },
		{ "matrix_bad", TGT "[matrix]\nblock_size = 8kB, 12kB\n" RUN, "t.ini:5: [matrix]: block_size: expected a block size" },
		{ "matrix_and_postgres", TGT "[postgres]\nblock_size = 16kB\n[matrix]\nblock_size = 8kB, 16kB\n" RUN,
		  "block_size is also set at line 5" },
		{ "matrix_with_bindir", TGT "[postgres]\nbindir = /opt/pg/bin\n[matrix]\nwal_block_size = 8kB, 16kB\n" RUN,
		  "wal_block_size: [postgres] bindir names a PostgreSQL installation" },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct dut_experiment *e = NULL;
		struct dut_error err = { "" };
		int r = dut_experiment_parse(rows[i].text, strlen(rows[i].text), "t.ini", &e, &err);

		CU_CHECK(r == -EINVAL, "%s: expected -EINVAL, found %d", rows[i].name, r);
		CU_CHECK(strstr(err.msg, rows[i].msg) != NULL, "%s: expected \"%s\" in \"%s\"", rows[i].name,
			 rows[i].msg, err.msg);
		if (r == 0)
			dut_experiment_free(e);
	}
}

static const struct cu_test tests[] = {
	{ "block_size_values", test_block_size_values },
	{ "cache_keys", test_cache_keys },
	{ "build_record", test_build_record },
	{ "build_estimate", test_build_estimate },
	{ "build_read", test_build_read },
	{ "postgres_block_size", test_postgres_block_size },
	{ "matrix_block_size", test_matrix_block_size },
	{ "refusals_cite_the_line", test_refusals_cite_the_line },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "pgbuild", .tests = tests };
