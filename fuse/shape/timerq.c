/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A binary min-heap of (deadline, seq) under one mutex; the timer thread
 * waits on a condvar bound to CLOCK_MONOTONIC.  An insert that becomes the
 * new earliest deadline signals the thread so it re-arms its wait.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include "fuse/shape/timerq.h"

struct timer {
	uint64_t deadline_ns;
	uint64_t seq;
	shape_sched_fn fn;
	void *arg;
};

struct shape_sched {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct timer *heap;   /* lock */
	size_t n, cap;        /* lock */
	uint64_t seq;         /* lock */
	bool stopping;        /* lock */
	bool joined;
	pthread_t thread;
};

uint64_t shape_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static bool before(const struct timer *a, const struct timer *b)
{
	return a->deadline_ns < b->deadline_ns ||
	       (a->deadline_ns == b->deadline_ns && a->seq < b->seq);
}

static void sift_up(struct timer *h, size_t i)
{
	while (i > 0) {
		size_t p = (i - 1) / 2;
		struct timer t;

		if (!before(&h[i], &h[p]))
			break;
		t = h[i];
		h[i] = h[p];
		h[p] = t;
		i = p;
	}
}

static void sift_down(struct timer *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct timer t;

		if (l < n && before(&h[l], &h[m]))
			m = l;
		if (l + 1 < n && before(&h[l + 1], &h[m]))
			m = l + 1;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static struct timer pop(struct shape_sched *s)
{
	struct timer t = s->heap[0];

	s->heap[0] = s->heap[--s->n];
	sift_down(s->heap, s->n, 0);
	return t;
}

static void *timer_thread(void *arg)
{
	struct shape_sched *s = arg;

	pthread_mutex_lock(&s->lock);
	for (;;) {
		uint64_t now;

		if (s->n == 0) {
			if (s->stopping)
				break;
			pthread_cond_wait(&s->cond, &s->lock);
			continue;
		}
		now = shape_now_ns();
		if (!s->stopping && s->heap[0].deadline_ns > now) {
			struct timespec ts = {
				.tv_sec = (time_t)(s->heap[0].deadline_ns / 1000000000ull),
				.tv_nsec = (long)(s->heap[0].deadline_ns % 1000000000ull),
			};

			pthread_cond_timedwait(&s->cond, &s->lock, &ts);
			continue;   /* re-check: woken early, a new head, or stopping */
		}
		struct timer t = pop(s);

		pthread_mutex_unlock(&s->lock);
		t.fn(t.arg);
		pthread_mutex_lock(&s->lock);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

int shape_sched_new(struct shape_sched **ret)
{
	struct shape_sched *s = calloc(1, sizeof(*s));
	pthread_condattr_t ca;
	int r;

	if (!s)
		return -ENOMEM;
	pthread_mutex_init(&s->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cond, &ca);
	pthread_condattr_destroy(&ca);
	r = pthread_create(&s->thread, NULL, timer_thread, s);
	if (r) {
		pthread_cond_destroy(&s->cond);
		pthread_mutex_destroy(&s->lock);
		free(s);
		return -r;
	}
	*ret = s;
	return 0;
}

int shape_sched_add(struct shape_sched *s, uint64_t deadline_ns, shape_sched_fn fn, void *arg)
{
	int r = 0;

	pthread_mutex_lock(&s->lock);
	if (s->stopping) {
		r = -ESHUTDOWN;
		goto out_unlock;
	}
	if (s->n == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 64;
		struct timer *h = realloc(s->heap, ncap * sizeof(*h));

		if (!h) {
			r = -ENOMEM;
			goto out_unlock;
		}
		s->heap = h;
		s->cap = ncap;
	}
	s->heap[s->n] = (struct timer){ deadline_ns, s->seq++, fn, arg };
	sift_up(s->heap, s->n);
	s->n++;
	/* only a new earliest deadline changes what the thread waits for */
	if (s->heap[0].seq == s->seq - 1)
		pthread_cond_signal(&s->cond);
out_unlock:
	pthread_mutex_unlock(&s->lock);
	return r;
}

void shape_sched_stop(struct shape_sched *s)
{
	pthread_mutex_lock(&s->lock);
	s->stopping = true;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
	if (!s->joined) {
		pthread_join(s->thread, NULL);
		s->joined = true;
	}
}

void shape_sched_free(struct shape_sched *s)
{
	if (!s)
		return;
	shape_sched_stop(s);
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->lock);
	free(s->heap);
	free(s);
}

size_t shape_sched_pending(struct shape_sched *s)
{
	size_t n;

	pthread_mutex_lock(&s->lock);
	n = s->n;
	pthread_mutex_unlock(&s->lock);
	return n;
}
