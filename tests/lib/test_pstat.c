/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pstat: dut_pstat_read() on real processes: this one, a zombie child (what
 * the runner's and pgload's process checks tell apart) and a pid that is not
 * there.  The parsing itself is tested in tests/pgload/test_servstat.c.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/pstat.h"
#include "tests/cu_main.h"

static void test_reads_this_process(void)
{
	struct dut_proc_stat st = { 0 };

	CU_ASSERT_FATAL(dut_pstat_read(getpid(), &st) == 0);
	CU_CHECK(st.pid == getpid() && st.ppid == getppid() && st.state == 'R',
		 "pid %d ppid %d state %c", st.pid, st.ppid, st.state);
	CU_CHECK(strncmp(st.comm, "test_pstat", 10) == 0, "comm \"%s\"", st.comm);
}

static void test_zombie_and_gone(void)
{
	struct dut_proc_stat st = { 0 };
	siginfo_t si;
	pid_t child = fork();

	CU_ASSERT_FATAL(child >= 0);
	if (child == 0)
		_exit(0);
	/* WNOWAIT: wait for the exit but leave the zombie */
	CU_ASSERT_FATAL(waitid(P_PID, (id_t)child, &si, WEXITED | WNOWAIT) == 0);
	CU_CHECK(dut_pstat_read(child, &st) == 0 && st.state == 'Z' && st.ppid == getpid(),
		 "zombie: state %c ppid %d", st.state, st.ppid);
	CU_ASSERT_FATAL(waitpid(child, NULL, 0) == child);
	CU_CHECK(dut_pstat_read(child, &st) == -ENOENT, "reaped: gone");
	CU_CHECK(dut_pstat_read(-1, &st) == -ENOENT, "no such pid");
}

static const struct cu_test tests[] = {
	{ "reads_this_process", test_reads_this_process },
	{ "zombie_and_gone", test_zombie_and_gone },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "pstat", .tests = tests };
