/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Worker threads (thread_linux.c). */
#ifndef DUTLAB_THREAD_H
#define DUTLAB_THREAD_H

#include <pthread.h>

/*
 * pthread_create(t, NULL, fn, arg) with every signal blocked in the new
 * thread: signals stay the business of the program's own threads (its
 * handlers, sigwait, Ctrl-C), never of a worker that happens to run.
 * 0 or -errno.
 */
int dut_thread_start(pthread_t *t, void *(*fn)(void *), void *arg);

#endif
