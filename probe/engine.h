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
 * flight), records what was in flight beside the block layer's own count
 * (result.stall), and asks the kernel to cancel what is in flight; block
 * I/O already at the device cannot be cancelled, so the answer is recorded
 * too.  If nothing completes for another stall_ns after that, the engine
 * gives up waiting and leaks the buffers of the I/Os still in flight, since
 * the kernel may still write into them.  A watchdog timer on the ring (one
 * timeout request, re-armed every stall_ns / 4) wakes the waiting thread,
 * so the wait for completions itself carries no timeout and costs nothing
 * more per I/O.
 *
 * A ring that fails (io_uring_enter returns an error other than EINTR,
 * EAGAIN, EBUSY, ETIME) ends the run with that error unless an earlier one
 * was recorded; I/O still in flight then is abandoned the same way.
 */
#ifndef DUTPROBE_ENGINE_H
#define DUTPROBE_ENGINE_H

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/hist.h"
#include "probe/rowspec.h"

/*
 * The error of a run that stalled.  The block layer reports a command
 * timeout as ETIMEDOUT, never as ETIME, so ETIME is free to mean "dutprobe
 * gave up waiting" (probe_io_strerror() says so).
 */
#define ENGINE_ESTALL ETIME

/* What a stalled run had in flight when the stall was declared. */
struct engine_stall {
	uint64_t stall_ns;                /* the timeout that ran out */
	struct bench_row row;             /* the job's pattern, bs, qd, threads, direction */
	unsigned inflight;                /* I/Os of the stalled thread in flight */
	bool has_oldest;                  /* inflight > 0: the next two are set */
	uint64_t oldest_age_ns;           /* since the oldest of them was submitted */
	uint64_t oldest_offset;           /* its offset (absolute) */
	/* The block layer's count for the target's device (/sys/dev/block/M:m/inflight). */
	bool dev_known;
	unsigned dev_major, dev_minor;
	char dev_name[32];                /* "nvme0n1" (/sys/block/NAME), "" when sysfs names none */
	bool dev_partition;               /* a partition: /sys/class/block/NAME (not in /sys/block) */
	uint64_t dev_reads, dev_writes;
	/* The cancel's answer: requests cancelled (>= 0), -errno, or not answered. */
	bool cancel_answered;
	int cancel_res;
	unsigned abandoned_ios;           /* still in flight when the engine stopped waiting */
};

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
	bool error_at_offset;             /* error_offset names an I/O (not a ring error, not a stall with none in flight) */
	struct engine_stall stall;        /* error == -ENGINE_ESTALL: what was in flight */
	unsigned abandoned_ios;           /* left in flight when the run ended (their buffers leaked) */
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

/*
 * The stall record of the last engine_run() that stalled, for renderers
 * that kept only the error number (probe_io_strerror()).  dutprobe's tests
 * stop at their first stall, so that is the one they report.  false when no
 * run has stalled.
 */
bool engine_last_stall(struct engine_stall *ret);

/*
 * The block layer's in-flight count of the device that serves fd's I/O (fstat:
 * st_rdev of a block device, st_dev of a file), into st's dev_* fields, and
 * its name from the /sys/dev/block/M:m link.  0 or -errno (no such device:
 * FUSE, tmpfs, a pipe).
 */
int engine_dev_inflight(int fd, struct engine_stall *st);

/*
 * Test seam: the io_uring calls the run loop and its workers make, and the
 * release of the I/O buffers, so a unit test can make a ring fail with I/O
 * in flight or hide IORING_FEAT_EXT_ARG (liburing then behaves as on a
 * kernel before 5.11).  The CQ peek and advance are not here: they read
 * ring memory inline.  engine_uring_set_ops(NULL) restores the real ones;
 * call it only while no run is going.
 */
struct io_uring;
struct io_uring_params;
struct io_uring_cqe;
struct iovec;
struct engine_uring_ops {
	int (*queue_init_params)(unsigned entries, struct io_uring *ring, struct io_uring_params *p);
	int (*submit)(struct io_uring *ring);
	int (*submit_and_wait)(struct io_uring *ring, unsigned wait_nr);
	int (*wait_cqe)(struct io_uring *ring, struct io_uring_cqe **ret_cqe);
	int (*register_buffers)(struct io_uring *ring, const struct iovec *iov, unsigned n);
	int (*register_files)(struct io_uring *ring, const int *fds, unsigned n);
	int (*unregister_files)(struct io_uring *ring);
	void (*queue_exit)(struct io_uring *ring);
	void (*buffers_free)(void *mem);
};
extern const struct engine_uring_ops engine_uring_real_ops;
void engine_uring_set_ops(const struct engine_uring_ops *ops);

#endif
