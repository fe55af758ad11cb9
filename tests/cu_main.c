/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <CUnit/Basic.h>

#include "tests/cu_main.h"

void cu_fail_at(const char *file, unsigned line, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n  FAIL %s:%u: %s\n", file, line, msg);
	CU_assertImplementation(CU_FALSE, line, msg, file, "", CU_FALSE);
}

const char *cu_source_root(void)
{
	const char *r = getenv("DUT_SOURCE_ROOT");

	return r && *r ? r : ".";
}

int cu_tmpdir_make(char *buf, size_t len, const char *tag)
{
	const char *base = getenv("TMPDIR");
	int n = snprintf(buf, len, "%s/dut-test-%s.XXXXXX", base && *base ? base : "/tmp", tag);

	return n > 0 && (size_t)n < len && mkdtemp(buf) ? 0 : -1;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int cu_tmpdir_remove(const char *dir)
{
	return dir[0] && nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS) == 0 ? 0 : -1;
}

static int wanted(int argc, char **argv, const char *name)
{
	if (argc <= 1)
		return 1;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	CU_pSuite suite;
	unsigned failed, run;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 99;
	suite = CU_add_suite(cu_suite.name, cu_suite.init, cu_suite.cleanup);
	if (!suite) {
		CU_cleanup_registry();
		return 99;
	}
	for (const struct cu_test *t = cu_suite.tests; t->name; t++) {
		if (!wanted(argc, argv, t->name))
			continue;
		if (!CU_add_test(suite, t->name, t->fn)) {
			CU_cleanup_registry();
			return 99;
		}
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	if (CU_basic_run_tests() != CUE_SUCCESS) {
		fprintf(stderr, "CUnit error: %s\n", CU_get_error_msg());
		CU_cleanup_registry();
		return 99;
	}
	failed = CU_get_number_of_tests_failed();
	run = CU_get_number_of_tests_run();
	if (CU_get_number_of_suites_failed()) /* suite init/cleanup failed */
		failed += 1;
	CU_cleanup_registry();
	if (run == 0) {
		fprintf(stderr, "no test ran\n");
		return 99;
	}
	return failed ? 1 : 0;
}
