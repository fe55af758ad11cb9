/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The attempts of dp_inner_query() through a fake struct dp_exec_ops that
 * answers each smartctl -d type with a fixture of tests/probe/identify/smartctl/:
 * the order of types, stopping at the first that reaches the drive, why each
 * failed, smartctl missing or not startable, and the bridge note that follows.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "probe/identify/ident.h"
#include "probe/identify/inner.h"
#include "lib/file_io.h"
#include "tests/cu_main.h"

static char fixdir[PATH_MAX];

static int suite_init(void)
{
	snprintf(fixdir, sizeof(fixdir), "%s/tests/probe/identify/smartctl", cu_source_root());
	return 0;
}

/* A fixture of smartctl/ (the project's bounded whole-file read). */
static char *slurp(const char *name, size_t *ret_len)
{
	char path[PATH_MAX + 64];
	char *buf = NULL;

	snprintf(path, sizeof(path), "%s/%s", fixdir, name);
	return dut_read_small_file(path, 1u << 20, &buf, ret_len) < 0 ? NULL : buf;
}

/* ---------------- attempts through fake ops ---------------- */

struct fake_answer {
	const char *dtype;           /* "" = no -d */
	const char *fixture;         /* NULL: the outcome below instead */
	int run_err;                 /* returned by run() (-ENOENT: not installed) */
	enum dp_exec_outcome outcome;
};

struct fake_ctx {
	const struct fake_answer *answers;
	size_t nanswers;
	unsigned calls;
	char seen[8][24];            /* the -d of each call, "auto" for none */
	bool bad_argv;
};

static int fake_run(void *ctx, const char *const argv[], const struct dp_exec_limits *lim,
		    struct dp_exec_result *ret)
{
	struct fake_ctx *c = ctx;
	const char *dtype = "";
	size_t n = 0, len = 0;

	(void)lim;
	while (argv[n])
		n++;
	/* PROG -j -a [-d TYPE] DEVICE */
	if (n == 6 && strcmp(argv[3], "-d") == 0)
		dtype = argv[4];
	else if (n != 4)
		c->bad_argv = true;
	if (strcmp(argv[1], "-j") != 0 || strcmp(argv[2], "-a") != 0 || strcmp(argv[n - 1], "/dev/sdc") != 0)
		c->bad_argv = true;
	if (c->calls < DUT_ARRAY_SIZE(c->seen))
		snprintf(c->seen[c->calls], sizeof(c->seen[0]), "%s", dtype[0] ? dtype : "auto");
	c->calls++;
	for (size_t i = 0; i < c->nanswers; i++) {
		const struct fake_answer *a = &c->answers[i];

		if (strcmp(a->dtype, dtype) != 0)
			continue;
		if (a->run_err)
			return a->run_err;
		memset(ret, 0, sizeof(*ret));
		ret->outcome = a->outcome;
		ret->out = a->fixture ? slurp(a->fixture, &len) : strdup("");
		ret->out_len = len;
		ret->err = strdup(a->fixture ? "" : "stand-in: no fixture\n");
		ret->err_len = ret->err ? strlen(ret->err) : 0;
		ret->status = a->fixture ? 0 : 2;
		return ret->out && ret->err ? 0 : -ENOMEM;
	}
	/* any other type: the passthrough fails */
	memset(ret, 0, sizeof(*ret));
	ret->out = slurp("failed-passthrough.json", &len);
	ret->out_len = len;
	ret->err = strdup("");
	ret->status = 2;
	return ret->out && ret->err ? 0 : -ENOMEM;
}

static const struct dp_exec_ops fake_ops = { .name = "fake", .run = fake_run };

static void run_query(struct fake_ctx *c, uint16_t vid, uint16_t pid, struct dp_inner_probe *p)
{
	struct dp_inner_env env = {
		.ops = &fake_ops, .ctx = c, .smartctl = "smartctl",
		.limits = { .timeout_ms = 1000, .max_out_bytes = 1 << 20, .max_err_bytes = 4096 },
	};

	CU_ASSERT_FATAL(dp_inner_query(&env, dp_usb_bridge_lookup(vid, pid, 0), "/dev/sdc", p) == 0);
}

