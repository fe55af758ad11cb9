/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <signal.h>

#include "lib/thread.h"

int dut_thread_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	int r;

	/* the new thread inherits the mask in force when it is created */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = -pthread_create(t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return r;
}
