/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Choosing a PostgreSQL installation (lib/pgbin.h): the newest usable major
 * by default, an asked-for major or a clear refusal, and a scan of a fake
 * /usr/lib/postgresql tree (13 and 17 servers, 16 with the client only, a
 * 12, and names that are not majors); version strings and PG_VERSION; a
 * bindir's programs and its postgres --version (a stub); the table of
 * settings by major.
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

static void test_parse_version(void)
{
	static const struct {
		const char *text;
		int ret;
		unsigned major;
	} rows[] = {
		{ "postgres (PostgreSQL) 15.14 (Debian 15.14-0+deb12u1)", 0, 15 },
		{ "postgres (PostgreSQL) 18beta1", 0, 18 },
		{ "postgres (PostgreSQL) 17.2", 0, 17 },
		{ "postgres (PostgreSQL) 9.6.24", 0, 9 },
		{ "postgres (PostgreSQL) ", -EINVAL, 0 },
		{ "postgres 15.1", -EINVAL, 0 },
		{ "", -EINVAL, 0 },
		{ "postgres (PostgreSQL) 0.1", -EINVAL, 0 },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		unsigned major = 0;
		int r = dut_pgbin_parse_version(rows[i].text, &major);

		if (r != rows[i].ret || (r == 0 && major != rows[i].major))
			cu_fail("\"%s\": got %d/%u, expected %d/%u", rows[i].text, r, major, rows[i].ret, rows[i].major);
	}
}

static void test_parse_pg_version(void)
{
	static const struct {
		const char *text;
		int ret;
		unsigned major;
	} rows[] = {
		{ "15\n", 0, 15 }, { "17", 0, 17 }, { "9.6\n", 0, 9 }, { "13\r\n", 0, 13 },
		{ "", -EINVAL, 0 }, { "x15", -EINVAL, 0 }, { "15 16", -EINVAL, 0 }, { "15.", -EINVAL, 0 },
		{ "0\n", -EINVAL, 0 },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		unsigned major = 0;
		int r = dut_pgbin_parse_pg_version(rows[i].text, &major);

		if (r != rows[i].ret || (r == 0 && major != rows[i].major))
			cu_fail("\"%s\": got %d/%u, expected %d/%u", rows[i].text, r, major, rows[i].ret, rows[i].major);
	}
}

static void test_settings(void)
{
	static const struct {
		const char *name, *value;
		unsigned major;
		const char *reason;     /* NULL: allowed */
	} rows[] = {
		{ "io_method", "worker", 18, NULL },
		{ "io_method", "sync", 17, "io_method needs PostgreSQL 18" },
		{ "IO_Method", "worker", 15, "IO_Method needs PostgreSQL 18" },
		{ "io_combine_limit", "128kB", 17, NULL },
		{ "io_combine_limit", "128kB", 16, "io_combine_limit needs PostgreSQL 17" },
		{ "summarize_wal", "on", 16, "summarize_wal needs PostgreSQL 17" },
		{ "maintenance_io_concurrency", "10", 13, NULL },
		{ "wal_compression", "lz4", 15, NULL },
		{ "wal_compression", "zstd", 14, "wal_compression = zstd needs PostgreSQL 15 (before 15 it is on or off)" },
		{ "wal_compression", "LZ4", 13, "wal_compression = LZ4 needs PostgreSQL 15" },
		{ "wal_compression", "on", 13, NULL },   /* a value every major has */
		{ "stats_temp_directory", "/tmp", 14, NULL },
		{ "stats_temp_directory", "/tmp", 15, "stats_temp_directory was removed in PostgreSQL 15" },
		{ "force_parallel_mode", "on", 16, "was removed in PostgreSQL 16 (renamed debug_parallel_query)" },
		{ "wal_keep_segments", "8", 13, "wal_keep_segments was removed in PostgreSQL 13 (use wal_keep_size)" },
		{ "shared_buffers", "16MB", 13, NULL },  /* not in the table */
		{ "random_page_cost", "1.1", 18, NULL },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct dut_pg_setting_rule *r = dut_pg_setting_check(rows[i].name, rows[i].value, rows[i].major);
		char why[256] = "";

		if (r)
			dut_pg_setting_reason(r, rows[i].name, rows[i].value, why, sizeof(why));
		if (!rows[i].reason != !r || (r && !strstr(why, rows[i].reason)))
			cu_fail("%s = %s on %u: got \"%s\", expected \"%s\"", rows[i].name, rows[i].value,
				rows[i].major, why, rows[i].reason ? rows[i].reason : "(allowed)");
	}
	/* the table is well formed: lower-case names, a bound, since before until */
	for (size_t i = 0; i < dut_pg_nsetting_rules; i++) {
		const struct dut_pg_setting_rule *r = &dut_pg_setting_rules[i];

		for (const char *p = r->name; *p; p++)
			if (*p >= 'A' && *p <= 'Z')
				cu_fail("rule %s: upper case", r->name);
		if (!r->since && !r->until)
			cu_fail("rule %s: neither since nor until", r->name);
		if (r->since && r->until && r->since > r->until)
			cu_fail("rule %s: since %u after until %u", r->name, r->since, r->until);
	}
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	CU_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	fclose(f);
	CU_ASSERT_FATAL(chmod(path, mode) == 0);
}

