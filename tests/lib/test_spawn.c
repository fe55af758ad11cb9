/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spawn: the pure helpers (wait statuses, capture buffers, envp, runuser argv) and real children. */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/spawn.h"
#include "tests/cu_main.h"

static char dir[256];

static int make_dir(void)
{
	const char *base = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/dut-spawn-XXXXXX", base && *base ? base : "/tmp");
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void)
{
	static const char *const files[] = { "link", "target", "log" };
	char p[300];

	for (size_t i = 0; i < DUT_ARRAY_SIZE(files); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, files[i]);
		unlink(p);
	}
	return rmdir(dir) < 0 ? -1 : 0;
}

static void test_wait_text(void)
{
	static const struct {
		int status, code;
		const char *text;
	} cases[] = {
		{ 0, 0, "exit status 0" },
		{ 3 << 8, 3, "exit status 3" },
		{ 127 << 8, 127, "exit status 127" },
		{ SIGKILL, 137, "killed by signal 9 (Killed)" },
		{ SIGTERM, 143, "killed by signal 15 (Terminated)" },
	};
	char buf[64];

	for (size_t i = 0; i < DUT_ARRAY_SIZE(cases); i++) {
		dut_wait_describe(cases[i].status, buf, sizeof(buf));
		CU_CHECK(dut_wait_code(cases[i].status) == cases[i].code && strcmp(buf, cases[i].text) == 0,
			 "status 0x%x: code %d, \"%s\"", (unsigned)cases[i].status, dut_wait_code(cases[i].status), buf);
	}
	dut_wait_describe(SIGKILL, buf, 10);
	CU_CHECK(strcmp(buf, "killed by") == 0, "cut at the length: \"%s\"", buf);
}

static void test_capture_bounds(void)
{
	static const struct {
		bool tail;
		const char *parts[3];
		const char *want;
		bool over;
	} cases[] = {
		{ false, { "abc", "def", NULL }, "abcdef", false },
		{ false, { "0123456", NULL, NULL }, "0123456", false },
		{ false, { "0123456", "7", NULL }, "0123456", true },
		{ false, { "0123456789", "abc", NULL }, "0123456", true },
		{ false, { "0123456789abc", NULL, NULL }, "0123456", true },
		{ true, { "abc", "def", NULL }, "abcdef", false },
		{ true, { "abc", "defg", NULL }, "abcdefg", false },
		{ true, { "0123456789", "abc", NULL }, "6789abc", true },
		{ true, { "0123", "45", "6789" }, "3456789", true },
		{ true, { "0123456789abc", NULL, NULL }, "6789abc", true },
		{ true, { "", "x", NULL }, "x", false },
	};

	for (size_t i = 0; i < DUT_ARRAY_SIZE(cases); i++) {
		char buf[8] = "junk";
		struct dut_capture c = { .buf = buf, .cap = sizeof(buf), .keep_tail = cases[i].tail };

		buf[0] = '\0';
		for (size_t k = 0; k < 3 && cases[i].parts[k]; k++)
			dut_capture_append(&c, cases[i].parts[k], strlen(cases[i].parts[k]));
		CU_CHECK(strcmp(buf, cases[i].want) == 0 && c.len == strlen(cases[i].want) && c.over == cases[i].over,
			 "case %zu: \"%s\" (len %zu, over %d), want \"%s\" (over %d)", i, buf, c.len, c.over,
			 cases[i].want, cases[i].over);
	}
}

static void test_env_and_argv(void)
{
	char *env[] = { (char *)"PATH=/bin", (char *)"PGPASSWORD=old", (char *)"PGPASSWORDX=keep", NULL };
	const char *add[] = { "PGPASSWORD=new", "NEW=1", NULL };
	char *argv[] = { (char *)"initdb", (char *)"-D", (char *)"/x", NULL };
	char *out[8];
	char **e = dut_spawn_env(env, add);

	CU_CHECK(e && strcmp(e[0], "PATH=/bin") == 0 && strcmp(e[1], "PGPASSWORDX=keep") == 0 &&
		 strcmp(e[2], "PGPASSWORD=new") == 0 && strcmp(e[3], "NEW=1") == 0 && !e[4],
		 "replaced by name, others kept, additions last");
	free(e);
	e = dut_spawn_env(env, NULL);
	CU_CHECK(e && e[2] == env[2] && !e[3], "no additions: a copy of the array");
	free(e);

	CU_CHECK(dut_spawn_argv_as("postgres", argv, out, DUT_ARRAY_SIZE(out)) == 0 &&
		 strcmp(out[0], "runuser") == 0 && strcmp(out[1], "-u") == 0 && strcmp(out[2], "postgres") == 0 &&
		 strcmp(out[3], "--") == 0 && out[4] == argv[0] && out[6] == argv[2] && !out[7],
		 "runuser -u postgres -- argv");
	CU_CHECK(dut_spawn_argv_as(NULL, argv, out, 4) == 0 && out[0] == argv[0] && !out[3], "no user: argv");
	CU_CHECK(dut_spawn_argv_as("postgres", argv, out, 7) == -E2BIG, "one slot short: -E2BIG");
	CU_CHECK(dut_spawn_argv_as(NULL, argv, out, 3) == -E2BIG, "no room for the NULL: -E2BIG");
}

