/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Trace writer: per-thread lock-free rings drained by one writer thread.
 *
 * Hot path (dut_trace_emit, FUSE worker threads): look the calling thread's
 * ring up in a small thread-local cache, copy the record into the ring,
 * publish it with a release store of the ring's head.  No lock, no syscall
 * (except an eventfd nudge when an eighth of the ring is in use, which never
 * blocks).  A full ring grows, if it may (opts.thread_buf_max_recs:
 * trace_writer_ring.c), else drops the record and counts it.
 *
 * Each ring is single-producer (its thread) / single-consumer (the writer
 * thread).  The writer thread wakes every flush_interval_ns or when nudged,
 * drains every ring into a large batch of RECORDS frames and writes it with
 * one pwrite() per batch.  It never holds a lock while it does I/O:
 *   - w->bufs_lock protects the list head and unlinking; producers take it
 *     once, when a thread emits its first record;
 *   - w->meta_lock protects the queue of FILE/MARKER/INFO frames; the writer
 *     steals the whole queue, then writes it unlocked.
 * Lock order: never both at once.
 *
 * Rings belong to the writer, not to the thread: when a thread exits, a
 * pthread key destructor marks its rings orphaned; the writer thread drains
 * an orphaned ring one last time and frees it.  Each ring is reference
 * counted (thread + writer) so that whichever of thread exit and writer
 * close comes last frees it.
 *
 * Write errors (ENOSPC, EIO, ...) never stop tracing: the records of a
 * batch that could not be written are counted as dropped, the file offset
 * stays at the end of the last whole batch (the next pwrite overwrites any
 * partial write), and close() truncates the file there, so the trace on disk
 * is always a sequence of whole frames.
 *
 * Rotation (max_bytes, docs/soak.md): before a write would take the file
 * (the newest segment) past max_bytes / segments, the writer thread closes
 * it with its footer, renames it PATH.<seq>, removes PATH.<seq - keep + 1>
 * and starts PATH again with a SEGMENT frame and the INFO, FILE (the last
 * per id) and MARKER frames written so far, which it keeps for that (their
 * memory is the file table, not the records).  Every record it drains also
 * goes into the per-second side file PATH.seconds (trace_seconds.c).  The
 * rotation and the side file are in trace_writer_rotate.c; the appender,
 * the drop count and the first error, which both use, in trace_writer_io.c.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

#include "lib/trace.h"
#include "lib/trace_format.h"
#include "lib/thread.h"
#include "lib/trace_writer_priv.h"

/*
 * 64 Ki records (3 MiB) a thread: at 1.35M records/s a thread it fills in
 * 48 ms, and the writer is woken at an eighth (6 ms), so it has 42 ms to be
 * scheduled.  16 Ki records left 6 ms (woken at half of 12 ms), which a
 * loaded 2-CPU machine missed (docs/soak.md "The writer's rate").  Rings
 * that start smaller and grow: opts.thread_buf_max_recs.
 */
#define DEFAULT_THREAD_BUF_RECS 65536u
#define THREAD_BUF_RECS_MIN 8u
#define THREAD_BUF_RECS_MAX (1u << 24)
#define DEFAULT_FLUSH_INTERVAL_NS (50ull * 1000 * 1000)
#define BATCH_BYTES (4u << 20)
/* Records per RECORDS frame: one frame fills at most a batch. */
#define FRAME_MAX_RECS ((BATCH_BYTES - DUT_TRACE_FRAME_HDR_SIZE) / DUT_TRACE_REC_SIZE)
#define TLS_SLOTS 4

/* ---- rings and the thread-local cache ---- */

struct tls_cache {
	uint64_t wid[TLS_SLOTS];
	struct ring *ring[TLS_SLOTS];
	unsigned next;
};

static __thread struct tls_cache tls;
static pthread_key_t tls_key;
static pthread_once_t tls_once = PTHREAD_ONCE_INIT;
static _Atomic uint64_t next_writer_id = 1;

static void ring_unref(struct ring *b)
{
	if (atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel) == 1)
		dut_tw_ring_free(b);
}

static void ring_release_from_thread(struct ring *b)
{
	atomic_store_explicit(&b->orphaned, true, memory_order_release);
	ring_unref(b);
}

static void tls_destroy(void *arg)
{
	struct tls_cache *c = arg;

	for (unsigned i = 0; i < TLS_SLOTS; i++) {
		if (c->ring[i])
			ring_release_from_thread(c->ring[i]);
		c->ring[i] = NULL;
		c->wid[i] = 0;
	}
}

