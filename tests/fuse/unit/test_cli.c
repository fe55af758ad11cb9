/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <string.h>

#include "fuse/cli.h"
#include "lib/cleanup.h"
#include "tests/cu_main.h"

#define MAXARGS 12

static void test_accepts_contract_syntax(void)
{
	static const struct {
		const char *argv[MAXARGS];
		const char *trace, *pidfile, *opts;
		enum dutfs_view view;
		unsigned threads;
		int fg, debug;
		int nice;
	} rows[] = {
		{ { "dutfs", "/b", "/m" }, NULL, NULL, NULL, DUTFS_VIEW_DEVICE, DUTFS_THREADS_DEFAULT, 0, 0, DUTFS_NICE_DEFAULT },
		{ { "dutfs", "/b", "/m", "--trace", "/t.dtr" }, "/t.dtr", NULL, NULL, DUTFS_VIEW_DEVICE, 16, 0, 0, DUTFS_NICE_DEFAULT },
		{ { "dutfs", "--trace=/t", "/b", "--view", "syscall", "/m", "-f" }, "/t", NULL, NULL,
		  DUTFS_VIEW_SYSCALL, 16, 1, 0, DUTFS_NICE_DEFAULT },
		{ { "dutfs", "/b", "/m", "--view=device", "--pidfile", "/p", "--threads", "4" }, NULL, "/p", NULL,
		  DUTFS_VIEW_DEVICE, 4, 0, 0, DUTFS_NICE_DEFAULT },
		{ { "dutfs", "/b", "/m", "-o", "ro", "-o", "max_read=4096" }, NULL, NULL, "ro,max_read=4096",
		  DUTFS_VIEW_DEVICE, 16, 0, 0, DUTFS_NICE_DEFAULT },
		{ { "dutfs", "-oro", "/b", "/m", "--debug" }, NULL, NULL, "ro", DUTFS_VIEW_DEVICE, 16, 1, 1, DUTFS_NICE_DEFAULT },
		{ { "dutfs", "/b", "/m", "--threads=256" }, NULL, NULL, NULL, DUTFS_VIEW_DEVICE, 256, 0, 0, DUTFS_NICE_DEFAULT },
		{ { "dutfs", "/b", "/m", "--nice", "0" }, NULL, NULL, NULL, DUTFS_VIEW_DEVICE, 16, 0, 0, 0 },
		{ { "dutfs", "/b", "/m", "--nice=-20" }, NULL, NULL, NULL, DUTFS_VIEW_DEVICE, 16, 0, 0, -20 },
		{ { "dutfs", "--nice", "19", "/b", "/m" }, NULL, NULL, NULL, DUTFS_VIEW_DEVICE, 16, 0, 0, 19 },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		struct dutfs_cli c;
		struct dut_error err = { .msg = "" };
		int argc = 0, r;

		while (argc < MAXARGS && rows[i].argv[argc])
			argc++;
		r = dutfs_cli_parse(argc, (char *const *)rows[i].argv, &c, &err);
		CU_CHECK(r == 0, "row %zu: ret %d (%s)", i, r, err.msg);
		if (r)
			continue;
		CU_CHECK(!strcmp(c.backing, "/b") && !strcmp(c.mountpoint, "/m"), "row %zu: dirs", i);
		CU_CHECK((!c.trace_path && !rows[i].trace) ||
			 (c.trace_path && rows[i].trace && !strcmp(c.trace_path, rows[i].trace)),
			 "row %zu: trace %s", i, c.trace_path ? c.trace_path : "(none)");
		CU_CHECK((!c.pidfile && !rows[i].pidfile) ||
			 (c.pidfile && rows[i].pidfile && !strcmp(c.pidfile, rows[i].pidfile)), "row %zu: pidfile", i);
		CU_CHECK((!c.fuse_opts && !rows[i].opts) ||
			 (c.fuse_opts && rows[i].opts && !strcmp(c.fuse_opts, rows[i].opts)),
			 "row %zu: opts \"%s\"", i, c.fuse_opts ? c.fuse_opts : "(none)");
		CU_CHECK(c.view == rows[i].view, "row %zu: view %d", i, c.view);
		CU_CHECK(c.threads == rows[i].threads, "row %zu: threads %u", i, c.threads);
		CU_CHECK(c.nice == rows[i].nice, "row %zu: nice %d", i, c.nice);
		CU_CHECK(c.nice_given == (strstr(rows[i].argv[3] ? rows[i].argv[3] : "", "--nice") ||
					  !strcmp(rows[i].argv[1], "--nice")), "row %zu: nice given", i);
		CU_CHECK(c.foreground == rows[i].fg && c.debug == rows[i].debug, "row %zu: -f/--debug", i);
		dutfs_cli_free(&c);
	}
}

