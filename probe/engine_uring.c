/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * io_uring engine; see engine.h.
 *
 * Per thread: one ring of qd entries, qd slots each owning one aligned
 * buffer of bs bytes.  The loop keeps every slot in flight:
 *
 *     stamp the SQEs prepared since the last submit with one clock read
 *     io_uring_submit()               -- one io_uring_enter, no waiting
 *     peek every available CQE; only when there is none, io_uring_wait_cqe()
 *     per CQE: clock read, latency, account, prepare the slot's next I/O
 *     io_uring_cq_advance(n)
 *
 * so a batch of k completions costs one or two io_uring_enter calls, k + 1
 * vDSO clock reads, and no other syscalls.  All SQEs of a batch are
 * submitted by the same io_uring_enter, which is why one stamp serves them
 * all.
 *
 * Submitting and waiting are separate calls, as in fio, on purpose: with
 * io_uring_submit_and_wait(1) (one enter that submits and then sleeps),
 * 4 KiB QD1 random reads on a direct-I/O loop device ran at about half of
 * fio's IOPS (median 1030 against 1725, and p50 latency ~80 us higher);
 * submitting first and waiting in a second enter gave a median of 2050
 * (docs/bench-probe.md).  At high queue depths the peek usually finds
 * completions, so the second enter is rarely made.
 *
 * Sequential jobs submit each I/O in an io_uring_enter of its own, as it is
 * prepared (still no waiting).  Submitted together, consecutive blocks meet
 * in the block layer's plug and are merged into one request up to the
 * queue's max_sectors_kb: on virtio-blk here (4096) a SEQ1M Q8T1 read row
 * reached the device as 4 MiB requests, two in flight instead of eight
 * 1 MiB ones, where fio, submitting one request per enter, sends 1 MiB
 * (docs/bench-probe.md, 2026-12-07, s19; that host is bandwidth-bound, so
 * the IOPS did not change).  A row names the request size and queue depth
 * the device sees, so the merge is not the engine's to make.
 * Random offsets are almost never adjacent, so random jobs keep the batch.
 *
 * One submit per batch shows on a virtio disk: the batch reaches the host
 * together and comes back together, ~31 completions per interrupt at QD32,
 * where fio (one request per io_uring_enter) gets 3-6
 * (tools/bench/bench-probe-counts).  Submitting each request as soon as it
 * is prepared broke that up (~5 per interrupt) but cost 1.6-3.3x the CPU per
 * I/O and lost IOPS in 3 of 4 pairs on a loaded machine; a quiet machine,
 * where this may be what puts fio ahead, was not available to measure it
 * (docs/bench-probe.md, 2026-12-07).
 */
#include <errno.h>
#include <inttypes.h>
#include <liburing.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>
#include <time.h>

#include "lib/cleanup.h"
#include "lib/splitmix.h"
#include "lib/sysfs_root.h"
#include "probe/engine.h"

struct slot {
	uint64_t submit_ns;
	uint64_t offset;
	void *buf;
	bool busy;                        /* in flight */
};

/*
 * user_data of the two requests that are not I/Os (slots use 0..qd-1).
 * Never LIBURING_UDATA_TIMEOUT (all ones): on kernels without
 * IORING_FEAT_EXT_ARG (before 5.11) io_uring_wait_cqe() consumes a CQE with
 * that tag itself and returns its res, -ETIME for an expired timer, which
 * the loop would have taken for a failed ring.
 */
#define TAG_TICK   (UINT64_MAX - 1)   /* the stall watchdog's timer */
#define TAG_CANCEL (UINT64_MAX - 2)   /* "cancel everything" after a stall */
_Static_assert(TAG_TICK != LIBURING_UDATA_TIMEOUT && TAG_CANCEL != LIBURING_UDATA_TIMEOUT,
	       "liburing reserves LIBURING_UDATA_TIMEOUT for its own timeouts");
_Static_assert(TAG_CANCEL > BENCH_ROW_MAX_QD, "tags above every slot index");