static void tls_key_init(void)
{
	/* If this fails, rings of exited threads stay until close: a leak, not a loss. */
	(void)pthread_key_create(&tls_key, tls_destroy);
}

static struct ring *ring_register(struct dut_trace_writer *w)
{
	struct ring *b;
	unsigned slot;

	b = dut_tw_ring_new(w->cap, w->max_cap);
	if (!b)
		return NULL;
	atomic_init(&b->refs, 2);

	pthread_once(&tls_once, tls_key_init);
	slot = tls.next++ % TLS_SLOTS;
	if (tls.ring[slot])
		ring_release_from_thread(tls.ring[slot]);
	tls.ring[slot] = b;
	tls.wid[slot] = w->id;
	(void)pthread_setspecific(tls_key, &tls);

	pthread_mutex_lock(&w->bufs_lock);
	b->next = w->bufs;
	w->bufs = b;
	pthread_mutex_unlock(&w->bufs_lock);
	return b;
}

static inline struct ring *ring_of_thread(struct dut_trace_writer *w)
{
	for (unsigned i = 0; i < TLS_SLOTS; i++)
		if (tls.wid[i] == w->id)
			return tls.ring[i];
	return NULL;
}

static void nudge(struct dut_trace_writer *w)
{
	uint64_t one = 1;

	/* Never blocks: the counter would need 2^64 nudges to saturate. */
	(void)!write(w->efd, &one, sizeof(one));
}

void dut_trace_emit(struct dut_trace_writer *w, const struct dut_trace_rec *r)
{
	struct ring *b = ring_of_thread(w);

	if (__builtin_expect(!b, 0)) {
		b = ring_register(w);
		if (!b) {
			atomic_fetch_add_explicit(&w->dropped_gone, 1, memory_order_relaxed);
			return;
		}
	}
	if (dut_tw_ring_push(b, r) > 0)
		nudge(w);
}

/* ---- writer thread: batching and I/O ---- */

/* Append whole frames, rotating first when they would take the segment past its size. */
static int append(struct dut_trace_writer *w, const uint8_t *p, size_t n)
{
	if (dut_tw_rotation_due(w, n))
		dut_tw_rotate(w);
	return dut_tw_append(w, p, n);
}

static void cframe_close(struct dut_trace_writer *w);

static void batch_flush(struct dut_trace_writer *w)
{
	cframe_close(w);
	if (w->batch_len == 0)
		return;
	if (append(w, w->batch, w->batch_len) == 0)
		atomic_fetch_add_explicit(&w->written, w->batch_recs, memory_order_relaxed);
	else
		atomic_fetch_add_explicit(&w->dropped_io, w->batch_recs, memory_order_relaxed);
	w->batch_len = 0;
	w->batch_recs = 0;
}

/*
 * The batch's open CRECORDS frame, if any, gets its CSPAN frame (2.1: its
 * records' earliest and latest time, so a reader's scan need not decode
 * them), its header and padding.  One frame holds a whole writer round:
 * every ring's records one after another, each encoded against the record
 * before it in the frame (the rings' runs are in their time order; the
 * reader splits where time goes down), so a quiet mount's rounds of a few
 * records per thread do not pay a frame each.  Both frames go out in the
 * same batch: one write.
 */
#define CFRAME_OPEN (DUT_TRACE_CSPAN_FRAME + DUT_TRACE_FRAME_HDR_SIZE + DUT_TRACE_CFRAME_FIXED)

static void cframe_close(struct dut_trace_writer *w)
{
	uint8_t *at = w->batch + w->cframe_at;
	size_t pad, rlen;

	if (!w->cframe_open)
		return;
	rlen = w->batch_len - w->cframe_at - CFRAME_OPEN;
	if (dut_trace_cframe_wants_span(w->cframe_n)) {
		dut_trace_frame_cspan(&w->cframe_span, at);
		at += DUT_TRACE_CSPAN_FRAME;
	} else {
		/* a small frame: no span, the room kept for it goes (under 2 KiB to move) */
		memmove(at + CFRAME_OPEN - DUT_TRACE_CSPAN_FRAME, at + CFRAME_OPEN, rlen);
		w->batch_len -= DUT_TRACE_CSPAN_FRAME;
	}
	pad = dut_trace_cframe_hdr(at, w->cframe_n, rlen);
	memset(w->batch + w->batch_len, 0, pad);
	w->batch_len += pad;
	w->cframe_open = false;
}

