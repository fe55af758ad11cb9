/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dut_thread_start(): the worker runs with every signal blocked, and the
 * caller's own mask is as it was before (the trace writer, the stream's
 * merge and the report's windows start their threads with it).
 */
#include <pthread.h>
#include <signal.h>

#include "lib/thread.h"
#include "tests/cu_main.h"

static void *mask_of_thread(void *arg)
{
	pthread_sigmask(SIG_SETMASK, NULL, arg);
	return NULL;
}

static void test_worker_blocks_every_signal_caller_keeps_its_mask(void)
{
	sigset_t before, after, worker;
	pthread_t t;

	sigemptyset(&worker);
	pthread_sigmask(SIG_SETMASK, NULL, &before);
	CU_ASSERT_FALSE_FATAL(sigismember(&before, SIGINT));
	CU_ASSERT_EQUAL_FATAL(dut_thread_start(&t, mask_of_thread, &worker), 0);
	pthread_join(t, NULL);
	pthread_sigmask(SIG_SETMASK, NULL, &after);
	CU_ASSERT(sigismember(&worker, SIGINT) && sigismember(&worker, SIGTERM) &&
		  sigismember(&worker, SIGCHLD) && sigismember(&worker, SIGUSR1));
	CU_ASSERT_FALSE(sigismember(&after, SIGINT));
	CU_ASSERT_FALSE(sigismember(&after, SIGTERM));
}

static const struct cu_test tests[] = {
	{ "worker_blocks_every_signal_caller_keeps_its_mask",
	  test_worker_blocks_every_signal_caller_keeps_its_mask },
	{ NULL, NULL },
};

const struct cu_suite cu_suite = { .name = "thread", .tests = tests };
