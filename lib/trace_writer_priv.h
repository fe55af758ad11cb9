/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Private to lib/trace_writer*.c: the writer's state, shared by the rings
 * (trace_writer_ring.c) and the writer thread (trace_writer.c) and the rotation of a bounded
 * trace with its side file (trace_writer_rotate.c), and the appender, drop
 * count and first error both use (trace_writer_io.c).  Locks: trace_writer.c.
 */
#ifndef DUT_TRACE_WRITER_PRIV_H
#define DUT_TRACE_WRITER_PRIV_H

#include <errno.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "lib/trace.h"
#include "lib/trace_format.h"

/*
 * A thread's ring is a chain of buffers (trace_writer_ring.c).  The
 * producer (the thread) fills the newest, b->prod; when it is full and
 * smaller than b->max_cap, the producer starts one twice its size and links
 * it as the full one's next, instead of dropping the record.  The writer
 * thread drains the oldest, b->cons, and moves on (freeing it) only when it
 * is empty and has a next: so records leave a ring in the order they were
 * emitted, across a grow.  A ring does not shrink: it keeps its largest
 * buffer until its thread exits.
 */
struct ring_buf {
	alignas(64) _Atomic uint64_t head;  /* written by the producer */
	alignas(64) _Atomic uint64_t tail;  /* written by the writer thread */
	/* set once, by the producer, after its last record here (release) */
	alignas(64) struct ring_buf *_Atomic next;
	uint64_t cap, mask;                 /* cap is a power of two */
	uint64_t check_mask;                /* look at the fill every check_mask + 1 records */
	uint64_t nudge_at;                  /* wake the writer at this many records in use */
	struct dut_trace_rec slots[];
};

struct ring {
	/* producer side */
	alignas(64) struct ring_buf *prod;
	uint64_t cached_tail;            /* of prod */
	_Atomic uint64_t dropped;        /* written by the producer only */
	_Atomic uint64_t grows;          /* written by the producer only */
	/* consumer side */
	alignas(64) struct ring_buf *cons;
	/* shared, rarely written */
	alignas(64) _Atomic int refs;
	_Atomic bool orphaned;           /* its thread exited (or evicted it) */
	struct ring *next;               /* protected by w->bufs_lock */
	uint64_t max_cap;                /* the largest buffer it may grow to */
};

/* trace_writer_ring.c: no locks, no syscalls (malloc only). */
/* A ring of one buffer of cap records that may grow to max_cap (powers of two); refs 0. */
struct ring *dut_tw_ring_new(uint64_t cap, uint64_t max_cap);
/* Free the ring and its whole chain: both sides are done with it. */
void dut_tw_ring_free(struct ring *b);
/* The producer's full buffer: grow and push r (1: wake the writer), or count a drop (-ENOBUFS). */
int dut_tw_ring_push_full(struct ring *b, const struct dut_trace_rec *r);
/*
 * Consumer: the records that can be taken now, from *ret_tail on in
 * *ret_q (at most up to the end of that buffer's published records), moving
 * past and freeing drained buffers the producer has left.  0: none now.
 */
uint64_t dut_tw_ring_avail(struct ring *b, struct ring_buf **ret_q, uint64_t *ret_tail);
/* Bytes of the ring's buffers now (the consumer's view: call it from the writer thread). */
uint64_t dut_tw_ring_bytes(const struct ring *b);

static inline const struct dut_trace_rec *dut_tw_ring_at(const struct ring_buf *q, uint64_t i)
{
	return &q->slots[i & q->mask];
}

/* Consumer: the records up to new_tail are copied; hand their slots back. */
static inline void dut_tw_ring_consumed(struct ring_buf *q, uint64_t new_tail)
{
	atomic_store_explicit(&q->tail, new_tail, memory_order_release);
}

/*
 * Producer (the ring's thread only): copy r in and publish it.  0: done;
 * 1: done, and the writer should be woken; -ENOBUFS: dropped and counted.
 * The hot path: no call unless the buffer is full.
 */
static inline int dut_tw_ring_push(struct ring *b, const struct dut_trace_rec *r)
{
	struct ring_buf *q = b->prod;
	uint64_t head = atomic_load_explicit(&q->head, memory_order_relaxed);

	if (head - b->cached_tail >= q->cap) {
		b->cached_tail = atomic_load_explicit(&q->tail, memory_order_acquire);
		if (head - b->cached_tail >= q->cap)
			return dut_tw_ring_push_full(b, r);
	}
	q->slots[head & q->mask] = *r;
	atomic_store_explicit(&q->head, head + 1, memory_order_release);
	/* Every sixteenth of the buffer, see whether the writer should drain it. */
	if (((head + 1) & q->check_mask) == 0) {
		b->cached_tail = atomic_load_explicit(&q->tail, memory_order_acquire);
		if (head + 1 - b->cached_tail >= q->nudge_at)
			return 1;
	}
	return 0;
}