static void test_known_bridge_one_attempt(void)
{
	static const struct fake_answer answers[] = { { "sntjmicron", "nvme-sntjmicron.json", 0, 0 } };
	struct fake_ctx c = { .answers = answers, .nanswers = DUT_ARRAY_SIZE(answers) };
	_cleanup_free_ struct dp_inner_probe *p = calloc(1, sizeof(*p));

	CU_ASSERT_FATAL(p != NULL);
	run_query(&c, 0x152d, 0x0583, p);
	CU_CHECK(p->state == DP_INNER_OK && p->used == 0 && p->nattempts == 1, "state %d used %d n %u",
		 p->state, p->used, p->nattempts);
	CU_CHECK(c.calls == 1 && strcmp(c.seen[0], "sntjmicron") == 0 && !c.bad_argv, "calls %u '%s'",
		 c.calls, c.seen[0]);
	CU_CHECK(strcmp(p->drive.model, "INTEL SSDPEKKW256G7") == 0, "model '%s'", p->drive.model);
	CU_CHECK(strcmp(p->device, "/dev/sdc") == 0, "device '%s'", p->device);
}

static void test_unknown_bridge_tries_in_turn(void)
{
	static const struct fake_answer answers[] = {
		{ "", "unknown-bridge.json", 0, 0 },
		{ "sat", "failed-sat.json", 0, 0 },
		{ "sntrealtek", "nvme-sntjmicron.json", 0, 0 },
	};
	struct fake_ctx c = { .answers = answers, .nanswers = DUT_ARRAY_SIZE(answers) };
	_cleanup_free_ struct dp_inner_probe *p = calloc(1, sizeof(*p));
	static const char *const want[] = { "auto", "sat", "sntasmedia", "sntrealtek" };

	CU_ASSERT_FATAL(p != NULL);
	run_query(&c, 0x1234, 0x5678, p);
	CU_CHECK(p->state == DP_INNER_OK && p->used == 3 && p->nattempts == 4, "state %d used %d n %u",
		 p->state, p->used, p->nattempts);
	CU_CHECK(c.calls == 4 && !c.bad_argv, "calls %u (stops at the first that works)", c.calls);
	for (size_t i = 0; i < DUT_ARRAY_SIZE(want) && i < c.calls; i++)
		CU_CHECK(strcmp(c.seen[i], want[i]) == 0, "call %zu: '%s', want '%s'", i, c.seen[i], want[i]);
	CU_CHECK(strstr(p->attempts[0].message, "Unknown USB bridge") && p->attempts[0].exit_status == 1,
		 "auto: '%s'", p->attempts[0].message);
	CU_CHECK(strstr(p->attempts[1].message, "Read Device Identity failed"), "sat: '%s'",
		 p->attempts[1].message);
	CU_CHECK(!p->attempts[2].ok && p->attempts[3].ok, "only the last reached the drive");
}

static void test_all_fail_says_why(void)
{
	static const struct fake_answer answers[] = {
		{ "", "unknown-bridge.json", 0, 0 },
		{ "sat", NULL, 0, DP_EXEC_TIMED_OUT },
		{ "sntasmedia", "truncated.json", 0, 0 },
		{ "sntrealtek", "unsupported-type.json", 0, 0 },
		{ "sntjmicron", NULL, 0, DP_EXEC_OUTPUT_TOO_BIG },
	};
	static const struct { int err; const char *msg; } want[] = {
		{ 0, "Unknown USB bridge" },
		{ -ETIME, "no answer within 1 s" },
		{ -EBADMSG, "not complete JSON" },
		{ 0, "Unknown SNT device type 'sntrealtek'" },
		{ -EFBIG, "more than 1048576 bytes" },
	};
	struct fake_ctx c = { .answers = answers, .nanswers = DUT_ARRAY_SIZE(answers) };
	_cleanup_free_ struct dp_inner_probe *p = calloc(1, sizeof(*p));

	CU_ASSERT_FATAL(p != NULL);
	run_query(&c, 0x1234, 0x5678, p);
	CU_CHECK(p->state == DP_INNER_FAILED && p->used == -1 && p->nattempts == 5, "state %d n %u",
		 p->state, p->nattempts);
	CU_CHECK(strstr(p->reason, "tried -d auto, -d sat, -d sntasmedia, -d sntrealtek, -d sntjmicron: each failed") != NULL,
		 "reason '%s'", p->reason);
	for (size_t i = 0; i < DUT_ARRAY_SIZE(want) && i < p->nattempts; i++)
		CU_CHECK(p->attempts[i].err == want[i].err && strstr(p->attempts[i].message, want[i].msg) &&
			 !p->attempts[i].ok, "attempt %zu: err %d '%s'", i, p->attempts[i].err,
			 p->attempts[i].message);
}