static void test_rejects_bad_arguments_with_reason(void)
{
	static const struct {
		const char *argv[MAXARGS];
		const char *reason; /* substring of the message */
	} rows[] = {
		{ { "dutfs" }, "missing BACKING_DIR" },
		{ { "dutfs", "/b" }, "missing MOUNTPOINT" },
		{ { "dutfs", "/b", "/m", "/x" }, "unexpected argument \"/x\"" },
		{ { "dutfs", "/b", "/m", "--view", "fast" }, "\"fast\" is not a view" },
		{ { "dutfs", "/b", "/m", "--threads", "0" }, "--threads" },
		{ { "dutfs", "/b", "/m", "--threads", "257" }, "--threads" },
		{ { "dutfs", "/b", "/m", "--threads", "8x" }, "--threads" },
		{ { "dutfs", "/b", "/m", "--threads", "-3" }, "--threads" },
		{ { "dutfs", "/b", "/m", "--nice", "-21" }, "not a nice value from -20 to 19" },
		{ { "dutfs", "/b", "/m", "--nice", "20" }, "not a nice value" },
		{ { "dutfs", "/b", "/m", "--nice", "-5x" }, "not a nice value" },
		{ { "dutfs", "/b", "/m", "--nice=" }, "not a nice value" },
		{ { "dutfs", "/b", "/m", "--trace" }, "--trace needs a value" },
		{ { "dutfs", "/b", "/m", "--trace=" }, "--trace needs a file name" },
		{ { "dutfs", "/b", "/m", "-o", "" }, "non-empty" },
		{ { "dutfs", "/b", "/m", "--tracee", "x" }, "unknown option \"--tracee\"" },
		{ { "dutfs", "/b", "/m", "-x" }, "unknown option \"-x\"" },
		{ { "dutfs", "/b", "/m", "--shape" }, "--shape needs a value" },
		{ { "dutfs", "/b", "/m", "--shape=" }, "--shape needs a file name" },
		{ { "dutfs", "/b", "/m", "--relmap", "r.json" }, "--relmap only serves --shape" },
		{ { "dutfs", "/b", "/m", "--preimage-max", "1G" }, "--preimage-max only serves --shape" },
		{ { "dutfs", "/b", "/m", "--shape", "s", "--preimage-max", "lots" }, "--preimage-max: \"lots\"" },
		{ { "dutfs", "/b", "/m", "--shape", "s", "--preimage-max", "0" }, "--preimage-max: \"0\"" },
		{ { "dutfs", "/b", "/m", "--backing-cache", "off" }, "--backing-cache: \"off\" is not drop or keep" },
		{ { "dutfs", "/b", "/m", "--backing-cache" }, "--backing-cache needs a value" },
		{ { "dutfs", "/b", "/m", "--stats-mode", "0644" }, "--stats-mode: \"0644\" is not a read-only" },
		{ { "dutfs", "/b", "/m", "--stats-mode", "0044" }, "--stats-mode: \"0044\"" },
		{ { "dutfs", "/b", "/m", "--stats-mode", "0999" }, "--stats-mode: \"0999\"" },
		{ { "dutfs", "/b", "/m", "--stats-mode=" }, "--stats-mode: \"\"" },
		{ { "dutfs", "/b", "/m", "--trace-max", "1G" }, "--trace-max bounds the trace file: give --trace" },
		{ { "dutfs", "/b", "/m", "--trace", "t", "--trace-max", "lots" }, "--trace-max: \"lots\"" },
		{ { "dutfs", "/b", "/m", "--trace", "t", "--trace-max", "0" }, "--trace-max: \"0\"" },
		{ { "dutfs", "/b", "/m", "--trace", "t", "--trace-max", "3M" }, "too small for 4 segments" },
		{ { "dutfs", "/b", "/m", "--trace", "t", "--trace-max", "8M", "--trace-segments", "9" },
		  "too small for 9 segments" },
		{ { "dutfs", "/b", "/m", "--trace", "t", "--trace-max", "1G", "--trace-segments", "1" },
		  "--trace-segments: \"1\" is not a number from 2 to 64" },
		{ { "dutfs", "/b", "/m", "--trace", "t", "--trace-max", "1G", "--trace-segments", "65" },
		  "--trace-segments: \"65\"" },
		{ { "dutfs", "/b", "/m", "--trace", "t", "--trace-segments", "8" }, "--trace-segments only serves --trace-max" },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		struct dutfs_cli c;
		struct dut_error err = { .msg = "" };
		int argc = 0, r;

		while (argc < MAXARGS && rows[i].argv[argc])
			argc++;
		r = dutfs_cli_parse(argc, (char *const *)rows[i].argv, &c, &err);
		CU_CHECK(r == -EINVAL, "row %zu: ret %d, want -EINVAL", i, r);
		CU_CHECK(strstr(err.msg, rows[i].reason) != NULL, "row %zu: message \"%s\" lacks \"%s\"", i,
			 err.msg, rows[i].reason);
	}
}