static void test_bindir_and_version(void)
{
	char root[] = "/tmp/test-pgbin.XXXXXX", dir[600], path[700], cmd[600], version[160];
	struct dut_error err = { "" };
	unsigned major = 0;

	CU_ASSERT_FATAL(mkdtemp(root) != NULL);
	mk(root, "17", true, true);
	snprintf(dir, sizeof(dir), "%s/17/bin", root);
	/* no postgres yet */
	CU_ASSERT_EQUAL(dut_pgbin_check_dir(dir, &err), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "has no postgres"));
	snprintf(path, sizeof(path), "%s/postgres", dir);
	write_file(path, "#!/bin/sh\necho 'postgres (PostgreSQL) 17.2 (fake)'\n", 0755);
	CU_ASSERT_EQUAL(dut_pgbin_check_dir(dir, &err), 0);
	CU_ASSERT_EQUAL(dut_pgbin_version(dir, version, sizeof(version), &major, &err), 0);
	CU_ASSERT_EQUAL(major, 17);
	CU_ASSERT_STRING_EQUAL(version, "postgres (PostgreSQL) 17.2 (fake)");
	/* a postgres that says something else */
	write_file(path, "#!/bin/sh\necho hello\n", 0755);
	CU_ASSERT_EQUAL(dut_pgbin_version(dir, version, sizeof(version), &major, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "said \"hello\""));
	/* a directory with nothing: every program named */
	CU_ASSERT_EQUAL(dut_pgbin_check_dir(root, &err), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "has no initdb, pg_ctl, postgres"));
	CU_ASSERT_EQUAL(dut_pgbin_check_dir("relative/bin", &err), -EINVAL);
	CU_ASSERT_EQUAL(dut_pgbin_check_dir("/nonexistent/bin", &err), -ENOENT);
	/* PG_VERSION of a data directory */
	snprintf(path, sizeof(path), "%s/PG_VERSION", root);
	write_file(path, "16\n", 0644);
	CU_ASSERT_EQUAL(dut_pgbin_cluster_major(root, &major, &err), 0);
	CU_ASSERT_EQUAL(major, 16);
	write_file(path, "sixteen\n", 0644);
	CU_ASSERT_EQUAL(dut_pgbin_cluster_major(root, &major, &err), -EINVAL);
	CU_ASSERT_EQUAL(dut_pgbin_cluster_major(dir, &major, &err), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "PG_VERSION"));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

