/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The load phase: create the eight tables and stream the generator's rows
 * into them with COPY, chunk by chunk, one connection per thread.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgload/dss/dss_priv.h"
#include "pgload/dss/schema.h"

struct copy_sink {
	const struct dss_opts *o;
	pthread_mutex_t lock;   /* protects err and failed */
	struct dut_error err;   /* the first error */
	bool failed;
};

static void sink_fail(struct copy_sink *s, const struct dut_error *e)
{
	pthread_mutex_lock(&s->lock);
	if (!s->failed) {
		s->err = *e;
		s->failed = true;
	}
	pthread_mutex_unlock(&s->lock);
}

static int copy_thread_begin(void *sink, unsigned thread, void **ret_tctx)
{
	struct copy_sink *s = sink;
	struct dut_error e;
	PGconn *c;
	int ret = dss_pg_connect(s->o, &c, &e);

	if (ret < 0) {
		sink_fail(s, &e);
		return ret;
	}
	*ret_tctx = c;
	return 0;
}

static int copy_chunk(void *sink, void *tctx, unsigned job, enum dss_table t,
		      const char *buf, size_t len)
{
	struct dut_error e;
	int ret = dss_pg_copy(tctx, t, buf, len, &e);

	if (ret < 0)
		sink_fail(sink, &e);
	return ret;
}

static int copy_thread_end(void *sink, void *tctx, bool error)
{
	PQfinish(tctx);
	return 0;
}

static const struct dss_sink_ops copy_sink_ops = {
	.thread_begin = copy_thread_begin,
	.chunk = copy_chunk,
	.thread_end = copy_thread_end,
	.ordered = false, /* rows are in key order within a chunk; chunks may interleave */
};

static int create_tables(PGconn *c, struct dut_error *err)
{
	char sql[128];
	int ret;

	for (unsigned t = 0; t < DSS_NTABLES; t++) {
		snprintf(sql, sizeof(sql), "drop table if exists %s cascade",
			 dss_table_name((enum dss_table)t));
		ret = dss_pg_exec(c, sql, NULL, err);
		if (ret < 0)
			return ret;
	}
	for (unsigned t = 0; t < DSS_NTABLES; t++) {
		ret = dss_pg_exec(c, dss_schema_create((enum dss_table)t), NULL, err);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int dss_phase_load(const struct dss_opts *o, const struct dss_gen *g, PGconn *c,
		   struct dss_report *r, struct dut_error *err)
{
	struct copy_sink s = { .o = o };
	int ret = create_tables(c, err);

	if (ret < 0)
		return ret;
	r->sink = "copy";
	r->njobs = dss_gen_jobs_tables(g, r->jobs);
	pthread_mutex_init(&s.lock, NULL);
	ret = dss_gen_run(g, r->jobs, r->njobs, o->threads, 0, &copy_sink_ops, &s, &r->gen);
	pthread_mutex_destroy(&s.lock);
	if (ret < 0) {
		if (s.failed)
			*err = s.err;
		else
			dut_error_set(err, "generating rows failed: %s", strerror(-ret));
	}
	return ret;
}