static int real_wait_cqe(struct io_uring *ring, struct io_uring_cqe **ret)
{
	return io_uring_wait_cqe(ring, ret);  /* inline in liburing.h */
}

const struct engine_uring_ops engine_uring_real_ops = {
	.queue_init_params = io_uring_queue_init_params,
	.submit = io_uring_submit,
	.submit_and_wait = io_uring_submit_and_wait,
	.wait_cqe = real_wait_cqe,
	.register_buffers = io_uring_register_buffers,
	.register_files = io_uring_register_files,
	.unregister_files = io_uring_unregister_files,
	.queue_exit = io_uring_queue_exit,
	.buffers_free = free,
};

/* One pointer load per call; the tests swap it (engine_uring_set_ops). */
static const struct engine_uring_ops *uops = &engine_uring_real_ops;

void engine_uring_set_ops(const struct engine_uring_ops *ops)
{
	uops = ops ? ops : &engine_uring_real_ops;
}

static pthread_mutex_t last_stall_lock = PTHREAD_MUTEX_INITIALIZER;
static struct engine_stall last_stall;      /* protected by last_stall_lock */
static bool last_stall_set;                 /* protected by last_stall_lock */

bool engine_last_stall(struct engine_stall *ret)
{
	bool set;

	pthread_mutex_lock(&last_stall_lock);
	set = last_stall_set;
	if (set)
		*ret = last_stall;
	pthread_mutex_unlock(&last_stall_lock);
	return set;
}

static void last_stall_publish(const struct engine_stall *st)
{
	pthread_mutex_lock(&last_stall_lock);
	last_stall = *st;
	last_stall_set = true;
	pthread_mutex_unlock(&last_stall_lock);
}

/* Start gate: workers set up their rings, then wait until every one is ready. */
struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned ready;                   /* protected by lock */
	int go;                           /* protected by lock: 0 wait, 1 run, -1 abort */
};

struct worker {
	const struct engine_job *job;
	unsigned idx;
	uint64_t *issued_bytes;           /* shared byte-limit counter */
	struct gate *gate;
	/* range of this worker */
	uint64_t lo, hi;                  /* absolute offsets */
	uint64_t next_seq;
	uint64_t rng;
	/* results */
	struct engine_result res;
	int setup_error;
	bool abandoned;                   /* I/Os left in flight: keep their buffers */
	size_t slices_cap, windows_cap;
};

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* splitmix64: small, fast, good enough for uniform offsets. */
static inline uint64_t rng_next(uint64_t *s)
{
	return dut_splitmix64(s);
}

/* Next offset, or false when this worker has nothing more to issue. */
static bool next_offset(struct worker *w, uint64_t *ret)
{
	const struct engine_job *j = w->job;

	if (j->byte_limit &&
	    __atomic_fetch_add(w->issued_bytes, j->bs_bytes, __ATOMIC_RELAXED) + j->bs_bytes > j->byte_limit)
		return false;
	if (j->pattern == PROBE_RAND) {
		uint64_t nblocks = (w->hi - w->lo) / j->bs_bytes;

		*ret = w->lo + (uint64_t)(((unsigned __int128)rng_next(&w->rng) * nblocks) >> 64) * j->bs_bytes;
		return true;
	}
	if (w->next_seq + j->bs_bytes > w->hi) {
		if (!j->wrap)
			return false;
		w->next_seq = w->lo;
	}
	*ret = w->next_seq;
	w->next_seq += j->bs_bytes;
	return true;
}

static void prep(struct io_uring *ring, const struct engine_job *j, struct slot *s, unsigned idx)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);  /* never NULL: at most qd in flight */
	int fd = j->fixed_files ? 0 : j->fd;

	if (j->dir == PROBE_READ) {
		if (j->fixed_bufs)
			io_uring_prep_read_fixed(sqe, fd, s->buf, j->bs_bytes, s->offset, (int)idx);
		else
			io_uring_prep_read(sqe, fd, s->buf, j->bs_bytes, s->offset);
	} else {
		if (j->fixed_bufs)
			io_uring_prep_write_fixed(sqe, fd, s->buf, j->bs_bytes, s->offset, (int)idx);
		else
			io_uring_prep_write(sqe, fd, s->buf, j->bs_bytes, s->offset);
	}
	if (j->fixed_files)
		sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data64(sqe, idx);
	s->busy = true;
}