/* Run argv with both streams captured; the child's wait status or -1. */
static int run_captured(char *const argv[], struct dut_spawn_opts *o, char *buf, size_t cap, struct dut_child *c)
{
	struct dut_capture capture = { .buf = buf, .cap = cap };

	o->out.how = DUT_SPAWN_CAPTURE;
	o->err.how = DUT_SPAWN_STDOUT;
	o->capture = &capture;
	if (dut_spawn(argv, o, c) < 0 || dut_child_wait(c, 0, 0) < 0)
		return -1;
	return c->status;
}

static void test_runs_and_captures(void)
{
	char *sh[] = { (char *)"/bin/sh", (char *)"-c", (char *)"echo out; echo err >&2; read x; echo \"[$x]$DUT_T\"; exit 3", NULL };
	const char *add[] = { "DUT_T=added", NULL };
	struct dut_spawn_opts o = { .env_add = add };
	struct dut_child c;
	char buf[256];
	int st = run_captured(sh, &o, buf, sizeof(buf), &c);

	CU_CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 3 && c.fail == DUT_SPAWN_OK,
		 "exit status 3 (status 0x%x)", (unsigned)st);
	CU_CHECK(strcmp(buf, "out\nerr\n[]added\n") == 0, "stdout, stderr, stdin /dev/null, env: \"%s\"", buf);

	char *big[] = { (char *)"/bin/sh", (char *)"-c", (char *)"head -c 300000 /dev/zero | tr '\\0' x; echo end", NULL };
	struct dut_spawn_opts o2 = { 0 };

	st = run_captured(big, &o2, buf, 16, &c);
	CU_CHECK(st == 0 && strcmp(buf, "xxxxxxxxxxxxxxx") == 0, "head kept, the rest drained: \"%s\"", buf);
}

static void test_start_failures(void)
{
	char *missing[] = { (char *)"/nonexistent/dut-prog", NULL };
	char *sh[] = { (char *)"/bin/sh", (char *)"-c", (char *)"echo hi", NULL };
	char link[300], target[300];
	struct dut_spawn_opts o = { 0 };
	struct dut_child c;
	char buf[64];
	int st;

	st = run_captured(missing, &o, buf, sizeof(buf), &c);
	CU_CHECK(c.fail == DUT_SPAWN_FAIL_EXEC && c.fail_errno == ENOENT && WIFEXITED(st) && WEXITSTATUS(st) == 127,
		 "a missing program: fail %d errno %d status 0x%x", c.fail, c.fail_errno, (unsigned)st);

	snprintf(link, sizeof(link), "%s/link", dir);
	snprintf(target, sizeof(target), "%s/target", dir);
	CU_CHECK(symlink(target, link) == 0, "symlink: %s", strerror(errno));
	struct dut_spawn_opts lo = { .out = { .how = DUT_SPAWN_PATH, .path = link,
					      .flags = O_CREAT | O_APPEND | O_NOFOLLOW, .mode = 0600 } };
	CU_CHECK(dut_spawn(sh, &lo, &c) == 0 && dut_child_wait(&c, 0, 0) == 0, "spawn with a log behind a link");
	CU_CHECK(c.fail == DUT_SPAWN_FAIL_REDIRECT && c.fail_errno == ELOOP && access(target, F_OK) < 0,
		 "O_NOFOLLOW log: ELOOP in the child, nothing written through the link (fail %d, errno %d)", c.fail,
		 c.fail_errno);
}

static int failing_setup(void *ctx)
{
	(void)ctx;
	return -EPERM;
}

static void test_setup_hook(void)
{
	char *sh[] = { (char *)"/bin/sh", (char *)"-c", (char *)"echo ran", NULL };
	struct dut_spawn_opts o = { .setup = failing_setup };
	struct dut_child c;
	char buf[64];
	int st = run_captured(sh, &o, buf, sizeof(buf), &c);

	CU_CHECK(c.fail == DUT_SPAWN_FAIL_SETUP && c.fail_errno == EPERM && WEXITSTATUS(st) == 126 && !buf[0],
		 "the hook's error stops the exec: fail %d errno %d status 0x%x \"%s\"", c.fail, c.fail_errno,
		 (unsigned)st, buf);
}

