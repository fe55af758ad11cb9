/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The trace writer's file end (trace_writer_priv.h): the appender that puts
 * whole frames at the end of the current file, the run's drop counter and
 * the first error, which the writer thread (trace_writer.c) and the
 * rotation (trace_writer_rotate.c) both use.  It calls neither of them:
 * deciding to rotate before an append is the caller's (trace_writer.c,
 * dut_tw_rotation_due), so the two files do not call each other.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "lib/trace_format.h"
#include "lib/trace_writer_priv.h"

uint64_t dut_tw_now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int pwrite_all(int fd, const uint8_t *p, size_t n, uint64_t off)
{
	while (n > 0) {
		ssize_t k = pwrite(fd, p, n, (off_t)off);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (k == 0)
			return -EIO;
		p += k;
		n -= (size_t)k;
		off += (uint64_t)k;
	}
	return 0;
}

void dut_tw_note_error(struct dut_trace_writer *w, int err)
{
	if (!w->first_err)
		w->first_err = err;
}

int dut_tw_append(struct dut_trace_writer *w, const uint8_t *p, size_t n)
{
	int r;

	if (!w->hdr_written) {
		uint8_t hdr[DUT_TRACE_HEADER_SIZE];

		dut_trace_header_encode(&w->hdr, hdr);
		r = pwrite_all(w->fd, hdr, sizeof(hdr), 0);
		if (r < 0) {
			dut_tw_note_error(w, r);
			return r;
		}
		w->hdr_written = true;
		w->off = DUT_TRACE_HEADER_SIZE;
	}
	r = pwrite_all(w->fd, p, n, w->off);
	if (r < 0) {
		dut_tw_note_error(w, r);
		return r;
	}
	w->off += n;
	if (!w->replaying && n)
		w->seg_has_data = true;
	return 0;
}

uint64_t dut_tw_drops_now(struct dut_trace_writer *w)
{
	uint64_t n = atomic_load_explicit(&w->dropped_gone, memory_order_relaxed);

	pthread_mutex_lock(&w->bufs_lock);
	for (struct ring *b = w->bufs; b; b = b->next)
		n += atomic_load_explicit(&b->dropped, memory_order_relaxed);
	pthread_mutex_unlock(&w->bufs_lock);
	return n + atomic_load_explicit(&w->dropped_io, memory_order_relaxed);
}