/* As root, what root would run from a bindir must be root's all the way up. */
static void test_check_progs_trust(void)
{
	char root[] = "/tmp/test-pgbin-trust.XXXXXX", dir[600], path[700], cmd[700];
	static const char *const progs[] = { "psql", "pg_amcheck", NULL };
	struct dut_error err = { "" };

	CU_ASSERT_FATAL(mkdtemp(root) != NULL);
	snprintf(dir, sizeof(dir), "%s/bin", root);
	CU_ASSERT_FATAL(mkdir(dir, 0755) == 0);
	snprintf(path, sizeof(path), "%s/psql", dir);
	write_file(path, "#!/bin/sh\n", 0755);
	CU_ASSERT_EQUAL(dut_pgbin_check_progs(dir, progs, &err), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "pg_amcheck: not an executable file"));
	snprintf(path, sizeof(path), "%s/pg_amcheck", dir);
	write_file(path, "#!/bin/sh\n", 0755);
	CU_ASSERT_EQUAL(dut_pgbin_check_progs(dir, progs, &err), 0);
	if (geteuid() == 0) {
		/* another user's program */
		CU_ASSERT_EQUAL(chown(path, 65534, 65534), 0);
		CU_ASSERT_EQUAL(dut_pgbin_check_progs(dir, progs, &err), -EPERM);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "pg_amcheck is owned by another user"));
		CU_ASSERT_EQUAL(chown(path, 0, 0), 0);
		/* root's program, in a directory anyone can write (and so swap it) */
		CU_ASSERT_EQUAL(chmod(dir, 0777), 0);
		CU_ASSERT_EQUAL(dut_pgbin_check_progs(dir, progs, &err), -EPERM);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "/bin is writable by other users"));
		/* sticky, like /tmp: others cannot replace root's entries */
		CU_ASSERT_EQUAL(chmod(dir, 01777), 0);
		CU_ASSERT_EQUAL(dut_pgbin_check_progs(dir, progs, &err), 0);
		CU_ASSERT_EQUAL(chmod(dir, 0755), 0);
		/* a link to a program another user owns */
		snprintf(cmd, sizeof(cmd), "%s/theirs", root);
		write_file(cmd, "#!/bin/sh\n", 0755);
		CU_ASSERT_EQUAL(chown(cmd, 65534, 65534), 0);
		CU_ASSERT_EQUAL(unlink(path), 0);
		CU_ASSERT_EQUAL(symlink(cmd, path), 0);
		CU_ASSERT_EQUAL(dut_pgbin_check_progs(dir, progs, &err), -EPERM);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "pg_amcheck: "));
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "/theirs is owned by another user"));
		/* a file only root may write is not enough when its directory is not root's */
		CU_ASSERT_EQUAL(unlink(path), 0);
		write_file(path, "#!/bin/sh\n", 0755);
		CU_ASSERT_EQUAL(chown(dir, 65534, 65534), 0);
		CU_ASSERT_EQUAL(dut_pgbin_check_progs(dir, progs, &err), -EPERM);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "/bin is owned by another user"));
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

static void test_root_env(void)
{
	const char *old = getenv("DUT_PG_ROOT");
	char *keep = old ? strdup(old) : NULL;

	unsetenv("DUT_PG_ROOT");
	CU_ASSERT_STRING_EQUAL(dut_pgbin_root(), DUT_PG_ROOT);
	setenv("DUT_PG_ROOT", "/tmp/fake-pg", 1);
	CU_ASSERT_STRING_EQUAL(dut_pgbin_root(), "/tmp/fake-pg");
	setenv("DUT_PG_ROOT", "relative", 1);   /* not absolute: ignored */
	CU_ASSERT_STRING_EQUAL(dut_pgbin_root(), DUT_PG_ROOT);
	if (keep)
		setenv("DUT_PG_ROOT", keep, 1);
	else
		unsetenv("DUT_PG_ROOT");
	free(keep);
}

static const struct cu_test tests[] = {
	{ "parse_version", test_parse_version },
	{ "parse_pg_version", test_parse_pg_version },
	{ "settings", test_settings },
	{ "bindir_and_version", test_bindir_and_version },
	{ "root_env", test_root_env },
	{ "check_progs_trust", test_check_progs_trust },
	{ "choose", test_choose },
	{ "choose_none", test_choose_none },
	{ "scan_and_find", test_scan_and_find },
	{ NULL, NULL },
};
const struct cu_suite cu_suite = { .name = "pgbin", .tests = tests };
