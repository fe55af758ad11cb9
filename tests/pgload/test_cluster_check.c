/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What root accepts from a state file and from --set (issue #27), the
 * authentication files, and password redaction for result documents.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "lib/memcg.h"
#include "lib/units.h"
#include "pgload/cluster_check.h"
#include "lib/redact.h"
#include "tests/cu_main.h"

static void test_path_is_normal(void)
{
	static const struct { const char *path; bool ok; } rows[] = {
		{ "/", true }, { "/tmp/x", true }, { "/usr/lib/postgresql/15/bin", true },
		{ "", false }, { "tmp/x", false }, { "/tmp/", false }, { "/tmp//x", false },
		{ "/tmp/./x", false }, { "/tmp/../etc", false }, { "/tmp/x/..", false },
		{ "/tmp/pgload-x/../..", false }, { "/tmp/a\nb", false }, { "/tmp/...", true },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		CU_CHECK(pgl_path_is_normal(rows[i].path) == rows[i].ok, "\"%s\"", rows[i].path);
}

static void test_path_normalize(void)
{
	static const struct { const char *cwd, *in, *want; } rows[] = {
		{ NULL, "/tmp//x/./y/", "/tmp/x/y" },
		{ NULL, "/tmp/pgload-x/../..", "/" },
		{ NULL, "/a/b/../../../c", "/c" },
		{ "/work/t", "data", "/work/t/data" },
		{ "/work/t", "../data/./x", "/work/data/x" },
		{ "/", ".", "/" },
	};
	char out[PATH_MAX];

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int r = pgl_path_normalize(rows[i].cwd, rows[i].in, out, sizeof(out));

		CU_CHECK(r == 0 && strcmp(out, rows[i].want) == 0, "\"%s\" -> \"%s\" (%d), want \"%s\"",
			 rows[i].in, r == 0 ? out : "", r, rows[i].want);
		CU_CHECK(r != 0 || pgl_path_is_normal(out), "result \"%s\" not normal", out);
	}
	CU_CHECK(pgl_path_normalize(NULL, "rel", out, sizeof(out)) == -EINVAL, "relative without cwd");
	CU_CHECK(pgl_path_normalize(NULL, "/abcdef", out, 4) == -ENAMETOOLONG, "short buffer");
}

static void test_socket_dir(void)
{
	static const struct { const char *path; bool ok; } rows[] = {
		{ "/tmp/pgload-aB3xYz", true }, { "/tmp/pgload-x/../..", false },
		{ "/tmp/pgload-abcde", false }, { "/tmp/pgload-abcdefg", false },
		{ "/tmp/pgload-ab/def", false }, { "/tmp/pgload-ab.def", false },
		{ "/var/tmp/pgload-abcdef", false }, { "/tmp/pgload-../abc", false },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		CU_CHECK(pgl_socket_dir_is_valid(rows[i].path) == rows[i].ok, "\"%s\"", rows[i].path);
}

static void test_passfile(void)
{
	const char *d = "/var/lib/pgload";

	CU_CHECK(pgl_passfile_is_valid("/var/lib/pgload/0123456789abcdef.pgpass", d), "good");
	CU_CHECK(!pgl_passfile_is_valid("/var/lib/pgload/0123456789abcdeF.pgpass", d), "upper");
	CU_CHECK(!pgl_passfile_is_valid("/var/lib/pgload/../../etc/shadow", d), "traversal");
	CU_CHECK(!pgl_passfile_is_valid("/var/lib/pgloadx/0123456789abcdef.pgpass", d), "prefix");
	CU_CHECK(!pgl_passfile_is_valid("/etc/shadow", d), "elsewhere");
	CU_CHECK(!pgl_passfile_is_valid("/var/lib/pgload/0123456789abcdef.pgpas", d), "suffix");
}

static void good_cluster(struct pgl_cluster *c)
{
	memset(c, 0, sizeof(*c));
	strcpy(c->pgdata, "/tmp/t/data");
	strcpy(c->bindir, "/usr/lib/postgresql/15/bin");
	strcpy(c->socket_dir, "/tmp/pgload-Ab12cd");
	c->port = 25432;
}

static void test_state_check(void)
{
	const char *sd = "/var/lib/pgload";
	struct pgl_cluster c;
	char why[400];

	good_cluster(&c);
	CU_CHECK(pgl_state_check(&c, sd, why, sizeof(why)) == 0, "good: %s", why);
	strcpy(c.socket_dir, "/tmp/pgload-x/../..");
	CU_CHECK(pgl_state_check(&c, sd, why, sizeof(why)) == -EINVAL && strstr(why, "socket_dir"), "%s", why);
	good_cluster(&c);
	c.port = 0;
	CU_CHECK(pgl_state_check(&c, sd, why, sizeof(why)) == -EINVAL && strstr(why, "port"), "port 0");
	c.port = 70000;
	CU_CHECK(pgl_state_check(&c, sd, why, sizeof(why)) == -EINVAL, "port 70000");
	good_cluster(&c);
	strcpy(c.wal_dir, "/tmp/t/../../root");
	CU_CHECK(pgl_state_check(&c, sd, why, sizeof(why)) == -EINVAL && strstr(why, "wal_dir"), "wal_dir ..");
	good_cluster(&c);
	strcpy(c.bindir, "bin");
	CU_CHECK(pgl_state_check(&c, sd, why, sizeof(why)) == -EINVAL && strstr(why, "bindir"), "relative bindir");
	good_cluster(&c);
	c.ntablespaces = 1;
	strcpy(c.ts[0].name, "fast");
	strcpy(c.ts[0].location, "/tmp/ts/./x");
	CU_CHECK(pgl_state_check(&c, sd, why, sizeof(why)) == -EINVAL, "tablespace location");
	strcpy(c.ts[0].location, "/tmp/ts");
	strcpy(c.ts[0].name, "a;drop");
	CU_CHECK(pgl_state_check(&c, sd, why, sizeof(why)) == -EINVAL, "tablespace name");
	good_cluster(&c);
	strcpy(c.passfile, "/etc/shadow");
	CU_CHECK(pgl_state_check(&c, sd, why, sizeof(why)) == -EINVAL && strstr(why, "passfile"), "passfile");
	good_cluster(&c);
	c.sb.is_standby = true;
	strcpy(c.sb.primary_pgdata, "/tmp/p");
	strcpy(c.sb.app_name, "s1");
	strcpy(c.sb.slot, "pgload_s1");
	CU_CHECK(pgl_state_check(&c, sd, why, sizeof(why)) == 0, "standby: %s", why);
	strcpy(c.sb.slot, "../../x");
	CU_CHECK(pgl_state_check(&c, sd, why, sizeof(why)) == -EINVAL && strstr(why, "slot"), "slot");
}

static void test_set_check(void)
{
	static const struct { const char *spec; bool ok; } rows[] = {
		{ "shared_buffers=48MB", true }, { "application_name=it's", true },
		{ "auto_explain.log_min_duration=0", true }, { "_x=", true },
		{ "work_mem=4MB\narchive_command='id'", false }, { "a=b\rc", false },
		{ "a=b\tc", false }, { "a b=1", false }, { "1a=1", false }, { "=1", false },
		{ "noequals", false }, { "a-b=1", false }, { "a\n=1", false },
	};
	char why[256];

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		CU_CHECK((pgl_set_check(rows[i].spec, why, sizeof(why)) == 0) == rows[i].ok, "\"%s\"",
			 rows[i].spec);
	pgl_set_check("x=a\nb", why, sizeof(why));
	CU_CHECK(strstr(why, "control character") != NULL, "why: %s", why);
}

static void test_settings_text(void)
{
	const char *sets[] = { "application_name=it's", "x=a\\'b" };
	char *t = pgl_settings_text(sets, 2, "# h\n");

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_CHECK(strcmp(t, "# h\napplication_name = 'it''s'\nx = 'a\\\\''b'\n") == 0, "got \"%s\"", t);
	free(t);
}

static void test_auth_texts(void)
{
	const char *users[] = { "root", "postgres", NULL }, *bad[] = { "a b", NULL };
	char buf[1024];

	CU_ASSERT_EQUAL(pgl_hba_text(false, buf, sizeof(buf)), 0);
	CU_CHECK(strstr(buf, "local   all          all                 peer map=pgload\n") != NULL, "%s", buf);
	CU_CHECK(strstr(buf, "local   replication  all                 peer map=pgload\n") != NULL, "%s", buf);
	CU_CHECK(!strstr(buf, "trust") && !strstr(buf, "host "), "no trust, no host: %s", buf);
	CU_ASSERT_EQUAL(pgl_hba_text(true, buf, sizeof(buf)), 0);
	CU_CHECK(strstr(buf, "host    all          all   127.0.0.1/32  scram-sha-256\n") != NULL, "%s", buf);
	CU_ASSERT_EQUAL(pgl_ident_text(users, buf, sizeof(buf)), 0);
	CU_CHECK(strstr(buf, "pgload   root             postgres\n") &&
		 strstr(buf, "pgload   postgres         postgres\n"), "%s", buf);
	CU_ASSERT_EQUAL(pgl_ident_text(bad, buf, sizeof(buf)), -EINVAL);
	CU_ASSERT_EQUAL(pgl_hba_text(true, buf, 16), -ENAMETOOLONG);
}

static void test_redact(void)
{
	static const struct { const char *in, *want; } rows[] = {
		{ "host=/tmp/x password=secret port=5", "host=/tmp/x password=*** port=5" },
		{ "password = 'se cret\\' x' user=a", "password = *** user=a" },
		{ "password=secret", "password=***" },
		{ "postgresql://u:secret@h:5/db", "postgresql://u:***@h:5/db" },
		{ "postgres://u:p@/db?host=/tmp/x", "postgres://u:***@/db?host=/tmp/x" },
		{ "postgresql://u@h/db?password=secret&port=5", "postgresql://u@h/db?password=***&port=5" },
		{ "postgresql:///db?host=/tmp", "postgresql:///db?host=/tmp" },
		{ "mypassword=keep", "mypassword=keep" },
		{ "--conninfo=password=x", "--conninfo=password=***" },
		{ "--source=postgresql://u:p@h/db", "--source=postgresql://u:***@h/db" },
		{ "-t", "-t" }, { "", "" },
	};
	char out[256];

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		dut_redact_conninfo(rows[i].in, out, sizeof(out));
		CU_CHECK(strcmp(out, rows[i].want) == 0, "\"%s\" -> \"%s\", want \"%s\"", rows[i].in, out,
			 rows[i].want);
	}
	dut_redact_conninfo("password=longsecret", out, 8);
	CU_CHECK(strlen(out) == 7 && !strstr(out, "secret"), "cut: \"%s\"", out);

	char *argv[] = { "pgload", "run", "-d", "host=/tmp password=pw1", "-dpassword=pw2", NULL };
	char **v = dut_redact_argv(5, argv);

	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	CU_CHECK(strcmp(v[3], "host=/tmp password=***") == 0, "%s", v[3]);
	CU_CHECK(strcmp(v[1], "run") == 0 && v[5] == NULL, "others kept");
	CU_CHECK(strcmp(v[4], "-dpassword=***") == 0, "%s", v[4]);
	dut_redact_argv_free(v);
}

static void test_state_memcg_dir(void)
{
	static const char v1[] = "35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
				 "41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n";
	static const char v2[] = "26 22 0:23 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
	static const struct { const char *mountinfo, *dir; uint64_t bytes; bool ok; } rows[] = {
		{ v1, "", 0, true },
		{ v1, "", 64ull << 20, true },
		{ v1, "", 1ull << 20, false },                              /* below the smallest budget */
		{ v1, "/sys/fs/cgroup/memory/process_api/ab/pgload-0123456789abcdef", 64ull << 20, true },
		{ v1, "/sys/fs/cgroup/memory/pgload-0123456789abcdef", 64ull << 20, true },
		{ v2, "/sys/fs/cgroup/dutlab/pgload-0123456789abcdef", 64ull << 20, true },
		{ v2, "/sys/fs/cgroup/x/pgload-0123456789abcdef", 64ull << 20, false },  /* not under dutlab/ */
		{ v1, "/sys/fs/cgroup/memory", 64ull << 20, false },                    /* the root itself */
		{ v1, "/sys/fs/cgroup/memory/process_api", 64ull << 20, false },        /* not pgload's */
		{ v1, "/sys/fs/cgroup/memory/pgload-0123456789ABCDEF", 64ull << 20, false },
		{ v1, "/sys/fs/cgroup/memory/pgload-0123456789abcde", 64ull << 20, false },
		{ v1, "/sys/fs/cgroup/memory/../pgload-0123456789abcdef", 64ull << 20, false },
		{ v1, "/sys/fs/cgroup/memory/a//pgload-0123456789abcdef", 64ull << 20, false },
		{ v1, "/tmp/pgload-0123456789abcdef", 64ull << 20, false },              /* no cgroup mount */
		{ v1, "/sys/fs/cgroup/memoryx/pgload-0123456789abcdef", 64ull << 20, false },
		{ v1, "/sys/fs/cgroup/memory/pgload-0123456789abcdef", 0, true },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct dut_memcg_mounts m;
		struct pgl_cluster c;
		char why[400] = "";
		int r;

		memset(&c, 0, sizeof(c));
		snprintf(c.memcg_dir, sizeof(c.memcg_dir), "%s", rows[i].dir);
		c.memory_bytes = rows[i].bytes;
		CU_ASSERT_FATAL(dut_memcg_parse_mounts(rows[i].mountinfo, &m) == 0);
		r = pgl_state_check_memcg(&c, &m, why, sizeof(why));
		CU_CHECK((r == 0) == rows[i].ok, "row %zu: \"%s\" %d (%s)", i, rows[i].dir, r, why);
	}
}

static void test_memory_sizes(void)
{
	static const struct { const char *v; uint64_t bytes; int ret; } parse[] = {
		{ "128MB", 128ull << 20, 0 }, { "'16MB'", 16ull << 20, 0 }, { "1GB", 1ull << 30, 0 },
		{ "16384", 16384ull * 8192, 0 }, { "512kB", 512ull << 10, 0 }, { "64 MB", 64ull << 20, 0 },
		{ "1TB", 1ull << 40, 0 }, { "100B", 100, 0 },
		{ "16mb", 0, -EINVAL }, { "-1", 0, -EINVAL }, { "", 0, -EINVAL }, { "MB", 0, -EINVAL },
		{ "1.5GB", 0, -EINVAL }, { "99999999999999999999", 0, -EINVAL }, { "'", 0, -EINVAL },
	};
	char why[400];

	for (size_t i = 0; i < sizeof(parse) / sizeof(parse[0]); i++) {
		uint64_t b = 0;
		int r = dut_pg_memory_parse(parse[i].v, 8192, &b);

		CU_CHECK(r == parse[i].ret && (r < 0 || b == parse[i].bytes), "\"%s\": %d %llu", parse[i].v, r,
			 (unsigned long long)b);
	}
	{
		/* a bare number counts the server's blocks: 16 kB in a 16 kB build */
		uint64_t b = 0;

		CU_CHECK(dut_pg_memory_parse("8192", 16384, &b) == 0 && b == 128ull << 20,
			 "8192 blocks of 16 kB: %llu", (unsigned long long)b);
		CU_CHECK(dut_pg_memory_parse("64MB", 16384, &b) == 0 && b == 64ull << 20, "units ignore the block");
	}
	/* min(128 MiB, budget/4) in whole MiB */
	CU_CHECK(pgl_memory_default_shared_buffers(64ull << 20) == 16ull << 20, "64M -> 16M");
	CU_CHECK(pgl_memory_default_shared_buffers(96ull << 20) == 24ull << 20, "96M -> 24M");
	CU_CHECK(pgl_memory_default_shared_buffers(1ull << 30) == 128ull << 20, "1G -> 128M");
	CU_CHECK(pgl_memory_default_shared_buffers(50ull << 20) == 12ull << 20, "50M -> 12M (rounded down)");
	/* the budget holds shared_buffers + 32 MiB */
	CU_CHECK(pgl_memory_check(64ull << 20, 16ull << 20, why, sizeof(why)) == 0, "64M with 16M");
	CU_CHECK(pgl_memory_check(48ull << 20, 16ull << 20, why, sizeof(why)) == 0, "48M with 16M");
	CU_CHECK(pgl_memory_check(47ull << 20, 16ull << 20, why, sizeof(why)) == -EINVAL &&
		 strstr(why, "at least 48 MiB"), "47M with 16M refused: %s", why);
	CU_CHECK(pgl_memory_check(64ull << 20, 128ull << 20, why, sizeof(why)) == -EINVAL,
		 "64M with the default 128MB refused");
	CU_CHECK(pgl_memory_check(20ull << 20, 0, why, sizeof(why)) == -EINVAL, "below 32 MiB refused");
}

static const struct cu_test tests[] = {
	{ "path_is_normal", test_path_is_normal },
	{ "path_normalize", test_path_normalize },
	{ "socket_dir", test_socket_dir },
	{ "passfile", test_passfile },
	{ "state_check", test_state_check },
	{ "set_check", test_set_check },
	{ "settings_text", test_settings_text },
	{ "auth_texts", test_auth_texts },
	{ "redact", test_redact },
	{ "state_memcg_dir", test_state_memcg_dir },
	{ "memory_sizes", test_memory_sizes },
	{ NULL, NULL },
};
const struct cu_suite cu_suite = { .name = "pgload_cluster_check", .tests = tests };