/*
 * The stall watchdog: a pure timer request (count 0, so the kernel checks
 * it on no completion) that ends with a CQE after ts.  The ring has room
 * for it beside qd I/Os (ring_init), and ts must live until the submit.
 */
static void arm_tick(struct io_uring *ring, struct __kernel_timespec *ts)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	io_uring_prep_timeout(sqe, ts, 0, 0);
	io_uring_sqe_set_data64(sqe, TAG_TICK);
}

/*
 * Ask the kernel to cancel every request in flight (5.19+; older: -EINVAL).
 * What it can cancel is what waits inside io_uring (a poll, a queued
 * io-wq item); block I/O already issued to the device is not, so the
 * answer (how many were cancelled) goes into the stall record.  ANY
 * matches the watchdog's timer too: it comes back -ECANCELED and is
 * re-armed like any tick.
 */
static void cancel_all(struct io_uring *ring)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	io_uring_prep_cancel64(sqe, 0, IORING_ASYNC_CANCEL_ANY | IORING_ASYNC_CANCEL_ALL);
	io_uring_sqe_set_data64(sqe, TAG_CANCEL);
}

/* The in-flight slot submitted first (the stalled request, most likely). */
static const struct slot *oldest_busy(const struct slot *slots, unsigned qd)
{
	const struct slot *o = NULL;

	for (unsigned i = 0; i < qd; i++)
		if (slots[i].busy && (!o || slots[i].submit_ns < o->submit_ns))
			o = &slots[i];
	return o;
}

static int push_sample(struct engine_sample **arr, size_t *n, size_t *cap, uint64_t t, uint64_t b)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 256;
		struct engine_sample *na = realloc(*arr, nc * sizeof(**arr));

		if (!na)
			return -ENOMEM;
		*arr = na;
		*cap = nc;
	}
	(*arr)[(*n)++] = (struct engine_sample){ .t_ns = t, .bytes = b };
	return 0;
}

/*
 * Ring flags, best first.  COOP_TASKRUN saves the task-work IPI per
 * completion.  DEFER_TASKRUN was measured and rejected: completions wait for
 * our next io_uring_enter, which cost 1 MiB QD8 reads a third of their IOPS
 * and doubled CPU per I/O against fio (docs/bench-probe.md).  Tried again
 * as fio 3.33 runs it (DEFER_TASKRUN | SINGLE_ISSUER | COOP_TASKRUN, each
 * submit also flushing completions, io_uring_submit_and_get_events): 4 KiB
 * QD32 reads on a file lost IOPS in 4 of 4 interleaved pairs and cost 18-40 %
 * more CPU per I/O (docs/bench-probe.md, 2026-12-07).
 */
static int ring_init(struct io_uring *ring, const struct engine_job *j)
{
	static const unsigned plain[] = {
		IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER,
		IORING_SETUP_COOP_TASKRUN,
		0,
	};
	struct io_uring_params p;
	unsigned entries = j->qd + 2;  /* qd I/Os, the watchdog's timer, one cancel */
	int ret = -EINVAL;

	if (j->sqpoll) {
		memset(&p, 0, sizeof(p));
		p.flags = IORING_SETUP_SQPOLL;
		p.sq_thread_idle = 100;  /* ms */
		return uops->queue_init_params(entries, ring, &p);
	}
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		memset(&p, 0, sizeof(p));
		p.flags = plain[i];
		ret = uops->queue_init_params(entries, ring, &p);
		if (ret != -EINVAL)
			return ret;
	}
	return ret;
}

