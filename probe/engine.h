/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The I/O engine: io_uring, O_DIRECT, one ring per thread, a fixed queue
 * depth kept full.  Per-I/O latency (submit -> reaped completion, one
 * CLOCK_MONOTONIC read per completion and one per submit batch) goes into a
 * per-thread histogram, merged at the end.
 *
 * A run stops at its time limit, its byte limit, the end of the span (a
 * sequential run without wrap), the first I/O error, or when *stop becomes
 * non-zero (Ctrl-C); in every case the in-flight I/Os are drained before
 * engine_run() returns, and what completed is reported.
 *
 * Stalls: with stall_ns set, a run in which no I/O completes for stall_ns
 * stops with error ENGINE_ESTALL (at the offset of the oldest I/O in
 * flight) and asks the kernel to cancel what is in flight.  If nothing
 * completes for another stall_ns after that, the engine gives up waiting
 * and leaks the buffers of the I/Os still in flight, since the kernel may
 * still write into them.  A watchdog timer on
 * the ring (one timeout request, re-armed every stall_ns / 4) wakes the
 * waiting thread, so the wait for completions itself carries no timeout and
 * costs nothing more per I/O.
 */
#ifndef DUTPROBE_ENGINE_H
#define DUTPROBE_ENGINE_H

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/hist.h"
#include "probe/rowspec.h"

/*
 * The error of a run that stalled.  The block layer reports a command
 * timeout as ETIMEDOUT, never as ETIME, so ETIME is free to mean "dutprobe
 * gave up waiting" (probe_io_strerror() says so).
 */
#define ENGINE_ESTALL ETIME

struct engine_job {
	int fd;                           /* opened with O_DIRECT */
	enum probe_pattern pattern;
	enum probe_dir dir;
	uint32_t bs_bytes;                /* multiple of the logical block size */
	unsigned qd, threads;
	uint64_t span_offset, span_bytes; /* I/O stays inside [offset, offset + bytes) */
	uint64_t seq_start;               /* sequential: first offset, relative to span_offset */
	bool wrap;                        /* sequential: start over at the end of the span */
	uint64_t time_limit_ns;           /* after warm-up; 0 = none */
	uint64_t warmup_ns;               /* completions before this are not counted */
	uint64_t byte_limit;              /* stop issuing after this many bytes (all threads); 0 = none */
	bool fixed_files, fixed_bufs, sqpoll;
	uint64_t seed;                    /* random offsets; thread i uses seed + i */
	/* Throughput series (thread 0 only; use with threads = 1): */
	uint64_t series_slice_ns;         /* a sample every slice; 0 = off */
	uint64_t series_window_bytes;     /* a sample every window of bytes; 0 = off */
	uint64_t stall_ns;                /* no completion for this long: a stall; 0 = wait forever */
	const volatile sig_atomic_t *stop;
};

struct engine_sample {
	uint64_t t_ns;                    /* since the start of the run */
	uint64_t bytes;                   /* completed bytes since the start */
};

struct engine_result {
	uint64_t ios, bytes;              /* counted (after warm-up) */
	uint64_t elapsed_ns;              /* counted window: end of warm-up to last completion */
	uint64_t total_bytes;             /* everything completed, warm-up included */
	uint64_t end_offset;              /* sequential, one thread: next offset (relative) */
	struct dut_hist *lat;             /* latency in ns, all threads merged */
	int error;                        /* first I/O error (-errno), 0 = none */
	uint64_t error_offset;
	bool interrupted;                 /* *stop was set */
	double cpu_user_s, cpu_sys_s;     /* of the submitting threads (not SQPOLL's) */
	struct engine_sample *slices, *windows;
	size_t nslices, nwindows;
};

/*
 * Run one job.  Returns 0 (also when an I/O failed or it was interrupted:
 * see error and interrupted) or -errno when the job could not start (ring
 * setup, memory); ret must be released with engine_result_free() after 0.
 */
int engine_run(const struct engine_job *job, struct engine_result *ret);
void engine_result_free(struct engine_result *r);

#endif