struct meta {
	struct meta *next;
	size_t len;
	uint8_t frame[];
};

struct dut_trace_writer {
	uint64_t id;                     /* unique per process, for the TLS cache */
	int fd;
	int efd;                         /* eventfd: wake the writer thread */
	bool regular;                    /* a regular file: truncate at close */
	uint64_t cap, max_cap;           /* a new ring's buffer, the largest it may grow to */
	uint64_t flush_interval_ns;
	bool fixed_records;              /* 1.1 RECORDS frames instead of CRECORDS */
	struct dut_trace_header hdr;

	pthread_mutex_t bufs_lock;
	struct ring *bufs;               /* protected by bufs_lock */
	_Atomic uint64_t dropped_gone;   /* full-ring drops of freed rings */

	pthread_mutex_t meta_lock;
	struct meta *meta_head, **meta_tailp; /* protected by meta_lock */

	pthread_t thread;
	_Atomic bool stop;

	/* owned by the writer thread (and by close after the join) */
	uint8_t *batch;
	size_t batch_len;
	uint64_t batch_recs;
	struct meta *pending;            /* meta frames not yet written, in order */
	bool hdr_written;
	uint64_t off;                    /* end of the last whole frame on disk */
	int first_err;
	size_t batch_cap;                /* <= BATCH_BYTES: a batch fits a segment */
	/* the batch's CRECORDS frame being filled (2.x traces) */
	bool cframe_open;
	size_t cframe_at;                /* its CSPAN frame's offset in the batch */
	uint32_t cframe_n;
	struct dut_trace_cspan cframe_span; /* its records' times so far */
	struct dut_trace_cstate cframe_st; /* its coder state after the last record */

	/* rotation (seg_max 0: off), owned by the writer thread */
	char *path;
	uint64_t max_bytes, seg_max;
	unsigned keep;
	struct dut_trace_segment seg;    /* the current segment's SEGMENT frame */
	uint64_t seg_written0, seg_dropped0; /* run totals when it started */
	bool seg_has_data;               /* something besides its opening frames */
	bool replaying;                  /* writing a segment's opening frames */
	struct meta *kept_info, **kept_info_tail;
	struct meta *kept_markers, **kept_markers_tail;
	struct meta **kept_files;        /* by id */
	size_t nkept_files;
	struct dut_trace_seconds *sec;
	int sec_fd;
	_Atomic uint64_t rotations;

	_Atomic uint64_t written;
	_Atomic uint64_t dropped_io;     /* records of batches that failed to write */
};

/*
 * trace_writer_io.c (the writer thread, or close after the join).  It calls
 * nothing in trace_writer.c or trace_writer_rotate.c.
 */
uint64_t dut_tw_now_ns(clockid_t clk);
/* Keep the first error for close(). */
void dut_tw_note_error(struct dut_trace_writer *w, int err);
/*
 * Write n bytes at the end of the current file (its header first, if not
 * yet written); only a whole write advances it.  It does not rotate: see
 * dut_tw_rotation_due.
 */
int dut_tw_append(struct dut_trace_writer *w, const uint8_t *p, size_t n);
/* Records dropped so far: full rings (live and freed) and failed writes. */
uint64_t dut_tw_drops_now(struct dut_trace_writer *w);

/* Would appending n bytes of records or meta frames take the segment past its size? */
static inline bool dut_tw_rotation_due(const struct dut_trace_writer *w, size_t n)
{
	return w->seg_max && !w->replaying && w->seg_has_data &&
	       w->off + n + DUT_TRACE_FRAME_HDR_SIZE + DUT_TRACE_FOOTER_SIZE > w->seg_max;
}

/* trace_writer_rotate.c (writer thread, or close after the join) */
int dut_tw_rotation_init(struct dut_trace_writer *w, const char *path,
			 const struct dut_trace_writer_opts *o);
void dut_tw_rotation_free(struct dut_trace_writer *w);
void dut_tw_meta_keep(struct dut_trace_writer *w, struct meta *m);
void dut_tw_meta_list_free(struct meta *m);
void dut_tw_segment_open_frames(struct dut_trace_writer *w);
void dut_tw_segment_finish(struct dut_trace_writer *w, bool last);
void dut_tw_rotate(struct dut_trace_writer *w);
void dut_tw_seconds_write(struct dut_trace_writer *w, bool final);

#endif
