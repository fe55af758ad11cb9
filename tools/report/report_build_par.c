/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The report's pass over a streamed trace, on as many threads as the
 * process may run on: the trace's time is cut into windows of about equal
 * record counts (dut_trace_stream_cut), each read by its own reader (a
 * clone of the stream, windowed) and built by its own builder on its own
 * thread, and the builders are absorbed in time order
 * (report_build_merge.c says why that is the whole pass's report).
 *
 * Why not the merge on one core and the builder on the other: that split
 * is as fast as its slower half, and each half is about as long as the
 * other only on some traces; every record also crosses between the cores.
 * Windows divide both halves.  A small trace (under REP_PAR_MIN_RECS
 * records) keeps one builder with the merge on a second thread: there the
 * windows' extra rows and histograms cost more than they save.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lib/thread.h"
#include "tools/report/report_build_priv.h"
#include "tools/report/report_seconds.h"

#define REP_PAR_MIN_RECS 1000000u

/* One time window: its reader, its builder, its WAL count. */
struct win {
	struct dut_trace_stream *s;  /* a clone (window 0: the caller's stream) */
	struct report_builder *b;
	struct rep_wal_guess g;      /* its WAL writes (when the caller counts them) */
	pthread_t thread;
	bool started;
	int r;
};

static int win_run(struct win *x)
{
	for (;;) {
		const struct dut_trace_rec *v;
		size_t n;
		int r = dut_trace_stream_next(x->s, &v, &n);

		if (r < 0 || n == 0)
			return r;
		r = report_builder_add(x->b, v, n);
		if (r < 0)
			return r;
	}
}

static void *win_thread(void *arg)
{
	struct win *x = arg;

	x->r = win_run(x);
	return NULL;
}

/* The CPUs this process may run on, at most REP_PAR_MAX_WAYS. */
static unsigned cpus_usable(void)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 1;
	n = CPU_COUNT(&set);
	return n < 1 ? 1 : n > (int)REP_PAR_MAX_WAYS ? REP_PAR_MAX_WAYS : (unsigned)n;
}

static unsigned ways_for(struct dut_trace_stream *s, unsigned ways)
{
	if (ways)
		return ways > REP_PAR_MAX_WAYS ? REP_PAR_MAX_WAYS : ways;
	return dut_trace_stream_meta(s)->nrecs < REP_PAR_MIN_RECS ? 1 : cpus_usable();
}

static int builder_for(struct dut_trace_stream *s, const struct relmap *m, const struct rep_pages *pages,
		       bool later, struct report_builder **ret)
{
	uint64_t first, last;
	int r;

	dut_trace_stream_span(s, &first, &last);
	r = report_builder_new(dut_trace_stream_meta(s), first, last, m, ret);
	if (r < 0)
		return r;
	report_builder_set_pages(*ret, pages);
	(*ret)->later = later;
	if (!later && dut_trace_stream_meta(s)->segmented) {
		r = rep_rotation_new(dut_trace_stream_meta(s), dut_trace_stream_seconds(s), first, last,
				     &(*ret)->rep->rot);
		if (r < 0) {
			report_builder_free(*ret);
			*ret = NULL;
		}
	}
	return r;
}

/* Windows 1 .. k - 1 on their threads, window 0 here; then each absorbed into window 0's builder. */
static int run_windows(struct win *x, unsigned k)
{
	int r = 0;

	for (unsigned i = 1; i < k; i++)
		x[i].started = dut_thread_start(&x[i].thread, win_thread, &x[i]) == 0;
	x[0].r = win_run(&x[0]);
	for (unsigned i = 1; i < k; i++) {
		if (x[i].started)
			pthread_join(x[i].thread, NULL);
		else
			x[i].r = win_run(&x[i]); /* no thread: in turn, here */
	}
	for (unsigned i = 0; i < k && r == 0; i++) {
		r = x[i].r;
		if (r < 0 && i > 0)
			dut_trace_stream_take_error(x[0].s, x[i].s);
	}
	for (unsigned i = 1; i < k && r == 0; i++) {
		r = report_builder_absorb(x[0].b, x[i].b);
	}
	return r;
}

int report_build_stream_windows(struct dut_trace_stream *s, const struct relmap *m,
				const struct rep_pages *pages, struct rep_wal_guess *g, unsigned k,
				const uint64_t *bounds, struct report **ret)
{
	struct win x[REP_PAR_MAX_WAYS];
	int r = 0;

	if (k < 1 || k > REP_PAR_MAX_WAYS)
		return -EINVAL;
	memset(x, 0, sizeof(x));
	x[0].s = s;
	if (k == 1) {
		/* the merge on the second core while this one builds; without a thread, both here */
		(void)dut_trace_stream_prefetch(s);
	} else {
		for (unsigned i = 1; i < k; i++) {
			r = dut_trace_stream_clone(s, &x[i].s);
			if (r < 0)
				goto out;
			dut_trace_stream_set_window(x[i].s, bounds[i], bounds[i + 1]);
		}
		dut_trace_stream_set_window(s, bounds[0], bounds[1]);
	}
	for (unsigned i = 0; i < k; i++) {
		if ((r = builder_for(s, m, pages, i > 0, &x[i].b)) < 0)
			goto out;
		/* counted by the builder as it adds each write: no pass of its own */
		if (g)
			x[i].b->wal_guess = &x[i].g;
	}
	r = k == 1 ? win_run(&x[0]) : run_windows(x, k);
	/* counters: the windows' sum is the whole pass's */
	for (unsigned i = 0; g && i < k; i++) {
		g->writes += x[i].g.writes;
		for (unsigned j = 0; j < REP_WAL_GUESS_SIZES; j++)
			g->aligned[j] += x[i].g.aligned[j];
	}
	if (r == 0) {
		r = report_builder_finish(x[0].b, ret);
		x[0].b = NULL;
	}
out:
	for (unsigned i = 0; i < k; i++) {
		report_builder_free(x[i].b);
		if (i > 0)
			dut_trace_stream_close(x[i].s);
	}
	return r;
}

int report_build_stream_ways(struct dut_trace_stream *s, const struct relmap *m,
			     const struct rep_pages *pages, struct rep_wal_guess *g, unsigned ways,
			     struct report **ret)
{
	uint64_t bounds[REP_PAR_MAX_WAYS + 1] = { 0, UINT64_MAX };
	unsigned k = ways_for(s, ways);

	if (k > 1)
		dut_trace_stream_cut(s, k, bounds);
	return report_build_stream_windows(s, m, pages, g, k, bounds, ret);
}

int report_build_stream(struct dut_trace_stream *s, const struct relmap *m, struct report **ret)
{
	return report_build_stream_ways(s, m, NULL, NULL, 0, ret);
}

int report_build_stream_pages(struct dut_trace_stream *s, const struct relmap *m,
			      const struct rep_pages *pages, struct report **ret)
{
	return report_build_stream_ways(s, m, pages, NULL, 0, ret);
}

int report_build_stream_watch(struct dut_trace_stream *s, const struct relmap *m,
			      const struct rep_pages *pages, struct rep_wal_guess *g, struct report **ret)
{
	return report_build_stream_ways(s, m, pages, g, 0, ret);
}