static void test_timeout_kills(void)
{
	char *sleep_[] = { (char *)"/bin/sleep", (char *)"30", NULL };
	struct timespec t0, t1;
	struct dut_child c;
	double s;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	CU_CHECK(dut_spawn(sleep_, NULL, &c) == 0 && dut_child_wait(&c, 200000000ull, SIGALRM) == 0, "spawn, wait");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	CU_CHECK(c.timed_out && WIFSIGNALED(c.status) && WTERMSIG(c.status) == SIGALRM && s < 10,
		 "killed by the timeout's signal (status 0x%x, %.1f s)", (unsigned)c.status, s);

	char *quick[] = { (char *)"/bin/true", NULL };

	CU_CHECK(dut_spawn(quick, NULL, &c) == 0 && dut_child_wait(&c, 5000000000ull, SIGKILL) == 0 && !c.timed_out &&
		 WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0, "a quick child is not killed");
}

static double since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

static void test_stderr_apart(void)
{
	char *sh[] = { (char *)"/bin/sh", (char *)"-c",
		       (char *)"echo out1; echo err1 >&2; echo out2; head -c 5000 /dev/zero | tr '\\0' e >&2", NULL };
	char ob[64], eb[16];
	struct dut_capture out = { .buf = ob, .cap = sizeof(ob), .over = true };
	struct dut_capture err = { .buf = eb, .cap = sizeof(eb) };
	struct dut_spawn_opts o = { .out = { .how = DUT_SPAWN_CAPTURE }, .err = { .how = DUT_SPAWN_CAPTURE },
				    .capture = &out, .err_capture = &err };
	struct dut_child c;

	CU_CHECK(dut_spawn(sh, &o, &c) == 0 && dut_child_wait(&c, 0, 0) == 0 && WIFEXITED(c.status) &&
		 WEXITSTATUS(c.status) == 0, "spawn, wait (status 0x%x)", (unsigned)c.status);
	CU_CHECK(strcmp(ob, "out1\nout2\n") == 0 && !out.over, "stdout alone in its capture: \"%s\" (over %d)", ob,
		 out.over);
	CU_CHECK(strcmp(eb, "err1\neeeeeeeeee") == 0 && err.over, "stderr in its own, bounded: \"%s\" (over %d)", eb,
		 err.over);
}

static void test_overflow_kills(void)
{
	char *flood[] = { (char *)"/usr/bin/head", (char *)"-c", (char *)"100000000", (char *)"/dev/zero", NULL };
	char *sh[] = { (char *)"/bin/sh", (char *)"-c", (char *)"head -c 100000 /dev/zero; echo done >&2", NULL };
	char ob[4097], eb[64];
	struct dut_capture out = { .buf = ob, .cap = sizeof(ob) }, err = { .buf = eb, .cap = sizeof(eb) };
	struct dut_spawn_opts o = { .out = { .how = DUT_SPAWN_CAPTURE }, .err = { .how = DUT_SPAWN_CAPTURE },
				    .capture = &out, .err_capture = &err };
	const struct dut_wait_limits kill_over = { .timeout_ns = 20000000000ull, .kill_on_overflow = true };
	const struct dut_wait_limits keep = { .timeout_ns = 20000000000ull };
	struct dut_child c;

	/* 100 MB of output: killed (SIGKILL, the default) once the 4096 bytes are full */
	CU_CHECK(dut_spawn(flood, &o, &c) == 0 && dut_child_wait_limits(&c, &kill_over) == 0, "spawn, wait");
	CU_CHECK(c.overflowed && !c.timed_out && !c.abandoned && WIFSIGNALED(c.status) &&
		 WTERMSIG(c.status) == SIGKILL && out.len == 4096 && out.over,
		 "killed at the bound: overflowed %d timed_out %d status 0x%x len %zu", c.overflowed, c.timed_out,
		 (unsigned)c.status, out.len);
	/* the same bound passed, no kill asked: it runs to its end */
	CU_CHECK(dut_spawn(sh, &o, &c) == 0 && dut_child_wait_limits(&c, &keep) == 0, "spawn, wait");
	CU_CHECK(!c.overflowed && WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0 && out.over &&
		 strcmp(eb, "done\n") == 0, "not killed: overflowed %d status 0x%x stderr \"%s\"", c.overflowed,
		 (unsigned)c.status, eb);
	/* stderr's own capture passing its bound does not kill */
	char *sh2[] = { (char *)"/bin/sh", (char *)"-c", (char *)"head -c 100000 /dev/zero >&2; echo done", NULL };

	CU_CHECK(dut_spawn(sh2, &o, &c) == 0 && dut_child_wait_limits(&c, &kill_over) == 0, "spawn, wait");
	CU_CHECK(!c.overflowed && WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0 && err.over &&
		 strcmp(ob, "done\n") == 0, "stderr over its bound: overflowed %d status 0x%x stdout \"%s\"",
		 c.overflowed, (unsigned)c.status, ob);
}