/* Copy everything published in ring b into the batch's CRECORDS frame. */
static void ring_drain_compact(struct dut_trace_writer *w, struct ring *b)
{
	const size_t fixed = CFRAME_OPEN;
	struct ring_buf *q;
	uint64_t tail, n;

	while ((n = dut_tw_ring_avail(b, &q, &tail)) > 0) {
		size_t room = w->batch_cap - w->batch_len;
		uint8_t *p;

		/* worst case per record, and 7 bytes of padding at the close */
		if (room < (w->cframe_open ? 0 : fixed) + DUT_TRACE_CREC_MAX + 7) {
			batch_flush(w);
			continue;
		}
		if (!w->cframe_open) {
			w->cframe_open = true;
			w->cframe_at = w->batch_len;
			w->cframe_n = 0;
			w->cframe_span = (struct dut_trace_cspan){ .min_ts = UINT64_MAX, .max_ts = 0 };
			dut_trace_cstate_init(&w->cframe_st);
			w->batch_len += fixed;
			room -= fixed;
		}
		room = (room - 7) / DUT_TRACE_CREC_MAX;
		if (n > room)
			n = room;
		p = w->batch + w->batch_len;
		for (uint64_t i = 0; i < n; i++) {
			const struct dut_trace_rec *r = dut_tw_ring_at(q, tail + i);

			p += dut_trace_crec_encode(&w->cframe_st, r, p);
			if (r->ts_ns < w->cframe_span.min_ts)
				w->cframe_span.min_ts = r->ts_ns;
			if (r->ts_ns > w->cframe_span.max_ts)
				w->cframe_span.max_ts = r->ts_ns;
		}
		if (w->sec)
			for (uint64_t i = 0; i < n; i++)
				(void)dut_trace_seconds_add(w->sec, dut_tw_ring_at(q, tail + i));
		w->batch_len = (size_t)(p - w->batch);
		w->cframe_n += (uint32_t)n;
		w->batch_recs += n;
		/* The slots are copied: hand them back to the producer. */
		dut_tw_ring_consumed(q, tail + n);
	}
}

/* Copy everything published in ring b into RECORDS frames in the batch. */
static void ring_drain(struct dut_trace_writer *w, struct ring *b)
{
	struct ring_buf *q;
	uint64_t tail, n;

	if (!w->fixed_records) {
		ring_drain_compact(w, b);
		return;
	}
	while ((n = dut_tw_ring_avail(b, &q, &tail)) > 0) {
		size_t room = (w->batch_cap - w->batch_len);
		uint8_t *frame, *p;

		if (room < DUT_TRACE_FRAME_HDR_SIZE + DUT_TRACE_REC_SIZE) {
			batch_flush(w);
			continue;
		}
		room = (room - DUT_TRACE_FRAME_HDR_SIZE) / DUT_TRACE_REC_SIZE;
		if (n > room)
			n = room;
		frame = w->batch + w->batch_len;
		dut_trace_frame_hdr(frame, DUT_TRACE_FRAME_RECORDS, (uint32_t)(n * DUT_TRACE_REC_SIZE));
		p = frame + DUT_TRACE_FRAME_HDR_SIZE;
		for (uint64_t i = 0; i < n; i++, p += DUT_TRACE_REC_SIZE)
			dut_trace_rec_encode(dut_tw_ring_at(q, tail + i), p);
		if (w->sec)
			for (uint64_t i = 0; i < n; i++)
				(void)dut_trace_seconds_add(w->sec, dut_tw_ring_at(q, tail + i));
		w->batch_len += DUT_TRACE_FRAME_HDR_SIZE + n * DUT_TRACE_REC_SIZE;
		w->batch_recs += n;
		/* The slots are copied: hand them back to the producer. */
		dut_tw_ring_consumed(q, tail + n);
	}
}

static void ring_unlink(struct dut_trace_writer *w, struct ring *b)
{
	pthread_mutex_lock(&w->bufs_lock);
	for (struct ring **pp = &w->bufs; *pp; pp = &(*pp)->next) {
		if (*pp == b) {
			*pp = b->next;
			break;
		}
	}
	pthread_mutex_unlock(&w->bufs_lock);
}

/* Write queued FILE/MARKER/INFO frames, in the order they were queued. */
static void meta_write(struct dut_trace_writer *w)
{
	struct meta *got, **tailp;

	pthread_mutex_lock(&w->meta_lock);
	got = w->meta_head;
	w->meta_head = NULL;
	w->meta_tailp = &w->meta_head;
	pthread_mutex_unlock(&w->meta_lock);

	tailp = &w->pending;
	while (*tailp)
		tailp = &(*tailp)->next;
	*tailp = got;

	while (w->pending) {
		struct meta *m = w->pending;

		if (append(w, m->frame, m->len) < 0)
			return; /* keep it (and the rest) for the next round */
		w->pending = m->next;
		dut_tw_meta_keep(w, m);
	}
}