static void rusage_add(struct worker *w, const struct rusage *a, const struct rusage *b)
{
	w->res.cpu_user_s += (double)(b->ru_utime.tv_sec - a->ru_utime.tv_sec) +
			     (double)(b->ru_utime.tv_usec - a->ru_utime.tv_usec) / 1e6;
	w->res.cpu_sys_s += (double)(b->ru_stime.tv_sec - a->ru_stime.tv_sec) +
			    (double)(b->ru_stime.tv_usec - a->ru_stime.tv_usec) / 1e6;
}

/* What the stalled thread had in flight, beside the block layer's count. */
static void stall_record(struct worker *w, const struct slot *slots, unsigned inflight, uint64_t t)
{
	const struct engine_job *j = w->job;
	struct engine_stall *st = &w->res.stall;
	const struct slot *o = oldest_busy(slots, j->qd);

	*st = (struct engine_stall){
		.stall_ns = j->stall_ns,
		.row = { .pattern = j->pattern, .dir = j->dir, .bs_bytes = j->bs_bytes, .qd = j->qd,
			 .threads = j->threads },
		.inflight = inflight,
	};
	if (o) {
		st->has_oldest = true;
		st->oldest_age_ns = t - o->submit_ns;
		st->oldest_offset = o->offset;
	}
	st->dev_known = engine_dev_inflight(j->fd, st) == 0;
}

/*
 * The watchdog's timer fired at t.  No completion for stall_ns: declare a
 * stall (the run's error, stop issuing, cancel what is in flight); still
 * none stall_ns after that: give up waiting (abandon what is in flight).
 */
static void watchdog(struct worker *w, struct io_uring *ring, const struct slot *slots, unsigned inflight,
		     uint64_t t, uint64_t progress_ns, uint64_t *stalled_at, bool *stopping)
{
	const struct engine_job *j = w->job;
	struct engine_result *r = &w->res;

	if (t - progress_ns < j->stall_ns)
		return;
	if (!*stalled_at) {
		const struct slot *o = oldest_busy(slots, j->qd);

		*stalled_at = t;
		*stopping = true;
		if (!r->error) {
			r->error = -ENGINE_ESTALL;
			r->error_offset = o ? o->offset : 0;
			r->error_at_offset = o != NULL;
			stall_record(w, slots, inflight, t);
		}
		cancel_all(ring);
	} else if (t - *stalled_at >= j->stall_ns) {
		w->abandoned = true;
	}
}

/*
 * Stamp the slots prepared since the last submit with t and submit their
 * SQEs in one io_uring_enter.  Returns what the submit returned; SQEs a
 * failed submit (EINTR, EAGAIN, EBUSY) left in the ring go with the next
 * call, their stamp unchanged, so their latency includes the retry.
 */
static int submit_pending(struct io_uring *ring, struct slot *slots, unsigned *pending, unsigned *npending,
			  uint64_t t)
{
	for (unsigned i = 0; i < *npending; i++)
		slots[pending[i]].submit_ns = t;
	*npending = 0;
	return uops->submit(ring);
}

