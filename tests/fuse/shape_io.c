/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * I/O driver for the shaping integration tests (test-shape.sh).
 *
 *   shape_io conc FILE THREADS BS     THREADS threads each pread BS bytes at
 *                                     offset i*BS, all released at once;
 *                                     prints "wall_ms=W min_ms=A max_ms=B errors=E"
 *   shape_io read FILE OFF LEN        one pread; prints "ok N ms=T" or "errno NAME"
 *   shape_io trace TRACE              one line per READ/WRITE/FSYNC record:
 *                                     "OP path=P lat_ms=L result=R shaped=0|1 fault=0|1
 *                                     ts_ms=T off=O"
 *
 * Times are CLOCK_MONOTONIC.  Exit 0 when the I/O ran (errors are
 * reported, not fatal), 99 on a harness error (bad arguments, open fails).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/trace.h"

#define THREADS_MAX 256

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct worker {
	pthread_t t;
	int fd;
	size_t bs;
	off_t off;
	pthread_barrier_t *go;
	uint64_t start_ns, end_ns;
	int err;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	void *buf = NULL;
	ssize_t n;

	if (posix_memalign(&buf, 4096, w->bs)) {
		w->err = ENOMEM;
		return NULL;
	}
	pthread_barrier_wait(w->go);
	w->start_ns = now_ns();
	n = pread(w->fd, buf, w->bs, w->off);
	w->end_ns = now_ns();
	w->err = n < 0 ? errno : 0;
	free(buf);
	return NULL;
}

static int conc(const char *path, unsigned n, size_t bs)
{
	struct worker w[THREADS_MAX];
	pthread_barrier_t go;
	uint64_t first = UINT64_MAX, last = 0, lmin = UINT64_MAX, lmax = 0;
	unsigned errors = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		fprintf(stderr, "shape_io: %s: %s\n", path, strerror(errno));
		return 99;
	}
	pthread_barrier_init(&go, NULL, n);
	for (unsigned i = 0; i < n; i++) {
		w[i] = (struct worker){ .fd = fd, .bs = bs, .off = (off_t)(i * bs), .go = &go };
		if (pthread_create(&w[i].t, NULL, work, &w[i])) {
			fprintf(stderr, "shape_io: pthread_create failed\n");
			return 99;
		}
	}
	for (unsigned i = 0; i < n; i++) {
		uint64_t l;

		pthread_join(w[i].t, NULL);
		errors += w[i].err != 0;
		first = w[i].start_ns < first ? w[i].start_ns : first;
		last = w[i].end_ns > last ? w[i].end_ns : last;
		l = w[i].end_ns - w[i].start_ns;
		lmin = l < lmin ? l : lmin;
		lmax = l > lmax ? l : lmax;
	}
	printf("wall_ms=%.1f min_ms=%.1f max_ms=%.1f errors=%u\n", (double)(last - first) / 1e6,
	       (double)lmin / 1e6, (double)lmax / 1e6, errors);
	pthread_barrier_destroy(&go);
	close(fd);
	return 0;
}

static int one_read(const char *path, off_t off, size_t len)
{
	void *buf = malloc(len ? len : 1);
	uint64_t t0, t1;
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || !buf) {
		fprintf(stderr, "shape_io: %s: %s\n", path, strerror(errno));
		free(buf);
		return 99;
	}
	t0 = now_ns();
	n = pread(fd, buf, len, off);
	t1 = now_ns();
	if (n < 0)
		printf("errno %s\n", strerrorname_np(errno));
	else
		printf("ok %zd ms=%.1f\n", n, (double)(t1 - t0) / 1e6);
	free(buf);
	close(fd);
	return 0;
}

static int dump_trace(const char *path)
{
	struct dut_error err = { .msg = "" };
	struct dut_trace *t;
	static const char *const names[] = {
		[DUT_OP_READ] = "READ", [DUT_OP_WRITE] = "WRITE", [DUT_OP_FSYNC] = "FSYNC",
		[DUT_OP_FDATASYNC] = "FDATASYNC",
	};

	if (dut_trace_load(path, &t, &err) < 0) {
		fprintf(stderr, "shape_io: %s\n", err.msg);
		return 99;
	}
	for (size_t i = 0; i < t->nrecs; i++) {
		const struct dut_trace_rec *r = &t->recs[i];
		const struct dut_trace_file *f = dut_trace_file_by_id(t, r->file_id);

		if (r->op < DUT_OP_READ || r->op > DUT_OP_FDATASYNC)
			continue;
		printf("%s path=%s lat_ms=%.1f result=%d shaped=%d fault=%d ts_ms=%.3f off=%llu\n",
		       names[r->op], f ? f->path : "?", (double)r->lat_ns / 1e6, (int)r->result,
		       !!(r->flags & DUT_TRACE_F_SHAPED), !!(r->flags & DUT_TRACE_F_FAULT),
		       (double)r->ts_ns / 1e6, (unsigned long long)r->offset);
	}
	dut_trace_free(t);
	return 0;
}

int main(int argc, char *argv[])
{
	if (argc == 3 && !strcmp(argv[1], "trace"))
		return dump_trace(argv[2]);
	if (argc == 5 && !strcmp(argv[1], "conc")) {
		unsigned n = (unsigned)strtoul(argv[3], NULL, 10);
		size_t bs = strtoul(argv[4], NULL, 10);

		if (n < 1 || n > THREADS_MAX || bs < 1) {
			fprintf(stderr, "shape_io: THREADS must be 1..%d and BS > 0\n", THREADS_MAX);
			return 99;
		}
		return conc(argv[2], n, bs);
	}
	if (argc == 5 && !strcmp(argv[1], "read"))
		return one_read(argv[2], (off_t)strtoll(argv[3], NULL, 10), strtoul(argv[4], NULL, 10));
	fprintf(stderr, "usage: shape_io conc FILE THREADS BS | read FILE OFF LEN | trace TRACE\n");
	return 99;
}