static void writer_round(struct dut_trace_writer *w)
{
	struct ring *b, *next;

	meta_write(w);
	pthread_mutex_lock(&w->bufs_lock);
	b = w->bufs;
	pthread_mutex_unlock(&w->bufs_lock);
	/* Only this thread unlinks, so the chain after the head we saw is stable. */
	for (; b; b = next) {
		bool orphaned = atomic_load_explicit(&b->orphaned, memory_order_acquire);

		next = b->next;
		ring_drain(w, b);
		if (orphaned) {
			/* Its producer is gone and its last record was drained above. */
			ring_unlink(w, b);
			atomic_fetch_add_explicit(&w->dropped_gone,
						  atomic_load_explicit(&b->dropped, memory_order_relaxed),
						  memory_order_relaxed);
			ring_unref(b);
		}
	}
	batch_flush(w);
	dut_tw_seconds_write(w, false);
}

static void *writer_main(void *arg)
{
	struct dut_trace_writer *w = arg;
	struct pollfd pfd = { .fd = w->efd, .events = POLLIN };
	int timeout_ms = (int)(w->flush_interval_ns / 1000000);

	if (timeout_ms < 1)
		timeout_ms = 1;
	while (!atomic_load_explicit(&w->stop, memory_order_acquire)) {
		if (poll(&pfd, 1, timeout_ms) > 0) {
			uint64_t v;

			(void)!read(w->efd, &v, sizeof(v));
		}
		writer_round(w);
	}
	writer_round(w);
	return NULL;
}

/* ---- public API ---- */

int dut_trace_writer_open(const char *path, const struct dut_trace_writer_opts *opts,
			  struct dut_trace_writer **ret)
{
	struct dut_trace_writer *w;
	struct stat st;
	uint64_t cap = DEFAULT_THREAD_BUF_RECS, max_cap;
	int r;