/* In a child: keep the pipe full (64 KiB writes, never a pause) for at most 8 s. */
static int write_all_the_time(void *ctx)
{
	static char chunk[65536];
	struct timespec t0;

	(void)ctx;
	memset(chunk, 'y', sizeof(chunk));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (since(&t0) < 8)
		if (write(STDOUT_FILENO, chunk, sizeof(chunk)) < 0)
			return 1;
	return 0;
}

static void test_timeout_while_writing(void)
{
	char ob[64];
	struct dut_capture out = { .buf = ob, .cap = sizeof(ob) };
	struct dut_spawn_opts o = { .out = { .how = DUT_SPAWN_CAPTURE }, .capture = &out };
	struct timespec t0;
	struct dut_child c;
	double s;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	CU_CHECK(dut_spawn_call(write_all_the_time, NULL, &o, &c) == 0 && dut_child_wait(&c, 300000000ull, SIGKILL) == 0,
		 "spawn, wait");
	s = since(&t0);
	CU_CHECK(c.timed_out && WIFSIGNALED(c.status) && WTERMSIG(c.status) == SIGKILL && s < 4,
		 "a child that never stops writing is killed at its deadline (status 0x%x, %.1f s)", (unsigned)c.status, s);
}

/* In a child: ignore SIGUSR1 (the "kill" the test sends) and sleep: a child that does not die. */
static int ignore_and_sleep(void *ctx)
{
	(void)ctx;
	signal(SIGUSR1, SIG_IGN);
	if (write(STDOUT_FILENO, "ready\n", 6) != 6)
		return 1;
	sleep(30);
	return 0;
}

static void test_grace_abandons(void)
{
	char ob[64];
	struct dut_capture out = { .buf = ob, .cap = sizeof(ob) };
	struct dut_spawn_opts o = { .out = { .how = DUT_SPAWN_CAPTURE }, .capture = &out };
	const struct dut_wait_limits lim = { .timeout_ns = 300000000ull, .kill_sig = SIGUSR1, .grace_ns = 300000000ull };
	struct timespec t0;
	struct dut_child c;
	int st = 0;
	double s;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	CU_CHECK(dut_spawn_call(ignore_and_sleep, NULL, &o, &c) == 0 && dut_child_wait_limits(&c, &lim) == 0,
		 "spawn, wait");
	s = since(&t0);
	CU_CHECK(c.timed_out && c.abandoned && c.status == -1 && s >= 0.5 && s < 4,
		 "left after the grace: timed_out %d abandoned %d status %d, %.2f s", c.timed_out, c.abandoned, c.status, s);
	CU_CHECK(strcmp(ob, "ready\n") == 0 && c.out_fd < 0, "its output read, the pipe closed: \"%s\"", ob);
	CU_CHECK(dut_wait_pid_nohang(c.pid, &st) == 0, "still running, not reaped by the wait");
	kill(c.pid, SIGKILL);
	CU_CHECK(waitpid(c.pid, &st, 0) == c.pid && WIFSIGNALED(st), "ours to reap");

	/* a child that dies at the kill is reaped within the grace */
	char *sleep_[] = { (char *)"/bin/sleep", (char *)"30", NULL };
	const struct dut_wait_limits lim9 = { .timeout_ns = 200000000ull, .grace_ns = 2000000000ull };

	CU_CHECK(dut_spawn(sleep_, NULL, &c) == 0 && dut_child_wait_limits(&c, &lim9) == 0 && c.timed_out &&
		 !c.abandoned && WIFSIGNALED(c.status) && WTERMSIG(c.status) == SIGKILL,
		 "SIGKILL, reaped: abandoned %d status 0x%x", c.abandoned, (unsigned)c.status);

	/* a grandchild holding the pipe: the read stops at the end of the grace, the child is reaped */
	char *sh[] = { (char *)"/bin/sh", (char *)"-c", (char *)"sleep 30 & exec sleep 30", NULL };

	o.new_pgroup = true;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CU_CHECK(dut_spawn(sh, &o, &c) == 0 && dut_child_wait_limits(&c, &lim9) == 0, "spawn, wait");
	s = since(&t0);
	kill(-c.pid, SIGKILL);
	CU_CHECK(c.timed_out && !c.abandoned && WIFSIGNALED(c.status) && WTERMSIG(c.status) == SIGKILL && s < 5,
		 "a pipe held by a grandchild: abandoned %d status 0x%x, %.2f s", c.abandoned, (unsigned)c.status, s);
}

