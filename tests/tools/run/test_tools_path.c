/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where dutlab finds dutfs, pgload and dutprobe (tools/run/tools_path.h):
 * a build tree, an installed program's own directory, $PATH, in that order,
 * never a mix of places.
 */
#include <errno.h>
#include <string.h>

#include "tests/cu_main.h"
#include "tools/run/tools_path.h"

/* the executables of the pretend file system */
static const char *const *files;

static bool fake_exec(const char *path)
{
	for (size_t i = 0; files[i]; i++)
		if (strcmp(files[i], path) == 0)
			return true;
	return false;
}

static const char *const build_tree[] = {
	"/src/build/tools/dutlab", "/src/build/fuse/dutfs", "/src/build/pgload/pgload",
	"/src/build/probe/dutprobe", NULL,
};
static const char *const installed[] = {
	"/usr/bin/dutlab", "/usr/bin/dutfs", "/usr/bin/pgload", "/usr/bin/dutprobe",
	/* a stray build elsewhere that must not be mixed in */
	"/usr/fuse/dutfs", NULL,
};
static const char *const on_path[] = {
	"/opt/dl/bin/dutfs", "/opt/dl/bin/pgload", "/opt/dl/bin/dutprobe",
	"/usr/local/bin/dutfs", NULL,   /* only one of three: not this one */
};

static void test_build_tree(void)
{
	struct run_tools t;

	files = build_tree;
	CU_ASSERT_EQUAL(run_tools_resolve("/src/build/tools/dutlab", NULL, "/usr/bin", fake_exec, &t), 0);
	CU_ASSERT_STRING_EQUAL(t.dutfs, "/src/build/fuse/dutfs");
	CU_ASSERT_STRING_EQUAL(t.pgload, "/src/build/pgload/pgload");
	CU_ASSERT_STRING_EQUAL(t.dutprobe, "/src/build/probe/dutprobe");
	CU_ASSERT_STRING_EQUAL(t.where, "build tree");
}

static void test_installed_beside_itself(void)
{
	struct run_tools t;

	files = installed;
	CU_ASSERT_EQUAL(run_tools_resolve("/usr/bin/dutlab", NULL, "/nowhere", fake_exec, &t), 0);
	CU_ASSERT_STRING_EQUAL(t.dutfs, "/usr/bin/dutfs");
	CU_ASSERT_STRING_EQUAL(t.pgload, "/usr/bin/pgload");
	CU_ASSERT_STRING_EQUAL(t.dutprobe, "/usr/bin/dutprobe");
	CU_ASSERT_STRING_EQUAL(t.where, "installed");
}

static void test_path_needs_all_three(void)
{
	struct run_tools t;

	files = on_path;
	CU_ASSERT_EQUAL(run_tools_resolve("/home/u/dutlab", NULL, "/usr/local/bin::.:rel/bin:/opt/dl/bin",
					  fake_exec, &t), 0);
	CU_ASSERT_STRING_EQUAL(t.dutfs, "/opt/dl/bin/dutfs");
	CU_ASSERT_STRING_EQUAL(t.dutprobe, "/opt/dl/bin/dutprobe");
	CU_ASSERT_STRING_EQUAL(t.where, "PATH");
	/* relative and empty PATH entries are never searched */
	CU_ASSERT_EQUAL(run_tools_resolve(NULL, NULL, ".:rel", fake_exec, &t), -ENOENT);
	CU_ASSERT_PTR_NULL(t.where);
}

static void test_build_root_is_final(void)
{
	struct run_tools t;

	files = build_tree;
	CU_ASSERT_EQUAL(run_tools_resolve("/usr/bin/dutlab", "/src/build", NULL, fake_exec, &t), 0);
	CU_ASSERT_STRING_EQUAL(t.where, "DUT_BUILD_ROOT");
	CU_ASSERT_STRING_EQUAL(t.pgload, "/src/build/pgload/pgload");
	/* a DUT_BUILD_ROOT without the programs is still the answer, not a hint
	 * to look elsewhere: the run's checks name what is missing */
	files = installed;
	CU_ASSERT_EQUAL(run_tools_resolve("/usr/bin/dutlab", "/src/build", "/usr/bin", fake_exec, &t), 0);
	CU_ASSERT_STRING_EQUAL(t.dutfs, "/src/build/fuse/dutfs");
	CU_ASSERT_STRING_EQUAL(t.where, "DUT_BUILD_ROOT");
}

static void test_nothing_found(void)
{
	static const char *const none[] = { NULL };
	struct run_tools t;

	files = none;
	CU_ASSERT_EQUAL(run_tools_resolve("/usr/bin/dutlab", NULL, "/bin:/usr/bin", fake_exec, &t), -ENOENT);
	CU_ASSERT_EQUAL(run_tools_resolve("/dutlab", NULL, NULL, fake_exec, &t), -ENOENT);
}

static const struct cu_test tests[] = {
	{ "build_tree", test_build_tree },
	{ "installed_beside_itself", test_installed_beside_itself },
	{ "path_needs_all_three", test_path_needs_all_three },
	{ "build_root_is_final", test_build_root_is_final },
	{ "nothing_found", test_nothing_found },
	{ NULL, NULL },
};
const struct cu_suite cu_suite = { .name = "tools_path", .tests = tests };