	if (!path || !*path)
		return -EINVAL;
	if (opts && opts->thread_buf_recs) {
		if (opts->thread_buf_recs < THREAD_BUF_RECS_MIN || opts->thread_buf_recs > THREAD_BUF_RECS_MAX)
			return -EINVAL;
		cap = THREAD_BUF_RECS_MIN;
		while (cap < opts->thread_buf_recs)
			cap <<= 1;
	}
	max_cap = cap;
	if (opts && opts->thread_buf_max_recs) {
		if (opts->thread_buf_max_recs < cap || opts->thread_buf_max_recs > THREAD_BUF_RECS_MAX)
			return -EINVAL;
		while (max_cap < opts->thread_buf_max_recs)
			max_cap <<= 1;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->id = atomic_fetch_add(&next_writer_id, 1);
	w->cap = cap;
	w->max_cap = max_cap;
	w->flush_interval_ns = opts && opts->flush_interval_ns ? opts->flush_interval_ns
							     : DEFAULT_FLUSH_INTERVAL_NS;
	w->fixed_records = opts && opts->fixed_records;
	w->hdr.version_major = w->fixed_records ? 1 : DUT_TRACE_VERSION_MAJOR;
	w->hdr.version_minor = w->fixed_records ? 1 : DUT_TRACE_VERSION_MINOR;
	w->hdr.flags = opts ? opts->flags : 0;
	w->hdr.start_realtime_ns = dut_tw_now_ns(CLOCK_REALTIME);
	w->hdr.start_monotonic_ns = dut_tw_now_ns(CLOCK_MONOTONIC);
	pthread_mutex_init(&w->bufs_lock, NULL);
	pthread_mutex_init(&w->meta_lock, NULL);
	w->meta_tailp = &w->meta_head;
	w->kept_info_tail = &w->kept_info;
	w->kept_markers_tail = &w->kept_markers;
	w->efd = -1;
	w->sec_fd = -1;
	w->batch_cap = BATCH_BYTES;
	if (opts && opts->max_bytes) {
		r = dut_tw_rotation_init(w, path, opts);
		if (r < 0)
			goto out_free;
	}

	w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (w->fd < 0) {
		r = -errno;
		goto out_free;
	}
	w->regular = fstat(w->fd, &st) == 0 && S_ISREG(st.st_mode);
	if (w->seg_max && !w->regular) {
		r = -EINVAL; /* rotation renames the file: only a regular one */
		goto out_close_fd;
	}
	w->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (w->efd < 0) {
		r = -errno;
		goto out_close_fd;
	}
	w->batch = malloc(BATCH_BYTES);
	if (!w->batch) {
		r = -ENOMEM;
		goto out_close_efd;
	}
	/* Write the header now so that a trace file is valid from the start. */
	(void)dut_tw_append(w, NULL, 0);
	if (w->seg_max)
		dut_tw_segment_open_frames(w);

	/* Signals belong to the program's threads, not to the writer. */
	r = dut_thread_start(&w->thread, writer_main, w);
	if (r < 0)
		goto out_free_batch;
	*ret = w;
	return 0;

out_free_batch:
	free(w->batch);
out_close_efd:
	close(w->efd);
out_close_fd:
	close(w->fd);
out_free:
	dut_tw_rotation_free(w);
	pthread_mutex_destroy(&w->bufs_lock);
	pthread_mutex_destroy(&w->meta_lock);
	free(w);
	return r;
}

static int meta_enqueue(struct dut_trace_writer *w, uint8_t *frame, size_t len)
{
	struct meta *m = malloc(sizeof(*m) + len);

	if (!m) {
		free(frame);
		return -ENOMEM;
	}
	m->next = NULL;
	m->len = len;
	memcpy(m->frame, frame, len);
	free(frame);
	pthread_mutex_lock(&w->meta_lock);
	*w->meta_tailp = m;
	w->meta_tailp = &m->next;
	pthread_mutex_unlock(&w->meta_lock);
	nudge(w);
	return 0;
}

int dut_trace_writer_add_file(struct dut_trace_writer *w, uint32_t id, const char *path,
			      const struct dut_pg_file *pg)
{
	uint8_t *f;
	size_t len;
	int r = dut_trace_frame_file(id, path, pg, &f, &len);

	return r < 0 ? r : meta_enqueue(w, f, len);
}

int dut_trace_writer_mark(struct dut_trace_writer *w, uint64_t ts_ns, const char *label)
{
	uint8_t *f;
	size_t len;
	int r = dut_trace_frame_marker(ts_ns, label, &f, &len);

	return r < 0 ? r : meta_enqueue(w, f, len);
}

int dut_trace_writer_info(struct dut_trace_writer *w, const char *key, const char *value)
{
	uint8_t *f;
	size_t len;
	int r = dut_trace_frame_info(key, value, &f, &len);

	return r < 0 ? r : meta_enqueue(w, f, len);
}

void dut_trace_writer_counts(struct dut_trace_writer *w, uint64_t *ret_written,
			     uint64_t *ret_dropped)
{
	uint64_t dropped = dut_tw_drops_now(w);

	if (ret_written)
		*ret_written = atomic_load_explicit(&w->written, memory_order_relaxed);
	if (ret_dropped)
		*ret_dropped = dropped;
}

uint64_t dut_trace_writer_rotations(struct dut_trace_writer *w)
{
	return atomic_load_explicit(&w->rotations, memory_order_relaxed);
}

int dut_trace_writer_close(struct dut_trace_writer *w)
{
	return dut_trace_writer_close_counts(w, NULL, NULL);
}

int dut_trace_writer_close_counts(struct dut_trace_writer *w, uint64_t *ret_written,
				  uint64_t *ret_dropped)
{
	uint64_t written, dropped;
	int r;

	if (ret_written)
		*ret_written = 0;
	if (ret_dropped)
		*ret_dropped = 0;
	if (!w)
		return 0;
	atomic_store_explicit(&w->stop, true, memory_order_release);
	nudge(w);
	pthread_join(w->thread, NULL);

	/* Meta frames that could not be written even in the last round are lost. */
	while (w->pending) {
		struct meta *m = w->pending;

		w->pending = m->next;
		free(m);
	}
	dut_trace_writer_counts(w, &written, &dropped);
	if (ret_written)
		*ret_written = written;
	if (ret_dropped)
		*ret_dropped = dropped;
	dut_tw_segment_finish(w, true);
	dut_tw_seconds_write(w, true);
	if (w->sec_fd >= 0 && fsync(w->sec_fd) < 0)
		dut_tw_note_error(w, -errno);
	r = w->first_err;
	dut_tw_rotation_free(w);

	while (w->bufs) {
		struct ring *b = w->bufs;

		w->bufs = b->next;
		ring_unref(b);
	}
	close(w->efd);
	free(w->batch);
	pthread_mutex_destroy(&w->bufs_lock);
	pthread_mutex_destroy(&w->meta_lock);
	free(w);
	return r;
}