static int loop(struct worker *w, struct io_uring *ring, struct slot *slots)
{
	const struct engine_job *j = w->job;
	struct engine_result *r = &w->res;
	struct io_uring_cqe **cqes;
	unsigned inflight = 0, *pending;
	unsigned npending = 0;
	bool stopping = false;
	uint64_t t0, measure_from, deadline, last = 0, next_slice, next_window;
	uint64_t progress_ns, stalled_at = 0;     /* last completion; when the stall was declared */
	struct __kernel_timespec tick = { 0 };
	bool series = w->idx == 0;
	/* adjacent blocks: one request each, not merged (the top of this file) */
	bool submit_each = j->pattern == PROBE_SEQ;
	int ret = 0;

	cqes = malloc(j->qd * sizeof(*cqes));
	pending = malloc(j->qd * sizeof(*pending));
	if (!cqes || !pending) {
		free(cqes);
		free(pending);
		return -ENOMEM;
	}
	t0 = now_ns();
	measure_from = t0 + j->warmup_ns;
	deadline = j->time_limit_ns ? measure_from + j->time_limit_ns : UINT64_MAX;
	next_slice = j->series_slice_ns;
	next_window = j->series_window_bytes;
	r->error_offset = 0;
	progress_ns = t0;
	if (j->stall_ns) {
		uint64_t ns = j->stall_ns / 4 > 10000000 ? j->stall_ns / 4 : 10000000;

		tick.tv_sec = (long long)(ns / 1000000000u);
		tick.tv_nsec = (long long)(ns % 1000000000u);
		arm_tick(ring, &tick);
	}

	for (unsigned i = 0; i < j->qd; i++) {
		if (!next_offset(w, &slots[i].offset))
			break;
		prep(ring, j, &slots[i], i);
		pending[npending++] = i;
		inflight++;
		if (submit_each)
			submit_pending(ring, slots, pending, &npending, now_ns());
	}
	while (inflight) {
		unsigned n;
		uint64_t t;

		ret = submit_pending(ring, slots, pending, &npending, now_ns());
		n = io_uring_peek_batch_cqe(ring, cqes, j->qd);
		if (!n) {
			struct io_uring_cqe *first;

			/*
			 * After a failed submit (EINTR, EAGAIN, EBUSY) the SQEs may
			 * still be in the ring with nothing in flight: a plain wait
			 * could sleep forever, so submit again and wait in one call.
			 */
			ret = ret >= 0 ? uops->wait_cqe(ring, &first) : uops->submit_and_wait(ring, 1);
			n = io_uring_peek_batch_cqe(ring, cqes, j->qd);
		}
		/*
		 * ETIME is liburing's answer for a CQE of its own timeouts
		 * (LIBURING_UDATA_TIMEOUT), never ours: not a ring failure, and
		 * never a stall (only the watchdog declares those).
		 */
		if (ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY && ret != -ETIME) {
			/*
			 * The ring is unusable: nothing more completes, and what is
			 * in flight may still be written into its buffers by the
			 * kernel, so it is abandoned like a stall's.  An earlier
			 * error (the stall, an I/O's) stays the run's error.
			 */
			if (!r->error) {
				r->error = ret;
				r->error_offset = 0;
				r->error_at_offset = false;
			}
			if (inflight)
				w->abandoned = true;
			ret = 0;  /* the run's error, in the result: not a failure to start */
			break;
		}
		ret = 0;
		for (unsigned c = 0; c < n; c++) {
			uint64_t ud = io_uring_cqe_get_data64(cqes[c]);
			unsigned idx = (unsigned)ud;
			struct slot *s;
			int res = cqes[c]->res;

			t = now_ns();
			if (ud >= j->qd) {
				if (ud == TAG_TICK) {
					watchdog(w, ring, slots, inflight, t, progress_ns, &stalled_at, &stopping);
					if (!w->abandoned)
						arm_tick(ring, &tick);
				} else if (ud == TAG_CANCEL) {
					r->stall.cancel_answered = true;
					r->stall.cancel_res = res;
				}
				continue;
			}
			s = &slots[idx];
			inflight--;
			s->busy = false;
			progress_ns = t;
			if (res != (int)j->bs_bytes) {
				if (!r->error) {
					r->error = res < 0 ? res : -EIO;
					r->error_offset = s->offset;
					r->error_at_offset = true;
				}
				stopping = true;
				continue;
			}
			r->total_bytes += j->bs_bytes;
			if (t >= measure_from) {
				r->ios++;
				r->bytes += j->bs_bytes;
				dut_hist_add(r->lat, t - s->submit_ns);
				last = t;
			}
			if (series && next_slice && t - t0 >= next_slice) {
				if (push_sample(&r->slices, &r->nslices, &w->slices_cap, t - t0, r->total_bytes) < 0)
					ret = -ENOMEM;
				while (next_slice <= t - t0)
					next_slice += j->series_slice_ns;
			}
			if (series && next_window && r->total_bytes >= next_window) {
				if (push_sample(&r->windows, &r->nwindows, &w->windows_cap, t - t0, r->total_bytes) < 0)
					ret = -ENOMEM;
				while (next_window <= r->total_bytes)
					next_window += j->series_window_bytes;
			}
			if (stopping || t >= deadline || !next_offset(w, &s->offset))
				continue;
			prep(ring, j, s, idx);
			pending[npending++] = idx;
			inflight++;
			if (submit_each)
				submit_pending(ring, slots, pending, &npending, t);
		}
		io_uring_cq_advance(ring, n);
		if ((j->stop && *j->stop) || ret < 0) {
			r->interrupted = j->stop && *j->stop;
			stopping = true;
		}
		if (w->abandoned)
			break;
	}
	/* A final sample at the end, so the series covers the whole run. */
	if (series && (j->series_slice_ns || j->series_window_bytes) && r->total_bytes) {
		uint64_t t = now_ns() - t0;

		if (j->series_slice_ns && (!r->nslices || r->slices[r->nslices - 1].bytes < r->total_bytes))
			push_sample(&r->slices, &r->nslices, &w->slices_cap, t, r->total_bytes);
		if (j->series_window_bytes && (!r->nwindows || r->windows[r->nwindows - 1].bytes < r->total_bytes))
			push_sample(&r->windows, &r->nwindows, &w->windows_cap, t, r->total_bytes);
	}
	r->elapsed_ns = last > measure_from ? last - measure_from : 0;
	r->end_offset = w->next_seq - j->span_offset;
	if (w->abandoned) {
		r->abandoned_ios = inflight;
		if (r->error == -ENGINE_ESTALL)
			r->stall.abandoned_ios = inflight;
	}
	free(cqes);
	free(pending);
	return ret;
}

