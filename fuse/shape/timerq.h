/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Delayed completions: FUSE workers never sleep for a model's delay.  A
 * worker that must reply later inserts (deadline, callback, arg); one timer
 * thread sleeps until the earliest deadline (pthread_cond_timedwait on
 * CLOCK_MONOTONIC) and runs the callbacks, in deadline order (insertion
 * order among equal deadlines), never before their deadline and without
 * holding the lock (a callback may insert again).  Stopping drains: every
 * pending callback runs at once, in order, before shape_sched_stop returns.
 *
 * The callback typically calls fuse_reply_*() for a request the worker
 * left unanswered.
 */
#ifndef DUTFS_SHAPE_TIMERQ_H
#define DUTFS_SHAPE_TIMERQ_H

#include <stddef.h>
#include <stdint.h>

typedef void (*shape_sched_fn)(void *arg);

struct shape_sched;

int shape_sched_new(struct shape_sched **ret);
/* Thread-safe.  -ESHUTDOWN once stopping (the caller replies itself), -ENOMEM. */
int shape_sched_add(struct shape_sched *s, uint64_t deadline_ns, shape_sched_fn fn, void *arg);
/* Fire everything pending, join the thread.  Idempotent. */
void shape_sched_stop(struct shape_sched *s);
/* Stops first if needed. */
void shape_sched_free(struct shape_sched *s);
size_t shape_sched_pending(struct shape_sched *s);

/* CLOCK_MONOTONIC now, the clock of every deadline. */
uint64_t shape_now_ns(void);

#endif
