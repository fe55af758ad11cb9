/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The real struct dp_exec_ops (exec_linux.c) on ordinary programs: exit
 * status, stdout and stderr kept apart, no shell between us and argv, stdin
 * at EOF, the timeout, the output bounds, a missing program.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/cleanup.h"
#include "probe/identify/inner.h"
#include "tests/cu_main.h"

static const struct dp_exec_limits lim = {
	.timeout_ms = 5000, .max_out_bytes = 1 << 20, .max_err_bytes = 4096,
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_status_and_streams(void)
{
	const char *argv[] = { "/bin/sh", "-c", "echo out; echo err >&2; exit 3", NULL };
	struct dp_exec_result r;

	CU_ASSERT_FATAL(dp_exec_spawn_ops.run(NULL, argv, &lim, &r) == 0);
	CU_CHECK(r.outcome == DP_EXEC_EXITED && r.status == 3, "outcome %d status %d", r.outcome, r.status);
	CU_CHECK(strcmp(r.out, "out\n") == 0 && r.out_len == 4, "stdout '%s'", r.out);
	CU_CHECK(strcmp(r.err, "err\n") == 0 && r.err_len == 4, "stderr '%s'", r.err);
	dp_exec_result_free(&r);
}

static void test_no_shell(void)
{
	/* found on PATH; the arguments reach it as they are: no expansion, no ';' */
	const char *argv[] = { "echo", "$HOME;", "`id`", "*", NULL };
	struct dp_exec_result r;

	CU_ASSERT_FATAL(dp_exec_spawn_ops.run(NULL, argv, &lim, &r) == 0);
	CU_CHECK(r.outcome == DP_EXEC_EXITED && r.status == 0 && strcmp(r.out, "$HOME; `id` *\n") == 0,
		 "stdout '%s'", r.out);
	dp_exec_result_free(&r);
}

static void test_stdin_is_empty(void)
{
	/* cat would wait for ever on an inherited terminal or pipe */
	const char *argv[] = { "cat", NULL };
	struct dp_exec_result r;

	CU_ASSERT_FATAL(dp_exec_spawn_ops.run(NULL, argv, &lim, &r) == 0);
	CU_CHECK(r.outcome == DP_EXEC_EXITED && r.status == 0 && r.out_len == 0, "outcome %d len %zu",
		 r.outcome, r.out_len);
	dp_exec_result_free(&r);
}

static void test_timeout_kills(void)
{
	const char *argv[] = { "sleep", "30", NULL };
	const struct dp_exec_limits shortlim = { .timeout_ms = 300, .max_out_bytes = 4096, .max_err_bytes = 4096 };
	struct dp_exec_result r;
	double t0 = now_s(), dt;

	CU_ASSERT_FATAL(dp_exec_spawn_ops.run(NULL, argv, &shortlim, &r) == 0);
	dt = now_s() - t0;
	CU_CHECK(r.outcome == DP_EXEC_TIMED_OUT, "outcome %d", r.outcome);
	/* killed at 0.3 s, not waited for (30 s) */
	CU_CHECK(dt >= 0.25 && dt < 5, "took %.2f s", dt);
	dp_exec_result_free(&r);
}

static void test_timeout_of_a_child_that_closes_its_output(void)
{
	const char *argv[] = { "/bin/sh", "-c", "exec >/dev/null 2>&1; sleep 30", NULL };
	const struct dp_exec_limits shortlim = { .timeout_ms = 300, .max_out_bytes = 4096, .max_err_bytes = 4096 };
	struct dp_exec_result r;
	double t0 = now_s();

	CU_ASSERT_FATAL(dp_exec_spawn_ops.run(NULL, argv, &shortlim, &r) == 0);
	CU_CHECK(r.outcome == DP_EXEC_TIMED_OUT && now_s() - t0 < 5, "outcome %d", r.outcome);
	dp_exec_result_free(&r);
}

static void test_stdout_bound(void)
{
	const char *argv[] = { "head", "-c", "10000000", "/dev/zero", NULL };
	const struct dp_exec_limits small = { .timeout_ms = 5000, .max_out_bytes = 65536, .max_err_bytes = 4096 };
	struct dp_exec_result r;

	CU_ASSERT_FATAL(dp_exec_spawn_ops.run(NULL, argv, &small, &r) == 0);
	CU_CHECK(r.outcome == DP_EXEC_OUTPUT_TOO_BIG && r.out_len <= 65536, "outcome %d len %zu",
		 r.outcome, r.out_len);
	dp_exec_result_free(&r);
}

static void test_stderr_bound_keeps_running(void)
{
	const char *argv[] = { "/bin/sh", "-c", "head -c 100000 /dev/zero >&2; echo done", NULL };
	const struct dp_exec_limits small = { .timeout_ms = 5000, .max_out_bytes = 4096, .max_err_bytes = 1000 };
	struct dp_exec_result r;

	CU_ASSERT_FATAL(dp_exec_spawn_ops.run(NULL, argv, &small, &r) == 0);
	CU_CHECK(r.outcome == DP_EXEC_EXITED && r.status == 0 && r.err_len == 1000 &&
		 strcmp(r.out, "done\n") == 0, "outcome %d err %zu out '%s'", r.outcome, r.err_len, r.out);
	dp_exec_result_free(&r);
}

static void test_signalled(void)
{
	const char *argv[] = { "/bin/sh", "-c", "kill -9 $$", NULL };
	struct dp_exec_result r;

	CU_ASSERT_FATAL(dp_exec_spawn_ops.run(NULL, argv, &lim, &r) == 0);
	CU_CHECK(r.outcome == DP_EXEC_SIGNALLED && r.status == SIGKILL, "outcome %d status %d",
		 r.outcome, r.status);
	dp_exec_result_free(&r);
}

static void test_missing_program(void)
{
	const char *a1[] = { "/nonexistent/dutprobe-test/smartctl", "-j", NULL };
	const char *a2[] = { "dutprobe-test-no-such-program", NULL };
	struct dp_exec_result r;
	int e1 = dp_exec_spawn_ops.run(NULL, a1, &lim, &r);
	int e2 = dp_exec_spawn_ops.run(NULL, a2, &lim, &r);

	CU_CHECK(e1 == -ENOENT, "absolute path: %d", e1);
	CU_CHECK(e2 == -ENOENT, "PATH lookup: %d", e2);
}

static void test_default_env(void)
{
	struct dp_inner_env env;

	unsetenv("DUTPROBE_SMARTCTL");
	dp_inner_env_default(&env);
	CU_CHECK(env.ops == &dp_exec_spawn_ops && strcmp(env.smartctl, "smartctl") == 0 &&
		 env.limits.timeout_ms > 0 && env.limits.max_out_bytes >= 65536, "defaults");
	setenv("DUTPROBE_SMARTCTL", "/opt/sm/smartctl", 1);
	dp_inner_env_default(&env);
	CU_CHECK(strcmp(env.smartctl, "/opt/sm/smartctl") == 0, "override '%s'", env.smartctl);
	unsetenv("DUTPROBE_SMARTCTL");
}

static const struct cu_test tests[] = {
	{ "status_and_streams", test_status_and_streams },
	{ "no_shell", test_no_shell },
	{ "stdin_is_empty", test_stdin_is_empty },
	{ "timeout_kills", test_timeout_kills },
	{ "timeout_of_a_child_that_closes_its_output", test_timeout_of_a_child_that_closes_its_output },
	{ "stdout_bound", test_stdout_bound },
	{ "stderr_bound_keeps_running", test_stderr_bound_keeps_running },
	{ "signalled", test_signalled },
	{ "missing_program", test_missing_program },
	{ "default_env", test_default_env },
	{ NULL, NULL },
};
const struct cu_suite cu_suite = { .name = "identify_exec", .tests = tests };