static void test_shape_and_relmap(void)
{
	const char *argv[] = { "dutfs", "--relmap=r.json", "/b", "/m", "--shape", "s.ini" };
	struct dutfs_cli c;
	struct dut_error err = { .msg = "" };
	int r = dutfs_cli_parse(6, (char *const *)argv, &c, &err);

	CU_CHECK(r == 0, "parse: %s", err.msg);
	if (r == 0) {
		CU_CHECK(c.shape_path && !strcmp(c.shape_path, "s.ini"), "shape_path");
		CU_CHECK(c.relmap_path && !strcmp(c.relmap_path, "r.json"), "relmap_path");
		dutfs_cli_free(&c);
	}
}

static void test_backing_cache(void)
{
	const char *keep[] = { "dutfs", "/b", "/m", "--backing-cache=keep" };
	const char *drop[] = { "dutfs", "--backing-cache", "drop", "/b", "/m" };
	struct dutfs_cli c;

	/* obsolete (backing I/O is O_DIRECT): still accepted, so that dutfs can say it is ignored */
	CU_CHECK(dutfs_cli_parse(3, (char *const *)keep, &c, NULL) == 0 && !c.backing_cache_given,
		 "not given");
	dutfs_cli_free(&c);
	CU_CHECK(dutfs_cli_parse(4, (char *const *)keep, &c, NULL) == 0 && c.backing_cache_given, "keep");
	dutfs_cli_free(&c);
	CU_CHECK(dutfs_cli_parse(5, (char *const *)drop, &c, NULL) == 0 && c.backing_cache_given, "drop");
	dutfs_cli_free(&c);
}

static void test_stats_mode(void)
{
	const char *pub[] = { "dutfs", "/b", "/m", "--stats-mode", "0444" };
	const char *grp[] = { "dutfs", "/b", "/m", "--stats-mode=440" };
	struct dutfs_cli c;

	CU_CHECK(dutfs_cli_parse(3, (char *const *)pub, &c, NULL) == 0 && c.stats_mode == 0400,
		 "default: 0400 (the mounting user only)");
	dutfs_cli_free(&c);
	CU_CHECK(dutfs_cli_parse(5, (char *const *)pub, &c, NULL) == 0 && c.stats_mode == 0444, "0444");
	dutfs_cli_free(&c);
	CU_CHECK(dutfs_cli_parse(4, (char *const *)grp, &c, NULL) == 0 && c.stats_mode == 0440, "440");
	dutfs_cli_free(&c);
}

static void test_help_needs_no_directories(void)
{
	const char *argv[] = { "dutfs", "--help" };
	struct dutfs_cli c;

	CU_CHECK(dutfs_cli_parse(2, (char *const *)argv, &c, NULL) == 0 && c.help, "--help alone parses");
}

static void test_trace_max(void)
{
	static const struct {
		const char *argv[MAXARGS];
		uint64_t max;
		unsigned segs;
	} rows[] = {
		{ { "dutfs", "/b", "/m", "--trace", "t" }, 0, 0 },
		{ { "dutfs", "/b", "/m", "--trace", "t", "--trace-max", "4M" }, 4u << 20, 0 },
		{ { "dutfs", "/b", "/m", "--trace-max=2G", "--trace", "t", "--trace-segments=64" }, 2ull << 30, 64 },
		{ { "dutfs", "/b", "/m", "--trace", "t", "--trace-max", "2M", "--trace-segments", "2" }, 2u << 20, 2 },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		struct dutfs_cli c;
		struct dut_error err = { .msg = "" };
		int argc = 0, r;

		while (argc < MAXARGS && rows[i].argv[argc])
			argc++;
		r = dutfs_cli_parse(argc, (char *const *)rows[i].argv, &c, &err);
		CU_CHECK(r == 0, "row %zu: ret %d (%s)", i, r, err.msg);
		if (r)
			continue;
		CU_CHECK(c.trace_max_bytes == rows[i].max && c.trace_segments == rows[i].segs,
			 "row %zu: max %llu segments %u", i, (unsigned long long)c.trace_max_bytes,
			 c.trace_segments);
		dutfs_cli_free(&c);
	}
}

static const struct cu_test tests[] = {
	{ "trace_max", test_trace_max },
	{ "accepts_contract_syntax", test_accepts_contract_syntax },
	{ "rejects_bad_arguments_with_reason", test_rejects_bad_arguments_with_reason },
	{ "help_needs_no_directories", test_help_needs_no_directories },
	{ "shape_and_relmap", test_shape_and_relmap },
	{ "backing_cache", test_backing_cache },
	{ "stats_mode", test_stats_mode },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "dutfs-cli", .tests = tests };