/* Report ready and wait for the start signal; -1 when the run was aborted. */
static int gate_wait(struct gate *g)
{
	int go;

	pthread_mutex_lock(&g->lock);
	g->ready++;
	pthread_cond_broadcast(&g->cond);
	while (!g->go)
		pthread_cond_wait(&g->cond, &g->lock);
	go = g->go;
	pthread_mutex_unlock(&g->lock);
	return go > 0 ? 0 : -1;
}

static void gate_open(struct gate *g, unsigned nthreads, int go)
{
	pthread_mutex_lock(&g->lock);
	while (go > 0 && g->ready < nthreads)
		pthread_cond_wait(&g->cond, &g->lock);
	g->go = go;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

/*
 * The slots' buffers: one block on a 2 MiB boundary, rounded up to 2 MiB
 * and advised MADV_HUGEPAGE, so that with transparent huge pages in
 * "madvise" or "always" mode each buffer is physically contiguous.  With
 * scattered 4 KiB pages a 1 MiB read is 256 segments: the block layer maps
 * each one, and a queue with max_segments 254 (virtio-blk here) splits the
 * read into 1016 KiB + 8 KiB requests.  That cost 71 us of CPU per 1 MiB
 * read against 16 us with huge pages (SEQ1M Q8T1 on a file,
 * docs/bench-probe.md).  Offsets, sizes and data are unchanged; only the
 * number of segments (and requests) per I/O goes down.  When THP is off
 * ("never") the advice is ignored and the buffers are plain pages.
 */
#define BUF_ALIGN (2u << 20)

static void *buffers_alloc(size_t bytes)
{
	size_t len = (bytes + BUF_ALIGN - 1) / BUF_ALIGN * BUF_ALIGN;
	void *mem;

	if (posix_memalign(&mem, BUF_ALIGN, len))
		return NULL;
	madvise(mem, len, MADV_HUGEPAGE);  /* advice only: failure leaves 4 KiB pages */
	return mem;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	const struct engine_job *j = w->job;
	struct io_uring ring;
	struct slot *slots = NULL;
	struct iovec *iov = NULL;
	void *mem = NULL;
	struct rusage ru0, ru1;
	int ret;

	ret = ring_init(&ring, j);
	if (ret < 0) {
		w->setup_error = ret;
		gate_wait(w->gate);
		return NULL;
	}
	slots = calloc(j->qd, sizeof(*slots));
	iov = calloc(j->qd, sizeof(*iov));
	ret = -ENOMEM;
	if (!slots || !iov || !(mem = buffers_alloc((size_t)j->qd * j->bs_bytes)))
		goto out;
	/* Incompressible data: a compressing controller must not flatter the figures. */
	for (size_t i = 0; i < (size_t)j->qd * j->bs_bytes / 8; i++)
		((uint64_t *)mem)[i] = rng_next(&w->rng);
	for (unsigned i = 0; i < j->qd; i++) {
		slots[i].buf = (char *)mem + (size_t)i * j->bs_bytes;
		iov[i].iov_base = slots[i].buf;
		iov[i].iov_len = j->bs_bytes;
	}
	if (j->fixed_bufs && (ret = uops->register_buffers(&ring, iov, j->qd)) < 0)
		goto out;
	if (j->fixed_files && (ret = uops->register_files(&ring, &j->fd, 1)) < 0)
		goto out;
	ret = 0;
out:
	w->setup_error = ret;
	if (gate_wait(w->gate) < 0 && ret == 0)
		ret = -ECANCELED;
	if (ret == 0) {
		getrusage(RUSAGE_THREAD, &ru0);
		w->setup_error = loop(w, &ring, slots);
		getrusage(RUSAGE_THREAD, &ru1);
		rusage_add(w, &ru0, &ru1);
	}
	/*
	 * Drop the ring's reference to the target now: io_uring tears a ring
	 * down asynchronously after exit, and a registered file would keep an
	 * O_EXCL claim on a block device alive past our close, so the next
	 * run would find the device "held open exclusively".
	 */
	if (j->fixed_files && !w->abandoned)
		uops->unregister_files(&ring);
	/*
	 * After a stall or a failed ring the kernel may still complete the
	 * abandoned I/Os into their buffers (and unregistering the file would
	 * wait for them): leak the buffers; the ring is torn down once they
	 * are done.
	 */
	uops->queue_exit(&ring);
	if (!w->abandoned)
		uops->buffers_free(mem);
	free(slots);
	free(iov);
	return NULL;
}

void engine_result_free(struct engine_result *r)
{
	dut_hist_free(r->lat);
	free(r->slices);
	free(r->windows);
	memset(r, 0, sizeof(*r));
}

static void merge(struct engine_result *dst, struct engine_result *src, unsigned idx)
{
	dst->ios += src->ios;
	dst->bytes += src->bytes;
	dst->total_bytes += src->total_bytes;
	if (src->elapsed_ns > dst->elapsed_ns)
		dst->elapsed_ns = src->elapsed_ns;
	dut_hist_merge(dst->lat, src->lat);
	if (!dst->error && src->error) {
		dst->error = src->error;
		dst->error_offset = src->error_offset;
		dst->error_at_offset = src->error_at_offset;
		dst->stall = src->stall;
	}
	dst->abandoned_ios += src->abandoned_ios;
	dst->interrupted |= src->interrupted;
	dst->cpu_user_s += src->cpu_user_s;
	dst->cpu_sys_s += src->cpu_sys_s;
	if (idx == 0) {
		dst->end_offset = src->end_offset;
		dst->slices = src->slices;
		dst->nslices = src->nslices;
		dst->windows = src->windows;
		dst->nwindows = src->nwindows;
		src->slices = src->windows = NULL;
	}
}

int engine_run(const struct engine_job *j, struct engine_result *ret)
{
	struct engine_result r = { 0 };
	struct worker *w;
	pthread_t *tids;
	struct gate gate = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };
	uint64_t issued = 0, chunk;
	unsigned started = 0;
	int err = 0;

	if (!j->qd || !j->threads || !j->bs_bytes || j->span_bytes < j->bs_bytes ||
	    j->span_offset % 512 || j->seq_start % 512)
		return -EINVAL;
	chunk = j->pattern == PROBE_SEQ ? j->span_bytes / j->threads / j->bs_bytes * j->bs_bytes
					: j->span_bytes;
	if (chunk < j->bs_bytes)
		return -EINVAL;
	w = calloc(j->threads, sizeof(*w));
	tids = calloc(j->threads, sizeof(*tids));
	r.lat = dut_hist_new();
	if (!w || !tids || !r.lat) {
		err = -ENOMEM;
		goto out;
	}
	for (unsigned i = 0; i < j->threads; i++) {
		w[i].job = j;
		w[i].idx = i;
		w[i].issued_bytes = &issued;
		w[i].gate = &gate;
		w[i].rng = j->seed + i * 0x632be59bd9b4e019ull + 1;
		if (j->pattern == PROBE_SEQ) {
			w[i].lo = j->span_offset + i * chunk;
			w[i].hi = w[i].lo + chunk;
		} else {
			w[i].lo = j->span_offset;
			w[i].hi = j->span_offset + j->span_bytes / j->bs_bytes * j->bs_bytes;
		}
		w[i].next_seq = w[i].lo + (i == 0 ? j->seq_start / j->bs_bytes * j->bs_bytes : 0);
		w[i].res.lat = dut_hist_new();
		if (!w[i].res.lat) {
			err = -ENOMEM;
			goto out;
		}
	}
	for (; started < j->threads; started++) {
		int e = pthread_create(&tids[started], NULL, worker_main, &w[started]);

		if (e) {
			err = -e;
			break;
		}
	}
	/* Every thread is created before any starts: the threads run side by side. */
	gate_open(&gate, started, err ? -1 : 1);
	for (unsigned i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	for (unsigned i = 0; i < started; i++) {
		if (w[i].setup_error && !err)
			err = w[i].setup_error;
		merge(&r, &w[i].res, i);
	}
	if (r.error == -ENGINE_ESTALL)
		last_stall_publish(&r.stall);
out:
	for (unsigned i = 0; w && i < j->threads; i++)
		engine_result_free(&w[i].res);
	free(w);
	free(tids);
	if (err) {
		engine_result_free(&r);
		return err;
	}
	*ret = r;
	return 0;
}

/* The block layer's in-flight count for a target (engine.h). */
int engine_dev_inflight(int fd, struct engine_stall *st)
{
	char path[512], link[512];
	_cleanup_fclose_ FILE *f = NULL;
	uint64_t rd, wr;
	struct stat sb;
	const char *base;
	ssize_t n;
	dev_t dev;

	if (fstat(fd, &sb) < 0)
		return -errno;
	/* a block device counts its own I/O; a file's goes to its filesystem's device */
	dev = S_ISBLK(sb.st_mode) ? sb.st_rdev : sb.st_dev;
	snprintf(path, sizeof(path), "%s/dev/block/%u:%u", dut_sysfs_root(), major(dev), minor(dev));
	n = readlink(path, link, sizeof(link) - 1);  /* ../../devices/.../block/nvme0n1 */
	strcat(path, "/partition");
	st->dev_partition = access(path, F_OK) == 0;
	strcpy(strrchr(path, '/'), "/inflight");
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (fscanf(f, "%" SCNu64 " %" SCNu64, &rd, &wr) != 2)
		return -EINVAL;
	st->dev_major = major(dev);
	st->dev_minor = minor(dev);
	st->dev_reads = rd;
	st->dev_writes = wr;
	st->dev_name[0] = '\0';
	if (n > 0) {
		link[n] = '\0';
		base = strrchr(link, '/');
		base = base ? base + 1 : link;
		if (strlen(base) < sizeof(st->dev_name))
			memcpy(st->dev_name, base, strlen(base) + 1);
	}
	return 0;
}
