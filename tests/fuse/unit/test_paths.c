/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "fuse/paths.h"
#include "lib/cleanup.h"
#include "tests/cu_main.h"

static void test_name_ok(void)
{
	static char longname[NAME_MAX + 2];
	static const struct {
		const char *name;
		bool ok;
	} rows[] = {
		{ "base", true }, { "16384", true }, { ".dutfs", true }, { "...", true },
		{ "", false }, { ".", false }, { "..", false }, { "a/b", false }, { "/", false },
		{ NULL, false },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++)
		CU_CHECK(dutfs_name_ok(rows[i].name) == rows[i].ok, "row %zu \"%s\"", i,
			 rows[i].name ? rows[i].name : "(null)");
	memset(longname, 'a', NAME_MAX);
	CU_CHECK(dutfs_name_ok(longname), "NAME_MAX bytes is fine");
	longname[NAME_MAX] = 'a';
	CU_CHECK(!dutfs_name_ok(longname), "NAME_MAX + 1 bytes is refused");
}

static void test_pnode_below(void)
{
	struct dutfs_pnode root = { 0 }, base = { 0 }, db = { 0 }, rel = { 0 }, wal = { 0 };
	struct dutfs_pnode a = { 0 }, b = { 0 };

	dutfs_pnode_set(&base, &root, "base");
	dutfs_pnode_set(&db, &base, "5");
	dutfs_pnode_set(&rel, &db, "16397");
	dutfs_pnode_set(&wal, &root, "pg_wal");
	const struct {
		const char *what;
		const struct dutfs_pnode *n, *anc;
		bool below;
	} rows[] = {
		{ "file below its dir", &rel, &db, true },
		{ "file below its grandparent", &rel, &base, true },
		{ "everything below the root", &rel, &root, true },
		{ "a node is not below itself", &db, &db, false },
		{ "a dir is not below its child", &db, &rel, false },
		{ "not below a sibling tree", &rel, &wal, false },
		{ "the root is below nothing", &root, &base, false },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++)
		CU_CHECK(dutfs_pnode_below(rows[i].n, rows[i].anc) == rows[i].below, "%s", rows[i].what);
	/* the directory moves: the file follows */
	dutfs_pnode_set(&db, &wal, "5");
	CU_CHECK(dutfs_pnode_below(&rel, &wal) && !dutfs_pnode_below(&rel, &base), "after the move");
	/* a cycle (a bug elsewhere) ends at the depth limit instead of looping */
	a.parent = &b;
	b.parent = &a;
	CU_CHECK(!dutfs_pnode_below(&a, &root), "cycle: false, bounded");
	dutfs_pnode_clear(&base);
	dutfs_pnode_clear(&db);
	dutfs_pnode_clear(&rel);
	dutfs_pnode_clear(&wal);
}

static void test_path_follows_renames(void)
{
	struct dutfs_pnode root = { 0 }, base = { 0 }, db = { 0 }, rel = { 0 }, wal = { 0 }, seg = { 0 };
	char buf[PATH_MAX];

	CU_CHECK(dutfs_pnode_path(&root, buf, sizeof(buf)) == 0 && !strcmp(buf, ""), "root is \"\"");
	dutfs_pnode_set(&base, &root, "base");
	dutfs_pnode_set(&db, &base, "5");
	dutfs_pnode_set(&rel, &db, "16397");
	dutfs_pnode_set(&wal, &root, "pg_wal");
	dutfs_pnode_set(&seg, &wal, "xlogtemp.123");
	CU_CHECK(dutfs_pnode_path(&rel, buf, sizeof(buf)) == 0 && !strcmp(buf, "base/5/16397"),
		 "nested path, got \"%s\"", buf);
	/* WAL recycling: rename to the final segment name */
	dutfs_pnode_set(&seg, &wal, "000000010000000000000002");
	CU_CHECK(dutfs_pnode_path(&seg, buf, sizeof(buf)) == 0 &&
		 !strcmp(buf, "pg_wal/000000010000000000000002"), "renamed leaf, got \"%s\"", buf);
	/* a directory moves: children follow */
	dutfs_pnode_set(&db, &wal, "moved");
	CU_CHECK(dutfs_pnode_path(&rel, buf, sizeof(buf)) == 0 && !strcmp(buf, "pg_wal/moved/16397"),
		 "renamed directory, got \"%s\"", buf);
	CU_CHECK(dutfs_pnode_path(&rel, buf, strlen("pg_wal/moved/16397") + 1) == 0, "exact fit");
	CU_CHECK(dutfs_pnode_path(&rel, buf, strlen("pg_wal/moved/16397")) == -ENAMETOOLONG, "one short");
	CU_CHECK(dutfs_pnode_path(&rel, buf, 0) == -ENAMETOOLONG, "empty buffer");
	dutfs_pnode_clear(&base);
	dutfs_pnode_clear(&db);
	dutfs_pnode_clear(&rel);
	dutfs_pnode_clear(&wal);
	dutfs_pnode_clear(&seg);
}

static void test_cycle_is_reported(void)
{
	struct dutfs_pnode a = { 0 }, b = { 0 };
	char buf[64];

	dutfs_pnode_set(&a, &b, "a");
	dutfs_pnode_set(&b, &a, "b");
	CU_CHECK(dutfs_pnode_path(&a, buf, sizeof(buf)) == -ELOOP, "a parent cycle gives -ELOOP");
	dutfs_pnode_clear(&a);
	dutfs_pnode_clear(&b);
}

static void test_path_within(void)
{
	static const struct {
		const char *path, *dir;
		bool within;
	} rows[] = {
		{ "/mnt/x", "/mnt/x", true },
		{ "/mnt/x/data", "/mnt/x", true },
		{ "/mnt/x/", "/mnt/x", true },
		{ "/mnt/xy", "/mnt/x", false },
		{ "/mnt", "/mnt/x", false },
		{ "/var/tmp/b", "/", true },
		{ "/mnt/x/data", "/mnt/x/", true },
		{ "/other", "/mnt/x", false },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++)
		CU_CHECK(dutfs_path_within(rows[i].path, rows[i].dir) == rows[i].within,
			 "row %zu: %s within %s", i, rows[i].path, rows[i].dir);
}

static const struct cu_test tests[] = {
	{ "name_ok", test_name_ok },
	{ "path_follows_renames", test_path_follows_renames },
	{ "pnode_below", test_pnode_below },
	{ "cycle_is_reported", test_cycle_is_reported },
	{ "path_within", test_path_within },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "dutfs-paths", .tests = tests };
