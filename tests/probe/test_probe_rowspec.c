/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bench row syntax (probe/rowspec.c). */
#include <errno.h>
#include <string.h>

#include "lib/cleanup.h"
#include "probe/rowspec.h"
#include "tests/cu_main.h"

static void test_row_specs(void)
{
	static const struct {
		const char *spec;
		int ret;
		size_t n;               /* rows produced */
		const char *names[2];   /* canonical names */
	} rows[] = {
		{ "SEQ1M Q8T1 R", 0, 1, { "SEQ1M Q8T1 R" } },
		{ "seq1m-q8t1-read", 0, 1, { "SEQ1M Q8T1 R" } },
		{ "RND4K Q32T1 W", 0, 1, { "RND4K Q32T1 W" } },
		{ "rnd4k_q32_t2_write", 0, 1, { "RND4K Q32T2 W" } },
		{ "rand16KiB qd4 w", 0, 1, { "RND16K Q4T1 W" } },
		{ "RND4K", 0, 2, { "RND4K Q1T1 R", "RND4K Q1T1 W" } },
		{ "SEQ128K Q2", 0, 2, { "SEQ128K Q2T1 R", "SEQ128K Q2T1 W" } },
		{ "rnd512 r", 0, 1, { "RND512 Q1T1 R" } },
		{ "w SEQ1M t4 q1", 0, 1, { "SEQ1M Q1T4 W" } },
		{ "SEQ1M Q8T1 R W", -EINVAL, 0, { NULL } },    /* direction twice */
		{ "Q8T1 R", -EINVAL, 0, { NULL } },            /* no pattern */
		{ "SEQ Q8 R", -EINVAL, 0, { NULL } },          /* no block size */
		{ "RND1000 R", -EINVAL, 0, { NULL } },         /* not a multiple of 512 */
		{ "RND4K Q0 R", -ERANGE, 0, { NULL } },
		{ "RND4K Q5000 R", -ERANGE, 0, { NULL } },
		{ "RND4K T65 R", -ERANGE, 0, { NULL } },
		{ "RND128M R", -ERANGE, 0, { NULL } },
		{ "RND4K Q8 X", -EINVAL, 0, { NULL } },
		{ "RND4G R", -EINVAL, 0, { NULL } },       /* no G suffix: 64M is the limit */
		{ "", -EINVAL, 0, { NULL } },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		struct bench_row out[4];
		struct dut_error err = { { 0 } };
		size_t n = 0;
		int ret = bench_row_parse(rows[i].spec, out, 4, &n, &err);

		CU_CHECK(ret == rows[i].ret, "\"%s\": ret %d, want %d (%s)", rows[i].spec, ret, rows[i].ret, err.msg);
		CU_CHECK(n == rows[i].n, "\"%s\": %zu rows, want %zu", rows[i].spec, n, rows[i].n);
		if (ret) {
			CU_CHECK(strstr(err.msg, rows[i].spec) != NULL, "\"%s\": message does not quote it: %s",
				 rows[i].spec, err.msg);
			continue;
		}
		for (size_t k = 0; k < n && k < 2; k++) {
			char name[48];

			bench_row_name(&out[k], name, sizeof(name));
			CU_CHECK(!strcmp(name, rows[i].names[k]), "\"%s\" row %zu: %s, want %s", rows[i].spec, k, name,
				 rows[i].names[k]);
		}
	}
}

static void test_row_lists(void)
{
	struct bench_row out[BENCH_MAX_ROWS];
	struct dut_error err = { { 0 } };
	char name[48];
	size_t n = 0;

	CU_ASSERT_EQUAL(bench_rows_parse_list("SEQ1M Q8T1 R, RND4K Q32T1 W", out, BENCH_MAX_ROWS, &n, &err), 0);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_STRING_EQUAL(bench_row_name(&out[1], name, sizeof(name)), "RND4K Q32T1 W");

	n = 0;
	CU_ASSERT_EQUAL(bench_rows_parse_list("default,RND16K Q16", out, BENCH_MAX_ROWS, &n, &err), 0);
	CU_ASSERT_EQUAL_FATAL(n, 8);
	CU_ASSERT_STRING_EQUAL(bench_row_name(&out[0], name, sizeof(name)), "SEQ1M Q8T1 R");
	CU_ASSERT_STRING_EQUAL(bench_row_name(&out[5], name, sizeof(name)), "RND4K Q1T1 W");
	CU_ASSERT_STRING_EQUAL(bench_row_name(&out[7], name, sizeof(name)), "RND16K Q16T1 W");

	n = 0;
	CU_ASSERT_EQUAL(bench_rows_parse_list("SEQ1M R,", out, BENCH_MAX_ROWS, &n, &err), -EINVAL);
	n = 0;
	CU_ASSERT_EQUAL(bench_rows_parse_list("SEQ1M R,,RND4K W", out, BENCH_MAX_ROWS, &n, &err), -EINVAL);
	n = 0;
	CU_ASSERT_EQUAL(bench_rows_parse_list("", out, BENCH_MAX_ROWS, &n, &err), -EINVAL);
	n = 0;
	CU_ASSERT_EQUAL(bench_rows_parse_list("default,default,default", out, 16, &n, &err), -ENOSPC);
}

static const struct cu_test tests[] = {
	{ "row_specs", test_row_specs },
	{ "row_lists", test_row_lists },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "probe_rowspec", .tests = tests };
