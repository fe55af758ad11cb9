/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <string.h>

#include "fuse/ctl_cmd.h"
#include "lib/cleanup.h"
#include "tests/cu_main.h"

static void test_parses_commands(void)
{
	static const struct {
		const char *in;
		int ret;
		enum dutfs_ctl_verb verb;
		const char *label;
		const char *reason;
	} rows[] = {
		{ "mark load\n", 0, DUTFS_CTL_MARK, "load", NULL },
		{ "mark load", 0, DUTFS_CTL_MARK, "load", NULL },
		{ "mark  phase 2: tpcb-like \n", 0, DUTFS_CTL_MARK, "phase 2: tpcb-like", NULL },
		{ "  trace on\n", 0, DUTFS_CTL_TRACE_ON, NULL, NULL },
		{ "trace off", 0, DUTFS_CTL_TRACE_OFF, NULL, NULL },
		{ "trace   off\n", 0, DUTFS_CTL_TRACE_OFF, NULL, NULL },
		{ "", -EINVAL, 0, NULL, "empty command" },
		{ "\n", -EINVAL, 0, NULL, "empty command" },
		{ "mark\n", -EINVAL, 0, NULL, "needs a label" },
		{ "mark   \n", -EINVAL, 0, NULL, "needs a label" },
		{ "mark a\nmark b\n", -EINVAL, 0, NULL, "one command per write" },
		{ "mark a\n\n", -EINVAL, 0, NULL, "one command per write" },
		{ "mark a\tb", -EINVAL, 0, NULL, "control character 0x09" },
		{ "trace", -EINVAL, 0, NULL, "trace takes \"on\" or \"off\"" },
		{ "trace maybe", -EINVAL, 0, NULL, "not \"maybe\"" },
		{ "trace onn", -EINVAL, 0, NULL, "not \"onn\"" },
		{ "marker x", -EINVAL, 0, NULL, "unknown command \"marker\"" },
		{ "MARK x", -EINVAL, 0, NULL, "unknown command \"MARK\"" },
		{ "crash\n", 0, DUTFS_CTL_CRASH, NULL, NULL },
		{ " recover ", 0, DUTFS_CTL_RECOVER, NULL, NULL },
		{ "reload", 0, DUTFS_CTL_RELOAD, NULL, NULL },
		{ "crash now", -EINVAL, 0, NULL, "crash takes no argument, found \"now\"" },
		{ "reload x.ini\n", -EINVAL, 0, NULL, "reload takes no argument" },
		{ "crashed", -EINVAL, 0, NULL, "unknown command \"crashed\"" },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(rows); i++) {
		struct dutfs_ctl_cmd c;
		struct dut_error err = { .msg = "" };
		int r = dutfs_ctl_parse(rows[i].in, strlen(rows[i].in), &c, &err);

		CU_CHECK(r == rows[i].ret, "row %zu: ret %d, want %d (%s)", i, r, rows[i].ret, err.msg);
		if (r == 0) {
			CU_CHECK(c.verb == rows[i].verb, "row %zu: verb %d", i, c.verb);
			if (rows[i].label)
				CU_CHECK(!strcmp(c.label, rows[i].label), "row %zu: label \"%s\"", i, c.label);
		} else {
			CU_CHECK(strstr(err.msg, rows[i].reason) != NULL, "row %zu: message \"%s\" lacks \"%s\"",
				 i, err.msg, rows[i].reason);
		}
	}
}

static void test_label_length_limit(void)
{
	char buf[DUTFS_CTL_LABEL_MAX + 16];
	struct dutfs_ctl_cmd c;
	size_t n;

	memcpy(buf, "mark ", 5);
	memset(buf + 5, 'x', DUTFS_CTL_LABEL_MAX);
	n = 5 + DUTFS_CTL_LABEL_MAX;
	CU_CHECK(dutfs_ctl_parse(buf, n, &c, NULL) == 0 && strlen(c.label) == DUTFS_CTL_LABEL_MAX,
		 "a label of exactly the maximum length is accepted");
	buf[n] = 'x';
	CU_CHECK(dutfs_ctl_parse(buf, n + 1, &c, NULL) == -EINVAL, "one byte more is refused");
}

static void test_embedded_nul_is_refused(void)
{
	static const char in[] = "mark a\0b";
	struct dutfs_ctl_cmd c;

	CU_CHECK(dutfs_ctl_parse(in, sizeof(in) - 1, &c, NULL) == -EINVAL, "NUL inside a write");
}

static const struct cu_test tests[] = {
	{ "parses_commands", test_parses_commands },
	{ "label_length_limit", test_label_length_limit },
	{ "embedded_nul_is_refused", test_embedded_nul_is_refused },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "dutfs-ctl-cmd", .tests = tests };