static void test_no_smartctl(void)
{
	static const struct fake_answer answers[] = { { "sntasmedia", NULL, -ENOENT, 0 } };
	struct fake_ctx c = { .answers = answers, .nanswers = DUT_ARRAY_SIZE(answers) };
	_cleanup_free_ struct dp_inner_probe *p = calloc(1, sizeof(*p));

	CU_ASSERT_FATAL(p != NULL);
	run_query(&c, 0x174c, 0x2362, p);
	CU_CHECK(p->state == DP_INNER_NO_SMARTCTL && p->nattempts == 0 && c.calls == 1,
		 "state %d n %u calls %u", p->state, p->nattempts, c.calls);
	CU_CHECK(strstr(p->reason, "not installed") && strstr(p->reason, "apt-get install smartmontools"),
		 "reason '%s'", p->reason);
}

static void test_cannot_start_stops(void)
{
	static const struct fake_answer answers[] = { { "", NULL, -EACCES, 0 } };
	struct fake_ctx c = { .answers = answers, .nanswers = DUT_ARRAY_SIZE(answers) };
	_cleanup_free_ struct dp_inner_probe *p = calloc(1, sizeof(*p));

	CU_ASSERT_FATAL(p != NULL);
	run_query(&c, 0x1234, 0x5678, p);
	CU_CHECK(p->state == DP_INNER_FAILED && p->nattempts == 1 && c.calls == 1 &&
		 strstr(p->reason, "could not run smartctl: Permission denied"),
		 "state %d n %u calls %u reason '%s'", p->state, p->nattempts, c.calls, p->reason);
}

static void test_permission_hint(void)
{
	static const struct fake_answer answers[] = { { "sntjmicron", "permission-denied.json", 0, 0 } };
	struct fake_ctx c = { .answers = answers, .nanswers = DUT_ARRAY_SIZE(answers) };
	_cleanup_free_ struct dp_inner_probe *p = calloc(1, sizeof(*p));

	CU_ASSERT_FATAL(p != NULL);
	run_query(&c, 0x152d, 0x0583, p);
	CU_CHECK(p->state == DP_INNER_FAILED && strstr(p->attempts[0].message, "needs root with CAP_SYS_RAWIO"),
		 "message '%s'", p->attempts[0].message);
}

static void test_bridge_note_follows_outcome(void)
{
	static const struct fake_answer ok[] = { { "sntasmedia", "nvme-sntasmedia.json", 0, 0 } };
	static const struct fake_answer none[] = { { "sntasmedia", NULL, -ENOENT, 0 } };
	_cleanup_free_ struct dp_inner_probe *p = calloc(1, sizeof(*p));
	struct dp_usb_link u;
	char note[1024];

	CU_ASSERT_FATAL(p != NULL);
	memset(&u, 0, sizeof(u));
	u.vid = 0x174c;
	u.pid = 0x2362;
	dp_strlcpy(u.driver, "uas", sizeof(u.driver));
	u.model = dp_usb_bridge_lookup(u.vid, u.pid, 0);

	struct fake_ctx c1 = { .answers = ok, .nanswers = 1 };
	run_query(&c1, u.vid, u.pid, p);
	dp_usb_bridge_note(&u, "sdc", p, note, sizeof(note));
	CU_CHECK(strstr(note, "smartctl -d sntasmedia") && strstr(note, "\"Inner drive\"") &&
		 !strstr(note, "not visible"), "ok note: %s", note);

	struct fake_ctx c2 = { .answers = none, .nanswers = 1 };
	run_query(&c2, u.vid, u.pid, p);
	dp_usb_bridge_note(&u, "sdc", p, note, sizeof(note));
	CU_CHECK(strstr(note, "apt-get install smartmontools") && strstr(note, "not visible"),
		 "missing note: %s", note);
}

static const struct cu_test tests[] = {
	{ "known_bridge_one_attempt", test_known_bridge_one_attempt },
	{ "unknown_bridge_tries_in_turn", test_unknown_bridge_tries_in_turn },
	{ "all_fail_says_why", test_all_fail_says_why },
	{ "no_smartctl", test_no_smartctl },
	{ "cannot_start_stops", test_cannot_start_stops },
	{ "permission_hint", test_permission_hint },
	{ "bridge_note_follows_outcome", test_bridge_note_follows_outcome },
	{ NULL, NULL },
};
const struct cu_suite cu_suite = { .name = "identify_inner", .init = suite_init, .tests = tests };
