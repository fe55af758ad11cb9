/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lib/error.h"
#include "lib/log.h"
#include "tests/cu_main.h"

static void test_level_names_parse(void)
{
	static const struct {
		const char *in;
		int ret;
		enum dut_log_level level;
	} rows[] = {
		{ "error", 0, DUT_LOG_ERR },
		{ "warn", 0, DUT_LOG_WARN },
		{ "info", 0, DUT_LOG_INFO },
		{ "debug", 0, DUT_LOG_DEBUG },
		{ "", -EINVAL, 0 },
		{ "Debug", -EINVAL, 0 },
		{ "verbose", -EINVAL, 0 },
		{ NULL, -EINVAL, 0 },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		enum dut_log_level l = 99;
		int r = dut_log_level_parse(rows[i].in, &l);

		CU_CHECK(r == rows[i].ret, "row %zu \"%s\": ret %d, want %d", i,
			 rows[i].in ? rows[i].in : "(null)", r, rows[i].ret);
		if (rows[i].ret == 0)
			CU_CHECK(l == rows[i].level, "row %zu: level %d", i, l);
		else
			CU_CHECK(l == 99, "row %zu: level written on error", i);
	}
}

static void test_init_strips_directory_and_reads_env(void)
{
	setenv("DUT_LOG", "debug", 1);
	dut_log_init("/usr/bin/dutprobe", DUT_LOG_ERR);
	CU_ASSERT_STRING_EQUAL(dut_log_prog(), "dutprobe");
	CU_ASSERT_EQUAL(dut_log_get_level(), DUT_LOG_DEBUG);
	setenv("DUT_LOG", "bogus", 1);
	dut_log_init("pgload", DUT_LOG_WARN);
	CU_ASSERT_EQUAL(dut_log_get_level(), DUT_LOG_WARN);
	unsetenv("DUT_LOG");
}

static void test_error_set_formats_and_tolerates_null(void)
{
	struct dut_error e = { { 0 } };

	dut_error_set(NULL, "ignored %d", 1);
	dut_error_set(&e, "size \"%s\": unknown unit", "12 parsecs");
	CU_ASSERT_STRING_EQUAL(e.msg, "size \"12 parsecs\": unknown unit");
}

static bool fcntl_is_closed(int fd)
{
	return fcntl(fd, F_GETFD) < 0 && errno == EBADF;
}

static void test_cleanup_helpers_release(void)
{
	int fd_copy;
	{
		_cleanup_close_ int fd = dup(2);
		fd_copy = fd;
		CU_ASSERT(fd >= 0);
	}
	/* the descriptor was closed at scope exit */
	errno = 0;
	CU_ASSERT(fcntl_is_closed(fd_copy));
}

static const struct cu_test tests[] = {
	{ "level_names_parse", test_level_names_parse },
	{ "init_strips_directory_and_reads_env", test_init_strips_directory_and_reads_env },
	{ "error_set_formats_and_tolerates_null", test_error_set_formats_and_tolerates_null },
	{ "cleanup_helpers_release", test_cleanup_helpers_release },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "log", .tests = tests };