/* In a child: report facts about itself on stdout. */
static int report_self(void *ctx)
{
	struct sigaction sa;
	sigset_t mask;
	char cwd[300];

	(void)ctx;
	sigaction(SIGPIPE, NULL, &sa);
	sigprocmask(SIG_SETMASK, NULL, &mask);
	if (!getcwd(cwd, sizeof(cwd)))
		cwd[0] = '\0';
	dprintf(STDOUT_FILENO, "pgrp=%d pipe=%s usr1blocked=%d uid=%d groups=%d cwd=%s", getpgrp() == getpid(),
		sa.sa_handler == SIG_DFL ? "dfl" : sa.sa_handler == SIG_IGN ? "ign" : "h",
		sigismember(&mask, SIGUSR1), (int)getuid(), getgroups(0, NULL), cwd);
	return 7;
}

static void test_child_state(void)
{
	char buf[512], want[512];
	struct dut_capture cap = { .buf = buf, .cap = sizeof(buf) };
	struct dut_spawn_opts o = { .out = { .how = DUT_SPAWN_CAPTURE }, .capture = &cap };
	_cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dut_child c;
	sigset_t usr1, old;
	void (*oldpipe)(int) = signal(SIGPIPE, SIG_IGN);

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, &old);
	/* inherited: our ignored SIGPIPE, our mask, our group, our directory */
	CU_CHECK(dut_spawn_call(report_self, NULL, &o, &c) == 0 && dut_child_wait(&c, 0, 0) == 0 &&
		 WEXITSTATUS(c.status) == 7, "fn's return is the exit status");
	CU_CHECK(strncmp(buf, "pgrp=0 pipe=ign usr1blocked=1 ", 30) == 0, "inherited: \"%s\"", buf);
	/* reset, a group of its own, another directory */
	cap.len = 0;
	o.signals = DUT_SPAWN_SIG_ALL;
	o.new_pgroup = true;
	o.cwd_fd = dfd;
	CU_CHECK(dut_spawn_call(report_self, NULL, &o, &c) == 0 && dut_child_wait(&c, 0, 0) == 0, "call");
	snprintf(want, sizeof(want), "cwd=%s", dir);
	CU_CHECK(strncmp(buf, "pgrp=1 pipe=dfl usr1blocked=0 ", 30) == 0 && strstr(buf, want),
		 "reset: \"%s\"", buf);
	sigprocmask(SIG_SETMASK, &old, NULL);
	signal(SIGPIPE, oldpipe);

	if (geteuid() != 0) {
		printf("(not root: the change of user is not tried)\n");
		return;
	}
	struct passwd *pw = getpwnam("nobody");

	CU_CHECK(pw != NULL, "user nobody");
	if (!pw)
		return;
	struct dut_spawn_ids ids = { .uid = pw->pw_uid, .gid = pw->pw_gid };

	cap.len = 0;
	o = (struct dut_spawn_opts){ .out = { .how = DUT_SPAWN_CAPTURE }, .capture = &cap, .ids = &ids };
	CU_CHECK(dut_spawn_call(report_self, NULL, &o, &c) == 0 && dut_child_wait(&c, 0, 0) == 0, "call as nobody");
	snprintf(want, sizeof(want), "uid=%d groups=0 ", (int)pw->pw_uid);
	CU_CHECK(c.fail == DUT_SPAWN_OK && strstr(buf, want), "as nobody, no groups: \"%s\"", buf);
}

static const struct cu_test tests[] = {
	{ "wait_text", test_wait_text },
	{ "capture_bounds", test_capture_bounds },
	{ "env_and_argv", test_env_and_argv },
	{ "runs_and_captures", test_runs_and_captures },
	{ "start_failures", test_start_failures },
	{ "setup_hook", test_setup_hook },
	{ "timeout_kills", test_timeout_kills },
	{ "stderr_apart", test_stderr_apart },
	{ "overflow_kills", test_overflow_kills },
	{ "timeout_while_writing", test_timeout_while_writing },
	{ "grace_abandons", test_grace_abandons },
	{ "child_state", test_child_state },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "spawn", .init = make_dir, .cleanup = remove_dir, .tests = tests };
