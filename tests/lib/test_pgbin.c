/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Choosing a PostgreSQL installation (lib/pgbin.h): the newest usable major
 * by default, an asked-for major or a clear refusal, and a scan of a fake
 * /usr/lib/postgresql tree (13 and 17 servers, 16 with the client only, a
 * 12, and names that are not majors).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/pgbin.h"
#include "tests/cu_main.h"

static void test_choose(void)
{
	static const struct dut_pg_install found[] = {
		{ 15, true, true }, { 17, true, true }, { 18, false, false }, { 12, true, true },
		{ 16, true, false },
	};
	static const struct {
		unsigned want;
		int index;              /* -ENOENT: refused */
		const char *msg_has;
	} rows[] = {
		{ 0, 1, NULL },                  /* newest usable: 17, not the client-only 18 */
		{ 15, 0, NULL },
		{ 17, 1, NULL },
		{ 18, -ENOENT, "18 (no initdb, no pg_ctl: the client only)" },
		{ 16, -ENOENT, "16 (no pg_ctl)" },
		{ 12, -ENOENT, "older than dutlab supports" },
		{ 14, -ENOENT, "install the Debian package postgresql-14" },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct dut_error err = { "" };
		int r = dut_pgbin_choose(found, 5, rows[i].want, DUT_PG_ROOT, &err);

		if (r != rows[i].index)
			cu_fail("want %u: got %d, expected %d (%s)", rows[i].want, r, rows[i].index, err.msg);
		if (rows[i].msg_has && !strstr(err.msg, rows[i].msg_has))
			cu_fail("want %u: message '%s' lacks '%s'", rows[i].want, err.msg, rows[i].msg_has);
	}
}

static void test_choose_none(void)
{
	struct dut_error err = { "" };

	CU_ASSERT_EQUAL(dut_pgbin_choose(NULL, 0, 0, "/x", &err), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no PostgreSQL server in /x/<major>/bin (found: none)"));
}

static void touch_exec(const char *dir, const char *name)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
}

static void mk(const char *root, const char *major, bool initdb, bool pg_ctl)
{
	char dir[512];

	snprintf(dir, sizeof(dir), "%s/%s", root, major);
	CU_ASSERT_FATAL(mkdir(dir, 0755) == 0);
	snprintf(dir, sizeof(dir), "%s/%s/bin", root, major);
	CU_ASSERT_FATAL(mkdir(dir, 0755) == 0);
	if (initdb)
		touch_exec(dir, "initdb");
	if (pg_ctl)
		touch_exec(dir, "pg_ctl");
}

static void test_scan_and_find(void)
{
	char root[] = "/tmp/test-pgbin.XXXXXX", bindir[PATH_MAX], cmd[600];
	struct dut_error err = { "" };
	unsigned major = 0;

	CU_ASSERT_FATAL(mkdtemp(root) != NULL);
	mk(root, "13", true, true);
	mk(root, "17", true, true);
	mk(root, "16", false, false);
	mk(root, "12", true, true);
	mk(root, "17beta", true, true);   /* not a major */
	mk(root, "0", true, true);
	CU_ASSERT_EQUAL(dut_pgbin_find(root, 0, bindir, sizeof(bindir), &major, &err), 0);
	CU_ASSERT_EQUAL(major, 17);
	CU_ASSERT_PTR_NOT_NULL(strstr(bindir, "/17/bin"));
	CU_ASSERT_EQUAL(dut_pgbin_find(root, 13, bindir, sizeof(bindir), &major, &err), 0);
	CU_ASSERT_EQUAL(major, 13);
	CU_ASSERT_EQUAL(dut_pgbin_find(root, 16, bindir, sizeof(bindir), &major, &err), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "the client only"));
	/* a missing root is "nothing installed", not an error of its own */
	CU_ASSERT_EQUAL(dut_pgbin_find("/nonexistent/pg", 0, bindir, sizeof(bindir), &major, &err), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "found: none"));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

static const struct cu_test tests[] = {
	{ "choose", test_choose },
	{ "choose_none", test_choose_none },
	{ "scan_and_find", test_scan_and_find },
	{ NULL, NULL },
};
const struct cu_suite cu_suite = { .name = "pgbin", .tests = tests };
