/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One CUnit suite per test executable.  A test file defines
 *
 *     static const struct cu_test tests[] = {
 *             { "parses_iec_suffixes", test_parses_iec_suffixes },
 *             { NULL, NULL },
 *     };
 *     const struct cu_suite cu_suite = { .name = "units", .tests = tests };
 *
 * and links cu_main_dep, which supplies main(): exit 0 when every assert
 * passed, 1 when any failed, 99 on a harness error (CUnit could not set up).
 * Arguments name tests to run (default: all).  Cases inside a test are
 * table-driven: loop over a static array of {input, expected} rows and
 * assert each, naming the row in the message (CU_ASSERT_* plus cu_fail()).
 */
#ifndef DUT_CU_MAIN_H
#define DUT_CU_MAIN_H

#include <CUnit/CUnit.h>

struct cu_test {
	const char *name;
	void (*fn)(void);
};

struct cu_suite {
	const char *name;
	int (*init)(void);     /* may be NULL */
	int (*cleanup)(void);  /* may be NULL */
	const struct cu_test *tests; /* terminated by { NULL, NULL } */
};

extern const struct cu_suite cu_suite;

/* Record a failure with a formatted message (for table rows). */
void cu_fail_at(const char *file, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define cu_fail(...) cu_fail_at(__FILE__, __LINE__, __VA_ARGS__)

/* Assert with a formatted message naming the table row. */
#define CU_CHECK(cond, ...)                                      \
	do {                                                     \
		if (cond)                                        \
			CU_assertImplementation(CU_TRUE, __LINE__, #cond, __FILE__, "", CU_FALSE); \
		else                                             \
			cu_fail_at(__FILE__, __LINE__, __VA_ARGS__); \
	} while (0)

/* Directory for fixtures: $DUT_SOURCE_ROOT/tests/<sub>, or a path relative to cwd. */
const char *cu_source_root(void);

/*
 * A suite's private directory: $TMPDIR (or /tmp)/dut-test-TAG.XXXXXX made
 * into buf (len bytes), and the directory and all below it removed: for a
 * suite's init and cleanup.  0 or -1.
 */
int cu_tmpdir_make(char *buf, size_t len, const char *tag);
int cu_tmpdir_remove(const char *dir);

#endif
