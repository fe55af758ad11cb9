/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench-report: how fast the streaming reader and the report builder go.
 *
 *   bench-report TRACE [merge|report]
 *
 * merge: records out of dut_trace_stream_next() only (the scan and the
 * merge); report (default): report_build_stream(), what `dutlab report`
 * does before rendering.  Prints records, seconds and records/s (wall
 * clock, from opening the trace), and the same per CPU-second of this
 * process (what to compare on a loaded machine).  Peak RSS: run it under
 * /usr/bin/time -v.
 */
#include <inttypes.h>
#include <stdio.h>
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

int main(int argc, char **argv)
{
	struct dut_error err = { { 0 } };
	struct dut_trace_stream *s;
	bool merge_only = argc > 2 && strcmp(argv[2], "merge") == 0;
	uint64_t n = 0, sum = 0;
	double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID), t, c;
	int r;

	if (argc < 2 || argc > 3 || (argc == 3 && !merge_only && strcmp(argv[2], "report") != 0)) {
		fprintf(stderr, "usage: bench-report TRACE [merge|report]\n");
		return 2;
	}
	r = dut_trace_stream_open(argv[1], &s, &err);
	if (r < 0) {
		fprintf(stderr, "bench-report: %s\n", err.msg);
		return 1;
	}
	if (merge_only) {
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
	t = clock_s(CLOCK_MONOTONIC) - t0;
	c = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
	printf("%s: %" PRIu64 " records in %.3f s: %.2fM records/s; %.3f CPU-s: %.2fM records/CPU-s (%s)\n",
	       argv[1], n, t, (double)n / t / 1e6, c, c > 0 ? (double)n / c / 1e6 : 0.0,
	       merge_only ? "scan + merge" : "scan + merge + report");
	return sum == 1 ? 3 : 0; /* keep the sum alive */
}
