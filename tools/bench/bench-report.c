/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench-report: how fast the streaming reader and the report builder go.
 *
 *   bench-report TRACE [merge|report|build|window K]
 *
 * merge: records out of dut_trace_stream_next() only (the scan and the
 * merge); report (default): report_build_stream(), what `dutlab report`
 * does before rendering.  Prints records, seconds and records/s (wall
 * clock, from opening the trace), and the same per CPU-second of this
 * process (what to compare on a loaded machine).  Peak RSS: run it under
 * /usr/bin/time -v.
 * build: the builder alone (report_builder_add, in the stream's batches of
 * BUILD_BATCH): the records are read into memory first (48 bytes each) and
 * only the build is timed, on one thread, so its CPU time is the builder's
 * own share without the merge beside it.  Each batch is copied into a
 * buffer before its timed add (as the pipe's slot is in the cache): read
 * from the whole array, the records' loads from memory were half the time.
 * window K: the merge alone, as merge, but the trace cut into K windows
 * (dut_trace_stream_cut), each read by its own clone on its own thread:
 * the scan's time, then each thread's records, wall and CPU seconds.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/trace.h"
#include "tools/report/report.h"

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* the pipe's slot (lib/trace_stream_pipe.c): what report_build_stream hands the builder */
#define BUILD_BATCH 2048u

/* Every record of s into memory, then the builder over them; *ret_c: its CPU-s. */
static struct dut_trace_rec batch[BUILD_BATCH];

static int build_only(struct dut_trace_stream *s, uint64_t *ret_n, double *ret_t, double *ret_c)
{
	struct dut_trace_rec *all = NULL;
	size_t n = 0, cap = 0;
	const struct dut_trace_rec *v;
	struct report_builder *b = NULL;
	struct report *rep;
	uint64_t first, last;
	double t0, c0;
	size_t k;
	int r;

	while ((r = dut_trace_stream_next(s, &v, &k)) == 0 && k) {
		if (n + k > cap) {
			size_t ncap = cap ? 2 * cap : 1u << 20;
			struct dut_trace_rec *p;

			while (ncap < n + k)
				ncap *= 2;
			if (!(p = realloc(all, ncap * sizeof(*p)))) {
				free(all);
				return -ENOMEM;
			}
			all = p;
			cap = ncap;
		}
		memcpy(all + n, v, k * sizeof(*v));
		n += k;
	}
	if (r < 0) {
		free(all);
		return r;
	}
	dut_trace_stream_span(s, &first, &last);
	*ret_t = *ret_c = 0;
	t0 = clock_s(CLOCK_MONOTONIC);
	c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
	r = report_builder_new(dut_trace_stream_meta(s), first, last, NULL, &b);
	for (size_t i = 0; r == 0 && i < n; i += BUILD_BATCH) {
		size_t nb = n - i < BUILD_BATCH ? n - i : BUILD_BATCH;

		/* into the cache first, untimed, as the pipe's slot comes: the builder's own time */
		*ret_t += clock_s(CLOCK_MONOTONIC) - t0;
		*ret_c += clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
		memcpy(batch, all + i, nb * sizeof(*batch));
		t0 = clock_s(CLOCK_MONOTONIC);
		c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
		r = report_builder_add(b, batch, nb);
	}
	if (r == 0)
		r = report_builder_finish(b, &rep);
	else if (b)
		report_builder_free(b);
	*ret_t += clock_s(CLOCK_MONOTONIC) - t0;
	*ret_c += clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
	free(all);
	if (r < 0)
		return r;
	*ret_n = rep->nrecs;
	report_free(rep);
	return 0;
}

struct window_reader {
	struct dut_trace_stream *s;
	uint64_t n, sum;
	double t, c;
	int r;
};

static void *window_run(void *arg)
{
	struct window_reader *w = arg;
	double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
	const struct dut_trace_rec *v;
	size_t k;

	while ((w->r = dut_trace_stream_next(w->s, &v, &k)) == 0 && k) {
		for (size_t i = 0; i < k; i++)
			w->sum += v[i].lat_ns;
		w->n += k;
	}
	w->t = clock_s(CLOCK_MONOTONIC) - t0;
	w->c = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
	return NULL;
}

#define WINDOWS_MAX 64u

/* The records of s in k windows, each read by a clone on its own thread. */
static int windows_read(struct dut_trace_stream *s, size_t k, uint64_t *ret_n, uint64_t *ret_sum)
{
	struct window_reader w[WINDOWS_MAX] = { { 0 } };
	pthread_t th[WINDOWS_MAX];
	uint64_t bounds[WINDOWS_MAX + 1];
	size_t started = 0, cloned = 0;
	double t0 = clock_s(CLOCK_MONOTONIC);
	int r = 0;

	dut_trace_stream_cut(s, k, bounds);
	for (; cloned < k && r == 0; cloned++) {
		r = dut_trace_stream_clone(s, &w[cloned].s);
		if (r == 0)
			dut_trace_stream_set_window(w[cloned].s, bounds[cloned], bounds[cloned + 1]);
	}
	for (; r == 0 && started < k; started++)
		r = -pthread_create(&th[started], NULL, window_run, &w[started]);
	for (size_t i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	for (size_t i = 0; i < cloned; i++) {
		if (r == 0 && w[i].r < 0)
			r = w[i].r;
		if (w[i].s)
			printf("window %zu [%" PRIu64 ", %" PRIu64 "): %" PRIu64 " records, %.3f s, %.3f CPU-s\n",
			       i, bounds[i], bounds[i + 1], w[i].n, w[i].t, w[i].c);
		*ret_n += w[i].n;
		*ret_sum += w[i].sum;
		dut_trace_stream_close(w[i].s); /* the clones before s */
	}
	printf("%zu windows: %.3f s wall after the scan\n", k, clock_s(CLOCK_MONOTONIC) - t0);
	return r;
}

int main(int argc, char **argv)
{
	struct dut_error err = { { 0 } };
	struct dut_trace_stream *s;
	bool merge_only = argc > 2 && strcmp(argv[2], "merge") == 0;
	bool build = argc > 2 && strcmp(argv[2], "build") == 0;
	bool window = argc == 4 && strcmp(argv[2], "window") == 0;
	size_t nwin = window ? strtoul(argv[3], NULL, 10) : 0;
	uint64_t n = 0, sum = 0;
	double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID), t, c;
	int r;

	if (argc < 2 || (argc > 3 && !window) || (argc == 3 && !merge_only && !build &&
	    strcmp(argv[2], "report") != 0) || (window && (nwin < 1 || nwin > WINDOWS_MAX))) {
		fprintf(stderr, "usage: bench-report TRACE [merge|report|build|window K (1..64)]\n");
		return 2;
	}
	r = dut_trace_stream_open(argv[1], &s, &err);
	if (r < 0) {
		fprintf(stderr, "bench-report: %s\n", err.msg);
		return 1;
	}
	if (build) {
		double bt, bc;

		r = build_only(s, &n, &bt, &bc);
		if (r == 0)
			printf("%s: %" PRIu64 " records built in %.3f s, %.3f CPU-s: %.2fM records/CPU-s (builder only)\n",
			       argv[1], n, bt, bc, bc > 0 ? (double)n / bc / 1e6 : 0.0);
	} else if (window) {
		printf("scan: %.3f s\n", clock_s(CLOCK_MONOTONIC) - t0);
		merge_only = true;
		r = windows_read(s, nwin, &n, &sum);
	} else if (merge_only) {
		const struct dut_trace_rec *v;
		size_t k;

		while ((r = dut_trace_stream_next(s, &v, &k)) == 0 && k) {
			for (size_t i = 0; i < k; i++)
				sum += v[i].lat_ns;
			n += k;
		}
	} else {
		struct report *rep;

		r = report_build_stream(s, NULL, &rep);
		if (r == 0) {
			n = rep->nrecs;
			report_free(rep);
		}
	}
	dut_trace_stream_error(s, &err);
	dut_trace_stream_close(s);
	if (r < 0) {
		fprintf(stderr, "bench-report: %s\n", err.msg[0] ? err.msg : strerror(-r));
		return 1;
	}
	if (build)
		return 0;
	t = clock_s(CLOCK_MONOTONIC) - t0;
	c = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
	printf("%s: %" PRIu64 " records in %.3f s: %.2fM records/s; %.3f CPU-s: %.2fM records/CPU-s (%s)\n",
	       argv[1], n, t, (double)n / t / 1e6, c, c > 0 ? (double)n / c / 1e6 : 0.0,
	       merge_only ? "scan + merge" : "scan + merge + report");
	return sum == 1 ? 3 : 0; /* keep the sum alive */
}
