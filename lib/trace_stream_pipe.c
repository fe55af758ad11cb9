/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The streaming reader's merge on a second thread (dut_trace_stream_prefetch):
 * the thread fills a ring of slots with merged records, the reader takes
 * them in order.  The records and their order are the merge's, so what the
 * consumer computes does not change; only the merge's time overlaps the
 * consumer's (the report builder: about half of `dutlab report` each).
 *
 * Ownership: slot i is the thread's while tail <= i < head + PIPE_SLOTS
 * (it fills it), the reader's once filled (head <= i < tail) until the
 * reader's next call hands it back.  The merge state in struct
 * dut_trace_stream is the thread's alone while it runs.  One lock; the
 * thread holds it only to publish a slot or to wait for a free one, so
 * with slots of PIPE_RECS records the lock is taken twice per batch.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "lib/trace.h"
#include "lib/thread.h"
#include "lib/trace_stream_priv.h"

/* 4 x 2048 x 48 bytes: 384 KiB in flight, within the two cores' caches */
#define PIPE_SLOTS 4u
#define PIPE_RECS 2048u

struct dut_trace_pipe {
	struct dut_trace_stream *s;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t filled;       /* tail moved, or the thread ended */
	pthread_cond_t freed;        /* head moved, or stop */
	/* protected by lock */
	uint64_t head, tail;         /* slots taken by the reader, slots filled */
	bool stop;                   /* the reader closes: fill no more */
	int err;                     /* the merge's error, returned once the slots before it are read */
	struct dut_error merr;       /* and its message (dut_trace_stream_error) */
	/* the reader's alone */
	bool holding;                /* slot head is the reader's (returned by the last call) */
	size_t n[PIPE_SLOTS];        /* records in each filled slot: written before tail moves past it */
	struct dut_trace_rec slot[PIPE_SLOTS][PIPE_RECS];
};

static void *pipe_thread(void *arg)
{
	struct dut_trace_pipe *p = arg;

	for (;;) {
		uint64_t i;
		size_t n = 0;
		int r;

		pthread_mutex_lock(&p->lock);
		while (p->tail - p->head == PIPE_SLOTS && !p->stop)
			pthread_cond_wait(&p->freed, &p->lock);
		if (p->stop) {
			pthread_mutex_unlock(&p->lock);
			return NULL;
		}
		i = p->tail;
		pthread_mutex_unlock(&p->lock);

		r = dut_trace_stream_fill(p->s, p->slot[i % PIPE_SLOTS], PIPE_RECS, &n);

		pthread_mutex_lock(&p->lock);
		p->n[i % PIPE_SLOTS] = r < 0 ? 0 : n;
		p->tail = i + 1;
		if (r < 0) {
			p->err = r;
			p->merr = p->s->merr; /* the merge's state is this thread's: copied here, read under the lock */
		}
		pthread_cond_signal(&p->filled);
		pthread_mutex_unlock(&p->lock);
		if (r < 0 || n == 0)
			return NULL;
	}
}

static int pipe_next(struct dut_trace_pipe *p, const struct dut_trace_rec **ret, size_t *ret_n)
{
	size_t k;

	pthread_mutex_lock(&p->lock);
	if (p->holding) {
		p->head++;
		p->holding = false;
		pthread_cond_signal(&p->freed);
	}
	while (p->head == p->tail)
		pthread_cond_wait(&p->filled, &p->lock);
	k = p->n[p->head % PIPE_SLOTS];
	if (k == 0) {
		/* the last slot: stay on it, so every later call ends here too */
		int err = p->err;

		pthread_mutex_unlock(&p->lock);
		if (err < 0)
			return err;
		*ret = p->slot[p->head % PIPE_SLOTS];
		*ret_n = 0;
		return 0;
	}
	p->holding = true;
	*ret = p->slot[p->head % PIPE_SLOTS];
	pthread_mutex_unlock(&p->lock);
	*ret_n = k;
	return 0;
}

static void pipe_error(struct dut_trace_pipe *p, struct dut_error *ret)
{
	pthread_mutex_lock(&p->lock);
	*ret = p->merr;
	pthread_mutex_unlock(&p->lock);
}

static void pipe_stop(struct dut_trace_pipe *p)
{
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_signal(&p->freed);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	p->s->pipe = NULL;
	p->s->pipe_ops = NULL;
	pthread_cond_destroy(&p->freed);
	pthread_cond_destroy(&p->filled);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

static const struct dut_trace_pipe_ops pipe_ops = {
	.next = pipe_next,
	.stop = pipe_stop,
	.error = pipe_error,
};

int dut_trace_stream_prefetch(struct dut_trace_stream *s)
{
	struct dut_trace_pipe *p;
	int r;

	if (s->pipe)
		return 0;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->s = s;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->filled, NULL);
	pthread_cond_init(&p->freed, NULL);
	r = dut_thread_start(&p->thread, pipe_thread, p);
	if (r < 0) {
		pthread_cond_destroy(&p->freed);
		pthread_cond_destroy(&p->filled);
		pthread_mutex_destroy(&p->lock);
		free(p);
		return r;
	}
	s->pipe = p;
	s->pipe_ops = &pipe_ops;
	return 0;
}
