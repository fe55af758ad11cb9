/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Private to trace_stream.c and trace_stream_frames.c: the merge's state. */
#ifndef DUTLAB_TRACE_STREAM_PRIV_H
#define DUTLAB_TRACE_STREAM_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "lib/trace.h"
#include "lib/trace_format.h"

#define OUT_RECS 1024u
/*
 * A CRECORDS frame is decoded into an array when split (the split decodes
 * every record anyway), so the merge reads records instead of decoding them
 * a third time; while these arrays hold more than this, frames stay
 * encoded and are decoded again as merged (a record written very late can
 * make the merge split many blocks early: memory stays bounded).
 */
#define DECODED_CAP ((size_t)32 << 20)

/* A decoded frame: its records and their byte offsets (the merge's tie key). */
struct recbuf {
	size_t refs;                 /* segments still reading it */
	size_t bytes;
	uint64_t *offs;              /* after v[] */
	struct dut_trace_rec v[];
};

struct seg {
	struct seg *next;
	uint64_t off;                /* next record's byte offset */
	uint64_t end;                /* one past the last record */
	uint64_t last_ts;
	size_t block;
	/*
	 * A stretch of a CRECORDS frame: st.prev is the record at off,
	 * decoded, st the coder state after it, and next_off where the next
	 * record starts.
	 */
	bool compact;
	uint64_t next_off;
	struct dut_trace_cstate st;
	/* a stretch of a decoded frame (rb != NULL): records ri .. rend - 1 */
	struct recbuf *rb;
	uint32_t ri, rend;
};

struct run {
	struct seg *head, *tail;     /* head: being read; tail: where a later segment goes */
};

/* A heap entry carries its run's key, so comparing never follows a pointer. */
struct hent {
	uint64_t ts, off;            /* the run's next record: time and byte offset */
	struct run *run;
};

struct dut_trace_pipe;

/*
 * The merge's thread (trace_stream_pipe.c), reached through this table so
 * that the merge (trace_stream.c) does not call into the file that calls it.
 */
struct dut_trace_pipe_ops {
	int (*next)(struct dut_trace_pipe *p, const struct dut_trace_rec **ret, size_t *ret_n);
	/* ends the thread and frees p */
	void (*stop)(struct dut_trace_pipe *p);
	/* the merge's error message once the thread has met it, else empty */
	void (*error)(struct dut_trace_pipe *p, struct dut_error *ret);
};

struct dut_trace_stream {
	/*
	 * Set by dut_trace_stream_prefetch(): a thread merges into its slots
	 * and dut_trace_stream_next() hands them out; the merge state below
	 * is then that thread's alone until pipe_ops->stop().
	 */
	struct dut_trace_pipe *pipe;
	const struct dut_trace_pipe_ops *pipe_ops;
	const uint8_t *buf;
	size_t len;
	struct dut_trace_scan sc;
	bool zero_dutfs;             /* a 1.0 trace: dutfs_ns is not a measurement */
	uint64_t *smin;              /* earliest record in blocks [k, nblocks) */
	uint64_t *bend;              /* where block k's frames end */
	uint32_t *live;              /* block k's segments not yet read */
	size_t next_blk;             /* first block not split into segments */
	struct hent *heap;           /* min-heap by key */
	size_t nheap, cap_heap;
	struct seg *free_segs;
	size_t decoded_bytes;        /* in recbufs */
	size_t decoded_cap;          /* DECODED_CAP, or the tests' */
	struct run *free_runs;       /* chained through ->head */
	/*
	 * The merge's: the last CSPAN frame split (2.1) and the frame it is
	 * for; the merge's error (sticky: failed, and merr in the loader's
	 * words), read by the reader's thread once the merge has ended.
	 */
	struct dut_trace_cspan span;
	uint64_t span_for;
	int failed;
	struct dut_error merr;
	void (*unmap)(void *ctx);    /* at close: the mapping's owner */
	void *unmap_ctx;
	/* a segment set (nparts > 0): this stream merges its parts, oldest first */
	struct dut_trace_stream **parts;
	size_t nparts;
	struct part_cur *cur;
	struct dut_trace meta_set;   /* the newest part's meta (not owned), with the set's totals */
	struct dut_trace_seconds_file *seconds;
	struct dut_trace_rec out[OUT_RECS];
};

struct part_cur {
	const struct dut_trace_rec *p;
	size_t n;
	bool done;
};

static inline void dut_trace_recbuf_put(struct dut_trace_stream *s, struct recbuf *rb)
{
	if (rb && --rb->refs == 0) {
		s->decoded_bytes -= rb->bytes;
		free(rb);
	}
}

/* The merge (trace_stream.c): up to cap records into out, *ret_n of them (0 at the end). */
int dut_trace_stream_fill(struct dut_trace_stream *s, struct dut_trace_rec *out, size_t cap,
			  size_t *ret_n);

/*
 * Decode the CRECORDS frame whose n records are at q .. end into a new
 * array of `bytes` bytes, one reference; offs[] are the records' byte
 * offsets from base.  Checked: -EBADMSG when the bytes are not n records
 * that end at end, or their times are not the span sp (NULL: no span; a
 * 2.1 frame's bytes were not decoded before).
 */
int dut_trace_recbuf_decode(const uint8_t *base, const uint8_t *q, const uint8_t *end, uint32_t n,
			    const struct dut_trace_cspan *sp, size_t bytes, struct recbuf **ret);

#endif
