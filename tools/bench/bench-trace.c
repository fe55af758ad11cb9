/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench-trace: how fast the trace writer takes records.
 *
 *   bench-trace FILE [THREADS [RECORDS_PER_THREAD [BUF_RECS [RATE_PER_THREAD [BUF_MAX_RECS]]]]]
 *
 * THREADS threads emit RECORDS_PER_THREAD records each, as fast as they can
 * (or paced at RATE_PER_THREAD records/s), into a writer on FILE.  Paced
 * threads sleep until each batch of 256 records is due, as dutfs workers
 * sleep in their syscalls between requests; spinning instead would take
 * the CPUs the writer thread needs and measure the scheduler, not the
 * writer.  Prints the
 * nanoseconds per dut_trace_emit() call on the hot path, the end-to-end rate
 * (from the first emit to the end of close(), so it includes the drain, the
 * footer and the fsync), how many records were written and dropped, and
 * the process's peak RSS (the rings are most of it).  BUF_MAX_RECS lets a
 * full ring grow up to that many records (dutfs's configuration).
 * DUT_BENCH_TRACE_FIXED=1 writes 1.1's fixed records (the writer before
 * compact frames), for a before/after in one build.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "lib/trace.h"

struct worker {
	struct dut_trace_writer *w;
	uint32_t id;
	uint64_t n, rate;
	uint64_t emit_ns; /* time spent inside dut_trace_emit */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *worker_main(void *arg)
{
	struct worker *wk = arg;
	uint64_t start = now_ns(), spent = 0;
	const uint64_t chunk = 256;

	for (uint64_t i = 0; i < wk->n; i += chunk) {
		uint64_t end = i + chunk < wk->n ? i + chunk : wk->n, t0;

		if (wk->rate) { /* pace: do not run ahead of i / rate */
			uint64_t due = start + i * 1000000000ull / wk->rate;
			struct timespec ts = { .tv_sec = (time_t)(due / 1000000000ull),
					       .tv_nsec = (long)(due % 1000000000ull) };

			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
				;
		}
		t0 = now_ns();
		for (uint64_t k = i; k < end; k++) {
			struct dut_trace_rec r = {
				.ts_ns = t0, .offset = k * 8192, .lat_ns = 1000, .len = 8192,
				.result = 8192, .file_id = wk->id, .pid = 1000 + wk->id,
				.op = (k & 1) ? DUT_OP_WRITE : DUT_OP_READ,
			};
			dut_trace_emit(wk->w, &r);
		}
		spent += now_ns() - t0;
	}
	wk->emit_ns = spent;
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned nthreads = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 2;
	uint64_t per = argc > 3 ? strtoull(argv[3], NULL, 0) : 2000000;
	size_t buf = argc > 4 ? strtoull(argv[4], NULL, 0) : 0;
	uint64_t rate = argc > 5 ? strtoull(argv[5], NULL, 0) : 0;
	size_t buf_max = argc > 6 ? strtoull(argv[6], NULL, 0) : 0;
	struct rusage ru;
	struct dut_trace_writer *w;
	struct worker *wk;
	pthread_t *th;
	uint64_t t0, t1, written, dropped, emit_ns = 0;
	struct dut_trace *t = NULL;
	struct dut_error err = { { 0 } };
	int r, r2;

	if (argc == 2 && strcmp(argv[1], "--help") == 0) {
		printf("usage: bench-trace FILE [THREADS [RECORDS_PER_THREAD [BUF_RECS [RATE_PER_THREAD [BUF_MAX_RECS]]]]]\n"
		       "  THREADS threads (default 2) emit RECORDS_PER_THREAD records each (default\n"
		       "  2000000) into a trace writer on FILE, with rings of BUF_RECS records (0: the\n"
		       "  writer's default, 65536), as fast as they can or paced at RATE_PER_THREAD\n"
		       "  records/s; a full ring may grow up to BUF_MAX_RECS records (0: no growth).\n"
		       "  Prints ns per dut_trace_emit, the end-to-end rate (first emit to the end of\n"
		       "  close, with its fsync), the records written and dropped and the peak RSS.\n"
		       "  DUT_BENCH_TRACE_FIXED=1: 1.1 fixed records; DUT_BENCH_TRACE_MAX=BYTES: rotated.\n"
		       "  Example (2.7M records/s offered): bench-trace /var/tmp/b.dtr 2 5000000 0 1350000\n"
		       "  At dutfs's rings: bench-trace /var/tmp/b.dtr 2 5000000 16384 1350000 131072\n");
		return 0;
	}
	if (argc < 2 || nthreads == 0 || nthreads > 256 || per == 0) {
		fprintf(stderr, "usage: bench-trace FILE [THREADS [RECORDS_PER_THREAD [BUF_RECS [RATE_PER_THREAD [BUF_MAX_RECS]]]]]"
			" (--help)\n");
		return 2;
	}
	/* DUT_BENCH_TRACE_MAX=BYTES: a rotated trace (--trace-max) with its side file */
	const char *tmax = getenv("DUT_BENCH_TRACE_MAX");
	/* DUT_BENCH_TRACE_FIXED=1: 1.1's 48-byte records instead of 2.0's compact frames */
	const char *fixed = getenv("DUT_BENCH_TRACE_FIXED");

	r = dut_trace_writer_open(argv[1], &(struct dut_trace_writer_opts){ .thread_buf_recs = buf,
		.thread_buf_max_recs = buf_max,
		.max_bytes = tmax ? strtoull(tmax, NULL, 10) : 0,
		.fixed_records = fixed && strcmp(fixed, "1") == 0 }, &w);
	if (r < 0) {
		fprintf(stderr, "bench-trace: cannot open %s: %s\n", argv[1], strerror(-r));
		return 1;
	}
	wk = calloc(nthreads, sizeof(*wk));
	th = calloc(nthreads, sizeof(*th));
	if (!wk || !th)
		return 1;
	t0 = now_ns();
	for (unsigned i = 0; i < nthreads; i++) {
		wk[i] = (struct worker){ .w = w, .id = i, .n = per, .rate = rate };
		pthread_create(&th[i], NULL, worker_main, &wk[i]);
	}
	for (unsigned i = 0; i < nthreads; i++) {
		pthread_join(th[i], NULL);
		emit_ns += wk[i].emit_ns;
	}
	r = dut_trace_writer_close_counts(w, &written, &dropped); /* the run's totals, also when rotated */
	t1 = now_ns();
	long peak_rss_kib = getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : -1;
	/* The final counts are in the footer. */
	r2 = dut_trace_load(argv[1], &t, &err);
	if (r2 < 0) {
		fprintf(stderr, "bench-trace: cannot read back %s: %s\n", argv[1], err.msg);
		return 1;
	}
	printf("threads %u, records %" PRIu64 ", ring %zu records (up to %zu)%s, trace %u.%u, %.1f bytes per record in the file\n",
	       nthreads, per * nthreads, buf ? buf : (size_t)65536,
	       buf_max ? buf_max : buf ? buf : (size_t)65536, rate ? ", paced" : "",
	       t->hdr.version_major, t->hdr.version_minor,
	       t->nrecs ? (double)t->valid_bytes / (double)t->nrecs : 0.0);
	printf("hot path: %.1f ns per dut_trace_emit\n", (double)emit_ns / (double)(per * nthreads));
	printf("end to end (emit .. close incl. fsync): %.3f s, %.2f M records/s offered\n",
	       (double)(t1 - t0) / 1e9, (double)(per * nthreads) / ((double)(t1 - t0) / 1e3));
	printf("written %" PRIu64 " (%zu in the file), dropped %" PRIu64 ": %.2f M records/s written\n",
	       written, t->nrecs, dropped, (double)written / ((double)(t1 - t0) / 1e3));
	if (peak_rss_kib >= 0)
		printf("peak RSS %ld KiB (before reading the trace back)\n", peak_rss_kib);
	if (r < 0)
		printf("close: %s\n", strerror(-r));
	dut_trace_free(t);
	return r < 0 ? 1 : 0;
}
