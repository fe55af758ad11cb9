/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parallel generation: split tables into chunks, generate the chunks on N
 * threads and hand each to a sink (COPY into PostgreSQL, files, /dev/null,
 * a test's checksum).  Threads take chunks from one queue in order; with
 * an ordered sink, the chunks of each job reach the sink in unit order (a
 * thread that finished chunk c waits until chunk c - 1 was delivered), so
 * files and checksums are the same bytes whatever the thread count.
 */
#ifndef DSS_GENRUN_H
#define DSS_GENRUN_H

#include <stdbool.h>
#include <stdint.h>

#include "pgload/dss/gen.h"

struct dss_sink_ops {
	/* Per worker thread: set up its state (a connection, ...); may be NULL. */
	int (*thread_begin)(void *sink, unsigned thread, void **ret_tctx);
	/* Deliver one chunk of rows (job is the index into the job list). */
	int (*chunk)(void *sink, void *tctx, unsigned job, enum dss_table t,
		     const char *buf, size_t len);
	/* Tear down the thread's state; error true when the run is failing. May be NULL. */
	int (*thread_end)(void *sink, void *tctx, bool error);
	bool ordered;
};

/* Units [lo, hi) of table t. */
struct dss_gen_job {
	enum dss_table t;
	uint64_t lo, hi;
};

struct dss_gen_table_stats {
	uint64_t rows, bytes;
};

struct dss_gen_thread_stats {
	uint64_t rows, bytes, chunks;
	uint64_t gen_ns;   /* generating rows (wall clock) */
	uint64_t gen_cpu_ns; /* generating rows (this thread's CPU time) */
	uint64_t sink_ns;  /* in the sink (COPY, write) and waiting for order */
};

#define DSS_GEN_MAX_THREADS 256

struct dss_gen_stats {
	uint64_t wall_ns;
	unsigned threads;
	struct dss_gen_table_stats job[DSS_NTABLES * 2];
	struct dss_gen_thread_stats thread[DSS_GEN_MAX_THREADS];
};

/*
 * Run jobs (at most 2 * DSS_NTABLES) on threads threads.  Returns 0 or the
 * first error of a chunk or sink callback (-errno); ret is filled either way.
 * unit_chunk: units per chunk, 0 = a default of about 30,000 rows.
 */
int dss_gen_run(const struct dss_gen *g, const struct dss_gen_job *jobs, unsigned njobs,
		unsigned threads, uint64_t unit_chunk, const struct dss_sink_ops *ops,
		void *sink, struct dss_gen_stats *ret);

/* The jobs for all eight whole tables, biggest first; returns DSS_NTABLES. */
unsigned dss_gen_jobs_tables(const struct dss_gen *g, struct dss_gen_job *jobs);

#endif
