/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Parallel chunked generation (see genrun.h). */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "pgload/dss/genrun.h"

struct chunk_ref {
	unsigned job;
	uint64_t index; /* chunk number within the job */
	uint64_t lo, hi;
};

struct run {
	const struct dss_gen *g;
	const struct dss_gen_job *jobs;
	unsigned njobs;
	uint64_t unit_chunk[DSS_NTABLES * 2];
	uint64_t nchunks_total;
	uint64_t job_first[DSS_NTABLES * 2 + 1]; /* first global chunk of each job */
	const struct dss_sink_ops *ops;
	void *sink;
	struct dss_gen_stats *stats;

	atomic_uint_fast64_t next; /* next global chunk to claim */
	atomic_int error;          /* first error, 0 while all is well */

	pthread_mutex_t lock;      /* protects delivered[] and the stats' job[] */
	pthread_cond_t cond;
	uint64_t delivered[DSS_NTABLES * 2]; /* chunks of each job handed to the sink */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void chunk_of(const struct run *r, uint64_t global, struct chunk_ref *c)
{
	unsigned j = 0;

	while (global >= r->job_first[j + 1])
		j++;
	c->job = j;
	c->index = global - r->job_first[j];
	c->lo = r->jobs[j].lo + c->index * r->unit_chunk[j];
	c->hi = c->lo + r->unit_chunk[j];
	if (c->hi > r->jobs[j].hi)
		c->hi = r->jobs[j].hi;
}

static void fail(struct run *r, int err)
{
	int expected = 0;

	atomic_compare_exchange_strong(&r->error, &expected, err);
	pthread_mutex_lock(&r->lock);
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
}

/* Deliver one chunk, in order when the sink asks for it. */
static int deliver(struct run *r, void *tctx, const struct chunk_ref *c,
		   const struct dss_buf *buf, uint64_t rows)
{
	int ret;

	if (r->ops->ordered) {
		pthread_mutex_lock(&r->lock);
		while (r->delivered[c->job] != c->index && !atomic_load(&r->error))
			pthread_cond_wait(&r->cond, &r->lock);
		pthread_mutex_unlock(&r->lock);
		if (atomic_load(&r->error))
			return atomic_load(&r->error);
	}
	ret = r->ops->chunk(r->sink, tctx, c->job, r->jobs[c->job].t, buf->p, buf->len);
	pthread_mutex_lock(&r->lock);
	r->delivered[c->job]++;
	r->stats->job[c->job].rows += rows;
	r->stats->job[c->job].bytes += buf->len;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
	return ret;
}

struct worker {
	struct run *r;
	unsigned index;
	pthread_t tid;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct run *r = w->r;
	struct dss_gen_thread_stats *st = &r->stats->thread[w->index];
	struct dss_buf buf = { 0 };
	void *tctx = NULL;
	int ret = 0;

	if (r->ops->thread_begin)
		ret = r->ops->thread_begin(r->sink, w->index, &tctx);
	if (ret < 0) {
		fail(r, ret);
		return NULL;
	}
	while (!atomic_load(&r->error)) {
		uint64_t global = atomic_fetch_add(&r->next, 1);
		struct chunk_ref c;
		uint64_t rows, t0, t1, c0;

		if (global >= r->nchunks_total)
			break;
		chunk_of(r, global, &c);
		buf.len = 0;
		t0 = now_ns();
		c0 = thread_cpu_ns();
		ret = dss_gen_chunk(r->g, r->jobs[c.job].t, c.lo, c.hi, &buf, &rows);
		st->gen_cpu_ns += thread_cpu_ns() - c0;
		t1 = now_ns();
		st->gen_ns += t1 - t0;
		if (ret == 0)
			ret = deliver(r, tctx, &c, &buf, rows);
		st->sink_ns += now_ns() - t1;
		if (ret < 0) {
			fail(r, ret);
			break;
		}
		st->rows += rows;
		st->bytes += buf.len;
		st->chunks++;
	}
	if (r->ops->thread_end) {
		ret = r->ops->thread_end(r->sink, tctx, atomic_load(&r->error) != 0);
		if (ret < 0)
			fail(r, ret);
	}
	dss_buf_free(&buf);
	return NULL;
}

int dss_gen_run(const struct dss_gen *g, const struct dss_gen_job *jobs, unsigned njobs,
		unsigned threads, uint64_t unit_chunk, const struct dss_sink_ops *ops,
		void *sink, struct dss_gen_stats *ret)
{
	struct worker workers[DSS_GEN_MAX_THREADS];
	struct run r = { .g = g, .jobs = jobs, .njobs = njobs, .ops = ops, .sink = sink,
			 .stats = ret };
	unsigned started = 0;
	uint64_t t0 = now_ns();

	memset(ret, 0, sizeof(*ret));
	if (threads == 0 || threads > DSS_GEN_MAX_THREADS || njobs > DSS_NTABLES * 2)
		return -EINVAL;
	for (unsigned j = 0; j < njobs; j++) {
		uint64_t per_unit = jobs[j].t == DSS_LINEITEM || jobs[j].t == DSS_PARTSUPP ? 4 : 1;
		uint64_t n = jobs[j].hi - jobs[j].lo;
		r.unit_chunk[j] = unit_chunk ? unit_chunk : 32768 / per_unit;
		r.job_first[j] = r.nchunks_total;
		r.nchunks_total += (n + r.unit_chunk[j] - 1) / r.unit_chunk[j];
	}
	r.job_first[njobs] = r.nchunks_total;
	pthread_mutex_init(&r.lock, NULL);
	pthread_cond_init(&r.cond, NULL);
	atomic_init(&r.next, 0);
	atomic_init(&r.error, 0);
	for (; started < threads; started++) {
		workers[started] = (struct worker){ .r = &r, .index = started };
		if (pthread_create(&workers[started].tid, NULL, worker_main, &workers[started])) {
			fail(&r, -EAGAIN);
			break;
		}
	}
	for (unsigned i = 0; i < started; i++)
		pthread_join(workers[i].tid, NULL);
	pthread_cond_destroy(&r.cond);
	pthread_mutex_destroy(&r.lock);
	ret->threads = started;
	ret->wall_ns = now_ns() - t0;
	return atomic_load(&r.error);
}

unsigned dss_gen_jobs_tables(const struct dss_gen *g, struct dss_gen_job *jobs)
{
	static const enum dss_table order[] = {
		DSS_LINEITEM, DSS_ORDERS, DSS_PARTSUPP, DSS_PART, DSS_CUSTOMER,
		DSS_SUPPLIER, DSS_NATION, DSS_REGION,
	};
	for (unsigned i = 0; i < DSS_NTABLES; i++)
		jobs[i] = (struct dss_gen_job){ order[i], 0, dss_gen_units(g, order[i]) };
	return DSS_NTABLES;
}
